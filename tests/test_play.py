"""``coreflow play``: a table recorded live, line by line, through the real command.

The strongest check: a simulated game of each game, written in the notation with every
line the rules derive left out, piped into ``coreflow play``, leaves in the store exactly
the complete log the simulator wrote (``coreflow log`` = ``coreflow normalize``).
"""

from __future__ import annotations

import codecs
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.judge import judge_lines, normalize_lines
from coreflow_judge.adjudicator.ledger import DERIVABLE
from coreflow_judge.adjudicator.live import LiveTable
from coreflow_judge.adjudicator.notation import (
    NotationError,
    TableView,
    read_notation,
    split_words,
    to_notation,
)
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.cli.play import Output
from coreflow_judge.cli.session import Session, Speaker
from coreflow_judge.events.models import LogLine, MatchStarted, Pass, TakenBack
from coreflow_judge.events.reader import LineError, read_log
from coreflow_judge.events.store import open_recorder
from coreflow_judge.projections.board import BoardProjector

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "fixtures" / "sample-match.jsonl"
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"
POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")
COREFLOW = [sys.executable, "-m", "coreflow_judge.cli.main"]


def coreflow(*args: str | Path, stdin: str | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command, in a process of its own."""
    done = subprocess.run([*COREFLOW, *(str(a) for a in args)], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def simulated(game: str, edition: str, fmt: str, seed: int) -> list[LogLine]:
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    return plugin.simulate(edition, fmt, seed, f"live-{game}-{fmt}-{seed}")


def notation_of(lines: list[LogLine]) -> str:
    """The header as JSON, then every line the table decides in the notation; what the
    rules derive (chance moves, staging, turn starts, the end) is left out, trigger lines
    kept (they name the triggered requests)."""
    out = [lines[0].model_dump_json(exclude_none=True, exclude={"hash"})]
    out += [to_notation(ln) for ln in lines[1:]
            if ln.type not in DERIVABLE or ln.type == "trigger"]
    return "\n".join(out) + "\n"


def jsonl(lines: list[LogLine]) -> str:
    from coreflow_judge.events.reader import dump_line

    previous: str | None = None
    out = []
    for line in lines:
        text, previous = dump_line(line, previous)
        out.append(text)
    return "\n".join(out) + "\n"


GAMES = [
    ("blackpoker", "9.0", "lite", 11),
    ("blackpoker", "6.1", "standard", 12),
    ("blackpoker", "6.1", "extra", 13),
    ("duel_masters", "1.47", "standard", 14),
    ("i_language", "1", "standard", 15),
]


@pytest.mark.parametrize(("game", "edition", "fmt", "seed"), GAMES)
def test_a_game_typed_in_the_notation_is_recorded_as_its_complete_log(
        tmp_path: Path, game: str, edition: str, fmt: str, seed: int) -> None:
    lines = simulated(game, edition, fmt, seed)
    store = tmp_path / "live.db"
    typed = notation_of(lines)
    done = coreflow("play", "--store", store, stdin=typed)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    answers = done.stdout.splitlines()
    assert len(answers) == len(typed.splitlines())  # one answer per input line
    assert all(a.startswith("ok ") for a in answers), [a for a in answers if "ok" not in a]
    header = lines[0]
    assert isinstance(header, MatchStarted)
    exported = coreflow("log", header.match_id, "--store", store)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == jsonl(lines)
    # The receipt names the head hash of what was stored.
    assert re.search(r"head hash [0-9a-f]{64}", done.stderr)


def test_a_piped_log_is_stored_as_normalize_prints_it(tmp_path: Path) -> None:
    store = tmp_path / "piped.db"
    done = coreflow("play", "--store", store, stdin=SAMPLE.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    exported = coreflow("log", "sample-2026-r3-t7", "--store", store).stdout
    assert exported == coreflow("normalize", SAMPLE).stdout
    assert coreflow("verify", "sample-2026-r3-t7", "--store", store).returncode == 0


def test_a_sparse_log_gets_its_derived_lines_as_play_goes(tmp_path: Path) -> None:
    """The disputed example leaves out the staging, chance moves and turn start: play
    stores them before the line that follows them, as normalize fills them in."""
    store = tmp_path / "sparse.db"
    done = coreflow("play", "--store", store, "--keep-mistakes",
                    stdin=DISPUTED.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "with " in done.stdout  # derived lines announced with the line they precede
    assert coreflow("log", "demo-1", "--store", store).stdout == coreflow(
        "normalize", DISPUTED).stdout


BP_SESSION = """\
start alice
alice set_bulwark L card=alice:H2
resolve r1
alice summon_soldier S9 B:H2 L
bob pass
alice pass
bob pass
resolve r2
alice end
"""


def test_a_line_that_breaks_a_rule_is_refused_and_nothing_of_it_is_stored(
        tmp_path: Path) -> None:
    store = tmp_path / "table.db"
    done = coreflow("play", "--store", store, "--match-id", "t1", "--rules", "9.0",
                    "--player", "alice", "--player", "bob", stdin=BP_SESSION)
    answers = done.stdout.splitlines()
    assert answers[0].startswith("ok 1: match t1 started (blackpoker/9.0, lite")
    # `bob pass` while alice holds the chance: refused, with the rule it breaks.
    refused = [a for a in answers if a.startswith("refused:")]
    assert len(refused) == 1 and "(timing.no-chance)" in refused[0], answers
    assert done.returncode == 1  # a line was refused; the others are recorded
    report = coreflow("judge", "t1", "--store", store, "--format", "json")
    data = json.loads(report.stdout)
    assert [f for f in data["findings"] if f["severity"] == "error"] == []
    log = coreflow("log", "t1", "--store", store).stdout
    assert '"player":"bob"' in log and log.count('"type":"pass"') == 2


def test_keep_mistakes_records_the_line_with_its_finding(tmp_path: Path) -> None:
    store = tmp_path / "table.db"
    done = coreflow("play", "--store", store, "--match-id", "t2", "--rules", "9.0",
                    "--player", "alice", "--player", "bob", "--keep-mistakes",
                    stdin=BP_SESSION)
    assert done.returncode == 0, done.stdout
    assert "error timing.no-chance" in done.stdout
    report = json.loads(coreflow("judge", "t2", "--store", store, "--format", "json").stdout)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["timing.no-chance"]
    # The finding names the line the table's answer named.
    said = re.search(r"ok (\d+): bob passes; [^\n]*error timing.no-chance", done.stdout)
    assert said is not None and errors[0]["seq"] == int(said.group(1))


def test_undo_appends_a_correction_the_judge_and_the_board_skip(tmp_path: Path) -> None:
    store = tmp_path / "undo.db"
    session = BP_SESSION.replace("resolve r2\n", "resolve r2\nalice summon_soldier S3 B:H2 L\n"
                                 "undo wrong card\n")
    done = coreflow("play", "--store", store, "--match-id", "t3", "--rules", "9.0",
                    "--player", "alice", "--player", "bob", "--keep-mistakes", stdin=session)
    assert "taken back: 1 line (the table goes on" in done.stdout
    with open_recorder(str(store), read_only=True) as recorder:
        lines = recorder.lines("t3")
    corrections = [ln for ln in lines if isinstance(ln, TakenBack)]
    assert len(corrections) == 1 and corrections[0].reason == "wrong card"
    taken = lines[corrections[0].seq - 2]
    assert taken.type == "request" and getattr(taken, "key_cards", None) == ["alice:S3"]
    report = judge_lines(enumerate(lines, start=1))
    codes = [f.code for f in report.findings]
    assert "log.taken-back" in codes
    assert "legality.key-card-invalid" not in codes  # the taken-back S3 is never judged
    board = BoardProjector.from_lines(lines).at()
    assert all(r["request"] != taken.request for r in board["stage"])  # type: ignore[union-attr]
    assert coreflow("verify", "t3", "--store", store).returncode == 0


def test_resume_goes_on_from_the_store(tmp_path: Path) -> None:
    lines = simulated("blackpoker", "9.0", "lite", 21)
    typed = notation_of(lines).splitlines(keepends=True)
    store = tmp_path / "resume.db"
    half = len(typed) // 2
    first = coreflow("play", "--store", store, stdin="".join(typed[:half]))
    assert first.returncode == 0, first.stdout[-500:]
    header = lines[0]
    assert isinstance(header, MatchStarted)
    second = coreflow("play", "--store", store, "--resume", header.match_id,
                      stdin="".join(typed[half:]))
    assert second.returncode == 0, second.stdout[-500:]
    assert second.stdout.startswith(f"resumed {header.match_id} at seq ")
    assert coreflow("log", header.match_id, "--store", store).stdout == jsonl(lines)


def test_a_new_match_under_a_recorded_id_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "twice.db"
    args: list[str | Path] = ["play", "--store", store, "--match-id", "same", "--rules",
                              "9.0", "--player", "alice", "--player", "bob"]
    assert coreflow(*args, stdin="start alice\n").returncode == 0
    again = coreflow(*args, stdin="start bob\n")
    assert again.returncode == 2
    assert again.stderr.strip().endswith(
        "match 'same' is already recorded; coreflow play --resume same goes on with it")
    assert coreflow("play", "--store", store, "--resume", "nope", stdin="").returncode != 0


@pytest.mark.parametrize(("args", "message"), [
    (["--match-id", "x", "--player", "a", "--player", "b"], "to start a match give --rules"),
    (["--rules", "chess/1", "--match-id", "x", "--player", "a", "--player", "b"],
     "--rules 'chess/1': no game 'chess' is installed; the games: blackpoker/6.1, "
     "blackpoker/9.0 (or 6.1, 9.0); duel_masters/1.47; i_language/1"),
    (["--rules", "chess", "--match-id", "x", "--player", "a", "--player", "b"],
     "--rules 'chess': no game is named 'chess', and BlackPoker has no edition 'chess'; "
     "the games: blackpoker/6.1"),
    (["--rules", "9.0", "--match-id", "x y", "--player", "a", "--player", "b"], "match_id"),
])
def test_a_bad_header_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                            message: str) -> None:
    done = coreflow("play", "--store", tmp_path / "h.db", *args, stdin="")
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_unreadable_lines_are_answered_and_the_rest_recorded(tmp_path: Path) -> None:
    store = tmp_path / "words.db"
    typed = "start alice\nalice fly S9\nalice summon_soldier S9 B:H2 L card=[\nalice pass\n"
    done = coreflow("play", "--store", store, "--match-id", "w", "--rules", "9.0",
                    "--player", "alice", "--player", "bob", stdin=typed)
    answers = done.stdout.splitlines()
    assert answers[2].startswith("unread: 'fly' is no action of this format")
    assert answers[3].startswith("unread: a quote, bracket or brace is not closed")
    assert answers[4].startswith("ok ")
    assert done.returncode == 1


def test_json_answers_one_object_per_line(tmp_path: Path) -> None:
    done = coreflow("play", "--store", tmp_path / "j.db", "--match-id", "j", "--rules",
                    "9.0", "--player", "alice", "--player", "bob", "--format", "json",
                    stdin="start alice\nbob pass\nlegal\n")
    objs = [json.loads(x) for x in done.stdout.splitlines()]
    assert [o["status"] for o in objs] == ["ok", "ok", "refused", "info"]
    assert objs[1]["stored"][0]["type"] == "game_started"
    assert objs[2]["findings"][0]["code"] == "timing.no-chance"
    assert "alice pass   (alice holds the chance)" in objs[3]["legal"]


def test_two_tables_on_one_match_one_wins_and_the_other_is_told(tmp_path: Path) -> None:
    """Two sessions on the same match (two scorekeepers): the second one's line loses the
    race, is not recorded, and that session reads the match again from the store."""
    store = str(tmp_path / "race.db")
    out: list[str] = []

    class Lines:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    with open_recorder(store) as one, open_recorder(store) as two:
        a = Session(one, Speaker(Lines(), Output.text), False, False)  # type: ignore[arg-type]
        a.start(MatchStarted(seq=1, match_id="race", game="blackpoker", rules="blackpoker/9.0",
                             format="lite", players=["alice", "bob"], log_format=1))
        b = Session(two, Speaker(Lines(), Output.text), False, False)  # type: ignore[arg-type]
        b.resume("race")
        a.take(1, "start alice")
        b.take(1, "start bob")
        assert out[-1].startswith("conflict: another writer appended to this match first")
        b.take(2, "alice pass")  # b now reads the table as a stored it
        assert out[-1].startswith("ok ")
        lines = one.lines("race")
    assert [ln.type for ln in lines][:2] == ["match_started", "game_started"]
    assert lines[1].first_player == "alice"  # type: ignore[union-attr]


# ---------------------------------------------------------------- the notation itself


def _view(lines: list[LogLine]) -> TableView:
    table = LiveTable(lines[:1], lambda _l: None)
    return table.view()


@pytest.mark.parametrize(("game", "edition", "fmt", "seed"), GAMES)
def test_every_line_reads_back_from_its_notation(game: str, edition: str, fmt: str,
                                                 seed: int) -> None:
    lines = simulated(game, edition, fmt, seed)
    view = _view(lines)
    for line in lines[1:]:
        text = to_notation(line)
        assert read_notation(text, view, line.seq) == line.model_copy(update={"hash": None}), text


def test_words_keep_json_whole() -> None:
    assert split_words('resolve r3 effects=[{"op": "negate", "request": "r2"}] x="a b"') == [
        "resolve", "r3", 'effects=[{"op": "negate", "request": "r2"}]', 'x="a b"']
    assert split_words('bob pass "スルー"') == ["bob", "pass", "スルー"]


def test_japanese_action_names_and_defaults() -> None:
    header = read_log(DISPUTED)[0][1]
    assert isinstance(header, MatchStarted)
    view = _view([header])
    line = read_notation("alice 兵士召喚 S9 B:H2 L", view, 7)
    assert line.model_dump(exclude_none=True) == {
        "seq": 7, "type": "request", "request": "r1", "player": "alice",
        "action": "summon_soldier", "key_cards": ["alice:S9"],
        "costs": [{"kind": "B", "ref": "alice:H2"}, {"kind": "L", "ref": "alice:?"}],
        "targets": []}
    with pytest.raises(NotationError, match="'carol' is no player"):
        read_notation("carol pass", view, 7)
    assert read_notation("bob pass スルー", view, 8) == Pass(seq=8, player="bob", note="スルー")


# ---------------------------------------------------------------- a terminal


@contextmanager
def terminal(*args: str) -> Iterator[int]:
    """``coreflow ARGS`` run on a pseudo-terminal (from the repository's root): the
    terminal's file descriptor; the command is killed when the block ends."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command on the terminal
        os.chdir(ROOT)
        os.execv(sys.executable, [*COREFLOW, *args])
    try:
        yield fd
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)


def _read_until(fd: int, pattern: str, timeout: float = 60) -> str:
    # One decoder for the whole read: a character's bytes may arrive in two reads.
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    seen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = decode(os.read(fd, 4096))
        except OSError:
            break
        seen += chunk
        if re.search(pattern, seen):
            return seen
    raise AssertionError(f"never saw {pattern!r}; got {seen[-800:]!r}")


def test_an_interactive_session_through_a_pseudo_terminal(tmp_path: Path) -> None:
    """A scorekeeper at a terminal: a prompt with the table's state, tab completion of
    commands and actions, answers as they type, the store updated line by line."""
    store = tmp_path / "tty.db"
    with terminal("play", "--store", str(store), "--match-id", "tty", "--rules", "9.0",
                  "--player", "alice", "--player", "bob") as fd:
        _read_until(fd, r"\[turn 0 - · chance - · stage -\] > ")
        os.write(fd, b"start alice\r")
        _read_until(fd, r"ok 2: the game starts, alice first.*\n.*chance alice.*> ")
        os.write(fd, b"leg\t\r")  # completes to 'legal'
        seen = _read_until(fd, r"alice pass   \(alice holds the chance\)(.|\n)*> ")
        assert 'alice set_bulwark L card="alice:?"   (Set Bulwark 防壁設置; instant' in seen
        os.write(fd, b"alice set_bul\t L card=alice:H2\r")  # completes the action
        _read_until(fd, r"ok 5: alice requests set_bulwark as r1.*then, filled in \(no "
                        r"decision\): 6 r1 resolved(.|\n)*> ")
        os.write(fd, b"resolve r1\r")  # said again: it stands for the line filled in
        _read_until(fd, r"ok 6: r1 resolved(.|\n)*> ")
        os.write(fd, b"bob pass\r")
        _read_until(fd, r"refused: bob does not hold the chance: alice does \(timing.no-chance"
                    r"\)(.|\n)*> ")
        with open_recorder(str(store), read_only=True) as recorder:  # stored already
            assert [ln.type for ln in recorder.lines("tty")][-2:] == ["request", "resolve"]
        os.write(fd, b"quit\r")
        _read_until(fd, r"head hash [0-9a-f]{64}")


# ---------------------------------------------------------------- PostgreSQL


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_play_on_postgresql(tmp_path: Path) -> None:
    assert POSTGRES_URL
    lines = simulated("duel_masters", "1.47", "standard", 31)
    match_id = f"pg-live-{uuid.uuid4().hex[:10]}"
    lines = [lines[0].model_copy(update={"match_id": match_id}), *lines[1:]]
    done = coreflow("play", "--store", POSTGRES_URL, stdin=notation_of(lines))
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr
    assert coreflow("log", match_id, "--store", POSTGRES_URL).stdout == jsonl(
        normalize_lines(enumerate(lines, start=1)))


# ---------------------------------------------------------------- corrections in any log


def _written(log: Path) -> list[LogLine]:
    """The lines of a log file (every one readable)."""
    out: list[LogLine] = []
    for _no, item in read_log(log):
        assert not isinstance(item, LineError), item
        out.append(item)
    return out


def _disputed_lines() -> list[LogLine]:
    return _written(DISPUTED)


def test_a_correction_in_a_log_file_is_read_the_same_by_judge_board_and_normalize(
        tmp_path: Path) -> None:
    """Bob's counter (line 8) taken back at the table: judged as if never played, kept in
    the complete log, and the board after it is the board before it."""
    lines = _disputed_lines()
    corrected = [*lines[:8], TakenBack(seq=9, lines=1, reason="wrong card"),
                 *(ln.model_copy(update={"seq": ln.seq + 1}) for ln in lines[8:])]
    # The rest of the log went on with the counter; without it, bob's and alice's passes
    # resolve the summon: judge the head of the log only.
    head = corrected[:9]
    report = judge_lines(enumerate(head, start=1))
    assert [(f.code, f.seq, f.severity) for f in report.findings if f.code.startswith("log.t")] \
        == [("log.taken-back", 9, "info")]
    assert report.errors == 0
    board = BoardProjector.from_lines(head)
    assert board.at(9)["stage"] == board.at(7)["stage"]
    complete = normalize_lines(enumerate(head, start=1))
    assert [ln.type for ln in complete][-2:] == ["request", "taken_back"]
    # The complete log reads back the same: the correction still names the same line.
    again = judge_lines(enumerate(complete, start=1))
    assert [f.code for f in again.findings] == [f.code for f in report.findings]


def test_a_correction_of_more_lines_than_stand_takes_back_nothing() -> None:
    lines = _disputed_lines()[:3]
    bad = [*lines, TakenBack(seq=4, lines=5)]
    report = judge_lines(enumerate(bad, start=1))
    assert [(f.code, f.seq) for f in report.findings if f.severity == "error"] == [
        ("log.malformed", 4)]


def test_a_correction_is_audited_as_an_event_and_its_lines_are_not_judged(
        tmp_path: Path) -> None:
    store = tmp_path / "audit.db"
    session = BP_SESSION.replace("alice end\n", "alice end\nundo\n")
    coreflow("play", "--store", store, "--match-id", "a1", "--rules", "9.0",
             "--player", "alice", "--player", "bob", stdin=session)
    done = coreflow("audit", "--store", store, "--format", "json",
                    "select e.seq, e.type, f.code from events e join findings f on "
                    "f.match_id = e.match_id and f.seq = e.seq where e.match_id = 'a1' "
                    "and e.type = 'taken_back'")
    assert done.returncode == 0, done.stderr
    assert [(r["type"], r["code"]) for r in map(json.loads, done.stdout.splitlines())] == [
        ("taken_back", "log.taken-back")]


# ---------------------------------------------------------------- the documented sessions

DOC_HEADERS = {
    "BlackPoker": DISPUTED,
    "Duel Masters": ROOT / "fixtures" / "rulings" / "duel_masters"
    / "aura-on-opponents-creature.jsonl",
    "The i-language game": ROOT / "fixtures" / "rulings" / "i_language"
    / "ability-timing-not-main.jsonl",
}


def test_every_session_in_docs_play_md_is_taken_line_by_line(tmp_path: Path) -> None:
    """The notation examples of docs/play.md, each game's block typed after a header of
    that game: every line is accepted (the text after two blanks is the doc's comment)."""
    text = (ROOT / "docs" / "play.md").read_text(encoding="utf-8")
    blocks = re.findall(r"### (.*?)\n.*?```text\n(.*?)```", text, re.S)
    assert [name for name, _ in blocks] == list(DOC_HEADERS)
    for name, body in blocks:
        header = json.loads(DOC_HEADERS[name].read_text(encoding="utf-8").splitlines()[0])
        header["match_id"] = "doc-" + re.sub(r"\W", "", name).lower()
        typed = [re.split(r"\s{2,}", ln)[0] for ln in body.splitlines() if ln.strip()]
        done = coreflow("play", "--store", tmp_path / "doc.db",
                        stdin=json.dumps(header) + "\n" + "\n".join(typed) + "\n")
        answers = done.stdout.splitlines()
        assert done.returncode == 0, (name, done.stdout)
        assert len(answers) == len(typed) + 1 and all(a.startswith("ok ") for a in answers)


def test_the_readme_session_answers_as_the_readme_shows(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    part = text[text.index("## Record at the table"):]
    typed, shown = re.findall(r"```text\n(.*?)```", part, re.S)[:2]
    done = coreflow("play", "--store", tmp_path / "readme.db", "--match-id", "table-7",
                    "--rules", "9.0", "--player", "alice", "--player", "bob", stdin=typed)
    assert done.stdout == shown
    assert done.returncode == 1  # bob's pass was refused


# ---------------------------------------------------------------- the table's numbers


@pytest.mark.parametrize("log", [
    DISPUTED,
    ROOT / "fixtures" / "rulings" / "lite" / "g2-cut-in-ends-call-6.1.jsonl",
    ROOT / "fixtures" / "rulings" / "duel_masters" / "aura-on-opponents-creature.jsonl",
])
def test_a_recorded_match_is_judged_and_shown_by_the_numbers_of_the_tables_log(
        tmp_path: Path, log: Path) -> None:
    """Recorded, a sparse log gets its derived lines; judging the record still names the
    lines the table's file names, and board --at N is the same moment as for the file."""
    store = tmp_path / "numbers.db"
    recorded = coreflow("record", log, "--store", store)
    assert recorded.returncode == 0, recorded.stderr
    match_id = recorded.stdout.strip()

    def findings(target: str | Path) -> list[tuple[str, int]]:
        done = coreflow("judge", target, "--store", store, "--format", "json")
        return [(f["code"], f["seq"]) for f in json.loads(done.stdout)["findings"]]

    assert findings(match_id) == findings(log)
    written = _written(log)
    assert len(coreflow("log", match_id, "--store", store).stdout.splitlines()) > len(written)
    for seq in (3, len(written) // 2, len(written)):
        on_file = json.loads(coreflow("board", log, "--at", str(seq), "--format",
                                      "json").stdout)
        on_record = json.loads(coreflow("board", match_id, "--at", str(seq), "--store",
                                        store, "--format", "json").stdout)
        for key in ("log", "store"):
            on_file.pop(key, None)
            on_record.pop(key, None)
        assert on_record == on_file, seq
    # The audit shows both numberings: NULL for the lines the rules derived.
    done = coreflow("audit", "--store", store, "--format", "json",
                    f"select seq, table_seq from events where match_id = '{match_id}'")
    rows = [json.loads(x) for x in done.stdout.splitlines()]
    assert [r["table_seq"] for r in rows if r["table_seq"] is not None] == [
        ln.seq for ln in written]


@pytest.mark.parametrize(("game", "edition", "fmt", "seed"), GAMES[::2] + GAMES[3:4])
def test_in_every_game_an_illegal_line_is_refused_or_kept_on_purpose(
        tmp_path: Path, game: str, edition: str, fmt: str, seed: int) -> None:
    """A pass by the player who does not hold the chance, typed into each game: refused
    (the record is the game as played without it), or kept with its finding."""
    lines = simulated(game, edition, fmt, seed)
    typed = notation_of(lines).splitlines()
    header = lines[0]
    assert isinstance(header, MatchStarted)
    at = next(i for i, t in enumerate(typed)
              if t.startswith("start ") or '"type":"game_started"' in t) + 1
    holder = next(getattr(ln, "first_player", None) for ln in lines
                  if ln.type == "game_started")
    other = next(p for p in header.players if p != holder)
    wrong = [*typed[:at], f"{other} pass", *typed[at:]]
    refused = coreflow("play", "--store", tmp_path / "refused.db",
                       stdin="\n".join(wrong) + "\n")
    assert refused.returncode == 1
    others = [a for a in refused.stdout.splitlines() if not a.startswith("ok ")]
    assert len(others) == 1 and others[0].startswith(
        f"refused: {other} does not hold the chance: {holder} does (timing.no-chance); "
        f"nothing was recorded. Now: {holder} pass · "), others
    assert coreflow("log", header.match_id, "--store", tmp_path / "refused.db").stdout == \
        jsonl(lines)
    kept = coreflow("play", "--store", tmp_path / "kept.db", "--keep-mistakes",
                    stdin="\n".join(wrong[:at + 1]) + "\n")
    assert kept.returncode == 0 and "error timing.no-chance" in kept.stdout
    report = json.loads(coreflow("judge", header.match_id, "--store", tmp_path / "kept.db",
                                 "--format", "json").stdout)
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == [
        "timing.no-chance"]
