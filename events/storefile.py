"""Is this store ours, and can it be reached? Checks made before the recorder opens a store.

The eventsourcing recorder creates its table in whatever SQLite file it is given, and a
PostgreSQL pool that cannot connect only says that it "couldn't get a connection". So
before a store is opened:

- :func:`check_sqlite_store` refuses a SQLite file that is another program's database
  (it has tables, but no ``stored_events`` table of coreflow's), reading it without
  changing it;
- :func:`read_only_uri` names a SQLite file so that reading it never writes (a store on
  read-only media, or one the user may only read, can still be judged and audited);
- :func:`check_postgres` connects once with psycopg and reports the real cause of a
  failure in one line (refused, unknown host, no such database, authentication).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

#: The columns eventsourcing gives the table of stored events.
EVENT_COLUMNS = frozenset({"originator_id", "originator_version", "topic", "state"})
#: Topic prefixes of coreflow's recorded lines (now, and before the namespace move).
OUR_TOPICS = ("coreflow_judge.events.store:", "events.store:")


class NotOurStore(Exception):
    """The file is a database, but not a coreflow event store: it is left as it is."""


def is_plain_path(db: str) -> bool:
    """A SQLite file named by its path (not ``:memory:``, not a ``file:`` URI)."""
    return db != "" and ":memory:" not in db and not db.startswith("file:")


def read_only_uri(db: str, immutable: bool = False) -> str:
    """The ``file:`` URI that opens the SQLite file ``db`` for reading only.

    ``immutable`` also tells SQLite that nobody writes the file meanwhile, so that it needs
    neither a lock nor the ``-shm`` file: the way to read a store in a directory we may not
    write (used only when the plain read-only open fails, and the store has no ``-wal``
    file whose lines would then be missed).
    """
    uri = "file:" + quote(str(Path(db).resolve())) + "?mode=ro"
    return uri + "&immutable=1" if immutable else uri


def may_read_immutable(db: str) -> bool:
    """Whether the store has no write-ahead log with content (immutable reading is safe)."""
    wal = Path(db + "-wal")
    return not wal.exists() or wal.stat().st_size == 0


def _connect_read_only(db: str) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(read_only_uri(db), uri=True)
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return con
    except sqlite3.OperationalError:
        if not may_read_immutable(db):
            raise
        return sqlite3.connect(read_only_uri(db, immutable=True), uri=True)


def check_sqlite_store(db: str) -> bool:
    """Refuse (:class:`NotOurStore`) a SQLite file that is another program's database.

    Returns whether the file holds coreflow's table of stored events already (False for a
    file that does not exist yet or an empty database: a new store). Raises
    ``sqlite3.DatabaseError`` for a file that is no SQLite database at all. Never writes.
    """
    if not is_plain_path(db) or not os.path.isfile(db) or os.path.getsize(db) == 0:
        return False
    con = _connect_read_only(db)
    try:
        tables = sorted(r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        if not tables:
            return False
        if "stored_events" not in tables:
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            raise NotOurStore(f"a SQLite database of another program (tables: {shown}), not a "
                              "coreflow event store; it was not changed")
        columns = {r[1] for r in con.execute("PRAGMA table_info(stored_events)")}
        if not EVENT_COLUMNS <= columns:
            raise NotOurStore("a SQLite database of another program: its stored_events table "
                              f"has the columns {', '.join(sorted(columns))}, not coreflow's; "
                              "it was not changed")
        where = " AND ".join("topic NOT LIKE ?" for _ in OUR_TOPICS)
        other = con.execute(f"SELECT topic FROM stored_events WHERE {where} LIMIT 1",
                            [p + "%" for p in OUR_TOPICS]).fetchone()
        if other is not None:
            raise NotOurStore("the event store of another program: its stored_events hold "
                              f"events that are not match lines (topic {str(other[0])[:80]!r}); "
                              "it was not changed")
        return True
    finally:
        con.close()


def check_postgres(env: dict[str, str], timeout: float) -> str | None:
    """Connect once as the recorder would; the cause of a failure as one line, or None."""
    import psycopg  # only for a PostgreSQL store
    from psycopg.conninfo import make_conninfo

    params = {
        "dbname": env.get("POSTGRES_DBNAME", ""),
        "host": env.get("POSTGRES_HOST", ""),
        "port": env.get("POSTGRES_PORT", ""),
        "user": env.get("POSTGRES_USER", ""),
        "password": env.get("POSTGRES_PASSWORD", ""),
    }
    try:
        conninfo = make_conninfo(**{k: v for k, v in params.items() if v})
        psycopg.connect(conninfo, connect_timeout=max(1, int(timeout))).close()
    except psycopg.Error as exc:
        return postgres_cause(exc)
    return None


def postgres_cause(exc: BaseException) -> str:
    """psycopg's message in one line: ``connection to server at "h", port 5 failed: ...``."""
    lines = [x.strip() for x in str(exc).strip().splitlines() if x.strip()]
    text = lines[0] if lines else type(exc).__name__
    for prefix in ("connection failed: ", "connection is bad: "):
        text = text.removeprefix(prefix)
    return " ".join(text.replace("FATAL:", "").split())
