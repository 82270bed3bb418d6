"""What one viewer may see of a match: the board, the findings and the log, by the
disclosure levels of the match's game (:mod:`adjudicator.disclosure`).

A viewer is ``judge`` (everything: the board as it is), a player of the match (their own
zones, every public zone, counts of the rest) or ``spectator`` (public zones only, counts
of the rest). Nothing here knows a game: the levels, and the pattern of a card's name,
come from the game's plugin (``GamePlugin.disclosure``).

How a card is kept from a viewer (docs/decisions.md, "Views"):

* In the viewer's zones of the board, by the zone's rule: a hand the viewer may not see is
  emptied (its count stays), a pile shows ``?`` for each card it hides, a face-down item
  shows ``face down`` for its cards (its kind, state and turn stay; its size goes, as it
  would tell the rank).
* Everywhere else (the stage, the buffer, findings, the log) a card is named only if it is
  *in sight* of the viewer: in a zone, or part of a zone, the viewer may see at that moment,
  or a key card of a request on the stage or in the buffer. Any other card is replaced:
  ``alice:?`` in data (the placeholder of the log format), "a hidden card" in a finding's
  text. A card named alone (``S8`` in a text) is kept only when every player's copy of it
  is in sight.
* A line of the log, or a finding, names a card only if it was in sight after that line
  *and* is still in sight at the moment the view is taken (the end of the log for ``log``
  and ``judge``): conservative, a card seen once is not remembered for the viewer.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coreflow_judge.adjudicator.disclosure import Disclosure, Level, ZoneRule
from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.judge import Report
from coreflow_judge.adjudicator.plugins import game_plugin, is_registered
from coreflow_judge.events.models import LogLine, MatchStarted
from coreflow_judge.events.reader import LineError
from coreflow_judge.projections.board import BoardProjector, Item

JUDGE = "judge"
SPECTATOR = "spectator"
FACE_DOWN = "face down"
"""What a face-down card the viewer may not see shows instead of its name."""
HIDDEN = "?"
"""What a card the viewer may not see shows in a pile, and after ``owner:`` in data."""
HIDDEN_IN_TEXT = "a hidden card"
"""What a card the viewer may not see becomes in a finding's text."""
_ITEM_HEADS = ("character", "card", "ref")
_ITEM_KEPT = frozenset({"kind", "state", "face_down", "face", "entered_turn"})
"""What a face-down item still shows to a viewer who may not see it."""


class UnknownViewer(ValueError):
    """``--view`` names neither judge, spectator nor a player of the match."""

    def __init__(self, viewer: str, players: Sequence[str]) -> None:
        super().__init__(f"--view {viewer!r}: not a player of this match (its players: "
                         f"{', '.join(players)}; or judge, spectator)")


def check_viewer(viewer: str, players: Sequence[str]) -> str:
    """``viewer`` if it is judge, spectator or one of ``players``; else UnknownViewer."""
    if viewer in (JUDGE, SPECTATOR) or viewer in players:
        return viewer
    raise UnknownViewer(viewer, players)


def disclosure_of(rules: str) -> Disclosure:
    """The disclosure of the game of a ``game/edition`` (an unknown game: all hidden)."""
    game = rules.partition("/")[0]
    return game_plugin(game).disclosure if is_registered(game) else Disclosure()


def may_see(level: Level, viewer: str, owner: str) -> bool:
    """Whether ``viewer`` may know a zone of ``owner`` at ``level``."""
    return viewer == JUDGE or level == "public" or (level == "owner" and viewer == owner)


def _face_down(item: Mapping[str, Any]) -> bool:
    return item.get("face_down") is True or item.get("face") == "down"


def _item_level(rule: ZoneRule, item: Mapping[str, Any]) -> Level:
    return rule.face_down if rule.face_down is not None and _face_down(item) else rule.level


def _ref(owner: str, card: str) -> str:
    return card if ":" in card else f"{owner}:{card}"


def _item_cards(owner: str, item: Mapping[str, Any]) -> Iterable[str]:
    for key in _ITEM_HEADS:
        value = item.get(key)
        if isinstance(value, str):
            yield _ref(owner, value)
    cards = item.get("cards")
    if isinstance(cards, list):
        yield from (_ref(owner, c) for c in cards if isinstance(c, str))


# ------------------------------------------------------------------ what is in sight


def in_sight(board: Mapping[str, Any], viewer: str, disclosure: Disclosure) -> set[str]:
    """Every card (``owner:name``) the viewer may see on this board: in the zones (and
    parts of zones) the levels open to them, and the key cards on the stage and in the
    buffer. For the judge too (the cards the board names)."""
    seen: set[str] = set()
    for owner, zones in (board.get("players") or {}).items():
        for zone, value in zones.items():
            if not isinstance(value, list):
                continue
            rule = disclosure.rule(zone)
            if all(isinstance(v, str) for v in value):
                if may_see(rule.level, viewer, owner):
                    seen.update(_ref(owner, c) for c in value)
                elif value and rule.top is not None and may_see(rule.top, viewer, owner):
                    seen.add(_ref(owner, value[-1]))
                continue
            for item in value:
                if isinstance(item, dict) and may_see(_item_level(rule, item), viewer, owner):
                    seen.update(_item_cards(owner, item))
    for req in [*(board.get("stage") or []), *(board.get("buffer") or [])]:
        seen.update(c for c in req.get("key_cards", []) if isinstance(c, str))
    seen.discard("")
    return {c for c in seen if not c.endswith(":" + HIDDEN)}


# ------------------------------------------------------------------ naming cards


@dataclass(frozen=True)
class CardNames:
    """How a match names its cards: ``owner:name`` references and names alone."""

    players: tuple[str, ...]
    disclosure: Disclosure

    @property
    def pattern(self) -> re.Pattern[str]:
        return _card_pattern(self.players, self.disclosure.card_name,
                             self.disclosure.card_in_text)

    def name(self) -> re.Pattern[str]:
        return _full(self.disclosure.card_name)

    def sub(self, text: str, fn: Callable[[str | None, str], str]) -> str:
        """``text`` with each card it names replaced by ``fn(owner or None, name)``."""
        def one(m: re.Match[str]) -> str:
            if m.group("owner") is not None:
                return fn(m.group("owner"), m.group("ref"))
            return fn(None, m.group("bare"))

        return self.pattern.sub(one, text)


_PATTERNS: dict[tuple[tuple[str, ...], str, str], re.Pattern[str]] = {}


def _card_pattern(players: tuple[str, ...], name: str, in_text: str) -> re.Pattern[str]:
    key = (players, name, in_text)
    if key not in _PATTERNS:
        owners = "|".join(re.escape(p) for p in sorted(players, key=len, reverse=True))
        parts = [rf"(?<![\w:])(?P<owner>{owners}):(?P<ref>(?:{name}))(?![\w#])"] if owners \
            else []
        if in_text:
            parts.append(rf"(?<![\w:#])(?P<bare>(?:{in_text}))(?![\w#])")
        _PATTERNS[key] = re.compile("|".join(parts) or r"(?!x)x")
    return _PATTERNS[key]


def _full(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{name})")


class Redactor:
    """Replaces, in texts and data, every card not in ``sight`` (``owner:name`` set)."""

    def __init__(self, names: CardNames, sight: set[str]) -> None:
        self.names = names
        self.sight = sight
        self.players = names.players
        self._name = names.name()

    def shows(self, owner: str | None, card: str) -> bool:
        if card == HIDDEN:
            return True
        if owner is not None:
            return f"{owner}:{card}" in self.sight
        return all(f"{p}:{card}" in self.sight for p in self.players)

    def text(self, text: str) -> str:
        def one(owner: str | None, card: str) -> str:
            if self.shows(owner, card):
                return f"{owner}:{card}" if owner is not None else card
            return HIDDEN_IN_TEXT

        return self.names.sub(text, one)

    def data(self, value: Any, owner: str | None = None) -> Any:
        """A copy of ``value`` with hidden cards replaced: ``owner:?`` for a reference,
        ``?`` for a name in a player's list (under a key that is the player's name)."""
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                key = self.data(k, owner) if isinstance(k, str) and k not in self.players \
                    else k
                while key in out:  # two hidden cards as keys: ``bob:?``, ``bob:?#2``
                    key = f"{key.partition('#')[0]}#{len(out) + 1}"
                out[key] = self.data(v, k if k in self.players else owner)
            return out
        if isinstance(value, list):
            return [self.data(v, owner) for v in value]
        if not isinstance(value, str):
            return value
        head, sep, card = value.partition(":")
        if sep and head in self.players and self._name.fullmatch(card):
            return value if self.shows(head, card) else f"{head}:{HIDDEN}"
        if owner is not None and self._name.fullmatch(value):
            return value if self.shows(owner, value) else HIDDEN
        return self.names.sub(value, lambda o, c: (f"{o}:{c}" if o is not None else c)
                              if self.shows(o, c) else
                              (f"{o}:{HIDDEN}" if o is not None else HIDDEN))

    def finding(self, f: dict[str, Any]) -> dict[str, Any]:
        out = dict(f)
        out["message"] = self.text(str(f.get("message", "")))
        for key in ("expected", "actual"):
            if key in out:
                out[key] = self.data(out[key])
        return out


# ------------------------------------------------------------------ the board


def _zone_view(owner: str, zone: str, value: Any, viewer: str, rule: ZoneRule) -> Any:
    seen = may_see(rule.level, viewer, owner)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        if seen:
            return value
        if rule.public_below is not None:
            return value if value < rule.public_below else f"{rule.public_below}+"
        return None
    if isinstance(value, str):
        return value if seen else HIDDEN
    if not isinstance(value, list):
        return value if seen else None
    if all(isinstance(v, str) for v in value):
        if seen:
            return list(value)
        if rule.counted_by is not None:
            return []
        shown = [HIDDEN] * len(value)
        if value and rule.top is not None and may_see(rule.top, viewer, owner):
            shown[-1] = value[-1]
        return shown
    out = []
    for item in value:
        if not isinstance(item, dict) or may_see(_item_level(rule, item), viewer, owner):
            out.append(copy.deepcopy(item))
            continue
        hidden: dict[str, Any] = {}
        for k, v in item.items():
            if k in _ITEM_HEADS:
                hidden[k] = FACE_DOWN
            elif k == "cards" and isinstance(v, list):
                hidden[k] = [FACE_DOWN] * len(v)
            elif k in _ITEM_KEPT:
                hidden[k] = v
        out.append(hidden)
    return out


def board_view(board: Mapping[str, Any], viewer: str, disclosure: Disclosure,
               findings_sight: Callable[[int], set[str]] | None = None,
               players: Sequence[str] | None = None) -> dict[str, Any]:
    """The board as ``viewer`` may see it (``judge``: the board itself).

    ``findings_sight(seq)``: the cards in sight of the viewer after line ``seq``; a
    finding names a card only if it is in sight then and now (without it: now).
    ``players``: the match's players (default: the board's, none before the game starts).
    """
    if viewer == JUDGE:
        return dict(board)
    players = tuple(players if players is not None else board.get("players") or ())
    check_viewer(viewer, players)
    if disclosure.everything_public:
        return {**board, "view": viewer}
    sight = in_sight(board, viewer, disclosure)
    names = CardNames(players, disclosure)
    now = Redactor(names, sight)
    out: dict[str, Any] = {}
    for key, value in board.items():
        if key == "players":
            out[key] = {
                owner: {zone: _zone_view(owner, zone, v, viewer, disclosure.rule(zone))
                        for zone, v in zones.items()}
                for owner, zones in value.items()}
        elif key == "findings":
            out[key] = [_finding_for(f, names, sight, findings_sight) for f in value]
        else:
            out[key] = now.data(copy.deepcopy(value))
    out["view"] = viewer
    return out


def _finding_for(f: dict[str, Any], names: CardNames, sight: set[str],
                 findings_sight: Callable[[int], set[str]] | None) -> dict[str, Any]:
    seen = sight if findings_sight is None else sight & findings_sight(int(f["seq"]))
    return Redactor(names, seen).finding(f)


# ------------------------------------------------------------------ a match


class MatchView:
    """One viewer's view of a match: its boards, its findings and its log."""

    def __init__(self, projector: BoardProjector, viewer: str) -> None:
        self.projector = projector
        first = projector.items[0][1]
        players = tuple(first.players) if isinstance(first, MatchStarted) else ()
        self.viewer = check_viewer(viewer, players)
        self.rules = first.rules if isinstance(first, MatchStarted) else ""
        self.disclosure = disclosure_of(self.rules)
        self.names = CardNames(players, self.disclosure)
        self._sight: dict[int, set[str]] = {}

    def sight(self, seq: int) -> set[str]:
        """The cards in sight of the viewer after line ``seq`` (clamped to the log)."""
        seq = min(max(seq, self.projector.first_seq), self.projector.last_seq)
        if seq not in self._sight:
            self._sight[seq] = in_sight(self.projector.at(seq), self.viewer,
                                        self.disclosure)
        return self._sight[seq]

    def board(self, seq: int | None = None) -> dict[str, Any]:
        board = self.projector.at(seq)
        return board_view(board, self.viewer, self.disclosure, self.sight, self.names.players)

    def findings(self, findings: Sequence[Finding], at: int | None = None) -> list[Finding]:
        """``findings`` as the viewer may read them, at line ``at`` (default: the last)."""
        if self.viewer == JUDGE or self.disclosure.everything_public:
            return list(findings)
        now = self.sight(self.projector.last_seq if at is None else at)
        out = []
        for f in findings:
            red = Redactor(self.names, now & self.sight(f.seq))
            out.append(dataclasses.replace(f, message=red.text(f.message),
                                           expected=red.data(f.expected),
                                           actual=red.data(f.actual)))
        return out

    def log(self, at: int | None = None) -> list[dict[str, Any]]:
        """The log up to line ``at`` (default: all of it) as the viewer may read it:
        each line's hidden cards replaced by ``owner:?`` (``?`` in a player's list), the
        header's decks by their sizes, and no hash (a redacted log is not the record)."""
        end = self.projector.last_seq if at is None else at
        now = self.sight(end)
        out: list[dict[str, Any]] = []
        for _no, line in self.projector.items:
            if isinstance(line, LineError) or line.seq > end:
                continue
            data = line.model_dump(mode="json", exclude_none=True)
            if self.viewer == JUDGE or self.disclosure.everything_public:
                out.append(data)
                continue
            data.pop("hash", None)
            red = Redactor(self.names, now & self.sight(line.seq))
            if isinstance(line, MatchStarted):
                data = _header(data, red)
            else:
                data = red.data(data)
                if isinstance(data.get("note"), str):
                    data["note"] = red.text(data["note"])
            out.append(data)
        return out


def _header(data: dict[str, Any], red: Redactor) -> dict[str, Any]:
    """The header for a viewer: a deck's order is hidden from every player, so ``decks``
    gives way to ``deck_sizes`` when the viewer may not see every card of it."""
    decks = data.get("decks")
    if isinstance(decks, dict):
        redacted = red.data(decks)
        if redacted != decks:
            data.pop("decks")
            data["deck_sizes"] = {p: len(cards) for p, cards in decks.items()}
    return {k: (red.data(v) if k not in ("match_id", "game", "rules", "format", "players",
                                         "deck_sizes", "type", "seq") else v)
            for k, v in data.items()}


def match_view(lines: Sequence[LogLine] | BoardProjector, viewer: str) -> MatchView:
    """The view of ``viewer`` on a match given by its lines or its board projector."""
    projector = lines if isinstance(lines, BoardProjector) else BoardProjector.from_lines(lines)
    return MatchView(projector, viewer)


def log_jsonl(lines: Sequence[Mapping[str, Any]]) -> str:
    """Lines of a (redacted) log as JSONL, written as a complete log writes them."""
    return "".join(json.dumps(dict(line), separators=(",", ":"), ensure_ascii=False) + "\n"
                   for line in lines)


def viewed_report(report: Report, items: Iterable[tuple[int, Item]] | Iterable[LogLine],
                  viewer: str) -> list[Finding]:
    """The findings of ``report`` (on the log ``items``) as ``viewer`` may read them."""
    return MatchView(BoardProjector(items), viewer).findings(report.findings)


def viewed_report_dict(report: Report, findings: Sequence[Finding], viewer: str
                       ) -> dict[str, Any]:
    """The JSON report with ``findings`` as the viewer reads them, and the viewer named."""
    out = report.as_dict()
    out["findings"] = [f.as_dict() for f in findings]
    if viewer != JUDGE:
        out["view"] = viewer
    return out
