"""Evidence that cannot be bent: each test does what an attacker with the database did
(issue 23, items 1, 2, 6 and 11), with SQL on a real store, SQLite and PostgreSQL
(``COREFLOW_TEST_POSTGRES``), and checks what ``coreflow`` says afterwards.

- Item 1: a stored row's table number (``table_seq``, which judge, board and fixture new
  rule on) is covered by the record chain and by the receipt.
- Item 2: a store written by this version says so in its own format record; a row of it
  without a hash is tampering, not history.
- Item 6: rows swapped in the store are a refusal naming the match and the first bad seq,
  never an "internal error".
- Item 11: with ``COREFLOW_SIGNING_KEY``, a record or a log chained again without the key
  fails ``verify`` even without a receipt.

What no check can catch is asserted too, so that the README's list of what each
guarantee does not cover stays true.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from coreflow_judge.events.evidence import sign
from coreflow_judge.events.reader import SIGNATURE_KEY

from benchmarks.tamper import (
    RawStore,
    chain_again,
    cli,
    record_for_trial,
    strip_everything,
    strip_hashes,
    value_edit,
)
from benchmarks.tournament import drop_postgres_schema, postgres_store, simulate
from tests.stores import STORES, fresh_store

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = str(ROOT / "fixtures" / "examples" / "disputed-counter.jsonl")
KEY = "the organiser's key"


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store: a new SQLite file, or a new PostgreSQL schema."""
    with fresh_store(request.param, tmp_path, "evidence", "evidence.db") as url:
        yield url


@pytest.fixture(scope="module")
def complete_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A simulated complete game (every table number is the line's own seq)."""
    return str(simulate(tmp_path_factory.mktemp("games"), 1, seed=5)[0])


def run(*args: str, key: str | None = None) -> tuple[int, str]:
    return cli(list(args), key)


def refused(code: int, out: str, match_id: str, seq: int) -> bool:
    """The command refused the record, naming the match and the first bad seq."""
    return (code == 2 and "refused" in out and f"match {match_id!r}" in out
            and f"broken at seq {seq}" in out and "internal error" not in out)


def audit_error(store: str, tmp_path: Path, match_id: str, key: str | None = None) -> str | None:
    """The audit's judge_error of a match after a refresh (None: judged)."""
    import duckdb
    from coreflow_judge.audit.projection import AuditDB

    path = tmp_path / f"audit-{uuid.uuid4().hex[:6]}.duckdb"
    previous = os.environ.pop("COREFLOW_SIGNING_KEY", None)
    if key is not None:
        os.environ["COREFLOW_SIGNING_KEY"] = key
    try:
        AuditDB(path, store).refresh()
    finally:
        os.environ.pop("COREFLOW_SIGNING_KEY", None)
        if previous is not None:
            os.environ["COREFLOW_SIGNING_KEY"] = previous
    with duckdb.connect(str(path), read_only=True) as con:
        row = con.execute("SELECT judge_error FROM matches WHERE match_id = ?",
                          [match_id]).fetchone()
    assert row is not None
    return row[0]


# ------------------------------------------------------------ item 1: table numbers


def test_table_numbers_removed_from_two_rows_are_caught(store: str, tmp_path: Path) -> None:
    """The probe's attack: one UPDATE removes the table number of two rows of the disputed
    game (its set-up request and the summon), so that judge would leave them out as
    derived lines and rule 0 errors where the game has 1."""
    match_id, receipt = record_for_trial(store, DISPUTED, None)
    code, out = run("judge", match_id, "--store", store)
    assert code == 1 and "1 error" in out
    raw = RawStore(store)
    rows = [r for r in raw.rows(match_id) if r.state.get("table_seq") in (4, 6)]
    assert [r.version for r in rows] == [5, 7]
    for row in rows:
        del row.state["table_seq"]
    raw.write(rows)

    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "broken at seq 5" in out and "table_seq" in out
    code, out = run("verify", match_id, "--store", store, "--head", receipt)
    assert code == 1
    for command in ("judge", "board"):
        code, out = run(command, match_id, "--store", store)
        assert refused(code, out, match_id, 5), out
    code, out = run("fixture", "new", match_id, "--store", store, "--name", "x",
                    "--dir", str(tmp_path / "fx"))
    assert refused(code, out, match_id, 5), out
    assert not (tmp_path / "fx").exists()
    error = audit_error(store, tmp_path, match_id)
    assert error is not None and "broken at seq 5" in error and "not judged" in error


def test_table_numbers_chained_again_fail_the_receipt_and_the_key(store: str) -> None:
    """Computing the chains again after changing the numbers passes the stored chain (no
    check can tell without something kept apart), but not the receipt, nor the key."""
    for key in (None, KEY):
        if store.startswith("postgresql"):
            schema_store = postgres_store(store, f"coreflow_evidence_{uuid.uuid4().hex[:10]}")
        else:
            schema_store = f"{store}.{key is not None}.db"
        try:
            match_id, receipt = record_for_trial(schema_store, DISPUTED, key)
            raw = RawStore(schema_store)
            rows = raw.rows(match_id)
            for row in rows:
                if row.state.get("table_seq") in (4, 6):
                    del row.state["table_seq"]
            chain_again(rows)
            raw.write(rows)
            code, out = run("verify", match_id, "--store", schema_store, key=key)
            if key is None:
                assert code == 0 and "intact" in out  # what the receipt is for ...
                code, out = run("verify", match_id, "--store", schema_store, "--head",
                                receipt)
                assert code == 1 and "never had the receipt's head" in out  # ... caught
            else:
                assert code == 1 and "NOT signed" in out  # the key needs no receipt
                code, out = run("judge", match_id, "--store", schema_store, key=key)
                assert code == 2 and "refused" in out and "NOT signed" in out
        finally:
            if store.startswith("postgresql"):
                drop_postgres_schema(schema_store)


def test_a_complete_log_keeps_one_receipt_for_record_and_file(store: str, complete_log: str,
                                                              tmp_path: Path) -> None:
    """Where every table number is the line's own (a complete log), the record chain is
    the log chain: the receipt is the exported log's head too, and removing a number
    (making a line "derived") is still caught."""
    match_id, receipt = record_for_trial(store, complete_log, None)
    code, exported = run("log", match_id, "--store", store)
    assert code == 0 and exported.rstrip().endswith(f'"hash":"{receipt}"}}')
    raw = RawStore(store)
    rows = raw.rows(match_id)
    assert all("record_hash" not in r.state for r in rows)
    del rows[3].state["table_seq"]
    raw.write([rows[3]])
    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "broken at seq 4" in out


# ------------------------------------------------------------ item 2: hashes stripped


def test_hashes_stripped_after_an_edit_are_tampering(store: str, tmp_path: Path) -> None:
    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    raw = RawStore(store)
    rows = raw.rows(match_id)
    raw.write(strip_hashes(rows, random.Random(2)))
    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "broken at seq 1" in out and "no stored hash" in out
    code, out = run("verify", "--all", "--store", store)
    assert code == 1 and "no stored hash" in out
    for command in ("judge", "board"):
        code, out = run(command, match_id, "--store", store)
        assert refused(code, out, match_id, 1), out
    error = audit_error(store, tmp_path, match_id)
    assert error is not None and "no stored hash" in error


def test_a_removed_format_record_holds_every_match_to_the_format(store: str,
                                                                complete_log: str) -> None:
    """Removing the store's format record too, and the format marks of the edited match:
    the other matches' rows still carry theirs, so the store lost its record, and every
    match is held to the format (a later write does not bring the record back)."""
    record_for_trial(store, complete_log, None)
    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    raw = RawStore(store)
    raw.write(strip_everything(raw.rows(match_id), random.Random(3)))
    raw.drop_meta()
    for _ in range(2):
        code, out = run("verify", match_id, "--store", store)
        assert code == 1 and "broken at seq 1" in out
        code, out = run("verify", "--all", "--store", store)
        assert code == 1 and "format record (coreflow_meta) is missing" in out
        code, out = run("judge", match_id, "--store", store)
        assert refused(code, out, match_id, 1), out
        # A write by this version neither brings the record back nor clears the match.
        code, out = run("record", DISPUTED, "--store", store)
        assert code == 1 and "already recorded" in out


def test_everything_removed_from_a_store_of_one_match(store: str) -> None:
    """The limit without key or receipt: with every hash, mark and the format record gone
    from a store of one match, it reads as a store of an older coreflow. It is still no
    evidence: verify fails (it cannot be verified), judge rules only with a warning, and
    with the key set it is refused."""
    match_id, receipt = record_for_trial(store, DISPUTED, KEY)
    raw = RawStore(store)
    raw.write(strip_everything(raw.rows(match_id), random.Random(4)))
    raw.drop_meta()
    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "cannot be verified" in out
    code, out = run("verify", match_id, "--store", store, "--head", receipt)
    assert code == 1
    code, out = run("judge", match_id, "--store", store)
    assert "warning" in out and "unverified" in out
    code, out = run("judge", match_id, "--store", store, key=KEY)
    assert code == 2 and "refused" in out and "NOT signed" in out


# ------------------------------------------------------------ item 6: rows swapped


def test_swapped_rows_name_the_match_and_the_first_bad_seq(store: str, tmp_path: Path) -> None:
    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    raw = RawStore(store)
    rows = raw.rows(match_id)
    rows[4].state, rows[5].state = rows[5].state, rows[4].state
    raw.write(rows[4:6])
    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "broken at seq 5" in out and "rows swapped" in out
    for command in ("judge", "board"):
        code, out = run(command, match_id, "--store", store)
        assert refused(code, out, match_id, 5), out
    # Judging several matches: the swapped one is named, the others are judged.
    code, out = run("judge", match_id, DISPUTED, "--store", store)
    assert code == 2 and "internal error" not in out and "1 error" in out
    for args in (("log", match_id), ("matches",), ("verify", "--all")):
        code, out = run(*args, "--store", store)
        assert "internal error" not in out and "Traceback" not in out, out
        assert match_id in out and (code != 0 or "changed outside coreflow" in out), out
    error = audit_error(store, tmp_path, match_id)
    assert error is not None and "broken at seq 5" in error


# ------------------------------------------------------------ item 11: the key


def test_the_key_catches_a_record_chained_again_without_it(store: str) -> None:
    match_id, receipt = record_for_trial(store, DISPUTED, KEY)
    code, out = run("verify", match_id, "--store", store, key=KEY)
    assert code == 0 and "signed with COREFLOW_SIGNING_KEY" in out
    raw = RawStore(store)
    rows = raw.rows(match_id)
    signatures = {k: rows[-1].state[k] for k in ("signature", "log_signature")}
    value_edit(rows, random.Random(5))
    chain_again(rows)
    raw.write(rows)
    code, out = run("verify", match_id, "--store", store)
    assert code == 0  # without the key (or the receipt) a chain made again is a chain ...
    code, out = run("verify", match_id, "--store", store, key=KEY)
    assert code == 1 and "NOT signed" in out  # ... but not one the key signed
    code, out = run("verify", match_id, "--store", store, key="another key")
    assert code == 1
    code, out = run("judge", match_id, "--store", store, key=KEY)
    assert code == 2 and "refused" in out
    rows[-1].state.update(signatures)  # the old signature copied onto the new head
    raw.write(rows[-1:])
    code, out = run("verify", match_id, "--store", store, key=KEY)
    assert code == 1 and f"broken at seq {len(rows)}" in out and "signature" in out
    code, out = run("verify", match_id, "--store", store, "--head", receipt)
    assert code == 1


def test_the_key_catches_a_record_cut_short(store: str) -> None:
    match_id, _receipt = record_for_trial(store, DISPUTED, KEY)
    raw = RawStore(store)
    raw.delete(raw.rows(match_id)[-2:])
    code, out = run("verify", match_id, "--store", store)
    assert code == 0  # a prefix of the chain is a chain ...
    code, out = run("verify", match_id, "--store", store, key=KEY)
    assert code == 1 and "NOT signed" in out  # ... whose head nobody signed


def test_an_exported_log_carries_the_signature(store: str, tmp_path: Path) -> None:
    match_id, _receipt = record_for_trial(store, DISPUTED, KEY)
    code, exported = run("log", match_id, "--store", store)
    assert code == 0
    lines = [json.loads(t) for t in exported.splitlines()]
    assert SIGNATURE_KEY in lines[-1]["x"] and all("x" not in d for d in lines[:-1])
    path = tmp_path / "export.jsonl"
    path.write_text(exported, encoding="utf-8")
    assert run("verify", str(path))[0] == 0  # the signature is no part of the chain
    code, out = run("verify", str(path), key=KEY)
    assert code == 0 and "signed with COREFLOW_SIGNING_KEY" in out
    # Edited and chained again by normalize without the key: no signature ...
    edited = tmp_path / "edited.jsonl"
    edited.write_text(exported.replace("bob:C3", "bob:C9"), encoding="utf-8")
    code, again = run("normalize", str(edited))
    (tmp_path / "again.jsonl").write_text(again, encoding="utf-8")
    assert run("verify", str(tmp_path / "again.jsonl"))[0] == 0
    code, out = run("verify", str(tmp_path / "again.jsonl"), key=KEY)
    assert code == 1 and "NOT signed" in out
    # ... and the old signature copied onto it is not the key's signature of its head.
    copied = [json.loads(t) for t in again.splitlines()]
    copied[-1]["x"] = {SIGNATURE_KEY: lines[-1]["x"][SIGNATURE_KEY]}
    (tmp_path / "copied.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in copied), encoding="utf-8")
    code, out = run("verify", str(tmp_path / "copied.jsonl"), key=KEY)
    assert code == 1 and "not COREFLOW_SIGNING_KEY's" in out
    # A log cut short ends on a line nobody signed.
    (tmp_path / "cut.jsonl").write_text("".join(exported.splitlines(keepends=True)[:-2]),
                                        encoding="utf-8")
    code, out = run("verify", str(tmp_path / "cut.jsonl"), key=KEY)
    assert code == 1 and "NOT signed" in out


def test_normalize_signs_with_the_key(tmp_path: Path) -> None:
    code, signed = run("normalize", DISPUTED, key=KEY)
    assert code == 0
    last = json.loads(signed.splitlines()[-1])
    assert last["x"][SIGNATURE_KEY] == sign(KEY.encode(), last["hash"])
    code, plain = run("normalize", DISPUTED)
    assert [json.loads(t)["hash"] for t in plain.splitlines()] == [
        json.loads(t)["hash"] for t in signed.splitlines()]  # the same chain
    path = tmp_path / "signed.jsonl"
    path.write_text(signed, encoding="utf-8")
    assert run("verify", str(path), key=KEY)[0] == 0
    assert run("verify", str(path), key="another key")[0] == 1
    # Recording a signed log keeps no signature of the file's: the store signs its own.
    store = str(tmp_path / "s.db")
    match_id, _receipt = record_for_trial(store, str(path), None)
    code, exported = run("log", match_id, "--store", store)
    assert SIGNATURE_KEY not in exported and exported == plain


# ------------------------------------------------------------ an older coreflow's store


def test_a_store_of_an_older_coreflow_is_read_for_what_its_chain_covers(
        store: str, complete_log: str) -> None:
    """A store the previous coreflow wrote (hashes, table numbers no chain covered, no
    format record): verify passes and says so; judge rules on the complete log (numbered
    by the record), so a changed table number changes nothing; once this version writes
    to the store, its new matches are held to the format and the old one is still read."""
    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    raw = RawStore(store)
    rows = raw.rows(match_id)
    for row in rows:  # what the older coreflow wrote
        for key in ("store_format", "record_hash"):
            row.state.pop(key, None)
    rows[4].state["table_seq"] = 40  # and a number changed since: covered by nothing
    raw.write(rows)
    raw.drop_meta()
    for _ in range(2):
        code, out = run("verify", match_id, "--store", store)
        assert code == 0 and "older coreflow" in out and "complete log" in out
        code, out = run("judge", match_id, "--store", store, "--format", "json")
        assert code == 1 and "note:" in out
        report = json.loads(next(t for t in out.splitlines() if t.startswith("{")))
        # The counter's resolution, numbered as the complete log numbers it.
        assert [f["seq"] for f in report["findings"] if f["severity"] == "error"] == [17]
        code, out = run("verify", match_id, "--store", store, key=KEY)
        assert code == 1 and "NOT signed" in out  # with the key, only signed records
        # This version writes to the store: the format record is made, since its rows.
        new_id, _receipt = record_for_trial(store, complete_log, None)
        code, out = run("verify", "--all", "--store", store)
        assert code == 0, out
        row = raw.rows(new_id)[2]
        del row.state["line"]["hash"]
        raw.write([row])
        code, out = run("verify", new_id, "--store", store)
        assert code == 1 and "no stored hash" in out  # the new match is of the format
        raw.delete(raw.rows(new_id))


def test_a_store_of_a_coreflow_without_hashes_cannot_be_verified(store: str) -> None:
    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    raw = RawStore(store)
    rows = raw.rows(match_id)
    for row in rows:
        row.state["line"].pop("hash")
        for key in ("store_format", "record_hash"):
            row.state.pop(key, None)
    raw.write(rows)
    raw.drop_meta()
    code, out = run("verify", match_id, "--store", store)
    assert code == 1 and "cannot be verified" in out
    code, out = run("judge", match_id, "--store", store)
    assert code == 1 and "unverified" in out and "1 error" in out


def test_a_play_record_is_signed_at_every_entry(store: str) -> None:
    """`play` saves (and signs) after every entry: cut back to the end of an earlier entry,
    the record ends on a signed head. The key does not catch that; the receipt does."""
    from coreflow_judge.cli.main import app
    from typer.testing import CliRunner

    played = CliRunner().invoke(app, ["play", "--store", store, "--keep-mistakes"],
                                input=Path(DISPUTED).read_text(encoding="utf-8"),
                                env={"COREFLOW_SIGNING_KEY": KEY})
    assert played.exit_code == 0, played.output
    receipt = played.stderr.split("head hash ")[1].split()[0]
    code, out = run("verify", "demo-1", "--store", store, "--head", receipt, key=KEY)
    assert code == 0 and "signed with COREFLOW_SIGNING_KEY" in out
    raw = RawStore(store)
    rows = raw.rows("demo-1")
    ends = [r.version for r in rows if "signature" in r.state]
    assert len(ends) > 2 and ends[-1] == len(rows)
    raw.delete([r for r in rows if r.version > ends[-2]])  # back to the entry before
    code, out = run("verify", "demo-1", "--store", store, key=KEY)
    assert code == 0  # an earlier head the key signed ...
    code, out = run("verify", "demo-1", "--store", store, "--head", receipt, key=KEY)
    assert code == 1 and "never had the receipt's head" in out  # ... but not the receipt's


def test_lines_appended_to_a_sparse_record_continue_the_tables_numbers(store: str) -> None:
    """Lines appended without numbers are the table's next lines: judged, numbered on from
    its last one, and covered like the rest."""
    from coreflow_judge.events.models import Pass
    from coreflow_judge.events.store import open_recorder

    match_id, _receipt = record_for_trial(store, DISPUTED, None)
    with open_recorder(store) as recorder:
        assert recorder.append(match_id, [Pass(seq=21, player="alice")]) == 21
        chain, record = recorder.evidence(match_id)
    assert chain.ok and record.table_seqs[-1] == 13
    assert [(ln.seq, ln.type) for ln in record.table_lines()[-2:]] == [(12, "request"),
                                                                       (13, "pass")]
