"""The event store: every match log kept as the event-sourced record of its match.

A *match record* (:class:`MatchRecord`) is the aggregate of one match. Its domain events
are the lines of the match log, one *recorded line* (:class:`RecordedLine`) per log line
and nothing else: every request, pass, chance move, trigger, staging, discard and
resolution is appended, none is ever updated in place. The record's version is the
``seq`` of its last line, so version 1 is the ``match_started`` line that creates it.

The payload of a recorded line is the very pydantic model of :mod:`events.models`, so
the log and the store share one vocabulary. :class:`PydanticMapper` turns recorded lines
into eventsourcing ``StoredEvent`` rows with ``model_dump`` and back with
``model_validate``; :class:`JSONTranscoder` only turns the dumped dict into compact
JSON bytes.

:class:`MatchRecorder` is the eventsourcing application that records, extends and reads
match records; :func:`open_recorder` opens one on SQLite (default ``./coreflow.db``) or
PostgreSQL.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar, cast
from urllib.parse import SplitResult, parse_qs, parse_qsl, unquote, urlencode, urlsplit, urlunsplit
from uuid import UUID, uuid5

from coreflow_judge.events.busy import (
    BadBusyTimeout,
    busy_budget,
    busy_message,
    pauses,
    retrying,
)
from coreflow_judge.events.evidence import (
    STORE_FORMAT,
    StoredChain,
    StoreMeta,
    check_record,
    parse_meta,
    record_step,
    sign,
    signing_key,
)
from coreflow_judge.events.models import (
    CORE_LINES,
    LINE_TYPES,
    ChanceMoved,
    Discard,
    GameEnded,
    GameLines,
    GameStarted,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    Roll,
    Stage,
    TakenBack,
    Trigger,
    TurnStarted,
)
from coreflow_judge.events.reader import (
    SIGNATURE_KEY,
    ZERO_HASH,
    LineError,
    canonical_dict,
    chain_hash,
    iter_lines,
    lines_of_data,
)
from coreflow_judge.events.storefile import (
    NotOurStore,
    check_postgres,
    check_sqlite_store,
    is_plain_path,
    may_read_immutable,
    read_only_uri,
)
from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import DomainEventProtocol, EventSourcingError
from eventsourcing.persistence import (
    Mapper,
    PersistenceError,
    RecordConflictError,
    StoredEvent,
    Transcoder,
)
from eventsourcing.utils import get_topic, register_topic, resolve_topic
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)

#: Namespace of match-record ids: ``uuid5(NAMESPACE_URL, "urn:coreflow:match-record")``.
MATCH_NAMESPACE = UUID("1e7c5292-7b69-596e-abc8-49afe25dd6a8")

#: Where the store lives when neither an argument nor ``COREFLOW_STORE`` says.
DEFAULT_STORE = "./coreflow.db"
STORE_ENV_VAR = "COREFLOW_STORE"


def match_record_id(match_id: str) -> UUID:
    """The id of a match's record: the same match id always gives the same UUID."""
    return uuid5(MATCH_NAMESPACE, match_id)


# --------------------------------------------------------------------------- errors


class StoreError(Exception):
    """Anything the event store refuses or cannot do."""


class StoreUnavailable(StoreError):
    """The store could not be opened, reached or written (database down, locked...)."""


class MatchNotFound(StoreError):
    """No match record exists for this match id."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id!r} is not recorded in the store")
        self.match_id = match_id


class CorruptRecord(StoreError):
    """A stored row does not read back as the line it was: the store was changed outside
    coreflow (a row edited, swapped or deleted by hand)."""

    def __init__(self, record_id: object, version: int, why: str,
                 match_id: str | None = None) -> None:
        whose = f"match {match_id!r}" if match_id is not None else f"record {record_id}"
        super().__init__(f"{whose}: the stored row at seq {version} {why}: the store was "
                         "changed outside coreflow (or written by a version of coreflow "
                         "with looser limits on a line); coreflow verify names what changed")
        self.record_id = record_id
        self.version = version
        self.why = why
        self.match_id = match_id

    def of_match(self, match_id: str) -> CorruptRecord:
        """The same error, naming the match."""
        return CorruptRecord(self.record_id, self.version, self.why, match_id)


class RecordRefused(StoreError):
    """A recorded match that is no evidence (changed outside coreflow, unverifiable, or not
    signed with the key set): its check says why."""

    def __init__(self, chain: StoredChain) -> None:
        super().__init__(f"{chain.describe()}; refused (coreflow verify {chain.match_id} "
                         "shows it)")
        self.chain = chain


class LogRejected(StoreError):
    """The lines do not form (the start of) a match log the store can record."""


class AppendRejected(LogRejected):
    """The lines do not continue the match record (wrong ``seq``, a second start...)."""


class RecordConflict(StoreError):
    """Another writer saved the same record versions first; nothing of ours was written."""

    def __init__(self, match_id: str, message: str | None = None) -> None:
        super().__init__(
            message
            or f"match {match_id!r}: another writer recorded lines at the same seq first; "
            "nothing was written, reload the match and try again"
        )
        self.match_id = match_id


class MatchAlreadyRecorded(RecordConflict):
    """The match is already in the store; a complete log can be recorded only once."""

    def __init__(self, match_id: str) -> None:
        super().__init__(
            match_id,
            f"match {match_id!r} is already recorded; nothing was written "
            "(use append to add lines to it)",
        )


# ------------------------------------------------------------------- domain events


class RecordedLine(BaseModel):
    """A recorded line: one log line as a domain event of its match record.

    ``originator_version`` equals ``line.seq``; ``timestamp`` is when the store took the
    line (the line's own ``at`` is when it happened at the table).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    originator_id: UUID
    originator_version: int = Field(ge=1)
    timestamp: datetime
    line: SerializeAsAny[LogLine]
    """The line, read with the models of its match's game (:meth:`_read_with_its_game`)."""
    table_seq: int | None = Field(default=None, ge=1)
    """The line's number in the log the table wrote; None for a line the rules derived.
    A row of this store format always says (``play`` numbers the table's lines as the
    record does); in a record made by an older coreflow it may be None throughout."""
    store_format: int | None = None
    """:data:`~events.evidence.STORE_FORMAT` on every row written by this version (None:
    an older one): a row of a record of this format without it was changed."""
    record_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """The record chain's hash of this row (:func:`~events.evidence.record_step`), kept
    only where it differs from the line's ``hash``."""
    signature: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """On the last row of a save made with ``COREFLOW_SIGNING_KEY``: the key's signature
    of the record chain's head there."""
    log_signature: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    """With ``signature``, where the log chain's head differs from the record chain's:
    the key's signature of the log chain's head (what an exported log carries)."""

    @field_validator("line", mode="wrap")
    @classmethod
    def _read_with_its_game(cls, value: Any, handler: ValidatorFunctionWrapHandler,
                            info: ValidationInfo) -> Any:
        """A stored line is read again with the models its log was read with: those of
        its match's game (the validation context's ``lines``, given by the mapper), so a
        game's own fields read back as they were taken, and nothing else does."""
        lines: GameLines | None = (info.context or {}).get("lines")
        if lines is None or not isinstance(value, dict):
            return handler(value)
        kind = value.get("type")
        model = lines.types.get(kind) if isinstance(kind, str) else None
        if model is None or not issubclass(model, _line_model(cls)):
            return handler(value)  # not the row's line type: the core's models name it
        return lines.validate_stored(value)


# One class per line type, so a stored event's topic names its line type.
class RecordedMatchStarted(RecordedLine):
    """The ``match_started`` line: creates the match record at version 1."""

    line: SerializeAsAny[MatchStarted]


class RecordedGameStarted(RecordedLine):
    """A recorded ``game_started`` line."""

    line: SerializeAsAny[GameStarted]


class RecordedTurnStarted(RecordedLine):
    """A recorded ``turn_started`` line."""

    line: SerializeAsAny[TurnStarted]


class RecordedChanceMoved(RecordedLine):
    """A recorded ``chance_moved`` line."""

    line: SerializeAsAny[ChanceMoved]


class RecordedRequest(RecordedLine):
    """A recorded ``request`` line."""

    line: SerializeAsAny[Request]


class RecordedPass(RecordedLine):
    """A recorded ``pass`` line."""

    line: SerializeAsAny[Pass]


class RecordedTrigger(RecordedLine):
    """A recorded ``trigger`` line."""

    line: SerializeAsAny[Trigger]


class RecordedStage(RecordedLine):
    """A recorded ``stage`` line."""

    line: SerializeAsAny[Stage]


class RecordedDiscard(RecordedLine):
    """A recorded ``discard`` line."""

    line: SerializeAsAny[Discard]


class RecordedResolve(RecordedLine):
    """A recorded ``resolve`` line."""

    line: SerializeAsAny[Resolve]


class RecordedRoll(RecordedLine):
    """A recorded ``roll`` line."""

    line: SerializeAsAny[Roll]


class RecordedTakenBack(RecordedLine):
    """A recorded ``taken_back`` line (a correction: nothing stored is rewritten)."""

    line: SerializeAsAny[TakenBack]


class RecordedGameEnded(RecordedLine):
    """A recorded ``game_ended`` line."""

    line: SerializeAsAny[GameEnded]


#: Line type -> the domain-event class that records it.
RECORDED_LINE_TYPES: dict[str, type[RecordedLine]] = {
    "match_started": RecordedMatchStarted,
    "game_started": RecordedGameStarted,
    "turn_started": RecordedTurnStarted,
    "chance_moved": RecordedChanceMoved,
    "request": RecordedRequest,
    "pass": RecordedPass,
    "trigger": RecordedTrigger,
    "stage": RecordedStage,
    "discard": RecordedDiscard,
    "resolve": RecordedResolve,
    "roll": RecordedRoll,
    "taken_back": RecordedTakenBack,
    "game_ended": RecordedGameEnded,
}
assert RECORDED_LINE_TYPES.keys() == LINE_TYPES.keys(), "a line type has no recorded event"
_LINE_MODEL: dict[type[RecordedLine], type[BaseModel]] = {
    cls: LINE_TYPES[kind] for kind, cls in RECORDED_LINE_TYPES.items()
}


def _line_model(cls: type[RecordedLine]) -> type[BaseModel]:
    """The core model of the line a recorded-line class holds (a game's own header and
    set-up lines are subclasses of it)."""
    return _LINE_MODEL.get(cls, BaseModel)


def _recorded_class(line: object) -> type[RecordedLine] | None:
    """The recorded-line class of a line model (a game's subclass included), or None."""
    kind = getattr(line, "type", None)
    cls = RECORDED_LINE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None or not isinstance(line, LINE_TYPES[kind]):  # type: ignore[index]
        return None
    return cls

MATCH_STARTED_TOPIC = get_topic(RecordedMatchStarted)

# Stores written before the package moved under the coreflow_judge namespace name their
# events by the old module path (``events.store:RecordedRequest``): they still read.
LEGACY_TOPIC_MODULE = "events.store"
for _cls in RECORDED_LINE_TYPES.values():
    register_topic(f"{LEGACY_TOPIC_MODULE}:{_cls.__name__}", _cls)
MATCH_STARTED_TOPICS = [MATCH_STARTED_TOPIC,
                        f"{LEGACY_TOPIC_MODULE}:{RecordedMatchStarted.__name__}"]


# ----------------------------------------------------------------------- aggregate


class MatchRecord:
    """The match record: the aggregate of one match, its log lines in ``seq`` order.

    Created by the ``match_started`` line; every later line must carry the next ``seq``.
    New lines wait as pending recorded lines until the recorder saves them all at once.
    """

    def __init__(self, record_id: UUID, match_id: str) -> None:
        self._id = record_id
        self.match_id = match_id
        self.version = 0
        self.lines: list[LogLine] = []
        self.table_seqs: list[int | None] = []
        """Each line's number in the log the table wrote (None: derived, or not kept)."""
        self.legacy = False
        """Started by an older coreflow (its first row has no format mark): lines appended
        to it are kept the old way, and its table numbers are not covered."""
        self._log_head = ZERO_HASH
        self._record_head = ZERO_HASH
        self.log_signature: str | None = None
        """The key's signature of the log chain's head, when the last row carries one."""
        self._pending: list[RecordedLine] = []

    @property
    def id(self) -> UUID:
        """The record's aggregate id, :func:`match_record_id` of its match id."""
        return self._id

    @classmethod
    def start(cls, line: MatchStarted, timestamp: datetime | None = None,
              table_seq: int | None = None) -> MatchRecord:
        """A new record whose pending first line is ``line`` (which must be ``seq`` 1)."""
        if not isinstance(line, MatchStarted):
            raise LogRejected(
                f"a match log starts with a match_started line, not {_describe(line)}"
            )
        record = cls(match_record_id(line.match_id), line.match_id)
        record.extend([line], timestamp, None if table_seq is None else [table_seq])
        return record

    @property
    def log_head(self) -> str:
        """The head of the log chain: what the exported log ends with."""
        return self._log_head

    def table_lines(self) -> list[LogLine]:
        """The match as the table wrote it: the lines it wrote, numbered as it numbered them
        (judging these names the lines the table's own log names). A record of an older
        coreflow, whose table numbers no chain covers, is its stored lines as they are."""
        if self.legacy or all(n is None for n in self.table_seqs):
            return self.lines
        return [line.model_copy(update={"seq": n})
                for line, n in zip(self.lines, self.table_seqs, strict=True)
                if n is not None]

    def extend(self, lines: Iterable[LogLine], timestamp: datetime | None = None,
               table_seqs: Sequence[int | None] | None = None) -> None:
        """Add pending lines; all are checked before any is taken (all or nothing).

        ``table_seqs``: each line's number in the log the table wrote (None: derived);
        without it every line is the table's, numbered on from the table's last line (as
        the record numbers it, for a record made line by line by ``play``).

        Each line is stored with its chain hash (the log format's chain: sha256 of the
        previous hash and the line's canonical JSON) and the row with its record chain
        hash (the line and its table number, :func:`~events.evidence.record_step`), both
        computed here from the stored chains, whatever hash the line came with: the store's
        chains are its own record of what was taken, and an edit of a stored row no longer
        matches them (``verify``). A signature a line came with is not kept."""
        when = timestamp or datetime.now(UTC)
        new: list[RecordedLine] = []
        expected = self.version + 1
        log_head, record_head = self._log_head, self._record_head
        lines = [_unsigned(line) for line in lines]
        numbers: list[int | None]
        if table_seqs is not None:
            numbers = list(table_seqs)
        elif self.legacy:
            numbers = [None] * len(lines)
        else:  # the table's next lines: numbered on from its last one
            last = next((n for n in reversed(self.table_seqs) if n is not None), 0)
            numbers = [last + i for i in range(1, len(lines) + 1)]
        if len(numbers) != len(lines):
            raise AppendRejected(f"match {self.match_id!r}: {len(numbers)} table numbers "
                                 f"for {len(lines)} lines")
        for line, table_seq in zip(lines, numbers, strict=True):
            event_class = _recorded_class(line)
            if event_class is None:
                raise AppendRejected(
                    f"match {self.match_id!r}: not a log line: {_describe(line)}"
                )
            if line.seq != expected:
                raise AppendRejected(
                    f"match {self.match_id!r}: a {line.type} line with seq {line.seq} "
                    f"does not continue the record, which expects seq {expected}"
                )
            if (expected == 1) != (event_class is RecordedMatchStarted):
                raise AppendRejected(
                    f"match {self.match_id!r}: seq {line.seq} is a {line.type} line; "
                    "a match record has exactly one match_started line, at seq 1"
                )
            previous_log_head, log_head = log_head, chain_hash(log_head, line)
            if self.legacy:
                record_head = log_head
                extra: dict[str, Any] = {}
            else:
                record_head = log_head if (record_head == previous_log_head and table_seq
                                           == line.seq) else record_step(record_head, line,
                                                                         table_seq)
                extra = {"store_format": STORE_FORMAT,
                         "record_hash": record_head if record_head != log_head else None}
            new.append(
                event_class(
                    originator_id=self._id,
                    originator_version=expected,
                    timestamp=when,
                    line=line.model_copy(update={"hash": log_head}),
                    table_seq=table_seq,
                    **extra,
                )
            )
            expected += 1
        self.lines.extend(event.line for event in new)
        self.table_seqs.extend(event.table_seq for event in new)
        self.version = expected - 1
        self._log_head, self._record_head = log_head, record_head
        self.log_signature = None
        self._pending.extend(new)

    def sign_pending(self, key: bytes) -> None:
        """Sign the head of the pending lines with the organiser's key (the last pending
        row carries the signature). A record of an older coreflow is not signed."""
        if not self._pending or self.legacy:
            return
        last = self._pending[-1]
        log_head = last.line.hash
        assert log_head is not None
        record_head = last.record_hash or log_head
        self.log_signature = sign(key, log_head)
        self._pending[-1] = last.model_copy(update={
            "signature": sign(key, record_head),
            "log_signature": self.log_signature if record_head != log_head else None})

    def apply(self, event: RecordedLine) -> None:
        """Evolve the record by one recorded line (replay and new lines alike)."""
        line = event.line
        if event.originator_version == 1:
            self.legacy = event.store_format is None
        self._log_head = line.hash if line.hash is not None else chain_hash(self._log_head,
                                                                            line)
        self._record_head = event.record_hash or self._log_head
        self.log_signature = event.log_signature or (
            event.signature if event.record_hash is None else None)
        self.lines.append(line)
        self.table_seqs.append(event.table_seq)
        self.version = event.originator_version

    def collect_events(self) -> list[RecordedLine]:
        """Hand over and forget the pending recorded lines (eventsourcing protocol)."""
        pending, self._pending = self._pending, []
        return pending


def project_match_record(
    record: MatchRecord | None, events: Iterable[DomainEventProtocol[Any]]
) -> MatchRecord | None:
    """Rebuild a match record from its recorded lines (``None`` when there are none)."""
    for event in events:
        recorded = cast(RecordedLine, event)
        if record is None:
            line = recorded.line
            match_id = line.match_id if isinstance(line, MatchStarted) else "?"
            record = MatchRecord(recorded.originator_id, match_id)
        record.apply(recorded)
    return record


def _describe(obj: object) -> str:
    kind = getattr(obj, "type", None)
    return f"a {kind} line" if isinstance(kind, str) else type(obj).__name__


def _unsigned(line: LogLine) -> LogLine:
    """The line without a signature under ``x`` (the store signs its own heads)."""
    x = getattr(line, "x", None)  # not a line at all: extend refuses it by name
    if not isinstance(x, dict) or SIGNATURE_KEY not in x:
        return line
    rest = {k: v for k, v in x.items() if k != SIGNATURE_KEY}
    return line.model_copy(update={"x": rest or None})


# ----------------------------------------------------------- mapper and transcoder


class JSONTranscoder(Transcoder):
    """Compact JSON bytes of already-plain data (pydantic did the converting)."""

    _encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
    _decoder = json.JSONDecoder()

    def encode(self, obj: Any) -> bytes:
        return self._encoder.encode(obj).encode("utf-8")

    def decode(self, data: bytes) -> Any:
        return self._decoder.decode(data.decode("utf-8"))


_NOT_IN_STATE: set[str] = {"originator_id", "originator_version"}


def state_of(event: RecordedLine) -> dict[str, Any]:
    """The stored state of a recorded line as plain data (what the store keeps)."""
    return event.model_dump(mode="json", exclude=_NOT_IN_STATE, exclude_none=True)


def dump_state(event: RecordedLine) -> bytes:
    """:func:`state_of` as compact UTF-8 JSON, written by pydantic in one pass."""
    return event.__pydantic_serializer__.to_json(
        event, exclude=_NOT_IN_STATE, exclude_none=True
    )


class PydanticMapper(Mapper[UUID]):
    """Recorded lines <-> eventsourcing ``StoredEvent`` rows, through pydantic.

    The stored state is ``{"timestamp": ..., "line": {...}}`` where the line is in its
    canonical form (``model_dump(mode="json", exclude_none=True)``, as the hash chain
    sees it, plus the line's ``hash`` if it had one); id and version live in the row's
    own columns. Writing uses pydantic's serializer for the dump and the JSON in one
    pass (``model_dump_json``: the same bytes the transcoder makes of ``model_dump``,
    about three times faster); reading decodes with the transcoder and validates with
    the topic's class (``model_validate``).
    """

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> StoredEvent:
        event = cast(RecordedLine, domain_event)
        data = dump_state(event)
        if self.compressor:
            data = self.compressor.compress(data)
        if self.cipher:
            data = self.cipher.encrypt(data)
        return StoredEvent(
            originator_id=event.originator_id,
            originator_version=event.originator_version,
            topic=get_topic(type(event)),
            state=data,
        )

    find_lines: Callable[[UUID | str], GameLines | None] | None = None
    """Reads the line models of a record whose header this mapper has not read (the
    recorder's :meth:`MatchRecorder.lines_of_record`)."""
    _games: dict[UUID | str, GameLines] | None = None

    def lines_for(self, record_id: UUID | str, line: Any) -> GameLines:
        """The line models a stored line of ``record_id`` is read with: those of the game
        its header names (read from ``line`` when it is the header, else remembered from
        the header or read by :attr:`find_lines`); the core's if none is known."""
        games = self._games
        if games is None:
            games = self._games = {}
        if isinstance(line, dict) and line.get("type") == "match_started":
            found = lines_of_data(line) or CORE_LINES
        else:
            known = games.get(record_id)
            if known is not None:
                return known
            found = (self.find_lines(record_id) if self.find_lines is not None else None
                     ) or CORE_LINES
        if len(games) >= _REMEMBERED_GAMES:
            games.clear()
        games[record_id] = found
        return found

    def to_domain_event(self, stored_event: StoredEvent) -> DomainEventProtocol[UUID]:
        data = stored_event.state
        if self.cipher:
            data = self.cipher.decrypt(data)
        if self.compressor:
            data = self.compressor.decompress(data)
        version = stored_event.originator_version
        lines = CORE_LINES
        try:
            state = self.transcoder.decode(data)
            state["originator_id"] = stored_event.originator_id
            state["originator_version"] = version
            cls: type[RecordedLine] = resolve_topic(stored_event.topic)
            lines = self.lines_for(stored_event.originator_id, state.get("line"))
            event = cls.model_validate(state, context={"lines": lines})
        except (ValueError, TypeError, KeyError) as exc:  # pydantic's ValidationError too
            raise CorruptRecord(stored_event.originator_id, version,
                                _unreadable(stored_event, exc, lines)) from None
        if event.line.seq != version:
            raise CorruptRecord(stored_event.originator_id, version,
                                f"carries seq {event.line.seq}")
        return event


_REMEMBERED_GAMES = 4096
"""How many records' games a mapper keeps (then it forgets them all and reads again)."""


def _unreadable(stored_event: StoredEvent, exc: Exception,
                lines: GameLines = CORE_LINES) -> str:
    """Why a stored row does not read as the recorded line its topic names, in the words
    of what it holds (a row of another seq or type: rows swapped; a field its game does
    not declare)."""
    wanted = stored_event.topic.rsplit(":", 1)[-1].removeprefix("Recorded")
    try:
        line = json.loads(stored_event.state)["line"]
        kind, seq = line["type"], line["seq"]
    except (ValueError, TypeError, KeyError):
        return f"does not read as a recorded line ({type(exc).__name__})"
    if not isinstance(kind, str) or not isinstance(seq, int):
        return f"does not read as a recorded line ({type(exc).__name__})"
    if seq != stored_event.originator_version or _type_name(kind) != wanted:
        return (f"holds a {kind} line of seq {seq} where its columns say a {wanted} line "
                f"of seq {stored_event.originator_version} (rows swapped or edited)")
    unknown = [e["loc"][-1] for e in exc.errors() if e["type"] == "extra_forbidden"
               and len(e["loc"]) == 2 and e["loc"][0] == "line"
               ] if isinstance(exc, ValidationError) else []
    if unknown and lines.game is not None:
        return (f"holds {unknown[0]!r}, not a field of a {lines.game} {kind} line (written "
                "by an older coreflow that took it, or edited)")
    return f"does not read as a {kind} line ({type(exc).__name__}: edited)"


def _type_name(kind: str) -> str:
    cls = RECORDED_LINE_TYPES.get(kind)
    return cls.__name__.removeprefix("Recorded") if cls is not None else kind


# --------------------------------------------------------------------- application


class MatchRecorder(Application[UUID]):
    """The recorder: keeps match records, one aggregate per match, in an event store.

    Configured like any eventsourcing application (``PERSISTENCE_MODULE``,
    ``SQLITE_DBNAME``, ``POSTGRES_*`` in ``env``); without them it keeps records in
    memory. :func:`open_recorder` builds the environment from a store path or URL.
    """

    env: ClassVar[dict[str, str]] = {
        "MAPPER_TOPIC": get_topic(PydanticMapper),
        "TRANSCODER_TOPIC": get_topic(JSONTranscoder),
        # Fail fast when PostgreSQL is down (eventsourcing waits 30 s by default).
        "POSTGRES_CONNECT_TIMEOUT": "5",
        # One connection per process (eventsourcing opens five): a tournament runs a
        # process per table, and PostgreSQL has about a hundred connection slots.
        "POSTGRES_POOL_SIZE": "1",
    }
    notification_page_size: int = 500
    """How many notifications :meth:`match_ids` reads per query."""
    _marked: bool | None = None
    """Whether the store holds rows of this format (looked up once, when it has no
    format record)."""

    def construct_mapper(self) -> Mapper[UUID]:
        """The application's mapper; ours reads a record's header when it meets a later
        row of a record it has not read the header of (:meth:`lines_of_record`)."""
        mapper = super().construct_mapper()
        if isinstance(mapper, PydanticMapper):
            mapper.find_lines = self.lines_of_record
        return mapper

    def lines_of_record(self, record_id: UUID | str) -> GameLines | None:
        """The line models of a record's game, read from its header row (None: no header
        row, or one that does not name a registered game)."""
        try:
            rows = self.recorder.select_events(record_id, lte=1)
        except PersistenceError:
            return None
        if not rows:
            return None
        data = rows[0].state
        mapper = self.mapper
        try:
            if mapper.cipher:
                data = mapper.cipher.decrypt(data)
            if mapper.compressor:
                data = mapper.compressor.decompress(data)
            line = mapper.transcoder.decode(data).get("line")
        except (ValueError, TypeError, AttributeError):
            return None
        return lines_of_data(line)

    def record(self, lines: Sequence[LogLine],
               table_seqs: Sequence[int | None] | None = None) -> UUID:
        """Record a complete match log (first line ``match_started``) in one save.

        ``table_seqs``: each line's number in the log the table wrote (None for a line the
        rules derived), kept so that a finding about the record names the table's line.

        All or nothing: a rejected or conflicting log leaves the store as it was.
        Returns the record's id. Raises :class:`MatchAlreadyRecorded` if the match
        is in the store, :class:`LogRejected` if the lines are not a log.
        """
        if not lines:
            raise LogRejected("an empty log has nothing to record")
        first = lines[0]
        if not isinstance(first, MatchStarted):
            raise LogRejected(
                f"a match log starts with a match_started line, not {_describe(first)}"
            )
        if self._exists(match_record_id(first.match_id)):
            raise MatchAlreadyRecorded(first.match_id)
        record = MatchRecord(match_record_id(first.match_id), first.match_id)
        record.extend(lines, datetime.now(UTC), table_seqs)
        self._sign(record)
        try:
            self.save(record)
        except RecordConflictError as exc:
            raise MatchAlreadyRecorded(first.match_id) from exc
        except PersistenceError as exc:
            raise _failed(exc) from exc
        return record.id

    def record_jsonl(self, text: str) -> UUID:
        """Record a complete match log given as JSON Lines text (see :meth:`record`)."""
        return self.record(parse_jsonl(text))

    def append(self, match_id: str, lines: Sequence[LogLine]) -> int:
        """Append lines continuing a recorded match, all or nothing; the new version.

        Raises :class:`MatchNotFound`, :class:`AppendRejected` (``seq`` does not
        continue) or :class:`RecordConflict` (another writer appended first).
        """
        record = self.load(match_id)
        record.extend(lines)
        return self.commit(record)

    def load(self, match_id: str, upto_seq: int | None = None) -> MatchRecord:
        """The match record rebuilt from its recorded lines, up to ``upto_seq``."""
        if upto_seq is not None and upto_seq < 1:
            raise StoreError(f"upto_seq must be at least 1, not {upto_seq}")
        try:
            record: MatchRecord = self.repository.get(
                match_record_id(match_id),
                version=upto_seq,
                projector_func=project_match_record,
            )
        except AggregateNotFoundError:
            raise MatchNotFound(match_id) from None
        except CorruptRecord as exc:
            raise exc.of_match(match_id) from None
        except PersistenceError as exc:
            raise _failed(exc) from exc
        return record

    @staticmethod
    def _sign(record: MatchRecord) -> None:
        key = signing_key()
        if key is not None:
            record.sign_pending(key)

    def commit(self, record: MatchRecord) -> int:
        """Save a record's pending lines in one transaction; the record's new version.

        A version clash with another writer becomes :class:`RecordConflict` and
        nothing is written. With ``COREFLOW_SIGNING_KEY`` set, the new head is signed.
        """
        self._sign(record)
        try:
            self.save(record)
        except RecordConflictError as exc:
            raise RecordConflict(record.match_id) from exc
        except PersistenceError as exc:
            raise _failed(exc) from exc
        return record.version

    def lines(self, match_id: str, upto_seq: int | None = None) -> list[LogLine]:
        """The recorded lines of a match in ``seq`` order, up to ``upto_seq``."""
        return self.load(match_id, upto_seq).lines

    def table_lines(self, match_id: str) -> list[LogLine]:
        """The match as the table wrote it (:meth:`MatchRecord.table_lines`), unchecked:
        :meth:`evidence` is what a ruling reads."""
        return self.load(match_id).table_lines()

    def evidence(self, match_id: str) -> tuple[StoredChain, MatchRecord]:
        """A recorded match checked as evidence, and its record: :class:`RecordRefused` if
        it is none (changed outside coreflow; not signed with the key when one is set).
        A record of an older coreflow with no hash comes back with ``chain.unchained``
        (its reader says it is unverified), one whose table numbers no chain covers with
        ``chain.legacy`` (its table lines are its stored lines)."""
        chain, events = self._checked(match_id)
        if chain.problem is not None or chain.signed is False:
            raise RecordRefused(chain)
        record = project_match_record(None, events)
        assert record is not None
        record.match_id = match_id
        return chain, record

    def match_ids(self) -> list[str]:
        """Every recorded match id, in the order the matches were recorded."""
        try:
            return [e.line.match_id for e in self._match_starts()]
        except PersistenceError as exc:
            raise _failed(exc) from exc

    def summaries(self) -> list[dict[str, Any]]:
        """One summary per recorded match, in recording order: id, game, rules, format,
        players, lines, result (from its ``game_ended`` line, if any), recorded at."""
        out: list[dict[str, Any]] = []
        try:
            starts = list(self._match_starts())
        except PersistenceError as exc:
            raise _failed(exc) from exc
        for start in starts:
            header = start.line
            assert isinstance(header, MatchStarted)
            read = self._summary_lines(header.match_id)
            lines = read or []
            ended = next((ln for ln in reversed(lines) if isinstance(ln, GameEnded)), None)
            result = None
            if read is None:
                result = ("unreadable: changed outside coreflow (coreflow verify "
                          f"{header.match_id})")
            elif ended is not None:
                result = ended.result if ended.winner is None else f"{ended.winner} wins"
            out.append(dict(
                match_id=header.match_id, game=header.game, rules=header.rules,
                format=header.format, players=list(header.players), lines=len(lines),
                result=result, recorded_at=start.timestamp.isoformat()))
        return out

    def _summary_lines(self, match_id: str) -> list[LogLine] | None:
        try:
            return self.lines(match_id)
        except CorruptRecord:
            return None

    def export_jsonl(self, match_id: str) -> str:
        """The recorded log as JSON Lines with the hashes the store keeps: an edit of a
        stored row shows as a broken chain in the export too (``coreflow verify``). Lines
        recorded by an older coreflow, which kept no hashes, get a fresh chain. When the
        head was signed (``COREFLOW_SIGNING_KEY``), the last line carries the signature of
        the log's head under ``x`` (no part of the chain: ``verify`` with the key checks
        it)."""
        record = self.load(match_id)
        previous: str | None = None
        out: list[dict[str, Any]] = []
        for line in record.lines:
            if line.hash is None:
                data = canonical_dict(line)
                data["hash"] = previous = chain_hash(previous or ZERO_HASH, data)
            else:
                data = canonical_dict(line)
                data["hash"] = previous = line.hash
            out.append(data)
        if out and record.log_signature is not None:
            out[-1] = with_signature(out[-1], record.log_signature)
        return "".join(json.dumps(d, separators=(",", ":"), ensure_ascii=False) + "\n"
                       for d in out)

    def verify_record(self, match_id: str, receipt: str | None = None) -> StoredChain:
        """Check a match's stored rows (:func:`~events.evidence.check_record`): each stored
        hash against its stored line and row and the hash before it, the format the store
        says the record has, and with ``COREFLOW_SIGNING_KEY`` set its signature. A row that
        does not read (a swapped or edited row) is the first bad seq, never an error.
        ``receipt``: a head hash printed earlier, looked for along both chains."""
        return self._checked(match_id, receipt)[0]

    def check_stored(self, record_id: UUID, stored: Sequence[StoredEvent]) -> StoredChain:
        """:meth:`verify_record` of rows already read (the audit reads them itself)."""
        rows = self._decoded(stored)
        first = rows[0][1] if rows else None
        match_id = (first.line.match_id if not isinstance(first, str) and first is not None
                    and isinstance(first.line, MatchStarted) else str(record_id))
        return check_record(match_id, rows, self._of_this_format(record_id), signing_key())

    def _checked(self, match_id: str, receipt: str | None = None
                 ) -> tuple[StoredChain, list[RecordedLine]]:
        record_id = match_record_id(match_id)
        try:
            stored = self.recorder.select_events(record_id)
        except PersistenceError as exc:
            raise _failed(exc) from exc
        if not stored:
            raise MatchNotFound(match_id)
        rows = self._decoded(stored)
        chain = check_record(match_id, rows, self._of_this_format(record_id), signing_key(),
                             receipt)
        return chain, [e for _v, e in rows if not isinstance(e, str)]

    def _decoded(self, stored: Sequence[StoredEvent]) -> list[tuple[int, RecordedLine | str]]:
        """Each stored row as its recorded line, or why it does not read as one."""
        rows: list[tuple[int, RecordedLine | str]] = []
        for s in stored:
            try:
                rows.append((s.originator_version,
                             cast(RecordedLine, self.mapper.to_domain_event(s))))
            except CorruptRecord as exc:
                rows.append((s.originator_version, exc.why))
            except Exception as exc:  # noqa: BLE001 - any unreadable row is a changed row
                rows.append((s.originator_version,
                             f"does not read ({type(exc).__name__})"))
        return rows

    def store_meta(self) -> StoreMeta | None:
        """The store's format record (:class:`~events.evidence.StoreMeta`), None if the
        store has none (written only by an older coreflow, or the record removed)."""
        try:
            return parse_meta(_backend_meta(self.recorder))
        except PersistenceError as exc:
            raise _failed(exc) from exc

    def format_record_lost(self) -> bool:
        """Whether the store has no format record although rows of this format are in it
        (the record was removed outside coreflow)."""
        return self.store_meta() is None and self._of_this_format(None)

    def _of_this_format(self, record_id: UUID | None) -> bool:
        """Whether the store says the record was written in this version's format. A store
        with no format record but rows of this format (marked) lost its record: all of its
        records are then held to this format."""
        meta = self.store_meta()
        if meta is None:
            if self._marked is None:
                try:
                    self._marked = _backend_has_marks(self.recorder)
                except PersistenceError as exc:
                    raise _failed(exc) from exc
            return self._marked
        if meta.since == 0 or record_id is None:
            return True
        try:
            first = _backend_first_id(self.recorder, record_id)
        except PersistenceError as exc:
            raise _failed(exc) from exc
        return first is None or first > meta.since

    def _exists(self, record_id: UUID) -> bool:
        try:
            return bool(self.recorder.select_events(record_id, limit=1))
        except PersistenceError as exc:
            raise _failed(exc) from exc

    def _match_starts(self) -> Iterator[RecordedMatchStarted]:
        start: int | None = None
        while True:
            page = self.recorder.select_notifications(
                start,
                self.notification_page_size,
                topics=MATCH_STARTED_TOPICS,
                inclusive_of_start=False,
            )
            for notification in page:
                yield cast(RecordedMatchStarted, self.mapper.to_domain_event(notification))
            if len(page) < self.notification_page_size:
                return
            start = page[-1].id


def _failed(exc: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"the event store failed: {exc}")


def with_signature(data: dict[str, Any], signature: str) -> dict[str, Any]:
    """A line's JSON object with the organiser's signature under ``x`` (before ``hash``)."""
    out = {k: v for k, v in data.items() if k != "hash"}
    out["x"] = {**(out.get("x") or {}), SIGNATURE_KEY: signature}
    if "hash" in data:
        out["hash"] = data["hash"]
    return out


def _backend_meta(recorder: Any) -> str | None:
    """The text of the store's format record, from whichever database keeps the store."""
    from eventsourcing.sqlite import SQLiteAggregateRecorder

    if isinstance(recorder, SQLiteAggregateRecorder):
        from coreflow_judge.events.sqlitewriter import read_meta

        return read_meta(recorder)
    pg = sys.modules.get("eventsourcing.postgres")
    if pg is not None and isinstance(recorder, pg.PostgresAggregateRecorder):
        from coreflow_judge.events.pg import read_meta as read_pg_meta

        return read_pg_meta(recorder)
    return StoreMeta(STORE_FORMAT, 0).text()  # in memory: made by this version


def _backend_has_marks(recorder: Any) -> bool:
    """Whether any stored row carries this format's mark (a store without its format
    record: one whose record was removed has some)."""
    from eventsourcing.sqlite import SQLiteAggregateRecorder

    if isinstance(recorder, SQLiteAggregateRecorder):
        from coreflow_judge.events.sqlitewriter import has_marks

        return has_marks(recorder)
    pg = sys.modules.get("eventsourcing.postgres")
    if pg is not None and isinstance(recorder, pg.PostgresAggregateRecorder):
        from coreflow_judge.events.pg import has_marks as has_pg_marks

        return has_pg_marks(recorder)
    return True


def _backend_first_id(recorder: Any, record_id: UUID) -> int | None:
    """The notification id of a record's first row (None: no such row)."""
    from eventsourcing.sqlite import SQLiteAggregateRecorder

    if isinstance(recorder, SQLiteAggregateRecorder):
        from coreflow_judge.events.sqlitewriter import first_id

        return first_id(recorder, record_id)
    from coreflow_judge.events.pg import first_id as first_pg_id

    return first_pg_id(recorder, record_id)


def parse_jsonl(text: str) -> list[LogLine]:
    """The lines of a JSONL match log; :class:`LogRejected` names the first bad line."""
    lines: list[LogLine] = []
    for _no, item in iter_lines(text.splitlines()):
        if isinstance(item, LineError):
            raise LogRejected(str(item))
        lines.append(item)
    return lines


# ----------------------------------------------------------------- configuration


def store_env(store: str | None = None) -> dict[str, str]:
    """The eventsourcing environment for a store path or PostgreSQL URL.

    ``store`` falls back to ``$COREFLOW_STORE``, then ``./coreflow.db``. A
    ``postgresql://user:password@host:port/dbname`` URL selects PostgreSQL
    (``?host=/socket/dir`` and ``?schema=name`` are understood); anything else is a
    SQLite database file (``:memory:`` for a throwaway one).
    """
    store = store or os.environ.get(STORE_ENV_VAR) or DEFAULT_STORE
    if store.startswith(("postgresql://", "postgres://")):
        url = urlsplit(store)
        query = parse_qs(url.query)
        dbname = unquote(url.path.lstrip("/"))
        if not dbname:
            raise StoreUnavailable(f"{_redact(store)}: the URL names no database")
        host = url.hostname or query.get("host", [""])[0]
        env = {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            # Large records in bounded chunks, under a statement timeout (events/pg.py).
            "APPLICATION_RECORDER_TOPIC":
                "coreflow_judge.events.pg:ChunkedApplicationRecorder",
            "POSTGRES_LOCK_TIMEOUT": "30",
            "POSTGRES_DBNAME": dbname,
            "POSTGRES_HOST": host,
            "POSTGRES_PORT": str(_port(url, store) or 5432),
            "POSTGRES_USER": unquote(url.username or "")
            or os.environ.get("PGUSER", "postgres"),
            # Without a password in the URL, libpq's own sources: $PGPASSWORD here (the
            # pool would otherwise hand libpq an empty password, which hides it), and
            # ~/.pgpass, which libpq reads itself.
            "POSTGRES_PASSWORD": unquote(url.password or "") or os.environ.get("PGPASSWORD", ""),
        }
        if "schema" in query:
            env["POSTGRES_SCHEMA"] = query["schema"][0]
        return env
    if store.startswith("sqlite:///"):
        store = store.removeprefix("sqlite:///")
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": store}


def _port(url: SplitResult, store: str) -> int | None:
    try:
        return url.port
    except ValueError:  # ``host:notaport``
        port = url.netloc.rpartition(":")[2]
        raise StoreUnavailable(f"{_redact(store)}: the port {port!r} is not a number "
                               "(postgresql://user@host:5432/dbname)") from None


def open_recorder(store: str | None = None, read_only: bool = False) -> MatchRecorder:
    """Open the recorder on a store (see :func:`store_env`); close it when done.

    A SQLite file that is another program's database is refused before anything is
    written to it (:func:`~events.storefile.check_sqlite_store`). ``read_only`` opens a
    SQLite store for reading only: nothing is created or written, and a file we may not
    write can still be read. A PostgreSQL server is tried once first, so that a failure
    names its cause (:func:`~events.storefile.check_postgres`).
    """
    env = store_env(store)
    db = env.get("SQLITE_DBNAME")
    where = db or _redact(store or os.environ.get(STORE_ENV_VAR, ""))
    try:
        budget = busy_budget()
    except BadBusyTimeout as exc:
        raise StoreUnavailable(f"cannot open the event store {where}: {exc}") from None
    if db is not None and os.path.isdir(db):
        raise StoreUnavailable(f"cannot open the event store {db}: a directory, not a SQLite "
                               f"file (name a file in it, e.g. {os.path.join(db, 'coreflow.db')})")
    try:
        if db is not None:
            ours = retrying(lambda _attempt: check_sqlite_store(db), "opening the event store")
            if read_only and ours:
                return _read_only_recorder(env, db)
            if read_only and is_plain_path(db):  # nothing to read, and nothing is created
                raise StoreUnavailable(
                    f"no match is recorded in {db} (a SQLite database without coreflow's "
                    "table)" if os.path.exists(db) else f"no event store at {db}")
            # Writers wait for each other (events/sqlitewriter.py), in SQLite's busy
            # handler first: its timeout is the whole budget.
            env["APPLICATION_RECORDER_TOPIC"] = \
                "coreflow_judge.events.sqlitewriter:WaitingSQLiteApplicationRecorder"
            env["SQLITE_LOCK_TIMEOUT"] = str(max(1, math.ceil(budget)))
        else:
            cause = _check_postgres_waiting(env, budget)
            if cause is not None:
                raise StoreUnavailable(f"cannot open the event store {where}: {cause}")
        return retrying(lambda _attempt: MatchRecorder(env=env), "opening the event store")
    except NotOurStore as exc:
        raise StoreUnavailable(f"cannot use {where} as the event store: {exc}") from exc
    except (EventSourcingError, PersistenceError, OSError, sqlite3.Error) as exc:
        # sqlite3.Error: a file that is not a SQLite database ("file is not a database").
        raise StoreUnavailable(f"cannot open the event store {where}: {exc}") from exc


def _check_postgres_waiting(env: dict[str, str], budget: float) -> str | None:
    """:func:`check_postgres`, waiting (within the budget) while every connection slot of
    the server is taken: a tournament's other tables will finish and free theirs."""
    next_pause = pauses(budget)
    while True:
        cause = check_postgres(env, float(MatchRecorder.env["POSTGRES_CONNECT_TIMEOUT"]))
        if cause is None or not busy_message(cause):
            return cause
        pause = next_pause()
        if pause is None:
            return f"{cause} (still, after {budget:.0f} s)"
        time.sleep(pause)


def _read_only_recorder(env: dict[str, str], db: str) -> MatchRecorder:
    """The recorder on a SQLite store opened ``mode=ro`` (immutable when it must be)."""
    env = {**env, "SQLITE_DBNAME": read_only_uri(db), "CREATE_TABLE": "false"}
    recorder = MatchRecorder(env=env)
    try:
        recorder.recorder.max_notification_id()  # the first connection: can it read?
        return recorder
    except (PersistenceError, sqlite3.OperationalError):
        recorder.close()
        if not may_read_immutable(db):
            raise
    return MatchRecorder(env={**env, "SQLITE_DBNAME": read_only_uri(db, immutable=True)})


def without_password(store: str) -> tuple[str, bool]:
    """A store as a printed command may name it: a PostgreSQL URL without its password
    (in the user part or a ``password=`` parameter); and whether one was left out."""
    if not store.startswith(("postgresql://", "postgres://")):
        return store, False
    url = urlsplit(store)
    netloc, removed = url.netloc, False
    userinfo, at, hostport = netloc.rpartition("@")
    if at and ":" in userinfo:
        netloc, removed = f"{userinfo.partition(':')[0]}@{hostport}", True
    query = parse_qsl(url.query, keep_blank_values=True)
    kept = [(k, v) for k, v in query if k != "password"]
    removed = removed or len(kept) != len(query)
    return urlunsplit(url._replace(netloc=netloc, query=urlencode(kept))), removed


def _redact(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@", 1)
    return url
