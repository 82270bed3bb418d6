"""Continuous effects, an engine service: a value computed from a printed value and the
abilities in force, layer by layer, with its explanation from the same computation.

The rule the games share (BlackPoker's core rule, "ability order", spec/core-flow.md D11;
Duel Masters' power, dm§3.5): every time a value is read, start from the printed value and
apply the abilities in force, layer by layer in the order the game's rules give (a
:class:`Layered` names them: BlackPoker's scopes all, your, this), within one layer the
older timestamp first, a newer one overriding an older one where they conflict.
Non-conflicting changes all add up, and nothing is remembered between two readings: the
value is always computed from scratch.

An :class:`Ability` says what it changes (``stat``), how (``op``: ``add`` a number,
``set`` a number, ``waive`` cost letters), in which layer (``scope``), on what
(``character``, ``applies``), from when (``timestamp``) and until when (``until``).

:meth:`Layered.compute` is the one computation: its :class:`Computation` holds the value
and each step that reached it, which is what a message explains. :meth:`Layered.explain`
is what a judge says when a log records another value: the recorded value is recomputed
with one ability left out, with one that had ended still applied, in the wrong layer order
and against timestamp order, and the first that gives the recorded value names the
table's mistake (``precedence.value-mismatch``, ``precedence.scope-order``,
``precedence.timestamp-order``). Where no such computation gives the recorded value the
mistake is not one of precedence, and ``explain`` says nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

OPS = ("add", "set", "waive")
"""What an ability does to the value: add a number, set it, waive cost letters."""


@dataclass(frozen=True, slots=True)
class Ability:
    """One continuous ability in force (or ended)."""

    name: str
    """The ability's name in the rules' vocabulary: ``Up``, ``Force``, ``魔力増加``."""
    source: str
    """What grants it, in a judge's words: ``Up r7 (alice:H5)``, ``magician alice:JK1``."""
    owner: str
    """The player whose ability it is (its controller): "your" means this player's."""
    scope: str
    """The layer it applies in (one of its :class:`Layered`'s; BlackPoker: its scope)."""
    timestamp: int
    stat: str
    op: str
    amount: int | None = 0
    """The number added or set; None where the log hides it (a key card's face not
    shown): a value it reaches is unknown (:meth:`unknown`)."""
    letters: str = ""
    """For ``waive``: the cost letters waived (``*`` = the whole cost)."""
    character: str | None = None
    """The character (the card) it is on, where it is on one."""
    applies: Mapping[str, Any] = field(default_factory=dict)
    """Which subjects it reaches, where it reaches more than one, e.g.
    ``{"kind": "soldier"}`` or ``{"type": ["quick_magic"]}`` (an action's type)."""
    until: str = "end_of_turn"

    @property
    def unknown(self) -> bool:
        """It adds or sets a number the log does not show."""
        return self.op in ("add", "set") and self.amount is None

    def describe(self) -> str:
        what = {
            "add": "+?" if self.amount is None else f"{self.amount:+d}",
            "set": f"= {'?' if self.amount is None else self.amount}",
            "waive": f"waives ${self.letters}" if self.letters != "*" else "waives the cost",
        }[self.op]
        return f"{self.scope} {self.name} ({self.source}) {what}"


@dataclass(slots=True)
class Computation:
    """A value computed step by step: the printed value, then each ability applied."""

    printed: int
    steps: list[tuple[Ability, int]]
    """Each ability in the order applied, with the value after it."""

    @property
    def value(self) -> int:
        return self.steps[-1][1] if self.steps else self.printed

    def text(self) -> str:
        parts = [f"printed {self.printed}"]
        for a, after in self.steps:
            parts.append(f"{a.describe()} -> {after}")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a recorded value differs from the rules', as a precedence finding says it."""

    code: str
    message: str
    rules: Computation
    table: Computation


class Layered:
    """The continuous-effects service of one game's value: its layers, in the order its
    rules apply them (BlackPoker's sizes and costs: the scopes all, your, this)."""

    def __init__(self, layers: tuple[str, ...], word: str = "scope") -> None:
        self.layers = layers
        self.word = word
        """What the rules call a layer, for messages ("scope")."""

    def _layer(self, a: Ability) -> int:
        return self.layers.index(a.scope)

    def rules_order(self, abilities: Iterable[Ability]) -> list[Ability]:
        """Layer by layer; oldest first within a layer."""
        return sorted(abilities, key=lambda a: (self._layer(a), a.timestamp))

    def layers_reversed(self, abilities: Iterable[Ability]) -> list[Ability]:
        """The wrong layer order a table may use: the last first (oldest first within)."""
        return sorted(abilities, key=lambda a: (-self._layer(a), a.timestamp))

    def timestamps_reversed(self, abilities: Iterable[Ability]) -> list[Ability]:
        """Layer order kept, newest first within a layer (the older overriding the newer)."""
        return sorted(abilities, key=lambda a: (self._layer(a), -a.timestamp))

    def compute(self, printed: int, abilities: Sequence[Ability],
                ordered: bool = False) -> Computation:
        """Apply ``abilities`` to ``printed`` in the rules' order (or as given,
        ``ordered``)."""
        value = printed
        steps: list[tuple[Ability, int]] = []
        if not abilities:  # the printed value (most values most of the time)
            return Computation(printed, steps)
        for a in (abilities if ordered else self.rules_order(abilities)):
            if a.op not in ("add", "set"):
                continue
            if a.amount is None:  # callers ask only where every number is shown
                raise ValueError(f"{a.describe()}: a number the log does not show")
            value = value + a.amount if a.op == "add" else a.amount
            steps.append((a, value))
        return Computation(printed, steps)

    def explain(self, printed: int, in_force: Sequence[Ability], ended: Sequence[Ability],
                recorded: int, what: str, cap: int | None = None) -> Explanation | None:
        """The precedence mistake that gives ``recorded`` instead of the rules' value, if
        any.

        Tried in this order: the layers applied last to first
        (``precedence.scope-order``); newer before older within a layer
        (``precedence.timestamp-order``); one ability in force left out; every ability of
        one player left out (a table that sizes a soldier with its own controller's
        abilities only); one that had ended still applied (``precedence.value-mismatch``).
        The order mistakes come first: where abilities conflict (a ``set``), applying them
        out of order gives the same value as leaving the overridden one out, and the order
        is what the table got wrong. Where every ability only adds, no order gives another
        value, so no order finding is ever made. ``what`` names the value (``alice:S9's
        size``).

        ``cap``: the value was used as a count the table could carry out only in part
        (damage from a life of ``cap`` cards): a recorded ``cap`` is then explained by any
        mistaken value of at least ``cap`` (bp4.3.3.1.2, partial execution).
        """
        right = self.compute(printed, in_force)
        if right.value == recorded:
            return None
        if cap is not None and recorded == cap and right.value < cap:
            return self._explain_capped(printed, in_force, ended, cap, what, right)
        order = f"{self.word} {', '.join(self.layers)}; oldest first"
        table = self.compute(printed, self.layers_reversed(in_force), ordered=True)
        if table.value == recorded:
            return Explanation(
                "precedence.scope-order",
                f"{what} is {right.value} in {self.word} order {', '.join(self.layers)}: "
                f"{right.text()}. The recorded {recorded} applies the {self.word}s the other "
                f"way round: {table.text()}.", right, table)
        table = self.compute(printed, self.timestamps_reversed(in_force), ordered=True)
        if table.value == recorded:
            return Explanation(
                "precedence.timestamp-order",
                f"{what} is {right.value} with the older ability first and the newer "
                f"overriding it: {right.text()}. The recorded {recorded} applies them newest "
                f"first: {table.text()}.", right, table)
        for a in self.rules_order(in_force):
            table = self.compute(printed, [b for b in in_force if b is not a])
            if table.value == recorded:
                return Explanation(
                    "precedence.value-mismatch",
                    f"{what} is {right.value} with every ability in force applied ({order}): "
                    f"{right.text()}. The recorded {recorded} leaves out {a.describe()}: "
                    f"{table.text()}.", right, table)
        for owner, theirs in self._by_owner(in_force):
            table = self.compute(printed, [a for a in in_force if a.owner != owner])
            if table.value == recorded:
                return Explanation(
                    "precedence.value-mismatch",
                    f"{what} is {right.value} with every ability in force applied ({order}): "
                    f"{right.text()}. The recorded {recorded} leaves out every ability of "
                    f"{owner}'s on it ({', '.join(a.describe() for a in theirs)}): "
                    f"{table.text()}.", right, table)
        for e in ended:
            table = self.compute(printed, [*in_force, e])
            if table.value == recorded:
                return Explanation(
                    "precedence.value-mismatch",
                    f"{what} is {right.value}: {right.text()}. The recorded {recorded} still "
                    f"applies {e.describe()}, which had ended: {table.text()}.", right, table)
        return None

    def _by_owner(self, in_force: Sequence[Ability]) -> list[tuple[str, list[Ability]]]:
        """Each player with two or more of the abilities (one alone is tried on its own)."""
        out = []
        for owner in sorted({a.owner for a in in_force}):
            theirs = [a for a in self.rules_order(in_force) if a.owner == owner]
            if len(theirs) > 1:
                out.append((owner, theirs))
        return out

    def _explain_capped(self, printed: int, in_force: Sequence[Ability],
                        ended: Sequence[Ability], cap: int, what: str,
                        right: Computation) -> Explanation | None:
        """:meth:`explain` for a count the table cut to the ``cap`` cards there were: the
        table's value was at least ``cap``, which several mistakes may give, so the
        finding names every single ability whose omission does (or the one player's
        abilities, or the ended ability), not one of them as if it were the only
        reading."""
        head = (f"{what} is {right.value} with every ability in force applied ({self.word} "
                f"{', '.join(self.layers)}; oldest first): {right.text()}. The recorded "
                f"{cap} is every card there was, so the table's value was at least {cap}")
        singles = [a for a in self.rules_order(in_force)
                   if self.compute(printed, [b for b in in_force if b is not a]).value >= cap]
        if singles:
            table = self.compute(printed, [b for b in in_force if b is not singles[0]])
            which = (singles[0].describe() if len(singles) == 1 else
                     "one of " + ", ".join(a.describe() for a in singles))
            return Explanation("precedence.value-mismatch", f"{head}: it leaves out {which}.",
                               right, table)
        for owner, theirs in self._by_owner(in_force):
            table = self.compute(printed, [a for a in in_force if a.owner != owner])
            if table.value >= cap:
                return Explanation(
                    "precedence.value-mismatch",
                    f"{head}: it leaves out every ability of {owner}'s on it "
                    f"({', '.join(a.describe() for a in theirs)}): {table.text()}.",
                    right, table)
        for e in ended:
            table = self.compute(printed, [*in_force, e])
            if table.value >= cap:
                return Explanation(
                    "precedence.value-mismatch",
                    f"{head}: it still applies {e.describe()}, which had ended: "
                    f"{table.text()}.", right, table)
        return None

    def waived(self, cost: str, abilities: Sequence[Ability]) -> tuple[str, list[Ability]]:
        """The cost left after the ``waive`` abilities (rules order), and those that
        waived."""
        left = cost
        used: list[Ability] = []
        for a in self.rules_order(abilities):
            if a.op != "waive" or not left:
                continue
            before = left
            if a.letters == "*":
                left = ""
            else:
                for letter in a.letters:
                    left = left.replace(letter, "")
            if left != before:
                used.append(a)
        return left, used
