"""Helpers the judge's tests share: renumber a log, judge it, list its errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from coreflow_judge.adjudicator.judge import Report, judge_lines
from coreflow_judge.events.models import LogLine, Pass, Request, Resolve, Stage, Trigger
from hypothesis import strategies as st

Log = list[LogLine]


def audit_rows(lines: Log) -> dict[str, list[dict[str, Any]]]:
    """The audit's rows of a match recorded as ``lines`` (as the store would hand them)."""
    from coreflow_judge.audit import derive

    stored = [derive.StoredLine(line, line.model_dump(mode="json", exclude_none=True), None)
              for line in lines]
    return derive.derive_match("rec", stored)


def renumber(lines: Log) -> Log:
    """The lines with seq 1, 2, 3, ... and no hash (after lines were cut or inserted)."""
    return [line.model_copy(update={"seq": i, "hash": None}) for i, line in enumerate(lines, 1)]


def judge(lines: Log) -> Report:
    return judge_lines(enumerate(renumber(lines), 1))


def errors(report: Report) -> list[tuple[str, int]]:
    """``(code, seq)`` of every error finding."""
    return [(f.code, f.seq) for f in report.findings if f.severity == "error"]


def identity(line: LogLine) -> str:
    """A line without its position: what it says, not where it stands."""
    return json.dumps(line.model_dump(mode="json", exclude={"seq", "hash"}, exclude_none=True),
                      sort_keys=True)


@dataclass(frozen=True)
class Garbage:
    """A game's plausible-or-absurd values for :func:`mutate`."""

    choices: list[dict[str, object]]
    targets: list[list[str]]
    keys: list[list[str]]
    effects: list[list[dict[str, object]]]
    actions: list[str]
    ops: tuple[str, ...] = ("drop", "repeat", "move", "player", "request", "choices",
                            "result", "targets", "keys", "effects", "action")


def mutate(lines: Log, data: st.DataObject, garbage: Garbage) -> None:
    """One random edit of a log past its first two lines: a line dropped, repeated or
    moved, or one of its fields replaced by something plausible or absurd."""
    i = data.draw(st.integers(2, len(lines) - 1), label="line")
    line = lines[i]
    op = data.draw(st.sampled_from(garbage.ops), label="edit")
    update: dict[str, object] = {}
    if op == "drop":
        lines.pop(i)
    elif op == "repeat":
        lines.insert(i, line)
    elif op == "move":
        lines.insert(data.draw(st.integers(2, len(lines) - 1), label="to"), lines.pop(i))
    elif op == "player" and isinstance(line, Request | Pass):
        update["player"] = "bob" if line.player == "alice" else "alice"
    elif op == "request" and isinstance(line, Request | Resolve | Stage | Trigger):
        names = sorted({x.request for x in lines if isinstance(x, Request | Trigger)})
        update["request"] = data.draw(st.sampled_from(names), label="name")
    elif op == "choices" and isinstance(line, Request | Resolve):
        update["choices"] = data.draw(st.sampled_from(garbage.choices), label="choices")
    elif op == "result" and isinstance(line, Resolve):
        update["result"] = "fizzled" if line.result == "resolved" else "resolved"
    elif op == "targets" and isinstance(line, Request):
        update["targets"] = data.draw(st.sampled_from(garbage.targets), label="targets")
    elif op == "keys" and isinstance(line, Request):
        update["key_cards"] = data.draw(st.sampled_from(garbage.keys), label="keys")
    elif op == "effects" and isinstance(line, Resolve):
        update["effects"] = data.draw(st.sampled_from(garbage.effects), label="effects")
    elif op == "action" and isinstance(line, Request | Trigger):
        update["action"] = data.draw(st.sampled_from(garbage.actions), label="action")
    if update:
        lines[i] = type(line).model_validate({**line.model_dump(), **update})
