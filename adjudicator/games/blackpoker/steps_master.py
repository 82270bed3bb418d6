"""The steps of the actions master adds to pro (both editions).

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving


class MasterSteps(Resolving):
    """Steps of フォース, 剣の雨, 徴募, 奇襲, B・J and R・S・F."""
