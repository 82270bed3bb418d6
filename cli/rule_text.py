"""One line per rule reference a finding can cite, in English and in Japanese.

A judge at the table reads the finding's ``rule`` and needs to know, without the rule
book, what that clause says. ``core[...]`` are the steps of the core flow (the core
rule, 8th edition) and ``log`` the match-log format itself: those are here. A game's own
references come with the game (:attr:`GamePlugin.rule_statements
<adjudicator.plugins.GamePlugin.rule_statements>`). The statements are summaries written
for this tool, not quotations.
"""

from __future__ import annotations

from collections.abc import Iterator

from coreflow_judge.adjudicator.plugins import GamePlugin, game_plugin, games, is_registered

RULE_STATEMENTS: dict[str, str] = {
    "log": "The match log must be well formed: valid lines, consecutive seq numbers, "
           "and references to players, cards and requests that exist.",
    "scope": "The judge rules on what its rules data encode; an action or ability of the "
             "regulation that it does not judge yet is reported where the log first uses "
             "it, and nothing after that line is ruled on.",
    "core[1]": "The game begins once the first player is decided and the set-up is done; "
               "nothing else happens before that.",
    "core[2]": "After a resolution, or when everyone passed on an empty stage, the chance "
               "returns to the turn player and the pass record starts afresh.",
    "core[3]": "Only the player holding the chance may make a request; a main-timing "
               "request also needs it to be that player's own turn and the stage to be empty.",
    "core[5]": "A request names its action; the action's definition fixes its speed "
    "(instant or normal) and its timing (main or quick), whatever the log calls it.",
    "core[6-1]": "When a trigger condition holds, the rules create a request for it; it "
                 "enters the buffer, controlled by the owner of what triggered it.",
    "core[6-3]": "The buffer is emptied instant requests first, then normal ones, each "
                 "group player by player starting from the turn player.",
    "core[6-5]": "Among one player's triggered requests of the same speed, the main-timing "
                 "ones are handled before the quick-timing ones.",
    "core[6-10]": "Triggered normal requests are placed one at a time, in the order their "
                  "controller chooses; that order must be recorded.",
    "core[6-10-5]": "A triggered main-timing normal request that meets an empty stage is "
                    "placed on it and must then be resolved like any staged request.",
    "core[6-10-6]": "A triggered main-timing normal request that meets a non-empty stage is "
                    "thrown away (discarded), never placed.",
    "core[7]": "An instant request is never placed on the stage: it resolves as soon as it "
               "is made, and the chance stays where it was.",
    "core[8]": "An instant request resolves immediately after it is made, before anything "
               "else happens.",
    "core[9]": "After every resolution the win/lose check is made; once the game is decided, "
               "nothing more may be played.",
    "core[10]": "A normal request goes on top of the stage, where the others may respond "
                "to it before it resolves.",
    "core[11]": "A pass is recorded only from the player holding the chance.",
    "core[12]": "A staged request resolves only after every player has passed since the "
                "last request was made.",
    "core[15]": "The stage resolves last in, first out: the request placed most recently "
                "resolves first.",
}
"""The core rule's steps and the log format: what every game cites."""

RULE_STATEMENTS_JA: dict[str, str] = {
    "log": "対戦ログは正しい形でなければならない：正しい行、連続した seq、実在するプレイヤー・"
           "カード・リクエストへの参照。",
    "scope": "判定はルールデータが表すものについて行う。レギュレーションにあるが、まだ判定"
             "できないアクションや能力は、ログに最初に現れた所で報告し、その行より後は判定しない。",
    "core[1]": "ゲームは先攻が決まり準備が終わってから始まり、それより前には何も起きない。",
    "core[2]": "解決の後、またはステージが空で全員がパスしたとき、チャンスはターンプレイヤーに"
               "戻り、パスの記録はやり直しになる。",
    "core[3]": "リクエストできるのはチャンスを持つプレイヤーだけ。メインタイミングのリクエストは"
               "さらに、そのプレイヤーのターンでステージが空でなければならない。",
    "core[5]": "リクエストはアクションを名指しし、スピード（即時・通常）とタイミング（メイン・"
               "クイック）はログの書き方によらずアクションの定義で決まる。",
    "core[6-1]": "誘発条件を満たすと、ルールがそのリクエストを作る。リクエストはバッファに入り、"
                 "誘発させたもののオーナーがコントロールする。",
    "core[6-3]": "バッファは即時のリクエストを先に、次に通常のリクエストを取り出し、それぞれ"
                 "ターンプレイヤーから順にプレイヤーごとに処理する。",
    "core[6-5]": "同じプレイヤーの同じスピードの誘発したリクエストは、メインタイミングのものを"
                 "クイックタイミングのものより先に処理する。",
    "core[6-10]": "誘発した通常のリクエストは、コントローラーが選んだ順に1つずつ置かれ、"
                  "その順は記録されなければならない。",
    "core[6-10-5]": "誘発したメインタイミングの通常のリクエストは、ステージが空ならそこに置かれ、"
                    "ほかのステージのリクエストと同じく解決されなければならない。",
    "core[6-10-6]": "誘発したメインタイミングの通常のリクエストは、ステージが空でなければ置かれず"
                    "破棄される。",
    "core[7]": "即時のリクエストはステージに置かれず、リクエストされるとすぐに解決され、"
               "チャンスは動かない。",
    "core[8]": "即時のリクエストは、リクエストの直後、ほかの何よりも先に解決される。",
    "core[9]": "解決のたびに勝敗判定を行い、勝敗が決まったらそれ以上は何も行えない。",
    "core[10]": "通常のリクエストはステージの一番上に置かれ、解決の前にほかのプレイヤーが"
                "応答できる。",
    "core[11]": "パスを記録できるのはチャンスを持つプレイヤーからだけである。",
    "core[12]": "ステージのリクエストは、最後のリクエストの後に全プレイヤーがパスしてから"
                "解決される。",
    "core[15]": "ステージは後入れ先出しで解決する：最後に置かれたリクエストが最初に解決される。",
}
"""The same statements written in Japanese for this tool (``--lang ja``), in the core
rule's own words (チャンス, ステージ, バッファ, 即時, 誘発 ...)."""


def _games_to_ask(game: str | None) -> Iterator[GamePlugin]:
    """The game named first (when registered), then every other registered game: those
    only when the first has no answer (listing them reads every installed distribution's
    entry points and loads each game's plugin)."""
    if game is not None and is_registered(game):
        yield game_plugin(game)
    yield from (g for g in games() if g.id != game)


def rule_statement(rule: str, game: str | None = None, lang: str = "en") -> str:
    """The statement of ``rule`` in ``lang`` (the core's, else ``game``'s, else any
    registered game's); a rule no statement covers is named as such."""
    ja = lang == "ja"
    text = (RULE_STATEMENTS_JA if ja else RULE_STATEMENTS).get(rule)
    if text is not None:
        return text
    candidates: list[GamePlugin] = []
    for plugin in _games_to_ask(game):
        candidates.append(plugin)
        text = (plugin.rule_statements_ja if ja else plugin.rule_statements).get(rule)
        if text is not None:
            return text
    if ja:
        return f"{rule}（この規則の要約は未登録）"
    family = "a step of the core flow" if rule.startswith("core") else next(
        (p.rule_book for p in candidates if p.rule_prefix and rule.startswith(p.rule_prefix)),
        "a rule")
    return f"{family} (no summary recorded for {rule})"
