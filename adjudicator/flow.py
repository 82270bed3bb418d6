"""The core flow: chance, requests, the stage and the buffer, step by step.

A deterministic state machine over match-log lines, read against the core rule's chart
(steps [1]..[16] and the trigger check [6-1]..[6-12]; docs/core-flow.md walks through them
and names the method of each step). :meth:`CoreFlow.feed` takes the next line of a log and
returns the findings it raises.

The flow derives the rule-system lines the log leaves out (chance moves, triggers, staging,
discards, turn starts, the game end) into its :class:`~adjudicator.ledger.Ledger`, which
matches them with the lines the log does contain; the flow rules on what a match or a
mismatch means.

What the flow does when a table went off the chart's script (a rule-system line the
ledger does not match, a name the judge made up, a step the table went on without, a repair
the judge's planner takes as played) is the work of its
:class:`~adjudicator.reconcile.Reconciler`, called at named points.

The flow knows nothing of any one game: actions, costs, effects, triggers and the
win/lose check come from the :class:`~adjudicator.game.GameRules` module of the match.
"""

from __future__ import annotations

import fnmatch
from enum import Enum
from typing import Any

from coreflow_judge.adjudicator import reconcile
from coreflow_judge.adjudicator.findings import (
    Finding,
    FindingList,
    breaks,
    finding,
    listed,
    one_per_code,
)
from coreflow_judge.adjudicator.game import (
    ActionDef,
    GameResult,
    GameRules,
    Resolution,
    TriggerSpec,
)
from coreflow_judge.adjudicator.ledger import DERIVABLE, Derived, Ledger
from coreflow_judge.adjudicator.request import STATUS_WORDS, Req, Status
from coreflow_judge.adjudicator.stage import Buffer, StageStack
from coreflow_judge.events.models import (
    ChanceMoved,
    Discard,
    GameEnded,
    GameStarted,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    Stage,
    TakenBack,
    Trigger,
    TurnStarted,
    unknown_players,
)

__all__ = ["STAGE_NOT_EMPTY", "SYSTEM", "Continuation", "CoreFlow", "Derived", "Req", "Status"]

SYSTEM = "system"
"""The rule system as the holder of the chance ([13]: while the stage resolves)."""

STAGE_NOT_EMPTY = "stage not empty"
"""The reason the rule system gives for a [6-10-6] discard (:meth:`CoreFlow.discards_trigger`)."""


def _result_words(result: str, winner: str | None, reason: str | None) -> str:
    """``alice wins (deck_out)``, ``a draw (turn_limit)``: a game result as a judge says it."""
    why = f" ({reason})" if reason else ""
    return f"{winner} wins{why}" if result == "win" else f"a draw{why}"


def _id(req: Req) -> str:
    return req.id


class Continuation(Enum):
    """Where the flow goes once a trigger check [6] has emptied the buffer: the arrow of
    the chart it left to run the check. Kept on a stack; the latest goes first."""

    STAGE_RESOLVED_TO_2 = "[15] -> [9] -> [6] -> [2]"
    """A request on the stage resolved: the chance goes to the turn player ([2])."""
    INSTANT_RESOLVED_TO_3 = "[8] -> [9] -> [6] -> [3]"
    """An instant request resolved: the chance stays where it was ([3])."""
    NORMAL_STAGED_TO_D4 = "[10] -> [6] -> D4"
    """A direct normal request was staged: by edition (D4) the requester keeps the chance
    or passes automatically ([11])."""
    INSTANT_WAITS_FOR_8 = "[7] -> [6] -> [8]"
    """An instant request's costs triggered requests, handled first: the instant request
    then waits for its own resolve line ([8])."""


class CoreFlow:
    """The state of one match under the core flow, fed one log line at a time."""

    def __init__(self, header: MatchStarted, rules: GameRules[CoreFlow, Req],
                 seq: int = 1) -> None:
        self.header = header
        self.rules = rules
        self.players: tuple[str, ...] = tuple(header.players)
        self.turn_player: str | None = None
        self.turn = 0
        self.chance: str | None = None
        self.passed: set[str] = set()
        """The pass record (D5): who passed since it was last cleared."""
        self.stage = StageStack()
        self.buffer = Buffer()
        self.once_used: set[tuple[str, str]] = set()
        self.awaiting_instant: Req | None = None
        """An instant request made ([7]) and waiting for its resolve line ([8])."""
        self.open_call: str | None = None
        """The shortcut call of the last pass, until a request or resolution."""
        self.call_chain: tuple[str, ...] = ()
        """The actions an open call still carries play through after the top of the stage
        (see FlowPolicy.shortcut_calls)."""
        self.turn_untouched = False
        """A turn has just started and no player has decided anything in it yet."""
        self.continuations: list[Continuation] = []
        self.result: GameResult | None = None
        self.recorded_end: GameEnded | None = None
        self.silenced = False
        self.end_missed = False
        """Play went on after the rules ended the game (``order.win-check-missed``): the
        judge rules on nothing more but the end the table records (its result)."""
        self.started = False
        self.ledger = Ledger(header)
        self.findings: list[Finding] = FindingList()
        self.resolutions: dict[int, Resolution] = {}
        """What the rules module returned for each resolve line, by its seq (observers,
        such as the audit, read a resolution's effects here)."""
        self.moved: dict[str, list[int]] = {}
        """For each card, the seqs of the resolve lines whose effects (in
        :attr:`resolutions`) move it, in the order they resolved (the judge's ``kept``
        repair looks up the latest)."""
        self.next_seq = seq + 1
        self.last_seq = seq
        self._withdrawn = 0
        """Findings of earlier lines withdrawn while the current line is fed."""
        self._earlier_breaks = 0
        """How much the rule breaks (findings.breaks) the findings of earlier lines say
        changed while the current line is fed (withdrawn, or restated)."""
        self.breaks = 0
        """The rule breaks :attr:`findings` say (:func:`~adjudicator.findings.breaks`), kept
        up to date line by line by :meth:`feed` and :meth:`repair` (a reader that adds a
        finding itself adds its weight): what the judge's repair planner weighs after each
        line, without counting them all again."""

    @property
    def reconciler(self) -> reconcile.Reconciler:
        """The part that takes a table that went off the chart's script as it played (its
        own module). Made at each use: a flow refers to nothing that refers back to it, so
        the many flows the judge's repair planner replays are freed as soon as they are
        done, with no cyclic garbage collection."""
        return reconcile.Reconciler(self)

    # ------------------------------------------------------------------ the ledger's parts
    @property
    def requests(self) -> dict[str, Req]:
        """Every request of the match by id (kept by the ledger)."""
        return self.ledger.requests

    @property
    def complete(self) -> list[LogLine | Derived]:
        """The complete log so far (kept by the ledger)."""
        return self.ledger.complete

    @complete.setter
    def complete(self, value: list[LogLine | Derived]) -> None:
        self.ledger.complete = value

    def derive(self, model: type[LogLine], fields: dict[str, Any], req: Req | None = None,
               ) -> None:
        """A rule-system line the rules derive here (see :meth:`Ledger.derive`)."""
        self.ledger.derive(model, fields, req)

    def complete_log(self) -> list[LogLine]:
        """Every line, derived ones filled in, renumbered 1..N."""
        return self.ledger.complete_log()

    # ------------------------------------------------------------------ helpers
    def report(self, code: str, rule: str, message: str, seq: int | None = None,
               **kw: Any) -> None:
        """A finding about line ``seq`` (by default the line being fed)."""
        self.findings.append(finding(code, self.last_seq if seq is None else seq, rule,
                                     message, **kw))

    def cite(self, code: str, core: str) -> str:
        """The rule a core check rests on: the game's own clause if it names one."""
        return self.rules.policy.rule_refs.get(code, core)

    def next_player(self, player: str) -> str:
        i = self.players.index(player)
        return self.players[(i + 1) % len(self.players)]

    def pending_decisions(self) -> bool:
        return bool(self.buffer) or self.awaiting_instant is not None

    # ------------------------------------------------------------------ feeding
    def _since(self, start: int) -> list[Finding]:
        """The findings reported since there were ``start`` (less those withdrawn since)."""
        return self.findings[start - self._withdrawn:]

    def feed(self, line: LogLine) -> list[Finding]:
        """Take the next log line; return the findings it raised (a finding of an earlier
        line this one withdraws is no longer in :attr:`findings`), one per code per line
        (:func:`~adjudicator.findings.one_per_code`)."""
        start = len(self.findings)
        self._withdrawn = self._earlier_breaks = 0
        self._take(line)
        self._count_breaks(start)
        return self._since(start)

    def _count_breaks(self, start: int) -> None:
        """After a line or a repair that began with ``start`` findings: merge its findings
        one per code per line, and bring :attr:`breaks` up to date (the change in those of
        earlier lines, and the new ones), at the cost of what it reported."""
        self._earlier_breaks += one_per_code(self.findings, start - self._withdrawn)
        self.breaks += self._earlier_breaks + breaks(self._since(start))

    def _take(self, line: LogLine) -> None:
        """The work of :meth:`feed`."""
        self.last_seq = line.seq
        if line.seq != self.next_seq:
            self.report(
                "log.seq-gap", "log",
                f"This line has seq {line.seq} where seq {self.next_seq} was expected: "
                "seq numbers run 1, 2, 3, ... without gaps or repeats.",
                expected=self.next_seq, actual=line.seq,
            )
        self.next_seq = line.seq + 1
        ledger = self.ledger
        if self.recorded_end is not None:
            ledger.record(line)
            self.report("log.after-game-end", "core[9]",
                        "Nothing may happen after the recorded end of the game.")
            return
        if self.silenced:
            ledger.record(line)
            if self.end_missed and isinstance(line, GameEnded):
                # The lines between stay unjudged; the end the table recorded is still
                # compared with the rules' result (core[9]).
                self.recorded_end = line
                self._compare_result(line)
            return
        kind = line.type
        if kind in DERIVABLE:
            if kind == "chance_moved" and ledger.match_chance(line):  # type: ignore[arg-type]
                return  # the commonest line, where the rules expect it
            if self.reconciler.rule_system_line(line):
                return
        # A decision line: whatever the log left out before it is taken as done.
        if self.result is not None and not isinstance(line, GameEnded):
            self.reconciler.played_on_after_end(line)  # [9] missed: the game was over
            return
        ledger.decision(line)
        self.turn_untouched = False
        if kind == "game_started":
            self._on_game_started(line)  # type: ignore[arg-type]
        elif not self.started:
            self.report("log.unknown-ref", "core[1]", "The game has not started yet.",
                        expected="game_started", actual=kind)
        elif kind == "request":
            self._on_request(line)  # type: ignore[arg-type]
        elif kind == "pass":
            self._on_pass(line)  # type: ignore[arg-type]
        elif kind == "resolve":
            self._on_resolve(line)  # type: ignore[arg-type]
        elif kind == "stage":
            self._on_stage(line)  # type: ignore[arg-type]
        elif kind == "game_ended":
            self._on_game_ended(line)  # type: ignore[arg-type]
        elif kind == "match_started":
            self.report("log.malformed", "log", "match_started may only be line 1.")
        elif kind == "taken_back":
            self.report("log.malformed", "log",
                        f"This correction takes back {line.lines} lines, more than stand "  # type: ignore[union-attr]
                        "before it (the match_started line, lines already taken back and "
                        "corrections cannot be taken back): it takes back nothing.")
        elif kind == "roll":
            self.rules.on_roll(self, line)  # type: ignore[arg-type]  # dice: the game's business
        return

    # ------------------------------------------------------------------ as played
    def stop_judging(self) -> None:
        """From the next line on the judge rules on nothing (each line is still recorded):
        what follows depends on what it cannot follow, a game played on after its end or
        an action not judged yet, and a finding must be true of the game as played."""
        self.silenced = True

    def repair(self, kind: str, seq: int, line: LogLine | None = None) -> bool:
        """Take the table as it played before line ``seq`` (the reconciler's
        :meth:`~adjudicator.reconcile.Reconciler.repair`), its finding one per code per
        line with the line's own."""
        start = len(self.findings)
        self._withdrawn = self._earlier_breaks = 0
        done = self.reconciler.repair(kind, seq, line)
        self._count_breaks(start)
        return done

    def skip(self, line: LogLine) -> None:
        """A line a correction took back (or the correction itself): it stays in the
        complete log as written and is not judged; the table goes on as before it."""
        self.last_seq = line.seq
        self.next_seq = line.seq + 1
        self.ledger.record(line)
        if isinstance(line, TakenBack):
            what = "line" if line.lines == 1 else f"{line.lines} lines"
            why = f" ({line.reason})" if line.reason else ""
            self.report("log.taken-back", "log",
                        f"The table took back the {what} before this one{why}: judged as "
                        "if never played.", actual=line.lines)

    def finish(self) -> None:
        """The log ended: fill in what it left out (an unfinished game is no finding)."""
        self.ledger.take_as_done()

    # ------------------------------------------------------------------ [1] game start
    def _on_game_started(self, line: GameStarted) -> None:
        """[1] the game starts: the first player's turn 1, then [2]."""
        if self.started:
            self.report("log.malformed", "core[1]", "The game has already started.")
            return
        if line.first_player not in self.players:
            self.report("log.unknown-ref", "core[1]", f"No player {line.first_player!r}.",
                        actual=line.first_player)
            return
        for name, player in unknown_players(line, self.players):  # the rest is judged
            self.report("log.unknown-ref", "log", f"{name}: no player {player!r}.",
                        actual=player)
        self.started = True
        self.turn_player = line.first_player
        self.turn = 1
        self.rules.start_game(self, self.header, line)
        self.ledger.derive(TurnStarted, dict(player=line.first_player, turn=1))
        self.give_chance_to_turn_player()

    # ------------------------------------------------------------------ [2], [13], [16] chance
    def move_chance(self, to: str) -> None:
        """[2], [13], [16]: the chance goes to ``to`` (a player or the rule system)."""
        self.chance = to
        self.ledger.derive(ChanceMoved, dict(to=to))

    def give_chance_to_turn_player(self) -> None:
        """[2]: the chance goes to the turn player; the pass record is cleared (D5)."""
        self.passed.clear()
        if self.turn_player is not None:
            self.move_chance(self.turn_player)

    # ------------------------------------------------------------------ [3]..[10] requests
    def _on_request(self, line: Request) -> None:
        """[3] a request by the chance holder (or a free one), [4] the pass record is
        cleared, [5] the request is made and its costs paid, [6] the trigger check; then
        [7] an instant request waits for [8] its resolution, a normal one goes [10] on the
        stage, [6] again, and on by the edition's D4 policy."""
        if self.pending_decisions():
            self.reconciler.miss_pending("play went on with a new request")
        player = line.player
        if player not in self.players:
            self.report("log.unknown-ref", "log", f"No player {player!r}.", actual=player)
            return
        if self.ledger.claim(line.request) is not None:
            self.report("log.malformed", "log",
                        f"Request id {line.request!r} is already used in this match.")
            return
        action = self.rules.action(line.action)
        why = self.rules.not_judged(line.action) if action is None else None
        if why is not None:
            # What follows depends on what the judge cannot follow: it rules on nothing
            # after this line rather than on a table that may differ (a finding must be
            # true of the game).
            self.report("log.not-judged-yet", "scope",
                        f"{why}: the judge rules on nothing from this line on.",
                        actual=line.action)
            self.stop_judging()
            return
        if action is None:
            self.report("legality.unknown-action", self.cite("legality.unknown-action", "core[5]"),
                        f"{line.action!r} is not an action of this format.",
                        actual=line.action)
            return
        if not action.direct:
            self.report("timing.not-directly-actionable",
                        self.cite("timing.not-directly-actionable", "core[5]"),
                        f"Players cannot request {action.name} directly; the rules start it.",
                        actual=line.action)
            # Reported, and it still happened (docs/decisions.md): it goes on as a request.
        if (
            action.timing == "main"
            and player == self.turn_player
            and self.reconciler.stage_is_only_unplayed_triggers()
        ):
            self.reconciler.drop_unplayed_stage("play went on with a main-timing request")
        self.check_request_timing(line, action, report=True)
        for claim, value in (("speed", line.speed), ("timing", line.timing)):
            if value is not None and value != getattr(action, claim):
                self.report("log.claim-mismatch", "core[5]",
                            f"The log calls {action.name} {value}; its {claim} is "
                            f"{getattr(action, claim)}.", expected=getattr(action, claim),
                            actual=value)
        self.findings.extend(self.rules.request_findings(self, line, action))
        # [4] clear the pass record, [5] make the request and pay its costs.
        self.open_call = None  # a request (a cut-in) ends any call
        self.call_chain = ()
        self.passed.clear()
        if action.speed != "instant" and action.timing != "free":
            # An instant request leaves the chance where it was ([8] -> [3] unchanged), also
            # when made without it; a free one needs no chance at all.
            self.chance = player
        req = Req(
            id=line.request, action=action, controller=player, seq=line.seq, triggered=False,
            key_cards=list(line.key_cards), targets=list(line.targets),
            choices=dict(line.choices or {}), status="instant",
        )
        self.ledger.add(req)
        if action.once_per_turn:
            self.once_used.add((player, action.id))
        cost_triggers = self.rules.pay_costs(self, req, line)
        if action.speed == "instant":
            # [7] instant -> [8] resolve: the resolve line follows.
            self.awaiting_instant = req
            self.continuations.append(Continuation.INSTANT_RESOLVED_TO_3)
            if self.rules.policy.resolve_before_cost_triggers:
                req.cost_triggers = cost_triggers
            else:
                self.continuations.append(Continuation.INSTANT_WAITS_FOR_8)
                self.add_triggers(cost_triggers)
                self.run_trigger_check()
            return
        # [6] trigger check, [10] add to the stage, [6], then D4.
        self.add_triggers(cost_triggers)
        req.status = "stage"
        self.stage.append(req)
        self.ledger.derive(Stage, dict(request=req.id), req)
        self.continuations.append(Continuation.NORMAL_STAGED_TO_D4)
        # What requesting it triggers is checked once it is on the stage (above it).
        self.add_triggers(self.rules.on_staged(self, req))
        self.run_trigger_check()

    def main_timing(self, player: str) -> bool:
        """[3]: is it ``player``'s main timing, when a request of main timing may be made:
        the turn player's, with the stage empty? The one reading of the rule: the timing
        check asks it, and a simulator's policy weighs its choices by it."""
        return player == self.turn_player and not self.stage

    def check_request_timing(self, line: Request, action: ActionDef, report: bool) -> list[str]:
        """[3]: chance, timing and once-per-turn of a direct request; codes of what it
        breaks."""
        broken: list[tuple[str, str, str, Any, Any]] = []
        player = line.player
        if action.timing == "free":
            pass  # requested at any time: no chance needed
        elif self.chance != player:
            broken.append(("timing.no-chance", "core[3]",
                           f"{player} requested {action.name} without holding the chance.",
                           self.chance, player))
        if action.timing == "main" and not self.main_timing(player):
            if player != self.turn_player:
                broken.append(("timing.main-not-turn-player", "core[3]",
                               f"{player} requested {action.name} on {self.turn_player}'s "
                               "turn; it has main timing, so only the turn player may "
                               "request it.", self.turn_player, player))
            if self.stage:
                waited = listed(self.stage, _id)  # a deep stage is quoted in part
                broken.append(("timing.main-stage-not-empty", "core[3]",
                               f"{player} requested {action.name} while "
                               f"{', '.join(waited)} waited on the stage; "
                               "it has main timing, so the stage must be empty.",
                               "empty stage", waited))
        if action.once_per_turn and (player, action.id) in self.once_used:
            broken.append(("timing.once-per-turn", self.cite("timing.once-per-turn", "core[3]"),
                           f"{player} already requested {action.name} this turn; it may be "
                           "requested once per turn.",
                           "once this turn", "twice"))
        if report:
            for code, rule, msg, exp, act in broken:
                self.report(code, rule, msg, expected=exp, actual=act)
        return [b[0] for b in broken]

    def _after_normal_request(self) -> None:
        """D4: by edition, the requester keeps the chance or passes automatically."""
        if self.rules.policy.requester_keeps_chance or self.chance in (None, SYSTEM):
            return
        self._record_pass(self.chance)

    # ------------------------------------------------------------------ [6] trigger check
    def add_triggers(self, specs: list[TriggerSpec], named: dict[int, str] | None = None,
                     ) -> None:
        """[6-1]: every triggered request goes into the buffer (under a provisional id
        until a line of the log names it; ``named``: the ids of those, by index, whose
        trigger line the log already wrote, :meth:`_announce_held`)."""
        for k, spec in enumerate(specs):
            action = self.rules.action(spec.action)
            if action is None:
                continue
            rid = (named or {}).get(k)
            req = Req(
                id=rid or self.ledger.provisional_id(), action=action,
                controller=spec.controller, seq=self.last_seq, triggered=True,
                source=spec.source, status="buffer", provisional=rid is None,
                key_cards=list(spec.key_cards), targets=list(spec.targets),
                data=dict(spec.facts),
            )
            self.ledger.add(req)
            self.buffer.append(req)
            if rid is not None:
                continue  # its trigger line is in the log already
            self.ledger.derive(
                Trigger, dict(request=req.id, action=spec.action, source=spec.source,
                              controller=spec.controller),
                req,
            )

    def trigger_class(self) -> list[Req]:
        """[6-3]..[6-12]: the buffered requests that may be handled next: those of the
        lowest rank under the game's trigger order (the core rule's own order: instant
        before normal, player by player from the turn player, main before quick)."""
        return list(self.buffer.first_class(self))

    def run_trigger_check(self) -> None:
        """[6]: handle the buffer as far as the rules decide alone, then continue the flow
        where it left off. An instant request, or a choice among several of one class, is
        the players' decision: the flow waits for the log's line."""
        while self.buffer:
            cls = self.buffer.first_class(self)
            first = next(iter(cls))
            if first.action.speed == "instant" or len(cls) > 1:
                return  # a decision: the log names which one resolves or is staged
            self._place_normal_trigger(first, derived=True)
        self._continue()

    def discards_trigger(self, req: Req) -> bool:
        """[6-10-6]: a triggered normal request of main timing is discarded, not placed,
        when the stage is not empty ([6-10-4], [6-10-5]: otherwise it goes on the stage).
        The one reading of the rule: the flow places by it, checks the log's placing
        against it, and a simulator writes its placing by it."""
        return req.action.speed == "normal" and req.action.timing == "main" \
            and bool(self.stage)

    def _place_normal_trigger(self, req: Req, derived: bool) -> None:
        """[6-10-4]..[6-10-7]: quick -> stage; main -> stage only if the stage is empty,
        else discarded (:meth:`discards_trigger`)."""
        self.buffer.remove(req)
        if self.discards_trigger(req):
            req.status = "discarded"
            if derived:
                self.ledger.derive(Discard, dict(request=req.id, reason=STAGE_NOT_EMPTY), req)
            return
        req.status = "stage"
        self.stage.append(req)
        if derived:
            self.ledger.derive(Stage, dict(request=req.id), req)

    def _continue(self) -> None:
        """The buffer is empty: follow the arrows the flow left to run the trigger check."""
        while self.continuations and not self.buffer and self.result is None:
            step = self.continuations.pop()
            if step is Continuation.STAGE_RESOLVED_TO_2:
                self.give_chance_to_turn_player()
            elif step is Continuation.INSTANT_RESOLVED_TO_3:
                pass  # [3]: the chance stays where it was
            elif step is Continuation.INSTANT_WAITS_FOR_8:
                return  # the instant request now waits for its resolve line
            elif step is Continuation.NORMAL_STAGED_TO_D4:
                self._after_normal_request()
        self._settle()

    def _settle(self) -> None:
        """Nothing is pending and no instant waits: a game whose step ends by itself once
        nothing is pending moves on here (the optional ``settle`` hook of the rules,
        :class:`~adjudicator.game.RulesHooks`); for other games nothing happens."""
        if self.buffer or self.awaiting_instant is not None or self.result is not None:
            return
        specs = self.rules.settle(self)
        if specs:
            self.add_triggers(specs)
            self.run_trigger_check()

    def _on_stage(self, line: Stage) -> None:
        """[6-10]: the log places the triggered request the players chose on the stage."""
        req = self.reconciler.lookup(line.request)
        if req is None:
            self.report("log.unknown-ref", "core[10]", f"No request {line.request!r}.")
            return
        if req.status != "buffer":
            self.report("log.unknown-ref", "core[10]",
                        f"{req.id} is not waiting in the buffer.", actual=req.status)
            return
        self._check_trigger_order(req)
        if req.action.speed == "instant":
            self.report("legality.effect-mismatch", "core[7]",
                        "An instant request is never staged; it resolves at once.")
        elif self.discards_trigger(req):
            self.report("order.main-trigger-not-discarded", "core[6-10-6]",
                        f"{req.action.name} has main timing and the stage was not empty: "
                        "it should have been discarded.", expected="discard", actual="stage")
        self.buffer.remove(req)
        req.status = "stage"
        req.staged_in_log = True
        self.stage.append(req)
        self.run_trigger_check()

    def _on_discard(self, line: Discard) -> None:
        """[6-10-6]: the log discards a triggered request the rules did not discard here."""
        req = self.reconciler.lookup(line.request)
        if req is None or req.status != "buffer":
            self.report("log.unknown-ref", "core[6-10-6]",
                        f"{line.request} is not waiting in the buffer.")
            return
        self._check_trigger_order(req)
        if not self.discards_trigger(req):
            self.report("order.trigger-wrongly-discarded", "core[6-10-6]",
                        f"{req.action.name} should have been placed, not discarded.",
                        expected="stage", actual="discard")
        self.buffer.remove(req)
        req.status = "discarded"
        self.run_trigger_check()

    def _check_trigger_order(self, req: Req) -> None:
        """[6-3]..[6-12]: a buffered request handled while one of a lower class waited."""
        cls = self.buffer.first_class(self)
        if not cls or req in cls:
            return
        order = self.rules.trigger_order
        mine, first = order.rank(self, req), order.rank(self, next(iter(cls)))
        component = next(i for i, (a, b) in enumerate(zip(mine, first, strict=True)) if a != b)
        breach = order.breach(component)
        self.report(breach.code, breach.rule,
                    f"The triggered request {req.id} of {req.controller} ({req.action.name}) was "
                    f"handled too early: {breach.message}.",
                    expected=listed(cls, _id), actual=req.id)

    def _action_name(self, action_id: str) -> str:
        action = self.rules.action(action_id)
        return action.name if action is not None else repr(action_id)

    # ------------------------------------------------------------------ [11]..[16] passes
    def _on_pass(self, line: Pass) -> None:
        """[11] the chance holder passes."""
        if self.pending_decisions():
            self.reconciler.miss_pending("play went on with a pass")
        if line.player not in self.players:
            self.report("log.unknown-ref", "log", f"No player {line.player!r}.")
            return
        call = self._call_of(line.note)
        if call is not None and self.chance not in (None, SYSTEM, line.player) \
                and self.stage and self.stage[-1].controller == self.chance \
                and not self.stage[-1].triggered:
            # G1: a call answering a declaration: the declarer's own pass is implied.
            at = len(self.complete) - 1
            self.ledger.derive(Pass, dict(player=self.chance,
                                          note=f"implied by the call {call!r}"))
            self._record_pass(self.chance)
            self.ledger.move_to_end(at)
            self.ledger.take_as_done()
        if self.chance != line.player:
            self.report("timing.no-chance", "core[11]",
                        f"{line.player} passed without holding the chance.",
                        expected=self.chance, actual=line.player)
            return
        for r in reversed(self.stage):
            # Those below the first already passed over were marked at an earlier pass:
            # the stage grows at the top only, so they lie below every unmarked one.
            if r.passed_over:
                break
            r.passed_over = True
        if call is not None:
            self.open_call = call
            chain = self.rules.policy.shortcut_calls[call]
            top = self.stage[-1].action.id if self.stage else None
            self.call_chain = chain[chain.index(top) + 1:] if top in chain else ()
        elif not self.call_chain:
            self.open_call = None  # a plain pass is one pass only
        self._record_pass(line.player)

    def _call_of(self, note: str | None) -> str | None:
        """The shortcut call a pass's note makes (its pattern in the edition's calls)."""
        said = (note or "").strip().lower()
        if not said:
            return None
        calls = self.rules.policy.shortcut_calls
        if said in calls:
            return said
        return next((c for c in calls if "*" in c and fnmatch.fnmatchcase(said, c)), None)

    def _carry_call(self, resolved: Req) -> None:
        """After a staged request resolved: an open call goes on only while play follows
        its chain (the next request to resolve is the chain's next action)."""
        if self.call_chain and resolved.action.id in self.call_chain:
            self.call_chain = self.call_chain[self.call_chain.index(resolved.action.id) + 1:]
        if self.call_chain and (self.buffer or (
                self.stage and self.stage[-1].action.id in self.call_chain)):
            return
        self.open_call = None
        self.call_chain = ()

    def _record_pass(self, player: str) -> None:
        """[11] record the pass, [12] all passed? yes -> [13] the rule system takes the
        chance ([14] empty stage -> [2], else [15]); no -> [16] the next player."""
        self.passed.add(player)
        if len(self.passed) < len(self.players):
            self.move_chance(self.next_player(player))  # [16]
            return
        self.move_chance(SYSTEM)  # [13]
        if not self.stage:  # [14] -> [2] (D3)
            self.give_chance_to_turn_player()

    def _expand_call(self, req: Req) -> bool:
        """[12] by a shortcut call: the passes it stands for are filled in, when
        unambiguous.

        Returns False when the call cannot be read at this point (a warning, never a
        guessed error: whether everyone passed is then left undecided)."""
        call, self.open_call = self.open_call, None
        if not self.stage or self.stage[-1] is not req or self.chance in (None, SYSTEM):
            self.call_chain = ()
            self.report("log.call-ambiguous", "core[12]",
                        f"The call {call!r} cannot stand for the passes before resolving "
                        f"{req.id}: it is not the top of the stage.", severity="warning")
            return False
        at = len(self.complete) - 1  # the resolve line, already written
        while self.chance not in (None, SYSTEM):
            player = self.chance
            self.ledger.derive(Pass, dict(player=player, note=f"implied by the call {call!r}"))
            self._record_pass(player)
        if self.call_chain:
            self.open_call = call  # it carries play on through the rest of its chain
        # The implied passes came before the resolution: put the resolve line after them.
        self.ledger.move_to_end(at)
        self.ledger.take_as_done()
        return True

    # ------------------------------------------------------------------ [8], [15] resolution
    def _on_resolve(self, line: Resolve) -> None:
        """[8] an instant request resolves; [15] the top of the stage resolves once every
        player passed ([12]); a triggered instant request resolves from the buffer."""
        req = self.reconciler.lookup(line.request)
        waiting = self.awaiting_instant
        if req is None and waiting is not None and waiting.cost_triggers \
                and not self.buffer:
            # The table resolved what the instant's costs triggered before the instant
            # itself: reported once, then followed as played (they enter the buffer now).
            self.report("order.instant-before-own-trigger", "core[8]",
                        f"{waiting.id} ({waiting.action.name}) is an instant request: it "
                        "resolves before the requests its costs triggered "
                        f"({', '.join(self._action_name(t.action) for t in waiting.cost_triggers)}"
                        "), and the "
                        "log resolves one of those first.", expected=waiting.id,
                        actual=line.request)
            at = len(self.complete) - 1  # the resolve line, already written
            self.add_triggers(waiting.cost_triggers, waiting.announced)
            waiting.cost_triggers = []
            self.ledger.move_to_end(at)  # they triggered before it: their lines come first
            req = self.reconciler.lookup(line.request)
        if req is None:
            if self.pending_decisions():
                self.reconciler.miss_pending("play went on with another resolution")
            self.report("log.unknown-ref", "log", f"No request {line.request!r}.",
                        actual=line.request)
            return
        if req is self.awaiting_instant:
            self.awaiting_instant = None
            self._resolve(req, line)
            if self.rules.policy.resolve_before_cost_triggers:
                self.add_triggers(req.cost_triggers, req.announced)
                req.cost_triggers = []
            self.run_trigger_check()
            res = self.resolutions.get(line.seq)
            if res is not None and res.pass_chance and self.chance == req.controller \
                    and self.result is None:
                self._record_pass(req.controller)  # the effect passes the chance
            return
        if req.status == "dropped" and req.triggered and \
                self.rules.policy.resolve_late_triggers:
            self.reconciler.take_back_missed(req, line.seq)
        if req.status == "buffer":
            self._check_trigger_order(req)
            self.buffer.remove(req)
            if req.action.speed == "normal":
                self.report("timing.resolved-before-all-passed", "core[12]",
                            f"{req.action.name} is a normal request: it is staged and resolves "
                            "only after every player passed.")
            self._resolve(req, line)
            self.run_trigger_check()
            return
        if req.status == "stage":
            if self.pending_decisions():
                self.reconciler.miss_pending("play went on with a resolution")
            undecidable = False
            if self.chance != SYSTEM and self.open_call is not None:
                undecidable = not self._expand_call(req)
            if self.chance != SYSTEM and not undecidable:
                self.report(
                    "timing.resolved-before-all-passed", "core[12]",
                    f"{req.action.name} ({req.id}) was resolved before every player passed.",
                    expected=sorted(self.players), actual=sorted(self.passed),
                )
            if self.stage and self.stage[-1] is not req:
                self.report(
                    "order.stage-not-lifo", "core[15]",
                    f"{req.id} ({req.action.name}) was resolved while {self.stage[-1].id} "
                    f"({self.stage[-1].action.name}), staged later, was still on the stage.",
                    expected=self.stage[-1].id, actual=req.id,
                )
            self.stage.remove(req)
            self.chance = SYSTEM
            self.continuations.append(Continuation.STAGE_RESOLVED_TO_2)
            self._resolve(req, line)
            self._carry_call(req)
            self.run_trigger_check()
            return
        if self.pending_decisions():
            self.reconciler.miss_pending("play went on with another resolution")
        self.report("log.unknown-ref", "core[15]",
                    f"The log resolves {req.id} ({req.action.name}), which is not waiting to "
                    f"resolve: {STATUS_WORDS.get(req.status, req.status)}.",
                    actual=req.status)

    def _resolve(self, req: Req, line: Resolve) -> None:
        """[8]/[15] carry out the request, then [9] the win/lose check."""
        res = self.rules.resolve(self, req, line)
        self.resolutions[line.seq] = res
        for effect in res.effects:
            card = effect.get("card") if effect.get("op") == "move" else None
            if isinstance(card, str):
                seqs = self.moved.setdefault(card, [])
                if not seqs or seqs[-1] != line.seq:
                    seqs.append(line.seq)
        self.findings.extend(res.findings)
        if req.status not in ("negated",):
            req.status = "fizzled" if line.result == "fizzled" else "resolved"
        # [9] win/lose check.
        result = self.rules.win_check(self)
        if result is not None:
            self.result = result
            self.ledger.derive(GameEnded, dict(result=result.result, winner=result.winner,
                                        reason=result.reason))
            self.buffer.clear()
            self.continuations.clear()
            return
        self.add_triggers(res.triggers)

    def negate(self, rid: str) -> Req | None:
        """Remove a request from the stage without resolving it."""
        req = self.requests.get(rid)
        if req is None or req not in self.stage:
            return None
        self.stage.remove(req)
        req.status = "negated"
        return req

    def start_turn(self, player: str) -> None:
        """A turn-ending effect hands the turn over."""
        self.turn_player = player
        self.turn += 1
        self.once_used.clear()
        self.turn_untouched = True
        self.ledger.derive(TurnStarted, dict(player=player, turn=self.turn))

    # ------------------------------------------------------------------ [9] the game end
    def _on_game_ended(self, line: GameEnded) -> None:
        """[9]: the table records the end; compared with the rules' result."""
        self.recorded_end = line
        if self.result is None:
            if line.reason == "concession" and line.result == "win":
                self.result = GameResult("win", line.winner, "concession")
                return
            unknown = self.rules.win_check_unknown(self)
            if unknown is not None:
                # Hidden information: a warning, never a guess stated as an error; the
                # game ended as the log records.
                self.report("log.hidden-info", "core[9]",
                            f"The recorded result cannot be checked: {unknown}.",
                            severity="warning",
                            actual={"result": line.result, "winner": line.winner,
                                    "reason": line.reason})
                self.result = GameResult(line.result, line.winner, line.reason or "unknown")
                return
            self.report("legality.result-mismatch", "core[9]",
                        "The rules give no result at this point.", expected=None,
                        actual={"result": line.result, "winner": line.winner,
                                "reason": line.reason})
            return
        self._compare_result(line)

    def _compare_result(self, line: GameEnded) -> None:
        """[9]: the recorded end against the result the rules gave (``legality.result-
        mismatch`` where they differ: another winner, a draw, another reason)."""
        r = self.result
        assert r is not None
        if (line.result, line.winner) != (r.result, r.winner) or (
            line.reason is not None and line.reason != r.reason
        ):
            self.report("legality.result-mismatch", "core[9]",
                        f"The log records {_result_words(line.result, line.winner, line.reason)}"
                        f"; the rules give {_result_words(r.result, r.winner, r.reason)}.",
                        expected=r.as_dict(),
                        actual={"result": line.result, "winner": line.winner,
                                "reason": line.reason})
