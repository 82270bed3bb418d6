"""The stores the store-level tests run on: a new SQLite file, or a new schema of the
PostgreSQL server named by ``$COREFLOW_TEST_POSTGRES`` (``.ci/run`` starts one)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmarks.tournament import drop_postgres_schema, postgres_store, sqlite_store

POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")
NO_POSTGRES = "set COREFLOW_TEST_POSTGRES to a postgresql:// URL"
STORES = [
    "sqlite",
    pytest.param("postgresql", marks=[pytest.mark.postgres,
                                      pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)]),
]
"""The ``params`` of a test module's ``store`` fixture."""


@contextmanager
def fresh_store(kind: str, folder: Path, prefix: str, name: str = "tournament.db"
                ) -> Iterator[str]:
    """A fresh store of ``kind`` (one of :data:`STORES`), not yet created: the SQLite
    file ``folder/name``, or a PostgreSQL schema ``coreflow_PREFIX_...`` dropped after."""
    if kind == "sqlite":
        yield sqlite_store(folder, name)
        return
    assert POSTGRES_URL
    url = postgres_store(POSTGRES_URL, f"coreflow_{prefix}_{uuid.uuid4().hex[:10]}")
    try:
        yield url
    finally:
        drop_postgres_schema(url)
