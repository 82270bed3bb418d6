"""What ``coreflow serve`` keeps beside the match records, in the store's own database.

The server keeps no state the store does not: the events an organiser created, their
tables (each one match record of the event store), the role tokens (hashed), the answers
to the scorekeepers' submissions (so that a submission sent again gets the same answer
and is never entered twice) and the *feed*: one row per thing that happened at a table
(lines stored, an entry refused, a judge called, a ruling), which every server process
reads to tell its pages. Two ``coreflow serve`` processes over one PostgreSQL store are
then two views of one event.

The tables live in the same SQLite file or PostgreSQL database (and schema) as the match
records, named ``serve_*``; the match records themselves are the event store's, written
only through :class:`~events.store.MatchRecorder` (:mod:`serve.hub`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from coreflow_judge.events.store import StoreUnavailable, store_env

ROLES = ("organiser", "judge", "scorekeeper")
"""Who a token speaks for: the organiser (everything), a judge (every table of an event:
read, and record rulings), a scorekeeper (one table: enter its lines)."""
TOKEN_BYTES = 24
"""A token is this many random bytes (URL-safe base64): not guessable, so one round of
SHA-256 is enough to store it."""

_TABLES = {
    "serve_events": "event_id TEXT PRIMARY KEY, name TEXT NOT NULL, rules TEXT NOT NULL, "
                    "format TEXT, created_at TEXT NOT NULL",
    "serve_tables": "match_id TEXT PRIMARY KEY, event_id TEXT NOT NULL, round TEXT NOT NULL, "
                    "table_no TEXT NOT NULL, players TEXT NOT NULL, created_at TEXT NOT NULL, "
                    "UNIQUE (event_id, round, table_no)",
    "serve_tokens": "token_hash TEXT PRIMARY KEY, role TEXT NOT NULL, event_id TEXT, "
                    "match_id TEXT, label TEXT, created_at TEXT NOT NULL, revoked_at TEXT",
    "serve_submissions": "match_id TEXT NOT NULL, client TEXT NOT NULL, "
                         "client_seq BIGINT NOT NULL, answer TEXT NOT NULL, "
                         "PRIMARY KEY (match_id, client, client_seq)",
}
_FEED_SQLITE = ("serve_feed", "id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, "
                "match_id TEXT, kind TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL")
_FEED_PG = ("serve_feed", "id BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL, match_id TEXT, "
            "kind TEXT NOT NULL, data TEXT NOT NULL, at TEXT NOT NULL")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True, slots=True)
class Grant:
    """What a token allows: its role, its event (judge, scorekeeper) and its match
    (scorekeeper)."""

    role: str
    event_id: str | None
    match_id: str | None
    label: str | None = None

    def may_read(self, event_id: str) -> bool:
        return self.role == "organiser" or self.event_id == event_id

    def may_write(self, match_id: str) -> bool:
        return self.role == "scorekeeper" and self.match_id == match_id


@dataclass(frozen=True, slots=True)
class EventRow:
    event_id: str
    name: str
    rules: str
    format: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"event_id": self.event_id, "name": self.name, "rules": self.rules,
                "format": self.format}


@dataclass(frozen=True, slots=True)
class TableRow:
    match_id: str
    event_id: str
    round: str
    table_no: str
    players: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "event_id": self.event_id, "round": self.round,
                "table": self.table_no, "players": list(self.players)}


@dataclass(frozen=True, slots=True)
class FeedItem:
    id: int
    event_id: str
    match_id: str | None
    kind: str
    data: dict[str, Any]
    at: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "event_id": self.event_id, "match_id": self.match_id,
                "kind": self.kind, "data": self.data, "at": self.at}


class ServeDB:
    """The ``serve_*`` tables of one store (SQLite file or PostgreSQL database)."""

    def __init__(self, store: str | None) -> None:
        env = store_env(store)
        self.sqlite: str | None = env.get("SQLITE_DBNAME")
        self._local = threading.local()
        self._pool: Any = None
        if self.sqlite is None:
            from psycopg_pool import ConnectionPool

            schema = env.get("POSTGRES_SCHEMA")
            params = {"host": env["POSTGRES_HOST"], "port": env["POSTGRES_PORT"],
                      "dbname": env["POSTGRES_DBNAME"], "user": env["POSTGRES_USER"],
                      "connect_timeout": 10, "autocommit": True}
            if env.get("POSTGRES_PASSWORD"):
                params["password"] = env["POSTGRES_PASSWORD"]
            if schema:
                params["options"] = f"-c search_path={schema}"
            self._pool = ConnectionPool(kwargs=params, min_size=1, max_size=8, open=True,
                                        timeout=30)
        self._create()

    # ------------------------------------------------------------------ connections
    @contextmanager
    def _cursor(self, write: bool = True) -> Iterator[Any]:
        """One transaction: committed when the block ends, rolled back if it raises
        (``write=False``: one statement that reads, in no transaction of its own)."""
        if self.sqlite is not None:
            con = getattr(self._local, "con", None)
            if con is None:
                con = sqlite3.connect(self.sqlite, timeout=60, isolation_level=None,
                                      check_same_thread=False)
                con.execute("PRAGMA journal_mode=WAL")
                # In WAL mode a commit survives the process being killed without waiting
                # for the disk; a power cut may lose the last answers and feed rows (never
                # a match line: the event store's own connection syncs each append), and
                # then a submission sent again is refused as made on a record that moved
                # on, not entered twice.
                con.execute("PRAGMA synchronous=NORMAL")
                self._local.con = con
            cur = con.cursor()
            if not write:
                yield _Cursor(cur, pg=False)
                return
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield _Cursor(cur, pg=False)
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")
            return
        with self._pool.connection() as conn:
            if not write:
                with conn.cursor() as cur:
                    yield _Cursor(cur, pg=True)
                return
            with conn.transaction(), conn.cursor() as cur:
                yield _Cursor(cur, pg=True)

    def _create(self) -> None:
        try:
            with self._cursor() as c:
                if c.pg:
                    # Two processes creating the tables at once would race in pg_type.
                    c.execute("SELECT pg_advisory_xact_lock(7402613)")
                feed = _FEED_PG if c.pg else _FEED_SQLITE
                for name, columns in [*_TABLES.items(), feed]:
                    c.execute(f"CREATE TABLE IF NOT EXISTS {name} ({columns})")
                c.execute("CREATE INDEX IF NOT EXISTS serve_feed_event ON serve_feed "
                          "(event_id, id)")
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(f"cannot set up the server's tables: {exc}") from exc

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        con = getattr(self._local, "con", None)
        if con is not None:
            con.close()
            self._local.con = None

    # ------------------------------------------------------------------ tokens
    def issue(self, role: str, event_id: str | None = None, match_id: str | None = None,
              label: str | None = None) -> str:
        """A new token for ``role`` (stored hashed): the only time it is seen in clear."""
        if role not in ROLES:
            raise ValueError(f"no role {role!r} (roles: {', '.join(ROLES)})")
        token = new_token()
        with self._cursor() as c:
            c.execute("INSERT INTO serve_tokens (token_hash, role, event_id, match_id, label, "
                      "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                      (token_hash(token), role, event_id, match_id, label, now()))
        return token

    def grant(self, token: str | None) -> Grant | None:
        """What ``token`` allows, or None (unknown or revoked)."""
        if not token or len(token) > 200:
            return None
        with self._cursor(write=False) as c:
            c.execute("SELECT role, event_id, match_id, label FROM serve_tokens "
                      "WHERE token_hash = ? AND revoked_at IS NULL", (token_hash(token),))
            row = c.fetchone()
        return None if row is None else Grant(row[0], row[1], row[2], row[3])

    def revoke(self, *, event_id: str, match_id: str | None = None,
               role: str | None = None) -> int:
        """Revoke the tokens of a table (``match_id``) or of a role in an event."""
        sql = "UPDATE serve_tokens SET revoked_at = ? WHERE revoked_at IS NULL AND event_id = ?"
        params: list[Any] = [now(), event_id]
        if match_id is not None:
            sql += " AND match_id = ?"
            params.append(match_id)
        if role is not None:
            sql += " AND role = ?"
            params.append(role)
        with self._cursor() as c:
            c.execute(sql, tuple(params))
            return int(c.rowcount)

    def tokens(self, event_id: str) -> list[dict[str, Any]]:
        """The tokens of an event, as the organiser lists them (never the token)."""
        with self._cursor(write=False) as c:
            c.execute("SELECT role, match_id, label, created_at, revoked_at FROM serve_tokens "
                      "WHERE event_id = ? ORDER BY created_at", (event_id,))
            rows = c.fetchall()
        return [{"role": r[0], "match_id": r[1], "label": r[2], "created_at": r[3],
                 "revoked_at": r[4]} for r in rows]

    # ------------------------------------------------------------------ events, tables
    def add_event(self, event_id: str, name: str, rules: str, fmt: str | None) -> EventRow:
        with self._cursor() as c:
            c.execute("INSERT INTO serve_events (event_id, name, rules, format, created_at) "
                      "VALUES (?, ?, ?, ?, ?)", (event_id, name, rules, fmt, now()))
        return EventRow(event_id, name, rules, fmt)

    def events(self) -> list[EventRow]:
        with self._cursor(write=False) as c:
            c.execute("SELECT event_id, name, rules, format FROM serve_events "
                      "ORDER BY created_at")
            return [EventRow(*r) for r in c.fetchall()]

    def event(self, event_id: str) -> EventRow | None:
        with self._cursor(write=False) as c:
            c.execute("SELECT event_id, name, rules, format FROM serve_events "
                      "WHERE event_id = ?", (event_id,))
            row = c.fetchone()
        return None if row is None else EventRow(*row)

    def add_table(self, row: TableRow) -> None:
        with self._cursor() as c:
            c.execute("INSERT INTO serve_tables (match_id, event_id, round, table_no, players, "
                      "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                      (row.match_id, row.event_id, row.round, row.table_no,
                       json.dumps(list(row.players)), now()))

    def tables(self, event_id: str) -> list[TableRow]:
        with self._cursor(write=False) as c:
            c.execute("SELECT match_id, event_id, round, table_no, players FROM serve_tables "
                      "WHERE event_id = ? ORDER BY created_at, match_id", (event_id,))
            rows = c.fetchall()
        return [TableRow(r[0], r[1], r[2], r[3], tuple(json.loads(r[4]))) for r in rows]

    def table(self, match_id: str) -> TableRow | None:
        with self._cursor(write=False) as c:
            c.execute("SELECT match_id, event_id, round, table_no, players FROM serve_tables "
                      "WHERE match_id = ?", (match_id,))
            r = c.fetchone()
        return None if r is None else TableRow(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])))

    # ------------------------------------------------------------------ submissions
    def answered(self, match_id: str, client: str, client_seq: int) -> dict[str, Any] | None:
        """The answer already given to this submission, if it was answered."""
        with self._cursor(write=False) as c:
            c.execute("SELECT answer FROM serve_submissions WHERE match_id = ? AND client = ? "
                      "AND client_seq = ?", (match_id, client, client_seq))
            row = c.fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def answer(self, match_id: str, client: str, client_seq: int, answer: dict[str, Any],
               post: tuple[str, str, dict[str, Any]] | None = None) -> None:
        """Keep the answer to a submission (a second one of the same key keeps the first)
        and, in the same transaction, ``post`` (event id, kind, data) to the feed."""
        with self._cursor() as c:
            c.execute("INSERT INTO serve_submissions (match_id, client, client_seq, answer) "
                      "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                      (match_id, client, client_seq, json.dumps(answer, ensure_ascii=False)))
            if post is not None:
                _post(c, post[0], match_id, post[1], post[2])

    # ------------------------------------------------------------------ the feed
    def post(self, event_id: str, match_id: str | None, kind: str,
             data: dict[str, Any] | None = None) -> None:
        """One thing that happened, for every server's pages."""
        with self._cursor() as c:
            _post(c, event_id, match_id, kind, data or {})

    def feed(self, after: int, event_id: str | None = None, limit: int = 500,
             kinds: Sequence[str] = ()) -> list[FeedItem]:
        """The feed after id ``after`` (of one event, or all; of ``kinds`` only, if
        given), oldest first."""
        sql = "SELECT id, event_id, match_id, kind, data, at FROM serve_feed WHERE id > ?"
        params: list[Any] = [after]
        if event_id is not None:
            sql += " AND event_id = ?"
            params.append(event_id)
        if kinds:
            sql += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            params.extend(kinds)
        sql += f" ORDER BY id LIMIT {int(limit)}"
        with self._cursor(write=False) as c:
            c.execute(sql, tuple(params))
            rows = c.fetchall()
        return [FeedItem(int(r[0]), r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def last_feed_id(self) -> int:
        with self._cursor(write=False) as c:
            c.execute("SELECT COALESCE(MAX(id), 0) FROM serve_feed")
            row = c.fetchone()
        return int(row[0]) if row else 0


def _post(c: _Cursor, event_id: str, match_id: str | None, kind: str,
          data: dict[str, Any]) -> None:
    if c.pg:
        # Ids commit in their order: a reader that saw id N never later finds a smaller
        # one appear.
        c.execute("LOCK TABLE serve_feed IN EXCLUSIVE MODE")
    c.execute("INSERT INTO serve_feed (event_id, match_id, kind, data, at) "
              "VALUES (?, ?, ?, ?, ?)",
              (event_id, match_id, kind, json.dumps(data, ensure_ascii=False), now()))


class _Cursor:
    """A DB-API cursor that takes ``?`` placeholders on either database."""

    def __init__(self, cur: Any, pg: bool) -> None:
        self._cur = cur
        self.pg = pg

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        if self.pg:
            sql = sql.replace("?", "%s")
        self._cur.execute(sql, params)

    def fetchone(self) -> Any:
        return self._cur.fetchone()

    def fetchall(self) -> list[Any]:
        return list(self._cur.fetchall())

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)
