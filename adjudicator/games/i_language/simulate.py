"""Seeded random legal i-language games, played through the judge's own engine.

The simulator is a player, never a referee: the driver
(:class:`~coreflow_judge.adjudicator.simulation.Simulation`) reads from the engine
(:class:`CoreFlow` with :class:`ILanguageRules`) what must come next — a triggered
ability waiting in the buffer, an instant waiting for its resolution, or a decision of the
player holding the chance (the turn player; another passes it back) — and feeds one
line at a time. Any error finding on a line it feeds is a :class:`SimulationError` (a bug
in the engine or the simulator). The effects it records on half the resolutions are those
of the rules module's plan (:meth:`ILanguageRules.preview`); which ability a die picks and
which cards an ability may target are the rules module's too: the simulator computes no
effect itself.

Set-up: a random card set (14 normal and 8 magic cards) goes into the header's ``cards``;
each player holds a pool of 9 normal cards (規定枚数 9) and plays 3 of them as the deck,
with 0 to 3 magic cards. Most decks stay within the initial cost of 1000, some do not,
and a player sometimes declares a magic card that takes the total over 1000, so games end
by ``all_incapacitated``, ``turn_limit`` and ``cost_over``.

A card that lists several abilities rolls a die first (sides a multiple of the count):
half the time before the request, with the targets in ``request.targets``, otherwise just
before the resolution, with the targets in ``resolve.choices``.
"""

from __future__ import annotations

import random
from typing import Any

from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.i_language.rules import (
    CardState,
    ILanguageRules,
    die_picks,
    may_target,
)
from coreflow_judge.adjudicator.judge import start_flow
from coreflow_judge.adjudicator.next_step import NextStep
from coreflow_judge.adjudicator.simulation import Simulation, SimulationError, feed_legal
from coreflow_judge.events.models import (
    Effect,
    GameStarted,
    LogLine,
    MatchStarted,
    Request,
    Resolve,
    Roll,
)

PLAYERS = ("alice", "bob")
NORMAL_CARDS = 14
MAGIC_CARDS = 8
POOL = 9
MAGIC_RATE = 0.05
"""How often, at a decision point, some player declares a magic card first."""
OVER_BUDGET_RATE = 0.15
"""How often a magic declaration may take the player's total cost over 1000."""
ACT_RATE = 0.85
"""How often the turn player acts (attack or ability) rather than ending the turn."""
CLAIM_RATE = 0.5
"""How often a resolution records the effects the table saw."""


# ---------------------------------------------------------------------------- card set
def _step(rng: random.Random, kind: str) -> dict[str, Any]:
    do = rng.choices(["damage", "heal", "attack", "remove"], [5, 2, 1.5, 0.3])[0]
    if do == "damage":
        target = rng.choices(["opponent_card", "all_opponent_cards", "any_card"], [5, 2, 1])[0]
        return {"do": do, "target": target, "amount": rng.randrange(10, 65, 5)}
    if do == "heal":
        own = ["own_card", "all_own_cards"] + (["self"] if kind == "normal" else [])
        return {"do": do, "target": rng.choice(own), "amount": rng.randrange(10, 55, 5)}
    if do == "attack":
        if rng.random() < 0.3:
            return {"do": do, "target": "opponent_card", "amount": -rng.randrange(5, 25, 5)}
        own = ["own_card", "all_own_cards"] + (["self"] if kind == "normal" else [])
        return {"do": do, "target": rng.choice(own), "amount": rng.randrange(5, 35, 5)}
    return {"do": do, "target": "opponent_card"}


def _abilities(rng: random.Random, kind: str) -> list[dict[str, Any]]:
    count = rng.choice([1, 1, 1, 2, 2, 3])
    return [{"effects": [_step(rng, kind) for _ in range(rng.choice([1, 1, 2]))]}
            for _ in range(count)]


def card_set(rng: random.Random) -> dict[str, dict[str, Any]]:
    """A random set of card definitions in the header's vocabulary."""
    cards: dict[str, dict[str, Any]] = {}
    for i in range(1, NORMAL_CARDS + 1):
        card: dict[str, Any] = {
            "kind": "normal", "name": f"Normal {i}",
            "cost": rng.randrange(80, 410, 10),
            "attack": rng.randrange(10, 65, 5),
            "durability": rng.randrange(150, 420, 10),
        }
        if rng.random() < 0.8:
            card["timing"] = rng.choice(["main", "main", "on_attack", "on_destroyed"])
            card["abilities"] = _abilities(rng, "normal")
        cards[f"n{i}"] = card
    for i in range(1, MAGIC_CARDS + 1):
        cards[f"m{i}"] = {"kind": "magic", "name": f"Magic {i}",
                          "cost": rng.randrange(40, 230, 10),
                          "abilities": _abilities(rng, "magic")}
    return cards


# ---------------------------------------------------------------------------- the game
class _Simulator(Simulation[list[LogLine]]):
    """One game: the engine and a seeded random player policy (the driver:
    :class:`~coreflow_judge.adjudicator.simulation.Simulation`); what it feeds at once is
    a line, or a die roll and the line it decides."""

    def __init__(self, seed: int, max_lines: int, match_id: str, edition: str,
                 fmt: str) -> None:
        self.rng = random.Random(seed)
        self.max_lines = max_lines
        rng = self.rng
        cards = card_set(rng)
        normals = [c for c, d in cards.items() if d["kind"] == "normal"]
        magics = [c for c, d in cards.items() if d["kind"] == "magic"]
        decks: dict[str, list[str]] = {}
        for p in PLAYERS:
            pool = rng.sample(normals, POOL)  # the 9 normal cards the player holds
            decks[p] = rng.sample(pool, 3) + rng.sample(magics, rng.randint(0, 3))
        header = MatchStarted(seq=1, match_id=match_id, game="i_language",
                              rules=f"i_language/{edition}", format=fmt,
                              players=list(PLAYERS),
                              decks=decks, cards=cards, log_format=1)
        start = GameStarted(seq=2, first_player=rng.choice(PLAYERS))
        header, start = self._recorded(header, start)
        self.flow: CoreFlow = start_flow(header)
        rules = self.flow.rules
        if not isinstance(rules, ILanguageRules):
            raise SimulationError("the header's game is not i_language")
        self.rules: ILanguageRules = rules
        self.prepared: dict[str, dict[str, Any]] = {}
        """Resolve choices decided before the request (the die rolled first)."""
        self._start(start)

    def _recorded(self, header: MatchStarted, start: GameStarted
                  ) -> tuple[MatchStarted, GameStarted]:
        """The set-up as the table records it (a table that records it wrongly, in
        :mod:`.mistakes`, changes it here)."""
        return header, start

    def _start(self, start: GameStarted) -> None:
        """Feed the game start (its findings are the header's: a wrong set-up's)."""
        self._feed(start)

    def _item(self, line: LogLine) -> list[LogLine]:
        return [line]

    def _feed_item(self, item: list[LogLine]) -> None:
        for line in item:
            self._feed(line)

    def _feed(self, line: LogLine) -> None:
        feed_legal(self.flow, line)

    def _seq(self, offset: int = 0) -> int:
        return self.flow.next_seq + offset

    # ------------------------------------------------------------------ decisions
    def _decide(self, step: NextStep) -> list[LogLine] | None:
        """The turn player attacks, uses an ability or ends the turn (any player may first
        declare a magic card); another player holding the chance passes it back (only a
        table that moved it away, a mistake of :mod:`.mistakes`, gets there)."""
        rng = self.rng
        flow = self.flow
        if step.holder != flow.turn_player:
            return None
        if rng.random() < MAGIC_RATE:
            player = rng.choice(PLAYERS)
            found = self._magic(player)
            if found:
                return found
        tp = flow.turn_player
        assert tp is not None
        opponents = self.rules.standing(self.rules.opponent(tp))
        options: list[tuple[str, CardState]] = []
        for card in self.rules.standing(tp):
            if not card.attacked_in(flow.turn) and opponents:
                options.append(("attack", card))
            if card.ability_ready("main"):
                options.append(("ability", card))
        if options and rng.random() < ACT_RATE:
            action, card = rng.choice(options)
            if action == "attack":
                target = rng.choice(opponents)
                return [self._request(tp, "attack", card, [target.ref])]
            return self._use(tp, "ability", card)
        return [self._request(tp, "end", None, [])]

    def _magic(self, player: str) -> list[LogLine]:
        left = [c for c in self.rules.decks[player] if not c.normal and not c.used]
        if not left:
            return []
        card = self.rng.choice(left)
        if self.rules.cost_over(player, card.d.cost) and self.rng.random() >= OVER_BUDGET_RATE:
            return []
        return self._use(player, "magic", card)

    def _use(self, player: str, action: str, card: CardState) -> list[LogLine]:
        """An ability or a magic card: with several abilities, maybe roll before asking."""
        if len(card.d.abilities) > 1 and self.rng.random() < 0.5:
            roll, index = self._roll(player, len(card.d.abilities), 0)
            targets = self._targets(player, card, index)
            req = self._request(player, action, card, targets, offset=1)
            self.prepared[req.request] = {"ability": index + 1}
            return [roll, req]
        return [self._request(player, action, card, [])]

    def _request(self, player: str, action: str, card: CardState | None, targets: list[str],
                 offset: int = 0) -> Request:
        return Request(seq=self._seq(offset), request=self.new_request_id(), player=player,
                       action=action, key_cards=[card.ref] if card else [], targets=targets)

    def _roll(self, player: str, n: int, offset: int) -> tuple[Roll, int]:
        sides = n * self.rng.choice([1, 2] if n > 2 else [1, 2, 3])
        result = self.rng.randint(1, sides)
        return (Roll(seq=self._seq(offset), player=player, sides=sides, result=result),
                die_picks(n, sides, result) - 1)

    def _targets(self, player: str, card: CardState, index: int) -> list[str]:
        """A random legal target for each step of the ability that names one."""
        out: list[str] = []
        specs = self.rules.data["targets"]
        for st in card.d.abilities[index]:
            spec = specs[st["target"]]
            if not spec["chosen"]:
                continue
            pool = [c for p in PLAYERS for c in self.rules.standing(p)
                    if may_target(c, spec["side"], player)]
            if pool:
                out.append(self.rng.choice(pool).ref)
        return out

    # ------------------------------------------------------------------ resolutions
    def _resolve(self, req: Req) -> list[LogLine]:
        lines: list[LogLine] = []
        choices: dict[str, Any] | None = None
        card = self.rules.source_card(req)
        if req.action.id in ("ability", "magic") and card is not None and card.d.abilities:
            choices = self.prepared.pop(req.id, None)
            if choices is None:
                index = 0
                if len(card.d.abilities) > 1:
                    roll, index = self._roll(req.controller, len(card.d.abilities), 0)
                    lines.append(roll)
                choices = {"ability": index + 1,
                           "targets": self._targets(req.controller, card, index)}
        effects = None
        if self.rng.random() < CLAIM_RATE:
            plan = self.rules.preview(self.flow, req, choices)
            effects = [Effect(**e) for e in plan.effects]
        lines.append(Resolve(seq=self._seq(len(lines)), request=req.id, result="resolved",
                             choices=choices, effects=effects))
        return lines


def simulate_game(seed: int, max_lines: int = 3000, match_id: str | None = None,
                  edition: str = "1", fmt: str = "standard") -> list[LogLine]:
    """Play one seeded random legal i-language game to its end; the complete log.

    Same seed, same log. A game still going after ``max_lines`` lines stops unfinished
    (it never should: the game has at most 20 turns). An edition or format the rules
    module does not carry raises :class:`~adjudicator.judge.JudgeInputError`.
    """
    return _Simulator(seed, max_lines, match_id or f"sim-il-{seed}", edition, fmt).run()
