"""Pieces several games' rules modules share: edition data loading and the deck-out rule."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Protocol

from coreflow_judge.adjudicator.claims import effect_fits
from coreflow_judge.adjudicator.game import GameResult

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow

__all__ = ["EditionDataError", "deck_out", "effect_fits", "load_edition_data", "unknown_decks"]
"""``effect_fits`` lives in :mod:`adjudicator.claims` (the one claimed-effect matcher); it
is named here too for the rules modules that import it from this module."""


class EditionDataError(ValueError):
    """Packaged edition data that cannot be right: names its file and key."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        super().__init__(f"{file}: {key}: {problem}")
        self.file = file
        self.key = key


def _yaml(text: str) -> Any:
    """``yaml.safe_load`` through libyaml when PyYAML has it (the same documents, parsed
    several times faster: a log's judge waits for its edition's data). PyYAML is
    imported here, when data is parsed: a start that reads its data from the cache
    (:mod:`.edition_cache`) never imports it."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(text, Loader=loader)


@lru_cache(maxsize=16)
def load_edition_data(package: str, edition: str) -> dict[str, Any]:
    """A game's edition data, ``<package>/data/edition-<edition>.yaml``, shipped inside
    the package (never read from outside it).

    An edition may be split into parts, ``edition-<edition>.<part>.yaml`` (a format's
    actions, say): their mappings are merged into the main file's, their lists appended.
    A key defined twice is an :class:`EditionDataError` naming both files.
    """
    folder = resources.files(package).joinpath("data")
    main = f"edition-{edition}.yaml"
    data: dict[str, Any] = _yaml(folder.joinpath(main).read_text(encoding="utf-8"))
    origin: dict[tuple[str, str], str] = {}
    for section, value in data.items():
        if isinstance(value, dict):
            for key in value:
                origin[(section, key)] = main
    prefix = f"edition-{edition}."
    parts = sorted(f.name for f in folder.iterdir()
                   if f.name.startswith(prefix) and f.name.endswith(".yaml") and f.name != main)
    for name in parts:
        part = _yaml(folder.joinpath(name).read_text(encoding="utf-8")) or {}
        for section, value in part.items():
            if section not in data:
                data[section] = value
                if isinstance(value, dict):
                    for key in value:
                        origin[(section, key)] = name
            elif isinstance(value, dict) and isinstance(data[section], dict):
                for key, item in value.items():
                    if key in data[section]:
                        raise EditionDataError(
                            name, f"{section}.{key}",
                            f"already defined in {origin[(section, key)]}")
                    data[section][key] = item
                    origin[(section, key)] = name
            elif isinstance(value, list) and isinstance(data[section], list):
                data[section] = data[section] + value
            else:
                raise EditionDataError(name, section, "cannot be merged with " + main)
    # Which file defined each ``section.key``, for errors that name the file.
    data["_files"] = {f"{s}.{k}": f for (s, k), f in origin.items()}
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

