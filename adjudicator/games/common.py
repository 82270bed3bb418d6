"""Pieces several games' rules modules share: edition data loading, the handler tables
the rules modules register their steps and effects in, and the deck-out rule."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from coreflow_judge.adjudicator.claims import effect_fits
from coreflow_judge.adjudicator.game import GameResult

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow

__all__ = ["EditionDataError", "Handlers", "deck_out", "effect_fits", "inherit",
           "load_edition_data", "unknown_decks"]
"""``effect_fits`` lives in :mod:`adjudicator.claims` (the one claimed-effect matcher); it
is named here too for the rules modules that import it from this module."""


H = TypeVar("H", bound=Callable[..., Any])


class Handlers(Generic[H]):
    """A table of handlers, each registered under the word the data or the log uses for it:
    a step an action's ``effect`` names, a claimed effect's ``op`` carried out or taken
    back, an action's resolution.

    A handler registers itself where it is defined (``@step("draw")`` above the method),
    so the word is written once, beside its code, and the table is the whole vocabulary
    (what the edition data is checked against). A word registered twice is an error when
    the module is imported, never a silent override.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        """What a handler of this table carries out, for messages ("step")."""
        self.table: dict[str, H] = {}

    def __call__(self, name: str) -> Callable[[H], H]:
        """The decorator registering a handler under ``name``."""
        def register(handler: H) -> H:
            had = self.table.get(name)
            if had is not None:
                raise ValueError(f"{self.what} {name!r} registered twice: by "
                                 f"{had.__qualname__} and {handler.__qualname__}")
            self.table[name] = handler
            return handler
        return register

    def get(self, name: str) -> H | None:
        return self.table.get(name)

    def names(self) -> frozenset[str]:
        return frozenset(self.table)


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

    An edition may say ``inherits: <edition>`` in its main file and give only what it
    changes (:func:`inherit`): the result is the whole data, as if written out in full.
    """
    return _load(package, edition, ())


def _load(package: str, edition: str, heirs: tuple[str, ...]) -> dict[str, Any]:
    folder = resources.files(package).joinpath("data")
    main = f"edition-{edition}.yaml"
    if not folder.joinpath(main).is_file():
        raise EditionDataError(f"edition-{heirs[-1]}.yaml" if heirs else main, "inherits"
                               if heirs else "edition", f"no edition {edition!r} here")
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
        if "inherits" in part:
            raise EditionDataError(name, "inherits", f"said in {main} only")
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
    files = {f"{s}.{k}": f for (s, k), f in origin.items()}
    base = data.pop("inherits", None)
    if base is not None:
        base = str(base)
        if base == edition or base in heirs:
            raise EditionDataError(main, "inherits", "an edition cannot inherit from "
                                   f"itself ({' -> '.join((*heirs, edition, base))})")
        parent = _load(package, base, (*heirs, edition))
        files = parent.pop("_files") | files  # what the child gives: named at the child
        data = inherit(parent, data)
    data["_files"] = files
    return data


def inherit(parent: Mapping[str, Any], child: Mapping[str, Any]) -> dict[str, Any]:
    """The data of an edition that inherits ``parent``'s and gives ``child``: what it
    changes.

    - A section the child does not give is the parent's.
    - A section of entries (a mapping of mappings: actions, characters, ...) lists every
      entry the edition has, in its order: an entry the parent has too is the parent's
      entry with each field the child gives in place of the parent's (``{}``: the
      parent's entry as it is); an entry the child does not list is not in the edition.
    - Any other mapping (``policy``, ``labels_ja``) is the parent's with each key the
      child gives in place of the parent's.
    - A list or a value the child gives replaces the parent's.

    ``null`` (the YAML word) for a field or a key: not in this edition (the parent's is
    dropped). A correction to what the parent and the child share is made once, in the
    parent.
    """
    out: dict[str, Any] = {}
    for section in (*parent, *(s for s in child if s not in parent)):
        if section not in child:
            out[section] = copy.deepcopy(parent[section])
            continue
        mine, theirs = child[section], parent.get(section)
        if isinstance(mine, dict) and isinstance(theirs, dict):
            if theirs and all(isinstance(v, dict) for v in theirs.values()):
                out[section] = {key: _overlay(theirs.get(key), entry)
                                for key, entry in mine.items() if entry is not None}
            else:
                out[section] = _overlay(theirs, mine)
        else:
            out[section] = copy.deepcopy(mine)
    return out


def _overlay(theirs: Any, mine: Any) -> Any:
    """``theirs`` with each key ``mine`` gives in its place (``null``: dropped)."""
    if not isinstance(theirs, dict) or not isinstance(mine, dict):
        return copy.deepcopy(mine)
    out = copy.deepcopy(theirs) | copy.deepcopy(mine)
    return {k: v for k, v in out.items() if v is not None}


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

