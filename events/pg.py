"""The PostgreSQL recorder coreflow uses: large records in bounded pieces, with timeouts.

eventsourcing's PostgreSQL application recorder inserts all the events of a save in one
``INSERT`` sent in psycopg's pipeline mode. A record of a few megabytes (a long match, or
lines with long notes) then never completes: client and server each wait for the other
to read, forever, inside the pipeline's ``sync`` — while holding the events table's lock,
so every other writer waits too. This recorder keeps what matters of the original (one
transaction, the same table lock so that notification ids commit in order, the same
``NOTIFY``) but sends the events in chunks of bounded size, without a pipeline, under a
statement timeout: a save is still all or nothing, and nothing can wait forever.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg.sql import SQL

CHUNK_EVENTS = 500
"""At most this many events per ``INSERT``."""
CHUNK_BYTES = 1 << 20
"""And at most about this many bytes of state per ``INSERT`` (one event may be larger)."""
STATEMENT_TIMEOUT_S = 120
"""No statement of a save may run longer (PostgreSQL cancels it; nothing is written)."""


def chunks(events: Sequence[StoredEvent]) -> Iterator[Sequence[StoredEvent]]:
    """The events in order, in pieces of at most CHUNK_EVENTS events and about
    CHUNK_BYTES bytes of state."""
    start, size = 0, 0
    for i, event in enumerate(events):
        if i > start and (i - start >= CHUNK_EVENTS or size + len(event.state) > CHUNK_BYTES):
            yield events[start:i]
            start, size = i, 0
        size += len(event.state)
    if start < len(events):
        yield events[start:]


class ChunkedApplicationRecorder(PostgresApplicationRecorder):
    """:class:`PostgresApplicationRecorder` with the save sent in bounded chunks."""

    def insert_events(self, stored_events: Sequence[StoredEvent],
                      **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        ids: list[int] = []
        with self.datastore.get_connection() as conn, conn.transaction(), \
                conn.cursor() as curs:
            curs.execute(SQL("SET LOCAL statement_timeout = '{0}s'").format(
                STATEMENT_TIMEOUT_S))
            self._lock_table(curs)
            self._notify_channel(curs)
            for piece in chunks(stored_events):
                rows = [self.construct_pg_stored_event(
                    e.originator_id, e.originator_version, e.topic, e.state) for e in piece]
                curs.execute(self.insert_events_statement, (rows,))
                ids += [row["notification_id"] for row in curs.fetchall()]
        return ids
