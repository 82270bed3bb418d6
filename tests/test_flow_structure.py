"""The core flow's structure: the chart's state machine apart from the log's
reconciliation, games and policies apart from the flow, and the game's slot on a request
apart from the flow's own fields."""

from __future__ import annotations

import ast
from pathlib import Path

from coreflow_judge.adjudicator.flow import Continuation, Req
from coreflow_judge.adjudicator.policies import CoreTriggerOrder, seat_from_turn_player
from coreflow_judge.adjudicator.table import RequestView, Table

from tests.test_flow import ACE, log, p, res, run

ADJUDICATOR = Path(__file__).resolve().parent.parent / "adjudicator"


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, also under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_games_and_policies_do_not_import_the_flow() -> None:
    """game.py, policies.py and the protocols they read the flow through import neither
    the flow nor its request class: the flow imports them."""
    for name in ("game.py", "policies.py", "table.py"):
        imported = _imported_modules(ADJUDICATOR / name)
        flowish = {m for m in imported if m.rsplit(".", 1)[-1] in ("flow", "request", "ledger")}
        assert flowish == set(), (name, flowish)


def test_the_flow_never_touches_a_games_slot_on_a_request() -> None:
    """``Req.data`` is the game's: no ``.data`` in the flow, the ledger or the request's
    own module outside the field's definition."""
    for name in ("flow.py", "ledger.py"):
        tree = ast.parse((ADJUDICATOR / name).read_text(encoding="utf-8"))
        uses = [n.lineno for n in ast.walk(tree)
                if isinstance(n, ast.Attribute) and n.attr == "data"]
        assert uses == [], (name, uses)


def test_the_flow_and_its_requests_implement_the_protocols() -> None:
    """A judged flow is a :class:`Table` and its requests are :class:`RequestView`s: the
    core rule's trigger order reads them through the protocols alone."""
    flow, errors = run(log("9.0", ACE, p("alice"), p("bob"), res("r1")))
    assert errors == []
    table: Table = flow
    request: RequestView = flow.requests["r1"]
    assert isinstance(request, Req)
    assert seat_from_turn_player(table, "bob") == 1
    assert CoreTriggerOrder().rank(table, request) == (1, 0, 0)  # normal, turn player, main


def test_continuations_are_named_after_the_charts_arrows() -> None:
    """Each continuation's value is the arrow it stands for, ending at the step it goes
    to, and its name ends with that step."""
    for step in Continuation:
        target = step.value.rsplit("-> ", 1)[1].strip("[]")
        assert step.name.endswith("_TO_" + target) or step.name.endswith("_FOR_" + target), step
    assert {c.name for c in Continuation} == {
        "STAGE_RESOLVED_TO_2", "INSTANT_RESOLVED_TO_3", "NORMAL_STAGED_TO_D4",
        "INSTANT_WAITS_FOR_8"}


def test_the_methods_core_flow_md_names_are_where_it_says() -> None:
    """docs/core-flow.md names the method of each step: a bare ``_name`` is a method of
    :class:`CoreFlow` (the chart), ``Reconciler.name`` one of the flow's reconciler (a
    table that went off script), ``CoreFlow.name`` and ``Ledger.name`` attributes of
    theirs. A method moved or renamed without the page fails here."""
    import re

    from coreflow_judge.adjudicator.flow import CoreFlow
    from coreflow_judge.adjudicator.ledger import Ledger
    from coreflow_judge.adjudicator.reconcile import Reconciler

    text = (ADJUDICATOR.parent / "docs" / "core-flow.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`([A-Za-z_][A-Za-z_.]*)`", text))
    flow, _errors = run(log("9.0", ACE, p("alice"), p("bob"), res("r1")))
    owners: dict[str, object] = {"CoreFlow": flow, "Reconciler": Reconciler,
                                 "Ledger": Ledger}
    checked = 0
    for name in sorted(names):
        owner, _, attr = name.rpartition(".")
        if owner in owners:
            assert hasattr(owners[owner], attr), name
        elif not owner and name.startswith("_"):
            assert callable(getattr(CoreFlow, name, None)), name
        else:
            continue
        checked += 1
    assert checked >= 30  # the page names the flow's steps and the reconciler's parts


def test_the_chart_does_not_reconcile() -> None:
    """flow.py holds the chart: what a table that went off script needs (a made-up name
    bound, a step the table went on without, a repair taken as played) is the reconciler's,
    in its own module, and the flow only calls it."""
    from coreflow_judge.adjudicator.flow import CoreFlow
    from coreflow_judge.adjudicator.reconcile import Reconciler

    reconciling = {n for n in vars(Reconciler) if not n.startswith("__")}
    assert {"rule_system_line", "lookup", "miss_pending", "take_back_missed",
            "drop_unplayed_stage", "played_on_after_end", "repair",
            "turn_taken_by"} <= reconciling
    # The judge's repair planner calls the flow's repair, which hands it over.
    assert reconciling & set(vars(CoreFlow)) == {"repair"}


def test_a_flow_is_freed_without_the_cycle_collector() -> None:
    """Nothing a flow holds refers back to it (its reconciler is made at each use): the
    many flows the judge's repair planner replays are freed as soon as they are done, not
    by the cyclic garbage collector's passes (which cost the judge about a tenth of its
    time when the flow held its reconciler)."""
    import gc
    import weakref

    flow, errors = run(log("9.0", ACE, p("alice"), p("bob"), res("r1")))
    assert errors == []
    assert flow.reconciler.lookup("r1") is flow.requests["r1"]
    gone = weakref.ref(flow)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del flow
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
