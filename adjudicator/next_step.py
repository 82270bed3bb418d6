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

Two readings go further, each by the rules module's own hooks and the flow's own checks
(one reading of the rules, never a second copy): :func:`options` lists the requests a
player could make now, card by card, as far as a viewer may see the cards
(:meth:`~adjudicator.game.RulesHooks.request_options`, then the flow's timing and the
rules' :meth:`request_findings`: :func:`accepted`, :func:`request_errors`, the check a
simulator's policy makes of its candidates too); :func:`decided` gives the next line when
it leaves nobody a decision (a resolution that asks no choice, a pass by a player who could do
nothing else), the line ``coreflow play`` fills in for the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any, Literal

from coreflow_judge.adjudicator.findings import LISTED
from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow, Req
from coreflow_judge.adjudicator.game import ActionDef, Sight
from coreflow_judge.events.models import LogLine, Pass, Request, Resolve

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


def next_step(flow: CoreFlow, offers: bool = True) -> NextStep:
    """What the rules wanted next in ``flow``'s present state (see the module).

    ``offers`` False leaves :attr:`NextStep.requests` empty (the step is the same): a
    simulator's policy tries its own candidates by the same timing checks, and working
    out every offer at every decision would cost more than its play."""
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
                    requests=allowed_requests(flow) if offers else (), waiting=top)


def allowed_requests(flow: CoreFlow) -> tuple[Allowed, ...]:
    """[3]: every direct request some player could make now, by the flow's own timing
    checks and what the table allows besides (the game's conditions on the table and
    the abilities that grant an action: ``table_allows``); no finding is reported. Key
    cards, costs and targets are not weighed: an action may be offered that the player's
    cards cannot pay for."""
    return _shared(tuple(_allowed(flow)))


@lru_cache(maxsize=1024)
def _shared(allowed: tuple[Allowed, ...]) -> tuple[Allowed, ...]:
    """One copy of each list of allowed requests: the judge keeps one with every error a
    player's line raised, and a table allows the same few lists again and again."""
    return allowed


def _allowed(flow: CoreFlow, players: tuple[str, ...] | None = None) -> Iterator[Allowed]:
    """:func:`allowed_requests` one at a time (only ``players``')."""
    actions = getattr(flow.rules, "actions", {})
    for player in flow.players:
        if players is not None and player not in players:
            continue
        for action in actions.values():
            if not action.direct:
                continue
            probe = Request(seq=flow.next_seq, request="?", player=player, action=action.id)
            if (not flow.check_request_timing(probe, action, report=False)
                    and flow.rules.table_allows(flow, probe, action)):
                yield Allowed(player, action.id)


@dataclass(frozen=True, slots=True)
class Options:
    """The requests of one action that one player could make now (:func:`options`)."""

    player: str
    action: ActionDef
    requests: tuple[Request, ...] | None
    """Each request the rules accept, its cards named as far as the viewer may see them
    (``owner:?`` for the others); None: the game does not list this action's requests
    (any may be possible)."""


def options(flow: CoreFlow, sees: Sight, players: tuple[str, ...] | None = None,
            limit: int | None = None) -> Iterator[Options]:
    """Every action the timing allows some player now (:func:`allowed_requests`) with the
    requests of it the rules accept: the game proposes them
    (:meth:`~adjudicator.game.RulesHooks.request_options`, naming only what ``sees``
    lets it name), and a proposal stays when the flow's timing checks and the rules'
    ``request_findings`` raise no error for it (a card out of sight may only warn: its
    face is not known). An action with no accepted request is left out. ``players``:
    only theirs; ``limit``: stop each action's list after that many."""
    for allowed in _allowed(flow, players):
        action = flow.rules.action(allowed.action)
        assert action is not None
        proposed = flow.rules.request_options(flow, allowed.player, action, sees)
        if proposed is None:
            yield Options(allowed.player, action, None)
            continue
        found: list[Request] = []
        seen: set[str] = set()
        for line in proposed:
            key = line.model_dump_json(exclude={"seq", "request"})
            if key in seen:
                continue
            seen.add(key)
            if accepted(flow, line, action):
                found.append(line)
                if limit is not None and len(found) >= limit:
                    break
        if found:
            yield Options(allowed.player, action, tuple(found))


def request_errors(flow: CoreFlow, line: Request, action: ActionDef | None = None
                   ) -> Iterator[str]:
    """The codes of the errors the judge finds in ``line`` as a request on the table now,
    without making it (what :meth:`CoreFlow._on_request` reports: a request the rules
    start, [3]'s chance, timing and once per turn, and the game's checks of key cards,
    costs, targets and choices), one by one: the first is enough to refuse a candidate."""
    action = action or flow.rules.action(line.action)
    if action is None:
        yield "legality.unknown-action"
        return
    if not action.direct:
        yield "timing.not-directly-actionable"
    yield from flow.check_request_timing(line, action, report=False)
    for f in flow.rules.request_findings(flow, line, action):
        if f.severity == "error":
            yield f.code


def accepted(flow: CoreFlow, line: Request, action: ActionDef | None = None) -> bool:
    """Would the judge find no error in ``line`` as a request now (:func:`request_errors`)?"""
    return next(request_errors(flow, line, action), None) is None


def decided(flow: CoreFlow, sees: Sight) -> LogLine | None:
    """The next line when it leaves nobody a decision, or None when a player decides
    (or the rules wait for nothing).

    - A request that resolves now (an instant one made [7]-[8], a triggered instant one
      first in the buffer [6], the top of the stage once every player passed [15]) whose
      resolution asks no choice (:meth:`~adjudicator.game.RulesHooks.asks_on_resolve`):
      its resolve line, ``fizzled`` where the rules say it fizzles. Not where several
      buffered requests could go first (their order is the players' choice).
    - The chance holder [11] when no player could make any request now (:func:`options`,
      by what ``sees`` lets anyone know: the public table, so that a pass filled in
      tells nobody what a hand holds): their pass.
    """
    if flow.silenced:
        return None  # the judge rules on nothing from here: nothing is filled in either
    step = next_step(flow)
    if step.step == "buffer":
        first = [w for w in step.waiting if w.first]
        if len(first) != 1 or first[0].speed != "instant":
            return None  # the flow places a lone normal one itself; several: a choice
        due: Waiting | None = first[0]
    elif step.step in ("instant", "resolve"):
        due = step.waiting[0]
    elif step.step == "chance":
        if next(options(flow, sees, limit=1), None) is not None:
            return None
        assert step.holder is not None
        return Pass(seq=flow.next_seq, player=step.holder)
    else:
        return None
    req = flow.requests.get(due.request) if due is not None else None
    if req is None or flow.rules.asks_on_resolve(flow, req):
        return None
    return Resolve(seq=flow.next_seq, request=req.id,
                   result="fizzled" if flow.rules.fizzles(flow, req) else "resolved")
