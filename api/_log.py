"""Logs, judging, boards and what the rules want next (the public API's first half).

Everything here drives the same engine as the ``coreflow`` command: a :class:`Log` is
judged by :func:`adjudicator.judge.judge_lines`, its board is
:class:`projections.board.BoardProjector`'s and what the rules wanted next is
:func:`adjudicator.next_step.next_step`'s. No rule is decided here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.judge import (
    JudgeInputError,
    Report,
    judge_lines,
    normalize_lines,
)
from coreflow_judge.adjudicator.next_step import NextStep
from coreflow_judge.adjudicator.next_step import next_step as _next_step
from coreflow_judge.events.models import LogLine, MatchStarted
from coreflow_judge.events.reader import LineError, dump_line, iter_lines
from coreflow_judge.events.reader import read_log as _read

if TYPE_CHECKING:
    from coreflow_judge.events.store import MatchRecorder
    from coreflow_judge.projections.board import BoardProjector

JUDGE_VIEW = "judge"
"""The view that sees everything (``projections.view.JUDGE``)."""

PathLike = str | os.PathLike[str]


class MatchNotRecorded(LookupError):
    """No match with that id in the store: says which store was searched and which
    recorded ids are near the one asked for."""

    def __init__(self, match_id: str, store: str, near: Sequence[str] = ()) -> None:
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        super().__init__(f"no match {match_id!r} is recorded in {store}{hint}")
        self.match_id = match_id
        self.store = store
        self.near = tuple(near)


@dataclass(frozen=True, slots=True, eq=False)
class Log:
    """One match log as read: every line, a line model or the error that names why it is
    not one (``items``: ``(line number, line)`` pairs), and where it came from.

    A malformed line is kept: :meth:`judge` reports it as ``log.malformed`` and judges
    the rest, as ``coreflow judge`` does. Make one with :func:`read_log`,
    :func:`parse_log` or :func:`load_match`.
    """

    items: tuple[tuple[int, LogLine | LineError], ...]
    source: str
    """The file's path, ``<text>`` for :func:`parse_log`, or the store a recorded match
    was loaded from."""
    _boards: list[BoardProjector] = field(default_factory=list, repr=False)

    # ------------------------------------------------------------------ reading
    @property
    def header(self) -> MatchStarted:
        """Line 1, the ``match_started`` line (:class:`JudgeInputError` if it is not)."""
        if not self.items:
            raise JudgeInputError(1, "(line)", "the log is empty")
        no, first = self.items[0]
        if isinstance(first, LineError):
            raise JudgeInputError(first.line, first.field, first.message)
        if not isinstance(first, MatchStarted):
            raise JudgeInputError(no, "type", "line 1 must be match_started")
        return first

    @property
    def match_id(self) -> str:
        return self.header.match_id

    @property
    def lines(self) -> list[LogLine]:
        """The lines that are valid log lines, in order (malformed ones left out)."""
        return [item for _no, item in self.items if not isinstance(item, LineError)]

    @property
    def malformed(self) -> list[LineError]:
        """The lines that are not valid log lines: each names its line and field."""
        return [item for _no, item in self.items if isinstance(item, LineError)]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[LogLine | LineError]:
        return (item for _no, item in self.items)

    # ------------------------------------------------------------------ judging
    def judge(self) -> Report:
        """The judge's report: every finding, the rules' result (see :func:`judge`)."""
        return judge_lines(self.items)

    def complete(self) -> list[LogLine]:
        """The complete log: every derived line filled in, renumbered (what ``coreflow
        normalize`` prints and ``coreflow record`` keeps)."""
        return normalize_lines(self._valid())

    def complete_jsonl(self) -> str:
        """:meth:`complete` as hash-chained JSON Lines text."""
        previous: str | None = None
        out: list[str] = []
        for line in self.complete():
            text, previous = dump_line(line, previous)
            out.append(text + "\n")
        return "".join(out)

    def board(self, at: int | None = None, view: str = JUDGE_VIEW) -> dict[str, Any]:
        """The board after line ``at`` (default: the last), as ``coreflow board --format
        json`` gives it; ``view``: ``judge`` (everything), a player, or ``spectator``
        (hidden cards replaced)."""
        projector = self._projector()
        if view == JUDGE_VIEW:
            return projector.at(at)
        from coreflow_judge.projections.view import match_view

        return match_view(projector, view).board(at)

    def next_step(self, at: int | None = None) -> NextStep:
        """What the rules wanted next after line ``at`` (default: the last): whose
        decision it is and, when a player holds the chance, the requests their timing
        allows (``NextStep.requests``); see :func:`next_step`."""
        return _next_step(self._projector().flow_at(at))

    # ------------------------------------------------------------------ internals
    def _projector(self) -> BoardProjector:
        from coreflow_judge.projections.board import BoardProjector

        if not self._boards:
            self._boards.append(BoardProjector(self.items))
        return self._boards[0]

    def _valid(self) -> list[tuple[int, LogLine | LineError]]:
        """The items, or :class:`JudgeInputError` naming the first malformed line (a log
        to complete must be readable throughout)."""
        for item in self.malformed:
            raise JudgeInputError(item.line, item.field, item.message)
        return list(self.items)


# ---------------------------------------------------------------------- making logs


def read_log(path: PathLike) -> Log:
    """Read a match log file (JSON Lines, one log line per line).

    A line that is not a valid log line is kept as a :class:`LineError` (it names the
    line and field); a file that cannot be read at all raises
    :class:`~events.reader.LogReadError`.
    """
    return Log(tuple(_read(Path(path))), str(path))


def parse_log(text: str | Iterable[str]) -> Log:
    """A match log from JSON Lines text (a string, or an iterable of lines)."""
    source = text.splitlines() if isinstance(text, str) else text
    return Log(tuple(iter_lines(source)), "<text>")


def load_match(match_id: str, store: str | None = None) -> Log:
    """A recorded match, as the table wrote it (its own line numbers, which judging and
    boards name), from ``store`` (a SQLite file or a ``postgresql://`` URL; default
    ``$COREFLOW_STORE``, else ``./coreflow.db``).

    Raises :class:`MatchNotRecorded` (naming the store and near ids),
    ``events.store.StoreError`` if the store cannot be used, and
    :class:`RecordChanged` if the stored hash chain is broken (the record was changed
    outside coreflow: no evidence to rule on).
    """
    from coreflow_judge.events.store import MatchNotFound

    with open_store(store) as recorder:
        try:
            chain = recorder.verify_record(match_id)
            lines = recorder.table_lines(match_id)
        except MatchNotFound:
            raise MatchNotRecorded(match_id, store_name(store),
                                   near_ids(match_id, recorder.match_ids())) from None
    if chain.breaks:
        raise RecordChanged(f"{chain.describe()}; refused (coreflow verify {match_id} "
                            "shows it)")
    return Log(tuple(enumerate(lines, start=1)), store_name(store))


class RecordChanged(ValueError):
    """A recorded match whose stored hash chain is broken: not judged."""


def _as_log(log: Log | PathLike) -> Log:
    return log if isinstance(log, Log) else read_log(log)


def judge(log: Log | PathLike) -> Report:
    """Judge a log (a :class:`Log` or a file's path) against its game's rules.

    The :class:`~adjudicator.judge.Report` has ``findings`` (each a
    :class:`~adjudicator.findings.Finding`: ``code``, ``seq``, ``severity``, ``rule``,
    ``message``, ``expected``, ``actual``, ``caused_by``, ``next``), ``result`` (the
    rules' result, or None while undecided), ``errors`` (the error findings that follow
    from no other) and ``as_dict()`` (the JSON report of docs/findings.md).
    """
    return _as_log(log).judge()


def board(log: Log | PathLike, at: int | None = None, view: str = JUDGE_VIEW
          ) -> dict[str, Any]:
    """The board after line ``at`` of a log (see :meth:`Log.board`)."""
    return _as_log(log).board(at, view)


def next_step(log: Log | PathLike, at: int | None = None) -> NextStep:
    """What the rules wanted next after line ``at`` of a log (see :meth:`Log.next_step`)."""
    return _as_log(log).next_step(at)


# ---------------------------------------------------------------------- the store


def store_name(store: str | None) -> str:
    """The store as messages name it: the SQLite file, or the PostgreSQL database (never
    its password)."""
    from coreflow_judge.events.store import store_env

    env = store_env(store)
    db = env.get("SQLITE_DBNAME")
    if db is not None:
        return db
    return f"postgresql database {env.get('POSTGRES_DBNAME')} on {env.get('POSTGRES_HOST')}"


class NoStore(FileNotFoundError):
    """No SQLite event store at the path given (reading never creates one)."""


@contextmanager
def open_store(store: str | None = None) -> Iterator[MatchRecorder]:
    """The event store opened to read (a SQLite file is never created by reading:
    :class:`NoStore` when it is missing), closed on leaving."""
    from coreflow_judge.events.store import open_recorder, store_env

    db = store_env(store).get("SQLITE_DBNAME")
    if db is not None and db != ":memory:" and not db.startswith("file:") \
            and not Path(db).exists():
        raise NoStore(f"no event store at {db} (record a log first: coreflow record LOG)")
    recorder = open_recorder(store, read_only=True)
    try:
        yield recorder
    finally:
        close = getattr(recorder, "close", None)
        if callable(close):
            close()


def near_ids(wanted: str, known: Sequence[str], limit: int = 3) -> list[str]:
    """The recorded ids closest to ``wanted`` (a typo, a wrong table or round number):
    the close spellings first (difflib), then ids that share its prefix."""
    import difflib

    close = difflib.get_close_matches(wanted, known, n=limit, cutoff=0.6)
    if len(close) < limit:
        stem = wanted.rstrip("0123456789-._")
        if len(stem) >= 3:
            close += [k for k in known if k.startswith(stem) and k not in close]
    return close[:limit]
