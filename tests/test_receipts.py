"""Receipts that say what is true (issue 24, item 4), each test doing what the user did,
through the real ``coreflow`` process, on SQLite and PostgreSQL (``COREFLOW_TEST_POSTGRES``).

- The receipt ``record`` and ``play`` print is a command that works as printed: it names
  the store that was used (shell-quoted; a PostgreSQL URL without its password, and a
  word on how to give it).
- A receipt taken at a break of ``play`` still checks after ``play --resume``: the match
  "continues past the receipt's head" (exit 0); a cut or an edit before the receipt's head
  fails (exit 1); both for the record in the store and for an exported log file.
- ``record`` of many logs says one summary line, keeps the receipts in ``--receipts FILE``,
  and ``verify --receipts FILE`` checks them all at once.
"""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.tamper import RawStore, chain_again, value_edit
from benchmarks.tournament import (
    coreflow_argv,
    drop_postgres_schema,
    postgres_store,
    simulate,
)
from tests.stores import POSTGRES_URL, STORES, fresh_store

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
HEAD = re.compile(r"head hash ([0-9a-f]{64})")


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a new SQLite file (in a folder whose name needs quoting in a shell),
    or a new PostgreSQL schema."""
    folder = tmp_path / "the tournament's store"
    folder.mkdir()
    with fresh_store(request.param, folder, "receipts", "spring 25.db") as url:
        yield url


def environment(**extra: str) -> dict[str, str]:
    """The environment of a command: this one, without a store or key of its own, and
    with the installed ``coreflow`` on the PATH (the printed commands name it bare)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("COREFLOW_STORE", "COREFLOW_SIGNING_KEY", "PGPASSWORD")}
    env["PATH"] = f"{Path(coreflow_argv()[0]).parent}{os.pathsep}{env.get('PATH', '')}"
    return env | extra


def run(*args: str | Path, cwd: Path, stdin: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*coreflow_argv(), *map(str, args)], input=stdin, text=True,
                          capture_output=True, timeout=300, cwd=cwd,
                          env=env or environment(),
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    return done


def shell(command: str, cwd: Path, env: dict[str, str] | None = None
          ) -> subprocess.CompletedProcess[str]:
    """A printed command, pasted into a shell as it is."""
    done = subprocess.run(["sh", "-c", command], text=True, capture_output=True,
                          timeout=300, cwd=cwd, env=env or environment())
    assert "Traceback" not in done.stderr
    return done


def printed_commands(receipt: str) -> list[str]:
    """The commands a receipt line prints, in parentheses."""
    return re.findall(r"\((coreflow [^()]*)\)", receipt)


def recorded_lines(receipt: str) -> int:
    """How many lines a receipt line says the record holds."""
    found = re.search(r"recorded (\d+) lines", receipt)
    assert found is not None, receipt
    return int(found.group(1))


def in_store_arg(store: str) -> str:
    """The store as the printed commands name it (no password; quoted for the shell)."""
    return shlex.quote(store)


# ------------------------------------------------------- a receipt that works as printed


def test_the_receipt_record_prints_runs_as_printed(store: str, tmp_path: Path) -> None:
    """The user records the disputed game in a store of their own, then pastes the
    receipt's commands into a shell: each one passes."""
    recorded = run("record", DISPUTED, "--store", store, cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    receipt = recorded.stderr.strip()
    assert len(receipt.splitlines()) == 1
    assert f"--store {in_store_arg(store)}" in receipt
    check, export = printed_commands(receipt)
    head = HEAD.search(receipt)
    assert head is not None and check == (
        f"coreflow verify demo-1 --store {in_store_arg(store)} --head {head.group(1)}")
    done = shell(check, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the record ends with the receipt's head hash (seq 20;" in done.stdout
    # The table numbered its lines sparsely: the exported log's head is printed too, with
    # the commands that export the log and check the file against it.
    done = shell(export, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "demo-1.jsonl").exists()
    assert "the log ends with the receipt's head hash" in done.stdout


def test_the_store_from_the_environment_is_named_in_the_receipt(tmp_path: Path) -> None:
    """$COREFLOW_STORE at the table, not in the shell the receipt is checked from later."""
    recorded = run("record", DISPUTED, cwd=tmp_path,
                   env=environment(COREFLOW_STORE="from env.db"))
    assert recorded.returncode == 0, recorded.stderr
    check = printed_commands(recorded.stderr)[0]
    assert "--store 'from env.db'" in check
    done = shell(check, tmp_path)  # the variable is not set here
    assert done.returncode == 0 and "ends with the receipt's head hash" in done.stdout
    # The default store needs no option.
    recorded = run("record", DISPUTED, cwd=tmp_path)
    assert recorded.returncode == 0
    check = printed_commands(recorded.stderr)[0]
    assert "--store" not in check and shell(check, tmp_path).returncode == 0


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_a_postgresql_password_is_never_printed(tmp_path: Path) -> None:
    """The store URL carries a password: the receipt names the store without it and says
    how to give it; the command, run with the password in $PGPASSWORD, passes. (The test
    server trusts local connections, so any password is accepted.)"""
    from urllib.parse import urlsplit, urlunsplit

    assert POSTGRES_URL
    schema = f"coreflow_receipts_{uuid.uuid4().hex[:10]}"
    plain = postgres_store(POSTGRES_URL, schema)
    parts = urlsplit(plain)
    user = parts.username or "postgres"
    secret = "s3cret-pw-1234"
    with_password = urlunsplit(parts._replace(
        netloc=f"{user}:{secret}@{parts.netloc.rpartition('@')[2]}"))
    try:
        recorded = run("record", DISPUTED, "--store", with_password, cwd=tmp_path)
        assert recorded.returncode == 0, recorded.stderr
        assert secret not in recorded.stderr + recorded.stdout
        assert "password is not printed: give it in $PGPASSWORD or ~/.pgpass" in recorded.stderr
        check = printed_commands(recorded.stderr)[0]
        assert f"--store {shlex.quote(plain)}" in check
        done = shell(check, tmp_path, environment(PGPASSWORD=secret))
        assert done.returncode == 0, done.stdout + done.stderr
        assert secret not in done.stdout + done.stderr
    finally:
        drop_postgres_schema(plain)


def test_a_password_left_out_of_a_printed_store() -> None:
    from coreflow_judge.events.store import without_password

    assert without_password("m.db") == ("m.db", False)
    assert without_password("postgresql://u:p%40w@h:5432/db?schema=s") == (
        "postgresql://u@h:5432/db?schema=s", True)
    assert without_password("postgresql://u@h/db?password=x&schema=s") == (
        "postgresql://u@h/db?schema=s", True)
    assert without_password("postgresql://u@[::1]:5432/db") == (
        "postgresql://u@[::1]:5432/db", False)


def test_pgpassword_is_the_password_of_a_url_without_one(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """libpq reads $PGPASSWORD only when it is given no password; the pool gave it an empty
    one, so a store URL without a password never used $PGPASSWORD (found checking the
    receipt's advice against a server that asks for a password)."""
    from coreflow_judge.events.store import store_env

    monkeypatch.setenv("PGPASSWORD", "from-env")
    assert store_env("postgresql://u@h/db")["POSTGRES_PASSWORD"] == "from-env"
    assert store_env("postgresql://u:inurl@h/db")["POSTGRES_PASSWORD"] == "inurl"


# ------------------------------------------------------------- a receipt taken at a break


def test_a_receipt_taken_at_a_break_still_checks_after_resume(store: str,
                                                              tmp_path: Path) -> None:
    """The table plays the disputed game in two sittings. The receipt of the first still
    checks after the second ("continues past"), and so does its exported log; a record cut
    back fails the last receipt only, an edit before the break fails both."""
    lines = DISPUTED.read_text(encoding="utf-8").splitlines(keepends=True)
    first = run("play", "--store", store, "--keep-mistakes", cwd=tmp_path,
                stdin="".join(lines[:7]))
    assert first.returncode == 0, first.stderr
    at_break = first.stderr.strip()
    assert "a break: coreflow play --resume demo-1 --store" in at_break
    check_break = printed_commands(at_break)[0]
    break_head = HEAD.search(at_break)
    assert break_head is not None
    kept = recorded_lines(at_break)
    exported_at_break = run("log", "demo-1", "--store", store, cwd=tmp_path).stdout

    resume = re.search(r"a break: (coreflow play --resume [^;]*) goes on", at_break)
    assert resume is not None
    second = subprocess.run(["sh", "-c", f"{resume.group(1)} --keep-mistakes"], text=True,
                            input="".join(lines[7:]), capture_output=True, timeout=300,
                            cwd=tmp_path, env=environment())
    assert second.returncode == 0, second.stderr
    check_end = printed_commands(second.stderr)[0]
    total = recorded_lines(second.stderr)
    assert total > kept

    done = shell(check_break, tmp_path)
    assert done.returncode == 0, done.stdout
    added = total - kept
    assert (f"demo-1: the match continues past the receipt's head (seq {kept}; {added} lines "
            "added since, which this receipt does not cover)") in done.stdout
    assert "cut off" not in done.stdout and "chained again" not in done.stdout
    done = shell(check_end, tmp_path)
    assert done.returncode == 0 and "ends with the receipt's head hash" in done.stdout

    # The exported log of the break, and of the whole match, against the break's receipt.
    (tmp_path / "break.jsonl").write_text(exported_at_break, encoding="utf-8")
    whole = run("log", "demo-1", "--store", store, cwd=tmp_path).stdout
    (tmp_path / "whole.jsonl").write_text(whole, encoding="utf-8")
    done = run("verify", "whole.jsonl", "--head", break_head.group(1), cwd=tmp_path)
    assert done.returncode == 0 and (
        f"whole.jsonl: the log continues past the receipt's head (seq {kept}; {added} lines "
        "added since") in done.stdout
    done = run("verify", "break.jsonl", "--head", break_head.group(1), cwd=tmp_path)
    assert done.returncode == 0 and "the log ends with the receipt's head hash" in done.stdout
    cut_file = tmp_path / "cut.jsonl"
    cut_file.write_text("".join(whole.splitlines(keepends=True)[:kept - 2]), encoding="utf-8")
    done = run("verify", cut_file.name, "--head", break_head.group(1), cwd=tmp_path)
    assert done.returncode == 1 and "never had the receipt's head hash" in done.stdout

    # A cut after the break: the last receipt fails; the break's receipt covers less.
    raw = RawStore(store)
    rows = raw.rows("demo-1")
    raw.delete(rows[-3:])
    done = shell(check_end, tmp_path)
    assert done.returncode == 1 and (
        "the record never had the receipt's head hash" in done.stdout
        and f"at seq {total - 3}" in done.stdout and "cut off" in done.stdout)
    done = shell(check_break, tmp_path)
    assert done.returncode == 0 and f"(seq {kept}; {added - 3} lines added" in done.stdout

    # An edit before the break, every chain computed again: both receipts fail.
    rows = raw.rows("demo-1")
    changed = value_edit(rows[:kept], random.Random(3))
    chain_again(rows)
    raw.write(rows)
    assert changed and changed[0].version <= kept
    assert run("verify", "demo-1", "--store", store, cwd=tmp_path).returncode == 0
    done = shell(check_break, tmp_path)
    assert done.returncode == 1 and "never had the receipt's head hash" in done.stdout
    assert "changed and chained again" in done.stdout


# ---------------------------------------------------------------- a tournament at once


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of logs: five simulated games and the disputed one (sparse)."""
    folder = tmp_path_factory.mktemp("batch")
    simulate(folder, 5, seed=11)
    (folder / "disputed.jsonl").write_text(DISPUTED.read_text(encoding="utf-8"),
                                           encoding="utf-8")
    return folder


def test_a_batch_keeps_its_receipts_in_a_file_and_verifies_them_at_once(
        store: str, batch: Path, tmp_path: Path) -> None:
    logs = sorted(batch.glob("*.jsonl"))
    recorded = run("record", batch, "--store", store, "--receipts", "receipts.tsv",
                   cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    ids = recorded.stdout.split()
    assert len(ids) == len(logs)
    summary = recorded.stderr.strip()
    assert len(summary.splitlines()) == 1  # one summary line, not a receipt per match
    assert summary.startswith(f"coreflow: recorded {len(logs)} matches (")
    assert "receipts in receipts.tsv (coreflow verify --receipts receipts.tsv --store" in summary
    rows = (tmp_path / "receipts.tsv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "match_id\thead\tlines\tlog_head"
    table = [r.split("\t") for r in rows[1:]]
    assert [r[0] for r in table] == ids and all(len(r) == 4 for r in table)
    sparse = {r[0] for r in table if r[1] != r[3]}
    assert sparse == {"demo-1"}  # only the table that numbered its lines sparsely

    check = re.search(r"\((coreflow verify --receipts [^()]*)\)", summary)
    assert check is not None
    done = shell(check.group(1), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"receipts.tsv: {len(logs)} receipts: {len(logs)} end with their record's head, 0 "
        "continue past it (lines added since), 0 fail")

    # The batch again (a run that was interrupted, say): nothing written twice.
    again = run("record", batch, "--store", store, "--receipts", "receipts.tsv",
                cwd=tmp_path)
    assert again.returncode == 0
    assert f"recorded 0 matches (0 lines), {len(logs)} already recorded with the same " \
           "content" in again.stderr and len(again.stderr.splitlines()) == 1
    assert (tmp_path / "receipts.tsv").read_text(encoding="utf-8").splitlines() == rows

    # Three matches changed: one cut short, one deleted, one whose receipt row was edited.
    raw = RawStore(store)
    cut = raw.rows(ids[0])
    raw.delete(cut[-2:])
    raw.delete(raw.rows(ids[1]))
    edited = rows[:]
    fields = edited[3].split("\t")
    edited[3] = "\t".join([fields[0], fields[1], str(int(fields[2]) + 1), fields[3]])
    (tmp_path / "edited.tsv").write_text("\n".join(edited) + "\n", encoding="utf-8")
    done = run("verify", "--receipts", "edited.tsv", "--store", store, cwd=tmp_path)
    assert done.returncode == 1
    out = done.stdout
    assert f"{ids[0]}: the record never had the receipt's head hash" in out
    assert f"{ids[1]}: not recorded in" in out and "is missing" in out
    assert f"{ids[2]}: the receipt on line 4 says" in out and "receipts file was changed" in out
    assert out.splitlines()[-1].startswith(
        f"edited.tsv: {len(logs)} receipts: {len(logs) - 3} end with their record's head, "
        f"0 continue past it (lines added since), 3 fail ({ids[0]}, {ids[1]}, {ids[2]})")


def test_a_batch_without_a_receipts_file_still_prints_every_receipt(
        batch: Path, tmp_path: Path) -> None:
    recorded = run("record", batch, "--store", "t.db", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    said = recorded.stderr.splitlines()
    ids = recorded.stdout.split()
    assert len(said) == len(ids) + 1  # nothing is lost: one receipt each, then the summary
    assert all(HEAD.search(line) and "--store t.db" in line for line in said[:-1])
    total = sum(recorded_lines(line) for line in said[:-1])
    assert said[-1] == (f"coreflow: recorded {len(ids)} matches ({total:,} lines); "
                        "--receipts FILE keeps the receipts in one file instead of here")


def test_a_receipts_file_that_does_not_read_is_named(tmp_path: Path) -> None:
    run("record", DISPUTED, "--store", "t.db", cwd=tmp_path)
    (tmp_path / "bad.tsv").write_text("match_id\thead\tlines\tlog_head\ndemo-1\tnothex\t3\n",
                                      encoding="utf-8")
    done = run("verify", "--receipts", "bad.tsv", "--store", "t.db", cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.tsv, line 2: head 'nothex' is not a sha256 hash" in done.stderr
    done = run("verify", "--receipts", "missing.tsv", "--store", "t.db", cwd=tmp_path)
    assert done.returncode == 2 and "missing.tsv" in done.stderr
    done = run("verify", "demo-1", "--receipts", "bad.tsv", "--store", "t.db", cwd=tmp_path)
    assert done.returncode == 2 and "give no LOG" in done.stderr


def test_the_receipt_printed_by_a_single_record_with_a_receipts_file(tmp_path: Path) -> None:
    recorded = run("record", DISPUTED, "--store", "t.db", "--receipts", "r/one.tsv",
                   cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stderr.startswith("coreflow: recorded 1 match (20 lines); receipts in "
                                      "r/one.tsv")
    rows = (tmp_path / "r" / "one.tsv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2 and rows[1].startswith("demo-1\t")


def test_no_receipt_is_written_for_a_changed_record_recorded_again(tmp_path: Path) -> None:
    """A batch recorded again after someone stripped a stored hash: the log's content is
    the same, but the record is no evidence, so no receipt row vouches for it."""
    store = str(tmp_path / "t.db")
    assert run("record", DISPUTED, "--store", store, cwd=tmp_path).returncode == 0
    raw = RawStore(store)
    rows = raw.rows("demo-1")
    del rows[4].state["line"]["hash"]
    raw.write([rows[4]])
    again = run("record", DISPUTED, "--store", store, "--receipts", "r.tsv", cwd=tmp_path)
    assert again.returncode == 1
    assert "with the same content, but match 'demo-1': stored record broken at seq 5" in \
        again.stderr and "no receipt is written for it" in again.stderr
    assert (tmp_path / "r.tsv").read_text(encoding="utf-8") == "match_id\thead\tlines\tlog_head\n"
