"""The i-language card game as coreflow sees it: the one object the registry loads (entry
point ``i_language`` of the group ``coreflow_judge.games``, see docs/games.md)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from coreflow_judge.adjudicator.disclosure import load_disclosure
from coreflow_judge.adjudicator.findings import Severity
from coreflow_judge.adjudicator.plugins import GamePlugin, attributes_of_rules

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.games.i_language.rules import ILanguageRules
    from coreflow_judge.events.models import LogLine, MatchStarted

# Written out, not read from the rules module or its data: listing the games (the help
# does) loads no rules. tests/test_games_listed.py checks them against the edition data.
EDITIONS = ("1",)
FORMATS = ("standard",)

CODES: dict[str, tuple[Severity, str]] = {
    "legality.deck-invalid": ("error", "a deck that breaks the game's deck rules (3 normal "
                              "cards, at most 3 magic cards)"),
    "legality.once-per-game": ("error", "a special ability or magic card used twice in a "
                               "game"),
    "legality.roll-invalid": ("error", "a die roll outside its sides, or a die that cannot "
                              "pick among the listed abilities"),
    "log.roll-missing": ("warning", "an ability picked among several without a recorded die "
                         "roll"),
}
"""Findings only the i-language card game gives (docs/findings.md)."""

RULE_STATEMENTS: dict[str, str] = {
    "il.カード": "Each card is defined by its numbers: a normal card by cost, attack, "
                "durability and special abilities with their timing; a magic card by cost "
                "and a special ability.",
    "il.デッキ": "A deck is a combination of 3 normal cards (chosen from the 9 a player "
                "holds); the deck's cards form the player's camp.",
    "il.マジックカード": "A player uses at most 3 magic cards, each by declaring it.",
    "il.戦闘処理": "Players take turns in alternation, 10 turns each; the turn player acts "
                 "on their own turn.",
    "il.通常カードによる攻撃": "On their own turn a player may attack once with each standing "
                           "normal card: the target, a normal card of the opponent, loses "
                           "durability equal to the attacker's attack.",
    "il.通常カードによる特殊能力行使": "A normal card's special ability is used once per game, at "
                                "the timing the card states.",
    "il.マジックカードによる特殊能力行使": "A magic card's special ability is used once per game, "
                                  "by declaring the card, at any time.",
    "il.特殊能力": "When a card lists several special abilities, a die picks the one that "
                 "runs; the roll is recorded and the choice must follow it.",
    "il.耐久力": "Durability at 0 or less destroys a normal card; a value below 0 counts "
               "as 0.",
}
"""``il.<block>`` names a block of the seed (seeds/i-language-card-game.txt). Summaries,
not quotations."""

CODES_JA: dict[str, str] = {
    "legality.deck-invalid": "ゲームのデッキの決まりに反するデッキ（通常カード3枚、"
                             "マジックカード3枚以下）",
    "legality.once-per-game": "特殊能力またはマジックカードを1ゲームに2回使った",
    "legality.roll-invalid": "ダイスの目が面の数を超えている、または並んだ特殊能力から"
                             "選べないダイス",
    "log.roll-missing": "複数の特殊能力から、ダイスの記録なしに1つが選ばれた",
}
"""The i-language game's own codes, their meanings in Japanese."""

RULE_STATEMENTS_JA: dict[str, str] = {
    "il.カード": "カードは数値で定義される：通常カードはコスト・攻撃力・耐久力と、タイミング付きの"
                "特殊能力、マジックカードはコストと特殊能力。",
    "il.デッキ": "デッキは通常カード3枚の組み合わせ（手持ちの9枚から選ぶ）で、デッキのカードが"
                "そのプレイヤーの陣営になる。",
    "il.マジックカード": "マジックカードは1人3枚まで、宣言して使う。",
    "il.戦闘処理": "プレイヤーは交互に手番を行い、各10手番。手番のプレイヤーが自分の手番に"
                 "行動する。",
    "il.通常カードによる攻撃": "自分の手番に、戦闘不能でない通常カード1枚につき1回攻撃できる。"
                           "対象の相手通常カードは、攻撃したカードの攻撃力だけ耐久力が減る。",
    "il.通常カードによる特殊能力行使": "通常カードの特殊能力は1ゲームに1回、カードに書かれた"
                                "タイミングで使う。",
    "il.マジックカードによる特殊能力行使": "マジックカードの特殊能力は1ゲームに1回、カードを"
                                  "宣言していつでも使える。",
    "il.特殊能力": "カードに特殊能力が複数あるときは、ダイスで使う1つを選ぶ。ダイスの目を記録し、"
                 "選択はそれに従わなければならない。",
    "il.耐久力": "耐久力が0以下になった通常カードは破壊される。0未満の値は0として扱う。",
}
"""The same statements written in Japanese for this tool (``--lang ja``), in the seed's
words (陣営, 手番, 耐久力, 戦闘不能 ...)."""


def rules(header: MatchStarted, edition: str) -> ILanguageRules:
    """The edition, the format, the players and the header's card definitions."""
    from coreflow_judge.adjudicator.games.i_language.rules import ILanguageRules

    return ILanguageRules(header, edition)


def simulate(edition: str, fmt: str, seed: int, match_id: str,
             frame: str | None = None) -> list[LogLine]:
    """One seeded random legal game, its complete log (the game has no frames)."""
    from coreflow_judge.adjudicator.games.i_language.simulate import simulate_game
    from coreflow_judge.adjudicator.judge import JudgeInputError

    if frame is not None:
        raise JudgeInputError(1, "frame", f"{GAME.id} has no frames")

    return simulate_game(seed, match_id=match_id, edition=edition, fmt=fmt)


GAME = GamePlugin(
    id="i_language",
    name="i-language card game",
    editions=EDITIONS,
    formats=FORMATS,
    rules=rules,
    simulate=simulate,
    codes=CODES,
    codes_ja=CODES_JA,
    rule_statements_ja=RULE_STATEMENTS_JA,
    rule_statements=RULE_STATEMENTS,
    rule_prefix="il.",
    rule_book="an i-language rule block",
    header_fields=frozenset({"decks", "cards"}),
    constant_parts=attributes_of_rules("data", "pol", "policy", "actions"),
    disclosure_from=functools.partial(load_disclosure,
                                      "coreflow_judge.adjudicator.games.i_language"),
)
