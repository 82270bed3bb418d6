"""A tournament at once: tables driven as real ``coreflow`` processes into one store, and
the checks that nothing was lost, duplicated or reordered.

Shared by ``benchmarks/bench_tournament.py`` (16 tables at once, events/s),
``scripts/sigkill_trials.py`` (kill -9 at random moments) and tests/test_concurrency.py.

A *table* is a list of :class:`Invocation` run one after another (a per-table driver,
:func:`run_table`, takes the commands to run). Two drivers make them:

- ``record``: ``coreflow record LOG... --store S``, the table's logs in one batch;
- ``play``: ``coreflow play --store S`` with each log on standard input, one process per
  game: the line-by-line recorder another engineer is building (until ``coreflow play``
  exists, every invocation fails with "no such command").

The reference for every match is ``coreflow normalize FILE``; what the store kept is
``coreflow log MATCH`` (or, where many matches are checked in a test, the same
``export_jsonl`` that ``coreflow log`` prints, read in this process).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from coreflow_judge.adjudicator.simulate import write_games
from coreflow_judge.events.store import MatchNotFound, StoreUnavailable, open_recorder

#: How long one coreflow process may take before the harness gives up on it.
PROCESS_TIMEOUT_S = 600
#: What a reader says of a store the killed process had not yet set up.
NOT_SET_UP = ("no event store at", "a SQLite database without coreflow's table")


def coreflow_argv() -> list[str]:
    """The installed ``coreflow`` command (next to this Python), else ``python -m``."""
    here = Path(sys.executable).parent / "coreflow"
    if here.exists():
        return [str(here)]
    found = shutil.which("coreflow")
    return [found] if found else [sys.executable, "-m", "coreflow_judge.cli.main"]


# ----------------------------------------------------------------------- the games


def simulate(out_dir: Path, games: int, seed: int, rules: str = "9.0") -> list[Path]:
    """``games`` simulated complete logs (what ``coreflow simulate --rules 9.0`` writes)."""
    return write_games(rules, None, games, seed, out_dir)


def match_id_of(log: Path) -> str:
    """The match id in a log's first line."""
    with log.open(encoding="utf-8") as f:
        return str(json.loads(f.readline())["match_id"])


# ----------------------------------------------------------------------- the stores


def sqlite_store(directory: Path, name: str = "tournament.db") -> str:
    """A fresh SQLite store's path (the file is created by the first writer)."""
    path = directory / name
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return str(path)


def postgres_store(url: str, schema: str) -> str:
    """The PostgreSQL store ``url`` in its own (fresh, not yet created) schema."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "schema"] + [("schema", schema)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def drop_postgres_schema(store: str) -> None:
    """Drop the schema a :func:`postgres_store` URL names (nothing if it is not there)."""
    import psycopg

    parts = urlsplit(store)
    schema = dict(parse_qsl(parts.query))["schema"]
    plain = urlunsplit(parts._replace(query=""))
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("DROP SCHEMA IF EXISTS {0} CASCADE").format(
            psycopg.sql.Identifier(schema)))


# ---------------------------------------------------------------------- the drivers


@dataclass(frozen=True)
class Invocation:
    """One coreflow process: its arguments, and the file on its standard input."""

    argv: list[str]
    stdin: Path | None = None


def record_driver(store: str, logs: Sequence[Path]) -> list[Invocation]:
    """Today's driver: the table's logs recorded in one batch, ``coreflow record``."""
    return [Invocation([*coreflow_argv(), "record", *map(str, logs), "--store", store])]


def play_driver(store: str, logs: Sequence[Path]) -> list[Invocation]:
    """The line-by-line driver: ``coreflow play --store S < LOG``, one game after another."""
    return [Invocation([*coreflow_argv(), "play", "--store", store], stdin=log) for log in logs]


DRIVERS: dict[str, Callable[[str, Sequence[Path]], list[Invocation]]] = {
    "record": record_driver,
    "play": play_driver,
}


@dataclass
class TableRun:
    """What one table's processes did."""

    exit_codes: list[int] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _start(inv: Invocation) -> subprocess.Popen[str]:
    stdin = inv.stdin.open("rb") if inv.stdin is not None else None
    try:
        return subprocess.Popen(inv.argv, stdin=stdin if stdin else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        if stdin is not None:
            stdin.close()


def run_table(invocations: Sequence[Invocation]) -> TableRun:
    """The per-table driver: run the table's commands one after another."""
    run = TableRun()
    started = time.perf_counter()
    for inv in invocations:
        proc = _start(inv)
        _out, err = proc.communicate(timeout=PROCESS_TIMEOUT_S)
        run.exit_codes.append(proc.returncode)
        run.stderr.append(err)
    run.seconds = time.perf_counter() - started
    return run


def run_tables(tables: Sequence[Sequence[Invocation]]) -> tuple[list[TableRun], float]:
    """Every table at once (a thread per table, each driving its own processes); the runs
    and the wall-clock seconds from the first start to the last end."""
    runs = [TableRun() for _ in tables]
    go = threading.Barrier(len(tables) + 1)

    def table(i: int) -> None:
        go.wait()
        runs[i] = run_table(tables[i])

    threads = [threading.Thread(target=table, args=(i,)) for i in range(len(tables))]
    for t in threads:
        t.start()
    go.wait()
    started = time.perf_counter()
    for t in threads:
        t.join()
    return runs, time.perf_counter() - started


def run_killed(invocations: Sequence[Invocation], kill_at: float,
               answers: dict[Path, str] | None = None) -> bool:
    """Run the commands one after another and SIGKILL whichever runs ``kill_at`` seconds
    after the start; whether a process was killed (False: all had ended by then).
    ``answers`` gets what each process fed from a file printed on stdout before it ended
    or was killed (``play``'s answers)."""
    deadline = time.monotonic() + kill_at
    for inv in invocations:
        proc = _start(inv)
        try:
            out, _err = proc.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            out, _err = proc.communicate()
            if answers is not None and inv.stdin is not None:
                answers[inv.stdin] = out
            return True
        if answers is not None and inv.stdin is not None:
            answers[inv.stdin] = out
    return False


def last_answered(answers: str) -> int:
    """The highest seq ``play`` answered ``ok`` for (0: none): stored before the answer."""
    seqs = [int(m.group(1)) for m in re.finditer(r"^ok (\d+)", answers, flags=re.M)]
    return max(seqs, default=0)


# ----------------------------------------------------------------------- the checks


def cli(*args: str, stdin: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A coreflow command, run to its end."""
    with open(stdin or os.devnull, "rb") as f:
        return subprocess.run([*coreflow_argv(), *args], stdin=f, capture_output=True,
                              text=True, timeout=PROCESS_TIMEOUT_S)


def normalized(log: Path, _cache: dict[Path, str] = {}) -> str:  # noqa: B006 - a cache
    """``coreflow normalize LOG``: what the store must hold for the match, hashes included."""
    if log not in _cache:
        done = cli("normalize", str(log))
        if done.returncode != 0:
            raise RuntimeError(f"coreflow normalize {log}: {done.stderr.strip()}")
        _cache[log] = done.stdout
    return _cache[log]


def stored_via_cli(store: str, match_id: str) -> str | None:
    """``coreflow log MATCH``: the stored log, or None when the match is not recorded."""
    done = cli("log", match_id, "--store", store)
    if done.returncode == 0:
        return done.stdout
    if "is not recorded" in done.stderr or "no event store" in done.stderr:
        return None
    raise RuntimeError(f"coreflow log {match_id}: {done.stderr.strip()}")


def stored_in_process(store: str, match_ids: Sequence[str]) -> dict[str, str | None]:
    """What ``coreflow log`` prints for each match (None: not recorded), read here."""
    db = None if store.startswith("postgres") else Path(store)
    if db is not None and not db.exists():
        return dict.fromkeys(match_ids)
    out: dict[str, str | None] = {}
    try:
        recorder = open_recorder(store, read_only=True)
    except StoreUnavailable as exc:
        if any(m in str(exc) for m in NOT_SET_UP):  # killed while creating the store
            return dict.fromkeys(match_ids)
        raise
    with recorder:
        for match_id in match_ids:
            try:
                out[match_id] = recorder.export_jsonl(match_id)
            except MatchNotFound:
                out[match_id] = None
    return out


def recorded_ids(store: str) -> list[str]:
    """Every recorded match id (``match_started`` lines), in recording order."""
    with open_recorder(store, read_only=True) as recorder:
        return recorder.match_ids()


@dataclass
class MatchCheck:
    """One match: the store against ``coreflow normalize`` of its file, line by line."""

    match_id: str
    expected: int
    stored: int
    lost: int = 0
    duplicated: int = 0
    reordered: int = 0
    foreign: int = 0
    prefix: bool = False
    """The stored lines are the log's first lines, in order (a game cut short)."""

    @property
    def whole(self) -> bool:
        return self.stored == self.expected and not (self.lost or self.duplicated
                                                    or self.reordered or self.foreign)

    @property
    def absent(self) -> bool:
        return self.stored == 0


def compare(match_id: str, expected_text: str, stored_text: str | None) -> MatchCheck:
    """Count lost, duplicated, reordered and foreign lines (each line carries its chain
    hash, so no two lines of a log are equal)."""
    expected = expected_text.splitlines()
    stored = (stored_text or "").splitlines()
    check = MatchCheck(match_id, len(expected), len(stored))
    position = {line: i for i, line in enumerate(expected)}
    counts = Counter(stored)
    check.lost = sum(1 for line in expected if line not in counts)
    check.duplicated = sum(n - 1 for n in counts.values())
    check.foreign = sum(1 for line in stored if line not in position)
    # Reordered: common lines outside the longest run kept in the log's order.
    order = [position[line] for line in dict.fromkeys(stored) if line in position]
    tails: list[int] = []
    for p in order:
        i = bisect.bisect_left(tails, p)
        tails[i:i + 1] = [p]
    check.reordered = len(order) - len(tails)
    check.prefix = stored == expected[:len(stored)]
    return check


# ------------------------------------------------------------------ the kill trials

@dataclass
class Trial:
    """One kill -9 and what the store held afterwards."""

    killed: bool
    whole: int = 0
    absent: int = 0
    cut_short: int = 0
    """Matches that are a prefix of their log (whole up to their last accepted line)."""
    problems: list[str] = field(default_factory=list)


def kill_trial(driver: str, store: str, logs: Sequence[Path], kill_at: float,
               cli_logs: int = 1, resume: bool = True) -> Trial:
    """Drive the logs into ``store`` and SIGKILL the running process ``kill_at`` seconds
    in; then check that every match is whole or absent (``record``; ``play``: whole up to
    its last accepted line), that ``coreflow verify --all`` passes (the store opens), that
    ``coreflow log`` of ``cli_logs`` recorded matches prints what the store holds, and,
    with ``resume``, that recording the batch again completes every match."""
    answers: dict[Path, str] = {}
    trial = Trial(killed=run_killed(DRIVERS[driver](store, logs), kill_at, answers))
    ids = [match_id_of(log) for log in logs]
    stored = stored_in_process(store, ids)
    for log, text in answers.items():  # play: every line answered ok was stored first
        kept = stored.get(match_id_of(log))
        held = 0 if kept is None else len(kept.splitlines())
        if last_answered(text) > held:
            trial.problems.append(f"{match_id_of(log)}: play answered ok up to seq "
                                  f"{last_answered(text)}, the store holds {held} lines")
    verify = cli("verify", "--all", "--store", store)
    nothing = all(text is None for text in stored.values())
    if verify.returncode != 0 and not (nothing and any(m in verify.stderr for m in NOT_SET_UP)):
        trial.problems.append(f"coreflow verify --all exited {verify.returncode}: "
                              f"{(verify.stderr or verify.stdout).strip()[:300]}")
    for log, match_id in zip(logs, ids, strict=True):
        check = compare(match_id, normalized(log), stored[match_id])
        if check.whole:
            trial.whole += 1
        elif check.absent:
            trial.absent += 1
        elif check.prefix and driver == "play":
            trial.cut_short += 1
        else:
            trial.problems.append(f"{match_id}: {check.stored} of {check.expected} lines "
                                  f"stored (lost {check.lost}, duplicated {check.duplicated}, "
                                  f"reordered {check.reordered}, foreign {check.foreign})")
    present = [m for m in ids if stored[m] is not None]
    for match_id in present[:cli_logs]:
        if stored_via_cli(store, match_id) != stored[match_id]:
            trial.problems.append(f"coreflow log {match_id} differs from the stored log")
    if not nothing:
        extra = sorted(set(recorded_ids(store)) - set(ids))
        if extra:
            trial.problems.append(f"matches recorded that were never sent: {extra}")
    if resume and driver == "record":
        again = run_table(record_driver(store, logs))
        told = [ln for ln in again.stderr[0].splitlines()
                if "is already recorded in" in ln]
        if again.exit_codes[0] not in (0, 1) or any(
                "with the same content" not in ln for ln in told):
            trial.problems.append(f"recording the batch again exited {again.exit_codes[0]}: "
                                  f"{again.stderr[0].strip()[:300]}")
        after = stored_in_process(store, ids)
        for log, match_id in zip(logs, ids, strict=True):
            if not compare(match_id, normalized(log), after[match_id]).whole:
                trial.problems.append(f"{match_id}: not whole after recording the batch again")
    return trial
