"""A tournament at once: 16 tables recording simulated games into one store, measured in
one run, and checked line by line.

Each table is a process driver (benchmarks/tournament.py): with ``--via record`` (today's
driver) one ``coreflow record LOG... --store S`` per table, its games in one batch; with
``--via play`` one ``coreflow play --store S < LOG`` per game, each table's games one after
another (the line-by-line recorder another engineer is building: until ``coreflow play``
exists every table fails, and the checks report every match lost). All tables start at
once on a fresh store (a new SQLite file; a new schema of the PostgreSQL database given
by ``--postgres URL`` or ``$COREFLOW_TEST_POSTGRES``).

Prints, per store: the stored events per second of the whole tournament (first process
started to last ended), the same games recorded by one batch process into a fresh store
(the ratio), and the checks: every match's ``coreflow log`` against ``coreflow normalize``
of its file, hashes included: lost, duplicated, reordered and foreign lines, matches
whole, and matches recorded more than once. Never a timed test.

Usage: ``python benchmarks/bench_tournament.py [--tables 16] [--games-per-table 4]
[--seed 1] [--postgres URL] [--via record|play]``. Exit status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.events.store import StoreError  # noqa: E402

from benchmarks.tournament import (  # noqa: E402
    DRIVERS,
    MatchCheck,
    compare,
    drop_postgres_schema,
    match_id_of,
    normalized,
    postgres_store,
    recorded_ids,
    run_tables,
    simulate,
    sqlite_store,
    stored_via_cli,
)


def checks(store: str, logs: list[Path], workers: int) -> list[MatchCheck]:
    """``coreflow log MATCH`` against ``coreflow normalize FILE`` for every match."""

    def one(log: Path) -> MatchCheck:
        match_id = match_id_of(log)
        return compare(match_id, normalized(log), stored_via_cli(store, match_id))

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, logs))


def bench(kind: str, fresh: str, baseline_store: str, logs: list[Path], tables: int,
          args: argparse.Namespace) -> bool:
    driver = DRIVERS[args.via]
    per_table = [logs[i::tables] for i in range(tables)]
    runs, wall = run_tables([driver(fresh, table) for table in per_table])
    failed = [(i, code, err.strip().splitlines()[-1:] if err.strip() else [])
              for i, run in enumerate(runs)
              for code, err in zip(run.exit_codes, run.stderr, strict=True) if code != 0]
    found = checks(fresh, logs, args.workers)
    events = sum(c.stored for c in found)
    expected = sum(c.expected for c in found)
    try:
        ids = recorded_ids(fresh)
    except StoreError as exc:
        ids = []
        print(f"{kind}: the store does not open: {exc}")
    twice = sum(n - 1 for n in Counter(ids).values())
    print(f"{kind}: {tables} tables at once ({args.via}), {len(logs)} games, {events} of "
          f"{expected} events stored in {wall:.1f} s: {events / wall:.0f} events/s "
          f"(tables took {min(r.seconds for r in runs):.1f}-{max(r.seconds for r in runs):.1f} s)")
    for table, code, last in failed[:5]:
        print(f"  table {table}: exit {code}: {' '.join(last)}")
    if failed:
        print(f"  {len(failed)} {args.via} processes failed")
    ok = not failed
    if args.baseline:
        started = time.perf_counter()
        base_runs, _ = run_tables([driver(baseline_store, logs)])
        one = time.perf_counter() - started
        ok_base = all(code == 0 for code in base_runs[0].exit_codes)
        print(f"{kind}: the same games by one process: {expected / one:.0f} events/s in "
              f"{one:.1f} s{'' if ok_base else ' (it failed)'}; {tables} tables at once "
              f"are {one / wall:.2f}x that")
    lost = sum(c.lost for c in found)
    dup = sum(c.duplicated for c in found)
    reordered = sum(c.reordered for c in found)
    foreign = sum(c.foreign for c in found)
    whole = sum(1 for c in found if c.whole)
    print(f"{kind}: checks (coreflow log = coreflow normalize, hashes included): "
          f"{lost} lost, {dup} duplicated, {reordered} reordered, {foreign} foreign lines; "
          f"{whole} of {len(logs)} matches whole; {twice} matches recorded twice, "
          f"{len(set(ids) - {c.match_id for c in found})} never sent")
    return ok and not (lost or dup or reordered or foreign or twice) and whole == len(logs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=16, help="tables at once (default 16)")
    ap.add_argument("--games-per-table", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--postgres", metavar="URL", default=os.environ.get("COREFLOW_TEST_POSTGRES"),
                    help="a PostgreSQL database to use too (a new schema in it) "
                    "[default: $COREFLOW_TEST_POSTGRES]")
    ap.add_argument("--via", choices=sorted(DRIVERS), default="record",
                    help="record: each table runs `coreflow record LOG...` (default); play: "
                    "each table runs `coreflow play --store S < LOG` per game, line by line")
    ap.add_argument("--no-baseline", dest="baseline", action="store_false",
                    help="skip the one-process run of the same games")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                    help="checking processes at once")
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="coreflow-tournament-") as tmp:
        work = Path(tmp)
        logs = simulate(work / "logs", args.tables * args.games_per_table, args.seed)
        ok = bench("sqlite", sqlite_store(work), sqlite_store(work, "one.db"), logs,
                   args.tables, args) and ok
        if args.postgres:
            run = uuid.uuid4().hex[:8]
            fresh = postgres_store(args.postgres, f"coreflow_bench_{run}")
            one = postgres_store(args.postgres, f"coreflow_bench_{run}_one")
            try:
                ok = bench("postgresql", fresh, one, logs, args.tables, args) and ok
            finally:
                drop_postgres_schema(fresh)
                drop_postgres_schema(one)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
