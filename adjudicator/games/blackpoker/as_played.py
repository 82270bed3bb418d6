"""The table as played: where a resolution's recorded effects differ from the rules', the
table becomes what the recorded effects say (docs/decisions.md §1, "A claimed effect that
differs is reported; the game continues").

The rules' resolution has already been carried out when the claims are compared
(:meth:`.resolving.Resolving.finish`). What the comparison leaves over is two lists
(:func:`~coreflow_judge.adjudicator.claims.compare`): the planned effects no claim matched
(what the table did not do) and the claims no planned effect matched (what the table did
instead). :class:`AsPlayed` takes back the first, last one first, and carries out the
second, in the log's order, one primitive effect at a time, for every op a log can claim
(match-log.md; the vocabulary of the edition data):

- ``draw`` {player, cards | amount}: cards from the top of the deck (or the named ones)
  to the hand; ``damage`` the same to the graveyard;
- ``move`` {card, from, to, position}: a card between the zones deck, hand, graveyard,
  fog, pack, rare card, trump and field (a character leaves the field as one unit, and
  what its leaving triggers follows);
- ``discard`` {player, cards}: hand cards to the graveyard (暴動 listens);
- ``enter`` {character, as, cards, state}: a character put on the field (or the cards
  added to one, an armed soldier);
- ``charge`` / ``drive`` {character}; ``size`` {character, delta}; ``transform``
  {character, to}; ``flip`` {card | zone pack, face}; ``shuffle`` {player}; ``negate``
  {request}; ``change_target`` {request, target}; ``clear_designation`` {character}.

``turn`` {player}: the turn End hands over goes to the player the log names
(:meth:`Reconciler.turn_taken_by`; a claim that leaves the turn change out is reported only:
the lines that follow show whose turn it was, and the core flow's ``turn`` repair judges
them). ``reveal`` is no change of the table.

Taking back needs the table as it was before the resolution: :class:`Before` keeps it
(only for a resolution that records effects). A card of a player is one card (a deck holds
each card once), so a card the log names is found wherever it is; ``?`` takes an unseen
card of the zone the effect names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.games.blackpoker.abilities import Ability
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard, Trump
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, card_of, split_ref
from coreflow_judge.adjudicator.games.common import Handlers

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving

Effect = Mapping[str, Any]
Handler = Callable[[Any, Effect], None]
does: Handlers[Handler] = Handlers("claimed effect carried out")
"""What carries out each op a log may claim (``@does("draw")``)."""
undoes: Handlers[Handler] = Handlers("planned effect taken back")
"""What takes back each op of the rules' plan the table did not carry out
(``@undoes("draw")``); an op with none needs no taking back."""

LIST_ZONES = ("graveyard", "fog", "pack", "rare")
"""Zones kept as a plain list of faces on a player's board."""


@dataclass(slots=True)
class Before:
    """The table just before a resolution: what taking back an effect restores."""

    boards: dict[str, PlayerBoard]
    abilities: list[Ability]
    targets: dict[str, list[str]]
    """Each request's targets (対象変更 changes one)."""
    designations: dict[str, tuple[list[str], dict[str, list[str]]]]
    """Each request's attackers and blockers (9.0 リバース clears a designation)."""

    @classmethod
    def of(cls, res: Resolving) -> Before:
        requests = res.flow.requests.values()
        return cls(
            {p: b.copy() for p, b in res.rules.boards.items()}, list(res.rules.abilities),
            {r.id: list(r.targets) for r in requests if r.targets},
            {r.id: (list(r.data.get("attackers") or []),
                    {a: list(b) for a, b in (r.data.get("blockers") or {}).items()})
             for r in requests if "attackers" in r.data or "blockers" in r.data})


class AsPlayed:
    """Carries a resolution's departures out on the judge's table (see the module)."""

    def __init__(self, res: Resolving, before: Before):
        self.res = res
        self.rules = res.rules
        self.before = before
        self.turn_started = False
        """The rules' effects the table left out hand the turn over (End)."""

    # ------------------------------------------------------------------ entry
    def follow(self, unmatched: Sequence[Effect], extra: Sequence[Effect]) -> None:
        """Take back ``unmatched`` (the rules' effects the table did not carry out), last
        first, then carry out ``extra`` (what the table did instead), in order."""
        self.turn_started = any(o.get("op") == "turn" for o in unmatched)
        for o in reversed(unmatched):
            handler = undoes.get(str(o.get("op")))
            if handler is not None:
                handler(self, o)
        for t in extra:
            handler = does.get(str(t.get("op")))
            if handler is not None:
                handler(self, t)

    # ------------------------------------------------------------------ zones
    def board(self, player: Any) -> PlayerBoard | None:
        return self.rules.boards.get(str(player))

    def where(self, player: str, card: str) -> str | None:
        """The zone a card the log names is in now (None: not seen anywhere)."""
        return _where(self.rules.boards[player], card)

    def take(self, player: str, zone: str, card: str) -> bool:
        """Take ``card`` (``?``: an unseen one) out of ``zone``; False if it is not there."""
        b = self.rules.boards[player]
        if zone == "deck":
            if b.deck is None:
                return True  # an uncounted deck: whatever it held
            if card != UNKNOWN and card in b.deck:
                b.deck.remove(card)
                return True
            if UNKNOWN in b.deck:
                b.deck.remove(UNKNOWN)
                return True
            return False
        if zone == "hand":
            if not b.hand_may_hold(card):
                return False
            b.take_from_hand(card)
            return True
        if zone in LIST_ZONES:
            pile = getattr(b, zone)
            if not pile:
                return False
            if card in pile:
                del pile[len(pile) - 1 - pile[::-1].index(card)]
                return True
            if UNKNOWN in pile or card == UNKNOWN:
                pile.remove(UNKNOWN if UNKNOWN in pile else pile[-1])
                return True
            return False
        if zone == "trump":
            t = next((t for t in b.trumps if t.card == card), None) or next(
                (t for t in b.trumps if t.card == UNKNOWN), None)
            if t is None:
                return False
            b.trumps.remove(t)
            return True
        if zone == "field":
            ch = self.rules.find(f"{player}:{card}")
            if ch is None or ch.owner != player:
                return False
            ch.cards.remove(card)
            if not ch.cards:
                b.field.remove(ch)
            return True
        return False

    def put(self, player: str, zone: str, card: str, position: Any = "top") -> None:
        """Put ``card`` into ``zone`` (a deck: on top, or at the bottom)."""
        b = self.rules.boards[player]
        if zone == "deck":
            if b.deck is not None:
                if position == "bottom":
                    b.deck.append(card)
                else:
                    b.deck.insert(0, card)
        elif zone == "hand":
            b.add_to_hand(card)
        elif zone in LIST_ZONES:
            pile = getattr(b, zone)
            if pile is None:
                setattr(b, zone, [card])
            else:
                pile.append(card)
        elif zone == "trump":
            b.trumps.append(Trump(card))
        elif zone == "field":
            b.field.append(Character(f"{player}:{card}", player, self.rules.character_for([card]),
                                     [card], [self.res.flow.turn], timestamp=self.rules.tick()))

    def relocate(self, player: str, card: str, source: Any, to: str,
                 position: Any = "top") -> None:
        """``card`` goes from ``source`` (where the effect says it was) to ``to``: taken
        from where it is if the log's zone does not hold it; a character leaving the field
        leaves as one unit, and what that triggers follows."""
        if card != UNKNOWN and self.where(player, card) == to != "field":
            return  # already there (an earlier card of the same unit took it along)
        ch = self.rules.find(f"{player}:{card}") if card != UNKNOWN else None
        if ch is not None and ch.owner == player and (source in (None, "field")
                                                     or self.where(player, card) == "field"):
            self.leave_field(ch, to, position)
            return
        if not self.take(player, str(source), card):
            found = self.where(player, card) if card != UNKNOWN else None
            if found is not None and found != to:
                self.take(player, found, card)
        self.put(player, to, card, position)

    def leave_field(self, ch: Character, to: str, position: Any = "top") -> None:
        """A character leaves the field for ``to``, as one unit (its cards together)."""
        self.res.triggers += self.rules._leave_field(ch, to)
        if to not in ("graveyard", "hand"):  # _leave_field places those two itself
            for card in ch.cards:
                self.put(ch.owner, to, card, position)

    # ------------------------------------------------------------------ draw, damage
    def _cards(self, e: Effect) -> tuple[str, list[str]] | None:
        player = str(e.get("player"))
        if self.board(player) is None:
            return None
        cards = e.get("cards")
        if isinstance(cards, list):
            return player, [card_of(str(c)) for c in cards]
        amount = e.get("amount")
        return player, [UNKNOWN] * (amount if isinstance(amount, int) and amount > 0 else 0)

    def _from_deck(self, e: Effect, to: str) -> None:
        got = self._cards(e)
        if got is None:
            return
        player, cards = got
        b = self.rules.boards[player]
        for card in cards:
            if b.deck is not None:
                if card != UNKNOWN and card in b.deck:
                    b.deck.remove(card)
                elif b.deck:
                    top = b.deck.pop(0)
                    card = top if card == UNKNOWN else card
                else:
                    break  # the deck is empty: the table cannot have moved more
            self.put(player, to, card)

    def _to_deck(self, e: Effect, zone: str) -> None:
        got = self._cards(e)
        if got is None:
            return
        player, cards = got
        for card in reversed(cards):
            if self.take(player, zone, card):
                self.put(player, "deck", card)

    @does("draw")
    def do_draw(self, t: Effect) -> None:
        self._from_deck(t, "hand")

    @undoes("draw")
    def undo_draw(self, o: Effect) -> None:
        self._to_deck(o, "hand")

    @does("damage")
    def do_damage(self, t: Effect) -> None:
        self._from_deck(t, "graveyard")

    @undoes("damage")
    def undo_damage(self, o: Effect) -> None:
        self._to_deck(o, "graveyard")

    # ------------------------------------------------------------------ moves
    @does("move")
    def do_move(self, t: Effect) -> None:
        parts = split_ref(str(t.get("card")))
        to = t.get("to")
        if parts is None or parts[0] not in self.rules.boards or not isinstance(to, str):
            return
        if t.get("from") == "stage":
            return  # a key card: see Resolving._follow_key_cards
        self.relocate(parts[0], parts[1], t.get("from"), to, t.get("position", "top"))

    @undoes("move")
    def undo_move(self, o: Effect) -> None:
        parts = split_ref(str(o.get("card")))
        source, to = o.get("from"), o.get("to")
        if parts is None or parts[0] not in self.rules.boards or not isinstance(source, str):
            return
        player, card = parts
        if source == "field":
            self.back_on_field(player, card, str(to))
        elif self.where(player, card) == to or card == UNKNOWN:
            self.take(player, str(to), card)
            self.put(player, source, card)

    def back_on_field(self, player: str, card: str, gone_to: str) -> None:
        """The rules took a character off the field that the table kept: it is back as it
        was, and what its leaving triggered is not."""
        if self.rules.find(f"{player}:{card}") is not None:
            return  # the rules kept it already (the claims were read when it was destroyed)
        was = next((ch for ch in self.before.boards[player].field if card in ch.cards), None)
        if was is None:
            return
        for c in was.cards:
            self.take(player, gone_to, c)
        ch = dataclasses.replace(was, cards=list(was.cards), entered=list(was.entered))
        self.rules.boards[player].field.append(ch)
        self.res.triggers = [s for s in self.res.triggers if s.source != ch.ref]
        for a in self.before.abilities:
            if a.character == ch.ref and a not in self.rules.abilities:
                self.rules.abilities.append(a)

    @does("discard")
    def do_discard(self, t: Effect) -> None:
        player = str(t.get("player"))
        if self.board(player) is None:
            return
        cards = [card_of(str(c)) for c in t.get("cards") or []]
        for card in cards:
            self.relocate(player, card, "hand", "graveyard")
        self.res.triggers += self.rules.discarded(player, len(cards), self.res.req.id)

    @undoes("discard")
    def undo_discard(self, o: Effect) -> None:
        player = str(o.get("player"))
        if self.board(player) is None:
            return
        for card in [card_of(str(c)) for c in o.get("cards") or []]:
            if self.take(player, "graveyard", card):
                self.put(player, "hand", card)
        self.res.triggers = [s for s in self.res.triggers
                             if (s.facts or {}).get("discarder") != player]

    # ------------------------------------------------------------------ characters
    @does("enter")
    def do_enter(self, t: Effect) -> None:
        parts = split_ref(str(t.get("character")))
        if parts is None or parts[0] not in self.rules.boards:
            return
        player = parts[0]
        cards = [card_of(str(c)) for c in t.get("cards") or [t.get("character")]]
        kind = str(t.get("as"))
        if kind not in self.rules.data["characters"]:
            kind = self.rules.character_for(cards)
        ch = self.rules.find(str(t.get("character")))
        if ch is not None and ch.owner == player:  # cards added to a unit (装備)
            for card in cards:
                if card not in ch.cards:
                    self._off_the_table(player, card)
                    ch.cards.append(card)
                    ch.entered.append(self.res.flow.turn)
            ch.kind = kind
            return
        for card in cards:
            self._off_the_table(player, card)
        state = t.get("state") if t.get("state") in ("charge", "drive") else "charge"
        self.rules.boards[player].field.append(Character(
            f"{player}:{cards[0]}" if cards else str(t.get("character")), player, kind,
            cards, [self.res.flow.turn] * len(cards), state=str(state),
            face_down=kind == "bulwark", timestamp=self.rules.tick()))

    def _off_the_table(self, player: str, card: str) -> None:
        """A card put on the field comes from where it is (a key card: where it went when
        the request left the stage; ``?``: a hand card)."""
        found = self.where(player, card) if card != UNKNOWN else None
        self.take(player, found or "hand", card)

    @undoes("enter")
    def undo_enter(self, o: Effect) -> None:
        ref = str(o.get("character"))
        parts = split_ref(ref)
        ch = self.rules.find(ref)
        if parts is None or ch is None:
            return
        player = parts[0]
        was = next((c for c in self.before.boards[player].field if c.ref == ch.ref), None)
        added = [card_of(str(c)) for c in o.get("cards") or []]
        if was is not None:  # cards added to a unit that stays (装備): they come off
            for card in added:
                if card in ch.cards and card not in was.cards:
                    i = ch.cards.index(card)
                    del ch.cards[i]
                    del ch.entered[i:i + 1]
                    self._back_where_it_was(player, card)
            ch.kind = was.kind
            return
        self.rules.boards[player].field.remove(ch)
        for card in ch.cards:
            self._back_where_it_was(player, card)

    def _back_where_it_was(self, player: str, card: str) -> None:
        """A card the rules put on the field and the table did not: back in the zone it
        was in before the resolution, or, a key card of the request, to the graveyard."""
        zone = _where(self.before.boards[player], card) if card != UNKNOWN else None
        self.put(player, zone if zone not in (None, "field") else "graveyard", card)

    def _character(self, e: Effect) -> Character | None:
        return self.rules.find(str(e.get("character")))

    @does("charge")
    def do_charge(self, t: Effect) -> None:
        ch = self._character(t)
        if ch is not None:
            ch.state = "charge"

    @does("drive")
    def do_drive(self, t: Effect) -> None:
        ch = self._character(t)
        if ch is not None:
            ch.state = "drive"

    def _state_back(self, o: Effect, other: str) -> None:
        ch = self._character(o)
        if ch is None:
            return
        was = self._was(ch)
        ch.state = was.state if was is not None else other

    @undoes("charge")
    def undo_charge(self, o: Effect) -> None:
        self._state_back(o, "drive")

    @undoes("drive")
    def undo_drive(self, o: Effect) -> None:
        self._state_back(o, "charge")

    def _was(self, ch: Character) -> Character | None:
        return next((c for c in self.before.boards[ch.owner].field if c.ref == ch.ref), None)

    @does("size")
    def do_size(self, t: Effect) -> None:
        ch = self._character(t)
        delta = t.get("delta")
        if ch is None or not isinstance(delta, int):
            return
        req = self.res.req
        self.rules.grant(Ability(
            name=req.action.name, source=f"{req.id} (as the table played it)",
            owner=req.controller, scope="this", timestamp=self.rules.tick(), stat="size",
            op="add", amount=delta, character=ch.ref, until=str(t.get("until", "end_of_turn"))))

    @undoes("size")
    def undo_size(self, o: Effect) -> None:
        ref = o.get("character")
        new = [a for a in self.rules.abilities if a not in self.before.abilities
               and a.character == ref and a.stat == "size" and a.amount == o.get("delta")]
        if new:
            self.rules.abilities.remove(new[0])

    @does("transform")
    def do_transform(self, t: Effect) -> None:
        ch = self._character(t)
        if ch is None:
            return
        soldier = self.rules.data["characters"][ch.kind]["kind"] == "soldier"
        if t.get("to") == "soldier" and not soldier:
            self.res.bulwark_to_soldier(ch, emit=False)
        elif t.get("to") == "bulwark" and soldier:
            b = self.rules.boards[ch.owner]
            at = b.field.index(ch)
            b.field.remove(ch)
            b.field[at:at] = [Character(f"{ch.owner}:{c}", ch.owner, "bulwark", [c], [e],
                                        state=ch.state, face_down=True,
                                        timestamp=self.rules.tick())
                              for c, e in zip(ch.cards, ch.entered, strict=False)]

    @undoes("transform")
    def undo_transform(self, o: Effect) -> None:
        """The characters the rules made of it go; it is back as it was."""
        ref = str(o.get("character"))
        parts = split_ref(ref)
        if parts is None or parts[0] not in self.rules.boards:
            return
        player = parts[0]
        was = next((c for c in self.before.boards[player].field if c.ref == ref), None)
        if was is None:
            return
        b = self.rules.boards[player]
        made = [ch for ch in b.field if set(ch.cards) & set(was.cards)]
        at = b.field.index(made[0]) if made else len(b.field)
        for ch in made:
            b.field.remove(ch)
        b.field.insert(at, dataclasses.replace(was, cards=list(was.cards),
                                               entered=list(was.entered)))

    @does("clear_designation")
    def do_clear_designation(self, t: Effect) -> None:
        ch = self._character(t)
        if ch is not None:
            self.res._clear_designation(ch, emit=False)

    @undoes("clear_designation")
    def undo_clear_designation(self, o: Effect) -> None:
        for rid, (attackers, blockers) in self.before.designations.items():
            req = self.res.flow.requests.get(rid)
            if req is None:
                continue
            if "attackers" in req.data:
                req.data["attackers"] = list(attackers)
            if "blockers" in req.data:
                req.data["blockers"] = {a: list(b) for a, b in blockers.items()}

    # ------------------------------------------------------------------ the rest
    @does("flip")
    def do_flip(self, t: Effect) -> None:
        up = t.get("face") == "up"
        if t.get("zone") == "pack":
            b = self.board(t.get("player"))
            if b is not None and b.pack is not None:
                b.pack_opened = up
            return
        found = self.rules.find_trump(str(t.get("card")))
        if found is not None and found[1].face_up != up:
            self.res._turn_trump(found[0], found[1], up)

    @undoes("flip")
    def undo_flip(self, o: Effect) -> None:
        if o.get("zone") == "pack":
            b, was = self.board(o.get("player")), self.before.boards.get(str(o.get("player")))
            if b is not None and was is not None:
                b.pack_opened = was.pack_opened
            return
        found = self.rules.find_trump(str(o.get("card")))
        if found is None:
            return
        owner, trump = found
        then = next((w for w in self.before.boards[owner].trumps if w.card == trump.card),
                    None)
        if then is not None:
            trump.face_up = then.face_up
            trump.closed_turn = then.closed_turn

    @does("shuffle")
    def do_shuffle(self, t: Effect) -> None:
        b = self.board(t.get("player"))
        if b is not None and b.deck is not None:
            b.deck = [UNKNOWN] * len(b.deck)

    @undoes("shuffle")
    def undo_shuffle(self, o: Effect) -> None:
        """Not shuffled: the deck keeps its order, less the cards that left it."""
        player = str(o.get("player"))
        b, was = self.board(player), self.before.boards.get(player)
        if b is None or was is None or b.deck is None or was.deck is None:
            return
        left = [c for c in was.deck if c == UNKNOWN or _where(b, c, deck=False) is None]
        if len(left) == len(b.deck):
            b.deck = left

    @does("turn")
    def do_turn(self, t: Effect) -> None:
        """The turn the rules handed over is the named player's (before the requests that
        start it are made: the Charge is that player's)."""
        if self.turn_started and isinstance(t.get("player"), str):
            self.res.flow.reconciler.turn_taken_by(t["player"])

    @does("negate")
    def do_negate(self, t: Effect) -> None:
        target = self.res.flow.negate(str(t.get("request")))
        if target is not None and not target.data.get("virtual_keys"):
            for k in target.key_cards:
                self.rules.boards[target.controller].graveyard.append(card_of(k))

    @does("change_target")
    def do_change_target(self, t: Effect) -> None:
        req = self.res.flow.requests.get(str(t.get("request")))
        if req is not None and req.targets and t.get("target") is not None:
            req.targets[0] = str(t["target"])
            self.rules.mark_target(req)

    @undoes("change_target")
    def undo_change_target(self, o: Effect) -> None:
        req = self.res.flow.requests.get(str(o.get("request")))
        if req is not None and req.id in self.before.targets:
            req.targets[:] = self.before.targets[req.id]
            self.rules.mark_target(req)


def _where(b: PlayerBoard, card: str, deck: bool = True) -> str | None:
    """The zone of ``b`` a card the log names is in (``deck=False``: not looking there)."""
    if card == UNKNOWN:
        return None
    if b.hand_known[card] > 0:
        return "hand"
    for zone in LIST_ZONES:
        pile = getattr(b, zone)
        if pile and card in pile:
            return zone
    if any(card in ch.cards for ch in b.field):
        return "field"
    if any(t.card == card for t in b.trumps):
        return "trump"
    if deck and b.deck and card in b.deck:
        return "deck"
    return None
