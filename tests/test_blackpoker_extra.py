"""BlackPoker 6.1 extra: trumps, their abilities and the trump characters.

The ruling fixtures (fixtures/rulings/extra/) judge one situation each; these tests check
the data as a whole, the board and audit, and mistakes injected into simulated games.
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
from coreflow_judge.events.models import LINE_ADAPTER, LogLine, Request, lines_of
from coreflow_judge.events.reader import LineError, iter_lines, read_log

from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
EXTRA = ROOT / "fixtures" / "rulings" / "extra"
game = pooled(simulate_game)


def _judge_dicts(lines: list[dict[str, Any]]) -> list[tuple[str, int]]:
    report = judge_lines(iter_lines([json.dumps(d) for d in lines]))
    return [(f.code, f.seq) for f in report.findings if f.severity == "error"]


def _dicts(lines: list[LogLine]) -> list[dict[str, Any]]:
    return [line.model_dump(mode="json", exclude_none=True, exclude={"hash"})
            for line in lines]


def test_every_extra_action_is_granted_or_is_a_trump_operation() -> None:
    """Each action of the extra list comes from somewhere: a trump's ability, a trump
    character's ability, or the trump operations everyone has."""
    rules = BlackPokerRules("6.1", "extra")
    data = load_edition("6.1")
    granted = {a for t in data["trumps"].values() for a in t.get("grants", ())}
    granted |= {g["action"] for c in data["characters"].values() for g in c.get("grants", ())}
    started = {"trump_regenerate", "trump_reset", "attack"}  # started by other effects
    operations = {"open", "close", "trump_destroy"}
    extra = {a for a, d in rules.actions.items() if d.data.get("formats") == ["extra"]}
    assert extra - granted - started - operations == set()
    # Every trump character is summoned by the trump that names it.
    for card, trump in data["trumps"].items():
        if "character" in trump:
            assert data["characters"][trump["character"]]["formats"] == ["extra"], card


def test_trump_actions_exist_only_in_extra() -> None:
    master = BlackPokerRules("6.1", "master")
    assert "open" not in master.actions and "slash" not in master.actions
    assert master.trump_data == {}


def test_the_board_shows_each_trump_and_its_face() -> None:
    report = judge_lines(read_log(EXTRA / "open-and-slash-6.1.jsonl"))
    assert report.flow is not None
    board = report.flow.rules.board(report.flow)
    assert board["players"]["alice"]["trumps"] == [{"card": "S2", "face": "up"},
                                                   {"card": "H7", "face": "down"}]
    assert board["players"]["bob"]["trumps"] == [{"card": "C9", "face": "down"}]


def test_the_audit_holds_trump_operations_and_the_trump_zone() -> None:
    from tests.logtools import audit_rows

    text = (EXTRA / "reanimator-regenerates-trump-6.1.jsonl").read_text(encoding="utf-8")
    rows = audit_rows([lines_of("blackpoker").validate_json(t) for t in text.splitlines()])
    actions = {r["action"] for r in rows["requests"]}
    assert {"open", "summon_reanimator", "reanimate", "trump_regenerate"} <= actions
    regenerate = [r for r in rows["resolutions"] if r["action"] == "trump_regenerate"]
    assert regenerate and {e["op"] for e in regenerate[0]["effects"]} == {"move", "flip"}
    last = rows["boards"][-1]["board"]["players"]["bob"]["trumps"]
    assert {"card": "S11", "face": "up"} in last


def test_an_unknown_trump_face_is_shown_when_opened() -> None:
    """A trump recorded as ``?`` takes the face its オープン shows."""
    lines = [json.loads(t) for t in (EXTRA / "open-and-slash-6.1.jsonl").read_text(
        encoding="utf-8").splitlines()]
    lines[1]["trumps"]["alice"] = ["?", "H7"]
    assert _judge_dicts(lines) == []


def test_a_trump_opened_that_the_player_does_not_have_is_caught_at_its_line() -> None:
    """Inject into simulated extra games: an オープン whose choice names a card that is not
    one of the requester's trumps. One finding, at that line; the rest of the game is
    judged on the table as played (the trump it did open stays face down, so a game where
    that trump's ability shows later is not used: that would be more than one mistake)."""
    rules = load_edition("6.1")
    tried = 0
    for seed in range(30):
        lines = _dicts(game("6.1", seed, "extra"))
        held = lines[1].get("trumps", {})
        for i, d in enumerate(lines):
            choices = d.get("choices")
            if d.get("type") != "resolve" or not isinstance(choices, dict) \
                    or "trump" not in choices:
                continue
            owner, _, card = str(choices["trump"]).partition(":")
            ability = rules["trumps"].get(card, {})
            later = {x.get("action") for x in lines[i:]}
            named = any(f"{owner}:{card}" in (x.get("targets") or []) for x in lines[i:])
            if set(ability.get("grants", ())) & later or ability.get("rule") \
                    or ability.get("triggers") or named:
                continue  # the trump shows later (its ability, or a クローズ of it)
            if "S6" in held.get(owner, []):
                continue
            bad = {k: v for k, v in d.items() if k != "effects"}
            bad["choices"] = {"trump": f"{owner}:S6"}
            mutated = lines[:i] + [bad] + lines[i + 1:]
            assert _judge_dicts(mutated) == [("legality.choice-invalid", d["seq"])], seed
            tried += 1
            break
    assert tried >= 5, tried


def test_simulated_extra_games_use_trump_characters_somewhere() -> None:
    """Across a few dozen simulated games the trump summons and the characters' own
    actions come up, each game judged clean by the test of every format."""
    used: set[str] = set()
    for seed in range(30):
        used |= {str(d.get("action")) for d in _dicts(game("6.1", seed, "extra"))}
    summons = {"summon_reanimator", "summon_chariot", "summon_strategist", "summon_knight",
               "summon_dark_lord", "summon_giant"}
    assert used & summons, "no trump summon in 30 simulated extra games"


# ---------------------------------------------------------------------- 9.0 extra frame
EXTRA_9 = ROOT / "fixtures" / "rulings" / "frames"


def _nine_extra(frame: str | None, trumps: dict[str, list[str]],
                more: list[dict[str, Any]] | None = None) -> list[tuple[str, int, str]]:
    """Judge a 9.0 master opening (with ``frame``) whose set-up places ``trumps``."""
    lines = [json.loads(line) for line in
             (EXTRA_9 / "close-locks-for-the-turn-9.0.jsonl").read_text().splitlines()][:2]
    if frame is None:
        lines[0].pop("frame")
    else:
        lines[0]["frame"] = frame
    lines[1]["trumps"] = trumps
    for i, line in enumerate(more or []):
        lines.append({**line, "seq": i + 3})
    report = judge_lines(iter_lines([json.dumps(d) for d in lines]))
    return [(f.code, f.seq, f.severity) for f in report.findings]


def test_nine_trumps_are_set_up_only_with_the_extra_frame() -> None:
    """game_started.trumps: accepted for 9.0 with the extra frame, refused without it."""
    assert _nine_extra("extra", {"alice": ["S2", "S7"], "bob": ["D4"]}) == []
    assert _nine_extra(None, {"alice": ["S2"]}) == [("legality.setup-invalid", 2, "error")]
    three = _nine_extra("extra", {"alice": ["S2", "S7", "S3"]})
    assert three == [("legality.setup-invalid", 2, "error")]


def test_nine_trump_actions_exist_only_with_the_extra_frame() -> None:
    plain = BlackPokerRules("9.0", "master")
    framed = BlackPokerRules("9.0", "master", "extra")
    assert not plain.trumps_in_play and plain.trump_data == {}
    assert framed.trumps_in_play and framed.trump_data["S2"]["name"] == "スラッシュ"
    trump_ops = {"quick_open", "main_open", "close", "trump_destroy"}
    assert trump_ops <= set(framed.actions) and not trump_ops & set(plain.actions)
    # Each judged frame action is a trump operation, granted by a trump, or started by a
    # trump character (its key unit's actions, the requests it triggers).
    data = load_edition("9.0")
    granted = {a for t in data["trumps"].values() for a in t.get("grants", ())}
    for kind in {t["character"] for t in data["trumps"].values() if "character" in t}:
        spec = data["characters"][kind]
        granted |= {g["action"] for g in spec.get("grants", ())}
        granted |= {t["action"] for t in spec.get("triggers", ())}
    # The pack and rare actions exist in the extra frame too (FR16), and only in frames.
    pack = {"pack_open", "rare_draw", "rare_summon", "trap_counter"}
    assert pack <= set(framed.actions) and not pack & set(plain.actions)
    frame_actions = {a for a, d in framed.actions.items() if "frames" in d.data}
    assert frame_actions - trump_ops - pack == granted
    # Nothing of the frame is left unjudged (the schema refuses an id both listed and
    # judged: test_a_frame_may_not_list_a_judged_action_as_not_judged_yet).
    assert framed.not_judged_yet == {}


def test_a_nine_trump_whose_ability_is_not_judged_yet_warns_when_opened(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A trump the frame lists as not judged yet turning face up is one warning (X12):
    shown on the edition data with ♢5 listed (no shipped trump is, today: XT1-XT9)."""
    from coreflow_judge.adjudicator.games.blackpoker import rules as rules_module

    shipped = rules_module.load_edition

    def loss_not_judged(edition: str) -> dict[str, Any]:
        data = copy.deepcopy(shipped(edition))
        data["frames"]["extra"]["not_judged_yet"]["D5"] = "patched for the test"
        return data

    monkeypatch.setattr(rules_module, "load_edition", loss_not_judged)
    opened = _nine_extra("extra", {"alice": ["D5"]}, [
        {"type": "request", "request": "a1", "player": "alice", "action": "quick_open",
         "key_cards": [], "costs": [{"kind": "D", "ref": "alice:C2"},
                                    {"kind": "D", "ref": "alice:D6"}], "targets": []},
        {"type": "resolve", "request": "a1", "result": "resolved",
         "choices": {"trump": "alice:D5"}}])
    assert opened == [("log.not-judged-yet", 4, "warning")]


def test_a_frame_may_not_list_a_judged_action_as_not_judged_yet() -> None:
    from coreflow_judge.adjudicator.games.blackpoker import schema
    from coreflow_judge.adjudicator.games.blackpoker.rules import STEPS
    from coreflow_judge.adjudicator.games.common import EditionDataError

    data = copy.deepcopy(load_edition("9.0"))  # the loaded data is shared: never mutate it
    data["frames"]["extra"]["not_judged_yet"] = {"close": "a contradiction"}
    with pytest.raises(EditionDataError, match="not_judged_yet.close"):
        schema.check(data, STEPS)


def test_a_nine_trump_action_needs_its_trump_face_up() -> None:
    """クイック兵士召喚♠ is granted by スラッシュ (♠2): with ♠2 face down it is
    legality.ability-not-in-force, as a 6.1 trump action is (E3)."""
    summon = {"type": "request", "request": "a1", "player": "alice",
              "action": "quick_soldier_summon_spade", "key_cards": ["alice:S9"],
              "costs": [{"kind": "D", "ref": "alice:C2"}], "targets": []}
    assert _nine_extra("extra", {"alice": ["S2"]}, [summon])[0] == (
        "legality.ability-not-in-force", 3, "error")


def test_after_an_action_not_judged_yet_nothing_is_ruled(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame action the judge does not judge yet: one warning at its line, and no finding
    after it, even for a line that would break a rule (its truth would depend on what the
    judge cannot follow). Shown on edition data patched to take パック開封 out of what is
    judged (every shipped extra action may be judged)."""
    from coreflow_judge.adjudicator.games.blackpoker import rules as rules_module

    shipped = rules_module.load_edition

    def pack_open_not_judged(edition: str) -> dict[str, Any]:
        data = copy.deepcopy(shipped(edition))  # the loaded data is shared: never mutate it
        if edition == "9.0":
            del data["actions"]["pack_open"]
            data["frames"]["extra"]["not_judged_yet"] = {"pack_open": "a test"}
        return data

    monkeypatch.setattr(rules_module, "load_edition", pack_open_not_judged)
    log = (Path(__file__).parent.parent
           / "fixtures/rulings/frames/pack-open-without-a-pack-9.0.jsonl")
    lines = [line for _no, line in read_log(log) if not isinstance(line, LineError)]
    wrong = LINE_ADAPTER.validate_python(
        {"seq": len(lines) + 1, "type": "request", "request": "b1", "player": "bob",
         "action": "end", "key_cards": [], "costs": [], "targets": []})
    report = judge_lines(enumerate([*lines, wrong], start=1))
    assert [(f.seq, f.code) for f in report.findings] == [(3, "log.not-judged-yet")]
    assert "rules on nothing from this line on" in report.findings[0].message
    # Without the action the judge cannot follow, the same line is an error.
    without = [ln for ln in lines if getattr(ln, "request", None) != "a1"]
    without = [ln.model_copy(update={"seq": i}) for i, ln in enumerate([*without, wrong], 1)]
    assert judge_lines(enumerate(without, start=1)).errors >= 1


def test_simulated_games_of_the_9_0_extra_frame_are_clean() -> None:
    """The simulator plays the 9.0 extra frame (trumps set aside, opened, closed and
    used), never a trump or action the judge does not judge yet; the judge finds no error
    and never stops early."""
    used: set[str] = set()
    for seed in range(6):
        log = simulate_game("9.0", seed, "master", frame="extra")
        assert getattr(log[0], "frame", None) == "extra" and getattr(log[1], "trumps", None)
        report = judge_lines(enumerate(log, start=1))
        assert report.errors == 0, [(f.seq, f.code, f.message) for f in report.findings]
        assert "log.not-judged-yet" not in {f.code for f in report.findings}
        used |= {ln.action for ln in log if isinstance(ln, Request)}
    assert {"quick_open", "main_open", "trump_destroy"} <= used
