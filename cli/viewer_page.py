"""The match viewer: one self-contained HTML page of a match (``coreflow view``).

The page holds, as JSON, everything it shows, all computed here by the library's own
parts (nothing here decides a rule):

* the board after every line: :class:`~projections.board.BoardProjector` for the judge,
  :func:`~projections.view.board_view` (what ``coreflow board --view`` uses) for a player
  or a spectator;
* the lines, as the viewer may read them (:meth:`MatchView.log
  <projections.view.MatchView.log>` for a player or a spectator), each derived line
  marked (``derived``: the judge matched it with a line the rules write themselves,
  :attr:`Ledger.agreed <adjudicator.ledger.Ledger.agreed>`, and no finding is
  about it), so that the page can grey and hide them;
* the judge's findings (:func:`~adjudicator.judge.judge_lines`), redacted for the viewer
  (:meth:`MatchView.findings <projections.view.MatchView.findings>`), each with its rule's
  statement and its expected and recorded values in words, as the text report says them;
  in Japanese also the code's meaning, the statement in Japanese and the judge's sentence
  kept in English, as ``judge --lang ja`` says them; for an error, what the rules wanted
  next (:attr:`Finding.next <adjudicator.findings.Finding.next>`) in words, as the text
  report's "Under the rules, next" (no card: it is the table's state without its cards);
* in Japanese, the game's names for its actions, characters, zones and board words from
  its edition data (:func:`cli.i18n.japanese_labels`), and the speeds, timings and
  severities of :data:`cli.i18n.TEXTS`;
* how the game writes each card the page names (``GamePlugin.card_text``: ``S9`` ->
  ``♠9``), so that the script draws suits and colours without knowing any game.

The script and the style are files beside this module (``viewer_assets/``), put inline,
so the page fetches nothing: it opens from a file, offline, and its Content-Security-Policy
forbids any request. Every text the page itself says is in :data:`LABELS`, in English and
in Japanese (one place to translate). Every value from the log reaches the page as data and
is shown as text, never as markup.

Size: a board is mostly what the board before it was, so the boards are stored as rows
of indices into one list of distinct parts (a zone of a player, the stage, the turn...):
a 600-line match is a few hundred kilobytes (tests/test_viewer.py measures it).

What a player's or a spectator's page holds: the board after each line as ``coreflow
board --view`` shows it at that line (what the viewer saw then), and the lines and
findings as ``coreflow log --view`` and ``judge --view`` show them at the end of the log
(a card is named only if it is in sight then and at the end). The derived marks and the
next steps name no card; the script groups the lines by turn from the boards it holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, meaning
from coreflow_judge.adjudicator.judge import Report, judge_lines
from coreflow_judge.adjudicator.plugins import card_as_written, game_plugin, is_registered
from coreflow_judge.cli.i18n import TEXTS, japanese_labels, text
from coreflow_judge.cli.render import card_words, next_text, result_text, words_of
from coreflow_judge.cli.rule_text import rule_statement
from coreflow_judge.events.models import LogLine, MatchStarted
from coreflow_judge.events.printable import escaped
from coreflow_judge.events.reader import LineError
from coreflow_judge.projections.board import BoardProjector, Item
from coreflow_judge.projections.view import (
    JUDGE,
    CardNames,
    MatchView,
    board_view,
    disclosure_of,
)

LABELS_EN: Mapping[str, str] = MappingProxyType({
    "title": "coreflow viewer",
    "match": "match",
    "view": "view",
    "view_judge": "judge (everything)",
    "view_player": "{viewer} (what {viewer} may see)",
    "view_spectator": "spectator (public only)",
    "source_log": "log",
    "source_store": "store",
    "timeline": "Timeline",
    "at_line": "line {seq}",
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
    "findings_so_far": "up to this line: {findings}",
    "findings_total": "in all: {findings}",
    "count_findings": "{count} findings: {counts}",
    "count_findings_one": "1 finding: {counts}",
    "count_errors": "{count} errors",
    "count_errors_one": "1 error",
    "count_none": "no findings",
    "count_more": " (and {count} that follow from them)",
    "count_more_one": " (and 1 that follows from them)",
    "count_more_it": " (and {count} that follow from it)",
    "count_more_it_one": " (and 1 that follows from it)",
    "comma": ", ",
    "count_warnings": "{count} warnings",
    "count_warnings_one": "1 warning",
    "count_infos": "{count} info",
    "count_infos_one": "1 info",
    "meaning": "meaning",
    "rule": "rule",
    "finding": "what happened",
    "expected": "should have",
    "recorded": "recorded",
    "follows": "follows from",
    "follows_text": "line {seq} ({code}): without that line, this one keeps the rules",
    "next": "under the rules, next",
    "result": "result",
    "known": "known",
    "cards": "{count} cards",
    "one_card": "1 card",
    "unknown": "unknown cards",
    "none": "-",
    "face_down": "face down",
    "yes": "yes",
    "no": "no",
    "entered_turn": "entered turn {turn}",
    "taken_back": "taken back",
    "malformed": "malformed line",
    "resolved": "resolved",
    "fizzled": "fizzled",
    "passes_line": "{player} passes",
    "the_line": "Line {seq}",
    "keys": "← → or j k: step · n p: next, previous finding · d: derived lines · t: turn "
            "· Home End: first, last",
    "finding_next": "next finding ▶",
    "finding_previous": "◀ previous finding",
    "finding_none_after": "no finding after this line",
    "finding_none_before": "no finding before this line",
    "hide_derived": "hide derived lines ({count})",
    "derived": "derived: a line the rules write themselves (the log may leave it out)",
    "go_turn": "go to turn",
    "go": "go",
    "turn_none": "no turn {turn} (turns {first} to {last})",
    "turn_head": "turn {turn} · {player}",
    "before_turns": "before the first turn",
    "lines": "{count} lines",
    "lines_one": "1 line",
    "fold": "click to fold or unfold the turn",
    "seen_by": "seen by {viewer}: hidden cards show as ? or face down",
})
"""Every text the page says of its own in English (the log's and the rules' texts and the
game's names aside). ``{name}`` is filled in by the script."""

LABELS_JA: Mapping[str, str] = MappingProxyType({
    "title": "coreflow ビューア",
    "match": "対戦",
    "view": "視点",
    "view_judge": "ジャッジ（すべて）",
    "view_player": "{viewer}（{viewer} に見えるもの）",
    "view_spectator": "観戦者（公開情報のみ）",
    "source_log": "ログ",
    "source_store": "ストア",
    "timeline": "タイムライン",
    "at_line": "{seq}行目",
    "board_after": "{seq}行目の後",
    "not_started": "ゲームはまだ始まっていない",
    "turn": "ターン",
    "turn_player": "ターンプレイヤー",
    "chance": "チャンス",
    "holds_chance": "チャンスを持つ",
    "passed": "パス済み",
    "not_passed": "未パス",
    "passes": "パス済み",
    "stage": "ステージ",
    "stage_top": "上（先に解決）",
    "stage_bottom": "下",
    "stage_empty": "ステージは空",
    "buffer": "バッファ",
    "buffer_empty": "バッファは空",
    "waiting": "解決待ち: {request}（即時）",
    "once_used": "1ターンに1回、使用済み",
    "key": "キーカード",
    "targets": "対象",
    "triggered_by": "{source} による誘発",
    "findings_here": "この行の指摘",
    "findings_all": "すべての指摘",
    "no_findings_here": "この行に指摘なし",
    "no_findings": "指摘なし：ログはルールどおり",
    "findings_so_far": "この行まで: {findings}",
    "findings_total": "全体: {findings}",
    "count_findings": "指摘 {count}件（{counts}）",
    "count_findings_one": "指摘 1件（{counts}）",
    "count_errors": "エラー {count}件",
    "count_errors_one": "エラー 1件",
    "count_none": "指摘なし",
    "count_more": "（ほかにそれに起因するもの {count}件）",
    "count_more_one": "（ほかにそれに起因するもの 1件）",
    "count_more_it": "（ほかにそれに起因するもの {count}件）",
    "count_more_it_one": "（ほかにそれに起因するもの 1件）",
    "comma": "、",
    "count_warnings": "警告 {count}件",
    "count_warnings_one": "警告 1件",
    "count_infos": "情報 {count}件",
    "count_infos_one": "情報 1件",
    "meaning": "意味",
    "rule": "規則",
    "finding": "指摘(英)",
    "expected": "期待値",
    "recorded": "記録値",
    "follows": "起因",
    "follows_text": "{seq}行目（{code}）：その行がなければ、この行はルールどおり",
    "next": "ルール上、次は",
    "result": "結果",
    "known": "判明",
    "cards": "{count}枚",
    "one_card": "1枚",
    "unknown": "不明",
    "none": "-",
    "face_down": "裏向き",
    "yes": "はい",
    "no": "いいえ",
    "entered_turn": "ターン{turn}に登場",
    "taken_back": "取り消し済み",
    "malformed": "読めない行",
    "resolved": "解決",
    "fizzled": "不発",
    "passes_line": "{player} パス",
    "the_line": "{seq}行目",
    "keys": "← → または j k: 移動 · n p: 次・前の指摘 · d: 導出行 · t: ターン · Home End: "
            "最初、最後",
    "finding_next": "次の指摘 ▶",
    "finding_previous": "◀ 前の指摘",
    "finding_none_after": "この行より後に指摘なし",
    "finding_none_before": "この行より前に指摘なし",
    "hide_derived": "導出行を隠す（{count}行）",
    "derived": "導出行：ルールが自ら書く行（ログは省略してよい）",
    "go_turn": "ターンへ移動",
    "go": "移動",
    "turn_none": "ターン{turn}はない（ターン{first}〜{last}）",
    "turn_head": "ターン{turn} · {player}",
    "before_turns": "最初のターンの前",
    "lines": "{count}行",
    "lines_one": "1行",
    "fold": "クリックでターンを折りたたむ・開く",
    "seen_by": "{viewer} から見た盤面：見えないカードは ? または裏向きで表示",
})
""":data:`LABELS_EN` in Japanese: the same keys, the same ``{name}`` fields
(tests/test_viewer.py checks). The finding's label says that the judge's sentence under
it stays English, as the text report's ``指摘(英)``."""

LABELS: Mapping[str, Mapping[str, str]] = MappingProxyType({"en": LABELS_EN, "ja": LABELS_JA})
"""The page's own texts by language (:data:`cli.i18n.LANGUAGES`): one place to translate.
The game's own names (actions, characters, zones, board words) are not here: in Japanese
they come from the edition data (:func:`cli.i18n.japanese_labels`), and the script falls
back to the board's key in words (``graveyard``) as ``coreflow board`` does."""

_ASSETS = "viewer_assets"
_SLOT = re.compile(r"\{\{(lang|title|style|data|script)\}\}")


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


def _finding_data(f: Finding, game: str, cards: Callable[[str], str],
                  action_name: Callable[[str], str], lang: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seq": f.seq, "code": f.code, "severity": f.severity, "rule": f.rule,
        "statement": rule_statement(f.rule, game, lang), "message": cards(f.message),
    }
    if lang == "ja":
        out["meaning"] = meaning(f.code, "ja") or "-"
    if f.expected is not None or f.actual is not None:
        out["expected"] = words_of(f.expected, cards, lang)
        out["actual"] = words_of(f.actual, cards, lang)
    if f.next is not None:  # the table's state, no card (adjudicator/next_step.py)
        out["next"] = cards(next_text(f.next, action_name, lang))
    if f.caused_by is not None:
        out["caused_by"] = {"seq": f.caused_by[0], "code": f.caused_by[1]}
    return out


def _action_namer(report: Report, lang: str) -> Callable[[str], str]:
    """An action id's name in ``lang``, as the text report says it: the edition data's
    Japanese name, else the rules' name, else the id."""
    labels = japanese_labels(report.rules) if lang == "ja" else None
    rules = report.flow.rules if report.flow is not None else None

    def name(aid: str) -> str:
        if labels is not None and aid in labels.actions:
            return labels.actions[aid]
        action = rules.action(aid) if rules is not None else None
        return action.name if action is not None else aid

    return name


def _fixed_words(lang: str, *kinds: str) -> dict[str, str]:
    """``{"instant": "即時", ...}``: the words of :data:`cli.i18n.TEXTS` of these kinds
    (``speed.instant``) in ``lang``; none in English (the page shows the word itself)."""
    if lang == "en":
        return {}
    return {key.partition(".")[2]: text(lang, key) for key in TEXTS
            if key.partition(".")[0] in kinds}


def _game_words(rules: str, lang: str) -> dict[str, dict[str, str]]:
    """The game's own names the page shows in ``lang``: ``actions`` (action id -> name),
    ``names`` (a board key or value, a character's kind -> its word: the edition data's
    ``labels_ja`` over the characters' ``name_ja``, as :meth:`cli.i18n.Labels.word` reads
    them), ``speeds`` (speeds and timings) and ``severities``. Empty tables in English:
    the page then shows the log's own words."""
    labels = japanese_labels(rules) if lang == "ja" else None
    return {
        "actions": dict(labels.actions) if labels is not None else {},
        "names": ({**labels.characters, **labels.words} if labels is not None else {}),
        "speeds": _fixed_words(lang, "speed", "timing"),
        "severities": _fixed_words(lang, "severity"),
    }


def match_data(items: Sequence[tuple[int, Item]], viewer: str = JUDGE,
               source: dict[str, str] | None = None, lang: str = "en") -> dict[str, Any]:
    """Everything the page shows of the match ``items`` (a log's ``(line number, line)``
    pairs) as ``viewer`` may see it, in ``lang`` (``en`` or ``ja``): the data the page
    embeds."""
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

    action_name = _action_namer(report, lang)

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
    # A line the judge matched with a line the rules derive, and no finding is about:
    # the page can hide it (a line with a finding always shows).
    agreed = report.flow.ledger.agreed if report.flow is not None else set()
    derived = agreed - {f.seq for f in report.findings}
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
        if pos in projector.replay.skipped:
            entry["taken_back"] = True
        elif not isinstance(item, LineError) and item.seq in derived:
            entry["derived"] = True
        if no != pos + 1:
            entry["no"] = no
        lines.append(entry)
    findings = report.findings if viewer == JUDGE else view.findings(report.findings)
    encoded = _encode_boards(boards)
    shown = {s: card_text(s) for s in set(_strings(encoded["parts"])) | set(_strings(lines))}
    return {
        "labels": dict(LABELS[lang]),
        "words": _game_words(report.rules, lang),
        "match": {
            "match_id": report.match_id, "rules": report.rules,
            "game": plugin.name if plugin is not None else game, "players": list(players),
            "view": viewer, "source": source or {}, "notes": report.notes,
            "result": result_text(report.result, lang=lang), "lang": lang,
            "size_word": plugin.size_word if plugin is not None else "size",
        },
        "lines": lines,
        "boards": encoded,
        "findings": [_finding_data(f, game, in_words, action_name, lang) for f in findings],
        "cards": {raw: said for raw, said in shown.items() if said != raw},
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


def _printable(value: Any) -> Any:
    """The page's data with every string escaped where it is not printable (a note's
    terminal escape or right-to-left override is shown as ``\\u202e``, never carried
    out: :func:`~events.printable.escaped`; newlines stay, the page shows them as blanks)."""
    if isinstance(value, str):
        return escaped(value, keep_newlines=True)
    if isinstance(value, list):
        return [_printable(v) for v in value]
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    return value


def page(items: Sequence[tuple[int, Item]], viewer: str = JUDGE,
         source: dict[str, str] | None = None, lang: str = "en") -> Page:
    """The viewer page of a match, in ``lang`` (``en`` or ``ja``): one HTML document with
    its data, style and script."""
    data = _printable(match_data(items, viewer, source, lang))
    title = f"{data['match']['match_id']} · {LABELS[lang]['title']}"
    fill = {"lang": lang, "title": _escape(title), "style": _asset("viewer.css"),
            "data": _script_json(data), "script": _asset("viewer.js")}
    # One pass over the template: a ``{{...}}`` inside the data is never filled in.
    html = _SLOT.sub(lambda m: fill[m.group(1)], _asset("page.html"))
    return Page(html=html, lines=len(data["lines"]), findings=len(data["findings"]))
