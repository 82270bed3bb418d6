"""The judge: reads a match log line by line against the core flow and reports findings.

One engine, several uses: the judge, ``normalize``, the recorder and the board projection
all drive :class:`~adjudicator.flow.CoreFlow`; none of them re-implements a rule.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, breaks, finding, weight
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.game import GameRules, UnsupportedRules
from coreflow_judge.adjudicator.next_step import NextStep, next_step, not_weighing
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import (
    MAX_LOG_LINES,
    LogLine,
    MatchStarted,
    Resolve,
    TakenBack,
)
from coreflow_judge.events.reader import LineError, read_log


class JudgeInputError(Exception):
    """The log cannot be judged at all (exit status 2): names the line and field."""

    def __init__(self, line: int, field: str, message: str) -> None:
        super().__init__(f"line {line}: field {field!r}: {message}")
        self.line = line
        self.field = field


def rules_for(header: MatchStarted) -> GameRules:
    """The rules module of the header's game, edition and format: the game is the one
    registered under the header's ``game`` (:mod:`adjudicator.plugins`)."""
    plugin = game_plugin(header.game)
    game, _, edition = header.rules.partition("/")
    if game != header.game:
        raise UnsupportedRules(f"rules {header.rules!r} do not belong to game {header.game!r}",
                               field="rules")
    plugin.check_header(header)
    return plugin.rules(header, edition)


@dataclass(slots=True)
class Report:
    """The judge's report on one log (the JSON report of docs/findings.md)."""

    match_id: str
    rules: str
    events: int
    findings: list[Finding]
    result: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    flow: CoreFlow | None = None

    @property
    def errors(self) -> int:
        """The error findings, less those that follow from another (``caused_by``)."""
        return sum(1 for f in self.findings if f.severity == "error" and f.caused_by is None)

    def as_dict(self, findings: bool = True) -> dict[str, Any]:
        """The JSON report; without ``findings``, its ``findings`` is an empty list (for
        a writer that writes them one at a time)."""
        out: dict[str, Any] = {
            "match_id": self.match_id,
            "rules": self.rules,
            "events": self.events,
            "findings": [f.as_dict() for f in self.findings] if findings else [],
            "result": self.result,
        }
        if self.notes:
            out["notes"] = self.notes
        return out


def taken_back(items: Sequence[LogLine | LineError]) -> set[int]:
    """The positions (indices into ``items``) of the lines a correction took back, and of
    the corrections themselves: the judge, the board and the audit skip them.

    A ``taken_back`` line of ``n`` takes back the ``n`` lines before it that are still
    standing (not taken back, not corrections, never the ``match_started`` line). One
    that asks for more than stand is no correction: it is fed, and the flow reports it.
    """
    skipped: set[int] = set()
    standing: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, TakenBack):
            if i == 0 or item.lines > len(standing):
                continue
            for _ in range(item.lines):
                skipped.add(standing.pop())
            skipped.add(i)
        elif i > 0:
            standing.append(i)
    return skipped


def feed_item(flow: CoreFlow, line_no: int, item: LogLine | LineError,
              skip: bool = False) -> None:
    """Feed one read line; a malformed one is a ``log.malformed`` finding and a hole in the
    log (the seq it should have had is taken). ``skip``: a line :func:`taken_back` names,
    kept in the complete log but not judged."""
    if skip and not isinstance(item, LineError):
        flow.skip(item)
        return
    if isinstance(item, LineError):
        flow.findings.append(finding(
            "log.malformed", flow.last_seq + 1 if flow.last_seq else line_no, "log",
            f"Line {line_no}: field {item.field!r}: {item.message}",
            actual={"line": line_no, "field": item.field},
        ))
        flow.breaks += weight(flow.findings[-1])
        flow.next_seq += 1
        return
    flow.feed(item)


def start_flow(first: LogLine | LineError, line_no: int = 1) -> CoreFlow:
    """Open a match from its first line; raise :class:`JudgeInputError` if impossible."""
    if isinstance(first, LineError):
        raise JudgeInputError(first.line, first.field, first.message)
    if not isinstance(first, MatchStarted):
        raise JudgeInputError(line_no, "type", "line 1 must be match_started")
    try:
        rules = rules_for(first)
    except UnsupportedRules as exc:
        raise JudgeInputError(line_no, exc.field or "(header)", str(exc)) from exc
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        # A rules module that trips over a header it should have refused: still the
        # header's fault, and still no traceback.
        raise JudgeInputError(
            line_no, "(header)",
            f"the {first.game} rules cannot use this header "
            f"({type(exc).__name__}: {exc}); check its cards, decks and deck_sizes",
        ) from exc
    flow = CoreFlow(first, rules, seq=first.seq)
    if first.seq != 1:
        flow.findings.append(finding("log.seq-gap", first.seq, "log", "Line 1 must have seq 1.",
                                     expected=1, actual=first.seq))
        flow.breaks += 1
    return flow


@contextmanager
def _few_collections() -> Iterator[None]:
    """Judging allocates many small objects that all live until the report: the cyclic
    garbage collector's young-generation passes find nothing to free and cost about a
    quarter of the time, so they run less often while a log is judged."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], 100_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def judge_lines(items: Iterable[tuple[int, LogLine | LineError]]) -> Report:
    """Judge a parsed log; malformed lines become ``log.malformed`` findings."""
    with _few_collections():
        return _judge(items)


Pairs = list[tuple[int, LogLine | LineError]]


def feed_at(flow: CoreFlow, pairs: Pairs, i: int, skipped: set[int],
            repairs: Repairs) -> list[Finding]:
    """Feed the line at position ``i`` as the judge reads it: skipped if a correction took
    it back, after taking the table as played if a repair is planned there, as the table
    carried it out if a :class:`Kept` repair amends it (one reading of a log: every reader
    walks it so, :mod:`adjudicator.replay`). Returns what the line raised."""
    repair_at(flow, pairs, i, repairs)
    return feed_line(flow, pairs, i, skipped, repairs)


def feed_line(flow: CoreFlow, pairs: Pairs, i: int, skipped: set[int],
              repairs: Repairs) -> list[Finding]:
    """:func:`feed_at` once the repair planned before the line is taken."""
    no, item = pairs[i]
    if i in skipped or isinstance(item, LineError):
        before = len(flow.findings)
        feed_item(flow, no, item, i in skipped)
        return flow.findings[before:]
    if not repairs:
        return flow.feed(item)
    return _feed_repaired(flow, i, item, repairs)


def _feed_repaired(flow: CoreFlow, i: int, item: LogLine, repairs: Repairs) -> list[Finding]:
    """Feed ``item`` (at position ``i``) with the :class:`Kept` repairs that concern it:
    amended where one says the table carried it out otherwise, and with the repair's
    finding when it is the line that showed it. Returns what feeding it raised."""
    amend = next((r for r in repairs.values() if isinstance(r, Kept) and r.at == i), None)
    if amend is not None:
        before = len(flow.findings)
        flow.feed(amend.amended(flow, item))
        # The amendment's own claim findings are not the table's: the table wrote no such
        # claim. Only what the line raised as written stays.
        raised = flow.findings[before:]
        del flow.findings[before:]
        flow.findings.extend(f for f in raised if f.code in amend.codes_at)
        flow.breaks += breaks(flow.findings[before:]) - breaks(raised)
        return flow.findings[before:]
    raised = flow.feed(item)
    kept = repairs.get(i)
    if isinstance(kept, Kept):
        root = kept.root_finding()
        flow.findings.append(root)
        flow.breaks += weight(root)
        raised = [*raised, root]
    return raised


def repair_at(flow: CoreFlow, pairs: Pairs, i: int, repairs: Repairs) -> bool:
    """Take the table as played before the line at position ``i``, if a repair is
    planned there (:meth:`CoreFlow.repair`); whether one was."""
    kind = repairs.get(i)
    item = pairs[i][1]
    if isinstance(kind, str) and not isinstance(item, LineError):
        flow.repair(kind, item.seq, item)
        return True
    return False


@dataclass(frozen=True, slots=True)
class Kept:
    """The ``kept`` repair: the table kept a card where it was, where a resolution of the
    rules moved it (a soldier the Damage Judgement destroys, which the table's later play
    shows still on the field). Planned at the first line that contradicts the table the
    rules leave (position ``p``, the key of the repair): that line gets the one finding,
    what it breaks under the rules and why, and from the resolution at position ``at`` on
    the game is judged as the table played it: the resolution is fed as if the log had
    claimed its effects without the card's moves (the game then follows the claim, as it
    follows every claim)."""

    at: int
    """Position of the resolve line whose move of the card the table never carried out."""
    ref: str
    """The card (the unit it names) the table kept where it was."""
    effects: tuple[dict[str, Any], ...]
    """The rules' effects of that resolution."""
    codes_at: frozenset[str]
    """The codes that resolution raised as written (kept when it is fed amended)."""
    root: Finding
    """The finding of the line that showed it (copied each time it is raised)."""

    def amended(self, flow: CoreFlow, line: LogLine) -> LogLine:
        """The resolve line with the effects the table carried out: the rules' effects
        but the moves of the kept unit's cards (:meth:`~RulesHooks.unit_of`)."""
        unit = flow.rules.unit_of(flow, self.ref)
        effects = [e for e in self.effects
                   if not (e.get("op") == "move" and e.get("card") in unit)]
        data = line.model_dump(exclude_none=True)
        data["effects"] = effects
        return type(line).model_validate(data)

    def root_finding(self) -> Finding:
        return replace(self.root)


Repair = str | Kept
Repairs = dict[int, Repair]


REPAIRS_ON_STAGE = ("skipped", "left", "missed")
"""How a table commonly goes on after a departure while the stage holds requests
(:meth:`CoreFlow.repair`), tried in this order at a line that breaks a rule."""
_REPAIRS_ON_STAGE_BUT_MISSED = tuple(k for k in REPAIRS_ON_STAGE if k != "missed")
REPAIRS_AT_TURN_START = ("turn",)
"""How a table goes on with a turn the rules give another player: tried at the first line
of a turn in which a line breaks a rule."""
MAX_REPAIR_TRIALS = 20
"""Lines tried for a repair in one log: bounds the work on a log with many mistakes."""


def _repairs_worth_trying(flow: CoreFlow, item: object) -> tuple[str, ...]:
    """The repairs that may fit the table as it is before a line (``item``: the line, or
    what could not be read of it). ``missed`` only at the resolution of a request below the
    top of the stage (each kind tried costs a replay of the log)."""
    if flow.result is not None:
        return ()
    if flow.turn_untouched and not flow.stage and flow.awaiting_instant is None:
        return REPAIRS_AT_TURN_START  # the turn's start may still wait in the buffer
    if flow.stage and flow.awaiting_instant is None and not flow.buffer:
        if isinstance(item, Resolve):
            named = flow.requests.get(item.request)
            if named is not None and named is not flow.stage[-1] and named in flow.stage:
                return REPAIRS_ON_STAGE
        return _REPAIRS_ON_STAGE_BUT_MISSED
    return ()


@dataclass(slots=True)
class ReplayRun:
    """One replay of a log: its flow, its error count and the lines worth a repair."""

    flow: CoreFlow
    errors: int
    """The rule breaks its error findings say (:func:`~adjudicator.findings.breaks`)."""
    candidates: dict[int, tuple[str, ...]]
    """Positions where a repair may fit, with the repairs that may
    (:func:`_repairs_worth_trying`): a line that raised an error, or the first line of a
    turn in which one did (the ``turn`` repair)."""
    erring: set[int]
    """Positions whose line raised an error."""
    before: list[int]
    """For each position, the rule breaks (findings.breaks) reported before its line."""
    stopped: bool = False
    """The replay stopped at the line it was for, which broke a rule (``keeping``)."""


def replay(pairs: Pairs, skipped: set[int], repairs: Repairs, upto: int | None = None,
           keeping: int | None = None) -> ReplayRun:
    """Feed ``pairs`` (the first ``upto`` of them) to a new flow, taking the table as it
    played at the lines ``repairs`` names. Not finished (:meth:`CoreFlow.finish`).

    ``keeping``: a position whose line the replay is for, to see whether it keeps the
    rules: if it breaks one, the replay stops there (:attr:`ReplayRun.stopped`)."""
    no, first = pairs[0]
    flow = start_flow(first, no)
    candidates: dict[int, tuple[str, ...]] = {}
    erring: set[int] = set()
    end = len(pairs) if upto is None else upto
    turn_began = (0, 0)  # the first line of the turn under way, and the turn
    counted = [0]  # the rule breaks (findings.breaks) before each position's line
    running = last_error = 0
    on_top: dict[int, int] = {}  # a triggered request no line named -> its first line on top
    guessed = 0  # where the last such request a resolution named by a guess came on top
    for i in range(1, end):
        kind = repairs.get(i)
        no, item = pairs[i]
        worth = _repairs_worth_trying(flow, item) if kind is None else ()
        if "turn" in worth and flow.turn != turn_began[1]:
            turn_began = (i, flow.turn)
        # The sources of the triggered requests waiting (of the first few: no game's buffer
        # holds more), which the line may go on without.
        waiting = [r.source for r in islice(flow.buffer, MAX_WAITING) if r.source] \
            if kind is None and flow.buffer else []
        repair_at(flow, pairs, i, repairs)
        top = _unnamed_top(flow)
        if top is not None and not top.passed_over:
            on_top.setdefault(id(top), i)
        if top is not None and isinstance(item, Resolve) and item.request != top.id and \
                item.request not in flow.requests and not flow.buffer and \
                flow.stage.sole_provisional() == (1, top) and \
                on_top.get(id(top), i) > last_error:
            # The flow binds the name to ``top``, which came with no error since.
            guessed = on_top.get(id(top), i)
        before = len(flow.findings)
        counted.append(running)
        if i in skipped or isinstance(item, LineError) or not repairs:
            feed_item(flow, no, item, i in skipped)
            raised = flow.findings[before:]
        else:
            raised = [f for f in _feed_repaired(flow, i, item, repairs)
                      if not (isinstance(kind, Kept) and f.code == kind.root.code
                              and f.message == kind.root.message)]
        running = flow.breaks  # kept line by line (CoreFlow.breaks)
        if any(f.severity == "error" for f in raised):
            erring.add(i)
            last_error = i
            if i == keeping:
                return ReplayRun(flow, running, candidates, erring, counted, stopped=True)
            if kind is None and not isinstance(item, LineError) and \
                    _kept_candidates(flow, item, waiting):
                worth = (*worth, "kept")
            if worth:
                candidates[i] = worth
                if "skipped" in worth and guessed and guessed not in repairs:
                    # A log that writes no trigger lines names its triggered requests by
                    # its own ids: the resolution the flow took for the request it had
                    # on top may have been of the one that request triggered, the table
                    # having skipped it as soon as it came (a Block nobody declared).
                    candidates.setdefault(guessed, ("skipped",))
                guessed = 0
            elif flow.turn == turn_began[1] and turn_began[0] not in repairs:
                # A line of a turn breaks a rule: perhaps the turn was another player's
                # from its first line on, where a log without its turn start names nobody.
                candidates.setdefault(turn_began[0], ("turn",))
    return ReplayRun(flow, breaks(flow.findings), candidates, erring, counted)


def _unnamed_top(flow: CoreFlow) -> Req | None:
    """The top of the stage, when it is a triggered request the rules staged and no line
    of the log has named (what the ``skipped`` repair may take as never played)."""
    if not flow.stage:
        return None
    top = flow.stage[-1]
    return top if top.triggered and top.provisional and not top.staged_in_log else None


def _refs_named(line: LogLine) -> list[str]:
    """The card references a line names: key cards, costs, targets and choices."""
    out: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, list | tuple):
            for v in value:
                walk(v)

    walk(getattr(line, "key_cards", None))
    walk([c.ref for c in getattr(line, "costs", None) or ()])
    walk(getattr(line, "targets", None))
    walk(getattr(line, "choices", None))
    return out


MAX_WAITING = 16
"""Triggered requests of the buffer whose sources a line in error may have gone on without
(the ``kept`` repair): the first ones; no game's buffer holds more."""
MAX_LATER_MOVES = 8
"""Moves of a card looked at to find the latest one before a line (:func:`_kept_candidates`):
more than one only where the log numbers its lines out of order."""


def _kept_candidates(flow: CoreFlow, line: LogLine, waiting: list[str]) -> list[tuple[str, int]]:
    """Cards a line names (or the sources of the triggered requests it went on without,
    ``waiting``) that an earlier resolution moved: (card, seq of that resolve line), the
    latest move of each. The table may have kept them where they were (the ``kept``
    repair, :class:`Kept`)."""
    refs = list(dict.fromkeys([*waiting, *_refs_named(line)]))
    if not refs or not flow.moved:
        return []
    found: list[tuple[str, int]] = []
    for ref in refs:
        seqs = flow.moved.get(ref)
        if not seqs:
            continue
        # The latest resolution before the line that moved it: the last one, but where
        # the log numbered its lines out of order (each a log.seq-gap), a few later.
        for seq in islice(reversed(seqs), MAX_LATER_MOVES):
            resolution = flow.resolutions.get(seq)
            if seq < line.seq and resolution is not None and any(
                    e.get("op") == "move" and e.get("card") == ref
                    for e in resolution.effects):
                found.append((ref, seq))
                break
    return found


def _plan_kept(pairs: Pairs, skipped: set[int], repairs: Repairs, run: ReplayRun, at: int,
               budget: ReplayBudget) -> list[Kept]:
    """The :class:`Kept` repairs worth a trial at position ``at`` (a line in error in
    ``run``): one per card it names that an earlier resolution moved."""
    item = pairs[at][1]
    if isinstance(item, LineError):
        return []
    before = budget.spend(replay(pairs, skipped, repairs, upto=at)).flow
    waiting = [r.source for r in before.buffer if r.source]
    flow = run.flow
    roots = [f for f in flow.findings if f.seq == item.seq and f.severity == "error"]
    if not roots:
        return []
    position = {line.seq: i for i, (_no, line) in enumerate(pairs)
                if not isinstance(line, LineError)}
    out: list[Kept] = []
    for ref, seq in _kept_candidates(before, item, waiting):
        i = position.get(seq)
        resolution = flow.resolutions.get(seq)
        line = pairs[i][1] if i is not None else None
        if i is None or resolution is None or not isinstance(line, Resolve) \
                or line.effects is not None or i in repairs:
            continue  # the log claimed that resolution's effects: nothing to infer
        move = next(e for e in resolution.effects
                    if e.get("op") == "move" and e.get("card") == ref)
        req = flow.requests.get(line.request)
        what = f"{req.action.name} ({req.id})" if req is not None else line.request
        root = replace(roots[0], caused_by=None, next=next_step(before), message=(
            f"{roots[0].message} The table went on as if {ref} had not left the "
            f"{move.get('from')} when {what} resolved at line {seq} (the rules move it to "
            f"the {move.get('to')} there): the game is judged from here as the table played "
            "it."))
        out.append(Kept(i, ref, tuple(resolution.effects),
                        frozenset(f.code for f in flow.findings if f.seq == seq), root))
    return out


def clean_replay(pairs: Pairs, skipped: set[int]) -> ReplayRun | None:
    """The replay of a log none of whose lines raises an error, fed without the repair
    planner's bookkeeping (what each line's state would allow, the triggered requests on
    top): the common case, a clean game, costs one plain replay. None as soon as a line
    raises an error: that log is replayed by :func:`replay`, which notes where a repair
    may fit. Where it returns a run, it is the run :func:`replay` makes without repairs
    (no candidates, no line in error)."""
    no, first = pairs[0]
    flow = start_flow(first, no)
    findings = flow.findings
    counted = [0]
    running = 0
    for i in range(1, len(pairs)):
        no, item = pairs[i]
        before = len(findings)
        counted.append(running)
        feed_item(flow, no, item, i in skipped)
        if len(findings) > before:
            for f in findings[before:]:
                if f.severity == "error":
                    return None
        running = flow.breaks  # kept line by line (CoreFlow.breaks)
    return ReplayRun(flow, breaks(findings), {}, set(), counted)


@dataclass(slots=True)
class ReplayBudget:
    """The lines the judge may feed to the replays of one log beyond reading it, so that
    what judging costs grows with the log's length, whatever the log says
    (docs/decisions.md, "A judge that cannot be stalled"): each trial of a repair and each
    error tried as a cause replays the log (or the part of it up to the line it is
    about), and a log that breaks a rule at every line would otherwise buy a replay per
    line. A replay is begun while some budget is left; what it fed is then taken off."""

    left: int
    ran_out: bool = False
    """A replay was not begun for want of budget."""

    @classmethod
    def per_line(cls, lines: int, per_line: int, allowance: int) -> ReplayBudget:
        return cls(per_line * lines + allowance)

    def allows(self) -> bool:
        if self.left <= 0:
            self.ran_out = True
        return not self.ran_out

    def spend(self, run: ReplayRun) -> ReplayRun:
        self.left -= len(run.before) - 1
        return run


REPAIR_REPLAYS_PER_LINE = 16
"""Lines :func:`plan_repairs` may feed to its trials, per line of the log (with
:data:`REPAIR_REPLAY_ALLOWANCE`): about 16 replays of a long log. A trial that makes the
line it is for break a rule stops there, so most trials cost a part of the log."""
REPAIR_REPLAY_ALLOWANCE = 20_000
"""Lines any log's repairs may feed besides (a short log is never held back)."""
CAUSE_REPLAYS_PER_LINE = 8
"""Lines :func:`group_consequences` may feed, per line of the log (with
:data:`CAUSE_REPLAY_ALLOWANCE`)."""
CAUSE_REPLAY_ALLOWANCE = 20_000


def repair_budget(lines: int) -> ReplayBudget:
    """What :func:`plan_repairs` may feed for a log of ``lines`` lines."""
    return ReplayBudget.per_line(lines, REPAIR_REPLAYS_PER_LINE, REPAIR_REPLAY_ALLOWANCE)


def cause_budget(lines: int) -> ReplayBudget:
    """What :func:`group_consequences` may feed for a log of ``lines`` lines."""
    return ReplayBudget.per_line(lines, CAUSE_REPLAYS_PER_LINE, CAUSE_REPLAY_ALLOWANCE)


def plan_repairs(pairs: Pairs, skipped: set[int], budget: ReplayBudget | None = None,
                 ) -> tuple[Repairs, ReplayRun]:
    """Where the table went on from a departure, and how (docs/decisions.md, "Root cause
    first"): a repair is kept at a line when it makes that line keep the rules and leaves
    no more errors in the whole log (at a tie the repair's one finding names the cause,
    where the line's own would name only its symptom); of the kinds that fit a line, the
    one that leaves the fewest (at a tie, the first tried). Returns the repairs and the
    replay with them.

    The trials stop where ``budget`` (by default :data:`REPAIR_REPLAYS_PER_LINE` lines
    fed per line of the log) runs out: every reader of a log (the judge, the board, the
    audit, the live table) plans the same repairs."""
    if budget is None:
        budget = repair_budget(len(pairs))
    repairs: Repairs = {}
    clean = clean_replay(pairs, skipped)
    if clean is not None:
        return repairs, clean  # no line in error: no repair to plan
    run = replay(pairs, skipped, repairs)
    tried: set[int] = set()
    while len(tried) < MAX_REPAIR_TRIALS and budget.allows():
        todo = [c for c in sorted(run.candidates) if c not in tried]
        if not todo:
            break
        at = todo[0]
        tried.add(at)
        best: tuple[Repair, ReplayRun] | None = None
        for kind in run.candidates[at]:
            if not budget.allows():
                break
            if kind == "left" and _named_later(pairs, at, budget.spend(
                    replay(pairs, skipped, repairs, upto=at)).flow):
                continue  # the table comes back to them: they did not leave the stage
            trials: list[Repair] = [kind] if kind != "kept" else list(
                _plan_kept(pairs, skipped, repairs, run, at, budget))
            for repair in trials:
                if not budget.allows():
                    break
                trial = None  # the last trial's flow goes before the next is built
                trial = budget.spend(replay(pairs, skipped, {**repairs, at: repair},
                                            keeping=at))
                if at not in trial.erring and trial.errors <= run.errors and (
                        best is None or trial.errors < best[1].errors):
                    best = (repair, trial)  # of two that fit, the one that leaves fewer
                    if trial.errors <= trial.before[at] + 1:
                        break  # nothing after the repair's own finding: none does better
            if best is not None and best[1].errors <= best[1].before[at] + 1:
                break
        if best is not None:
            repairs[at], run = best
    return repairs, run


MAX_CAUSE_TRIALS = 20
"""Error findings tried as the cause of later ones in one log (each costs a replay)."""


def group_consequences(pairs: Pairs, skipped: set[int], repairs: Repairs,
                       findings: list[Finding], budget: ReplayBudget | None = None) -> None:
    """Mark each error finding that follows from an earlier one (``caused_by``).

    A later error finding follows from an earlier error's line when, without the mistake
    of that line, the later finding's line keeps the rules: the table's later line was
    right for the game the mistake made, and wrong only because of it. Without the mistake
    means the line taken back (judged as if never played), or for a resolution whose
    effects the log claims, the resolution carried out as the rules say (it happened all
    the same; only its claims were wrong). The first error of a line that no earlier one
    explains is a root; what follows from a consequence is grouped under the same root.
    Findings of the same line are never grouped (each is a rule that line broke)."""
    errors = sorted((f for f in findings if f.severity == "error"), key=lambda f: f.seq)
    if len({f.seq for f in errors}) < 2:
        return  # nothing later to follow from anything
    if budget is None:
        budget = cause_budget(len(pairs))
    position = {item.seq: i for i, (_no, item) in enumerate(pairs)
                if not isinstance(item, LineError)}
    tried = 0
    for n, root in enumerate(errors):
        i = position.get(root.seq, 0)
        if root.caused_by is not None or i == 0 or i in skipped:
            continue
        later = [f for f in islice(errors, n + 1, None)
                 if f.seq > root.seq and f.caused_by is None]
        if not later:
            break  # nor after any later root: errors only ever become consequences
        if tried == MAX_CAUSE_TRIALS or not budget.allows():
            break
        tried += 1
        without = None  # the last trial's flow goes before the next is built
        others = {k: v for k, v in repairs.items() if k != i}
        line = pairs[i][1]
        if isinstance(line, Resolve) and line.effects is not None:
            # A resolution the table carried out otherwise than it claims: without the
            # mistake it happened all the same, as the rules carry it out (no claim).
            data = line.model_dump(exclude_none=True)
            data.pop("effects")
            honest = list(pairs)
            honest[i] = (pairs[i][0], Resolve.model_validate(data))
            without = budget.spend(replay(honest, skipped, others))
        else:
            without = budget.spend(replay(pairs, skipped | {i}, others))
        without.flow.finish()
        still = {f.seq for f in without.flow.findings if f.severity == "error"}
        for f in later:
            if f.seq not in still:
                f.caused_by = (root.seq, root.code)


def _named_later(pairs: Pairs, at: int, flow: CoreFlow) -> bool:
    """Whether a line from position ``at`` on names a request on the stage of ``flow``."""
    ids = {r.id for r in flow.stage}
    for _no, item in pairs[at:]:
        if isinstance(item, LineError):
            continue
        if getattr(item, "request", None) in ids or ids & set(getattr(item, "targets", ())):
            return True
    return False


def mark_next(raised: list[Finding], step: NextStep, line: LogLine) -> None:
    """Set ``step`` on the errors in ``raised`` that are about ``line``; where ``step``
    offers the very request the line made, it says that it does not weigh the rule the
    finding rests on (:func:`~adjudicator.next_step.not_weighing`)."""
    for f in raised:
        if f.severity == "error" and f.seq == line.seq and f.next is None:
            f.next = not_weighing(step, line, f.code)


def refuse_too_long(pairs: Sequence[object]) -> None:
    """A log of more lines than one match's (:data:`~events.models.MAX_LOG_LINES`) is
    refused whole (:class:`JudgeInputError`): a file is refused as it is read, a stored
    record as the table wrote it here."""
    if len(pairs) > MAX_LOG_LINES:
        raise JudgeInputError(MAX_LOG_LINES + 1, "(log)",
                              f"the log is longer than {MAX_LOG_LINES:,} lines, the limit "
                              "of one match's log")


def _judge(items: Iterable[tuple[int, LogLine | LineError]]) -> Report:
    # The one reading of a log (adjudicator/replay.py builds on this module's planning).
    from coreflow_judge.adjudicator.replay import Replay

    read = Replay(items)
    flow = read.judged()
    header = flow.header
    notes = [*flow.rules.notes()]
    if read.planning.ran_out:
        notes.append(BUDGET_NOTES["repairs"])
    if read.grouping.ran_out:
        notes.append(BUDGET_NOTES["causes"])
    return Report(
        match_id=header.match_id, rules=header.rules, events=len(read.pairs),
        findings=flow.findings,
        result=flow.result.as_dict() if flow.result else None,
        notes=notes, flow=flow,
    )


BUDGET_NOTES = {
    "repairs": "This log breaks the rules at more lines than the judge tries to repair in a "
               "log of its length: after a departure found late in it, the rest may be "
               "judged on the table as the rules had it rather than as it was played.",
    "causes": "This log breaks the rules at more lines than the judge tries as causes in a "
              "log of its length: some of the later errors may follow from an earlier one "
              "without saying so (caused_by).",
}
"""The notes of a report whose replays ran out of budget (:class:`ReplayBudget`)."""


def judge_file(path: Path) -> Report:
    return judge_lines(read_log(path))


def normalize_lines(items: Iterable[tuple[int, LogLine | LineError]]) -> list[LogLine]:
    """The complete log: every derived line filled in, renumbered."""
    return complete_with_table_seqs(items)[0]


def complete_with_table_seqs(items: Iterable[tuple[int, LogLine | LineError]]
                             ) -> tuple[list[LogLine], list[int | None]]:
    """The complete log, and each of its lines' number in the log as written (None for a
    line the rules derived): what the recorder keeps, so that findings about a recorded
    match name the table's own lines."""
    report = judge_lines(items)
    assert report.flow is not None
    return report.flow.complete_log(), report.flow.ledger.table_seqs()
