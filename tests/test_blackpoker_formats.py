"""BlackPoker's formats and its edition data: checked when loaded, one list per format."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.game import UnsupportedRules
from coreflow_judge.adjudicator.games.blackpoker import schema
from coreflow_judge.adjudicator.games.blackpoker.rules import (
    STEPS,
    BlackPokerRules,
    load_edition,
)
from coreflow_judge.adjudicator.games.common import EditionDataError, load_edition_data
from coreflow_judge.adjudicator.judge import JudgeInputError, judge_lines
from coreflow_judge.events.reader import iter_lines

EDITION_FORMATS = {"6.1": ["lite", "standard", "pro", "master", "extra"],
                   "9.0": ["lite", "standard", "pro", "master"]}
JUDGED = {"6.1": ["lite", "standard", "pro", "master", "extra"],
          "9.0": ["lite", "standard", "pro", "master"]}


@pytest.mark.parametrize("edition", sorted(EDITION_FORMATS))
def test_each_edition_names_its_formats(edition: str) -> None:
    assert load_edition(edition)["formats"] == EDITION_FORMATS[edition]
    for fmt in JUDGED[edition]:
        assert BlackPokerRules(edition, fmt).format == fmt


def test_nine_has_no_extra_format_and_says_so() -> None:
    with pytest.raises(UnsupportedRules) as caught:
        BlackPokerRules("9.0", "extra")
    assert caught.value.field == "format"
    assert "lite, standard, pro, master" in str(caught.value)


@pytest.mark.parametrize("edition", sorted(EDITION_FORMATS))
def test_a_format_holds_every_action_of_the_formats_below_it(edition: str) -> None:
    formats = JUDGED[edition]
    lists = [set(BlackPokerRules(edition, f).actions) for f in formats]
    for smaller, larger in zip(lists, lists[1:], strict=False):
        assert smaller <= larger


def _broken(edition: str, path: list[str | int], value: object) -> dict:
    data = copy.deepcopy(load_edition(edition))
    where: object = data
    for part in path[:-1]:
        where = where[part]  # type: ignore[index]
    where[path[-1]] = value  # type: ignore[index]
    return data


@pytest.mark.parametrize(("path", "value", "named", "culprit"), [
    (["actions", "up", "effect", 0, "step"], "sise", "actions.up.effect[0].step", "sise"),
    (["actions", "up", "cost"], "DX", "actions.up.cost", "X"),
    (["actions", "up", "timing"], "fast", "actions.up.timing", "fast"),
    (["actions", "up", "formats"], ["lite", "expert"], "actions.up.formats", "expert"),
    (["actions", "down", "target", "kind"], "soldeir", "actions.down.target.kind", "soldeir"),
    (["actions", "twist", "key", "cards", 0, "suits"], ["X"], "actions.twist.key.cards[0]",
     "X"),
    (["actions", "counter", "spead"], "normal", "actions.counter", "spead"),
    (["characters", "ace", "size"], "big", "characters.ace.size", "big"),
    (["triggers", 0, "after"], "ende", "triggers.[0].after", "ende"),
])
def test_a_typo_in_the_data_fails_at_load_naming_file_and_key(
        path: list[str | int], value: object, named: str, culprit: str) -> None:
    data = _broken("9.0", path, value)
    with pytest.raises(EditionDataError) as caught:
        schema.check(data, STEPS)
    assert str(caught.value).startswith("edition-9.0.yaml: " + named)
    assert repr(culprit) in str(caught.value)


def test_an_ability_in_the_data_is_checked_too() -> None:
    data = copy.deepcopy(load_edition("9.0"))
    data["characters"]["ace"]["abilities"] = [
        {"name": "boost", "scope": "everyone", "stat": "cost", "op": "waive"}]
    with pytest.raises(EditionDataError, match=r"characters\.ace\.abilities\[0\]\.scope"):
        schema.check(data, STEPS)


def _package(tmp_path: Path, files: dict[str, str]) -> str:
    pkg = tmp_path / "edition_pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for name, text in files.items():
        (pkg / "data" / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    return "edition_pkg"


def test_an_edition_is_merged_from_its_parts_and_a_key_twice_is_an_error(
        tmp_path: Path) -> None:
    name = _package(tmp_path, {
        "edition-1.yaml": "actions: {a: 1}\ntriggers: [x]\n",
        "edition-1.more.yaml": "actions: {b: 2}\ntriggers: [y]\n",
        "edition-2.yaml": "actions: {a: 1}\n",
        "edition-2.more.yaml": "actions: {a: 3}\n",
    })
    try:
        one = load_edition_data(name, "1")
        assert one["actions"] == {"a": 1, "b": 2}
        assert one["triggers"] == ["x", "y"]
        assert one["_files"]["actions.b"] == "edition-1.more.yaml"
        with pytest.raises(EditionDataError,
                           match=r"edition-2\.more\.yaml: actions\.a: already defined in "
                                 r"edition-2\.yaml"):
            load_edition_data(name, "2")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


def test_a_nine_extra_header_is_refused_naming_the_field() -> None:
    header = {"seq": 1, "type": "match_started", "match_id": "t", "game": "blackpoker",
              "rules": "blackpoker/9.0", "format": "extra", "players": ["alice", "bob"],
              "deck_sizes": {"alice": 30, "bob": 30}, "log_format": 1}
    with pytest.raises(JudgeInputError) as caught:
        judge_lines(iter_lines([json.dumps(header)]))
    assert (caught.value.line, caught.value.field) == (1, "format")


@pytest.mark.parametrize(("rules", "frame", "says"), [
    ("blackpoker/9.0", "pak", "BlackPoker 9.0 has no frame 'pak' (its frames: entry16, pack, "
                              "rare_pack, strategy, extra)"),
    ("blackpoker/6.1", "pack", "BlackPoker 6.1 has no frames"),
])
def test_a_frame_the_edition_has_not_is_refused_naming_the_field(rules: str, frame: str,
                                                                  says: str) -> None:
    """The header names the regulation's frame (9.0): an unknown one, or one with 6.1,
    is refused before anything is judged, naming the field."""
    from coreflow_judge.adjudicator.games.blackpoker.lines import BlackPokerMatchStarted
    from coreflow_judge.adjudicator.judge import JudgeInputError, start_flow

    header = BlackPokerMatchStarted(seq=1, match_id="f", game="blackpoker", rules=rules,
                                    format="lite", frame=frame, players=["alice", "bob"],
                                    log_format=1)
    with pytest.raises(JudgeInputError) as caught:
        start_flow(header)
    assert caught.value.field == "frame" and says in str(caught.value)
