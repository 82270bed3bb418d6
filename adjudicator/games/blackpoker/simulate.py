"""Seeded random legal BlackPoker games, played through the judge's own engine.

The simulator is a player, never a referee. The driver
(:class:`~coreflow_judge.adjudicator.simulation.Simulation`) reads from the engine
(:class:`~coreflow_judge.adjudicator.flow.CoreFlow` with the match's rules module) what must
come next: a triggered request waiting in the buffer, an instant waiting for its
resolution, a stage resolution (the rule system holds the ``chance``), or a decision of the
chance holder, and this player makes the choices. For a decision it builds candidate
requests from the edition's action data and keeps only those the engine accepts without
an error finding (:func:`~coreflow_judge.adjudicator.simulation.accepted`); resolutions
carry the choices a player makes (draw count, attackers, blockers, twist state, End
discards, the searched card). What a resolution does is never computed here: the
simulator asks the rules for the plan (:meth:`BlackPokerRules.plan_resolution`) with its
choices and writes the plan's effects as the table's claims (at :data:`CLAIM_RATE`). Every
line it feeds must raise no error finding: one that does is a :class:`SimulationError`, a
bug in the engine or in the simulator.

The result is the complete log (:meth:`CoreFlow.complete_log`): the rule-system lines
(chance moves, triggers, staging, turn starts, the game end) are the engine's own.

Hidden information. The header knows both decks, so the engine knows every card until a
Search shuffles a deck: from then on that deck is a pile of ``?`` for the engine (no log
line records a shuffle's order). The simulator then deals the shuffled deck lazily: a card
leaving it is drawn at random from what remains, which is the same as a shuffle. Cards it
draws stay ``?`` for the engine; the simulator remembers their faces to play them. Where
世代交代 mills a shuffled deck the engine cannot know where it stops: the simulator deals
the deck, asks the plan on that order, and the table names the cards the plan moves.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.play import Simulator
from coreflow_judge.adjudicator.games.blackpoker.play_extra import ExtraPlay
from coreflow_judge.adjudicator.games.blackpoker.play_extra_characters import (
    ExtraCharacterPlay,
)
from coreflow_judge.adjudicator.games.blackpoker.play_frames import FramePlay
from coreflow_judge.adjudicator.games.blackpoker.play_master import MasterPlay
from coreflow_judge.adjudicator.games.blackpoker.play_standard import StandardPlay
from coreflow_judge.events.models import LogLine


class _Simulator(FramePlay, ExtraCharacterPlay, ExtraPlay, MasterPlay, StandardPlay,
                 Simulator):
    """A player of every format's actions."""


def simulate_game(edition: str, seed: int, fmt: str = "lite", max_lines: int = 3000,
                  match_id: str | None = None, frame: str | None = None) -> list[LogLine]:
    """Play one seeded random legal game of BlackPoker ``edition`` to its end.

    The game ends by deck-out (the rules' win/lose check); a game still going after
    ``max_lines`` lines of complete log stops there, unfinished. Returns the complete log,
    line 1 the header with both decks (and the frame, 9.0: ``frame``). Same arguments,
    same log.
    """
    return _Simulator(edition, seed, fmt, max_lines, match_id, frame).run()
