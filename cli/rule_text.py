"""One plain-English line per rule reference a finding can cite.

A judge at the table reads the finding's ``rule`` and needs to know, without the rule
book, what that clause says. ``core[...]`` are the steps of the core flow (the core
rule, 8th edition), ``bp...`` the sections of the BlackPoker rules, ``log`` the match-log
format itself. The statements are summaries written for this tool, not quotations.
"""

from __future__ import annotations

RULE_STATEMENTS: dict[str, str] = {
    "log": "The match log must be well formed: valid lines, consecutive seq numbers, "
           "and references to players, cards and requests that exist.",
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
    "bp6.2": "Each action does exactly what its entry in the format's action list "
             "says: its key cards, costs, targets, the choices it asks for and its effect.",
    # i-language: il.<block> names a block of the seed (seeds/i-language-card-game.txt).
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
    # Duel Masters: dm<number> the official rule numbers the seed quotes, dm§<n> a section
    # of the seed (duel-masters-ai-spec.md) where it quotes none.
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
    "dm104.2b": "A player whose deck reaches 0 cards loses at that instant, even in the "
                "middle of an effect.",
    "dm703": "State-based actions are performed between resolutions and at step changes: "
             "a creature with power 0 or less is destroyed.",
    "dm§2.1": "Mana is paid by tapping mana cards, one mana each, with at least one card of "
              "each of the card's civilisations; a multicolour card enters the mana zone "
              "tapped. A game starts with five shields and five cards in hand.",
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
    "dm§3.4": "In the main step the active player summons creatures and casts spells from "
              "the hand, paying their cost in mana.",
    "dm§3.5": "An untapped creature attacks the opponent or one of their tapped creatures; "
              "an untapped blocker may block; battles go by power; an attack on a player "
              "breaks as many shields as the attacker's breaker count.",
    "dm§3.6": "The end step: 'at the end of the turn' abilities trigger and wait as pending "
              "effects; then 'until end of turn' effects end, and the next turn starts.",
}


def rule_statement(rule: str) -> str:
    """The English statement of ``rule``; a rule not in the table is named as such."""
    text = RULE_STATEMENTS.get(rule)
    if text is not None:
        return text
    family = rule.split("[", 1)[0].rstrip("0123456789.")
    known = {"core": "a step of the core flow", "bp": "a section of the BlackPoker rules",
             "dm": "a Duel Masters rule", "il.": "an i-language rule block"}
    return f"{known.get(family, 'a rule')} (no summary recorded for {rule})"
