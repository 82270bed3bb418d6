"""The vocabulary the BlackPoker edition data may use, checked when the data is loaded.

The rules module carries out whatever the data says, so the data is checked against what
the code knows before any game is judged: every step an action's effect names, every cost
letter, target kind, key-card pattern, timing, format, character ability, trigger
condition and choice shape (``choices``, ``choices_on_resolve``: :mod:`..choices`). A typo
in the data is an :class:`EditionDataError` naming the file and the key
(``edition-9.0.yaml: actions.up.effect[0].step: 'sise' is not a step ...``), never a
surprise in play.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from coreflow_judge.adjudicator.games.blackpoker.abilities import OPS, SCOPES, STATS
from coreflow_judge.adjudicator.games.blackpoker.cards import parse_card
from coreflow_judge.adjudicator.games.choices import check_declarations
from coreflow_judge.adjudicator.games.common import EditionDataError

TOP = frozenset({"edition", "deck_zone", "formats", "policy", "characters", "actions",
                 "triggers", "trumps", "trumps_in", "labels_ja", "frames", "_files"})
FRAME_KEYS = frozenset({"name_ja", "recommended_formats", "deck", "setup", "judged",
                        "not_judged_yet"})
ACTION_KEYS = frozenset({
    "name", "name_ja", "direct", "speed", "timing", "cost", "once_per_turn", "key", "target",
    "effect", "choices", "choices_on_resolve", "controller", "formats", "type", "flags",
    "alt_cost", "originated", "frames", "condition",
})
CONDITIONS = frozenset({"pack_unopened", "life_at_most"})
"""The conditions on requesting an action the rules check (frames.py)."""
SPEEDS = frozenset({"instant", "normal"})
TIMINGS = frozenset({"main", "quick"})
COST_LETTERS = frozenset("BLDSC")
TYPES = frozenset({"summon", "turn", "combat", "quick_magic", "normal_magic", "magic",
                   "triggered", "trump", "pack", "rare"})
CONTROLLERS = frozenset({"turn_player", "requester_of_source", "owner"})
TARGET_KINDS = frozenset({"player", "request", "character", "soldier", "bulwark", "trump"})
TARGET_KEYS = frozenset({"kind", "owner", "relation", "key_card_count", "same_suit_as_key",
                         "action", "not_self", "immune_flag", "has_target", "contains",
                         "face_up", "state"})
TARGET_STATES = frozenset({"charge", "drive"})
KEY_KEYS = frozenset({"cards", "same_suit", "same_rank", "rank_set", "count", "from"})
PATTERN_KEYS = frozenset({"suits", "ranks", "joker", "any"})
SUITS = frozenset("SHDC")
FLAGS = frozenset({"counter_immune", "only_when_not_turn_player",
                   "resolve_before_cost_triggers", "change_target_immune"})
CHARACTER_KEYS = frozenset({"name_ja", "kind", "size", "haste", "next_generation", "abilities",
                            "formats", "labels", "immune", "number", "suits", "untargetable",
                            "regenerates", "grants", "triggers", "must_attack",
                            "bulwark_proof"})
GRANT_KEYS = frozenset({"action", "free", "virtual_keys", "needs_empty_stage"})
TRUMP_KEYS = frozenset({"name", "grants", "triggers", "originator", "rule", "character"})
TRUMP_RULES = frozenset({"revolution", "fortress", "loss", "no_charge"})
ABILITY_EVENTS = frozenset({"own_end", "opponent_discards", "enabled", "unblocked_attacker",
                            "blocking_bulwark_lost", "field_to_graveyard"})
ORIGINATOR_KEYS = frozenset({"suits", "kind"})
CHARACTER_KINDS = frozenset({"soldier", "bulwark"})
SIZE_RULES = frozenset({"printed", "sum", "none", "fixed"})
ABILITY_KEYS = frozenset({"name", "scope", "stat", "op", "amount", "letters", "applies"})
APPLIES_KEYS = frozenset({"kind", "type", "timing"})
TRIGGER_EVENTS = frozenset({"field_to_graveyard"})
TRIGGER_KEYS = frozenset({"action", "after", "event", "if", "formats"})
TRIGGER_IFS = frozenset({"attackers"})


def check(data: Mapping[str, Any], steps: Iterable[str]) -> None:
    """Raise :class:`EditionDataError` at the first thing in ``data`` the code does not
    know. ``steps``: the step names the resolution carries out."""
    steps = frozenset(steps)
    files: Mapping[str, str] = data.get("_files", {})
    main = f"edition-{data.get('edition')}.yaml"

    def fail(section: str, key: str, where: str, problem: str) -> None:
        raise EditionDataError(files.get(f"{section}.{key}", main),
                               f"{section}.{key}{where}", problem)

    def unknown(section: str, key: str, where: str, got: Iterable[str],
                known: frozenset[str], what: str) -> None:
        for g in got:
            if g not in known:
                fail(section, key, where, f"{g!r} is not {what} (known: "
                     f"{', '.join(sorted(known))})")

    for k in data:
        if k not in TOP:
            raise EditionDataError(main, str(k), "not a section of the edition data")
    formats = data.get("formats")
    if not isinstance(formats, list) or not formats:
        raise EditionDataError(main, "formats", "the edition's formats must be a list")
    fset = frozenset(formats)
    chars = data.get("characters", {})
    actions = data.get("actions", {})
    frames = data.get("frames") or {}
    for fid, f in frames.items():
        unknown("frames", fid, "", f, FRAME_KEYS, "a frame field")
        unknown("frames", fid, ".recommended_formats", f.get("recommended_formats", []),
                fset, "a format")
        for aid in f.get("not_judged_yet") or {}:  # a frame action the judge lacks yet
            if aid in actions and fid in actions[aid].get("frames", [fid]):
                fail("frames", fid, f".not_judged_yet.{aid}", "the action is judged: it "
                     "is in the actions")
    where = data.get("trumps_in") or {}
    if where:
        unknown("trumps_in", "formats", "", where.get("formats", []), fset, "a format")
        unknown("trumps_in", "frames", "", where.get("frames", []), frozenset(frames),
                "a frame of this edition")
    for aid, a in (data.get("actions") or {}).items():
        unknown("actions", aid, ".frames", a.get("frames", []), frozenset(frames),
                "a frame of this edition")
    for cid, c in chars.items():
        unknown("characters", cid, "", c, CHARACTER_KEYS, "a character field")
        unknown("characters", cid, ".kind", [c.get("kind")], CHARACTER_KINDS, "a kind")
        unknown("characters", cid, ".size", [c.get("size")], SIZE_RULES, "a size rule")
        unknown("characters", cid, ".formats", c.get("formats", []), fset, "a format")
        for i, ab in enumerate(c.get("abilities", [])):
            where = f".abilities[{i}]"
            unknown("characters", cid, where, ab, ABILITY_KEYS, "an ability field")
            unknown("characters", cid, where + ".scope", [ab.get("scope")],
                    frozenset(SCOPES), "a scope")
            unknown("characters", cid, where + ".stat", [ab.get("stat")],
                    frozenset(STATS), "a stat")
            unknown("characters", cid, where + ".op", [ab.get("op")], frozenset(OPS),
                    "an op")
            unknown("characters", cid, where + ".applies", ab.get("applies", {}),
                    APPLIES_KEYS, "an applies field")
            if not ab.get("name"):
                fail("characters", cid, where + ".name", "an ability needs its name")
    aset = frozenset(actions)

    def ability_triggers(section: str, key: str, triggers: Any) -> None:
        for i, t in enumerate(triggers or []):
            where = f".triggers[{i}]"
            unknown(section, key, where, t, frozenset({"event", "action"}), "a trigger field")
            unknown(section, key, where + ".event", [t.get("event")], ABILITY_EVENTS,
                    "an ability's trigger event")
            unknown(section, key, where + ".action", [t.get("action")], aset,
                    "an action of this edition")

    for cid, c in chars.items():
        if c.get("size") == "fixed" and not isinstance(c.get("number"), int):
            fail("characters", cid, ".number", "a fixed size needs its number")
        unknown("characters", cid, ".suits", c.get("suits", []), SUITS, "a suit")
        unknown("characters", cid, ".immune", c.get("immune", []), aset,
                "an action of this edition")
        for i, g in enumerate(c.get("grants", [])):
            unknown("characters", cid, f".grants[{i}]", g, GRANT_KEYS, "a grant field")
            unknown("characters", cid, f".grants[{i}].action", [g.get("action")], aset,
                    "an action of this edition")
        ability_triggers("characters", cid, c.get("triggers"))
    for card, t in (data.get("trumps") or {}).items():
        if parse_card(str(card)) is None:
            fail("trumps", str(card), "", "not a card")
        unknown("trumps", card, "", t, TRUMP_KEYS, "a trump field")
        unknown("trumps", card, ".grants", t.get("grants", []), aset,
                "an action of this edition")
        unknown("trumps", card, ".rule", [t["rule"]] if "rule" in t else [], TRUMP_RULES,
                "a rule a trump changes")
        origin = t.get("originator") or {}
        unknown("trumps", card, ".originator", origin, ORIGINATOR_KEYS, "an originator field")
        unknown("trumps", card, ".originator.suits", origin.get("suits", []), SUITS, "a suit")
        unknown("trumps", card, ".originator.kind", [origin["kind"]] if "kind" in origin
                else [], CHARACTER_KINDS, "a kind of character")
        if "character" in t:
            unknown("trumps", card, ".character", [t["character"]], frozenset(chars),
                    "a character of this edition")
        ability_triggers("trumps", card, t.get("triggers"))
    for aid, a in actions.items():
        unknown("actions", aid, "", a, ACTION_KEYS, "an action field")
        if not isinstance(a.get("name"), str):
            fail("actions", aid, ".name", "an action needs its name")
        unknown("actions", aid, ".speed", [a.get("speed")], SPEEDS, "a speed")
        unknown("actions", aid, ".timing", [a.get("timing")], TIMINGS, "a timing")
        unknown("actions", aid, ".formats", a.get("formats", []), fset, "a format")
        unknown("actions", aid, ".cost", str(a.get("cost") or ""), COST_LETTERS,
                "a cost letter")
        unknown("actions", aid, ".alt_cost", str((a.get("alt_cost") or {}).get("cost", "")),
                COST_LETTERS, "a cost letter")
        if "type" in a:
            unknown("actions", aid, ".type", [a["type"]], TYPES, "an action type")
        if "controller" in a:
            unknown("actions", aid, ".controller", [a["controller"]], CONTROLLERS,
                    "a controller")
        unknown("actions", aid, ".flags", a.get("flags", {}), FLAGS, "a flag")
        for field in ("choices", "choices_on_resolve"):
            problem = check_declarations(a.get(field))
            if problem is not None:  # each choice named with its shape (choices.py)
                fail("actions", aid, f".{field}", problem)
        unknown("actions", aid, ".condition", a.get("condition", {}), CONDITIONS,
                "a condition")
        key = a.get("key")
        if key is not None:
            unknown("actions", aid, ".key", key, KEY_KEYS, "a key-card field")
            if key.get("from", "rare") != "rare":
                fail("actions", aid, ".key.from", f"{key['from']!r} is not a zone key cards "
                     "come from (known: rare; none: the hand)")
            for i, p in enumerate(key.get("cards", [])):
                unknown("actions", aid, f".key.cards[{i}]", p, PATTERN_KEYS,
                        "a key-card pattern field")
                unknown("actions", aid, f".key.cards[{i}].suits", p.get("suits", []), SUITS,
                        "a suit")
                lo, hi = p.get("ranks", [0, 13])
                if not 0 <= lo <= hi <= 13:
                    fail("actions", aid, f".key.cards[{i}].ranks", f"{[lo, hi]} is not a "
                         "rank range within 0-13")
        target = a.get("target")
        if target is not None:
            unknown("actions", aid, ".target", target, TARGET_KEYS, "a target field")
            unknown("actions", aid, ".target.kind", [target.get("kind")], TARGET_KINDS,
                    "a target kind")
            if "action" in target:
                unknown("actions", aid, ".target.action", [target["action"]],
                        frozenset(actions), "an action of this edition")
            if "state" in target:
                unknown("actions", aid, ".target.state", [target["state"]], TARGET_STATES,
                        "a character's state")
        effect = a.get("effect")
        if not isinstance(effect, list):
            fail("actions", aid, ".effect", "an action's effect is a list of steps")
            continue
        for i, st in enumerate(effect):
            unknown("actions", aid, f".effect[{i}].step", [st.get("step")], steps, "a step")
            if "card" in st:  # a card pattern the step reads (蘇生, 修繕)
                unknown("actions", aid, f".effect[{i}].card", st["card"], PATTERN_KEYS,
                        "a card-pattern field")
    for i, t in enumerate(data.get("triggers", [])):
        where = f"[{i}]"
        unknown("triggers", "", where, t, TRIGGER_KEYS, "a trigger field")
        unknown("triggers", "", where + ".action", [t.get("action")], frozenset(actions),
                "an action of this edition")
        if "after" in t:
            unknown("triggers", "", where + ".after", [t["after"]], frozenset(actions),
                    "an action of this edition")
        elif "event" in t:
            unknown("triggers", "", where + ".event", [t["event"]], TRIGGER_EVENTS,
                    "a trigger event")
        else:
            fail("triggers", "", where, "a trigger needs `after` (an action) or `event`")
        if "if" in t:
            unknown("triggers", "", where + ".if", [t["if"]], TRIGGER_IFS, "a condition")
