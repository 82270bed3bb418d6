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
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
from coreflow_judge.cli import progress
from coreflow_judge.cli.options import AuditOption, StoreOption
from coreflow_judge.events.printable import bounded, escaped, json_escaped

if TYPE_CHECKING:
    from coreflow_judge.audit.projection import AuditDB, Stream

EXIT_OK, EXIT_NO, EXIT_INPUT = 0, 1, 2
DEFAULT_TIMEOUT = 60.0
"""audit.projection.DEFAULT_TIMEOUT (tests/test_cli_conventions.py checks that they agree)."""


class OutFormat(StrEnum):
    """How an answer is written: ``table`` (a pipe table and the row count), ``markdown``
    (the pipe table alone), ``csv``, ``json`` (JSON Lines), ``line`` (``column = value``
    lines); ``parquet`` and ``arrow`` (an Arrow IPC file) to a file only."""

    table = "table"
    markdown = "markdown"
    csv = "csv"
    json = "json"
    line = "line"
    parquet = "parquet"
    arrow = "arrow"


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


def write_table(stream: Stream, out: TextIO, count: bool = True) -> None:
    """A pipe table (Markdown-compatible); numbers right-aligned; the row count last
    (``count``; the ``markdown`` format leaves it out).

    Columns are as wide as the header and the first batch of rows need (a later, wider
    value widens its own row only): the rows are written as they come, never held whole.
    """
    header = [escaped(c) for c in stream.columns]
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
    if count:
        out.write(f"({n} row{'s' if n != 1 else ''})\n")


def write_markdown(stream: Stream, out: TextIO) -> None:
    """The pipe table without the row count: a Markdown table, as DuckDB's ``.mode
    markdown`` prints one."""
    write_table(stream, out, count=False)


def write_line(stream: Stream, out: TextIO) -> None:
    """One ``column = value`` line per value, the names right-aligned, a blank line
    between rows (DuckDB's and SQLite's ``.mode line``)."""
    names = [escaped(c) for c in stream.columns]
    width = max((len(n) for n in names), default=0)
    first = True
    for batch in stream.batches:
        for row in batch:
            if not first:
                out.write("\n")
            first = False
            out.writelines(f"{n.rjust(width)} = {_cell(v)}\n"
                           for n, v in zip(names, row, strict=True))


def write_csv(stream: Stream, out: TextIO) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow([escaped(c) for c in stream.columns])
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
    OutFormat.markdown: write_markdown,
    OutFormat.csv: write_csv,
    OutFormat.json: write_json,
    OutFormat.line: write_line,
}
FILE_ONLY = frozenset({OutFormat.parquet, OutFormat.arrow})
"""Formats written to a file only (``--out FILE``, ``.once FILE``, ``.output FILE``)."""


def run_to(auditdb: AuditDB, sql: str, fmt: OutFormat, timeout: float | None,
           out: TextIO) -> None:
    """Run one query in the sandbox, in a process of its own (killed past its time or
    memory limit), and write its rows to ``out`` as they come."""
    from coreflow_judge.audit.projection import isolated_query

    with isolated_query(auditdb.path, sql, timeout, auditdb.memory) as stream:
        WRITE[fmt](stream, out)
    out.flush()


def write_file(auditdb: AuditDB, sql: str, fmt: OutFormat, timeout: float | None,
               target: Path) -> int | None:
    """Run one query in the sandbox and write its answer to the file ``target``, whole or
    not at all (the file is written under a temporary name beside it, then renamed): a
    Parquet or Arrow file by :func:`audit.projection.isolated_write`, a text format by
    coreflow from the rows as they come. The number of rows (text formats: None)."""
    from coreflow_judge.audit.projection import AuditError, isolated_write

    if fmt in FILE_ONLY:
        return isolated_write(auditdb.path, sql, target, fmt.value, timeout, auditdb.memory)
    if target.is_dir():
        raise AuditError(f"cannot write the answer to {target}: a directory (give a file "
                         "name)")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part",
                                    dir=target.parent if str(target.parent) else ".")
    except OSError as exc:
        raise AuditError(f"cannot write the answer to {target}: "
                         f"{exc.strerror or exc}") from exc
    tmp = Path(name)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as out:
            run_to(auditdb, sql, fmt, timeout, out)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return None


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
    if stats.other_store is not None:
        _say(f"audit: {auditdb.path} had been built from another store ("
             f"{stats.other_store}): rebuilt for this one (each store has an audit file of "
             "its own unless --audit or $COREFLOW_AUDIT names one)")
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
        metavar="SQL", help="One query (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN...) or a dot "
        "command (.tables, .schema, .help); without it, a prompt: statements and dot "
        "commands from stdin until EOF or .quit.", show_default=False)] = None,
    fmt: Annotated[OutFormat, typer.Option(
        "--format", help="Output format: table, markdown, csv, json (JSON Lines), line; "
        "parquet or arrow (with --out; arrow needs pyarrow).")] = OutFormat.table,
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="FILE", help="Write the answer to FILE (whole, or not at all) "
        "instead of stdout; needed by parquet and arrow. At the prompt: .output FILE.",
        show_default=False)] = None,
    store: StoreOption = None,
    audit: AuditOption = None,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    memory_limit: MemoryOpt = None,
) -> None:
    """Run read-only SQL over the recorded matches (DuckDB; refreshed from the store first).

    Tables: matches, events, requests, passes, chance_moves, resolutions, triggers, stage,
    findings, boards (docs/audit.md). Queries run in a sandbox that cannot write any file,
    each in a process of its own for at most --timeout seconds and --memory-limit of
    memory; rows are printed as they come. The prompt keeps a history
    (~/.coreflow_audit_history), Ctrl-C cancels the line or the query, Ctrl-D ends;
    .help lists the dot commands.

    \b
    Example: coreflow audit "SELECT code, count(*) FROM findings GROUP BY code ORDER BY 2 DESC"
    Example: coreflow audit "SELECT * FROM findings" --format parquet --out findings.parquet
    """
    from coreflow_judge.cli.audit_prompt import Session, interactive

    if query is not None and query.lstrip().startswith("."):
        session = Session(None, fmt, sys.stdout, timeout, _say)
        session.command(query)  # the tables, their schema, the help: no store needed
        raise typer.Exit(EXIT_NO if session.failed else EXIT_OK)
    if fmt in FILE_ONLY and out is None and query is not None:
        _say(f"--format {fmt.value} writes a file: give --out FILE")
        raise typer.Exit(EXIT_INPUT)
    if fmt is OutFormat.arrow:
        from coreflow_judge.audit.projection import arrow_missing

        if (missing := arrow_missing()) is not None:
            _say(f"--format arrow: {missing}")
            raise typer.Exit(EXIT_INPUT)

    def run() -> int:
        auditdb = _open(store, audit, memory_limit)
        if query is not None:
            if out is not None:
                write_file(auditdb, query, fmt, timeout, out)
            else:
                run_to(auditdb, query, fmt, timeout, sys.stdout)
            return EXIT_OK
        session = Session(auditdb, fmt, sys.stdout, timeout, _say)
        if out is not None:
            session.output_to(str(out))
        interactive(session, sys.stdin, sys.stdout)
        return EXIT_NO if session.failed else EXIT_OK

    _guard(run)


def export_command(
    parquet: Annotated[Path, typer.Option(
        "--parquet", metavar="DIR", help="Write every audit table as DIR/TABLE.parquet.",
        show_default=False)],
    store: StoreOption = None,
    audit: AuditOption = None,
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
