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
    """Pair each claim with the first planned effect it fits; return what is left over."""
    unmatched = list(planned)
    extra: list[Effect] = []
    for t in claimed:
        hit = next((o for o in unmatched if effect_fits(o, t)), None)
        if hit is None:
            extra.append(dict(t))
        else:
            unmatched.remove(hit)
    return ClaimDiff(unmatched, extra)
