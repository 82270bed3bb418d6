"""Playing cards as BlackPoker reads them: suit, rank (A=1 .. K=13), Joker = 0."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

SUITS = frozenset("SHDC")
UNKNOWN = "?"


class Card(NamedTuple):
    suit: str | None  # None for a Joker or an unknown face
    rank: int | None  # 0 for a Joker, None for an unknown face

    @property
    def known(self) -> bool:
        return self.rank is not None

    @property
    def joker(self) -> bool:
        return self.rank == 0


@lru_cache(maxsize=256)
def parse_card(code: str) -> Card | None:
    """``S1`` = ♠A, ``H12`` = ♥Q, ``JK``/``JK1``/``JK2`` = Joker, ``?`` = unknown face."""
    if code == UNKNOWN:
        return Card(None, None)
    if code in ("JK", "JK1", "JK2"):
        return Card(None, 0)
    if len(code) >= 2 and code[0] in SUITS and code[1:].isdigit():
        rank = int(code[1:])
        if 1 <= rank <= 13:
            return Card(code[0], rank)
    return None


def split_ref(ref: str) -> tuple[str, str] | None:
    """``bob:H7`` -> ``("bob", "H7")``; None when it is not a card reference."""
    owner, sep, card = ref.partition(":")
    if not sep or not owner or not card:
        return None
    return owner, card


CARD_COSTS = frozenset("LD")
"""The costs paid with a card, whose ``ref`` names that card: $L (the top card of the deck
is lost) and $D (a hand card is discarded). $B and $S name a character."""

CARD_WORDS = "a suit S, H, D or C with a rank 1-13, a Joker JK, or ? for a face not shown"


def is_card_ref(ref: str) -> bool:
    """``owner:card`` where the card is a playing card BlackPoker knows (:func:`parse_card`)
    or a face the log does not show (``?``)."""
    parts = split_ref(ref)
    return parts is not None and parse_card(parts[1]) is not None


def card_of(ref: str) -> str:
    """``bob:H7`` -> ``H7``; a bare card stays as it is."""
    parts = split_ref(ref)
    return parts[1] if parts else ref


def number(card: str) -> int | None:
    """The card's number (A = 1, J/Q/K = 11/12/13, Joker = 0); None for an unseen face."""
    c = parse_card(card)
    return None if c is None else c.rank
