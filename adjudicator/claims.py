"""Matching the effects a log claims against the effects the rules planned.

One place for every game: a claimed effect matches a planned one when every field the claim
gives agrees, a card the log does not show (``?`` or ``owner:?``) matching any face. What is
left over on either side is the departure the game's rules module rules on (which finding,
and where the judge follows the table as it was played).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.plan import Effect


def effect_fits(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> bool:
    """A claimed primitive effect matches one the rules computed when every field the claim
    gives agrees; a card the log does not show (``?`` or ``owner:?``) matches any face."""
    for k, v in theirs.items():
        if k not in ours:
            return False
        o = ours[k]
        if isinstance(v, list) and isinstance(o, list):
            if len(v) != len(o) or not all(_same_face(a, b) for a, b in zip(o, v, strict=True)):
                return False
        elif not _same_face(o, v):
            return False
    return True


def _same_face(a: Any, b: Any) -> bool:
    if a == b:
        return True
    if isinstance(a, str) and isinstance(b, str):
        return a.endswith(":?") or b.endswith(":?") or a == "?" or b == "?"
    return False


def _cards_in_plan_order(planned: list[Any], claimed: list[Any]) -> list[Any] | None:
    """The claimed cards in the plan's order, each matched with a planned card it fits
    (a face the log does not show fits any); None when they are not the same cards."""
    left = list(claimed)
    out = []
    for card in planned:
        hit = next((i for i, c in enumerate(left) if c == card), None)
        if hit is None:
            hit = next((i for i, c in enumerate(left) if _same_face(card, c)), None)
        if hit is None:
            return None
        out.append(left.pop(hit))
    return out if not left else None


def unit_named_as_planned(planned: Iterable[Mapping[str, Any]],
                          claimed: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The claims, each ``enter`` of a character of several cards read with the plan's
    naming where it names the same entry by another of its cards.

    match-log.md, References: a character put onto the field by an effect is named by the
    card its ``enter`` claim names first, and any card of a unit of several cards names
    that unit. So an ``enter`` claim listing the same cards in another order, its
    ``character`` one of them, is the same entry as the planned one (the giant of ♥K and
    ♦K entered as ``alice:D13`` with ``[alice:D13, alice:H13]``)."""
    enters = [o for o in planned if o.get("op") == "enter" and len(o.get("cards") or []) > 1]
    out = []
    for t in claimed:
        cards = t.get("cards")
        if t.get("op") == "enter" and isinstance(cards, list) and len(cards) > 1 \
                and t.get("character") in cards:
            for o in enters:
                if o.get("as") != t.get("as") or (
                        o.get("character") == t.get("character") and list(o["cards"]) == cards):
                    continue  # another entry, or named as planned already
                ordered = _cards_in_plan_order(list(o["cards"]), cards)
                if ordered is not None:
                    t = {**t, "character": o.get("character"), "cards": ordered}
                    break
        out.append(dict(t))
    return out


@dataclass(slots=True)
class ClaimDiff:
    """How the log's claims and the plan's effects differ."""

    unmatched: list[Effect] = field(default_factory=list)
    """Planned effects no claim matched: what the table left out."""
    extra: list[Effect] = field(default_factory=list)
    """Claims no planned effect matched: what the table did beyond the rules."""

    def __bool__(self) -> bool:
        return bool(self.unmatched or self.extra)


def compare(planned: Iterable[Effect], claimed: Iterable[Mapping[str, Any]]) -> ClaimDiff:
    """Pair each claim with the first planned effect it fits; return what is left over.
    A unit's ``enter`` claimed under another of its cards is the planned one
    (:func:`unit_named_as_planned`)."""
    unmatched = list(planned)
    extra: list[Effect] = []
    for t in unit_named_as_planned(unmatched, claimed):
        hit = next((o for o in unmatched if effect_fits(o, t)), None)
        if hit is None:
            extra.append(dict(t))
        else:
            unmatched.remove(hit)
    return ClaimDiff(unmatched, extra)
