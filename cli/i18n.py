"""The languages coreflow's texts are written in: English (the default) and Japanese.

Where each kind of text lives (docs/decisions.md, "Languages"):

- the fixed words of the text report, the board and ``play`` (headings, labels, answers):
  :data:`TEXTS` here, each key with its English and its Japanese;
- a finding code's one-line meaning: beside its English, in
  :data:`adjudicator.findings.CODES_JA` (the core's) and each game's
  :attr:`GamePlugin.codes_ja <adjudicator.plugins.GamePlugin.codes_ja>`;
- a rule reference's statement: beside its English, in
  :data:`cli.rule_text.RULE_STATEMENTS_JA` and each game's
  :attr:`GamePlugin.rule_statements_ja <adjudicator.plugins.GamePlugin.rule_statements_ja>`;
- the names of a game's actions, characters, zones and board words: in the game's edition
  data (``name_ja`` of an action or character, the ``labels_ja`` section), with the source
  of the Japanese noted there; :func:`japanese_labels` reads them for a board, the
  viewer or ``play``.

The judge's finding sentences (``message``) are written in English by the rules modules;
in Japanese the report shows the code's meaning and the rule's statement in Japanese first
and keeps the English sentence after them. JSON output is the same in every language.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

LANGUAGES = ("en", "ja")
LANG_ENV_VAR = "COREFLOW_LANG"
"""The environment variable that gives the language when ``--lang`` does not."""
DEFAULT_LANGUAGE = "en"


class UnknownLanguage(ValueError):
    """A language coreflow does not write (exit 2, one line)."""


def language(option: str | None) -> str:
    """The language of a command: ``--lang``, else ``$COREFLOW_LANG``, else English.

    An empty ``COREFLOW_LANG`` counts as unset; anything else that is not ``en`` or ``ja``
    (``ja_JP.UTF-8`` included: the variable names coreflow's language, not a locale) is
    :class:`UnknownLanguage` naming where it came from."""
    if option is not None:
        where, value = "--lang", option
    else:
        where, value = LANG_ENV_VAR, os.environ.get(LANG_ENV_VAR, "")
        if not value:
            return DEFAULT_LANGUAGE
    if value not in LANGUAGES:
        raise UnknownLanguage(f"{where} {value!r}: not a language coreflow writes "
                              f"(one of: {', '.join(LANGUAGES)})")
    return value


# ------------------------------------------------------------------ the fixed words

TEXTS: Mapping[str, tuple[str, str]] = MappingProxyType({
    # The text report (coreflow judge).
    "report.header": ("match {match}  ({rules}, {lines} lines)  {source}",
                      "対戦 {match}  ({rules}, {lines}行)  {source}"),
    "report.view": ("  view: {view}", "  視点: {view}"),
    "report.note": ("  note: {note}", "  注記: {note}"),
    "report.meaning": ("  meaning   {text}", "  意味      {text}"),
    "report.rule": ("  rule      {rule}: {text}", "  規則      {rule}: {text}"),
    "report.finding": ("  finding   {text}", "  指摘      {text}"),
    "report.finding_en": ("  finding   {text}", "  指摘(英)  {text}"),
    "report.expected": ("  expected  {text}", "  期待値    {text}"),
    "report.recorded": ("  recorded  {text}", "  記録値    {text}"),
    "report.clean": ("no findings: the log follows the rules",
                     "指摘なし：ログはルールどおり"),
    "report.result": ("result: {text}", "結果: {text}"),
    "report.count": ("{errors} error{es}, {warnings} warning{ws}",
                     "エラー {errors}件、警告 {warnings}件"),
    "report.count_more": ("{errors} error{es} (and {more} that follow{s} from {them}), "
                          "{warnings} warning{ws}",
                          "エラー {errors}件（ほかにそれに起因するもの {more}件）、"
                          "警告 {warnings}件"),
    "report.follows": ("  follows   from seq {seq} ({code}): without that line, this one "
                       "keeps the rules",
                       "  起因      seq {seq}（{code}）：その行がなければ、この行はルールどおり"),
    # What the rules wanted next, after a finding's expected and recorded.
    "report.next": ("  Under the rules, next: {text}", "  ルール上、次は: {text}"),
    "next.over": ("the game was over: {result}; nothing more could be played, only its end "
                  "recorded.",
                  "ゲームはすでに終わっていた：{result}。終了を記録するほかは何もできなかった。"),
    "next.over_recorded": ("the game was over and its end recorded: {result}; nothing more "
                           "could be played.",
                           "ゲームはすでに終わり、終了も記録されていた：{result}。これ以上は"
                           "何もできなかった。"),
    "next.start": ("the game had not started: {players} had to start it.",
                   "ゲームはまだ始まっていなかった：{players}が先攻としてゲームを始める必要が"
                   "あった。"),
    "next.buffer_one": ("the triggered request {request} waited in the buffer: it had to be "
                        "{handled}.",
                        "誘発したリクエスト {request}がバッファで待っていた：それを{handled}"
                        "必要があった。"),
    "next.buffer": ("the triggered requests {requests} waited in the buffer: {first} had to "
                    "be {handled} first.",
                    "誘発したリクエスト {requests} がバッファで待っていた：先に {first} を"
                    "{handled}必要があった。"),
    "next.handled_normal": ("staged or discarded", "ステージに置くか破棄する"),
    "next.handled_instant": ("resolved", "解決する"),
    "next.handled_mixed": ("staged or resolved", "ステージに置くか解決する"),
    "next.instant": ("the instant request {request} awaited its resolution: it had to "
                     "resolve.",
                     "即時のリクエスト {request}が解決を待っていた：それを解決する必要が"
                     "あった。"),
    "next.resolve": ("every player had passed: {request}, on top of the stage, had to "
                     "resolve.",
                     "全プレイヤーがパスしていた：ステージの一番上の {request}を解決する"
                     "必要があった。"),
    "next.none": ("nobody held the chance and nothing waited to be staged or resolved.",
                  "誰もチャンスを持っておらず、ステージに置くものも解決を待つものもなかった。"),
    "next.chance": ("{holder} held the chance{passed}{top}: {options}.",
                    "{holder} がチャンスを持っていた{passed}{top}：{options}。"),
    "next.not_weighed": (" The requests are offered by their timing and what the table "
                         "shows alone, not by the key cards, costs, targets or choices a "
                         "request names: what this finding ({code}) rests on is not weighed.",
                         "示したリクエストはタイミングと卓上の状態だけによるもので、リクエストが"
                         "示すキーカード・コスト・対象・選択は見ていない。この指摘（{code}）の"
                         "根拠は考慮していない。"),
    "next.passed": (" ({players} had passed)", "（パス済み: {players}）"),
    "next.top": (", with {request} on top of the stage", "、ステージの一番上は {request}"),
    "next.holder": ("{player} could pass", "{player} はパスできた"),
    "next.holder_requests": ("{player} could pass, or request {actions}",
                             "{player} はパスするか、{actions}をリクエストできた"),
    "next.other_requests": ("; {player} could request {actions}",
                            "。{player} は {actions}をリクエストできた"),
    "next.request": ("{request} ({action} of {controller})",
                     "{request}（{controller} の {action}）"),
    "next.more": ("{count} more", "ほか {count} 件"),
    "next.comma": (", ", "、"),
    "next.or": ("{items} or {last}", "{items}、{last}のいずれか"),
    "next.and": ("{items} and {last}", "{items} と {last}"),
    "severity.error": ("error", "エラー"),
    "severity.warning": ("warning", "警告"),
    "severity.info": ("info", "情報"),
    # Results and values said in words.
    "result.undecided_long": ("undecided (the log ends before the rules decide the game)",
                              "未決着（ルールが勝敗を決める前にログが終わっている）"),
    "result.undecided": ("undecided", "未決着"),
    "result.win": ("{winner} wins ({reason})", "{winner} の勝ち（{reason}）"),
    "result.draw": ("draw ({reason})", "引き分け（{reason}）"),
    "value.yes": ("yes", "はい"),
    "value.no": ("no", "いいえ"),
    "value.none": ("none", "なし"),
    # The board (coreflow board, play's board).
    "board.header": ("match {match}  ({rules})  board after seq {seq}",
                     "対戦 {match}  ({rules})  seq {seq} の後の盤面"),
    "board.not_started": ("the game has not started", "ゲームはまだ始まっていない"),
    "board.turn": ("turn {turn} · turn player {player} · chance {chance} · passed: {passed}",
                   "ターン {turn} · ターンプレイヤー {player} · チャンス {chance} · "
                   "パス済み: {passed}"),
    "board.seen_by": ("seen by {view}: hidden cards show as ? or face down",
                      "{view} から見た盤面：見えないカードは ? または裏向きで表示"),
    "board.stage": ("stage (bottom to top):", "ステージ（下から上へ）:"),
    "board.buffer": ("buffer:", "バッファ:"),
    "board.empty": (" empty", " 空"),
    "board.waiting": ("waiting to resolve: {request} (instant)",
                      "解決待ち: {request}（即時）"),
    "board.once_used": ("once per turn, used: ", "1ターンに1回、使用済み: "),
    "board.request": ("{request} {action} ({controller}, {speed} {timing})",
                      "{request} {action} ({controller}, {speed} {timing})"),
    "board.triggered_by": ("triggered by {source}", "{source} による誘発"),
    "board.key": ("key {cards}", "キーカード {cards}"),
    "board.targets": ("targets {cards}", "対象 {cards}"),
    "board.cards": ("{count} card{s}", "{count}枚"),
    "board.unknown": ("unknown", "不明"),
    "board.known": (" (known: {cards})", "（判明: {cards}）"),
    "board.face_down": ("face down", "裏向き"),
    "board.yes": ("yes", "はい"),
    "board.no": ("no", "いいえ"),
    "board.entered": ("entered turn {turn}", "ターン{turn}に登場"),
    "board.findings": ("findings so far: {count} ({errors} error{es})",
                       "ここまでの指摘: {count}件（エラー {errors}件）"),
    "speed.instant": ("instant", "即時"),
    "speed.normal": ("normal", "通常"),
    "timing.main": ("main", "メイン"),
    "timing.quick": ("quick", "クイック"),
    "timing.free": ("free", "任意"),
    # coreflow play.
    "play.started": ("ok 1: match {match} started ({rules}, {format}, {players})",
                     "ok 1: 対戦 {match} を開始（{rules}, {format}, {players}）"),
    "play.resumed": ("resumed {match} at seq {seq}", "{match} を seq {seq} から再開"),
    "play.no_match": ("no match yet: paste a match_started JSON line, or start again with "
                      "--match-id, --rules and --player",
                      "対戦がまだない：match_started の JSON 行を貼り付けるか、--match-id・"
                      "--rules・--player を付けて起動し直す"),
    "play.hint": ("type 'help' for the notation, 'legal' for what may be done now",
                  "'help' で記法、'legal' で今できることを表示"),
    "play.refused": ("{reasons}; nothing was recorded{now}",
                     "{reasons}。何も記録していない{now}"),
    "play.and": ("; ", "。"),
    "play.now": (". Now: {entries}", "。今できること: {entries}"),
    "play.now_more": (" · ... ('legal' lists every entry)", " · …（全部は 'legal'）"),
    "play.then": ("then, filled in (no decision): {lines}", "続けて自動記入（判断不要）: {lines}"),
    "play.restated": ("ok {seq}: {line} (already recorded: nothing stored)",
                      "ok {seq}: {line}（記録済み：何も保存していない）"),
    "play.unrecorded": ("; its {what} are not added (the line was stored without them when "
                        "the last sitting ended)",
                        "。{what} は追加しない（前回の終了時にそれなしで保存済み）"),
    "play.over_ahead": ("the game is over once they are stored: {who} ({reason})",
                        "これらが保存されるとゲーム終了: {who}（{reason}）"),
    # Why a line was refused, in the table's words ({code} closes each reason).
    "refusal.no_chance": ("{player} does not hold the chance: {holder} does ({code})",
                          "{player} はチャンスを持っていない。持っているのは {holder}（{code}）"),
    "refusal.no_chance_system": ("{player} does not hold the chance: every player passed, "
                                 "and {top} resolves now ({code})",
                                 "{player} はチャンスを持っていない。全員がパスしたので今 {top} "
                                 "を解決する（{code}）"),
    "refusal.no_chance_nobody": ("{player} does not hold the chance: nobody holds it "
                                 "before the game starts ({code})",
                                 "{player} はチャンスを持っていない。ゲーム開始前は誰も持たない"
                                 "（{code}）"),
    "refusal.main_not_turn_player": ("{action} has main timing: only {turn_player}, whose "
                                     "turn it is, may request it ({code})",
                                     "{action} はメインタイミング：リクエストできるのはターン"
                                     "プレイヤーの {turn_player} だけ（{code}）"),
    "refusal.main_stage_not_empty": ("{action} has main timing: the stage must be empty, "
                                     "and {ids} is on it ({code})",
                                     "{action} はメインタイミング：ステージが空でなければならない"
                                     "が {ids} が載っている（{code}）"),
    "refusal.once_per_turn": ("{player} already requested {action} this turn: once per turn "
                              "({code})",
                              "{player} はこのターンすでに {action} をリクエストした：1ターンに"
                              "1回（{code}）"),
    "refusal.never_resolved": ("{ids} is still on the stage: every player passes and it "
                               "resolves before anything with main timing ({code})",
                               "{ids} がまだステージにある：全員がパスして解決してから、メイン"
                               "タイミングのものへ（{code}）"),
    "refusal.not_all_passed": ("{request} resolves once every player has passed in a row; "
                               "{waiting} has not ({code})",
                               "{request} は全員が続けてパスしてから解決する。{waiting} がまだ"
                               "パスしていない（{code}）"),
    "refusal.waits": ("{what} waits: it is handled first ({code})",
                      "{what} が待っている：先に処理する（{code}）"),
    "refusal.not_top": ("{top} is on top of the stage: it resolves first ({code})",
                        "ステージの一番上は {top}：先に解決する（{code}）"),
    "refusal.other": ("{message} ({code})", "{message}（{code}）"),
    "play.unread": ("{error}; nothing was recorded", "{error}（何も記録していない）"),
    "play.with": ("with {lines}", "あわせて {lines}"),
    "play.over": ("the game is over: {who} ({reason})", "ゲーム終了: {who}（{reason}）"),
    "play.wins": ("{winner} wins", "{winner} の勝ち"),
    "play.a_draw": ("a draw", "引き分け"),
    "play.second_match": ("a match is already being played: one match per table (start "
                          "another coreflow play for the next)",
                          "対戦はすでに進行中：1卓に1対戦（次の対戦は別の coreflow play で"
                          "始める）"),
    "play.conflict": ("another writer appended to this match first; your line was not "
                      "recorded: the table now reads as stored (type 'board', then enter "
                      "the line again if it still stands)",
                      "別の書き手がこの対戦に先に追記した。この行は記録していない。卓は記録"
                      "どおりに読み直した（'board' で確認し、まだ有効ならもう一度入力する）"),
    "play.undo_conflict": ("another writer appended to this match first; nothing was taken "
                           "back", "別の書き手がこの対戦に先に追記した。何も取り消していない"),
    "play.undo_too_many": ("fewer than {count} entries are left to take back",
                           "取り消せる入力が {count}件 より少ない"),
    "play.undo_zero": ("undo N takes back the last N entries: N is 1 or more (undo 0 "
                       "takes back nothing; nothing was recorded)",
                       "undo N は最後の N件 を取り消す。N は 1 以上（undo 0 は何も取り消さ"
                       "ない。何も記録していない）"),
    "play.undone": ("ok {seq}: {line} (the table goes on from before them)",
                    "ok {seq}: {line}（卓はそれより前から続く）"),
    "play.nothing_to_do": ("nothing to do", "今できることはない"),
    "play.action_row": ("{id}  {name_ja}  ({name}; {speed}, {timing}{rules_only})",
                        "{id}  {name_ja}  （{name}; {speed}, {timing}{rules_only}）"),
    "play.rules_only": (", started by the rules", "、ルールだけが起こす"),
    "play.prompt": ("[turn {turn} {player} · chance {chance} · stage {stage}] > ",
                    "[ターン {turn} {player} · チャンス {chance} · ステージ {stage}] > "),
    "status.refused": ("refused", "拒否"),
    "status.unread": ("unread", "読み取れず"),
    "status.conflict": ("conflict", "競合"),
    # One stored line in a few words (play's answers).
    "line.request": ("{player} requests {action} as {request}",
                     "{player} が {action} を {request} としてリクエスト"),
    "line.pass": ("{player} passes", "{player} パス"),
    "line.chance": ("chance → {to}", "チャンス → {to}"),
    "line.turn": ("turn {turn}: {player}", "ターン {turn}: {player}"),
    "line.stage": ("stage {request}", "ステージへ {request}"),
    "line.discard": ("discard {request}", "破棄 {request}"),
    "line.trigger": ("trigger {request} ({action} of {controller})",
                     "誘発 {request}（{controller} の {action}）"),
    "line.resolved": ("{request} resolved", "{request} 解決"),
    "line.fizzled": ("{request} fizzled", "{request} 不発"),
    "line.ended": ("game ended: {who}", "ゲーム終了: {who}"),
    "line.reason": (" ({reason})", "（{reason}）"),
    "line.taken_back": ("taken back: {count} line{s}", "取り消し: {count}行"),
    "line.game_started": ("the game starts, {player} first", "ゲーム開始、先攻 {player}"),
    "line.roll": ("{player} rolls {result} on d{sides}",
                  "{player} のダイス d{sides} の目 {result}"),
    # The answers of coreflow serve's table page (the rest are play's).
    "serve.empty": ("nothing was entered", "何も入力されていない"),
    "serve.too_long": ("the entry is too long for one line; nothing was recorded",
                       "1行として長すぎる（何も記録していない）"),
    "serve.unprintable": ("the entry holds characters that cannot be shown (a control "
                          "character); nothing was recorded",
                          "表示できない文字（制御文字）が含まれている（何も記録していない）"),
    "serve.undo_button": ("to take back an entry use the Undo button and give the reason",
                          "取り消しは「取り消す」ボタンで理由を添えて行う"),
    "serve.moved": ("the table has moved on since this page was drawn (another device of "
                    "the table entered a line): look at the board again; nothing was "
                    "recorded",
                    "この画面を表示した後に卓の記録が進んだ（同じ卓の別の端末が入力した）。"
                    "盤面を確認して入力し直す（何も記録していない）"),
})
"""key -> (English, Japanese): every fixed word of the report, the board and ``play``,
as ``str.format`` templates (both take the same fields)."""


def text(lang: str, key: str, **fields: object) -> str:
    """The text ``key`` in ``lang``, its fields filled in."""
    en, ja = TEXTS[key]
    return (ja if lang == "ja" else en).format(**fields)


def severity_word(lang: str, severity: str) -> str:
    key = f"severity.{severity}"
    return text(lang, key) if key in TEXTS else severity


def speed_word(lang: str, word: str) -> str:
    """A speed or timing (``normal``, ``main``) in ``lang``."""
    for kind in ("speed", "timing"):
        if f"{kind}.{word}" in TEXTS:
            return text(lang, f"{kind}.{word}")
    return word


HELP_JA = """\
記法（各ゲームの例は docs/play.md）:
  PLAYER pass [CALL]                 パス（省略の宣言を注記として：スルー）
  PLAYER ACTION [CARD...] [KIND[:CARD]...] [>TARGET...] [#ID] [name=value...]
                                     リクエスト：キーカード、コスト（B L D S C）、対象、選択
                                     （ACTION はアクションの id か日本語名）
  resolve ID [name=value...] [effects=[...]]     fizzle ID（不発）     stage ID     discard ID
  start PLAYER                       ゲーム開始、PLAYER が先攻
  PLAYER roll dSIDES RESULT          ダイスの目
  {"type": ...}                      JSON で書いたログの任意の行
コマンド:
  legal      今できること                 actions    フォーマットの全アクション
  board      今の盤面                     undo [N] [WHY]  直前 N 件の入力を取り消す
  help       この説明                     quit       以降を記録して終了"""
"""``play``'s ``help`` in Japanese (the English is cli.session.HELP)."""


# ------------------------------------------------------------------ a game's own names


@dataclass(frozen=True, slots=True)
class Labels:
    """The Japanese names of one edition of a game, from its edition data."""

    actions: Mapping[str, str] = field(default_factory=dict)
    """action id -> its ``name_ja`` (防壁設置)."""
    characters: Mapping[str, str] = field(default_factory=dict)
    """character id -> its ``name_ja`` (一般兵, 防壁)."""
    words: Mapping[str, str] = field(default_factory=dict)
    """A board key or value (``graveyard``, ``drive``, ``mana_tapped``) -> its Japanese:
    the edition data's ``labels_ja``."""

    def word(self, key: str) -> str | None:
        """The Japanese of a board key or value (its own, else a character's)."""
        return self.words.get(key) or self.characters.get(key)


NO_LABELS = Labels()


def japanese_labels(rules: str) -> Labels:
    """The Japanese names of the actions, characters, zones and board words of
    ``rules`` (``blackpoker/9.0``), read from the game's edition data; no names for a
    game that is not installed or gives none. For the board, ``play`` and the viewer."""
    game, _sep, edition = rules.partition("/")
    return _labels(game, edition)


@lru_cache(maxsize=16)
def _labels(game: str, edition: str) -> Labels:
    from coreflow_judge.adjudicator.games.common import load_edition_data
    from coreflow_judge.adjudicator.plugins import game_plugin, is_registered

    if not is_registered(game):
        return NO_LABELS
    try:
        package = game_plugin(game).rules.__module__.rpartition(".")[0]
        data = load_edition_data(package, edition)
    except Exception:  # noqa: BLE001 - no data for this edition: the English names stay
        return NO_LABELS

    def names(section: str) -> dict[str, str]:
        entries = data.get(section) or {}
        return {k: str(v["name_ja"]) for k, v in entries.items()
                if isinstance(v, dict) and v.get("name_ja")}

    words = {str(k): str(v) for k, v in (data.get("labels_ja") or {}).items()
             if k != "source"}
    return Labels(names("actions"), names("characters"), words)


# ------------------------------------------------------------------ columns


def width(s: str) -> int:
    """How many columns ``s`` takes on a terminal (a wide character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def pad(s: str, columns: int) -> str:
    """``s`` padded with spaces to ``columns`` terminal columns."""
    return s + " " * max(0, columns - width(s))
