"""One wrong line, played on, in the i-language game (the property of
:mod:`adjudicator.mistakes`).

Each injector finds a moment of a seeded simulated game (:mod:`.simulate`) where the
table can break one rule with one line, writes that line, and lets the simulator play on
from the table the engine then holds (the table as played). The judge must report exactly
one root error there, with the injector's code (docs/mistakes.md gathers the tables of
every game: what is injected, and why the other codes cannot be by one line).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.i_language.simulate import _Simulator
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
    spurious,
)
from coreflow_judge.adjudicator.next_step import request_errors
from coreflow_judge.events.models import (
    Effect,
    GameStarted,
    LogLine,
    MatchStarted,
    Request,
    Resolve,
    Roll,
)

Change = Callable[[MatchStarted, GameStarted], tuple[MatchStarted, GameStarted]]


class ILanguageTable(SimulatedTable):
    """The i-language simulator as a :class:`~adjudicator.mistakes.Table`."""

    sim: _Simulator

    def __init__(self, seed: int, change: Change | None = None, max_lines: int = 3000
                 ) -> None:
        sim = _Simulator if change is None else _set_up_by(change)
        self.sim = sim(seed, max_lines, f"wrong-il-{seed}", "1", "standard")
        self.flow = self.sim.flow

    def feed_wrong(self, wrong: Wrong) -> None:
        for line in wrong.lines:
            self.flow.feed(line)


def _set_up_by(change: Change) -> type[_Simulator]:
    """The simulator with its set-up recorded as ``change`` makes it."""
    class SetUp(_Simulator):
        def _recorded(self, header: MatchStarted, start: GameStarted
                      ) -> tuple[MatchStarted, GameStarted]:
            return change(header, start)

        def _start(self, start: GameStarted) -> None:
            self.flow.feed(start)
    return SetUp


def _resolution(t: Table, req: Req) -> Wrong:
    """The simulator's resolution of ``req`` (a die roll first where it rolls then)."""
    assert isinstance(t, ILanguageTable)
    return Wrong(list(t.sim._resolve(req)))


def _ability_card(flow: CoreFlow) -> str | None:
    """A standing card of the turn player whose ability the rules start (on attack or
    when destroyed): what a spurious trigger line names as its source."""
    rules = flow.rules
    cards = [c for c in rules.standing(flow.turn_player)  # type: ignore[attr-defined]
             if c.ability_ready("on_attack") or c.ability_ready("on_destroyed")] \
        if flow.turn_player is not None else []
    return cards[0].ref if cards else None


def _turn_player(flow: CoreFlow) -> str | None:
    h = holder(flow)
    return h if h == flow.turn_player else None


def _request(flow: CoreFlow, player: str, action: str, key: str, targets: list[str]
             ) -> Request:
    return Request(seq=flow.next_seq, request=f"w{flow.next_seq}", player=player,
                   action=action, key_cards=[key], targets=targets)


def _request_moment(want: str) -> Make:
    """A request by the turn player, of any card of the game at any card, that breaks
    exactly the rule of ``want``: an attack by a card that is not theirs or not standing,
    on their own card, twice in a turn; an ability requested a second time in the game,
    or one the rules start."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, ILanguageTable)
        flow = t.flow
        player = _turn_player(flow)
        if player is None:
            return None
        cards = [c.ref for c in t.sim.rules.cards.values()]
        rng.shuffle(cards)
        for key in cards[:8]:
            for target in cards[:8]:
                for line in (_request(flow, player, "attack", key, [target]),
                             _request(flow, player, "ability", key, [])):
                    if list(request_errors(flow, line)) == [want]:
                        return one(line)
        return None
    return make


def _waiting(t: Table) -> Req | None:
    flow = t.flow
    if flow.result is not None or flow.awaiting_instant is not None or not flow.buffer:
        return None
    return flow.trigger_class()[0]


def _went_on_without(t: Table, rng: random.Random) -> Moment | None:
    """A triggered ability waits for its resolution; the turn player ends the turn
    instead (order.trigger-missed)."""
    flow = t.flow
    if _waiting(t) is None or flow.chance != flow.turn_player or flow.turn_player is None:
        return None
    return one(Request(seq=flow.next_seq, request=f"w{flow.next_seq}",
                       player=flow.turn_player, action="end"))


def _next_to_resolve(t: Table) -> Req | None:
    """The request that resolves next: the triggered one the order handles first, or the
    instant waiting for its resolution."""
    flow = t.flow
    if flow.result is not None:
        return None
    return _waiting(t) or flow.awaiting_instant


def _resolved_with(change: Callable[[ILanguageTable, Req, list[LogLine]],
                                    list[LogLine] | None]) -> Make:
    """The request that resolves next resolves with the simulator's choices, its lines
    (a die roll, the resolution) changed by ``change``; the wrong line is the last. The
    simulator's choices are looked at first and taken back (the moment may be passed
    by), then made again the same way."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, ILanguageTable)
        req = _next_to_resolve(t)
        if req is None or change(t, req, _looked_at(t, req)) is None:
            return None

        def moment() -> Wrong:
            changed = change(t, req, t.sim._resolve(req))
            assert changed is not None
            return Wrong(changed)
        return moment
    return make


def _looked_at(t: ILanguageTable, req: Req) -> list[LogLine]:
    """The simulator's resolution lines of ``req``, its random state and prepared choices
    left as they were."""
    sim = t.sim
    state, prepared = sim.rng.getstate(), dict(sim.prepared)
    try:
        return sim._resolve(req)
    finally:
        sim.rng.setstate(state)
        sim.prepared = prepared


def _ability_out_of_range(t: ILanguageTable, req: Req, lines: list[LogLine]
                          ) -> list[LogLine] | None:
    """An ability number the card does not list (legality.choice-invalid)."""
    card = t.sim.rules.source_card(req)
    last = lines[-1]
    if card is None or not isinstance(last, Resolve) or not last.choices or \
            req.action.id not in ("ability", "magic"):
        return None
    choices: dict[str, Any] = {**last.choices, "ability": len(card.d.abilities) + 1}
    return [*lines[:-1], last.model_copy(update={"choices": choices, "effects": None})]


def _durability_off(t: ILanguageTable, req: Req, lines: list[LogLine]
                    ) -> list[LogLine] | None:
    """A durability recorded 10 off the rules' (legality.effect-mismatch)."""
    last = lines[-1]
    if not isinstance(last, Resolve):
        return None
    roll = next((ln for ln in lines if isinstance(ln, Roll)), None)
    plan = t.sim.rules.preview(t.flow, req, last.choices, roll)
    effects = [dict(e) for e in plan.effects]
    hit = next((e for e in effects if e.get("op") == "durability"
                and isinstance(e.get("value"), int) and e["value"] > 10), None)
    if hit is None:
        return None
    hit["value"] -= 10
    return [*lines[:-1], last.model_copy(update={
        "effects": [Effect.model_validate(e) for e in effects]})]


def _die_too_high(t: Table, rng: random.Random) -> Moment | None:
    """A die roll recorded above the die's sides before a resolution that rolls
    (legality.roll-invalid, on the roll line); the ability the table then uses is
    followed."""
    assert isinstance(t, ILanguageTable)
    req = _next_to_resolve(t)
    card = t.sim.rules.source_card(req) if req is not None else None
    if req is None or card is None or len(card.d.abilities) < 2 or \
            req.action.id not in ("ability", "magic") or req.id in t.sim.prepared:
        return None

    def moment() -> Wrong:
        lines = t.sim._resolve(req)
        roll = lines[0]
        assert isinstance(roll, Roll)
        wrong = roll.model_copy(update={"result": roll.sides + 1})
        return Wrong([wrong], after=lines[1:])
    return moment


def _deck_overfull(header: MatchStarted, start: GameStarted, rng: random.Random
                   ) -> tuple[MatchStarted, GameStarted, str] | None:
    """The first player's deck lists a fourth normal card (legality.deck-invalid); the
    game is played with the cards as listed."""
    decks = {p: list(d) for p, d in (header.decks or {}).items()}
    cards = header.cards if isinstance(header.cards, dict) else {}
    player = start.first_player
    normals = [c for c, d in cards.items() if isinstance(d, dict) and d.get("kind") == "normal"
               and c not in decks[player]]
    if not normals:
        return None
    decks[player].insert(0, rng.choice(sorted(normals)))
    return header.model_copy(update={"decks": decks}), start, "match_started"


INJECTORS: tuple[Injector, ...] = (
    *common(_resolution, ("summon_soldier", "charge_mana"), None),
    Injector("order.trigger-spurious", "spurious-ability", spurious("ability", _ability_card)),
    Injector("legality.deck-invalid", "fourth-normal", lambda t, rng: None,
             setup=_deck_overfull),
    Injector("timing.not-directly-actionable", "rules-start-it", _request_moment(
        "timing.not-directly-actionable")),
    Injector("timing.once-per-turn", "attack-twice", _request_moment("timing.once-per-turn")),
    Injector("legality.once-per-game", "ability-twice", _request_moment(
        "legality.once-per-game")),
    Injector("legality.key-card-invalid", "not-own-card", _request_moment(
        "legality.key-card-invalid")),
    Injector("legality.target-invalid", "own-target", _request_moment(
        "legality.target-invalid")),
    Injector("order.trigger-missed", "went-on-without", _went_on_without),
    Injector("legality.choice-invalid", "no-such-ability", _resolved_with(
        _ability_out_of_range)),
    Injector("legality.effect-mismatch", "durability-off", _resolved_with(_durability_off),
             probe=True),
    Injector("legality.roll-invalid", "die-too-high", _die_too_high),
)
"""Every kind of wrong line the i-language table writes, with the code it must raise."""

_NO_STAGE = ("every i-language action is instant and resolves at once: nothing is ever "
             "on the stage")

NOT_INJECTABLE: dict[str, str] = {
    "timing.main-not-turn-player": (
        "the turn player holds the chance all turn: the opponent's main-timing request "
        "also lacks the chance, two rules one line breaks (timing.no-chance with it, as "
        "attack-on-opponent-turn shows)"),
    "timing.main-stage-not-empty": _NO_STAGE,
    "timing.resolved-before-all-passed": _NO_STAGE,
    "order.stage-not-lifo": _NO_STAGE,
    "order.request-never-resolved": _NO_STAGE,
    "order.main-trigger-not-discarded": _NO_STAGE,
    "order.trigger-turn-order": (
        "one resolution would have to trigger abilities of both players (a damage to "
        "every card destroying cards of both camps): possible, but no simulated game "
        "offered it in 60"),
    "order.trigger-instant-before-normal": (
        "every triggered ability is instant: the buffer never holds a normal one"),
    "order.trigger-main-before-quick": "as order.trigger-instant-before-normal",
    "order.instant-before-own-trigger": "i-language actions have no cost",
    "legality.cost-unpaid": "i-language actions have no cost",
    "legality.fizzle-not-applied": (
        "every request resolves at once (instant): no target can leave between the "
        "request and its resolution, and the rules module has no fizzle"),
    "legality.partial-not-applied": (
        "an effect the table could do only in part is ruled by its recorded effects "
        "(legality.effect-mismatch)"),
    "legality.key-card-not-to-graveyard": "cards stay in their camp: there is no graveyard",
    "precedence.value-mismatch": (
        "no ability in force changes a value later read: effects change attack and "
        "durability at once (legality.effect-mismatch)"),
    "precedence.scope-order": "no continuous abilities",
    "precedence.timestamp-order": "no continuous abilities",
    "precedence.prohibition-over-permission": "Duel Masters' own rule (dm101.2)",
}
"""Every i-language error code no injector writes, and why one wrong line cannot raise
it alone."""
