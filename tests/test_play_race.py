"""Two ``coreflow play`` sessions on one match, racing (issue 23, item 4): two real
processes typing the same game into SQLite and PostgreSQL. The loser of each race is told
``conflict``, reads the match again and carries on (docs/play.md, "Two writers on one
match"); every line either session was told is stored is stored as told, and nothing is
stored that was not played. The harness is benchmarks/play_race.py
(``python -m benchmarks.play_race STORE ROUNDS`` runs many rounds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from coreflow_judge.cli.play import Output
from coreflow_judge.cli.session import Session, Speaker
from coreflow_judge.events.models import MatchStarted
from coreflow_judge.events.store import open_recorder

from benchmarks.play_race import MODES, race_round
from tests.stores import STORES, fresh_store


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_store(request.param, tmp_path, "race", "race.db") as url:
        yield url


@pytest.mark.parametrize("mode", MODES)
def test_two_sessions_typing_one_game_leave_both_sessions_lines_whole(
        store: str, mode: str) -> None:
    """Both sessions type the same game: in lockstep every line is a race; free, one falls
    behind and ends its input while the other still types. Neither stops (exit 0 or 1),
    every ``ok`` line is stored as told, and the record is the game as played."""
    for seed in (7,):
        result = race_round(store, seed, f"race-{mode}-{seed}", mode, typed_lines=40)
        assert result.whole, str(result)
        if mode == "lockstep":  # every line raced: one session took it, the other was told
            assert sum(result.oks) == 40 and sum(result.conflicts) == 40, str(result)


class _Lines:
    def __init__(self) -> None:
        self.out: list[str] = []

    def write(self, text: str) -> None:
        self.out.append(text)

    def flush(self) -> None:
        pass


def test_a_session_whose_input_ends_after_another_wrote_derives_from_the_store(
        tmp_path: Path) -> None:
    """The end of the input stores what the rules derive after the last entry. When the
    other session appended since this one last read the match, this one reads it again and
    derives from there (it used to end with exit 2, "another writer recorded lines at the
    same seq first")."""
    store = str(tmp_path / "finish.db")
    with open_recorder(store) as one, open_recorder(store) as two:
        said_a, said_b = _Lines(), _Lines()
        a = Session(one, Speaker(said_a, Output.text), False, False)  # type: ignore[arg-type]
        a.start(MatchStarted(seq=1, match_id="fin", game="blackpoker", rules="blackpoker/9.0",
                             format="lite", players=["alice", "bob"], log_format=1))
        a.take(1, "start alice")      # turn 1 and the chance to alice wait for the next
        b = Session(two, Speaker(said_b, Output.text), False, False)  # type: ignore[arg-type]
        b.resume("fin")
        a.take(2, "alice pass")       # stores turn 1, the chance to alice, the pass
        b.close()                     # b would store turn 1 again: it reads the match, and
        #                               stores the chance moving to bob after the pass
        a.take(3, "bob pass")         # a's table is behind b's close: told, read again
        lines = one.lines("fin")
    assert [ln.type for ln in lines] == ["match_started", "game_started", "turn_started",
                                         "chance_moved", "pass", "chance_moved"]
    assert said_a.out[-1].startswith("conflict: ")
    assert not any("internal" in x for x in said_a.out + said_b.out)
