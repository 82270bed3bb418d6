"""BlackPoker 9.0 extra frame: the trump characters (♠J リアニメーター, ♠K 魔王, ♡J 破砕士,
♡K 巨人, ♢J 策士, ♣J 騎士) and their actions (docs/decisions.md §6, XC1-XC9).

The ruling fixtures (fixtures/rulings/frames/) freeze one situation each; these tests
judge them again finding by finding, change them where a triggered request is left out
or handled out of order, check what the judge rules on a request (timing, cost, key card
or unit, target, the trump face up), and judge simulated games of the frame.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules, load_edition
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.models import Request, Trigger
from coreflow_judge.events.reader import iter_lines

from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
EXTRA_9 = ROOT / "fixtures" / "rulings" / "frames"
game = pooled(simulate_game)

CHARACTER_ACTIONS = {
    "reanimator": ["summon_reanimator", "quick_summon_reanimator", "reincarnation_summon",
                   "reanimator_revive"],
    "dark_lord": ["summon_dark_lord", "dark_whisper"],
    "wall_breaker": ["summon_wall_breaker", "quick_summon_wall_breaker", "pulverize",
                     "wall_breaker_revive"],
    "giant": ["summon_giant"],
    "strategist": ["summon_strategist", "quick_summon_strategist", "counter_summon_strategist",
                   "foresight", "strategist_revive"],
    "knight": ["summon_knight", "quick_summon_knight", "sweep", "knight_revive"],
}
TRUMPS = {"S11": "reanimator", "S13": "dark_lord", "H11": "wall_breaker", "H13": "giant",
          "D11": "strategist", "C11": "knight"}
REVIVES = {"reanimator_revive", "wall_breaker_revive", "strategist_revive", "knight_revive"}


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXTRA_9 / f"{name}.jsonl").read_text().splitlines()]


def _judge(lines: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """Every finding of the log (renumbered 1..n) as (code, seq, severity)."""
    numbered = [{**d, "seq": i} for i, d in enumerate(lines, start=1)]
    report = judge_lines(iter_lines([json.dumps(d) for d in numbered]))
    return [(f.code, f.seq, f.severity) for f in report.findings]


def _req(rid: str, player: str, action: str, keys: tuple[str, ...] = (),
         costs: tuple[tuple[str, str], ...] = (), targets: tuple[str, ...] = ()
         ) -> dict[str, Any]:
    return {"type": "request", "request": rid, "player": player, "action": action,
            "key_cards": list(keys), "costs": [{"kind": k, "ref": r} for k, r in costs],
            "targets": list(targets)}


# ---------------------------------------------------------------------- the data
def test_every_trump_character_action_is_judged() -> None:
    """Each action of the six trump characters is in the frame's actions (none is left in
    not_judged_yet), only with the extra frame; each trump names its character."""
    framed = BlackPokerRules("9.0", "master", "extra")
    plain = BlackPokerRules("9.0", "master")
    ids = {a for acts in CHARACTER_ACTIONS.values() for a in acts}
    assert ids <= set(framed.actions)
    assert not ids & set(framed.not_judged_yet)
    assert not ids & set(plain.actions)
    data = load_edition("9.0")
    for card, kind in TRUMPS.items():
        assert framed.trump_data[card]["character"] == kind, card
        granted = set(framed.trump_data[card]["grants"])
        # the summons need the trump face up; the character's own actions its key unit
        assert granted == {a for a in CHARACTER_ACTIONS[kind] if "summon" in a
                           and a != "reincarnation_summon"}, card
        spec = data["characters"][kind]
        started = {g["action"] for g in spec.get("grants", ())} | {
            t["action"] for t in spec.get("triggers", ())}
        assert granted | started == set(CHARACTER_ACTIONS[kind]), card


def test_the_trump_characters_as_9_0_words_them() -> None:
    """Fixed sizes, two suits each, 世代交代 per honour card (XC1), 魔王/巨人 untargetable,
    the J characters not equippable and revived from the graveyard only (XC3)."""
    data = load_edition("9.0")["characters"]
    for kind in CHARACTER_ACTIONS:
        spec = data[kind]
        assert spec["size"] == "fixed" and spec["next_generation"] is True, kind
        assert spec["number"] == (26 if kind in ("dark_lord", "giant") else 11), kind
        assert len(spec["suits"]) == 2, kind
        assert spec.get("untargetable", False) == (kind in ("dark_lord", "giant")), kind
        revive = [t for t in spec.get("triggers", ()) if t["action"] in REVIVES]
        assert [t["event"] for t in revive] == (
            [] if kind in ("dark_lord", "giant") else ["field_to_graveyard"]), kind


# ---------------------------------------------------------------------- the fixtures
RULINGS: dict[str, list[tuple[str, int, str]]] = {
    "reanimator-reincarnation-revive-9.0": [],
    "reincarnation-summon-key-unit-not-reanimator-9.0": [
        ("legality.ability-not-in-force", 9, "error")],
    "dark-lord-clears-first-whisper-9.0": [],
    "dark-lord-not-found-clears-anyway-9.0": [("legality.effect-mismatch", 8, "error")],
    "wall-breaker-summon-and-pulverize-9.0": [],
    "pulverize-targets-a-soldier-9.0": [("legality.target-invalid", 9, "error")],
    "giant-summon-clears-bulwarks-9.0": [],
    "giant-cannot-be-targeted-9.0": [("legality.target-invalid", 11, "error")],
    "strategist-summon-draws-foresight-9.0": [],
    "counter-strategist-negates-9.0": [],
    "counter-strategist-key-too-low-9.0": [("legality.choice-invalid", 10, "error")],
    "knight-summon-and-sweep-9.0": [],
    "knight-sacrifice-own-soldier-9.0": [("legality.choice-invalid", 8, "error")],
}


@pytest.mark.parametrize("name", sorted(RULINGS))
def test_each_ruling_gives_exactly_its_findings(name: str) -> None:
    """A legal use: no finding at all; an illegal one: exactly the finding checked by hand."""
    assert _judge(_lines(name)) == RULINGS[name]


def test_every_character_has_a_legal_and_an_illegal_fixture() -> None:
    named = {"reanimator": "reanimator", "dark_lord": "dark-lord", "wall_breaker":
             "wall-breaker", "giant": "giant", "strategist": "strategist", "knight": "knight"}
    for kind, word in named.items():
        mine = {n: f for n, f in RULINGS.items()
                if word in n or any(a.replace("_", "-") in n for a in CHARACTER_ACTIONS[kind])}
        assert any(not f for f in mine.values()), kind
        assert any(f for f in mine.values()), kind


def test_the_summons_need_their_trump_face_up() -> None:
    """A summon requested with its trump face down: legality.ability-not-in-force (E3)."""
    lines = _lines("pulverize-targets-a-soldier-9.0")[:2]
    summon = _req("a1", "alice", "quick_summon_wall_breaker", ("alice:D8",),
                  (("D", "alice:C2"),))
    assert _judge([*lines, summon]) == [("legality.ability-not-in-force", 3, "error")]


# ---------------------------------------------------------------------- requests
def _knight_on_field() -> list[dict[str, Any]]:
    """Alice's 騎士 summoned (seq 8), bob's soldier gone; alice holds the chance."""
    return _lines("knight-summon-and-sweep-9.0")[:8]


def test_a_quick_summon_costs_d_not_bl() -> None:
    """9.0's quick summons are actions of their own at $D (6.1: the summon's alternative
    $BD): paying the main summon's $BL is legality.cost-unpaid."""
    lines = _lines("knight-sacrifice-own-soldier-9.0")[:4]
    quick = _req("a2", "alice", "quick_summon_knight", ("alice:S4",),
                 (("B", "alice:D2"), ("L", "alice:?")))
    assert _judge([*lines, quick]) == [("legality.cost-unpaid", 5, "error")]


def test_a_main_summon_is_not_requested_at_quick_timing() -> None:
    """騎士召喚 is main timing: bob requesting it on alice's turn, over her summon on the
    stage, breaks both timing conditions; クイック騎士召喚 ($D, quick) there is legal."""
    lines = _lines("counter-strategist-key-too-low-9.0")[:4]  # alice's a1 on the stage
    lines[1] = copy.deepcopy(lines[1])
    lines[1]["trumps"] = {"alice": [], "bob": ["C11"]}
    lines[1]["hands"]["bob"] = ["S5", "H12", "C8", "D4", "S6", "C4", "H7"]
    opened = [_req("b1", "bob", "quick_open", (), (("D", "bob:C8"), ("D", "bob:D4"))),
              {"type": "resolve", "request": "b1", "result": "resolved",
               "choices": {"trump": "bob:C11"}}]
    main = _req("b2", "bob", "summon_knight", ("bob:S5",), (("B", "bob:D3"), ("L", "bob:?")))
    assert _judge([*lines, *opened, main]) == [("timing.main-not-turn-player", 7, "error"),
                                               ("timing.main-stage-not-empty", 7, "error")]
    quick = _req("b2", "bob", "quick_summon_knight", ("bob:S5",), (("D", "bob:H7"),))
    assert _judge([*lines, *opened, quick]) == []


def test_a_key_card_of_another_suit_is_refused() -> None:
    lines = _lines("knight-sacrifice-own-soldier-9.0")[:4]
    wrong = _req("a2", "alice", "summon_knight", ("alice:H4",),
                 (("B", "alice:D2"), ("L", "alice:?")))
    assert _judge([*lines, wrong]) == [("legality.key-card-invalid", 5, "error")]


def test_the_key_unit_must_be_in_charge_state() -> None:
    """薙払 twice: the first drives 騎士 (its cost C), the second finds it in drive state."""
    lines = _knight_on_field()
    sweep = [_req("a3", "alice", "sweep", (), (("C", "alice:S4"),), ("bob",)),
             {"type": "resolve", "request": "a3", "result": "resolved",
              "choices": {"character": "bob:D3"}}]
    again = _req("a4", "alice", "sweep", (), (("C", "alice:S4"),), ("bob",))
    assert _judge([*lines, *sweep]) == []
    assert _judge([*lines, *sweep, again]) == [("legality.cost-unpaid", 11, "error")]


def test_a_triggered_character_action_is_not_requested_directly() -> None:
    lines = _knight_on_field()
    direct = _req("a3", "alice", "knight_revive")
    assert ("timing.not-directly-actionable", 9, "error") in _judge([*lines, direct])


# ---------------------------------------------------------------------- triggered requests
def test_a_revive_left_out_is_a_missed_trigger() -> None:
    """転生召喚 sends リアニメーター to the graveyard: its ♠J triggers 世代交代 and
    リアニメーター再生. Play going on without them: each is order.trigger-missed, as any
    triggered request the table never resolved (C3): one finding at the line, naming
    both (one finding per code per line)."""
    lines = _lines("reanimator-reincarnation-revive-9.0")
    assert lines[12]["type"] == "trigger"
    end = _req("a4", "alice", "end")
    found = _judge([*lines[:12], end])
    assert found == [("order.trigger-missed", 13, "error")]


def test_dark_whisper_left_out_is_a_missed_trigger() -> None:
    """Requesting End with 魔王 on the field triggers 魔王の囁き (instant): End resolving
    without it is order.trigger-missed."""
    lines = _lines("dark-lord-clears-first-whisper-9.0")
    assert [d.get("action") for d in lines[9:11]] == ["dark_whisper", None]
    found = _judge([*lines[:9], *lines[11:]])
    assert found == [("order.trigger-missed", 10, "error")]


def test_dark_whisper_before_a_normal_trigger_of_the_same_end() -> None:
    """With ファントム (♡7) up too, End triggers 魔王の囁き (instant) and 幻影 (normal): the
    instant one is handled first; staging 幻影 before it is
    order.trigger-instant-before-normal."""
    lines = _lines("dark-lord-clears-first-whisper-9.0")
    lines[1] = copy.deepcopy(lines[1])
    lines[1]["trumps"]["alice"] = ["S13", "H7"]
    open_h7 = [_req("a0", "alice", "quick_open", (), (("D", "alice:S3"), ("D", "alice:H4"))),
               {"type": "resolve", "request": "a0", "result": "resolved",
                "choices": {"trump": "alice:H7"}}]
    whisper = lines[10]
    head = [*lines[:2], *open_h7, *lines[2:9]]
    triggers = [{"type": "trigger", "request": "t1", "action": "dark_whisper", "source": "a3",
                 "controller": "alice"},
                {"type": "trigger", "request": "t2", "action": "illusion", "source": "a3",
                 "controller": "alice"}]
    illusion: list[dict[str, Any]] = [
        {"type": "pass", "player": "alice"}, {"type": "pass", "player": "bob"},
        {"type": "resolve", "request": "t2", "result": "resolved", "choices": {"soldiers": []}}]
    stage: dict[str, Any] = {"type": "stage", "request": "t2"}
    assert _judge([*head, *triggers, whisper, stage, *illusion]) == []
    found = _judge([*head, *triggers, stage, whisper, *illusion])
    assert found == [("order.trigger-instant-before-normal", 14, "error")]


def _knight_killed_on_alices_turn(order: list[str]) -> list[dict[str, Any]]:
    """Bob summons 騎士 on his turn; on alice's, her 魔王召喚 sends every soldier to the
    graveyard: her ace (世代交代 for alice) and bob's 騎士 (世代交代 and 騎士再生 for bob),
    all instant. ``order``: the triggered requests resolved, by id."""
    start = _lines("knight-summon-and-sweep-9.0")[:2]
    start[0] = {**start[0], "match_id": "knight-revive-turn-order-9.0"}
    start[1] = {**copy.deepcopy(start[1]), "first_player": "bob",
                "reveals": {"alice": ["S4"], "bob": ["H9"]},
                "hands": {"alice": ["H1", "S9", "C13", "C2", "D6", "S3", "H4"],
                          "bob": ["S5", "C8", "D4", "S6", "S2", "H7", "H12", "C3"]},
                "trumps": {"alice": ["S13"], "bob": ["C11"]}}

    def res(rid: str, choices: dict[str, Any] | None = None,
            effects: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resolve", "request": rid, "result": "resolved"}
        if choices:
            out["choices"] = choices
        if effects is not None:
            out["effects"] = effects
        return out

    def passes(first: str, second: str) -> list[dict[str, Any]]:
        return [{"type": "pass", "player": first}, {"type": "pass", "player": second}]

    def mv(card: str, frm: str, to: str) -> dict[str, Any]:
        return {"op": "move", "card": card, "from": frm, "to": to}

    lines = [
        *start,
        _req("b1", "bob", "quick_open", (), (("D", "bob:C8"), ("D", "bob:D4"))),
        res("b1", {"trump": "bob:C11"}),
        _req("b2", "bob", "summon_knight", ("bob:S5",), (("B", "bob:D3"), ("L", "bob:?"))),
        *passes("bob", "alice"),
        res("b2", {"soldier": "alice:S8"}),
        _req("b3", "bob", "end"), *passes("bob", "alice"), res("b3"),
        res("t1"), *passes("alice", "bob"), res("t2"),   # alice's Charge and Draw
        _req("a1", "alice", "summon_ace", ("alice:H1",), (("L", "alice:?"),)),
        *passes("alice", "bob"), res("a1"),
        _req("a2", "alice", "summon_soldier", ("alice:S9",), (("B", "alice:D2"),
                                                              ("L", "alice:?"))),
        *passes("alice", "bob"), res("a2"),
        _req("a3", "alice", "quick_open", (), (("D", "alice:C2"), ("D", "alice:D6"))),
        res("a3", {"trump": "alice:S13"}),
        _req("a4", "alice", "summon_dark_lord", (), (("S", "alice:D2"), ("S", "alice:S9"))),
        *passes("alice", "bob"), res("a4"),
        {"type": "trigger", "request": "t3", "action": "next_generation", "source": "a4",
         "controller": "alice"},
        {"type": "trigger", "request": "t4", "action": "next_generation", "source": "a4",
         "controller": "bob"},
        {"type": "trigger", "request": "t5", "action": "knight_revive", "source": "a4",
         "controller": "bob"},
    ]
    resolutions = {
        "t3": res("t3", None, [mv("alice:H6", "deck", "graveyard"),
                               mv("alice:D12", "deck", "hand")]),
        "t4": res("t4", None, [mv("bob:S7", "deck", "hand")]),
        "t5": res("t5", {"card": "bob:C11"}),
    }
    return lines + [resolutions[r] for r in order]


def test_the_turn_players_triggers_come_before_a_revive_of_the_other() -> None:
    """Bob's 騎士再生 triggered on alice's turn waits for alice's own instant 世代交代: the
    turn player's triggered requests first (C3); resolving bob's first is
    order.trigger-turn-order, as for any triggered request."""
    assert _judge(_knight_killed_on_alices_turn(["t3", "t5", "t4"])) == []
    found = _judge(_knight_killed_on_alices_turn(["t5", "t3", "t4"]))
    assert found == [("order.trigger-turn-order", 34, "error")]


# ---------------------------------------------------------------------- simulated games
def test_simulated_extra_games_use_the_trump_characters_cleanly() -> None:
    """The simulator summons the trump characters and uses their actions; the judge finds
    no error in those games and never stops early (nothing they use is listed as not
    judged yet)."""
    used: set[str] = set()
    ids = {a for acts in CHARACTER_ACTIONS.values() for a in acts}
    for seed in range(40):
        log = game("9.0", seed, "master", frame="extra")
        report = judge_lines(enumerate(log, start=1))
        assert report.errors == 0, (seed, [(f.seq, f.code, f.message) for f in
                                           report.findings if f.severity == "error"])
        assert "log.not-judged-yet" not in {f.code for f in report.findings}, seed
        used |= {ln.action for ln in log if isinstance(ln, (Request, Trigger))} & ids
    summoned = {kind for kind, acts in CHARACTER_ACTIONS.items()
                if any(a in used for a in acts if "summon" in a and a != "reincarnation_summon")}
    assert len(summoned) >= 4, (summoned, used)
    assert used & (REVIVES | {"dark_whisper"}), used  # a character's triggered action
    assert used & {"reincarnation_summon", "pulverize", "foresight", "sweep"}, used
