"""A tournament at once (issue 10, item 2): many real ``coreflow`` processes writing into one
store, on SQLite and on PostgreSQL (the same tests; PostgreSQL ones skipped without
``COREFLOW_TEST_POSTGRES``). Every store is fresh: a new SQLite file, or a new schema.

The harness (drivers, the line-by-line comparison, the kill trials) is
benchmarks/tournament.py; ``scripts/sigkill_trials.py`` runs the kill trials 50 times.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from coreflow_judge.events.store import open_recorder, parse_jsonl

from benchmarks.tournament import (
    DRIVERS,
    Trial,
    compare,
    coreflow_argv,
    drop_postgres_schema,
    kill_trial,
    match_id_of,
    postgres_store,
    record_driver,
    recorded_ids,
    run_table,
    simulate,
    sqlite_store,
    stored_in_process,
    stored_via_cli,
)
from tests.stores import STORES, fresh_store


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store, not yet created: the first writers set it up."""
    with fresh_store(request.param, tmp_path, "conc") as url:
        yield url


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return simulate(tmp_path_factory.mktemp("logs"), 24, seed=3)


def start_record(store: str, *logs: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*coreflow_argv(), "record", *map(str, logs), "--store", store],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    out = []
    for proc in procs:
        _stdout, stderr = proc.communicate(timeout=600)
        out.append((proc.returncode, stderr))
    return out


def test_many_first_writers_at_once_then_more_every_match_recorded_once(
        store: str, logs: list[Path]) -> None:
    first, second = logs[:12], logs[12:18]
    # 12 processes at once into a store nobody has created yet, then 6 into the set-up one.
    for wave in (first, second):
        results = finish([start_record(store, log) for log in wave])
        assert [(code, err) for code, err in results if code != 0] == []
        assert all(err.count("\n") == 1 and "recorded" in err for _code, err in results)
    ids = [match_id_of(log) for log in first + second]
    recorded = recorded_ids(store)
    assert sorted(recorded) == sorted(ids)  # none lost, none twice
    stored = stored_in_process(store, ids)
    for log, match_id in zip(first + second, ids, strict=True):
        check = compare(match_id, log.read_text(encoding="utf-8"), stored[match_id])
        assert check.whole, check
    for match_id in (ids[0], ids[-1]):  # and the command itself prints the same
        assert stored_via_cli(store, match_id) == stored[match_id]


def test_the_same_match_from_two_processes_one_wins_the_other_is_told(
        store: str, logs: list[Path]) -> None:
    a, b = logs[18], logs[19]
    results = finish([start_record(store, a), start_record(store, b),
                      start_record(store, a), start_record(store, b)])
    for log, pair in ((a, [results[0], results[2]]), (b, [results[1], results[3]])):
        # Both succeed (the same log: the second finds it recorded, nothing to write).
        assert [code for code, _err in pair] == [0, 0]
        [loser] = [err for _code, err in pair if "already recorded" in err]
        assert loser.count("\n") == 1 and "Traceback" not in loser
        assert f"match {match_id_of(log)!r} is already recorded" in loser
        assert "with the same content; nothing to write" in loser
    ids = [match_id_of(a), match_id_of(b)]
    assert sorted(recorded_ids(store)) == sorted(ids)
    stored = stored_in_process(store, ids)
    for log, match_id in zip((a, b), ids, strict=True):
        assert compare(match_id, log.read_text(encoding="utf-8"), stored[match_id]).whole


APPENDER = r"""
import sys, time
from pathlib import Path
from coreflow_judge.events.store import RecordConflict, open_recorder, parse_jsonl
store, log, match_id, upto, ready, go = sys.argv[1:]
lines = parse_jsonl(Path(log).read_text(encoding="utf-8"))
with open_recorder(store) as recorder:
    record = recorder.load(match_id)
    record.extend(lines[record.version:int(upto)])
    Path(ready).touch()
    while not Path(go).exists():
        time.sleep(0.01)
    try:
        print("won", recorder.commit(record))
    except RecordConflict as exc:
        print("lost", exc)
"""


def test_two_processes_appending_to_one_match_one_wins_the_loser_writes_nothing(
        store: str, logs: list[Path], tmp_path: Path) -> None:
    log = logs[20]
    match_id = match_id_of(log)
    text = log.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    head = tmp_path / "head.jsonl"
    head.write_text("".join(lines[:10]), encoding="utf-8")
    assert run_table(record_driver(store, [head])).exit_codes == [0]
    go = tmp_path / "go"
    procs = []
    for name, upto in (("a", 14), ("b", 17)):  # both load seq 10, then append at once
        procs.append(subprocess.Popen(
            [sys.executable, "-c", APPENDER, store, str(log), match_id, str(upto),
             str(tmp_path / f"ready-{name}"), str(go)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True))
    deadline = time.monotonic() + 300
    while not all((tmp_path / f"ready-{n}").exists() for n in "ab"):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.05)
    go.touch()
    outs = [p.communicate(timeout=300) for p in procs]
    assert [err for _out, err in outs] == ["", ""]
    said = [out.split()[0] for out, _err in outs]
    assert sorted(said) == ["lost", "won"]
    winner_upto = 14 if said[0] == "won" else 17
    loser = outs[said.index("lost")][0]
    assert "another writer recorded lines at the same seq first; nothing was written" in loser
    stored = stored_in_process(store, [match_id])[match_id]
    assert stored == "".join(lines[:winner_upto])  # the winner's lines, none of the loser's
    # The loser reloads and re-enters what it had: the match goes on whole.
    with open_recorder(store) as recorder:
        assert recorder.append(match_id, parse_jsonl(text)[winner_upto:]) == len(lines)
    assert compare(match_id, text, stored_in_process(store, [match_id])[match_id]).whole


def _kill_trials(driver: str, store: str, batch: list[Path], trials: int, seed: int,
                 earliest: float) -> list[Trial]:
    """``trials`` kills of ``driver`` on ``batch``, each on a fresh store of the kind of
    ``store`` (the first on ``store`` itself), at a random moment from ``earliest`` (a
    fraction of an uninterrupted run, measured first) to its end."""
    rng = random.Random(seed)
    started = time.perf_counter()
    span_store = sqlite_store(Path(batch[0]).parent, f"{driver}-span.db")
    assert set(run_table(DRIVERS[driver](span_store, batch)).exit_codes) == {0}
    span = time.perf_counter() - started
    out = []
    for n in range(trials):
        where = store if n == 0 else (
            postgres_store(store, f"{_schema(store)}_{driver}{n}")
            if store.startswith("postgres")
            else sqlite_store(Path(store).parent, f"{driver}-trial-{n}.db"))
        try:
            out.append(kill_trial(driver, where, batch, rng.uniform(earliest * span, span),
                                  cli_logs=1))
        finally:
            if where != store and where.startswith("postgres"):
                drop_postgres_schema(where)
    assert [t.problems for t in out] == [[]] * trials
    assert any(t.killed for t in out)
    return out


def _schema(url: str) -> str:
    return url.rpartition("schema=")[2]


def test_sigkill_of_a_batch_record_leaves_each_match_whole_or_absent(
        store: str, logs: list[Path]) -> None:
    trials = _kill_trials("record", store, logs[:4], trials=5, seed=11, earliest=0.0)
    assert all(t.whole + t.absent == 4 for t in trials)


def test_sigkill_of_play_leaves_each_match_whole_up_to_its_last_accepted_line(
        store: str, logs: list[Path]) -> None:
    """``coreflow play --store S < LOG`` killed at random moments: every match is whole,
    absent, or whole up to a line it accepted; every line play answered ``ok`` for is in
    the store (kill_trial checks the answers printed before the kill), and the store
    opens."""
    trials = _kill_trials("play", store, logs[:2], trials=4, seed=12, earliest=0.2)
    assert all(t.whole + t.absent + t.cut_short == 2 for t in trials)
