"""One resolution of a BlackPoker request: the action's steps carried out on a table.

The steps of the lite actions are here; the steps of the other formats' and frames'
actions are in the steps modules (``steps_*.py``: :mod:`.steps_standard`,
:mod:`.steps_master`, :mod:`.steps_extra`, ...), each a mixin of :class:`Resolving`. A step
is a method registered with ``@step("<name>")`` under the name the edition data's
``effect`` lists use; the data is checked against the registered names when it is loaded
(:mod:`.schema`), and the rules module loads every steps module of the package
(:func:`.rules.resolution_class`), so a new frame's steps need no edit elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from coreflow_judge.adjudicator.claims import compare
from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.game import Resolution, TriggerSpec
from coreflow_judge.adjudicator.games.blackpoker.abilities import Ability
from coreflow_judge.adjudicator.games.blackpoker.as_played import AsPlayed, Before
from coreflow_judge.adjudicator.games.blackpoker.board import Character, Trump
from coreflow_judge.adjudicator.games.blackpoker.cards import (
    UNKNOWN,
    Card,
    card_of,
    number,
    parse_card,
    split_ref,
)
from coreflow_judge.adjudicator.games.choices import choice_findings
from coreflow_judge.adjudicator.games.common import Handlers
from coreflow_judge.adjudicator.plan import Effect, PlanStep, ResolutionPlan

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow, Req
    from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules
    from coreflow_judge.events.models import Resolve

Step = Callable[[Any, dict[str, Any]], None]
"""A step: a method of :class:`Resolving` or of a steps mixin, given the step's data (its
entry of the action's ``effect``: ``{step: size, sign: 1}``)."""
step: Handlers[Step] = Handlers("step")
"""Every step the edition data may name, registered by ``@step("<name>")``."""
step_mixins: list[type[Resolving]] = []
"""The steps modules' mixins of :class:`Resolving`, registered by ``@step_mixin``."""
M = TypeVar("M", bound="type[Resolving]")


def step_mixin(cls: M) -> M:
    """Registers a steps module's mixin: the judge's resolution combines every mixin
    registered (:func:`.rules.resolution_class`), so each step finds the helpers of its own
    mixin on ``self``."""
    step_mixins.append(cls)
    return cls


class Resolving:
    """One resolution: carries out the action's steps on a table, each step recording its
    primitive effects and why (a :class:`PlanStep`).

    On the judge's table (``planning=False``) the steps change the board and the flow and
    the log's claims decide what a hidden card was; :meth:`finish` compares the claims with
    the plan and follows the table as played. On a working copy (``planning=True``,
    :meth:`BlackPokerRules.plan_resolution`) nothing outside the copy changes: the turn
    handed over and the request negated are effects of the plan only.
    """

    def __init__(self, rules: BlackPokerRules, flow: CoreFlow, req: Req, line: Resolve,
                 planning: bool = False):
        self.rules = rules
        self.flow = flow
        self.req = req
        self.line = line
        self.planning = planning
        self.a = req.action.data
        found, self.refused = choice_findings(
            req.action.name, "resolve", self.a.get("choices_on_resolve"), line.choices,
            line.seq)
        self.findings: list[Finding] = found
        """A choice refused for its shape (or one the action does not take) is read as not
        recorded; the line has its finding, so the steps add none about a choice."""
        self.choices = {k: v for k, v in (line.choices or {}).items()
                        if k not in self.refused}
        self.steps: list[PlanStep] = []
        self.effects: list[Effect] = []
        self.triggers: list[TriggerSpec] = []
        self.key_dest = "graveyard"
        self.pass_chance = False
        self.had_field = {p: bool(b.field) for p, b in rules.boards.items()} \
            if rules.rule_in_force("fortress") else {}
        """Who had a character on the field just before the effect (what 要塞 reads)."""
        """The effect ends by passing the chance (ファントム, 修繕)."""
        self.fizzled = False
        self.unsure = False
        """A step's outcome depended on a face the log does not show (warned): effects
        the log records beyond the plan's are followed, not reported."""
        self.why: list[str] = []
        """Why a step had no effect, in a judge's words (quoted when the log disagrees)."""
        self.sizes_used: dict[str, list[Character]] = {}
        """Damage dealt by a size: the player hit -> the characters whose sizes dealt it."""
        self.cut_short: dict[tuple[str, str], int] = {}
        """A damage or draw the table could not carry out in full (too few cards in the
        deck): (op, player) -> the count the effect asked for."""
        self.count_unknown: set[tuple[str, str]] = set()
        """A damage or draw from a deck whose count the log does not give: (op, player).
        Whether the whole effect was possible cannot be checked there."""
        self.claims: list[dict[str, Any]] = [
            {"op": e.op, **(e.model_extra or {})} for e in line.effects or []
        ]
        """The effects the log claims, as plain dicts (read many times, built once)."""
        self.before = Before.of(self) if not planning and line.effects is not None else None
        """The table before the resolution, where the log claims its effects: what the
        table as played is computed from when the claims differ (:mod:`.as_played`)."""
        self.units: dict[str, str] = self._units() if self.claims else {}
        """Each card of a character of several cards on the field before the effect ->
        the character's reference (what a claim naming the unit by that card means)."""

    def rep(self, code: str, rule: str, msg: str, **kw: Any) -> None:
        if self.refused and code in ("log.choice-missing", "legality.choice-invalid"):
            return  # the line's choices were refused already: one finding (choices.py)
        self.findings.append(finding(code, self.line.seq, rule, msg, **kw))
        if code == "log.hidden-info":
            self.unsure = True

    def hidden(self, msg: str, rule: str = "bp6.2") -> None:
        """What a step does depends on a face the log does not show: a ``log.hidden-info``
        warning saying what cannot be checked, never an error (docs/decisions.md, "Hidden
        cards and counts"); the effects the log records are then followed
        (:meth:`_compare_claims`)."""
        self.rep("log.hidden-info", rule, msg, severity="warning")

    def among(self, card: str, zone: list[str], what: str) -> bool:
        """Is ``card`` one of the faces of ``zone`` (``?``: a face the log has not
        shown)? Where it is not among the faces shown but may be one of the unseen ones,
        it is: a warning says that it cannot be checked, and the unseen face becomes
        ``card`` (the face the log now shows)."""
        if card in zone:
            return True
        if card == UNKNOWN or UNKNOWN not in zone:
            return False
        shown = [c for c in zone if c != UNKNOWN]
        zone[zone.index(UNKNOWN)] = card
        self.hidden(f"{card} is not among the {what} the log shows "
                    f"({', '.join(shown) or 'none'}), and not every face is shown: whether "
                    f"{card} was one of them cannot be checked.")
        return True

    def claimed_gone(self, ch: Character) -> bool:
        """The log's effects move one of ``ch``'s cards off the field (False without
        effects): what the table did where the judge cannot decide."""
        refs = {f"{ch.owner}:{c}" for c in ch.cards}
        return any(e.get("op") == "move" and e.get("from") == "field"
                   and e.get("card") in refs for e in self.claims)

    def claimed_delta(self, ch: Character | None = None) -> int | None:
        """The size change the log's effects record (for ``ch``, or any), if one."""
        return next((int(e["delta"]) for e in self.claims if e.get("op") == "size"
                     and isinstance(e.get("delta"), int)
                     and (ch is None or e.get("character") == ch.ref)), None)

    def _units(self) -> dict[str, str]:
        """Each card of a character of several cards on the field -> its reference."""
        return {f"{ch.owner}:{c}": ch.ref for b in self.rules.boards.values() for ch in b.field
                if len(ch.cards) > 1 for c in ch.cards}

    def _named_as_ours(self, claim: dict[str, Any]) -> dict[str, Any]:
        """A claim naming a character of several cards by another of its cards, read with
        the judge's reference (match-log.md: any card of a unit of several cards also
        names that unit), as the unit was before the effect or, for one the effect made,
        after it."""
        ref = claim.get("character")
        if not isinstance(ref, str):
            return claim
        ours = self.units.get(ref) or self._units().get(ref)
        return claim if ours is None or ours == ref else {**claim, "character": ours}

    def target_char(self) -> Character | None:
        return self.rules.find(self.req.targets[0]) if self.req.targets else None

    def bulwark_to_soldier(self, ch: Character, emit: bool = True) -> None:
        """A bulwark becomes a soldier (リバース, ファントムリバース): its card face up (the
        face the log's ``transform`` shows, where the table did not know it), the character
        that card makes (``emit``: recorded as an effect of the rules')."""
        card = ch.cards[0]
        shown = next((card_of(str(c)) for d in self.claims if d.get("op") == "transform"
                      for c in d.get("cards") or []), None)
        if card == UNKNOWN and shown:
            card = shown
            ch.cards[0] = card
        ch.kind = self.rules.character_for(ch.cards)
        ch.face_down = False
        if emit:
            self.emit(op="transform", character=ch.ref, to="soldier",
                      cards=[f"{ch.owner}:{card}"])

    def _turn_trump(self, owner: str, trump: Trump, up: bool) -> None:
        """A trump turns face up (its ability in force: 前触れ and the like trigger now) or
        face down."""
        trump.face_up = up
        why = self.rules.not_judged_yet.get(trump.card) if up else None
        if why is not None:  # the rest depends on an ability the judge cannot apply
            self.rep("log.not-judged-yet", "scope", f"{owner}:{trump.card} is face up: {why}; "
                     "the judge rules on nothing after this line.", severity="warning")
            self.flow.stop_judging()
        if up:
            ability = self.rules.trump_data.get(trump.card, {})
            self.triggers += [TriggerSpec(t["action"], self.req.id, owner)
                              for t in ability.get("triggers", ())
                              if t["event"] == "enabled" and t["action"] in self.rules.actions]

    def _clear_designation(self, ch: Character, emit: bool = True) -> None:
        """9.0 リバース 4: an attacker or blocker stops being one (``emit``: recorded as an
        effect of the rules')."""
        cleared = False
        for r in self.flow.requests.values():
            attackers = r.data.get("attackers")
            if isinstance(attackers, list) and ch.ref in attackers:
                if not self.planning:
                    r.data["attackers"] = [a for a in attackers if a != ch.ref]
                cleared = True
            blockers = r.data.get("blockers")
            if isinstance(blockers, dict):
                for att, bl in blockers.items():
                    if ch.ref in bl or att == ch.ref:
                        if not self.planning:
                            blockers[att] = [b for b in bl if b != ch.ref]
                        cleared = True
        if cleared and emit:
            self.emit(op="clear_designation", character=ch.ref)

    def run(self) -> None:
        self.fizzled = self.rules.fizzles(self.flow, self.req)
        if self.fizzled and self.line.result == "resolved" and \
                self.req.data.get("target_invalid_at_request"):
            self.fizzled = False  # its target was already reported: follow the table
        if self.fizzled:
            if self.line.result == "resolved":
                self.rep("legality.fizzle-not-applied", "bp4.3.3.1.1",
                         f"{self.req.action.name}'s target was no longer legal: the request "
                         "fizzles with no effect.", expected="fizzled", actual="resolved")
            return
        if self.line.result == "fizzled":
            self.rep("legality.effect-mismatch", "bp4.3.3.1.1",
                     f"{self.req.action.name}'s target was still legal: it does not fizzle.",
                     expected="resolved", actual="fizzled")
            return
        steps = step.table
        if not self.planning:  # the judge: the same steps, no plan object to build
            for spec in self.a.get("effect", []):
                steps[spec["step"]](self, spec)
            return
        for spec in self.a.get("effect", []):
            done, said = len(self.effects), len(self.why)
            steps[spec["step"]](self, spec)
            self.steps.append(PlanStep(spec["step"], self.effects[done:],
                                       "; ".join(self.why[said:])))

    def plan(self) -> ResolutionPlan:
        """The steps as planned, with the requests the resolution triggers."""
        self._after_triggers()
        return ResolutionPlan(self.req.id, "fizzled" if self.fizzled else "resolved",
                              self.steps, self.triggers)

    # Each step applies its effect to the board and records it as a primitive effect.
    def emit(self, **effect: Any) -> None:
        self.effects.append(effect)

    def _claimed_enter_cards(self, as_: str) -> list[str]:
        """The cards the log's ``enter`` claims name for characters entering ``as_``."""
        out: list[str] = []
        for d in self.claims:
            if d.get("op") == "enter" and d.get("as") == as_:
                out += [card_of(str(c)) for c in d.get("cards") or []]
        return out

    def _graveyard_choice(self, player: str, name: str) -> str | None:
        """The card chosen in ``player``'s graveyard (choice ``card``), checked."""
        raw = self.choices.get("card")
        b = self.rules.boards[player]
        if raw is None:
            if not b.graveyard:  # nothing to choose, nothing to record
                self.why.append(f"{player}'s graveyard is empty: no card is chosen")
                return None
            self.rep("log.choice-missing", "bp6.2",
                     f"{name}: the card chosen in the graveyard is not recorded.",
                     severity="warning")
            return None
        parts = split_ref(str(raw))
        card = parts[1] if parts else str(raw)
        if parts is not None and parts[0] != player:
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{raw} is not in {player}'s graveyard.", actual=raw)
            return None
        if not self.among(card, b.graveyard, f"cards of {player}'s graveyard"):
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{card} is not in {player}'s graveyard.", actual=raw)
            return None
        return card


    def _shuffle(self, player: str) -> None:
        """The player's deck is shuffled."""
        b = self.rules.boards[player]
        if b.deck is not None:  # its order is hidden from now on
            b.deck = [UNKNOWN] * len(b.deck)
        self.emit(op="shuffle", player=player)

    def _negate_request(self, rid: str) -> None:
        """Remove a request from the stage; its key cards go to the graveyard."""
        target = self.flow.requests.get(rid)
        if target is None:
            return
        self.emit(op="negate", request=target.id)
        if self.line.effects is not None and not any(
                e.get("op") == "negate" and e.get("request") == target.id for e in self.claims):
            return  # the table did not negate it: reported with the claims
        if not self.planning:
            self.flow.negate(target.id)
        if not target.data.get("virtual_keys"):
            for k in target.key_cards:
                self.rules.boards[target.controller].graveyard.append(card_of(k))

    def _charge(self, player: str, kind: str | None = None) -> None:
        """Every character of ``player`` (of ``kind`` only, if given) to charge state."""
        for ch in self.rules.boards[player].field:
            if kind is not None and self.rules.data["characters"][ch.kind]["kind"] != kind:
                continue
            if ch.state != "charge":
                ch.state = "charge"
                self.emit(op="charge", character=ch.ref)

    def _destroy_soldiers_at_most(self, limit: int, value: Any, what: str) -> None:
        """Every soldier (both players') whose ``value(ch)`` (its number or size) is at
        most ``limit`` goes to the graveyard; a value the log hides is a warning."""
        doomed: list[Character] = []
        for p in self.flow.players:
            for ch in self.rules.boards[p].field:
                if self.rules.data["characters"][ch.kind]["kind"] != "soldier":
                    continue
                n = value(ch)
                if n is None:
                    self.hidden(f"{ch.ref}'s {what} is unknown: whether it is {limit} or "
                                "less cannot be checked.")
                    if self.claimed_gone(ch):
                        doomed.append(ch)  # the table moved it
                elif n <= limit:
                    doomed.append(ch)
        for ch in doomed:
            self._destroy(ch)

    @step("enter_bulwark_from_hand")
    def step_enter_bulwark_from_hand(self, step: dict[str, Any]) -> None:
        """防壁設置: the hand card chosen (request choice ``card``) enters face down as a
        bulwark; with the hand empty, nothing enters (partial execution)."""
        player = self.req.controller
        b = self.rules.boards[player]
        ref = self.rules.request_choices(self.req).get("card")
        if ref is None and b.hand_count == 0:
            self.why.append(f"{player}'s hand is empty: no card enters as a bulwark")
            return
        # An unrecorded card (warned when requested) is still a bulwark, face unknown.
        card = card_of(str(ref or f"{player}:{UNKNOWN}"))
        b.take_from_hand(card)
        b.field.append(Character(f"{player}:{card}", player, "bulwark", [card],
                                 [self.flow.turn], face_down=True, timestamp=self.rules.tick()))
        self.emit(op="enter", character=f"{player}:{card}", **{"as": "bulwark"},
                  cards=[f"{player}:{card}"])

    @step("enter")
    def step_enter(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        cards = [card_of(k) for k in self.req.key_cards]
        if not cards:
            return
        ref = f"{player}:{cards[0]}"
        self.rules.boards[player].field.append(
            Character(ref, player, step["as"], cards, [self.flow.turn] * len(cards),
                      timestamp=self.rules.tick()))
        self.key_dest = "field"
        self.emit(op="enter", character=ref, **{"as": step["as"]}, cards=list(self.req.key_cards))

    @step("equip")
    def step_equip(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        for k in self.req.key_cards:
            ch.cards.append(card_of(k))
            ch.entered.append(self.flow.turn)
        ch.kind = "armed_soldier"
        self.key_dest = "field"
        self.emit(op="enter", character=ch.ref, **{"as": "armed_soldier"},
                  cards=list(self.req.key_cards))

    @step("charge_all")
    def step_charge_all(self, step: dict[str, Any]) -> None:
        tp = self.flow.turn_player
        if tp is None:
            return
        barred = self.rules.rule_in_force("no_charge")
        if barred:
            # 9.0 喪失 (♢5 face up, either player's): no Charge puts a character into charge
            # state; the Draw still follows.
            self.why.append(f"{' and '.join(barred)}'s 喪失 is face up: no player's Charge "
                            "charges a character")
            return
        if self.rules.rule_in_force("loss", tp) and sum(
                ch.kind == "bulwark" and ch.state == "charge"
                for ch in self.rules.boards[tp].field) >= 2:
            # 喪失 (♢5 face up, 2+ charge-state bulwarks): the Charge only starts the Draw.
            self.why.append(f"{tp}'s 喪失 is face up with 2 or more charge-state bulwarks: "
                            "the Charge charges nothing")
            return
        self._charge(tp)

    @step("draw")
    def step_draw(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.rules.boards[player]
        if step["count"] == "choice":
            n = self.choices.get("count")
            if n is None:
                self.rep("log.choice-missing", "bp6.2",
                         "How many cards were drawn (1 or 2) is not recorded; 1 is assumed.",
                         severity="warning")
                n = 1
            elif not isinstance(n, int) or not step["min"] <= n <= step["max"]:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"Draw takes {step['min']} or {step['max']} cards.",
                         expected=[step["min"], step["max"]], actual=n)
                n = n if isinstance(n, int) and n > 0 else 1
        else:
            n = step["count"]
            if b.deck is not None and len(b.deck) <= step.get("low_life", -1):
                n = step["low_count"]
            elif b.deck is None:
                self.rep("log.hidden-info", "bp6.2",
                         "The life count is unknown: whether 1 or 2 cards are drawn cannot be "
                         "checked.", severity="warning")
        shown = self._claimed_cards("draw")
        if b.deck is None:
            self.count_unknown.add(("draw", player))
        got = self.rules._draw(self.flow, player, n, shown)
        if len(got) < n:
            self.cut_short[("draw", player)] = n
        self.emit(op="draw", player=player, amount=len(got),
                  cards=[f"{player}:{c}" for c in got])

    @step("discard_to_hand_limit")
    def step_discard_to_hand_limit(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.rules.boards[player]
        limit = self.rules.pol["hand_limit"]
        count = b.hand_count
        # Left out: not recorded; [] : the table discarded none (docs/decisions.md).
        raw = self.choices.get("discard")
        chosen = [str(c) for c in raw] if isinstance(raw, list) else []
        if count is None:
            if not chosen:
                return
            need = len(chosen)
        else:
            need = self.rules.over_hand_limit(player) or 0
        if need and raw is None:
            self.rep("log.choice-missing", "bp6.2",
                     f"{player} had {count} cards in hand at End: "
                     + (f"the card discarded down to {limit} is" if need == 1 else
                        f"the {need} cards discarded down to {limit} are") + " not recorded.",
                     severity="warning")
            chosen = [f"{player}:{UNKNOWN}"] * need
        elif raw is not None and not isinstance(raw, list):
            self.rep("legality.choice-invalid", "bp6.2",
                     "End's discard lists the cards discarded ([] for none).", actual=raw)
        elif len(chosen) != need:
            self.rep("legality.choice-invalid", "bp6.2",
                     f"{player} had {count} cards in hand at End and discarded "
                     f"{len(chosen) or 'none'}: they must discard down to {limit} cards "
                     f"({need} to discard).", expected=need, actual=len(chosen))
        for ref in chosen:
            card = card_of(ref)
            if card != UNKNOWN and not b.hand_may_hold(card):
                self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the hand.",
                         actual=ref)
            b.take_from_hand(card)
            b.graveyard.append(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "hand"}, to="graveyard")
        self.triggers += self.rules.discarded(player, len(chosen), self.req.id)

    @step("fog_to_graveyard")
    def step_fog_to_graveyard(self, step: dict[str, Any]) -> None:
        b = self.rules.boards[self.req.controller]
        for card in b.fog:
            b.graveyard.append(card)
            self.emit(op="move", card=f"{self.req.controller}:{card}", **{"from": "fog"},
                      to="graveyard")
        b.fog.clear()

    @step("end_turn")
    def step_end_turn(self, step: dict[str, Any]) -> None:
        nxt = self.flow.next_player(self.flow.turn_player or self.req.controller)
        self.rules.ended.clear()  # what ended in the last turn is no longer a likely mistake
        self.rules.end_abilities("end_of_turn")  # "until the end of this turn" expires
        if not self.planning:
            self.flow.start_turn(nxt)
        self.emit(op="turn", player=nxt)

    @step("designate_attackers")
    def step_designate_attackers(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        attackers = [str(a) for a in self.choices.get("attackers", [])]
        if "attackers" not in self.choices:
            self.rep("log.choice-missing", "bp6.2",
                     "The attackers are not recorded; no attacker is assumed.",
                     severity="warning")
        valid = []
        for ref in attackers:
            ch = self.rules.find(ref)
            if ch is None or ch.owner != player:
                self.rep("legality.choice-invalid", "bp6.2",
                         f"{ref} is not a character of {player} on the field.", actual=ref)
                continue
            if not self.rules.may_attack(ch, self.flow.turn):
                why = "is in drive state" if ch.state != "charge" else (
                    "cannot attack (a bulwark)" if ch.kind == "bulwark" else
                    "entered the field this turn and is in preparation: it cannot attack yet")
                if ch.state == "charge" and ch.kind != "bulwark" and UNKNOWN in ch.cards:
                    # A card the log does not show may be an ace (haste).
                    self.hidden(f"{ref} entered the field this turn and holds a card whose "
                                "face the log does not show: whether it has haste (an ace) "
                                "cannot be checked.")
                else:
                    self.rep("legality.choice-invalid", "bp6.2", f"{ref} {why}.",
                             actual=ref)
            ch.state = "drive"
            valid.append(ch.ref)
            self.emit(op="drive", character=ch.ref)
        for ch in self.rules.boards[player].field:
            if self.rules.data["characters"][ch.kind].get("must_attack") and ch.ref not in valid \
                    and self.rules.may_attack(ch, self.flow.turn):
                self.rep("legality.choice-invalid", "bp-extra.giant",
                         f"{ch.ref} ({ch.kind}) is in charge state and may attack: it must be "
                         "designated as an attacker.", actual=attackers)
        self.req.data["attackers"] = valid

    @step("designate_blockers")
    def step_designate_blockers(self, step: dict[str, Any]) -> None:
        attack = self.flow.requests.get(self.req.source or "")
        attackers: list[str] = attack.data.get("attackers", []) if attack else []
        self.req.data["attackers"] = attackers
        raw = self.choices.get("blockers")
        if raw is None:
            self.rep("log.choice-missing", "bp6.2",
                     "The blockers are not recorded; no blocker is assumed.", severity="warning")
            raw = {}
        blockers: dict[str, list[str]] = {}
        used: set[str] = set()
        if not isinstance(raw, dict):
            self.rep("legality.choice-invalid", "bp6.2", "blockers must map attackers to lists.")
            raw = {}
        for named, blist in raw.items():
            # Any card of an attacker of several cards names it (match-log.md).
            unit = self.rules.find(str(named))
            att = unit.ref if unit is not None and unit.ref in attackers else named
            if att not in attackers:
                self.rep("legality.choice-invalid", "bp6.2", f"{named} is not an attacker.",
                         actual=named)
                continue
            chars = []
            for ref in blist if isinstance(blist, list) else [blist]:
                ch = self.rules.find(str(ref))
                if ch is None or ch.owner == self.req.controller:
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} is not a character of the defending player.", actual=ref)
                    continue
                if not self.rules.may_block(ch):
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} is in drive state and cannot block.", actual=ref)
                if ch.ref in used:
                    self.rep("legality.choice-invalid", "bp6.2",
                             f"{ref} cannot block two attackers.", actual=ref)
                used.add(ch.ref)
                chars.append(ch)
            if any(c.kind == "bulwark" for c in chars) and len(chars) > 1:
                self.rep("legality.choice-invalid", "bp6.2", "A bulwark blocks alone.",
                         actual=[c.ref for c in chars])
            blockers[att] = blockers.get(att, []) + [c.ref for c in chars]
        self.req.data["blockers"] = blockers

    @step("damage_judgement")
    def step_damage_judgement(self, step: dict[str, Any]) -> None:
        block = self.flow.requests.get(self.req.source or "")
        attackers: list[str] = block.data.get("attackers", []) if block else []
        blockers: dict[str, list[str]] = block.data.get("blockers", {}) if block else {}
        controller = self.req.controller
        opponent = self.flow.next_player(controller)
        for aref in attackers:
            att = self.rules.find(aref)
            if att is None:
                continue
            bl = [c for c in (self.rules.find(b) for b in blockers.get(aref, [])) if c is not None]
            asize = self.rules.size(att)
            if not bl:
                self.triggers += [
                    TriggerSpec(t.action, aref, att.owner)
                    for t in self.rules.trump_triggers(att.owner, "unblocked_attacker", aref)]
                if asize is None and not self.rules.size_hidden(att):
                    # No size at all (a bulwark named as an attacker, reported at the
                    # Attack): it deals no damage.
                    self.rep("log.hidden-info", "bp6.2", f"{aref}'s size is unknown.",
                             severity="warning")
                    continue
                if asize is None:
                    self.hidden(f"{aref}'s size is unknown: the damage it deals cannot be "
                                "checked" + ("; the damage the log records is followed." if
                                            self.line.effects is not None else
                                            f", and {opponent}'s {self.rules.deck_zone} count is "
                                            "unknown from here."))
                    self._unknown_damage(opponent)  # the table's count, if it says one
                    continue
                self.sizes_used.setdefault(opponent, []).append(att)
                self._damage(opponent, max(asize, 0))
                continue
            if bl[0].kind == "bulwark":
                bw = bl[0]
                card = bw.cards[0]
                shown = self._claimed_reveal(bw.ref)
                if card == UNKNOWN and shown:
                    card = shown
                    bw.cards[0] = card
                if card == UNKNOWN:
                    self.rep("log.hidden-info", "bp6.2",
                             f"The bulwark {bw.ref} is face down in the log: whether it "
                             "destroys the attacker cannot be checked.", severity="warning")
                    # Follow the table: the attacker died if the log moves one of its cards.
                    att_cards = {f"{att.owner}:{c}" for c in att.cards}
                    kills = any(e.get("op") == "move" and e.get("card") in att_cards
                                for e in self.claims)
                else:
                    n = number(card)
                    kills = n == 0 or n in att.ranks()
                if kills and self.rules.data["characters"][att.kind].get("bulwark_proof"):
                    kills = False  # 巨人 is not moved to the graveyard by a bulwark
                    self.why.append(f"{att.ref} ({att.kind}) is not destroyed by a bulwark")
                bw.face_down = False
                self.emit(op="reveal", character=bw.ref, card=f"{bw.owner}:{card}")
                if kills:
                    self._destroy(att)
                self._destroy(bw)
                if bw not in self.rules.boards[bw.owner].field:  # 9.0 要塞: 反撃
                    self.triggers += [
                        TriggerSpec(t.action, bw.ref, bw.owner,
                                    facts={"attacker_owner": att.owner})
                        for t in self.rules.trump_triggers(bw.owner, "blocking_bulwark_lost",
                                                       bw.ref)]
                continue
            sizes = [self.rules.size(c) for c in bl]
            if asize is None or any(s is None for s in sizes):
                self.hidden("A size in this battle is unknown: who goes to the graveyard "
                            "cannot be checked.")
                for c in [att, *bl]:
                    if self.claimed_gone(c):
                        self._destroy(c)
                continue
            total = sum(s for s in sizes if s is not None)
            if self.rules.rule_in_force("revolution"):
                # 革命 (♠A face up, either player's): the larger goes to the graveyard (both
                # when equal) and its player takes the difference in damage.
                if asize >= total:
                    self._destroy(att)
                if total >= asize:
                    for c in bl:
                        self._destroy(c)
                if asize != total:
                    loser = att.owner if asize > total else bl[0].owner
                    self._damage(loser, abs(asize - total))
                continue
            if asize <= total:
                self._destroy(att)
            if total <= asize:
                for c in bl:
                    self._destroy(c)

    def _damage(self, player: str, amount: int) -> None:
        """Damage: top cards of the deck to the graveyard, as many as there are."""
        if player not in self.rules.boards:
            return  # no player (a target reported when requested)
        if self._fortress_holds(player):
            self.why.append(f"{player}'s 要塞 is face up and {player} had a character on the "
                            "field: no damage from the opponent's ♠-keyed action")
            return
        b = self.rules.boards[player]
        shown = self._claimed_cards("damage", player)
        if b.deck is None:
            self.count_unknown.add(("damage", player))
        moved = []
        for i in range(amount):
            top = b.pop_deck()
            if top is None:
                break
            claimed = card_of(shown[i]) if shown and i < len(shown) else UNKNOWN
            card = claimed if top == UNKNOWN else top
            b.graveyard.append(card)
            moved.append(f"{player}:{card}")
        if len(moved) < amount:
            self.cut_short[("damage", player)] = amount
        self.emit(op="damage", player=player, amount=len(moved), cards=moved)

    def _fortress_holds(self, player: str) -> bool:
        """要塞 (♣9 face up): a player with a character on the field just before the
        opponent's action with a ♠ key card takes effect takes no damage from it."""
        if player == self.req.controller or not self.rules.rule_in_force("fortress", player):
            return False
        if not self.had_field.get(player, False):
            return False
        faces = [parse_card(card_of(k)) or Card(None, None) for k in self.req.key_cards]
        if any(c.suit == "S" for c in faces):
            return True
        if any(not c.known for c in faces):
            damaged = any(e.get("op") == "damage" and e.get("player") == player
                          for e in self.claims)
            self.hidden(f"{player}'s 要塞: a key card's face is not shown, so whether it is a "
                        "♠ cannot be checked; " + (
                            "the table dealt the damage." if damaged or self.line.effects is
                            None else "the table dealt none."))
            return self.line.effects is not None and not damaged
        return False

    def _destroy(self, ch: Character) -> None:
        if ch not in self.rules.boards[ch.owner].field:
            return
        for card in ch.cards:
            self.emit(op="move", card=f"{ch.owner}:{card}", **{"from": "field"},
                      to="graveyard")
        if self._claims_it_stayed(ch):
            return  # reported with the claims; the game follows the log
        self.triggers += self.rules._leave_field(ch, "graveyard")

    def _claims_it_stayed(self, ch: Character) -> bool:
        """The log's effects are given and move none of the character's cards off the field."""
        if self.line.effects is None:
            return False
        refs = {f"{ch.owner}:{c}" for c in ch.cards} | {f"{ch.owner}:{UNKNOWN}"}
        return not any(e.get("op") == "move" and e.get("from") == "field"
                       and e.get("card") in refs for e in self.claims)

    def _claimed_cards(self, op: str, player: str | None = None) -> list[str] | None:
        """The cards the log shows for this ``op`` (to ``player``): the claims of that op
        are read in order, the n-th for the n-th such effect of the resolution (several
        unblocked attackers each deal their own damage)."""
        def ours(d: Mapping[str, Any]) -> bool:
            return d.get("op") == op and (player is None or d.get("player") == player)

        done = sum(1 for e in self.effects if ours(e))
        mine = [d for d in self.claims if ours(d)]
        if done >= len(mine):
            return None
        cards = mine[done].get("cards")
        return [str(c) for c in cards] if isinstance(cards, list) else None

    def _claimed_amount(self, op: str, player: str) -> int | None:
        """The count the log records for the next ``op`` (damage, draw) to ``player``: 0
        where its effects record none; None without effects (or without a count)."""
        if self.line.effects is None:
            return None
        done = sum(1 for e in self.effects if e.get("op") == op and e.get("player") == player)
        mine = [d for d in self.claims if d.get("op") == op and d.get("player") == player]
        if done >= len(mine):
            return 0
        amount = mine[done].get("amount")
        return amount if isinstance(amount, int) else None

    def _unknown_damage(self, player: str) -> None:
        """A damage whose count a hidden face decides and the log does not record: the
        count of ``player``'s deck is unknown from here (never a guessed count)."""
        told = self._claimed_amount("damage", player)
        if told is None:
            self.rules.boards[player].deck = None
        elif told:
            self._damage(player, told)

    def _claimed_reveal(self, ref: str) -> str | None:
        for d in self.claims:
            if d.get("op") == "reveal" and d.get("character") == ref and d.get("card"):
                return card_of(str(d["card"]))
        return None

    @step("size")
    def step_size(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        numbers = [number(card_of(k)) for k in self.req.key_cards]
        delta: int | None = step["sign"] * sum(n or 0 for n in numbers)
        if None in numbers:
            delta = self.claimed_delta(ch)
            self.hidden(f"{self.req.action.name}: a key card's face is not shown; the size "
                        "change " + ("the log records is followed." if delta is not None else
                                     f"is unknown, and so is {ch.ref}'s size."))
        keys = ", ".join(self.req.key_cards)
        self.rules.grant(Ability(
            name=self.req.action.name, source=f"{self.req.id}, {keys}",
            owner=self.req.controller, scope="this", timestamp=self.rules.tick(), stat="size",
            op="add", amount=delta, character=ch.ref, until="end_of_turn"))
        if delta is not None:
            self.emit(op="size", character=ch.ref, delta=delta, until="end_of_turn")

    @step("destroy_if_size_not_positive")
    def step_destroy_if_size_not_positive(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        size = self.rules.size(ch)
        if size is None and self.rules.data["characters"][ch.kind]["kind"] == "soldier":
            self.hidden(f"{ch.ref}'s size is unknown: whether it is 0 or less cannot be "
                        "checked.")
            if self.claimed_gone(ch):
                self._destroy(ch)
                return
        if size is not None and size <= 0:
            self._destroy(ch)
        elif step.get("else_key_to_fog"):
            self.key_dest = "fog"

    @step("key_to_fog")
    def step_key_to_fog(self, step: dict[str, Any]) -> None:
        self.key_dest = "fog"

    @step("twist")
    def step_twist(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is None:
            return
        state = self.choices.get("state")
        if state not in ("charge", "drive"):
            if state is None:
                self.rep("log.choice-missing", "bp6.2",
                         "Twist: the chosen state is not recorded; drive is assumed.",
                         severity="warning")
            else:
                self.rep("legality.choice-invalid", "bp6.2",
                         "Twist puts a character into charge or drive state.", actual=state)
            state = "drive"
        ch.state = state
        self.emit(op=state, character=ch.ref)

    @step("counter")
    def step_counter(self, step: dict[str, Any]) -> None:
        target = self.flow.requests.get(self.req.targets[0]) if self.req.targets else None
        if target is None:
            return
        numbers = [number(card_of(k)) for k in self.req.key_cards]
        mine = sum(n or 0 for n in numbers)
        tk = target.key_cards
        if len(tk) == 1:
            theirs = number(card_of(tk[0]))
            if theirs is None or None in numbers:
                self.hidden("The countered request's key card is not shown."
                            if theirs is None else "The Counter's key card is not shown: "
                            "whether its number is high enough cannot be checked.")
                if not any(e.op == "negate" for e in self.line.effects or []):
                    return
            elif mine < theirs:
                self.why.append(
                    f"the Counter's key card number {mine} is lower than {target.id}'s key "
                    f"card number {theirs}, so {target.id} is not negated")
                return
        self._negate_request(target.id)

    @step("destroy_target")
    def step_destroy_target(self, step: dict[str, Any]) -> None:
        ch = self.target_char()
        if ch is not None:
            self._destroy(ch)

    @step("damage_target")
    def step_damage_target(self, step: dict[str, Any]) -> None:
        if not self.req.targets or self.req.targets[0] not in self.rules.boards:
            return  # no player named: reported when requested (legality.target-invalid)
        player = self.req.targets[0]
        if player not in self.rules.boards:
            return  # no player of the match: reported when requested (log.unknown-ref)
        if isinstance(step.get("amount"), int):  # R・S・F: a fixed amount
            self._damage(player, step["amount"])
            return
        faces = [parse_card(card_of(k)) or Card(None, None) for k in self.req.key_cards]
        n = sum(c.rank or 0 for c in faces if c.suit == step["suit"])
        if any(not c.known for c in faces):
            self.hidden(f"{self.req.action.name}: a key card's face is not shown; the "
                        + ("damage the log records is followed." if self.line.effects
                           is not None else f"damage cannot be checked, and {player}'s "
                           f"{self.rules.deck_zone} count is unknown from here."))
            self._unknown_damage(player)
            return
        self._damage(player, n)

    @step("search")
    def step_search(self, step: dict[str, Any]) -> None:
        player = self.req.controller
        b = self.rules.boards[player]
        ref = self.choices.get("card")
        if ref is None and b.deck == []:
            # Nothing to take, nothing to record: the search does what it can.
            self.why.append(f"{player}'s {self.rules.deck_zone} is empty: no card is taken")
            self._shuffle(player)
            return
        if ref is None:
            self.rep("log.choice-missing", "bp6.2", "Search: the card taken is not recorded.",
                     severity="warning")
            card = UNKNOWN
        else:
            card = card_of(str(ref))
        if b.deck is not None:
            if card in b.deck:
                b.deck.remove(card)
            elif UNKNOWN in b.deck:
                b.deck.remove(UNKNOWN)
            elif card == UNKNOWN and b.deck:
                # Not recorded (warned): one card left, which is not known; the deck is
                # shuffled below, so its faces are a set less one unknown card.
                b.deck = [UNKNOWN] * (len(b.deck) - 1)
            elif b.deck:
                self.rep("legality.choice-invalid", "bp6.2", f"{card} is not in the deck.",
                         actual=ref)
                card = UNKNOWN
                b.deck.pop()
            else:
                self.rep("legality.choice-invalid", "bp6.2", "The deck is empty.")
                return
        b.add_to_hand(card)
        self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="hand")
        self._shuffle(player)

    @step("dig")
    def step_dig(self, step: dict[str, Any]) -> None:
        """世代交代: mill until a Joker/A/J/Q/K appears; that card goes to hand."""
        player = self.req.controller
        b = self.rules.boards[player]
        claimed = self.claims
        if b.deck is not None and UNKNOWN not in b.deck:
            while b.deck:
                card = b.deck.pop(0)
                if number(card) in self.rules.ng_ranks:
                    b.add_to_hand(card)
                    self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"}, to="hand")
                    return
                b.graveyard.append(card)
                self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"},
                          to="graveyard")
            return
        moves = [e for e in claimed if e.get("op") == "move"]
        if not moves:
            self.rep("log.hidden-info", "bp6.2",
                     "世代交代 milled an unknown number of cards (the log does not show "
                     "them): deck counts are unknown from here.", severity="warning")
            b.deck = None
            b.hand_unknown = None if b.hand_unknown is None else b.hand_unknown + 1
            return
        for e in moves:
            card = card_of(str(e.get("card", UNKNOWN)))
            top = b.pop_deck()
            if top is None:
                break
            if e.get("to") == "hand":
                b.add_to_hand(card)
            else:
                b.graveyard.append(card)
            self.emit(op="move", card=f"{player}:{card}", **{"from": "deck"},
                      to=e.get("to", "graveyard"))

    # ------------------------------------------------------------------ finishing
    def finish(self) -> Resolution:
        """Key cards leave the stage; compare the log's claimed effects with ours."""
        controller = self.req.controller
        b = self.rules.boards[controller]
        if self.req.status != "negated" and not self.req.data.get("virtual_keys"):
            dest = "graveyard" if self.fizzled else self.key_dest
            for k in self.req.key_cards:
                card = card_of(k)
                if dest == "graveyard":
                    b.graveyard.append(card)
                elif dest == "fog":
                    b.fog.append(card)
                elif dest == "hand":
                    b.add_to_hand(card)
        self._compare_claims()
        self._after_triggers()
        return Resolution(
            result="fizzled" if self.fizzled else "resolved",
            effects=self.effects, findings=self.findings, triggers=self.triggers,
            pass_chance=self.pass_chance and not self.fizzled,
        )

    def _after_triggers(self) -> None:
        """The action the edition data starts after this one resolved (``triggers``:
        ``after``), when the trigger's condition holds (``if: attackers``: the Attack
        designated at least one attacker)."""
        after = self.rules.after.get(self.req.action.id)
        if not after or self.fizzled or after["action"] not in self.rules.actions:
            return
        if after.get("if") == "attackers" and not self.req.data.get("attackers"):
            return
        controller = self.req.controller
        ctl = self.flow.turn_player if self.rules.actions[after["action"]].data.get(
            "controller") == "turn_player" else controller
        self.triggers.append(TriggerSpec(after["action"], self.req.id, ctl or controller))

    def _compare_claims(self) -> None:
        claims = self.line.effects
        if claims is None:
            return
        ours = [e for e in self.effects if e["op"] != "reveal"]
        theirs = [self._named_as_ours(e) for e in self.claims if e.get("op") != "reveal"]
        keymoves = [t for t in theirs if t.get("op") == "move" and t.get("from") == "stage"]
        theirs = [t for t in theirs if t not in keymoves]
        strays = [t for t in keymoves if self.key_dest == "field" or t.get("to") != self.key_dest]
        if self.key_dest == "field":
            # A key card the claims never put on the field: the effect that puts it there is
            # left out of the claims (one legality.effect-mismatch below), and where the key
            # card went follows from that (a wrong resolution gets one finding).
            entered = {str(c) for t in theirs if t.get("op") == "enter"
                       for c in t.get("cards") or []}
            quiet = [t for t in strays if t.get("card") not in entered and t.get("to") ==
                     "graveyard"]
            self._follow_key_cards(quiet)
            strays = [t for t in strays if t not in quiet]
        for t in strays:
            self.rep("legality.key-card-not-to-graveyard", "bp4.3.3.2.1",
                     f"{t.get('card')} went to the {t.get('to')}; the rules send it to the "
                     f"{self.key_dest}.", expected=self.key_dest, actual=t.get("to"))
        self._follow_key_cards(strays)
        diff = compare(ours, theirs)
        if not diff:
            return
        unmatched, extra = diff.unmatched, diff.extra
        if self.fizzled != (self.line.result == "fizzled"):
            # The recorded result is wrong and already reported (fizzle-not-applied, or a
            # fizzle that should not be): a wrong resolution gets only that finding.
            self._follow(unmatched, extra)
            return
        if self.unsure and not unmatched:
            # A face the log hides decided a step (warned): what the table did beyond the
            # plan cannot be checked, and is followed.
            self._follow(unmatched, extra)
            return
        if self._fewer_from_an_uncounted_deck(unmatched, extra):
            self.rep("log.hidden-info", "bp4.3.3.1.2",
                     f"The log records fewer cards for {self.req.action.name} than the rules "
                     f"give, from a {self.rules.deck_zone} whose count is unknown: whether only "
                     "part of the effect was possible cannot be checked; the table's count "
                     "is followed.", severity="warning", expected=unmatched, actual=extra)
            self._follow(unmatched, extra)
            return
        for o in unmatched:
            if o["op"] != "damage":
                continue
            player = str(o.get("player"))
            told = next((t for t in extra if t.get("op") == "damage"
                         and t.get("player") == player and isinstance(t.get("amount"), int)),
                        None)
            if told is None:
                continue
            deck = self.rules.boards[player].deck if player in self.rules.boards else None
            # The cards the damage could move: what is left, and what the rules' took.
            cap = len(deck) + int(o.get("amount", 0)) if deck is not None else None
            for att in self.sizes_used.get(player, []):
                found = self.rules.explain_size(att, told["amount"], f"{att.ref}'s size", cap)
                if found is not None:
                    code, message = found
                    self.rep(code, "bp4.4.3", f"The damage to {player} is the attacker's "
                             f"size. {message}", expected=o.get("amount"),
                             actual=told["amount"])
                    self._follow(unmatched, extra)
                    return
        counted = [o for o in unmatched if o["op"] in ("damage", "draw")]
        # Another count of the same damage or draw (to the same player: a damage recorded
        # to the other player is a different effect, not a miscount).
        miscount = [t for t in extra if counted and t.get("op") == counted[0]["op"]
                    and t.get("player") == counted[0].get("player")
                    and _count(t) != _count(counted[0])]
        if miscount:
            o = counted[0]
            wanted = self.cut_short.get((o["op"], str(o.get("player"))))
            if wanted is not None:
                # bp4.3.3.1.2: the deck held too few cards for the whole effect.
                self.rep("legality.partial-not-applied", "bp4.3.3.1.2",
                         f"Only part of {self.req.action.name}'s effect was possible "
                         f"({o['op']} {wanted}, {o.get('amount')} card(s) left): that part "
                         "must be carried out exactly, and the log records it otherwise.",
                         expected=counted, actual=miscount)
            else:
                self.rep("legality.effect-mismatch", "bp4.3.3",
                         f"The recorded {o['op']} of {self.req.action.name} has another count "
                         f"than the rules': {o.get('amount')} card(s), which the table could "
                         "carry out in full.",
                         expected=counted, actual=miscount)
            self._follow(unmatched, extra)
            return
        why = f": {'; '.join(self.why)}" if self.why else ""
        self.rep("legality.effect-mismatch", "bp4.3.3",
                 f"The recorded effects of {self.req.action.name} differ from the rules'{why}.",
                 expected=unmatched or "no such effect", actual=extra or "left out")
        self._follow(unmatched, extra)

    def _fewer_from_an_uncounted_deck(self, unmatched: list[Effect],
                                      extra: list[Effect]) -> bool:
        """Every departure is a damage or draw the log records with fewer cards, from a deck
        whose count is unknown (it may have run out: a partial effect, not a mistake)."""
        pending = list(unmatched)
        for t in extra:
            o = next((o for o in pending if o["op"] == t.get("op")
                      and o.get("player") == t.get("player")), None)
            if o is None or (o["op"], str(o.get("player"))) not in self.count_unknown:
                return False
            if not isinstance(t.get("amount"), int) or t["amount"] >= int(o.get("amount", 0)):
                return False
            pending.remove(o)
        return bool(extra) and not pending

    def _follow(self, unmatched: list[Effect], extra: list[Effect]) -> None:
        """The table did otherwise than the rules say: the table becomes what the recorded
        effects say, for every op (:mod:`.as_played`; docs/decisions.md §1)."""
        if self.before is not None:
            AsPlayed(self, self.before).follow(unmatched, extra)

    def _follow_key_cards(self, keymoves: list[dict[str, Any]]) -> None:
        """Key cards the log sends elsewhere than the rules: they are where the log says."""
        if self.before is None:
            return
        follower = AsPlayed(self, self.before)
        for t in keymoves:
            parts = split_ref(str(t.get("card")))
            to = t.get("to")
            if parts is None or parts[0] not in self.rules.boards or not isinstance(to, str) \
                    or to == "stage":
                continue
            player, card = parts
            now = follower.where(player, card)
            if now is None or now == to or now == "field":
                continue  # not seen, already there, or put on the field by the effect
            follower.take(player, now, card)
            follower.put(player, to, card, t.get("position", "top"))


def _count(effect: Mapping[str, Any]) -> int | None:
    """How many cards a ``damage`` or ``draw`` moved: its ``amount``, else its cards."""
    amount = effect.get("amount")
    if isinstance(amount, int):
        return amount
    cards = effect.get("cards")
    return len(cards) if isinstance(cards, list) else None
