"""Stores that are ours (issue 12, part 5): another program's database is refused and left
unchanged, a store in memory is refused for recording, a read-only store can be read, a name
that is both a file and a recorded match is never taken silently, and recording a different
log under a recorded match id says that the content differs.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from tests.test_bad_input import DISPUTED, installed_coreflow, invoke, one_line

COMMANDS = [("record", str(DISPUTED)), ("log", "demo-1"), ("board", "demo-1"),
            ("judge", "demo-1"), ("audit", "SELECT 1")]


def _other_program(path: Path) -> bytes:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO invoices (total) VALUES (12.5)")
    con.commit()
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("args", COMMANDS, ids=[a[0] for a in COMMANDS])
def test_another_programs_database_is_refused_unchanged(tmp_path: Path,
                                                        args: tuple[str, str]) -> None:
    store = tmp_path / "books.db"
    before = _other_program(store)
    r = invoke(*args, "--store", store)
    assert r.exit_code == 2
    message = one_line(r.stderr)
    assert message.endswith(
        f"cannot use {store} as the event store: a SQLite database of another program "
        "(tables: customers, invoices), not a coreflow event store; it was not changed"), message
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["books.db"]


def test_another_applications_events_are_refused(tmp_path: Path) -> None:
    """A stored_events table of eventsourcing's shape, holding another application's events."""
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    con = sqlite3.connect(store)
    con.execute("INSERT INTO stored_events VALUES ('x', 1, 'bank.domain:Opened', x'7b7d')")
    con.commit()
    con.close()
    before = store.read_bytes()
    r = invoke("record", DISPUTED, "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: cannot use {store} as the event store: the event store of another "
        "program: its stored_events hold events that are not match lines (topic "
        "'bank.domain:Opened'); it was not changed")
    assert store.read_bytes() == before


@pytest.mark.parametrize("memory", [":memory:", "file:x?mode=memory"])
def test_a_store_in_memory_is_refused_for_recording(memory: str) -> None:
    r = invoke("record", DISPUTED, "--store", memory)
    assert r.exit_code == 2 and r.stdout == ""
    assert one_line(r.stderr) == (
        f"coreflow: --store {memory}: a store in memory keeps nothing once the command ends; "
        "name a SQLite file or a postgresql:// URL (nothing was recorded)")


def _without_write_access(tmp: Path) -> list[str] | None:
    """A prefix that runs a command without the right to write what its mode forbids: none
    for an ordinary user; for root, setpriv dropping the capabilities that bypass file
    modes. None when neither works here (the probe: sh runs, and cannot write into a
    directory of mode 555)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    locked = tmp / "probe"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        probe = subprocess.run([*prefix, "sh", "-c", f"echo ran; touch {locked}/x"],
                               capture_output=True, text=True)
    finally:
        locked.chmod(0o755)
    works = probe.stdout.strip() == "ran" and probe.returncode != 0
    return prefix if works else None


def test_a_read_only_store_can_be_read(tmp_path: Path) -> None:
    prefix = _without_write_access(tmp_path)
    if prefix is None:
        pytest.skip("cannot run a command without write access here")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    store = shelf / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    before = store.read_bytes()
    store.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    shelf.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    audit = tmp_path / "audit.duckdb"
    try:
        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*prefix, installed_coreflow(), *args, "--store", str(store)],
                                  capture_output=True, text=True, timeout=120,
                                  stdin=subprocess.DEVNULL)

        log = run("log", "demo-1")
        assert log.returncode == 0, log.stderr
        assert len(log.stdout.splitlines()) == 20
        assert run("board", "demo-1").returncode == 0
        judged = run("judge", "demo-1", "--format", "json")
        assert judged.returncode == 1, judged.stderr  # the disputed counter
        assert json.loads(judged.stdout)["match_id"] == "demo-1"
        audited = run("audit", "SELECT count(*) AS n FROM matches", "--audit", str(audit),
                      "--format", "csv")
        assert audited.returncode == 0, audited.stderr
        assert audited.stdout.splitlines() == ["n", "1"]
        refused = run("record", str(DISPUTED))
        assert refused.returncode in (1, 2) and "Traceback" not in refused.stderr
    finally:
        shelf.chmod(0o755)
        store.chmod(0o644)
    assert store.read_bytes() == before
    assert sorted(p.name for p in shelf.iterdir()) == ["s.db"]


def test_a_name_that_is_a_file_and_a_recorded_match(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COREFLOW_STORE", raising=False)
    assert invoke("record", DISPUTED).exit_code == 0  # ./coreflow.db, match demo-1
    shutil.copy(DISPUTED, tmp_path / "demo-1")  # the sparse log; the match is recorded too
    # Which was taken shows in the report's source: "log" for the file, "store" for the
    # recorded match (both count the table's 12 lines: the record keeps their numbers).
    r = invoke("judge", "demo-1", "--format", "json")
    assert json.loads(r.stdout)["log"] == "demo-1"
    assert one_line(r.stderr) == (
        "coreflow: note: 'demo-1' is both a file here and a match recorded in ./coreflow.db; "
        "judging the file (--store ./coreflow.db demo-1 names the recorded match)")
    r = invoke("judge", "demo-1", "--store", "./coreflow.db", "--format", "json")
    assert json.loads(r.stdout)["store"] == "./coreflow.db"
    assert one_line(r.stderr) == (
        "coreflow: note: 'demo-1' is both a file here and a match recorded in ./coreflow.db; "
        "judging the recorded match (./demo-1 names the file)")
    r = invoke("judge", "./demo-1", "--store", "./coreflow.db", "--format", "json")
    assert json.loads(r.stdout)["log"] == "demo-1" and r.stderr == ""
    r = invoke("board", "demo-1", "--format", "json")
    assert json.loads(r.stdout)["log"] == "demo-1"
    assert "showing the file" in one_line(r.stderr)
    r = invoke("board", "demo-1", "--store", "./coreflow.db", "--format", "json")
    assert json.loads(r.stdout)["store"] == "./coreflow.db"
    assert "showing the recorded match" in one_line(r.stderr)
    r = invoke("board", "./demo-1", "--store", "./coreflow.db", "--format", "json")
    assert json.loads(r.stdout)["log"] == "demo-1" and r.stderr == ""


def test_recording_a_different_log_under_a_recorded_id(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    before = invoke("log", "demo-1", "--store", store).stdout
    changed = tmp_path / "changed.jsonl"
    changed.write_text(DISPUTED.read_text(encoding="utf-8").replace("bob:C3", "bob:C9"),
                       encoding="utf-8")
    r = invoke("record", changed, "--store", store)
    assert r.exit_code == 1 and r.stdout == ""
    first = next(i for i, (a, b) in enumerate(zip(before.splitlines(), invoke(
        "normalize", changed).stdout.splitlines(), strict=True), start=1) if a != b)
    assert one_line(r.stderr) == (
        f"coreflow: {changed}: match 'demo-1' is already recorded in {store} with different "
        f"content (the complete logs differ first at seq {first}); nothing was written "
        f"(coreflow log demo-1 --store {store} prints the recorded log)")
    assert invoke("log", "demo-1", "--store", store).stdout == before
