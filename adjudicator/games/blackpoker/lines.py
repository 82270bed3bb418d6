"""BlackPoker's own fields of the match log: what its header and its set-up record beyond
the core's (docs/games.md, "A game's own fields"); its cost kinds are the plugin's
``COST_KINDS``.

A BlackPoker log is read with these models (:attr:`~adjudicator.plugins.GamePlugin.lines`):
a field of another game's set-up (``hyperspatial``, say) is refused like a typo.
"""

from __future__ import annotations

from coreflow_judge.events.models import (
    Cards,
    GameStarted,
    Label,
    MatchStarted,
    Name,
    PerPlayer,
)
from pydantic import BaseModel, ConfigDict, Field


class BlackPokerMatchStarted(MatchStarted):
    """The header of a BlackPoker match."""

    frame: Label | None = None
    """9.0: the regulation's frame (``entry16``, ``pack``, ``rare_pack``, ``strategy``,
    ``extra``); absent, no frame. The rules refuse a frame the edition does not carry."""


class Preset(BaseModel):
    """9.0 preset: the bulwark, the soldier and the cards that failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bulwark: Name | None = None
    soldier: Name | None = None
    graveyard: Cards = Field(default_factory=list)


class BlackPokerGameStarted(GameStarted):
    """The set-up of a BlackPoker game."""

    presets: PerPlayer[Preset] | None = None
    """9.0: each player's preset (bp4.2.1)."""
    trumps: PerPlayer[Cards] | None = None
    """6.1 extra, the 9.0 extra frame: the trumps each player placed face down before the
    game (at most 2; ``?`` where the recorder does not know a face). Not part of the
    deck."""
    packs: PerPlayer[Cards] | None = None
    """9.0 pack frames: the cards each player set aside face down as the pack, the top of
    the deck first (``?`` where the recorder does not know a face); taken before the
    preset, so the deck that remains is the life."""
    rares: PerPlayer[Cards] | None = None
    """9.0 rare frames (レアパック, ストラテジー): the rare card each player chose from the
    deck and set face down before the pack (one; ``?`` where the recorder does not know a
    face)."""
    scenario: PerPlayer[Cards] | None = None
    """9.0 ストラテジー: the three cards each player chose from the deck into the opening
    hand first (シナリオ手札); ordinary hand cards once the game starts. ``hands`` then
    records only the cards drawn."""


def header_of(line: MatchStarted) -> BlackPokerMatchStarted:
    """A header as BlackPoker reads it (a core header built in memory has no frame)."""
    if isinstance(line, BlackPokerMatchStarted):
        return line
    return BlackPokerMatchStarted.model_validate(line.model_dump(exclude={"type"}))


def setup_of(line: GameStarted) -> BlackPokerGameStarted:
    """A set-up line as BlackPoker reads it (a core one built in memory records none of
    BlackPoker's own set-up)."""
    if isinstance(line, BlackPokerGameStarted):
        return line
    return BlackPokerGameStarted.model_validate(line.model_dump(exclude={"type"}))
