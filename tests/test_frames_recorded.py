"""A match of each BlackPoker 9.0 frame, recorded live and audited: typed at the table in
the notation (`coreflow play`, a real process and a real SQLite store), stored as its
complete log, exported unchanged, judged from the store with no error, and seen by
DuckDB with its frame and its frame actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.games.blackpoker.lines import BlackPokerMatchStarted
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import LogLine

from tests.test_play import coreflow, jsonl, notation_of

FRAMES = [("entry16", "lite", 21), ("pack", "standard", 22), ("rare_pack", "pro", 23),
          ("strategy", "master", 24), ("extra", "master", 25)]


def _simulated(frame: str, fmt: str, seed: int) -> list[LogLine]:
    simulate = game_plugin("blackpoker").simulate
    assert simulate is not None
    return simulate("9.0", fmt, seed, f"live-{frame}-{seed}", frame=frame)


@pytest.mark.parametrize(("frame", "fmt", "seed"), FRAMES)
def test_a_framed_match_is_recorded_live_judged_and_audited(
        tmp_path: Path, frame: str, fmt: str, seed: int) -> None:
    lines = _simulated(frame, fmt, seed)
    header = lines[0]
    assert isinstance(header, BlackPokerMatchStarted) and header.frame == frame
    store = tmp_path / "live.db"
    typed = notation_of(lines)
    done = coreflow("play", "--store", store, stdin=typed)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert all(a.startswith("ok ") for a in done.stdout.splitlines())
    exported = coreflow("log", header.match_id, "--store", store)
    assert exported.returncode == 0 and exported.stdout == jsonl(lines)
    judged = coreflow("judge", header.match_id, "--store", store, "--format", "json")
    assert judged.returncode == 0, judged.stdout[-2000:]
    report = json.loads(judged.stdout)
    assert [f for f in report["findings"] if f["severity"] == "error"] == []
    sql = ("SELECT m.game_fields->>'frame' AS frame, count(r.action) FILTER (WHERE "
           "r.action IN ('pack_open', 'rare_draw', 'rare_summon', 'trap_counter', "
           "'quick_open', 'main_open')) AS n "
           "FROM matches m LEFT JOIN requests r USING (match_id) GROUP BY frame")
    audited = coreflow("audit", sql, "--store", store, "--format", "json")
    assert audited.returncode == 0, audited.stderr
    rows = [json.loads(t) for t in audited.stdout.splitlines()]
    used = sum(1 for ln in lines if getattr(ln, "action", None) in (
        "pack_open", "rare_draw", "rare_summon", "trap_counter", "quick_open", "main_open"))
    assert rows == [{"frame": frame, "n": used}]
    if frame != "entry16":
        assert used > 0, "the simulated game used none of its frame's actions"
