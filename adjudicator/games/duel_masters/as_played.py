"""The table as played: where a resolution's recorded effects differ from the rules', the
table becomes what the recorded effects say (docs/decisions.md §1; docs/duel_masters.md).

The rules' resolution has already been carried out on the judge's table when the claims are
compared (:meth:`.rules._Resolving.rule_on_claims`). The comparison leaves two lists: the
planned effects no claim matched (what the table did not do) and the claims no planned
effect matched (what the table did instead). :class:`AsPlayed` takes back the first, last
one first, and carries out the second in the log's order, for every op a Duel Masters log
can claim:

- ``draw`` {player, cards}: cards from the deck (the named ones, else the top) to the hand;
- ``move`` {card, from, to}: a card between the deck, hand, mana zone, shield zone,
  battle zone, graveyard, hyperspatial and super GR zones (a creature entering is summoned
  and its "when it enters" ability waits; a creature leaving takes its gears and auras
  along as the rules say);
- ``destroy`` {card, to}: a creature destroyed (its "when destroyed" ability waits);
- ``break`` {player, cards}: shields to the hand (an S-Trigger or G-Strike among them
  waits);
- ``tap`` {card}, ``block`` {card}: a creature or mana card tapped; ``untap`` {player};
- ``attach`` {card, creature}: an aura put on a creature; ``cross`` / ``uncross`` {card,
  creature}: a gear crossed, or crossed to nothing;
- ``power`` {card, delta, until}; ``no_attack`` {card}: "cannot attack this turn";
- ``direct_attack`` {player, card}, ``win`` / ``lose`` {player}: the game's end.

``battle`` names the powers compared (no change of the table: its losers' ``destroy`` are
the change) and ``turn`` is the flow's: neither is carried out here. A card of a player is
one card (``stone#3``), so a card the log names is found wherever it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.game import GameResult
from coreflow_judge.adjudicator.games.common import Handlers
from coreflow_judge.adjudicator.games.duel_masters.board import (
    Attachment,
    Board,
    Creature,
    Gear,
    ManaCard,
)
from coreflow_judge.adjudicator.games.duel_masters.cards import UNKNOWN, split_ref

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.games.duel_masters.rules import (
        DuelMastersRules,
        _Resolving,
    )

Effect = Mapping[str, Any]
Handler = Callable[[Any, Effect], None]
does: Handlers[Handler] = Handlers("claimed effect carried out")
"""What carries out each op a log may claim (``@does("draw")``)."""
undoes: Handlers[Handler] = Handlers("planned effect taken back")
"""What takes back each op of the rules' plan the table did not carry out
(``@undoes("draw")``); an op with none needs no taking back."""

PILES = ("deck", "shields", "graveyard", "hyperspatial", "super_gr")
"""Zones kept as a list of faces (``shields`` is the shield zone the log calls ``shield``)."""


def _zone(name: Any) -> str:
    return "shields" if name == "shield" else str(name)


class AsPlayed:
    """Carries a resolution's departures out on the judge's table (see the module)."""

    def __init__(self, work: _Resolving, before: DuelMastersRules):
        self.w = work
        self.rules = work.rules
        self.before = before

    def follow(self, unmatched: Sequence[Effect], extra: Sequence[Effect]) -> None:
        """Take back ``unmatched``, last first, then carry out ``extra``, in order. The
        resolution's effects stay the rules' (what the rules' own moves emit here is not
        kept)."""
        planned = len(self.w.effects)
        try:
            self._follow(unmatched, extra)
        finally:
            del self.w.effects[planned:]

    def _follow(self, unmatched: Sequence[Effect], extra: Sequence[Effect]) -> None:
        for o in reversed(unmatched):
            handler = undoes.get(str(o.get("op")))
            if handler is not None:
                handler(self, o)
        for t in extra:
            handler = does.get(str(t.get("op")))
            if handler is not None:
                handler(self, t)

    # ------------------------------------------------------------------ zones
    def _card(self, ref: Any) -> tuple[str, str] | None:
        parts = split_ref(str(ref)) if ref is not None else None
        if parts is None or parts[0] not in self.rules.boards:
            return None
        return parts

    @staticmethod
    def where(b: Board, card: str) -> str | None:
        """The zone of ``b`` a card the log names is in now (None: not seen anywhere)."""
        if card == UNKNOWN:
            return None
        if b.hand_known[card] > 0:
            return "hand"
        if any(m.ref.partition(":")[2] == card for m in b.mana):
            return "mana"
        if any(c.ref.partition(":")[2] == card for c in b.battle) or any(
                g.ref.partition(":")[2] == card for g in b.gears) or any(
                a.ref.partition(":")[2] == card for c in b.battle for a in c.attached):
            return "battle"
        for zone in ("graveyard", "hyperspatial", "super_gr", "shields", "deck"):
            pile = getattr(b, zone)
            if pile and card in pile:
                return zone
        return None

    def take(self, player: str, zone: str, card: str) -> bool:
        """Take ``card`` (``?``: an unseen one) out of ``zone``; False if it is not there.
        Out of the battle zone a creature leaves (its gears stay, its auras go)."""
        b = self.rules.boards[player]
        ref = f"{player}:{card}"
        if zone == "hand":
            return b.take_from_hand(card)
        if zone == "mana":
            m = next((m for m in b.mana if m.ref == ref), None) or next(
                (m for m in b.mana if m.card is None), None)
            if m is None:
                return False
            b.mana.remove(m)
            return True
        if zone == "battle":
            c = self.rules.find(ref)
            if c is not None and c.owner == player:
                self.w.leave(c)
                return True
            g = b.gear(ref)
            if g is not None:
                self.rules.uncross(g)
                b.gears.remove(g)
                return True
            for c in b.battle:
                for a in list(c.attached):
                    if a.ref == ref:
                        c.attached.remove(a)
                        return True
            return False
        if zone in PILES:
            pile = getattr(b, zone)
            if pile is None:
                return True  # a zone the log does not count: whatever it held
            if card in pile:
                pile.remove(card)  # a card of a player is one card
                return True
            if UNKNOWN in pile:
                pile.remove(UNKNOWN)
                return True
            return False
        return False

    def put(self, player: str, zone: str, card: str) -> None:
        """Put ``card`` into ``zone`` (the battle zone: a creature entering, or a gear)."""
        b = self.rules.boards[player]
        ref = f"{player}:{card}"
        cdef = self.rules.card(card) if card != UNKNOWN else None
        if zone == "hand":
            b.add_to_hand(card)
        elif zone == "mana":
            b.mana.append(ManaCard(ref, cdef, tapped=bool(cdef and cdef.multicolour)))
        elif zone == "battle":
            if cdef is None:
                return
            if cdef.creature:
                self.w.enter(player, card, cdef)
            elif cdef.type == "cross_gear":
                b.gears.append(Gear(ref, cdef))
        elif zone in PILES:
            pile = getattr(b, zone)
            if pile is not None:
                if zone == "deck":
                    pile.insert(0, card)
                else:
                    pile.append(card)
                if zone == "super_gr":
                    b.gr_shown.append(card)

    def relocate(self, player: str, card: str, source: Any, to: str) -> None:
        """``card`` goes from ``source`` to ``to``: taken from where it is if the log's
        zone does not hold it."""
        b = self.rules.boards[player]
        if card != UNKNOWN and self.where(b, card) == to and to != "battle":
            return
        if not self.take(player, _zone(source), card):
            found = self.where(b, card)
            if found is not None and found != to:
                self.take(player, found, card)
        self.put(player, to, card)

    # ------------------------------------------------------------------ cards moving
    @does("draw")
    def do_draw(self, t: Effect) -> None:
        player = str(t.get("player"))
        if player not in self.rules.boards:
            return
        b = self.rules.boards[player]
        for ref in t.get("cards") or []:
            card = str(ref).partition(":")[2] or UNKNOWN
            if b.deck is not None:
                if card != UNKNOWN and card in b.deck:
                    b.deck.remove(card)
                elif b.deck:
                    top = b.deck.pop(0)
                    card = top if card == UNKNOWN else card
                else:
                    break
            b.add_to_hand(card)

    @undoes("draw")
    def undo_draw(self, o: Effect) -> None:
        player = str(o.get("player"))
        if player not in self.rules.boards:
            return
        b = self.rules.boards[player]
        for ref in reversed(o.get("cards") or []):
            card = str(ref).partition(":")[2] or UNKNOWN
            if b.take_from_hand(card) and b.deck is not None:
                b.deck.insert(0, card)

    @does("move")
    def do_move(self, t: Effect) -> None:
        parts = self._card(t.get("card"))
        to = t.get("to")
        if parts is None or not isinstance(to, str):
            return
        self.relocate(parts[0], parts[1], t.get("from"), _zone(to))

    @undoes("move")
    def undo_move(self, o: Effect) -> None:
        parts = self._card(o.get("card"))
        source, to = o.get("from"), o.get("to")
        if parts is None or not isinstance(source, str) or not isinstance(to, str):
            return
        player, card = parts
        if source == "battle" and self.w.gone.get(f"{player}:{card}") is not None:
            self.w._undo_destroy(f"{player}:{card}")
            return
        if source == "battle":
            c = next((c for c in self.before.boards[player].battle
                      if c.ref == f"{player}:{card}"), None)
            if c is not None and self.rules.find(c.ref) is None:
                if to != "graveyard":  # put_back_in_play takes it from the graveyard
                    self.take(player, _zone(to), card)
                self.rules.put_back_in_play(_fresh(c))
            return
        if self.where(self.rules.boards[player], card) not in (_zone(to), None) and to != "battle":
            return
        if to == "battle":
            self._unsummon(player, card)
        else:
            self.take(player, _zone(to), card)
        self.put(player, _zone(source), card)

    def _unsummon(self, player: str, card: str) -> None:
        """A creature (or gear) the rules put into the battle zone and the table did not:
        out again, and its "when it enters" ability does not wait."""
        ref = f"{player}:{card}"
        b = self.rules.boards[player]
        c = self.rules.find(ref)
        if c is not None:
            b.battle.remove(c)
            self.w.triggers = [s for s in self.w.triggers
                               if not (s.action == "cip" and s.source == ref)]
            return
        g = b.gear(ref)
        if g is not None:
            b.gears.remove(g)

    @does("destroy")
    def do_destroy(self, t: Effect) -> None:
        parts = self._card(t.get("card"))
        if parts is None:
            return
        c = self.rules.find(f"{parts[0]}:{parts[1]}")
        if c is not None:
            self.w.destroy(c, str(t.get("reason", "effect")))
            to = t.get("to")
            if isinstance(to, str) and to not in ("graveyard", "hyperspatial", "super_gr"):
                self.relocate(parts[0], parts[1], "graveyard", _zone(to))

    @undoes("destroy")
    def undo_destroy(self, o: Effect) -> None:
        self.w._undo_destroy(str(o.get("card")))

    @does("break")
    def do_break(self, t: Effect) -> None:
        player = str(t.get("player"))
        if player not in self.rules.boards:
            return
        b = self.rules.boards[player]
        for ref in t.get("cards") or []:
            card = str(ref).partition(":")[2] or UNKNOWN
            if b.shields is not None and b.shields:
                if card in b.shields:
                    b.shields.remove(card)
                else:
                    b.shields.remove(UNKNOWN if UNKNOWN in b.shields else b.shields[0])
            b.add_to_hand(card)
            cdef = self.rules.card(card) if card != UNKNOWN else None
            for flag in ("s_trigger", "g_strike"):
                if cdef is not None and cdef.has(flag):
                    self.w.trigger(flag, f"{player}:{card}", player)

    @undoes("break")
    def undo_break(self, o: Effect) -> None:
        player = str(o.get("player"))
        if player not in self.rules.boards:
            return
        b = self.rules.boards[player]
        for ref in reversed(o.get("cards") or []):
            card = str(ref).partition(":")[2] or UNKNOWN
            if b.take_from_hand(card) and b.shields is not None:
                b.shields.append(card)
            self.w.triggers = [s for s in self.w.triggers
                               if not (s.action in ("s_trigger", "g_strike")
                                       and s.source == f"{player}:{card}")]

    # ------------------------------------------------------------------ tapping
    def _tappable(self, ref: Any) -> Creature | ManaCard | None:
        parts = self._card(ref)
        if parts is None:
            return None
        full = f"{parts[0]}:{parts[1]}"
        return self.rules.find(full) or next(
            (m for m in self.rules.boards[parts[0]].mana if m.ref == full), None)

    def _tapped_before(self, ref: str) -> bool | None:
        parts = split_ref(ref)
        if parts is None or parts[0] not in self.before.boards:
            return None
        b = self.before.boards[parts[0]]
        things: list[Creature | ManaCard] = [*b.battle, *b.mana]
        return next((x.tapped for x in things if x.ref == ref), None)

    @does("tap")
    def do_tap(self, t: Effect) -> None:
        x = self._tappable(t.get("card"))
        if x is not None:
            x.tapped = True

    @undoes("tap")
    def undo_tap(self, o: Effect) -> None:
        x = self._tappable(o.get("card"))
        if x is not None:
            x.tapped = bool(self._tapped_before(x.ref))

    @does("block")
    def do_block(self, t: Effect) -> None:
        self.do_tap(t)

    @undoes("block")
    def undo_block(self, o: Effect) -> None:
        self.undo_tap(o)

    @does("untap")
    def do_untap(self, t: Effect) -> None:
        b = self.rules.boards.get(str(t.get("player")))
        if b is not None:
            for c in b.battle:
                c.tapped = False
            for m in b.mana:
                m.tapped = False

    @undoes("untap")
    def undo_untap(self, o: Effect) -> None:
        b = self.rules.boards.get(str(o.get("player")))
        if b is not None:
            for c in b.battle:
                c.tapped = bool(self._tapped_before(c.ref))
            for m in b.mana:
                m.tapped = bool(self._tapped_before(m.ref))

    # ------------------------------------------------------------------ on creatures
    @does("attach")
    def do_attach(self, t: Effect) -> None:
        parts = self._card(t.get("card"))
        c = self.rules.find(str(t.get("creature")))
        cdef = self.rules.card(parts[1]) if parts is not None else None
        if parts is None or c is None or cdef is None:
            return
        ref = f"{parts[0]}:{parts[1]}"
        if any(a.ref == ref for a in c.attached):
            return
        found = self.where(self.rules.boards[parts[0]], parts[1])
        self.take(parts[0], found or "hand", parts[1])
        c.attached.append(Attachment(ref, cdef))

    @undoes("attach")
    def undo_attach(self, o: Effect) -> None:
        parts = self._card(o.get("card"))
        c = self.rules.find(str(o.get("creature")))
        if parts is None or c is None:
            return
        ref = f"{parts[0]}:{parts[1]}"
        if any(a.ref == ref for a in c.attached):
            c.attached = [a for a in c.attached if a.ref != ref]
            zone = self.where(self.before.boards[parts[0]], parts[1])
            self.put(parts[0], zone if zone not in (None, "battle") else "hand", parts[1])

    @does("cross")
    def do_cross(self, t: Effect) -> None:
        gear = self.rules.gear(str(t.get("card")))
        c = self.rules.find(str(t.get("creature")))
        if gear is not None and c is not None:
            self.rules.cross(gear, c)

    @undoes("cross")
    def undo_cross(self, o: Effect) -> None:
        gear = self.rules.gear(str(o.get("card")))
        if gear is not None and gear.crossed == o.get("creature"):
            self.rules.uncross(gear)

    @does("uncross")
    def do_uncross(self, t: Effect) -> None:
        gear = self.rules.gear(str(t.get("card")))
        if gear is not None:
            self.rules.uncross(gear)

    @undoes("uncross")
    def undo_uncross(self, o: Effect) -> None:
        gear = self.rules.gear(str(o.get("card")))
        c = self.rules.find(str(o.get("creature")))
        if gear is not None and c is not None and gear.crossed is None:
            self.rules.cross(gear, c)

    @does("power")
    def do_power(self, t: Effect) -> None:
        from coreflow_judge.adjudicator.games.duel_masters.rules import PowerMod

        c = self.rules.find(str(t.get("card")))
        delta = t.get("delta")
        if c is None or not isinstance(delta, int):
            return
        mod = PowerMod(c.ref, delta, self.rules.tick(), holder=c.timestamp, seq=self.w.seq,
                       until=str(t.get("until", "end_of_turn")),
                       controller=self.w.req.controller)
        if mod.until == "end_of_turn" and self._turn_effects_ended_here():
            # The step change this resolution made ended it at once (dm§3.6).
            mod.ended = self.w.flow.turn
            mod.end = f"at the end of turn {self.w.flow.turn}"
            self.rules.expired.append(mod)
            return
        self.rules.modifiers.append(mod)

    def _turn_effects_ended_here(self) -> bool:
        """This resolution ended the "until end of turn" effects (the end step's step
        change, dm§3.6)."""
        return self.w.next_player is not None or (
            self.rules.effects_ended and not self.before.effects_ended)

    @undoes("power")
    def undo_power(self, o: Effect) -> None:
        for pile in (self.rules.modifiers, self.rules.expired):
            mine = [m for m in pile if m.seq == self.w.seq
                    and m.creature == o.get("card") and m.delta == o.get("delta")]
            if mine:
                pile.remove(mine[-1])
                return

    @does("no_attack")
    def do_no_attack(self, t: Effect) -> None:
        from coreflow_judge.adjudicator.games.duel_masters.rules import Ban

        c = self.rules.find(str(t.get("card")))
        if c is not None:
            self.rules.bans.append(Ban(c.ref, self.rules.tick(), str(self.w.req.source or
                                                             self.w.req.id)))

    @undoes("no_attack")
    def undo_no_attack(self, o: Effect) -> None:
        known = {(b.creature, b.timestamp) for b in self.before.bans}
        mine = [b for b in self.rules.bans if b.creature == o.get("card")
                and (b.creature, b.timestamp) not in known]
        if mine:
            self.rules.bans.remove(mine[-1])

    # ------------------------------------------------------------------ the game's end
    @does("direct_attack")
    def do_direct_attack(self, t: Effect) -> None:
        c = self.rules.find(str(t.get("card")))
        if c is not None:
            self.rules.outcome = GameResult("win", c.owner, "direct_attack")

    @undoes("direct_attack")
    def undo_direct_attack(self, o: Effect) -> None:
        self.rules.outcome = self.before.outcome

    @does("win")
    def do_win(self, t: Effect) -> None:
        player = str(t.get("player"))
        if player in self.rules.boards:
            self.rules.outcome = GameResult("win", player, "special_win")

    @undoes("win")
    def undo_win(self, o: Effect) -> None:
        self.rules.outcome = self.before.outcome

    @does("lose")
    def do_lose(self, t: Effect) -> None:
        player = str(t.get("player"))
        others = [p for p in self.rules.boards if p != player]
        if player in self.rules.boards and len(others) == 1:
            self.rules.outcome = GameResult("win", others[0], "special_loss")

    @undoes("lose")
    def undo_lose(self, o: Effect) -> None:
        self.rules.outcome = self.before.outcome


def _fresh(c: Creature) -> Creature:
    """A creature of the table before the resolution, as a creature of the table now."""
    return Creature(c.ref, c.owner, c.card, c.entered, c.timestamp, c.tapped,
                    c.sba_exempt, list(c.attached))
