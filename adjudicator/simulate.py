"""Simulated games of every game coreflow plays, written as logs: the dispatch by game.

Each game's simulator lives in its game's folder; this module picks one by game id and
writes its logs. BlackPoker's is :func:`simulate_game` (re-exported from
:mod:`coreflow_judge.adjudicator.games.blackpoker.simulate`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.games.duel_masters.simulate import (
    simulate_game as simulate_duel_masters,
)
from coreflow_judge.adjudicator.games.i_language.simulate import (
    simulate_game as simulate_i_language,
)
from coreflow_judge.adjudicator.simulation import SimulationError
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import dump_line

__all__ = ["GAME_SIMULATORS", "SimulationError", "dump_log", "game_seed", "simulate_game",
           "write_game_logs", "write_games"]


def game_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th game of a batch seeded ``seed`` (stable across runs)."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()
    return int(digest[:15], 16)


def dump_log(lines: list[LogLine]) -> str:
    """The log as JSON Lines with its hash chain."""
    out = []
    previous: str | None = None
    for line in lines:
        text, previous = dump_line(line, previous)
        out.append(text)
    return "\n".join(out) + "\n"


def _simulate_i_language(edition: str, fmt: str | None, seed: int, match_id: str
                         ) -> list[LogLine]:
    return simulate_i_language(seed, match_id=match_id, edition=edition,
                               fmt=fmt or "standard")


def _simulate_duel_masters(edition: str, fmt: str | None, seed: int, match_id: str
                           ) -> list[LogLine]:
    return simulate_duel_masters(seed, match_id=match_id, edition=edition,
                                 fmt=fmt or "standard")


GAME_SIMULATORS: dict[str, Callable[[str, str | None, int, str], list[LogLine]]] = {
    "i_language": _simulate_i_language,
    "duel_masters": _simulate_duel_masters,
}
"""The other games' simulators, by game id: (edition, format or None for the game's
default, seed, match id) -> the complete log of one game."""


def write_game_logs(game: str, edition: str, fmt: str | None, games: int, seed: int,
                    out_dir: Path) -> list[Path]:
    """Simulate ``games`` games of ``game``; write ``<out_dir>/<game>-<edition>-<seed>-<i>.jsonl``.

    Nothing is written when the first game cannot be made (an unknown edition or format).
    """
    simulate = GAME_SIMULATORS[game]

    def one(i: int) -> list[LogLine]:
        return simulate(edition, fmt, game_seed(seed, i), f"sim-{game}-{edition}-{seed}-{i}")

    first = one(0)  # an unknown edition or format stops here, before anything is written
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(games):
        path = out_dir / f"{game}-{edition}-{seed}-{i}.jsonl"
        path.write_text(dump_log(first if i == 0 else one(i)), encoding="utf-8")
        paths.append(path)
    return paths


def write_games(edition: str, fmt: str, games: int, seed: int, out_dir: Path) -> list[Path]:
    """Simulate ``games`` games; write ``<out_dir>/<edition>-<seed>-<i>.jsonl`` each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(games):
        lines = simulate_game(edition, game_seed(seed, i), fmt,
                              match_id=f"sim-{edition}-{seed}-{i}")
        path = out_dir / f"{edition}-{seed}-{i}.jsonl"
        path.write_text(dump_log(lines), encoding="utf-8")
        paths.append(path)
    return paths
