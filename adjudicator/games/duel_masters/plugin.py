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
    from coreflow_judge.events.models import LogLine, MatchStarted

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


def rules(header: MatchStarted, edition: str) -> DuelMastersRules:
    """The edition, the format and the header's cards (the rules module, loaded now)."""
    from coreflow_judge.adjudicator.games.duel_masters.rules import rules_factory

    return rules_factory(header, edition)


def simulate(edition: str, fmt: str, seed: int, match_id: str) -> list[LogLine]:
    """One seeded random legal game, its complete log."""
    from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game

    return simulate_game(seed, match_id=match_id, edition=edition, fmt=fmt)


GAME = GamePlugin(
    id="duel_masters",
    name="Duel Masters",
    editions=EDITIONS,
    formats=FORMATS,
    rules=rules,
    simulate=simulate,
    codes=CODES,
    rule_statements=RULE_STATEMENTS,
    rule_prefix="dm",
    rule_book="a Duel Masters rule",
    header_fields=frozenset({"decks", "deck_sizes", "cards", "hyperspatial", "super_gr"}),
    size_word="power",
    constant_parts=attributes_of_rules("data", "pol", "policy", "actions"),
    disclosure_from=functools.partial(load_disclosure,
                                      "coreflow_judge.adjudicator.games.duel_masters"),
)
