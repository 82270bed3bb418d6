"""The BlackPoker table: each player's deck (life), hand, graveyard, fog and field.

Hidden information is kept honestly: a deck is a list of faces top first where ``?`` is a
card the log has not shown, or ``None`` when even its count is unknown; a hand is the
cards the log has shown plus a count of unseen ones.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, parse_card


@dataclass(slots=True)
class Character:
    """A character on the field; its reference is its first key card's (``alice:S9``)."""

    ref: str
    owner: str
    kind: str
    cards: list[str]
    entered: list[int]
    state: str = "charge"
    face_down: bool = False
    timestamp: int = 0

    def copy(self) -> Character:
        """The same character with lists of its own (a board copy's; every field, written
        out: :func:`dataclasses.replace` costs several times more, once per character of
        every board a resolution keeps the table before)."""
        return Character(self.ref, self.owner, self.kind, list(self.cards), list(self.entered),
                         self.state, self.face_down, self.timestamp)

    def ranks(self) -> list[int | None]:
        out: list[int | None] = []
        for c in self.cards:
            card = parse_card(c)
            out.append(card.rank if card else None)
        return out


@dataclass(slots=True)
class Trump:
    """A trump (切札, 6.1 extra): a card placed under the deck before the game, face down
    until opened; its ability is in force while it is face up."""

    card: str
    face_up: bool = False
    closed_turn: int | None = None
    """The turn a 9.0 クローズ turned it face down: it cannot turn face up that turn."""


@dataclass(slots=True)
class PlayerBoard:
    deck: list[str] | None = None
    hand_known: Counter[str] = field(default_factory=Counter)
    hand_unknown: int | None = 0
    graveyard: list[str] = field(default_factory=list)
    fog: list[str] = field(default_factory=list)
    field: list[Character] = field(default_factory=list)
    trumps: list[Trump] = dataclasses.field(default_factory=list)
    pack: list[str] | None = None
    """パック (9.0 pack frames): the cards set aside at the set-up, top first; None: the
    frame has no pack."""
    pack_opened: bool = False
    rare: list[str] | None = None
    """レアカード (9.0 rare frames): the rare cards set face down at the set-up; None: the
    frame has none."""

    @property
    def deck_count(self) -> int | None:
        return None if self.deck is None else len(self.deck)

    @property
    def hand_count(self) -> int | None:
        if self.hand_unknown is None:
            return None
        return sum(self.hand_known.values()) + self.hand_unknown

    def hand_may_hold(self, card: str) -> bool:
        """Could ``card`` be in this hand, given what the log showed?"""
        if card == UNKNOWN:
            return self.hand_count is None or self.hand_count > 0
        return self.hand_known[card] > 0 or self.hand_unknown is None or self.hand_unknown > 0

    def take_from_hand(self, card: str) -> None:
        if card != UNKNOWN and self.hand_known[card] > 0:
            self.hand_known[card] -= 1
            if not self.hand_known[card]:
                del self.hand_known[card]
        elif self.hand_unknown:
            self.hand_unknown -= 1
        elif card == UNKNOWN and self.hand_known:
            # An unseen card left a hand whose every card was seen: forget which.
            first = next(iter(self.hand_known))
            self.hand_known[first] -= 1
            if not self.hand_known[first]:
                del self.hand_known[first]

    def add_to_hand(self, card: str) -> None:
        if card == UNKNOWN:
            if self.hand_unknown is not None:
                self.hand_unknown += 1
        else:
            self.hand_known[card] += 1

    def pop_deck(self) -> str | None:
        """Take the top card; None when the deck is known to be empty."""
        if self.deck is None:
            return UNKNOWN
        if not self.deck:
            return None
        return self.deck.pop(0)

    def copy(self) -> PlayerBoard:
        """A board of its own with the same cards (characters copied too)."""
        return PlayerBoard(
            None if self.deck is None else list(self.deck), Counter(self.hand_known),
            self.hand_unknown, list(self.graveyard), list(self.fog),
            [ch.copy() for ch in self.field],
            [Trump(t.card, t.face_up, t.closed_turn) for t in self.trumps],
            None if self.pack is None else list(self.pack), self.pack_opened,
            None if self.rare is None else list(self.rare),
        )

    def character(self, ref: str) -> Character | None:
        for ch in self.field:
            if ch.ref == ref:
                return ch
        return None

    def as_dict(self) -> dict[str, Any]:
        known = sorted(self.hand_known.elements())
        return {
            "deck_count": self.deck_count,
            "deck_known": [c for c in (self.deck or []) if c != UNKNOWN],
            "hand_count": self.hand_count,
            "hand_known": known,
            "graveyard": list(self.graveyard),
            "fog": list(self.fog),
            **({"trumps": [{"card": t.card, "face": "up" if t.face_up else "down"}
                           for t in self.trumps]} if self.trumps else {}),
            **({"pack_count": len(self.pack), "pack_opened": self.pack_opened,
                "pack": [{"card": c, "face": "up" if self.pack_opened else "down"}
                         for c in self.pack]} if self.pack is not None else {}),
            **({"rare_count": len(self.rare),
                "rare": [{"card": c, "face": "down"} for c in self.rare]}
               if self.rare is not None else {}),
        }
