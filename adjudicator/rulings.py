"""Ruling fixtures: a disputed log frozen with the ruling the judge gave on it.

A fixture is two reviewable text files side by side::

    NAME.jsonl          the match log as the judge received it
    NAME.expected.json  the ruling: note, rules edition, findings, result, final board
                        (and the board at the disputed line, ``board_at``)

Hand-written fixtures list each finding as ``{code, seq, severity}`` (written from the
rules); frozen ones (``coreflow fixture new``) also carry ``rule`` and ``message`` and the
final ``board``, and with ``--at SEQ`` the board after the disputed line,
``"board_at": {"seq": SEQ, "board": {...}}``. Checking a fixture re-judges its log and
compares every field the expected file gives (the rules edition the judge reads, the
findings, the result, the final board, the board at the disputed line); the diff names the
log line and the rule of each difference. A fixture about some of the board names them,
``"board_fields": ["/stage", "/players/bob/field"]`` (JSON pointers): its boards hold those
parts alone, and only those are compared; without it, the whole board is.

A new fixture goes to its game's folder unless told otherwise (:func:`game_folder`): the
folder under ``fixtures/rulings`` its game's plugin names for the match (BlackPoker: its
format, or ``frames`` for a match of a 9.0 frame; the other games: their id).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coreflow_judge.adjudicator.judge import JudgeInputError, Report, judge_file, judge_lines

if TYPE_CHECKING:
    from coreflow_judge.events.models import LogLine

EXPECTED_SUFFIX = ".expected.json"
DEFAULT_DIR = Path("fixtures") / "rulings"
#: Board keys left out of a frozen board: they repeat the findings or the header.
_BOARD_SKIP = ("findings", "match_id", "rules")
#: The judge's reports on fixture logs this process has judged: log path -> (the file's
#: size and modification time when judged, the report).
_JUDGED: dict[Path, tuple[tuple[int, int], Report]] = {}


def judgement(log: Path) -> Report:
    """The judge's report on a fixture's log, judged once per process: every check of the
    same unchanged file (the pytest plugin's item, the fixture-collection tests) shares it.
    A log changed since it was judged (size or modification time) is judged again.
    :class:`JudgeInputError` as :func:`judge_file` raises it."""
    path = log.resolve()
    stat = path.stat()
    stamp = (stat.st_size, stat.st_mtime_ns)
    cached = _JUDGED.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    report = judge_file(path)
    _JUDGED[path] = (stamp, report)
    return report


@dataclass(frozen=True, slots=True)
class RulingCase:
    """One fixture: its log and its expected ruling."""

    log: Path
    expected: Path

    @property
    def name(self) -> str:
        return self.log.name.removesuffix(".jsonl")

    @classmethod
    def of(cls, path: Path) -> RulingCase:
        """The case of a log path or an expected path."""
        if path.name.endswith(EXPECTED_SUFFIX):
            log = path.with_name(path.name.removesuffix(EXPECTED_SUFFIX) + ".jsonl")
            return cls(log, path)
        return cls(path, path.with_name(path.name.removesuffix(".jsonl") + EXPECTED_SUFFIX))

    def load(self) -> dict[str, Any]:
        """The expected ruling; :class:`ValueError` naming the file if it cannot be used."""
        if not self.expected.is_file():
            raise FileNotFoundError(
                f"{self.log}: no expected ruling {self.expected.name} beside it "
                "(coreflow fixture new LOG --name NAME freezes one)")
        try:
            data = json.loads(self.expected.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.expected}: not UTF-8: {exc.reason}") from exc
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.expected}: line {exc.lineno}: not valid JSON: "
                             f"{exc.msg}") from exc
        problem = _shape_problem(data)
        if problem is not None:
            raise ValueError(f"{self.expected}: {problem}")
        return dict(data)


def _shape_problem(data: Any) -> str | None:
    """Why an expected file is not a ruling (None when it is one)."""
    if not isinstance(data, dict):
        return "an expected ruling is a JSON object (description, rules, findings, result)"
    findings = data.get("findings", [])
    if not isinstance(findings, list):
        return "field 'findings': must be a list of findings"
    for i, f in enumerate(findings):
        if not isinstance(f, dict):
            return f"field 'findings[{i}]': must be an object with code, seq and severity"
        missing = [k for k in ("code", "seq", "severity") if k not in f]
        if missing:
            return f"field 'findings[{i}]': missing {', '.join(missing)}"
    if data.get("result") is not None and not isinstance(data["result"], dict):
        return "field 'result': must be an object or null"
    if data.get("board") is not None and not isinstance(data["board"], dict):
        return "field 'board': must be an object or null"
    at = data.get("board_at")
    if at is not None and not (isinstance(at, dict) and isinstance(at.get("seq"), int)
                               and isinstance(at.get("board"), dict)):
        return "field 'board_at': must be an object with an integer seq and a board"
    if "board_fields" in data:
        fields = data["board_fields"]
        if not isinstance(fields, list) or not fields:
            return "field 'board_fields': must be a list of JSON pointers (/stage, ...)"
        boards = [b for b in (data.get("board"), at and at.get("board")) if b is not None]
        for i, pointer in enumerate(fields):
            try:
                parts = pointer_parts(pointer)
            except ValueError as exc:
                return f"field 'board_fields[{i}]': {exc}"
            if boards and all(_at(b, parts) is _MISSING for b in boards):
                return (f"field 'board_fields[{i}]': {pointer!r} is in no board the fixture "
                        "holds")
    return None


# --------------------------------------------------------------------------- board fields
class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


_MISSING: Any = _Missing()


def pointer_parts(pointer: Any) -> list[str]:
    """The keys a JSON pointer (RFC 6901: ``/players/bob/field``, ``~1`` for ``/`` and
    ``~0`` for ``~`` inside a key) names; :class:`ValueError` for anything else."""
    if not isinstance(pointer, str) or not pointer.startswith("/") or pointer == "/":
        raise ValueError(f"{pointer!r} is not a JSON pointer to a part of the board "
                         "(/stage, /players/bob/field, ...)")
    return [p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/")]


def _at(board: Any, parts: Sequence[str]) -> Any:
    for key in parts:
        if not isinstance(board, dict) or key not in board:
            return _MISSING
        board = board[key]
    return board


def board_part(board: dict[str, Any], fields: Sequence[str] | None) -> dict[str, Any]:
    """The parts of a board a fixture is about (``board_fields``: JSON pointers), nested as
    in the board (a part the board lacks is left out); the whole board without fields."""
    if fields is None:
        return board
    out: dict[str, Any] = {}
    for pointer in fields:
        parts = pointer_parts(pointer)
        value = _at(board, parts)
        if value is _MISSING:
            continue
        node = out
        for key in parts[:-1]:
            node = node.setdefault(key, {})
        node[parts[-1]] = value
    return out


def discover(root: Path) -> list[RulingCase]:
    """Every fixture under ``root`` (or the one fixture ``root`` names)."""
    if root.is_file():
        return [RulingCase.of(root)]
    return [RulingCase.of(p) for p in sorted(root.glob(f"**/*{EXPECTED_SUFFIX}"))
            if RulingCase.of(p).log.exists()]


def final_board(report: Report) -> dict[str, Any] | None:
    """The board after the last line, as the fixture keeps it."""
    from coreflow_judge.projections.board import snapshot

    if report.flow is None:
        return None
    return _kept(snapshot(report.flow))


def _kept(board: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in board.items() if k not in _BOARD_SKIP}


def board_at(log: Path, seq: int) -> dict[str, Any]:
    """The board after line ``seq`` of a fixture's log, as the fixture keeps it;
    :class:`ValueError` (``--at SEQ: ...``) for a seq the log does not have."""
    from coreflow_judge.events.reader import read_log
    from coreflow_judge.projections.board import BoardProjector, BoardQueryError

    try:
        return _kept(BoardProjector(read_log(log)).at(seq))
    except BoardQueryError as exc:
        raise ValueError(f"--at {seq}: {exc}") from None


def game_folder(report: Report) -> Path:
    """Where a new fixture of this match goes by default: ``fixtures/rulings/<folder>``,
    the folder the game's plugin names for the match's header
    (:attr:`~adjudicator.plugins.GamePlugin.fixture_folder`), else the game's id."""
    from coreflow_judge.adjudicator.plugins import game_plugin, is_registered

    game = report.rules.partition("/")[0]
    header = report.flow.header if report.flow is not None else None
    if header is None or not is_registered(game):
        return DEFAULT_DIR / game
    return DEFAULT_DIR / game_plugin(game).fixture_folder(header)


def check_name(name: str) -> str:
    """A fixture's name as given (``.jsonl`` dropped), or :class:`ValueError` unless it is
    a plain file name: not empty, no ``/`` or ``\\``, no ``..``, not hidden."""
    name = name.removesuffix(".jsonl")
    if (not name.strip() or any(c in name for c in "/\\\0") or ".." in name
            or name.startswith(".")):
        raise ValueError(f"--name {name!r}: a fixture name must be a plain file name (not "
                         "empty, no '/', no '..', not starting with '.')")
    return name


def ruling_of(report: Report, note: str, with_board: bool = True,
              board_fields: Sequence[str] | None = None) -> dict[str, Any]:
    """The expected file for a report: what the judge rules now (of the board, the parts
    ``board_fields`` names, or all of it)."""
    data: dict[str, Any] = {
        "description": note,
        "rules": report.rules,
        "findings": [
            {k: v for k, v in f.as_dict().items() if k in ("code", "seq", "severity", "rule",
                                                            "message", "caused_by")}
            for f in report.findings
        ],
        "result": report.result,
    }
    if with_board:
        board = final_board(report)
        data["board"] = board if board is None else board_part(board, board_fields)
    if board_fields:
        data["board_fields"] = list(board_fields)
    return data


def write_ruling(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def freeze(log: Path | Sequence[LogLine], name: str, note: str,
           directory: Path | None = None, at: int | None = None,
           board_fields: Sequence[str] | None = None) -> RulingCase:
    """Copy ``log`` (a file, or the lines of a recorded match) into ``directory/NAME.jsonl``
    with the judge's ruling beside it: findings, result, final board and, with ``at``, the
    board after that line. ``directory``: the game's folder (:func:`game_folder`) unless
    given. ``board_fields``: the parts of the board the fixture is about (JSON pointers;
    the boards keep those alone, and checking compares those alone). Nothing is written
    unless everything can be."""
    from coreflow_judge.events.reader import canonical_dict

    name = check_name(name)
    fields = list(board_fields) if board_fields else None
    for pointer in fields or ():
        pointer_parts(pointer)  # before anything is read
    if isinstance(log, Path):
        if log.is_dir():
            raise IsADirectoryError(f"{log}: a directory; give one log file")
        try:
            report = judge_file(log)  # a log that cannot be judged leaves nothing behind
        except JudgeInputError as exc:
            raise ValueError(f"{log}: {exc}") from exc
        content = log.read_bytes()
    else:
        report = judge_lines(list(enumerate(log, start=1)))
        content = "".join(json.dumps(canonical_dict(line), separators=(",", ":"),
                                     ensure_ascii=False) + "\n" for line in log).encode()
    folder = directory if directory is not None else game_folder(report)
    case = RulingCase(folder / f"{name}.jsonl", folder / f"{name}{EXPECTED_SUFFIX}")
    if case.log.exists() or case.expected.exists():
        raise FileExistsError(f"fixture {name!r} already exists in {folder}")
    data = ruling_of(report, note, board_fields=fields)
    folder.mkdir(parents=True, exist_ok=True)
    case.log.write_bytes(content)
    if at is not None:
        try:
            data["board_at"] = {"seq": at, "board": board_part(board_at(case.log, at),
                                                               fields)}
        except ValueError:
            case.log.unlink()
            raise
    problem = _shape_problem(data)
    if problem is not None:  # a field named that no board has: nothing stays
        case.log.unlink()
        raise ValueError(f"--board-field: {problem.partition(': ')[2]}")
    write_ruling(case.expected, data)
    return case


def update(case: RulingCase) -> None:
    """Re-freeze a fixture deliberately: the judge's current ruling becomes the expected."""
    old = case.load()
    report = judgement(case.log)
    fields = old.get("board_fields")
    data = ruling_of(report, str(old.get("description", "")), with_board="board" in old,
                     board_fields=fields)
    if old.get("board_at") is not None:
        seq = old["board_at"]["seq"]
        data["board_at"] = {"seq": seq, "board": board_part(board_at(case.log, seq), fields)}
    write_ruling(case.expected, data)


def narrow(case: RulingCase, board_fields: Sequence[str]) -> None:
    """Say what an existing fixture's boards are about: its ``board`` and ``board_at`` keep
    the parts ``board_fields`` (JSON pointers) name, cut from the boards it froze, and
    everything else it expects (findings, result, rules) stays as it was. Refused, with
    nothing written, for a pointer that names nothing in its boards and for a fixture whose
    ruling has changed (its frozen boards are no longer the judge's: check it first)."""
    old = case.load()
    fields = list(board_fields)
    if not fields:
        raise ValueError(f"{case.expected}: give at least one part of the board")
    for pointer in fields:
        pointer_parts(pointer)
    if check(case) is not None:
        raise ValueError(f"{case.expected}: its ruling changed (coreflow fixture check "
                         f"{case.log}); narrow a fixture that passes")
    data = dict(old)
    if old.get("board") is not None:
        data["board"] = board_part(old["board"], fields)
    if old.get("board_at") is not None:
        data["board_at"] = {"seq": old["board_at"]["seq"],
                            "board": board_part(old["board_at"]["board"], fields)}
    data["board_fields"] = fields
    problem = _shape_problem(data)
    if problem is not None:
        raise ValueError(f"{case.expected}: {problem}")
    write_ruling(case.expected, data)


# --------------------------------------------------------------------------- checking
def _log_lines(case: RulingCase) -> dict[int, str]:
    """seq -> the raw log line, to quote in a diff."""
    out: dict[int, str] = {}
    for no, raw in enumerate(case.log.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            seq = json.loads(raw).get("seq", no)
        except (ValueError, AttributeError):
            seq = no
        out.setdefault(seq if isinstance(seq, int) else no, raw)
    return out


def _key(f: dict[str, Any], fields: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_frozen(f.get(k)) for k in fields)


def _frozen(value: Any) -> Any:
    """A finding's field as a dictionary key (``caused_by`` is an object)."""
    return tuple(sorted(value.items())) if isinstance(value, dict) else value


def check(case: RulingCase) -> str | None:
    """Re-judge a fixture; None when the ruling is unchanged, else a readable diff."""
    want = case.load()
    try:
        report = judgement(case.log)
    except JudgeInputError as exc:
        raise ValueError(f"{case.log}: {exc}") from exc
    problems: list[str] = []
    lines = _log_lines(case)
    expected = list(want.get("findings", []))
    fields: tuple[str, ...] = ("seq", "code", "severity", "caused_by")
    if expected and all("rule" in f for f in expected):
        fields = ("seq", "code", "severity", "rule", "caused_by")
    got = [f.as_dict() for f in report.findings]
    missing = [_key(f, fields) for f in expected]
    extra: list[dict[str, Any]] = []
    for f in got:
        k = _key(f, fields)
        if k in missing:
            missing.remove(k)
        else:
            extra.append(f)
    by_key = {_key(f, fields): f for f in expected}
    for k in missing:
        f = by_key.get(k, {})
        problems.append(
            f"- expected, no longer reported: seq {k[0]} {k[1]} [{k[2]}] "
            f"rule {f.get('rule', '?')}: {f.get('message', '')}\n"
            f"    line {k[0]}: {lines.get(k[0], '(no such line)')}"
        )
    for f in extra:
        problems.append(
            f"+ reported, not expected: seq {f['seq']} {f['code']} [{f['severity']}] "
            f"rule {f['rule']}: {f['message']}\n"
            f"    line {f['seq']}: {lines.get(f['seq'], '(no such line)')}"
        )
    if "rules" in want and want["rules"] != report.rules:
        problems.append(f"~ rules: expected {want['rules']}, the judge reads {report.rules}")
    if "result" in want and want["result"] != report.result:
        problems.append(f"~ result: expected {want['result']}, the judge gives {report.result}")
    board_fields = want.get("board_fields")  # the parts of the board the fixture is about
    if want.get("board") is not None:
        now = final_board(report)
        problems += [f"~ board {d}" for d in _board_diff(
            board_part(want["board"], board_fields),
            now if now is None else board_part(now, board_fields))]
    if want.get("board_at") is not None:
        seq = want["board_at"]["seq"]
        then = board_at(case.log, seq)
        problems += [f"~ board at seq {seq} {d}" for d in _board_diff(
            board_part(want["board_at"]["board"], board_fields), board_part(then, board_fields))]
    if not problems:
        return None
    return f"{case.log}: the ruling changed\n" + "\n".join(problems)


def _board_diff(old: Any, new: Any, path: str = "", limit: int = 20) -> list[str]:
    """Where two boards differ, as ``path: old -> new`` lines (at most ``limit``)."""
    out: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for k in sorted(set(old) | set(new)):
            out += _board_diff(old.get(k), new.get(k), f"{path}.{k}" if path else str(k),
                               limit - len(out))
            if len(out) >= limit:
                break
    elif old != new:
        out.append(f"{path}: {json.dumps(old, ensure_ascii=False)} -> "
                   f"{json.dumps(new, ensure_ascii=False)}")
    return out[:limit]
