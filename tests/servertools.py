"""A real ``coreflow serve`` for the tests: the command in a process of its own, on a
free port of 127.0.0.1, talked to over real HTTP (urllib) and its event streams read as
a browser reads them (server-sent events)."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

ROOT = Path(__file__).resolve().parent.parent
STARTUP_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``coreflow serve --store STORE --port PORT``; :attr:`organiser` is its token."""

    def __init__(self, store: str, port: int | None = None, lang: str = "en",
                 rate: float = 10_000) -> None:
        self.store = store
        self.rate = rate
        self.port = port or free_port()
        self.lang = lang
        self.proc: subprocess.Popen[str] | None = None
        self.organiser = ""
        self.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "coreflow_judge.cli.main", "serve", "--store", self.store,
             "--port", str(self.port), "--lang", self.lang, "--rate", str(self.rate)],
            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        deadline = time.monotonic() + STARTUP_S
        said: list[str] = []
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("coreflow serve stopped: " + "".join(said))
            said.append(line)
            found = re.search(r"organiser: http://\S+/organiser/(\S+)", line)
            if found:
                self.organiser = found.group(1)
                break
        else:
            raise RuntimeError("coreflow serve did not start: " + "".join(said))
        while time.monotonic() < deadline:  # the lifespan said it; is the port open?
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self.proc = None

    # ------------------------------------------------------------------ HTTP
    def call(self, path: str, token: str | None = None, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """(status, JSON answer) of a GET, or of a POST of ``body`` as JSON."""
        head = dict(headers or {})
        if token is not None:
            head["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            head.setdefault("Content-Type", "application/json")
        request = Request(self.base + path, data=data, headers=head,
                          method="POST" if body is not None else "GET")
        try:
            with urlopen(request, timeout=60) as r:
                return r.status, json.loads(r.read())
        except HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def text(self, path: str) -> tuple[int, str]:
        try:
            with urlopen(self.base + path, timeout=60) as r:
                return r.status, r.read().decode("utf-8")
        except HTTPError as exc:
            return exc.code, exc.read().decode("utf-8")

    def ok(self, path: str, token: str | None = None, body: Any = None) -> Any:
        status, answer = self.call(path, token, body)
        assert status == 200, (status, answer)
        return answer

    # ------------------------------------------------------------------ set-up
    def event(self, event_id: str, rules: str = "blackpoker/9.0",
              fmt: str | None = None) -> str:
        """Create an event; its judges' token."""
        answer = self.ok("/api/organiser/events", self.organiser,
                         {"event_id": event_id, "name": f"{event_id} cup", "rules": rules,
                          "format": fmt})
        return str(answer["judge_token"])

    def table(self, event_id: str, table: str, players: list[str],
              header: dict[str, Any] | None = None, round_: str = "1") -> tuple[str, str]:
        """Create a table; (its match id, its scorekeeper's token)."""
        answer = self.ok("/api/organiser/tables", self.organiser,
                         {"event_id": event_id, "round": round_, "table": table,
                          "players": players, "header": header})
        return str(answer["table"]["match_id"]), str(answer["token"])


class Stream:
    """One server-sent event stream, read as it comes."""

    def __init__(self, server: Server, path: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.read()
        self.raw: list[str] = []
        """Every line the stream sent, as sent."""
        self.states: list[str] = []
        """The data of each ``state`` event, as sent."""

    def next_state(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next ``state`` event's data."""
        sock = self.conn.sock
        assert sock is not None
        sock.settimeout(timeout)
        data: list[str] = []
        kind = None
        while True:
            line = self.response.fp.readline().decode("utf-8")
            if not line:
                raise EOFError("the stream ended")
            self.raw.append(line)
            line = line.rstrip("\n")
            if line.startswith("event:"):
                kind = line.partition(":")[2].strip()
            elif line.startswith("data:"):
                data.append(line.partition(":")[2].strip())
            elif not line and data:
                if kind == "state":
                    self.states.append("\n".join(data))
                    return dict(json.loads("\n".join(data)))
                data, kind = [], None

    def close(self) -> None:
        self.conn.close()
