"""Property tests of the i-language judge on simulated games, and its rulings.

The simulator (:mod:`adjudicator.games.i_language.simulate`) plays seeded random legal
games through the same core flow and rules module the judge uses. These tests check that

(a) hundreds of such games judge with no finding at all and the result they ended on,
    and end by every reason the rules know (all_incapacitated, turn_limit, cost_over);
(b) a sparse log (rule-system lines left out) is judged the same and normalizes back;
(c) each mistake the judge must catch, injected into a legal game, is reported with its
    code at the line that makes it, and no error comes before that line.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.adjudicator.games.i_language.rules import ILanguageRules
from coreflow_judge.adjudicator.games.i_language.simulate import simulate_game
from coreflow_judge.adjudicator.judge import JudgeInputError, Report, judge_file, normalize_lines
from coreflow_judge.events.models import GameEnded, MatchStarted, Request, Resolve, Roll
from coreflow_judge.events.reader import read_log
from hypothesis import given
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tests.logtools import Log, errors, identity, judge, renumber
from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rulings" / "i_language"
GAMES = 300
DERIVED = {"turn_started", "chance_moved", "trigger"}

PROPERTY = examples(20)


# ---------------------------------------------------------------------------- helpers
def sparse(lines: Log) -> Log:
    """The players' decisions (and the recorded end): every derivable line left out."""
    return renumber([line for line in lines if line.type not in DERIVED])


def flow_after(lines: Log) -> CoreFlow:
    """The engine's state after judging ``lines``."""
    report = judge(lines)
    assert report.flow is not None
    return report.flow


def rules_after(lines: Log) -> ILanguageRules:
    """The rules module's state after judging ``lines``."""
    rules = flow_after(lines).rules
    assert isinstance(rules, ILanguageRules)
    return rules


def turn_players(lines: Log) -> list[str | None]:
    """The turn player when each line of a complete log is read."""
    out: list[str | None] = []
    tp: str | None = None
    for line in lines:
        if line.type == "turn_started":
            tp = line.player  # type: ignore[union-attr]
        out.append(tp)
    return out


def next_decision(lines: Log, after: int) -> int | None:
    """The index of the first request or game end after line index ``after``."""
    for j in range(after + 1, len(lines)):
        if lines[j].type in ("request", "game_ended"):
            return j if lines[j].type == "request" else None
    return None


Site = Callable[[Log], tuple[Log, int] | None]


def first_site(seed: int, site: Site, tries: int = 300) -> tuple[Log, int]:
    """The first game from ``seed`` on with a place for the mistake: (edited log, seq)."""
    game = pooled(simulate_game)  # the session's games: most seeds here are in the pool
    for s in range(seed, seed + tries):
        found = site(game(s))
        if found is not None:
            return found
    raise AssertionError(f"no game from seed {seed} offers the site")


def assert_reported(lines: Log, seq: int, code: str, severity: str = "error") -> Report:
    report = judge(lines)
    hits = [(f.code, f.seq, f.severity) for f in report.findings]
    assert (code, seq, severity) in hits, hits
    before = [(c, s) for c, s in errors(report) if s < seq]
    assert before == [], f"errors before the mistake at {seq}: {before}"
    return report


def fresh_id(lines: Log) -> str:
    used = {getattr(line, "request", None) for line in lines}
    n = 1
    while f"x{n}" in used:
        n += 1
    return f"x{n}"


# ---------------------------------------------------------------------------- (a) legal games
@pytest.fixture(scope="session")
def pool() -> list[Log]:
    """300 seeded games (the same on every run), played once a session."""
    game = pooled(simulate_game)
    return [game(seed) for seed in range(GAMES)]


def test_simulated_games_have_no_finding_and_end_as_recorded(pool: list[Log]) -> None:
    reasons: Counter[str] = Counter()
    for lines in pool:
        report = judge(lines)
        assert report.findings == [], [(f.code, f.seq, f.message) for f in report.findings]
        end = lines[-1]
        assert isinstance(end, GameEnded)
        assert report.result == result_of(end)
        reasons[end.reason or ""] += 1
    assert set(reasons) == {"all_incapacitated", "turn_limit", "cost_over"}, reasons
    assert min(reasons.values()) >= GAMES // 20


def result_of(end: GameEnded) -> dict[str, Any]:
    """A recorded end as the report's result."""
    out: dict[str, Any] = {"result": end.result}
    if end.winner is not None:
        out["winner"] = end.winner
    out["reason"] = end.reason
    return out


def test_simulated_games_use_every_action_dice_and_triggers(pool: list[Log]) -> None:
    seen: Counter[str] = Counter()
    for lines in pool:
        tps = turn_players(lines)
        for line, tp in zip(lines, tps, strict=True):
            seen[line.type] += 1
            if isinstance(line, Request):
                seen[line.action] += 1
                if line.action == "magic" and line.player != tp:
                    seen["magic off turn"] += 1
            if isinstance(line, Resolve) and line.effects:
                seen["claims"] += 1
    for what in ("attack", "ability", "magic", "end", "roll", "trigger", "magic off turn",
                 "claims"):
        assert seen[what] > 0, what


def test_turns_alternate_and_never_pass_ten_each(pool: list[Log]) -> None:
    for lines in pool:
        starts = [line for line in lines if line.type == "turn_started"]
        assert len(starts) <= 20
        players = [s.player for s in starts]  # type: ignore[attr-defined]
        assert all(a != b for a, b in zip(players, players[1:], strict=False))
        end = lines[-1]
        assert isinstance(end, GameEnded)
        if end.reason == "turn_limit":
            assert len(starts) == 20
            assert end.winner == players[1], "only the second player wins at the turn limit"


def test_decks_are_three_normal_cards_from_a_pool_and_at_most_three_magic(
        pool: list[Log]) -> None:
    for lines in pool[:50]:
        header = lines[0]
        assert isinstance(header, MatchStarted) and header.decks and isinstance(header.cards,
                                                                                dict)
        for deck in header.decks.values():
            kinds = Counter(header.cards[c]["kind"] for c in deck)
            assert kinds["normal"] == 3 and kinds["magic"] <= 3


def test_cost_over_games_are_ruled_by_the_totals(pool: list[Log]) -> None:
    for lines in pool:
        end = lines[-1]
        assert isinstance(end, GameEnded)
        rules = rules_after(lines)
        over = [p for p in rules.decks if rules.total_cost(p) > rules.initial_cost]
        if end.reason == "cost_over":
            assert over
            assert (end.result == "draw") == (len(over) == 2)
            if end.winner:
                assert end.winner not in over
        else:
            assert not over


def test_simulation_is_deterministic() -> None:
    assert [identity(x) for x in simulate_game(7)] == [identity(x) for x in simulate_game(7)]
    assert [identity(x) for x in simulate_game(7)] != [identity(x) for x in simulate_game(8)]


def test_unsupported_edition_and_format_are_refused() -> None:
    with pytest.raises(JudgeInputError, match="edition"):
        simulate_game(1, edition="2")
    with pytest.raises(JudgeInputError, match="format"):
        simulate_game(1, fmt="lite")


def test_max_lines_stops_an_unfinished_game() -> None:
    lines = simulate_game(3, max_lines=30)
    assert not any(line.type == "game_ended" for line in lines)
    assert judge(lines).result is None


# ---------------------------------------------------------------------------- (b) sparse logs
@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_sparse_log_is_judged_the_same_and_normalizes_back(seed: int) -> None:
    complete = simulate_game(seed)
    thin = sparse(complete)
    report = judge(thin)
    assert report.findings == []
    assert report.result == judge(complete).result
    normalized = normalize_lines(enumerate(thin, 1))
    assert [identity(x) for x in normalized] == [identity(x) for x in complete]


# ---------------------------------------------------------------------------- (c) mistakes
def _attack_twice(lines: Log) -> tuple[Log, int] | None:
    log = sparse(lines)
    for i, line in enumerate(log):
        if isinstance(line, Request) and line.action == "attack":
            j = next_decision(log, i + 1)
            if j is None:
                continue
            rid = fresh_id(log)
            again = line.model_copy(update={"request": rid})
            edited = log[:j] + [again, Resolve(seq=1, request=rid, result="resolved")] + log[j:]
            return renumber(edited), j + 1
    return None


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_a_card_attacking_twice_in_a_turn(seed: int) -> None:
    lines, seq = first_site(seed, _attack_twice)
    assert_reported(lines, seq, "timing.once-per-turn")


def _attack_on_opponents_turn(lines: Log) -> tuple[Log, int] | None:
    tps = turn_players(lines)
    decisions = [i for i, line in enumerate(lines) if isinstance(line, Request)]
    for i in decisions[1:]:
        tp = tps[i]
        rules = rules_after(lines[:i])
        if tp is None:
            continue
        other = rules.opponent(tp)
        mine, theirs = rules.standing(other), rules.standing(tp)
        if not mine or not theirs:
            continue
        rid = fresh_id(lines)
        attack = Request(seq=1, request=rid, player=other, action="attack",
                         key_cards=[mine[0].ref], targets=[theirs[0].ref])
        edited = sparse(lines[:i] + [attack, Resolve(seq=1, request=rid, result="resolved")]
                        + lines[i:])
        seq = next(line.seq for line in edited
                   if isinstance(line, Request) and line.request == rid)
        return edited, seq
    return None


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_a_card_attacking_on_the_opponents_turn(seed: int) -> None:
    lines, seq = first_site(seed, _attack_on_opponents_turn)
    report = assert_reported(lines, seq, "timing.main-not-turn-player")
    assert ("timing.no-chance", seq) in errors(report)


def _use_twice(action: str) -> Site:
    def site(lines: Log) -> tuple[Log, int] | None:
        log = sparse(lines)
        for i, line in enumerate(log):
            if not (isinstance(line, Request) and line.action == action):
                continue
            k = next(k for k in range(i + 1, len(log)) if isinstance(log[k], Resolve)
                     and log[k].request == line.request)  # type: ignore[union-attr]
            j = next_decision(log, k)
            if j is None:
                continue
            done = log[k]
            assert isinstance(done, Resolve)
            rid = fresh_id(log)
            again: Log = [line.model_copy(update={"request": rid}),
                     done.model_copy(update={"request": rid, "effects": None})]
            roll = log[i - 1]
            if isinstance(roll, Roll):
                again.insert(0, roll)  # the same die again: only the second use is wrong
            edited = renumber(log[:j] + again + log[j:])
            seq = next(x.seq for x in edited if isinstance(x, Request) and x.request == rid)
            return edited, seq
        return None
    return site


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_a_magic_card_used_twice(seed: int) -> None:
    lines, seq = first_site(seed, _use_twice("magic"))
    assert_reported(lines, seq, "legality.once-per-game")


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_an_ability_used_twice(seed: int) -> None:
    lines, seq = first_site(seed, _use_twice("ability"))
    assert_reported(lines, seq, "legality.once-per-game")


def _rewrite_end(reason: str, rewrite: Callable[[Log, GameEnded], GameEnded | None]) -> Site:
    def site(lines: Log) -> tuple[Log, int] | None:
        end = lines[-1]
        if not isinstance(end, GameEnded) or end.reason != reason:
            return None
        wrong = rewrite(lines, end)
        if wrong is None:
            return None
        edited = renumber(lines[:-1] + [wrong])
        return edited, len(edited)
    return site


def _ignore_cost(lines: Log, end: GameEnded) -> GameEnded | None:
    """The result as if the 1000-cost loss did not exist."""
    rules = rules_after(lines)
    wiped = [p for p in rules.decks if not rules.standing(p)]
    if len(wiped) == 2:
        return end.model_copy(update={"result": "draw", "winner": None,
                                      "reason": "all_incapacitated"})
    if wiped:
        return end.model_copy(update={"result": "win", "winner": rules.opponent(wiped[0]),
                                      "reason": "all_incapacitated"})
    return end.model_copy(update={"result": "win", "winner": rules.second,
                                  "reason": "turn_limit"})


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_a_result_that_ignores_the_cost_loss(seed: int) -> None:
    lines, seq = first_site(seed, _rewrite_end("cost_over", _ignore_cost))
    report = assert_reported(lines, seq, "legality.result-mismatch")
    assert report.result is not None and report.result["reason"] == "cost_over"


def _ignore_tie_break(as_draw: bool) -> Callable[[Log, GameEnded], GameEnded | None]:
    """Both sides standing after 10 turns each, ruled a draw or a win for the first player."""
    def rewrite(lines: Log, end: GameEnded) -> GameEnded | None:
        if as_draw:
            return end.model_copy(update={"result": "draw", "winner": None})
        first = lines[1].first_player  # type: ignore[union-attr]
        return end.model_copy(update={"winner": first})
    return rewrite


@given(seed=st.integers(0, 10**6), as_draw=st.booleans())
@PROPERTY
def test_a_result_that_ignores_the_second_player_tie_break(seed: int, as_draw: bool) -> None:
    lines, seq = first_site(seed, _rewrite_end("turn_limit", _ignore_tie_break(as_draw)))
    report = assert_reported(lines, seq, "legality.result-mismatch")
    first = lines[1].first_player  # type: ignore[union-attr]
    assert report.result is not None and report.result["winner"] != first


@pytest.mark.parametrize("change", ["four normal", "two normal", "four magic", "undefined",
                                    "twice"])
def test_a_deck_that_breaks_the_deck_rules(change: str) -> None:
    lines = simulate_game(11)
    header = lines[0]
    assert isinstance(header, MatchStarted) and header.decks and isinstance(header.cards, dict)
    cards = header.cards
    deck = list(header.decks["alice"])
    normals = [c for c in cards if cards[c]["kind"] == "normal" and c not in deck]
    magics = [c for c in cards if cards[c]["kind"] == "magic"]
    if change == "four normal":
        deck.append(normals[0])
    elif change == "two normal":
        deck.remove(next(c for c in deck if cards[c]["kind"] == "normal"))
    elif change == "four magic":
        deck = [c for c in deck if cards[c]["kind"] == "normal"] + magics[:4]
    elif change == "undefined":
        deck.append("no-such-card")
    else:
        deck.append(deck[0])
    edited = [header.model_copy(update={"decks": {**header.decks, "alice": deck}})] + lines[1:]
    report = assert_reported(edited, 1, "legality.deck-invalid")
    assert [f for f in report.findings if f.seq == 1 and f.code == "legality.deck-invalid"
            ][0].message.startswith("alice's deck")


def _rolls(log: Log) -> list[tuple[int, int]]:
    """(roll index, index of the resolution it decides) for die rolls that pick an ability."""
    out = []
    for i, line in enumerate(log):
        if isinstance(line, Roll):
            k = next(k for k in range(i + 1, len(log)) if isinstance(log[k], Resolve))
            out.append((i, k))
    return out


def _roll_mismatch(lines: Log) -> tuple[Log, int] | None:
    log = sparse(lines)
    for _, k in _rolls(log):
        done = log[k]
        assert isinstance(done, Resolve) and done.choices
        flow = flow_after(log[:k])
        rules = flow.rules
        assert isinstance(rules, ILanguageRules)
        card = rules.source_card(flow.requests[done.request])
        assert card is not None
        n = len(card.d.abilities)
        picked = int(done.choices["ability"])
        other = picked % n + 1
        wrong = done.model_copy(update={"choices": {**done.choices, "ability": other},
                                        "effects": None})
        edited = log[:k] + [wrong] + log[k + 1:]
        return edited, k + 1
    return None


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_an_ability_choice_that_does_not_match_the_roll(seed: int) -> None:
    lines, seq = first_site(seed, _roll_mismatch)
    assert_reported(lines, seq, "legality.effect-mismatch")


def _roll_missing(lines: Log) -> tuple[Log, int] | None:
    log = sparse(lines)
    for i, k in _rolls(log):
        return renumber(log[:i] + log[i + 1:]), k  # the resolution moves up one line
    return None


@given(seed=st.integers(0, 10**6))
@PROPERTY
def test_an_ability_choice_without_a_roll_is_a_warning(seed: int) -> None:
    lines, seq = first_site(seed, _roll_missing)
    report = assert_reported(lines, seq, "log.roll-missing", "warning")
    assert errors(report) == []


# ---------------------------------------------------------------------------- rulings by hand
CARDS: dict[str, Any] = {
    "pawn": {"kind": "normal", "cost": 100, "attack": 10, "durability": 50},
    "squire": {"kind": "normal", "cost": 120, "attack": 20, "durability": 60},
    "scout": {"kind": "normal", "cost": 150, "attack": 70, "durability": 60},
    "quake": {"kind": "magic", "cost": 200,
              "abilities": [{"do": "damage", "target": "all_cards", "amount": 100}]},
}


def small_game(decks: dict[str, list[str]], *lines: dict[str, Any],
               cards: dict[str, Any] | None = None) -> Log:
    rows: list[dict[str, Any]] = [
        {"type": "match_started", "match_id": "il-test", "game": "i_language",
         "rules": "i_language/1", "format": "standard", "players": ["alice", "bob"],
         "decks": decks, "cards": cards or CARDS, "log_format": 1},
        {"type": "game_started", "first_player": "alice"}, *lines]
    from coreflow_judge.events.models import LINE_ADAPTER
    return [LINE_ADAPTER.validate_python({"seq": i, **row}) for i, row in enumerate(rows, 1)]


def test_both_camps_wiped_out_at_once_is_a_draw() -> None:
    lines = small_game(
        {"alice": ["pawn", "squire", "scout", "quake"], "bob": ["pawn", "squire", "scout"]},
        {"type": "request", "request": "r1", "player": "alice", "action": "magic",
         "key_cards": ["alice:quake"]},
        {"type": "resolve", "request": "r1", "result": "resolved"},
        {"type": "game_ended", "result": "draw", "reason": "all_incapacitated"})
    report = judge(lines)
    assert report.findings == []
    assert report.result == {"result": "draw", "reason": "all_incapacitated"}


def test_a_magic_declaration_leaves_the_chance_with_the_turn_player() -> None:
    lines = small_game(
        {"alice": ["pawn", "squire", "scout"], "bob": ["pawn", "squire", "scout", "quake"]},
        {"type": "request", "request": "r1", "player": "bob", "action": "magic",
         "key_cards": ["bob:quake"]})
    report = judge(lines)
    assert report.findings == []
    assert report.flow is not None and report.flow.chance == "alice"


def test_a_malformed_card_definition_is_reported_on_line_1() -> None:
    cards = {**CARDS, "blob": {"kind": "normal", "cost": -5, "attack": 1, "durability": 1},
             "odd": {"kind": "magic", "cost": 10, "abilities": [{"do": "explode",
                                                                 "target": "self"}]}}
    lines = small_game({"alice": ["pawn", "squire", "scout"], "bob": ["pawn", "squire",
                                                                      "scout"]}, cards=cards)
    report = judge(lines)
    # One finding per code per line, naming both definitions.
    assert sorted((f.code, f.seq) for f in report.findings) == [("log.malformed", 1)]
    assert "blob" in report.findings[0].message and "odd" in report.findings[0].message


def test_a_log_without_decks_cannot_be_ruled_to_its_end() -> None:
    lines = small_game({"alice": ["pawn", "squire", "scout"]},
                       {"type": "game_ended", "result": "win", "winner": "alice",
                        "reason": "all_incapacitated"})
    report = judge(lines)
    assert [(f.code, f.seq, f.severity) for f in report.findings] == [
        ("legality.deck-invalid", 1, "error"), ("log.hidden-info", 3, "warning")]


def test_a_three_player_header_cannot_be_judged() -> None:
    lines = small_game({})
    header = lines[0].model_copy(update={"players": ["alice", "bob", "carol"]})
    with pytest.raises(JudgeInputError, match="1-on-1"):
        judge([header] + lines[1:])


def test_the_complete_fixture_normalizes_to_itself() -> None:
    path = FIXTURES / "wipe-out-clean.jsonl"
    written = [identity(line) for _, line in read_log(path)]  # type: ignore[arg-type]
    assert [identity(x) for x in normalize_lines(read_log(path))] == written


def test_every_i_language_code_has_a_fixture() -> None:
    shown = set()
    for expected in FIXTURES.glob("*.expected.json"):
        shown |= {f["code"] for f in json.loads(expected.read_text(encoding="utf-8"))["findings"]}
    assert {"legality.deck-invalid", "legality.once-per-game", "legality.roll-invalid",
            "log.roll-missing", "timing.once-per-turn", "timing.main-not-turn-player",
            "legality.effect-mismatch", "legality.result-mismatch"} <= shown
    assert len(list(FIXTURES.glob("*.expected.json"))) >= 10


def test_the_board_shows_costs_and_card_states() -> None:
    report = judge_file(FIXTURES / "both-cost-over-draw.jsonl")
    assert report.flow is not None
    board = report.flow.rules.board(report.flow)
    alice, bob = board["players"]["alice"], board["players"]["bob"]
    assert (alice["deck_cost"], alice["total_cost"]) == (900, 1200)
    assert (bob["deck_cost"], bob["total_cost"]) == (820, 1070)
    assert {c["state"] for c in bob["camp"]} == {"destroyed"}
    assert bob["destroyed"] == ["bob:idol", "bob:pawn", "bob:squire"]
    assert bob["magic_declared"] == ["bob:fire", "bob:storm"] and alice["magic_unused"] == []
    assert alice["standing"] == ["alice:maiko[60/70]", "alice:golem[30/170]",
                                 "alice:hope[50/90]"]


def test_the_cli_simulates_i_language_games_the_judge_accepts(tmp_path: Path) -> None:
    from coreflow_judge.cli.main import app
    from typer.testing import CliRunner

    runner = CliRunner()
    r = runner.invoke(app, ["simulate", "--rules", "i_language/1", "--games", "3", "--seed",
                            "5", "--out", str(tmp_path / "logs")])
    assert r.exit_code == 0, r.output
    paths = sorted((tmp_path / "logs").glob("*.jsonl"))
    assert [p.name for p in paths] == [f"i_language-1-5-{i}.jsonl" for i in range(3)]
    for p in paths:
        report = judge_file(p)
        assert report.findings == [] and report.result is not None
    bad = runner.invoke(app, ["simulate", "--rules", "i_language/9", "--out",
                              str(tmp_path / "none")])
    assert bad.exit_code == 2 and "has no edition '9'" in bad.stderr
    assert not (tmp_path / "none").exists()


def test_every_i_language_rule_cited_has_an_english_statement() -> None:
    import re

    from coreflow_judge.adjudicator.plugins import game_plugin
    from coreflow_judge.cli.rule_text import rule_statement

    RULE_STATEMENTS = game_plugin("i_language").rule_statements

    source = (ROOT / "adjudicator" / "games" / "i_language" / "rules.py").read_text(
        encoding="utf-8")
    cited = set(re.findall(r'"(il\.[^":\s]+)"', source))
    assert len(cited) >= 9
    assert sorted(c for c in cited if c not in RULE_STATEMENTS) == []
    assert "10 turns each" in rule_statement("il.戦闘処理")


def test_the_worked_example_in_the_docs_is_what_the_cli_prints(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from coreflow_judge.cli.main import app
    from typer.testing import CliRunner

    monkeypatch.chdir(ROOT)
    log = "fixtures/rulings/i_language/cost-over-ignored.jsonl"
    judged = CliRunner().invoke(app, ["judge", log])
    assert judged.exit_code == 1
    doc = (ROOT / "docs" / "i_language.md").read_text(encoding="utf-8")
    block = doc.split(f"$ coreflow judge {log}\n", 1)[1].split("```", 1)[0]
    assert block == judged.stdout
    for line in (ROOT / log).read_text(encoding="utf-8").splitlines()[2:]:
        assert line in doc


# ---------------------------------------------------------------------------- robustness
def _mutate(lines: Log, data: st.DataObject) -> None:
    """One random edit past the header: drop, duplicate or move a line, or change a field."""
    i = data.draw(st.integers(2, len(lines) - 1), label="line")
    how = data.draw(st.sampled_from(["drop", "duplicate", "move", "field"]), label="edit")
    if how == "drop":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    elif how == "move":
        line = lines.pop(i)
        lines.insert(data.draw(st.integers(2, len(lines)), label="to"), line)
    else:
        line = lines[i]
        refs = ["alice:n1", "bob:m1", "carol:n2", "alice", "x", "t1", "r1"]
        if isinstance(line, Request):
            changes: list[dict[str, Any]] = [
                {"player": "bob" if line.player == "alice" else "alice"},
                {"key_cards": [data.draw(st.sampled_from(refs))]},
                {"targets": data.draw(st.lists(st.sampled_from(refs), max_size=3))},
                {"action": data.draw(st.sampled_from(["attack", "ability", "magic", "end",
                                                      "summon"]))},
            ]
            lines[i] = line.model_copy(update=data.draw(st.sampled_from(changes)))
        elif isinstance(line, Resolve):
            outcomes: list[dict[str, Any]] = [
                {"choices": {"ability": data.draw(st.sampled_from([0, 1, 2, 3, "x"])),
                             "targets": data.draw(st.sampled_from([[], refs, "alice:n1"]))}},
                {"result": "fizzled"},
                {"effects": None},
            ]
            lines[i] = line.model_copy(update=data.draw(st.sampled_from(outcomes)))
        elif isinstance(line, Roll):
            lines[i] = line.model_copy(update={"result": data.draw(st.integers(1, 12)),
                                               "sides": data.draw(st.integers(2, 7))})


@examples(60)
@given(seed=st.integers(0, 10**6), thin=st.booleans(), data=st.data())
def test_judge_reports_edited_logs_without_crashing(seed: int, thin: bool,
                                                    data: st.DataObject) -> None:
    """Whatever an i-language log says past its header, the judge reports findings with
    known codes on lines of the log; it never raises."""
    from coreflow_judge.adjudicator.findings import catalogue

    CODES = catalogue()
    lines = simulate_game(seed)
    if thin:
        lines = sparse(lines)
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        _mutate(lines, data)
    lines = renumber(lines)
    report = judge(lines)
    assert len(normalize_lines(enumerate(lines, 1))) >= len(lines)
    for f in report.findings:
        assert f.code in CODES and 1 <= f.seq <= len(lines), f


def test_a_magic_declaration_may_claim_free_timing() -> None:
    ok = small_game(
        {"alice": ["pawn", "squire", "scout"], "bob": ["pawn", "squire", "scout", "quake"]},
        {"type": "request", "request": "r1", "player": "bob", "action": "magic",
         "key_cards": ["bob:quake"], "speed": "instant", "timing": "free"})
    assert judge(ok).findings == []
    wrong = small_game(
        {"alice": ["pawn", "squire", "scout"], "bob": ["pawn", "squire", "scout", "quake"]},
        {"type": "request", "request": "r1", "player": "bob", "action": "magic",
         "key_cards": ["bob:quake"], "timing": "main"})
    assert [(f.code, f.seq) for f in judge(wrong).findings] == [("log.claim-mismatch", 3)]


def test_a_claimed_effect_may_leave_a_card_unshown() -> None:
    """The one claimed-effect matcher (adjudicator.claims): a claim whose card is ``?`` or
    ``owner:?`` matches the planned effect on any card; a wrongly named card does not."""
    from coreflow_judge.adjudicator.judge import start_flow

    decks = {"alice": ["pawn", "squire", "scout", "quake"], "bob": ["pawn", "squire", "scout"]}
    request = {"type": "request", "request": "r1", "player": "alice", "action": "magic",
               "key_cards": ["alice:quake"]}
    base = small_game(decks, request)
    flow = start_flow(base[0])
    for line in base[1:]:
        flow.feed(line)
    rules = flow.rules
    assert isinstance(rules, ILanguageRules)
    plan = rules.preview(flow, flow.requests["r1"], None)
    assert plan.steps and plan.steps[0].step == "damage" and "quake" in plan.steps[0].reason
    planned = plan.effects
    assert planned == [e for s in plan.steps for e in s.effects]
    assert {e["op"] for e in planned} == {"durability", "destroy"}

    def judged(claims: list[dict[str, Any]]) -> list[tuple[str, int]]:
        lines = small_game(decks, request,
                           {"type": "resolve", "request": "r1", "result": "resolved",
                            "effects": claims},
                           {"type": "game_ended", "result": "draw",
                            "reason": "all_incapacitated"})
        return [(f.code, f.seq) for f in judge(lines).findings]

    first = planned[0]["card"]
    owner = first.partition(":")[0]
    unshown = [dict(planned[0], card=f"{owner}:?"), dict(planned[1], card="?"), *planned[2:]]
    assert judged(unshown) == []
    other = next(e["card"] for e in planned if e["card"].partition(":")[0] != owner)
    wrong = [dict(planned[0], card=other), *planned[1:]]
    assert judged(wrong) == [("legality.effect-mismatch", 4)]
