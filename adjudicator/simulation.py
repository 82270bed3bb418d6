"""What every game's seeded simulator shares: feeding the engine lines it must accept."""

from __future__ import annotations

from collections.abc import Callable

from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.flow import CoreFlow
from coreflow_judge.events.models import LogLine


class SimulationError(RuntimeError):
    """The engine refused a line the simulator took for legal (a bug in one of them)."""


def feed_legal(flow: CoreFlow, line: LogLine) -> list[Finding]:
    """Feed a line the simulator chose as legal; an error finding is a bug, raised."""
    findings = flow.feed(line)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise SimulationError(
            f"the engine refused line {line.seq} ({line.model_dump_json(exclude_none=True)}): "
            + "; ".join(f"{f.code}: {f.message}" for f in errors))
    return findings


def play_out(flow: CoreFlow, play_next: Callable[[], None], max_lines: int) -> list[LogLine]:
    """Play on (``play_next`` feeds the next decision and what follows it) until the rules
    decide the game or the complete log has ``max_lines`` lines; return the complete log
    (an unfinished game ends there, with no result)."""
    while flow.result is None and len(flow.complete) < max_lines:
        play_next()
    flow.finish()
    return flow.complete_log()
