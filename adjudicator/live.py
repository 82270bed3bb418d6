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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.game import Sight
from coreflow_judge.adjudicator.judge import taken_back
from coreflow_judge.adjudicator.ledger import DERIVABLE, Derived
from coreflow_judge.adjudicator.next_step import Options, decided, next_step, options
from coreflow_judge.adjudicator.notation import TableView, next_request_id, to_notation
from coreflow_judge.adjudicator.replay import Replay
from coreflow_judge.events.models import (
    MAX_LOG_LINES,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    TakenBack,
)
from coreflow_judge.events.reader import canonical_dict, lines_of_header

Store = Callable[[list[LogLine]], None]
"""Appends lines to the match's record, all or nothing (raises if it cannot)."""

PLAY_MARGIN = 64
"""Lines kept free below :data:`~events.models.MAX_LOG_LINES` when entries stop being
taken: an entry stores the lines the rules derived before it, and the end of the game its
own (a record the judge, the board and the audit can still read)."""
SHOWN = 3
"""Entries ``legal`` writes in full per action; the rest are summed up."""
UNSEEN = "?"


@dataclass(slots=True)
class Answer:
    """What the table is told about one entry."""

    accepted: bool
    line: LogLine | None = None
    """The entry as stored (its final seq), when accepted."""
    stored: list[LogLine] = field(default_factory=list)
    """Every line stored for it: the derived lines and the lines filled in before it, the
    entry, and what the rules derived after it when the game ended."""
    findings: list[Finding] = field(default_factory=list)
    """What the judge found in the entry (errors refuse it unless mistakes are kept)."""
    filled: list[LogLine] = field(default_factory=list)
    """The lines that follow the entry and leave nobody a decision (a resolution that
    asks no choice, a pass by a player who could do nothing else), filled in for the
    table (:func:`~adjudicator.next_step.decided`), numbered as they will be stored: with
    the next entry, which may also say them itself (adding what it claims), or when the
    table stops if they end the game."""
    restated: bool = False
    """The entry says again a line the record already holds (one the rules derived or
    filled in before the table stopped last time): nothing was stored for it."""
    unrecorded: list[str] = field(default_factory=list)
    """What a restated entry says that the record's line does not (its effects): not
    recorded, the line being stored already."""

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
        self._ids: set[str] = set()
        self._ids_read = 0
        self._store = store
        self.keep_mistakes = keep_mistakes
        self._items: list[LogLine | Derived] = []
        """The complete log's entries behind :attr:`stored`, as the flow holds them."""
        self.filled: list[LogLine] = []
        """The lines filled in after the stored ones (fed to :attr:`flow`, not stored)."""
        self.flow = self._replay()
        self.aliases: dict[str, str] = {}
        """Request ids the table used for a triggered request stored under the judge's
        id: the table's id -> the stored one."""
        self.entries: list[int] = self._decisions()
        """Positions in :attr:`stored` of the lines entered at the table (decisions and
        the rule-system lines the table wrote), still standing: what ``undo`` takes back."""
        self._echo = self._untyped_tail()
        """Where the stored lines begin that the table may say again with nothing stored:
        what the rules derived (or filled in, at the game's end) after the last entry,
        stored when the table stopped (:meth:`_restates`)."""

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
        return TableView(self.flow.players, names, self._stored_ids() | set(self.flow.requests),
                         lines_of_header(self.header))

    def _stored_ids(self) -> set[str]:
        """The request ids the stored lines name, read once per line (the record only
        grows): what :meth:`view` costs stays the same however long the match."""
        for line in self.stored[self._ids_read:]:
            rid = line.__dict__.get("request")
            if isinstance(rid, str):
                self._ids.add(rid)
        self._ids_read = len(self.stored)
        return self._ids

    def next_seq(self) -> int:
        return len(self.stored) + 1

    @property
    def last_seq(self) -> int:
        """The seq of the last stored line (the record's numbering, which counts the
        derived lines too)."""
        return len(self.stored)

    def ahead(self) -> list[LogLine]:
        """The lines the table holds after the stored ones (what the rules derived since
        the last entry, and the lines filled in), numbered as they will be stored."""
        items = _standing(self.flow)
        return [_render(items[k], k + 1) for k in range(len(self.stored), len(items))]

    # ------------------------------------------------------------------ entering
    def enter(self, line: LogLine) -> Answer:
        """Judge one entered line and, if accepted, store it with what came before it.

        ``line.seq`` is ignored: the line takes the next seq of the live flow. A line that
        says again one filled in (:attr:`filled`) stands for it: the same line is stored
        as it is; one that says more (its effects, a call) is judged and stored instead. A
        line that says again one the record holds after the last entry (stored when the
        table stopped) is answered with that line, and nothing is stored. Refused once the
        record is within :data:`PLAY_MARGIN` lines of :data:`~events.models.MAX_LOG_LINES`
        (the end of the game may still add its derived lines)."""
        if len(self.stored) >= MAX_LOG_LINES - PLAY_MARGIN:
            return Answer(False, findings=[finding(
                "log.malformed", self.flow.next_seq, "log",
                f"The match's record holds {len(self.stored):,} lines, as many as one "
                f"match's log may (the limit is {MAX_LOG_LINES:,}, with room kept for the "
                "lines the end of the game adds): no more lines are taken.")])
        line = self._translate(line.model_copy(update={"seq": self.flow.next_seq,
                                                         "hash": None}))
        echo = self._restates(line)
        if echo is not None:
            said, have = canonical_dict(line), canonical_dict(echo)
            extra = [k for k in ("effects",) if k in said and said[k] != have.get(k)]
            return Answer(True, echo, restated=True, unrecorded=extra)
        at = self._fills(line)
        if at is None and self.filled and line.type in DERIVABLE:
            written = self._writes_derived(line)
            if written is not None:
                return written
        if at is not None:
            if self._stands_for(self.filled[at], line):
                return self._confirm(at)
            # The table says more than the line filled in: its own line stands instead.
            self.flow = self._replay(fill=at)
            line = line.model_copy(update={"seq": self.flow.next_seq})
        return self._enter(line)

    def _enter(self, line: LogLine) -> Answer:
        flow = self.flow
        before = len(self.stored)
        filled = len(self.filled)
        try:
            findings = flow.feed(line)
            items = _standing(flow)
            if not self._unchanged(items):
                # This line names a triggered request whose trigger line is already stored
                # under the id the judge gave it: the stored id stands, and the line (and
                # every later one) is read with it (docs/play.md, "Request ids").
                self.aliases.update(_renamed(self.stored, flow.complete_log()))
                line = self._translate(line)
                flow = self.flow = self._replay(fill=filled)
                findings = flow.feed(line)
                items = _standing(flow)
        except Exception:
            self.flow = self._replay()
            raise
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            # Read as the judge will read the record: a departure the entry shows is one
            # finding (the request the table went on without), not the entry's own errors.
            ahead = [f.model_copy(update={"seq": len(self.stored) + k})
                     for k, f in enumerate(self.filled, start=1)]
            line = line.model_copy(update={"seq": len(self.stored) + len(ahead) + 1})
            flow = self._judged([*self.stored, *ahead, line])
            self._items = _standing(flow)[:len(self.stored)]
            items = _standing(flow)
            findings = [f for f in flow.findings if f.seq == line.seq]
            errors = [f for f in findings if f.severity == "error"]
            self.flow = flow
        if errors and not self.keep_mistakes:
            self.flow = self._replay()
            return Answer(False, findings=findings)
        cut = _cut(items)
        new = self._keep(items, cut)
        flow.next_seq = len(self.stored) + 1
        entered = next((k for k in range(cut - 1, before - 1, -1) if items[k] is line), None)
        stored_line = None
        if entered is not None:
            self.entries.append(entered)
            stored_line = self.stored[entered]
        self._echo = len(self.stored)
        self._fill()
        return Answer(True, stored_line, new, findings, self._filled_ahead())

    def _stands_for(self, done: LogLine, line: LogLine) -> bool:
        """Whether ``line`` says what the line filled in says, the table being the same
        after it: the same line, written at a time, or with the effects the resolution had
        as its claims (claims that agree change nothing). It then takes its place in the
        complete log."""
        said, have = _said(line), _said(done)
        claims = said.pop("effects", None)
        if said != have or (claims is not None and have.get("effects") is not None):
            return False
        if claims is not None:
            res = self.flow.resolutions.get(done.seq)
            if res is None or claims != [_effect(e) for e in res.effects]:
                return False
        complete = self.flow.complete
        k = next(k for k in range(len(complete) - 1, -1, -1) if complete[k] is done)
        line = line.model_copy(update={"seq": done.seq})
        complete[k] = line
        self.filled[self.filled.index(done)] = line
        return True

    def _confirm(self, at: int) -> Answer:
        """The entry is the line filled in at ``at``: store it (with what comes before it)
        as the table's own entry; the lines filled in after it stay as they are."""
        answer = self._confirm_item(self.filled[at])
        self.filled = self.filled[at + 1:]
        if not self.filled:
            self.flow.next_seq = len(self.stored) + 1
            self._fill()
        answer.filled = self._filled_ahead()
        return answer

    def finish(self) -> list[LogLine]:
        """The table stops: store what the rules derive after the last entry (the complete
        log ends as ``normalize`` ends it), up to the first line filled in; the lines
        filled in too, and all that follows them, when they end the game. Returns the
        lines stored."""
        self.flow.finish()
        items = _standing(self.flow)
        end = len(items)
        if self.filled and not self.over:
            first = self.filled[0]
            end = next(k for k in range(len(items)) if items[k] is first)
        new = [_render(items[k], k + 1) for k in range(len(self.stored), end)]
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
        self._echo = len(self.stored)
        self.flow = self._replay()
        return line

    # ------------------------------------------------------------------ what may happen
    def legal(self, player: str | None = None, action: str | None = None,
              shown: int = SHOWN) -> list[str]:
        """What the table may do now, in the notation, one entry a line with a note.

        First the lines filled in (they need no decision: stored with the next entry).
        Then, as :func:`~adjudicator.next_step.next_step` says what the rules wait for:
        who starts the game; the triggered request to stage, discard or resolve; the
        resolution due, with the choices it asks; or the chance holder's pass and each
        player's requests, card by card (:func:`~adjudicator.next_step.options`: the
        game proposes, the judge keeps what it accepts). The entries name only what every
        player may see (``?`` for a card out of sight: a hand card, the top of the life;
        the table names it), characters by their references as the record does;
        ``player``: only that player's requests, named as that player may see them (their
        own hand as far as the record shows it). ``action``: only that action's;
        ``shown``: entries written per action (the others are summed up in one line of
        alternatives)."""
        flow = self.flow
        out = [f"{to_notation(line)}   (filled in: {self._why_filled(line)}; stored with "
               "the next line)" for line in self._filled_ahead()]
        step = next_step(flow)
        if step.step == "over":
            return [*out, "the game is over: nothing more may be played"]
        if step.step == "start":
            return [*out, *(f"start {p}   ({p} plays first)" for p in step.players)]
        if step.step == "none":
            return out
        if step.step in ("buffer", "instant", "resolve"):
            due = [w for w in step.waiting if w.first or step.step != "buffer"]
            for w in due:
                req = flow.requests.get(w.request)
                if req is not None:
                    out.append(self._due(req, step.step, len(due) > 1))
            return out
        holder = step.holder
        assert holder is not None
        others = [p for p in step.passed if p != holder]
        passed = f"; passed since: {', '.join(others)}" if others else ""
        if player in (None, holder) and action is None:
            top = f", on {flow.stage[-1].id}" if flow.stage else ""
            out.append(f"{holder} pass   ({holder} holds the chance{top}{passed})")
        sees = sight(flow, player if player is not None else SPECTATOR)
        for p in flow.players:
            if player not in (None, p):
                continue
            for opt in options(flow, sees, players=(p,)):
                if action not in (None, opt.action.id, opt.action.name_ja):
                    continue
                out += self._option_lines(opt, shown)
        return out

    def _due(self, req: Req, step: str, several: bool) -> str:
        """The line that stages, discards or resolves a request the rules wait on."""
        flow = self.flow
        a = req.action
        whose = f"{a.id} of {req.controller}" + (", triggered" if req.triggered else "")
        first = "; or another of these first" if several else ""
        if step == "buffer" and a.speed == "normal":
            if flow.discards_trigger(req):  # [6-10-6]
                return f"discard {req.id}   ({whose}: main timing, the stage is not empty{first})"
            return f"stage {req.id}   ({whose}{first})"
        verb = "fizzle" if flow.rules.fizzles(flow, req) else "resolve"
        asked = dict(a.data.get("choices_on_resolve") or {})
        words = " ".join(f"{k}={_shape_word(v)}" for k, v in asked.items())
        when = {"buffer": "an instant triggered request resolves at once",
                "instant": "an instant request resolves at once",
                "resolve": "every player passed"}[step]
        chosen = ""
        if asked and flow.rules.asks_on_resolve(flow, req):
            chosen = "; choices: " + ", ".join(f"{k} ({_shape_text(v)})"
                                               for k, v in asked.items())
            return f"{verb} {req.id} {words}   ({whose}: {when}{chosen}{first})"
        return f"{verb} {req.id}   ({whose}: {when}{first})"

    def _why_filled(self, line: LogLine) -> str:
        if isinstance(line, Pass):
            return f"{line.player} could make no request"
        req = self.flow.requests.get(getattr(line, "request", ""))
        name = f"{req.action.id} of {req.controller}" if req is not None else "it"
        return f"{name} asks no choice"

    def _option_lines(self, opt: Options, shown: int) -> list[str]:
        """One action's entries: the first few in full, the rest as alternatives."""
        a = opt.action
        ja = f" {a.name_ja}" if a.name_ja else ""
        note = f"{a.name}{ja}; {a.speed}, {a.timing}"
        if opt.requests is None:
            return [f"{opt.player} {a.id}   ({note}{_what(a.data)}; its cards are not "
                    "listed: the judge checks them when it is entered)"]
        free = next_request_id(self.view().request_ids)
        lines = [_entry(r.model_copy(update={"request": free})) for r in opt.requests]
        unseen = any(UNSEEN in w for line in lines for w in line.split()[2:])
        out = [f"{lines[0]}   ({note}" + ("; ? is a card the record does not show: name it"
                                          if unseen else "") + ")"]
        out += [f"{line}" for line in lines[1:shown]]
        if len(lines) > shown:
            out.append(f"  ... {len(lines) - shown} more {a.id} entries of {opt.player}: "
                       + _alternatives(opt.requests[shown:]))
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

    def _replay(self, fill: int | None = None) -> CoreFlow:
        """The flow rebuilt from the stored lines alone (as the judge reads them), then
        the lines that need no decision filled in (at most ``fill`` of them)."""
        flow = self._judged(self.stored)
        flow.next_seq = len(self.stored) + 1
        self._items = _standing(flow)[:len(self.stored)]
        self.flow = flow
        self._fill(fill)
        return self.flow

    def _fill(self, limit: int | None = None) -> None:
        """Feed the lines that follow and leave nobody a decision
        (:func:`~adjudicator.next_step.decided`, by what every player sees), at most
        ``limit``: :attr:`filled`. A line the judge does not take as it is (an error, or a
        choice it finds missing) is none of them: the table says it."""
        self.filled = []
        flow = self.flow
        while limit is None or len(self.filled) < limit:
            line = decided(flow, sight(flow, SPECTATOR))
            if line is None:
                return
            found = flow.feed(line)
            if any(f.severity == "error" or f.code == "log.choice-missing" for f in found):
                self._replay(fill=len(self.filled))
                return
            self.filled.append(line)

    def _fills(self, line: LogLine) -> int | None:
        """Which line filled in the entry says again, if any: a resolution of the same
        request, or a pass of the same player."""
        for k, done in enumerate(self.filled):
            if done.type != line.type:
                continue
            if isinstance(done, Resolve) and isinstance(line, Resolve) and \
                    done.request == line.request:
                return k
            if isinstance(done, Pass) and isinstance(line, Pass) and done.player == line.player:
                return k
        return None

    def _writes_derived(self, line: LogLine) -> Answer | None:
        """``line`` (a rule-system line the table writes itself) says a line the rules
        derived before a line filled in: it stands there in the complete log, as the
        judge reads it (:meth:`Ledger._same`), and is stored with what comes before it;
        the lines filled in after it stay as they are. None when it says none of them."""
        flow = self.flow
        complete = flow.complete
        first = next(k for k, item in enumerate(complete) if item is self.filled[0])
        start = len(self.stored)
        for at, item in enumerate(complete):
            if at >= first:
                return None
            if isinstance(item, Derived) and not item.omitted and at >= start and \
                    flow.ledger._same(item, line):  # the ledger's own reading
                if item.req is not None and getattr(line, "request", None) not in (
                        None, item.req.id):
                    return None  # it names the request otherwise: judged as written
                complete[at] = line
                flow.ledger.agreed.add(line.seq)
                return self._confirm_item(line)
        return None

    def _confirm_item(self, line: LogLine) -> Answer:
        """Store the complete log up to ``line`` (an item of it, before the lines filled
        in), as the table's entry."""
        items = _standing(self.flow)
        pos = next(k for k in range(len(items) - 1, -1, -1) if items[k] is line)
        new = self._keep(items, pos + 1)
        self.entries.append(pos)
        self._echo = len(self.stored)
        return Answer(True, self.stored[pos], new, [], self._filled_ahead())

    def _keep(self, items: list[LogLine | Derived], upto: int) -> list[LogLine]:
        """Store the complete log's ``items`` after the stored lines, up to ``upto``, all
        or nothing (the flow rebuilt from the record when the store refuses); returns the
        lines stored."""
        new = [_render(items[k], k + 1) for k in range(len(self.stored), upto)]
        try:
            self._store(new)
        except Exception:
            self.flow = self._replay()
            raise
        self.stored.extend(new)
        self._items = items[:upto]
        return new

    def _filled_ahead(self) -> list[LogLine]:
        """The lines filled in, numbered as they will be stored."""
        if not self.filled:
            return []
        items = _standing(self.flow)
        mine = {id(f) for f in self.filled}
        return [_render(items[k], k + 1) for k in range(len(self.stored), len(items))
                if id(items[k]) in mine]

    def _restates(self, line: LogLine) -> LogLine | None:
        """The stored line ``line`` says again, among those stored after the last entry
        without being entered (what the rules derived, or filled in at the game's end,
        when the table stopped): the first such line from where the last one matched. A
        table that pipes a log in two sittings says them again after ``--resume``. A
        resolution said again with its effects stands for the one filled in without them
        (the record holds it already; the claims are not added)."""
        if self._echo >= len(self.stored):
            return None
        for loose in (False, True):
            said = _said(line, loose)
            for k in range(self._echo, len(self.stored)):
                if _said(self.stored[k], loose) == said:
                    self._echo = k + 1
                    return self.stored[k]
        return None

    def _untyped_tail(self) -> int:
        """Where the lines stored after the last entry begin; at the game's end, after
        the last request (a record that ends the game stores the lines filled in after
        it, which a later sitting may say again)."""
        if not self.entries:
            return 1
        if self.over:
            last = max((i for i, ln in enumerate(self.stored) if ln.type == "request"),
                       default=0)
            return last + 1
        return self.entries[-1] + 1

    @staticmethod
    def _judged(lines: list[LogLine]) -> CoreFlow:
        """The flow of ``lines`` as the judge reads them (:class:`~adjudicator.replay.Replay`:
        corrections skipped, and the table taken as played after a departure the later
        lines show), not finished."""
        return Replay.of_lines(lines).flow()

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


def _same(a: LogLine, b: LogLine) -> bool:
    """The same line, whatever its seq."""
    da, db = canonical_dict(a), canonical_dict(b)
    da.pop("seq", None)
    db.pop("seq", None)
    return da == db


def _effect(effect: Any) -> Any:
    """An effect as a log line writes it (the plan's dict read as the log format's)."""
    from coreflow_judge.events.models import Effect

    try:
        return Effect.model_validate(effect).model_dump(mode="json", exclude_none=True)
    except ValueError:
        return effect


def _said(line: LogLine, loose: bool = False) -> dict[str, Any]:
    """What a line says, whatever its seq and the time it was written at (``loose``: and
    the effects a resolution claims)."""
    data = canonical_dict(line)
    data.pop("seq", None)
    data.pop("at", None)
    if loose and data.get("type") == "resolve":
        data.pop("effects", None)
    return data


SPECTATOR = "spectator"
"""The viewer who sees only what every player sees (:mod:`projections.view`)."""


def sight(flow: CoreFlow, viewer: str) -> Sight:
    """Whether ``viewer`` (a player, ``spectator`` or ``judge``) may see a card now, by
    the game's disclosure levels (:func:`projections.view.in_sight`): read from the
    board when first asked."""
    seen: set[str] | None = None

    def sees(ref: str) -> bool:
        nonlocal seen
        if seen is None:
            from coreflow_judge.projections.view import disclosure_of, in_sight

            board: dict[str, Any] = dict(flow.rules.board(flow))
            board["stage"] = [{"key_cards": list(r.key_cards)} for r in flow.stage]
            board["buffer"] = [{"key_cards": list(r.key_cards)} for r in flow.buffer]
            seen = in_sight(board, viewer, disclosure_of(flow.header.rules))
        return ref in seen

    return sees


def _entry(line: LogLine) -> str:
    """A request in the notation, without its id (the table's next free id is the
    default)."""
    text = to_notation(line)
    rid = getattr(line, "request", None)
    return text.replace(f" #{rid}", "") if rid else text


def _alternatives(requests: Sequence[Request]) -> str:
    """What the other entries vary, slot by slot: key cards, each cost kind, targets,
    request-time choices."""
    slots: dict[str, dict[str, None]] = {}
    for r in requests:
        who = r.player
        for k in r.key_cards:
            slots.setdefault("key card", {})[k.removeprefix(f"{who}:")] = None
        for c in r.costs:
            slots.setdefault(f"${c.kind}", {})[c.ref.removeprefix(f"{who}:")] = None
        for t in r.targets:
            slots.setdefault("target", {})[t] = None
        for name, value in (r.choices or {}).items():
            slots.setdefault(name, {})[str(value)] = None
    return "; ".join(f"{slot} {', '.join(values)}" for slot, values in slots.items()) \
        or "the same cards"


def _shape_word(shape: object) -> str:
    """A placeholder for a choice's value in an entry: its shape in capitals."""
    if isinstance(shape, dict):
        words: object = next(iter(shape.values()), [])
        return "|".join(str(w) for w in words) if isinstance(words, list) else "WORD"
    return str(shape).upper()


def _shape_text(shape: object) -> str:
    from coreflow_judge.adjudicator.games.choices import SHAPES

    if isinstance(shape, dict):
        kind, words = next(iter(shape.items()))
        return ("one of " if kind == "one_of" else "a list of ") + ", ".join(map(str, words))
    return SHAPES.get(str(shape), (str(shape), None))[0]
