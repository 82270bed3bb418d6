"""Property tests of the Duel Masters judge on simulated games: legal ones, sparse ones,
hidden ones and broken ones.

The simulator (:mod:`adjudicator.games.duel_masters.simulate`) plays seeded random legal
games through the same engine the judge uses. These tests check that

(a) the judge finds no error (and no warning) in hundreds of such games and gives the
    result they ended on;
(b) a sparse log (the rule-system lines left out) normalizes back to the complete log;
(c) each injected mistake is reported with its code at the line that makes it, and no
    error is reported before that line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.duel_masters.lines import DuelMastersMatchStarted
from coreflow_judge.adjudicator.games.duel_masters.rules import DuelMastersRules
from coreflow_judge.adjudicator.games.duel_masters.simulate import sample_cards, simulate_game
from coreflow_judge.adjudicator.judge import (
    JudgeInputError,
    judge_lines,
    normalize_lines,
    start_flow,
)
from coreflow_judge.events.models import (
    Effect,
    GameEnded,
    LogLine,
    MatchStarted,
    Request,
    Resolve,
    Trigger,
)
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tests.logtools import Garbage, Log, errors, judge, mutate, renumber
from tests.pools import pooled

GAMES = 150
DERIVED = {"chance_moved", "turn_started", "game_ended"}


# ---------------------------------------------------------------------------- helpers
def sparse(lines: Log) -> Log:
    """The players' lines only (and the trigger lines, which name the pending effects)."""
    return renumber([line for line in lines if line.type not in DERIVED])


def replay(lines: Log) -> Iterator[tuple[int, LogLine, CoreFlow]]:
    """Feed ``lines`` to a fresh engine; yield each line with the state *before* it."""
    flow = start_flow(lines[0])
    for i, line in enumerate(lines[1:], start=1):
        yield i, line, flow
        flow.feed(line)


def resolutions(lines: Log) -> Iterator[tuple[int, Resolve, CoreFlow, list[dict[str, Any]]]]:
    """Feed ``lines`` to a fresh engine; yield each resolve line with the effects the rules
    planned for it (asked before it) and the state *after* it."""
    flow = start_flow(lines[0])
    for i, line in enumerate(lines[1:], start=1):
        if not isinstance(line, Resolve):
            flow.feed(line)
            continue
        ours = planned_effects(flow, line)
        flow.feed(line)
        yield i, line, flow, ours


def dm(flow: CoreFlow) -> DuelMastersRules:
    assert isinstance(flow.rules, DuelMastersRules)
    return flow.rules


def planned_effects(flow: CoreFlow, line: Resolve) -> list[dict[str, Any]]:
    """The effects the rules plan for a resolve line, asked before the line is fed."""
    req = flow.requests[line.request]
    return dm(flow).plan_resolution(flow, req, line.choices, line.seq).effects


def recorded_result(end: GameEnded) -> dict[str, Any]:
    """The result a game_ended line records, as the report gives it (a draw names no
    winner)."""
    out: dict[str, Any] = {"result": end.result, "winner": end.winner, "reason": end.reason}
    if end.winner is None:
        del out["winner"]
    return out


def assert_first_error(lines: Log, code: str, seq: int) -> None:
    found = errors(judge(lines))
    assert found, f"expected {code} at line {seq}; nothing reported"
    assert found[0] == (code, seq), f"expected {code} at line {seq} first; found {found[:6]}"


# ---------------------------------------------------------------------------- the pool
@pytest.fixture(scope="session")
def pool() -> list[Log]:
    """150 seeded games (the same on every run), played once a session."""
    game = pooled(simulate_game)
    return [game(seed) for seed in range(GAMES)]


@pytest.fixture(scope="session")
def sparse_pool(pool: list[Log]) -> list[Log]:
    return [sparse(lines) for lines in pool]


def test_simulated_games_judge_clean_and_end_as_recorded(pool: list[Log]) -> None:
    reasons = set()
    for lines in pool:
        report = judge_lines(enumerate(lines, 1))
        assert report.findings == [], [f.as_dict() for f in report.findings[:3]]
        end = lines[-1]
        assert isinstance(end, GameEnded), "every simulated game is played to its end"
        assert report.result == recorded_result(end)
        reasons.add(end.reason)
    assert reasons == {"direct_attack", "deck_out", "special_win", "special_loss"}


def test_simulated_games_use_every_action_and_keyword(pool: list[Log]) -> None:
    actions = {line.action for lines in pool for line in lines
               if isinstance(line, Request | Trigger)}
    assert actions == set(DuelMastersRules("1.47", "standard").actions)
    ops = {e.op for lines in pool for line in lines if isinstance(line, Resolve)
           for e in line.effects or []}
    assert {"battle", "break", "destroy", "direct_attack", "power", "no_attack", "tap",
            "draw", "move", "turn", "untap", "block"} <= ops
    replaced = [e for lines in pool for line in lines if isinstance(line, Resolve)
                for e in line.effects or [] if (e.model_extra or {}).get("instead_of")]
    assert replaced, "a replacement effect (instead of destroy) occurs in the pool"


def test_first_player_never_draws_on_turn_one(pool: list[Log]) -> None:
    for lines in pool:
        for line in lines:
            if line.type == "turn_started" and line.turn == 2:  # type: ignore[union-attr]
                break
            assert not (isinstance(line, Trigger) and line.action == "draw")


def test_simulation_is_deterministic() -> None:
    a = [line.model_dump() for line in simulate_game(7)]
    b = [line.model_dump() for line in simulate_game(7)]
    assert a == b
    assert a != [line.model_dump() for line in simulate_game(8)]


def test_unsupported_edition_and_format_are_refused() -> None:
    with pytest.raises(ValueError, match="edition"):
        simulate_game(1, edition="2.0")
    with pytest.raises(ValueError, match="format"):
        simulate_game(1, fmt="lite")


def test_max_lines_stops_an_unfinished_game() -> None:
    lines = simulate_game(3, max_lines=60)
    assert not isinstance(lines[-1], GameEnded)
    assert judge(lines).result is None
    assert errors(judge(lines)) == []


@pytest.mark.parametrize("seed", [0, 11, 42, 77])
def test_sparse_log_normalizes_to_the_complete_log(pool: list[Log], seed: int) -> None:
    complete = pool[seed]
    rebuilt = normalize_lines(enumerate(sparse(complete), 1))
    assert [line.model_dump() for line in rebuilt] == [line.model_dump() for line in complete]


def hide(lines: Log, sizes: bool) -> Log:
    """The same log as a paper scorekeeper holds it: no deck order (only the sizes)."""
    header = lines[0]
    assert isinstance(header, MatchStarted) and header.decks is not None
    deck_sizes = {p: len(d) for p, d in header.decks.items()} if sizes else None
    hidden = header.model_copy(update={"decks": None, "deck_sizes": deck_sizes})
    return [hidden, *lines[1:]]


@pytest.mark.parametrize("seed", range(0, GAMES, 8))
def test_games_logged_without_the_decks_get_no_error(pool: list[Log], seed: int) -> None:
    lines = pool[seed]
    report = judge(hide(lines, sizes=True))
    assert errors(report) == []
    end = lines[-1]
    assert isinstance(end, GameEnded)
    assert report.result == recorded_result(end)
    unsized = judge(hide(lines, sizes=False))
    assert errors(unsized) == []
    assert {f.code for f in unsized.findings} <= {"log.hidden-info"}
    if end.reason == "deck_out":  # library out cannot be ruled without the deck counts
        assert unsized.findings[-1].code == "log.hidden-info"
        assert unsized.findings[-1].seq == len(lines)


def test_bad_card_definitions_cannot_be_judged(pool: list[Log]) -> None:
    header = pool[0][0]
    assert isinstance(header, MatchStarted)
    cards = dict(sample_cards())
    cards["scout"] = {**cards["scout"], "power": -1}
    bad = header.model_copy(update={"cards": cards})
    with pytest.raises(JudgeInputError) as err:
        start_flow(bad)
    assert err.value.field == "cards" and "scout" in str(err.value)
    cards["scout"] = {**sample_cards()["scout"], "flying": True}
    with pytest.raises(JudgeInputError, match="flying"):
        start_flow(header.model_copy(update={"cards": cards}))


# ---------------------------------------------------------------------------- injected mistakes
Query = tuple[str, str, str | None]
"""(first, later, only): line i resolves a pending effect of kind ``first`` while one of
kind ``later`` waits and is resolved at a later line; ``only``: of that action."""


def pending_sites(lines: Log, queries: list[Query]) -> list[list[tuple[int, int]]]:
    """For each query, the (i, j) where line i resolves a pending effect of kind ``first``
    while one of kind ``later`` waits and is resolved at line j > i. Kinds: 'priority',
    'ap' (the active player's ordinary pending effects), 'nap' (the other player's). One
    replay of the log answers every query."""
    def kind(flow: CoreFlow, rid: str, only: str | None) -> str | None:
        req = flow.requests.get(rid)
        if req is None or (only is not None and req.action.id != only):
            return None
        klass = req.action.data.get("class")
        if klass == "priority":
            return "priority"
        if klass == "pending":
            return "ap" if req.controller == flow.turn_player else "nap"
        return None

    resolves = {line.request: i for i, line in enumerate(lines) if isinstance(line, Resolve)}
    out: list[list[tuple[int, int]]] = [[] for _ in queries]
    for i, line, flow in replay(lines):
        if not isinstance(line, Resolve):
            continue
        for found, (first, later, only) in zip(out, queries, strict=True):
            if kind(flow, line.request, only) != first:
                continue
            waiting = [r.id for r in flow.buffer if kind(flow, r.id, only) == later]
            for rid in waiting:
                j = resolves.get(rid, -1)
                if j > i:
                    found.append((i, j))
                    break
    return out


def move_before(lines: Log, i: int, j: int) -> Log:
    out = list(lines)
    line = out.pop(j)
    out.insert(i, line)
    return out


@pytest.fixture(scope="session")
def sites(sparse_pool: list[Log]) -> dict[str, list[tuple[int, int, int]]]:
    """(game, i, j) where each kind of pending-effect mistake can be made."""
    out: dict[str, list[tuple[int, int, int]]] = {"nap_first": [], "trigger_late": [],
                                                  "nap_end_first": []}
    queries: list[Query] = [("ap", "nap", None), ("ap", "nap", "end_of_turn"),
                            ("priority", "ap", None), ("priority", "nap", None)]
    for g, lines in enumerate(sparse_pool[:150]):
        nap_first, nap_end_first, late_ap, late_nap = pending_sites(lines, queries)
        out["nap_first"] += [(g, i, j) for i, j in nap_first]
        out["nap_end_first"] += [(g, i, j) for i, j in nap_end_first]
        out["trigger_late"] += [(g, i, j) for i, j in late_ap + late_nap]
    return out


SETTINGS = examples(25, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data())
def test_nap_effect_before_the_active_players(sparse_pool: list[Log],
                                              sites: dict[str, list[tuple[int, int, int]]],
                                              data: st.DataObject) -> None:
    assert sites["nap_first"], "the pool has AP and NAP effects pending at once"
    g, i, j = data.draw(st.sampled_from(sites["nap_first"]))
    lines = move_before(sparse_pool[g], i, j)
    assert_first_error(lines, "order.pending-effect-order", i + 1)


@SETTINGS
@given(data=st.data())
def test_ordinary_effect_before_an_s_trigger(sparse_pool: list[Log],
                                             sites: dict[str, list[tuple[int, int, int]]],
                                             data: st.DataObject) -> None:
    assert sites["trigger_late"], "the pool has S-Triggers and pending effects at once"
    g, i, j = data.draw(st.sampled_from(sites["trigger_late"]))
    lines = move_before(sparse_pool[g], i, j)
    assert_first_error(lines, "order.pending-effect-order", i + 1)


def attack_sites(lines: Log, want: str) -> list[tuple[int, str, str]]:
    """(i, creature, opponent): before line i the active player holds the chance with
    nothing pending and has an untapped creature that must not attack: ``want`` is
    'conflict' (a 'can' and a 'cannot' bear on it) or 'sick' (summoning sickness only)."""
    out = []
    for i, line, flow in replay(lines):
        if not isinstance(line, Request) or flow.buffer or flow.awaiting_instant:
            continue
        r = dm(flow)
        tp = flow.turn_player
        assert tp is not None
        for c in r.boards[tp].battle:
            abilities = r.attack_abilities(flow, c)
            if c.tapped or r.may_attack(flow, c):
                continue
            if want == "conflict" and {a.allow for a in abilities} == {True, False}:
                out.append((i, c.ref, flow.next_player(tp)))
                break
            if want == "sick" and not abilities and r.sick(flow, c):
                out.append((i, c.ref, flow.next_player(tp)))
                break
    return out


def insert_attack(lines: Log, i: int, ref: str, target: str) -> Log:
    player = ref.partition(":")[0]
    attack = Request(seq=1, request="x-attack", player=player, action="attack",
                     key_cards=[ref], targets=[target])
    return [*lines[:i], attack]


@pytest.fixture(scope="session")
def attack_pool(sparse_pool: list[Log]) -> dict[str, list[tuple[int, int, str, str]]]:
    out: dict[str, list[tuple[int, int, str, str]]] = {"conflict": [], "sick": []}
    for g, lines in enumerate(sparse_pool[:120]):
        for want in out:
            out[want] += [(g, *site) for site in attack_sites(lines, want)[:3]]
    return out


@SETTINGS
@given(data=st.data())
def test_can_applied_over_cannot(sparse_pool: list[Log],
                                 attack_pool: dict[str, list[tuple[int, int, str, str]]],
                                 data: st.DataObject) -> None:
    assert attack_pool["conflict"]
    g, i, ref, target = data.draw(st.sampled_from(attack_pool["conflict"]))
    lines = insert_attack(sparse_pool[g], i, ref, target)
    assert_first_error(lines, "precedence.prohibition-over-permission", i + 1)
    report = judge(lines)
    assert [f.code for f in report.findings if f.seq == i + 1] == [
        "precedence.prohibition-over-permission"]


@SETTINGS
@given(data=st.data())
def test_attack_by_a_summoning_sick_creature(sparse_pool: list[Log],
                                             attack_pool: dict[str, list[tuple[int, int, str,
                                                                               str]]],
                                             data: st.DataObject) -> None:
    g, i, ref, target = data.draw(st.sampled_from(attack_pool["sick"]))
    lines = insert_attack(sparse_pool[g], i, ref, target)
    assert_first_error(lines, "legality.summoning-sickness", i + 1)


@pytest.mark.parametrize("game", range(0, 120, 7))
def test_draw_on_the_first_players_first_turn(sparse_pool: list[Log], game: int) -> None:
    lines = list(sparse_pool[game])
    header = lines[0]
    assert isinstance(header, MatchStarted)
    first = lines[1].first_player  # type: ignore[union-attr]
    draw = Trigger(seq=1, request="x-draw", action="draw", source="game", controller=first)
    resolve = Resolve(seq=1, request="x-draw", result="resolved")
    lines[2:2] = [draw, resolve]
    assert_first_error(lines, "order.trigger-spurious", 3)


@pytest.mark.parametrize("game", range(0, 120, 5))
def test_second_mana_charge_in_a_turn(sparse_pool: list[Log], game: int) -> None:
    lines = sparse_pool[game]
    for i, line, flow in replay(lines):
        if not (isinstance(line, Resolve) and flow.awaiting_instant is not None
                and flow.awaiting_instant.action.id == "charge_mana"):
            continue
        player = flow.awaiting_instant.controller
        hand = sorted(dm(flow).boards[player].hand_known.elements())
        if not hand:
            continue
        again = Request(seq=1, request="x-charge", player=player, action="charge_mana",
                        key_cards=[f"{player}:{hand[0]}"])
        broken = [*lines[:i + 1], again, Resolve(seq=1, request="x-charge",
                                                 result="resolved")]
        assert_first_error(broken, "legality.mana-charge-twice", i + 2)
        report = judge(broken)
        assert [f.code for f in report.findings if f.seq == i + 2] == [
            "legality.mana-charge-twice"]
        return
    pytest.fail("no mana charge with a card left in hand")


def test_zero_power_creature_left_in_play(pool: list[Log]) -> None:
    """The recorded effects of a resolution keep a creature the state check destroys."""
    done = 0
    for lines in pool[:150]:
        for i, line, _flow, ours in resolutions(lines):
            sba = [e for e in ours if e.get("reason") == "state"]
            if not sba:
                continue
            kept = [Effect.model_validate(e) for e in ours if e is not sba[0]]
            broken = list(lines[:i]) + [line.model_copy(update={"effects": kept})]
            report = judge(broken)
            assert [(f.code, f.seq) for f in report.findings] == [
                ("order.state-check-missed", i + 1)]
            done += 1
            break
    assert done >= 5, "the pool has creatures destroyed by the state check"


def test_play_goes_on_after_the_game_is_decided(sparse_pool: list[Log]) -> None:
    seen = set()
    for lines in sparse_pool[:100]:
        report = judge(lines)
        assert report.result is not None
        flow = report.flow
        assert flow is not None
        tp = flow.turn_player
        assert tp is not None
        more = Request(seq=1, request="x-more", player=tp, action="end_turn")
        broken = [*lines, more]
        assert_first_error(broken, "order.win-check-missed", len(broken))
        seen.add(report.result["reason"])
    assert seen == {"deck_out", "direct_attack", "special_win", "special_loss"}


def test_every_duel_masters_rule_cited_has_a_statement() -> None:
    from pathlib import Path

    from coreflow_judge.adjudicator.plugins import game_plugin

    RULE_STATEMENTS = game_plugin("duel_masters").rule_statements
    package = Path(__file__).resolve().parent.parent / "adjudicator" / "games" / "duel_masters"
    cited: set[str] = set()
    for path in package.glob("*.py"):
        cited |= set(re.findall(r'"(dm(?:§)?[0-9][0-9a-z.]*)"', path.read_text(encoding="utf-8")))
    assert {"dm101.2", "dm101.4a", "dm703", "dm§3.3"} <= cited
    assert sorted(c for c in cited if c not in RULE_STATEMENTS) == []


# ---------------------------------------------------------------------------- robustness
GARBAGE_CHOICES: list[dict[str, object]] = [
    {"mana": ["alice:stone#1", "x"]}, {"mana": "alice:scout#1"}, {"mana": [5]}, {"mana": []},
    {"blocker": "alice:scout#1"}, {"blocker": ["bob:x"]}, {"blocker": 3},
    {"shields": ["bob:?"]}, {"shields": "bob:x"}, {"shields": [1, 2]}, {"shields": []},
    {"use": True}, {"use": "yes", "targets": "bob"}, {"targets": [None]},
    {"targets": ["alice:?", "bob:?"]}, {"targets": {"a": 1}},
    {"hyperspatial": "bob:psyche#1"}, {"hyperspatial": ["alice:psyche#1"]},
    {"hyperspatial": "alice:nothing#3"}, {"mana": ["alice:sunblade#1"]},
]
GARBAGE_TARGETS = [[], ["bob"], ["alice"], ["alice:scout#1"], ["bob:?"], ["r1"], ["x", "y"]]
GARBAGE_KEYS = [[], ["alice:?"], ["bob:scout#1"], ["scout#1"], ["alice:nothing#9"],
                ["alice:scout#1", "alice:scout#2"], ["alice:"], ["alice:sunblade#1"],
                ["alice:grunt#1"], ["bob:mantle#2"]]
GARBAGE_EFFECTS: list[list[dict[str, object]]] = [
    [{"op": "destroy"}], [{"op": "destroy", "card": "bob:scout#1"}],
    [{"op": "move", "card": "alice:scout#1", "from": "battle", "to": "hand"}],
    [{"op": "move", "card": 5}], [{"op": "draw", "player": "alice", "cards": "x"}],
    [{"op": "break", "player": "bob", "cards": ["bob:?"]}], [],
]
ACTIONS = sorted(DuelMastersRules("1.47", "standard").actions) + ["nope"]


GARBAGE = Garbage(GARBAGE_CHOICES, GARBAGE_TARGETS, GARBAGE_KEYS, GARBAGE_EFFECTS,
                  ACTIONS)


@examples(80)
@given(seed=st.integers(0, GAMES - 1), sparse_form=st.booleans(), edits=st.integers(1, 3),
       data=st.data())
def test_judge_reports_edited_logs_without_crashing(seed: int, sparse_form: bool, edits: int,
                                                    data: st.DataObject) -> None:
    """Whatever a log says past its header, the judge reports findings and never raises;
    every finding names a known code and a line of the log."""
    from coreflow_judge.adjudicator.findings import catalogue

    CODES = catalogue()
    lines = pooled(simulate_game)(seed)[:400]  # the pool's game, its first 400 lines
    lines = list(sparse(lines) if sparse_form else lines)
    for _ in range(edits):
        mutate(lines, data, GARBAGE)
    report = judge(lines)
    assert all(f.code in CODES for f in report.findings)
    assert all(1 <= f.seq <= len(lines) for f in report.findings)


# ---------------------------------------------------------------------------- start and end steps
TURN_ABILITIES = ("start_of_turn", "end_of_turn")


def test_turn_abilities_of_both_players_occur(pool: list[Log]) -> None:
    """The simulator plays 'at the start / end of the turn' abilities of the active and the
    non-active player, power changes until the end of the turn, and a static power change."""
    seen: set[tuple[str, str]] = set()
    static_battles = 0
    for lines in pool[:150]:
        flow = start_flow(lines[0])
        for line in lines[1:]:
            if isinstance(line, Trigger) and line.action in TURN_ABILITIES:
                seen.add((line.action, "ap" if line.controller == flow.turn_player else "nap"))
            if isinstance(line, Resolve) and line.request in flow.requests and \
                    flow.requests[line.request].action.id == "block":
                static_battles += any(c.card.opponent_power for c in dm(flow).creatures())
            flow.feed(line)
    assert seen == {(a, w) for a in TURN_ABILITIES for w in ("ap", "nap")}
    assert static_battles > 0


def test_power_changes_end_with_the_turn(pool: list[Log]) -> None:
    """After every turn change no "until end of turn" change is in force (changes whose
    card says they last longer may be); the end step's
    pending effects all resolve before the next turn starts."""
    for lines in pool[:60]:
        flow = start_flow(lines[0])
        turn = flow.turn
        for line in lines[1:]:
            before = {r.id for r in flow.buffer if r.action.id == "end_of_turn"}
            flow.feed(line)
            if flow.turn != turn:
                turn = flow.turn
                assert [m for m in dm(flow).modifiers if m.until == "end_of_turn"] == []
                assert dm(flow).bans == []
                assert before <= {line.request} if isinstance(line, Resolve) else not before
            assert dm(flow).ending is None or flow.buffer or flow.result is not None


def start_ability_sites(lines: Log) -> list[tuple[int, int, int]]:
    """(j, d, k): line j resolves the last 'at the start of the turn' ability resolved
    before the draw at line d; line k is the turn's first request after the draw (not
    end_turn)."""
    kinds = {line.request: line.action for line in lines if isinstance(line, Trigger)}
    out = []
    last_start = None
    for i, line in enumerate(lines):
        if isinstance(line, Resolve) and kinds.get(line.request) == "start_of_turn":
            last_start = i
        elif isinstance(line, Resolve) and kinds.get(line.request) == "draw" and last_start:
            k = next((n for n in range(i + 1, len(lines))
                      if isinstance(lines[n], Request)), None)
            if k is not None and lines[k].action != "end_turn":  # type: ignore[union-attr]
                out.append((last_start, i, k))
            last_start = None
        elif isinstance(line, Request):
            last_start = None
    return out


@SETTINGS
@given(data=st.data())
def test_start_of_turn_ability_resolved_after_the_main_step_began(
        sparse_pool: list[Log], data: st.DataObject) -> None:
    """The table draws and starts its turn's requests while an 'at the start of the turn'
    ability waits, and resolves the ability later: the draw went on while it was pending
    (order.pending-effect-order), the first request missed it (order.trigger-missed)."""
    sites = [(g, *s) for g, lines in enumerate(sparse_pool[:100])
             for s in start_ability_sites(lines)]
    assert sites, "the pool has start-of-turn abilities"
    g, j, d, k = data.draw(st.sampled_from(sites))
    lines = list(sparse_pool[g])
    late = lines.pop(j)
    lines.insert(k, late)  # after the request's resolve line (k - 1, k once j is gone)
    found = errors(judge(lines))
    # One mistake, one finding: the draw went on while the ability waited. The turn's
    # first request and the ability's late resolution are the same mistake, and the
    # ability resolves where the table resolved it.
    assert found[0] == ("order.pending-effect-order", d), found[:4]
    assert [f for f in found if d < f[1] <= k + 1 and not f[0].startswith("legality.")] == [], \
        found[:4]
    assert not [f for f in found if f[0] in ("order.trigger-missed", "log.unknown-ref")], found


@SETTINGS
@given(data=st.data())
def test_nap_end_of_turn_ability_before_the_active_players(
        sparse_pool: list[Log], sites: dict[str, list[tuple[int, int, int]]],
        data: st.DataObject) -> None:
    """At the end step the active player's 'at the end of the turn' abilities resolve
    before the other player's (dm101.4a)."""
    assert sites["nap_end_first"], "the pool has end-of-turn abilities of both players"
    g, i, j = data.draw(st.sampled_from(sites["nap_end_first"]))
    lines = move_before(sparse_pool[g], i, j)
    assert_first_error(lines, "order.pending-effect-order", i + 1)


def kept_power_sites(lines: Log) -> list[tuple[int, int, int, set[str], list[dict[str, Any]]]]:
    """(i, side, delta, rules, effects): line i resolves a battle in which the creature on
    ``side`` (0 attacker, 1 defender) had a power change of ``delta`` whose duration ended
    earlier (the end of a turn, the start of its controller's next turn, or its source
    leaving the battle zone); ``rules``: the rules that end the changes of that delta;
    ``effects``: the rules' effects of that resolution."""
    flow = start_flow(lines[0])
    out = []
    for i, line in enumerate(lines[1:], start=1):
        kept: dict[str, tuple[int, set[str]]] = {}
        if isinstance(line, Resolve):
            r = dm(flow)
            for c in r.creatures():
                ended = r.expired_on(c)
                if ended:
                    delta = ended[-1].delta
                    kept[c.ref] = (delta, {m.rule for m in ended if m.delta == delta})
        if not kept:
            flow.feed(line)
            continue
        assert isinstance(line, Resolve)
        effects = planned_effects(flow, line)
        flow.feed(line)
        battle = next((e for e in effects if e["op"] == "battle"), None)
        if battle is None:
            continue
        for side, ref in enumerate((battle["attacker"], battle["defender"])):
            if ref in kept:
                out.append((i, side, *kept[ref], effects))
                break
    return out


def test_power_change_kept_after_its_duration_ended(pool: list[Log]) -> None:
    """A battle fought with a power change whose duration ended earlier is
    precedence.value-mismatch, the only finding of that resolution: rule dm§3.6 for an
    "until end of turn" change, dm101.1 for one whose card text said how long ("until the
    start of your next turn", "while this creature is in the battle zone"). Every kind of
    duration ends in the pool."""
    done: dict[str, int] = {}
    for lines in pool[:150]:
        for i, side, delta, rules, effects in kept_power_sites(lines)[:2]:
            claimed = []
            for e in effects:
                if e["op"] == "battle":
                    powers = list(e["powers"])
                    powers[side] += delta
                    e = {**e, "powers": powers}
                claimed.append(Effect.model_validate(e))
            line = lines[i]
            broken = [*lines[:i], line.model_copy(update={"effects": claimed})]
            report = judge(broken)
            assert [(f.code, f.seq) for f in report.findings] == [
                ("precedence.value-mismatch", i + 1)]
            assert report.findings[0].rule in rules
            assert "Kept after its end" in report.findings[0].message
            for rule in rules:
                done[rule] = done.get(rule, 0) + 1
    assert done.get("dm§3.6", 0) >= 5 and done.get("dm101.1", 0) >= 3, done


def test_durations_past_the_turn_end_when_they_say(pool: list[Log]) -> None:
    """"Until the start of your next turn" ends at its controller's next turn start, not
    before; "while this creature is in the battle zone" ends when its source leaves it.
    Read off the judge's table after every line of the pool's games."""
    seen = {"start_of_your_next_turn": 0, "while_in_battle_zone": 0}
    for lines in pool[:100]:
        flow = start_flow(lines[0])
        for line in lines[1:]:
            flow.feed(line)
            r = dm(flow)
            for m in r.modifiers:
                if m.until == "while_in_battle_zone":
                    assert m.source is not None and any(
                        (c.ref, c.timestamp) == m.source for c in r.creatures())
            for m in r.expired:
                if m.until in seen:
                    seen[m.until] += 1
                if m.until == "start_of_your_next_turn":
                    assert m.end.startswith(f"at the start of {m.controller}'s turn")
                if m.until == "while_in_battle_zone":
                    assert m.source is not None and m.end.startswith(f"when {m.source[0]} left")
    assert all(seen.values()), seen


def test_forgotten_end_of_turn_ability_the_turn_still_passes(sparse_pool: list[Log]) -> None:
    """The table goes on to the next turn without an end-of-turn ability: one mistake, one
    finding. The next turn's draw line is where the table went on: the ability is missed
    there (order.trigger-missed), the judge closes the end step and starts the next turn as
    the table did, so the draw and the next request are in order (no timing finding for
    the new turn player)."""
    done = 0
    for lines in sparse_pool[:120]:
        for t, line in enumerate(lines[:-4]):
            # end_turn resolved; its one end-of-turn ability; its resolution; the next
            # turn's draw (no start-of-turn ability); a request.
            after = lines[t + 1:t + 5]
            if not (isinstance(line, Trigger) and line.action == "end_of_turn"
                    and isinstance(lines[t - 1], Resolve)
                    and isinstance(after[0], Resolve) and after[0].request == line.request
                    and isinstance(after[1], Trigger) and after[1].action == "draw"
                    and isinstance(after[3], Request)):
                continue
            broken = renumber([x for n, x in enumerate(lines) if n != t + 1])
            report = judge(broken)
            found = errors(report)
            # What the ability did at the table (a card from the deck, a power change) is
            # missing from the edited log: later findings follow from that (a creature its
            # -n would have destroyed triggers at the next turn's start), never about it.
            assert found[0] == ("order.trigger-missed", t + 2), found[:5]
            named = re.compile(rf"\b{re.escape(line.request)}\b")
            about = [(f.code, f.seq) for f in report.findings
                     if named.search(f.message) or named.search(str(f.expected))]
            assert about == [("order.trigger-missed", t + 2)], about
            assert [f for f in found if f[0] == "order.trigger-spurious" and f[1] <= t + 4] == []
            assert not [c for c, _ in found if c.startswith("timing.")], found
            done += 1
            break
    assert done >= 3


def test_turn_ability_and_static_power_definitions_are_checked() -> None:
    from coreflow_judge.adjudicator.games.duel_masters.cards import CardListError, parse_cards

    cards = parse_cards({"seer": sample_cards()["seer"], "hexer": sample_cards()["hexer"]})
    assert cards["seer"].effects("start_of_opponent_turn")[0].kind == "draw"
    assert cards["hexer"].opponent_power == -1000
    spell = {"type": "spell", "civ": "fire", "cost": 1, "spell": [{"draw": 1}]}
    with pytest.raises(CardListError, match="end_of_turn: only a creature"):
        parse_cards({"x": {**spell, "end_of_turn": [{"draw": 1}]}})
    with pytest.raises(CardListError, match="opponent_power"):
        parse_cards({"x": {**spell, "opponent_power": -1000}})
    creature = {"type": "creature", "civ": "fire", "cost": 1, "power": 1000}
    with pytest.raises(CardListError, match="opponent_power: expected a number"):
        parse_cards({"x": {**creature, "opponent_power": "-1000"}})
    with pytest.raises(CardListError, match="start_of_turn"):
        parse_cards({"x": {**creature, "start_of_turn": {"draw": 1}}})


def test_a_resolution_plan_leaves_the_table_as_it_was(pool: list[Log]) -> None:
    """plan_resolution is pure: asked at every resolve line of a game, it changes neither
    the table nor the flow; a battle's step gives the powers' computation as its reason,
    and the turn a resolution ends is named in the plan, not started by it. The judge's
    resolution of the line is that plan (effects, triggers, findings)."""
    battles = turns = 0
    for lines in pool[:12]:
        flow = start_flow(lines[0])
        for line in lines[1:]:
            if isinstance(line, Resolve) and line.request in flow.requests:
                before = (repr(dm(flow).board(flow)), flow.turn, flow.turn_player,
                          flow.chance, len(flow.complete), len(flow.findings))
                plan = dm(flow).plan_resolution(flow, flow.requests[line.request],
                                                line.choices, line.seq)
                after = (repr(dm(flow).board(flow)), flow.turn, flow.turn_player,
                         flow.chance, len(flow.complete), len(flow.findings))
                assert after == before
                assert plan.request == line.request
                for step in plan.steps:
                    if step.step == "battle":
                        assert step.reason.count("=") == 2, step.reason  # both powers
                        battles += 1
                if plan.next_turn is not None:
                    assert {"op": "turn", "player": plan.next_turn} in plan.effects
                    turns += 1
                flow.feed(line)
                done = flow.resolutions[line.seq]  # the judge's: the plan, applied
                assert (done.effects, done.triggers) == (plan.effects, plan.triggers)
                assert done.findings == plan.findings
                continue
            flow.feed(line)
    assert battles and turns, "the games fight battles and end turns"


def test_applying_a_plan_is_what_the_judge_does(pool: list[Log]) -> None:
    """plan_resolution then apply_plan leave the table (and the turn) as the judge's own
    resolution of the line does: one computation, one way to apply it."""
    checked = turns = 0
    for lines in pool[:3]:
        sites = [i for i, line in enumerate(lines) if isinstance(line, Resolve)]
        for i in sites[::9]:
            judged, applied = start_flow(lines[0]), start_flow(lines[0])
            for line in lines[1:i]:
                judged.feed(line)
                applied.feed(line)
            line = lines[i]
            assert isinstance(line, Resolve)
            judged.feed(line)
            rules = dm(applied)
            plan = rules.plan_resolution(applied, applied.requests[line.request],
                                         line.choices, line.seq)
            rules.apply_plan(applied, plan)
            assert rules.board(applied) == dm(judged).board(judged)
            assert (applied.turn, applied.turn_player) == (judged.turn, judged.turn_player)
            checked += 1
            turns += plan.next_turn is not None
    assert checked > 20 and turns, "resolutions of every kind, some ending a turn"


# ---------------------------------------------------------------------------- card over rule
Site = tuple[int, int, str]
"""(game, i, card): line i of the pool's game is where a card over rule keyword decides."""


@pytest.fixture(scope="session")
def override_sites(pool: list[Log]) -> dict[str, list[Site]]:
    """Where each keyword of the edition's ``overrides`` (dm101.1) decides in the pool:
    'unblockable' (a block resolution whose attacker cannot be blocked while the defender
    has an untapped blocker: the card), 'skip_draw' (a draw step whose draw the text skips:
    the player), 'block_while_tapped' (a block by a tapped blocker), 'attack_untapped' (an
    attack on an untapped creature)."""
    out: dict[str, list[Site]] = {k: [] for k in ("unblockable", "skip_draw",
                                                  "block_while_tapped", "attack_untapped")}
    for g, lines in enumerate(pool):
        for i, line, flow in replay(lines):
            r = dm(flow)
            if isinstance(line, Request) and line.action == "attack" and line.targets:
                t = r.find(line.targets[0])
                if t is not None and not t.tapped:
                    out["attack_untapped"].append((g, i, line.key_cards[0]))
            if not (isinstance(line, Resolve) and line.request in flow.requests):
                continue
            req = flow.requests[line.request]
            if req.action.id == "draw" and r.draw_skipped_by(req.controller) is not None:
                out["skip_draw"].append((g, i, req.controller))
            if req.action.id != "block":
                continue
            attack = r.attacks.get(str(req.source))
            attacker = r.find(attack.attacker) if attack is not None else None
            if attacker is None:
                continue
            chosen = r.find(str((line.choices or {}).get("blocker")))
            if chosen is not None and chosen.tapped:
                out["block_while_tapped"].append((g, i, chosen.ref))
            free = [c.ref for c in r.boards[flow.next_player(attacker.owner)].battle
                    if c.card.has("blocker") and not c.tapped]
            if attacker.card.has("unblockable") and free:
                out["unblockable"].append((g, i, free[0]))
    return out


def test_card_over_rule_keywords_occur_and_judge_clean(
        override_sites: dict[str, list[Site]]) -> None:
    """The simulator plays every override keyword; the games are judged clean (the pool
    test), so each override was applied where it decides."""
    assert {k: bool(v) for k, v in override_sites.items()} == {
        k: True for k in override_sites}, {k: len(v) for k, v in override_sites.items()}


@SETTINGS
@given(data=st.data())
def test_block_of_a_creature_that_cannot_be_blocked(
        pool: list[Log], override_sites: dict[str, list[Site]], data: st.DataObject) -> None:
    """A blocker blocks a creature whose text says it cannot be blocked: the 'cannot' wins
    (dm101.2), at that line; the message names the card and its keyword."""
    g, i, blocker = data.draw(st.sampled_from(override_sites["unblockable"]))
    line = pool[g][i]
    assert isinstance(line, Resolve)
    broken = [*pool[g][:i], line.model_copy(update={
        "choices": {"blocker": blocker}, "effects": None})]
    report = judge(broken)
    assert [(f.code, f.seq) for f in report.findings] == [
        ("precedence.prohibition-over-permission", i + 1)]
    assert "unblockable (cannot be blocked" in report.findings[0].message


@SETTINGS
@given(data=st.data())
def test_draw_recorded_although_the_card_skips_it(
        pool: list[Log], override_sites: dict[str, list[Site]], data: st.DataObject) -> None:
    """The table draws in a draw step that a creature's text skips: the recorded effects
    differ, and the finding names the card and the override (dm101.1)."""
    g, i, player = data.draw(st.sampled_from(override_sites["skip_draw"]))
    line = pool[g][i]
    assert isinstance(line, Resolve)
    header = pool[g][0]
    assert isinstance(header, MatchStarted)
    flow = start_flow(header)
    for earlier in pool[g][1:i]:
        flow.feed(earlier)
    deck = dm(flow).boards[player].deck
    assert deck, "a deck with cards left (the game goes on)"
    drawn = Effect.model_validate({"op": "draw", "player": player,
                                   "cards": [f"{player}:{deck[0]}"]})
    broken = [*pool[g][:i], line.model_copy(update={"effects": [drawn]})]
    report = judge(broken)
    assert [(f.code, f.seq) for f in report.findings][:1] == [
        ("legality.effect-mismatch", i + 1)]
    assert report.findings[0].rule == "dm101.1"
    assert "skip_draw" in report.findings[0].message
    assert dm(flow).draw_skipped_by(player).ref in report.findings[0].message  # type: ignore[union-attr]


@pytest.mark.parametrize(("keyword", "code"), [
    ("block_while_tapped", "legality.choice-invalid"),
    ("attack_untapped", "legality.target-invalid"),
])
def test_without_its_keyword_the_rule_decides(
        pool: list[Log], override_sites: dict[str, list[Site]], keyword: str,
        code: str) -> None:
    """The same game with the keyword struck from the card's definition: where the text
    allowed what the rule forbids (a tapped creature blocks, an untapped one is
    attacked), the rule now decides, at that line."""
    first = {g: (g, i, ref) for g, i, ref in reversed(override_sites[keyword])}
    for g, i, _ in list(first.values())[:3]:  # the first site of a game: nothing before it
        header = pool[g][0]
        assert isinstance(header, MatchStarted) and isinstance(header.cards, dict)
        cards = {k: {f: v for f, v in d.items() if f != keyword}
                 for k, d in header.cards.items()}
        lines = [header.model_copy(update={"cards": cards}), *pool[g][1:i + 1]]
        found = errors(judge(lines))
        assert found and found[0] == (code, i + 1), found[:3]


def test_override_keywords_are_card_flags_of_the_edition() -> None:
    """The edition's card over rule keywords are flags of a card definition, checked as
    the others; a keyword no edition defines is an unknown field."""
    from coreflow_judge.adjudicator.judge import JudgeInputError

    rules = DuelMastersRules("1.47", "standard", {"phantom": sample_cards()["phantom"]})
    assert rules.cards["phantom"].has("unblockable")
    assert set(rules.overrides) >= {"speed_attacker", "unblockable", "block_while_tapped",
                                    "attack_untapped", "skip_draw"}
    header = simulate_game(1, max_lines=3)[0]
    assert isinstance(header, MatchStarted)
    for bad, word in (({"unblockable": "yes"}, "unblockable: expected true or false"),
                      ({"unshakeable": True}, "unknown field")):
        cards = {"phantom": {**sample_cards()["phantom"], **bad}}
        with pytest.raises(JudgeInputError, match=word):
            start_flow(header.model_copy(update={"cards": cards, "decks": None}))


# ---------------------------------------------------------------------- special wins and losses
def game_end_sites(lines: Log) -> list[tuple[int, str, bool]]:
    """(i, controller, ends): line i resolves an ability or spell with a win / lose effect
    (dm104.2c); ``ends``: the rules end the game there."""
    out = []
    for i, line, flow in replay(lines):
        if not (isinstance(line, Resolve) and line.request in flow.requests):
            continue
        req = flow.requests[line.request]
        plan = dm(flow).plan_resolution(flow, req, line.choices, line.seq)
        if any(step.step in ("win", "lose") for step in plan.steps):
            out.append((i, req.controller, any(e["op"] in ("win", "lose")
                                               for e in plan.effects)))
    return out


@pytest.fixture(scope="session")
def end_sites(pool: list[Log]) -> list[tuple[int, int, str, bool]]:
    return [(g, *site) for g, lines in enumerate(pool[:80]) for site in game_end_sites(lines)]


def test_special_game_ends_are_ruled_at_once(pool: list[Log],
                                             end_sites: list[tuple[int, int, str, bool]]
                                             ) -> None:
    """A win / lose effect whose condition holds ends the game at that resolution (the
    simulated game's last line records it); one whose condition fails does nothing, and
    the plan says why."""
    assert {ends for *_, ends in end_sites} == {True, False}
    for g, i, _, ends in end_sites:
        if ends:
            end = pool[g][-1]
            assert isinstance(end, GameEnded) and end.reason in ("special_win",
                                                                 "special_loss")
            assert pool[g][i + 1] is end


@SETTINGS
@given(data=st.data())
def test_special_win_recorded_though_its_condition_failed(
        pool: list[Log], end_sites: list[tuple[int, int, str, bool]],
        data: st.DataObject) -> None:
    """The table ends the game on a win / lose effect whose condition did not hold: the
    rules give no result there (legality.result-mismatch at that line)."""
    g, i, controller, _ = data.draw(st.sampled_from([s for s in end_sites if not s[3]]))
    end = GameEnded(seq=1, result="win", winner=controller, reason="special_win")
    lines = renumber([*sparse(pool[g][:i + 1]), end])
    assert errors(judge(lines)) == [("legality.result-mismatch", len(lines))]


def test_game_end_effects_are_checked() -> None:
    from coreflow_judge.adjudicator.games.duel_masters.cards import CardListError, parse_cards

    cards = parse_cards({k: sample_cards()[k] for k in ("oracle", "judgment")})
    win = cards["oracle"].effects("on_attack")[0]
    assert (win.kind, win.who, win.condition) == ("win", "you", ("min_creatures", 4))
    assert cards["judgment"].effects("spell")[0].describe() == \
        "each player loses if 1 or fewer shields"
    spell = {"type": "spell", "civ": "fire", "cost": 1}
    for bad, word in (({"win": {"who": "all"}}, "who: expected one of"),
                      ({"lose": {"min_creatures": 2, "max_shields": 0}}, "at most one"),
                      ({"win": {"min_creatures": -1}}, "whole number"),
                      ({"lose": 3}, "expected true or")):
        with pytest.raises(CardListError, match=word):
            parse_cards({"x": {**spell, "spell": [bad]}})


# ---------------------------------------------------------------------- extra zones (dm§2.1)
def test_the_extra_zones_are_read_from_the_header_and_checked() -> None:
    """The header's hyperspatial and super_gr: psychic and GR creatures of its cards, each
    named once, of the match's players; neither kind is ever in a deck. A header that
    breaks this stops the judge with the field named."""
    header, started = simulate_game(1, max_lines=3)[:2]
    assert isinstance(header, DuelMastersMatchStarted) and header.decks and header.super_gr
    flow = start_flow(header)
    flow.feed(started)
    b = dm(flow).boards["alice"]
    assert header.hyperspatial is not None
    assert b.hyperspatial == header.hyperspatial["alice"]
    assert b.super_gr == header.super_gr["alice"]
    for update, field, words in (
            ({"hyperspatial": {"carol": ["psyche#1"]}}, "hyperspatial", "not a player"),
            ({"hyperspatial": {"alice": ["grunt#1"]}}, "hyperspatial",
             "hyperspatial.alice[0]: 'grunt#1' (Gear Grunt) is not a psychic creature"),
            ({"super_gr": {"bob": ["grunt#1", "grunt#1"]}}, "super_gr", "named twice"),
            ({"super_gr": {"bob": ["nothing#1"]}}, "super_gr", "names no card"),
            ({"decks": {**header.decks, "bob": ["psyche#2", *header.decks["bob"]]}}, "decks",
             "decks.bob[0]: 'psyche#2' (Rift Psyche) starts in the hyperspatial zone")):
        with pytest.raises(JudgeInputError) as err:
            start_flow(header.model_copy(update=update))
        assert err.value.field == field and words in str(err.value), str(err.value)


def test_the_board_shows_the_hyperspatial_zone_and_counts_the_super_gr_zone(
        pool: list[Log]) -> None:
    """The hyperspatial zone is public: the board lists its cards. The super GR zone is
    hidden: the board gives its count, and only the cards the log showed going in (a GR
    creature that left the battle zone, at the bottom)."""
    shown = 0
    for lines in pool[:40]:
        flow = start_flow(lines[0])
        for line in lines[1:]:
            flow.feed(line)
            for p, zones in dm(flow).board(flow)["players"].items():
                b = dm(flow).boards[p]
                assert zones["hyperspatial"] == b.hyperspatial
                assert zones["super_gr_count"] == len(b.super_gr or [])
                assert "super_gr" not in zones
                assert zones["super_gr_known"] == b.gr_shown
                assert set(b.gr_shown) <= set(b.super_gr or [])
                shown += bool(b.gr_shown)
    assert shown, "GR creatures went back to the super GR zone in the pool"


def test_psychic_and_gr_creatures_leave_for_their_zones(pool: list[Log]) -> None:
    """A psychic creature put into the battle zone comes from the hyperspatial zone and goes
    back there; a GR creature comes from the top of the super GR zone and goes to its
    bottom, never to the graveyard or the hand."""
    moves: set[tuple[str, str]] = set()
    for lines in pool:
        for line in lines:
            for e in line.effects or [] if isinstance(line, Resolve) else []:
                d = e.model_dump()
                zone = d.get("to") if d.get("from") in ("battle", None) else d.get("from")
                name = str(d.get("card", "")).partition(":")[2].partition("#")[0]
                kind = sample_cards().get(name, {}).get("zone")
                if kind in ("hyperspatial", "super_gr") and d["op"] in ("move", "destroy"):
                    assert zone in (kind, "battle", None), d
                    moves.add((d["op"], str(zone)))
    assert {("move", "hyperspatial"), ("move", "super_gr"),
            ("destroy", "super_gr")} <= moves, moves


# ---------------------------------------------------------------------- cross gear (dm§3.4)
@pytest.fixture(scope="session")
def gear_sites(pool: list[Log]) -> dict[str, list[tuple[int, int]]]:
    """(game, i): 'cross', line i crosses a gear; 'battle', line i resolves a block whose
    battle has a creature with a gear or an aura giving power; 'left', line i resolves
    something that takes a creature with a crossed gear out of the battle zone."""
    out: dict[str, list[tuple[int, int]]] = {"cross": [], "battle": [], "left": []}
    for g, lines in enumerate(pool):
        for i, line, flow in replay(lines):
            if isinstance(line, Request) and line.action == "cross":
                out["cross"].append((g, i))
            if not (isinstance(line, Resolve) and line.request in flow.requests):
                continue
            plan = planned_effects(flow, line)
            if any(e["op"] == "uncross" for e in plan):
                out["left"].append((g, i))
            battle = next((e for e in plan if e["op"] == "battle"), None)
            if battle is not None and any(
                    (c := dm(flow).find(ref)) is not None and any(
                        a.card.gives and a.card.gives.power for a in c.attached)
                    for ref in (battle["attacker"], battle["defender"])):
                out["battle"].append((g, i))
    return out


def test_gears_and_auras_are_played(gear_sites: dict[str, list[tuple[int, int]]]) -> None:
    assert {k: bool(v) for k, v in gear_sites.items()} == {k: True for k in gear_sites}


@SETTINGS
@given(data=st.data())
def test_cross_without_paying_its_cross_cost(
        pool: list[Log], gear_sites: dict[str, list[tuple[int, int]]],
        data: st.DataObject) -> None:
    """A cross recorded with no mana tapped: legality.cost-unpaid at that line, the only
    finding of the line (the cross happens as played)."""
    g, i = data.draw(st.sampled_from(gear_sites["cross"]))
    line = pool[g][i]
    assert isinstance(line, Request)
    broken = [*pool[g][:i], line.model_copy(update={"choices": {"mana": []}})]
    report = judge(broken)
    assert [(f.code, f.seq) for f in report.findings] == [("legality.cost-unpaid", i + 1)]
    assert "Crossing" in report.findings[0].message


@SETTINGS
@given(data=st.data())
def test_battle_fought_without_what_a_gear_or_aura_gives(
        pool: list[Log], gear_sites: dict[str, list[tuple[int, int]]],
        data: st.DataObject) -> None:
    """A battle recorded with the powers the creatures would have without their gears and
    auras: precedence.value-mismatch at that line, its message naming the card that gives
    the power."""
    g, i = data.draw(st.sampled_from(gear_sites["battle"]))
    line = pool[g][i]
    assert isinstance(line, Resolve)
    flow = start_flow(pool[g][0])
    for earlier in pool[g][1:i]:
        flow.feed(earlier)
    plan = planned_effects(flow, line)
    battle = next(e for e in plan if e["op"] == "battle")
    bare = []
    for ref, power in zip((battle["attacker"], battle["defender"]), battle["powers"],
                          strict=True):
        c = dm(flow).find(ref)
        assert c is not None
        bare.append(power - sum(a.card.gives.power for a in c.attached if a.card.gives))
    claimed = [Effect.model_validate({**e, "powers": bare} if e is battle else e)
               for e in plan]
    report = judge([*pool[g][:i], line.model_copy(update={"effects": claimed})])
    assert [(f.code, f.seq) for f in report.findings] == [("precedence.value-mismatch", i + 1)]
    assert "crossed)" in report.findings[0].message or "aura)" in report.findings[0].message


def test_a_gear_stays_in_the_battle_zone_when_its_creature_leaves(
        pool: list[Log], gear_sites: dict[str, list[tuple[int, int]]]) -> None:
    """After the resolution that takes a creature with a crossed gear out of the battle zone,
    the gear is still in the battle zone, crossed to nothing (docs/decisions.md section 7),
    and the creature's auras are in the graveyard."""
    for g, i in gear_sites["left"][:20]:
        flow = start_flow(pool[g][0])
        for earlier in pool[g][1:i]:
            flow.feed(earlier)
        line = pool[g][i]
        assert isinstance(line, Resolve)
        plan = planned_effects(flow, line)
        flow.feed(line)
        for e in plan:
            if e["op"] == "uncross":
                gear = dm(flow).gear(e["card"])
                assert gear is not None and gear.crossed is None, e
                assert dm(flow).find(e["creature"]) is None


# ---------------------------------------------------------------------- GR creatures and auras
def test_gr_creature_without_an_aura_kept_in_play(pool: list[Log]) -> None:
    """The recorded effects of a resolution keep a GR creature that has no aura on it: the
    state-based actions destroy it (the seed's rule, dm703); one finding at that line,
    saying why; a GR creature with an aura is never destroyed for that reason."""
    done = 0
    for lines in pool:
        for i, line, flow, ours in resolutions(lines):
            sba = [e for e in ours if e.get("reason") == "state" and e.get("to") == "super_gr"]
            for c in dm(flow).creatures():
                assert c.card.zone != "super_gr" or c.auras or c.sba_exempt, c.ref
            if not sba:
                continue
            kept = [Effect.model_validate(e) for e in ours if e is not sba[0]]
            report = judge([*lines[:i], line.model_copy(update={"effects": kept})])
            assert [(f.code, f.seq) for f in report.findings] == [
                ("order.state-check-missed", i + 1)]
            assert "GR creature with no aura" in report.findings[0].message
            done += 1
            break
        if done >= 5:
            break
    assert done >= 5, "the pool has GR creatures summoned without an aura"


@SETTINGS
@given(data=st.data())
def test_aura_put_on_an_opponents_creature(pool: list[Log], data: st.DataObject) -> None:
    """An aura request naming one of the opponent's creatures: legality.target-invalid at
    that line, the only finding of the line."""
    sites = [(g, i, [c.ref for c in dm(flow).creatures() if c.owner != line.player])
             for g, lines in enumerate(pool[:60]) for i, line, flow in replay(lines)
             if isinstance(line, Request) and line.action == "aura" and line.targets]
    sites = [s for s in sites if s[2]]
    assert sites, "the pool puts auras on creatures while the opponent has some"
    g, i, foes = data.draw(st.sampled_from(sites))
    line = pool[g][i]
    assert isinstance(line, Request)
    broken = [*pool[g][:i], line.model_copy(update={"targets": [foes[0]]})]
    report = judge(broken)
    assert [(f.code, f.seq) for f in report.findings] == [("legality.target-invalid", i + 1)]


def test_a_log_without_the_extra_zones_warns_where_it_needs_them(pool: list[Log]) -> None:
    """The same games with the header's hyperspatial and super_gr left out: a GR summon or
    a hyperspatial effect cannot be judged there; the judge warns (log.hidden-info) at the
    first such line, and reports no error before it."""
    warned = 0
    for lines in pool[:40]:
        header = lines[0]
        assert isinstance(header, MatchStarted)
        bare = [header.model_copy(update={"hyperspatial": None, "super_gr": None}), *lines[1:]]
        needs = [i for i, line, flow in replay(lines) if isinstance(line, Resolve)
                 and line.request in flow.requests and any(
                     e["op"] == "move" and e.get("from") in ("hyperspatial", "super_gr")
                     for e in planned_effects(flow, line))]
        if not needs:
            continue
        report = judge(bare[:needs[0] + 1])
        assert [(f.code, f.seq, f.severity) for f in report.findings] == [
            ("log.hidden-info", needs[0] + 1, "warning")], report.findings
        warned += 1
    assert warned >= 5


def test_gear_aura_and_zone_definitions_are_checked() -> None:
    from coreflow_judge.adjudicator.games.duel_masters.cards import CardListError, parse_cards

    cards = parse_cards({k: sample_cards()[k] for k in ("galewings", "mantle", "grbot",
                                                        "riftcall")}, ("unblockable",))
    wings = cards["galewings"]
    assert wings.cross_cost == 1 and wings.gives is not None \
        and wings.gives.flags == {"speed_attacker"} and wings.gives.power == 1000
    assert cards["mantle"].gr_summon and cards["grbot"].zone == "super_gr"
    assert cards["riftcall"].effects("spell")[0].describe() == (
        "put a psychic creature of cost 5 or less from the hyperspatial zone into the battle "
        "zone")
    gear = {"type": "cross_gear", "civ": "fire", "cost": 1, "gives": {"power": 1000}}
    for bad, word in (
            ({**gear, "gives": {"flying": True}}, "gives: unknown field(s) flying"),
            ({**gear, "gives": {"blocker": "yes"}}, "gives.blocker: expected true"),
            ({**gear, "gives": {"breaker": 0}}, "gives.breaker: expected a whole number"),
            ({**gear, "gives": 3}, "gives: expected an object"),
            ({k: v for k, v in gear.items() if k != "gives"}, "gives: a cross_gear says"),
            ({**gear, "cross_cost": -1}, "cross_cost: expected a whole number"),
            ({**gear, "gr_summon": True}, "gr_summon: not a field of a cross_gear"),
            ({**gear, "spell": [{"draw": 1}]}, "spell: only a spell"),
            ({**gear, "type": "aura", "cross_cost": 1}, "cross_cost: not a field of a aura"),
            ({"type": "spell", "civ": "fire", "cost": 1, "zone": "super_gr"},
             "zone: only a creature starts outside the deck"),
            ({"type": "creature", "civ": "fire", "cost": 1, "zone": "graveyard"},
             "zone: only a creature starts outside the deck"),
            ({"type": "spell", "civ": "fire", "cost": 1, "spell": [{"hyperspatial": 5}]},
             "hyperspatial: expected true or {max_cost: n}"),
            ({"type": "spell", "civ": "fire", "cost": 1, "spell": [{"gr_summon": 0}]},
             "gr_summon: expected a whole number >= 1"),
            ({"type": "creature", "civ": "fire", "cost": 1, "gives": {}},
             "gives: not a field of a creature")):
        with pytest.raises(CardListError, match=re.escape(word)):
            parse_cards({"x": bad})
