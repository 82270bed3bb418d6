"""``coreflow fixture``: freeze a disputed log and its ruling; re-check every ruling."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from coreflow_judge.events.printable import bounded, escaped

DEFAULT_DIR = Path("fixtures") / "rulings"
"""adjudicator.rulings.DEFAULT_DIR, named here so that the help does not import the judge
(tests/test_cli_conventions.py checks that they agree)."""

fixture_app = typer.Typer(
    help="Ruling fixtures: freeze a disputed log with the judge's ruling, check them all.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@fixture_app.command("new")
def new_command(
    target: Annotated[str, typer.Argument(
        metavar="LOG|MATCH_ID", help="The disputed match: a log file, or the id of a match "
        "recorded in the store.", show_default=False)],
    name: Annotated[str, typer.Option(
        "--name", metavar="NAME", help="The fixture's file name (a plain file name, no suffix).",
        show_default=False)],
    at: Annotated[int | None, typer.Option(
        "--at", metavar="SEQ", help="The disputed line: the board after it is frozen too "
        "(besides the final board) and checked by fixture check.", show_default=False)] = None,
    note: Annotated[str, typer.Option("--note", metavar="TEXT",
                                      help="The dispute and the agreed ruling.")] = "",
    directory: Annotated[Path | None, typer.Option(
        "--dir", metavar="DIR", help=f"Where to write it [default: the folder under "
        f"{DEFAULT_DIR} the match's game names for it: BlackPoker its format, or frames "
        f"for a match of a 9.0 frame; the other games their id].", show_default=False)] = None,
    board_fields: Annotated[list[str] | None, typer.Option(
        "--board-field", metavar="POINTER", help="A part of the board the fixture is about, "
        "as a JSON pointer (/stage, /players/bob/field); repeat for several. The frozen "
        "boards keep these alone and fixture check compares these alone [default: the "
        "whole board].", show_default=False)] = None,
    store: Annotated[str | None, typer.Option(
        "--store", help="Event store of a recorded match: a SQLite file or a postgresql:// "
        "URL [default: $COREFLOW_STORE, else ./coreflow.db].", show_default=False)] = None,
) -> None:
    """Freeze a disputed match and the judge's current findings (and final board) as a
    fixture; with --at, the board at the disputed line too.

    A recorded match is frozen as the table wrote it (its lines numbered as written), so
    its seq numbers are the ones judge and board name.

    Example: coreflow fixture new disputed.jsonl --name counter-too-low --at 11 --note "3 < 9"
    --board-field /stage
    """

    def run() -> None:
        from coreflow_judge.adjudicator.rulings import check_name, freeze
        from coreflow_judge.cli.main import CliError, _means_recorded, _recorded

        check_name(name)  # before anything is read
        path = Path(target)
        if _means_recorded(target, store, "freezing"):
            case = freeze(_recorded(target, store, as_written=True), name, note, directory, at,
                          board_fields)
        elif not path.exists():
            raise CliError(f"{target}: no such log file (nor a match id: a match id has no "
                           "'/' and no .jsonl)")
        else:
            case = freeze(path, name, note, directory, at, board_fields)
        typer.echo(f"froze {case.log} and {case.expected}")

    _run(run)


@fixture_app.command("check")
def check_command(
    path: Annotated[Path, typer.Argument(metavar="PATH",
                                         help="A fixture or a folder of them.")] = Path("fixtures"),
    do_update: Annotated[bool, typer.Option("--update",
                                            help="Re-freeze what changed, deliberately.")] = False,
) -> None:
    """Re-judge every fixture under PATH and show what changed (exit 1 if anything did).

    Exit status: 0 unchanged, 1 a ruling changed, 2 a fixture could not be read.

    Example: coreflow fixture check fixtures/rulings/lite
    """

    def run() -> None:
        from coreflow_judge.adjudicator.rulings import check, discover, update
        from coreflow_judge.events.reader import LogReadError

        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or directory")
        cases = discover(path)
        if not cases:
            raise FileNotFoundError(f"no fixture under {path} (a fixture is NAME.jsonl with "
                                    "NAME.expected.json beside it)")
        changed = unreadable = 0
        for case in cases:
            try:
                diff = check(case)
            except (OSError, ValueError, LogReadError) as exc:
                unreadable += 1  # one broken fixture must not hide the others
                typer.echo(f"coreflow: {bounded(str(exc))}", err=True)
                continue
            if diff is None:
                continue
            changed += 1
            typer.echo(escaped(diff, keep_newlines=True) + "\n")
            if do_update:
                update(case)
                typer.echo(f"re-froze {case.expected}\n")
        typer.echo(f"{len(cases)} fixture{'s' * (len(cases) != 1)}, {changed} changed"
                   + (" (re-frozen)" if do_update and changed else "")
                   + (f", {unreadable} could not be read" if unreadable else ""))
        if unreadable:
            raise typer.Exit(2)
        if changed and not do_update:
            raise typer.Exit(1)

    _run(run)


@fixture_app.command("narrow")
def narrow_command(
    fixture: Annotated[Path, typer.Argument(
        metavar="FIXTURE", help="The fixture: its log or its expected file.",
        show_default=False)],
    board_fields: Annotated[list[str], typer.Option(
        "--board-field", metavar="POINTER", help="A part of the board the fixture is about, "
        "as a JSON pointer (/stage, /players/bob/field); repeat for several.",
        show_default=False)],
) -> None:
    """Say which parts of the board an existing fixture is about: its frozen boards keep
    those alone (cut from what it froze) and fixture check compares those alone; its
    findings, result and rules stay as they are. The fixture must pass its check first.

    Example: coreflow fixture narrow fixtures/rulings/lite/turn-twice-9.0.jsonl
    --board-field /turn --board-field /turn_player
    """

    def run() -> None:
        from coreflow_judge.adjudicator.rulings import RulingCase, narrow

        if not fixture.exists():
            raise FileNotFoundError(f"{fixture}: no such file")
        case = RulingCase.of(fixture)
        narrow(case, board_fields)
        typer.echo(f"narrowed {case.expected} to {', '.join(board_fields)}")

    _run(run)


def _run(fn: object) -> None:
    from coreflow_judge.cli.main import CliError, guarded

    def body() -> None:
        try:
            fn()  # type: ignore[operator]
        except (FileExistsError, FileNotFoundError, IsADirectoryError, ValueError) as exc:
            raise CliError(str(exc)) from exc

    guarded(body)()


def register(app: typer.Typer) -> None:
    """Add ``fixture new``, ``fixture check`` and ``fixture narrow`` to the ``coreflow`` command."""
    app.add_typer(fixture_app, name="fixture")
