"""What makes a recorded match evidence, and the check that says whether it still is.

A ruling on a recorded match reads, from each stored row, the line and the line's number
in the log the table wrote (``table_seq``: ``judge``, ``board`` and ``fixture new`` rule
on the lines the table wrote, numbered as it numbered them). Everything it reads is
covered, in three layers, each catching what the one before cannot:

1. **The log chain** (:mod:`events.reader`): each stored line keeps its ``hash``, sha256 of
   the previous hash and the line's canonical JSON, computed by the store when it took the
   line. It is the log format's own chain, so ``coreflow log`` exports it as it is.
2. **The record chain**: the same chain over each stored *row*, that is the line and its
   table number (:func:`record_step`: the canonical JSON with ``"table_seq": N`` added
   when the number is not the line's own ``seq``, ``null`` for a line the rules derived).
   Where it differs from the log chain the row keeps it as ``record_hash``; its head is the
   record's receipt (``coreflow record`` prints it). For a record whose numbers are all its
   own (a complete log recorded, a ``play`` session) the two chains are one.
3. **The organiser's signature**: with ``COREFLOW_SIGNING_KEY`` set, the last row of each
   save carries HMAC-SHA256 of the key over the record's head (``signature``) and, where it
   differs, over the log's head (``log_signature``); ``coreflow log`` writes the latter on
   the exported log's last line (``x.coreflow_signature``). Someone who edits the store or
   a log and computes the chains again cannot sign the new head without the key.

The store says which of its records are kept this way in a record of its own (the
``coreflow_meta`` table, key ``format``: ``{"store_format": 2, "since": N}``), written
when this version first opened the store for writing, in the transaction that sets the
store up: every record whose first row came after notification ``N`` is of this format,
so a row of it without a hash, a format mark or a record hash where one is due is
tampering, not history. Each row of this format also carries the mark (``store_format``):
a store whose format record is gone while rows of it carry the mark lost it outside
coreflow, and every one of its records is then held to this format (no format record is
written to it again).

Records older than the store's format (written by an earlier coreflow) are read as
follows: hashes present are checked as the log chain; the table numbers, which no chain
covered then, are not trusted (``judge`` and ``board`` rule on the complete log, numbered
by the record, and say so); a record with no hash at all cannot be verified (``verify``
says so, exit 1). With the key set, only signed records are evidence.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coreflow_judge.events.reader import ZERO_HASH, canonical_dict, chain_hash

if TYPE_CHECKING:
    from coreflow_judge.events.models import LogLine
    from coreflow_judge.events.store import RecordedLine

STORE_FORMAT = 2
"""The format of the rows this version writes: log chain, record chain, format mark."""
SIGNING_KEY_ENV = "COREFLOW_SIGNING_KEY"
"""The environment variable that holds the organiser's key (any text; empty is unset)."""
TABLE_SEQ_FIELD = "table_seq"
"""The key the table number takes in a row's canonical JSON (no log line has it)."""
META_TABLE = "coreflow_meta"
"""The table of the store's own records (key, value)."""
META_FORMAT_KEY = "format"
FORMAT_MARK = b'"store_format":'
"""How a row of this format shows in its stored JSON (looked for when ``coreflow_meta`` is
missing from a store that has rows)."""
_SIGNED = b"coreflow-head-v1:"


def signing_key() -> bytes | None:
    """The organiser's key from ``$COREFLOW_SIGNING_KEY`` (UTF-8), or None if unset."""
    value = os.environ.get(SIGNING_KEY_ENV)
    return value.encode("utf-8") if value else None


def sign(key: bytes, head: str) -> str:
    """HMAC-SHA256 of ``key`` over a head hash, in hex."""
    return hmac.new(key, _SIGNED + head.encode("ascii"), hashlib.sha256).hexdigest()


def signed_by(key: bytes, head: str, signature: str | None) -> bool:
    """Whether ``signature`` is the key's signature of ``head``."""
    return signature is not None and hmac.compare_digest(sign(key, head), signature)


def record_step(previous: str, line: LogLine, table_seq: int | None) -> str:
    """The record chain's hash of one stored row: the log chain's step over the line's
    canonical JSON, with ``"table_seq"`` added when the row's table number is not the
    line's own ``seq`` (``null``: a line the rules derived)."""
    if table_seq == line.seq:
        return chain_hash(previous, line)
    data: dict[str, Any] = canonical_dict(line)
    data[TABLE_SEQ_FIELD] = table_seq
    return chain_hash(previous, data)


@dataclass(frozen=True, slots=True)
class StoreMeta:
    """The store's format record: rows of records started after ``since`` are of
    ``store_format``."""

    store_format: int
    since: int

    def text(self) -> str:
        return json.dumps({"store_format": self.store_format, "since": self.since},
                          separators=(",", ":"), sort_keys=True)


def parse_meta(text: str | None) -> StoreMeta | None:
    """The store's format record from its stored text; None when there is none. A record
    that does not read is taken at its strictest (every record of this format)."""
    if text is None:
        return None
    try:
        data = json.loads(text)
        return StoreMeta(int(data["store_format"]), int(data["since"]))
    except (ValueError, TypeError, KeyError):
        return StoreMeta(STORE_FORMAT, 0)


@dataclass(frozen=True, slots=True)
class Problem:
    """The first stored row that is not what the store wrote, and why."""

    seq: int
    why: str


class StoredChain:
    """What the check of a match's stored rows found (:func:`check_record`)."""

    def __init__(self, match_id: str, lines: int, head: str | None,
                 problem: Problem | None = None, *, log_head: str | None = None,
                 unchained: bool = False, legacy: bool = False,
                 signed: bool | None = None) -> None:
        self.match_id = match_id
        self.lines = lines
        self.head = head
        """The record's receipt: the head of the record chain."""
        self.log_head = log_head if log_head is not None else head
        """The head of the log chain: what the exported log ends with."""
        self.problem = problem
        self.unchained = unchained
        """An older record with no hash at all: nothing to check it against."""
        self.legacy = legacy
        """Written before this store's format: the table numbers are not covered."""
        self.signed = signed
        """With the key set: whether the head is signed with it (None: no key)."""

    @property
    def breaks(self) -> list[Problem]:
        """The first bad row, as a list (empty when there is none)."""
        return [self.problem] if self.problem is not None else []

    @property
    def numbers_covered(self) -> bool:
        """Whether the table numbers of the rows are covered by a chain."""
        return not self.legacy

    @property
    def ok(self) -> bool:
        """Whether the record is evidence: nothing changed, something to check, and signed
        with the key when one is set."""
        return self.problem is None and not self.unchained and self.signed is not False

    def describe(self) -> str:
        """One line a judge reads."""
        who = f"match {self.match_id!r}"
        if self.problem is not None:
            return (f"{who}: stored record broken at seq {self.problem.seq}: the stored row "
                    f"{self.problem.why} (the store was changed outside coreflow)")
        if self.unchained:
            text = (f"{who}: recorded by an older coreflow without hashes: it cannot be "
                    "verified (nothing in the store covers its lines)")
        else:
            text = f"{who}: stored hash chain intact ({self.lines} lines, head {self.head})"
        if self.legacy and not self.unchained:
            text += ("; recorded by an older coreflow, whose chain does not cover the "
                     "table's line numbers: judge and board rule on the complete log")
        if self.signed is True:
            text += "; signed with COREFLOW_SIGNING_KEY"
        elif self.signed is False:
            text += ("; NOT signed with COREFLOW_SIGNING_KEY (recorded without the key, "
                     "cut back, or chained again by someone without it)")
        return text


def check_record(match_id: str, rows: Sequence[tuple[int, RecordedLine | str]],
                 this_format: bool, key: bytes | None) -> StoredChain:
    """Check a match's stored rows, in version order: each a recorded line, or why the
    stored row does not read as one.

    ``this_format``: the store says the record was written in this version's format
    (:class:`StoreMeta`). ``key``: the organiser's key, if set. The first row that is not
    what the store wrote is the problem (nothing after it is trusted)."""
    hashed = any(not isinstance(e, str) and e.line.hash is not None for _v, e in rows)
    unchained = not this_format and not hashed
    h = r = ZERO_HASH
    signed_head = False
    count = 0
    for expected, (version, event) in enumerate(rows, start=1):
        problem = _row_problem(expected, version, event, this_format, hashed)
        if problem is None and not isinstance(event, str):
            line = event.line
            previous_h, h = h, chain_hash(h, line)
            if unchained:
                count = expected
                continue
            if line.hash != h:
                problem = ("does not match its stored hash (the line was changed, or rows "
                           "were swapped)")
            elif this_format:
                r = h if r == previous_h and event.table_seq == line.seq else record_step(
                    r, line, event.table_seq)
                if (event.record_hash or line.hash) != r:
                    problem = ("has a table number (table_seq) or record hash that does not "
                               "match the stored record chain (changed)")
            else:
                r = h
            if problem is None and key is not None and this_format:
                if (event.signature is not None or event.log_signature is not None) and not (
                        signed_by(key, r, event.signature)
                        and (event.log_signature is None
                             or signed_by(key, h, event.log_signature))):
                    problem = ("carries a signature that is not COREFLOW_SIGNING_KEY's of "
                               "the chain (chained again without the key, or signed with "
                               "another key)")
                signed_head = event.signature is not None
        if problem is not None:
            return StoredChain(match_id, expected - 1, None, Problem(expected, problem),
                               legacy=not this_format)
        count = expected
    if unchained:
        return StoredChain(match_id, count, None, unchained=True, legacy=True,
                           signed=False if key is not None else None)
    signed = None if key is None else (this_format and signed_head)
    return StoredChain(match_id, count, r if count else None, log_head=h if count else None,
                       legacy=not this_format, signed=signed)


def _row_problem(expected: int, version: int, event: RecordedLine | str, this_format: bool,
                 hashed: bool) -> str | None:
    """What is wrong with one row before its hashes are looked at, if anything."""
    if version != expected:
        return f"is missing (the next stored row is seq {version}: a row was deleted)"
    if isinstance(event, str):
        return event
    if this_format:
        if event.store_format != STORE_FORMAT:
            return ("lacks the format mark of the rows this store keeps (changed, or its "
                    "marks removed)")
        if event.line.hash is None:
            return "has no stored hash (the store keeps one on every row: hashes were removed)"
    else:
        if event.store_format is not None:
            return ("is marked as written in this store's format, in a record the store's "
                    "format record (coreflow_meta) says is older (that record was changed "
                    "or removed)")
        if hashed and event.line.hash is None:
            return ("has no stored hash where other rows of the record have one (hashes were "
                    "removed)")
    return None
