"""Shared pytest configuration."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "postgres: needs a PostgreSQL server (set COREFLOW_TEST_POSTGRES to a postgresql:// URL)",
    )
