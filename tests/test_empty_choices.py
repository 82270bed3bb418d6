"""An explicit empty choice is a choice (issue 22, class 4), and nothing to choose is
nothing to record (class 9e): one meaning of a choice in every game —

- left out: not recorded (``log.choice-missing``, a warning, where something could have
  been chosen; nothing at all where nothing could);
- ``[]``: none chosen (judged: legal where none may be chosen, else
  ``legality.choice-invalid``), never read as "not recorded".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.reader import iter_lines

from tests.test_hidden_faces import resolve, rules, soldier, table

ROOT = Path(__file__).resolve().parent.parent
MISSING = ("log.choice-missing", "warning")
INVALID = ("legality.choice-invalid", "error")


def judged(lines: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    report = judge_lines(iter_lines([json.dumps(x) for x in lines]))
    return [(f.seq, f.code, f.severity) for f in report.findings]


def fixture(folder: str, name: str) -> list[dict[str, Any]]:
    text = (ROOT / "fixtures" / "rulings" / folder / f"{name}.jsonl").read_text("utf-8")
    return [json.loads(x) for x in text.splitlines()]


def numbered(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**x, "seq": i} for i, x in enumerate(lines, start=1)]


# ---------------------------------------------------------------------- BlackPoker
@pytest.mark.parametrize(("choices", "found", "hand"), [
    (None, [MISSING], 7),          # not recorded: an unseen card is taken as discarded
    ({"discard": []}, [INVALID], 8),  # none: the table kept 8 cards, against the limit
    ({"discard": ["alice:D8"]}, [], 7),
])
def test_end_reads_a_left_out_discard_and_an_empty_one_apart(
        choices: dict[str, Any] | None, found: list[tuple[str, str]], hand: int) -> None:
    flow = table("6.1", "lite")
    assert rules(flow).boards["alice"].hand_count == 8
    assert resolve(flow, "end", choices=choices) == found
    assert rules(flow).boards["alice"].hand_count == hand


def test_an_empty_discard_under_the_limit_is_no_finding() -> None:
    flow = table("6.1", "lite")
    rules(flow).boards["alice"].take_from_hand("?")
    assert resolve(flow, "end", choices={"discard": []}) == []


def test_an_instant_kill_sending_none_is_invalid_and_says_so() -> None:
    """瞬殺 sends one or more soldiers: [] is a choice of none (an error whose message
    says none was sent, not that the choice is not recorded)."""
    flow = table(trumps={"alice": ["S7"], "bob": []})
    soldier(flow, "alice", ["S5"])
    target = soldier(flow, "bob", ["H4"])
    assert resolve(flow, "instant_kill", targets=[target.ref],
                   choices={"soldiers": []}) == [INVALID]
    assert resolve(flow, "instant_kill", targets=[target.ref]) == [MISSING]


def test_an_instant_kill_with_no_soldier_to_send_records_nothing() -> None:
    flow = table(trumps={"alice": ["S7"], "bob": []})
    target = soldier(flow, "bob", ["H4"])
    assert resolve(flow, "instant_kill", targets=[target.ref]) == []


def test_an_illusion_left_out_is_not_recorded_and_an_empty_one_is_none() -> None:
    """幻影: left out while alice has a soldier, which ones became bulwarks is not
    recorded (none is assumed); [] is none."""
    flow = table(trumps={"alice": ["H7"], "bob": []})
    ch = soldier(flow, "alice", ["S5"])
    assert resolve(flow, "illusion") == [MISSING]
    assert resolve(flow, "illusion", choices={"soldiers": []}) == []
    assert rules(flow).find(ch.ref) is ch and ch.kind == "soldier"


def test_an_empty_bulwark_order_reorders_nothing() -> None:
    """幻影's bulwark order is optional (docs/choices.md): left out or [], the field order
    is kept; an order that leaves a bulwark out is invalid."""
    flow = table(trumps={"alice": ["H7"], "bob": []})
    soldier(flow, "alice", ["D2"], kind="bulwark")
    soldier(flow, "alice", ["H3"], kind="bulwark")
    assert resolve(flow, "illusion", choices={"soldiers": [], "bulwark_order": []}) == []
    assert resolve(flow, "illusion", choices={"soldiers": []}) == []
    assert resolve(flow, "illusion", choices={"soldiers": [],
                                              "bulwark_order": ["alice:H3"]}) == [INVALID]


def test_a_salvation_order_recorded_empty_is_invalid() -> None:
    """救済: bob's two cards go on his deck in an order he chooses; left out, the order is
    not recorded; [] names neither card."""
    for choices, found in ((None, [MISSING]), ({"order": {"bob": []}}, [INVALID])):
        flow = table(trumps={"alice": ["H8"], "bob": []})
        soldier(flow, "bob", ["S9", "H8"], kind="armed_soldier")
        assert resolve(flow, "salvation", keys=["alice:H5"], choices=choices) == found


# ---------------------------------------------------------------------- nothing to record
@pytest.mark.parametrize(("action", "trumps", "setup"), [
    ("reunion", None, "graveyard"),          # 再会: an empty graveyard
    ("drain", {"alice": ["S3"], "bob": []}, "field"),  # ドレイン: no own character
    ("switch", {"alice": ["C4"], "bob": []}, "hand"),  # スイッチ: no hand card
])
def test_a_choice_with_nothing_to_choose_is_not_missing(
        action: str, trumps: dict[str, list[str]] | None, setup: str) -> None:
    flow = table("9.0" if trumps is None else "6.1", "pro" if trumps is None else "extra",
                 trumps)
    board = rules(flow).boards["alice"]
    if setup == "graveyard":
        board.graveyard.clear()
    elif setup == "hand":
        board.hand_known.clear()
        board.hand_unknown = 0
    targets = ["bob"] if action == "drain" else []
    assert MISSING not in resolve(flow, action, targets=targets)


def test_a_search_of_an_empty_deck_takes_nothing_and_records_nothing() -> None:
    """Found: "Search: the card taken is not recorded" and "The deck is empty" (an
    error) for a search that could take nothing: partial execution, no finding."""
    flow = table("9.0", "lite")
    rules(flow).boards["alice"].deck = []
    assert resolve(flow, "search", keys=["alice:JK1"]) == []


# ---------------------------------------------------------------------- Duel Masters
def _crush(turn_two: bool, choices: dict[str, Any] | None) -> list[tuple[int, str, str]]:
    """Bob casts Crushing Fall (destroy one of the opponent's creatures, chosen while it
    resolves): on turn 2, when alice has no creature, or on turn 4 against her imp."""
    lines = fixture("duel_masters", "cross-gear-power-left-out")
    head = lines[:12] if turn_two else lines[:30]
    mana = "bob:stone#6" if turn_two else "bob:stone#7"
    cast = {"type": "request", "request": "c1", "player": "bob", "action": "cast",
            "key_cards": ["bob:crush#1"], "choices": {"mana": [mana]}}
    done = {"type": "resolve", "request": "c1", "result": "resolved",
            **({"choices": choices} if choices is not None else {})}
    return [f for f in judged(numbered([*head, cast, done])) if f[0] == len(head) + 2]


def test_duel_masters_reads_left_out_and_empty_targets_apart() -> None:
    assert [f[1:] for f in _crush(False, None)] == [MISSING]
    assert [f[1:] for f in _crush(False, {"targets": []})] == [INVALID]
    assert _crush(False, {"targets": ["alice:imp#1"]}) == []
    assert _crush(True, None) == []  # no creature to choose: nothing to record


def test_a_cost_of_zero_asks_for_no_mana_cards() -> None:
    """A card of cost 0 taps nothing: no "mana cards tapped are not recorded"."""
    lines = fixture("duel_masters", "cross-gear-power-left-out")
    lines[0]["cards"]["imp"]["cost"] = 0
    summon = {"type": "request", "request": "z1", "player": "alice", "action": "summon",
              "key_cards": ["alice:imp#1"]}
    done = {"type": "resolve", "request": "z1", "result": "resolved"}
    assert judged(numbered([*lines[:18], summon, done])) == []


# ---------------------------------------------------------------------- i-language
@pytest.mark.parametrize(("choices", "found"), [
    (None, [("log.choice-missing", "warning")]),
    ({"targets": []}, [("legality.choice-invalid", "error")]),
])
def test_i_language_reads_left_out_and_empty_targets_apart(
        choices: dict[str, Any] | None, found: list[tuple[str, str]]) -> None:
    """舞踏子's ability damages one of the opponent's cards: the target is not recorded
    (left out), or none was chosen while three could be ([])."""
    lines = fixture("i_language", "ability-twice")[:2]
    ask = {"type": "request", "request": "r1", "player": "alice", "action": "ability",
           "key_cards": ["alice:maiko"]}
    done = {"type": "resolve", "request": "r1", "result": "resolved",
            **({"choices": choices} if choices is not None else {})}
    assert [f[1:] for f in judged(numbered([*lines, ask, done]))] == found
