"""The steps of the 9.0 frame actions (パック開封).

Recorded with the ops of match-log.md: ``move`` {card, from: ``pack``, to: ``hand``} takes
the chosen card (shown to the opponent: the log names it), ``flip`` {zone: ``pack``,
player, face: ``up``} turns the pack face up, opened (docs/decisions.md §13).
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, card_of, split_ref
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving


class FrameSteps(Resolving):
    """Steps of the frame actions."""

    def step_open_pack(self, step: dict[str, Any]) -> None:
        """パック開封: 1. one card of the pack (choice ``card``), shown, to the hand; 2. the
        pack is turned face up and is opened."""
        player = self.req.controller
        b = self.r.boards[player]
        if b.pack is None:
            self.why.append(f"{player} has no pack")
            return
        if b.pack_opened:
            self.why.append(f"{player}'s pack is opened already")
            return
        raw = self.choices.get("card")
        card: str | None
        if raw is None:
            self.rep("log.choice-missing", "bp-frame.pack_open", "パック開封: the card taken "
                     "from the pack is not recorded.", severity="warning")
            card = UNKNOWN if b.pack else None
        else:
            parts = split_ref(str(raw))
            card = card_of(str(raw))
            if (parts is not None and parts[0] != player) or (
                    card not in b.pack and UNKNOWN not in b.pack):
                self.rep("legality.choice-invalid", "bp-frame.pack_open",
                         f"{raw} is not in {player}'s pack.", actual=raw,
                         expected=[c for c in b.pack if c != UNKNOWN] or None)
                card = None
        if card == UNKNOWN and b.pack and UNKNOWN not in b.pack:
            # Which card left is not recorded: the pack's faces are no longer known.
            b.pack = [UNKNOWN] * len(b.pack)
        if card is not None and b.pack:
            b.pack.remove(card if card in b.pack else UNKNOWN)
            b.add_to_hand(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "pack"}, to="hand")
        elif card is not None:
            self.why.append(f"{player}'s pack is empty")
        b.pack_opened = True
        self.emit(op="flip", zone="pack", player=player, face="up")
