"""Duel Masters' rules module (rules Ver. 1.47 as the seed quotes them) for the core flow.

Every Duel Masters request is *instant*: it resolves at once and the requester keeps the
chance, so the active player (AP) holds the chance through their turn. The non-active
player's decisions are choices recorded in ``resolve.choices`` (the blocker) or triggered
requests they control (an S-Trigger, a G-Strike, their creatures' abilities).

Direct requests (main timing, the AP's own turn): ``charge_mana``, ``summon``, ``cast``,
``attack``, ``end_turn``. Requests the rules create (``trigger`` lines), ranked by
:class:`~adjudicator.games.duel_masters.pending.PendingEffectOrder` (dm101.4a):
``s_trigger`` and ``g_strike`` (priority); ``cip``, ``on_attack``, ``on_break``,
``on_destroy``, ``start_of_turn``, ``end_of_turn`` (pending effects of a card); ``draw``
and ``block`` (the game's procedure, which goes on only once nothing is pending).

The turn's start and end steps (dm§3.1, dm§3.6): ``end_turn`` opens the end step, where
"at the end of the turn" abilities trigger and wait; once nothing is pending, "until end
of turn" effects end, the state-based actions are checked again (a step change), and the
next turn starts: its active player untaps, their "at the start of the turn" abilities
trigger and wait, and the draw step waits after them.

A resolution is computed from the rules and the recorded choices, then compared with the
effects the log claims (``resolve.effects``); where they differ the judge reports it and
follows the game as played for creatures leaving or staying in the battle zone. After every
resolution the state-based actions (dm703) are performed: a creature with power 0 or less
is destroyed. A deck reaching 0 cards ends the game at once (dm104.2b), even in the middle
of an effect: the rest of the effect is not carried out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.claims import compare
from coreflow_judge.adjudicator.continuous import Ability, Computation, Layered
from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import (
    ActionDef,
    FlowPolicy,
    GameResult,
    Resolution,
    RulesHooks,
    Sight,
    TriggerSpec,
    UnsupportedRules,
)
from coreflow_judge.adjudicator.games.choices import (
    check_action_choices,
    choice_findings,
    readable,
)
from coreflow_judge.adjudicator.games.common import (
    EditionDataError,
    Handlers,
    deck_out,
    load_edition_data,
    unknown_decks,
)
from coreflow_judge.adjudicator.games.duel_masters.as_played import AsPlayed
from coreflow_judge.adjudicator.games.duel_masters.board import (
    Attachment,
    Board,
    Creature,
    Gear,
    ManaCard,
    copy_creature,
)
from coreflow_judge.adjudicator.games.duel_masters.cards import (
    GAME_ENDS,
    UNKNOWN,
    ZONES,
    CardDef,
    CardListError,
    Effect,
    base_id,
    duration_words,
    parse_cards,
    split_ref,
)
from coreflow_judge.adjudicator.games.duel_masters.lines import header_of
from coreflow_judge.adjudicator.games.duel_masters.options import request_options
from coreflow_judge.adjudicator.games.duel_masters.pending import PendingEffectOrder
from coreflow_judge.adjudicator.games.edition_cache import checked_data
from coreflow_judge.adjudicator.plan import PlanStep, ResolutionPlan
from coreflow_judge.adjudicator.policies import Permission, PermissionPolicy, ProhibitionWins
from coreflow_judge.events.models import TurnStarted

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.events.models import (
        GameStarted,
        MatchStarted,
        Request,
        Resolve,
        Trigger,
    )

EDITIONS = ("1.47",)

POWER = Layered(("static", "change", "attached", "attacking"), word="layer")
"""A creature's power (dm§3.5), by the engine's continuous-effects service: its printed
power, then the opponent's creatures' static abilities, the power changes in force (oldest
first), what its cross gear and auras give, and power attacker while it attacks. Every one
adds, so the order changes no value, only how a message lists the steps."""


def load_edition(edition: str) -> dict[str, Any]:
    """The edition data shipped in the package (never read from outside it): every action
    declares its choices' shapes and has a resolution here (``@resolves``). Checked once
    per content of the data and of the code (:mod:`..edition_cache`)."""
    package = "coreflow_judge.adjudicator.games.duel_masters"

    def load() -> dict[str, Any]:
        data = load_edition_data(package, edition)
        check_action_choices(data, f"edition-{edition}.yaml")
        for aid in data["actions"]:
            if resolves.get(aid) is None:
                raise EditionDataError(f"edition-{edition}.yaml", f"actions.{aid}",
                                       "no resolution of this action (known: "
                                       f"{', '.join(sorted(resolves.names()))})")
        return data

    return checked_data(package, f"edition-{edition}", load)


def card_of(ref: str) -> str:
    parts = split_ref(ref)
    return parts[1] if parts else ref


@dataclass(slots=True)
class PowerMod:
    """A power change (``power`` effects), in force until its duration ends: the end of
    the turn (dm§3.6), the start of its controller's next turn, or while its source
    creature is in the battle zone (card text, dm101.1)."""

    creature: str
    delta: int
    timestamp: int
    holder: int = 0
    """The timestamp of the creature it was given to (the same card entering again is
    another creature)."""
    seq: int = 0
    """The line that made it."""
    ended: int | None = None
    """The turn in which it ended."""
    until: str = "end_of_turn"
    """Its duration (cards.DURATIONS)."""
    controller: str = ""
    """The player whose ability made it ("your next turn")."""
    source: tuple[str, int] | None = None
    """while_in_battle_zone: the creature whose ability made it (ref, timestamp)."""
    end: str = ""
    """How it ended, for messages ("at the end of turn 3")."""

    def words(self) -> str:
        """Its duration, naming whose turn or which creature."""
        if self.source is not None:
            return f"while {self.source[0]} is in the battle zone"
        return duration_words(self.until).replace("your", f"{self.controller}'s")

    @property
    def rule(self) -> str:
        """The rule that ends it: the end step, or the card text that says how long."""
        return "dm§3.6" if self.until == "end_of_turn" else "dm101.1"


@dataclass(frozen=True, slots=True)
class Override:
    """A card keyword that overrides a rule (dm101.1, card text over the rules): at one
    point of the rules (``at``), a "can" (``allow``) or a "cannot", over rule ``over``.
    Read from the edition data's ``overrides``."""

    keyword: str
    at: str
    allow: bool
    over: str
    text: str

    def names(self, ref: str) -> str:
        """The card and the override, as a finding names them."""
        return f"{ref}: {self.keyword} ({self.text}; its text overrides {self.over})"


OVERRIDE_POINTS = ("attack_sick", "attack_target", "block_tapped", "blocked", "draw")
"""Where the rules ask for a card over rule override (the edition data's ``at``)."""


def _overrides(data: Any) -> dict[str, Override]:
    """The edition's override keywords, checked when loaded."""
    out: dict[str, Override] = {}
    for keyword, o in (data or {}).items():
        if not isinstance(o, dict) or o.get("at") not in OVERRIDE_POINTS or \
                not isinstance(o.get("allow"), bool):
            raise UnsupportedRules(f"edition data: overrides.{keyword}: needs at (one of "
                                   f"{', '.join(OVERRIDE_POINTS)}), allow, over and text",
                                   field="rules")
        out[keyword] = Override(keyword, o["at"], o["allow"], str(o["over"]), str(o["text"]))
    return out


@dataclass(slots=True)
class Ban:
    """"This creature cannot attack this turn" (G-Strike): a prohibition, scope this."""

    creature: str
    timestamp: int
    source: str


@dataclass(slots=True)
class Attack:
    attacker: str
    target: str
    player: str


@dataclass(slots=True)
class DuelMastersPlan(ResolutionPlan):
    """What one Duel Masters resolution does on the current table (pure: the table is not
    changed), with what the rules found wrong in the recorded choices, and the table the
    resolution leaves, which :meth:`DuelMastersRules.apply_plan` makes the table."""

    findings: list[Finding] = field(default_factory=list)
    """The recorded choices' departures (an invalid blocker, a missing target, ...)."""
    next_turn: str | None = None
    """The player whose turn starts because the resolution closed the end step."""
    work: _Resolving | None = field(default=None, repr=False, compare=False)
    """The resolution carried out on the table it was planned on (a copy, for a pure plan):
    what apply_plan adopts."""


#: The rules' plain attributes that a resolution changes (adopted from its plan's table).
_TABLE = ("step", "charges", "ending", "effects_ended", "outcome", "clock", "boards",
          "state_destroyed", "modifiers", "expired", "bans", "attacks", "drawn_early")


class DuelMastersRules(RulesHooks):
    """The rules of Duel Masters (one edition, one format) for one match."""

    def __init__(self, edition: str, fmt: str, cards: Any = None) -> None:
        if edition not in EDITIONS:
            raise UnsupportedRules(
                f"unknown Duel Masters edition {edition!r} (known: {', '.join(EDITIONS)})",
                field="rules")
        self.data = load_edition(edition)
        if fmt not in self.data["formats"]:
            raise UnsupportedRules(
                f"format {fmt!r} is not supported yet (supported: "
                f"{', '.join(self.data['formats'])})", field="format")
        self.edition = edition
        self.format = fmt
        pol = self.data["policy"]
        self.pol = pol
        self.policy = FlowPolicy(
            requester_keeps_chance=bool(pol["requester_keeps_chance"]),
            resolve_before_cost_triggers=bool(pol["resolve_before_cost_triggers"]),
            resolve_late_triggers=bool(pol.get("resolve_late_triggers", False)),
        )
        self.trigger_order = PendingEffectOrder()
        self.permissions: PermissionPolicy = ProhibitionWins()
        self.actions: dict[str, ActionDef] = {
            aid: ActionDef(id=aid, name=a["name"], name_ja=a.get("name_ja", ""),
                           speed=a["speed"], timing=a["timing"],
                           direct=bool(a["direct"]), data=a)
            for aid, a in self.data["actions"].items()
        }
        self.steps: list[str] = list(self.data["steps"])
        self.overrides = _overrides(self.data.get("overrides"))
        self.cards: dict[str, CardDef] = parse_cards(cards, tuple(self.overrides))
        self.boards: dict[str, Board] = {}
        self.step = 0
        """Index in ``steps`` of the furthest step the current turn reached."""
        self.charges = 0
        self.modifiers: list[PowerMod] = []
        self.expired: list[PowerMod] = []
        """Power changes that ended at an end step (for the value-mismatch message)."""
        self.ending: tuple[str, str] | None = None
        """The end step is open: (the end_turn request, the player whose turn ends). It
        closes once nothing is pending (dm§3.6)."""
        self.effects_ended = False
        """In the open end step, the "until end of turn" effects have ended already."""
        self.drawn_early: set[str] = set()
        """Players whose draw the log resolved while the end step was still open (reported
        as out of order): their turn starts without another draw."""
        self.bans: list[Ban] = []
        self.attacks: dict[str, Attack] = {}
        self.outcome: GameResult | None = None
        """A result decided during a resolution (direct attack, decks out)."""
        self.state_destroyed: dict[str, tuple[int, Creature]] = {}
        """Creatures a state-based action destroyed: ref -> (seq, the creature)."""
        self.clock = 0
        self._notes: list[str] = []
        self.zones: dict[str, dict[str, list[str]] | None] = {z: None for z in ZONES}
        """The header's hyperspatial and super GR zones (dm§2.1), checked by
        :meth:`read_zones`."""

    def read_zones(self, header: MatchStarted) -> None:
        """The header's ``hyperspatial`` and ``super_gr``: each player's cards, psychic
        creatures and GR creatures of the header's ``cards``, each named once; and no such
        card in a deck. A header that breaks this cannot be judged (the field is named)."""
        words = {"hyperspatial": "a psychic creature (zone: hyperspatial)",
                 "super_gr": "a GR creature (zone: super_gr)"}
        zones = header_of(header)
        for zone in ZONES:
            raw = getattr(zones, zone)
            if raw is None:
                continue
            for p, names in raw.items():
                if p not in header.players:
                    raise UnsupportedRules(f"{zone}: {p!r} is not a player of this match",
                                           field=zone)
                seen: set[str] = set()
                for i, name in enumerate(names):
                    where = f"{zone}.{p}[{i}]"
                    cdef = self.card(name)
                    if name in seen:
                        raise UnsupportedRules(f"{where}: {name!r} is named twice (name each "
                                               "copy apart: #1, #2, ...)", field=zone)
                    seen.add(name)
                    if ":" in name or cdef is None:
                        raise UnsupportedRules(f"{where}: {name!r} names no card of the "
                                               "header's cards", field=zone)
                    if cdef.zone != zone:
                        raise UnsupportedRules(f"{where}: {name!r} ({cdef.name}) is not "
                                               f"{words[zone]}", field=zone)
            self.zones[zone] = {p: list(names) for p, names in raw.items()}
        for p, deck in (header.decks or {}).items():
            for i, name in enumerate(deck):
                cdef = self.card(name)
                if cdef is not None and cdef.zone != "deck":
                    raise UnsupportedRules(
                        f"decks.{p}[{i}]: {name!r} ({cdef.name}) starts in the {cdef.zone} "
                        f"zone (header field {cdef.zone}), never in a deck", field="decks")

    # ------------------------------------------------------------------ interface
    def action(self, action_id: str) -> ActionDef | None:
        return self.actions.get(action_id)

    def notes(self) -> list[str]:
        return list(self._notes)

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def card(self, card: str) -> CardDef | None:
        """The definition of a physical card (``bolshack#2`` -> ``bolshack``)."""
        return self.cards.get(card) or self.cards.get(base_id(card))

    def names_no_card(self, ref: str) -> bool:
        """A card reference (``owner:card`` or the card alone) naming no card the header
        defines: not a face the log hides (``?``), and the header defines cards at all."""
        card = card_of(ref)
        return bool(self.cards) and card != UNKNOWN and self.card(card) is None

    def step_name(self) -> str:
        return self.steps[self.step]

    # ------------------------------------------------------------------ game start
    def start_game(self, flow: CoreFlow, header: MatchStarted, line: GameStarted) -> None:
        """Shields (5 from the top of the deck), then a hand of 5; no draw on turn 1."""
        decks = header.decks or {}
        sizes = header.deck_sizes or {}
        setup = self.data["setup"]
        for p in flow.players:
            b = Board()
            if p in decks:
                b.deck = list(decks[p])
                missing = sorted({c for c in b.deck if c != UNKNOWN and self.card(c) is None})
                if missing:
                    flow.report("log.unknown-ref", "dm§2.1",
                                f"{p}'s deck holds cards the header's cards do not define.",
                                actual=missing)
            elif p in sizes:
                b.deck = [UNKNOWN] * sizes[p]
            else:
                b.deck = None
            self.boards[p] = b
        if not all(p in decks or p in sizes for p in flow.players):
            self._notes.append("The header gives no deck size for every player: deck counts "
                               "are unknown and library out cannot be ruled.")
        for p in flow.players:
            b = self.boards[p]
            if self.zones["hyperspatial"] is not None:
                b.hyperspatial = list(self.zones["hyperspatial"].get(p, []))
            if self.zones["super_gr"] is not None:
                b.super_gr = list(self.zones["super_gr"].get(p, []))
        hands = line.hands or {}
        for p in flow.players:
            b = self.boards[p]
            b.shields = []
            for _ in range(setup["shields"]):
                top = b.pop_deck()
                if top is None:
                    flow.report("legality.effect-mismatch", "dm§2.1",
                                f"{p}'s deck is too small to set up the shields.")
                    break
                b.shields.append(top)
            shown = hands.get(p, [])
            for i in range(setup["hand"]):
                top = b.pop_deck()
                if top is None:
                    flow.report("legality.effect-mismatch", "dm§2.1",
                                f"{p}'s deck is too small to draw the opening hand.")
                    break
                claimed = card_of(shown[i]) if i < len(shown) else UNKNOWN
                if top != UNKNOWN and claimed != UNKNOWN and claimed != top:
                    flow.report("legality.effect-mismatch", "dm§2.1",
                                f"{p}'s opening hand holds {top}, not {claimed} (shields are "
                                "set first, then five cards are drawn).",
                                expected=top, actual=claimed)
                b.add_to_hand(claimed if claimed != UNKNOWN else top)
        self.step = 0
        self.charges = 0

    # ------------------------------------------------------------------ creatures
    def find(self, ref: str) -> Creature | None:
        for b in self.boards.values():
            for c in b.battle:
                if c.ref == ref:
                    return c
        return None

    def creatures(self) -> list[Creature]:
        return [c for b in self.boards.values() for c in b.battle]

    def gear(self, ref: str) -> Gear | None:
        """A cross gear in the battle zone."""
        parts = split_ref(ref)
        b = self.boards.get(parts[0]) if parts else None
        return b.gear(ref) if b is not None else None

    def uncross(self, gear: Gear) -> None:
        """The gear is crossed to no creature any more (it stays in the battle zone)."""
        if gear.crossed is not None:
            was = self.find(gear.crossed)
            if was is not None:
                was.attached = [a for a in was.attached if a.ref != gear.ref]
        gear.crossed = None

    def cross(self, gear: Gear, c: Creature) -> None:
        self.uncross(gear)
        gear.crossed = c.ref
        c.attached.append(Attachment(gear.ref, gear.card))

    def psychic_options(self, player: str, effect: Effect) -> list[str]:
        """The psychic creatures of ``player``'s hyperspatial zone a ``hyperspatial`` effect
        may put into the battle zone (cost ``max_cost`` or less)."""
        return [f"{player}:{n}" for n in self.boards[player].hyperspatial or []
                if (d := self.card(n)) is not None
                and (effect.max_power is None or d.cost <= effect.max_power)]

    @staticmethod
    def sba_words(c: Creature) -> str:
        """Why the state-based actions (dm703) destroy ``c``: a GR creature with no aura
        (the seed's rule), or power 0 or less."""
        if c.card.zone == "super_gr" and not c.auras:
            return "was a GR creature with no aura on it"
        return "had power 0 or less"

    def sba_due(self, c: Creature) -> bool:
        """dm703: power 0 or less, or a GR creature with no aura on it."""
        return self.power(c) <= 0 or (c.card.zone == "super_gr" and not c.auras)

    def power_of(self, c: Creature, attacking: bool = False) -> Computation:
        """``c``'s power (dm§3.5), computed by the engine's continuous-effects service
        (:data:`POWER`): printed power, then the opponent's static abilities, every power
        change in force (oldest first), what its cross gear and auras give, and power
        attacker while it attacks. The value and its explanation (:meth:`power_steps`)
        come from this one computation."""
        abilities = [
            Ability(o.ref, f"{o.ref}'s static ability", o.owner, "static", i, "power", "add",
                    o.card.opponent_power)
            for i, o in enumerate(self.creatures())
            if o.owner != c.owner and o.card.opponent_power]
        abilities += [
            Ability("power", f"line {m.seq}, {m.words()}", m.controller, "change", i, "power",
                    "add", m.delta, character=c.ref, until=m.until)
            for i, m in enumerate(self.modifiers) if m.creature == c.ref]
        abilities += [
            Ability(a.ref, f"{a.ref}, {'crossed' if a.card.type == 'cross_gear' else 'aura'}",
                    c.owner, "attached", i, "power", "add", a.card.gives.power,
                    character=c.ref)
            for i, a in enumerate(c.attached) if a.card.gives is not None and a.card.gives.power]
        if attacking and c.card.power_attacker:
            abilities.append(Ability("power attacker", "power attacker", c.owner, "attacking",
                                     0, "power", "add", c.card.power_attacker,
                                     character=c.ref))
        return POWER.compute(c.card.power, abilities)

    def power(self, c: Creature, attacking: bool = False) -> int:
        """``c``'s power (:meth:`power_of`)."""
        return self.power_of(c, attacking).value

    @staticmethod
    def power_steps(c: Creature, computed: Computation) -> str:
        """How ``c``'s power reached its value, step by step (for messages), from the
        computation that gave the value (:meth:`power_of`)."""
        steps = [f"{computed.printed} printed"]
        steps += [f"{a.amount or 0:+d} ({a.source})" for a, _ in computed.steps]
        return f"{c.ref}: " + " ".join(steps) + f" = {computed.value}"

    def expired_on(self, c: Creature) -> list[PowerMod]:
        """Power changes of this creature whose duration has ended."""
        return [m for m in self.expired if m.creature == c.ref and m.holder == c.timestamp]

    def end_mods(self, turn: int, why: str, ends: Any) -> None:
        """The power changes for which ``ends(m)`` holds end now (``why``: how)."""
        done = [m for m in self.modifiers if ends(m)]
        for m in done:
            m.ended, m.end = turn, why
        self.expired += done
        self.modifiers = [m for m in self.modifiers if not ends(m)]

    def end_turn_effects(self, turn: int) -> None:
        """dm§3.6: "until end of turn" effects end: power changes, "cannot attack this
        turn"."""
        self.end_mods(turn, f"at the end of turn {turn}", lambda m: m.until == "end_of_turn")
        self.bans.clear()

    def override(self, c: Creature, at: str) -> Override | None:
        """The card over rule keyword of this creature at ``at`` (dm101.1), if it has one."""
        return next((o for k, o in self.overrides.items() if o.at == at and c.has(k)),
                    None)

    def draw_skipped_by(self, player: str) -> Creature | None:
        """A creature of ``player`` in the battle zone whose text skips their draw."""
        return next((c for c in self.boards[player].battle
                     if (o := self.override(c, "draw")) is not None and not o.allow), None)

    def ability_hook(self, flow: CoreFlow, req: Req) -> str | None:
        """The card text a triggered ability request resolves, by its action's data: the
        one it names (``hook``: ``cip``, ``on_attack``, ...), or for a start / end of turn
        ability (dm§3.1, dm§3.6, ``hooks``) its controller's own turn's or the opponent's
        turn's; None for an action that resolves no ability's text."""
        data = req.action.data
        hooks = data.get("hooks")
        if isinstance(hooks, dict):
            own = req.controller == flow.turn_player
            return str(hooks.get("own" if own else "opponent", ""))
        hook = data.get("hook")
        return str(hook) if hook is not None else None

    def shields_broken(self, attacker: Creature, player: str) -> int:
        """dm§3.5: how many of ``player``'s shields ``attacker`` breaks: its breaker count,
        or every shield left when there are fewer."""
        shields = self.boards[player].shields
        return min(attacker.breaker, len(shields or []))

    def sick(self, flow: CoreFlow, c: Creature) -> bool:
        """Summoning sickness: it was put into the battle zone this turn (dm§2.2)."""
        return c.entered == flow.turn

    def attack_abilities(self, flow: CoreFlow, c: Creature) -> list[Permission]:
        """The "can" / "cannot" abilities that bear on this creature attacking now."""
        sick = self.sick(flow, c)
        out: list[Permission] = []
        fast = self.override(c, "attack_sick") if sick else None
        if fast is not None:
            out.append(Permission(fast.allow, "this", c.timestamp,
                                  fast.names(c.giver(fast.keyword))))
        if c.has("cannot_attack"):
            out.append(Permission(False, "this", c.timestamp,
                                  f"{c.giver('cannot_attack')}: cannot attack"))
        if sick:
            for o in self.creatures():
                if o.owner != c.owner and o.has("lock_new_attackers"):
                    out.append(Permission(
                        False, "all", o.timestamp,
                        f"{o.giver('lock_new_attackers')}: the opponent's creatures cannot "
                        "attack the turn they enter"))
        for ban in self.bans:
            if ban.creature == c.ref:
                out.append(Permission(False, "this", ban.timestamp,
                                      f"{ban.source}: cannot attack this turn"))
        return out

    def may_attack(self, flow: CoreFlow, c: Creature) -> bool:
        """An untapped creature of the active player that the abilities let attack."""
        if c.owner != flow.turn_player or c.tapped:
            return False
        return self.permissions.decide(not self.sick(flow, c), self.attack_abilities(flow, c))

    def block_abilities(self, blocker: Creature, attacker: Creature) -> list[Permission]:
        """The "can" / "cannot" abilities that bear on this block: blocker (a "can"), the
        attacker's "cannot be blocked" (dm101.1 overrides)."""
        out: list[Permission] = []
        if blocker.has("blocker"):
            out.append(Permission(True, "this", blocker.timestamp,
                                  f"{blocker.giver('blocker')}: blocker"))
        shut = self.override(attacker, "blocked")
        if shut is not None:
            out.append(Permission(shut.allow, "this", attacker.timestamp,
                                  shut.names(attacker.giver(shut.keyword))))
        return out

    def may_block(self, c: Creature, attacker: Creature) -> bool:
        """An untapped blocker (or a tapped one whose text lets it block) that the
        abilities let block this attacker."""
        if c.tapped and self.override(c, "block_tapped") is None:
            return False
        return self.permissions.decide(False, self.block_abilities(c, attacker))

    def attack_targets(self, flow: CoreFlow, c: Creature) -> list[str]:
        """The opponent, and each of the opponent's tapped creatures (untapped ones too
        for a creature whose text lets it attack them)."""
        out = [p for p in flow.players if p != c.owner]
        untapped = self.override(c, "attack_target") is not None
        out += [o.ref for o in self.creatures() if o.owner != c.owner
                and (o.tapped or untapped)]
        return out

    def legal_targets(self, controller: str, effect: Effect) -> list[str]:
        return [c.ref for c in self.creatures()
                if self.target_problem(controller, effect, c.ref) is None]

    def target_problem(self, controller: str, effect: Effect, ref: str) -> str | None:
        c = self.find(ref)
        if c is None:
            return f"{ref} is not a creature in the battle zone"
        mine = c.owner == controller
        if effect.kind == "power" and effect.amount > 0:
            if not mine:
                return f"{ref} is not a creature of {controller}"
            return None
        if mine:
            return f"{ref} is not a creature of {controller}'s opponent"
        if effect.max_power is not None and self.power(c) > effect.max_power:
            return f"{ref} has power {self.power(c)}, more than {effect.max_power}"
        return None

    # ------------------------------------------------------------------ mana
    def mana_problem(self, player: str, cdef: CardDef, refs: list[str],
                     cost: int | None = None) -> str | None:
        """Why tapping ``refs`` does not pay ``cost`` (by default the card's) for ``cdef``
        (dm§2.1), or None."""
        board = self.boards[player]
        what = cdef.name if cost is None else f"Crossing {cdef.name}"
        cost = cdef.cost if cost is None else cost
        if len(refs) != cost:
            return f"{what} costs {cost} mana; {len(refs)} mana card(s) tapped"
        picked = self._pick_mana(board, refs)
        if isinstance(picked, str):
            return picked
        if not _civs_covered(cdef, picked):
            return (f"{cdef.name} needs mana of {'/'.join(cdef.civs)}; the tapped mana does "
                    "not give every civilisation")
        return None

    def _pick_mana(self, board: Board, refs: list[str]) -> list[ManaCard] | str:
        """The untapped mana cards ``refs`` name; a face the log shows only now may be one
        of the mana cards whose face it never showed (``?``)."""
        used: list[ManaCard] = []
        for ref in refs:
            hit = next((m for m in board.mana if not m.tapped and m not in used and (
                m.ref == ref or (card_of(ref) == UNKNOWN and m.card is None))), None)
            if hit is None and not any(m.ref == ref for m in board.mana):
                hit = next((m for m in board.mana if not m.tapped and m not in used
                            and m.card is None), None)
            if hit is None:
                if any(m.ref == ref for m in board.mana):
                    return f"{ref} is already tapped"
                return f"{ref} is not in the mana zone"
            used.append(hit)
        return used

    def auto_mana(self, player: str, cdef: CardDef, cost: int | None = None) -> list[str] | None:
        """Untapped mana cards that pay ``cost`` (by default the card's) for ``cdef``, if
        there are any (the first found)."""
        cost = cdef.cost if cost is None else cost
        free = self.boards[player].untapped_mana()
        if len(free) < cost:
            return None
        if cost == 0:
            return []
        # Cards of the needed civilisations first, then any.
        need = set(cdef.civs) - {"zero"}
        first = [m for m in free if need & set(m.civs()) or m.card is None]
        rest = [m for m in free if m not in first]
        for pool in (first + rest,):
            chosen: list[ManaCard] = []
            for civ in sorted(need):
                m = next((m for m in pool if m not in chosen and (civ in m.civs()
                                                                  or m.card is None)), None)
                if m is not None:
                    chosen.append(m)
            for m in pool:
                if len(chosen) >= cost:
                    break
                if m not in chosen:
                    chosen.append(m)
            if len(chosen) == cost and _civs_covered(cdef, chosen):
                return [m.ref for m in chosen]
        return None

    # ------------------------------------------------------------------ requesting
    def step_passed(self, step: str) -> bool:
        """dm§3: this turn is past ``step``; the active player may no longer request an
        action of that step."""
        return self.steps.index(step) < self.step

    def mana_charged(self) -> bool:
        """dm§3.3: the active player has charged as many cards as a turn allows."""
        return self.charges >= int(self.pol["mana_charges_per_turn"])

    def table_allows(self, flow: CoreFlow, line: Request, action: ActionDef) -> bool:
        """What the rules want next weighs the turn's steps (dm§3: no action of a step the
        turn has passed) and the one mana charge per turn (dm§3.3): the parts of
        :meth:`request_findings` that need no key card, mana or target."""
        step = action.data.get("step")
        if step is not None and line.player == flow.turn_player and self.step_passed(step):
            return False
        return not (action.id == "charge_mana" and line.player == flow.turn_player
                    and self.mana_charged())

    def request_choices(self, line: Request) -> dict[str, Any]:
        """The request's choices the judge reads (of the action's declared shapes)."""
        action = self.actions.get(line.action)
        return readable(action.data.get("choices") if action else None, line.choices)

    def request_findings(self, flow: CoreFlow, line: Request, action: ActionDef) -> list[Finding]:
        """Key card, mana, targets, step order and permissions; never mutates."""
        out: list[Finding] = []
        player = line.player
        board = self.boards.get(player)
        if board is None:
            return out

        def rep(code: str, rule: str, msg: str, **kw: Any) -> None:
            out.append(finding(code, line.seq, rule, msg, **kw))

        out += choice_findings(action.name, "request", action.data.get("choices"),
                               line.choices, line.seq)[0]
        if line.costs:  # a log's costs are refused when read (the game names no kinds)
            rep("legality.cost-unpaid", "dm§2.1",
                "Duel Masters costs are paid by tapping mana cards, recorded in choices.mana; "
                "a request records no costs.",
                actual=[c.kind for c in line.costs])
        step = action.data.get("step")
        if step is not None and player == flow.turn_player:
            if self.step_passed(step):
                now = self.step_name()
                rep("legality.step-order", "dm§3",
                    f"{action.name} belongs to the {step} step, and this turn is already in "
                    f"the {now} step; a turn's steps go "
                    f"{' -> '.join(self.steps)}.",
                    expected=f"an action of the {now} step or a later one",
                    actual=f"{action.name} (the {step} step)")
        aid = action.id
        if aid == "charge_mana":
            self._check_hand_key(line, board, None, rep)
            if self.mana_charged():
                rep("legality.mana-charge-twice", "dm§3.3",
                    f"{player} already charged mana this turn: one card per turn.",
                    expected=1, actual=self.charges + 1)
        elif aid in ("summon", "cast"):
            cdef = self._check_hand_key(line, board, "creature" if aid == "summon" else "spell",
                                        rep)
            if cdef is not None:
                self._check_mana(line, cdef, rep)
                if aid == "cast":
                    self._check_spell_targets(line, cdef, rep)
        elif aid in ("generate", "aura"):
            cdef = self._check_hand_key(line, board, "cross_gear" if aid == "generate"
                                        else "aura", rep)
            if cdef is not None:
                self._check_mana(line, cdef, rep)
                if aid == "aura":
                    self._check_aura_target(line, cdef, rep)
        elif aid == "cross":
            self._check_cross(line, rep)
        elif aid == "attack":
            self._check_attack(flow, line, rep)
        return out

    def _own_creature(self, line: Request, rep: Any, what: str) -> Creature | None:
        """The one creature of the requester ``line.targets`` names, or a finding."""
        if len(line.targets) != 1:
            rep("legality.target-invalid", "dm§3.4", f"{what} names one creature of "
                f"{line.player}'s as its target.", expected=1, actual=len(line.targets))
            return None
        c = self.find(line.targets[0])
        if c is None or c.owner != line.player:
            rep("legality.target-invalid", "dm§3.4", f"{line.targets[0]} is not a creature "
                f"of {line.player} in the battle zone ({what}).", actual=line.targets[0])
            return None
        return c

    def _check_aura_target(self, line: Request, cdef: CardDef, rep: Any) -> None:
        """An aura is put on one of its user's creatures; one that GR summons is put on the
        creature it summons, and names none."""
        if cdef.gr_summon:
            if line.targets:
                rep("legality.target-invalid", "dm§3.4", f"{cdef.name} GR summons the "
                    "creature it is put on: it names no target.", actual=line.targets)
            return
        self._own_creature(line, rep, f"{cdef.name}, an aura")

    def _check_cross(self, line: Request, rep: Any) -> None:
        """dm§3.4: cross one of the requester's gears in the battle zone to one of their
        creatures, paying its cross cost."""
        if len(line.key_cards) != 1:
            rep("legality.key-card-invalid", "dm§3.4", "Name the cross gear as the one key "
                "card.", expected=1, actual=len(line.key_cards))
            return
        ref = line.key_cards[0]
        gear = self.gear(ref)
        if gear is None or (split_ref(ref) or ("",))[0] != line.player:
            rep("legality.key-card-invalid", "dm§3.4", f"{ref} is not a cross gear of "
                f"{line.player} in the battle zone (generate it first).", actual=ref)
            return
        c = self._own_creature(line, rep, f"crossing {gear.card.name}")
        if c is not None and gear.crossed == c.ref:
            rep("legality.target-invalid", "dm§3.4", f"{ref} is already crossed to "
                f"{c.ref}.", actual=c.ref)
        self._check_mana(line, gear.card, rep, gear.card.cross_cost)

    def _check_hand_key(self, line: Request, board: Board, kind: str | None,
                        rep: Any) -> CardDef | None:
        player = line.player
        if len(line.key_cards) != 1:
            rep("legality.key-card-invalid", "dm§3",
                "Name exactly one card of the hand as the key card.",
                expected=1, actual=len(line.key_cards))
            return None
        ref = line.key_cards[0]
        parts = split_ref(ref)
        if parts is None or parts[0] != player:
            rep("legality.key-card-invalid", "dm§3", f"{ref!r} is not a card of {player}.",
                actual=ref)
            return None
        card = parts[1]
        if self.names_no_card(card):
            rep("log.unknown-ref", "log",
                f"key_cards[0]: {ref!r} names no card of the header's cards.", actual=ref)
            return None
        if not board.hand_has(card):
            rep("legality.key-card-invalid", "dm§3", f"{card} is not in {player}'s hand.",
                actual=ref)
        if kind is None:
            return None
        cdef = self.card(card)
        if card == UNKNOWN:
            rep("log.hidden-info", "dm§3", "The card's face is not recorded; its cost and "
                "kind cannot be checked.", severity="warning")
            return None
        if cdef is None:
            rep("legality.key-card-invalid", "dm§3",
                f"{card} has no definition in the header's cards.", actual=ref)
            return None
        if cdef.type != kind:
            rep("legality.key-card-invalid", "dm§3.4", f"{cdef.name} is a {cdef.type}, not a "
                f"{kind}.", expected=kind, actual=cdef.type)
        if (kind == "creature" and self.find(ref) is not None) or (
                kind == "cross_gear" and self.gear(ref) is not None):
            rep("legality.key-card-invalid", "dm§3.4",
                f"{ref} is already in the battle zone: name each copy apart "
                f"({base_id(card)}#1, {base_id(card)}#2, ...).", actual=ref)
        return cdef

    def _check_mana(self, line: Request, cdef: CardDef, rep: Any,
                    cost: int | None = None) -> None:
        mana = self.request_choices(line).get("mana")
        if mana is None:
            if (line.choices or {}).get("mana") is not None:
                return  # not a list of card references: reported with the choices
            if self.auto_mana(line.player, cdef, cost) is None:
                rep("legality.cost-unpaid", "dm§2.1",
                    f"{line.player} has no untapped mana that pays for {cdef.name} "
                    f"(cost {cdef.cost if cost is None else cost}, {'/'.join(cdef.civs)}).")
            elif (cdef.cost if cost is None else cost) > 0:  # a cost of 0 taps nothing
                rep("log.choice-missing", "dm§2.1",
                    "The mana cards tapped are not recorded (choices.mana); mana that pays "
                    "is assumed.", severity="warning")
            return
        unknown = [(i, m) for i, m in enumerate(mana) if self.names_no_card(m)]
        if unknown:
            i, m = unknown[0]
            rep("log.unknown-ref", "log",
                f"choices.mana[{i}]: {m!r} names no card of the header's cards.",
                actual=[m for _, m in unknown])
            return
        bad = [m for m in mana if (split_ref(m) or ("",))[0] != line.player]
        if bad:
            rep("legality.cost-unpaid", "dm§2.1", "Only the requester's mana pays.",
                actual=bad)
            return
        why = self.mana_problem(line.player, cdef, mana, cost)
        if why is not None:
            rep("legality.cost-unpaid", "dm§2.1", why + ".",
                expected=cdef.cost if cost is None else cost, actual=mana)

    def _check_spell_targets(self, line: Request, cdef: CardDef, rep: Any) -> None:
        effect = cdef.target_effect("spell")
        if effect is None:
            if line.targets:
                rep("legality.target-invalid", "dm§3.4", f"{cdef.name} chooses no target.",
                    actual=line.targets)
            return
        if len(line.targets) > 1:
            rep("legality.target-invalid", "dm§3.4", f"{cdef.name} chooses one creature.",
                expected=1, actual=line.targets)
            return
        if not line.targets:
            return  # chosen at resolution (resolve.choices.targets), or none was legal
        why = self.target_problem(line.player, effect, line.targets[0])
        if why is not None:
            rep("legality.target-invalid", "dm§3.4", f"{why} ({effect.describe()}).",
                actual=line.targets[0])

    def _check_attack(self, flow: CoreFlow, line: Request, rep: Any) -> None:
        player = line.player
        if len(line.key_cards) != 1:
            rep("legality.key-card-invalid", "dm§3.5",
                "Name the attacking creature as the one key card.",
                expected=1, actual=len(line.key_cards))
            return
        ref = line.key_cards[0]
        c = self.find(ref)
        if c is None and ref in self.state_destroyed:
            seq, gone = self.state_destroyed[ref]
            rep("order.state-check-missed", "dm703",
                f"{ref} {self.sba_words(gone)} and was destroyed by a state-based action after "
                f"line {seq}; it attacks as if it were still in the battle zone.",
                expected="destroyed", actual="attacks")
            return
        if c is None or c.owner != player:
            rep("legality.cannot-attack", "dm§3.5",
                f"{ref} is not a creature of {player} in the battle zone.", actual=ref)
            return
        if c.tapped:
            rep("legality.cannot-attack", "dm§3.5", f"{ref} is tapped: only an untapped "
                "creature can attack.", actual="tapped")
        else:
            abilities = self.attack_abilities(flow, c)
            sick = self.sick(flow, c)
            if not self.permissions.decide(not sick, abilities):
                cannot = [a.source for a in abilities if not a.allow]
                can = [a.source for a in abilities if a.allow]
                if can and cannot:
                    rep("precedence.prohibition-over-permission", "dm101.2",
                        f"{ref} attacked under both a 'can' and a 'cannot': the 'cannot' wins "
                        "whatever the scopes ('" + "'; '".join(cannot) + "' over '"
                        + "'; '".join(can) + "').", expected="cannot attack",
                        actual="attacked")
                elif cannot:
                    rep("legality.cannot-attack", "dm§3.5",
                        f"{ref} cannot attack: " + "; ".join(cannot) + ".", actual="attacked")
                else:
                    rep("legality.summoning-sickness", "dm§2.2",
                        f"{ref} was put into the battle zone this turn (turn {c.entered}) and "
                        "has no speed attacker.", expected="no attack", actual="attacked")
        if len(line.targets) != 1:
            rep("legality.target-invalid", "dm§3.5",
                "An attack names one target: the opponent or one of their tapped creatures.",
                expected=1, actual=len(line.targets))
            return
        target = line.targets[0]
        if target in flow.players:
            if target == player:
                rep("legality.target-invalid", "dm§3.5", f"{player} cannot attack themself.",
                    actual=target)
            return
        t = self.find(target)
        if t is None and target in self.state_destroyed:
            rep("order.state-check-missed", "dm703",
                f"{target} {self.sba_words(self.state_destroyed[target][1])} and was destroyed "
                f"by a state-based action after line {self.state_destroyed[target][0]}; it is "
                "attacked as if it were "
                "still in the battle zone.", expected="destroyed", actual="attacked")
            return
        if t is None or t.owner == player:
            rep("legality.target-invalid", "dm§3.5",
                f"{target} is neither the opponent nor a creature of theirs.", actual=target)
        elif not t.tapped and (c is None or self.override(c, "attack_target") is None):
            rep("legality.target-invalid", "dm§3.5",
                f"{target} is untapped: only a tapped creature can be attacked.",
                actual="untapped")

    # ------------------------------------------------------------------ paying
    def pay_costs(self, flow: CoreFlow, req: Req, line: Request) -> list[TriggerSpec]:
        """Take the key card from the hand and tap the mana; advance the turn's step."""
        player = line.player
        board = self.boards[player]
        aid = req.action.id
        step = req.action.data.get("step")
        if step is not None and player == flow.turn_player:
            self.step = max(self.step, self.steps.index(step))
        if aid in ("charge_mana", "summon", "cast", "generate", "aura") and line.key_cards:
            card = card_of(line.key_cards[0])
            board.take_from_hand(card)
            req.data["card"] = card
        if aid == "charge_mana" and player == flow.turn_player:
            self.charges += 1
        gear = self.gear(line.key_cards[0]) if aid == "cross" and line.key_cards else None
        if aid in ("summon", "cast", "generate", "aura", "cross") and (
                "card" in req.data or gear is not None):
            cdef = gear.card if gear is not None else self.card(req.data["card"])
            cost = gear.card.cross_cost if gear is not None else None
            mana = self.request_choices(line).get("mana")
            if not isinstance(mana, list) and cdef is not None:
                mana = self.auto_mana(player, cdef, cost)
            if isinstance(mana, list):
                refs = [str(m) for m in mana]
                picked = self._pick_mana(board, refs)
                for m, ref in zip(picked if isinstance(picked, list) else [], refs,
                                  strict=False):
                    m.tapped = True
                    if m.card is None and card_of(ref) != UNKNOWN:
                        m.ref, m.card = ref, self.card(card_of(ref))  # its face, shown now
        if aid == "attack" and line.key_cards:
            self._restore_if_kept(line.key_cards[0])
            for t in line.targets:
                self._restore_if_kept(t)
        return []

    def _restore_if_kept(self, ref: str) -> None:
        """The table kept a creature a state-based action destroyed: follow the game."""
        if self.find(ref) is not None or ref not in self.state_destroyed:
            return
        _, c = self.state_destroyed.pop(ref)
        self.put_back_in_play(c)
        c.sba_exempt = True

    def put_back_in_play(self, c: Creature) -> None:
        """Follow a table that kept a creature the rules removed: it is in the battle zone
        again, its gears crossed to it and its auras on it as before."""
        b = self.boards[c.owner]
        b.take_back(card_of(c.ref))
        for a in c.attached:
            if a.aura:
                b.take_back(card_of(a.ref))
            elif (g := b.gear(a.ref)) is not None and g.crossed is None:
                g.crossed = c.ref
        c.attached = [a for a in c.attached if a.aura or (
            (g := b.gear(a.ref)) is not None and g.crossed == c.ref)]
        b.battle.append(c)

    # ------------------------------------------------------------------ resolving
    def copy_table(self) -> DuelMastersRules:
        """These rules over an independent copy of the table (the card definitions, the
        edition data and the notes shared): a resolution is planned on it."""
        other = object.__new__(DuelMastersRules)
        other.__dict__.update(self.__dict__)
        creatures: dict[int, Creature] = {}
        other.boards = {p: b.copy(creatures) for p, b in self.boards.items()}
        other.state_destroyed = {ref: (seq, copy_creature(c, creatures))
                                 for ref, (seq, c) in self.state_destroyed.items()}
        other.modifiers = [replace(m) for m in self.modifiers]
        other.expired = list(self.expired)
        other.bans = list(self.bans)
        other.attacks = dict(self.attacks)
        other.drawn_early = set(self.drawn_early)
        return other

    def plan_resolution(self, flow: CoreFlow, req: Req, choices: dict[str, Any] | None,
                        seq: int | None = None) -> DuelMastersPlan:
        """What resolving ``req`` with the recorded ``choices`` does on the table now, step
        by step with the reasons, the requests it triggers, and what the rules find wrong
        in the choices (reported at line ``seq``, by default the next line). Pure: neither
        this table nor the flow changes; :meth:`apply_plan` carries the plan out."""
        ctx = _Resolving(self.copy_table(), flow, req, dict(choices or {}),
                         flow.next_seq if seq is None else seq)
        ctx.run()
        return ctx.plan()

    def apply_plan(self, flow: CoreFlow, plan: DuelMastersPlan) -> None:
        """Carry out a planned resolution: the table becomes the one it leaves, and a turn
        it ends gives way to the next ([2]: the new turn player holds the chance)."""
        work = plan.work
        assert work is not None, "a plan carries the table it leaves"
        if work.rules is not self:
            for name in _TABLE:
                setattr(self, name, getattr(work.rules, name))
        self._start_next_turn(flow, work)

    @staticmethod
    def _start_next_turn(flow: CoreFlow, work: _Resolving) -> None:
        """The resolution closed the end step: the flow starts the next turn."""
        if work.next_player is not None:
            flow.start_turn(work.next_player)
            flow.give_chance_to_turn_player()

    def resolve(self, flow: CoreFlow, req: Req, line: Resolve) -> Resolution:
        """The plan; the log's claims compared with its effects (where they differ, the
        judge rules and follows the game as played for creatures leaving or staying in the
        battle zone); then what was played is applied.

        The judge applies the plan whatever the claims say, so it computes the plan on the
        table itself rather than on a copy (:meth:`plan_resolution`): the same computation,
        without copying the table at every resolution."""
        before = self.copy_table() if line.effects is not None else None
        work = _Resolving(self, flow, req, dict(line.choices or {}), line.seq)
        work.run()  # the plan (work.plan()), carried out on this table
        if line.effects is not None:
            work.before = before
            work.rule_on_claims(list(work.effects), [e.model_dump() for e in line.effects])
        work.close_end_step()  # the log kept a creature whose ability kept the step open
        self._start_next_turn(flow, work)
        return Resolution(result=line.result, effects=work.effects, findings=work.findings,
                          triggers=work.triggers)

    def settle(self, flow: CoreFlow) -> list[TriggerSpec]:
        """The core flow's idle hook: nothing is pending. When the log went on while the end
        step's pending effects waited (the flow reported and dropped them), the end step
        closes here, as the table played it, and the next turn starts."""
        if self.ending is None or flow.result is not None:
            return []
        req = flow.requests.get(self.ending[0])
        if req is None:
            return []
        ctx = _Resolving(self, flow, req, {}, flow.last_seq)
        ctx.close_end_step()
        self._start_next_turn(flow, ctx)
        flow.findings.extend(ctx.findings)
        return ctx.triggers

    def request_options(self, flow: CoreFlow, player: str, action: ActionDef, sees: Sight
                        ) -> list[Request]:
        """The requests of ``action`` that ``player`` could make now, for the judge to
        check (:func:`.options.request_options`)."""
        return request_options(self, flow, player, action, sees)

    def asks_on_resolve(self, flow: CoreFlow, req: Req) -> bool:
        """Whether resolving ``req`` now leaves a choice: the defender's block (dm§3.5)
        while a creature of theirs may block the attacker; otherwise the choices its
        resolution finds missing when none is recorded (the shields broken, whether an
        S-Trigger or G-Strike is used, a target or a psychic creature while one may be
        chosen): the resolution planned with no choice says so (:meth:`plan_resolution`)."""
        if not req.action.data.get("choices_on_resolve"):
            return False
        if req.action.id == "block":
            attack = self.attacks.get(str(req.source))
            attacker = self.find(attack.attacker) if attack is not None else None
            if attack is not None and attacker is not None:
                defender = flow.next_player(attack.player)
                if any(self.may_block(c, attacker) for c in self.boards[defender].battle):
                    return True
        plan = self.plan_resolution(flow, req, None)
        return any(f.code == "log.choice-missing" for f in plan.findings)

    def goes_past_pending(self, flow: CoreFlow, line: Trigger | TurnStarted) -> bool:
        """The core flow's hook for a ``trigger`` or ``turn_started`` line it did not derive
        while pending effects wait: True when the end step is open and the line starts the
        next turn (its ``turn_started``, its draw step, one of its start abilities). The
        table skipped the end step's pending effects; the flow reports them missed there,
        once, and :meth:`settle` starts the next turn as the table did (dm§3.6)."""
        if self.ending is None or flow.result is not None:
            return False
        nxt = flow.next_player(self.ending[1])
        if isinstance(line, TurnStarted):
            return line.player == nxt and line.turn == flow.turn + 1
        if line.action == "draw":
            return line.controller in (None, nxt) and nxt not in self.drawn_early
        if line.action == "start_of_turn":
            c = self.find(str(line.source or ""))
            hook = "start_of_turn" if c is not None and c.owner == nxt else \
                "start_of_opponent_turn"
            return c is not None and bool(c.card.effects(hook))
        return False

    # ------------------------------------------------------------------ win/lose
    def decked(self) -> list[str]:
        return [p for p, b in self.boards.items() if b.deck == []]

    def win_check(self, flow: CoreFlow) -> GameResult | None:
        """Direct attack (dm104.2a), library out (dm104.2b), a special win or loss by card
        text (dm104.2c): at once."""
        if self.outcome is not None:
            return self.outcome
        # Both out at once is open in the seed: the edition data says (docs/duel_masters.md).
        return deck_out(flow, self.boards, self.pol["both_decks_out"])

    def win_check_unknown(self, flow: CoreFlow) -> str | None:
        return unknown_decks(flow.players, self.boards, "deck")


    # ------------------------------------------------------------------ projection
    def board(self, flow: CoreFlow) -> dict[str, Any]:
        players = {}
        for p, b in self.boards.items():
            d = b.as_dict()
            d["field"] = [  # the battle zone, in the shape every game's board uses; a
                # creature's cards: its own, then the gears crossed to it and its auras
                {"character": c.ref, "kind": c.card.name,
                 "cards": [card_of(c.ref)] + [card_of(a.ref) for a in c.attached],
                 "state": "tapped" if c.tapped else "untapped", "size": self.power(c),
                 "entered_turn": c.entered}
                for c in b.battle
            ]
            players[p] = d
        return {"players": players, "step": self.step_name(), "mana_charged": self.charges}


def _civs_covered(cdef: CardDef, mana: list[ManaCard]) -> bool:
    """Each civilisation of the card is given by a different tapped mana card (dm§2.1)."""
    need = [c for c in cdef.civs if c != "zero"]
    if len(need) > len(mana):
        return False
    match: dict[int, str] = {}

    def assign(civ: str, seen: set[int]) -> bool:
        for i, m in enumerate(mana):
            if i in seen or not (m.card is None or civ in m.civs()):
                continue
            seen.add(i)
            if i not in match or assign(match[i], seen):
                match[i] = civ
                return True
        return False

    return all(assign(civ, set()) for civ in need)


resolves: Handlers[Callable[[Any], None]] = Handlers("resolution")
"""What resolving each action does, registered by its action id (``@resolves("summon")``):
the plan's steps of that action."""


class _Resolving:
    """One resolution carried out on a table (``rules``: a copy for a pure plan; the flow is
    only read): the plan's steps, then, in the judge, the log's claims ruled on."""

    def __init__(self, rules: DuelMastersRules, flow: CoreFlow, req: Req,
                 choices: dict[str, Any], seq: int):
        self.rules = rules
        self.flow = flow
        self.req = req
        self.seq = seq
        """The resolve line (where findings are reported)."""
        found, self.refused = choice_findings(
            req.action.name, "resolve", req.action.data.get("choices_on_resolve"), choices,
            seq)
        """A choice refused for its shape (or one the action does not take) is read as not
        recorded; the line has its finding, so the steps add none about a choice."""
        self.choices = {k: v for k, v in choices.items() if k not in self.refused}
        self.effects: list[dict[str, Any]] = []
        self.marks: list[tuple[int, str, str]] = []
        """Where each step of the plan begins in ``effects``: (index, step, reason)."""
        self.next_player: str | None = None
        """The end step closed: this player's turn starts (the flow is told on apply)."""
        self.findings: list[Finding] = found
        self.triggers: list[TriggerSpec] = []
        self.gone: dict[str, Creature] = {}
        """Creatures this resolution destroyed (to follow a log that keeps them)."""
        self.stopped = False
        """A deck reached 0 cards: the game is over, the rest of the effect is not done."""
        self.battles: list[tuple[Creature, Creature]] = []
        """The battles fought (attacker, defender), with their powers' computation."""
        self.battle_steps: list[str] = []
        self.override_notes: list[str] = []
        self.unknown_zones: set[tuple[str, str]] = set()
        """(player, zone) whose contents the header does not give, met in this resolution:
        the creatures the recorded effects move out of them are taken as played."""
        self.before: DuelMastersRules | None = None
        """The table before the resolution, where the log claims its effects: what the
        table as played is computed from when the claims differ (:mod:`.as_played`)."""
        self.unseen_aura: tuple[str, CardDef] | None = None
        """An aura that GR summons from such a zone: it is put on the creature the recorded
        effects show entering."""
        """Card over rule overrides (dm101.1) that decided part of this resolution."""

    def rep(self, code: str, rule: str, msg: str, **kw: Any) -> None:
        if self.refused and code in ("log.choice-missing", "legality.choice-invalid"):
            return  # the line's choices were refused already: one finding (choices.py)
        self.findings.append(finding(code, self.seq, rule, msg, **kw))

    def begin(self, step: str, reason: str = "") -> None:
        """The effects emitted from here on belong to ``step``."""
        self.marks.append((len(self.effects), step, reason))

    def emit(self, **effect: Any) -> None:
        self.effects.append(effect)

    def plan(self) -> DuelMastersPlan:
        """What was carried out so far, as the rules' plan."""
        marks = self.marks
        if not marks or marks[0][0] > 0:
            marks = [(0, self.req.action.id, ""), *marks]
        ends = [m[0] for m in marks[1:]] + [len(self.effects)]
        steps = [PlanStep(step, self.effects[start:end], reason)
                 for (start, step, reason), end in zip(marks, ends, strict=True)
                 if end > start or reason]
        return DuelMastersPlan(
            request=self.req.id, result="resolved", steps=steps,
            triggers=list(self.triggers), findings=list(self.findings),
            next_turn=self.next_player, work=self)

    def trigger(self, action: str, source: str, controller: str) -> None:
        self.triggers.append(TriggerSpec(action, source, controller))

    # ------------------------------------------------------------------ dispatch
    def run(self) -> None:
        aid = self.req.action.id
        handler = resolves.get(aid)
        self.begin(aid)
        if handler is not None:
            handler(self)
        if not self.stopped:
            self.begin("state_based_actions")
            self.state_based_actions()
        self.close_end_step()

    @resolves("charge_mana")
    def do_charge_mana(self) -> None:
        card = self.req.data.get("card")
        if card is None:
            return
        player = self.req.controller
        cdef = self.rules.card(card)
        ref = f"{player}:{card}"
        self.rules.boards[player].mana.append(
            ManaCard(ref, cdef, tapped=bool(cdef and cdef.multicolour)))
        self.emit(op="move", card=ref, **{"from": "hand"}, to="mana")

    @resolves("summon")
    def do_summon(self) -> None:
        card = self.req.data.get("card")
        cdef = self.rules.card(card) if card else None
        if card is None or cdef is None or not cdef.creature:
            return
        self.enter(self.req.controller, card, cdef)

    def enter(self, player: str, card: str, cdef: CardDef, source: str = "hand") -> Creature:
        ref = f"{player}:{card}"
        c = Creature(ref, player, cdef, entered=self.flow.turn, timestamp=self.rules.tick())
        self.rules.boards[player].battle.append(c)
        self.rules.state_destroyed.pop(ref, None)
        self.emit(op="move", card=ref, **{"from": source}, to="battle")
        if cdef.effects("cip"):
            self.trigger("cip", ref, player)
        return c

    def gr_summon(self, player: str) -> Creature | None:
        """GR summon: the top card of the super GR zone into the battle zone (a summon:
        summoning sickness, "when it enters"); an empty zone summons nothing (dm101.3)."""
        b = self.rules.boards[player]
        if b.super_gr is None:
            self.rep("log.hidden-info", "dm§2.1",
                     f"The header gives no super GR zone for {player} (field super_gr): the "
                     "GR summon cannot be judged: the creature the recorded effects (resolve."
                     "effects) show entering is taken as played, none without them.",
                     severity="warning")
            self.unknown_zones.add((player, "super_gr"))
            return None
        if not b.super_gr:
            self.begin("gr_summon", f"{player}'s super GR zone is empty: nothing is summoned")
            return None
        top = b.super_gr.pop(0)
        if top in b.gr_shown:
            b.gr_shown.remove(top)
        cdef = self.rules.card(top)
        if cdef is None:
            return None
        self.begin("gr_summon")
        return self.enter(player, top, cdef, "super_gr")

    def from_hyperspatial(self, player: str, effect: Effect) -> None:
        """One psychic creature of the hyperspatial zone (cost ``max_cost`` or less), chosen
        in ``choices.hyperspatial``, into the battle zone; none legal: nothing (dm101.3)."""
        if self.rules.boards[player].hyperspatial is None:
            self.rep("log.hidden-info", "dm§2.1",
                     f"The header gives no hyperspatial zone for {player} (field "
                     "hyperspatial): the psychic creature put into the battle zone cannot be "
                     "judged: the one the recorded effects (resolve.effects) show entering is "
                     "taken as played, none without them.", severity="warning")
            self.unknown_zones.add((player, "hyperspatial"))
            return
        zone = self.rules.boards[player].hyperspatial or []
        legal = self.rules.psychic_options(player, effect)
        chosen = self.choices.get("hyperspatial")
        if chosen is None:
            if legal:
                self.rep("log.choice-missing", "dm101.3",
                         f"The psychic creature chosen ({effect.describe()}) is not recorded "
                         "(choices.hyperspatial); nothing is assumed.", severity="warning")
            else:
                self.begin("hyperspatial", f"{player}'s hyperspatial zone holds no psychic "
                           "creature it may choose: nothing happens")
            return
        if not isinstance(chosen, str) or chosen not in legal:
            there = isinstance(chosen, str) and chosen.startswith(f"{player}:") and \
                card_of(chosen) in zone
            why = "names no card" if not isinstance(chosen, str) else (
                f"costs more than {effect.max_power}" if there else
                f"is not in {player}'s hyperspatial zone")
            # A cost over the card's limit breaks the card's text (dm101.1); a card that
            # is not there, the zone (dm§2.1).
            self.rep("legality.choice-invalid", "dm101.1" if there else "dm§2.1",
                     f"choices.hyperspatial: {chosen!r} {why} ({effect.describe()}).",
                     expected=legal or None, actual=chosen)
            if not there:
                return  # the card is in the zone: it entered as played
        assert isinstance(chosen, str)
        name = card_of(chosen)
        zone.remove(name)
        cdef = self.rules.card(name)
        assert cdef is not None
        self.enter(player, name, cdef, "hyperspatial")

    @resolves("generate")
    def do_generate(self) -> None:
        """dm§3.4: the cross gear from the hand into the battle zone, crossed to nothing."""
        card = self.req.data.get("card")
        cdef = self.rules.card(card) if card else None
        if card is None or cdef is None or cdef.type != "cross_gear":
            return
        ref = f"{self.req.controller}:{card}"
        self.rules.boards[self.req.controller].gears.append(Gear(ref, cdef))
        self.emit(op="move", card=ref, **{"from": "hand"}, to="battle")

    @resolves("cross")
    def do_cross(self) -> None:
        """dm§3.4: the gear is crossed to the creature (and to no other); what it gives is
        the creature's while it stays crossed. A gear or creature that has left: nothing."""
        gear = self.rules.gear(self.req.key_cards[0]) if self.req.key_cards else None
        c = self.rules.find(self.req.targets[0]) if len(self.req.targets) == 1 else None
        if gear is None or c is None or c.owner != self.req.controller:
            return
        self.rules.cross(gear, c)
        self.emit(op="cross", card=gear.ref, creature=c.ref)

    @resolves("aura")
    def do_aura(self) -> None:
        """An aura is put on one of its user's creatures (an aura that GR summons: on the
        creature it summons); with no creature to be on, it goes to the graveyard
        (dm101.3)."""
        card = self.req.data.get("card")
        cdef = self.rules.card(card) if card else None
        if card is None or cdef is None or cdef.type != "aura":
            return
        player = self.req.controller
        ref = f"{player}:{card}"
        c: Creature | None = None
        if cdef.gr_summon:
            c = self.gr_summon(player)
        elif len(self.req.targets) == 1:
            c = self.rules.find(self.req.targets[0])
        if c is None and (player, "super_gr") in self.unknown_zones:
            self.unseen_aura = (ref, cdef)  # on the creature the recorded effects show
        if c is None or c.owner != player:
            self.rules.boards[player].graveyard.append(card)
            self.begin("aura", f"{cdef.name} has no creature to be put on")
            self.emit(op="move", card=ref, **{"from": "hand"}, to="graveyard")
            return
        self.begin("aura")
        c.attached.append(Attachment(ref, cdef))
        self.emit(op="attach", card=ref, creature=c.ref)

    @resolves("cast")
    def do_cast(self) -> None:
        card = self.req.data.get("card")
        cdef = self.rules.card(card) if card else None
        if card is None or cdef is None:
            return
        targets = list(self.req.targets) or self._chosen_targets()
        self.run_effects(self.req.controller, cdef, "spell", targets,
                         at_request=bool(self.req.targets))
        self._spell_to_graveyard(self.req.controller, card)

    def _spell_to_graveyard(self, player: str, card: str) -> None:
        if self.stopped:
            return
        self.rules.boards[player].graveyard.append(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "hand"}, to="graveyard")

    @resolves("attack")
    def do_attack(self) -> None:
        if not self.req.key_cards or len(self.req.targets) != 1:
            return
        ref = self.req.key_cards[0]
        c = self.rules.find(ref)
        if c is None:
            return
        c.tapped = True
        self.emit(op="tap", card=ref)
        target = self.req.targets[0]
        self.rules.attacks[self.req.id] = Attack(ref, target, self.req.controller)
        if c.card.effects("on_attack"):
            self.trigger("on_attack", ref, c.owner)
        self.trigger("block", self.req.id, self.req.controller)

    @resolves("draw")
    def do_draw(self) -> None:
        if self.rules.ending is not None:
            self.rules.drawn_early.add(self.req.controller)
        self.rules.step = max(self.rules.step, self.rules.steps.index("draw"))
        skip = self.rules.draw_skipped_by(self.req.controller)
        if skip is not None:
            o = self.rules.override(skip, "draw")
            assert o is not None
            self.override_notes.append(f"no draw: {o.names(skip.giver(o.keyword))}")
            self.begin("draw", self.override_notes[-1])
            return
        self.draw(self.req.controller, 1)

    @resolves("end_turn")
    def do_end_turn(self) -> None:
        """The end step opens (dm§3.6): "at the end of the turn" abilities trigger and wait
        (the active player's own-turn ones, the other's opponent-turn ones). The step closes
        once nothing is pending (:meth:`close_end_step`)."""
        rules = self.rules
        player = self.req.controller
        rules.ending = (self.req.id, player)
        rules.effects_ended = False
        for c in self.in_turn_order(player):
            hook = "end_of_turn" if c.owner == player else "end_of_opponent_turn"
            if c.card.effects(hook):
                self.trigger("end_of_turn", c.ref, c.owner)

    def in_turn_order(self, player: str) -> list[Creature]:
        """The creatures in the battle zone, ``player``'s first."""
        order = [player] + [p for p in self.flow.players if p != player]
        return [c for p in order for c in self.rules.boards[p].battle]

    def close_end_step(self) -> None:
        """dm§3.6: once nothing is pending in the end step, "until end of turn" effects end;
        that step change is followed by the state-based actions (dm703), whose "when
        destroyed" abilities wait in the end step too; then the next turn starts."""
        rules = self.rules
        if rules.ending is None or self.stopped or self.triggers or self.pending_elsewhere():
            return
        if not rules.effects_ended:
            rules.effects_ended = True
            rules.end_turn_effects(self.flow.turn)
            self.begin("end_step", "\"until end of turn\" effects end; the state-based "
                       "actions follow the step change")
            self.state_based_actions()
            if self.triggers:
                return
        self.next_turn()

    def pending_elsewhere(self) -> bool:
        """A request other than the one resolving waits in the buffer (the flow takes the
        resolving one out before it asks the rules; a plan is asked for before that)."""
        return any(q is not self.req for q in self.flow.buffer)

    def next_turn(self) -> None:
        """The next player's turn: the start step (dm§3.1) untaps their mana and creatures;
        "at the start of the turn" abilities trigger and wait; the draw step waits after
        them (a procedure)."""
        rules = self.rules
        flow = self.flow
        assert rules.ending is not None
        source, player = rules.ending
        rules.ending = None
        rules.effects_ended = False
        rules.attacks.clear()
        nxt = flow.next_player(player)
        self.next_player = nxt  # the flow starts the turn when the plan is applied
        self.begin("start_step")
        rules.step = 0
        rules.charges = 0
        self.emit(op="turn", player=nxt)
        if any(m.until == "start_of_your_next_turn" and m.controller == nxt
               for m in rules.modifiers):
            rules.end_mods(flow.turn + 1, f"at the start of {nxt}'s turn {flow.turn + 1}",
                       lambda m: m.until == "start_of_your_next_turn" and m.controller == nxt)
            self.state_based_actions()  # a step change (dm703) where a power went down
        b = rules.boards[nxt]
        for m in b.mana:
            m.tapped = False
        for c in b.battle:
            c.tapped = False
        self.emit(op="untap", player=nxt)
        for c in self.in_turn_order(nxt):
            hook = "start_of_turn" if c.owner == nxt else "start_of_opponent_turn"
            if c.card.effects(hook):
                self.trigger("start_of_turn", c.ref, c.owner)
        if nxt not in rules.drawn_early:
            self.trigger("draw", source, nxt)
        rules.drawn_early.clear()

    # ------------------------------------------------------------------ the attack
    @resolves("block")
    def do_block(self) -> None:
        rules = self.rules
        attack = rules.attacks.get(str(self.req.source))
        if attack is None:
            return
        attacker = rules.find(attack.attacker)
        if attacker is None:
            return  # the attacker left the battle zone: the attack ends
        target = attack.target
        defender_player = target if target in self.flow.players else \
            (split_ref(target) or (target,))[0]
        blocker = self._blocker(defender_player, attacker)
        if blocker is not None:
            blocker.tapped = True
            self.emit(op="block", card=blocker.ref, attacker=attacker.ref)
            self.battle(attacker, blocker)
            return
        if target not in self.flow.players:
            defender = rules.find(target)
            if defender is None:
                return
            self.battle(attacker, defender)
            return
        shields = rules.boards[target].shields
        if shields is not None and not shields:
            rules.outcome = GameResult("win", attacker.owner, "direct_attack")
            self.emit(op="direct_attack", player=target, card=attacker.ref)
            return
        self.break_shields(attacker, target)

    def _blocker(self, defender: str, attacker: Creature) -> Creature | None:
        ref = self.choices.get("blocker")
        if ref is None:
            return None
        c = self.rules.find(ref)
        if c is None and ref in self.rules.state_destroyed:
            self.rep("order.state-check-missed", "dm703",
                     f"{ref} {self.rules.sba_words(self.rules.state_destroyed[ref][1])} and was "
                     "destroyed by a state-based action after line "
                     f"{self.rules.state_destroyed[ref][0]}; it blocks as if it were "
                     "still in the battle zone.", expected="destroyed", actual="blocks")
            self.rules._restore_if_kept(ref)
            return self.rules.find(ref)
        if c is None or c.owner != defender:
            self.rep("legality.choice-invalid", "dm§3.5",
                     f"{ref} is not a creature of {defender} in the battle zone.", actual=ref)
            return None
        rules = self.rules
        tapped = c.tapped and rules.override(c, "block_tapped") is None
        abilities = rules.block_abilities(c, attacker)
        can = [a.source for a in abilities if a.allow]
        cannot = [a.source for a in abilities if not a.allow]
        if tapped or not c.has("blocker"):
            why = "is tapped" if tapped else "has no blocker"
            also = f" (and {'; '.join(cannot)})" if cannot else ""
            self.rep("legality.choice-invalid", "dm§3.5",
                     f"{ref} {why}: only an untapped creature with blocker can block{also}.",
                     actual=ref)
        elif not rules.permissions.decide(False, abilities):
            self.rep("precedence.prohibition-over-permission", "dm101.2",
                     f"{ref} blocked {attacker.ref} under both a 'can' and a 'cannot': the "
                     "'cannot' wins whatever the scopes, and card text is over the rules "
                     "(dm101.1) ('" + "'; '".join(cannot) + "' over '" + "'; '".join(can)
                     + "').", expected="no block", actual="blocked")
        return c  # reported or not, the block happened as recorded

    def battle(self, attacker: Creature, defender: Creature) -> None:
        """Higher power wins, the loser is destroyed; equal power destroys both (dm115.3b)."""
        attacking, defending = (self.rules.power_of(attacker, attacking=True),
                                self.rules.power_of(defender))
        pa, pd = attacking.value, defending.value
        self.battles.append((attacker, defender))
        self.battle_steps = [self.rules.power_steps(attacker, attacking),
                             self.rules.power_steps(defender, defending)]
        self.begin("battle", "; ".join(self.battle_steps))
        self.emit(op="battle", attacker=attacker.ref, defender=defender.ref,
                  powers=[pa, pd])
        losers = [c for c, lose in ((attacker, pa <= pd), (defender, pd <= pa)) if lose]
        for c in losers:
            self.destroy(c, "battle")

    def break_shields(self, attacker: Creature, player: str) -> None:
        b = self.rules.boards[player]
        shields = b.shields if b.shields is not None else []
        n = self.rules.shields_broken(attacker, player)
        named = self.choices.get("shields")
        picked: list[int] = []
        if named is None:
            if n < len(shields):
                self.rep("log.choice-missing", "dm§3.5",
                         "The shields broken are not recorded (choices.shields); the first "
                         f"{n} are assumed.", severity="warning")
            picked = list(range(n))
        elif not isinstance(named, list) or len(named) != n:
            self.rep("legality.choice-invalid", "dm§3.5",
                     f"{attacker.ref} breaks {n} shield(s).", expected=n,
                     actual=len(named) if isinstance(named, list) else named)
            picked = list(range(n))
        else:
            for k, ref in enumerate(named):
                if self.rules.names_no_card(str(ref)):
                    self.rep("log.unknown-ref", "log", f"choices.shields[{k}]: {ref!r} names "
                             "no card of the header's cards.", actual=ref)
                    i = next(j for j in range(len(shields)) if j not in picked)
                else:
                    found = self._shield_index(b, player, str(ref), picked)
                    if found is None:
                        self.rep("legality.choice-invalid", "dm§3.5",
                                 f"{ref} is not one of {player}'s shields.", actual=ref)
                    i = found if found is not None else \
                        next(j for j in range(len(shields)) if j not in picked)
                picked.append(i)
        broken: list[str] = []
        for i in picked:
            face = shields[i]
            if face == UNKNOWN and isinstance(named, list) and len(named) == n:
                shown = card_of(str(named[picked.index(i)]))
                face = shown if shown and not self.rules.names_no_card(shown) else UNKNOWN
            broken.append(face)
        for i in sorted(picked, reverse=True):
            del shields[i]
        refs = [f"{player}:{face}" for face in broken]
        self.emit(op="break", player=player, cards=refs)
        for face, ref in zip(broken, refs, strict=True):
            b.add_to_hand(face)
            cdef = self.rules.card(face) if face != UNKNOWN else None
            if cdef is not None and cdef.has("s_trigger"):
                self.trigger("s_trigger", ref, player)
            if cdef is not None and cdef.has("g_strike"):
                self.trigger("g_strike", ref, player)
        if attacker.card.effects("on_break") and broken:
            self.trigger("on_break", attacker.ref, attacker.owner)

    def _shield_index(self, b: Board, player: str, ref: str, taken: list[int]) -> int | None:
        parts = split_ref(ref)
        shields = b.shields or []
        if parts is None or parts[0] != player:
            return None
        face = parts[1]
        for i, s in enumerate(shields):
            if i not in taken and s == face:
                return i
        for i, s in enumerate(shields):
            if i not in taken and (s == UNKNOWN or face == UNKNOWN):
                return i
        return None

    # ------------------------------------------------------------------ abilities
    def _chosen_targets(self) -> list[str] | None:
        """``choices.targets``: the creatures chosen while resolving; None where the log
        does not record them (left out), [] where it records that none was chosen."""
        t = self.choices.get("targets")
        if t is None:
            return None
        if isinstance(t, str):
            return [t]
        return [str(x) for x in t] if isinstance(t, list) else []

    @resolves("cip")
    @resolves("on_attack")
    @resolves("on_break")
    @resolves("on_destroy")
    @resolves("start_of_turn")
    @resolves("end_of_turn")
    def do_ability(self) -> None:
        """A triggered ability resolves: its card's text of the hook its action names
        (:meth:`DuelMastersRules.ability_hook`)."""
        src = str(self.req.source or "")
        card = card_of(src)
        cdef = self.rules.card(card)
        hook = self.rules.ability_hook(self.flow, self.req)
        if cdef is None or hook is None:
            return
        self.run_effects(self.req.controller, cdef, hook, self._chosen_targets())

    @resolves("s_trigger")
    def do_s_trigger(self) -> None:
        """The shield's owner may use it for free: summon the creature or cast the spell."""
        player = self.req.controller
        card = card_of(str(self.req.source or ""))
        cdef = self.rules.card(card)
        use = self.choices.get("use")
        if use is None:
            self.rep("log.choice-missing", "dm§3.5", "Whether the S-Trigger was used is not "
                     "recorded (choices.use); not used is assumed.", severity="warning")
        if not use or cdef is None:
            return
        b = self.rules.boards[player]
        if not b.take_from_hand(card):
            self.rep("legality.choice-invalid", "dm§3.5",
                     f"{card} is no longer in {player}'s hand.", actual=card)
        if cdef.creature:
            if self.rules.find(f"{player}:{card}") is None:
                self.enter(player, card, cdef)
            return
        self.run_effects(player, cdef, "spell", self._chosen_targets())
        self._spell_to_graveyard(player, card)

    @resolves("g_strike")
    def do_g_strike(self) -> None:
        """Reveal it and choose one of the opponent's creatures: it cannot attack this turn."""
        player = self.req.controller
        use = self.choices.get("use")
        if use is None:
            self.rep("log.choice-missing", "dm§3.5", "Whether the G-Strike was used is not "
                     "recorded (choices.use); not used is assumed.", severity="warning")
        if not use:
            return
        targets = self._chosen_targets()
        legal = [c.ref for c in self.rules.creatures() if c.owner != player]
        if not targets:
            if legal and targets is None:
                self.rep("log.choice-missing", "dm§3.5",
                         "The creature the G-Strike chose is not recorded.", severity="warning")
            elif legal:
                self.rep("legality.choice-invalid", "dm101.3",
                         "The G-Strike chose no creature, while one of the opponent's could "
                         f"be chosen ({', '.join(legal)}).", expected=legal, actual=[])
            return
        ref = targets[0]
        if ref not in legal:
            self.rep("legality.choice-invalid", "dm§3.5",
                     f"{ref} is not a creature of {player}'s opponent.", actual=ref)
            return
        self.rules.bans.append(Ban(ref, self.rules.tick(), str(self.req.source)))
        self.emit(op="no_attack", card=ref, until="end_of_turn")

    def run_effects(self, controller: str, cdef: CardDef, hook: str,
                    targets: list[str] | None, at_request: bool = False) -> None:
        """Carry out an ability's effects in order, as far as possible (dm101.3)."""
        for effect in cdef.effects(hook):
            if self.stopped:
                return
            if effect.targeted:
                self.targeted(controller, effect, targets, at_request)
            elif effect.kind in GAME_ENDS:
                self.game_end(controller, cdef, effect)
            elif effect.kind == "gr_summon":
                for _ in range(effect.amount):
                    self.gr_summon(controller)
            elif effect.kind == "hyperspatial":
                self.from_hyperspatial(controller, effect)
            elif effect.kind == "draw":
                self.draw(controller, effect.amount)
            else:
                self.from_deck(controller, effect.kind, effect.amount)

    def game_end(self, controller: str, cdef: CardDef, effect: Effect) -> None:
        """dm104.2c: a special win or loss by card text, at once like every game end
        (dm104.1): each player the effect names who meets its condition wins (or loses).
        The game ends there, and the rest of the effect is not carried out. Players who
        all win, or all lose, at the same moment: a draw (docs/decisions.md)."""
        rules = self.rules
        players = list(self.flow.players)
        other = [p for p in players if p != controller]
        named = {"you": [controller], "opponent": other, "each": players}[effect.who]
        meets: list[str] = []
        why: list[str] = []
        for p in named:
            ok, how = self._meets(p, effect)
            why.append(how)
            if ok:
                meets.append(p)
        self.begin(effect.kind, f"{cdef.name}: {effect.describe()}: " + "; ".join(why))
        if not meets:
            return
        for p in meets:
            self.emit(op=effect.kind, player=p, card=cdef.id)
        winners = meets if effect.kind == "win" else [p for p in players if p not in meets]
        reason = "special_win" if effect.kind == "win" else "special_loss"  # dm104.2c
        if len(winners) == 1:
            rules.outcome = GameResult("win", winners[0], reason)
        else:  # every player won, or lost, at once
            rules.outcome = GameResult("draw", None, reason)
        self.stopped = True

    def _meets(self, player: str, effect: Effect) -> tuple[bool, str]:
        """Whether ``player`` meets the effect's condition, and how it was judged."""
        if effect.condition is None:
            return True, f"{player}: no condition"
        what, n = effect.condition
        b = self.rules.boards[player]
        if what == "min_creatures":
            have = len(b.battle)
            return have >= n, f"{player} has {have} creature(s), {n} or more needed"
        shields = len(b.shields) if b.shields is not None else 0
        return shields <= n, f"{player} has {shields} shield(s), {n} or fewer needed"

    def targeted(self, controller: str, effect: Effect, targets: list[str] | None,
                 at_request: bool) -> None:
        """A targeted effect on the creature chosen (``targets``: None when the log does
        not record the choice, [] when it records none chosen). The creature must meet
        the card's condition (its text: dm101.1); none may be chosen only where none
        meets it (the effect does as much as it can: dm101.3)."""
        legal = self.rules.legal_targets(controller, effect)
        if not targets:
            if legal and targets is None:
                self.rep("log.choice-missing", "dm101.3",
                         f"The creature chosen ({effect.describe()}) is not recorded "
                         "(choices.targets); nothing is assumed.", severity="warning")
            elif legal:
                self.rep("legality.choice-invalid", "dm101.3",
                         f"None was chosen ({effect.describe()}), while "
                         f"{', '.join(legal)} could be: the effect does as much as it can.",
                         expected=legal, actual=[])
            return
        ref = targets[0]
        why = self.rules.target_problem(controller, effect, ref)
        if why is not None:
            if not at_request:  # a request's targets were checked when it was made
                self.rep("legality.choice-invalid", "dm101.1",
                         f"{why} ({effect.describe()}): the card's text decides what it may "
                         "choose.", actual=ref)
            c = self.rules.find(ref)
            if c is None or (effect.kind != "power" and c.owner == controller):
                return
        c = self.rules.find(ref)
        if c is None:
            return
        if effect.kind == "destroy":
            self.destroy(c, "effect")
        elif effect.kind == "bounce":
            self.leave(c)
            b = self.rules.boards[c.owner]
            to = b.put_back(c.card, card_of(c.ref), "hand")
            if to == "hand":
                b.add_to_hand(card_of(c.ref))
            self.emit(op="move", card=c.ref, **{"from": "battle"}, to=to)
        elif effect.kind == "tap":
            c.tapped = True
            self.emit(op="tap", card=c.ref)
        elif effect.kind == "power":
            source = None
            if effect.until == "while_in_battle_zone":
                src = self.rules.find(str(self.req.source or ""))
                if src is None:
                    self.begin("power", f"{self.req.source} is no longer in the battle zone: "
                               f"a change {duration_words(effect.until)} does not start")
                    return
                source = (src.ref, src.timestamp)
            self.rules.modifiers.append(PowerMod(c.ref, effect.amount, self.rules.tick(),
                                             holder=c.timestamp, seq=self.seq,
                                             until=effect.until, controller=controller,
                                             source=source))
            self.emit(op="power", card=c.ref, delta=effect.amount, until=effect.until)

    # ------------------------------------------------------------------ primitives
    def check_deck_out(self) -> None:
        """dm104.2b: a deck at 0 cards ends the game at once, even mid-effect."""
        if self.rules.decked():
            self.stopped = True

    def draw(self, player: str, n: int) -> None:
        b = self.rules.boards[player]
        cards: list[str] = []
        for _ in range(n):
            top = b.pop_deck()
            if top is None:
                break
            b.add_to_hand(top)
            cards.append(f"{player}:{top}")
            if b.deck == []:
                break
        self.emit(op="draw", player=player, cards=cards)
        self.check_deck_out()

    def from_deck(self, player: str, zone: str, n: int) -> None:
        """The top ``n`` cards of the deck to the mana zone or the shield zone."""
        b = self.rules.boards[player]
        for _ in range(n):
            top = b.pop_deck()
            if top is None:
                break
            ref = f"{player}:{top}"
            if zone == "mana":
                cdef = self.rules.card(top) if top != UNKNOWN else None
                b.mana.append(ManaCard(ref, cdef, tapped=bool(cdef and cdef.multicolour)))
            else:
                if b.shields is not None:
                    b.shields.append(top)
            self.emit(op="move", card=ref, **{"from": "deck"},
                      to="mana" if zone == "mana" else "shield")
            if b.deck == []:
                break
        self.check_deck_out()

    def leave(self, c: Creature) -> None:
        """Out of the battle zone: its power changes end; a gear crossed to it stays in the
        battle zone, crossed to nothing; an aura on it goes to the graveyard
        (docs/decisions.md section 7)."""
        b = self.rules.boards[c.owner]
        if c in b.battle:
            b.battle.remove(c)
        for a in c.attached:
            if a.aura:
                b.graveyard.append(card_of(a.ref))
                self.emit(op="move", card=a.ref, **{"from": "battle"}, to="graveyard")
            elif (g := b.gear(a.ref)) is not None and g.crossed == c.ref:
                g.crossed = None
                self.emit(op="uncross", card=a.ref, creature=c.ref)
        self.rules.modifiers = [m for m in self.rules.modifiers if m.creature != c.ref]
        self.rules.end_mods(self.flow.turn, f"when {c.ref} left the battle zone (line {self.seq})",
                        lambda m: m.source == (c.ref, c.timestamp))
        self.rules.bans = [x for x in self.rules.bans if x.creature != c.ref]

    def destroy(self, c: Creature, reason: str) -> None:
        """Destroyed: to the graveyard, and its "when destroyed" ability triggers — unless a
        replacement effect (dm101.5) rewrites the event: it goes elsewhere instead, is not
        destroyed, and nothing waits."""
        if c not in self.rules.boards[c.owner].battle:
            return
        self.leave(c)
        b = self.rules.boards[c.owner]
        card = card_of(c.ref)
        instead = c.card.instead_of_destroy
        if instead is not None:
            to = b.put_back(c.card, card, instead)
            if to == "hand":
                b.add_to_hand(card)
            elif to == "mana":
                b.mana.append(ManaCard(c.ref, c.card, tapped=c.card.multicolour))
            elif to == "shield" and b.shields is not None:
                b.shields.append(card)
            self.emit(op="move", card=c.ref, **{"from": "battle"}, to=to,
                      instead_of="destroy")
            return
        to = b.put_back(c.card, card, "graveyard")
        if to == "graveyard":
            b.graveyard.append(card)
        self.gone[c.ref] = c
        if to == "graveyard":
            self.emit(op="destroy", card=c.ref, reason=reason)
        else:  # a psychic or GR creature is destroyed, and its card goes back to its zone
            self.emit(op="destroy", card=c.ref, reason=reason, to=to)
        if reason == "state":
            self.rules.state_destroyed[c.ref] = (self.seq, c)
        if c.card.effects("on_destroy"):
            self.trigger("on_destroy", c.ref, c.owner)

    def state_based_actions(self) -> None:
        """dm703: every creature with power 0 or less is destroyed, and every GR creature
        with no aura on it (the seed's rule, dm§4.3)."""
        for c in list(self.rules.creatures()):
            if not c.sba_exempt and self.rules.sba_due(c):
                self.destroy(c, "state")

    # ------------------------------------------------------------------ the log's claims
    def rule_on_claims(self, planned: list[dict[str, Any]],
                       claimed: list[dict[str, Any]]) -> None:
        """Compare the effects the log claims with the planned ones (one matcher,
        :func:`~adjudicator.claims.compare`), report the departure, and follow the game as
        played for creatures leaving or staying in the battle zone."""
        if self.unknown_zones and self._enter_from_unknown_zones(claimed):
            planned = list(self.effects)
        diff = compare(planned, claimed)
        if not diff:
            return
        unmatched, extra = diff.unmatched, diff.extra
        if self._value_mismatch(unmatched, extra):
            self._follow_the_log(unmatched, extra)
            return
        kept_by_table = [o for o in unmatched if o["op"] == "destroy"
                         and o.get("reason") == "state"]
        for o in kept_by_table:
            ref = str(o["card"])
            gone = self.gone.get(ref)
            why = self.rules.sba_words(gone).replace("was", "is").replace("had", "has") \
                if gone is not None else "has power 0 or less"
            self.rep("order.state-check-missed", "dm703",
                     f"{ref} {why}: a state-based action destroys it, and the "
                     "recorded effects keep it in the battle zone.",
                     expected=o, actual="kept in the battle zone")
            self._undo_destroy(ref)
            unmatched.remove(o)
        if unmatched and not extra and self._deck_may_have_run_out(unmatched[0]):
            self.rep("log.hidden-info", "dm104.2b",
                     "The recorded effects stop short; the deck count is not known from the "
                     "log, and a deck that reached 0 cards would end the game mid-effect.",
                     severity="warning", expected=unmatched)
        elif extra or unmatched:
            why = f" Card over rule (dm101.1): {'; '.join(self.override_notes)}." \
                if self.override_notes else ""
            self.rep("legality.effect-mismatch", self._mismatch_rule(unmatched, extra),
                     f"The recorded effects of {self.req.action.name} differ from the "
                     f"rules'.{why}", expected=unmatched or None, actual=extra or None)
        self._follow_the_log(unmatched, extra)

    #: The rule a resolution of each direct action or procedure carries out.
    _PROCEDURE_RULES = {"draw": "dm§3.2", "charge_mana": "dm§3.3", "summon": "dm§3.4",
                        "cast": "dm§3.4", "generate": "dm§3.4", "aura": "dm§3.4",
                        "cross": "dm§3.4", "attack": "dm§3.5", "block": "dm§3.5",
                        "end_turn": "dm§3.6"}

    def _mismatch_rule(self, unmatched: list[dict[str, Any]],
                       extra: list[dict[str, Any]]) -> str:
        """The rule recorded effects that differ from the rules' break: a card over rule
        keyword that decided (dm101.1); a battle, block or shield break (dm§3.5); effects
        the table left out, the rest done (as much as it can: dm101.3); else the rule the
        resolution carries out (the step of a procedure, or a card's text: dm101.1)."""
        if self.override_notes:
            return "dm101.1"
        both = unmatched + extra
        if any(e.get("op") in ("battle", "block", "break", "direct_attack")
               or e.get("reason") == "battle" for e in both):
            return "dm§3.5"
        if unmatched and not extra:
            return "dm101.3"
        return self._PROCEDURE_RULES.get(self.req.action.id, "dm101.1")

    def _enter_from_unknown_zones(self, claimed: list[dict[str, Any]]) -> bool:
        """Creatures the recorded effects move into the battle zone from a zone the header
        does not give (warned about already): taken as played, an aura that GR summoned put
        on its creature, then the state-based actions. True if one entered."""
        entered = False
        for t in claimed:
            ref, source = t.get("card"), t.get("from")
            parts = split_ref(ref) if isinstance(ref, str) else None
            if t.get("op") != "move" or t.get("to") != "battle" or parts is None or \
                    (parts[0], source) not in self.unknown_zones:
                continue
            cdef = self.rules.card(parts[1])
            if cdef is None or not cdef.creature or cdef.zone != source or \
                    self.rules.find(str(ref)) is not None:
                continue
            c = self.enter(parts[0], parts[1], cdef, str(source))
            entered = True
            if self.unseen_aura is not None and source == "super_gr":
                aura, adef = self.unseen_aura
                self.unseen_aura = None
                self.effects = [e for e in self.effects if e.get("card") != aura]
                self.rules.boards[parts[0]].take_back(card_of(aura))
                c.attached.append(Attachment(aura, adef))
                self.emit(op="attach", card=aura, creature=c.ref)
        if entered:
            self.state_based_actions()
        return entered

    def _value_mismatch(self, unmatched: list[dict[str, Any]],
                        extra: list[dict[str, Any]]) -> bool:
        """A claimed battle whose powers are not the computed ones (every change in force,
        and none that has ended): ``precedence.value-mismatch``, the most specific finding
        (the resolution gets no other; the judge follows the log for what left the battle
        zone). An "until end of turn" change kept after its end step is named."""
        ours = next((o for o in unmatched if o["op"] == "battle"), None)
        if ours is None or not self.battles:
            return False
        theirs = next((t for t in extra if t.get("op") == "battle"
                       and t.get("attacker", ours["attacker"]) == ours["attacker"]
                       and t.get("defender", ours["defender"]) == ours["defender"]
                       and isinstance(t.get("powers"), list) and len(t["powers"]) == 2
                       and t["powers"] != ours["powers"]), None)
        if theirs is None:
            return False
        kept: list[str] = []
        explained = True
        rules: set[str] = set()
        for c, want, got in zip(self.battles[-1], ours["powers"], theirs["powers"],
                                strict=True):
            if not isinstance(got, int) or got == want:
                continue
            ended = self.rules.expired_on(c)
            by_turn: dict[int, list[PowerMod]] = {}
            for m in ended:
                by_turn.setdefault(m.ended or 0, []).append(m)
            fits = [m for m in ended if m.delta == got - want] or next(
                (ms for ms in by_turn.values() if sum(m.delta for m in ms) == got - want), [])
            if not fits:
                explained = False
            rules |= {m.rule for m in fits}
            kept += [f"the {m.delta:+d} of {c.ref} (line {m.seq}, {m.words()}) ended {m.end}"
                     for m in ended]
        why = f" Kept after its end: {'; '.join(kept)}." if kept else ""
        rule = "dm§3.5"
        if kept and explained:
            rule = "dm§3.6" if rules == {"dm§3.6"} else "dm101.1"
        self.rep("precedence.value-mismatch", rule,
                 "The recorded battle powers are not the creatures' powers with every change "
                 f"in force: {'; '.join(self.battle_steps)}.{why}",
                 expected=ours["powers"], actual=theirs["powers"])
        return True

    def _deck_may_have_run_out(self, first_missing: dict[str, Any]) -> bool:
        """Before ``first_missing``, this resolution took cards from a deck whose count the
        log does not show."""
        for e in self.effects:
            if e is first_missing:
                return False
            took = e["op"] == "draw" or (e["op"] == "move" and e.get("from") == "deck")
            owner = str(e.get("player") or (split_ref(str(e.get("card", ""))) or ("",))[0])
            if took and owner in self.rules.boards and self.rules.boards[owner].deck is None:
                return True
        return False

    def _undo_destroy(self, ref: str) -> None:
        """The table kept the creature: follow the game as played."""
        gone = self.gone.pop(ref, None)
        if gone is None:
            return
        c = gone
        if self.rules.state_destroyed.get(ref, (0, None))[1] is c:
            del self.rules.state_destroyed[ref]
            c.sba_exempt = True
        self.rules.put_back_in_play(c)
        self.triggers = [t for t in self.triggers
                         if not (t.action == "on_destroy" and t.source == ref)]

    def _follow_the_log(self, unmatched: list[dict[str, Any]],
                        extra: list[dict[str, Any]]) -> None:
        """The table did otherwise than the rules say: the table becomes what the recorded
        effects say, for every op (:mod:`.as_played`; docs/decisions.md §1)."""
        if self.before is not None:
            AsPlayed(self, self.before).follow(unmatched, extra)


def rules_factory(header: MatchStarted, edition: str) -> DuelMastersRules:
    """The judge's factory (judge.GAMES): the edition, the format and the header's cards."""
    try:
        rules = DuelMastersRules(edition, header.format, header.cards)
    except CardListError as exc:
        raise UnsupportedRules(str(exc), field=exc.field) from exc
    rules.read_zones(header)
    return rules
