"""Natural mistakes, played on: seeded BlackPoker games in which the table believes one
thing the rules do not say and goes on consistently with it.

A table that makes a mistake rarely records it as a mistake: it goes on as if what it
believed were true. :func:`mistaken_game` plays a seeded random legal game with the
simulator and, at a random moment, makes the table believe something the rules do not say,
then lets it play on consistently with that belief (the simulator's own table is taken as
played, through the judge's repairs, :meth:`CoreFlow.repair`, exactly as a table would go
on). The kinds (:data:`NATURAL_MISTAKES`):

- ``left``: a request stays on the stage after another one resolved (a Counter that did
  not negate, believed to) and the table goes on as if it had left the stage;
- ``skipped``: a triggered request the rules staged (a Block, a Damage Judgement; not a
  Draw, whose cards the simulator's hidden hands need) is never played:
  no line names it and play goes on as if it resolved with nothing chosen;
- ``forgot``: a triggered request the rules staged above another request (充足 or 幻影
  above an End, in the extra trumps) is forgotten: no line names it, the table passes and
  resolves the request under it, and goes on without it;
- ``turn``: the wrong player takes a turn: after an End, the player who ended the turn
  plays the next one too, and the turns go on alternating from there.

The judge should report each such game with exactly one error finding, at the line where
the table departed (docs/decisions.md, "Root cause first"): tests/test_root_cause.py
checks it, and scripts/mistake_counts.py measures it.
"""

from __future__ import annotations

import random

from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.simulate import _Simulator
from coreflow_judge.events.models import LogLine, Request, Resolve, TurnStarted

NATURAL_MISTAKES = {"left": "order.request-never-resolved", "skipped": "order.trigger-missed",
                    "forgot": "order.trigger-missed", "turn": "timing.turn-wrong-player"}
"""Each kind of natural mistake, and the one finding the judge should give it."""




def _believe(flow: CoreFlow, kind: str, last: LogLine | None) -> str | None:
    """Make the table believe something the rules do not say, if the moment allows;
    the id of the request it went on without (for ``turn``: the player who took the
    turn)."""
    if kind == "turn":
        if not flow.turn_untouched or flow.stage or flow.awaiting_instant is not None or \
                flow.turn < 2 or flow.turn_player is None:
            return None
        again = next(p for p in flow.players if p != flow.turn_player)
        line = TurnStarted(seq=flow.next_seq, player=again, turn=flow.turn)
        return again if flow.repair("turn", flow.next_seq, line) else None
    if kind == "forgot":  # whoever holds the chance: nobody names the request
        if not _forgettable(flow):
            return None
        top = flow.stage[-1]
        top.staged_in_log = False  # the table writes no line for it
        top.provisional = True
        under = Resolve(seq=flow.next_seq, request=flow.stage[-2].id, result="resolved")
        return top.id if flow.repair("missed", flow.next_seq, under) else None
    if not flow.stage or flow.pending_decisions() or flow.chance != flow.turn_player:
        return None
    top = flow.stage[-1]
    if kind == "left" and isinstance(last, Resolve) and not flow.passed:
        # The table goes on with a main-timing request (End here stands for any): what
        # only an empty stage allows.
        probe = Request(seq=flow.next_seq, request="?", player=flow.turn_player or "",
                        action="end")
        return top.id if flow.repair("left", flow.next_seq, probe) else None
    if kind == "skipped" and top.triggered and not top.passed_over and \
            top.action.id != "draw":  # the simulator cannot keep its hidden cards without it
        top.staged_in_log = False  # the table writes no line for it
        return top.id if flow.repair("skipped", flow.next_seq) else None
    return None


def _forgettable(flow: CoreFlow) -> bool:
    """A triggered request (not a Draw) on top of the stage, above another request, no
    player has passed on yet, and nothing else pending."""
    return len(flow.stage) >= 2 and not flow.pending_decisions() and not flow.passed and \
        flow.stage[-1].triggered and not flow.stage[-1].passed_over and \
        flow.stage[-1].action.id != "draw" and flow.chance not in (None, SYSTEM)


def _an_opportunity(flow: CoreFlow, kind: str, last: LogLine | None) -> bool:
    """A moment where the mistake of ``kind`` could be made (counted to vary it)."""
    if kind == "turn":
        return flow.turn_untouched and flow.turn >= 2
    if kind == "forgot":
        return _forgettable(flow)
    return bool(flow.stage) and not flow.pending_decisions() and \
        flow.chance == flow.turn_player and (kind == "skipped" or isinstance(last, Resolve))


def mistaken_game(kind: str, edition: str, seed: int, fmt: str = "lite",
                  frame: str | None = None) -> tuple[str | None, list[LogLine]]:
    """A seeded game (of ``fmt``, in ``frame`` for 9.0) with one natural mistake of
    ``kind`` at a random moment (or none, if the game never gave the chance): the id of the
    request it concerns, and the log."""
    sim = _Simulator(edition, seed, fmt, 3000, f"mistake-{kind}-{seed}", frame)
    flow = sim.flow
    wait = random.Random(seed).randint(0, 3)  # which opportunity: not always the first
    about: str | None = None
    last: LogLine | None = None
    while flow.result is None and len(flow.complete) < 3000:
        if about is None:
            chance = _believe(flow, kind, last) if wait == 0 else None
            if chance is None and _an_opportunity(flow, kind, last):
                wait = max(0, wait - 1)
            about = chance
        feed = sim._next()
        last = feed.line
        sim._feed(feed)
    flow.finish()
    log = flow.complete_log()
    if kind == "skipped" and about is not None:  # the table never wrote its staging
        log = [ln for ln in log if not (ln.type == "stage" and getattr(ln, "request", None)
                                        == about)]
        log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(log, start=1)]
    if kind == "forgot" and about is not None:  # no line names it: not its trigger either
        log = [ln for ln in log if getattr(ln, "request", None) != about]
        log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(log, start=1)]
    return about, log
