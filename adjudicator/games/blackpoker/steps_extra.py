"""The steps of 6.1 extra: trump operations and the trump actions.

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
Trump effects are recorded with the ops of spec/choices-beyond-lite.md: ``flip`` {card,
face} turns a trump, ``move`` {card, from: ``trump``, to} takes one away. Every number a
trump action reads is the printed number (their texts say 数字; the trump characters'
numbers are fixed), except where the text says otherwise.
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.game import TriggerSpec
from coreflow_judge.adjudicator.games.blackpoker.abilities import Ability
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard, Trump
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    card_of,
    number,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step, step_mixin


def strategist_may_negate(x: int | None, key_cards: list[str]) -> bool:
    """策士召喚 1: a request it may negate has two key cards, or one whose number is at
    most ``x`` (the summon's own key card's number)."""
    if len(key_cards) == 2:
        return True
    return len(key_cards) == 1 and x is not None and (number(card_of(key_cards[0])) or 99) <= x


@step_mixin
class ExtraSteps(Resolving):
    """Steps of the trump operations (オープン, クローズ, 切札破壊, 切札再生) and the trump
    actions of the 6.1 extra list."""

    # ------------------------------------------------------------------ helpers
    def _soldier(self, ch: Character) -> bool:
        return bool(self.rules.data["characters"][ch.kind]["kind"] == "soldier")

    def _number(self, ch: Character) -> int | None:
        """The printed number of a character (a trump character's fixed number)."""
        return self.rules.printed_size(ch)

    def _flip(self, owner: str, trump: Trump, up: bool) -> None:
        self._turn_trump(owner, trump, up)
        self.emit(op="flip", card=f"{owner}:{trump.card}", face="up" if up else "down")

    def _measure(self, step: dict[str, Any]) -> tuple[Any, str]:
        """What a step compares: the printed number (6.1 texts say 数字) or, where the step
        says ``measure: size`` (9.0 texts say サイズ), the size after abilities."""
        if step.get("measure") == "size":
            return self.rules.size, "size"
        return self._number, "number"

    def _own_trump(self, player: str, card: str) -> Trump | None:
        return next((t for t in self.rules.boards[player].trumps if t.card == card), None)

    def _choice_ref(self, name: str, what: str, possible: bool = True) -> str | None:
        """The choice ``name`` as a reference; None where the log leaves it out: a
        ``log.choice-missing`` warning when something could be chosen (``possible``),
        nothing where nothing could (the step does what it can)."""
        raw = self.choices.get(name)
        if raw is None:
            if possible:
                self.rep("log.choice-missing", "bp6.2", f"{self.req.action.name}: {what} is "
                         "not recorded.", severity="warning")
            else:
                self.why.append(f"nothing could be chosen as {what}")
            return None
        return str(raw)

    def _discard(self, player: str, cards: list[str]) -> None:
        """``player`` discards ``cards`` from the hand (暴動 listens)."""
        b = self.rules.boards[player]
        for card in cards:
            b.take_from_hand(card)
            b.graveyard.append(card)
        if cards:
            self.emit(op="discard", player=player, cards=[f"{player}:{c}" for c in cards])
            self.triggers += self.rules.discarded(player, len(cards), self.req.id)

    def _to_deck(self, ch: Character, order: list[str], position: str) -> None:
        """A character's cards go onto its owner's deck (top first in ``order``)."""
        owner = ch.owner
        self.triggers += self.rules._leave_field(ch, "deck")
        b = self.rules.boards[owner]
        if b.deck is not None:
            if position == "top":
                b.deck[0:0] = order
            else:
                b.deck.extend(order)
        for card in order:
            self.emit(op="move", card=f"{owner}:{card}", **{"from": "field"}, to="deck",
                      position=position)

    def _new_character(self, player: str, cards: list[str], kind: str,
                       state: str = "charge", face_down: bool = False) -> Character:
        ref = f"{player}:{cards[0]}"
        ch = Character(ref, player, kind, list(cards), [self.flow.turn] * len(cards),
                       state=state, face_down=face_down, timestamp=self.rules.tick())
        self.rules.boards[player].field.append(ch)
        return ch

    def _from_deck_top(self, player: str, n: int, op: str) -> list[str]:
        """The top ``n`` cards of the deck taken off (faces from the log's ``op`` claims
        where the engine has not seen them)."""
        b = self.rules.boards[player]
        shown = self._claimed_enter_cards("bulwark") if op == "enter" else [
            card_of(c) for c in self._claimed_cards("reveal", player) or []]
        out = []
        for i in range(n):
            top = b.pop_deck()
            if top is None:
                break
            out.append(shown[i] if top == UNKNOWN and i < len(shown) else top)
        return out

    # ------------------------------------------------------------------ trump operations
    @step("open_trump")
    def step_open_trump(self, step: dict[str, Any]) -> None:
        """オープン: one of the controller's face-down trumps (choice ``trump``) is turned
        face up, its ability in force."""
        player = self.req.controller
        closed = [t for t in self.rules.boards[player].trumps
                  if not t.face_up and t.closed_turn == self.flow.turn]
        down = [t for t in self.rules.boards[player].trumps if not t.face_up and t not in closed]
        raw = self.choices.get("trump")
        trump: Trump | None
        if raw is None:
            if len(down) != 1:
                if down:
                    self.rep("log.choice-missing", "bp6.2", "オープン: which trump was turned "
                             "face up is not recorded.", severity="warning")
                else:
                    self.why.append(f"{player} has no face-down trump to open")
                return
            trump = down[0]
        else:
            parts = split_ref(str(raw))
            card = parts[1] if parts else str(raw)
            trump = next((t for t in down if t.card == card), None) or next(
                (t for t in down if t.card == UNKNOWN), None)
            if (parts is not None and parts[0] != player) or trump is None:
                shut = any(t.card == card for t in closed)
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{raw} was closed this turn: it cannot turn face up before the turn "
                         "ends." if shut else f"{raw} is not a face-down trump of {player}.",
                         actual=raw)
                return
            if trump.card == UNKNOWN and parse_card(card) is not None:
                trump.card = card  # the face the log now shows
        self._flip(player, trump, True)

    @step("close_trump")
    def step_close_trump(self, step: dict[str, Any]) -> None:
        """クローズ: the target trump turns face down if it is face up and of the key cards'
        suit."""
        found = self.rules.find_trump(self.req.targets[0]) if self.req.targets else None
        if found is None:
            return
        owner, trump = found
        faces = [parse_card(card_of(k)) for k in self.req.key_cards]
        suits = {c.suit for c in faces if c}
        card = parse_card(trump.card)
        if trump.face_up and (card is None or not card.known
                              or any(c is None or not c.known for c in faces)):
            self.hidden(f"クローズ: a face it compares ({owner}'s trump or a key card) is not "
                        "shown: whether they share a suit cannot be checked.")
            if any(e.get("op") == "flip" and e.get("face") == "down" for e in self.claims):
                self._flip(owner, trump, False)
            return
        if not trump.face_up:
            self.why.append(f"{owner}'s trump is face down already")
        elif card is None or card.suit not in suits:
            self.why.append(f"{owner}:{trump.card} is not of the key cards' suit")
        else:
            self._flip(owner, trump, False)

    @step("close_trump_for_turn")
    def step_close_trump_for_turn(self, step: dict[str, Any]) -> None:
        """9.0 クローズ: the target face-up trump (any suit) turns face down and cannot turn
        face up again this turn; the key card marks it in the fog (``key_to_fog``)."""
        found = self.rules.find_trump(self.req.targets[0]) if self.req.targets else None
        if found is None:
            return
        owner, trump = found
        if not trump.face_up:
            self.why.append(f"{owner}'s trump is face down already")
            return
        self._flip(owner, trump, False)
        trump.closed_turn = self.flow.turn

    @step("destroy_trump")
    def step_destroy_trump(self, step: dict[str, Any]) -> None:
        """切札破壊: the target trump goes to its owner's graveyard if it is face up with the
        key card's suit and number."""
        found = self.rules.find_trump(self.req.targets[0]) if self.req.targets else None
        if found is None or not self.req.key_cards:
            return
        owner, trump = found
        key = card_of(self.req.key_cards[0])
        if trump.face_up and UNKNOWN in (trump.card, key):
            self.hidden("切札破壊: the trump's or the key card's face is not shown: whether "
                        "they are the same card cannot be checked.")
            if not any(e.get("op") == "move" and e.get("from") == "trump" for e in self.claims):
                return
            shown = next(card_of(str(e.get("card"))) for e in self.claims
                         if e.get("op") == "move" and e.get("from") == "trump")
            trump.card = shown if trump.card == UNKNOWN else trump.card
        elif not trump.face_up or trump.card != key:
            self.why.append(f"{owner}'s trump is " + ("face down" if not trump.face_up else
                            f"{trump.card}, not the key card {key}"))
            return
        self.rules.boards[owner].trumps.remove(trump)
        self.rules.boards[owner].graveyard.append(trump.card)
        self.emit(op="move", card=f"{owner}:{trump.card}", **{"from": "trump"},
                  to="graveyard")

    @step("regenerate_trump")
    def step_regenerate_trump(self, step: dict[str, Any]) -> None:
        """切札再生: the J its trump character named comes back from the hand or the
        graveyard as a face-up trump of the controller."""
        if not self.req.targets:
            return
        player = self.req.controller
        card = card_of(self.req.targets[0])
        b = self.rules.boards[player]
        if card in b.graveyard:
            b.graveyard.remove(card)
            where = "graveyard"
        elif b.hand_known[card] > 0:
            b.take_from_hand(card)
            where = "hand"
        elif b.hand_may_hold(card) or UNKNOWN in b.graveyard:
            # Among the cards the log has not shown: taken from where the table took it.
            claimed = next((str(e.get("from")) for e in self.claims if e.get("op") == "move"
                            and card_of(str(e.get("card", ""))) == card
                            and e.get("to") == "trump"), None)
            where = claimed if claimed in ("hand", "graveyard") else (
                "hand" if b.hand_may_hold(card) else "graveyard")
            self.hidden(f"{card} is not among the cards of {player}'s hand and graveyard the "
                        f"log shows: whether it was there cannot be checked; taken from the "
                        f"{where}.")
            if where == "hand":
                b.take_from_hand(card)
            elif UNKNOWN in b.graveyard:
                b.graveyard.remove(UNKNOWN)
        else:
            self.why.append(f"{card} is in neither {player}'s hand nor graveyard")
            return
        trump = Trump(card)
        b.trumps.append(trump)
        self.emit(op="move", card=f"{player}:{card}", **{"from": where}, to="trump")
        self._flip(player, trump, True)

    # ------------------------------------------------------------------ ♠
    @step("slash")
    def step_slash(self, step: dict[str, Any]) -> None:
        """スラッシュ: the target soldier goes to the graveyard if its number is at most the
        number of the soldier that started the action."""
        ch = self.target_char()
        value, what = self._measure(step)
        mine = self.req.data.get(f"originator_{what}")
        if ch is None:
            return
        theirs = value(ch)
        if mine is None or theirs is None:
            self.rep("log.hidden-info", "bp6.2", f"スラッシュ: a {what} it compares is not "
                     "shown.", severity="warning")
            return
        if theirs > mine:
            self.why.append(f"{ch.ref}'s {what} {theirs} is above {mine}")
            return
        self._destroy(ch)

    @step("drain")
    def step_drain(self, step: dict[str, Any]) -> None:
        """ドレイン: one of the controller's characters (choice ``character``) goes to the
        bottom of the deck; if it did, the target takes 2 damage."""
        player = self.req.controller
        ref = self._choice_ref("character", "the character sent to the deck bottom",
                               bool(self.rules.boards[player].field))
        ch = self.rules.find(ref) if ref else None
        if ref is not None and (ch is None or ch.owner != player):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{ref} is not a character of {player}.", actual=ref)
            ch = None
        if ch is None:
            if ref is None and self.rules.boards[player].field:
                return
            self.why.append(f"{player} moved no character, so no damage")
            return
        self._to_deck(ch, list(ch.cards), "bottom")
        if self.req.targets:
            self._damage(self.req.targets[0], int(step["amount"]))

    @step("destroy_soldiers_up_to")
    def step_destroy_soldiers_up_to(self, step: dict[str, Any]) -> None:
        """威圧: every soldier (both players') whose number is at most ``number``."""
        value, what = self._measure(step)
        self._destroy_soldiers_at_most(int(step["number"]), value, what)

    @step("resurrection")
    def step_resurrection(self, step: dict[str, Any]) -> None:
        """蘇生: the card chosen in the controller's graveyard (choice ``card``), one that
        meets the step's ``card`` pattern (♠2-10), enters as a soldier in charge state."""
        player = self.req.controller
        card = self._graveyard_choice(player, "蘇生")
        if card is None:
            return
        if not self.rules.card_fits(card, step["card"]):
            self.rep("legality.choice-invalid", "bp6.2", f"蘇生 takes a "
                     f"{self.rules._pattern_text([step['card']])}; {card} is not.", actual=card)
            return
        self.rules.boards[player].graveyard.remove(card)
        ch = self._new_character(player, [card], self.rules.character_for([card]))
        self.emit(op="enter", character=ch.ref, **{"as": ch.kind}, cards=[ch.ref])

    @step("instant_kill")
    def step_instant_kill(self, step: dict[str, Any]) -> None:
        """瞬殺: the controller sends one or more own soldiers (choice ``soldiers``) to the
        graveyard; if their numbers add up to the target's number or more, the target goes
        too."""
        player = self.req.controller
        raw = self.choices.get("soldiers")
        if not any(self._soldier(ch) for ch in self.rules.boards[player].field) and not raw:
            self.why.append(f"{player} has no soldier to send: nothing happens")
            return  # nothing could be chosen (nor recorded)
        if raw is None:
            self.rep("log.choice-missing", "bp6.2", "瞬殺: the own soldiers sent to the "
                     "graveyard (one or more) are not recorded.", severity="warning")
            return
        if not isinstance(raw, list) or not raw:
            self.rep("legality.choice-invalid", "bp6.2", "瞬殺 sends one or more own soldiers "
                     "to the graveyard; the log sends none.", actual=raw)
            return
        chosen: list[Character] = []
        for ref in raw:
            ch = self.rules.find(str(ref))
            if ch is None or ch.owner != player or not self._soldier(ch) or ch in chosen:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{ref} is not a soldier of {player} on the field.", actual=ref)
                continue
            chosen.append(ch)
        target = self.target_char()
        value, what = self._measure(step)
        want = value(target) if target is not None else None
        numbers = [value(ch) for ch in chosen]
        for ch in chosen:
            self._destroy(ch)
        if target is None or not chosen:
            return
        if want is None or any(n is None for n in numbers):
            self.rep("log.hidden-info", "bp6.2", f"瞬殺: a {what} it adds is not shown.",
                     severity="warning")
            return
        total = sum(n for n in numbers if n is not None)
        if total < want:
            self.why.append(f"the soldiers sent add up to {total}, below {target.ref}'s {want}")
            return
        self._destroy(target)

    # ------------------------------------------------------------------ trump summons
    def _trump_up(self, step: dict[str, Any]) -> Trump | None:
        """The trump a summon needs, if it is face up among the controller's trumps."""
        trump = self._own_trump(self.req.controller, step["trump"])
        if trump is None or not trump.face_up:
            self.why.append(f"the trump {step['trump']} is not face up among "
                            f"{self.req.controller}'s trumps, so nothing happens")
            return None
        return trump

    @step("reanimator_soldier")
    def step_reanimator_soldier(self, step: dict[str, Any]) -> None:
        """リアニメーター召喚 1: a card of a graveyard (choice ``card``, its ref naming whose)
        enters the controller's field as a soldier, face up, in charge state."""
        trump = self._own_trump(self.req.controller, "S11")
        if trump is None or not trump.face_up:
            return
        ref = self._choice_ref("card", "the graveyard card put as a soldier",
                               any(b.graveyard for b in self.rules.boards.values()))
        if ref is None:
            return
        parts = split_ref(ref)
        if parts is None or parts[0] not in self.rules.boards or not self.among(
                parts[1], self.rules.boards[parts[0]].graveyard,
                f"cards of {parts[0]}'s graveyard"):
            self.rep("legality.choice-invalid", "bp6.2", f"{ref} is not in a graveyard.",
                     actual=ref)
            return
        owner, card = parts
        self.rules.boards[owner].graveyard.remove(card)
        player = self.req.controller
        ch = self._new_character(player, [card], self.rules.character_for([card]))
        self.emit(op="enter", character=ch.ref, **{"as": ch.kind}, cards=[ref])

    @step("enter_with_trump")
    def step_enter_with_trump(self, step: dict[str, Any]) -> None:
        """The key card and the face-up trump together enter as the trump's character, in
        charge state (リアニメーター, チャリオット, 策士, 騎士)."""
        trump = self._trump_up(step)
        if trump is None or not self.req.key_cards:
            return
        player = self.req.controller
        self.rules.boards[player].trumps.remove(trump)
        key = card_of(self.req.key_cards[0])
        ch = self._new_character(player, [key, trump.card], step["as"])
        self.key_dest = "field"
        self.emit(op="enter", character=ch.ref, **{"as": step["as"]},
                  cards=[f"{player}:{key}", f"{player}:{trump.card}"])

    @step("summon_royal")
    def step_summon_royal(self, step: dict[str, Any]) -> None:
        """魔王召喚 / 巨人召喚: with the trump face up, find its partner K (the key card, the
        hand, the deck, the graveyard, the trumps). Found: every soldier (魔王) or every
        bulwark (巨人) goes to the graveyard and the two Ks enter as the character; not
        found: the trump goes to the graveyard. Then the deck is shuffled. With
        ``clear_first`` (9.0) the soldiers or bulwarks go first, found or not, and the
        search comes after (a partner they took to the graveyard is found there)."""
        player = self.req.controller
        b = self.rules.boards[player]
        trump = self._trump_up(step)
        if trump is None:
            return
        partner = step["partner"]
        if step.get("clear_first"):
            self._clear_kind(step["clears"])
        where = self._find_partner(b, partner)
        if where is None:
            b.trumps.remove(trump)
            b.graveyard.append(trump.card)
            self.emit(op="move", card=f"{player}:{trump.card}", **{"from": "trump"},
                      to="graveyard")
            self.why.append(f"{partner} was not found")
        else:
            if not step.get("clear_first"):
                self._clear_kind(step["clears"])
            b.trumps.remove(trump)
            self._take_partner(b, partner, where)
            ch = self._new_character(player, [trump.card, partner], step["as"])
            self.emit(op="enter", character=ch.ref, **{"as": step["as"]},
                      cards=[f"{player}:{trump.card}", f"{player}:{partner}"])
        self._shuffle(player)

    def _clear_kind(self, kind: str) -> None:
        """Every character of ``kind`` (soldier, bulwark), both players', to the graveyard."""
        doomed = [ch for p in self.flow.players for ch in self.rules.boards[p].field
                  if self.rules.data["characters"][ch.kind]["kind"] == kind]
        for ch in doomed:
            self._destroy(ch)

    def _find_partner(self, b: PlayerBoard, card: str) -> str | None:
        if card in [card_of(k) for k in self.req.key_cards]:
            return "key"
        if b.hand_known[card] > 0:
            return "hand"
        if card in b.graveyard:
            return "graveyard"
        if any(t.card == card for t in b.trumps):
            return "trump"
        if b.deck is not None and card in b.deck:
            return "deck"
        hidden = b.deck is None or UNKNOWN in b.deck or (b.hand_unknown or 0) > 0 or \
            b.hand_unknown is None
        if not hidden:
            return None
        claimed = any(card_of(str(c)) == card for d in self.claims if d.get("op") == "enter"
                      for c in d.get("cards") or [])
        if not claimed:
            if self.line.effects is None:
                self.rep("log.hidden-info", "bp6.2", f"Whether {card} was found cannot be "
                         "checked: the log does not show the hidden cards, nor the effects.",
                         severity="warning")
            return None
        return "hand" if b.hand_may_hold(card) else "deck"

    def _take_partner(self, b: PlayerBoard, card: str, where: str) -> None:
        if where == "key":
            self.key_dest = "field"  # the key card is the partner: it enters
        elif where == "hand":
            b.take_from_hand(card)
        elif where == "graveyard":
            b.graveyard.remove(card)
        elif where == "trump":
            b.trumps = [t for t in b.trumps if t.card != card]
        elif b.deck is not None:
            b.deck.remove(card if card in b.deck else UNKNOWN)

    # ------------------------------------------------------------------ ♡
    @step("reinforcement")
    def step_reinforcement(self, step: dict[str, Any]) -> None:
        """援軍: the top 2 cards are revealed; one (choice ``soldier``) enters as a soldier
        in charge state, the other goes to the deck bottom."""
        player = self.req.controller
        b = self.rules.boards[player]
        revealed = self._from_deck_top(player, 2, "reveal")
        self.emit(op="reveal", player=player, cards=[f"{player}:{c}" for c in revealed])
        if not revealed:
            return
        raw = self.choices.get("soldier")
        card = card_of(str(raw)) if raw is not None else revealed[0]
        if raw is None and len(revealed) > 1:
            self.rep("log.choice-missing", "bp6.2", "援軍: which revealed card became the "
                     "soldier is not recorded; the first is assumed.", severity="warning")
        elif not self.among(card, revealed, "revealed cards"):
            self.rep("legality.choice-invalid", "bp6.2", f"{raw} is not one of the revealed "
                     f"cards {', '.join(revealed)}.", actual=raw)
            card = revealed[0]
        rest = list(revealed)
        rest.remove(card)
        ch = self._new_character(player, [card], self.rules.character_for([card]))
        self.emit(op="enter", character=ch.ref, **{"as": ch.kind}, cards=[ch.ref])
        for c in rest:
            if b.deck is not None:
                b.deck.append(c)
            self.emit(op="move", card=f"{player}:{c}", **{"from": "deck"}, to="deck",
                      position="bottom")

    @step("encourage")
    def step_encourage(self, step: dict[str, Any]) -> None:
        """激励: the target soldier gets + the originating soldier's number until the end of
        the turn."""
        ch = self.target_char()
        n = self.req.data.get("originator_number")
        if ch is None or n is None:
            return
        self.rules.grant(Ability(
            name=self.req.action.name, source=f"{self.req.id}, {self.req.data['originator']}",
            owner=self.req.controller, scope="this", timestamp=self.rules.tick(), stat="size",
            op="add", amount=int(n), character=ch.ref, until="end_of_turn"))
        self.emit(op="size", character=ch.ref, delta=int(n), until="end_of_turn")

    @step("return_target_to_hand")
    def step_return_target_to_hand(self, step: dict[str, Any]) -> None:
        """誘惑: the target soldier returns to its owner's hand (all its cards)."""
        ch = self.target_char()
        if ch is None:
            return
        for card in ch.cards:
            self.emit(op="move", card=f"{ch.owner}:{card}", **{"from": "field"}, to="hand")
        self.triggers += self.rules._leave_field(ch, "hand")

    @step("turn_down_trump")
    def step_turn_down_trump(self, step: dict[str, Any]) -> None:
        """追撃 3: the controller's ``trump`` turns face down (if it is face up)."""
        player = self.req.controller
        trump = self._own_trump(player, step["trump"])
        if trump is None or not trump.face_up:
            self.why.append(f"{step['trump']} is not face up among {player}'s trumps")
            return
        self._flip(player, trump, False)

    @step("key_unit_to_soldier")
    def step_key_unit_to_soldier(self, step: dict[str, Any]) -> None:
        """ファントムリバース: the bulwark driven to start it (its key unit) becomes a
        soldier, face up, in charge state; abilities it received end."""
        ch = self.rules.find(str(self.req.data.get("originator", "")))
        if ch is None or ch.kind != "bulwark":
            self.why.append("the key unit is no longer a bulwark on the field")
            return
        self.rules.end_abilities("end_of_turn", character=ch.ref)
        self.bulwark_to_soldier(ch)
        if ch.state != "charge":
            ch.state = "charge"
            self.emit(op="charge", character=ch.ref)

    @step("armistice")
    def step_armistice(self, step: dict[str, Any]) -> None:
        """休戦: the targeted Attack has no effect (it leaves the stage, as 停戦's target:
        docs/decisions.md), the controller's ♡4 trump turns face down, and every character
        of the controller is put into charge state."""
        if self.req.targets:
            self._negate_request(self.req.targets[0])
        player = self.req.controller
        trump = self._own_trump(player, step["trump"])
        if trump is not None and trump.face_up:
            self._flip(player, trump, False)
        self._charge(player, None)

    @step("charge_own")
    def step_charge_own(self, step: dict[str, Any]) -> None:
        """Every own soldier (``kind: soldier``: 追撃, 休息) or character (充足) is put into
        charge state."""
        self._charge(self.req.controller, step.get("kind"))

    @step("start_action")
    def step_start_action(self, step: dict[str, Any]) -> None:
        """ファントム: start ``action`` without its cost, with this request's target and the
        virtual key cards; then the chance passes."""
        player = self.req.controller
        self.triggers.append(TriggerSpec(
            step["action"], self.req.id, player, targets=tuple(self.req.targets),
            key_cards=tuple(f"{player}:{k}" for k in step.get("virtual_keys", ())),
            facts={"virtual_keys": True} if step.get("virtual_keys") else {}))
        self.pass_chance = bool(step.get("passes_chance"))

    @step("illusion")
    def step_illusion(self, step: dict[str, Any]) -> None:
        """幻影: any own soldiers (choice ``soldiers``) become bulwarks in charge state, one
        per card; then the own bulwarks may be put in any order (``bulwark_order``)."""
        player = self.req.controller
        board = self.rules.boards[player]
        raw = self.choices.get("soldiers")
        if raw is None and any(self._soldier(ch) for ch in board.field):
            self.rep("log.choice-missing", "bp6.2", "幻影: which own soldiers became bulwarks "
                     "is not recorded ([] for none); none is assumed.", severity="warning")
        elif raw is not None and not isinstance(raw, list):
            self.rep("legality.choice-invalid", "bp6.2", "幻影's soldiers list own soldiers "
                     "([] for none).", actual=raw)
        for ref in raw if isinstance(raw, list) else []:
            ch = self.rules.find(str(ref))
            if ch is None or ch.owner != player or not self._soldier(ch):
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{ref} is not a soldier of {player}.", actual=ref)
                continue
            self.rules.end_abilities("end_of_turn", character=ch.ref)
            at = board.field.index(ch)
            board.field.remove(ch)
            board.field[at:at] = [
                Character(f"{player}:{card}", player, "bulwark", [card], [entered],
                          state="charge", face_down=True, timestamp=self.rules.tick())
                for card, entered in zip(ch.cards, ch.entered, strict=False)]
            self.emit(op="transform", character=ch.ref, to="bulwark",
                      cards=[f"{player}:{c}" for c in ch.cards])
        order = self.choices.get("bulwark_order")  # left out or []: the order is kept
        if isinstance(order, list) and order:
            walls = [ch for ch in board.field if ch.kind == "bulwark"]
            by_ref = {ch.ref: ch for ch in walls}
            wanted = [by_ref.get(str(r)) for r in order]
            if sorted(str(r) for r in order) != sorted(by_ref) or None in wanted:
                self.rep("legality.choice-invalid", "bp6.2", "幻影: the bulwark order must "
                         f"name each bulwark of {player} once.", expected=sorted(by_ref),
                         actual=order)
                return
            others = [ch for ch in board.field if ch.kind != "bulwark"]
            board.field = [ch for ch in wanted if ch is not None] + others

    @step("salvation")
    def step_salvation(self, step: dict[str, Any]) -> None:
        """救済: every soldier whose number is at least the key card's goes onto its owner's
        deck top, in the order its owner chooses (choice ``order``: player -> cards, top
        first)."""
        key = number(card_of(self.req.key_cards[0])) if self.req.key_cards else None
        if key is None:
            self.rep("log.hidden-info", "bp6.2", "救済: the key card is not shown.",
                     severity="warning")
            return
        raw = self.choices.get("order")
        orders = raw if isinstance(raw, dict) else {}
        for p in self.flow.players:
            doomed = []
            for ch in self.rules.boards[p].field:
                if not self._soldier(ch):
                    continue
                n = self._number(ch)
                if n is None:
                    self.hidden(f"救済: {ch.ref}'s number is not shown: whether it is {key} or "
                                "more cannot be checked.")
                    if self.claimed_gone(ch):
                        doomed.append(ch)  # the table moved it
                elif n >= key:
                    doomed.append(ch)
            if not doomed:
                continue
            cards = [c for ch in doomed for c in ch.cards]
            given = orders.get(p)
            chosen = [card_of(str(c)) for c in given] if isinstance(given, list) else []
            if len(cards) > 1 and given is None:
                self.rep("log.choice-missing", "bp6.2", f"救済: the order {p} put the "
                         "soldiers on the deck in is not recorded; field order assumed.",
                         severity="warning")
                chosen = cards
            elif len(cards) > 1 and sorted(chosen) != sorted(cards):
                self.rep("legality.choice-invalid", "bp6.2", f"救済: {p}'s order must name "
                         f"each card once: {', '.join(cards)}.", expected=sorted(cards),
                         actual=orders.get(p))
                chosen = cards
            elif len(cards) == 1:
                chosen = cards
            b = self.rules.boards[p]
            for ch in doomed:
                self.triggers += self.rules._leave_field(ch, "deck")
            if b.deck is not None:
                b.deck[0:0] = chosen
            for card in chosen:
                self.emit(op="move", card=f"{p}:{card}", **{"from": "field"}, to="deck",
                          position="top")

    @step("chariot_bulwark")
    def step_chariot_bulwark(self, step: dict[str, Any]) -> None:
        """チャリオット召喚 1: a bulwark (either player's; choice ``bulwark``) goes to the
        graveyard."""
        trump = self._own_trump(self.req.controller, "H11")
        if trump is None or not trump.face_up:
            return
        ref = self._choice_ref("bulwark", "the bulwark sent to the graveyard", any(
            ch.kind == "bulwark" for p in self.flow.players for ch in self.rules.boards[p].field))
        if ref is None:
            return
        ch = self.rules.find(ref)
        if ch is None or ch.kind != "bulwark":
            self.rep("legality.choice-invalid", "bp6.2", f"{ref} is not a bulwark.",
                     actual=ref)
            return
        self._destroy(ch)

    # ------------------------------------------------------------------ ♢
    @step("bulwark_addition")
    def step_bulwark_addition(self, step: dict[str, Any]) -> None:
        """防壁追加: if the opponent has at least as many bulwarks as the controller (6.1;
        ``compare: false``, 9.0: always), the top card of the deck enters face down as a
        bulwark in charge state."""
        player = self.req.controller
        opp = self.flow.next_player(player)
        mine = sum(ch.kind == "bulwark" for ch in self.rules.boards[player].field)
        theirs = sum(ch.kind == "bulwark" for ch in self.rules.boards[opp].field)
        if step.get("compare", True) and theirs < mine:  # 9.0 compares nothing
            self.why.append(f"{opp} has {theirs} bulwark(s), fewer than {player}'s {mine}")
            return
        got = self._from_deck_top(player, 1, "enter")
        if not got:
            return
        ch = self._new_character(player, got, "bulwark", face_down=True)
        self.emit(op="enter", character=ch.ref, **{"as": "bulwark"}, cards=[ch.ref],
                  state="charge")

    @step("drive_target")
    def step_drive_target(self, step: dict[str, Any]) -> None:
        """交渉: the target character is driven."""
        ch = self.target_char()
        if ch is not None and ch.state != "drive":
            ch.state = "drive"
            self.emit(op="drive", character=ch.ref)

    @step("offset")
    def step_offset(self, step: dict[str, Any]) -> None:
        """相殺: if the targeted request's key cards add up to ``threshold`` or more, the
        controller takes that much damage and the request leaves the stage, its key cards
        to the graveyard."""
        target = self.flow.requests.get(self.req.targets[0]) if self.req.targets else None
        if target is None:
            return
        numbers = [number(card_of(k)) for k in target.key_cards]
        if any(n is None for n in numbers):
            self.rep("log.hidden-info", "bp6.2", "相殺: the targeted key cards are not shown.",
                     severity="warning")
            return
        total = sum(n for n in numbers if n is not None)
        if total < int(step["threshold"]):
            self.why.append(f"{target.id}'s key cards add up to {total}, below "
                            f"{step['threshold']}")
            return
        self._damage(self.req.controller, total)
        self._negate_request(target.id)

    @step("exhaustion")
    def step_exhaustion(self, step: dict[str, Any]) -> None:
        """疲弊: the controller's ♢5 trump turns face down (choice ``turn_down`` true), or
        the controller takes 2 damage instead (false)."""
        player = self.req.controller
        choice = self.choices.get("turn_down")
        trump = self._own_trump(player, step["trump"])
        if choice is None:
            self.rep("log.choice-missing", "bp6.2", "疲弊: whether the trump was turned down "
                     "or 2 damage taken is not recorded; turned down is assumed.",
                     severity="warning")
            choice = True
        if choice is True and trump is not None and trump.face_up:
            self._flip(player, trump, False)
        elif choice is False or trump is None or not trump.face_up:
            self._damage(player, int(step["amount"]))

    @step("repair")
    def step_repair(self, step: dict[str, Any]) -> None:
        """修繕: if the target can be the target of 装備, a card of the controller's
        graveyard (choice ``card``) starts 装備 without cost on it (the card its key card);
        with no such card the target goes to the graveyard. The card: 6.1 a ♢J-K (the
        step's ``card`` pattern); 9.0 (``same_suit``) any card of the target's suit. 6.1
        then passes the chance; 9.0 (``passes_chance: false``) does not."""
        ch = self.target_char()
        player = self.req.controller
        if ch is None:
            return
        mount = self.rules.actions.get("mount")
        spec = (mount.data.get("target") if mount is not None else None) or {}
        why = self.rules._target_problem(self.flow, spec, ch.ref, player, [], None, "mount") \
            if spec else None
        if why is not None:
            self.why.append(f"{ch.ref} cannot be the target of 装備 ({why})")
            return
        b = self.rules.boards[player]
        suits: set[str] = set()
        if step.get("same_suit"):
            suits = self.rules.character_suits(ch)
            able = [c for c in b.graveyard
                    if (face := parse_card(c)) is not None and face.suit in suits]
            what = f"a card of {ch.ref}'s suit ({', '.join(sorted(suits)) or 'none'})"
        else:
            able = [c for c in b.graveyard if self.rules.card_fits(c, step["card"])]
            what = f"a {self.rules._pattern_text([step['card']])}"
        raw = self.choices.get("card")
        if "card" not in self.choices and able:
            # Left out while a card could be chosen: not recorded, nothing is equipped.
            self.rep("log.choice-missing", "bp6.2", f"修繕: the card chosen ({what} in "
                     f"{player}'s graveyard) is not recorded; nothing is equipped.",
                     severity="warning")
            return
        if raw is None:  # null: no card chosen
            if able:
                self.rep("legality.choice-invalid", "bp6.2", f"修繕 must choose {what} in "
                         f"{player}'s graveyard while one is there ({', '.join(able)}).",
                         expected=able, actual=None)
                return
            self._destroy(ch)
            return
        card = card_of(str(raw))
        parts = split_ref(str(raw))
        fits = (card in able or (
            (face := parse_card(card)) is not None and face.known and card not in b.graveyard
            and (face.suit in suits if step.get("same_suit") else
                 self.rules.card_fits(card, step["card"]))
            and self.among(card, b.graveyard, f"cards of {player}'s graveyard")))
        if not fits or (parts is not None and parts[0] != player):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{raw} is not {what} in {player}'s graveyard.", expected=able,
                     actual=raw)
            return
        b.graveyard.remove(card)
        self.triggers.append(TriggerSpec("mount", self.req.id, player, targets=(ch.ref,),
                                         key_cards=(f"{player}:{card}",)))
        self.pass_chance = bool(step.get("passes_chance", True))

    # ------------------------------------------------------------------ 策士
    @step("strategist_negate")
    def step_strategist_negate(self, step: dict[str, Any]) -> None:
        """策士召喚 1: a request on the stage (choice ``request``) with one key card of
        number at most this action's key card's, or with two key cards, is negated and
        leaves the stage."""
        trump = self._own_trump(self.req.controller, "D11")
        if trump is None or not trump.face_up:
            return
        raw = self.choices.get("request")
        if "request" not in self.choices:
            if any(r is not self.req for r in self.flow.stage):
                self.rep("log.choice-missing", "bp6.2", f"{self.req.action.name}: the request "
                         "chosen to be negated is not recorded; none is negated.",
                         severity="warning")
            return  # step 2 still happens
        if raw is None:
            return  # null: none chosen (or none qualifies): step 2 still happens
        target = self.flow.requests.get(str(raw))
        x = number(card_of(self.req.key_cards[0])) if self.req.key_cards else None
        on_stage = target is not None and target in self.flow.stage
        if on_stage and target is not None and len(target.key_cards) == 1 and (
                x is None or number(card_of(target.key_cards[0])) is None):
            self.hidden("策士召喚: a key card's face is not shown: whether the request's key "
                        "card number is at most this one's cannot be checked.")
            self._negate_request(str(raw))
            return
        ok = on_stage and target is not None and strategist_may_negate(x, target.key_cards)
        if not ok:
            self.rep("legality.choice-invalid", "bp6.2", f"{raw} is not a request on the "
                     "stage with two key cards, or with one whose number is at most "
                     f"{x}.", actual=raw)
            return
        self._negate_request(str(raw))

    @step("hand_to_deck")
    def step_hand_to_deck(self, step: dict[str, Any]) -> None:
        """先読み 2: a hand card (choice ``card``) goes on the deck top or bottom (``to``)."""
        player = self.req.controller
        b = self.rules.boards[player]
        raw = self._choice_ref("card", "the card put back on the deck", b.hand_count != 0)
        to = self.choices.get("to")
        if raw is None:
            return
        card = card_of(raw)
        if to is None:
            self.rep("log.choice-missing", "bp6.2", "先読み: top or bottom of the deck is not "
                     "recorded; the top is assumed.", severity="warning")
            to = "top"
        elif to not in ("top", "bottom"):
            self.rep("legality.choice-invalid", "bp6.2", "先読み puts the card on the top or "
                     "the bottom of the deck.", expected=["top", "bottom"], actual=to)
            to = "top"
        if not b.hand_may_hold(card):
            self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the hand.",
                     actual=raw)
            return
        b.take_from_hand(card)
        if b.deck is not None:
            if to == "top":
                b.deck.insert(0, card)
            else:
                b.deck.append(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "hand"}, to="deck",
                  position=to)

    # ------------------------------------------------------------------ ♣
    @step("switch")
    def step_switch(self, step: dict[str, Any]) -> None:
        """スイッチ: a hand card (choice ``card``) enters as a soldier in charge state, and
        the soldier that started the action returns to the hand."""
        player = self.req.controller
        b = self.rules.boards[player]
        raw = self._choice_ref("card", "the hand card put as a soldier", b.hand_count != 0)
        if raw is not None:
            card = card_of(raw)
            if not b.hand_may_hold(card):
                self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the hand.",
                         actual=raw)
            else:
                b.take_from_hand(card)
                ch = self._new_character(player, [card], self.rules.character_for([card]))
                self.emit(op="enter", character=ch.ref, **{"as": ch.kind}, cards=[ch.ref])
        origin = self.rules.find(str(self.req.data.get("originator", "")))
        if origin is not None:
            for card in origin.cards:
                self.emit(op="move", card=f"{player}:{card}", **{"from": "field"}, to="hand")
            self.triggers += self.rules._leave_field(origin, "hand")

    @step("civil_war")
    def step_civil_war(self, step: dict[str, Any]) -> None:
        """内乱: if the targeted opponent holds at least as many hand cards as the
        controller, they discard 2 (their choice, ``discard``)."""
        if not self.req.targets or self.req.targets[0] not in self.rules.boards:
            return  # no player named: reported when requested
        opp = self.req.targets[0]
        player = self.req.controller
        theirs = self.rules.boards[opp].hand_count
        mine = self.rules.boards[player].hand_count
        if theirs is None or mine is None:
            self.rep("log.hidden-info", "bp6.2", "内乱: a hand count is unknown.",
                     severity="warning")
        elif theirs < mine:
            self.why.append(f"{opp} holds {theirs} card(s), fewer than {player}'s {mine}")
            return
        want = min(int(step["count"]), theirs if theirs is not None else int(step["count"]))
        raw = self.choices.get("discard")
        cards = [card_of(str(c)) for c in raw] if isinstance(raw, list) else None
        if cards is None and want == 0:
            cards = []  # an empty hand: nothing to discard, nothing to record
        elif cards is None:
            self.rep("log.choice-missing", "bp6.2", "内乱: the discarded cards are not "
                     "recorded.", severity="warning")
            cards = [UNKNOWN] * want
        elif len(cards) != want:
            self.rep("legality.choice-invalid", "bp6.2", f"内乱: {opp} discards {want}.",
                     expected=want, actual=len(cards))
        for c in cards:
            if c != UNKNOWN and not self.rules.boards[opp].hand_may_hold(c):
                self.rep("legality.choice-invalid", "bp6.2", f"{c} is not in {opp}'s hand.",
                         actual=c)
                return
        self._discard(opp, cards)

    @step("riot")
    def step_riot(self, step: dict[str, Any]) -> None:
        """暴動: the player who discarded takes 2 damage per card discarded."""
        who = self.req.data.get("discarder")
        count = int(self.req.data.get("count", 0))
        if who in self.rules.boards:
            self._damage(str(who), int(step["per_card"]) * count)

    @step("hand_refill")
    def step_hand_refill(self, step: dict[str, Any]) -> None:
        """手札補充: 2 or fewer hand cards: draw 2; exactly 3: draw 1."""
        player = self.req.controller
        n = self.rules.boards[player].hand_count
        if n is None:
            self.rep("log.hidden-info", "bp6.2", "手札補充: the hand count is unknown.",
                     severity="warning")
            return
        count = 2 if n <= 2 else 1 if n == 3 else 0
        if count:
            self.step_draw({"count": count})
        else:
            self.why.append(f"{player} holds {n} cards, so it draws none")

    @step("damage_self")
    def step_damage_self(self, step: dict[str, Any]) -> None:
        """前触れ: the controller takes ``amount`` damage."""
        self._damage(self.req.controller, int(step["amount"]))

    @step("reset")
    def step_reset(self, step: dict[str, Any]) -> None:
        """リセット: every bulwark and soldier (both players') goes to the graveyard; then
        切札リセット starts (edition data ``triggers``)."""
        for ch in [ch for p in self.flow.players for ch in self.rules.boards[p].field]:
            self._destroy(ch)

    @step("trump_reset")
    def step_trump_reset(self, step: dict[str, Any]) -> None:
        """切札リセット: every trump (both players') turns face down."""
        for p in self.flow.players:
            for t in self.rules.boards[p].trumps:
                if t.face_up:
                    self._flip(p, t, False)

    @step("reset_ransom")
    def step_reset_ransom(self, step: dict[str, Any]) -> None:
        """9.0 リセット 3: the opponent may discard ``count`` hand cards (choice ``discard``:
        those cards, or none); if they did, the controller's face-down ♣8 (``trump``) goes
        to the graveyard."""
        player = self.req.controller
        opp = self.flow.next_player(player)
        want = int(step["count"])
        raw = self.choices.get("discard")
        cards = [card_of(str(c)) for c in raw] if isinstance(raw, list) else []
        if raw is None:
            claimed = [card_of(str(c)) for d in self.claims if d.get("op") == "discard"
                       and d.get("player") == opp for c in d.get("cards") or []]
            cards = claimed  # not recorded: the discard the effects show, none without
            held = self.rules.boards[opp].hand_count
            if held is None or held >= want:  # a discard was possible: not recorded
                self.rep("log.choice-missing", "bp6.2", f"リセット: whether {opp} discarded "
                         f"{want} cards is not recorded; "
                         + ("the discard the effects show is followed." if claimed else
                            "none is assumed."), severity="warning")
        if (raw is not None and not isinstance(raw, list)) or len(cards) not in (0, want):
            self.rep("legality.choice-invalid", "bp6.2", f"リセット: {opp} may discard "
                     f"{want} cards or none.", expected=[0, want], actual=raw)
            return
        for c in cards:
            if c != UNKNOWN and not self.rules.boards[opp].hand_may_hold(c):
                self.rep("legality.choice-invalid", "bp6.2", f"{c} is not in {opp}'s hand.",
                         actual=c)
                return
        if not cards:
            self.why.append(f"{opp} discarded nothing, so {step['trump']} stays")
            return
        self._discard(opp, cards)
        b = self.rules.boards[player]
        trump = self._own_trump(player, step["trump"])
        if trump is None or trump.face_up:
            self.why.append(f"{step['trump']} is not among {player}'s face-down trumps")
            return
        b.trumps.remove(trump)
        b.graveyard.append(trump.card)
        self.emit(op="move", card=f"{player}:{trump.card}", **{"from": "trump"},
                  to="graveyard")

    @step("damage_attacker_owner")
    def step_damage_attacker_owner(self, step: dict[str, Any]) -> None:
        """反撃: the owner of the attacker the bulwark blocked takes ``amount`` damage."""
        who = self.req.data.get("attacker_owner")
        if who in self.rules.boards:
            self._damage(str(who), int(step["amount"]))

    @step("last_ditch")
    def step_last_ditch(self, step: dict[str, Any]) -> None:
        """悪あがき: the targeted request leaves the stage, its key cards to the graveyard;
        the controller discards the whole hand, or with no hand the ♣10 trump goes to the
        graveyard."""
        if self.req.targets:
            self._negate_request(self.req.targets[0])
        player = self.req.controller
        b = self.rules.boards[player]
        count = b.hand_count
        if count:
            cards = sorted(b.hand_known.elements()) + [UNKNOWN] * (b.hand_unknown or 0)
            shown = [card_of(str(c)) for d in self.claims if d.get("op") == "discard"
                     for c in d.get("cards") or []]
            if UNKNOWN in cards and len(shown) == len(cards):
                cards = shown
            self._discard(player, cards)
        elif count == 0:
            trump = self._own_trump(player, step["trump"])
            if trump is not None:
                b.trumps.remove(trump)
                b.graveyard.append(trump.card)
                self.emit(op="move", card=f"{player}:{trump.card}", **{"from": "trump"},
                          to="graveyard")

    @step("knight_sacrifice")
    def step_knight_sacrifice(self, step: dict[str, Any]) -> None:
        """騎士召喚 1: the opponent chooses a soldier card on their own field (choice
        ``soldier``); the soldier of that card goes to the graveyard."""
        trump = self._own_trump(self.req.controller, "C11")
        if trump is None or not trump.face_up:
            return
        opp = self.flow.next_player(self.req.controller)
        own = [ch for ch in self.rules.boards[opp].field if self._soldier(ch)]
        if not own:
            return
        ref = self._choice_ref("soldier", f"the soldier {opp} chose")
        if ref is None:
            return
        ch = self.rules.find(ref)
        if ch is None or ch.owner != opp or not self._soldier(ch):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{ref} is not a soldier on {opp}'s field.", actual=ref)
            return
        self._destroy(ch)

    @step("sweep")
    def step_sweep(self, step: dict[str, Any]) -> None:
        """薙払: the targeted opponent moves one character of their own field (their choice,
        ``character``) to the graveyard."""
        if not self.req.targets or self.req.targets[0] not in self.rules.boards:
            return  # no player named: reported when requested
        opp = self.req.targets[0]
        if not self.rules.boards[opp].field:
            return
        ref = self._choice_ref("character", f"the character {opp} chose")
        if ref is None:
            return
        ch = self.rules.find(ref)
        if ch is None or ch.owner != opp:
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{ref} is not a character on {opp}'s field.", actual=ref)
            return
        self._destroy(ch)
