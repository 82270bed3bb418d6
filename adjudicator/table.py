"""What a game's rules module and policies read of the core flow, as narrow protocols.

:mod:`adjudicator.game` and :mod:`adjudicator.policies` are written against these, not
against :class:`~adjudicator.flow.CoreFlow`, so neither imports the flow: the flow imports
them and implements :class:`Table`; its requests implement :class:`RequestView`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.findings import Finding
    from coreflow_judge.adjudicator.game import ActionDef, GameResult


class RequestView(Protocol):
    """A request as a game or a policy reads it."""

    @property
    def id(self) -> str:
        """The log's id of the request (the judge's own until a line names it)."""
        ...

    @property
    def action(self) -> ActionDef: ...

    @property
    def controller(self) -> str: ...

    @property
    def triggered(self) -> bool:
        """The rules made it (a triggered request), not a player."""
        ...

    @property
    def source(self) -> str | None:
        """What triggered it: a card or a request id."""
        ...

    @property
    def key_cards(self) -> list[str]: ...

    @property
    def targets(self) -> list[str]: ...

    @property
    def choices(self) -> dict[str, Any]: ...

    @property
    def status(self) -> str: ...

    @property
    def data(self) -> dict[str, Any]:
        """The game's own slot on the request; the flow never touches it."""
        ...


class Table(Protocol):
    """The table under the core flow, as a game or a policy reads it: the players in turn
    order, whose turn it is, who holds the chance, the stage, the buffer and the requests
    by id, the result once decided; and the calls a game makes into the flow."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def turn_player(self) -> str | None: ...

    @property
    def turn(self) -> int: ...

    @property
    def chance(self) -> str | None:
        """A player, the rule system (``system``), or nobody before the game starts."""
        ...

    @property
    def stage(self) -> Sequence[RequestView]: ...

    @property
    def buffer(self) -> Collection[RequestView]:
        """In the order the requests entered it."""
        ...

    @property
    def requests(self) -> Mapping[str, RequestView]: ...

    @property
    def result(self) -> GameResult | None: ...

    @property
    def findings(self) -> list[Finding]: ...

    @property
    def last_seq(self) -> int:
        """The seq of the line being judged."""
        ...

    def report(self, code: str, rule: str, message: str, **kw: Any) -> None:
        """A finding on the line being judged."""
        ...

    def next_player(self, player: str) -> str: ...

    def start_turn(self, player: str) -> None:
        """A turn-ending effect hands the turn to ``player``."""
        ...

    def give_chance_to_turn_player(self) -> None: ...
