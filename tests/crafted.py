"""Crafted logs that try to make a reader's cost grow faster than the log (issue 23, item 3).

Each family is a function of ``n`` returning the log's lines as JSON text: the same few
lines repeated ``n`` times after the start of the disputed game
(fixtures/examples/disputed-counter.jsonl, a BlackPoker 9.0 lite match), each written to
push one part of the judge's state or work up with the log's length:

- ``ends``: the probe's log: a ``chance_moved`` to alice, then ``n`` End requests by bob,
  who holds no chance and whose turn it is not. Each goes on the stage (a request that
  breaks a rule still happened), so the stage grows with the log, and every line is in
  error (two findings each, every one a repair candidate).
- ``stacked``: the same stage of ``n`` Ends, then each resolved in turn (the chance holder
  passes, the other passes, the top resolves), then ``n`` requests by the wrong player
  naming cards the resolutions moved (candidates for the ``kept`` repair).
- ``triggers``: ``n`` trigger lines the rules did not derive (each still happened: the
  buffer grows with the log), then a stage line for each.
- ``passes``: a legal log: alice and bob pass in turn ``n`` times (nothing happens).
- ``reseq``: the probe's Ends written under two seqs in turn (5, 6, 5, 6, ...): each line
  breaks the seq rule, and its findings merge into those of the first line of its seq
  (one finding per code per line), which grow with the log.

:func:`repeated` makes the same kind of log out of any log: one of its lines repeated.

The tests (tests/test_linear.py) and benchmarks/bench_linear.py judge them at several
sizes and compare what the judge did (lines fed to the core flow, Python calls, report
bytes) per line of the log: never the time it took.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"


def _dump(line: dict[str, Any]) -> str:
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


def _start() -> list[dict[str, Any]]:
    """The disputed game's first three lines: header, game start, alice's turn 1."""
    return [json.loads(x) for x in DISPUTED.read_text(encoding="utf-8").splitlines()[:3]]


class _Log:
    """Lines appended with the next seq."""

    def __init__(self) -> None:
        self.lines = _start()

    def add(self, **line: Any) -> None:
        self.lines.append({"seq": len(self.lines) + 1, **line})

    def request(self, rid: str, player: str, action: str, key_cards: list[str] | None = None,
                targets: list[str] | None = None) -> None:
        self.add(type="request", request=rid, player=player, action=action,
                 key_cards=key_cards or [], costs=[], targets=targets or [])

    def text(self) -> list[str]:
        return [_dump(x) for x in self.lines]


def ends(n: int) -> list[str]:
    log = _Log()
    log.add(type="chance_moved", to="alice")
    for k in range(n):
        log.request(f"e{k}", "bob", "end")
    return log.text()


def stacked(n: int) -> list[str]:
    log = _Log()
    for k in range(n):
        log.request(f"e{k}", "bob", "end")
    # The top resolves once every player passed: bob holds the chance after his requests
    # (the requester keeps it in 9.0); he passes, alice passes, the top resolves.
    for k in reversed(range(n)):
        log.add(type="pass", player="bob")
        log.add(type="pass", player="alice")
        log.add(type="resolve", request=f"e{k}", result="resolved")
    hand = ["alice:H9", "bob:S4", "alice:S9", "alice:H2", "bob:C3", "bob:D5"]
    for k in range(n):
        log.request(f"u{k}", "bob", "up", key_cards=hand[k % 3: k % 3 + 3],
                    targets=hand[3:])
    return log.text()


def triggers(n: int) -> list[str]:
    log = _Log()
    for k in range(n):
        log.add(type="trigger", request=f"t{k}x", action="draw", source="alice:H9",
                controller="alice")
    for k in range(n):
        log.add(type="stage", request=f"t{k}x")
    return log.text()


def passes(n: int) -> list[str]:
    log = _Log()
    for k in range(n):
        log.add(type="pass", player="alice" if k % 2 == 0 else "bob")
    return log.text()


def reseq(n: int) -> list[str]:
    lines = [json.loads(x) for x in ends(n)]
    for k, line in enumerate(lines[4:]):
        line["seq"] = 5 + k % 2
    return [_dump(x) for x in lines]


FAMILIES: dict[str, Callable[[int], list[str]]] = {
    "ends": ends, "stacked": stacked, "triggers": triggers, "passes": passes, "reseq": reseq,
}


def repeated(lines: list[str], at: int, n: int) -> list[str]:
    """``lines`` up to position ``at``, then the line at ``at`` ``n`` times: each copy
    renumbered (the next seq) and, for a line that introduces a request, under a new id."""
    head = [json.loads(x) for x in lines[:at]]
    line = json.loads(lines[at])
    out = [_dump(x) for x in head]
    seq = head[-1]["seq"] if head else 0
    for k in range(n):
        seq += 1
        copy = {**line, "seq": seq}
        copy.pop("hash", None)
        if line.get("type") in ("request", "trigger") and "request" in line:
            copy["request"] = f"{line['request']}x{k}"
        out.append(_dump(copy))
    return out
