"""The steps of the 9.0 frame actions (パック開封, レアドロー, レア召喚, 罠カウンター).

Recorded with the ops of match-log.md: ``move`` {card, from: ``pack``, to: ``hand``} takes
the chosen card (shown to the opponent: the log names it), ``flip`` {zone: ``pack``,
player, face: ``up``} turns the pack face up, opened; ``move`` {card, from: ``rare``, to:
``hand``} takes the rare card; ``enter`` puts a rare card on the field as a soldier;
``negate`` removes the request a 罠カウンター caught (docs/decisions.md §13).
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.board import Character
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    card_of,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step, step_mixin


@step_mixin
class FrameSteps(Resolving):
    """Steps of the frame actions."""

    @step("open_pack")
    def step_open_pack(self, step: dict[str, Any]) -> None:
        """パック開封: 1. one card of the pack (choice ``card``), shown, to the hand; 2. the
        pack is turned face up and is opened. Requested again once the pack is opened
        (``legality.condition-unmet`` at the request), the request still happened: it
        resolves like a legal one, taking the chosen card of the face-up pack
        (docs/decisions.md §1)."""
        player = self.req.controller
        b = self.rules.boards[player]
        if b.pack is None:
            self.why.append(f"{player} has no pack")
            return
        raw = self.choices.get("card")
        if self.choices.get("from") == "rare":
            # The rare frames: the rare card, shown and taken instead of a pack card.
            self._rare_instead(raw)
            b.pack_opened = True
            self.emit(op="flip", zone="pack", player=player, face="up")
            return
        if self.choices.get("from", "pack") != "pack":
            self.rep("legality.choice-invalid", "bp-frame.pack_open",
                     "パック開封 takes a card from the pack, or the rare card instead "
                     "(from: pack or rare).", actual=self.choices.get("from"))
        card: str | None
        if raw is None and not b.pack:
            card = None  # an empty pack: nothing to take, nothing to record
            self.why.append(f"{player}'s pack is empty")
        elif raw is None:
            self.rep("log.choice-missing", "bp-frame.pack_open", "パック開封: the card taken "
                     "from the pack is not recorded.", severity="warning")
            card = UNKNOWN
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

    def _rare_instead(self, raw: Any) -> None:
        """パック開封's second choice (the rare frames): the rare card instead of a card
        of the pack; one that is not the requester's rare card takes nothing."""
        player = self.req.controller
        b = self.rules.boards[player]
        parts = split_ref(str(raw)) if raw is not None else None
        card = card_of(str(raw)) if raw is not None else UNKNOWN
        rare = b.rare or []
        if raw is None and rare:
            self.rep("log.choice-missing", "bp-frame.pack_open", "パック開封: the rare card "
                     "taken is not recorded.", severity="warning")
        elif (parts is not None and parts[0] != player) or (
                card not in rare and UNKNOWN not in rare):
            self.rep("legality.choice-invalid", "bp-frame.pack_open",
                     f"{raw} is not {player}'s rare card.", actual=raw,
                     expected=[c for c in rare if c != UNKNOWN] or None)
            return
        self._rare_to_hand(card)

    def _rare_to_hand(self, card: str) -> None:
        """A rare card of the requester (``card``, or ``?``: the first) to the hand."""
        player = self.req.controller
        b = self.rules.boards[player]
        if not b.rare:
            self.why.append(f"{player} has no rare card")
            return
        if card not in b.rare:
            card = b.rare[0] if card == UNKNOWN else UNKNOWN
        b.rare.remove(card)
        b.add_to_hand(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "rare"}, to="hand")

    @step("rare_to_hand")
    def step_rare_to_hand(self, step: dict[str, Any]) -> None:
        """レアドロー: one rare card to the hand (the log names it: ``move``)."""
        b = self.rules.boards[self.req.controller]
        shown = [card_of(str(d.get("card"))) for d in self.claims
                 if d.get("op") == "move" and d.get("from") == "rare"]
        card = shown[0] if shown and b.rare and shown[0] in b.rare else UNKNOWN
        self._rare_to_hand(card)

    @step("enter_rare")
    def step_enter_rare(self, step: dict[str, Any]) -> None:
        """レア召喚: the key card (the rare card) onto the field face up in charge state as
        a soldier: the character its face makes it (an A an ace, J-K a hero...)."""
        player = self.req.controller
        cards = [card_of(k) for k in self.req.key_cards]
        if not cards:
            return
        kind = self.rules.character_for(cards[:1])
        ref = f"{player}:{cards[0]}"
        self.rules.boards[player].field.append(
            Character(ref, player, kind, cards[:1], [self.flow.turn],
                      timestamp=self.rules.tick()))
        self.key_dest = "field"
        self.emit(op="enter", character=ref, **{"as": kind}, cards=list(self.req.key_cards))

    @step("trap_counter")
    def step_trap_counter(self, step: dict[str, Any]) -> None:
        """罠カウンター: when a key card of the target is the same card as this action's
        key card (the same suit and number; two Jokers are the same), the target leaves
        the stage and its key cards go to the graveyard; else nothing happens."""
        target = self.flow.requests.get(self.req.targets[0]) if self.req.targets else None
        if target is None:
            return
        mine = [parse_card(card_of(k)) for k in self.req.key_cards]
        theirs = [parse_card(card_of(k)) for k in target.key_cards]
        if any(c is None or not c.known for c in mine + theirs):
            self.rep("log.hidden-info", "bp-frame.trap_counter",
                     "罠カウンター: a key card's face is not shown; whether they are the same "
                     "cannot be checked.", severity="warning")
            if any(e.get("op") == "negate" for e in self.claims):
                self._negate_request(target.id)
            return

        def face(c: Any) -> tuple[Any, Any]:
            return ("joker", None) if c.joker else (c.suit, c.rank)

        if not {face(c) for c in mine} & {face(c) for c in theirs}:
            self.why.append(f"no key card of {target.id} is the same as the 罠カウンター's "
                            "key card")
            return
        self._negate_request(target.id)
