"""The rules expert's workflow: freeze a disputed log, break the judge, see pytest fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from coreflow_judge.adjudicator import rulings
from coreflow_judge.adjudicator.judge import Report
from coreflow_judge.adjudicator.rulings import RulingCase, check, discover, freeze, update
from coreflow_judge.cli.main import app
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"

#: A deliberate change to the judge: 9.0 loses its "requester keeps the chance" policy.
BREAK_THE_JUDGE = '''
import dataclasses
import coreflow_judge.adjudicator.games.blackpoker.rules as bp

_init = bp.BlackPokerRules.__init__


def _broken(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.policy = dataclasses.replace(self.policy, requester_keeps_chance=False)


bp.BlackPokerRules.__init__ = _broken
'''


def test_fixture_new_freezes_log_findings_and_board(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["fixture", "new", str(DISPUTED), "--name", "counter-3",
                                      "--note", "bob's ♣3 cannot counter ♠9",
                                      "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    case = RulingCase.of(tmp_path / "counter-3.jsonl")
    assert case.log.read_bytes() == DISPUTED.read_bytes()
    ruling = case.load()
    assert ruling["description"] == "bob's ♣3 cannot counter ♠9"
    assert ("legality.effect-mismatch", 11) in {(f["code"], f["seq"]) for f in ruling["findings"]}
    assert all(f["rule"] and f["message"] for f in ruling["findings"])
    assert ruling["board"]["turn_player"] == "alice"
    assert check(case) is None
    again = CliRunner().invoke(app, ["fixture", "new", str(DISPUTED), "--name", "counter-3",
                                     "--dir", str(tmp_path)])
    assert again.exit_code != 0 and "already exists" in again.output


def test_fixture_check_reports_and_update_refreezes(tmp_path: Path) -> None:
    case = freeze(DISPUTED, "counter-3", "note", tmp_path)
    ruling = case.load()
    ruling["findings"] = [f for f in ruling["findings"] if f["code"] != "legality.effect-mismatch"]
    case.expected.write_text(json.dumps(ruling), encoding="utf-8")
    diff = check(case)
    assert diff is not None
    assert "+ reported, not expected: seq 11 legality.effect-mismatch" in diff
    assert '"request":"r3"' in diff.replace(" ", "")  # the log line itself is quoted
    ruling["rules"] = "blackpoker/6.1"
    case.expected.write_text(json.dumps(ruling), encoding="utf-8")
    assert "~ rules: expected blackpoker/6.1, the judge reads blackpoker/9.0" in str(check(case))
    result = CliRunner().invoke(app, ["fixture", "check", str(tmp_path)])
    assert result.exit_code == 1 and "1 changed" in result.output
    update(case)
    assert check(case) is None and discover(tmp_path) == [case]


def test_a_broken_judge_fails_plain_pytest_with_line_and_rule(tmp_path: Path) -> None:
    rulings = tmp_path / "rulings"
    freeze(DISPUTED, "counter-3", "bob's ♣3 against ♠9", rulings)
    (tmp_path / "conftest.py").write_text(BREAK_THE_JUDGE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         "-p", "coreflow_judge.adjudicator.pytest_plugin", str(rulings)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "counter-3" in out and "the ruling changed" in out
    assert "+ reported, not expected: seq 7 timing.no-chance [error] rule core[11]" in out
    assert 'line 7: {"seq":7,"type":"pass","player":"alice"}' in out
    assert "fixture check --update" in out


def test_a_fixture_is_judged_once_until_its_log_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin's check and the fixture-collection tests share one judgement per log;
    a log edited since (another size or modification time) is judged again."""
    case = freeze(DISPUTED, "counter-3", "note", tmp_path)
    calls: list[Path] = []
    judge = rulings.judge_file

    def counting(path: Path) -> Report:
        calls.append(path)
        return judge(path)

    monkeypatch.setattr(rulings, "judge_file", counting)
    first = rulings.judgement(case.log)
    assert check(case) is None and check(case) is None
    assert rulings.judgement(case.log) is first and len(calls) == 1
    case.log.write_text(DISPUTED.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert rulings.judgement(case.log) is not first and len(calls) == 2


def test_a_fixture_about_part_of_the_board_compares_that_part_alone(tmp_path: Path) -> None:
    """``board_fields`` (JSON pointers) name what a fixture is about: its boards hold those
    parts alone, a change there is a difference both ways, a change elsewhere is none."""
    case = rulings.freeze(DISPUTED, "counter-3", "note", tmp_path, at=11,
                          board_fields=["/stage", "/players/bob/field"])
    ruling = case.load()
    assert ruling["board_fields"] == ["/stage", "/players/bob/field"]
    assert set(ruling["board"]) == {"stage", "players"}
    assert set(ruling["board"]["players"]) == {"bob"}
    assert set(ruling["board"]["players"]["bob"]) == {"field"}
    assert set(ruling["board_at"]["board"]) <= {"stage", "players"}
    assert check(case) is None
    whole = freeze(DISPUTED, "whole", "note", tmp_path, at=11).load()
    assert whole["board"]["players"]["bob"]["field"] == ruling["board"]["players"]["bob"]["field"]

    def changed(edit: object) -> str | None:
        data = json.loads(json.dumps(ruling))
        edit(data)  # type: ignore[operator]
        case.expected.write_text(json.dumps(data), encoding="utf-8")
        return check(case)

    # A part the fixture is about: changed, gone, or a part that appeared, is a difference.
    diff = changed(lambda d: d["board"]["players"]["bob"]["field"].append("bob:C9"))
    assert diff is not None and "~ board" in diff and "field" in diff
    diff = changed(lambda d: d["board"].pop("stage"))
    assert diff is not None and "stage" in diff
    diff = changed(lambda d: d["board_at"]["board"].pop("players"))
    assert diff is not None and "board at seq 11" in diff
    # The judge's board beyond the named parts is not compared.
    assert changed(lambda d: d["board"].update(turn=99)) is None
    assert changed(lambda d: d["board"]["players"]["bob"].update(hand=["bob:C9"])) is None


def test_narrowing_a_fixture_keeps_its_ruling_and_cuts_its_boards(tmp_path: Path) -> None:
    """:func:`rulings.narrow` gives a whole-board fixture the boards a fixture frozen with
    ``board_fields`` has, and nothing else it expects changes."""
    whole = freeze(DISPUTED, "counter-3", "note", tmp_path / "whole", at=11)
    fields = ["/stage", "/players/bob/field"]
    cut = freeze(DISPUTED, "counter-3", "note", tmp_path / "cut", at=11, board_fields=fields)
    before = whole.load()
    rulings.narrow(whole, fields)
    after = whole.load()
    assert after == cut.load()
    assert {k: v for k, v in after.items() if k not in ("board", "board_at", "board_fields")} \
        == {k: v for k, v in before.items() if k not in ("board", "board_at")}
    assert check(whole) is None
    text = whole.expected.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="'/nowhere' is in no board"):
        rulings.narrow(whole, ["/nowhere"])
    with pytest.raises(ValueError, match="not a JSON pointer"):
        rulings.narrow(whole, ["stage"])
    assert whole.expected.read_text(encoding="utf-8") == text


def test_a_fixture_whose_ruling_changed_is_not_narrowed(tmp_path: Path) -> None:
    """Narrowing cuts the boards a fixture froze: a fixture that no longer passes would hide
    its difference, so it is refused (the CLI says why) and nothing is written."""
    case = freeze(DISPUTED, "counter-3", "note", tmp_path, at=11)
    data = case.load()
    data["board"]["players"]["bob"]["field"] = ["bob:C9"]
    rulings.write_ruling(case.expected, data)
    text = case.expected.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="its ruling changed"):
        rulings.narrow(case, ["/players/bob/field"])
    result = CliRunner().invoke(app, ["fixture", "narrow", str(case.log),
                                      "--board-field", "/players/bob/field"])
    assert result.exit_code != 0 and "its ruling changed" in result.output, result.output
    assert case.expected.read_text(encoding="utf-8") == text
    fresh = freeze(DISPUTED, "fresh", "note", tmp_path, at=11)
    result = CliRunner().invoke(app, ["fixture", "narrow", str(fresh.expected),
                                      "--board-field", "/stage"])
    assert result.exit_code == 0, result.output
    assert fresh.load()["board_fields"] == ["/stage"] and check(fresh) is None


def _narrowed_fixtures() -> list[RulingCase]:
    return [c for c in discover(ROOT / "fixtures" / "rulings") if "board_fields" in c.load()]


def _poisoned(value: object) -> object:
    """A value unlike ``value`` (what a regression could leave in a board)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, list):
        return [*value, "regressed"]
    if isinstance(value, dict):
        return {**value, "regressed": True}
    return ["regressed", value]


def test_every_narrowed_fixture_fails_when_a_field_it_is_about_changes(
        tmp_path: Path) -> None:
    """Each committed fixture with ``board_fields``: changing any one part it names, in its
    final board or its board at the disputed line, makes its check fail (the narrowing left
    the fixture able to catch a regression there)."""
    cases = _narrowed_fixtures()
    assert len(cases) >= 96  # issue 25: the golden boards are narrowed to their subject
    for case in cases:
        ruling = case.load()
        assert check(case) is None, case.name
        for pointer in ruling["board_fields"]:
            parts = rulings.pointer_parts(pointer)
            for where in ("board", "board_at"):
                data = json.loads(json.dumps(ruling))
                board = data.get(where)
                if board is None:
                    continue
                board = board["board"] if where == "board_at" else board
                node = board
                for key in parts[:-1]:
                    node = node.get(key, {}) if isinstance(node, dict) else {}
                if not isinstance(node, dict) or parts[-1] not in node:
                    continue
                node[parts[-1]] = _poisoned(node[parts[-1]])
                copy = tmp_path / f"{case.name}.expected.json"
                copy.write_text(json.dumps(data), encoding="utf-8")
                diff = check(RulingCase(case.log, copy))
                assert diff is not None and pointer.rsplit("/", 1)[-1] in diff, \
                    (case.name, where, pointer)


@pytest.mark.parametrize(("fields", "says"), [
    (["stage"], "is not a JSON pointer"),
    (["/nowhere"], "'/nowhere' is in no board the fixture holds"),
])
def test_a_board_field_that_names_nothing_is_refused_and_writes_nothing(
        tmp_path: Path, fields: list[str], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        freeze(DISPUTED, "counter-3", "note", tmp_path, board_fields=fields)
    assert list(tmp_path.iterdir()) == []
    result = CliRunner().invoke(app, ["fixture", "new", str(DISPUTED), "--name", "c",
                                      "--dir", str(tmp_path), "--board-field", fields[0]])
    assert result.exit_code != 0 and says in result.output, result.output
    assert list(tmp_path.iterdir()) == []


def test_board_part_keeps_the_named_parts_nested_as_in_the_board() -> None:
    board = {"stage": ["r1"], "players": {"a/b": {"hand": [1], "field": []}, "c": {}},
             "turn": 3}
    assert rulings.board_part(board, None) is board
    assert rulings.board_part(board, ["/players/a~1b/field", "/turn", "/players/x"]) == {
        "players": {"a/b": {"field": []}}, "turn": 3}
