"""The short notation a scorekeeper types at the table, read into log lines.

One line of notation is one log line (docs/play.md has the grammar and examples for
every game)::

    alice summon_soldier S9 B:H2 L          a request: key card S9, costs B (H2) and L
    alice 兵士召喚 S9 B:H2 L                 the same, by the action's name in the rules
    bob counter C3 D:D5 >r2                  a target: request r2 (or a card, bob:S9)
    bob pass                                 a pass
    resolve r3 attackers=[bob:D4]            a resolution, with a choice
    fizzle r3                                the request fizzled
    stage t1 / discard t1                    where a triggered request goes
    trigger t1 draw r2 alice                 a triggered request, named by the table
    start alice                              the game starts, alice first
    alice roll d2 2                          a die roll: two sides, result 2
    {"type": "pass", "player": "bob"}        any log line as JSON (seq may be left out)

Tokens of a request after the action: a card (``S9``, the requester's own; ``bob:S9``
another's) is a key card; ``KIND`` or ``KIND:CARD`` with a cost kind of the table's game
(its plugin's ``cost_kinds``) is a cost (``L`` alone: a card the log does not know, ``alice:?``);
``>X`` a target; ``#ID`` the request's id (by default the next free ``rN``);
``name=value`` a choice. A value is JSON if it reads as JSON, ``[a,b]`` a list of words,
anything else a word.

The reader decides no rule: it only turns words into the line the judge then rules on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from coreflow_judge.events.models import CORE_LINES, MAX_DEPTH, GameLines, LogLine
from coreflow_judge.events.printable import bounded
from coreflow_judge.events.reader import _field_of, _plain_message
from pydantic import ValidationError
from pydantic_core import from_json

_ID = re.compile(r"^[A-Za-z0-9_.#?:-]+$")


class NotationError(ValueError):
    """A line of notation that cannot be read: says which word and why."""


@dataclass(frozen=True, slots=True)
class TableView:
    """What the reader needs of the table: the players, the actions by id and by name,
    and the request ids in use (to pick the next free one)."""

    players: tuple[str, ...]
    action_names: Mapping[str, str]
    """Every way to name an action (its id, its name in the rules) -> its id."""
    request_ids: Collection[str]
    lines: GameLines | None = None
    """The line models of the table's game (its fields, its cost kinds); None before a
    table is set (a header is read with its own game's)."""

    @property
    def cost_kinds(self) -> Collection[str]:
        """The words that are cost kinds: the table's game's, else any game's."""
        if self.lines is not None and self.lines.cost_kinds is not None:
            return self.lines.cost_kinds
        return any_cost_kinds()


def any_cost_kinds() -> frozenset[str]:
    """The cost kinds of every registered game (a word any of them reads as a cost)."""
    from coreflow_judge.adjudicator.plugins import games

    return frozenset(k for g in games() for k in g.cost_kinds)


def _cost_word(word: str, kinds: Collection[str]) -> tuple[str, str | None] | None:
    """``KIND`` -> (kind, None), ``KIND:CARD`` -> (kind, card) for a kind of ``kinds``;
    None for any other word."""
    kind, sep, card = word.partition(":")
    if kind not in kinds or (sep and not card):
        return None
    return kind, card if sep else None


def read_notation(text: str, table: TableView, seq: int) -> LogLine:
    """The log line one line of notation (or JSON) stands for, numbered ``seq``."""
    text = text.strip()
    if text.startswith("{"):
        return _json_line(text, seq, table.lines)
    words = split_words(text)
    if not words:
        raise NotationError("an empty line")
    head = words[0]
    if head in ("resolve", "fizzle"):
        return _validated(_resolve(words, head), seq, table.lines)
    line: dict[str, Any]
    if head == "trigger":
        if len(words) not in (4, 5):
            raise NotationError("a trigger is 'trigger ID ACTION SOURCE [CONTROLLER]'")
        line = {"type": "trigger", "request": words[1], "action": words[2],
                "source": words[3]}
        if len(words) == 5:
            line["controller"] = words[4]
        return _validated(line, seq, table.lines)
    if head in ("stage", "discard"):
        if len(words) < 2:
            raise NotationError(f"{head} needs the request: {head} t1")
        line = {"type": head, "request": words[1]}
        if head == "discard" and len(words) > 2:
            line["reason"] = " ".join(words[2:])
        return _validated(line, seq, table.lines)
    if head == "start":
        if len(words) < 2:
            raise NotationError("start needs the first player: start alice")
        return _validated({"type": "game_started", "first_player": words[1]}, seq, table.lines)
    if head not in table.players:
        raise NotationError(
            f"{head!r} is no player of this match ({', '.join(table.players)}) and no "
            "command (resolve, fizzle, stage, discard, trigger, start); type 'help'")
    if len(words) < 2:
        raise NotationError(f"what does {head} do? e.g. '{head} pass' or '{head} ACTION ...'")
    verb = words[1]
    if verb == "pass":
        line = {"type": "pass", "player": head}
        if len(words) > 2:
            line["note"] = " ".join(words[2:])
        return _validated(line, seq, table.lines)
    if verb == "roll":
        return _validated(_roll(head, words[2:]), seq, table.lines)
    return _validated(_request(head, verb, words[2:], table), seq, table.lines)


def split_words(text: str) -> list[str]:
    """Words split at blanks outside brackets, braces and double quotes (so that a JSON
    value stays one word); a word wholly in double quotes loses them."""
    words: list[str] = []
    current: list[str] = []
    depth = 0
    quoted = False
    for ch in text:
        if quoted:
            current.append(ch)
            if ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch.isspace() and depth == 0:
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(ch)
    if quoted or depth:
        raise NotationError("a quote, bracket or brace is not closed")
    if current:
        words.append("".join(current))
    return [w[1:-1] if len(w) >= 2 and w[0] == w[-1] == '"' else w for w in words]


class _NotJSON(ValueError):
    """Text that does not read as JSON (a word, for a choice's value)."""


def _loads(text: str) -> Any:
    """JSON text as a value, by the same parser as the log's lines: nesting, numbers and
    length are bounded (no RecursionError, no 5,000-digit integer). A value nested
    deeper than a log allows, or a number too large, is a :class:`NotationError`; text
    that is not JSON at all is :class:`_NotJSON`."""
    try:
        return from_json(text, allow_inf_nan=True)
    except ValueError as exc:
        why = str(exc)
        if why.startswith("recursion limit exceeded"):
            raise NotationError(f"nested deeper than {MAX_DEPTH} levels") from None
        if why.startswith("number out of range"):
            raise NotationError("a number too large to be a log's") from None
        raise _NotJSON(why.replace("line 1 column", "column")) from None


def _json_line(text: str, seq: int, lines: GameLines | None = None) -> LogLine:
    try:
        data = _loads(text)
    except _NotJSON as exc:
        raise NotationError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise NotationError("a JSON line must be an object")
    data.pop("hash", None)  # the store chains what it takes
    data["seq"] = seq
    return _validated(data, seq, lines)


def _validated(data: dict[str, Any], seq: int, lines: GameLines | None = None) -> LogLine:
    """The line's data as its model, read with the table's game's models (a header with
    its own game's)."""
    from coreflow_judge.events.reader import lines_of_data

    data = {"seq": seq, **data}
    try:
        return (lines_of_data(data) or lines or CORE_LINES).validate_python(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        if err["type"] == "union_tag_invalid":
            raise NotationError(bounded(f"field 'type': unknown line type "
                                        f"{data.get('type')!r}")) from None
        if err["type"] == "union_tag_not_found":
            raise NotationError("field 'type': missing: every line names its type") from None
        raise NotationError(f"field {_field_of(err)!r}: {_plain_message(err)}") from None


def _card(word: str, owner: str) -> str:
    if not _ID.match(word):
        raise NotationError(f"{word!r} is not a card")
    return word if ":" in word else f"{owner}:{word}"


def _value(text: str) -> Any:
    """A choice's value: JSON if it reads as JSON, ``[a,b]`` a list of words, else a word."""
    try:
        return _loads(text)
    except _NotJSON:
        pass
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [w.strip() for w in inner.split(",") if w.strip()] if inner else []
    return text


def _choice(word: str, choices: dict[str, Any]) -> None:
    name, _, value = word.partition("=")
    if not name:
        raise NotationError(f"{word!r}: a choice is name=value")
    choices[name] = _value(value)


def _request(player: str, verb: str, tokens: list[str], table: TableView) -> dict[str, Any]:
    action = table.action_names.get(verb) or table.action_names.get(verb.lower())
    if action is None:
        raise NotationError(
            f"{verb!r} is no action of this format (type 'legal' for what {player} may "
            "request now, 'actions' for every action)")
    key_cards: list[str] = []
    costs: list[dict[str, str]] = []
    targets: list[str] = []
    choices: dict[str, Any] = {}
    rid: str | None = None
    for tok in tokens:
        if tok.startswith("#") and len(tok) > 1:
            rid = tok[1:]
        elif tok.startswith(">") and len(tok) > 1:
            targets.append(tok[1:])
        elif "=" in tok:
            _choice(tok, choices)
        elif (cost := _cost_word(tok, table.cost_kinds)) is not None:
            kind, card = cost
            costs.append({"kind": kind, "ref": f"{player}:?" if card is None
                          else _card(card, player)})
        else:
            key_cards.append(_card(tok, player))
    line: dict[str, Any] = {
        "type": "request", "request": rid or next_request_id(table.request_ids),
        "player": player, "action": action, "key_cards": key_cards, "costs": costs,
        "targets": targets,
    }
    if choices:
        line["choices"] = choices
    return line


def _resolve(words: list[str], head: str) -> dict[str, Any]:
    if len(words) < 2:
        raise NotationError(f"{head} needs the request: {head} r1")
    line: dict[str, Any] = {"type": "resolve", "request": words[1],
                            "result": "fizzled" if head == "fizzle" else "resolved"}
    choices: dict[str, Any] = {}
    for tok in words[2:]:
        if tok.startswith("effects="):
            effects = _value(tok.removeprefix("effects="))
            if not isinstance(effects, list):
                raise NotationError("effects=... must be a JSON list of effects")
            line["effects"] = effects
        elif "=" in tok:
            _choice(tok, choices)
        else:
            raise NotationError(f"{tok!r}: after '{head} {words[1]}' come choices "
                                "(name=value) and effects=[...]")
    if choices:
        line["choices"] = choices
    return line


_ROLL_NUMBER = re.compile(r"[0-9]{1,9}")
"""A die's sides or result as the notation writes them: at most nine digits."""


def _roll(player: str, tokens: list[str]) -> dict[str, Any]:
    if len(tokens) != 2 or not tokens[0].startswith("d") or \
            not _ROLL_NUMBER.fullmatch(tokens[0][1:]) or not _ROLL_NUMBER.fullmatch(tokens[1]):
        raise NotationError("a roll is 'PLAYER roll dSIDES RESULT' (sides and result at most "
                            "nine digits), e.g. 'alice roll d2 1'")
    return {"type": "roll", "player": player, "sides": int(tokens[0][1:]),
            "result": int(tokens[1])}


def next_request_id(used: Collection[str]) -> str:
    """The first ``rN`` not in use."""
    n = 1
    while f"r{n}" in used:
        n += 1
    return f"r{n}"


def to_notation(line: LogLine, kinds: Collection[str] | None = None) -> str:
    """The line in the notation (JSON where the notation has no shorter form): what
    :func:`read_notation` reads back as the same line (request ids kept with ``#``).
    ``kinds``: the cost kinds of the line's game (by default every game's: a key card
    that reads as a cost in any of them is not written as a word)."""
    kinds = any_cost_kinds() if kinds is None else kinds
    d = line.model_dump(mode="json", exclude_none=True, exclude={"seq", "hash"})
    kind = d.get("type")
    plain = not (set(d) & {"at", "x"})
    if plain and kind == "request" and set(d) <= {"type", "request", "player", "action",
                                                  "key_cards", "costs", "targets", "choices"}:
        player = d["player"]
        words = [player, d["action"]]
        words += [_short(c, player) for c in d.get("key_cards", [])]
        for cost in d.get("costs", []):
            ref = cost["ref"]
            words.append(cost["kind"] if ref == f"{player}:?" else
                         f"{cost['kind']}:{_short(ref, player)}")
        words += [f">{t}" for t in d.get("targets", [])]
        words.append(f"#{d['request']}")
        words += [f"{k}={_dumps(v)}" for k, v in (d.get("choices") or {}).items()]
        if all(_plain_word(w, kinds) for w in words[2:2 + len(d.get("key_cards", []))]):
            return " ".join(words)
    if plain and kind == "pass" and set(d) <= {"type", "player", "note"}:
        return f"{d['player']} pass" + (f" {d['note']}" if d.get("note") else "")
    if plain and kind == "resolve" and set(d) <= {"type", "request", "result", "choices",
                                                  "effects"}:
        words = ["fizzle" if d["result"] == "fizzled" else "resolve", d["request"]]
        words += [f"{k}={_dumps(v)}" for k, v in (d.get("choices") or {}).items()]
        if "effects" in d:
            words.append(f"effects={_dumps(d['effects'])}")
        if not any(w.startswith("effects=") for w in words[2:-1] if "effects" in d):
            return " ".join(words)
    if plain and kind in ("stage", "discard") and set(d) <= {"type", "request"}:
        return f"{kind} {d['request']}"
    if plain and kind == "trigger" and set(d) <= {"type", "request", "action", "source",
                                                  "controller"}:
        return " ".join(["trigger", d["request"], d["action"], d["source"],
                         *([d["controller"]] if "controller" in d else [])])
    if plain and kind == "game_started" and set(d) == {"type", "first_player"}:
        return f"start {d['first_player']}"
    if plain and kind == "roll" and set(d) <= {"type", "player", "sides", "result"}:
        return f"{d['player']} roll d{d['sides']} {d['result']}"
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def _short(card: str, player: str) -> str:
    """A card as the notation writes it: without its owner when it is the player's."""
    return card.removeprefix(f"{player}:")


def _plain_word(word: str, kinds: Collection[str]) -> bool:
    """A key card the reader takes back as a key card (no cost, target, id or choice)."""
    return bool(_ID.match(word)) and "=" not in word and _cost_word(word, kinds) is None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
