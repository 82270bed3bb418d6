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
import unicodedata
from typing import Annotated, Any, Literal

from coreflow_judge.events.printable import LABEL_PATTERN, NAME_PATTERN, same_to_the_eye
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
    model_validator,
)

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
    """Line 1: who plays what, under which rules edition and format."""

    type: Literal["match_started"] = "match_started"
    match_id: str = Field(pattern=r"^[A-Za-z0-9._-]{1,128}$")
    game: Label
    """The id a game is registered under (:mod:`adjudicator.plugins`); the registry, not
    this model, knows which games there are."""
    rules: Label
    format: Label
    regulation: Label | None = None
    frame: Label | None = None
    """BlackPoker 9.0: the regulation's frame (``entry16``, ``pack``, ``rare_pack``,
    ``strategy``, ``extra``); absent, no frame. A game reads it or refuses it."""
    players: list[PlayerId] = Field(min_length=2, max_length=MAX_PLAYERS)
    decks: dict[PlayerId, Cards] | None = None
    deck_sizes: dict[PlayerId, Annotated[Count, Field(ge=0, le=MAX_DECK_SIZE)]] | None = None
    cards: Annotated[dict[str, Any] | list[Any], FreeForm] | None = None
    hyperspatial: dict[PlayerId, Cards] | None = None
    """Duel Masters: each player's hyperspatial zone (public), card ids."""
    super_gr: dict[PlayerId, Cards] | None = None
    """Duel Masters: each player's super GR zone (hidden), card ids, top first."""
    event: EventInfo | None = None
    log_format: Literal[1]

    @field_validator("game")
    @classmethod
    def _registered_game(cls, game: str) -> str:
        from coreflow_judge.adjudicator.plugins import game_ids  # the registry decides

        known = game_ids()
        if game not in known:
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


class Preset(BaseModel):
    """BlackPoker 9.0 preset: the bulwark, the soldier and the cards that failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bulwark: Name | None = None
    soldier: Name | None = None
    graveyard: Cards = Field(default_factory=list)


class GameStarted(_Line):
    """Core [1]: the first player is decided and the set-up is done."""

    type: Literal["game_started"] = "game_started"
    first_player: PlayerId
    reveals: dict[PlayerId, Cards] | None = None
    hands: dict[PlayerId, Cards] | None = None
    presets: dict[PlayerId, Preset] | None = None
    trumps: dict[PlayerId, Cards] | None = None
    """BlackPoker 6.1 extra: the trumps each player placed face down before the game (at
    most 2; ``?`` where the recorder does not know a face). Not part of the deck."""
    packs: dict[PlayerId, Cards] | None = None
    """BlackPoker 9.0 pack frames: the cards each player set aside face down as the pack,
    the top of the deck first (``?`` where the recorder does not know a face); taken
    before the preset, so the deck that remains is the life."""
    rares: dict[PlayerId, Cards] | None = None
    """BlackPoker 9.0 rare frames (レアパック, ストラテジー): the rare card each player chose
    from the deck and set face down before the pack (one; ``?`` where the recorder does not
    know a face)."""
    scenario: dict[PlayerId, Cards] | None = None
    """BlackPoker 9.0 ストラテジー: the three cards each player chose from the deck into the
    opening hand first (シナリオ手札); ordinary hand cards once the game starts. ``hands``
    then records only the cards drawn."""


class TurnStarted(_Line):
    """A new turn: a consequence of the turn-ending action's resolution."""

    type: Literal["turn_started"] = "turn_started"
    player: PlayerId
    turn: Count = Field(ge=1)


class ChanceMoved(_Line):
    """Core [2], [13], [16]: the chance goes to a player or to the rule system."""

    type: Literal["chance_moved"] = "chance_moved"
    to: PlayerId


class Cost(BaseModel):
    """One paid cost: B bulwark driven, L card lost, D card discarded, S sacrifice, C key unit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["B", "L", "D", "S", "C"]
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

LINE_ADAPTER: TypeAdapter[LogLine] = TypeAdapter(LogLine)

LINE_TYPES: dict[str, type[_Line]] = {
    m.model_fields["type"].default: m
    for m in (
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
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one log line (the union of every line type)."""
    schema = LINE_ADAPTER.json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "coreflow match log line, log_format 1"
    return schema
