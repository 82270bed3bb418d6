"""Edition data checked once per content, not once per start (issue 26).

A game's edition data is YAML shipped in the package, checked against what its rules
module knows when it is loaded: parsing the YAML and checking it costs a start of the
command about a tenth of a second, every time. :func:`checked_data` keeps the data it
checked as JSON in the user's cache directory, under a key made of everything the result
depends on (:func:`cache_key`): the bytes of every data file of the game
(``data/*.yaml``), of every module of the game's package (its rules module checks the
data) and of the shared modules beside this one (the loader), the Python version and
this cache's format. A game's ``disclosure.yaml`` (who sees which zone) is kept the same
way. A start whose key matches reads the JSON and checks nothing; any
change to a data file or to that code gives another key, and the data is loaded and
checked again (and the cache rewritten). The key is computed from the files' bytes, never
their times, so an edited file that keeps its size and time is still seen.

Where: ``$COREFLOW_CACHE_DIR`` if set (empty: no cache at all), else
``$XDG_CACHE_HOME/coreflow``, else ``~/.cache/coreflow``; never the package's own folder,
which may be read-only (an installed package, a read-only image). Nothing that goes
wrong with the cache is the user's problem: a directory that cannot be created or
written, a file that cannot be read, a file another process is replacing, a file that is
not what this module wrote: the data is loaded and checked as without a cache. A file is
written whole under a temporary name and renamed into place, so a reader sees the old
content or the new one, never a part. The folder is trusted as the user's own files are
(the key can be computed by anyone with the package): a cache folder that other users may
write to could change the rules the judge applies, so it is never a shared one by
default, and its files are written readable by their owner only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1
"""Changes when what this module writes changes."""

_MEMO: dict[tuple[str, str], dict[str, Any]] = {}
"""The data of each (package, name) this process loaded: one object per process, as
the loader's own cache gives."""


def cache_dir() -> Path | None:
    """Where the checked data is kept, or None for no cache (``COREFLOW_CACHE_DIR=``)."""
    chosen = os.environ.get("COREFLOW_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # no home directory to expand: no cache
        return None
    return Path(base) / "coreflow"


def cache_key(package: str, name: str) -> str:
    """The hash of everything the checked data ``name`` depends on: the game's data
    files, the code of its package (its rules module and whatever checks the data), the
    shared loader and this module."""
    h = hashlib.sha256()
    h.update(f"{CACHE_FORMAT}\0{sys.version}\0{package}\0{name}\0".encode())
    sources = [resources.files(package).joinpath("data"), resources.files(package),
               resources.files(__package__ or "coreflow_judge.adjudicator.games")]
    for folder in sources:
        for f in sorted((f for f in folder.iterdir() if f.name.endswith((".yaml", ".py"))),
                        key=lambda f: f.name):
            content = f.read_bytes()
            h.update(f"{f.name}\0{len(content)}\0".encode())
            h.update(content)
    return h.hexdigest()


def _file(folder: Path, package: str, name: str) -> Path:
    game = package.rpartition(".")[2]
    return folder / f"{game}-{name}.json"


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        with path.open("rb") as fh:
            stored = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key or \
            not isinstance(stored.get("data"), dict):
        return None
    data: dict[str, Any] = stored["data"]
    return data


def _write(path: Path, key: str, data: dict[str, Any]) -> None:
    text = json.dumps({"key": key, "data": data}, ensure_ascii=False)
    if json.loads(text)["data"] != data:
        return  # data JSON does not carry as it is (no such edition today): not cached
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return  # a cache that cannot be written: the next start checks again


def checked_data(package: str, name: str, load: Callable[[], dict[str, Any]],
                 ) -> dict[str, Any]:
    """The data ``load`` gives (it reads the package's data and checks it, raising on
    data that is wrong), from the cache when the cache holds it for the same data files
    and code (:func:`cache_key`). ``name`` names it among the package's data
    (``edition-9.0``, ``disclosure``)."""
    memo = _MEMO.get((package, name))
    if memo is not None:
        return memo
    folder = cache_dir()
    if folder is None:
        data = load()
    else:
        key = cache_key(package, name)
        path = _file(folder, package, name)
        cached = _read(path, key)
        if cached is not None:
            data = cached
        else:
            data = load()
            _write(path, key, data)
    _MEMO[(package, name)] = data
    return data
