"""The board projection: the table at any line, rebuilt from the log's lines alone."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import JudgeInputError, judge_lines, normalize_lines
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import iter_lines, read_log
from coreflow_judge.events.store import MatchRecorder
from coreflow_judge.projections.board import BoardProjector, BoardQueryError, board_at

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
PLAYERS = ("alice", "bob")


def long_match(turns: int = 12, passes_per_turn: int = 40) -> list[str]:
    """A legal 9.0 match of ``turns`` turns: pass rounds, End, Charge, Draw, repeated."""
    header: dict[str, Any] = {"type": "match_started", "match_id": "long-1", "game": "blackpoker",
              "rules": "blackpoker/9.0", "format": "lite", "players": list(PLAYERS),
              "deck_sizes": {"alice": 40, "bob": 40}, "log_format": 1}
    start: dict[str, Any] = {"type": "game_started", "first_player": "alice",
             "presets": {p: {"bulwark": f"{p}:?", "soldier": f"{p}:?"} for p in PLAYERS}}
    body: list[dict[str, Any]] = []
    for t in range(turns):
        tp, op = PLAYERS[t % 2], PLAYERS[(t + 1) % 2]
        if t:  # End handed the turn over: Charge (instant), then Draw (staged).
            body += [{"type": "resolve", "request": f"c{t}", "result": "resolved"},
                     {"type": "pass", "player": tp}, {"type": "pass", "player": op},
                     {"type": "resolve", "request": f"d{t}", "result": "resolved"}]
        for _ in range(passes_per_turn):
            body += [{"type": "pass", "player": tp}, {"type": "pass", "player": op}]
        discard = [f"{tp}:?"] * (1 if t == 0 else 2)
        body += [{"type": "request", "request": f"e{t + 1}", "player": tp, "action": "end",
                  "key_cards": [], "costs": [], "targets": []},
                 {"type": "pass", "player": tp}, {"type": "pass", "player": op},
                 {"type": "resolve", "request": f"e{t + 1}", "result": "resolved",
                  "choices": {"discard": discard}}]
    return [json.dumps({"seq": i, **line})
            for i, line in enumerate([header, start, *body], start=1)]


@pytest.fixture(scope="module")
def long_lines() -> list[str]:
    lines = long_match()
    report = judge_lines(iter_lines(lines))
    assert [f.code for f in report.findings] == [], "the long match must be legal"
    return lines


def test_disputed_counter_board_line_by_line() -> None:
    """The short 9.0 example with bob's ♣3 counter, read as a judge would."""
    p = BoardProjector.from_file(DISPUTED)
    before = p.at(1)
    assert before["turn_player"] is None and before["players"] == {}

    b = p.at(5)  # set_bulwark resolved
    alice = b["players"]["alice"]
    assert [(c["character"], c["kind"]) for c in alice["field"]] == [("alice:H2", "bulwark")]
    assert b["once_used"] == {"alice": ["set_bulwark"]}
    assert b["chance"] == "alice" and b["stage"] == []

    b = p.at(8)  # bob's counter on top of alice's summon
    assert [(r["request"], r["action"], r["controller"]) for r in b["stage"]] == [
        ("r2", "summon_soldier", "alice"), ("r3", "counter", "bob")]
    assert b["stage"][1]["key_cards"] == ["bob:C3"] and b["stage"][1]["targets"] == ["r2"]
    assert b["chance"] == "bob" and b["passed"] == []

    b = p.at(10)  # both passed: the rule system holds the chance
    assert b["chance"] == "system" and b["passed"] == ["alice", "bob"]

    b = p.at(11)  # the counter resolved as recorded (negating r2), with its finding
    assert b["stage"] == [] and b["chance"] == "alice"
    assert [f["code"] for f in b["findings"] if f["severity"] == "error"] == [
        "legality.effect-mismatch"]
    assert "C3" in b["players"]["bob"]["graveyard"]

    b = p.at(12)
    assert [r["request"] for r in b["stage"]] == ["r4"] and b["result"] is None
    assert p.at(None) == b


def test_board_at_refuses_a_seq_the_log_does_not_have() -> None:
    p = BoardProjector.from_file(DISPUTED)
    for seq in (0, 13, -4):
        with pytest.raises(BoardQueryError, match=f"no line with seq {seq}"):
            p.at(seq)


def test_board_of_an_unreadable_first_line_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq": 1, "type": "match_started"}\n')
    with pytest.raises(JudgeInputError) as exc:
        BoardProjector.from_file(bad)
    assert exc.value.line == 1


def test_checkpointed_boards_equal_a_replay_from_line_1(long_lines: list[str]) -> None:
    items = list(iter_lines(long_lines))
    p = BoardProjector(items)  # checkpoints every 256 lines
    last = len(items)
    seqs = [last, 1, 2, 255, 256, 257, 511, 512, 700, last - 1]
    seqs += random.Random(7).sample(range(1, last + 1), 25)
    for seq in seqs:
        assert p.at(seq) == board_at(items, seq), f"seq {seq}"
    assert sorted(p.checkpoints)[:4] == [1, 256, 512, 768]


def test_a_query_replays_at_most_one_checkpoint_interval(long_lines: list[str]) -> None:
    items = list(iter_lines(long_lines))
    p = BoardProjector(items, every=256)
    p.at(len(items))  # one pass over the match lays the checkpoints
    for seq in (3, 300, 600, 1000):
        before = p.replayed
        p.at(seq)
        assert p.replayed - before < 256


def test_the_long_match_ends_in_the_turn_and_zones_the_rules_give(
        long_lines: list[str]) -> None:
    b = BoardProjector(iter_lines(long_lines)).at()
    assert b["turn"] == 13 and b["turn_player"] == "alice"
    # The last End handed the turn over: alice's Charge waits in the buffer, the rule
    # system holds the chance.
    assert b["chance"] == "system" and b["stage"] == []
    assert [(r["action"], r["controller"], r["source"]) for r in b["buffer"]] == [
        ("charge", "alice", "e12")]
    # life 40 - 2 preset - 7 hand (- 1 first draw for alice) - 2 per Draw (5 and 6).
    zones = b["players"]
    assert (zones["alice"]["life_count"], zones["bob"]["life_count"]) == (20, 19)
    assert (zones["alice"]["hand_count"], zones["bob"]["hand_count"]) == (7, 7)
    assert b["result"] is None


def test_board_from_stored_lines_equals_board_from_the_file() -> None:
    """Rebuilt from the recorder's stored events only, the board is the file's board."""
    complete = normalize_lines(read_log(DISPUTED))
    recorder = MatchRecorder(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    recorder.record(complete)
    stored: list[LogLine] = recorder.lines("demo-1")
    from_store = BoardProjector.from_lines(stored).at()
    from_file = BoardProjector.from_file(DISPUTED).at()
    for board in (from_store, from_file):
        board.pop("seq")
        for f in board.pop("findings"):
            f.pop("seq")
    assert from_store == from_file


def test_copies_share_nothing_the_flow_changes(long_lines: list[str]) -> None:
    """A board read earlier does not change when the projector answers later questions."""
    p = BoardProjector(iter_lines(long_lines), every=64)
    early = p.at(100)
    kept = json.dumps(early, sort_keys=True)
    p.at(len(long_lines))
    p.at(90)
    assert json.dumps(early, sort_keys=True) == kept
    assert p.at(100) == early


@pytest.mark.parametrize("edition", ["6.1", "9.0"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_boards_of_simulated_games_equal_a_replay(edition: str, seed: int) -> None:
    """Real games (every action of the lite format): checkpoints every 16 lines."""
    from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game

    lines = simulate_game(edition, seed)
    p = BoardProjector.from_lines(lines, every=16)
    last = len(lines)
    final = p.at()
    assert final["result"] is not None, "a simulated game is played to its end"
    for seq in random.Random(seed).sample(range(1, last + 1), 12) + [1, last]:
        assert p.at(seq) == board_at(list(enumerate(lines, start=1)), seq), f"seq {seq}"


def test_checkpoints_share_what_the_game_names_unchanging(long_lines: list[str]) -> None:
    """The game says which parts of its rules module never change (its plugin's
    ``constant_parts``): a checkpoint shares exactly those and copies the table."""
    from coreflow_judge.adjudicator.plugins import game_plugin

    p = BoardProjector(iter_lines(long_lines), every=64)
    p.at(200)
    live, kept = p._live, p.checkpoints[p.every]  # the first after line 1
    parts = game_plugin("blackpoker").constant_parts
    shared = [id(x) for x in parts(live.rules)]
    assert shared and [id(x) for x in parts(kept.rules)] == shared
    assert kept.rules is not live.rules
    assert kept.rules.boards is not live.rules.boards  # type: ignore[attr-defined]


def test_boards_of_every_game_with_a_simulator_equal_a_replay() -> None:
    """Each registered game's checkpoint (what its plugin shares) gives the boards a
    replay from line 1 gives."""
    from coreflow_judge.adjudicator.plugins import games

    simulated = [g for g in games() if g.simulate is not None]
    assert len(simulated) >= 3
    for game in simulated:
        assert game.simulate is not None
        lines = game.simulate(game.editions[-1], game.default_format, 5, f"cp-{game.id}")
        p = BoardProjector.from_lines(lines, every=8)
        last = len(lines)
        for seq in random.Random(5).sample(range(1, last + 1), 6) + [1, last]:
            assert p.at(seq) == board_at(list(enumerate(lines, start=1)), seq), (game.id, seq)
