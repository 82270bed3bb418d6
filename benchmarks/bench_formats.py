"""Judge throughput per BlackPoker format and 9.0 frame, measured in one run, against lite.

Prints, from one run on this machine, for each edition: the judge's events/s on simulated
lite games and on simulated master games (standard and pro too), and each format's cost
per event relative to lite; for 9.0, each frame with a format it recommends too. The
master format adds continuous abilities (Force, the magician's waiver) that every size and
cost reading computes from scratch; the target is at most 1.5x lite's cost per event.

Usage: ``python benchmarks/bench_formats.py [--games N] [--seed S]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game  # noqa: E402
from coreflow_judge.adjudicator.judge import judge_lines  # noqa: E402
from coreflow_judge.events.reader import dump_line, iter_lines  # noqa: E402

FORMATS = ("lite", "standard", "pro", "master", "extra")
#: 9.0 regulations: a frame with a format it recommends.
FRAMES = (("entry16", "lite"), ("pack", "standard"), ("rare_pack", "pro"),
          ("strategy", "master"), ("extra", "master"))


def best_of(n: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for edition in ("6.1", "9.0"):
        per_event: dict[str, float] = {}
        regulations: list[tuple[str, str | None]] = [(f, None) for f in FORMATS
                                                     if f != "extra" or edition == "6.1"]
        if edition == "9.0":  # 9.0 has no extra format (エクストラ is a frame)
            regulations += [(fmt, frame) for frame, fmt in FRAMES]
        for fmt, frame in regulations:
            matches: list[list[str]] = []
            for i in range(args.games):
                text, prev = [], None
                for line in simulate_game(edition, args.seed + i, fmt, frame=frame):
                    s, prev = dump_line(line, prev)
                    text.append(s)
                matches.append(text)
            events = sum(len(m) for m in matches)

            def judge_all(matches: list[list[str]] = matches) -> None:
                for m in matches:
                    judge_lines(iter_lines(m))

            seconds = best_of(3, judge_all)
            name = fmt if frame is None else f"{fmt}+{frame}"
            per_event[name] = seconds / events
            print(f"{edition} {name:<16} {args.games} games, {events:6d} events: "
                  f"{events / seconds:9.0f} events/s, "
                  f"{per_event[name] / per_event['lite']:.2f}x lite per event")

if __name__ == "__main__":
    main()
