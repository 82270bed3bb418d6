"""The board at any line of a match, rebuilt from the stored events alone.

A board is what a judge sees on the table after a given line (``seq``) of the log: whose
turn it is, who holds the chance, the pass record, the stage (bottom to top), the buffer,
each player's deck, hand, graveyard, fog and field, the once-per-turn actions already
used, and the result once the rules decide it.

Nothing here re-implements a rule. The lines (from :meth:`MatchRecorder.lines
<events.store.MatchRecorder.lines>` or a log file) are fed, in order, into the same
:class:`~adjudicator.flow.CoreFlow` the judge uses, and the board is read off the flow
and its game's rules module (``rules.board(flow)``).

A long match is not replayed from line 1 for every question: :class:`BoardProjector`
keeps a copy of the flow every ``every`` lines (256 by default) and answers a question
from the nearest copy at or before the line asked for.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.adjudicator.replay import Replay, Visitor
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import LineError, read_log

#: Lines between two checkpoints of :class:`BoardProjector` (at least).
CHECKPOINT_EVERY = 256
MAX_CHECKPOINTS = 8
"""Checkpoints one projector keeps at most: a copy of the flow holds its requests, so a
long log's checkpoints are spaced out further (what they cost in time and memory stays a
small multiple of the flow's own; a board between two costs at most their distance)."""

Item = LogLine | LineError


class BoardQueryError(ValueError):
    """The board was asked for a line the log does not have."""


def _request_dict(req: Req) -> dict[str, Any]:
    """One request on the stage or in the buffer, as the board shows it."""
    out: dict[str, Any] = {
        "request": req.id,
        "action": req.action.id,
        "controller": req.controller,
        "key_cards": list(req.key_cards),
        "targets": list(req.targets),
        "speed": req.action.speed,
        "timing": req.action.timing,
        "triggered": req.triggered,
    }
    if req.source is not None:
        out["source"] = req.source
    return out


def snapshot(flow: CoreFlow) -> dict[str, Any]:
    """The board of a flow as plain data (fresh lists and dicts, safe to keep)."""
    once: dict[str, list[str]] = {}
    for player, action in sorted(flow.once_used):
        once.setdefault(player, []).append(action)
    board: dict[str, Any] = {
        "match_id": flow.header.match_id,
        "rules": flow.header.rules,
        "seq": flow.last_seq,
        "turn": flow.turn,
        "turn_player": flow.turn_player,
        "chance": flow.chance,
        "passed": sorted(flow.passed),
        "stage": [_request_dict(r) for r in flow.stage],
        "buffer": [_request_dict(r) for r in flow.buffer],
        "awaiting_resolution": (
            flow.awaiting_instant.id if flow.awaiting_instant is not None else None
        ),
        "once_used": once,
    }
    board.update(copy.deepcopy(flow.rules.board(flow)))
    board["result"] = flow.result.as_dict() if flow.result is not None else None
    board["findings"] = [f.as_dict() for f in flow.findings]
    return board




def _seq_of(items: Sequence[tuple[int, Item]]) -> list[int]:
    """The seq of every item; a malformed line takes the seq after the previous one."""
    out: list[int] = []
    previous = 0
    for _no, item in items:
        previous = item.seq if not isinstance(item, LineError) else previous + 1
        out.append(previous)
    return out


class BoardProjector:
    """Boards of one match at any seq, served from checkpoints of the flow.

    ``items`` are the log's lines in order, as ``(line number, line)`` pairs (a
    :class:`~events.reader.LineError` for a malformed line, which the board skips as the
    judge does) or as bare lines. The flow is advanced lazily; every ``every`` lines a
    deep copy of it is kept, and a question about an earlier line starts from the
    nearest copy at or before it.
    """

    def __init__(self, items: Iterable[tuple[int, Item]] | Iterable[LogLine],
                 every: int = CHECKPOINT_EVERY) -> None:
        if every < 1:
            raise ValueError("checkpoints need at least one line between them")
        pairs: list[tuple[int, Item]] = []
        for no, entry in enumerate(items, start=1):
            pairs.append(entry if isinstance(entry, tuple) else (no, entry))
        self.replay = Replay(pairs)
        """The log as the judge reads it: corrections skipped, the table taken as played
        where the judge takes it so (the board shows the same table)."""
        self.items = self.replay.pairs
        self.every = max(every, -(-len(pairs) // MAX_CHECKPOINTS))
        self.seqs = _seq_of(pairs)
        self._live = self.replay.start()
        self._pos = 1  # how many items the live flow has taken
        self.checkpoints: dict[int, CoreFlow] = {1: self._copy(self._live)}
        self._keeper = _Checkpoints(self)
        self.replayed = 0
        """Lines fed since the projector was made (for tests and benchmarks)."""

    # ------------------------------------------------------------------ sources
    @classmethod
    def from_file(cls, path: Path, every: int = CHECKPOINT_EVERY) -> BoardProjector:
        """The boards of a log file (:class:`~events.reader.LogReadError` if unreadable)."""
        return cls(read_log(path), every)

    @classmethod
    def from_lines(cls, lines: Sequence[LogLine], every: int = CHECKPOINT_EVERY
                   ) -> BoardProjector:
        """The boards of stored lines (``MatchRecorder.lines(match_id)``)."""
        return cls(list(enumerate(lines, start=1)), every)

    # ------------------------------------------------------------------ queries
    @property
    def first_seq(self) -> int:
        return self.seqs[0]

    @property
    def last_seq(self) -> int:
        return self.seqs[-1]

    def position(self, seq: int | None) -> int:
        """How many lines make up the board at ``seq`` (the last line when ``None``)."""
        if seq is None:
            return len(self.items)
        if seq < self.first_seq or seq > self.last_seq:
            raise BoardQueryError(
                f"no line with seq {seq}: the log runs from seq {self.first_seq} "
                f"to seq {self.last_seq}"
            )
        count = 0
        for s in self.seqs:
            if s > seq:
                break
            count += 1
        return count

    def at(self, seq: int | None = None) -> dict[str, Any]:
        """The board after the line ``seq`` (and every line before it)."""
        return snapshot(self.flow_at(seq))

    def flow_at(self, seq: int | None = None) -> CoreFlow:
        """The flow after line ``seq``; the caller may keep it but must not feed it."""
        k = self.position(seq)
        if k >= self._pos:
            self._advance(k)
            return self._live
        start = max(p for p in self.checkpoints if p <= k)
        flow = self._copy(self.checkpoints[start])
        self.replay.walk(Visitor(), flow, start, k)
        self.replayed += k - start
        return flow

    # ------------------------------------------------------------------ internals
    def _advance(self, k: int) -> None:
        """The live flow to ``k`` lines, keeping a checkpoint every :attr:`every` lines."""
        self.replay.walk(self._keeper, self._live, self._pos, k)

    @staticmethod
    def _copy(flow: CoreFlow) -> CoreFlow:
        """A deep copy of the table's state, sharing what never changes.

        Shared, not copied: the log lines, findings and resolutions (never changed once
        made), the parts of the rules
        module its game names as unchanging (:attr:`GamePlugin.constant_parts
        <adjudicator.plugins.GamePlugin.constant_parts>`: edition data, action
        definitions), and the complete log's entries other than the derived lines
        the flow still expects (those are copied with the requests they name). The
        complete log is the one part of the flow that grows with every line, so it is
        taken out of the deep copy and rebuilt as a list of the same entries: a copy
        costs the size of the table, not the length of the match. The board never
        renders the complete log, and a copy is only ever used for boards.
        """
        memo: dict[int, Any] = {}
        shared: list[Any] = [flow.header, *flow.findings, *flow.resolutions.values()]
        shared += game_plugin(flow.header.game).constant_parts(flow.rules)
        for obj in shared:
            memo[id(obj)] = obj
        ledger = flow.ledger
        complete, of_req, unnamed = ledger.complete, ledger._of_req, ledger._unnamed_triggers
        ledger.complete, ledger._of_req, ledger._unnamed_triggers = [], {}, []
        try:
            clone = copy.deepcopy(flow, memo)
        finally:
            ledger.complete, ledger._of_req, ledger._unnamed_triggers = (
                complete, of_req, unnamed)
        # Entries the flow still expects were copied (via ``expected``); the rest are shared.
        clone.complete = [memo.get(id(item), item) for item in complete]
        clone.ledger.indexes_from(ledger, memo)  # the same entries, and the copied requests
        return clone


class _Checkpoints(Visitor):
    """The projector's live walk: counts the lines the live flow took and keeps a copy
    of it every :attr:`BoardProjector.every` lines."""

    def __init__(self, projector: BoardProjector) -> None:
        self.projector = projector

    def after(self, flow: CoreFlow, i: int, item: Item, raised: list[Finding]) -> None:
        p = self.projector
        p._pos = i + 1
        p.replayed += 1
        if p._pos % p.every == 0:
            p.checkpoints[p._pos] = p._copy(flow)

    def taken_back(self, flow: CoreFlow, i: int, item: LogLine) -> None:
        self.after(flow, i, item, [])


def board_at(items: Iterable[tuple[int, Item]] | Iterable[LogLine],
             seq: int | None = None) -> dict[str, Any]:
    """The board at ``seq`` by a plain replay from line 1 (no checkpoints kept)."""
    return BoardProjector(items, every=1 << 62).at(seq)
