"""Text the CLI prints: a judge's report and a board, as read at the table.

Rendering only: every value comes from the report or the board the library built.
"""

from __future__ import annotations

import json
from typing import Any

from adjudicator.judge import Report
from cli.rule_text import rule_statement

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


_ZONES_SHOWN = frozenset({"deck_count", "deck_known", "life_count", "hand_count", "hand_known",
                          "graveyard", "fog", "field"})


def board_text(board: dict[str, Any]) -> str:
    """The table after one line: flow state, then each player's zones."""
    out = [f"match {board['match_id']}  ({board['rules']})  board after seq {board['seq']}"]
    if board["turn_player"] is None:
        out.append("the game has not started")
    else:
        out.append(f"turn {board['turn']} · turn player {board['turn_player']} · "
                   f"chance {board['chance']} · passed: {', '.join(board['passed']) or '-'}")
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
    for player, zones in (board.get("players") or {}).items():
        deck = "life" if "life_count" in zones else "deck"
        out.append("")
        out.append(player)
        out.append(f"  {deck:<9} {_count(zones.get('deck_count'))} cards"
                   + (f" (known: {cards_text(zones['deck_known'])})"
                      if zones.get("deck_known") else ""))
        out.append(f"  {'hand':<9} {_count(zones.get('hand_count'))} cards"
                   + (f" (known: {cards_text(zones['hand_known'])})"
                      if zones.get("hand_known") else ""))
        out.append(f"  {'graveyard':<9} {cards_text(zones.get('graveyard', []))}")
        if "fog" in zones:
            out.append(f"  {'fog':<9} {cards_text(zones['fog'])}")
        for key, value in zones.items():  # zones of other games: card lists and counts
            if key in _ZONES_SHOWN or isinstance(value, bool):
                continue
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                out.append(f"  {key.replace('_', ' '):<9} {cards_text(value)}")
            elif isinstance(value, int):
                out.append(f"  {key.replace('_', ' '):<9} {value}")
        field = zones.get("field", [])
        out.append("  field" + ("" if field else "     -"))
        for ch in field:
            bits = [ch["kind"], ch["state"]]
            if ch.get("face_down"):
                bits.append("face down")
            if ch.get("size") is not None:
                bits.append(f"size {ch['size']}")
            if ch.get("entered_turn") is not None:
                bits.append(f"entered turn {ch['entered_turn']}")
            out.append(f"    {card_text(ch['character'])}: {', '.join(bits)}"
                       f" [{cards_text(ch['cards'])}]")
    out.append("")
    out.append(f"result: {result_text(board.get('result'), 'undecided')}")
    findings = board.get("findings", [])
    errors = sum(1 for f in findings if f["severity"] == "error")
    out.append(f"findings so far: {len(findings)} ({errors} error{'s' * (errors != 1)})")
    return "\n".join(out)
