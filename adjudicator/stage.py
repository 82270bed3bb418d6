"""Where requests wait: the stage ([10]) and the buffer ([6-1]), as the core flow keeps them.

A log may make either as long as it likes (a request that breaks a rule still goes on the
stage; a trigger line the rules did not derive still enters the buffer), so what the flow
asks of them for one line costs the same however many requests wait (docs/decisions.md,
"A judge that cannot be stalled"):

- :class:`StageStack` is a list, bottom to top, read as one by every reader; finding, removing
  and counting a request on it does not walk it.
- :class:`Buffer` keeps the triggered requests in the order they entered, grouped by their
  rank under the game's trigger order, so the class handled first
  (:meth:`CoreFlow.trigger_class <adjudicator.flow.CoreFlow.trigger_class>`) is found
  without ranking every request again. It numbers the requests in the order they enter
  (:attr:`Req.buffered_at <adjudicator.request.Req.buffered_at>`), and an observer may
  have it say, of each request that leaves, how many that entered before it still wait
  (:attr:`Buffer.left`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any, SupportsIndex

from coreflow_judge.adjudicator.request import Req

if TYPE_CHECKING:
    from coreflow_judge.adjudicator.flow import CoreFlow

_STAGED_AT = attrgetter("staged_at")


class StageStack(list[Req]):
    """The stage: requests waiting to resolve, bottom (first) to top (last).

    Requests go on only at the top (:meth:`append`), each numbered as it goes on
    (:attr:`Req.staged_at`), so the stage is always in that number's order and a request
    is found on it by bisection: ``req in stage``, :meth:`remove` and :meth:`index` cost
    the logarithm of its depth, not the depth (the top is removed at once).
    :meth:`sole_provisional` finds the one triggered request no line has named yet, if
    only one waits."""

    __slots__ = ("_count", "_unnamed", "journal")

    def __init__(self, items: Iterable[Req] = ()) -> None:
        super().__init__()
        self._count = 0
        self.journal: list[Req] | None = None
        """When a list (an observer sets it, as the audit does), each request that goes on
        or leaves the stage is added to it (the observer empties it)."""
        self._unnamed: list[Req] = []
        """Provisional requests put on the stage, in order; those named since or gone are
        dropped from it when next read (:meth:`sole_provisional`)."""
        for req in items:
            self.append(req)

    def append(self, req: Req) -> None:
        if self and self._find(req) is not None:
            return  # it is on the stage already (the flow never puts one on twice)
        self._count += 1
        req.staged_at = self._count
        super().append(req)
        if req.provisional:
            self._unnamed.append(req)
        if self.journal is not None:
            self.journal.append(req)

    def _find(self, req: object) -> int | None:
        if not isinstance(req, Req):
            return None
        if self and self[-1] is req:
            return len(self) - 1
        i = bisect_left(self, req.staged_at, key=_STAGED_AT)
        return i if i < len(self) and self[i] is req else None

    def __contains__(self, req: object) -> bool:
        return self._find(req) is not None

    def remove(self, req: Req) -> None:
        i = self._find(req)
        if i is None:
            raise ValueError(f"request {getattr(req, 'id', req)!r} is not on the stage")
        self.pop(i)

    def pop(self, index: SupportsIndex = -1) -> Req:
        req = super().pop(index)
        if self.journal is not None:
            self.journal.append(req)
        return req

    def index(self, req: Req, start: SupportsIndex = 0, stop: SupportsIndex = 2**62,
              ) -> int:
        i = self._find(req)
        if i is None or not int(start) <= i < int(stop):
            raise ValueError(f"request {getattr(req, 'id', req)!r} is not on the stage")
        return i

    def sole_provisional(self) -> tuple[int, Req | None]:
        """How many provisional requests wait on the stage (0, 1, or 2 for two or more),
        and the one when there is only one. Each request is looked at once after it is
        named or leaves, then forgotten (what that costs is paid for by the requests put
        on the stage), and no more than two that still wait are looked at."""
        unnamed = self._unnamed
        live: list[Req] = []
        i = 0
        while i < len(unnamed) and len(live) < 2:
            req = unnamed[i]
            if req.provisional and req in self and req not in live:
                live.append(req)
                i += 1
            else:
                del unnamed[i]
        return len(live), (live[0] if len(live) == 1 else None)

    def __reduce_ex__(self, _protocol: SupportsIndex) -> Any:
        # Copied (the board's checkpoints) as a new stage holding the copied requests in
        # order: the copy numbers them again, in the same order.
        return (StageStack, (list(self),))


_UNRANKED = object()


class _Entered:
    """Which entry numbers (1, 2, ...) still wait, counted as a Fenwick tree: how many
    that entered before one still wait costs the logarithm of the entries, not a walk."""

    __slots__ = ("_tree", "_waits")

    def __init__(self) -> None:
        self._tree = [0]
        self._waits: set[int] = set()

    def _grow(self, no: int) -> None:
        size = max(2 * len(self._tree), no + 1)
        tree = [0] * size
        for k in self._waits:
            tree[k] += 1
        for k in range(1, size):  # each node passes its count to its parent, once
            up = k + (k & -k)
            if up < size:
                tree[up] += tree[k]
        self._tree = tree

    def _add(self, no: int, delta: int) -> None:
        tree = self._tree
        while no < len(tree):
            tree[no] += delta
            no += no & -no

    def enter(self, no: int) -> None:
        if no in self._waits:
            return
        self._waits.add(no)
        if no >= len(self._tree):
            self._grow(no)  # counts ``no`` with the others
        else:
            self._add(no, 1)

    def leave(self, no: int) -> None:
        if no in self._waits:
            self._waits.discard(no)
            self._add(no, -1)

    def before(self, no: int) -> int:
        """How many that entered before entry ``no`` still wait."""
        tree, count, k = self._tree, 0, min(no - 1, len(self._tree) - 1)
        while k > 0:
            count += tree[k]
            k -= k & -k
        return count

    def clear(self) -> None:
        self._waits.clear()
        self._tree = [0]


class Buffer:
    """The buffer: triggered requests waiting to be placed on the stage or discarded (or,
    an instant one, to resolve), in the order they entered it.

    Iterated, counted and tested like the list it stands for. Each request's rank under
    the game's trigger order (:meth:`TriggerOrder.rank
    <adjudicator.policies.TriggerOrder.rank>`, which depends on the request and on who the
    turn player is) is computed once, when first asked for, and again only once the turn
    player has changed; the requests are kept grouped by rank, so the class handled
    first (:meth:`first_class`) costs the number of ranks, not of requests."""

    __slots__ = ("_items", "_groups", "_rank", "_unranked", "_ranked_for", "_unnamed",
                 "journal", "entries", "_entered", "left")

    def __init__(self) -> None:
        self._items: dict[Req, None] = {}
        self.journal: list[Req] | None = None
        """As :attr:`StageStack.journal`: each request that enters or leaves the buffer."""
        self.entries = 0
        """How many requests entered the buffer (the last :attr:`Req.buffered_at`)."""
        self._entered = _Entered()
        self.left: list[tuple[Req, int]] | None = None
        """When a list (an observer sets it, as the audit does), each request that leaves
        the buffer is added to it, with how many requests that entered before it still
        wait (the observer empties it)."""
        self._unnamed: list[Req] = []
        """Provisional requests that entered, in order (as :attr:`StageStack._unnamed`)."""
        self._groups: dict[tuple[int, ...], dict[Req, None]] = {}
        self._rank: dict[Req, tuple[int, ...]] = {}
        self._unranked: dict[Req, None] = {}
        self._ranked_for: object = _UNRANKED

    def __iter__(self) -> Iterator[Req]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __contains__(self, req: object) -> bool:
        return req in self._items

    def __repr__(self) -> str:
        return f"Buffer({list(self._items)!r})"

    def append(self, req: Req) -> None:
        if req in self._items:
            return  # in the buffer already (the flow never puts one in twice)
        self._items[req] = None
        if not req.buffered_at:  # numbered once: one that enters again keeps its number
            self.entries += 1
            req.buffered_at = self.entries
        self._entered.enter(req.buffered_at)
        self._unranked[req] = None
        if req.provisional:
            self._unnamed.append(req)
        if self.journal is not None:
            self.journal.append(req)

    def remove(self, req: Req) -> None:
        if req not in self._items:
            raise ValueError(f"request {getattr(req, 'id', req)!r} is not in the buffer")
        del self._items[req]
        if self.journal is not None:
            self.journal.append(req)
        self._entered.leave(req.buffered_at)
        if self.left is not None:
            self.left.append((req, self._entered.before(req.buffered_at)))
        if self._unranked.pop(req, _UNRANKED) is not _UNRANKED:
            return
        rank = self._rank.pop(req)
        group = self._groups[rank]
        del group[req]
        if not group:
            del self._groups[rank]

    def clear(self) -> None:
        if self.journal is not None:
            self.journal.extend(self._items)
        if self.left is not None:
            # Each leaves with those that entered before it, all at once.
            self.left.extend((req, self._entered.before(req.buffered_at))
                             for req in self._items)
        self._entered.clear()
        self._items.clear()
        self._unnamed.clear()
        self._groups.clear()
        self._rank.clear()
        self._unranked.clear()

    def rerank(self) -> None:
        """Rank every request again when next asked (a request's controller changed)."""
        self._ranked_for = _UNRANKED

    def first_class(self, flow: CoreFlow) -> dict[Req, None]:
        """The requests of the lowest rank under ``flow``'s trigger order, in buffer order
        (empty for an empty buffer); read it, never change it."""
        if not self._items:
            return {}
        order = flow.rules.trigger_order
        if self._ranked_for is _UNRANKED or self._ranked_for != flow.turn_player:
            self._groups.clear()
            self._rank.clear()
            self._unranked = dict(self._items)
            self._ranked_for = flow.turn_player
        if self._unranked:
            # Those not ranked yet entered after every ranked one (ranked at an earlier
            # call, or all again, in buffer order): each group stays in buffer order.
            for req in self._unranked:
                rank = order.rank(flow, req)
                self._rank[req] = rank
                self._groups.setdefault(rank, {})[req] = None
            self._unranked.clear()
        return self._groups[min(self._groups)]

    def sole_provisional(self, flow: CoreFlow) -> tuple[int, Req | None]:
        """How many provisional requests of the class handled first wait (0, 1, or 2 for
        two or more), and the one when there is only one. A provisional request named
        since, or gone from the buffer, is forgotten once looked at."""
        first = self.first_class(flow)
        kept: dict[Req, None] = {}
        found: list[Req] = []
        for req in self._unnamed:
            if req.provisional and req in self._items and req not in kept:
                kept[req] = None
                if req in first:
                    found.append(req)
        self._unnamed = list(kept)
        return min(len(found), 2), (found[0] if len(found) == 1 else None)

    def __deepcopy__(self, memo: dict[int, Any]) -> Buffer:
        from copy import deepcopy

        clone = Buffer()
        memo[id(self)] = clone
        clone.entries = self.entries  # the copied requests keep their numbers
        for req in self._items:
            clone.append(deepcopy(req, memo))
        return clone
