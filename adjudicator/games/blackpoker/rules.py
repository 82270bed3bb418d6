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
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.claims import compare
from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import (
    ActionDef,
    FlowPolicy,
    GameResult,
    Resolution,
    RulesHooks,
    TriggerSpec,
    UnsupportedRules,
)
from coreflow_judge.adjudicator.games.blackpoker.board import Character, Modifier, PlayerBoard
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    CARD_COSTS,
    CARD_WORDS,
    UNKNOWN,
    Card,
    is_card_ref,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.common import deck_out, load_edition_data, unknown_decks
from coreflow_judge.adjudicator.plan import Effect, PlanStep, ResolutionPlan
from coreflow_judge.adjudicator.policies import CoreTriggerOrder
from coreflow_judge.events.models import Preset, Resolve

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.events.models import GameStarted, MatchStarted, Request

EDITIONS = ("6.1", "9.0")
FORMATS = ("lite",)
SUIT_NAMES = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def load_edition(edition: str) -> dict[str, Any]:
    """The edition data shipped in the package (never read from outside it)."""
    return load_edition_data("coreflow_judge.adjudicator.games.blackpoker", edition)


def _card_of(ref: str) -> str:
    parts = split_ref(ref)
    return parts[1] if parts else ref


def _number(card: str) -> int | None:
    c = parse_card(card)
    return None if c is None else c.rank


@dataclasses.dataclass(slots=True)
class GameStartPlan:
    """What the game start does on known decks: what ``game_started`` records."""

    presets: dict[str, Preset] | None
    hands: dict[str, list[str]]
    """Each opening hand; the first player's ends with the card drawn after the reveals."""
    reveals: dict[str, list[str]]
    first_player: str


class BlackPokerRules(RulesHooks):
    """The rules of one BlackPoker edition and format, for one match."""

    def __init__(self, edition: str, fmt: str) -> None:
        if edition not in EDITIONS:
            raise UnsupportedRules(
                f"unknown BlackPoker edition {edition!r} (known: {', '.join(EDITIONS)})",
                field="rules")
        if fmt not in FORMATS:
            raise UnsupportedRules(
                f"format {fmt!r} is not supported yet (supported: {', '.join(FORMATS)})",
                field="format")
        self.edition = edition
        self.data = load_edition(edition)
        pol = self.data["policy"]
        self.pol = pol
        self.policy = FlowPolicy(
            requester_keeps_chance=bool(pol["requester_keeps_chance"]),
            resolve_before_cost_triggers=bool(pol["resolve_before_cost_triggers"]),
            shortcut_calls=frozenset(c.lower() for c in pol.get("shortcut_calls", [])),
            rule_refs=dict(pol.get("rule_refs", {})),
        )
        self.trigger_order = CoreTriggerOrder()
        self.actions: dict[str, ActionDef] = {
            aid: ActionDef(
                id=aid, name=a["name"], speed=a["speed"], timing=a["timing"],
                direct=bool(a["direct"]), once_per_turn=bool(a.get("once_per_turn")), data=a,
            )
            for aid, a in self.data["actions"].items()
        }
        self.after: dict[str, dict[str, Any]] = {
            t["after"]: t for t in self.data["triggers"] if "after" in t
        }
        self.ng_ranks = frozenset(pol["next_generation_ranks"])
        self.boards: dict[str, PlayerBoard] = {}
        self.modifiers: list[Modifier] = []
        self.clock = 0
        self.deck_known = False
        self._notes: list[str] = []
        self.deck_zone = self.data["deck_zone"]

    # ------------------------------------------------------------------ interface
    def action(self, action_id: str) -> ActionDef | None:
        return self.actions.get(action_id)

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
        presets = line.presets or {}
        if self.pol["preset"]:
            for p in flow.players:
                self._preset(flow, p, presets.get(p))
        elif presets:
            flow.report("legality.effect-mismatch", "bp4.2.1", "This edition has no preset.")
        hands = line.hands or {}
        for p in flow.players:
            self._draw(flow, p, self.pol["opening_hand"], hands.get(p))
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
        extra = hands.get(fp, [])[self.pol["opening_hand"]:]
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
            na, nb = _number(ca), _number(cb)
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
            card = _card_of(preset.bulwark)
            self._check_top(flow, player, top, card)
            b.field.append(Character(f"{player}:{card}", player, "bulwark", [card],
                                     [0], timestamp=self.tick()))
        for g in preset.graveyard:
            top = b.pop_deck()
            card = _card_of(g)
            self._check_top(flow, player, top, card)
            if self.may_be_preset_soldier(card) is True:
                flow.report("legality.effect-mismatch", "bp4.2.1",
                            f"{player}'s preset puts {card} into the graveyard, but it can be "
                            "the soldier: the preset puts the first card that can onto the "
                            "field.", expected="soldier", actual="graveyard")
            b.graveyard.append(card)
        if preset.soldier:
            top = b.pop_deck()
            card = _card_of(preset.soldier)
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
        hands = {p: take(p, self.pol["opening_hand"]) for p in players}
        reveals: dict[str, list[str]] = {p: [] for p in players}
        first = None
        while first is None:
            for p in players:
                reveals[p] += take(p)
            first = self.first_by_reveals(players, reveals)
        hands[first] = hands[first] + take(first, self.pol["first_player_draws"])
        return GameStartPlan(presets, hands, reveals, first)

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

    def _summon_kind(self, card: str) -> str | None:
        n = _number(card)
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
            claimed = _card_of(shown[i]) if shown and i < len(shown) else UNKNOWN
            if top != UNKNOWN and claimed != UNKNOWN and top != claimed:
                flow.report("legality.effect-mismatch", "bp4.2.1",
                            f"{player} drew {claimed} but the deck's top card was {top}.",
                            expected=top, actual=claimed)
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

    def bulwark_for_cost(self, player: str, ref: str, used: set[str]) -> Character | None:
        """The bulwark a $B names; ``player:?`` is any charge-state bulwark not yet used."""
        if _card_of(ref) != UNKNOWN:
            return self.find(ref)
        board = self.boards.get(player)
        if board is None:
            return None
        for ch in board.field:
            if ch.kind == "bulwark" and ch.state == "charge" and ch.ref not in used:
                return ch
        return None

    def size(self, ch: Character) -> int | None:
        """Printed value (sum for an armed soldier), then abilities: all, your, this."""
        rule = self.data["characters"][ch.kind]["size"]
        if rule == "none":
            return None
        ranks = ch.ranks()
        if any(r is None for r in ranks):
            return None
        base = sum(r for r in ranks if r is not None) if rule == "sum" else (ranks[-1] or 0)
        if rule == "printed":
            base = ranks[0] or 0
        total = base
        for scope in ("all", "your", "this"):
            for m in sorted(
                (m for m in self.modifiers if m.scope == scope and m.character == ch.ref),
                key=lambda m: m.timestamp,
            ):
                total += m.delta
        return total

    def size_steps(self, ch: Character) -> list[str]:
        """The size computation as a judge reads it: printed value, then each ability."""
        mods = sorted((m for m in self.modifiers if m.character == ch.ref),
                      key=lambda m: (("all", "your", "this").index(m.scope), m.timestamp))
        size = self.size(ch)
        if size is None:
            return []
        base = size - sum(m.delta for m in mods)
        steps = [f"printed {base}"]
        running = base
        for m in mods:
            running += m.delta
            steps.append(f"{m.scope} {m.delta:+d} -> {running}")
        return steps

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

    # ------------------------------------------------------------------ requesting
    def request_findings(self, flow: CoreFlow, line: Request, action: ActionDef) -> list[Finding]:
        """Key cards (★), costs ($), targets and request-time choices; never mutates."""
        out: list[Finding] = []
        seq = line.seq
        player = line.player
        a = action.data
        board = self.boards.get(player)
        if board is None:
            return out

        def rep(code: str, rule: str, msg: str, **kw: Any) -> None:
            out.append(finding(code, seq, rule, msg, **kw))

        # Key cards.
        spec = a.get("key")
        patterns = spec["cards"] if spec else []
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
            elif not self._keys_match(keys, patterns):
                rep("legality.key-card-invalid", "bp4.3.1",
                    f"{', '.join(keys)} does not meet {action.name}'s key-card condition.",
                    expected=self._pattern_text(patterns), actual=keys)
            used: dict[str, int] = {}
            for k in keys:
                used[k] = used.get(k, 0) + 1
                if k != UNKNOWN and not self._hand_has(board, k, used[k]):
                    rep("legality.key-card-invalid", "bp4.3.1",
                        f"{k} is not in {player}'s hand.", actual=k)
        # Costs.
        want = "".join(sorted(a.get("cost") or ""))
        got = "".join(sorted(c.kind for c in line.costs))
        if want != got:
            rep("legality.cost-unpaid", "bp4.3.1.1",
                f"{action.name} costs {'$' + want if want else 'nothing'}; the request paid "
                f"{'$' + got if got else 'nothing'}.",
                expected=want or None, actual=got or None)
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
                ch = self.bulwark_for_cost(player, c.ref, drive_seen)
                if ch is None or ch.owner != player or ch.kind != "bulwark":
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"{c.ref} is not a bulwark of {player}.", actual=c.ref)
                elif ch.state != "charge" or ch.ref in drive_seen:
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"The bulwark {c.ref} is in drive state and cannot pay $B.",
                        actual=c.ref)
                else:
                    drive_seen.add(ch.ref)
            elif c.kind == "L":
                lost += 1
                top = None if board.deck is None or len(board.deck) < lost else \
                    board.deck[lost - 1]
                named = _card_of(c.ref)
                if board.deck is not None and len(board.deck) < lost:
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"{player} has no card left in the {self.deck_zone} to pay $L "
                        "(lose the top card).")
                elif top not in (None, UNKNOWN) and named != UNKNOWN and named != top:
                    rep("legality.cost-unpaid", "bp4.3.1.1",
                        f"$L loses the top card of the {self.deck_zone}, {top}, not {named}.",
                        expected=f"{player}:{top}", actual=c.ref)
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
        # Targets.
        tspec = a.get("target")
        if tspec is None:
            if line.targets:
                rep("legality.target-invalid", "bp4.3.2.1",
                    f"{action.name} takes no target.", actual=line.targets)
        elif len(line.targets) != 1:
            rep("legality.target-invalid", "bp4.3.2.1",
                f"{action.name} takes exactly one target.", expected=1,
                actual=len(line.targets))
        else:
            why = self._target_problem(flow, tspec, line.targets[0], player, keys, line.request)
            if why:
                code = "log.unknown-ref" if why.startswith("no ") else "legality.target-invalid"
                rep(code, "bp4.3.2.1", f"Target {line.targets[0]}: {why}.",
                    actual=line.targets[0])
        # Request-time choices.
        if "card" in (a.get("choices") or []):
            card_ref = (line.choices or {}).get("card")
            if card_ref is None:
                rep("log.choice-missing", "bp6.2", f"{action.name}: the hand card is not "
                    "recorded.", severity="warning")
            else:
                parts = split_ref(str(card_ref))
                if parts is None or parts[0] != player:
                    rep("legality.choice-invalid", "bp6.2",
                        f"{card_ref} is not a card of {player}.", actual=card_ref)
                elif not self._hand_has(board, parts[1], discards.get(parts[1], 0) + 1):
                    rep("legality.choice-invalid", "bp6.2",
                        f"{parts[1]} is not in {player}'s hand.", actual=card_ref)
        return out

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

    @staticmethod
    def _fits(card: Card, pattern: dict[str, Any]) -> bool:
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
            suits = "".join(SUIT_NAMES[s] for s in p.get("suits", [])) or "any suit"
            lo, hi = p.get("ranks", [1, 13])
            parts.append(f"{suits} {lo}-{hi}")
        return " + ".join(parts)

    def _target_problem(
        self, flow: CoreFlow, spec: dict[str, Any], target: str, player: str,
        keys: list[str], own_id: str | None,
    ) -> str | None:
        kind = spec["kind"]
        if kind == "player":
            if target not in flow.players:
                return "no such player"
            if spec.get("relation") == "opponent" and target == player:
                return "must be an opponent"
            return None
        if kind == "request":
            req = flow.requests.get(target)
            if req is None:
                return "no such request"
            if target == own_id:
                return "an action cannot target itself"
            if req not in flow.stage:
                return "not on the stage"
            lo, hi = spec["key_card_count"]
            if not lo <= len(req.key_cards) <= hi:
                return f"a request with {len(req.key_cards)} key cards cannot be countered"
            return None
        ch = self.find(target)
        if ch is None:
            return "not a character on the field"
        if spec.get("owner") == "self" and ch.owner != player:
            return f"must be {player}'s own"
        ckind = self.data["characters"][ch.kind]["kind"]
        if kind == "soldier" and ckind != "soldier":
            return "not a soldier"
        if kind == "bulwark" and ckind != "bulwark":
            return "not a bulwark"
        if spec.get("same_suit_as_key") and keys:
            key = parse_card(keys[0])
            suits = {parse_card(c).suit for c in ch.cards if parse_card(c)}  # type: ignore[union-attr]
            if key is not None and key.suit is not None and key.suit not in suits:
                return "not of the key card's suit"
        return None

    def fizzles(self, flow: CoreFlow, req: Req) -> bool:
        """bp4.3.3.1.1: the request's target no longer meets its condition, so it fizzles.

        Asked at resolution (a recorder or simulator asks it to write the right result).
        """
        tspec = req.action.data.get("target")
        if tspec is None or not req.targets:
            return False
        keys = [_card_of(k) for k in req.key_cards]
        why = self._target_problem(flow, tspec, req.targets[0], req.controller, keys, req.id)
        return why is not None

    def pay_costs(self, flow: CoreFlow, req: Req, line: Request) -> list[TriggerSpec]:
        """Pay $B/$L/$D/$S and take the key cards from hand onto the stage."""
        player = line.player
        board = self.boards[player]
        for k in req.key_cards:
            board.take_from_hand(_card_of(k))
        triggers: list[TriggerSpec] = []
        driven: set[str] = set()
        for c in line.costs:
            if c.kind == "B":
                ch = self.bulwark_for_cost(player, c.ref, driven)
                if ch is not None:
                    ch.state = "drive"
                    driven.add(ch.ref)
            elif c.kind == "L":
                top = board.pop_deck()
                if top is not None:
                    shown = _card_of(c.ref)
                    board.graveyard.append(top if top != UNKNOWN else shown)
            elif c.kind == "D":
                card = _card_of(c.ref)
                board.take_from_hand(card)
                board.graveyard.append(card)
            elif c.kind == "S":
                ch = self.find(c.ref)
                if ch is not None:
                    triggers += self._leave_field(ch, "graveyard")
        return triggers

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
        twin.modifiers = list(self.modifiers)
        twin._notes = []
        return twin

    def _leave_field(self, ch: Character, to: str) -> list[TriggerSpec]:
        """A character leaves the field; 世代交代 triggers per Joker/A/J/Q/K card."""
        board = self.boards[ch.owner]
        if ch in board.field:
            board.field.remove(ch)
        self.modifiers = [m for m in self.modifiers if m.character != ch.ref]
        triggers: list[TriggerSpec] = []
        for card in ch.cards:
            if to == "graveyard":
                board.graveyard.append(card)
                rank = _number(card)
                if rank is not None and rank in self.ng_ranks and \
                        self.data["characters"][ch.kind]["next_generation"]:
                    triggers.append(TriggerSpec("next_generation", ch.ref, ch.owner))
            elif to == "hand":
                board.add_to_hand(card)
        return triggers

    # ------------------------------------------------------------------ [9] win/lose
    def win_check(self, flow: CoreFlow) -> GameResult | None:
        """A player whose deck (life) has 0 cards loses; both at 0 by edition policy."""
        return deck_out(flow, self.boards, self.pol["both_empty"])

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
            players[p] = d
        return {"players": players}


class _Resolving:
    """One resolution: carries out the action's steps on a table, each step recording its
    primitive effects and why (a :class:`PlanStep`).

    On the judge's table (``planning=False``) the steps change the board and the flow and
    the log's claims decide what a hidden card was; :meth:`finish` compares the claims with
    the plan and follows the table as played. On a working copy (``planning=True``,
    :meth:`BlackPokerRules.plan_resolution`) nothing outside the copy changes: the turn
    handed over and the request negated are effects of the plan only.
    """

    def __init__(self, rules: BlackPokerRules, flow: CoreFlow, req: Req, line: Resolve,
                 planning: bool = False):
        self.r = rules
        self.flow = flow
        self.req = req
        self.line = line
        self.planning = planning
        self.choices = dict(line.choices or {})
        self.a = req.action.data
        self.steps: list[PlanStep] = []
        self.effects: list[Effect] = []
        self.findings: list[Finding] = []
        self.triggers: list[TriggerSpec] = []
        self.key_dest = "graveyard"
        self.fizzled = False
        self.why: list[str] = []
        """Why a step had no effect, in a judge's words (quoted when the log disagrees)."""
        self.sizes_used: dict[str, list[str]] = {}
        """Damage dealt by a size: the player hit -> the size's computation, step by step."""
        self.cut_short: dict[tuple[str, str], int] = {}
        """A damage or draw the table could not carry out in full (too few cards in the
        deck): (op, player) -> the count the effect asked for."""
        self.count_unknown: set[tuple[str, str]] = set()
        """A damage or draw from a deck whose count the log does not give: (op, player).
        Whether the whole effect was possible cannot be checked there."""
        self.claims: list[dict[str, Any]] = [
            {"op": e.op, **(e.model_extra or {})} for e in line.effects or []
        ]
        """The effects the log claims, as plain dicts (read many times, built once)."""

    def rep(self, code: str, rule: str, msg: str, **kw: Any) -> None:
        self.findings.append(finding(code, self.line.seq, rule, msg, **kw))

    def target_char(self) -> Character | None:
        return self.r.find(self.req.targets[0]) if self.req.targets else None

    def run(self) -> None:
        self.fizzled = self.r.fizzles(self.flow, self.req)
        if self.fizzled:
            if self.line.result == "resolved":
                self.rep("legality.fizzle-not-applied", "bp4.3.3.1.1",
                         f"{self.req.action.name}'s target was no longer legal: the request "
                         "fizzles with no effect.", expected="fizzled", actual="resolved")
            return
        if self.line.result == "fizzled":
            self.rep("legality.effect-mismatch", "bp4.3.3.1.1",
                     f"{self.req.action.name}'s target was still legal: it does not fizzle.",
                     expected="resolved", actual="fizzled")
            return
        if not self.planning:  # the judge: the same steps, no plan object to build
            for step in self.a.get("effect", []):
                getattr(self, "step_" + step["step"])(step)
            return
        for step in self.a.get("effect", []):
            done, said = len(self.effects), len(self.why)
            getattr(self, "step_" + step["step"])(step)
            self.steps.append(PlanStep(step["step"], self.effects[done:],
                                       "; ".join(self.why[said:])))

    def plan(self) -> ResolutionPlan:
        """The steps as planned, with the requests the resolution triggers."""
        self._after_triggers()
        return ResolutionPlan(self.req.id, "fizzled" if self.fizzled else "resolved",
                              self.steps, self.triggers)

    # Each step applies its effect to the board and records it as a primitive effect.
    def emit(self, **effect: Any) -> None:
        self.effects.append(effect)

    def step_enter_bulwark_from_hand(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        # An unrecorded card (warned when requested) is still a bulwark, face unknown.
        ref = (self.req.choices or {}).get("card") or f"{player}:{UNKNOWN}"
        card = _card_of(str(ref))
        b = self.r.boards[player]
        b.take_from_hand(card)
        b.field.append(Character(f"{player}:{card}", player, "bulwark", [card],
                                 [self.flow.turn], face_down=True, timestamp=self.r.tick()))
        self.emit(op="enter", character=f"{player}:{card}", **{"as": "bulwark"},
                  cards=[f"{player}:{card}"])

    def step_enter(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        cards = [_card_of(k) for k in self.req.key_cards]
        if not cards:
            return
        ref = f"{player}:{cards[0]}"
        self.r.boards[player].field.append(
            Character(ref, player, step["as"], cards, [self.flow.turn] * len(cards),
                      timestamp=self.r.tick()))
        self.key_dest = "field"
        self.emit(op="enter", character=ref, **{"as": step["as"]}, cards=list(self.req.key_cards))

    def step_equip(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        for k in self.req.key_cards:
            ch.cards.append(_card_of(k))
            ch.entered.append(self.flow.turn)
        ch.kind = "armed_soldier"
        self.key_dest = "field"
        self.emit(op="enter", character=ch.ref, **{"as": "armed_soldier"},
                  cards=list(self.req.key_cards))

    def step_charge_all(self, step: dict[str, Any]) -> None:
        tp = self.flow.turn_player
        if tp is None:
            return
        for ch in self.r.boards[tp].field:
            if ch.state != "charge":
                ch.state = "charge"
                self.emit(op="charge", character=ch.ref)

    def step_draw(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.r.boards[player]
        if step["count"] == "choice":
            n = self.choices.get("count")
            if n is None:
                self.rep("log.choice-missing", "bp6.2",
                         "How many cards were drawn (1 or 2) is not recorded; 1 is assumed.",
                         severity="warning")
                n = 1
            elif not isinstance(n, int) or not step["min"] <= n <= step["max"]:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"Draw takes {step['min']} or {step['max']} cards.",
                         expected=[step["min"], step["max"]], actual=n)
                n = n if isinstance(n, int) and n > 0 else 1
        else:
            n = step["count"]
            if b.deck is not None and len(b.deck) <= step["low_life"]:
                n = step["low_count"]
            elif b.deck is None:
                self.rep("log.hidden-info", "bp6.2",
                         "The life count is unknown: whether 1 or 2 cards are drawn cannot be "
                         "checked.", severity="warning")
        shown = self._claimed_cards("draw")
        if b.deck is None:
            self.count_unknown.add(("draw", player))
        got = self.r._draw(self.flow, player, n, shown)
        if len(got) < n:
            self.cut_short[("draw", player)] = n
        self.emit(op="draw", player=player, amount=len(got),
                  cards=[f"{player}:{c}" for c in got])

    def step_discard_to_hand_limit(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.r.boards[player]
        limit = self.r.pol["hand_limit"]
        count = b.hand_count
        chosen = [str(c) for c in self.choices.get("discard", [])]
        if count is None:
            if not chosen:
                return
            need = len(chosen)
        else:
            need = max(0, count - limit)
        if need and not chosen:
            self.rep("log.choice-missing", "bp6.2",
                     f"{player} had {count} cards in hand at End: "
                     + (f"the card discarded down to {limit} is" if need == 1 else
                        f"the {need} cards discarded down to {limit} are") + " not recorded.",
                     severity="warning")
            chosen = [f"{player}:{UNKNOWN}"] * need
        elif len(chosen) != need:
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{player} must discard down to {limit} cards.", expected=need,
                     actual=len(chosen))
        for ref in chosen:
            card = _card_of(ref)
            if card != UNKNOWN and not b.hand_may_hold(card):
                self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the hand.",
                         actual=ref)
            b.take_from_hand(card)
            b.graveyard.append(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "hand"}, to="graveyard")

    def step_fog_to_graveyard(self, step: dict[str, Any]) -> None:
        b = self.r.boards[self.req.controller]
        for card in b.fog:
            b.graveyard.append(card)
            self.emit(op="move", card=f"{self.req.controller}:{card}", **{"from": "fog"},
                      to="graveyard")
        b.fog.clear()

    def step_end_turn(self, step: dict[str, Any]) -> None:
        nxt = self.flow.next_player(self.flow.turn_player or self.req.controller)
        self.r.modifiers.clear()  # "until the end of this turn" expires
        if not self.planning:
            self.flow.start_turn(nxt)
        self.emit(op="turn", player=nxt)

    def step_designate_attackers(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        attackers = [str(a) for a in self.choices.get("attackers", [])]
        if "attackers" not in self.choices:
            self.rep("log.choice-missing", "bp6.2",
                     "The attackers are not recorded; no attacker is assumed.",
                     severity="warning")
        valid = []
        for ref in attackers:
            ch = self.r.find(ref)
            if ch is None or ch.owner != player:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{ref} is not a character of {player} on the field.", actual=ref)
                continue
            if not self.r.may_attack(ch, self.flow.turn):
                why = "is in drive state" if ch.state != "charge" else (
                    "cannot attack (a bulwark)" if ch.kind == "bulwark" else
                    "entered the field this turn and is in preparation: it cannot attack yet")
                self.rep("legality.choice-invalid", "bp6.2", f"{ref} {why}.", actual=ref)
            ch.state = "drive"
            valid.append(ch.ref)
            self.emit(op="drive", character=ch.ref)
        self.req.data["attackers"] = valid
        if valid:
            self.triggers.append(TriggerSpec("block", self.req.id, self.req.controller))

    def step_designate_blockers(self, step: dict[str, Any]) -> None:
        attack = self.flow.requests.get(self.req.source or "")
        attackers: list[str] = attack.data.get("attackers", []) if attack else []
        self.req.data["attackers"] = attackers
        raw = self.choices.get("blockers")
        if raw is None:
            self.rep("log.choice-missing", "bp6.2",
                     "The blockers are not recorded; no blocker is assumed.", severity="warning")
            raw = {}
        blockers: dict[str, list[str]] = {}
        used: set[str] = set()
        if not isinstance(raw, dict):
            self.rep("legality.choice-invalid", "bp6.2", "blockers must map attackers to lists.")
            raw = {}
        for att, blist in raw.items():
            if att not in attackers:
                self.rep("legality.choice-invalid", "bp6.2", f"{att} is not an attacker.",
                         actual=att)
                continue
            chars = []
            for ref in blist if isinstance(blist, list) else [blist]:
                ch = self.r.find(str(ref))
                if ch is None or ch.owner == self.req.controller:
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} is not a character of the defending player.", actual=ref)
                    continue
                if not self.r.may_block(ch):
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} is in drive state and cannot block.", actual=ref)
                if ch.ref in used:
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} cannot block two attackers.", actual=ref)
                used.add(ch.ref)
                chars.append(ch)
            if any(c.kind == "bulwark" for c in chars) and len(chars) > 1:
                self.rep("legality.choice-invalid", "bp6.2", "A bulwark blocks alone.",
                         actual=[c.ref for c in chars])
            blockers[att] = [c.ref for c in chars]
        self.req.data["blockers"] = blockers

    def step_damage_judgement(self, step: dict[str, Any]) -> None:
        block = self.flow.requests.get(self.req.source or "")
        attackers: list[str] = block.data.get("attackers", []) if block else []
        blockers: dict[str, list[str]] = block.data.get("blockers", {}) if block else {}
        controller = self.req.controller
        opponent = self.flow.next_player(controller)
        for aref in attackers:
            att = self.r.find(aref)
            if att is None:
                continue
            bl = [c for c in (self.r.find(b) for b in blockers.get(aref, [])) if c is not None]
            asize = self.r.size(att)
            if not bl:
                if asize is None:
                    self.rep("log.hidden-info", "bp6.2", f"{aref}'s size is unknown.",
                             severity="warning")
                    continue
                self.sizes_used[opponent] = self.r.size_steps(att)
                self._damage(opponent, max(asize, 0))
                continue
            if bl[0].kind == "bulwark":
                bw = bl[0]
                card = bw.cards[0]
                shown = self._claimed_reveal(bw.ref)
                if card == UNKNOWN and shown:
                    card = shown
                    bw.cards[0] = card
                if card == UNKNOWN:
                    self.rep("log.hidden-info", "bp6.2",
                             f"The bulwark {bw.ref} is face down in the log: whether it "
                             "destroys the attacker cannot be checked.", severity="warning")
                    # Follow the table: the attacker died if the log moves one of its cards.
                    att_cards = {f"{att.owner}:{c}" for c in att.cards}
                    kills = any(e.get("op") == "move" and e.get("card") in att_cards
                                for e in self.claims)
                else:
                    n = _number(card)
                    kills = n == 0 or n in att.ranks()
                bw.face_down = False
                self.emit(op="reveal", character=bw.ref, card=f"{bw.owner}:{card}")
                if kills:
                    self._destroy(att)
                self._destroy(bw)
                continue
            sizes = [self.r.size(c) for c in bl]
            if asize is None or any(s is None for s in sizes):
                self.rep("log.hidden-info", "bp6.2", "A size in this battle is unknown.",
                         severity="warning")
                continue
            total = sum(s for s in sizes if s is not None)
            if asize <= total:
                self._destroy(att)
            if total <= asize:
                for c in bl:
                    self._destroy(c)

    def _damage(self, player: str, amount: int) -> None:
        """Damage: top cards of the deck to the graveyard, as many as there are."""
        b = self.r.boards[player]
        shown = self._claimed_cards("damage", player)
        if b.deck is None:
            self.count_unknown.add(("damage", player))
        moved = []
        for i in range(amount):
            top = b.pop_deck()
            if top is None:
                break
            claimed = _card_of(shown[i]) if shown and i < len(shown) else UNKNOWN
            card = claimed if top == UNKNOWN else top
            b.graveyard.append(card)
            moved.append(f"{player}:{card}")
        if len(moved) < amount:
            self.cut_short[("damage", player)] = amount
        self.emit(op="damage", player=player, amount=len(moved), cards=moved)

    def _destroy(self, ch: Character) -> None:
        if ch not in self.r.boards[ch.owner].field:
            return
        for card in ch.cards:
            self.emit(op="move", card=f"{ch.owner}:{card}", **{"from": "field"},
                      to="graveyard")
        if self._claims_it_stayed(ch):
            return  # reported with the claims; the game follows the log
        self.triggers += self.r._leave_field(ch, "graveyard")

    def _claims_it_stayed(self, ch: Character) -> bool:
        """The log's effects are given and move none of the character's cards off the field."""
        if self.line.effects is None:
            return False
        refs = {f"{ch.owner}:{c}" for c in ch.cards} | {f"{ch.owner}:{UNKNOWN}"}
        return not any(e.get("op") == "move" and e.get("from") == "field"
                       and e.get("card") in refs for e in self.claims)

    def _claimed_cards(self, op: str, player: str | None = None) -> list[str] | None:
        """The cards the log shows for this ``op`` (to ``player``): the claims of that op
        are read in order, the n-th for the n-th such effect of the resolution (several
        unblocked attackers each deal their own damage)."""
        def ours(d: Mapping[str, Any]) -> bool:
            return d.get("op") == op and (player is None or d.get("player") == player)

        done = sum(1 for e in self.effects if ours(e))
        mine = [d for d in self.claims if ours(d)]
        if done >= len(mine):
            return None
        cards = mine[done].get("cards")
        return [str(c) for c in cards] if isinstance(cards, list) else None

    def _claimed_reveal(self, ref: str) -> str | None:
        for d in self.claims:
            if d.get("op") == "reveal" and d.get("character") == ref and d.get("card"):
                return _card_of(str(d["card"]))
        return None

    def step_size(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        n = sum(_number(_card_of(k)) or 0 for k in self.req.key_cards)
        delta = step["sign"] * n
        self.r.modifiers.append(Modifier(ch.ref, delta, self.r.tick()))
        self.emit(op="size", character=ch.ref, delta=delta, until="end_of_turn")

    def step_destroy_if_size_not_positive(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        size = self.r.size(ch)
        if size is not None and size <= 0:
            self._destroy(ch)
        elif step.get("else_key_to_fog"):
            self.key_dest = "fog"

    def step_key_to_fog(self, step: dict[str, Any]) -> None:
        self.key_dest = "fog"

    def step_twist(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        state = self.choices.get("state")
        if state not in ("charge", "drive"):
            if state is None:
                self.rep("log.choice-missing", "bp6.2",
                         "Twist: the chosen state is not recorded; drive is assumed.",
                         severity="warning")
            else:
                self.rep("legality.choice-invalid", "bp6.2",
                         "Twist puts a character into charge or drive state.", actual=state)
            state = "drive"
        ch.state = state
        self.emit(op=state, character=ch.ref)

    def step_counter(self, step: dict[str, Any]) -> None:
        target = self.flow.requests.get(self.req.targets[0]) if self.req.targets else None
        if target is None:
            return
        mine = sum(_number(_card_of(k)) or 0 for k in self.req.key_cards)
        tk = target.key_cards
        if len(tk) == 1:
            theirs = _number(_card_of(tk[0]))
            if theirs is None:
                self.rep("log.hidden-info", "bp6.2",
                         "The countered request's key card is not shown.", severity="warning")
                if not any(e.op == "negate" for e in self.line.effects or []):
                    return
            elif mine < theirs:
                self.why.append(
                    f"the Counter's key card number {mine} is lower than {target.id}'s key "
                    f"card number {theirs}, so {target.id} is not negated")
                return
        self.emit(op="negate", request=target.id)
        claims = self.line.effects
        if claims is not None and not any(
                e.get("op") == "negate" and e.get("request") == target.id for e in self.claims):
            return  # the table did not negate it: reported with the claims, the game goes on
        if not self.planning:
            self.flow.negate(target.id)
        owner = target.controller
        for k in tk:
            self.r.boards[owner].graveyard.append(_card_of(k))

    def step_destroy_target(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is not None:
            self._destroy(ch)

    def step_damage_target(self, step: dict[str, Any]) -> None:
        if not self.req.targets:
            return  # no target named: reported when requested (legality.target-invalid)
        player = self.req.targets[0]
        n = sum(_number(_card_of(k)) or 0 for k in self.req.key_cards
                if (parse_card(_card_of(k)) or Card(None, None)).suit == step["suit"])
        self._damage(player, n)

    def step_search(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.r.boards[player]
        ref = self.choices.get("card")
        if ref is None:
            self.rep("log.choice-missing", "bp6.2", "Search: the card taken is not recorded.",
                     severity="warning")
            card = UNKNOWN
        else:
            card = _card_of(str(ref))
        if b.deck is not None:
            if card in b.deck:
                b.deck.remove(card)
            elif UNKNOWN in b.deck:
                b.deck.remove(UNKNOWN)
            elif b.deck:
                self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the deck.",
                         actual=ref)
                card = UNKNOWN
                b.deck.pop()
            else:
                self.rep("legality.choice-invalid", "bp6.2", "The deck is empty.")
                return
            b.deck = [UNKNOWN] * len(b.deck) if not self.r.deck_known else b.deck
        b.add_to_hand(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="hand")
        self.emit(op="shuffle", player=player)

    def step_dig(self, step: dict[str, Any]) -> None:
        """世代交代: mill until a Joker/A/J/Q/K appears; that card goes to hand."""
        player = self.req.controller
        b = self.r.boards[player]
        claimed = self.claims
        if b.deck is not None and UNKNOWN not in b.deck:
            while b.deck:
                card = b.deck.pop(0)
                if _number(card) in self.r.ng_ranks:
                    b.add_to_hand(card)
                    self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="hand")
                    return
                b.graveyard.append(card)
                self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"},
                          to="graveyard")
            return
        moves = [e for e in claimed if e.get("op") == "move"]
        if not moves:
            self.rep("log.hidden-info", "bp6.2",
                     "世代交代 milled an unknown number of cards (the log does not show "
                     "them): deck counts are unknown from here.", severity="warning")
            b.deck = None
            b.hand_unknown = None if b.hand_unknown is None else b.hand_unknown + 1
            return
        for e in moves:
            card = _card_of(str(e.get("card", UNKNOWN)))
            top = b.pop_deck()
            if top is None:
                break
            if e.get("to") == "hand":
                b.add_to_hand(card)
            else:
                b.graveyard.append(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"},
                      to=e.get("to", "graveyard"))

    # ------------------------------------------------------------------ finishing
    def finish(self) -> Resolution:
        """Key cards leave the stage; compare the log's claimed effects with ours."""
        controller = self.req.controller
        b = self.r.boards[controller]
        if self.req.status != "negated":
            dest = "graveyard" if self.fizzled else self.key_dest
            for k in self.req.key_cards:
                card = _card_of(k)
                if dest == "graveyard":
                    b.graveyard.append(card)
                elif dest == "fog":
                    b.fog.append(card)
        self._compare_claims()
        self._after_triggers()
        return Resolution(
            result="fizzled" if self.fizzled else "resolved",
            effects=self.effects, findings=self.findings, triggers=self.triggers,
        )

    def _after_triggers(self) -> None:
        """The action the edition starts after this one resolved (Block is started by
        designate_attackers, only when there is an attacker)."""
        after = self.r.after.get(self.req.action.id)
        if after and not self.fizzled and after["action"] != "block":
            controller = self.req.controller
            ctl = self.flow.turn_player if self.r.actions[after["action"]].data.get(
                "controller") == "turn_player" else controller
            self.triggers.append(TriggerSpec(after["action"], self.req.id, ctl or controller))

    def _compare_claims(self) -> None:
        claims = self.line.effects
        if claims is None:
            return
        ours = [e for e in self.effects if e["op"] != "reveal"]
        theirs = [e for e in self.claims if e.get("op") != "reveal"]
        keymoves = [t for t in theirs if t.get("op") == "move" and t.get("from") == "stage"]
        theirs = [t for t in theirs if t not in keymoves]
        for t in keymoves:
            if self.key_dest == "field" or t.get("to") != ("graveyard" if self.key_dest not in (
                    "fog",) else "fog"):
                self.rep("legality.key-card-not-to-graveyard", "bp4.3.3.2.1",
                         f"{t.get('card')} went to the {t.get('to')}; the rules send it to the "
                         f"{self.key_dest}.", expected=self.key_dest, actual=t.get("to"))
        diff = compare(ours, theirs)
        if not diff:
            return
        unmatched, extra = diff.unmatched, diff.extra
        if self.fizzled != (self.line.result == "fizzled"):
            # The recorded result is wrong and already reported (fizzle-not-applied, or a
            # fizzle that should not be): a wrong resolution gets only that finding.
            self._apply_as_played(extra, [])
            return
        if self._fewer_from_an_uncounted_deck(unmatched, extra):
            self.rep("log.hidden-info", "bp4.3.3.1.2",
                     f"The log records fewer cards for {self.req.action.name} than the rules "
                     f"give, from a {self.r.deck_zone} whose count is unknown: whether only "
                     "part of the effect was possible cannot be checked; the table's count "
                     "is followed.", severity="warning", expected=unmatched, actual=extra)
            self._apply_as_played(extra, unmatched)
            return
        for o in unmatched:
            steps = self.sizes_used.get(str(o.get("player")))
            if o["op"] == "damage" and steps and len(steps) > 1 and any(
                    t.get("op") == "damage" and t.get("player") == o["player"] for t in extra):
                self.rep("precedence.value-mismatch", "bp4.4.3",
                         "The damage does not equal the attacker's size with every ability in "
                         "force applied (all, your, this; oldest first): " + "; ".join(steps)
                         + ".",
                         expected=o.get("amount"),
                         actual=next(t.get("amount") for t in extra if t.get("op") == "damage"))
                self._apply_as_played(extra, unmatched)
                return
        counted = [o for o in unmatched if o["op"] in ("damage", "draw")]
        miscount = [t for t in extra if counted and t.get("op") == counted[0]["op"]]
        if miscount:
            o = counted[0]
            wanted = self.cut_short.get((o["op"], str(o.get("player"))))
            if wanted is not None:
                # bp4.3.3.1.2: the deck held too few cards for the whole effect.
                self.rep("legality.partial-not-applied", "bp4.3.3.1.2",
                         f"Only part of {self.req.action.name}'s effect was possible "
                         f"({o['op']} {wanted}, {o.get('amount')} card(s) left): that part "
                         "must be carried out exactly, and the log records it otherwise.",
                         expected=counted, actual=miscount)
            else:
                self.rep("legality.effect-mismatch", "bp4.3.3",
                         f"The recorded {o['op']} of {self.req.action.name} has another count "
                         f"than the rules': {o.get('amount')} card(s), which the table could "
                         "carry out in full.",
                         expected=counted, actual=miscount)
            self._apply_as_played(extra, unmatched)
            return
        why = f": {'; '.join(self.why)}" if self.why else ""
        self.rep("legality.effect-mismatch", "bp4.3.3",
                 f"The recorded effects of {self.req.action.name} differ from the rules'{why}.",
                 expected=unmatched or "no such effect", actual=extra or "left out")
        self._apply_as_played(extra, unmatched)

    def _fewer_from_an_uncounted_deck(self, unmatched: list[Effect],
                                      extra: list[Effect]) -> bool:
        """Every departure is a damage or draw the log records with fewer cards, from a deck
        whose count is unknown (it may have run out: a partial effect, not a mistake)."""
        pending = list(unmatched)
        for t in extra:
            o = next((o for o in pending if o["op"] == t.get("op")
                      and o.get("player") == t.get("player")), None)
            if o is None or (o["op"], str(o.get("player"))) not in self.count_unknown:
                return False
            if not isinstance(t.get("amount"), int) or t["amount"] >= int(o.get("amount", 0)):
                return False
            pending.remove(o)
        return bool(extra) and not pending

    def _apply_as_played(self, extra: list[dict[str, Any]],
                         ours: list[dict[str, Any]]) -> None:
        """The table did otherwise than the rules say: follow the game as it was played.

        Carried out: a claimed ``negate``, a claimed character leaving the field, and the
        number of cards a ``damage`` or ``draw`` really moved (the board's counts follow the
        log, so a later deck-out is ruled on the real table). Other surplus claims are
        reported only (docs/decisions.md).
        """
        pending = list(ours)
        for t in extra:
            op = t.get("op")
            if op in ("damage", "draw") and isinstance(t.get("amount"), int):
                player = str(t.get("player"))
                mine = next((o for o in pending if o["op"] == op and o.get("player") == player),
                            None)
                if mine is not None:
                    pending.remove(mine)
                if mine is not None and player in self.r.boards:
                    self._recount(op, player, mine, t["amount"])
                continue
            if t.get("op") == "negate" and isinstance(t.get("request"), str):
                target = self.flow.negate(t["request"])
                if target is not None:
                    for k in target.key_cards:
                        self.r.boards[target.controller].graveyard.append(_card_of(k))
            elif t.get("op") == "move" and t.get("from") == "field" and isinstance(
                    t.get("card"), str):
                ch = self.r.find(t["card"])
                if ch is not None:
                    self.triggers += self.r._leave_field(ch, str(t.get("to", "graveyard")))


    def _recount(self, op: str, player: str, ours: dict[str, Any], amount: int) -> None:
        """Move the difference between the rules' count and the table's back or on."""
        b = self.r.boards[player]
        done = int(ours.get("amount", 0))
        source = b.graveyard if op == "damage" else None
        if amount < done:
            moved = [_card_of(c) for c in ours.get("cards", [])][amount:done]
            for card in reversed(moved):
                if op == "damage" and source and source[-1] == card:
                    source.pop()
                elif op == "draw":
                    b.take_from_hand(card)
                if b.deck is not None:
                    b.deck.insert(0, card)
        else:
            for _ in range(amount - done):
                top = b.pop_deck()
                if top is None:
                    break
                if op == "damage":
                    b.graveyard.append(top)
                else:
                    b.add_to_hand(top)
