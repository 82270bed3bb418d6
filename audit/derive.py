"""The audit rows of one match, read off the judge's own engine as it replays the match.

:func:`derive_match` reads a match's stored lines as the judge reads them: one walk of
its :class:`~adjudicator.replay.Replay` (the lines a correction took back shown and not
judged, the table taken as played where the judge takes it so), concluded as the judge's
report is (:meth:`~adjudicator.replay.Replay.conclude`), and, between two lines, reads
the flow's state: the stage, the buffer, the chance, the turn, the status of every
request (:class:`~adjudicator.flow.Req`), which requests went on or left the stage
and the buffer (their journals: when a request ended), and the buffer's own count of its
triggered requests (the order they entered it in, and of each that left, how many that
entered before it still waited). Nothing here decides a rule:
whether a request was made with the chance is ``flow.chance`` before the line, how a
request ended is its ``Req.status``, the findings are the judge's, the effects of a
resolution are those the game's rules module returned, as the flow keeps them
(``flow.resolutions``, by line).

The result is one list of plain rows (dicts keyed by the column names of
:data:`audit.schema.TABLES`) per table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, listed
from coreflow_judge.adjudicator.flow import CoreFlow, Derived, Req
from coreflow_judge.adjudicator.game import UnsupportedRules
from coreflow_judge.adjudicator.judge import JudgeInputError
from coreflow_judge.adjudicator.replay import Replay, Visitor
from coreflow_judge.events.models import (
    ChanceMoved,
    GameEnded,
    GameStarted,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    Roll,
    Trigger,
    TurnStarted,
    game_fields,
)
from coreflow_judge.events.reader import verify_chain

Row = dict[str, Any]
Rows = dict[str, list[Row]]
_GONE = object()


def _request_id(req: Req) -> str:
    return req.id


#: Req.status -> how the request ended, as the audit tables say it.
ENDED: dict[str, str] = {
    "resolved": "resolved",
    "fizzled": "fizzled",
    "negated": "negated",
    "discarded": "discarded",
    "dropped": "dropped",
    "instant": "pending",
    "buffer": "pending",
    "stage": "pending",
}


@dataclass(slots=True)
class StoredLine:
    """One recorded line: the model, the line as stored (JSON object), the store time."""

    line: LogLine
    data: dict[str, Any]
    recorded_at: str | None
    table_seq: int | None = None
    """The line's number in the log the table wrote (None: derived, or not kept)."""


def _bigint(n: int | None) -> int | None:
    """A number for a BIGINT column; None for one it cannot hold (a log may number its
    lines past 2**63: the judge reports the gap, the audit keeps no number)."""
    return n if n is not None and -(2**63) <= n < 2**63 else None


def timestamp(value: Any) -> str | None:
    """An ISO 8601 time as naive UTC text for a TIMESTAMP column; None if unreadable."""
    if not isinstance(value, str) or not value:
        return None
    return _timestamp(value)


@lru_cache(maxsize=1024)
def _timestamp(value: str) -> str | None:
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when.isoformat(sep=" ")


def _plain(value: Any) -> Any:
    """A finding's expected/actual as JSON-ready data."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.loads(json.dumps(value, default=str))


def _player_of(line: LogLine) -> str | None:
    if isinstance(line, Request | Pass | Roll | TurnStarted):
        return line.player
    if isinstance(line, ChanceMoved):
        return line.to
    if isinstance(line, Trigger):
        return line.controller
    if isinstance(line, GameStarted):
        return line.first_player
    if isinstance(line, GameEnded):
        return line.winner
    return None


def empty_rows() -> Rows:
    from coreflow_judge.audit.schema import TABLES

    return {name: [] for name in TABLES}


def derive_match(record_id: str, lines: Sequence[StoredLine], refused: str | None = None
                 ) -> Rows:
    """Every audit row of one match, from its stored lines (line 1 ``match_started``);
    ``refused``: why the record is no evidence (its events are shown, it is not judged)."""
    return _Deriver(record_id, lines, refused).run()


class _Deriver(Visitor):
    """The audit's reader of the one replay (:class:`~adjudicator.replay.Replay`): the
    rows of each line from the flow's state around it."""

    def __init__(self, record_id: str, lines: Sequence[StoredLine],
                 refused: str | None = None) -> None:
        self.record_id = record_id
        self.lines = lines
        self.refused = refused
        header = lines[0].line
        assert isinstance(header, MatchStarted), "a match record starts with match_started"
        self.header = header
        self.mid = header.match_id
        self.rows = empty_rows()
        # What the walk gathers (read by the rows made after it).
        self.depth_before: dict[int, int] = {}
        self.turn_before: dict[int, int] = {}
        self.live: dict[Req, None] = {}  # on the stage, in the buffer or awaiting
        self.moved: list[Req] = []  # what the stage's and the buffer's journals name
        self.ended: dict[int, int] = {}
        self.negated_by: dict[int, str] = {}
        self.request_lines: dict[str, StoredLine] = {}
        self.had_chance: dict[str, bool] = {}
        self.at_of: dict[int, str | None] = {}
        self.left: list[tuple[Req, int]] = []  # what the buffer says left it
        self.handled: dict[int, tuple[int, int]] = {}  # id(req) -> (order, waiting_before)
        self.turn = 0
        # The state the line being walked found (:meth:`before`).
        self.at: str | None = None
        self.depth = 0
        self.top: Req | None = None
        self.chance_before: str | None = None
        self.turn_player_before: str | None = None
        self.awaiting: Req | None = None
        self.on_stage: tuple[Req, ...] = ()

    # ------------------------------------------------------------------ driver
    def run(self) -> Rows:
        if self.refused is not None:
            self._events_only(self.refused)
            return self.rows
        if any(s.line.hash is not None for s in self.lines):
            breaks = verify_chain((s.line.seq, s.line) for s in self.lines)
            if breaks:  # changed outside coreflow: its events are shown, never judged
                self._events_only(f"the stored hash chain is broken at seq {breaks[0].seq}: "
                                  "the record was changed outside coreflow; not judged")
                return self.rows
        pairs: list[tuple[int, Any]] = [(k, s.line) for k, s in enumerate(self.lines, start=1)]
        try:
            read = Replay(pairs)  # the table as played, as the judge reads it
        except (JudgeInputError, UnsupportedRules) as exc:
            self._events_only(str(exc))
            return self.rows
        flow = read.start()
        self.rows["events"].append(self._event(self.lines[0], 0))
        self.rows["stage"].append(dict(match_id=self.mid, seq=self.header.seq, depth=0,
                                       top_request=None, requests=[], chance=None, turn=0))
        self.at_of[self.header.seq] = timestamp(self.lines[0].data.get("at"))
        self.turn = flow.turn
        # What a line costs to read stays the same however many requests wait: the stage
        # and the buffer say which requests went on or left them (their journals), and
        # only those are looked at.
        # The buffer says which request left it and how many that entered before it
        # still waited (:attr:`Buffer.left`): the triggered requests' handling.
        flow.stage.journal = flow.buffer.journal = self.moved
        flow.buffer.left = self.left
        read.walk(self, flow)
        flow.stage.journal = flow.buffer.journal = flow.buffer.left = None
        read.conclude(flow)
        triggers = self._complete_log(flow, self.at_of)
        self._requests(flow, self.request_lines, self.had_chance, triggers, self.depth_before,
                       self.turn_before, self.ended, self.negated_by, self.at_of)
        self._findings(flow)
        self._match(flow)
        return self.rows

    # ------------------------------------------------------------------ the walk
    def taken_back(self, flow: CoreFlow, i: int, item: LogLine) -> None:
        """A line taken back at the table: shown, not judged."""
        stored = self.lines[i]
        at = self.at_of[item.seq] = timestamp(stored.data.get("at"))
        self._left_buffer()
        self.rows["events"].append(self._event(stored, flow.turn, at))
        self.rows["stage"].append(self._stage_row(flow, item.seq))

    def before(self, flow: CoreFlow, i: int, item: Any) -> None:
        """The state the line found."""
        line = item
        seq = line.seq
        self.at = self.at_of[seq] = timestamp(self.lines[i].data.get("at"))
        self.depth = self.depth_before[seq] = len(flow.stage)
        self.top = flow.stage[-1] if flow.stage else None
        self.chance_before = flow.chance
        self.turn_before[seq] = flow.turn
        self.turn_player_before = flow.turn_player
        self.awaiting = flow.awaiting_instant
        self.on_stage = self._on_stage_before(flow, line)

    def repaired(self, flow: CoreFlow, i: int, item: Any, raised: list[Finding]) -> None:
        """A repair before the line: what it took out of the buffer."""
        self._left_buffer()

    def after(self, flow: CoreFlow, i: int, item: Any, raised: list[Finding]) -> None:
        """The rows the line makes, from the state it left."""
        stored = self.lines[i]
        line = stored.line
        seq, at, moved, live, ended = line.seq, self.at, self.moved, self.live, self.ended
        self._left_buffer()
        # Requests that left the stage, the buffer or the instant wait with this line.
        if self.awaiting is not None:
            moved.append(self.awaiting)
        if flow.awaiting_instant is not None:
            moved.append(flow.awaiting_instant)
        for r in moved:
            now = r in flow.stage or r in flow.buffer or r is flow.awaiting_instant
            if now:
                live[r] = None
            elif live.pop(r, _GONE) is not _GONE and id(r) not in ended:
                ended[id(r)] = seq
                if r.status == "negated" and isinstance(line, Resolve):
                    self.negated_by[id(r)] = line.request
        moved.clear()
        self.rows["events"].append(self._event(stored, flow.turn, at))
        self.rows["stage"].append(self._stage_row(flow, seq))
        if isinstance(line, Request):
            self.request_lines.setdefault(line.request, stored)
            self.had_chance.setdefault(line.request, self.chance_before == line.player)
        elif isinstance(line, Pass):
            top = self.top
            self.rows["passes"].append(dict(
                match_id=self.mid, seq=seq, player=line.player, played_at=at,
                turn=self.turn_before[seq], turn_player=self.turn_player_before,
                had_chance=self.chance_before == line.player,
                stage_depth=self.depth, top_request=top.id if top is not None else None,
            ))
        elif isinstance(line, Resolve):
            self._resolution(flow, stored, self.on_stage, self.top, self.depth, at)
        if flow.turn != self.turn:
            self.turn = flow.turn
            self._board(flow, seq)

    def _left_buffer(self) -> None:
        """The triggered requests that left the buffer since last looked: each, the first
        time it left otherwise than dropped (placed on the stage, discarded, resolved, or
        still there when the game ended), numbered in the order they left, with how many
        that entered before it still waited (as the buffer says, :attr:`Buffer.left`)."""
        handled = self.handled
        for req, before in self.left:
            if req.status != "dropped" and id(req) not in handled:
                handled[id(req)] = (len(handled) + 1, before)
        self.left.clear()

    # ------------------------------------------------------------------ rows
    def _event(self, stored: StoredLine, turn: int | None, at: str | None = None) -> Row:
        line = stored.line
        return dict(
            match_id=self.mid, seq=line.seq, table_seq=_bigint(stored.table_seq), type=line.type,
            player=_player_of(line),
            played_at=at if at is not None else timestamp(stored.data.get("at")), turn=turn,
            recorded_at=stored.recorded_at, line=stored.data,
        )

    def _events_only(self, why: str) -> None:
        for stored in self.lines:
            self.rows["events"].append(self._event(stored, None))
        self._match(None, judge_error=why)

    def _stage_row(self, flow: CoreFlow, seq: int) -> Row:
        """The stage after line ``seq``: its requests, bottom to top, quoted as a finding
        quotes a list (:func:`~adjudicator.findings.listed`: a deep stage by its bottom
        and top, with how many were left out between them; ``depth`` counts them all)."""
        return dict(match_id=self.mid, seq=seq, depth=len(flow.stage),
                    top_request=flow.stage[-1].id if flow.stage else None,
                    requests=listed(flow.stage, _request_id), chance=flow.chance,
                    turn=flow.turn)

    @staticmethod
    def _on_stage_before(flow: CoreFlow, line: LogLine) -> tuple[Req, ...]:
        """Before a resolve line: the requests on the stage it may name (the one it names,
        or the only one no line has named yet, which the flow then gives its id)."""
        if not isinstance(line, Resolve):
            return ()
        named = flow.requests.get(line.request)
        unnamed = flow.stage.sole_provisional()[1]
        return tuple(r for r in (named, unnamed) if r is not None and r in flow.stage)

    def _resolution(self, flow: CoreFlow, stored: StoredLine, stage_before: tuple[Req, ...],
                    top_before: Req | None, depth_before: int, at: str | None) -> None:
        line = stored.line
        assert isinstance(line, Resolve)
        req = flow.requests.get(line.request)
        res = flow.resolutions.get(line.seq)
        on_stage = req is not None and any(r is req for r in stage_before)
        self.rows["resolutions"].append(dict(
            match_id=self.mid, seq=line.seq, request=line.request,
            action=req.action.id if req is not None else None,
            controller=req.controller if req is not None else None,
            triggered=req.triggered if req is not None else None,
            result=line.result, rules_result=res.result if res is not None else None,
            from_stage=on_stage,
            was_top=top_before is req if on_stage else None,
            stage_depth=depth_before, choices=stored.data.get("choices"),
            effects=_plain(res.effects) if res is not None else None,
            claimed_effects=stored.data.get("effects"),
            request_seq=None,  # filled in by _requests
            turn=flow.turn, played_at=at,
        ))

    def _board(self, flow: CoreFlow, seq: int) -> None:
        self.rows["boards"].append(dict(
            match_id=self.mid, turn=flow.turn, player=flow.turn_player, seq=seq,
            board=_plain(flow.rules.board(flow)),
        ))

    def _complete_log(self, flow: CoreFlow, at_of: dict[int, str | None]) -> dict[int, Row]:
        """Chance moves and triggers, recorded or derived, from the complete log: how a
        trigger was handled is the line that stands for its staging, discard or resolution
        there; the order it entered and left the buffer in, and how many waited before it
        then, the buffer says (:meth:`_left_buffer`). A trigger line that put no request
        in the buffer is numbered after every request that entered it.

        Returns the trigger rows by ``id(req)``.
        """
        requests = flow.requests
        triggers: dict[int, Row] = {}
        unentered = flow.buffer.entries
        last_seq = self.header.seq
        for pos, item in enumerate(flow.complete, start=1):
            recorded = not isinstance(item, Derived)
            if isinstance(item, Derived):
                kind, fields, req = item.type, item.fields, item.req
                seq = last_seq
            else:
                kind, seq = item.type, item.seq
                last_seq = seq
                fields = {}
                req = None
                rid = getattr(item, "request", None)
                if isinstance(rid, str):
                    req = requests.get(rid)
            if kind == "chance_moved":
                to = item.to if isinstance(item, ChanceMoved) else fields["to"]
                self.rows["chance_moves"].append(dict(
                    match_id=self.mid, pos=pos, seq=seq, to_player=to, recorded=recorded,
                    played_at=at_of.get(seq) if recorded else None,
                ))
            elif kind == "trigger":
                if isinstance(item, Trigger):
                    rid, action, source = item.request, item.action, item.source
                else:
                    rid, action, source = fields["request"], fields["action"], fields["source"]
                if req is not None:
                    rid = req.id
                if req is not None and req.buffered_at and id(req) not in triggers:
                    order = req.buffered_at  # the buffer numbered it as it entered
                else:
                    unentered += 1
                    order = unentered
                row = dict(
                    match_id=self.mid, request=rid, seq=seq, action=action, source=source,
                    controller=req.controller if req is not None else None,
                    recorded=recorded, buffer_order=order,
                    handled_order=None, waiting_before=None, handled_as=None, handled_seq=None,
                    status=ENDED.get(req.status) if req is not None else None,
                )
                self.rows["triggers"].append(row)
                if req is not None and id(req) not in triggers:
                    triggers[id(req)] = row
            elif kind in ("stage", "discard", "resolve") and req is not None and req.triggered:
                row_or_none = triggers.get(id(req))
                if row_or_none is None or row_or_none["handled_as"] is not None:
                    continue
                how: str
                if kind == "resolve":
                    how = item.result if isinstance(item, Resolve) else "resolved"
                else:
                    how = "staged" if kind == "stage" else "discarded"
                left = self.handled.get(id(req))
                row_or_none.update(handled_order=left[0] if left is not None else None,
                                   waiting_before=left[1] if left is not None else None,
                                   handled_as=how, handled_seq=seq)
        return triggers

    def _requests(self, flow: CoreFlow, request_lines: dict[str, StoredLine],
                  had_chance: dict[str, bool], triggers: dict[int, Row],
                  depth_before: dict[int, int], turn_before: dict[int, int], ended: dict[int, int],
                  negated_by: dict[int, str], at_of: dict[int, str | None]) -> None:
        seq_of: dict[str, int] = {}
        for req in flow.requests.values():
            made = req.seq
            if req.triggered:
                trow = triggers.get(id(req))
                seq = trow["seq"] if trow is not None and trow["recorded"] else made
                costs = None
                choices = dict(req.choices) or None
            else:
                seq = made
                stored = request_lines.get(req.id)
                costs = stored.data.get("costs", []) if stored is not None else None
                choices = stored.data.get("choices") if stored is not None else None
            status = ENDED.get(req.status, req.status)
            end = ended.get(id(req))
            if end is None and status != "pending":
                end = made  # made and done within one line (a derived discard)
            seq_of[req.id] = seq
            self.rows["requests"].append(dict(
                match_id=self.mid, request=req.id, seq=seq,
                turn=turn_before.get(made, flow.turn), player=req.controller,
                action=req.action.id, speed=req.action.speed, timing=req.action.timing,
                triggered=req.triggered, source=req.source, key_cards=list(req.key_cards),
                costs=costs, targets=list(req.targets), choices=choices,
                stage_depth=depth_before.get(made, 0),
                had_chance=None if req.triggered else had_chance.get(req.id),
                status=status, ended_seq=end,
                resolved_seq=end if status in ("resolved", "fizzled") else None,
                negated_by=negated_by.get(id(req)), played_at=at_of.get(seq),
            ))
        for row in self.rows["resolutions"]:
            row["request_seq"] = seq_of.get(row["request"])

    def _findings(self, flow: CoreFlow) -> None:
        h = self.header
        edition = h.rules.partition("/")[2]
        table = {s.line.seq: s.table_seq for s in self.lines}
        for i, f in enumerate(flow.findings, start=1):
            self.rows["findings"].append(dict(
                match_id=self.mid, ord=i, seq=f.seq, table_seq=_bigint(table.get(f.seq)),
                code=f.code, severity=f.severity,
                rule=f.rule, message=f.message, expected=_plain(f.expected),
                actual=_plain(f.actual), game=h.game, rules=h.rules, edition=edition,
                caused_by_seq=f.caused_by[0] if f.caused_by is not None else None,
                caused_by_code=f.caused_by[1] if f.caused_by is not None else None,
            ))

    def _match(self, flow: CoreFlow | None, judge_error: str | None = None) -> None:
        h = self.header
        ev = h.event
        times = [r["played_at"] for r in self.rows["events"] if r["played_at"] is not None]
        end = next((s.line for s in reversed(self.lines) if isinstance(s.line, GameEnded)),
                   None)
        first = next((s.line for s in self.lines if isinstance(s.line, GameStarted)), None)
        result = flow.result if flow is not None else None
        findings = flow.findings if flow is not None else []
        self.rows["matches"].append(dict(
            match_id=h.match_id, record_id=self.record_id, game=h.game, rules=h.rules,
            edition=h.rules.partition("/")[2], format=h.format,
            game_fields=game_fields(h) or None,
            regulation=h.regulation,
            players=list(h.players),
            tournament=ev.tournament if ev is not None else None,
            round=str(ev.round) if ev is not None and ev.round is not None else None,
            table_no=str(ev.table) if ev is not None and ev.table is not None else None,
            first_player=first.first_player if first is not None else None,
            lines=len(self.lines), turns=flow.turn if flow is not None else None,
            started_at=min(times) if times else None, ended_at=max(times) if times else None,
            recorded_at=self.lines[0].recorded_at,
            result=result.result if result is not None else None,
            winner=result.winner if result is not None else None,
            reason=result.reason if result is not None else None,
            recorded_result=end.result if end is not None else None,
            recorded_winner=end.winner if end is not None else None,
            recorded_reason=end.reason if end is not None else None,
            errors=sum(1 for f in findings if f.severity == "error" and f.caused_by is None),
            consequences=sum(1 for f in findings
                             if f.severity == "error" and f.caused_by is not None),
            warnings=sum(1 for f in findings if f.severity == "warning"),
            judge_error=judge_error,
        ))
