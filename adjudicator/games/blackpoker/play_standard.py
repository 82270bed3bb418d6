"""The simulator's choices for the actions standard and pro adds (see :mod:`.simulate`)."""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.play import Simulator


class StandardPlay(Simulator):
    """``choose_<action>`` and ``targets_<action>`` methods for standard and pro."""
