"""Mistakes injected into simulated games of each BlackPoker 9.0 frame: each is reported
once, at the line that makes it, with its code, and the rest of the game is judged as it
was played (clean).

The simulated games of every frame are judged clean (test_blackpoker_frames.py,
test_blackpoker_extra.py); here a judge's usual frame mistakes are put into them:

- a deck that is not the frame's (エントリー16: a card of the fixed sixteen replaced,
  consistently, by one the frame does not have);
- パック開封 requested again after the pack was opened (the pack frames), or in the extra
  frame, which sets aside no pack (FR16): the pack's condition is not met, and nothing
  on the table changes, so the rest of the game stands;
- レアドロー requested while the requester's life is over 9 (the rare frames).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.reader import iter_lines
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples
from tests.pools import pooled

GAMES = 8
game = pooled(simulate_game)
SETTINGS = examples(12, suppress_health_check=[HealthCheck.too_slow])
PACK_FRAMES = [("pack", "lite"), ("pack", "standard"), ("rare_pack", "standard"),
               ("rare_pack", "pro"), ("strategy", "pro"), ("strategy", "master")]
RARE_FRAMES = [f for f in PACK_FRAMES if f[0] != "pack"]


def _game(frame: str, fmt: str, seed: int) -> list[dict[str, Any]]:
    return [line.model_dump(mode="json", exclude_none=True, exclude={"hash"})
            for line in game("9.0", seed, fmt, frame=frame)]


def _errors(lines: list[dict[str, Any]]) -> list[tuple[str, int]]:
    numbered = [{**d, "seq": i} for i, d in enumerate(lines, start=1)]
    report = judge_lines(iter_lines([json.dumps(d) for d in numbered]))
    return [(f.code, f.seq) for f in report.findings if f.severity == "error"]


@dataclass(frozen=True)
class Site:
    """Where a mistake is put: a simulated game and the index of a request line."""

    frame: str
    fmt: str
    seed: int
    index: int
    player: str


def _sites(frames: list[tuple[str, str]], wanted: Any) -> list[Site]:
    """Every request line of the games of ``frames`` that ``wanted(lines, i)`` accepts:
    a place where the line's player holds the chance and may request."""
    out = []
    for frame, fmt in frames:
        for seed in range(GAMES):
            lines = _game(frame, fmt, seed)
            for i, d in enumerate(lines):
                if d["type"] == "request" and wanted(lines, i):
                    out.append(Site(frame, fmt, seed, i, d["player"]))
    return out


def _inserted(lines: list[dict[str, Any]], at: int, player: str,
              action: str) -> list[dict[str, Any]]:
    """``lines`` with a request of the instant ``action`` (no key card, cost or target) by
    ``player`` and its resolution put before line ``at``."""
    request = {"type": "request", "request": "x1", "player": player, "action": action,
               "key_cards": [], "costs": [], "targets": []}
    resolve = {"type": "resolve", "request": "x1", "result": "resolved"}
    return [*lines[:at], request, resolve, *lines[at:]]


def _opened_before(lines: list[dict[str, Any]], i: int) -> bool:
    """The request at ``i`` comes after its player's pack was opened."""
    player = lines[i]["player"]
    return any(d["type"] == "request" and d["action"] == "pack_open" and d["player"] == player
               for d in lines[:i])


PACK_OPEN_SITES = {
    # 9.0's pack frames, after the requester's pack was opened;
    "again": _sites(PACK_FRAMES, _opened_before),
    # the extra frame, which sets aside no pack (FR16): anywhere.
    "extra": _sites([("extra", "master")], lambda lines, i: True),
}


@pytest.mark.parametrize("where", sorted(PACK_OPEN_SITES))
@SETTINGS
@given(data=st.data())
def test_pack_open_unmet_is_one_condition_finding_and_the_game_stands(
        where: str, data: st.DataObject) -> None:
    """パック開封 where its condition (the requester's pack not opened) fails: nothing on
    the table changes, so the rest of the game stands clean."""
    site = data.draw(st.sampled_from(PACK_OPEN_SITES[where]))
    lines = _inserted(_game(site.frame, site.fmt, site.seed), site.index, site.player,
                      "pack_open")
    assert _errors(lines) == [("legality.condition-unmet", site.index + 1)], site


EARLY = _sites(RARE_FRAMES, lambda lines, i: i < 60)


@SETTINGS
@given(data=st.data())
def test_rare_draw_with_life_over_nine_is_one_condition_finding(data: st.DataObject) -> None:
    """Early in a game the life is well over 9. The rare card then goes to the hand (the
    request happens), which the rest of the simulated game did not play: the log is cut
    after the mistake's resolution."""
    site = data.draw(st.sampled_from(EARLY))
    lines = _inserted(_game(site.frame, site.fmt, site.seed), site.index, site.player,
                      "rare_draw")[:site.index + 2]
    assert _errors(lines) == [("legality.condition-unmet", site.index + 1)], site


def _s13_never_a_key_card(seed: int) -> bool:
    return not any(k.endswith(":S13") for d in _game("entry16", "lite", seed)
                   if d["type"] == "request" for k in d["key_cards"])


ENTRY16 = [seed for seed in range(GAMES) if _s13_never_a_key_card(seed)]
"""The games where ♠K is never a key card (whose suit would matter: throwing's ♠/♣
pair). The replaced card: ♠K becomes ♢K, a card the エントリー16 deck does not have, in the
same rank (so every number the game compares is unchanged)."""


def test_most_entry16_games_can_take_the_replaced_card() -> None:
    assert len(ENTRY16) >= GAMES // 2


@SETTINGS
@given(seed=st.sampled_from(ENTRY16))
def test_a_card_outside_the_entry16_deck_is_one_setup_finding_for_both_decks(seed: int) -> None:
    lines = _game("entry16", "lite", seed)
    renamed: list[dict[str, Any]] = json.loads(
        re.sub(r'(?<=[":])S13(?=")', "D13", json.dumps(lines)))
    assert renamed != lines
    # The deck is checked where the game sets it up (its start, line 2): one finding
    # (one per code per line) naming each deck.
    assert _errors(renamed) == [("legality.setup-invalid", 2)], seed
