"""The ledger: the log as the table wrote it, reconciled with the lines the rules derive.

The core flow (:mod:`adjudicator.flow`) derives the rule-system lines a log may leave out
(chance moves, triggers, placements on the stage, discards, turn starts, the game end). The
ledger keeps them: those still **expected** after the last decision line, and the
**complete** log, where each derived line stands until the table's own line replaces it.
It also keeps the requests by the log's ids, and the provisional ids of triggered requests
no line has named yet.

The ledger decides no rule: it says which derived line a rule-system line of the log
stands for, by what the line says. What follows from a match or a mismatch (a finding, a
changed table) is the flow's business.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coreflow_judge.adjudicator.request import Req
from coreflow_judge.events.models import (
    LINE_TYPES,
    ChanceMoved,
    Discard,
    GameEnded,
    LogLine,
    MatchStarted,
    Stage,
    Trigger,
    TurnStarted,
)

DERIVABLE = frozenset(
    {"chance_moved", "trigger", "discard", "turn_started", "game_ended", "stage"}
)
"""Line types the rules may derive; every other line is a player's decision."""

_TYPE_OF: dict[type, str] = {m: t for t, m in LINE_TYPES.items()}


@dataclass(slots=True)
class Derived:
    """A line the rules derive, waiting to be matched with the log or filled in.

    Kept as the model class and its fields; the model is built only for output, so the
    judge pays nothing for lines nobody prints.
    """

    model: type[LogLine]
    fields: dict[str, Any]
    req: Req | None = None
    pos: int = -1
    """Where it stands in the complete log."""
    omitted: bool = False
    """Derived, then found never to have happened at the table (a missed request's
    staging, a game end the table recorded otherwise or never): left out of the complete
    log."""

    @property
    def type(self) -> str:
        return _TYPE_OF[self.model]

    def render(self) -> LogLine:
        fields = dict(self.fields)
        if self.req is not None and "request" in fields:
            fields["request"] = self.req.id
        return self.model(seq=1, **fields)  # type: ignore[call-arg]


class Ledger:
    """Derived lines, the complete log and the request ids of one match."""

    def __init__(self, header: MatchStarted) -> None:
        self.expected: deque[Derived] = deque()
        """Derived lines since the last decision line, not yet matched with the log."""
        self.complete: list[LogLine | Derived] = [header]
        """The complete log so far: the log's lines and, where it left them out, the
        derived ones."""
        self.requests: dict[str, Req] = {}
        """Every request of the match by its id (a provisional id until a line names it)."""
        self.agreed: set[int] = set()
        """The seqs of the log's rule-system lines that say what the rules derived there
        (match_log.md, "Who writes what": such a line may be left out and the game is the
        same; tests/equivalence.py drops them to get a log's sparse form, and the viewer
        can hide them)."""
        self._auto_id = 0
        self._of_req: dict[Req, list[Derived]] = {}
        """The derived lines of each request, in order (:meth:`omit_of`)."""
        self._unnamed_triggers: list[tuple[Derived, Req]] = []
        """The derived triggers of requests no line had named when they triggered, with
        the request: those :meth:`written_late` may find, less those it found named,
        settled or replaced since (each looked at once more, then forgotten)."""

    # ------------------------------------------------------------------ lines
    def derive(self, model: type[LogLine], fields: dict[str, Any], req: Req | None = None,
               ) -> None:
        """A rule-system line the rules derive here: expected, and in the complete log."""
        d = Derived(model, fields, req, len(self.complete))
        self.expected.append(d)
        self.complete.append(d)
        if req is not None:
            self._of_req.setdefault(req, []).append(d)
            if model is Trigger and req.provisional:
                self._unnamed_triggers.append((d, req))

    def record(self, line: LogLine) -> None:
        """A line of the log that stands for no derived line: into the complete log."""
        self.complete.append(line)

    def take_as_done(self) -> None:
        """A decision line came: the derived lines the log left out before it happened."""
        self.expected.clear()

    def decision(self, line: LogLine) -> None:
        """A decision line (:meth:`take_as_done`, then :meth:`record`), in one step: the
        judge's commonest call."""
        self.expected.clear()
        self.complete.append(line)

    def expects(self, model: type[LogLine]) -> Derived | None:
        """The first expected derived line of this kind, if any."""
        return next((d for d in self.expected if d.model is model), None)

    def forget(self, model: type[LogLine]) -> None:
        """Expect no more derived lines of this kind (the log went another way)."""
        self.expected = deque(d for d in self.expected if d.model is not model)

    def omit(self, d: Derived) -> None:
        """A derived line that never happened at the table: out of the complete log."""
        d.omitted = True

    def omit_last(self, model: type[LogLine]) -> None:
        """The latest derived line of this kind never happened at the table."""
        for item in reversed(self.complete):
            if isinstance(item, Derived) and item.model is model:
                item.omitted = True
                return

    def omit_of(self, req: Req, model: type[LogLine]) -> None:
        """The derived lines of this kind for ``req`` never happened at the table."""
        for d in self._of_req.get(req, ()):
            if d.model is model and self._standing(d):
                d.omitted = True

    def _standing(self, d: Derived) -> bool:
        """Whether ``d`` still stands in the complete log (no line of the log replaced it)."""
        return d.pos < len(self.complete) and self.complete[d.pos] is d

    def indexes_from(self, other: Ledger, memo: dict[int, Any]) -> None:
        """Take ``other``'s indexes of derived lines, through ``memo`` (the board's copy of
        a flow: what was copied is found by the copy, what is shared stays shared)."""
        self._of_req = {memo.get(id(r), r): [memo.get(id(d), d) for d in ds]
                        for r, ds in other._of_req.items()}
        self._unnamed_triggers = [(memo.get(id(d), d), memo.get(id(r), r))
                                  for d, r in other._unnamed_triggers]

    def move_to_end(self, at: int) -> None:
        """Lines derived after the log line at ``at`` came before it: put it after them."""
        line = self.complete.pop(at)
        for item in self.complete[at:]:
            if isinstance(item, Derived):
                item.pos -= 1
        self.complete.append(line)

    def table_seqs(self) -> list[int | None]:
        """For each line of :meth:`complete_log`, its number in the log the table wrote
        (None for a line the rules derived)."""
        return [None if isinstance(item, Derived) else item.seq for item in self.complete
                if not (isinstance(item, Derived) and item.omitted)]

    def complete_log(self) -> list[LogLine]:
        """Every line, derived ones filled in, renumbered 1..N."""
        out: list[LogLine] = []
        for item in self.complete:
            if isinstance(item, Derived) and item.omitted:
                continue
            line = item.render() if isinstance(item, Derived) else item
            out.append(line.model_copy(update={"seq": len(out) + 1, "hash": None}))
        return out

    # ------------------------------------------------------------------ matching
    def match_chance(self, line: ChanceMoved) -> bool:
        """The commonest case, kept short (the judge's hot path): the chance move the rules
        expect next. True when ``line`` is it; it then stands in the complete log."""
        expected = self.expected
        if expected:
            head = expected[0]
            if head.model is ChanceMoved and head.fields["to"] == line.to:
                expected.popleft()
                self.complete[head.pos] = line
                self.agreed.add(line.seq)
                return True
        return False

    def match(self, line: LogLine) -> Derived | None:
        """The expected derived line that ``line`` (a rule-system line) stands for.

        Found, it is no longer expected, the log's line replaces it in the complete log,
        and a triggered request it names gets the log's id; the derived lines before it
        are taken as left out, except other triggers (requests that trigger together
        enter the buffer together, [6-1]: the order of their trigger lines is no
        decision)."""
        expected = self.expected
        i = self._find(line)
        if i is None:
            return None
        d = expected[i]
        skipped = [expected.popleft() for _ in range(i + 1)][:-1]
        if isinstance(line, Trigger):
            expected.extendleft(reversed([e for e in skipped if e.model is Trigger]))
        self.complete[d.pos] = line
        self.agreed.add(line.seq)
        if d.req is not None and isinstance(line, Trigger | Stage | Discard):
            self.bind(d.req, line.request)
        return d

    def written_late(self, line: Trigger, waiting: Callable[[Req], bool],
                     settled: Callable[[Req], bool]) -> Derived | None:
        """The derived trigger that ``line`` records, written after the lines that came
        after it in the complete log (core-flow.md [6]: a trigger line may stand anywhere
        from the line whose costs or resolution fired it up to the line that first names
        its request). Only a request no line has named yet can be meant, one that
        ``waiting`` says still waits (in the buffer or on the stage); found, it is taken
        as :meth:`match` takes an expected line: the log's line stands in the complete log
        where the trigger fired, and the request gets the log's id. ``settled``: a request
        that can never wait again (its trigger is then no longer looked at)."""
        still: list[tuple[Derived, Req]] = []
        hits: list[tuple[Derived, Req]] = []
        for d, req in self._unnamed_triggers:
            if d.omitted or not req.provisional or not self._standing(d) or settled(req):
                continue
            still.append((d, req))
            if waiting(req) and self._same(d, line):
                hits.append((d, req))
        self._unnamed_triggers = still
        if not hits:
            return None
        d, req = next((h for h in hits if h[0].fields.get("source") == line.source and
                       line.controller in (None, h[0].fields.get("controller"))), None) or next(
            (h for h in hits if line.controller is not None
             and h[0].fields.get("controller") == line.controller), hits[0])
        self.complete[d.pos] = line
        self.agreed.add(line.seq)
        self.bind(req, line.request)
        return d

    def placement_of(self, rid: str) -> Derived | None:
        """The expected derived staging or discard of request ``rid``, if any."""
        return next((d for d in self.expected if d.req is not None and d.req.id == rid
                     and d.model in (Stage, Discard)), None)

    def overrule(self, d: Derived, line: LogLine) -> None:
        """The log placed a request otherwise than ``d`` says: its line stands instead."""
        self.expected.remove(d)
        self.complete[d.pos] = line

    def _find(self, line: LogLine) -> int | None:
        """Where ``line`` stands among the derived lines still expected, if anywhere.

        A trigger line is matched by what it says: with the derived trigger of the same
        action whose source and controller it names, before any other of that action. Its
        id matches only an id the log itself gave before, never the provisional id the
        judge made up (a table may name its triggers ``t1``, ``t2``... too).
        """
        expected = self.expected
        if expected and not isinstance(line, Trigger) and self._same(expected[0], line):
            return 0  # the common case: the log writes the derived line where it belongs
        hits = [i for i, d in enumerate(expected) if self._same(d, line)]
        if not hits:
            return None
        if isinstance(line, Trigger):
            for i in hits:
                named = expected[i].req
                if named is not None and not named.provisional and named.id == line.request:
                    return i
            for i in hits:
                f = expected[i].fields
                if f.get("source") == line.source and line.controller in (
                        None, f.get("controller")):
                    return i
            for i in hits:
                if line.controller is not None and \
                        expected[i].fields.get("controller") == line.controller:
                    return i
        return hits[0]

    def _same(self, d: Derived, line: LogLine) -> bool:
        """Whether ``line`` says what ``d`` says (ids of provisional requests aside)."""
        if d.model is not type(line):
            return False
        f = d.fields
        if isinstance(line, ChanceMoved):
            return bool(f["to"] == line.to)
        if isinstance(line, TurnStarted):
            return bool(f["player"] == line.player and f["turn"] == line.turn)
        if isinstance(line, Trigger):
            req = d.req
            if req is None or f["action"] != line.action:
                return False
            if req.provisional:
                # The log may name it anything, even a name the judge made up for another
                # request still waiting to be named.
                other = self.requests.get(line.request)
                return other is None or other is req or other.provisional
            return req.id == line.request
        if isinstance(line, Stage | Discard):
            if d.req is not None and d.req.provisional and line.request not in self.requests:
                return True  # a sparse log names the triggered request here first
            return d.req is not None and d.req.id == line.request
        if isinstance(line, GameEnded):
            return bool((f["result"], f["winner"]) == (line.result, line.winner)) and (
                line.reason is None or line.reason == f["reason"])
        return False

    # ------------------------------------------------------------------ request ids
    def add(self, req: Req) -> None:
        """A new request under its id (the log's, or a provisional one)."""
        self.requests[req.id] = req

    def provisional_id(self) -> str:
        """A made-up id for a triggered request, not used so far (the log may rename it)."""
        while True:
            self._auto_id += 1
            rid = f"t{self._auto_id}"
            if rid not in self.requests:
                return rid

    def claim(self, rid: str) -> Req | None:
        """The log gives ``rid`` to a new request: the request already holding it, if the
        log gave it; a provisional request holding it gets a fresh made-up id."""
        taken = self.requests.get(rid)
        if taken is not None and taken.provisional:
            self._rekey(taken)  # the judge's made-up id, not the log's
            return None
        return taken

    def bind(self, req: Req, rid: str) -> None:
        """Give a provisional triggered request the id the log uses for it."""
        if not req.provisional or req.id == rid:
            req.provisional = False
            return
        other = self.requests.get(rid)
        if other is not None and other is not req and other.provisional:
            self._rekey(other)
        self.requests.pop(req.id, None)
        req.former_ids.append(req.id)
        req.id = rid
        req.provisional = False
        self.requests[rid] = req

    def _rekey(self, req: Req) -> None:
        """The log uses a provisional request's made-up id for another request: give the
        provisional one a fresh made-up id."""
        self.requests.pop(req.id, None)
        req.former_ids.append(req.id)
        req.id = self.provisional_id()
        self.requests[req.id] = req
