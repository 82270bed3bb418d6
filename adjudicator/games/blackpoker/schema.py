"""The vocabulary the BlackPoker edition data may use: a pydantic model, checked when the
data is loaded.

The rules module carries out whatever the data says, so the data is checked against what
the code knows before any game is judged: every step an action's effect names (the steps
registered with ``@step``), every cost letter, target kind, key-card pattern, timing,
format, frame, character ability, trigger condition and choice shape (``choices``,
``choices_on_resolve``: :mod:`..choices`), and every name one entry gives of another (an
action a trump grants, the character a trump is). A typo in the data is an
:class:`EditionDataError` naming the file and the key
(``edition-9.0.yaml: actions.up.effect[0].step: 'sise' is not a step (known: ...)``),
never a surprise in play.

The model only checks: the rules module reads the data as loaded (plain mappings), so
what is judged is exactly what the files say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import UnionType
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from coreflow_judge.adjudicator.games.blackpoker.abilities import OPS, SCOPES, STATS
from coreflow_judge.adjudicator.games.blackpoker.cards import parse_card
from coreflow_judge.adjudicator.games.choices import check_declarations
from coreflow_judge.adjudicator.games.common import EditionDataError
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

COST_LETTERS = "BLDSC"
"""$B (a bulwark), $L (the top of the life/deck), $D (a hand card), $S (a character), $C."""


def _problem(kind: str, message: str, at: str | None = None) -> PydanticCustomError:
    """A problem this module words itself; ``at``: where below the value checked."""
    return PydanticCustomError(kind, "{message}", {"message": message} |
                               ({"at": at} if at is not None else {}))


def _named(kind: str, what: str) -> Callable[[str, ValidationInfo], str]:
    """A name the data gives of another entry (an action, a format, ...): known to this
    edition. ``kind``: the context's set of names (:func:`check` builds it)."""
    def known(name: str, info: ValidationInfo) -> str:
        names: frozenset[str] = (info.context or {}).get(kind, frozenset())
        if name not in names:
            raise _problem("unknown_name",
                           f"{name!r} is not {what} (known: {', '.join(sorted(names))})")
        return name
    return known


def _one_of(values: tuple[str, ...], what: str) -> Callable[[str], str]:
    def known(value: str) -> str:
        if value not in values:
            raise _problem("unknown_name",
                           f"{value!r} is not {what} (known: {', '.join(values)})")
        return value
    return known


ActionRef = Annotated[str, AfterValidator(_named("actions", "an action of this edition"))]
FormatRef = Annotated[str, AfterValidator(_named("formats", "a format of this edition"))]
FrameRef = Annotated[str, AfterValidator(_named("frames", "a frame of this edition"))]
CharacterRef = Annotated[str, AfterValidator(
    _named("characters", "a character of this edition"))]
StepRef = Annotated[str, AfterValidator(_named("steps", "a step"))]
Suit = Literal["S", "H", "D", "C"]
CharacterKind = Literal["soldier", "bulwark"]


def _cost(letters: str) -> str:
    for letter in letters:
        if letter not in COST_LETTERS:
            raise _problem("cost_letter", f"{letter!r} is not a cost letter (known: "
                           f"{', '.join(sorted(COST_LETTERS))})")
    return letters


Cost = Annotated[str, AfterValidator(_cost)]


def _choices(declared: dict[str, Any]) -> dict[str, Any]:
    problem = check_declarations(declared)  # each choice named with its shape (choices.py)
    if problem is not None:
        raise _problem("choice_shape", problem)
    return declared


Choices = Annotated[dict[str, Any], AfterValidator(_choices)]


class Entry(BaseModel):
    """An entry of the data: its fields are those below, and no other."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    what: ClassVar[str] = "a field"
    """How an unknown field's message names this kind of entry's fields."""


class Pattern(Entry):
    """A card pattern (a key card, a card a step reads): suits, ranks, a Joker, any card."""

    what = "a card-pattern field"
    suits: list[Suit] = []
    ranks: list[int] = [0, 13]
    joker: bool = False
    any: bool = False

    @model_validator(mode="after")
    def _rank_range(self) -> Pattern:
        if len(self.ranks) != 2 or not 0 <= self.ranks[0] <= self.ranks[1] <= 13:
            raise _problem("rank_range", f"{self.ranks} is not a rank range within 0-13",
                           at="ranks")
        return self


class Key(Entry):
    what = "a key-card field"
    cards: list[Pattern] = []
    same_suit: bool = False
    same_rank: bool = False
    rank_set: list[int] = []
    count: int | None = None
    from_: Literal["rare"] | None = Field(None, alias="from")
    """Where the key cards come from: the rare card zone (none: the hand)."""


class Target(Entry):
    what = "a target field"
    kind: Literal["player", "request", "character", "soldier", "bulwark", "trump"]
    owner: Literal["any", "self"] | None = None
    relation: Literal["opponent"] | None = None
    key_card_count: list[int] | None = None
    """The number of key cards the targeted request has: [least, most]."""
    same_suit_as_key: bool = False
    action: ActionRef | None = None
    not_self: bool = False
    immune_flag: str | None = None
    has_target: bool = False
    contains: Pattern | None = None
    face_up: bool = False
    state: Literal["charge", "drive"] | None = None


class StepSpec(BaseModel):
    """One step of an action's effect: its name and the parameters it reads."""

    model_config = ConfigDict(extra="allow", strict=True, defer_build=True)
    step: StepRef
    card: Pattern | None = None
    """A card pattern the step reads (蘇生, 修繕)."""


class AltCost(Entry):
    what = "an alternative-cost field"
    cost: Cost
    timing: Literal["main", "quick"] | None = None


class Action(Entry):
    what = "an action field"
    name: str
    name_ja: str = ""
    type: Literal["summon", "turn", "combat", "quick_magic", "normal_magic", "magic",
                  "triggered", "trump", "pack", "rare"] | None = None
    direct: bool
    speed: Literal["instant", "normal"]
    timing: Literal["main", "quick"]
    cost: Cost = ""
    alt_cost: AltCost | None = None
    once_per_turn: bool = False
    key: Key | None = None
    target: Target | None = None
    effect: list[StepSpec]
    choices: Choices | None = None
    choices_on_resolve: Choices | None = None
    controller: Literal["turn_player", "requester_of_source", "owner"] | None = None
    formats: list[FormatRef] | None = None
    frames: list[FrameRef] | None = None
    flags: dict[Literal["counter_immune", "only_when_not_turn_player",
                        "resolve_before_cost_triggers", "change_target_immune"],
                bool] = {}
    originated: bool = False
    condition: dict[Literal["pack_unopened", "life_at_most"], Any] = {}
    """The conditions on requesting the action the rules check (frames.py)."""


class Ability(Entry):
    """A character's static ability (:mod:`.abilities`: the scopes, stats and ops)."""

    what = "an ability field"
    name: Annotated[str, Field(min_length=1)]
    scope: Annotated[str, AfterValidator(_one_of(SCOPES, "a scope"))]
    stat: Annotated[str, AfterValidator(_one_of(STATS, "a stat"))]
    op: Annotated[str, AfterValidator(_one_of(OPS, "an op"))]
    amount: int | None = None
    letters: str = ""
    applies: dict[Literal["kind", "type", "timing"], Any] = {}


class Grant(Entry):
    what = "a grant field"
    action: ActionRef
    free: bool = False
    virtual_keys: list[str] = []
    needs_empty_stage: bool = False


class AbilityTrigger(Entry):
    what = "a trigger field"
    event: Literal["own_end", "opponent_discards", "enabled", "unblocked_attacker",
                   "blocking_bulwark_lost", "field_to_graveyard"]
    action: ActionRef


class Character(Entry):
    what = "a character field"
    name_ja: str = ""
    kind: CharacterKind
    size: Literal["printed", "sum", "none", "fixed"]
    number: int | None = None
    haste: bool | Literal["if_ace"] = False
    next_generation: bool = False
    abilities: list[Ability] = []
    formats: list[FormatRef] | None = None
    labels: list[str] = []
    immune: list[ActionRef] = []
    suits: list[Suit] = []
    untargetable: bool = False
    regenerates: str | None = None
    grants: list[Grant] = []
    triggers: list[AbilityTrigger] = []
    must_attack: bool = False
    bulwark_proof: bool = False

    @model_validator(mode="after")
    def _fixed_number(self) -> Character:
        if self.size == "fixed" and self.number is None:
            raise _problem("fixed_size", "a fixed size needs its number", at="number")
        return self


class Originator(Entry):
    what = "an originator field"
    suits: list[Suit] = []
    kind: CharacterKind | None = None


class Trump(Entry):
    what = "a trump field"
    name: str = ""
    grants: list[ActionRef] = []
    triggers: list[AbilityTrigger] = []
    originator: Originator | None = None
    rule: Literal["revolution", "fortress", "loss", "no_charge"] | None = None
    """A rule the trump changes while face up."""
    character: CharacterRef | None = None


class Trigger(Entry):
    """A request the rules start: ``after`` an action resolved, or on an ``event``."""

    what = "a trigger field"
    action: ActionRef
    after: ActionRef | None = None
    event: Literal["field_to_graveyard"] | None = None
    if_: Literal["attackers"] | None = Field(None, alias="if")
    formats: list[FormatRef] | None = None

    @model_validator(mode="after")
    def _when(self) -> Trigger:
        if self.after is None and self.event is None:
            raise _problem("trigger_when", "a trigger needs `after` (an action) or `event`")
        return self


class Frame(Entry):
    what = "a frame field"
    name_ja: str = ""
    recommended_formats: list[FormatRef] = []
    deck: dict[str, Any] = {}
    setup: dict[str, Any] = {}
    judged: bool = True
    not_judged_yet: dict[str, str] | None = None
    """A judged frame's actions and trump abilities the judge lacks yet: id -> why."""


class TrumpsIn(Entry):
    what = "a trumps_in field"
    formats: list[FormatRef] = []
    frames: list[FrameRef] = []


def _trump_cards(trumps: dict[str, Trump]) -> dict[str, Trump]:
    for card in trumps:
        if parse_card(card) is None:
            raise _problem("not_a_card", f"{card!r} is not a card", at=card)
    return trumps


def _not_judged_yet(frames: dict[str, Frame], info: ValidationInfo) -> dict[str, Frame]:
    """A frame action the judge lacks yet is not in the actions of that frame."""
    in_frames: Mapping[str, list[str] | None] = (info.context or {}).get("action_frames", {})
    for fid, frame in frames.items():
        for aid in frame.not_judged_yet or {}:
            if aid in in_frames and fid in (in_frames[aid] or [fid]):
                raise _problem("judged", "the action is judged: it is in the actions",
                               at=f"{fid}.not_judged_yet.{aid}")
    return frames


class Edition(Entry):
    """One edition's data, its parts merged (:func:`~..common.load_edition_data`)."""

    what = "a section of the edition data"
    edition: str
    formats: Annotated[list[str], Field(min_length=1)]
    deck_zone: Literal["deck", "life"]
    policy: dict[str, Any]
    characters: dict[str, Character] = {}
    actions: dict[str, Action] = {}
    triggers: list[Trigger] = []
    trumps: Annotated[dict[str, Trump], AfterValidator(_trump_cards)] = {}
    trumps_in: TrumpsIn | None = None
    labels_ja: dict[str, str] = {}
    frames: Annotated[dict[str, Frame], AfterValidator(_not_judged_yet)] = {}
    files: dict[str, str] = Field({}, alias="_files")
    """Which file defined each ``section.key`` (for errors that name the file)."""


OUR_PROBLEMS = frozenset({"unknown_name", "cost_letter", "choice_shape", "rank_range",
                          "fixed_size", "not_a_card", "judged", "trigger_when"})
"""The problems this module words itself (the rest are pydantic's)."""


def _where(loc: tuple[int | str, ...]) -> str:
    """``("actions", "up", "effect", 0, "step")`` -> ``actions.up.effect[0].step``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out


def _entry_at(loc: tuple[int | str, ...]) -> type[Entry] | None:
    """The kind of entry at ``loc`` in the data (``("actions", "up")``: an :class:`Action`),
    read from the models' field types."""
    tp: Any = Edition
    for part in loc:
        while get_origin(tp) in (Annotated, Union, UnionType):  # a checked X, X | None
            tp = next(a for a in get_args(tp) if a is not type(None))
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            field = next((f for name, f in tp.model_fields.items()
                          if (f.alias or name) == part), None)
            if field is None:
                return None
            tp = field.annotation
        elif get_origin(tp) in (list, dict):  # an item of a list, a value of a mapping
            tp = get_args(tp)[-1]
        else:
            return None
    while get_origin(tp) in (Annotated, Union, UnionType):
        tp = next(a for a in get_args(tp) if a is not type(None))
    return tp if isinstance(tp, type) and issubclass(tp, Entry) else None


def _problem_of(error: Any) -> tuple[tuple[int | str, ...], str]:
    """Where a pydantic error is in the data, and what is wrong there, in a data author's
    words."""
    ctx = error.get("ctx") or {}
    loc = tuple(error["loc"]) + tuple(str(ctx["at"]).split(".") if "at" in ctx else ())
    if loc[-1:] == ("[key]",):  # a mapping's key refused: named at the mapping
        loc = loc[:-2]
    if error["type"] in OUR_PROBLEMS:
        return loc, error["msg"]
    if error["type"] == "extra_forbidden":
        entry = _entry_at(loc[:-1])
        what, known = ("a field", "") if entry is None else (entry.what, ", ".join(sorted(
            f.alias or name for name, f in entry.model_fields.items())))
        if len(loc) == 1:  # a section: named by itself
            return loc, f"not {what} (known: {known})"
        return loc[:-1], f"{loc[-1]!r} is not {what}" + (f" (known: {known})" if known else "")
    if error["type"] == "missing":
        return loc, "required, and not given"
    got = repr(error.get("input"))  # pydantic's own words, after the value it refused
    return loc, f"{got if len(got) <= 60 else got[:57] + '...'}: {error['msg']}"


def check(data: Mapping[str, Any], steps: frozenset[str]) -> None:
    """Raise :class:`EditionDataError` at the first thing in ``data`` the code does not
    know, naming the file that defines it and its key. ``steps``: the step names the
    resolution carries out."""
    files: Mapping[str, str] = data.get("_files") or {}
    main = f"edition-{data.get('edition')}.yaml"
    actions = data.get("actions") or {}
    context = {
        "steps": steps,
        "actions": frozenset(actions),
        "formats": frozenset(data.get("formats") or ()),
        "frames": frozenset(data.get("frames") or ()),
        "characters": frozenset(data.get("characters") or ()),
        "action_frames": {aid: a.get("frames") for aid, a in actions.items()
                          if isinstance(a, Mapping)},
    }
    try:
        Edition.model_validate(data, context=context)
    except ValidationError as exc:
        loc, problem = _problem_of(exc.errors(include_url=False)[0])
        raise EditionDataError(files.get(".".join(str(p) for p in loc[:2]), main),
                               _where(loc), problem) from None
