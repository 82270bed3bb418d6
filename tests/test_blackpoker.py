"""BlackPoker's rules module on hand-made logs: the game start and the resolution plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.claims import compare
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import judge_lines, start_flow
from coreflow_judge.events.models import Resolve
from coreflow_judge.events.reader import LineError, iter_lines, read_log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "rulings" / "lite"

HEADER = {"seq": 1, "type": "match_started", "match_id": "t", "game": "blackpoker",
          "rules": "blackpoker/9.0", "format": "lite", "players": ["alice", "bob"],
          "log_format": 1}


def judged(lines: list[dict]) -> list[tuple[str, int, str]]:
    report = judge_lines(iter_lines(json.dumps(d) for d in lines))
    return [(f.code, f.seq, f.message) for f in report.findings if f.severity == "error"]


def start(presets: dict, decks: dict | None = None) -> list[dict]:
    header = dict(HEADER)
    if decks is None:
        header["deck_sizes"] = {"alice": 30, "bob": 30}
    else:
        header["decks"] = decks
    return [header, {"seq": 2, "type": "game_started", "first_player": "alice",
                     "reveals": {"alice": ["D10"], "bob": ["S4"]}, "presets": presets}]


@pytest.mark.parametrize(("card", "allowed"), [
    ("JK1", False), ("JK", False), ("S1", True), ("H10", True), ("C13", True), ("?", None),
])
def test_preset_soldier_ranks_come_from_the_edition_data(card: str, allowed: bool | None
                                                         ) -> None:
    assert BlackPokerRules("9.0", "lite").may_be_preset_soldier(card) is allowed


def test_joker_preset_soldier_is_refused() -> None:
    found = judged(start({"alice": {"bulwark": "H2", "soldier": "JK1"},
                          "bob": {"bulwark": "D3", "soldier": "C5"}}))
    assert [(c, s) for c, s, _ in found] == [("legality.effect-mismatch", 2)]
    assert "JK1 cannot be a soldier" in found[0][2]


def test_joker_preset_to_the_graveyard_is_the_rule() -> None:
    decks = {"alice": ["H2", "JK1", "S9"] + [f"C{i}" for i in range(1, 14)],
             "bob": ["D3", "C5"] + [f"H{i}" for i in range(1, 14)]}
    found = judged(start({"alice": {"bulwark": "H2", "soldier": "S9", "graveyard": ["JK1"]},
                          "bob": {"bulwark": "D3", "soldier": "C5"}}, decks))
    assert found == []


def test_a_card_that_can_be_the_soldier_does_not_go_to_the_graveyard() -> None:
    decks = {"alice": ["H2", "S4", "S9"] + [f"C{i}" for i in range(1, 14)],
             "bob": ["D3", "C5"] + [f"H{i}" for i in range(1, 14)]}
    found = judged(start({"alice": {"bulwark": "H2", "soldier": "S9", "graveyard": ["S4"]},
                          "bob": {"bulwark": "D3", "soldier": "C5"}}, decks))
    assert [(c, s) for c, s, _ in found] == [("legality.effect-mismatch", 2)]
    assert "S4" in found[0][2]


def throwing(bob_life: int, recorded: int) -> list[dict]:
    """alice throws ♠7 + ♣2 at bob (7 damage); the table records ``recorded`` damage."""
    lines = start({"alice": {"bulwark": "D2", "soldier": "S9"},
                   "bob": {"bulwark": "D3", "soldier": "C5"}})
    lines[0]["deck_sizes"] = {"alice": 30, "bob": bob_life + 10}
    lines[1]["hands"] = {"alice": ["H2", "S7", "C4", "D6", "S3", "H4", "C2", "D8"],
                         "bob": ["C10", "D5", "S6", "H7", "C3", "S2", "H3"]}
    return lines + [
        {"seq": 3, "type": "request", "request": "r1", "player": "alice", "action": "throwing",
         "key_cards": ["alice:S7", "alice:C2"], "costs": [], "targets": ["bob"]},
        {"seq": 4, "type": "pass", "player": "alice"},
        {"seq": 5, "type": "pass", "player": "bob"},
        {"seq": 6, "type": "resolve", "request": "r1", "result": "resolved",
         "effects": [{"op": "damage", "player": "bob", "amount": recorded}]},
    ]


def test_a_wrong_damage_count_that_could_be_right_is_an_effect_mismatch() -> None:
    found = judged(throwing(bob_life=20, recorded=5))
    assert [(c, s) for c, s, _ in found] == [("legality.effect-mismatch", 6)]
    assert "another count" in found[0][2]
    assert "only part" not in found[0][2].lower()


def test_a_damage_cut_short_by_the_life_is_partial_not_applied() -> None:
    found = judged(throwing(bob_life=3, recorded=7))
    assert ("legality.partial-not-applied", 6) in [(c, s) for c, s, _ in found]
    assert "Only part" in next(m for c, _, m in found if c == "legality.partial-not-applied")


def test_a_damage_carried_out_as_far_as_possible_is_clean() -> None:
    assert judged(throwing(bob_life=20, recorded=7)) == []
    assert judged(throwing(bob_life=3, recorded=3)) == []


# ---------------------------------------------------------------- the resolution plan
def snapshot(flow: CoreFlow) -> str:
    """Everything a plan must leave as it was: the board, the turn, the stage, the requests."""
    rules = flow.rules
    assert isinstance(rules, BlackPokerRules)
    return json.dumps([rules.board(flow), flow.turn, flow.turn_player, rules.clock,
                       [(r.id, r.status, r.data) for r in flow.requests.values()],
                       [a.amount for a in rules.abilities], [a.amount for a in rules.ended]],
                      sort_keys=True, default=str)


@pytest.mark.parametrize(("edition", "seed"), [("6.1", 4), ("9.0", 77), ("9.0", 1878198)])
def test_the_plan_is_pure_and_is_what_the_table_claims(edition: str, seed: int) -> None:
    lines = simulate_game(edition, seed)
    flow = start_flow(lines[0])
    planned = claimed = 0
    for line in lines[1:]:
        if isinstance(line, Resolve):
            rules = flow.rules
            assert isinstance(rules, BlackPokerRules)
            req = flow.requests[line.request]
            before = snapshot(flow)
            plan = rules.plan_resolution(flow, req, line.choices or {})
            assert snapshot(flow) == before, f"planning line {line.seq} changed the table"
            assert plan.request == req.id and plan.result == line.result
            assert plan.effects == [e for s in plan.steps for e in s.effects]
            planned += 1
            claims = [{"op": e.op, **(e.model_extra or {})} for e in line.effects or []]
            if claims and req.action.id != "next_generation":
                assert not compare(plan.effects, claims), f"line {line.seq}"
                claimed += 1
        assert not [f for f in flow.feed(line) if f.severity == "error"]
    assert planned > 50 and claimed > 5


def test_the_plan_says_why_a_counter_does_not_negate() -> None:
    lines = [x for _, x in read_log(FIXTURES / "counter-too-small-9.0.jsonl")
             if not isinstance(x, LineError)]
    flow = start_flow(lines[0])
    for line in lines[1:]:
        if isinstance(line, Resolve) and line.request == "r3":
            rules = flow.rules
            assert isinstance(rules, BlackPokerRules)
            plan = rules.plan_resolution(flow, flow.requests["r3"], {})
            assert plan.effects == []
            assert [s.step for s in plan.steps] == ["counter"]
            assert "is not negated" in plan.steps[0].reason
            assert list(plan.reasons()) == [plan.steps[0].reason]
            return
        flow.feed(line)
    raise AssertionError("the fixture has no resolution of r3")


def test_the_plan_reads_a_deck_the_caller_knows() -> None:
    """A simulator that dealt a shuffled deck plans 世代交代 on that order."""
    lines = simulate_game("9.0", 77)
    flow = start_flow(lines[0])
    for line in lines[1:3]:
        flow.feed(line)
    rules = flow.rules
    assert isinstance(rules, BlackPokerRules)
    req = Req("t", rules.actions["next_generation"], "alice", 0, True)
    before = snapshot(flow)
    plan = rules.plan_resolution(flow, req, {}, decks={"alice": ["S4", "H9", "D12", "C2"]})
    assert plan.effects == [
        {"op": "move", "card": "alice:S4", "from": "deck", "to": "graveyard"},
        {"op": "move", "card": "alice:H9", "from": "deck", "to": "graveyard"},
        {"op": "move", "card": "alice:D12", "from": "deck", "to": "hand"},
    ]
    assert snapshot(flow) == before


def test_fewer_damage_from_a_life_of_unknown_count_is_a_warning() -> None:
    """Without deck sizes bob's life may have run out: 3 of 7 cannot be called wrong."""
    lines = throwing(bob_life=20, recorded=3)
    del lines[0]["deck_sizes"]
    report = judge_lines(iter_lines(json.dumps(d) for d in lines))
    assert [f.code for f in report.findings if f.severity == "error"] == []
    assert any(f.code == "log.hidden-info" and f.seq == 6 for f in report.findings)
    lines = throwing(bob_life=20, recorded=9)
    del lines[0]["deck_sizes"]
    assert [(c, s) for c, s, _ in judged(lines)] == [("legality.effect-mismatch", 6)]


def test_the_game_start_plan_skips_a_joker_soldier_and_breaks_reveal_ties() -> None:
    rules = BlackPokerRules("9.0", "lite")
    hand = [f"C{i}" for i in range(1, 8)]
    decks = {"alice": ["H2", "JK1", "JK2", "S9", *hand, "D5", "D9", "S3"],
             "bob": ["D3", "C13", *[f"H{i}" for i in range(1, 8)], "S5", "S4", "S8"]}
    plan = rules.plan_game_start(["alice", "bob"], decks)
    assert plan.presets is not None
    assert plan.presets["alice"].model_dump() == {"bulwark": "H2", "soldier": "S9",
                                                  "graveyard": ["JK1", "JK2"]}
    assert plan.presets["bob"].soldier == "C13" and plan.presets["bob"].graveyard == []
    assert plan.reveals == {"alice": ["D5", "D9"], "bob": ["S5", "S4"]}
    assert plan.first_player == "alice" and plan.hands["alice"] == [*hand, "S3"]
    assert decks["alice"][0] == "H2"  # the decks are read, not changed
    game = [{**HEADER, "decks": decks},
            {"seq": 2, "type": "game_started", "first_player": plan.first_player,
             "reveals": plan.reveals, "hands": plan.hands,
             "presets": {p: v.model_dump() for p, v in plan.presets.items()}}]
    assert judged(game) == []
