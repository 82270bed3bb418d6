"""A simulator only chooses (adjudicator/simulation.py).

The one driver, :class:`~coreflow_judge.adjudicator.simulation.Simulation`, feeds what
:func:`~coreflow_judge.adjudicator.next_step.next_step` says the rules want next, and each
game's simulator only makes the choices the rules leave. Checked line by line on seeded
games of every game: a triggered request handled from the buffer is one of the class
that goes first, placed on the stage or discarded exactly as core [6-10-6] says
(:meth:`CoreFlow.discards_trigger`), resolved if instant; a waiting instant or the top of
the stage is what resolves; at a chance, the holder passes, or a player makes a request
``next_step`` offers (its timing and what the table allows). And ``next_step`` without
its offers is the same step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.play import Feed
from coreflow_judge.adjudicator.games.blackpoker.simulate import _Simulator as BlackPoker
from coreflow_judge.adjudicator.games.duel_masters.simulate import _Simulator as DuelMasters
from coreflow_judge.adjudicator.games.i_language.simulate import _Simulator as ILanguage
from coreflow_judge.adjudicator.next_step import Allowed, NextStep, next_step
from coreflow_judge.adjudicator.simulation import Simulation
from coreflow_judge.events.models import Discard, LogLine, Pass, Request, Resolve, Roll, Stage
from pydantic import BaseModel

MAX_LINES = 500
"""Lines of each game checked (the offers are worked out at every chance: kept short)."""

GAMES: dict[str, Callable[[int], Simulation[Any]]] = {
    "blackpoker 6.1 extra": lambda s: BlackPoker("6.1", s, "extra", MAX_LINES, f"d{s}", None),
    "blackpoker 9.0 master": lambda s: BlackPoker("9.0", s, "master", MAX_LINES, f"d{s}",
                                                  None),
    "blackpoker 9.0 frame": lambda s: BlackPoker("9.0", s, "pro", MAX_LINES, f"d{s}",
                                                 "rare_pack"),
    "duel_masters": lambda s: DuelMasters(s, MAX_LINES, f"d{s}", "1.47", "standard"),
    "i_language": lambda s: ILanguage(s, MAX_LINES, f"d{s}", "1", "standard"),
}


def _lines(item: object) -> list[LogLine]:
    """The lines of one item a simulator feeds (a line, a BlackPoker feed, a few lines)."""
    if isinstance(item, Feed):
        return [item.line]
    if isinstance(item, list):
        return item
    assert isinstance(item, BaseModel)
    return [item]  # type: ignore[list-item]


def _check(flow: CoreFlow, step: NextStep, line: LogLine) -> str:
    """``line`` is what ``step`` lets come next; the kind of choice it was."""
    if step.step == "buffer":
        first = {w.request for w in step.waiting if w.first}
        assert isinstance(line, (Stage, Discard, Resolve)), line
        assert line.request in first, (line, step)
        req = flow.requests[line.request]
        if req.action.speed == "instant":
            assert isinstance(line, Resolve), line
        else:
            assert isinstance(line, Discard if flow.discards_trigger(req) else Stage), line
        return f"buffer {type(line).__name__}"
    if step.step in ("instant", "resolve"):
        assert isinstance(line, Resolve), line
        assert line.request == step.waiting[0].request, (line, step)
        return step.step
    assert step.step == "chance", step
    if isinstance(line, Pass):
        assert line.player == step.holder, (line, step)
        return "pass"
    assert isinstance(line, Request), line
    assert Allowed(line.player, line.action) in step.requests, (line, step)
    return "request"


@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.parametrize("game", list(GAMES))
def test_a_simulator_feeds_what_the_rules_want_next(game: str, seed: int) -> None:
    sim = GAMES[game](seed)
    flow = sim.flow
    seen: set[str] = set()
    while flow.result is None and len(flow.complete) < MAX_LINES:
        step = next_step(flow)
        assert next_step(flow, offers=False) == dataclasses.replace(step, requests=())
        item = sim.next_item()
        lines = [ln for ln in _lines(item) if not isinstance(ln, Roll)]  # a die, then
        assert len(lines) == 1, lines  # the line it decides
        seen.add(_check(flow, step, lines[0]))
        sim._feed_item(item)
    assert "request" in seen and seen & {"buffer Resolve", "instant"}, seen
    if game.startswith("blackpoker"):
        assert {"pass", "resolve"} <= seen, seen


def test_the_same_seed_plays_the_same_game_under_the_driver() -> None:
    """The driver step by step (:meth:`Simulation.next_item`, then feeding it) is the game
    :meth:`Simulation.run` plays."""
    for make in GAMES.values():
        sim = make(5)
        while sim.flow.result is None and len(sim.flow.complete) < MAX_LINES:
            sim._feed_item(sim.next_item())
        sim.flow.finish()
        assert sim.flow.complete_log() == make(5).run()
