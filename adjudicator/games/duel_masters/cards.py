"""Duel Masters card definitions, read from the match header's ``cards``.

Card texts are not in the rules: a card is defined by its keywords and numbers, so that any
card of those kinds can be judged. ``cards`` is an object from definition id to definition
(or a list of definitions, each with an ``id``)::

    "bolshack": {"name": "Bolshack Dragon", "type": "creature", "civ": "fire", "cost": 6,
                 "power": 6000, "breaker": 2, "power_attacker": 1000}

A physical card is named ``<definition id>#<copy>`` (``bolshack#2``) or by the definition
id alone when the deck holds one copy; a card reference in the log is ``<owner>:<card>``
(``alice:bolshack#2``), ``<owner>:?`` for a face the log does not show.

Fields: ``name``; ``type`` creature | spell; ``civ`` one civilisation or a list
(multicolour); ``cost``; ``power`` (creatures); ``breaker`` (shields broken, 1 by default);
``power_attacker`` (+power while attacking); ``opponent_power`` (a static ability: the
opponent's creatures get ±n power while this creature is in the battle zone); flags
``blocker``, ``speed_attacker``, ``s_trigger``, ``g_strike``, ``cannot_attack``,
``lock_new_attackers`` and the edition's card over rule keywords (``unblockable``,
``block_while_tapped``, ``attack_untapped``, ``skip_draw``: ``overrides`` in the edition
data, dm101.1); the replacement ``instead_of_destroy`` (hand | mana | shield);
abilities ``cip``, ``on_attack``, ``on_break``, ``on_destroy``, the turn abilities
``start_of_turn`` / ``end_of_turn`` ("at the start / end of your turn") and
``start_of_opponent_turn`` / ``end_of_opponent_turn`` ("at the start / end of each of your
opponent's turns"), and a spell's ``spell``: each a list of effects, one key each:
``{"draw": n}``, ``{"mana": n}``, ``{"shield": n}``, ``{"destroy": {"max_power": n}}``,
``{"bounce": {"max_power": n}}``, ``{"tap": 1}``, ``{"power": ±n}`` (or ``{"power": {"amount": ±n,
"until": ...}}``, :data:`DURATIONS`), and the special wins and
losses ``{"win": ...}``, ``{"lose": ...}`` (:data:`GAME_ENDS`), and the moves from the
extra zones ``{"gr_summon": n}``, ``{"hyperspatial": {"max_cost": n}}`` (:data:`ZONE_MOVES`).
At most one effect of an ability targets (destroy, bounce, tap, power).

The extra zones (dm§2.1): a creature with ``"zone": "hyperspatial"`` (a psychic creature)
starts in its owner's hyperspatial zone, one with ``"zone": "super_gr"`` (a GR creature) in
the super GR zone (the header's ``hyperspatial`` / ``super_gr``); neither is ever in a deck.
Two more card types are put on creatures: ``cross_gear`` (generated into the battle zone,
then crossed to a creature for ``cross_cost``, dm§3.4) and ``aura`` (put on a creature;
``"gr_summon": true``: it GR summons and is put on that creature). What they give the
creature they are on is ``gives``: ``{"power": n, "breaker": n, <flag>: true}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "?"
CIVS = ("light", "water", "darkness", "fire", "nature", "zero")
FLAGS = ("blocker", "speed_attacker", "s_trigger", "g_strike", "cannot_attack",
         "lock_new_attackers")
TURN_HOOKS = ("start_of_turn", "start_of_opponent_turn", "end_of_turn", "end_of_opponent_turn")
"""Creature abilities that trigger at the start step or the end step (dm§3.1, dm§3.6): of
the controller's own turn, or of each of the opponent's turns."""
HOOKS = ("cip", "on_attack", "on_break", "on_destroy", *TURN_HOOKS, "spell")
COUNTED = ("draw", "mana", "shield")
"""Effects with a count: the controller draws / charges / adds shields from the deck top."""
TARGETED = ("destroy", "bounce", "tap", "power")
"""Effects that choose one creature: destroy, bounce and tap one of the opponent's; power
gives +n to one of the controller's creatures, -n to one of the opponent's."""
REPLACEMENT_ZONES = ("hand", "mana", "shield")
GAME_ENDS = ("win", "lose")
"""Special wins and losses by card text (dm104.2c): ``{"win": ...}`` / ``{"lose": ...}``, for
``who`` (``you``, the controller, by default; ``opponent``; ``each``), if each named player
meets the condition: ``min_creatures`` n (n or more creatures in their battle zone) or
``max_shields`` n (n or fewer shields); ``true``: unconditionally."""
DURATIONS = ("end_of_turn", "start_of_your_next_turn", "while_in_battle_zone")
"""How long a power change lasts: until the end of the turn (the default, dm§3.6), until the
start of its controller's next turn, or while the creature whose ability made it is in the
battle zone (card text, dm101.1)."""
ZONE_MOVES = ("gr_summon", "hyperspatial")
"""Effects that put a creature into the battle zone from an extra zone: ``gr_summon`` n (the
top card of the super GR zone, n times) and ``hyperspatial`` (one psychic creature of the
hyperspatial zone, ``max_cost`` n or less, chosen in ``choices.hyperspatial``)."""
TYPES = ("creature", "spell", "cross_gear", "aura")
ATTACHED = ("cross_gear", "aura")
"""Card types put on a creature: what they give it is their ``gives``."""
ZONES = ("hyperspatial", "super_gr")
"""Where a creature that is not in a deck starts (dm§2.1): the hyperspatial zone (public)
or the super GR zone (hidden)."""
WHO = ("you", "opponent", "each")
CONDITIONS = ("min_creatures", "max_shields")


class CardListError(ValueError):
    """The header's card definitions cannot be read (the judge cannot start)."""

    field = "cards"


@dataclass(frozen=True, slots=True)
class Effect:
    kind: str
    amount: int = 1
    max_power: int | None = None
    """destroy / bounce: the highest power it may choose; hyperspatial: the highest cost."""
    who: str = "you"
    """win / lose: whom the effect names (you, opponent, each)."""
    condition: tuple[str, int] | None = None
    """win / lose: (min_creatures | max_shields, n), or None (unconditionally)."""
    until: str = "end_of_turn"
    """power: how long it lasts (:data:`DURATIONS`)."""

    @property
    def targeted(self) -> bool:
        return self.kind in TARGETED

    def describe(self) -> str:
        if self.kind in GAME_ENDS:
            who = {"you": "you", "opponent": "your opponent", "each": "each player"}[self.who]
            text = f"{who} {self.kind}{'s' if self.who != 'you' else ''}"
            if self.condition is not None:
                what, n = self.condition
                text += (f" if {n} or more creatures" if what == "min_creatures"
                         else f" if {n} or fewer shields")
            return text
        if self.kind in COUNTED:
            return f"{self.kind} {self.amount}"
        if self.kind == "power":
            return f"power {self.amount:+d} {duration_words(self.until)}"
        if self.kind == "gr_summon":
            return f"GR summon {self.amount}"
        if self.kind == "hyperspatial":
            limit = f" of cost {self.max_power} or less" if self.max_power is not None else ""
            return f"put a psychic creature{limit} from the hyperspatial zone into the battle zone"
        limit = f" (power {self.max_power} or less)" if self.max_power is not None else ""
        return f"{self.kind} one creature{limit}"


@dataclass(frozen=True, slots=True)
class Gives:
    """What a cross gear or an aura gives the creature it is on: power, a breaker count
    (the higher of the creature's and this), and flags (blocker, speed attacker, ...)."""

    power: int = 0
    breaker: int = 0
    flags: frozenset[str] = frozenset()

    def describe(self) -> str:
        bits = [f"power {self.power:+d}"] if self.power else []
        bits += [f"breaker {self.breaker}"] if self.breaker else []
        return ", ".join(bits + sorted(self.flags)) or "nothing"


@dataclass(frozen=True, slots=True)
class CardDef:
    id: str
    name: str
    type: str
    civs: tuple[str, ...]
    cost: int
    power: int = 0
    breaker: int = 1
    power_attacker: int = 0
    opponent_power: int = 0
    """A static ability: the opponent's creatures get this much power while this creature
    is in the battle zone (0: none)."""
    flags: frozenset[str] = frozenset()
    hooks: dict[str, tuple[Effect, ...]] = field(default_factory=dict, compare=False,
                                                  hash=False)
    instead_of_destroy: str | None = None
    zone: str = "deck"
    """Where the card starts: ``deck``, ``hyperspatial`` or ``super_gr`` (:data:`ZONES`)."""
    gives: Gives | None = None
    """A cross gear's or an aura's gift to the creature it is on."""
    cross_cost: int = 0
    """A cross gear: the mana its cross costs (its cost unless the card says)."""
    gr_summon: bool = False
    """An aura that GR summons and is put on that creature."""

    @property
    def creature(self) -> bool:
        return self.type == "creature"

    @property
    def attached(self) -> bool:
        """A card put on a creature (cross gear, aura)."""
        return self.type in ATTACHED

    @property
    def multicolour(self) -> bool:
        return len(self.civs) > 1

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def effects(self, hook: str) -> tuple[Effect, ...]:
        return self.hooks.get(hook, ())

    def target_effect(self, hook: str) -> Effect | None:
        return next((e for e in self.effects(hook) if e.targeted), None)


def duration_words(until: str) -> str:
    """``start_of_your_next_turn`` -> ``until the start of your next turn``."""
    return {"end_of_turn": "until end of turn",
            "start_of_your_next_turn": "until the start of your next turn",
            "while_in_battle_zone": "while this creature is in the battle zone"}[until]


def base_id(card: str) -> str:
    """``bolshack#2`` -> ``bolshack``."""
    return card.partition("#")[0]


def split_ref(ref: str) -> tuple[str, str] | None:
    """``alice:bolshack#2`` -> ``("alice", "bolshack#2")``; None for other strings."""
    owner, sep, card = ref.partition(":")
    if not sep or not owner or not card:
        return None
    return owner, card


def _int(where: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise CardListError(f"{where}: expected a whole number >= {low}, got {value!r}")
    return value


def _effect(where: str, raw: Any) -> Effect:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise CardListError(f"{where}: an effect is an object with one key, got {raw!r}")
    ((kind, value),) = raw.items()
    if kind in COUNTED:
        return Effect(kind, _int(f"{where}.{kind}", value, 1))
    if kind == "power":
        until = "end_of_turn"
        if isinstance(value, dict):
            if not set(value) <= {"amount", "until"} or value.get("until", until) \
                    not in DURATIONS:
                raise CardListError(f"{where}.power: expected {{amount: n, until: "
                                    f"{' | '.join(DURATIONS)}}}, got {value!r}")
            until = value.get("until", until)
            value = value.get("amount")
        if isinstance(value, bool) or not isinstance(value, int) or value == 0:
            raise CardListError(f"{where}.power: expected a non-zero number, got {value!r}")
        return Effect("power", value, until=until)
    if kind == "tap":
        return Effect("tap")
    if kind in ("destroy", "bounce"):
        if value is True or value is None:
            return Effect(kind)
        if isinstance(value, dict) and set(value) <= {"max_power"}:
            limit = value.get("max_power")
            return Effect(kind, 1, None if limit is None else _int(f"{where}.{kind}", limit))
        raise CardListError(f"{where}.{kind}: expected true or {{max_power: n}}, got {value!r}")
    if kind in GAME_ENDS:
        return _game_end(f"{where}.{kind}", kind, value)
    if kind == "gr_summon":
        return Effect(kind, _int(f"{where}.{kind}", value, 1))
    if kind == "hyperspatial":
        if value is True:
            return Effect(kind)
        if isinstance(value, dict) and set(value) == {"max_cost"}:
            return Effect(kind, 1, _int(f"{where}.{kind}.max_cost", value["max_cost"]))
        raise CardListError(f"{where}.{kind}: expected true or {{max_cost: n}}, got {value!r}")
    raise CardListError(f"{where}: unknown effect {kind!r} (known: "
                        f"{', '.join(COUNTED + TARGETED + GAME_ENDS + ZONE_MOVES)})")


def _game_end(where: str, kind: str, value: Any) -> Effect:
    """``true`` or ``{who?, one condition?}`` (dm104.2c)."""
    if value is True:
        return Effect(kind)
    if not isinstance(value, dict) or not set(value) <= {"who", *CONDITIONS}:
        raise CardListError(f"{where}: expected true or {{who, {' | '.join(CONDITIONS)}}}, "
                            f"got {value!r}")
    who = value.get("who", "you")
    if who not in WHO:
        raise CardListError(f"{where}.who: expected one of {', '.join(WHO)}, got {who!r}")
    conds = [c for c in CONDITIONS if c in value]
    if len(conds) > 1:
        raise CardListError(f"{where}: at most one condition ({', '.join(CONDITIONS)})")
    condition = (conds[0], _int(f"{where}.{conds[0]}", value[conds[0]])) if conds else None
    return Effect(kind, who=who, condition=condition)


_FIELDS = {"id", "name", "type", "civ", "cost", "power", "breaker", "power_attacker",
           "opponent_power", "instead_of_destroy", "zone", "gives", "cross_cost", "gr_summon",
           *FLAGS, *HOOKS}


def _gives(where: str, raw: Any, flag_names: tuple[str, ...]) -> Gives:
    """A cross gear's or an aura's ``gives``: ``{power?, breaker?, <flag>: true ...}``."""
    if not isinstance(raw, dict):
        raise CardListError(f"{where}: expected an object {{power, breaker, flags: true}}, "
                            f"got {raw!r}")
    unknown = set(raw) - {"power", "breaker", *flag_names}
    if unknown:
        raise CardListError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} (known: "
                            f"power, breaker, {', '.join(flag_names)})")
    power = raw.get("power", 0)
    if isinstance(power, bool) or not isinstance(power, int):
        raise CardListError(f"{where}.power: expected a number, got {power!r}")
    for f in flag_names:
        if f in raw and raw[f] is not True:
            raise CardListError(f"{where}.{f}: expected true")
    breaker = _int(f"{where}.breaker", raw["breaker"], 1) if "breaker" in raw else 0
    return Gives(power, breaker, frozenset(f for f in flag_names if raw.get(f)))


def parse_card(card_id: str, raw: Any, extra_flags: tuple[str, ...] = ()) -> CardDef:
    """One definition; ``extra_flags``: more flag keywords the edition defines (its card
    over rule overrides, dm101.1)."""
    where = f"cards.{card_id}"
    if not isinstance(raw, dict):
        raise CardListError(f"{where}: a card definition is an object")
    flag_names = tuple(dict.fromkeys(FLAGS + extra_flags))
    unknown = set(raw) - _FIELDS - set(flag_names)
    if unknown:
        raise CardListError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    kind = raw.get("type")
    if kind not in TYPES:
        raise CardListError(f"{where}.type: expected one of {', '.join(TYPES)}, got {kind!r}")
    zone = raw.get("zone", "deck")
    if zone != "deck" and (zone not in ZONES or kind != "creature"):
        raise CardListError(f"{where}.zone: only a creature starts outside the deck, in one "
                            f"of {', '.join(ZONES)}; got {zone!r} for a {kind}")
    attached = kind in ATTACHED
    for name in ("gives", "cross_cost", "gr_summon"):
        allowed = attached if name == "gives" else kind == (
            "cross_gear" if name == "cross_cost" else "aura")
        if name in raw and not allowed:
            raise CardListError(f"{where}.{name}: not a field of a {kind}")
    if attached and "gives" not in raw:
        raise CardListError(f"{where}.gives: a {kind} says what it gives the creature it is "
                            "on")
    if "gr_summon" in raw and not isinstance(raw["gr_summon"], bool):
        raise CardListError(f"{where}.gr_summon: expected true or false")
    civ = raw.get("civ", [])
    civs = tuple([civ] if isinstance(civ, str) else civ)
    if not civs or any(c not in CIVS for c in civs):
        raise CardListError(f"{where}.civ: expected one or more of {', '.join(CIVS)}")
    hooks: dict[str, tuple[Effect, ...]] = {}
    for hook in HOOKS:
        if hook not in raw:
            continue
        items = raw[hook]
        if not isinstance(items, list):
            raise CardListError(f"{where}.{hook}: expected a list of effects")
        effects = tuple(_effect(f"{where}.{hook}[{i}]", e) for i, e in enumerate(items))
        if sum(e.targeted for e in effects) > 1:
            raise CardListError(f"{where}.{hook}: at most one effect may choose a target")
        hooks[hook] = effects
    lasting = [h for h, effects in hooks.items()
               if any(e.until == "while_in_battle_zone" for e in effects)]
    if lasting and kind != "creature":
        raise CardListError(f"{where}.{lasting[0]}: only a creature's ability lasts while "
                            "it is in the battle zone")
    if "spell" in hooks and kind != "spell":
        raise CardListError(f"{where}.spell: only a spell has a spell effect")
    if attached and hooks:
        raise CardListError(f"{where}.{next(iter(hooks))}: a {kind} has no ability here; "
                            "what it gives is its gives")
    creature_only = [h for h in hooks if h in TURN_HOOKS] + (
        ["opponent_power"] if "opponent_power" in raw else [])
    if creature_only and kind != "creature":
        raise CardListError(f"{where}.{creature_only[0]}: only a creature has this ability")
    aura = raw.get("opponent_power", 0)
    if isinstance(aura, bool) or not isinstance(aura, int):
        raise CardListError(f"{where}.opponent_power: expected a number, got {aura!r}")
    flags = frozenset(f for f in flag_names if raw.get(f))
    for f in flag_names:
        if f in raw and not isinstance(raw[f], bool):
            raise CardListError(f"{where}.{f}: expected true or false")
    instead = raw.get("instead_of_destroy")
    if instead is not None and instead not in REPLACEMENT_ZONES:
        raise CardListError(f"{where}.instead_of_destroy: expected one of "
                            f"{', '.join(REPLACEMENT_ZONES)}")
    return CardDef(
        id=card_id,
        name=str(raw.get("name", card_id)),
        type=kind,
        civs=civs,
        cost=_int(f"{where}.cost", raw.get("cost")),
        power=_int(f"{where}.power", raw.get("power", 0)) if kind == "creature" else 0,
        breaker=_int(f"{where}.breaker", raw.get("breaker", 1), 1),
        power_attacker=_int(f"{where}.power_attacker", raw.get("power_attacker", 0)),
        opponent_power=aura,
        flags=flags,
        hooks=hooks,
        instead_of_destroy=instead,
        zone=zone,
        gives=_gives(f"{where}.gives", raw["gives"], flag_names) if attached else None,
        cross_cost=_int(f"{where}.cross_cost", raw.get("cross_cost", raw.get("cost")))
        if kind == "cross_gear" else 0,
        gr_summon=bool(raw.get("gr_summon", False)),
    )


def parse_cards(raw: Any, extra_flags: tuple[str, ...] = ()) -> dict[str, CardDef]:
    """The header's ``cards``: an object id -> definition, or a list of definitions;
    ``extra_flags``: the edition's override keywords (flags beyond :data:`FLAGS`)."""
    if raw is None:
        return {}
    items: list[tuple[str, Any]]
    if isinstance(raw, dict):
        items = list(raw.items())
    elif isinstance(raw, list):
        items = []
        for i, d in enumerate(raw):
            if not isinstance(d, dict) or not isinstance(d.get("id"), str):
                raise CardListError(f"cards[{i}]: a listed definition needs an id")
            items.append((d["id"], d))
    else:
        raise CardListError("cards: expected an object or a list")
    out: dict[str, CardDef] = {}
    for card_id, d in items:
        if "#" in card_id or ":" in card_id or not card_id or card_id == UNKNOWN:
            raise CardListError(f"cards: {card_id!r} is not a definition id (no '#' or ':')")
        if card_id in out:
            raise CardListError(f"cards: {card_id!r} is defined twice")
        body = {k: v for k, v in d.items() if k != "id"} if isinstance(d, dict) else d
        out[card_id] = parse_card(card_id, body, extra_flags)
    return out
