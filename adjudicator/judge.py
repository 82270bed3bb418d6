"""The judge: reads a match log line by line against the core flow and reports findings.

One engine, several uses: the judge, ``normalize``, the recorder and the board projection
all drive :class:`~adjudicator.flow.CoreFlow`; none of them re-implements a rule.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, breaks, finding
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.game import GameRules, UnsupportedRules
from coreflow_judge.adjudicator.next_step import NextStep, next_step, not_weighing
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import LogLine, MatchStarted, Resolve, TakenBack
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

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "match_id": self.match_id,
            "rules": self.rules,
            "events": self.events,
            "findings": [f.as_dict() for f in self.findings],
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
            repairs: Repairs) -> None:
    """Feed the line at position ``i`` as the judge reads it: skipped if a correction took
    it back, after taking the table as played if a repair is planned there, as the table
    carried it out if a :class:`Kept` repair amends it. The board, the audit and the live
    table feed lines through this too (one reading of a log)."""
    repair_at(flow, pairs, i, repairs)
    no, item = pairs[i]
    if i in skipped or isinstance(item, LineError) or not repairs:
        feed_item(flow, no, item, i in skipped)
        return
    _feed_repaired(flow, i, item, repairs)


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
        return flow.findings[before:]
    raised = flow.feed(item)
    kept = repairs.get(i)
    if isinstance(kept, Kept):
        root = kept.root_finding()
        flow.findings.append(root)
        raised = [*raised, root]
    return raised


def repair_at(flow: CoreFlow, pairs: Pairs, i: int, repairs: Repairs) -> None:
    """Take the table as played before the line at position ``i``, if a repair is
    planned there (:meth:`CoreFlow.repair`)."""
    kind = repairs.get(i)
    item = pairs[i][1]
    if isinstance(kind, str) and not isinstance(item, LineError):
        flow.repair(kind, item.seq, item)


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


def replay(pairs: Pairs, skipped: set[int], repairs: Repairs, upto: int | None = None,
           ) -> ReplayRun:
    """Feed ``pairs`` (the first ``upto`` of them) to a new flow, taking the table as it
    played at the lines ``repairs`` names. Not finished (:meth:`CoreFlow.finish`)."""
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
        waiting = [r.source for r in flow.buffer if r.source] if kind is None else []
        repair_at(flow, pairs, i, repairs)
        top = _unnamed_top(flow)
        if top is not None and not top.passed_over:
            on_top.setdefault(id(top), i)
        if top is not None and isinstance(item, Resolve) and item.request != top.id and \
                item.request not in flow.requests and not flow.buffer and \
                [r for r in flow.stage if r.provisional] == [top] and \
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
        if flow._withdrawn or raised or kind is not None or len(flow.findings) != before:
            # The line reported (perhaps into an earlier finding of its code, merged) or
            # withdrew a finding: the rule breaks counted again (findings.breaks).
            running = breaks(flow.findings)
        if any(f.severity == "error" for f in raised):
            erring.add(i)
            last_error = i
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


def _kept_candidates(flow: CoreFlow, line: LogLine, waiting: list[str]) -> list[tuple[str, int]]:
    """Cards a line names (or the sources of the triggered requests it went on without,
    ``waiting``) that an earlier resolution moved: (card, seq of that resolve line), the
    latest move of each. The table may have kept them where they were (the ``kept``
    repair, :class:`Kept`)."""
    refs = list(dict.fromkeys([*waiting, *_refs_named(line)]))
    if not refs or not flow.resolutions:
        return []
    found: list[tuple[str, int]] = []
    for ref in refs:
        for seq in reversed(flow.resolutions):
            if seq >= line.seq:
                continue
            if any(e.get("op") == "move" and e.get("card") == ref
                   for e in flow.resolutions[seq].effects):
                found.append((ref, seq))
                break
    return found


def _plan_kept(pairs: Pairs, skipped: set[int], repairs: Repairs, run: ReplayRun, at: int,
               ) -> list[Kept]:
    """The :class:`Kept` repairs worth a trial at position ``at`` (a line in error in
    ``run``): one per card it names that an earlier resolution moved."""
    item = pairs[at][1]
    if isinstance(item, LineError):
        return []
    before = replay(pairs, skipped, repairs, upto=at).flow
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
        if flow._withdrawn or len(findings) != before:
            for f in findings[before:]:
                if f.severity == "error":
                    return None
            running = breaks(findings)
    return ReplayRun(flow, breaks(findings), {}, set(), counted)


def plan_repairs(pairs: Pairs, skipped: set[int]) -> tuple[Repairs, ReplayRun]:
    """Where the table went on from a departure, and how (docs/decisions.md, "Root cause
    first"): a repair is kept at a line when it makes that line keep the rules and leaves
    no more errors in the whole log (at a tie the repair's one finding names the cause,
    where the line's own would name only its symptom); of the kinds that fit a line, the
    one that leaves the fewest (at a tie, the first tried). Returns the repairs and the
    replay with them."""
    repairs: Repairs = {}
    clean = clean_replay(pairs, skipped)
    if clean is not None:
        return repairs, clean  # no line in error: no repair to plan
    run = replay(pairs, skipped, repairs)
    tried: set[int] = set()
    while len(tried) < MAX_REPAIR_TRIALS:
        todo = [c for c in sorted(run.candidates) if c not in tried]
        if not todo:
            break
        at = todo[0]
        tried.add(at)
        best: tuple[Repair, ReplayRun] | None = None
        for kind in run.candidates[at]:
            if kind == "left" and _named_later(pairs, at, replay(pairs, skipped, repairs,
                                                                  upto=at).flow):
                continue  # the table comes back to them: they did not leave the stage
            trials: list[Repair] = [kind] if kind != "kept" else list(
                _plan_kept(pairs, skipped, repairs, run, at))
            for repair in trials:
                trial = replay(pairs, skipped, {**repairs, at: repair})
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
                       findings: list[Finding]) -> None:
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
    position = {item.seq: i for i, (_no, item) in enumerate(pairs)
                if not isinstance(item, LineError)}
    tried = 0
    for root in errors:
        later = [f for f in errors if f.seq > root.seq and f.caused_by is None]
        i = position.get(root.seq, 0)
        if not later or root.caused_by is not None or i == 0 or i in skipped:
            continue
        if tried == MAX_CAUSE_TRIALS:
            break
        tried += 1
        others = {k: v for k, v in repairs.items() if k != i}
        line = pairs[i][1]
        if isinstance(line, Resolve) and line.effects is not None:
            # A resolution the table carried out otherwise than it claims: without the
            # mistake it happened all the same, as the rules carry it out (no claim).
            data = line.model_dump(exclude_none=True)
            data.pop("effects")
            honest = list(pairs)
            honest[i] = (pairs[i][0], Resolve.model_validate(data))
            without = replay(honest, skipped, others)
        else:
            without = replay(pairs, skipped | {i}, others)
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


def attach_next(pairs: Pairs, skipped: set[int], repairs: Repairs, run: ReplayRun,
                ) -> CoreFlow:
    """The flow of ``run`` with what the rules wanted next (:func:`next_step`) set on each
    error a player's line raised (:attr:`Finding.next`): the log replayed once more with
    the same ``repairs``, the flow's state read just before each line ``run`` found in
    error, after the repair planned there (the table as the judge had it). The error a
    repair reports is about the table's departure itself: it gets the state before the
    repair. Lines that raised no error, malformed lines and what :meth:`CoreFlow.finish`
    reports get none; only logs with errors pay for the replay.

    Returns ``run.flow`` unchanged if the replay does not rule as ``run`` did (it always
    should: the flow is deterministic)."""
    marked = run.erring | set(repairs)
    if not marked:
        return run.flow
    no, first = pairs[0]
    flow = start_flow(first, no)
    for i in range(1, len(pairs)):
        no, item = pairs[i]
        if i not in marked or isinstance(item, LineError) or i in skipped:
            feed_at(flow, pairs, i, skipped, repairs)
            continue
        if isinstance(repairs.get(i), str):
            before, start = next_step(flow), len(flow.findings)
            repair_at(flow, pairs, i, repairs)
            _mark(flow.findings[start:], before, item)
        before = next_step(flow)
        _mark(_feed_repaired(flow, i, item, repairs), before, item)
    if breaks(flow.findings) != run.errors:
        return run.flow
    return flow


def _mark(raised: list[Finding], step: NextStep, line: LogLine) -> None:
    """Set ``step`` on the errors in ``raised`` that are about ``line``; where ``step``
    offers the very request the line made, it says that it does not weigh the rule the
    finding rests on (:func:`~adjudicator.next_step.not_weighing`)."""
    for f in raised:
        if f.severity == "error" and f.seq == line.seq and f.next is None:
            f.next = not_weighing(step, line, f.code)


def _judge(items: Iterable[tuple[int, LogLine | LineError]]) -> Report:
    pairs = list(items)
    if not pairs:
        raise JudgeInputError(1, "(line)", "the log is empty")
    skipped = taken_back([item for _no, item in pairs])
    repairs, run = plan_repairs(pairs, skipped)
    flow = attach_next(pairs, skipped, repairs, run)
    flow.finish()
    header = flow.header
    flow.findings.sort(key=lambda f: f.seq)
    group_consequences(pairs, skipped, repairs, flow.findings)
    return Report(
        match_id=header.match_id, rules=header.rules, events=len(pairs),
        findings=flow.findings,
        result=flow.result.as_dict() if flow.result else None,
        notes=flow.rules.notes(), flow=flow,
    )


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
