"""What one entry at the table costs early in a match and late in it, in one run.

``coreflow play`` judges every line as it is entered (issue 26 item 4: a line at seq
1,000 should cost what a line at seq 10 does: no replay of the match per line). This
types simulated BlackPoker games as a scorekeeper does — decisions only, the lines the
rules fill in taken as they come — through the same :class:`cli.session.Session` the
command runs, on a real SQLite store in a temporary folder, and times each entry
(reading the notation, judging, storing, answering).

Prints, per game, the median cost of an entry among the first and the last 30 entries
and their ratio, and the cost per stored line of the match (the slope: microseconds an
entry costs more for each line already recorded). Entries that replay the match (a line
that says more than the one filled in, an undo) are counted apart.

Usage: ``python benchmarks/bench_play.py [--games N] [--seeds S]``. Never a timed test.
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from pathlib import Path

from coreflow_judge.adjudicator.games.blackpoker import play as blackpoker_play
from coreflow_judge.adjudicator.live import LiveTable
from coreflow_judge.adjudicator.notation import to_notation
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.cli.play import Output
from coreflow_judge.cli.session import Session, Speaker
from coreflow_judge.events.models import LogLine, MatchStarted
from coreflow_judge.events.reader import canonical_dict
from coreflow_judge.events.store import open_recorder

EDGE = 30


def _said(line: LogLine) -> dict[str, object]:
    data = canonical_dict(line)
    data.pop("seq", None)
    return data


def longest_games(count: int, seeds: int) -> list[list[LogLine]]:
    """The ``count`` longest of ``seeds`` simulated 9.0 standard games, written as a
    table writes them (no effects claimed where the rules know them)."""
    plugin = game_plugin("blackpoker")
    assert plugin.simulate is not None
    rate = blackpoker_play.CLAIM_RATE
    blackpoker_play.CLAIM_RATE = 0
    try:
        games = [plugin.simulate("9.0", "standard", s, f"bench-play-{s}") for s in range(seeds)]
    finally:
        blackpoker_play.CLAIM_RATE = rate
    return sorted(games, key=len, reverse=True)[:count]


def type_game(lines: list[LogLine], folder: Path) -> list[tuple[int, float, bool]]:
    """Type ``lines`` into a session on a new SQLite store: each entry's seq, seconds and
    whether the match was replayed for it."""
    replays = [0]
    original = LiveTable._replay

    def counted(self: LiveTable, fill: int | None = None):  # type: ignore[no-untyped-def]
        replays[0] += 1
        return original(self, fill)

    LiveTable._replay = counted  # type: ignore[method-assign]
    out: list[tuple[int, float, bool]] = []
    try:
        with open_recorder(str(folder / "bench.db")) as recorder:  # type: ignore[attr-defined]
            session = Session(recorder, Speaker(io.StringIO(), Output.text, "en"), False, False)
            header = lines[0]
            assert isinstance(header, MatchStarted)
            session.start(header)
            table = session.table
            assert table is not None
            no = 1
            while True:
                at = len(table.stored)
                ahead = table.ahead()
                held = 0
                while held < len(ahead) and at + held < len(lines) and \
                        _said(ahead[held]) == _said(lines[at + held]):
                    held += 1
                if at + held >= len(lines):
                    break
                text = to_notation(lines[at + held])
                no += 1
                before = replays[0]
                start = time.perf_counter()
                session.take(no, text)
                out.append((at, time.perf_counter() - start, replays[0] != before))
                table = session.table
                assert table is not None
                if len(table.stored) == at and not table.filled:
                    raise SystemExit(f"entry {no} ({text}) was refused")
    finally:
        LiveTable._replay = original  # type: ignore[method-assign]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=12)
    args = parser.parse_args()
    print(f"{'game':>12} {'lines':>6} {'entries':>7} {'first ms':>9} {'last ms':>8} "
          f"{'last/first':>10} {'us/line':>8} {'replays':>7}")
    for game in longest_games(args.games, args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            timed = type_game(game, Path(tmp))
        plain = [(at, t) for at, t, replayed in timed if not replayed]
        first, last = plain[:EDGE], plain[-EDGE:]
        f_ms = statistics.median(t for _, t in first) * 1e3
        l_ms = statistics.median(t for _, t in last) * 1e3
        span = statistics.median(at for at, _ in last) - statistics.median(at for at, _ in first)
        slope = (l_ms - f_ms) * 1e3 / span if span else 0.0
        header = game[0]
        assert isinstance(header, MatchStarted)
        name = header.match_id
        print(f"{name[-12:]:>12} {len(game):>6} {len(timed):>7} {f_ms:>9.2f} {l_ms:>8.2f} "
              f"{l_ms / f_ms:>10.2f} {slope:>8.2f} {len(timed) - len(plain):>7}")


if __name__ == "__main__":
    main()
