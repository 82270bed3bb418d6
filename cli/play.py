"""``coreflow play``: record one table live, one line of notation at a time.

Each line typed (or piped) is read (:mod:`adjudicator.notation`), judged by the core
flow and, if the rules allow it, appended to the event store at once
(:class:`~adjudicator.live.LiveTable`): a crash or SIGKILL loses at most the line being
typed, and ``coreflow play --resume MATCH_ID`` goes on from the store. A line that breaks
a rule is refused with the finding; with ``--keep-mistakes`` it is recorded with it.

One answer per input line on stdout (``--format json``: one JSON object per line), so a
script can drive it; on a terminal there is a prompt, completion and the board. The
session itself is :mod:`cli.session`, imported when the command runs.

Exit status: 0 every line was taken, 1 a line was refused or not read (everything else
was recorded), 2 the match could not be started or the store failed.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from coreflow_judge.cli.options import LangOption, StoreOption

EXIT_OK, EXIT_NO, EXIT_INPUT = 0, 1, 2


class Output(StrEnum):
    """How ``play`` answers: text, or one JSON object per input line."""

    text = "text"
    json = "json"


def play_command(
    store: StoreOption = None,
    resume: Annotated[str | None, typer.Option(
        "--resume", metavar="MATCH_ID", help="Go on with a match recorded in the store.",
        show_default=False)] = None,
    match_id: Annotated[str | None, typer.Option(
        "--match-id", metavar="ID", help="The new match's id.", show_default=False)] = None,
    rules: Annotated[str | None, typer.Option(
        "--rules", metavar="GAME/EDITION", help="The new match's game and edition "
        "(blackpoker/9.0, duel_masters/1.47, i_language/1; a bare 9.0 is BlackPoker).",
        show_default=False)] = None,
    game_format: Annotated[str | None, typer.Option(
        "--game-format", metavar="FORMAT", help="The new match's format [default: the "
        "game's].", show_default=False)] = None,
    players: Annotated[list[str] | None, typer.Option(
        "--player", metavar="NAME", help="A player of the new match, in seat order (give "
        "each).", show_default=False)] = None,
    header: Annotated[Path | None, typer.Option(
        "--header", metavar="FILE", help="A JSON match_started line with the rest of the "
        "header (decks, cards, event); the options above override it.",
        show_default=False)] = None,
    keep_mistakes: Annotated[bool, typer.Option(
        "--keep-mistakes", help="Record a line that breaks a rule, with its finding, "
        "instead of refusing it.")] = False,
    fmt: Annotated[Output, typer.Option("--format", help="Answers as text or one JSON "
                                        "object per line.")] = Output.text,
    lang: LangOption = None,
) -> None:
    """Record a match live: one line of notation (or JSON) per action, judged and stored
    at once.

    A new match starts from the options, or from a piped match_started JSON line (so
    coreflow play < game.jsonl records a finished log line by line); --resume goes on
    with a recorded one. Type 'help' for the notation, 'legal' for what may be done now,
    'undo' to take back the last entry (the correction is recorded too).

    Exit status: 0 every line taken, 1 a line refused or not read, 2 the match could not
    be started or the store failed.

    Example: coreflow play --match-id t7 --rules 9.0 --player alice --player bob
    """
    from coreflow_judge.cli.main import CliError, _language, _recorder, check_rules, must_exist
    from coreflow_judge.cli.session import (
        PlayError,
        Session,
        Speaker,
        _enable_completion,
        _header_from_options,
        _input_lines,
    )
    from coreflow_judge.events.store import StoreError

    language = _language(lang)
    interactive = sys.stdin.isatty()
    if rules is not None:
        check_rules(rules)  # an unknown game or edition: every one there is, listed
    if resume is not None:
        must_exist(resume, store)  # no store, or no such match: exit 2, nothing created
    try:
        opening = _header_from_options(match_id, rules, game_format, players or [], header)
    except PlayError as exc:
        raise CliError(str(exc)) from None
    if opening is not None and resume is not None:
        raise CliError("--resume goes on with a recorded match; give no new header with it")
    speaker = Speaker(sys.stdout, fmt, language)
    with _recorder(store, reading=False) as recorder:
        session = Session(recorder, speaker, keep_mistakes, interactive)
        try:
            if resume is not None:
                session.resume(resume)
                speaker.say("ok", speaker.text("play.resumed", match=resume,
                                               seq=len(session.table.stored)), None)  # type: ignore[union-attr]
            elif opening is not None:
                session.start(opening)
                speaker.say("ok", speaker.text(
                    "play.started", match=opening.match_id, rules=opening.rules,
                    format=opening.format, players=" v ".join(opening.players)), None, seq=1)
            elif interactive:
                speaker.say("info", speaker.text("play.no_match"), None)
            if interactive:
                _enable_completion(session)
                speaker.say("info", speaker.text("play.hint"), None)
            for no, text in _input_lines(interactive, session.prompt):
                if not session.take(no, text):
                    break
            session.close()
        except PlayError as exc:
            raise CliError(str(exc)) from None
        except StoreError as exc:
            raise CliError(f"{exc}; every line answered 'ok' before this is recorded "
                           "(coreflow play --resume goes on)") from None
    if session.trouble:
        raise typer.Exit(EXIT_NO)


def register(app: typer.Typer) -> None:
    """Add ``play`` to the ``coreflow`` command."""
    from coreflow_judge.cli.main import guarded

    app.command("play")(guarded(play_command))
