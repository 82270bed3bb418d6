"""Two ``coreflow play`` sessions on one match (two scorekeepers at one table), racing.

Each round records a simulated game's header, then starts two real ``coreflow play
--resume MATCH --format json`` processes on the same match and types the game's lines (in
the notation, what the rules derive left out) into both:

- ``lockstep``: each line goes to both sessions at once and both answers are read before
  the next line: every line is a race one session wins; the other is told ``conflict``
  and reads the match again;
- ``free``: each session is fed at its own random pace, so that one falls behind, enters
  lines the other already entered (refused, or taken where they still stand), and ends its
  input while the other still types.

A round is *whole* when:

1. neither session stopped (exit status 0 or 1: a refused or lost line, never 2);
2. every line either session answered ``ok`` for is stored at the seq it was told, as it
   was told (``stored`` of the JSON answer);
3. every stored line that no answer showed is one the rules derive (what a session stores
   when its input ends), and the record is its own complete log (``normalize`` of it
   changes nothing: no derived line the rules do not derive, none twice);
4. in ``lockstep``, the record is the game itself: each stored line is the game's line at
   that seq (nothing stored that was not played).

``python -m benchmarks.play_race STORE ROUNDS`` runs rounds and prints each; tests/
test_play_race.py runs a few on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from coreflow_judge.adjudicator.judge import normalize_lines
from coreflow_judge.adjudicator.ledger import DERIVABLE
from coreflow_judge.adjudicator.notation import to_notation
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import LogLine
from coreflow_judge.events.store import open_recorder

from benchmarks.tournament import PROCESS_TIMEOUT_S, coreflow_argv

MODES = ("lockstep", "free")


@dataclass
class RaceRound:
    """What one round of two sessions did, and what is wrong with the record."""

    match_id: str
    mode: str
    exit_codes: list[int] = field(default_factory=list)
    oks: list[int] = field(default_factory=list)
    conflicts: list[int] = field(default_factory=list)
    stored: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        return (f"{self.match_id} {self.mode}: exit {self.exit_codes}, ok {self.oks}, "
                f"conflict {self.conflicts}, {self.stored} lines stored: "
                + ("whole" if self.whole else "; ".join(self.problems[:3])))


def game(seed: int, match_id: str) -> list[LogLine]:
    """A simulated BlackPoker 9.0 lite game under ``match_id``."""
    plugin = game_plugin("blackpoker")
    assert plugin.simulate is not None
    lines = plugin.simulate("9.0", "lite", seed, match_id)
    return [lines[0].model_copy(update={"match_id": match_id}), *lines[1:]]


def typed(lines: list[LogLine]) -> list[str]:
    """What the table types: every line the rules do not derive, in the notation (trigger
    lines kept: they name the triggered requests)."""
    return [to_notation(ln) for ln in lines[1:]
            if ln.type not in DERIVABLE or ln.type == "trigger"]


def _plain(line: LogLine | dict[str, Any]) -> dict[str, Any]:
    data = line if isinstance(line, dict) else line.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in data.items() if k != "hash"}


def race_round(store: str, seed: int, match_id: str, mode: str = "lockstep",
               typed_lines: int = 60) -> RaceRound:
    """One round (see the module's docstring); the store must be reachable."""
    assert mode in MODES
    lines = game(seed, match_id)
    header = lines[0].model_dump_json(exclude_none=True, exclude={"hash"})
    argv = coreflow_argv()
    started = subprocess.run([*argv, "play", "--store", store], input=header + "\n",
                             capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S)
    if started.returncode != 0:
        raise RuntimeError(f"the match did not start: {started.stderr}")
    script = typed(lines)[:typed_lines]
    procs = [subprocess.Popen([*argv, "play", "--store", store, "--resume", match_id,
                               "--format", "json"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    answers: list[list[dict[str, Any]]] = [[], []]
    errors: list[str] = ["", ""]
    rnd = random.Random(seed)
    try:
        for proc in procs:
            assert proc.stdout is not None
            json.loads(proc.stdout.readline())  # "resumed"
        if mode == "lockstep":
            _lockstep(procs, script, answers, rnd)
        else:
            _free(procs, script, answers, rnd)
        for i, proc in enumerate(procs):
            out, errors[i] = _rest(proc)
            answers[i] += [json.loads(x) for x in out.splitlines()]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    with open_recorder(store, read_only=not store.startswith("postgres")) as recorder:
        stored = recorder.lines(match_id)
    result = RaceRound(match_id, mode, [p.returncode for p in procs],
                       [sum(a["status"] == "ok" for a in said) for said in answers],
                       [sum(a["status"] == "conflict" for a in said) for said in answers],
                       len(stored))
    result.problems = check(stored, answers, errors, [p.returncode for p in procs],
                            lines if mode == "lockstep" else None)
    return result


def _rest(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """The rest of a session's stdout and its stderr, once its input is closed."""
    assert proc.stdout is not None and proc.stderr is not None
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))  # type: ignore[union-attr]
    reader.start()
    out = proc.stdout.read()
    reader.join(PROCESS_TIMEOUT_S)
    proc.wait(PROCESS_TIMEOUT_S)
    return out, "".join(err)


def _lockstep(procs: list[subprocess.Popen[str]], script: list[str],
              answers: list[list[dict[str, Any]]], rnd: random.Random) -> None:
    for text in script:
        order = [0, 1] if rnd.random() < 0.5 else [1, 0]
        for i in order:
            stdin = procs[i].stdin
            assert stdin is not None
            stdin.write(text + "\n")
            stdin.flush()
            time.sleep(rnd.random() * 0.004)
        for i, proc in enumerate(procs):
            assert proc.stdout is not None
            got = proc.stdout.readline()
            if not got:
                break  # the session stopped: check() says so
            answers[i].append(json.loads(got))
    for proc in procs:
        assert proc.stdin is not None
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass


def _free(procs: list[subprocess.Popen[str]], script: list[str],
          answers: list[list[dict[str, Any]]], rnd: random.Random) -> None:
    lags = [rnd.uniform(0.005, 0.04), rnd.uniform(0.005, 0.04)]

    def feed(i: int) -> None:
        stdin = procs[i].stdin
        assert stdin is not None
        pace = random.Random(rnd.random())
        try:
            for text in script:
                stdin.write(text + "\n")
                stdin.flush()
                time.sleep(pace.random() * lags[i])
        except BrokenPipeError:
            pass  # the session stopped: check() says so
        try:
            stdin.close()
        except BrokenPipeError:
            pass

    feeders = [threading.Thread(target=feed, args=(i,)) for i in range(2)]
    for t in feeders:
        t.start()
    for t in feeders:
        t.join()


def check(stored: list[LogLine], answers: list[list[dict[str, Any]]], errors: list[str],
          exit_codes: list[int], played: list[LogLine] | None) -> list[str]:
    """What is wrong with a round's record (empty: the round is whole)."""
    problems = [f"session {i + 1} stopped with exit status {code}: "
                f"{errors[i].strip().splitlines()[-1] if errors[i].strip() else ''}"
                for i, code in enumerate(exit_codes) if code not in (0, 1)]
    problems += [f"session {i + 1}: {line.strip()}" for i, err in enumerate(errors)
                 for line in err.splitlines() if "Traceback" in line or "internal" in line]
    by_seq = {ln.seq: _plain(ln) for ln in stored}
    answered: set[int] = set()
    for i, said in enumerate(answers):
        for a in said:
            if a["status"] != "ok":
                continue
            for line in a.get("stored", []):
                line = _plain(line)
                answered.add(line["seq"])
                if by_seq.get(line["seq"]) != line:
                    problems.append(f"session {i + 1} was told seq {line['seq']} is {line}; "
                                    f"the store holds {by_seq.get(line['seq'])}")
    for line in stored[1:]:
        if line.seq not in answered and line.type not in DERIVABLE:
            problems.append(f"seq {line.seq} ({line.type}) is stored, but no session "
                            "answered ok for it")
    complete = [_plain(ln) for ln in normalize_lines(list(enumerate(stored, start=1)))]
    if complete != [_plain(ln) for ln in stored]:
        first = next((k for k, (a, b) in enumerate(zip(complete, stored, strict=False))
                      if a != _plain(b)), min(len(complete), len(stored)))
        problems.append(f"the record is not its own complete log from seq {first + 1}")
    if played is not None:
        full = {ln.seq: _plain(ln) for ln in normalize_lines(list(enumerate(played, start=1)))}
        last = max(answered, default=1)
        for seq, line in by_seq.items():
            if seq <= last and full.get(seq) != line:
                problems.append(f"seq {seq} is not the game's line: {line} (the game: "
                                f"{full.get(seq)})")
                break
    return problems


def main(argv: list[str]) -> int:
    store, rounds = argv[0], int(argv[1])
    seed = int(argv[2]) if len(argv) > 2 else 0
    whole = 0
    for k in range(rounds):
        mode = MODES[k % 2]
        result = race_round(store, seed + k, f"race-{seed + k}-{random.getrandbits(24):06x}",
                            mode)
        whole += result.whole
        print(result, flush=True)
    print(f"{whole} of {rounds} rounds whole")
    return 0 if whole == rounds else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
