"""What each page of ``coreflow serve`` is sent, computed by the library's own parts.

- The table (scorekeeper): the board as it is (as ``play``'s ``board`` shows it: the
  scorekeeper keeps the record and names the cards), what may be done now
  (:meth:`LiveTable.legal <adjudicator.live.LiveTable.legal>`, the flow's own
  ``next_step``), the last lines.
- The spectator: the board and the last lines in the spectator's view
  (:func:`~projections.view.match_view`): every card a spectator may not see is already
  replaced here, on the server; nothing hidden is ever put into what is sent.
- The judge: every table of the event, its turn, its errors (the judge's findings on the
  record) and whether it calls a judge (a refused entry, or its scorekeeper's call, since
  the last ruling).
"""

from __future__ import annotations

from typing import Any

from coreflow_judge.adjudicator.live import LiveTable
from coreflow_judge.cli.render import board_text, result_text
from coreflow_judge.cli.session import _finding_text, _line_text
from coreflow_judge.events.models import CORE_LINES, LogLine, MatchStarted
from coreflow_judge.events.reader import lines_of_header
from coreflow_judge.projections.board import snapshot
from coreflow_judge.projections.view import SPECTATOR, match_view
from coreflow_judge.serve.db import FeedItem, TableRow

LAST_LINES = 12
"""How many of the last lines a page shows."""
CALLS = ("refused", "call")
"""Feed items that call a judge to a table."""
ANSWERS = ("ruling", "answered")
"""Feed items that answer a call."""


def match_info(row: TableRow, live: LiveTable) -> dict[str, Any]:
    """What every viewer may know of the match: ids, rules, players, round and table."""
    h = live.header
    return {"match_id": row.match_id, "event_id": row.event_id, "round": row.round,
            "table": row.table_no, "players": list(h.players), "rules": h.rules,
            "format": h.format}


def _legal_entries(live: LiveTable) -> list[dict[str, Any]]:
    """``legal``'s lines as buttons: the entry, its note, and whether it is complete as
    it stands (else the page puts it in the input line to be completed: a card to name,
    ``?``, or an action whose cards the table gives)."""
    out: list[dict[str, Any]] = []
    for text in live.legal():
        entry, _, note = text.partition("   ")
        entry, note = entry.strip(), note.strip().removeprefix("(").removesuffix(")")
        if not entry or text.startswith("  ") or entry.startswith("the game is over"):
            out.append({"entry": None, "note": text.strip()})
            continue
        words = entry.split()
        complete = "?" not in words and "cards are not listed" not in note and \
            "filled in" not in note
        out.append({"entry": entry, "note": note, "complete": complete,
                    "filled": "filled in" in note})
    return out


def table_state(row: TableRow, live: LiveTable, lang: str) -> dict[str, Any]:
    """The scorekeeper's page: the board as it is, what may be done, the last lines."""
    board = snapshot(live.flow)
    errors = [f for f in live.flow.findings if f.severity == "error"]
    return {
        "view": "table", "match": match_info(row, live), "last_seq": len(live.stored),
        "over": live.over, "end_ahead": live.over and bool(live.ahead()),
        "turn": board["turn"], "turn_player": board["turn_player"],
        "chance": board["chance"], "result": result_text(board.get("result"), lang=lang),
        "board_text": board_text(board, lang),
        "legal": [] if live.over else _legal_entries(live),
        "lines": [{"seq": ln.seq, "type": ln.type, "text": _line_text(ln, lang)}
                  for ln in live.stored[-LAST_LINES:]],
        "errors": [{"seq": f.seq, "code": f.code, "text": _finding_text(f, lang)}
                   for f in errors],
    }


def spectator_state(row: TableRow, lines: list[LogLine], lang: str) -> dict[str, Any]:
    """The spectator's page: the board and the last lines with every card a spectator
    may not see replaced (:mod:`projections.view`)."""
    view = match_view(lines, SPECTATOR)
    board = view.board()
    shown = []
    game = lines_of_header(lines[0]) if isinstance(lines[0], MatchStarted) else CORE_LINES
    for data in view.log()[-LAST_LINES:]:
        try:
            text = _line_text(game.validate_python(data), lang)
        except ValueError:
            text = str(data.get("type"))
        shown.append({"seq": data.get("seq"), "type": data.get("type"), "text": text})
    header = lines[0]
    return {
        "view": SPECTATOR,
        "match": {"match_id": row.match_id, "event_id": row.event_id, "round": row.round,
                  "table": row.table_no, "players": list(row.players),
                  "rules": getattr(header, "rules", ""), "format": getattr(header, "format", "")},
        "last_seq": len(lines), "turn": board.get("turn"),
        "turn_player": board.get("turn_player"), "chance": board.get("chance"),
        "result": result_text(board.get("result"), lang=lang),
        "board": board, "board_text": board_text(board, lang), "lines": shown,
    }


def calls(feed: list[FeedItem]) -> dict[str, FeedItem]:
    """The tables calling a judge: match id -> the call (the last refused entry or
    scorekeeper's call after the last ruling)."""
    out: dict[str, FeedItem] = {}
    for item in feed:
        if item.match_id is None:
            continue
        if item.kind in CALLS:
            out[item.match_id] = item
        elif item.kind in ANSWERS:
            out.pop(item.match_id, None)
    return out


def judge_row(row: TableRow, live: LiveTable, call: FeedItem | None, lang: str
              ) -> dict[str, Any]:
    """One table as the judge's page lists it."""
    flow = live.flow
    errors = [f for f in flow.findings if f.severity == "error"]
    return {
        **match_info(row, live), "last_seq": len(live.stored), "turn": flow.turn,
        "turn_player": flow.turn_player, "over": live.over,
        "result": result_text(snapshot(flow).get("result"), short=True, lang=lang),
        "errors": [{"seq": f.seq, "code": f.code, "text": _finding_text(f, lang)}
                   for f in errors],
        "call": None if call is None else {"id": call.id, "kind": call.kind,
                                           "at": call.at, **call.data},
    }
