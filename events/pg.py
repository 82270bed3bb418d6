"""The PostgreSQL recorder coreflow uses: large records in bounded pieces, with timeouts.

eventsourcing's PostgreSQL application recorder inserts all the events of a save in one
``INSERT`` sent in psycopg's pipeline mode. A record of a few megabytes (a long match, or
lines with long notes) then never completes: client and server each wait for the other
to read, forever, inside the pipeline's ``sync`` — while holding the events table's lock,
so every other writer waits too. This recorder keeps what matters of the original (one
transaction, the same table lock so that notification ids commit in order, the same
``NOTIFY``) but sends the events in chunks of bounded size, without a pipeline, under a
statement timeout: a save is still all or nothing, and nothing can wait forever.

Many writers at once (a tournament: one process per table, and batch imports):

- the schema (the composite type, the table, its index, the insert function, and the
  schema itself when the URL names one that does not exist) is created once, in one
  transaction under a transaction-level advisory lock, and only when something is
  missing: eventsourcing's own set-up re-runs ``CREATE OR REPLACE FUNCTION`` on every
  open and races other sessions creating the same table on first use ("tuple
  concurrently updated", a duplicate key in ``pg_type``);
- a save or a set-up that finds the database busy (see :mod:`events.busy`) is tried
  again with bounded backoff. A save whose ``COMMIT`` was cut off may have been
  committed: if trying it again finds exactly its own rows stored, that is success,
  not a conflict.

The store's own format record (``coreflow_meta``, :mod:`events.evidence`) is created in the
same set-up transaction, under the same lock, the first time this version opens the store
for writing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID

from coreflow_judge.events.busy import retrying
from coreflow_judge.events.evidence import (
    FORMAT_MARK,
    META_FORMAT_KEY,
    META_TABLE,
    STORE_FORMAT,
)
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
from psycopg import Connection
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier

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


def read_meta(recorder: PostgresAggregateRecorder) -> str | None:
    """The text of the store's format record, or None when it has none."""
    schema = recorder.datastore.schema
    with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
        curs.execute("SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE n.nspname = %s AND c.relname = %s", [schema, META_TABLE])
        if curs.fetchone() is None:
            return None
        curs.execute(SQL("SELECT value FROM {0}.{1} WHERE key = %s").format(
            Identifier(schema), Identifier(META_TABLE)), [META_FORMAT_KEY])
        row = curs.fetchone()
    return None if row is None else str(row["value"])


def has_marks(recorder: PostgresAggregateRecorder) -> bool:
    """Whether any stored row carries the format mark of this version's rows."""
    with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
        curs.execute(SQL("SELECT 1 FROM {0}.{1} WHERE position(%s::bytea in state) > 0 "
                         "LIMIT 1").format(Identifier(recorder.datastore.schema),
                                          Identifier(recorder.events_table_name)),
                     [FORMAT_MARK])
        return curs.fetchone() is not None


def first_id(recorder: PostgresAggregateRecorder, record_id: UUID) -> int | None:
    """The notification id of a record's first row."""
    with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
        curs.execute(SQL("SELECT notification_id FROM {0}.{1} WHERE originator_id = %s AND "
                         "originator_version = 1").format(
            Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name)),
            [record_id])
        row = curs.fetchone()
    return None if row is None else int(row["notification_id"])


class ChunkedApplicationRecorder(PostgresApplicationRecorder):
    """:class:`PostgresApplicationRecorder` with the save sent in bounded chunks, the
    schema set up once under a lock, and busy databases waited for."""

    def create_table(self) -> None:
        retrying(self._set_up, "setting up the event store", setting_up=True)
        self.datastore.register_type_adapters()

    def setup_lock_key(self) -> int:
        """The advisory lock of this table's set-up: the same in every coreflow process."""
        name = f"coreflow-setup:{self.datastore.schema}.{self.events_table_name}"
        return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)

    def _missing(self, conn: Connection[DictRow]) -> list[str]:
        """What of the schema is not there yet (empty: nothing to create)."""
        in_schema = ("SELECT 1 FROM {0} x JOIN pg_namespace n ON n.oid = x.{1} "
                     "WHERE n.nspname = %s AND x.{2} = %s")
        wanted = {
            "schema": ("SELECT 1 FROM pg_namespace WHERE nspname = %s", []),
            "type": (in_schema.format("pg_type", "typnamespace", "typname"),
                     [self.stored_event_type_name]),
            "table": (in_schema.format("pg_class", "relnamespace", "relname"),
                      [self.events_table_name]),
            "index": (in_schema.format("pg_class", "relnamespace", "relname"),
                      [self.notification_id_index_name]),
            "function": (in_schema.format("pg_proc", "pronamespace", "proname"),
                         [self.pg_function_name_insert_events]),
            "meta": (in_schema.format("pg_class", "relnamespace", "relname"), [META_TABLE]),
        }
        query = "SELECT " + ", ".join(f"EXISTS ({sql}) AS {key}"
                                      for key, (sql, _args) in wanted.items())
        params = [a for _sql, args in wanted.values() for a in [self.datastore.schema, *args]]
        with conn.cursor() as curs:
            curs.execute(query.encode(), params)
            row = curs.fetchone()
        assert row is not None
        missing = [key for key in wanted if not row[key]]
        if "meta" not in missing:
            with conn.cursor() as curs:
                curs.execute(SQL("SELECT 1 FROM {0}.{1} WHERE key = %s").format(
                    Identifier(self.datastore.schema), Identifier(META_TABLE)),
                    [META_FORMAT_KEY])
                if curs.fetchone() is None:
                    missing.append("mark")
        return missing

    def _set_up(self, _attempt: int) -> None:
        with self.datastore.get_connection() as conn:
            if not self._missing(conn):
                return
            with conn.transaction(), conn.cursor() as curs:
                curs.execute(SQL("SET LOCAL lock_timeout = '{0}s'").format(
                    self.datastore.lock_timeout))
                curs.execute("SELECT pg_advisory_xact_lock(%s)", [self.setup_lock_key()])
                missing = self._missing(conn)  # another session may have set it up meanwhile
                if "schema" in missing:
                    curs.execute(SQL("CREATE SCHEMA IF NOT EXISTS {0}").format(
                        Identifier(self.datastore.schema)))
                for statement in self.sql_create_statements:
                    if not set(missing) - {"meta", "mark"}:
                        break  # only the format record is new (a store of an older coreflow)
                    if "CREATE TYPE" in statement.as_string(conn) and "type" not in missing:
                        continue
                    curs.execute(statement, prepare=False)
                if "meta" in missing or "mark" in missing:
                    self._mark_format(curs)

    def _mark_format(self, curs: Any) -> None:
        """The store's format record, when it has none: rows of records started after the
        store's last row as it is now are of this format (under the set-up lock, so every
        writer of this version writes only after it is there)."""
        schema, meta = Identifier(self.datastore.schema), Identifier(META_TABLE)
        events = Identifier(self.events_table_name)
        curs.execute(SQL("CREATE TABLE IF NOT EXISTS {0}.{1} "
                         "(key TEXT PRIMARY KEY, value TEXT NOT NULL)").format(schema, meta))
        curs.execute(SQL("SELECT 1 FROM {0}.{1} WHERE key = %s").format(schema, meta),
                     [META_FORMAT_KEY])
        if curs.fetchone() is not None:
            return
        curs.execute(SQL("SELECT 1 FROM {0}.{1} WHERE position(%s::bytea in state) > 0 "
                         "LIMIT 1").format(schema, events), [FORMAT_MARK])
        if curs.fetchone() is not None:
            return  # removed outside coreflow: every record is held to this format
        curs.execute(SQL("INSERT INTO {0}.{1} (key, value) SELECT %s, "
                         "'{{\"since\":' || COALESCE(MAX(notification_id), 0) || "
                         "',\"store_format\":{2}}}' FROM {0}.{3}").format(
            schema, meta, SQL(str(STORE_FORMAT)), events), [META_FORMAT_KEY])

    def insert_events(self, stored_events: Sequence[StoredEvent],
                      **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        # Built before the table is locked: the lock is held only while rows are sent.
        pieces = [[self.construct_pg_stored_event(
            e.originator_id, e.originator_version, e.topic, e.state) for e in piece]
            for piece in chunks(stored_events)]

        def save(attempt: int) -> list[int]:
            try:
                return self._insert_pieces(pieces)
            except IntegrityError:
                if attempt > 1:  # an earlier try may have committed before it was cut off
                    ours = self._stored_ids_if_ours(stored_events)
                    if ours is not None:
                        return ours
                raise

        return retrying(save, "saving to the event store")

    def _insert_pieces(self, pieces: list[list[Any]]) -> list[int]:
        ids: list[int] = []
        with self.datastore.get_connection() as conn, conn.transaction(), \
                conn.cursor() as curs:
            curs.execute(SQL("SET LOCAL statement_timeout = '{0}s'").format(
                STATEMENT_TIMEOUT_S))
            self._lock_table(curs)
            self._notify_channel(curs)
            for rows in pieces:
                curs.execute(self.insert_events_statement, (rows,))
                ids += [row["notification_id"] for row in curs.fetchall()]
        return ids

    def _stored_ids_if_ours(self, stored_events: Sequence[StoredEvent]) -> list[int] | None:
        """The notification ids of these very events if they are stored byte for byte (our
        own earlier try committed), else None (another writer's rows: a real conflict)."""
        query = SQL("SELECT originator_version, state, notification_id FROM {0}.{1} "
                    "WHERE originator_id = %s AND originator_version BETWEEN %s AND %s "
                    "ORDER BY originator_version").format(
            Identifier(self.datastore.schema), Identifier(self.events_table_name))
        ids: list[int] = []
        by_record: dict[Any, list[StoredEvent]] = {}
        for e in stored_events:
            by_record.setdefault(e.originator_id, []).append(e)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            for record_id, events in by_record.items():
                versions = [e.originator_version for e in events]
                curs.execute(query, [record_id, min(versions), max(versions)])
                stored = {r["originator_version"]: r for r in curs.fetchall()}
                for e in events:
                    row = stored.get(e.originator_version)
                    if row is None or bytes(row["state"]) != e.state:
                        return None
                    ids.append(row["notification_id"])
        return ids
