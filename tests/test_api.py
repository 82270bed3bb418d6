"""The public Python API (issue 24, item 9): docs/api.md's worked example runs as written,
and the package is what it says (lazy names, ``__all__``, typed answers).

Every ``python`` block of docs/api.md runs, in order, in one namespace, from the
repository's root; a ``text`` block right after one is exactly what it printed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from coreflow_judge.events.models import MatchStarted

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"
NO_ARROW = ("Arrow tables need the pyarrow package, which coreflow does not install: "
            "pip install pyarrow")


def blocks() -> list[tuple[str, str | None]]:
    """The page's python blocks, each with the text block that follows it (or None)."""
    found = re.findall(r"```(python|text)\n(.*?)```", PAGE.read_text(encoding="utf-8"),
                       flags=re.S)
    out: list[tuple[str, str | None]] = []
    for kind, body in found:
        if kind == "python":
            out.append((body, None))
        elif out and out[-1][1] is None:
            out[-1] = (out[-1][0], body)
    return out


def test_the_pages_example_runs_and_prints_what_it_shows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COREFLOW_STORE", raising=False)
    monkeypatch.delenv("COREFLOW_AUDIT", raising=False)
    # The page runs `coreflow` as a user's shell finds it: beside this interpreter.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}"
                               f"{os.environ.get('PATH', '')}")
    namespace: dict[str, object] = {"__name__": "docs_api"}
    ran = 0
    for n, (code, shown) in enumerate(blocks(), start=1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/api.md block {n}", "exec"), namespace)  # noqa: S102
        ran += 1
        if shown is None:
            assert out.getvalue() == "", f"block {n} prints what the page does not show"
            continue
        if importlib.util.find_spec("pyarrow") is None:
            shown = shown.replace("Table 16\n", NO_ARROW + "\n")
        assert out.getvalue() == shown, f"block {n}"
    assert ran >= 8


def test_importing_the_package_loads_nothing_else() -> None:
    code = ("import sys, coreflow_judge as cf\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in "
            "('pydantic', 'duckdb', 'eventsourcing', 'yaml')]\n"
            "ours = sorted(m for m in sys.modules if m.startswith('coreflow_judge'))\n"
            "print(heavy, ours)\n"
            "cf.judge\n"
            "print('coreflow_judge._log' in sys.modules, 'duckdb' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.stdout.splitlines() == ["[] ['coreflow_judge']", "True False"], done.stderr


def test_every_public_name_is_there_and_nothing_else() -> None:
    import coreflow_judge as cf

    for name in cf.__all__:
        assert getattr(cf, name) is not None, name
    assert set(dir(cf)) >= set(cf.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        cf.nope  # noqa: B018
    assert cf.judge.__doc__ and cf.Table.push.__doc__ and cf.Audit.__doc__


def test_errors_name_what_is_wrong(tmp_path: Path) -> None:
    import coreflow_judge as cf

    with pytest.raises(cf.LogReadError):
        cf.read_log(tmp_path / "absent.jsonl")
    with pytest.raises(cf.NoStore, match="no event store at"):
        cf.matches(str(tmp_path / "absent.db"))
    with pytest.raises(cf.JudgeInputError, match="line 1 must be match_started"):
        cf.judge(cf.parse_log('{"seq":1,"type":"pass","player":"a"}'))
    table = cf.Table({"match_id": "e1", "rules": "9.0", "players": ["alice", "bob"]})
    header = table.lines[0]
    assert isinstance(header, MatchStarted)
    assert (header.rules, header.format) == ("blackpoker/9.0", "lite")
    with pytest.raises(cf.NotationError):
        table.push("alice frobnicate >>")
    with pytest.raises(ValueError, match="has started"):
        table.push({"type": "match_started", "match_id": "x", "game": "blackpoker",
                    "rules": "blackpoker/9.0", "format": "lite", "players": ["a", "b"],
                    "log_format": 1})


def test_a_table_kept_in_a_store_is_the_match_play_records(tmp_path: Path) -> None:
    """A Table with a store records as ``coreflow play`` does: ``load_match`` reads back
    what was accepted, a resumed table goes on, an unknown id names the store and the
    near ids."""
    import coreflow_judge as cf

    store = str(tmp_path / "t.db")
    header = {"match_id": "live-1", "rules": "blackpoker/9.0", "players": ["alice", "bob"]}
    with cf.Table(header, store=store) as table:
        assert table.push("start alice").accepted
        assert not table.push("bob pass").accepted
        assert table.push("alice pass").accepted
        kept = table.lines
    loaded = cf.load_match("live-1", store)
    def plain(lines: list) -> list[dict]:  # the lines without their chain hashes
        return [line.model_dump(exclude={"hash"}) for line in lines]

    assert plain(loaded.lines) == plain(kept)
    with cf.Table.resume("live-1", store) as again:
        assert plain(again.lines) == plain(kept)
        assert again.push("bob pass").accepted
    assert len(cf.load_match("live-1", store)) > len(kept)
    with pytest.raises(cf.MatchNotRecorded, match=r"no match 'live-2' is recorded in .*t\.db; "
                       r"did you mean live-1\?"):
        cf.load_match("live-2", store)
    [summary] = cf.matches(store)
    assert summary.match_id == "live-1" and summary.outcome is None and summary.errors == 0


def test_undo_finish_and_the_complete_log(tmp_path: Path) -> None:
    """A correction takes the last entry back (a ``taken_back`` line, nothing deleted);
    the complete log of a file is what ``coreflow normalize`` prints."""
    import coreflow_judge as cf

    table = cf.Table({"match_id": "u1", "rules": "blackpoker/9.0",
                      "players": ["alice", "bob"]})
    table.push("start alice")
    table.push("alice pass")
    before = len(table.lines)
    taken = table.undo("a slip")
    assert taken is not None and taken.type == "taken_back" and taken.reason == "a slip"
    assert len(table.lines) == before + 1 and table.next_step().holder == "alice"
    assert table.undo(entries=5) is None  # fewer entries stand
    new = table.finish()  # what the rules derive after the last entry, stored last
    assert table.lines[len(table.lines) - len(new):] == new and table.judge().errors == 0
    log = cf.read_log(ROOT / "fixtures" / "examples" / "disputed-counter.jsonl")
    normalized = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv[0] = 'coreflow'; "
         "from coreflow_judge.cli.main import app; app()", "normalize", str(log.source)],
        capture_output=True, text=True, timeout=300)
    assert log.complete_jsonl() == normalized.stdout


def test_arrow_and_dataframes_when_installed_and_a_clear_word_when_not(tmp_path: Path) -> None:
    import coreflow_judge as cf

    store = str(tmp_path / "a.db")
    with cf.Table({"match_id": "a1", "rules": "9.0", "players": ["alice", "bob"]},
                  store=store) as table:
        table.push("start alice")
    with cf.Audit(store) as audit:
        assert audit.tables[0] == "matches"
        assert [row[0] for row in audit.table("matches").fetchall()] == ["a1"]
        for method, package in ((audit.arrow, "pyarrow"), (audit.df, "pandas")):
            if importlib.util.find_spec(package) is None:
                with pytest.raises(ImportError, match=f"pip install {package}"):
                    method("SELECT match_id FROM matches")
            else:
                answer = method("SELECT match_id FROM matches")
                assert len(answer) == 1
        with pytest.raises(Exception, match="only queries run here"):
            audit.rows("DELETE FROM matches")
    with pytest.raises(ValueError, match="closed"):
        audit.rows("SELECT 1")
