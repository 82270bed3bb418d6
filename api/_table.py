"""A live table: push a line, get the answer (the public API's ``Table``).

The same :class:`~adjudicator.live.LiveTable` that ``coreflow play`` keeps: each line
pushed is judged at once and, if the rules allow it (or mistakes are kept on purpose),
stored with the lines the rules derived before it. The record is kept in memory, or in
an event store as ``coreflow play`` keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.judge import Report, judge_lines, start_flow
from coreflow_judge.adjudicator.live import Answer, LiveTable
from coreflow_judge.adjudicator.next_step import NextStep, next_step
from coreflow_judge.adjudicator.notation import TableView, read_notation
from coreflow_judge.events.models import CORE_LINES, LogLine, MatchStarted, TakenBack
from coreflow_judge.events.reader import lines_of_data, lines_of_header
from coreflow_judge.projections.board import snapshot

if TYPE_CHECKING:
    from coreflow_judge.events.store import MatchRecord, MatchRecorder

_NO_TABLE = TableView((), {}, ())


def match_header(header: MatchStarted | Mapping[str, Any] | str) -> MatchStarted:
    """A ``match_started`` line from a model, a dict or JSON text; in a dict, ``type``,
    ``seq`` and ``log_format`` may be left out, ``game`` too (the rules name it:
    ``blackpoker/9.0``; a bare ``9.0`` is the game that takes bare editions), and
    ``format`` (the game's default)."""
    if isinstance(header, MatchStarted):
        return header.model_copy(update={"seq": 1, "hash": None})
    data = dict(json.loads(header) if isinstance(header, str) else header)
    data.setdefault("type", "match_started")
    data.setdefault("seq", 1)
    data.setdefault("log_format", 1)
    rules = data.get("rules")
    if isinstance(rules, str):
        game, sep, _edition = rules.partition("/")
        if not sep and "game" not in data:
            from coreflow_judge.adjudicator.plugins import game_of_bare_edition

            bare = game_of_bare_edition()
            if bare is not None:
                data["rules"], game = f"{bare.id}/{rules}", bare.id
        data.setdefault("game", game)
    if "format" not in data and isinstance(data.get("game"), str):
        from coreflow_judge.adjudicator.plugins import game_plugin

        try:
            data["format"] = game_plugin(data["game"]).default_format
        except Exception:  # noqa: BLE001 - an unknown game: the validation names it
            pass
    line = (lines_of_data(data) or CORE_LINES).validate_python(data)
    if not isinstance(line, MatchStarted):
        raise ValueError("a table starts with a match_started line")
    return line


class Table:
    """One match at the table, line by line (``coreflow play`` without the terminal).

    ``Table(header)`` starts a new match: ``header`` is a ``match_started`` line (a
    model, a dict or JSON; see :func:`match_header`). ``store``: keep the record in that
    event store (a SQLite file or a ``postgresql://`` URL) as ``coreflow play`` does,
    else in memory. ``keep_mistakes``: store a line that breaks a rule too (its findings
    in the answer), as ``coreflow play --keep-mistakes`` does.
    """

    def __init__(self, header: MatchStarted | Mapping[str, Any] | str, *,
                 store: str | None = None, keep_mistakes: bool = False) -> None:
        line = match_header(header)
        start_flow(line, 1)  # a header the rules can use, before anything is stored
        self._recorder: MatchRecorder | None = None
        self._record: MatchRecord | None = None
        if store is not None:
            self._open(store)
            assert self._recorder is not None
            self._recorder.record([line])
            self._record = self._recorder.load(line.match_id)
        self._live = LiveTable([line], self._append, keep_mistakes)

    @classmethod
    def resume(cls, match_id: str, store: str | None = None, *,
               keep_mistakes: bool = False) -> Table:
        """Go on with a match recorded in ``store`` (``coreflow play --resume``)."""
        table = cls.__new__(cls)
        table._recorder = None
        table._open(store)
        assert table._recorder is not None
        from coreflow_judge._log import MatchNotRecorded, near_ids, store_name
        from coreflow_judge.events.store import MatchNotFound

        try:
            table._record = table._recorder.load(match_id)
        except MatchNotFound:
            known = table._recorder.match_ids()
            table.close()
            raise MatchNotRecorded(match_id, store_name(store),
                                   near_ids(match_id, known)) from None
        table._live = LiveTable(list(table._record.lines), table._append, keep_mistakes)
        return table

    # ------------------------------------------------------------------ playing
    def push(self, entry: str | Mapping[str, Any] | LogLine) -> Answer:
        """Enter one line and get the answer: ``accepted``, the ``line`` as stored (its
        seq), every line ``stored`` for it (the derived ones before it too), the lines
        ``filled`` in after it (they need no decision: stored with the next entry) and
        the ``findings`` (an entry with an error finding is refused unless mistakes are
        kept; nothing of a refused entry is stored).

        ``entry``: a line of the table's notation (``"alice pass"``, ``"resolve r1"``;
        docs/play.md), any log line as JSON text or a dict (``seq`` may be left out), or
        a log line model. A line that cannot be read raises
        :class:`~adjudicator.notation.NotationError` (a ``ValueError``)."""
        live = self._live
        seq = live.flow.next_seq
        if isinstance(entry, str):
            line = read_notation(entry, live.view(), seq)
        elif isinstance(entry, Mapping):
            line = lines_of_header(live.header).validate_python({"seq": seq, **entry})
        else:
            line = entry
        if isinstance(line, MatchStarted):
            raise ValueError("a match_started line starts a match; this table has started")
        if isinstance(line, TakenBack):
            taken = live.take_back(line.reason)
            return Answer(taken is not None, taken, [taken] if taken else [])
        return live.enter(line)

    def undo(self, reason: str | None = None, entries: int = 1) -> TakenBack | None:
        """Take back the last ``entries`` entries in one correction (a ``taken_back``
        line); None when fewer stand."""
        return self._live.take_back(reason, entries)

    def finish(self) -> list[LogLine]:
        """Store what the rules derive after the last entry (the record then ends as
        ``coreflow normalize`` ends the log); the lines stored."""
        return self._live.finish()

    # ------------------------------------------------------------------ reading
    @property
    def lines(self) -> list[LogLine]:
        """The record so far: the complete log of what was accepted."""
        return list(self._live.stored)

    @property
    def over(self) -> bool:
        """The rules decided the game: nothing more may be played."""
        return self._live.over

    def legal(self, player: str | None = None, action: str | None = None) -> list[str]:
        """What may be done now, in the notation (``coreflow play``'s ``legal``): the
        lines filled in first, then each entry with a note. ``player``: only theirs,
        named as they may see them; ``action``: only that action's."""
        return self._live.legal(player, action)

    def next_step(self) -> NextStep:
        """What the rules want next (as :func:`coreflow_judge.next_step`)."""
        return next_step(self._live.flow)

    def board(self) -> dict[str, Any]:
        """The board now (as :meth:`coreflow_judge.Log.board` gives it)."""
        return snapshot(self._live.flow)

    def judge(self) -> Report:
        """The judge's report on the record so far."""
        return judge_lines(list(enumerate(self._live.stored, start=1)))

    # ------------------------------------------------------------------ the store
    def close(self) -> None:
        """Close the event store (a table in memory has nothing to close)."""
        recorder, self._recorder = self._recorder, None
        close = getattr(recorder, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _open(self, store: str | None) -> None:
        from coreflow_judge.events.store import open_recorder

        self._recorder = open_recorder(store)

    def _append(self, lines: list[LogLine]) -> None:
        """Keep accepted lines: in the store, one append each, all or nothing."""
        if self._recorder is None or self._record is None or not lines:
            return
        try:
            self._record.extend(lines)
            self._recorder.commit(self._record)
        except Exception:
            self._record = self._recorder.load(self._record.match_id)
            raise
