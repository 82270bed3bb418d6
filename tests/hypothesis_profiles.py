"""The Hypothesis profiles of the test suite, and each property test's example count.

Two profiles, chosen with the environment variable ``HYPOTHESIS_PROFILE``:

``ci`` (the default, so plain ``python -m pytest`` and ``.ci/run`` are deterministic)
    ``derandomize``: every run tries the same examples (drawn from a hash of the test),
    so a red CI run is red again on a developer's machine; no example database (nothing
    read from, or written to, ``.hypothesis/``); ``print_blob``: a failure prints the
    ``@reproduce_failure`` line that replays it; no deadline (the machine is shared).

``explore`` (``HYPOTHESIS_PROFILE=explore python -m pytest tests/``)
    random examples, :data:`EXPLORE_FACTOR` times as many, failures kept in the local
    example database. Run it to look for new failing examples; pin each one found on
    the property test with ``@example(...)`` so that ``ci`` checks it from then on.

A property test says how many examples it needs with :func:`examples` (not a
``max_examples`` of its own, which would override the profile).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

CI = "ci"
EXPLORE = "explore"
#: How many more examples the ``explore`` profile tries than ``ci``.
EXPLORE_FACTOR = 5

settings.register_profile(CI, derandomize=True, database=None, print_blob=True,
                          deadline=None)
settings.register_profile(EXPLORE, derandomize=False, print_blob=True, deadline=None)


def profile_name() -> str:
    """The profile this run uses: ``HYPOTHESIS_PROFILE``, else ``ci``."""
    return os.environ.get("HYPOTHESIS_PROFILE", CI)


def load_profile() -> None:
    """Make the chosen profile the default settings (conftest calls this first)."""
    name = profile_name()
    if name not in (CI, EXPLORE):
        raise pytest.UsageError(
            f"HYPOTHESIS_PROFILE={name!r}: known profiles are {CI}, {EXPLORE}")
    settings.load_profile(name)


def examples(n: int, **kwargs: Any) -> settings:
    """Settings for a property test that needs ``n`` examples in ``ci`` (``n`` times
    :data:`EXPLORE_FACTOR` in ``explore``); other keywords as :class:`settings` takes."""
    factor = EXPLORE_FACTOR if profile_name() == EXPLORE else 1
    return settings(max_examples=n * factor, **kwargs)
