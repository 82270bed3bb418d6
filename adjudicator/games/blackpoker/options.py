"""The BlackPoker requests a player could make now, card by card (``coreflow play``'s
``legal``, and whether a pass is the only thing left).

:func:`request_options` proposes; the judge disposes: each proposal is checked by the
flow's timing and :meth:`BlackPokerRules.request_findings`, so nothing here decides
whether a request is legal. It writes every request the action's data allows the shape
of (bp4.3: key cards ★, the cost $, the target):

- key cards (``key.cards``, their number) from the requester's hand, or from the zone
  ``key.from`` names (the rare card zone); a card the viewer may not see is ``?``, as
  many as the zone holds unseen cards;
- the cost the action costs the player now (:meth:`cost_of`, the quick-timing cost at
  quick timing, both at main timing where there is one): ``B`` a bulwark of theirs,
  ``L`` the top card of the life (``?`` unless it is in sight), ``D`` another hand card,
  ``S`` a character of theirs, ``C`` the character an originated action (or a free use
  a character grants) starts from;
- the target by its kind: a player, a request on the stage, a trump, or a character on
  the field;
- the request-time choice ``card`` (防壁設置): another hand card.

Characters are named by their references, as the record names them. A proposal list is
cut at :data:`MAX_PROPOSALS` per action (the first ones, key cards and targets varied
first).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.game import ActionDef, Sight
from coreflow_judge.adjudicator.games.blackpoker.cards import UNKNOWN
from coreflow_judge.events.models import Request

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow
    from coreflow_judge.adjudicator.games.blackpoker.board import Character
    from coreflow_judge.adjudicator.games.blackpoker.rules import BlackPokerRules

MAX_PROPOSALS = 400
"""Proposals made per action at most (the judge checks each)."""


def request_options(rules: BlackPokerRules, flow: CoreFlow, player: str,
                    action: ActionDef, sees: Sight) -> Iterator[Request] | None:
    """The requests of ``action`` that ``player`` could make now (see the module), one
    at a time; None for an action whose requests it does not propose."""
    data = action.data
    choices = set(data.get("choices") or {})
    if choices - {"card"}:
        return None  # a request-time choice this module does not propose
    if (data.get("key") or {}).get("from") not in (None, "rare"):
        return None  # a key zone this module does not know
    return _proposals(rules, flow, player, action, sees)


def _proposals(rules: BlackPokerRules, flow: CoreFlow, player: str, action: ActionDef,
               sees: Sight) -> Iterator[Request]:
    board = rules.boards.get(player)
    if board is None:
        return
    data = action.data
    choices = set(data.get("choices") or {})
    hand = _zone(player, sorted(board.hand_known.elements()), board.hand_count, sees)
    key = data.get("key") or {}
    patterns = list(key.get("cards") or [{}] * len(key.get("rank_set", ())))
    if key.get("from") == "rare":
        rare = board.rare or []
        pool = _zone(player, [c for c in rare if c != UNKNOWN], len(rare), sees)
    else:
        pool = hand
    costs = _cost_strings(rules, flow, player, action)
    own = [ch for ch in board.field]
    originators: list[Character | None] = [None]
    if data.get("originated"):
        originators = list(own)
    else:
        originators += [ch for ch in own if rules.grant_of(ch, action.id) is not None]
    made = 0
    for origin in originators:
        keys_options = [[]] if origin is not None and not data.get("originated") else \
            _key_sets(pool, len(patterns))
        cost_kinds = ["C"] if origin is not None else costs
        for keys, target, cost in itertools.product(keys_options, _targets(rules, flow, action,
                                                                            player), cost_kinds):
            for paid in _payments(rules, flow, player, cost, keys, hand, origin, sees):
                left = _without(hand, keys + [c["ref"] for c in paid if c["kind"] == "D"])
                picks: list[dict[str, Any] | None] = [None]
                if "card" in choices:
                    picks = [{"card": c} for c in _distinct(left)]
                for pick in picks:
                    yield Request.model_validate(dict(
                        seq=flow.next_seq, request="?", player=player, action=action.id,
                        key_cards=keys, costs=paid, targets=target, choices=pick))
                    made += 1
                    if made >= MAX_PROPOSALS:
                        return


def _zone(player: str, known: list[str], count: int | None, sees: Sight) -> list[str]:
    """A zone's cards as a viewer may name them: those in sight, and ``player:?`` for
    each other one (the count unknown: as many as a request could take)."""
    shown = [f"{player}:{c}" for c in known if sees(f"{player}:{c}")]
    unseen = (count - len(shown)) if count is not None else 4
    return shown + [f"{player}:{UNKNOWN}"] * max(0, unseen)


def _distinct(cards: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(cards))


def _without(cards: Sequence[str], used: Sequence[str]) -> list[str]:
    left = list(cards)
    for card in used:
        if card in left:
            left.remove(card)
    return left


def _key_sets(pool: list[str], n: int) -> list[list[str]]:
    """Each set of ``n`` cards of ``pool`` (the same card twice only as often as the pool
    holds it)."""
    if n == 0:
        return [[]]
    return [list(c) for c in dict.fromkeys(itertools.combinations(pool, n))]


def _cost_strings(rules: BlackPokerRules, flow: CoreFlow, player: str,
                  action: ActionDef) -> list[str]:
    """The costs the action may be paid with now: what it costs the player (the
    quick-timing cost outside main timing), and at main timing its quick-timing cost too
    (:meth:`request_findings` takes either there)."""
    main = flow.main_timing(player)
    want, _waivers = rules.cost_of(action, player, main)
    out = [want]
    alt = action.data.get("alt_cost")
    if alt is not None and main:
        out.append("".join(sorted(alt["cost"])))
    return list(dict.fromkeys(out))


def _targets(rules: BlackPokerRules, flow: CoreFlow, action: ActionDef,
             player: str) -> list[list[str]]:
    """The targets the action's kind of target allows naming: each one to try."""
    spec = action.data.get("target")
    if spec is None:
        return [[]]
    kind = spec["kind"]
    if kind == "player":
        return [[p] for p in flow.players]
    if kind == "request":
        return [[r.id] for r in reversed(flow.stage)]
    if kind == "trump":
        return [[f"{p}:{t.card}"] for p, b in rules.boards.items() for t in b.trumps]
    return [[ch.ref] for b in rules.boards.values() for ch in b.field]


def _payments(rules: BlackPokerRules, flow: CoreFlow, player: str, cost: str,
              keys: list[str], hand: list[str], origin: Character | None,
              sees: Sight) -> Iterator[list[dict[str, str]]]:
    """Ways of paying ``cost`` (one string of kinds) with the table's cards."""
    board = rules.boards[player]
    slots: list[list[list[dict[str, str]]]] = []
    kinds = sorted(cost)
    spare = _without(hand, keys)
    for kind in dict.fromkeys(kinds):
        n = kinds.count(kind)
        if kind == "B":
            walls: list[str] = []
            while (wall := rules.bulwark_for_cost(player, f"{player}:{UNKNOWN}",
                                                  set(walls))) is not None:
                walls.append(wall.ref)  # each bulwark that may pay $B (the judge's reading)
            slots.append([[{"kind": "B", "ref": r} for r in c]
                          for c in itertools.combinations(walls, n)])
        elif kind == "L":
            deck = board.deck or []
            life = [f"{player}:{c}" if sees(f"{player}:{c}") else f"{player}:{UNKNOWN}"
                    for c in deck[:n]]
            life += [f"{player}:{UNKNOWN}"] * (n - len(life))
            slots.append([[{"kind": "L", "ref": r} for r in life]])
        elif kind == "D":
            slots.append([[{"kind": "D", "ref": r} for r in c]
                          for c in dict.fromkeys(itertools.combinations(spare, n))])
        elif kind == "S":
            slots.append([[{"kind": "S", "ref": r} for r in c] for c in
                          itertools.combinations([ch.ref for ch in board.field], n)])
        elif kind == "C":
            if origin is None:
                return
            slots.append([[{"kind": "C", "ref": origin.ref}]])
        else:
            return
    for combo in itertools.product(*slots):
        yield [c for part in combo for c in part]
