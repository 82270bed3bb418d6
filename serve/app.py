"""``coreflow serve``'s web application (Starlette, run by uvicorn).

Pages (each in English and Japanese: ``?lang=ja``):

- ``/table/TOKEN``: the scorekeeper's page of one table;
- ``/watch/MATCH_ID``: a spectator's page of one table (public: no token);
- ``/judge/TOKEN``: every table of the judge's event, live; ``/judge/TOKEN/view/MATCH_ID``
  the match in the viewer (``coreflow view``'s page), at the line a call is about;
- ``/organiser/TOKEN``: events, tables and tokens, standings, the report, downloads.

The pages' data come from ``/api/...`` as JSON, and live from server-sent event streams
(``.../stream``). A request that writes carries its token in the ``Authorization:
Bearer`` header and a JSON body: a form of another site can set neither, so a cross-site
request cannot write (and a request whose ``Origin`` is another site is refused before
that). Writes are rate-limited per token. The server keeps no state the store does not:
the pages are told of changes by polling the store's feed (:mod:`serve.db`), so two
servers over one PostgreSQL store serve one event.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import json
import re
import tempfile
import threading
import time
import zipfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from coreflow_judge.serve.db import FeedItem, Grant, ServeDB, TableRow
from coreflow_judge.serve.hub import MAX_REASON_CHARS, Hub, NotServed
from coreflow_judge.serve.i18n import LABELS, page_lang
from coreflow_judge.serve.report import event_report
from coreflow_judge.serve.views import (
    ANSWERS,
    CALLS,
    calls,
    judge_row,
    spectator_state,
    table_state,
)
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

POLL_S = 0.2
"""How often each server reads the store's feed for what the other servers did."""
HEARTBEAT_S = 15.0
"""An event stream says something at least this often (proxies close silent ones)."""
RATE = 10.0
"""Writes per second a token may make, on average (``coreflow serve --rate``)..."""
BURST = 40.0
"""...and at least this many at once."""
MAX_BODY = 1_200_000
"""The largest request body read (a JSON entry may be up to a log line's limit)."""
WATCHED = 256
"""About how many spectator states a server keeps computed."""
EVENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
LABEL = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class Refused(Exception):
    """A request the server answers with ``status`` and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Broker:
    """Tells the open event streams what the feed says: one reader of the store's feed
    per server, many listeners."""

    db: ServeDB
    last: int = 0
    listeners: set[asyncio.Queue[Any]] = field(default_factory=set)

    async def run(self) -> None:
        self.last = await run_in_threadpool(self.db.last_feed_id)
        while True:
            await asyncio.sleep(POLL_S)
            try:
                items = await run_in_threadpool(self.db.feed, self.last)
            except Exception:  # noqa: BLE001 - the store is away: try again
                continue
            for item in items:
                self.last = item.id
                for queue in list(self.listeners):
                    queue.put_nowait(item)

    @contextlib.contextmanager
    def listen(self) -> Any:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self.listeners.add(queue)
        try:
            yield queue
        finally:
            self.listeners.discard(queue)


class Limiter:
    """A token bucket per token: ``rate`` writes a second on average, four times that at
    once."""

    def __init__(self, rate: float = RATE) -> None:
        self.rate = rate
        self.burst = max(BURST, 4 * rate)
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        with self._lock:
            level, then = self._buckets.get(key, (self.burst, now))
            level = min(self.burst, level + (now - then) * self.rate)
            if level < 1:
                self._buckets[key] = (level, now)
                return False
            self._buckets[key] = (level - 1, now)
            return True


def _asset(name: str) -> str:
    return resources.files("coreflow_judge.serve").joinpath("assets", name).read_text(
        encoding="utf-8")


EMBEDDABLE = {**SECURITY_HEADERS, "Content-Security-Policy": SECURITY_HEADERS[
    "Content-Security-Policy"].replace("frame-ancestors 'none'", "frame-ancestors *")}
"""The spectator's page may be embedded by any site (a stream's overlay); no page that
holds a token may be framed (a click on it from another site's page)."""


def _page(kind: str, lang: str, title: str, data: dict[str, Any], status: int = 200
          ) -> HTMLResponse:
    """A page: the shell, its labels and first data as JSON (never as markup), the
    script and the style as files of the server (no inline script)."""
    payload = json.dumps({"page": kind, "lang": lang, "labels": dict(LABELS[lang]), **data},
                         ensure_ascii=False).replace("<", "\\u003c")
    body = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title>"
            '<link rel="stylesheet" href="/assets/serve.css"></head>'
            f'<body data-page="{kind}"><main id="app"></main>'
            f'<script type="application/json" id="data">{payload}</script>'
            '<script src="/assets/serve.js"></script></body></html>')
    return HTMLResponse(body, status_code=status,
                        headers=EMBEDDABLE if kind == "watch" else SECURITY_HEADERS)


def _link(request: Request, token: str, path: str = "table") -> dict[str, str]:
    """A token's page as the organiser's browser reaches this server, and its QR code
    (SVG made by segno from the link alone) for a phone to scan."""
    import segno

    link = f"{str(request.base_url).rstrip('/')}/{path}/{token}"
    return {"link": link, "qr": segno.make(link, error="m").svg_inline(scale=4)}


def create_app(store: str | None, *, lang: str = "en", audit: str | None = None,
               rate: float = RATE, on_start: Callable[[ServeDB], None] | None = None
               ) -> Starlette:
    """The application over ``store`` (a SQLite file or a PostgreSQL URL)."""
    from coreflow_judge.events.store import open_recorder

    recorder = open_recorder(store)  # first: a new store is made the event store's
    db = ServeDB(store)
    hub = Hub(store, db, recorder)
    broker = Broker(db)
    limiter = Limiter(rate)
    report_lock = threading.Lock()

    # ------------------------------------------------------------------ helpers
    def grant_of(request: Request, *, path_token: bool = False) -> Grant:
        token = None
        if path_token:
            token = request.path_params.get("token")
        else:
            auth = request.headers.get("authorization", "")
            if auth.startswith("Bearer "):
                token = auth[len("Bearer "):].strip()
            elif request.method == "GET":
                token = request.query_params.get("token")
        grant = db.grant(token)
        if grant is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        return grant

    async def body_of(request: Request) -> dict[str, Any]:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            raise Refused(403, "a request from another site")
        if not request.headers.get("content-type", "").startswith("application/json"):
            raise Refused(415, "send JSON (Content-Type: application/json)")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise Refused(413, "the request is too large")
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise Refused(400, "the request is not JSON") from None
        if not isinstance(data, dict):
            raise Refused(400, "send a JSON object")
        return data

    def limited(grant: Grant, request: Request) -> None:
        key = f"{grant.role}:{grant.event_id}:{grant.match_id}:{grant.label}"
        if not limiter.allow(key):
            raise Refused(429, LABELS[page_lang(request, lang)]["slow_down"])

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        """Refusals as JSON for the API, as a page for a person (a link opened)."""
        async def run(request: Request) -> Response:
            try:
                result: Response = await handler(request)
                return result
            except Refused as exc:
                status, message = exc.status, str(exc)
            except NotServed as exc:
                status, message = 404, f"no table {exc.args[0]!r} is served"
            if request.url.path.startswith("/api/"):
                return JSONResponse({"error": message}, status_code=status,
                                    headers=SECURITY_HEADERS)
            return _page("error", page_lang(request, lang), "coreflow", {"error": message},
                         status)
        return run

    def answer(data: Any, status: int = 200) -> JSONResponse:
        return JSONResponse(data, status_code=status, headers=SECURITY_HEADERS)

    read = hub.read

    def table_json(match_id: str, request_lang: str) -> dict[str, Any]:
        row = hub.served(match_id).row
        return read(match_id, lambda live: table_state(row, live, request_lang))

    watched: dict[tuple[str, int, str], dict[str, Any]] = {}

    def watch_json(match_id: str, request_lang: str) -> dict[str, Any]:
        """The spectator's state, computed once per record and language (every
        spectator of a table is sent the same)."""
        row = hub.served(match_id).row
        lines = hub.lines(match_id)
        key = (match_id, len(lines), request_lang)
        state = watched.get(key)
        if state is None:
            state = spectator_state(row, lines, request_lang)
            if len(watched) > 4 * WATCHED:
                watched.clear()
            watched[key] = state
        return state

    def judge_json(event_id: str, request_lang: str) -> dict[str, Any]:
        event = db.event(event_id)
        called = calls(db.feed(0, event_id, limit=1_000_000, kinds=CALLS + ANSWERS))
        rows = []
        for row in db.tables(event_id):
            call = called.get(row.match_id)

            def listed(live: Any, row: TableRow = row, call: FeedItem | None = call
                       ) -> dict[str, Any]:
                return judge_row(row, live, call, request_lang)

            rows.append(read(row.match_id, listed))
        return {"event": event.as_dict() if event else None, "tables": rows}

    async def stream(request: Request, wanted: Callable[[Any], bool],
                     state: Callable[[], dict[str, Any]]) -> StreamingResponse:
        """Server-sent events: the state now, then again whenever the feed says something
        ``wanted``."""
        async def events() -> AsyncIterator[str]:
            with broker.listen() as queue:
                first = await run_in_threadpool(state)
                yield f"event: state\ndata: {json.dumps(first, ensure_ascii=False)}\n\n"
                while not await request.is_disconnected():
                    try:
                        item = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    if not wanted(item):
                        continue
                    while not queue.empty():  # several changes: one state says them all
                        queue.get_nowait()
                    now = await run_in_threadpool(state)
                    yield f"event: state\ndata: {json.dumps(now, ensure_ascii=False)}\n\n"
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={**SECURITY_HEADERS, "X-Accel-Buffering": "no"})

    # ------------------------------------------------------------------ pages
    async def home(request: Request) -> Response:
        lg = page_lang(request, lang)
        events = await run_in_threadpool(db.events)
        listing = []
        for event in events:
            tables = await run_in_threadpool(db.tables, event.event_id)
            listing.append({**event.as_dict(), "tables": [t.as_dict() for t in tables]})
        return _page("home", lg, "coreflow", {"events": listing})

    async def table_page(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request, path_token=True)
        if grant.role != "scorekeeper" or grant.match_id is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        lg = page_lang(request, lang)
        state = await run_in_threadpool(table_json, grant.match_id, lg)
        return _page("table", lg, f"{grant.match_id} · coreflow",
                     {"token": request.path_params["token"], "state": state})

    async def watch_page(request: Request) -> Response:
        lg = page_lang(request, lang)
        match_id = request.path_params["match_id"]
        state = await run_in_threadpool(watch_json, match_id, lg)
        return _page("watch", lg, f"{match_id} · coreflow", {"state": state})

    async def judge_page(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request, path_token=True)
        if grant.role not in ("judge", "organiser") or grant.event_id is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        lg = page_lang(request, lang)
        state = await run_in_threadpool(judge_json, grant.event_id, lg)
        return _page("judge", lg, "judge · coreflow",
                     {"token": request.path_params["token"], "state": state})

    async def judge_view(request: Request) -> Response:
        """The match in ``coreflow view``'s page (the judge's view), with the refused
        entry a call is about put in its place, so the viewer opens at it."""
        from coreflow_judge.cli.viewer_page import page
        from coreflow_judge.events.models import MatchStarted
        from coreflow_judge.events.reader import lines_of_header

        grant = await run_in_threadpool(grant_of, request, path_token=True)
        match_id = request.path_params["match_id"]
        row = await run_in_threadpool(db.table, match_id)
        if row is None or grant.role not in ("judge", "organiser") or \
                not grant.may_read(row.event_id):
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        lines = await run_in_threadpool(hub.lines, match_id)
        call = request.query_params.get("call")
        if call is not None and call.isdigit():
            items = await run_in_threadpool(db.feed, int(call) - 1, row.event_id, 1)
            if items and items[0].id == int(call) and items[0].match_id == match_id and \
                    isinstance(items[0].data.get("line"), dict):
                at = int(items[0].data.get("at") or len(lines))
                data = {**items[0].data["line"], "seq": at + 1}
                header = lines[0] if lines else None
                game = lines_of_header(header) if isinstance(header, MatchStarted) else None
                if game is not None:  # the refused entry, read as its game reads a line
                    lines = [*lines[:at], game.validate_python(data)]
        lg = page_lang(request, lang)
        written = await run_in_threadpool(
            page, list(enumerate(lines, start=1)), "judge", {"store": "coreflow serve"}, lg)
        return HTMLResponse(written.html, headers={"Referrer-Policy": "no-referrer",
                                                   "Cache-Control": "no-store"})

    async def organiser_page(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request, path_token=True)
        if grant.role != "organiser":
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        lg = page_lang(request, lang)
        events = [e.as_dict() for e in await run_in_threadpool(db.events)]
        return _page("organiser", lg, "organiser · coreflow",
                     {"token": request.path_params["token"], "events": events})

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("serve.js", "serve.css"):
            return Response("not found", status_code=404)
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        return Response(_asset(name), media_type=f"{kind}; charset=utf-8",
                        headers={"Cache-Control": "no-cache",
                                 "X-Content-Type-Options": "nosniff"})

    # ------------------------------------------------------------------ the table's API
    async def table_api(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        if grant.role != "scorekeeper" or grant.match_id is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        return answer(await run_in_threadpool(table_json, grant.match_id,
                                              page_lang(request, lang)))

    async def table_stream(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        match_id = grant.match_id
        if grant.role != "scorekeeper" or match_id is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        lg = page_lang(request, lang)
        def wanted(item: FeedItem) -> bool:
            return item.match_id == match_id

        return await stream(request, wanted, lambda: table_json(match_id, lg))

    def with_state(match_id: str, request_lang: str, act: Callable[..., dict[str, Any]],
                   *args: Any) -> dict[str, Any]:
        """A table's answer and the table as it is after it (the page draws it at once,
        without asking again; the answer kept in the store has no state)."""
        done = act(*args)
        return {**done, "state": table_json(match_id, request_lang)}

    def writer(request: Request, grant: Grant, data: dict[str, Any]) -> tuple[str, str, int,
                                                                                int | None]:
        """(match id, client, client seq, at) of a table's write, checked."""
        match_id = data.get("match_id", grant.match_id)
        if not isinstance(match_id, str) or not grant.may_write(match_id):
            raise Refused(403, LABELS[page_lang(request, lang)]["not_your_table"])
        client, seq, at = data.get("client"), data.get("client_seq"), data.get("at")
        if not isinstance(client, str) or not 1 <= len(client) <= 64 or \
                not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or \
                (at is not None and (not isinstance(at, int) or isinstance(at, bool))):
            raise Refused(400, "give client (text), client_seq (a number) and at (the last "
                               "seq the page showed)")
        return match_id, client, seq, at

    async def table_write(request: Request) -> tuple[dict[str, Any], str,
                                                      tuple[str, str, int, int | None]]:
        """A table's write, let in: its body, the page's language and (match id, client,
        client seq, at), checked (:func:`writer`)."""
        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        limited(grant, request)
        return data, page_lang(request, lang), writer(request, grant, data)

    async def table_entry(request: Request) -> Response:
        data, lg, (match_id, client, seq, at) = await table_write(request)
        text = data.get("text")
        if not isinstance(text, str):
            raise Refused(400, "give the entry as text")
        return answer(await run_in_threadpool(with_state, match_id, lg, hub.submit, match_id,
                                              client, seq, at, text, lg))

    async def table_undo(request: Request) -> Response:
        data, lg, (match_id, client, seq, at) = await table_write(request)
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise Refused(400, LABELS[lg]["undo_needs_reason"])
        return answer(await run_in_threadpool(with_state, match_id, lg, hub.undo, match_id,
                                              client, seq, at, reason, lg))

    async def table_finish(request: Request) -> Response:
        _data, lg, (match_id, client, seq, at) = await table_write(request)
        return answer(await run_in_threadpool(with_state, match_id, lg, hub.finish, match_id,
                                              client, seq, at, lg))

    async def table_call(request: Request) -> Response:
        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        limited(grant, request)
        match_id, _client, _seq, _at = writer(request, grant, {**data, "client": "call",
                                                               "client_seq": 0})
        row = hub.served(match_id).row
        why = str(data.get("reason") or "")[:MAX_REASON_CHARS]
        await run_in_threadpool(db.post, row.event_id, match_id, "call", {"reason": why})
        return answer({"status": "called"})

    # ------------------------------------------------------------------ the spectator's API
    async def watch_api(request: Request) -> Response:
        return answer(await run_in_threadpool(watch_json, request.path_params["match_id"],
                                              page_lang(request, lang)))

    async def watch_stream(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        await run_in_threadpool(hub.served, match_id)
        lg = page_lang(request, lang)
        return await stream(request, lambda item: item.match_id == match_id and
                            item.kind in ("line",), lambda: watch_json(match_id, lg))

    # ------------------------------------------------------------------ the judge's API
    def judge_grant(grant: Grant, request: Request) -> str:
        if grant.role not in ("judge", "organiser") or grant.event_id is None:
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])
        return grant.event_id

    async def judge_api(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        event_id = judge_grant(grant, request)
        return answer(await run_in_threadpool(judge_json, event_id, page_lang(request, lang)))

    async def judge_stream(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        event_id = judge_grant(grant, request)
        lg = page_lang(request, lang)
        return await stream(request, lambda item: item.event_id == event_id,
                            lambda: judge_json(event_id, lg))

    async def judge_ruling(request: Request) -> Response:
        """A judge's ruling on a table: its words (kept in the feed, ending the call) and,
        if the ruling takes entries back, a correction appended like ``undo``."""
        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        event_id = judge_grant(grant, request)
        limited(grant, request)
        match_id = data.get("match_id")
        row = await run_in_threadpool(db.table, match_id) if isinstance(match_id, str) else None
        if row is None or row.event_id != event_id:
            raise Refused(403, LABELS[page_lang(request, lang)]["not_your_table"])
        text = str(data.get("text") or "").strip()[:MAX_REASON_CHARS]
        back = data.get("take_back", 0)
        if not text or not isinstance(back, int) or isinstance(back, bool) or back < 0:
            raise Refused(400, LABELS[page_lang(request, lang)]["ruling_needs_text"])
        result: dict[str, Any] = {"status": "recorded"}
        if back:
            client = data.get("client") if isinstance(data.get("client"), str) else "judge"
            got = data.get("client_seq")
            seq = got if isinstance(got, int) else 0
            result = await run_in_threadpool(
                hub.undo, row.match_id, f"judge:{client}"[:64], seq, data.get("at"), text,
                page_lang(request, lang), back, "judge")
            if result["status"] != "accepted":
                return answer(result)
        await run_in_threadpool(db.post, event_id, row.match_id, "ruling",
                                {"text": text, "take_back": back})
        return answer(result)

    # ------------------------------------------------------------------ the organiser's API
    def organiser(grant: Grant, request: Request) -> None:
        if grant.role != "organiser":
            raise Refused(403, LABELS[page_lang(request, lang)]["bad_token"])

    async def new_event(request: Request) -> Response:
        from coreflow_judge.adjudicator.plugins import is_registered

        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event_id, name = data.get("event_id"), data.get("name")
        rules, fmt = data.get("rules"), data.get("format") or None
        if not isinstance(event_id, str) or not EVENT_ID.match(event_id):
            raise Refused(400, "event_id: letters, digits, - and _ (at most 40)")
        if not isinstance(name, str) or not name.strip() or len(name) > 100:
            raise Refused(400, "name: the event's name (at most 100 characters)")
        if not isinstance(rules, str) or not is_registered(rules.partition("/")[0]) \
                or "/" not in rules:
            raise Refused(400, "rules: GAME/EDITION (blackpoker/9.0, duel_masters/1.47, ...)")
        if fmt is not None and (not isinstance(fmt, str) or not LABEL.match(fmt)):
            raise Refused(400, "format: a format of the game")
        if await run_in_threadpool(db.event, event_id) is not None:
            raise Refused(409, f"an event {event_id!r} exists already")
        event = await run_in_threadpool(db.add_event, event_id, name.strip(), rules, fmt)
        judge = await run_in_threadpool(db.issue, "judge", event_id, None, "judge")
        return answer({"event": event.as_dict(), "judge_token": judge,
                       **_link(request, judge, "judge")})

    async def new_table(request: Request) -> Response:
        from coreflow_judge.adjudicator.judge import JudgeInputError
        from coreflow_judge.events.store import MatchAlreadyRecorded

        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event = await run_in_threadpool(db.event, str(data.get("event_id")))
        if event is None:
            raise Refused(404, "no such event")
        round_, table_no = str(data.get("round", "")), str(data.get("table", ""))
        players = data.get("players")
        header = data.get("header")
        if not LABEL.match(round_) or not LABEL.match(table_no):
            raise Refused(400, "round and table: short labels (1, 2, final)")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise Refused(400, "players: the players' names in seat order")
        if header is not None and not isinstance(header, dict):
            raise Refused(400, "header: a match_started line's fields (decks, cards)")
        try:
            row = await run_in_threadpool(hub.create_table, event, round_, table_no,
                                          players, header)
        except (ValueError, JudgeInputError) as exc:
            raise Refused(400, f"the match cannot start: {str(exc).splitlines()[0]}") from None
        except MatchAlreadyRecorded:
            raise Refused(409, "that table of that round exists already") from None
        token = await run_in_threadpool(db.issue, "scorekeeper", event.event_id,
                                        row.match_id, f"r{round_}-t{table_no}")
        await run_in_threadpool(db.post, event.event_id, row.match_id, "table", {})
        return answer({"table": row.as_dict(), "token": token, **_link(request, token)})

    async def reissue(request: Request) -> Response:
        """Revoke a table's tokens (or the event's judges') and issue a new one."""
        data = await body_of(request)
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event_id, match_id = str(data.get("event_id")), data.get("match_id")
        if await run_in_threadpool(db.event, event_id) is None:
            raise Refused(404, "no such event")
        if isinstance(match_id, str):
            row = await run_in_threadpool(db.table, match_id)
            if row is None or row.event_id != event_id:
                raise Refused(404, "no such table")
            revoked = await run_in_threadpool(lambda: db.revoke(event_id=event_id,
                                                                match_id=match_id))
            token = await run_in_threadpool(db.issue, "scorekeeper", event_id, match_id,
                                            f"r{row.round}-t{row.table_no}")
        else:
            revoked = await run_in_threadpool(lambda: db.revoke(event_id=event_id,
                                                                role="judge"))
            token = await run_in_threadpool(db.issue, "judge", event_id, None, "judge")
        path = "table" if isinstance(match_id, str) else "judge"
        return answer({"revoked": revoked, "token": token, **_link(request, token, path)})

    async def event_api(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event_id = request.path_params["event_id"]
        event = await run_in_threadpool(db.event, event_id)
        if event is None:
            raise Refused(404, "no such event")
        tables = [t.as_dict() for t in await run_in_threadpool(db.tables, event_id)]
        tokens = await run_in_threadpool(db.tokens, event_id)
        return answer({"event": event.as_dict(), "tables": tables, "tokens": tokens})

    async def report_api(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event = await run_in_threadpool(db.event, request.path_params["event_id"])
        if event is None:
            raise Refused(404, "no such event")
        lg = page_lang(request, lang)

        def made() -> dict[str, Any]:
            with report_lock:
                return event_report(store, event, audit, lg)

        return answer(await run_in_threadpool(made))

    async def download(request: Request) -> Response:
        grant = await run_in_threadpool(grant_of, request)
        organiser(grant, request)
        event = await run_in_threadpool(db.event, request.path_params["event_id"])
        if event is None:
            raise Refused(404, "no such event")
        what = request.path_params["what"]
        if what == "logs.zip":
            tables = await run_in_threadpool(db.tables, event.event_id)

            def zipped() -> bytes:
                out = io.BytesIO()
                with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                    for t in tables:
                        z.writestr(f"{t.match_id}.jsonl", hub.recorder.export_jsonl(t.match_id))
                return out.getvalue()

            return Response(await run_in_threadpool(zipped), media_type="application/zip",
                            headers={"Content-Disposition":
                                     f'attachment; filename="{event.event_id}-logs.zip"',
                                     "Cache-Control": "no-store"})
        if what in ("matches.parquet", "findings.parquet"):
            from coreflow_judge.audit.projection import isolated_write
            from coreflow_judge.serve.report import refreshed_audit, sql_text

            table = what.removesuffix(".parquet")

            def written() -> bytes:
                with report_lock:
                    path = refreshed_audit(store, audit)
                with tempfile.TemporaryDirectory(prefix="coreflow-serve.") as tmp:
                    target = Path(tmp) / what
                    where = ("tournament" if table == "matches" else
                             "match_id IN (SELECT match_id FROM matches WHERE tournament")
                    close = "" if table == "matches" else ")"
                    isolated_write(path, f"SELECT * FROM {table} WHERE {where} = "
                                         f"{sql_text(event.name)}{close}", target, "parquet")
                    return target.read_bytes()

            return Response(await run_in_threadpool(written),
                            media_type="application/vnd.apache.parquet",
                            headers={"Content-Disposition":
                                     f'attachment; filename="{event.event_id}-{what}"',
                                     "Cache-Control": "no-store"})
        raise Refused(404, "downloads: logs.zip, matches.parquet, findings.parquet")

    routes = [
        Route("/", guarded(home)),
        Route("/table/{token}", guarded(table_page)),
        Route("/watch/{match_id}", guarded(watch_page)),
        Route("/judge/{token}", guarded(judge_page)),
        Route("/judge/{token}/view/{match_id}", guarded(judge_view)),
        Route("/organiser/{token}", guarded(organiser_page)),
        Route("/assets/{name}", asset),
        Route("/api/table", guarded(table_api)),
        Route("/api/table/stream", guarded(table_stream)),
        Route("/api/table/entry", guarded(table_entry), methods=["POST"]),
        Route("/api/table/undo", guarded(table_undo), methods=["POST"]),
        Route("/api/table/call", guarded(table_call), methods=["POST"]),
        Route("/api/table/finish", guarded(table_finish), methods=["POST"]),
        Route("/api/watch/{match_id}", guarded(watch_api)),
        Route("/api/watch/{match_id}/stream", guarded(watch_stream)),
        Route("/api/judge", guarded(judge_api)),
        Route("/api/judge/stream", guarded(judge_stream)),
        Route("/api/judge/ruling", guarded(judge_ruling), methods=["POST"]),
        Route("/api/organiser/events", guarded(new_event), methods=["POST"]),
        Route("/api/organiser/tables", guarded(new_table), methods=["POST"]),
        Route("/api/organiser/reissue", guarded(reissue), methods=["POST"]),
        Route("/api/organiser/events/{event_id}", guarded(event_api)),
        Route("/api/organiser/events/{event_id}/report", guarded(report_api)),
        Route("/api/organiser/events/{event_id}/download/{what}", guarded(download)),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if on_start is not None:
            on_start(db)
        task = asyncio.create_task(broker.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            hub.close()
            db.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.db = db
    app.state.hub = hub
    return app
