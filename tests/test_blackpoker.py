"""BlackPoker's rules module on hand-made logs: the game start and the resolution plan."""

from __future__ import annotations

import json

import pytest
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.reader import iter_lines

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
