"""The simulator's choices for the actions standard and pro add (see :mod:`.simulate`)."""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN, card_of
from coreflow_judge.adjudicator.games.blackpoker.play import Feed, Simulator
from coreflow_judge.events.models import Effect as LogEffect

STANDARD_MAIN: dict[str, float] = {"summon_magician": 1.5, "death_lance": 1, "add_bulwark": 1.2,
                 "reanimate": 0.6, "handes": 1, "reverse": 0.5}
STANDARD_QUICK: dict[str, float] = {"unsummon": 0.4, "quick_summon": 0.8, "kill": 1, "reunion": 0.5,
                  "truce": 4, "change_target": 3, "reverse": 0.5}


DECK_READERS = frozenset({"add_bulwark", "recruit", "blackjack"})


class StandardPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for standard and pro."""

    def main_weights(self) -> dict[str, float]:
        weights = super().main_weights()
        weights.update(self._sensible(STANDARD_MAIN))
        return weights

    def quick_weights(self) -> dict[str, float]:
        weights = super().quick_weights()
        weights.update(self._sensible(STANDARD_QUICK))
        return weights

    def _sensible(self, weights: dict[str, float]) -> dict[str, float]:
        """The actions worth trying now (a request with nothing to work on is legal but
        pointless, and the simulator plays to the end of the game)."""
        player = self.flow.chance or ""
        out = dict(weights)
        if player not in self.rules.boards:
            return out
        if not [c for c in self._board(player).graveyard if c != UNKNOWN]:
            out.pop("reanimate", None)
            out.pop("reunion", None)
        if not any(r.action.id == "damage_judge" for r in self.flow.stage):
            out.pop("truce", None)
        if not any(r.targets for r in self.flow.stage):
            out.pop("change_target", None)
        if self.remaining[player] is not None:
            out.pop("add_bulwark", None)  # its cards would come from a shuffled deck
        return out

    def main_and_quick_filter(self, weights: dict[str, float]) -> dict[str, float]:
        """No Search while one of the player's own requests that turns up deck cards
        (防壁補充, 徴募, 9.0 B・J) waits on the stage: the simulator plays those only on a
        deck whose order the engine knows."""
        player = self.flow.chance or ""
        if any(r.controller == player and r.action.id in DECK_READERS
               for r in self.flow.stage):
            weights.pop("search", None)
            if "blackjack" in weights and self.rules.actions["blackjack"].speed == "instant":
                weights.pop("blackjack", None)
        return weights

    # ------------------------------------------------------------------ targets
    def targets_death_lance(self, player: str) -> list[list[str]]:
        return self._soldiers(player, own=False)

    def targets_kill(self, player: str) -> list[list[str]]:
        return self._soldiers(player, own=False)

    def targets_unsummon(self, player: str) -> list[list[str]]:
        return [[ch.ref] for ch in self._board(player).field if ch.state == "charge"]

    def targets_reanimate(self, player: str) -> list[list[str]]:
        return [[ch.ref] for ch in self._board(player).field]

    def targets_reverse(self, player: str) -> list[list[str]]:
        chars = self._characters()
        self.rng.shuffle(chars)
        return [[ch.ref] for ch in chars]

    def _soldiers(self, player: str, own: bool) -> list[list[str]]:
        chars = [ch for ch in self._characters() if (ch.owner == player) == own
                 and ch.kind != "bulwark"]
        self.rng.shuffle(chars)
        return [[ch.ref] for ch in chars]

    # ------------------------------------------------------------------ choices
    def choose_death_lance(self, req: Req, choices: dict[str, Any], item: Feed
                           ) -> list[LogEffect] | None:
        target = self.rules.find(req.targets[0]) if req.targets else None
        if target is not None and len(target.cards) > 1:
            order = [f"{target.owner}:{c}" for c in target.cards]
            self.rng.shuffle(order)
            choices["order"] = order
        return None

    def choose_add_bulwark(self, req: Req, choices: dict[str, Any], item: Feed
                           ) -> list[LogEffect] | None:
        deck = self._deck(req.controller)
        choices["count"] = 2 if len(deck) > 2 and self.rng.random() < 0.4 else 1
        return None

    def choose_reanimate(self, req: Req, choices: dict[str, Any], item: Feed
                         ) -> list[LogEffect] | None:
        grave = [c for c in self._board(req.controller).graveyard if c != UNKNOWN]
        if grave:
            choices["card"] = f"{req.controller}:{self.rng.choice(grave)}"
        return None

    choose_reunion = choose_reanimate

    def choose_handes(self, req: Req, choices: dict[str, Any], item: Feed
                      ) -> list[LogEffect] | None:
        opponent = req.targets[0] if req.targets else self._opponent(req.controller)
        hand = self._hand(opponent)
        if hand:
            card = self.rng.choice(hand)
            choices["card"] = f"{opponent}:{card}"
            item.used = {opponent: [card]}
        return None

    def choose_quick_summon(self, req: Req, choices: dict[str, Any], item: Feed
                            ) -> list[LogEffect] | None:
        choices["as"] = "ace" if self.rng.random() < 0.6 else "bulwark"
        return None

    def choose_reverse(self, req: Req, choices: dict[str, Any], item: Feed
                       ) -> list[LogEffect] | None:
        state = self.rng.choice((None, "charge", "drive"))
        if state is not None:
            choices["state"] = state
        return None

    def choose_change_target(self, req: Req, choices: dict[str, Any], item: Feed
                             ) -> list[LogEffect] | None:
        """A new target the targeted request's action may take (this request included)."""
        target = self.flow.requests.get(req.targets[0]) if req.targets else None
        if target is None or not target.targets:
            return None
        spec = target.action.data.get("target") or {}
        keys = [card_of(k) for k in target.key_cards]
        options = [ch.ref for ch in self._characters()] + [r.id for r in self.flow.stage] \
            + list(self.flow.players) + [req.id]
        self.rng.shuffle(options)
        for new in options:
            if new == target.targets[0]:
                continue
            if new == req.id:  # the 対象変更 itself, where the action targets a request
                if spec.get("kind") == "request":
                    choices["target"] = new
                    return None
                continue
            if self.rules._target_problem(self.flow, spec, new, target.controller, keys,
                                          target.id) is None:
                choices["target"] = new
                return None
        # Nothing else can be its target: the same target is recorded, no change (even if
        # that one can no longer be targeted: the request then fizzles on its own).
        choices["target"] = target.targets[0]
        return None
