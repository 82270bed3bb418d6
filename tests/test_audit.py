"""The SQL audit: the DuckDB read model of the store, its refresh, its refusals, its CLI."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.audit import AuditDB, QueryFailed, QueryRefused, default_audit_path
from coreflow_judge.audit.schema import TABLES
from coreflow_judge.cli.main import app
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import LineError, read_log
from coreflow_judge.events.store import MatchRecorder, open_recorder
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT = ROOT / "fixtures" / "tournament"
COOKBOOK = ROOT / "docs" / "cookbook.md"
AUDIT_DOC = ROOT / "docs" / "audit.md"

runner = CliRunner()


def logs() -> list[tuple[Path, list[LogLine]]]:
    out = []
    for path in sorted(TOURNAMENT.glob("*.jsonl")):
        lines = []
        for _no, item in read_log(path):
            assert not isinstance(item, LineError), item
            lines.append(item)
        out.append((path, lines))
    return out


LOGS = logs()


def record_all(recorder: MatchRecorder, items: list[tuple[Path, list[LogLine]]]) -> None:
    for _path, lines in items:
        recorder.record(lines)


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> AuditDB:
    """The whole tournament recorded as is, and its audit database."""
    tmp = tmp_path_factory.mktemp("audit")
    store = str(tmp / "coreflow.db")
    recorder = open_recorder(store)
    record_all(recorder, LOGS)
    auditdb = AuditDB(store=store)
    auditdb.refresh(recorder=recorder)
    return auditdb


def invoke(*args: str | Path, input: str | None = None):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception)
    return result


def test_the_tournament_has_both_editions_and_mistakes() -> None:
    assert len(LOGS) >= 24
    editions = Counter(lines[0].rules for _p, lines in LOGS)  # type: ignore[union-attr]
    assert set(editions) == {"blackpoker/6.1", "blackpoker/9.0"}
    spoiled = [p for p, lines in LOGS if judge_lines(enumerate(lines, 1)).errors]
    assert 4 <= len(spoiled) < len(LOGS)
    for _p, lines in LOGS:
        assert lines[0].event is not None  # type: ignore[union-attr]
        assert all(line.at for line in lines)


# ------------------------------------------------------------------ incremental == rebuild


def test_incremental_refresh_equals_a_rebuild(tmp_path: Path) -> None:
    store = str(tmp_path / "coreflow.db")
    recorder = open_recorder(store)
    first, second = LOGS[:10], LOGS[10:]
    # Step 1: ten matches, and the first 40 lines of an eleventh.
    record_all(recorder, first)
    _, partial = second[0]
    recorder.record(partial[:40])
    step = AuditDB(tmp_path / "step.duckdb", store)
    one = step.refresh(recorder=recorder)
    assert one.rebuilt and one.matches == 11
    assert one.notifications == sum(len(lines) for _p, lines in first) + 40
    # Step 2: the rest of the eleventh match, then the other matches.
    recorder.append(partial[0].match_id, partial[40:])  # type: ignore[union-attr]
    record_all(recorder, second[1:])
    two = step.refresh(recorder=recorder)
    assert not two.rebuilt
    assert two.matches == len(second)  # only the matches with new lines
    assert two.notifications == sum(len(lines) for _p, lines in second) - 40
    assert step.refresh(recorder=recorder).matches == 0  # nothing new, nothing done
    # One rebuild from scratch gives the very same tables.
    whole = AuditDB(tmp_path / "whole.duckdb", store)
    assert whole.refresh(recorder=recorder).matches == len(LOGS)
    a, b = step.table_contents(), whole.table_contents()
    assert set(a) == set(b) == {*TABLES, "audit_state"}
    for table in a:
        assert a[table] == b[table], table
    assert len(a["events"]) == sum(len(lines) for _p, lines in LOGS)
    # And a forced rebuild of the incremental file gives them again.
    assert step.refresh(rebuild=True, recorder=recorder).rebuilt
    assert step.table_contents() == b


def test_a_refresh_reads_only_new_notifications(tmp_path: Path) -> None:
    store = str(tmp_path / "coreflow.db")
    recorder = open_recorder(store)
    record_all(recorder, LOGS[:2])
    auditdb = AuditDB(tmp_path / "a.duckdb", store)
    auditdb.refresh(recorder=recorder)
    record_all(recorder, LOGS[2:3])
    stats = auditdb.refresh(recorder=recorder)
    assert stats.notifications == len(LOGS[2][1])
    assert stats.last_notification_id == recorder.recorder.max_notification_id()
    assert stats.rows["matches"] == 1


def test_another_store_rebuilds_the_audit_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.duckdb"
    for name, items in (("one.db", LOGS[:1]), ("two.db", LOGS[1:3])):
        recorder = open_recorder(str(tmp_path / name))
        record_all(recorder, items)
        stats = AuditDB(path, str(tmp_path / name)).refresh(recorder=recorder)
        assert stats.rebuilt
    result = AuditDB(path, str(tmp_path / "two.db")).query("SELECT count(*) FROM matches")
    assert result.rows == [(2,)]


# ------------------------------------------------------------------ the tables agree


def _count(con: duckdb.DuckDBPyConnection, sql: str, *params: object) -> int:
    row = con.execute(sql, list(params)).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(("path", "lines"), LOGS, ids=[p.stem for p, _ in LOGS])
def test_row_counts_agree_with_the_log(audited: AuditDB, path: Path,
                                       lines: list[LogLine]) -> None:
    mid = lines[0].match_id  # type: ignore[union-attr]
    kinds = Counter(line.type for line in lines)
    con = audited.connect_read_only()  # one read-only connection for every question below

    def count(table: str, where: str = "true") -> int:
        return _count(con, f"SELECT count(*) FROM {table} WHERE match_id = ? AND {where}", mid)

    try:
        assert count("matches") == 1
        assert count("events") == len(lines)
        assert count("stage") == len(lines)
        assert count("passes") == kinds["pass"]
        assert count("resolutions") == kinds["resolve"]
        assert count("requests", "NOT triggered") == kinds["request"]
        assert count("chance_moves", "recorded") == kinds["chance_moved"]
        assert count("triggers", "recorded") == kinds["trigger"]
        for kind, n in kinds.items():
            assert count("events", f"type = '{kind}'") == n
        assert _count(con, "SELECT lines FROM matches WHERE match_id = ?", mid) == len(lines)
        turns = _count(con, "SELECT turns FROM matches WHERE match_id = ?", mid)
        assert count("boards") == turns
        # Every request line is a requests row with its own id, action and player.
        rows = con.execute(
            "SELECT request, action, player, seq FROM requests "
            "WHERE match_id = ? AND NOT triggered ORDER BY seq", [mid]).fetchall()
    finally:
        con.close()
    want = [(ln.request, ln.action, ln.player, ln.seq) for ln in lines if ln.type == "request"]
    assert rows == want  # type: ignore[comparison-overlap]


@pytest.mark.parametrize(("path", "lines"), LOGS, ids=[p.stem for p, _ in LOGS])
def test_findings_table_is_the_judges_report(audited: AuditDB, path: Path,
                                             lines: list[LogLine]) -> None:
    report = judge_lines(read_log(path))
    con = audited.connect_read_only()
    try:
        rows = con.execute(
            "SELECT code, seq, severity, rule, message, expected, actual, rules FROM findings "
            "WHERE match_id = ? ORDER BY ord", [report.match_id]).fetchall()
        match = con.execute(
            "SELECT result, winner, reason, errors FROM matches WHERE match_id = ?",
            [report.match_id]).fetchone()
    finally:
        con.close()
    want = [
        (f.code, f.seq, f.severity, f.rule, f.message,
         None if f.expected is None else json.loads(json.dumps(f.expected, default=str)),
         None if f.actual is None else json.loads(json.dumps(f.actual, default=str)),
         report.rules)
        for f in report.findings
    ]
    got = [(*r[:5], None if r[5] is None else json.loads(r[5]),
            None if r[6] is None else json.loads(r[6]), r[7]) for r in rows]
    assert got == want
    result = report.result or {}
    assert match == (result.get("result"), result.get("winner"), result.get("reason"),
                     report.errors)


def test_requests_carry_the_engines_status(audited: AuditDB) -> None:
    result = audited.query(
        "SELECT status, count(*) FROM requests GROUP BY status ORDER BY status")
    statuses = dict(result.rows)
    assert set(statuses) <= {"resolved", "fizzled", "negated", "discarded", "dropped",
                             "pending"}
    assert statuses["resolved"] > 0
    # A resolved request has its resolve line; a resolve line names a known request.
    bad = audited.query(
        "SELECT count(*) FROM requests r LEFT JOIN resolutions s "
        "ON s.match_id = r.match_id AND s.seq = r.resolved_seq "
        "WHERE r.status IN ('resolved', 'fizzled') AND s.request IS DISTINCT FROM r.request")
    assert bad.rows == [(0,)]


def test_the_swapped_resolutions_show_as_out_of_stage_order(audited: AuditDB) -> None:
    out_of_order = audited.query(
        "SELECT DISTINCT match_id FROM resolutions WHERE from_stage AND NOT was_top")
    lifo = audited.query(
        "SELECT DISTINCT match_id FROM findings WHERE code = 'order.stage-not-lifo'")
    assert out_of_order.rows and sorted(out_of_order.rows) == sorted(lifo.rows)


# ------------------------------------------------------------------ read-only for real

REFUSED = [
    "INSERT INTO matches (match_id) VALUES ('x')",
    "UPDATE matches SET winner = 'x'",
    "DELETE FROM findings",
    "CREATE TABLE x (a INTEGER)",
    "DROP TABLE events",
    "ALTER TABLE matches ADD COLUMN x INTEGER",
    "ATTACH '{tmp}/other.duckdb' AS other",
    "COPY matches TO '{tmp}/matches.csv'",
    "COPY matches FROM '{tmp}/matches.csv'",
    "EXPORT DATABASE '{tmp}/dump'",
    "SELECT * FROM read_csv('{tmp}/x.csv')",
    "SELECT * FROM read_csv_auto('/etc/hostname')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_parquet('{tmp}/x.parquet')",
    "SELECT * FROM glob('/etc/*')",
    "INSTALL httpfs",
    "LOAD httpfs",
    "LOAD json",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "PRAGMA threads = 1",
]


@pytest.mark.parametrize("sql", REFUSED)
def test_statements_that_write_or_reach_out_are_refused(audited: AuditDB, tmp_path: Path,
                                                        sql: str) -> None:
    sql = sql.format(tmp=tmp_path)
    (tmp_path / "x.csv").write_text("a\n1\n")
    before = hashlib.sha256(audited.path.read_bytes()).hexdigest()
    with pytest.raises(QueryRefused, match=r"^refused"):
        audited.query(sql)
    assert hashlib.sha256(audited.path.read_bytes()).hexdigest() == before
    assert not (tmp_path / "matches.csv").exists() and not (tmp_path / "dump").exists()
    assert not (tmp_path / "other.duckdb").exists()


def test_one_statement_at_a_time(audited: AuditDB) -> None:
    with pytest.raises(QueryFailed, match="exactly one"):
        audited.query("SELECT 1; SELECT 2")
    with pytest.raises(QueryFailed, match="Parser Error"):
        audited.query("SELEKT 1")


# ------------------------------------------------------------------ the command


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tournament recorded with ``coreflow record``, as docs/cookbook.md does."""
    store = tmp_path_factory.mktemp("cli") / "tournament.db"
    for path, _lines in LOGS:
        r = invoke("record", path, "--store", store)
        assert r.exit_code == 0, r.output
    return store


def test_audit_command_prints_a_table_and_refreshes_first(cli_store: Path) -> None:
    r = invoke("audit", "SELECT count(*) AS n FROM matches", "--store", cli_store)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["|  n |", "|---:|", f"| {len(LOGS)} |", "(1 row)"]
    assert (cli_store.parent / "tournament.db.audit.duckdb").exists()  # the store's own


def test_audit_command_formats(cli_store: Path) -> None:
    sql = ("SELECT match_id, players, round, started_at FROM matches "
           "ORDER BY match_id LIMIT 2")
    r = invoke("audit", sql, "--store", cli_store, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows[0]["round"] == "1" and len(rows[0]["players"]) == 2
    assert rows[0]["started_at"].startswith("2025-04-12T")
    r = invoke("audit", sql, "--store", cli_store, "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "match_id,players,round,started_at"
    assert len(r.stdout.splitlines()) == 3
    r = invoke("audit", "SELECT board FROM boards LIMIT 1", "--store", cli_store,
               "--format", "json")
    assert "players" in json.loads(r.stdout)["board"]


@pytest.mark.parametrize("sql", ["COPY matches TO 'out.csv'", "INSERT INTO matches "
                                 "(match_id) VALUES ('x')", "INSTALL httpfs",
                                 "SELECT * FROM read_csv('/etc/hostname')"])
def test_audit_command_refuses_in_one_line(cli_store: Path, sql: str) -> None:
    r = invoke("audit", sql, "--store", cli_store)
    assert r.exit_code == 1
    assert r.stdout == ""
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("coreflow: refused"), err


def test_audit_command_errors(cli_store: Path, tmp_path: Path) -> None:
    r = invoke("audit", "SELECT nope FROM matches", "--store", cli_store)
    assert r.exit_code == 1 and r.stderr.startswith("coreflow: query failed: Binder Error")
    r = invoke("audit", "SELECT 1", "--store", tmp_path / "missing.db")
    assert r.exit_code == 2 and "no event store" in r.stderr
    assert not (tmp_path / "missing.db").exists()


def test_audit_prompt_reads_stdin(cli_store: Path) -> None:
    text = ("SELECT count(*) AS n\n  FROM matches;\n.tables\nSELECT 'two' AS w;\n"
            ".quit\nSELECT 'never' AS w;\n")
    r = invoke("audit", "--store", cli_store, input=text)
    assert r.exit_code == 0, r.output
    assert f"| {len(LOGS)} |" in r.stdout and "| two |" in r.stdout
    assert "never" not in r.stdout and "findings" in r.stdout
    r = invoke("audit", "--store", cli_store, input="SELECT x;\nSELECT 1 AS one;\n")
    assert r.exit_code == 1 and "|   1 |" in r.stdout and "Binder Error" in r.stderr


def test_export_parquet(cli_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "parquet"
    r = invoke("export", "--parquet", out, "--store", cli_store)
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{t}.parquet" for t in TABLES)
    auditdb = AuditDB(store=str(cli_store))
    con = duckdb.connect()
    for table in TABLES:
        n = con.execute("SELECT count(*) FROM read_parquet(?)",
                        [str(out / f"{table}.parquet")]).fetchone()
        assert n == auditdb.query(f"SELECT count(*) FROM {table}").rows[0], table


def test_default_audit_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One audit file per store: a SQLite store's beside it, named after it; a PostgreSQL
    store's in the user's cache, keyed by its identity (never its password)."""
    monkeypatch.delenv("COREFLOW_AUDIT", raising=False)
    monkeypatch.delenv("COREFLOW_STORE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert default_audit_path(str(tmp_path / "x" / "s.db")) == (
        tmp_path / "x" / "s.db.audit.duckdb")
    assert default_audit_path(str(tmp_path / "x" / "t.db")) == (
        tmp_path / "x" / "t.db.audit.duckdb")
    assert default_audit_path(None) == Path("coreflow.db.audit.duckdb")
    cache = tmp_path / "cache" / "coreflow" / "audit"
    one = default_audit_path("postgresql://u:secret@h/db")
    assert one.parent == cache and one.name.startswith("postgresql-db-"), one
    assert "secret" not in str(one)
    assert default_audit_path("postgresql://u:other@h/db") == one  # the password is no key
    others = {default_audit_path("postgresql://u@h/db?schema=s2"),
              default_audit_path("postgresql://u@h2/db"),
              default_audit_path("postgresql://u@h:5433/db"),
              default_audit_path("postgresql://v@h/db"),
              default_audit_path("postgresql://u@h/db2")}
    assert len(others) == 5 and one not in others
    monkeypatch.setenv("COREFLOW_AUDIT", str(tmp_path / "elsewhere.duckdb"))
    assert default_audit_path(str(tmp_path / "s.db")) == tmp_path / "elsewhere.duckdb"


# ------------------------------------------------------------------ the documents


def cookbook_queries() -> list[str]:
    text = COOKBOOK.read_text(encoding="utf-8")
    return [m.strip() for m in re.findall(r"```sql\n(.*?)```", text, flags=re.S)]


def test_the_cookbook_has_ten_questions() -> None:
    assert len(cookbook_queries()) >= 10


@pytest.mark.parametrize("sql", cookbook_queries())
def test_every_cookbook_query_runs_on_the_tournament(cli_store: Path, sql: str) -> None:
    r = invoke("audit", sql, "--store", cli_store)
    assert r.exit_code == 0, r.output
    assert not r.stdout.rstrip().endswith("(0 rows)"), r.stdout


def test_every_column_is_documented() -> None:
    doc = AUDIT_DOC.read_text(encoding="utf-8")
    for table, cols in TABLES.items():
        section = re.search(rf"^### `{table}`\n(.*?)(?=^### |\Z)", doc, flags=re.S | re.M)
        assert section is not None, table
        for name, kind, _meaning in cols:
            assert re.search(rf"^\| `{name}` \| {re.escape(kind)} \|", section.group(1),
                             flags=re.M), (table, name)
