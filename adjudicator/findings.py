"""Findings: what the judge reports when a recorded match departs from the rules.

The codes are a public contract (docs/findings.md): judges cite them, auditors group by
them, fixtures assert them. Never rename or reuse one. :data:`CODES` holds the codes every
game can give; a game's own codes (a step order, a once-per-game use) come with the game
(:attr:`GamePlugin.codes <adjudicator.plugins.GamePlugin.codes>`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.next_step import NextStep

Severity = Literal["error", "warning", "info"]

#: code -> (default severity, one-line meaning): the game-agnostic part of the catalogue
#: of docs/findings.md.
CODES: dict[str, tuple[Severity, str]] = {
    "log.malformed": ("error", "a line is not valid JSON or not a valid event"),
    "log.seq-gap": ("error", "seq is not 1, 2, 3, ... in order"),
    "log.unknown-ref": ("error", "an event names a player, card or request that does not exist"),
    "log.after-game-end": ("error", "a game event after a recorded game_ended line"),
    "log.choice-missing": ("warning", "a choice the rules require is not recorded"),
    "log.call-ambiguous": ("warning", "a shortcut call cannot stand for the passes it implies"),
    "log.claim-mismatch": ("warning", "a request's speed or timing claim contradicts its action"),
    "log.taken-back": ("info", "lines taken back at the table by a correction, not judged"),
    "log.not-judged-yet": ("warning", "an action or ability of the regulation that the "
                           "judge does not judge yet: its effects are not followed"),
    "log.hidden-info": ("warning", "a ruling depends on a card or count the log does not show"),
    "timing.no-chance": ("error", "a request or pass by a player not holding the chance"),
    "timing.main-not-turn-player": ("error", "a main-timing request by a non-turn player"),
    "timing.main-stage-not-empty": ("error", "a main-timing request while the stage holds one"),
    "timing.not-directly-actionable": ("error", "a player requested a rules-only action"),
    "timing.once-per-turn": ("error", "a once-per-turn action taken twice in a turn"),
    "timing.resolved-before-all-passed": ("error", "resolved before every player passed"),
    "timing.chance-wrong-player": ("error", "a recorded chance move names the wrong holder"),
    "timing.turn-wrong-player": ("error", "a turn played by a player whose turn it was not"),
    "order.stage-not-lifo": ("error", "a stage request resolved under a later one"),
    "order.trigger-turn-order": ("error", "triggered requests handled out of turn order"),
    "order.trigger-instant-before-normal": ("error", "a normal trigger staged before instants"),
    "order.trigger-main-before-quick": ("error", "a quick trigger handled before main ones"),
    "order.main-trigger-not-discarded": ("error", "a main trigger staged on a non-empty stage"),
    "order.trigger-wrongly-discarded": ("error", "a triggered request discarded on an empty stage"),
    "order.trigger-missed": ("error", "a trigger condition was met but its request never recorded"),
    "order.trigger-spurious": ("error", "a triggered request recorded whose condition was not met"),
    "order.instant-before-own-trigger": ("error", "a cost-triggered instant resolved too early"),
    "order.request-never-resolved": ("error", "a request left on the stage that the table "
                                     "went on without"),
    "order.win-check-missed": ("error", "play went on after the game was decided"),
    "precedence.scope-order": ("error", "abilities applied out of scope order"),
    "precedence.timestamp-order": ("error", "same-scope abilities applied against timestamps"),
    "precedence.prohibition-over-permission": ("error", "a 'can' won over a 'cannot'"),
    "precedence.value-mismatch": ("error", "a recorded value differs from the computed one"),
    "legality.unknown-action": ("error", "the action is not in the format's action list"),
    "legality.cost-unpaid": ("error", "a cost not paid, or paid wrongly"),
    "legality.key-card-invalid": ("error", "a key card missing or not matching the condition"),
    "legality.target-invalid": ("error", "a target not meeting the target condition"),
    "legality.fizzle-not-applied": ("error", "an effect applied although its target was gone"),
    "legality.partial-not-applied": ("error", "partial execution skipped or overdone"),
    "legality.choice-invalid": ("error", "a choice made while resolving is not allowed"),
    "legality.effect-mismatch": ("error", "the recorded result differs from the rules' result"),
    "legality.key-card-not-to-graveyard": ("error", "key card not moved to the graveyard"),
    "legality.result-mismatch": ("error", "the recorded game result differs from the rules'"),
}


#: code -> the same one-line meaning in Japanese (written for this tool; the test
#: tests/test_i18n.py checks that every code of the catalogue has one).
CODES_JA: dict[str, str] = {
    "log.malformed": "行が正しいJSONでないか、正しいイベントになっていない",
    "log.seq-gap": "seq が 1, 2, 3, … の順に並んでいない",
    "log.unknown-ref": "存在しないプレイヤー・カード・リクエストを指している",
    "log.after-game-end": "game_ended の行の後にゲームのイベントがある",
    "log.choice-missing": "ルールが求める選択が記録されていない",
    "log.call-ambiguous": "省略の宣言（スルーなど）が、それが表すはずのパスとして読めない",
    "log.claim-mismatch": "リクエストに書かれたスピードやタイミングがアクションの定義と食い違う",
    "log.taken-back": "卓上の訂正（取り消し）で取り消された行：判定の対象外",
    "log.not-judged-yet": "レギュレーションにあるが、まだ判定できないアクションまたは能力："
                          "その効果は追跡しない",
    "log.hidden-info": "判定がログに現れないカードや枚数に左右される",
    "timing.no-chance": "チャンスを持っていないプレイヤーのリクエストまたはパス",
    "timing.main-not-turn-player": ("ターンプレイヤーでないプレイヤーによる"
                                    "メインタイミングのリクエスト"),
    "timing.main-stage-not-empty": "ステージにリクエストがある間のメインタイミングのリクエスト",
    "timing.not-directly-actionable": "ルールだけが起こせるアクションをプレイヤーがリクエストした",
    "timing.once-per-turn": "1ターンに1回のアクションを同じターンに2回行った",
    "timing.resolved-before-all-passed": "全プレイヤーがパスする前に解決された",
    "timing.chance-wrong-player": "記録されたチャンスの移動先が誤っている",
    "timing.turn-wrong-player": "ターンプレイヤーでないプレイヤーがそのターンを行った",
    "order.stage-not-lifo": "ステージのリクエストが、後から積まれたリクエストより先に解決された",
    "order.trigger-turn-order": "誘発したリクエストがターン順どおりに処理されていない",
    "order.trigger-instant-before-normal": "即時の誘発より先に通常の誘発がステージに置かれた",
    "order.trigger-main-before-quick": "メインの誘発より先にクイックの誘発が処理された",
    "order.main-trigger-not-discarded": ("空でないステージにメインタイミングの誘発が"
                                         "置かれた（破棄すべき）"),
    "order.trigger-wrongly-discarded": "空のステージで誘発したリクエストが破棄された",
    "order.trigger-missed": "誘発条件を満たしたのに、そのリクエストが記録されていない",
    "order.trigger-spurious": "誘発条件を満たしていないのに誘発したリクエストが記録された",
    "order.instant-before-own-trigger": ("コストで誘発した即時のリクエストが早すぎる時点で"
                                         "解決された"),
    "order.request-never-resolved": "ステージに残った依頼を解決しないまま、卓が先へ進んだ",
    "order.win-check-missed": "勝敗が決まった後もゲームが続けられた",
    "precedence.scope-order": "能力が適用範囲の順に適用されていない",
    "precedence.timestamp-order": "同じ適用範囲の能力がタイムスタンプの順に適用されていない",
    "precedence.prohibition-over-permission": "「できる」が「できない」より優先された",
    "precedence.value-mismatch": "記録された値が計算した値と異なる",
    "legality.unknown-action": "フォーマットのアクション一覧にないアクション",
    "legality.cost-unpaid": "コストが支払われていない、または正しく支払われていない",
    "legality.key-card-invalid": "キーカードがない、または条件を満たしていない",
    "legality.target-invalid": "対象が対象条件を満たしていない",
    "legality.fizzle-not-applied": "対象がなくなったのに効果が適用された",
    "legality.partial-not-applied": "可能な部分だけの実行が行われていない、または行われすぎた",
    "legality.choice-invalid": "解決時の選択が許されていない",
    "legality.effect-mismatch": "記録された結果がルールによる結果と異なる",
    "legality.key-card-not-to-graveyard": "キーカードが墓地に移されていない",
    "legality.result-mismatch": "記録されたゲームの結果がルールによる結果と異なる",
}


@dataclass(slots=True)
class Finding:
    """One departure from the rules, tied to the log line (``seq``) it is about."""

    code: str
    seq: int
    rule: str
    message: str
    severity: Severity = "error"
    expected: Any = None
    actual: Any = None
    caused_by: tuple[int, str] | None = None
    """The finding this one follows from, by its line and code: without that line, this
    finding's line keeps the rules (docs/decisions.md, "Consequences")."""
    next: NextStep | None = None
    """What the rules wanted next, from the table as the judge had it just before the
    line (after any repair there): set on the errors a player's line raised
    (:func:`adjudicator.replay.attach_next`), absent on others."""
    parts: Sequence[Finding] = field(default=(), repr=False, compare=False)
    """The findings of the same code and line this one stands for (:func:`merge`), each
    as it was reported; empty for a finding reported once. Never in the JSON report."""
    said: _Said | None = field(default=None, repr=False, compare=False)
    """What the parts say together, kept as they come (:func:`merge`); None until then."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "seq": self.seq, "severity": self.severity,
                               "rule": self.rule, "message": self.message}
        if self.expected is not None:
            out["expected"] = deepcopy(self.expected)
        if self.actual is not None:
            out["actual"] = deepcopy(self.actual)
        if self.caused_by is not None:
            out["caused_by"] = {"seq": self.caused_by[0], "code": self.caused_by[1]}
        if self.next is not None:
            out["next"] = self.next.as_dict()
        return out


_RANK: dict[str, int] = {"error": 2, "warning": 1, "info": 0}


MESSAGES = 10
"""The most distinct messages a finding that stands for several (:func:`merge`) says in
full; past that, how many more there were: a log may repeat one line's seq as often as it
likes, and merging one more part costs the same however many came before."""


def _key(value: Any) -> Any:
    """``value`` as a key equal for equal values (a list or a dict by its JSON text)."""
    try:
        hash(value)
    except TypeError:
        return (1, json.dumps(value, sort_keys=True, default=repr))
    return (0, value)


class _Distinct:
    """The distinct values set among the parts' (of ``expected`` or ``actual``), in order."""

    __slots__ = ("keys", "values")

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.keys: set[Any] = set()

    def add(self, value: Any) -> None:
        if value is None:
            return
        key = _key(value)
        if key not in self.keys:
            self.keys.add(key)
            self.values.append(value)

    def together(self) -> Any:
        """None for none, the value for one, the list of them for several."""
        values = self.values
        if not values:
            return None
        return values[0] if len(values) == 1 else values


class _Said:
    """What the parts of a merged finding say together, kept as each part comes."""

    __slots__ = ("expected", "actual", "messages", "seen", "more", "severity")

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.seen: set[str] = set()
        self.more = 0
        self.expected = _Distinct()
        self.actual = _Distinct()
        self.severity: Severity = "info"

    def add(self, part: Finding) -> None:
        if part.message not in self.seen:
            self.seen.add(part.message)
            if len(self.messages) < MESSAGES:
                self.messages.append(part.message)
            else:
                self.more += 1
        self.expected.add(part.expected)
        self.actual.add(part.actual)
        if _RANK[part.severity] > _RANK[self.severity]:
            self.severity = part.severity

    def say(self, f: Finding) -> None:
        """``f`` says what its parts say."""
        more = f" ({self.more} more)" if self.more else ""
        f.message = " ".join(self.messages) + more
        f.expected = self.expected.together()
        f.actual = self.actual.together()
        f.severity = self.severity


def _alone(f: Finding) -> Finding:
    """``f`` as reported, without what it stands for."""
    return Finding(f.code, f.seq, f.rule, f.message, f.severity, f.expected, f.actual)


def merge(into: Finding, other: Finding) -> None:
    """``other`` (same code, same line) becomes part of ``into``: one finding per code per
    line (docs/findings.md), which names everything the line broke that rule with. Its
    message says each part once, in the order reported (the first :data:`MESSAGES` of
    them, then how many more); ``expected`` and ``actual`` are the parts' values (a list
    where they differ); the severity is the gravest; the rule, the cause and the next
    step are ``into``'s. Costs what ``other`` says, however many parts ``into`` has."""
    if into.said is None:
        parts = list(into.parts) or [_alone(into)]
        into.parts, into.said = parts, _Said()
        for p in parts:
            into.said.add(p)
    new = other.parts or (_alone(other),)
    assert isinstance(into.parts, list)
    into.parts.extend(new)
    for p in new:
        into.said.add(p)
    into.said.say(into)


def _rebuild(f: Finding) -> None:
    """``f`` said again from its parts."""
    f.said = None
    said = _Said()
    for p in f.parts:
        said.add(p)
    said.say(f)
    if len(f.parts) == 1:
        f.parts = ()


def breaks(findings: list[Finding]) -> int:
    """How many rule breaks the error findings say: a finding that stands for several of
    one code at one line (:func:`merge`) counts each. What the judge's repair planner
    weighs: merging findings for the report changes no ruling."""
    return sum(len(f.parts) or 1 for f in findings if f.severity == "error")


def weight(f: Finding) -> int:
    """The rule breaks ``f`` says (:func:`breaks` of it alone)."""
    return (len(f.parts) or 1) if f.severity == "error" else 0


def withdraw_part(f: Finding, part: Finding) -> None:
    """``part`` of a merged finding ``f`` is no longer true: ``f`` says only the rest."""
    f.parts = [p for p in f.parts if p is not part]
    _rebuild(f)


class FindingList(list[Finding]):
    """A flow's findings, in the order reported, with the findings of each line at hand:
    :func:`one_per_code` looks up a line's findings without reading the others, so a line
    costs what it reports however long the log. Adding at the end and cutting the end
    keep the index; any other change drops it, and the next look-up builds it again."""

    __slots__ = ("_by_seq",)

    def __init__(self, items: Iterable[Finding] = ()) -> None:
        super().__init__(items)
        self._by_seq: dict[int, list[Finding]] | None = None

    def __reduce_ex__(self, _protocol: Any) -> tuple[Any, ...]:
        # A copy (the board's checkpoints, a trial) is the list; its index comes when needed.
        return (FindingList, (list(self),))

    def of_line(self, seq: int) -> list[Finding]:
        """The findings about line ``seq``, in the list's order (not to be changed)."""
        index = self._by_seq
        if index is None:
            index = self._by_seq = {}
            for f in self:
                index.setdefault(f.seq, []).append(f)
        return index.get(seq, [])

    def append(self, f: Finding) -> None:
        super().append(f)
        if self._by_seq is not None:
            self._by_seq.setdefault(f.seq, []).append(f)

    def extend(self, items: Iterable[Finding]) -> None:
        items = list(items)
        super().extend(items)
        if self._by_seq is not None:
            for f in items:
                self._by_seq.setdefault(f.seq, []).append(f)

    def __iadd__(self, items: Iterable[Finding]) -> FindingList:  # type: ignore[override,misc]
        self.extend(items)
        return self

    def _cut(self, key: Any) -> bool:
        """Whether ``key`` is a cut of the end (``[start:]``), taken out of the index."""
        if not (isinstance(key, slice) and key.stop is None and key.step is None):
            return False
        start = range(len(self))[key].start if len(self) else 0
        index = self._by_seq
        if index is not None:
            for f in reversed(self[start:]):
                group = index.get(f.seq)
                if not group or group[-1] is not f:  # a seq changed meanwhile
                    self._by_seq = None
                    break
                group.pop()
                if not group:
                    del index[f.seq]
        return True

    def __delitem__(self, key: Any) -> None:
        if not self._cut(key):
            self._by_seq = None
        super().__delitem__(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._cut(key):
            super().__delitem__(key)
            self.extend(value)
            return
        self._by_seq = None
        super().__setitem__(key, value)

    def insert(self, at: Any, f: Finding) -> None:
        self._by_seq = None
        super().insert(at, f)

    def remove(self, f: Finding) -> None:
        self._by_seq = None
        super().remove(f)

    def pop(self, at: Any = -1) -> Finding:
        self._by_seq = None
        return super().pop(at)

    def clear(self) -> None:
        self._by_seq = None
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._by_seq = None
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._by_seq = None
        super().reverse()


def one_per_code(findings: list[Finding], new_from: int) -> int:
    """The findings from position ``new_from`` on are new: each that has the line and the
    code of a finding before it (an earlier one, or a new one) is merged into that one
    (:func:`merge`) and leaves the list. The one place where "one finding per code per
    line" (docs/findings.md) holds, for every game: a rule check may report each card it
    finds wrong, the line still gets one finding.

    Returns how much the rule breaks (:func:`breaks`) of the findings before ``new_from``
    changed (those that took in a new one)."""
    fresh = findings[new_from:]
    if not fresh:
        return 0
    lines = Counter(f.seq for f in fresh)
    first: dict[tuple[int, str], Finding] = {}
    if isinstance(findings, FindingList):
        # The new ones are the last of their line's: those before them are earlier.
        for seq, new in lines.items():
            group = findings.of_line(seq)
            for f in group[:len(group) - new]:
                first.setdefault((f.seq, f.code), f)
    else:
        for f in findings[:new_from]:
            if f.seq in lines:
                first.setdefault((f.seq, f.code), f)
    if len(fresh) == 1 and not first:
        return 0
    before = {id(f): f for f in first.values()}
    earlier: dict[int, tuple[Finding, int]] = {}  # id -> (a finding before, its weight)
    keep: list[Finding] = []
    for f in fresh:
        into = first.get((f.seq, f.code))
        if into is None:
            first[(f.seq, f.code)] = f
            keep.append(f)
        else:
            if id(into) in before:
                earlier.setdefault(id(into), (into, weight(into)))
            merge(into, f)
    findings[new_from:] = keep
    return sum(weight(f) - w for f, w in earlier.values())


def finding(
    code: str,
    seq: int,
    rule: str,
    message: str,
    *,
    expected: Any = None,
    actual: Any = None,
    severity: Severity | None = None,
) -> Finding:
    """Build a finding; the severity defaults to the catalogue's (the core's, or the
    registered game's whose code it is)."""
    entry = code_entry(code)
    if entry is None:
        raise KeyError(f"unknown finding code {code!r}")
    return Finding(
        code=code,
        seq=seq,
        rule=rule,
        message=message,
        severity=severity or entry[0],
        expected=expected,
        actual=actual,
    )


T = TypeVar("T")

LISTED = 10
"""The most entries a finding quotes of a list it reads off the table (the requests on the
stage, in the buffer): a log may make those as long as it likes, and a finding about one
line stays the size of a line (docs/findings.md, "Long lists")."""


def listed(items: Sequence[T] | dict[T, Any], name: Callable[[T], str] = str,
           limit: int = LISTED) -> list[str]:
    """``items`` (a list, or the keys of a dict, in order) by ``name`` for a finding to
    quote, at most ``limit`` of them: past that, the first and the last ``limit // 2``,
    with one entry between them saying how many were left out (``"(290 more)"``, which
    no id can be: ids hold no blank). Costs ``limit``, whatever the length of ``items``."""
    if len(items) <= limit:
        return [name(x) for x in items]
    half = limit // 2
    head = [name(x) for x in islice(items, half)]
    tail = [name(x) for x in islice(reversed(items), half)]
    return [*head, f"({len(items) - 2 * half} more)", *reversed(tail)]


def code_entry(code: str) -> tuple[Severity, str] | None:
    """(default severity, meaning) of a core code or of a registered game's code."""
    entry = CODES.get(code)
    if entry is not None:
        return entry
    from coreflow_judge.adjudicator.plugins import game_code  # the registry loads games

    return game_code(code)


def meaning(code: str, lang: str = "en") -> str | None:
    """The one-line meaning of a code in ``lang`` (``en`` or ``ja``); None for a code no
    catalogue holds, or a game's code it gives no Japanese for."""
    if lang == "ja":
        text = CODES_JA.get(code)
        if text is not None:
            return text
        from coreflow_judge.adjudicator.plugins import game_code_ja

        return game_code_ja(code)
    entry = code_entry(code)
    return entry[1] if entry is not None else None


def catalogue() -> dict[str, tuple[Severity, str]]:
    """Every code: the core's, then each registered game's."""
    from coreflow_judge.adjudicator.plugins import games

    out = dict(CODES)
    for plugin in games():
        for code, entry in plugin.codes.items():
            out.setdefault(code, entry)
    return out
