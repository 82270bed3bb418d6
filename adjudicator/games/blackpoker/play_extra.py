"""The simulator's choices for the actions 6.1 extra adds (see :mod:`.simulate`)."""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.play import Simulator


class ExtraPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for 6.1 extra."""
