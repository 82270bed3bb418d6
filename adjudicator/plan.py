"""What the rules say one resolution does: computed once, read by every part of coreflow.

A game's rules module computes a :class:`ResolutionPlan` for a request on the current table
(pure: the table is not changed) and applies effects with one function of its own. The judge
compares the log's claimed effects with the plan (:mod:`coreflow_judge.adjudicator.claims`),
then applies what was played; the simulators write the plan's effects as the table's claims;
the audit reads the plans the flow kept. No part of coreflow computes a step a second time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.game import TriggerSpec

Effect = dict[str, Any]
"""A primitive effect as a log's ``effects`` item writes it: ``{"op": "draw", ...}``."""


@dataclass(slots=True)
class PlanStep:
    """One effect step of an action, as carried out on this table, and why."""

    step: str
    """The step's name in the action's data (``draw``, ``damage_judgement``, ...)."""
    effects: list[Effect] = field(default_factory=list)
    reason: str = ""
    """In words, what decided the step here ("♣3 is lower than ♠9: r2 is not negated");
    empty where the step's text says it all."""


@dataclass(slots=True)
class ResolutionPlan:
    """The rules' resolution of one request with given choices, before it is applied."""

    request: str
    result: Literal["resolved", "fizzled"]
    steps: list[PlanStep] = field(default_factory=list)
    triggers: list[TriggerSpec] = field(default_factory=list)
    """Requests whose trigger condition the resolution meets (the buffer's next entries)."""

    @property
    def effects(self) -> list[Effect]:
        """Every step's effects, in order."""
        return [e for s in self.steps for e in s.effects]

    def reasons(self) -> Iterator[str]:
        """The steps' reasons, those that say something."""
        return (s.reason for s in self.steps if s.reason)
