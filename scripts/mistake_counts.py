"""How many error findings one mistake costs: measured on simulated BlackPoker games.

Usage: python scripts/mistake_counts.py [GAMES_PER_EDITION] [INJECTIONS_PER_GAME]

Two families of mistakes, in 6.1 and 9.0 lite games the simulator plays:

- **natural** (:mod:`adjudicator.games.blackpoker.mistakes`): the table believes one thing
  the rules do not say and plays on consistently with it (``left``, ``skipped``,
  ``turn``; ``forgot``, a trigger forgotten, in 9.0 master+extra games);
- **injected** into a legal game's log of decisions (the lines the rules derive left
  out), the table's later lines unchanged: a pass dropped before a resolution
  (``drop_pass``), the pass that handed the chance over dropped (``no_chance``), an End
  requested while the stage holds a request (``main_stage``).

For each kind it prints the mistakes made, the error findings per mistake, the roots per
mistake (errors that follow from no other, ``caused_by``), and how many mistakes gave
exactly one error and exactly one root. Printed, never asserted: the tests
(tests/test_root_cause.py) assert what must hold.
"""

from __future__ import annotations

import random
import sys
from collections import defaultdict

from coreflow_judge.adjudicator.flow import SYSTEM, CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.mistakes import (
    NATURAL_MISTAKES,
    mistaken_game,
)
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import judge_lines, start_flow
from coreflow_judge.events.models import LogLine, Pass, Request, Resolve

EDITIONS = ("6.1", "9.0")
WHERE: dict[str, tuple[str, str, str | None]] = {"forgot": ("9.0", "master", "extra")}
"""Where a natural mistake is made when not in lite games (edition, format, frame): a
forgotten trigger above another request needs the 9.0 extra frame's End triggers."""
DERIVED = ("chance_moved", "turn_started", "game_ended", "discard")


def decisions(log: list[LogLine]) -> list[LogLine]:
    """The log without the lines the rules derive (chance moves, turn starts, discards,
    the game end), renumbered."""
    return renumber([ln for ln in log if ln.type not in DERIVED])


def renumber(lines: list[LogLine]) -> list[LogLine]:
    return [ln.model_copy(update={"seq": i, "hash": None}) for i, ln in enumerate(lines, 1)]


def counts(lines: list[LogLine]) -> tuple[int, int]:
    """Error findings, and those of them that follow from no other."""
    report = judge_lines(enumerate(renumber(lines), start=1))
    errors = [f for f in report.findings if f.severity == "error"]
    return len(errors), sum(1 for f in errors if f.caused_by is None)


def injection_sites(lines: list[LogLine]) -> dict[str, list[int]]:
    """Where each injected mistake can be made: positions in ``lines``."""
    sites: dict[str, list[int]] = defaultdict(list)
    flow: CoreFlow = start_flow(lines[0])
    for i, line in enumerate(lines[1:], start=1):
        prev = lines[i - 1]
        if isinstance(line, Resolve) and flow.chance == SYSTEM and flow.stage and \
                flow.stage[-1].id == line.request and isinstance(prev, Pass):
            sites["drop_pass"].append(i)
        if isinstance(line, Request) and isinstance(prev, Pass) and prev.player != line.player:
            sites["no_chance"].append(i)
        if not (flow.buffer or flow.awaiting_instant) and flow.chance == flow.turn_player \
                and flow.result is None and any(not r.triggered for r in flow.stage):
            sites["main_stage"].append(i)
        flow.feed(line)
    return sites


def injected(lines: list[LogLine], kind: str, at: int) -> list[LogLine]:
    """``lines`` with the mistake ``kind`` made at position ``at``."""
    out = list(lines)
    if kind == "main_stage":
        flow = start_flow(lines[0])
        for line in lines[1:at]:
            flow.feed(line)
        out.insert(at, Request(seq=1, request="injected-end", player=flow.turn_player or "",
                               action="end"))
    else:
        out.pop(at - 1)  # the pass before the resolution, or the one handing the chance over
    return out


def main(games: int, per_game: int) -> None:
    rng = random.Random(1)
    stats: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for edition in EDITIONS:
        for seed in range(games):
            for kind in NATURAL_MISTAKES:
                where = WHERE.get(kind, (edition, "lite", None))
                if where[0] != edition:
                    continue
                about, log = mistaken_game(kind, edition, seed, where[1], where[2])
                if about is not None:
                    stats[kind].append(counts(log))
            lines = decisions(simulate_game(edition, seed))
            for kind, sites in injection_sites(lines).items():
                for at in rng.sample(sites, min(per_game, len(sites))):
                    stats[kind].append(counts(injected(lines, kind, at)))
    print(f"{games} simulated games per edition ({', '.join(EDITIONS)}), "
          f"up to {per_game} injections of each kind per game")
    print(f"{'kind':<11}{'mistakes':>9}{'errors/m':>10}{'roots/m':>9}"
          f"{'1 error':>9}{'1 root':>8}")
    for kind in (*NATURAL_MISTAKES, "drop_pass", "no_chance", "main_stage"):
        rows = stats.get(kind, [])
        n = len(rows)
        if not n:
            continue
        print(f"{kind:<11}{n:>9}{sum(e for e, _ in rows) / n:>10.2f}"
              f"{sum(r for _, r in rows) / n:>9.2f}"
              f"{sum(e == 1 for e, _ in rows):>5}/{n:<3}{sum(r == 1 for _, r in rows):>4}/{n}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6,
         int(sys.argv[2]) if len(sys.argv) > 2 else 3)
