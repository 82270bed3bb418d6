"""One wrong line, played on: the injected-mistake property of every game.

A table that breaks a rule once writes one wrong line, and then plays on with the game as
it was played: a wrong request still happened and its costs were paid, a resolution with
a wrong result changed the table as recorded, a chance given to the wrong player is held
by that player (docs/core-flow.md, "How the judge follows a game after a mistake"). The
judge must then report exactly one root error, at that line, with the code of the rule
it broke; whatever else it reports follows from it (``caused_by``) and is true of the
table as played.

This module knows no game. A game's simulator plays a seeded legal game through the
judge's own engine (:class:`~adjudicator.flow.CoreFlow`); a :class:`Table` wraps it. An
:class:`Injector` of the game looks at the table before each of the simulator's moves and,
where the moment allows its mistake, writes the wrong line (:class:`Wrong`); the driver
(:func:`play_with_mistake`) feeds it at a seeded moment and lets the simulator play on from
the table the engine then holds, which is the table as played. The simulator's later
lines must raise no error in that engine: the game played on is consistent.

:func:`problems` judges the complete log (:meth:`CoreFlow.complete_log`) from scratch and
says where it departs from the property: the roots, what the consequences point at, and
whether the board the judge rebuilds (:class:`~projections.board.BoardProjector`) at the
wrong line and at the end is the table that was played. Each game's ``mistakes`` module
lists its injectors and, for every error code none of them injects, why one wrong line
cannot raise it (docs/mistakes.md gathers the tables).
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from coreflow_judge.adjudicator.flow import CoreFlow, Derived, Req
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.simulation import Simulation, SimulationError, placement
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
    Trigger,
    TurnStarted,
)


class Table(Protocol):
    """A seeded simulator that plays on from whatever table its engine holds."""

    flow: CoreFlow

    def play_next(self) -> None:
        """Feed the simulator's next legal line(s) (a :class:`SimulationError` if the
        engine refuses one)."""

    def feed_wrong(self, wrong: Wrong) -> None:
        """Feed the lines of ``wrong`` (errors allowed on its wrong line), keeping the
        simulator's own bookkeeping (hidden cards) in step with the table."""

    def feed_right(self, lines: list[LogLine]) -> None:
        """Feed lines the simulator takes for legal (a :class:`SimulationError` if the
        engine refuses one)."""


class SimulatedTable:
    """A game's seeded simulator (:class:`~adjudicator.simulation.Simulation`) as a
    :class:`Table`: it plays on, and takes right lines, as its driver feeds them; a game
    says how its simulator takes the wrong line (``feed_wrong``)."""

    sim: Simulation[Any]
    flow: CoreFlow

    def play_next(self) -> None:
        self.sim.play_next()

    def feed_right(self, lines: list[LogLine]) -> None:
        for line in lines:
            self.sim._feed_item(self.sim._item(line))


@dataclass(slots=True)
class Wrong:
    """The line a table writes when it makes the mistake (the last of ``lines``; any
    before it are right lines the mistake comes with, such as the recorded end of a game
    before a line after it)."""

    lines: list[LogLine] = field(default_factory=list)
    detail: Any = None
    """What the simulator knows of the wrong line (its own bookkeeping: the cards it
    takes from a hand, ...), handed back to :meth:`Table.feed_wrong`."""
    renumber_from: bool = False
    """The wrong line's own ``seq`` is one too high and the table numbers on from it
    (``log.seq-gap``): the complete log keeps the gap."""
    belief: Callable[[], bool] | None = None
    """What the table believes that the rules do not say, taken into the engine before
    the lines (:meth:`CoreFlow.repair`: a request believed gone from the stage, a turn
    believed another player's); False if it does not fit. Without ``lines``, the wrong
    line is the one ``marks`` picks, or the first line of the log after the belief (a
    line the rules derive counts: the complete log writes it)."""
    marks: Callable[[object], bool] | None = None
    """Picks the wrong line among the complete log's entries (the latest that fits): a
    line the rules derived that the belief changed (the turn start of a turn believed
    another player's)."""
    since: int | None = None
    """Without ``lines`` nor ``marks``: the position in the complete log from which the
    lines could show the belief, where earlier than the belief itself (a request skipped
    could have been skipped as soon as it came)."""
    about: str | None = None
    """What the root finding must name (a belief's finding names the request or the
    player it is about: the Block skipped, not the Damage Judgement after it)."""
    item: object = None
    """The wrong line as it stands in the complete log (set when it is made)."""
    shows_from: int | None = None
    """A belief with no wrong line of its own: the position in the complete log from
    which the lines show it. The wrong line is then the first line from there that the
    rules, read without any repair, find in error: where the table's departure shows."""
    after: list[LogLine] = field(default_factory=list)
    """Right lines the mistake comes with after the wrong line (the resolution that
    follows a wrong die roll)."""
    reading: Callable[[list[LogLine], int], str | None] | None = None
    """Where the game as played cannot tell this mistake from another the same line
    makes: given the complete log and the wrong line's seq, the code the judge must give
    instead (None: the injector's own). Each use says which decision settles it."""


SetUp = Callable[[MatchStarted, GameStarted, random.Random],
                 "tuple[MatchStarted, GameStarted, str] | None"]
"""A set-up the table records wrongly: given the simulator's header and game start,
the two as recorded and the type of the wrong one (``match_started`` or
``game_started``); None where this game's set-up leaves no room for the mistake."""

Moment = Callable[[], Wrong]
"""Writes the wrong line at the moment it was found (it may draw on the simulator's
choices, which only the moment used may spend)."""
Make = Callable[[Table, random.Random], "Moment | None"]


@dataclass(frozen=True, slots=True)
class Injector:
    """One kind of wrong line, and the code it must raise."""

    code: str
    name: str
    make: Make
    """Where the table now allows the mistake, what writes the wrong line; else None.
    Finding the moment must not change the table (the driver may pass it by)."""
    at_end: bool = False
    """Made once the rules have decided the game (a wrong result, play going on)."""
    setup: SetUp | None = None
    """A wrong set-up instead (``make`` is not used): the game starts from it and plays
    on with the set-up as recorded."""
    probe: bool = False
    """The moment may or may not give this code (a miscount that is a partial effect or
    not): the wrong line is first fed to a copy of the table, and the moment is taken
    only where the copy raises that code and no other error."""


@dataclass(slots=True)
class Injected:
    """A game with one wrong line, played on."""

    code: str
    """The code the judge must give at the wrong line (the injector's, or the one the
    game as played leaves as its reading: :attr:`Wrong.reading`)."""
    name: str
    seed: int
    log: list[LogLine]
    seq: int
    """The wrong line's ``seq`` in ``log``."""
    at_wrong: dict[str, Any]
    """The table right after the wrong line, as the engine held it while playing (empty
    where the departure shows only at a later line: :attr:`Wrong.shows_from`)."""
    at_end: dict[str, Any]
    """The table at the end of the game."""
    play_error: str | None = None
    """What stopped the simulator after the wrong line (the engine refused a line the
    table as played allows), if anything."""
    earliest: int | None = None
    """Where the wrong line is the first line that shows a belief: the earliest line the
    root may stand at (the first line after the belief); ``seq`` is the latest (the first
    line that breaks a rule, read without repairs). A log can show a skipped request at
    any line between: the judge names the first where its reading fits."""
    board_seq: int | None = None
    """Where the board is compared with the table right after the wrong line, when not
    at the wrong line itself (a wrong header: at the game's start)."""
    about: str | None = None
    """What the root finding must name (:attr:`Wrong.about`)."""
    believed: bool = False
    """The mistake is a belief (:attr:`Wrong.belief`): where its line is one a shorter
    log leaves out (a turn start), the root stands at the first line there that shows it."""
    shows_later: int = 0
    """Where the wrong line is the first line that shows a belief
    (:attr:`Wrong.shows_from`): the seq of the first line after the belief."""
    reread: bool = False
    """The game as played leaves the judge another reading of the wrong line
    (:attr:`Wrong.reading`): its board is that reading's table, not the one played."""


def table_view(flow: CoreFlow) -> dict[str, Any]:
    """What a board shows of the table (:func:`projections.board.snapshot`), less the
    line number and the findings: the same table read twice compares equal."""
    from coreflow_judge.projections.board import snapshot

    board = snapshot(flow)
    for key in ("seq", "findings"):
        board.pop(key, None)
    return board


MOMENTS = 4
"""The wrong line is written at one of the first this many moments a game offers."""


NewTable = Callable[[Callable[[MatchStarted, GameStarted],
                              tuple[MatchStarted, GameStarted]] | None], Table]
"""A fresh seeded simulator of one game, with its set-up changed by the function given
(or as it plays it, given None)."""


def play_with_mistake(new_table: NewTable, injector: Injector, seed: int, max_lines: int
                      ) -> Injected | None:
    """Play the game of ``new_table``, writing ``injector``'s wrong line at a seeded moment
    (one of the first few the game offers), and play on; None if the game never offered
    one. Looking for moments does not change the game, so a first game counts them and a
    second, the same up to there, makes the mistake. A wrong set-up is the first line."""
    rng = random.Random(seed)
    if injector.setup is not None:
        return _set_up_wrongly(new_table, injector, seed, max_lines)
    offered = 1 if injector.at_end else \
        _play(new_table(None), injector, random.Random(seed), max_lines, None)
    if not offered:
        return None  # (the end comes once: no need to count)
    made: Injected | None = _play(new_table(None), injector, rng, max_lines,
                                  rng.randrange(min(offered, MOMENTS)))
    if made is not None:
        made.seed = seed
    return made


def _play(table: Table, injector: Injector, rng: random.Random, max_lines: int,
          wait: int | None) -> Any:
    """One game: with ``wait`` None, the moments it offers are counted (up to
    :data:`MOMENTS`) and their number returned; else the mistake is made at moment
    ``wait`` and the :class:`Injected` returned."""
    flow = table.flow
    offered = 0
    wrong: Wrong | None = None
    at_wrong: dict[str, Any] = {}
    play_error: str | None = None
    try:
        while True:
            over = flow.result is not None
            if wrong is None and not flow.silenced and flow.recorded_end is None and \
                    over == injector.at_end:
                state = rng.getstate()
                moment = injector.make(table, rng)
                if moment is not None and injector.probe and \
                        not _raises(table, injector, state):
                    moment = None
                if moment is not None:
                    if wait is None:
                        offered += 1
                        if offered == MOMENTS:
                            return offered
                    elif offered == wait:
                        wrong = moment()
                        wrong.item = _make(table, wrong)
                        # Where the departure only shows later, the table there is not
                        # known yet: only the end is compared.
                        at_wrong = table_view(flow) if wrong.shows_from is None else {}
                        table.feed_right(wrong.after)
                        continue
                    else:
                        offered += 1
            if over or flow.silenced or flow.recorded_end is not None or \
                    len(flow.complete) >= max_lines:
                break
            table.play_next()
    except SimulationError as exc:
        if wrong is None:
            raise
        play_error = str(exc)
    if wrong is None:
        return offered if wait is None else None
    flow.finish()
    log, seq = _complete_with(flow, wrong)
    reread = wrong.reading(log, seq) if wrong.reading is not None else None
    return Injected(reread or injector.code, injector.name, 0, log, seq, at_wrong,
                    table_view(flow), play_error, reread=reread is not None,
                    shows_later=wrong.shows_from or 0, earliest=wrong.shows_from,
                    about=wrong.about, believed=wrong.belief is not None)


def _set_up_wrongly(new_table: NewTable, injector: Injector, seed: int, max_lines: int
                    ) -> Injected | None:
    """A game whose set-up the table recorded wrongly (``injector.setup``), played on."""
    assert injector.setup is not None
    setup = injector.setup
    rng = random.Random(seed)
    wrong: list[str] = []

    def change(header: MatchStarted, start: GameStarted) -> tuple[MatchStarted, GameStarted]:
        made = setup(header, start, rng)
        if made is None:
            return header, start
        wrong.append(made[2])
        return made[0], made[1]

    table = new_table(change)
    if not wrong:
        return None
    flow = table.flow
    line = next(item for item in flow.complete if getattr(item, "type", None) == wrong[0])
    at_wrong = table_view(flow)
    play_error: str | None = None
    try:
        while flow.result is None and not flow.silenced and len(flow.complete) < max_lines:
            table.play_next()
    except SimulationError as exc:
        play_error = str(exc)
    flow.finish()
    assert isinstance(line, MatchStarted | GameStarted)
    log, seq = _complete_with(flow, Wrong([line]))
    started = next(ln.seq for ln in log if ln.type == "game_started")
    return Injected(injector.code, injector.name, seed, log, seq, at_wrong, table_view(flow),
                    play_error, board_seq=started)


def _raises(table: Table, injector: Injector, state: Any) -> bool:
    """Whether the injector's wrong line, written on a copy of ``table`` (the same choices:
    the injector's random state ``state``, the simulator's own copied), raises its code."""
    trial = copy.deepcopy(table)
    rng = random.Random()
    rng.setstate(state)
    moment = injector.make(trial, rng)
    if moment is None:
        return False
    before = len(trial.flow.findings)
    try:
        _make(trial, moment())
    except SimulationError:
        return False
    return [f.code for f in trial.flow.findings[before:] if f.severity == "error"] == \
        [injector.code]


def _make(table: Table, wrong: Wrong) -> object:
    """Make the mistake on ``table``: the table's belief taken into the engine, then its
    wrong line fed (or, without one, found: the line the belief changed, or the first
    line of the log after the belief). Returns the wrong line as it stands in the
    complete log."""
    flow = table.flow
    start = len(flow.complete)
    if wrong.belief is not None and not wrong.belief():
        raise SimulationError("the table's belief does not fit the table")
    if wrong.lines:
        table.feed_wrong(wrong)
        return wrong.lines[-1]
    marks = wrong.marks
    if marks is None:
        wrong.shows_from = wrong.since if wrong.since is not None else start
        return None
    found = next((item for item in reversed(flow.complete) if marks(item)), None)
    if found is not None:
        return found
    while True:
        found = next((item for item in flow.complete[start:] if marks(item)), None)
        if found is not None:
            return found
        if flow.result is not None:
            raise SimulationError("the game ended before the table wrote the line")
        table.play_next()


def _complete_with(flow: CoreFlow, wrong: Wrong) -> tuple[list[LogLine], int]:
    """The complete log and the seq of the wrong line in it."""
    line: object = wrong.item if wrong.item is not None else \
        (wrong.lines[-1] if wrong.lines else None)
    kept = 0
    seq = 0
    for i, item in enumerate(flow.complete):
        if getattr(item, "omitted", False):
            continue
        kept += 1
        if item is line or (line is None and seq == 0 and i >= (wrong.shows_from or 0)):
            seq = kept
    log = flow.complete_log()
    if line is None and seq:
        wrong.shows_from = seq
        seq = _first_error_from(log, seq)
    if seq == 0:
        raise SimulationError(f"the wrong line {line!r} is not in the complete log")
    if wrong.renumber_from:
        log = [ln if ln.seq < seq else ln.model_copy(update={"seq": ln.seq + 1})
               for ln in log]
        seq += 1
    return log, seq


def _first_error_from(log: list[LogLine], seq: int) -> int:
    """The first line from ``seq`` on that breaks a rule, the log read without any repair
    (0 if none does)."""
    from coreflow_judge.adjudicator.judge import replay

    pairs: list[tuple[int, LogLine | Any]] = list(enumerate(log, start=1))
    run = replay(pairs, set(), {})
    return min((log[i].seq for i in run.erring if log[i].seq >= seq), default=0)


SPARSE: dict[str, tuple[str, ...]] = {
    "no turn starts": ("turn_started", "chance_moved"),
    "decisions only": ("turn_started", "chance_moved", "trigger", "stage"),
}
"""Lines a table may leave out (the rules derive them), by the name of the form."""


def sparse(injected: Injected, form: str) -> Injected | None:
    """The same game written with fewer lines (:data:`SPARSE`): the wrong line keeps its
    place, renumbered; None where the form leaves out the wrong line itself, or where the
    departure shows only later (the rules derive the line it showed at)."""
    left_out = SPARSE[form]
    wrong = injected.log[injected.seq - 1]
    if any(ln.seq != i for i, ln in enumerate(injected.log, start=1)):
        return None  # the seq gap is the mistake: renumbering would take it away
    kept = [ln for ln in injected.log if ln.type not in left_out]
    log = [ln.model_copy(update={"seq": i}) for i, ln in enumerate(kept, start=1)]
    since = injected.shows_later or (injected.seq if injected.believed and
                                     wrong.type in left_out else 0)
    if since:  # the first line from the belief on that breaks a rule
        first = next((i for i, ln in enumerate(kept, start=1) if ln.seq >= since), 0)
        seq = _first_error_from(log, first) if first else 0
        if not seq:
            return None
        return dataclasses.replace(injected, log=log, seq=seq, earliest=first, at_wrong={},
                                   at_end={}, board_seq=None)
    elif wrong.type in left_out:
        return None
    else:
        seq = kept.index(wrong) + 1
    started = next((ln.seq for ln in log if ln.type == "game_started"), None)
    return dataclasses.replace(injected, log=log, seq=seq, at_wrong={}, at_end={},
                               board_seq=started if injected.board_seq else None)


def problems(injected: Injected) -> list[str]:
    """Where the judge's ruling on ``injected`` departs from the property: exactly one
    root error, the injected code at the wrong line; every other error caused by it; the
    board at the wrong line and at the end the table that was played. Empty when none."""
    from coreflow_judge.projections.board import BoardProjector

    out: list[str] = []
    if injected.play_error is not None:
        out.append(f"play on: {injected.play_error}")
    report = judge_lines(enumerate(injected.log, start=1))
    errors = [f for f in report.findings if f.severity == "error"]
    roots = [f for f in errors if f.caused_by is None]
    want = (injected.seq, injected.code)
    lo = injected.earliest or injected.seq
    if len(roots) == 1 and roots[0].code == injected.code and lo <= roots[0].seq <= want[0]:
        want = (roots[0].seq, injected.code)  # where the departure first shows
    if [(f.seq, f.code) for f in roots] != [want]:
        out.append(f"roots {[(f.seq, f.code, f.message) for f in roots]}, expected {want}"
                   + (f" (or from line {lo})" if lo < want[0] else ""))
    out += [f"consequence ({f.seq}, {f.code}) caused by {f.caused_by}, not {want}"
            for f in errors if f.caused_by is not None and f.caused_by != want]
    if injected.about is not None and roots and injected.about not in roots[0].message:
        out.append(f"the root does not name {injected.about}: {roots[0].message}")
    if out or injected.reread:
        return out
    board = BoardProjector.from_lines(injected.log)
    at = injected.board_seq or injected.seq
    for name, seq, played in (("the wrong line", at, injected.at_wrong),
                              ("the end", None, injected.at_end)):
        if not played:
            continue
        seen = table_view(board.flow_at(seq))
        if seen != played:
            diff = sorted(k for k in set(seen) | set(played) if seen.get(k) != played.get(k))
            out.append(f"the board at {name} is not the table as played: {diff} "
                       f"(judge {[seen.get(k) for k in diff]}, played "
                       f"{[played.get(k) for k in diff]})")
    return out


# ---------------------------------------------------------------------------- every game's
# Wrong lines that read nothing but the core flow: every game's table can write them.

def holder(flow: CoreFlow) -> str | None:
    """The player holding the chance with nothing pending (a decision is theirs)."""
    if flow.result is not None or flow.pending_decisions() or flow.chance not in flow.players:
        return None
    return flow.chance


def other(flow: CoreFlow, player: str) -> str:
    """The other player of a two-player game."""
    return next(p for p in flow.players if p != player)


def one(line: LogLine) -> Moment:
    """A moment that writes ``line`` and nothing else."""
    return lambda: Wrong([line])


def _reused_id(t: Table, rng: random.Random) -> Moment | None:
    """A request under an id the match already used (``log.malformed``: it does not
    happen)."""
    flow = t.flow
    h = holder(flow)
    used = [r for r in flow.requests.values() if not r.provisional]
    if h is None or not used:
        return None
    again = rng.choice(used)
    return one(Request(seq=flow.next_seq, request=again.id, player=h, action=again.action.id))


def _numbered_one_too_high(t: Table, rng: random.Random) -> Moment | None:
    """The chance recorded where it already is, the line numbered one too high
    (``log.seq-gap``); the table numbers on from it."""
    flow = t.flow
    h = holder(flow)
    if h is None:
        return None
    line = ChanceMoved(seq=flow.next_seq + 1, to=h)
    return lambda: Wrong([line], renumber_from=True)


def _resolved_again(t: Table, rng: random.Random) -> Moment | None:
    """The resolution of a request that already resolved, written again
    (``log.unknown-ref``: nothing waits under that id)."""
    flow = t.flow
    done = [r.id for r in flow.requests.values() if r.status == "resolved"
            and not r.provisional]
    if holder(flow) is None or not done:
        return None
    return one(Resolve(seq=flow.next_seq, request=rng.choice(done), result="resolved"))


def _line_after_end(t: Table, rng: random.Random) -> Moment | None:
    """The end the rules gave, recorded, then one more line (``log.after-game-end``)."""
    flow = t.flow
    r = flow.result
    if r is None or flow.turn_player is None:
        return None
    end = GameEnded(seq=flow.next_seq, result=r.result, winner=r.winner, reason=r.reason)
    more = Pass(seq=flow.next_seq + 1, player=flow.turn_player)
    return lambda: Wrong([end, more])


def _play_after_end(t: Table, rng: random.Random) -> Moment | None:
    """The rules ended the game; the table passes on (``order.win-check-missed``)."""
    flow = t.flow
    if flow.result is None or flow.turn_player is None:
        return None
    return one(Pass(seq=flow.next_seq, player=flow.turn_player))


def _other_result(t: Table, rng: random.Random) -> Moment | None:
    """The table records another result than the rules' (``legality.result-mismatch``):
    the other winner, or a win where the rules give a draw."""
    flow = t.flow
    r = flow.result
    if r is None or flow.turn_player is None:
        return None
    winner = other(flow, r.winner) if r.result == "win" and r.winner else flow.turn_player
    return one(GameEnded(seq=flow.next_seq, result="win", winner=winner, reason=r.reason))


def _pass_without_chance(t: Table, rng: random.Random) -> Moment | None:
    """The player without the chance passes (``timing.no-chance``: it changes nothing)."""
    flow = t.flow
    h = holder(flow)
    return None if h is None else one(Pass(seq=flow.next_seq, player=other(flow, h)))


def _chance_elsewhere(t: Table, rng: random.Random) -> Moment | None:
    """The log moves the chance to the player the rules do not give it to
    (``timing.chance-wrong-player``); that player holds it from here."""
    flow = t.flow
    h = holder(flow)
    return None if h is None else one(ChanceMoved(seq=flow.next_seq, to=other(flow, h)))


def unknown_action(*foreign: str) -> Make:
    """A request of an action the match's rules do not have (``legality.unknown-action``:
    it does not enter the game): one of ``foreign`` (another format's, another game's)."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        h = holder(flow)
        names = [a for a in foreign if flow.rules.action(a) is None]
        if h is None or not names:
            return None
        return one(Request(seq=flow.next_seq, request=f"w{flow.next_seq}", player=h,
                           action=rng.choice(names)))
    return make


def _last_resolved(flow: CoreFlow) -> str | None:
    done = [r.id for r in flow.requests.values() if r.status == "resolved"
            and not r.provisional]
    return done[-1] if done else None


def spurious(action: str, source: Callable[[CoreFlow], str | None] = _last_resolved
             ) -> Make:
    """A triggered ``action`` recorded where nothing triggers it
    (``order.trigger-spurious``); it enters the buffer and is played as the table plays
    it. Its source is what ``source`` names (by default the last request that resolved)."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        if holder(flow) is None or flow.turn_player is None or any(
                d.model is Trigger for d in flow.ledger.expected):
            return None  # a trigger the rules just derived would be this line's match
        if any(r.provisional and r.action.id == action and r.status in ("buffer", "stage")
               for r in flow.requests.values()):
            return None  # a trigger line written late for that request (core-flow.md [6])
        named = source(flow)
        if named is None:
            return None
        return one(Trigger(seq=flow.next_seq, request=f"w{flow.next_seq}", action=action,
                           source=named, controller=flow.turn_player))
    return make


def out_of_order(code: str, resolution: Callable[[Table, Req], Wrong]) -> Make:
    """A triggered request handled while one the trigger order puts first waits in the
    buffer, where the order it breaks is ``code``'s: an instant one resolves
    (``resolution`` writes the line), a normal one is placed."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        if flow.result is not None or flow.awaiting_instant is not None or not flow.buffer:
            return None
        first = flow.trigger_class()
        order = flow.rules.trigger_order
        for req in flow.buffer:
            if req in first:
                continue
            mine, low = order.rank(flow, req), order.rank(flow, first[0])
            component = next(i for i, (a, b) in enumerate(zip(mine, low, strict=True))
                             if a != b)
            if order.breach(component).code != code:
                continue
            if req.action.speed == "instant":
                return lambda req=req: resolution(t, req)  # type: ignore[misc]
            return one(placement(flow, req))
        return None
    return make


def placed_otherwise(model: type[Stage] | type[Discard]) -> Make:
    """The rules placed a triggered request (staged it; or discarded it, a main-timing one
    over a non-empty stage); the log places it the other way
    (``order.trigger-wrongly-discarded``, ``order.main-trigger-not-discarded``). A
    triggered instant the log discards (the rules resolve it) counts as placed on the
    stage."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        if flow.result is not None:
            return None
        if model is Discard and flow.awaiting_instant is None and flow.buffer:
            first = flow.trigger_class()
            if first[0].action.speed == "instant":
                return one(Discard(seq=flow.next_seq, request=first[0].id,
                                   reason="table's choice"))
        if flow.pending_decisions():
            return None
        derived = Discard if model is Stage else Stage
        for d in flow.ledger.expected:
            if d.model is derived and d.req is not None and not d.req.passed_over:
                rid = d.req.id
                return one(Stage(seq=flow.next_seq, request=rid) if model is Stage
                           else Discard(seq=flow.next_seq, request=rid,
                                        reason="table's choice"))
        return None
    return make


def _turn_believed(t: Table, rng: random.Random) -> Moment | None:
    """A turn has just started; the player who ended the last one plays it
    (``timing.turn-wrong-player``): the turn start the rules derived is that player's, as
    the table writes it, and the game goes on with the turns alternating from there."""
    flow = t.flow
    if flow.result is not None or not flow.turn_untouched or flow.stage or \
            flow.awaiting_instant is not None or flow.turn < 2 or flow.turn_player is None:
        return None
    again, turn = other(flow, flow.turn_player), flow.turn

    def belief() -> bool:
        start = TurnStarted(seq=flow.next_seq, player=again, turn=turn)
        return flow.repair("turn", flow.next_seq, start)

    def marks(item: object) -> bool:
        return isinstance(item, Derived) and item.model is TurnStarted and \
            item.fields.get("turn") == turn
    return lambda: Wrong(belief=belief, marks=marks, about=f"{again} played it")


def skipped(*keep: str) -> Make:
    """A triggered request the rules staged (a Block, a Damage Judgement) is never played:
    no line stages or names it, and the table goes on as if it resolved with nothing
    chosen (``order.trigger-missed``, the ``skipped`` reading): the wrong line is the next
    one the table writes. Not the actions of ``keep`` (a Draw, whose cards the
    simulator's hidden hands need)."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        if flow.result is not None or not flow.stage or flow.pending_decisions() or \
                flow.chance != flow.turn_player:
            return None
        top = flow.stage[-1]
        if not top.triggered or top.passed_over or top.staged_in_log or \
                top.action.id in keep:
            return None
        came = next((i + 1 for i, item in enumerate(flow.complete)
                     if isinstance(item, Derived) and item.req is top), None)
        return lambda: Wrong(belief=lambda: flow.repair("skipped", flow.next_seq), since=came,
                             about=top.action.name)
    return make


def forgotten(*keep: str) -> Make:
    """A triggered request the rules staged above another request (充足 or 幻影 above an
    End) is forgotten: no line names it, not even its trigger; the table passes and
    resolves the request under it (``order.trigger-missed`` at that resolution, the
    ``missed`` reading). Not the actions of ``keep``."""
    def make(t: Table, rng: random.Random) -> Moment | None:
        flow = t.flow
        if flow.result is not None or len(flow.stage) < 2 or flow.pending_decisions() or \
                flow.passed or flow.chance not in flow.players:
            return None
        top, under = flow.stage[-1], flow.stage[-2]
        if not top.triggered or top.passed_over or top.action.id in keep:
            return None

        def belief() -> bool:
            top.staged_in_log = False
            top.provisional = True
            flow.ledger.omit_of(top, Trigger)  # no line names it
            return flow.repair("missed", flow.next_seq, Resolve(
                seq=flow.next_seq, request=under.id, result="resolved"))

        def marks(item: object) -> bool:
            return isinstance(item, Resolve) and item.request == under.id
        return lambda: Wrong(belief=belief, marks=marks, about=top.action.name)
    return make


def common(resolution: Callable[[Table, Req], Wrong], foreign: tuple[str, ...],
           trigger: str | None, orders: tuple[str, ...] = (),
           stage_placement: bool = False, turns: bool = True) -> tuple[Injector, ...]:
    """The injectors every game's table can use: ``resolution`` writes the simulator's
    resolution of a request, ``foreign`` are action ids the game does not have,
    ``trigger`` an action the rules trigger (a spurious one is recorded), ``orders`` the
    trigger-order codes a buffer of the game's simulated games can breach,
    ``stage_placement`` whether a main-timing trigger can meet a non-empty stage in
    them, ``turns`` whether a turn can be handed to the wrong player
    (:meth:`~adjudicator.game.RulesHooks.hand_turn_over`)."""
    out = [
        Injector("log.malformed", "reused-id", _reused_id),
        Injector("log.seq-gap", "numbered-one-too-high", _numbered_one_too_high),
        Injector("log.unknown-ref", "resolved-again", _resolved_again),
        Injector("log.after-game-end", "line-after-end", _line_after_end, at_end=True),
        Injector("order.win-check-missed", "play-after-end", _play_after_end, at_end=True),
        Injector("legality.result-mismatch", "other-result", _other_result, at_end=True),
        Injector("timing.no-chance", "pass-without-chance", _pass_without_chance),
        Injector("timing.chance-wrong-player", "chance-elsewhere", _chance_elsewhere),
        Injector("legality.unknown-action", "foreign-action", unknown_action(*foreign)),
        Injector("order.trigger-wrongly-discarded", "discarded", placed_otherwise(Discard)),
    ]
    if stage_placement:
        out.append(Injector("order.main-trigger-not-discarded", "staged",
                            placed_otherwise(Stage)))
    out += [Injector(code, f"out-of-order-{code.rsplit('.', 1)[1]}",
                     out_of_order(code, resolution)) for code in orders]
    if trigger is not None:
        out.append(Injector("order.trigger-spurious", f"spurious-{trigger}",
                            spurious(trigger)))
    if turns:
        out.append(Injector("timing.turn-wrong-player", "turn-believed", _turn_believed))
    return tuple(out)
