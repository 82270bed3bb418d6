"""The steps 9.0's trump characters add to 6.1's (the extra frame).

The trump characters' summons and abilities reuse 6.1's steps where 9.0 says the same
(:mod:`.steps_extra`: リアニメーター召喚's graveyard card, the character entering with its
trump, 破砕士's bulwark, 騎士's sacrifice, カウンター策士召喚's negation, 薙払, 先読み); the
steps here are what 9.0 words otherwise (docs/decisions.md §6, XC1-XC9):

``revive_trump``  リアニメーター再生, 破砕士再生, 策士再生, 騎士再生: a J of the step's
    ``card`` pattern chosen in a graveyard (choice ``card``) becomes a face-up trump of the
    controller (6.1's 切札再生 took a fixed card from the hand or the graveyard).
``summoned_draw`` 策士召喚 / クイック策士召喚 2: the controller draws ``count`` cards from
    the life, when step 1 put the character (``as``) onto the field: both steps happen
    only while the trump ♢J is face up.

魔王召喚 and 巨人召喚 are 6.1's ``summon_royal`` with ``clear_first`` (9.0 moves every
soldier, or every bulwark, to the graveyard before the search, found or not).
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.board import Trump
from coreflow_judge.adjudicator.games.blackpoker.cards import split_ref
from coreflow_judge.adjudicator.games.blackpoker.resolving import step, step_mixin
from coreflow_judge.adjudicator.games.blackpoker.steps_extra import ExtraSteps


@step_mixin
class ExtraCharacterSteps(ExtraSteps):
    """Steps of the 9.0 trump characters' actions (the extra frame)."""

    @step("revive_trump")
    def step_revive_trump(self, step: dict[str, Any]) -> None:
        """A card of the step's pattern (♠J, ♡J, ♢J, ♣J) in a graveyard (choice ``card``,
        its ref naming whose: the text says only 墓地, XC3) becomes one of the controller's
        trumps, face up. Left out of the log, the controller's own card is taken (the one
        its character just brought there); while another graveyard holds one too, that is
        a ``log.choice-missing`` warning."""
        player = self.req.controller
        pattern = step["card"]
        able = [(p, c) for p in [player, *[q for q in self.flow.players if q != player]]
                for c in self.rules.boards[p].graveyard if self.rules.card_fits(c, pattern)]
        what = self.rules._pattern_text([pattern])
        raw = self.choices.get("card")
        if raw is None:
            if not able:
                self.why.append(f"no graveyard holds a {what}")
                return
            if len(set(able)) > 1:
                self.rep("log.choice-missing", "bp6.2", f"{self.req.action.name}: the "
                         f"{what} taken from a graveyard is not recorded; "
                         f"{able[0][0]}'s is assumed.", severity="warning")
            owner, card = able[0]
        else:
            parts = split_ref(str(raw))
            if parts is not None and not self.rules.card_fits(parts[1], pattern):
                self.rep("legality.choice-invalid", "bp6.2", f"{self.req.action.name} "
                         f"takes a {what}; {parts[1]} is not.", actual=raw)
                return
            if parts is None or parts[0] not in self.rules.boards or not self.among(
                    parts[1], self.rules.boards[parts[0]].graveyard,
                    f"cards of {parts[0]}'s graveyard"):
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{raw} is not in a graveyard.", actual=raw)
                return
            owner, card = parts
        self.rules.boards[owner].graveyard.remove(card)
        trump = Trump(card)
        self.rules.boards[player].trumps.append(trump)
        self.emit(op="move", card=f"{owner}:{card}", **{"from": "graveyard"}, to="trump")
        self._flip(player, trump, True)

    @step("summoned_draw")
    def step_summoned_draw(self, step: dict[str, Any]) -> None:
        """策士召喚 2: draw ``count`` from the life, if step 1 put the character onto the
        field (its trump was face up); else nothing happens, as for step 1."""
        if not any(e.get("op") == "enter" and e.get("as") == step["as"] for e in self.effects):
            return  # the trump was not face up: the summon did nothing (why: step 1)
        self.step_draw({"count": int(step["count"])})
