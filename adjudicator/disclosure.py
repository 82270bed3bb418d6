"""Who may see what: each game's zones with their disclosure level, as the game's data says.

A game ships ``data/disclosure.yaml`` (our encoding of its rules' public and hidden zones,
with the source noted there) and its :class:`~adjudicator.plugins.GamePlugin` carries it
loaded (:func:`load_disclosure`). The levels name who may know a zone's content:

``public``   every player and spectator (完全公開);
``owner``    the player the zone belongs to (個人公開);
``hidden``   no player (非公開); only the judge, who reads the whole log.

A zone is a key of a player's part of the board (``hand_known``, ``graveyard``, ``field``).
A zone rule may open part of a zone wider than its level: the top card of a pile
(``top: public``), the count of a pile below a size (``public_below``), or the face-up
items of a zone whose face-down items are kept to their owner (``face_down: owner``).
:mod:`projections.view` turns a board into what one viewer may see by these rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any, Literal

Level = Literal["public", "owner", "hidden"]
LEVELS: tuple[Level, ...] = ("public", "owner", "hidden")

#: A card named inside a reference (``alice:<name>``) when the game gives no pattern.
ANY_CARD_NAME = r"[\w#+-]+|\?"


class DisclosureDataError(ValueError):
    """A disclosure file that cannot be right: names its file and key."""


@dataclass(frozen=True, slots=True)
class ZoneRule:
    """The disclosure of one zone of a player's board."""

    level: Level
    top: Level | None = None
    """The level of a pile's top card (its last), when wider than the zone's."""
    face_down: Level | None = None
    """The level of a face-down item (``face_down: true`` or ``face: down``); the zone's
    level is then that of its face-up items."""
    public_below: int | None = None
    """A count the zone's level keeps to its owner is public while below this number."""
    counted_by: str | None = None
    """The zone's cards are counted by this other zone (a hand's count): hidden, the list
    is emptied rather than shown as ``?`` cards."""


@dataclass(frozen=True, slots=True)
class Disclosure:
    """A game's zones and their levels, and how its cards are named."""

    zones: Mapping[str, ZoneRule] = field(default_factory=dict)
    default: Level = "hidden"
    """The level of a zone the data does not list (conservative: hidden)."""
    card_name: str = ANY_CARD_NAME
    """A regular expression for a card's name as a reference writes it (``alice:<name>``)
    and as a player's card list holds it."""
    card_in_text: str = ""
    """A regular expression for a card named alone in a finding's text (``S8, not H11``);
    empty: the game's texts name cards only by reference."""
    source: str = ""

    def rule(self, zone: str) -> ZoneRule:
        return self.zones.get(zone) or ZoneRule(self.default)

    @property
    def everything_public(self) -> bool:
        return self.default == "public" and all(
            r.level == "public" and r.face_down in (None, "public")
            for r in self.zones.values())


def _level(value: Any, where: str) -> Level:
    if value not in LEVELS:
        raise DisclosureDataError(f"{where}: {value!r} is not one of {', '.join(LEVELS)}")
    return value  # type: ignore[no-any-return]


def parse_disclosure(data: Mapping[str, Any], name: str) -> Disclosure:
    """A disclosure from its data (``name``: the file, for errors)."""
    zones: dict[str, ZoneRule] = {}
    for zone, spec in (data.get("zones") or {}).items():
        where = f"{name}: zones.{zone}"
        if isinstance(spec, str):
            spec = {"level": spec}
        unknown = set(spec) - {"level", "top", "face_down", "public_below", "counted_by",
                               "source"}
        if unknown:
            raise DisclosureDataError(f"{where}: unknown keys {sorted(unknown)}")
        below = spec.get("public_below")
        if below is not None and (not isinstance(below, int) or isinstance(below, bool)):
            raise DisclosureDataError(f"{where}.public_below: a whole number")
        zones[str(zone)] = ZoneRule(
            level=_level(spec.get("level"), f"{where}.level"),
            top=_level(spec["top"], f"{where}.top") if "top" in spec else None,
            face_down=(_level(spec["face_down"], f"{where}.face_down")
                       if "face_down" in spec else None),
            public_below=below,
            counted_by=spec.get("counted_by"),
        )
    for zone, rule in zones.items():
        if rule.counted_by is not None and rule.counted_by not in zones:
            raise DisclosureDataError(f"{name}: zones.{zone}.counted_by: no zone "
                                      f"{rule.counted_by!r}")
    cards = data.get("cards") or {}
    for key in ("name", "in_text"):
        if key in cards:
            try:
                re.compile(cards[key])
            except re.error as exc:
                raise DisclosureDataError(f"{name}: cards.{key}: {exc}") from None
    return Disclosure(
        zones=MappingProxyType(zones),
        default=_level(data.get("default", "hidden"), f"{name}: default"),
        card_name=cards.get("name", ANY_CARD_NAME),
        card_in_text=cards.get("in_text", ""),
        source=str(data.get("source", "")),
    )


def load_disclosure(package: str) -> Disclosure:
    """``<package>/data/disclosure.yaml``, shipped inside the package."""
    from coreflow_judge.adjudicator.games.edition_cache import checked_data

    def load() -> dict[str, Any]:
        import yaml  # read when a view is asked for, not when the games are listed

        text = resources.files(package).joinpath("data", "disclosure.yaml").read_text("utf-8")
        data: dict[str, Any] = yaml.safe_load(text) or {}
        parse_disclosure(data, f"{package}/data/disclosure.yaml")  # checked before kept
        return data

    data = checked_data(package, "disclosure", load)
    return parse_disclosure(data, f"{package}/data/disclosure.yaml")
