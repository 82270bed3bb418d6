"""A wrong result after a missed win check (issue 22, class 8): once play went on past the
end the rules gave (``order.win-check-missed``) the lines are not judged, but the end the
table records at last still is: ``legality.result-mismatch`` applies whatever came before,
and the lines after a recorded end are ``log.after-game-end``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.reader import iter_lines

ROOT = Path(__file__).resolve().parent.parent
MISSED = ROOT / "fixtures" / "rulings" / "lite" / "win-check-missed-9.0.jsonl"


def played_on(end: dict[str, Any]) -> list[tuple[int, str]]:
    """win-check-missed-9.0 (alice won at line 12; play goes on at 13), then a pass, the
    end the table records, and one more line."""
    lines = MISSED.read_text(encoding="utf-8").splitlines()
    more = [{"type": "pass", "player": "alice"}, {"type": "game_ended", **end},
            {"type": "pass", "player": "bob"}]
    lines += [json.dumps({"seq": len(lines) + i, **x}) for i, x in enumerate(more, 1)]
    report = judge_lines(iter_lines(lines))
    assert report.result == {"result": "win", "winner": "alice", "reason": "deck_out"}
    return [(f.seq, f.code) for f in report.findings]


@pytest.mark.parametrize("end", [
    {"result": "win", "winner": "bob", "reason": "deck_out"},  # the other winner
    {"result": "draw", "reason": "deck_out"},                  # a draw where alice wins
    {"result": "win", "winner": "alice", "reason": "concession"},  # another reason
])
def test_a_wrong_end_after_a_missed_win_check_is_a_result_mismatch(
        end: dict[str, Any]) -> None:
    assert played_on(end) == [(13, "order.win-check-missed"),
                              (18, "legality.result-mismatch"), (19, "log.after-game-end")]


def test_the_rules_end_recorded_late_is_no_second_finding() -> None:
    assert played_on({"result": "win", "winner": "alice", "reason": "deck_out"}) == [
        (13, "order.win-check-missed"), (19, "log.after-game-end")]
