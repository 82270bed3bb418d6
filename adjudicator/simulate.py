"""Simulated games of every registered game, written as logs: the dispatch by game.

Each game's simulator lives in its game's folder and is offered by its plugin
(:attr:`~coreflow_judge.adjudicator.plugins.GamePlugin.simulate`); this module picks one by
game id, seeds a batch and writes its logs with their hash chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from coreflow_judge.adjudicator.plugins import (
    GamePlugin,
    game_of_bare_edition,
    game_plugin,
    is_registered,
)
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.reader import dump_line

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` after each game is written (a command's progress line)."""


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


class NoSimulator(LookupError):
    """The game is not registered, or comes without a simulator."""


def simulator_of(game: str) -> GamePlugin:
    """The registered game ``game``, which must have a simulator."""
    plugin = game_plugin(game) if is_registered(game) else None
    if plugin is None or plugin.simulate is None:
        raise NoSimulator(f"no simulator for game {game!r}")
    return plugin


def _write_logs(plugin: GamePlugin, edition: str, fmt: str | None, games: int, seed: int,
                out_dir: Path, stem: str, progress: Progress | None = None,
                frame: str | None = None) -> list[Path]:
    """``games`` games written as ``<out_dir>/<stem>-<seed>-<i>.jsonl`` (match id
    ``sim-<stem>-<seed>-<i>``; with a ``frame``, the stem ends ``-<frame>``); ``fmt`` None
    is the game's default format. Nothing is written when the first game cannot be made
    (an unknown edition, format or frame)."""
    simulate = plugin.simulate
    if simulate is None:
        raise NoSimulator(f"no simulator for game {plugin.id!r}")
    fmt = fmt or plugin.default_format
    if frame is not None:
        stem = f"{stem}-{frame}"

    def one(i: int) -> list[LogLine]:
        return simulate(edition, fmt, game_seed(seed, i), f"sim-{stem}-{seed}-{i}", frame)

    first = one(0)  # an unknown edition or format stops here, before anything is written
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(games):
        path = out_dir / f"{stem}-{seed}-{i}.jsonl"
        path.write_text(dump_log(first if i == 0 else one(i)), encoding="utf-8")
        paths.append(path)
        if progress is not None:
            progress(i + 1, games)
    return paths


def write_game_logs(game: str, edition: str, fmt: str | None, games: int, seed: int,
                    out_dir: Path, progress: Progress | None = None,
                    frame: str | None = None) -> list[Path]:
    """Simulate ``games`` games of the registered ``game`` (its default format when ``fmt``
    is None); write ``<out_dir>/<game>-<edition>-<seed>-<i>.jsonl``."""
    return _write_logs(simulator_of(game), edition, fmt, games, seed, out_dir,
                       f"{game}-{edition}", progress, frame)


def write_games(edition: str, fmt: str | None, games: int, seed: int, out_dir: Path,
                progress: Progress | None = None, frame: str | None = None) -> list[Path]:
    """Simulate ``games`` games of a bare edition (``9.0``: the game that takes bare
    editions, see :attr:`GamePlugin.bare_editions`); write
    ``<out_dir>/<edition>-<seed>-<i>.jsonl``."""
    plugin = game_of_bare_edition()
    if plugin is None:
        raise NoSimulator(f"no game takes a bare edition such as {edition!r}: "
                          "name the game, GAME/EDITION")
    return _write_logs(plugin, edition, fmt, games, seed, out_dir, edition, progress, frame)
