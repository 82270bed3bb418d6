"""The cache of checked edition data (adjudicator/games/edition_cache.py, issue 26): a
start reads what an earlier one checked, any change to the data or the code that checks
it is seen, and a cache that cannot be used is never the user's problem."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.games import edition_cache
from coreflow_judge.adjudicator.games.blackpoker import rules as bp_rules
from coreflow_judge.adjudicator.games.common import load_edition_data
from coreflow_judge.adjudicator.games.duel_masters import rules as dm_rules
from coreflow_judge.adjudicator.games.i_language import rules as il_rules

BP = "coreflow_judge.adjudicator.games.blackpoker"


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A process that has loaded no edition yet, its cache in a folder of its own."""
    monkeypatch.setattr(edition_cache, "_MEMO", {})
    folder = tmp_path / "cache"
    monkeypatch.setenv("COREFLOW_CACHE_DIR", str(folder))
    return folder


class Loader:
    """A loader that counts its calls (each one a parse and a check)."""

    def __init__(self, edition: str = "9.0") -> None:
        self.edition = edition
        self.calls = 0

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return load_edition_data(BP, self.edition)


def start_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new process has: nothing loaded in memory."""
    monkeypatch.setattr(edition_cache, "_MEMO", {})


@pytest.mark.parametrize(("module", "edition"), [(bp_rules, "6.1"), (bp_rules, "9.0"),
                                                 (dm_rules, "1.47"), (il_rules, "1")])
def test_every_edition_reads_back_as_it_was_checked(
        fresh: Path, monkeypatch: pytest.MonkeyPatch, module: Any, edition: str) -> None:
    first = module.load_edition(edition)
    assert list(fresh.iterdir())  # written
    start_again(monkeypatch)
    again = module.load_edition(edition)
    assert again == first and again is not first  # read from the cache, the same data
    assert module.load_edition(edition) is again  # once per process


def test_a_second_start_checks_nothing(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load = Loader()
    edition_cache.checked_data(BP, "edition-9.0", load)
    start_again(monkeypatch)
    edition_cache.checked_data(BP, "edition-9.0", load)
    assert load.calls == 1


def test_an_edited_data_file_is_loaded_and_checked_again(
        fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The package's files seen through a copy whose data file is then edited (same size:
    # the key is of the bytes, not the size or the time).
    copy = tmp_path / "blackpoker"
    shutil.copytree(Path(bp_rules.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    real_files = edition_cache.resources.files

    class Files:
        @staticmethod
        def files(package: str) -> Any:
            return copy if package == BP else real_files(package)

    monkeypatch.setattr(edition_cache, "resources", Files)
    load = Loader()
    before = edition_cache.cache_key(BP, "edition-9.0")
    edition_cache.checked_data(BP, "edition-9.0", load)
    data = copy / "data" / "edition-9.0.yaml"
    text = data.read_bytes()
    data.write_bytes(text.replace(b"#", b"%", 1) if b"#" in text else text + b"\n")
    assert edition_cache.cache_key(BP, "edition-9.0") != before
    start_again(monkeypatch)
    edition_cache.checked_data(BP, "edition-9.0", load)
    assert load.calls == 2
    (copy / "rules.py").write_bytes((copy / "rules.py").read_bytes() + b"\n# changed\n")
    start_again(monkeypatch)
    edition_cache.checked_data(BP, "edition-9.0", load)
    assert load.calls == 3  # the code that checks the data changed too


@pytest.mark.parametrize("damage", ["not json", '{"key": "other", "data": {}}', "[]",
                                    '{"key": null}'])
def test_a_damaged_cache_file_is_loaded_again(
        fresh: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    load = Loader()
    edition_cache.checked_data(BP, "edition-9.0", load)
    (path,) = fresh.iterdir()
    path.write_text(damage, encoding="utf-8")
    start_again(monkeypatch)
    data = edition_cache.checked_data(BP, "edition-9.0", load)
    assert load.calls == 2 and data == load_edition_data(BP, "9.0")
    assert json.loads(path.read_text(encoding="utf-8"))["data"] == data  # written anew


def test_a_cache_that_cannot_be_written_changes_nothing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(edition_cache, "_MEMO", {})
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("COREFLOW_CACHE_DIR", str(blocker / "cache"))
    load = Loader()
    assert edition_cache.checked_data(BP, "edition-9.0", load) == load_edition_data(BP, "9.0")
    assert load.calls == 1 and blocker.read_text(encoding="utf-8") == "not a folder"


def test_no_cache_when_the_folder_is_empty(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setattr(edition_cache, "_MEMO", {})
    monkeypatch.setenv("COREFLOW_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    load = Loader()
    edition_cache.checked_data(BP, "edition-9.0", load)
    start_again(monkeypatch)
    edition_cache.checked_data(BP, "edition-9.0", load)
    assert load.calls == 2 and not list(tmp_path.iterdir())


def test_the_default_folder_is_the_users_cache(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.delenv("COREFLOW_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert edition_cache.cache_dir() == tmp_path / "coreflow"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert edition_cache.cache_dir() == tmp_path / ".cache" / "coreflow"
