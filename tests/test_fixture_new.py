"""``coreflow fixture new`` at the moment of the dispute (issue 11, item 5), through the
real command: ``--at SEQ`` freezes the board at the disputed line besides the final one
and ``fixture check`` compares it; a recorded match id is frozen from the store as the
table wrote it; a name must be a plain file name; a new fixture goes to its game's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
DM_LOG = ROOT / "fixtures" / "rulings" / "duel_masters" / "disputed-attack.jsonl"
FRAMED = ROOT / "fixtures" / "rulings" / "frames" / "pack-open-9.0.jsonl"


def coreflow(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "coreflow"
    command = [str(script)] if script.exists() else [
        sys.executable, "-c", "from coreflow_judge.cli.main import app; app()"]
    env = {k: v for k, v in os.environ.items() if k != "COREFLOW_STORE"}
    done = subprocess.run([*command, *map(str, args)], text=True, capture_output=True,
                          timeout=300, cwd=cwd, env=env, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr
    return done


def expected(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_at_freezes_the_board_at_the_disputed_line_and_check_compares_it(
        tmp_path: Path) -> None:
    done = coreflow("fixture", "new", DISPUTED, "--name", "counter", "--at", "8",
                    "--note", "3 < 9", "--dir", tmp_path)
    assert done.returncode == 0, done.stderr
    data = expected(tmp_path / "counter.expected.json")
    assert data["board_at"]["seq"] == 8
    then = data["board_at"]["board"]
    assert [r["request"] for r in then["stage"]] == ["r2", "r3"] and then["chance"] == "bob"
    assert data["board"]["seq"] == 12 and [r["request"] for r in data["board"]["stage"]] == ["r4"]
    assert "findings" not in then and "match_id" not in then  # as the final board keeps it
    check = coreflow("fixture", "check", tmp_path)
    assert check.returncode == 0 and check.stdout.strip() == "1 fixture, 0 changed"

    # The board at the disputed line changes: check names it, update re-freezes it.
    then["chance"] = "alice"
    (tmp_path / "counter.expected.json").write_text(json.dumps(data), encoding="utf-8")
    check = coreflow("fixture", "check", tmp_path)
    assert check.returncode == 1
    assert '~ board at seq 8 chance: "alice" -> "bob"' in check.stdout.splitlines()
    assert coreflow("fixture", "check", tmp_path, "--update").returncode == 0
    assert expected(tmp_path / "counter.expected.json")["board_at"]["board"]["chance"] == "bob"
    assert coreflow("fixture", "check", tmp_path).returncode == 0


def test_a_recorded_match_is_frozen_as_the_table_wrote_it(tmp_path: Path) -> None:
    store = tmp_path / "table.db"
    assert coreflow("record", DISPUTED, "--store", store).returncode == 0
    done = coreflow("fixture", "new", "demo-1", "--store", store, "--name", "from-store",
                    "--at", "11", "--dir", tmp_path / "fx")
    assert done.returncode == 0, done.stderr
    log = tmp_path / "fx" / "from-store.jsonl"
    seqs = [json.loads(line)["seq"] for line in log.read_text(encoding="utf-8").splitlines()]
    assert seqs == list(range(1, 13))  # the table's own 12 lines, not the complete 20
    data = expected(tmp_path / "fx" / "from-store.expected.json")
    from_file = json.loads(coreflow("judge", DISPUTED, "--format", "json").stdout)
    assert [(f["seq"], f["code"]) for f in data["findings"]] == \
        [(f["seq"], f["code"]) for f in from_file["findings"]]
    assert data["board_at"]["seq"] == 11 and data["board_at"]["board"]["stage"] == []
    assert coreflow("fixture", "check", tmp_path / "fx").returncode == 0
    missing = coreflow("fixture", "new", "demo-9", "--store", store, "--name", "x",
                       "--dir", tmp_path / "fx")
    assert missing.returncode == 2
    assert missing.stderr == (f"coreflow: 'demo-9' is neither a log file nor a match recorded "
                              f"in {store}; recorded ids near it: demo-1\n")


@pytest.mark.parametrize("name", ["a/b", "../up", "..", "", ".hidden", "a\\b"])
def test_a_name_must_be_a_plain_file_name(tmp_path: Path, name: str) -> None:
    done = coreflow("fixture", "new", DISPUTED, "--name", name, "--dir", tmp_path / "fx")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "a fixture name must be a plain file name" in done.stderr
    assert not (tmp_path / "fx").exists()


def test_an_at_the_log_does_not_have_writes_nothing(tmp_path: Path) -> None:
    done = coreflow("fixture", "new", DISPUTED, "--name", "late", "--at", "99",
                    "--dir", tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("coreflow: --at 99: ") and done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_new_fixture_goes_to_its_games_folder(tmp_path: Path) -> None:
    shutil.copy(DISPUTED, tmp_path / "bp.jsonl")
    shutil.copy(DM_LOG, tmp_path / "dm.jsonl")
    shutil.copy(FRAMED, tmp_path / "framed.jsonl")
    for name in ("bp", "dm", "framed"):
        assert coreflow("fixture", "new", f"{name}.jsonl", "--name", name,
                        cwd=tmp_path).returncode == 0
    rulings = tmp_path / "fixtures" / "rulings"
    assert sorted(str(p.relative_to(rulings)) for p in rulings.rglob("*")) == [
        "duel_masters", "duel_masters/dm.expected.json", "duel_masters/dm.jsonl",
        "frames", "frames/framed.expected.json", "frames/framed.jsonl",
        "lite", "lite/bp.expected.json", "lite/bp.jsonl"]
    check = coreflow("fixture", "check", "fixtures/rulings", cwd=tmp_path)
    assert check.returncode == 0 and check.stdout.strip() == "3 fixtures, 0 changed"
