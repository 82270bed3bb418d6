"""Shared pytest configuration: markers, the Hypothesis profile of the run, the cache
folder of the checked edition data, and a quiet end of an xdist worker.

The profile (``ci`` unless ``--hypothesis-profile`` or ``HYPOTHESIS_PROFILE`` names
another) is loaded when pytest is configured, before any test module is imported, so
every property test's settings build on it; the profiles themselves are in
tests/hypothesis_profiles.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from tests.hypothesis_profiles import load_profile

QUICK_TESTS = frozenset({
    "test_flow.py", "test_flow_structure.py", "test_policies.py", "test_card_refs.py",
    "test_empty_choices.py", "test_missed_end.py", "test_blackpoker.py",
    "test_judge_paths.py", "test_edition_cache.py", "test_hypothesis_profiles.py",
    "test_named_errors.py", "test_true_messages.py", "test_next_step.py",
})
"""The test files of the quick subset (``python -m pytest -m quick``, under a minute on
a 2-core machine): the core flow, the judge's paths, one game's rules and its findings'
words, without simulated pools, subprocesses or stores."""
QUICK_RULINGS = frozenset({"lite", "duel_masters", "i_language"})
"""The folders of ruling fixtures (``fixtures/rulings/<folder>``) the quick subset judges:
BlackPoker lite and the other two games; the whole suite judges every folder."""


def _quick_only(config: pytest.Config) -> bool:
    return str(config.getoption("markexpr", "") or "").strip() == "quick"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m quick`` alone, the other test files are not even imported (importing
    every test module costs the quick subset several seconds)."""
    if _quick_only(config) and collection_path.suffix == ".py" and \
            collection_path.name.startswith("test_") and \
            collection_path.name not in QUICK_TESTS:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``quick`` marker on the quick subset's tests and ruling fixtures."""
    quick = pytest.mark.quick
    for item in items:
        path = item.path
        if (path.parent.name == "tests" and path.name in QUICK_TESTS) or (
                path.parent.parent.name == "rulings" and path.parent.name in QUICK_RULINGS):
            item.add_marker(quick)


def pytest_configure(config: pytest.Config) -> None:
    load_profile(config.getoption("hypothesis_profile", default=None))
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


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """An xdist worker whose results are all in ignores SIGINT from here on.

    When the run ends, execnet asks each worker to stop and, if the worker is still busy
    after 5 seconds (letting go of a session's pools of simulated games takes that long on
    a busy 2-core machine), sends it a SIGINT to hurry it. That interrupt used to land in
    whatever Python code the worker's garbage collection was running, Hypothesis's
    ``gc_callback``, which printed a ``KeyboardInterrupt`` traceback at the end of a green
    run (the interrupt itself is swallowed there: it never stopped anything). Every result
    has been sent by now, so the worker finishes as it would have, in silence."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
