"""The i-language card game's rules module: camps, attacks, abilities, magic, dice, costs.

The game of seeds/i-language-card-game.txt (掲示板進行カードゲーム, written in the
i-language notation) on the core flow. Everything is an instant request, so nothing is
ever staged; the turn player holds the chance for the whole turn:

``attack`` (main timing) one of the player's standing normal cards (key card) attacks a
standing normal card of the opponent (target): the target's durability drops by the
attacker's attack, a value below 0 counts as 0, and at 0 the card is destroyed. Once per
card per turn (``timing.once-per-turn``).
``ability`` (main timing) a normal card's special ability whose stated timing is ``main``,
once per game (``legality.once-per-game``). Abilities of timing ``on_attack`` and
``on_destroyed`` are started by the rules (``trigger`` lines, action ``ability``).
``magic`` (free timing: at any time, no chance needed) declares a magic card, once per
game; its cost is added to the player's total cost.
``end`` ends the turn; after the 20th turn (10 each) the win/lose check decides.

A card that lists several abilities uses one chosen by a die: the ``roll`` line before the
resolution decides it (``resolve.choices.ability``, 1-based, must match the roll). Card
definitions come from the match header (``cards``); each player's deck from ``decks``.
Rule references ``il.<block>`` name the blocks of the seed (docs/i_language.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from coreflow_judge.adjudicator.claims import compare
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
from coreflow_judge.adjudicator.games.choices import check_action_choices, choice_findings
from coreflow_judge.adjudicator.games.common import load_edition_data
from coreflow_judge.adjudicator.games.edition_cache import checked_data
from coreflow_judge.adjudicator.plan import Effect, PlanStep, ResolutionPlan
from coreflow_judge.adjudicator.policies import CoreTriggerOrder
from coreflow_judge.events.models import Request

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.events.models import GameStarted, MatchStarted, Resolve, Roll

EDITIONS = ("1",)

R_ATTACK = "il.通常カードによる攻撃"
R_ABILITY = "il.通常カードによる特殊能力行使"
R_MAGIC = "il.マジックカードによる特殊能力行使"
R_DECK = "il.デッキ"
R_MAGIC_COUNT = "il.マジックカード"
R_DIE = "il.特殊能力"
R_DURABILITY = "il.耐久力"
R_CARD = "il.カード"


def load_edition(edition: str) -> dict[str, Any]:
    """The edition data shipped in the package (never read from outside it), its choices
    checked once per content of the data and of the code (:mod:`..edition_cache`)."""
    package = "coreflow_judge.adjudicator.games.i_language"

    def load() -> dict[str, Any]:
        data = load_edition_data(package, edition)
        check_action_choices(data, f"edition-{edition}.yaml")
        return data

    return checked_data(package, f"edition-{edition}", load)


Kind = Literal["normal", "magic"]


@dataclass(frozen=True, slots=True)
class CardDef:
    """One card definition of the header: its numbers and its special abilities."""

    id: str
    kind: Kind
    cost: int
    attack: int = 0
    durability: int = 0
    timing: str = "main"
    abilities: tuple[tuple[dict[str, Any], ...], ...] = ()
    """The listed abilities; each is a tuple of effect steps. Several: a die picks one."""
    name: str = ""


@dataclass(slots=True)
class CardState:
    """One card of a player's deck during the game."""

    ref: str
    owner: str
    d: CardDef
    attack: int
    durability: int
    removed: bool = False
    attacked_turn: int | None = None
    used: bool = False
    """Normal card: its special ability was used. Magic card: it was declared."""

    @property
    def normal(self) -> bool:
        return self.d.kind == "normal"

    def copy(self) -> CardState:
        """An independent copy (to see what effects would do to the card)."""
        return CardState(self.ref, self.owner, self.d, self.attack, self.durability,
                         self.removed, self.attacked_turn, self.used)

    @property
    def standing(self) -> bool:
        """Not incapacitated: in the camp with durability above 0 (il.状態)."""
        return self.normal and not self.removed and self.durability > 0

    def attacked_in(self, turn: int) -> bool:
        """Each normal card attacks at most once per turn: has it attacked in ``turn``?"""
        return self.attacked_turn is not None and self.attacked_turn == turn

    def ability_ready(self, timing: str) -> bool:
        """The card has a special ability of ``timing`` (il.特殊能力: ``main``, requested
        by its player; ``on_attack``, ``on_destroyed``, started by the rules) not yet used
        (once per game)."""
        return self.d.timing == timing and bool(self.d.abilities) and not self.used

    @property
    def state(self) -> str:
        if not self.normal:
            return "declared" if self.used else "in_deck"
        if self.removed:
            return "removed"
        return "standing" if self.durability > 0 else "destroyed"


_FELLING = frozenset({"durability", "destroy"})
"""The primitive effects that may bring a card's durability to 0 (il.状態: incapacitated)."""


def die_picks(n: int, sides: int, result: int) -> int:
    """The ability (1-based) of a card that lists ``n`` that a die of ``sides`` (a multiple
    of ``n``) picks with ``result``: the sides split evenly among the abilities (il.特殊能力)."""
    return (result - 1) * n // sides + 1


def may_target(card: CardState, side: str, me: str) -> bool:
    """A standing normal card on the side a target spec names (``own``, ``opponent``,
    ``any``), seen from ``me``."""
    if not card.standing:
        return False
    if side == "own":
        return card.owner == me
    if side == "opponent":
        return card.owner != me
    return True


def split_ref(ref: str) -> tuple[str, str] | None:
    """``<player>:<card id>`` -> (player, card id)."""
    player, sep, card = ref.partition(":")
    return (player, card) if sep and player and card else None


_CARD_FIELDS = frozenset({"id", "kind", "name", "cost", "attack", "durability", "timing",
                          "abilities"})
_ABILITY_FIELDS = frozenset({"text", "effects"})
_STEP_FIELDS = frozenset({"text", "do", "target", "amount"})


def _unknown_fields(spec: dict[str, Any]) -> list[str]:
    """Keys of a card definition (and of its abilities and steps) that mean nothing."""
    out = sorted(set(spec) - _CARD_FIELDS)
    for i, ab in enumerate(spec.get("abilities") or []):
        if not isinstance(ab, dict):
            continue
        steps = ab.get("effects") if "effects" in ab else [ab]
        if "effects" in ab:
            out += [f"abilities[{i}].{k}" for k in sorted(set(ab) - _ABILITY_FIELDS)]
        for j, st in enumerate(steps if isinstance(steps, list) else [steps]):
            if isinstance(st, dict):
                where = f"abilities[{i}].effects[{j}]" if "effects" in ab else f"abilities[{i}]"
                out += [f"{where}.{k}" for k in sorted(set(st) - _STEP_FIELDS)]
    return out


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


class ILanguageRules(RulesHooks):
    """The rules of the i-language card game for one match."""

    def __init__(self, header: MatchStarted, edition: str) -> None:
        if edition not in EDITIONS:
            raise UnsupportedRules(
                f"unknown i_language edition {edition!r} (known: {', '.join(EDITIONS)})",
                field="rules")
        self.edition = edition
        self.data = load_edition(edition)
        if header.format not in self.data["formats"]:
            raise UnsupportedRules(
                f"format {header.format!r} is not supported yet "
                f"(supported: {', '.join(self.data['formats'])})", field="format")
        if len(header.players) != self.data["players"]:
            raise UnsupportedRules("i_language is a 1-on-1 game: the header names "
                                   f"{len(header.players)} players", field="players")
        pol = self.data["policy"]
        self.pol = pol
        self.policy = FlowPolicy(
            requester_keeps_chance=bool(pol["requester_keeps_chance"]),
            resolve_before_cost_triggers=bool(pol["resolve_before_cost_triggers"]),
        )
        self.trigger_order = CoreTriggerOrder()
        self.actions: dict[str, ActionDef] = {
            aid: ActionDef(id=aid, name=a["name"], name_ja=a.get("name_ja", ""),
                           speed=a["speed"], timing=a["timing"],
                           direct=bool(a["direct"]), data=a)
            for aid, a in self.data["actions"].items()
        }
        self.initial_cost: int = int(self.data["initial_cost"])
        self.turn_limit: int = int(self.data["turns_per_player"]) * self.data["players"]
        self.defs: dict[str, CardDef] = {}
        self.def_problems: list[str] = []
        self._parse_cards(header.cards)
        self.cards: dict[str, CardState] = {}
        self.decks: dict[str, list[CardState]] = {}
        self.blind = False
        """No deck is known for some player: the win/lose check cannot be made."""
        self.first: str | None = None
        self.second: str | None = None
        self.over = False
        """The last turn has ended: the game ends at this win/lose check."""
        self.roll: Roll | None = None
        self._notes: list[str] = []

    # ------------------------------------------------------------------ card definitions
    def _parse_cards(self, cards: dict[str, Any] | list[Any] | None) -> None:
        items: list[tuple[str, Any]] = []
        if isinstance(cards, dict):
            items = [(str(k), v) for k, v in cards.items()]
        elif isinstance(cards, list):
            for i, v in enumerate(cards):
                cid = v.get("id") if isinstance(v, dict) else None
                if not isinstance(cid, str) or not cid:
                    self.def_problems.append(f"cards[{i}] has no string 'id'")
                    continue
                items.append((cid, v))
        for cid, spec in items:
            problem, d = self._card_def(cid, spec)
            if problem:
                self.def_problems.append(f"card {cid!r}: {problem}")
            elif d is not None:
                self.defs[cid] = d
                unknown = _unknown_fields(spec)
                if unknown:  # a typo must not pass silently; the card still counts
                    self.def_problems.append(
                        f"card {cid!r}: unknown field(s) {', '.join(unknown)}")

    def _card_def(self, cid: str, spec: Any) -> tuple[str | None, CardDef | None]:
        if not isinstance(spec, dict):
            return "a card definition is an object", None
        kind = spec.get("kind")
        if kind not in ("normal", "magic"):
            return "'kind' must be 'normal' or 'magic'", None
        cost = spec.get("cost")
        if not _is_int(cost) or cost < 0:
            return "'cost' must be a whole number of 0 or more", None
        name = str(spec.get("name", ""))
        raw = spec.get("abilities", [])
        if not isinstance(raw, list):
            return "'abilities' must be a list", None
        abilities: list[tuple[dict[str, Any], ...]] = []
        for i, ab in enumerate(raw):
            steps = ab.get("effects") if isinstance(ab, dict) and "effects" in ab else ab
            if isinstance(steps, dict):
                steps = [steps]
            if not isinstance(steps, list) or not steps:
                return f"ability {i + 1} has no effect steps", None
            for st in steps:
                why = self._step_problem(st, kind)
                if why:
                    return f"ability {i + 1}: {why}", None
            abilities.append(tuple(dict(st) for st in steps))
        if kind == "magic":
            if not abilities:
                return "a magic card has a special ability", None
            return None, CardDef(cid, "magic", cost, abilities=tuple(abilities), name=name)
        attack, durability = spec.get("attack"), spec.get("durability")
        if not _is_int(attack) or attack < 0:
            return "'attack' must be a whole number of 0 or more", None
        if not _is_int(durability) or durability < 1:
            return "'durability' must be a whole number of 1 or more", None
        timing = spec.get("timing", "main")
        if timing not in self.data["ability_timings"]:
            return (f"'timing' must be one of {', '.join(self.data['ability_timings'])}",
                    None)
        return None, CardDef(cid, "normal", cost, attack, durability, str(timing),
                             tuple(abilities), name)

    def _step_problem(self, st: Any, kind: str) -> str | None:
        if not isinstance(st, dict):
            return "a step is an object"
        do = st.get("do")
        if do not in self.data["steps"]:
            return f"'do' must be one of {', '.join(self.data['steps'])}"
        target = st.get("target")
        if target not in self.data["targets"] or (kind == "magic" and target == "self"):
            return f"target {target!r} is not a target of a {kind} card"
        if self.data["steps"][do]["amount"] and not _is_int(st.get("amount")):
            return f"'{do}' needs a whole-number 'amount'"
        return None

    # ------------------------------------------------------------------ interface
    def action(self, action_id: str) -> ActionDef | None:
        return self.actions.get(action_id)

    def notes(self) -> list[str]:
        return list(self._notes)

    def opponent(self, player: str) -> str:
        return next(p for p in self.decks if p != player)

    def camp(self, player: str) -> list[CardState]:
        return [c for c in self.decks.get(player, []) if c.normal]

    def standing(self, player: str) -> list[CardState]:
        return [c for c in self.camp(player) if c.standing]

    def deck_cost(self, player: str) -> int:
        """il.コスト: the sum of the costs of the normal cards used in the game."""
        return sum(c.d.cost for c in self.camp(player))

    def total_cost(self, player: str) -> int:
        """il.コスト: deck cost plus the costs of the magic cards declared."""
        return self.deck_cost(player) + sum(
            c.d.cost for c in self.decks.get(player, []) if not c.normal and c.used)

    def cost_over(self, player: str, adding: int = 0) -> bool:
        """il.コスト / il.敗北: is ``player``'s total cost (with ``adding`` more: a magic
        card about to be declared) over the initial cost? At the game's end that loses."""
        return self.total_cost(player) + adding > self.initial_cost

    # ------------------------------------------------------------------ [1] game start
    def start_game(self, flow: CoreFlow, header: MatchStarted, line: GameStarted) -> None:
        """The decks of the header form the camps; check each deck (il.デッキ)."""
        seq = header.seq
        for problem in self.def_problems:
            flow.findings.append(finding(
                "log.malformed", seq, R_CARD, f"The header's card list: {problem}.",
                actual={"field": "cards"}))
        self.first = line.first_player
        self.second = next(p for p in flow.players if p != line.first_player)
        decks = header.decks or {}
        want = self.data["deck"]
        for p in flow.players:
            self.decks[p] = []
            if p not in decks:
                self.blind = True
                flow.findings.append(finding(
                    "legality.deck-invalid", seq, R_DECK,
                    f"No deck is recorded for {p}: the header's decks must list the 3 normal "
                    "cards and the magic cards each player uses.", expected="a deck",
                    actual=None))
                continue
            problems: list[str] = []
            seen: Counter[str] = Counter()
            for entry in decks[p]:
                parts = split_ref(entry)
                cid = parts[1] if parts and parts[0] == p else entry
                seen[cid] += 1
                if seen[cid] > 1:
                    problems.append(f"{cid} is listed twice")
                    continue
                d = self.defs.get(cid)
                if d is None:
                    problems.append(f"{cid} is not defined in the header's cards")
                    continue
                card = CardState(f"{p}:{cid}", p, d, d.attack, d.durability)
                self.decks[p].append(card)
                self.cards[card.ref] = card
            normal = sum(1 for c in self.decks[p] if c.normal)
            magic = len(self.decks[p]) - normal
            if normal != want["normal"]:
                problems.append(f"{normal} normal cards, not {want['normal']}")
            if magic > want["magic_max"]:
                problems.append(f"{magic} magic cards, more than {want['magic_max']}")
            if problems:
                rule = R_MAGIC_COUNT if magic > want["magic_max"] and len(problems) == 1 \
                    else R_DECK
                flow.findings.append(finding(
                    "legality.deck-invalid", seq, rule,
                    f"{p}'s deck is not valid: {'; '.join(problems)}.",
                    expected={"normal": want["normal"], "magic": f"0..{want['magic_max']}"},
                    actual={"normal": normal, "magic": magic}))
        if self.blind:
            self._notes.append("The header gives no deck for every player: the win/lose check "
                               "cannot be made.")

    # ------------------------------------------------------------------ requests
    def request_findings(self, flow: CoreFlow, line: Request, action: ActionDef) -> list[Finding]:
        """Key card, target and once-per rules of a request; never mutates."""
        out: list[Finding] = []
        player = line.player
        rule = {"attack": R_ATTACK, "ability": R_ABILITY, "magic": R_MAGIC}.get(
            action.id, "il.戦闘処理")

        def rep(code: str, msg: str, rule: str = rule, **kw: Any) -> None:
            out.append(finding(code, line.seq, rule, msg, **kw))

        # No action takes a choice when requested (its choices come with its resolution).
        out += choice_findings(action.name, "request", action.data.get("choices"),
                               line.choices, line.seq)[0]
        if not self.blind:  # the decks name every card of the game
            for i, c in enumerate(line.costs):
                if c.ref not in self.cards:
                    rep("log.unknown-ref", f"costs[{i}].ref: {c.ref!r} names no card in any "
                        "deck.", rule="log", actual=c.ref)
        if action.id == "end":
            if line.key_cards:
                rep("legality.key-card-invalid", "End Turn takes no key card.",
                    actual=line.key_cards)
            if line.targets:
                rep("legality.target-invalid", "End Turn takes no target.", actual=line.targets)
            return out
        if len(line.key_cards) != 1:
            rep("legality.key-card-invalid", f"{action.name} takes exactly one key card.",
                expected=1, actual=len(line.key_cards))
            return out
        card = self._key_card(line.key_cards[0], player, rep)
        if card is None:
            return out
        if action.id == "attack":
            self._attack_findings(flow, line, card, rep)
        elif action.id == "ability":
            if not card.normal:
                rep("legality.key-card-invalid",
                    f"{card.ref} is a magic card: it is used by a magic declaration.")
            elif not card.d.abilities:
                rep("legality.key-card-invalid", f"{card.ref} has no special ability.")
            else:
                if not card.standing:
                    rep("legality.key-card-invalid",
                        f"{card.ref} is incapacitated ({card.state}): it cannot use its "
                        "ability.", actual=card.state)
                if card.d.timing != "main":
                    rep("timing.not-directly-actionable",
                        f"{card.ref}'s ability has timing {card.d.timing}: the rules start it, "
                        "no player requests it.", expected=card.d.timing, actual="request")
                if card.used:
                    rep("legality.once-per-game",
                        f"{card.ref}'s special ability was already used in this game.",
                        expected="once per game", actual="twice")
        elif action.id == "magic":
            if card.normal:
                rep("legality.key-card-invalid", f"{card.ref} is a normal card, not a magic "
                    "card.")
            elif card.used:
                rep("legality.once-per-game",
                    f"{card.ref} was already declared in this game.",
                    expected="once per game", actual="twice")
        return out

    def request_options(self, flow: CoreFlow, player: str, action: ActionDef, sees: Sight
                        ) -> list[Request]:
        """The requests of ``action`` that ``player`` could make now, for the judge to
        check (:meth:`request_findings`): End alone; Attack, each normal card of theirs on
        each normal card of the opponent's; Special Ability, each normal card of theirs;
        Magic Declaration, each magic card of theirs. Every card of a camp is public
        (the header's decks name them), so nothing is out of sight."""
        mine = self.decks.get(player, [])
        if action.id == "attack":
            foes = [c.ref for c in self.decks.get(self.opponent(player), []) if c.normal]
            shapes = [([c.ref], [t]) for c in mine if c.normal for t in foes]
        elif action.id == "ability":
            shapes = [([c.ref], []) for c in mine if c.normal]
        elif action.id == "magic":
            shapes = [([c.ref], []) for c in mine if not c.normal]
        else:
            shapes = [([], [])]
        return [Request(seq=flow.next_seq, request="?", player=player, action=action.id,
                        key_cards=keys, targets=targets) for keys, targets in shapes]

    def _key_card(self, ref: str, player: str, rep: Any) -> CardState | None:
        card = self.cards.get(ref)
        if card is None:
            parts = split_ref(ref)
            if parts is not None and parts[0] == player and parts[1] in self.defs:
                rep("legality.key-card-invalid", f"{parts[1]} is not in {player}'s deck.",
                    actual=ref)
            else:
                rep("log.unknown-ref", f"No card {ref!r} in any deck.", rule="log",
                    actual=ref)
            return None
        if card.owner != player:
            rep("legality.key-card-invalid", f"{ref} is not a card of {player}.", actual=ref)
        return card

    def _attack_findings(self, flow: CoreFlow, line: Request, card: CardState,
                         rep: Any) -> None:
        if not card.normal:
            rep("legality.key-card-invalid", f"{card.ref} is a magic card: it cannot attack.")
        elif not card.standing:
            rep("legality.key-card-invalid",
                f"{card.ref} is incapacitated ({card.state}): it cannot attack.",
                actual=card.state)
        if card.attacked_in(flow.turn):
            rep("timing.once-per-turn", f"{card.ref} already attacked this turn: each normal "
                "card attacks at most once per turn.", expected="once this turn",
                actual="twice")
        if len(line.targets) != 1:
            rep("legality.target-invalid", "Attack takes exactly one target.", expected=1,
                actual=len(line.targets))
            return
        target = self.cards.get(line.targets[0])
        if target is None:
            rep("log.unknown-ref", f"No card {line.targets[0]!r} in any deck.", rule="log",
                actual=line.targets[0])
        elif target.owner == line.player or not target.normal:
            rep("legality.target-invalid",
                f"{target.ref} is not a normal card of the opponent.", actual=target.ref)
        elif not target.standing:
            rep("legality.target-invalid",
                f"{target.ref} is already incapacitated ({target.state}).",
                actual=target.state)

    def pay_costs(self, flow: CoreFlow, req: Req, line: Request) -> list[TriggerSpec]:
        """Nothing is paid at request: the request is counted (attack, once per game)."""
        card = self.cards.get(req.key_cards[0]) if len(req.key_cards) == 1 else None
        req.data["illegal"] = any(
            f.severity == "error" for f in self.request_findings(flow, line, req.action))
        if card is None:
            return []
        if req.action.id == "attack":
            card.attacked_turn = flow.turn
        elif req.action.id in ("ability", "magic"):
            card.used = True
        return []

    # ------------------------------------------------------------------ dice
    def on_roll(self, flow: CoreFlow, line: Roll) -> None:
        """Keep the roll for the next resolution (il.特殊能力: 選出方法はダイス)."""
        if line.player not in flow.players:
            flow.report("log.unknown-ref", "log", f"No player {line.player!r}.",
                        actual=line.player)
        if line.result > line.sides:
            flow.report("legality.roll-invalid", R_DIE,
                        f"A {line.sides}-sided die cannot show {line.result}.",
                        expected=f"1..{line.sides}", actual=line.result)
        self.roll = line

    # ------------------------------------------------------------------ resolving
    def resolve(self, flow: CoreFlow, req: Req, line: Resolve) -> Resolution:
        roll, self.roll = self.roll, None
        ctx = _Resolving(self, flow, req, line, roll)
        return ctx.run()

    def preview(self, flow: CoreFlow, req: Req, choices: dict[str, Any] | None,
                roll: Roll | None = None) -> ResolutionPlan:
        """What resolving ``req`` now with ``choices`` (the die ``roll`` before it) does:
        the effects step by step with the reasons, and the requests it triggers. Pure: the
        table does not change (:meth:`apply` carries effects out)."""
        from coreflow_judge.events.models import Resolve

        line = Resolve(seq=flow.next_seq, request=req.id, result="resolved", choices=choices)
        ctx = _Resolving(self, flow, req, line, roll)
        return ctx.plan()

    def source_card(self, req: Req) -> CardState | None:
        """The card whose ability or attack a request carries out."""
        ref = req.key_cards[0] if len(req.key_cards) == 1 else req.source
        return self.cards.get(ref) if ref else None

    def apply(self, effects: list[Effect], cards: Mapping[str, CardState] | None = None
              ) -> None:
        """Carry out primitive effects (the rules' or, where they differ, the log's) on the
        table's cards, or on ``cards`` (copies, to see what effects would do)."""
        on = self.cards if cards is None else cards
        for e in effects:
            card = on.get(str(e.get("card")))
            if card is None:
                continue
            op, value = e.get("op"), e.get("value")
            if op == "durability" and _is_int(value):
                card.durability = max(0, value)
            elif op == "destroy":
                card.durability = 0
            elif op == "remove":
                card.removed = True
            elif op == "attack" and _is_int(value):
                card.attack = max(0, value)

    # ------------------------------------------------------------------ [9] win/lose
    def win_check(self, flow: CoreFlow) -> GameResult | None:
        """il.勝利 / il.敗北, loss first. The game ends when a camp has no standing normal
        card or after the last turn; a total cost over 1000 then loses."""
        if self.blind or not self.decks:
            return None
        players = list(self.decks)
        wiped = [p for p in players if not self.standing(p)]
        if not wiped and not self.over:
            return None
        over = [p for p in players if self.cost_over(p)]
        if len(over) == len(players):
            return GameResult("draw", None, "cost_over")
        if over:
            return GameResult("win", self.opponent(over[0]), "cost_over")
        if len(wiped) == len(players):
            return GameResult("draw", None, "all_incapacitated")
        if wiped:
            return GameResult("win", self.opponent(wiped[0]), "all_incapacitated")
        return GameResult("win", self.second, "turn_limit")

    def hand_turn_over(self, flow: CoreFlow, player: str) -> list[Req] | None:
        """A turn of this game starts with nothing done for its player (the turn player
        holds the chance all turn): it is ``player``'s as it stands. The turn limit counts
        turns, whoever played them."""
        return []

    def win_check_unknown(self, flow: CoreFlow) -> str | None:
        if self.blind:
            return "the header does not record every player's deck"
        return None

    # ------------------------------------------------------------------ projection
    def board(self, flow: CoreFlow) -> dict[str, Any]:
        players: dict[str, Any] = {}
        for p, deck in self.decks.items():
            players[p] = {
                "seat": "first" if p == self.first else "second",
                "camp": [
                    {"card": c.ref, "cost": c.d.cost, "attack": c.attack,
                     "durability": c.durability, "state": c.state,
                     "ability_used": c.used, "attacked_turn": c.attacked_turn}
                    for c in deck if c.normal
                ],
                # The same, as lists of card references (what a text board prints):
                "standing": [f"{c.ref}[{c.attack}/{c.durability}]" for c in deck
                             if c.standing],
                "destroyed": [c.ref for c in deck if c.state == "destroyed"],
                "removed": [c.ref for c in deck if c.state == "removed"],
                "magic_declared": [c.ref for c in deck if not c.normal and c.used],
                "magic_unused": [c.ref for c in deck if not c.normal and not c.used],
                "deck_cost": self.deck_cost(p),
                "total_cost": self.total_cost(p),
            }
        return {"players": players, "turn_limit": self.turn_limit}


@dataclass(slots=True)
class _Scratch:
    """Values while one resolution is planned (steps apply one after the other)."""

    durability: dict[str, int] = field(default_factory=dict)
    attack: dict[str, int] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


class _Resolving:
    """One resolution: plan the effects, compare with the log's claims, apply."""

    def __init__(self, rules: ILanguageRules, flow: CoreFlow, req: Req, line: Resolve,
                 roll: Roll | None) -> None:
        self.rules = rules
        self.flow = flow
        self.req = req
        self.line = line
        self.roll = roll
        found, self.refused = choice_findings(
            req.action.name, "resolve", req.action.data.get("choices_on_resolve"),
            line.choices, line.seq)
        """A choice refused for its shape (or one the action does not take) is read as not
        recorded; the line has its finding, so the steps add none about a choice."""
        self.choices = {k: v for k, v in (line.choices or {}).items()
                        if k not in self.refused}
        self.findings: list[Finding] = found
        self.mismatch_reported = False

    def rep(self, code: str, rule: str, msg: str, **kw: Any) -> None:
        if self.refused and code in ("log.choice-missing", "legality.choice-invalid"):
            return  # the line's choices were refused already: one finding (choices.py)
        self.findings.append(finding(code, self.line.seq, rule, msg, **kw))

    # ------------------------------------------------------------------ planning
    def plan(self) -> ResolutionPlan:
        """The rules' resolution of the request with the recorded choices (pure)."""
        steps = self._plan()
        effects = [e for st in steps for e in st.effects]
        return ResolutionPlan(request=self.req.id, result="resolved", steps=steps,
                              triggers=self.triggers(effects))

    def _plan(self) -> list[PlanStep]:
        aid = self.req.action.id
        if aid == "attack":
            return self._plan_attack()
        if aid in ("ability", "magic"):
            card = self.rules.source_card(self.req)
            if card is None or not card.d.abilities:
                return []
            index = self._option(card)
            return self._plan_steps(card, card.d.abilities[index])
        if aid == "end":
            if self.flow.turn >= self.rules.turn_limit:
                return [PlanStep("end", [], f"turn {self.flow.turn} is the last: the "
                                 "win/lose check decides")]
            return [PlanStep("end", [{"op": "turn",
                                      "player": self.rules.opponent(self.req.controller)}])]
        return []

    def _plan_attack(self) -> list[PlanStep]:
        attacker = self.rules.source_card(self.req)
        target = self.rules.cards.get(self.req.targets[0]) if len(self.req.targets) == 1 else None
        if attacker is None or target is None or not target.normal or target.removed:
            return []
        left = target.durability - attacker.attack
        value = max(0, left)  # il.耐久力: 0以下は0
        out: list[Effect] = [{"op": "durability", "card": target.ref, "value": value}]
        if value == 0 and target.durability > 0:
            out.append({"op": "destroy", "card": target.ref})
        why = (f"{target.ref}'s durability {target.durability} - {attacker.ref}'s attack "
               f"{attacker.attack} = {left}" + (", counted as 0" if left < 0 else ""))
        return [PlanStep("attack", out, why)]

    def _option(self, card: CardState) -> int:
        """Which of the card's listed abilities runs (0-based): the die decides."""
        n = len(card.d.abilities)
        choice = self.choices.get("ability")
        if choice is not None and (not _is_int(choice) or not 1 <= choice <= n):
            self.rep("legality.choice-invalid", R_DIE,
                     f"{card.ref} lists {n} abilities: the choice must be 1..{n}.",
                     expected=f"1..{n}", actual=choice)
            choice = None
        if n == 1:
            return 0
        roll = self.roll
        if roll is None:
            self.rep("log.roll-missing", R_DIE,
                     f"{card.ref} lists {n} abilities and no die roll is recorded before "
                     "this resolution: the random choice cannot be checked.",
                     severity="warning", expected="roll", actual=choice)
            if choice is not None:
                return int(choice) - 1
            return self._option_from_claims(card)
        usable = roll.result <= roll.sides  # an impossible result is reported at its line
        if usable and roll.sides % n:
            self.rep("legality.roll-invalid", R_DIE,
                     f"A {roll.sides}-sided die cannot pick one of {n} abilities evenly.",
                     expected=f"a die whose sides are a multiple of {n}",
                     actual=roll.sides)
            usable = False
        if not usable:
            return int(choice) - 1 if choice is not None else 0
        rolled = die_picks(n, roll.sides, roll.result)
        if choice is None or choice == rolled:
            return rolled - 1
        self.rep("legality.effect-mismatch", R_DIE,
                 f"The die ({roll.result} on d{roll.sides}) picks ability {rolled} of "
                 f"{card.ref}; the log used ability {choice}.",
                 expected={"ability": rolled}, actual={"ability": choice})
        self.mismatch_reported = True
        return int(choice) - 1

    def _option_from_claims(self, card: CardState) -> int:
        """No roll and no recorded choice: the ability the claimed effects show, else 1."""
        claims = self._claims()
        if claims is not None:
            for i, steps in enumerate(card.d.abilities):
                quiet = _Resolving(self.rules, self.flow, self.req, self.line, None)
                planned = [e for st in quiet._plan_steps(card, steps) for e in st.effects]
                if not compare(planned, claims):
                    return i
        return 0

    def _targets(self) -> tuple[list[str], bool]:
        """The cards chosen as targets, and whether the resolution records them itself:
        ``choices.targets`` (``[]``: none chosen), else the request's targets (a step
        left without one is not recorded)."""
        chosen = self.choices.get("targets")
        if isinstance(chosen, list):
            return [str(t) for t in chosen], True
        return list(self.req.targets), False

    def _plan_steps(self, card: CardState, steps: tuple[dict[str, Any], ...]
                    ) -> list[PlanStep]:
        """Each step of the ability, one after the other (a step sees the values the
        steps before it left)."""
        me = self.req.controller
        targets, recorded = self._targets()
        scratch = _Scratch()
        out: list[PlanStep] = []
        tspecs = self.rules.data["targets"]
        for st in steps:
            tname = st["target"]
            spec = tspecs[tname]
            if spec["chosen"]:
                if not targets:
                    # Nothing to record where no card may be targeted; none chosen where
                    # one may is a choice the ability does not allow.
                    could = [c.ref for p in self.rules.decks for c in self.rules.camp(p)
                             if may_target(c, spec["side"], me)]
                    if could and not recorded:
                        self.rep("log.choice-missing", R_ABILITY if card.normal else R_MAGIC,
                                 f"The target of {card.ref}'s '{st['do']}' is not recorded.",
                                 severity="warning")
                    elif could:
                        self.rep("legality.choice-invalid",
                                 R_ABILITY if card.normal else R_MAGIC,
                                 f"{card.ref}'s '{st['do']}' targets a card ({tname}); the "
                                 f"log chose none, while {', '.join(could)} could be chosen.",
                                 expected=could, actual=[])
                    continue
                ref = targets.pop(0)
                hit = self.rules.cards.get(ref)
                if hit is None:
                    self.rep("log.unknown-ref", "log", f"No card {ref!r} in any deck.",
                             actual=ref)
                    continue
                if not may_target(hit, spec["side"], me):
                    self.rep("legality.target-invalid",
                             R_ABILITY if card.normal else R_MAGIC,
                             f"{ref} is not a standing normal card that {card.ref}'s "
                             f"'{st['do']}' may target ({tname}).", expected=tname,
                             actual=ref)
                victims = [hit]
            elif tname == "self":
                victims = [card]
            else:
                victims = [c for p in self.rules.decks for c in self.rules.camp(p)
                           if may_target(c, spec["side"], me)]
            amount = f" {st['amount']}" if "amount" in st else ""
            out.append(PlanStep(st["do"], [e for v in victims for e in self._step(st, v, scratch)],
                                f"{card.ref}: {st['do']}{amount} on {tname}"
                                f" ({', '.join(v.ref for v in victims) or 'no card'})"))
        return out

    def _step(self, st: dict[str, Any], c: CardState, s: _Scratch) -> list[dict[str, Any]]:
        do = st["do"]
        if c.ref in s.removed or (c.removed and do != "remove"):
            return []
        dur = s.durability.get(c.ref, c.durability)
        if do == "damage":
            if dur <= 0:
                return []
            new = max(0, dur - int(st["amount"]))  # il.耐久力: 0以下は0として扱う
            s.durability[c.ref] = new
            out: list[dict[str, Any]] = [{"op": "durability", "card": c.ref, "value": new}]
            if new == 0:
                out.append({"op": "destroy", "card": c.ref})
            return out
        if do == "heal":
            if dur <= 0:
                return []  # a destroyed card is not healed (docs/i_language.md)
            new = max(0, dur + int(st["amount"]))
            s.durability[c.ref] = new
            return [{"op": "durability", "card": c.ref, "value": new}]
        if do == "attack":
            new = max(0, s.attack.get(c.ref, c.attack) + int(st["amount"]))
            s.attack[c.ref] = new
            return [{"op": "attack", "card": c.ref, "value": new}]
        if do == "remove":
            if c.removed:
                return []
            s.removed.add(c.ref)
            return [{"op": "remove", "card": c.ref}]
        return []

    # ------------------------------------------------------------------ running
    def _claims(self) -> list[dict[str, Any]] | None:
        if self.line.effects is None:
            return None
        return [e.model_dump() for e in self.line.effects]

    def run(self) -> Resolution:
        req = self.req
        ours = [e for st in self._plan() for e in st.effects]  # the plan's effects
        claims = self._claims()
        applied = ours
        rule = {"attack": R_ATTACK, "ability": R_ABILITY, "magic": R_MAGIC}.get(
            req.action.id, "il.戦闘処理")
        fizzled = self.line.result == "fizzled"
        if fizzled:
            applied = []
            if ours and not req.data.get("illegal") and not self.mismatch_reported:
                self.rep("legality.effect-mismatch", rule,
                         f"Nothing makes {req.action.name} ({req.id}) fail here: the rules "
                         "carry it out.", expected="resolved", actual="fizzled")
        elif claims is not None and compare(ours, claims):
            if not self.mismatch_reported:
                self.rep("legality.effect-mismatch", R_DURABILITY if any(
                    c.get("op") == "durability" and _is_int(c.get("value")) and c["value"] < 0
                    for c in claims) else rule,
                    f"The recorded effects of {req.action.name} ({req.id}) differ from the "
                    "rules'.", expected=ours, actual=claims)
            applied = claims  # the judge follows the game as it was played
        triggers = self.triggers(applied) if not fizzled else []
        for t in triggers:
            self.rules.cards[t.source].used = True  # once per game
        self.rules.apply([e for e in applied if e.get("op") != "turn"])
        if req.action.id == "end" and not fizzled:
            if self.flow.turn >= self.rules.turn_limit:
                self.rules.over = True
            else:
                self.flow.start_turn(self.rules.opponent(req.controller))
                self.flow.give_chance_to_turn_player()
        return Resolution(result="fizzled" if fizzled else "resolved", effects=applied,
                          findings=self.findings, triggers=triggers)

    def triggers(self, effects: list[Effect]) -> list[TriggerSpec]:
        """The abilities carrying out ``effects`` starts (pure): an attacker's "on attack"
        ability, then, in card order, the "on destroyed" ability of each standing card the
        effects incapacitate without removing it; each ability once per game."""
        out: list[TriggerSpec] = []
        if self.req.action.id == "attack":
            attacker = self.rules.source_card(self.req)
            if attacker is not None:
                out += self._trigger(attacker, "on_attack")
        touched = {str(e.get("card")) for e in effects if e.get("op") in _FELLING}
        if not touched:
            return out
        after = {ref: c.copy() for ref, c in self.rules.cards.items()
                 if ref in touched and c.standing}
        self.rules.apply([e for e in effects if e.get("op") != "turn"], after)
        for ref in sorted(after):
            card = after[ref]
            if not card.removed and card.durability == 0:
                out += self._trigger(card, "on_destroyed")
        return out

    @staticmethod
    def _trigger(card: CardState, timing: str) -> list[TriggerSpec]:
        if not card.ability_ready(timing):
            return []
        return [TriggerSpec("ability", card.ref, card.owner)]
