"""Errors that name something (issue 12): each failure below used to be an "internal error"
or a message naming nothing; now it is one line on stderr that names the input at fault
and its real cause, with exit status 1 or 2, and nothing is changed.
"""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.test_bad_input import DISPUTED, invoke, one_line

POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")
needs_postgres = pytest.mark.skipif(not POSTGRES_URL,
                                    reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


STORE_COMMANDS = [("record", str(DISPUTED)), ("log", "demo-1"), ("board", "demo-1"),
                  ("audit", "SELECT 1")]


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=[a[0] for a in STORE_COMMANDS])
def test_a_port_that_is_not_a_number(args: tuple[str, str]) -> None:
    r = invoke(*args, "--store", "postgresql://host:notaport/db")
    assert r.exit_code == 2
    assert one_line(r.stderr) == ("coreflow: postgresql://host:notaport/db: the port "
                                  "'notaport' is not a number (postgresql://user@host:5432/dbname)")


def test_postgres_refused_names_the_refusal() -> None:
    url = f"postgresql://postgres@127.0.0.1:{_free_port()}/coreflow"
    for args in STORE_COMMANDS:
        r = invoke(*args, "--store", url)
        assert r.exit_code == 2, args
        message = one_line(r.stderr)
        assert message.startswith(f"coreflow: cannot open the event store {url}: "), message
        assert "Connection refused" in message, message


def test_postgres_unknown_host_names_the_host() -> None:
    url = "postgresql://postgres@no-such-host.invalid:5432/coreflow"
    r = invoke("record", DISPUTED, "--store", url)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(
        f"coreflow: cannot open the event store {url}: failed to resolve host "
        "'no-such-host.invalid'")


def _with(url: str, *, user: str | None = None, dbname: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if user is not None:
        netloc = user + "@" + netloc.rpartition("@")[2]
    path = f"/{dbname}" if dbname is not None else parts.path
    return urlunsplit((parts.scheme, netloc, path, parts.query, parts.fragment))


@needs_postgres
def test_postgres_no_such_database_or_user() -> None:
    assert POSTGRES_URL is not None
    url = _with(POSTGRES_URL, dbname="coreflow_no_such_db")
    r = invoke("log", "demo-1", "--store", url)
    assert r.exit_code == 2
    assert one_line(r.stderr).endswith('database "coreflow_no_such_db" does not exist')
    url = _with(POSTGRES_URL, user="coreflow_no_such_user")
    r = invoke("log", "demo-1", "--store", url)
    assert r.exit_code == 2
    message = one_line(r.stderr)
    assert 'role "coreflow_no_such_user" does not exist' in message or \
        'authentication failed for user "coreflow_no_such_user"' in message, message


def _foreign_event_store(path: Path) -> bytes:
    """Another program's SQLite database with a table named stored_events."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE stored_events (id INTEGER PRIMARY KEY, name TEXT, body BLOB)")
    con.execute("INSERT INTO stored_events (name, body) VALUES ('invoice', x'00ff')")
    con.commit()
    con.close()
    return path.read_bytes()


@pytest.mark.parametrize("args", STORE_COMMANDS, ids=[a[0] for a in STORE_COMMANDS])
def test_a_foreign_stored_events_table(tmp_path: Path, args: tuple[str, str]) -> None:
    store = tmp_path / "other.db"
    before = _foreign_event_store(store)
    r = invoke(*args, "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: cannot use {store} as the event store: a SQLite database of another "
        "program: its stored_events table has the columns body, id, name, not coreflow's; it "
        "was not changed")
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_export_onto_an_existing_file(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    target = tmp_path / "tables"
    target.write_text("keep me\n", encoding="utf-8")
    r = invoke("export", "--parquet", target, "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (f"coreflow: --parquet {target}: a file; give a directory to "
                                  "write the Parquet files to (it was not changed)")
    assert target.read_text(encoding="utf-8") == "keep me\n"


def test_update_extensions_at_the_prompt(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    r = invoke("audit", "--store", store, "--format", "csv",
               input="UPDATE EXTENSIONS;\nSELECT 41 + 1 AS n;\n")
    assert r.exit_code == 1
    assert one_line(r.stderr).startswith("coreflow: refused (the audit database is read-only): "
                                         "'UPDATE EXTENSIONS;' is not a query")
    assert r.stdout.splitlines() == ["n", "42"]  # the prompt went on
    r = invoke("audit", "UPDATE EXTENSIONS", "--store", store)
    assert r.exit_code == 1 and one_line(r.stderr).startswith("coreflow: refused")
