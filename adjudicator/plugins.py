"""The games coreflow judges, each one object, found through an entry-point group.

A game is a :class:`GamePlugin`: its id (the ``game`` of a log header), its editions and
formats, its rules factory, its simulator, its finding codes and rule statements, how its
board reads as text and what a board checkpoint may share. A distribution offers a game by
naming the object under the entry-point group :data:`GROUP`; the entry point's name is the
game id. coreflow's own games register the same way (``pyproject.toml``), so a game
installed from another distribution is found exactly like them. The contract is written
out in docs/games.md.

The registry reads the group once and loads a game only when it is asked for; both are
cached until :func:`clear_cache` (a test that installs a game on ``sys.path`` calls it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from coreflow_judge.adjudicator.disclosure import Disclosure
from coreflow_judge.adjudicator.findings import CODES
from coreflow_judge.adjudicator.game import UnsupportedRules

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from coreflow_judge.adjudicator.findings import Severity
    from coreflow_judge.adjudicator.game import GameRules
    from coreflow_judge.events.models import GameLines, GameStarted, LogLine, MatchStarted

GROUP = "coreflow_judge.games"
"""The entry-point group a distribution names its games under (name: the game id)."""

RulesFactory = Callable[["MatchStarted", str], "GameRules"]
"""(header, edition) -> the game's rules module for one match."""
class Simulator(Protocol):
    """(edition, format, seed, match id, frame) -> the complete log of one random legal
    game; a game without frames refuses a frame (field ``frame``)."""

    def __call__(self, edition: str, fmt: str, seed: int, match_id: str,
                 frame: str | None = None) -> list[LogLine]: ...

_GAME_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def card_as_written(ref: str) -> str:
    """A card reference shown as the log writes it (a game with no card names of its own)."""
    return ref


def _shares_nothing(rules: Any) -> Iterable[object]:
    return ()


def _by_id(header: MatchStarted) -> str:
    return header.game


@dataclass(frozen=True, slots=True)
class GamePlugin:
    """Everything the core asks of one game, in one place."""

    id: str
    """The ``game`` of a log header and the first part of its ``rules`` (``id/edition``)."""
    name: str
    """How texts name the game."""
    editions: tuple[str, ...]
    formats: tuple[str, ...]
    rules: RulesFactory
    """Builds the rules module of one match; it is also the game's part of the header's
    validation: a header it cannot use (an edition, format, player count or card list)
    raises :class:`~adjudicator.game.UnsupportedRules` naming the field."""
    default_format: str = ""
    """The format of a simulated game when none is asked for (the first format if empty)."""
    simulate: Simulator | None = None
    codes: Mapping[str, tuple[Severity, str]] = field(default_factory=dict)
    """The game's own finding codes: code -> (default severity, one-line meaning)."""
    rule_statements: Mapping[str, str] = field(default_factory=dict)
    """One plain-English line per rule reference of the game's rule book it cites."""
    codes_ja: Mapping[str, str] = field(default_factory=dict)
    """The one-line meaning of each of :attr:`codes` in Japanese (``--lang ja``)."""
    rule_statements_ja: Mapping[str, str] = field(default_factory=dict)
    """Each of :attr:`rule_statements` written in Japanese (``--lang ja``)."""
    rule_prefix: str = ""
    """How the game's rule references begin (a reference the statements lack is then
    named as one of the game's)."""
    rule_book: str = ""
    """What such a reference names, e.g. "a section of the game's rules"."""
    header_fields: frozenset[str] = frozenset()
    """Which of the core header's fields only a game reads it reads
    (:func:`~events.models.read_by_game`: the decks and the cards)."""
    own_lines: Callable[[], tuple[type[MatchStarted], type[GameStarted]]] | None = None
    """The models of its header and ``game_started`` lines (:attr:`match_started`,
    :attr:`game_started`), imported when a log is first read (listing the games loads no
    models): subclasses of the core's declaring the fields the game adds, each
    documented (a field keyed by player is a :data:`~events.models.PerPlayer`, so a
    player not in the match is named). None: the core's alone. A field the game does not
    declare is refused."""
    cost_kinds: Mapping[str, str] = field(default_factory=dict)
    """The kinds of ``request.costs`` the game reads, each with what paying it is, in
    order; a kind it does not name is refused (none: its requests record no costs)."""
    card_text: Callable[[str], str] = card_as_written
    """A card reference as the board text shows it."""
    size_word: str = "size"
    """What the game calls the number the board keeps as a character's ``size``."""
    constant_parts: Callable[[Any], Iterable[object]] = _shares_nothing
    """The parts of a match's rules module that never change once it is built (edition
    data, action definitions, policies): board checkpoints share them, never copy them."""
    fixture_folder: Callable[[MatchStarted], str] = _by_id
    """The folder under ``fixtures/rulings`` where ``coreflow fixture new`` puts a ruling
    fixture of a match with this header (by default one folder named by the game's id)."""
    bare_editions: bool = False
    """Its editions may be named alone (``--rules 9.0``); at most one game says so."""
    disclosure_from: Callable[[], Disclosure] = Disclosure
    """Reads who may see each zone of its board, and how its cards are named (its
    ``data/disclosure.yaml``, :func:`~adjudicator.disclosure.load_disclosure`); a game
    that gives none has every zone hidden from the players. Read on first use of
    :attr:`disclosure` (listing the games reads no data)."""

    def __post_init__(self) -> None:
        if not _GAME_ID.match(self.id):
            raise ValueError(f"game id {self.id!r}: lower-case letters, digits and '_'")
        if not self.editions or not self.formats:
            raise ValueError(f"game {self.id!r} names no edition or no format")
        if not self.default_format:
            object.__setattr__(self, "default_format", self.formats[0])
        if self.default_format not in self.formats:
            raise ValueError(f"game {self.id!r}: default format {self.default_format!r} "
                             f"is not one of its formats")
        clash = sorted(set(self.codes) & set(CODES))
        if clash:
            raise ValueError(f"game {self.id!r} redefines the core finding codes {clash}")
        bad_kinds = [k for k in self.cost_kinds if not isinstance(k, str) or not k]
        if bad_kinds:
            raise ValueError(f"game {self.id!r}: cost kinds {bad_kinds!r} are not names")
        object.__setattr__(self, "cost_kinds", MappingProxyType(dict(self.cost_kinds)))
        object.__setattr__(self, "codes", MappingProxyType(dict(self.codes)))
        object.__setattr__(self, "rule_statements",
                           MappingProxyType(dict(self.rule_statements)))
        object.__setattr__(self, "codes_ja", MappingProxyType(dict(self.codes_ja)))
        object.__setattr__(self, "rule_statements_ja",
                           MappingProxyType(dict(self.rule_statements_ja)))

    @property
    def disclosure(self) -> Disclosure:
        """Who may see each zone of the game's board (read once, then kept)."""
        found = _disclosures.get(self.id)
        if found is None:
            found = _disclosures[self.id] = self.disclosure_from()
        return found

    @property
    def lines(self) -> GameLines:
        """The line models its logs are read with (built once, then kept); ValueError
        for models that are not the core's extended (a game adds fields, never changes
        the core's)."""
        found = _lines.get(self.id)
        if found is None:
            found = _lines[self.id] = self._build_lines()
        return found

    @property
    def match_started(self) -> type[MatchStarted]:
        """The model of its header line (:attr:`own_lines`)."""
        return self.lines.match_started

    @property
    def game_started(self) -> type[GameStarted]:
        """The model of its ``game_started`` line (:attr:`own_lines`)."""
        return self.lines.game_started

    def _build_lines(self) -> GameLines:
        from coreflow_judge.events.models import (
            GameLines,
            GameStarted,
            MatchStarted,
            read_by_game,
        )

        bad = sorted(set(self.header_fields) - set(read_by_game()))
        if bad:
            raise ValueError(f"game {self.id!r}: {bad} are no core header fields a game "
                             "reads (events.models.read_by_game)")
        header, setup = self.own_lines() if self.own_lines else (MatchStarted, GameStarted)
        for core, own in ((MatchStarted, header), (GameStarted, setup)):
            if not (isinstance(own, type) and issubclass(own, core)):
                raise ValueError(f"game {self.id!r}: its {core.__name__} model is no "
                                 f"subclass of the core's")
            changed = sorted(n for n, f in core.model_fields.items()
                             if own.model_fields[n].annotation != f.annotation)
            if changed:
                raise ValueError(f"game {self.id!r}: its {core.__name__} changes the core "
                                 f"fields {changed} (a game adds fields)")
        return GameLines(self.id, header, setup, self.cost_kinds)

    def check_header(self, header: MatchStarted) -> None:
        """The header carries no game field this game does not read (nor, in a store an
        older coreflow wrote, a field of another game's header: :func:`~events.models.as_taken`)."""
        for name in header.model_extra or {}:
            raise UnsupportedRules(f"{self.id} does not read {name!r}: not a field of its "
                                   "header", field=name)
        from coreflow_judge.events.models import read_by_game

        for name in read_by_game():
            if getattr(header, name) is not None and name not in self.header_fields:
                used = ", ".join(sorted(self.header_fields)) or "none"
                raise UnsupportedRules(
                    f"{self.id} does not read {name!r} (its header fields: {used})",
                    field=name)


class GameNotRegistered(UnsupportedRules):
    """No installed distribution registers the game (exit 2, naming field ``game``)."""

    def __init__(self, game: str) -> None:
        known = ", ".join(game_ids()) or "none"
        super().__init__(f"game {game!r} is not supported yet (registered games: {known})",
                         field="game")


_disclosures: dict[str, Disclosure] = {}
"""Each game's disclosure levels, by game id, once read."""
_lines: dict[str, GameLines] = {}
"""Each game's line models, by game id, once built."""
_entry_points: dict[str, list[EntryPoint]] | None = None
_loaded: dict[str, GamePlugin] = {}


def _registered() -> dict[str, list[EntryPoint]]:
    global _entry_points
    if _entry_points is None:
        from importlib.metadata import entry_points  # read once, when a list is needed

        found: dict[str, list[EntryPoint]] = {}
        for ep in entry_points(group=GROUP):
            found.setdefault(ep.name, []).append(ep)
        _entry_points = dict(sorted(found.items()))
    return _entry_points


def clear_cache() -> None:
    """Forget what was read and loaded: the next question reads the group again."""
    global _entry_points
    _entry_points = None
    _loaded.clear()
    _disclosures.clear()
    _lines.clear()


def game_ids() -> tuple[str, ...]:
    """Every registered game id, sorted (nothing is loaded to answer)."""
    return tuple(_registered())


OWN_GAMES = "coreflow_judge.adjudicator.games"
"""The package of coreflow's own games: the game ``<id>`` is ``<id>.plugin:GAME`` in it,
as coreflow's entry points say."""


def _own_module(game: str) -> str | None:
    """The plugin module of coreflow's own game ``game``, found without reading the entry
    points and without importing it: a command that judges a log knows its game from the
    header, and needs no list of the games (reading every installed distribution's entry
    points costs a start tens of milliseconds). None when coreflow has no such game, or
    once the group has been read (the registry then answers, as for every game)."""
    if _entry_points is not None or not _GAME_ID.match(game):
        return None
    from importlib.util import find_spec

    name = f"{OWN_GAMES}.{game}.plugin"
    try:
        return name if find_spec(name) is not None else None
    except ImportError:  # no such folder among coreflow's games
        return None


def _own_game(game: str) -> GamePlugin | None:
    """coreflow's own game ``game`` (:func:`_own_module`), loaded; None if it does not
    load as that game's plugin (the entry points are then read, and the registry says
    why, as for any game)."""
    name = _own_module(game)
    if name is None:
        return None
    from importlib import import_module

    try:
        plugin = getattr(import_module(name), "GAME", None)
    except Exception:  # noqa: BLE001 - the registry below names the failure, field game
        return None
    return plugin if isinstance(plugin, GamePlugin) and plugin.id == game else None


def is_registered(game: str) -> bool:
    return game in _loaded or _own_module(game) is not None or game in _registered()


def game_plugin(game: str) -> GamePlugin:
    """The game registered as ``game``, loaded on first use (one of coreflow's own
    without reading the entry-point group, :func:`_own_game`)."""
    plugin = _loaded.get(game) or _own_game(game)
    if plugin is not None:
        _loaded[game] = plugin
        return plugin
    eps = _registered().get(game)
    if not eps:
        raise GameNotRegistered(game)
    if len({ep.value for ep in eps}) > 1:
        raise UnsupportedRules(
            f"game {game!r} is registered more than once ({', '.join(ep.value for ep in eps)})",
            field="game")
    try:
        plugin = eps[0].load()
    except Exception as exc:  # noqa: BLE001 - another distribution's code: report, go on
        raise UnsupportedRules(f"game {game!r} could not be loaded "
                               f"({type(exc).__name__}: {exc})", field="game") from exc
    if not isinstance(plugin, GamePlugin) or plugin.id != game:
        raise UnsupportedRules(f"the entry point {eps[0].value} registered as game "
                               f"{game!r} is not that game's GamePlugin", field="game")
    _loaded[game] = plugin
    return plugin


def games() -> list[GamePlugin]:
    """Every registered game that loads, in id order."""
    out = []
    for game in game_ids():
        try:
            out.append(game_plugin(game))
        except UnsupportedRules:
            continue  # named when a log or a command asks for it
    return out


def loaded_games() -> list[GamePlugin]:
    """The games loaded so far (no entry point is loaded to answer)."""
    return list(_loaded.values())


def game_of_bare_edition() -> GamePlugin | None:
    """The game whose editions may be named without its id, if one says so."""
    claims = [g for g in games() if g.bare_editions]
    if len(claims) > 1:
        raise UnsupportedRules("several games take bare editions: "
                               + ", ".join(g.id for g in claims), field="rules")
    return claims[0] if claims else None


def game_code(code: str) -> tuple[Severity, str] | None:
    """A registered game's finding code: (default severity, meaning), or None."""
    for plugin in loaded_games():
        if code in plugin.codes:
            return plugin.codes[code]
    for plugin in games():
        if code in plugin.codes:
            return plugin.codes[code]
    return None


def game_code_ja(code: str) -> str | None:
    """A registered game's finding code's Japanese meaning, or None."""
    for plugin in loaded_games() + games():
        if code in plugin.codes_ja:
            return plugin.codes_ja[code]
    return None


def attributes_of_rules(*names: str) -> Callable[[Any], Iterable[object]]:
    """A :attr:`GamePlugin.constant_parts` for a rules module whose unchanging parts are
    the attributes ``names`` (a dict's values count too: action definitions)."""

    def parts(rules: Any) -> Iterable[object]:
        for name in names:
            value = getattr(rules, name, None)
            if value is None:
                continue
            yield value
            if isinstance(value, dict):
                yield from value.values()

    return parts
