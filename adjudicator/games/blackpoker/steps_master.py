"""The steps of the actions master adds to pro (both editions).

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.abilities import Ability
from coreflow_judge.adjudicator.games.blackpoker.board import Character
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, card_of, number
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step, step_mixin

BJ_POINTS = {0: 0, 1: 11, 11: 10, 12: 10, 13: 10}
"""9.0 B・J points: an A is 11 (1 where 11 would make 22 or more), J-K 10, a Joker 0."""
BJ_BUST = 22
"""9.0 B・J: a total of this or more sends every revealed card to the graveyard."""


def bj_count(total: int, n: int) -> int:
    """9.0 B・J: the total once a card of number ``n`` is turned up on ``total`` (its
    points, :data:`BJ_POINTS`; an A counts 1 where 11 would reach :data:`BJ_BUST`). The
    one count: the resolution (:meth:`MasterSteps.step_blackjack`) and a player deciding
    to hit or stand both read it."""
    points = BJ_POINTS.get(n, n)
    if n == 1 and total + points >= BJ_BUST:
        points = 1
    return total + points


@step_mixin
class MasterSteps(Resolving):
    """Steps of フォース, 剣の雨, 徴募, 奇襲, B・J and R・S・F."""

    def _key_total(self) -> int | None:
        total = 0
        for k in self.req.key_cards:
            n = number(card_of(k))
            if n is None:
                return None
            total += n
        return total

    # ------------------------------------------------------------------ フォース
    @step("force")
    def step_force(self, step: dict[str, Any]) -> None:
        """Until the end of the turn every soldier of the controller, those entering later
        in the turn included (docs/decisions.md, Force), gets + the key cards' total: an
        ability of scope *your*, applied after the abilities of scope all and before those
        of scope this (Up, Down)."""
        total = self._key_total()
        if total is None:
            self.rep("log.hidden-info", "bp6.2", "フォース: a key card's face is not shown; "
                     "the sizes it changes cannot be checked.", severity="warning")
            return
        player = self.req.controller
        self.rules.grant(Ability(
            name="Force", source=f"{self.req.id}, {', '.join(self.req.key_cards)}",
            owner=player, scope="your", timestamp=self.rules.tick(), stat="size", op="add",
            amount=total, applies={"kind": "soldier"}, until="end_of_turn"))
        for ch in self.rules.boards[player].field:
            if self.rules.data["characters"][ch.kind]["kind"] == "soldier":
                self.emit(op="size", character=ch.ref, delta=total, until="end_of_turn")

    # ------------------------------------------------------------------ 剣の雨
    @step("sword_rain")
    def step_sword_rain(self, step: dict[str, Any]) -> None:
        """Every soldier (both players') whose number (6.1) / size (9.0), as computed now,
        is at most the key cards' total goes to the graveyard."""
        total = self._key_total()
        if total is None:
            self.rep("log.hidden-info", "bp6.2", "剣の雨: a key card's face is not shown.",
                     severity="warning")
            return
        self._destroy_soldiers_at_most(total, self.rules.size, "size")

    # ------------------------------------------------------------------ 徴募
    @step("recruit")
    def step_recruit(self, step: dict[str, Any]) -> None:
        """The top 4 cards are revealed; each whose number is at most the key total enters
        as a soldier in drive state, the rest go to the deck bottom in the chosen order
        (choice ``bottom``, top to bottom)."""
        player = self.req.controller
        b = self.rules.boards[player]
        total = self._key_total()
        shown = [card_of(c) for c in self._claimed_cards("reveal", player) or []]
        revealed: list[str] = []
        for i in range(4):
            top = b.pop_deck()
            if top is None:
                break
            revealed.append(shown[i] if top == UNKNOWN and i < len(shown) else top)
        self.emit(op="reveal", player=player, cards=[f"{player}:{c}" for c in revealed])
        if total is None or any(number(c) is None for c in revealed):
            self.rep("log.hidden-info", "bp6.2", "徴募: a revealed card or key card is not "
                     "shown; which cards enter cannot be checked.", severity="warning")
            if b.deck is not None:
                b.deck = None
            return
        enter = [c for c in revealed if (number(c) or 0) <= total]
        rest = [c for c in revealed if c not in enter]
        for card in enter:
            ref = f"{player}:{card}"
            kind = self.rules.character_for([card])
            b.field.append(Character(ref, player, kind, [card], [self.flow.turn],
                                     state="drive", timestamp=self.rules.tick()))
            self.emit(op="enter", character=ref, **{"as": kind}, cards=[ref], state="drive")
        order = self._bottom_order(rest)
        if b.deck is not None:
            b.deck.extend(order)
        for card in order:
            self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="deck",
                      position="bottom")

    def _bottom_order(self, rest: list[str]) -> list[str]:
        if len(rest) <= 1:
            return rest
        raw = self.choices.get("bottom")
        if raw is None:
            self.rep("log.choice-missing", "bp6.2", "徴募: the order of the cards put at the "
                     "bottom is not recorded; the revealed order is assumed.",
                     severity="warning")
            return rest
        chosen = [card_of(str(c)) for c in raw] if isinstance(raw, list) else []
        if sorted(chosen) != sorted(rest):
            self.rep("legality.choice-invalid", "bp6.2", "徴募: the bottom order must name "
                     f"each card not put onto the field once: {', '.join(rest)}.",
                     expected=sorted(rest), actual=raw)
            return rest
        return chosen

    # ------------------------------------------------------------------ 奇襲
    @step("surprise")
    def step_surprise(self, step: dict[str, Any]) -> None:
        """Every own bulwark becomes a soldier (entered this turn if the bulwark did), then
        every own soldier is put into charge state."""
        player = self.req.controller
        for ch in list(self.rules.boards[player].field):
            if ch.kind != "bulwark":
                continue
            card = ch.cards[0]
            self.rules.end_abilities("end_of_turn", character=ch.ref)
            ch.kind = self.rules.character_for(ch.cards)
            ch.face_down = False
            self.emit(op="transform", character=ch.ref, to="soldier",
                      cards=[f"{player}:{card}"])
        self._charge(player, "soldier")

    # ------------------------------------------------------------------ B・J
    @step("take_from_deck")
    def step_take_from_deck(self, step: dict[str, Any]) -> None:
        """6.1 B・J: the chosen cards (choice ``cards``) are shown and taken from the deck
        into the hand, then the deck is shuffled."""
        player = self.req.controller
        b = self.rules.boards[player]
        raw = self.choices.get("cards")
        want = int(step["count"])
        if not isinstance(raw, list):
            self.rep("log.choice-missing", "bp6.2", f"{self.req.action.name}: the cards "
                     "taken are not recorded.", severity="warning")
            raw = [f"{player}:{UNKNOWN}"] * want
        elif len(raw) != want:
            self.rep("legality.choice-invalid", "bp6.2", f"{self.req.action.name} takes "
                     f"{want} cards.", expected=want, actual=len(raw))
        for ref in raw[:want]:
            card = card_of(str(ref))
            if b.deck is not None:
                if card in b.deck:
                    b.deck.remove(card)
                elif UNKNOWN in b.deck:
                    b.deck.remove(UNKNOWN)
                else:
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{card} is not in the deck.", actual=ref)
                    continue
            b.add_to_hand(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="hand")
        self._shuffle(player)

    @step("blackjack")
    def step_blackjack(self, step: dict[str, Any]) -> None:
        """9.0 B・J: turn life cards up one by one, adding their points; at 22 or more every
        revealed card goes to the graveyard; at 21 or less the controller hits (one more)
        or stands (every revealed card to the hand) — choice ``decisions``."""
        player = self.req.controller
        b = self.rules.boards[player]
        raw = self.choices.get("decisions")
        decisions = [str(d) for d in raw] if isinstance(raw, list) else None
        shown = [card_of(c) for c in self._claimed_cards("reveal", player) or []]
        revealed: list[str] = []
        total = 0
        asked = 0
        while True:
            top = b.pop_deck()
            if top is None:
                break
            card = shown[len(revealed)] if top == UNKNOWN and len(revealed) < len(shown) \
                else top
            revealed.append(card)
            n = number(card)
            if n is None:
                self.rep("log.hidden-info", "bp6.2", "B・J: a revealed card is not shown.",
                         severity="warning")
                b.deck = None
                return
            total = bj_count(total, n)
            if total >= BJ_BUST:
                break
            if decisions is None:
                self.rep("log.choice-missing", "bp6.2", "B・J: hit or stand is not recorded; "
                         "stand is assumed.", severity="warning")
                decisions = []
            choice = decisions[asked] if asked < len(decisions) else "stand"
            asked += 1
            if choice not in ("hit", "stand"):
                self.rep("legality.choice-invalid", "bp6.2", "B・J: each decision is hit or "
                         "stand.", expected=["hit", "stand"], actual=choice)
                choice = "stand"
            if choice == "stand":
                break
        if raw is not None and decisions is not None and asked != len(decisions):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"B・J: {len(decisions)} decision(s) recorded, but the cards revealed "
                     f"call for {asked} (total {total}).", expected=asked,
                     actual=len(decisions))
        self.emit(op="reveal", player=player, cards=[f"{player}:{c}" for c in revealed])
        to = "graveyard" if total >= BJ_BUST else "hand"
        for card in revealed:
            if to == "hand":
                b.add_to_hand(card)
            else:
                b.graveyard.append(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to=to)
