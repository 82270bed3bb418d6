"""The ``coreflow audit`` prompt: statements and dot commands, as DuckDB's and psql's are.

A session reads lines, from a terminal (line editing and history through the standard
library's ``readline``, where Python has it) or from a pipe, and runs each statement as
soon as a ``;`` outside a string, a quoted name or a comment ends it (several on one
line run one after another). A line that starts with ``.`` where a statement would begin
is a dot command (:data:`COMMANDS`). On a terminal, Ctrl-C cancels the line being typed or
the query running (its process is ended; the prompt goes on) and Ctrl-D on an empty line
ends the session.

History: every statement (a statement of several lines is one entry) and dot command typed
at a terminal is kept in ``$COREFLOW_AUDIT_HISTORY``, else ``~/.coreflow_audit_history``
(the last :data:`HISTORY_SIZE`; the file is the user's alone, mode 0600; an empty
``$COREFLOW_AUDIT_HISTORY`` keeps none).
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from coreflow_judge.audit.projection import AuditDB
    from coreflow_judge.cli.audit import OutFormat

HISTORY_ENV_VAR = "COREFLOW_AUDIT_HISTORY"
HISTORY_FILE = ".coreflow_audit_history"
"""The history file's name in the user's home directory."""
HISTORY_SIZE = 1000
"""History entries kept (the file is cut back to these when a session starts)."""
_NEWLINE = "\x01"
"""How a newline inside a history entry is stored: one entry, one line of the file (psql
stores its multi-line entries the same way)."""

PROMPT, MORE = "audit> ", "  ...> "

MODE_NAMES = {"jsonlines": "json"}
"""DuckDB's names for a mode coreflow calls otherwise (``json`` is JSON Lines here)."""

COMMANDS: dict[str, str] = {
    ".help": "this list",
    ".tables [PATTERN]": "the audit tables (PATTERN: LIKE-style, % and _)",
    ".schema [PATTERN]": "the tables' CREATE TABLE statements, each column's meaning as a "
                         "comment",
    ".mode [MODE]": "how answers are written: table, markdown, csv, json (one object per "
                    "line; jsonlines too), line; parquet, arrow to a file (.once/.output). "
                    "Alone: the mode now",
    ".once FILE": "write the next answer to FILE (written whole, or left as it was)",
    ".output [FILE]": "write the answers to FILE from now on (parquet, arrow: each answer "
                      "replaces it); alone: back to the screen",
    ".timer on|off": "say how long each statement took",
    ".quit, .exit": "end the session (Ctrl-D too)",
}
"""The dot commands of the prompt (and of ``coreflow audit ".COMMAND"``) and what they do.
``.format MODE`` is kept as another name of ``.mode MODE``."""


# ------------------------------------------------------------------ statements


def split_statements(text: str) -> tuple[list[str], str]:
    """The complete statements of ``text`` (each ending with its ``;``) and what is left
    after the last one (a statement not yet ended).

    A ``;`` ends a statement only outside a '...' string, a "..." name, a $tag$ ... $tag$
    string, a ``--`` comment and a ``/* ... */`` comment, so a string holding a ``;`` at the
    end of a line does not cut the statement. Only where statements end is decided here:
    each one is still checked and run by the sandbox, on its own.
    """
    done: list[str] = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            close = text.find(c, i + 1)
            i = n if close < 0 else close + 1  # '' inside a string: two strings in a row
            continue
        if c == "-" and text.startswith("--", i):
            close = text.find("\n", i)
            i = n if close < 0 else close + 1
            continue
        if c == "/" and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
            continue
        if c == "$":
            end = text.find("$", i + 1)
            tag = text[i:end + 1] if end > 0 else ""
            if tag and (tag == "$$" or tag[1:-1].replace("_", "a").isalnum()) and \
                    not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
                close = text.find(tag, end + 1)
                i = n if close < 0 else close + len(tag)
                continue
        if c == ";":
            statement = text[start:i + 1].strip()
            if statement.strip(";").strip():
                done.append(statement)
            start = i + 1
        i += 1
    return done, text[start:]


# ------------------------------------------------------------------ history


class History:
    """The prompt's history on a terminal: kept in memory by readline, in a file of the
    user's own (one entry per line, newlines inside an entry stored as ``\\x01``)."""

    def __init__(self, readline: ModuleType | None) -> None:
        self.readline = readline
        env = os.environ.get(HISTORY_ENV_VAR)
        self.path: Path | None = (Path(env).expanduser() if env else None) if env is not None \
            else Path.home() / HISTORY_FILE
        self.last: str | None = None

    def load(self) -> None:
        """The file's entries into readline's history (cut back to the last
        :data:`HISTORY_SIZE` in the file too)."""
        if self.readline is None or self.path is None:
            return
        try:
            entries = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        if len(entries) > HISTORY_SIZE:
            entries = entries[-HISTORY_SIZE:]
            self._write("".join(e + "\n" for e in entries), "w")
        for entry in entries:
            if entry:
                self.readline.add_history(entry.replace(_NEWLINE, "\n"))
        self.last = entries[-1].replace(_NEWLINE, "\n") if entries else None

    def add(self, entry: str) -> None:
        """One statement or dot command: recalled by arrow-up, and kept in the file (not
        the same entry twice in a row)."""
        entry = entry.strip()
        if self.readline is None or not entry or entry == self.last:
            return
        self.last = entry
        self.readline.add_history(entry)
        if self.path is not None:
            self._write(entry.replace("\n", _NEWLINE) + "\n", "a")

    def _write(self, text: str, mode: str) -> None:
        assert self.path is not None
        try:
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
            fd = os.open(self.path, flags, 0o600)
            with open(fd, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError:
            pass  # a history that cannot be kept is no reason to stop a session


def _readline() -> ModuleType | None:
    """The standard library's readline, set up for the prompt, or None where Python was
    built without it."""
    try:
        import readline
    except ImportError:  # pragma: no cover - a Python built without readline
        return None
    if hasattr(readline, "set_auto_history"):
        readline.set_auto_history(False)  # a statement, not each of its lines, is an entry
    readline.set_history_length(-1)
    return readline


def _enable_completion(readline: ModuleType) -> None:
    """Tab completes the tables, their columns, the dot commands and common keywords."""
    from coreflow_judge.audit.schema import TABLES

    keywords = ["SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT",
                "JOIN", "USING", "DISTINCT", "COUNT", "WITH", "DESCRIBE", "SUMMARIZE",
                "EXPLAIN", "SHOW", "TABLES"]
    words = sorted({*TABLES, *(c for cols in TABLES.values() for c, _t, _m in cols)})
    dots = [c.split()[0].rstrip(",") for c in COMMANDS] + [".exit", ".format"]

    def complete(text: str, state: int) -> str | None:
        if text.startswith("."):
            options = [d for d in dots if d.startswith(text)]
        else:
            low = text.lower()
            options = [w for w in words if w.startswith(low)]
            options += [k if text[:1].isupper() or not text else k.lower()
                        for k in keywords if k.lower().startswith(low)]
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n,;()=<>'\"")
    readline.parse_and_bind("tab: complete")


# ------------------------------------------------------------------ the session


class Cancelled:
    """Ctrl-C while a line was being typed: that line and the statement begun go."""


CANCELLED = Cancelled()


class Session:
    """An audit session's state: the mode answers are written in, where they go, the
    timer; runs statements and dot commands. ``failed`` is set by any that failed."""

    def __init__(self, auditdb: AuditDB | None, fmt: OutFormat, stdout: TextIO,
                 timeout: float | None, say: Callable[[str], None]) -> None:
        self.auditdb = auditdb
        self.mode = fmt
        self.stdout = stdout
        self.timeout = timeout
        self.say = say
        self.failed = False
        self.timer = False
        self.output: TextIO | None = None
        self.output_path: Path | None = None
        self.once: Path | None = None

    # ---------------------------------------------------------------- statements
    def run(self, sql: str) -> None:
        """One statement: its answer written where the session writes answers; a failure
        said in one line on stderr (the session goes on)."""
        from coreflow_judge.audit.projection import AuditError
        from coreflow_judge.cli.audit import FILE_ONLY, run_to, write_file

        assert self.auditdb is not None
        once, self.once = self.once, None
        started = time.monotonic()
        try:
            target = once or (self.output_path if self.mode in FILE_ONLY else None)
            if self.mode in FILE_ONLY and target is None:
                raise AuditError(f".mode {self.mode.value} writes a file: name it first with "
                                 ".once FILE (or .output FILE)")
            if target is not None:
                if target == self.output_path and self.output is not None:
                    self.output.close()  # a file format replaces the file
                    self.output = None
                rows = write_file(self.auditdb, sql, self.mode, self.timeout, target)
                if rows is not None:
                    self.stdout.write(f"({rows} row{'s' if rows != 1 else ''} written to "
                                      f"{target})\n")
            else:
                run_to(self.auditdb, sql, self.mode, self.timeout, self._text_out())
        except AuditError as exc:
            self.failed = True
            self._flush()
            self.say(str(exc))
        finally:
            if self.timer:
                self._flush()
                self.stdout.write(f"Run Time (s): real {time.monotonic() - started:.3f}\n")
            self._flush()

    def _text_out(self) -> TextIO:
        """Where a text answer goes: the ``.output`` file (opened again, emptied, after a
        file format replaced it), else the screen."""
        if self.output is None and self.output_path is not None:
            from coreflow_judge.audit.projection import AuditError

            try:
                self.output = self.output_path.open("w", encoding="utf-8", newline="")
            except OSError as exc:
                raise AuditError(f".output {self.output_path}: cannot write it: "
                                 f"{exc.strerror or exc}") from exc
        return self.output or self.stdout

    def _flush(self) -> None:
        for stream in (self.output, self.stdout):
            if stream is not None:
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass

    def close(self) -> None:
        if self.output is not None:
            self.output.close()
        self.output = self.output_path = None

    # ---------------------------------------------------------------- dot commands
    def command(self, line: str) -> bool:
        """One dot command; False when it ends the session (``.quit``, ``.exit``)."""
        from coreflow_judge.cli.audit import OutFormat

        word, _, rest = line.strip().partition(" ")
        arg = rest.strip()
        if len(arg) > 1 and arg[0] == arg[-1] and arg[0] in "'\"":
            arg = arg[1:-1]  # .once 'a file.csv'
        if word in (".quit", ".exit"):
            return False
        if word == ".help":
            width = max(len(c) for c in COMMANDS)
            self.stdout.write("".join(f"{c.ljust(width)}  {what}\n"
                                      for c, what in COMMANDS.items()))
        elif word == ".tables":
            self.stdout.write("".join(f"{t}\n" for t in self._tables(arg)))
        elif word == ".schema":
            self.stdout.write(self._schema(arg))
        elif word in (".mode", ".format"):
            if not arg:
                self.stdout.write(f"{self.mode.value}\n")
            elif MODE_NAMES.get(arg, arg) in OutFormat.__members__:
                self.mode = OutFormat(MODE_NAMES.get(arg, arg))
            else:
                return self._wrong(f"{word} {arg!r}: the modes are "
                                   f"{', '.join(OutFormat.__members__)}")
        elif word == ".once":
            if not arg:
                return self._wrong(".once needs a FILE to write the next answer to")
            self.once = Path(arg).expanduser()
        elif word == ".output":
            self.output_to(arg)
        elif word == ".timer":
            if arg not in ("on", "off"):
                return self._wrong(".timer on or .timer off")
            self.timer = arg == "on"
        else:
            return self._wrong(f"unknown command {line.strip()!r}: the commands are "
                               f"{', '.join(c.split()[0].rstrip(',') for c in COMMANDS)}, "
                               ".exit (.help says what each does)")
        self.stdout.flush()
        return True

    def _wrong(self, message: str) -> bool:
        self.failed = True
        self.stdout.flush()
        self.say(message)
        return True

    def output_to(self, arg: str) -> None:
        """``.output FILE``: the answers go to FILE from now on; ``""``: to the screen."""
        from coreflow_judge.audit.projection import AuditError
        from coreflow_judge.cli.audit import FILE_ONLY

        self.close()
        if not arg:
            return
        self.output_path = Path(arg).expanduser()
        if self.mode in FILE_ONLY:
            return  # each answer written whole when it comes
        try:
            self._text_out()  # emptied now, as DuckDB's .output does
        except AuditError as exc:
            self.output_path = None
            self._wrong(str(exc))

    @staticmethod
    def _tables(pattern: str) -> list[str]:
        from coreflow_judge.audit.schema import TABLES

        if not pattern:
            return list(TABLES)
        glob = pattern.replace("*", "[*]").replace("?", "[?]").replace("%", "*") \
            .replace("_", "?")
        return [t for t in TABLES if fnmatch.fnmatchcase(t, glob)]

    def _schema(self, pattern: str) -> str:
        from coreflow_judge.audit.schema import TABLES

        out = []
        for table in self._tables(pattern):
            cols = TABLES[table]
            width = max(len(f'{c} {t}') for c, t, _m in cols) + 1
            body = [f"  {(f'{c} {t}' + (',' if k < len(cols) - 1 else '')).ljust(width)}"
                    f" -- {meaning}" for k, (c, t, meaning) in enumerate(cols)]
            out.append(f"CREATE TABLE {table} (\n" + "\n".join(body) + "\n);\n")
        return "".join(out)


# ------------------------------------------------------------------ reading


def _piped_lines(stdin: TextIO) -> Iterator[str | Cancelled]:
    for raw in stdin:
        yield raw.rstrip("\n")


def _screen(stdout: TextIO) -> TextIO:
    """The terminal: ``stdout``, or stderr when the answers go to a file or a pipe."""
    return stdout if stdout.isatty() else sys.stderr


def _terminal_lines(prompt: Callable[[], str], stdout: TextIO) -> Iterator[str | Cancelled]:
    """Lines typed at the terminal (``input``: readline's line editing where loaded);
    Ctrl-C gives :data:`CANCELLED`, Ctrl-D ends. The prompt goes to the terminal: to
    stderr when the answers go to a file or a pipe."""
    to_screen = stdout.isatty()
    while True:
        try:
            if to_screen:
                yield input(prompt())
            else:
                sys.stderr.write(prompt())
                sys.stderr.flush()
                yield input()
        except KeyboardInterrupt:
            _screen(stdout).write("^C\n")
            _screen(stdout).flush()
            yield CANCELLED
        except EOFError:
            _screen(stdout).write("\n")
            return


def interactive(session: Session, stdin: TextIO, stdout: TextIO) -> None:
    """Read and run statements and dot commands until the end of the input or ``.quit``.

    On a terminal (``stdin`` one), a prompt, line editing and history, and Ctrl-C cancels
    the line being typed or the query running; from a pipe, the lines as they come (a
    last statement without ``;`` runs at the end of the input) and Ctrl-C stops the
    command.
    """
    terminal = stdin.isatty()
    history: History | None = None
    text = ""  # the statement begun and not yet ended
    typed: list[str] = []  # the lines typed since no statement was begun (one history entry)
    if terminal:
        readline = _readline()
        if readline is not None:
            _enable_completion(readline)
        history = History(readline)
        history.load()
        lines = _terminal_lines(lambda: MORE if text.strip() else PROMPT, stdout)
    else:
        lines = _piped_lines(stdin)
    try:
        for item in lines:
            if isinstance(item, Cancelled):
                text, typed = "", []
                continue
            for line in item.split("\n"):  # a recalled entry may hold several lines
                if not text.strip() and line.lstrip().startswith("."):
                    if history is not None:
                        history.add(line)
                    if not session.command(line):
                        return
                    continue
                typed.append(line)
                done, text = split_statements(f"{text}{line}\n")
                if not text.strip():
                    if history is not None and done:
                        history.add("\n".join(typed))
                    typed, text = [], ""
                for statement in done:
                    if not _cancellable(session, statement, terminal, stdout):
                        break
        if text.strip():
            session.run(text)
    finally:
        session.close()


def _cancellable(session: Session, sql: str, terminal: bool, stdout: TextIO) -> bool:
    """Run one statement; on a terminal, Ctrl-C cancels it (its process is ended, the
    answer stops where it was) and the session goes on. False when it was cancelled."""
    if not terminal:
        session.run(sql)
        return True
    try:
        session.run(sql)
        return True
    except KeyboardInterrupt:
        try:
            stdout.flush()
            _screen(stdout).write("\n")  # after the terminal's ^C
        except OSError:
            pass
        session.say("query cancelled (Ctrl-C); the session goes on")
        return False
