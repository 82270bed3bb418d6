"""Bad input, command by command: never a traceback, always one clear line naming the line
and the field at fault, a non-zero exit status, and nothing lost or half written.

Every command that reads a log (judge, record, board, normalize, verify, fixture new) is
tried on the same broken logs; then the store (record twice, a store that is a directory,
a file, an unwritable path), the queries on it (log, board, audit) and the fixtures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.cli.main import app
from coreflow_judge.events.models import MAX_LINE_BYTES
from coreflow_judge.events.store import open_recorder
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
LOG_COMMANDS = ("judge", "record", "board", "normalize", "verify", "fixture new")

runner = CliRunner()
Edit = Callable[[list[dict[str, Any]]], list[Any]]


def invoke(*args: str | Path, input: str | None = None) -> Any:
    result = runner.invoke(app, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception))
    return result


def one_line(stderr: str) -> str:
    """The error: exactly one line on stderr, starting ``coreflow:``."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("coreflow: "), stderr
    return lines[0]


def disputed() -> list[dict[str, Any]]:
    return [json.loads(x) for x in DISPUTED.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, lines: list[Any]) -> Path:
    """Dicts as JSON lines; bytes and str lines as they are."""
    out = b""
    for line in lines:
        if isinstance(line, bytes):
            out += line
        elif isinstance(line, str):
            out += line.encode("utf-8")
        else:
            out += json.dumps(line, ensure_ascii=False).encode("utf-8")
        out += b"\n"
    path.write_bytes(out)
    return path


def edited(index: int, **changes: Any) -> Edit:
    """Change fields of line ``index`` (0-based) of the log."""

    def edit(lines: list[dict[str, Any]]) -> list[Any]:
        lines[index] = {**lines[index], **changes}
        return list(lines)

    return edit


def replaced(index: int, raw: bytes | str) -> Edit:
    """Put a raw text in place of line ``index``."""

    def edit(lines: list[dict[str, Any]]) -> list[Any]:
        out: list[Any] = list(lines)
        out[index] = raw
        return out

    return edit


def run_command(command: str, log: Path, tmp: Path) -> Any:
    """One log-reading command on ``log``; the store and fixture folder live in ``tmp``."""
    if command == "record":
        return invoke("record", log, "--store", tmp / "store.db")
    if command == "fixture new":
        return invoke("fixture", "new", log, "--name", "case", "--dir", tmp / "fx")
    return invoke(command, log)


def assert_nothing_written(tmp: Path) -> None:
    assert not (tmp / "store.db").exists(), "a refused record must not create the store"
    assert not (tmp / "fx").exists(), "a refused fixture must not create its folder"


# ------------------------------------------------------------------ logs nobody can read

Whole = Callable[[], bytes]

UNREADABLE: dict[str, tuple[Whole, int, str]] = {
    # name: (the file's bytes, the line named, the field named)
    "empty file": (lambda: b"", 1, "(line)"),
    "blank lines only": (lambda: b"\n  \n\n", 1, "(line)"),
    "binary garbage": (lambda: bytes(range(128, 256)) * 8, 1, "(encoding)"),
    "invalid UTF-8 in the header": (
        lambda: DISPUTED.read_bytes().replace(b'"alice"', b'"al\xffice"', 1), 1, "(encoding)"),
    "players as a string": (
        lambda: _bytes(edited(0, players="alice,bob")), 1, "players"),
    "the same player twice": (
        lambda: _bytes(edited(0, players=["alice", "alice"])), 1, "players"),
    "a player named system": (
        lambda: _bytes(edited(0, players=["alice", "system"])), 1, "players"),
    "seq as a string in the header": (lambda: _bytes(edited(0, seq="1")), 1, "seq"),
    "unknown game": (lambda: _bytes(edited(0, game="chess", rules="chess/1")), 1, "game"),
    "a header that is not an object": (lambda: _bytes(replaced(0, "[1, 2, 3]")), 1, "(line)"),
}
"""Logs no command can use: every log-reading command exits 2."""

NO_RULES: dict[str, tuple[Whole, int, str]] = {
    "unknown edition blackpoker/7.0": (
        lambda: _bytes(edited(0, rules="blackpoker/7.0")), 1, "rules"),
    "unknown format": (lambda: _bytes(edited(0, format="extended")), 1, "format"),
    "rules of another game": (
        lambda: _bytes(edited(0, rules="duel_masters/1.47")), 1, "rules"),
    "missing match_started": (lambda: _bytes(lambda ls: ls[1:]), 1, "type"),
}
"""Well-formed lines no rules module can judge: every command but verify exits 2 (verify
only checks the hash chain, and these logs carry none)."""


def _bytes(edit: Edit) -> bytes:
    out = b""
    for line in edit(disputed()):
        if isinstance(line, bytes):
            out += line
        elif isinstance(line, str):
            out += line.encode("utf-8")
        else:
            out += json.dumps(line, ensure_ascii=False).encode("utf-8")
        out += b"\n"
    return out


@pytest.mark.parametrize("command", LOG_COMMANDS)
@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_log_no_command_can_read(tmp_path: Path, command: str, case: str) -> None:
    content, line, field = UNREADABLE[case]
    log = tmp_path / "bad.jsonl"
    log.write_bytes(content())
    r = run_command(command, log, tmp_path)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert one_line(r.stderr).startswith(f"coreflow: {log}: line {line}: field '{field}': ")
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("command", [c for c in LOG_COMMANDS if c != "verify"])
@pytest.mark.parametrize("case", sorted(NO_RULES))
def test_a_log_no_rules_module_can_judge(tmp_path: Path, command: str, case: str) -> None:
    content, line, field = NO_RULES[case]
    log = tmp_path / "bad.jsonl"
    log.write_bytes(content())
    r = run_command(command, log, tmp_path)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert one_line(r.stderr).startswith(f"coreflow: {log}: line {line}: field '{field}': ")
    assert_nothing_written(tmp_path)


def test_the_unknown_edition_message_lists_the_known_ones(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_bytes(_bytes(edited(0, rules="blackpoker/7.0")))
    r = invoke("judge", log)
    assert "unknown BlackPoker edition '7.0' (known: 6.1, 9.0)" in r.stderr


@pytest.mark.parametrize("command", LOG_COMMANDS)
def test_a_missing_file_or_a_directory(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nowhere.jsonl"
    r = run_command(command, missing, tmp_path)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert str(missing) in one_line(r.stderr)
    folder = tmp_path / "logs"
    folder.mkdir()
    r = run_command(command, folder, tmp_path)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    message = one_line(r.stderr)
    assert str(folder) in message and "directory" in message
    assert_nothing_written(tmp_path)


def test_judge_of_a_directory_with_no_logs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a log\n", encoding="utf-8")
    r = invoke("judge", tmp_path)
    assert r.exit_code == 2 and r.stdout == ""
    assert one_line(r.stderr) == f"coreflow: {tmp_path}: the directory holds no *.jsonl log"


# ------------------------------------------------------------------ one bad line in a log

BAD_LINE: dict[str, tuple[Edit, int, str]] = {
    # name: (the edit, the line named, the field named)
    "a truncated last line": (
        replaced(11, DISPUTED.read_text(encoding="utf-8").splitlines()[11][:40]), 12, "(json)"),
    "invalid UTF-8 in a later line": (
        replaced(5, json.dumps(disputed()[5]).encode().replace(b"alice", b"al\xe9ce", 1)),
        6, "(encoding)"),
    "seq as a string": (edited(3, seq="4"), 4, "seq"),
    "seq as a float": (edited(3, seq=4.5), 4, "seq"),
    "a negative seq": (edited(5, seq=-3), 6, "seq"),
    "a negative turn": (edited(2, turn=-1), 3, "turn"),
    "an unknown field": (edited(5, colour="red"), 6, "colour"),
    "a key card that is an object": (edited(5, key_cards=[{"card": "S9"}]), 6, "key_cards.0"),
    "an unknown cost kind": (edited(5, costs=[{"kind": "Q", "ref": "alice:H2"}]), 6,
                             "costs.0.kind"),
    "an unknown line type": (edited(6, type="shout"), 7, "type"),
    "a line that is not an object": (replaced(3, '"pass"'), 4, "(line)"),
    "a missing field": (replaced(6, '{"seq": 7, "type": "pass"}'), 7, "player"),
}
"""Logs whose header is fine and one later line is not: the judge reports the line as a
``log.malformed`` finding and goes on; record, normalize and verify refuse the log."""


@pytest.mark.parametrize("case", sorted(BAD_LINE))
def test_one_bad_line_is_a_finding_for_the_judge(tmp_path: Path, case: str) -> None:
    edit, line, field = BAD_LINE[case]
    log = write_lines(tmp_path / "bad.jsonl", edit(disputed()))
    r = invoke("judge", log, "--format", "json")
    assert r.exit_code == 1, (r.stdout, r.stderr)
    report = json.loads(r.stdout)
    malformed = [f for f in report["findings"] if f["code"] == "log.malformed"]
    assert [f["actual"] for f in malformed] == [{"line": line, "field": field}]
    assert malformed[0]["message"].startswith(f"Line {line}: field '{field}': ")
    text = invoke("judge", log).stdout
    assert f"Line {line}: field '{field}': " in text
    board = invoke("board", log)
    assert board.exit_code == 0 and "findings so far:" in board.stdout


@pytest.mark.parametrize("command", ["record", "normalize", "verify"])
@pytest.mark.parametrize("case", sorted(BAD_LINE))
def test_one_bad_line_is_refused_by_record_normalize_and_verify(
        tmp_path: Path, command: str, case: str) -> None:
    edit, line, field = BAD_LINE[case]
    log = write_lines(tmp_path / "bad.jsonl", edit(disputed()))
    r = run_command(command, log, tmp_path)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert one_line(r.stderr).startswith(f"coreflow: {log}: line {line}: field '{field}': ")
    assert_nothing_written(tmp_path)


def test_the_messages_say_what_was_found(tmp_path: Path) -> None:
    cases = {
        "seq as a string": 'must be a whole number (got "4")',
        "a negative seq": "must be 1 or more (got -3)",
        "an unknown field": "unknown field: not a field of a blackpoker request line (vendor "
                            "extensions belong under 'x')",
        "an unknown cost kind": "must be 'B', 'L', 'D', 'S' or 'C' (got \"Q\")",
        "an unknown line type": 'unknown line type "shout"',
        "a missing field": "missing (the field is required)",
        "a truncated last line": "not valid JSON: the line ends inside a string (is it cut short?)",
    }
    for case, words in cases.items():
        edit, _line, _field = BAD_LINE[case]
        log = write_lines(tmp_path / "bad.jsonl", edit(disputed()))
        assert words in invoke("normalize", log).stderr, case
    log = tmp_path / "players.jsonl"
    log.write_bytes(_bytes(edited(0, players="alice,bob")))
    assert 'must be a list (got "alice,bob")' in invoke("judge", log).stderr


# ------------------------------------------------------------------ lines the rules reject

def test_an_unknown_player_is_a_finding(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "p.jsonl", edited(5, player="carol")(disputed()))
    report = judged(log)
    assert ("log.unknown-ref", 6, "No player 'carol'.") in codes(report)
    assert invoke("record", log, "--store", tmp_path / "s.db").exit_code == 0


def test_an_unknown_request_id_is_a_finding(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "r.jsonl", edited(10, request="r99")(disputed()))
    assert ("log.unknown-ref", 11, "No request 'r99'.") in codes(judged(log))


def test_a_card_ref_without_its_owner_is_a_finding(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "c.jsonl", edited(5, key_cards=["S9"])(disputed()))
    assert ("legality.key-card-invalid", 6, "Key card 'S9' is not a card of alice.") in codes(
        judged(log))


def test_a_huge_seq_is_a_gap_and_the_complete_log_renumbers_it(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "h.jsonl", edited(5, seq=10**30)(disputed()))
    gaps = [(c, s) for c, s, _m in codes(judged(log)) if c == "log.seq-gap"]
    assert gaps == [("log.seq-gap", 7), ("log.seq-gap", 10**30)]
    message = next(m for c, s, m in codes(judged(log)) if s == 10**30)
    assert message.startswith(f"This line has seq {10**30} where seq 6 was expected")
    r = invoke("normalize", log)
    assert r.exit_code == 0
    seqs = [json.loads(x)["seq"] for x in r.stdout.splitlines()]
    assert seqs == list(range(1, len(seqs) + 1))
    assert invoke("record", log, "--store", tmp_path / "s.db").exit_code == 0


def test_two_match_started_lines(tmp_path: Path) -> None:
    lines = disputed()
    second = {**lines[0], "seq": 4}
    log = write_lines(tmp_path / "two.jsonl",
                      lines[:3] + [second] + [{**x, "seq": x["seq"] + 1} for x in lines[3:]])
    assert ("log.malformed", 4, "match_started may only be line 1.") in codes(judged(log))
    for command in ("record", "normalize"):
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        assert one_line(r.stderr).startswith(f"coreflow: {log}: line 4: field 'type': ")
        assert "a second match_started line" in r.stderr
    assert_nothing_written(tmp_path)


def test_a_10_mb_line(tmp_path: Path) -> None:
    """A line over the limit is one error naming it, read without holding it whole."""
    log = write_lines(tmp_path / "big.jsonl", edited(5, note="x" * 10_000_000)(disputed()))
    malformed = [(c, s, m) for c, s, m in codes(judged(log)) if c == "log.malformed"]
    assert malformed == [("log.malformed", 6, f"Line 6: field '(line)': longer than "
                          f"{MAX_LINE_BYTES} bytes (the limit of a log line)")]
    for command in ("record", "verify", "normalize"):
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        assert one_line(r.stderr) == (f"coreflow: {log}: line 6: field '(line)': longer than "
                                      f"{MAX_LINE_BYTES} bytes (the limit of a log line)")
    assert_nothing_written(tmp_path)
    junk = write_lines(tmp_path / "junk.jsonl", replaced(5, "{" * 10_000_000)(disputed()))
    r = invoke("record", junk, "--store", tmp_path / "t.db")
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {junk}: line 6: field '(line)': ")
    nested = write_lines(tmp_path / "deep.jsonl", replaced(5, "[" * 100_000)(disputed()))
    r = invoke("record", nested, "--store", tmp_path / "t.db")
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {nested}: line 6: field '(json)': ")


def judged(log: Path) -> dict[str, Any]:
    r = invoke("judge", log, "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    report: dict[str, Any] = json.loads(r.stdout)
    return report


def codes(report: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(f["code"], f["seq"], f["message"]) for f in report["findings"]]


# ------------------------------------------------------------------ other games

@pytest.fixture(scope="module")
def other_games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A simulated Duel Masters log and a simulated i-language log."""
    out = tmp_path_factory.mktemp("games")
    logs: dict[str, Path] = {}
    for game, rules in (("duel_masters", "duel_masters/1.47"), ("i_language", "i_language/1")):
        r = invoke("simulate", "--rules", rules, "--games", "1", "--seed", "3",
                   "--out", out / game)
        assert r.exit_code == 0, r.stderr
        (logs[game],) = sorted((out / game).glob("*.jsonl"))
    return logs


def game_lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("hash", None)
    return lines


@pytest.mark.parametrize("game", ["duel_masters", "i_language"])
def test_every_command_reads_the_other_games(tmp_path: Path, other_games: dict[str, Path],
                                             game: str) -> None:
    log = other_games[game]
    assert invoke("judge", log).exit_code == 0
    assert invoke("verify", log).exit_code == 0
    assert invoke("normalize", log).stdout == log.read_text(encoding="utf-8")
    store = tmp_path / "s.db"
    recorded = invoke("record", log, "--store", store)
    assert recorded.exit_code == 0
    match_id = recorded.stdout.strip()
    assert invoke("log", match_id, "--store", store).stdout == log.read_text(encoding="utf-8")
    assert invoke("board", match_id, "--store", store, "--at", "40").exit_code == 0
    assert invoke("fixture", "new", log, "--name", "g", "--dir", tmp_path / "fx").exit_code == 0


@pytest.mark.parametrize("game", ["duel_masters", "i_language"])
def test_an_unknown_player_in_the_other_games(tmp_path: Path, other_games: dict[str, Path],
                                              game: str) -> None:
    lines = game_lines(other_games[game])
    i = next(i for i, x in enumerate(lines) if x["type"] == "request")
    log = write_lines(tmp_path / "p.jsonl", edited(i, player="carol")(lines))
    assert ("log.unknown-ref", i + 1, "No player 'carol'.") in codes(judged(log))


@pytest.mark.parametrize(("game", "line", "field", "value"), [
    ("duel_masters", 1, "packs", {"alice": ["?"] * 14}),
    ("duel_masters", 1, "trumps", {"carol": ["?"]}),
    ("duel_masters", 0, "frame", "pack"),
    ("i_language", 0, "hyperspatial", {"alice": []}),
    ("i_language", 1, "presets", {"alice": {}}),
])
def test_a_field_another_game_declares_is_refused_naming_it(
        tmp_path: Path, other_games: dict[str, Path], game: str, line: int, field: str,
        value: Any) -> None:
    """A game owns its fields: a field only another game declares (BlackPoker's set-up
    ``packs`` and ``trumps`` and header ``frame``, Duel Masters' ``hyperspatial``) is
    no field of this game's line. The judge names the line and the field
    (``log.malformed``); record, normalize and verify refuse the log the same way."""
    lines = game_lines(other_games[game])
    log = write_lines(tmp_path / "f.jsonl", edited(line, **{field: value})(lines))
    kind = lines[line]["type"]
    says = (f"field '{field}': unknown field: not a field of a {game} {kind} line (vendor "
            "extensions belong under 'x')")
    if line == 0:  # a header the judge cannot read: nothing is judged
        r = invoke("judge", log)
        assert r.exit_code == 2 and one_line(r.stderr) == f"coreflow: {log}: line 1: {says}"
    else:
        found = [f for f in judged(log)["findings"] if f["seq"] == line + 1]
        assert found[0]["code"] == "log.malformed"
        assert found[0]["message"] == f"Line {line + 1}: {says}"
    for command in ("record", "normalize", "verify"):
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2 and one_line(r.stderr).startswith(
            f"coreflow: {log}: line {line + 1}: field '{field}': unknown field: "), command
    assert_nothing_written(tmp_path)


def test_a_cost_kind_the_game_does_not_name_is_refused(
        tmp_path: Path, other_games: dict[str, Path]) -> None:
    """The cost kinds are a game's: BlackPoker's letters are no Duel Masters cost (it pays
    mana by tapping cards named in ``choices.mana``, so it names none)."""
    lines = game_lines(other_games["duel_masters"])
    i = next(i for i, x in enumerate(lines) if x["type"] == "request")
    costs = [{"kind": "B", "ref": f"{lines[i]['player']}:?"}]
    log = write_lines(tmp_path / "c.jsonl", edited(i, costs=costs)(lines))
    found = [f for f in judged(log)["findings"] if f["seq"] == i + 1]
    assert found[0]["code"] == "log.malformed"
    assert found[0]["message"] == (f"Line {i + 1}: field 'costs.0.kind': duel_masters names "
                                   "no cost kinds: its requests record no costs (got \"B\")")


def test_a_set_up_field_for_a_player_not_in_the_match_is_named(tmp_path: Path) -> None:
    """A game's set-up field keyed by player (BlackPoker's ``trumps``) for a player who
    is not in the match: log.unknown-ref at the set-up line, naming field and player; the
    rest of the line is judged."""
    lines = disputed()
    lines[0]["format"] = "extra"
    lines[0]["rules"] = "blackpoker/6.1"
    log = write_lines(tmp_path / "t.jsonl", edited(1, trumps={"carol": ["?"]})(lines))
    assert ("log.unknown-ref", 2, "trumps: no player 'carol'.") in codes(judged(log))


@pytest.mark.parametrize("game", ["duel_masters", "i_language"])
def test_an_unknown_edition_of_the_other_games(tmp_path: Path, other_games: dict[str, Path],
                                               game: str) -> None:
    lines = game_lines(other_games[game])
    log = write_lines(tmp_path / "e.jsonl", edited(0, rules=f"{game}/99")(lines))
    for command in LOG_COMMANDS:
        if command == "verify":
            continue
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        assert one_line(r.stderr).startswith(f"coreflow: {log}: line 1: field 'rules': ")
    assert_nothing_written(tmp_path)


def test_i_language_is_for_two_players(tmp_path: Path, other_games: dict[str, Path]) -> None:
    lines = game_lines(other_games["i_language"])
    log = write_lines(tmp_path / "3.jsonl",
                      edited(0, players=["alice", "bob", "carol"])(lines))
    r = invoke("judge", log)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (f"coreflow: {log}: line 1: field 'players': i_language is a "
                                  "1-on-1 game: the header names 3 players")


def test_an_unknown_field_in_an_i_language_card_is_a_finding(
        tmp_path: Path, other_games: dict[str, Path]) -> None:
    lines = game_lines(other_games["i_language"])
    cards = dict(lines[0]["cards"])
    first = next(iter(cards))
    cards[first] = {**cards[first], "atack": 50}
    log = write_lines(tmp_path / "c.jsonl", edited(0, cards=cards)(lines))
    found = [(c, s, m) for c, s, m in codes(judged(log)) if c == "log.malformed"]
    assert found == [("log.malformed", 1,
                      f"The header's card list: card {first!r}: unknown field(s) atack.")]


def test_a_duel_masters_card_that_is_not_an_object(tmp_path: Path,
                                                   other_games: dict[str, Path]) -> None:
    lines = game_lines(other_games["duel_masters"])
    cards = {k: 5 for k in lines[0]["cards"]}
    log = write_lines(tmp_path / "c.jsonl", edited(0, cards=cards)(lines))
    for command in ("judge", "record", "normalize", "board"):
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        message = one_line(r.stderr)
        assert message.startswith(f"coreflow: {log}: line 1: field '"), message
        assert "internal error" not in message
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize("game", ["duel_masters", "i_language"])
def test_the_other_games_boards_show_their_own_zones(other_games: dict[str, Path],
                                                     game: str) -> None:
    log = other_games[game]
    text = invoke("board", log, "--at", "40").stdout
    data = json.loads(invoke("board", log, "--at", "40", "--format", "json").stdout)
    assert data["seq"] == 40 and set(data["players"]) == {"alice", "bob"}
    lines = text.splitlines()
    if game == "duel_masters":
        assert f"step {data['step']} · mana charged {data['mana_charged']}" in lines
        zones = ["deck", "hand", "graveyard", "shields", "mana untapped", "mana tapped"]
        assert "size" not in text  # a creature's number is its power
        if any(p["field"] for p in data["players"].values()):
            assert " power " in text
    else:
        assert f"turn limit {data['turn_limit']}" in lines
        assert not [x for x in lines if x.split(" ")[2:3] in (["deck"], ["hand"], ["field"])
                    and not x.startswith("  deck cost")]
        zones = ["seat", "standing", "destroyed", "removed", "magic declared", "magic unused",
                 "deck cost", "total cost"]
        assert lines.count("  camp") == 2
        for card in data["players"]["bob"]["camp"]:
            assert any(x.startswith(f"    {card['card']}: cost {card['cost']}, attack "
                                    f"{card['attack']}, durability {card['durability']}, "
                                    f"{card['state']}") for x in lines)
    # Every zone of each player is shown, and the values line up in one column.
    columns = set()
    for zone in zones:
        rows = [x for x in lines if x.startswith(f"  {zone} ")]
        assert len(rows) == 2, zone
        columns |= {len(x) - len(x[2 + len(zone):].lstrip()) for x in rows}
    assert len(columns) == 1, columns


# ------------------------------------------------------------------ the store

def test_recording_the_same_match_twice_changes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    before = invoke("log", "demo-1", "--store", store).stdout
    r = invoke("record", DISPUTED, "--store", store)
    assert r.exit_code == 0 and r.stdout == "demo-1\n"
    assert one_line(r.stderr) == (
        f"coreflow: {DISPUTED}: match 'demo-1' is already recorded in {store} with the same "
        "content; nothing to write")
    assert invoke("log", "demo-1", "--store", store).stdout == before
    recorder = open_recorder(str(store))
    assert recorder.match_ids() == ["demo-1"]


def test_a_store_that_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way\n", encoding="utf-8")
    r = invoke("record", DISPUTED, "--store", blocker / "s.db")
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: cannot open the event store {blocker}")
    assert blocker.read_text(encoding="utf-8") == "in the way\n"


def test_a_store_that_is_a_directory(tmp_path: Path) -> None:
    for args in (("record", DISPUTED), ("log", "demo-1"), ("board", "demo-1"),
                 ("audit", "SELECT 1")):
        r = invoke(*args, "--store", tmp_path)
        assert r.exit_code == 2, args
        assert one_line(r.stderr) == (
            f"coreflow: cannot open the event store {tmp_path}: a directory, not a SQLite file "
            f"(name a file in it, e.g. {tmp_path / 'coreflow.db'})"), args
    assert list(tmp_path.iterdir()) == []


def test_a_store_that_is_not_a_database(tmp_path: Path) -> None:
    store = shutil.copy(DISPUTED, tmp_path / "not-a-db.jsonl")
    before = Path(store).read_bytes()
    for args in (("record", DISPUTED), ("log", "demo-1"), ("board", "demo-1"),
                 ("audit", "SELECT 1")):
        r = invoke(*args, "--store", store)
        assert r.exit_code == 2, args
        assert one_line(r.stderr) == (
            f"coreflow: cannot open the event store {store}: file is not a database"), args
    assert Path(store).read_bytes() == before


def test_queries_on_what_is_not_recorded(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    r = invoke("log", "demo-1", "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: no event store at {store} (record a log first: coreflow record LOG)")
    assert not store.exists()
    invoke("record", DISPUTED, "--store", store)
    r = invoke("log", "no-such-match", "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (f"coreflow: no match 'no-such-match' is recorded in {store} "
                                  "(it holds 1 match: coreflow matches lists them)")
    r = invoke("board", "no-such-match", "--store", store)
    assert r.exit_code == 2 and "neither a log file nor a match recorded in" in r.stderr
    r = invoke("board", tmp_path / "typo.jsonl", "--store", store)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {tmp_path / 'typo.jsonl'}: no such log file")


@pytest.mark.parametrize("at", ["0", "-1", "13", "99"])
def test_board_at_a_seq_the_log_does_not_have(tmp_path: Path, at: str) -> None:
    r = invoke("board", DISPUTED, "--at", at)
    assert r.exit_code == 2 and r.stdout == ""
    assert one_line(r.stderr) == (
        f"coreflow: no line with seq {at}: the log runs from seq 1 to seq 12")
    # Recorded, the complete log has 20 lines, and the board still counts the table's 12.
    store = tmp_path / "s.db"
    invoke("record", DISPUTED, "--store", store)
    r = invoke("board", "demo-1", "--store", store, "--at", at)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: no line with seq {at}: the log runs from seq 1 to seq 12")


@pytest.mark.parametrize("args", [
    ("judge", str(DISPUTED), "--format", "xml"),
    ("board", str(DISPUTED), "--format", "xml"),
    ("audit", "SELECT 1", "--format", "xml"),
    ("board", str(DISPUTED), "--at", "last"),
    ("judge",),
    ("judge", str(DISPUTED), "--colour"),
    ("fixture", "new", str(DISPUTED)),
    ("no-such-command",),
])
def test_usage_errors_are_one_line(args: tuple[str, ...]) -> None:
    r = invoke(*args)
    assert r.exit_code == 2 and r.stdout == ""
    message = one_line(r.stderr)
    assert "--help" in message
    if "xml" in args:
        assert f"coreflow: {args[0]}: invalid value for '--format': 'xml' is not one of" in message


def test_bare_coreflow_prints_the_help() -> None:
    r = invoke()
    assert r.exit_code == 2
    assert "Usage: coreflow" in r.stdout and "judge" in r.stdout


def test_audit_after_recording_bad_logs(tmp_path: Path, other_games: dict[str, Path]) -> None:
    store = tmp_path / "s.db"
    bad = {
        "unknown-player": edited(5, player="carol"),
        "unknown-request": edited(10, request="r99"),
        "card-ref": edited(5, key_cards=["S9"]),
        "huge-seq": edited(5, seq=10**30),
    }
    for name, edit in bad.items():
        lines = edit(disputed())
        lines[0] = {**lines[0], "match_id": name}
        log = write_lines(tmp_path / f"{name}.jsonl", lines)
        assert invoke("record", log, "--store", store).exit_code == 0, name
    for log in other_games.values():
        assert invoke("record", log, "--store", store).exit_code == 0
    r = invoke("audit", "SELECT game, count(*) AS n FROM matches GROUP BY game ORDER BY game",
               "--store", store, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert [json.loads(x) for x in r.stdout.splitlines()] == [
        {"game": "blackpoker", "n": 4}, {"game": "duel_masters", "n": 1},
        {"game": "i_language", "n": 1}]
    r = invoke("audit", "SELECT match_id, seq FROM findings WHERE code = 'log.unknown-ref' "
               "ORDER BY match_id, seq", "--store", store, "--format", "csv")
    assert r.exit_code == 0
    assert [x.split(",")[0] for x in r.stdout.splitlines()[1:]] == [
        "unknown-player", "unknown-player", "unknown-request"]
    r = invoke("audit", "SELECT nope FROM matches", "--store", store)
    assert r.exit_code == 1 and one_line(r.stderr).startswith("coreflow: query failed: ")
    r = invoke("audit", "DROP TABLE matches", "--store", store)
    assert r.exit_code == 1 and "read-only" in one_line(r.stderr)


# ------------------------------------------------------------------ fixtures

def test_fixture_new_of_a_log_that_cannot_be_judged_leaves_nothing(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_bytes(_bytes(edited(0, players="alice,bob")))
    r = invoke("fixture", "new", log, "--name", "x", "--dir", tmp_path / "fx")
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {log}: line 1: field 'players': ")
    assert not (tmp_path / "fx").exists()


def test_fixture_new_takes_a_name_with_its_suffix(tmp_path: Path) -> None:
    r = invoke("fixture", "new", DISPUTED, "--name", "counter.jsonl", "--dir", tmp_path)
    assert r.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter.expected.json",
                                                           "counter.jsonl"]
    r = invoke("fixture", "new", DISPUTED, "--name", "counter", "--dir", tmp_path)
    assert r.exit_code == 2
    assert one_line(r.stderr) == f"coreflow: fixture 'counter' already exists in {tmp_path}"
    r = invoke("fixture", "new", DISPUTED, "--name", "../up", "--dir", tmp_path)
    assert r.exit_code == 2 and "must be a plain file name" in r.stderr


@pytest.mark.parametrize("expected, problem", [
    ("{not json", "line 1: not valid JSON: "),
    ("[]", "an expected ruling is a JSON object"),
    ('{"findings": "none"}', "field 'findings': must be a list of findings"),
    ('{"findings": [{"code": "log.seq-gap"}]}', "field 'findings[0]': missing seq, severity"),
    ('{"findings": [], "result": "draw"}', "field 'result': must be an object or null"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_fixture_check_names_a_broken_expected_file_and_checks_the_others(
        tmp_path: Path, expected: str | bytes, problem: str) -> None:
    assert invoke("fixture", "new", DISPUTED, "--name", "good", "--dir", tmp_path).exit_code == 0
    shutil.copy(DISPUTED, tmp_path / "broken.jsonl")
    target = tmp_path / "broken.expected.json"
    if isinstance(expected, bytes):
        target.write_bytes(expected)
    else:
        target.write_text(expected, encoding="utf-8")
    r = invoke("fixture", "check", tmp_path)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {target}: ")
    assert problem in r.stderr
    assert r.stdout.strip() == "2 fixtures, 0 changed, 1 could not be read"


def test_fixture_check_of_a_fixture_whose_log_is_broken(tmp_path: Path) -> None:
    assert invoke("fixture", "new", DISPUTED, "--name", "case", "--dir", tmp_path).exit_code == 0
    (tmp_path / "case.jsonl").write_bytes(b"\x00\xff garbage\n")
    r = invoke("fixture", "check", tmp_path)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(
        f"coreflow: {tmp_path / 'case.jsonl'}: line 1: field '(encoding)': ")


def test_fixture_check_of_what_is_not_a_fixture(tmp_path: Path) -> None:
    r = invoke("fixture", "check", DISPUTED)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: {DISPUTED}: no expected ruling disputed-counter.expected.json beside it "
        "(coreflow fixture new LOG --name NAME freezes one)")
    r = invoke("fixture", "check", tmp_path)
    assert r.exit_code == 2 and "no fixture under" in one_line(r.stderr)
    r = invoke("fixture", "check", tmp_path / "nowhere")
    assert r.exit_code == 2 and "no such file or directory" in one_line(r.stderr)


# ------------------------------------------------------------------ the installed command

def installed_coreflow() -> str:
    here = Path(sys.executable).parent / "coreflow"
    found = str(here) if here.exists() else shutil.which("coreflow")
    if found is None:
        pytest.skip("the coreflow command is not installed (pip install .)")
    return found


def run_installed(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "COREFLOW_STORE"}
    done = subprocess.run([installed_coreflow(), *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr
    return done


def test_the_installed_command_on_bad_input(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(bytes(range(128, 256)))
    done = run_installed("judge", garbage, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"coreflow: {garbage}: line 1: field '(encoding)': not UTF-8: " \
                          "invalid start byte at byte 1\n"
    done = run_installed("judge", DISPUTED, "--format", "xml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "'xml' is not one of" in done.stderr
    assert run_installed("record", DISPUTED, cwd=tmp_path).returncode == 0
    again = run_installed("record", DISPUTED, cwd=tmp_path)
    assert again.returncode == 0 and "already recorded in ./coreflow.db" in again.stderr
    done = run_installed("board", "demo-1", "--at", "0", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == "coreflow: no line with seq 0: the log runs from seq 1 to seq 12\n"
    done = run_installed("audit", "SELECT 1", "--store", DISPUTED, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"coreflow: cannot open the event store {DISPUTED}: file is not a " \
                          "database\n"


# ------------------------------------------------------------------ simulate

SIMULATED = ("the games with a simulator: blackpoker/6.1, blackpoker/9.0 (or 6.1, 9.0); "
             "duel_masters/1.47; i_language/1")


@pytest.mark.parametrize("args, message", [
    (("--rules", "chess/1"),
     f"coreflow: --rules 'chess/1': no game 'chess' is installed; {SIMULATED}"),
    (("--rules", "chess"), "coreflow: --rules 'chess': no game is named 'chess', and "
     f"BlackPoker has no edition 'chess'; {SIMULATED}"),
    (("--rules", "blackpoker/7.0"),
     f"coreflow: --rules 'blackpoker/7.0': BlackPoker has no edition '7.0'; {SIMULATED}"),
    (("--rules", "i_language/2"), "coreflow: --rules 'i_language/2': i-language card game "
     f"has no edition '2'; {SIMULATED}"),
    (("--rules", "i_language/1", "--format", "pro"),
     "coreflow: --format: format 'pro' is not supported yet (supported: standard)"),
    (("--rules", "duel_masters/9"),
     f"coreflow: --rules 'duel_masters/9': Duel Masters has no edition '9'; {SIMULATED}"),
])
def test_simulate_of_an_unknown_game_edition_or_format(tmp_path: Path, args: tuple[str, ...],
                                                       message: str) -> None:
    r = invoke("simulate", *args, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert one_line(r.stderr) == message
    assert not (tmp_path / "out").exists()


def test_simulate_into_a_file(tmp_path: Path) -> None:
    target = shutil.copy(DISPUTED, tmp_path / "log.jsonl")
    r = invoke("simulate", "--rules", "9.0", "--out", target)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (
        f"coreflow: --out {target}: a file; give a directory to write the logs to")
    assert Path(target).read_bytes() == DISPUTED.read_bytes()


def test_a_duel_masters_card_that_is_not_an_object_names_the_cards_field(tmp_path: Path) -> None:
    log = tmp_path / "dm.jsonl"
    log.write_text(json.dumps({
        "seq": 1, "type": "match_started", "match_id": "x", "game": "duel_masters",
        "rules": "duel_masters/1.47", "format": "standard", "players": ["a", "b"],
        "cards": {"x": 5}, "log_format": 1}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["judge", str(log)])
    assert result.exit_code == 2
    assert "line 1: field 'cards'" in result.output and "Traceback" not in result.output
