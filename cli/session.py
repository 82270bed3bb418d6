"""The table session behind ``coreflow play``: reads input lines, answers each, keeps
the store in step.

It reads each line (:mod:`adjudicator.notation`), has the live table judge and store
it (:class:`~adjudicator.live.LiveTable`) and answers: one line of text, or one JSON
object, per input line. The command is :mod:`cli.play`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import typer
from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.live import Answer, LiveTable
from coreflow_judge.adjudicator.notation import NotationError, read_notation
from coreflow_judge.cli.play import Output
from coreflow_judge.events.models import LogLine, MatchStarted, TakenBack
from coreflow_judge.events.store import (
    MatchAlreadyRecorded,
    MatchRecord,
    MatchRecorder,
    RecordConflict,
)

HELP = """\
notation (docs/play.md has every game's examples):
  PLAYER pass [CALL]                 a pass (a shortcut call as its note: スルー)
  PLAYER ACTION [CARD...] [KIND[:CARD]...] [>TARGET...] [#ID] [name=value...]
                                     a request: key cards, costs (B L D S C), targets, choices
  resolve ID [name=value...] [effects=[...]]     fizzle ID     stage ID     discard ID
  start PLAYER                       the game starts, PLAYER first
  PLAYER roll dSIDES RESULT          a die roll
  {"type": ...}                      any log line as JSON
commands:
  legal      what may be done now         actions    every action of the format
  board      the table now                undo [N] [WHY]  take back the last N entries
  help       this text                    quit       store what follows and stop"""


class PlayError(Exception):
    """The match cannot be started or continued (exit 2, one line)."""


# ------------------------------------------------------------------ the store side


class StoredMatch:
    """The record of the match being played, kept open: each accepted entry is one
    append, all or nothing."""

    def __init__(self, recorder: MatchRecorder, match_id: str) -> None:
        self.recorder = recorder
        self.match_id = match_id
        self.record: MatchRecord = recorder.load(match_id)

    def append(self, lines: list[LogLine]) -> None:
        if not lines:
            return
        try:
            self.record.extend(lines)
            self.recorder.commit(self.record)
        except Exception:
            # Whatever happened, the record in memory may now hold lines the store does
            # not: read it again before anything else is appended.
            self.record = self.recorder.load(self.match_id)
            raise

    def lines(self) -> list[LogLine]:
        return list(self.recorder.lines(self.match_id))


# ------------------------------------------------------------------ answers


def _line_text(line: LogLine) -> str:
    """A stored line in a few words."""
    d = line.model_dump(exclude_none=True, exclude={"seq", "hash", "at"})
    kind = d.pop("type")
    if kind == "request":
        extra = [*d.get("key_cards", []), *(f"{c['kind']}:{c['ref']}" for c in d.get("costs", [])),
                 *(f">{t}" for t in d.get("targets", []))]
        return f"{d['player']} requests {d['action']} as {d['request']}" + (
            f" ({' '.join(extra)})" if extra else "")
    if kind == "pass":
        return f"{d['player']} passes" + (f" ({d['note']})" if d.get("note") else "")
    if kind == "chance_moved":
        return f"chance → {d['to']}"
    if kind == "turn_started":
        return f"turn {d['turn']}: {d['player']}"
    if kind in ("stage", "discard"):
        return f"{kind} {d['request']}"
    if kind == "trigger":
        return f"trigger {d['request']} ({d['action']} of {d.get('controller', '?')})"
    if kind == "resolve":
        return f"{d['request']} {d['result']}"
    if kind == "game_ended":
        return "game ended: " + (f"{d['winner']} wins" if d.get("winner") else "draw") + (
            f" ({d['reason']})" if d.get("reason") else "")
    if kind == "taken_back":
        return f"taken back: {d['lines']} line{'s' if d['lines'] != 1 else ''}"
    if kind == "game_started":
        return f"the game starts, {d['first_player']} first"
    if kind == "roll":
        return f"{d['player']} rolls {d['result']} on d{d['sides']}"
    return kind


def _finding_text(f: Finding) -> str:
    return f"{f.code}: {f.message.rstrip('.')}"


class Speaker:
    """Writes one answer per input line, as text or JSON."""

    def __init__(self, out: TextIO, fmt: Output) -> None:
        self.out = out
        self.fmt = fmt

    def say(self, status: str, message: str, no: int | None = None, **data: Any) -> None:
        if self.fmt is Output.json:
            obj: dict[str, Any] = {"input": no, "status": status, "message": message}
            obj.update(data)
            self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        else:
            self.out.write(f"{status}: {message}\n" if status not in ("ok", "info")
                           else f"{message}\n")
        self.out.flush()

    def answer(self, no: int, answer: Answer, table: LiveTable) -> None:
        if not answer.accepted:
            first = answer.errors[0]
            more = f" (and {len(answer.errors) - 1} more)" if len(answer.errors) > 1 else ""
            self.say("refused", _finding_text(first) + more + "; nothing was recorded", no,
                     findings=[f.as_dict() for f in answer.findings])
            return
        parts: list[str] = []
        line = answer.line
        derived = [ln for ln in answer.stored if ln is not line]
        head = f"ok {line.seq}: {_line_text(line)}" if line is not None else "ok"
        if derived:
            parts.append("with " + ", ".join(f"{d.seq} {_line_text(d)}" for d in derived))
        for f in answer.findings:
            parts.append(f"{f.severity} {_finding_text(f)}")
        if table.over:
            result = table.flow.result
            if result is not None:
                who = f"{result.winner} wins" if result.winner else "a draw"
                parts.append(f"the game is over: {who} ({result.reason})")
        self.say("ok", head + ("; " + "; ".join(parts) if parts else ""), no,
                 seq=line.seq if line is not None else None,
                 stored=[ln.model_dump(mode="json", exclude_none=True) for ln in answer.stored],
                 findings=[f.as_dict() for f in answer.findings])


# ------------------------------------------------------------------ the session


class Session:
    """One table: reads input lines, answers each, keeps the store in step."""

    def __init__(self, recorder: MatchRecorder, speaker: Speaker, keep_mistakes: bool,
                 interactive: bool) -> None:
        self.recorder = recorder
        self.speaker = speaker
        self.keep_mistakes = keep_mistakes
        self.interactive = interactive
        self.table: LiveTable | None = None
        self.match: StoredMatch | None = None
        self.trouble = False
        """A line was refused or not read (exit status 1)."""

    # -------------------------------------------------------------- starting
    def start(self, header: MatchStarted) -> None:
        """Record the header of a new match and open its table."""
        from coreflow_judge.adjudicator.judge import JudgeInputError, start_flow

        header = header.model_copy(update={"seq": 1, "hash": None})
        try:
            start_flow(header, 1)  # the header the rules can use, before anything is stored
        except JudgeInputError as exc:
            raise PlayError(f"the match header: {exc}") from None
        try:
            self.recorder.record([header])
        except MatchAlreadyRecorded:
            raise PlayError(f"match {header.match_id!r} is already recorded; "
                            f"coreflow play --resume {header.match_id} goes on with it") from None
        self._open(header.match_id)

    def resume(self, match_id: str) -> None:
        self._open(match_id)

    def _open(self, match_id: str) -> None:
        self.match = StoredMatch(self.recorder, match_id)
        self.table = LiveTable(self.match.lines(), self.match.append, self.keep_mistakes)

    def _reopen(self) -> None:
        """Another writer appended to this match: read it again from the store."""
        assert self.match is not None
        self._open(self.match.match_id)

    # -------------------------------------------------------------- lines
    def take(self, no: int, text: str) -> bool:
        """Answer one input line; False when the table stops (quit)."""
        text = text.strip()
        if not text or text.startswith("#"):
            return True
        if self.table is None:
            return self._take_header(no, text)
        word = text.split()[0]
        command = getattr(self, f"cmd_{word}", None) if word.isalpha() else None
        if command is not None and word not in self.table.flow.players:
            return bool(command(no, text[len(word):].strip()))
        self._enter(no, text)
        return True

    def _take_header(self, no: int, text: str) -> bool:
        try:
            line = read_notation(text, _NO_TABLE, 1) if text.startswith("{") else None
        except NotationError as exc:
            raise PlayError(f"input line {no}: {exc}") from None
        if not isinstance(line, MatchStarted):
            raise PlayError(f"input line {no}: no match to play: start one with a "
                            "match_started JSON line, the options (--match-id, --rules, "
                            "--player ...), or --resume MATCH_ID")
        self.start(line)
        assert self.table is not None
        self.speaker.say("ok", f"ok 1: match {line.match_id} started ({line.rules}, "
                         f"{line.format}, {' v '.join(line.players)})", no, seq=1)
        return True

    def _enter(self, no: int, text: str) -> None:
        table = self.table
        assert table is not None
        try:
            line = read_notation(text, table.view(), table.flow.next_seq)
        except NotationError as exc:
            self.trouble = True
            self.speaker.say("unread", f"{exc}; nothing was recorded", no)
            return
        if isinstance(line, MatchStarted):
            self.trouble = True
            self.speaker.say("refused", "a match is already being played: one match per "
                             "table (start another coreflow play for the next)", no)
            return
        if isinstance(line, TakenBack):
            self.cmd_undo(no, line.reason or "")
            return
        try:
            answer = table.enter(line)
        except RecordConflict:
            self._reopen()
            self.trouble = True
            self.speaker.say("conflict", "another writer appended to this match first; "
                             "your line was not recorded: the table now reads as stored "
                             "(type 'board', then enter the line again if it still stands)",
                             no)
            return
        if not answer.accepted:
            self.trouble = True
        self.speaker.answer(no, answer, table)

    # -------------------------------------------------------------- commands
    def cmd_help(self, no: int, _rest: str) -> bool:
        self.speaker.say("info", HELP, no)
        return True

    def cmd_legal(self, no: int, _rest: str) -> bool:
        assert self.table is not None
        self.speaker.say("info", "\n".join(self.table.legal()) or "nothing to do", no,
                         legal=self.table.legal())
        return True

    def cmd_actions(self, no: int, _rest: str) -> bool:
        assert self.table is not None
        actions = getattr(self.table.flow.rules, "actions", {})
        rows = [f"{a.id}  {a.name_ja}  ({a.name}; {a.speed}, {a.timing}"
                f"{'' if a.direct else ', started by the rules'})" for a in actions.values()]
        self.speaker.say("info", "\n".join(rows), no)
        return True

    def cmd_board(self, no: int, _rest: str) -> bool:
        from coreflow_judge.cli.render import board_text
        from coreflow_judge.projections.board import snapshot

        assert self.table is not None
        self.speaker.say("info", board_text(snapshot(self.table.flow)), no)
        return True

    def cmd_undo(self, no: int, rest: str) -> bool:
        """``undo [N] [WHY]``: take back the last N entries (1 by default)."""
        assert self.table is not None
        count, _, why = rest.partition(" ")
        entries = 1
        if count.isdigit():
            entries, rest = int(count), why
        try:
            line = self.table.take_back(rest.strip() or None, entries)
        except RecordConflict:
            self._reopen()
            self.trouble = True
            self.speaker.say("conflict", "another writer appended to this match first; "
                             "nothing was taken back", no)
            return True
        if line is None:
            self.trouble = True
            self.speaker.say("refused", f"fewer than {entries} entries are left to take back",
                             no)
            return True
        self.speaker.say("ok", f"ok {line.seq}: {_line_text(line)} (the table goes on from "
                         "before them)", no, seq=line.seq)
        return True

    def cmd_quit(self, no: int, _rest: str) -> bool:
        return False

    cmd_exit = cmd_quit

    def close(self) -> None:
        """The input ended: store what the rules derive after the last entry; the receipt
        on stderr."""
        if self.table is None or self.match is None:
            return
        self.table.finish()
        chain = self.recorder.verify_record(self.match.match_id)
        typer.echo(f"{self.match.match_id}: {chain.lines} lines recorded; head hash "
                   f"{chain.head} (coreflow verify {self.match.match_id} --head "
                   f"{chain.head})", err=True)

    # -------------------------------------------------------------- prompt
    def prompt(self) -> str:
        table = self.table
        if table is None:
            return "header> "
        flow = table.flow
        stage = " ".join(r.id for r in flow.stage) or "-"
        return (f"[turn {flow.turn} {flow.turn_player or '-'} · chance {flow.chance or '-'}"
                f" · stage {stage}] > ")

    def completions(self) -> list[str]:
        table = self.table
        if table is None:
            return []
        words = ["legal", "actions", "board", "undo", "help", "quit", "resolve", "fizzle",
                 "stage", "discard", "start", "pass", "roll"]
        words += list(table.flow.players)
        words += sorted(set(table.view().action_names.values()))
        words += [a.name_ja for a in getattr(table.flow.rules, "actions", {}).values()
                  if a.name_ja]
        words += sorted(table.flow.requests)
        return words


class _NoTable:
    """The reader's view before any match: a JSON line only."""

    players: tuple[str, ...] = ()
    action_names: dict[str, str] = {}
    request_ids: frozenset[str] = frozenset()


_NO_TABLE: Any = _NoTable()


def _input_lines(interactive: bool, prompt: Callable[[], str]) -> Iterator[tuple[int, str]]:
    """(input line number, text) from stdin; a prompt on a terminal."""
    if interactive:
        no = 0
        while True:
            no += 1
            try:
                yield no, input(prompt())
            except EOFError:
                sys.stdout.write("\n")
                return
    else:
        for no, raw in enumerate(sys.stdin, start=1):
            yield no, raw


def _enable_completion(session: Session) -> None:
    """Tab completion of commands, players, actions and request ids on a terminal."""
    try:
        import readline
    except ImportError:  # pragma: no cover - a Python built without readline
        return

    def complete(text: str, state: int) -> str | None:
        options = [w for w in session.completions() if w.startswith(text)]
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t")
    readline.parse_and_bind("tab: complete")


def _header_from_options(match_id: str | None, rules: str | None, game_format: str | None,
                         players: list[str], header: Path | None) -> MatchStarted | None:
    """The header the options give, or None when they give none."""
    from coreflow_judge.adjudicator.plugins import game_of_bare_edition

    data: dict[str, Any] = {}
    if header is not None:
        try:
            loaded = json.loads(header.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise PlayError(f"--header {header}: {exc}") from None
        if not isinstance(loaded, dict):
            raise PlayError(f"--header {header}: a JSON object (a match_started line)")
        data.update(loaded)
    if rules is not None:
        game, sep, _edition = rules.partition("/")
        if not sep:
            bare = game_of_bare_edition()
            if bare is None:
                raise PlayError(f"--rules {rules!r}: give GAME/EDITION")
            rules, game = f"{bare.id}/{rules}", bare.id
        data.update(rules=rules, game=game)
    if match_id is not None:
        data["match_id"] = match_id
    if game_format is not None:
        data["format"] = game_format
    if players:
        data["players"] = players
    if not data:
        return None
    data.setdefault("type", "match_started")
    data.setdefault("log_format", 1)
    data.setdefault("seq", 1)
    if "format" not in data and "game" in data:
        from coreflow_judge.adjudicator.plugins import game_plugin

        try:
            data["format"] = game_plugin(data["game"]).default_format
        except Exception:  # noqa: BLE001 - named by the validation below
            pass
    missing = [f for f in ("match_id", "rules", "players") if f not in data]
    if missing:
        raise PlayError("to start a match give " + ", ".join(
            {"match_id": "--match-id", "rules": "--rules", "players": "--player (each)"}[m]
            for m in missing))
    try:
        line = read_notation(json.dumps(data), _NO_TABLE, 1)
    except NotationError as exc:
        raise PlayError(f"the match header: {exc}") from None
    if not isinstance(line, MatchStarted):
        raise PlayError("the header must be a match_started line")
    return line
