"""The audit tables hold all three games side by side; the ``game`` column tells them apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator import judge
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.audit import AuditDB
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.store import open_recorder


def _simulated(game: str, edition: str, seed: int, match_id: str) -> list[LogLine]:
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    return plugin.simulate(edition, plugin.default_format, seed, match_id)


def test_three_games_in_one_audit_database(tmp_path: Path) -> None:
    games = {
        "blackpoker": [simulate_game("6.1", 7, match_id="bp-7"),
                       simulate_game("9.0", 8, match_id="bp-8")],
        "duel_masters": [_simulated("duel_masters", "1.47", 7, "dm-7")],
        "i_language": [_simulated("i_language", "1", 7, "il-7")],
    }
    store = str(tmp_path / "coreflow.db")
    recorder = open_recorder(store)
    for logs in games.values():
        for lines in logs:
            recorder.record(lines)
    auditdb = AuditDB(tmp_path / "audit.duckdb", store)
    auditdb.refresh(recorder=recorder)
    con = auditdb.connect_read_only()
    try:
        per_game = dict(con.execute(
            "SELECT game, count(*) FROM matches GROUP BY game").fetchall())
        events = dict(con.execute(
            "SELECT m.game, count(*) FROM events e JOIN matches m USING (match_id) "
            "GROUP BY m.game").fetchall())
        requests = dict(con.execute(
            "SELECT m.game, count(*) FROM requests r JOIN matches m USING (match_id) "
            "GROUP BY m.game").fetchall())
        errors = con.execute(
            "SELECT count(*) FROM findings WHERE severity = 'error'").fetchone()
    finally:
        con.close()
    assert per_game == {game: len(logs) for game, logs in games.items()}
    assert events == {game: sum(len(lines) for lines in logs) for game, logs in games.items()}
    assert all(requests[game] > 0 for game in games)
    # Legal simulated games: the findings table agrees with the judge, which finds nothing.
    for logs in games.values():
        for lines in logs:
            assert [f for f in judge_lines(enumerate(lines, 1)).findings
                    if f.severity == "error"] == []
    assert errors == (0,)


def test_resolution_rows_are_what_the_judge_resolved(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads each resolution's outcome where the flow keeps it
    (``flow.resolutions``): its rows carry the effects and result the judge's rules module
    returned for every resolve line, in each game, and the engine is not wrapped."""
    from coreflow_judge.adjudicator import replay
    from coreflow_judge.audit import derive

    from tests.logtools import audit_rows

    flows: list[CoreFlow] = []

    def start_flow(*args: Any) -> CoreFlow:
        flow = judge.start_flow(*args)
        flows.append(flow)
        return flow

    # To see the audit's flow: the one its walk of the replay starts (Replay.start).
    monkeypatch.setattr(replay, "start_flow", start_flow)
    logs = [simulate_game("9.0", 8, match_id="bp-8"),
            _simulated("duel_masters", "1.47", 7, "dm-7"),
            _simulated("i_language", "1", 7, "il-7")]
    for lines in logs:
        rows = audit_rows(lines)["resolutions"]
        audited = flows.pop()
        assert "resolve" not in vars(audited.rules)  # nothing wraps the rules module
        report = judge_lines(enumerate(lines, 1))
        assert report.flow is not None
        resolved = report.flow.resolutions
        assert len(rows) == len(resolved) > 0
        for row in rows:
            res = resolved[row["seq"]]
            assert row["rules_result"] == res.result
            assert row["effects"] == derive._plain(res.effects)
        assert any(row["effects"] for row in rows)
