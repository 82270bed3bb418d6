"""A match recorded live at the table: each line judged as it is entered, then stored.

:class:`LiveTable` keeps one match: the lines the store holds (the complete log so far)
and the core flow that judged them. A line entered (:meth:`LiveTable.enter`) is fed to the
flow; one that breaks a rule is refused with its findings, unless the table records
mistakes on purpose; an accepted one goes to the store at once, with the lines the rules
derived before it (chance moves, staging, turn starts), so that a crash loses at most the
line being typed. What the store holds is always the complete log of what was accepted:
the same lines ``coreflow normalize`` makes of the entered lines.

A mistaken entry is taken back by a correction (:meth:`LiveTable.take_back`): a
``taken_back`` line appended like any other; nothing stored is deleted or rewritten.

No rule is decided here: the flow decides, this only keeps the store and the flow in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.judge import plan_repairs, taken_back
from coreflow_judge.adjudicator.ledger import DERIVABLE, Derived
from coreflow_judge.adjudicator.next_step import next_step
from coreflow_judge.adjudicator.notation import TableView
from coreflow_judge.events.models import LogLine, MatchStarted, TakenBack
from coreflow_judge.events.reader import canonical_dict, lines_of_header

Store = Callable[[list[LogLine]], None]
"""Appends lines to the match's record, all or nothing (raises if it cannot)."""


@dataclass(slots=True)
class Answer:
    """What the table is told about one entry."""

    accepted: bool
    line: LogLine | None = None
    """The entry as stored (its final seq), when accepted."""
    stored: list[LogLine] = field(default_factory=list)
    """Every line stored for it: the derived lines before it, the entry, and what the
    rules derived after it when the game ended."""
    findings: list[Finding] = field(default_factory=list)
    """What the judge found in the entry (errors refuse it unless mistakes are kept)."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


class LiveTable:
    """One match at the table: the stored lines and the flow that judged them."""

    def __init__(self, lines: list[LogLine], store: Store, keep_mistakes: bool = False
                 ) -> None:
        """``lines``: what the store holds of the match (at least its header)."""
        if not lines or not isinstance(lines[0], MatchStarted):
            raise ValueError("a match record starts with its match_started line")
        self.header: MatchStarted = lines[0]
        self.stored: list[LogLine] = list(lines)
        self._store = store
        self.keep_mistakes = keep_mistakes
        self._items: list[LogLine | Derived] = []
        """The complete log's entries behind :attr:`stored`, as the flow holds them."""
        self.flow = self._replay()
        self.aliases: dict[str, str] = {}
        """Request ids the table used for a triggered request stored under the judge's
        id: the table's id -> the stored one."""
        self.entries: list[int] = self._decisions()
        """Positions in :attr:`stored` of the lines entered at the table (decisions and
        the rule-system lines the table wrote), still standing: what ``undo`` takes back."""

    # ------------------------------------------------------------------ reading
    @property
    def over(self) -> bool:
        """The rules decided the game (nothing more may be played)."""
        return self.flow.result is not None or self.flow.recorded_end is not None

    def view(self) -> TableView:
        """What the notation reader needs: players, action names, request ids in use."""
        names: dict[str, str] = {}
        actions = getattr(self.flow.rules, "actions", {})
        for aid, action in actions.items():
            names[aid] = aid
            names[aid.lower()] = aid
            if action.name_ja:
                names[action.name_ja] = aid
        # Ids of lines taken back stay used: a new request never takes an old one's id.
        used = set(self.flow.requests)
        for line in self.stored:
            rid = getattr(line, "request", None)
            if isinstance(rid, str):
                used.add(rid)
        return TableView(self.flow.players, names, used, lines_of_header(self.header))

    def next_seq(self) -> int:
        return len(self.stored) + 1

    # ------------------------------------------------------------------ entering
    def enter(self, line: LogLine) -> Answer:
        """Judge one entered line and, if accepted, store it with what came before it.

        ``line.seq`` is ignored: the line takes the next seq of the live flow."""
        line = self._translate(line.model_copy(update={"seq": self.flow.next_seq,
                                                         "hash": None}))
        flow = self.flow
        before = len(self.stored)
        try:
            findings = flow.feed(line)
            items = _standing(flow)
            if not self._unchanged(items):
                # This line names a triggered request whose trigger line is already stored
                # under the id the judge gave it: the stored id stands, and the line (and
                # every later one) is read with it (docs/play.md, "Request ids").
                self.aliases.update(_renamed(self.stored, flow.complete_log()))
                line = self._translate(line)
                flow = self.flow = self._replay()
                findings = flow.feed(line)
                items = _standing(flow)
        except Exception:
            self.flow = self._replay()
            raise
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            # Read as the judge will read the record: a departure the entry shows is one
            # finding (the request the table went on without), not the entry's own errors.
            flow = self._judged([*self.stored, line])
            self._items = _standing(flow)[:len(self.stored)]
            items = _standing(flow)
            findings = [f for f in flow.findings if f.seq == line.seq]
            errors = [f for f in findings if f.severity == "error"]
            self.flow = flow
        if errors and not self.keep_mistakes:
            self.flow = self._replay()
            return Answer(False, findings=findings)
        cut = _cut(items)
        new = [_render(items[k], k + 1) for k in range(before, cut)]
        try:
            self._store(new)
        except Exception:
            self.flow = self._replay()
            raise
        self.stored.extend(new)
        self._items = items[:cut]
        flow.next_seq = len(self.stored) + 1
        entered = next((k for k in range(cut - 1, before - 1, -1) if items[k] is line), None)
        stored_line = None
        if entered is not None:
            self.entries.append(entered)
            stored_line = self.stored[entered]
        return Answer(True, stored_line, new, findings)

    def finish(self) -> list[LogLine]:
        """The table stops: store what the rules derive after the last entry (the complete
        log ends as ``normalize`` ends it). Returns the lines stored."""
        self.flow.finish()
        new = self.flow.complete_log()[len(self.stored):]
        if new:
            self._store(new)
            self.stored.extend(new)
        self.flow = self._replay()
        return new

    def take_back(self, reason: str | None = None, entries: int = 1) -> TakenBack | None:
        """Take back the last ``entries`` entries (and what the rules derived after them)
        in one correction appended to the record. None when fewer entries stand."""
        if entries < 1 or len(self.entries) < entries:
            return None
        first = self.entries[-entries]
        skipped = taken_back(self.stored)
        standing = sum(1 for i in range(first, len(self.stored))
                       if i not in skipped and not isinstance(self.stored[i], TakenBack))
        line = TakenBack(seq=self.next_seq(), lines=standing, reason=reason)
        self._store([line])
        self.stored.append(line)
        del self.entries[-entries:]
        self.flow = self._replay()
        return line

    # ------------------------------------------------------------------ what may happen
    def legal(self) -> list[str]:
        """What the table may do now, in the notation: who holds the chance, what they may
        request (by the flow's own timing checks), what waits to be staged or resolved
        (:func:`~adjudicator.next_step.next_step` says what; this only writes it)."""
        flow = self.flow
        step = next_step(flow)
        if step.step == "over":
            return ["the game is over: nothing more may be played"]
        if step.step == "start":
            return [f"start {p}" for p in step.players]
        if step.step == "buffer":
            return [f"stage {w.request}   ({w.action} of {w.controller}, triggered; or: "
                    f"discard {w.request})" for w in step.waiting]
        if step.step == "instant":
            w = step.waiting[0]
            return [f"resolve {w.request}   (the instant {w.action} resolves now)"]
        if step.step == "resolve":
            w = step.waiting[0]
            return [f"resolve {w.request}   ({w.action} of {w.controller}: every player "
                    "passed)"]
        if step.holder is None:
            return []
        out = [f"{step.holder} pass   ({step.holder} holds the chance)"]
        for allowed in step.requests:
            action = flow.rules.action(allowed.action)
            assert action is not None
            ja = f" {action.name_ja}" if action.name_ja else ""
            out.append(f"{allowed.player} {action.id}{ja}   ({action.name}; {action.speed}, "
                       f"{action.timing}{_what(action.data)})")
        return out

    # ------------------------------------------------------------------ internals
    def _translate(self, line: LogLine) -> LogLine:
        """The line with the table's ids of stored triggered requests read as stored."""
        if not self.aliases:
            return line
        data = line.model_dump(exclude_none=True)
        alias = self.aliases
        changed = False
        for key in ("request", "source"):
            if data.get(key) in alias:
                data[key] = alias[data[key]]
                changed = True
        if any(t in alias for t in data.get("targets", ())):
            data["targets"] = [alias.get(t, t) for t in data["targets"]]
            changed = True
        return type(line).model_validate(data) if changed else line

    def _replay(self) -> CoreFlow:
        """The flow rebuilt from the stored lines alone (as the judge reads them)."""
        flow = self._judged(self.stored)
        flow.next_seq = len(self.stored) + 1
        self._items = _standing(flow)[:len(self.stored)]
        return flow

    @staticmethod
    def _judged(lines: list[LogLine]) -> CoreFlow:
        """The flow of ``lines`` as the judge reads them: corrections skipped, and the table
        taken as played after a departure the later lines show (:func:`plan_repairs`)."""
        pairs: list[tuple[int, LogLine | Any]] = list(enumerate(lines, start=1))
        return plan_repairs(pairs, taken_back(lines))[1].flow

    def _unchanged(self, items: list[LogLine | Derived]) -> bool:
        """Whether the flow's complete log still begins with the stored lines: the same
        entries at the same places (by identity), derived ones naming the same requests."""
        cached = self._items
        if len(items) < len(cached):
            return False
        stored = self.stored
        for i in range(1, len(cached)):
            item = items[i]
            if item is not cached[i]:
                return False
            if isinstance(item, Derived) and item.req is not None and \
                    getattr(stored[i], "request", None) != item.req.id:
                return False
        return True

    def _decisions(self) -> list[int]:
        """Positions of the standing entered lines of a resumed record: its decision lines
        (what the rules derive is never an entry of its own)."""
        skipped = taken_back(self.stored)
        return [i for i, line in enumerate(self.stored)
                if i > 0 and i not in skipped and line.type not in DERIVABLE
                and not isinstance(line, TakenBack)]


def _standing(flow: CoreFlow) -> list[LogLine | Derived]:
    """The entries of the flow's complete log that are in it (omitted ones left out)."""
    return [item for item in flow.complete
            if not (isinstance(item, Derived) and item.omitted)]


def _cut(items: list[LogLine | Derived]) -> int:
    """How many lines of the complete log are settled: up to the last line the table
    wrote (what the rules derived after it waits for the next entry)."""
    for k in range(len(items) - 1, -1, -1):
        if not isinstance(items[k], Derived):
            return k + 1
    return 0


def _render(item: LogLine | Derived, seq: int) -> LogLine:
    """One line of the complete log, numbered ``seq`` (as :meth:`Ledger.complete_log`)."""
    line = item.render() if isinstance(item, Derived) else item
    return line.model_copy(update={"seq": seq, "hash": None})


def _renamed(stored: list[LogLine], complete: list[LogLine]) -> dict[str, str]:
    """Ids the complete log now gives to requests stored under another id: the new id ->
    the stored one (lines that differ otherwise give nothing)."""
    out: dict[str, str] = {}
    for a, b in zip(stored[1:], complete[1:len(stored)], strict=False):
        da, db = canonical_dict(a), canonical_dict(b)
        if da == db:
            continue
        ra, rb = da.pop("request", None), db.pop("request", None)
        if ra is not None and rb is not None and da == db and ra != rb:
            out[rb] = ra
    return out


def _what(data: object) -> str:
    """'; key ..., cost ...' where the game's data says (BlackPoker: ``key``, ``cost``)."""
    if not isinstance(data, dict):
        return ""
    parts = []
    if data.get("cost"):
        parts.append(f"cost {data['cost']}")
    if data.get("key"):
        parts.append("key card")
    if data.get("target"):
        parts.append("target")
    return "; " + ", ".join(parts) if parts else ""
