"""The options several commands share, declared once (typer only: the help imports them).

``STORE_ENV_VAR`` and ``LANG_ENV_VAR`` repeat ``events.store.STORE_ENV_VAR`` and
``cli.i18n.LANG_ENV_VAR`` so that ``--help`` imports neither the store nor the texts
(tests/test_cli_conventions.py checks that they agree).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

STORE_ENV_VAR = "COREFLOW_STORE"
LANG_ENV_VAR = "COREFLOW_LANG"
JUDGE_VIEW = "judge"
"""projections.view.JUDGE: the view that sees everything."""

StoreOption = Annotated[str | None, typer.Option(
    "--store", help=f"Event store: a SQLite file or a postgresql:// URL "
    f"[default: ${STORE_ENV_VAR}, else ./coreflow.db].", show_default=False)]
AuditOption = Annotated[Path | None, typer.Option(
    "--audit", help="The audit DuckDB file [default: $COREFLOW_AUDIT, else the store's "
    "own: STORE.audit.duckdb beside a SQLite store, one in ~/.cache/coreflow/audit for a "
    "PostgreSQL store].", show_default=False)]
ViewOption = Annotated[str, typer.Option(
    "--view", metavar="judge|PLAYER|spectator",
    help="Whose view: judge (everything), a player of the match (their own hand, what the "
         "rules show them) or spectator (public only); hidden cards are replaced.")]
LangOption = Annotated[str | None, typer.Option(
    "--lang", metavar="en|ja",
    help=f"The language of the text: en or ja [default: ${LANG_ENV_VAR}, else en]. JSON "
         "is the same in every language.", show_default=False)]
