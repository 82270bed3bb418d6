"""One wrong line, one root: how often the judge keeps the property, game by game.

Usage: python scripts/one_wrong_line.py [SEEDS] [GAME...]

For every injector of every game (:mod:`adjudicator.mistakes` and each game's
``mistakes`` module), plays SEEDS seeded games (default 4) on each table the injector is
tried on (BlackPoker: its module's ``TABLES`` and ``WHERE``; seeds 0..SEEDS-1 beside the
module's own), writes the wrong line at a seeded moment, plays on, and judges the complete
log and its sparse forms (``SPARSE``). Prints, per injector, the games that offered the
moment, and how many of them (and of their sparse forms) kept the property; then the
first problem of each failing one, and the totals per game. Printed, never asserted:
tests/test_one_wrong_line.py asserts what must hold.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

from coreflow_judge.adjudicator.games.blackpoker import mistakes as bp
from coreflow_judge.adjudicator.games.duel_masters import mistakes as dm
from coreflow_judge.adjudicator.games.i_language import mistakes as il
from coreflow_judge.adjudicator.mistakes import (
    SPARSE,
    Injector,
    NewTable,
    play_with_mistake,
    problems,
    sparse,
)

Tables = Iterator[tuple[str, Callable[[int], NewTable], list[int]]]


def _bp(inj: Injector, seeds: int) -> Tables:
    for edition, fmt, frame, known in bp.WHERE.get(inj.name, bp.TABLES):
        def table(seed: int, e: str = edition, f: str = fmt, fr: str | None = frame
                  ) -> NewTable:
            return lambda change: bp.BlackPokerTable(e, seed, f, fr, change)
        label = f"{edition} {fmt}" + (f" {frame}" if frame else "")
        yield label, table, sorted(set(range(seeds)) | set(known))


def _dm(inj: Injector, seeds: int) -> Tables:
    yield "dm", lambda seed: (lambda change: dm.DuelMastersTable(seed, change)), \
        list(range(seeds))


def _il(inj: Injector, seeds: int) -> Tables:
    yield "il", lambda seed: (lambda change: il.ILanguageTable(seed, change)), \
        list(range(seeds))


GAMES = {"blackpoker": (bp.INJECTORS, _bp), "duel_masters": (dm.INJECTORS, _dm),
         "i_language": (il.INJECTORS, _il)}


def main(argv: list[str]) -> None:
    seeds = int(argv[0]) if argv else 4
    for game in argv[1:] or list(GAMES):
        injectors, tables = GAMES[game]
        made = held = forms = forms_held = 0
        codes = set()
        for inj in injectors:
            n = ok = f_n = f_ok = 0
            first: str | None = None
            for label, table, seed_list in tables(inj, seeds):
                for seed in seed_list:
                    injected = play_with_mistake(table(seed), inj, seed, 3000)
                    if injected is None:
                        continue
                    n += 1
                    found = problems(injected)
                    ok += not found
                    if found and first is None:
                        first = f"{label} seed {seed}: {found[0][:300]}"
                    for form in SPARSE:
                        written = sparse(injected, form)
                        if written is None:
                            continue
                        f_n += 1
                        found = problems(written)
                        f_ok += not found
                        if found and first is None:
                            first = f"{label} seed {seed} ({form}): {found[0][:300]}"
            made, held, forms, forms_held = made + n, held + ok, forms + f_n, forms_held + f_ok
            if n:
                codes.add(inj.code)
            print(f"{game:13} {inj.code:40} {inj.name:28} {ok}/{n} complete, "
                  f"{f_ok}/{f_n} sparse", flush=True)
            if first:
                print(f"    {first}")
        print(f"== {game}: {len(codes)} codes, {made} injections ({held} kept the property), "
              f"{forms} sparse forms ({forms_held} kept it)\n", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
