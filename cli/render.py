"""Text the CLI prints: a judge's report and a board, as read at the table, in English
or Japanese (``lang``, :mod:`cli.i18n`).

Rendering only: every value comes from the report or the board the library built.
Each line is one line of text: whatever a value from a log holds that is not printable (a
newline, a carriage return, a terminal escape, a right-to-left override) is written as an
escape within its line (:func:`~events.printable.escaped`), so that nothing a log says can
add a line, overwrite one, or turn one round.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.judge import Report
from coreflow_judge.adjudicator.next_step import NextStep, Waiting
from coreflow_judge.adjudicator.plugins import (
    GamePlugin,
    card_as_written,
    game_plugin,
    is_registered,
)
from coreflow_judge.cli.i18n import (
    NO_LABELS,
    Labels,
    japanese_labels,
    pad,
    severity_word,
    speed_word,
    text,
    width,
)
from coreflow_judge.cli.rule_text import rule_statement
from coreflow_judge.events.printable import escaped
from coreflow_judge.projections.view import FACE_DOWN, CardNames, disclosure_of

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


def words_of(v: Any, cards: Callable[[str], str], lang: str = "en") -> str:
    """A value of a finding's ``expected`` or ``actual`` (recorded), in words, as the text
    report and the viewer say it.

    ``cards`` names a card in the board's notation (``alice:C9`` -> ``alice:♣9``; see
    :func:`card_words`); ``lang`` (``en`` or ``ja``) is the language of the fixed words:
    yes, no, none and a result. A card, a list, a result, an effect (``move bob:♣9 from
    trump to graveyard``; its operation and fields stay as the log writes them) or a record
    of numbers is said in words; any other shape is compact JSON."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return text(lang, "value.yes" if v else "value.no")
    if isinstance(v, str):
        return cards(v)
    if isinstance(v, int | float):
        return str(v)
    if isinstance(v, list):
        if not v:
            return text(lang, "value.none")
        if all(isinstance(x, dict) and "op" in x for x in v):
            return "; ".join(words_of(x, cards, lang) for x in v)
        if all(isinstance(x, str | int | float) and not isinstance(x, bool) for x in v):
            return ", ".join(words_of(x, cards, lang) for x in v)
    if isinstance(v, dict):
        if "result" in v and set(v) <= {"result", "winner", "reason"}:
            return result_text(v, lang=lang)
        if "op" in v:
            bits = [str(v["op"])]
            for k, x in v.items():
                if k == "op":
                    continue
                said = (" ".join(words_of(c, cards, lang) for c in x)
                        if isinstance(x, list) and all(isinstance(c, str) for c in x)
                        else words_of(x, cards, lang) if _scalar(x) else None)
                if said is None:
                    return _json_words(v, cards)
                bits.append(said if k in _NAMED else f"{_words(k)} {said}")
            return " ".join(bits)
        if all(_scalar(x) or (isinstance(x, list) and all(_scalar(c) for c in x))
               for x in v.values()):
            sep = "; " if any(isinstance(x, list) for x in v.values()) else ", "
            return sep.join(f"{k}: {words_of(x, cards, lang)}" if isinstance(x, list)
                             else f"{_words(str(k))} {words_of(x, cards, lang)}"
                             for k, x in v.items())
    return _json_words(v, cards)


def _json_words(v: Any, cards: Callable[[str], str]) -> str:
    return cards(json.dumps(v, ensure_ascii=False))


def result_text(result: dict[str, Any] | None, short: bool = False, lang: str = "en") -> str:
    """A game's result in words; ``short``: "undecided" without the reason."""
    if result is None:
        return text(lang, "result.undecided" if short else "result.undecided_long")
    if result.get("result") == "win":
        return text(lang, "result.win", winner=result.get("winner"),
                    reason=result.get("reason"))
    return text(lang, "result.draw", reason=result.get("reason"))


def report_text(report: Report, source: str, findings: Sequence[Finding] | None = None,
                view: str | None = None, lang: str = "en") -> str:
    """A judge's report: a header, one block per finding, then the result.

    Cards are named as the board names them; a finding's ``expected`` and ``actual`` (the
    value the log recorded) are said in words. ``findings``: the report's findings as one
    viewer may read them (:meth:`projections.view.MatchView.findings`), named in the
    header by ``view``. In Japanese (``lang="ja"``) each finding shows the code's meaning
    and the rule's statement in Japanese, then the judge's English sentence."""
    from coreflow_judge.adjudicator.findings import meaning

    errors = report.errors
    more = sum(1 for f in report.findings if f.severity == "error") - errors
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    game = report.rules.partition("/")[0]
    plugin = _game_of(report.rules)
    card_text = plugin.card_text if plugin is not None else card_as_written
    players = tuple(report.flow.header.players) if report.flow is not None else ()
    names = CardNames(players, disclosure_of(report.rules))
    ja = lang == "ja"

    def cards(said: str) -> str:
        return card_words(said, names, card_text)

    rules = report.flow.rules if report.flow is not None else None
    labels = japanese_labels(report.rules) if ja else NO_LABELS

    def action_name(aid: str) -> str:
        if aid in labels.actions:
            return labels.actions[aid]
        action = rules.action(aid) if rules is not None else None
        return action.name if action is not None else aid

    out = [text(lang, "report.header", match=report.match_id, rules=report.rules,
                lines=report.events, source=source)]
    if view is not None:
        out.append(text(lang, "report.view", view=view))
    out += [text(lang, "report.note", note=n) for n in report.notes]
    for f, indent in grouped(findings if findings is not None else report.findings):
        block = [f"seq {f.seq}  {f.code}  [{severity_word(lang, f.severity)}]"]
        if ja:
            block.append(text(lang, "report.meaning", text=meaning(f.code, "ja") or "-"))
        block.append(text(lang, "report.rule", rule=f.rule,
                          text=rule_statement(f.rule, game, lang)))
        block.append(text(lang, "report.finding_en" if ja else "report.finding",
                          text=cards(f.message)))
        if f.expected is not None or f.actual is not None:
            block.append(text(lang, "report.expected",
                              text=words_of(f.expected, cards, lang)))
            block.append(text(lang, "report.recorded", text=words_of(f.actual, cards, lang)))
        if f.next is not None:
            block.append(text(lang, "report.next",
                              text=cards(next_text(f.next, action_name, lang))))
        if f.caused_by is not None:
            block.append(text(lang, "report.follows", seq=f.caused_by[0],
                              code=f.caused_by[1]))
        out.append("")
        out += [indent + line for line in block]
    out.append("")
    if not report.findings:
        out.append(text(lang, "report.clean"))
    out.append(text(lang, "report.result", text=result_text(report.result, lang=lang)))
    out.append(text(lang, "report.count_more" if more else "report.count", errors=errors,
                    es="s" * (errors != 1), more=more, s="s" * (more == 1),
                    them="them" if errors > 1 else "it",
                    warnings=warnings, ws="s" * (warnings != 1)))
    return _lines(out)


def _lines(out: Sequence[str]) -> str:
    """The printer's lines, each escaped as one line (see the module's docstring)."""
    return "\n".join(escaped(line) for line in out)


def grouped(findings: Sequence[Finding]) -> list[tuple[Finding, str]]:
    """The findings in line order, each that follows from another (``caused_by``) right
    after the one it follows from and indented under it; one whose cause is not among
    ``findings`` (a view that hides it) stands in its own place."""
    present = {(f.seq, f.code) for f in findings}
    under: dict[tuple[int, str], list[Finding]] = {}
    for f in findings:
        if f.caused_by is not None and f.caused_by in present:
            under.setdefault(f.caused_by, []).append(f)
    out: list[tuple[Finding, str]] = []
    for f in findings:
        if f.caused_by is not None and f.caused_by in present:
            continue
        out.append((f, ""))
        out += [(c, "    ") for c in under.pop((f.seq, f.code), [])]
    return out


def next_text(step: NextStep, action_name: Callable[[str], str], lang: str = "en") -> str:
    """What the rules wanted next (:func:`adjudicator.next_step.next_step`) in words:
    ``bob held the chance, with r2 (Summon Soldier of alice) on top of the stage: bob could
    pass, or request Counter or Search.`` ``action_name``: an action id's name in ``lang``."""

    def request(w: Waiting) -> str:
        return text(lang, "next.request", request=w.request, action=action_name(w.action),
                    controller=w.controller)

    def either(items: Sequence[str], last: str = "next.or") -> str:
        if len(items) < 2:
            return "".join(items)
        return text(lang, last, items=text(lang, "next.comma").join(items[:-1]),
                    last=items[-1])

    kind = step.step
    if kind == "over":
        return text(lang, "next.over_recorded" if step.end_recorded else "next.over",
                    result=result_text(step.result, lang=lang))
    if kind == "start":
        return text(lang, "next.start", players=either(step.players))
    if kind == "buffer":
        first = [w for w in step.waiting if w.first] or list(step.waiting)
        speeds = {w.speed for w in first}
        handled = text(lang, "next.handled_instant" if speeds == {"instant"} else
                       "next.handled_normal" if "instant" not in speeds else
                       "next.handled_mixed")
        if len(step.waiting) == 1 and not step.more:
            return text(lang, "next.buffer_one", request=request(step.waiting[0]),
                        handled=handled)
        shown = [request(w) for w in step.waiting]
        if step.more:  # a long buffer is quoted in part
            shown.append(text(lang, "next.more", count=step.more))
        return text(lang, "next.buffer", handled=handled,
                    requests=either(shown, "next.and"),
                    first=either([w.request for w in first]))
    if kind == "instant":
        return text(lang, "next.instant", request=request(step.waiting[0]))
    if kind == "resolve":
        return text(lang, "next.resolve", request=request(step.waiting[0]))
    holder = step.holder
    if holder is None:
        return text(lang, "next.none")
    allowed: dict[str, list[str]] = {}
    for a in step.requests:
        allowed.setdefault(a.player, []).append(action_name(a.action))
    mine = allowed.pop(holder, [])
    options = (text(lang, "next.holder_requests", player=holder, actions=either(mine))
               if mine else text(lang, "next.holder", player=holder))
    options += "".join(text(lang, "next.other_requests", player=p, actions=either(names))
                       for p, names in allowed.items())
    passed = (text(lang, "next.passed", players=either(step.passed, "next.and"))
              if step.passed else "")
    top = text(lang, "next.top", request=request(step.waiting[0])) if step.waiting else ""
    said = text(lang, "next.chance", holder=holder, passed=passed, top=top, options=options)
    if step.not_weighed is not None:
        said += text(lang, "next.not_weighed", code=step.not_weighed)
    return said


class _Words:
    """A board's words in one language: the fixed ones, and the game's own names (its
    actions, characters, zones and values) from its edition data in Japanese."""

    def __init__(self, lang: str, labels: Labels) -> None:
        self.lang = lang
        self.labels = labels

    def __call__(self, key: str) -> str:
        """A board key or value (``graveyard``, ``mana_tapped``, ``drive``) in words."""
        if self.lang == "ja":
            said = self.labels.word(key)
            if said is not None:
                return said
        return _words(key)

    def value(self, value: str) -> str:
        """A board value (``drive``, ``first``, a character id) as written, or its Japanese."""
        if self.lang == "ja":
            said = self.labels.word(value)
            if said is not None:
                return said
        return value

    def action(self, action: str) -> str:
        if self.lang == "ja":
            return self.labels.actions.get(action, action)
        return action

    def speed(self, word: str) -> str:
        return speed_word(self.lang, word)


_ENGLISH = _Words("en", NO_LABELS)


def _request_text(r: dict[str, Any], card_text: CardText, words: _Words = _ENGLISH) -> str:
    lang = words.lang
    parts = [text(lang, "board.request", request=r["request"], action=words.action(r["action"]),
                  controller=r["controller"], speed=words.speed(r["speed"]),
                  timing=words.speed(r["timing"]))]
    if r.get("triggered"):
        parts.append(text(lang, "board.triggered_by", source=r.get("source", "?")))
    if r.get("key_cards"):
        parts.append(text(lang, "board.key", cards=cards_text(r["key_cards"], card_text)))
    if r.get("targets"):
        parts.append(text(lang, "board.targets", cards=cards_text(r["targets"], card_text)))
    return " · ".join(parts)


def _cards(n: Any, lang: str = "en") -> str:
    """``6 cards``, ``1 card``, ``unknown cards`` (``6枚``, ``不明``)."""
    if n is None and lang == "ja":
        return text(lang, "board.unknown")
    count = text(lang, "board.unknown") if n is None else str(n)
    return text(lang, "board.cards", count=count, s="" if n == 1 else "s")


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


def _item_text(item: dict[str, Any], card_text: CardText, words: _Words = _ENGLISH) -> str:
    """One card of a game's own zone (a camp): its reference, then its numbers and flags."""
    head = next((str(v) for k, v in item.items() if k in ("card", "character", "ref")), None)
    bits: list[str] = []
    for k, v in item.items():
        if k in ("card", "character", "ref") or v is None or v is False:
            continue
        if k == "face" and head == FACE_DOWN:
            continue  # a hidden card says it is face down already
        if v is True:
            bits.append(words(k))
        elif k == "state":
            bits.append(words.value(str(v)))
        elif isinstance(v, str):
            bits.append(f"{words(k)} {words.value(v)}")
        elif _scalar(v):
            bits.append(f"{words(k)} {v}")
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            bits.append(f"{words(k)} {cards_text(v, card_text)}")
    said = ", ".join(bits) or "-"
    if head == FACE_DOWN:  # a card hidden from this view
        hidden = text(words.lang, "board.face_down")
        return f"{hidden}: {said}" if bits else hidden
    return f"{card_text(head)}: {said}" if head is not None else said


def _runs(lines: list[str]) -> list[str]:
    """Lines of a zone with each run of the same line said once, with its count
    (fourteen face-down cards of an unopened pack are ``face down ×14``)."""
    out: list[str] = []
    count = 0
    for i, line in enumerate(lines):
        count += 1
        if i + 1 == len(lines) or lines[i + 1] != line:
            out.append(f"{line} ×{count}" if count > 1 else line)
            count = 0
    return out


def _player_lines(zones: dict[str, Any], size_word: str, card_text: CardText,
                  words: _Words = _ENGLISH) -> list[str]:
    """A player's zones: the usual ones when the game has them, then the game's own."""
    lang = words.lang
    rows: list[tuple[str, str]] = []
    items: list[tuple[str, list[str]]] = []

    def known(key: str) -> str:
        shown = zones.get(key)
        return text(lang, "board.known", cards=cards_text(shown, card_text)) if shown else ""

    if "deck_count" in zones or "life_count" in zones:
        deck = "life" if "life_count" in zones else "deck"
        rows.append((words(deck), _cards(zones.get("deck_count"), lang) + known("deck_known")))
    if "hand_count" in zones:
        rows.append((words("hand"), _cards(zones.get("hand_count"), lang) + known("hand_known")))
    if "graveyard" in zones:
        rows.append((words("graveyard"), cards_text(zones["graveyard"], card_text)))
    if "fog" in zones:
        rows.append((words("fog"), cards_text(zones["fog"], card_text)))
    for key, value in zones.items():  # zones of other games: card lists, counts, cards
        if key in _ZONES_SHOWN:
            continue
        if isinstance(value, bool):  # a zone's state (a frame's pack opened)
            rows.append((words(key), text(lang, "board.yes" if value else "board.no")))
            continue
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            rows.append((words(key), cards_text(value, card_text)))
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            items.append((words(key), [_item_text(v, card_text, words) for v in value]))
        elif isinstance(value, str):
            rows.append((words(key), words.value(value)))
        elif _scalar(value):
            rows.append((words(key), str(value)))
    field = zones.get("field")
    field_word = words("field")
    column = max([9, width(field_word)] + [width(label) for label, _text in rows]
                 + [width(label) for label, _lines in items])
    out = [f"  {pad(label, column)} {said}" for label, said in rows]
    for label, lines in items:
        out.append(f"  {pad(label, column)} -" if not lines else f"  {label}")
        out += [f"    {line}" for line in _runs(lines)]
    if field is not None:
        out.append(f"  {field_word}" if field else f"  {pad(field_word, column)} -")
        size_said = words.value(size_word)
        for ch in field:
            bits = [words.value(ch["kind"]), words.value(ch["state"])]
            if ch.get("face_down"):
                bits.append(text(lang, "board.face_down"))
            if ch.get("size") is not None:
                bits.append(f"{size_said} {ch['size']}")
            if ch.get("entered_turn") is not None:
                bits.append(text(lang, "board.entered", turn=ch["entered_turn"]))
            out.append(f"    {card_text(ch['character'])}: {', '.join(bits)}"
                       f" [{cards_text(ch['cards'], card_text)}]")
            if ch.get("size_steps"):  # the abilities that make the size, in order
                out.append(f"      {size_said}: {'; '.join(ch['size_steps'])}")
    return out


def board_text(board: dict[str, Any], lang: str = "en") -> str:
    """The table after one line: flow state, then each player's zones, in the words and
    card names of the board's game; in Japanese (``lang="ja"``) with the names of the
    game's edition data (:func:`cli.i18n.japanese_labels`)."""
    rules = str(board.get("rules", ""))
    plugin = _game_of(rules)
    card_text = plugin.card_text if plugin is not None else card_as_written
    size_word = plugin.size_word if plugin is not None else "size"
    words = _Words(lang, japanese_labels(rules) if lang == "ja" else NO_LABELS)
    out = [text(lang, "board.header", match=board["match_id"], rules=board["rules"],
                seq=board["seq"])]
    if board["turn_player"] is None:
        out.append(text(lang, "board.not_started"))
    else:
        out.append(text(lang, "board.turn", turn=board["turn"], player=board["turn_player"],
                        chance=board["chance"], passed=", ".join(board["passed"]) or "-"))
    if board.get("view"):
        out.append(text(lang, "board.seen_by", view=board["view"]))
    own = [f"{words(k)} {words.value(v) if isinstance(v, str) else v}" for k, v in board.items()
           if k not in _BOARD_KEYS and _scalar(v)]
    if own:
        out.append(" · ".join(own))
    empty = text(lang, "board.empty")
    out.append(text(lang, "board.stage") + ("" if board["stage"] else empty))
    out += [f"  {i}. {_request_text(r, card_text, words)}"
            for i, r in enumerate(board["stage"], start=1)]
    out.append(text(lang, "board.buffer") + ("" if board["buffer"] else empty))
    out += [f"  - {_request_text(r, card_text, words)}" for r in board["buffer"]]
    if board.get("awaiting_resolution"):
        out.append(text(lang, "board.waiting", request=board["awaiting_resolution"]))
    once = board.get("once_used") or {}
    if once:
        out.append(text(lang, "board.once_used") + "; ".join(
            f"{p}: {', '.join(words.action(x) for x in a)}" for p, a in once.items()))
    for player, zones in (board.get("players") or {}).items():
        out.append("")
        out.append(player)
        out += _player_lines(zones, size_word, card_text, words)
    out.append("")
    out.append(text(lang, "report.result", text=result_text(board.get("result"), short=True,
                                                            lang=lang)))
    findings = board.get("findings", [])
    errors = sum(1 for f in findings if f["severity"] == "error")
    out.append(text(lang, "board.findings", count=len(findings), errors=errors,
                    es="s" * (errors != 1)))
    return _lines(out)
