"""Equivalent forms of a match log, and the check that the judge rules alike on each.

The same game written two honest ways gets the same ruling (issue 22). Each rewriter here
turns a log into another form the log format allows for the *same* game, and says for
each line of the new form which line of the original it stands for, so that a finding
can be followed to the table's line it is about. :func:`check` judges the original and a
form and lists every difference in their error findings (code and table line) and result.

The forms, and the rule that makes each one the same game:

``complete``
    :func:`~adjudicator.judge.normalize_lines`: every line the rules derive filled in.
    match-log.md, "Who writes what": rule-system consequences (``chance_moved``,
    ``trigger``, the ``stage`` of a direct request, ``discard``, ``turn_started``,
    ``game_ended``) may be omitted or present; present, they are checked.
``sparse``
    The reverse: every rule-system line that says what the rules derived there (the
    ledger's :attr:`~adjudicator.ledger.Ledger.agreed` lines, less any line with a
    finding of its own) left out, except a ``trigger`` line whose request a later line
    names (match-log.md, ``trigger``: "a triggered request that a later line resolves or
    stages must have its trigger line, so that the later line can name it") and a
    ``game_ended`` that lines follow (after a recorded end they are
    ``log.after-game-end``, after an unrecorded one ``order.win-check-missed``: the spec
    tells the two apart).
``trigger-early`` / ``trigger-late`` / ``trigger-late-sparse`` / ``trigger-anywhere``
    Every ``trigger`` line of the complete form moved to the first, or the last, place of
    its window (:func:`trigger_windows`); every one of the sparse form to the last place
    (there no derived line stands between a trigger and the line that names it, so it
    may come after passes and other resolutions); one line of either form to a place
    :data:`Choose` picks. core-flow.md, step [6] runs right after a request is made with
    its costs paid, then after each resolution; the line that records the trigger may
    stand anywhere from the line whose costs or resolution fired it up to the line that
    first names the triggered request (stages, discards, resolves or targets it). Where
    it stands in that window is no decision of anyone's.
``unit-card``
    Every reference to a BlackPoker character of several cards (an armed soldier, a
    6.1 extra character, 巨人 and 魔王) made by another of its cards, and every ``enter``
    claim of such a unit naming it by another of its cards first (match-log.md,
    References: "any card of a unit of several cards also names that unit"; "a character
    put onto the field by an effect is named by the card its ``enter`` claim names
    first").
``notation``
    Every line written in the short notation of ``coreflow play`` (docs/play.md; actions
    by their Japanese names where the rules give one) and read back
    (:mod:`adjudicator.notation`): one line of notation is one log line.
``call`` / ``call-answer``
    The passes before a resolution written as one pass carrying a shortcut call
    (docs/decisions.md, "Shortcut calls"; the official shortcut guideline G1, G3, G6): the
    call stands for the passes still needed before the top of the stage resolves, and
    for those of the later actions of its chain; a call answering a declaration (said by
    the other player after the declarer passed) implies the declarer's own pass.
``passes``
    The reverse: a log's calls written out as the passes they stand for (the complete
    form, whose implied passes are ``pass`` lines, with each call's note taken off).
``renamed``
    Every request id written as another, wherever a line names it (match-log.md,
    References: a request reference is any string unique within the match).
``claims-added`` / ``claims-dropped``
    The optional claims written equal to the rules' own, or left out where they are
    (match-log.md: a request's ``speed`` and ``timing``, a trigger's ``controller``, a
    resolution's ``effects`` are claims the judge checks): a claim that says what the
    rules say changes nothing. Effects that tell the judge cards it cannot see otherwise
    are kept by ``claims-dropped``; ``claims-hidden`` leaves them out too, and then the
    judge may rule fewer errors (a mistake only those cards showed), never another one
    (what it cannot see is a warning at most).

A rewriter returns :class:`NotApplicable` (with the reason) for a log it has nothing to
rewrite in, so that what was not tried is counted as such, never passed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow
from coreflow_judge.adjudicator.judge import (
    Report,
    feed_at,
    judge_lines,
    plan_repairs,
    repair_at,
    start_flow,
)
from coreflow_judge.adjudicator.notation import TableView, read_notation, to_notation
from coreflow_judge.adjudicator.request import Req
from coreflow_judge.events.models import (
    ChanceMoved,
    Discard,
    Effect,
    GameEnded,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    Stage,
    TakenBack,
    Trigger,
)
from coreflow_judge.events.reader import LineError, lines_of_header

Log = list[LogLine]
Choose = Callable[[int], int]
"""Picks one of ``n`` places (0..n-1): a fixed rule, or Hypothesis' choice."""


def first(n: int) -> int:
    """The default choice: the first place."""
    return 0


@dataclass(frozen=True, slots=True)
class Form:
    """A log rewritten into an equivalent form."""

    kind: str
    lines: Log
    origin: list[int | None]
    """For each line of :attr:`lines`, the seq of the original line it stands for (None:
    a line the form adds, which no line of the original wrote)."""
    what: str
    """What was rewritten (for a failure message)."""
    count: int = 1
    """How many places of the log the rewrite changed."""
    knows_less: bool = False
    """The form leaves out what told the judge something it cannot see otherwise (hidden
    cards): it may rule fewer errors (a mistake it can no longer see) and no result where
    the original had one (or the table's recorded end, taken as it is where the rules
    cannot check it: log.hidden-info), never another error or another result."""


@dataclass(frozen=True, slots=True)
class NotApplicable:
    """A rewrite with nothing to rewrite in this log."""

    kind: str
    why: str


@dataclass(slots=True)
class Original:
    """A log as written, judged once (the rewriters read the judge's flow)."""

    lines: Log
    report: Report = field(init=False)
    cache: dict[str, Any] = field(init=False, default_factory=dict)
    """What several rewriters read (the runs of passes, the forms), computed once."""

    def __post_init__(self) -> None:
        self.report = judge(self.lines)

    @property
    def flow(self) -> CoreFlow:
        assert self.report.flow is not None
        return self.report.flow


Outcome = Form | NotApplicable
Rewriter = Callable[[Original, Choose], Outcome]


def judge(lines: Sequence[LogLine]) -> Report:
    return judge_lines(enumerate(lines, 1))


def renumber(lines: Sequence[LogLine]) -> Log:
    return [line.model_copy(update={"seq": i, "hash": None}) for i, line in enumerate(lines, 1)]


def form(kind: str, kept: Sequence[tuple[LogLine, int | None]], what: str,
         count: int = 1, knows_less: bool = False) -> Form:
    """A form from its lines, each with the original seq it stands for."""
    return Form(kind, renumber([line for line, _ in kept]), [o for _, o in kept], what, count,
                knows_less)


def replace(line: LogLine, **update: Any) -> LogLine:
    """``line`` with fields changed (validated again: a rewrite writes only valid lines)."""
    data = {**line.model_dump(exclude_none=True), **update}
    return type(line).model_validate({k: v for k, v in data.items() if v is not None})


# ---------------------------------------------------------------------------- the check
Ruling = tuple[Counter[tuple[str, int | None]], dict[str, Any] | None]


def ruling(report: Report, origin: Sequence[int | None] | None = None) -> Ruling:
    """The error findings of a report as (code, table line), and the result; ``origin``
    maps the judged log's seqs to the original's (None: the log is the original)."""
    def table_line(seq: int) -> int | None:
        """The table's line a finding of line ``seq`` is about: a line the form added
        (derived) stands for what the table took as done at its next line of its own."""
        if origin is None:
            return seq
        return next((o for o in origin[max(seq - 1, 0):] if o is not None), None)
    errors = Counter((f.code, table_line(f.seq)) for f in report.findings
                     if f.severity == "error")
    return errors, report.result


def differences(original: Original, rewritten: Form) -> list[str]:
    """How the ruling on ``rewritten`` differs from the ruling on the original (empty:
    the same error codes at the same table lines, and the same result)."""
    ours, result = ruling(original.report)
    theirs, their_result = ruling(judge(rewritten.lines), rewritten.origin)
    out = [] if rewritten.knows_less else [
        f"only in the original: {code} at line {seq}"
        for (code, seq), n in (ours - theirs).items() for _ in range(n)]
    out += [f"only in the {rewritten.kind} form: {code} at "
            + (f"line {seq}" if seq is not None else "a line after the table's last")
            for (code, seq), n in (theirs - ours).items() for _ in range(n)]
    recorded = next(({"result": line.result, "winner": line.winner,
                      "reason": line.reason or "unknown"}
                     for line in rewritten.lines if isinstance(line, GameEnded)), None)
    unseen = their_result is None or (their_result is not None and recorded is not None and {
        k: v for k, v in their_result.items() if v is not None} == {
        k: v for k, v in recorded.items() if v is not None})
    if result != their_result and not (rewritten.knows_less and unseen):
        out.append(f"result {result} in the original, {their_result} in the "
                   f"{rewritten.kind} form")
    return out


def applicable(lines: Log) -> str | None:
    """Why no rewrite applies to ``lines`` at all, or None. A rewrite renumbers lines and
    moves or drops some, which a log whose numbering is itself under dispute (a seq gap)
    or whose correction counts lines (``taken_back``) does not allow."""
    if not lines or not isinstance(lines[0], MatchStarted):
        return "no match_started line"
    if [line.seq for line in lines] != list(range(1, len(lines) + 1)):
        return "its seqs do not run 1, 2, 3, ... (renumbering would change the log)"
    if any(isinstance(line, TakenBack) for line in lines):
        return "a correction (taken_back) counts the lines before it"
    return None


# ---------------------------------------------------------------------------- helpers
def values(obj: Any) -> Iterator[str]:
    """Every string inside a line's fields (keys of objects included)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from values(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from values(v)


def names(line: LogLine, rid: str) -> bool:
    """Whether ``line`` names request ``rid`` (in any field but its own new id)."""
    data = line.model_dump(mode="json", exclude_none=True, exclude={"seq", "hash", "note"})
    if isinstance(line, Request | Trigger):
        data.pop("request", None)
    return rid in set(values(data))


def canonical(effects: Sequence[Any] | None) -> list[str]:
    """Effects as sorted canonical JSON (a claim's order of effects is no claim)."""
    out = []
    for e in effects or []:
        d = e.model_dump(mode="json") if isinstance(e, Effect) else dict(e)
        out.append(json.dumps(d, sort_keys=True, ensure_ascii=False))
    return sorted(out)


def replayed(lines: Log) -> Iterator[tuple[int, LogLine, CoreFlow, bool]]:
    """The flow around each line of ``lines`` after the first, the game followed as the
    judge follows it (with the repairs it plans after a departure): ``(i, line, flow,
    False)`` before line ``i`` is fed (after a repair planned there), then ``(i, line,
    flow, True)`` after it."""
    pairs: list[tuple[int, LogLine | LineError]] = list(enumerate(lines, 1))
    repairs, _run = plan_repairs(pairs, set())
    flow = start_flow(lines[0])
    for i, line in enumerate(lines[1:], start=1):
        repair_at(flow, pairs, i, repairs)
        yield i, line, flow, False
        feed_at(flow, pairs, i, set(), {})
        yield i, line, flow, True


def states(lines: Log) -> Iterator[tuple[int, LogLine, CoreFlow]]:
    """Each line of ``lines`` after the first with the flow *before* it (see
    :func:`replayed`)."""
    for i, line, flow, after in replayed(lines):
        if not after:
            yield i, line, flow


# ---------------------------------------------------------------------------- complete, sparse
def complete(original: Original, choose: Choose = first) -> Outcome:
    """The complete form (``coreflow normalize``): every derived line filled in."""
    if "complete" not in original.cache:
        original.cache["complete"] = _complete(original)
    done: Outcome = original.cache["complete"]
    return done


def _complete(original: Original) -> Outcome:
    flow = original.flow
    lines, seqs = flow.complete_log(), flow.ledger.table_seqs()
    added = sum(1 for s in seqs if s is None)
    if added == 0:
        return NotApplicable("complete", "the log is complete already")
    return Form("complete", renumber(lines), list(seqs), f"{added} derived lines filled in",
                added)


def sparse(original: Original, choose: Choose = first) -> Outcome:
    """The sparse form: the rule-system lines that say what the rules derived left out
    (a trigger line whose request a later line names is kept)."""
    if "sparse" not in original.cache:
        original.cache["sparse"] = _sparse(original)
    done: Outcome = original.cache["sparse"]
    return done


def _sparse(original: Original) -> Outcome:
    lines = original.lines
    agreed = original.flow.ledger.agreed
    with_findings = {f.seq for f in original.report.findings}
    kept: list[tuple[LogLine, int | None]] = []
    dropped = 0
    for i, line in enumerate(lines):
        drop = line.seq in agreed and line.seq not in with_findings
        if isinstance(line, GameEnded) and i + 1 < len(lines):
            drop = False  # lines after a recorded end are log.after-game-end; after the
            # rules' end the table did not record, order.win-check-missed (core-flow.md)
        if drop and isinstance(line, Trigger):
            drop = not any(names(later, line.request) for later in lines[i + 1:])
        if drop:
            dropped += 1
        else:
            kept.append((line, line.seq))
    if dropped == 0:
        return NotApplicable("sparse", "no line the rules derive to leave out")
    return form("sparse", kept, f"{dropped} derived lines left out", dropped)


# ---------------------------------------------------------------------------- trigger windows
@dataclass(frozen=True, slots=True)
class Window:
    """Where a trigger line of a log may stand: after the line at ``fired`` (whose costs
    or resolution fired it), before the line at ``named`` (the first that names it;
    ``len(lines)`` if none does). Indices into the log; the line is at ``at``."""

    at: int
    fired: int
    named: int

    @property
    def places(self) -> list[int]:
        """Where else the line may go: each ``k`` puts it just before the line now at
        index ``k`` (``len(lines)``: at the end)."""
        return [k for k in range(self.fired + 1, self.named + 1)
                if k not in (self.at, self.at + 1)]


def trigger_windows(lines: Log) -> list[Window]:
    """The window of every trigger line of a complete log (core-flow.md [6]).

    A complete log writes each trigger line where the trigger fired: right after the line
    whose costs or resolution fired it, or after the derived line that did (what requesting
    an action triggers fires once it is on the stage, after its ``stage`` line), among the
    trigger lines of the same check (their order is no decision, [6-1]). So the window
    opens after the last line before it that is no trigger line, except for the triggers
    of an instant request's costs that the edition resolves after it (6.1,
    ``resolve_before_cost_triggers``): the flow writes them after the instant's
    resolution, but they fired when the costs were paid, at the request. Triggers the log
    wrote that the rules did not derive (spurious ones) have no window."""
    held: dict[tuple[str, str, str], int] = {}
    """(action, source, controller) of a cost trigger held by an instant -> the index of
    the instant's request line."""
    created: dict[int, tuple[Req, int | None]] = {}
    """Each triggered request (by identity: the log may rename it later) and, for a held
    cost trigger, the index of the request line whose costs fired it."""
    dropped: dict[int, int] = {}
    """Each triggered request no longer waiting -> the index of the line where that
    happened: resolved, discarded ([6-10-6]), taken as never played, or taken as resolved
    with nothing chosen by a repair (a skipped Damage Judgement). Its window closes there:
    a trigger line after it records a request that no longer waits."""
    repaired: set[int] = set()
    """Triggered requests a repair made (the judge took the table's line as showing a
    departure before it, ``order.trigger-missed``): where their trigger line stands is
    the table's evidence of that departure, not a choice of where to write it."""
    for i, line, flow, after in replayed(lines):
        if not after:
            repaired.update(id(r) for r in flow.requests.values()
                            if r.triggered and id(r) not in created)
            created.update({k: (r, None) for r in flow.requests.values()
                            if (k := id(r)) in repaired and k not in created})
            continue
        waiting = flow.awaiting_instant
        if isinstance(line, Request) and waiting is not None and waiting.id == line.request:
            for spec in waiting.cost_triggers:
                held[(spec.action, spec.source, spec.controller)] = i
        for req in flow.requests.values():
            if not req.triggered:
                continue
            if id(req) not in created:
                key = (req.action.id, req.source or "", req.controller)
                created[id(req)] = (req, held.pop(key, None) if isinstance(line, Resolve)
                                    else None)
            if req.status not in ("buffer", "stage", "instant") and id(req) not in dropped:
                dropped[id(req)] = i  # done: dropped, discarded, or taken as resolved
    made_at = {req.id: req.seq for req, _ in created.values()}
    made_at.update({created[k][0].id: len(lines) + 1 for k in repaired})  # no window
    held_at = {req.id: at for req, at in created.values() if at is not None}
    dropped_at = {created[k][0].id: at for k, at in dropped.items()}
    end = next((i for i, line in enumerate(lines) if isinstance(line, GameEnded)), len(lines))
    windows = []
    for i, line in enumerate(lines):
        if not isinstance(line, Trigger) or made_at.get(line.request, line.seq) >= line.seq:
            continue  # the trigger line itself or a repair made the request
        before = max(j for j in range(i) if not isinstance(lines[j], Trigger))
        named = next((j for j in range(i + 1, len(lines)) if names(lines[j], line.request)),
                     len(lines))
        named = min(named, max(dropped_at.get(line.request, named), i + 1), end)
        windows.append(Window(i, held_at.get(line.request, before), named))
    return windows


def as_form(original: Original, done: Outcome) -> Form:
    """``done`` if it is a form, else the original as one (nothing to rewrite there)."""
    if isinstance(done, Form):
        return done
    return Form("original", renumber(original.lines), [line.seq for line in original.lines],
                "")


def move_lines(base: Form, kind: str, moves: dict[int, int], what: str) -> Form:
    """``base`` with each line ``i`` of ``moves`` put just before the line now at index
    ``moves[i]`` (``len(lines)``: at the end), wherever that line itself goes."""
    lines, origin = base.lines, base.origin
    order = [j for j in range(len(lines)) if j not in moves]
    for i in sorted(moves, key=lambda i: (moves[i], i)):
        anchor = moves[i]
        if anchor >= len(lines):
            order.append(i)
            continue
        for _ in range(len(moves)):
            if anchor not in moves or anchor in order:
                break
            anchor = moves[anchor]  # it goes before a line that moves too: follow it
        else:
            raise ValueError(f"the moves {moves} go round in a circle")
        order.insert(order.index(anchor) if anchor < len(lines) else len(order), i)
    return form(kind, [(lines[j], origin[j]) for j in order], what, len(moves))


def every_trigger(original: Original, base: Form, kind: str, late: bool) -> Outcome:
    """Every trigger line of ``base`` moved to the first (or last) place of its window."""
    windows = [w for w in trigger_windows(base.lines) if w.places]
    if not windows:
        return NotApplicable(kind, "no trigger line with another place in its window")
    moving = {w.at for w in windows}
    moves: dict[int, int] = {}
    for w in windows:
        if late:
            if w.places[-1] > w.at:
                moves[w.at] = w.places[-1]
            continue
        # First place: right after the line that fired it, before the lines there that
        # stay (trigger lines moved there too keep their order).
        to = next(k for k in range(w.places[0], len(base.lines) + 1) if k not in moving)
        if to < w.at:
            moves[w.at] = to
    if not moves:
        return NotApplicable(kind, "no trigger line with another place in its window")
    where = "last" if late else "first"
    return move_lines(base, kind, moves, f"{len(moves)} trigger lines of the {base.kind} "
                      f"form moved to the {where} place of their windows")


def one_trigger(base: Form, kind: str, choose: Choose) -> Outcome:
    """One trigger line of ``base`` moved to another place of its window (``choose``
    picks the line, then the place)."""
    windows = [w for w in trigger_windows(base.lines) if w.places]
    if not windows:
        return NotApplicable(kind, "no trigger line with another place in its window")
    w = windows[choose(len(windows))]
    to = w.places[choose(len(w.places))]
    line = base.lines[w.at]
    assert isinstance(line, Trigger)
    return move_lines(base, kind, {w.at: to},
                      f"trigger {line.request} ({line.action}) moved from line {w.at + 1} "
                      f"to before line {to + 1} of the {base.kind} form (its window: after "
                      f"line {w.fired + 1}, up to line {w.named + 1})")


def trigger_early(original: Original, choose: Choose = first) -> Outcome:
    """Every trigger line of the complete form at the first place of its window."""
    return every_trigger(original, as_form(original, complete(original)), "trigger-early",
                         late=False)


def trigger_late(original: Original, choose: Choose = first) -> Outcome:
    """Every trigger line of the complete form at the last place of its window."""
    return every_trigger(original, as_form(original, complete(original)), "trigger-late",
                         late=True)


def trigger_late_sparse(original: Original, choose: Choose = first) -> Outcome:
    """Every trigger line of the sparse form at the last place of its window: there no
    derived line stands between a trigger and the line that first names its request, so
    the trigger line may come after passes and other resolutions."""
    return every_trigger(original, as_form(original, sparse(original)),
                         "trigger-late-sparse", late=True)


def trigger_anywhere(original: Original, choose: Choose = first) -> Outcome:
    """One trigger line, of the complete or the sparse form, at any place of its window
    (``choose`` picks the form, the line and the place)."""
    done = complete(original) if choose(2) == 0 else sparse(original)
    return one_trigger(as_form(original, done), "trigger-anywhere", choose)


# ---------------------------------------------------------------------------- units
CHARACTER_CHOICES = ("attackers", "character", "soldier", "soldiers", "target", "bulwark")
"""Choices that name characters (docs: the BlackPoker choices table); ``blockers`` maps
attackers to blockers and names characters on both sides."""


def unit_card(original: Original, choose: Choose = first) -> Outcome:
    """Every reference to a character of several cards made by another of its cards, and
    every ``enter`` claim of several cards naming its character by another card first."""
    lines = original.lines
    if not hasattr(original.flow.rules, "find"):
        return NotApplicable("unit-card", "the game has no character of several cards")
    out: list[tuple[LogLine, int | None]] = [(lines[0], lines[0].seq)]
    changed = 0
    for _i, line, flow in states(lines):
        by = _OtherCard(flow.rules.find, choose)  # type: ignore[attr-defined]
        update: dict[str, Any] = {}
        if isinstance(line, Request):
            targets = [by.other(t) for t in line.targets]
            costs = [c.model_dump() for c in line.costs]
            costs = [{**c, "ref": by.other(c["ref"])} if c["kind"] in "BSC" else c
                     for c in costs]
            if targets != line.targets:
                update["targets"] = targets
            if costs != [c.model_dump() for c in line.costs]:
                update["costs"] = costs
        elif isinstance(line, Resolve):
            choices = dict(line.choices or {})
            for key in CHARACTER_CHOICES:
                if key in choices:
                    choices[key] = by.each(choices[key])
            if isinstance(choices.get("blockers"), dict):
                choices["blockers"] = {by.other(a): by.each(b)
                                       for a, b in choices["blockers"].items()}
            if choices != (line.choices or {}):
                update["choices"] = choices
            if line.effects is not None:
                effects = [by.effect(e.model_dump()) for e in line.effects]
                if effects != [e.model_dump() for e in line.effects]:
                    update["effects"] = effects
        changed += by.changed
        out.append((replace(line, **update) if update else line, line.seq))
    if changed == 0:
        return NotApplicable("unit-card", "no reference to a character of several cards")
    return form("unit-card", out, f"{changed} references made by another card of the unit",
                changed)


@dataclass(slots=True)
class _OtherCard:
    """Names characters of several cards by another of their cards (one line's worth)."""

    find: Callable[[str], Any]
    """The rules' character lookup (BlackPoker: any card of a unit finds it)."""
    choose: Choose
    changed: int = 0

    def other(self, ref: Any) -> Any:
        """Another card naming the unit ``ref`` names (``ref`` itself if there is none)."""
        ch = self.find(ref) if isinstance(ref, str) else None
        if ch is None or not isinstance(getattr(ch, "cards", None), list):
            return ref
        cards = [f"{ch.owner}:{c}" for c in ch.cards if c != "?"]
        alts = [c for c in cards if c != ref]
        if len(cards) < 2 or not alts:
            return ref
        self.changed += 1
        return alts[self.choose(len(alts))]

    def each(self, value: Any) -> Any:
        return [self.other(v) for v in value] if isinstance(value, list) else self.other(value)

    def effect(self, effect: dict[str, Any]) -> dict[str, Any]:
        """An effect claim naming its character by another card: a unit on the field by
        any other card; an ``enter`` of several cards by another of them, listed first."""
        if effect.get("op") == "enter":
            cards = [c for c in effect.get("cards") or [] if isinstance(c, str)]
            alts = [c for c in cards if c != effect.get("character") and not c.endswith(":?")]
            if len(cards) < 2 or not alts:
                return effect
            pick = alts[self.choose(len(alts))]
            self.changed += 1
            return {**effect, "character": pick,
                    "cards": [pick, *(c for c in cards if c != pick)]}
        if "character" in effect:
            return {**effect, "character": self.other(effect["character"])}
        return effect


# ---------------------------------------------------------------------------- notation
def notation(original: Original, choose: Choose = first) -> Outcome:
    """Every line in the short notation of ``coreflow play`` (actions by their Japanese
    names where the rules give one), read back."""
    lines = original.lines
    actions = getattr(original.flow.rules, "actions", {})
    names_: dict[str, str] = {}
    ja: dict[str, str] = {}
    for aid, action in actions.items():
        names_[aid] = aid
        names_[aid.lower()] = aid
        if action.name_ja and not any(ch.isspace() for ch in action.name_ja):
            names_[action.name_ja] = aid
            ja[aid] = action.name_ja
    header = lines[0]
    assert isinstance(header, MatchStarted)
    view = TableView(tuple(header.players), names_, (), lines_of_header(header))
    out: list[tuple[LogLine, int | None]] = [(lines[0], lines[0].seq)]
    short = 0
    for line in lines[1:]:
        text = to_notation(line)
        if isinstance(line, Request) and line.action not in names_:
            # The notation names actions of the format only: another is written as JSON
            # (docs/play.md: any log line may be typed as JSON).
            text = json.dumps(line.model_dump(mode="json", exclude_none=True,
                                              exclude={"seq", "hash"}), ensure_ascii=False)
        if not text.startswith("{"):
            short += 1
            words = text.split(" ", 2)
            if isinstance(line, Request) and line.action in ja and words[1] == line.action:
                words[1] = ja[line.action]
                text = " ".join(words)
        out.append((read_notation(text, view, line.seq), line.seq))
    if short == 0:
        return NotApplicable("notation", "no line has a short notation")
    return form("notation", out, f"{short} of {len(lines) - 1} lines in short notation", short)


# ---------------------------------------------------------------------------- calls
@dataclass(frozen=True, slots=True)
class Run:
    """The passes before a resolution of the top of the stage."""

    resolve: int
    """The index of the resolve line."""
    lines: tuple[int, ...]
    """The indices of the passes and chance moves right before it (after the last line
    that is neither)."""
    passes: tuple[int, ...]
    action: str
    """The resolved request's action."""
    declarer: str | None
    """The controller of the resolved request, if a player requested it directly."""
    complete: bool
    """Every player passed before it (the chance was the rule system's)."""


def runs(original: Original) -> list[Run]:
    """The runs of passes of a log, in order: the passes (and chance moves) right before
    each resolution of the top of the stage, where that request was on top at every one
    of them and none of their lines has a finding or a note."""
    if "runs" not in original.cache:
        original.cache["runs"] = _runs(original)
    found: list[Run] = original.cache["runs"]
    return found


def _runs(original: Original) -> list[Run]:
    lines = original.lines
    found = {f.seq for f in original.report.findings}
    tops: dict[int, Req | None] = {}
    out = []
    for i, line, flow in states(lines):
        tops[i] = flow.stage[-1] if flow.stage else None
        if not isinstance(line, Resolve) or not flow.stage:
            continue
        top = flow.stage[-1]
        named = flow.requests.get(line.request)
        if named is not top and not (named is None and top.provisional):
            continue
        j = i
        while j > 1 and isinstance(lines[j - 1], Pass | ChanceMoved):
            j -= 1
        span = tuple(range(j, i))
        passes = tuple(k for k in span if isinstance(lines[k], Pass))
        clean = not any(lines[k].seq in found or lines[k].note for k in span) and all(
            tops[k] is top for k in passes)
        if passes and clean:
            out.append(Run(i, span, passes, top.action.id,
                           None if top.triggered else top.controller,
                           flow.chance == SYSTEM))
    return out


def _plain_calls(original: Original) -> dict[str, tuple[str, ...]]:
    calls = original.flow.rules.policy.shortcut_calls
    return {c: tuple(chain) for c, chain in calls.items() if "*" not in c}


def call(original: Original, choose: Choose = first) -> Outcome:
    """The passes before each resolution written as one pass carrying a shortcut call,
    said by the first player who passed (G1); said on an action of the call's chain, it
    also stands for the passes before the chain's later actions (G3, G6), which are left
    out too. A call is made only where every resolution up to the next request (which
    ends any call) had all its passes: a call never stands for a pass the table did not
    make."""
    calls = _plain_calls(original)
    if not calls:
        return NotApplicable("call", "the game has no shortcut calls")
    lines = original.lines
    all_runs = runs(original)
    requests = [i for i, line in enumerate(lines) if isinstance(line, Request)]
    drop: set[int] = set()
    notes: dict[int, str] = {}
    made = 0
    k = 0
    while k < len(all_runs):
        run = all_runs[k]
        nxt = next((i for i in requests if i > run.resolve), len(lines))
        until = [r for r in all_runs[k:] if r.resolve < nxt]
        if not all(r.complete for r in until):
            k += 1
            continue
        carrying = [c for c, chain in calls.items() if run.action in chain]
        plain = [c for c, chain in calls.items() if run.action not in chain]
        said = (carrying or plain)[choose(len(carrying or plain))]
        chain = calls[said]
        rest = chain[chain.index(run.action) + 1:] if run.action in chain else ()
        notes[run.passes[0]] = said
        drop.update(x for x in run.lines if x != run.passes[0])
        made += 1
        k += 1
        while rest and k < len(all_runs) and all_runs[k].resolve < nxt \
                and all_runs[k].action == rest[0]:
            drop.update(all_runs[k].lines)
            rest = rest[1:]
            k += 1
    if made == 0:
        return NotApplicable("call", "no resolution with all its passes before the next request")
    out = [(replace(line, note=notes[i]) if i in notes else line, line.seq)
           for i, line in enumerate(lines) if i not in drop]
    return form("call", out, f"{made} calls, {len(drop)} passes and chance moves left out",
                made)


def call_answer(original: Original, choose: Choose = first) -> Outcome:
    """A declaration answered with a call (G1: "both players are treated as having
    passed"): where the declarer passed and then the other player, the declarer's pass
    is left out and the other player's carries the call (a call whose chain does not
    carry play on past this resolution)."""
    calls = _plain_calls(original)
    if not calls or len(original.flow.players) != 2:
        return NotApplicable("call-answer", "the game has no shortcut calls for two players")
    lines = original.lines
    drop: set[int] = set()
    notes: dict[int, str] = {}
    for run in runs(original):
        if not run.complete or len(run.passes) != 2 or run.declarer is None:
            continue
        p1, p2 = (lines[i] for i in run.passes)
        assert isinstance(p1, Pass) and isinstance(p2, Pass)
        if p1.player != run.declarer or p2.player == run.declarer:
            continue
        plain = [c for c, chain in calls.items() if run.action not in chain]
        if not plain:
            continue
        notes[run.passes[1]] = plain[choose(len(plain))]
        drop.update(i for i in run.lines if i != run.passes[1])
    if not notes:
        return NotApplicable("call-answer", "no declaration whose declarer passed first")
    out = [(replace(line, note=notes[i]) if i in notes else line, line.seq)
           for i, line in enumerate(lines) if i not in drop]
    return form("call-answer", out, f"{len(notes)} declarations answered with a call",
                len(notes))


def passes(original: Original, choose: Choose = first) -> Outcome:
    """The log's calls written out: the complete form (whose ``pass`` lines include the
    passes each call stood for), every pass without its note."""
    if not any(isinstance(line, Pass) and line.note for line in original.lines):
        return NotApplicable("passes", "no pass with a note")
    if any(f.code == "log.call-ambiguous" for f in original.report.findings):
        return NotApplicable("passes", "a call the judge cannot read (log.call-ambiguous) "
                             "stands for no passes it could write")
    flow = original.flow
    lines, seqs = flow.complete_log(), flow.ledger.table_seqs()
    out = [(replace(line, note=None) if isinstance(line, Pass) and line.note else line, s)
           for line, s in zip(lines, seqs, strict=True)]
    n = sum(1 for line in lines if isinstance(line, Pass) and line.note)
    return form("passes", out, f"{n} calls written as the passes they stand for", n)


# ---------------------------------------------------------------------------- claims
def _rules_claims(original: Original) -> Iterator[tuple[int, LogLine, dict[str, Any]]]:
    """For each line, the optional claims the rules make of it: a request's speed and
    timing, a matched trigger's controller, a resolution's effects."""
    flow = original.flow
    found = {f.seq for f in original.report.findings}
    for i, line in enumerate(original.lines):
        claims: dict[str, Any] = {}
        if isinstance(line, Request):
            action = flow.rules.action(line.action)
            if action is not None:
                claims = {"speed": action.speed, "timing": action.timing}
        elif isinstance(line, Trigger) and line.seq in flow.ledger.agreed \
                and line.seq not in found:
            req = flow.requests.get(line.request)
            if req is not None:
                claims = {"controller": req.controller}
        elif isinstance(line, Resolve) and line.seq in flow.resolutions \
                and line.seq not in found:
            # The effects the rules carried out, where the line raised no finding (after
            # a departure they are the table's, as played, not the rules' own).
            claims = {"effects": flow.resolutions[line.seq].effects}
        if claims:
            yield i, line, claims


def claims_added(original: Original, choose: Choose = first) -> Outcome:
    """Every optional claim the log leaves out written, equal to the rules' own."""
    out: dict[int, LogLine] = {}
    added = 0
    for i, line, claims in _rules_claims(original):
        update = {k: v for k, v in claims.items() if getattr(line, k) is None}
        if update:
            try:
                out[i] = replace(line, **update)
            except ValueError:
                continue  # a value the log format cannot write (an unknown speed)
            added += len(update)
    if added == 0:
        return NotApplicable("claims-added", "no optional claim left out")
    kept = [(out.get(i, line), line.seq) for i, line in enumerate(original.lines)]
    return form("claims-added", kept, f"{added} claims equal to the rules' added", added)


def _dropped_claims(original: Original) -> tuple[dict[int, LogLine], dict[int, Any]]:
    """The lines with every optional claim equal to the rules' own left out (by index),
    and the effects left out (by index)."""
    out: dict[int, LogLine] = {}
    effects_of: dict[int, Any] = {}
    for i, line, claims in _rules_claims(original):
        update: dict[str, Any] = {}
        for k, v in claims.items():
            said = getattr(line, k)
            if said is None:
                continue
            if k == "effects":
                if canonical(said) == canonical(v):
                    update[k] = None
                    effects_of[i] = said
            elif said == v:
                update[k] = None
        if update:
            out[i] = replace(line, **update)
    return out, effects_of


def _claims_form(original: Original, kind: str, out: dict[int, LogLine],
                 knows_less: bool) -> Outcome:
    dropped = sum(len(set(original.lines[i].model_dump(exclude_none=True))
                      - set(line.model_dump(exclude_none=True))) for i, line in out.items())
    if dropped == 0:
        return NotApplicable(kind, "no optional claim equal to the rules'")
    kept = [(out.get(i, line), line.seq) for i, line in enumerate(original.lines)]
    return form(kind, kept, f"{dropped} claims equal to the rules' left out", dropped,
                knows_less)


def claims_dropped(original: Original, choose: Choose = first) -> Outcome:
    """Every optional claim equal to the rules' own, and which tells the judge nothing
    it cannot see without it, left out.

    A resolution's effects may tell the judge what it cannot know otherwise (the cards
    a shuffled deck gave): equal to the rules' own only with the claim. So the effects
    claims equal to what the rules carried out are dropped, the log is judged without
    them, and each one whose resolution the rules then carry out otherwise is written
    back (:func:`claims_hidden` leaves those out too)."""
    out, effects_of = _dropped_claims(original)
    if effects_of:
        lines = [out.get(i, line) for i, line in enumerate(original.lines)]
        flow = judge(lines).flow
        assert flow is not None
        for i, said in effects_of.items():
            res = flow.resolutions.get(lines[i].seq)
            if res is None or canonical(res.effects) != canonical(said):
                out[i] = replace(out[i], effects=[e.model_dump() for e in said])
    return _claims_form(original, "claims-dropped", out, knows_less=False)


def claims_hidden(original: Original, choose: Choose = first) -> Outcome:
    """Every optional claim equal to the rules' own left out, also the effects that told
    the judge hidden cards: the judge then knows less, and may rule fewer errors (a
    mistake only those cards showed) and no result, never another error
    (docs/decisions.md: what the judge cannot see is a ``log.hidden-info`` warning at
    most, never an error)."""
    out, effects_of = _dropped_claims(original)
    if not effects_of:
        return NotApplicable("claims-hidden", "no effects claim equal to the rules'")
    return _claims_form(original, "claims-hidden", out, knows_less=True)


# ---------------------------------------------------------------------------- request ids
def renamed(original: Original, choose: Choose = first) -> Outcome:
    """Every request id the log gives written as another (match-log.md, References: a
    request reference is any string unique within the match), wherever a line names it:
    a table's ``r4`` or ``t2`` is no name the judge may read anything into."""
    lines = original.lines
    ids = [line.request for line in lines
           if isinstance(line, Request | Trigger | Stage | Discard | Resolve)]
    if not ids:
        return NotApplicable("renamed", "no request id")
    new = {rid: f"q{i}-{rid}" for i, rid in enumerate(dict.fromkeys(ids), 1)}

    def swap(value: Any) -> Any:
        if isinstance(value, str):
            return new.get(value, value)
        if isinstance(value, dict):
            return {swap(k): swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    out: list[tuple[LogLine, int | None]] = [(lines[0], lines[0].seq)]
    for line in lines[1:]:
        data = line.model_dump(mode="json", exclude_none=True, exclude={"note", "x"})
        data = {k: (v if k in ("seq", "type", "hash", "action", "player", "controller")
                    else swap(v)) for k, v in data.items()}
        extra = {k: getattr(line, k) for k in ("note", "x") if getattr(line, k) is not None}
        out.append((type(line).model_validate({**data, **extra}), line.seq))
    return form("renamed", out, f"{len(new)} request ids renamed", len(new))


# ---------------------------------------------------------------------------- all of them
REWRITERS: dict[str, Rewriter] = {
    "complete": complete,
    "sparse": sparse,
    "trigger-early": trigger_early,
    "trigger-late": trigger_late,
    "trigger-late-sparse": trigger_late_sparse,
    "unit-card": unit_card,
    "notation": notation,
    "call": call,
    "call-answer": call_answer,
    "passes": passes,
    "renamed": renamed,
    "claims-added": claims_added,
    "claims-dropped": claims_dropped,
    "claims-hidden": claims_hidden,
}
"""Every rewrite, by kind."""


@dataclass(slots=True)
class Tally:
    """What the rewrites did over many logs: per kind, how many logs each rewrote (and
    how many places in them), how many it did not apply to, and every difference."""

    applied: Counter[str] = field(default_factory=Counter)
    places: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    why_skipped: dict[str, Counter[str]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, name: str, outcome: Outcome, diffs: list[str]) -> None:
        if isinstance(outcome, NotApplicable):
            self.skipped[outcome.kind] += 1
            self.why_skipped.setdefault(outcome.kind, Counter())[outcome.why] += 1
            return
        self.applied[outcome.kind] += 1
        self.places[outcome.kind] += outcome.count
        if diffs:
            self.failures.append(f"{name}, {outcome.kind} ({outcome.what}): "
                                 + "; ".join(diffs[:4]))


def check(name: str, lines: Log, tally: Tally, kinds: Sequence[str] | None = None,
          choose: Choose = first) -> None:
    """Judge ``lines`` and each of its forms; count what applied and every difference."""
    why = applicable(lines)
    if why is not None:
        for kind in kinds or REWRITERS:
            tally.add(name, NotApplicable(kind, why), [])
        return
    original = Original(lines)
    for kind in kinds or REWRITERS:
        outcome = REWRITERS[kind](original, choose)
        tally.add(name, outcome, differences(original, outcome)
                  if isinstance(outcome, Form) else [])
