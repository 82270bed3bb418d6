"""Unknown is not wrong (issue 22, class 3): wherever a BlackPoker check compares with a
card whose face the log does not show (``?``), the judge says what it cannot check
(``log.hidden-info``, a warning) and follows what the table recorded; it never states a
guess as an error (docs/decisions.md, "Hidden cards and counts").

Each test sets one table up, hides one face, and resolves (or requests) the one action
whose check reads it. Duel Masters compares hidden faces only where it already says so
(a key card, a mana card or a shield written ``?``), and the i-language game has no hidden
faces: its decks are in the header.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.blackpoker.board import Character, Trump
from coreflow_judge.adjudicator.games.blackpoker.lines import (
    BlackPokerGameStarted,
    BlackPokerMatchStarted,
)
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.judge import judge_lines, start_flow
from coreflow_judge.events.models import Request, Resolve
from coreflow_judge.events.reader import iter_lines

HIDDEN = ("log.hidden-info", "warning")


def table(edition: str = "6.1", fmt: str = "extra",
          trumps: dict[str, list[str]] | None = None, frame: str | None = None) -> CoreFlow:
    """A game just started (alice first, decks of 30 unseen cards), no character on the
    field (the 9.0 presets taken off: each test puts its own)."""
    flow = start_flow(BlackPokerMatchStarted.model_validate({
        "seq": 1, "type": "match_started", "match_id": "t", "game": "blackpoker",
        "rules": f"blackpoker/{edition}", "format": fmt, "players": ["alice", "bob"],
        "deck_sizes": {"alice": 30, "bob": 30}, "log_format": 1,
        **({"frame": frame} if frame else {})}))
    start: dict[str, Any] = {"seq": 2, "type": "game_started", "first_player": "alice"}
    if edition == "9.0":
        start["presets"] = {p: {"bulwark": f"{p}:?", "soldier": f"{p}:?"} for p in
                            ("alice", "bob")}
    if trumps:
        start["trumps"] = trumps
    flow.feed(BlackPokerGameStarted.model_validate(start))
    for board in rules(flow).boards.values():
        board.field.clear()
    return flow


def rules(flow: CoreFlow) -> BlackPokerRules:
    assert isinstance(flow.rules, BlackPokerRules)
    return flow.rules


def soldier(flow: CoreFlow, owner: str, cards: list[str], kind: str = "soldier") -> Character:
    ch = Character(f"{owner}:{cards[0]}", owner, kind, list(cards), [0] * len(cards),
                   timestamp=rules(flow).tick())
    rules(flow).boards[owner].field.append(ch)
    return ch


def staged(flow: CoreFlow, rid: str, action: str, player: str, keys: list[str]) -> Req:
    """A request of ``player`` already on the stage (a Counter's target)."""
    req = Req(rid, rules(flow).actions[action], player, 0, False, key_cards=keys,
              status="stage")
    flow.ledger.add(req)
    flow.stage.append(req)
    return req


def resolve(flow: CoreFlow, action: str, keys: list[str] | None = None,
            targets: list[str] | None = None, choices: dict[str, Any] | None = None,
            effects: list[dict[str, Any]] | None = None,
            data: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """Resolve ``action`` of alice's with these key cards, targets, choices and recorded
    effects; the findings' (code, severity)."""
    rid = f"x{flow.next_seq}"
    req = Req(rid, rules(flow).actions[action], "alice", flow.next_seq, False,
              key_cards=list(keys or []), targets=list(targets or []), data=dict(data or {}))
    flow.ledger.add(req)
    line = Resolve.model_validate({"seq": flow.next_seq, "type": "resolve", "request": rid,
                                   "result": "resolved", "choices": choices,
                                   "effects": effects})
    flow.next_seq += 1
    return [(f.code, f.severity) for f in rules(flow).resolve(flow, req, line).findings]


def requested(flow: CoreFlow, action: str, keys: list[str], targets: list[str],
              costs: list[dict[str, str]] | None = None) -> list[tuple[str, str]]:
    line = Request.model_validate({"seq": flow.next_seq, "type": "request", "request": "q",
                                   "player": "alice", "action": action, "key_cards": keys,
                                   "targets": targets, "costs": costs or []})
    found = rules(flow).request_findings(flow, line, rules(flow).actions[action])
    return [(f.code, f.severity) for f in found if f.code != "legality.cost-unpaid"]


# ---------------------------------------------------------------------- a choice among faces
def test_a_card_chosen_in_a_graveyard_of_unseen_faces_is_a_warning() -> None:
    """再会: the graveyard holds a card the log never showed (a $L): the card named may be
    it. Where every face is shown, another card is still an error."""
    flow = table("9.0", "pro")
    board = rules(flow).boards["alice"]
    board.graveyard = ["?"]
    assert resolve(flow, "reunion", choices={"card": "alice:S5"}) == [HIDDEN]
    assert board.hand_known["S5"] == 1 and board.graveyard == []
    board.graveyard = ["H2"]
    assert resolve(flow, "reunion", choices={"card": "alice:S5"}) == [
        ("legality.choice-invalid", "error")]


def test_a_repair_card_among_unseen_graveyard_faces_is_a_warning() -> None:
    """修繕 (6.1): the ♢J-K chosen may be the graveyard's unseen card."""
    flow = table(trumps={"alice": ["D8"], "bob": []})
    soldier(flow, "alice", ["D5"])
    rules(flow).boards["alice"].graveyard = ["?", "C3"]
    found = resolve(flow, "repair", targets=["alice:D5"], choices={"card": "alice:D12"})
    assert found == [HIDDEN]
    assert rules(flow).boards["alice"].graveyard == ["C3"]


def test_a_revealed_card_the_log_does_not_list_is_a_warning() -> None:
    """援軍 (the fixture hidden-revealed-cards-warning-6.1 plays the whole game)."""
    flow = table(trumps={"alice": ["H2"], "bob": []})
    assert resolve(flow, "reinforcement", choices={"soldier": "alice:S7"}) == [HIDDEN]
    assert rules(flow).find("alice:S7") is not None


# ---------------------------------------------------------------------- numbers and suits
def test_a_counter_whose_own_key_card_is_unseen_negates_only_as_recorded() -> None:
    flow = table("9.0", "lite")
    staged(flow, "r1", "summon_soldier", "bob", ["bob:S5"])
    assert resolve(flow, "counter", keys=["alice:?"], targets=["r1"]) == [HIDDEN]
    assert flow.requests["r1"].status == "stage"
    negate = [{"op": "negate", "request": "r1"}]
    assert resolve(flow, "counter", keys=["alice:?"], targets=["r1"], effects=negate) == [
        HIDDEN]
    assert flow.requests["r1"].status == "negated"


def test_an_up_whose_key_card_is_unseen_leaves_the_size_unknown_or_as_recorded() -> None:
    flow = table("9.0", "lite")
    ch = soldier(flow, "alice", ["S9"])
    assert resolve(flow, "up", keys=["alice:?"], targets=[ch.ref]) == [HIDDEN]
    assert rules(flow).size(ch) is None  # not 9: a guess would be an error later
    other = soldier(flow, "alice", ["S8"])
    found = resolve(flow, "up", keys=["alice:?"], targets=[other.ref],
                    effects=[{"op": "size", "character": other.ref, "delta": 4,
                              "until": "end_of_turn"}])
    assert found == [HIDDEN] and rules(flow).size(other) == 12


def test_a_throwing_whose_key_card_is_unseen_deals_the_recorded_damage() -> None:
    flow = table("9.0", "lite")
    before = rules(flow).boards["bob"].deck_count
    assert before is not None
    found = resolve(flow, "throwing", keys=["alice:?", "alice:C4"], targets=["bob"],
                    effects=[{"op": "damage", "player": "bob", "amount": 7}])
    assert found == [HIDDEN]
    assert rules(flow).boards["bob"].deck_count == before - 7


def test_an_unrecorded_damage_of_an_unseen_count_leaves_the_life_count_unknown() -> None:
    """Without effects the damage cannot be known: the life count is unknown from there
    (deck-out is then a warning at the end, never a guessed result)."""
    flow = table("9.0", "lite")
    assert resolve(flow, "throwing", keys=["alice:?", "alice:C4"], targets=["bob"]) == [
        HIDDEN]
    assert rules(flow).boards["bob"].deck_count is None


def test_a_fortress_against_an_unseen_key_card_follows_the_table() -> None:
    """要塞 (6.1): whether R・S・F's key cards hold a ♠ cannot be checked; the table dealt
    no damage (its effects record none), and that is followed."""
    flow = table(trumps={"alice": [], "bob": ["C9"]})
    rules(flow).boards["bob"].trumps[0].face_up = True
    soldier(flow, "bob", ["H5"])
    before = rules(flow).boards["bob"].deck_count
    found = resolve(flow, "rsf", keys=["alice:?"] * 5, targets=["bob"], effects=[])
    assert found == [HIDDEN]
    assert rules(flow).boards["bob"].deck_count == before


def test_a_trap_counter_with_an_unseen_key_card_negates_only_as_recorded() -> None:
    """Found: ``?`` parsed as a face with no suit and no number, so it was "not the same
    card" and a recorded negation was legality.effect-mismatch."""
    flow = table("9.0", "lite", frame="rare_pack")
    staged(flow, "r1", "summon_soldier", "bob", ["bob:S5"])
    negate = [{"op": "negate", "request": "r1"}]
    assert resolve(flow, "trap_counter", keys=["alice:?"], targets=["r1"],
                   effects=negate) == [HIDDEN]
    assert flow.requests["r1"].status == "negated"


def test_an_intimidation_of_a_soldier_whose_number_is_unseen_follows_the_table() -> None:
    flow = table(trumps={"alice": ["S4"], "bob": []})
    ch = soldier(flow, "bob", ["?"])
    moved = [{"op": "move", "card": "bob:?", "from": "field", "to": "graveyard"}]
    assert resolve(flow, "intimidate", effects=moved) == [HIDDEN]
    assert ch not in rules(flow).boards["bob"].field


def test_a_salvation_of_a_soldier_whose_number_is_unseen_follows_the_table() -> None:
    flow = table(trumps={"alice": ["H8"], "bob": []})
    ch = soldier(flow, "bob", ["?"])
    moved = [{"op": "move", "card": "bob:?", "from": "field", "to": "deck",
              "position": "top"}]
    assert resolve(flow, "salvation", keys=["alice:H5"], effects=moved) == [HIDDEN]
    assert ch not in rules(flow).boards["bob"].field


def test_a_damage_by_an_attacker_of_unseen_size_is_the_recorded_damage() -> None:
    flow = table("9.0", "lite")
    att = soldier(flow, "alice", ["?"])
    r = rules(flow)
    attack = Req("a", r.actions["attack"], "alice", 0, False, data={"attackers": [att.ref]})
    block = Req("b", r.actions["block"], "bob", 0, True, source="a",
                data={"attackers": [att.ref], "blockers": {}})
    judged = Req("d", r.actions["damage_judge"], "alice", 0, True, source="b")
    for req in (attack, block, judged):
        flow.ledger.add(req)
    before = r.boards["bob"].deck_count
    assert before is not None
    line = Resolve.model_validate({"seq": flow.next_seq, "type": "resolve", "request": "d",
                                   "result": "resolved", "effects": [
                                       {"op": "damage", "player": "bob", "amount": 6}]})
    res = r.resolve(flow, judged, line)
    assert [(f.code, f.severity) for f in res.findings] == [HIDDEN]
    assert r.boards["bob"].deck_count == before - 6


# ---------------------------------------------------------------------- trumps
def test_a_close_of_a_trump_whose_suit_is_unseen_follows_the_table() -> None:
    flow = table(trumps={"alice": [], "bob": ["H2"]})
    trump = rules(flow).boards["bob"].trumps[0]
    trump.face_up = True
    flip = [{"op": "flip", "card": "bob:H2", "face": "down"}]
    assert resolve(flow, "close", keys=["alice:?"], targets=["bob:H2"], effects=flip) == [
        HIDDEN]
    assert not trump.face_up


def test_a_trump_destruction_by_an_unseen_key_card_follows_the_table() -> None:
    flow = table(trumps={"alice": [], "bob": ["H2"]})
    rules(flow).boards["bob"].trumps[0].face_up = True
    gone = [{"op": "move", "card": "bob:H2", "from": "trump", "to": "graveyard"}]
    assert resolve(flow, "trump_destroy", keys=["alice:?"], targets=["bob:H2"],
                   effects=gone) == [HIDDEN]
    assert rules(flow).boards["bob"].trumps == []


def test_a_strategist_against_an_unseen_key_card_negates_as_recorded() -> None:
    flow = table(trumps={"alice": ["D11"], "bob": []})
    rules(flow).boards["alice"].trumps[0].face_up = True
    staged(flow, "r1", "summon_soldier", "bob", ["bob:?"])
    found = resolve(flow, "summon_strategist", keys=["alice:S9"],
                    choices={"request": "r1"})
    assert found == [HIDDEN]
    assert flow.requests["r1"].status == "negated"


def test_a_face_up_trump_whose_face_is_unseen_is_no_missing_grant() -> None:
    """A trump turned face up without its face recorded may be the one that grants."""
    flow = table(trumps={"alice": ["?"], "bob": []})
    rules(flow).boards["alice"].trumps[0].face_up = True
    assert requested(flow, "reinforcement", [], []) == [HIDDEN]
    rules(flow).boards["alice"].trumps = [Trump("S2", face_up=True)]
    assert requested(flow, "reinforcement", [], []) == [
        ("legality.ability-not-in-force", "error")]


def test_an_originator_whose_suit_is_unseen_is_a_warning() -> None:
    """スラッシュ is started by a ♠ soldier under ♠2: a soldier of an unseen card may be
    one."""
    flow = table(trumps={"alice": ["S2"], "bob": []})
    rules(flow).boards["alice"].trumps[0].face_up = True
    soldier(flow, "alice", ["?"])
    line = Request.model_validate({"seq": 9, "type": "request", "request": "q",
                                   "player": "alice", "action": "slash", "key_cards": [],
                                   "targets": ["bob:H5"], "costs": [{"kind": "C",
                                                                     "ref": "alice:?"}]})
    soldier(flow, "bob", ["H5"])
    found = rules(flow).grant_findings(flow, line, rules(flow).actions["slash"])
    assert [(f.code, f.severity) for f in found] == [HIDDEN]


# ---------------------------------------------------------------------- targets and orders
@pytest.mark.parametrize(("edition", "fmt", "action", "keys", "trumps"), [
    ("6.1", "extra", "repair", [], {"alice": ["D8"], "bob": []}),  # contains ♢2-10
    ("9.0", "lite", "mount", ["alice:S4"], None),                 # the key card's suit
])
def test_a_target_condition_on_unseen_faces_is_a_warning(
        edition: str, fmt: str, action: str, keys: list[str],
        trumps: dict[str, list[str]] | None) -> None:
    flow = table(edition, fmt, trumps)
    if trumps:
        rules(flow).boards["alice"].trumps[0].face_up = True
    soldier(flow, "alice", ["?"])
    assert requested(flow, action, keys, ["alice:?"]) == [HIDDEN]
    seen = soldier(flow, "alice", ["H4"])
    assert ("legality.target-invalid", "error") in requested(flow, action, keys, [seen.ref])


def test_an_order_naming_a_card_the_log_never_showed_is_a_warning() -> None:
    """死の槍's deck order for a soldier of two cards, one of them unseen."""
    flow = table("9.0", "standard")
    ch = soldier(flow, "bob", ["S4", "?"], kind="armed_soldier")
    found = resolve(flow, "death_lance", keys=["alice:D2", "alice:S3"], targets=[ch.ref],
                    choices={"order": ["bob:H9", "bob:S4"]},
                    effects=[{"op": "move", "card": "bob:S4", "from": "field", "to": "deck",
                              "position": "top"}])
    assert ("legality.choice-invalid", "error") not in found
    assert HIDDEN in found


# ---------------------------------------------------------------------- triggers and haste
def test_a_trigger_an_unseen_card_may_have_caused_is_a_warning() -> None:
    """A face-down bulwark gone to the graveyard unrevealed may have been a J: the
    世代交代 the log records is a warning, where the judge said order.trigger-spurious
    (fixture hidden-bulwark-may-trigger-next-generation-9.0). One unseen card excuses one
    trigger: a second is spurious."""
    from coreflow_judge.adjudicator.judge import judge_file

    path = (Path(__file__).resolve().parent.parent / "fixtures" / "rulings" / "lite"
            / "hidden-bulwark-may-trigger-next-generation-9.0.jsonl")
    found = [(f.seq, f.code) for f in judge_file(path).findings]
    assert (13, "log.hidden-info") in found
    assert all(code != "order.trigger-spurious" for _, code in found)
    lines = path.read_text(encoding="utf-8").splitlines()
    again = json.dumps({"seq": 15, "type": "trigger", "request": "t10",
                        "action": "next_generation", "source": "bob:?",
                        "controller": "bob"})
    report = judge_lines(iter_lines([*lines, again]))
    assert (15, "order.trigger-spurious") in [(f.seq, f.code) for f in report.findings]


def test_an_attacker_entered_this_turn_with_an_unseen_card_may_be_an_ace() -> None:
    """A soldier of an unseen card entered this turn may be an ace (haste): designating
    it an attacker is a warning, not legality.choice-invalid; a seen common soldier is."""
    flow = table("9.0", "lite")
    unseen = soldier(flow, "alice", ["?"])
    seen = soldier(flow, "alice", ["S7"])
    unseen.entered = seen.entered = [flow.turn]
    assert resolve(flow, "attack", choices={"attackers": [unseen.ref]}) == [HIDDEN]
    assert resolve(flow, "attack", choices={"attackers": [seen.ref]}) == [
        ("legality.choice-invalid", "error")]
