"""A judge that cannot be stalled (issue 23, items 3 and 9): what reading a log costs grows
with the log's length whatever the log says, a report stays a small multiple of the log,
and a log longer than one match's is refused whole.

Growth is asserted by counting, never by timing (speed is measured, in
benchmarks/bench_linear.py, not asserted): each crafted log of tests/crafted.py is read at
two sizes, ten times apart, and what the reader did per line of the log (lines fed to the
core flow, Python calls) and the report's bytes per byte of the log must not grow with
the size.
"""

from __future__ import annotations

import cProfile
import json
import pstats
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator import judge as judge_module
from coreflow_judge.adjudicator.findings import LISTED, listed
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.judge import (
    BUDGET_NOTES,
    CAUSE_REPLAYS_PER_LINE,
    REPAIR_REPLAYS_PER_LINE,
    JudgeInputError,
    judge_lines,
    normalize_lines,
)
from coreflow_judge.adjudicator.next_step import next_step
from coreflow_judge.adjudicator.request import Req
from coreflow_judge.adjudicator.stage import Buffer, StageStack
from coreflow_judge.audit.derive import StoredLine, derive_match
from coreflow_judge.events.models import MAX_LOG_BYTES, MAX_LOG_LINES
from coreflow_judge.events.reader import (
    LineError,
    LogReadError,
    LogTooLong,
    iter_lines,
    read_log,
)
from coreflow_judge.projections.board import BoardProjector
from hypothesis import given
from hypothesis import strategies as st

from tests.crafted import FAMILIES, ends, passes, triggers
from tests.test_bad_input import invoke, one_line

SMALL = {"ends": 60, "stacked": 30, "triggers": 60, "passes": 60, "reseq": 60}
"""The smaller size of each family (the larger is ten times it)."""


@contextmanager
def counting_feeds() -> Iterator[list[int]]:
    """Count the lines fed to any core flow meanwhile."""
    fed = [0]
    feed = CoreFlow.feed

    def counted(self: CoreFlow, line: Any) -> Any:
        fed[0] += 1
        return feed(self, line)

    CoreFlow.feed = counted  # type: ignore[method-assign]
    try:
        yield fed
    finally:
        CoreFlow.feed = feed  # type: ignore[method-assign]


def calls(fn: Callable[[], Any]) -> tuple[int, Any]:
    """The Python calls ``fn`` made (generators resumed included): the work it did."""
    profile = cProfile.Profile()
    profile.enable()
    try:
        out = fn()
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls, out  # type: ignore[attr-defined]


def size(lines: list[str]) -> int:
    return sum(len(x.encode("utf-8")) + 1 for x in lines)


def judged_per_line(lines: list[str]) -> dict[str, float]:
    with counting_feeds() as fed:
        work, report = calls(lambda: judge_lines(iter_lines(lines)))
    text = json.dumps(report.as_dict(), ensure_ascii=False)
    return {"calls": work / len(lines), "fed": fed[0] / len(lines),
            "bytes": len(text.encode("utf-8")) / size(lines)}


@pytest.fixture(scope="module")
def judged() -> dict[str, tuple[dict[str, float], dict[str, float]]]:
    return {name: (judged_per_line(family(SMALL[name])),
                   judged_per_line(family(10 * SMALL[name])))
            for name, family in FAMILIES.items()}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_judging_costs_the_same_per_line_at_ten_times_the_length(
        judged: dict[str, tuple[dict[str, float], dict[str, float]]], name: str) -> None:
    small, large = judged[name]
    # The work per line does not grow (a log of ten times the lines costs at most ten
    # times as much, give or take what a log pays once)...
    assert large["calls"] <= 1.25 * small["calls"] + 200, (small, large)
    # ... nor the replays: at most the budgets per line, and the first reading and the
    # one that says what the rules wanted next.
    assert large["fed"] <= small["fed"] + 0.5, (small, large)
    assert large["fed"] <= REPAIR_REPLAYS_PER_LINE + CAUSE_REPLAYS_PER_LINE + 2 + 40, large
    # ... and the report stays a small multiple of the log.
    assert large["bytes"] <= 1.1 * small["bytes"] + 0.5, (small, large)
    assert large["bytes"] <= 24, large  # a finding (and its next step) per short line


def test_the_probes_log_is_judged_with_findings_a_line_long() -> None:
    """The probe's log: each End after the first finds the stage holding every earlier
    one; the finding quotes its bottom and top and says how many it left out."""
    report = judge_lines(iter_lines(ends(300)))
    last = [f for f in report.findings if f.code == "timing.main-stage-not-empty"][-1]
    assert last.actual == [*(f"e{k}" for k in range(5)), "(289 more)",
                           *(f"e{k}" for k in range(294, 299))]
    assert "e0, e1, e2, e3, e4, (289 more), e294, e295, e296, e297, e298 waited on the " \
           "stage" in last.message
    # Every End is still judged: two errors each (not the turn player; the stage not
    # empty), the first one (no chance) aside.
    assert report.errors == 600


def test_a_long_buffer_is_quoted_in_part_with_the_class_handled_first() -> None:
    lines = triggers(40)[:-40]  # 40 spurious Draws waiting in the buffer
    report = judge_lines(iter_lines(lines))
    flow = report.flow
    assert flow is not None and len(flow.buffer) == 40
    step = next_step(flow)
    assert step.step == "buffer" and len(step.waiting) == LISTED and step.more == 30
    assert step.as_dict()["more"] == 30
    assert any(w.first for w in step.waiting)


def test_listed_keeps_short_lists_whole() -> None:
    assert listed(["a", "b"]) == ["a", "b"]
    assert listed([str(k) for k in range(LISTED)]) == [str(k) for k in range(LISTED)]
    assert listed([str(k) for k in range(LISTED + 1)]) == [
        "0", "1", "2", "3", "4", "(1 more)", "6", "7", "8", "9", "10"]
    assert listed(dict.fromkeys("abcdefghijkl")) == [
        "a", "b", "c", "d", "e", "(2 more)", "h", "i", "j", "k", "l"]


def test_out_of_budget_the_judge_says_so_and_still_reports_every_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ends(40)
    full = judge_lines(iter_lines(lines))
    for name in ("REPAIR_REPLAY_ALLOWANCE", "CAUSE_REPLAY_ALLOWANCE"):
        monkeypatch.setattr(judge_module, name, 0)
    for name in ("REPAIR_REPLAYS_PER_LINE", "CAUSE_REPLAYS_PER_LINE"):
        monkeypatch.setattr(judge_module, name, 1)
    with counting_feeds() as fed:
        report = judge_lines(iter_lines(lines))
    assert fed[0] <= 5 * len(lines)  # the reading, the next step, about a replay each
    assert BUDGET_NOTES["causes"] in report.notes
    assert [(f.seq, f.code) for f in report.findings] == [
        (f.seq, f.code) for f in full.findings]


# ---------------------------------------------------------------- the other readers
def stored(lines: list[str]) -> list[StoredLine]:
    out = []
    for _no, x in iter_lines(lines):
        assert not isinstance(x, LineError)
        out.append(StoredLine(line=x, data=json.loads(x.model_dump_json(exclude_none=True)),
                              recorded_at=None))
    return out


def _derive(lines: list[str]) -> Any:
    return derive_match("r", stored(lines))


def _board_and_normalize(lines: list[str]) -> Any:
    return BoardProjector(iter_lines(lines)).at(), normalize_lines(iter_lines(lines))


@pytest.mark.parametrize("name", ["ends", "stacked", "triggers", "reseq"])
def test_the_audit_costs_the_same_per_line_at_ten_times_the_length(name: str) -> None:
    family = FAMILIES[name]
    per_line = []
    for n in (SMALL[name], 10 * SMALL[name]):
        lines = family(n)
        work, rows = calls(partial(_derive, lines))
        out = len(json.dumps(rows, default=str))
        per_line.append((work / len(lines), out / size(lines)))
    (small_calls, small_bytes), (large_calls, large_bytes) = per_line
    assert large_calls <= 1.25 * small_calls + 200, per_line
    assert large_bytes <= 1.1 * small_bytes + 0.5, per_line


@pytest.mark.parametrize("name", ["ends", "stacked", "triggers", "reseq"])
def test_the_board_and_normalize_cost_the_same_per_line(name: str) -> None:
    family = FAMILIES[name]
    per_line = []
    for n in (SMALL[name], 10 * SMALL[name]):
        lines = family(n)
        work, _ = calls(partial(_board_and_normalize, lines))
        per_line.append(work / len(lines))
    assert per_line[1] <= 1.25 * per_line[0] + 200, per_line


def test_a_board_keeps_a_bounded_number_of_checkpoints() -> None:
    lines = passes(4000)
    p = BoardProjector(iter_lines(lines), every=16)
    p.at()
    assert len(p.checkpoints) <= 9
    assert p.at(2000) == BoardProjector(iter_lines(lines[:2000]), every=1 << 40).at()


# ---------------------------------------------------------------- the stage
@given(st.lists(st.tuples(st.sampled_from(["push", "remove", "pop", "find"]),
                          st.integers(0, 40)), max_size=120))
def test_the_stage_is_the_list_it_stands_for(ops: list[tuple[str, int]]) -> None:
    """The stage finds and removes by bisection: it answers as a plain list would."""
    from coreflow_judge.adjudicator.game import ActionDef

    action = ActionDef(id="a", name="A", speed="normal", timing="quick", direct=True)
    reqs = [Req(id=f"r{k}", action=action, controller="p", seq=k, triggered=False)
            for k in range(41)]
    stage, plain = StageStack(), []
    for op, k in ops:
        req = reqs[k]
        if op == "push" and req not in plain:
            stage.append(req)
            plain.append(req)
        elif op == "remove" and req in plain:
            stage.remove(req)
            plain.remove(req)
        elif op == "pop" and plain:
            assert stage.pop() is plain.pop()
        assert (req in stage) == (req in plain)
        if req in plain:
            assert stage.index(req) == plain.index(req)
        assert list(stage) == plain


@given(st.lists(st.tuples(st.sampled_from(["enter", "leave", "clear", "copy"]),
                          st.integers(0, 40)), max_size=150))
def test_the_buffer_numbers_entries_and_counts_those_waiting_before(
        ops: list[tuple[str, int]]) -> None:
    """The buffer numbers each request the first time it enters (one that enters again
    keeps its number), and of each that leaves says how many that entered before it still
    wait: as counting a plain list of those waiting would (a copy, as the board's
    checkpoints make, numbers on from where the buffer was)."""
    from copy import deepcopy

    from coreflow_judge.adjudicator.game import ActionDef

    action = ActionDef(id="a", name="A", speed="normal", timing="quick", direct=False)
    reqs = [Req(id=f"t{k}", action=action, controller="p", seq=k, triggered=True)
            for k in range(41)]
    buffer, plain = Buffer(), []  # plain: those waiting, in buffer order
    numbers: dict[str, int] = {}  # each request's number: first entered, first numbered
    left: list[tuple[Req, int]] = []
    buffer.left = left
    for op, k in ops:
        req = reqs[k]
        expected: list[tuple[Req, int]] = []
        if op == "enter" and req not in plain:
            numbers.setdefault(req.id, len(numbers) + 1)
            buffer.append(req)
            plain.append(req)
        elif op == "leave" and req in plain:
            plain.remove(req)
            expected = [(req, len([r for r in plain if numbers[r.id] < numbers[req.id]]))]
            buffer.remove(req)
        elif op == "clear":
            expected = [(r, len([o for o in plain if numbers[o.id] < numbers[r.id]]))
                        for r in plain]
            plain.clear()
            buffer.clear()
        elif op == "copy":
            memo: dict[int, object] = {id(r): r for r in reqs}  # the copy shares them
            buffer = deepcopy(buffer, memo)
            buffer.left = left
        assert left == expected
        left.clear()
        assert list(buffer) == plain
        assert buffer.entries == len(numbers)
        assert all(r.buffered_at == numbers[r.id] for r in plain)


# ---------------------------------------------------------------- the size of a log
def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def too_long(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lines = passes(MAX_LOG_LINES - 3 + 1)  # the header and two lines, then the passes
    assert len(lines) == MAX_LOG_LINES + 1
    return write(tmp_path_factory.mktemp("long") / "long.jsonl", lines)


@pytest.mark.parametrize("command", ["judge", "normalize", "board", "record", "fixture new"])
def test_a_log_longer_than_a_match_is_refused_naming_the_line(
        too_long: Path, tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    args: list[str | Path] = [*command.split(), too_long]
    if command == "record":
        args += ["--store", tmp_path / "s.db"]
    if command == "fixture new":
        args += ["--name", "long", "--dir", tmp_path]
    r = invoke(*args)
    assert r.exit_code == 2, (command, r.output)
    assert one_line(r.stderr) == (
        f"coreflow: {too_long}: line {MAX_LOG_LINES + 1}: field '(log)': the log is longer "
        f"than {MAX_LOG_LINES:,} lines, the limit of one match's log"), command
    assert not (tmp_path / "s.db").exists() or command != "record"


def test_a_log_of_the_limit_is_judged(too_long: Path) -> None:
    lines = too_long.read_text(encoding="utf-8").splitlines()[:MAX_LOG_LINES]
    report = judge_lines(iter_lines(lines))
    assert report.events == MAX_LOG_LINES and report.errors == 0
    with pytest.raises(JudgeInputError, match="longer than 50,000 lines"):
        judge_lines([(1, line) for _no, line in iter_lines(lines)] * 2)


def test_a_log_of_more_bytes_than_a_match_is_refused(tmp_path: Path) -> None:
    header, *rest = ends(1)
    note = "x" * 1_000_000
    line = json.dumps({"seq": 4, "type": "pass", "player": "alice", "note": note})
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        fh.write("\n".join([header, *rest]) + "\n")
        for _ in range(MAX_LOG_BYTES // len(line) + 1):
            fh.write(line + "\n")
    with pytest.raises(LogReadError, match=r"the log is longer than 33,554,432 bytes"):
        read_log(path)
    with pytest.raises(LogTooLong):
        list(iter_lines([header.encode()] + [line.encode()] * 40))


def test_play_takes_no_entry_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """At the table, entries stop being taken some lines short of the limit (room for
    what the end of the game adds): the record stays one the judge reads."""
    from coreflow_judge.adjudicator import live

    monkeypatch.setattr(live, "MAX_LOG_LINES", live.PLAY_MARGIN + 20)
    start = [x for _no, x in iter_lines(passes(0))]
    kept: list[Any] = []
    table = live.LiveTable(start, kept.extend)  # type: ignore[arg-type]
    answers = []
    for _ in range(30):
        player = table.flow.chance or "alice"
        (_no, line), = iter_lines([json.dumps({"seq": 1, "type": "pass", "player": player})])
        answers.append(table.enter(line))  # type: ignore[arg-type]
    accepted = [a.accepted for a in answers]
    assert accepted == sorted(accepted, reverse=True) and True in accepted  # then refused
    assert False in accepted
    assert 20 <= len(table.stored) < 20 + 3
    refused = answers[accepted.index(False)]
    assert "no more lines are taken" in refused.findings[0].message


# ---------------------------------------------------------------- the count of rule breaks
RULINGS = Path(__file__).resolve().parent.parent / "fixtures" / "rulings"


def test_the_rule_breaks_kept_line_by_line_are_those_counted_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The repair planner reads :attr:`CoreFlow.breaks` after each line instead of counting
    every finding again: before each line fed (every repair and every replay of every
    ruling fixture, and of the crafted logs), it is what counting them all says."""
    from coreflow_judge.adjudicator.findings import breaks

    feed = CoreFlow.feed
    checked = [0]

    def checking(self: CoreFlow, line: Any) -> Any:
        assert self.breaks == breaks(self.findings), line
        checked[0] += 1
        return feed(self, line)

    monkeypatch.setattr(CoreFlow, "feed", checking)
    logs = sorted(RULINGS.glob("*/*.jsonl"))
    assert len(logs) > 100
    for path in logs:
        try:
            judge_lines(iter_lines(path.read_text(encoding="utf-8").splitlines()))
        except JudgeInputError:
            continue
    for family in FAMILIES.values():
        judge_lines(iter_lines(family(12)))
    assert checked[0] > 10_000


def test_a_finding_of_many_parts_says_ten_messages_and_counts_every_part() -> None:
    """Merging a part costs what the part says: past ten distinct messages, a finding
    says how many more there were; its values and its rule breaks keep every part."""
    from coreflow_judge.adjudicator.findings import MESSAGES, finding, merge, weight

    into = finding("log.seq-gap", 5, "log", "m0", expected=0, actual="a")
    work = []
    for k in range(1, 400):
        part = finding("log.seq-gap", 5, "log", f"m{k % 30}", expected=k % 30, actual="a")
        work.append(calls(partial(merge, into, part))[0])
    assert into.message == " ".join(f"m{k}" for k in range(MESSAGES)) + " (20 more)"
    assert into.expected == list(range(30)) and into.actual == "a"
    assert weight(into) == 400 and len(into.parts) == 400
    assert max(work[200:]) <= max(work[:20])  # the 300th part costs what the 10th did
