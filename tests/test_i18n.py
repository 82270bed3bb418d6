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


# ------------------------------------------------------------------ the real command


def test_judge_lang_ja_writes_the_report_in_japanese_and_keeps_the_english_finding() -> None:
    done = coreflow("judge", DISPUTED, "--lang", "ja")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("対戦 demo-1  (blackpoker/9.0, 12行)")
    block = lines[lines.index("seq 11  legality.effect-mismatch  [エラー]"):][:6]
    assert block[1] == "  意味      記録された結果がルールによる結果と異なる"
    assert block[2] == ("  規則      bp4.3.3: リクエストの解決では、効果に書かれたことを過不足なく"
                        "実行する。")
    assert block[3].startswith("  指摘(英)  The recorded effects of Counter differ")
    assert block[5] == "  記録値    negate r2"
    assert lines[-2:] == ["結果: 未決着（ルールが勝敗を決める前にログが終わっている）",
                          "エラー 1件、警告 1件"]
    # COREFLOW_LANG gives the same report; --lang overrides it.
    assert coreflow("judge", DISPUTED, env={LANG_ENV_VAR: "ja"}).stdout == done.stdout
    english = coreflow("judge", DISPUTED, "--lang", "en", env={LANG_ENV_VAR: "ja"})
    assert english.stdout == coreflow("judge", DISPUTED).stdout
    assert "finding   The recorded effects of Counter" in english.stdout
    assert not JAPANESE.search(english.stdout.replace("スルー", ""))


def test_board_lang_ja_names_actions_characters_and_zones_from_the_edition_data() -> None:
    done = coreflow("board", DISPUTED, "--at", "8", "--lang", "ja")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:7] == [
        "対戦 demo-1  (blackpoker/9.0)  seq 8 の後の盤面",
        "ターン 1 · ターンプレイヤー alice · チャンス bob · パス済み: -",
        "ステージ（下から上へ）:",
        "  1. r2 兵士召喚 (alice, 通常 メイン) · キーカード alice:♠9",
        "  2. r3 カウンター (bob, 通常 クイック) · キーカード bob:♣3 · 対象 r2",
        "バッファ: 空",
        "1ターンに1回、使用済み: alice: 防壁設置",
    ]
    assert "  ライフ    不明" in lines and "  手札      6枚" in lines
    assert "    alice:♥2: 防壁, ドライブ, 裏向き, ターン1に登場 [♥2]" in lines
    assert lines[-2:] == ["結果: 未決着", "ここまでの指摘: 1件（エラー 0件）"]


def test_the_boards_of_the_other_games_read_in_japanese() -> None:
    dm = coreflow("board", ROOT / "fixtures/rulings/duel_masters/cross-gear-stays-uncrossed.jsonl",
                  "--lang", "ja").stdout.splitlines()
    assert "ステップ メイン · マナチャージ済み 0" in dm
    assert any(line.startswith("  シールド") and line.endswith(" 5") for line in dm)
    assert ("    alice:imp#2: Ash Imp, アンタップ, パワー 3000, ターン7に登場 "
            "[imp#2 sunblade#1]") in dm
    il = coreflow("board", ROOT / "fixtures/rulings/i_language/ability-timing-not-main.jsonl",
                  "--lang", "ja").stdout.splitlines()
    assert "    bob:squire: コスト 120, 攻撃力 20, 耐久力 0, 破壊" in il


def test_json_is_the_same_in_every_language() -> None:
    for command in (("judge", DISPUTED), ("board", DISPUTED, "--at", "8")):
        plain = coreflow(*command, "--format", "json")
        assert coreflow(*command, "--format", "json", "--lang", "ja").stdout == plain.stdout
        assert coreflow(*command, "--format", "json", env={LANG_ENV_VAR: "ja"}).stdout \
            == plain.stdout


@pytest.mark.parametrize("how", ["option", "environment"])
def test_an_unknown_language_is_one_line_and_exit_2(how: str) -> None:
    if how == "option":
        done = coreflow("board", DISPUTED, "--lang", "fr")
        assert done.stderr == ("coreflow: --lang 'fr': not a language coreflow writes "
                               "(one of: en, ja)\n")
    else:
        done = coreflow("judge", DISPUTED, env={LANG_ENV_VAR: "ja_JP.UTF-8"})
        assert done.stderr == ("coreflow: COREFLOW_LANG 'ja_JP.UTF-8': not a language "
                               "coreflow writes (one of: en, ja)\n")
    assert done.returncode == 2 and done.stdout == ""


PLAY_SESSION = """\
start alice
alice 防壁設置 L card=alice:H2
resolve r1
alice summon_soldier S9 B:H2 L
bob pass
alice pass
bob pass
resolve r2
help
board
undo 間違い
"""


def test_play_lang_ja_answers_in_japanese(tmp_path: Path) -> None:
    store = tmp_path / "table.db"
    done = coreflow("play", "--store", store, "--match-id", "j1", "--rules", "9.0",
                    "--player", "alice", "--player", "bob", "--lang", "ja",
                    stdin=PLAY_SESSION)
    assert done.returncode == 1  # bob's pass without the chance is refused
    answers = done.stdout.splitlines()
    assert answers[0] == "ok 1: 対戦 j1 を開始（blackpoker/9.0, lite, alice v bob）"
    assert answers[1].startswith("ok 2: ゲーム開始、先攻 alice; 警告 log.choice-missing"
                                 "（ルールが求める選択が記録されていない）")
    assert "ok 5: alice が 防壁設置 を r1 としてリクエスト (L:alice:?)" in answers[2]
    assert "ok 7: alice が 兵士召喚 を r2 としてリクエスト (alice:S9 B:alice:H2 L:alice:?)" \
        in answers
    refused = [a for a in answers if a.startswith("拒否: ")]
    assert len(refused) == 1 and refused[0].startswith(
        "拒否: bob はチャンスを持っていない。持っているのは alice（timing.no-chance）。何も記録"
        "していない。今できること: alice pass")
    assert any(a.startswith("ok 13: r2 解決") for a in answers)
    assert "コマンド:" in answers and "ステージ（下から上へ）: 空" in answers
    assert "    alice:♠9: 一般兵, チャージ, サイズ 9, ターン1に登場 [♠9]" in answers
    assert answers[-1] == "ok 14: 取り消し: 1行（卓はそれより前から続く）"
    # The same session in English: the same lines recorded, the answers in English.
    english = coreflow("play", "--store", tmp_path / "en.db", "--match-id", "j1", "--rules",
                       "9.0", "--player", "alice", "--player", "bob", stdin=PLAY_SESSION)
    assert english.stdout.splitlines()[0] == "ok 1: match j1 started (blackpoker/9.0, lite, " \
        "alice v bob)"
    mine = json_lines(coreflow("log", "j1", "--store", store).stdout)
    theirs = json_lines(coreflow("log", "j1", "--store", tmp_path / "en.db").stdout)
    assert [(d["type"], d.get("action")) for d in mine] == \
        [(d["type"], d.get("action")) for d in theirs]


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_play_json_answers_are_the_same_in_every_language(tmp_path: Path) -> None:
    def answers(store: str, *extra: str) -> list[dict[str, object]]:
        done = coreflow("play", "--store", tmp_path / store, "--match-id", "j2", "--rules",
                        "9.0", "--player", "alice", "--player", "bob", "--format", "json",
                        *extra, stdin=PLAY_SESSION.replace("undo 間違い\n", ""))
        return [{k: v for k, v in a.items() if k != "stored"}
                for a in json_lines(done.stdout)]

    plain = answers("b.db")
    assert len(plain) == 11 and answers("a.db", "--lang", "ja") == plain


def test_play_refuses_an_unknown_language_before_it_opens_the_store(tmp_path: Path) -> None:
    done = coreflow("play", "--store", tmp_path / "never.db", "--lang", "xx", stdin="")
    assert done.returncode == 2
    assert done.stderr == "coreflow: --lang 'xx': not a language coreflow writes (one of: en, ja)\n"
    assert not (tmp_path / "never.db").exists()


def test_readme_japanese_example_is_what_the_cli_prints() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = "`coreflow judge\nfixtures/examples/disputed-counter.jsonl --lang ja` prints:"
    start = text.index("```text\n", text.index(marker)) + len("```text\n")
    shown = text[start:text.index("```", start)]
    done = subprocess.run(
        [sys.executable, "-c", "from coreflow_judge.cli.main import app; app()", "judge",
         "fixtures/examples/disputed-counter.jsonl", "--lang", "ja"],
        cwd=ROOT, text=True, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 1 and shown == done.stdout
