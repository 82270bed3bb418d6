"""Continuous abilities: one model for every value and permission BlackPoker computes.

The core rule (core-rule.rst, "ability order"; spec/core-flow.md D11): every time a value
is read, start from the printed value and apply the abilities in force, scope **all**
first, then **your**, then **this**; within one scope the older timestamp first, a newer
one overriding an older one where they conflict. Non-conflicting changes all add up, and
nothing is remembered between two readings: the value is always computed from scratch.

An :class:`Ability` says what it changes (``stat``: ``size``, ``cost``), how (``op``:
``add`` a number, ``set`` a number, ``waive`` cost letters), on what (``character`` for
scope this, ``applies`` for scopes your and all), from when (``timestamp``) and until
when (``until``). Abilities come from two places: effects that last (Up, Down, Force:
granted by a resolution, ended by the turn's end or by the character leaving) and
characters' own static abilities (the magician's 魔力増加, present while it is on the
field).

:func:`compute` is the one computation. :func:`explain` is what the judge says when a log
records another value: the recorded value is recomputed with one ability left out, with
one that had ended still applied, in the wrong scope order and against timestamp order,
and the first that gives the recorded value names the table's mistake
(``precedence.value-mismatch``, ``precedence.scope-order``,
``precedence.timestamp-order``). Where no such computation gives the recorded value the
mistake is not one of precedence, and ``explain`` says nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SCOPES = ("all", "your", "this")
"""The scopes in the order the rules apply them."""
OPS = ("add", "set", "waive")
STATS = ("size", "cost")


@dataclass(frozen=True, slots=True)
class Ability:
    """One continuous ability in force (or ended: see ``ended_at``)."""

    name: str
    """The ability's name in the rules' vocabulary: ``Up``, ``Force``, ``魔力増加``."""
    source: str
    """What grants it, in a judge's words: ``Up r7 (alice:H5)``, ``magician alice:JK1``."""
    owner: str
    """The player whose ability it is (its controller): "your" means this player's."""
    scope: str
    timestamp: int
    stat: str
    op: str
    amount: int | None = 0
    """The number added or set; None where the log hides it (a key card's face not
    shown): a value it reaches is unknown (:meth:`unknown`)."""
    letters: str = ""
    """For ``waive``: the cost letters waived (``*`` = the whole cost)."""
    character: str | None = None
    """Scope this: the character it is on."""
    applies: Mapping[str, Any] = field(default_factory=dict)
    """Scopes your/all: which subjects it reaches, e.g. ``{"kind": "soldier"}`` or
    ``{"type": ["quick_magic"]}`` (an action's type) or ``{"timing": "quick"}``."""
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


def rules_order(abilities: Iterable[Ability]) -> list[Ability]:
    """Scope all, your, this; oldest first within a scope."""
    return sorted(abilities, key=lambda a: (SCOPES.index(a.scope), a.timestamp))


def scope_reversed(abilities: Iterable[Ability]) -> list[Ability]:
    """The wrong scope order a table may use: this, your, all (oldest first within)."""
    return sorted(abilities, key=lambda a: (-SCOPES.index(a.scope), a.timestamp))


def timestamp_reversed(abilities: Iterable[Ability]) -> list[Ability]:
    """Scope order kept, newest first within a scope (the older overriding the newer)."""
    return sorted(abilities, key=lambda a: (SCOPES.index(a.scope), -a.timestamp))


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


def compute(printed: int, abilities: Sequence[Ability], ordered: bool = False) -> Computation:
    """Apply ``abilities`` to ``printed`` in the rules' order (or as given, ``ordered``)."""
    value = printed
    steps: list[tuple[Ability, int]] = []
    for a in (abilities if ordered else rules_order(abilities)):
        if a.op not in ("add", "set"):
            continue
        if a.amount is None:  # callers ask only where every number is shown
            raise ValueError(f"{a.describe()}: a number the log does not show")
        value = value + a.amount if a.op == "add" else a.amount
        steps.append((a, value))
    return Computation(printed, steps)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a recorded value differs from the rules', as a precedence finding says it."""

    code: str
    message: str
    rules: Computation
    table: Computation


def explain(printed: int, in_force: Sequence[Ability], ended: Sequence[Ability],
            recorded: int, what: str, cap: int | None = None) -> Explanation | None:
    """The precedence mistake that gives ``recorded`` instead of the rules' value, if any.

    Tried in this order: the scopes applied this → your → all
    (``precedence.scope-order``); newer before older within a scope
    (``precedence.timestamp-order``); one ability in force left out; every ability of one
    player left out (a table that sizes a soldier with its own controller's abilities
    only); one that had ended still applied (``precedence.value-mismatch``). The order
    mistakes come first: where abilities conflict (a ``set``), applying them out of order
    gives the same value as leaving the overridden one out, and the order is what the
    table got wrong. Where every ability only adds, no order gives another value, so no
    order finding is ever made. ``what`` names the value (``alice:S9's size``).

    ``cap``: the value was used as a count the table could carry out only in part (damage
    from a life of ``cap`` cards): a recorded ``cap`` is then explained by any mistaken
    value of at least ``cap`` (bp4.3.3.1.2, partial execution).
    """
    right = compute(printed, in_force)
    if right.value == recorded:
        return None
    if cap is not None and recorded == cap and right.value < cap:
        return _explain_capped(printed, in_force, ended, cap, what, right)
    table = compute(printed, scope_reversed(in_force), ordered=True)
    if table.value == recorded:
        return Explanation(
            "precedence.scope-order",
            f"{what} is {right.value} in scope order all, your, this: {right.text()}. The "
            f"recorded {recorded} applies the scopes the other way round: {table.text()}.",
            right, table)
    table = compute(printed, timestamp_reversed(in_force), ordered=True)
    if table.value == recorded:
        return Explanation(
            "precedence.timestamp-order",
            f"{what} is {right.value} with the older ability first and the newer "
            f"overriding it: {right.text()}. The recorded {recorded} applies them newest "
            f"first: {table.text()}.", right, table)
    for a in rules_order(in_force):
        table = compute(printed, [b for b in in_force if b is not a])
        if table.value == recorded:
            return Explanation(
                "precedence.value-mismatch",
                f"{what} is {right.value} with every ability in force applied (scope all, "
                f"your, this; oldest first): {right.text()}. The recorded {recorded} leaves "
                f"out {a.describe()}: {table.text()}.", right, table)
    for owner, theirs in _by_owner(in_force):
        table = compute(printed, [a for a in in_force if a.owner != owner])
        if table.value == recorded:
            return Explanation(
                "precedence.value-mismatch",
                f"{what} is {right.value} with every ability in force applied (scope all, "
                f"your, this; oldest first): {right.text()}. The recorded {recorded} leaves "
                f"out every ability of {owner}'s on it "
                f"({', '.join(a.describe() for a in theirs)}): {table.text()}.", right, table)
    for e in ended:
        table = compute(printed, [*in_force, e])
        if table.value == recorded:
            return Explanation(
                "precedence.value-mismatch",
                f"{what} is {right.value}: {right.text()}. The recorded {recorded} still "
                f"applies {e.describe()}, which had ended: {table.text()}.", right, table)
    return None


def _by_owner(in_force: Sequence[Ability]) -> list[tuple[str, list[Ability]]]:
    """Each player with two or more of the abilities (one alone is tried on its own)."""
    out = []
    for owner in sorted({a.owner for a in in_force}):
        theirs = [a for a in rules_order(in_force) if a.owner == owner]
        if len(theirs) > 1:
            out.append((owner, theirs))
    return out


def _explain_capped(printed: int, in_force: Sequence[Ability], ended: Sequence[Ability],
                    cap: int, what: str, right: Computation) -> Explanation | None:
    """:func:`explain` for a count the table cut to the ``cap`` cards there were: the
    table's value was at least ``cap``, which several mistakes may give, so the finding
    names every single ability whose omission does (or the one player's abilities, or the
    ended ability), not one of them as if it were the only reading."""
    head = (f"{what} is {right.value} with every ability in force applied (scope all, your, "
            f"this; oldest first): {right.text()}. The recorded {cap} is every card there "
            f"was, so the table's value was at least {cap}")
    singles = [a for a in rules_order(in_force)
               if compute(printed, [b for b in in_force if b is not a]).value >= cap]
    if singles:
        table = compute(printed, [b for b in in_force if b is not singles[0]])
        which = (singles[0].describe() if len(singles) == 1 else
                 "one of " + ", ".join(a.describe() for a in singles))
        return Explanation("precedence.value-mismatch", f"{head}: it leaves out {which}.",
                           right, table)
    for owner, theirs in _by_owner(in_force):
        table = compute(printed, [a for a in in_force if a.owner != owner])
        if table.value >= cap:
            return Explanation(
                "precedence.value-mismatch",
                f"{head}: it leaves out every ability of {owner}'s on it "
                f"({', '.join(a.describe() for a in theirs)}): {table.text()}.", right, table)
    for e in ended:
        table = compute(printed, [*in_force, e])
        if table.value >= cap:
            return Explanation(
                "precedence.value-mismatch",
                f"{head}: it still applies {e.describe()}, which had ended: {table.text()}.",
                right, table)
    return None


def waived(cost: str, abilities: Sequence[Ability]) -> tuple[str, list[Ability]]:
    """The cost left after the ``waive`` abilities (rules order), and those that waived."""
    left = cost
    used: list[Ability] = []
    for a in rules_order(abilities):
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
