"""Simulator throughput per game and regulation, and a fingerprint of the games it played.

Prints, for each regulation (BlackPoker 6.1 and 9.0 formats and 9.0 frames, Duel Masters,
i-language): the lines of complete log the simulator writes per CPU second (the best of
``--repeat`` runs of ``--games`` seeded games), and a short hash of those logs, so that a
change to the simulator shows both what it costs and whether the seeds still play the
same games. CPU time (``time.process_time``), not wall time: the machine is shared.

Usage: ``python benchmarks/bench_simulate.py [--games N] [--seed S] [--repeat R]``.
Never a timed test.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.adjudicator.simulate import dump_log, simulator_of  # noqa: E402

REGULATIONS: tuple[tuple[str, str, str, str | None], ...] = (
    *(("blackpoker", "6.1", f, None) for f in ("lite", "standard", "pro", "master", "extra")),
    *(("blackpoker", "9.0", f, None) for f in ("lite", "standard", "pro", "master")),
    ("blackpoker", "9.0", "lite", "entry16"), ("blackpoker", "9.0", "standard", "pack"),
    ("blackpoker", "9.0", "pro", "rare_pack"), ("blackpoker", "9.0", "master", "strategy"),
    ("blackpoker", "9.0", "master", "extra"),
    ("duel_masters", "1.47", "standard", None), ("i_language", "1", "standard", None),
)
"""(game, edition, format, frame) of every regulation measured."""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    total_lines = 0
    total_seconds = 0.0
    for game, edition, fmt, frame in REGULATIONS:
        simulate = simulator_of(game).simulate
        assert simulate is not None
        best = float("inf")
        digest = ""
        lines = 0
        for _ in range(args.repeat):
            h = hashlib.sha256()
            lines = 0
            t0 = time.process_time()
            for i in range(args.games):
                log = simulate(edition, fmt, args.seed + i, f"bench-{i}", frame)
                lines += len(log)
                h.update(dump_log(log).encode())
            best = min(best, time.process_time() - t0)
            digest = h.hexdigest()[:12]
        total_lines += lines
        total_seconds += best
        name = f"{game}/{edition} {fmt}" + (f"+{frame}" if frame else "")
        print(f"{name:<36} {args.games} games {lines:6d} lines {lines / best:8.0f} lines/s "
              f"{digest}", flush=True)
    print(f"{'all':<36} {total_lines:15d} lines {total_lines / total_seconds:8.0f} lines/s")


if __name__ == "__main__":
    main()
