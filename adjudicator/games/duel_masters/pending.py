"""The order of pending effects (dm101.4a), as a trigger-order policy for the core flow.

1. S-Trigger / G-Strike first: the active player's, then the non-active player's;
2. then the active player's other pending effects, in the order they choose;
3. then the non-active player's, in the order they choose.

The game's own procedure (the draw step, the block and battle of an attack) goes on only
once nothing is pending: it ranks after every pending effect. An effect that triggers during
a resolution waits in the buffer until that resolution ends (the core flow's buffer), and
the order is applied again to everything pending.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coreflow_judge.adjudicator.policies import OrderBreach, seat_from_turn_player

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req

CLASSES = {"priority": 0, "pending": 1, "procedure": 2}
CODE = "order.pending-effect-order"
RULE = "dm101.4a"


class PendingEffectOrder:
    """Rank = (class: priority < pending < procedure, seat from the active player)."""

    def rank(self, flow: CoreFlow, req: Req) -> tuple[int, ...]:
        return (
            CLASSES.get(str(req.action.data.get("class", "pending")), 1),
            seat_from_turn_player(flow, req.controller),
        )

    def breach(self, component: int) -> OrderBreach:
        if component == 0:
            return OrderBreach(CODE, RULE,
                               "S-Trigger and G-Strike resolve before every other pending "
                               "effect, and the game goes on only once nothing is pending")
        return OrderBreach(CODE, RULE,
                           "the active player's pending effects resolve before the "
                           "non-active player's")
