"""The steps of the actions standard and pro add to lite (both editions).

A step is a ``step_<name>`` method; the edition data names it in an action's ``effect``.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving


class StandardSteps(Resolving):
    """Steps of 魔術士召喚, 帰還, 死の槍, 防壁補充, リアニメイト, ハンデス, リバース (standard) and
    クイック召喚, キル, 再会, 停戦, 対象変更 (pro)."""
