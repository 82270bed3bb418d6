"""The audit prompt keeps DuckDB's and psql's habits (issue 24, item 7), tried as a user
does: the prompt through a pseudo-terminal (line editing, arrow-up history kept across
sessions, Ctrl-C cancels the line or the query and the session goes on, Ctrl-D ends), the
dot commands at the prompt, through a pipe and as the command's argument, answers as CSV,
JSON, Parquet and Arrow files written by coreflow (never by the SQL), and one audit file
per store, SQLite and PostgreSQL alike, read by ``audit``, ``matches`` and ``standings``.
"""

from __future__ import annotations

import codecs
import importlib.util
import json
import os
import pty
import re
import select
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import duckdb
import pytest
from coreflow_judge.audit.schema import TABLES
from coreflow_judge.cli.audit_prompt import split_statements

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "fixtures" / "sample-match.jsonl"
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
COREFLOW = [sys.executable, "-m", "coreflow_judge.cli.main"]
POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")
SLOW = "SELECT count(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range < 0"


def _env(home: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("COREFLOW_STORE", "COREFLOW_AUDIT", "COREFLOW_AUDIT_HISTORY")}
    return env | {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")} | more


def coreflow(*args: str | Path, home: Path, stdin: str | None = None,
             timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """The real command, in a process of its own, with a home of its own."""
    done = subprocess.run([*COREFLOW, *(str(a) for a in args)], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=home,
                          env=_env(home))
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's home with a store of two recorded matches, ``s.db``."""
    home = tmp_path_factory.mktemp("home")
    for log in (SAMPLE, DISPUTED):
        assert coreflow("record", log, "--store", "s.db", home=home).returncode == 0
    return home


# ------------------------------------------------------------------ at a terminal


class Terminal:
    """``coreflow audit`` on a pseudo-terminal, as a user at a keyboard runs it."""

    def __init__(self, home: Path, *args: str | Path, **env: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the real command on the terminal
            os.chdir(home)
            os.execve(sys.executable, [*COREFLOW, "audit", *(str(a) for a in args)],
                      _env(home, **env))
        self.seen = ""
        self.pos = 0  # what expect() has matched so far
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def type(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def expect(self, pattern: str, timeout: float = 60) -> str:
        """Read until ``pattern`` shows after what earlier calls matched; the text up to
        the end of the match."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.seen[self.pos:])
            if found:
                shown = self.seen[self.pos:self.pos + found.end()]
                self.pos += found.end()
                return shown
            if time.monotonic() > deadline:
                break
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.seen += self._decode(os.read(self.fd, 4096))
                except OSError:
                    break
        raise AssertionError(f"never saw {pattern!r} after {self.seen[:self.pos][-300:]!r}; "
                             f"got {self.seen[self.pos:][-1500:]!r}")

    def status(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = 0
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.1)
        raise AssertionError("the session did not end")

    def close(self) -> None:
        if self.pid:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def test_the_prompt_at_a_terminal(home: Path) -> None:
    """Arrow keys edit the line and recall earlier statements (a statement of two lines
    is one entry), Ctrl-C cancels the line being typed and then a running query, the
    session going on both times, .mode csv switches the output, Ctrl-D ends (status 0);
    the history is kept in ~/.coreflow_audit_history, the user's alone, and the next
    session recalls it."""
    history = home / ".coreflow_audit_history"
    history.unlink(missing_ok=True)
    term = Terminal(home, "--store", "s.db")
    try:
        term.expect(r"audit> ")
        term.type("SELECT count(*) AS n\r")
        term.expect(r"  \.\.\.> ")
        term.type("FROM matches;\r")
        assert "| n |\r\n|--:|\r\n| 2 |\r\n(1 row)" in term.expect(r"\(1 row\)\r\naudit> ")
        term.type("\x1b[A\r")  # arrow-up: the whole statement again
        shown = term.expect(r"\(1 row\)\r\naudit> ")
        assert "| 2 |" in shown and "Error" not in shown
        term.type("SELECT 5 AS fve\x1b[D\x1b[Di\x05;\r")  # left, left, 'i', end of line
        assert "| five |" in term.expect(r"\(1 row\)\r\naudit> ")
        term.type("SELECT 'half")
        term.expect(r"SELECT 'half")
        time.sleep(0.3)  # a person's pause (a SIGINT before readline waits is seen late)
        term.type("\x03")  # Ctrl-C: the line goes, the session stays
        term.expect(r"\^C\r\naudit> ")
        term.type("SELECT 2 AS two;\r")
        shown = term.expect(r"\(1 row\)\r\naudit> ")
        assert "| two |" in shown and "half" not in shown.split("SELECT 2 AS two;")[1]
        term.type(SLOW + ";\r")
        time.sleep(1.5)  # the query is running (it would for hours)
        started = time.monotonic()
        term.type("\x03")  # Ctrl-C: the query stops, the session stays
        term.expect(r"coreflow: query cancelled \(Ctrl-C\); the session goes on\r\naudit> ")
        assert time.monotonic() - started < 10
        term.type(".mode csv\r")
        term.type("SELECT 7 AS n, 'a,b' AS s;\r")
        assert "n,s\r\n7,\"a,b\"\r\n" in term.expect(r"7,\"a,b\"\r\naudit> ")
        term.type("\x04")  # Ctrl-D on an empty line: the end
        assert term.status() == 0
    finally:
        term.close()
    entries = history.read_text(encoding="utf-8").splitlines()
    assert entries == ["SELECT count(*) AS n\x01FROM matches;", "SELECT 5 AS five;",
                       "SELECT 2 AS two;", SLOW + ";", ".mode csv",
                       "SELECT 7 AS n, 'a,b' AS s;"]
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    term = Terminal(home, "--store", "s.db")  # a new session recalls the last one's statements
    try:
        term.expect(r"audit> ")
        term.type("\x1b[A\r")
        assert "| 7 | a,b |" in term.expect(r"\(1 row\)\r\naudit> ")
        for _ in range(6):  # back to the first, a statement of two lines
            term.type("\x1b[A")
        term.type("\r")
        assert "| 2 |" in term.expect(r"\(1 row\)\r\naudit> ")
        term.type(".quit\r")
        assert term.status() == 0
    finally:
        term.close()


def test_no_history_is_kept_when_told_so(home: Path, tmp_path: Path) -> None:
    """``$COREFLOW_AUDIT_HISTORY`` names the history file; empty, none is kept."""
    elsewhere = tmp_path / "hist"
    for n, value in enumerate(("", str(elsewhere))):
        user = tmp_path / f"user{n}"
        user.mkdir()
        term = Terminal(user, "--store", home / "s.db", "--audit", user / "a.duckdb",
                        COREFLOW_AUDIT_HISTORY=value)
        try:
            term.expect(r"audit> ")
            term.type("SELECT 1 AS one;\r")
            term.expect(r"\(1 row\)\r\naudit> ")
            term.type(".quit\r")
            assert term.status() == 0
        finally:
            term.close()
        assert not (user / ".coreflow_audit_history").exists()
    assert elsewhere.read_text(encoding="utf-8").splitlines() == ["SELECT 1 AS one;", ".quit"]


# ------------------------------------------------------------------ dot commands


def test_dot_commands_as_the_commands_argument(home: Path) -> None:
    """``coreflow audit ".tables"`` does what ``.tables`` does at the prompt (it was a
    parser error)."""
    r = coreflow("audit", ".tables", "--store", "s.db", home=home)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == list(TABLES)
    r = coreflow("audit", ".tables re%", "--store", "s.db", home=home)
    assert r.stdout.splitlines() == ["requests", "resolutions"]
    r = coreflow("audit", ".schema findings", "--store", "s.db", home=home)
    assert r.returncode == 0 and r.stdout.startswith("CREATE TABLE findings (\n")
    for name, kind, _meaning in TABLES["findings"]:
        assert re.search(rf"^  {name} {re.escape(kind)},? +-- ", r.stdout, re.M), name
    assert "CREATE TABLE matches" not in r.stdout
    schema = coreflow("audit", ".schema", "--store", "s.db", home=home).stdout
    con = duckdb.connect()
    con.execute(schema)  # the schema is DuckDB SQL
    assert sorted(t for (t,) in con.execute("SHOW TABLES").fetchall()) == sorted(TABLES)
    r = coreflow("audit", ".help", "--store", "s.db", home=home)
    assert r.returncode == 0 and ".mode [MODE]" in r.stdout and ".once FILE" in r.stdout
    r = coreflow("audit", ".shell ls", "--store", "s.db", home=home)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("coreflow: unknown command '.shell ls': the commands are "
                               ".help, .tables, .schema, .mode, .once, .output, .timer")


def test_dot_commands_at_the_prompt(home: Path) -> None:
    """.mode in each of DuckDB's text modes coreflow has, .timer, several statements on a
    line, a ';' inside a string; .once and .output write files (coreflow writes them)."""
    script = """\
.mode csv
SELECT 1 AS a, 'x' AS b; SELECT 2 AS a, 'y;z' AS b;
.mode json
SELECT 1 AS a, [1, 2] AS l;
.mode jsonlines
SELECT 2 AS a;
.mode markdown
SELECT 'a;
b' AS s;
.mode line
SELECT 1 AS a, 22 AS long_name UNION ALL SELECT 2, 3 ORDER BY 1;
.mode
.mode table
.timer on
SELECT 3 AS t;
.timer off
.once once.csv
.mode csv
SELECT match_id FROM matches ORDER BY 1;
SELECT 'after once' AS s;
.output out.txt
SELECT 1 AS first;
SELECT 2 AS second;
.output
SELECT 'screen again' AS s;
.mode wide
"""
    r = coreflow("audit", "--store", "s.db", home=home, stdin=script)
    assert r.returncode == 1  # the unknown mode
    assert r.stderr.strip() == ("coreflow: .mode 'wide': the modes are table, markdown, csv, "
                                "json, line, parquet, arrow")
    blocks = r.stdout
    assert blocks.startswith("a,b\n1,x\na,b\n2,y;z\n"
                             '{"a": 1, "l": [1, 2]}\n{"a": 2}\n'
                             "| s     |\n|-------|\n| a;\\nb |\n"
                             "        a = 1\nlong_name = 22\n\n        a = 2\nlong_name = 3\n"
                             "line\n"
                             "| t |\n|--:|\n| 3 |\n(1 row)\nRun Time (s): real "), blocks
    assert blocks.endswith("s\nafter once\ns\nscreen again\n"), blocks
    assert (home / "once.csv").read_text() == "match_id\ndemo-1\nsample-2026-r3-t7\n"
    assert (home / "out.txt").read_text() == "first\n1\nsecond\n2\n"


def test_split_statements() -> None:
    """Where a statement ends: at a ';' outside strings, quoted names and comments."""
    assert split_statements("SELECT 1; SELECT 2;\n") == (["SELECT 1;", "SELECT 2;"], "\n")
    assert split_statements("SELECT 'a;\n") == ([], "SELECT 'a;\n")
    assert split_statements("SELECT 'a;\nb' AS \"x;\";\n") == (["SELECT 'a;\nb' AS \"x;\";"],
                                                                 "\n")
    assert split_statements("SELECT 1 -- no;\n") == ([], "SELECT 1 -- no;\n")
    assert split_statements("SELECT /* ; */ 1;") == (["SELECT /* ; */ 1;"], "")
    assert split_statements("SELECT $$a;b$$, $t$;$t$; x") == (["SELECT $$a;b$$, $t$;$t$;"],
                                                               " x")
    assert split_statements("SELECT 'it''s;';") == (["SELECT 'it''s;';"], "")
    assert split_statements(";;\n") == ([], "\n")


# ------------------------------------------------------------------ answers as files


def test_answers_as_csv_json_parquet_and_arrow(home: Path) -> None:
    """--format csv|json to stdout or --out FILE; parquet and arrow to --out FILE (DuckDB
    writes Parquet; Arrow needs pyarrow, said plainly when it is missing)."""
    sql = ("SELECT match_id, players, lines, errors, recorded_at FROM matches "
           "ORDER BY match_id")
    csv_out = coreflow("audit", sql, "--store", "s.db", "--format", "csv", home=home)
    assert csv_out.returncode == 0 and csv_out.stdout.startswith(
        "match_id,players,lines,errors,recorded_at\ndemo-1,")
    r = coreflow("audit", sql, "--store", "s.db", "--format", "csv", "--out", "m.csv",
                 home=home)
    assert r.returncode == 0 and r.stdout == ""
    assert (home / "m.csv").read_text() == csv_out.stdout
    rows = [json.loads(x) for x in coreflow("audit", sql, "--store", "s.db", "--format",
                                            "json", home=home).stdout.splitlines()]
    assert [x["match_id"] for x in rows] == ["demo-1", "sample-2026-r3-t7"]

    r = coreflow("audit", sql, "--store", "s.db", "--format", "parquet", "--out",
                 "m.parquet", home=home)
    assert r.returncode == 0 and (r.stdout, r.stderr) == ("", "")
    got = duckdb.connect().execute(
        f"SELECT match_id, players, lines, errors FROM '{home / 'm.parquet'}'").fetchall()
    assert got == [(x["match_id"], x["players"], x["lines"], x["errors"]) for x in rows]

    r = coreflow("audit", sql, "--store", "s.db", "--format", "arrow", "--out", "m.arrow",
                 home=home)
    if importlib.util.find_spec("pyarrow") is None:
        assert r.returncode == 2 and not (home / "m.arrow").exists()
        assert r.stderr == ("coreflow: --format arrow: Arrow files need the pyarrow package, "
                            "which coreflow does not install: pip install pyarrow (or "
                            "coreflow-judge[arrow])\n")
    else:
        import pyarrow.ipc

        assert r.returncode == 0, r.stderr
        table = pyarrow.ipc.open_file(str(home / "m.arrow")).read_all()
        assert table.column("match_id").to_pylist() == [x["match_id"] for x in rows]
        assert table.column("players").to_pylist() == [x["players"] for x in rows]

    r = coreflow("audit", sql, "--store", "s.db", "--format", "parquet", home=home)
    assert r.returncode == 2
    assert r.stderr == "coreflow: --format parquet writes a file: give --out FILE\n"


def test_a_file_is_written_whole_or_left_as_it_was(home: Path) -> None:
    """A query that fails, is refused or is stopped leaves --out as it was, and no
    half-written file beside it; the SQL itself still writes nothing (COPY is refused)."""
    target = home / "kept.parquet"
    target.write_bytes(b"before")
    before = sorted(p.name for p in home.iterdir())
    for sql, fmt in (("SELECT nope FROM matches", "parquet"),
                     ("COPY matches TO 'kept.parquet' (FORMAT parquet)", "parquet"),
                     (SLOW, "parquet"), (SLOW, "csv")):
        r = coreflow("audit", sql, "--store", "s.db", "--format", fmt, "--out", target,
                     "--timeout", "1", home=home)
        assert r.returncode == 1, (sql, r.stderr)
        assert target.read_bytes() == b"before"
        assert sorted(p.name for p in home.iterdir()) == before
    r = coreflow("audit", "COPY matches TO 'x.parquet' (FORMAT parquet)", "--store", "s.db",
                 home=home)
    assert r.stderr.startswith("coreflow: refused (the audit database is read-only)")
    assert not (home / "x.parquet").exists()


def test_files_at_the_prompt(home: Path) -> None:
    script = (".mode parquet\nSELECT 1 AS n;\n.once one.parquet\nSELECT 1 AS n;\n"
              ".output each.parquet\nSELECT 2 AS n;\nSELECT 3 AS n UNION ALL SELECT 4;\n")
    r = coreflow("audit", "--store", "s.db", home=home, stdin=script)
    assert r.returncode == 1
    assert r.stderr == ("coreflow: .mode parquet writes a file: name it first with .once FILE "
                        "(or .output FILE)\n")
    assert r.stdout == ("(1 row written to one.parquet)\n(1 row written to each.parquet)\n"
                        "(2 rows written to each.parquet)\n")
    con = duckdb.connect()
    assert con.execute(f"FROM '{home / 'one.parquet'}'").fetchall() == [(1,)]
    assert con.execute(f"FROM '{home / 'each.parquet'}' ORDER BY 1").fetchall() == [(3,), (4,)]
    r = coreflow("audit", "--store", "s.db", "--format", "csv", "--out", "both.csv", home=home,
                 stdin="SELECT 1 AS a;\nSELECT 2 AS b;\n")  # --out at the prompt: .output
    assert (r.returncode, r.stdout) == (0, "")
    assert (home / "both.csv").read_text() == "a\n1\nb\n2\n"


# ------------------------------------------------------------------ one audit file per store


def test_two_stores_in_one_folder_have_an_audit_file_each(tmp_path: Path) -> None:
    """Each store its own audit file, named after it: auditing one never rebuilds the
    other's; matches and standings read the same file; a shared --audit is rebuilt for
    each store, and that is said."""
    folder = tmp_path
    for store, log in (("a.db", SAMPLE), ("b.db", DISPUTED)):
        assert coreflow("record", log, "--store", store, home=folder).returncode == 0
    ids = {}
    for store in ("a.db", "b.db", "a.db"):
        r = coreflow("audit", "SELECT match_id FROM matches", "--store", store,
                     "--format", "csv", home=folder)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        ids[store] = r.stdout.splitlines()[1:]
    assert ids == {"a.db": ["sample-2026-r3-t7"], "b.db": ["demo-1"]}
    audits = sorted(p.name for p in folder.glob("*.duckdb"))
    assert audits == ["a.db.audit.duckdb", "b.db.audit.duckdb"]
    before = (folder / "a.db.audit.duckdb").read_bytes()
    for command in ("matches", "standings"):
        assert coreflow(command, "--store", "b.db", home=folder).returncode == 0
    assert sorted(p.name for p in folder.glob("*.duckdb")) == audits  # b's own file read
    assert (folder / "a.db.audit.duckdb").read_bytes() == before

    r = coreflow("matches", "--store", "a.db", "--audit", "shared.duckdb", home=folder)
    assert r.returncode == 0 and r.stderr == ""
    r = coreflow("audit", "SELECT match_id FROM matches", "--store", "b.db", "--audit",
                 "shared.duckdb", "--format", "csv", home=folder)
    assert r.stdout == "match_id\ndemo-1\n"
    assert r.stderr == (f"coreflow: audit: shared.duckdb had been built from another store "
                        f"({folder / 'a.db'}): rebuilt for this one (each store has an audit "
                        "file of its own unless --audit or $COREFLOW_AUDIT names one)\n")


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_postgresql_stores_have_an_audit_file_each(tmp_path: Path) -> None:
    """Two PostgreSQL stores (two schemas of one database): an audit file each, in the
    user's cache, whichever directory the command runs in; matches reads the same one."""
    from benchmarks.tournament import drop_postgres_schema, postgres_store

    assert POSTGRES_URL
    stores = [postgres_store(POSTGRES_URL, f"coreflow_prompt_{uuid.uuid4().hex[:10]}")
              for _ in range(2)]
    try:
        for store, log in zip(stores, (SAMPLE, DISPUTED), strict=True):
            assert coreflow("record", log, "--store", store, home=tmp_path).returncode == 0
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        for store, where, expected in ((stores[0], tmp_path, "sample-2026-r3-t7"),
                                       (stores[1], tmp_path, "demo-1"),
                                       (stores[0], elsewhere, "sample-2026-r3-t7")):
            r = subprocess.run([*COREFLOW, "audit", "SELECT match_id FROM matches", "--store",
                                store, "--format", "csv"], capture_output=True, text=True,
                               cwd=where, env=_env(tmp_path), timeout=180)
            assert r.returncode == 0 and r.stderr == "", r.stderr
            assert r.stdout.splitlines()[1:] == [expected]
        cache = tmp_path / ".cache" / "coreflow" / "audit"
        files = sorted(p.name for p in cache.glob("*.duckdb"))
        database = POSTGRES_URL.rsplit("/", 1)[1].split("?")[0]
        assert len(files) == 2 and all(
            f.startswith(f"postgresql-{database}-coreflow_prompt_") for f in files), files
        assert coreflow("matches", "--store", stores[1], home=tmp_path).returncode == 0
        assert sorted(p.name for p in cache.glob("*.duckdb")) == files
        assert not list(tmp_path.glob("*.duckdb")) and not list(elsewhere.glob("*.duckdb"))
    finally:
        for store in stores:
            drop_postgres_schema(store)
