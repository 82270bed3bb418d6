"""A progress line on standard error for long work, shown only on a terminal.

``with progress("judge", total) as bar: ... bar.update(done)`` draws one line,
``judge [########........]  12/30``, redrawn at most ten times a second and erased when
the work ends. When standard error is not a terminal (a pipe, a file, a test runner)
nothing at all is written: what a command prints stays exactly the same.

A message printed while the line is shown (an error on stderr, a result on stdout that
shares the terminal) first erases the line (:func:`clear`); the next update draws it
again below the message.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

WIDTH = 24
"""The width of the bar itself, in characters."""
INTERVAL = 0.1
"""The shortest time between two redraws, in seconds (the last step is always drawn)."""


class Bar:
    """One progress line; draws nothing unless its stream is a terminal."""

    def __init__(self, label: str, total: int, stream: TextIO) -> None:
        self.label = label
        self.total = total
        self.stream = stream
        self.shown = _is_terminal(stream)
        self.drawn = False
        self._last = float("-inf")

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` of ``total`` items are finished (``total`` may be learnt late)."""
        if total is not None:
            self.total = total
        if not self.shown:
            return
        now = time.monotonic()
        if now - self._last < INTERVAL and done < self.total:
            return
        self._last = now
        total = max(self.total, 1)
        filled = min(WIDTH, WIDTH * done // total)
        width = len(str(total))
        self.stream.write(f"\r\x1b[K{self.label} [{'#' * filled}{'.' * (WIDTH - filled)}] "
                          f"{done:>{width}}/{total}")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        """Erase the line, if it is drawn (before a message, and when the work ends)."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False
            self._last = float("-inf")  # drawn again at the next update


_active: list[Bar] = []


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a closed or file-less stream
        return False


@contextmanager
def progress(label: str, total: int = 0, stream: TextIO | None = None) -> Iterator[Bar]:
    """A progress line for the work of the ``with`` block, erased when it ends."""
    bar = Bar(label, total, stream if stream is not None else sys.stderr)
    _active.append(bar)
    try:
        yield bar
    finally:
        _active.remove(bar)
        bar.clear()


def clear() -> None:
    """Erase any progress line now shown, so that a message starts at the line's start."""
    for bar in _active:
        bar.clear()
