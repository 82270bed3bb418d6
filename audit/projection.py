"""The audit database: a DuckDB read model of the event store, fed incrementally.

DuckDB cannot read the store itself here (its SQLite and PostgreSQL scanners are
extensions downloaded at run time), so the audit keeps its own DuckDB file, a projection
of the store's notification log (the eventsourcing application sequence). The file
remembers, in its ``audit_state`` table, the last notification id it took in;
:meth:`AuditDB.refresh` reads only the notifications after it, re-derives the matches
they belong to (all their rows are replaced) and moves the mark forward, in one DuckDB
transaction. Rebuilding from scratch gives the same tables.

Rows are written by DuckDB itself: each table's new rows go to a JSON Lines file in a
temporary directory and one ``INSERT ... SELECT * FROM read_json(...)`` per table takes
them in with the column types of :data:`audit.schema.TABLES` (far faster than row-wise
inserts from Python).

Queries from users go through :func:`stream_query`, on a separate connection opened
``read_only=True`` with ``enable_external_access = false``, ``temp_directory = ''`` and
``lock_configuration = true``: DuckDB itself refuses writes, ATTACH, COPY, INSTALL, LOAD,
file reads and writes; only queries are run at all, each under a time limit, and their
rows are fetched in batches.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from uuid import UUID

import duckdb
from coreflow_judge.audit.derive import Rows, StoredLine, derive_match, timestamp
from coreflow_judge.audit.schema import (
    ORDER,
    SCHEMA_VERSION,
    STATE_TABLE,
    TABLES,
    create_statements,
    json_columns,
)
from coreflow_judge.events.models import LINE_ADAPTER, MatchStarted
from coreflow_judge.events.store import MatchRecorder, StoreUnavailable, open_recorder, store_env
from eventsourcing.persistence import PersistenceError, StoredEvent

#: The audit file's name, next to the store's SQLite file.
DEFAULT_AUDIT_NAME = "coreflow-audit.duckdb"
AUDIT_ENV_VAR = "COREFLOW_AUDIT"

#: Notifications read per query from the store.
PAGE_SIZE = 5000

#: Seconds a query may run (``coreflow audit --timeout``) unless told otherwise.
DEFAULT_TIMEOUT = 60.0
#: Rows fetched from DuckDB at a time: a large answer streams, never held whole.
BATCH_ROWS = 1000

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as work advances (a command's progress line)."""


class AuditError(Exception):
    """The audit database could not be built, opened or queried (one-line message)."""


class QueryFailed(AuditError):
    """The query could not be run (a syntax error, an unknown column, two statements...)."""


class QueryRefused(QueryFailed):
    """DuckDB refused the statement: it would write, attach, copy, load or read a file."""


# ------------------------------------------------------------------------ locations


def store_identity(store: str | None) -> str:
    """What the audit file records as its source: the SQLite file or the redacted URL."""
    env = store_env(store)
    db = env.get("SQLITE_DBNAME")
    if db is not None:
        return db if db == ":memory:" else str(Path(db).resolve())
    return (
        f"postgresql://{env.get('POSTGRES_USER', '')}@{env.get('POSTGRES_HOST', '')}:"
        f"{env.get('POSTGRES_PORT', '')}/{env.get('POSTGRES_DBNAME', '')}"
        f"?schema={env.get('POSTGRES_SCHEMA', '')}"
    )


def default_audit_path(store: str | None = None) -> Path:
    """``$COREFLOW_AUDIT``, else ``coreflow-audit.duckdb`` in the store's directory.

    For a PostgreSQL or in-memory store, the current directory.
    """
    env_path = os.environ.get(AUDIT_ENV_VAR)
    if env_path:
        return Path(env_path)
    db = store_env(store).get("SQLITE_DBNAME")
    if db is not None and db != ":memory:" and not db.startswith("file:"):
        return Path(db).parent / DEFAULT_AUDIT_NAME
    return Path(DEFAULT_AUDIT_NAME)


# ------------------------------------------------------------------------ refreshing


@dataclass(slots=True)
class RefreshStats:
    """What one refresh did."""

    notifications: int = 0
    matches: int = 0
    rebuilt: bool = False
    last_notification_id: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    unjudged: list[str] = field(default_factory=list)
    """Matches that could not be judged (``matches.judge_error`` says why)."""


class _Sink:
    """New rows, one JSON Lines file per table, for ``read_json`` to take in."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.files: dict[str, IO[str]] = {}
        self.counts: dict[str, int] = {name: 0 for name in TABLES}
        self._dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"),
                                       default=str).encode

    def path(self, table: str) -> Path:
        return self.dir / f"{table}.jsonl"

    def add(self, rows: Rows) -> None:
        dumps = self._dumps
        for table, items in rows.items():
            if not items:
                continue
            f = self.files.get(table)
            if f is None:
                f = self.files[table] = self.path(table).open("w", encoding="utf-8")
            f.write("\n".join(dumps(r) for r in items))
            f.write("\n")
            self.counts[table] += len(items)

    def close(self) -> None:
        for f in self.files.values():
            f.close()


class AuditDB:
    """The audit DuckDB file of one event store."""

    def __init__(self, path: str | Path | None = None, store: str | None = None) -> None:
        self.store = store
        self.path = Path(path) if path is not None else default_audit_path(store)

    # ------------------------------------------------------------------ writing
    def _connect(self) -> duckdb.DuckDBPyConnection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return _when_free(lambda: duckdb.connect(str(self.path)))
        except (duckdb.Error, OSError) as exc:
            raise AuditError(f"cannot open the audit database {self.path}: "
                             f"{_first_line(exc)}") from exc

    def refresh(self, rebuild: bool = False, recorder: MatchRecorder | None = None,
                progress: Progress | None = None) -> RefreshStats:
        """Take in every notification of the store after the last one taken in.

        ``rebuild`` drops every table first and reads the store from its first
        notification. The audit file is also rebuilt when it was made from another store
        or by another schema version, or when the store is behind it (a new store).
        ``progress`` is told ``(done, total)`` as each new or changed match is derived.
        """
        own = recorder is None
        app = recorder if recorder is not None else open_recorder(self.store, read_only=True)
        try:
            con = self._connect()
            try:
                stats = self._refresh(con, app, rebuild, progress)
            finally:
                con.close()
        finally:
            if own:
                close = getattr(app, "close", None)
                if callable(close):
                    close()
        return stats

    def _refresh(self, con: duckdb.DuckDBPyConnection, app: MatchRecorder,
                 rebuild: bool, progress: Progress | None = None) -> RefreshStats:
        identity = store_identity(self.store)
        state = _read_state(con)
        try:
            top = app.recorder.max_notification_id() or 0
        except PersistenceError as exc:
            raise StoreUnavailable(f"the event store failed: {exc}") from exc
        last = int(state.get("last_notification_id", "0"))
        if (
            rebuild
            or state.get("schema_version") != str(SCHEMA_VERSION)
            or state.get("store") != identity
            or top < last
        ):
            _reset(con)
            rebuild, last = True, 0
        stats = RefreshStats(rebuilt=rebuild, last_notification_id=last)
        if top <= last and not rebuild:
            return stats
        with tempfile.TemporaryDirectory(prefix="coreflow-audit-") as tmp:
            sink = _Sink(Path(tmp))
            touched: list[str] = []
            try:
                for record_id, lines, total, refused in self._new_matches(app, last, top,
                                                                          stats):
                    if progress is not None:
                        progress(len(touched), total)
                    if not lines or not isinstance(lines[0].line, MatchStarted):
                        stats.unjudged.append(str(record_id))  # not even its header reads
                        continue
                    rows = derive_match(str(record_id), lines, refused)
                    match = rows["matches"][0]
                    touched.append(match["match_id"])
                    if match["judge_error"] is not None:
                        stats.unjudged.append(match["match_id"])
                    sink.add(rows)
            finally:
                sink.close()
            if progress is not None and touched:
                progress(len(touched), len(touched))
            stats.matches = len(touched)
            stats.rows = dict(sink.counts)
            stats.last_notification_id = top
            con.execute("BEGIN TRANSACTION")
            try:
                if touched and not rebuild:
                    for table in TABLES:
                        con.execute(
                            f"DELETE FROM {table} WHERE match_id IN "
                            "(SELECT unnest(?::VARCHAR[]))", [touched],
                        )
                for table in TABLES:
                    if sink.counts[table]:
                        con.execute(
                            f"INSERT INTO {table} SELECT * FROM read_json(?, "
                            "format = 'newline_delimited', "
                            f"columns = {json_columns(table)})",
                            [str(sink.path(table))],
                        )
                _write_state(con, {
                    "schema_version": str(SCHEMA_VERSION),
                    "store": identity,
                    "last_notification_id": str(top),
                })
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return stats

    def _new_matches(self, app: MatchRecorder, last: int, top: int, stats: RefreshStats
                     ) -> Iterator[tuple[UUID | str, list[StoredLine], int, str | None]]:
        """Each match with notifications in (last, top], with all its stored lines (and
        how many matches there are), and why it is no evidence if it is none.

        A match whose lines all arrived in this window (versions 1..n) is derived from
        the notifications themselves; one that had lines before is read whole from the
        store (``select_events``). Each is checked as ``coreflow verify`` checks it
        (:meth:`~events.store.MatchRecorder.check_stored`): a record changed outside
        coreflow, one of an older coreflow without hashes, or with the signing key set one
        not signed with it, has its readable lines shown and is not judged; the table
        numbers of a record whose chain does not cover them are left out.
        """
        pending: dict[UUID | str, list[StoredEvent]] = {}
        start = last
        try:
            while start < top:
                page = app.recorder.select_notifications(
                    start, PAGE_SIZE, stop=top, inclusive_of_start=False
                )
                if not page:
                    break
                for n in page:
                    pending.setdefault(n.originator_id, []).append(n)
                stats.notifications += len(page)
                start = page[-1].id
            for record_id, stored in pending.items():
                versions = [s.originator_version for s in stored]
                if versions != list(range(1, len(stored) + 1)):
                    stored = list(app.recorder.select_events(record_id))
                chain = app.check_stored(UUID(str(record_id)), stored)
                lines = []
                for s in stored:
                    try:
                        line = self._decode(app, s)
                    except (ValueError, TypeError, KeyError):  # a row changed: refused below
                        continue
                    lines.append(line if chain.numbers_covered
                                 else dataclasses.replace(line, table_seq=None))
                yield (record_id, lines, len(pending),
                       None if chain.ok else f"{chain.describe()}; not judged")
        except PersistenceError as exc:
            raise StoreUnavailable(f"the event store failed: {exc}") from exc

    @staticmethod
    def _decode(app: MatchRecorder, stored: StoredEvent) -> StoredLine:
        """A stored event as the line model, the line's stored JSON and the store time."""
        mapper = app.mapper
        data = stored.state
        if mapper.cipher:
            data = mapper.cipher.decrypt(data)
        if mapper.compressor:
            data = mapper.compressor.decompress(data)
        state = mapper.transcoder.decode(data)
        line_data = state["line"]
        return StoredLine(LINE_ADAPTER.validate_python(line_data), line_data,
                          timestamp(state.get("timestamp")), state.get("table_seq"))

    # ------------------------------------------------------------------ reading
    def connect_read_only(self) -> duckdb.DuckDBPyConnection:
        """A connection that can only read the audit tables (see :func:`read_only`)."""
        return read_only(self.path)

    def query(self, sql: str, timeout: float | None = DEFAULT_TIMEOUT) -> Result:
        """Run one query; :class:`QueryRefused` or :class:`AuditError`."""
        con = self.connect_read_only()
        try:
            return run_query(con, sql, timeout)
        finally:
            con.close()

    def export_parquet(self, directory: str | Path, progress: Progress | None = None
                       ) -> list[Path]:
        """Write every table as ``<directory>/<table>.parquet`` (rows in table order);
        ``progress`` is told ``(done, total)`` as each table is written."""
        out = Path(directory)
        if out.exists() and not out.is_dir():
            raise AuditError(f"--parquet {out}: a file; give a directory to write the Parquet "
                             "files to (it was not changed)")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise AuditError(f"--parquet {out}: cannot create the directory: "
                             f"{exc.strerror or exc}") from exc
        con = self._connect()
        written = []
        try:
            for table in TABLES:
                target = out / f"{table}.parquet"
                con.execute(
                    f"COPY (SELECT * FROM {table} ORDER BY {ORDER[table]}) "
                    f"TO '{_sql_text(str(target))}' (FORMAT parquet)"
                )
                written.append(target)
                if progress is not None:
                    progress(len(written), len(TABLES))
        except duckdb.Error as exc:
            raise AuditError(f"export failed: {_first_line(exc)}") from exc
        finally:
            con.close()
        return written

    def table_contents(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every table's rows in one stable order (for comparing two audit files)."""
        con = self.connect_read_only()
        try:
            out = {}
            for table in [*TABLES, STATE_TABLE]:
                cols = ", ".join(f'"{c}"' for c in _columns(con, table))
                out[table] = con.execute(
                    f"SELECT * FROM {table} ORDER BY {cols}"
                ).fetchall()
            return out
        finally:
            con.close()


# ------------------------------------------------------------------------ queries


@dataclass(slots=True)
class Result:
    """A query's answer: column names, DuckDB type names and rows."""

    columns: list[str]
    types: list[str]
    rows: list[tuple[Any, ...]]


#: The settings of a sandboxed connection, given when it is opened (nothing runs first).
SANDBOX_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "enable_external_access": False,
    # No spilling to ``<audit>.tmp/``: without it DuckDB would still let a statement
    # write files in its temporary directory.
    "temp_directory": "",
}

#: The statements a user may run: queries only (SHOW, DESCRIBE, SUMMARIZE, FROM ...,
#: VALUES, WITH ... are SELECTs to DuckDB), and EXPLAIN of a query.
QUERY_TYPES = frozenset({duckdb.StatementType.SELECT})


def read_only(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open the audit file in a sandbox where no statement can write any file.

    ``read_only=True`` refuses INSERT, UPDATE, DELETE, CREATE, DROP on the file;
    ``enable_external_access = false`` refuses ATTACH, COPY, EXPORT, INSTALL, LOAD and
    every file or URL read (``read_csv``, ``read_parquet``, ``read_text``, ``glob``...);
    ``temp_directory = ''`` leaves DuckDB no directory of its own to write in;
    ``lock_configuration = true`` refuses any later SET/RESET/PRAGMA that would undo it.
    All but the last two are set when the connection opens (the progress bar, a setting
    of the session, is turned off, then the configuration locked). :func:`stream_query`
    adds its own check: only queries (SELECT-style statements and EXPLAIN of one) run.
    """
    p = Path(path)
    if not p.exists():
        raise AuditError(f"no audit database at {p}")
    try:
        con = _when_free(lambda: duckdb.connect(str(p), read_only=True, config=SANDBOX_CONFIG))
        con.execute("SET enable_progress_bar = false")
        con.execute("SET lock_configuration = true")
        return con
    except duckdb.Error as exc:
        raise AuditError(f"cannot open the audit database {p}: {_first_line(exc)}") from exc


_REFUSALS = (
    "read-only mode",
    "disabled by configuration",
    "configuration has been locked",
    "disabled through configuration",
)
_EXPLAIN = re.compile(r"^\s*EXPLAIN(?:\s+ANALY[SZ]E)?\s+", re.IGNORECASE)
_REFUSED = "refused (the audit database is read-only)"


def _kind(con: duckdb.DuckDBPyConnection, sql: str) -> str:
    """The one statement's kind, or :class:`QueryFailed` / :class:`QueryRefused`."""
    try:
        statements = con.extract_statements(sql)
        kinds = [st.type for st in statements]
    except duckdb.Error as exc:
        raise QueryFailed(f"query failed: {_first_line(exc)}") from exc
    except ValueError as exc:  # a statement type the Python client has no name for
        raise QueryRefused(f"{_REFUSED}: {sql.strip()[:40]!r} is not a query ({exc})") from exc
    if len(kinds) != 1:
        raise QueryFailed("give exactly one SQL statement" if kinds else "the query is empty")
    kind = kinds[0]
    if kind == duckdb.StatementType.EXPLAIN:
        inner = _EXPLAIN.sub("", sql, count=1)
        if inner == sql or _kind(con, inner) != "SELECT":
            raise QueryRefused(f"{_REFUSED}: EXPLAIN is allowed of a query only")
        return "EXPLAIN"
    if kind not in QUERY_TYPES:
        name = kind.name.replace("_", " ")
        raise QueryRefused(f"{_REFUSED}: only queries run here (SELECT, WITH, FROM, VALUES, "
                           f"SHOW, DESCRIBE, SUMMARIZE, EXPLAIN), not {name}")
    return "SELECT"


@dataclass(slots=True)
class Stream:
    """A running query's columns and its rows, fetched :data:`BATCH_ROWS` at a time."""

    columns: list[str]
    types: list[str]
    batches: Iterator[list[tuple[Any, ...]]]


def _failure(exc: duckdb.Error, timeout: float | None) -> AuditError:
    msg = _first_line(exc)
    if isinstance(exc, duckdb.InterruptException):
        return QueryFailed(f"query stopped: it ran longer than {timeout:g} s "
                           "(--timeout SECONDS allows more)")
    if isinstance(exc, duckdb.PermissionException) or any(r in msg for r in _REFUSALS):
        return QueryRefused(f"{_REFUSED}: {msg}")
    return QueryFailed(f"query failed: {msg}")


@contextmanager
def stream_query(con: duckdb.DuckDBPyConnection, sql: str,
                 timeout: float | None = DEFAULT_TIMEOUT) -> Iterator[Stream]:
    """Run exactly one query on a sandboxed connection; its rows stream in batches.

    A watchdog interrupts the query (``con.interrupt()``) once it has run ``timeout``
    seconds, fetching included; ``None`` or 0 is no limit.
    """
    _kind(con, sql)
    watchdog = threading.Timer(timeout, con.interrupt) if timeout else None
    if watchdog is not None:
        watchdog.daemon = True
        watchdog.start()
    try:
        try:
            cur = con.execute(sql)
            desc = cur.description or []
        except duckdb.Error as exc:
            raise _failure(exc, timeout) from exc

        def batches() -> Iterator[list[tuple[Any, ...]]]:
            if not desc:
                return
            while True:
                try:
                    rows = cur.fetchmany(BATCH_ROWS)
                except duckdb.Error as exc:
                    raise _failure(exc, timeout) from exc
                if not rows:
                    return
                yield rows

        yield Stream([d[0] for d in desc], [str(d[1]) for d in desc], batches())
    finally:
        if watchdog is not None:
            watchdog.cancel()


def run_query(con: duckdb.DuckDBPyConnection, sql: str,
              timeout: float | None = DEFAULT_TIMEOUT) -> Result:
    """Run exactly one query (see :func:`stream_query`) and keep every row."""
    with stream_query(con, sql, timeout) as stream:
        rows = [row for batch in stream.batches for row in batch]
        return Result(stream.columns, stream.types, rows)


# ------------------------------------------------------------------------ helpers


def _when_free(connect: Callable[[], duckdb.DuckDBPyConnection]) -> duckdb.DuckDBPyConnection:
    """``connect()``, waiting while another process holds the audit file (DuckDB lets one
    process write it, or several read it): ``coreflow matches`` and ``coreflow audit`` at
    once take turns, for as long as a writer waits for a busy store
    (``$COREFLOW_BUSY_TIMEOUT``, default 120 s), then the lock error stands."""
    from coreflow_judge.events.busy import busy_budget, pauses

    next_pause = pauses(busy_budget())
    while True:
        try:
            return connect()
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            pause = next_pause()
            if pause is None:
                raise
            time.sleep(pause)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _sql_text(value: str) -> str:
    return value.replace("'", "''")


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [r[0] for r in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position", [table]).fetchall()]


def _read_state(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [STATE_TABLE]
    ).fetchone()
    if not exists or not exists[0]:
        return {}
    return {str(k): str(v) for k, v in con.execute(
        f"SELECT key, value FROM {STATE_TABLE}").fetchall()}


def _write_state(con: duckdb.DuckDBPyConnection, values: dict[str, str]) -> None:
    con.execute(f"DELETE FROM {STATE_TABLE}")
    for k, v in values.items():
        con.execute(f"INSERT INTO {STATE_TABLE} VALUES (?, ?)", [k, v])


def _reset(con: duckdb.DuckDBPyConnection) -> None:
    """Drop every audit table and create them empty (schema of this version)."""
    for table in [*TABLES, STATE_TABLE]:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in create_statements():
        con.execute(statement)
