"""The audit tables hold all three games side by side; the ``game`` column tells them apart."""

from __future__ import annotations

from pathlib import Path

from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.adjudicator.simulate import simulate_game
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
