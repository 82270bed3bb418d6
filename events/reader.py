"""Streaming JSONL reading, canonical JSON and the hash chain of the match log."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from events.models import LINE_ADAPTER, LogLine

ZERO_HASH = "0" * 64
_validate_json = LINE_ADAPTER.validator.validate_json


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


def _field_of(err: Mapping[str, Any]) -> str:
    loc = [str(p) for p in err.get("loc", ())]
    # The discriminated union puts the type tag first in the location; drop it.
    if len(loc) >= 1 and loc[0] in _TYPE_TAGS:
        loc = loc[1:]
    return ".".join(loc) if loc else "type"


_TYPE_TAGS = {
    "match_started", "game_started", "turn_started", "chance_moved", "request", "pass",
    "trigger", "stage", "discard", "resolve", "roll", "game_ended",
}


def parse_line(text: str | bytes, line_no: int) -> LogLine | LineError:
    """Validate one JSON line; never raises for bad content."""
    try:
        return _validate_json(text)  # type: ignore[no-any-return]
    except ValidationError as exc:
        return _line_error(exc, text, line_no)


def _line_error(exc: ValidationError, text: str | bytes, line_no: int) -> LineError:
    """Name the line and the field a validation error is about."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        if isinstance(text, bytes):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as bad:
                return LineError(line_no, "(encoding)", f"not UTF-8: {bad.reason}")
        return LineError(line_no, "(json)", f"not valid JSON: {first['msg']}")
    if first["type"] == "model_type" or first["type"] == "model_attributes_type":
        return LineError(line_no, "(line)", "a line must be a JSON object")
    if first["type"] in ("union_tag_not_found", "union_tag_invalid"):
        return LineError(line_no, "type", first["msg"])
    field = _field_of(first)
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = "unknown field (vendor extensions belong under 'x')"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return LineError(line_no, field, msg + more)


def iter_lines(source: Iterable[bytes | str]) -> Iterator[tuple[int, LogLine | LineError]]:
    """Yield ``(line number, event or error)`` for each non-blank physical line.

    Bytes go to the validator as they are (it checks the UTF-8 itself): the judge's
    reading costs little more than parsing the JSON.
    """
    validate = _validate_json
    for no, raw in enumerate(source, start=1):
        if not raw or raw.isspace():
            continue
        try:
            yield no, validate(raw)
        except ValidationError as exc:
            yield no, _line_error(exc, raw, no)


def read_log(path: Path) -> list[tuple[int, LogLine | LineError]]:
    """Read a whole log file; raise :class:`LogReadError` if it cannot be opened."""
    try:
        with path.open("rb") as fh:
            return list(iter_lines(fh))
    except OSError as exc:
        raise LogReadError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def canonical_dict(line: LogLine) -> dict[str, Any]:
    """The line as a plain dict: unset optional fields left out, ``hash`` excluded."""
    return line.model_dump(mode="json", exclude_none=True, exclude={"hash"})


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
