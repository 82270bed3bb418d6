"""The audit database against the store it reads: refresh times and aggregate queries.

From one run on this machine, prints:
- the simulated tournament: events recorded into a SQLite store with
  :meth:`MatchRecorder.record` (games from the seeded simulator, each game replayed under
  several match ids to reach the target quickly; every line carries an ``at`` time);
- the initial refresh of the audit DuckDB file (every match judged, every table filled);
- an incremental refresh after 1% more events were recorded (new matches), its time and
  its ratio to the initial refresh;
- three aggregate questions of docs/cookbook.md, the cookbook's SQL on the audit database
  against the same question asked of the SQLite store directly (``sqlite3`` and
  ``json_extract`` over ``stored_events``), best of three runs each, and the speed-up.
  The answers are compared, so the two sides provably answer the same question.

Usage: ``python benchmarks/bench_audit.py [--events 1000000] [--pool 64] [--seed 7]``.
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game  # noqa: E402
from coreflow_judge.adjudicator.simulate import game_seed  # noqa: E402
from coreflow_judge.audit import AuditDB  # noqa: E402
from coreflow_judge.events.models import LogLine, MatchStarted  # noqa: E402
from coreflow_judge.events.store import open_recorder  # noqa: E402

PACE = {"game_started": (60, 150), "request": (3, 25), "pass": (1, 8), "resolve": (1, 6)}

# ---------------------------------------------------------------- the three questions
# Each: (title, the cookbook's DuckDB SQL, the same question for the SQLite store,
#        how to compare the two answers).

T = "coreflow_judge.events.store:Recorded"

Q6_DUCK = """
SELECT q.action, count(*) AS n,
       round(avg(epoch(s.played_at) - epoch(q.played_at)), 1) AS avg_s,
       round(median(epoch(s.played_at) - epoch(q.played_at)), 1) AS median_s,
       max(s.played_at - q.played_at) AS longest
FROM requests q
JOIN resolutions s ON s.match_id = q.match_id AND s.seq = q.resolved_seq
WHERE NOT q.triggered
GROUP BY q.action
ORDER BY avg_s DESC
"""
Q6_SQLITE = f"""
WITH q AS (
    SELECT originator_id AS m, json_extract(CAST(state AS TEXT), '$.line.request') AS rid,
           json_extract(CAST(state AS TEXT), '$.line.action') AS action,
           json_extract(CAST(state AS TEXT), '$.line.at') AS at
    FROM stored_events WHERE topic = '{T}Request'
), s AS (
    SELECT originator_id AS m, json_extract(CAST(state AS TEXT), '$.line.request') AS rid,
           json_extract(CAST(state AS TEXT), '$.line.at') AS at
    FROM stored_events WHERE topic = '{T}Resolve'
)
SELECT q.action, count(*) AS n,
       round(avg((julianday(s.at) - julianday(q.at)) * 86400), 1) AS avg_s,
       max((julianday(s.at) - julianday(q.at)) * 86400) AS longest_s
FROM q JOIN s ON s.m = q.m AND s.rid = q.rid
GROUP BY q.action
ORDER BY avg_s DESC
"""

Q10_DUCK = """
SELECT edition, count(*) AS games,
       count(*) FILTER (winner = first_player) AS first_player_won,
       round(100.0 * count(*) FILTER (winner = first_player) / count(*), 1) AS pct
FROM matches
GROUP BY edition
ORDER BY edition
"""
Q10_SQLITE = f"""
WITH h AS (
    SELECT originator_id AS m,
           substr(json_extract(CAST(state AS TEXT), '$.line.rules'), 12) AS edition
    FROM stored_events WHERE topic = '{T}MatchStarted'
), g AS (
    SELECT originator_id AS m, json_extract(CAST(state AS TEXT), '$.line.first_player') AS fp
    FROM stored_events WHERE topic = '{T}GameStarted'
), e AS (
    SELECT originator_id AS m, json_extract(CAST(state AS TEXT), '$.line.winner') AS w
    FROM stored_events WHERE topic = '{T}GameEnded'
)
SELECT h.edition, count(*) AS games,
       coalesce(sum(e.w = g.fp), 0) AS first_player_won,
       round(100.0 * coalesce(sum(e.w = g.fp), 0) / count(*), 1) AS pct
FROM h LEFT JOIN g USING (m) LEFT JOIN e USING (m)
GROUP BY h.edition
ORDER BY h.edition
"""

Q12_DUCK = """
WITH d AS (
    SELECT match_id, seq, type, player,
           played_at - lag(played_at) OVER (PARTITION BY match_id ORDER BY seq) AS took
    FROM events
)
SELECT player, count(*) AS decisions, round(avg(epoch(took)), 1) AS avg_s,
       max(took) AS slowest
FROM d
WHERE type IN ('request', 'pass')
GROUP BY player
ORDER BY avg_s DESC
"""
Q12_SQLITE = """
WITH e AS (
    SELECT originator_id AS m, originator_version AS seq,
           json_extract(CAST(state AS TEXT), '$.line.type') AS type,
           json_extract(CAST(state AS TEXT), '$.line.player') AS player,
           json_extract(CAST(state AS TEXT), '$.line.at') AS at
    FROM stored_events
), d AS (
    SELECT m, seq, type, player,
           (julianday(at) - julianday(lag(at) OVER (PARTITION BY m ORDER BY seq))) * 86400
               AS took
    FROM e
)
SELECT player, count(*) AS decisions, round(avg(took), 1) AS avg_s, max(took) AS slowest_s
FROM d
WHERE type IN ('request', 'pass')
GROUP BY player
ORDER BY avg_s DESC
"""


def _key(rows: list[tuple[Any, ...]], cols: int) -> list[tuple[Any, ...]]:
    """The first ``cols`` columns of each row, sorted by the first."""
    return sorted((tuple(row[:cols]) for row in rows), key=lambda r: repr(r[0]))


def same_answer(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]], cols: int) -> bool:
    """Equal rows; numbers equal within 0.15 (SQLite's julianday is not exact)."""
    ka, kb = _key(a, cols), _key(b, cols)
    if len(ka) != len(kb):
        return False
    for ra, rb in zip(ka, kb, strict=True):
        for x, y in zip(ra, rb, strict=True):
            if isinstance(x, int | float) and isinstance(y, int | float):
                if abs(float(x) - float(y)) > 0.15:
                    return False
            elif x != y:
                return False
    return True


QUESTIONS: list[tuple[str, str, str, int]] = [
    ("6. request -> resolution time by action", Q6_DUCK, Q6_SQLITE, 3),
    ("10. first-player win rate by edition", Q10_DUCK, Q10_SQLITE, 4),
    ("12. decision time by player (window)", Q12_DUCK, Q12_SQLITE, 3),
]


# ---------------------------------------------------------------- the tournament


def with_times(lines: list[LogLine], rng: random.Random) -> list[LogLine]:
    clock = datetime(2025, 4, 12, 1, 0, tzinfo=UTC)
    out = []
    for line in lines:
        low, high = PACE.get(line.type, (0, 0))
        if high:
            clock += timedelta(seconds=rng.randint(low, high), milliseconds=rng.randint(0, 999))
        at = clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        out.append(line.model_copy(update={"at": at}))
    return out


def renamed(lines: list[LogLine], match_id: str) -> list[LogLine]:
    header = lines[0]
    assert isinstance(header, MatchStarted)
    return [header.model_copy(update={"match_id": match_id}), *lines[1:]]


def best_of(n: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(n):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--pool", type=int, default=64, help="distinct simulated games")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dir", type=Path, default=None, help="keep the files here")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    t0 = time.perf_counter()
    pool = []
    for i in range(args.pool):
        edition = "6.1" if i % 2 else "9.0"
        pool.append(with_times(simulate_game(edition, game_seed(args.seed, i)), rng))
    per_pass = sum(len(g) for g in pool)
    print(f"simulated {len(pool)} games ({per_pass:,} events) in "
          f"{time.perf_counter() - t0:.1f} s")

    tmp = tempfile.TemporaryDirectory(prefix="bench-audit-")
    where = args.dir or Path(tmp.name)
    where.mkdir(parents=True, exist_ok=True)
    store = str(where / "coreflow.db")
    for suffix in ("", "-wal", "-shm"):
        Path(store + suffix).unlink(missing_ok=True)
    recorder = open_recorder(store)

    n_match = 0

    def record_until(target: int) -> int:
        nonlocal n_match
        done = 0
        while done < target:
            game = pool[n_match % len(pool)]
            recorder.record(renamed(game, f"bench-{n_match:06d}"))
            n_match += 1
            done += len(game)
        return done

    t0 = time.perf_counter()
    total = record_until(args.events)
    t_rec = time.perf_counter() - t0
    print(f"recorded {n_match:,} matches, {total:,} events into SQLite in {t_rec:.1f} s "
          f"({total / t_rec:,.0f} events/s)")

    auditdb = AuditDB(where / "coreflow-audit.duckdb", store)
    auditdb.path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    first = auditdb.refresh(recorder=recorder)
    t_init = time.perf_counter() - t0
    rows = sum(first.rows.values())
    print(f"initial refresh: {t_init:.1f} s for {first.notifications:,} notifications, "
          f"{first.matches:,} matches, {rows:,} rows "
          f"({first.notifications / t_init:,.0f} events/s)")

    new = record_until(max(1, total // 100))
    t0 = time.perf_counter()
    second = auditdb.refresh(recorder=recorder)
    t_inc = time.perf_counter() - t0
    print(f"incremental refresh (+{new:,} events, {new / total:.1%}, "
          f"{second.matches} new matches): {t_inc:.2f} s = {t_inc / t_init:.2%} of the "
          f"initial refresh")
    t0 = time.perf_counter()
    third = auditdb.refresh(recorder=recorder)
    print(f"refresh with nothing new: {(time.perf_counter() - t0) * 1000:.0f} ms "
          f"({third.matches} matches)")
    size = auditdb.path.stat().st_size / 1e6
    store_size = sum(Path(store + s).stat().st_size for s in ("", "-wal")
                     if Path(store + s).exists()) / 1e6
    print(f"files: store {store_size:,.0f} MB, audit {size:,.0f} MB")

    duck = auditdb.connect_read_only()
    lite = sqlite3.connect(store)
    print()
    print(f"{'question':44} {'duckdb':>10} {'sqlite':>10} {'speed-up':>9}")
    def on_duckdb(sql: str) -> Callable[[], list[tuple[Any, ...]]]:
        return lambda: duck.execute(sql).fetchall()

    def on_sqlite(sql: str) -> Callable[[], list[tuple[Any, ...]]]:
        return lambda: lite.execute(sql).fetchall()

    for title, dsql, ssql, cols in QUESTIONS:
        t_d, d_rows = best_of(3, on_duckdb(dsql))
        t_s, s_rows = best_of(3, on_sqlite(ssql))
        same = same_answer(d_rows, s_rows, cols)
        print(f"{title:44} {t_d * 1000:8.1f} ms {t_s * 1000:8.1f} ms {t_s / t_d:8.0f}x"
              f"{'' if same else '  (ANSWERS DIFFER)'}")
        if not same:
            print("  duckdb:", _key(d_rows, cols)[:4])
            print("  sqlite:", _key(s_rows, cols)[:4])
    duck.close()
    lite.close()
    tmp.cleanup()


if __name__ == "__main__":
    main()
