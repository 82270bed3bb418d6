"""Policies a game supplies to the core flow: how pending triggered requests are ordered,
and how conflicting permission abilities are settled.

The flow never names a game: a game's rules module hands it one of these objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from coreflow_judge.adjudicator.table import RequestView, Table

FlowT = TypeVar("FlowT", bound=Table, contravariant=True)
ReqT = TypeVar("ReqT", bound=RequestView, contravariant=True)


@dataclass(frozen=True, slots=True)
class OrderBreach:
    """Which ordering rule a handled-too-early request breaks, for the finding."""

    code: str
    rule: str
    message: str


class TriggerOrder(Protocol[FlowT, ReqT]):
    """Orders the requests waiting in the buffer: the lowest rank goes first.

    Generic in the flow and request it reads, like :class:`~adjudicator.game.GameRules`."""

    def rank(self, flow: FlowT, req: ReqT) -> tuple[int, ...]: ...

    def breach(self, component: int) -> OrderBreach:
        """The finding for a request handled while one of lower rank in ``component`` waited."""
        ...


def seat_from_turn_player(flow: Table, player: str) -> int:
    """0 for the turn player, 1 for the next in turn order, and so on."""
    order = flow.players
    tp = flow.turn_player or order[0]
    return (order.index(player) - order.index(tp)) % len(order) if player in order else 99


class CoreTriggerOrder:
    """The core rule's trigger check ([6-3]..[6-12]).

    Instant requests before normal ones; player by player from the turn player; within
    one player's group, main timing before quick timing. The player picks the order
    inside a class.
    """

    _breaches = (
        OrderBreach("order.trigger-instant-before-normal", "core[6-3]",
                    "a triggered normal request was handled while triggered instant "
                    "requests still waited in the buffer"),
        OrderBreach("order.trigger-turn-order", "core[6-3]",
                    "a player's triggered requests are handled only after those of every "
                    "player before them in turn order, starting from the turn player"),
        OrderBreach("order.trigger-main-before-quick", "core[6-5]",
                    "a quick-timing triggered request was handled before the same player's "
                    "main-timing ones"),
    )

    def rank(self, flow: Table, req: RequestView) -> tuple[int, ...]:
        return (
            0 if req.action.speed == "instant" else 1,
            seat_from_turn_player(flow, req.controller),
            0 if req.action.timing == "main" else 1,
        )

    def breach(self, component: int) -> OrderBreach:
        return self._breaches[component]


Scope = Literal["all", "your", "this"]
SCOPES: tuple[Scope, ...] = ("all", "your", "this")


@dataclass(frozen=True, slots=True)
class Permission:
    """A static ability that says an object can (``allow``) or cannot do something."""

    allow: bool
    scope: Scope
    timestamp: int
    source: str


class PermissionPolicy(Protocol):
    """Settles conflicting "can" / "cannot" abilities."""

    def decide(self, default: bool, abilities: list[Permission]) -> bool: ...


class NarrowestScopeWins:
    """Apply all → your → this, oldest first within a scope; the last applied wins."""

    def decide(self, default: bool, abilities: list[Permission]) -> bool:
        value = default
        for a in sorted(abilities, key=lambda a: (SCOPES.index(a.scope), a.timestamp)):
            value = a.allow
        return value


class ProhibitionWins:
    """A "cannot" beats every "can", whatever the scope or timestamp."""

    def decide(self, default: bool, abilities: list[Permission]) -> bool:
        if any(not a.allow for a in abilities):
            return False
        if any(a.allow for a in abilities):
            return True
        return default
