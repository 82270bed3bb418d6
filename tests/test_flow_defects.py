"""Regression tests of the core flow's reconciliation of a log with the derived lines:
the defects issue 7 names, each pinned so it cannot come back."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import normalize_lines
from coreflow_judge.events.models import GameEnded
from coreflow_judge.events.reader import LineError, iter_lines
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import test_duel_masters as dm
from tests import test_simulate as bp
from tests import test_toy_game as toy
from tests.logtools import Garbage, Log, errors, identity, judge, mutate, renumber
from tests.pools import pooled
from tests.test_flow import log as flow_log
from tests.test_flow import req as flow_req
from tests.test_flow import run as flow_run
from tests.test_simulate import rename_triggered

ROOT = Path(__file__).resolve().parent.parent


def test_trigger_lines_bind_by_what_they_say_not_by_the_judges_ids() -> None:
    """Two Next Generation triggers at once, in a log that names its triggered requests
    ``t1, t2, ...`` like the judge's provisional ids: each trigger line binds the derived
    trigger of its own source and controller, never the one the judge happened to call by
    the line's id (found: bound crosswise, a legal game got order.trigger-spurious twice
    and order.trigger-turn-order; shuffles 23, 50, 78, 83 and 96 failed)."""
    game = simulate_game("9.0", 1878198)
    failing = {}
    for shuffle in range(100):
        report = judge(rename_triggered(game, random.Random(shuffle)))
        if errors(report):
            failing[shuffle] = errors(report)
    assert failing == {}


def _ruled(lines: Log) -> list[tuple[str, str]]:
    """Each finding's code and what its line says (seqs differ between a log and its
    complete form; the line a finding stands on does not)."""
    report = judge(lines)
    by_seq = {line.seq: identity(line) for line in renumber(lines)}
    return [(f.code, by_seq.get(f.seq, "?")) for f in report.findings]


def test_a_tournament_log_and_its_complete_form_are_ruled_alike() -> None:
    """The table recorded the wrong winner: judged as the file, the finding is
    legality.result-mismatch; the complete log (normalize, and what record stores) must
    not hold the judge's own game_ended before the table's and so make the table's line
    come after the end (found: log.after-game-end)."""
    path = ROOT / "fixtures" / "tournament" / "spring25-61-r4-t3.jsonl"
    lines = [line for _, line in iter_lines(path.read_text(encoding="utf-8").splitlines())]
    assert all(not isinstance(line, LineError) for line in lines)
    as_file = _ruled(lines)  # type: ignore[arg-type]
    assert [code for code, _ in as_file] == ["legality.result-mismatch"]
    complete = normalize_lines(enumerate(lines, 1))  # type: ignore[arg-type]
    assert [x.type for x in complete].count("game_ended") == 1
    assert _ruled(complete) == as_file


def test_a_wrong_recorded_winner_is_ruled_alike_in_the_complete_log() -> None:
    """A hand-written toy game: ann makes her third point, the table writes ben as the
    winner and plays on. The log and its complete form get the same findings, and the
    complete form ends the game once, with the table's line."""
    lines: list[dict[str, Any]] = [
        {"type": "game_started", "first_player": "ann"},
        toy.req("r1", "ann", "point"), toy.res("r1"),
        toy.req("r2", "ann", "point"), toy.res("r2"),
        toy.res("t1"),  # the bonus: ann's third point
        {"type": "game_ended", "result": "win", "winner": "ben", "reason": "three_points"},
        toy.req("r3", "ben", "point"),
    ]
    flow = toy.toy_flow()
    found = [(f.code, f.seq) for f in toy.feed(flow, lines)]
    assert found == [("legality.result-mismatch", 8), ("log.after-game-end", 9)]
    complete = flow.complete_log()
    ends = [x for x in complete if isinstance(x, GameEnded)]
    assert [(x.winner, x.seq) for x in ends] == [("ben", len(complete) - 1)]
    again = toy.toy_flow()
    for line in complete[1:]:
        again.feed(line)
    again.finish()
    seq_of = {identity(x): x.seq for x in complete}
    assert [(f.code, f.seq) for f in again.findings] == [
        ("legality.result-mismatch", seq_of[identity(ends[0])]),
        ("log.after-game-end", len(complete)),
    ]


_bp_game = pooled(simulate_game)
_dm_game = pooled(dm.simulate_game)
GAMES: dict[str, tuple[Callable[[int], Log], Garbage]] = {
    "blackpoker/6.1": (lambda seed: _bp_game("6.1", seed), bp.GARBAGE),
    "blackpoker/9.0": (lambda seed: _bp_game("9.0", seed), bp.GARBAGE),
    "duel_masters": (lambda seed: _dm_game(seed, max_lines=300), dm.GARBAGE),
}
"""Each game by seed (played once a session: the examples draw the edits, and the seeds
among the first hundred games)."""


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 99),
       edits=st.integers(1, 3), data=st.data())
def test_no_finding_contradicts_itself(game: str, seed: int, edits: int,
                                       data: st.DataObject) -> None:
    """Whatever was changed in a log, a finding whose expected and actual are both set
    never has them equal (found: "the log moves the chance to alice; under the rules it
    goes to alice here" after a card was changed)."""
    simulate, garbage = GAMES[game]
    lines = simulate(seed)
    for _ in range(edits):
        mutate(lines, data, garbage)
    for f in judge(lines).findings:
        if f.expected is not None and f.actual is not None:
            assert f.expected != f.actual, f


def test_a_rule_system_line_that_says_what_already_holds_is_no_finding() -> None:
    """A chance move to the player who holds the chance, a turn start of the turn under
    way: the rules agree with what the line says (found: timing.chance-wrong-player
    "the log moves the chance to alice; under the rules it goes to alice here")."""
    chance = {"type": "chance_moved", "to": "alice"}
    turn = {"type": "turn_started", "player": "alice", "turn": 1}
    lines = flow_log("9.0", turn, chance, chance, turn, flow_req("r1", "alice", "summon_ace",
                     ["alice:S1"], [("L", "alice:?")]), chance)
    flow, errors_found = flow_run(lines)
    assert errors_found == [] and flow.findings == [] and flow.chance == "alice"
    wrong = flow_log("9.0", turn, chance, {"type": "chance_moved", "to": "bob"})
    _, errors_found = flow_run(wrong)
    assert errors_found == [("timing.chance-wrong-player", 5)]
