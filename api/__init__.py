"""coreflow: record, judge and audit matches of interruptible turn-based card games.

The public Python API (docs/api.md has a worked example)::

    import coreflow_judge as cf

    log = cf.read_log("fixtures/examples/disputed-counter.jsonl")
    report = cf.judge(log)                  # findings as objects, the rules' result
    board = log.board(at=8)                 # the board after line 8
    step = log.next_step(at=8)              # what the rules wanted next, who may request
    table = cf.Table({"match_id": "t1", "rules": "blackpoker/9.0",
                      "players": ["alice", "bob"]})
    answer = table.push("start alice")      # judged at once: accepted, findings
    cf.matches("tournament.db")             # recorded matches with the rules' results
    cf.Audit("tournament.db").arrow("SELECT * FROM findings")   # needs pyarrow

Only the names in ``__all__`` are the API; the subpackages (``coreflow_judge.adjudicator``
and so on) are the implementation and may change. Importing this package loads nothing
else: each name is imported when it is first used (``coreflow --help`` stays fast).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from coreflow_judge._log import (
        Log,
        MatchNotRecorded,
        NoStore,
        RecordChanged,
        board,
        judge,
        load_match,
        next_step,
        parse_log,
        read_log,
    )
    from coreflow_judge._store import (
        Audit,
        MatchSummary,
        Standing,
        Standings,
        matches,
        standings,
    )
    from coreflow_judge._table import Table
    from coreflow_judge.adjudicator.findings import Finding
    from coreflow_judge.adjudicator.judge import JudgeInputError, Report
    from coreflow_judge.adjudicator.live import Answer
    from coreflow_judge.adjudicator.next_step import Allowed, NextStep, Waiting
    from coreflow_judge.adjudicator.notation import NotationError
    from coreflow_judge.events.models import LogLine
    from coreflow_judge.events.reader import LineError, LogReadError

_WHERE: dict[str, str] = {
    # reading and judging a log
    "Log": "coreflow_judge._log",
    "read_log": "coreflow_judge._log",
    "parse_log": "coreflow_judge._log",
    "load_match": "coreflow_judge._log",
    "judge": "coreflow_judge._log",
    "board": "coreflow_judge._log",
    "next_step": "coreflow_judge._log",
    "Report": "coreflow_judge.adjudicator.judge",
    "Finding": "coreflow_judge.adjudicator.findings",
    "NextStep": "coreflow_judge.adjudicator.next_step",
    "Allowed": "coreflow_judge.adjudicator.next_step",
    "Waiting": "coreflow_judge.adjudicator.next_step",
    "LogLine": "coreflow_judge.events.models",
    "LineError": "coreflow_judge.events.reader",
    # the live table
    "Table": "coreflow_judge._table",
    "Answer": "coreflow_judge.adjudicator.live",
    # the recorded matches
    "matches": "coreflow_judge._store",
    "MatchSummary": "coreflow_judge._store",
    "standings": "coreflow_judge._store",
    "Standings": "coreflow_judge._store",
    "Standing": "coreflow_judge._store",
    "Audit": "coreflow_judge._store",
    # errors
    "JudgeInputError": "coreflow_judge.adjudicator.judge",
    "LogReadError": "coreflow_judge.events.reader",
    "NotationError": "coreflow_judge.adjudicator.notation",
    "MatchNotRecorded": "coreflow_judge._log",
    "NoStore": "coreflow_judge._log",
    "RecordChanged": "coreflow_judge._log",
}
"""Each public name and the module that defines it."""

__all__ = [
    "__version__", "Log", "read_log", "parse_log", "load_match", "judge", "board", "next_step",
    "Report", "Finding", "NextStep", "Allowed", "Waiting", "LogLine", "LineError", "Table",
    "Answer", "matches", "MatchSummary", "standings", "Standings", "Standing", "Audit",
    "JudgeInputError", "LogReadError", "NotationError", "MatchNotRecorded", "NoStore",
    "RecordChanged",
]
"""The public names: ``__version__`` and each name of :data:`_WHERE`."""


if TYPE_CHECKING:
    __version__: str
    """The installed distribution's version (``coreflow --version`` prints the same)."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coreflow-judge")
    except PackageNotFoundError:  # pragma: no cover - imported without being installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a public name when it is first used (PEP 562); ``__version__`` is read
    from the installed distribution's metadata then."""
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'coreflow_judge' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
