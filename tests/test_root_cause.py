"""Root cause first: one natural mistake, played on consistently, is one error finding.

A table that makes a mistake rarely records it as a mistake: it goes on as if what it
believed were true. The generators below play seeded random legal BlackPoker games with
the simulator and, at a random moment, make the table believe something the rules do not
say, then let it play on consistently with that belief (the simulator's own table is
taken as played, exactly as a table would go on):

- ``left``: a request stays on the stage after another one resolved (a Counter that did
  not negate, believed to) and the table goes on as if it had left the stage;
- ``skipped``: a triggered request the rules staged (a Block, a Draw) is never played:
  no line names it and play goes on as if it resolved with nothing chosen;
- ``turn``: the wrong player takes a turn: after an End, the player who ended the turn
  plays the next one too, and the turns go on alternating from there.

The judge must report each such game with exactly one error finding, at the line where
the table departed, and nothing after it (docs/decisions.md, "Root cause first").
"""

from __future__ import annotations

import random

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.simulate import _Simulator
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.models import LogLine, Request, Resolve, TurnStarted
from coreflow_judge.projections.board import BoardProjector

KINDS = {"left": "order.request-never-resolved", "skipped": "order.trigger-missed",
         "turn": "timing.turn-wrong-player"}


def _believe(flow: CoreFlow, kind: str, last: LogLine | None) -> str | None:
    """Make the table believe something the rules do not say, if the moment allows;
    the id of the request it went on without (for ``turn``: the player who took the
    turn)."""
    if kind == "turn":
        if not flow.turn_untouched or flow.stage or flow.awaiting_instant is not None or \
                flow.turn < 2 or flow.turn_player is None:
            return None
        again = next(p for p in flow.players if p != flow.turn_player)
        line = TurnStarted(seq=flow.next_seq, player=again, turn=flow.turn)
        return again if flow.repair("turn", flow.next_seq, line) else None
    if not flow.stage or flow.pending_decisions() or flow.chance != flow.turn_player:
        return None
    top = flow.stage[-1]
    if kind == "left" and isinstance(last, Resolve) and not flow.passed:
        # The table goes on with a main-timing request (End here stands for any): what
        # only an empty stage allows.
        probe = Request(seq=flow.next_seq, request="?", player=flow.turn_player or "",
                        action="end")
        return top.id if flow.repair("left", flow.next_seq, probe) else None
    if kind == "skipped" and top.triggered and not top.passed_over:
        top.staged_in_log = False  # the table writes no line for it
        return top.id if flow.repair("skipped", flow.next_seq) else None
    return None


def _an_opportunity(flow: CoreFlow, kind: str, last: LogLine | None) -> bool:
    """A moment where the mistake of ``kind`` could be made (counted to vary it)."""
    if kind == "turn":
        return flow.turn_untouched and flow.turn >= 2
    return bool(flow.stage) and not flow.pending_decisions() and \
        flow.chance == flow.turn_player and (kind == "skipped" or isinstance(last, Resolve))


def mistaken_game(kind: str, edition: str, seed: int) -> tuple[str | None, list[LogLine]]:
    """A seeded game with one natural mistake of ``kind`` at a random moment (or none, if
    the game never gave the chance): the id of the request it concerns, and the log."""
    sim = _Simulator(edition, seed, "lite", 3000, f"mistake-{kind}-{seed}")
    flow = sim.flow
    wait = random.Random(seed).randint(0, 3)  # which opportunity: not always the first
    about: str | None = None
    last: LogLine | None = None
    while flow.result is None and len(flow.complete) < 3000:
        if about is None:
            chance = _believe(flow, kind, last) if wait == 0 else None
            if chance is None and _an_opportunity(flow, kind, last):
                wait = max(0, wait - 1)
            about = chance
        feed = sim._next()
        last = feed.line
        sim._feed(feed)
    flow.finish()
    log = flow.complete_log()
    if kind == "skipped" and about is not None:  # the table never wrote its staging
        log = [ln for ln in log if not (ln.type == "stage" and getattr(ln, "request", None)
                                        == about)]
        log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(log, start=1)]
    return about, log


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("edition", ["9.0", "6.1"])
def test_one_natural_mistake_played_on_is_one_error(kind: str, edition: str) -> None:
    games = 0
    for seed in range(6):
        about, log = mistaken_game(kind, edition, seed)
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
        sparse = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(sparse, start=1)]
        errors = [f for f in judge_lines(enumerate(sparse, start=1)).findings
                  if f.severity == "error"]
        assert [f.code for f in errors] == ["timing.turn-wrong-player"], (seed, [
            (f.seq, f.code, f.message) for f in errors])
        assert f"{about} played it" in errors[0].message
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
            for line in sim._next():
                sim._feed(line)
        if about is None:
            continue
        games += 1
        flow.finish()
        log = flow.complete_log()
        decisions = [ln for ln in log if ln.type not in ("turn_started", "chance_moved")]
        for lines in (log, decisions):
            lines = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(lines, start=1)]
            errors = [f for f in judge_lines(enumerate(lines, start=1)).findings
                      if f.severity == "error"]
            assert [f.code for f in errors] == ["timing.turn-wrong-player"], (seed, [
                (f.seq, f.code, f.message) for f in errors])
            assert f"{about} played it" in errors[0].message
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
