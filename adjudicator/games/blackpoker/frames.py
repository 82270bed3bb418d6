"""Frames (フレーム, BlackPoker 9.0): what a match regulation's frame adds to its format.

A 9.0 regulation is a format plus a frame (``match_started.frame``). The frame fixes the
deck (エントリー16: sixteen given cards), the set-up (パック: fourteen cards set aside face
down as the pack, ``game_started.packs``) and adds actions that exist only in it
(``actions.<id>.frames``), some with a condition on the table (``condition``: the pack not
opened yet). All of it is the edition data's ``frames`` and ``actions``
(``data/edition-9.0.frames.yaml``, ``data/edition-9.0.frame-actions.yaml``); this module
reads it.

A mixin of :class:`~.rules.BlackPokerRules`, like :class:`~.trumps.TrumpRules`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import ActionDef
from coreflow_judge.adjudicator.games.blackpoker.board import PlayerBoard
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, card_of, parse_card

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow
    from coreflow_judge.adjudicator.games.blackpoker.lines import BlackPokerGameStarted
    from coreflow_judge.events.models import MatchStarted, Request


class FrameRules:
    """The frame's deck, set-up and action conditions; mixed into the rules module (which
    provides ``boards``, ``data``, ``format`` and ``frame``)."""

    boards: dict[str, PlayerBoard]
    data: dict[str, Any]
    format: str
    frame: str | None
    opening_hand: int

    @property
    def frame_data(self) -> Mapping[str, Any]:
        """The header's frame as the edition data gives it (empty: no frame)."""
        if self.frame is None:
            return {}
        frame: Mapping[str, Any] = self.data["frames"][self.frame]
        return frame

    @property
    def frame_setup(self) -> Mapping[str, Any]:
        setup: Mapping[str, Any] = self.frame_data.get("setup") or {}
        return setup

    # ------------------------------------------------------------------ the header
    def check_frame_header(self, flow: CoreFlow, header: MatchStarted) -> None:
        """The frame's deck condition on the header's decks (and counts), and whether the
        format is one the frame recommends (any pair is legal; some are recommended)."""
        fd = self.frame_data
        if not fd:
            return
        recommended = list(fd.get("recommended_formats") or ())
        if self.format not in recommended:
            flow.report("log.frame-not-recommended", "bp-frame",
                        f"The frame {self.frame} ({fd.get('name_ja', '')}) is recommended with "
                        f"{', '.join(recommended)}, not {self.format}; the match is judged as "
                        "recorded.", expected=recommended, actual=self.format)
        deck = fd.get("deck") or {}
        fixed = deck.get("fixed")
        least = deck.get("min_cards")
        for p, cards in (header.decks or {}).items():
            if fixed is not None and Counter(cards) != Counter(fixed):
                missing = sorted((Counter(fixed) - Counter(cards)).elements())
                extra = sorted((Counter(cards) - Counter(fixed)).elements())
                flow.report("legality.setup-invalid", "bp-frame.deck",
                            f"{p}'s deck is not the {fd.get('name_ja', self.frame)} deck: "
                            f"missing {', '.join(missing) or 'nothing'}, not allowed "
                            f"{', '.join(extra) or 'nothing'}. The judge goes on with the deck "
                            "as recorded.", expected=list(fixed), actual=list(cards))
            elif least is not None and len(cards) < least:
                flow.report("legality.setup-invalid", "bp-frame.deck",
                            f"{p}'s deck has {len(cards)} cards; the frame {self.frame} "
                            f"needs at least {least}.", expected=least, actual=len(cards))
        for p, n in (header.deck_sizes or {}).items():
            if p in (header.decks or {}):
                continue
            if fixed is not None and n != len(fixed):
                flow.report("legality.setup-invalid", "bp-frame.deck",
                            f"{p}'s deck has {n} cards; the {fd.get('name_ja', self.frame)} "
                            f"deck has {len(fixed)}.", expected=len(fixed), actual=n)
            elif least is not None and n < least:
                flow.report("legality.setup-invalid", "bp-frame.deck",
                            f"{p}'s deck has {n} cards; the frame {self.frame} needs at "
                            f"least {least}.", expected=least, actual=n)

    # ------------------------------------------------------------------ the pack
    def set_aside_packs(self, flow: CoreFlow, line: BlackPokerGameStarted) -> None:
        """パック: before the preset, the top ``setup.pack`` cards of each deck are set
        aside face down as the pack; the rest of the deck is the life. The log records
        them in ``game_started.packs`` (top first, ``?`` for a face not shown)."""
        size = self.frame_setup.get("pack")
        packs = self._recorded_cards(flow, "packs", line.packs, size, "bp-frame.pack",
                                     "pack", f"the top {size} cards of the "
                                     f"{self.data['deck_zone']} are set aside")
        if packs is None:
            return
        for p, b in self.boards.items():
            b.pack = []
            for card in packs[p]:
                top = b.pop_deck()
                if top is None:
                    flow.report("legality.effect-mismatch", "bp-frame.pack",
                                f"{p}'s deck runs out while the pack is set aside.")
                    break
                if top != UNKNOWN and card != UNKNOWN and top != card:
                    flow.report("legality.effect-mismatch", "bp-frame.pack",
                                f"The pack takes the top cards of {p}'s deck: {top}, not "
                                f"{card}.", expected=top, actual=card)
                b.pack.append(card if card != UNKNOWN else top)

    # ------------------------------------------------------------------ conditions
    def condition_findings(self, flow: CoreFlow, line: Request,
                           action: ActionDef) -> list[Finding]:
        """An action's ``condition`` (the edition data) on the table when it is requested:
        ``pack_unopened`` (パック開封: only while the requester's pack is not opened),
        ``life_at_most`` (レアドロー, レア召喚: only while the requester's life is at most
        that many cards)."""
        cond = action.data.get("condition") or {}
        board = self.boards.get(line.player)
        if board is None or not cond:
            return []
        out: list[Finding] = []
        if cond.get("pack_unopened"):
            if board.pack is None:
                why = f"{line.player} has no pack"
            elif board.pack_opened:
                why = f"{line.player}'s pack is opened already"
            else:
                why = ""
            if why:
                out.append(finding(
                    "legality.condition-unmet", line.seq, "bp-frame.pack_open",
                    f"{action.name} may be requested only while the requester's pack is not "
                    f"opened: {why}.", expected="pack not opened", actual=why))
        if "life_at_most" in cond:
            most = int(cond["life_at_most"])
            life = board.deck_count
            rule = f"bp-frame.{action.id}"
            if life is None:
                out.append(finding(
                    "log.hidden-info", line.seq, rule,
                    f"{action.name} needs {line.player}'s life at {most} or less; the log "
                    "does not give the life count.", severity="warning"))
            elif life > most:
                out.append(finding(
                    "legality.condition-unmet", line.seq, rule,
                    f"{action.name} may be requested only while the requester's life is "
                    f"{most} or less: {line.player}'s life is {life}.",
                    expected=f"life {most} or less", actual=life))
        return out

    # ------------------------------------------------------------------ the rare card
    @property
    def opening_draw(self) -> int:
        """The cards drawn into the opening hand: the hand less the scenario hand
        (ストラテジー: 3 chosen, 4 drawn to make 7)."""
        return self.opening_hand - int(self.frame_setup.get("scenario_hand", 0))

    def set_aside_chosen(self, flow: CoreFlow, line: BlackPokerGameStarted) -> None:
        """The cards a player chooses from the deck before the pack, in the order of the
        start: the scenario hand (ストラテジー, ``game_started.scenario``: into the hand),
        then the rare card (``game_started.rares``: face down in the zone レアカード). Each
        is taken out of the deck wherever it lies; the rest keeps the order the header
        gives (the deck as shuffled after the choice)."""
        self._choose_from_deck(flow, "scenario_hand", line.scenario, "scenario hand",
                               "bp-frame.scenario")
        self._choose_from_deck(flow, "rare", line.rares, "rare cards", "bp-frame.rare")

    def _choose_from_deck(self, flow: CoreFlow, key: str,
                          recorded: Mapping[str, list[str]] | None, what: str,
                          rule: str) -> None:
        field_name = {"rare": "rares", "scenario_hand": "scenario"}[key]
        size = self.frame_setup.get(key)
        chosen = self._recorded_cards(flow, field_name, recorded, size, rule, what,
                                      f"{size} unseen card(s) are taken out of the deck")
        if chosen is None:
            return
        for p, b in self.boards.items():
            if key == "rare":
                b.rare = []
            for card in chosen[p]:
                if not self._out_of_deck(b, card):
                    flow.report("legality.setup-invalid", rule,
                                f"{p}'s {what} ({field_name}): {card} is not in {p}'s deck; the "
                                "cards are chosen from the deck.", actual=card)
                if key == "rare":
                    assert b.rare is not None
                    b.rare.append(card)
                else:
                    b.add_to_hand(card)

    def _recorded_cards(self, flow: CoreFlow, field_name: str,
                        recorded: Mapping[str, list[str]] | None, size: int | None,
                        rule: str, what: str, otherwise: str) -> dict[str, list[str]] | None:
        """The cards ``game_started.<field_name>`` records for each player, for a frame
        whose set-up takes ``size`` of them (the pack, the rare card, the scenario hand);
        None where the frame takes none (recording some is ``legality.setup-invalid``).
        A player left out is a warning and gets ``size`` unseen cards (``otherwise`` says
        what the judge does); another count is reported and the recorded cards stand; a
        reference that names no card is an unseen card."""
        if size is None:
            if recorded:
                flow.report("legality.setup-invalid", rule,
                            f"The set-up records {field_name}, but the match's frame "
                            f"({self.frame or 'none'}) has none.", actual=dict(recorded))
            return None
        recorded = recorded or {}  # a player not in the match: the flow names it
        out: dict[str, list[str]] = {}
        for p in self.boards:
            shown = recorded.get(p)
            if shown is None:
                flow.report("log.choice-missing", rule,
                            f"{p}'s {what} ({field_name}) is not recorded: {otherwise}.",
                            severity="warning")
                shown = [UNKNOWN] * int(size)
            elif len(shown) != size:
                flow.report("legality.setup-invalid", rule,
                            f"{p}'s {what} ({field_name}) has {len(shown)} card(s); the frame "
                            f"{self.frame} takes {size}. The judge goes on with the set-up "
                            "as recorded.", expected=size, actual=len(shown))
            out[p] = []
            for ref in shown:
                card = card_of(ref)
                if card != UNKNOWN and parse_card(card) is None:
                    flow.report("log.unknown-ref", "log",
                                f"{field_name}.{p}: {ref!r} names no card.", actual=ref)
                    card = UNKNOWN
                out[p].append(card)
        return out

    @staticmethod
    def _out_of_deck(b: PlayerBoard, card: str) -> bool:
        """Take ``card`` out of the deck wherever it lies; False when the deck, known, does
        not hold it. An unseen card leaves a known deck unknown card by card."""
        if b.deck is None:
            return True
        if card != UNKNOWN and card in b.deck:
            b.deck.remove(card)
            return True
        if UNKNOWN in b.deck:
            b.deck.remove(UNKNOWN)
            return True
        if card == UNKNOWN and b.deck:
            b.deck = [UNKNOWN] * (len(b.deck) - 1)
            return True
        return False

    def take_key(self, board: PlayerBoard, card: str, spec: Mapping[str, Any] | None) -> None:
        """A key card leaves where the action takes it from: the rare card zone
        (``key.from: rare``), else the hand."""
        if (spec or {}).get("from") == "rare":
            if board.rare:
                board.rare.remove(card if card in board.rare else board.rare[0])
            return
        board.take_from_hand(card)

    def rare_key_problem(self, board: PlayerBoard, card: str, used: int) -> str | None:
        """Why ``card`` cannot be a key card taken from the rare card zone (None: it can)."""
        rare = board.rare
        if rare is None:
            return "the frame has no rare card"
        if card == UNKNOWN:
            return None if len(rare) >= used else "no rare card is left"
        if rare.count(card) + rare.count(UNKNOWN) >= used:
            return None
        return f"{card} is not a rare card of this player"
