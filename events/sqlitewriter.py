"""The SQLite recorder coreflow uses: writers that wait for each other.

SQLite lets one connection write at a time. eventsourcing already keeps the store in WAL
mode (readers never wait for the writer, nor the writer for readers) and gives each
connection a busy timeout; coreflow sets that timeout to the whole busy budget
(``$COREFLOW_BUSY_TIMEOUT``, :mod:`events.busy`), so a writer that finds another one
writing waits in SQLite's busy handler. What the handler does not cover ("database is
locked" while the first writers create the table and switch the journal to WAL) is tried
again here, with bounded backoff. A save is one SQLite transaction: all or nothing, even
if the process is killed in the middle of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from coreflow_judge.events.busy import retrying
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder


class WaitingSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """:class:`SQLiteApplicationRecorder` whose set-up, saves and reads wait for a busy
    database instead of failing with "database is locked"."""

    def create_table(self) -> None:
        create = super().create_table
        retrying(lambda _attempt: create(), "setting up the event store", setting_up=True)

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
