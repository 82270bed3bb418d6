"""The steps of the actions standard and pro add to lite (both editions).

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
Each step changes the table and emits the primitive effects of spec/choices-beyond-lite.md
that a log's ``resolve.effects`` may claim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.games.blackpoker.board import Character
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    card_of,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step, step_mixin

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.request import Req


@step_mixin
class StandardSteps(Resolving):
    """Steps of 魔術士召喚, 帰還, 死の槍, 防壁補充, リアニメイト, ハンデス, リバース (standard) and
    クイック召喚, キル, 再会, 停戦, 対象変更 (pro)."""

    def _key_number(self, suit: str) -> int | None:
        """The number of the key card of ``suit`` (None when its face is not shown)."""
        for k in self.req.key_cards:
            c = parse_card(card_of(k))
            if c is not None and c.suit == suit:
                return c.rank
        return None

    # ------------------------------------------------------------------ 帰還
    @step("return_if_charged")
    def step_return_if_charged(self, step: dict[str, Any]) -> None:
        """帰還 1: the target returns to its owner's hand only if it is in charge state."""
        ch = self.target_char()
        if ch is None:
            return
        if ch.state != "charge":
            self.why.append(f"{ch.ref} is in drive state, so it stays on the field")
            return
        for card in ch.cards:
            self.emit(op="move", card=f"{ch.owner}:{card}", **{"from": "field"}, to="hand")
        self.triggers += self.rules._leave_field(ch, "hand")

    @step("keys_to_hand")
    def step_keys_to_hand(self, step: dict[str, Any]) -> None:
        """The key cards go back to the hand instead of the graveyard."""
        self.key_dest = "hand"

    # ------------------------------------------------------------------ 死の槍
    @step("death_lance")
    def step_death_lance(self, step: dict[str, Any]) -> None:
        """If the target's number (6.1) / size (9.0), as computed now (decision Q1
        extended), is not 0 and divisible by the ♢ key's number: the target's cards go on
        top of its owner's deck in the chosen order, then its owner takes the ♠ key's
        number in damage."""
        ch = self.target_char()
        if ch is None:
            return
        divisor = self._key_number(step["divisor_suit"])
        damage = self._key_number(step["damage_suit"])
        size = self.rules.size(ch)
        if size is None or divisor is None or damage is None:
            self.rep("log.hidden-info", "bp6.2", "死の槍: a number it reads is not shown; "
                     "whether the soldier returns to the deck cannot be checked.",
                     severity="warning")
            if not any(d.get("op") == "move" and d.get("to") == "deck" for d in self.claims):
                return
        elif size == 0 or size % divisor:
            self.why.append(f"{ch.ref}'s value {size} is "
                            + ("0" if size == 0 else f"not divisible by {divisor}")
                            + ", so 死の槍 does nothing")
            return
        order = self._order_of(ch)
        owner = ch.owner
        self.triggers += self.rules._leave_field(ch, "deck")
        b = self.rules.boards[owner]
        if b.deck is not None:
            b.deck[0:0] = order
        for card in order:
            self.emit(op="move", card=f"{owner}:{card}", **{"from": "field"}, to="deck",
                      position="top")
        self._damage(owner, damage or 0)

    def _order_of(self, ch: Character) -> list[str]:
        """The order (top first) the controller chose for a soldier of several cards."""
        if len(ch.cards) == 1:
            return list(ch.cards)
        raw = self.choices.get("order")
        if raw is None:
            self.rep("log.choice-missing", "bp6.2",
                     f"The order of {ch.ref}'s cards on the deck is not recorded; the order "
                     "on the field is assumed.", severity="warning")
            return list(ch.cards)
        chosen = [card_of(str(c)) for c in raw] if isinstance(raw, list) else []
        shown = [c for c in ch.cards if c != UNKNOWN]
        rest = list(chosen)
        for c in shown:
            if c in rest:
                rest.remove(c)
        if len(chosen) == len(ch.cards) and all(c in chosen for c in shown) and \
                len(rest) == len(ch.cards) - len(shown) and rest:
            self.hidden(f"A card of {ch.ref} is not shown: whether the order names each of "
                        "its cards once cannot be checked.")
            return chosen
        if sorted(chosen) != sorted(ch.cards):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"The order must name each card of {ch.ref} once: "
                     f"{', '.join(ch.cards)}.", expected=sorted(ch.cards), actual=raw)
            return list(ch.cards)
        return chosen

    # ------------------------------------------------------------------ 防壁補充
    @step("add_bulwark")
    def step_add_bulwark(self, step: dict[str, Any]) -> None:
        """The top card of the deck as a bulwark in charge state, or the top 2 in drive
        state (choice ``count``)."""
        player = self.req.controller
        count = self.choices.get("count")
        if count is None:
            self.rep("log.choice-missing", "bp6.2",
                     "防壁補充: whether 1 or 2 cards were put is not recorded; 1 is assumed.",
                     severity="warning")
            count = 1
        elif count not in (1, 2):
            self.rep("legality.choice-invalid", "bp6.2",
                     "防壁補充 puts 1 card (charge) or 2 cards (drive).", expected=[1, 2],
                     actual=count)
            count = 1
        state = "charge" if count == 1 else "drive"
        b = self.rules.boards[player]
        shown = self._claimed_enter_cards("bulwark")
        for i in range(count):
            top = b.pop_deck()
            if top is None:
                self.cut_short[("enter", player)] = count
                break
            claimed = shown[i] if i < len(shown) else UNKNOWN
            card = claimed if top == UNKNOWN else top
            ref = f"{player}:{card}"
            b.field.append(Character(ref, player, "bulwark", [card], [self.flow.turn],
                                     state=state, face_down=True, timestamp=self.rules.tick()))
            self.emit(op="enter", character=ref, **{"as": "bulwark"}, cards=[ref], state=state)

    # ------------------------------------------------------------------ リアニメイト
    @step("reanimate")
    def step_reanimate(self, step: dict[str, Any]) -> None:
        """The chosen card of the controller's graveyard enters as a soldier if the target
        could be moved to the graveyard."""
        player = self.req.controller
        b = self.rules.boards[player]
        card = self._graveyard_choice(player, "リアニメイト")
        ch = self.target_char()
        if ch is None:
            return
        self._destroy(ch)
        if ch in b.field:  # the table kept it: reported with the claims
            return
        if card is None:
            return
        b.graveyard.remove(card)
        kind = self.rules.character_for([card])
        ref = f"{player}:{card}"
        b.field.append(Character(ref, player, kind, [card], [self.flow.turn],
                                 timestamp=self.rules.tick()))
        self.emit(op="enter", character=ref, **{"as": kind}, cards=[ref])

    # ------------------------------------------------------------------ ハンデス
    @step("handes")
    def step_handes(self, step: dict[str, Any]) -> None:
        """The controller designates a card of the opponent's hand; it is discarded."""
        if not self.req.targets:
            return
        opponent = self.req.targets[0]
        b = self.rules.boards.get(opponent)
        if b is None:
            return
        raw = self.choices.get("card")
        if raw is None:
            if b.hand_count == 0:
                return
            self.rep("log.choice-missing", "bp6.2",
                     "ハンデス: the designated card is not recorded.", severity="warning")
            raw = f"{opponent}:{UNKNOWN}"
        parts = split_ref(str(raw))
        card = parts[1] if parts else str(raw)
        if (parts is not None and parts[0] != opponent) or not b.hand_may_hold(card):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{raw} is not in {opponent}'s hand.", actual=raw)
            return
        b.take_from_hand(card)
        b.graveyard.append(card)
        self.emit(op="discard", player=opponent, cards=[f"{opponent}:{card}"])
        self.triggers += self.rules.discarded(opponent, 1, self.req.id)

    # ------------------------------------------------------------------ クイック召喚
    @step("quick_summon")
    def step_quick_summon(self, step: dict[str, Any]) -> None:
        """The key card (an A) enters as an ace face up, or as a bulwark face down, in
        charge state (choice ``as``)."""
        player = self.req.controller
        as_ = self.choices.get("as")
        if as_ not in ("ace", "bulwark"):
            if as_ is None:
                self.rep("log.choice-missing", "bp6.2",
                         "クイック召喚: ace or bulwark is not recorded; ace is assumed.",
                         severity="warning")
            else:
                self.rep("legality.choice-invalid", "bp6.2",
                         "クイック召喚 puts its key card as an ace or as a bulwark.",
                         expected=["ace", "bulwark"], actual=as_)
            as_ = "ace"
        cards = [card_of(k) for k in self.req.key_cards]
        if not cards:
            return
        ref = f"{player}:{cards[0]}"
        self.rules.boards[player].field.append(Character(
            ref, player, as_, cards, [self.flow.turn] * len(cards),
            face_down=as_ == "bulwark", timestamp=self.rules.tick()))
        self.key_dest = "field"
        self.emit(op="enter", character=ref, **{"as": as_}, cards=list(self.req.key_cards))

    # ------------------------------------------------------------------ 再会
    @step("reunion")
    def step_reunion(self, step: dict[str, Any]) -> None:
        """A card chosen in the controller's graveyard is shown and goes to the hand."""
        player = self.req.controller
        card = self._graveyard_choice(player, "再会")
        if card is None:
            return
        b = self.rules.boards[player]
        b.graveyard.remove(card)
        b.add_to_hand(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "graveyard"}, to="hand")

    # ------------------------------------------------------------------ 停戦
    @step("negate_target")
    def step_negate_target(self, step: dict[str, Any]) -> None:
        """The targeted request (a Damage Judgement) is negated: it leaves the stage at
        once and its key cards go to the graveyard (docs/decisions.md, 停戦)."""
        if self.req.targets:
            self._negate_request(self.req.targets[0])

    # ------------------------------------------------------------------ 対象変更
    @step("change_target")
    def step_change_target(self, step: dict[str, Any]) -> None:
        """The targeted request's target becomes the chosen one, which must be a target its
        action could take (it may be this request itself)."""
        target = self.flow.requests.get(self.req.targets[0]) if self.req.targets else None
        if target is None or not target.targets:
            return
        new = self.choices.get("target")
        if new is None:
            self.rep("log.choice-missing", "bp6.2",
                     "対象変更: the new target is not recorded; the target is unchanged.",
                     severity="warning")
            return
        spec = target.action.data.get("target")
        keys = [card_of(k) for k in target.key_cards]
        if str(new) == target.targets[0]:
            # The same target: no change. Allowed only when the action can take no other
            # target (the effect does what it can: nothing; docs/decisions.md, 対象変更).
            other = next((t for t in self._target_candidates()
                          if t != new and self._target_why(spec, t, target, keys) is None),
                         None)
            if other is not None:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"対象変更 changes the target of {target.id}: {other} could be its "
                         f"target, so it cannot stay {new}.", actual=new, expected=other)
            return
        why = self._target_why(spec, str(new), target, keys)
        if why is not None:
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{new} cannot be the target of {target.id} ({target.action.name}): "
                     f"{why}.", actual=new)
            return
        self.emit(op="change_target", request=target.id, target=str(new))
        if not self.planning:
            target.targets[0] = str(new)
            if spec is not None and spec.get("kind") not in ("player", "request"):
                self.rules.mark_target(target)

    def _target_why(self, spec: dict[str, Any] | None, new: str, target: Req,
                    keys: list[str]) -> str | None:
        """Why ``new`` cannot be ``target``'s target (None: it can)."""
        if new == self.req.id:  # this request itself: allowed where a request may be
            return None if spec is not None and spec.get("kind") == "request" else \
                "that action does not target a request"
        return None if spec is None else self.rules._target_problem(
            self.flow, spec, new, target.controller, keys, target.id)

    def _target_candidates(self) -> list[str]:
        """Everything a target may name: the characters on the field, the requests on
        the stage (this one included) and the players."""
        fields = [ch.ref for b in self.rules.boards.values() for ch in b.field]
        return fields + [r.id for r in self.flow.stage] + [self.req.id] + list(self.flow.players)

    # ------------------------------------------------------------------ リバース
    @step("reverse")
    def step_reverse(self, step: dict[str, Any]) -> None:
        """Optionally charge or drive the target (choice ``state``); a soldier becomes one
        face-down bulwark per card, a bulwark a soldier (entered this turn if the bulwark
        did); abilities it received end. 9.0 (``clear_designation``): it is no longer an
        attacker or blocker."""
        ch = self.target_char()
        if ch is None:
            return
        state = self.choices.get("state")
        if state in ("charge", "drive"):
            ch.state = state
            self.emit(op=state, character=ch.ref)
        elif state is not None:
            self.rep("legality.choice-invalid", "bp6.2",
                     "リバース may put the target into charge or drive state, or leave it.",
                     expected=["charge", "drive", None], actual=state)
        board = self.rules.boards[ch.owner]
        self.rules.end_abilities("end_of_turn", character=ch.ref)
        at = board.field.index(ch) if ch in board.field else len(board.field)
        if self.rules.data["characters"][ch.kind]["kind"] == "soldier":
            board.field.remove(ch)
            made = [Character(f"{ch.owner}:{card}", ch.owner, "bulwark", [card], [entered],
                              state=ch.state, face_down=True, timestamp=self.rules.tick())
                    for card, entered in zip(ch.cards, ch.entered, strict=False)]
            board.field[at:at] = made
            self.emit(op="transform", character=ch.ref, to="bulwark",
                      cards=[f"{ch.owner}:{c}" for c in ch.cards])
        else:
            self.bulwark_to_soldier(ch)
        if step.get("clear_designation"):
            self._clear_designation(ch)
