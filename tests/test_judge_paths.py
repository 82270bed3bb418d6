"""The judge's short cuts rule as the long way does (issue 26).

- A log none of whose lines raises an error is fed once, without the repair planner's
  bookkeeping (:func:`~adjudicator.judge.clean_replay`): that run is the run
  :func:`~adjudicator.judge.replay` makes, and any log with a line in error takes the
  long way. Checked on every log of the project's fixtures (those with mistakes and
  those without).
- A BlackPoker board copy (taken before every resolution whose effects the log claims)
  keeps every field of every character and trump, in lists of its own.
- A log of one of coreflow's own games is judged without reading the entry points of
  every installed distribution, and its game is the very object the entry point names.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest
from coreflow_judge.adjudicator import plugins
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard, Trump
from coreflow_judge.adjudicator.judge import (
    JudgeInputError,
    clean_replay,
    judge_file,
    replay,
    taken_back,
)
from coreflow_judge.events.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted((ROOT / "fixtures").rglob("*.jsonl"))


def _ruled(run: object) -> tuple[object, ...]:
    flow = run.flow  # type: ignore[attr-defined]
    return (run.errors, [f.as_dict() for f in flow.findings],  # type: ignore[attr-defined]
            run.candidates, run.erring, run.before,  # type: ignore[attr-defined]
            [type(x).__name__ for x in flow.complete], flow.result)


def test_a_clean_log_is_fed_once_as_the_replay_feeds_it() -> None:
    assert len(LOGS) > 400  # the fixtures are there
    clean = erring = 0
    for path in LOGS:
        pairs = read_log(path)
        skipped = taken_back([item for _no, item in pairs])
        try:
            full = replay(pairs, skipped, {})
        except JudgeInputError:
            continue  # a log that cannot be judged at all (the clean run raises alike)
        quick = clean_replay(pairs, skipped)
        if full.erring:
            erring += 1
            assert quick is None, path
        else:
            clean += 1
            assert quick is not None, path
            assert _ruled(quick) == _ruled(full), path
    assert clean > 50 and erring > 50  # both ways were taken


def _distinct(field: dataclasses.Field[object], n: int) -> object:
    """A value of the field's type unlike its default."""
    kind = str(field.type)
    if kind.startswith("list"):
        return [f"x{n}", f"y{n}"] if "str" in kind else [n, n + 1]
    if kind.startswith("Counter"):
        return Counter({f"c{n}": 2})
    if "bool" in kind:
        return True
    if "int" in kind:
        return 1000 + n
    return f"v{n}"


@pytest.mark.parametrize("cls", [Character, Trump])
def test_a_board_copy_keeps_every_field(cls: type) -> None:
    fields = dataclasses.fields(cls)
    original = cls(**{f.name: _distinct(f, i) for i, f in enumerate(fields)})
    board = PlayerBoard(field=[original] if cls is Character else [],
                        trumps=[original] if cls is Trump else [])
    copied = board.copy()
    twin = (copied.field or copied.trumps)[0]
    assert twin == original and twin is not original
    for f in fields:
        value = getattr(original, f.name)
        if isinstance(value, list):
            assert getattr(twin, f.name) is not value  # a list of its own


def test_a_game_of_coreflows_own_is_judged_without_reading_the_entry_points() -> None:
    plugins.clear_cache()
    try:
        report = judge_file(ROOT / "fixtures" / "sample-match.jsonl")
        assert report.result is not None
        assert plugins._entry_points is None  # the group was never read
        assert plugins.is_registered("duel_masters") and plugins._entry_points is None
        judged = plugins.game_plugin("blackpoker")
        assert not plugins.is_registered("chess")  # a game not ours: the group is read
        assert plugins._entry_points is not None
        (entry,) = plugins._registered()["blackpoker"]
        assert entry.load() is judged
    finally:
        plugins.clear_cache()
