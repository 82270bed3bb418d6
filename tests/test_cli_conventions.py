"""Command-line conventions of ``coreflow`` (issue 10): what it imports to start, progress
lines on a terminal only, ``-`` for standard input, the store's directory, shell
completion, reports that name their log, and help texts with every placeholder rendered.

Everything runs the real command in a subprocess (a real pipe, a real pseudo-terminal).
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import typer
from coreflow_judge.adjudicator.judge import judge_file
from coreflow_judge.cli.main import _fill_help, app

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
TOURNAMENT = ROOT / "fixtures" / "tournament"


def coreflow() -> list[str]:
    """The installed console script beside this interpreter, else the same entry point."""
    script = Path(sys.executable).parent / "coreflow"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; sys.argv[0] = 'coreflow'; "
            "from coreflow_judge.cli.main import app; app()"]


def run(*args: str | Path, stdin: str | bytes | None = None, cwd: Path | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    data = stdin.decode("utf-8") if isinstance(stdin, bytes) else stdin
    done = subprocess.run([*coreflow(), *map(str, args)], input=data, text=True,
                          capture_output=True, timeout=300, cwd=cwd,
                          env={**os.environ, **(env or {})},
                          stdin=None if data is not None else subprocess.DEVNULL)
    assert "Traceback" not in done.stderr
    return done


def run_on_terminal(*args: str | Path, out: Path, cwd: Path | None = None
                    ) -> tuple[int, str]:
    """Run the command with its standard error on a pseudo-terminal (standard output to
    the file ``out``); return its exit status and everything the terminal received."""
    master, slave = pty.openpty()
    with out.open("wb") as stdout:
        proc = subprocess.Popen([*coreflow(), *map(str, args)], stdin=subprocess.DEVNULL,
                                stdout=stdout, stderr=slave, cwd=cwd,
                                env={**os.environ, "TERM": "xterm"})
    os.close(slave)
    received = bytearray()
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the command closed the terminal's other end
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return proc.wait(timeout=300), received.decode("utf-8", "replace")


def bar_frames(terminal: str, label: str) -> list[str]:
    """The progress lines drawn, e.g. ``['record [....] 0/3', ..., 'record [###] 3/3']``."""
    return re.findall(rf"{re.escape(label)} \[[#.]+\] +\d+/\d+", terminal)


# ------------------------------------------------------------------ start-up


def _imported_by(*args: str) -> set[str]:
    """The modules a fresh ``coreflow ARGS`` has imported when it is done."""
    code = ("import sys, atexit\n"
            "atexit.register(lambda: print('\\n'.join(sorted(sys.modules)), file=sys.stderr))\n"
            "sys.argv = ['coreflow'] + sys.argv[1:]\n"
            "from coreflow_judge.cli.main import app\n"
            "app()\n")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    return set(done.stderr.split())


HEAVY = ("pydantic", "eventsourcing", "duckdb", "psycopg", "yaml", "rich")


def test_help_imports_no_library_and_no_rules() -> None:
    imported = _imported_by("--help")
    assert "coreflow_judge.cli.main" in imported
    assert not {m for m in imported if m.split(".")[0] in HEAVY}
    assert not {m for m in imported if m.endswith(".rules") or ".audit." in m}


def test_judging_a_log_imports_its_games_rules_only() -> None:
    imported = _imported_by("judge", str(DISPUTED))
    assert "coreflow_judge.adjudicator.games.blackpoker.rules" in imported
    assert "coreflow_judge.adjudicator.games.duel_masters.rules" not in imported
    assert "coreflow_judge.adjudicator.games.i_language.rules" not in imported
    assert not {m for m in imported if m.split(".")[0] in ("eventsourcing", "duckdb",
                                                            "psycopg", "rich")}


def test_the_constants_the_cli_names_are_the_librarys() -> None:
    from coreflow_judge.adjudicator import rulings
    from coreflow_judge.audit import projection
    from coreflow_judge.cli import audit, fixture, i18n, options
    from coreflow_judge.events import store
    from coreflow_judge.projections import view

    assert options.STORE_ENV_VAR == store.STORE_ENV_VAR
    assert options.LANG_ENV_VAR == i18n.LANG_ENV_VAR
    assert options.JUDGE_VIEW == view.JUDGE
    assert audit.DEFAULT_TIMEOUT == projection.DEFAULT_TIMEOUT
    assert fixture.DEFAULT_DIR == rulings.DEFAULT_DIR


# ------------------------------------------------------------------ progress lines


def test_batch_record_and_judge_show_a_progress_line_on_a_terminal(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in sorted(p.name for p in TOURNAMENT.glob("*.jsonl"))[:3]:
        shutil.copy(TOURNAMENT / name, logs / name)
    store = tmp_path / "m.db"
    status, terminal = run_on_terminal("record", logs, "--store", store,
                                       out=tmp_path / "record.out")
    assert status == 0, terminal
    frames = bar_frames(terminal, "record")
    assert frames and frames[-1].endswith(" 3/3"), terminal
    assert "\x1b[K" in terminal  # the line is erased, not left behind
    assert len((tmp_path / "record.out").read_text().split()) == 3  # the match ids

    status, terminal = run_on_terminal("judge", logs, "--format", "json",
                                       out=tmp_path / "judge.out")
    assert status in (0, 1), terminal
    assert bar_frames(terminal, "judge")[-1].endswith(" 3/3")
    reports = [json.loads(x) for x in (tmp_path / "judge.out").read_text().splitlines()]
    assert [Path(r["log"]).name for r in reports] == sorted(p.name for p in logs.iterdir())


def test_simulate_audit_and_export_show_a_progress_line_on_a_terminal(tmp_path: Path
                                                                      ) -> None:
    status, terminal = run_on_terminal("simulate", "--rules", "9.0", "--games", "3",
                                       "--out", tmp_path / "sim", out=tmp_path / "sim.out")
    assert status == 0, terminal
    assert bar_frames(terminal, "simulate")[-1].endswith(" 3/3")
    store = tmp_path / "m.db"
    assert run("record", tmp_path / "sim", "--store", store).returncode == 0
    status, terminal = run_on_terminal("audit", "SELECT count(*) AS n FROM matches",
                                       "--store", store, out=tmp_path / "audit.out")
    assert status == 0, terminal
    assert bar_frames(terminal, "audit: refresh")[-1].endswith(" 3/3")
    assert "| 3 |" in (tmp_path / "audit.out").read_text()
    status, terminal = run_on_terminal("export", "--parquet", tmp_path / "pq", "--store",
                                       store, out=tmp_path / "export.out")
    assert status == 0, terminal
    written = (tmp_path / "export.out").read_text().split()
    assert bar_frames(terminal, "export")[-1].endswith(f" {len(written)}/{len(written)}")


def test_piped_output_carries_no_progress_line(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    recorded = run("record", TOURNAMENT, "--store", store)
    assert recorded.returncode == 0
    judged = run("judge", TOURNAMENT, "--format", "json")
    simulated = run("simulate", "--rules", "9.0", "--games", "2", "--out", tmp_path / "s")
    audited = run("audit", "SELECT count(*) FROM matches", "--store", store)
    for done in (recorded, judged, simulated, audited):
        assert "\x1b" not in done.stdout + done.stderr and "\r" not in done.stderr
        assert not re.search(r"\[[#.]+\] +\d+/\d+", done.stderr)
    # What stderr says is exactly the receipts, one line per recorded match, and a summary.
    assert recorded.stderr.count("head hash") == len(recorded.stdout.split())
    assert len(recorded.stderr.splitlines()) == len(recorded.stdout.split()) + 1
    assert recorded.stderr.splitlines()[-1].startswith(
        f"coreflow: recorded {len(recorded.stdout.split())} matches")
    assert judged.stderr == "" and audited.stderr == "" and simulated.stderr == ""


# ------------------------------------------------------------------ - for standard input


def test_judge_board_normalize_and_verify_read_standard_input() -> None:
    text = DISPUTED.read_text(encoding="utf-8")
    judged = run("judge", "-", "--format", "json", stdin=text)
    assert judged.returncode == 1
    assert json.loads(judged.stdout) == judge_file(DISPUTED).as_dict() | {"log": "<stdin>"}
    as_text = run("judge", "-", stdin=text)
    assert as_text.stdout.startswith("match demo-1  (blackpoker/9.0, 12 lines)  <stdin>")

    board = run("board", "-", "--at", "8", "--format", "json", stdin=text)
    assert board.returncode == 0
    data = json.loads(board.stdout)
    assert data["log"] == "<stdin>" and [s["request"] for s in data["stage"]] == ["r2", "r3"]

    normalized = run("normalize", "-", stdin=text)
    assert normalized.returncode == 0
    assert normalized.stdout == run("normalize", DISPUTED).stdout
    verified = run("verify", "-", stdin=normalized.stdout)
    assert verified.returncode == 0
    lines = normalized.stdout.splitlines()
    assert verified.stdout == f"<stdin>: hash chain intact ({len(lines)} lines)\n"


def test_record_reads_standard_input(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    recorded = run("record", "-", "--store", store, stdin=DISPUTED.read_text("utf-8"))
    assert (recorded.returncode, recorded.stdout) == (0, "demo-1\n")
    again = run("record", "-", "--store", store, stdin=DISPUTED.read_text("utf-8"))
    assert again.returncode == 0
    assert again.stderr.startswith("coreflow: <stdin>: match 'demo-1' is already recorded")


def test_errors_on_standard_input_name_it_with_the_line_and_field(tmp_path: Path) -> None:
    lines = DISPUTED.read_text(encoding="utf-8").splitlines()
    lines[6] = '{"seq":7,"type":"pass","player":'
    bad = "\n".join(lines) + "\n"
    for command in ("normalize", "verify"):
        done = run(command, "-", stdin=bad)
        assert done.returncode == 2, command
        assert done.stderr.startswith("coreflow: <stdin>: line 7: field '(json)'"), command
        assert done.stderr.count("\n") == 1
    # The board, like the judge, takes a malformed line as a finding at its line.
    board = run("board", "-", "--format", "json", stdin=bad)
    assert board.returncode == 0 and json.loads(board.stdout)["log"] == "<stdin>"
    store = tmp_path / "m.db"
    recorded = run("record", "-", "--store", store, stdin=bad)
    assert recorded.returncode == 2
    assert recorded.stderr.startswith("coreflow: <stdin>: line 7: field '(json)'")
    assert not store.exists()  # nothing readable, nothing created
    judged = run("judge", "-", stdin='{"seq": 1, "type": "pass", "player": 7}\n')
    assert judged.returncode == 2 and judged.stdout == ""
    assert judged.stderr.startswith("coreflow: <stdin>: line 1: field 'player'")
    twice = run("judge", "-", "-", "--format", "json", stdin=DISPUTED.read_text("utf-8"))
    assert twice.returncode == 2 and json.loads(twice.stdout)["log"] == "<stdin>"
    assert twice.stderr == ("coreflow: <stdin>: standard input is read once; give '-' "
                            "only once\n")


# ------------------------------------------------------------------ the store's directory


def test_record_creates_the_stores_missing_directory(tmp_path: Path) -> None:
    store = tmp_path / "new" / "season 2" / "matches.db"
    recorded = run("record", DISPUTED, "--store", store)
    assert recorded.returncode == 0, recorded.stderr
    assert store.is_file()
    assert run("log", "demo-1", "--store", store).returncode == 0


def test_commands_that_read_refuse_a_missing_store_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "absent" / "matches.db"
    for args in (("log", "demo-1"), ("matches",), ("verify", "demo-1"), ("verify", "--all"),
                 ("judge", "demo-1"), ("board", "demo-1"), ("audit", "SELECT 1")):
        done = run(*args, "--store", store)
        assert done.returncode in (1, 2), args
        assert done.stderr.count("\n") == 1 and f"no event store at {store}" in done.stderr, (
            args, done.stderr)
    assert not (tmp_path / "absent").exists()  # reading never creates anything


# ------------------------------------------------------------------ reports name their log


def test_json_reports_name_their_log_or_store(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    assert run("record", DISPUTED, "--store", store).returncode == 0
    from_store = json.loads(run("judge", "demo-1", "--store", store, "--format", "json").stdout)
    assert from_store["match_id"] == "demo-1" and from_store["store"] == str(store)
    board = json.loads(run("board", "demo-1", "--store", store, "--format", "json").stdout)
    assert board["match_id"] == "demo-1" and board["store"] == str(store)
    board = json.loads(run("board", DISPUTED, "--format", "json").stdout)
    assert board["log"] == str(DISPUTED)
    listed = json.loads(run("matches", "--store", store, "--format", "json").stdout)
    assert [(r["match_id"], r["store"]) for r in listed] == [("demo-1", str(store))]


# ------------------------------------------------------------------ completion


def test_shell_completion_is_typers_own() -> None:
    env = {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    shown = run("--show-completion", "bash", env=env)
    assert shown.returncode == 0 and "_coreflow_completion" in shown.stdout
    completed = run(env={"_COREFLOW_COMPLETE": "complete_bash", "COMP_WORDS": "coreflow ju",
                         "COMP_CWORD": "1"})
    assert (completed.returncode, completed.stdout.split()) == (0, ["judge"])
    completed = run(env={"_COREFLOW_COMPLETE": "complete_bash",
                         "COMP_WORDS": "coreflow judge --for", "COMP_CWORD": "2"})
    assert completed.stdout.split() == ["--format"]
    helped = run("--help")
    assert "--install-completion" in helped.stdout and "--show-completion" in helped.stdout


def test_usage_errors_stay_one_line_with_completion_on() -> None:
    for args, text in ((("--bogus",), "coreflow: no such option: --bogus (see 'coreflow "
                        "--help')\n"),
                       (("judge", "x.jsonl", "--format", "xml"), "coreflow: judge: invalid "
                        "value for '--format': 'xml' is not one of 'text', 'json'"),
                       (("--show-completion", "tcsh-not"), "coreflow: ")):
        done = run(*args, env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
        assert done.returncode == 2, args
        assert done.stderr.startswith(text) and done.stderr.count("\n") == 1, done.stderr


# ------------------------------------------------------------------ help texts


def _command_paths(group: typer.main.TyperGroup | None = None,
                   prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    root = typer.main.get_command(app) if group is None else group
    out = [prefix]
    for name, command in sorted(root.commands.items()):  # type: ignore[attr-defined]
        sub = prefix + (name,)
        if hasattr(command, "commands"):
            out += _command_paths(command, sub)
        else:
            out.append(sub)
    return out


def test_every_help_renders_its_placeholders() -> None:
    """Every command's help: no raw ``{...}``, no Markdown left or eaten, every option and
    argument's own help text shown, and an example for each command."""
    paths = _command_paths()
    assert ("judge",) in paths and ("fixture", "check") in paths and ("audit",) in paths
    for path in paths:
        done = run(*path, "--help", env={"COLUMNS": "200"})
        text = done.stdout
        assert done.returncode == 0 and done.stderr == "", path
        assert text.startswith(f"Usage: {' '.join(('coreflow',) + path)} "), path
        assert not re.search(r"[{}`]|\[\[|\.\.\.\.\.\.|\*\*", text), (path, text)
        assert "<table>" not in text and "\\b" not in text
        command = typer.main.get_command(app)
        for name in path:
            command = command.commands[name]  # type: ignore[attr-defined]
        _fill_help(command)  # the games' words, as the help shows them
        flat = " ".join(text.split())
        for param in command.params:
            helptext = getattr(param, "help", None)
            if helptext:
                assert " ".join(helptext.split()) in flat, (path, helptext)
        if path and not hasattr(command, "commands"):
            assert "Example: coreflow " + " ".join(path) in text, path


def test_each_command_in_one_process_may_read_standard_input_once() -> None:
    """Two commands run in one process (as a program embedding the app would) each read
    their own standard input."""
    from typer.testing import CliRunner

    runner = CliRunner()
    text = DISPUTED.read_text(encoding="utf-8")
    for _ in range(2):
        done = runner.invoke(app, ["judge", "-", "--format", "json"], input=text)
        assert done.exit_code == 1 and json.loads(done.stdout)["log"] == "<stdin>"
