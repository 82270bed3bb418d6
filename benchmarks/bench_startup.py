"""Start-up of the ``coreflow`` command against a bare interpreter start, in one run.

Runs, round after round so that the machine's load falls on all three alike:
- ``python -c pass`` (the bare start of this environment's interpreter);
- ``coreflow --help``;
- ``coreflow judge LOG`` on one small log (default: the 12-line disputed counter).

Prints each median wall time, its ratio to the bare start and whether it is within its
target (issue 10: ``--help`` at most 8x, judging one small log at most 10x), then the
modules that weigh most in each command's start (``-X importtime``, cumulative).

Every run may use compiled bytecode, as an installed package does: the commands run
without ``PYTHONDONTWRITEBYTECODE``, their bytecode cached under a temporary
``PYTHONPYCACHEPREFIX`` (the source tree is left as it is), warmed by a first run.

Usage: ``python benchmarks/bench_startup.py [--runs N] [--log PATH]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL_LOG = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
TARGETS = {"coreflow --help": 8.0, "coreflow judge LOG": 10.0}


def coreflow() -> list[str]:
    """The installed console script beside this interpreter, else the same entry point."""
    script = Path(sys.executable).parent / "coreflow"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c",
            "import sys; sys.argv[0] = 'coreflow'; "
            "from coreflow_judge.cli.main import app; app()"]


def run_env(cache: str) -> dict[str, str]:
    """The environment of every run: bytecode written and read, under ``cache``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": cache}


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - t0


def heaviest(args: list[str], env: dict[str, str], n: int = 6) -> list[tuple[float, str]]:
    """The top-level imports that cost most (milliseconds, cumulative) in one start."""
    code = ("import sys; sys.argv = ['coreflow'] + sys.argv[1:]; "
            "from coreflow_judge.cli.main import app; app()")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *args],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False, env=env)
    top = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if m and not m.group(2).startswith(" "):
            top.append((int(m.group(1)) / 1000, m.group(2)))
    return sorted(top, reverse=True)[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command")
    parser.add_argument("--log", type=Path, default=SMALL_LOG, help="the small log to judge")
    args = parser.parse_args()
    exe = coreflow()
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "coreflow --help": [*exe, "--help"],
        "coreflow judge LOG": [*exe, "judge", str(args.log)],
    }
    with tempfile.TemporaryDirectory(prefix="coreflow-bench-pycache-") as cache:
        env = run_env(cache)
        for cmd in commands.values():  # write the bytecode, warm the file cache
            wall(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(wall(cmd, env))
        heavy = {label: heaviest(argv, env)
                 for label, argv in (("--help", ["--help"]),
                                     ("judge", ["judge", str(args.log)]))}
    bare = statistics.median(times["python -c pass"])
    print(f"start-up, median of {args.runs} runs each, interleaved "
          f"({' '.join(exe) if len(exe) == 1 else 'python -c <entry point>'}; "
          f"log {args.log.name})")
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / bare
        target = TARGETS.get(name)
        verdict = "" if target is None else (
            f"  target <= {target:.0f}x: {'within' if ratio <= target else 'OVER'}")
        print(f"  {name:<20} {median * 1000:8.1f} ms  {ratio:5.1f}x{verdict}")
    for label, top in heavy.items():
        text = ", ".join(f"{mod} {ms:.0f} ms" for ms, mod in top)
        print(f"  heaviest imports of {label}: {text}")


if __name__ == "__main__":
    main()
