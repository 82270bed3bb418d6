"""docs/choices.md held to the edition data, the code and the judge.

The page has, for each game, a table of the choices a log records (action, where, choice,
shape, who chooses, what absent and ``[]`` mean) and a table of the effect ops a
resolution claims (op and fields). This module reads those tables and checks:

- the choice rows against each edition's declarations (``choices``,
  ``choices_on_resolve``), both ways, and every choice name the rules modules read;
- the shape vocabulary (:mod:`adjudicator.games.choices`): a value of the shape fits,
  values of other shapes do not;
- each choice row on the judge, with a line of that action from a ruling fixture or a
  simulated game: its own value raises no choice finding, a value of another shape is
  exactly one ``legality.choice-invalid`` on that line, and leaving the choice out or
  writing ``[]`` gives the findings the row names;
- the effect ops against every effect the rules modules emit (statically, and as the judge
  computes them on the same logs), a claim with a field renamed being
  ``legality.effect-mismatch``; Duel Masters' ops per resolution;
- the life each BlackPoker frame starts with against the judge's board.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from coreflow_judge.adjudicator.findings import Finding
from coreflow_judge.adjudicator.games.blackpoker.lines import BlackPokerGameStarted
from coreflow_judge.adjudicator.games.blackpoker.rules import load_edition
from coreflow_judge.adjudicator.games.blackpoker.simulate import simulate_game as bp_game
from coreflow_judge.adjudicator.games.choices import SHAPES, fits
from coreflow_judge.adjudicator.games.duel_masters.rules import load_edition as dm_edition
from coreflow_judge.adjudicator.games.duel_masters.simulate import simulate_game as dm_game
from coreflow_judge.adjudicator.games.i_language.rules import load_edition as il_edition
from coreflow_judge.adjudicator.games.i_language.simulate import simulate_game as il_game
from coreflow_judge.adjudicator.judge import normalize_lines, start_flow
from coreflow_judge.events.models import (
    LINE_ADAPTER,
    Effect,
    LogLine,
    MatchStarted,
    Request,
    Resolve,
    Trigger,
)
from coreflow_judge.events.reader import LineError, read_log

from tests.logtools import judge
from tests.pools import pooled

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "choices.md"
GAMES = ROOT / "adjudicator" / "games"
SECTIONS = {"BlackPoker": "blackpoker", "Duel Masters": "duel_masters",
            "i-language": "i_language"}
CHOICE_CODES = ("legality.choice-invalid", "log.choice-missing")

bp_pool = pooled(bp_game)
dm_pool = pooled(dm_game)
il_pool = pooled(il_game)


# ---------------------------------------------------------------------- the page
def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


@functools.cache
def tables() -> dict[tuple[str, str], list[list[dict[str, str]]]]:
    """(game, subsection) -> the tables under it, each a list of rows (header -> cell)."""
    out: dict[tuple[str, str], list[list[dict[str, str]]]] = {}
    game = sub = ""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            game, sub = SECTIONS.get(line[3:].strip(), ""), ""
        elif line.startswith("### "):
            sub = line[4:].strip()
        elif line.startswith("|") and i + 1 < len(lines) and \
                re.match(r"^\|\s*-", lines[i + 1]):
            head = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(dict(zip(head, _cells(lines[i]), strict=True)))
                i += 1
            out.setdefault((game, sub), []).append(rows)
            continue
        i += 1
    return out


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


@dataclass(frozen=True)
class ChoiceRow:
    game: str
    editions: tuple[str, ...]
    action: str
    where: str
    choice: str
    shape: Any
    absent: str
    empty: str

    @property
    def id(self) -> str:
        return f"{self.game}:{self.action}:{self.where}:{self.choice}:{'+'.join(self.editions)}"


EDITIONS = {"blackpoker": ("6.1", "9.0"), "duel_masters": ("1.47",), "i_language": ("1",)}


@functools.cache
def choice_rows() -> tuple[ChoiceRow, ...]:
    rows = []
    for (game, sub), found in tables().items():
        if sub != "Choices":
            continue
        for r in found[0]:
            rows.append(ChoiceRow(
                game, tuple(r["editions"].split()) if "editions" in r else EDITIONS[game],
                _ticked(r["action"])[0], r["where"], _ticked(r["choice"])[0],
                yaml.safe_load(_ticked(r["shape"])[0]), r["absent"], r["`[]` / `null`"]))
    return tuple(rows)


@dataclass(frozen=True)
class OpRow:
    game: str
    op: str
    required: frozenset[str]
    optional: frozenset[str]


@functools.cache
def op_rows() -> tuple[OpRow, ...]:
    rows = []
    for (game, sub), found in tables().items():
        if not sub.startswith("Effects"):
            continue
        for r in found[0]:
            fields = _ticked(r["fields"])
            rows.append(OpRow(game, _ticked(r["op"])[0],
                              frozenset(f for f in fields if not f.endswith("?")),
                              frozenset(f[:-1] for f in fields if f.endswith("?"))))
    return tuple(rows)


def _data(game: str, edition: str) -> dict[str, Any]:
    return {"blackpoker": load_edition, "duel_masters": dm_edition,
            "i_language": il_edition}[game](edition)


def declared(game: str, edition: str) -> dict[tuple[str, str, str], Any]:
    """(action, where, choice) -> shape, from the edition data."""
    out = {}
    for aid, a in _data(game, edition)["actions"].items():
        for field, where in (("choices", "request"), ("choices_on_resolve", "resolve")):
            for name, shape in (a.get(field) or {}).items():
                out[(aid, where, name)] = shape
    return out


# ---------------------------------------------------------------------- the data
def test_the_page_has_every_table() -> None:
    for game in SECTIONS.values():
        assert any(r.game == game for r in choice_rows()), game
        assert any(r.game == game for r in op_rows()), game


@pytest.mark.parametrize("game", sorted(SECTIONS.values()))
def test_choice_rows_are_the_edition_data(game: str) -> None:
    for edition in EDITIONS[game]:
        data = declared(game, edition)
        documented = {(r.action, r.where, r.choice): r.shape for r in choice_rows()
                      if r.game == game and edition in r.editions}
        assert set(documented) == set(data), (
            f"{game} {edition}: in the data, not on the page: "
            f"{sorted(set(data) - set(documented))}; on the page, not in the data: "
            f"{sorted(set(documented) - set(data))}")
        for key, shape in documented.items():
            assert shape == data[key], f"{game} {edition} {key}: page {shape}, data {data[key]}"


def _read_choice_names(folder: Path) -> set[str]:
    """Every choice name the game's code reads: ``choices.get("x")``, ``choices["x"]``,
    ``"x" in ...choices``."""
    names: set[str] = set()
    for path in folder.glob("*.py"):
        if path.name.startswith(("simulate", "play")):
            continue  # the simulator writes choices; the judge reads them
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"choices(?:\(\w*\))?(?: or \{\}\))?\.get\(\s*\"(\w+)\"", text))
        names |= set(re.findall(r"choices\(\w*\)\.get\(\s*\"(\w+)\"", text))
        names |= set(re.findall(r"choices\[\s*\"(\w+)\"\s*\]", text))
        names |= set(re.findall(r"\"(\w+)\" in [\w.]*choices\b", text))
    return names


@pytest.mark.parametrize("game", sorted(SECTIONS.values()))
def test_every_choice_the_code_reads_is_documented(game: str) -> None:
    read = _read_choice_names(GAMES / game)
    assert read, f"no choice read found in {game}'s code: the pattern is stale"
    documented = {r.choice for r in choice_rows() if r.game == game}
    assert read <= documented, f"{game} reads undocumented choices: {read - documented}"


# ---------------------------------------------------------------------- the shapes
EXAMPLES: dict[str, tuple[Any, list[Any]]] = {
    "card": ("alice:S5", [5, ["alice:S5"], {"alice": "S5"}, "", True]),
    "cards": (["alice:S5", "alice:?"], ["alice:S5", [5], {"a": ["x"]}, 2]),
    "character": ("alice:S9", [["alice:S9"], 9, {}]),
    "characters": (["alice:S9"], ["alice:S9", [["alice:S9"]], {}]),
    "request": ("r4", [4, ["r4"]]),
    "reference": ("bob", [["bob"], 1]),
    "count": (2, ["2", True, 1.5, [2]]),
    "flag": (False, ["yes", 1, "false"]),
    "blockers": ({"alice:S9": ["bob:H4"]}, [["bob:H4"], {"alice:S9": "bob:H4"}, "bob:H4"]),
    "cards_by_player": ({"bob": ["bob:S3", "bob:D3"]}, [["bob:S3"], {"bob": "bob:S3"}]),
}


def wrong_value(shape: Any) -> Any:
    """A value of another shape than ``shape``."""
    if isinstance(shape, dict):
        return "sideways" if "one_of" in shape else ["sideways"]
    return EXAMPLES[shape][1][0]


def test_every_shape_has_examples() -> None:
    assert set(EXAMPLES) == set(SHAPES)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_shape_fits_its_values_only(shape: str) -> None:
    good, bad = EXAMPLES[shape]
    assert fits(shape, good)
    assert fits(shape, None), "null is read as absent: never a shape error"
    for value in bad:
        assert not fits(shape, value), (shape, value)


def test_word_shapes() -> None:
    assert fits({"one_of": ["charge", "drive"]}, "drive")
    assert not fits({"one_of": ["charge", "drive"]}, "sideways")
    assert not fits({"one_of": ["charge", "drive"]}, ["drive"])
    assert fits({"list_of": ["hit", "stand"]}, ["hit", "hit", "stand"])
    assert fits({"list_of": ["hit", "stand"]}, [])
    assert not fits({"list_of": ["hit", "stand"]}, ["hit", "fold"])
    assert not fits({"list_of": ["hit", "stand"]}, "hit")


def test_every_row_shape_is_a_shape() -> None:
    for r in choice_rows():
        if isinstance(r.shape, str):
            assert r.shape in SHAPES, r.id
        else:
            assert fits(r.shape, None) and not fits(r.shape, wrong_value(r.shape)), r.id


# ---------------------------------------------------------------------- the corpus
@dataclass(frozen=True)
class Sample:
    """One line of an action in a log: ``lines[index]`` is a request or resolve of it."""

    name: str
    lines: tuple[LogLine, ...]
    index: int


BP_GAMES = [("6.1", "lite", None), ("6.1", "standard", None), ("6.1", "pro", None),
            ("6.1", "master", None), ("6.1", "extra", None), ("9.0", "lite", None),
            ("9.0", "standard", None), ("9.0", "pro", None), ("9.0", "master", None),
            ("9.0", "master", "extra"), ("9.0", "standard", "pack"),
            ("9.0", "standard", "rare_pack"), ("9.0", "pro", "strategy"),
            ("9.0", "lite", "entry16")]
SEEDS = range(8)
EXTRA_SEEDS = range(24)
"""The extra format and frame have the most actions, each rarer in a game."""


@functools.cache
def _logs(game: str) -> tuple[tuple[str, list[LogLine]], ...]:
    """Simulated games of the game, then its ruling fixtures (as complete logs: every
    triggered request has its line, so each resolution names its action)."""
    out = list(_simulated(game))
    for path in sorted((ROOT / "fixtures").glob("**/*.jsonl")):
        items = read_log(path)
        if not items or any(isinstance(x, LineError) for _, x in items):
            continue
        head = items[0][1]
        if isinstance(head, MatchStarted) and head.game == game:
            out.append((str(path.relative_to(ROOT)), normalize_lines(items)))
    return tuple(out)


def _simulated(game: str) -> Iterator[tuple[str, list[LogLine]]]:
    if game == "blackpoker":
        for edition, fmt, frame in BP_GAMES:
            for seed in SEEDS if "extra" not in (fmt, frame) else EXTRA_SEEDS:
                yield f"sim {edition} {fmt} {frame} {seed}", bp_pool(edition, seed, fmt,
                                                                    frame=frame)
    else:
        play = dm_pool if game == "duel_masters" else il_pool
        for seed in range(12):
            yield f"sim {game} {seed}", play(seed)


@functools.cache
def corpus(game: str) -> dict[tuple[str, str, str], list[Sample]]:
    """(edition, action, where) -> the lines of that action in the game's logs."""
    out: dict[tuple[str, str, str], list[Sample]] = {}
    for name, lines in _logs(game):
        head = lines[0]
        assert isinstance(head, MatchStarted)
        edition = head.rules.split("/")[1]
        actions: dict[str, str] = {}
        frozen = tuple(lines)
        for i, line in enumerate(lines):
            if isinstance(line, Request | Trigger):
                actions[line.request] = line.action
            if isinstance(line, Request):
                key = (edition, line.action, "request")
            elif isinstance(line, Resolve) and line.request in actions:
                key = (edition, actions[line.request], "resolve")
            else:
                continue
            out.setdefault(key, []).append(Sample(name, frozen, i))
    return out


def _with(line: LogLine, **update: Any) -> LogLine:
    return line.model_copy(update=update)


def at_line(sample: Sample, line: LogLine) -> list[Finding]:
    """The findings on the sample's line when it reads ``line`` (the log cut after it)."""
    lines = [*sample.lines[:sample.index], line]
    report = judge(list(lines))
    return [f for f in report.findings if f.seq == sample.index + 1]


def added(before: list[Finding], after: list[Finding]) -> list[Finding]:
    """The findings of ``after`` that ``before`` does not have (code and message)."""
    left = Counter((f.code, f.message) for f in before)
    out = []
    for f in after:
        if left[(f.code, f.message)]:
            left[(f.code, f.message)] -= 1
        else:
            out.append(f)
    return out


def bare(sample: Sample) -> LogLine:
    """The sample's line without its claimed effects (a choice changed would make them
    differ: that is another finding than the one looked at)."""
    line = sample.lines[sample.index]
    return _with(line, effects=None) if isinstance(line, Resolve) else line


def samples(row: ChoiceRow) -> list[Sample]:
    """The lines of the row's action: simulated games first (plain play), then fixtures
    (edge cases), each the earliest in its log first (a shorter log to judge)."""
    found = []
    for edition in row.editions:
        found += corpus(row.game).get((edition, row.action, row.where), [])
    return sorted(found, key=lambda s: (not s.name.startswith("sim"), s.index))


def carrying(row: ChoiceRow, found: list[Sample]) -> list[Sample]:
    return [s for s in found if row.choice in (s.lines[s.index].choices or {})]  # type: ignore[union-attr]


def expect(cell: str, got: list[Finding], what: str) -> None:
    """The findings ``got`` are those ``cell`` (an absent or ``[]`` cell) names: a cell
    that starts with a code and sets no condition gives exactly that code; otherwise every
    finding is one the cell names (a condition may leave none)."""
    codes = [c for c in _ticked(cell) if re.match(r"^(log|legality|timing|order)\.", c)]
    gotten = sorted({f.code for f in got if f.code in CHOICE_CODES or f.code in codes})
    conditional = re.search(r"\b(when|while|with|unless)\b", cell.split(":")[0])
    if cell.startswith("`") and codes and not conditional:
        assert gotten == [codes[0]], f"{what}: the page says {codes[0]}, the judge {got}"
    else:
        assert set(gotten) <= set(codes), f"{what}: the page names {codes}, the judge {got}"


@functools.cache
def pending() -> dict[tuple[str, str, str, str], str]:
    """(game, action, choice, case) -> what the judge gives today, from the page's table of
    the rows the judge does not give yet (issue 22, class 4: other work than this page's)."""
    found = tables().get(("", ""), [])
    rows = found[0] if found else []  # none listed: every row is judged as it says
    return {(r["game"], _ticked(r["action"])[0], _ticked(r["choice"])[0],
             r["case"].strip("`")): r["the judge today"] for r in rows}


def test_the_rows_not_judged_yet_are_rows() -> None:
    known = {(r.game, r.action, r.choice) for r in choice_rows()}
    for game, action, choice, case in pending():
        assert (game, action, choice) in known, (game, action, choice)
        assert case in ("absent", "[]"), case


def check(row: ChoiceRow, case: str, cell: str, got: list[Finding], what: str) -> None:
    """The findings ``got`` for leaving the choice out (``case`` absent) or writing ``[]``
    are those the row's ``cell`` names; for a row the page lists as not judged so yet, they
    must still differ (then the test is an expected failure)."""
    today = pending().get((row.game, row.action, row.choice, case))
    if today is None:
        expect(cell, got, what)
        return
    try:
        expect(cell, got, what)
    except AssertionError:
        pytest.xfail(f"{what}: not judged as the page's row says yet; today: {today}")
    pytest.fail(f"{what} is now judged as its row says: take it out of the page's table "
                "of rows the judge does not give yet")


ROWS = [pytest.param(r, id=r.id) for r in choice_rows()]


@pytest.mark.parametrize("row", ROWS)
def test_a_choice_row_on_the_judge(row: ChoiceRow) -> None:
    found = samples(row)
    assert found, f"{row.id}: no line of {row.action} in the fixtures or simulated games"
    with_it = carrying(row, found)
    sample = (with_it or found)[0]
    line = bare(sample)
    base = at_line(sample, line)
    # A value of another shape: exactly one finding more on the line, a choice-invalid
    # naming the choice, and no other choice finding there (the line's claimed effects are
    # left out: with the choice read as not recorded they would differ, another finding).
    wrong = {**(line.choices or {}), row.choice: wrong_value(row.shape)}  # type: ignore[union-attr]
    after = at_line(sample, _with(line, choices=wrong))
    new = added(base, after)
    assert [f.code for f in new] == ["legality.choice-invalid"], (sample.name, new)
    assert row.choice in new[0].message and new[0].rule == "log", new[0].message
    assert [f for f in after if f.code in CHOICE_CODES] == new, "a second choice finding"
    if not with_it:
        return
    # The value the table wrote: no choice finding about it (a line the judge accepts).
    clean = next((s for s in with_it[:6] if not choice_findings(at_line(s, s.lines[s.index]))),
                 None)
    assert clean, f"{row.id}: every recorded {row.choice} is refused"
    sample = clean
    line = sample.lines[sample.index]
    chosen = dict(line.choices or {})  # type: ignore[union-attr]
    # Absent: not recorded.
    absent = {k: v for k, v in chosen.items() if k != row.choice}
    got = findings_of(sample, _with(line, choices=absent or None))
    check(row, "absent", row.absent, got, f"{row.id} absent ({sample.name})")
    # [] (or {}): none.
    empty: Any = {} if row.shape in ("blockers", "cards_by_player") else []
    if row.shape in ("cards", "characters", "blockers", "cards_by_player") or (
            isinstance(row.shape, dict) and "list_of" in row.shape):
        got = findings_of(sample, _with(line, choices={**chosen, row.choice: empty}))
        check(row, "[]", row.empty.replace("— `{}`", "—"), got,
              f"{row.id} [] ({sample.name})")


def choice_findings(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.code in CHOICE_CODES]


def findings_of(sample: Sample, line: LogLine) -> list[Finding]:
    """The findings on the line the table's baseline does not have."""
    return added(at_line(sample, sample.lines[sample.index]), at_line(sample, line))


# ---------------------------------------------------------------------- the effects
def _emitted(folder: Path) -> set[tuple[str, frozenset[str], str]]:
    """(op, fields, where) of every effect the game's rules build with a constant op: a
    call ``emit(op=..., ...)`` or a dict literal ``{"op": ..., ...}``."""
    out = set()
    for path in folder.glob("*.py"):
        if path.name.startswith(("simulate", "play", "mistakes")):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            fields: list[str] = []
            op: Any = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "emit":
                for kw in node.keywords:
                    if kw.arg == "op":
                        op = kw.value.value if isinstance(kw.value, ast.Constant) else None
                    elif kw.arg is None and isinstance(kw.value, ast.Dict):
                        fields += [str(k.value) for k in kw.value.keys
                                   if isinstance(k, ast.Constant)]
                    elif kw.arg is not None:
                        fields.append(kw.arg)
            elif isinstance(node, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == "op" for k in node.keys):
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "op":
                        op = v.value if isinstance(v, ast.Constant) else None
                    elif isinstance(k, ast.Constant):
                        fields.append(str(k.value))
                if op is None:
                    continue
            else:
                continue
            if isinstance(op, str):
                out.add((op, frozenset(fields), f"{path.name}:{node.lineno}"))
    return out


def documented_as(game: str, op: str, fields: frozenset[str]) -> bool:
    return any(r.game == game and r.op == op and r.required <= fields <= r.required | r.optional
               for r in op_rows())


@pytest.mark.parametrize("game", sorted(SECTIONS.values()))
def test_every_effect_the_code_emits_is_documented(game: str) -> None:
    emitted = _emitted(GAMES / game)
    assert emitted, f"no effect found in {game}'s code: the pattern is stale"
    missing = sorted((op, sorted(f), where) for op, f, where in emitted
                     if not documented_as(game, op, f))
    assert not missing, f"{game}: effects with no row of their op and fields: {missing}"


@dataclass(frozen=True)
class Computed:
    """A resolution of the corpus with the effects the judge computed for it."""

    sample: Sample
    action: str
    effects: tuple[dict[str, Any], ...]


@functools.cache
def computed(game: str) -> tuple[Computed, ...]:
    """Every resolution of the game's corpus, with the judge's own effects (the flow keeps
    what the rules returned for each resolve line)."""
    out = []
    for name, lines in _logs(game):
        flow = start_flow(lines[0])
        actions: dict[str, str] = {}
        frozen = tuple(lines)
        for i, line in enumerate(lines[1:], 1):
            if isinstance(line, Request | Trigger):
                actions[line.request] = line.action
            flow.feed(line)
            res = flow.resolutions.get(line.seq)
            if isinstance(line, Resolve) and res is not None and line.request in actions:
                out.append(Computed(Sample(name, frozen, i), actions[line.request],
                                    tuple(dict(e) for e in res.effects)))
            if flow.result is not None:
                break
    return tuple(out)


OP_ROWS = [pytest.param(r, id=f"{r.game}:{r.op}:{'+'.join(sorted(r.required))}")
           for r in op_rows()]


@pytest.mark.parametrize("row", OP_ROWS)
def test_an_effect_row_on_the_judge(row: OpRow) -> None:
    """The resolution's effects as the judge computes them, written as the table's claims,
    are accepted; the same claims with a field of the row's op renamed are
    ``legality.effect-mismatch`` on that line (BlackPoker's ``reveal``: nothing, it is
    never compared)."""
    found = sorted((c for c in computed(row.game) if any(
        e["op"] == row.op and row.required <= set(e) - {"op"} <= row.required | row.optional
        for e in c.effects)), key=lambda c: (not c.sample.name.startswith("sim"),
                                             c.sample.index))
    assert found, f"no resolution of the corpus computes {row.op} with {sorted(row.required)}"
    for c in found[:4]:
        s = c.sample
        line = _with(s.lines[s.index], effects=[Effect(**e) for e in c.effects])
        base = at_line(s, line)
        if any(f.code == "legality.effect-mismatch" for f in base):
            continue  # the table departed here already (a fixture): look at another
        k = next(k for k, e in enumerate(c.effects) if e["op"] == row.op
                 and row.required <= set(e) - {"op"})
        first = sorted(row.required)[0]
        renamed = [dict(e) for e in c.effects]
        renamed[k][f"x_{first}"] = renamed[k].pop(first)
        new = added(base, at_line(s, _with(line, effects=[Effect(**e) for e in renamed])))
        if row.game == "blackpoker" and row.op == "reveal":
            assert not new, "reveal is read for its faces, never compared"
        else:  # (a creature the claims no longer move off may add what keeping it is)
            assert "legality.effect-mismatch" in [f.code for f in new], (s.name, new)
        return
    pytest.fail(f"the judge refuses its own effects as claims wherever {row.op} is computed")


@pytest.mark.parametrize("game", sorted(SECTIONS.values()))
def test_the_effects_the_judge_computes_are_documented(game: str) -> None:
    """Every effect the judge computes on the corpus has its row (this catches the ops the
    code names by a variable, as ``op=state``), and in Duel Masters its op is one the
    page lists for that resolution."""
    seen = [(c.action, e) for c in computed(game) for e in c.effects]
    assert seen
    bad = sorted({(e["op"], tuple(sorted(e))) for _, e in seen
                  if not documented_as(game, e["op"], frozenset(e) - {"op"})})
    assert not bad, f"{game}: computed effects with no row: {bad}"
    if game != "duel_masters":
        return
    per = {(_ticked(r["resolution"]) or ["any"])[0]: set(_ticked(r["ops it may list"]))
           for r in tables()[("duel_masters", "Effects (`resolve.effects`)")][1]}
    odd = sorted({(aid, e["op"]) for aid, e in seen
                  if e["op"] not in per.get(aid, set()) | per["any"]})
    assert not odd, f"resolutions listing ops their row does not name: {odd}"
    assert set(per) - {"any"} == set(dm_edition("1.47")["actions"])


# ---------------------------------------------------------------------- the frames
def test_the_life_each_frame_starts_with() -> None:
    """The page's start counts (scenario hand, rare card, pack, preset, hand drawn) give
    the life the judge's board has after the game start of a simulated game."""
    rows = next(t for t in tables()[("blackpoker", "Set-up (`match_started`, `game_started`)")]
                if "frame" in t[0])
    assert len(rows) == 6
    for r in rows:
        ticked = _ticked(r["frame"])
        frame = ticked[0] if ticked else None
        fmt = {"entry16": "lite", "pack": "standard", "rare_pack": "standard",
               "strategy": "pro", "extra": "master"}.get(frame or "", "lite")
        lines = bp_pool("9.0", 0, fmt, frame=frame)
        head, start = lines[0], lines[1]
        assert isinstance(head, MatchStarted) and isinstance(start, BlackPokerGameStarted)
        flow = start_flow(head)
        flow.feed(start)
        for p in head.players:
            deck = len((head.decks or {})[p])
            preset = (start.presets or {})[p]
            took = sum(int(r[k]) for k in ("scenario hand", "rare card", "pack", "preset",
                                           "hand drawn"))
            took += len(preset.graveyard) + len((start.reveals or {})[p])
            took += p == start.first_player
            board = flow.rules.boards[p]  # type: ignore[attr-defined]
            assert len(board.deck) == deck - took, (frame, p)
        # The example in the last column: 40 cards (エントリー16: 16), one reveal each.
        first, other = re.findall(r"(\d+) / (\d+)", r[list(r)[-1]])[0]
        fixed = {"entry16": 16}.get(frame or "", 40)
        base = fixed - sum(int(r[k]) for k in ("scenario hand", "rare card", "pack",
                                               "preset", "hand drawn")) - 1
        assert (int(first), int(other)) == (base - 1, base), frame


# ---------------------------------------------------------------------- game ends
def test_the_ends_of_a_duel_masters_game() -> None:
    """The page's game ends are those the Duel Masters rules give (every reason its code
    ends a game with, and the core's concession), and a drawn game written as the page
    shows is the end the judge rules."""
    rows = next(t for (game, sub), ts in tables().items() if game == "duel_masters"
                and sub.startswith("The end of a game") for t in ts)
    listed = {(r["result"].strip("`"), reason) for r in rows for reason in _ticked(r["reason"])}
    code = (GAMES / "duel_masters" / "rules.py").read_text(encoding="utf-8") + (
        GAMES / "common.py").read_text(encoding="utf-8")
    reasons = set(re.findall(r'GameResult\("(?:win|draw)", [^,]+, "(\w+)"\)', code))
    reasons |= set(re.findall(r'reason = "(\w+)" if', code))
    reasons |= set(re.findall(r'else "(\w+)"  # dm104', code))
    assert reasons >= {"direct_attack", "deck_out", "special_win", "special_loss"}
    assert reasons | {"concession"} == {reason for _, reason in listed}
    example = json.loads(re.search(r"A drawn game is `(\{[^`]+\})`",
                                   DOC.read_text(encoding="utf-8")).group(1))  # type: ignore[union-attr]
    assert example["result"] == "draw" and "winner" not in example
    assert ("draw", example["reason"]) in listed
    # Both players lose at one moment (fixture special-loss-both-draw): the table's end
    # written as the page shows a drawn game is the rules' end.
    path = ROOT / "fixtures" / "rulings" / "duel_masters" / "special-loss-both-draw.jsonl"
    lines = [x for _, x in read_log(path) if not isinstance(x, LineError)]
    end = {**example, "reason": "special_loss", "seq": lines[-1].seq}
    report = judge([*lines[:-1], LINE_ADAPTER.validate_python(end)])
    assert report.result is not None and report.result["result"] == "draw", report.result
    assert not [f for f in report.findings if f.severity == "error"], report.findings
