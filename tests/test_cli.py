"""The ``coreflow`` command line: exit statuses, error lines, and the store round trip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import judge_file
from coreflow_judge.adjudicator.plugins import game_plugin, games
from coreflow_judge.cli.main import app
from coreflow_judge.cli.render import board_text
from coreflow_judge.cli.rule_text import RULE_STATEMENTS, rule_statement
from coreflow_judge.events.store import MatchRecorder, open_recorder
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"

runner = CliRunner()


def invoke(*args: str | Path, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, [str(a) for a in args], env=env)
    # Whatever happened, never a traceback and never an escaped exception.
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception)
    return result


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def disputed_with(tmp_path: Path, old: str, new: str, name: str = "edited.jsonl") -> Path:
    text = DISPUTED.read_text(encoding="utf-8")
    assert old in text
    return write(tmp_path / name, text.replace(old, new, 1))


@pytest.fixture()
def clean_log(tmp_path: Path) -> Path:
    """A legal simulated 9.0 game, written by ``coreflow simulate``."""
    out = tmp_path / "sim"
    r = invoke("simulate", "--rules", "blackpoker/9.0", "--format", "lite", "--games", "1",
               "--seed", "3", "--out", out)
    assert r.exit_code == 0, r.output
    (path,) = sorted(out.glob("*.jsonl"))
    assert r.stdout.strip() == str(path)
    return path


# ------------------------------------------------------------------ judge


def test_judge_of_a_garbage_file_exits_2_naming_line_and_field(tmp_path: Path) -> None:
    bad = write(tmp_path / "garbage.jsonl", "%% this is not a match log\n")
    r = invoke("judge", bad)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.strip() == (
        f"coreflow: {bad}: line 1: field '(json)': not valid JSON: "
        "expected value at column 1")


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('"seq":1,', '"seq":"one",', "'seq'"),  # wrong type
        ('"rules":"blackpoker/9.0"', '"rules":"blackpoker/7.5"', "'rules'"),  # unknown edition
        ('"format":"lite"', '"format":"ultra"', "'format'"),
        ('"game":"blackpoker"', '"game":"chess"', "'game'"),
        ('"log_format":1', '"log_format":1,"colour":"red"', "'colour'"),  # unknown field
        ('{"seq":1,"type":"match_started"', '{"seq":1,"type":"turn_started"', "'player'"),
        ('"match_id":"demo-1"', '"match_id":"demo 1"', "'match_id'"),
    ],
)
def test_judge_names_the_line_and_field_it_cannot_read(
        tmp_path: Path, old: str, new: str, field: str) -> None:
    r = invoke("judge", disputed_with(tmp_path, old, new))
    assert r.exit_code == 2
    assert r.stderr.startswith("coreflow: ") and "line 1: field " + field in r.stderr


def test_judge_of_a_log_not_starting_with_match_started_exits_2(tmp_path: Path) -> None:
    lines = DISPUTED.read_text(encoding="utf-8").splitlines()
    log = write(tmp_path / "headless.jsonl", "\n".join(lines[1:]) + "\n")
    r = invoke("judge", log)
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        f"coreflow: {log}: line 1: field 'type': line 1 must be match_started")


def test_judge_of_a_truncated_unreadable_or_missing_log_exits_2(tmp_path: Path) -> None:
    text = DISPUTED.read_bytes()
    cases = {
        "truncated.jsonl": text[:60],
        "binary.jsonl": b"\xff\xfe\x00\x01",
        "empty.jsonl": b"",
    }
    for name, data in cases.items():
        r = invoke("judge", write(tmp_path / name, data))
        assert r.exit_code == 2, name
        assert "line 1: field" in r.stderr, name
    r = invoke("judge", tmp_path / "missing.jsonl")
    assert r.exit_code == 2 and "missing.jsonl: cannot read" in r.stderr


def test_judge_of_a_log_with_an_error_exits_1_and_reads_like_a_ruling() -> None:
    r = invoke("judge", DISPUTED)
    assert r.exit_code == 1
    text = r.stdout
    assert text.startswith(f"match demo-1  (blackpoker/9.0, 12 lines)  {DISPUTED}")
    block = text[text.index("seq 11  legality.effect-mismatch  [error]"):]
    statement = game_plugin("blackpoker").rule_statements["bp4.3.3"]
    assert f"rule      bp4.3.3: {statement}" in block
    assert "finding   The recorded effects of Counter differ" in block
    assert "expected  no such effect\n  recorded  negate r2\n" in block
    assert text.rstrip().endswith("1 error, 1 warning")
    assert "result: undecided" in text


def test_judge_of_a_truncated_last_line_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    lines = DISPUTED.read_text(encoding="utf-8").splitlines()
    cut = write(tmp_path / "cut.jsonl", "\n".join(lines[:-1]) + "\n" + lines[-1][:40])
    r = invoke("judge", cut, "--format", "json")
    assert r.exit_code == 1
    report = json.loads(r.stdout)
    assert ("log.malformed", 12) in {(f["code"], f["seq"]) for f in report["findings"]}


def test_judge_of_an_unknown_player_is_a_finding(tmp_path: Path) -> None:
    log = disputed_with(tmp_path, '"player":"bob","action":"counter"',
                        '"player":"carol","action":"counter"')
    r = invoke("judge", log, "--format", "json")
    assert r.exit_code == 1
    codes = {(f["code"], f["seq"]) for f in json.loads(r.stdout)["findings"]}
    assert ("log.unknown-ref", 8) in codes


def test_judge_json_is_the_report_one_line_per_log(tmp_path: Path, clean_log: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(DISPUTED, logs / "b-disputed.jsonl")
    shutil.copy(clean_log, logs / "a-clean.jsonl")
    r = invoke("judge", logs, "--format", "json")
    assert r.exit_code == 1  # one of the two has an error finding
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    # Each report is the judge's, and names the log it is about.
    for line, name in zip(lines, ["a-clean.jsonl", "b-disputed.jsonl"], strict=True):
        assert json.loads(line) == judge_file(logs / name).as_dict() | {"log": str(logs / name)}
    first = json.loads(lines[1])
    assert list(first)[:5] == ["match_id", "rules", "events", "findings", "result"]


def test_judge_of_a_legal_game_exits_0(clean_log: Path) -> None:
    r = invoke("judge", clean_log)
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines()[-1].startswith("0 errors, ")
    assert "\nresult: " in r.stdout and "undecided" not in r.stdout


def test_judge_keeps_going_past_an_unreadable_log(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.jsonl", "{}\n")
    r = invoke("judge", bad, DISPUTED, "--format", "json")
    assert r.exit_code == 2  # the worst of the logs
    assert json.loads(r.stdout)["match_id"] == "demo-1"
    assert "bad.jsonl: line 1" in r.stderr


def test_every_rule_the_engine_cites_has_an_english_statement() -> None:
    import re

    cited: set[str] = set()
    for path in (ROOT / "adjudicator").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        cited |= set(re.findall(r'"((?:core\[[0-9-]+\])|(?:bp[0-9][0-9.]*[0-9]|bp[0-9])|log)"',
                                text))
    assert cited, "the engine cites rules"
    stated = set(RULE_STATEMENTS).union(*(g.rule_statements for g in games()))
    missing = sorted(c for c in cited if c not in stated)
    assert missing == []
    assert "no summary" in rule_statement("bp9.9.9")


# ------------------------------------------------------------------ record / log / board


def test_record_then_log_round_trips_through_sqlite(tmp_path: Path) -> None:
    store = tmp_path / "matches.db"
    normalized = invoke("normalize", DISPUTED)
    assert normalized.exit_code == 0
    r = invoke("record", DISPUTED, "--store", store)
    assert r.exit_code == 0, r.output
    assert r.stdout == "demo-1\n"
    logged = invoke("log", "demo-1", "--store", store)
    assert logged.exit_code == 0
    assert logged.stdout == normalized.stdout
    # The store is a real SQLite file another process can open.
    recorder = open_recorder(str(store))
    assert recorder.match_ids() == ["demo-1"]


def test_recording_a_match_twice_changes_nothing(tmp_path: Path) -> None:
    """The identical log again is done already (exit 0, nothing written); another log
    under the same id is refused (exit 1, nothing written)."""
    store = str(tmp_path / "matches.db")
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    before = invoke("log", "demo-1", "--store", store).stdout
    r = invoke("record", DISPUTED, "--store", store)
    assert (r.exit_code, r.stdout) == (0, "demo-1\n")
    assert r.stderr.strip() == (
        f"coreflow: {DISPUTED}: match 'demo-1' is already recorded in {store} with the same "
        "content; nothing to write")
    assert invoke("log", "demo-1", "--store", store).stdout == before
    changed = tmp_path / "changed.jsonl"
    changed.write_text(DISPUTED.read_text(encoding="utf-8").replace('"bob:C3"', '"bob:C9"'),
                       encoding="utf-8")
    r = invoke("record", changed, "--store", store)
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr.strip() == (
        f"coreflow: {changed}: match 'demo-1' is already recorded in {store} with different "
        "content (the complete logs differ first at seq 11); nothing was written (coreflow "
        f"log demo-1 --store {store} prints the recorded log)")
    assert invoke("log", "demo-1", "--store", store).stdout == before


def test_record_refuses_a_malformed_log_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "matches.db"
    lines = DISPUTED.read_text(encoding="utf-8").splitlines()
    lines[6] = '{"seq":7,"type":"pass","player":'
    bad = write(tmp_path / "bad.jsonl", "\n".join(lines) + "\n")
    r = invoke("record", bad, "--store", store)
    assert r.exit_code == 2
    assert "line 7: field '(json)'" in r.stderr
    assert not store.exists() or MatchRecorder(env={
        "PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(store),
    }).match_ids() == []


def test_store_errors_are_one_line(tmp_path: Path) -> None:
    blocker = write(tmp_path / "a-file", "not a directory")
    r = invoke("record", DISPUTED, "--store", blocker / "sub" / "x.db")
    assert r.exit_code == 2 and r.stderr.startswith("coreflow: cannot open the event store")
    assert len(r.stderr.splitlines()) == 1 and "cannot create its directory" in r.stderr
    r = invoke("log", "demo-1", "--store", tmp_path / "absent.db")
    assert r.exit_code == 2 and "no event store at" in r.stderr
    assert not (tmp_path / "absent.db").exists()
    store = tmp_path / "s.db"
    invoke("record", DISPUTED, "--store", store)
    r = invoke("log", "nope", "--store", store)
    assert r.exit_code == 2
    assert r.stderr.strip() == (f"coreflow: no match 'nope' is recorded in {store} (it holds 1 "
                                "match: coreflow matches lists them)")


def test_store_defaults_to_the_environment(tmp_path: Path) -> None:
    env = {"COREFLOW_STORE": str(tmp_path / "env.db")}
    assert invoke("record", DISPUTED, env=env).exit_code == 0
    assert (tmp_path / "env.db").exists()
    assert invoke("log", "demo-1", env=env).stdout.startswith('{"seq":1,')


def test_board_at_several_seqs_from_a_file_and_from_the_store(tmp_path: Path) -> None:
    def board(*args: str | Path) -> dict:  # type: ignore[type-arg]
        r = invoke("board", *args, "--format", "json")
        assert r.exit_code == 0, r.output
        return json.loads(r.stdout)  # type: ignore[no-any-return]

    b = board(DISPUTED, "--at", "8")
    assert [s["request"] for s in b["stage"]] == ["r2", "r3"] and b["chance"] == "bob"
    b = board(DISPUTED, "--at", "11")
    assert b["stage"] == [] and b["chance"] == "alice"
    b = board(DISPUTED)
    assert [s["request"] for s in b["stage"]] == ["r4"] and b["seq"] == 12

    store = tmp_path / "s.db"
    invoke("record", DISPUTED, "--store", store)
    # The stored log is complete (20 lines), and the board of the record counts the lines
    # as the table's file does: line 10 is alice's pass, after which the chance went to the
    # system (a derived line of the record).
    b = board("demo-1", "--at", "10", "--store", store)
    assert b["chance"] == "system" and b["passed"] == ["alice", "bob"]
    assert [s["request"] for s in b["stage"]] == ["r2", "r3"]
    b = board("demo-1", "--store", store)
    assert b["seq"] == 12 and [s["request"] for s in b["stage"]] == ["r4"]

    text = invoke("board", DISPUTED, "--at", "8")
    assert text.exit_code == 0
    assert "  2. r3 counter (bob, normal quick) · key bob:♣3 · targets r2" in text.stdout
    assert "alice:♥2: bulwark, drive, face down" in text.stdout


def test_board_errors(tmp_path: Path) -> None:
    r = invoke("board", DISPUTED, "--at", "99")
    assert r.exit_code == 2
    assert r.stderr.strip() == "coreflow: no line with seq 99: the log runs from seq 1 to seq 12"
    store = tmp_path / "s.db"
    invoke("record", DISPUTED, "--store", store)
    r = invoke("board", "no-such-match", "--store", store)
    assert r.exit_code == 2 and "neither a log file nor a match recorded in" in r.stderr
    r = invoke("board", write(tmp_path / "g.jsonl", "[1, 2]\n"))
    assert r.exit_code == 2 and "g.jsonl: line 1: field '(line)'" in r.stderr


# ------------------------------------------------------------------ normalize / verify / schema


def test_normalize_writes_a_chained_complete_log(tmp_path: Path) -> None:
    r = invoke("normalize", DISPUTED)
    assert r.exit_code == 0
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["seq"] for x in lines] == list(range(1, len(lines) + 1))
    assert {"chance_moved", "stage"} <= {x["type"] for x in lines}
    assert all(len(x["hash"]) == 64 for x in lines)
    complete = write(tmp_path / "complete.jsonl", r.stdout)
    assert invoke("verify", complete).exit_code == 0


def test_verify_reports_the_first_broken_line(tmp_path: Path) -> None:
    r = invoke("normalize", DISPUTED)
    lines = r.stdout.splitlines()
    lines[5] = lines[5].replace('"result":"resolved"', '"result":"fizzled"')
    tampered = write(tmp_path / "tampered.jsonl", "\n".join(lines) + "\n")
    v = invoke("verify", tampered)
    assert v.exit_code == 1
    assert v.stdout.startswith(f"{tampered}: hash chain broken at line 6 (seq 6): hash ")
    v = invoke("verify", DISPUTED)  # a hand-written log carries no hashes
    assert v.exit_code == 1 and "not hash-chained: no line carries a hash" in v.stdout
    v = invoke("verify", write(tmp_path / "g.jsonl", "nonsense"))
    assert v.exit_code == 2 and "line 1: field '(json)'" in v.stderr


def test_schema_is_the_json_schema_of_a_line() -> None:
    r = invoke("schema")
    assert r.exit_code == 0
    schema = json.loads(r.stdout)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert "request" in json.dumps(schema)


def test_simulate_refuses_unknown_editions_and_formats(tmp_path: Path) -> None:
    for args, text in [
        (("--rules", "7.5"), "BlackPoker has no edition '7.5'; the games with a simulator: "
         "blackpoker/6.1, blackpoker/9.0 (or 6.1, 9.0); duel_masters/1.47; i_language/1"),
        (("--rules", "chess"), "--rules 'chess': no game is named 'chess', and BlackPoker "
         "has no edition 'chess'; the games with a simulator: blackpoker/6.1"),
        (("--rules", "chess/1"), "no game 'chess' is installed; the games with a simulator"),
        (("--rules", "9.0", "--format", "ultra"), "format 'ultra'"),
        (("--rules", "9.0", "--frame", "nope"), "--frame: BlackPoker 9.0 has no frame 'nope'"),
        (("--rules", "6.1", "--frame", "pack"), "--frame: BlackPoker 6.1 has no frames"),
        (("--rules", "duel_masters/1.47", "--frame", "pack"),
         "--frame: duel_masters has no frames"),
    ]:
        r = invoke("simulate", *args, "--out", tmp_path / "o")
        assert r.exit_code == 2 and text in r.stderr
    assert not (tmp_path / "o").exists()


def test_simulate_plays_a_frame_and_the_judge_finds_it_clean(tmp_path: Path) -> None:
    """``--frame``: the games are played in the regulation's frame, named in the file
    names and the header, and judged clean."""
    r = invoke("simulate", "--rules", "9.0", "--format", "lite", "--frame", "pack",
               "--games", "2", "--seed", "3", "--out", tmp_path)
    assert r.exit_code == 0, r.stderr
    paths = [Path(p) for p in r.stdout.split()]
    assert [p.name for p in paths] == ["9.0-pack-3-0.jsonl", "9.0-pack-3-1.jsonl"]
    for path in paths:
        header = json.loads(path.read_text("utf-8").splitlines()[0])
        assert header["frame"] == "pack"
        report = judge_file(path)
        assert report.errors == 0 and report.result is not None


def test_every_command_has_help_with_an_example() -> None:
    for command in ("judge", "record", "board", "log", "normalize", "verify", "schema",
                    "simulate"):
        r = invoke(command, "--help")
        assert r.exit_code == 0
        assert "Example: coreflow " + command in r.stdout, command


# ------------------------------------------------------------------ the installed command


def installed_coreflow() -> str:
    here = Path(sys.executable).parent / "coreflow"
    found = str(here) if here.exists() else shutil.which("coreflow")
    if found is None:
        pytest.skip("the coreflow command is not installed (pip install .)")
    return found


def test_the_installed_command_judges_and_records(tmp_path: Path) -> None:
    exe = installed_coreflow()
    env = {**os.environ, "COREFLOW_STORE": str(tmp_path / "sub.db")}
    judged = subprocess.run([exe, "judge", str(DISPUTED), "--format", "json"], env=env,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            timeout=120)
    assert judged.returncode == 1
    assert json.loads(judged.stdout) == judge_file(DISPUTED).as_dict() | {"log": str(DISPUTED)}
    bad = write(tmp_path / "bad.jsonl", '{"seq": 1, "type": "pass", "player": 7}\n')
    failed = subprocess.run([exe, "judge", str(bad)], env=env, capture_output=True,
                            text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.startswith(f"coreflow: {bad}: line 1: field 'player'")
    assert "Traceback" not in failed.stderr
    recorded = subprocess.run([exe, "record", str(DISPUTED)], env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert (recorded.returncode, recorded.stdout) == (0, "demo-1\n")


# ------------------------------------------------------------------ the README


def readme_block_after(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("```", text.index(marker))
    body = text[text.index("\n", start) + 1:]
    return body[:body.index("```")]


def test_readme_opens_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text[text.index("```sh"):]
    commands = first[first.index("\n") + 1:first.index("```", 3)].splitlines()
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/coreflow record "
        "fixtures/sample-match.jsonl && .venv/bin/coreflow judge sample-2026-r3-t7",
        "python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\npython -m pytest\n" in ci and "pip install --quiet '.[test]'" in ci


def test_readme_worked_example_is_what_the_cli_prints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = "fixtures/examples/disputed-counter.jsonl"
    assert readme_block_after("(the short 9.0 example") == (ROOT / log).read_text("utf-8")
    judged = invoke("judge", log)
    assert judged.exit_code == 1
    assert readme_block_after(f"`coreflow judge {log}` prints") == judged.stdout
    board = invoke("board", log, "--at", "8")
    assert readme_block_after(f"`coreflow board {log} --at 8`") == board.stdout


def test_judge_a_recorded_match_by_its_id(tmp_path: Path) -> None:
    """The README's first command: record the sample, then judge it from the store."""
    store = str(tmp_path / "coreflow.db")
    sample = ROOT / "fixtures" / "sample-match.jsonl"
    recorded = CliRunner().invoke(app, ["record", str(sample), "--store", store])
    assert recorded.exit_code == 0 and recorded.stdout.strip() == "sample-2026-r3-t7"
    assert "head hash" in recorded.stderr  # the receipt goes to standard error
    from_store = CliRunner().invoke(app, ["judge", "sample-2026-r3-t7", "--store", store,
                                          "--format", "json"])
    from_file = CliRunner().invoke(app, ["judge", str(sample), "--format", "json"])
    assert from_store.exit_code == 0
    stored, filed = json.loads(from_store.output), json.loads(from_file.output)
    assert stored["result"] == filed["result"] == {"result": "win", "winner": "bob",
                                                    "reason": "deck_out"}
    assert stored["findings"] == filed["findings"] == []
    missing = CliRunner().invoke(app, ["judge", "no-such-match", "--store", store])
    assert missing.exit_code == 2 and "neither a log file nor a match recorded in" in missing.output


# ------------------------------------------------------------------ games from the registry


def test_the_help_names_the_registered_games_editions_and_formats() -> None:
    from coreflow_judge.cli import main

    # Filled in when the help is shown (cli.main.GAMES_HELP), not when the command starts.
    shown = " ".join(CliRunner().invoke(app, ["--help"]).output.split())
    for game in games():
        text = f"{game.name} {', '.join(game.editions)} ({', '.join(game.formats)})"
        assert text in shown
    assert "BlackPoker 6.1, 9.0 (lite, standard, pro, master, extra)" in shown
    assert "{" not in shown
    simulate = " ".join(CliRunner().invoke(app, ["simulate", "--help"]).output.split())
    assert f"bare edition: {main._editions_text()}." in simulate
    assert f"The format ({main._formats_text()};" in simulate
    # A shell's completion describes the options with the same words.
    import typer

    group = typer.main.get_command(app)
    command = group.commands["simulate"]  # type: ignore[attr-defined]
    ctx = command.make_context("simulate", [], resilient_parsing=True)
    described = {i.value: i.help for i in command.shell_complete(ctx, "--")}
    assert described["--rules"].endswith(f"bare edition: {main._editions_text()}.")
    editions = main._editions_text().split(", ")
    assert {"6.1", "9.0", "blackpoker/9.0", "duel_masters/1.47", "i_language/1"} <= set(editions)
    assert "i_language: standard" in main._formats_text()


def test_the_board_text_speaks_the_boards_game() -> None:
    """Card names and the word for a character's number come from the board's game."""
    def board(rules: str) -> dict[str, Any]:
        return {"match_id": "m", "rules": rules, "seq": 3, "turn": 1, "turn_player": "bob",
                "chance": "bob", "passed": [], "stage": [], "buffer": [], "players": {
                    "bob": {"field": [{"character": "bob:C1", "kind": "soldier",
                                       "state": "charge", "size": 5, "cards": ["bob:C1"]}]}}}

    bp = board_text(board("blackpoker/9.0"))
    assert "bob:♣A: soldier, charge, size 5 [bob:♣A]" in bp
    dm = board_text(board("duel_masters/1.47"))
    assert "bob:C1: soldier, charge, power 5 [bob:C1]" in dm


def test_a_rule_statement_comes_from_the_findings_game() -> None:
    assert rule_statement("core[12]") == RULE_STATEMENTS["core[12]"]
    assert rule_statement("dm703", "duel_masters") == \
        game_plugin("duel_masters").rule_statements["dm703"]
    assert rule_statement("dm999", "duel_masters") == \
        "a Duel Masters rule (no summary recorded for dm999)"
    assert rule_statement("zz1") == "a rule (no summary recorded for zz1)"


def test_version_names_the_installed_package() -> None:
    from importlib.metadata import version

    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"coreflow {version('coreflow-judge')}"


def test_matches_lists_the_recorded_matches_with_filters(tmp_path: Path) -> None:
    store = str(tmp_path / "m.db")
    assert invoke("record", ROOT / "fixtures" / "sample-match.jsonl", "--store", store
                  ).exit_code == 0
    assert invoke("record", DISPUTED, "--store", store).exit_code == 0
    listed = invoke("matches", "--store", store, "--format", "json")
    assert listed.exit_code == 0
    rows = json.loads(listed.stdout)
    assert [r["match_id"] for r in rows] == ["sample-2026-r3-t7", "demo-1"]
    sample = rows[0]
    assert sample["game"] == "blackpoker" and sample["players"] == ["alice", "bob"]
    assert sample["result"] == "bob wins" and sample["lines"] == 476
    assert rows[1]["result"] is None
    assert {r["store"] for r in rows} == {store}  # each row names the store it lists
    text = invoke("matches", "--store", store, "--player", "carol")
    assert text.exit_code == 0 and "no recorded match matches the filter" in text.stdout
    only = invoke("matches", "--store", store, "--game", "blackpoker", "--player", "bob")
    assert [ln.split()[0] for ln in only.stdout.splitlines()] == ["sample-2026-r3-t7", "demo-1"]


def test_record_takes_many_logs_and_directories_in_one_process(tmp_path: Path) -> None:
    """A tournament directory and a single file in one call; one log that cannot be
    recorded is reported and does not stop the others, each log all or nothing."""
    store = str(tmp_path / "m.db")
    tournament = ROOT / "fixtures" / "tournament"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq": 1, "type": "nonsense"}\n', encoding="utf-8")
    result = invoke("record", tournament, bad, DISPUTED, "--store", store)
    assert result.exit_code == 2  # the unreadable one
    recorded = result.stdout.split()
    assert len(recorded) == len(list(tournament.glob("*.jsonl"))) + 1
    assert "demo-1" in recorded and "bad.jsonl" in result.stderr
    listed = json.loads(invoke("matches", "--store", store, "--format", "json").stdout)
    assert [r["match_id"] for r in listed] == recorded
    again = invoke("record", DISPUTED, "--store", store)
    assert again.exit_code == 0 and "same content; nothing to write" in again.stderr


def test_readme_one_mistake_examples_are_what_the_cli_prints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    for name in ("turn-twice-9.0", "end-on-the-stage-9.0"):
        log = f"fixtures/rulings/lite/{name}.jsonl"
        judged = invoke("judge", log)
        assert judged.exit_code == 1
        assert readme_block_after(f"`coreflow judge {log}`") == judged.stdout
