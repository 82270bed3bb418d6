"""Shared pytest configuration: markers, and the Hypothesis profile of the run.

The profile (``ci`` unless ``HYPOTHESIS_PROFILE`` names another) is loaded when pytest is
configured, before any test module is imported, so every property test's settings build
on it; the profiles themselves are in tests/hypothesis_profiles.py.
"""

from __future__ import annotations

import pytest

from tests.hypothesis_profiles import load_profile


def pytest_configure(config: pytest.Config) -> None:
    load_profile()
    config.addinivalue_line(
        "markers",
        "postgres: needs a PostgreSQL server (set COREFLOW_TEST_POSTGRES to a postgresql:// URL)",
    )
