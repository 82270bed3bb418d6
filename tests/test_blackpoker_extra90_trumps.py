"""BlackPoker 9.0 extra frame: the trumps 9.0 changed or added (docs/decisions.md XT1-XT9).

誘惑 (♡3), 追撃 (♡5), ファントムリバース (♡7), 虚脱 (♢5), 修繕 (♢8), リセット (♣8), 反撃 (♣9),
and the abilities ♢5 喪失 (no player's Charge charges) and ♣9 要塞. The ruling fixtures
(fixtures/rulings/frames/) hold one legal and one illegal use of each; these tests check
that each illegal one is exactly its one finding, that they are judged (no longer listed as
not judged yet), and that simulated games use them and are judged clean.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.games.blackpoker import schema
from coreflow_judge.adjudicator.games.blackpoker.rules import STEPS, BlackPokerRules, load_edition
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.games.common import EditionDataError
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.models import Request, Trigger
from coreflow_judge.events.reader import iter_lines

from tests.pools import pooled

EXTRA_9 = Path(__file__).resolve().parent.parent / "fixtures" / "rulings" / "frames"
TRUMP_ACTIONS = frozenset({"allure", "pursuit", "phantom_reverse", "lethargy", "repair",
                           "reset", "counterattack"})
game = pooled(simulate_game)


def _findings(name: str) -> list[tuple[str, int, str]]:
    """Every finding the judge makes on the fixture log ``name`` (code, seq, severity)."""
    text = (EXTRA_9 / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    report = judge_lines(iter_lines(text))
    return [(f.code, f.seq, f.severity) for f in report.findings]


def test_the_changed_trumps_are_judged_not_listed() -> None:
    """The actions and abilities are in the frame's data, none in not_judged_yet."""
    rules = BlackPokerRules("9.0", "master", "extra")
    assert TRUMP_ACTIONS <= set(rules.actions)
    assert not (TRUMP_ACTIONS | {"D5", "C9"}) & set(rules.not_judged_yet)
    trumps = rules.trump_data
    assert trumps["D5"]["rule"] == "no_charge" and trumps["C9"]["rule"] == "fortress"
    assert {t["action"] for t in trumps["C9"]["triggers"]} == {"counterattack"}
    assert rules.originator_kind(rules.actions["phantom_reverse"]) == "bulwark"
    assert rules.originator_kind(rules.actions["allure"]) == "soldier"


@pytest.mark.parametrize("legal", [
    "allure-returns-a-soldier-9.0", "pursuit-attacks-again-9.0",
    "phantom-reverse-bulwark-to-soldier-9.0", "lethargy-a-driven-attacker-9.0",
    "repair-equips-a-card-of-its-suit-9.0", "reset-at-quick-timing-9.0",
    "counterattack-on-a-blocking-bulwark-9.0", "loss-no-player-charges-9.0",
])
def test_a_legal_use_has_no_error(legal: str) -> None:
    found = _findings(legal)
    if legal == "pursuit-attacks-again-9.0":  # its last line is the illegal second use
        assert found == [("legality.ability-not-in-force", 28, "error")]
    else:
        assert found == []


@pytest.mark.parametrize(("illegal", "code", "seq"), [
    # ♠8 lacks <誘惑> (only ♡ soldiers have it)
    ("allure-by-a-spade-soldier-9.0", "legality.ability-not-in-force", 5),
    # ♡5 turned face down by the first 追撃
    ("pursuit-attacks-again-9.0", "legality.ability-not-in-force", 28),
    # the key unit of ファントムリバース is a bulwark
    ("phantom-reverse-by-a-soldier-9.0", "legality.cost-unpaid", 5),
    # 虚脱's target must be in drive state
    ("lethargy-a-charged-bulwark-9.0", "legality.target-invalid", 11),
    # 修繕 takes a card of the targeted soldier's suit
    ("repair-card-of-another-suit-9.0", "legality.choice-invalid", 6),
    # the opponent discarded 2: ♣8 goes to the graveyard
    ("reset-ransom-keeps-club-eight-9.0", "legality.effect-mismatch", 7),
    # 反撃 damages the attacker's owner
    ("counterattack-damage-to-the-wrong-player-9.0", "legality.effect-mismatch", 16),
    # 要塞: no damage from the opponent's ♠-keyed action
    ("fortress-no-damage-9.0", "legality.effect-mismatch", 13),
    # 喪失: no Charge charges
    ("loss-charge-recorded-9.0", "legality.effect-mismatch", 28),
])
def test_an_illegal_use_is_exactly_its_finding(illegal: str, code: str, seq: int) -> None:
    assert _findings(illegal) == [(code, seq, "error")]


def test_the_fixture_logs_differ_from_their_legal_twin_only_where_said() -> None:
    """The wrong-player 反撃 is the legal log with the damage moved to bob: nothing else
    differs, so the one finding is that mistake's."""
    legal = (EXTRA_9 / "counterattack-on-a-blocking-bulwark-9.0.jsonl").read_text().splitlines()
    wrong = (EXTRA_9 / "counterattack-damage-to-the-wrong-player-9.0.jsonl").read_text(
    ).splitlines()
    differ = [i for i, (a, b) in enumerate(zip(legal, wrong, strict=True)) if a != b]
    assert differ == [0, len(legal) - 1]
    assert json.loads(wrong[-1])["effects"][0]["player"] == "bob"


def test_an_originator_kind_the_code_does_not_know_is_refused() -> None:
    data = copy.deepcopy(load_edition("9.0"))  # the loaded data is shared: never mutate it
    data["trumps"]["H7"]["originator"] = {"kind": "bulwarks"}
    with pytest.raises(EditionDataError, match="originator.kind"):
        schema.check(data, STEPS)
    data = copy.deepcopy(load_edition("9.0"))
    data["actions"]["lethargy"]["target"]["state"] = "driven"
    with pytest.raises(EditionDataError, match="target.state"):
        schema.check(data, STEPS)


def test_simulated_extra_games_use_the_changed_trumps_and_are_clean() -> None:
    """Seeded simulated 9.0 master games in the extra frame set these trumps aside, play
    every one of their actions somewhere, and the judge finds no error and never stops.
    At least 26 games; then on until every action has appeared (反撃 needs ♣9 face up and
    a bulwark of its owner lost while blocking, 虚脱 a driven target: a few games in a
    hundred each), at most 200."""
    used: set[str] = set()
    for seed in range(200):
        if seed >= 26 and TRUMP_ACTIONS <= used:
            break
        log = game("9.0", seed, "master", frame="extra")
        report = judge_lines(enumerate(log, start=1))
        assert report.errors == 0, (seed, [(f.seq, f.code, f.message)
                                           for f in report.findings])
        assert "log.not-judged-yet" not in {f.code for f in report.findings}, seed
        used |= {ln.action for ln in log if isinstance(ln, Request | Trigger)}
    assert TRUMP_ACTIONS <= used, TRUMP_ACTIONS - used
