"""The event store: match records kept as recorded lines, on real persistence."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from coreflow_judge.adjudicator.games.blackpoker.lines import (
    BlackPokerGameStarted,
    BlackPokerMatchStarted,
)
from coreflow_judge.events.models import (
    ChanceMoved,
    Cost,
    Effect,
    GameEnded,
    GameStarted,
    LogLine,
    MatchStarted,
    Pass,
    Request,
    Resolve,
    Stage,
    TurnStarted,
)
from coreflow_judge.events.reader import ZERO_HASH, chain_hash, verify_chain
from coreflow_judge.events.store import (
    RECORDED_LINE_TYPES,
    AppendRejected,
    JSONTranscoder,
    LogRejected,
    MatchAlreadyRecorded,
    MatchNotFound,
    MatchRecord,
    MatchRecorder,
    RecordConflict,
    RecordedLine,
    StoreError,
    StoreUnavailable,
    dump_state,
    match_record_id,
    open_recorder,
    parse_jsonl,
    state_of,
    store_env,
)

POPO = {"PERSISTENCE_MODULE": "eventsourcing.popo"}



def unhashed(lines: list[LogLine]) -> list[LogLine]:
    """Stored lines without the chain hash the store adds to each."""
    return [line.model_copy(update={"hash": None}) for line in lines]

def blackpoker_log(match_id: str = "bp-2026-r1-t3") -> list[LogLine]:
    """A short BlackPoker match: alice attacks, bob lets it resolve, bob concedes."""
    return [
        BlackPokerMatchStarted(
            seq=1,
            match_id=match_id,
            game="blackpoker",
            rules="BlackPoker 9.0",
            format="standard",
            players=["alice", "bob"],
            deck_sizes={"alice": 53, "bob": 53},
            log_format=1,
            at="2026-05-01T10:00:00Z",
        ),
        BlackPokerGameStarted(seq=2, first_player="alice",
                              hands={"alice": ["H7", "S2"], "bob": ["?"]}),
        TurnStarted(seq=3, player="alice", turn=1),
        ChanceMoved(seq=4, to="alice"),
        Request(
            seq=5,
            request="r1",
            player="alice",
            action="attack",
            key_cards=["alice:H7"],
            costs=[Cost(kind="B", ref="alice:S2")],
            targets=["bob"],
            x={"vendor": {"clock_ms": 1200, "comment": None}},
        ),
        Stage(seq=6, request="r1"),
        ChanceMoved(seq=7, to="bob"),
        Pass(seq=8, player="bob"),
        ChanceMoved(seq=9, to="alice"),
        Pass(seq=10, player="alice"),
        Resolve(
            seq=11,
            request="r1",
            result="resolved",
            effects=[Effect.model_validate({"op": "damage", "player": "bob", "amount": 7})],
            note="bob takes 7 — «ouch»",
        ),
    ]


def continuation() -> list[LogLine]:
    """Lines 12 and 13 of the match above."""
    return [
        ChanceMoved(seq=12, to="bob"),
        GameEnded(seq=13, result="win", winner="alice", reason="concession"),
    ]


@pytest.fixture
def popo() -> Iterator[MatchRecorder]:
    with MatchRecorder(env=POPO) as recorder:
        yield recorder


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "coreflow.db")


def stored_rows(recorder: MatchRecorder) -> list[tuple[int, str, int, str, bytes]]:
    """Every stored event of the application, in notification order."""
    return [
        (n.id, str(n.originator_id), n.originator_version, n.topic, n.state)
        for n in recorder.recorder.select_notifications(None, 1_000_000)
    ]


# -------------------------------------------------------------- recording, reading


def test_a_complete_log_reads_back_equal_line_by_line(popo: MatchRecorder) -> None:
    log = blackpoker_log()
    record_id = popo.record(log)

    assert record_id == match_record_id("bp-2026-r1-t3")
    namespace = uuid.UUID("1e7c5292-7b69-596e-abc8-49afe25dd6a8")
    assert record_id == uuid.uuid5(namespace, "bp-2026-r1-t3")
    assert unhashed(popo.lines("bp-2026-r1-t3")) == log
    assert unhashed(popo.lines("bp-2026-r1-t3", upto_seq=5)) == log[:5]
    assert popo.match_ids() == ["bp-2026-r1-t3"]


def test_each_line_is_one_stored_event_at_version_seq(popo: MatchRecorder) -> None:
    log = blackpoker_log()
    popo.record(log)
    rows = stored_rows(popo)

    assert [r[2] for r in rows] == [line.seq for line in log]
    assert {r[1] for r in rows} == {str(match_record_id("bp-2026-r1-t3"))}
    assert [r[3] for r in rows] == [
        f"coreflow_judge.events.store:{RECORDED_LINE_TYPES[line.type].__name__}" for line in log
    ]
    record = popo.load("bp-2026-r1-t3")
    assert isinstance(record, MatchRecord)
    assert record.version == 11
    assert record.match_id == "bp-2026-r1-t3"


def test_the_stored_state_is_the_canonical_line_in_json(popo: MatchRecorder) -> None:
    log = blackpoker_log()
    popo.record(log)
    events = list(popo.events.get(match_record_id("bp-2026-r1-t3")))
    rows = stored_rows(popo)
    transcoder = JSONTranscoder()
    previous = ZERO_HASH
    for event, row, line in zip(events, rows, log, strict=True):
        assert isinstance(event, RecordedLine)
        assert event.line.model_copy(update={"hash": None}) == line
        state = json.loads(row[4])
        # The line, its number in the table's log (here its own: the log is complete) and
        # the mark of the store's format; no record hash, the record chain being the log's.
        assert set(state) == {"timestamp", "line", "table_seq", "store_format"}
        assert (state["table_seq"], state["store_format"]) == (line.seq, 2)
        stored_hash = state["line"].pop("hash")
        assert state["line"] == line.model_dump(mode="json", exclude_none=True)
        # The store's own chain: each stored hash continues the one before it.
        previous = chain_hash(previous, line)
        assert stored_hash == previous
        # pydantic's one-pass dump writes what the transcoder writes of model_dump.
        assert row[4] == dump_state(event) == transcoder.encode(state_of(event))
    assert json.loads(rows[4][4])["line"]["x"] == {"vendor": {"clock_ms": 1200, "comment": None}}


def test_unknown_match_is_not_found(popo: MatchRecorder) -> None:
    with pytest.raises(MatchNotFound, match="'nope' is not recorded"):
        popo.lines("nope")
    with pytest.raises(MatchNotFound):
        popo.export_jsonl("nope")
    with pytest.raises(MatchNotFound):
        popo.append("nope", continuation())
    assert popo.match_ids() == []


def test_match_ids_lists_every_match_in_recording_order(popo: MatchRecorder) -> None:
    for name in ("m-b", "m-a", "m-c"):
        popo.record(blackpoker_log(name))
    popo.append("m-a", continuation())
    assert popo.match_ids() == ["m-b", "m-a", "m-c"]


def test_match_ids_pages_through_the_notification_log(popo: MatchRecorder) -> None:
    popo.notification_page_size = 2
    names = [f"m{i}" for i in range(5)]
    for name in names:
        popo.record(blackpoker_log(name)[:1])
    assert popo.match_ids() == names


# ------------------------------------------------------------------ export, import


def test_export_import_export_is_byte_identical_through_sqlite(tmp_path: Path) -> None:
    first_file = str(tmp_path / "first.db")
    with open_recorder(first_file) as writer:
        writer.record(blackpoker_log())
        exported = writer.export_jsonl("bp-2026-r1-t3")

    # A second recorder on the same file sees the same log.
    with open_recorder(first_file) as reader:
        assert reader.export_jsonl("bp-2026-r1-t3") == exported
        assert unhashed(reader.lines("bp-2026-r1-t3")) == blackpoker_log()

    assert exported.endswith("\n") and not exported.endswith("\n\n")
    assert len(exported.splitlines()) == 11
    lines = parse_jsonl(exported)
    assert not verify_chain(enumerate(lines, start=1))

    with open_recorder(str(tmp_path / "second.db")) as other:
        other.record_jsonl(exported)
        assert other.export_jsonl("bp-2026-r1-t3") == exported
        # And once more, from the re-imported lines (which now carry their hashes).
        with open_recorder(str(tmp_path / "third.db")) as third:
            third.record(other.lines("bp-2026-r1-t3"))
            assert third.export_jsonl("bp-2026-r1-t3").encode() == exported.encode()


def test_import_rejects_a_malformed_line(popo: MatchRecorder) -> None:
    with MatchRecorder(env=POPO) as source:
        source.record(blackpoker_log())
        text = source.export_jsonl("bp-2026-r1-t3")
    broken = text.replace('"type":"pass"', '"type":"pas"', 1)
    with pytest.raises(LogRejected, match="line 8: field 'type'"):
        popo.record_jsonl(broken)
    assert popo.match_ids() == []


# --------------------------------------------------------------------- rejections


def test_recording_a_match_twice_is_rejected_and_changes_nothing(db: str) -> None:
    with open_recorder(db) as recorder:
        recorder.record(blackpoker_log())
        before = stored_rows(recorder)
        altered = blackpoker_log()
        altered[-1] = Resolve(seq=11, request="r1", result="fizzled")
        with pytest.raises(MatchAlreadyRecorded, match="already recorded") as caught:
            recorder.record(altered)
        assert caught.value.match_id == "bp-2026-r1-t3"
        assert isinstance(caught.value, StoreError)
        assert stored_rows(recorder) == before


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "empty log"),
        (blackpoker_log()[1:], "starts with a match_started line"),
        (blackpoker_log()[:3] + blackpoker_log()[4:], "seq 5 does not continue"),
        ([*blackpoker_log()[:1], blackpoker_log()[0].model_copy(update={"seq": 2})],
         "exactly one match_started"),
    ],
)
def test_a_log_that_is_not_a_log_is_rejected_whole(
    popo: MatchRecorder, lines: list[LogLine], message: str
) -> None:
    with pytest.raises(LogRejected, match=message):
        popo.record(lines)
    assert stored_rows(popo) == []
    assert popo.match_ids() == []


def test_append_continues_the_record(db: str) -> None:
    with open_recorder(db) as recorder:
        recorder.record(blackpoker_log())
        assert recorder.append("bp-2026-r1-t3", continuation()) == 13
        assert recorder.append("bp-2026-r1-t3", []) == 13
    with open_recorder(db) as again:
        assert unhashed(again.lines("bp-2026-r1-t3")) == blackpoker_log() + continuation()
        assert again.load("bp-2026-r1-t3").version == 13


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (continuation()[1:], "seq 13 does not continue the record, which expects seq 12"),
        ([ChanceMoved(seq=11, to="bob")], "seq 11 does not continue"),
        ([*continuation(), Pass(seq=15, player="bob")], "seq 15 does not continue"),
        ([blackpoker_log()[0].model_copy(update={"seq": 12})], "exactly one match_started"),
        ([{"seq": 12, "type": "pass", "player": "bob"}], "not a log line"),
    ],
)
def test_append_that_does_not_continue_is_rejected_and_changes_nothing(
    db: str, lines: list[LogLine], message: str
) -> None:
    with open_recorder(db) as recorder:
        recorder.record(blackpoker_log())
        before = stored_rows(recorder)
        with pytest.raises(AppendRejected, match=message):
            recorder.append("bp-2026-r1-t3", lines)
        assert stored_rows(recorder) == before


def test_a_write_that_fails_midway_leaves_the_store_as_it_was(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COREFLOW_BUSY_TIMEOUT", "1")  # a writer waits 1 s, then gives up
    with open_recorder(db) as recorder:
        recorder.record(blackpoker_log())
        before = stored_rows(recorder)
        blocker = sqlite3.connect(db, isolation_level=None)
        try:
            blocker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
            with pytest.raises(StoreUnavailable, match="locked"):
                recorder.record(blackpoker_log("bp-2026-r1-t4"))
            with pytest.raises(StoreUnavailable, match="locked"):
                recorder.append("bp-2026-r1-t3", continuation())
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert stored_rows(recorder) == before
        assert recorder.match_ids() == ["bp-2026-r1-t3"]


# ---------------------------------------------------------------------- conflicts


def test_two_writers_appending_at_once_one_wins_and_nothing_is_half_written(db: str) -> None:
    ours = continuation()
    theirs: list[LogLine] = [
        Request(seq=12, request="r2", player="bob", action="block", key_cards=["bob:C5"]),
        Stage(seq=13, request="r2"),
        ChanceMoved(seq=14, to="alice"),
    ]
    with open_recorder(db) as one, open_recorder(db) as two:
        one.record(blackpoker_log())
        mine = one.load("bp-2026-r1-t3")
        other = two.load("bp-2026-r1-t3")
        other.extend(theirs)
        mine.extend(ours)
        assert two.commit(other) == 14
        with pytest.raises(RecordConflict, match="another writer") as caught:
            one.commit(mine)
        assert caught.value.match_id == "bp-2026-r1-t3"
        assert not isinstance(caught.value, MatchAlreadyRecorded)

        for recorder in (one, two):
            assert unhashed(recorder.lines("bp-2026-r1-t3")) == blackpoker_log() + theirs
        # Appending afresh works from the reloaded record.
        assert one.append("bp-2026-r1-t3", [Pass(seq=15, player="alice")]) == 15


def test_conflict_in_memory_store(popo: MatchRecorder) -> None:
    popo.record(blackpoker_log())
    first = popo.load("bp-2026-r1-t3")
    second = popo.load("bp-2026-r1-t3")
    first.extend(continuation())
    second.extend(continuation()[:1])
    popo.commit(first)
    with pytest.raises(RecordConflict):
        popo.commit(second)
    assert unhashed(popo.lines("bp-2026-r1-t3")) == blackpoker_log() + continuation()


def test_racing_to_record_the_same_match_keeps_the_first(db: str) -> None:
    with open_recorder(db) as one, open_recorder(db) as two:
        first = blackpoker_log()[0]
        assert isinstance(first, MatchStarted)
        late = MatchRecord.start(first)  # built before `one` records
        late.extend(blackpoker_log()[1:3])
        one.record(blackpoker_log())
        before = stored_rows(one)
        with pytest.raises(RecordConflict):
            two.commit(late)
        assert stored_rows(two) == before


# ------------------------------------------------------------------ configuration


def test_store_location_argument_then_env_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COREFLOW_STORE", raising=False)
    assert store_env(None) == {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": "./coreflow.db",
    }
    monkeypatch.setenv("COREFLOW_STORE", str(tmp_path / "env.db"))
    assert store_env(None)["SQLITE_DBNAME"] == str(tmp_path / "env.db")
    assert store_env(str(tmp_path / "arg.db"))["SQLITE_DBNAME"] == str(tmp_path / "arg.db")
    assert store_env("sqlite:///tmp/x.db")["SQLITE_DBNAME"] == "tmp/x.db"


def test_default_store_is_coreflow_db_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COREFLOW_STORE", raising=False)
    monkeypatch.chdir(tmp_path)
    with open_recorder() as recorder:
        recorder.record(blackpoker_log())
    assert (tmp_path / "coreflow.db").is_file()
    with open_recorder(str(tmp_path / "coreflow.db")) as recorder:
        assert recorder.match_ids() == ["bp-2026-r1-t3"]


def test_postgres_urls_become_eventsourcing_settings() -> None:
    assert store_env("postgresql://judge:s%40cret@db.example:6543/coreflow?schema=league") == {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "APPLICATION_RECORDER_TOPIC": "coreflow_judge.events.pg:ChunkedApplicationRecorder",
        "POSTGRES_LOCK_TIMEOUT": "30",
        "POSTGRES_DBNAME": "coreflow",
        "POSTGRES_HOST": "db.example",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "judge",
        "POSTGRES_PASSWORD": "s@cret",
        "POSTGRES_SCHEMA": "league",
    }
    env = store_env("postgres://judge@/coreflow?host=/var/run/postgresql")
    assert env["POSTGRES_HOST"] == "/var/run/postgresql"
    assert env["POSTGRES_PORT"] == "5432"
    assert env["POSTGRES_PASSWORD"] == ""
    with pytest.raises(StoreUnavailable, match="no database"):
        store_env("postgresql://judge:pw@localhost:5432")


def test_an_unopenable_store_is_reported(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match="cannot open the event store"):
        open_recorder(str(tmp_path / "missing-dir" / "x.db"))


# ---------------------------------------------------------------------- postgres

POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_postgres_store_records_appends_exports_and_detects_conflicts() -> None:
    assert POSTGRES_URL
    match_id = f"pg-{uuid.uuid4().hex[:12]}"
    with open_recorder(POSTGRES_URL) as one, open_recorder(POSTGRES_URL) as two:
        log = blackpoker_log(match_id)
        assert one.record(log) == match_record_id(match_id)
        assert unhashed(two.lines(match_id)) == log
        assert match_id in two.match_ids()
        with pytest.raises(MatchAlreadyRecorded):
            two.record(log)

        mine, other = one.load(match_id), two.load(match_id)
        mine.extend(continuation())
        other.extend(continuation()[:1])
        assert one.commit(mine) == 13
        with pytest.raises(RecordConflict):
            two.commit(other)
        with pytest.raises(AppendRejected):
            two.append(match_id, [Pass(seq=15, player="bob")])
        assert unhashed(two.lines(match_id)) == log + continuation()

        exported = one.export_jsonl(match_id)
        assert two.export_jsonl(match_id) == exported
    with MatchRecorder(env=POPO) as scratch:
        scratch.record_jsonl(exported)
        assert scratch.export_jsonl(match_id) == exported


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_postgres_records_a_log_of_many_megabytes_without_blocking_others() -> None:
    """eventsourcing's pipelined INSERT of a save never finished for a log over about
    5 MB and held the table lock meanwhile; the chunked recorder (events/pg.py) records
    it, all or nothing, and another writer goes on right after."""
    assert POSTGRES_URL
    big_id = f"pg-big-{uuid.uuid4().hex[:10]}"
    log = [line.model_copy(update={"note": "n" * 9000}) for line in blackpoker_log(big_id)]
    many = log + [Pass(seq=len(log) + i + 1, player="alice" if i % 2 else "bob",
                       note="p" * 9000) for i in range(1000)]
    assert sum(len(line.model_dump_json()) for line in many) > 8_000_000
    started = time.monotonic()
    with open_recorder(POSTGRES_URL) as one, open_recorder(POSTGRES_URL) as two:
        one.record(many)
        other = f"pg-small-{uuid.uuid4().hex[:10]}"
        two.record(blackpoker_log(other))
        assert unhashed(two.lines(big_id)) == many
        assert two.verify_record(big_id).breaks == []
        # All or nothing: a big save that conflicts leaves nothing behind.
        with pytest.raises(MatchAlreadyRecorded):
            one.record(many)
    assert time.monotonic() - started < 120


# ------------------------------------------------------------ a store written before
class _OlderGameStarted(GameStarted):
    """``game_started`` as an older coreflow's core read it: BlackPoker's ``packs``
    declared for every game."""

    packs: dict[str, list[str]] | None = None


class _OlderMatchStarted(MatchStarted):
    """The header as an older coreflow's core read it: Duel Masters' zones for every
    game."""

    hyperspatial: dict[str, list[str]] | None = None


def test_a_record_an_older_coreflow_took_reads_and_is_judged_as_before(db: str) -> None:
    """Before each game declared its own fields, the core took BlackPoker's set-up fields
    and Duel Masters' zones in any game's log. Such a stored record still reads (the
    field kept as written, so it exports and verifies), and is judged as it was: a
    Duel Masters set-up with ``packs`` as if the field were not there; a BlackPoker header
    with ``hyperspatial`` refused naming the field. A log file with either is refused
    when read (tests/test_bad_input.py)."""
    from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game
    from coreflow_judge.adjudicator.judge import JudgeInputError, judge_lines, start_flow

    dm = simulate_game(3, max_lines=40)
    started = dm[1]
    assert isinstance(started, GameStarted)
    older = _OlderGameStarted(**started.model_dump(exclude={"type"}),
                              packs={"alice": ["?"] * 14})
    bp = blackpoker_log("bp-older")
    header = bp[0]
    assert isinstance(header, MatchStarted)
    older_header = _OlderMatchStarted(
        **header.model_dump(exclude={"type", "frame", "rules"}), rules="blackpoker/9.0",
        hyperspatial={"alice": ["x#1"]})
    with open_recorder(db) as recorder:
        recorder.record([dm[0], older, *dm[2:]])
        recorder.record([older_header, *bp[1:]])
    with open_recorder(db) as reader:  # another recorder: it reads each header again
        dm_id = dm[0].match_id  # type: ignore[union-attr]
        stored = reader.lines(dm_id)
        assert stored[1].model_extra == {"packs": {"alice": ["?"] * 14}}
        assert '"packs":{"alice"' in reader.export_jsonl(dm_id).splitlines()[1]
        assert not verify_chain(enumerate(stored, start=1))
        as_before = judge_lines(enumerate(unhashed(dm), start=1))
        judged = judge_lines(enumerate(stored, start=1))
        assert [(f.code, f.seq) for f in judged.findings] == [
            (f.code, f.seq) for f in as_before.findings]
        assert judged.result == as_before.result
        bp_stored = reader.lines("bp-older")
        assert bp_stored[0].model_extra == {"hyperspatial": {"alice": ["x#1"]}}
        with pytest.raises(JudgeInputError) as caught:
            start_flow(bp_stored[0])  # type: ignore[arg-type]
        assert caught.value.field == "hyperspatial"
