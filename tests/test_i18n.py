"""Two languages (issue 11, item 4): every finding code and every rule statement has its
Japanese, the edition data carries the Japanese names, and ``--lang ja`` /
``COREFLOW_LANG`` change the text report, the board and ``play`` (through the real
command); JSON stays the same in every language."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.findings import CODES, CODES_JA, catalogue, meaning
from coreflow_judge.adjudicator.plugins import games
from coreflow_judge.cli.i18n import (
    LANG_ENV_VAR,
    TEXTS,
    UnknownLanguage,
    japanese_labels,
    language,
    width,
)
from coreflow_judge.cli.rule_text import RULE_STATEMENTS, RULE_STATEMENTS_JA, rule_statement

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def coreflow(*args: str | Path, stdin: str | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "coreflow"
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from coreflow_judge.cli.main import app; app()"]
    base = {k: v for k, v in os.environ.items() if k != LANG_ENV_VAR}
    done = subprocess.run([*command, *map(str, args)], input=stdin, text=True,
                          capture_output=True, timeout=300, env={**base, **(env or {})},
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    assert "Traceback" not in done.stderr
    return done


# ------------------------------------------------------------------ the catalogues


def test_every_finding_code_of_every_game_has_both_languages() -> None:
    codes = catalogue()
    assert set(CODES) < set(codes)  # the games add their own
    for code, (_severity, english) in codes.items():
        assert english and meaning(code, "en") == english, code
        japanese = meaning(code, "ja")
        assert japanese is not None and JAPANESE.search(japanese), code
    assert set(CODES_JA) == set(CODES)
    for game in games():
        assert set(game.codes_ja) == set(game.codes), game.id


def test_every_rule_statement_has_a_japanese_statement() -> None:
    assert set(RULE_STATEMENTS_JA) == set(RULE_STATEMENTS)
    for game in games():
        assert set(game.rule_statements_ja) == set(game.rule_statements), game.id
        for rule in game.rule_statements:
            assert JAPANESE.search(rule_statement(rule, game.id, "ja")), rule
    for rule in RULE_STATEMENTS:
        assert JAPANESE.search(rule_statement(rule, None, "ja")), rule
    assert rule_statement("bp9.9.9", "blackpoker", "ja") == "bp9.9.9（この規則の要約は未登録）"


def test_every_rule_the_fixtures_cite_reads_in_japanese() -> None:
    cited = {f["rule"] for path in (ROOT / "fixtures").rglob("*.expected.json")
             for f in json.loads(path.read_text(encoding="utf-8")).get("findings", [])
             if "rule" in f}
    assert cited
    assert [r for r in sorted(cited) if "未登録" in rule_statement(r, None, "ja")] == []


def test_every_text_has_both_languages_with_the_same_fields() -> None:
    for key, (en, ja) in TEXTS.items():
        assert en and ja, key
        fields = re.compile(r"\{(\w+)\}")
        assert set(fields.findall(en)) >= set(fields.findall(ja)), key


def test_the_edition_data_names_actions_characters_and_zones_in_japanese() -> None:
    bp9 = japanese_labels("blackpoker/9.0")
    assert bp9.actions["summon_soldier"] == "兵士召喚"
    assert bp9.characters["bulwark"] == "防壁" and bp9.characters["magician"] == "魔術士"
    assert bp9.word("life") == "ライフ" and bp9.word("drive") == "ドライブ"
    assert japanese_labels("blackpoker/6.1").word("deck") == "デッキ"  # 第六版's pile
    assert japanese_labels("blackpoker/6.1").characters["chariot"] == "チャリオット"
    assert japanese_labels("duel_masters/1.47").word("shields") == "シールド"
    assert japanese_labels("i_language/1").word("durability") == "耐久力"
    assert japanese_labels("no_such_game/1").word("hand") is None


def test_the_language_comes_from_the_option_then_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LANG_ENV_VAR, raising=False)
    assert language(None) == "en"
    monkeypatch.setenv(LANG_ENV_VAR, "ja")
    assert language(None) == "ja"
    assert language("en") == "en"
    monkeypatch.setenv(LANG_ENV_VAR, "ja_JP.UTF-8")
    with pytest.raises(UnknownLanguage, match="COREFLOW_LANG 'ja_JP.UTF-8'"):
        language(None)
    assert width("場 a") == 4
