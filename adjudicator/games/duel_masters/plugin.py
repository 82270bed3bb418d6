"""Duel Masters as coreflow sees it: the one object the registry loads (entry point
``duel_masters`` of the group ``coreflow_judge.games``, see docs/games.md)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from coreflow_judge.adjudicator.disclosure import load_disclosure
from coreflow_judge.adjudicator.findings import Severity
from coreflow_judge.adjudicator.plugins import GamePlugin, attributes_of_rules

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.games.duel_masters.rules import DuelMastersRules
    from coreflow_judge.events.models import GameStarted, LogLine, MatchStarted

# Written out, not read from the rules module or its data: listing the games (the help
# does) loads no rules. tests/test_games_listed.py checks them against the edition data.
EDITIONS = ("1.47",)
FORMATS = ("standard",)

CODES: dict[str, tuple[Severity, str]] = {
    "order.pending-effect-order": ("error", "pending effects resolved out of order"),
    "legality.step-order": ("error", "a request for an earlier step of the turn after a "
                            "later one"),
    "legality.mana-charge-twice": ("error", "a second mana charge in one turn"),
    "legality.summoning-sickness": ("error", "an attack by a creature that entered this "
                                    "turn"),
    "legality.cannot-attack": ("error", "an attack by a creature that may not attack: "
                               "tapped, not in play, or under a 'cannot attack'"),
    "order.state-check-missed": ("error", "a state-based action not performed: a creature "
                                 "with power 0 or less, or a GR creature with no aura, kept "
                                 "in play"),
}
"""Findings only Duel Masters gives (docs/findings.md)."""

RULE_STATEMENTS: dict[str, str] = {
    "dm101.1": "When a card's text and the rules disagree, the card's text wins (speed "
               "attacker over summoning sickness, a creature that cannot be blocked, ...).",
    "dm101.2": "When a 'cannot' and a 'can' conflict, the 'cannot' wins, whatever their "
               "scopes or timestamps.",
    "dm101.3": "An effect does as much as it can: the possible part is carried out, the "
               "impossible part is skipped, and nothing more happens.",
    "dm101.4a": "Pending effects resolve S-Trigger and G-Strike first (the active player's, "
                "then the other's), then the active player's in the order they choose, then "
                "the other player's; the game goes on only when nothing is pending.",
    "dm101.5": "A replacement effect rewrites the event as it happens; it never waits as a "
               "pending effect, and the replaced event did not happen.",
    "dm104.2a": "A creature's attack on a player with no shields left that is not blocked "
                "is a direct attack: its controller wins at once.",
    "dm104.2c": "A card's text may make a player win or lose: the game ends at that "
                "instant, like every other game end; players who all win, or all lose, "
                "at the same moment draw.",
    "dm104.2b": "A player whose deck reaches 0 cards loses at that instant, even in the "
                "middle of an effect.",
    "dm703": "State-based actions are performed between resolutions and at step changes: "
             "a creature with power 0 or less is destroyed, and so is a GR creature with no "
             "aura on it.",
    "dm§2.1": "Mana is paid by tapping mana cards, one mana each, with at least one card of "
              "each of the card's civilisations; a multicolour card enters the mana zone "
              "tapped. A game starts with five shields and five cards in hand. The battle "
              "zone, mana zone, graveyard and hyperspatial zone are public; the deck, hand, "
              "shields and super GR zone are hidden.",
    "dm§2.2": "A creature cannot attack the turn it is put into the battle zone, unless an "
              "ability such as speed attacker lets it.",
    "dm§3": "A turn goes start, draw, mana charge, main, attack, end, in that order; an "
            "action of an earlier step cannot follow one of a later step.",
    "dm§3.1": "The start step: the active player untaps their mana and creatures; 'at the "
              "start of the turn' abilities trigger and wait as pending effects.",
    "dm§3.2": "The active player draws one card at the start of the turn, except on the "
              "first player's first turn.",
    "dm§3.3": "The active player may put one card from the hand into the mana zone, once "
              "per turn.",
    "dm§3.4": "In the main step the active player summons creatures, casts spells and "
              "uses card effects such as generating a cross gear (from the hand into the "
              "battle zone, paying its cost) and crossing it to a creature (paying its cross "
              "cost), in any order and as often as they can pay.",
    "dm§3.5": "An untapped creature attacks the opponent or one of their tapped creatures; "
              "an untapped blocker may block; battles go by power; an attack on a player "
              "breaks as many shields as the attacker's breaker count.",
    "dm§3.6": "The end step: 'at the end of the turn' abilities trigger and wait as pending "
              "effects; then 'until end of turn' effects end, and the next turn starts.",
}
"""``dm<number>``: the official rule numbers the seed quotes; ``dm§<n>``: a section of the
seed (duel-masters-ai-spec.md) where it quotes none. Summaries, not quotations."""

CODES_JA: dict[str, str] = {
    "order.pending-effect-order": "待機中の効果が順番どおりに解決されていない",
    "legality.step-order": "後のステップの後に、前のステップのリクエストがある",
    "legality.mana-charge-twice": "1ターンに2回目のマナチャージ",
    "legality.summoning-sickness": "このターンに出たクリーチャーによる攻撃（召喚酔い）",
    "legality.cannot-attack": "攻撃できないクリーチャーによる攻撃：タップ状態、バトルゾーンに"
                              "いない、または「攻撃できない」効果を受けている",
    "order.state-check-missed": "状況起因処理が行われていない：パワー0以下のクリーチャー、"
                                "またはオーラのないGRクリーチャーがバトルゾーンに残った",
}
"""Duel Masters' own codes, their meanings in Japanese."""

RULE_STATEMENTS_JA: dict[str, str] = {
    "dm101.1": "カードのテキストとルールが食い違うときは、カードのテキストが優先される"
               "（スピードアタッカーと召喚酔い、ブロックされないクリーチャーなど）。",
    "dm101.2": "「できない」と「できる」が衝突したときは、適用範囲やタイムスタンプにかかわらず"
               "「できない」が優先される。",
    "dm101.3": "効果はできる限り実行する：可能な部分は実行し、不可能な部分は飛ばし、"
               "それ以上のことは起きない。",
    "dm101.4a": "待機中の効果は、S・トリガーとG・ストライクを先に（ターンプレイヤー、次に相手の"
                "順で）、次にターンプレイヤーの効果を本人が選ぶ順で、最後に相手の効果を解決する。"
                "待機中の効果がなくなるまでゲームは進まない。",
    "dm101.5": "置換効果は起きる出来事をその場で書き換える。待機中の効果として待つことはなく、"
               "置き換えられた出来事は起きていない。",
    "dm104.2a": "シールドが0枚のプレイヤーへのクリーチャーの攻撃がブロックされなければ"
                "ダイレクトアタックとなり、攻撃したプレイヤーがその時点で勝つ。",
    "dm104.2c": "カードのテキストでプレイヤーが勝つ・負けることがある。その時点でゲームは終わり、"
                "同時に全員が勝つ・全員が負ける場合は引き分けになる。",
    "dm104.2b": "山札が0枚になったプレイヤーは、効果の処理の途中でもその時点で負ける"
                "（ライブラリアウト）。",
    "dm703": "状況起因処理は解決の合間とステップの移行時に行う：パワー0以下のクリーチャーと、"
             "オーラのないGRクリーチャーは破壊される。",
    "dm§2.1": "マナはマナゾーンのカードをタップして1枚につき1支払い、カードの文明それぞれを"
              "少なくとも1枚含める。多色カードはタップしてマナゾーンに置く。ゲームはシールド5枚・"
              "手札5枚で始まる。バトルゾーン、マナゾーン、墓地、超次元ゾーンは公開、山札、手札、"
              "シールドゾーン、超GRゾーンは非公開。",
    "dm§2.2": "クリーチャーはバトルゾーンに出たターンには攻撃できない（スピードアタッカーなどの"
              "能力がある場合を除く）。",
    "dm§3": "ターンは開始、ドロー、マナチャージ、メイン、攻撃、終了の順に進み、前のステップの"
            "行動を後のステップの後に行うことはできない。",
    "dm§3.1": "ターン開始ステップ：ターンプレイヤーはマナとクリーチャーをアンタップする。"
              "「ターンのはじめに」の能力が誘発し、待機中の効果になる。",
    "dm§3.2": "ターンプレイヤーはターンのはじめに1枚引く（先攻の最初のターンを除く）。",
    "dm§3.3": "ターンプレイヤーは1ターンに1回、手札から1枚をマナゾーンに置ける。",
    "dm§3.4": "メインステップでターンプレイヤーは、クリーチャーの召喚、呪文の詠唱、クロスギアの"
              "ジェネレートとクロスなどのカードの効果を、支払える限り好きな順に何度でも行える。",
    "dm§3.5": "アンタップ状態のクリーチャーが相手プレイヤーか相手のタップ状態のクリーチャーを"
              "攻撃する。アンタップ状態のブロッカーはブロックでき、バトルはパワーで決まる。"
              "プレイヤーへの攻撃はブレイカーの数だけシールドをブレイクする。",
    "dm§3.6": "ターン終了ステップ：「ターンの終わりに」の能力が誘発して待機中の効果になり、"
              "その後「ターンの終わりまで」の効果が終わって次のターンになる。",
}
"""The same statements written in Japanese for this tool (``--lang ja``), in the words of
the seed (バトルゾーン, 状況起因処理, 待機中の効果 ...)."""


def rules(header: MatchStarted, edition: str) -> DuelMastersRules:
    """The edition, the format and the header's cards (the rules module, loaded now)."""
    from coreflow_judge.adjudicator.games.duel_masters.rules import rules_factory

    return rules_factory(header, edition)


def simulate(edition: str, fmt: str, seed: int, match_id: str,
             frame: str | None = None) -> list[LogLine]:
    """One seeded random legal game, its complete log (the game has no frames)."""
    from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game
    from coreflow_judge.adjudicator.judge import JudgeInputError

    if frame is not None:
        raise JudgeInputError(1, "frame", f"{GAME.id} has no frames")

    return simulate_game(seed, match_id=match_id, edition=edition, fmt=fmt)


def own_lines() -> tuple[type[MatchStarted], type[GameStarted]]:
    """Duel Masters' header model (lines.py: ``hyperspatial``, ``super_gr``); its set-up
    is the core's."""
    from coreflow_judge.adjudicator.games.duel_masters.lines import DuelMastersMatchStarted
    from coreflow_judge.events.models import GameStarted

    return DuelMastersMatchStarted, GameStarted


GAME = GamePlugin(
    id="duel_masters",
    name="Duel Masters",
    editions=EDITIONS,
    formats=FORMATS,
    rules=rules,
    simulate=simulate,
    codes=CODES,
    codes_ja=CODES_JA,
    rule_statements_ja=RULE_STATEMENTS_JA,
    rule_statements=RULE_STATEMENTS,
    rule_prefix="dm",
    rule_book="a Duel Masters rule",
    header_fields=frozenset({"decks", "deck_sizes", "cards"}),
    own_lines=own_lines,
    size_word="power",
    constant_parts=attributes_of_rules("data", "pol", "policy", "actions"),
    disclosure_from=functools.partial(load_disclosure,
                                      "coreflow_judge.adjudicator.games.duel_masters"),
)
