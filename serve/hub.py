"""The tables a server serves: each one match kept by the same live table as ``coreflow
play`` (:class:`~adjudicator.live.LiveTable`), over the event store.

A submission from a table page carries the client's id, its own sequence number and the
last seq of the record the page showed (``at``). It is answered once: the answer is kept
in the store (:meth:`ServeDB.answer`), and the same submission sent again (a reload, a
dropped connection, a second tap) gets that answer back and enters nothing. A submission
made on a record that has moved on since the page was drawn (another device of the table,
or the same line already stored before an answer could be kept) is not entered: the page
is told to look again. So a line is never lost once answered "accepted", and never
entered twice.

Nothing here decides a rule: the live table judges (and :mod:`cli.session` says the
answers in words, as ``play`` says them).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from coreflow_judge.adjudicator.judge import start_flow
from coreflow_judge.adjudicator.live import Answer, LiveTable
from coreflow_judge.adjudicator.notation import NotationError, read_notation
from coreflow_judge.cli.play import Output
from coreflow_judge.cli.session import MOVED_ON, Speaker, StoredMatch, _finding_text
from coreflow_judge.events.models import MAX_LINE_BYTES, LogLine, MatchStarted, TakenBack
from coreflow_judge.events.store import MatchRecorder, match_record_id, open_recorder
from coreflow_judge.serve.db import EventRow, ServeDB, TableRow

T = TypeVar("T")
MAX_ENTRY_CHARS = 4096
"""An entry typed at a table page is at most this long (a line of notation; a JSON line
may be up to a log line's limit, :data:`~events.models.MAX_LINE_BYTES`)."""
MAX_REASON_CHARS = 500
"""An undo's or a ruling's reason: at most this many characters."""


class NotServed(LookupError):
    """No table of that match id is served."""


@dataclass(slots=True)
class Served:
    """One table: its lock (one entry at a time in this process) and its live table."""

    row: TableRow
    lock: threading.Lock = field(default_factory=threading.Lock)
    match: StoredMatch | None = None
    live: LiveTable | None = None


class Hub:
    """Every table of the store this server serves, and the submissions to them."""

    def __init__(self, store: str | None, db: ServeDB,
                 recorder: MatchRecorder | None = None) -> None:
        self.store = store
        self.db = db
        self.recorder: MatchRecorder = recorder if recorder is not None else \
            open_recorder(store)
        self._served: dict[str, Served] = {}
        self._guard = threading.Lock()

    def close(self) -> None:
        self.recorder.close()

    # ------------------------------------------------------------------ tables
    def create_table(self, event: EventRow, round_: str, table_no: str,
                     players: list[str], header: dict[str, Any] | None = None) -> TableRow:
        """Record a new match for a table of ``event`` (its header: the event's rules and
        format, the players, ``header``'s decks and cards) and serve it."""
        from coreflow_judge._table import match_header

        match_id = f"{event.event_id}-r{round_}-t{table_no}"
        data: dict[str, Any] = {**(header or {}), "match_id": match_id, "rules": event.rules,
                                "players": players,
                                "event": {"tournament": event.name, "round": round_,
                                          "table": table_no}}
        for key in ("type", "seq", "hash", "game"):
            data.pop(key, None)
        if event.format:
            data["format"] = event.format
        line = match_header(data)
        start_flow(line, 1)  # a header the rules can use, before anything is stored
        self.recorder.record([line])
        row = TableRow(match_id, event.event_id, str(round_), str(table_no),
                       tuple(line.players))
        self.db.add_table(row)
        return row

    def served(self, match_id: str) -> Served:
        with self._guard:
            got = self._served.get(match_id)
            if got is None:
                row = self.db.table(match_id)
                if row is None:
                    raise NotServed(match_id)
                got = self._served[match_id] = Served(row)
            return got

    def _fresh(self, served: Served) -> LiveTable:
        """The table's live table, read again when the store holds another record than
        it (another server process, or this one after a failed append). Call with the
        table's lock held."""
        stored = self._stored_version(served.row.match_id)
        if served.live is None or len(served.live.stored) != stored:
            served.match = StoredMatch(self.recorder, served.row.match_id)
            served.live = LiveTable(served.match.lines(), served.match.append)
        return served.live

    def _stored_version(self, match_id: str) -> int:
        """How many lines the store holds of the match (its record's version)."""
        events = self.recorder.recorder.select_events(match_record_id(match_id), desc=True,
                                                      limit=1)
        return int(events[0].originator_version) if events else 0

    # ------------------------------------------------------------------ entering
    def submit(self, match_id: str, client: str, client_seq: int, at: int | None,
               text: str, lang: str = "en") -> dict[str, Any]:
        """One entry typed (or tapped) at a table: the answer, given once per
        ``(client, client_seq)``."""
        return self._once(match_id, client, client_seq, at, lang,
                          lambda live, speaker: self._enter(live, speaker, text))

    def undo(self, match_id: str, client: str, client_seq: int, at: int | None,
             reason: str, lang: str = "en", entries: int = 1, by: str = "table"
             ) -> dict[str, Any]:
        """Take back the last ``entries`` entries with a reason (a ``taken_back`` line)."""
        def take(live: LiveTable, speaker: Speaker) -> dict[str, Any]:
            why = reason.strip()[:MAX_REASON_CHARS] or None
            if by == "judge":
                why = f"judge: {why}" if why else "judge"
            line = live.take_back(why, entries)
            if line is None:
                return {"status": "refused",
                        "reasons": [speaker.text("play.undo_too_many", count=entries)]}
            return {"status": "accepted", "seq": line.seq,
                    "said": speaker.text("play.undone", seq=line.seq, line=speaker.line(line)),
                    "stored": [_line_entry(line, speaker)]}

        return self._once(match_id, client, client_seq, at, lang, take)

    def finish(self, match_id: str, client: str, client_seq: int, at: int | None,
               lang: str = "en") -> dict[str, Any]:
        """The table stops: store what the rules derive after the last entry, and the
        lines filled in when they end the game (``play``'s end of input)."""
        def stop(live: LiveTable, speaker: Speaker) -> dict[str, Any]:
            return {"status": "accepted",
                    "stored": [_line_entry(ln, speaker) for ln in live.finish()]}

        return self._once(match_id, client, client_seq, at, lang, stop)

    def _once(self, match_id: str, client: str, client_seq: int, at: int | None, lang: str,
              act: Any) -> dict[str, Any]:
        served = self.served(match_id)
        with served.lock:
            before = self.db.answered(match_id, client, client_seq)
            if before is not None:
                return {**before, "again": True}
            live = served.live
            if live is None or at is None or at != len(live.stored):
                # Read the store only when the page's record is not the one kept here:
                # when it is, an append on a record another server extended meanwhile is
                # refused by the store (a conflict), answered below as "moved".
                live = self._fresh(served)
            if at is not None and at != len(live.stored):
                return _moved(live, lang)
            speaker = _speaker(lang, live)
            try:
                answer: dict[str, Any] = act(live, speaker)
            except MOVED_ON:
                served.live = None
                return _moved(self._fresh(served), lang)
            answer["last_seq"] = len(live.stored)
            post: tuple[str, str, dict[str, Any]] | None = None
            if answer["status"] == "accepted":
                post = (served.row.event_id, "line", {"last_seq": answer["last_seq"]})
            elif answer["status"] == "refused":
                post = (served.row.event_id, "refused",
                        {"entry": answer.get("entry"), "reasons": answer.get("reasons", []),
                         "codes": answer.get("codes", []), "at": answer["last_seq"],
                         "line": answer.get("line")})
            self.db.answer(match_id, client, client_seq, answer, post)
        return answer

    def _enter(self, live: LiveTable, speaker: Speaker, text: str) -> dict[str, Any]:
        text = text.strip()
        if not text:
            return {"status": "unread", "reasons": [speaker.text("serve.empty")]}
        if len(text) > MAX_ENTRY_CHARS and not text.startswith("{") or \
                len(text.encode("utf-8")) > MAX_LINE_BYTES:
            return {"status": "unread", "reasons": [speaker.text("serve.too_long")]}
        if not text.isprintable():
            return {"status": "unread", "reasons": [speaker.text("serve.unprintable")]}
        try:
            line = read_notation(text, live.view(), live.flow.next_seq)
        except NotationError as exc:
            return {"status": "unread", "entry": text,
                    "reasons": [speaker.text("play.unread", error=exc)]}
        if isinstance(line, MatchStarted):
            return {"status": "refused", "entry": text,
                    "reasons": [speaker.text("play.second_match")]}
        if isinstance(line, TakenBack):
            return {"status": "unread", "entry": text,
                    "reasons": [speaker.text("serve.undo_button")]}
        answer = live.enter(line)
        if answer.accepted and live.over and not live.filled:
            # The game is decided by the entry itself: nothing more will be entered, so
            # what the rules derive after it (the end) is stored now, as ``play`` stores
            # it when the table stops. When lines filled in decide it, the table may
            # still say them with what they did (their effects): the scorekeeper stores
            # the end with "Store the end" (:meth:`finish`), or by saying them.
            answer.stored.extend(live.finish())
        out = _answer_dict(answer, text, speaker, live, line)
        if out["status"] == "refused":
            # The entry as read, for the judge's viewer (the record as it would be with it).
            out["line"] = line.model_dump(mode="json", exclude_none=True, exclude={"hash"})
        return out

    # ------------------------------------------------------------------ reading
    def read(self, match_id: str, fn: Callable[[LiveTable], T]) -> T:
        """``fn`` of the table's live table as the store holds it now, with the table's
        lock held (``fn`` reads; it enters nothing)."""
        served = self.served(match_id)
        with served.lock:
            return fn(self._fresh(served))

    def lines(self, match_id: str) -> list[LogLine]:
        """The table's record as the store holds it now."""
        return self.read(match_id, lambda live: list(live.stored))


def _speaker(lang: str, live: LiveTable) -> Speaker:
    speaker = Speaker(io.StringIO(), Output.text, lang)
    speaker.learn_names(live.header.rules)
    return speaker


def _moved(live: LiveTable, lang: str) -> dict[str, Any]:
    return {"status": "moved", "last_seq": len(live.stored),
            "reasons": [_speaker(lang, live).text("serve.moved")]}


def _line_entry(line: LogLine, speaker: Speaker) -> dict[str, Any]:
    return {"seq": line.seq, "type": line.type, "text": speaker.line(line)}


def _answer_dict(answer: Answer, text: str, speaker: Speaker, live: LiveTable,
                 line: LogLine) -> dict[str, Any]:
    """An answer as the page shows it, in the table's language: a refusal's reasons in
    the table's words (``play``'s :meth:`Speaker.refusal`)."""
    lang = speaker.lang
    if not answer.accepted:
        errors = answer.errors or answer.findings
        return {"status": "refused", "entry": text,
                "reasons": [speaker.refusal(f, line, live) for f in errors],
                "codes": [f.code for f in errors],
                "findings": [_finding_text(f, lang) for f in errors]}
    out: dict[str, Any] = {"status": "accepted", "entry": text,
                           "seq": answer.line.seq if answer.line is not None else None,
                           "stored": [_line_entry(ln, speaker) for ln in answer.stored]}
    if answer.restated:
        out["restated"] = True
    if answer.filled:
        out["filled"] = [_line_entry(ln, speaker) for ln in answer.filled]
    notes = [f for f in answer.findings if f.severity != "error"]
    if notes:
        out["notes"] = [_finding_text(f, lang) for f in notes]
    return out
