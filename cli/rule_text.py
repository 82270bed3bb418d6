"""One plain-English line per rule reference a finding can cite.

A judge at the table reads the finding's ``rule`` and needs to know, without the rule
book, what that clause says. ``core[...]`` are the steps of the core flow (the core
rule, 8th edition) and ``log`` the match-log format itself: those are here. A game's own
references come with the game (:attr:`GamePlugin.rule_statements
<adjudicator.plugins.GamePlugin.rule_statements>`). The statements are summaries written
for this tool, not quotations.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.plugins import GamePlugin, game_plugin, games, is_registered

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
}
"""The core rule's steps and the log format: what every game cites."""


def _games_to_ask(game: str | None) -> list[GamePlugin]:
    """The game named first (when registered), then every other registered game."""
    first = [game_plugin(game)] if game is not None and is_registered(game) else []
    return first + [g for g in games() if g.id != game]


def rule_statement(rule: str, game: str | None = None) -> str:
    """The English statement of ``rule`` (the core's, else ``game``'s, else any registered
    game's); a rule no statement covers is named as such."""
    text = RULE_STATEMENTS.get(rule)
    if text is not None:
        return text
    candidates = _games_to_ask(game)
    for plugin in candidates:
        text = plugin.rule_statements.get(rule)
        if text is not None:
            return text
    family = "a step of the core flow" if rule.startswith("core") else next(
        (p.rule_book for p in candidates if p.rule_prefix and rule.startswith(p.rule_prefix)),
        "a rule")
    return f"{family} (no summary recorded for {rule})"
