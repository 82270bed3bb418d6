"""What every reader of a log costs as the log grows, whatever it says (issue 23, item 3).

The crafted logs of tests/crafted.py (by default the probe's: the disputed game's first
three lines, a ``chance_moved`` to alice, then N End requests by bob, who holds no chance)
are read at several sizes through the real command line, each command in a process of
its own: ``judge --format json``, ``normalize``, ``board``, ``record`` (into a fresh
SQLite store) and the audit's refresh of that store (``audit``, which rebuilds its tables
from the store before the query). For each it prints the CPU seconds (the process and
the processes it waited for) and the bytes written (the report, or the audit file), then
the growth from one size to the next divided by the growth of the log: 1.0 is linear,
and what grows faster than the log shows as more than 1.

Usage: ``python benchmarks/bench_linear.py [--family ends] [--sizes 300,1000,3000,10000]
[--commands judge,normalize,board,record,audit] [--coreflow PATH]``; ``--family repeat:5``
reads the disputed game with its line at position 5 repeated N times instead. A benchmark, never a
timed test (tests/test_linear.py counts what the readers do instead).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.crafted import DISPUTED, FAMILIES, repeated  # noqa: E402

COMMANDS = ("judge", "normalize", "board", "record", "audit")


def run(argv: list[str], out: Path) -> tuple[float, int]:
    """Run ``argv`` with its output in ``out``: the CPU seconds it and the processes it
    waited for took, and the most memory one of them held (bytes, resident)."""
    with out.open("wb") as fh:
        proc = subprocess.Popen(argv, stdout=fh, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1: the judge found errors
        raise SystemExit(f"{' '.join(argv)}: exit {proc.returncode}: "
                         f"{err.decode(errors='replace')[-500:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def measure(coreflow: str, family: str, n: int, commands: tuple[str, ...],
            work: Path) -> dict[str, tuple[float, int, int]]:
    """(CPU seconds, bytes written, memory) of each command on the family's log of size
    ``n``."""
    log = work / f"{family.replace(':', '-')}-{n}.jsonl"
    if family.startswith("repeat:"):  # the disputed game, one of its lines repeated
        at = int(family.split(":")[1])
        lines = repeated(DISPUTED.read_text(encoding="utf-8").splitlines(), at, n)
    else:
        lines = FAMILIES[family](n)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = work / "out"
    store = work / f"s{n}.db"
    result: dict[str, tuple[float, int, int]] = {"(log)": (0.0, log.stat().st_size, 0)}
    for command in commands:
        if command == "judge":
            argv = [coreflow, "judge", "--format", "json", str(log)]
        elif command in ("normalize", "board"):
            argv = [coreflow, command, str(log)]
        elif command == "record":
            argv = [coreflow, "record", str(log), "--store", str(store)]
        else:
            if not store.exists():
                run([coreflow, "record", str(log), "--store", str(store)], out)
            argv = [coreflow, "audit", "SELECT count(*) FROM findings", "--store", str(store),
                    "--audit", str(work / f"a{n}.duckdb"), "--timeout", "0"]
        cpu, memory = run(argv, out)
        written = (work / f"a{n}.duckdb").stat().st_size if command == "audit" \
            else out.stat().st_size
        result[command] = (cpu, written, memory)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="ends",
                    help=f"one of {', '.join(sorted(FAMILIES))} (tests/crafted.py), or "
                    "repeat:AT: the disputed game with its line at position AT (0 the "
                    "header) repeated N times")
    ap.add_argument("--sizes", default="300,1000,3000,10000")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--coreflow", default=shutil.which("coreflow") or
                    str(Path(sys.executable).with_name("coreflow")))
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    commands = tuple(x for x in args.commands.split(",") if x)
    with tempfile.TemporaryDirectory() as tmp:
        figures = {n: measure(args.coreflow, args.family, n, commands, Path(tmp))
                   for n in sizes}
    print(f"family {args.family}; coreflow {args.coreflow}; {os.cpu_count()} cores; "
          "per command: CPU seconds, bytes written (the audit: its file), peak memory MB")
    print(f"{'N':>7} {'log bytes':>10}" + "".join(f" | {c:>24}" for c in commands))
    for n in sizes:
        row = figures[n]
        print(f"{n:>7} {row['(log)'][1]:>10}" + "".join(
            f" | {row[c][0]:7.2f} {row[c][1]:>10} {row[c][2] / 2**20:5.0f}"
            for c in commands))
    print("growth against the log's (1.0 = linear; CPU figures under ~0.5 s are mostly "
          "start-up):")
    for a, b in zip(sizes, sizes[1:], strict=False):
        grown = figures[b]["(log)"][1] / figures[a]["(log)"][1]
        cells = []
        for c in commands:
            (ta, ba, _ma), (tb, bb, _mb) = figures[a][c], figures[b][c]
            cells.append(f"{c} cpu {tb / max(ta, 1e-9) / grown:.2f} "
                         f"bytes {bb / max(ba, 1) / grown:.2f}")
        print(f"  {a} -> {b} (log x{grown:.1f}): " + "; ".join(cells))
    print("report bytes per log byte at the largest size: " + ", ".join(
        f"{c} {figures[sizes[-1]][c][1] / figures[sizes[-1]]['(log)'][1]:.1f}"
        for c in commands))


if __name__ == "__main__":
    main()
