"""What the core flow asks of a game: its actions, its policies and its rules module.

The core flow (:mod:`adjudicator.flow`) knows turns, the chance, requests, the stage and
the buffer. Everything else (what an action costs and does, who triggers what, who has
won) comes through the :class:`GameRules` interface that each game implements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from coreflow_judge.adjudicator.table import RequestView, Table

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.findings import Finding
    from coreflow_judge.adjudicator.policies import TriggerOrder
    from coreflow_judge.events.models import (
        GameStarted,
        MatchStarted,
        Request,
        Resolve,
        Roll,
        Trigger,
        TurnStarted,
    )

FlowT = TypeVar("FlowT", bound=Table, contravariant=True)
"""The flow a rules module is handed: the core flow, seen through :class:`Table` or as
itself (a game may read more of it than the protocol names)."""
ReqT = TypeVar("ReqT", bound=RequestView, contravariant=True)
"""The request a rules module is handed (see :class:`~adjudicator.table.RequestView`)."""

Sight = Callable[[str], bool]
"""Whether a viewer may see a card (``owner:card``): what a list of possible requests may
name (:meth:`RulesHooks.request_options`); a card out of sight is written ``owner:?``."""

Speed = Literal["instant", "normal"]
Timing = Literal["main", "quick", "free"]
"""main: chance + own turn + empty stage; quick: chance; free: at any time, no chance."""


class UnsupportedRules(ValueError):
    """The header names a game, edition or format no rules module carries (exit 2).

    ``field`` is the header field at fault (``rules``, ``format``, ``players``...), named
    in the judge's message.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class ActionDef:
    """An action definition: the parts the core flow reads; the rest is the game's."""

    id: str
    name: str
    speed: Speed
    timing: Timing
    direct: bool
    once_per_turn: bool = False
    name_ja: str = ""
    """The action's name in the Japanese rules (what a scorekeeper may type, and the
    Japanese texts show); empty where the data gives none."""
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class FlowPolicy:
    """Edition policies of the core flow (spec decisions D4 and the cost-trigger order)."""

    requester_keeps_chance: bool
    """D4: after a normal request is staged, the requester keeps the chance (True) or an
    automatic pass follows and the chance moves on (False)."""
    resolve_before_cost_triggers: bool
    """True: an instant request resolves before the instants its costs triggered."""
    rule_refs: Mapping[str, str] = field(default_factory=dict)
    """The game's own clause for a check the core flow makes (finding code -> rule ref,
    e.g. once-per-turn in the game's rule book); the core rule's step otherwise."""
    shortcut_calls: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Calls that, as the note of a pass, stand for the passes still needed to resolve the
    top of the stage (a shortcut: the opponent did not stop play). Each call (lower case;
    ``*`` matches any text, as in "*でブロック") maps to the chain of actions it carries play
    through: said while one of them is on top of the stage, it also stands for the passes
    before each later one of the chain resolves (スルー on an Attack: the Block and the
    Damage Judgement too), until a request interrupts (a cut-in). An empty chain: the top
    of the stage only."""
    resolve_late_triggers: bool = False
    """True: a triggered request the flow dropped as missed (play went on while it waited)
    that the log resolves later is resolved there, as played: the same mistake gets one
    finding, not a miss and an unknown reference (False: the late resolve line names a
    request that no longer waits, ``log.unknown-ref``)."""


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    """A trigger condition that held: the rules ask the flow to create this request."""

    action: str
    source: str
    controller: str
    key_cards: tuple[str, ...] = ()
    """Key cards the starting effect gives the request (修繕 starts 装備 with the card it
    chose; virtual key cards of an ability are kept in ``data``)."""
    targets: tuple[str, ...] = ()
    """The target the starting effect fixes (ファントム's リバース, 切札再生's card)."""
    facts: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """The game's own facts about the trigger (they become the request's game slot)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    result: Literal["win", "draw"]
    winner: str | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"result": self.result}
        if self.winner is not None:
            out["winner"] = self.winner
        out["reason"] = self.reason
        return out


@dataclass(slots=True)
class Resolution:
    """What the rules say one resolution does, and what the log's claims changed."""

    result: Literal["resolved", "fizzled"]
    effects: list[dict[str, Any]]
    findings: list[Finding] = field(default_factory=list)
    triggers: list[TriggerSpec] = field(default_factory=list)
    pass_chance: bool = False
    """The effect ends by passing the chance (6.1 ファントム, 修繕: "after starting the
    action, pass the chance"): the requester's pass is a consequence of the rules."""


class GameRules(Protocol[FlowT, ReqT]):
    """A game's rules module for one edition and format.

    Generic in the flow and the request it is handed, so a game may type them as the
    core flow's own classes while this module needs only the protocols."""

    policy: FlowPolicy
    edition: str

    @property
    def trigger_order(self) -> TriggerOrder[FlowT, ReqT]:
        """How the buffer is ordered: the core rule's order unless the game has its own."""
        ...

    def action(self, action_id: str) -> ActionDef | None: ...

    def not_judged(self, action_id: str) -> str | None:
        """Why an action the regulation has is not judged yet (see RulesHooks)."""
        ...

    def start_game(self, flow: FlowT, header: MatchStarted, line: GameStarted) -> None: ...

    def request_findings(self, flow: FlowT, line: Request, action: ActionDef) -> list[Finding]:
        """Key cards, costs, targets and choices of a request; never mutates."""
        ...

    def pay_costs(self, flow: FlowT, req: ReqT, line: Request) -> list[TriggerSpec]: ...

    def resolve(self, flow: FlowT, req: ReqT, line: Resolve) -> Resolution:
        """Carry out a request as the log records it; report where it departs."""
        ...

    def win_check(self, flow: FlowT) -> GameResult | None: ...

    def on_roll(self, flow: FlowT, line: Roll) -> None:
        """A die was rolled (games that decide by dice keep it for the next choice)."""
        ...

    def on_staged(self, flow: FlowT, req: ReqT) -> list[TriggerSpec]:
        """A direct normal request is on the stage: what requesting it triggered."""
        ...

    def settle(self, flow: FlowT) -> list[TriggerSpec]:
        """Nothing is pending: a game whose step ends by itself moves on (see RulesHooks)."""
        ...

    def goes_past_pending(self, flow: FlowT, line: Trigger | TurnStarted) -> bool:
        """Whether a rule-system line the rules did not derive here belongs where the game
        is once the pending requests are done (see RulesHooks)."""
        ...

    def hand_turn_over(self, flow: FlowT, player: str) -> list[Any] | None:
        """The table played the turn that just started as ``player``'s: make the turn's
        start that player's (see RulesHooks)."""
        ...

    def trigger_unseen(self, flow: FlowT, line: Trigger) -> str | None:
        """Why a trigger the rules did not derive may have held on a face the log does not
        show (see RulesHooks)."""
        ...

    def win_check_unknown(self, flow: FlowT) -> str | None:
        """Why the win/lose check cannot be ruled from the log here (a count or card the
        log does not show), or None when :meth:`win_check` can rule."""
        ...

    def table_allows(self, flow: FlowT, line: Request, action: ActionDef) -> bool:
        """Whether the table allows the request besides its timing (see RulesHooks)."""
        ...

    def unit_of(self, flow: FlowT, ref: str) -> set[str]:
        """The card references that name the same thing as ``ref`` on the table now (see
        RulesHooks)."""
        ...

    def asks_on_resolve(self, flow: FlowT, req: ReqT) -> bool:
        """Whether resolving ``req`` now leaves a player a choice (see RulesHooks)."""
        ...

    def fizzles(self, flow: FlowT, req: ReqT) -> bool:
        """Whether ``req`` fizzles if it resolves now (see RulesHooks)."""
        ...

    def request_options(self, flow: FlowT, player: str, action: ActionDef, sees: Sight
                        ) -> Iterable[Request] | None:
        """The requests of ``action`` that ``player`` could make now, as far as ``sees``
        lets them be named (see RulesHooks)."""
        ...

    def board(self, flow: FlowT) -> dict[str, Any]: ...

    def notes(self) -> list[str]: ...


HookFlowT = TypeVar("HookFlowT", bound=Table)


class RulesHooks(Generic[HookFlowT]):
    """The optional hooks of a rules module, with what they do for a game that needs
    none of them; a rules module inherits this and overrides what it uses."""

    def on_roll(self, flow: HookFlowT, line: Roll) -> None:
        """A game without dice: a roll is recorded and changes nothing."""

    def not_judged(self, action_id: str) -> str | None:
        """Why ``action_id``, not among the actions, is one the regulation has but the
        judge does not judge yet (the request is a ``log.not-judged-yet`` warning, not
        ``legality.unknown-action``); None for an action the regulation lacks. Default:
        None (a game judges every action it has)."""
        return None

    def table_allows(self, flow: HookFlowT, line: Request, action: ActionDef) -> bool:
        """Whether the table allows ``line`` (a request with no key card, cost or target
        chosen yet) besides its timing: the action's conditions on the table and the
        abilities that grant it. Read by what the rules want next (adjudicator.next_step),
        never by the judging, which reports each of these as its own finding. Default:
        True (a game whose actions have no such condition)."""
        return True

    def on_staged(self, flow: HookFlowT, req: Any) -> list[TriggerSpec]:
        """A direct normal request was put on the stage: the requests that requesting it
        triggers (checked after it is staged, so they go above it). Default: none."""
        return []

    def settle(self, flow: HookFlowT) -> list[TriggerSpec]:
        """Called whenever nothing is pending and no instant request waits for its
        resolution. A game whose step ends by itself once nothing is pending (an end step
        whose pending effects the log went on without) moves the game on here and returns
        the requests that triggered; the default: nothing happens."""
        return []

    def goes_past_pending(self, flow: HookFlowT, line: Trigger | TurnStarted) -> bool:
        """Called for a ``trigger`` or ``turn_started`` line the rules did not derive here,
        while triggered requests wait. True when the line is one the rules derive once they
        are done (the next turn's start, its draw step): the table went on without them,
        the flow reports them missed at this line, once, and reads the line again where
        the game then is. The default: False (the line is a spurious trigger, or a turn
        start the rules do not give)."""
        return False

    def trigger_unseen(self, flow: HookFlowT, line: Trigger) -> str | None:
        """Called for a ``trigger`` line whose condition the rules did not find held: why
        it may have held on a card whose face the log does not show (a face-down bulwark
        gone to the graveyard may have been a card that triggers). The flow then reports
        a ``log.hidden-info`` warning, not ``order.trigger-spurious``, and the trigger
        happened as recorded. The default: None (every face the condition reads is
        known)."""
        return None

    def unit_of(self, flow: HookFlowT, ref: str) -> set[str]:
        """The card references that name the same thing as ``ref`` on the table now: the
        cards of the unit (a character of several cards) it names. Read where a table's
        later play shows it kept something where it was (the judge's ``kept`` repair).
        The default: the card alone (a game whose every piece is one card)."""
        return {ref}

    def hand_turn_over(self, flow: HookFlowT, player: str) -> list[Any] | None:
        """Called when a table played the turn that just started as ``player``'s (the
        same player took two turns in a row), before the flow makes ``player`` the turn
        player. A game makes what the rules did at the turn's start that player's and
        returns the buffered requests whose controller it changed; None when it cannot
        (docs/decisions.md, "Root cause first"). The default: None (a game whose turn start
        did something for its player that cannot be given to another)."""
        return None

    def asks_on_resolve(self, flow: HookFlowT, req: Any) -> bool:
        """Whether resolving ``req`` now leaves a player a choice (``resolve.choices``):
        when it does not, its resolve line is no decision, and ``coreflow play`` fills it
        in (adjudicator.next_step.decided). The default: the action declares choices made
        while it resolves (``choices_on_resolve`` in its data). A game whose choice is
        needed only on some tables (End's discard, only over the hand limit) says so."""
        return bool(req.action.data.get("choices_on_resolve"))

    def fizzles(self, flow: HookFlowT, req: Any) -> bool:
        """Whether ``req`` fizzles if it resolves now (its resolve line then records
        ``fizzled``). The default: False (a game whose requests never fizzle)."""
        return False

    def request_options(self, flow: HookFlowT, player: str, action: ActionDef, sees: Sight
                        ) -> Iterable[Request] | None:
        """The requests of ``action`` that ``player`` could make now: each key card, cost,
        target and request-time choice the table could name, built from the cards on the
        table and in the player's zones. A card ``sees`` says the viewer may not see (a
        hand card the log never showed, the top of a pile) is written ``owner:?``, never
        guessed. The list proposes; whether each is legal is the judge's to say
        (:meth:`request_findings`), so a proposal may be illegal but a legal request must
        not be missing (up to the faces of ``?`` cards). None: the game does not list its
        requests (any request of the action may be possible). The default: None."""
        return None
