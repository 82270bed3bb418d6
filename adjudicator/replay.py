"""One reading of a log, for every reader: the judge, the board, the audit, the live table.

Every reader reads a log the same way: the lines a correction took back are not judged
(:func:`~adjudicator.judge.taken_back`), the judge plans where the table went on from a
departure and how (:func:`~adjudicator.judge.plan_repairs`: the table as played), and the
log is fed to a :class:`~adjudicator.flow.CoreFlow` line by line, repaired where the plan
says. :class:`Replay` does the first two once per log; what a reader makes of the log is a
:class:`Visitor` that a walk of the replay calls at each line (as ``chess.pgn``'s visitors
read one game):

- the judge's report: the plan's own flow, and where a player's line raised an error, a
  walk that notes what the rules wanted next (:class:`NextMarks`), then
  :meth:`Replay.conclude` (the end of the log, the findings in line order, each error that
  follows from an earlier one under it);
- the board at any seq: walks from a checkpoint of the flow to the line asked for
  (projections/board.py);
- the audit's rows: one walk that reads the flow's state around each line
  (audit/derive.py), then :meth:`Replay.conclude`;
- the live table's answers: the plan's own flow (:meth:`Replay.flow`).

Nothing here decides a rule: the flow and the game's rules module do.
"""

from __future__ import annotations

from collections.abc import Iterable

from coreflow_judge.adjudicator.findings import Finding, breaks
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.judge import (
    JudgeInputError,
    Pairs,
    Repairs,
    ReplayBudget,
    ReplayRun,
    cause_budget,
    feed_line,
    group_consequences,
    mark_next,
    plan_repairs,
    refuse_too_long,
    repair_at,
    repair_budget,
    replay,
    start_flow,
    taken_back,
)
from coreflow_judge.adjudicator.next_step import NextStep, next_step
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import LineError

Item = LogLine | LineError


class Visitor:
    """What a reader does at each line of a walk (:meth:`Replay.walk`); each method may be
    left as it is (it does nothing). ``i`` is the line's position in the log (0: the
    ``match_started`` line, never walked), ``item`` the line (or what could not be read
    of it)."""

    def before(self, flow: CoreFlow, i: int, item: Item) -> None:
        """Before a line that is judged: before the repair planned there, if any."""

    def repaired(self, flow: CoreFlow, i: int, item: Item, raised: list[Finding]) -> None:
        """After the repair planned before the line at ``i`` (only where one is):
        ``raised``, the findings the repair reported."""

    def after(self, flow: CoreFlow, i: int, item: Item, raised: list[Finding]) -> None:
        """After a line that is judged: ``raised``, the findings it raised."""

    def taken_back(self, flow: CoreFlow, i: int, item: LogLine) -> None:
        """After a line a correction took back, or the correction itself: kept in the
        complete log, not judged."""


def walk(flow: CoreFlow, pairs: Pairs, skipped: set[int], repairs: Repairs,
         visitor: Visitor, start: int = 1, stop: int | None = None) -> CoreFlow:
    """Feed the lines at positions ``start`` to ``stop`` (the end) to ``flow`` as the judge
    reads them (:func:`~adjudicator.judge.feed_at`), calling ``visitor`` at each."""
    end = len(pairs) if stop is None else stop
    for i in range(start, end):
        item = pairs[i][1]
        taken = i in skipped and not isinstance(item, LineError)
        if not taken:
            visitor.before(flow, i, item)
        if i in repairs:
            at = len(flow.findings)
            if repair_at(flow, pairs, i, repairs) and not taken:
                visitor.repaired(flow, i, item, flow.findings[at:])
        if taken:
            assert not isinstance(item, LineError)
            flow.skip(item)
            visitor.taken_back(flow, i, item)
            continue
        visitor.after(flow, i, item, feed_line(flow, pairs, i, skipped, repairs))
    return flow


def attach_next(pairs: Pairs, skipped: set[int], repairs: Repairs, run: ReplayRun,
                ) -> CoreFlow:
    """The flow of ``run`` with what the rules wanted next (:func:`next_step`) set on each
    error a player's line raised (:attr:`Finding.next`): the log walked once more with the
    same ``repairs`` (:class:`NextMarks`), the flow's state read just before each line
    ``run`` found in error, after the repair planned there (the table as the judge had
    it). The error a repair reports is about the table's departure itself: it gets the
    state before the repair. Lines that raised no error, malformed lines and what
    :meth:`CoreFlow.finish` reports get none; only logs with errors pay for the walk.

    Returns a replay like ``run``'s if this one does not rule as ``run`` did (it always
    should: the flow is deterministic). ``run`` lets go of its flow meanwhile, so that one
    flow of the log is held at a time."""
    marked = run.erring | set(repairs)
    if not marked:
        return run.flow
    run.flow = None  # type: ignore[assignment]  # replayed below if ever needed again
    no, first = pairs[0]
    flow = walk(start_flow(first, no), pairs, skipped, repairs, NextMarks(marked))
    if breaks(flow.findings) != run.errors:
        return replay(pairs, skipped, repairs).flow
    return flow


class Replay:
    """One log as every reader reads it: its lines (``(line number, line)`` pairs), the
    positions a correction took back, and the repairs the judge plans, once.

    Refuses (:class:`~adjudicator.judge.JudgeInputError`) an empty log and one longer than
    one match's. The plan's own replay (:attr:`run`) is the whole log read as planned: a
    reader that wants the flow at its end takes it (:meth:`flow`); a walk lets it go
    first, so that one flow of the log is held at a time."""

    def __init__(self, items: Iterable[tuple[int, Item]],
                 budget: ReplayBudget | None = None) -> None:
        pairs = list(items)
        if not pairs:
            raise JudgeInputError(1, "(line)", "the log is empty")
        refuse_too_long(pairs)
        self.pairs: Pairs = pairs
        self.skipped = taken_back([item for _no, item in pairs])
        """Positions of the lines a correction took back, and of the corrections."""
        self.planning = budget if budget is not None else repair_budget(len(pairs))
        """What the plan's trials may feed (it says whether they ran out)."""
        self.grouping = cause_budget(len(pairs))
        """What :meth:`conclude`'s trials of causes may feed."""
        self.repairs, run = plan_repairs(pairs, self.skipped, self.planning)
        self.run: ReplayRun | None = run
        """The plan's replay with its repairs, until a reader takes its flow or walks."""

    @classmethod
    def of_lines(cls, lines: Iterable[LogLine]) -> Replay:
        """The replay of stored lines, numbered from 1."""
        return cls(enumerate(lines, start=1))

    def start(self) -> CoreFlow:
        """A new flow of the log's first line; the plan's own flow goes."""
        self.run = None
        no, first = self.pairs[0]
        return start_flow(first, no)

    def flow(self) -> CoreFlow:
        """The flow of the whole log as planned (not finished): the plan's own, taken
        (a second call replays the log)."""
        run, self.run = self.run, None
        if run is None:
            return replay(self.pairs, self.skipped, self.repairs).flow
        return run.flow

    def walk(self, visitor: Visitor, flow: CoreFlow | None = None, start: int = 1,
             stop: int | None = None) -> CoreFlow:
        """Feed the log (positions ``start`` to ``stop``) to ``flow`` (by default a new
        one, from the first line) as planned, calling ``visitor`` at each line. The
        plan's own flow goes first."""
        self.run = None
        if flow is None:
            flow = self.start()
        return walk(flow, self.pairs, self.skipped, self.repairs, visitor, start, stop)

    def judged(self) -> CoreFlow:
        """The flow the judge reports: the plan's own, with what the rules wanted next on
        each error a player's line raised (:func:`attach_next`), concluded
        (:meth:`conclude`)."""
        run, self.run = self.run, None
        if run is None:
            run = replay(self.pairs, self.skipped, self.repairs)
        return self.conclude(attach_next(self.pairs, self.skipped, self.repairs, run))

    def conclude(self, flow: CoreFlow) -> CoreFlow:
        """``flow`` at the end of the log: finished (:meth:`CoreFlow.finish`), its
        findings in line order, each error that follows from an earlier one marked
        (:func:`~adjudicator.judge.group_consequences`)."""
        flow.finish()
        flow.findings.sort(key=lambda f: f.seq)
        group_consequences(self.pairs, self.skipped, self.repairs, flow.findings,
                           self.grouping)
        return flow


class NextMarks(Visitor):
    """The judge's visitor: on each error a player's line at the ``marked`` positions
    raised, what the rules wanted next (:attr:`Finding.next`), read just before the line,
    after the repair planned there; an error a repair reports gets the state before the
    repair (it is about the table's departure itself)."""

    def __init__(self, marked: set[int]) -> None:
        self.marked = marked
        self.step: NextStep | None = None

    def before(self, flow: CoreFlow, i: int, item: Item) -> None:
        self.step = next_step(flow) if i in self.marked and \
            not isinstance(item, LineError) else None

    def repaired(self, flow: CoreFlow, i: int, item: Item, raised: list[Finding]) -> None:
        if self.step is not None:
            assert not isinstance(item, LineError)
            mark_next(raised, self.step, item)
            self.step = next_step(flow)

    def after(self, flow: CoreFlow, i: int, item: Item, raised: list[Finding]) -> None:
        if self.step is not None:
            assert not isinstance(item, LineError)
            mark_next(raised, self.step, item)
            self.step = None
