"""The official simulator's 200 games, judged as fixtures/official-simulator/README.md says.

Nobody on the project wrote these games (the publisher's own BlackPoker simulator played
them). Two checks:

- under the rules, every game gets exactly the root findings ``predictions.json`` lists
  (code and line), every other error grouped under one of them, and no warning;
- with the simulator's two defects put into the rules on purpose, every game is clean: the
  defects explain every finding, and the judge finds nothing the simulator did not do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.blackpoker.board import Character
from coreflow_judge.adjudicator.games.blackpoker.resolving import Resolving, step
from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
from coreflow_judge.adjudicator.judge import Report, judge_file
from coreflow_judge.events.models import GameEnded, Request

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "official-simulator"
PREDICTIONS: dict[str, Any] = json.loads((CORPUS / "predictions.json").read_text("utf-8"))
GAMES = sorted(CORPUS.glob("*.jsonl"))


def test_the_corpus_is_whole() -> None:
    """Every game has its prediction, and the counts the README gives."""
    assert len(GAMES) == 200
    assert sorted(p.stem for p in GAMES) == sorted(PREDICTIONS["games"])
    defects = [d["defect"] for roots in PREDICTIONS["games"].values() for d in roots]
    assert defects.count("cost-ends-game") == 37
    assert sum(1 for roots in PREDICTIONS["games"].values()
               if any(d["defect"] == "fog-sizing" for d in roots)) == 6
    assert sum(1 for roots in PREDICTIONS["games"].values() if not roots) == 158


@pytest.fixture(scope="module")
def reports() -> dict[str, Report]:
    return {p.stem: judge_file(p) for p in GAMES}


def test_every_game_is_judged_as_predicted(reports: dict[str, Report]) -> None:
    wrong: list[tuple[Any, ...]] = []
    for name, report in reports.items():
        errors = [f for f in report.findings if f.severity == "error"]
        roots = [(f.seq, f.code) for f in errors if f.caused_by is None]
        want = [(d["seq"], d["code"]) for d in PREDICTIONS["games"][name]]
        if roots != want:
            wrong.append((name, "roots", roots, want))
        for f in errors:
            if f.caused_by is not None and f.caused_by not in roots:
                wrong.append((name, "grouped under no root", f.seq, f.code, f.caused_by))
        warnings = [(f.seq, f.code, f.message) for f in report.findings
                    if f.severity == "warning"]
        if warnings:
            wrong.append((name, "warnings", warnings))
    assert not wrong, wrong[:10]


def test_a_cost_that_ends_the_game_is_ruled_at_the_recorded_end(
        reports: dict[str, Report]) -> None:
    """The ``cost-ends-game`` games end right after a request whose cost took the last
    card of a life; the rules give no result there (the check comes after resolving)."""
    for name, roots in PREDICTIONS["games"].items():
        for d in roots:
            if d["defect"] != "cost-ends-game":
                continue
            lines = (CORPUS / f"{name}.jsonl").read_text("utf-8").splitlines()
            assert d["seq"] == len(lines), name
            assert json.loads(lines[-1])["type"] == "game_ended", name
            before = json.loads(lines[-2])
            assert before["type"] == "request", name
            assert any(c["kind"] == "L" for c in before["costs"]), name
            assert reports[name].result is None, name  # the game is not over yet


@pytest.fixture(name="simulator_defects")
def _simulator_defects(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The rules with the simulator's two defects, on purpose: the Damage Judgement sizes
    a soldier with its own controller's abilities only, and the win/lose check also runs
    right after a staged request's costs are paid."""
    in_battle = [False]
    abilities_on = BlackPokerRules.abilities_on
    damage_judgement = step.table["damage_judgement"]
    on_request = CoreFlow._on_request

    def own_only(self: BlackPokerRules, ch: Character, stat: str = "size",
                 pool: Any = None) -> Any:
        found = abilities_on(self, ch, stat, pool)
        if in_battle[0] and stat == "size":
            found = [a for a in found if a.owner == ch.owner]
        return found

    def sized_by_own(self: Resolving, spec: dict[str, Any]) -> None:
        in_battle[0] = True
        try:
            damage_judgement(self, spec)
        finally:
            in_battle[0] = False

    def checked_after_costs(self: CoreFlow, line: Request) -> None:
        on_request(self, line)
        if self.result is None and self.awaiting_instant is None:
            result = self.rules.win_check(self)
            if result is not None:
                self.result = result
                self.ledger.derive(GameEnded, dict(result=result.result, winner=result.winner,
                                                   reason=result.reason))
                self.buffer.clear()
                self.continuations.clear()

    monkeypatch.setattr(BlackPokerRules, "abilities_on", own_only)
    monkeypatch.setitem(step.table, "damage_judgement", sized_by_own)
    monkeypatch.setattr(CoreFlow, "_on_request", checked_after_costs)
    yield


@pytest.mark.usefixtures("simulator_defects")
def test_the_simulators_defects_explain_every_finding() -> None:
    unexplained = {}
    for path in GAMES:
        report = judge_file(path)
        errors = [(f.seq, f.code, f.message) for f in report.findings if f.severity == "error"]
        if errors:
            unexplained[path.stem] = errors
    assert not unexplained, list(unexplained.items())[:5]
