"""``coreflow audit`` and ``coreflow export``: read-only SQL over the recorded matches.

``coreflow audit "SQL"`` refreshes the audit database (a DuckDB read model of the event
store, see :mod:`audit`) and runs one read-only query on it; ``coreflow audit`` alone
reads queries from stdin (a prompt when stdin is a terminal) until EOF or ``.quit``.
``coreflow export --parquet DIR`` writes every audit table as Parquet.

Exit status: 0 done, 1 the query failed or was refused (one line on stderr, never a
traceback), 2 the store or the audit database could not be opened.

DuckDB and the audit read model are imported when a command runs, not when the
``coreflow`` command starts (its help, or judging a log, never needs them).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
from coreflow_judge.cli import progress
from coreflow_judge.cli.options import StoreOption
from coreflow_judge.events.printable import bounded, escaped, json_escaped

if TYPE_CHECKING:
    from coreflow_judge.audit.projection import AuditDB, Stream

EXIT_OK, EXIT_NO, EXIT_INPUT = 0, 1, 2
DEFAULT_TIMEOUT = 60.0
"""audit.projection.DEFAULT_TIMEOUT (tests/test_cli_conventions.py checks that they agree)."""


class OutFormat(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


TimeoutOpt = Annotated[
    float,
    typer.Option("--timeout", metavar="SECONDS", min=0,
                 help="Stop a query that runs longer than this (0: no limit)."),
]
MemoryOpt = Annotated[
    str | None,
    typer.Option("--memory-limit", metavar="SIZE", help="The most memory DuckDB may use, "
                 "e.g. 512MB, 2GB [default: $COREFLOW_AUDIT_MEMORY, else 1GB]; a query "
                 "that needs more is stopped.", show_default=False),
]
AuditOpt = Annotated[
    Path | None,
    typer.Option("--audit", help="The audit DuckDB file [default: $COREFLOW_AUDIT, else "
                 "coreflow-audit.duckdb next to the store].", show_default=False),
]


def _say(message: str) -> None:
    progress.clear()
    typer.echo(f"coreflow: {bounded(message)}", err=True)


# ------------------------------------------------------------------ rendering


def _cell(value: Any) -> str:
    """One value as the table and CSV print it: a string the log gave is escaped (a
    newline, a terminal escape or a right-to-left override in a note is shown as an
    escape, never carried out)."""
    if isinstance(value, str):
        return escaped(value)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        spec = "seconds" if not value.microsecond else (
            "milliseconds" if value.microsecond % 1000 == 0 else "microseconds")
        return value.isoformat(sep=" ", timespec=spec)
    if isinstance(value, timedelta):
        return _interval(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _interval(value: timedelta) -> str:
    """``[-][N days ]HH:MM:SS[.fff]``: an INTERVAL as DuckDB prints it, to the millisecond."""
    sign = "-" if value < timedelta(0) else ""
    ms = round(abs(value).total_seconds() * 1000)
    days, ms = divmod(ms, 86_400_000)
    h, ms = divmod(ms, 3_600_000)
    m, ms = divmod(ms, 60_000)
    sec, ms = divmod(ms, 1000)
    text = f"{h:02d}:{m:02d}:{sec:02d}" + (f".{ms:03d}" if ms else "")
    return sign + (f"{days} day{'s' if days != 1 else ''} " if days else "") + text


def _numeric(type_name: str) -> bool:
    t = type_name.upper()
    return t.startswith(("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "UBIGINT",
                         "UINTEGER", "DOUBLE", "FLOAT", "DECIMAL", "REAL"))


def write_table(stream: Stream, out: TextIO) -> None:
    """A pipe table (Markdown-compatible); numbers right-aligned; the row count last.

    Columns are as wide as the header and the first batch of rows need (a later, wider
    value widens its own row only): the rows are written as they come, never held whole.
    """
    header = stream.columns
    right = [_numeric(t) for t in stream.types]
    batches = iter(stream.batches)
    first = [[_cell(v) for v in row] for row in next(batches, [])]
    widths = [max([len(h)] + [len(r[i]) for r in first]) for i, h in enumerate(header)]

    def fmt(cells: Iterable[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w)
                 for c, w, r in zip(cells, widths, right, strict=True)]
        return "| " + " | ".join(parts) + " |\n"

    out.write(fmt(header))
    out.write("|" + "|".join(("-" * (w + 1) + ":") if r else "-" * (w + 2)
                             for w, r in zip(widths, right, strict=True)) + "|\n")
    n = len(first)
    out.writelines(fmt(r) for r in first)
    for batch in batches:
        out.writelines(fmt([_cell(v) for v in row]) for row in batch)
        n += len(batch)
    out.write(f"({n} row{'s' if n != 1 else ''})\n")


def write_csv(stream: Stream, out: TextIO) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(stream.columns)
    for batch in stream.batches:
        w.writerows(["" if v is None else _cell(v) for v in row] for row in batch)


def _json_value(value: Any, type_name: str) -> Any:
    if value is None:
        return None
    if type_name.upper() == "JSON" and isinstance(value, str):
        return json.loads(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list | tuple):
        return [_json_value(v, "") for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v, "") for k, v in value.items()}
    if isinstance(value, bytes):
        return value.hex()
    return value


def write_json(stream: Stream, out: TextIO) -> None:
    """JSON Lines: one object per row, JSON columns as JSON values."""
    for batch in stream.batches:
        for row in batch:
            obj = {c: _json_value(v, t)
                   for c, v, t in zip(stream.columns, row, stream.types, strict=True)}
            out.write(json_escaped(json.dumps(obj, ensure_ascii=False, default=str)) + "\n")


WRITE: dict[OutFormat, Callable[[Stream, TextIO], None]] = {
    OutFormat.table: write_table,
    OutFormat.csv: write_csv,
    OutFormat.json: write_json,
}


def run_to(auditdb: AuditDB, sql: str, fmt: OutFormat, timeout: float | None,
           out: TextIO) -> None:
    """Run one query in the sandbox, in a process of its own (killed past its time or
    memory limit), and write its rows to ``out`` as they come."""
    from coreflow_judge.audit.projection import isolated_query

    with isolated_query(auditdb.path, sql, timeout, auditdb.memory) as stream:
        WRITE[fmt](stream, out)
    out.flush()


# ------------------------------------------------------------------ commands


def _open(store: str | None, audit: Path | None, memory_limit: str | None = None) -> AuditDB:
    """The audit database of the store, refreshed (a progress line on a terminal while
    several matches are taken in); a missing SQLite store is an error. A record edited in
    the store after the audit took it in is taken in again, and said so."""
    from coreflow_judge.audit.projection import AuditDB, AuditError
    from coreflow_judge.events.store import store_env

    db = store_env(store).get("SQLITE_DBNAME")
    if db is not None and db != ":memory:" and not Path(db).exists():
        raise AuditError(f"no event store at {db} (record a log first: coreflow record LOG)")
    auditdb = AuditDB(audit, store, memory_limit)
    with progress.progress("audit: refresh") as bar:
        stats = auditdb.refresh(progress=lambda done, total: bar.update(done, total)
                                if total > 1 else None)
    for match_id in stats.edited:
        _say(f"audit: warning: the stored lines of match {match_id} changed after the audit "
             "took them in (the store was edited outside coreflow): its rows are derived "
             f"again from the store as it is now (coreflow verify {match_id} checks its "
             "chain)")
    for match_id in stats.unjudged:
        _say(f"audit: match {match_id} could not be judged (see matches.judge_error)")
    return auditdb


_ERRORS = (
    ("coreflow_judge.audit.projection", "QueryFailed", EXIT_NO),
    ("coreflow_judge.audit.projection", "AuditError", EXIT_INPUT),
    ("coreflow_judge.events.store", "StoreError", EXIT_INPUT),
)
"""(module, class, exit status) of the errors reported in one line, the first match wins;
looked up among the imported modules only (one never imported raised nothing)."""


def _guard(fn: Callable[[], int]) -> None:
    try:
        code = fn()
    except KeyboardInterrupt:
        _say("interrupted")
        raise typer.Exit(130) from None
    except Exception as exc:
        for module_name, name, status in _ERRORS:
            module = sys.modules.get(module_name)
            if module is not None and isinstance(exc, getattr(module, name)):
                _say(str(exc))
                raise typer.Exit(status) from None
        raise
    raise typer.Exit(code)


def audit_command(
    query: Annotated[str | None, typer.Argument(
        metavar="SQL", help="One query (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN...); without "
        "it, read queries from stdin until EOF or .quit.", show_default=False)] = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="Output format.")] =
    OutFormat.table,
    store: StoreOption = None,
    audit: AuditOpt = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    memory_limit: MemoryOpt = None,
) -> None:
    """Run read-only SQL over the recorded matches (DuckDB; refreshed from the store first).

    Tables: matches, events, requests, passes, chance_moves, resolutions, triggers, stage,
    findings, boards (docs/audit.md). Queries run in a sandbox that cannot write any file,
    each in a process of its own for at most --timeout seconds and --memory-limit of
    memory; rows are printed as they come.

    \b
    Example: coreflow audit "SELECT code, count(*) FROM findings GROUP BY code ORDER BY 2 DESC"
    """

    def run() -> int:
        auditdb = _open(store, audit, memory_limit)
        if query is not None:
            run_to(auditdb, query, fmt, timeout, sys.stdout)
            return EXIT_OK
        return _interactive(auditdb, fmt, sys.stdin, sys.stdout, timeout)

    _guard(run)


def _interactive(auditdb: AuditDB, fmt: OutFormat, stdin: TextIO, stdout: TextIO,
                 timeout: float | None = DEFAULT_TIMEOUT) -> int:
    """Statements end with ``;`` (or at the end of the input); ``.quit`` leaves.

    ``.tables`` lists the tables, ``.format table|csv|json`` switches the output. A
    failing statement prints its one-line message and the prompt goes on; the exit
    status is 1 if any statement failed.
    """
    from coreflow_judge.audit.projection import AuditError
    from coreflow_judge.audit.schema import TABLES

    tty = stdin.isatty()
    failed = False
    buffer: list[str] = []

    def prompt() -> None:
        if tty:
            stdout.write("audit> " if not buffer else "  ...> ")
            stdout.flush()

    def run(sql: str) -> None:
        nonlocal failed
        try:
            run_to(auditdb, sql, fmt, timeout, stdout)
        except AuditError as exc:
            failed = True
            stdout.flush()
            _say(str(exc))
        stdout.flush()

    prompt()
    for raw in stdin:
        line = raw.strip()
        if not buffer and line.startswith("."):
            word, _, arg = line.partition(" ")
            if word in (".quit", ".exit"):
                break
            if word == ".tables":
                stdout.write("\n".join(TABLES) + "\n")
            elif word == ".format" and arg.strip() in OutFormat.__members__:
                fmt = OutFormat(arg.strip())
            else:
                _say(f"unknown command {line!r} (.tables, .format table|csv|json, .quit)")
            prompt()
            continue
        if line:
            buffer.append(raw.rstrip("\n"))
        if buffer and line.endswith(";"):
            run("\n".join(buffer))
            buffer.clear()
        prompt()
    if buffer and "".join(buffer).strip():
        run("\n".join(buffer))
    if tty:
        stdout.write("\n")
    return EXIT_NO if failed else EXIT_OK


def export_command(
    parquet: Annotated[Path, typer.Option(
        "--parquet", metavar="DIR", help="Write every audit table as DIR/TABLE.parquet.",
        show_default=False)],
    store: StoreOption = None,
    audit: AuditOpt = None,
    memory_limit: MemoryOpt = None,
) -> None:
    """Export the audit tables (refreshed from the store first) as Parquet files.

    A progress line shows on a terminal while the store is taken in and the tables are
    written.

    Example: coreflow export --parquet audit-tables/
    """

    def run() -> int:
        auditdb = _open(store, audit, memory_limit)
        with progress.progress("export") as bar:
            written = auditdb.export_parquet(parquet, progress=bar.update)
        for path in written:
            typer.echo(str(path))
        return EXIT_OK

    _guard(run)


def register(app: typer.Typer) -> None:
    """Add ``audit`` and ``export`` to the ``coreflow`` command."""
    from coreflow_judge.cli.main import guarded  # the last line of defence: never a traceback

    app.command("audit")(guarded(audit_command))
    app.command("export")(guarded(export_command))
