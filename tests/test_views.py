"""Views by disclosure level (issue 11, item 2): no card a zone's level hides from a viewer
reaches that viewer's board, findings or log; the CLI's --view; the disclosure data."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.disclosure import (
    Disclosure,
    DisclosureDataError,
    parse_disclosure,
)
from coreflow_judge.adjudicator.plugins import game_plugin
from coreflow_judge.cli.main import app
from coreflow_judge.cli.render import board_text
from coreflow_judge.events.models import LogLine, lines_of
from coreflow_judge.projections.board import BoardProjector
from coreflow_judge.projections.view import JUDGE, SPECTATOR, MatchView
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.hypothesis_profiles import examples
from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
DISPUTED = ROOT / "fixtures" / "examples" / "disputed-counter.jsonl"

GAMES = [("blackpoker", "9.0", "lite"), ("blackpoker", "6.1", "lite"),
         ("blackpoker", "9.0", "standard"), ("blackpoker", "6.1", "extra"),
         ("blackpoker", "9.0", "master"), ("duel_masters", "1.47", "standard"),
         ("i_language", "1", "standard")]
SEEDS = 3
EXAMPLES = 30  # sized for CI: --hypothesis-profile deep tries five times as many


def _simulate(game: str, edition: str, fmt: str, seed: int) -> list[LogLine]:
    plugin = game_plugin(game)
    assert plugin.simulate is not None
    return plugin.simulate(edition, fmt, seed, f"view-{game}-{seed}")


simulated = pooled(_simulate)
_VIEWS: dict[tuple[str, str, str, int, str], MatchView] = {}


def match_view(game: tuple[str, str, str], seed: int, viewer: str) -> MatchView:
    """One viewer's view of a simulated game, kept for the session (its sights are cached)."""
    key = (*game, seed, viewer)
    if key not in _VIEWS:
        lines = simulated(*game, seed)
        _VIEWS[key] = MatchView(BoardProjector.from_lines(lines), viewer)
    return _VIEWS[key]


# ------------------------------------------------------------------ what is hidden, by the data


def _sees(level: str, viewer: str, owner: str) -> bool:
    return level == "public" or (level == "owner" and viewer == owner)


def hidden_cards(board: dict[str, Any], header_decks: dict[str, list[str]], viewer: str,
                 disclosure: Disclosure) -> set[tuple[str, str]]:
    """(owner, card) of every card a zone's level hides from ``viewer`` on the judge's
    board, and every card of a header deck that is in no zone of the board (in a deck,
    the shields, a super GR zone), when the game's default level hides it."""
    hidden: set[tuple[str, str]] = set()
    placed: set[tuple[str, str]] = set()
    for owner, zones in board["players"].items():
        for zone, value in zones.items():
            if not isinstance(value, list):
                continue
            rule = disclosure.rule(zone)
            if all(isinstance(v, str) for v in value):
                placed.update((owner, c) for c in value)
                shown = _sees(rule.level, viewer, owner)
                for i, card in enumerate(value):
                    top = i == len(value) - 1 and rule.top is not None \
                        and _sees(rule.top, viewer, owner)
                    if not shown and not top:
                        hidden.add((owner, card))
                continue
            for item in value:
                cards = [item.get("character") or item.get("card") or ""]
                cards += list(item.get("cards") or [])
                named = {(owner, c.rpartition(":")[2]) for c in cards if isinstance(c, str) and c}
                placed |= named
                down = item.get("face_down") is True or item.get("face") == "down"
                level = rule.face_down if down and rule.face_down else rule.level
                if not _sees(level, viewer, owner):
                    hidden |= named
    for req in board["stage"] + board["buffer"]:
        placed.update(tuple(c.split(":", 1)) for c in req["key_cards"])  # type: ignore[misc]
    for owner, deck in header_decks.items():  # in no zone: at the game's default level
        if not _sees(disclosure.default, viewer, owner):
            hidden.update((owner, c) for c in deck if (owner, c) not in placed)
    return {(o, c) for o, c in hidden if c != "?"} if viewer != JUDGE else set()


def _strings(value: Any, owner: str | None, players: set[str]) -> Iterator[tuple[str | None, str]]:
    """Every string in ``value`` with the player whose part of the data it is in."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k if k in players else owner, players)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, owner, players)
    elif isinstance(value, str):
        yield owner, value


def leaks(outputs: list[tuple[Any, str]], hidden: set[tuple[str, str]], players: set[str],
          card_text: Any) -> list[str]:
    """Where a hidden card is named: as ``owner:card`` (as the log or the board writes
    it) anywhere, or alone in its owner's part of the data."""
    found = []
    for data, where in outputs:
        text = json.dumps(data, ensure_ascii=False) if not isinstance(data, str) else data
        for owner, card in hidden:
            for ref in {f"{owner}:{card}", card_text(f"{owner}:{card}")}:
                if re.search(re.escape(ref) + r"(?![\w#])", text):
                    found.append(f"{where}: {ref}")
        if isinstance(data, str):
            continue
        alone = {(o, name) for o, c in hidden for name in (c, card_text(c))}
        for who, s in _strings(data, None, players):
            if who is not None and (who, s) in alone:
                found.append(f"{where}: {who}'s {s}")
    return found


@given(data=st.data())
@examples(EXAMPLES)
def test_no_hidden_card_reaches_a_view_that_may_not_see_it(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(GAMES), label="game")
    seed = data.draw(st.integers(0, SEEDS - 1), label="seed")
    lines = simulated(*game, seed)
    header = lines[0]
    players = list(header.players)  # type: ignore[union-attr]
    viewer = data.draw(st.sampled_from(players + [SPECTATOR]), label="viewer")
    at = data.draw(st.integers(1, len(lines)), label="at")
    view = match_view(game, seed, viewer)
    judge = match_view(game, seed, JUDGE).board(at)
    plugin = game_plugin(game[0])
    decks = header.decks or {}  # type: ignore[union-attr]
    hidden = hidden_cards(judge, decks, viewer, plugin.disclosure)
    if game[0] == "blackpoker" and viewer != SPECTATOR:
        assert hidden, "a BlackPoker deck is hidden from every player"
    seen = view.board(at)
    log = view.log(at)
    outputs: list[tuple[Any, str]] = [
        (seen, "board"), (board_text(seen), "board text"), (log, "log"),
        ([f["message"] for f in seen["findings"]], "finding texts"),
    ]
    assert leaks(outputs, hidden, set(players), plugin.card_text) == []
    for line in log:  # the redacted log is still a log: every line is a valid line
        plugin.lines.validate_python(line)
    # The viewer's own hand, and every public zone, are there as the judge sees them.
    for owner, zones in judge["players"].items():
        if owner == viewer and "hand_known" in zones:
            assert seen["players"][owner]["hand_known"] == zones["hand_known"]
        for zone, value in zones.items():
            rule = plugin.disclosure.rule(zone)
            if rule.level == "public" and rule.face_down is None:
                assert seen["players"][owner][zone] == value, zone


def test_the_judge_view_is_the_board_itself() -> None:
    lines = simulated("blackpoker", "9.0", "lite", 0)
    projector = BoardProjector.from_lines(lines)
    view = MatchView(projector, JUDGE)
    assert view.board(40) == projector.at(40)
    assert view.log() == [line.model_dump(mode="json", exclude_none=True) for line in lines]


def test_an_open_game_shows_a_player_everything() -> None:
    lines = simulated("i_language", "1", "standard", 0)
    view = MatchView(BoardProjector.from_lines(lines), "alice")
    judge = BoardProjector.from_lines(lines).at(None)
    assert view.board() == {**judge, "view": "alice"}


# ------------------------------------------------------------------ the CLI


def cli(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def test_board_view_of_a_face_down_bulwark() -> None:
    """alice set ♥2 as a face-down bulwark: alice sees it, bob and a spectator see a face
    down card; bob's graveyard shows only its top card to alice."""
    alice = cli("board", DISPUTED, "--at", "8", "--view", "alice")
    bob = cli("board", DISPUTED, "--at", "8", "--view", "bob")
    assert alice.exit_code == bob.exit_code == 0
    assert "alice:♥2: bulwark, drive, face down, entered turn 1 [♥2]" in alice.stdout
    assert "graveyard ? ♦5" in alice.stdout
    assert "♥2" not in bob.stdout
    assert "face down: bulwark, drive, face down, entered turn 1 [face down]" in bob.stdout
    data = json.loads(cli("board", DISPUTED, "--at", "8", "--view", "spectator",
                          "--format", "json").stdout)
    assert data["view"] == "spectator"
    assert data["players"]["alice"]["field"][0]["character"] == "face down"
    assert "size" not in data["players"]["alice"]["field"][0]
    assert cli("board", DISPUTED, "--at", "8").stdout == \
        cli("board", DISPUTED, "--at", "8", "--view", "judge").stdout


def test_an_unknown_viewer_is_a_one_line_error() -> None:
    for command in ("board", "judge"):
        r = cli(command, DISPUTED, "--view", "carol")
        assert r.exit_code == 2
        assert r.stdout == ""
        assert r.stderr.count("\n") == 1
        assert "--view 'carol': not a player of this match" in r.stderr


def test_judge_view_redacts_a_hidden_card_in_a_finding() -> None:
    """The $L finding names alice's top life card (♠8) and the card the log wrote (♥J).
    To bob, ♥J is a hidden card (where it is the log does not show: the judge hides it);
    ♠8 is on top of alice's graveyard, public, so the data keeps it, but the text names
    it alone (``S8``), and bob's ♠8 is out of his sight: the text hides it too."""
    log = ROOT / "fixtures" / "rulings" / "lite" / "cost-l-wrong-card-9.0.jsonl"
    judge = cli("judge", log)
    bob = cli("judge", log, "--view", "bob")
    assert judge.exit_code == bob.exit_code == 1
    assert "$L loses the top card of the life, ♠8, not ♥J." in judge.stdout
    assert "$L loses the top card of the life, a hidden card, not a hidden card." in bob.stdout
    assert "  view: bob" in bob.stdout
    report = json.loads(cli("judge", log, "--view", "bob", "--format", "json").stdout)
    assert report["view"] == "bob"
    mismatch = [f for f in report["findings"] if "$L" in f["message"]]
    assert (mismatch[0]["expected"], mismatch[0]["actual"]) == ("alice:S8", "alice:?")
    assert "  expected  alice:♠8\n  recorded  alice:?\n" in bob.stdout


def test_log_view_is_a_redacted_log(tmp_path: Path) -> None:
    store = str(tmp_path / "views.db")
    assert cli("record", DISPUTED, "--store", store).exit_code == 0
    bob = cli("log", "demo-1", "--store", store, "--view", "bob")
    alice = cli("log", "demo-1", "--store", store, "--view", "alice")
    assert bob.exit_code == alice.exit_code == 0
    bob_lines = [json.loads(t) for t in bob.stdout.splitlines()]
    alice_lines = [json.loads(t) for t in alice.stdout.splitlines()]
    assert all("hash" not in line for line in bob_lines)
    bulwark = [line for line in bob_lines if line.get("action") == "set_bulwark"]
    assert bulwark[0]["choices"] == {"card": "alice:?"}
    # The summon's $B cost is the face-down bulwark: alice's own, bob's a hidden card.
    summon = [line for line in alice_lines if line.get("action") == "summon_soldier"]
    assert summon[0]["costs"][0] == {"kind": "B", "ref": "alice:H2"}
    summon = [line for line in bob_lines if line.get("action") == "summon_soldier"]
    assert summon[0]["costs"][0] == {"kind": "B", "ref": "alice:?"}
    # While it was still in alice's hand the log did not show the hand: the judge cannot
    # place the card, so it is hidden even from alice in the line that chose it.
    mine = [line for line in alice_lines if line.get("action") == "set_bulwark"]
    assert mine[0]["choices"] == {"card": "alice:?"}
    for line in bob_lines:
        lines_of("blackpoker").validate_python(line)
    assert cli("log", "demo-1", "--store", store, "--view", "carol").exit_code == 2


# ------------------------------------------------------------------ the data


def test_every_game_names_its_levels_and_source() -> None:
    for game in ("blackpoker", "duel_masters", "i_language"):
        disclosure = game_plugin(game).disclosure
        assert disclosure.source
    bp = game_plugin("blackpoker").disclosure
    assert (bp.rule("hand_known").level, bp.rule("graveyard").top) == ("owner", "public")
    assert bp.rule("deck_known").level == "hidden"
    assert game_plugin("i_language").disclosure.everything_public
    assert Disclosure().rule("anything").level == "hidden"


@pytest.mark.parametrize(("data", "message"), [
    ({"zones": {"hand": "secret"}}, "zones.hand.level: 'secret' is not one of"),
    ({"zones": {"hand": {"level": "owner", "peek": 1}}}, "unknown keys ['peek']"),
    ({"zones": {"hand": {"level": "owner", "counted_by": "count"}}}, "no zone 'count'"),
    ({"cards": {"name": "("}}, "cards.name"),
])
def test_bad_disclosure_data_is_named(data: dict[str, Any], message: str) -> None:
    with pytest.raises(DisclosureDataError, match=re.escape(message)):
        parse_disclosure(data, "disclosure.yaml")


def test_readme_view_example_is_what_the_cli_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = "--at 8 --view alice` for a recorded match):"
    start = text.index("```text\n", text.index(marker)) + len("```text\n")
    shown = text[start:text.index("```", start)]
    log = "fixtures/examples/disputed-counter.jsonl"
    assert shown == cli("board", log, "--at", "8", "--view", "alice").stdout
