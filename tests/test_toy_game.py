"""A fourth game, defined in this file, runs on the same core flow and registers like the
three real ones.

The core flow (adjudicator/flow.py) knows turns, the chance, requests, the stage and the
buffer; a game is data plus a small rules module. To show it, this test defines a toy game
in a few lines — "Count to three": a player adds a point (instant), every second point
triggers a bonus point (an instant triggered request), three points win; or plays a
normal-speed "wall" the opponent can answer. The first tests feed short logs through
:class:`~adjudicator.flow.CoreFlow` built with the toy rules directly. The next ones
install the toy game the way another distribution would: a ``toy_game-0.dist-info`` on
``sys.path`` whose entry point in the group ``coreflow_judge.games`` names
:data:`TOY_GAME`; then ``coreflow judge`` and :func:`judge_lines` judge toy logs. The last
tests check that no code outside a game's folder names a game.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator import plugins
from coreflow_judge.adjudicator.findings import Finding, finding
from coreflow_judge.adjudicator.flow import CoreFlow, Req
from coreflow_judge.adjudicator.game import (
    ActionDef,
    FlowPolicy,
    GameResult,
    Resolution,
    RulesHooks,
    TriggerSpec,
    UnsupportedRules,
)
from coreflow_judge.adjudicator.judge import judge_lines
from coreflow_judge.adjudicator.plugins import GamePlugin
from coreflow_judge.adjudicator.policies import CoreTriggerOrder, NarrowestScopeWins
from coreflow_judge.cli.main import app
from coreflow_judge.events.models import (
    LINE_ADAPTER,
    GameStarted,
    MatchStarted,
    Request,
    Resolve,
)
from coreflow_judge.events.reader import iter_lines
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------- the toy game
TOY_ACTIONS = {  # id: (speed, timing, direct)
    "point": ("instant", "main", True),
    "wall": ("normal", "quick", True),
    "pass_turn": ("instant", "main", True),
    "bonus": ("instant", "quick", False),
}
TARGET = 3


class ToyRules(RulesHooks):
    """The whole rules module of "Count to three"."""

    edition = "1"
    policy = FlowPolicy(requester_keeps_chance=True, resolve_before_cost_triggers=False)
    trigger_order = CoreTriggerOrder()
    permissions = NarrowestScopeWins()

    def __init__(self) -> None:
        self.actions = {a: ActionDef(a, a.replace("_", " ").title(), s, t, d)  # type: ignore[arg-type]
                        for a, (s, t, d) in TOY_ACTIONS.items()}
        self.points: dict[str, int] = {}

    def action(self, action_id: str) -> ActionDef | None:
        return self.actions.get(action_id)

    def start_game(self, flow: CoreFlow, header: MatchStarted, line: GameStarted) -> None:
        self.points = {p: 0 for p in flow.players}

    def request_findings(self, flow: CoreFlow, line: Request, action: ActionDef) -> list[Finding]:
        if action.id == "point" and line.key_cards:  # a code of the toy game's own
            return [finding("legality.point-with-cards", line.seq, "toy§2",
                            "A point is asked with no card; this one names "
                            f"{', '.join(line.key_cards)}.", actual=list(line.key_cards))]
        return []

    def pay_costs(self, flow: CoreFlow, req: Req, line: Request) -> list[TriggerSpec]:
        return []

    def resolve(self, flow: CoreFlow, req: Req, line: Resolve) -> Resolution:
        triggers = []
        if req.action.id in ("point", "bonus"):
            self.points[req.controller] += 1
            if req.action.id == "point" and self.points[req.controller] % 2 == 0:
                triggers.append(TriggerSpec("bonus", req.id, req.controller))
        elif req.action.id == "pass_turn":
            flow.start_turn(flow.next_player(req.controller))
            flow.give_chance_to_turn_player()
        return Resolution("resolved", [], triggers=triggers)

    def win_check(self, flow: CoreFlow) -> GameResult | None:
        won = [p for p, n in self.points.items() if n >= TARGET]
        return GameResult("win", won[0], "three_points") if won else None


    def win_check_unknown(self, flow: CoreFlow) -> str | None:
        return None

    def board(self, flow: CoreFlow) -> dict[str, Any]:
        return {"points": dict(self.points)}

    def notes(self) -> list[str]:
        return []


def toy_rules(header: MatchStarted, edition: str) -> ToyRules:
    """The toy game's rules factory, and its part of the header's validation."""
    if edition != "1":
        raise UnsupportedRules(f"unknown toy edition {edition!r} (known: 1)", field="rules")
    if header.format != "standard":
        raise UnsupportedRules(f"format {header.format!r} is not supported yet", field="format")
    if len(header.players) != 2:
        raise UnsupportedRules("the toy game is played by two", field="players")
    return ToyRules()


TOY_GAME = GamePlugin(
    id="toy",
    name="Count to three",
    editions=("1",),
    formats=("standard",),
    rules=toy_rules,
    codes={"legality.point-with-cards": ("error", "a point asked with cards")},
    rule_statements={"toy§1": "Three points win.",
                     "toy§2": "A point is asked with no card."},
    rule_prefix="toy§",
    rule_book="a rule of Count to three",
    card_text=str.upper,
    constant_parts=plugins.attributes_of_rules("actions", "policy"),
)
"""The toy game as a distribution offers it (entry point ``toy`` of the group)."""


def toy_flow() -> CoreFlow:
    # Built without the registry: the header is not validated (no "toy" game is installed).
    header = MatchStarted.model_construct(
        seq=1, type="match_started", match_id="toy-1", game="toy", rules="toy/1",
        format="standard", players=["ann", "ben"], log_format=1)
    return CoreFlow(header, ToyRules())


def feed(flow: CoreFlow, lines: list[dict[str, Any]]) -> list[Finding]:
    for seq, raw in enumerate(lines, start=2):
        flow.feed(LINE_ADAPTER.validate_python({"seq": seq, **raw}))
    flow.finish()
    return flow.findings


def req(rid: str, player: str, action: str, **kw: Any) -> dict[str, Any]:
    return {"type": "request", "request": rid, "player": player, "action": action, **kw}


def res(rid: str) -> dict[str, Any]:
    return {"type": "resolve", "request": rid, "result": "resolved"}


# ---------------------------------------------------------------------------- the tests
def test_a_toy_game_is_judged_by_the_core_flow() -> None:
    flow = toy_flow()
    found = feed(flow, [
        {"type": "game_started", "first_player": "ann"},
        req("r1", "ann", "point"), res("r1"),
        req("r2", "ann", "pass_turn"), res("r2"),
        req("r3", "ben", "wall"),                       # normal: staged, ben keeps the chance
        {"type": "pass", "player": "ben"}, {"type": "pass", "player": "ann"},
        res("r3"),                                      # all passed: the stage resolves
        req("r4", "ben", "pass_turn"), res("r4"),
        req("r5", "ann", "point"), res("r5"),           # ann's 2nd point triggers a bonus
        res("t1"),                                      # the bonus (3rd point): ann wins
    ])
    assert found == []
    assert flow.result == GameResult("win", "ann", "three_points")
    complete = flow.complete_log()
    types = [line.type for line in complete]
    # The rule-system lines the toy log left out are derived by the flow itself.
    assert types.count("turn_started") == 3
    assert "trigger" in types and "stage" in types and types[-1] == "game_ended"
    trig = next(line for line in complete if line.type == "trigger")
    assert trig.model_dump(include={"action", "controller", "source"}) == {
        "action": "bonus", "controller": "ann", "source": "r5"}
    assert [(line.seq, line.type) for line in complete] == list(enumerate(types, 1))


def test_the_core_flow_judges_the_toy_games_mistakes() -> None:
    flow = toy_flow()
    found = feed(flow, [
        {"type": "game_started", "first_player": "ann"},
        req("r1", "ben", "point"),                      # not ben's chance, not ben's turn
        res("r1"),
        req("r2", "ann", "bonus"),                      # only the rules start a bonus
        res("r2"),
        req("r3", "ann", "wall"),
        res("r3"),                                      # resolved before ben passed
    ])
    assert [(f.code, f.seq) for f in found] == [
        ("timing.no-chance", 3), ("timing.main-not-turn-player", 3),
        ("timing.not-directly-actionable", 5),
        ("timing.resolved-before-all-passed", 8),
    ]
    assert flow.rules.board(flow) == {"points": {"ann": 1, "ben": 1}}


def test_play_after_the_toy_game_is_won_is_reported_once() -> None:
    flow = toy_flow()
    lines: list[dict[str, Any]] = [{"type": "game_started", "first_player": "ann"}]
    for i in range(1, 4):
        lines += [req(f"r{i}", "ann", "point"), res(f"r{i}")]
        if i == 2:
            lines.append(res("t1"))
    found = feed(flow, lines)
    assert [(f.code, f.seq) for f in found] == [("order.win-check-missed", 8)]


GAME_NAMES = re.compile(r"black\s*poker|duel|masters|i[_\- ]?language|\bdm\d|\bil\.",
                        re.IGNORECASE)


def test_the_core_flow_names_no_game() -> None:
    for name in ("flow.py", "policies.py", "game.py"):
        text = (ROOT / "adjudicator" / name).read_text(encoding="utf-8")
        hits = [m.group(0) for m in GAME_NAMES.finditer(text)]
        assert hits == [], f"adjudicator/{name} names a game: {hits}"
        assert not re.search(r"game\s*[!=]=|edition\s*[!=]=|header\.game|header\.rules", text), name
        # Nor cites one game's rule book: a game's clauses come from its policy data.
        assert not re.search(r"\b(bp|dm|il)[0-9.§\[]", text), f"adjudicator/{name} cites a game"


# ---------------------------------------------------------------------------- registered
@pytest.fixture
def toy_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy game installed as another distribution would install it: its metadata and
    entry point in a ``dist-info`` folder on ``sys.path``; the registry reads it afresh."""
    site = tmp_path / "site"
    info = site / "toy_game-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-game\nVersion: 0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{plugins.GROUP}]\ntoy = {__name__}:TOY_GAME\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    plugins.clear_cache()
    yield tmp_path
    plugins.clear_cache()


def toy_log(*body: dict[str, Any], **header: Any) -> list[str]:
    first = {"type": "match_started", "match_id": "toy-1", "game": "toy", "rules": "toy/1",
             "format": "standard", "players": ["ann", "ben"], "log_format": 1, **header}
    lines = [first, {"type": "game_started", "first_player": "ann"}, *body]
    return [json.dumps({"seq": seq, **line}) for seq, line in enumerate(lines, start=1)]


WON = (req("r1", "ann", "point"), res("r1"), req("r2", "ann", "point"), res("r2"), res("t1"))
"""Ann's two points, the bonus the second triggers: three points, ann wins."""


def write_log(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_toy_game_is_found_through_the_entry_point_group(toy_installed: Path) -> None:
    assert "toy" in plugins.game_ids()
    assert {"blackpoker", "duel_masters", "i_language"} <= set(plugins.game_ids())
    plugin = plugins.game_plugin("toy")
    assert plugin.id == "toy" and plugin.rules(
        MatchStarted.model_construct(format="standard", players=["a", "b"]), "1").edition == "1"
    assert plugins.game_plugin("toy") is plugin  # loaded once, then cached
    assert finding("legality.point-with-cards", 3, "toy§2", "m").severity == "error"


def test_judge_lines_judges_a_toy_log(toy_installed: Path) -> None:
    report = judge_lines(iter_lines(toy_log(*WON)))
    assert report.findings == []
    assert report.result == {"result": "win", "winner": "ann", "reason": "three_points"}
    report = judge_lines(iter_lines(toy_log(req("r1", "ann", "point", key_cards=["ann:x"]),
                                            res("r1"))))
    assert [(f.code, f.seq, f.rule) for f in report.findings] == [
        ("legality.point-with-cards", 3, "toy§2")]


def test_coreflow_judge_of_a_toy_log(toy_installed: Path) -> None:
    runner = CliRunner()
    clean = write_log(toy_installed / "clean.jsonl", toy_log(*WON))
    r = runner.invoke(app, ["judge", str(clean)])
    assert r.exit_code == 0, r.output
    assert "no findings: the log follows the rules" in r.stdout
    assert "result: ann wins (three_points)" in r.stdout
    bad = write_log(toy_installed / "bad.jsonl",
                    toy_log(req("r1", "ann", "point", key_cards=["ann:x"]), res("r1")))
    r = runner.invoke(app, ["judge", str(bad)])
    assert r.exit_code == 1, r.output
    assert "seq 3  legality.point-with-cards  [error]" in r.stdout
    assert "rule      toy§2: A point is asked with no card." in r.stdout
    r = runner.invoke(app, ["judge", str(bad), "--format", "json"])
    assert [f["code"] for f in json.loads(r.stdout)["findings"]] == ["legality.point-with-cards"]
    r = runner.invoke(app, ["board", str(clean), "--at", "4"])
    assert r.exit_code == 0, r.output
    assert "turn 1 · turn player ann" in r.stdout


@pytest.mark.parametrize(("header", "field"), [
    ({"rules": "toy/2"}, "rules"),
    ({"format": "blitz"}, "format"),
    ({"players": ["ann", "ben", "cy"]}, "players"),
    ({"cards": {"x": 1}}, "cards"),  # a game field the toy game does not read
    ({"rules": "chess/1"}, "rules"),
])
def test_a_toy_header_the_toy_game_cannot_use(toy_installed: Path, header: dict[str, Any],
                                              field: str) -> None:
    log = write_log(toy_installed / "h.jsonl", toy_log(*WON, **header))
    r = CliRunner().invoke(app, ["judge", str(log)])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"coreflow: {log}: line 1: field '{field}': "), r.stderr
    assert "Traceback" not in r.output


def test_the_toy_game_has_no_simulator(toy_installed: Path) -> None:
    r = CliRunner().invoke(app, ["simulate", "--rules", "toy/1", "--out",
                                 str(toy_installed / "out")])
    assert r.exit_code == 2
    assert r.stderr.startswith("coreflow: --rules 'toy/1': Count to three has no simulator; "
                               "the games with a simulator: blackpoker/6.1")


def test_without_its_distribution_the_toy_game_is_unknown(tmp_path: Path) -> None:
    plugins.clear_cache()
    assert "toy" not in plugins.game_ids()
    log = write_log(tmp_path / "t.jsonl", toy_log(*WON))
    r = CliRunner().invoke(app, ["judge", str(log)])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"coreflow: {log}: line 1: field 'game': must be a registered "
                               "game: blackpoker, duel_masters, i_language"), r.stderr
    with pytest.raises(KeyError):
        finding("legality.point-with-cards", 3, "toy§2", "m")


def test_a_game_object_that_contradicts_itself_is_refused() -> None:
    with pytest.raises(ValueError, match="default format"):
        GamePlugin(id="toy", name="t", editions=("1",), formats=("a",), rules=toy_rules,
                   default_format="b")
    with pytest.raises(ValueError, match="core finding codes"):
        GamePlugin(id="toy", name="t", editions=("1",), formats=("a",), rules=toy_rules,
                   codes={"log.malformed": ("error", "mine")})
    with pytest.raises(ValueError, match="game id"):
        GamePlugin(id="Toy Game", name="t", editions=("1",), formats=("a",), rules=toy_rules)


class _RenamedPlayers(MatchStarted):
    players: list[str]  # type: ignore[assignment]


def test_a_game_adds_fields_to_the_core_lines_and_changes_none() -> None:
    """A game's line models extend the core's; one that is not a subclass, or that
    changes a core field, is refused when its lines are first built."""
    for own in ((_RenamedPlayers, GameStarted), (MatchStarted, Request)):
        plugin = GamePlugin(id="toy", name="t", editions=("1",), formats=("a",),
                            rules=toy_rules, own_lines=lambda own=own: own)  # type: ignore[misc]
        plugins._lines.pop("toy", None)
        with pytest.raises(ValueError, match="changes the core fields|no subclass"):
            _ = plugin.lines
    plugins._lines.pop("toy", None)


# ---------------------------------------------------------------------------- no game named
CORE_FOLDERS = ("adjudicator", "events", "projections", "cli", "audit")
GAME_NAME = re.compile(r"black[\s_-]*poker|duel[\s_-]*masters|i[\s_-]*language", re.IGNORECASE)


def _prose_strings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are prose by position: docstrings and ``help=``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
            for a, b in zip(body, body[1:], strict=False):  # attribute docstrings
                if isinstance(a, ast.Assign | ast.AnnAssign) and isinstance(b, ast.Expr) \
                        and isinstance(b.value, ast.Constant):
                    out.add(id(b.value))
        if isinstance(node, ast.keyword) and node.arg == "help":
            out |= {id(c) for c in ast.walk(node.value) if isinstance(c, ast.Constant)}
    return out


def game_names_in_code(source: str) -> list[str]:
    """Where ``source`` names a game as code: an identifier (a name, an attribute, an
    argument, a definition, an imported module) or a string literal that is one word (a
    key, an id, a path: ``"i_language"``, ``"blackpoker/9.0"``). Comments, docstrings,
    ``help=`` texts and prose strings (with a space: messages, descriptions) may name one."""
    tree = ast.parse(source)
    prose = _prose_strings(tree)
    hits: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.keyword):
            names = [node.arg or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in prose and not re.search(r"\s", node.value):
            names = [node.value]
        hits += [f"line {getattr(node, 'lineno', '?')}: {n}" for n in names
                 if GAME_NAME.search(n)]
    return hits


def test_the_name_check_sees_code_and_lets_prose_pass() -> None:
    code = ('"""A BlackPoker docstring."""\n'
            'from x.games.blackpoker.rules import Rules\n'
            'GAMES = {"duel_masters": 1}\n'
            'def f(i_language_deck): return ILanguageRules\n'
            'x = typer.Option(help="blackpoker/9.0 or duel_masters/1.47")\n'
            'msg = "an i-language rule block"  # the BlackPoker way\n')
    named = sorted(h.split(": ", 1)[1] for h in game_names_in_code(code))
    assert named == ["ILanguageRules", "duel_masters", "i_language_deck",
                     "x.games.blackpoker.rules"]


def test_no_code_outside_a_games_folder_names_a_game() -> None:
    found: dict[str, list[str]] = {}
    for folder in CORE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("adjudicator/games/"):
                continue
            hits = game_names_in_code(path.read_text(encoding="utf-8"))
            if hits:
                found[rel] = hits
    assert found == {}


# ---------------------------------------------------------------------------- the core schema
CORE_LINE_FIELDS: dict[str, set[str]] = {
    "match_started": {"match_id", "game", "rules", "format", "regulation", "players", "decks",
                      "deck_sizes", "cards", "event", "log_format"},
    "game_started": {"first_player", "reveals", "hands"},
    "turn_started": {"player", "turn"},
    "chance_moved": {"to"},
    "request": {"request", "player", "action", "key_cards", "costs", "targets", "choices",
                "speed", "timing"},
    "pass": {"player"},
    "trigger": {"request", "action", "source", "controller"},
    "stage": {"request"},
    "discard": {"request", "reason"},
    "resolve": {"request", "result", "choices", "effects"},
    "roll": {"player", "sides", "result"},
    "taken_back": {"lines", "reason"},
    "game_ended": {"result", "winner", "reason"},
}
"""The fields of each core line beyond ``seq``, ``type``, ``at``, ``note``, ``x`` and
``hash`` (docs/games.md, "A game's own fields"): what every game's log may carry. A field
only one game reads is not added here but declared by that game's plugin (its
``match_started`` or ``game_started`` model)."""


def _class_fields(source: str) -> dict[str, list[str]]:
    """Field name -> the classes of ``source`` that declare it (annotated class bodies)."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.setdefault(item.target.id, []).append(node.name)
    return out


def game_fields_in_core(source: str) -> list[str]:
    """The fields a registered game declares as its own (in the classes of its header and
    set-up models, the core's left out) that a class of ``source`` declares too."""
    own: dict[str, str] = {}
    for plugin in plugins.games():
        for core, model in ((MatchStarted, plugin.match_started),
                            (GameStarted, plugin.game_started)):
            for cls in model.__mro__[:model.__mro__.index(core)]:  # the game's classes
                own.update(dict.fromkeys(vars(cls).get("__annotations__", {}), plugin.id))
    declared = _class_fields(source)
    return sorted(f"{name} ({own[name]}'s, in {', '.join(declared[name])})"
                  for name in declared if name in own)


def test_the_core_log_schema_holds_core_fields_only() -> None:
    """The core schema (events/models.py) names no game's field: none of the fields a
    game declares in its plugin is declared there too, each core line has exactly its
    documented fields, and the cost kinds are no fixed list (each game names its own)."""
    from coreflow_judge.events.models import LINE_TYPES, Cost

    source = (ROOT / "events" / "models.py").read_text(encoding="utf-8")
    assert game_fields_in_core(source) == []
    common = {"seq", "type", "at", "note", "x", "hash"}
    found = {kind: set(model.model_fields) - common for kind, model in LINE_TYPES.items()}
    assert found == CORE_LINE_FIELDS
    kind = Cost.model_fields["kind"]
    assert "Literal" not in repr(kind.annotation) + repr(kind.metadata), (
        "the core fixes the cost kinds: a game names its own (GamePlugin.cost_kinds)")
    own_games = {p.id for p in plugins.games() if p.cost_kinds}
    assert "blackpoker" in own_games  # the letters B, L, D, S, C are BlackPoker's


def test_every_field_a_game_declares_is_documented() -> None:
    """A game's own field is documented as ``line.field`` (docs/choices.md,
    docs/duel_masters.md, ...): a new field touches its docs row."""
    docs = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
    missing = []
    for plugin in plugins.games():
        for core, model in ((MatchStarted, plugin.match_started),
                            (GameStarted, plugin.game_started)):
            kind = core.model_fields["type"].default
            missing += [f"{plugin.id}: {kind}.{name}" for name in model.model_fields
                        if name not in core.model_fields and f"`{kind}.{name}`" not in docs]
    assert missing == []


def test_the_schema_check_sees_a_game_field_put_back_in_the_core() -> None:
    """What the check above would say of a core schema that held BlackPoker's ``packs``
    and Duel Masters' ``hyperspatial`` again."""
    source = (ROOT / "events" / "models.py").read_text(encoding="utf-8")
    moved = source.replace(
        "    first_player: PlayerId\n",
        "    first_player: PlayerId\n    packs: PerPlayer[Cards] | None = None\n", 1).replace(
        "    players: list[PlayerId]",
        "    hyperspatial: PerPlayer[Cards] | None = None\n    players: list[PlayerId]", 1)
    assert moved != source
    assert game_fields_in_core(moved) == [
        "hyperspatial (duel_masters's, in MatchStarted)",
        "packs (blackpoker's, in GameStarted)"]
