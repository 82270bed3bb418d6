"""A ruling never depends on how the log was written (issue 22, "equivalence as a tested
property").

Every ruling fixture and a pool of simulated games of every game, BlackPoker format and
9.0 frame are rewritten into each equivalent form of :mod:`tests.equivalence` (complete
and sparse, trigger lines anywhere in their window, units named by any of their cards,
the short notation, shortcut calls and the passes they stand for, request ids renamed,
optional claims written or left out); the judge must give each form the same error
findings (codes, at the same line of the table) and the same result as the log it came
from.

A rewrite with nothing to rewrite in a log is counted as not applicable, never as passed:
each pool test also asserts that the rewrites its games can take were tried.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game as blackpoker
from coreflow_judge.adjudicator.games.duel_masters.simulate import (
    simulate_game as duel_masters,
)
from coreflow_judge.adjudicator.games.i_language.simulate import simulate_game as i_language
from coreflow_judge.events.reader import LineError, read_log
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from tests.equivalence import (
    REWRITERS,
    Form,
    Log,
    NotApplicable,
    Original,
    Tally,
    applicable,
    call,
    call_answer,
    check,
    differences,
    sparse,
    trigger_anywhere,
    unit_card,
)
from tests.hypothesis_profiles import examples
from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "fixtures" / "rulings"
FIXTURES = sorted(RULINGS.rglob("*.jsonl"))

KNOWN: dict[str, tuple[str, str]] = {}
"""Fixtures whose forms the judge still rules otherwise, by a defect fixed elsewhere:
the rewrite and why (strict: once fixed, the fixture must leave this table)."""


def _fixture_lines(path: Path) -> Log | str:
    """The fixture's lines, or why no rewrite applies (a line that cannot be read)."""
    lines = []
    for _no, item in read_log(path):
        if isinstance(item, LineError):
            return f"line {item.line} cannot be read: no form of it can be written"
        lines.append(item)
    return lines


def _fixture_param(path: Path) -> object:
    name = str(path.relative_to(RULINGS))
    known = KNOWN.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=known[1])] if known else []
    return pytest.param(path, id=name.removesuffix(".jsonl"), marks=marks)


@pytest.mark.parametrize("path", [_fixture_param(p) for p in FIXTURES])
def test_every_form_of_a_ruling_fixture_is_ruled_alike(path: Path) -> None:
    lines = _fixture_lines(path)
    tally = Tally()
    name = str(path.relative_to(RULINGS))
    if isinstance(lines, str):
        for kind in REWRITERS:
            tally.add(name, NotApplicable(kind, lines), [])
        expected = path.parent / f"{path.stem}.expected.json"
        assert "log.malformed" in expected.read_text(encoding="utf-8"), lines
        return
    check(name, lines, tally)
    assert tally.failures == []


def test_the_fixtures_offer_every_rewrite() -> None:
    """Over all ruling fixtures each rewrite applies somewhere (a rewriter that never
    finds anything to rewrite would pass every test above and check nothing); and the
    logs no rewrite applies to are few and named."""
    applied: set[str] = set()
    whole: list[str] = []
    for path in FIXTURES:
        lines = _fixture_lines(path)
        if isinstance(lines, str) or applicable(lines) is not None:
            whole.append(path.name)
            continue
        todo = [kind for kind in REWRITERS if kind not in applied]
        if todo:
            original = Original(lines)
            applied.update(kind for kind in todo
                           if isinstance(REWRITERS[kind](original, lambda n: 0), Form))
    assert sorted(set(REWRITERS) - applied) == []
    assert len(whole) <= 3, whole  # a malformed line, a seq gap, a correction


# ---------------------------------------------------------------------------- the pools
Simulator = Callable[[int], Log]
_bp = pooled(blackpoker)
_dm = pooled(duel_masters)
_il = pooled(i_language)


def _blackpoker(edition: str, fmt: str, frame: str | None = None) -> Simulator:
    """A BlackPoker pool, called as the other tests call it (so the session plays each
    game once): ``(edition, seed)`` for lite, ``(edition, seed, fmt)`` for the other
    formats, ``frame=`` for a 9.0 frame."""
    if frame is not None:
        return lambda seed: _bp(edition, seed, fmt, frame=frame)
    if fmt == "lite":
        return lambda seed: _bp(edition, seed)
    return lambda seed: _bp(edition, seed, fmt)


ALWAYS = {"sparse", "notation", "renamed", "claims-added", "claims-dropped"}
"""What every simulated game offers (a complete log: it has derived lines to leave out,
lines to write in notation, claims to add and to drop)."""
BLACKPOKER = ALWAYS | {"call", "call-answer", "trigger-late-sparse"}

POOLS: dict[str, tuple[Simulator, set[str]]] = {
    **{f"6.1-{fmt}": (_blackpoker("6.1", fmt), BLACKPOKER - {"call-answer"})
       for fmt in ("lite", "standard", "pro", "master", "extra")},
    **{f"9.0-{fmt}": (_blackpoker("9.0", fmt), BLACKPOKER)
       for fmt in ("lite", "standard", "pro", "master")},
    **{f"9.0-{frame}-{fmt}": (_blackpoker("9.0", fmt, frame), BLACKPOKER)
       for frame, fmt in (("entry16", "lite"), ("pack", "lite"), ("rare_pack", "standard"),
                          ("strategy", "pro"), ("extra", "master"))},
    "duel_masters": (_dm, ALWAYS | {"trigger-late"}),
    "i_language": (_il, ALWAYS),
}
"""Each pool, and the rewrites its games must offer (6.1's requester passes
automatically, so its declarations are rarely answered with a call)."""
GAMES = 2
"""Games per pool: each is judged in about 15 forms."""


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_every_form_of_simulated_games_is_ruled_alike(pool: str) -> None:
    simulate, offered = POOLS[pool]
    tally = Tally()
    for seed in range(GAMES):
        lines = simulate(seed)
        check(f"{pool} seed {seed}", lines, tally)
        # The simulators write complete logs: their sparse form, completed again.
        thin = sparse(Original(lines))
        assert isinstance(thin, Form)
        check(f"{pool} seed {seed} (sparse)", thin.lines, tally, kinds=["complete"])
    assert tally.failures == []
    assert sorted((offered | {"complete"}) - set(tally.applied)) == []


# ---------------------------------------------------------------------------- chosen places
def _pool_game(pool: str, seed: int) -> Log:
    return POOLS[pool][0](seed)


CHOSEN = {"trigger-anywhere": trigger_anywhere, "unit-card": unit_card, "call": call,
          "call-answer": call_answer}
"""The rewrites with a choice: which trigger line goes where in its window, which card
names a unit, which call is said."""


@examples(40, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_chosen_place_is_ruled_alike(data: st.DataObject) -> None:
    """Hypothesis picks a log (a fixture or a pool game), a rewrite with a choice, and
    each choice; the form is ruled as the log."""
    if data.draw(st.booleans(), label="fixture"):
        path = data.draw(st.sampled_from(FIXTURES), label="fixture")
        if str(path.relative_to(RULINGS)) in KNOWN:
            return
        lines = _fixture_lines(path)
        if isinstance(lines, str) or applicable(lines) is not None:
            return
    else:
        pool = data.draw(st.sampled_from(sorted(POOLS)), label="pool")
        lines = _pool_game(pool, data.draw(st.integers(0, GAMES - 1), label="seed"))
    kind = data.draw(st.sampled_from(sorted(CHOSEN)), label="rewrite")
    original = Original(lines)
    outcome = CHOSEN[kind](original, lambda n: data.draw(st.integers(0, n - 1)))
    if isinstance(outcome, NotApplicable):
        return
    assert differences(original, outcome) == [], outcome.what
