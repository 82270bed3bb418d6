"""The ``coreflow`` command: record, rebuild, judge and check match logs.

Each command parses its arguments, calls one library function and prints the result;
no rule is decided here. Every failure is one line on stderr and an exit status, never a
traceback: 0 all well, 1 the answer is "no" (an error finding, a broken hash chain, a
match already recorded or not found), 2 the input could not be read or used.

Start-up is kept short: this module imports only typer and the game registry (whose
plugins load no rules); each command imports the library parts it uses when it runs, so
``coreflow --help`` never loads pydantic, eventsourcing or DuckDB, and judging a log
loads only its own game's rules.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec, TypeVar

import typer
from coreflow_judge.adjudicator.plugins import GamePlugin, game_of_bare_edition, games
from coreflow_judge.cli import progress
from coreflow_judge.cli.options import (
    JUDGE_VIEW,
    AuditOption,
    LangOption,
    StoreOption,
    ViewOption,
)
from coreflow_judge.events.printable import bounded, escaped, json_escaped
from typer.core import TyperCommand, TyperGroup

if TYPE_CHECKING:  # imported by the commands that use them, when they run
    from coreflow_judge.cli.receipts import ReceiptsFile
    from coreflow_judge.events.evidence import StoredChain
    from coreflow_judge.events.models import LogLine
    from coreflow_judge.events.reader import LineError
    from coreflow_judge.events.store import MatchRecorder

STDIN = "-"
"""The LOG that names standard input."""
STDIN_NAME = "<stdin>"
"""Standard input as messages and reports name it."""


class PlainUsage(TyperCommand):
    """A command whose usage line names its arguments as the help's own placeholders:
    ``coreflow judge [OPTIONS] LOG|MATCH_ID...`` (typer writes a required one in braces,
    ``{LOG|MATCH_ID}...``, which reads as a placeholder left unfilled)."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_unbraced(piece) for piece in super().collect_usage_pieces(ctx)]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _fill_help(self)
        super().format_help(ctx, formatter)

    def shell_complete(self, ctx: Any, incomplete: str) -> Any:
        _fill_help(self)  # an option's description, as a shell's completion shows it
        return super().shell_complete(ctx, incomplete)


GAMES_HELP = {
    "{installed games}": lambda: _games_text(),
    "{simulated editions}": lambda: _editions_text(),
    "{simulated formats}": lambda: _formats_text(),
}
"""Words of the help that list the installed games, filled in when a help is shown:
listing the games reads every installed distribution's entry points and loads every
game's plugin, which a command that judges one log never needs (issue 26)."""


def _fill_help(command: Any) -> None:
    """Fill :data:`GAMES_HELP`'s words into ``command``'s help and its options' helps."""
    for item in (command, *getattr(command, "params", ())):
        text = getattr(item, "help", None)
        if text and "{" in text:
            for word, fill in GAMES_HELP.items():
                if word in text:
                    text = text.replace(word, fill())
            item.help = text


def _unbraced(piece: str) -> str:
    match = re.fullmatch(r"\{([^{}]+)\}((?:\.\.\.)?)", piece)
    return match.group(1) + match.group(2) if match else piece


def _plain_usage(group: TyperGroup) -> None:
    """Every typer command of ``group`` and its sub-groups (``fixture``), also one added
    later by another module, gets :class:`PlainUsage`'s usage line."""
    for command in group.commands.values():
        if type(command) is TyperCommand:
            command.__class__ = PlainUsage
        elif isinstance(command, TyperGroup):
            _plain_usage(command)


class OneLineErrors(TyperGroup):
    """Usage errors (an unknown option, ``--format xml``, a missing argument) as one line on
    stderr and exit status 2, like every other error of the command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain_usage(self)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _fill_help(self)
        super().format_help(ctx, formatter)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False,
                              windows_expand_args=windows_expand_args, **extra)
        except Exception as exc:
            if type(exc).__name__ == "Abort":
                _say("aborted")
                code = EXIT_NO
            elif not _is_usage_error(exc):
                raise
            elif type(exc).__name__ == "NoArgsIsHelpError":  # bare ``coreflow``: the help
                text = exc.format_message()  # type: ignore[attr-defined]
                if text:
                    typer.echo(text)
                code = EXIT_INPUT
            else:
                _say(usage_error_text(exc))
                code = exc.exit_code  # type: ignore[attr-defined]
            if not standalone_mode:
                raise
            sys.exit(code)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else EXIT_OK)
        return rv


def _is_usage_error(exc: BaseException) -> bool:
    """A click usage error (typer may vendor click: recognised by its interface)."""
    return hasattr(exc, "format_message") and isinstance(getattr(exc, "exit_code", None), int)


def usage_error_text(exc: BaseException) -> str:
    """``judge: invalid value for '--format': 'xml' is not one of 'text', 'json' (...)``."""
    message = exc.format_message().replace("Value error, ", "")  # type: ignore[attr-defined]
    message = message[:1].lower() + message[1:]
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "coreflow"
    command = path.partition(" ")[2]
    where = f"{command}: " if command else ""
    return f"{where}{message.rstrip('.')} (see '{path} --help')"


def _game_text(game: GamePlugin) -> str:
    """``BlackPoker 6.1, 9.0 (lite)``: a game, its editions and formats."""
    return f"{game.name} {', '.join(game.editions)} ({', '.join(game.formats)})"


def _games_text() -> str:
    """The registered games, as the help names them."""
    return "; ".join(_game_text(g) for g in games()) or "none is installed"


def _editions_text() -> str:
    """The ``--rules`` values of ``simulate``: GAME/EDITION of each game with a simulator,
    and the bare editions of the game that takes them."""
    simulated = [g for g in games() if g.simulate is not None]
    full = [f"{g.id}/{e}" for g in simulated for e in g.editions]
    bare = game_of_bare_edition()
    short = list(bare.editions) if bare is not None and bare.simulate is not None else []
    return ", ".join(short + full) or "none"


def _rules_values(simulated: bool = False) -> str:
    """Every ``--rules`` value, game by game: ``blackpoker/6.1, blackpoker/9.0 (or 6.1,
    9.0), duel_masters/1.47, ...`` (``simulated``: the games with a simulator only)."""
    bare = game_of_bare_edition()
    out = []
    for g in games():
        if simulated and g.simulate is None:
            continue
        text = ", ".join(f"{g.id}/{e}" for e in g.editions)
        if bare is not None and g.id == bare.id:
            text += f" (or {', '.join(g.editions)})"
        out.append(text)
    return "; ".join(out) or "none is installed"


def check_rules(rules: str, simulated: bool = False) -> None:
    """A ``--rules`` value names an installed game and one of its editions, else a
    :class:`CliError` that lists every game and edition there is."""
    game_id, sep, edition = rules.partition("/")
    known = {g.id: g for g in games()}
    if sep:
        game = known.get(game_id)
        if game is None:
            said = f"no game {game_id!r} is installed"
        elif edition not in game.editions:
            said = f"{game.name} has no edition {edition!r}"
        elif simulated and game.simulate is None:
            said = f"{game.name} has no simulator"
        else:
            return
    else:
        bare = game_of_bare_edition()
        if bare is not None and rules in bare.editions:
            return
        said = (f"no game or edition {rules!r}" if bare is None else
                f"no game is named {rules!r}, and {bare.name} has no edition {rules!r}")
    games_said = "the games with a simulator" if simulated else "the games"
    raise CliError(f"--rules {rules!r}: {said}; {games_said}: {_rules_values(simulated)}")


def _formats_text() -> str:
    """The ``--format`` values of ``simulate``, game by game, the default first."""
    return "; ".join(
        f"{g.id}: {', '.join(sorted(g.formats, key=lambda f: f != g.default_format))}"
        for g in games() if g.simulate is not None)


app = typer.Typer(
    name="coreflow",
    cls=OneLineErrors,
    help="Record, rebuild and judge matches of interruptible turn-based card games: "
    "{installed games}.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Plain help, as click writes it: no Markdown to misread (a ``<table>`` taken for
    # HTML, a ``*`` for emphasis), and no Rich to import before the help shows.
    rich_markup_mode=None,
)

EXIT_OK, EXIT_NO, EXIT_INPUT = 0, 1, 2


class Format(StrEnum):
    text = "text"
    json = "json"


class CliError(Exception):
    """A failure the command reports as one line and an exit status."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.code = code


class RecordRefused(CliError):
    """A recorded match whose stored chain is broken: not used as evidence (exit 2)."""


def _say(message: str) -> None:
    """One line on stderr: escaped, and held to a size when it echoes a long value (a
    500 KB header field is shown by its start: :func:`~events.printable.bounded`)."""
    progress.clear()
    typer.echo(f"coreflow: {bounded(message)}", err=True)


def _fail(message: str, code: int) -> NoReturn:
    _say(message)
    raise typer.Exit(code)


P = ParamSpec("P")
R = TypeVar("R")

_KNOWN_ERRORS: tuple[tuple[str, tuple[str, ...], int, str], ...] = (
    ("coreflow_judge.adjudicator.judge", ("JudgeInputError",), EXIT_INPUT, ""),
    ("coreflow_judge.events.reader", ("LogReadError",), EXIT_INPUT, ""),
    ("coreflow_judge.projections.board", ("BoardQueryError",), EXIT_INPUT, ""),
    ("coreflow_judge.adjudicator.game", ("UnsupportedRules",), EXIT_INPUT, ""),
    ("coreflow_judge.projections.view", ("UnknownViewer",), EXIT_INPUT, ""),
    ("coreflow_judge.events.store", ("RecordConflict",), EXIT_NO, ""),
    ("coreflow_judge.events.store", ("MatchNotFound",), EXIT_INPUT, ""),
    ("coreflow_judge.events.store", ("LogRejected",), EXIT_INPUT, "; nothing was recorded"),
    ("coreflow_judge.events.store", ("StoreError",), EXIT_INPUT, ""),
    ("coreflow_judge._log", ("NoStore", "MatchNotRecorded", "RecordChanged"), EXIT_INPUT, ""),
    ("coreflow_judge.audit.projection", ("AuditError",), EXIT_INPUT, ""),
)
"""The library's errors a command reports as one line: (module, classes, exit status,
what the message adds), the first that matches wins."""


def known_error(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and message of a library error, or None for another exception.

    The classes are looked up among the modules already imported: an error of a module
    the command never imported cannot have been raised, and nothing is imported to ask.
    """
    for module_name, names, code, suffix in _KNOWN_ERRORS:
        module = sys.modules.get(module_name)
        if module is not None and isinstance(exc, tuple(getattr(module, n) for n in names)):
            return code, f"{exc}{suffix}"
    return None


def guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn every exception of a command into a message on stderr and an exit status."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        global _stdin_taken
        _stdin_taken = False  # each command may read standard input once
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except CliError as exc:
            _fail(str(exc), exc.code)
        except BrokenPipeError:
            # The reader went away (``| head``): stop quietly, as Unix tools do.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise typer.Exit(EXIT_NO) from None
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback
            known = known_error(exc)
            if known is not None:
                _fail(known[1], known[0])
            _fail(f"internal error ({type(exc).__name__}): {exc}", EXIT_INPUT)

    return wrapper


# ------------------------------------------------------------------ helpers


def _log_files(path: Path) -> list[Path]:
    """The file named, or a directory's ``*.jsonl`` files in name order (``-``: stdin)."""
    if _is_stdin(path) or not path.is_dir():
        return [path]
    files = sorted(p for p in path.glob("*.jsonl") if p.is_file())
    if not files:
        raise CliError(f"{path}: the directory holds no *.jsonl log")
    return files


def _is_match_id(target: str) -> bool:
    """A name that is no file path: no separator and no ``.jsonl`` (and not ``-``)."""
    return not target.endswith(".jsonl") and os.sep not in target and target != STDIN


def _is_stdin(path: Path | str) -> bool:
    """``-`` names standard input (``./-`` names a file called ``-``)."""
    return str(path) == STDIN


def _shown(path: Path | str) -> str:
    """A log as messages name it: its path, or ``<stdin>``."""
    return STDIN_NAME if _is_stdin(path) else str(path)


_stdin_taken = False


def _read_items(path: Path) -> list[tuple[int, LogLine | LineError]]:
    """Every line of a log file, or of standard input for ``-`` (read once: a second
    ``-`` in one command is refused), each a line model or the error that names its
    field; :class:`~events.reader.LogReadError` if the file cannot be opened."""
    from coreflow_judge.events.reader import bounded_lines, iter_lines, read_log

    if not _is_stdin(path):
        return read_log(path)
    global _stdin_taken
    if _stdin_taken:
        raise CliError(f"{STDIN_NAME}: standard input is read once; give '-' only once")
    _stdin_taken = True
    return list(iter_lines(bounded_lines(sys.stdin.buffer)))


def _means_recorded(name: str, store: str | None, doing: str) -> bool:
    """Whether a LOG|MATCH_ID argument names a recorded match rather than a file.

    A name with a ``/`` or ending in ``.jsonl`` is a file; a name that is no file is a
    match id. A bare name that is both a file here and a match recorded in the store is
    the recorded match when ``--store`` is given, else the file, and a note on stderr
    says which was taken and how to name the other.
    """
    if not _is_match_id(name):
        return False
    if not Path(name).exists():
        return True
    where = _also_recorded(name, store)
    if where is None:
        return False
    if store is not None:
        _say(f"note: {name!r} is both a file here and a match recorded in {where}; "
             f"{doing} the recorded match (./{name} names the file)")
        return True
    _say(f"note: {name!r} is both a file here and a match recorded in {where}; {doing} the "
         f"file (--store {where} {name} names the recorded match)")
    return False


def _also_recorded(name: str, store: str | None) -> str | None:
    """The store's name when ``name`` is also the id of a match recorded there."""
    if not MATCH_ID.fullmatch(name):
        return None
    from coreflow_judge.events.store import StoreError, store_env

    db = store_env(store).get("SQLITE_DBNAME")
    if db is not None and (":memory:" in db or not Path(db).is_file()):
        return None
    try:
        with _recorder(store, reading=True) as recorder:
            recorder.load(name)
    except (StoreError, CliError):  # not recorded, or no store to ask: the file it is
        return None
    return _store_name(store)


MATCH_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")


def _recorded(match_id: str, store: str | None, as_written: bool = False,
              file_too: bool = True) -> list[LogLine]:
    """The stored lines of a recorded match, checked as evidence (the store is only read,
    never created); ``as_written``: the lines the table wrote, numbered as it numbered them
    (what judge and board rule on, so that their line numbers are the table's own).
    ``file_too``: the name could have been a log file (the message says it is neither).

    A record changed outside coreflow (a row edited, swapped, deleted, its hashes or
    table numbers removed), or with ``COREFLOW_SIGNING_KEY`` set one not signed with it, is
    no evidence: refused, naming the match and the first bad seq. A record of an older
    coreflow is read with a note on stderr saying what no chain covers."""
    from coreflow_judge.events.store import MatchNotFound
    from coreflow_judge.events.store import RecordRefused as Refused

    try:
        with _recorder(store, reading=True) as recorder:
            try:
                chain, record = recorder.evidence(match_id)
            except MatchNotFound:
                raise _not_recorded(match_id, store, recorder, file_too) from None
            except Refused as exc:  # a record changed outside coreflow is no evidence
                raise RecordRefused(str(exc)) from None
    except RecordRefused:
        raise
    except CliError as exc:
        if file_too and match_id not in str(exc):  # no store: say what was looked for
            raise CliError(f"{match_id!r} is neither a log file nor a recorded match: {exc}",
                           exc.code) from None
        raise
    if chain.unchained:
        _say(f"warning: {chain.describe()}; ruled on as stored, unverified")
    elif chain.legacy and as_written:
        _say(f"note: {chain.describe()}")
    return record.table_lines() if as_written else record.lines


def must_exist(match_id: str, store: str | None) -> None:
    """A :class:`CliError` (exit 2) unless ``match_id`` is recorded in an existing store;
    the store is only read."""
    from coreflow_judge.events.store import MatchNotFound

    with _recorder(store, reading=True) as recorder:
        try:
            recorder.load(match_id, upto_seq=1)
        except MatchNotFound:
            raise _not_recorded(match_id, store, recorder) from None


def _not_recorded(match_id: str, store: str | None, recorder: MatchRecorder,
                  file_too: bool = False) -> CliError:
    """No match ``match_id`` in the store (exit 2): which store was searched, and the
    recorded ids near the one given (a typo, another round or table)."""
    from coreflow_judge._log import near_ids

    known = recorder.match_ids()
    where = _store_name(store)
    said = (f"{match_id!r} is neither a log file nor a match recorded in {where}" if file_too
            else f"no match {match_id!r} is recorded in {where}")
    near = near_ids(match_id, known)
    if near:
        said += f"; recorded ids near it: {', '.join(near)}"
    elif not known:
        said += " (the store holds no match yet)"
    else:
        said += f" (it holds {len(known)} match{'es' if len(known) != 1 else ''}: "\
                "coreflow matches lists them)"
    return CliError(said, EXIT_INPUT)


def _one_file(path: Path) -> Path:
    """A command that reads one log refuses a directory by name."""
    if not _is_stdin(path) and path.is_dir():
        raise CliError(f"{path}: a directory; give one log file")
    return path


def _valid_lines(path: Path) -> list[tuple[int, LogLine]]:
    """Every line of a log, or :class:`JudgeInputError` naming the first malformed one."""
    from coreflow_judge.adjudicator.judge import JudgeInputError
    from coreflow_judge.events.reader import LineError

    _one_file(path)
    out: list[tuple[int, LogLine]] = []
    for no, item in _read_items(path):
        if isinstance(item, LineError):
            raise JudgeInputError(item.line, item.field, item.message)
        out.append((no, item))
    if not out:
        raise JudgeInputError(1, "(line)", "the log is empty")
    return out


def _one_match(lines: list[tuple[int, LogLine]]) -> list[tuple[int, LogLine]]:
    """A log to record or normalize holds one match: one match_started line, the first."""
    from coreflow_judge.adjudicator.judge import JudgeInputError
    from coreflow_judge.events.models import MatchStarted

    for no, line in lines[1:]:
        if isinstance(line, MatchStarted):
            raise JudgeInputError(no, "type", "a second match_started line: a log holds one "
                                  "match, and only its first line is match_started")
    return lines


def _with_path(path: Path, fn: Callable[[], R]) -> R:
    """Run ``fn``; an input error names the file it is about."""
    from coreflow_judge.adjudicator.judge import JudgeInputError
    from coreflow_judge.events.reader import LogTooLong

    try:
        return fn()
    except (JudgeInputError, LogTooLong) as exc:  # (a file's is named by read_log)
        raise CliError(f"{_shown(path)}: {exc}") from exc


def _first_difference(stored: Sequence[LogLine], given: Sequence[LogLine]) -> int | None:
    """The first seq at which two complete logs differ (hashes aside), or None."""
    from coreflow_judge.events.reader import canonical_dict

    for seq, (a, b) in enumerate(zip(stored, given, strict=False), start=1):
        if canonical_dict(a) != canonical_dict(b):
            return seq
    if len(stored) != len(given):
        return min(len(stored), len(given)) + 1
    return None


def _same_numbers(kept: Sequence[int | None], given: Sequence[int | None] | None) -> bool:
    """Whether a record keeps the table's line numbers a log to record would give it (a
    record that kept none, made by ``play`` or an older coreflow, agrees with any)."""
    if all(n is None for n in kept) or given is None:
        return True
    return list(kept) == list(given)


def _jsonl(lines: Sequence[LogLine]) -> str:
    """A complete log, hash-chained; with $COREFLOW_SIGNING_KEY set, its last line carries
    the key's signature of the head (under ``x``, no part of the chain)."""
    from coreflow_judge.events.evidence import sign, signing_key
    from coreflow_judge.events.reader import dump_line

    previous: str | None = None
    out: list[str] = []
    for line in lines:
        text, previous = dump_line(line, previous)
        out.append(text)
    key = signing_key()
    if key is not None and out and previous is not None:
        from coreflow_judge.events.store import with_signature

        last = with_signature(json.loads(out[-1]), sign(key, previous))
        out[-1] = json.dumps(last, separators=(",", ":"), ensure_ascii=False)
    return "\n".join(out) + "\n"


def _store_name(store: str | None) -> str:
    """The store as the messages name it (:func:`coreflow_judge._log.store_name`)."""
    from coreflow_judge._log import store_name

    return store_name(store)


@contextmanager
def _recorder(store: str | None, reading: bool = False) -> Iterator[MatchRecorder]:
    """The recorder on ``store``; a read never creates a SQLite file that is not there,
    a write creates the SQLite file's directory when it is missing (docs/decisions.md,
    "A store path whose directory does not exist")."""
    from coreflow_judge.events.store import open_recorder, store_env

    env = store_env(store)
    db = env.get("SQLITE_DBNAME")
    if reading and db is not None and db != ":memory:" and not Path(db).exists():
        raise CliError(f"no event store at {db} (record a log first: coreflow record LOG)",
                       EXIT_INPUT)
    if not reading and db is not None and (":memory:" in db or "mode=memory" in db):
        raise CliError(f"--store {db}: a store in memory keeps nothing once the command ends; "
                       "name a SQLite file or a postgresql:// URL (nothing was recorded)")
    if not reading and db is not None:
        _make_store_directory(db)
    recorder = open_recorder(store, read_only=reading)
    try:
        yield recorder
    finally:
        close = getattr(recorder, "close", None)
        if callable(close):
            close()


def _make_store_directory(db: str) -> None:
    """Create the missing directories of a SQLite store about to be written, or refuse
    in one line (a part of the path is a file, no permission, ...)."""
    if db.startswith("file:"):  # a SQLite URI: left to SQLite
        return
    folder = Path(db).parent
    if folder.is_dir():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot open the event store {db}: cannot create its directory "
                       f"{folder}: {exc.strerror or exc} (nothing was recorded)") from None


FormatOption = Annotated[Format, typer.Option("--format", help="Output format.")]


def _language(option: str | None) -> str:
    """The command's language (--lang, else $COREFLOW_LANG, else en), or a one-line error."""
    from coreflow_judge.cli.i18n import UnknownLanguage, language

    try:
        return language(option)
    except UnknownLanguage as exc:
        raise CliError(str(exc)) from None


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"coreflow {version('coreflow-judge')}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print coreflow's version and exit.")] = False,
) -> None:
    """The options every command shares."""


# ------------------------------------------------------------------ commands


@app.command()
@guarded
def judge(
    logs: Annotated[list[str], typer.Argument(
        metavar="LOG|MATCH_ID",
        help="Log files, directories (their *.jsonl files, in name order), the ids of "
             "matches recorded in the store, or - for standard input.",
        show_default=False)],
    fmt: FormatOption = Format.text,
    store: StoreOption = None,
    view: ViewOption = JUDGE_VIEW,
    lang: LangOption = None,
) -> None:
    """Judge match logs against the rules and report every finding.

    Exit status: 0 no error finding, 1 at least one, 2 a log could not be read. With
    --format json each report names its log ("log": the path, or <stdin>) or, for a
    recorded match, its store ("store"). Several logs show a progress line on a terminal.

    Example: coreflow judge fixtures/sample-match.jsonl --format json
    """
    from coreflow_judge.adjudicator.judge import JudgeInputError, judge_lines
    from coreflow_judge.cli.render import report_text
    from coreflow_judge.events.reader import LogReadError

    language = _language(lang)

    if view != JUDGE_VIEW:
        from coreflow_judge.projections.view import (
            viewed_report,
            viewed_report_dict,
        )

    status = EXIT_OK
    first = True
    files: list[tuple[str, Path]] = []
    for raw in logs:
        try:
            found = _log_files(Path(raw))
        except CliError as exc:
            _say(str(exc))
            status = EXIT_INPUT
            continue
        files += [(raw, found[0])] if found == [Path(raw)] else [(str(f), f) for f in found]
    with progress.progress("judge", len(files)) as bar:
        for done, (raw, path) in enumerate(files, start=1):
            if len(files) > 1:
                bar.update(done - 1)
            source = {"log": _shown(path)}
            try:
                if _means_recorded(raw, store, "judging"):
                    recorded = list(enumerate(_recorded(str(path), store, as_written=True),
                                              start=1))
                    report = judge_lines(recorded)
                    items: list[Any] = recorded
                    source = {"store": _store_name(store)}
                else:
                    items = _read_items(path)
                    report = judge_lines(items)
                findings = report.findings if view == JUDGE_VIEW else viewed_report(
                    report, items, view)
            except (JudgeInputError, LogReadError) as exc:
                shown = _shown(path)
                message = str(exc) if str(exc).startswith(shown) else f"{shown}: {exc}"
                _say(message)
                status = max(status, EXIT_INPUT)
                continue
            except CliError as exc:  # no store, or no such recorded match: unreadable input
                _say(str(exc))
                status = max(status, EXIT_INPUT)
                continue
            except Exception as exc:  # noqa: BLE001 - one bad log must not stop the others
                # A store that fails, or a stored row that does not read: its one line.
                if type(exc).__name__ == "UnknownViewer" or known_error(exc) is not None:
                    _say(f"{_shown(path)}: {exc}")
                    status = max(status, EXIT_INPUT)
                    continue
                _say(f"{_shown(path)}: internal error ({type(exc).__name__}): {exc}")
                status = max(status, EXIT_INPUT)
                continue
            progress.clear()
            if fmt is Format.json and view == JUDGE_VIEW:
                _echo_report_json(report, source)
            elif fmt is Format.json:
                data = viewed_report_dict(report, findings, view)
                typer.echo(json_escaped(json.dumps(data | source, ensure_ascii=False)))
            else:
                if not first:
                    typer.echo("\n" + "=" * 72 + "\n")
                typer.echo(report_text(report, _shown(path), findings,
                                       None if view == JUDGE_VIEW else view, language))
            first = False
            if report.errors:
                status = max(status, EXIT_NO)
        if len(files) > 1:
            bar.update(len(files))
    raise typer.Exit(status)


def _echo_report_json(report: Any, source: dict[str, str]) -> None:
    """Print ``report.as_dict() | source`` as one line of JSON, the same text
    ``json.dumps`` gives, written a finding at a time: a long report is never held as
    one object besides the report itself."""
    data = report.as_dict(findings=False) | source
    keys = list(data)
    at = keys.index("findings")

    def part(items: dict[str, Any]) -> str:
        return json_escaped(json.dumps(items, ensure_ascii=False))[1:-1]

    head = part({k: data[k] for k in keys[:at]})
    out = sys.stdout
    out.write("{" + head + (", " if head else "") + '"findings": [')
    for n, f in enumerate(report.findings):
        out.write((", " if n else "") + json_escaped(json.dumps(f.as_dict(), ensure_ascii=False)))
    tail = part({k: data[k] for k in keys[at + 1:]})
    out.write("]" + (", " + tail if tail else "") + "}\n")
    out.flush()


@app.command()
@guarded
def record(
    logs: Annotated[list[Path], typer.Argument(
        metavar="LOG", help="Match logs (JSONL), directories of *.jsonl logs, or - for "
        "standard input.", show_default=False)],
    store: StoreOption = None,
    receipts: Annotated[Path | None, typer.Option(
        "--receipts", metavar="FILE", help="Keep each match's receipt as a row of this "
        "file (columns match_id, head, lines and log_head, separated by tabs; rows are "
        "added to what it holds) instead of a line on stderr; coreflow verify --receipts "
        "FILE checks them.",
        show_default=False)] = None,
) -> None:
    """Record match logs in the event store (complete: derived lines filled in).

    Prints each match id, and on stderr its receipt: the record's head hash and the
    command that checks it later (coreflow verify MATCH --store STORE --head HASH). With
    --receipts FILE the receipts go to FILE, and several logs end with one summary line.
    Each log is recorded all or nothing, once; a log that cannot be recorded is reported
    and the others are still recorded. Exit status: 0 every log recorded (or already
    recorded with the same content: nothing to write), 1 another log was already recorded
    under one's match id, 2 one could not be read. A SQLite store whose directory is
    missing is created with it. Several logs show a progress line on a terminal.

    Example: coreflow record fixtures/tournament/ --store matches.db --receipts receipts.tsv
    """
    from coreflow_judge.adjudicator.game import UnsupportedRules
    from coreflow_judge.adjudicator.judge import JudgeInputError
    from coreflow_judge.cli.receipts import ReceiptsError, ReceiptsFile, summary_text
    from coreflow_judge.events.reader import LogReadError
    from coreflow_judge.events.store import LogRejected

    files = [f for raw in logs for f in _log_files(raw)]
    worst = EXIT_OK
    tally = Tally()
    with contextlib.ExitStack() as stack:
        kept: ReceiptsFile | None = None
        if receipts is not None:
            try:
                kept = stack.enter_context(ReceiptsFile(receipts))
            except ReceiptsError as exc:
                raise CliError(str(exc)) from None
        bar = stack.enter_context(progress.progress("record", len(files)))
        recorder: MatchRecorder | None = None
        for done, log in enumerate(files):
            if len(files) > 1:
                bar.update(done)
            try:
                # Read first: a log that cannot be recorded never creates the store.
                lines, table_seqs = _read_complete(log)
                if recorder is None:
                    recorder = stack.enter_context(_recorder(store))
                _record_one(recorder, log, lines, store, table_seqs, kept, tally,
                            quiet=len(files) > 1 and kept is not None)
            except (CliError, JudgeInputError, LogReadError, UnsupportedRules,
                    LogRejected) as exc:
                tally.failed += 1
                if len(files) == 1:
                    raise
                code = exc.code if isinstance(exc, CliError) else EXIT_INPUT
                shown = _shown(log)
                _say(str(exc) if shown in str(exc) else f"{shown}: {exc}")
                worst = max(worst, code)
        if len(files) > 1:
            bar.update(len(files))
    if len(files) > 1 or kept is not None:
        _say(summary_text(tally.recorded, tally.lines, tally.already, tally.failed,
                          receipts, store))
    if worst != EXIT_OK:
        raise typer.Exit(worst)


class Tally:
    """What ``record`` did with its logs, for the summary line of a batch."""

    def __init__(self) -> None:
        self.recorded = self.lines = self.already = self.failed = 0


def _read_complete(log: Path) -> tuple[list[LogLine], list[int | None]]:
    """A log file read and completed (derived lines filled in), ready to record, with each
    line's number in the file (None for a derived line)."""
    from coreflow_judge.adjudicator.judge import complete_with_table_seqs

    return _with_path(log, lambda: complete_with_table_seqs(_one_match(_valid_lines(log))))


def _record_one(recorder: MatchRecorder, log: Path, lines: list[LogLine],
                store: str | None, table_seqs: list[int | None] | None = None,
                kept: ReceiptsFile | None = None, tally: Tally | None = None,
                quiet: bool = False) -> None:
    """Record one read log with an open recorder; print its match id, and its receipt
    (on stderr, or as a row of ``kept``: a log recorded before with the same content gets
    its row too). ``quiet``: say nothing of a log recorded before with the same content
    (the batch's summary line counts it)."""
    from coreflow_judge.cli.receipts import Receipt, receipt_text, store_words
    from coreflow_judge.events.store import MatchAlreadyRecorded

    tally = tally or Tally()
    match_id = getattr(lines[0], "match_id", "")
    try:
        recorder.record(lines, table_seqs)
        chain = recorder.verify_record(match_id)
        tally.recorded += 1
        tally.lines += len(lines)
    except MatchAlreadyRecorded as exc:
        where = f"{_shown(log)}: match {exc.match_id!r} is already recorded in " \
                f"{_store_name(store)}"
        record = recorder.load(exc.match_id)
        differs = _first_difference(record.lines, lines)
        if differs is None and _same_numbers(record.table_seqs, table_seqs):
            # The identical log again (a script run twice): the store already holds
            # exactly this record, so recording it is done; nothing is written. A
            # receipts file holds every match of the batch, this one too: its receipt is
            # the record's head, the same as when it was recorded unless it was changed.
            if kept is not None:
                chain = recorder.verify_record(exc.match_id)
                if not chain.ok:
                    raise CliError(f"{where} with the same content, but "
                                   f"{chain.describe()}; no receipt is written for it",
                                   EXIT_NO) from None
            progress.clear()
            typer.echo(exc.match_id)
            tally.already += 1
            if not quiet:
                _say(f"{where} with the same content; nothing to write")
            if kept is None:
                return  # its receipt was printed when it was recorded
        else:
            how = " with different content" + (
                f" (the complete logs differ first at seq {differs})" if differs is not None
                else " (the same complete log, but the table numbered its lines otherwise)")
            raise CliError(
                f"{where}{how}; nothing was written (coreflow log {exc.match_id}"
                f"{store_words(store)[0]} prints the recorded log)", EXIT_NO) from None
    else:
        progress.clear()
        typer.echo(match_id)
    assert chain.head is not None and chain.log_head is not None
    receipt = Receipt(match_id, chain.head, chain.lines, chain.log_head)
    if kept is not None:
        kept.add(receipt)
    else:
        typer.echo(receipt_text(receipt, store), err=True)


@app.command()
@guarded
def board(
    target: Annotated[str, typer.Argument(
        metavar="LOG|MATCH_ID", help="A log file, the id of a recorded match, or - for "
        "standard input.", show_default=False)],
    at: Annotated[int | None, typer.Option(
        "--at", metavar="SEQ", help="Show the board after this line [default: the last].",
        show_default=False)] = None,
    fmt: FormatOption = Format.text,
    store: StoreOption = None,
    view: ViewOption = JUDGE_VIEW,
    lang: LangOption = None,
) -> None:
    """Show the board (stage, buffer, chance, zones, field) after any line of a match.

    With --format json the board names its log ("log": the path, or <stdin>) or, for a
    recorded match, its store ("store").

    Example: coreflow board demo-1 --at 8
    """
    from coreflow_judge.cli.render import board_text
    from coreflow_judge.projections.board import BoardProjector

    language = _language(lang)
    path = Path(target)
    if not _is_stdin(path) and path.is_dir():
        raise CliError(f"{path}: a directory; give one log file or a match id")
    if not _means_recorded(target, store, "showing"):
        if not _is_stdin(path) and not path.exists():  # meant as a file: no store needed
            raise CliError(f"{target}: no such log file (nor a match id: a match id has no "
                           "'/' and no .jsonl)", EXIT_INPUT)
        projector = _with_path(path, lambda: BoardProjector(_read_items(path)))
        source = {"log": _shown(path)}
    else:
        lines = _recorded(target, store, as_written=True)
        projector = BoardProjector.from_lines(lines)
        source = {"store": _store_name(store)}
    if view == JUDGE_VIEW:
        data = projector.at(at)
    else:
        from coreflow_judge.projections.view import match_view

        data = match_view(projector, view).board(at)
    if fmt is Format.json:
        typer.echo(json_escaped(json.dumps(data | source, ensure_ascii=False, indent=2)))
    else:
        typer.echo(board_text(data, language))


@app.command()
@guarded
def matches(
    store: StoreOption = None,
    game: Annotated[str | None, typer.Option(
        "--game", metavar="GAME", help="Only matches of this game.", show_default=False)] = None,
    player: Annotated[str | None, typer.Option(
        "--player", metavar="NAME", help="Only matches this player played.",
        show_default=False)] = None,
    tournament: Annotated[str | None, typer.Option(
        "--tournament", metavar="NAME", help="Only matches of this event (the header's "
        "event.tournament).", show_default=False)] = None,
    round_: Annotated[str | None, typer.Option(
        "--round", metavar="ROUND", help="Only matches of this round (event.round).",
        show_default=False)] = None,
    errors: Annotated[bool, typer.Option(
        "--errors", help="Only matches with an error finding (or a recorded result the "
        "rules do not give).")] = False,
    fmt: FormatOption = Format.text,
    audit: AuditOption = None,
) -> None:
    """List the recorded matches: id, rules, players, lines, the rules' result (and the
    recorded one where it differs), the error findings, recorded at.

    The result is the one the rules give, as coreflow judge rules it; where the log
    records another, it is shown as "(recorded: ...)" (JSON: recorded_result,
    result_differs). The errors are the judge's error findings less their consequences.
    Each match is judged once and the answer kept in the audit database (docs/audit.md);
    a terminal shows a progress line while new matches are judged.

    Example: coreflow matches --store tournament.db --errors
    """
    from coreflow_judge._store import summaries_text

    rows = _summaries(store, audit)
    rows = [r for r in rows if (game is None or r.game == game)
            and (player is None or player in r.players)
            and (tournament is None or r.tournament == tournament)
            and (round_ is None or r.round == round_)
            and (not errors or r.errors or r.result_differs)]
    if fmt is Format.json:
        where = _store_name(store)
        typer.echo(json_escaped(json.dumps([r.as_dict() | {"store": where} for r in rows],
                                           ensure_ascii=False, indent=2)))
        return
    for line in summaries_text(rows):
        typer.echo(escaped(line))
    if not rows:
        filtered = game or player or tournament or round_ or errors
        typer.echo("no recorded match" + (" matches the filter" if filtered else ""))


def _summaries(store: str | None, audit: Path | None = None) -> list[Any]:
    """The recorded matches with the rules' results (:func:`coreflow_judge.matches`),
    read from the audit database (``audit``, else the store's own, as ``coreflow audit``
    reads it), a progress line on a terminal while new matches are judged."""
    from coreflow_judge._store import matches as summaries

    with progress.progress("matches: judge") as bar:
        return summaries(store, audit=audit, progress=lambda done, total:
                         bar.update(done, total) if total > 1 else None)


@app.command()
@guarded
def standings(
    store: StoreOption = None,
    tournament: Annotated[str | None, typer.Option(
        "--tournament", metavar="NAME", help="Only this event (the header's "
        "event.tournament) [default: every event in the store].", show_default=False)] = None,
    round_: Annotated[str | None, typer.Option(
        "--round", metavar="ROUND", help="The standings after this round (its matches and "
        "every earlier round's) [default: every round].", show_default=False)] = None,
    fmt: FormatOption = Format.text,
    audit: AuditOption = None,
) -> None:
    """The standings of each event, by the rules' results: played, won, lost, drawn,
    undecided per player, ranked by won then fewest lost.

    A match with an error finding, or whose recorded result the rules do not give,
    counts by the rules' result and is listed under the standings as under review;
    coreflow judge MATCH_ID says why. No points system is assumed.

    Example: coreflow standings --store tournament.db --round 3
    """
    from coreflow_judge._store import standings as rank

    events = rank(store, tournament=tournament, after_round=round_,
                  summaries=_summaries(store, audit))
    if fmt is Format.json:
        where = _store_name(store)
        typer.echo(json_escaped(json.dumps([e.as_dict() | {"store": where} for e in events],
                                           ensure_ascii=False, indent=2)))
        return
    if not events:
        typer.echo("no recorded match" + (" matches the filter" if tournament or round_
                                          else ""))
        return
    for n, event in enumerate(events):
        if n:
            typer.echo("")
        typer.echo(escaped(_standings_text(event), keep_newlines=True))


def _standings_text(event: Any) -> str:
    """One event's standings as a table, and what is under review."""
    name = event.tournament if event.tournament is not None else "(no tournament named)"
    after = f", after round {event.after_round}" if event.after_round is not None else ""
    head = f"{name}{after}: {len(event.matches)} matches, by the rules' results"
    rows = [("#", "player", "played", "won", "lost", "drawn", "undecided")]
    for rank, p in enumerate(event.players, start=1):
        rows.append((str(rank), p.player, str(p.played), str(p.won), str(p.lost),
                     str(p.drawn), str(p.undecided)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [head] + ["  " + "  ".join(c.ljust(w) if i == 1 else c.rjust(w)
                                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                      .rstrip() for r in rows]
    for m in event.differing:
        lines.append(f"under review: {m.match_id}: the log records {m.recorded_outcome}; "
                     f"the rules give {m.outcome or 'no result yet'}")
    for m in event.with_errors:
        if not m.result_differs:
            lines.append(f"under review: {m.match_id}: {m.errors} error finding"
                         f"{'s' if m.errors != 1 else ''} (coreflow judge {m.match_id})")
    return "\n".join(lines)


@app.command()
@guarded
def log(
    match_id: Annotated[str, typer.Argument(
        metavar="MATCH_ID", help="A recorded match id.", show_default=False)],
    store: StoreOption = None,
    view: ViewOption = JUDGE_VIEW,
) -> None:
    """Print a recorded match log as JSONL, with its hash chain.

    With --view PLAYER or spectator: the log as that viewer may read it, hidden cards
    written alice:? and no hash chain (a redacted log is not the record).

    Example: coreflow log demo-1 > demo-1.jsonl
    """
    from coreflow_judge.events.store import MatchNotFound

    if view != JUDGE_VIEW:
        from coreflow_judge.projections.view import log_jsonl, match_view

        lines = _recorded(match_id, store, file_too=False)
        typer.echo(json_escaped(log_jsonl(match_view(lines, view).log())), nl=False)
        return
    with _recorder(store, reading=True) as recorder:
        try:
            text = recorder.export_jsonl(match_id)
        except MatchNotFound:
            raise _not_recorded(match_id, store, recorder) from None
    typer.echo(json_escaped(text), nl=False)


@app.command()
@guarded
def normalize(
    log: Annotated[Path, typer.Argument(
        metavar="LOG", help="The match log (JSONL), or - for standard input.",
        show_default=False)],
) -> None:
    """Print the complete log: every derived line filled in, renumbered, hash-chained.

    Example: coreflow normalize sparse.jsonl > complete.jsonl
    """
    from coreflow_judge.adjudicator.judge import normalize_lines

    lines = _with_path(log, lambda: normalize_lines(_one_match(_valid_lines(log))))
    typer.echo(json_escaped(_jsonl(lines)), nl=False)


@app.command()
@guarded
def verify(
    target: Annotated[str | None, typer.Argument(
        metavar="LOG|MATCH_ID", help="A match log (JSONL), a recorded match id, or - for "
        "standard input.", show_default=False)] = None,
    store: StoreOption = None,
    every: Annotated[bool, typer.Option(
        "--all", help="Check the stored chain of every recorded match.")] = False,
    head: Annotated[str | None, typer.Option(
        "--head", metavar="HASH", help="A receipt's head hash: a recorded match's record "
        "chain, or a log file's chain, must end with it or have gone on from it (lines "
        "added since); a cut-off or re-chained one never had it.",
        show_default=False)] = None,
    receipts: Annotated[Path | None, typer.Option(
        "--receipts", metavar="FILE", help="Check every receipt of a receipts file "
        "(record --receipts) against the store.", show_default=False)] = None,
) -> None:
    """Check a hash chain; report the first line whose hash does not match.

    A log file: its own chain. A recorded match (or --all): the chains the store kept when
    it took each line (the lines and the table's line numbers), so a row changed, swapped,
    deleted or stripped of its hash outside coreflow shows. With --head, the receipt that
    record or play printed: a match's head is its record chain's, a file's its log
    chain's; one that ends with it, or went on from it (a match resumed after a break:
    "continues past the receipt's head"), passes; one cut short, or edited and chained
    again, never had it. --receipts FILE checks each row of a receipts file the same way.
    With $COREFLOW_SIGNING_KEY set, the head must also carry the key's signature: a log or
    record chained again without the key fails even without the receipt.

    Exit status: 0 intact (and ending with, or continuing past, the receipt's head), 1
    broken, not verifiable, not signed with the key, a receipt's head never in the chain,
    or a receipt's match missing, 2 unreadable.

    Example: coreflow verify complete.jsonl --head 3f2a...
    """
    if receipts is not None:
        if target is not None or every or head is not None:
            raise CliError("--receipts checks the receipts of a file: give no LOG, MATCH_ID, "
                           "--all or --head with it")
        _verify_receipts(receipts, store)
        return
    if every:
        with _recorder(store, reading=True) as recorder:
            chains = [recorder.verify_record(m) for m in recorder.match_ids()]
            lost = recorder.format_record_lost()
        if lost:
            typer.echo(f"{_store_name(store)}: the store's format record (coreflow_meta) is "
                       "missing, though rows written in its format are in it: it was removed "
                       "outside coreflow (every match is held to the format)")
        for chain in chains:
            typer.echo(chain.describe())
        raise typer.Exit(EXIT_NO if lost or not all(c.ok for c in chains) else EXIT_OK)
    if target is None:
        raise CliError("give a log file or a match id (or --all, or --receipts FILE)",
                       EXIT_INPUT)
    path = Path(target)
    if store is None and (path.is_file() or not _is_match_id(target)):
        _verify_file(path, head)
        return
    from coreflow_judge.events.store import MatchNotFound

    try:
        with _recorder(store, reading=True) as recorder:
            try:
                chain = recorder.verify_record(target, head)
            except MatchNotFound:
                raise _not_recorded(target, store, recorder, file_too=store is None) from None
    except CliError as exc:
        if store is None and target not in str(exc):  # no store: say what was looked for
            raise CliError(f"{target!r} is neither a log file nor a recorded match: {exc}",
                           exc.code) from None
        raise
    typer.echo(chain.describe())
    if not chain.ok:
        raise typer.Exit(EXIT_NO)
    if head is not None and not _receipt_in_record(target, chain, head, store):
        raise typer.Exit(EXIT_NO)


def _receipt_in_record(name: str, chain: StoredChain, head: str, store: str | None) -> bool:
    """Say how a recorded match (checked with the receipt) stands against a receipt's head
    hash; whether it ends with it or went on from it."""
    from coreflow_judge.cli.receipts import store_words
    from coreflow_judge.events.evidence import receipt_in_record

    check = receipt_in_record(chain, head)
    if not check.ok and chain.receipt_log_at is not None:
        # The exported log's head (record prints it beside the receipt of a log the table
        # numbered sparsely): a file's head, not the record's, which covers the numbers.
        option, _note = store_words(store)
        typer.echo(f"{name}: {head} is the head of the log the match exports (at seq "
                   f"{chain.receipt_log_at}), not a receipt of the record, whose chain also "
                   f"covers the table's line numbers and ends with {chain.head}; check an "
                   f"exported log against it: coreflow log {name}{option} > {name}.jsonl; "
                   f"coreflow verify {name}.jsonl --head {head}")
        return False
    typer.echo(check.describe(name))
    return check.ok


def _verify_receipts(path: Path, store: str | None) -> None:
    """``verify --receipts FILE``: each receipt of the file against its match in the store;
    one line per receipt, then a summary (exit 1 if any fails)."""
    from coreflow_judge.cli.receipts import ReceiptsError, read_receipts
    from coreflow_judge.events.evidence import receipt_in_record
    from coreflow_judge.events.store import MatchNotFound

    try:
        rows = read_receipts(path)
    except ReceiptsError as exc:
        raise CliError(str(exc)) from None
    ends = past = 0
    failed: list[str] = []
    with _recorder(store, reading=True) as recorder:
        for no, receipt in rows:
            name = receipt.match_id
            try:
                chain = recorder.verify_record(name, receipt.head)
            except MatchNotFound:
                typer.echo(f"{name}: not recorded in {_store_name(store)}: the match of the "
                           f"receipt on line {no} is missing")
                failed.append(name)
                continue
            if not chain.ok:
                typer.echo(chain.describe())
                failed.append(name)
                continue
            check = receipt_in_record(chain, receipt.head)
            if check.ok and check.at != receipt.lines:
                typer.echo(f"{name}: the receipt on line {no} says {receipt.lines} lines, but "
                           f"its head hash is the record's at seq {check.at}: the receipts "
                           "file was changed")
                failed.append(name)
                continue
            typer.echo(check.describe(name) + (f" (line {no})" if not check.ok else ""))
            if not check.ok:
                failed.append(name)
            elif check.added:
                past += 1
            else:
                ends += 1
    s = "" if len(rows) == 1 else "s"
    text = (f"{path}: {len(rows)} receipt{s}: {ends} end with their record's head, {past} "
            f"continue past it (lines added since), {len(failed)} fail")
    if failed:
        shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5
                                         else "")
        text += f" ({shown})"
    typer.echo(text)
    if failed:
        raise typer.Exit(EXIT_NO)


def _check_file_signature(name: str, lines: list[tuple[int, LogLine]]) -> None:
    """With $COREFLOW_SIGNING_KEY set: the log's last line must carry the key's signature
    of the log's head (exit 1 otherwise)."""
    from coreflow_judge.events.evidence import signed_by, signing_key
    from coreflow_judge.events.reader import SIGNATURE_KEY

    key = signing_key()
    if key is None or not lines:
        return
    last = lines[-1][1]
    signature = (last.x or {}).get(SIGNATURE_KEY)
    if signature is None:
        typer.echo(f"{name}: NOT signed with COREFLOW_SIGNING_KEY: its last line carries no "
                   "signature (written without the key, cut short, or chained again by "
                   "someone without it)")
        raise typer.Exit(EXIT_NO)
    if not isinstance(signature, str) or last.hash is None or not signed_by(
            key, last.hash, signature):
        typer.echo(f"{name}: the signature on its last line is not COREFLOW_SIGNING_KEY's "
                   "of its head (chained again without the key, or signed with another key)")
        raise typer.Exit(EXIT_NO)
    typer.echo(f"{name}: signed with COREFLOW_SIGNING_KEY")


def _verify_file(log: Path, head: str | None) -> None:
    from coreflow_judge.events.reader import verify_chain

    lines = _with_path(log, lambda: _valid_lines(log))
    breaks = verify_chain(lines)
    name = _shown(log)
    if not breaks:
        typer.echo(f"{name}: hash chain intact ({len(lines)} lines)")
        _check_file_signature(name, lines)
        if head is not None:
            from coreflow_judge.events.evidence import receipt_in_log

            check = receipt_in_log([line for _no, line in lines], head)
            typer.echo(check.describe(name))
            raise typer.Exit(EXIT_OK if check.ok else EXIT_NO)
        raise typer.Exit(EXIT_OK)
    first = breaks[0]
    if all(line.hash is None for _no, line in lines):
        typer.echo(f"{name}: not hash-chained: no line carries a hash "
                   "(coreflow normalize writes the chained log)")
        raise typer.Exit(EXIT_NO)
    found = "no hash" if first.actual is None else f"hash {first.actual}"
    typer.echo(
        f"{name}: hash chain broken at line {first.line} (seq {first.seq}): {found}, "
        f"expected {first.expected}"
    )
    raise typer.Exit(EXIT_NO)


@app.command()
@guarded
def schema(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="GAME", help="The schema of a line of this game's logs (its "
        "header and set-up fields, its cost kinds); without it, a line of any registered "
        "game's.", show_default=False)] = None,
) -> None:
    """Print the JSON Schema of one match-log line.

    A line is read with the models of the game its header names: the core's fields and
    the fields the game adds. Without --game the schema holds every registered game's
    lines (one of them must fit); with --game, that game's alone.

    Example: coreflow schema --game blackpoker > blackpoker-line.schema.json
    """
    from coreflow_judge.adjudicator.plugins import game_plugin, games
    from coreflow_judge.events.models import json_schema

    chosen = [game_plugin(game).lines] if game is not None else [g.lines for g in games()]
    typer.echo(json.dumps(json_schema(chosen), indent=2, ensure_ascii=False))


@app.command()
@guarded
def simulate(
    rules: Annotated[str, typer.Option(
        "--rules", metavar="EDITION",
        help="The game and edition, GAME/EDITION or a bare edition: {simulated editions}.",
        show_default=False)],
    out: Annotated[Path, typer.Option(
        "--out", metavar="DIR", help="Directory to write the logs to.", show_default=False)],
    fmt: Annotated[str | None, typer.Option(
        "--format", help="The format ({simulated formats}; the first named is the game's default).",
        show_default=False)] = None,
    games: Annotated[int, typer.Option("--games", min=1, help="How many games.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Random seed.")] = 0,
    frame: Annotated[str | None, typer.Option(
        "--frame", help="BlackPoker 9.0: the regulation's frame (entry16, pack, ...).",
        show_default=False)] = None,
) -> None:
    """Write simulated complete match logs (random legal play, reproducible by seed).

    Several games show a progress line on a terminal.

    Example: coreflow simulate --rules 9.0 --format lite --games 10 --seed 1 --out logs/
    """
    from coreflow_judge.adjudicator.game import UnsupportedRules
    from coreflow_judge.adjudicator.judge import JudgeInputError
    from coreflow_judge.adjudicator.simulate import (  # imported only when simulating
        NoSimulator,
        write_game_logs,
        write_games,
    )

    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: a file; give a directory to write the logs to")
    check_rules(rules, simulated=True)
    game, sep, edition = rules.partition("/")
    written: list[Path]
    try:
        with progress.progress("simulate", games) as bar:
            step = bar.update if games > 1 else None
            if sep:
                written = write_game_logs(game, edition, fmt, games, seed, out, step, frame)
            else:
                written = write_games(rules, fmt, games, seed, out, step, frame)
    except NoSimulator as exc:
        raise CliError(f"--rules {rules!r}: {exc}") from exc
    except (JudgeInputError, UnsupportedRules) as exc:  # the simulator's header: the option
        option = {"format": "--format", "frame": "--frame"}.get(exc.field or "", "--rules")
        said = str(exc).split(": ", 2)[-1] if isinstance(exc, JudgeInputError) else str(exc)
        raise CliError(f"{option}: {said}") from exc
    for path in written:
        typer.echo(str(path))


from coreflow_judge.cli.audit import register as _register_audit  # noqa: E402 - audit, export

_register_audit(app)

from coreflow_judge.cli.fixture import register as _register_fixture  # noqa: E402 - fixture new/check

_register_fixture(app)

from coreflow_judge.cli.play import register as _register_play  # noqa: E402 - live recording

_register_play(app)

from coreflow_judge.cli.viewer import register as _register_viewer  # noqa: E402 - view --html

_register_viewer(app)

from coreflow_judge.cli.serve import register as _register_serve  # noqa: E402 - the web server

_register_serve(app)


def main() -> None:  # pragma: no cover - the console script calls ``app``
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
