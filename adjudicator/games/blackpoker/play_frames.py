"""The simulator's choices for the 9.0 frame actions (see :mod:`.simulate`)."""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN
from coreflow_judge.adjudicator.games.blackpoker.play import Feed, Simulator
from coreflow_judge.events.models import Effect as LogEffect

FRAME_WEIGHTS: dict[str, float] = {"pack_open": 0.5}
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

    def choose_pack_open(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        """Any card of the pack (the engine knows the pack: the header's decks)."""
        pack = [c for c in self._board(req.controller).pack or () if c != UNKNOWN]
        if pack:
            choices["card"] = f"{req.controller}:{self.rng.choice(pack)}"
        return None
