"""One wrong line, played on, in Duel Masters (the property of :mod:`adjudicator.mistakes`).

Each injector finds a moment of a seeded simulated game (:mod:`.simulate`) where the
table can break one rule with one line, writes that line, and lets the simulator play on
from the table the engine then holds (the table as played). The judge must report exactly
one root error there, with the injector's code. :data:`NOT_INJECTABLE` says, for each
error code none of them injects, why one wrong line in a Duel Masters game cannot raise it
alone (docs/mistakes.md gathers the tables of every game).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.duel_masters.simulate import _Simulator
from coreflow_judge.adjudicator.mistakes import (
    Injector,
    Make,
    Moment,
    SimulatedTable,
    Table,
    Wrong,
    common,
    holder,
    one,
    other,
)
from coreflow_judge.adjudicator.next_step import accepted, request_errors
from coreflow_judge.events.models import Effect, LogLine, Pass, Request, Resolve

EDITION = "1.47"
FORMAT = "standard"


class DuelMastersTable(SimulatedTable):
    """The Duel Masters simulator as a :class:`~adjudicator.mistakes.Table`."""

    sim: _Simulator

    def __init__(self, seed: int, change: object = None, max_lines: int = 4000) -> None:
        if change is not None:
            raise ValueError("no Duel Masters injector records the set-up wrongly")
        self.sim = _Simulator(seed, max_lines, f"wrong-dm-{seed}", EDITION, FORMAT)
        self.flow = self.sim.flow

    def feed_wrong(self, wrong: Wrong) -> None:
        for line in wrong.lines[:-1]:
            self.sim._feed(line)
        self.flow.feed(wrong.lines[-1])


def _resolution(t: Table, req: Req) -> Wrong:
    """The simulator's resolution of ``req`` (its choices)."""
    assert isinstance(t, DuelMastersTable)
    return Wrong([t.sim._resolve(req)])


Mutation = Callable[[DuelMastersTable, Request, random.Random], list[Request]]


def _candidates(t: DuelMastersTable, player: str) -> list[Request]:
    """Requests ``player`` could make now, by the simulator's own lists (the step, the
    hand, the mana and the creatures as the engine holds them), ignoring whose turn and
    step it is: what a table might write."""
    sim, rules = t.sim, t.sim.rules
    hand = sim._hand(player)
    out = [sim._probe(player, "charge_mana", key_cards=[f"{player}:{c}"]) for c in hand]
    step = rules.step
    try:
        rules.step = rules.steps.index("main")
        out += sim._plays(player) + sim._crosses(player)
    finally:
        rules.step = step
    for c in rules.boards[player].battle:
        for target in [other(t.flow, player), *(x.ref for x in rules.creatures())]:
            out.append(sim._probe(player, "attack", key_cards=[c.ref], targets=[target]))
    out.append(sim._probe(player, "end_turn"))
    return out


def _as_is(t: DuelMastersTable, line: Request, rng: random.Random) -> list[Request]:
    return [line]


def _less_mana(t: DuelMastersTable, line: Request, rng: random.Random) -> list[Request]:
    """A card played with one mana card too few tapped."""
    mana = (line.choices or {}).get("mana")
    if not isinstance(mana, list) or not mana:
        return []
    return [line.model_copy(update={"choices": {**(line.choices or {}), "mana": mana[1:]}})]


def _other_card(t: DuelMastersTable, line: Request, rng: random.Random) -> list[Request]:
    """A card summoned or cast that is another hand card (a spell summoned, a creature
    cast), with the mana the played one would have needed."""
    if line.action not in ("summon", "cast") or not line.key_cards:
        return []
    player = line.player
    spare = [c for c in t.sim._hand(player) if f"{player}:{c}" not in line.key_cards]
    rng.shuffle(spare)
    return [line.model_copy(update={"key_cards": [f"{player}:{c}"]}) for c in spare[:6]]


def _other_target(t: DuelMastersTable, line: Request, rng: random.Random) -> list[Request]:
    """An attack aimed at what it may not attack (an untapped creature, one's own)."""
    if line.action != "attack":
        return []
    refs = [c.ref for c in t.sim.rules.creatures()] + list(t.flow.players)
    rng.shuffle(refs)
    return [line.model_copy(update={"targets": [r]}) for r in refs if r not in line.targets]


def _request_moment(want: str, who: Callable[[CoreFlow], str | None],
                    mutate: Mutation = _as_is, prefix: Callable[[CoreFlow], list[LogLine]]
                    | None = None) -> Make:
    """``who`` may request now, and a candidate (changed by ``mutate``) breaks exactly
    the rule of ``want``; ``prefix`` writes right lines before it (a pass handing the
    chance over), whose effect the codes are read after."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, DuelMastersTable)
        flow = t.flow
        player = who(flow)
        if player is None or flow.pending_decisions():
            return None
        before = prefix(flow) if prefix is not None else []
        with t.sim.choosing(rng):
            pool = _candidates(t, player)
        rng.shuffle(pool)
        saved = (flow.chance, set(flow.passed))
        if before:  # read the codes as the table stands after the prefix's pass
            flow.chance, flow.passed = player, set()
        try:
            for line in pool:
                for bad in mutate(t, line, rng):
                    if list(request_errors(flow, bad)) == [want]:
                        done = bad.model_copy(update={"request": f"w{flow.next_seq}",
                                                      "seq": flow.next_seq + len(before)})
                        return lambda done=done: Wrong([*before, done])  # type: ignore[misc]
        finally:
            flow.chance, flow.passed = saved
        return None
    return make


def _active(flow: CoreFlow) -> str | None:
    h = holder(flow)
    return h if h == flow.turn_player else None


def _non_active_after_pass(flow: CoreFlow) -> str | None:
    h = _active(flow)
    return other(flow, h) if h is not None else None


def _active_passes(flow: CoreFlow) -> list[LogLine]:
    assert flow.turn_player is not None
    return [Pass(seq=flow.next_seq, player=flow.turn_player)]


def _waiting(t: Table) -> Req | None:
    """The pending effect (or the draw, a block) the order handles next, when nothing
    else is undecided."""
    flow = t.flow
    if flow.result is not None or flow.awaiting_instant is not None or not flow.buffer:
        return None
    return flow.trigger_class()[0]


def _went_on_without(t: Table, rng: random.Random) -> Moment | None:
    """A pending effect or the draw step waits; the active player goes on with a request
    of their own (order.trigger-missed: the table never played it)."""
    assert isinstance(t, DuelMastersTable)
    flow = t.flow
    if _waiting(t) is None or flow.chance != flow.turn_player or flow.turn_player is None:
        return None
    player = flow.turn_player
    with t.sim.choosing(rng):
        pool = [ln for ln in _candidates(t, player) if ln.action != "end_turn"]
    rng.shuffle(pool)
    for line in pool:
        if accepted(flow, line):
            return one(line.model_copy(update={"request": f"w{flow.next_seq}",
                                               "seq": flow.next_seq}))
    return None


def _resolved_with(change: Callable[[DuelMastersTable, Req, Resolve, list[dict[str, Any]]],
                                    Resolve | None]) -> Make:
    """The request that resolves next (the pending effect the order handles first, or
    the instant waiting) resolves with the simulator's choices, the line changed by
    ``change`` (given the plan's effects). The simulator's choices are looked at first
    and taken back (the moment may be passed by), then made again the same way."""
    def changed(t: DuelMastersTable, req: Req) -> Resolve | None:
        line = t.sim._resolve(req)
        plan = t.sim.rules.plan_resolution(t.flow, req, line.choices, line.seq)
        return change(t, req, line, [dict(e) for e in plan.effects])

    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, DuelMastersTable)
        flow = t.flow
        if flow.result is not None:
            return None
        req = _waiting(t) or flow.awaiting_instant
        if req is None:
            return None
        state = t.sim.rng.getstate()
        try:
            if changed(t, req) is None:
                return None
        finally:
            t.sim.rng.setstate(state)

        def moment() -> Wrong:
            line = changed(t, req)
            assert line is not None
            return Wrong([line])
        return moment
    return make


def _claims(line: Resolve, effects: list[dict[str, Any]]) -> Resolve:
    return line.model_copy(update={"effects": [Effect.model_validate(e) for e in effects]})


def _powers_off(t: DuelMastersTable, req: Req, line: Resolve,
                effects: list[dict[str, Any]]) -> Resolve | None:
    """A battle recorded at another power (precedence.value-mismatch)."""
    for e in effects:
        if e.get("op") == "battle":
            e["powers"] = [e["powers"][0] + 1000, e["powers"][1]]
            return _claims(line, effects)
    return None


def _effect_left_out(t: DuelMastersTable, req: Req, line: Resolve,
                     effects: list[dict[str, Any]]) -> Resolve | None:
    """The recorded effects leave the last of the rules' out (legality.effect-mismatch)."""
    kept = [e for e in effects if e.get("op") not in ("battle",)]
    if not kept:
        return None
    kept.pop()
    return _claims(line, kept)


def _state_kept(t: DuelMastersTable, req: Req, line: Resolve,
                effects: list[dict[str, Any]]) -> Resolve | None:
    """The recorded effects keep a creature a state-based action destroys
    (order.state-check-missed)."""
    kept = [e for e in effects if not (e.get("op") == "destroy" and e.get("reason") == "state")]
    return _claims(line, kept) if len(kept) < len(effects) else None


def _blocked_by_any(t: DuelMastersTable, req: Req, line: Resolve,
                    effects: list[dict[str, Any]]) -> Resolve | None:
    """A block by a creature that may not block (legality.choice-invalid)."""
    if req.action.id != "block":
        return None
    attack = t.sim.rules.attacks.get(str(req.source))
    attacker = t.sim.rules.find(attack.attacker) if attack is not None else None
    if attack is None or attacker is None:
        return None
    defender = other(t.flow, attack.player)
    unable = [c.ref for c in t.sim.rules.boards[defender].battle
              if not t.sim.rules.may_block(c, attacker)]
    if not unable:
        return None
    return line.model_copy(update={"choices": {"blocker": unable[0]}, "effects": None})


INJECTORS: tuple[Injector, ...] = (
    # The Duel Masters turn starts inside the End's resolution (untap, draw for its
    # player): a turn cannot be handed to another player (decisions §11, ``turn``).
    *common(_resolution, ("summon_soldier", "set_bulwark", "counter"), "draw",
            orders=("order.pending-effect-order",), turns=False),
    Injector("timing.main-not-turn-player", "after-pass", _request_moment(
        "timing.main-not-turn-player", _non_active_after_pass, prefix=_active_passes)),
    Injector("timing.not-directly-actionable", "draw-requested", _request_moment(
        "timing.not-directly-actionable", _active,
        lambda t, line, rng: [line.model_copy(update={"action": "draw", "key_cards": [],
                                                       "targets": [], "choices": None})])),
    Injector("order.trigger-missed", "went-on-without", _went_on_without),
    Injector("legality.cost-unpaid", "mana-short", _request_moment(
        "legality.cost-unpaid", _active, _less_mana)),
    Injector("legality.key-card-invalid", "other-card", _request_moment(
        "legality.key-card-invalid", _active, _other_card)),
    Injector("legality.target-invalid", "attack-target", _request_moment(
        "legality.target-invalid", _active, _other_target)),
    Injector("legality.step-order", "charge-late", _request_moment(
        "legality.step-order", _active)),
    Injector("legality.mana-charge-twice", "charge-twice", _request_moment(
        "legality.mana-charge-twice", _active)),
    Injector("legality.summoning-sickness", "sick-attacker", _request_moment(
        "legality.summoning-sickness", _active)),
    Injector("legality.cannot-attack", "tapped-attacker", _request_moment(
        "legality.cannot-attack", _active)),
    Injector("precedence.prohibition-over-permission", "cannot-wins", _request_moment(
        "precedence.prohibition-over-permission", _active)),
    Injector("precedence.value-mismatch", "battle-power", _resolved_with(_powers_off),
             probe=True),
    Injector("legality.effect-mismatch", "effect-left-out", _resolved_with(_effect_left_out),
             probe=True),
    Injector("order.state-check-missed", "kept-in-play", _resolved_with(_state_kept),
             probe=True),
    Injector("legality.choice-invalid", "non-blocker", _resolved_with(_blocked_by_any),
             probe=True),
)
"""Every kind of wrong line the Duel Masters table writes, with the code it must raise."""

_NO_STAGE = ("every Duel Masters action is instant (dm: the active player acts, each "
             "request resolves at once): nothing is ever on the stage")

NOT_INJECTABLE: dict[str, str] = {
    "timing.main-stage-not-empty": _NO_STAGE,
    "timing.resolved-before-all-passed": _NO_STAGE,
    "order.stage-not-lifo": _NO_STAGE,
    "order.request-never-resolved": _NO_STAGE,
    "order.main-trigger-not-discarded": _NO_STAGE,
    "timing.once-per-turn": (
        "no Duel Masters action is once per turn in the core's sense: a second mana "
        "charge is legality.mana-charge-twice"),
    "timing.turn-wrong-player": (
        "the next turn starts inside the End's resolution (untap and draw for its "
        "player): a turn the table gives the wrong player cannot be handed over "
        "(docs/decisions.md §11, turn) and the line's own findings stand"),
    "order.trigger-turn-order": (
        "the pending effects' order (dm101.4a) replaces the core trigger order: its "
        "breaches are order.pending-effect-order"),
    "order.trigger-instant-before-normal": "as order.trigger-turn-order",
    "order.trigger-main-before-quick": "as order.trigger-turn-order",
    "order.instant-before-own-trigger": (
        "no Duel Masters cost triggers anything (mana is tapped), and the edition "
        "resolves what a request triggers after it"),
    "legality.fizzle-not-applied": (
        "every request resolves at once (instant): no target can leave between the "
        "request and its resolution, and the rules module has no fizzle"),
    "legality.partial-not-applied": (
        "an effect that can do only part of what it says is ruled as "
        "legality.effect-mismatch (dm101.3)"),
    "legality.key-card-not-to-graveyard": (
        "where a played card goes is an effect of its resolution in Duel Masters, ruled "
        "as legality.effect-mismatch"),
    "precedence.scope-order": (
        "Duel Masters orders no abilities by scope or timestamp: a 'cannot' wins "
        "(precedence.prohibition-over-permission)"),
    "precedence.timestamp-order": "as precedence.scope-order",
}
"""Every Duel Masters error code no injector writes, and why one wrong line cannot raise
it alone."""
