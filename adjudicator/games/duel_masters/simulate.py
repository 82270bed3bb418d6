"""Seeded random legal Duel Masters games, played through the judge's own engine.

The simulator is a player, never a referee: the driver
(:class:`~coreflow_judge.adjudicator.simulation.Simulation`) reads what must come next
from the engine (:class:`~adjudicator.flow.CoreFlow` with :class:`DuelMastersRules`): a
pending effect in the buffer (the engine's own dm101.4a order), an instant request waiting
for its resolution, or a decision of the player holding the chance (the non-active player
passes). For a decision it builds candidate requests from the table (hand, mana,
creatures) and keeps only those the engine accepts without an error finding
(:func:`~coreflow_judge.adjudicator.simulation.accepted`); resolutions carry the choices the
rules ask for (the blocker, the shields broken, whether an S-Trigger or G-Strike is used,
the creature an ability chooses). Every line it feeds must raise no error finding: one that
does is a :class:`SimulationError`, a bug in the engine or in the simulator.

Decks are 40 cards: ten definitions of the sample card list
(``data/sample-cards.yaml``), four copies each (``scout#1`` .. ``scout#4``), shuffled. The
header carries both decks and the definitions, so the engine knows every card, and each
player's hyperspatial zone (one copy of each sample psychic creature) and super GR zone
(:data:`GR_COPIES` of each sample GR creature, shuffled).

The result is the complete log (:meth:`CoreFlow.complete_log`). Some resolutions also
record the effects the table saw (``resolve.effects``), as a scorekeeper that writes them
down would: the simulator asks the rules for the resolution's plan
(:meth:`DuelMastersRules.plan_resolution`) before it writes the line, and writes the plan's
effects in it; it computes no effect itself.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.games.duel_masters.cards import CardDef
from coreflow_judge.adjudicator.games.duel_masters.lines import DuelMastersMatchStarted
from coreflow_judge.adjudicator.games.duel_masters.rules import DuelMastersRules
from coreflow_judge.adjudicator.judge import start_flow
from coreflow_judge.adjudicator.next_step import NextStep, accepted
from coreflow_judge.adjudicator.simulation import Simulation, SimulationError, feed_legal
from coreflow_judge.events.models import (
    Effect,
    GameStarted,
    LogLine,
    Request,
    Resolve,
)

PLAYERS = ("alice", "bob")
EDITION = "1.47"
FORMAT = "standard"
DEFINITIONS_PER_DECK = 10
COPIES = 4
GR_COPIES = 6
"""Copies of each sample GR creature in a super GR zone."""
CLAIM_RATE = 0.3
"""How often a resolution records the primitive effects the table saw (``effects``)."""
BLOCK_RATE = 0.6
"""How often the non-active player blocks when they can."""
TRIGGER_USE_RATE = 0.85
END_WEIGHT = 1.0
"""The weight of ending the turn against the other requests."""
AGGRESSION = (5.0, 5.0, 5.0, 0.02)
"""The weight of an attack against other requests, drawn per game: a few games are played
by cautious players and end by library out."""
"""How often a player uses an S-Trigger or G-Strike."""


@lru_cache(maxsize=1)
def sample_cards() -> dict[str, Any]:
    """The invented sample card definitions shipped with the package."""
    text = (resources.files("coreflow_judge.adjudicator.games.duel_masters")
            .joinpath("data", "sample-cards.yaml").read_text(encoding="utf-8"))
    data: dict[str, Any] = yaml.safe_load(text)
    return data


class _Simulator(Simulation[LogLine]):
    """One game: the engine and a seeded random player policy (the driver:
    :class:`~coreflow_judge.adjudicator.simulation.Simulation`)."""

    def __init__(self, seed: int, max_lines: int, match_id: str | None, edition: str,
                 fmt: str) -> None:
        DuelMastersRules(edition, fmt)  # an unknown edition or format stops here
        self.rng = random.Random(seed)
        self.max_lines = max_lines
        cards = sample_cards()
        decks: dict[str, list[str]] = {}
        zones: dict[str, dict[str, list[str]]] = {"hyperspatial": {}, "super_gr": {}}
        by_zone = {z: sorted(c for c, d in cards.items() if d.get("zone", "deck") == z)
                   for z in ("deck", "hyperspatial", "super_gr")}
        for p in PLAYERS:
            chosen = self.rng.sample(by_zone["deck"], DEFINITIONS_PER_DECK)
            deck = [f"{c}#{i}" for c in chosen for i in range(1, COPIES + 1)]
            self.rng.shuffle(deck)
            decks[p] = deck
            zones["hyperspatial"][p] = [f"{c}#1" for c in by_zone["hyperspatial"]]
            gr = [f"{c}#{i}" for c in by_zone["super_gr"] for i in range(1, GR_COPIES + 1)]
            self.rng.shuffle(gr)
            zones["super_gr"][p] = gr
        header = DuelMastersMatchStarted(
            seq=1, match_id=match_id or f"sim-duel_masters-{seed}", game="duel_masters",
            rules=f"duel_masters/{edition}", format=fmt, players=list(PLAYERS),
            decks=decks, cards=dict(cards), log_format=1,
            hyperspatial=zones["hyperspatial"], super_gr=zones["super_gr"],
        )
        self.flow: CoreFlow = start_flow(header)
        rules = self.flow.rules
        if not isinstance(rules, DuelMastersRules):
            raise SimulationError("the engine did not load the Duel Masters rules")
        self.rules: DuelMastersRules = rules
        self.aggression = self.rng.choice(AGGRESSION)
        first = self.rng.choice(PLAYERS)
        self._feed(GameStarted(seq=2, first_player=first))

    # ------------------------------------------------------------------ feeding
    def _item(self, line: LogLine) -> LogLine:
        return line

    def _feed_item(self, item: LogLine) -> None:
        self._feed(item)

    def _feed(self, line: LogLine) -> None:
        feed_legal(self.flow, line)

    # ------------------------------------------------------------------ the table
    def _opponent(self, player: str) -> str:
        return self.flow.next_player(player)

    def _hand(self, player: str) -> list[str]:
        return sorted(self.rules.boards[player].hand_known.elements())

    # ------------------------------------------------------------------ decisions
    def _decide(self, step: NextStep) -> LogLine | None:
        """The active player requests something legal (ending the turn at last); the
        non-active player passes."""
        player = step.holder
        if player is None or player != self.flow.turn_player:
            return None
        rng = self.rng
        candidates: list[tuple[float, Request]] = []
        for line in self._charges(player):
            candidates.append((6.0, line))
        for line in self._plays(player):
            candidates.append((4.0, line))
        for line in self._crosses(player):
            candidates.append((3.0, line))
        for line in self._attacks(player):
            candidates.append((self.aggression, line))
        candidates.append((END_WEIGHT, self._probe(player, "end_turn")))
        while candidates:
            weights = [w for w, _ in candidates]
            i = rng.choices(range(len(candidates)), weights)[0]
            _, line = candidates.pop(i)
            if accepted(self.flow, line):
                return line.model_copy(update={"request": self.new_request_id()})
        return Request(seq=self.flow.next_seq, request=self.new_request_id(), player=player,
                       action="end_turn")

    def _probe(self, player: str, action: str, **kw: Any) -> Request:
        return Request(seq=self.flow.next_seq, request="probe", player=player, action=action,
                       **kw)

    def _charges(self, player: str) -> list[Request]:
        r = self.rules
        if r.mana_charged() or r.step_passed("charge"):
            return []
        hand = self._hand(player)
        if not hand:
            return []
        card = self.rng.choice(hand)
        return [self._probe(player, "charge_mana", key_cards=[f"{player}:{card}"])]

    def _plays(self, player: str) -> list[Request]:
        r = self.rules
        if r.step_passed("main"):
            return []
        out = []
        for card in self._hand(player):
            cdef = r.card(card)
            if cdef is None:
                continue
            mana = r.auto_mana(player, cdef)
            if mana is None:
                continue
            action = {"creature": "summon", "spell": "cast", "cross_gear": "generate",
                      "aura": "aura"}[cdef.type]
            targets: list[str] = []
            effect = cdef.target_effect("spell")
            if cdef.type == "aura" and not cdef.gr_summon:
                own = [c.ref for c in r.boards[player].battle]
                if not own:
                    continue
                targets = [self.rng.choice(own)]
            if effect is not None:
                legal = r.legal_targets(player, effect)
                if not legal:
                    continue
                targets = [self.rng.choice(legal)]
            out.append(self._probe(player, action, key_cards=[f"{player}:{card}"],
                                   targets=targets, choices={"mana": mana}))
        return out

    def _crosses(self, player: str) -> list[Request]:
        """Cross a gear in the battle zone to another of the player's creatures."""
        r = self.rules
        if r.step_passed("main"):
            return []
        out = []
        for gear in r.boards[player].gears:
            others = [c.ref for c in r.boards[player].battle if c.ref != gear.crossed]
            mana = r.auto_mana(player, gear.card, gear.card.cross_cost)
            if others and mana is not None:
                out.append(self._probe(player, "cross", key_cards=[gear.ref],
                                       targets=[self.rng.choice(others)],
                                       choices={"mana": mana}))
        return out

    def _attacks(self, player: str) -> list[Request]:
        r = self.rules
        flow = self.flow
        out = []
        for c in r.boards[player].battle:
            if not r.may_attack(flow, c):
                continue
            targets = r.attack_targets(flow, c)
            players = [t for t in targets if t in flow.players]
            creatures = [t for t in targets if t not in flow.players]
            if creatures and self.rng.random() < 0.3:
                target = self.rng.choice(creatures)
            else:
                target = self.rng.choice(players)
            out.append(self._probe(player, "attack", key_cards=[c.ref], targets=[target]))
        return out

    # ------------------------------------------------------------------ resolutions
    def _resolve(self, req: Req) -> Resolve:
        choices: dict[str, Any] = {}
        aid = req.action.id
        if aid == "block":
            choices = self._block_choices(req)
        elif aid in ("s_trigger", "g_strike"):
            choices = self._shield_trigger_choices(req)
        elif (hook := self.rules.ability_hook(self.flow, req)) is not None:
            cdef = self.rules.card(str(req.source).partition(":")[2])
            if cdef is not None:
                choices = self._targets(req.controller, cdef, hook)
        choices.update(self._psychic_choice(req, choices))
        line = Resolve(seq=self.flow.next_seq, request=req.id, result="resolved",
                       choices=choices or None)
        if self.rng.random() < CLAIM_RATE:  # the table writes down what the rules plan
            plan = self.rules.plan_resolution(self.flow, req, line.choices, line.seq)
            line = line.model_copy(update={
                "effects": [Effect.model_validate(e) for e in plan.effects]})
        return line

    def _psychic_choice(self, req: Req, choices: dict[str, Any]) -> dict[str, Any]:
        """The psychic creature a ``hyperspatial`` effect of the resolving spell or ability
        brings out (``choices.hyperspatial``), among those the rules allow."""
        aid = req.action.id
        hook: str | None
        if aid == "cast":
            cdef, hook = self.rules.card(str(req.data.get("card"))), "spell"
        elif aid == "s_trigger":
            cdef, hook = self.rules.card(str(req.source).partition(":")[2]), "spell"
            if not choices.get("use"):
                return {}
        else:
            cdef = self.rules.card(str(req.source).partition(":")[2])
            hook = self.rules.ability_hook(self.flow, req)
        effect = next((e for e in cdef.effects(hook) if e.kind == "hyperspatial"),
                      None) if cdef is not None and hook is not None else None
        if effect is None:
            return {}
        legal = self.rules.psychic_options(req.controller, effect)
        return {"hyperspatial": self.rng.choice(legal)} if legal else {}

    def _targets(self, controller: str, cdef: CardDef, hook: str) -> dict[str, Any]:
        effect = cdef.target_effect(hook)
        if effect is None:
            return {}
        legal = self.rules.legal_targets(controller, effect)
        return {"targets": [self.rng.choice(legal)]} if legal else {}

    def _block_choices(self, req: Req) -> dict[str, Any]:
        r = self.rules
        attack = r.attacks.get(str(req.source))
        if attack is None:
            return {}
        attacker = r.find(attack.attacker)
        if attacker is None:
            return {}
        defender = self._opponent(attack.player)
        blockers = [c for c in r.boards[defender].battle if r.may_block(c, attacker)]
        if blockers and self.rng.random() < BLOCK_RATE:
            return {"blocker": self.rng.choice(blockers).ref}
        if attack.target != defender:
            return {}
        shields = r.boards[defender].shields or []
        n = r.shields_broken(attacker, defender)
        if n == 0:
            return {}
        picked = self.rng.sample(shields, n)  # written always: the faces become known
        return {"shields": [f"{defender}:{s}" for s in picked]}

    def _shield_trigger_choices(self, req: Req) -> dict[str, Any]:
        r = self.rules
        if self.rng.random() >= TRIGGER_USE_RATE:
            return {"use": False}
        cdef = r.card(str(req.source).partition(":")[2])
        choices: dict[str, Any] = {"use": True}
        if req.action.id == "g_strike":
            foes = [c.ref for c in r.creatures() if c.owner != req.controller]
            if foes:
                choices["targets"] = [self.rng.choice(foes)]
            return choices
        if cdef is not None and not cdef.creature:
            choices.update(self._targets(req.controller, cdef, "spell"))
        return choices


def simulate_game(seed: int, max_lines: int = 4000, match_id: str | None = None,
                  edition: str = EDITION, fmt: str = FORMAT) -> list[LogLine]:
    """Play one seeded random legal Duel Masters game to its end (direct attack or library
    out); a game still going after ``max_lines`` lines stops there, unfinished. Returns the
    complete log. Same arguments, same log."""
    return _Simulator(seed, max_lines, match_id, edition, fmt).run()
