"""The BlackPoker simulator's player: see :mod:`.simulate` for how it plays."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.game import ActionDef
from coreflow_judge.adjudicator.games.blackpoker.board import Character, PlayerBoard
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN
from coreflow_judge.adjudicator.games.blackpoker.lines import (
    BlackPokerGameStarted,
    BlackPokerMatchStarted,
)
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.judge import start_flow
from coreflow_judge.adjudicator.next_step import NextStep, accepted
from coreflow_judge.adjudicator.plan import Effect
from coreflow_judge.adjudicator.simulation import Simulation, SimulationError, feed_legal
from coreflow_judge.events.models import Effect as LogEffect
from coreflow_judge.events.models import (
    GameStarted,
    LogLine,
    MatchStarted,
    Request,
    Resolve,
)

PLAYERS = ("alice", "bob")
CARDS = tuple(f"{s}{r}" for s in "SHDC" for r in range(1, 14)) + ("JK1", "JK2")
DECK_SIZE = (40, 54)
"""A lite deck: 40 to 54 of the 54 cards of one pack (bp regulation lite40 and up)."""

MAIN_WEIGHTS: dict[str, float] = {
    "attack": 6, "set_bulwark": 4, "summon_soldier": 3, "summon_hero": 2, "summon_ace": 2,
    "mount": 1.5, "destroy_bulwark": 1, "throwing": 1.5, "search": 0.5, "up": 0.4,
    "down": 0.6, "twist": 0.4, "counter": 0.2, "end": 2.5, "pass": 0.3,
}
"""How much the turn player likes each action when main timing is open (pass included)."""
QUICK_WEIGHTS: dict[str, float] = {
    "down": 1.2, "up": 1, "twist": 1, "counter": 1.5, "search": 0.3,
}
"""The same for a quick response: with the stage non-empty, or on the opponent's turn."""
QUICK_RATE = 0.3
"""How often a player holding the chance outside main timing tries to respond at all."""
CLAIM_RATE = 0.5
"""How often a resolution records the primitive effects the table saw (``effects``)."""
MAX_CANDIDATES = 60
"""Candidates tried per action before giving it up for this decision."""


@dataclass(slots=True)
class Feed:
    """What the simulator knows about a line it is about to feed."""

    line: LogLine
    used: dict[str, list[str]] = field(default_factory=dict)
    """Cards leaving a player's hand by this line (key cards, $D, choices)."""
    dealt: dict[str, int] = field(default_factory=dict)
    """Cards the simulator already took from a shuffled deck for this line."""
    draws_to: str | None = None
    """The player whose unseen deck cards this line puts into the hand."""


class Simulator(Simulation[Feed]):
    """One game: the engine, a seeded random player policy and the hidden cards; what
    comes next is the driver's (:class:`~coreflow_judge.adjudicator.simulation.Simulation`).

    This class plays the lite actions; the mixins of :mod:`.play_standard`,
    :mod:`.play_master` and :mod:`.play_extra` add the other formats' actions (a
    ``choose_<action>`` method for the choices at resolution, a ``targets_<action>`` method
    for the targets to try).
    """

    def __init__(self, edition: str, seed: int, fmt: str, max_lines: int,
                 match_id: str | None, frame: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.max_lines = max_lines
        self.frame = frame
        """The regulation's frame (9.0), read by :meth:`_setup`."""
        header, start = self._setup(edition, fmt, match_id or f"sim-{edition}-{seed}")
        self.flow: CoreFlow = start_flow(header)
        rules = self.flow.rules
        if not isinstance(rules, BlackPokerRules):
            raise SimulationError(f"the simulator plays BlackPoker, not {header.game}")
        self.rules: BlackPokerRules = rules
        self.remaining: dict[str, Counter[str] | None] = {p: None for p in PLAYERS}
        """A shuffled deck's cards (order unknown to the engine); None while known."""
        self.hidden: dict[str, list[str]] = {p: [] for p in PLAYERS}
        """Faces of the hand cards the engine counts as unseen."""
        self.attackers: dict[str, list[str]] = {}
        self._feed(Feed(start))

    # ------------------------------------------------------------------ set-up
    def _setup(self, edition: str, fmt: str, match_id: str) -> tuple[MatchStarted, GameStarted]:
        """Decks, the frame's pack (9.0 frames), presets (9.0), opening hands, reveals and
        the first player's draw.

        The simulator shuffles the decks (a frame's fixed deck, else 40 to 54 cards); what
        the start does with them is the rules' plan (``BlackPokerRules.plan_game_start``).
        """
        rng = self.rng
        frame = self.frame
        rules = BlackPokerRules(edition, fmt, frame)
        fixed = (rules.frame_data.get("deck") or {}).get("fixed")
        decks = {p: rng.sample(fixed, len(fixed)) if fixed else
                 rng.sample(CARDS, rng.randint(*DECK_SIZE)) for p in PLAYERS}
        header = BlackPokerMatchStarted(
            seq=1, match_id=match_id, game="blackpoker", rules=f"blackpoker/{edition}",
            format=fmt, frame=frame, players=list(PLAYERS), decks=decks, log_format=1,
        )
        plan = rules.plan_game_start(PLAYERS, decks)
        start = BlackPokerGameStarted(
            seq=2, first_player=plan.first_player, reveals=plan.reveals, hands=plan.hands,
            presets=plan.presets, packs=plan.packs, scenario=plan.scenario, rares=plan.rares)
        return header, start

    # ------------------------------------------------------------------ feeding
    def _item(self, line: LogLine) -> Feed:
        return Feed(line)

    def _feed_item(self, item: Feed) -> None:
        self._feed(item)

    def _feed(self, item: Feed, legal: bool = True) -> None:
        """Feed one line; any error finding is a bug (unless the line is a mistake the
        table makes on purpose, ``legal`` False: :mod:`.mistakes`). Then follow the hidden
        cards."""
        flow = self.flow
        before = {p: len(self._deck(p)) for p in PLAYERS} if flow.started else {}
        if legal:
            feed_legal(flow, item.line)
        else:
            flow.feed(item.line)
        for p in PLAYERS:
            for card in item.used.get(p, []):
                if card in self.hidden[p]:
                    self.hidden[p].remove(card)
            if self.remaining[p] is None or p not in before:
                continue
            gone = before[p] - len(self._deck(p)) - item.dealt.get(p, 0)
            cards = [self._deal(p) for _ in range(gone)]
            if item.draws_to == p:
                self.hidden[p].extend(cards)
            rem = self.remaining[p]
            board = self._board(p)
            if rem is None or sum(rem.values()) != len(self._deck(p)) or (
                    len(self.hidden[p]) != board.hand_unknown):
                raise SimulationError(f"lost track of {p}'s hidden cards at line "
                                      f"{item.line.seq}")

    # ------------------------------------------------------------------ the table
    def _board(self, player: str) -> PlayerBoard:
        return self.rules.boards[player]

    def _deck(self, player: str) -> list[str]:
        deck = self._board(player).deck
        if deck is None:
            raise SimulationError(f"the engine lost count of {player}'s deck")
        return deck

    def _hand(self, player: str) -> list[str]:
        """The faces of the player's hand (the simulator knows its unseen cards)."""
        return sorted(self._board(player).hand_known.elements()) + self.hidden[player]

    def _deck_cards(self, player: str) -> list[str]:
        """The cards of the deck, in order while known, as a multiset once shuffled."""
        rem = self.remaining[player]
        return self._deck(player) if rem is None else sorted(rem.elements())

    def _deal(self, player: str) -> str:
        """A card leaves a shuffled deck: which one is decided now, at random."""
        rem = self.remaining[player]
        assert rem is not None
        card = self.rng.choice(sorted(rem.elements()))
        rem[card] -= 1
        if not rem[card]:
            del rem[card]
        return card

    def _characters(self) -> list[Character]:
        return [ch for p in PLAYERS for ch in self._board(p).field]

    def _opponent(self, player: str) -> str:
        return self.flow.next_player(player)

    # ------------------------------------------------------------------ decisions
    def _decide(self, step: NextStep) -> Feed | None:
        """The chance holder requests something legal, or passes (None)."""
        flow = self.flow
        player = step.holder
        assert player is not None
        if flow.main_timing(player):
            weights = self.main_weights()
        elif self.rng.random() < QUICK_RATE:
            weights = self.quick_weights()
        else:
            weights = {}
        weights = {a: w for a, w in weights.items() if a == "pass" or a in self.rules.actions}
        weights = self.main_and_quick_filter(weights)
        while weights:
            names = list(weights)
            choice = self.rng.choices(names, [weights[n] for n in names])[0]
            del weights[choice]
            if choice == "pass":
                break
            found = self._try_request(player, self.rules.actions[choice])
            if found is not None:
                return found
        return None

    def main_weights(self) -> dict[str, float]:
        """How much the turn player likes each action at main timing (a mixin adds its
        format's actions; an action outside the match's format is never tried)."""
        return dict(MAIN_WEIGHTS)

    def quick_weights(self) -> dict[str, float]:
        """The same for a quick response."""
        return dict(QUICK_WEIGHTS)

    def main_and_quick_filter(self, weights: dict[str, float]) -> dict[str, float]:
        """The last say on the actions tried now (a mixin drops what would not be sound)."""
        return weights

    def _try_request(self, player: str, action: ActionDef) -> Feed | None:
        flow = self.flow
        probe = Request(seq=flow.next_seq, request="probe", player=player, action=action.id)
        if flow.check_request_timing(probe, action, report=False):
            return None
        if action.id == "attack" and not any(
                self.rules.may_attack(ch, flow.turn) for ch in self._board(player).field):
            return None  # legal (H5), but pointless
        if action.id == "search" and not self._deck(player):
            return None
        for tries, line in enumerate(self._candidates(player, action)):
            if tries >= MAX_CANDIDATES:
                break
            if not accepted(flow, line, action):
                continue
            line = line.model_copy(update={"request": self.new_request_id()})
            used = [_face(k) for k in line.key_cards]
            used += [_face(c.ref) for c in line.costs if c.kind == "D"]
            return Feed(line, used={player: used})
        return None

    def _candidates(self, player: str, action: ActionDef) -> Iterator[Request]:
        """Requests of ``action`` the player could make: key cards from the hand, costs
        from the table, targets by preference. The engine decides which are legal."""
        rng = self.rng
        data = action.data
        hand = self._hand(player)
        rng.shuffle(hand)
        key = data.get("key") or {}
        pool = self.key_pool(player, key) if key.get("from") else hand
        patterns = key.get("cards") or [{}] * len(key.get("rank_set", ()))
        # Only the key sets that meet the condition: the engine checks them again.
        key_sets: list[list[str]] = [
            list(c) for c in combinations(pool, len(patterns))
            if self.rules._keys_match(list(c), patterns)
            and self.rules._keys_related(list(c), key)]
        rng.shuffle(key_sets)
        targets = self._target_options(player, action)
        for keys in key_sets:
            for target in targets:
                costs = self._costs(player, self.rules.cost_of(action, player)[0], keys)
                if costs is None:
                    return
                choices: dict[str, Any] | None = None
                if "card" in (data.get("choices") or []):
                    # Neither a key card nor a card discarded for $D (one card, one use).
                    paid = {c["ref"].partition(":")[2] for c in costs if c["kind"] == "D"}
                    spare = [c for c in hand if c not in keys and c not in paid]
                    if not spare:
                        return
                    choices = {"card": f"{player}:{rng.choice(spare)}"}
                yield Request(
                    seq=self.flow.next_seq, request="candidate", player=player,
                    action=action.id, key_cards=[f"{player}:{k}" for k in keys],
                    costs=costs, targets=target, choices=choices,
                )

    def key_pool(self, player: str, key: Mapping[str, Any]) -> list[str]:
        """The cards a key card taken from elsewhere than the hand (``key.from``) may be;
        the frames' mixin knows the rare card zone."""
        raise SimulationError(f"no key cards from {key.get('from')!r}")

    def _target_options(self, player: str, action: ActionDef) -> list[list[str]]:
        """Targets to try, the ones a player would pick first."""
        spec = action.data.get("target")
        if spec is None:
            return [[]]
        special = getattr(self, "targets_" + action.id, None)
        if special is not None:
            options: list[list[str]] = special(player)
            return options
        kind = spec["kind"]
        opp = self._opponent(player)
        if kind == "player":
            return [[opp]]
        if kind == "request":
            reqs = [r for r in reversed(self.flow.stage) if r.controller != player]
            return [[r.id] for r in reqs]
        chars = self._characters()
        self.rng.shuffle(chars)
        if action.id == "up":
            chars = [ch for ch in chars if ch.owner == player]
        elif action.id in ("down", "destroy_bulwark"):
            chars = [ch for ch in chars if ch.owner != player]
        elif action.id == "twist":
            # Drive the opponent's charge-state characters, wake one's own.
            chars = [ch for ch in chars if (ch.owner == player) != (ch.state == "charge")]
        return [[ch.ref] for ch in chars]

    def _costs(self, player: str, cost: str, keys: list[str]) -> list[Any] | None:
        """Pay ``$cost``: charge-state bulwarks, the top card, a spare hand card."""
        out: list[dict[str, str]] = []
        board = self._board(player)
        bulwarks = [ch for ch in board.field if ch.kind == "bulwark" and ch.state == "charge"]
        self.rng.shuffle(bulwarks)
        spare = [c for c in self._hand(player) if c not in keys]
        self.rng.shuffle(spare)
        deck = self._deck(player)
        sacrificed: set[str] = set()
        for kind in cost:
            if kind == "B":
                if not bulwarks:
                    return None
                out.append({"kind": "B", "ref": bulwarks.pop().ref})
            elif kind == "L":
                if not deck:
                    return None
                out.append({"kind": "L", "ref": f"{player}:{deck[0]}"})
            elif kind == "D":
                if not spare:
                    return None
                out.append({"kind": "D", "ref": f"{player}:{spare.pop()}"})
            elif kind == "S":
                own = [ch for ch in board.field if ch.ref not in sacrificed]
                if not own:
                    return None
                ch = self.rng.choice(own)
                sacrificed.add(ch.ref)
                out.append({"kind": "S", "ref": ch.ref})
            else:
                return None  # $C: the action's mixin pays it
        return out

    # ------------------------------------------------------------------ resolutions
    def _resolve(self, req: Req) -> Feed:
        """Resolve ``req`` with the choices its rules ask for."""
        flow = self.flow
        rng = self.rng
        choices: dict[str, Any] = {}
        effects: list[LogEffect] | None = None
        item = Feed(Resolve(seq=flow.next_seq, request=req.id, result="resolved"))
        aid = req.action.id
        ctl = req.controller
        if self.rules.fizzles(flow, req):
            item.line = Resolve(seq=flow.next_seq, request=req.id, result="fizzled")
            return item
        if "card" in req.choices:  # a hand card chosen when requesting leaves the hand now
            item.used = {ctl: [_face(str(req.choices["card"]))]}
        chooser = getattr(self, "choose_" + aid, None)
        if chooser is not None:
            effects = chooser(req, choices, item)
        if effects is None and rng.random() < CLAIM_RATE:
            effects = self._seen(req, choices)
        item.line = Resolve(seq=flow.next_seq, request=req.id, result="resolved",
                            choices=choices or None, effects=effects)
        return item

    # Choices at resolution, one method per action (``choose_<action id>``): each fills
    # ``choices`` and may set what the line moves (``item``); it returns the effects the
    # table names itself, or None (the plan's effects are then claimed at CLAIM_RATE).
    def choose_draw(self, req: Req, choices: dict[str, Any], item: Feed
                    ) -> list[LogEffect] | None:
        for step in req.action.data.get("effect", []):
            if step["step"] == "draw" and step["count"] == "choice":
                choices["count"] = step["max"] if self.rng.random() < 0.7 else step["min"]
        item.draws_to = req.controller
        return None

    def choose_attack(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        able = [ch.ref for ch in self._board(req.controller).field
                if self.rules.may_attack(ch, self.flow.turn)]
        chosen = [a for a in able if self.rng.random() < 0.8] or able[:1]
        choices["attackers"] = chosen
        self.attackers[req.id] = chosen
        return None

    def choose_block(self, req: Req, choices: dict[str, Any], item: Feed
                     ) -> list[LogEffect] | None:
        choices["blockers"] = self._blockers(req)
        return None

    def choose_twist(self, req: Req, choices: dict[str, Any], item: Feed
                     ) -> list[LogEffect] | None:
        target = self.rules.find(req.targets[0]) if req.targets else None
        if target is not None and target.owner == req.controller:
            choices["state"] = "charge"
        else:
            choices["state"] = "drive" if self.rng.random() < 0.8 else "charge"
        return None

    def choose_end(self, req: Req, choices: dict[str, Any], item: Feed
                   ) -> list[LogEffect] | None:
        ctl = req.controller
        over = self.rules.over_hand_limit(ctl)
        if over:
            hand = self._hand(ctl)
            self.rng.shuffle(hand)
            choices["discard"] = [f"{ctl}:{c}" for c in hand[:over]]
            item.used = {ctl: hand[:over]}
        return None

    def choose_search(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        ctl = req.controller
        cards = self._deck_cards(ctl)
        if cards:
            card = self.rng.choice(cards)
            choices["card"] = f"{ctl}:{card}"
            if self.remaining[ctl] is None:
                self.remaining[ctl] = Counter(cards)
            rem = self.remaining[ctl]
            assert rem is not None
            rem[card] -= 1
            if not rem[card]:
                del rem[card]
            item.dealt = {ctl: 1}
        return None

    def choose_next_generation(self, req: Req, choices: dict[str, Any], item: Feed
                               ) -> list[LogEffect] | None:
        if self.remaining[req.controller] is None:
            return None
        effects = self._milled(req, choices)
        item.dealt = {req.controller: len(effects)}
        return effects

    def _seen(self, req: Req, choices: dict[str, Any]) -> list[LogEffect] | None:
        """What the table sees happen: the rules' plan for the resolution with these
        choices. None where the plan has a face the engine has not seen (a card of a
        shuffled deck): the log then stays as the engine knows it, with no claim."""
        plan = self.rules.plan_resolution(self.flow, req, choices)
        if not plan.effects or any(_unseen(e) for e in plan.effects):
            return None
        return [LogEffect.model_validate(e) for e in plan.effects]

    def _blockers(self, block: Req) -> dict[str, list[str]]:
        """The defender's choice: some attackers blocked by a bulwark alone or soldiers."""
        rng = self.rng
        attacker = block.controller
        defender = self._opponent(attacker)
        attack = self.flow.requests.get(block.source or "")
        still = attack.data.get("attackers", []) if attack is not None else []
        attackers = [a for a in self.attackers.get(block.source or "", [])
                     if self.rules.find(a) is not None and a in still]
        free = [ch for ch in self._board(defender).field if self.rules.may_block(ch)]
        rng.shuffle(free)
        out: dict[str, list[str]] = {}
        for a in attackers:
            if not free or rng.random() < 0.35:
                continue
            walls = [ch for ch in free if ch.kind == "bulwark"]
            soldiers = [ch for ch in free if ch.kind != "bulwark"]
            if walls and (not soldiers or rng.random() < 0.5):
                chosen = [walls[0]]
            else:
                chosen = soldiers[:rng.choice((1, 1, 2))]
            for ch in chosen:
                free.remove(ch)
            out[a] = [ch.ref for ch in chosen]
        return out

    def _milled(self, req: Req, choices: dict[str, Any]) -> list[LogEffect]:
        """世代交代 on a shuffled deck: the engine cannot know the order, the player can.

        The simulator deals the shuffled deck (the same as shuffling it) and asks the rules'
        plan on that order; the table names every card the plan moves. The deal is then
        taken back and only the cards the plan moved are dealt again, the same cards by the
        same draws: the random stream goes on as if the cards had been turned one by one,
        and the rest of the deck stays shuffled.
        """
        player = req.controller
        rem = self.remaining[player]
        assert rem is not None
        state = self.rng.getstate()
        order = [self._deal(player) for _ in range(sum(rem.values()))]
        plan = self.rules.plan_resolution(self.flow, req, choices, decks={player: order})
        moved = [e for e in plan.effects if e.get("op") == "move" and e.get("from") == "deck"]
        self.rng.setstate(state)
        rem.update(order)
        if [self._deal(player) for _ in moved] != order[:len(moved)]:
            raise SimulationError("the shuffled deck was dealt twice differently")
        return [LogEffect.model_validate(e) for e in moved]


def _face(ref: str) -> str:
    return ref.partition(":")[2] or ref


def _unseen(effect: Effect) -> bool:
    """Does the effect name a card whose face the engine does not know (``owner:?``)?"""
    cards = [effect.get("card"), *(effect.get("cards") or [])]
    return any(isinstance(c, str) and (c == UNKNOWN or c.endswith(":" + UNKNOWN))
               for c in cards)


