"""Judge and record throughput, measured in one run against plain baselines.

Prints, from one run on this machine:
- judge events/s (parse + validate + core flow + rules) and its cost relative to plain
  ``json.loads`` of the same lines, in memory and from the same files;
- record events/s into the eventsourcing SQLite store against raw ``sqlite3`` inserts
  of the same rows (one transaction per match for both).

Usage: ``python benchmarks/bench_judge.py [--games N] [--seed S]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game  # noqa: E402
from coreflow_judge.adjudicator.judge import judge_file, judge_lines  # noqa: E402
from coreflow_judge.events.models import LogLine  # noqa: E402
from coreflow_judge.events.reader import LineError, dump_line, iter_lines  # noqa: E402
from coreflow_judge.events.store import open_recorder  # noqa: E402


def best_of(n: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    t0 = time.perf_counter()
    matches: list[list[str]] = []
    for i in range(args.games):
        edition = "6.1" if i % 2 else "9.0"
        lines = simulate_game(edition, args.seed + i)
        text, prev = [], None
        for line in lines:
            s, prev = dump_line(line, prev)
            text.append(s)
        matches.append(text)
    sim_s = time.perf_counter() - t0
    total = sum(len(m) for m in matches)
    print(f"simulated {args.games} games, {total} events in {sim_s:.2f} s")

    def loads_all() -> None:
        for m in matches:
            for s in m:
                json.loads(s)

    def judge_all() -> None:
        for m in matches:
            judge_lines(iter_lines(m))

    t_loads = best_of(5, loads_all)
    t_judge = best_of(5, judge_all)
    print("in memory (str lines):")
    print(f"  json.loads : {total / t_loads:12,.0f} events/s")
    print(f"  judge      : {total / t_judge:12,.0f} events/s")
    print(f"  judge cost : {t_judge / t_loads:.2f} x json.loads of the same lines")

    # The same logs as files, as a judge receives them: each read in binary, line by line,
    # by json.loads on one side and by the judge (judge_file: read, validate, judge) on the
    # other.
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, m in enumerate(matches):
            path = Path(tmp) / f"{i}.jsonl"
            path.write_text("\n".join(m) + "\n", encoding="utf-8")
            files.append(path)

        def loads_files() -> None:
            for path in files:
                with path.open("rb") as fh:
                    for raw in fh:
                        json.loads(raw)

        def judge_files() -> None:
            for path in files:
                judge_file(path)

        f_loads = best_of(5, loads_files)
        f_judge = best_of(5, judge_files)
    print("from files (bytes):")
    print(f"  json.loads : {total / f_loads:12,.0f} events/s")
    print(f"  judge      : {total / f_judge:12,.0f} events/s")
    print(f"  judge cost : {f_judge / f_loads:.2f} x json.loads of the same file")

    parsed: list[list[LogLine]] = [
        [line for _, line in iter_lines(m) if not isinstance(line, LineError)] for m in matches
    ]
    with tempfile.TemporaryDirectory() as tmp:
        raw = sqlite3.connect(str(Path(tmp) / "raw.db"))
        raw.execute("create table lines (match text, seq integer, type text, body text,"
                    " primary key (match, seq))")

        t0 = time.perf_counter()
        for m, logged in zip(matches, parsed, strict=True):
            rows = [(f"m{id(m)}", line.seq, line.type, s)
                    for line, s in zip(logged, m, strict=True)]
            with raw:
                raw.executemany("insert into lines values (?, ?, ?, ?)", rows)
        t_raw = time.perf_counter() - t0
        raw.close()

        recorder = open_recorder(str(Path(tmp) / "store.db"))
        t0 = time.perf_counter()
        for logged in parsed:
            recorder.record(logged)
        t_rec = time.perf_counter() - t0
    print("record:")
    print(f"  raw sqlite3: {total / t_raw:12,.0f} events/s")
    print(f"  record     : {total / t_rec:12,.0f} events/s")
    print(f"  record     : {t_raw / t_rec:.2f} x raw sqlite3 inserts of the same rows")


if __name__ == "__main__":
    main()
