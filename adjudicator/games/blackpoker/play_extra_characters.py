"""The simulator's choices for the 9.0 trump characters' actions (see :mod:`.simulate`).

9.0 keeps 6.1's summons under the same ids where it says the same (リアニメーター召喚,
騎士召喚, 巨人召喚, 魔王召喚, 薙払, 先読み: :mod:`.play_extra` plays them) and adds quick
summons, 兵士起因 actions (転生召喚, 粉砕) and the revives its characters trigger; this mixin
plays those, and 9.0's 策士召喚, which draws instead of negating.
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.flow import Req
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN
from coreflow_judge.adjudicator.games.blackpoker.play import Feed, Simulator
from coreflow_judge.adjudicator.games.blackpoker.play_extra import ExtraPlay
from coreflow_judge.events.models import Effect as LogEffect


class ExtraCharacterPlay(ExtraPlay):
    """``choose_<action>`` and ``targets_<action>`` methods for the 9.0 trump characters
    (how much the players like each: :data:`.play_extra.EXTRA_MAIN`, ``EXTRA_QUICK``)."""

    # ------------------------------------------------------------------ targets
    def targets_reincarnation_summon(self, player: str) -> list[list[str]]:
        """転生召喚 (リアニメイト) sends one of the player's own characters away: a
        bulwark or a small soldier first, then the rest."""
        own = list(self._board(player).field)
        self.rng.shuffle(own)
        own.sort(key=lambda ch: (self.rules.size(ch) or 0))
        return [[ch.ref] for ch in own]

    def targets_pulverize(self, player: str) -> list[list[str]]:
        opp = self._opponent(player)
        return [[ch.ref] for ch in self._board(opp).field if ch.kind == "bulwark"]

    # ------------------------------------------------------------------ choices
    choose_quick_summon_reanimator = ExtraPlay.choose_summon_reanimator
    choose_summon_wall_breaker = ExtraPlay.choose_summon_chariot
    choose_quick_summon_wall_breaker = ExtraPlay.choose_summon_chariot
    choose_counter_summon_strategist = ExtraPlay.choose_summon_strategist
    choose_quick_summon_knight = ExtraPlay.choose_summon_knight
    choose_dark_whisper = Simulator.choose_next_generation  # 世代交代's mill, by the trump

    def choose_summon_strategist(self, req: Req, choices: dict[str, Any], item: Feed
                                 ) -> list[LogEffect] | None:
        """6.1's 策士召喚 negates a request; 9.0's draws a card from the life."""
        if any(s["step"] == "strategist_negate" for s in req.action.data["effect"]):
            return super().choose_summon_strategist(req, choices, item)
        item.draws_to = req.controller
        return None

    choose_quick_summon_strategist = choose_summon_strategist

    def choose_reincarnation_summon(self, req: Req, choices: dict[str, Any], item: Feed
                                    ) -> list[LogEffect] | None:
        grave = [c for c in self._board(req.controller).graveyard if c != UNKNOWN]
        if grave:
            choices["card"] = f"{req.controller}:{self.rng.choice(grave)}"
        return None

    def choose_reanimator_revive(self, req: Req, choices: dict[str, Any], item: Feed
                                 ) -> list[LogEffect] | None:
        """The revives: the trump J from the player's own graveyard (where its character
        just went), else from the other's."""
        pattern = req.action.data["effect"][0]["card"]
        ctl = req.controller
        for p in (ctl, self._opponent(ctl)):
            able = [c for c in self._board(p).graveyard if self.rules.card_fits(c, pattern)]
            if able:
                choices["card"] = f"{p}:{able[0]}"
                return None
        return None

    choose_wall_breaker_revive = choose_reanimator_revive
    choose_strategist_revive = choose_reanimator_revive
    choose_knight_revive = choose_reanimator_revive
