"""The reconciler: a table that went off the chart's script, taken as it played.

:class:`~adjudicator.flow.CoreFlow` runs the core rule's chart (docs/core-flow.md). A real
table departs from it: a log leaves out rule-system lines or writes them elsewhere than
the rules put them, names a triggered request the judge had to give a made-up name, goes
on without a step the rules expected, or (the judge's repair planner finds) played on
after a departure the later lines show. The :class:`Reconciler` the flow holds rules on
each such departure once and leaves the flow on the table as played, so that the rest of
the game is judged on it (docs/decisions.md, "Root cause first"). The flow calls it at
named points:

- :meth:`Reconciler.rule_system_line`: a rule-system line of the log (a chance move,
  trigger, placement, discard, turn start or game end) the ledger does not match where it
  stands: a derived line written late or elsewhere, or one the rules did not derive;
- :meth:`Reconciler.lookup`: the request a ``stage``, ``discard`` or ``resolve`` line names
  (a name the judge made up binds to the request the table meant);
- :meth:`Reconciler.miss_pending`, :meth:`Reconciler.drop_unplayed_stage`,
  :meth:`Reconciler.take_back_missed`, :meth:`Reconciler.played_on_after_end`: the table
  went on without a step (a request never resolved, a game the rules ended);
- :meth:`Reconciler.repair`, :meth:`Reconciler.turn_taken_by`: the table as played before
  a line, as the judge's repair planner or a resolution's recorded effects say.

It reads and changes the flow's state (the stage, the buffer, the chance, the ledger, the
findings) and uses the flow's own steps; it knows no game either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coreflow_judge.adjudicator import flow as chart
from coreflow_judge.adjudicator.findings import weight, withdraw_part
from coreflow_judge.adjudicator.request import Req
from coreflow_judge.events.models import (
    ChanceMoved,
    Discard,
    GameEnded,
    LogLine,
    Request,
    Resolve,
    Stage,
    Trigger,
    TurnStarted,
)

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.ledger import Derived

__all__ = ["Reconciler"]

_DONE = frozenset({"resolved", "fizzled", "negated", "discarded"})


def _player_named(line: LogLine | None) -> str | None:
    """The player a line names as its actor: who starts a turn, requests or passes, who
    controls a trigger, who the chance goes to."""
    for name in ("player", "controller", "to"):
        who = getattr(line, name, None)
        if isinstance(who, str) and who != chart.SYSTEM:
            return who
    return None


class Reconciler:
    """The flow's part that takes a table that went off script as it played (a view of
    the flow, :attr:`CoreFlow.reconciler`: it keeps no state of its own)."""

    __slots__ = ("flow",)

    def __init__(self, flow: chart.CoreFlow) -> None:
        self.flow = flow

    # ------------------------------------------------------------------ rule-system lines
    def rule_system_line(self, line: LogLine) -> bool:
        """A line of a kind the rules derive. True when it is ruled here: it stands for a
        derived line (the ledger matches it), or it says what the rules did not derive
        (reported, and the table goes as the log says). False for a ``stage`` line that
        is the players' choice of order ([6-10]): a decision."""
        flow = self.flow
        d = flow.ledger.match(line)
        if d is None and isinstance(line, Trigger):
            # [6]: a trigger line may stand anywhere from the line that fired its trigger
            # up to the line that first names its request (core-flow.md).
            d = flow.ledger.written_late(line, self._unnamed_and_waiting, self._settled)
            if d is None and self._announce_held(line):
                return True
        if d is not None:
            if d.model is ChanceMoved:
                return True  # the common case, kept short: the hot path of the judge
            if isinstance(line, Trigger) and d.req is not None and \
                    line.controller is not None and line.controller != d.req.controller:
                flow.report(
                    "order.trigger-spurious", "core[6-1]",
                    "The triggered request's controller is wrong.",
                    expected=d.req.controller, actual=line.controller,
                )
            if isinstance(line, Stage) and d.req is not None:
                d.req.staged_in_log = True
            if isinstance(line, GameEnded):
                flow.recorded_end = line  # the table recorded the end the rules gave
            return True
        if isinstance(line, Stage | Discard):
            other = flow.ledger.placement_of(line.request)
            if other is not None:
                self._overrule_placement(other, line)
                return True
        if isinstance(line, Stage):
            return False  # a decision: the player's chosen order
        if isinstance(line, Trigger | TurnStarted) and flow.buffer and \
                flow.rules.goes_past_pending(flow, line):
            # The table went on without the pending requests: missed here, once; the line
            # is then read where the game is without them.
            self.miss_pending(f"play went on with turn {line.turn} of {line.player}"
                               if isinstance(line, TurnStarted) else
                               f"play went on with {flow._action_name(line.action)} "
                               f"({line.request})")
            if flow.ledger.match(line) is not None:
                return True
        # A rule-system line the rules did not derive here.
        flow.ledger.record(line)
        if isinstance(line, ChanceMoved):
            self._unexpected_chance_move(line)
        elif isinstance(line, Trigger):
            self._spurious_trigger(line)
        elif isinstance(line, Discard):
            flow._on_discard(line)
        elif isinstance(line, TurnStarted):
            if (line.player, line.turn) == (flow.turn_player, flow.turn):
                flow.ledger.agreed.add(line.seq)
                return True  # it records the turn that is under way: the rules agree
            flow.report(
                "legality.effect-mismatch", "core[15]",
                f"The log starts turn {line.turn} of {line.player} here, but under the rules "
                f"it is still turn {flow.turn} of {flow.turn_player}.",
                expected=f"turn {flow.turn} of {flow.turn_player}",
                actual=f"turn {line.turn} of {line.player}",
            )
        elif isinstance(line, GameEnded):
            # The table recorded another end than the rules give: its own line stands in
            # the complete log where the derived one would, never beside it (else the
            # complete log would end the game twice and be ruled otherwise).
            for d in flow.ledger.expected:
                if d.model is GameEnded:
                    flow.ledger.omit(d)
            flow.ledger.take_as_done()
            flow._on_game_ended(line)
        return True

    @staticmethod
    def _unnamed_and_waiting(req: Req) -> bool:
        """A triggered request still waiting in the buffer or on the stage that no line of
        the log placed (its trigger line may still come)."""
        return req.status in ("buffer", "stage") and not req.staged_in_log

    def _settled(self, req: Req) -> bool:
        """A request that can never wait again unnamed: placed by a line of the log, or
        done (resolved, fizzled, negated, discarded; dropped, unless the game lets a
        dropped request resolve late, policy ``resolve_late_triggers``)."""
        flow = self.flow
        return req.staged_in_log or req.status in _DONE or (
            req.status == "dropped" and not flow.rules.policy.resolve_late_triggers)

    def _announce_held(self, line: Trigger) -> bool:
        """[6] under ``resolve_before_cost_triggers``: the costs of the instant request
        waiting for its resolution triggered requests that enter the buffer only once it
        resolved, but that fired when the costs were paid. A trigger line written from
        then on records one of them: kept where the table wrote it, its id given to the
        request when it enters the buffer. False when ``line`` records none of them."""
        flow = self.flow
        waiting = flow.awaiting_instant
        if waiting is None or not waiting.cost_triggers:
            return False
        free = [k for k, spec in enumerate(waiting.cost_triggers)
                if spec.action == line.action and k not in waiting.announced
                and line.controller in (None, spec.controller)]
        if not free or line.request in flow.requests \
                or line.request in waiting.announced.values():
            return False
        k = next((k for k in free if waiting.cost_triggers[k].source == line.source), free[0])
        waiting.announced[k] = line.request
        flow.ledger.record(line)
        flow.ledger.agreed.add(line.seq)
        return True

    def _unexpected_chance_move(self, line: ChanceMoved) -> None:
        """[2], [13], [16]: the log moves the chance where no derived move goes."""
        flow = self.flow
        want = flow.ledger.expects(ChanceMoved)
        if want is None and line.to == flow.chance:
            flow.ledger.agreed.add(line.seq)
            return  # it records where the chance already is: the rules agree
        expected_to = want.fields["to"] if want is not None else flow.chance
        flow.report(
            "timing.chance-wrong-player", "core[2]",
            f"The log moves the chance to {line.to}; under the rules "
            + (f"it goes to {expected_to} here." if expected_to is not None
               else "nobody holds it here."),
            expected=expected_to, actual=line.to,
        )
        flow.ledger.forget(ChanceMoved)
        if line.to != chart.SYSTEM and line.to not in flow.players:
            flow.report("log.unknown-ref", "log", f"No player {line.to!r}.")
        else:
            flow.chance = line.to

    def _overrule_placement(self, d: Derived, line: Stage | Discard) -> None:
        """The log staged a triggered request the rules discard, or the other way round.

        [6-10-4]..[6-10-6]: reported, and the game follows the log (the request is on the
        stage, or gone).
        """
        flow = self.flow
        req = d.req
        assert req is not None
        flow.ledger.overrule(d, line)
        if isinstance(line, Stage):
            flow.report("order.main-trigger-not-discarded", "core[6-10-6]",
                        f"{req.action.name} has main timing and the stage was not empty: "
                        "it should have been discarded.", expected="discard", actual="stage")
            req.status = "stage"
            req.staged_in_log = True
            flow.stage.append(req)
            return
        flow.report("order.trigger-wrongly-discarded", "core[6-10-6]",
                    f"{req.action.name} should have been placed on the stage, not discarded: "
                    "the stage was empty or it has quick timing.",
                    expected="stage", actual="discard")
        if req in flow.stage:
            flow.stage.remove(req)
        req.status = "discarded"

    def _spurious_trigger(self, line: Trigger) -> None:
        """[6-1]: a trigger line the rules did not derive: reported, and it still happened
        (unless its controller is no player of the match: then it names nothing that can
        happen, ``log.unknown-ref``)."""
        flow = self.flow
        if line.controller is not None and line.controller not in flow.players:
            flow.report("log.unknown-ref", "log", f"No player {line.controller!r}.",
                        actual=line.controller)
            return
        action = flow.rules.action(line.action)
        name = f"{action.name} ({line.request})" if action is not None else repr(line.action)
        unseen = flow.rules.trigger_unseen(flow, line) if action is not None else None
        if unseen is not None:  # unknown is not wrong: a warning, and it happened
            flow.report("log.hidden-info", "core[6-1]",
                        f"The log triggers {name}; whether its condition held cannot be "
                        f"checked: {unseen}.", severity="warning", actual=line.action)
        else:
            flow.report("order.trigger-spurious", "core[6-1]",
                        f"The log triggers {name}, but no trigger condition of it held here.",
                        actual=line.action)
        if action is None or flow.ledger.claim(line.request) is not None:
            return
        req = Req(id=line.request, action=action,
                  controller=line.controller or (flow.turn_player or flow.players[0]),
                  seq=line.seq, triggered=True, source=line.source, status="buffer")
        flow.ledger.add(req)
        flow.buffer.append(req)

    # ------------------------------------------------------------------ made-up names
    def lookup(self, rid: str) -> Req | None:
        """The request a stage, discard or resolve line names.

        Such a line says nothing but the id. A sparse log names a triggered request it
        never wrote a trigger line for: the name binds the one request it can mean (the
        only provisional one waiting). Failing that, a provisional id is taken at its word
        (a complete log written with the judge's own ids, as the simulators write)."""
        flow = self.flow
        req = flow.requests.get(rid)
        if req is not None and not self._made_up_name_of_gone(req):
            return req
        count, only = flow.buffer.sole_provisional(flow)
        if count == 0:
            count, only = flow.stage.sole_provisional()
        if only is not None:
            flow.ledger.bind(only, rid)
            return only
        return req

    def _made_up_name_of_gone(self, req: Req) -> bool:
        """Whether ``req`` holds a name the judge made up (no line of the log ever named
        it) and is no longer waiting to resolve: a table that never played a triggered
        request never numbered it either, so the log's next ``tN`` may mean the request
        that waits now. Not where the game lets a dropped request resolve late (policy
        ``resolve_late_triggers``): there the name may mean the late one."""
        flow = self.flow
        return req.provisional and req.triggered and req.status in (
            "resolved", "fizzled", "negated", "discarded", "dropped") and not (
            req.status == "dropped" and flow.rules.policy.resolve_late_triggers)

    # ------------------------------------------------------------------ a step left out
    def miss_pending(self, why: str) -> None:
        """[6], [8]: the log went on as if the pending requests never happened."""
        flow = self.flow
        if flow.awaiting_instant is not None:
            req = flow.awaiting_instant
            flow.awaiting_instant = None
            flow.report("order.trigger-missed", "core[8]",
                        f"{req.action.name} ({req.id}) was never resolved; {why}.",
                        expected=f"resolve {req.id}")
            req.status = "dropped"
        while flow.buffer:
            cls = flow.buffer.first_class(flow)
            req = next(iter(cls))
            if req.action.speed == "normal":
                if len(cls) > 1:
                    flow.report("log.choice-missing", "core[6-10]",
                                "The order of the triggered requests is not recorded; "
                                "buffer order is assumed.", severity="warning")
                flow._place_normal_trigger(req, derived=True)
                continue
            flow.buffer.remove(req)
            self._missed_trigger(req, "core[6-3]", why)
        flow._continue()

    def _missed_trigger(self, req: Req, rule: str, why: str) -> None:
        """A triggered request the table never resolved: dropped, and reported once."""
        flow = self.flow
        req.status = "dropped"
        if req.provisional and not flow.rules.policy.resolve_late_triggers:
            # No line of the log named it, and the table never numbered it: the judge's
            # made-up id may be the name the table gives its next triggered request.
            what = (f"{req.action.name} of {req.controller}"
                    + (f", triggered by {req.source}," if req.source else ""))
            flow.report("order.trigger-missed", rule,
                        f"The triggered request {what} was never resolved; {why}.",
                        expected=f"resolve {req.action.name} of {req.controller}")
            return
        flow.report("order.trigger-missed", rule,
                    f"The triggered request {req.id} ({req.action.name}) was never resolved; "
                    f"{why}.", expected=f"resolve {req.id}")

    def take_back_missed(self, req: Req, seq: int) -> None:
        """The log resolves at line ``seq`` a triggered request reported missed and dropped
        (policy ``resolve_late_triggers``): it waits in the buffer again and resolves here,
        as played. Its finding said it was never resolved, which is no longer true: it is
        withdrawn when an earlier order finding already named the request as the one that
        should have gone first (one mistake, one finding), and otherwise restated as the
        game's order breach (play went on while it waited)."""
        flow = self.flow
        ids = {req.id, *req.former_ids}  # the findings may quote an id it had then
        wants = {f"resolve {i}" for i in ids}
        missed = next((f for f in reversed(flow.findings) if f.code == "order.trigger-missed"
                       and (f.expected in wants if isinstance(f.expected, str) else
                            any(p.expected in wants for p in f.parts))), None)
        req.status = "buffer"
        flow.buffer.append(req)
        if missed is None:
            return
        named = any(f is not missed and f.seq <= missed.seq and isinstance(f.expected, list)
                    and any(i in f.expected for i in ids) for f in flow.findings)
        if missed.parts:
            # It said so of several requests at one line: only this one's part goes.
            part = next(p for p in missed.parts if p.expected in wants)
            was = weight(missed)
            withdraw_part(missed, part)
            flow._earlier_breaks += weight(missed) - was
            if named:
                return
            at = flow.findings.index(missed) + 1
            missed = part
            flow.findings.insert(at, missed)
            flow._withdrawn -= 1  # a finding of an earlier line, not one this line raised
            flow._earlier_breaks += weight(missed)
        elif named:
            flow.findings.remove(missed)
            flow._withdrawn += 1
            flow._earlier_breaks -= weight(missed)
            return
        breach = flow.rules.trigger_order.breach(0)
        missed.code, missed.rule = breach.code, breach.rule
        missed.message = (f"The triggered request {req.id} ({req.action.name}) still waited "
                          "when play went on at this line; the log resolves it only later, "
                          f"at line {seq}: it is handled before play goes on.")
        missed.expected = f"resolve {req.id} first"
        missed.actual = f"resolved at line {seq}"

    def stage_is_only_unplayed_triggers(self) -> bool:
        """The stage holds only triggered requests the rules placed and nobody passed on."""
        flow = self.flow
        # From the top: where the answer is no, the top says so at once (a request the
        # table made on top of them), and where it is yes they are then dropped.
        return bool(flow.stage) and all(
            r.triggered and not r.staged_in_log and not r.passed_over
            for r in reversed(flow.stage)
        )

    def drop_unplayed_stage(self, why: str) -> None:
        """[6-10-5]: the table never played the triggered requests the rules staged; they
        are dropped, and [2] the turn player has the chance."""
        flow = self.flow
        for req in list(flow.stage):
            flow.stage.remove(req)
            self._missed_trigger(req, "core[6-10-5]", why)
            flow.ledger.omit_of(req, Stage)  # the table never staged it
        if flow.chance == flow.turn_player:
            flow.passed.clear()  # [2] without a chance move: the holder keeps it
        else:
            flow.give_chance_to_turn_player()

    def played_on_after_end(self, line: LogLine) -> None:
        """[9]: the rules ended the game and the log plays on (a decision line, not the
        end): ``order.win-check-missed`` on this line, and the judge rules on nothing more
        but the end the table records. The table never recorded the end: the complete log
        does not invent it either, so the log and its normalized form are ruled alike."""
        flow = self.flow
        ledger = flow.ledger
        ledger.take_as_done()
        ledger.omit_last(GameEnded)
        ledger.record(line)
        flow.report(
            "order.win-check-missed", "core[9]",
            f"The game was already over ({self._result_text()}); play went on.",
            expected="game_ended", actual=line.type,
        )
        flow.end_missed = True
        flow.stop_judging()

    def _result_text(self) -> str:
        r = self.flow.result
        if r is None:
            return "undecided"
        return f"{r.winner} wins by {r.reason}" if r.result == "win" else f"draw ({r.reason})"

    # ------------------------------------------------------------------ as played
    def repair(self, kind: str, seq: int, line: LogLine | None = None) -> bool:
        """Take the table as it played before line ``seq``, after a departure the lines
        that follow show (docs/decisions.md, "Root cause first"); False if ``kind`` does not
        fit the table now. One finding at ``seq`` says what the table did and what the
        rules wanted; the rest of the game is judged on the table as played.

        - ``skipped``: the triggered request on top of the stage, which the table never
          wrote a line for, was skipped: taken as resolved with no choices (a Block
          nobody declared), and what that resolution triggers follows. Players may have
          passed while the rules had it there: a pass does not say which request it
          passed on (the table passed on what it took to be there).
        - ``left``: the requests on the stage never resolved: the table went on as if
          they had left it (a request a Counter did not negate, believed negated). Only
          before what only an empty stage allows (``line``): a main-timing request, or
          the chance recorded going to the turn player.
        - ``missed``: the triggered requests above the one ``line`` resolves, which no
          line of the log ever named (no trigger, stage or resolve line), were never
          played: the table forgot them, and they are dropped (a trigger forgotten, not a
          stage resolved out of order).
        - ``turn``: the turn that just started was played by another player (``line``
          names them): the same player took two turns in a row. Only before anyone
          decided anything in the turn, with the stage empty, and where the game can make
          its turn start that player's (:meth:`~adjudicator.game.RulesHooks.hand_turn_over`).
        """
        flow = self.flow
        if flow.result is not None:
            return False
        if kind == "turn":
            return self._hand_turn_over(seq, line)
        if not flow.stage or flow.pending_decisions():
            return False
        if kind == "skipped":
            return self._skipped(seq)
        if kind == "missed":
            return self._missed(seq, line)
        if kind == "left":
            return self._left(seq, line)
        return False

    def _skipped(self, seq: int) -> bool:
        """The ``skipped`` repair of :meth:`repair`: the triggered request on top of the
        stage, which no line placed, is taken as resolved with nothing chosen."""
        flow = self.flow
        before = len(flow.findings)
        req = flow.stage[-1]
        if not req.triggered or req.staged_in_log:
            return False
        flow.stage.pop()
        flow.ledger.omit_of(req, Stage)  # the table never staged it
        flow.chance = chart.SYSTEM
        flow.continuations.append(chart.Continuation.STAGE_RESOLVED_TO_2)
        flow._resolve(req, Resolve(seq=seq, request=req.id, result="resolved"))
        flow.resolutions.pop(seq, None)
        flow.run_trigger_check()
        del flow.findings[before:]  # the resolution's own notes belong to the repair
        flow.report("order.trigger-missed", "core[6-10-5]",
                    f"The table never played {req.action.name} ({req.id}) of "
                    f"{req.controller}: it went on as if it resolved with nothing "
                    "chosen, and the game is judged so from here.", seq=seq,
                    expected=f"resolve {req.id}", actual="skipped")
        return True

    def _missed(self, seq: int, line: LogLine | None) -> bool:
        """The ``missed`` repair of :meth:`repair`: the triggered requests above the one
        ``line`` resolves, which no line named, are dropped."""
        flow = self.flow
        before = len(flow.findings)
        named = flow.requests.get(line.request) if isinstance(line, Resolve) else None
        if named is None or named not in flow.stage or flow.stage[-1] is named:
            return False
        above = flow.stage[flow.stage.index(named) + 1:]
        if not all(r.triggered and r.provisional and not r.staged_in_log for r in above):
            return False
        for req in above:
            flow.stage.remove(req)
            req.status = "dropped"
            # The table never played it: the complete log does not invent its trigger
            # or staging either, so the log and its normalized form are ruled alike.
            flow.ledger.omit_of(req, Trigger)
            flow.ledger.omit_of(req, Stage)
        del flow.findings[before:]
        names = ", ".join(f"{r.action.name} ({r.id}) of {r.controller}" for r in above)
        flow.report("order.trigger-missed", "core[6-1]",
                    f"The table never played {names}: no line names "
                    f"{'it' if len(above) == 1 else 'them'}, and {named.id} "
                    f"({named.action.name}), staged before, resolves here. The game is "
                    "judged without it from here.", seq=seq,
                    expected=f"resolve {above[-1].id}", actual="never played")
        return True

    def _left(self, seq: int, line: LogLine | None) -> bool:
        """The ``left`` repair of :meth:`repair`: the requests on the stage are taken as
        having left it, before ``line`` (what only an empty stage allows)."""
        flow = self.flow
        before = len(flow.findings)
        action = flow.rules.action(line.action) if isinstance(line, Request) else None
        to_turn_player = isinstance(line, ChanceMoved) and line.to == flow.turn_player
        if not to_turn_player and (action is None or action.timing != "main"):
            return False
        if action is not None and isinstance(line, Request) and \
                line.player == flow.turn_player and self.stage_is_only_unplayed_triggers():
            # [6-10-5]: triggered requests the rules staged and nobody played, under
            # the turn player's main-timing request, were missed (a Block nobody
            # declared, then End): the line's own order.trigger-missed says so.
            return False
        left = list(flow.stage)
        for req in left:
            flow.stage.remove(req)
            req.status = "dropped"
        flow.give_chance_to_turn_player()
        del flow.findings[before:]
        names = ", ".join(f"{r.id} ({r.action.name})" for r in left)
        one = len(left) == 1
        flow.report("order.request-never-resolved", "core[15]",
                    f"{names} never resolved: {'it was' if one else 'they were'} still "
                    f"on the stage, and the table went on as if {'it' if one else 'they'}"
                    f" had left it. Under the rules every player passes again and "
                    f"{left[-1].id} resolves before anything with main timing; the game "
                    "is judged as played from here.", seq=seq,
                    expected=f"resolve {left[-1].id}", actual="went on without it")
        return True

    def _hand_turn_over(self, seq: int, line: LogLine | None) -> bool:
        """The ``turn`` repair of :meth:`repair`: the turn under way is the table's player's.

        The player is the one ``line`` names (who starts the turn, requests, passes or
        controls a trigger; in a game of two, the other player when it names nobody). What
        the rules derived for the turn's start and the log has not yet written (its
        ``turn_started``, the chance move, the turn-start triggers) becomes that player's,
        where it stood."""
        flow = self.flow
        rightful = flow.turn_player
        who = _player_named(line)
        if who is None and len(flow.players) == 2:
            who = next(p for p in flow.players if p != rightful)
        if who is None or who == rightful or who not in flow.players or flow.stage \
                or flow.awaiting_instant is not None or not flow.turn_untouched:
            return False
        if isinstance(line, TurnStarted) and line.turn != flow.turn:
            return False
        handed = flow.rules.hand_turn_over(flow, who)
        if handed is None:
            return False
        flow.buffer.rerank()  # their controller may have changed
        again = flow.turn > 1 and flow.next_player(who) == rightful  # who had the last turn
        flow.turn_player = who
        if flow.chance == rightful:
            flow.chance = who
        flow.passed.clear()
        for d in flow.ledger.expected:
            f = d.fields
            if d.model is TurnStarted and f["player"] == rightful:
                f["player"] = who
            elif d.model is ChanceMoved and f["to"] == rightful:
                f["to"] = who
            elif d.model is Trigger and d.req in handed:
                f["controller"] = who
        flow.report("timing.turn-wrong-player", flow.cite("timing.turn-wrong-player", "core[2]"),
                    f"Turn {flow.turn} was {rightful}'s: {who} played it instead"
                    f"{' (a second turn in a row)' if again else ''}. Under the rules "
                    f"{rightful} had the turn from here; the game is judged with turn "
                    f"{flow.turn} as {who}'s.", seq=seq,
                    expected=f"turn {flow.turn} of {rightful}",
                    actual=f"turn {flow.turn} of {who}")
        return True

    def turn_taken_by(self, player: str) -> None:
        """The turn a resolution has just started is ``player``'s, as its recorded effects
        say (the table handed the turn to another player than the rules): what the rules
        derived for its start and the log has not written yet (the turn start, a chance
        move) becomes that player's. The game follows the table as played (the
        resolution's own finding says what the rules wanted)."""
        flow = self.flow
        rightful = flow.turn_player
        if player not in flow.players or player == rightful or not flow.turn_untouched:
            return
        flow.turn_player = player
        if flow.chance == rightful:
            flow.chance = player
        for d in flow.ledger.expected:
            f = d.fields
            if d.model is TurnStarted and f["player"] == rightful:
                f["player"] = player
            elif d.model is ChanceMoved and f["to"] == rightful:
                f["to"] = player
