"""The README's table of exit statuses, held true for every command (issue 24, item 8).

The table (README.md, "Exit status") is read from the README itself: a row per command,
a column per status. Every cell that names a case is played through the real
``coreflow`` command in a subprocess, and the status it exits with must be the column's;
the table's commands must be exactly the commands ``coreflow`` has; and every command
exits 2 on a usage error, as the table's preamble says.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli_conventions import coreflow

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"  # an error finding
SAMPLE = ROOT / "fixtures" / "sample-match.jsonl"  # no finding at all


def run(args: list[str], stdin: str | None = None, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COREFLOW_STORE", "COREFLOW_AUDIT")}
    done = subprocess.run([*coreflow(), *args], input=stdin, text=True, capture_output=True,
                          timeout=600, cwd=cwd, env=env,
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, (args, done.stderr)
    return done


def readme_table() -> dict[str, dict[int, str]]:
    """The README's exit-status table: command -> {status: what it means} ('-': never)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit status\n", 1)[1]
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    out: dict[str, dict[int, str]] = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        command = cells[0].strip("`")
        out[command] = {code: cell for code, cell in enumerate(cells[1:]) if cell != "-"}
    return out


def cli_commands() -> set[str]:
    """Every command ``coreflow`` has, a group's as ``group sub``."""
    import typer
    from coreflow_judge.cli.main import app

    out: set[str] = set()
    root: Any = typer.main.get_command(app)
    for name, command in root.commands.items():
        sub = getattr(command, "commands", None)
        if sub:
            out |= {f"{name} {s}" for s in sub}
        else:
            out.add(name)
    return out


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with the disputed game and the sample recorded, and the files the cases
    use: a changed log under a recorded id, an unreadable log, a frozen fixture."""
    tmp = tmp_path_factory.mktemp("exit")
    done = run(["record", str(DISPUTED), str(SAMPLE), "--store", str(tmp / "store.db")])
    assert done.returncode == 0, done.stderr
    (tmp / "changed.jsonl").write_text(
        DISPUTED.read_text(encoding="utf-8").replace('"bob:C3"', '"bob:C9"'), encoding="utf-8")
    (tmp / "garbage.jsonl").write_text('{"seq": 1, "type": "nonsense"}\n', encoding="utf-8")
    for name in ("same", "changed", "unreadable"):
        (tmp / name).mkdir()
        done = run(["fixture", "new", str(DISPUTED), "--name", "counter", "--dir",
                    str(tmp / name)])
        assert done.returncode == 0, done.stderr
    data = json.loads((tmp / "changed" / "counter.expected.json").read_text(encoding="utf-8"))
    data["board"]["chance"] = "nobody"
    (tmp / "changed" / "counter.expected.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp / "unreadable" / "counter.expected.json").write_text("{not json", encoding="utf-8")
    return tmp


def cases(tmp: Path) -> dict[tuple[str, int], tuple[list[str], str | None]]:
    """(command, status) -> the arguments (and standard input) of a case of that cell."""
    store = ["--store", str(tmp / "store.db")]
    absent = ["--store", str(tmp / "absent.db")]
    new_match = ["--rules", "9.0", "--player", "alice", "--player", "bob"]
    return {
        ("judge", 0): ([str(SAMPLE)], None),
        ("judge", 1): ([str(DISPUTED)], None),
        ("judge", 2): (["demo-9", *store], None),
        ("record", 0): ([str(DISPUTED), *store], None),  # the same log again
        ("record", 1): ([str(tmp / "changed.jsonl"), *store], None),
        ("record", 2): ([str(tmp / "garbage.jsonl"), *store], None),
        ("play", 0): (["--match-id", "p0", *new_match, "--store", str(tmp / "p0.db")],
                      "start alice\nalice pass\n"),
        ("play", 1): (["--match-id", "p1", *new_match, "--store", str(tmp / "p1.db")],
                      "start alice\nbob pass\n"),  # bob holds no chance: refused
        ("play", 2): (["--resume", "demo-9", *store], ""),
        ("matches", 0): (store, None),
        ("matches", 2): (absent, None),
        ("standings", 0): (store, None),
        ("standings", 2): (absent, None),
        ("board", 0): ([str(DISPUTED), "--at", "8"], None),
        ("board", 2): (["demo-9", *store], None),
        ("view", 0): ([str(DISPUTED), "--html", str(tmp / "page.html")], None),
        ("view", 2): (["demo-9", *store, "--html", str(tmp / "none.html")], None),
        ("log", 0): (["demo-1", *store], None),
        ("log", 2): (["demo-9", *store], None),
        ("normalize", 0): ([str(DISPUTED)], None),
        ("normalize", 2): ([str(tmp / "garbage.jsonl")], None),
        ("verify", 0): (["demo-1", *store], None),
        ("verify", 1): ([str(DISPUTED)], None),  # a log no hash chain was written for
        ("verify", 2): (["demo-9", *store], None),
        ("schema", 0): ([], None),
        ("simulate", 0): (["--rules", "9.0", "--out", str(tmp / "sim")], None),
        ("simulate", 2): (["--rules", "chess", "--out", str(tmp / "sim2")], None),
        ("audit", 0): (["SELECT count(*) FROM matches", *store], None),
        ("audit", 1): (["DROP TABLE matches", *store], None),
        ("audit", 2): (["SELECT 1", *absent], None),
        ("export", 0): (["--parquet", str(tmp / "parquet"), *store], None),
        ("export", 2): (["--parquet", str(tmp / "parquet2"), *absent], None),
        ("fixture new", 0): ([str(DISPUTED), "--name", "again", "--dir", str(tmp / "new")],
                             None),
        ("fixture new", 2): ([str(DISPUTED), "--name", "a/b", "--dir", str(tmp / "new")],
                             None),
        ("fixture check", 0): ([str(tmp / "same")], None),
        ("fixture check", 1): ([str(tmp / "changed")], None),
        ("fixture check", 2): ([str(tmp / "unreadable")], None),
        ("fixture narrow", 0): ([str(tmp / "same" / "counter.jsonl"), "--board-field", "/stage"],
                                None),  # still unchanged for fixture check: 0
        ("fixture narrow", 2): ([str(tmp / "changed" / "counter.jsonl"), "--board-field",
                                 "/stage"], None),  # its ruling changed: refused
        ("serve", 0): (["--port", str(free_port()), "--store", str(tmp / "serve.db")],
                       CTRL_C),
        ("serve", 2): (["--port", "0", "--store", str(tmp / "serve2.db")], None),
    }


CTRL_C = "<ctrl-c>"
"""A case's standard input that says: start the command, and once it has started (a
server prints its organiser's link), press Ctrl-C (SIGINT)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def interrupted(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Start ``coreflow ARGS``, wait for the server's organiser link, then Ctrl-C it."""
    env = {k: v for k, v in os.environ.items() if k not in ("COREFLOW_STORE", "COREFLOW_AUDIT")}
    proc = subprocess.Popen([*coreflow(), *args], text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert proc.stderr is not None
    said: list[str] = []
    deadline = time.monotonic() + 300
    try:
        for text in proc.stderr:
            said.append(text)
            if text.startswith("organiser:") or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = "".join(said) + err
    assert "Traceback" not in err, (args, err)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_the_table_names_every_command_and_only_those() -> None:
    table = readme_table()
    assert set(table) == cli_commands()
    assert all(0 in codes for codes in table.values())


def test_every_cell_of_the_table_is_what_the_command_exits_with(place: Path) -> None:
    table = readme_table()
    wanted = cases(place)
    cells = {(command, code) for command, codes in table.items() for code in codes}
    assert set(wanted) == cells, "a case for each cell the table fills, and only those"
    # The commands that open the store's audit database take turns (DuckDB lets one
    # process write it at a time); the others run four at a time.
    shared = {"audit", "export", "matches", "standings"}
    keys = sorted(wanted, key=lambda key: (key[0].split()[0] in shared, key))

    def one(key: tuple[str, int]) -> subprocess.CompletedProcess[str]:
        if wanted[key][1] == CTRL_C:
            return interrupted([*key[0].split(), *wanted[key][0]], place)
        return run([*key[0].split(), *wanted[key][0]], wanted[key][1], place)

    alone = [k for k in keys if k[0].split()[0] not in shared]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(one, alone))
    done += [one(k) for k in keys if k[0].split()[0] in shared]
    wrong = [(key, result.returncode, result.stderr.strip()[:200])
             for key, result in zip(keys, done, strict=True) if result.returncode != key[1]]
    assert wrong == []
    for (command, code), result in zip(keys, done, strict=True):
        if code == 2:  # the input could not be used: one line on stderr
            assert result.stderr.count("\n") == 1, (command, result.stderr)
        if code == 1:  # the answer is no, and the command says why
            assert (result.stdout + result.stderr).strip(), command


def test_a_usage_error_is_2_for_every_command(tmp_path: Path) -> None:
    commands = sorted(cli_commands())
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(lambda c: run([*c.split(), "--no-such-option"], "", tmp_path),
                             commands))
    assert [(c, r.returncode) for c, r in zip(commands, done, strict=True)] == \
        [(c, 2) for c in commands]
    for command, result in zip(commands, done, strict=True):
        assert result.stderr.count("\n") == 1 and "--no-such-option" in result.stderr, command


def test_an_unknown_match_names_the_store_and_the_ids_near_it(place: Path) -> None:
    store = str(place / "store.db")
    near = "; recorded ids near it: demo-1\n"
    for args in (["judge", "demo-9"], ["board", "demo-9"], ["fixture", "new", "demo-9",
                                                              "--name", "x"]):
        done = run([*args, "--store", store], cwd=place)
        assert done.returncode == 2
        assert done.stderr == (f"coreflow: 'demo-9' is neither a log file nor a match "
                               f"recorded in {store}{near}"), done.stderr
    for args in (["log", "demo-9"], ["verify", "demo-9"], ["play", "--resume", "demo-9"]):
        done = run([*args, "--store", store], "", cwd=place)
        assert done.returncode == 2
        assert done.stderr == f"coreflow: no match 'demo-9' is recorded in {store}{near}"
    far = run(["log", "zzz", "--store", store])
    assert far.stderr == (f"coreflow: no match 'zzz' is recorded in {store} (it holds 2 "
                          "matches: coreflow matches lists them)\n")


def test_rules_of_no_game_list_the_games(tmp_path: Path) -> None:
    games = re.compile(r"the games: blackpoker/6\.1, blackpoker/9\.0 \(or 6\.1, 9\.0\); "
                       r"duel_masters/1\.47; i_language/1$")
    done = run(["play", "--rules", "chess", "--match-id", "x", "--player", "a", "--player",
                "b", "--store", str(tmp_path / "s.db")], "")
    assert done.returncode == 2 and games.search(done.stderr.strip()), done.stderr
    assert not (tmp_path / "s.db").exists()  # nothing was started
    done = run(["simulate", "--rules", "chess", "--out", str(tmp_path / "out")])
    assert done.returncode == 2 and "the games with a simulator: blackpoker/6.1" in done.stderr
    assert not (tmp_path / "out").exists()
