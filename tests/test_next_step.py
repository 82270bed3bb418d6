"""What the rules wanted next: each error a player's line raised says it.

The judge reads it from the table as it had it just before the line (after any repair
there, :func:`adjudicator.replay.attach_next`), from one function
(:func:`adjudicator.next_step.next_step`) that ``play``'s ``legal`` also writes from; the
text report says it in words (docs/findings.md, ``next``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.judge import (
    Report,
    judge_file,
    judge_lines,
    plan_repairs,
    taken_back,
)
from coreflow_judge.adjudicator.live import LiveTable
from coreflow_judge.adjudicator.next_step import Allowed, NextStep, Waiting, next_step
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.adjudicator.replay import attach_next
from coreflow_judge.cli.render import next_text, report_text
from coreflow_judge.events.models import LogLine, MatchStarted, Pass, lines_of

RULINGS = Path(__file__).resolve().parent.parent / "fixtures" / "rulings"

#: The requests the timing allows the chance holder of BlackPoker 9.0 lite with a request
#: on the stage: the quick-timing ones.
QUICK_9_0 = ("up", "down", "twist", "counter", "search")


def _finding(report: Report, seq: int, code: str) -> Finding:
    return next(f for f in report.findings if (f.seq, f.code) == (seq, code))


def _said(report: Report, finding: Finding, lang: str = "en") -> str:
    """The report's line for ``finding`` that says what the rules wanted next."""
    lead = "  Under the rules, next: " if lang == "en" else "  ルール上、次は: "
    block = report_text(report, "x", [finding], lang=lang).splitlines()
    return next(line for line in block if line.startswith(lead))[len(lead):]


def _names(report: Report) -> dict[str, str]:
    assert report.flow is not None
    rules = report.flow.rules
    return {aid: a.name for aid, a in rules.actions.items()}  # type: ignore[attr-defined]


def test_a_main_request_while_the_stage_holds_one_names_the_top_of_the_stage() -> None:
    report = judge_file(RULINGS / "lite" / "main-request-by-opponent-9.0.jsonl")
    f = _finding(report, 7, "timing.main-stage-not-empty")
    assert f.next == NextStep(
        "chance", holder="bob", passed=("alice",),
        requests=tuple(Allowed("bob", a) for a in QUICK_9_0),
        waiting=(Waiting("r2", "summon_soldier", "alice", "normal", "main"),))
    assert f.as_dict()["next"] == {
        "step": "chance", "holder": "bob", "passed": ["alice"],
        "requests": [{"player": "bob", "action": a} for a in QUICK_9_0],
        "stage_top": {"request": "r2", "action": "summon_soldier", "controller": "alice",
                      "speed": "normal", "timing": "main"},
    }
    assert _said(report, f) == (
        "bob held the chance (alice had passed), with r2 (Summon Soldier of alice) on top of "
        "the stage: bob could pass, or request Up, Down, Twist, Counter or Search.")
    assert _said(report, f, "ja") == (
        "bob がチャンスを持っていた（パス済み: alice）、ステージの一番上は r2（alice の 兵士召喚）"
        "：bob はパスするか、アップ、ダウン、ツイスト、カウンター、サーチのいずれかを"
        "リクエストできた。")
    # Both errors of the line met the same table.
    assert _finding(report, 7, "timing.main-not-turn-player").next == f.next


def test_the_next_step_weighs_conditions_and_granting_trumps() -> None:
    """An action whose condition on the table fails (パック開封 without a pack), or whose
    granting trump is face down (ドレイン, ♠3 not among alice's trumps), is not offered;
    an action the timing and the table allow is (メインオープン)."""
    report = judge_file(RULINGS / "frames" / "pack-open-without-a-pack-9.0.jsonl")
    f = _finding(report, 3, "legality.condition-unmet")
    assert f.next is not None and f.next.holder == "alice"
    offered = {a.action for a in f.next.requests}
    assert {"main_open", "quick_open", "end"} <= offered
    assert not {"pack_open", "rare_draw", "rare_summon", "trap_counter", "drain",
                "instant_kill"} & offered


def test_a_resolve_before_every_player_passed_names_the_holder_who_had_to_pass() -> None:
    report = judge_file(RULINGS / "lite" / "resolved-before-all-passed-9.0.jsonl")
    f = _finding(report, 9, "timing.resolved-before-all-passed")
    assert f.next is not None
    assert (f.next.step, f.next.holder, f.next.passed) == ("chance", "bob", ())
    assert f.next.waiting == (Waiting("r3", "counter", "bob", "normal", "quick"),)
    assert _said(report, f) == (
        "bob held the chance, with r3 (Counter of bob) on top of the stage: bob could pass, "
        "or request Up, Down, Twist, Counter or Search.")


def test_a_request_without_the_chance_names_the_holder_and_their_pass() -> None:
    """A hand-built log: bob makes a request on alice's first turn."""
    lines = (RULINGS / "lite" / "resolved-before-all-passed-9.0.jsonl").read_text(
        encoding="utf-8").splitlines()[:2]
    lines.append(json.dumps({"seq": 3, "type": "request", "request": "r1", "player": "bob",
                             "action": "set_bulwark", "costs": [{"kind": "L", "ref": "bob:?"}],
                             "choices": {"card": "bob:C10"}}))
    report = judge_lines(enumerate((lines_of("blackpoker").validate_json(x) for x in lines), 1))
    f = _finding(report, 3, "timing.no-chance")
    assert f.next is not None
    assert (f.next.step, f.next.holder, f.next.passed, f.next.waiting) == (
        "chance", "alice", (), ())
    allowed = [a.action for a in f.next.requests]
    assert {a.player for a in f.next.requests} == {"alice"}
    assert allowed[:2] == ["set_bulwark", "summon_soldier"] and "end" in allowed
    names = _names(report)
    assert _said(report, f) == (
        "alice held the chance: alice could pass, or request "
        + ", ".join(names[a] for a in allowed[:-1]) + f" or {names[allowed[-1]]}.")


@pytest.mark.parametrize(("fixture", "seq", "code", "words", "ja"), [
    ("lite/stage-not-lifo-9.0", 10, "order.stage-not-lifo",
     "every player had passed: r3 (Counter of bob), on top of the stage, had to resolve.",
     "全プレイヤーがパスしていた：ステージの一番上の r3（bob の カウンター）を解決する必要が"
     "あった。"),
    ("lite/trigger-missed-6.1", 6, "order.trigger-missed",
     "the triggered request t1 (Charge of bob) waited in the buffer: it had to be resolved.",
     "誘発したリクエスト t1（bob の チャージ）がバッファで待っていた：それを解決する必要が"
     "あった。"),
    ("lite/win-check-missed-9.0", 13, "order.win-check-missed",
     "the game was over: alice wins (deck_out); nothing more could be played, only its end "
     "recorded.",
     "ゲームはすでに終わっていた：alice の勝ち（deck_out）。終了を記録するほかは何も"
     "できなかった。"),
    ("lite/after-game-end-9.0", 5, "log.after-game-end",
     "the game was over and its end recorded: alice wins (concession); nothing more could be "
     "played.",
     "ゲームはすでに終わり、終了も記録されていた：alice の勝ち（concession）。これ以上は"
     "何もできなかった。"),
    ("master/a9-cost-trigger-resolved-first-6.1", 22, "order.instant-before-own-trigger",
     "the instant request r9 (Blackjack of alice) awaited its resolution: it had to resolve.",
     "即時のリクエスト r9（alice の B・J）が解決を待っていた：それを解決する必要があった。"),
])
def test_each_step_in_words(fixture: str, seq: int, code: str, words: str, ja: str) -> None:
    report = judge_file(RULINGS / f"{fixture}.jsonl")
    f = _finding(report, seq, code)
    assert _said(report, f) == words
    assert _said(report, f, "ja") == ja


def test_the_buffer_names_the_requests_handled_first() -> None:
    report = judge_file(RULINGS / "duel_masters" / "end-abilities-nap-first.jsonl")
    f = _finding(report, 28, "order.pending-effect-order")
    assert f.next is not None and f.next.step == "buffer"
    first = [w.request for w in f.next.waiting if w.first]
    assert first and len(first) < len(f.next.waiting)
    assert [w["request"] for w in f.as_dict()["next"]["waiting"] if w.get("first")] == first
    assert _said(report, f).endswith(f"{' or '.join(first)} had to be resolved first.")


def test_a_repair_finding_gets_the_table_before_the_repair() -> None:
    """The departure itself (a request left on the stage) is about the table before the
    repair: the request still on top of the stage."""
    report = judge_file(RULINGS / "lite" / "counter-believed-9.0.jsonl")
    f = _finding(report, 12, "order.request-never-resolved")
    assert f.next is not None and f.next.step == "chance"
    assert f.next.waiting == (Waiting("r2", "summon_soldier", "alice", "normal", "main"),)


def test_steps_without_a_fixture_in_words() -> None:
    """The steps no ruling fixture reaches at an error, said from the data alone."""
    names = {"set_bulwark": "Set Bulwark", "counter": "Counter"}.__getitem__
    assert next_text(NextStep("start", players=("alice", "bob")), names) == (
        "the game had not started: alice or bob had to start it.")
    assert next_text(NextStep("none"), names) == (
        "nobody held the chance and nothing waited to be staged or resolved.")
    mixed = NextStep("buffer", waiting=(
        Waiting("t1", "set_bulwark", "alice", "normal", "main", first=True),
        Waiting("t2", "counter", "bob", "normal", "quick", first=True)))
    assert next_text(mixed, names) == (
        "the triggered requests t1 (Set Bulwark of alice) and t2 (Counter of bob) waited in "
        "the buffer: t1 or t2 had to be staged or discarded first.")
    free = NextStep("chance", holder="alice", requests=(Allowed("bob", "counter"),))
    assert next_text(free, names) == "alice held the chance: alice could pass; bob could " \
        "request Counter."
    assert next_text(free, names, "ja") == \
        "alice がチャンスを持っていた：alice はパスできた。bob は Counterをリクエストできた。"


def test_legal_writes_the_same_reading_in_the_notation() -> None:
    lines = [lines_of("blackpoker").validate_json(x) for x in (
        RULINGS / "lite" / "main-request-by-opponent-9.0.jsonl").read_text("utf-8").splitlines()]
    table = LiveTable(lines[:7], lambda _l: None)  # up to alice's pass, before bob's request
    step = next_step(table.flow)
    legal = table.legal()
    assert legal[0] == f"bob pass   (bob holds the chance, on {step.waiting[0].request})"
    # Each entry is a request the timing allows (and the rules accept, card by card).
    allowed = {(a.player, a.action) for a in step.requests}
    entries = [row for row in legal[1:] if not row.startswith("  ")]
    assert entries and all(tuple(row.split()[:2]) in allowed for row in entries)
    assert any(row.startswith("bob counter ") and "(Counter カウンター; normal, quick" in row
               for row in entries)


def test_a_clean_game_is_reported_as_before() -> None:
    plugin = game_plugin("blackpoker")
    assert plugin.simulate is not None
    lines = plugin.simulate("9.0", "lite", 3, "clean-next")
    pairs = list(enumerate(lines, 1))
    skipped = taken_back(lines)
    repairs, run = plan_repairs(pairs, skipped)  # type: ignore[arg-type]
    assert not run.erring and not repairs
    assert attach_next(pairs, skipped, repairs, run) is run.flow  # type: ignore[arg-type]
    report = judge_lines(pairs)
    assert report.errors == 0
    assert all(f.next is None and "next" not in f.as_dict() for f in report.findings)
    assert "Under the rules" not in report_text(report, "x")


def _broken(lines: list[LogLine], seed: int) -> list[tuple[int, LogLine]]:
    """Three edits past the start: a pass given to another player, or a line dropped."""
    r = random.Random(seed)
    header = lines[0]
    assert isinstance(header, MatchStarted)
    out = list(lines)
    for _ in range(3):
        i = r.randrange(3, len(out) - 1)
        line = out[i]
        if isinstance(line, Pass):
            other = next(p for p in header.players if p != line.player)
            out[i] = line.model_copy(update={"player": other})
        else:
            out.pop(i)
    return [(k, x.model_copy(update={"seq": k, "hash": None})) for k, x in enumerate(out, 1)]


@pytest.mark.parametrize(("game", "edition", "fmt"), [
    ("blackpoker", "9.0", "lite"), ("blackpoker", "6.1", "extra"),
    ("duel_masters", "1.47", "standard"), ("i_language", "1", "standard")])
def test_every_error_of_a_broken_log_says_what_the_rules_wanted(game: str, edition: str,
                                                                fmt: str) -> None:
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    errors = 0
    for seed in range(3):
        pairs = _broken(plugin.simulate(edition, fmt, seed, f"broken-{seed}"), seed)
        report = judge_lines(pairs)
        plain = plan_repairs(pairs, taken_back([x for _no, x in pairs]))[1].flow  # type: ignore[arg-type]
        plain.finish()
        plain.findings.sort(key=lambda f: f.seq)
        # The same ruling as without it, each error with it.
        assert [(f.code, f.seq, f.message) for f in report.findings] == [
            (f.code, f.seq, f.message) for f in plain.findings]
        for f in report.findings:
            if f.severity == "error":
                errors += 1
                assert f.next is not None, (seed, f)
                assert report_text(report, "x", [f]).count("Under the rules, next: ") == 1
    assert errors > 0


def test_a_malformed_line_has_none() -> None:
    report = judge_file(RULINGS / "lite" / "malformed-9.0.jsonl")
    malformed = [f for f in report.findings if f.code == "log.malformed"]
    assert malformed and all(f.next is None for f in malformed)
