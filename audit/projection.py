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

Queries from users go through :func:`isolated_query`: in a process of its own (forked),
on a connection opened ``read_only=True`` with ``enable_external_access = false``,
``temp_directory = ''``, a ``memory_limit`` and ``lock_configuration = true``: DuckDB itself
refuses writes, ATTACH, COPY, INSTALL, LOAD, file reads and writes; only queries are run at
all, and their rows are fetched in batches. The process is killed when the query runs past
its time limit or holds more memory than its limit allows (DuckDB checks an interrupt
only between vectors: one ``regexp_replace`` over a 600 MB string ran 100 s past a 5 s
limit), so both limits hold whatever the query does.

Each refresh also checks that the rows it took in earlier are still as it took them (a
digest of each record's stored rows): a record edited in the store after the audit took
it in is taken in again, and the refresh says so (:attr:`RefreshStats.edited`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any, cast
from uuid import UUID

import duckdb
from coreflow_judge.audit.derive import Rows, StoredLine, derive_match, timestamp
from coreflow_judge.audit.schema import (
    DIGEST_TABLE,
    ORDER,
    SCHEMA_VERSION,
    STATE_TABLE,
    TABLES,
    create_statements,
    json_columns,
)
from coreflow_judge.events.models import MatchStarted
from coreflow_judge.events.store import (
    MatchRecorder,
    PydanticMapper,
    StoreUnavailable,
    open_recorder,
    store_env,
)
from eventsourcing.persistence import PersistenceError, StoredEvent

#: A SQLite store's audit file is the store's file name with this suffix, beside it
#: (``tournament.db`` -> ``tournament.db.audit.duckdb``): one audit file per store.
AUDIT_SUFFIX = ".audit.duckdb"
AUDIT_ENV_VAR = "COREFLOW_AUDIT"
#: Where the audit files of PostgreSQL (and in-memory) stores are kept, under the user's
#: cache directory (``$XDG_CACHE_HOME``, else ``~/.cache``), one per store identity.
AUDIT_CACHE = Path("coreflow") / "audit"

#: Notifications read per query from the store.
PAGE_SIZE = 5000

#: Seconds a query may run (``coreflow audit --timeout``) unless told otherwise.
DEFAULT_TIMEOUT = 60.0
#: Rows fetched from DuckDB at a time: a large answer streams, never held whole.
BATCH_ROWS = 1000
#: How much memory DuckDB may use (``coreflow audit --memory-limit``) unless told otherwise.
DEFAULT_MEMORY_LIMIT = "1GB"
MEMORY_ENV_VAR = "COREFLOW_AUDIT_MEMORY"
#: What a query's process may hold beyond DuckDB's limit (its own code and the rows in
#: flight) before it is stopped.
MEMORY_HEADROOM = 256 * 1024 * 1024
#: How often the parent looks at a running query's time and memory (seconds).
WATCH_EVERY = 0.05

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
    """``$COREFLOW_AUDIT``, else the store's own audit file: one per store, so two stores
    never share (and rebuild) one.

    A SQLite store's is beside it, its file name and :data:`AUDIT_SUFFIX`
    (``./coreflow.db`` -> ``./coreflow.db.audit.duckdb``). A PostgreSQL store's (and an
    in-memory or ``file:`` URI store's) is in the user's cache directory,
    ``$XDG_CACHE_HOME/coreflow/audit`` (else ``~/.cache/coreflow/audit``), named after the
    database and a digest of the store's identity (:func:`store_identity`: user, host,
    port, database, schema; never the password), e.g.
    ``postgresql-tournament-1f0c3a9b2d4e.duckdb``.
    """
    env_path = os.environ.get(AUDIT_ENV_VAR)
    if env_path:
        return Path(env_path)
    env = store_env(store)
    db = env.get("SQLITE_DBNAME")
    if db is not None and db != ":memory:" and not db.startswith("file:"):
        path = Path(db)
        return path.parent / f"{path.name}{AUDIT_SUFFIX}"
    identity = store_identity(store)
    name = env.get("POSTGRES_DBNAME") or Path((db or "").partition("?")[0]).name
    if "POSTGRES_SCHEMA" in env:
        name += f"-{env['POSTGRES_SCHEMA']}"
    kind = "postgresql" if db is None else "sqlite"
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:60].strip("._") or "store"
    digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:12]
    return _cache_home() / AUDIT_CACHE / f"{kind}-{slug}-{digest}.duckdb"


def _cache_home() -> Path:
    """``$XDG_CACHE_HOME``, else ``~/.cache`` (the XDG base directories)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg)
    return Path.home() / ".cache"


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
    edited: list[str] = field(default_factory=list)
    """Matches whose stored rows changed after the audit took them in (edited, swapped or
    deleted outside coreflow): taken in again (or dropped, when no row is left)."""
    other_store: str | None = None
    """The store the audit file had been built from when it was another one (it was
    rebuilt for this store): two stores given one ``--audit`` file."""


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

    def __init__(self, path: str | Path | None = None, store: str | None = None,
                 memory_limit: str | None = None) -> None:
        self.store = store
        self.path = Path(path) if path is not None else default_audit_path(store)
        self.memory = memory_bytes(memory_limit)
        """DuckDB's memory limit in bytes (refresh, export and queries alike)."""

    # ------------------------------------------------------------------ writing
    def _connect(self) -> duckdb.DuckDBPyConnection:
        """The program's own writable connection: no extension is installed or loaded (a
        file that is not DuckDB's, the store's SQLite file say, would otherwise make
        DuckDB download its SQLite scanner), and the memory limit holds."""
        _check_duckdb_file(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return _when_free(lambda: duckdb.connect(str(self.path), config={
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "memory_limit": f"{self.memory}B",
            }))
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
        if state.get("store") not in (None, identity):
            stats.other_store = state["store"]
        taken = {} if rebuild else _read_digests(con)
        edited = self._edited(app, taken, top) if taken else []
        if top <= last and not rebuild and not edited:
            return stats
        stats.edited = sorted(taken[rid][0] for rid in edited)
        with tempfile.TemporaryDirectory(prefix="coreflow-audit-") as tmp:
            sink = _Sink(Path(tmp))
            touched: list[str] = [taken[rid][0] for rid in edited]  # their rows go
            digests: dict[str, tuple[str, str, int]] = {}
            try:
                for record_id, stored, lines, total, refused in self._new_matches(
                        app, last, top, stats, edited):
                    if progress is not None:
                        progress(len(digests), total)
                    if not stored:
                        continue  # no row left: the record was deleted (said as edited)
                    if not lines or not isinstance(lines[0].line, MatchStarted):
                        stats.unjudged.append(str(record_id))  # not even its header reads
                        continue
                    rows = derive_match(str(record_id), lines, refused)
                    match = rows["matches"][0]
                    touched.append(match["match_id"])
                    digests[str(record_id)] = (match["match_id"], *_digest(stored))
                    if match["judge_error"] is not None:
                        stats.unjudged.append(match["match_id"])
                    sink.add(rows)
            finally:
                sink.close()
            if progress is not None and digests:
                progress(len(digests), len(digests))
            stats.matches = len(digests)
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
                    con.execute(f"DELETE FROM {DIGEST_TABLE} WHERE record_id IN "
                                "(SELECT unnest(?::VARCHAR[]))", [[*edited, *digests]])
                for table in TABLES:
                    if sink.counts[table]:
                        con.execute(
                            f"INSERT INTO {table} SELECT * FROM read_json(?, "
                            "format = 'newline_delimited', "
                            f"columns = {json_columns(table)})",
                            [str(sink.path(table))],
                        )
                if digests:
                    con.executemany(f"INSERT INTO {DIGEST_TABLE} VALUES (?, ?, ?, ?)",
                                    [[rid, *d] for rid, d in digests.items()])
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

    def _edited(self, app: MatchRecorder, taken: dict[str, tuple[str, str, int]],
                top: int) -> list[str]:
        """The records whose rows the audit took in are no longer as it took them: each
        record's first rows (as many as it took in), in the store's order, digested again
        and compared. One read of every stored row (the bytes, nothing parsed)."""
        hashers: dict[str, Any] = {}
        seen: dict[str, int] = {}
        try:
            for page in _stored_rows(app, top):
                for rid, version, topic, state in page:
                    want = taken.get(rid)
                    if want is None or seen.get(rid, 0) >= want[2]:
                        continue  # a record taken in later, or a row appended after
                    hasher = hashers.get(rid)
                    if hasher is None:
                        hasher = hashers[rid] = hashlib.sha256()
                    _feed_digest(hasher, version, topic, state)
                    seen[rid] = seen.get(rid, 0) + 1
        except PersistenceError as exc:
            raise StoreUnavailable(f"the event store failed: {exc}") from exc
        return [rid for rid, (_match, digest, lines) in taken.items()
                if seen.get(rid, 0) != lines or hashers[rid].hexdigest() != digest]

    def _new_matches(self, app: MatchRecorder, last: int, top: int, stats: RefreshStats,
                     again: Sequence[str] = ()
                     ) -> Iterator[tuple[UUID | str, list[StoredEvent], list[StoredLine], int,
                                         str | None]]:
        """Each match with notifications in (last, top], and each record of ``again``,
        with all its stored rows and lines (and how many matches there are), and why it is
        no evidence if it is none.

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
            for rid in again:
                pending.setdefault(UUID(rid), [])
            for record_id, stored in pending.items():
                versions = [s.originator_version for s in stored]
                if not stored or versions != list(range(1, len(stored) + 1)):
                    stored = list(app.recorder.select_events(record_id))
                chain = app.check_stored(UUID(str(record_id)), stored) if stored else None
                lines = []
                for s in stored:
                    try:
                        line = self._decode(app, s)
                    except (ValueError, TypeError, KeyError):  # a row changed: refused below
                        continue
                    lines.append(line if chain is not None and chain.numbers_covered
                                 else dataclasses.replace(line, table_seq=None))
                yield (record_id, stored, lines, len(pending),
                       None if chain is None or chain.ok else f"{chain.describe()}; not judged")
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
        lines = cast(PydanticMapper, mapper).lines_for(stored.originator_id, line_data)
        return StoredLine(lines.validate_stored(line_data), line_data,
                          timestamp(state.get("timestamp")), state.get("table_seq"))

    # ------------------------------------------------------------------ reading
    def connect_read_only(self) -> duckdb.DuckDBPyConnection:
        """A connection that can only read the audit tables (see :func:`read_only`)."""
        return read_only(self.path, self.memory)

    def query(self, sql: str, timeout: float | None = DEFAULT_TIMEOUT) -> Result:
        """Run one query in a process of its own (:func:`isolated_query`), keeping every
        row; :class:`QueryRefused` or :class:`AuditError`."""
        with isolated_query(self.path, sql, timeout, self.memory) as stream:
            rows = [row for batch in stream.batches for row in batch]
            return Result(stream.columns, stream.types, rows)

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


def read_only(path: str | Path, memory_limit: int | None = None) -> duckdb.DuckDBPyConnection:
    """Open the audit file in a sandbox where no statement can write any file.

    ``read_only=True`` refuses INSERT, UPDATE, DELETE, CREATE, DROP on the file;
    ``enable_external_access = false`` refuses ATTACH, COPY, EXPORT, INSTALL, LOAD and
    every file or URL read (``read_csv``, ``read_parquet``, ``read_text``, ``glob``...);
    ``temp_directory = ''`` leaves DuckDB no directory of its own to write in;
    ``lock_configuration = true`` refuses any later SET/RESET/PRAGMA that would undo it.
    All but the last two are set when the connection opens (the progress bar, a setting
    of the session, is turned off, then the configuration locked), and so is DuckDB's
    ``memory_limit`` (``memory_limit`` bytes, default :data:`DEFAULT_MEMORY_LIMIT`).
    :func:`stream_query` adds its own check: only queries (SELECT-style statements and
    EXPLAIN of one) run.
    """
    p = Path(path)
    if not p.exists():
        raise AuditError(f"no audit database at {p}")
    _check_duckdb_file(p)
    limit = memory_limit if memory_limit is not None else memory_bytes(None)
    try:
        con = _when_free(lambda: duckdb.connect(
            str(p), read_only=True, config={**SANDBOX_CONFIG, "memory_limit": f"{limit}B"}))
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
    """Run exactly one query in this process (see :func:`stream_query`) and keep every row
    (the Python API's reading; the command line runs :func:`isolated_query`)."""
    with stream_query(con, sql, timeout) as stream:
        rows = [row for batch in stream.batches for row in batch]
        return Result(stream.columns, stream.types, rows)


# ------------------------------------------------------------------------ a process per query


def memory_bytes(text: str | None) -> int:
    """A memory limit as bytes: ``text`` (``512MB``, ``2GB``, ``1.5GiB``, ``1000000``), else
    ``$COREFLOW_AUDIT_MEMORY``, else :data:`DEFAULT_MEMORY_LIMIT`. At least 16 MB."""
    raw = text if text is not None else os.environ.get(MEMORY_ENV_VAR) or DEFAULT_MEMORY_LIMIT
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*", raw, re.IGNORECASE)
    if m is None:
        raise AuditError(f"memory limit {raw!r}: give a size such as 512MB, 2GB or 1.5GiB")
    unit = (m.group(2) or "B").upper()
    scale = 1 if unit == "B" else (1024 if "I" in unit else 1000) ** ("KMGT".index(unit[0]) + 1)
    value = int(float(m.group(1)) * scale)
    if value < 16 * 1000 * 1000:
        raise AuditError(f"memory limit {raw!r}: at least 16MB")
    return value


def _resident_bytes(pid: int) -> int | None:
    """The resident memory of a process (Linux ``/proc``; None where there is none)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class _Watch:
    """The parent's side of a query's process: waits for its messages, and kills it when
    the query runs past its deadline or holds more memory than it may."""

    def __init__(self, pid: int, inbox: Connection, timeout: float | None,
                 memory_limit: int) -> None:
        self.pid = pid
        self.inbox = inbox
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout if timeout else None
        base = _resident_bytes(os.getpid()) or 0  # shared with the child at the fork
        self.memory_limit = memory_limit
        self.ceiling = base + memory_limit + MEMORY_HEADROOM
        self.alive = True

    def receive(self) -> tuple[Any, ...]:
        while True:
            wait = WATCH_EVERY
            if self.deadline is not None:
                wait = min(wait, max(0.0, self.deadline - time.monotonic()))
            try:
                if self.inbox.poll(wait):
                    message: tuple[Any, ...] = self.inbox.recv()
                    return message
            except (EOFError, OSError):
                self.stop()
                raise QueryFailed("query failed: its process ended before answering (the "
                                  "system may have stopped it for its memory)") from None
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.stop()
                raise QueryFailed(f"query stopped: it ran longer than {self.timeout:g} s "
                                  "(--timeout SECONDS allows more)")
            held = _resident_bytes(self.pid)
            if held is not None and held > self.ceiling:
                self.stop()
                raise QueryFailed(f"query stopped: it needed more memory than "
                                  f"{_size(self.memory_limit)} (--memory-limit SIZE allows "
                                  "more)")

    def stop(self) -> None:
        if self.alive:
            self.alive = False
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)


def _size(n: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n} bytes"


@contextmanager
def _reported(outbox: Connection) -> Iterator[None]:
    """In a query's process: whatever goes wrong is sent to the parent as an error (a
    refusal by name, anything else as a failed query), never raised as a traceback; a
    parent gone away is left alone."""
    try:
        yield
    except AuditError as exc:
        outbox.send(("error", type(exc).__name__, str(exc)))
    except (EOFError, BrokenPipeError):
        pass  # the parent went away
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, never a traceback
        try:
            outbox.send(("error", "QueryFailed", f"query failed: {type(exc).__name__}: {exc}"))
        except (EOFError, BrokenPipeError, OSError):
            pass


def _serve(path: Path, sql: str, memory_limit: int, inbox: Connection,
           outbox: Connection) -> None:
    """The query's process: run ``sql`` on a sandboxed connection, send its columns, then
    a batch of rows each time the parent asks (``next``), or the error."""
    with _reported(outbox):
        con = read_only(path, memory_limit)
        _kind(con, sql)
        try:
            cur = con.execute(sql)
            desc = cur.description or []
            outbox.send(("columns", [d[0] for d in desc], [str(d[1]) for d in desc]))
            while inbox.recv() == "next":
                rows = cur.fetchmany(BATCH_ROWS) if desc else []
                outbox.send(("rows", rows))
                if not rows:
                    break
        except duckdb.Error as exc:
            failure = _failure(exc, None)
            outbox.send(("error", type(failure).__name__, str(failure)))


_RAISED = {"QueryRefused": QueryRefused, "QueryFailed": QueryFailed, "AuditError": AuditError}


@contextmanager
def isolated_query(path: str | Path, sql: str, timeout: float | None = DEFAULT_TIMEOUT,
                   memory_limit: int | None = None) -> Iterator[Stream]:
    """Run exactly one query on the audit file in a process of its own (forked); its rows
    stream in batches, as :func:`stream_query`'s do.

    The query's process is killed, and :class:`QueryFailed` says why, once it has run
    ``timeout`` seconds (fetching included; ``None`` or 0 is no limit) or holds more
    memory than ``memory_limit`` (bytes, default :func:`memory_bytes`) and
    :data:`MEMORY_HEADROOM`: the limits hold whatever the query does (DuckDB's own
    interrupt is checked only between vectors). Where there is no ``fork``, the query runs
    here (:func:`stream_query`, interrupted at the deadline)."""
    limit = memory_limit if memory_limit is not None else memory_bytes(None)
    if not hasattr(os, "fork"):  # pragma: no cover - every platform coreflow runs on
        con = read_only(path, limit)
        try:
            with stream_query(con, sql, timeout) as stream:
                yield stream
        finally:
            con.close()
        return
    p = Path(path)
    if not p.exists():
        raise AuditError(f"no audit database at {p}")
    pid, to_child, from_child = _fork(
        lambda inbox, outbox: _serve(p, sql, limit, inbox, outbox))
    watch = _Watch(pid, from_child, timeout, limit)
    try:
        first = watch.receive()
        if first[0] == "error":
            raise _RAISED.get(first[1], QueryFailed)(first[2])
        columns, types = first[1], first[2]

        def batches() -> Iterator[list[tuple[Any, ...]]]:
            if not columns:
                return
            while True:
                to_child.send("next")
                message = watch.receive()
                if message[0] == "error":
                    raise _RAISED.get(message[1], QueryFailed)(message[2])
                if not message[1]:
                    return
                yield message[1]

        yield Stream(columns, types, batches())
    finally:
        watch.stop()
        to_child.close()
        from_child.close()


def _fork(serve: Callable[[Connection, Connection], None]
          ) -> tuple[int, Connection, Connection]:
    """Start ``serve(inbox, outbox)`` in a process of its own (forked); the parent gets
    its pid and its side of the two pipes.

    The child ignores SIGINT: Ctrl-C reaches the whole foreground process group, and it is
    the parent that decides (the prompt cancels the query by ending its process, the
    command stops); a child that took the interrupt itself would answer a half-run
    query."""
    to_child, child_in = Pipe()
    child_out, from_child = Pipe()
    pid = os.fork()
    if pid == 0:  # the query's process: never returns
        code = 0
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            to_child.close()
            from_child.close()
            serve(child_in, child_out)
        except BaseException:  # noqa: BLE001 - nothing may escape a forked child
            code = 1
        finally:
            os._exit(code)
    child_in.close()
    child_out.close()
    return pid, to_child, from_child


# ------------------------------------------------------------------------ answers as files

#: The file formats an answer can be written in by :func:`isolated_write`.
FILE_FORMATS = ("parquet", "arrow")


def arrow_missing() -> str | None:
    """Why an Arrow file cannot be written here (pyarrow is not installed), or None."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        return ("Arrow files need the pyarrow package, which coreflow does not install: "
                "pip install pyarrow (or coreflow-judge[arrow])")
    return None


def isolated_write(path: str | Path, sql: str, target: str | Path, kind: str,
                   timeout: float | None = DEFAULT_TIMEOUT,
                   memory_limit: int | None = None) -> int:
    """Write the answer of one query to ``target`` as a Parquet file (``kind``
    ``parquet``) or an Arrow IPC file (``arrow``, pyarrow needed); the number of rows.

    The query runs as :func:`isolated_query` runs it: sandboxed, in a process of its own,
    killed at its deadline or memory limit. Its answer leaves the sandboxed connection as
    an Arrow stream (DuckDB's own, no pyarrow needed for Parquet) and is written by
    coreflow, never by the SQL: for Parquet, a second DuckDB database of the query's
    process (in memory, no file of its own, no extension) runs coreflow's one fixed
    ``COPY (FROM answer) TO <file>``; for Arrow, pyarrow's IPC file writer. The file is
    written beside ``target`` under a temporary name and renamed over it once whole: a
    query that fails, is stopped or is cancelled leaves ``target`` as it was.
    """
    if kind not in FILE_FORMATS:
        raise AuditError(f"cannot write an answer as {kind!r} (only: {', '.join(FILE_FORMATS)})")
    if kind == "arrow" and (missing := arrow_missing()) is not None:
        raise AuditError(missing)
    limit = memory_limit if memory_limit is not None else memory_bytes(None)
    p = Path(path)
    if not p.exists():
        raise AuditError(f"no audit database at {p}")
    out = Path(target)
    if out.is_dir():
        raise AuditError(f"cannot write the answer to {out}: a directory (give a file name)")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part",
                                        dir=out.parent if str(out.parent) else ".")
    except OSError as exc:
        raise AuditError(f"cannot write the answer to {out}: {exc.strerror or exc}") from exc
    os.close(fd)
    tmp = Path(tmp_name)
    pid, to_child, from_child = _fork(
        lambda _inbox, outbox: _serve_file(p, sql, limit, kind, tmp, outbox))
    watch = _Watch(pid, from_child, timeout, limit)
    try:
        message = watch.receive()
        if message[0] == "error":
            raise _RAISED.get(message[1], QueryFailed)(message[2])
        try:
            os.replace(tmp, out)
        except OSError as exc:
            raise AuditError(f"cannot write the answer to {out}: "
                             f"{exc.strerror or exc}") from exc
        return int(message[1])
    finally:
        watch.stop()
        to_child.close()
        from_child.close()
        tmp.unlink(missing_ok=True)


class _Answer:
    """An Arrow stream (the PyCapsule interface) handed from one DuckDB connection to
    another: the sandboxed one's answer, read once by the writer."""

    def __init__(self, relation: duckdb.DuckDBPyRelation) -> None:
        self._capsule = relation.__arrow_c_stream__()

    def __arrow_c_stream__(self, _requested_schema: object = None) -> object:
        return self._capsule


def _serve_file(path: Path, sql: str, memory_limit: int, kind: str, tmp: Path,
                outbox: Connection) -> None:
    """The query's process of :func:`isolated_write`: run ``sql`` on a sandboxed
    connection and write its answer to ``tmp``; send the row count or the error."""
    with _reported(outbox):
        con = read_only(path, memory_limit)
        _kind(con, sql)
        try:
            relation = con.sql(sql)
            rows = (_write_parquet(relation, tmp, memory_limit) if kind == "parquet"
                    else _write_arrow(relation, tmp))
        except duckdb.Error as exc:
            failure = _failure(exc, None)
            outbox.send(("error", type(failure).__name__, str(failure)))
            return
        outbox.send(("written", rows))


def _write_parquet(relation: duckdb.DuckDBPyRelation, tmp: Path, memory_limit: int) -> int:
    """The answer as Parquet at ``tmp``, written by a DuckDB database of coreflow's own (in
    memory; no user SQL ever runs on it): one fixed COPY of the answer's Arrow stream."""
    writer = duckdb.connect(":memory:", config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "temp_directory": "",
        "memory_limit": f"{memory_limit}B",
    })
    try:
        writer.from_arrow(_Answer(relation)).create_view("answer")
        count = writer.execute(f"COPY (FROM answer) TO '{_sql_text(str(tmp))}' "
                               "(FORMAT parquet, USE_TMP_FILE false)").fetchone()
        return int(count[0]) if count else 0
    finally:
        writer.close()


def _write_arrow(relation: duckdb.DuckDBPyRelation, tmp: Path) -> int:
    """The answer as an Arrow IPC file (Feather v2) at ``tmp``, batch by batch (pyarrow)."""
    import pyarrow as pa
    import pyarrow.ipc

    reader = pa.RecordBatchReader.from_stream(_Answer(relation))
    rows = 0
    with pa.OSFile(str(tmp), "wb") as sink, pyarrow.ipc.new_file(sink, reader.schema) as out:
        for batch in reader:
            out.write_batch(batch)
            rows += batch.num_rows
    return rows


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


def _feed_digest(hasher: Any, version: int, topic: str, state: bytes) -> None:
    """One stored row into a record's digest: its version, topic and stored bytes."""
    hasher.update(f"{version}\x00{topic}\x00".encode())
    hasher.update(state)
    hasher.update(b"\x00")


def _digest(stored: list[StoredEvent]) -> tuple[str, int]:
    """A record's digest over its rows in order, and how many rows it covers."""
    hasher = hashlib.sha256()
    for row in stored:
        _feed_digest(hasher, row.originator_version, row.topic, bytes(row.state))
    return hasher.hexdigest(), len(stored)


Row = tuple[str, int, str, bytes]
"""(record id, version, topic, stored bytes) of one stored row."""


def _stored_rows(app: MatchRecorder, top: int) -> Iterator[list[Row]]:
    """Every stored row up to notification ``top``, in the store's order, a page at a time:
    read with one plain SQL query per page on SQLite and PostgreSQL (about four times
    faster than eventsourcing's notifications, which the other stores are read through)."""
    from eventsourcing.postgres import PostgresApplicationRecorder
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    recorder = app.recorder
    last = 0
    ids: dict[Any, str] = {}  # the store's form of a record id -> its UUID text
    while last < top:
        if isinstance(recorder, SQLiteApplicationRecorder):
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(f"SELECT rowid, originator_id, originator_version, topic, state "
                          f"FROM {recorder.events_table_name} WHERE rowid > ? AND rowid <= ? "
                          "ORDER BY rowid LIMIT ?", (last, top, PAGE_SIZE))
                rows = [(r[0], r[1], r[2], r[3], r[4]) for r in c.fetchall()]
        elif isinstance(recorder, PostgresApplicationRecorder):
            from psycopg.sql import SQL, Identifier

            query = SQL("SELECT notification_id, originator_id, originator_version, topic, "
                        "state FROM {0}.{1} WHERE notification_id > %s AND notification_id "
                        "<= %s ORDER BY notification_id LIMIT %s").format(
                Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name))
            with recorder.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(query, [last, top, PAGE_SIZE])
                rows = [(r["notification_id"], r["originator_id"], r["originator_version"],
                         r["topic"], r["state"]) for r in curs.fetchall()]
        else:
            rows = [(n.id, n.originator_id, n.originator_version, n.topic, n.state)
                    for n in recorder.select_notifications(last, PAGE_SIZE, stop=top,
                                                           inclusive_of_start=False)]
        if not rows:
            return
        last = rows[-1][0]
        page: list[Row] = []
        for _id, raw, version, topic, state in rows:
            rid = ids.get(raw)
            if rid is None:
                rid = ids[raw] = str(UUID(str(raw)))
            page.append((rid, version, topic, state if isinstance(state, bytes)
                         else bytes(state)))
        yield page


def _read_digests(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str, int]]:
    """record id -> (match id, digest, rows) of every record the audit took in."""
    return {str(r): (str(m), str(d), int(n)) for r, m, d, n in con.execute(
        f"SELECT record_id, match_id, digest, lines FROM {DIGEST_TABLE}").fetchall()}


def _check_duckdb_file(path: Path) -> None:
    """An existing audit file must be DuckDB's: anything else (the store's SQLite file, a
    Parquet file) is refused before DuckDB opens it (and would try to load a reader)."""
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except (FileNotFoundError, IsADirectoryError):
        return
    except OSError as exc:
        raise AuditError(f"cannot open the audit database {path}: "
                         f"{exc.strerror or exc}") from exc
    if head and head[8:12] != b"DUCK":
        what = "a SQLite database (the event store?)" if head.startswith(b"SQLite format 3") \
            else "not a DuckDB file"
        raise AuditError(f"cannot use {path} as the audit database: {what}; give --audit a "
                         "DuckDB file of its own (created when missing)")


def _reset(con: duckdb.DuckDBPyConnection) -> None:
    """Drop every audit table and create them empty (schema of this version)."""
    for table in [*TABLES, STATE_TABLE, DIGEST_TABLE]:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    for statement in create_statements():
        con.execute(statement)
