"""The policies a game hands the core flow: permission conflicts and trigger order."""

from __future__ import annotations

from coreflow_judge.adjudicator.policies import NarrowestScopeWins, Permission, ProhibitionWins


def test_narrowest_scope_wins_whatever_the_timestamps() -> None:
    """BlackPoker: "this soldier can attack" beats "all soldiers cannot attack"."""
    abilities = [Permission(True, "this", 1, "this soldier can attack"),
                 Permission(False, "all", 9, "all soldiers cannot attack")]
    assert NarrowestScopeWins().decide(True, abilities) is True
    assert NarrowestScopeWins().decide(True, abilities[1:]) is False


def test_within_a_scope_the_newer_ability_wins() -> None:
    older_cannot = [Permission(False, "your", 1, "old"), Permission(True, "your", 2, "new")]
    older_can = [Permission(True, "your", 1, "old"), Permission(False, "your", 2, "new")]
    assert NarrowestScopeWins().decide(False, older_cannot) is True
    assert NarrowestScopeWins().decide(True, older_can) is False


def test_prohibition_wins_whatever_the_scope() -> None:
    """Duel Masters dm101.2: a "cannot" beats a "can"."""
    abilities = [Permission(True, "this", 9, "speed attacker"),
                 Permission(False, "all", 1, "creatures cannot attack")]
    assert ProhibitionWins().decide(True, abilities) is False
    assert ProhibitionWins().decide(False, abilities[:1]) is True
    assert ProhibitionWins().decide(False, []) is False
