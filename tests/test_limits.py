"""Limits on every size a log controls (issue 12, part 2): each is checked when the line is
read, and a line over a limit is one error naming its line and field, for the judge a
``log.malformed`` finding, for record/normalize/verify/board a refusal; nothing is built
in proportion to a number the log merely claims.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.events.models import MAX_DECK_SIZE, MAX_DEPTH, MAX_PLAYERS, MAX_TEXT

from tests.test_bad_input import (
    assert_nothing_written,
    codes,
    disputed,
    edited,
    invoke,
    judged,
    one_line,
    replaced,
    run_command,
    write_lines,
)

HEADER_COMMANDS = ("judge", "record", "board", "normalize", "fixture new")


@pytest.mark.parametrize("size", [MAX_DECK_SIZE + 1, 10**8, 10**18, 10**30])
def test_a_deck_size_over_the_limit_is_refused_at_the_header(tmp_path: Path, size: int) -> None:
    log = write_lines(tmp_path / "deck.jsonl",
                      edited(0, deck_sizes={"alice": size, "bob": 52})(disputed()))
    started = time.monotonic()
    for command in HEADER_COMMANDS:
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, (command, r.stderr)
        assert one_line(r.stderr) == (
            f"coreflow: {log}: line 1: field 'deck_sizes.alice': must be {MAX_DECK_SIZE} or "
            f"less (got {size})"), command
    assert time.monotonic() - started < 30  # nothing of that size was built
    assert_nothing_written(tmp_path)


def test_a_deck_at_the_limit_is_judged(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "deck.jsonl", edited(
        0, deck_sizes={"alice": MAX_DECK_SIZE, "bob": MAX_DECK_SIZE})(disputed()))
    assert invoke("judge", log).exit_code == 1  # the disputed counter, nothing more
    cards = write_lines(tmp_path / "decks.jsonl", edited(
        0, decks={"alice": ["S1"] * (MAX_DECK_SIZE + 1), "bob": ["S2"]})(disputed()))
    r = invoke("normalize", cards)
    assert r.exit_code == 2
    assert one_line(r.stderr).startswith(f"coreflow: {cards}: line 1: field 'decks.alice': "
                                         f"must have at most {MAX_DECK_SIZE} items (got [")


def test_too_many_players(tmp_path: Path) -> None:
    players = [f"p{i}" for i in range(MAX_PLAYERS + 1)]
    log = write_lines(tmp_path / "p.jsonl", edited(0, players=players)(disputed()))
    for command in HEADER_COMMANDS:
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        assert one_line(r.stderr).startswith(f"coreflow: {log}: line 1: field 'players': must "
                                             f"have at most {MAX_PLAYERS} items"), command
    assert_nothing_written(tmp_path)


NOT_FINITE: dict[str, tuple[int, str, str, str]] = {
    # name: (line index, raw text replacing `"targets":[]` or appended, field, shown)
    "NaN in choices": (3, '"choices":{"card":"alice:H2","n":NaN}', "choices.n", "NaN"),
    "Infinity in x": (5, '"x":{"clock":[1,Infinity]}', "x.clock.1", "Infinity"),
    "-Infinity in x": (6, '"x":{"v":-Infinity}', "x.v", "-Infinity"),
    "1e400 in x": (6, '"x":{"v":1e400}', "x.v", "Infinity"),
    "NaN in an effect": (10, '"effects":[{"op":"negate","request":"r2","n":NaN}]',
                         "effects.0.n", "NaN"),
}


def _with_raw(index: int, raw: str) -> list[Any]:
    lines: list[Any] = disputed()
    line = dict(lines[index])
    key = raw.split(":", 1)[0].strip('"')
    line.pop(key, None)
    text = json.dumps(line, separators=(",", ":"))
    lines[index] = text[:-1] + "," + raw + "}"
    return lines


@pytest.mark.parametrize("case", sorted(NOT_FINITE))
def test_numbers_must_be_finite(tmp_path: Path, case: str) -> None:
    index, raw, field, shown = NOT_FINITE[case]
    log = write_lines(tmp_path / "nan.jsonl", _with_raw(index, raw))
    malformed = [(s, m) for c, s, m in codes(judged(log)) if c == "log.malformed"]
    assert malformed == [(index + 1, f"Line {index + 1}: field '{field}': must be a finite "
                                     f"number (got {shown})")]
    for command in ("record", "normalize", "verify"):
        r = run_command(command, log, tmp_path)
        assert r.exit_code == 2, command
        assert one_line(r.stderr) == (f"coreflow: {log}: line {index + 1}: field '{field}': "
                                      f"must be a finite number (got {shown})")
    assert_nothing_written(tmp_path)


def test_a_not_finite_number_in_the_header_cards(tmp_path: Path) -> None:
    log = write_lines(tmp_path / "c.jsonl", replaced(0, json.dumps(
        {**disputed()[0], "cards": {"x": {"power": 1}}}).replace('"power": 1', '"power": NaN'))(
            disputed()))
    r = invoke("judge", log)
    assert r.exit_code == 2
    assert one_line(r.stderr) == (f"coreflow: {log}: line 1: field 'cards.x.power': must be a "
                                  "finite number (got NaN)")


def test_free_form_values_nest_at_most_so_deep(tmp_path: Path) -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH):
        deep = {"a": deep}
    fine = write_lines(tmp_path / "fine.jsonl", edited(5, x=deep)(disputed()))
    assert [c for c, _s, _m in codes(judged(fine)) if c == "log.malformed"] == []
    log = write_lines(tmp_path / "deep.jsonl", edited(5, x={"a": deep})(disputed()))
    r = invoke("normalize", log)
    assert r.exit_code == 2
    path = ".".join(["x"] + ["a"] * MAX_DEPTH)
    assert one_line(r.stderr) == (f"coreflow: {log}: line 6: field '{path}': nested deeper "
                                  f"than {MAX_DEPTH} levels")


@pytest.mark.parametrize("field, value, limit", [
    ("note", "n" * (MAX_TEXT + 1), f"at most {MAX_TEXT} characters"),
    ("action", "a" * 129, "at most 128 characters"),
    ("request", "r" * 129, "at most 128 characters"),
    ("targets", ["t" * 129], "at most 128 characters"),
])
def test_ids_and_notes_have_a_length_limit(tmp_path: Path, field: str, value: Any,
                                           limit: str) -> None:
    log = write_lines(tmp_path / "long.jsonl", edited(7, **{field: value})(disputed()))
    r = invoke("record", log, "--store", tmp_path / "store.db")
    assert r.exit_code == 2
    named = f"{field}.0" if isinstance(value, list) else field
    assert one_line(r.stderr).startswith(f"coreflow: {log}: line 8: field '{named}': must be "
                                         f"{limit} (got ")
    assert_nothing_written(tmp_path)


@pytest.fixture(scope="module")
def triggered_log(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """A simulated 9.0 game with triggers, without hashes."""
    out = tmp_path_factory.mktemp("sim")
    r = invoke("simulate", "--rules", "9.0", "--format", "master", "--games", "1",
               "--seed", "0", "--out", out)
    assert r.exit_code == 0
    (path,) = out.glob("*.jsonl")
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("hash", None)
    assert any(x["type"] == "trigger" for x in lines)
    return lines


@pytest.mark.parametrize("command", ["normalize", "record", "judge", "board"])
def test_a_long_request_id_where_a_trigger_is_left_out(
        tmp_path: Path, triggered_log: list[dict[str, Any]], command: str) -> None:
    """The id of a triggered request the log leaves out is taken from its stage line: an
    id over 128 characters there is that line's error, not a validation dump."""
    trigger = next(x for x in triggered_log if x["type"] == "trigger")["request"]
    lines: list[dict[str, Any]] = []
    for line in triggered_log:
        if line["type"] == "trigger" and line["request"] == trigger:
            continue
        if line.get("request") == trigger:
            line = {**line, "request": "z" * 200}
        lines.append({**line, "seq": len(lines) + 1})
    bad = next(i for i, x in enumerate(lines, start=1) if x.get("request") == "z" * 200)
    log = write_lines(tmp_path / "long-id.jsonl", lines)
    r = run_command(command, log, tmp_path)
    if command == "judge":
        assert r.exit_code == 1
        assert f"Line {bad}: field 'request': must be at most 128 characters" in r.stdout
    elif command == "board":
        assert r.exit_code == 0 and "findings so far:" in r.stdout
    else:
        assert r.exit_code == 2
        assert one_line(r.stderr).startswith(
            f"coreflow: {log}: line {bad}: field 'request': must be at most 128 characters")
    assert_nothing_written(tmp_path)
