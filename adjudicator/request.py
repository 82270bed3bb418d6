"""A request as the core flow keeps it: who made it, what it is, where it stands.

The flow's own fields are typed; :attr:`Req.data` is the game's slot, which the flow never
reads or writes (and a game never needs one of the flow's fields from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from coreflow_judge.adjudicator.game import ActionDef, TriggerSpec

Status = Literal[
    "instant", "buffer", "stage", "resolved", "fizzled", "negated", "discarded", "dropped"
]
"""Where a request stands: an instant request waiting for its resolution, in the buffer, on
the stage, or done (resolved, fizzled, negated, discarded, dropped unplayed)."""

STATUS_WORDS = {
    "resolved": "it was already resolved",
    "fizzled": "it already resolved (it fizzled)",
    "negated": "it was negated",
    "discarded": "it was discarded",
    "dropped": "it was dropped when play went on without it",
    "buffer": "it is still in the buffer, not yet placed",
}
"""Why a request that is named again cannot resolve, as a judge says it."""


@dataclass(slots=True, eq=False)
class Req:
    """One request: a direct request a player made or a triggered one the rules made."""

    id: str
    action: ActionDef
    controller: str
    seq: int
    triggered: bool
    key_cards: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    choices: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    status: Status = "buffer"
    provisional: bool = False
    """A triggered request whose id the judge made up: no log line named it yet. The first
    line that names it by what it says binds it to the log's id (see the ledger)."""
    former_ids: list[str] = field(default_factory=list)
    """The ids it had before the log named it (provisional ids findings may quote)."""
    staged_in_log: bool = False
    """A line of the log put it on the stage (not only the rules' derived staging)."""
    passed_over: bool = False
    """A player passed while it waited on the stage: the table played on with it there."""
    staged_at: int = 0
    """When it last went on the stage: the stage numbers its requests in the order they
    went on (:class:`~adjudicator.stage.StageStack`)."""
    buffered_at: int = 0
    """When it first entered the buffer: the buffer numbers the requests that enter it
    1, 2, ... in the order they enter (:class:`~adjudicator.stage.Buffer`); 0, never."""
    cost_triggers: list[TriggerSpec] = field(default_factory=list)
    """Requests its costs triggered that wait for its own resolution (an instant request
    under the edition policy ``resolve_before_cost_triggers``)."""
    announced: dict[int, str] = field(default_factory=dict)
    """Those of :attr:`cost_triggers` (by index) whose trigger line the log wrote before
    this request resolved: the id the log gave each."""
    data: dict[str, Any] = field(default_factory=dict)
    """The game's own slot: what its rules module keeps on a request. The core flow never
    reads or writes it."""
