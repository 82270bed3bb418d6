"""Duel Masters' own fields of the match log: the zones its header gives beyond the core's
decks (docs/games.md, "A game's own fields"). Its requests record no costs: mana is paid
by tapping cards named in ``choices.mana`` (dm§2.1), so it names no cost kinds.
"""

from __future__ import annotations

from coreflow_judge.events.models import Cards, MatchStarted, PerPlayer


class DuelMastersMatchStarted(MatchStarted):
    """The header of a Duel Masters match."""

    hyperspatial: PerPlayer[Cards] | None = None
    """Each player's hyperspatial zone (public): ids of the header's psychic creatures."""
    super_gr: PerPlayer[Cards] | None = None
    """Each player's super GR zone (hidden): ids of the header's GR creatures, top first."""


def header_of(line: MatchStarted) -> DuelMastersMatchStarted:
    """A header as Duel Masters reads it (a core header built in memory gives neither
    zone)."""
    if isinstance(line, DuelMastersMatchStarted):
        return line
    return DuelMastersMatchStarted.model_validate(line.model_dump(exclude={"type"}))
