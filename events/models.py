"""The match log, version 1: one pydantic model per line type.

Every line of a match log (JSON Lines) is one of these models; :data:`LogLine` is the
discriminated union on ``type``. The same models are the domain events of the event
store (see :mod:`events.store`), so the log a judge reads and the events a recorder keeps
are one vocabulary.

Strictness: unknown fields are errors (``extra="forbid"``) except under ``x``, the
vendor-extension object, so that a typo never passes silently.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from coreflow_judge.events.printable import LABEL_PATTERN, NAME_PATTERN, same_to_the_eye
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

# ------------------------------------------------------------------ limits
# Every size a log controls has a bound, checked when the line is read (a line over a
# bound is ``log.malformed`` naming its line and field), so that what a log costs to read,
# judge and store stays proportional to its real content. docs/decisions.md, section 1.

MAX_LINE_BYTES = 1_048_576
"""A line of the log (the longest real one, a header defining a Duel Masters deck, is a
few kilobytes)."""
MAX_ID = 128
"""Ids and names: match, player, request ids, actions, card references, card names."""
MAX_TEXT = 10_000
"""Free text: ``note``, ``reason``."""
MAX_PLAYERS = 16
MAX_DECK_SIZE = 500
"""A deck (``deck_sizes``, the cards of ``decks``), and any list of cards in a line."""
MAX_DEPTH = 16
"""Nesting of the free-form values (``x``, ``choices``, ``cards``, effect operands)."""
MAX_LOG_LINES = 50_000
"""Lines of one log: one match (the longest real ones run to a few thousand lines). A
longer log is refused whole, before anything is judged or recorded (docs/decisions.md,
"A judge that cannot be stalled"): judging it holds every line, and some kilobytes per
line besides."""
MAX_LOG_BYTES = 32 * 1_048_576
"""Bytes of one log (32 MiB; a real match is some hundreds of kilobytes), refused whole
as :data:`MAX_LOG_LINES`."""


class FreeFormError(ValueError):
    """A free-form value breaks a limit; ``path`` is where inside the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def _check_free_form(value: Any, path: str = "", depth: int = 0) -> None:
    """Raise :class:`FreeFormError` for a number that is not finite (``NaN``,
    ``Infinity``, ``1e400``) or a nesting deeper than :data:`MAX_DEPTH`."""
    if isinstance(value, float):
        if not math.isfinite(value):
            shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
            raise FreeFormError(path, f"must be a finite number (got {shown})")
    elif isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            raise FreeFormError(path, f"nested deeper than {MAX_DEPTH} levels")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            _check_free_form(item, f"{path}.{key}" if path else str(key), depth + 1)


def _free_form(value: Any) -> Any:
    _check_free_form(value)
    return value


FreeForm = AfterValidator(_free_form)
"""Checks a free-form field (see :func:`_check_free_form`)."""

Name = Annotated[str, Field(max_length=MAX_ID, pattern=NAME_PATTERN)]
"""An id or name the log gives (an action, a card, a source, the rules...): printable,
no blank (:mod:`events.printable`)."""
Label = Annotated[str, Field(max_length=MAX_ID, pattern=LABEL_PATTERN)]
"""A label a person reads (the rules and format as the header names them, the event's
tournament, a time): printable, blanks allowed."""
Text = Annotated[str, Field(max_length=MAX_TEXT)]
"""Free text (a note, a reason): anything; printed escaped (:func:`events.printable.escaped`)."""
PlayerId = Annotated[str, Field(min_length=1, max_length=MAX_ID, pattern=NAME_PATTERN)]
RequestId = Annotated[str, Field(min_length=1, max_length=MAX_ID, pattern=NAME_PATTERN)]
Cards = Annotated[list[Name], Field(max_length=MAX_DECK_SIZE)]
Count = Annotated[int, Field(strict=True)]
"""A whole number written as a JSON number: ``"4"`` or ``4.0`` is a type error, not a 4."""
SYSTEM_PLAYER = "system"
"""The chance holder that is the rule system (``chance_moved.to``): no player's id."""
CardRef = Annotated[str, Field(min_length=1, max_length=64, pattern=NAME_PATTERN)]
"""``<owner>:<card>``, e.g. ``bob:H7``; ``bob:?`` for a face the log does not know."""


class PlayerKeyed:
    """The mark of a field keyed by player id (:data:`PerPlayer`)."""

    def __repr__(self) -> str:
        return "PLAYER_KEYED"


PLAYER_KEYED = PlayerKeyed()


def _known_players(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """On a line that lists the players (the header): every key is one of them."""
    players = (info.data or {}).get("players")
    if players is not None:
        for player in value:
            if player not in players:
                raise ValueError(f"{player!r} is not a player of this match (players: "
                                 f"{', '.join(players)})")
    return value


class ReadByGame:
    """The mark of a core header field that only a game reads (:func:`read_by_game`)."""

    def __repr__(self) -> str:
        return "READ_BY_GAME"


READ_BY_GAME = ReadByGame()


def read_by_game(model: type[BaseModel] | None = None) -> tuple[str, ...]:
    """The core header's fields marked :data:`READ_BY_GAME` (the decks and the cards):
    the core carries them for every game, and each game says which of them it reads
    (:attr:`~adjudicator.plugins.GamePlugin.header_fields`); a header giving one its game
    does not read is refused."""
    model = model or MatchStarted
    return tuple(name for name, info in model.model_fields.items()
                 if any(m is READ_BY_GAME for m in info.metadata))


_T = TypeVar("_T")
PerPlayer = Annotated[dict[PlayerId, _T], PLAYER_KEYED, AfterValidator(_known_players)]
"""A value for each player, keyed by player id (``decks``, ``hands``, a game's set-up
fields). On the header a key that is not one of its ``players`` is refused; on a later
line the judge names it (``log.unknown-ref``, :func:`unknown_players`)."""


def _marked(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated and any(m is PLAYER_KEYED
                                                   for m in annotation.__metadata__):
        return True
    return any(_marked(a) for a in get_args(annotation))


def player_keyed_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` keyed by player id (:data:`PerPlayer`)."""
    found = _PLAYER_KEYED_FIELDS.get(model)
    if found is None:
        found = _PLAYER_KEYED_FIELDS[model] = tuple(
            name for name, info in model.model_fields.items()
            if _marked(info.annotation) or any(m is PLAYER_KEYED for m in info.metadata))
    return found


_PLAYER_KEYED_FIELDS: dict[type[BaseModel], tuple[str, ...]] = {}


def game_fields(line: BaseModel) -> dict[str, Any]:
    """The fields a game's own line model adds to the core's (:class:`GameLines`), those
    the line gives, as JSON data."""
    core = next((c for c in type(line).__mro__ if c in _CORE_LINE_SET), type(line))
    own = [n for n in type(line).model_fields if n not in core.model_fields]  # type: ignore[attr-defined]
    return line.model_dump(mode="json", include=set(own), exclude_none=True) if own else {}


def unknown_players(line: BaseModel, players: list[str] | tuple[str, ...]
                    ) -> list[tuple[str, str]]:
    """``(field, player)`` for each key of a :data:`PerPlayer` field of ``line`` that is
    not one of ``players``, in field order."""
    out: list[tuple[str, str]] = []
    for name in player_keyed_fields(type(line)):
        value = getattr(line, name)
        if value:
            out += [(name, p) for p in value if p not in players]
    return out


class _Line(BaseModel):
    """Fields every line carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seq: Count = Field(ge=1)
    at: Label | None = None
    note: Text | None = None
    hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    x: Annotated[dict[str, Any], FreeForm] | None = None


class EventInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tournament: Label | None = None
    round: int | Label | None = None
    table: int | Label | None = None


class MatchStarted(_Line):
    """Line 1: who plays what, under which rules edition and format.

    The core fields only: a game that records more in its header declares them in a
    subclass (its plugin's ``match_started``), and its logs are read with that class
    (:class:`GameLines`)."""

    type: Literal["match_started"] = "match_started"
    match_id: str = Field(pattern=r"^[A-Za-z0-9._-]{1,128}$")
    game: Label
    """The id a game is registered under (:mod:`adjudicator.plugins`); the registry, not
    this model, knows which games there are."""
    rules: Label
    format: Label
    regulation: Label | None = None
    players: list[PlayerId] = Field(min_length=2, max_length=MAX_PLAYERS)
    decks: Annotated[PerPlayer[Cards] | None, READ_BY_GAME] = None
    """Each player's deck, top first (``?`` where the recorder does not know a face)."""
    deck_sizes: Annotated[PerPlayer[Annotated[Count, Field(ge=0, le=MAX_DECK_SIZE)]] | None,
                          READ_BY_GAME] = None
    """Each player's deck size, where the decks are not given (a viewer's header)."""
    cards: Annotated[Annotated[dict[str, Any] | list[Any], FreeForm] | None,
                     READ_BY_GAME] = None
    """The texts of the cards the decks name, in the form the game reads."""
    event: EventInfo | None = None
    log_format: Literal[1]

    @field_validator("game")
    @classmethod
    def _registered_game(cls, game: str) -> str:
        from coreflow_judge.adjudicator.plugins import (  # the registry decides
            game_ids,
            is_registered,
        )

        if not is_registered(game):
            known = game_ids()
            raise ValueError("must be a registered game: " + (", ".join(known) or "none is"))
        return game

    @field_validator("players")
    @classmethod
    def _distinct_players(cls, players: list[str]) -> list[str]:
        seen: list[str] = []
        for player in players:
            if player == SYSTEM_PLAYER:
                raise ValueError(f"{SYSTEM_PLAYER!r} names the rule system, not a player")
            if not player.isascii() and not unicodedata.is_normalized("NFC", player):
                raise ValueError(f"player {player!r} is not in Unicode's composed form "
                                 "(NFC)")
            if player in seen:
                raise ValueError(f"player {player!r} is listed twice")
            twin = next((p for p in seen if same_to_the_eye(p, player)), None)
            if twin is not None:
                raise ValueError(f"players {twin!r} and {player!r} read as one (the same "
                                 "letters but for case or width)")
            seen.append(player)
        return players


class GameStarted(_Line):
    """Core [1]: the first player is decided and the set-up is done.

    The core fields only: a game whose set-up records more declares it in a subclass (its
    plugin's ``game_started``)."""

    type: Literal["game_started"] = "game_started"
    first_player: PlayerId
    reveals: PerPlayer[Cards] | None = None
    hands: PerPlayer[Cards] | None = None


class TurnStarted(_Line):
    """A new turn: a consequence of the turn-ending action's resolution."""

    type: Literal["turn_started"] = "turn_started"
    player: PlayerId
    turn: Count = Field(ge=1)


class ChanceMoved(_Line):
    """Core [2], [13], [16]: the chance goes to a player or to the rule system."""

    type: Literal["chance_moved"] = "chance_moved"
    to: PlayerId


def _cost_kind(kind: str, info: ValidationInfo) -> str:
    """A kind the game of the log names (:attr:`GameLines.cost_kinds`); any kind where the
    game is not known (a line built in memory, a log without a header)."""
    kinds = (info.context or {}).get("cost_kinds")
    if kinds is None or kind in kinds:
        return kind
    if not kinds:
        raise PydanticCustomError("cost_kind", "{game} names no cost kinds: its requests "
                                  "record no costs", {"game": (info.context or {}).get("game")})
    shown = [repr(k) for k in kinds]
    expected = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    raise PydanticCustomError("literal_error", "Input should be {expected}",
                              {"expected": expected})


class Cost(BaseModel):
    """One paid cost: its kind (a game's letter, :attr:`GameLines.cost_kinds`) and what
    paid it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Annotated[Name, AfterValidator(_cost_kind)]
    ref: Name


class Request(_Line):
    """Core [5]: a player asks for an action, paying its costs."""

    type: Literal["request"] = "request"
    request: RequestId
    player: PlayerId
    action: Name
    key_cards: list[CardRef] = Field(default_factory=list)
    costs: list[Cost] = Field(default_factory=list)
    targets: list[Name] = Field(default_factory=list)
    choices: Annotated[dict[str, Any], FreeForm] | None = None
    speed: Literal["instant", "normal"] | None = None
    timing: Literal["main", "quick", "free"] | None = None


class Pass(_Line):
    """Core [11]: the chance holder declines to request."""

    type: Literal["pass"] = "pass"
    player: PlayerId


class Trigger(_Line):
    """Core [6-1]: a request the rules create enters the buffer."""

    type: Literal["trigger"] = "trigger"
    request: RequestId
    action: Name
    source: Name
    controller: PlayerId | None = None


class Stage(_Line):
    """Core [10], [6-10-5], [6-10-7]: a request goes on top of the stage."""

    type: Literal["stage"] = "stage"
    request: RequestId


class Discard(_Line):
    """Core [6-10-6]: a main-timing triggered normal request met a non-empty stage."""

    type: Literal["discard"] = "discard"
    request: RequestId
    reason: Text | None = None


class Effect(BaseModel):
    """One primitive effect of a resolution (``op`` plus its operands)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    op: Name

    @model_validator(mode="after")
    def _finite_operands(self) -> Effect:
        _check_free_form(self.model_extra or {})
        return self


class Resolve(_Line):
    """Core [8], [15], [6-5-3]: the table carries out a request."""

    type: Literal["resolve"] = "resolve"
    request: RequestId
    result: Literal["resolved", "fizzled"]
    choices: Annotated[dict[str, Any], FreeForm] | None = None
    effects: list[Effect] | None = None


class Roll(_Line):
    """A die roll."""

    type: Literal["roll"] = "roll"
    player: PlayerId
    sides: Count = Field(ge=2)
    result: Count = Field(ge=1)


class TakenBack(_Line):
    """A correction: the ``lines`` lines before this one (not counting lines already
    taken back, nor earlier corrections) did not happen; the table goes on from before
    them. Nothing is deleted: the judge, the board and the complete log skip what was
    taken back (docs/decisions.md, "Corrections"). A coreflow extension of log format 1,
    written by ``coreflow play``."""

    type: Literal["taken_back"] = "taken_back"
    lines: Count = Field(ge=1, le=1_000_000)
    reason: Text | None = None


class GameEnded(_Line):
    """Core [9]: the game is decided."""

    type: Literal["game_ended"] = "game_ended"
    result: Literal["win", "draw"]
    winner: PlayerId | None = None
    reason: Text | None = None


LogLine = Annotated[
    MatchStarted
    | GameStarted
    | TurnStarted
    | ChanceMoved
    | Request
    | Pass
    | Trigger
    | Stage
    | Discard
    | Resolve
    | Roll
    | TakenBack
    | GameEnded,
    Field(discriminator="type"),
]
"""A line of any game, as the code handles it (a game's own header and set-up lines are
subclasses of :class:`MatchStarted` and :class:`GameStarted`)."""

_CORE_LINES: tuple[type[_Line], ...] = (
    MatchStarted,
    GameStarted,
    TurnStarted,
    ChanceMoved,
    Request,
    Pass,
    Trigger,
    Stage,
    Discard,
    Resolve,
    Roll,
    TakenBack,
    GameEnded,
)

LINE_TYPES: dict[str, type[_Line]] = {m.model_fields["type"].default: m for m in _CORE_LINES}
_CORE_LINE_SET: frozenset[type[BaseModel]] = frozenset(_CORE_LINES)

SCHEMA_URL = "https://json-schema.org/draft/2020-12/schema"


def _camel(game: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\W]+", game) if part)


@dataclass(frozen=True, eq=False)
class GameLines:
    """The line models a log is read with: the core's, the header and set-up lines of
    its game (:attr:`match_started`, :attr:`game_started`: the core's classes or the
    game's subclasses adding its own fields) and the cost kinds the game names.

    Reading a line through them refuses a field the game does not declare
    (``extra_forbidden``, named by the reader as ``log.malformed``) and a cost kind it does
    not name. :data:`CORE_LINES` reads a line whose game is not known: core fields only,
    any cost kind."""

    game: str | None = None
    match_started: type[MatchStarted] = MatchStarted
    game_started: type[GameStarted] = GameStarted
    cost_kinds: Mapping[str, str] | None = None
    """kind -> what paying it is, in the game's order; None where no game is known (any
    kind is read)."""
    types: dict[str, type[_Line]] = field(init=False, repr=False)
    """Line type -> the model its lines are read with."""
    adapter: TypeAdapter[LogLine] = field(init=False, repr=False)
    context: dict[str, Any] = field(init=False, repr=False)
    """The validation context of a line of this game (the cost kinds it names)."""

    def __post_init__(self) -> None:
        if not issubclass(self.match_started, MatchStarted):
            raise TypeError(f"{self.game}: match_started must be a subclass of MatchStarted")
        if not issubclass(self.game_started, GameStarted):
            raise TypeError(f"{self.game}: game_started must be a subclass of GameStarted")
        members = (self.match_started, self.game_started, *_CORE_LINES[2:])
        set_ = object.__setattr__
        set_(self, "types", {m.model_fields["type"].default: m for m in members})
        union: Any = Annotated[Union[members], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
        set_(self, "adapter", TypeAdapter(union))
        set_(self, "context", {"game": self.game, "cost_kinds": None if self.cost_kinds is None
                               else tuple(self.cost_kinds)})

    def validate_json(self, raw: str | bytes) -> LogLine:
        """One JSON line as its model (:class:`pydantic.ValidationError` if it is none)."""
        line: LogLine = self.adapter.validator.validate_json(raw, context=self.context)
        return line

    def validate_python(self, data: Any) -> LogLine:
        """One line's data as its model (:class:`pydantic.ValidationError` if it is none)."""
        line: LogLine = self.adapter.validator.validate_python(data, context=self.context)
        return line

    def validate_stored(self, data: Any) -> LogLine:
        """A line a store holds, read again with these models: any cost kind (the line was
        checked when it was taken), and a field the game does not declare kept as it was
        written (:func:`as_taken`: a store written before a game's fields left the core
        may hold one). Other errors raise as :meth:`validate_python` does."""
        context = {**self.context, "cost_kinds": None}
        kind = data.get("type") if isinstance(data, dict) else None
        model = self.types.get(kind) if isinstance(kind, str) else None
        if model is None:
            line: LogLine = self.adapter.validator.validate_python(data, context=context)
            return line
        try:
            return model.model_validate(data, context=context)  # type: ignore[return-value]
        except ValidationError as exc:
            errors = exc.errors()
            if not errors or any(e["type"] != "extra_forbidden" or len(e["loc"]) != 1
                                 for e in errors):
                raise
        return as_taken(model).model_validate(data, context=context)  # type: ignore[return-value]

    def schema_models(self) -> tuple[type[BaseModel], ...]:
        """The models of :meth:`json_schema`: the lines as read, the header's ``game``
        fixed to this game and the cost kinds written out (classes for the schema only;
        no line is ever one of them)."""
        if self.game is None:
            return (self.match_started, self.game_started, *_CORE_LINES[2:])
        name = _camel(self.game)
        for own, core in ((self.match_started, MatchStarted), (self.game_started, GameStarted)):
            if own is not core and own.__name__.endswith(core.__name__):
                name = own.__name__.removesuffix(core.__name__) or name
                break
        game: Any = Literal[self.game]  # type: ignore[valid-type]
        header = create_model(f"{name}MatchStarted", __base__=self.match_started,
                              __doc__=self.match_started.__doc__, game=(game, ...))
        kinds = tuple(self.cost_kinds or ())
        meaning = "; ".join(f"{k}: {v}" for k, v in (self.cost_kinds or {}).items())
        kind_type: Any = Literal[kinds] if kinds else Annotated[str, Field(max_length=0)]
        cost = create_model(f"{name}Cost", __base__=Cost, __doc__=Cost.__doc__,
                            kind=(kind_type, Field(description=meaning or "none: the "
                                                   "game's requests record no costs")))
        costs: Any = list[cost]  # type: ignore[valid-type]
        request = create_model(f"{name}Request", __base__=Request, __doc__=Request.__doc__,
                               costs=(costs, Field(default_factory=list,
                                                   max_length=None if kinds else 0)))
        return (header, self.game_started, *_CORE_LINES[2:4], request, *_CORE_LINES[5:])

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of one line of this game (of any game: :func:`json_schema`)."""
        members = self.schema_models()
        union: Any = Annotated[Union[members], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
        schema = TypeAdapter(union).json_schema()
        schema["$schema"] = SCHEMA_URL
        schema["title"] = (f"coreflow match log line of {self.game}, log_format 1"
                           if self.game else "coreflow match log line, log_format 1")
        return schema


_AS_TAKEN: dict[type[_Line], type[_Line]] = {}


def as_taken(model: type[_Line]) -> type[_Line]:
    """``model`` keeping the top-level fields it does not declare (``model_extra``): how a
    store reads a line an older coreflow took with a field the core then declared for
    every game (``packs`` in a game that has none). Such a line reads, exports and
    verifies as written; :meth:`~adjudicator.plugins.GamePlugin.check_header` refuses such
    a header as it did."""
    found = _AS_TAKEN.get(model)
    if found is None:
        found = _AS_TAKEN[model] = type(model.__name__, (model,), {
            "__doc__": model.__doc__, "__module__": model.__module__,
            "model_config": ConfigDict(extra="allow")})
    return found


CORE_LINES = GameLines()
"""The lines of a log whose game is not known: core fields only, any cost kind."""
LINE_ADAPTER: TypeAdapter[LogLine] = CORE_LINES.adapter
"""The core lines' adapter (:data:`CORE_LINES`): a game's own fields are refused."""


def lines_of(game: str) -> GameLines:
    """The line models of a registered game (its plugin's, :mod:`adjudicator.plugins`);
    :class:`~adjudicator.game.UnsupportedRules` for a game not registered."""
    from coreflow_judge.adjudicator.plugins import game_plugin  # the registry decides

    return game_plugin(game).lines


def json_schema(games: list[GameLines] | None = None) -> dict[str, Any]:
    """The JSON Schema of one log line: of the one game given, else a line of any of
    ``games`` (a line valid in one of them); without ``games``, the core lines (a game's
    own fields refused)."""
    if not games:
        return CORE_LINES.json_schema()
    if len(games) == 1:
        return games[0].json_schema()
    members = tuple(Annotated[Union[g.schema_models()], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
                    for g in games)
    union: Any = Union[members]  # type: ignore[valid-type]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    schema["$schema"] = SCHEMA_URL
    schema["title"] = ("coreflow match log line, log_format 1 (a line of one of the games: "
                       + ", ".join(str(g.game) for g in games) + ")")
    return schema
