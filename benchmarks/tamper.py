"""Tamper trials: what someone who can write the store's database does to a record, and
what ``coreflow`` says of it afterwards.

Shared by tests/test_evidence.py (each attack once, on SQLite and PostgreSQL) and
``scripts/tamper_trials.py`` (many trials, the table of what was caught). The attacker
works on the database as it is, with SQL: :class:`RawStore` reads and writes the stored
rows of a SQLite file or a PostgreSQL schema. The attacker knows every algorithm (the
hash chains are in the documentation) but not the organiser's key
(``COREFLOW_SIGNING_KEY``), and may or may not be up against a receipt (the head hash
``coreflow record`` printed, kept apart from the store).

Each attack in :data:`ATTACKS` changes what a ruling reads, or the record's lines: a
table number removed or changed, a value edited, hashes stripped, rows swapped, deleted
or cut off the end. The ``_again`` attacks also compute every chain again afterwards, as
``coreflow`` would have (:func:`chain_again`).
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from coreflow_judge.events.evidence import META_TABLE, record_step
from coreflow_judge.events.models import CORE_LINES
from coreflow_judge.events.reader import ZERO_HASH, chain_hash, lines_of_data
from coreflow_judge.events.store import match_record_id


@dataclass
class Row:
    """One stored row: its key in the table (rowid or notification id), its version and
    its state as JSON."""

    key: int
    version: int
    state: dict[str, Any]


class RawStore:
    """A store's table of rows, read and changed with SQL (no coreflow code involved)."""

    def __init__(self, store: str) -> None:
        self.store = store
        self.pg = store.startswith(("postgresql://", "postgres://"))
        if self.pg:
            parts = urlsplit(store)
            self.schema = dict(parse_qsl(parts.query)).get("schema", "public")
            self.url = urlunsplit(parts._replace(query=""))

    def _pg(self) -> Any:
        import psycopg

        return psycopg.connect(self.url)

    def rows(self, match_id: str) -> list[Row]:
        """The stored rows of a match, in version order."""
        record_id = match_record_id(match_id)
        if self.pg:
            with self._pg() as conn:
                got = conn.execute(
                    f'SELECT notification_id, originator_version, state FROM "{self.schema}".'
                    "matchrecorder_events WHERE originator_id = %s ORDER BY originator_version",
                    (record_id,)).fetchall()
        else:
            with sqlite3.connect(self.store) as db:
                got = db.execute("SELECT rowid, originator_version, state FROM stored_events "
                                 "WHERE originator_id = ? ORDER BY originator_version",
                                 (record_id.hex,)).fetchall()
        return [Row(k, v, json.loads(bytes(s))) for k, v, s in got]

    def write(self, rows: list[Row]) -> None:
        """Store these rows' states in place: one transaction, an ``UPDATE`` per row."""
        data = [(json.dumps(r.state, separators=(",", ":")).encode(), r.key) for r in rows]
        if self.pg:
            with self._pg() as conn:
                for state, key in data:
                    conn.execute(f'UPDATE "{self.schema}".matchrecorder_events SET state = %s '
                                 "WHERE notification_id = %s", (state, key))
        else:
            with sqlite3.connect(self.store) as db:
                db.executemany("UPDATE stored_events SET state = ? WHERE rowid = ?", data)

    def delete(self, rows: list[Row]) -> None:
        keys = [r.key for r in rows]
        if self.pg:
            with self._pg() as conn:
                conn.execute(f'DELETE FROM "{self.schema}".matchrecorder_events '
                             "WHERE notification_id = ANY(%s)", (keys,))
        else:
            with sqlite3.connect(self.store) as db:
                db.executemany("DELETE FROM stored_events WHERE rowid = ?", [(k,) for k in keys])

    def drop_meta(self) -> None:
        """Remove the store's format record."""
        if self.pg:
            with self._pg() as conn:
                conn.execute(f'DROP TABLE IF EXISTS "{self.schema}".{META_TABLE}')
        else:
            with sqlite3.connect(self.store) as db:
                db.execute(f"DROP TABLE IF EXISTS {META_TABLE}")


def chain_again(rows: list[Row]) -> None:
    """Compute every stored hash again over the rows as they now are, as coreflow computes
    them (log chain and record chain); the signatures, which need the key, are dropped."""
    h = r = ZERO_HASH
    lines = CORE_LINES
    for row in rows:
        lines = lines_of_data(row.state["line"]) or lines
        line = lines.validate_stored(row.state["line"])
        table_seq = row.state.get("table_seq")
        h, r = chain_hash(h, line), record_step(r, line, table_seq)
        row.state["line"]["hash"] = h
        row.state.pop("record_hash", None)
        if r != h:
            row.state["record_hash"] = r
        row.state.pop("signature", None)
        row.state.pop("log_signature", None)


# ------------------------------------------------------------------------ attacks


def _numbered(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r.state.get("table_seq") is not None and r.version > 1]


def table_numbers(rows: list[Row], rng: random.Random) -> list[Row]:
    """Remove the table number of two rows (their lines are then "derived": judge, board
    and fixture new leave them out) or, half the time, shift one row's number."""
    numbered = _numbered(rows)
    picked = rng.sample(numbered, min(2, len(numbered)))
    if rng.random() < 0.5:
        for row in picked:
            del row.state["table_seq"]
    else:
        picked = picked[:1]
        picked[0].state["table_seq"] += rng.choice([1, 2, 5])
    return picked


_PLAYER_FIELDS = ("player", "to", "first_player", "controller")


def value_edit(rows: list[Row], rng: random.Random) -> list[Row]:
    """Change one value a ruling reads: who passed, made a request or got the chance."""
    players = rows[0].state["line"]["players"]
    candidates = [(row, f) for row in rows[1:] for f in _PLAYER_FIELDS
                  if row.state["line"].get(f) in players]
    row, field = rng.choice(candidates)
    now = row.state["line"][field]
    row.state["line"][field] = rng.choice([p for p in players if p != now])
    return [row]


def strip_hashes(rows: list[Row], rng: random.Random) -> list[Row]:
    """Edit a value, then delete every stored hash (a record "of an older coreflow")."""
    value_edit(rows, rng)
    for row in rows:
        row.state["line"].pop("hash", None)
        for key in ("record_hash", "signature", "log_signature"):
            row.state.pop(key, None)
    return rows


def strip_everything(rows: list[Row], rng: random.Random) -> list[Row]:
    """:func:`strip_hashes`, and the format marks of the rows too (the store's format
    record is dropped by the trial)."""
    strip_hashes(rows, rng)
    for row in rows:
        row.state.pop("store_format", None)
    return rows


def swap_rows(rows: list[Row], rng: random.Random) -> list[Row]:
    """Swap the stored states of two neighbouring rows."""
    i = rng.randrange(1, len(rows) - 1)
    a, b = rows[i], rows[i + 1]
    a.state, b.state = b.state, a.state
    return [a, b]


@dataclass(frozen=True)
class Attack:
    name: str
    change: Callable[[list[Row], random.Random], list[Row]] | None
    """What is changed in the rows (the rows to write back)."""
    again: bool = False
    """Then every chain is computed again (without the key)."""
    drop_meta: bool = False
    cut: bool = False
    """Rows are deleted: the last few (a record cut short)."""
    hole: bool = False
    """One row in the middle is deleted."""
    others: bool = False
    """The store holds another match besides (recorded before), left as it was."""


ATTACKS: list[Attack] = [
    Attack("table numbers", table_numbers),
    Attack("table numbers, chained again", table_numbers, again=True),
    Attack("value edited", value_edit),
    Attack("value edited, chained again", value_edit, again=True),
    Attack("hashes stripped after an edit", strip_hashes),
    Attack("hashes, marks and format record removed", strip_everything, drop_meta=True),
    Attack("the same, other matches in the store", strip_everything, drop_meta=True,
           others=True),
    Attack("rows swapped", swap_rows),
    Attack("row deleted in the middle", None, hole=True),
    Attack("last rows cut off", None, cut=True),
]


def attack(store: str, match_id: str, which: Attack, rng: random.Random) -> None:
    """Carry out one attack on a recorded match."""
    raw = RawStore(store)
    rows = raw.rows(match_id)
    if which.cut:
        raw.delete(rows[-rng.randint(1, 3):])
        return
    if which.hole:
        raw.delete([rows[rng.randrange(1, len(rows) - 1)]])
        return
    assert which.change is not None
    changed = which.change(rows, rng)
    if which.again:
        chain_again(rows)
        changed = rows
    raw.write(changed)
    if which.drop_meta:
        raw.drop_meta()


# ------------------------------------------------------------------------- trials


@dataclass
class Outcome:
    """What coreflow said of a tampered record."""

    verify: bool
    """``coreflow verify MATCH`` failed (exit status not 0)."""
    receipt: bool
    """``coreflow verify MATCH --head RECEIPT`` failed."""
    judge_refused: bool
    """``coreflow judge MATCH`` refused to rule (exit 2, naming the match and a seq)."""
    judge_warned: bool
    """``coreflow judge`` ruled, with a warning that the record is unverified."""
    internal_error: bool
    """Any command said "internal error" (a defect whatever else happened)."""
    messages: list[str]


def cli(args: list[str], key: str | None) -> tuple[int, str]:
    """One coreflow command in this process; its exit status and its stdout + stderr."""
    from coreflow_judge.cli.main import app
    from coreflow_judge.events.evidence import SIGNING_KEY_ENV
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, args, env={SIGNING_KEY_ENV: key})
    return result.exit_code, result.stdout + result.stderr


def record_for_trial(store: str, log: str, key: str | None) -> tuple[str, str]:
    """Record a log; its match id and the receipt (the record's head hash)."""
    code, out = cli(["record", log, "--store", store], key)
    assert code == 0, out
    match_id = out.splitlines()[0].strip()
    head = out.split("head hash ")[1].split()[0]
    return match_id, head


def trial(store: str, log: str, which: Attack, key: str | None, rng: random.Random,
          other: str | None = None) -> Outcome:
    """Record ``log`` in the fresh ``store`` (with the key when one is given; after
    ``other``, left alone, when the attack wants other matches in the store), carry out
    the attack, and ask verify (without and with the receipt) and judge, with the key."""
    if which.others:
        assert other is not None
        record_for_trial(store, other, key)
    match_id, head = record_for_trial(store, log, key)
    attack(store, match_id, which, rng)
    base = ["--store", store]
    v_code, v_out = cli(["verify", match_id, *base], key)
    r_code, r_out = cli(["verify", match_id, *base, "--head", head], key)
    j_code, j_out = cli(["judge", match_id, *base], key)
    refused = j_code == 2 and "refused" in j_out and f"match {match_id!r}" in j_out
    return Outcome(
        verify=v_code != 0, receipt=r_code != 0, judge_refused=refused,
        judge_warned=not refused and "unverified" in j_out,
        internal_error=any("internal error" in o for o in (v_out, r_out, j_out)),
        messages=[v_out.strip(), r_out.strip(), j_out.strip().splitlines()[0]
                  if j_out.strip() else ""])
