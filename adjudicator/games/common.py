"""Pieces several games' rules modules share: edition data loading and the deck-out rule."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

import yaml
from coreflow_judge.adjudicator.claims import effect_fits
from coreflow_judge.adjudicator.game import GameResult

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow

__all__ = ["deck_out", "effect_fits", "load_edition_data", "unknown_decks"]
"""``effect_fits`` lives in :mod:`adjudicator.claims` (the one claimed-effect matcher); it
is named here too for the rules modules that import it from this module."""


@lru_cache(maxsize=16)
def load_edition_data(package: str, edition: str) -> dict[str, Any]:
    """A game's edition data, ``<package>/data/edition-<edition>.yaml``, shipped inside
    the package (never read from outside it)."""
    text = (
        resources.files(package)
        .joinpath("data", f"edition-{edition}.yaml")
        .read_text(encoding="utf-8")
    )
    data: dict[str, Any] = yaml.safe_load(text)
    return data


class HasDeck(Protocol):
    @property
    def deck(self) -> list[str] | None: ...


def deck_out(flow: CoreFlow, boards: Mapping[str, HasDeck], all_out: str) -> GameResult | None:
    """A player whose deck is empty loses. When every deck is empty at once, ``all_out``
    decides: ``"draw"``, or ``"turn_player_loses"`` (the check goes from the turn player)."""
    out = [p for p in flow.players if boards[p].deck == []]
    if not out:
        return None
    alive = [p for p in flow.players if p not in out]
    if not alive:
        if all_out == "draw":
            return GameResult("draw", None, "deck_out")
        return GameResult("win", next(p for p in flow.players if p != flow.turn_player),
                          "deck_out")
    if len(alive) == 1:
        return GameResult("win", alive[0], "deck_out")
    return None


def unknown_decks(players: Iterable[str], boards: Mapping[str, HasDeck], zone: str) -> str | None:
    """Why deck-out cannot be ruled, or None when every deck count is known."""
    unknown = [p for p in players if p in boards and boards[p].deck is None]
    if not unknown:
        return None
    return f"the {zone} count of {', '.join(unknown)} is not known from the log"

