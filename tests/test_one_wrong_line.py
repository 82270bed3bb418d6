"""One mistake, one root, for every kind of departure (issue 22, "What to build" 2).

Every error code one wrong line can raise is injected into seeded simulated games of all
three games (:mod:`adjudicator.mistakes` and each game's ``mistakes`` module), which then
play on from the table as played. The judge must report exactly one root error, at the
wrong line, with the injected code; every other error must follow from it; the board it
rebuilds at the wrong line and at the end must be the table that was played. The same
game written with fewer lines (no turn starts and chance moves; decisions only) must get
the same root. Every error code of a game is either injected here or listed with the
reason one wrong line cannot raise it alone (docs/mistakes.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from coreflow_judge.adjudicator.findings import CODES
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
from coreflow_judge.adjudicator.plugins import game_plugin

SEEDS = (0, 1)
"""Seeds of the Duel Masters and i-language games an injector is tried on (each game is
played twice: once to count its moments, once with the mistake); BlackPoker's tables and
seeds are its module's (``TABLES``, ``WHERE``)."""

Case = tuple[str, Callable[[int], NewTable], tuple[int, ...]]


def _bp_cases(inj: Injector) -> Iterator[Case]:
    for edition, fmt, frame, seeds in bp.WHERE.get(inj.name, bp.TABLES):
        def table(seed: int, edition: str = edition, fmt: str = fmt,
                  frame: str | None = frame) -> NewTable:
            return lambda change: bp.BlackPokerTable(edition, seed, fmt, frame, change)
        label = f"{edition} {fmt}" + (f" {frame}" if frame else "")
        yield label, table, seeds


def _dm_cases(inj: Injector) -> Iterator[Case]:
    yield "dm", lambda seed: (lambda change: dm.DuelMastersTable(seed, change)), SEEDS


def _il_cases(inj: Injector) -> Iterator[Case]:
    yield "il", lambda seed: (lambda change: il.ILanguageTable(seed, change)), SEEDS


GAMES: dict[str, tuple[tuple[Injector, ...], Callable[[Injector], Iterator[Case]],
                       dict[str, str]]] = {
    "blackpoker": (bp.INJECTORS, _bp_cases, bp.NOT_INJECTABLE),
    "duel_masters": (dm.INJECTORS, _dm_cases, dm.NOT_INJECTABLE),
    "i_language": (il.INJECTORS, _il_cases, il.NOT_INJECTABLE),
}

def params(*games: str) -> list[Any]:
    """One test per injector of ``games``."""
    return [pytest.param(game, inj, id=f"{game}-{inj.code}-{inj.name}")
            for game in games for inj in GAMES[game][0]]


def one_root_each(game: str, inj: Injector) -> None:
    """The injected line is the one root error, in the complete log and in its sparse
    forms; consequences point at it; the board is the table as played."""
    _injectors, cases, _why = GAMES[game]
    made = 0
    failures: list[Any] = []
    for label, table, seeds in cases(inj):
        for seed in seeds:
            injected = play_with_mistake(table(seed), inj, seed, 3000)
            if injected is None:
                continue
            made += 1
            failures += [(label, seed, "complete", p) for p in problems(injected)]
            for form in SPARSE:
                written = sparse(injected, form)
                if written is not None:
                    failures += [(label, seed, form, p) for p in problems(written)]
    assert made >= 1, f"no game offered a moment for {inj.name}"
    assert not failures, failures


@pytest.mark.parametrize(("game", "inj"), params("blackpoker"))
def test_one_wrong_line_is_one_root(game: str, inj: Injector) -> None:
    """BlackPoker (the Duel Masters and i-language injectors: test_one_wrong_line_games)."""
    one_root_each(game, inj)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_error_code_is_injected_or_explained(game: str) -> None:
    """A game's error codes (the shared ones and its own) are each written by an
    injector, or listed with the reason one wrong line cannot raise it alone; never
    both, and nothing listed that the game does not have."""
    injectors, _cases, why = GAMES[game]
    own = game_plugin(game).codes
    codes = {c for c, (severity, _m) in {**CODES, **own}.items() if severity == "error"}
    injected = {inj.code for inj in injectors}
    assert injected <= codes
    assert set(why) <= codes
    assert not injected & set(why), injected & set(why)
    assert codes - injected - set(why) == set()
    assert all(len(reason) > 20 for reason in why.values())


def test_the_docs_list_what_is_injected() -> None:
    """docs/mistakes.md names every injected and every unexplained code of each game."""
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "mistakes.md").read_text("utf-8")
    for injectors, _cases, why in GAMES.values():
        for code in {inj.code for inj in injectors} | set(why):
            assert f"`{code}`" in text, code
