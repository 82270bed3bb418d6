"""What a hostile log or input line does to the commands (issue 23): each test does what the
attacker did, through the real command.

- a player or card the log names that is no player's (players renamed in the header, a
  trigger of nobody) is a finding, never an internal error, in ``judge``, ``board`` and
  ``record`` (item 6);
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import games
from coreflow_judge.events.reader import iter_lines
from coreflow_judge.projections.board import BoardProjector

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "fixtures" / "rulings"
COREFLOW = [sys.executable, "-m", "coreflow_judge.cli.main"]


def coreflow(*args: str | Path, stdin: str | bytes | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own (stdout and stderr as text)."""
    done = subprocess.run([*COREFLOW, *(str(a) for a in args)],
                          input=stdin.encode("utf-8") if isinstance(stdin, str) else stdin,
                          capture_output=True, timeout=timeout, cwd=ROOT)
    out = subprocess.CompletedProcess(done.args, done.returncode,
                                      done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    return out


# ------------------------------------------------------------------ item 6: unknown refs


@pytest.mark.parametrize("log", [
    RULINGS / "master" / "throwing-at-a-player-not-in-the-match.jsonl",
    RULINGS / "lite" / "trigger-of-no-player.jsonl",
])
def test_a_ref_to_no_player_is_a_finding_in_judge_board_and_record(
        tmp_path: Path, log: Path) -> None:
    """A 6.1 master game whose players were renamed (ann, ben) but whose Throwing still
    targets bob, and a trigger line whose controller is nobody: ``judge``, ``board`` and
    ``record`` answer (it used to be ``internal error (KeyError): 'bob'``)."""
    judged = coreflow("judge", log, "--format", "json")
    assert judged.returncode == 1
    codes = [f["code"] for f in json.loads(judged.stdout)["findings"]]
    assert "log.unknown-ref" in codes
    assert coreflow("board", log).returncode == 0
    recorded = coreflow("record", log, "--store", tmp_path / "s.db")
    assert recorded.returncode == 0, recorded.stderr


def _renamed(lines: list[dict[str, Any]], rnd: random.Random) -> list[dict[str, Any]]:
    """The attack: every player renamed but in one line, whose player or card refs keep
    (or get) a name that is no player's; the log cut somewhere after it."""
    players = lines[0]["players"]
    new = {p: f"{p}2" for p in players}
    text = json.dumps(lines)
    for p, q in new.items():
        text = text.replace(f'"{p}"', f'"{q}"').replace(f'"{p}:', f'"{q}:')
    out: list[dict[str, Any]] = json.loads(text)
    named = [i for i, d in enumerate(lines) if i > 0 and any(
        f'"{p}"' in json.dumps(d) or f'"{p}:' in json.dumps(d) for p in players)]
    i = rnd.choice(named)
    out[i] = lines[i]  # the line the renaming missed
    return out[:rnd.randrange(i + 1, len(out) + 1)]


def test_refs_to_no_player_in_simulated_games_are_findings() -> None:
    """Every simulated game of every game and format, each with one line whose refs name
    no player of the match (the rest renamed): judged and shown, never a KeyError."""
    rnd = random.Random(23)
    tried = 0
    for game in games():
        if game.simulate is None:
            continue
        for edition in game.editions:
            for fmt in game.formats:
                try:
                    lines = game.simulate(edition, fmt, 3, "refs")
                except Exception:  # noqa: BLE001 - a format its simulator does not play
                    continue
                plain = [ln.model_dump(mode="json", exclude_none=True, exclude={"hash"})
                         for ln in lines]
                for _ in range(4):
                    items = list(iter_lines(json.dumps(d) for d in _renamed(plain, rnd)))
                    report = judge_lines(items)
                    assert any(f.severity == "error" for f in report.findings)
                    BoardProjector(items).at(None)
                    tried += 1
    assert tried >= 40
