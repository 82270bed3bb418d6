"""Natural mistakes, played on: seeded BlackPoker games in which the table believes one
thing the rules do not say and goes on consistently with it.

A table that makes a mistake rarely records it as a mistake: it goes on as if what it
believed were true. :func:`mistaken_game` plays a seeded random legal game with the
simulator and, at a random moment, makes the table believe something the rules do not say,
then lets it play on consistently with that belief (the simulator's own table is taken as
played, through the judge's repairs, :meth:`CoreFlow.repair`, exactly as a table would go
on). The kinds (:data:`NATURAL_MISTAKES`):

- ``left``: a request stays on the stage after another one resolved (a Counter that did
  not negate, believed to) and the table goes on as if it had left the stage;
- ``skipped``: a triggered request the rules staged (a Block, a Damage Judgement; not a
  Draw, whose cards the simulator's hidden hands need) is never played:
  no line names it and play goes on as if it resolved with nothing chosen;
- ``forgot``: a triggered request the rules staged above another request (充足 or 幻影
  above an End, in the extra trumps) is forgotten: no line names it, the table passes and
  resolves the request under it, and goes on without it;
- ``turn``: the wrong player takes a turn: after an End, the player who ended the turn
  plays the next one too, and the turns go on alternating from there.

The judge should report each such game with exactly one error finding, at the line where
the table departed (docs/decisions.md, "Root cause first"): tests/test_root_cause.py
checks it, and scripts/mistake_counts.py measures it.

One wrong line, for every code. :data:`INJECTORS` extends this to every error code one
wrong line can raise in BlackPoker (the property of :mod:`adjudicator.mistakes`: exactly
one root, at that line, with that code): each finds a moment where the table can break
one rule with one line (a request without the chance, a main-timing request on the
opponent's turn, a wrong key card, an unpaid cost, a target that is not legal, a wrong
resolve order, a wrong effects claim, a spurious trigger, a wrong result, ...), writes it,
and lets the simulator play on (:class:`BlackPokerTable`); the beliefs above are among
them. :data:`WHERE` says which formats and frames offer a moment the lite games do not,
:data:`NOT_INJECTABLE` why the other codes cannot be raised alone by one line (the table
of docs/mistakes.md); tests/test_one_wrong_line.py checks them.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow, Derived, Req
from coreflow_judge.adjudicator.game import ActionDef
from coreflow_judge.adjudicator.games.blackpoker.lines import header_of, setup_of
from coreflow_judge.adjudicator.games.blackpoker.play import Feed
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.games.blackpoker.simulate import _Simulator
from coreflow_judge.adjudicator.mistakes import (
    Injector,
    Make,
    Moment,
    SimulatedTable,
    Table,
    Wrong,
    common,
    forgotten,
    holder,
    one,
    other,
    skipped,
)
from coreflow_judge.adjudicator.next_step import request_errors
from coreflow_judge.adjudicator.stage import StageStack
from coreflow_judge.events.models import Effect as LogEffect
from coreflow_judge.events.models import (
    GameStarted,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    TurnStarted,
)

NATURAL_MISTAKES = {"left": "order.request-never-resolved", "skipped": "order.trigger-missed",
                    "forgot": "order.trigger-missed", "turn": "timing.turn-wrong-player"}
"""Each kind of natural mistake, and the one finding the judge should give it."""




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
    if kind == "forgot":  # whoever holds the chance: nobody names the request
        if not _forgettable(flow):
            return None
        top = flow.stage[-1]
        top.staged_in_log = False  # the table writes no line for it
        top.provisional = True
        under = Resolve(seq=flow.next_seq, request=flow.stage[-2].id, result="resolved")
        return top.id if flow.repair("missed", flow.next_seq, under) else None
    if not flow.stage or flow.pending_decisions() or flow.chance != flow.turn_player:
        return None
    top = flow.stage[-1]
    if kind == "left" and isinstance(last, Resolve) and not flow.passed:
        # The table goes on with a main-timing request (End here stands for any): what
        # only an empty stage allows.
        probe = Request(seq=flow.next_seq, request="?", player=flow.turn_player or "",
                        action="end")
        return top.id if flow.repair("left", flow.next_seq, probe) else None
    if kind == "skipped" and top.triggered and not top.passed_over and \
            top.action.id != "draw":  # the simulator cannot keep its hidden cards without it
        top.staged_in_log = False  # the table writes no line for it
        return top.id if flow.repair("skipped", flow.next_seq) else None
    return None


def _forgettable(flow: CoreFlow) -> bool:
    """A triggered request (not a Draw) on top of the stage, above another request, no
    player has passed on yet, and nothing else pending."""
    return len(flow.stage) >= 2 and not flow.pending_decisions() and not flow.passed and \
        flow.stage[-1].triggered and not flow.stage[-1].passed_over and \
        flow.stage[-1].action.id != "draw" and flow.chance not in (None, SYSTEM)


def _an_opportunity(flow: CoreFlow, kind: str, last: LogLine | None) -> bool:
    """A moment where the mistake of ``kind`` could be made (counted to vary it)."""
    if kind == "turn":
        return flow.turn_untouched and flow.turn >= 2
    if kind == "forgot":
        return _forgettable(flow)
    return bool(flow.stage) and not flow.pending_decisions() and \
        flow.chance == flow.turn_player and (kind == "skipped" or isinstance(last, Resolve))


def mistaken_game(kind: str, edition: str, seed: int, fmt: str = "lite",
                  frame: str | None = None) -> tuple[str | None, list[LogLine]]:
    """A seeded game (of ``fmt``, in ``frame`` for 9.0) with one natural mistake of
    ``kind`` at a random moment (or none, if the game never gave the chance): the id of the
    request it concerns, and the log."""
    sim = _Simulator(edition, seed, fmt, 3000, f"mistake-{kind}-{seed}", frame)
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
        feed = sim.next_item()
        last = feed.line
        sim._feed(feed)
    flow.finish()
    log = flow.complete_log()
    if kind == "skipped" and about is not None:  # the table never wrote its staging
        log = [ln for ln in log if not (ln.type == "stage" and getattr(ln, "request", None)
                                        == about)]
        log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(log, start=1)]
    if kind == "forgot" and about is not None:  # no line names it: not its trigger either
        log = [ln for ln in log if getattr(ln, "request", None) != about]
        log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(log, start=1)]
    return about, log


# ---------------------------------------------------------------------------- one wrong line
# The injectors of :mod:`adjudicator.mistakes` for BlackPoker: each finds a moment where
# the table can break one rule with one line, and writes that line; the simulator then
# plays on from the table the engine holds (the table as played).


class BlackPokerTable(SimulatedTable):
    """The BlackPoker simulator as a :class:`~adjudicator.mistakes.Table`."""

    sim: _Simulator

    def __init__(self, edition: str, seed: int, fmt: str = "lite", frame: str | None = None,
                 change: Change | None = None, max_lines: int = 3000) -> None:
        sim = _Simulator if change is None else _set_up_by(change)
        self.sim = sim(edition, seed, fmt, max_lines, f"wrong-{edition}-{seed}", frame)
        self.flow = self.sim.flow

    def feed_wrong(self, wrong: Wrong) -> None:
        for line in wrong.lines[:-1]:
            self.sim._feed(Feed(line))
        feed = wrong.detail if isinstance(wrong.detail, Feed) else Feed(wrong.lines[-1])
        self.sim._feed(feed, legal=False)


Change = Callable[[MatchStarted, GameStarted], tuple[MatchStarted, GameStarted]]


def _set_up_by(change: Change) -> type[_Simulator]:
    """The simulator with its set-up recorded as ``change`` makes it (the game start fed
    as the table wrote it, whatever it raises)."""
    class SetUp(_Simulator):
        def _setup(self, edition: str, fmt: str, match_id: str
                   ) -> tuple[MatchStarted, GameStarted]:
            return change(*super()._setup(edition, fmt, match_id))

        def _feed(self, item: Feed, legal: bool = True) -> None:
            super()._feed(item, legal and item.line.type != "game_started")
    return SetUp


def _wrong(line: LogLine, used: dict[str, list[str]] | None = None) -> Wrong:
    return Wrong([line], Feed(line, used=used or {}))


Mutation = Callable[["BlackPokerTable", Request, ActionDef, random.Random], list[Request]]


def _as_is(t: BlackPokerTable, line: Request, action: ActionDef, rng: random.Random
           ) -> list[Request]:
    return [line]


def _unpaid(t: BlackPokerTable, line: Request, action: ActionDef, rng: random.Random
            ) -> list[Request]:
    """The request without its costs, or with one of them left out."""
    if not line.costs:
        return []
    return [line.model_copy(update={"costs": []}),
            line.model_copy(update={"costs": line.costs[1:]})]


def _wrong_key(t: BlackPokerTable, line: Request, action: ActionDef, rng: random.Random
               ) -> list[Request]:
    """The request with a hand card that does not meet the key-card condition."""
    if not line.key_cards:
        return []
    player = line.player
    keys = [k.partition(":")[2] for k in line.key_cards]
    spare = [c for c in t.sim._hand(player) if c not in keys]
    rng.shuffle(spare)
    return [line.model_copy(update={"key_cards": [f"{player}:{c}", *line.key_cards[1:]]})
            for c in spare[:6]]


def _printed_cost(t: BlackPokerTable, line: Request, action: ActionDef, rng: random.Random
                  ) -> list[Request]:
    """The request paying the printed cost where an ability in force (the magician's
    魔力増加) waives part of it: the ability left out (precedence.value-mismatch)."""
    rules = t.sim.rules
    want, waivers = rules.cost_of(action, line.player,
                                  t.flow.main_timing(line.player))
    printed = "".join(sorted(action.data.get("cost") or ""))
    if not waivers or want == printed:
        return []
    keys = [k.partition(":")[2] for k in line.key_cards]
    costs = t.sim._costs(line.player, printed, keys)
    if costs is None:
        return []
    return [Request.model_validate({**line.model_dump(), "costs": costs})]


def _wrong_target(t: BlackPokerTable, line: Request, action: ActionDef, rng: random.Random
                  ) -> list[Request]:
    """The request aimed at something its target condition excludes."""
    if not line.targets:
        return []
    flow = t.flow
    options = [ch.ref for p in flow.players for ch in t.sim._board(p).field]
    options += list(flow.players) + [r.id for r in flow.stage]
    options = [o for o in options if o != line.targets[0]]
    rng.shuffle(options)
    return [line.model_copy(update={"targets": [o]}) for o in options[:8]]


def _request(t: BlackPokerTable, rng: random.Random, player: str, want: list[str],
             actions: Callable[[ActionDef], bool], mutate: Mutation = _as_is,
             ) -> Request | None:
    """A request by ``player`` of an action ``actions`` admits that breaks exactly the
    rules ``want`` names (the simulator's candidates, changed by ``mutate``)."""
    flow, sim = t.flow, t.sim
    if flow.pending_decisions() or flow.reconciler.stage_is_only_unplayed_triggers():
        return None  # a main request there is a missed trigger, not this mistake
    pool = [a for a in sim.rules.actions.values() if actions(a)]
    rng.shuffle(pool)
    with sim.choosing(rng):
        for action in pool:
            for tries, line in enumerate(sim._candidates(player, action)):
                if tries >= 8:
                    break
                for bad in mutate(t, line, action, rng):
                    if list(request_errors(flow, bad, action)) == want:
                        return bad.model_copy(update={"request": f"w{flow.next_seq}"})
    return None


def _requested(line: Request) -> Moment:
    """Writes the request, with the hand cards it takes."""
    used = [c.partition(":")[2] for c in line.key_cards]
    used += [c.ref.partition(":")[2] for c in line.costs if c.kind == "D"]
    return lambda: _wrong(line, {line.player: used})


def _request_moment(want: str, who: Callable[[CoreFlow], str | None],
                    actions: Callable[[ActionDef], bool], mutate: Mutation = _as_is) -> Make:
    """An injector's moment: ``who`` may request now, and one of ``actions`` (changed by
    ``mutate``) breaks exactly the rule of ``want``."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, BlackPokerTable)
        player = who(t.flow)
        if player is None:
            return None
        line = _request(t, rng, player, [want], actions, mutate)
        if line is None:
            return None
        moment = _requested(line)
        if want != "timing.main-stage-not-empty":
            return moment
        reading = _left_unless_named(t.flow)
        return lambda: dataclasses.replace(moment(), reading=reading)
    return make


def _left_unless_named(flow: CoreFlow) -> Callable[[list[LogLine], int], str | None]:
    """A main-timing request over the stage, where no later line names a request that
    was on the stage: the log cannot tell a table that broke the timing rule and would
    have come back to them (the game ended first) from one that believed them gone; at
    that tie the judge names the requests left on the stage (docs/decisions.md §11:
    ``left``, the ruling of counter-believed-9.0)."""
    ids = {r.id for r in flow.stage}

    def reading(log: list[LogLine], seq: int) -> str | None:
        later = log[seq:]
        if any(getattr(ln, "request", None) in ids or ids & set(getattr(ln, "targets", ()))
               for ln in later):
            return None
        return "order.request-never-resolved"
    return reading


def _believed_gone(t: Table, rng: random.Random) -> Moment | None:
    """A request resolved (a Counter that did not negate); the table believes the stage
    empty and the turn player goes on with a main-timing request
    (order.request-never-resolved): the requests still on the stage never resolve."""
    assert isinstance(t, BlackPokerTable)
    flow = t.flow
    player = _turn_player_over_stage(flow)
    written = [item for item in flow.complete if not isinstance(item, Derived)]
    if player is None or flow.passed or not isinstance(written[-1], Resolve):
        return None
    stage, flow.stage = flow.stage, StageStack()
    try:
        line = _request(t, rng, player, [], _direct_main)
    finally:
        flow.stage = stage
    if line is None:
        return None
    moment = _requested(line)
    about = f"({flow.stage[-1].action.name})"  # the finding names the requests left
    return lambda: dataclasses.replace(
        moment(), belief=lambda: flow.repair("left", line.seq, line), about=about)


def _turn_player_holds(flow: CoreFlow) -> str | None:
    h = holder(flow)
    return h if h == flow.turn_player else None


def _turn_player_on_empty_stage(flow: CoreFlow) -> str | None:
    return _turn_player_holds(flow) if not flow.stage else None


def _turn_player_over_stage(flow: CoreFlow) -> str | None:
    return _turn_player_holds(flow) if flow.stage else None


def _opponent_holds_on_empty_stage(flow: CoreFlow) -> str | None:
    h = holder(flow)
    return h if h is not None and h != flow.turn_player and not flow.stage else None


def _without_chance(flow: CoreFlow) -> str | None:
    h = holder(flow)
    return other(flow, h) if h is not None else None


def _direct_main(a: ActionDef) -> bool:
    return a.direct and a.timing == "main"


def _direct(a: ActionDef) -> bool:
    return a.direct


def _rules_only(a: ActionDef) -> bool:
    return not a.direct


def _at_system(t: BlackPokerTable) -> Req | None:
    """The top of the stage, when every player passed and it is to resolve now."""
    flow = t.flow
    if flow.result is not None or flow.pending_decisions() or flow.chance != SYSTEM or \
            not flow.stage:
        return None
    return flow.stage[-1]


def _resolution(t: BlackPokerTable, req: Req, **update: Any) -> Wrong:
    """The simulator's resolution of ``req`` (its choices), the line changed by ``update``."""
    feed = t.sim._resolve(req)
    feed.line = feed.line.model_copy(update=update)
    return Wrong([feed.line], feed)


# -- the moments, one per kind of wrong line -------------------------------------------------

def _resolved_early(t: Table, rng: random.Random) -> Moment | None:
    """The top of the stage resolves while a player still holds the chance
    (timing.resolved-before-all-passed)."""
    assert isinstance(t, BlackPokerTable)
    flow = t.flow
    if holder(flow) is None or not flow.stage or flow.open_call is not None:
        return None
    top = flow.stage[-1]
    return lambda: _resolution(t, top)


def _resolved_under_top(t: Table, rng: random.Random) -> Moment | None:
    """Every player passed; the request under the top resolves first (order.stage-not-lifo)."""
    assert isinstance(t, BlackPokerTable)
    if _at_system(t) is None or len(t.flow.stage) < 2:
        return None
    under = t.flow.stage[-2]
    return lambda: _resolution(t, under)


def _trigger_passed_by(t: Table, rng: random.Random) -> Moment | None:
    """A triggered instant (a Charge, a Next Generation) waits for its resolution; the
    turn player passes instead (order.trigger-missed: the table went on without it)."""
    flow = t.flow
    if flow.result is not None or flow.awaiting_instant is not None or not flow.buffer or \
            flow.trigger_class()[0].action.speed != "instant" or flow.turn_player is None:
        return None
    return one(Pass(seq=flow.next_seq, player=flow.turn_player))


def _cost_trigger_first(t: Table, rng: random.Random) -> Moment | None:
    """An instant request's costs triggered requests (B・J's $SS sacrificing a Joker, A,
    J, Q or K: 世代交代), which in 6.1 wait until the instant resolves; the log resolves
    the first of them first (order.instant-before-own-trigger), naming what it mills
    where the deck is shuffled."""
    assert isinstance(t, BlackPokerTable)
    flow, sim = t.flow, t.sim
    waiting = flow.awaiting_instant
    if flow.result is not None or waiting is None or not waiting.cost_triggers or \
            flow.buffer:
        return None
    spec = waiting.cost_triggers[0]
    action = flow.rules.action(spec.action)
    if action is None or action.speed != "instant":
        return None

    def moment() -> Wrong:
        rid = f"w{flow.next_seq}"
        feed = Feed(Resolve(seq=flow.next_seq, request=rid, result="resolved"))
        if sim.remaining[spec.controller] is not None:  # a shuffled deck: name the cards
            req = Req(id=rid, action=action, controller=spec.controller, seq=flow.next_seq,
                      triggered=True, source=spec.source, targets=list(spec.targets))
            effects = sim._milled(req, {})
            feed.dealt = {spec.controller: len(effects)}
            feed.line = feed.line.model_copy(update={"effects": effects})
        return Wrong([feed.line], feed)
    return moment


def _fizzle_resolved(t: Table, rng: random.Random) -> Moment | None:
    """The top of the stage fizzles (its target left); the log resolves it
    (legality.fizzle-not-applied)."""
    assert isinstance(t, BlackPokerTable)
    top = _at_system(t)
    if top is None or not t.sim.rules.fizzles(t.flow, top):
        return None
    line = Resolve(seq=t.flow.next_seq, request=top.id, result="resolved")
    return lambda: _wrong(line)


def _attacker_that_cannot(t: Table, rng: random.Random) -> Moment | None:
    """An Attack resolves naming among its attackers a character that may not attack (in
    drive state, in preparation, a bulwark, the opponent's) (legality.choice-invalid)."""
    assert isinstance(t, BlackPokerTable)
    top = _at_system(t)
    if top is None or top.action.id != "attack":
        return None
    sim, flow = t.sim, t.flow
    unable = [ch.ref for p in flow.players for ch in sim._board(p).field
              if p != top.controller or not sim.rules.may_attack(ch, flow.turn)]
    if not unable:
        return None
    bad = rng.choice(unable)

    def moment() -> Wrong:
        wrong = _resolution(t, top)
        line = wrong.lines[0]
        assert isinstance(line, Resolve)
        chosen = [*((line.choices or {}).get("attackers") or []), bad]
        line = line.model_copy(update={"choices": {**(line.choices or {}),
                                                   "attackers": chosen}, "effects": None})
        sim.attackers[top.id] = chosen
        wrong.detail.line = line
        return Wrong([line], wrong.detail)
    return moment


COUNTED = ("draw", "damage_judge")
"""The lite actions whose effect is a count of cards (a damage, a draw)."""
SHORT_DECK = 13
"""A deck (life) of more cards than this covers any damage or draw of the lite actions
(a size is at most 13): no partial effect."""


def _effects_changed(how: str) -> Make:
    """The top of the stage resolves with the table's effects written wrong: ``count`` a
    damage or draw of another count (legality.effect-mismatch), ``partial`` the same
    where the deck held too few cards for the whole effect (legality.partial-not-applied);
    ``key`` the key card sent to the hand (legality.key-card-not-to-graveyard)."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        assert isinstance(t, BlackPokerTable)
        top = _at_system(t)
        if top is None or top.action.data.get("target") and t.sim.rules.fizzles(t.flow, top):
            return None
        if how == "key" and not top.key_cards:
            return None
        if how in ("count", "partial") and top.action.id not in COUNTED:
            return None
        if how == "partial":  # only where a deck may hold fewer cards than asked
            decks = [t.sim.rules.boards[p].deck for p in t.flow.players]
            if all(d is not None and len(d) > SHORT_DECK for d in decks):
                return None

        def moment() -> Wrong:
            wrong = _resolution(t, top)
            line = wrong.lines[0]
            assert isinstance(line, Resolve)
            plan = t.sim.rules.plan_resolution(t.flow, top, line.choices or {})
            effects = [dict(e) for e in plan.effects]
            changed = False
            if how in ("count", "partial"):
                for e in effects:
                    if e.get("op") in ("damage", "draw") and isinstance(e.get("amount"), int) \
                            and e["amount"] > 0:
                        e["amount"] -= 1
                        changed = True
                        break
            else:
                card = top.key_cards[0]
                effects = [e for e in effects if not (e.get("op") == "move" and
                                                      e.get("from") == "stage")]
                effects.append({"op": "move", "card": card, "from": "stage", "to": "hand"})
                changed = True
            if not changed:
                effects.append({"op": "damage", "player": top.controller, "amount": 1})
            line = line.model_copy(update={
                "effects": [LogEffect.model_validate(e) for e in effects]})
            wrong.detail.line = line
            return Wrong([line], wrong.detail)
        return moment
    return make


def _hand_keys(a: ActionDef) -> bool:
    return a.direct and bool((a.data.get("key") or {}).get("cards")) and \
        (a.data.get("key") or {}).get("from") is None


def _trumps_set_aside(header: MatchStarted, start: GameStarted, rng: random.Random
                      ) -> tuple[MatchStarted, GameStarted, str] | None:
    """The set-up places one trump more for the first player than the format allows: two
    more than none where the format or frame has no trumps (6.1 lite, a 9.0 format
    without the extra frame), three where it has them (legality.setup-invalid). The
    trumps are cards the deck does not use."""
    from coreflow_judge.adjudicator.games.blackpoker.play import CARDS

    player = start.first_player
    deck = (header.decks or {}).get(player) or []
    trumps = dict(setup_of(start).trumps or {})
    placed = list(trumps.get(player, []))
    spare = [c for c in CARDS if c not in deck and c not in placed and not c.startswith("JK")]
    rng.shuffle(spare)
    rules = BlackPokerRules(header.rules.partition("/")[2], header.format or "lite",
                            header_of(header).frame)
    want = 3 if rules.trumps_in_play else 2
    if len(spare) < want - len(placed):
        return None  # the deck uses every card a trump could be
    trumps[player] = placed + spare[:want - len(placed)]
    return header, setup_of(start).model_copy(update={"trumps": trumps}), "game_started"


INJECTORS: tuple[Injector, ...] = (
    Injector("legality.setup-invalid", "trumps-set-aside", lambda t, rng: None,
             setup=_trumps_set_aside),
    *common(lambda t, req: _resolution(t, req),  # type: ignore[arg-type]
            ("magician_summon", "quick_summon", "blackjack", "open", "pack_open",
             "charge_mana"), "draw", orders=("order.trigger-turn-order",)),
    Injector("order.trigger-missed", "skipped", skipped("draw")),
    Injector("order.trigger-missed", "forgotten", forgotten("draw")),
    Injector("order.request-never-resolved", "believed-gone", _believed_gone),
    Injector("timing.no-chance", "request-without-chance", _request_moment(
        "timing.no-chance", _without_chance, _direct)),
    Injector("timing.main-not-turn-player", "main-on-opponent-turn", _request_moment(
        "timing.main-not-turn-player", _opponent_holds_on_empty_stage, _direct_main)),
    Injector("timing.main-stage-not-empty", "main-over-stage", _request_moment(
        "timing.main-stage-not-empty", _turn_player_over_stage, _direct_main)),
    Injector("timing.not-directly-actionable", "rules-only-requested", _request_moment(
        "timing.not-directly-actionable", _turn_player_on_empty_stage, _rules_only)),
    Injector("timing.once-per-turn", "twice-a-turn", _request_moment(
        "timing.once-per-turn", _turn_player_on_empty_stage, _direct_main)),
    Injector("timing.not-while-turn-player", "own-turn", _request_moment(
        "timing.not-while-turn-player", _turn_player_holds, _direct)),
    Injector("timing.resolved-before-all-passed", "resolved-early", _resolved_early),
    Injector("order.stage-not-lifo", "under-top", _resolved_under_top),
    Injector("order.trigger-missed", "instant-passed-by", _trigger_passed_by),
    Injector("legality.cost-unpaid", "unpaid", _request_moment(
        "legality.cost-unpaid", holder, _direct, _unpaid)),
    Injector("legality.key-card-invalid", "wrong-key", _request_moment(
        "legality.key-card-invalid", holder, _hand_keys, _wrong_key)),
    Injector("legality.target-invalid", "wrong-target", _request_moment(
        "legality.target-invalid", holder, _direct, _wrong_target)),
    Injector("legality.ability-not-in-force", "not-granted", _request_moment(
        "legality.ability-not-in-force", holder, _direct)),
    Injector("legality.condition-unmet", "condition", _request_moment(
        "legality.condition-unmet", holder, _direct)),
    Injector("legality.fizzle-not-applied", "fizzle-resolved", _fizzle_resolved),
    Injector("order.instant-before-own-trigger", "cost-trigger-first", _cost_trigger_first),
    Injector("precedence.value-mismatch", "waiver-left-out", _request_moment(
        "precedence.value-mismatch", holder, _direct, _printed_cost)),
    Injector("legality.choice-invalid", "attacker-that-cannot", _attacker_that_cannot),
    Injector("legality.effect-mismatch", "miscount", _effects_changed("count"), probe=True),
    Injector("legality.partial-not-applied", "partial-miscount",
             _effects_changed("partial"), probe=True),
    Injector("legality.key-card-not-to-graveyard", "key-to-hand", _effects_changed("key")),
)
"""Every kind of wrong line the BlackPoker tables write, with the code it must raise."""

Where = tuple[str, str, "str | None", tuple[int, ...]]
"""A table an injector is tried on: edition, format, frame, and the seeds of its games."""

TABLES: tuple[Where, ...] = (("6.1", "lite", None, (0, 1)), ("9.0", "lite", None, (0, 1)))
"""Where an injector is tried unless :data:`WHERE` says otherwise."""

WHERE: dict[str, tuple[Where, ...]] = {
    "trumps-set-aside": (("9.0", "lite", None, (0,)), ("6.1", "extra", None, (0, 1))),
    "own-turn": (("9.0", "pro", None, (0, 1)), ("6.1", "pro", None, (0,))),
    "not-granted": (("6.1", "extra", None, (0, 1)), ("9.0", "master", "extra", (0,))),
    "condition": (("9.0", "lite", "pack", (0, 1)), ("9.0", "lite", "rare_pack", (0,))),
    "forgotten": (("9.0", "master", "extra", (0, 1, 2, 3)),),
    "fizzle-resolved": (("9.0", "pro", None, (0, 1, 2)), ("9.0", "master", None, (0, 1))),
    # B・J sacrificing a Joker, A, J, Q or K: about one 6.1 master game in 40.
    "cost-trigger-first": (("6.1", "master", None, (15,)),),
    "waiver-left-out": (("6.1", "standard", None, (13, 15)),
                        ("9.0", "standard", None, (8, 12))),
}
"""The formats and frames (and seeds) whose games offer an injector's moment: the
action, trump or frame it needs, a situation that comes rarely."""

NOT_INJECTABLE: dict[str, str] = {
    "order.main-trigger-not-discarded": (
        "a main-timing triggered request (Block, Damage Judgement, Draw, Charge) fires "
        "only when a main-timing request or one of these resolves, and that request "
        "needed an empty stage: whatever was requested over it resolved first, so the "
        "stage is empty whenever one fires, unless an earlier mistake left a request on "
        "it (main-trigger-not-discarded-9.0 shows it after timing.main-stage-not-empty)"),
    "order.trigger-instant-before-normal": (
        "no resolution fires an instant and a normal triggered request together in any "
        "format or frame (docs/findings.md, lite): the buffer never offers the choice; "
        "no simulated game of any format offered it"),
    "order.trigger-main-before-quick": (
        "no player ever has a main-timing and a quick-timing triggered request of the "
        "same speed in the buffer at once (docs/findings.md): no simulated game of any "
        "format offered it"),
    "precedence.scope-order": (
        "no BlackPoker ability sets a value: every one adds or waives, so no order of "
        "application gives another value (docs/findings.md)"),
    "precedence.timestamp-order": "as precedence.scope-order",
    "precedence.prohibition-over-permission": "Duel Masters' own rule (dm101.2)",
}
"""Every BlackPoker error code no injector writes, and why one wrong line cannot raise it
alone."""
