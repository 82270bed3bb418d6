"""The steps of 6.1 extra: trump operations and the trump actions.

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving


class ExtraSteps(Resolving):
    """Steps of the trump operations (オープン, クローズ, 切札破壊, 切札再生) and the trump
    actions of the 6.1 extra list."""
