"""Root cause first: one natural mistake, played on consistently, is one error finding.

A table that makes a mistake rarely records it as a mistake: it goes on as if what it
believed were true. The generators below play seeded random legal BlackPoker games with
the simulator and, at a random moment, make the table believe something the rules do not
say, then let it play on consistently with that belief (the simulator's own table is
taken as played, exactly as a table would go on):

- ``left``: a request stays on the stage after another one resolved (a Counter that did
  not negate, believed to) and the table goes on as if it had left the stage;
- ``skipped``: a triggered request the rules staged (a Block, a Draw) is never played:
  no line names it and play goes on as if it resolved with nothing chosen.

The judge must report each such game with exactly one error finding, at the line where
the table departed, and nothing after it (docs/decisions.md, "Root cause first").
"""

from __future__ import annotations

import random

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.simulate import _Simulator
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.models import LogLine, Request, Resolve
from coreflow_judge.projections.board import BoardProjector

KINDS = {"left": "order.request-never-resolved", "skipped": "order.trigger-missed"}


def _believe(flow: CoreFlow, kind: str, last: LogLine | None) -> str | None:
    """Make the table believe something the rules do not say, if the moment allows;
    the id of the request it went on without."""
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
            if chance is None and flow.stage and not flow.pending_decisions() and \
                    flow.chance == flow.turn_player and (
                        kind == "skipped" or isinstance(last, Resolve)):
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
        # The board shows the table as played: the request is gone from the stage.
        board = BoardProjector.from_lines(log).at(errors[0].seq)
        assert about not in [r["request"] for r in board["stage"]]
    assert games >= 4  # the generator found its moment in most games


def test_a_game_without_the_mistake_has_no_error() -> None:
    """The generator's games are legal but for the mistake: the same seeds, untouched."""
    for seed in range(3):
        sim = _Simulator("9.0", seed, "lite", 3000, f"clean-{seed}")
        log = sim.run()
        assert judge_lines(enumerate(log, start=1)).errors == 0
