"""Findings: what the judge reports when a recorded match departs from the rules.

The codes are a public contract (docs/findings.md): judges cite them, auditors group by
them, fixtures assert them. Never rename or reuse one. :data:`CODES` holds the codes every
game can give; a game's own codes (a step order, a once-per-game use) come with the game
(:attr:`GamePlugin.codes <adjudicator.plugins.GamePlugin.codes>`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]

#: code -> (default severity, one-line meaning): the game-agnostic part of the catalogue
#: of docs/findings.md.
CODES: dict[str, tuple[Severity, str]] = {
    "log.malformed": ("error", "a line is not valid JSON or not a valid event"),
    "log.seq-gap": ("error", "seq is not 1, 2, 3, ... in order"),
    "log.unknown-ref": ("error", "an event names a player, card or request that does not exist"),
    "log.after-game-end": ("error", "a game event after a recorded game_ended line"),
    "log.choice-missing": ("warning", "a choice the rules require is not recorded"),
    "log.call-ambiguous": ("warning", "a shortcut call cannot stand for the passes it implies"),
    "log.claim-mismatch": ("warning", "a request's speed or timing claim contradicts its action"),
    "log.taken-back": ("info", "lines taken back at the table by a correction, not judged"),
    "log.hidden-info": ("warning", "a ruling depends on a card or count the log does not show"),
    "timing.no-chance": ("error", "a request or pass by a player not holding the chance"),
    "timing.main-not-turn-player": ("error", "a main-timing request by a non-turn player"),
    "timing.main-stage-not-empty": ("error", "a main-timing request while the stage holds one"),
    "timing.not-directly-actionable": ("error", "a player requested a rules-only action"),
    "timing.once-per-turn": ("error", "a once-per-turn action taken twice in a turn"),
    "timing.resolved-before-all-passed": ("error", "resolved before every player passed"),
    "timing.chance-wrong-player": ("error", "a recorded chance move names the wrong holder"),
    "order.stage-not-lifo": ("error", "a stage request resolved under a later one"),
    "order.trigger-turn-order": ("error", "triggered requests handled out of turn order"),
    "order.trigger-instant-before-normal": ("error", "a normal trigger staged before instants"),
    "order.trigger-main-before-quick": ("error", "a quick trigger handled before main ones"),
    "order.main-trigger-not-discarded": ("error", "a main trigger staged on a non-empty stage"),
    "order.trigger-wrongly-discarded": ("error", "a triggered request discarded on an empty stage"),
    "order.trigger-missed": ("error", "a trigger condition was met but its request never recorded"),
    "order.trigger-spurious": ("error", "a triggered request recorded whose condition was not met"),
    "order.instant-before-own-trigger": ("error", "a cost-triggered instant resolved too early"),
    "order.request-never-resolved": ("error", "a request left on the stage that the table "
                                     "went on without"),
    "order.win-check-missed": ("error", "play went on after the game was decided"),
    "precedence.scope-order": ("error", "abilities applied out of scope order"),
    "precedence.timestamp-order": ("error", "same-scope abilities applied against timestamps"),
    "precedence.prohibition-over-permission": ("error", "a 'can' won over a 'cannot'"),
    "precedence.value-mismatch": ("error", "a recorded value differs from the computed one"),
    "legality.unknown-action": ("error", "the action is not in the format's action list"),
    "legality.cost-unpaid": ("error", "a cost not paid, or paid wrongly"),
    "legality.key-card-invalid": ("error", "a key card missing or not matching the condition"),
    "legality.target-invalid": ("error", "a target not meeting the target condition"),
    "legality.fizzle-not-applied": ("error", "an effect applied although its target was gone"),
    "legality.partial-not-applied": ("error", "partial execution skipped or overdone"),
    "legality.choice-invalid": ("error", "a choice made while resolving is not allowed"),
    "legality.effect-mismatch": ("error", "the recorded result differs from the rules' result"),
    "legality.key-card-not-to-graveyard": ("error", "key card not moved to the graveyard"),
    "legality.result-mismatch": ("error", "the recorded game result differs from the rules'"),
}


@dataclass(slots=True)
class Finding:
    """One departure from the rules, tied to the log line (``seq``) it is about."""

    code: str
    seq: int
    rule: str
    message: str
    severity: Severity = "error"
    expected: Any = None
    actual: Any = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        out = {k: data[k] for k in ("code", "seq", "severity", "rule", "message")}
        if self.expected is not None:
            out["expected"] = self.expected
        if self.actual is not None:
            out["actual"] = self.actual
        return out


def finding(
    code: str,
    seq: int,
    rule: str,
    message: str,
    *,
    expected: Any = None,
    actual: Any = None,
    severity: Severity | None = None,
) -> Finding:
    """Build a finding; the severity defaults to the catalogue's (the core's, or the
    registered game's whose code it is)."""
    entry = code_entry(code)
    if entry is None:
        raise KeyError(f"unknown finding code {code!r}")
    return Finding(
        code=code,
        seq=seq,
        rule=rule,
        message=message,
        severity=severity or entry[0],
        expected=expected,
        actual=actual,
    )


def code_entry(code: str) -> tuple[Severity, str] | None:
    """(default severity, meaning) of a core code or of a registered game's code."""
    entry = CODES.get(code)
    if entry is not None:
        return entry
    from coreflow_judge.adjudicator.plugins import game_code  # the registry loads games

    return game_code(code)


def catalogue() -> dict[str, tuple[Severity, str]]:
    """Every code: the core's, then each registered game's."""
    from coreflow_judge.adjudicator.plugins import games

    out = dict(CODES)
    for plugin in games():
        for code, entry in plugin.codes.items():
            out.setdefault(code, entry)
    return out
