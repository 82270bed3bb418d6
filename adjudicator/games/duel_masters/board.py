"""The Duel Masters table: each player's deck, hand, shields, mana, battle zone, graveyard,
and the two extra zones (dm§2.1): the hyperspatial zone (public: its cards are shown) and
the super GR zone (hidden: its count is shown, and the cards the log has shown going in).

Hidden information is kept honestly: a deck or shield zone is a list of cards (``?`` for a
face the log has not shown), or ``None`` when even its count is unknown; a hand is the
cards the log has shown plus a count of unseen ones (``None``: unknown).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.games.duel_masters.cards import UNKNOWN, CardDef


@dataclass(frozen=True, slots=True)
class Attachment:
    """A cross gear crossed to a creature, or an aura put on it (``ref``: the card)."""

    ref: str
    card: CardDef

    @property
    def aura(self) -> bool:
        return self.card.type == "aura"


@dataclass(slots=True, eq=False)
class Gear:
    """A cross gear in the battle zone; ``crossed``: the creature it is crossed to (its
    reference), or None."""

    ref: str
    card: CardDef
    crossed: str | None = None


@dataclass(slots=True, eq=False)
class Creature:
    """A creature in the battle zone; named by its card reference (``alice:bolshack#1``)."""

    ref: str
    owner: str
    card: CardDef
    entered: int
    """The turn it was put into the battle zone (summoning sickness, dm§2.2)."""
    timestamp: int
    tapped: bool = False
    sba_exempt: bool = False
    """The table kept it although a state-based action destroys it: the judge reported
    that once and follows the game as played."""
    attached: list[Attachment] = field(default_factory=list)
    """The cross gears crossed to it and the auras on it, in the order they were put on."""

    def has(self, flag: str) -> bool:
        """A flag of its card, or one a gear or an aura on it gives."""
        return self.card.has(flag) or any(
            a.card.gives is not None and flag in a.card.gives.flags for a in self.attached)

    def giver(self, flag: str) -> str:
        """Whose text gives it ``flag``, as a finding names it: its own card, or the gear
        crossed to it or the aura on it that gives the flag (``alice:axe#1 (crossed to
        alice:imp#1)``)."""
        if self.card.has(flag):
            return self.ref
        for a in self.attached:
            if a.card.gives is not None and flag in a.card.gives.flags:
                return f"{a.ref} ({'an aura on' if a.aura else 'crossed to'} {self.ref})"
        return self.ref

    @property
    def breaker(self) -> int:
        """Its card's breaker count, or a higher one a gear or an aura gives."""
        return max([self.card.breaker] + [a.card.gives.breaker for a in self.attached
                                          if a.card.gives is not None])

    @property
    def auras(self) -> list[Attachment]:
        return [a for a in self.attached if a.aura]


def copy_creature(c: Creature, creatures: dict[int, Creature]) -> Creature:
    """The copy of ``c`` in a copied table (made once, then shared)."""
    twin = creatures.get(id(c))
    if twin is None:
        twin = Creature(c.ref, c.owner, c.card, c.entered, c.timestamp, c.tapped,
                        c.sba_exempt, list(c.attached))
        creatures[id(c)] = twin
    return twin


@dataclass(slots=True, eq=False)
class ManaCard:
    ref: str
    card: CardDef | None
    """None for a face the log does not show (it pays any civilisation)."""
    tapped: bool = False

    def civs(self) -> tuple[str, ...]:
        return self.card.civs if self.card is not None else ()


@dataclass(slots=True)
class Board:
    deck: list[str] | None = None
    hand_known: Counter[str] = field(default_factory=Counter)
    hand_unknown: int | None = 0
    shields: list[str] | None = field(default_factory=list)
    mana: list[ManaCard] = field(default_factory=list)
    battle: list[Creature] = field(default_factory=list)
    graveyard: list[str] = field(default_factory=list)
    hyperspatial: list[str] | None = None
    """The hyperspatial zone (public); None: the header gives this player none."""
    super_gr: list[str] | None = None
    """The super GR zone, top first (hidden); None: the header gives this player none."""
    gr_shown: list[str] = field(default_factory=list)
    """Cards of the super GR zone the log has shown going in (from the battle zone)."""
    gears: list[Gear] = field(default_factory=list)
    """The cross gears in the battle zone, crossed or not."""

    # ------------------------------------------------------------------ extra zones
    def put_back(self, card: CardDef, name: str, zone: str) -> str:
        """A card leaving the battle zone for ``zone`` goes where it belongs: a psychic
        creature to the hyperspatial zone, a GR creature to the bottom of the super GR zone
        (docs/decisions.md section 7), any other card to ``zone`` (the caller puts it
        there). Returns the zone it went to."""
        if card.zone == "hyperspatial":
            if self.hyperspatial is not None:  # None: the header does not give the zone
                self.hyperspatial.append(name)
            return "hyperspatial"
        if card.zone == "super_gr":
            if self.super_gr is not None:
                self.super_gr.append(name)
                self.gr_shown.append(name)
            return "super_gr"
        return zone

    def take_back(self, name: str) -> None:
        """Undo the last move of ``name`` out of the battle zone (the table kept it)."""
        for zone in (self.graveyard, self.hyperspatial, self.super_gr):
            if zone is not None and name in zone:
                i = len(zone) - 1 - zone[::-1].index(name)
                del zone[i]
                if zone is self.super_gr and name in self.gr_shown:
                    self.gr_shown.remove(name)
                return

    def gear(self, ref: str) -> Gear | None:
        return next((g for g in self.gears if g.ref == ref), None)

    # ------------------------------------------------------------------ hand
    def hand_has(self, card: str) -> bool:
        """Could ``card`` be in the hand (shown there, or among the unseen cards)?"""
        if card == UNKNOWN:
            return self.hand_unknown is None or self.hand_unknown > 0 or bool(self.hand_known)
        return self.hand_known[card] > 0 or self.hand_unknown is None or self.hand_unknown > 0

    def take_from_hand(self, card: str) -> bool:
        """Remove ``card`` from the hand; False when the log shows it was not there."""
        if card != UNKNOWN and self.hand_known[card] > 0:
            self.hand_known[card] -= 1
            if not self.hand_known[card]:
                del self.hand_known[card]
            return True
        if self.hand_unknown is None:
            return True
        if self.hand_unknown > 0:
            self.hand_unknown -= 1
            return True
        return False

    def add_to_hand(self, card: str) -> None:
        if card == UNKNOWN:
            if self.hand_unknown is not None:
                self.hand_unknown += 1
        else:
            self.hand_known[card] += 1

    @property
    def hand_count(self) -> int | None:
        if self.hand_unknown is None:
            return None
        return sum(self.hand_known.values()) + self.hand_unknown

    # ------------------------------------------------------------------ deck
    def pop_deck(self) -> str | None:
        """The top card of the deck; ``?`` when the count is unknown; None when empty."""
        if self.deck is None:
            return UNKNOWN
        return self.deck.pop(0) if self.deck else None

    def untapped_mana(self) -> list[ManaCard]:
        return [m for m in self.mana if not m.tapped]

    # ------------------------------------------------------------------ planning
    def copy(self, creatures: dict[int, Creature]) -> Board:
        """An independent copy of this side of the table (a resolution is planned on it).
        ``creatures`` maps each original creature to its copy, so that one creature seen
        from two places (the battle zone, the state-based actions' record) stays one."""
        return Board(
            deck=None if self.deck is None else list(self.deck),
            hand_known=Counter(self.hand_known), hand_unknown=self.hand_unknown,
            shields=None if self.shields is None else list(self.shields),
            mana=[ManaCard(m.ref, m.card, m.tapped) for m in self.mana],
            battle=[copy_creature(c, creatures) for c in self.battle],
            graveyard=list(self.graveyard),
            hyperspatial=None if self.hyperspatial is None else list(self.hyperspatial),
            super_gr=None if self.super_gr is None else list(self.super_gr),
            gr_shown=list(self.gr_shown),
            gears=[Gear(g.ref, g.card, g.crossed) for g in self.gears],
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "deck_count": None if self.deck is None else len(self.deck),
            "hand_count": self.hand_count,
            "hand_known": sorted(self.hand_known.elements()),
            "graveyard": list(self.graveyard),
            "shields": len(self.shields) if self.shields is not None else None,
            "mana_untapped": [m.ref.partition(":")[2] for m in self.mana if not m.tapped],
            "mana_tapped": [m.ref.partition(":")[2] for m in self.mana if m.tapped],
            **({"hyperspatial": list(self.hyperspatial)} if self.hyperspatial is not None
               else {}),
            **({"super_gr_count": len(self.super_gr), "super_gr_known": list(self.gr_shown)}
               if self.super_gr is not None else {}),
            **({"gears_uncrossed": [g.ref.partition(":")[2] for g in self.gears
                                    if g.crossed is None]} if self.gears else {}),
        }
