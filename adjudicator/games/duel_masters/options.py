"""The Duel Masters requests a player could make now, card by card (``coreflow play``'s
``legal``, and whether a pass is the only thing left).

:func:`request_options` proposes; the judge disposes (the flow's timing and
:meth:`DuelMastersRules.request_findings` check each proposal), so nothing here decides
whether a request is legal. By action (edition data ``key``):

- ``charge_mana``: each card of the hand;
- ``summon``, ``cast``, ``generate``, ``aura``: each card of the hand, with the untapped
  mana that pays for it (:meth:`auto_mana`, the rules' own choice of mana) as
  ``choices.mana``; a spell's target each creature it may choose
  (:meth:`legal_targets`), an aura's each creature of the player's;
- ``cross``: each cross gear of theirs in the battle zone onto each creature of theirs,
  with the mana that pays its cross cost;
- ``attack``: each creature of theirs onto each target it may attack
  (:meth:`attack_targets`);
- any other action (``end_turn``): the request alone.

A hand card the viewer may not see is ``owner:?`` (its cost and kind unknown: no mana or
target is proposed with it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.game import ActionDef, Sight
from coreflow_judge.adjudicator.games.duel_masters.cards import UNKNOWN
from coreflow_judge.events.models import Request

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow
    from coreflow_judge.adjudicator.games.duel_masters.rules import DuelMastersRules

KINDS = {"summon": "creature", "cast": "spell", "generate": "cross_gear", "aura": "aura"}
"""The card type each playing action takes from the hand (the edition data's ``key``)."""


def request_options(rules: DuelMastersRules, flow: CoreFlow, player: str,
                    action: ActionDef, sees: Sight) -> list[Request]:
    """The requests of ``action`` that ``player`` could make now (see the module)."""
    board = rules.boards.get(player)
    if board is None:
        return []
    aid = action.id
    out: list[dict[str, Any]] = []
    shown = [c for c in dict.fromkeys(sorted(board.hand_known.elements()))
             if sees(f"{player}:{c}")]
    unseen = (board.hand_count or 0) - sum(board.hand_known[c] for c in shown)
    if board.hand_count is None:
        unseen = 1
    hand = [f"{player}:{c}" for c in shown] + ([f"{player}:{UNKNOWN}"] if unseen > 0 else [])
    own = [c.ref for c in board.battle]
    if aid == "charge_mana":
        out = [{"key_cards": [card]} for card in hand]
    elif aid in KINDS:
        for card in hand:
            cdef = rules.card(card.partition(":")[2])
            if cdef is None:
                out.append({"key_cards": [card]})
                continue
            if cdef.type != KINDS[aid]:
                continue
            mana = rules.auto_mana(player, cdef)
            choices = {"mana": mana} if mana is not None else None
            targets: list[list[str]] = [[]]
            effect = cdef.target_effect("spell") if aid == "cast" else None
            if effect is not None:
                targets = [[t] for t in rules.legal_targets(player, effect)] or [[]]
            elif aid == "aura" and not cdef.gr_summon:
                targets = [[c] for c in own]
            out += [{"key_cards": [card], "targets": t, "choices": choices} for t in targets]
    elif aid == "cross":
        for gear in board.gears:
            mana = rules.auto_mana(player, gear.card, gear.card.cross_cost)
            out += [{"key_cards": [gear.ref], "targets": [c], "choices":
                     {"mana": mana} if mana is not None else None}
                    for c in own if c != gear.crossed]
    elif aid == "attack":
        for c in board.battle:
            out += [{"key_cards": [c.ref], "targets": [t]}
                    for t in rules.attack_targets(flow, c)]
    else:
        out = [{}]
    return [Request.model_validate({"seq": flow.next_seq, "request": "?", "player": player,
                                    "action": aid, **fields}) for fields in out]
