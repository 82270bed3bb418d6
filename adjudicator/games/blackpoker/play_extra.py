"""The simulator's choices for the actions 6.1 extra adds (see :mod:`.simulate`).

At set-up each player places up to two trumps (cards taken out of the pack before the
deck is dealt, so the deck excludes them), and during play it opens, closes and destroys
trumps and requests what their abilities grant. The simulator plays the trump actions
whose choices it can make without cards the engine has not seen: the deck-reading ones
(援軍, 防壁追加, the K summons that search the deck) only while the deck's order is known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.game import ActionDef
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    card_of,
    number,
    parse_card,
)
from coreflow_judge.adjudicator.games.blackpoker.play import CARDS, Feed, Simulator
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules, load_edition
from coreflow_judge.adjudicator.games.blackpoker.steps_extra import strategist_may_negate
from coreflow_judge.events.models import Cost, GameStarted, MatchStarted, Request
from coreflow_judge.events.models import Effect as LogEffect

EXTRA_MAIN: dict[str, float] = {
    "open": 3, "slash": 2, "drain": 0.6, "intimidate": 0.6, "resurrection": 0.8,
    "reinforcement": 0.8, "pursuit": 0.6, "phantom": 0.6, "bulwark_addition": 0.8,
    "rest": 0.6, "civil_war": 0.6, "reset": 1, "negotiate": 0.5, "encourage": 0.5,
    "switch": 0.4, "salvation": 1, "summon_reanimator": 1.5, "summon_chariot": 3,
    "summon_strategist": 1.5, "summon_knight": 1.5, "summon_dark_lord": 0.8,
    "summon_giant": 0.8, "reanimate": 0.5, "destroy_bulwark": 0.5, "sweep": 0.8,
    "foresight": 3, "repair": 0.8,
    "main_open": 3,  # 9.0's オープン at main timing
    "phantom_reverse": 0.6,  # 9.0's: a bulwark of the ファントム owner becomes a soldier
    # 9.0's trump characters' new actions (those 6.1 has keep their weights above)
    "summon_wall_breaker": 3, "reincarnation_summon": 0.6, "pulverize": 0.8,
}
EXTRA_QUICK: dict[str, float] = {
    "close": 0.6, "trump_destroy": 0.6, "instant_kill": 0.5, "negotiate": 0.6,
    "encourage": 0.6, "offset": 1.5, "switch": 0.3, "foresight": 2, "armistice": 0.8,
    "last_ditch": 0.3, "sweep": 0.5, "summon_reanimator": 0.5, "summon_knight": 0.5,
    # 9.0's: オープン at quick timing, the quick summons and quick versions of its trumps
    "quick_open": 1, "quick_intimidate": 0.5, "quick_set_bulwark": 0.5,
    "quick_soldier_summon_spade": 0.5, "quick_soldier_summon_heart": 0.5,
    "quick_soldier_summon_diamond": 0.5, "quick_soldier_summon_club": 0.5,
    "allure": 0.6, "lethargy": 0.8, "reset": 0.3,
    "quick_summon_reanimator": 0.5, "quick_summon_wall_breaker": 0.5,
    "quick_summon_strategist": 0.5, "counter_summon_strategist": 0.8,
    "quick_summon_knight": 0.5,
}
DECK_BOUND = frozenset({"reinforcement", "bulwark_addition", "drain", "salvation",
                        "summon_dark_lord", "summon_giant", "foresight"})
"""Actions that turn up deck cards or put cards into the deck: played only while the
engine knows the deck's order."""


class ExtraPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for the trumps (6.1 extra, the
    9.0 extra frame)."""

    def _setup(self, edition: str, fmt: str, match_id: str) -> tuple[MatchStarted, GameStarted]:
        header, start = super()._setup(edition, fmt, match_id)
        rules = BlackPokerRules(edition, fmt, self.frame)
        if not rules.trumps_in_play or header.decks is None:
            return header, start
        # Each player sets aside 0-2 trumps from the cards its deck does not use; never one
        # whose ability the judge does not judge yet (it would end the judging there).
        trumps: dict[str, list[str]] = {}
        with_ability = frozenset(load_edition(edition).get("trumps") or {})
        for p, deck in header.decks.items():
            spare = [c for c in CARDS if c not in deck and not c.startswith("JK")
                     and rules.not_judged(c) is None]
            favoured = [c for c in spare if c in with_ability]
            pool = favoured or spare
            trumps[p] = self.rng.sample(pool, min(len(pool), self.rng.choice((1, 2, 2))))
        return header, start.model_copy(update={"trumps": trumps})

    # ------------------------------------------------------------------ what to try
    def main_weights(self) -> dict[str, float]:
        weights = super().main_weights()
        weights.update(self._extra_sensible(EXTRA_MAIN))
        return weights

    def quick_weights(self) -> dict[str, float]:
        weights = super().quick_weights()
        # Only what has quick timing in this edition (リセット: 6.1 main, 9.0 quick).
        weights.update({a: w for a, w in self._extra_sensible(EXTRA_QUICK).items()
                        if a not in self.rules.actions
                        or self.rules.actions[a].timing == "quick"})
        return weights

    def _extra_sensible(self, weights: dict[str, float]) -> dict[str, float]:
        player = self.flow.chance or ""
        if player not in self.rules.boards or not self.rules.trumps_in_play:
            return {}
        # A trump action is tried only where its trump is face up (else the engine refuses
        # it): those that are, the player likes a lot.
        out = {a: w * 4 for a, w in weights.items()}
        if "open" in weights:
            out["open"] = weights["open"] * 2
        if self.remaining[player] is not None:
            for aid in DECK_BOUND:
                out.pop(aid, None)
        if any(rem is not None for rem in self.remaining.values()):
            out.pop("salvation", None)  # it puts either player's soldiers on their deck
        return out

    def _candidates(self, player: str, action: ActionDef) -> Iterator[Request]:
        if not action.data.get("originated"):
            yield from super()._candidates(player, action)
            return
        # A soldier-originated action: the driven soldier (9.0 ファントムリバース: the
        # bulwark) is its cost.
        kind = self.rules.originator_kind(action)
        units = [ch for ch in self._board(player).field
                 if self.rules.data["characters"][ch.kind]["kind"] == kind
                 and ch.state == "charge"]
        self.rng.shuffle(units)
        for ch in units:
            for target in self._target_options(player, action):
                yield Request(seq=self.flow.next_seq, request="candidate", player=player,
                              action=action.id, costs=[Cost(kind="C", ref=ch.ref)],
                              targets=target)

    def targets_close(self, player: str) -> list[list[str]]:
        opp = self._opponent(player)
        return [[f"{opp}:{t.card}"] for t in self._board(opp).trumps if t.face_up]

    targets_trump_destroy = targets_close

    def targets_negotiate(self, player: str) -> list[list[str]]:
        opp = self._opponent(player)
        return [[ch.ref] for ch in self._board(opp).field if ch.state == "charge"]

    def targets_slash(self, player: str) -> list[list[str]]:
        opp = self._opponent(player)
        return [[ch.ref] for ch in self._board(opp).field
                if self.rules.data["characters"][ch.kind]["kind"] == "soldier"]

    def targets_instant_kill(self, player: str) -> list[list[str]]:
        own = [ch for ch in self._board(player).field
               if self.rules.data["characters"][ch.kind]["kind"] == "soldier"]
        return self.targets_slash(player) if own else []  # it needs a soldier to send

    def targets_allure(self, player: str) -> list[list[str]]:
        """9.0 誘惑: an opponent's soldier back to the hand, one whose cards the table
        knows (a soldier of unseen cards would put a card into the hand that nobody, this
        simulator included, can follow)."""
        opp = self._board(self._opponent(player))
        return [[ch.ref] for ch in opp.field
                if self.rules.data["characters"][ch.kind]["kind"] == "soldier"
                and UNKNOWN not in ch.cards]

    def targets_lethargy(self, player: str) -> list[list[str]]:
        """9.0 虚脱: an opponent's character in drive state."""
        opp = self._opponent(player)
        return [[ch.ref] for ch in self._board(opp).field if ch.state == "drive"]

    def targets_encourage(self, player: str) -> list[list[str]]:
        return [[ch.ref] for ch in self._board(player).field
                if self.rules.data["characters"][ch.kind]["kind"] == "soldier"]

    def targets_offset(self, player: str) -> list[list[str]]:
        return [[r.id] for r in reversed(self.flow.stage)
                if r.controller != player and r.key_cards]

    # ------------------------------------------------------------------ choices
    def choose_open(self, req: Req, choices: dict[str, Any], item: Feed
                    ) -> list[LogEffect] | None:
        down = [t for t in self._board(req.controller).trumps if not t.face_up
                and t.closed_turn != self.flow.turn]  # 9.0: a trump closed this turn stays
        if down:
            choices["trump"] = f"{req.controller}:{self.rng.choice(down).card}"
        return None

    choose_quick_open = choose_open  # 9.0: オープン at quick or main timing
    choose_main_open = choose_open

    def choose_drain(self, req: Req, choices: dict[str, Any], item: Feed
                     ) -> list[LogEffect] | None:
        own = self._board(req.controller).field
        if own:
            choices["character"] = self.rng.choice(own).ref
        return None

    def choose_resurrection(self, req: Req, choices: dict[str, Any], item: Feed
                            ) -> list[LogEffect] | None:
        pattern = req.action.data["effect"][0]["card"]
        able = [c for c in self._board(req.controller).graveyard
                if self.rules.card_fits(c, pattern)]
        if able:
            choices["card"] = f"{req.controller}:{self.rng.choice(able)}"
        return None

    def choose_instant_kill(self, req: Req, choices: dict[str, Any], item: Feed
                            ) -> list[LogEffect] | None:
        own = [ch.ref for ch in self._board(req.controller).field
               if self.rules.data["characters"][ch.kind]["kind"] == "soldier"
               and ch.ref not in req.targets]
        if own:
            choices["soldiers"] = [self.rng.choice(own)]
        return None

    def choose_reinforcement(self, req: Req, choices: dict[str, Any], item: Feed
                             ) -> list[LogEffect] | None:
        deck = self._deck(req.controller)[:2]
        if deck:
            choices["soldier"] = f"{req.controller}:{self.rng.choice(deck)}"
        return None

    def choose_civil_war(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        opp = req.targets[0] if req.targets else self._opponent(req.controller)
        theirs = self._board(opp).hand_count or 0
        mine = self._board(req.controller).hand_count or 0
        if theirs >= mine and theirs:
            hand = self._hand(opp)
            self.rng.shuffle(hand)
            chosen = hand[:2]
            choices["discard"] = [f"{opp}:{c}" for c in chosen]
            item.used = {opp: chosen}
        return None

    def choose_switch(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        hand = self._hand(req.controller)
        if hand:
            card = self.rng.choice(hand)
            choices["card"] = f"{req.controller}:{card}"
            item.used = {req.controller: [card]}
        return None

    def choose_illusion(self, req: Req, choices: dict[str, Any], item: Feed
                        ) -> list[LogEffect] | None:
        own = [ch.ref for ch in self._board(req.controller).field
               if self.rules.data["characters"][ch.kind]["kind"] == "soldier"]
        choices["soldiers"] = [r for r in own if self.rng.random() < 0.3]
        return None

    def choose_exhaustion(self, req: Req, choices: dict[str, Any], item: Feed
                          ) -> list[LogEffect] | None:
        choices["turn_down"] = self.rng.random() < 0.7
        return None

    def choose_hand_refill(self, req: Req, choices: dict[str, Any], item: Feed
                           ) -> list[LogEffect] | None:
        item.draws_to = req.controller
        return None

    choose_revolution_draw = choose_hand_refill

    def choose_summon_reanimator(self, req: Req, choices: dict[str, Any], item: Feed
                                 ) -> list[LogEffect] | None:
        cards = [f"{p}:{c}" for p in self.rules.boards for c in self._board(p).graveyard]
        if cards:
            choices["card"] = self.rng.choice(cards)
        return None

    def choose_summon_chariot(self, req: Req, choices: dict[str, Any], item: Feed
                              ) -> list[LogEffect] | None:
        walls = [ch.ref for ch in self._characters() if ch.kind == "bulwark"]
        if walls:
            choices["bulwark"] = self.rng.choice(walls)
        return None

    def choose_summon_strategist(self, req: Req, choices: dict[str, Any], item: Feed
                                 ) -> list[LogEffect] | None:
        x = number(card_of(req.key_cards[0])) if req.key_cards else None
        able = [r.id for r in self.flow.stage
                if r is not req and strategist_may_negate(x, r.key_cards)]
        if able:
            choices["request"] = self.rng.choice(able)
        return None

    def choose_summon_knight(self, req: Req, choices: dict[str, Any], item: Feed
                             ) -> list[LogEffect] | None:
        opp = self._opponent(req.controller)
        own = [ch.ref for ch in self._board(opp).field
               if self.rules.data["characters"][ch.kind]["kind"] == "soldier"]
        if own:
            choices["soldier"] = self.rng.choice(own)
        return None

    def choose_sweep(self, req: Req, choices: dict[str, Any], item: Feed
                     ) -> list[LogEffect] | None:
        opp = req.targets[0] if req.targets else self._opponent(req.controller)
        own = [ch.ref for ch in self._board(opp).field]
        if own:
            choices["character"] = self.rng.choice(own)
        return None

    def choose_foresight(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        ctl = req.controller
        drawn = self._deck(ctl)[:2]
        hand = self._hand(ctl) + drawn
        if hand:
            card = self.rng.choice(hand)
            choices["card"] = f"{ctl}:{card}"
            choices["to"] = self.rng.choice(("top", "bottom"))
        return None

    def choose_summon_dark_lord(self, req: Req, choices: dict[str, Any], item: Feed
                                ) -> list[LogEffect] | None:
        """魔王召喚 / 巨人召喚 shuffle the deck (when the trump is up): from then on the
        simulator deals it as it deals a searched deck."""
        plan = self.rules.plan_resolution(self.flow, req, {})
        if not any(e.get("op") == "shuffle" for e in plan.effects):
            return None
        ctl = req.controller
        step = req.action.data["effect"][0]
        partner = step["partner"]
        cards = list(self._deck_cards(ctl))
        keys = [k.partition(":")[2] for k in req.key_cards]
        board = self._board(ctl)
        entered = any(e.get("op") == "enter" for e in plan.effects)
        if entered and partner not in keys:
            if partner in self._hand(ctl):
                item.used = {ctl: [partner]}
            elif partner not in board.graveyard and not any(
                    t.card == partner for t in board.trumps) and partner in cards:
                cards.remove(partner)
                item.dealt = {ctl: 1}
        if self.remaining[ctl] is None:
            self.remaining[ctl] = Counter(cards)
        return None

    choose_summon_giant = choose_summon_dark_lord

    def choose_attack(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        super().choose_attack(req, choices, item)
        for ch in self._board(req.controller).field:  # 巨人 attacks whenever it can
            if self.rules.data["characters"][ch.kind].get("must_attack") and \
                    self.rules.may_attack(ch, self.flow.turn) and \
                    ch.ref not in choices["attackers"]:
                choices["attackers"].append(ch.ref)
        return None

    def choose_last_ditch(self, req: Req, choices: dict[str, Any], item: Feed
                          ) -> list[LogEffect] | None:
        item.used = {req.controller: self._hand(req.controller)}  # the whole hand goes
        return None

    def choose_repair(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        step = req.action.data["effect"][0]
        target = self.rules.find(req.targets[0]) if req.targets else None
        if step.get("same_suit"):  # 9.0: a card of the target's suit
            suits = self.rules.character_suits(target) if target is not None else set()
            able = [c for c in self._board(req.controller).graveyard
                    if (card := parse_card(c)) is not None and card.suit in suits]
        else:
            able = [c for c in self._board(req.controller).graveyard
                    if self.rules.card_fits(c, step["card"])]
        if able:  # one must be chosen while there is one (docs/decisions.md E13)
            choices["card"] = f"{req.controller}:{self.rng.choice(able)}"
        return None

    def choose_reset(self, req: Req, choices: dict[str, Any], item: Feed
                     ) -> list[LogEffect] | None:
        """9.0 リセット: the opponent discards two hand cards, or not, to bury ♣8."""
        ransom = next((s for s in req.action.data["effect"] if s["step"] == "reset_ransom"),
                      None)
        if ransom is None:
            return None
        opp = self._opponent(req.controller)
        hand = self._hand(opp)
        count = int(ransom["count"])
        if len(hand) >= count and self.rng.random() < 0.5:
            self.rng.shuffle(hand)
            chosen = hand[:count]
            choices["discard"] = [f"{opp}:{c}" for c in chosen]
            item.used = {opp: chosen}
        else:
            choices["discard"] = []
        return None

    def choose_salvation(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        plan = self.rules.plan_resolution(self.flow, req, {})
        order: dict[str, list[str]] = {}
        for e in plan.effects:
            if e.get("op") == "move" and e.get("to") == "deck":
                owner = str(e["card"]).partition(":")[0]
                order.setdefault(owner, []).append(str(e["card"]))
        if order:
            choices["order"] = order
        return None
