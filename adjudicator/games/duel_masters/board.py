"""The Duel Masters table: each player's deck, hand, shields, mana, battle zone, graveyard.

Hidden information is kept honestly: a deck or shield zone is a list of cards (``?`` for a
face the log has not shown), or ``None`` when even its count is unknown; a hand is the
cards the log has shown plus a count of unseen ones (``None``: unknown).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.games.duel_masters.cards import UNKNOWN, CardDef


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


def copy_creature(c: Creature, creatures: dict[int, Creature]) -> Creature:
    """The copy of ``c`` in a copied table (made once, then shared)."""
    twin = creatures.get(id(c))
    if twin is None:
        twin = Creature(c.ref, c.owner, c.card, c.entered, c.timestamp, c.tapped,
                        c.sba_exempt)
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
        }
