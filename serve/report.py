"""The organiser's report of one event: standings by the rules' results (the same
:func:`~coreflow_judge._store.standings` as ``coreflow standings``), and charts of the
audit tables (findings per round and per code, the first player's wins, match lengths,
the longest matches), drawn as inline SVG here: plain markup, every text escaped.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from coreflow_judge.serve.db import EventRow
from coreflow_judge.serve.i18n import LABELS

BAR_W = 360
"""The width of a bar chart's bars area, in SVG units."""
ROW_H = 22


def sql_text(value: str) -> str:
    """A SQL string literal of ``value``."""
    return "'" + value.replace("'", "''") + "'"


def refreshed_audit(store: str | None, audit: str | None) -> Path:
    """The store's audit database, brought up to date (only what changed is judged)."""
    from coreflow_judge.audit.projection import AuditDB

    db = AuditDB(audit, store)
    db.refresh()
    return db.path


def bar_chart(title: str, rows: list[tuple[str, float]], unit: str = "") -> str:
    """A horizontal bar chart: one labelled bar per row, its value at its end."""
    if not rows:
        return ""
    top = max(v for _k, v in rows) or 1
    height = ROW_H * len(rows) + 30
    out = [f'<svg class="chart" viewBox="0 0 {BAR_W + 220} {height}" role="img" '
           f'aria-label="{html.escape(title)}" xmlns="http://www.w3.org/2000/svg">',
           f'<text x="0" y="16" class="title">{html.escape(title)}</text>']
    for i, (label, value) in enumerate(rows):
        y = 28 + i * ROW_H
        w = max(1.0, BAR_W * value / top)
        shown = f"{value:g}{unit}"
        out.append(f'<text x="150" y="{y + 14}" text-anchor="end">{html.escape(label[:24])}'
                   "</text>")
        out.append(f'<rect x="156" y="{y + 2}" width="{w:.1f}" height="{ROW_H - 6}" />')
        out.append(f'<text x="{160 + w:.1f}" y="{y + 14}">{html.escape(shown)}</text>')
    out.append("</svg>")
    return "".join(out)


def event_report(store: str | None, event: EventRow, audit: str | None, lang: str
                 ) -> dict[str, Any]:
    """Standings and charts of ``event`` (its matches' header ``event.tournament``)."""
    from coreflow_judge._store import Audit, standings

    words = LABELS[lang]
    with Audit(store, path=audit) as tables:
        name = sql_text(event.name)
        matches = tables.rows(
            "SELECT match_id, round, table_no, players, first_player, lines, turns, result, "
            f"winner, errors FROM matches WHERE tournament = {name} ORDER BY round, table_no")
        by_round = tables.rows(
            "SELECT m.round AS round, count(f.code) AS n FROM matches m LEFT JOIN findings f "
            "ON f.match_id = m.match_id AND f.severity = 'error' AND f.caused_by_seq IS NULL "
            f"WHERE m.tournament = {name} GROUP BY m.round ORDER BY m.round")
        by_code = tables.rows(
            "SELECT f.code AS code, count(*) AS n FROM findings f JOIN matches m "
            f"ON f.match_id = m.match_id WHERE m.tournament = {name} GROUP BY f.code "
            "ORDER BY n DESC, code LIMIT 12")
    from coreflow_judge._store import matches as summaries_of

    summaries = [m for m in summaries_of(store, audit=audit) if m.tournament == event.name]
    ranked = standings(store, tournament=event.name, summaries=summaries)
    decided = [m for m in matches if m["result"] == "win"]
    first_won = sum(1 for m in decided if m["winner"] == m["first_player"])
    charts = [
        bar_chart(words["findings_by_round"],
                  [(f"{words['round']} {r['round']}", float(r["n"])) for r in by_round]),
        bar_chart(words["findings_by_code"], [(r["code"], float(r["n"])) for r in by_code]),
        bar_chart(words["first_player_wins"],
                  [(words["won"], float(first_won)),
                   (words["lost"], float(len(decided) - first_won))]) if decided else "",
        bar_chart(words["match_length"],
                  [(m["match_id"], float(m["lines"])) for m in
                   sorted(matches, key=lambda m: -int(m["lines"] or 0))[:10]]),
    ]
    return {
        "event": event.as_dict(),
        "standings": [s.as_dict() for s in ranked[0].players] if ranked else [],
        "matches": [{k: (list(v) if isinstance(v, tuple | list) else v) for k, v in m.items()}
                    for m in matches],
        "first_player": {"decided": len(decided), "first_won": first_won},
        "charts": [c for c in charts if c],
    }
