"""The shapes of the choices a log records, declared by each game's edition data.

A choice is a player's decision written into ``request.choices`` or ``resolve.choices``
(the blockers of a Block, the card a Search takes, the mana tapped for a summon). Each
game's edition data declares, per action, which choices it takes and where, each with a
shape from :data:`SHAPES` (a BlackPoker action's ``choices`` and ``choices_on_resolve``,
a Duel Masters or i-language action's ``choices``)::

    choices_on_resolve: {card: card, to: {one_of: [top, bottom]}}

The shape is the JSON form of the value only (a string naming a card, a list of them, a
whole number, one word of a list); whether the card may be chosen there is the rules
module's to say, with ``legality.choice-invalid`` and the game's rule. A choice whose
value has another shape, or that the action does not take, is ``legality.choice-invalid``
under the log format's rule (:func:`choice_findings`): the rules module then reads that
choice as not recorded and adds no second finding about it on the same line. A choice
left out is ``absent``: not recorded; ``null`` is read as absent too (each game's docs
say where a choice may explicitly be none: ``[]`` for a list, ``null`` where documented).

docs/choices.md has one table per game built on these shapes; tests/test_choice_docs.py
holds the tables, the edition data and the judge to one another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.games.common import EditionDataError

Shape = str | Mapping[str, Any]
"""A shape name of :data:`SHAPES`, or ``{"one_of": [words]}`` (one of these words) or
``{"list_of": [words]}`` (a list, each item one of these words)."""


def _text(v: Any) -> bool:
    return isinstance(v, str) and v != ""


def _texts(v: Any) -> bool:
    return isinstance(v, list) and all(_text(x) for x in v)


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _flag(v: Any) -> bool:
    return isinstance(v, bool)


def _map_of_texts(v: Any) -> bool:
    return isinstance(v, dict) and all(_text(k) and _texts(x) for k, x in v.items())


SHAPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "card": ("a card reference, <owner>:<card>", _text),
    "cards": ("a list of card references", _texts),
    "character": ("a character reference (any card of the unit)", _text),
    "characters": ("a list of character references", _texts),
    "request": ("a request id", _text),
    "reference": ("a reference to a character, card, player or request", _text),
    "count": ("a whole number", _count),
    "flag": ("true or false", _flag),
    "blockers": ("an object: attacker reference -> list of character references",
                 _map_of_texts),
    "cards_by_player": ("an object: player -> list of card references", _map_of_texts),
}
"""Shape name -> (what it is, in words; the check of a JSON value)."""

WORD_SHAPES = frozenset({"one_of", "list_of"})


def spec_problem(shape: Any) -> str | None:
    """Why ``shape`` (from edition data) is not a shape; None when it is one."""
    if isinstance(shape, str):
        return None if shape in SHAPES else (
            f"{shape!r} is not a choice shape (known: {', '.join(sorted(SHAPES))}, "
            "or {one_of: [...]} / {list_of: [...]})")
    if isinstance(shape, Mapping) and len(shape) == 1:
        (kind, words), = shape.items()
        if kind in WORD_SHAPES and isinstance(words, list) and words and all(
                _text(w) for w in words):
            return None
    return f"{shape!r} is not a choice shape: a shape name, {{one_of: [words]}} or " \
           "{list_of: [words]}"


def describe(shape: Shape) -> str:
    """A shape in words (messages and docs)."""
    if isinstance(shape, str):
        return SHAPES[shape][0]
    (kind, words), = shape.items()
    listed = " | ".join(f'"{w}"' for w in words)
    return f"one of {listed}" if kind == "one_of" else f"a list, each {listed}"


def fits(shape: Shape, value: Any) -> bool:
    """Does a JSON value have this shape? (``null`` is read as absent: it fits.)"""
    if value is None:
        return True
    if isinstance(shape, str):
        return SHAPES[shape][1](value)
    (kind, words), = shape.items()
    if kind == "one_of":
        return isinstance(value, str) and value in words
    return isinstance(value, list) and all(isinstance(v, str) and v in words for v in value)


def check_declarations(declared: Any) -> str | None:
    """Why an action's declared choices (a mapping: name -> shape) are not right."""
    if declared is None:
        return None
    if not isinstance(declared, Mapping):
        return "choices are a mapping: choice name -> shape"
    for name, shape in declared.items():
        problem = spec_problem(shape)
        if problem is not None:
            return f"{name}: {problem}"
    return None


def readable(declared: Mapping[str, Shape] | None, recorded: Mapping[str, Any] | None
             ) -> dict[str, Any]:
    """The recorded choices the judge reads: those the action takes, of their shape (the
    rest are reported by :func:`choice_findings` and read as not recorded)."""
    declared = declared or {}
    return {k: v for k, v in (recorded or {}).items()
            if k in declared and fits(declared[k], v)}


def check_action_choices(data: Mapping[str, Any], file: str) -> None:
    """Every action's declared ``choices`` and ``choices_on_resolve`` in a game's edition
    data are shapes; raise :class:`EditionDataError` naming the file and key otherwise."""
    for aid, a in (data.get("actions") or {}).items():
        for field in ("choices", "choices_on_resolve"):
            problem = check_declarations(a.get(field))
            if problem is not None:
                raise EditionDataError(file, f"actions.{aid}.{field}", problem)


def choice_findings(action: str, where: str, declared: Mapping[str, Shape] | None,
                    recorded: Mapping[str, Any] | None, seq: int
                    ) -> tuple[list[Finding], set[str]]:
    """The recorded ``choices`` of one line checked against the action's declared ones.

    ``where``: ``request`` or ``resolve`` (the line). Returns the findings (one
    ``legality.choice-invalid`` per line at most, naming every refused choice) and the
    names refused: a choice the action does not take there, or whose value has another
    shape. The rules module reads a refused choice as not recorded.
    """
    declared = declared or {}
    refused: dict[str, str] = {}
    for name, value in (recorded or {}).items():
        if name not in declared:
            takes = ", ".join(declared) or "none"
            refused[name] = (f"{action} takes no choice {name} when it is "
                             f"{'requested' if where == 'request' else 'resolved'} "
                             f"(its choices there: {takes})")
        elif not fits(declared[name], value):
            refused[name] = (f"{action}'s choice {name} is {describe(declared[name])}, not "
                             f"{_json_kind(value)}")
    if not refused:
        return [], set()
    message = "; ".join(refused.values()) + \
        "; the judge reads " + ("it" if len(refused) == 1 else "them") + " as not recorded."
    return [finding("legality.choice-invalid", seq, "log", message,
                    expected={n: describe(declared[n]) for n in refused if n in declared}
                    or sorted(declared),
                    actual={n: (recorded or {})[n] for n in refused})], set(refused)


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "an object"
    return "null"
