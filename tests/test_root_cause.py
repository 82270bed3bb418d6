"""Root cause first: one natural mistake, played on consistently, is one error finding.

The games come from :mod:`adjudicator.games.blackpoker.mistakes` (a table that believes
one thing the rules do not say and plays on consistently with it). The judge must report
each such game with exactly one error finding, at the line where the table departed, and
nothing after it (docs/decisions.md, "Root cause first").
"""

from __future__ import annotations

import random

import pytest
from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.games.blackpoker.mistakes import (
    NATURAL_MISTAKES as KINDS,
)
from coreflow_judge.adjudicator.games.blackpoker.mistakes import mistaken_game
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.models import LogLine, Request, Resolve, TurnStarted
from coreflow_judge.projections.board import BoardProjector

LITE_KINDS = sorted(set(KINDS) - {"forgot"})
"""``forgot`` needs a triggered request staged above another one: the extra trumps'
End triggers (充足, 幻影, 手札補充); lite never stages one so."""


@pytest.mark.parametrize("kind", LITE_KINDS)
@pytest.mark.parametrize("edition", ["9.0", "6.1"])
def test_one_natural_mistake_played_on_is_one_error(kind: str, edition: str) -> None:
    _one_error_each(kind, edition, range(6))


def test_a_forgotten_trigger_played_on_is_one_error() -> None:
    """充足, 幻影 or 手札補充 triggered at End, forgotten: one order.trigger-missed where the
    request under it resolves (the ``missed`` repair), in 9.0 master+extra games."""
    _one_error_each("forgot", "9.0", range(20), "master", "extra")


def _one_error_each(kind: str, edition: str, seeds: range, fmt: str = "lite",
                    frame: str | None = None) -> None:
    games = 0
    for seed in seeds:
        about, log = mistaken_game(kind, edition, seed, fmt, frame)
        if about is None:
            continue
        games += 1
        report = judge_lines(enumerate(log, start=1))
        errors = [f for f in report.findings if f.severity == "error"]
        assert [f.code for f in errors] == [KINDS[kind]], (seed, [
            (f.seq, f.code, f.message) for f in errors])
        assert about in errors[0].message
        board = BoardProjector.from_lines(log).at(errors[0].seq)
        if kind == "turn":  # the board shows the turn as played: the table's player's
            assert board["turn_player"] == about, seed
        else:  # the board shows the table as played: the request is gone from the stage
            assert about not in [r["request"] for r in board["stage"]]
    assert games >= 4  # the generator found its moment in most games


def renumbered(lines: list[LogLine]) -> list[LogLine]:
    """The lines numbered 1, 2, 3, ... (after lines were left out or put in)."""
    return [ln.model_copy(update={"seq": i}) for i, ln in enumerate(lines, start=1)]


def one_wrong_turn(lines: list[LogLine], about: str, seed: int) -> list[Finding]:
    """Judge ``lines``: exactly one error, the turn ``about`` played that was not theirs."""
    errors = [f for f in judge_lines(enumerate(lines, start=1)).findings
              if f.severity == "error"]
    assert [f.code for f in errors] == ["timing.turn-wrong-player"], (seed, [
        (f.seq, f.code, f.message) for f in errors])
    assert f"{about} played it" in errors[0].message
    return errors


SPARSE = {"no turn starts": ("turn_started", "chance_moved"),
          "decisions only": ("turn_started", "chance_moved", "trigger", "stage")}


@pytest.mark.parametrize("left_out", sorted(SPARSE))
@pytest.mark.parametrize("edition", ["9.0", "6.1"])
def test_a_wrong_turn_in_a_sparse_log_is_one_error(edition: str, left_out: str) -> None:
    """The same mistake where the table wrote fewer lines: no turn start nor chance move
    (the first line of the turn is the wrong player's Charge), or decisions only (the
    Charge's resolution). Still exactly one error, at the turn's first line."""
    games = 0
    for seed in range(6):
        about, log = mistaken_game("turn", edition, seed)
        if about is None:
            continue
        games += 1
        sparse = [ln for ln in log if ln.type not in SPARSE[left_out]]
        sparse = renumbered(sparse)
        errors = one_wrong_turn(sparse, about, seed)
        # The finding stands at the first line of the turn the table played.
        before = sparse[errors[0].seq - 2]
        ends = {ln.request for ln in sparse if isinstance(ln, Request) and ln.action == "end"}
        assert isinstance(before, Resolve) and before.request in ends, (seed, before)
    assert games >= 4


def test_a_wrong_turn_in_the_i_language_game_is_one_error() -> None:
    """The i-language game starts a turn with nothing for its player: the same mistake,
    played on by its simulator, is one error in the complete log and in the log of
    decisions only."""
    from coreflow_judge.adjudicator.games.i_language.simulate import _Simulator as ISim

    games = 0
    for seed in range(6):
        sim = ISim(seed, 2000, f"turn-{seed}", "1", "standard")
        flow = sim.flow
        wait = random.Random(seed).randint(0, 2)
        about: str | None = None
        while flow.result is None and len(flow.complete) < 2000:
            if about is None and flow.turn_untouched and flow.turn >= 2 and not flow.stage:
                if wait:
                    wait -= 1
                else:
                    again = next(p for p in flow.players if p != flow.turn_player)
                    start = TurnStarted(seq=flow.next_seq, player=again, turn=flow.turn)
                    assert flow.repair("turn", flow.next_seq, start)
                    about = again
            for line in sim.next_item():
                sim._feed(line)
        if about is None:
            continue
        games += 1
        flow.finish()
        log = flow.complete_log()
        decisions = [ln for ln in log if ln.type not in ("turn_started", "chance_moved")]
        for lines in (log, decisions):
            one_wrong_turn(renumbered(lines), about, seed)
    assert games >= 4


def test_duel_masters_refuses_to_hand_a_turn_over() -> None:
    """A Duel Masters turn starts by untapping and drawing for its player: a turn the
    table gave the wrong player is not judged as theirs (the line's own findings stand)."""
    from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game

    log = simulate_game(seed=1, max_lines=400)
    flow = None
    for cut in range(2, len(log)):
        report = judge_lines(enumerate(log[:cut], start=1))
        assert report.flow is not None
        flow = report.flow
        if flow.turn_untouched and flow.turn >= 2 and not flow.stage:
            break
    assert flow is not None and flow.turn_untouched
    other = next(p for p in flow.players if p != flow.turn_player)
    turn = flow.turn
    assert not flow.repair("turn", flow.next_seq, TurnStarted(seq=flow.next_seq,
                                                              player=other, turn=turn))
    assert flow.turn_player != other


def test_what_follows_from_an_injected_mistake_is_grouped_under_it() -> None:
    """A main-timing request (End) injected while the stage holds a request: the judge
    reports it, and every later error the table's lines then raise (the stage resolved
    out of order, the End never resolved) follows from it (``caused_by``), so the game
    counts one error. Without the injected line each of those lines keeps the rules."""
    from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game

    grouped = 0
    for edition in ("9.0", "6.1"):
        for seed in range(4):
            log = [ln for ln in simulate_game(edition, seed)
                   if ln.type not in ("chance_moved", "turn_started", "game_ended")]
            flow = None
            for cut in range(2, len(log)):
                report = judge_lines(enumerate(log[:cut], start=1))
                flow = report.flow
                assert flow is not None
                if flow.stage and not flow.pending_decisions() and \
                        flow.chance == flow.turn_player and flow.result is None and \
                        any(not r.triggered for r in flow.stage):
                    break
            assert flow is not None and flow.turn_player is not None
            end = Request(seq=1, request="injected-end", player=flow.turn_player,
                          action="end")
            lines = log[:cut] + [end] + log[cut:]
            lines = renumbered(lines)
            report = judge_lines(enumerate(lines, start=1))
            errors = [f for f in report.findings if f.severity == "error"]
            roots = [f for f in errors if f.caused_by is None]
            assert [(f.seq, f.code) for f in roots] == [
                (cut + 1, "timing.main-stage-not-empty")], [
                (f.seq, f.code, f.caused_by) for f in errors]
            assert report.errors == 1
            assert all(f.caused_by == (cut + 1, "timing.main-stage-not-empty")
                       for f in errors[1:])
            grouped += len(errors) - 1
    assert grouped >= 8  # the consequences were there, and were grouped


def test_the_reports_group_consequences_under_their_root() -> None:
    """The text report prints a consequence indented under its root and counts roots; the
    JSON report names the root of each consequence."""
    from pathlib import Path

    from coreflow_judge.adjudicator.judge import judge_file
    from coreflow_judge.cli.render import report_text

    log = Path(__file__).parent.parent / "fixtures/rulings/lite/end-on-the-stage-9.0.jsonl"
    report = judge_file(log)
    data = report.as_dict()
    assert [f.get("caused_by") for f in data["findings"]] == [
        None, {"seq": 6, "code": "timing.main-stage-not-empty"},
        {"seq": 6, "code": "timing.main-stage-not-empty"}]
    text = report_text(report, str(log))
    assert "\n    seq 9  order.stage-not-lifo  [error]\n" in text
    assert "\n    seq 10  order.request-never-resolved  [error]\n" in text
    assert "      follows   from seq 6 (timing.main-stage-not-empty)" in text
    assert text.endswith("1 error (and 2 that follow from it), 0 warnings")
    ja = report_text(report, str(log), lang="ja")
    assert ja.endswith("エラー 1件（ほかにそれに起因するもの 2件）、警告 0件")
    assert "      起因      seq 6（timing.main-stage-not-empty）" in ja
