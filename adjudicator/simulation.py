"""What every game's seeded simulator shares: the driver, and feeding the engine lines it
must accept.

A simulator only chooses. :class:`Simulation` is the one driver of every game's simulator:
at each point it reads what the rules want next from
:func:`~coreflow_judge.adjudicator.next_step.next_step` (the flow's own reading, the one
``coreflow play`` offers and the judge's findings carry), writes what the rules decide
alone, and asks the game's policy (the hooks a game's simulator implements) wherever the
rules leave a choice:

- a triggered request waits in the buffer ([6]): which of those the trigger order puts
  first goes first is the players' choice ([6-3]..[6-12], :meth:`Simulation._first_trigger`);
  an instant one then resolves ([7], [8]: :meth:`Simulation._resolve`); a normal one is
  placed on the stage, or discarded where [6-10-6] says so (:func:`placement`: the rule is
  :meth:`CoreFlow.discards_trigger <coreflow_judge.adjudicator.flow.CoreFlow.discards_trigger>`);
- an instant request waits for its resolution ([8]), or every player passed and the top
  of the stage resolves ([15]): the choices while resolving (:meth:`Simulation._resolve`);
- a player holds the chance ([3], [11]): a request, or a pass (:meth:`Simulation._decide`);
  a policy keeps a candidate request only where the judge would find no error in it
  (:func:`~coreflow_judge.adjudicator.next_step.accepted`, the check ``coreflow play``'s
  options make).

Every line fed must raise no error finding (:func:`feed_legal`): one that does is a bug in
the engine or in the simulator.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.flow import STAGE_NOT_EMPTY, CoreFlow, Req
from coreflow_judge.adjudicator.next_step import NextStep, next_step
from coreflow_judge.events.models import Discard, LogLine, Pass, Stage


class SimulationError(RuntimeError):
    """The engine refused a line the simulator took for legal (a bug in one of them)."""


def feed_legal(flow: CoreFlow, line: LogLine) -> list[Finding]:
    """Feed a line the simulator chose as legal; an error finding is a bug, raised."""
    findings = flow.feed(line)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise SimulationError(
            f"the engine refused line {line.seq} ({line.model_dump_json(exclude_none=True)}): "
            + "; ".join(f"{f.code}: {f.message}" for f in errors))
    return findings


def play_out(flow: CoreFlow, play_next: Callable[[], None], max_lines: int) -> list[LogLine]:
    """Play on (``play_next`` feeds the next decision and what follows it) until the rules
    decide the game or the complete log has ``max_lines`` lines; return the complete log
    (an unfinished game ends there, with no result)."""
    while flow.result is None and len(flow.complete) < max_lines:
        play_next()
    flow.finish()
    return flow.complete_log()


def placement(flow: CoreFlow, req: Req) -> Stage | Discard:
    """The line that places the triggered normal request ``req``, handled now: staged, or
    discarded where [6-10-6] says so (:meth:`CoreFlow.discards_trigger`)."""
    if flow.discards_trigger(req):
        return Discard(seq=flow.next_seq, request=req.id, reason=STAGE_NOT_EMPTY)
    return Stage(seq=flow.next_seq, request=req.id)


ItemT = TypeVar("ItemT")
"""What a game's simulator feeds at once: a line, or a line with its bookkeeping (the
hidden cards it moves), or a few lines (a die roll and the request it decides)."""


class Simulation(ABC, Generic[ItemT]):
    """One seeded game played through the engine: the driver (see the module). A game's
    simulator sets :attr:`flow`, :attr:`rng` and :attr:`max_lines`, feeds the game's
    start, and implements the policy: :meth:`_decide`, :meth:`_resolve` (and, where the
    players order triggered requests otherwise than at random, :meth:`_first_trigger`),
    with :meth:`_item` and :meth:`_feed_item` for what it feeds."""

    flow: CoreFlow
    rng: random.Random
    max_lines: int
    _ids: int = 0
    """Request ids handed out (``r1``, ``r2``, ...)."""

    def run(self) -> list[LogLine]:
        """Play to the end of the game (or ``max_lines``); the complete log."""
        return play_out(self.flow, self.play_next, self.max_lines)

    def play_next(self) -> None:
        """Feed what comes next (:meth:`next_item`)."""
        self._feed_item(self.next_item())

    def next_item(self) -> ItemT:
        """What comes next, as the rules read it (:func:`next_step`) and the policy
        chooses it."""
        flow = self.flow
        step = next_step(flow, offers=False)
        if step.step == "buffer":
            first = [r for r, w in zip(flow.buffer, step.waiting, strict=True) if w.first]
            req = self._first_trigger(first)
            if req.action.speed == "instant":
                return self._resolve(req)
            return self._item(placement(flow, req))
        if step.step == "instant" and flow.awaiting_instant is not None:
            return self._resolve(flow.awaiting_instant)
        if step.step == "resolve" and flow.stage:
            return self._resolve(flow.stage[-1])
        if step.step == "chance" and step.holder is not None:
            chosen = self._decide(step)
            if chosen is None:
                return self._item(Pass(seq=flow.next_seq, player=step.holder))
            return chosen
        raise SimulationError(f"nothing a player can do: the rules wait on {step.step!r} "
                              f"(chance {flow.chance!r})")

    def new_request_id(self) -> str:
        """A request id not handed out before in this game."""
        self._ids += 1
        return f"r{self._ids}"

    @contextmanager
    def choosing(self, rng: random.Random) -> Iterator[None]:
        """The policy's choices drawn from ``rng`` for a while: looking for a moment (an
        injected mistake's) leaves the game's own random stream as it was."""
        own, self.rng = self.rng, rng
        try:
            yield
        finally:
            self.rng = own

    # ------------------------------------------------------------------ the policy
    def _first_trigger(self, first: list[Req]) -> Req:
        """Which of the buffered requests the trigger order puts first is handled first
        (their players' choice): one at random."""
        return self.rng.choice(first)

    @abstractmethod
    def _decide(self, step: NextStep) -> ItemT | None:
        """The chance holder's decision (``step.holder``): a request, or None to pass."""

    @abstractmethod
    def _resolve(self, req: Req) -> ItemT:
        """``req`` resolves, with the choices its rules ask for."""

    @abstractmethod
    def _item(self, line: LogLine) -> ItemT:
        """A line the rules decided (a placing, a pass), as this simulator feeds it."""

    @abstractmethod
    def _feed_item(self, item: ItemT) -> None:
        """Feed ``item`` (its lines must raise no error: :func:`feed_legal`)."""
