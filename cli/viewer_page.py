"""The match viewer: one self-contained HTML page of a match (``coreflow view``).

The page holds, as JSON, everything it shows, all computed here by the library's own
parts (nothing here decides a rule):

* the board after every line: :class:`~projections.board.BoardProjector` for the judge,
  :func:`~projections.view.board_view` (what ``coreflow board --view`` uses) for a player
  or a spectator;
* the lines, as the viewer may read them (:meth:`MatchView.log
  <projections.view.MatchView.log>` for a player or a spectator);
* the judge's findings (:func:`~adjudicator.judge.judge_lines`), redacted for the viewer
  (:meth:`MatchView.findings <projections.view.MatchView.findings>`), each with its rule's
  statement and its expected and recorded values in words, as the text report says them;
* how the game writes each card the page names (``GamePlugin.card_text``: ``S9`` ->
  ``♠9``), so that the script draws suits and colours without knowing any game.

The script and the style are files beside this module (``viewer_assets/``), put inline,
so the page fetches nothing: it opens from a file, offline, and its Content-Security-Policy
forbids any request. Every text the page itself says is in :data:`LABELS` (one place, to
translate). Every value from the log reaches the page as data and is shown as text, never
as markup.

Size: a board is mostly what the board before it was, so the boards are stored as rows
of indices into one list of distinct parts (a zone of a player, the stage, the turn...):
a 600-line match is a few hundred kilobytes (tests/test_viewer.py measures it).

What a player's or a spectator's page holds: the board after each line as ``coreflow
board --view`` shows it at that line (what the viewer saw then), and the lines and
findings as ``coreflow log --view`` and ``judge --view`` show them at the end of the log
(a card is named only if it is in sight then and at the end).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import card_as_written, game_plugin, is_registered
from coreflow_judge.cli.render import card_words, result_text, words_of
from coreflow_judge.cli.rule_text import rule_statement
from coreflow_judge.events.models import LogLine, MatchStarted
from coreflow_judge.events.reader import LineError
from coreflow_judge.projections.board import BoardProjector, Item
from coreflow_judge.projections.view import (
    JUDGE,
    CardNames,
    MatchView,
    board_view,
    disclosure_of,
)

LABELS: dict[str, str] = {
    "title": "coreflow viewer",
    "match": "match",
    "view": "view",
    "view_judge": "judge (everything)",
    "view_player": "{viewer} (what {viewer} may see)",
    "view_spectator": "spectator (public only)",
    "source_log": "log",
    "source_store": "store",
    "timeline": "Timeline",
    "line": "line",
    "board_after": "after line {seq}",
    "not_started": "the game has not started",
    "turn": "turn",
    "turn_player": "turn player",
    "chance": "chance",
    "holds_chance": "holds the chance",
    "passed": "passed",
    "not_passed": "not passed",
    "passes": "pass record",
    "stage": "Stage",
    "stage_top": "top (resolves first)",
    "stage_bottom": "bottom",
    "stage_empty": "the stage is empty",
    "buffer": "Buffer",
    "buffer_empty": "the buffer is empty",
    "waiting": "waiting to resolve: {request} (instant)",
    "once_used": "once per turn, used",
    "key": "key",
    "targets": "targets",
    "triggered_by": "triggered by {source}",
    "findings_here": "Findings at this line",
    "findings_all": "All findings",
    "no_findings_here": "no finding at this line",
    "no_findings": "no findings: the log follows the rules",
    "findings_so_far": "findings so far: {count} ({errors} errors)",
    "rule": "rule",
    "finding": "what happened",
    "expected": "should have",
    "recorded": "recorded",
    "result": "result",
    "hand": "hand",
    "deck": "deck",
    "life": "life",
    "graveyard": "graveyard",
    "fog": "fog",
    "field": "field",
    "known": "known",
    "cards": "{count} cards",
    "one_card": "1 card",
    "unknown": "unknown",
    "none": "-",
    "face_down": "face down",
    "entered_turn": "entered turn {turn}",
    "taken_back": "taken back",
    "malformed": "malformed line",
    "resolved": "resolved",
    "passes_line": "{player} passes",
    "the_line": "Line {seq}",
    "keys": "← → or j k: step · Home End: first, last · click a line",
    "seen_by": "seen by {viewer}: hidden cards show as ? or face down",
}
"""Every text the page says of its own (the log's and the rules' texts aside): one place
to translate. ``{name}`` is filled in by the script."""

_ASSETS = "viewer_assets"
_SLOT = re.compile(r"\{\{(title|style|data|script)\}\}")


@dataclass(frozen=True)
class Page:
    """A written page and what it holds (for the command's message and the tests)."""

    html: str
    lines: int
    findings: int


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


class _Parts:
    """Distinct JSON values, each kept once; a board is a row of their indices."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any) -> int:
        key = _compact(value)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
        return found


def _encode_boards(boards: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"paths": [...], "parts": [...], "rows": [[...], ...]}``: row ``i`` holds, for each
    path (``["turn"]``, ``["players", "alice", "hand_count"]``), the index of its value in
    ``parts`` after line ``i``, or -1 where that board has no such path."""
    parts = _Parts()
    paths: list[list[str]] = []
    where: dict[tuple[str, ...], int] = {}
    cells: list[dict[int, int]] = []
    for board in boards:
        row: dict[int, int] = {}
        for path, value in _flatten(board):
            column = where.get(path)
            if column is None:
                column = where[path] = len(paths)
                paths.append(list(path))
            row[column] = parts.add(value)
        cells.append(row)
    rows = [[row.get(c, -1) for c in range(len(paths))] for row in cells]
    return {"paths": paths, "parts": parts.values, "rows": rows}


def _flatten(board: dict[str, Any]) -> Iterable[tuple[tuple[str, ...], Any]]:
    for key, value in board.items():
        if key == "players" and isinstance(value, dict):
            yield ("players",), {}  # the players in order, even a board with none yet
            for player, zones in value.items():
                yield ("players", player), {}
                for zone, v in zones.items():
                    yield ("players", player, zone), v
        else:
            yield (key,), value


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _line_data(line: LogLine) -> dict[str, Any]:
    data = line.model_dump(mode="json", exclude_none=True)
    data.pop("hash", None)  # the chain is the record's, not the viewer's
    return data


def _finding_data(f: Finding, game: str, cards: Callable[[str], str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seq": f.seq, "code": f.code, "severity": f.severity, "rule": f.rule,
        "statement": rule_statement(f.rule, game), "message": cards(f.message),
    }
    if f.expected is not None or f.actual is not None:
        out["expected"] = words_of(f.expected, cards)
        out["actual"] = words_of(f.actual, cards)
    return out


def match_data(items: Sequence[tuple[int, Item]], viewer: str = JUDGE,
               source: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything the page shows of the match ``items`` (a log's ``(line number, line)``
    pairs) as ``viewer`` may see it: the data the page embeds."""
    projector = BoardProjector(items)
    view = MatchView(projector, viewer)  # UnknownViewer for a viewer not of this match
    report = judge_lines(items)
    first = projector.items[0][1]
    players = tuple(first.players) if isinstance(first, MatchStarted) else ()
    game = report.rules.partition("/")[0]
    plugin = game_plugin(game) if is_registered(game) else None
    card_text = plugin.card_text if plugin is not None else card_as_written
    names = CardNames(players, disclosure_of(report.rules))

    def in_words(text: str) -> str:
        return card_words(text, names, card_text)

    boards: list[dict[str, Any]] = []
    cache: dict[int, dict[str, Any]] = {}
    for seq in projector.seqs:
        if seq not in cache:
            board = projector.at(seq)
            board.pop("findings", None)  # the page holds the findings once, by line
            if viewer != JUDGE:
                # What the viewer has in sight after this line, taken now, in order (the
                # log and the findings ask for it again: no replay from a checkpoint).
                view.sight(seq)
                board = board_view(board, viewer, view.disclosure, view.sight, players)
                board.pop("view", None)
            cache[seq] = board
        boards.append(cache[seq])
    readable = iter(view.log() if viewer != JUDGE else [])
    lines: list[dict[str, Any]] = []
    for pos, ((no, item), seq) in enumerate(zip(projector.items, projector.seqs, strict=True)):
        entry: dict[str, Any] = {"seq": seq}
        if isinstance(item, LineError):
            entry["error"] = str(item)
        else:
            entry["line"] = next(readable) if viewer != JUDGE else _line_data(item)
            if viewer != JUDGE:
                entry["line"].pop("hash", None)
        if pos in projector.skipped:
            entry["taken_back"] = True
        if no != pos + 1:
            entry["no"] = no
        lines.append(entry)
    findings = report.findings if viewer == JUDGE else view.findings(report.findings)
    encoded = _encode_boards(boards)
    shown = {s: card_text(s) for s in set(_strings(encoded["parts"])) | set(_strings(lines))}
    return {
        "labels": LABELS,
        "match": {
            "match_id": report.match_id, "rules": report.rules,
            "game": plugin.name if plugin is not None else game, "players": list(players),
            "view": viewer, "source": source or {}, "notes": report.notes,
            "result": result_text(report.result),
            "size_word": plugin.size_word if plugin is not None else "size",
        },
        "lines": lines,
        "boards": encoded,
        "findings": [_finding_data(f, game, in_words) for f in findings],
        "cards": {raw: text for raw, text in shown.items() if text != raw},
    }


def _asset(name: str) -> str:
    return resources.files(__package__ or "coreflow_judge.cli").joinpath(
        _ASSETS, name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` as such (so no
    ``</script>`` in a player's name can end it)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def page(items: Sequence[tuple[int, Item]], viewer: str = JUDGE,
         source: dict[str, str] | None = None) -> Page:
    """The viewer page of a match: one HTML document with its data, style and script."""
    data = match_data(items, viewer, source)
    title = f"{data['match']['match_id']} · {LABELS['title']}"
    fill = {"title": _escape(title), "style": _asset("viewer.css"),
            "data": _script_json(data), "script": _asset("viewer.js")}
    # One pass over the template: a ``{{...}}`` inside the data is never filled in.
    html = _SLOT.sub(lambda m: fill[m.group(1)], _asset("page.html"))
    return Page(html=html, lines=len(data["lines"]), findings=len(data["findings"]))
