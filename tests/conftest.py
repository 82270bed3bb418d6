"""Shared pytest configuration: markers, and the Hypothesis profile of the run.

The profile (``ci`` unless ``HYPOTHESIS_PROFILE`` names another) is loaded when pytest is
configured, before any test module is imported, so every property test's settings build
on it; the profiles themselves are in tests/hypothesis_profiles.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tests.hypothesis_profiles import load_profile


def pytest_configure(config: pytest.Config) -> None:
    load_profile()
    if "COREFLOW_CACHE_DIR" not in os.environ:
        # The checked edition data (adjudicator/games/edition_cache.py) of this run, the
        # commands it starts included, in a folder of its own: a run neither reads a
        # developer's own cache nor leaves anything there.
        folder = tempfile.mkdtemp(prefix="coreflow-test-cache-")
        os.environ["COREFLOW_CACHE_DIR"] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.addinivalue_line(
        "markers",
        "quick: the edit-test loop's subset (python -m pytest -m quick: under a minute)",
    )
    config.addinivalue_line(
        "markers",
        "postgres: needs a PostgreSQL server (set COREFLOW_TEST_POSTGRES to a postgresql:// URL)",
    )
