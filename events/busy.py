"""Many writers, one store: what is worth trying again, and for how long.

A tournament records many matches at once (one ``coreflow record`` or ``play`` per table,
batch imports besides) into one store. The store serialises the writers; a writer that
finds it busy waits and tries again instead of failing, for a bounded time:

- SQLite allows one writer at a time: the others wait in SQLite's busy handler (the
  connection's timeout is the whole budget) and, for what the handler does not cover
  ("database is locked" while the journal mode changes, a snapshot gone stale), here.
- PostgreSQL: serialization failures, deadlocks, a lock not granted within its timeout,
  "too many clients", a pool with no free connection, a connection ended because it sat
  idle in its transaction (a writer starved of CPU), and the races of two sessions
  creating the same tables at once ("tuple concurrently updated", a duplicate key in the
  catalog).

Everything else (a version clash between two writers of the same match, a refused log,
a statement timeout) is not retried. The budget is ``$COREFLOW_BUSY_TIMEOUT`` seconds
(default 120); when it runs out, :class:`StillBusy` names the last cause and nothing
of that write has been kept.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from eventsourcing.persistence import OperationalError

BUSY_ENV_VAR = "COREFLOW_BUSY_TIMEOUT"
DEFAULT_BUSY_S = 120.0
"""How long a writer waits for a busy store, in all, before it gives up."""
FIRST_PAUSE_S = 0.02
MAX_PAUSE_S = 2.0

#: SQLSTATEs worth another try: serialization failure, deadlock, lock not available,
#: too many connections, idle-in-transaction timeout (PostgreSQL 14+).
RETRYABLE_SQLSTATES = frozenset({"40001", "40P01", "55P03", "53300", "25P03"})
#: SQLSTATEs of two sessions creating the same schema at once (only while setting up):
#: unique violation (in the catalog), duplicate table, duplicate object, duplicate schema.
SETUP_RACE_SQLSTATES = frozenset({"23505", "42P07", "42710", "42P06"})
RETRYABLE_MESSAGES = (
    "database is locked",          # SQLite: SQLITE_BUSY
    "database table is locked",    # SQLite: SQLITE_LOCKED
    "database schema is locked",
    "tuple concurrently updated",  # PostgreSQL: concurrent DDL on one catalog row
    "too many clients",            # PostgreSQL: every connection slot taken (53300)
    "remaining connection slots are reserved",
    "idle-in-transaction timeout",  # PostgreSQL: the session was ended, nothing committed
    "couldn't get a connection",   # psycopg_pool: no connection within its timeout
)
SQLITE_BUSY, SQLITE_LOCKED = 5, 6

R = TypeVar("R")


class BadBusyTimeout(ValueError):
    """``$COREFLOW_BUSY_TIMEOUT`` is not a number of seconds."""


class StillBusy(OperationalError):
    """The store stayed busy for the whole budget; the write was not made."""


def busy_budget() -> float:
    """``$COREFLOW_BUSY_TIMEOUT`` in seconds (default 120); :class:`BadBusyTimeout`."""
    raw = os.environ.get(BUSY_ENV_VAR, "").strip()
    if not raw:
        return DEFAULT_BUSY_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise BadBusyTimeout(f"${BUSY_ENV_VAR} is {raw!r}: give how long a writer waits for "
                             "a busy store, in seconds (0 to 86400; default 120)")
    return value


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes (eventsourcing wraps the driver's error)."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 10:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def is_retryable(exc: BaseException, setting_up: bool = False) -> bool:
    """Whether ``exc`` means "busy, try again": nothing was written, and the same write
    may well succeed in a moment. ``setting_up``: the schema is being created, so a
    duplicate in the catalog is another session that created it first."""
    for err in _chain(exc):
        if isinstance(err, StillBusy):  # waited the whole budget already
            return False
        state = getattr(err, "sqlstate", None)
        if state in RETRYABLE_SQLSTATES or (setting_up and state in SETUP_RACE_SQLSTATES):
            return True
        if isinstance(err, sqlite3.OperationalError) and \
                getattr(err, "sqlite_errorcode", 0) & 0xFF in (SQLITE_BUSY, SQLITE_LOCKED):
            return True
        if type(err).__name__ in ("PoolTimeout", "ConnectionUnavailableError"):
            return True
        if busy_message(str(err)):
            return True
    return False


def busy_message(text: str) -> bool:
    """Whether an error's text says the store is busy (see :func:`is_retryable`)."""
    return any(m in text for m in RETRYABLE_MESSAGES)


def pauses(budget: float) -> Callable[[], float | None]:
    """The next wait, each call: jittered exponential backoff (20 ms doubling to 2 s), until
    ``budget`` seconds have passed since the first call; None when the time is up."""
    deadline = time.monotonic() + budget
    ceiling = FIRST_PAUSE_S

    def next_pause() -> float | None:
        nonlocal ceiling
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        pause = min(left, random.uniform(ceiling / 2, ceiling))  # noqa: S311 - jitter only
        ceiling = min(MAX_PAUSE_S, ceiling * 2)
        return pause

    return next_pause


def retrying(fn: Callable[[int], R], what: str, setting_up: bool = False,
             budget: float | None = None) -> R:
    """``fn(attempt)`` (attempt 1, 2, ...) until it does not fail with a retryable error or
    the budget runs out (:class:`StillBusy`, which names ``what`` and the last cause)."""
    budget = busy_budget() if budget is None else budget
    next_pause = pauses(budget)
    attempt = 1
    started = time.monotonic()
    while True:
        try:
            return fn(attempt)
        except Exception as exc:
            if not is_retryable(exc, setting_up):
                raise
            pause = next_pause()
            if pause is None:
                cause = " ".join(str(exc).split()) or type(exc).__name__
                raise StillBusy(
                    f"{what}: the store stayed busy for {time.monotonic() - started:.0f} s "
                    f"({attempt} tries; ${BUSY_ENV_VAR} is the limit): {cause}"
                ) from exc
            time.sleep(pause)
            attempt += 1
