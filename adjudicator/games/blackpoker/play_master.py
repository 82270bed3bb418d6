"""The simulator's choices for the actions master adds (see :mod:`.simulate`).

徴募 and the 9.0 B・J turn up deck cards one by one; the simulator requests them only
while the deck's order is known to the engine (before a Search shuffles it), so the log
never has to name cards of a shuffled deck for them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.games.blackpoker.cards import number
from coreflow_judge.adjudicator.games.blackpoker.play import Feed, Simulator
from coreflow_judge.adjudicator.games.blackpoker.steps_master import BJ_BUST, bj_count
from coreflow_judge.events.models import Effect as LogEffect

MASTER_MAIN: dict[str, float] = {"force": 4, "sword_rain": 2, "recruit": 4, "surprise": 3,
               "blackjack": 1, "rsf": 3}
MASTER_QUICK: dict[str, float] = {"blackjack": 0.6, "rsf": 1}
BJ_STAND = 17
"""9.0 B・J: the simulator hits below this total and stands from it."""


class MasterPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for master."""

    def main_weights(self) -> dict[str, float]:
        weights = super().main_weights()
        weights.update(self._master_sensible(MASTER_MAIN))
        return weights

    def quick_weights(self) -> dict[str, float]:
        weights = super().quick_weights()
        weights.update(self._master_sensible(MASTER_QUICK))
        return weights

    def _master_sensible(self, weights: dict[str, float]) -> dict[str, float]:
        player = self.flow.chance or ""
        out = dict(weights)
        if player not in self.rules.boards:
            return out
        board = self._board(player)
        if not any(ch.kind != "bulwark" for ch in board.field):
            out.pop("force", None)
        if not any(ch.kind == "bulwark" for ch in board.field):
            out.pop("surprise", None)
        if self.remaining[player] is not None:
            out.pop("recruit", None)
            if self.rules.actions.get("blackjack") and \
                    self.rules.actions["blackjack"].speed == "normal":
                out.pop("blackjack", None)
        return out

    def targets_rsf(self, player: str) -> list[list[str]]:
        return [[self._opponent(player)]]

    def choose_recruit(self, req: Req, choices: dict[str, Any], item: Feed
                       ) -> list[LogEffect] | None:
        plan = self.rules.plan_resolution(self.flow, req, {})
        bottom = [e["card"] for e in plan.effects
                  if e.get("op") == "move" and e.get("position") == "bottom"]
        self.rng.shuffle(bottom)
        if bottom:
            choices["bottom"] = bottom
        return None

    def choose_blackjack(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        ctl = req.controller
        if req.action.speed == "instant":  # 6.1: any 2 cards of the deck, then a shuffle
            cards = self._deck_cards(ctl)
            if len(cards) < 2:
                return None
            taken = self.rng.sample(cards, 2)
            choices["cards"] = [f"{ctl}:{c}" for c in taken]
            if self.remaining[ctl] is None:
                self.remaining[ctl] = Counter(cards)
            rem = self.remaining[ctl]
            assert rem is not None
            for c in taken:
                rem[c] -= 1
                if not rem[c]:
                    del rem[c]
            item.dealt = {ctl: 2}
            return None
        # 9.0: hit below BJ_STAND, stand from it (the deck's order is known here).
        decisions = []
        total = 0
        for card in self._deck(ctl):
            total = bj_count(total, number(card) or 0)
            if total >= BJ_BUST:
                break
            decisions.append("hit" if total < BJ_STAND else "stand")
            if total >= BJ_STAND:
                break
        choices["decisions"] = decisions
        return None
