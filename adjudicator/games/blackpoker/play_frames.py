"""The simulator's choices for the 9.0 frame actions (see :mod:`.simulate`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.game import ActionDef
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN
from coreflow_judge.adjudicator.games.blackpoker.play import Feed, Simulator
from coreflow_judge.events.models import Effect as LogEffect

FRAME_WEIGHTS: dict[str, float] = {"pack_open": 0.5, "rare_draw": 0.5, "rare_summon": 1.0,
                                   "trap_counter": 0.5}
"""How much a player likes each frame action, at main and at quick timing alike."""


class FramePlay(Simulator):
    """``choose_<action>`` methods for the frame actions."""

    def main_weights(self) -> dict[str, float]:
        weights = super().main_weights()
        weights.update(FRAME_WEIGHTS)
        return weights

    def quick_weights(self) -> dict[str, float]:
        weights = super().quick_weights()
        weights.update(FRAME_WEIGHTS)
        return weights

    def _try_request(self, player: str, action: ActionDef) -> Feed | None:
        """レアドロー without a rare card left is legal but does nothing: not tried."""
        if action.id == "rare_draw" and not self._board(player).rare:
            return None
        return super()._try_request(player, action)

    def choose_pack_open(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        """Any card of the pack (the engine knows the pack: the header's decks)."""
        board = self._board(req.controller)
        rare = [c for c in board.rare or () if c != UNKNOWN]
        if rare and self.rng.random() < 0.3:
            choices.update({"card": f"{req.controller}:{rare[0]}", "from": "rare"})
            return None
        pack = [c for c in board.pack or () if c != UNKNOWN]
        if pack:
            choices["card"] = f"{req.controller}:{self.rng.choice(pack)}"
        return None

    def key_pool(self, player: str, key: Mapping[str, Any]) -> list[str]:
        """レア召喚, 罠カウンター: the key card is one of the player's rare cards."""
        if key.get("from") == "rare":
            return [c for c in self._board(player).rare or () if c != UNKNOWN]
        return super().key_pool(player, key)
