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
