"""The audit prompt is a sandbox that cannot write (issue 12, part 3): no statement writes any
file (the audit database, its ``.wal``, its ``.tmp/`` directory included), only queries
run, a query stops after ``--timeout`` seconds, and large answers stream.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from pathlib import Path

import pytest
from coreflow_judge.audit.projection import BATCH_ROWS, AuditDB, read_only, stream_query

from tests.test_bad_input import DISPUTED, installed_coreflow, invoke, one_line


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    assert invoke("audit", "SELECT 1", "--store", store).exit_code == 0  # the audit file
    return store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_no_statement_writes_the_audit_files(store: Path) -> None:
    audit = store.parent / "coreflow-audit.duckdb"
    tmp_dir = Path(f"{audit}.tmp")
    tmp_dir.mkdir()  # DuckDB's own temporary directory, there to be written into
    before = _digest(audit)
    targets = [audit, Path(f"{audit}.wal"), tmp_dir / "x.csv", tmp_dir / "y.parquet"]
    for target in targets:
        for sql in (f"COPY (SELECT 'x') TO '{target}' (USE_TMP_FILE false)",
                    f"COPY (SELECT 'x') TO '{target}'",
                    f"EXPLAIN ANALYZE COPY (SELECT 'x') TO '{target}'"):
            r = invoke("audit", sql, "--store", store)
            assert r.exit_code == 1, sql
            assert one_line(r.stderr).startswith("coreflow: refused (the audit database is "
                                                 "read-only): "), sql
    assert _digest(audit) == before
    assert list(tmp_dir.iterdir()) == []
    assert not Path(f"{audit}.wal").exists()
    r = invoke("audit", "SELECT count(*) AS n FROM matches", "--store", store, "--format", "csv")
    assert r.stdout.splitlines() == ["n", "1"]


@pytest.mark.parametrize("sql", [
    "CHECKPOINT",
    "CALL pragma_version()",
    "PRAGMA table_info('matches')",
    "CREATE TEMP TABLE t AS SELECT 1",
    "CREATE TEMP VIEW v AS SELECT 1",
    "PREPARE p AS SELECT 1",
    "VACUUM",
    "BEGIN TRANSACTION",
    "USE memory",
    "DETACH memory",
    "EXPLAIN CREATE TEMP TABLE t AS SELECT 1",
])
def test_only_queries_run(store: Path, sql: str) -> None:
    r = invoke("audit", sql, "--store", store)
    assert r.exit_code == 1, sql
    assert one_line(r.stderr).startswith("coreflow: refused (the audit database is read-only): ")


@pytest.mark.parametrize("sql", [
    "SELECT count(*) FROM matches",
    "WITH m AS (SELECT * FROM matches) SELECT count(*) FROM m",
    "FROM matches SELECT match_id",
    "VALUES (1), (2)",
    "SHOW TABLES",
    "DESCRIBE matches",
    "SUMMARIZE SELECT seq FROM events",
    "EXPLAIN SELECT * FROM matches",
    "EXPLAIN ANALYZE SELECT count(*) FROM events",
])
def test_query_forms_that_run(store: Path, sql: str) -> None:
    r = invoke("audit", sql, "--store", store)
    assert r.exit_code == 0, (sql, r.stderr)


SLOW = "SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range < 0"


def test_a_query_stops_at_its_time_limit(store: Path) -> None:
    started = time.monotonic()
    r = invoke("audit", SLOW, "--store", store, "--timeout", "0.5")
    assert time.monotonic() - started < 20
    assert r.exit_code == 1
    assert one_line(r.stderr) == ("coreflow: query stopped: it ran longer than 0.5 s "
                                  "(--timeout SECONDS allows more)")
    r = invoke("audit", "--store", store, "--timeout", "0.5", "--format", "csv",
               input=f"{SLOW};\nSELECT 7 AS n;\n")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == ["n", "7"]  # the prompt goes on after a stopped query


def test_the_time_limit_covers_fetching(store: Path) -> None:
    audit = AuditDB(None, str(store))
    con = read_only(audit.path)
    try:
        with stream_query(con, "SELECT * FROM range(10000000000)", timeout=0.5) as stream:
            first = next(stream.batches)
            assert len(first) == BATCH_ROWS  # the first rows come at once
            with pytest.raises(Exception, match="ran longer than 0.5 s"):
                for _batch in stream.batches:
                    pass
    finally:
        con.close()


MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _peak_kib(*args: str) -> int:
    done = subprocess.run([sys.executable, "-c", MEASURE, installed_coreflow(), *args],
                          capture_output=True, text=True, timeout=300, check=True)
    return int(done.stdout)


def test_a_large_answer_streams(store: Path) -> None:
    """A million rows cost no more memory than one row (held whole they took ~150 MB)."""
    small = _peak_kib("audit", "SELECT 1", "--store", str(store), "--format", "csv")
    large = _peak_kib("audit", "SELECT i, i::VARCHAR || 'x' AS s FROM range(1000000) t(i)",
                      "--store", str(store), "--format", "csv")
    assert large - small < 40 * 1024, (small, large)
