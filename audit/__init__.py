"""The SQL audit of recorded matches: a DuckDB read model of the event store.

:class:`~audit.projection.AuditDB` keeps the store's audit file (``STORE.audit.duckdb``
beside a SQLite store; see :func:`~audit.projection.default_audit_path`) up to date from
the store's notification log and answers read-only SQL;
:mod:`audit.derive` reads the rows off the judge's engine; :mod:`audit.schema` lists the
tables and columns (documented in docs/audit.md).
"""

from coreflow_judge.audit.projection import (
    AUDIT_ENV_VAR,
    AuditDB,
    AuditError,
    QueryFailed,
    QueryRefused,
    RefreshStats,
    Result,
    default_audit_path,
)

__all__ = [
    "AUDIT_ENV_VAR",
    "AuditDB",
    "AuditError",
    "QueryFailed",
    "QueryRefused",
    "RefreshStats",
    "Result",
    "default_audit_path",
]
