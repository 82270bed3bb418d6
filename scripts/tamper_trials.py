"""Tamper trials: change recorded matches the way someone with the database could, and
count what ``coreflow`` caught.

For each store kind (a fresh SQLite file, or a fresh PostgreSQL schema, per trial), each
attack of benchmarks/tamper.py (``ATTACKS``) and each of with / without the organiser's
key (``COREFLOW_SIGNING_KEY``), ``--trials`` trials: a log is recorded (the README's
disputed game, a sparse log, or one of a few simulated complete games, in turn), the
attack is carried out with SQL, and then

- ``verify MATCH`` (no receipt) and ``verify MATCH --head RECEIPT`` are asked, with the
  key when the trial has one: caught when the exit status is not 0;
- ``judge MATCH`` is asked: refused (exit 2, naming the match and the first bad seq),
  ruled with a warning that the record is unverified, or ruled as if nothing happened.

Prints one table row per store, attack and key, and exits 1 if any command said
"internal error". Usage::

    python scripts/tamper_trials.py --trials 16 [--postgres URL] [--seed 1]

PostgreSQL is tried when ``--postgres`` or ``$COREFLOW_TEST_POSTGRES`` gives a URL.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.tamper import ATTACKS, Outcome, trial  # noqa: E402
from benchmarks.tournament import (  # noqa: E402
    drop_postgres_schema,
    postgres_store,
    simulate,
    sqlite_store,
)

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
KEY = "tamper-trials-organiser-key"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--postgres", default=os.environ.get("COREFLOW_TEST_POSTGRES"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="coreflow-tamper-"))
    logs = [str(DISPUTED)] + [str(p) for p in simulate(work / "logs", 3, seed=args.seed)]
    kinds = ["sqlite"] + (["postgresql"] if args.postgres else [])
    defects = 0
    print(f"{'store':10} {'attack':42} {'key':4} {'trials':>6} {'verify':>7} {'receipt':>8} "
          f"{'refused':>8} {'warned':>7} {'ruled':>6}")
    for kind in kinds:
        n = 0
        for which in ATTACKS:
            for key in (None, KEY):
                outcomes: list[Outcome] = []
                for t in range(args.trials):
                    n += 1
                    if kind == "sqlite":
                        store = sqlite_store(work, f"trial-{n}.db")
                    else:
                        store = postgres_store(args.postgres, f"tamper_{uuid.uuid4().hex[:10]}")
                    try:
                        outcomes.append(trial(store, logs[t % len(logs)], which, key, rng,
                                              other=logs[(t + 1) % len(logs)]))
                    finally:
                        if kind == "postgresql":
                            drop_postgres_schema(store)
                        else:
                            for suffix in ("", "-wal", "-shm"):
                                Path(f"{store}{suffix}").unlink(missing_ok=True)
                bad = [o for o in outcomes if o.internal_error]
                defects += len(bad)
                for o in bad:
                    print("  internal error:", o.messages, file=sys.stderr)
                count = len(outcomes)
                refused = sum(o.judge_refused for o in outcomes)
                warned = sum(o.judge_warned for o in outcomes)
                print(f"{kind:10} {which.name:42} {'yes' if key else 'no':4} {count:6} "
                      f"{sum(o.verify for o in outcomes):7} "
                      f"{sum(o.receipt for o in outcomes):8} {refused:8} {warned:7} "
                      f"{count - refused - warned:6}", flush=True)
    return 1 if defects else 0


if __name__ == "__main__":
    raise SystemExit(main())
