"""Regression tests of the core flow's reconciliation of a log with the derived lines:
the defects issue 7 names, each pinned so it cannot come back."""

from __future__ import annotations

import random

from coreflow_judge.adjudicator.simulate import simulate_game

from tests.logtools import errors, judge
from tests.test_simulate import rename_triggered


def test_trigger_lines_bind_by_what_they_say_not_by_the_judges_ids() -> None:
    """Two Next Generation triggers at once, in a log that names its triggered requests
    ``t1, t2, ...`` like the judge's provisional ids: each trigger line binds the derived
    trigger of its own source and controller, never the one the judge happened to call by
    the line's id (found: bound crosswise, a legal game got order.trigger-spurious twice
    and order.trigger-turn-order; shuffles 23, 50, 78, 83 and 96 failed)."""
    game = simulate_game("9.0", 1878198)
    failing = {}
    for shuffle in range(100):
        report = judge(rename_triggered(game, random.Random(shuffle)))
        if errors(report):
            failing[shuffle] = errors(report)
    assert failing == {}
