"""Where a judged line's time goes: per line, the share of reading the JSON, validating it,
the core flow, the game's rules, the judge's driver (replays, repairs) and the report.

Judges ``--games`` simulated BlackPoker lite logs (9.0 and 6.1 in turn) through the
``coreflow judge`` command run in this process, text report included, under cProfile; each
function's own time is charged to where its code lives (a builtin's to the functions that
called it). Reading and validating the lines is timed apart, without the profiler (one
call of pydantic-core per line, which the profiler slows far less than Python code), with
``json.loads`` of the same lines beside it; the rest of the run's time without the
profiler is shared as the profile shares it. Prints each part's share and microseconds
per line.

Usage: ``python benchmarks/profile_judge.py [--games 60] [--seed 1]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_judge import simulated_logs  # noqa: E402


def where(filename: str, name: str) -> str | None:
    """The part of the judge a function belongs to (None: a builtin, charged to callers)."""
    path = filename.replace("\\", "/")
    if "validate_json" in name or "/pydantic" in path or "/events/" in path:
        return "read and validate"
    if "/adjudicator/games/" in path:
        return "rules (adjudicator/games)"
    if path.endswith("/adjudicator/judge.py"):
        return "judge driver (replays, repairs)"
    if "/adjudicator/" in path:
        return "core flow (flow, ledger, findings)"
    if any(part in path for part in ("/cli/", "/typer/", "/click/", "/projections/")):
        return "report and command"
    if filename == "~" or filename.startswith("<"):
        return None
    return "other (standard library)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from coreflow_judge.cli.main import app
    from coreflow_judge.events.reader import iter_lines

    matches = simulated_logs(args.games, args.seed)
    lines = sum(len(m) for m in matches)
    with tempfile.TemporaryDirectory(prefix="coreflow-profile-") as tmp:
        files = []
        for i, m in enumerate(matches):
            path = Path(tmp) / f"{i:04d}.jsonl"
            path.write_text("\n".join(m) + "\n", encoding="utf-8")
            files.append(str(path))

        def judge() -> None:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
                app(["judge", *files], standalone_mode=False)

        judge()  # editions loaded, caches warm
        t0 = time.process_time()
        judge()
        plain = time.process_time() - t0
        profile = cProfile.Profile()
        profile.enable()
        judge()
        profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    shares: dict[str, float] = {}
    for (filename, _line, name), (_cc, _nc, own, _cum, callers) in stats.items():
        part = where(filename, name)
        if part is not None:
            shares[part] = shares.get(part, 0.0) + own
            continue
        spent = sum(c[2] for c in callers.values()) or 1.0
        for (cf, _cl, cn), c in callers.items():
            into = where(cf, cn) or "other (standard library)"
            shares[into] = shares.get(into, 0.0) + own * c[2] / spent

    data = [[s.encode("utf-8") for s in m] for m in matches]

    def best(fn: object) -> float:
        times = []
        for _ in range(5):
            t = time.process_time()
            fn()  # type: ignore[operator]
            times.append(time.process_time() - t)
        return min(times)

    t_loads = best(lambda: [json.loads(raw) for m in data for raw in m])
    t_read = best(lambda: [list(iter_lines(m)) for m in data])
    per_line = plain / lines * 1e6
    read_us = t_read / lines * 1e6
    print(f"{args.games} simulated lite games, {lines:,} lines: coreflow judge (in this "
          f"process, text report) {per_line:.1f} us of CPU time per line, "
          f"{lines / plain:,.0f} lines/s")
    print(f"  {'read and validate (pydantic-core)':<40} {100 * read_us / per_line:5.1f} %  "
          f"{read_us:5.1f} us   (json.loads alone: {t_loads / lines * 1e6:.1f} us)")
    # The rest, shared as the profile shares it (the profiler slows Python code more than
    # the validator's one call per line, so the reading is timed apart, above).
    shares.pop("read and validate", None)
    rest = sum(shares.values())
    for part, own in sorted(shares.items(), key=lambda x: -x[1]):
        us = (per_line - read_us) * own / rest
        print(f"  {part:<40} {100 * us / per_line:5.1f} %  {us:5.1f} us")

if __name__ == "__main__":
    main()
