"""What a hostile log or input line does to the commands (issue 23): each test does what the
attacker did, through the real command.

- one hostile line typed into ``play`` (nesting 2,000 deep, a 5,000-digit number in a
  choice, ``undo N`` or ``roll dN``, bytes that are not UTF-8) is answered with its reason
  and the session goes on, on a terminal and piped (item 5); ``undo 0`` is refused as
  such, and a 100 KB header value is echoed by its start only (item 10);
- a player or card the log names that is no player's (players renamed in the header, a
  trigger of nobody) is a finding, never an internal error, in ``judge``, ``board`` and
  ``record`` (item 6);
- a fake verdict: names are a printable vocabulary (refused otherwise, naming the field),
  and every text output escapes what a log says (item 7).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import games
from coreflow_judge.events.reader import iter_lines
from coreflow_judge.projections.board import BoardProjector

from tests.test_play import _read_until, terminal

ROOT = Path(__file__).resolve().parent.parent
RULINGS = ROOT / "fixtures" / "rulings"
COREFLOW = [sys.executable, "-m", "coreflow_judge.cli.main"]


def coreflow(*args: str | Path, stdin: str | bytes | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own (stdout and stderr as text)."""
    done = subprocess.run([*COREFLOW, *(str(a) for a in args)],
                          input=stdin.encode("utf-8") if isinstance(stdin, str) else stdin,
                          capture_output=True, timeout=timeout, cwd=ROOT)
    out = subprocess.CompletedProcess(done.args, done.returncode,
                                      done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    return out


# ------------------------------------------------------------------ item 6: unknown refs


@pytest.mark.parametrize("log", [
    RULINGS / "master" / "throwing-at-a-player-not-in-the-match.jsonl",
    RULINGS / "lite" / "trigger-of-no-player.jsonl",
])
def test_a_ref_to_no_player_is_a_finding_in_judge_board_and_record(
        tmp_path: Path, log: Path) -> None:
    """A 6.1 master game whose players were renamed (ann, ben) but whose Throwing still
    targets bob, and a trigger line whose controller is nobody: ``judge``, ``board`` and
    ``record`` answer (it used to be ``internal error (KeyError): 'bob'``)."""
    judged = coreflow("judge", log, "--format", "json")
    assert judged.returncode == 1
    codes = [f["code"] for f in json.loads(judged.stdout)["findings"]]
    assert "log.unknown-ref" in codes
    assert coreflow("board", log).returncode == 0
    recorded = coreflow("record", log, "--store", tmp_path / "s.db")
    assert recorded.returncode == 0, recorded.stderr


def _renamed(lines: list[dict[str, Any]], rnd: random.Random) -> list[dict[str, Any]]:
    """The attack: every player renamed but in one line, whose player or card refs keep
    (or get) a name that is no player's; the log cut somewhere after it."""
    players = lines[0]["players"]
    new = {p: f"{p}2" for p in players}
    text = json.dumps(lines)
    for p, q in new.items():
        text = text.replace(f'"{p}"', f'"{q}"').replace(f'"{p}:', f'"{q}:')
    out: list[dict[str, Any]] = json.loads(text)
    named = [i for i, d in enumerate(lines) if i > 0 and any(
        f'"{p}"' in json.dumps(d) or f'"{p}:' in json.dumps(d) for p in players)]
    i = rnd.choice(named)
    out[i] = lines[i]  # the line the renaming missed
    return out[:rnd.randrange(i + 1, len(out) + 1)]


def test_refs_to_no_player_in_simulated_games_are_findings() -> None:
    """Every simulated game of every game and format, each with one line whose refs name
    no player of the match (the rest renamed): judged and shown, never a KeyError."""
    rnd = random.Random(23)
    tried = 0
    for game in games():
        if game.simulate is None:
            continue
        for edition in game.editions:
            for fmt in game.formats:
                try:
                    lines = game.simulate(edition, fmt, 3, "refs")
                except Exception:  # noqa: BLE001 - a format its simulator does not play
                    continue
                plain = [ln.model_dump(mode="json", exclude_none=True, exclude={"hash"})
                         for ln in lines]
                for _ in range(4):
                    items = list(iter_lines(json.dumps(d) for d in _renamed(plain, rnd)))
                    report = judge_lines(items)
                    assert any(f.severity == "error" for f in report.findings)
                    BoardProjector(items).at(None)
                    tried += 1
    assert tried >= 40


# ------------------------------------------------------------------ items 5 and 10: play

DEEP = "[" * 2000 + "]" * 2000
BIG = "9" * 5000
ATTACKS: list[tuple[bytes, str]] = [
    (f"resolve r1 x={DEEP}".encode(), r"unread: nested deeper than 16 levels"),
    (f"resolve r1 name={BIG}".encode(), r"unread: a number too large"),
    (f"undo {BIG}".encode(), r"refused: fewer than 10\^9 entries"),
    (f"alice roll d{BIG} 1".encode(), r"unread: a roll is 'PLAYER roll dSIDES RESULT'"),
    (b"alice pass \xff\xfe", r"unread: not UTF-8"),
    (b"undo 0", r"refused: undo N takes back the last N entries: N is 1 or more"),
    (f'{{"type":"pass","player":"alice","x":{DEEP}}}'.encode(),
     r"unread: nested deeper than 16 levels"),
]
"""What the attacker typed, and the start of the answer each gets."""


def test_hostile_lines_piped_into_play_are_answered_and_play_goes_on(tmp_path: Path) -> None:
    """Piped: each attack is answered with its reason; the line after it is taken."""
    script = b"start alice\n" + b"".join(line + b"\nalice pass\nundo\n" for line, _ in ATTACKS)
    done = coreflow("play", "--store", tmp_path / "p.db", "--match-id", "hostile", "--rules",
                    "9.0", "--player", "alice", "--player", "bob", stdin=script)
    assert done.returncode == 1, done.stderr  # lines were refused; the session went on
    answers = done.stdout.splitlines()[2:]
    for k, (_line, said) in enumerate(ATTACKS):
        attack, after, undone = answers[3 * k:3 * k + 3]
        assert re.match(said, attack), (said, attack[:200])
        assert after.startswith("ok ") and "alice passes" in after, after
        assert undone.startswith("ok ") and "taken back" in undone, undone
    assert all(len(a) < 2200 for a in answers)


def test_hostile_lines_typed_on_a_terminal_are_answered_and_play_goes_on(
        tmp_path: Path) -> None:
    """The same attacks typed on a terminal (a pseudo-terminal, readline's line editing):
    each answered, the prompt back, and the next line taken."""
    with terminal("play", "--store", str(tmp_path / "t.db"), "--match-id", "tty",
                  "--rules", "9.0", "--player", "alice", "--player", "bob") as fd:
        _read_until(fd, r"\] > ")
        os.write(fd, b"start alice\r")
        _read_until(fd, r"ok 2: the game starts(.|\n)*\] > ")
        for line, said in ATTACKS:
            os.write(fd, line + b"\r")
            _read_until(fd, said + r"(.|\n)*\] > ")
            os.write(fd, b"alice pass\r")
            _read_until(fd, r"ok \d+: alice passes(.|\n)*\] > ")
            os.write(fd, b"undo\r")
            _read_until(fd, r"ok \d+: taken back(.|\n)*\] > ")
        os.write(fd, b"quit\r")
        _read_until(fd, r"head hash [0-9a-f]{64}")


def test_a_bad_header_echoes_a_long_value_by_its_start(tmp_path: Path) -> None:
    """A 100 KB value in a bad header (an unknown field's name, a type, a deck's owner,
    ``--resume``) is echoed on one stderr line by its start and how much was left out."""
    header = {"type": "match_started", "match_id": "h", "game": "blackpoker",
              "rules": "blackpoker/9.0", "format": "lite", "players": ["alice", "bob"],
              "log_format": 1}
    long = "y" * 100_000
    cases = [{**header, long: 1}, {**header, "type": long},
             {**header, "decks": {long: ["S1"]}}]
    for case in cases:
        done = coreflow("play", "--store", tmp_path / "h.db", stdin=json.dumps(case) + "\n")
        assert done.returncode == 2
        (line,) = done.stderr.splitlines()
        assert len(line) < 2200, len(line)
    done = coreflow("play", "--store", tmp_path / "h.db", "--resume", long)
    (line,) = done.stderr.splitlines()
    assert done.returncode != 0 and len(line) < 2200 and "more characters]" in line


# ------------------------------------------------------------------ item 7: fake verdicts

FAKE = "\n\nresult: alice wins (the judge agrees)\n0 errors, 0 warnings"
"""What a hostile string says, on lines of its own, to look like the judge's verdict."""
HIDDEN = ["\r", "\x1b[2K", "\x1b[8m", "\u202e", "\u200b", "\u2028", "\x00"]


def _printable_lines(text: str) -> None:
    """Every character printable, newlines apart; one verdict line at most."""
    bad = [c for c in text if c != "\n" and (not c.isprintable()
                                             or unicodedata.category(c) in ("Cf", "Co", "Cn"))]
    assert not bad, bad[:5]
    assert len(re.findall(r"^result: ", text, re.M)) <= 1, text[-600:]
    assert not re.search(r"^0 errors, 0 warnings$", text, re.M), text[-600:]


@pytest.mark.parametrize("name", ["alice\nresult: alice wins", "alice\r", "\x1b[31malice",
                                  "\u202ealice", "alice\u200b", "ali ce", "Alice", "ａｌｉｃｅ"])
def test_a_player_name_that_is_not_a_name_is_refused_naming_the_field(
        tmp_path: Path, name: str) -> None:
    """``alice`` and ``alice\u200b`` (or ``Alice``, full-width ``ａｌｉｃｅ``) are not two
    players; a name with a newline, a carriage return, an escape or an override is no
    name. ``judge`` refuses the header in one escaped line naming the field."""
    header = {"seq": 1, "type": "match_started", "match_id": "n", "game": "blackpoker",
              "rules": "blackpoker/9.0", "format": "lite", "players": ["alice", name],
              "log_format": 1}
    if name == "alice\nresult: alice wins":
        header["players"] = [name, "bob"]
    log = tmp_path / "names.jsonl"
    log.write_text(json.dumps(header) + "\n", encoding="utf-8")
    done = coreflow("judge", log)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "field 'players" in line, line
    _printable_lines(line)


def _fake_log(tmp_path: Path) -> Path:
    """The README's disputed game with the fake verdict and hidden characters in what a
    log may say freely: a claimed effect's operand, a pass's note, the recorded end."""
    lines = [json.loads(x) for x in (ROOT / "fixtures" / "examples" / "disputed-counter.jsonl")
             .read_text(encoding="utf-8").splitlines()]
    hidden = "".join(HIDDEN)
    lines[10]["effects"] = [{"op": "negate", "request": "r2" + FAKE + hidden}]
    lines[6]["note"] = FAKE + hidden
    lines.append({"seq": 13, "type": "game_ended", "result": "win", "winner": "alice",
                  "reason": hidden + FAKE})
    log = tmp_path / "fake.jsonl"
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return log


def test_a_fake_verdict_in_a_log_is_printed_escaped_by_every_text_output(
        tmp_path: Path) -> None:
    """``judge``, ``board``, ``matches``, ``play``, the audit's table and the viewer print
    what the log says escaped: no fake line, no carriage return, no escape, no override.
    The JSON outputs are the same values, with the unprintable ones as JSON escapes."""
    log = _fake_log(tmp_path)
    store = tmp_path / "fake.db"
    judged = coreflow("judge", log)
    assert judged.returncode == 1
    _printable_lines(judged.stdout)
    assert judged.stdout.rstrip().endswith("2 errors, 2 warnings")
    assert "\\nresult: alice wins" in judged.stdout  # shown, escaped
    _printable_lines(coreflow("board", log).stdout)
    as_json = coreflow("judge", log, "--format", "json").stdout
    _printable_lines(as_json)
    assert json.loads(as_json)["findings"]
    assert coreflow("record", log, "--store", store).returncode == 0
    normalized = coreflow("normalize", log).stdout
    exported = coreflow("log", "demo-1", "--store", store).stdout
    assert exported == normalized  # the same complete log, its chain intact
    _printable_lines(exported)
    assert [json.loads(x).get("note") for x in exported.splitlines()][8] == \
        FAKE + "".join(HIDDEN)  # the same values: only their writing is escaped
    verified = tmp_path / "exported.jsonl"
    verified.write_text(exported, encoding="utf-8")
    assert coreflow("verify", verified).returncode == 0
    _printable_lines(coreflow("matches", "--store", store).stdout)
    _printable_lines(coreflow("board", "demo-1", "--store", store).stdout)
    audited = coreflow("audit", "--store", store, "SELECT recorded_reason FROM matches")
    assert audited.returncode == 0, audited.stderr
    _printable_lines(audited.stdout)
    assert "\\x1b" in audited.stdout
    page = tmp_path / "fake.html"
    assert coreflow("view", log, "--html", page).returncode == 0
    html = page.read_text(encoding="utf-8")
    assert not any(c in html for c in "\u202e\u200b\x1b\r")
    typed = "\n".join(json.dumps(x) for x in [json.loads(ln) for ln in log.read_text(
        encoding="utf-8").splitlines()][:12]) + "\n"
    played = coreflow("play", "--store", tmp_path / "play.db", stdin=typed)
    _printable_lines(played.stdout)
    _printable_lines(played.stderr)
