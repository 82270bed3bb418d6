"""The recorded matches: summaries with the rules' results, standings, the audit tables.

Read off the audit database (:mod:`audit`), the DuckDB read model that judges each
recorded match once, with the judge's own engine, and keeps the answers until the match
changes: listing 340 matches does not judge 340 matches again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coreflow_judge._log import store_name

if TYPE_CHECKING:
    import duckdb
    from coreflow_judge.audit.projection import AuditDB

Progress = Callable[[int, int], None]


def _outcome(result: str | None, winner: str | None, reason: str | None,
             with_reason: bool = False) -> str | None:
    """``kai wins``, ``draw`` (``kai wins (deck_out)`` with the reason), or None."""
    if result is None:
        return None
    text = f"{winner} wins" if result == "win" and winner else result
    return f"{text} ({reason})" if with_reason and reason else text


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One recorded match as an organiser reads it: the rules' result, and the result
    the log recorded when it is another."""

    match_id: str
    game: str
    rules: str
    format: str
    players: tuple[str, ...]
    tournament: str | None
    round: str | None
    table: str | None
    lines: int
    result: str | None
    """The rules' result: ``win`` or ``draw``; None while undecided (or not judged)."""
    winner: str | None
    reason: str | None
    recorded_result: str | None
    """The result the log's ``game_ended`` line records (None: no end recorded)."""
    recorded_winner: str | None
    recorded_reason: str | None
    errors: int
    """Error findings that follow from no other (the mistakes: one mistake, one error)."""
    consequences: int
    """Error findings that follow from another (``caused_by``)."""
    warnings: int
    recorded_at: datetime
    judge_error: str | None = None
    """Why the match could not be judged (then no rules' result), else None."""

    @property
    def outcome(self) -> str | None:
        """The rules' result as text: ``kai wins``, ``draw``; None while undecided."""
        return _outcome(self.result, self.winner, self.reason)

    @property
    def recorded_outcome(self) -> str | None:
        """The recorded result as text, or None when the log records no end."""
        return _outcome(self.recorded_result, self.recorded_winner, self.recorded_reason)

    @property
    def result_differs(self) -> bool:
        """The log records an end the rules do not give (another winner, result or
        reason), or an end while the rules leave the game undecided."""
        if self.recorded_result is None or self.judge_error is not None:
            return False
        return (self.result, self.winner, self.reason) != (
            self.recorded_result, self.recorded_winner, self.recorded_reason)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form ``coreflow matches --format json`` prints."""
        differs = self.result_differs
        both = differs and self.outcome == self.recorded_outcome  # only the reason differs
        return {
            "match_id": self.match_id, "game": self.game, "rules": self.rules,
            "format": self.format, "players": list(self.players),
            "tournament": self.tournament, "round": self.round, "table": self.table,
            "lines": self.lines,
            "result": _outcome(self.result, self.winner, self.reason, both),
            "winner": self.winner, "reason": self.reason,
            "recorded_result": _outcome(self.recorded_result, self.recorded_winner,
                                        self.recorded_reason, both),
            "result_differs": differs,
            "errors": self.errors, "consequences": self.consequences,
            "warnings": self.warnings, "judge_error": self.judge_error,
            "recorded_at": self.recorded_at.isoformat(),
        }


_MATCH_COLUMNS = ("match_id, game, rules, format, players, tournament, round, table_no, "
                  "lines, result, winner, reason, recorded_result, recorded_winner, "
                  "recorded_reason, errors, consequences, warnings, recorded_at, judge_error")


def matches(store: str | None = None, *, progress: Progress | None = None,
            audit: str | Path | None = None) -> list[MatchSummary]:
    """Every recorded match of ``store``, in the order they were recorded, each with the
    rules' result and how many errors the judge found.

    Reads the audit database (``audit``, else the store's own: see :class:`Audit`),
    brought up to date first: only matches recorded or extended since are judged
    (``progress`` is told ``(done, total)`` meanwhile).
    """
    with Audit(store, path=audit, progress=progress) as audit_tables:
        rows = audit_tables.rows(f"SELECT {_MATCH_COLUMNS} FROM matches "
                          "ORDER BY recorded_at, match_id")
    return [MatchSummary(
        match_id=r["match_id"], game=r["game"], rules=r["rules"], format=r["format"],
        players=tuple(r["players"]), tournament=r["tournament"], round=r["round"],
        table=r["table_no"], lines=r["lines"], result=r["result"], winner=r["winner"],
        reason=r["reason"], recorded_result=r["recorded_result"],
        recorded_winner=r["recorded_winner"], recorded_reason=r["recorded_reason"],
        errors=r["errors"] or 0, consequences=r["consequences"] or 0,
        warnings=r["warnings"] or 0, recorded_at=_utc(r["recorded_at"]),
        judge_error=r["judge_error"]) for r in rows]


def _utc(when: datetime) -> datetime:
    """The audit keeps UTC times without their zone: given it back."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


# ---------------------------------------------------------------------- standings


@dataclass(slots=True)
class Standing:
    """One player's line of the standings: matches by the rules' results."""

    player: str
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    undecided: int = 0
    """Matches the rules leave undecided (or could not judge): counted as played, as
    neither won nor lost."""
    under_review: list[str] = field(default_factory=list)
    """The player's matches with an error finding or a recorded result the rules do
    not give: ids a judge should look at before the standings are final."""

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "played": self.played, "won": self.won,
                "lost": self.lost, "drawn": self.drawn, "undecided": self.undecided,
                "under_review": list(self.under_review)}


@dataclass(slots=True)
class Standings:
    """The standings of one event (``event.tournament`` of the headers; None: matches
    without one) after a round (None: every round), by the rules' results."""

    tournament: str | None
    after_round: str | None
    matches: list[MatchSummary]
    players: list[Standing]

    @property
    def differing(self) -> list[MatchSummary]:
        """The matches whose recorded result the rules do not give."""
        return [m for m in self.matches if m.result_differs]

    @property
    def with_errors(self) -> list[MatchSummary]:
        return [m for m in self.matches if m.errors]

    def as_dict(self) -> dict[str, Any]:
        return {"tournament": self.tournament, "after_round": self.after_round,
                "matches": len(self.matches),
                "standings": [p.as_dict() for p in self.players],
                "result_differs": [m.match_id for m in self.differing],
                "with_errors": [m.match_id for m in self.with_errors]}


def _round_key(value: str | None) -> tuple[int, float, str]:
    """Rounds in play order: numbers by value, then names (a ``final``) by name."""
    if value is None:
        return (0, 0.0, "")
    try:
        return (1, float(value), "")
    except ValueError:
        return (2, 0.0, value)


def standings(store: str | None = None, *, tournament: str | None = None,
              after_round: str | int | None = None,
              summaries: Sequence[MatchSummary] | None = None,
              audit: str | Path | None = None) -> list[Standings]:
    """The standings of every event in ``store`` (or only ``tournament``), each from the
    rules' results of its matches up to and including round ``after_round``.

    Players are ranked by matches won, then fewest lost, then name; no points system is
    assumed (the event's own rules say how to score). A match under review (an error
    finding, or a recorded result the rules do not give) counts by the rules' result and
    is named in the player's ``under_review``.
    """
    rows = list(summaries) if summaries is not None else matches(store, audit=audit)
    events: dict[str | None, list[MatchSummary]] = {}
    for m in rows:
        if tournament is not None and m.tournament != tournament:
            continue
        if after_round is not None and _round_key(m.round) > _round_key(str(after_round)):
            continue
        events.setdefault(m.tournament, []).append(m)
    out = []
    for name, played in events.items():
        table: dict[str, Standing] = {}
        for m in played:
            for p in m.players:
                row = table.setdefault(p, Standing(p))
                row.played += 1
                if m.result == "win":
                    if m.winner == p:
                        row.won += 1
                    else:
                        row.lost += 1
                elif m.result == "draw":
                    row.drawn += 1
                else:
                    row.undecided += 1
                if m.errors or m.result_differs:
                    row.under_review.append(m.match_id)
        ranked = sorted(table.values(), key=lambda s: (-s.won, s.lost, s.player))
        out.append(Standings(name, None if after_round is None else str(after_round),
                             played, ranked))
    return out


# ---------------------------------------------------------------------- the audit


class Audit:
    """The audit tables of a store (docs/audit.md), to query with SQL from Python.

    The audit database is ``path``, else ``$COREFLOW_AUDIT``, else the store's own (one
    per store: ``STORE.audit.duckdb`` beside a SQLite store, a file under
    ``~/.cache/coreflow/audit`` for a PostgreSQL store; docs/audit.md). Opening brings it
    up to date with the store (``refresh=False`` skips that); queries run on a read-only,
    sandboxed DuckDB connection, as ``coreflow audit`` runs them.
    Close it (or use ``with``) when done.

    - :meth:`sql` gives DuckDB's relation: ``.fetchall()``, ``.arrow()``, ``.df()``,
      ``.pl()`` as DuckDB offers them;
    - :meth:`rows` gives a list of dicts (no extra package);
    - :meth:`arrow` a ``pyarrow.Table`` (needs pyarrow), :meth:`df` a pandas
      ``DataFrame`` (needs pandas): neither is a dependency of coreflow
      (``pip install 'coreflow-judge[arrow]'`` or ``[pandas]`` adds them).
    """

    def __init__(self, store: str | None = None, *, path: str | Path | None = None,
                 refresh: bool = True, progress: Progress | None = None) -> None:
        from coreflow_judge._log import NoStore
        from coreflow_judge.audit.projection import AuditDB, read_only
        from coreflow_judge.events.store import store_env

        db = store_env(store).get("SQLITE_DBNAME")
        if db is not None and db != ":memory:" and not db.startswith("file:") \
                and not Path(db).exists():
            raise NoStore(f"no event store at {db} (record a log first: coreflow record LOG)")
        self.store = store_name(store)
        self._db: AuditDB = AuditDB(path, store)
        if refresh:
            self.unjudged = self._db.refresh(progress=progress).unjudged
        else:
            self.unjudged = []
        self.path = self._db.path
        self._con: duckdb.DuckDBPyConnection | None = read_only(self.path)

    @property
    def tables(self) -> list[str]:
        """The audit tables: matches, events, requests, passes, ... (docs/audit.md)."""
        from coreflow_judge.audit.schema import TABLES

        return list(TABLES)

    def sql(self, query: str) -> duckdb.DuckDBPyRelation:
        """One read-only query, as a DuckDB relation (lazy: run when fetched)."""
        from coreflow_judge.audit.projection import QueryFailed
        from coreflow_judge.audit.projection import _kind as check_query

        con = self._connection()
        check_query(con, query)  # exactly one query (SELECT, WITH, ..., EXPLAIN of one)
        try:
            return con.sql(query)
        except Exception as exc:  # noqa: BLE001 - DuckDB's error, in the audit's words
            raise QueryFailed(f"query failed: {str(exc).splitlines()[0]}") from exc

    def table(self, name: str) -> duckdb.DuckDBPyRelation:
        """A whole audit table, its rows in one stable order."""
        from coreflow_judge.audit.schema import ORDER

        if name not in ORDER:
            raise KeyError(f"no audit table {name!r} (the tables: {', '.join(ORDER)})")
        return self.sql(f"SELECT * FROM {name} ORDER BY {ORDER[name]}")

    def rows(self, query: str) -> list[dict[str, Any]]:
        """A query's rows as dicts (column name -> value)."""
        from coreflow_judge.audit.projection import run_query

        result = run_query(self._connection(), query, None)
        return [dict(zip(result.columns, row, strict=True)) for row in result.rows]

    def arrow(self, query: str) -> Any:
        """A query's answer as a ``pyarrow.Table`` (pyarrow must be installed)."""
        relation = self.sql(query)
        # DuckDB 1.4 named it to_arrow_table; earlier ones have fetch_arrow_table only.
        fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
        return _needing("pyarrow", "Arrow tables", fetch)

    def df(self, query: str) -> Any:
        """A query's answer as a pandas ``DataFrame`` (pandas must be installed)."""
        return _needing("pandas", "DataFrames", lambda: self.sql(query).df())

    def close(self) -> None:
        con, self._con = self._con, None
        if con is not None:
            con.close()

    def __enter__(self) -> Audit:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            raise ValueError("the audit is closed")
        return self._con


def _needing(package: str, what: str, fetch: Callable[[], Any]) -> Any:
    """``fetch()``, or an ImportError that says which package to install."""
    try:
        __import__(package)
    except ImportError:
        raise ImportError(f"{what} need the {package} package, which coreflow does not "
                          f"install: pip install {package}") from None
    return fetch()


def summaries_text(rows: Iterable[MatchSummary]) -> list[str]:
    """``coreflow matches``'s text: one line per match."""
    out = []
    for m in rows:
        if m.judge_error is not None:
            result = f"not judged: {m.judge_error}"
        else:
            both = m.result_differs and m.outcome == m.recorded_outcome
            result = _outcome(m.result, m.winner, m.reason, both) or "undecided"
            if m.result_differs:
                recorded = _outcome(m.recorded_result, m.recorded_winner,
                                    m.recorded_reason, both)
                result += f" (recorded: {recorded})"
        errors = f"{m.errors} error{'s' if m.errors != 1 else ''}" if m.errors else "no error"
        out.append(f"{m.match_id}  {m.rules} {m.format}  {' v '.join(m.players)}  "
                   f"{m.lines} lines  {result}  {errors}  "
                   f"recorded {m.recorded_at.isoformat()}")
    return out
