"""Make the bundled sample tournament, fixtures/tournament/ (24 logs, both editions).

Usage: ``python scripts/make_tournament.py [--out fixtures/tournament] [--seed 2025]``.

The games are the seeded simulator's (:func:`adjudicator.simulate.write_games`: random
legal play, complete logs). This script then dresses them as a tournament and spoils a
few on purpose:

- two divisions of six players, four rounds of three tables each: "classic" plays
  BlackPoker 6.1, "modern" plays 9.0 (header ``event``: tournament, round, table);
- the simulator's players (alice, bob) become the paired players, everywhere they
  appear (ids, card references, deck and hand keys);
- every line gets an ``at`` time: a seeded clock per table, a few seconds per decision,
  no time for the rule system's own lines;
- a few logs carry a scorekeeping mistake (:data:`MISTAKES`): a dropped pass (a request
  or resolution without the chance), two resolutions swapped, a triggered instant never
  resolved, an End requested by the wrong player, a wrong winner.

Lines are renumbered and the hash chain is written afresh. The script judges every log it
writes and stops if a clean log has a finding or a spoiled one has no error: the
fixture's findings are the engine's, not the script's claims. Same seed, same files (for
the same simulator).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from coreflow_judge.adjudicator.judge import judge_lines  # noqa: E402
from coreflow_judge.adjudicator.simulate import write_games  # noqa: E402
from coreflow_judge.events.reader import LineError, dump_line, iter_lines, parse_line  # noqa: E402

Line = dict[str, Any]

DIVISIONS = {
    # edition: (division name, players)
    "6.1": ("classic", ["aoi", "ren", "sora", "yui", "kai", "mei"]),
    "9.0": ("modern", ["riku", "hana", "taro", "emi", "jun", "nao"]),
}
TOURNAMENT = "Spring Open 2025"
ROUNDS, TABLES = 4, 3
START = datetime(2025, 4, 12, 1, 0, tzinfo=UTC)  # 10:00 in Tokyo
ROUND_MINUTES = 75

#: (edition, round, table) -> the mistake made in that log (``kind:player`` names who).
MISTAKES: dict[tuple[str, int, int], str] = {
    ("9.0", 1, 2): "drop_pass_before_resolve",
    ("9.0", 2, 1): "request_without_chance",
    ("9.0", 3, 3): "swap_resolutions",
    ("9.0", 4, 2): "end_by_opponent",
    ("6.1", 1, 3): "request_without_chance",
    ("6.1", 2, 2): "swap_resolutions",
    ("6.1", 2, 3): "request_without_chance",
    ("6.1", 3, 1): "drop_trigger_resolution",
    ("6.1", 3, 2): "request_without_chance:sora",
    ("6.1", 4, 1): "request_without_chance:sora",
    ("6.1", 4, 3): "wrong_winner",
}

#: Seconds a line of each type takes at the table (low, high); absent: 0.
PACE: dict[str, tuple[int, int]] = {
    "game_started": (60, 150),
    "request": (3, 25),
    "pass": (1, 8),
    "resolve": (1, 6),
}


def pairings(players: list[str]) -> list[list[tuple[str, str]]]:
    """Round-robin pairings (circle method): one list of tables per round."""
    ps = list(players)
    rounds = []
    for _ in range(len(ps) - 1):
        half = len(ps) // 2
        rounds.append([(ps[i], ps[-1 - i]) for i in range(half)])
        ps = [ps[0], ps[-1], *ps[1:-1]]
    return rounds


def rename(value: Any, names: dict[str, str]) -> Any:
    """Replace player ids (and the owner part of references) everywhere in a line."""
    if isinstance(value, dict):
        return {rename(k, names): rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [rename(v, names) for v in value]
    if isinstance(value, str):
        if value in names:
            return names[value]
        owner, sep, rest = value.partition(":")
        if sep and owner in names:
            return f"{names[owner]}:{rest}"
    return value


def add_times(lines: list[Line], start: datetime, rng: random.Random) -> None:
    clock = start
    for line in lines:
        low, high = PACE.get(line["type"], (0, 0))
        if high:
            clock += timedelta(seconds=rng.randint(low, high), milliseconds=rng.randint(0, 999))
        line["at"] = clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ------------------------------------------------------------------ mistakes


def _next_decision(lines: list[Line], i: int) -> int | None:
    """The index of the first line after ``i`` that is not a chance move."""
    for j in range(i + 1, len(lines)):
        if lines[j]["type"] != "chance_moved":
            return j
    return None


def _drop_pass(lines: list[Line], rng: random.Random, then: Callable[[Line, Line], bool]) -> str:
    """Drop a pass (and the chance moves right after it) where ``then(pass, next)``."""
    spots = []
    for i, line in enumerate(lines):
        if line["type"] != "pass":
            continue
        j = _next_decision(lines, i)
        if j is not None and then(line, lines[j]):
            spots.append((i, j))
    if not spots:
        raise SystemExit("no place for the mistake")
    i, j = rng.choice(spots)
    what = f"dropped the pass of {lines[i]['player']} before seq {lines[j]['seq']}"
    del lines[i:j]
    return what


def drop_pass_before_resolve(lines: list[Line], rng: random.Random) -> str:
    return _drop_pass(lines, rng, lambda p, nxt: nxt["type"] == "resolve")


def request_without_chance(lines: list[Line], rng: random.Random, who: str = "") -> str:
    """The pass before another player's request is dropped (``who``: that player)."""
    return _drop_pass(
        lines, rng, lambda p, nxt: nxt["type"] == "request" and nxt["player"] != p["player"]
        and nxt["player"] == (who or nxt["player"])
    )


def swap_resolutions(lines: list[Line], rng: random.Random) -> str:
    """Two stage resolutions in a row (only passes between them) change places."""
    staged = {ln["request"] for ln in lines if ln["type"] == "stage"}
    spots = []
    for i, line in enumerate(lines):
        if line["type"] != "resolve" or line["request"] not in staged:
            continue
        for j in range(i + 1, len(lines)):
            t = lines[j]["type"]
            if t == "resolve":
                if lines[j]["request"] in staged:
                    spots.append((i, j))
                break
            if t not in ("pass", "chance_moved"):
                break
    if not spots:
        raise SystemExit("no two resolutions to swap")
    i, j = rng.choice(spots)
    a, b = lines[i], lines[j]
    body_a = {k: v for k, v in a.items() if k not in ("seq", "at")}
    body_b = {k: v for k, v in b.items() if k not in ("seq", "at")}
    at_a, at_b = a.get("at"), b.get("at")
    a.clear()
    a.update(seq=0, at=at_a, **body_b)
    b.clear()
    b.update(seq=0, at=at_b, **body_a)
    return f"swapped the resolutions of {body_a['request']} and {body_b['request']}"


def drop_trigger_resolution(lines: list[Line], rng: random.Random) -> str:
    """A triggered instant (its resolve right after its trigger) is never resolved."""
    spots = [
        i + 1 for i, line in enumerate(lines[:-1])
        if line["type"] == "trigger" and lines[i + 1]["type"] == "resolve"
        and lines[i + 1]["request"] == line["request"]
    ]
    if not spots:
        raise SystemExit("no triggered instant to drop")
    i = rng.choice(spots)
    what = f"dropped the resolution of the triggered {lines[i - 1]['action']}"
    del lines[i]
    return what


def end_by_opponent(lines: list[Line], rng: random.Random) -> str:
    """The turn player's End is requested in the log by the other player."""
    players = lines[0]["players"]
    spots = [i for i, ln in enumerate(lines) if ln["type"] == "request" and ln["action"] == "end"]
    i = rng.choice(spots)
    who = lines[i]["player"]
    lines[i]["player"] = next(p for p in players if p != who)
    return f"End of {who} recorded as {lines[i]['player']}'s"


def wrong_winner(lines: list[Line], rng: random.Random) -> str:
    end = lines[-1]
    if end["type"] != "game_ended" or end.get("result") != "win":
        raise SystemExit("the game has no winner to get wrong")
    players = lines[0]["players"]
    end["winner"] = next(p for p in players if p != end["winner"])
    return f"winner recorded as {end['winner']}"


MISTAKE_FUNCS: dict[str, Callable[..., str]] = {
    f.__name__: f for f in (drop_pass_before_resolve, request_without_chance, swap_resolutions,
                            drop_trigger_resolution, end_by_opponent, wrong_winner)
}


# ------------------------------------------------------------------ main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("fixtures/tournament"))
    ap.add_argument("--seed", type=int, default=2025)
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.jsonl"):
        old.unlink()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for edition, (division, players) in DIVISIONS.items():
            games = write_games(edition, "lite", ROUNDS * TABLES, args.seed, Path(tmp) / edition)
            schedule = pairings(players)
            for k, path in enumerate(games):
                rnd, table = k // TABLES + 1, k % TABLES + 1
                p1, p2 = schedule[rnd - 1][table - 1]
                lines: list[Line] = [json.loads(t) for t in path.read_text().splitlines()]
                for line in lines:
                    line.pop("hash", None)
                lines = [rename(ln, {"alice": p1, "bob": p2}) for ln in lines]
                edition_tag = edition.replace(".", "")
                match_id = f"spring25-{edition_tag}-r{rnd}-t{table}"
                header = lines[0]
                header["match_id"] = match_id
                header["event"] = {"tournament": f"{TOURNAMENT} ({division}, {edition})",
                                   "round": rnd, "table": table}
                start = START + timedelta(minutes=ROUND_MINUTES * (rnd - 1),
                                          seconds=20 * (table - 1))
                add_times(lines, start, rng)
                mistake = MISTAKES.get((edition, rnd, table))
                what, text = "", finish(lines)
                if mistake:
                    # A few seeded tries; keep the one whose consequences are the smallest
                    # (a mistake that derails the whole game hides the others).
                    tries = []
                    for attempt in range(8):
                        spoiled = copy.deepcopy(lines)
                        kind, _, who = mistake.partition(":")
                        said = MISTAKE_FUNCS[kind](spoiled, random.Random(rng.random()),
                                                   *([who] if who else []))
                        spoiled_text = finish(spoiled)
                        n = len(judge_lines(iter_lines(spoiled_text)).findings)
                        tries.append((n, attempt, said, spoiled_text))
                    _, _, what, text = min(tries)
                report = judge_lines(iter_lines(text))
                codes = sorted({f.code for f in report.findings})
                if mistake and not report.errors:
                    raise SystemExit(f"{match_id}: the mistake ({what}) raised no error")
                if not mistake and report.findings:
                    raise SystemExit(f"{match_id}: a clean log has findings: {codes}")
                target = out / f"{match_id}.jsonl"
                target.write_text("\n".join(text) + "\n", encoding="utf-8")
                note = f"  <- {mistake}: {what}: {', '.join(codes)}" if mistake else ""
                print(f"{target} {len(text)} lines{note}")


def finish(lines: list[Line]) -> list[str]:
    """The lines renumbered 1..n, as JSON text with a fresh hash chain."""
    text, previous = [], None
    for n, line in enumerate(lines, start=1):
        line["seq"] = n
        s, previous = dump_line_dict(line, previous)
        text.append(s)
    return text


def dump_line_dict(line: Line, previous: str | None) -> tuple[str, str]:
    """A line (dict) as JSON text with its chain hash, through the log's own model."""
    model = parse_line(json.dumps(line), line["seq"])
    if isinstance(model, LineError):
        raise SystemExit(f"not a valid line: {line}: {model}")
    return dump_line(model, previous)


if __name__ == "__main__":
    main()
