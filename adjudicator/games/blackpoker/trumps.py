"""Trumps (切札: BlackPoker 6.1 extra format, 9.0 extra frame) and the abilities they
and the trump characters grant.

A player places up to two trumps face down before the game (``game_started.trumps``). A
face-up trump puts its ability in force (the edition data's ``trumps``): actions its owner
may request, requests it triggers, a rule it changes. Closed (face down) or destroyed, the
ability is no longer in force. The summoned trump characters (リアニメーター, 魔王, ...) have
abilities of their own (the data's ``characters.<kind>``).

This module is a mixin of :class:`~.rules.BlackPokerRules`: what the judge, the simulator
and the board read about trumps is computed here, once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import ActionDef, TriggerSpec
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard, Trump
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    card_of,
    parse_card,
    split_ref,
)

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.adjudicator.games.blackpoker.lines import BlackPokerGameStarted
    from coreflow_judge.events.models import Request

MAX_TRUMPS = 2
"""A player places at most two trumps before the game (6.1 extra set-up)."""


class TrumpRules:
    """Trumps and granted abilities; mixed into the rules module (which provides
    ``boards``, ``data``, ``format``, ``find`` and ``actions``)."""

    boards: dict[str, PlayerBoard]
    data: dict[str, Any]
    format: str
    frame: str | None
    actions: dict[str, ActionDef]

    if TYPE_CHECKING:  # provided by the rules module
        def find(self, ref: str) -> Character | None: ...

    # ------------------------------------------------------------------ data
    @property
    def trumps_in_play(self) -> bool:
        """Does this match place trumps? The edition data's ``trumps_in`` says in which
        formats (6.1: the extra format) or frames (9.0: the extra frame)."""
        where: Mapping[str, Any] = self.data.get("trumps_in") or {}
        return (self.format in where.get("formats", ())
                or (self.frame is not None and self.frame in where.get("frames", ())))

    @property
    def trump_data(self) -> Mapping[str, Mapping[str, Any]]:
        """The abilities of the trump cards (empty where no trumps are in play)."""
        if not self.trumps_in_play:
            return {}
        trumps: Mapping[str, Mapping[str, Any]] = self.data.get("trumps") or {}
        return trumps

    def character_data(self, ch: Character) -> Mapping[str, Any]:
        spec: Mapping[str, Any] = self.data["characters"][ch.kind]
        return spec

    # ------------------------------------------------------------------ set-up
    def place_trumps(self, flow: CoreFlow, line: BlackPokerGameStarted) -> None:
        """The trumps each player placed face down before the game (6.1 extra)."""
        placed = line.trumps or {}
        if placed and not self.trumps_in_play:
            where = self.data.get("trumps_in") or {}
            only = " or ".join([f"the {f} format" for f in where.get("formats", ())]
                               + [f"the {f} frame" for f in where.get("frames", ())])
            this = self.format + (f" with the {self.frame} frame" if self.frame else "")
            flow.report("legality.setup-invalid", "bp-extra.trumps",
                        f"The set-up records trumps, but {this} has none: only "
                        f"{only or 'no regulation'} places trumps.", actual=dict(placed))
            return
        for player, cards in placed.items():
            if player not in self.boards:  # not in the match: the flow names it
                continue
            if len(cards) > MAX_TRUMPS:
                flow.report("legality.setup-invalid", "bp-extra.trumps",
                            f"{player} placed {len(cards)} trumps; at most {MAX_TRUMPS} may be "
                            "placed. The judge goes on with the trumps as placed.",
                            expected=MAX_TRUMPS, actual=len(cards))
            for ref in cards:
                card = card_of(ref)
                if parse_card(card) is None:
                    flow.report("log.unknown-ref", "log",
                                f"trumps.{player}: {ref!r} names no card.", actual=ref)
                    continue
                self.boards[player].trumps.append(Trump(card))

    # ------------------------------------------------------------------ trumps
    def face_up(self, player: str, card: str) -> bool:
        """Is ``card`` among ``player``'s trumps, face up (its ability in force)?"""
        b = self.boards.get(player)
        return b is not None and any(t.face_up and t.card == card for t in b.trumps)

    def abilities_up(self, player: str) -> list[tuple[str, Mapping[str, Any]]]:
        """The trump abilities in force for ``player``: (card, ability data)."""
        b = self.boards.get(player)
        if b is None:
            return []
        return [(t.card, self.trump_data[t.card]) for t in b.trumps
                if t.face_up and t.card in self.trump_data]

    def rule_in_force(self, rule: str, player: str | None = None) -> list[str]:
        """The players (or just ``player``) with a face-up trump changing ``rule``."""
        return [p for p in self.boards if (player is None or p == player)
                and any(a.get("rule") == rule for _, a in self.abilities_up(p))]

    def find_trump(self, ref: str) -> tuple[str, Trump] | None:
        """The trump ``owner:card`` names; ``owner:?`` the first face-down one whose face
        the log has not shown."""
        parts = split_ref(ref)
        if parts is None or parts[0] not in self.boards:
            return None
        owner, card = parts
        for t in self.boards[owner].trumps:
            if t.card == card or (card == UNKNOWN and not t.face_up):
                return owner, t
        for t in self.boards[owner].trumps:
            if t.card == UNKNOWN and not t.face_up:
                return owner, t
        return None

    def trump_triggers(self, player: str, event: str, source: str) -> list[TriggerSpec]:
        """The requests ``event`` triggers through ``player``'s face-up trumps and trump
        characters (``own_end``: they request End)."""
        out = [TriggerSpec(t["action"], source, player)
               for _, ability in self.abilities_up(player)
               for t in ability.get("triggers", ()) if t["event"] == event]
        for ch in self.boards[player].field:
            out += [TriggerSpec(t["action"], ch.ref, player)
                    for t in self.character_data(ch).get("triggers", ())
                    if t["event"] == event]
        return [t for t in out if t.action in self.actions]

    def discarded(self, player: str, count: int, source: str) -> list[TriggerSpec]:
        """``player`` discarded ``count`` hand cards: 暴動 of each opponent with 内乱 up."""
        if count <= 0:
            return []
        out = []
        for p in self.boards:
            if p == player:
                continue
            for spec in self.trump_triggers(p, "opponent_discards", source):
                out.append(TriggerSpec(spec.action, source, p,
                                       facts={"discarder": player, "count": count}))
        return out

    def on_staged(self, flow: CoreFlow, req: Req) -> list[TriggerSpec]:
        """Requesting End triggers what its requester's face-up trumps (幻影, 疲弊, 充足,
        手札補充) and 魔王 start; they are checked once End is on the stage, so they go above
        it and resolve before it (docs/decisions.md, E2)."""
        if req.action.id != "end" or req.triggered:
            return []
        return self.trump_triggers(req.controller, "own_end", req.id)

    # ------------------------------------------------------------------ granted actions
    def granted_by_trumps(self, action_id: str) -> list[str]:
        """The trump cards whose ability grants ``action_id``."""
        return [card for card, a in self.trump_data.items() if action_id in a.get("grants", ())]

    def grant_of(self, ch: Character, action_id: str) -> Mapping[str, Any] | None:
        """The grant of ``action_id`` that character ``ch`` has by its own ability."""
        for g in self.character_data(ch).get("grants", ()):
            if g["action"] == action_id:
                grant: Mapping[str, Any] = g
                return grant
        return None

    def character_suits(self, ch: Character) -> set[str]:
        """The suits a soldier counts as: its data's ``suits`` (a trump character is two),
        else the suits of its cards."""
        fixed = self.character_data(ch).get("suits")
        if fixed:
            return set(fixed)
        out = set()
        for c in ch.cards:
            card = parse_card(c)
            if card is not None and card.suit is not None:
                out.add(card.suit)
        return out

    def originator(self, line: Request) -> str | None:
        """The character a request names as its originator (its ``C`` cost)."""
        return next((c.ref for c in line.costs if c.kind == "C"), None)

    def originator_kind(self, action: ActionDef) -> str:
        """The kind of unit driven to start ``action`` (its key unit): a soldier, unless
        the trump granting it says otherwise (9.0 ファントム: a bulwark)."""
        for card in self.granted_by_trumps(action.id):
            kind = (self.trump_data[card].get("originator") or {}).get("kind")
            if kind is not None:
                return str(kind)
        return "soldier"

    def originator_problem(self, flow: CoreFlow, line: Request, action: ActionDef
                           ) -> tuple[str, str] | None:
        """Why the originating character named by the ``C`` cost cannot start ``action``
        now: (finding code, message); None when it can. The originator must be the
        requester's soldier (or the kind the trump names: :meth:`originator_kind`), in
        charge state, granted the action by a face-up trump (its suit) or by its own
        ability."""
        kind = self.originator_kind(action)
        ref = self.originator(line)
        if ref is None:
            return ("legality.cost-unpaid", f"{action.name} is started by driving a {kind}: "
                    "the request names none (a cost {\"kind\": \"C\", \"ref\": ...}).")
        ch = self.find(ref)
        if ch is None or ch.owner != line.player:
            return ("legality.cost-unpaid", f"{ref} is not a character of {line.player} on "
                    "the field.")
        if self.character_data(ch)["kind"] != kind:
            return ("legality.cost-unpaid", f"{ref} is not a {kind}.")
        if ch.state != "charge":
            return ("legality.cost-unpaid", f"{ref} is in drive state: it cannot be driven "
                    f"to start {action.name}.")
        grant = self.grant_of(ch, action.id)
        if grant is not None:
            if grant.get("needs_empty_stage") and flow.stage:
                return ("timing.main-stage-not-empty", f"{ref} starts {action.name} only "
                        "while the stage is empty.")
            return None
        suits = self.character_suits(ch)
        unseen = not self.character_data(ch).get("suits") and UNKNOWN in ch.cards
        for card in self.granted_by_trumps(action.id):
            want = set(self.trump_data[card].get("originator", {}).get("suits", ()))
            if want and not want & suits and not unseen:
                continue
            if self.face_up(line.player, card):
                if want and not want & suits:
                    return ("log.hidden-info", f"{ref} holds a card whose face is not shown: "
                            f"whether it is of the suit {card}'s ability reaches cannot be "
                            "checked.")
                return None
        cards = self.granted_by_trumps(action.id)
        hidden_up = self.face_up(line.player, UNKNOWN)
        if cards and hidden_up:
            return ("log.hidden-info", f"{line.player} has a face-up trump whose face the log "
                    f"does not show: whether it grants {action.name} cannot be checked.")
        if not cards:
            return ("legality.ability-not-in-force", f"{ref} ({ch.kind}) has no ability "
                    f"that starts {action.name}.")
        names = ", ".join(f"{c} {self.trump_data[c]['name']}" for c in cards)
        if not any(self.face_up(line.player, c) for c in cards):
            why = f"no such trump of {line.player} is face up"
        else:
            why = f"{ref} is not a {kind} of the suit it reaches"
        return ("legality.ability-not-in-force", f"{action.name} is started by driving a "
                f"{kind} under the ability of the trump {names}: {why}.")

    def grant_findings(self, flow: CoreFlow, line: Request, action: ActionDef
                       ) -> list[Finding]:
        """A trump action requested while no face-up trump of the requester grants it
        (``legality.ability-not-in-force``); an originated action's originator."""
        out: list[Finding] = []
        if action.data.get("originated") or self.originator(line) is not None:
            problem = self.originator_problem(flow, line, action)
            if problem is not None:
                code, msg = problem
                out.append(finding(code, line.seq, "bp-extra.abilities", msg,
                                   actual=self.originator(line)))
            return out
        cards = self.granted_by_trumps(action.id)
        if not cards or not self.trump_action(action):
            return out
        if not any(self.face_up(line.player, c) for c in cards) and self.face_up(
                line.player, UNKNOWN):
            out.append(finding(
                "log.hidden-info", line.seq, "bp-extra.abilities",
                f"{line.player} has a face-up trump whose face the log does not show: whether "
                f"it grants {action.name} cannot be checked.", severity="warning"))
        elif not any(self.face_up(line.player, c) for c in cards):
            names = ", ".join(f"{c} {self.trump_data[c]['name']}" for c in cards)
            out.append(finding(
                "legality.ability-not-in-force", line.seq, "bp-extra.abilities",
                f"{action.name} may be requested only while its trump is face up ({names} "
                f"among {line.player}'s trumps); it is not.", actual=line.action))
        return out

    def trump_action(self, action: ActionDef) -> bool:
        """Is ``action`` one that only trumps bring (6.1: of the extra format only; 9.0:
        of a frame placing trumps), rather than a base action a trump character may also
        start?"""
        where: Mapping[str, Any] = self.data.get("trumps_in") or {}
        formats, frames = action.data.get("formats"), action.data.get("frames")
        return bool((formats and set(formats) <= set(where.get("formats", ())))
                    or (frames and set(frames) & set(where.get("frames", ()))))

    def free_use(self, line: Request, action: ActionDef) -> Mapping[str, Any] | None:
        """A trump character's free use of a base action (リアニメーター's リアニメイト,
        チャリオット's 防壁破壊): the grant, when the request names such a character as its
        originator."""
        ref = self.originator(line)
        ch = self.find(ref) if ref is not None else None
        if ch is None or action.data.get("originated"):
            return None
        return self.grant_of(ch, action.id)
