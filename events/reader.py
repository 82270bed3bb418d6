"""Streaming JSONL reading, canonical JSON and the hash chain of the match log."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from coreflow_judge.events.models import (
    CORE_LINES,
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_LOG_LINES,
    FreeFormError,
    GameLines,
    LogLine,
    MatchStarted,
)
from coreflow_judge.events.printable import (
    LABEL_PATTERN,
    NAME_PATTERN,
    NAME_RULE,
    escaped,
    name_problem,
)
from pydantic import ValidationError

ZERO_HASH = "0" * 64


@dataclass(frozen=True, slots=True)
class LineError:
    """Why one physical line of a log is not a valid event (``log.malformed``)."""

    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: field {self.field!r}: {self.message}"


class LogReadError(Exception):
    """The input could not be read at all (missing file, not UTF-8)."""


class LogTooLong(LogReadError):
    """The log is longer than one match may be (:data:`MAX_LOG_LINES` lines or
    :data:`MAX_LOG_BYTES` bytes): refused whole, naming the line where it went past."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(f"line {line}: field '(log)': the log is longer than {what}, the "
                         "limit of one match's log")
        self.line = line


def _field_of(err: Mapping[str, Any]) -> str:
    loc = [_part(p) for p in err.get("loc", ())]
    # The discriminated union puts the type tag first in the location; drop it.
    if len(loc) >= 1 and loc[0] in _TYPE_TAGS:
        loc = loc[1:]
    # A field that is a union (``cards``: object or list) adds the member's name.
    loc = [p for p in loc if p not in _UNION_MEMBERS]
    return ".".join(loc) if loc else "type"


def _part(part: object, limit: int = 40) -> str:
    """One step of a field's path (a key the log wrote may be anything): escaped, cut."""
    text = escaped(str(part))
    return text if len(text) <= limit else text[:limit - 3] + "..."


_TYPE_TAGS = {
    "match_started", "game_started", "turn_started", "chance_moved", "request", "pass",
    "trigger", "stage", "discard", "resolve", "roll", "taken_back", "game_ended",
}
_UNION_MEMBERS = {"dict[str,any]", "list[any]", "int", "str", "none"}

#: pydantic's wording, as a judge reads it.
_PLAIN = {
    "missing": "missing (the field is required)",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "bool_type": "must be true or false",
    "extra_forbidden": "unknown field (vendor extensions belong under 'x')",
}


def _shown(value: Any, limit: int = 40) -> str:
    """A short JSON rendering of the offending value."""
    try:
        text = escaped(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _plain_message(err: Mapping[str, Any]) -> str:
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    msg = _PLAIN.get(kind) or str(err.get("msg", "invalid"))
    if kind == "greater_than_equal":
        msg = f"must be {ctx.get('ge')} or more"
    elif kind == "less_than_equal":
        msg = f"must be {ctx.get('le')} or less"
    elif kind == "too_long":
        msg = f"must have at most {ctx.get('max_length')} items"
    elif kind == "literal_error":
        msg = f"must be {ctx.get('expected')}"
    elif kind == "string_too_short" and ctx.get("min_length") == 1:
        msg = "must not be empty"
    elif kind == "string_too_long":
        msg = f"must be at most {ctx.get('max_length')} characters"
    elif kind == "too_short":
        msg = f"must have at least {ctx.get('min_length')} items"
    elif kind == "string_pattern_mismatch" and "A-Za-z0-9" in str(ctx.get("pattern")):
        msg = "must be 1-128 letters, digits, '.', '_' or '-'"
    elif kind == "string_pattern_mismatch" and ctx.get("pattern") == NAME_PATTERN:
        msg = name_problem(str(err.get("input", ""))) or f"must be {NAME_RULE}"
    elif kind == "string_pattern_mismatch" and ctx.get("pattern") == LABEL_PATTERN:
        msg = "must be printable text (no control or invisible character)"
    msg = msg.removeprefix("Value error, ")
    if kind != "missing" and "input" in err and kind != "extra_forbidden":
        msg += f" (got {_shown(err['input'])})"
    return msg


def parse_line(text: str | bytes, line_no: int,
               lines: GameLines | None = None) -> LogLine | LineError:
    """Validate one JSON line with the models of its game (``lines``; a header names its
    own, :func:`header_lines`); never raises for bad content."""
    lines = lines or header_lines(text) or CORE_LINES
    try:
        return lines.validate_json(text)
    except ValidationError as exc:
        return _line_error(exc, text, line_no, lines)


def header_lines(raw: str | bytes) -> GameLines | None:
    """The line models of the game a ``match_started`` line names, if it names a game
    that is registered and loads (None otherwise: the core's models then read the line,
    and name what is wrong with it)."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return None
    return lines_of_data(data)


def lines_of_data(data: Any) -> GameLines | None:
    """:func:`header_lines` of a line already parsed from JSON."""
    if not isinstance(data, dict) or data.get("type") != "match_started":
        return None
    game = data.get("game")
    if not isinstance(game, str):
        return None
    from coreflow_judge.adjudicator.game import UnsupportedRules
    from coreflow_judge.adjudicator.plugins import game_plugin, is_registered

    if not is_registered(game):
        return None
    try:
        return game_plugin(game).lines
    except UnsupportedRules:
        return None


def lines_of_header(header: MatchStarted) -> GameLines:
    """The line models of a header's game (the core's if it is not registered)."""
    from coreflow_judge.adjudicator.game import UnsupportedRules
    from coreflow_judge.adjudicator.plugins import game_plugin

    try:
        return game_plugin(header.game).lines
    except UnsupportedRules:
        return CORE_LINES


def _json_problem(parser_message: str) -> str:
    """The JSON parser's complaint about one line, in the line's own terms."""
    msg = parser_message.removeprefix("Invalid JSON: ")
    # The line's newline is part of what is parsed: a line cut short inside a string or
    # an object ends "at line 2 column 0" or "EOF while parsing".
    cut = re.match(r"(?:EOF|control character \S+ found) while parsing (an? \w+)"
                   r"(?: at line 2 column 0)?", msg)
    if cut and ("EOF" in msg or msg.endswith("at line 2 column 0")):
        return f"the line ends inside {cut.group(1)} (is it cut short?)"
    # The parser counts within the line: "line 1 column 93" is column 93 of this line.
    return re.sub(r" at line 1 column (\d+)$", r" at column \1", msg)


def _line_error(exc: ValidationError, text: str | bytes, line_no: int,
                lines: GameLines = CORE_LINES) -> LineError:
    """Name the line and the field a validation error is about, in plain words (a field
    the line's game does not declare: named as the game's)."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        if isinstance(text, bytes):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as bad:
                return LineError(line_no, "(encoding)",
                                 f"not UTF-8: {bad.reason} at byte {bad.start + 1}")
        return LineError(line_no, "(json)", f"not valid JSON: {_json_problem(first['msg'])}")
    if not first["loc"] and first["type"] in ("model_type", "model_attributes_type",
                                              "dict_type"):
        return LineError(line_no, "(line)",
                         f"a line must be a JSON object (got {_shown(first.get('input'))})")
    if first["type"] == "union_tag_not_found":
        return LineError(line_no, "type", "missing: every line names its type "
                         "(match_started, request, pass, resolve, ...)")
    if first["type"] == "union_tag_invalid":
        ctx = first.get("ctx") or {}
        return LineError(line_no, "type", f"unknown line type {_shown(ctx.get('tag'))} "
                         f"(known: {', '.join(sorted(_TYPE_TAGS))})")
    field = _field_of(first)
    msg = _plain_message(first)
    inner = (first.get("ctx") or {}).get("error")
    if isinstance(inner, FreeFormError):  # where inside a free-form field
        field = f"{field}.{inner.path}" if inner.path else field
        msg = str(inner)
    if first["type"] == "extra_forbidden":
        kind = first["loc"][0] if first["loc"] else None
        if lines.game is not None and kind in _TYPE_TAGS:
            msg = (f"unknown field: not a field of a {lines.game} {kind} line (vendor "
                   "extensions belong under 'x')")
        else:
            msg = "unknown field (vendor extensions belong under 'x')"
    # A union field fails once per member: say it once, with every member's wording.
    same = [e for e in errors[1:] if _field_of(e) == field]
    for other in same:
        alt = _PLAIN.get(str(other["type"])) or str(other["msg"])
        msg = msg.replace(" (got", f" or {alt.removeprefix('must be ')} (got", 1)
    others = list(dict.fromkeys(_field_of(e) for e in errors[1:] if _field_of(e) != field))
    if others:
        shown = ", ".join(repr(o) for o in others[:3]) + (", ..." if len(others) > 3 else "")
        msg += f"; also wrong: {shown}"
    return LineError(line_no, field, msg)


def iter_lines(source: Iterable[bytes | str], lines: GameLines | None = None
               ) -> Iterator[tuple[int, LogLine | LineError]]:
    """Yield ``(line number, event or error)`` for each non-blank physical line.

    Every line is read with the models of the game its header names (:class:`GameLines`,
    from the game's plugin): a field the game does not declare, or a cost kind it does not
    name, is an error of that line. ``lines``: the game's models when the header was read
    before (a log continued); otherwise the first ``match_started`` line names them, and
    until one does, the core's read (a game's own fields refused).

    Bytes go to the validator as they are (it checks the UTF-8 itself): the judge's
    reading costs little more than parsing the JSON.
    """
    current = lines
    reading = lines or CORE_LINES
    count = size = 0
    for no, raw in enumerate(source, start=1):
        size += len(raw)
        if size > MAX_LOG_BYTES:
            raise LogTooLong(no, f"{MAX_LOG_BYTES:,} bytes")
        if not raw or raw.isspace():
            continue
        count += 1
        if count > MAX_LOG_LINES:
            raise LogTooLong(no, f"{MAX_LOG_LINES:,} lines")
        if len(raw) > MAX_LINE_BYTES and len(raw.encode("utf-8") if isinstance(raw, str)
                                             else raw) > MAX_LINE_BYTES:
            yield no, LineError(no, "(line)", f"longer than {MAX_LINE_BYTES} bytes "
                                "(the limit of a log line)")
            continue
        if current is None:
            found = header_lines(raw)
            if found is not None:
                current = reading = found
        try:
            yield no, reading.validate_json(raw)
        except ValidationError as exc:
            yield no, _line_error(exc, raw, no, reading)


def bounded_lines(fh: IO[bytes]) -> Iterator[bytes]:
    """The physical lines of a binary file, each held to :data:`MAX_LINE_BYTES` + 1 bytes:
    the rest of a longer line is read and dropped (the line is an error anyway), so a
    gigabyte without a newline costs no more memory than a line at the limit."""
    limit = MAX_LINE_BYTES + 1
    while True:
        raw = fh.readline(limit)
        if not raw:
            return
        if len(raw) == limit and not raw.endswith(b"\n"):
            while True:  # skip to the end of this line
                rest = fh.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    break
        yield raw


def read_log(path: Path) -> list[tuple[int, LogLine | LineError]]:
    """Read a whole log file; raise :class:`LogReadError` if it cannot be opened."""
    try:
        with path.open("rb") as fh:
            return list(iter_lines(bounded_lines(fh)))
    except OSError as exc:
        raise LogReadError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except LogTooLong as exc:
        raise LogReadError(f"{path}: {exc}") from exc


SIGNATURE_KEY = "coreflow_signature"
"""The key under ``x`` of a log's last line that carries the organiser's signature of the
log's head hash (``COREFLOW_SIGNING_KEY``, :mod:`events.evidence`). Like ``hash`` it is
no part of the line's canonical JSON: the signature is of the chain, not in it."""


def canonical_dict(line: LogLine) -> dict[str, Any]:
    """The line as a plain dict: unset optional fields left out, ``hash`` and the
    signature (:data:`SIGNATURE_KEY` under ``x``) excluded."""
    data = line.model_dump(mode="json", exclude_none=True, exclude={"hash"})
    x = data.get("x")
    if x is not None and SIGNATURE_KEY in x:
        rest = {k: v for k, v in x.items() if k != SIGNATURE_KEY}
        if rest:
            data["x"] = rest
        else:
            del data["x"]
    return data


def canonical_json(line: LogLine | dict[str, Any]) -> str:
    """Keys sorted, no spaces: the form that is hashed."""
    data = line if isinstance(line, dict) else canonical_dict(line)
    data = {k: v for k, v in data.items() if k != "hash"}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(previous: str, line: LogLine | dict[str, Any]) -> str:
    """``sha256(previous hash + canonical JSON of the line without hash)`` in hex."""
    return hashlib.sha256((previous + canonical_json(line)).encode("utf-8")).hexdigest()


def dump_line(line: LogLine, previous_hash: str | None = None) -> tuple[str, str]:
    """Serialise a line for a complete log, with its chain hash; returns (text, hash)."""
    data = canonical_dict(line)
    h = chain_hash(previous_hash or ZERO_HASH, data)
    data["hash"] = h
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False), h


@dataclass(frozen=True, slots=True)
class ChainBreak:
    line: int
    seq: int
    expected: str
    actual: str | None


def verify_chain(lines: Iterable[tuple[int, LogLine]]) -> list[ChainBreak]:
    """Check every ``hash``; the chain continues from the recomputed value."""
    previous = ZERO_HASH
    breaks: list[ChainBreak] = []
    for no, line in lines:
        expected = chain_hash(previous, line)
        if line.hash != expected:
            breaks.append(ChainBreak(no, line.seq, expected, line.hash))
        previous = expected
    return breaks
