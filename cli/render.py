"""Text the CLI prints: a judge's report and a board, as read at the table.

Rendering only: every value comes from the report or the board the library built.
"""

from __future__ import annotations

import json
from typing import Any

from coreflow_judge.adjudicator.judge import Report
from coreflow_judge.cli.rule_text import rule_statement

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def card_text(card: str) -> str:
    """``S9`` -> ``♠9``, ``H12`` -> ``♥Q``, ``bob:C1`` -> ``bob:♣A``; others unchanged."""
    owner, sep, face = card.rpartition(":")
    if len(face) >= 2 and face[0] in SUIT_SYMBOLS and face[1:].isdigit():
        rank = int(face[1:])
        face = SUIT_SYMBOLS[face[0]] + RANK_NAMES.get(rank, str(rank))
    elif face.startswith("JK"):
        face = "Joker" + face[2:]
    return owner + sep + face


def cards_text(cards: list[str]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "-"


def _value(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def result_text(result: dict[str, Any] | None,
                undecided: str = "undecided (the log ends before the rules decide the game)"
                ) -> str:
    if result is None:
        return undecided
    if result.get("result") == "win":
        return f"{result.get('winner')} wins ({result.get('reason')})"
    return f"draw ({result.get('reason')})"


def report_text(report: Report, source: str) -> str:
    """A judge's report: a header, one block per finding, then the result."""
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    out = [f"match {report.match_id}  ({report.rules}, {report.events} lines)  {source}"]
    out += [f"  note: {n}" for n in report.notes]
    for f in report.findings:
        out.append("")
        out.append(f"seq {f.seq}  {f.code}  [{f.severity}]")
        out.append(f"  rule      {f.rule}: {rule_statement(f.rule)}")
        out.append(f"  finding   {f.message}")
        if f.expected is not None or f.actual is not None:
            out.append(f"  expected  {_value(f.expected)}")
            out.append(f"  actual    {_value(f.actual)}")
    out.append("")
    if not report.findings:
        out.append("no findings: the log follows the rules")
    out.append(f"result: {result_text(report.result)}")
    out.append(f"{errors} error{'s' * (errors != 1)}, "
               f"{warnings} warning{'s' * (warnings != 1)}")
    return "\n".join(out)


def _request_text(r: dict[str, Any]) -> str:
    parts = [f"{r['request']} {r['action']} ({r['controller']}, {r['speed']} {r['timing']})"]
    if r.get("triggered"):
        parts.append(f"triggered by {r.get('source', '?')}")
    if r.get("key_cards"):
        parts.append("key " + cards_text(r["key_cards"]))
    if r.get("targets"):
        parts.append("targets " + cards_text(r["targets"]))
    return " · ".join(parts)


def _count(n: Any) -> str:
    return "unknown" if n is None else str(n)


def _cards(n: Any) -> str:
    """``6 cards``, ``1 card``, ``unknown cards``."""
    return f"{_count(n)} card{'' if n == 1 else 's'}"


_ZONES_SHOWN = frozenset({"deck_count", "deck_known", "life_count", "hand_count", "hand_known",
                          "graveyard", "fog", "field"})
#: Board keys every game has; any other top-level key is a game's own (a step, a limit).
_BOARD_KEYS = frozenset({"match_id", "rules", "seq", "turn", "turn_player", "chance", "passed",
                         "stage", "buffer", "awaiting_resolution", "once_used", "players",
                         "result", "findings"})
#: What a game calls the number the board keeps as a character's ``size``.
_SIZE_WORD = {"duel_masters": "power"}


def _words(key: str) -> str:
    return key.replace("_", " ")


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _item_text(item: dict[str, Any]) -> str:
    """One card of a game's own zone (a camp): its reference, then its numbers and flags."""
    head = next((str(v) for k, v in item.items() if k in ("card", "character", "ref")), None)
    bits: list[str] = []
    for k, v in item.items():
        if k in ("card", "character", "ref") or v is None or v is False:
            continue
        if v is True:
            bits.append(_words(k))
        elif k == "state":
            bits.append(str(v))
        elif _scalar(v):
            bits.append(f"{_words(k)} {v}")
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            bits.append(f"{_words(k)} {cards_text(v)}")
    text = ", ".join(bits) or "-"
    return f"{card_text(head)}: {text}" if head is not None else text


def _player_lines(zones: dict[str, Any], size_word: str) -> list[str]:
    """A player's zones: the usual ones when the game has them, then the game's own."""
    rows: list[tuple[str, str]] = []
    items: list[tuple[str, list[str]]] = []
    if "deck_count" in zones or "life_count" in zones:
        deck = "life" if "life_count" in zones else "deck"
        rows.append((deck, _cards(zones.get('deck_count'))
                     + (f" (known: {cards_text(zones['deck_known'])})"
                        if zones.get("deck_known") else "")))
    if "hand_count" in zones:
        rows.append(("hand", _cards(zones.get('hand_count'))
                     + (f" (known: {cards_text(zones['hand_known'])})"
                        if zones.get("hand_known") else "")))
    if "graveyard" in zones:
        rows.append(("graveyard", cards_text(zones["graveyard"])))
    if "fog" in zones:
        rows.append(("fog", cards_text(zones["fog"])))
    for key, value in zones.items():  # zones of other games: card lists, counts, cards
        if key in _ZONES_SHOWN or isinstance(value, bool):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            rows.append((_words(key), cards_text(value)))
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            items.append((_words(key), [_item_text(v) for v in value]))
        elif _scalar(value):
            rows.append((_words(key), str(value)))
    field = zones.get("field")
    width = max([9] + [len(label) for label, _text in rows]
                + [len(label) for label, _lines in items])
    out = [f"  {label:<{width}} {text}" for label, text in rows]
    for label, lines in items:
        out.append(f"  {label:<{width}} -" if not lines else f"  {label}")
        out += [f"    {line}" for line in lines]
    if field is not None:
        out.append("  field" if field else f"  {'field':<{width}} -")
        for ch in field:
            bits = [ch["kind"], ch["state"]]
            if ch.get("face_down"):
                bits.append("face down")
            if ch.get("size") is not None:
                bits.append(f"{size_word} {ch['size']}")
            if ch.get("entered_turn") is not None:
                bits.append(f"entered turn {ch['entered_turn']}")
            out.append(f"    {card_text(ch['character'])}: {', '.join(bits)}"
                       f" [{cards_text(ch['cards'])}]")
    return out


def board_text(board: dict[str, Any]) -> str:
    """The table after one line: flow state, then each player's zones."""
    out = [f"match {board['match_id']}  ({board['rules']})  board after seq {board['seq']}"]
    if board["turn_player"] is None:
        out.append("the game has not started")
    else:
        out.append(f"turn {board['turn']} · turn player {board['turn_player']} · "
                   f"chance {board['chance']} · passed: {', '.join(board['passed']) or '-'}")
    own = [f"{_words(k)} {v}" for k, v in board.items()
           if k not in _BOARD_KEYS and _scalar(v)]
    if own:
        out.append(" · ".join(own))
    out.append("stage (bottom to top):" + ("" if board["stage"] else " empty"))
    out += [f"  {i}. {_request_text(r)}" for i, r in enumerate(board["stage"], start=1)]
    out.append("buffer:" + ("" if board["buffer"] else " empty"))
    out += [f"  - {_request_text(r)}" for r in board["buffer"]]
    if board.get("awaiting_resolution"):
        out.append(f"waiting to resolve: {board['awaiting_resolution']} (instant)")
    once = board.get("once_used") or {}
    if once:
        out.append("once per turn, used: " + "; ".join(
            f"{p}: {', '.join(a)}" for p, a in once.items()))
    size_word = _SIZE_WORD.get(str(board.get("rules", "")).partition("/")[0], "size")
    for player, zones in (board.get("players") or {}).items():
        out.append("")
        out.append(player)
        out += _player_lines(zones, size_word)
    out.append("")
    out.append(f"result: {result_text(board.get('result'), 'undecided')}")
    findings = board.get("findings", [])
    errors = sum(1 for f in findings if f["severity"] == "error")
    out.append(f"findings so far: {len(findings)} ({errors} error{'s' * (errors != 1)})")
    return "\n".join(out)
