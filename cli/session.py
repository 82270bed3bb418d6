"""The table session behind ``coreflow play``: reads input lines, answers each, keeps
the store in step.

It reads each line (:mod:`adjudicator.notation`), has the live table judge and store
it (:class:`~adjudicator.live.LiveTable`) and answers: one line of text, or one JSON
object, per input line. The command is :mod:`cli.play`.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.live import Answer, LiveTable
from coreflow_judge.adjudicator.notation import NotationError, TableView, read_notation
from coreflow_judge.cli.i18n import HELP_JA, japanese_labels, speed_word
from coreflow_judge.cli.i18n import text as say_text
from coreflow_judge.cli.play import Output
from coreflow_judge.events.evidence import StoredChain
from coreflow_judge.events.models import MAX_LINE_BYTES, LogLine, MatchStarted, TakenBack
from coreflow_judge.events.printable import bounded, escaped, json_escaped
from coreflow_judge.events.store import (
    AppendRejected,
    MatchAlreadyRecorded,
    MatchRecord,
    MatchRecorder,
    RecordConflict,
)

MOVED_ON = (RecordConflict, AppendRejected)
"""What an append raises when the store holds lines the table has not seen (another
writer appended first): nothing of ours was written; the table is read again."""
NOW_SHOWN = 3
"""Entries a refusal names of what the table can do now (``legal`` lists them all)."""
UNDO_DIGITS = 9
"""``undo N``: N has at most this many digits (a record holds fewer entries)."""
FINISH_TRIES = 10
"""How often the end of the input tries to store what the rules derive after the last
entry while another writer keeps appending (each try reads the match again first)."""

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
    append, all or nothing.

    The table is built from :meth:`lines`, the very record this object appends to (one
    read of the store): the table and the record it extends never disagree. Were they
    two reads, another writer's lines stored between them would put the table ahead of
    its record, and the next append would be refused as not continuing it."""

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
        """The record's lines, as read when it was loaded (or reloaded)."""
        return list(self.record.lines)


# ------------------------------------------------------------------ answers


def _line_text(line: LogLine, lang: str = "en",
               action_name: Callable[[str], str] = str) -> str:
    """A stored line in a few words (``action_name``: an action id as the answer names it)."""
    d = line.model_dump(exclude_none=True, exclude={"seq", "hash", "at"})
    kind = d.pop("type")

    def t(key: str, **fields: object) -> str:
        return say_text(lang, key, **fields)

    if kind == "request":
        extra = [*d.get("key_cards", []), *(f"{c['kind']}:{c['ref']}" for c in d.get("costs", [])),
                 *(f">{x}" for x in d.get("targets", []))]
        return t("line.request", player=d["player"], action=action_name(d["action"]),
                 request=d["request"]) + (f" ({' '.join(extra)})" if extra else "")
    if kind == "pass":
        return t("line.pass", player=d["player"]) + (f" ({d['note']})" if d.get("note") else "")
    if kind == "chance_moved":
        return t("line.chance", to=d["to"])
    if kind == "turn_started":
        return t("line.turn", turn=d["turn"], player=d["player"])
    if kind in ("stage", "discard"):
        return t(f"line.{kind}", request=d["request"])
    if kind == "trigger":
        return t("line.trigger", request=d["request"], action=action_name(d["action"]),
                 controller=d.get("controller", "?"))
    if kind == "resolve":
        return t(f"line.{d['result']}", request=d["request"])
    if kind == "game_ended":
        who = t("play.wins", winner=d["winner"]) if d.get("winner") else t("play.a_draw")
        return t("line.ended", who=who) + (
            t("line.reason", reason=d["reason"]) if d.get("reason") else "")
    if kind == "taken_back":
        return t("line.taken_back", count=d["lines"], s="s" if d["lines"] != 1 else "")
    if kind == "game_started":
        return t("line.game_started", player=d["first_player"])
    if kind == "roll":
        return t("line.roll", player=d["player"], result=d["result"], sides=d["sides"])
    return kind


def _finding_text(f: Finding, lang: str = "en") -> str:
    """``code: message``; in Japanese ``code（meaning）: message``, the message English."""
    if lang == "ja":
        from coreflow_judge.adjudicator.findings import meaning

        said = meaning(f.code, "ja")
        if said is not None:
            return f"{f.code}（{said}）: {f.message.rstrip('.')}"
    return f"{f.code}: {f.message.rstrip('.')}"


class Speaker:
    """Writes one answer per input line, as text or JSON."""

    def __init__(self, out: TextIO, fmt: Output, lang: str = "en") -> None:
        self.out = out
        self.fmt = fmt
        self.lang = lang if fmt is Output.text else "en"
        """The language of the answers: JSON answers are English in every language."""
        self._actions: dict[str, str] = {}

    def text(self, key: str, **fields: object) -> str:
        """A fixed answer in the speaker's language."""
        return say_text(self.lang, key, **fields)

    def action_name(self, action: str) -> str:
        """An action id as the answers name it: its Japanese name in Japanese."""
        return self._actions.get(action, action)

    def learn_names(self, rules: str) -> None:
        """The match's rules (``blackpoker/9.0``): its actions' Japanese names, if Japanese."""
        if self.lang == "ja":
            self._actions = dict(japanese_labels(rules).actions)

    def line(self, line: LogLine) -> str:
        return _line_text(line, self.lang, self.action_name)

    def say(self, status: str, message: str, no: int | None = None, **data: Any) -> None:
        """One answer. An answer to a line is one line, escaped and held to a size (it may
        echo what was typed: :func:`~events.printable.bounded`); ``info`` (the board, the
        help) is lines the session wrote, each escaped."""
        message = escaped(message, keep_newlines=True) if status == "info" \
            else bounded(message)
        if self.fmt is Output.json:
            obj: dict[str, Any] = {"input": no, "status": status, "message": message}
            obj.update(data)
            self.out.write(json_escaped(json.dumps(obj, ensure_ascii=False)) + "\n")
        else:
            shown = say_text(self.lang, f"status.{status}") if status not in ("ok", "info") \
                else ""
            self.out.write(f"{shown}: {message}\n" if shown else f"{message}\n")
        self.out.flush()

    def answer(self, no: int, answer: Answer, table: LiveTable,
               line: LogLine | None = None) -> None:
        """The answer to one entry (``line``: the entry as read, for a refusal's words)."""
        if not answer.accepted:
            reasons = self.text("play.and").join(self.refusal(f, line, table)
                                                 for f in answer.errors)
            self.say("refused", self.text("play.refused", reasons=reasons,
                                          now=self.now(table)), no,
                     findings=[f.as_dict() for f in answer.findings])
            return
        parts: list[str] = []
        entry = answer.line
        if answer.restated and entry is not None:
            note = self.text("play.unrecorded", what=", ".join(answer.unrecorded)) \
                if answer.unrecorded else ""
            self.say("ok", self.text("play.restated", seq=entry.seq, line=self.line(entry))
                     + note, no, seq=entry.seq, stored=[], restated=True, filled=[],
                     findings=[])
            return
        derived = [ln for ln in answer.stored if ln is not entry]
        head = f"ok {entry.seq}: {self.line(entry)}" if entry is not None else "ok"
        if derived:
            parts.append(self.text("play.with", lines=", ".join(
                f"{d.seq} {self.line(d)}" for d in derived)))
        for f in answer.findings:
            parts.append(f"{say_text(self.lang, f'severity.{f.severity}')} "
                         f"{_finding_text(f, self.lang)}")
        if answer.filled:
            parts.append(self.text("play.then", lines=", ".join(
                f"{d.seq} {self.line(d)}" for d in answer.filled)))
        if table.over:
            result = table.flow.result
            if result is not None:
                who = self.text("play.wins", winner=result.winner) if result.winner \
                    else self.text("play.a_draw")
                key = "play.over_ahead" if answer.filled else "play.over"
                parts.append(self.text(key, who=who, reason=result.reason))
        self.say("ok", head + ("; " + "; ".join(parts) if parts else ""), no,
                 seq=entry.seq if entry is not None else None,
                 stored=[ln.model_dump(mode="json", exclude_none=True) for ln in answer.stored],
                 filled=[ln.model_dump(mode="json", exclude_none=True) for ln in answer.filled],
                 findings=[f.as_dict() for f in answer.findings])

    def now(self, table: LiveTable, shown: int = NOW_SHOWN) -> str:
        """What the table can do now, the first few entries of ``legal`` (no notes)."""
        entries = [e.split("   (", 1)[0] for e in table.legal(shown=1)
                   if not e.startswith("  ")]
        if not entries:
            return ""
        more = self.text("play.now_more") if len(entries) > shown else ""
        return self.text("play.now", entries=" · ".join(entries[:shown]) + more)

    def refusal(self, f: Finding, line: LogLine | None, table: LiveTable) -> str:
        """Why an entry was refused, in the table's words (an error finding of it)."""
        flow = table.flow
        code = f.code

        def t(key: str, **fields: object) -> str:
            return self.text(f"refusal.{key}", code=code, **fields)

        def action_of(aid: object) -> str:
            return self.action_name(str(aid))

        def request_words(rid: str) -> str:
            req = flow.requests.get(rid)
            if req is None:
                return rid
            return f"{rid} ({self.action_name(req.action.id)}, {req.controller})"

        player = getattr(line, "player", None)
        action = action_of(getattr(line, "action", "")) if line is not None else ""
        if code == "timing.no-chance" and player is not None:
            holder = f.expected
            if holder == "system" and flow.stage:
                return t("no_chance_system", player=player, top=request_words(flow.stage[-1].id))
            if holder is None:
                return t("no_chance_nobody", player=player)
            return t("no_chance", player=player, holder=holder)
        if code == "timing.main-not-turn-player":
            return t("main_not_turn_player", action=action, turn_player=f.expected)
        if code == "timing.main-stage-not-empty":
            ids = f.actual if isinstance(f.actual, list) else [r.id for r in flow.stage]
            return t("main_stage_not_empty", action=action,
                     ids=", ".join(request_words(str(i)) for i in ids))
        if code == "timing.once-per-turn" and player is not None:
            return t("once_per_turn", player=player, action=action)
        if code == "order.request-never-resolved":
            ids = [r.id for r in flow.stage] or [str(f.expected).removeprefix("resolve ")]
            return t("never_resolved", ids=", ".join(request_words(i) for i in ids))
        if code == "timing.resolved-before-all-passed" and isinstance(f.expected, list):
            passed = f.actual if isinstance(f.actual, list) else []
            waiting = [p for p in f.expected if p not in passed]
            rid = str(getattr(line, "request", ""))
            return t("not_all_passed", request=request_words(rid),
                     waiting=", ".join(map(str, waiting)) or "-")
        if code == "order.trigger-missed" and isinstance(f.expected, str) and \
                f.expected.startswith("resolve "):
            what = f.expected.removeprefix("resolve ")
            return t("waits", what=request_words(what) if what in flow.requests else what)
        if code == "order.stage-not-lifo" and isinstance(f.expected, str):
            return t("not_top", top=request_words(f.expected))
        from coreflow_judge.adjudicator.findings import meaning

        said = meaning(code, "ja") if self.lang == "ja" else None
        message = f.message.rstrip(".")
        return t("other", message=f"{said}: {message}" if said else message)

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
        self.speaker.learn_names(self.table.flow.header.rules)

    def _reopen(self) -> None:
        """Another writer appended to this match: read it again from the store."""
        assert self.match is not None
        self._open(self.match.match_id)

    # -------------------------------------------------------------- lines
    def take(self, no: int, text: str | Unreadable) -> bool:
        """Answer one input line; False when the table stops (quit)."""
        if isinstance(text, str):
            text = _unreadable(text) or text
        if isinstance(text, Unreadable):
            if self.table is None:
                raise PlayError(f"input line {no}: {text}")
            self.trouble = True
            self.speaker.say("unread", self.speaker.text("play.unread", error=text), no)
            return True
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
        self.speaker.say("ok", self.speaker.text(
            "play.started", match=line.match_id, rules=line.rules, format=line.format,
            players=" v ".join(line.players)), no, seq=1)
        return True

    def _enter(self, no: int, text: str) -> None:
        table = self.table
        assert table is not None
        try:
            line = read_notation(text, table.view(), table.flow.next_seq)
        except NotationError as exc:
            self.trouble = True
            self.speaker.say("unread", self.speaker.text("play.unread", error=exc), no)
            return
        if isinstance(line, MatchStarted):
            self.trouble = True
            self.speaker.say("refused", self.speaker.text("play.second_match"), no)
            return
        if isinstance(line, TakenBack):
            self.cmd_undo(no, line.reason or "")
            return
        try:
            answer = table.enter(line)
        except MOVED_ON:
            self._reopen()
            self.trouble = True
            self.speaker.say("conflict", self.speaker.text("play.conflict"), no)
            return
        if not answer.accepted:
            self.trouble = True
        self.speaker.answer(no, answer, table, line)

    # -------------------------------------------------------------- commands
    def cmd_help(self, no: int, _rest: str) -> bool:
        self.speaker.say("info", HELP_JA if self.speaker.lang == "ja" else HELP, no)
        return True

    def cmd_legal(self, no: int, rest: str) -> bool:
        """``legal [PLAYER] [ACTION]``: what may be done now (only that player's requests,
        of that action)."""
        table = self.table
        assert table is not None
        player: str | None = None
        action: str | None = None
        for word in rest.split():
            if word in table.flow.players and player is None:
                player = word
            else:
                action = table.view().action_names.get(word, word)
        entries = table.legal(player, action)
        self.speaker.say("info", "\n".join(entries) or self.speaker.text("play.nothing_to_do"),
                         no, legal=entries)
        return True

    def cmd_actions(self, no: int, _rest: str) -> bool:
        assert self.table is not None
        actions = getattr(self.table.flow.rules, "actions", {})
        lang = self.speaker.lang
        rows = [self.speaker.text(
            "play.action_row", id=a.id, name_ja=a.name_ja, name=a.name,
            speed=speed_word(lang, a.speed), timing=speed_word(lang, a.timing),
            rules_only="" if a.direct else self.speaker.text("play.rules_only"))
            for a in actions.values()]
        self.speaker.say("info", "\n".join(rows), no)
        return True

    def cmd_board(self, no: int, _rest: str) -> bool:
        """The table now: after the last stored line and what the table holds after it
        (the derived lines and the lines filled in), numbered as the record numbers them."""
        from coreflow_judge.cli.render import board_text
        from coreflow_judge.projections.board import snapshot

        table = self.table
        assert table is not None
        board = snapshot(table.flow)
        board["seq"] = table.last_seq + len(table.ahead())
        self.speaker.say("info", board_text(board, self.speaker.lang), no)
        return True

    def cmd_undo(self, no: int, rest: str) -> bool:
        """``undo [N] [WHY]``: take back the last N entries (1 by default)."""
        assert self.table is not None
        count, _, why = rest.partition(" ")
        entries = 1
        if count.isascii() and count.isdigit():
            if len(count) > UNDO_DIGITS:  # no record has that many entries
                self.trouble = True
                self.speaker.say("refused", self.speaker.text(
                    "play.undo_too_many", count=f"10^{UNDO_DIGITS}"), no)
                return True
            entries, rest = int(count), why
            if entries == 0:
                self.trouble = True
                self.speaker.say("refused", self.speaker.text("play.undo_zero"), no)
                return True
        try:
            line = self.table.take_back(rest.strip() or None, entries)
        except MOVED_ON:
            self._reopen()
            self.trouble = True
            self.speaker.say("conflict", self.speaker.text("play.undo_conflict"), no)
            return True
        if line is None:
            self.trouble = True
            self.speaker.say("refused", self.speaker.text("play.undo_too_many", count=entries),
                             no)
            return True
        self.speaker.say("ok", self.speaker.text("play.undone", seq=line.seq,
                                                 line=self.speaker.line(line)), no, seq=line.seq)
        return True

    def cmd_quit(self, no: int, _rest: str) -> bool:
        return False

    cmd_exit = cmd_quit

    def close(self) -> tuple[StoredChain, bool] | None:
        """The input ended: store what the rules derive after the last entry. The record's
        chain, for the receipt (:mod:`cli.play` prints it), and whether the game is over
        (else this is a break); None if no match was opened."""
        if self.table is None or self.match is None:
            return None
        for _try in range(FINISH_TRIES):
            try:
                self.table.finish()
                break
            except MOVED_ON:
                # Another writer appended meanwhile: what the rules derive now follows its
                # lines; read the match again and derive it from there.
                self._reopen()
        else:
            print(f"{self.match.match_id}: another writer keeps appending; what the rules "
                  "derive after the last line is left to it", file=sys.stderr)
        return self.recorder.verify_record(self.match.match_id), self.table.over

    # -------------------------------------------------------------- prompt
    def prompt(self) -> str:
        table = self.table
        if table is None:
            return "header> "
        flow = table.flow
        stage = " ".join(r.id for r in flow.stage) or "-"
        return self.speaker.text("play.prompt", turn=flow.turn, player=flow.turn_player or "-",
                                 chance=flow.chance or "-", stage=stage)

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


_NO_TABLE = TableView((), {}, ())
"""The reader's view before any match: a JSON line only."""


class Unreadable(str):
    """Why an input line is not text the session can read (not UTF-8, too long)."""


def _unreadable(text: str) -> Unreadable | None:
    """Why a line read from a terminal is not text (None: it is): bytes that are not
    UTF-8 reach it as lone surrogates (the terminal is read with ``surrogateescape``)."""
    if text.isprintable() or text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return Unreadable(f"not UTF-8 (byte {exc.start + 1} of the line)")
    return None


def _decoded(raw: bytes) -> str | Unreadable:
    """One piped input line as text, or why it is not."""
    if len(raw) > MAX_LINE_BYTES:
        return Unreadable(f"longer than {MAX_LINE_BYTES} bytes (the limit of a log line)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Unreadable(f"not UTF-8: {exc.reason} at byte {exc.start + 1} of the line")


def _input_lines(interactive: bool, prompt: Callable[[], str]
                 ) -> Iterator[tuple[int, str | Unreadable]]:
    """(input line number, text) from stdin; a prompt on a terminal. A line that is not
    UTF-8, or longer than a log line may be, comes as :class:`Unreadable`: the session
    answers it and goes on (a piped line is read at most a log line's length at a time)."""
    if interactive:
        if isinstance(sys.stdin, io.TextIOWrapper):
            sys.stdin.reconfigure(errors="surrogateescape")
        no = 0
        while True:
            no += 1
            try:
                yield no, input(prompt())
            except EOFError:
                sys.stdout.write("\n")
                return
    else:
        from coreflow_judge.events.reader import bounded_lines

        for no, raw in enumerate(bounded_lines(sys.stdin.buffer), start=1):
            yield no, _decoded(raw)


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
