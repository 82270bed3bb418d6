"""``coreflow view``: a match as one self-contained HTML page, to step through in a browser.

The page (:mod:`cli.viewer_page`, imported only when the command runs) shows the timeline
of lines by turn (derived lines greyed, and hidden on request), the board at the selected
line (the stage as a stack, the buffer, the chance holder and the pass record, every zone,
cards drawn as cards), and the findings at their lines; it fetches nothing, so it can be
mailed or opened offline. ``--lang ja`` writes it in Japanese (``<html lang="ja">``): its
labels, the game's names from the edition data, each finding's meaning and rule in
Japanese, the judge's English sentence kept beside them.

Exit status: 0 the page was written, 2 the match could not be read or the page not
written (a missing log, an unknown viewer, an OUT that cannot be written).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from coreflow_judge.cli.options import JUDGE_VIEW, LangOption, StoreOption, ViewOption


def view_command(
    target: Annotated[str, typer.Argument(
        metavar="LOG|MATCH_ID", help="A log file, the id of a recorded match, or - for "
        "standard input.", show_default=False)],
    html: Annotated[Path, typer.Option(
        "--html", metavar="OUT.html", help="The page to write (replaced if it exists).",
        show_default=False)],
    view: ViewOption = JUDGE_VIEW,
    store: StoreOption = None,
    lang: LangOption = None,
) -> None:
    """Write a match as one HTML page: timeline, board at each line, findings.

    The page needs no network and no other file. In the browser: left and right arrows
    (or j and k) step through the lines, Home and End go to the first and the last, n and
    p to the next and previous finding, d hides the derived lines, t goes to a turn; a
    click on a line selects it; OUT.html#11 opens at line 11.

    Example: coreflow view fixtures/examples/disputed-counter.jsonl --html demo-1.html
    """
    from coreflow_judge.cli.main import (
        CliError,
        _is_stdin,
        _language,
        _means_recorded,
        _read_items,
        _recorded,
        _shown,
        _store_name,
        _with_path,
    )
    from coreflow_judge.cli.viewer_page import page

    language = _language(lang)  # an unknown language: one line, before anything is read
    path = Path(target)
    if not _is_stdin(path) and path.is_dir():
        raise CliError(f"{path}: a directory; give one log file or a match id")
    if html.is_dir():
        raise CliError(f"--html {html}: a directory; give the file to write")
    if not _means_recorded(target, store, "showing"):
        if not _is_stdin(path) and not path.exists():
            raise CliError(f"{target}: no such log file (nor a match id: a match id has no "
                           "'/' and no .jsonl)")
        items = _read_items(path)
        source = {"log": _shown(path)}
        written = _with_path(path, lambda: page(items, view, source, language))
    else:
        lines = _recorded(target, store, as_written=True)  # no store, or not recorded: 2
        source = {"store": _store_name(store)}
        written = page(list(enumerate(lines, start=1)), view, source, language)
    _write(html, written.html)
    size = len(written.html.encode("utf-8"))
    typer.echo(f"{html}: {written.lines} lines, {written.findings} finding"
               f"{'s' * (written.findings != 1)}, {size // 1024} KB")


def _write(out: Path, text: str) -> None:
    """Write ``out`` whole or not at all: a temporary file beside it, then renamed."""
    from coreflow_judge.cli.main import CliError

    folder = out.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CliError(f"--html {out}: cannot write there: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as an ordinary new file (mkstemp's is 0600)
        os.replace(tmp, out)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CliError(f"--html {out}: cannot write it: {exc.strerror or exc}") from None


def register(app: typer.Typer) -> None:
    """Add ``view`` to the ``coreflow`` command."""
    from coreflow_judge.cli.main import guarded

    app.command("view")(guarded(view_command))
