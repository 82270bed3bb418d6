"""Listing the games loads no rules: each plugin names its editions and formats itself,
and they are the ones its rules module and edition data carry."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from coreflow_judge.adjudicator.games.common import load_edition_data
from coreflow_judge.adjudicator.plugins import game_ids, game_plugin

RULES_MODULES = {
    "blackpoker": "coreflow_judge.adjudicator.games.blackpoker.rules",
    "duel_masters": "coreflow_judge.adjudicator.games.duel_masters.rules",
    "i_language": "coreflow_judge.adjudicator.games.i_language.rules",
}


@pytest.mark.parametrize("game", sorted(RULES_MODULES))
def test_a_plugins_editions_and_formats_are_its_datas(game: str) -> None:
    plugin = game_plugin(game)
    rules = importlib.import_module(RULES_MODULES[game])
    assert plugin.editions == rules.EDITIONS
    package = RULES_MODULES[game].rpartition(".")[0]
    in_data = tuple(dict.fromkeys(
        f for e in plugin.editions for f in load_edition_data(package, e)["formats"]))
    assert plugin.formats == in_data


def test_listing_the_games_imports_no_rules_module_and_no_heavy_library() -> None:
    """A fresh interpreter lists every game (what the help does): no rules module, no
    edition data, no pydantic, eventsourcing or DuckDB is imported."""
    code = (
        "import sys\n"
        "from coreflow_judge.adjudicator.plugins import games\n"
        "print(sorted(g.id for g in games()))\n"
        "print(sorted(m for m in sys.modules if m.endswith('.rules') or m in "
        "('yaml', 'pydantic', 'eventsourcing', 'duckdb')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    listed, imported = done.stdout.splitlines()
    assert listed == str(sorted(game_ids()))
    assert imported == "[]"
