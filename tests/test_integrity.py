"""A tamper-evident store: the chain the store kept, and the receipt of a record.

Every stored line keeps its chain hash, computed by the store when it took the line. An
edit of a stored row (a value, a swapped or deleted row) no longer matches that chain;
`verify` names the first bad line, and `judge`, `board` and the audit refuse to judge the
match. The head hash `record` prints is a receipt: a log cut short, or edited and chained
again, does not end with it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from coreflow_judge.cli.main import app
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def record(store: Path) -> tuple[str, str]:
    """Record the README's disputed game; its match id and the receipt's head hash."""
    code, out, err = cli("record", str(DISPUTED), "--store", str(store))
    assert code == 0, out + err
    match_id = out.strip()
    head = err.split("head hash ")[1].split()[0]
    return match_id, head


def exported_head(store: Path) -> str:
    """The head of the log the record exports, which record prints beside the receipt when
    the table numbered its lines otherwise than the record (the disputed game is sparse)."""
    _code, _out, err = cli("record", str(DISPUTED), "--store", str(store.with_suffix(".2.db")))
    return err.split(" ends with ")[1].split(",")[0]


def edit_rows(store: Path, old: str, new: str) -> int:
    """Change stored rows in place, as someone with the database file could."""
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT rowid, state FROM stored_events").fetchall()
        changed = 0
        for rowid, state in rows:
            text = bytes(state).decode("utf-8")
            if old in text:
                db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?",
                           (text.replace(old, new).encode("utf-8"), rowid))
                changed += 1
    return changed


def test_a_value_changed_in_the_database_file_is_found_and_refused(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    match_id, _head = record(store)
    code, out, _ = cli("verify", match_id, "--store", str(store))
    assert code == 0 and "intact" in out
    assert edit_rows(store, "bob:C3", "bob:C9") >= 1  # the counter's key card
    code, out, _ = cli("verify", match_id, "--store", str(store))
    assert code == 1 and "broken at seq" in out
    code, out, err = cli("judge", match_id, "--store", str(store))
    assert code == 2 and "refused" in err  # a changed record is no evidence
    code, out, err = cli("board", match_id, "--store", str(store))
    assert code == 2 and "refused" in err
    code, out, _ = cli("verify", "--all", "--store", str(store))
    assert code == 1 and "broken" in out
    # The export keeps the stored hashes: the file shows the break too.
    code, exported, _ = cli("log", match_id, "--store", str(store))
    assert code == 0
    (tmp_path / "export.jsonl").write_text(exported, encoding="utf-8")
    code, out, _ = cli("verify", str(tmp_path / "export.jsonl"))
    assert code == 1 and "broken" in out


def test_swapped_rows_are_found(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    match_id, _head = record(store)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT rowid, state FROM stored_events ORDER BY rowid").fetchall()
        (a, sa), (b, sb) = rows[4], rows[5]
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sb, a))
        db.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", (sa, b))
    code, out, _ = cli("verify", match_id, "--store", str(store))
    assert code == 1 and "broken at seq 5" in out


def test_deleted_last_rows_fail_the_receipt(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    match_id, head = record(store)
    with sqlite3.connect(store) as db:
        top = db.execute("SELECT MAX(originator_version) FROM stored_events").fetchone()[0]
        db.execute("DELETE FROM stored_events WHERE originator_version > ?", (top - 2,))
    code, out, _ = cli("verify", match_id, "--store", str(store))
    assert code == 0  # what is left is a consistent chain ...
    code, out, _ = cli("verify", match_id, "--store", str(store), "--head", head)
    assert code == 1 and "not the receipt's head" in out  # ... but not the one recorded


def test_a_log_cut_off_or_chained_again_fails_the_receipt(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    match_id, head = record(store)
    code, exported, _ = cli("log", match_id, "--store", str(store))
    whole = tmp_path / "whole.jsonl"
    whole.write_text(exported, encoding="utf-8")
    # The receipt covers the table's line numbers too, which a log file does not carry: a
    # file is checked against the exported log's head, which record prints beside it.
    log_head = exported_head(store)
    assert log_head != head and exported.rstrip().endswith(f'"hash":"{log_head}"}}')
    assert cli("verify", str(whole), "--head", log_head)[0] == 0
    assert cli("verify", match_id, "--store", str(store), "--head", log_head)[0] == 1
    head = log_head
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(exported.splitlines(keepends=True)[:-3]), encoding="utf-8")
    code, out, _ = cli("verify", str(cut))
    assert code == 0  # a prefix of a chain is a chain ...
    code, out, _ = cli("verify", str(cut), "--head", head)
    assert code == 1  # ... but it does not end with the receipt
    edited = tmp_path / "edited.jsonl"
    edited.write_text(exported.replace("bob:C3", "bob:C9"), encoding="utf-8")
    code, rechained, _ = cli("normalize", str(edited))
    assert code == 0
    again = tmp_path / "again.jsonl"
    again.write_text(rechained, encoding="utf-8")
    assert cli("verify", str(again))[0] == 0  # chained anew, it is a chain ...
    code, out, _ = cli("verify", str(again), "--head", head)
    assert code == 1 and "chained again" in out  # ... not the recorded one


def test_the_audit_does_not_judge_a_changed_record(tmp_path: Path) -> None:
    import duckdb
    from coreflow_judge.audit.projection import AuditDB

    store = tmp_path / "m.db"
    match_id, _head = record(store)
    edit_rows(store, "bob:C3", "bob:C9")
    stats = AuditDB(tmp_path / "audit.duckdb", str(store)).refresh()
    assert stats.unjudged == [match_id]
    with duckdb.connect(str(tmp_path / "audit.duckdb"), read_only=True) as con:
        row = con.execute("SELECT judge_error FROM matches").fetchone()
    assert row is not None and "broken at seq 11" in row[0] and "not judged" in row[0]
