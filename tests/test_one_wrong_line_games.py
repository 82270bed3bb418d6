"""One mistake, one root, in Duel Masters and the i-language game (the property and its
helpers are in tests/test_one_wrong_line.py; a file of its own so that the test runner's
workers share the games)."""

from __future__ import annotations

import pytest
from coreflow_judge.adjudicator.mistakes import Injector

from tests.test_one_wrong_line import one_root_each, params


@pytest.mark.parametrize(("game", "inj"), params("duel_masters", "i_language"))
def test_one_wrong_line_is_one_root(game: str, inj: Injector) -> None:
    one_root_each(game, inj)
