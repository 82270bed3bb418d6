"""BlackPoker's formats and its edition data: checked when loaded, one list per format."""

from __future__ import annotations

import copy
import json
import sys
from importlib import resources
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
    (["triggers", 0, "after"], "ende", "triggers[0].after", "ende"),
    (["actions", "up", "flags"], {"countr_immune": True}, "actions.up.flags",
     "countr_immune"),
    (["actions", "twist", "key", "cards", 0, "ranks"], [9, 2],
     "actions.twist.key.cards[0].ranks", [9, 2]),
    (["characters", "ace", "immune"], ["donw"], "characters.ace.immune[0]", "donw"),
    (["actions", "up", "name"], None, "actions.up.name", None),
])
def test_a_typo_in_the_data_fails_at_load_naming_file_and_key(
        path: list[str | int], value: object, named: str, culprit: object) -> None:
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


def _package(tmp_path: Path, files: dict[str, str], name: str = "edition_pkg") -> str:
    """A package holding ``files`` in its data folder (a distinct ``name`` per test: the
    loaded data is cached by package and edition)."""
    pkg = tmp_path / name
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for file, text in files.items():
        (pkg / "data" / file).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    return name


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


FROZEN_NINE = Path(__file__).parent / "data" / "edition-9.0.frozen.json"
"""The 9.0 data as loaded on 2026-11-27, when every 9.0 file still wrote each entry out in
full (before 9.0 said ``inherits: "6.1"``), parts merged, without ``_files``. A change to
the 6.1 or 9.0 data that is meant to change 9.0 is frozen again, in the same commit, with
``json.dumps(data without "_files", ensure_ascii=False, indent=1)`` of
``load_edition_data("coreflow_judge.adjudicator.games.blackpoker", "9.0")``: the diff of
this file is then what 9.0 gained or lost, whichever file the change was made in."""


def _as_read(data: dict) -> dict:
    """The data as the rules read it: a section, an entry and a policy key are looked up by
    name (their key order is the files' and is compared apart); every value below an
    entry's field or a policy key keeps its order (a choice's, a step list's)."""
    def fields(entry: object) -> object:
        return ({f: json.dumps(v, ensure_ascii=False) for f, v in entry.items()}
                if isinstance(entry, dict) else json.dumps(entry, ensure_ascii=False))
    return {section: ({key: fields(entry) for key, entry in value.items()}
                      if isinstance(value, dict) else json.dumps(value, ensure_ascii=False))
            for section, value in data.items() if section != "_files"}


def test_nine_inherits_six_one_and_loads_exactly_as_when_written_in_full() -> None:
    """9.0 gives only what it changes from 6.1; merged, it is the data 9.0's files held
    when they wrote every entry out: the same sections, entries, fields and values, the
    actions, characters, trumps and frames in the same order (the order the legal actions
    are listed and a simulator chooses in)."""
    frozen = json.loads(FROZEN_NINE.read_text(encoding="utf-8"))
    nine = load_edition("9.0")
    assert _as_read(nine) == _as_read(frozen)
    for section in ("actions", "characters", "trumps", "frames"):
        assert list(nine[section]) == list(frozen[section]), section
    text = "".join(f.read_text(encoding="utf-8") for f in
                   resources.files("coreflow_judge.adjudicator.games.blackpoker")
                   .joinpath("data").iterdir() if f.name.startswith("edition-9.0"))
    assert 'inherits: "6.1"' in text
    assert "name: Set Bulwark" not in text  # an action as 6.1 has it is not written twice


def test_an_edition_inherits_what_it_does_not_change(tmp_path: Path) -> None:
    """The child lists each entry it has (``{}``: as the parent's; a field given: in the
    parent's field's place; ``null``: the parent's field dropped), the policy keys it
    changes, and whole lists; what it does not list of the parent's entries is not in it."""
    name = _package(tmp_path, {
        "edition-1.yaml": "edition: '1'\nformats: [a, b]\n"
                          "policy: {hand: 7, fog: false}\n"
                          "actions:\n  up: {name: Up, cost: B, formats: [b]}\n"
                          "  down: {name: Down, cost: L}\n  gone: {name: Gone}\n"
                          "triggers: [x, y]\n",
        "edition-2.yaml": "edition: '2'\ninherits: '1'\nformats: [a]\n"
                          "policy: {fog: true, preset: true}\n"
                          "actions:\n  new: {name: New}\n  down: {}\n",
        "edition-2.more.yaml": "actions:\n  up: {cost: BD, formats: null}\n",
    }, name="edition_pkg_inherits")
    try:
        two = load_edition_data(name, "2")
        assert two["edition"] == "2" and two["formats"] == ["a"]
        assert two["policy"] == {"hand": 7, "fog": True, "preset": True}
        assert two["actions"] == {"new": {"name": "New"},
                                  "down": {"name": "Down", "cost": "L"},
                                  "up": {"name": "Up", "cost": "BD"}}
        assert list(two["actions"]) == ["new", "down", "up"]  # the child's order
        assert two["triggers"] == ["x", "y"]  # not given: the parent's
        assert "inherits" not in two
        # an error in what the child gives names the child's file; in the rest, the parent's
        assert two["_files"]["actions.up"] == "edition-2.more.yaml"
        assert two["_files"]["policy.hand"] == "edition-1.yaml"
        assert load_edition_data(name, "1")["actions"]["up"]["formats"] == ["b"]  # untouched
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


@pytest.mark.parametrize(("files", "says"), [
    ({"edition-1.yaml": "inherits: '1'\n"}, r"edition-1\.yaml: inherits: an edition cannot "
                                              r"inherit from itself \(1 -> 1\)"),
    ({"edition-1.yaml": "inherits: '2'\n", "edition-2.yaml": "inherits: '1'\n"},
     r"edition-2\.yaml: inherits: .* \(1 -> 2 -> 1\)"),
    ({"edition-1.yaml": "inherits: '7'\n"}, r"edition-1\.yaml: inherits: no edition '7'"),
    ({"edition-1.yaml": "formats: [a]\n", "edition-1.x.yaml": "inherits: '2'\n"},
     r"edition-1\.x\.yaml: inherits: said in edition-1\.yaml only"),
])
def test_a_wrong_inherits_is_an_error_naming_the_file(tmp_path: Path, files: dict[str, str],
                                                      says: str) -> None:
    name = _package(tmp_path, files, name=f"edition_pkg_bad_{abs(hash(says)) % 10**8}")
    try:
        with pytest.raises(EditionDataError, match=says):
            load_edition_data(name, "1")
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
