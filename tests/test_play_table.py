"""``coreflow play`` at the table (issue 24, items 2, 3 and 6), as a scorekeeper uses it.

- Item 2: the scorekeeper types the players' decisions only; what needs no decision (a
  resolution that asks no choice, a pass by a player who could do nothing else) is
  filled in and shown in the answer. A simulated game of each game, typed as its
  decisions only, is recorded as its complete log. ``legal`` offers what ``play`` takes,
  card by card, and what the game went on to play.
- Item 3: a match stopped and resumed (``--resume``) is the record of one sitting,
  wherever the break fell.
- Item 6: a refusal says what was wrong and what the table can do, in the table's words,
  in English and Japanese; the in-session board numbers lines as the record does.

Whole games run in-process (:class:`~adjudicator.live.LiveTable`, the table ``play``
keeps); the real command runs through a pipe and, where a terminal matters, a
pseudo-terminal.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from coreflow_judge.adjudicator.games.blackpoker import play as blackpoker_play
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.games.duel_masters import simulate as dm_simulate
from coreflow_judge.adjudicator.games.i_language import simulate as il_simulate
from coreflow_judge.adjudicator.judge import normalize_lines
from coreflow_judge.adjudicator.live import LiveTable
from coreflow_judge.adjudicator.notation import read_notation, to_notation
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import LogLine, MatchStarted, Request
from coreflow_judge.events.reader import canonical_dict

from tests.pools import pooled
from tests.test_play import _read_until, coreflow, jsonl, terminal

Game = tuple[str, str, str, int]

GAMES: list[Game] = [
    ("blackpoker", "9.0", "lite", 2),
    ("blackpoker", "9.0", "standard", 3),
    ("blackpoker", "9.0", "pro", 7),
    ("blackpoker", "9.0", "master", 4),
    ("blackpoker", "6.1", "lite", 2),
    ("blackpoker", "6.1", "standard", 6),
    ("blackpoker", "6.1", "pro", 6),
    ("blackpoker", "6.1", "master", 3),
    ("blackpoker", "6.1", "extra", 1),
    ("duel_masters", "1.47", "standard", 4),
    ("i_language", "1", "standard", 13),
]
"""A short simulated game of each game and BlackPoker format."""
FRAME_GAMES = [("pack", "standard", 1), ("strategy", "pro", 2)]
"""9.0 games under a regulation's frame (its own actions and set-up)."""


@contextmanager
def _no_claims() -> Iterator[None]:
    """The simulators write only what a table must say: the effects a resolution claims
    only where the rules cannot know them (a shuffled deck's cards), never the rules'
    own plan again (a claim is the table's statement, no decision)."""
    with mock.patch.object(blackpoker_play, "CLAIM_RATE", 0), \
            mock.patch.object(dm_simulate, "CLAIM_RATE", 0), \
            mock.patch.object(il_simulate, "CLAIM_RATE", 0):
        yield


def _simulate(game: str, edition: str, fmt: str, seed: int, frame: str | None = None,
              claims: bool = False) -> list[LogLine]:
    match_id = f"table-{game}-{edition}-{fmt}-{frame or ''}-{seed}-{claims}"
    if frame is not None:
        with _no_claims():
            return simulate_game(edition, seed, fmt, match_id=match_id, frame=frame)
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    if claims:
        return plugin.simulate(edition, fmt, seed, match_id)
    with _no_claims():
        return plugin.simulate(edition, fmt, seed, match_id)


simulated = pooled(_simulate)


def _said(line: LogLine) -> dict[str, Any]:
    data = canonical_dict(line)
    data.pop("seq", None)
    return data


def _same(a: LogLine, b: LogLine) -> bool:
    return _said(a) == _said(b)


def _is_decision(line: LogLine, table: LiveTable) -> bool:
    """What a player decides (or the table says), by the log format alone: the start, a
    request, a roll, a pass, where a triggered request goes (the players' order), and a
    resolution that records choices or effects, or of an action that takes choices while
    it resolves (leaving them out is a choice too). Never a line the rules derive, nor the
    bare resolution of an action that takes no choice."""
    if line.type in ("game_started", "request", "roll", "pass", "stage", "discard"):
        return True
    if line.type != "resolve":
        return False
    if getattr(line, "choices", None) or getattr(line, "effects", None):
        return True
    req = table.flow.requests.get(getattr(line, "request", ""))
    return req is not None and bool(req.action.data.get("choices_on_resolve"))


def type_decisions(lines: list[LogLine],
                   check: Callable[[LiveTable, LogLine], None] | None = None,
                   ) -> tuple[list[LogLine], LiveTable]:
    """Type a game as a scorekeeper does: before each line, read what the table holds
    after the record (the lines it derived and filled in, as the answers show them);
    type the game's next line only where the table does not hold it already. Each typed
    line must be a decision (:func:`_is_decision`) and be accepted. ``check(table,
    line)``: called before each typed line. Returns the typed lines and the table (not
    finished)."""
    table = LiveTable(lines[:1], lambda _new: None)
    typed: list[LogLine] = []
    while True:
        at = len(table.stored)
        ahead = table.ahead()
        held = 0
        while held < len(ahead) and at + held < len(lines) and \
                _same(ahead[held], lines[at + held]):
            held += 1
        if at + held >= len(lines):
            return typed, table
        line = lines[at + held]
        assert _is_decision(line, table), (
            f"line {at + held + 1} had to be typed but is no decision: {_said(line)}; the "
            f"table held {[_said(x) for x in ahead[held:held + 2]]}")
        if check is not None:
            check(table, line)
        answer = table.enter(line)
        assert answer.accepted, (_said(line), [f.message for f in answer.errors])
        typed.append(line)


def _finished(table: LiveTable) -> list[LogLine]:
    table.finish()
    return table.stored


def _ids(game: Game) -> str:
    return "-".join(map(str, game))


# ---------------------------------------------------------------- item 2: decisions only


@pytest.mark.parametrize("game", GAMES, ids=_ids)
def test_a_game_typed_as_its_decisions_only_is_recorded_as_its_complete_log(
        game: Game) -> None:
    lines = simulated(*game)
    typed, table = type_decisions(lines)
    assert [_said(x) for x in _finished(table)] == [_said(x) for x in lines]
    # What the table filled in: every resolution that asks no choice, and the turn
    # start's Charge and Draw (no line of the table's)...
    assert len(typed) < len(lines) // 2
    bare = [x for x in typed if x.type == "resolve" and not getattr(x, "choices", None)
            and not getattr(x, "effects", None)]
    actions = {getattr(x, "request", None): getattr(x, "action", None) for x in lines}
    assert all(actions.get(getattr(x, "request", None)) not in ("end", "charge", "draw",
                                                                  "end_turn", "summon")
               for x in bare), [_said(x) for x in bare]


@pytest.mark.parametrize(("frame", "fmt", "seed"), FRAME_GAMES)
def test_a_framed_game_typed_as_its_decisions_only_is_recorded_as_its_complete_log(
        frame: str, fmt: str, seed: int) -> None:
    lines = simulated("blackpoker", "9.0", fmt, seed, frame)
    _typed, table = type_decisions(lines)
    assert [_said(x) for x in _finished(table)] == [_said(x) for x in lines]


@pytest.mark.parametrize("game", [GAMES[0], GAMES[5], GAMES[9], GAMES[10]], ids=_ids)
def test_the_decisions_typed_into_the_real_command_leave_the_complete_log(
        tmp_path: Path, game: Game) -> None:
    """What the scorekeeper types (the decisions, in the notation) piped into ``coreflow
    play``: every line answered ok, the lines filled in named in the answers, and
    ``coreflow log`` is the game's complete log."""
    lines = simulated(*game)
    typed, _table = type_decisions(lines)
    header = lines[0]
    assert isinstance(header, MatchStarted)
    text = "\n".join([header.model_dump_json(exclude_none=True, exclude={"hash"}),
                      *(to_notation(x) for x in typed)]) + "\n"
    done = coreflow("play", "--store", tmp_path / "t.db", stdin=text)
    assert done.returncode == 0, done.stdout[-2000:]
    answers = done.stdout.splitlines()
    assert len(answers) == len(typed) + 1 and all(a.startswith("ok ") for a in answers)
    assert any("then, filled in (no decision): " in a for a in answers)
    assert coreflow("log", header.match_id, "--store", tmp_path / "t.db").stdout == \
        jsonl(lines)


# ---------------------------------------------------------------- item 2: legal


def _legal_entries(table: LiveTable, player: str | None = None) -> list[str]:
    return [e.split("   (", 1)[0] for e in table.legal(player, shown=1000)
            if not e.startswith("  ") and "filled in" not in e]


def _takes(table: LiveTable, entry: str) -> bool:
    """Whether ``play`` takes ``entry`` on this table (a table of its own: nothing kept)."""
    trial = LiveTable(list(table.stored), lambda _new: None)
    line = read_notation(entry, trial.view(), trial.flow.next_seq)
    return trial.enter(line).accepted


@pytest.mark.parametrize("game", [GAMES[0], GAMES[5], GAMES[9], GAMES[10]], ids=_ids)
def test_legal_offers_what_play_takes_and_what_the_game_played(game: Game) -> None:
    """At points of a simulated game: each entry ``legal`` offers is taken by ``play``
    (its ``?`` cards named as the record does not show them), never a ``stage`` for an
    instant request; the request the game made next is among them (its player and
    action, and the very line where every card of it was in sight)."""
    lines = simulated(*game)
    checked = {"points": 0, "entries": 0}

    def check(table: LiveTable, line: LogLine) -> None:
        for waiting in table.flow.buffer:
            if waiting.action.speed == "instant":
                assert f"stage {waiting.id}" not in _legal_entries(table)
        if not isinstance(line, Request) or checked["points"] >= 12:
            return
        checked["points"] += 1
        offered = _legal_entries(table, line.player)
        mine = [e for e in offered if e.split()[:2] == [line.player, line.action]]
        assert mine, (to_notation(line), offered)
        for entry in mine[:2] + [e for e in offered if e not in mine][:2]:
            assert _takes(table, entry), entry
            checked["entries"] += 1

    type_decisions(lines, check)
    assert checked["points"] >= 5 and checked["entries"] >= 10


def test_legal_at_a_turn_start_and_on_an_empty_table() -> None:
    """The cases of the issue: at a turn start nothing is to stage (the Charge resolves by
    itself, filled in); no Counter without a request on the stage; no summon without the
    bulwark its cost needs, and with it, which bulwark pays."""
    header = MatchStarted(seq=1, match_id="legal-1", game="blackpoker",
                          rules="blackpoker/9.0", format="lite", players=["alice", "bob"],
                          log_format=1)
    table = LiveTable([header], lambda _new: None)

    def enter(text: str) -> Any:
        answer = table.enter(read_notation(text, table.view(), table.flow.next_seq))
        assert answer.accepted, [f.message for f in answer.errors]
        return answer

    enter("start alice")
    legal = _legal_entries(table)
    assert not any(e.startswith(("alice counter", "bob counter", "stage ")) for e in legal)
    assert not any(e.startswith("alice summon_soldier") for e in legal)  # no bulwark: no $B
    answer = enter("alice set_bulwark L card=alice:H2")
    assert [(x.type, getattr(x, "request", None)) for x in answer.filled] == [
        ("resolve", "r1")]
    assert "alice summon_soldier ? B:H2 L" in _legal_entries(table)
    enter("alice end")
    enter("alice pass")
    answer = enter("bob pass")  # End resolves, bob's turn starts: Charge resolves too
    assert [getattr(x, "request", None) for x in answer.filled] == ["r2", "t1"]
    legal = table.legal()
    assert legal[0] == "resolve r2   (filled in: end of alice asks no choice; stored with " \
        "the next line)"
    assert legal[1].startswith("resolve t1   (filled in: charge of bob asks no choice")
    assert not any(e.startswith(("stage t1", "resolve t1")) for e in _legal_entries(table))
    assert _legal_entries(table)[0] == "bob pass"  # on t2, the Draw: bob may respond
    assert "bob twist ? D >alice:H2" in _legal_entries(table)
    # ...but not with a Counter: the Draw has no key card to counter.
    assert not any(e.startswith("bob counter") for e in _legal_entries(table))


# ---------------------------------------------------------------- item 3: resuming


def _two_sittings(lines: list[LogLine], typed: list[LogLine], k: int,
                  stopped: list[int] | None = None) -> list[LogLine]:
    """The record of ``typed`` entered in two sittings, the break after ``k`` of them.
    ``stopped``: gets the positions of the lines the first sitting stored when it
    stopped, if they ended the game."""
    first = LiveTable(lines[:1], lambda _new: None)
    for line in typed[:k]:
        assert first.enter(line).accepted
    before = len(first.stored)
    stored = _finished(first)
    if stopped is not None and first.over:
        stopped += range(before, len(stored))
    second = LiveTable(list(stored), lambda _new: None)
    for line in typed[k:]:
        assert second.enter(line).accepted, (k, _said(line))
    return _finished(second)


@pytest.mark.parametrize("game", [GAMES[0], GAMES[9], GAMES[10]], ids=_ids)
def test_a_resumed_match_is_its_one_sitting_record_wherever_the_break_fell(
        game: Game) -> None:
    """The decisions of a game entered in two sittings, the break after each of them in
    turn: the record is the game's complete log every time (no derived line stored
    twice, none refused)."""
    lines = simulated(*game)
    typed, _table = type_decisions(lines)
    want = [_said(x) for x in lines]
    for k in range(len(typed) + 1):
        assert [_said(x) for x in _two_sittings(lines, typed, k)] == want, k


@pytest.mark.parametrize("game", [GAMES[9], GAMES[10]], ids=_ids)
def test_a_complete_log_piped_in_two_sittings_is_its_one_sitting_record(
        game: Game) -> None:
    """A complete log (every derived line written, claims where the simulator wrote them)
    entered in two sittings, the break after each line: the lines the first sitting
    stored when it stopped are said again by the second and answered, not stored twice.
    One break differs: where the rules fill in the resolution that ends the game, the
    first sitting stores it as filled in, and its claimed effects said later are not
    added (the record's line stands; nothing else differs)."""
    lines = simulated(*game, claims=True)
    entered = lines[1:]
    want = [_said(x) for x in normalize_lines(enumerate(lines, start=1))]
    for k in range(len(entered) + 1):
        stopped: list[int] = []
        got = [_said(x) for x in _two_sittings(lines, entered, k, stopped)]
        if got != want:
            assert len(got) == len(want), k
            differ = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
            assert set(differ) <= set(stopped), k  # only the lines stored at the break
            assert all(got[i].get("type") == "resolve" and "effects" in want[i] and
                       {**got[i], "effects": want[i]["effects"]} == want[i]
                       for i in differ), k


def test_three_games_piped_in_two_halves_are_recorded_as_normalize_prints_them(
        tmp_path: Path) -> None:
    """The issue's case through the real command: three 9.0 lite games, each log piped in
    two halves (``play``, then ``play --resume``): every line answered, ``coreflow log``
    = ``coreflow normalize``."""
    for seed in (1, 2, 3):
        lines = simulated("blackpoker", "9.0", "lite", seed, claims=True)
        text = jsonl(lines).splitlines(keepends=True)
        half = len(text) // 2
        store = tmp_path / f"halves-{seed}.db"
        match = lines[0].match_id  # type: ignore[union-attr]
        first = coreflow("play", "--store", store, stdin="".join(text[:half]))
        second = coreflow("play", "--store", store, "--resume", match,
                          stdin="".join(text[half:]))
        assert first.returncode == 0 and second.returncode == 0, second.stdout[-800:]
        log = tmp_path / f"game-{seed}.jsonl"
        log.write_text(jsonl(lines), encoding="utf-8")
        assert coreflow("log", match, "--store", store).stdout == \
            coreflow("normalize", log).stdout


# ---------------------------------------------------------------- item 6: refusals


TABLE = ["--match-id", "t6", "--rules", "9.0", "--player", "alice", "--player", "bob"]


def test_a_refusal_says_what_was_wrong_and_what_the_table_can_do(tmp_path: Path) -> None:
    typed = "start alice\nalice set_bulwark L card=alice:H2\nalice end\nalice end\n" \
            "bob pass\n"
    done = coreflow("play", "--store", tmp_path / "r.db", *TABLE, stdin=typed)
    refused = [a for a in done.stdout.splitlines() if a.startswith("refused: ")]
    now = "Now: alice pass · alice twist ? D >alice:H2 · alice search ?"
    assert refused == [
        "refused: r2 (end, alice) is still on the stage: every player passes and it resolves "
        "before anything with main timing (order.request-never-resolved); nothing was "
        f"recorded. {now}",
        "refused: bob does not hold the chance: alice does (timing.no-chance); nothing was "
        f"recorded. {now}"]
    assert done.returncode == 1
    # Three rules broken at once: each is said (no "and 2 more").
    done = coreflow("play", "--store", tmp_path / "s.db", *TABLE,
                    stdin="start alice\nbob summon_soldier S9 B:H2 L\n")
    assert done.stdout.splitlines()[2] == (
        "refused: bob does not hold the chance: alice does (timing.no-chance); "
        "summon_soldier has main timing: only alice, whose turn it is, may request it "
        "(timing.main-not-turn-player); bob:H2 is not a bulwark of bob (legality.cost-unpaid);"
        " nothing was recorded. Now: alice pass · alice set_bulwark L card=\"alice:?\" · "
        "alice summon_ace ? L · ... ('legal' lists every entry)")


def test_a_refusal_in_japanese(tmp_path: Path) -> None:
    typed = "start alice\nalice 防壁設置 L card=alice:H2\nalice エンド\nbob pass\nalice エンド\n" \
            "bob 兵士召喚 S9 B:H2 L\n"
    done = coreflow("play", "--store", tmp_path / "j.db", *TABLE, "--lang", "ja", stdin=typed)
    refused = [a for a in done.stdout.splitlines() if a.startswith("拒否: ")]
    assert refused[2].startswith(
        "拒否: bob はチャンスを持っていない。持っているのは alice（timing.no-chance）。兵士召喚 は"
        "メインタイミング：リクエストできるのはターンプレイヤーの alice だけ"
        "（timing.main-not-turn-player）。")
    assert refused[:2] == [
        "拒否: bob はチャンスを持っていない。持っているのは alice（timing.no-chance）。何も記録"
        "していない。今できること: alice pass · alice twist ? D >alice:H2 · alice search ?",
        "拒否: r2 (エンド, alice) がまだステージにある：全員がパスして解決してから、メイン"
        "タイミングのものへ（order.request-never-resolved）。何も記録していない。今できること: "
        "alice pass · alice twist ? D >alice:H2 · alice search ?"]


def test_the_board_in_the_session_is_numbered_as_the_record(tmp_path: Path) -> None:
    typed = "start alice\nalice set_bulwark L card=alice:H2\nboard\nalice end\nboard\n"
    done = coreflow("play", "--store", tmp_path / "b.db", *TABLE, stdin=typed)
    out = done.stdout
    oks = re.findall(r"^ok (\d+): ", out, re.M)
    boards = re.findall(r"board after seq (\d+)", out)
    # After ok 5 the table holds 6 (r1 resolved, filled in); after ok 7, 8 (the rules
    # stage r2): the board is the table after the lines it holds.
    assert oks[-2:] == ["5", "7"] and boards == ["6", "8"]
    log = coreflow("log", "t6", "--store", tmp_path / "b.db").stdout.splitlines()
    assert len(log) == 8  # at the end of the input the derived staging is stored


# ---------------------------------------------------------------- the terminal


def test_a_scorekeeper_at_a_terminal_types_decisions_only(tmp_path: Path) -> None:
    """Through a pseudo-terminal: a turn of 9.0 typed as decisions; the answers name what
    was filled in, ``legal`` offers the next turn's entries (no ``stage t1``), a refusal
    says what the table can do, and the board numbers lines as the record."""
    store = tmp_path / "tty.db"
    with terminal("play", "--store", str(store), *TABLE) as fd:
        _read_until(fd, r"> $")
        os.write(fd, b"start alice\r")
        _read_until(fd, r"ok 2: the game starts(.|\n)*> ")
        os.write(fd, b"alice set_bulwark L card=alice:H2\r")
        _read_until(fd, r"ok 5: .*then, filled in \(no decision\): 6 r1 resolved(.|\n)*> ")
        os.write(fd, b"alice end\r")
        _read_until(fd, r"ok 7: alice requests end as r2; with 6 r1 resolved(.|\n)*> ")
        os.write(fd, b"bob pass\r")
        _read_until(fd, r"refused: bob does not hold the chance: alice does "
                        r"\(timing.no-chance\); nothing was recorded. Now: alice pass(.|\n)*> ")
        os.write(fd, b"alice pass\r")
        _read_until(fd, r"ok 9: alice passes(.|\n)*> ")
        os.write(fd, b"bob pass\r")
        _read_until(fd, r"ok 11: bob passes.*then, filled in \(no decision\): 13 r2 resolved, "
                        r"16 t1 resolved(.|\n)*\[turn 2 bob · chance bob · stage t2\] > ")
        os.write(fd, b"legal\r")
        seen = _read_until(fd, r"bob pass   \(bob holds the chance, on t2\)(.|\n)*> ")
        assert "stage t1" not in seen and "resolve t1   (filled in" in seen
        os.write(fd, b"board\r")
        _read_until(fd, r"board after seq 19(.|\n)*> ")
        os.write(fd, b"quit\r")
        _read_until(fd, r"head hash [0-9a-f]{64}")
    log = [json.loads(x) for x in coreflow("log", "t6", "--store", store).stdout.splitlines()]
    assert [x.get("request") for x in log if x["type"] == "resolve"] == ["r1"]  # at a break
    assert len(log) == 12  # ends with bob's pass: what follows is filled in again on resume
