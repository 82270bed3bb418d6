"""Unit tests of the core flow's steps, one rule at a time, on tiny logs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.judge import JudgeInputError, judge_lines
from coreflow_judge.events.reader import iter_lines


def log(edition: str, *lines: dict[str, Any], decks: dict[str, list[str]] | None = None,
        sizes: int | None = 30) -> list[str]:
    header: dict[str, Any] = {
        "type": "match_started", "match_id": "t", "game": "blackpoker",
        "rules": f"blackpoker/{edition}", "format": "lite", "players": ["alice", "bob"],
        "log_format": 1,
    }
    if decks:
        header["decks"] = decks
    elif sizes is not None:
        header["deck_sizes"] = {"alice": sizes, "bob": sizes}
    start: dict[str, Any] = {"type": "game_started", "first_player": "alice"}
    if edition == "9.0":
        start["presets"] = {p: {"bulwark": f"{p}:?", "soldier": f"{p}:?"}
                            for p in ("alice", "bob")}
    out = []
    for i, line in enumerate([header, start, *lines], start=1):
        out.append(json.dumps({"seq": i, **line}))
    return out


def run(lines: list[str]) -> tuple[CoreFlow, list[tuple[str, int]]]:
    report = judge_lines(iter_lines(lines))
    assert report.flow is not None
    errors = [(f.code, f.seq) for f in report.findings if f.severity == "error"]
    return report.flow, errors


def req(rid: str, player: str, action: str, keys: list[str] | None = None,
        costs: list[tuple[str, str]] | None = None, targets: list[str] | None = None,
        **extra: Any) -> dict[str, Any]:
    return {"type": "request", "request": rid, "player": player, "action": action,
            "key_cards": keys or [], "costs": [{"kind": k, "ref": r} for k, r in costs or []],
            "targets": targets or [], **extra}


def p(player: str) -> dict[str, Any]:
    return {"type": "pass", "player": player}


def res(rid: str, result: str = "resolved", **extra: Any) -> dict[str, Any]:
    return {"type": "resolve", "request": rid, "result": result, **extra}


ACE = req("r1", "alice", "summon_ace", ["alice:S1"], [("L", "alice:?")])


def test_game_start_gives_the_chance_to_the_first_player() -> None:
    """[1] -> [2]: the chance goes to the turn player."""
    flow, errors = run(log("6.1"))
    assert errors == []
    assert flow.turn_player == "alice" and flow.chance == "alice" and flow.turn == 1
    assert flow.rules.boards["alice"].hand_count == 8  # type: ignore[attr-defined]
    assert flow.rules.boards["bob"].hand_count == 7  # type: ignore[attr-defined]


def test_all_pass_on_empty_stage_returns_chance_to_turn_player() -> None:
    """D3: every player passes with an empty stage -> [2], nothing resolves."""
    flow, errors = run(log("9.0", p("alice"), p("bob")))
    assert errors == []
    assert flow.chance == "alice" and flow.passed == set()


def test_pass_without_chance_changes_nothing() -> None:
    flow, errors = run(log("9.0", p("bob")))
    assert errors == [("timing.no-chance", 3)]
    assert flow.chance == "alice"


def test_61_normal_request_passes_automatically() -> None:
    """D4 for 6.1: after a normal request the chance moves to the next player."""
    flow, errors = run(log("6.1", ACE))
    assert errors == []
    assert flow.chance == "bob" and flow.passed == {"alice"}
    flow, errors = run(log("6.1", ACE,
                           p("bob"), res("r1")))
    assert errors == []
    assert [c.kind for c in flow.rules.boards["alice"].field] == ["ace"]  # type: ignore[attr-defined]


def test_61_explicit_pass_after_normal_request_is_no_chance() -> None:
    _, errors = run(log("6.1", ACE,
                        p("alice")))
    assert errors == [("timing.no-chance", 4)]


def test_90_requester_keeps_the_chance() -> None:
    """D4 for 9.0: the requester keeps the chance and must pass explicitly."""
    flow, errors = run(log("9.0", ACE))
    assert errors == [] and flow.chance == "alice"
    _, errors = run(log("9.0", ACE,
                        p("bob")))
    assert errors == [("timing.no-chance", 4)]


def test_resolution_needs_every_player_to_pass() -> None:
    """[12]: only when all players passed does the top request resolve."""
    lines = log("9.0", ACE,
                p("alice"), res("r1"))
    _, errors = run(lines)
    assert errors == [("timing.resolved-before-all-passed", 5)]


def test_stage_resolves_last_in_first_out() -> None:
    """[15]: the request added last resolves first."""
    lines = log(
        "9.0",
        req("r1", "alice", "summon_soldier", ["alice:S9"], [("B", "alice:?"), ("L", "alice:?")]),
        p("alice"),
        req("r2", "bob", "counter", ["bob:C10"], [("D", "bob:D5")], ["r1"]),
        p("bob"), p("alice"), res("r1"),
    )
    _, errors = run(lines)
    assert ("order.stage-not-lifo", 8) in errors


def test_counter_negates_when_its_number_is_high_enough() -> None:
    lines = log(
        "9.0",
        req("r1", "alice", "summon_soldier", ["alice:S9"], [("B", "alice:?"), ("L", "alice:?")]),
        p("alice"),
        req("r2", "bob", "counter", ["bob:C10"], [("D", "bob:D5")], ["r1"]),
        p("bob"), p("alice"), res("r2", effects=[{"op": "negate", "request": "r1"}]),
    )
    flow, errors = run(lines)
    assert errors == []
    assert flow.requests["r1"].status == "negated" and flow.stage == []
    assert flow.chance == "alice"


def test_main_request_needs_turn_and_empty_stage() -> None:
    lines = log(
        "9.0",
        ACE,
        p("alice"),
        req("r2", "bob", "summon_ace", ["bob:H1"], [("L", "bob:?")]),
    )
    _, errors = run(lines)
    assert ("timing.main-not-turn-player", 5) in errors
    assert ("timing.main-stage-not-empty", 5) in errors


def test_once_per_turn() -> None:
    lines = log(
        "9.0",
        req("r1", "alice", "set_bulwark", [], [("L", "alice:?")], choices={"card": "alice:?"}),
        res("r1"),
        req("r2", "alice", "set_bulwark", [], [("L", "alice:?")], choices={"card": "alice:?"}),
        res("r2"),
    )
    _, errors = run(lines)
    assert errors == [("timing.once-per-turn", 5)]


def test_rules_only_actions_cannot_be_requested() -> None:
    _, errors = run(log("6.1", req("r1", "alice", "charge")))
    assert errors == [("timing.not-directly-actionable", 3)]


def test_end_charge_draw_chain_90() -> None:
    """End resolves -> turn passes -> Charge (instant) -> Draw (normal, staged)."""
    lines = log(
        "9.0",
        req("r1", "alice", "end"), p("alice"), p("bob"), res("r1"),
        {"type": "trigger", "request": "c1", "action": "charge", "source": "r1"},
        res("c1"),
        p("bob"), p("alice"),
        res("t2"),  # the Draw's trigger line is left out: the judge binds the id
    )
    flow, errors = run(lines)
    assert errors == []
    assert flow.turn_player == "bob" and flow.turn == 2 and flow.chance == "bob"
    assert flow.rules.boards["bob"].hand_count == 9  # type: ignore[attr-defined]


def test_missing_charge_resolution_is_a_missed_trigger() -> None:
    lines = log("6.1", req("r1", "alice", "end"), p("bob"), res("r1"), p("bob"))
    _, errors = run(lines)
    assert errors == [("order.trigger-missed", 6)]


def test_unknown_edition_cannot_be_judged() -> None:
    with pytest.raises(JudgeInputError) as exc:
        run(log("7.0"))
    assert exc.value.field == "rules" and exc.value.line == 1


def test_deck_out_both_players_by_edition() -> None:
    """Both decks at 0 at the check: 6.1 a draw, 9.0 the turn player loses."""
    for edition, expected in (("6.1", ("draw", None)), ("9.0", ("win", "bob"))):
        size = 9 if edition == "6.1" else 11  # what is left after set-up is 1 card (alice 0)
        lines = log(edition, ACE,
                    sizes=size)
        flow, _ = run(lines)
        boards = flow.rules.boards  # type: ignore[attr-defined]
        boards["bob"].deck = []
        boards["alice"].deck = []
        result = flow.rules.win_check(flow)
        assert result is not None and (result.result, result.winner) == expected


def test_shortcut_call_stands_for_the_missing_passes() -> None:
    """A pass noted "スルー" lets the top of the stage resolve; normalize writes the passes."""
    from coreflow_judge.adjudicator.judge import normalize_lines

    lines = log("9.0", ACE, {"type": "pass", "player": "alice", "note": "スルー"}, res("r1"))
    flow, errors = run(lines)
    assert errors == [] and flow.chance == "alice"
    complete = normalize_lines(iter_lines(lines))
    passes = [(x.player, x.note) for x in complete if x.type == "pass"]  # type: ignore[union-attr]
    assert passes == [("alice", "スルー"), ("bob", "implied by the call 'スルー'")]
    assert [x.type for x in complete][-2:] == ["resolve", "chance_moved"]
    rejudged = judge_lines((i, x) for i, x in enumerate(complete, start=1))
    assert rejudged.findings == []
