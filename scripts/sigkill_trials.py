"""SIGKILL trials: kill -9 a batch ``coreflow record`` (or ``coreflow play``) at random
moments and check what the store kept.

Each trial records a batch of simulated logs into a fresh store (a new SQLite file, or a
new PostgreSQL schema: the kill may land while the store is being created), kills the
process at a random moment while it records (from shortly before an uninterrupted batch,
measured first on the same machine, records its first match to its end; ``--window all``:
from the start), and then checks (benchmarks/tournament.py,
``kill_trial``):

- every match of the batch is whole (the store's lines, via ``coreflow log``, equal
  ``coreflow normalize`` of its file, hashes included) or absent; with ``--via play``,
  whole up to its last accepted line;
- ``coreflow verify --all`` passes: the store opens and every stored chain is intact;
- recording the batch again completes every match (the others are "already recorded
  with the same content").

Prints the counts per store. Usage::

    python scripts/sigkill_trials.py --trials 50 [--postgres URL] [--logs 8] [--seed 1]

PostgreSQL is tried when ``--postgres`` or ``$COREFLOW_TEST_POSTGRES`` gives a URL.
``--via play`` drives ``coreflow play --store S < LOG`` instead, and checks that every
line play answered ``ok`` for is in the store. Exit status 0 when no trial found a
problem, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.tournament import (  # noqa: E402
    DRIVERS,
    Invocation,
    Trial,
    drop_postgres_schema,
    kill_trial,
    postgres_store,
    simulate,
    sqlite_store,
)


def trials_on(kind: str, url: str | None, workdir: Path, logs: list[Path], args: argparse.Namespace,
              rng: random.Random) -> list[Trial]:
    """``args.trials`` trials in which the kill landed, on fresh stores of one kind."""

    def fresh(n: int) -> str:
        if url is None:
            return sqlite_store(workdir, f"trial-{n}.db")
        return postgres_store(url, f"coreflow_kill_{uuid.uuid4().hex[:10]}")

    def done_with(store: str) -> None:
        if url is not None:
            drop_postgres_schema(store)
        else:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{store}{suffix}").unlink(missing_ok=True)

    store = fresh(0)
    first, span = calibrate(DRIVERS[args.via](store, logs))
    done_with(store)
    low = 0.0 if args.window == "all" else max(0.0, first - (span - first) / 4)
    print(f"{kind}: an uninterrupted batch of {len(logs)} logs takes {span:.1f} s, the first "
          f"match recorded after {first:.1f} s; killing at random moments in "
          f"[{low:.1f}, {span:.1f}] s")
    trials: list[Trial] = []
    missed = 0
    n = 0
    while len(trials) < args.trials and missed < 5 * args.trials:
        n += 1
        store = fresh(n)
        trial = kill_trial(args.via, store, logs, rng.uniform(low, span),
                           cli_logs=args.cli_logs)
        done_with(store)
        if not trial.killed:
            missed += 1  # the batch had ended before the kill: not a trial
            continue
        trials.append(trial)
        for problem in trial.problems:
            print(f"  trial {len(trials)}: {problem}")
    return trials


def calibrate(invocations: list[Invocation]) -> tuple[float, float]:
    """Run the batch once, uninterrupted: seconds until the first receipt is printed (on
    standard error, which is line-buffered: a match recorded) and until the end."""
    started = time.perf_counter()
    first = None
    for inv in invocations:
        with open(inv.stdin or os.devnull, "rb") as stdin:
            proc = subprocess.Popen(inv.argv, stdin=stdin, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        for _line in proc.stderr:
            first = first or time.perf_counter() - started
        proc.wait()
    span = time.perf_counter() - started
    return (first or span), span


def report(kind: str, trials: list[Trial], logs: int) -> bool:
    nothing = sum(1 for t in trials if t.absent == logs)
    everything = sum(1 for t in trials if t.whole == logs)
    bad = [t for t in trials if t.problems]
    print(f"{kind}: {len(trials)} kills; afterwards {nothing} stores held no match yet, "
          f"{len(trials) - nothing - everything} some matches whole and the rest absent, "
          f"{everything} every match whole; matches whole {sum(t.whole for t in trials)}, "
          f"absent {sum(t.absent for t in trials)}, cut short "
          f"{sum(t.cut_short for t in trials)}; trials with a problem: {len(bad)} "
          "(a match neither whole nor absent, verify --all failing, a batch that does not "
          "complete when recorded again)")
    return not bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=50, help="kills per store (default 50)")
    ap.add_argument("--logs", type=int, default=8, help="logs per batch (default 8)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--postgres", metavar="URL", default=os.environ.get("COREFLOW_TEST_POSTGRES"),
                    help="a PostgreSQL server to try too [default: $COREFLOW_TEST_POSTGRES]")
    ap.add_argument("--sqlite-only", action="store_true", help="do not try PostgreSQL")
    ap.add_argument("--postgres-only", action="store_true", help="do not try SQLite")
    ap.add_argument("--cli-logs", type=int, default=2, metavar="N",
                    help="per trial, check N recorded matches with `coreflow log` itself "
                    "(every match is checked with what `coreflow log` prints, read in this "
                    "process) [default: 2]")
    ap.add_argument("--window", choices=["writes", "all"], default="writes",
                    help="writes: kill from shortly before the first match is recorded to the "
                    "end of the batch (default); all: from the start (most kills then land "
                    "while the command is still starting)")
    ap.add_argument("--via", choices=sorted(DRIVERS), default="record",
                    help="record: `coreflow record LOG...` (a batch); play: `coreflow play "
                    "--store S < LOG` per game")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    ok = True
    with tempfile.TemporaryDirectory(prefix="coreflow-kill-") as tmp:
        work = Path(tmp)
        logs = simulate(work / "logs", args.logs, args.seed)
        stores: list[tuple[str, str | None]] = [] if args.postgres_only else [("sqlite", None)]
        if args.postgres and not args.sqlite_only:
            stores.append(("postgresql", args.postgres))
        for kind, url in stores:
            trials = trials_on(kind, url, work, logs, args, rng)
            ok = report(kind, trials, len(logs)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
