"""Simulated games played once per test session.

A simulator is deterministic (the same seed gives the same game), and a game is a list of
frozen line models, so a game played for one test can serve every other test of the
session that asks for the same seed: :func:`pooled` wraps a simulator with that cache.
Each call returns a new list (tests cut and insert lines), holding the same frozen lines.

Tests that check the simulator itself (that it is deterministic) call it directly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any

from coreflow_judge.events.models import LogLine

Log = list[LogLine]

#: (simulator, its positional arguments, its keyword arguments) -> the game it played.
_GAMES: dict[tuple[Hashable, ...], tuple[LogLine, ...]] = {}


def pooled(simulate: Callable[..., Log]) -> Callable[..., Log]:
    """``simulate`` with each game played at most once per session."""
    name = f"{simulate.__module__}.{simulate.__qualname__}"

    @functools.wraps(simulate)
    def game(*args: Any, **kwargs: Any) -> Log:
        key = (name, args, tuple(sorted(kwargs.items())))
        if key not in _GAMES:
            _GAMES[key] = tuple(simulate(*args, **kwargs))
        return list(_GAMES[key])

    return game
