"""One finding per code per line (docs/findings.md, "Which code when"): a line that breaks
one rule several times (two key cards sent to the wrong place, two attackers in
preparation) gets one finding of that code, naming each. Enforced in one place for every
game (:func:`adjudicator.findings.one_per_code`, applied as the core flow takes each line),
and checked here as a property: over every ruling fixture, over simulated games of the
three games with edits.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.findings import Finding, finding, merge, one_per_code, withdraw_part
from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game as dm_game
from coreflow_judge.adjudicator.games.i_language.simulate import simulate_game as il_game
from coreflow_judge.adjudicator.judge import Report, judge_file
from coreflow_judge.adjudicator.rulings import discover
from hypothesis import given
from hypothesis import strategies as st

from tests import test_duel_masters as dm
from tests import test_i_language as il
from tests import test_simulate as bp
from tests.hypothesis_profiles import examples
from tests.logtools import Log, judge, mutate, renumber
from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent


def twice(report: Report) -> list[tuple[int, str]]:
    """The (line, code) pairs reported more than once."""
    seen = Counter((f.seq, f.code) for f in report.findings)
    return sorted(k for k, n in seen.items() if n > 1)


# ---------------------------------------------------------------------------- the merge
def test_two_findings_of_one_code_and_line_become_one_naming_both() -> None:
    a = finding("legality.key-card-not-to-graveyard", 6, "bp4.3.3.2.1",
                "alice:S3 went to the graveyard; the rules send it to the hand.",
                expected="hand", actual="graveyard")
    b = finding("legality.key-card-not-to-graveyard", 6, "bp4.3.3.2.1",
                "alice:S5 went to the graveyard; the rules send it to the hand.",
                expected="hand", actual="graveyard")
    other = finding("log.hidden-info", 6, "bp6.2", "A face is not shown.")
    found = [a, other, b]
    one_per_code(found, 0)
    assert found == [a, other]
    assert a.message == ("alice:S3 went to the graveyard; the rules send it to the hand. "
                         "alice:S5 went to the graveyard; the rules send it to the hand.")
    assert (a.expected, a.actual, a.severity) == ("hand", "graveyard", "error")
    assert "parts" not in a.as_dict()


def test_differing_values_are_listed_and_a_part_can_be_withdrawn() -> None:
    a = finding("order.trigger-missed", 9, "core[6-3]", "t1 was never resolved.",
                expected="resolve t1")
    b = finding("order.trigger-missed", 9, "core[6-3]", "t2 was never resolved.",
                expected="resolve t2")
    merge(a, b)
    assert a.expected == ["resolve t1", "resolve t2"]
    first = next(p for p in a.parts if p.expected == "resolve t1")
    withdraw_part(a, first)
    assert (a.message, a.expected, a.parts) == ("t2 was never resolved.", "resolve t2", ())


def test_only_new_findings_are_merged_into_earlier_ones() -> None:
    """A finding reported earlier at the line (a repair's, before the line's own) takes
    the line's new finding of its code; findings of other lines are never touched."""
    earlier = finding("legality.choice-invalid", 4, "bp6.2", "One.")
    kept = [earlier, finding("legality.choice-invalid", 3, "bp6.2", "Elsewhere.")]
    found = [*kept, finding("legality.choice-invalid", 4, "bp6.2", "Two.")]
    one_per_code(found, 2)
    assert found == kept and earlier.message == "One. Two."


# ---------------------------------------------------------------------------- the property
@pytest.mark.parametrize("case", discover(ROOT / "fixtures"), ids=lambda c: c.name)
def test_no_ruling_fixture_has_two_findings_of_one_code_on_one_line(case) -> None:  # type: ignore[no-untyped-def]
    assert twice(judge_file(case.log)) == []


_bp = pooled(bp.simulate_game)
_dm = pooled(dm_game)
_il = pooled(il_game)


def _game(which: str, seed: int) -> Log:
    if which == "duel_masters":
        return _dm(seed, max_lines=300)
    if which == "i_language":
        return _il(seed)
    return _bp(which, seed)


GARBAGE = {"6.1": bp.GARBAGE, "9.0": bp.GARBAGE, "duel_masters": dm.GARBAGE}


@examples(40)  # sized for CI: --hypothesis-profile deep tries five times as many
@given(which=st.sampled_from(["6.1", "9.0", "6.1", "9.0", "duel_masters", "i_language"]),
       seed=st.integers(0, 9), edits=st.integers(2, 5), data=st.data())
def test_edited_games_never_get_two_findings_of_one_code_on_one_line(
        which: str, seed: int, edits: int, data: st.DataObject) -> None:
    """Whatever was changed in a simulated game of any of the three games, the report
    has at most one finding per code per line (without the merge, about one edited
    BlackPoker game in ten gets two: a game start or a resolution whose effects differ
    twice, a request paying two wrong costs)."""
    lines = _game(which, seed)
    for _ in range(edits):
        if which == "i_language":
            il._mutate(lines, data)
        else:
            mutate(lines, data, GARBAGE[which])
    assert twice(judge(renumber(lines))) == []


def test_the_live_table_gets_one_finding_per_code_per_line_too() -> None:
    """The flow merges as it takes each line: what ``feed`` returns (the recorder, the
    live table) is already one per code per line."""
    from coreflow_judge.adjudicator.judge import start_flow
    from coreflow_judge.events.reader import read_log

    lines = [x for _, x in read_log(
        ROOT / "fixtures/rulings/standard/unsummon-keys-to-hand-9.0.jsonl")]
    flow = start_flow(lines[0])  # type: ignore[arg-type]
    raised: list[Finding] = []
    for line in lines[1:]:
        raised += flow.feed(line)  # type: ignore[arg-type]
    assert [(f.seq, f.code) for f in raised] == [(6, "legality.key-card-not-to-graveyard")]
    assert "alice:S3" in raised[0].message and "alice:S5" in raised[0].message
