"""A headless Chromium driven over the Chrome DevTools Protocol: just what the viewer's
tests need (open a page, run a script in it, press keys, click, take a screenshot, list
the requests the page made).

Why this and not Selenium: the protocol is JSON over one websocket, and the few commands
used here fit in a page of code; the only dependency is the small ``websockets`` package
(pure Python, no binary of its own), where Selenium would need Debian's chromedriver to
match the browser's version and bring its own stack of packages. The browser is Debian's
``chromium`` (``.ci/run`` installs it), started with its own throwaway profile and no
background networking.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

BINARIES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
STARTUP_TIMEOUT = 60.0
COMMAND_TIMEOUT = 60.0

#: Keys as ``Input.dispatchKeyEvent`` wants them: key -> (code, Windows key code, text).
KEYS: dict[str, tuple[str, int, str]] = {
    "ArrowRight": ("ArrowRight", 39, ""), "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowDown": ("ArrowDown", 40, ""), "ArrowUp": ("ArrowUp", 38, ""),
    "Home": ("Home", 36, ""), "End": ("End", 35, ""),
    "j": ("KeyJ", 74, "j"), "k": ("KeyK", 75, "k"),
    "n": ("KeyN", 78, "n"), "p": ("KeyP", 80, "p"), "d": ("KeyD", 68, "d"),
    "t": ("KeyT", 84, "t"), "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
}


class BrowserError(RuntimeError):
    """The browser did not start, or a command failed (its message says which)."""


def chromium_binary() -> str | None:
    """The path of a Chromium on this machine, or None."""
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless Chromium and one page (tab) in it, attached over the DevTools socket.

    ``with Chromium(width, height) as browser:`` starts it with a fresh profile in a
    temporary directory and a viewport of that size (device scale 1); leaving the block
    closes it and removes the profile.
    """

    def __init__(self, width: int = 1280, height: int = 800) -> None:
        binary = chromium_binary()
        if binary is None:
            raise BrowserError("no chromium on this machine")
        self.width, self.height = width, height
        self.profile = Path(tempfile.mkdtemp(prefix="coreflow-chromium."))
        self._log = (self.profile / "chromium.log").open("wb")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--remote-debugging-port=0", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--font-render-hinting=none",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        self._ids = itertools.count(1)
        self._closing = contextlib.ExitStack()
        self.events: list[dict[str, Any]] = []
        self.requested: list[str] = []
        """The URL of every request a page made (``Network.requestWillBeSent``)."""
        try:
            self.socket: ClientConnection = self._closing.enter_context(
                connect(self._endpoint(), max_size=None, open_timeout=STARTUP_TIMEOUT))
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target,
                                     flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Network"):
                self.call(f"{domain}.enable", session=True)
            self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                      height=height, deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.close()
            raise

    def _endpoint(self) -> str:
        """The browser's websocket URL, from the DevToolsActivePort file it writes."""
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrowserError(f"chromium exited with status {self.proc.returncode}: "
                                   f"{self._output()}")
            if port_file.exists():
                parts = port_file.read_text().split()
                if len(parts) == 2:
                    return f"ws://127.0.0.1:{parts[0]}{parts[1]}"
            time.sleep(0.05)
        raise BrowserError(f"chromium did not open its DevTools port: {self._output()}")

    def _output(self) -> str:
        self._log.flush()
        return (self.profile / "chromium.log").read_text(errors="replace")[-2000:]

    # ------------------------------------------------------------------ the protocol
    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command (to the page's session when ``session``) and wait for its
        answer; events that arrive meanwhile are kept in :attr:`events`."""
        number = next(self._ids)
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"{method}: no answer in {COMMAND_TIMEOUT:.0f} s")
            answer = json.loads(self.socket.recv(timeout=left))
            if answer.get("id") != number:
                self._keep(answer)
                continue
            if "error" in answer:
                raise BrowserError(f"{method}: {answer['error']}")
            result: dict[str, Any] = answer.get("result", {})
            return result

    def wait_for(self, method: str, timeout: float = COMMAND_TIMEOUT) -> dict[str, Any]:
        """The next event ``method`` of the page (one that came already, else the next)."""
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[: i + 1]
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no {method} in {timeout:.0f} s")
            self._keep(json.loads(self.socket.recv(timeout=left)))

    def _keep(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if event.get("method") == "Network.requestWillBeSent":
            self.requested.append(event["params"]["request"]["url"])

    # ------------------------------------------------------------------ the page
    def open(self, url: str, ready: str = "document.body && document.body.dataset.ready"
             ) -> None:
        """Load ``url`` and wait until it is loaded and ``ready`` (a script) is true."""
        # By way of a blank page: the same file with another #fragment is then loaded
        # anew (straight there, it would be a navigation within the page, with no load).
        for where in ("about:blank", url):
            self.events.clear()
            self.requested.clear()
            self.call("Page.navigate", session=True, url=where)
            self.wait_for("Page.loadEventFired")
        deadline = time.monotonic() + COMMAND_TIMEOUT
        while not self.evaluate(ready):
            if time.monotonic() > deadline:
                raise BrowserError(f"{url}: not ready ({ready}) in {COMMAND_TIMEOUT:.0f} s")
            time.sleep(0.05)

    def evaluate(self, script: str) -> Any:
        """The value of a script run in the page (JSON-able values only)."""
        answer = self.call("Runtime.evaluate", session=True, expression=script,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"the page's script failed: {text}")
        return answer.get("result", {}).get("value")

    def press(self, key: str) -> None:
        """Press and release one key of :data:`KEYS` on the focused page."""
        code, number, text = KEYS[key]
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": key,
                                "code": code, "windowsVirtualKeyCode": number}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", session=True, **down)
        self.call("Input.dispatchKeyEvent", session=True, type="keyUp", key=key, code=code,
                  windowsVirtualKeyCode=number)

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused element, as an input method would insert it."""
        self.call("Input.insertText", session=True, text=text)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element ``selector`` names (scrolled
        into view first)."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"nothing in the page matches {selector!r}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y,
                      button="left", clickCount=1)

    def platform_fonts(self, selector: str) -> list[str]:
        """The family of every font of this machine that drew the text of the first
        element ``selector`` names (``CSS.getPlatformFontsForNode``): what the browser
        really used, after the style's font-family list and the system's fallbacks."""
        self.call("DOM.enable", session=True)
        self.call("CSS.enable", session=True)
        root = self.call("DOM.getDocument", session=True)["root"]["nodeId"]
        node = self.call("DOM.querySelector", session=True, nodeId=root,
                         selector=selector)["nodeId"]
        if not node:
            raise BrowserError(f"nothing in the page matches {selector!r}")
        fonts = self.call("CSS.getPlatformFontsForNode", session=True, nodeId=node)["fonts"]
        return [f["familyName"] for f in fonts if f.get("glyphCount", 0) > 0]

    def screenshot(self) -> bytes:
        """The viewport as a PNG."""
        shot = self.call("Page.captureScreenshot", session=True, format="png")
        return base64.b64decode(shot["data"])

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        socket = getattr(self, "socket", None)
        if socket is not None:
            try:
                self.call("Browser.close")
            except Exception:  # noqa: BLE001 - closing anyway
                pass
        self._closing.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def file_url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")

