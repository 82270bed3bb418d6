"""Continuous abilities: one model for every value and permission BlackPoker computes.

The core rule (core-rule.rst, "ability order"; spec/core-flow.md D11): every time a value
is read, start from the printed value and apply the abilities in force, scope **all**
first, then **your**, then **this**; within one scope the older timestamp first, a newer
one overriding an older one where they conflict. Non-conflicting changes all add up, and
nothing is remembered between two readings: the value is always computed from scratch.

The computation is the engine's continuous-effects service (:mod:`...continuous`), with
BlackPoker's scopes as its layers (:data:`ABILITIES`). An :class:`Ability` says what it
changes (``stat``: ``size``, ``cost``), how (``op``: ``add`` a number, ``set`` a number,
``waive`` cost letters), on what (``character`` for scope this, ``applies`` for scopes
your and all), from when (``timestamp``) and until when (``until``). Abilities come from
two places: effects that last (Up, Down, Force: granted by a resolution, ended by the
turn's end or by the character leaving) and characters' own static abilities (the
magician's 魔力増加, present while it is on the field).

:func:`compute` is the one computation; :func:`explain` is what the judge says when a log
records another value (``precedence.value-mismatch``, ``precedence.scope-order``,
``precedence.timestamp-order``); :func:`waived` is a cost after its waivers.
"""

from __future__ import annotations

from coreflow_judge.adjudicator.continuous import OPS, Ability, Computation, Layered

__all__ = ["ABILITIES", "OPS", "SCOPES", "STATS", "Ability", "Computation", "compute",
           "explain", "waived"]

SCOPES = ("all", "your", "this")
"""The scopes in the order the rules apply them."""
STATS = ("size", "cost")
"""What an ability changes: a character's size, an action's cost."""

ABILITIES = Layered(SCOPES)
"""BlackPoker's sizes and costs: the continuous-effects service with the scopes as layers."""

compute = ABILITIES.compute
explain = ABILITIES.explain
waived = ABILITIES.waived
