"""The suite's Hypothesis profile: deterministic unless a run asks to explore."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import hypothesis_profiles
from tests.hypothesis_profiles import CI, DEEP_FACTOR, EXPLORE_FACTOR, examples, profile_name

DRAWN: list[list[int]] = []


@pytest.mark.skipif(profile_name() != CI, reason="checks the default ci profile")
def test_the_default_profile_is_deterministic() -> None:
    current = settings.default
    assert current is not None
    assert current.derandomize and current.database is None and current.print_blob
    assert current.deadline is None
    assert examples(7).max_examples == 7 and examples(7).derandomize


@pytest.mark.skipif(profile_name() != CI, reason="checks the default ci profile")
def test_a_property_test_draws_the_same_examples_every_run() -> None:
    @examples(15)
    @given(st.lists(st.integers(0, 10**9), min_size=1))
    def draw(xs: list[int]) -> None:
        DRAWN[-1].append(sum(xs))

    for _ in range(2):
        DRAWN.append([])
        draw()
    assert DRAWN[0] == DRAWN[1] and len(DRAWN[0]) == 15


def test_explore_tries_more_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypothesis_profiles, "_chosen", None)
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "explore")
    assert examples(7).max_examples == 7 * EXPLORE_FACTOR


def test_the_pytest_option_chooses_a_deep_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--hypothesis-profile deep``: deterministic, five times the examples; the option
    wins over the environment."""
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "explore")
    monkeypatch.setattr(hypothesis_profiles, "_chosen", "deep")
    assert examples(7).max_examples == 7 * DEEP_FACTOR
    assert settings.get_profile("deep").derandomize
    with pytest.raises(pytest.UsageError, match="known profiles are ci, deep, explore"):
        hypothesis_profiles.load_profile("deeper")
