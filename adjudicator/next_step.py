"""What the rules wanted next: read from the core flow's state at one moment.

One concept, one place: ``coreflow play``'s ``legal`` command
(:meth:`LiveTable.legal <adjudicator.live.LiveTable.legal>`) says it in the notation, and
the judge attaches it to each error a line raised (:attr:`Finding.next
<adjudicator.findings.Finding.next>`, from the state just before that line). Both read it
from :func:`next_step`, which asks the flow's own checks and decides no rule itself.

In the order the core flow goes (docs/core-flow.md):

- the game over ([9]): nothing more may be played, but its end recorded if the log has not
  recorded it yet;
- the game not started ([1]): one of the players starts it;
- a triggered request in the buffer ([6]): the players stage it or it is discarded, or
  (an instant one) it resolves; those of the class that goes first
  (:meth:`CoreFlow.trigger_class`) are marked ``first``;
- an instant request made ([7]): it resolves ([8]);
- every player passed ([12]): the top of the stage resolves ([15]);
- otherwise the chance holder ([3], [11]): passes, or makes a request the flow's timing
  checks allow (:meth:`CoreFlow.check_request_timing`: chance, main timing, once per
  turn); a free-timing request any player may make.

Game-agnostic: only the flow's chance, stage, buffer, pass record and the actions' speed
and timing. Nothing hidden is read (no card), so every viewer may read it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any, Literal

from coreflow_judge.adjudicator.findings import LISTED
from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow, Req
from coreflow_judge.events.models import Request

Step = Literal["over", "start", "buffer", "instant", "resolve", "chance", "none"]
"""What the rules waited for: see :func:`next_step`; ``none``: the rule system held the
chance with nothing on the stage and nothing waiting (no player's decision)."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A request the rules waited on: in the buffer, awaiting its resolution, or on the
    stage."""

    request: str
    action: str
    """The action's id."""
    controller: str
    speed: str
    timing: str
    first: bool = False
    """In the buffer: of the class handled first ([6-3]..[6-12])."""

    @classmethod
    def of(cls, req: Req, first: bool = False) -> Waiting:
        a = req.action
        return cls(req.id, a.id, req.controller, a.speed, a.timing, first)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"request": self.request, "action": self.action,
                               "controller": self.controller, "speed": self.speed,
                               "timing": self.timing}
        if self.first:
            out["first"] = True
        return out


@dataclass(frozen=True, slots=True)
class Allowed:
    """A request a player's timing allowed: ``player`` could request ``action``."""

    player: str
    action: str


@dataclass(frozen=True, slots=True)
class NextStep:
    """What the rules wanted next at one moment of a match (:func:`next_step`)."""

    step: Step
    holder: str | None = None
    """The chance holder (step ``chance``)."""
    passed: tuple[str, ...] = ()
    """The pass record (step ``chance``): who passed since it was last cleared."""
    requests: tuple[Allowed, ...] = ()
    """The requests the timing allowed (step ``chance``), player by player in seat order,
    each player's in the format's order."""
    waiting: tuple[Waiting, ...] = ()
    """The buffer in order (step ``buffer``), the instant request (``instant``), or the
    top of the stage (``resolve``, and ``chance`` when the stage holds requests). Of a
    buffer longer than :data:`~adjudicator.findings.LISTED`, its first requests (and the
    first of the class handled first); :attr:`more` says how many are left out."""
    more: int = 0
    """How many requests of the buffer :attr:`waiting` leaves out (step ``buffer``)."""
    players: tuple[str, ...] = ()
    """Who could start the game (step ``start``)."""
    result: dict[str, Any] | None = None
    """The game's result (step ``over``)."""
    end_recorded: bool = False
    """The log had recorded the game's end (step ``over``): not even that was left."""
    not_weighed: str | None = None
    """Set on the next step of a finding whose own line made a request this step offers
    (step ``chance``): the code of that finding. The offers weigh timing and what the
    table shows, not the request's key cards, costs, targets or choices, and so not the
    rule that finding rests on (:func:`not_weighing`)."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (docs/findings.md, ``next``): the step, and only the fields it
        uses."""
        out: dict[str, Any] = {"step": self.step}
        if self.holder is not None:
            out["holder"] = self.holder
            out["passed"] = list(self.passed)
            out["requests"] = [{"player": a.player, "action": a.action}
                               for a in self.requests]
        if self.waiting:
            key = "stage_top" if self.step in ("resolve", "chance") else "waiting"
            out[key] = (self.waiting[0].as_dict() if key == "stage_top"
                        else [w.as_dict() for w in self.waiting])
        if self.more:
            out["more"] = self.more
        if self.players:
            out["players"] = list(self.players)
        if self.result is not None:
            out["result"] = self.result
            out["end_recorded"] = self.end_recorded
        if self.not_weighed is not None:
            out["not_weighed"] = self.not_weighed
        return out


def not_weighing(step: NextStep, line: object, code: str) -> NextStep:
    """``step`` as the next step of a finding of ``code`` on ``line``: where ``line`` is a
    request that ``step`` offers its player, the offer does not weigh what the finding
    rests on (:attr:`NextStep.not_weighed` says so), else ``step`` as it is. What the
    rules want next never offers a request a finding forbids without saying so."""
    if step.step != "chance" or not isinstance(line, Request):
        return step
    if Allowed(line.player, line.action) not in step.requests:
        return step
    return dataclasses.replace(step, not_weighed=code)


def next_step(flow: CoreFlow) -> NextStep:
    """What the rules wanted next in ``flow``'s present state (see the module)."""
    end = flow.recorded_end
    if flow.result is not None:
        return NextStep("over", result=flow.result.as_dict(), end_recorded=end is not None)
    if end is not None:
        result: dict[str, Any] = {"result": end.result}
        if end.winner is not None:
            result["winner"] = end.winner
        if end.reason is not None:
            result["reason"] = end.reason
        return NextStep("over", result=result, end_recorded=True)
    if not flow.started:
        return NextStep("start", players=flow.players)
    if flow.buffer:
        first = flow.buffer.first_class(flow)
        shown = list(islice(flow.buffer, LISTED))
        if len(flow.buffer) > LISTED and not any(r in first for r in shown):
            shown[-1] = next(iter(first))  # the class handled first is always shown
        return NextStep("buffer", waiting=tuple(Waiting.of(r, r in first) for r in shown),
                        more=len(flow.buffer) - len(shown))
    if flow.awaiting_instant is not None:
        return NextStep("instant", waiting=(Waiting.of(flow.awaiting_instant),))
    top = (Waiting.of(flow.stage[-1]),) if flow.stage else ()
    holder = flow.chance
    if holder is None or holder == SYSTEM:
        return NextStep("resolve", waiting=top) if top else NextStep("none")
    return NextStep("chance", holder=holder,
                    passed=tuple(p for p in flow.players if p in flow.passed),
                    requests=allowed_requests(flow), waiting=top)


def allowed_requests(flow: CoreFlow) -> tuple[Allowed, ...]:
    """[3]: every direct request some player could make now, by the flow's own timing
    checks and what the table allows besides (the game's conditions on the table and
    the abilities that grant an action: ``table_allows``); no finding is reported. Key
    cards, costs and targets are not weighed: an action may be offered that the player's
    cards cannot pay for."""
    out: list[Allowed] = []
    actions = getattr(flow.rules, "actions", {})
    for player in flow.players:
        for action in actions.values():
            if not action.direct:
                continue
            probe = Request(seq=flow.next_seq, request="?", player=player, action=action.id)
            if (not flow.check_request_timing(probe, action, report=False)
                    and flow.rules.table_allows(flow, probe, action)):
                out.append(Allowed(player, action.id))
    return _shared(tuple(out))


@lru_cache(maxsize=1024)
def _shared(allowed: tuple[Allowed, ...]) -> tuple[Allowed, ...]:
    """One copy of each list of allowed requests: the judge keeps one with every error a
    player's line raised, and a table allows the same few lists again and again."""
    return allowed
