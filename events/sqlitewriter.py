"""The SQLite recorder coreflow uses: writers that wait for each other.

SQLite lets one connection write at a time. eventsourcing already keeps the store in WAL
mode (readers never wait for the writer, nor the writer for readers) and gives each
connection a busy timeout; coreflow sets that timeout to the whole busy budget
(``$COREFLOW_BUSY_TIMEOUT``, :mod:`events.busy`), so a writer that finds another one
writing waits in SQLite's busy handler. What the handler does not cover ("database is
locked" while the first writers create the table and switch the journal to WAL) is tried
again here, with bounded backoff. A save is one SQLite transaction: all or nothing, even
if the process is killed in the middle of it.

The store's own format record (``coreflow_meta``, :mod:`events.evidence`) is created in the
transaction that sets the store up, the first time this version opens it for writing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from coreflow_judge.events.busy import retrying
from coreflow_judge.events.evidence import (
    FORMAT_MARK,
    META_FORMAT_KEY,
    META_TABLE,
    STORE_FORMAT,
)
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteApplicationRecorder, SQLiteCursor


def read_meta(recorder: SQLiteAggregateRecorder) -> str | None:
    """The text of the store's format record, or None when it has none."""
    with recorder.datastore.transaction(commit=False) as c:
        c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                  (META_TABLE,))
        if c.fetchone() is None:
            return None
        c.execute(f"SELECT value FROM {META_TABLE} WHERE key = ?", (META_FORMAT_KEY,))
        row = c.fetchone()
    return None if row is None else str(row[0])


def has_marks(recorder: SQLiteAggregateRecorder) -> bool:
    """Whether any stored row carries the format mark of this version's rows."""
    with recorder.datastore.transaction(commit=False) as c:
        c.execute(f"SELECT 1 FROM {recorder.events_table_name} WHERE instr(state, ?) > 0 "
                  "LIMIT 1", (FORMAT_MARK,))
        return c.fetchone() is not None


def first_id(recorder: SQLiteAggregateRecorder, record_id: UUID) -> int | None:
    """The notification id (rowid) of a record's first row."""
    with recorder.datastore.transaction(commit=False) as c:
        c.execute(f"SELECT rowid FROM {recorder.events_table_name} "
                  "WHERE originator_id = ? AND originator_version = 1", (record_id.hex,))
        row = c.fetchone()
    return None if row is None else int(row[0])


class WaitingSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """:class:`SQLiteApplicationRecorder` whose set-up, saves and reads wait for a busy
    database instead of failing with "database is locked"."""

    def create_table(self) -> None:
        create = super().create_table
        retrying(lambda _attempt: create(), "setting up the event store", setting_up=True)

    def _create_table(self, c: SQLiteCursor) -> None:
        """The events table, and the store's format record when it has none: rows of
        records started after the store's last row as it is now are of this format."""
        super()._create_table(c)
        c.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} "
                  "(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        c.execute(f"SELECT 1 FROM {META_TABLE} WHERE key = ?", (META_FORMAT_KEY,))
        if c.fetchone() is not None:
            return
        c.execute(f"SELECT 1 FROM {self.events_table_name} WHERE instr(state, ?) > 0 LIMIT 1",
                  (FORMAT_MARK,))
        if c.fetchone() is not None:
            return  # removed outside coreflow: every record is held to this format
        c.execute(f"INSERT INTO {META_TABLE} (key, value) SELECT ?, "
                  f"'{{\"since\":' || COALESCE(MAX(rowid), 0) || ',\"store_format\":"
                  f"{STORE_FORMAT}}}' FROM {self.events_table_name}", (META_FORMAT_KEY,))

    def insert_events(self, stored_events: Sequence[StoredEvent],
                      **kwargs: Any) -> Sequence[int] | None:
        save = super().insert_events
        return retrying(lambda _attempt: save(stored_events, **kwargs),
                        "saving to the event store")

    def select_events(self, originator_id: UUID | str, *, gt: int | None = None,
                      lte: int | None = None, desc: bool = False,
                      limit: int | None = None) -> Sequence[StoredEvent]:
        select = super().select_events
        return retrying(lambda _attempt: select(
            originator_id, gt=gt, lte=lte, desc=desc, limit=limit), "reading the event store")
