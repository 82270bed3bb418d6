"""Ruling fixtures: every ``fixtures/**/NAME.jsonl`` beside a ``NAME.expected.json``.

The rulings themselves are judged by the pytest plugin (adjudicator/pytest_plugin.py),
one test item per fixture (each log judged once a run); this file checks the
collection as a whole.

Each fixture is a hand-written match log and the findings a judge must give on it, written
from the rules (docs/findings.md says which fixture shows which code). The test judges the
log and asserts exactly the expected ``(code, seq, severity)`` list and the game result.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.findings import catalogue
from coreflow_judge.adjudicator.judge import normalize_lines
from coreflow_judge.events.models import CORE_LINES
from coreflow_judge.events.reader import lines_of_data, read_log

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
EXPECTED = sorted(FIXTURES.glob("**/*.expected.json"))

#: Logs written with every derived line: normalizing them must give them back unchanged.
#: The ruling plugin's module, as the project's pytest settings name it after ``-p``.
PLUGIN = "coreflow_judge.adjudicator.pytest_plugin"

COMPLETE_LOGS = ("rulings/lite/attack-block-damage-9.0", "rulings/lite/end-charge-draw-6.1")

#: Codes no BlackPoker lite log can raise (docs/findings.md says why for each).
NOT_IN_LITE = {
    "order.pending-effect-order",  # Duel Masters
    "precedence.prohibition-over-permission",  # Duel Masters
    "precedence.scope-order",  # lite has only this-scope, additive size changes
    "precedence.timestamp-order",  # idem
    "order.instant-before-own-trigger",  # no lite instant has a cost that can trigger
    "order.trigger-instant-before-normal",  # lite never triggers both speeds at once
    "order.trigger-main-before-quick",  # lite never triggers both timings for one player
    # Shown on edition data patched to list an action as not judged yet
    # (test_blackpoker_extra.py): a fixture would break as soon as that action is judged.
    "log.not-judged-yet",
}

def _log_of(expected: Path) -> Path:
    return expected.with_name(expected.name.removesuffix(".expected.json") + ".jsonl")


def _fixture_id(expected: Path) -> str:
    return str(_log_of(expected).relative_to(FIXTURES).with_suffix(""))


def _load(expected: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(expected.read_text(encoding="utf-8"))
    return data


def test_the_rulings_plugin_is_active(request: pytest.FixtureRequest) -> None:
    """Plain ``pytest`` of this project judges every fixture: the project's pytest
    settings load the plugin with ``-p`` (there is no pytest11 entry point)."""
    assert request.config.pluginmanager.has_plugin(PLUGIN)


@pytest.mark.parametrize("expected", EXPECTED, ids=_fixture_id)
def test_fixture_is_complete(expected: Path) -> None:
    """Each ruling names its log, says what it rules on and which edition (that the judge
    reads that edition from the log is checked with the ruling, by the fixture's plugin
    item: each fixture is judged once a run)."""
    spec = _load(expected)
    assert _log_of(expected).exists(), f"{expected.name} has no log beside it"
    assert spec["description"].strip(), "a fixture says what it rules on"
    assert isinstance(spec.get("rules"), str) and "/" in spec["rules"], "game/edition"


def test_there_are_fixtures_for_both_editions() -> None:
    editions = [_load(p)["rules"] for p in EXPECTED]
    assert editions.count("blackpoker/6.1") >= 8
    assert editions.count("blackpoker/9.0") >= 8


def test_every_lite_code_has_a_fixture() -> None:
    shown = {f["code"] for p in EXPECTED for f in _load(p)["findings"]}
    CODES = catalogue()
    assert shown <= set(CODES), f"unknown codes in fixtures: {sorted(shown - set(CODES))}"
    missing = set(CODES) - NOT_IN_LITE - shown
    assert not missing, f"no fixture shows {sorted(missing)}"


@pytest.mark.parametrize("name", COMPLETE_LOGS)
def test_complete_log_normalizes_to_itself(name: str) -> None:
    path = FIXTURES / f"{name}.jsonl"
    text = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    game = lines_of_data(json.loads(text[0])) or CORE_LINES  # its header names its game
    written = [game.validate_json(line).model_dump() for line in text]
    normalized = [line.model_dump() for line in normalize_lines(read_log(path))]
    assert normalized == written


def test_the_catalogue_documents_every_code_and_names_real_fixtures() -> None:
    documented = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert [c for c in catalogue() if f"`{c}`" not in documented] == []
    names = {_fixture_id(p).rsplit("/", 1)[1] for p in EXPECTED}
    for doc in ("findings.md", "decisions.md", "rulings.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        named = set(re.findall(r"`([a-z0-9-]+-(?:6\.1|9\.0))`", text))
        assert named <= names, f"docs/{doc} names missing fixtures {sorted(named - names)}"


@pytest.mark.parametrize("name", ["rulings/lite/g3-attack-through-6.1",
                                  "rulings/lite/g3-attack-through-9.0",
                                  "rulings/lite/g4-block-with-6.1"])
def test_a_game_played_with_shortcut_calls_normalizes_to_explicit_passes(name: str) -> None:
    """The calls of the shortcut guideline are read by normalize as by the judge: the
    normalized log writes every implied pass, and judged again it is still clean."""
    from coreflow_judge.adjudicator.judge import judge_lines
    from coreflow_judge.events.models import Pass

    normalized = list(normalize_lines(read_log(FIXTURES / f"{name}.jsonl")))
    implied = [line for line in normalized
               if isinstance(line, Pass) and (line.note or "").startswith("implied by the call")]
    assert len(implied) >= 4
    report = judge_lines(enumerate(normalized, 1))
    assert [f.code for f in report.findings if f.severity == "error"] == []
