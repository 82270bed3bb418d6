"""Continuous effects as an engine service (adjudicator/continuous.py): one layered
computation gives BlackPoker's sizes and costs and Duel Masters' power, value and
explanation together."""

from __future__ import annotations

from pathlib import Path

from coreflow_judge.adjudicator.continuous import Ability, Layered
from coreflow_judge.adjudicator.games.blackpoker import abilities
from coreflow_judge.adjudicator.games.duel_masters import rules as dm
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.events.reader import iter_lines

FIXTURES = Path(__file__).parent.parent / "fixtures" / "rulings" / "duel_masters"


def _add(name: str, layer: str, timestamp: int, amount: int, owner: str = "alice") -> Ability:
    return Ability(name, f"{name}'s source", owner, layer, timestamp, "power", "add", amount)


def test_the_layers_apply_in_the_rules_order_oldest_first_within_one() -> None:
    """The value is the printed one with each ability applied layer by layer, the older
    first within a layer; the steps are the explanation, in that order."""
    service = Layered(("first", "second"), word="layer")
    given = [_add("c", "second", 1, 5), _add("b", "first", 9, -2), _add("a", "first", 3, 10)]
    computed = service.compute(100, given)
    assert [a.name for a, _ in computed.steps] == ["a", "b", "c"]
    assert [after for _, after in computed.steps] == [110, 108, 113]
    assert computed.value == 113
    assert service.compute(100, []).value == 100
    set_first = Ability("wall", "w", "bob", "first", 1, "power", "set", 3)
    assert service.compute(100, [_add("up", "second", 0, 5), set_first]).value == 8


def test_an_explanation_names_the_layers_of_its_game() -> None:
    """explain words the layer order with the game's own word and layers: a recorded value
    that applies them the other way round is precedence.scope-order."""
    service = Layered(("all", "this"), word="layer")
    wall = Ability("Wall", "x", "bob", "all", 1, "size", "set", 3)
    up = Ability("Up", "r1", "alice", "this", 2, "size", "add", 5, character="a")
    found = service.explain(9, [wall, up], [], 3, "a's size")
    assert found is not None and found.code == "precedence.scope-order"
    assert found.message.startswith("a's size is 8 in layer order all, this: printed 9;")
    assert "applies the layers the other way round" in found.message


def test_blackpoker_sizes_and_duel_masters_power_are_one_service() -> None:
    """Both games compute through a :class:`Layered`: BlackPoker's scopes, Duel Masters'
    power layers."""
    assert isinstance(abilities.ABILITIES, Layered) and isinstance(dm.POWER, Layered)
    assert abilities.ABILITIES.layers == abilities.SCOPES
    assert abilities.compute == abilities.ABILITIES.compute
    assert dm.POWER.layers == ("static", "change", "attached", "attacking")


def test_a_power_explanation_is_the_computation_that_gave_the_value() -> None:
    """power_steps renders a computation's own steps (any order given comes out in the
    layers' order) and ends with that computation's value."""
    given = [_add("attacker", "attacking", 0, 1000), _add("gear", "attached", 0, 2000),
             _add("imp", "static", 0, -1000)]
    computed = dm.POWER.compute(3000, given)

    class Creature:
        ref = "alice:imp#1"

    text = dm.DuelMastersRules.power_steps(Creature(), computed)  # type: ignore[arg-type]
    assert text == ("alice:imp#1: 3000 printed -1000 (imp's source) +2000 (gear's source) "
                    "+1000 (attacker's source) = 5000")
    assert computed.value == 5000


def test_a_battle_message_shows_the_power_it_was_fought_at() -> None:
    """A crossed gear's power left out of a battle (the fixture cross-gear-power-left-out):
    the finding's expected powers and its step-by-step message are the same computation."""
    text = (FIXTURES / "cross-gear-power-left-out.jsonl").read_text(encoding="utf-8")
    report = judge_lines(iter_lines(text.splitlines()))
    (found,) = [f for f in report.findings if f.code == "precedence.value-mismatch"]
    assert found.expected == [3000, 3000]
    assert ("alice:imp#1: 1000 printed +2000 (alice:sunblade#1, crossed) = 3000; "
            "bob:wall#1: 3000 printed = 3000.") in found.message
