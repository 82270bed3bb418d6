"""``coreflow serve`` for real: the command in its own process on a free port, real HTTP,
its event streams read as a browser reads them, its pages in headless Chromium.

- a match entered at a table by two scorekeepers tapping at once, each tap sent twice (a
  double tap, or a reload that sends what was pending again), the server killed halfway
  and started again: the stored match is the record of one sitting, line for line;
- the spectator's page, its JSON and its event stream name no card a spectator may not
  see (nor the decks of the header);
- a token writes to its own table only, a revoked one to none, a request of another site
  to none; tokens are stored hashed;
- a refused entry calls the judge (the judge's stream says so within a second), a ruling
  ends the call and may take entries back; the judge's viewer opens at the refused line;
- the organiser's standings, charts and downloads;
- four pages open at once in Chromium: two scorekeepers' pages of one table tapping the
  same button (one entry stored, the other page told), the judge's and the spectator's
  following live;
- the pages in Chromium: the organiser's forms set up an event and a table, a phone-sized
  table page played by its buttons, a refusal shown, the judge called, the spectator's
  page in Japanese; a whole game entered through the table page (by its buttons where
  ``legal`` offers the entry whole, else typed) is the one sitting's record;
- two servers over one PostgreSQL store: a line entered on one is on the other's judge
  stream (when the tests have a PostgreSQL server: COREFLOW_TEST_POSTGRES).
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import threading
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import coreflow_judge as cf
import pytest
from coreflow_judge.adjudicator.ledger import DERIVABLE
from coreflow_judge.adjudicator.notation import to_notation
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.events.models import LogLine
from coreflow_judge.projections.board import BoardProjector
from coreflow_judge.projections.view import SPECTATOR, disclosure_of, in_sight
from coreflow_judge.serve.i18n import LABELS

from tests.browser import Chromium, chromium_binary
from tests.pools import pooled
from tests.servertools import Server, Stream

POSTGRES_URL = os.environ.get("COREFLOW_TEST_POSTGRES")
SHOTS = os.environ.get("COREFLOW_SERVE_SHOTS")
"""A folder to keep the browser test's screenshots in (docs/serve.md shows them)."""

LIVE = 5.0
"""Seconds within which a change must reach an open page or stream with no reload. The
server's stream reads the store every 0.2 s (under a second on a quiet machine, as
benchmarks/bench_serve.py measures); the bound is wider so that a CI machine busy with
other work does not fail a test of liveness, which is what this checks, not speed."""
PATIENCE = 60.0
"""Seconds a page is given to show an answer (returned as soon as it does)."""


@pooled
def simulated(seed: int, game: str = "blackpoker", edition: str = "9.0",
              fmt: str = "lite") -> list[LogLine]:
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    return plugin.simulate(edition, fmt, seed, f"serve-{game}-{seed}")


def entries_of(lines: list[LogLine]) -> list[str]:
    """What a table types of a game: its decisions in the notation (what the rules
    derive left out, trigger lines kept: they name the triggered requests)."""
    return [to_notation(ln) for ln in lines[1:] if ln.type not in DERIVABLE
            or ln.type == "trigger"]


def header_fields(lines: list[LogLine]) -> dict[str, Any]:
    """The simulated header's decks (and cards, and the rest of its set-up), for a table
    of an event."""
    head = lines[0].model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in head.items() if k not in (
        "type", "seq", "match_id", "game", "rules", "players", "event", "log_format",
        "hash")}


def plain(lines: list[LogLine]) -> list[dict[str, Any]]:
    return [ln.model_dump(mode="json", exclude={"hash", "at"}) for ln in lines]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    store = tmp_path_factory.mktemp("serve") / "event.db"
    running = Server(str(store))
    try:
        yield running
    finally:
        running.stop()


def submit(server: Server, token: str, client: str, seq: int, at: int | None,
           text: str) -> dict[str, Any]:
    """The answer to one entry (without the table's state that comes with it)."""
    answer = dict(server.ok("/api/table/entry", token,
                            {"client": client, "client_seq": seq, "at": at, "text": text}))
    state = answer.pop("state")
    assert state["last_seq"] >= answer["last_seq"]
    return answer


# ---------------------------------------------------------------------- the session


def test_two_scorekeepers_double_taps_and_a_killed_server_give_the_one_sitting_record(
        tmp_path: Path) -> None:
    lines = simulated(11)
    typed = entries_of(lines)[:60]
    store = str(tmp_path / "session.db")
    server = Server(store)
    try:
        server.event("cup", fmt="lite")
        match_id, token = server.table("cup", "1", list(lines[0].players),  # type: ignore[union-attr]
                                       header_fields(lines))
        at = 1
        for i, entry in enumerate(typed):
            if i == len(typed) // 2:
                server.kill()  # mid-game, no shutdown: every accepted line must be there
                server.start()
            answers: dict[str, dict[str, Any]] = {}

            def tap(client: str, entry: str = entry, i: int = i, at: int = at,
                    answers: dict[str, dict[str, Any]] = answers) -> None:
                answers[client] = submit(server, token, client, i, at, entry)

            taps = [threading.Thread(target=tap, args=(c,)) for c in ("left", "right")]
            for t in taps:
                t.start()
            for t in taps:
                t.join()
            statuses = sorted(a["status"] for a in answers.values())
            assert statuses == ["accepted", "moved"], (i, entry, answers)
            won = next(c for c, a in answers.items() if a["status"] == "accepted")
            # The winner's page sends it again (a double tap, or a reload with it pending):
            # the same answer, nothing entered again.
            again = submit(server, token, won, i, at, entry)
            assert again == {**answers[won], "again": True}
            at = answers[won]["last_seq"]
        stored = cf.load_match(match_id, store).lines
    finally:
        server.stop()
    one = cf.Table(stored[0])  # type: ignore[arg-type]
    for entry in typed:
        assert one.push(entry).accepted, entry
    assert plain(stored) == plain(one.lines)
    assert len(stored) == at


def test_a_game_decided_by_lines_filled_in_is_stored_when_the_table_stores_its_end(
        server: Server) -> None:
    """Lines the rules fill in decide the game: the table may still say them (with what
    they did), so the end waits for "Store the end", which stores it as ``play`` does
    when the table stops (the one sitting's record, finished there)."""
    lines = simulated(4, "duel_masters", "1.47", "standard")
    typed = entries_of(lines)
    cut = next(i for i, e in enumerate(typed) if e.startswith("resolve r20"))
    server.event("end", rules="duel_masters/1.47", fmt="standard")
    match_id, token = server.table("end", "1", list(lines[0].players),  # type: ignore[union-attr]
                                   header_fields(lines))
    at = None
    for i, entry in enumerate(typed[:cut]):
        answer = submit(server, token, "k", i, at, entry)
        assert answer["status"] == "accepted", answer
        at = answer["last_seq"]
    state = server.ok("/api/table", token)
    assert state["over"] and state["end_ahead"]
    assert cf.load_match(match_id, server.store).lines[-1].type != "game_ended"
    ended = server.ok("/api/table/finish", token, {"client": "k", "client_seq": cut, "at": at})
    assert ended["status"] == "accepted" and ended["stored"][-1]["type"] == "game_ended"
    assert not server.ok("/api/table", token)["end_ahead"]
    stored = cf.load_match(match_id, server.store).lines
    one = cf.Table(stored[0])  # type: ignore[arg-type]
    for entry in typed[:cut]:
        assert one.push(entry).accepted
    one.finish()
    assert plain(stored) == plain(one.lines)


# ---------------------------------------------------------------------- the spectator


def _hidden(lines: list[LogLine]) -> tuple[set[str], set[str]]:
    """(refs a spectator may not see now, card names of theirs not in sight anywhere)."""
    board = BoardProjector.from_lines(lines).at(None)
    sight = in_sight(board, SPECTATOR, disclosure_of(lines[0].rules))  # type: ignore[union-attr]
    refs: set[str] = set()
    for player, zones in board["players"].items():
        for zone in ("hand", "life"):
            for card in zones.get(zone) or []:
                if isinstance(card, str):
                    refs.add(f"{player}:{card}")
    for player, cards in (lines[0].decks or {}).items():  # type: ignore[union-attr]
        refs |= {f"{player}:{c}" for c in cards}
    hidden = refs - sight
    seen_names = {r.partition(":")[2] for r in sight}
    names = {r.partition(":")[2] for r in hidden} - seen_names
    return hidden, names


def _csp(server: Server, path: str) -> str:
    from urllib.request import urlopen

    with urlopen(server.base + path, timeout=60) as r:
        return str(r.headers["Content-Security-Policy"])


def _named(word: str, text: str) -> bool:
    """Whether ``word`` is in ``text`` as itself (``D1`` is not in ``D10``)."""
    return re.search(re.escape(word) + r"(?![0-9A-Za-z])", text) is not None


def test_the_spectator_is_sent_no_hidden_card(server: Server) -> None:
    lines = simulated(12)
    server.event("spec", fmt="lite")
    match_id, token = server.table("spec", "1", list(lines[0].players),  # type: ignore[union-attr]
                                   header_fields(lines))
    stream = Stream(server, f"/api/watch/{match_id}/stream")
    try:
        first = stream.next_state()
        at = first["last_seq"]
        for i, entry in enumerate(entries_of(lines)[:40]):
            answer = submit(server, token, "k", i, at, entry)
            assert answer["status"] == "accepted", answer
            at = answer["last_seq"]
            if i % 8 == 7:  # the stream says each of these states
                while first["last_seq"] != at:
                    first = stream.next_state()
        streamed = list(stream.states)
    finally:
        stream.close()
    stored = cf.load_match(match_id, server.store).lines
    _status, page = server.text(f"/watch/{match_id}")
    assert "frame-ancestors *" in _csp(server, f"/watch/{match_id}")  # a stream embeds it
    assert "frame-ancestors 'none'" in _csp(server, f"/table/{token}")
    _status, data = server.call(f"/api/watch/{match_id}")
    sent = [("page", len(stored), page), ("json", len(stored), json.dumps(data))]
    # Each state the stream sent, against what was hidden when it was sent.
    sent += [("stream", json.loads(s)["last_seq"], s) for s in streamed]
    assert len(streamed) >= 6
    plugin = game_plugin("blackpoker")
    for what, seq, text in sent:
        hidden, names = _hidden(stored[:seq])
        assert hidden and (names or what == "stream")  # hands and lives, hidden
        assert '"decks"' not in text, what
        for ref in hidden:
            assert not _named(ref, text), (what, seq, ref)
        for name in names:
            assert not _named(f'"{name}"', text), (what, seq, name)
            assert not _named(plugin.card_text(name), text), (what, seq, name)
    # The table itself sees the hands (the same cards are there).
    table = server.ok("/api/table", token)
    assert any(plugin.card_text(n) in table["board_text"] for n in _hidden(stored)[1])


# ---------------------------------------------------------------------- tokens


def test_tokens_write_to_their_own_table_only_and_are_stored_hashed(server: Server) -> None:
    server.event("tok")
    one, token_one = server.table("tok", "1", ["alice", "bob"])
    two, token_two = server.table("tok", "2", ["carol", "dave"])
    body = {"client": "c", "client_seq": 1, "at": 1, "text": "start carol"}
    status, answer = server.call("/api/table/entry", token_one, {**body, "match_id": two})
    assert status == 403 and "another table" in answer["error"]
    assert server.call("/api/table/entry", None, body)[0] == 403
    assert server.call("/api/table/entry", "not-a-token", body)[0] == 403
    # Another site's page cannot write (its Origin), nor post a form (not JSON).
    assert server.call("/api/table/entry", token_two, body,
                       {"Origin": "http://evil.example"})[0] == 403
    assert server.call("/api/table/entry", token_two, body,
                       {"Content-Type": "application/x-www-form-urlencoded"})[0] == 415
    assert server.ok("/api/table/entry", token_two, body)["status"] == "accepted"
    made = server.ok("/api/organiser/tables", server.organiser,
                     {"event_id": "tok", "round": "1", "table": "3", "players": ["e", "f"]})
    assert made["link"] == f"{server.base}/table/{made['token']}"
    assert made["qr"].startswith("<svg") and made["token"] not in made["qr"]
    # A judge's or the organiser's token writes to no table.
    judge = server.event("tok2")
    assert server.call("/api/table/entry", judge, {**body, "match_id": two})[0] == 403
    # Revoked: a new token for the table, the old one refused.
    new = server.ok("/api/organiser/reissue", server.organiser,
                    {"event_id": "tok", "match_id": one})
    assert new["revoked"] == 1
    assert server.call("/api/table", token_one)[0] == 403
    status, page = server.text(f"/table/{token_one}")  # the old link, opened: in words
    assert status == 403 and "ask the organiser for a new one" in page
    assert server.ok("/api/table", new["token"])["match"]["match_id"] == one
    with sqlite3.connect(server.store) as con:
        dump = "\n".join(con.iterdump())
    for token in (token_one, token_two, new["token"], judge, server.organiser):
        assert token not in dump


def test_bad_input_is_answered_in_words_and_too_many_writes_wait(tmp_path: Path) -> None:
    server = Server(str(tmp_path / "bad.db"), rate=5)
    try:
        _bad_input(server)
    finally:
        server.stop()


def _bad_input(server: Server) -> None:
    server.event("bad")
    _match, token = server.table("bad", "1", ["alice", "bob"])
    unread = submit(server, token, "c", 1, None, "alice fly to the moon")
    assert unread["status"] == "unread" and unread["reasons"]
    status, ja = server.call("/api/table/entry?lang=ja", token,
                             {"client": "c", "client_seq": 5, "at": None, "text": "bob pass"})
    assert status == 200 and ja["status"] == "refused"
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", ja["reasons"][0]), ja  # in Japanese
    control = submit(server, token, "c", 2, None, "alice\x07pass")
    assert control["status"] == "unread"
    status, _answer = server.call("/api/table/undo", token,
                                  {"client": "c", "client_seq": 3, "at": None, "reason": " "})
    assert status == 400
    nothing = server.ok("/api/table/undo", token,
                        {"client": "c", "client_seq": 4, "at": None, "reason": "misclick"})
    assert nothing["status"] == "refused"  # no entry to take back yet
    codes = [server.call("/api/table/entry", token,
                         {"client": "c", "client_seq": 100 + i, "at": None, "text": "x"})[0]
             for i in range(60)]
    assert 429 in codes


# ---------------------------------------------------------------------- the judge


def test_a_refused_entry_calls_the_judge_at_once_and_a_ruling_answers_it(
        server: Server) -> None:
    judge = server.event("call")
    match_id, token = server.table("call", "1", ["alice", "bob"])
    assert submit(server, token, "c", 1, None, "start alice")["status"] == "accepted"
    stream = Stream(server, f"/api/judge/stream?token={judge}")
    try:
        state = stream.next_state()
        assert [t["call"] for t in state["tables"]] == [None]
        sent = time.monotonic()
        refused = submit(server, token, "c", 2, None, "bob pass")
        assert refused["status"] == "refused"
        assert "bob" in refused["reasons"][0] and refused["codes"] == ["timing.no-chance"]
        state = stream.next_state()
        while state["tables"][0]["call"] is None:  # (a state for "start alice" first)
            state = stream.next_state()
        called_in = time.monotonic() - sent
        [row] = state["tables"]
        assert row["call"]["entry"] == "bob pass" and called_in < LIVE, called_in
        # The judge's viewer, at the refused line as the record would have it.
        _s, viewer = server.text(f"/judge/{judge}/view/{match_id}?call={row['call']['id']}")
        assert "timing.no-chance" in viewer and "<html" in viewer
        assert server.text(f"/judge/not-a-token/view/{match_id}")[0] == 403
        # A ruling ends the call; one that takes back an entry appends the correction.
        ruled = server.ok("/api/judge/ruling", judge,
                          {"match_id": match_id, "text": "alice started by mistake",
                           "take_back": 1, "client": "j", "client_seq": 1})
        assert ruled["status"] == "accepted"
        state = stream.next_state()
        while state["tables"][0]["call"] is not None:
            state = stream.next_state()
    finally:
        stream.close()
    stored = cf.load_match(match_id, server.store).lines
    assert stored[-1].type == "taken_back"
    assert stored[-1].reason == "judge: alice started by mistake"  # type: ignore[union-attr]
    # The scorekeeper's call reaches the judge too.
    assert server.ok("/api/table/call", token, {"reason": "a question"})["status"] == "called"
    state = server.ok("/api/judge", judge)
    assert state["tables"][0]["call"]["reason"] == "a question"


# ---------------------------------------------------------------------- the organiser


def test_the_organiser_reads_standings_charts_and_downloads(server: Server) -> None:
    lines = simulated(2)
    server.event("org", fmt="lite")
    match_id, token = server.table("org", "1", list(lines[0].players),  # type: ignore[union-attr]
                                   header_fields(lines))
    at = None
    for i, entry in enumerate(entries_of(lines)):
        answer = submit(server, token, "k", i, at, entry)
        assert answer["status"] == "accepted", (entry, answer)
        at = answer["last_seq"]
    report = server.ok("/api/organiser/events/org/report", server.organiser)
    summary = cf.matches(server.store, audit=None)
    mine = next(m for m in summary if m.match_id == match_id)
    assert mine.result is not None  # the game was played to its end
    rows = {s["player"]: s for s in report["standings"]}
    assert rows[mine.winner]["won"] == 1
    assert all(c.startswith("<svg") for c in report["charts"]) and len(report["charts"]) >= 3
    status, _ = server.call("/api/organiser/events/org/report", token)
    assert status == 403
    from urllib.request import urlopen

    url = f"{server.base}/api/organiser/events/org/download/logs.zip?token={server.organiser}"
    with urlopen(url, timeout=60) as r:
        archive = zipfile.ZipFile(io.BytesIO(r.read()))
    assert archive.namelist() == [f"{match_id}.jsonl"]
    assert len(archive.read(f"{match_id}.jsonl").decode().splitlines()) == at
    url = url.replace("logs.zip", "findings.parquet")
    with urlopen(url, timeout=60) as r:
        assert r.read(4) == b"PAR1"


# ---------------------------------------------------------------------- in a browser


@pytest.mark.skipif(chromium_binary() is None, reason="no chromium binary on this machine")
def test_the_pages_in_a_browser(server: Server) -> None:
    with Chromium(390, 844) as browser:
        # The organiser sets up the event and a table through the page's forms.
        browser.open(f"{server.base}/organiser/{server.organiser}")
        _fill(browser, "#new-event", {"event_id": "web", "name": "web cup"})
        browser.click("#new-event button[type=submit]")
        _wait(browser, "document.getElementById('judge-link') !== null")
        judge_link = browser.evaluate("document.getElementById('judge-link').href")
        _wait(browser, "document.getElementById('new-table') !== null")
        _fill(browser, "#new-table", {"table": "1", "players": "alice, bob"})
        browser.click("#new-table button[type=submit]")
        _wait(browser, "document.querySelector('.table-link') !== null")
        table_link = browser.evaluate("document.querySelector('.table-link').href")
        assert browser.evaluate("document.querySelector('.qr svg') !== null")
        match_id = "web-r1-t1"
        browser.open(table_link)
        assert browser.evaluate("document.querySelector('h1').textContent").startswith(match_id)
        browser.click("button.option[data-entry='start alice']")
        _wait(browser, "document.body.dataset.lastSeq === '2'")
        assert browser.evaluate("document.getElementById('answer').dataset.kind") == "accepted"
        # A refused entry, typed: shown with its reason; nothing stored.
        browser.click("#entry")
        browser.type_text("bob pass")
        browser.click("#enter")
        _wait(browser, "document.getElementById('answer').dataset.kind === 'refused'")
        said = browser.evaluate("document.getElementById('answer').textContent")
        assert "bob" in said and "chance" in said
        _shot(browser, "serve-table.png")
        # Played by its buttons: the first complete option, a few times.
        for _ in range(6):
            before = browser.evaluate("document.body.dataset.lastSeq")
            browser.click("button.option:not(.incomplete)")
            _wait(browser, f"document.body.dataset.lastSeq !== '{before}'")
        # A reload keeps the table where it was.
        seq = browser.evaluate("document.body.dataset.lastSeq")
        browser.open(table_link)
        assert browser.evaluate("document.body.dataset.lastSeq") == seq
        # The judge is called by the refusal.
        browser.open(judge_link)
        assert browser.evaluate("document.body.dataset.called") == match_id
        # Live: another table's refused entry calls the open page within a second.
        other, other_token = server.table("web", "2", ["carol", "dave"])
        sent = time.monotonic()
        assert submit(server, other_token, "t2", 1, None, "dave pass")["status"] == "refused"
        _wait(browser, f"document.body.dataset.called.includes({json.dumps(other)})")
        assert time.monotonic() - sent < LIVE
        _shot(browser, "serve-judge.png")
        # Its viewer opens at the refused entry, put where the table tried it.
        viewer = browser.evaluate(f"document.querySelector('[data-match={json.dumps(match_id)}]"
                                  " a.viewer').href")
        browser.open(viewer)
        assert browser.evaluate("document.body.dataset.seq") == viewer.rpartition("#")[2]
        assert "timing.no-chance" in browser.evaluate("document.body.textContent")
        # The spectator, in Japanese.
        browser.open(f"{server.base}/watch/{match_id}?lang=ja")
        assert browser.evaluate("document.documentElement.lang") == "ja"
        assert "盤面" in browser.evaluate("document.body.textContent")
        _shot(browser, "serve-watch.png")
        browser.open(f"{server.base}/organiser/{server.organiser}")
        browser.click("button[data-event='web']")
        _wait(browser, "document.getElementById('refresh-report') !== null")
        browser.click("#refresh-report")
        _wait(browser, "document.body.dataset.report === '1'")
        _shot(browser, "serve-organiser.png")
        # The pages fetched nothing from anywhere else.
        assert all(u.startswith((server.base, "data:", "about:")) for u in browser.requested)


@pytest.mark.skipif(chromium_binary() is None, reason="no chromium binary on this machine")
def test_a_whole_game_entered_through_the_table_page(tmp_path: Path) -> None:
    """Every decision of a simulated game entered on a phone-sized table page: by its
    button where ``legal`` offers it whole, else typed. Halfway, the server is killed
    while an entry is on its way: the page keeps it, says the connection is lost, and
    sends it again once the server is back; a reload then shows the same table. The
    record is the one sitting's."""
    server = Server(str(tmp_path / "whole.db"))
    try:
        _whole_game(server)
    finally:
        server.stop()


def _whole_game(server: Server) -> None:
    lines = simulated(2)  # 99 entries, a third of them offered whole by legal
    typed = entries_of(lines)
    server.event("whole", fmt="lite")
    match_id, token = server.table("whole", "1", list(lines[0].players),  # type: ignore[union-attr]
                                   header_fields(lines))
    tapped = reloaded = 0
    with Chromium(390, 844) as browser:
        browser.open(f"{server.base}/table/{token}")
        for n, entry in enumerate(typed, start=1):
            if n == len(typed) // 2:
                server.kill()
            button = browser.evaluate(
                "(() => { const b = [...document.querySelectorAll('button.option')].find("
                f"b => b.dataset.entry === {json.dumps(entry)} && "
                "!b.classList.contains('incomplete')); if (!b) return false; b.click(); "
                "return true; })()")
            if button:
                tapped += 1
            else:
                browser.evaluate("document.getElementById('entry').value = ''")
                browser.click("#entry")
                browser.type_text(entry)
                browser.click("#enter")
            if n == len(typed) // 2:
                _wait(browser, "document.querySelector('.conn').textContent === "
                      f"{json.dumps(LABELS['en']['offline'])}")
                pending = browser.evaluate(f"localStorage.getItem('coreflow.{match_id}."
                                           "pending')")
                assert entry in json.loads(pending)[0].values()
                server.start()
            _wait(browser, f"document.body.dataset.answered === '{n - reloaded}'")
            assert browser.evaluate(
                "document.getElementById('answer').dataset.kind") == "accepted", entry
            if n == len(typed) // 2:
                seq = browser.evaluate("document.body.dataset.lastSeq")
                browser.open(f"{server.base}/table/{token}")
                assert browser.evaluate("document.body.dataset.lastSeq") == seq
                reloaded = n  # the page counts its answers anew
        assert browser.evaluate("document.querySelector('.legal .over') !== null")
    stored = cf.load_match(match_id, server.store).lines
    one = cf.Table(stored[0])  # type: ignore[arg-type]
    for entry in typed:
        assert one.push(entry).accepted, entry
    assert one.over
    one.finish()
    assert plain(stored) == plain(one.lines)
    assert tapped >= len(typed) // 4, (tapped, len(typed))


@pytest.mark.skipif(chromium_binary() is None, reason="no chromium binary on this machine")
def test_two_table_pages_a_judge_and_a_spectator_open_at_once(server: Server) -> None:
    """Four pages open at once in one browser: the table's two scorekeepers' pages tap
    the same button at once (one entry is stored, the other page is told the table moved
    on), and the judge's and the spectator's pages follow live."""
    judge = server.event("once")
    match_id, token = server.table("once", "1", ["alice", "bob"])
    with Chromium(390, 844) as browser:
        browser.open(f"{server.base}/table/{token}")
        tabs = {"left": browser.session}
        for name, url in (("right", f"/table/{token}"), ("judge", f"/judge/{judge}"),
                          ("watch", f"/watch/{match_id}")):
            tabs[name] = _tab(browser, server.base + url)

        def run(tab: str, script: str) -> Any:
            mine, browser.session = browser.session, tabs[tab]
            try:
                return browser.evaluate(script)
            finally:
                browser.session = mine

        def until(tab: str, script: str) -> None:
            deadline = time.monotonic() + PATIENCE
            while not run(tab, script):
                assert time.monotonic() < deadline, (tab, script)
                time.sleep(0.05)

        for tab in tabs:
            until(tab, "document.body && document.body.dataset.ready === '1'")
        tap = ("document.querySelector(\"button.option[data-entry='start alice']\").click()")
        run("left", tap)
        run("right", tap)
        for tab in ("left", "right"):
            until(tab, "document.body.dataset.answered === '1'")
        kinds = sorted(run(t, "document.getElementById('answer').dataset.kind")
                       for t in ("left", "right"))
        assert kinds == ["accepted", "moved"]
        until("watch", "document.body.dataset.lastSeq === '2'")
        until("judge", "document.body.textContent.includes('seq 2')")
        assert [ln.type for ln in cf.load_match(match_id, server.store).lines] == \
            ["match_started", "game_started"]


def _tab(browser: Chromium, url: str) -> str:
    """Another page of the same browser, open at ``url``: its DevTools session."""
    target = browser.call("Target.createTarget", url=url)["targetId"]
    session = str(browser.call("Target.attachToTarget", targetId=target,
                               flatten=True)["sessionId"])
    mine, browser.session = browser.session, session
    try:
        browser.call("Runtime.enable", session=True)
    finally:
        browser.session = mine
    return session


def _fill(browser: Chromium, form: str, values: dict[str, str]) -> None:
    """Set a form's fields as a person typing would leave them."""
    browser.evaluate(f"(() => {{ const f = document.querySelector({json.dumps(form)});"
                     f" for (const [k, v] of Object.entries({json.dumps(values)}))"
                     " f.elements[k].value = v; })()")


def _wait(browser: Chromium, script: str, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(script):
        assert time.monotonic() < deadline, f"not true in {timeout} s: {script}"
        time.sleep(0.05)


def _shot(browser: Chromium, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (Path(SHOTS) / name).write_bytes(browser.screenshot())


# ---------------------------------------------------------------------- PostgreSQL


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason="set COREFLOW_TEST_POSTGRES to a postgresql:// URL")
def test_two_servers_over_one_postgresql_serve_one_event() -> None:
    assert POSTGRES_URL
    schema = f"serve_{uuid.uuid4().hex[:8]}"
    store = f"{POSTGRES_URL}?schema={schema}"
    one = Server(store)
    two = Server(store)
    try:
        judge = one.event("pg")
        match_id, token = one.table("pg", "1", ["alice", "bob"])
        stream = Stream(two, f"/api/judge/stream?token={judge}")
        try:
            assert stream.next_state()["tables"][0]["last_seq"] == 1
            answer = submit(one, token, "c", 1, 1, "start alice")
            assert answer["status"] == "accepted"
            sent = time.monotonic()
            state = stream.next_state()
            while state["tables"][0]["last_seq"] != answer["last_seq"]:
                state = stream.next_state()  # (the table's creation came first)
            assert time.monotonic() - sent < LIVE
        finally:
            stream.close()
        # A table may submit to either: the other server goes on from the store.
        again = submit(two, token, "c", 2, answer["last_seq"], "alice pass")
        assert again["status"] == "accepted"
        assert submit(one, token, "c", 2, answer["last_seq"], "alice pass") == \
            {**again, "again": True}
    finally:
        one.stop()
        two.stop()
    assert [ln.type for ln in cf.load_match(match_id, store).lines][-1] == "pass"
