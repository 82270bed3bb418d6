"""``coreflow fixture``: freeze a disputed log and its ruling; re-check every ruling."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
    log: Annotated[Path, typer.Argument(metavar="LOG", help="The disputed match log.")],
    name: Annotated[str, typer.Option("--name", help="The fixture's file name (no suffix).")],
    note: Annotated[str, typer.Option("--note", help="The dispute and the agreed ruling.")] = "",
    directory: Annotated[Path, typer.Option("--dir", help="Where fixtures live.")] = DEFAULT_DIR,
) -> None:
    """Freeze LOG and the judge's current findings (and final board) as a fixture.

    Example: coreflow fixture new disputed.jsonl --name counter-too-low --note "3 < 9"
    """

    def run() -> None:
        from coreflow_judge.adjudicator.rulings import freeze

        case = freeze(log, name, note, directory)
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
                typer.echo(f"coreflow: {exc}", err=True)
                continue
            if diff is None:
                continue
            changed += 1
            typer.echo(diff + "\n")
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


def _run(fn: object) -> None:
    from coreflow_judge.cli.main import CliError, guarded

    def body() -> None:
        try:
            fn()  # type: ignore[operator]
        except (FileExistsError, FileNotFoundError, IsADirectoryError, ValueError) as exc:
            raise CliError(str(exc)) from exc

    guarded(body)()


def register(app: typer.Typer) -> None:
    """Add ``fixture new`` and ``fixture check`` to the ``coreflow`` command."""
    app.add_typer(fixture_app, name="fixture")
