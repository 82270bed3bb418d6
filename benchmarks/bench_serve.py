"""``coreflow serve`` under load: many tables entering their lines at once.

Starts one real server (``coreflow serve`` in its own process, on 127.0.0.1), creates
``--tables`` tables of one event, each a seeded simulated BlackPoker game, then one
thread per table enters that game's decisions (``--entries`` of them) over HTTP as a
scorekeeper's page does, one after the other, each with its client sequence number and
the record's last seq. Prints the answer times (median, 95th percentile, worst) and the
throughput, then checks every table's stored record against the record of one sitting
(the same entries pushed into an in-memory table): a line lost, doubled or out of order
is counted.

Usage: ``python benchmarks/bench_serve.py [--store sqlite|URL] [--tables 64]
[--entries 60] [--pace 0]``. Not a test: nothing here asserts a time. The clients run on the same
two cores as the server, so the times include their share of the machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import coreflow_judge as cf  # noqa: E402
from coreflow_judge.adjudicator.ledger import DERIVABLE  # noqa: E402
from coreflow_judge.adjudicator.notation import to_notation  # noqa: E402
from coreflow_judge.adjudicator.plugins import game_plugin  # noqa: E402
from coreflow_judge.events.models import LogLine  # noqa: E402

from tests.servertools import Server  # noqa: E402

GAMES = 8
"""Distinct simulated games, dealt to the tables in turn."""


def games(entries: int) -> list[tuple[dict[str, Any], list[str]]]:
    """(header fields, the first ``entries`` decisions) of each simulated game."""
    plugin = game_plugin("blackpoker")
    assert plugin.simulate is not None
    out = []
    for seed in range(GAMES):
        lines: list[LogLine] = plugin.simulate("9.0", "lite", 100 + seed, f"load-{seed}")
        typed = [to_notation(ln) for ln in lines[1:]
                 if ln.type not in DERIVABLE or ln.type == "trigger"][:entries]
        head = lines[0].model_dump(mode="json", exclude_none=True)
        out.append(({"decks": head["decks"], "players": head["players"]}, typed))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="sqlite",
                        help="sqlite (a new file) or a postgresql:// URL (a new schema)")
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--entries", type=int, default=60)
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds each table waits between its entries (0: none, as "
                             "fast as the server answers; a scorekeeper takes a second or "
                             "more)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="coreflow-bench-serve.")
    if args.store == "sqlite":
        store = str(Path(work) / "load.db")
    else:
        store = f"{args.store}?schema=load_{uuid.uuid4().hex[:8]}"
    played = games(args.entries)
    server = Server(store)
    try:
        server.event("load", fmt="lite")
        tables = []
        for t in range(args.tables):
            fields, typed = played[t % GAMES]
            match_id, token = server.table("load", str(t + 1), fields["players"],
                                           {"decks": fields["decks"]})
            tables.append((match_id, token, typed))
        times: list[float] = []
        refused: list[str] = []
        lock = threading.Lock()

        def scorekeeper(token: str, typed: list[str]) -> None:
            at = None
            rng = random.Random(token)
            for i, entry in enumerate(typed):
                if args.pace:
                    time.sleep(rng.uniform(0.5, 1.5) * args.pace)
                started = time.perf_counter()
                answer = server.ok("/api/table/entry", token,
                                   {"client": "bench", "client_seq": i, "at": at,
                                    "text": entry})
                took = time.perf_counter() - started
                with lock:
                    times.append(took)
                    if answer["status"] != "accepted":
                        refused.append(f"{entry}: {answer}")
                at = answer["last_seq"]

        threads = [threading.Thread(target=scorekeeper, args=(tok, typed))
                   for _m, tok, typed in tables]
        began = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - began
    finally:
        server.stop()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"store: {'SQLite' if args.store == 'sqlite' else 'PostgreSQL'}; "
          f"{args.tables} tables x {args.entries} entries = {len(times)} answers "
          f"in {wall:.1f} s ({len(times) / wall:.0f} a second)"
          + (f", each table about one entry every {args.pace:g} s" if args.pace else
             ", each table entering as fast as it is answered"))
    print(f"answer time: median {statistics.median(times) * 1000:.0f} ms, "
          f"95th percentile {p95 * 1000:.0f} ms, worst {times[-1] * 1000:.0f} ms")
    wrong = 0
    for match_id, _token, typed in tables:
        stored = cf.load_match(match_id, store).lines
        one = cf.Table(stored[0])  # type: ignore[arg-type]
        for entry in typed:
            one.push(entry)
        mine = [ln.model_dump(exclude={"hash", "at"}) for ln in stored]
        if mine != [ln.model_dump(exclude={"hash", "at"}) for ln in one.lines]:
            wrong += 1
    print(f"refused: {len(refused)}; tables whose record is not the one-sitting record "
          f"(a line lost, doubled or out of order): {wrong} of {len(tables)}")
    for r in refused[:5]:
        print("  refused:", r)


if __name__ == "__main__":
    main()
