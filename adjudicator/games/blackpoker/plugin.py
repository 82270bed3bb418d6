"""BlackPoker as coreflow sees it: the one object the registry loads (entry point
``blackpoker`` of the group ``coreflow_judge.games``, see docs/games.md)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from coreflow_judge.adjudicator.disclosure import load_disclosure
from coreflow_judge.adjudicator.findings import Severity
from coreflow_judge.adjudicator.plugins import GamePlugin, attributes_of_rules

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
    from coreflow_judge.events.models import GameStarted, LogLine, MatchStarted

# Written out, not read from the rules module or its data: listing the games (the help
# does) loads no rules. tests/test_games_listed.py checks them against the edition data.
EDITIONS = ("6.1", "9.0")
FORMATS = ("lite", "standard", "pro", "master", "extra")

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}

CODES: dict[str, tuple[Severity, str]] = {
    "legality.ability-not-in-force": ("error", "an action requested under an ability that "
                                      "is not in force: its trump face down or gone, or its "
                                      "originating soldier not one the ability reaches "
                                      "(6.1 extra)"),
    "legality.condition-unmet": ("error", "a frame action requested while its condition "
                                 "is not met (パック開封 with the pack opened already, or "
                                 "without a pack; レアドロー or レア召喚 with a life over 9) "
                                 "(9.0 frames)"),
    "legality.setup-invalid": ("error", "a set-up the format or frame does not allow: more "
                               "than two trumps, or trumps outside extra (the 6.1 format, "
                               "the 9.0 frame); a deck "
                               "that is not the frame's (エントリー16: not the 16 fixed cards; "
                               "fewer cards than the frame needs); a pack of another size, "
                               "or a pack where the frame has none; a rare card or scenario "
                               "hand of another count, not in the deck, or where the frame "
                               "has none"),
    "log.frame-not-recommended": ("warning", "the header pairs a format with a frame that "
                                  "does not recommend it (any pair is legal; the match is "
                                  "judged as recorded) (9.0 frames)"),
    "timing.not-while-turn-player": ("error", "an action allowed only while its requester "
                                     "does not have the turn, requested on the requester's "
                                     "own turn (クイック召喚)"),
}
"""BlackPoker's own finding codes (docs/findings.md)."""

RULE_STATEMENTS: dict[str, str] = {
    "bp3": "Each format fixes the set-up done before play (9.0: the preset bulwark and "
           "soldier, the opening hands, the first player by reveals).",
    "bp3.4.1.1": "A format allows only the actions on its action list; anything else "
                 "cannot be requested in that format.",
    "bp4.2.1": "The game starts the same way every time: shuffle, draw seven, reveal the "
               "top cards to decide the first player, then the first player draws one "
               "(9.0 adds the preset bulwark and soldier first).",
    "bp4.3.1": "An action is defined by its key card, target, effect, cost, timing and "
               "type; a request must match that definition.",
    "bp4.3.1.1": "Costs are paid in full by the requester: B drives a charged bulwark, "
                 "L takes one damage, D discards a hand card, S sends a character to the "
                 "graveyard.",
    "bp4.3.2.1": "An action with a target cannot be requested without a target that meets "
                 "its condition, and an action can never target itself.",
    "bp4.3.3": "Resolving a request carries out exactly what its effect text says, "
               "no more and no less.",
    "bp4.3.3.1.1": "If the chosen target no longer meets the target condition when the "
                   "request resolves, it resolves with no effect (it fizzles).",
    "bp4.3.3.1.2": "When part of an effect cannot be carried out, the possible part is "
                   "still done, and only that part.",
    "bp4.3.3.2.1": "After a request resolves its key cards go to the graveyard, unless the "
                   "effect itself put them somewhere (the field, the hand).",
    "bp4.4.3": "A character's number is its printed rank changed by every size "
               "modifier in force (Up, Down and the like).",
    "bp4.5": "Each action does what its entry in the format's action list says "
             "(key cards, costs, targets, choices and effect).",
    "bp4.5.3.2": "A once-per-turn action may be requested only once until the turn player "
                 "changes.",
    "bp4.5.3.3": "Some actions are started only by the rules; no player may request them, "
                 "even while holding the chance.",
    "bp4.5.3.4": "Some actions may be requested only while their requester does not have "
                 "the turn (クイック召喚).",
    "bp-extra.trumps": "Extra: before the game each player may place up to two trumps face "
                       "down, apart from the deck; no other format has trumps.",
    "bp-extra.abilities": "Extra: a trump's ability is in force only while the trump is "
                          "face up; a soldier-originated action is started by driving a "
                          "charge-state soldier the ability reaches.",
    "bp-extra.giant": "Extra: 巨人 must be designated as an attacker whenever it is able to "
                      "attack.",
    "bp-frame": "9.0: a regulation is a format plus a frame; each frame recommends some "
                "formats, and any pairing may still be played.",
    "bp-frame.deck": "9.0 frames: a frame fixes the deck: エントリー16 plays the sixteen given "
                     "cards and no others; the pack frames need a deck of at least 40 cards.",
    "bp-frame.pack": "9.0 pack frames: before the preset, the top fourteen cards of the deck "
                     "are set aside face down as the pack; the rest is the life. The pack's "
                     "count and whether it is opened are public; an opened pack's cards are "
                     "its owner's; an unopened pack's cards no player knows.",
    "bp-frame.pack_open": "パック開封 may be requested only while the requester's pack is not "
                          "opened; it takes one card of the pack, shown to the opponent, into "
                          "the hand, then the pack is turned face up and is opened.",
    "bp-frame.rare": "9.0 rare frames (レアパック, ストラテジー): before the pack, one rare card "
                     "is chosen from the deck and set face down; the deck is shuffled after. "
                     "How many rare cards a player has is public; which they are, its owner's.",
    "bp-frame.scenario": "ストラテジー: before the rare card, three cards are chosen from the "
                         "deck into the opening hand; after the preset four are drawn to make "
                         "seven. Once the game starts they are ordinary hand cards.",
    "bp-frame.rare_draw": "レアドロー may be requested only while the requester's life is 9 or "
                          "less; it puts a rare card into the hand.",
    "bp-frame.rare_summon": "レア召喚 may be requested only while the requester's life is 9 or "
                            "less; its key card is the rare card, its cost a soldier, and the "
                            "card enters the field face up in charge state as a soldier.",
    "bp-frame.trap_counter": "罠カウンター: when a key card of the targeted request (one or two "
                             "key cards) is the same card as its key card (the rare card), the "
                             "request leaves the stage and its key cards go to the graveyard.",
    "bp6.2": "Each action does exactly what its entry in the format's action list "
             "says: its key cards, costs, targets, the choices it asks for and its effect.",
}
"""One plain-English line per section of the BlackPoker rules the rules module cites
(``bp...``); summaries written for this tool, not quotations."""

CODES_JA: dict[str, str] = {
    "legality.ability-not-in-force": "有効でない能力によるアクションのリクエスト：切札が伏せて"
                                     "あるかなくなっている、またはその能力が及ばない兵士から"
                                     "起こされた（6.1 エクストラ）",
    "legality.condition-unmet": "起こす条件を満たさないフレームのアクションのリクエスト"
                                "（開封済みのパック、またはパックがないときのパック開封。"
                                "ライフが10以上のときのレアドロー・レア召喚）（9.0 フレーム）",
    "legality.setup-invalid": "フォーマットやフレームが認めない準備：切札が3枚以上、または"
                              "エクストラ以外（6.1 はフォーマット、9.0 はフレーム）での切札。"
                              "フレームのデッキでないデッキ"
                              "（エントリー16 の16枚と違う、フレームの枚数に足りない）。"
                              "枚数の違うパック、またはパックのないフレームでのパック。"
                              "枚数の違う、デッキにない、またはフレームにないレアカードや"
                              "シナリオ手札",
    "log.frame-not-recommended": "フレームが推奨しないフォーマットとの組み合わせ（どの組み合わせ"
                                 "も遊べる。記録どおりに裁定する）（9.0 フレーム）",
    "timing.not-while-turn-player": "ターンプレイヤーでない間だけ行えるアクションを、自分のターンに"
                                    "リクエストした（クイック召喚）",
}
"""BlackPoker's own codes, their meanings in Japanese."""

RULE_STATEMENTS_JA: dict[str, str] = {
    "bp3": "フォーマットごとに、ゲーム前に行う準備が決まっている（9.0：プリセットの防壁と兵士、"
           "最初の手札、公開したカードによる先攻の決定）。",
    "bp3.4.1.1": "フォーマットで使えるのはアクション一覧にあるアクションだけで、それ以外は"
                 "リクエストできない。",
    "bp4.2.1": "ゲームの開始は毎回同じ手順：シャッフルし、7枚引き、上のカードを公開して先攻を決め、"
               "先攻が1枚引く（9.0 ではその前にプリセットの防壁と兵士を出す）。",
    "bp4.3.1": "アクションはキーカード・対象・効果・コスト・タイミング・タイプで定義され、"
               "リクエストはその定義に合っていなければならない。",
    "bp4.3.1.1": "コストはリクエストしたプレイヤーが全額支払う：B はチャージ状態の防壁をドライブ、"
                 "L はダメージを1受ける、D は手札を1枚捨てる、S はキャラクターを墓地に送る。",
    "bp4.3.2.1": "対象のあるアクションは、条件を満たす対象がなければリクエストできず、"
                 "自分自身を対象にすることもできない。",
    "bp4.3.3": "リクエストの解決では、効果に書かれたことを過不足なく実行する。",
    "bp4.3.3.1.1": "解決時に選んだ対象が対象条件を満たしていなければ、そのリクエストは"
                   "効果なしで解決される（不発）。",
    "bp4.3.3.1.2": "効果の一部が実行できないときも、実行できる部分だけは実行する。",
    "bp4.3.3.2.1": "リクエストの解決後、キーカードは墓地に置かれる（効果が場や手札などに"
                   "移した場合を除く）。",
    "bp4.4.3": "キャラクターの数字は、カードの数字に、有効なサイズ修正（アップ、ダウンなど）を"
               "すべて加えたものである。",
    "bp4.5": "各アクションは、フォーマットのアクション一覧の記載どおりに働く（キーカード、コスト、"
             "対象、選択、効果）。",
    "bp4.5.3.2": "1ターンに1回のアクションは、ターンプレイヤーが替わるまで1回しかリクエスト"
                 "できない。",
    "bp4.5.3.3": "ルールだけが起こすアクションがあり、チャンスを持っていてもプレイヤーは"
                 "リクエストできない。",
    "bp4.5.3.4": "自分がターンプレイヤーでない間にしかリクエストできないアクションがある"
                 "（クイック召喚）。",
    "bp-extra.trumps": "エクストラ：ゲーム前に各プレイヤーは切札を2枚まで、デッキとは別に伏せて"
                       "置ける。切札があるのはエクストラだけである。",
    "bp-extra.abilities": "エクストラ：切札の能力は表向きの間だけ有効。兵士から起こすアクションは、"
                          "能力が及ぶチャージ状態の兵士をドライブして起こす。",
    "bp-extra.giant": "エクストラ：巨人は、攻撃できるときは必ずアタッカーに指定しなければ"
                      "ならない。",
    "bp-frame": "9.0：レギュレーションはフォーマットとフレームの組み合わせ。フレームごとに推奨"
                "フォーマットがあるが、どの組み合わせでも遊べる。",
    "bp-frame.deck": "9.0 フレーム：フレームがデッキを決める。エントリー16 は決められた16枚だけを"
                     "使い、パックのフレームは40枚以上のデッキを使う。",
    "bp-frame.pack": "9.0 パックのフレーム：プリセットの前にデッキの上から14枚を伏せて取り除き"
                     "パックとし、残りをライフとする。パックの枚数と開封済みかどうかは完全公開、"
                     "開封済みパックの中身は個人公開、未開封パックの中身は非公開。",
    "bp-frame.pack_open": "パック開封は、自分のパックが開封済みでないときだけリクエストできる。"
                          "パックから1枚を選び対戦相手に見せて手札に加え、パックを表向きにして"
                          "開封済みとする。",
    "bp-frame.rare": "9.0 レアのフレーム（レアパック、ストラテジー）：パックの前にデッキから"
                     "レアカードを1枚選んで伏せておき、そのあとデッキをシャッフルする。"
                     "レアカードの枚数は完全公開、中身は個人公開。",
    "bp-frame.scenario": "ストラテジー：レアカードの前に、最初の手札に入れる3枚をデッキから"
                         "選ぶ。プリセットのあと4枚引いて手札を7枚とする。ゲーム開始後は"
                         "通常の手札として扱う。",
    "bp-frame.rare_draw": "レアドローは、自分のライフが9以下のときだけリクエストできる。"
                          "レアカードを1枚手札に加える。",
    "bp-frame.rare_summon": "レア召喚は、自分のライフが9以下のときだけリクエストできる。"
                            "キーカードはレアカード、コストは兵士で、キーカードを兵士として"
                            "表向きかつチャージ状態で場に出す。",
    "bp-frame.trap_counter": "罠カウンター：対象リクエスト（キーカード1枚または2枚）のキー"
                             "カードのいずれかがこのアクションのキーカード（レアカード）と同じ"
                             "場合、対象リクエストをステージから取り除き、そのキーカードを墓地に"
                             "移す。",
    "bp6.2": "各アクションは、フォーマットのアクション一覧の記載どおりのことだけを行う："
             "キーカード、コスト、対象、求める選択、効果。",
}
"""The same statements written in Japanese for this tool (``--lang ja``); the rules' own
words for actions and zones (ドライブ, 不発, 切札 ...) from the shared rules pack."""


def card_text(card: str) -> str:
    """``S9`` -> ``♠9``, ``H12`` -> ``♥Q``, ``bob:C1`` -> ``bob:♣A``; others unchanged."""
    owner, sep, face = card.rpartition(":")
    if len(face) >= 2 and face[0] in SUIT_SYMBOLS and face[1:].isdigit():
        rank = int(face[1:])
        face = SUIT_SYMBOLS[face[0]] + RANK_NAMES.get(rank, str(rank))
    elif face.startswith("JK"):
        face = "Joker" + face[2:]
    return owner + sep + face


def rules(header: MatchStarted, edition: str) -> BlackPokerRules:
    """The edition, the header's format and frame (the rules refuse one they do not
    carry)."""
    from coreflow_judge.adjudicator.games.blackpoker.lines import header_of
    from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules

    return BlackPokerRules(edition, header.format, header_of(header).frame)


COST_KINDS: dict[str, str] = {
    "B": "a charge-state bulwark driven",
    "L": "a card lost (one damage: the top card of the deck to the graveyard)",
    "D": "a hand card discarded",
    "S": "a character sacrificed (sent to the graveyard)",
    "C": "the key unit driven (a soldier-originated action, 6.1 extra)",
}
"""bp4.3.1.1: the letters of ``request.costs[].kind`` and what paying each is."""


def own_lines() -> tuple[type[MatchStarted], type[GameStarted]]:
    """BlackPoker's header and set-up models (lines.py: ``frame``; ``presets``,
    ``trumps``, ``packs``, ``rares``, ``scenario``)."""
    from coreflow_judge.adjudicator.games.blackpoker.lines import (
        BlackPokerGameStarted,
        BlackPokerMatchStarted,
    )

    return BlackPokerMatchStarted, BlackPokerGameStarted


def fixture_folder(header: MatchStarted) -> str:
    """A ruling fixture goes to the folder of its format (``lite``, ..., ``extra``), or to
    ``frames`` for a match of a 9.0 frame (the frame decides more of the table than the
    format)."""
    frame = getattr(header, "frame", None)  # a header read as BlackPoker's (lines.py)
    return "frames" if frame else header.format


def simulate(edition: str, fmt: str, seed: int, match_id: str,
             frame: str | None = None) -> list[LogLine]:
    """One seeded random legal game, its complete log (9.0: in ``frame``, if named)."""
    from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game

    return simulate_game(edition, seed, fmt, match_id=match_id, frame=frame)


GAME = GamePlugin(
    id="blackpoker",
    name="BlackPoker",
    editions=EDITIONS,
    formats=FORMATS,
    rules=rules,
    simulate=simulate,
    rule_statements=RULE_STATEMENTS,
    rule_prefix="bp",
    rule_book="a section of the BlackPoker rules",
    header_fields=frozenset({"decks", "deck_sizes"}),
    own_lines=own_lines,
    cost_kinds=COST_KINDS,
    card_text=card_text,
    constant_parts=attributes_of_rules("data", "pol", "policy", "actions", "after", "on_event",
                                       "ng_ranks", "format"),
    bare_editions=True,
    fixture_folder=fixture_folder,
    codes=CODES,
    codes_ja=CODES_JA,
    rule_statements_ja=RULE_STATEMENTS_JA,
    disclosure_from=functools.partial(load_disclosure,
                                      "coreflow_judge.adjudicator.games.blackpoker"),
)
