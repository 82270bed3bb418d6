"""Receipts: the head hash of a recorded match, printed (or kept in a receipts file) so
that the record can be checked later against what was recorded (``coreflow verify``).

A receipt is worth something only if it can be checked as printed, so the command it
prints names the store it was taken from (``--store``, shell-quoted; a PostgreSQL URL
without its password, which the reader supplies as libpq reads it: ``$PGPASSWORD`` or
``~/.pgpass``). A batch of logs keeps its receipts in a file, one row per match
(:data:`HEADER`; docs/store.md, "Receipts"), which ``coreflow verify --receipts FILE``
checks at once.

Standard library only: ``coreflow --help`` imports none of this.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

HEADER = "match_id\thead\tlines\tlog_head"
"""The first line of a receipts file: tab-separated columns, one row per receipt."""
_HEX = frozenset("0123456789abcdef")
_STORE_ENV_VAR = "COREFLOW_STORE"  # events.store.STORE_ENV_VAR, without importing the store


class ReceiptsError(Exception):
    """A receipts file that cannot be read or written (the message names the line)."""


@dataclass(frozen=True, slots=True)
class Receipt:
    """What a match's record was when the receipt was taken: ``lines`` stored lines whose
    record chain (the lines and the table's line numbers) ends with ``head``, and whose
    exported log (``coreflow log``) ends with ``log_head`` (the same hash unless the table
    numbered its lines otherwise than the record)."""

    match_id: str
    head: str
    lines: int
    log_head: str

    def row(self) -> str:
        """The receipt as a row of a receipts file."""
        return f"{self.match_id}\t{self.head}\t{self.lines}\t{self.log_head}"


def store_words(store: str | None) -> tuple[str, str]:
    """`` --store STORE`` for a command printed to be run later, and what to say about a
    password left out of it.

    The store is the one the command used: ``--store``, else ``$COREFLOW_STORE`` (named
    in the command, so that it works where the variable is not set), else none (the
    default ``./coreflow.db`` needs no option). Shell-quoted; a PostgreSQL URL loses its
    password (:func:`~events.store.without_password`)."""
    from coreflow_judge.events.store import without_password

    given = store or os.environ.get(_STORE_ENV_VAR)
    if not given:
        return "", ""
    shown, removed = without_password(given)
    note = ("; the store's password is not printed: give it in $PGPASSWORD or ~/.pgpass"
            if removed else "")
    return f" --store {shlex.quote(shown)}", note


def verify_command(receipt: Receipt, store: str | None) -> str:
    """The command that checks a receipt, as it can be run."""
    option, _note = store_words(store)
    return f"coreflow verify {shlex.quote(receipt.match_id)}{option} --head {receipt.head}"


def receipt_text(receipt: Receipt, store: str | None, how: str = "recorded",
                 at_a_break: bool = False) -> str:
    """The receipt line ``record`` and ``play`` print on standard error (``how`` the lines
    came to be there: ``recorded``): the record's head hash and the command that checks it;
    where the table numbered its lines otherwise than the record, the head of the log
    ``coreflow log`` exports, and how to check that file; ``at_a_break`` (``play`` left
    before the game ended), how to go on, and that the receipt still checks the record
    then; a password left out of the store."""
    option, note = store_words(store)
    match = shlex.quote(receipt.match_id)
    text = (f"{receipt.match_id}: {how} {receipt.lines} lines; head hash {receipt.head} "
            f"({verify_command(receipt, store)})")
    if receipt.log_head != receipt.head:
        file = shlex.quote(f"{receipt.match_id}.jsonl")
        text += (f"; the log it exports ends with {receipt.log_head} instead, the table's "
                 f"line numbers being no part of a log file (coreflow log {match}{option} > "
                 f"{file}; coreflow verify {file} --head {receipt.log_head})")
    if at_a_break:
        text += (f"; a break: coreflow play --resume {match}{option} goes on, and this "
                 "receipt still checks the lines up to here")
    return text + note


def summary_text(recorded: int, lines: int, already: int, failed: int,
                 receipts: Path | None, store: str | None) -> str:
    """The one line ``record`` of several logs ends with."""
    option, note = store_words(store)
    s = "" if recorded == 1 else "es"
    parts = [f"recorded {recorded} match{s} ({lines:,} lines)"]
    if already:
        parts.append(f"{already} already recorded with the same content")
    if failed:
        parts.append(f"{failed} not recorded (said above)")
    text = ", ".join(parts)
    if receipts is not None:
        file = shlex.quote(str(receipts))
        return (f"{text}; receipts in {receipts} (coreflow verify --receipts {file}{option})"
                + note)
    return text + "; --receipts FILE keeps the receipts in one file instead of here"


def read_receipts(path: Path) -> list[tuple[int, Receipt]]:
    """The rows of a receipts file, each with its line number. Blank lines, ``#``
    comments and the header (also repeated, as in files joined together) are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReceiptsError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    rows: list[tuple[int, Receipt]] = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#") or line == HEADER:
            continue
        rows.append((no, _parse_row(path, no, line)))
    if not rows:
        raise ReceiptsError(f"{path}: no receipt in it (rows: {HEADER.replace(chr(9), ' TAB ')})")
    return rows


def _parse_row(path: Path, no: int, line: str) -> Receipt:
    fields = line.split("\t")
    where = f"{path}, line {no}"
    if len(fields) not in (3, 4):
        raise ReceiptsError(f"{where}: {len(fields)} tab-separated fields, not the 4 of "
                            f"{HEADER.replace(chr(9), ' TAB ')}")
    match_id, head, lines = fields[:3]
    log_head = fields[3] if len(fields) == 4 else head
    for name, value in (("head", head), ("log_head", log_head)):
        if len(value) != 64 or not set(value) <= _HEX:
            raise ReceiptsError(f"{where}: {name} {value[:80]!r} is not a sha256 hash "
                                "(64 lowercase hex digits)")
    if not lines.isdigit() or int(lines) < 1 or len(lines) > 18:
        raise ReceiptsError(f"{where}: lines {lines[:80]!r} is not a count of lines")
    if not match_id:
        raise ReceiptsError(f"{where}: no match id")
    return Receipt(match_id, head, int(lines), log_head)


class ReceiptsFile:
    """A receipts file being written: rows are added to what it holds (a batch recorded in
    several runs keeps every receipt), each written out as soon as its match is recorded,
    and a row the file already holds is not written twice."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._out: TextIO | None = None
        self._held: set[str] = set()

    def __enter__(self) -> ReceiptsFile:
        if self.path.is_dir():
            raise ReceiptsError(f"--receipts {self.path}: a directory; give a file")
        try:
            held = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise ReceiptsError(f"--receipts {self.path}: "
                                f"{getattr(exc, 'strerror', None) or exc}") from None
        self._held = set(held.splitlines())
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._out = self.path.open("a", encoding="utf-8", newline="\n")
        except OSError as exc:
            raise ReceiptsError(f"--receipts {self.path}: {exc.strerror or exc}") from None
        if not held.strip():
            self._write([HEADER])
        elif not held.endswith("\n"):
            self._write([""])
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._out is not None:
            self._out.close()

    def add(self, receipt: Receipt) -> None:
        row = receipt.row()
        if row not in self._held:
            self._write([row])
            self._held.add(row)

    def _write(self, rows: Iterable[str]) -> None:
        assert self._out is not None
        self._out.write("".join(f"{r}\n" for r in rows))
        self._out.flush()
