"""Packaging: what a user's environment gets from installing coreflow, and what it keeps.

(a) The wheel installs one import package, ``coreflow_judge`` (its ``__init__.py`` the
    public API, from the folder ``api/``), and the ``coreflow`` command works in a fresh
    environment where another distribution's package named ``events`` comes first on the
    path (PyPI has one).
(b) The ruling-fixture plugin runs only where asked for: not in a pytest run of another
    directory of the same environment, unless that run loads it with ``-p``.
(c) A store written before the move under ``coreflow_judge`` (events stored under the
    topics ``events.store:Recorded...``) still reads.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.rulings import freeze
from coreflow_judge.cli.main import app
from coreflow_judge.events.store import LEGACY_TOPIC_MODULE
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
SAMPLE = ROOT / "fixtures" / "sample-match.jsonl"
#: What the wheel is built from: the distribution's files and the installed folders.
SOURCES = ("setup.py", "pyproject.toml", "README.md",
           "api", "adjudicator", "events", "projections", "cli", "audit")
NAMESPACE = "coreflow_judge"
#: Another distribution's top-level ``events`` package, as a user may have installed it.
FOREIGN_EVENTS = '"""Not coreflow\'s: an unrelated distribution\'s package."""\nFOREIGN = True\n'


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=timeout)


def clean_env() -> dict[str, str]:
    """This process's environment without what would point a child at this checkout or
    at this pytest run."""
    drop = ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "COREFLOW_STORE")
    return {k: v for k, v in os.environ.items() if k not in drop}


# ------------------------------------------------------------------ (a) the wheel
@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built (``pip wheel --no-deps``) from a copy of the repository's sources,
    so the build leaves nothing in the checkout."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copyfile(path, src / name)
    # The build backend of this environment (the test extras carry the setuptools that
    # pyproject.toml's build-system names): no isolated environment to fetch it into.
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                "--quiet", "-w", tmp / "dist", src, cwd=tmp, env=clean_env())
    assert built.returncode == 0, built.stdout + built.stderr
    [found] = (tmp / "dist").glob("coreflow_judge-*.whl")
    return found


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed, a foreign ``events`` package in
    its site-packages, and the dependencies read from this environment's site-packages
    (a ``.pth`` file after its own, so the install is fast and offline)."""
    venv = tmp_path_factory.mktemp("venv") / "fresh"
    made = run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=venv.parent)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                  cwd=venv.parent)
    site = Path(purelib.stdout.strip())
    # The wheel first: with this environment's site-packages already on its path, pip
    # would find coreflow-judge installed there and install nothing.
    installed = run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
                    "--no-deps", "--no-index", wheel, cwd=venv.parent, env=clean_env())
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert (site / NAMESPACE / "events" / "models.py").is_file(), "the wheel is installed"
    (site / "events").mkdir()
    (site / "events" / "__init__.py").write_text(FOREIGN_EVENTS, encoding="utf-8")
    (site / "zz-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n",
                                              encoding="utf-8")
    return venv


def test_the_wheel_installs_one_import_package_and_no_pytest_plugin(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        tops = {n.split("/", 1)[0] for n in names}
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        entries = zf.read(entry_points).decode("utf-8")
    assert {t for t in tops if not t.endswith(".dist-info")} == {NAMESPACE}
    for folder in ("adjudicator", "events", "projections", "cli", "audit"):
        assert f"{NAMESPACE}/{folder}/__init__.py" in names
    # The package itself is the public API (api/ in the repository), typed.
    for module in ("__init__.py", "_log.py", "_table.py", "_store.py", "py.typed"):
        assert f"{NAMESPACE}/{module}" in names
    assert not any(n.startswith(f"{NAMESPACE}/api/") for n in names)
    # The games' edition data came along (package data).
    assert any(n.startswith(f"{NAMESPACE}/adjudicator/games/") and n.endswith(".yaml")
               for n in names)
    # And the viewer's page: its template, style and script.
    for asset in ("page.html", "viewer.css", "viewer.js"):
        assert f"{NAMESPACE}/cli/viewer_assets/{asset}" in names
    assert "[console_scripts]" in entries and "coreflow = coreflow_judge.cli.main:app" in entries
    assert "pytest11" not in entries


def test_the_command_works_beside_another_package_named_events(fresh_venv: Path,
                                                                tmp_path: Path) -> None:
    bin_dir = fresh_venv / "bin"
    env = {**clean_env(), "COREFLOW_STORE": str(tmp_path / "store.db")}
    foreign = run(bin_dir / "python", "-c", "import events; print(events.FOREIGN)",
                  cwd=tmp_path, env=env)
    assert (foreign.returncode, foreign.stdout) == (0, "True\n"), foreign.stderr
    where = run(bin_dir / "python", "-c",
                "import coreflow_judge.events.models as m; print(m.__file__)",
                cwd=tmp_path, env=env)
    assert where.stdout.startswith(str(fresh_venv)), where.stdout + where.stderr
    api = run(bin_dir / "python", "-c",
              f"import coreflow_judge as cf; r = cf.judge(cf.read_log({str(DISPUTED)!r})); "
              "print(cf.__version__, cf.__file__, r.errors)",
              cwd=tmp_path, env=env)
    version, path, errors = api.stdout.split()
    assert (version, errors) == (_installed_version(), "1"), api.stderr
    assert path.startswith(str(fresh_venv)) and path.endswith("coreflow_judge/__init__.py")

    schema = run(bin_dir / "coreflow", "schema", cwd=tmp_path, env=env)
    assert schema.returncode == 0, schema.stderr
    assert "Traceback" not in schema.stderr
    assert json.loads(schema.stdout)["$schema"].startswith("https://json-schema.org/")

    judged = run(bin_dir / "coreflow", "judge", DISPUTED, cwd=tmp_path, env=env)
    assert judged.returncode == 1, judged.stderr  # the log has an error finding
    assert "Traceback" not in judged.stderr
    assert judged.stdout.startswith("match demo-1  (blackpoker/9.0, 12 lines)")
    assert "seq 11  legality.effect-mismatch  [error]" in judged.stdout
    as_json = run(bin_dir / "coreflow", "judge", DISPUTED, "--format", "json",
                  cwd=tmp_path, env=env)
    here = CliRunner().invoke(app, ["judge", str(DISPUTED), "--format", "json"])
    assert json.loads(as_json.stdout) == json.loads(here.stdout)
    viewed = run(bin_dir / "coreflow", "view", DISPUTED, "--html", tmp_path / "demo.html",
                 cwd=tmp_path, env=env)
    assert viewed.returncode == 0, viewed.stderr  # the installed page has its assets
    assert '"use strict"' in (tmp_path / "demo.html").read_text(encoding="utf-8")


def _installed_version() -> str:
    from importlib.metadata import version

    return version("coreflow-judge")


# ------------------------------------------------------------------ (b) the ruling plugin
def test_the_ruling_plugin_runs_only_where_asked_for(tmp_path: Path) -> None:
    """A pytest run of another directory does not collect ruling fixtures; the same run
    with ``-p coreflow_judge.adjudicator.pytest_plugin`` judges them."""
    project = tmp_path / "elsewhere"
    freeze(DISPUTED, "counter-3", "bob's ♣3 against ♠9", project)
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    plain = run(*pytest, project, cwd=project, env=clean_env())
    assert plain.returncode == 5, plain.stdout + plain.stderr  # pytest's "no tests ran"
    assert "collected 0 items" in plain.stdout and "counter-3" not in plain.stdout
    asked = run(*pytest, "-p", "coreflow_judge.adjudicator.pytest_plugin", project,
                cwd=project, env=clean_env())
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "collected 1 item" in asked.stdout and "counter-3.expected.json" in asked.stdout
    assert "1 passed" in asked.stdout


# ------------------------------------------------------------------ (c) old stores
def test_a_store_written_under_the_old_module_path_still_reads(tmp_path: Path) -> None:
    store = tmp_path / "old.db"
    cli = CliRunner()
    recorded = cli.invoke(app, ["record", str(SAMPLE), "--store", str(store)])
    assert recorded.exit_code == 0, recorded.output
    match_id = recorded.stdout.strip()
    exported = cli.invoke(app, ["log", match_id, "--store", str(store)])
    judged = cli.invoke(app, ["judge", match_id, "--store", str(store), "--format", "json"])
    assert exported.exit_code == 0 and judged.exit_code == 0

    prefix = f"{NAMESPACE}.{LEGACY_TOPIC_MODULE}:"
    with sqlite3.connect(store) as db:
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")
            if "topic" in [c[1] for c in db.execute(f"PRAGMA table_info('{name}')")]]
        assert tables, "the store keeps its events' topics"
        before = sum(db.execute(f"SELECT count(*) FROM '{t}' WHERE topic LIKE ?",
                                (prefix + "%",)).fetchone()[0] for t in tables)
        for table in tables:
            db.execute(f"UPDATE '{table}' SET topic = ? || substr(topic, ?) "
                       "WHERE topic LIKE ?",
                       (f"{LEGACY_TOPIC_MODULE}:", len(prefix) + 1, prefix + "%"))
        left = sum(db.execute(f"SELECT count(*) FROM '{t}' WHERE topic LIKE ?",
                              (prefix + "%",)).fetchone()[0] for t in tables)
    assert before >= len(SAMPLE.read_text(encoding="utf-8").splitlines()) and left == 0

    again = cli.invoke(app, ["log", match_id, "--store", str(store)])
    assert again.exit_code == 0, again.output
    assert again.stdout == exported.stdout
    rejudged = cli.invoke(app, ["judge", match_id, "--store", str(store), "--format", "json"])
    assert rejudged.exit_code == 0, rejudged.output
    assert json.loads(rejudged.stdout) == json.loads(judged.stdout)


# ------------------------------------------------------------------ (d) the README, twice
README_INSTALL = "python3 -m venv .venv && .venv/bin/pip install . && "


def test_the_readmes_first_command_works_twice_in_a_fresh_clone(fresh_venv: Path,
                                                                 tmp_path: Path) -> None:
    """The README's first command, run as written after its install step, twice in a row
    in a directory laid out like a fresh clone: the second run finds the sample already
    recorded (the same log: nothing to write, exit 0) and the ``&&`` chain goes on to the
    judge's report."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = readme.split("```sh\n", 1)[1].splitlines()[0]
    assert first.startswith(README_INSTALL), first
    command = first[len(README_INSTALL):]
    clone = tmp_path / "clone"
    (clone / "fixtures").mkdir(parents=True)
    shutil.copyfile(SAMPLE, clone / "fixtures" / SAMPLE.name)
    # The install step's result: the wheel installed in a fresh environment (fresh_venv).
    (clone / ".venv").symlink_to(fresh_venv, target_is_directory=True)
    runs = [run("sh", "-c", command, cwd=clone, env=clean_env()) for _ in range(2)]
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("sample-2026-r3-t7\nmatch sample-2026-r3-t7  "), \
            done.stdout
        assert "result: bob wins" in done.stdout
    assert runs[0].stdout == runs[1].stdout
    assert "already recorded in ./coreflow.db with the same content; nothing to write" in \
        runs[1].stderr
    assert (clone / "coreflow.db").is_file()
