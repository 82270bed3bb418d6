"""Helpers the judge's tests share: renumber a log, judge it, list its errors."""

from __future__ import annotations

import json

from adjudicator.judge import Report, judge_lines
from events.models import LogLine

Log = list[LogLine]


def renumber(lines: Log) -> Log:
    """The lines with seq 1, 2, 3, ... and no hash (after lines were cut or inserted)."""
    return [line.model_copy(update={"seq": i, "hash": None}) for i, line in enumerate(lines, 1)]


def judge(lines: Log) -> Report:
    return judge_lines(enumerate(renumber(lines), 1))


def errors(report: Report) -> list[tuple[str, int]]:
    """``(code, seq)`` of every error finding."""
    return [(f.code, f.seq) for f in report.findings if f.severity == "error"]


def identity(line: LogLine) -> str:
    """A line without its position: what it says, not where it stands."""
    return json.dumps(line.model_dump(mode="json", exclude={"seq", "hash"}, exclude_none=True),
                      sort_keys=True)
