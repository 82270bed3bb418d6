"""BlackPoker's rules module: the edition data interpreted for the core flow.

The edition packs (``data/edition-*.yaml``) say what each action costs, which key cards
and targets it takes, and its effect as a list of *steps*; this module carries out the
steps as primitive effects (the vocabulary of match-log.md: ``move``, ``draw``,
``damage``, ``enter``, ``charge``, ``drive``, ``size``, ``negate``, ``turn``, ``shuffle``,
plus ``reveal``). A resolution is computed first, compared with the effects the log
claims, then applied: the rules' version when they agree, the log's when they do not
(the judge follows the game as it was played).

Steps:
``enter_bulwark_from_hand`` a hand card face down as a bulwark (choice ``card``) ·
``enter`` the key card as a character · ``equip`` the key card onto the target soldier ·
``charge_all`` every character of the turn player to charge state · ``draw`` (choice or
fixed count) · ``discard_to_hand_limit`` (choice ``discard``) · ``fog_to_graveyard`` ·
``end_turn`` · ``designate_attackers`` (choice ``attackers``) · ``designate_blockers``
(choice ``blockers``) · ``damage_judgement`` · ``size`` ± the key card's number ·
``destroy_if_size_not_positive`` · ``key_to_fog`` · ``twist`` (choice ``state``) ·
``counter`` · ``destroy_target`` · ``damage_target`` · ``search`` (choice ``card``) ·
``dig`` (世代交代: mill until a Joker/A/J/Q/K, which goes to hand).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import itertools
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import (
    ActionDef,
    FlowPolicy,
    GameResult,
    Resolution,
    RulesHooks,
    Sight,
    TriggerSpec,
    UnsupportedRules,
)
from coreflow_judge.adjudicator.games.blackpoker.abilities import (
    Ability,
    Computation,
    compute,
    explain,
    waived,
)
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    CARD_COSTS,
    CARD_WORDS,
    UNKNOWN,
    Card,
    card_of,
    is_card_ref,
    number,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.blackpoker.frames import FrameRules
from coreflow_judge.adjudicator.games.blackpoker.lines import Preset, setup_of
from coreflow_judge.adjudicator.games.blackpoker.options import request_options
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step, step_mixins
from coreflow_judge.adjudicator.games.blackpoker.trumps import TrumpRules
from coreflow_judge.adjudicator.games.choices import choice_findings, readable
from coreflow_judge.adjudicator.games.common import deck_out, load_edition_data, unknown_decks
from coreflow_judge.adjudicator.games.edition_cache import checked_data
from coreflow_judge.adjudicator.plan import ResolutionPlan
from coreflow_judge.adjudicator.policies import CoreTriggerOrder
from coreflow_judge.events.models import Resolve

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.events.models import GameStarted, MatchStarted, Request, Trigger

EDITIONS = ("6.1", "9.0")
SUIT_NAMES = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def resolution_class() -> type[Resolving]:
    """A resolution that knows every step: each steps module of this package
    (``steps_*.py``) is imported, registering its steps (``@step``) and its mixin of
    :class:`Resolving` (``@step_mixin``), and the class returned combines the mixins (those
    another one does not already extend). A new format's or frame's steps module is found
    here by its file name; nothing else names it."""
    package = __name__.rpartition(".")[0]
    for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if module.name.startswith("steps_"):
            importlib.import_module(f"{package}.{module.name}")
    seen: dict[str, type[Resolving]] = {}
    for m in step_mixins:  # one name, one meaning: no mixin hides another's method
        for name in vars(m):
            if not name.startswith("__") and seen.setdefault(name, m) is not m:
                raise TypeError(f"{m.__qualname__}.{name} is also "
                                f"{seen[name].__qualname__}.{name}")
    leaves = tuple(m for m in step_mixins
                   if not any(o is not m and issubclass(o, m) for o in step_mixins))
    return type("AnyResolving", leaves or (Resolving,),
                {"__doc__": "A resolution with every step.", "__module__": __name__})


_Resolving = resolution_class()
STEPS = step.names()
"""Every step the edition data may name in an action's ``effect``."""


def load_edition(edition: str) -> dict[str, Any]:
    """The edition data shipped in the package (never read from outside it), checked
    against the vocabulary this module knows (:func:`schema.check`): a typo in the data
    fails here, naming the file and the key, never in play. Checked once per content of
    the data and of this package's code, not once per start (:mod:`..edition_cache`)."""
    package = "coreflow_judge.adjudicator.games.blackpoker"

    def load() -> dict[str, Any]:
        from coreflow_judge.adjudicator.games.blackpoker import schema

        data = load_edition_data(package, edition)
        schema.check(data, STEPS)
        return data

    return checked_data(package, f"edition-{edition}", load)


def _reporter(out: list[Finding], seq: int) -> Callable[..., None]:
    """``rep(code, rule, message, **kw)``: a finding about line ``seq``, added to ``out``."""

    def rep(code: str, rule: str, msg: str, **kw: Any) -> None:
        out.append(finding(code, seq, rule, msg, **kw))

    return rep


@dataclasses.dataclass(slots=True)
class GameStartPlan:
    """What the game start does on known decks: what ``game_started`` records."""

    presets: dict[str, Preset] | None
    hands: dict[str, list[str]]
    """Each opening hand; the first player's ends with the card drawn after the reveals."""
    reveals: dict[str, list[str]]
    first_player: str
    packs: dict[str, list[str]] | None = None
    """The cards each player set aside as the pack (9.0 pack frames), top first."""
    scenario: dict[str, list[str]] | None = None
    """ストラテジー: the cards each player chose into the opening hand first (``hands``
    then holds the cards drawn)."""
    rares: dict[str, list[str]] | None = None
    """The rare card each player chose (9.0 rare frames)."""


class BlackPokerRules(FrameRules, TrumpRules, RulesHooks):
    """The rules of one BlackPoker edition and format, for one match."""

    def __init__(self, edition: str, fmt: str, frame: str | None = None) -> None:
        if edition not in EDITIONS:
            raise UnsupportedRules(
                f"unknown BlackPoker edition {edition!r} (known: {', '.join(EDITIONS)})",
                field="rules")
        self.data = load_edition(edition)
        formats = self.data["formats"]
        if fmt not in formats:
            raise UnsupportedRules(
                f"BlackPoker {edition} has no format {fmt!r} (its formats: "
                f"{', '.join(formats)})", field="format")
        not_yet = self.data["policy"].get("formats_not_judged_yet", {})
        if fmt in not_yet:
            raise UnsupportedRules(
                f"BlackPoker {edition} {fmt} is not judged yet: {not_yet[fmt]}",
                field="format")
        frames: dict[str, Any] = self.data.get("frames") or {}
        if frame is not None:
            if not frames:
                raise UnsupportedRules(
                    f"BlackPoker {edition} has no frames (a frame is part of a 9.0 "
                    "regulation)", field="frame")
            if frame not in frames:
                raise UnsupportedRules(
                    f"BlackPoker {edition} has no frame {frame!r} (its frames: "
                    f"{', '.join(frames)})", field="frame")
            if not frames[frame].get("judged", True):
                raise UnsupportedRules(
                    f"BlackPoker {edition} frame {frame!r} is not judged yet", field="frame")
        self.frame = frame
        """The regulation's frame, if the header names one (9.0)."""
        self.not_judged_yet: dict[str, str] = dict(
            frames[frame].get("not_judged_yet") or {}) if frame is not None else {}
        """The frame's actions and trump abilities the judge lacks yet: id -> why."""
        self.edition = edition
        self.format = fmt
        pol = self.data["policy"]
        self.pol = pol
        self.opening_hand = int(self.frame_setup.get("hand", pol["opening_hand"]))
        """The opening hand: the frame's (its set-up's ``hand``), else the edition's."""
        self.policy = FlowPolicy(
            requester_keeps_chance=bool(pol["requester_keeps_chance"]),
            resolve_before_cost_triggers=bool(pol["resolve_before_cost_triggers"]),
            shortcut_calls={c.lower(): tuple(chain or ()) for c, chain in
                            pol.get("shortcut_calls", {}).items()},
            rule_refs=dict(pol.get("rule_refs", {})),
        )
        self.trigger_order = CoreTriggerOrder()
        # An action with an alternative cost at quick timing (オープン $DD, the trump
        # summons $BD) may be requested at quick timing: that is its timing for the flow,
        # and the cost checks which cost the timing allows (:meth:`cost_of`).
        self.actions: dict[str, ActionDef] = {
            aid: ActionDef(
                id=aid, name=a["name"], name_ja=a.get("name_ja", ""), speed=a["speed"],
                timing=(a.get("alt_cost") or {}).get("timing", a["timing"]),
                direct=bool(a["direct"]), once_per_turn=bool(a.get("once_per_turn")), data=a,
            )
            for aid, a in self.data["actions"].items()
            if fmt in a.get("formats", formats) and ("frames" not in a or frame in a["frames"])
        }
        self.after: dict[str, dict[str, Any]] = {
            t["after"]: t for t in self.data["triggers"]
            if "after" in t and fmt in t.get("formats", formats)
        }
        self.on_event: dict[str, str] = {
            t["event"]: t["action"] for t in self.data["triggers"] if "event" in t
            and fmt in t.get("formats", formats)
        }
        """The action an event triggers (``field_to_graveyard`` -> 世代交代)."""
        self.ng_ranks = frozenset(pol["next_generation_ranks"])
        self.boards: dict[str, PlayerBoard] = {}
        self.abilities: list[Ability] = []
        """Abilities granted by effects and still in force (Up, Down, Force, ...)."""
        self.ended: list[Ability] = []
        self.unseen_left: list[tuple[str, str, str]] = []
        """Cards whose face the log never showed that moved from the field to the
        graveyard since the last request: (the action they may have triggered, its owner,
        the character) (:meth:`trigger_unseen`)."""
        """Abilities that were in force this turn and ended (for precedence findings: a
        table that still applies one). Cleared when the next turn starts."""
        self.clock = 0
        self._notes: list[str] = []
        if self.not_judged_yet:
            self._notes.append(
                f"The {frame} frame is judged except {len(self.not_judged_yet)} of its actions "
                f"and trump abilities ({', '.join(self.not_judged_yet)}): a request of one, "
                "or such a trump turning face up, is a log.not-judged-yet warning, and the "
                "judge rules on nothing after it.")
        self.deck_zone = self.data["deck_zone"]

    # ------------------------------------------------------------------ interface
    def action(self, action_id: str) -> ActionDef | None:
        return self.actions.get(action_id)

    def not_judged(self, action_id: str) -> str | None:
        why = self.not_judged_yet.get(action_id)
        return None if why is None else f"{action_id} is an action of the {self.frame} " \
            f"frame the judge does not judge yet ({why})"

    def notes(self) -> list[str]:
        return list(self._notes)

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    # ------------------------------------------------------------------ [1] game start
    def start_game(self, flow: CoreFlow, header: MatchStarted, line: GameStarted) -> None:
        """6.1: draw 7 each, reveal for the first player, first player draws 1.
        9.0: preset (bulwark, soldier), draw 7 each, reveal, first player draws 1."""
        decks = header.decks or {}
        sizes = header.deck_sizes or {}
        for p in flow.players:
            b = PlayerBoard()
            if p in decks:
                b.deck = list(decks[p])
            elif p in sizes:
                b.deck = [UNKNOWN] * sizes[p]
            else:
                b.deck = None
            self.boards[p] = b
        if not all(p in decks or p in sizes for p in flow.players):
            self._notes.append(
                "The header gives no deck size for every player: deck counts are unknown and "
                "deck-out cannot be ruled."
            )
        self.check_frame_header(flow, header)
        setup = setup_of(line)
        self.set_aside_chosen(flow, setup)
        self.set_aside_packs(flow, setup)
        self.place_trumps(flow, setup)
        presets = setup.presets or {}
        if self.pol["preset"]:
            for p in flow.players:
                self._preset(flow, p, presets.get(p))
        elif presets:
            flow.report("legality.effect-mismatch", "bp4.2.1", "This edition has no preset.")
        hands = line.hands or {}
        for p in flow.players:
            self._draw(flow, p, self.opening_draw, hands.get(p))
        reveals = line.reveals or {}
        for p in flow.players:
            for card in reveals.get(p, []):
                b = self.boards[p]
                top = b.pop_deck()
                b.graveyard.append(card if card != UNKNOWN else (top or UNKNOWN))
        first = self.first_by_reveals(flow.players, reveals)
        if first is not None and first != line.first_player:
            flow.report(
                "legality.effect-mismatch", "bp4.2.1",
                "The revealed cards give the first turn to another player (higher number "
                "goes first).", expected=first, actual=line.first_player,
            )
        fp = line.first_player
        extra = hands.get(fp, [])[self.opening_draw:]
        self._draw(flow, fp, self.pol["first_player_draws"], extra or None)

    @staticmethod
    def first_by_reveals(players: Sequence[str], reveals: Mapping[str, list[str]]
                         ) -> str | None:
        """bp4.2.1: the higher revealed number goes first (a Joker is 0); on a tie the next
        revealed cards decide. None while the reveals do not decide (or a face is hidden)."""
        if len(players) != 2 or not all(p in reveals for p in players):
            return None
        a, b = players
        for ca, cb in zip(reveals[a], reveals[b], strict=False):
            na, nb = number(ca), number(cb)
            if na is None or nb is None:
                return None
            if na != nb:
                return a if na > nb else b
        return None

    def _preset(self, flow: CoreFlow, player: str, preset: Any) -> None:
        """9.0 preset: the top card of life face up as a bulwark, the next as a soldier."""
        b = self.boards[player]
        if preset is None:
            flow.report("log.choice-missing", "bp4.2.1",
                        f"The 9.0 preset of {player} is not recorded.", severity="warning")
            return
        if preset.bulwark:
            top = b.pop_deck()
            card = card_of(preset.bulwark)
            self._check_top(flow, player, top, card)
            b.field.append(Character(f"{player}:{card}", player, "bulwark", [card],
                                     [0], timestamp=self.tick()))
        for g in preset.graveyard:
            top = b.pop_deck()
            card = card_of(g)
            self._check_top(flow, player, top, card)
            if self.may_be_preset_soldier(card) is True:
                flow.report("legality.effect-mismatch", "bp4.2.1",
                            f"{player}'s preset puts {card} into the graveyard, but it can be "
                            "the soldier: the preset puts the first card that can onto the "
                            "field.", expected="soldier", actual="graveyard")
            b.graveyard.append(card)
        if preset.soldier:
            top = b.pop_deck()
            card = card_of(preset.soldier)
            self._check_top(flow, player, top, card)
            if self.may_be_preset_soldier(card) is False:
                flow.report("legality.effect-mismatch", "bp4.2.1",
                            f"{player}'s preset soldier {card} cannot be a soldier in this "
                            f"format (a soldier is {self._preset_soldier_text()}): the preset "
                            "puts it into the graveyard and takes the next life card as the "
                            "soldier.", expected="graveyard", actual="soldier")
            kind = self._summon_kind(card)
            b.field.append(Character(f"{player}:{card}", player, kind or "soldier", [card],
                                     [0], timestamp=self.tick()))

    def plan_game_start(self, players: Sequence[str], decks: Mapping[str, list[str]]
                        ) -> GameStartPlan:
        """The game start on decks known card by card (top first), as the rules carry it
        out: the 9.0 preset (the top card a bulwark, then the first card that may be the
        soldier, the ones before it to the graveyard), the opening hands, reveals until the
        numbers differ, and the first player's draw. Pure: nothing is changed. A deck too
        short for all of it is a ValueError (a log's game start is checked by start_game).
        """
        top = dict.fromkeys(players, 0)

        def take(p: str, n: int = 1) -> list[str]:
            cards = decks[p][top[p]:top[p] + n]
            if len(cards) < n:
                raise ValueError(f"{p}'s deck runs out during the game start")
            top[p] += n
            return cards

        # The plan chooses the scenario hand and the rare card from the top of the deck (a
        # player may choose any card; the deck is shuffled after, so the top is as good).
        scenario: dict[str, list[str]] | None = None
        if "scenario_hand" in self.frame_setup:
            scenario = {p: take(p, int(self.frame_setup["scenario_hand"])) for p in players}
        rares: dict[str, list[str]] | None = None
        if "rare" in self.frame_setup:
            rares = {p: take(p, int(self.frame_setup["rare"])) for p in players}
        packs: dict[str, list[str]] | None = None
        if "pack" in self.frame_setup:
            packs = {p: take(p, int(self.frame_setup["pack"])) for p in players}
        presets: dict[str, Preset] | None = None
        if self.pol["preset"]:
            presets = {}
            for p in players:
                bulwark = take(p)[0]
                graveyard: list[str] = []
                soldier = take(p)[0]
                while not self.may_be_preset_soldier(soldier):
                    graveyard.append(soldier)
                    soldier = take(p)[0]
                presets[p] = Preset(bulwark=bulwark, soldier=soldier, graveyard=graveyard)
        hands = {p: take(p, self.opening_draw) for p in players}
        reveals: dict[str, list[str]] = {p: [] for p in players}
        first = None
        while first is None:
            for p in players:
                reveals[p] += take(p)
            first = self.first_by_reveals(players, reveals)
        hands[first] = hands[first] + take(first, self.pol["first_player_draws"])
        return GameStartPlan(presets, hands, reveals, first, packs, scenario, rares)

    def may_be_preset_soldier(self, card: str) -> bool | None:
        """The 9.0 preset: may ``card`` enter the field as the preset soldier in this format?

        Decided by the edition data's ``preset_soldier_ranks`` (lite: A-K; a Joker would be
        a magician, which lite does not have, so it goes to the graveyard and the next life
        card is tried). None when the face is not shown.
        """
        c = parse_card(card)
        if c is None or c.rank is None:
            return None
        return c.rank in self.pol.get("preset_soldier_ranks", ())

    def _preset_soldier_text(self) -> str:
        names = {0: "Joker", 1: "A", 11: "J", 12: "Q", 13: "K"}
        ranks = sorted(self.pol.get("preset_soldier_ranks", ()))
        if not ranks:
            return "no card"
        if ranks == list(range(ranks[0], ranks[-1] + 1)):
            return f"{names.get(ranks[0], ranks[0])}-{names.get(ranks[-1], ranks[-1])}"
        return ", ".join(str(names.get(r, r)) for r in ranks)

    def character_for(self, cards: list[str]) -> str:
        """The character a unit of these cards is, by the edition's rules (a unit "put as a
        soldier" is re-evaluated): several cards an armed soldier; an A an ace; 2-10 a
        common soldier; J-K a hero; a Joker a magician where the format has one. An unseen
        face counts as a common soldier."""
        if len(cards) > 1:
            return "armed_soldier"
        n = number(cards[0]) if cards else None
        if n == 0:
            magician = self.data["characters"].get("magician")
            if magician and self.format in magician.get("formats", [self.format]):
                return "magician"
            return "soldier"
        return self._summon_kind(cards[0]) or "soldier"

    def _summon_kind(self, card: str) -> str | None:
        n = number(card)
        if n is None:
            return "soldier"
        if n == 1:
            return "ace"
        if 2 <= n <= 10:
            return "soldier"
        if 11 <= n <= 13:
            return "hero"
        return None

    def _check_top(self, flow: CoreFlow, player: str, top: str | None, card: str) -> None:
        if top is None:
            flow.report("legality.effect-mismatch", "bp4.2.1", f"{player}'s deck is empty.")
        elif top != UNKNOWN and card != UNKNOWN and top != card:
            flow.report("legality.effect-mismatch", "bp4.2.1",
                        f"{player}'s top card is {top}, not {card}.", expected=top, actual=card)

    def _draw(self, flow: CoreFlow, player: str, n: int, shown: list[str] | None) -> list[str]:
        b = self.boards[player]
        got: list[str] = []
        for i in range(n):
            top = b.pop_deck()
            if top is None:
                break
            claimed = card_of(shown[i]) if shown and i < len(shown) else UNKNOWN
            if top != UNKNOWN and claimed != UNKNOWN and top != claimed:
                flow.report("legality.effect-mismatch", "bp4.2.1",
                            f"{player} drew {claimed} but the deck's top card was {top}.",
                            expected=top, actual=claimed)
                if b.deck is not None and claimed in b.deck:
                    # As played: the table took that card; the top card stays on top.
                    b.deck.remove(claimed)
                    b.deck.insert(0, top)
            card = claimed if claimed != UNKNOWN else top
            b.add_to_hand(card)
            got.append(card)
        return got

    # ------------------------------------------------------------------ characters
    def find(self, ref: str) -> Character | None:
        parts = split_ref(ref)
        if parts is None or parts[0] not in self.boards:
            return None
        owner, card = parts
        for b in self.boards.values():
            for ch in b.field:
                if ch.ref == ref or (ch.owner == owner and card in ch.cards):
                    return ch
        return None

    def unit_of(self, flow: CoreFlow, ref: str) -> set[str]:
        """The cards of the character ``ref`` names (any of its cards names it, match-log
        "References"), as ``owner:card`` references; ``ref`` alone off the field."""
        ch = self.find(ref)
        if ch is None:
            return {ref}
        return {ref, *(f"{ch.owner}:{c}" for c in ch.cards)}

    def bulwark_for_cost(self, player: str, ref: str, used: set[str]) -> Character | None:
        """The bulwark a $B names; ``player:?`` is any charge-state bulwark not yet used."""
        if card_of(ref) != UNKNOWN:
            return self.find(ref)
        board = self.boards.get(player)
        if board is None:
            return None
        for ch in board.field:
            if ch.kind == "bulwark" and ch.state == "charge" and ch.ref not in used:
                return ch
        return None

    def printed_size(self, ch: Character) -> int | None:
        """The value before abilities: the card's number (a sum of its cards for an armed
        soldier); None for a bulwark or a face the log does not show."""
        spec = self.data["characters"][ch.kind]
        rule = spec["size"]
        if rule == "none":
            return None
        if rule == "fixed":  # a trump character's number (リアニメーター 11, 魔王 26)
            return int(spec["number"])
        ranks = ch.ranks()
        if any(r is None for r in ranks):
            return None
        if rule == "sum":
            return sum(r for r in ranks if r is not None)
        return ranks[0] or 0

    def abilities_on(self, ch: Character, stat: str = "size",
                     pool: list[Ability] | None = None) -> list[Ability]:
        """The abilities of ``pool`` (default: those in force) that reach ``ch``."""
        kind = self.data["characters"][ch.kind]["kind"]
        out = []
        for a in self.abilities if pool is None else pool:
            if a.stat != stat:
                continue
            if a.scope == "this":
                if a.character == ch.ref:
                    out.append(a)
                continue
            if a.scope == "your" and a.owner != ch.owner:
                continue
            want = a.applies.get("kind")
            if want is not None and want != kind:
                continue
            out.append(a)
        return out

    def size_computation(self, ch: Character) -> Computation | None:
        """The size as the rules compute it, step by step (None: no size, or unseen)."""
        printed = self.printed_size(ch)
        reach = self.abilities_on(ch)
        if printed is None or any(a.unknown for a in reach):
            return None
        return compute(printed, reach)

    def size_hidden(self, ch: Character) -> bool:
        """``ch`` has a size that a face or a number the log does not show hides (not a
        character without a size, such as a bulwark)."""
        if self.data["characters"][ch.kind]["size"] == "none":
            return False
        return self.size(ch) is None

    def size(self, ch: Character) -> int | None:
        """Printed value, then abilities: all, your, this; oldest first in a scope."""
        comp = self.size_computation(ch)
        return None if comp is None else comp.value

    def size_steps(self, ch: Character) -> list[str]:
        """The size computation as a judge reads it: printed value, then each ability."""
        comp = self.size_computation(ch)
        return [] if comp is None else comp.text().split("; ")

    def explain_size(self, ch: Character, recorded: int, what: str, cap: int | None = None,
                     ) -> tuple[str, str] | None:
        """The precedence mistake that gives ``recorded`` as ``ch``'s size, if one does:
        (finding code, message with both computations). ``cap``: the size was a count cut
        to ``cap`` cards (:func:`~.abilities.explain`)."""
        printed = self.printed_size(ch)
        reach = self.abilities_on(ch)
        ended = [a for a in self.abilities_on(ch, pool=self.ended) if not a.unknown]
        if printed is None or any(a.unknown for a in reach):
            return None
        found = explain(printed, reach, ended, recorded, what, cap)
        return None if found is None else (found.code, found.message)

    def grant(self, ability: Ability) -> None:
        """An effect grants a lasting ability."""
        self.abilities.append(ability)

    def end_abilities(self, until: str, character: str | None = None) -> None:
        """The abilities lasting ``until`` end (all of them, or those on ``character``)."""
        keep = []
        for a in self.abilities:
            if a.until == until and (character is None or a.character == character):
                self.ended.append(a)
            else:
                keep.append(a)
        self.abilities = keep

    def static_abilities(self, stat: str) -> list[Ability]:
        """The characters' own abilities now in force (while each is on the field), from
        the edition data's ``characters.<kind>.abilities``."""
        out = []
        for p, b in self.boards.items():
            for ch in b.field:
                for spec in self.data["characters"][ch.kind].get("abilities", ()):
                    if spec["stat"] != stat:
                        continue
                    out.append(Ability(
                        name=spec["name"], source=f"{ch.kind} {ch.ref}", owner=p,
                        scope=spec["scope"], timestamp=ch.timestamp, stat=stat,
                        op=spec["op"], amount=int(spec.get("amount", 0)),
                        letters=str(spec.get("letters", "")), character=ch.ref,
                        applies=spec.get("applies", {}), until="while_on_field"))
        return out

    def cost_of(self, action: ActionDef, player: str, main: bool = True
                ) -> tuple[str, list[Ability]]:
        """What ``action`` costs ``player`` now: the printed cost less what the abilities in
        force waive (魔力増加), and the abilities that waived part of it. Outside main timing
        (``main`` False) an action with an alternative quick-timing cost costs that."""
        alt = action.data.get("alt_cost")
        printed = "".join(sorted(action.data.get("cost") or ""))
        if alt is not None and not main:
            printed = "".join(sorted(alt["cost"]))
        reach = [a for a in self.static_abilities("cost") + self.abilities
                 if a.stat == "cost" and self._reaches_action(a, action, player)]
        left, used = waived(printed, reach)
        return "".join(sorted(left)), used

    def _cost_precedence(self, action: ActionDef, player: str, want: str, got: str,
                         waivers: list[Ability]) -> str | None:
        """The request paid the cost computed with a waiver left out, or with one that had
        ended still applied: a precedence mistake, in words; None otherwise."""
        printed = "".join(sorted(action.data.get("cost") or ""))
        show = lambda c: "$" + c if c else "nothing"  # noqa: E731
        if waivers and got == printed:
            return (f"{action.name} costs {show(want)} now: {show(printed)} as printed, "
                    f"then {'; '.join(a.describe() for a in waivers)}. The request paid the "
                    f"printed {show(got)}, leaving the ability out.")
        for a in self.ended:
            if a.stat != "cost" or not self._reaches_action(a, action, player):
                continue
            left, used = waived(want, [a])
            if used and "".join(sorted(left)) == got:
                return (f"{action.name} costs {show(want)}: {a.name} ({a.source}, scope "
                        f"{a.scope}) no longer applies, its source having left the field. "
                        f"The request paid {show(got)}, still applying it.")
        return None

    @staticmethod
    def _reaches_action(a: Ability, action: ActionDef, player: str) -> bool:
        if a.scope == "your" and a.owner != player:
            return False
        types = a.applies.get("type")
        if types is not None and action.data.get("type") not in types:
            return False
        timing = a.applies.get("timing")
        return timing is None or timing == action.timing

    def may_attack(self, ch: Character, turn: int) -> bool:
        """A soldier in charge state; preparation unless it has haste."""
        spec = self.data["characters"][ch.kind]
        if spec["kind"] != "soldier" or ch.state != "charge":
            return False
        haste = spec["haste"]
        if haste == "if_ace":
            haste = 1 in ch.ranks()
        if haste:
            return True
        return not all(t == turn for t in ch.entered)

    def may_block(self, ch: Character) -> bool:
        return ch.state == "charge"

    def over_hand_limit(self, player: str) -> int | None:
        """bp6.2: how many cards ``player`` discards at End, down to the hand limit (0
        when the hand is within it); None when the hand's count is not known."""
        count = self.boards[player].hand_count
        if count is None:
            return None
        return max(0, count - int(self.pol["hand_limit"]))

    # ------------------------------------------------------------------ requesting
    def table_allows(self, flow: CoreFlow, line: Request, action: ActionDef) -> bool:
        """A face-up trump grants the action (the extra trumps), it is not one its requester
        may make only off their own turn (クイック召喚), its condition on the table holds
        (the frames' pack not opened, life at most 9) and, for a key card taken from the
        rare card zone, one is left there: the parts of :meth:`request_findings` that need
        no key card, cost or target, and read only what every player sees."""
        if action.data.get("originated"):
            return True  # started by a soldier the request names: not known before it
        if (action.data.get("flags") or {}).get("only_when_not_turn_player") and \
                line.player == flow.turn_player:
            return False  # クイック召喚: never on one's own turn
        key = action.data.get("key") or {}
        board = self.boards.get(line.player)
        if key.get("from") == "rare" and board is not None and not board.rare:
            return False  # its key card is a rare card, and none is left (a public count)
        return not any(f.severity == "error" for f in (
            self.grant_findings(flow, line, action) + self.condition_findings(flow, line, action)))

    def request_findings(self, flow: CoreFlow, line: Request, action: ActionDef) -> list[Finding]:
        """bp4.3: what a request breaks when it is made, checked in this order: the
        abilities that grant the action and its conditions, its key cards (★), the turn it
        may be requested on, its costs ($), its target and its request-time choices. Never
        mutates."""
        out: list[Finding] = []
        board = self.boards.get(line.player)
        if board is None:
            return out
        # Abilities that grant the action (6.1 extra: trumps, trump characters).
        out += self.grant_findings(flow, line, action)
        out += self.condition_findings(flow, line, action)
        free = self.free_use(line, action)
        keys = self._check_key_cards(line, action, board, free, out)
        self._check_not_own_turn(flow, line, action, out)
        self._check_cost_total(flow, line, action, free, out)
        taken = self._check_cost_cards(line, board, keys, out)
        self._check_target(flow, line, action, keys, out)
        self._check_request_choices(line, action, board, taken, out)
        return out

    def _check_key_cards(self, line: Request, action: ActionDef, board: PlayerBoard,
                         free: Mapping[str, Any] | None, out: list[Finding]) -> list[str]:
        """bp4.3.1: a request names as many key cards (★) as its action takes, each a card
        of the requester that meets the action's key-card condition (suit, rank range,
        Joker; on one another: same suit, same rank, a rank set), taken from the hand
        unless the action says otherwise (rulings A5; the rare card zone in the 9.0
        frames). None where a character's free use supplies virtual ones. A key card
        written ``?`` cannot be checked: a warning. Returns the key cards named."""
        rep = _reporter(out, line.seq)
        player = line.player
        spec = None if free is not None else action.data.get("key")
        patterns = spec.get("cards") or [{}] * len(spec.get("rank_set", ())) if spec else []
        keys = []
        for ref in line.key_cards:
            parts = split_ref(ref)
            if parts is None or parts[0] != player or parse_card(parts[1]) is None:
                rep("legality.key-card-invalid", "bp4.3.1",
                    f"Key card {ref!r} is not a card of {player}.", actual=ref)
                continue
            keys.append(parts[1])
        if len(line.key_cards) != len(patterns):
            rep("legality.key-card-invalid", "bp4.3.1",
                f"{action.name} takes {len(patterns)} key card(s).",
                expected=len(patterns), actual=len(line.key_cards))
        elif len(keys) == len(patterns):
            if UNKNOWN in keys:
                rep("log.hidden-info", "bp4.3.1",
                    "The key card's face is not recorded; its condition cannot be checked.",
                    severity="warning")
            elif not self._keys_match(keys, patterns) or not self._keys_related(keys, spec):
                rep("legality.key-card-invalid", "bp4.3.1",
                    f"{', '.join(keys)} does not meet {action.name}'s key-card condition.",
                    expected=self._pattern_text(patterns), actual=keys)
            self._check_key_card_places(line, action, board, spec, keys, out)
        return keys

    def _check_key_card_places(self, line: Request, action: ActionDef, board: PlayerBoard,
                               spec: Mapping[str, Any] | None, keys: list[str],
                               out: list[Finding]) -> None:
        """bp4.3.1, rulings A5: key cards come from the requester's hand (each one as many
        times as the hand holds it), unless the action takes them from the rare card zone
        (9.0 frames)."""
        rep = _reporter(out, line.seq)
        player = line.player
        used: dict[str, int] = {}
        for k in keys:
            used[k] = used.get(k, 0) + 1
            if spec and spec.get("from") == "rare":  # the rare card zone (9.0 frames)
                why = self.rare_key_problem(board, k, used[k])
                if why is not None:
                    rep("legality.key-card-invalid", "bp4.3.1",
                        f"{action.name} takes its key card from the rare card zone: "
                        f"{why}.", actual=k)
                continue
            where = self.seen_outside_hand(player, k)
            if where is not None:  # rulings A5: key cards come from the hand
                rep("legality.key-card-invalid", "bp4.3.1",
                    f"{k} is {where}, not in {player}'s hand: key cards come from the "
                    "hand unless the action says otherwise.", actual=k)
            elif k != UNKNOWN and not self._hand_has(board, k, used[k]):
                rep("legality.key-card-invalid", "bp4.3.1",
                    f"{k} is not in {player}'s hand.", actual=k)

    @staticmethod
    def _check_not_own_turn(flow: CoreFlow, line: Request, action: ActionDef,
                            out: list[Finding]) -> None:
        """bp4.5.3.4: an action flagged ``only_when_not_turn_player`` (クイック召喚) may be
        requested only while its requester does not have the turn."""
        flags = action.data.get("flags") or {}
        if flags.get("only_when_not_turn_player") and line.player == flow.turn_player:
            _reporter(out, line.seq)(
                "timing.not-while-turn-player", "bp4.5.3.4",
                f"{line.player} requested {action.name} on their own turn; it may be "
                "requested only while its requester does not have the turn.",
                expected="the opponent's turn", actual="own turn")

    def _check_cost_total(self, flow: CoreFlow, line: Request, action: ActionDef,
                          free: Mapping[str, Any] | None, out: list[Finding]) -> None:
        """bp4.3.1.1: the costs paid are the action's ($ letters, as the abilities in force
        make them: a waiver left out or applied after it ended is a precedence finding).
        An action with a quick-timing cost (``alt_cost``) requested outside main timing
        pays that one; at main timing it may pay either. The originating soldier of an
        originated action, or a character's free use, is driven and nothing else."""
        rep = _reporter(out, line.seq)
        a = action.data
        player = line.player
        main = flow.main_timing(player)
        want, waivers = self.cost_of(action, player, main)
        if a.get("originated") or free is not None:
            want, waivers = "C", []  # the originating soldier is driven, nothing else
        got = "".join(sorted(c.kind for c in line.costs))
        alt = a.get("alt_cost")
        if alt is not None and main and got == "".join(sorted(alt["cost"])):
            want = got  # the quick-timing cost may be paid at main timing too
        if alt is not None and not main and want != got and got == "".join(
                sorted(a.get("cost") or "")):
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"{action.name} was requested outside main timing (the stage not empty, or "
                f"not {player}'s turn): only its quick-timing cost ${want} allows that; the "
                f"request paid the main-timing ${got}.", expected=want, actual=got)
        elif want != got:
            why = self._cost_precedence(action, player, want, got, waivers)
            if why is not None:
                rep("precedence.value-mismatch", "bp4.3.1.1", why,
                    expected=want or None, actual=got or None)
            else:
                rep("legality.cost-unpaid", "bp4.3.1.1",
                    f"{action.name} costs {'$' + want if want else 'nothing'}"
                    + (f" ({', '.join(a.describe() for a in waivers)})" if waivers else "")
                    + f"; the request paid {'$' + got if got else 'nothing'}.",
                    expected=want or None, actual=got or None)

    def _check_cost_cards(self, line: Request, board: PlayerBoard, keys: list[str],
                          out: list[Finding]) -> dict[str, int]:
        """bp4.3.1.1: each cost names what pays it: $B a charge-state bulwark of the
        requester (driven by it, so not twice), $L the top card of the deck (life), $D a
        card in the requester's hand besides the key cards, $S a character of the
        requester. Returns the hand cards the request takes (key cards and $D), by how
        many times."""
        rep = _reporter(out, line.seq)
        player = line.player
        discards: dict[str, int] = {}
        for k in keys:
            discards[k] = discards.get(k, 0) + 1
        drive_seen: set[str] = set()
        lost = 0
        for i, c in enumerate(line.costs):
            if c.kind in CARD_COSTS and not is_card_ref(c.ref):  # names no card at all
                rep("log.unknown-ref", "log", f"costs[{i}].ref: {c.ref!r} names no card "
                    f"({CARD_WORDS}).", actual=c.ref)
                lost += c.kind == "L"
                continue
            if c.kind == "B":
                self._check_bulwark_cost(player, c.ref, drive_seen, rep)
            elif c.kind == "L":
                lost += 1
                self._check_lose_cost(player, board, c.ref, lost, rep)
            elif c.kind == "D":
                parts = split_ref(c.ref)
                card = parts[1] if parts else c.ref
                discards[card] = discards.get(card, 0) + 1
                if parts is None or parts[0] != player:
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"{c.ref} is not a card of {player}.", actual=c.ref)
                elif not self._hand_has(board, card, discards[card]):
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"{card} is not in {player}'s hand to discard.", actual=c.ref)
            elif c.kind == "S":
                ch = self.find(c.ref)
                if ch is None or ch.owner != player:
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"{c.ref} is not a character of {player}.", actual=c.ref)
        return discards

    def _check_bulwark_cost(self, player: str, ref: str, drive_seen: set[str],
                            rep: Callable[..., None]) -> None:
        """bp4.3.1.1 $B: drive a charge-state bulwark of the requester (``drive_seen``: those
        this request already drove, which it adds to)."""
        ch = self.bulwark_for_cost(player, ref, drive_seen)
        if ch is None or ch.owner != player or ch.kind != "bulwark":
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"{ref} is not a bulwark of {player}.", actual=ref)
        elif ch.state != "charge" or ch.ref in drive_seen:
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"The bulwark {ref} is in drive state and cannot pay $B.",
                actual=ref)
        else:
            drive_seen.add(ch.ref)

    def _check_lose_cost(self, player: str, board: PlayerBoard, ref: str, lost: int,
                         rep: Callable[..., None]) -> None:
        """bp4.3.1.1 $L: lose the top card of the deck (life); the ``lost``-th $L of the
        request loses the ``lost``-th card from the top, which must be there."""
        top = None if board.deck is None or len(board.deck) < lost else \
            board.deck[lost - 1]
        named = card_of(ref)
        if board.deck is not None and len(board.deck) < lost:
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"{player} has no card left in the {self.deck_zone} to pay $L "
                "(lose the top card).")
        elif top not in (None, UNKNOWN) and named != UNKNOWN and named != top:
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"$L loses the top card of the {self.deck_zone}, {top}, not {named}.",
                expected=f"{player}:{top}", actual=ref)

    def _check_target(self, flow: CoreFlow, line: Request, action: ActionDef,
                      keys: list[str], out: list[Finding]) -> None:
        """bp4.3.2.1: an action with a target names exactly one, which meets its condition
        when requested (``_target_problem``); one without names none. A target no line
        made is ``log.unknown-ref``; one whose hidden face decides the condition cannot be
        checked: a warning."""
        rep = _reporter(out, line.seq)
        tspec = action.data.get("target")
        if tspec is None:
            if line.targets:
                rep("legality.target-invalid", "bp4.3.2.1",
                    f"{action.name} takes no target.", actual=line.targets)
        elif len(line.targets) != 1:
            rep("legality.target-invalid", "bp4.3.2.1",
                f"{action.name} takes exactly one target.", expected=1,
                actual=len(line.targets))
        else:
            unseen: list[str] = []
            why = self._target_problem(flow, tspec, line.targets[0], line.player, keys,
                                       line.request, action.id, unseen)
            if why:
                code = "log.unknown-ref" if why.startswith("no ") else "legality.target-invalid"
                rep(code, "bp4.3.2.1", f"Target {line.targets[0]}: {why}.",
                    actual=line.targets[0])
            elif unseen:
                rep("log.hidden-info", "bp4.3.2.1", f"Target {line.targets[0]}: "
                    f"{'; '.join(unseen)} cannot be checked.", severity="warning")

    def _check_request_choices(self, line: Request, action: ActionDef, board: PlayerBoard,
                               taken: Mapping[str, int], out: list[Finding]) -> None:
        """The choices made with the request: their shapes (choices.md), then bp6.2 the
        hand card an action chooses at request time (Set Bulwark) is a card of the
        requester in the hand besides those the request already takes (``taken``: key
        cards and $D). Not recorded: a warning, unless the hand is known to hold no other
        card (nothing could be chosen)."""
        a = action.data
        player = line.player
        rep = _reporter(out, line.seq)
        found, refused = choice_findings(action.name, "request", a.get("choices"),
                                         line.choices, line.seq)
        out += found
        if "card" in (a.get("choices") or {}) and not refused:
            card_ref = (line.choices or {}).get("card")
            if card_ref is None:
                # A hand known to be empty holds no card to choose: nothing could be
                # recorded, and the action does what it can (nothing).
                if not self._hand_empty(board, taken):
                    rep("log.choice-missing", "bp6.2", f"{action.name}: the hand card is not "
                        "recorded.", severity="warning")
            else:
                parts = split_ref(str(card_ref))
                if parts is None or parts[0] != player:
                    rep("legality.choice-invalid", "bp6.2",
                        f"{card_ref} is not a card of {player}.", actual=card_ref)
                elif not self._hand_has(board, parts[1], taken.get(parts[1], 0) + 1):
                    rep("legality.choice-invalid", "bp6.2",
                        f"{parts[1]} is not in {player}'s hand.", actual=card_ref)

    @staticmethod
    def request_choices(req: Req) -> dict[str, Any]:
        """The choices a request recorded when it was made, as the judge reads them: one
        the action does not take there, or of another shape, is not recorded (reported
        with the request, :func:`~coreflow_judge.adjudicator.games.choices.choice_findings`)."""
        return readable(req.action.data.get("choices"), req.choices)

    @staticmethod
    def _keys_related(keys: list[str], spec: Mapping[str, Any] | None) -> bool:
        """The key cards' conditions on one another: ``same_suit`` (a Joker has no suit),
        ``same_rank``, ``rank_set`` (exactly these ranks, e.g. R・S・F's A, 10-K)."""
        if not spec:
            return True
        cards = [parse_card(k) for k in keys]
        if any(c is None or c.rank is None for c in cards):
            return True  # an unseen face: warned as hidden information
        if spec.get("same_suit") and (
                any(c.suit is None for c in cards if c) or len({c.suit for c in cards if c}) > 1):
            return False
        if spec.get("same_rank") and len({c.rank for c in cards if c}) > 1:
            return False
        rank_set = spec.get("rank_set")
        return not rank_set or sorted(c.rank for c in cards if c and c.rank is not None) == \
            sorted(rank_set)

    def seen_outside_hand(self, player: str, card: str) -> str | None:
        """Where the log last showed ``card`` of ``player`` outside the hand (on the field,
        in the graveyard or fog, among the trumps), when the hand cannot also hold it: a
        player's cards are one pack, each card once. None when it may be in the hand."""
        if card == UNKNOWN:
            return None
        b = self.boards[player]
        if b.hand_known[card] > 0:
            return None
        for ch in b.field:
            if card in ch.cards:
                return f"on {player}'s field ({ch.ref})"
        if card in b.fog:
            return f"in {player}'s fog"
        if any(t.card == card for t in b.trumps):
            return f"one of {player}'s trumps"
        if card in (b.rare or ()):
            return f"{player}'s rare card"
        if card in b.graveyard:
            return f"in {player}'s graveyard"
        return None

    @staticmethod
    def _hand_empty(board: PlayerBoard, taken: Mapping[str, int]) -> bool:
        """The hand is known to hold no card once the request's key cards and discarded
        cards (``taken``: card -> how many) have left it."""
        count = board.hand_count
        return count is not None and count <= sum(taken.values())

    def _hand_has(self, board: PlayerBoard, card: str, times: int) -> bool:
        if card == UNKNOWN:
            return board.hand_count is None or board.hand_count >= times
        known = board.hand_known[card]
        if known >= times:
            return True
        return board.hand_unknown is None or board.hand_unknown >= times - known

    def _keys_match(self, keys: list[str], patterns: list[dict[str, Any]]) -> bool:
        cards = [parse_card(k) for k in keys]
        for perm in itertools.permutations(cards):
            if all(c is not None and self._fits(c, p) for c, p in zip(perm, patterns,
                                                                      strict=True)):
                return True
        return False

    def card_fits(self, card: str, pattern: dict[str, Any]) -> bool:
        """Does the card (a face; ``?`` never does) meet a card pattern of the data?"""
        c = parse_card(card)
        return c is not None and self._fits(c, pattern)

    @staticmethod
    def _fits(card: Card, pattern: dict[str, Any]) -> bool:
        if pattern.get("any"):
            return True
        if pattern.get("joker"):
            return card.joker
        if card.joker or card.rank is None:
            return False
        suits = pattern.get("suits")
        if suits and card.suit not in suits:
            return False
        lo, hi = pattern.get("ranks", [1, 13])
        return bool(lo <= card.rank <= hi)

    @staticmethod
    def _pattern_text(patterns: list[dict[str, Any]]) -> str:
        parts = []
        for p in patterns:
            if p.get("joker"):
                parts.append("Joker")
                continue
            if p.get("any"):
                parts.append("any card")
                continue
            suits = "".join(SUIT_NAMES[s] for s in p.get("suits", [])) or "any suit"
            lo, hi = p.get("ranks", [1, 13])
            parts.append(f"{suits} {lo}-{hi}")
        return " + ".join(parts)

    def _target_problem(
        self, flow: CoreFlow, spec: dict[str, Any], target: str, player: str,
        keys: list[str], own_id: str | None, action_id: str | None = None,
        hidden: list[str] | None = None,
    ) -> str | None:
        """Why ``target`` cannot be the target (None: it can). A condition that faces the
        log does not show decide is met (never a guessed error); ``hidden`` collects what
        could not be checked."""
        kind = spec["kind"]
        if kind == "player":
            if target not in flow.players:
                return "no such player"
            if spec.get("relation") == "opponent" and target == player:
                return "must be an opponent"
            return None
        if kind == "request":
            if target == own_id:  # rulings A2: checked first, it is not yet on the stage
                return "an action cannot target itself"
            req = flow.requests.get(target)
            if req is None:
                return "no such request"
            if req not in flow.stage:
                return "not on the stage"
            if spec.get("immune_flag") and (req.action.data.get("flags") or {}).get(
                    spec["immune_flag"]):
                return f"{req.action.name} cannot be targeted by this action"
            if "action" in spec and req.action.id != spec["action"]:
                return f"not a {spec['action']} request"
            if spec.get("has_target") and not req.targets:
                return f"{req.action.name} has no target to change"
            lo, hi = spec.get("key_card_count", (0, 99))
            if not lo <= len(req.key_cards) <= hi:
                return f"a request with {len(req.key_cards)} key cards cannot be countered"
            return None
        if kind == "trump":
            found = self.find_trump(target)
            if found is None:
                return "no such trump"
            if spec.get("owner") == "self" and found[0] != player:
                return f"must be {player}'s own"
            if spec.get("face_up") and not found[1].face_up:
                return "a face-down trump: the target must be a face-up one"
            return None
        ch = self.find(target)
        if ch is None:
            return "not a character on the field"
        if spec.get("owner") == "self" and ch.owner != player:
            return f"must be {player}'s own"
        cspec = self.data["characters"][ch.kind]
        if cspec.get("untargetable"):
            return f"a {ch.kind} cannot be the target of actions"
        if action_id is not None and action_id in cspec.get("immune", ()):
            return f"a {ch.kind} cannot be the target of {self.actions[action_id].name}"
        contains = spec.get("contains")
        if contains is not None and not any(
                (c := parse_card(card)) is not None and self._fits(c, contains)
                for card in ch.cards):
            if UNKNOWN not in ch.cards:
                return f"it holds no card of {self._pattern_text([contains])}"
            if hidden is not None:
                hidden.append(f"whether {target} holds a card of "
                              f"{self._pattern_text([contains])} (a face not shown)")
        ckind = cspec["kind"]
        if kind == "soldier" and ckind != "soldier":
            return "not a soldier"
        if kind == "bulwark" and ckind != "bulwark":
            return "not a bulwark"
        if spec.get("state") and ch.state != spec["state"]:  # 9.0 虚脱: a driven character
            return f"in {ch.state} state: the target must be in {spec['state']} state"
        if spec.get("same_suit_as_key") and keys:
            key = parse_card(keys[0])
            suits = {parse_card(c).suit for c in ch.cards if parse_card(c)}  # type: ignore[union-attr]
            if key is not None and key.suit is not None and key.suit not in suits:
                if UNKNOWN not in ch.cards:
                    return "not of the key card's suit"
                if hidden is not None:
                    hidden.append(f"whether {target} is of the key card's suit (a face not "
                                  "shown)")
            elif key is not None and not key.known and hidden is not None:
                hidden.append("whether the target is of the key card's suit (the key "
                              "card's face is not shown)")
        return None

    def fizzles(self, flow: CoreFlow, req: Req) -> bool:
        """bp4.3.3.1.1: the request's target no longer meets its condition, so it fizzles.

        Asked at resolution (a recorder or simulator asks it to write the right result).
        """
        tspec = req.action.data.get("target")
        if tspec is None or not req.targets:
            return False
        keys = [card_of(k) for k in req.key_cards]
        why = self._target_problem(flow, tspec, req.targets[0], req.controller, keys, req.id,
                                   req.action.id)
        if why is None and "target_stamp" in req.data:
            # The character found is another one than the one targeted: the target left
            # the field and came back, or a リバース split it (common.rst: 対象が分裂した場合).
            ch = self.find(req.targets[0])
            return ch is not None and ch.timestamp != req.data["target_stamp"]
        return why is not None

    def asks_on_resolve(self, flow: CoreFlow, req: Req) -> bool:
        """The choices the action makes while it resolves (``choices_on_resolve``), less
        End's discard (bp6.2: discard down to the hand limit) while the hand is not over
        the limit: the step then discards nothing, and nothing is chosen."""
        asked = set(req.action.data.get("choices_on_resolve") or {})
        steps = {s.get("step") for s in req.action.data.get("effect") or []}
        if "discard" in asked and "discard_to_hand_limit" in steps:
            board = self.boards.get(req.controller)
            count = board.hand_count if board is not None else None
            if count is not None and count <= int(self.pol["hand_limit"]):
                asked.discard("discard")
        return bool(asked)

    def request_options(self, flow: CoreFlow, player: str, action: ActionDef, sees: Sight
                        ) -> Iterator[Request] | None:
        """The requests of ``action`` that ``player`` could make now, for the judge to
        check (:func:`.options.request_options`)."""
        return request_options(self, flow, player, action, sees)

    def mark_target(self, req: Req) -> None:
        """Remember which character a request targets (its timestamp), so that a new
        character under the same reference is not taken for it at resolution."""
        ch = self.find(req.targets[0]) if req.targets else None
        if ch is not None:
            req.data["target_stamp"] = ch.timestamp
        else:
            req.data.pop("target_stamp", None)

    def pay_costs(self, flow: CoreFlow, req: Req, line: Request) -> list[TriggerSpec]:
        """Pay $B/$L/$D/$S and take the key cards from hand onto the stage."""
        self.unseen_left.clear()  # a new request: what left before it excuses nothing
        player = line.player
        board = self.boards[player]
        if (req.action.data.get("target") or {}).get("kind") not in (None, "player",
                                                                     "request", "trump"):
            self.mark_target(req)
        tspec = req.action.data.get("target")
        if tspec is not None and len(req.targets) == 1 and self._target_problem(
                flow, tspec, req.targets[0], player, [card_of(k) for k in req.key_cards],
                req.id, req.action.id) is not None:
            # Reported with the request; if the table resolves it anyway, that is how it
            # was played, not a second mistake (one mistake, one finding).
            req.data["target_invalid_at_request"] = True
        for k in req.key_cards:
            self.take_key(board, card_of(k), req.action.data.get("key"))
        free = self.free_use(line, req.action)
        if free is not None and not req.key_cards:
            # Virtual key cards: they count where key cards count, and go nowhere.
            req.key_cards = [f"{player}:{k}" for k in free.get("virtual_keys", ())]
            req.data["virtual_keys"] = True
        triggers: list[TriggerSpec] = []
        driven: set[str] = set()
        discarded = 0
        for c in line.costs:
            if c.kind == "C":  # the originating character is driven
                ch = self.find(c.ref)
                if ch is not None:
                    ch.state = "drive"
                    req.data["originator"] = ch.ref
                    req.data["originator_number"] = self.printed_size(ch)
                    req.data["originator_size"] = self.size(ch)
                continue
            if c.kind == "B":
                ch = self.bulwark_for_cost(player, c.ref, driven)
                if ch is not None:
                    ch.state = "drive"
                    driven.add(ch.ref)
            elif c.kind == "L":
                top = board.pop_deck()
                if top is not None:
                    shown = card_of(c.ref)
                    board.graveyard.append(top if top != UNKNOWN else shown)
            elif c.kind == "D":
                card = card_of(c.ref)
                board.take_from_hand(card)
                board.graveyard.append(card)
                discarded += 1
            elif c.kind == "S":
                ch = self.find(c.ref)
                if ch is not None:
                    triggers += self._leave_field(ch, "graveyard")
        return triggers + self.discarded(player, discarded, req.id)

    # ------------------------------------------------------------------ resolving
    def resolve(self, flow: CoreFlow, req: Req, line: Resolve) -> Resolution:
        """The judge's resolution: the plan's steps carried out on the table, the log's
        claims compared with the plan (:func:`~coreflow_judge.adjudicator.claims.compare`),
        the difference ruled on, and the table following the game as it was played."""
        ctx = _Resolving(self, flow, req, line)
        ctx.run()
        return ctx.finish()

    def plan_resolution(self, flow: CoreFlow, req: Req, choices: Mapping[str, Any],
                        decks: Mapping[str, list[str]] | None = None) -> ResolutionPlan:
        """What resolving ``req`` with ``choices`` does on the current table, step by step.

        Pure: the steps run on a working copy of the table (the same steps the judge
        carries out), and neither this rules module, the flow nor the request changes.
        ``decks`` gives a player's deck, top first, where the caller knows more than the log
        (a simulator that dealt a shuffled deck); a log's reader leaves it out.
        """
        twin = self._working_copy()
        for player, deck in (decks or {}).items():
            twin.boards[player].deck = list(deck)
        line = Resolve(seq=flow.next_seq, request=req.id, result="resolved",
                       choices=dict(choices) or None)
        ctx = _Resolving(twin, flow, dataclasses.replace(req, data=dict(req.data)), line,
                         planning=True)
        ctx.run()
        return ctx.plan()

    def _working_copy(self) -> BlackPokerRules:
        """This rules module with a table of its own: boards and abilities copied."""
        twin = copy.copy(self)
        twin.boards = {p: b.copy() for p, b in self.boards.items()}
        twin.abilities = list(self.abilities)
        twin.ended = list(self.ended)
        twin.unseen_left = []
        twin._notes = []
        return twin

    def _leave_field(self, ch: Character, to: str) -> list[TriggerSpec]:
        """A character leaves the field; 世代交代 triggers per Joker/A/J/Q/K card."""
        board = self.boards[ch.owner]
        self.ended += [a for a in self.static_abilities("cost") if a.character == ch.ref]
        if ch in board.field:
            board.field.remove(ch)
        self.end_abilities("end_of_turn", character=ch.ref)  # they end as it leaves
        triggers: list[TriggerSpec] = []
        on_graveyard = self.on_event.get("field_to_graveyard")
        for card in ch.cards:
            if to == "graveyard":
                board.graveyard.append(card)
                rank = number(card)
                if on_graveyard and self.data["characters"][ch.kind]["next_generation"]:
                    if rank is not None and rank in self.ng_ranks:
                        triggers.append(TriggerSpec(on_graveyard, ch.ref, ch.owner))
                    elif card == UNKNOWN:  # it may have been one: trigger_unseen
                        self.unseen_left.append((on_graveyard, ch.owner, ch.ref))
            elif to == "hand":
                board.add_to_hand(card)
        if to == "graveyard":  # 9.0 リアニメーター再生 and the like (docs/decisions.md XC3)
            triggers += [TriggerSpec(t["action"], ch.ref, ch.owner)
                         for t in self.data["characters"][ch.kind].get("triggers", ())
                         if t["event"] == "field_to_graveyard" and t["action"] in self.actions]
        regen = self.data["characters"][ch.kind].get("regenerates")
        if regen and to in ("graveyard", "hand") and "trump_regenerate" in self.actions:
            # 切札再生: the trump J comes back as its owner's trump, face up.
            triggers.append(TriggerSpec("trump_regenerate", ch.ref, ch.owner,
                                        targets=(f"{ch.owner}:{regen}",)))
        return triggers

    # ------------------------------------------------------------------ [9] win/lose
    def win_check(self, flow: CoreFlow) -> GameResult | None:
        """A player whose deck (life) has 0 cards loses; both at 0 by edition policy."""
        return deck_out(flow, self.boards, self.pol["both_empty"])

    def trigger_unseen(self, flow: CoreFlow, line: Trigger) -> str | None:
        """世代交代 recorded where a card the log never showed left the field for the
        graveyard (a face-down bulwark destroyed unrevealed): it may have been a Joker, A,
        J, Q or K. Each such card excuses one such trigger of its owner."""
        for i, (action, owner, ref) in enumerate(self.unseen_left):
            if action == line.action and line.controller in (None, owner):
                del self.unseen_left[i]
                return (f"a card of {ref} whose face the log does not show went to the "
                        "graveyard, and it may be one that triggers it")
        return None

    def hand_turn_over(self, flow: CoreFlow, player: str) -> list[Req] | None:
        """A BlackPoker turn starts with the requests End triggered for the turn player
        (Charge, then its Draw): while they wait in the buffer, unresolved, they become
        ``player``'s, the turn player the table chose."""
        handed = [r for r in flow.buffer
                  if self.actions[r.action.id].data.get("controller") == "turn_player"]
        for req in handed:
            req.controller = player
        return handed

    def win_check_unknown(self, flow: CoreFlow) -> str | None:
        """Deck-out cannot be ruled while a player's deck (life) count is unknown."""
        return unknown_decks(flow.players, self.boards, self.deck_zone)


    # ------------------------------------------------------------------ projection
    def board(self, flow: CoreFlow) -> dict[str, Any]:
        players = {}
        for p, b in self.boards.items():
            d = b.as_dict()
            d[self.deck_zone + "_count"] = d["deck_count"]
            d["field"] = [
                {
                    "character": ch.ref, "kind": ch.kind, "cards": list(ch.cards),
                    "state": ch.state, "face_down": ch.face_down, "size": self.size(ch),
                    "entered_turn": max(ch.entered) if ch.entered else None,
                }
                for ch in b.field
            ]
            for ch, shown in zip(b.field, d["field"], strict=True):
                steps = self.size_steps(ch)
                if len(steps) > 1:  # abilities change it: how, step by step
                    shown["size_steps"] = steps
            players[p] = d
        return {"players": players}


