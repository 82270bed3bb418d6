"""A card reference that names no card of the game is ``log.unknown-ref`` at its line,
naming the field (defect 6 of issue 7): each game checks its own card vocabulary.

The check matters where nothing else would catch the reference: the faces it stands for
are hidden (a deck whose order the header does not give, a hand or shields whose faces the
log never showed), so a made-up card ``Z99`` passed as a clean log before.
"""

from __future__ import annotations

from collections.abc import Callable

from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game
from coreflow_judge.adjudicator.games.duel_masters.simulate import (
    simulate_game as simulate_duel_masters,
)
from coreflow_judge.adjudicator.games.i_language.simulate import (
    simulate_game as simulate_i_language,
)
from coreflow_judge.events.models import Cost, LogLine, MatchStarted, Request, Resolve

from tests.logtools import Log, judge


def hidden_decks(lines: Log) -> Log:
    """The log with the header's decks left out: every face in a deck or hand is hidden."""
    header = lines[0]
    assert isinstance(header, MatchStarted)
    return [header.model_copy(update={"decks": None}), *lines[1:]]


def first_edit(lines: Log, edit: Callable[[LogLine], LogLine | None]) -> tuple[Log, int]:
    """The log with its first line that ``edit`` changes changed; that line's seq."""
    for i, line in enumerate(lines):
        new = edit(line)
        if new is not None:
            return [*lines[:i], new, *lines[i + 1:]], line.seq
    raise AssertionError("no line to edit")


def findings_at(lines: Log, seq: int) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in judge(lines).findings if f.seq == seq]


def test_a_blackpoker_card_cost_naming_no_card() -> None:
    """$L with ``alice:Z99`` (no suit Z, no rank 99) on a deck of hidden faces."""
    done = 0
    for seed in range(30):
        lines = hidden_decks(simulate_game("9.0" if seed % 2 else "6.1", seed))
        assert [f for f in judge(lines).findings if f.severity == "error"] == []

        def lose_z99(line: LogLine) -> LogLine | None:
            if not isinstance(line, Request):
                return None
            for i, c in enumerate(line.costs):
                if c.kind in "LD":
                    costs = list(line.costs)
                    costs[i] = Cost(kind=c.kind, ref=f"{line.player}:Z99")
                    return line.model_copy(update={"costs": costs})
            return None

        try:
            bad, seq = first_edit(lines, lose_z99)
        except AssertionError:
            continue
        found = findings_at(bad, seq)
        assert [code for code, _ in found] == ["log.unknown-ref"]
        assert "costs[" in found[0][1] and "Z99" in found[0][1]
        done += 1
        if done >= 4:
            return
    raise AssertionError("too few games pay a card cost")


def test_a_duel_masters_key_card_and_mana_naming_no_card() -> None:
    """A mana charge of ``alice:Z99`` from a hand of hidden faces; a summon paid with a
    mana card ``Z99``; shields broken named ``Z99``: the header defines no such card."""
    lines = hidden_decks(simulate_duel_masters(3))
    assert [f for f in judge(lines).findings if f.severity == "error"] == []

    def charge_z99(line: LogLine) -> LogLine | None:
        if isinstance(line, Request) and line.action == "charge_mana":
            return line.model_copy(update={"key_cards": [f"{line.player}:Z99"]})
        return None

    def mana_z99(line: LogLine) -> LogLine | None:
        if isinstance(line, Request) and line.action == "summon" and line.choices \
                and line.choices.get("mana"):
            mana = [f"{line.player}:Z99", *line.choices["mana"][1:]]
            return line.model_copy(update={"choices": {**line.choices, "mana": mana}})
        return None

    def shield_z99(line: LogLine) -> LogLine | None:
        if isinstance(line, Resolve) and line.choices and line.choices.get("shields"):
            owner = str(line.choices["shields"][0]).partition(":")[0]
            shields = [f"{owner}:Z99", *line.choices["shields"][1:]]
            return line.model_copy(update={"choices": {**line.choices, "shields": shields}})
        return None

    for edit, field in ((charge_z99, "key_cards[0]"), (mana_z99, "choices.mana[0]"),
                        (shield_z99, "choices.shields[0]")):
        bad, seq = first_edit(lines, edit)
        found = findings_at(bad, seq)
        assert [code for code, _ in found] == ["log.unknown-ref"], (field, found)
        assert found[0][1].startswith(f"{field}: ") and "Z99" in found[0][1]


def test_an_i_language_cost_naming_no_card() -> None:
    """i-language requests name cards as ``owner:card id`` of the decks; a cost naming a
    card in no deck is reported (the game's requests pay no cost of their own)."""
    lines = simulate_i_language(5)

    def cost_z99(line: LogLine) -> LogLine | None:
        if isinstance(line, Request):
            return line.model_copy(update={
                "costs": [Cost(kind="D", ref=f"{line.player}:Z99")]})
        return None

    bad, seq = first_edit(lines, cost_z99)
    found = findings_at(bad, seq)
    assert [code for code, _ in found] == ["log.unknown-ref"]
    assert found[0][1].startswith("costs[0].ref: ")
