"""A finding must be true, its words too (issue 22, class 9): messages that were untrue
while the code was right, each pinned on a ruling fixture.

(a) a step-order finding whose expected and recorded said the same; (b) "Under the rules,
next" offering the very request the finding on its line forbids; (c) a card over rule
finding naming the creature where a gear's text decided; (d) a cost limit cited as dm101.3;
(e) a missing choice where nothing could be chosen (``test_empty_choices``, and the
fixture ``b3-set-bulwark-with-no-hand-card-9.0``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from coreflow_judge.adjudicator.judge import Report, judge_file
from coreflow_judge.adjudicator.next_step import Allowed
from coreflow_judge.adjudicator.rulings import discover
from coreflow_judge.cli.render import next_text
from coreflow_judge.events.models import Request
from coreflow_judge.events.reader import read_log

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "fixtures" / "rulings"


def ruled(folder: str, name: str) -> Report:
    return judge_file(RULINGS / folder / f"{name}.jsonl")


def test_a_step_order_finding_expects_what_the_recorded_step_is_not() -> None:
    """Found: "expected mana_charge or later, recorded main" (a mana charge after a
    summon): the recorded step met what was "expected"."""
    [f] = ruled("duel_masters", "step-order").findings
    assert f.code == "legality.step-order"
    assert f.expected == "an action of the main step or a later one"
    assert f.actual == "Mana charge (the charge step)"


@pytest.mark.parametrize("name", ["step-order", "mana-charge-twice"])
def test_next_never_offers_the_mana_charge_a_duel_masters_finding_forbids(name: str) -> None:
    """The turn's steps and the one mana charge per turn need no card: what the rules want
    next weighs them (the Duel Masters rules' ``table_allows``)."""
    report = ruled("duel_masters", name)
    [f] = [f for f in report.findings if f.code in ("legality.step-order",
                                                      "legality.mana-charge-twice")]
    assert f.next is not None and f.next.step == "chance"
    assert all(a.action != "charge_mana" for a in f.next.requests)
    assert f.next.not_weighed is None


def test_next_says_what_it_does_not_weigh_where_it_offers_the_request() -> None:
    """A Summon Soldier whose cost is wrong: Summon Soldier is still offered next (the
    player may pay it rightly), and next says it weighs no cost."""
    [f] = [f for f in ruled("lite", "cost-unpaid-9.0").findings if f.severity == "error"]
    assert f.next is not None and f.next.not_weighed == "legality.cost-unpaid"
    said = next_text(f.next, lambda a: a)
    assert "not weighed" in said and "legality.cost-unpaid" in said
    assert f.next.as_dict()["not_weighed"] == "legality.cost-unpaid"


@pytest.mark.parametrize("case", discover(RULINGS), ids=lambda c: c.name)
def test_no_next_offers_a_forbidden_request_without_saying_so(case) -> None:  # type: ignore[no-untyped-def]
    """Over every ruling fixture: where the next step of an error offers the request its
    own line made, it names the finding's code as not weighed."""
    report = judge_file(case.log)
    lines = {x.seq: x for _, x in read_log(case.log) if isinstance(x, Request)}
    for f in report.findings:
        line = lines.get(f.seq)
        if f.next is None or line is None:
            continue
        offered = Allowed(line.player, line.action) in f.next.requests
        assert (f.next.not_weighed == f.code) == offered, (f.code, f.seq)


def test_a_card_over_rule_finding_names_the_gear_whose_text_decided() -> None:
    [f] = ruled("duel_masters", "card-over-rule-names-the-gear").findings
    assert f.code == "precedence.prohibition-over-permission"
    assert "'alice:sunblade#1 (crossed to alice:imp#1): unblockable" in f.message
    assert "'alice:imp#1: unblockable" not in f.message


def test_a_cost_limit_rests_on_the_cards_text() -> None:
    """Found: dm101.3 (an effect does as much as it can) for a psychic creature over the
    card's cost limit; the limit is the card's text (dm101.1)."""
    for name in ("hyperspatial-over-cost", "hyperspatial-cost-limit-card-text"):
        [f] = ruled("duel_masters", name).findings
        assert (f.code, f.rule) == ("legality.choice-invalid", "dm101.1"), name


def test_a_battle_recorded_otherwise_rests_on_the_battle_rule() -> None:
    """Found with the cost limit: every Duel Masters effect-mismatch cited dm101.3 (doing
    as much as it can), a battle result too; a battle rests on dm§3.5."""
    found = [f for f in ruled("duel_masters", "battle-both-destroyed").findings
             if f.code == "legality.effect-mismatch"]
    assert [f.rule for f in found] == ["dm§3.5"]
