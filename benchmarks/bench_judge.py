"""The judge's speed against plain baselines, measured side by side in one run.

Prints, from one run on this machine (issue 26's table):

- the judge (read, validate, core flow, rules, report) against ``json.loads`` of the same
  lines: the judge's time over ``json.loads``'s (goal at most 3x);
- the judge against python-chess reading PGN (``chess.pgn.read_game``: every move parsed,
  checked legal and played on its board): events judged per second over moves replayed
  per second (goal at least 2x). The PGN is of random legal games python-chess plays here,
  seeded;
- both in memory (one process, the lines already in memory, best of ``--rounds``) and
  through the command line (``coreflow judge DIR`` against a ``python -c`` reading the
  same files with ``json.loads`` / python-chess, each less its own start: ``coreflow
  judge`` of a small log, ``python -c`` importing the same modules), in CPU time of the
  process (user + system: what a busy machine does not inflate) and wall time;
- start-up: ``coreflow --help`` and ``coreflow judge`` of a small log against a bare
  ``python -c pass`` (median wall time of ``--startup-runs`` interleaved rounds, the goals
  at most 8x and 10x; the CPU time's ratio beside it, which a busy machine does not
  inflate);
- with ``--record``: record events/s into the eventsourcing SQLite store against raw
  ``sqlite3`` inserts of the same rows (one transaction per match for both).

The games: ``--games`` simulated BlackPoker lite games, 9.0 and 6.1 in turn (300 games are
about 127,000 lines, the issue's workload). Needs the ``bench`` extra (python-chess):
``pip install -e '.[bench]'``.

Usage: ``python benchmarks/bench_judge.py [--games 300] [--seed 1] [--chess-games 300]
[--rounds 3] [--startup-runs 9] [--record]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_startup import SMALL_LOG, coreflow, run_env, wall  # noqa: E402

GOALS = {"chess": 2.0, "loads": 3.0, "help": 8.0, "small": 10.0}


def best_of(n: int, fn: Callable[[], object]) -> float:
    """The least CPU time of this process (user + system) of ``n`` runs of ``fn``: on a
    machine others share, wall time counts their work too."""
    times = []
    for _ in range(n):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


# ------------------------------------------------------------------------ the workloads


def simulated_logs(games: int, seed: int) -> list[list[str]]:
    """``games`` complete BlackPoker lite logs (9.0 and 6.1 in turn), each as its lines."""
    from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
    from coreflow_judge.events.reader import dump_line

    matches: list[list[str]] = []
    for i in range(games):
        edition = "9.0" if i % 2 == 0 else "6.1"
        text, prev = [], None
        for line in simulate_game(edition, seed + i):
            s, prev = dump_line(line, prev)
            text.append(s)
        matches.append(text)
    return matches


def random_pgn(games: int, seed: int, max_plies: int = 200) -> tuple[str, int]:
    """``games`` random legal games played by python-chess (seeded), as one PGN text, and
    the number of moves in it."""
    import chess
    import chess.pgn

    rng = random.Random(seed)
    out: list[str] = []
    plies = 0
    for i in range(games):
        board = chess.Board()
        while not board.is_game_over(claim_draw=False) and board.ply() < max_plies:
            board.push(rng.choice(list(board.legal_moves)))
        plies += board.ply()
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = f"random game {i}"
        out.append(str(game))
    return "\n\n".join(out) + "\n", plies


def replay_pgn(text: str) -> int:
    """Read every game of a PGN text with python-chess: each move parsed (SAN), checked
    legal and played on the game's board. Returns the moves read."""
    import chess.pgn

    handle = io.StringIO(text)
    moves = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        if game.errors:
            raise SystemExit(f"python-chess refused a move: {game.errors[0]}")
        moves += sum(1 for _ in game.mainline_moves())
    return moves


# ---------------------------------------------------------------- through the CLI

LOADS_CODE = """import json, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).glob('*.jsonl')):
    with path.open('rb') as fh:
        for raw in fh:
            json.loads(raw)
"""
LOADS_START = "import json, pathlib, sys"
CHESS_CODE = """import sys, chess.pgn
with open(sys.argv[1], encoding='utf-8') as fh:
    while (game := chess.pgn.read_game(fh)) is not None:
        assert not game.errors, game.errors
"""
CHESS_START = "import sys, chess.pgn"


def run_cost(cmd: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd``, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(list(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False, env=env)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} ...: exit {done.returncode}: "
                         f"{done.stderr.decode(errors='replace')[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, elapsed


def net_cost(work: Sequence[str], start: Sequence[str], env: dict[str, str],
             rounds: int) -> tuple[float, float]:
    """The cost of ``work`` less that of ``start`` (the same process doing no work), each
    the best of ``rounds`` runs, in CPU and wall seconds."""
    w = [run_cost(work, env) for _ in range(rounds)]
    s = [run_cost(start, env) for _ in range(rounds)]
    return (min(c for c, _ in w) - min(c for c, _ in s),
            min(e for _, e in w) - min(e for _, e in s))


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="simulated BlackPoker games")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chess-games", type=int, default=300, help="random chess games")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    ap.add_argument("--startup-runs", type=int, default=9)
    ap.add_argument("--record", action="store_true", help="also the recorder's speed")
    args = ap.parse_args()
    try:
        import chess  # noqa: F401
    except ImportError:
        raise SystemExit("python-chess is missing: pip install -e '.[bench]'") from None

    from coreflow_judge.adjudicator.judge import judge_lines
    from coreflow_judge.events.reader import iter_lines

    t0 = time.perf_counter()
    matches = simulated_logs(args.games, args.seed)
    events = sum(len(m) for m in matches)
    pgn, plies = random_pgn(args.chess_games, args.seed)
    print(f"workload: {args.games} simulated BlackPoker lite games, {events:,} lines; "
          f"{args.chess_games} random chess games, {plies:,} moves "
          f"(made in {time.perf_counter() - t0:.1f} s)")
    rows: list[tuple[str, str, str]] = []

    # In memory: the lines as bytes, as read from a file.
    data = [[s.encode("utf-8") for s in m] for m in matches]

    def loads_all() -> None:
        loads = json.loads
        for m in data:
            for raw in m:
                loads(raw)

    def judge_all() -> None:
        for m in data:
            judge_lines(iter_lines(m))

    assert replay_pgn(pgn) == plies
    t_loads = best_of(args.rounds, loads_all)
    t_judge = best_of(args.rounds, judge_all)
    t_chess = best_of(args.rounds, lambda: replay_pgn(pgn))
    judge_rate, chess_rate = events / t_judge, plies / t_chess
    print(f"\nin memory (best of {args.rounds}, CPU time):")
    print(f"  json.loads        {events / t_loads:12,.0f} lines/s")
    print(f"  judge             {judge_rate:12,.0f} events/s")
    print(f"  python-chess PGN  {chess_rate:12,.0f} moves/s (parsed, checked legal, played)")
    mem_chess, mem_loads = judge_rate / chess_rate, t_judge / t_loads
    print(f"  judge / python-chess: {mem_chess:.2f}x  ({verdict(mem_chess >= GOALS['chess'])}"
          f" >= {GOALS['chess']:.0f}x)")
    print(f"  judge / json.loads:   {mem_loads:.2f}x the time  "
          f"({verdict(mem_loads <= GOALS['loads'])} <= {GOALS['loads']:.0f}x)")

    exe = coreflow()
    with tempfile.TemporaryDirectory(prefix="coreflow-bench-") as tmp:
        folder = Path(tmp) / "logs"
        folder.mkdir()
        for i, m in enumerate(matches):
            (folder / f"{i:04d}.jsonl").write_text("\n".join(m) + "\n", encoding="utf-8")
        pgn_file = Path(tmp) / "games.pgn"
        pgn_file.write_text(pgn, encoding="utf-8")
        env = run_env(str(Path(tmp) / "pycache"))
        py = sys.executable
        small = [*exe, "judge", str(SMALL_LOG)]
        for cmd in (small, [*exe, "--help"], [py, "-c", CHESS_START]):
            wall(cmd, env)  # bytecode written, files cached
        judge_cpu, judge_wall = net_cost([*exe, "judge", str(folder)], small, env,
                                         args.rounds)
        loads_cpu, loads_wall = net_cost([py, "-c", LOADS_CODE, str(folder)],
                                         [py, "-c", LOADS_START], env, args.rounds)
        chess_cpu, chess_wall = net_cost([py, "-c", CHESS_CODE, str(pgn_file)],
                                         [py, "-c", CHESS_START], env, args.rounds)
        print(f"\nthrough the command line (best of {args.rounds}, start-up taken off; "
              "CPU time, wall time in brackets):")
        print(f"  coreflow judge DIR  {events / judge_cpu:10,.0f} events/s "
              f"({events / judge_wall:,.0f})")
        print(f"  python json.loads   {events / loads_cpu:10,.0f} lines/s "
              f"({events / loads_wall:,.0f})")
        print(f"  python-chess PGN    {plies / chess_cpu:10,.0f} moves/s "
              f"({plies / chess_wall:,.0f})")
        cli_chess = (events / judge_cpu) / (plies / chess_cpu)
        cli_chess_wall = (events / judge_wall) / (plies / chess_wall)
        cli_loads, cli_loads_wall = judge_cpu / loads_cpu, judge_wall / loads_wall
        print(f"  judge / python-chess: {cli_chess:.2f}x ({cli_chess_wall:.2f}x)  "
              f"({verdict(cli_chess >= GOALS['chess'])} >= {GOALS['chess']:.0f}x)")
        print(f"  judge / json.loads:   {cli_loads:.2f}x ({cli_loads_wall:.2f}x) the time  "
              f"({verdict(cli_loads <= GOALS['loads'])} <= {GOALS['loads']:.0f}x)")

        commands = {"python -c pass": [py, "-c", "pass"], "coreflow --help": [*exe, "--help"],
                    "coreflow judge LOG": small}
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.startup_runs):
            for name, cmd in commands.items():
                cpu, elapsed = run_cost(cmd, env)
                times[name].append(elapsed)
                cpus[name].append(cpu)
    bare = statistics.median(times["python -c pass"])
    bare_cpu = statistics.median(cpus["python -c pass"])
    help_x = statistics.median(times["coreflow --help"]) / bare
    small_x = statistics.median(times["coreflow judge LOG"]) / bare
    help_cpu = statistics.median(cpus["coreflow --help"]) / bare_cpu
    small_cpu = statistics.median(cpus["coreflow judge LOG"]) / bare_cpu
    print(f"\nstart-up (median of {args.startup_runs} interleaved runs, wall time and CPU "
          f"time; small log {SMALL_LOG.name}):")
    for name, samples in times.items():
        print(f"  {name:<20} {statistics.median(samples) * 1000:8.1f} ms  "
              f"{statistics.median(samples) / bare:5.1f}x   CPU "
              f"{statistics.median(cpus[name]) * 1000:6.1f} ms  "
              f"{statistics.median(cpus[name]) / bare_cpu:5.1f}x")
    rows = [
        ("judge throughput / python-chess PGN replay", f">= {GOALS['chess']:.0f}x",
         f"{cli_chess:.2f}x CLI ({cli_chess_wall:.2f}x wall), {mem_chess:.2f}x in memory"),
        ("judge cost / json.loads of the same lines", f"<= {GOALS['loads']:.0f}x",
         f"{cli_loads:.2f}x CLI ({cli_loads_wall:.2f}x wall), {mem_loads:.2f}x in memory"),
        ("judging a small log / python -c pass", f"<= {GOALS['small']:.0f}x",
         f"{small_x:.1f}x wall ({small_cpu:.1f}x CPU)"),
        ("coreflow --help / python -c pass", f"<= {GOALS['help']:.0f}x",
         f"{help_x:.1f}x wall ({help_cpu:.1f}x CPU)"),
    ]
    print("\n| figure | goal | this run |\n| --- | --- | --- |")
    for row in rows:
        print(f"| {' | '.join(row)} |")
    if args.record:
        record(matches)


def record(matches: list[list[str]]) -> None:
    """Record events/s into the eventsourcing SQLite store against raw sqlite3 inserts."""
    from coreflow_judge.events.models import LogLine
    from coreflow_judge.events.reader import LineError, iter_lines
    from coreflow_judge.events.store import open_recorder

    total = sum(len(m) for m in matches)
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
    print("\nrecord:")
    print(f"  raw sqlite3: {total / t_raw:12,.0f} events/s")
    print(f"  record     : {total / t_rec:12,.0f} events/s")
    print(f"  record     : {t_raw / t_rec:.2f} x raw sqlite3 inserts of the same rows")


if __name__ == "__main__":
    main()
