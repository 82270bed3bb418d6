"""The Hypothesis profiles of the test suite, and each property test's example count.

Three profiles, chosen with pytest's ``--hypothesis-profile NAME`` (Hypothesis's own
option) or the environment variable ``HYPOTHESIS_PROFILE`` (the option wins):

``ci`` (the default, so plain ``python -m pytest`` and ``.ci/run`` are deterministic)
    ``derandomize``: every run tries the same examples (drawn from a hash of the test),
    so a red CI run is red again on a developer's machine; no example database (nothing
    read from, or written to, ``.hypothesis/``); ``print_blob``: a failure prints the
    ``@reproduce_failure`` line that replays it; no deadline (the machine is shared).
    Each property test is sized for CI: the examples it asks for with :func:`examples`.

``deep`` (``python -m pytest --hypothesis-profile deep tests/``)
    the same, deterministic, with :data:`DEEP_FACTOR` times as many examples: a long run
    before a release, or after a change to the judge or a simulator, that still gives the
    same examples every time.

``explore`` (``python -m pytest --hypothesis-profile explore tests/``)
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
DEEP = "deep"
EXPLORE = "explore"
#: How many more examples the ``deep`` profile tries than ``ci``.
DEEP_FACTOR = 5
#: How many more examples the ``explore`` profile tries than ``ci``.
EXPLORE_FACTOR = 5
FACTORS = {CI: 1, DEEP: DEEP_FACTOR, EXPLORE: EXPLORE_FACTOR}

settings.register_profile(CI, derandomize=True, database=None, print_blob=True,
                          deadline=None)
settings.register_profile(DEEP, derandomize=True, database=None, print_blob=True,
                          deadline=None)
settings.register_profile(EXPLORE, derandomize=False, print_blob=True, deadline=None)

_chosen: str | None = None
"""The profile pytest's ``--hypothesis-profile`` chose, once :func:`load_profile` ran."""


def profile_name() -> str:
    """The profile this run uses: ``--hypothesis-profile``, else ``HYPOTHESIS_PROFILE``,
    else ``ci``."""
    return _chosen or os.environ.get("HYPOTHESIS_PROFILE", CI)


def load_profile(option: str | None = None) -> None:
    """Make the chosen profile the default settings (conftest calls this first, with the
    value of ``--hypothesis-profile``)."""
    global _chosen
    if option and option not in FACTORS:
        raise pytest.UsageError(
            f"--hypothesis-profile {option!r}: known profiles are {', '.join(FACTORS)}")
    _chosen = option or None
    name = profile_name()
    if name not in FACTORS:
        raise pytest.UsageError(
            f"HYPOTHESIS_PROFILE={name!r}: known profiles are {', '.join(FACTORS)}")
    settings.load_profile(name)


def examples(n: int, **kwargs: Any) -> settings:
    """Settings for a property test that needs ``n`` examples in ``ci`` (``n`` times
    :data:`DEEP_FACTOR` in ``deep``, :data:`EXPLORE_FACTOR` in ``explore``); other
    keywords as :class:`settings` takes."""
    return settings(max_examples=n * FACTORS.get(profile_name(), 1), **kwargs)
