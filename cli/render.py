"""Text the CLI prints: a judge's report and a board, as read at the table.

Rendering only: every value comes from the report or the board the library built.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.judge import Report
from coreflow_judge.adjudicator.plugins import (
    GamePlugin,
    card_as_written,
    game_plugin,
    is_registered,
)
from coreflow_judge.cli.rule_text import rule_statement
from coreflow_judge.projections.view import CardNames, disclosure_of

CardText = Callable[[str], str]


def _game_of(rules: str) -> GamePlugin | None:
    """The registered game of a ``game/edition`` (None: a game no longer installed)."""
    game = rules.partition("/")[0]
    return game_plugin(game) if is_registered(game) else None


def cards_text(cards: list[str], card_text: CardText = card_as_written) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "-"


def card_words(text: str, names: CardNames, card_text: CardText) -> str:
    """``text`` with every card it names in the board's notation (``alice:C9`` ->
    ``alice:♣9``, ``S8`` -> ``♠8`` in BlackPoker): the one place a report names cards."""
    return names.sub(text, lambda owner, card: card_text(
        f"{owner}:{card}" if owner is not None else card))


_NAMED = ("card", "character", "request", "player", "ref")
"""Fields of an effect said by their value alone (``negate r2``, ``destroy alice:♣9``)."""


def _words_of(v: Any, cards: Callable[[str], str]) -> str:
    """A value of a finding's expected or recorded, in words: a card, a list, a result,
    an effect (``move bob:♣9 from trump to graveyard``) or a record of numbers; compact
    JSON for any other shape."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, str):
        return cards(v)
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, list):
        if not v:
            return "none"
        if all(isinstance(x, dict) and "op" in x for x in v):
            return "; ".join(_words_of(x, cards) for x in v)
        if all(isinstance(x, str | int | float) and not isinstance(x, bool) for x in v):
            return ", ".join(_words_of(x, cards) for x in v)
    if isinstance(v, dict):
        if "result" in v and set(v) <= {"result", "winner", "reason"}:
            return result_text(v)
        if "op" in v:
            bits = [str(v["op"])]
            for k, x in v.items():
                if k == "op":
                    continue
                said = (" ".join(_words_of(c, cards) for c in x)
                        if isinstance(x, list) and all(isinstance(c, str) for c in x)
                        else _words_of(x, cards) if _scalar(x) else None)
                if said is None:
                    return _json_words(v, cards)
                bits.append(said if k in _NAMED else f"{_words(k)} {said}")
            return " ".join(bits)
        if all(_scalar(x) or (isinstance(x, list) and all(_scalar(c) for c in x))
               for x in v.values()):
            sep = "; " if any(isinstance(x, list) for x in v.values()) else ", "
            return sep.join(f"{k}: {_words_of(x, cards)}" if isinstance(x, list)
                             else f"{_words(str(k))} {_words_of(x, cards)}"
                             for k, x in v.items())
    return _json_words(v, cards)


def _json_words(v: Any, cards: Callable[[str], str]) -> str:
    return cards(json.dumps(v, ensure_ascii=False))


def result_text(result: dict[str, Any] | None,
                undecided: str = "undecided (the log ends before the rules decide the game)"
                ) -> str:
    if result is None:
        return undecided
    if result.get("result") == "win":
        return f"{result.get('winner')} wins ({result.get('reason')})"
    return f"draw ({result.get('reason')})"


def report_text(report: Report, source: str, findings: Sequence[Finding] | None = None,
                view: str | None = None) -> str:
    """A judge's report: a header, one block per finding, then the result.

    Cards are named as the board names them; a finding's ``expected`` and ``actual`` (the
    value the log recorded) are said in words. ``findings``: the report's findings as one
    viewer may read them (:meth:`projections.view.MatchView.findings`), named in the
    header by ``view``."""
    errors = sum(1 for f in report.findings if f.severity == "error")
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    game = report.rules.partition("/")[0]
    plugin = _game_of(report.rules)
    card_text = plugin.card_text if plugin is not None else card_as_written
    players = tuple(report.flow.header.players) if report.flow is not None else ()
    names = CardNames(players, disclosure_of(report.rules))

    def cards(text: str) -> str:
        return card_words(text, names, card_text)

    out = [f"match {report.match_id}  ({report.rules}, {report.events} lines)  {source}"]
    if view is not None:
        out.append(f"  view: {view}")
    out += [f"  note: {n}" for n in report.notes]
    for f in findings if findings is not None else report.findings:
        out.append("")
        out.append(f"seq {f.seq}  {f.code}  [{f.severity}]")
        out.append(f"  rule      {f.rule}: {rule_statement(f.rule, game)}")
        out.append(f"  finding   {cards(f.message)}")
        if f.expected is not None or f.actual is not None:
            out.append(f"  expected  {_words_of(f.expected, cards)}")
            out.append(f"  recorded  {_words_of(f.actual, cards)}")
    out.append("")
    if not report.findings:
        out.append("no findings: the log follows the rules")
    out.append(f"result: {result_text(report.result)}")
    out.append(f"{errors} error{'s' * (errors != 1)}, "
               f"{warnings} warning{'s' * (warnings != 1)}")
    return "\n".join(out)


def _request_text(r: dict[str, Any], card_text: CardText) -> str:
    parts = [f"{r['request']} {r['action']} ({r['controller']}, {r['speed']} {r['timing']})"]
    if r.get("triggered"):
        parts.append(f"triggered by {r.get('source', '?')}")
    if r.get("key_cards"):
        parts.append("key " + cards_text(r["key_cards"], card_text))
    if r.get("targets"):
        parts.append("targets " + cards_text(r["targets"], card_text))
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
                         "result", "findings", "view"})


def _words(key: str) -> str:
    return key.replace("_", " ")


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _item_text(item: dict[str, Any], card_text: CardText) -> str:
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
            bits.append(f"{_words(k)} {cards_text(v, card_text)}")
    text = ", ".join(bits) or "-"
    return f"{card_text(head)}: {text}" if head is not None else text


def _player_lines(zones: dict[str, Any], size_word: str, card_text: CardText) -> list[str]:
    """A player's zones: the usual ones when the game has them, then the game's own."""
    rows: list[tuple[str, str]] = []
    items: list[tuple[str, list[str]]] = []
    if "deck_count" in zones or "life_count" in zones:
        deck = "life" if "life_count" in zones else "deck"
        rows.append((deck, _cards(zones.get('deck_count'))
                     + (f" (known: {cards_text(zones['deck_known'], card_text)})"
                        if zones.get("deck_known") else "")))
    if "hand_count" in zones:
        rows.append(("hand", _cards(zones.get('hand_count'))
                     + (f" (known: {cards_text(zones['hand_known'], card_text)})"
                        if zones.get("hand_known") else "")))
    if "graveyard" in zones:
        rows.append(("graveyard", cards_text(zones["graveyard"], card_text)))
    if "fog" in zones:
        rows.append(("fog", cards_text(zones["fog"], card_text)))
    for key, value in zones.items():  # zones of other games: card lists, counts, cards
        if key in _ZONES_SHOWN or isinstance(value, bool):
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            rows.append((_words(key), cards_text(value, card_text)))
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            items.append((_words(key), [_item_text(v, card_text) for v in value]))
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
                       f" [{cards_text(ch['cards'], card_text)}]")
            if ch.get("size_steps"):  # the abilities that make the size, in order
                out.append(f"      {size_word}: {'; '.join(ch['size_steps'])}")
    return out


def board_text(board: dict[str, Any]) -> str:
    """The table after one line: flow state, then each player's zones, in the words and
    card names of the board's game."""
    plugin = _game_of(str(board.get("rules", "")))
    card_text = plugin.card_text if plugin is not None else card_as_written
    size_word = plugin.size_word if plugin is not None else "size"
    out = [f"match {board['match_id']}  ({board['rules']})  board after seq {board['seq']}"]
    if board["turn_player"] is None:
        out.append("the game has not started")
    else:
        out.append(f"turn {board['turn']} · turn player {board['turn_player']} · "
                   f"chance {board['chance']} · passed: {', '.join(board['passed']) or '-'}")
    if board.get("view"):
        out.append(f"seen by {board['view']}: hidden cards show as ? or face down")
    own = [f"{_words(k)} {v}" for k, v in board.items()
           if k not in _BOARD_KEYS and _scalar(v)]
    if own:
        out.append(" · ".join(own))
    out.append("stage (bottom to top):" + ("" if board["stage"] else " empty"))
    out += [f"  {i}. {_request_text(r, card_text)}" for i, r in enumerate(board["stage"], start=1)]
    out.append("buffer:" + ("" if board["buffer"] else " empty"))
    out += [f"  - {_request_text(r, card_text)}" for r in board["buffer"]]
    if board.get("awaiting_resolution"):
        out.append(f"waiting to resolve: {board['awaiting_resolution']} (instant)")
    once = board.get("once_used") or {}
    if once:
        out.append("once per turn, used: " + "; ".join(
            f"{p}: {', '.join(a)}" for p, a in once.items()))
    for player, zones in (board.get("players") or {}).items():
        out.append("")
        out.append(player)
        out += _player_lines(zones, size_word, card_text)
    out.append("")
    out.append(f"result: {result_text(board.get('result'), 'undecided')}")
    findings = board.get("findings", [])
    errors = sum(1 for f in findings if f["severity"] == "error")
    out.append(f"findings so far: {len(findings)} ({errors} error{'s' * (errors != 1)})")
    return "\n".join(out)
