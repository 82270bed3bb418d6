"""The simulator's choices for the actions master adds (see :mod:`.simulate`)."""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.play import Simulator


class MasterPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for master."""
