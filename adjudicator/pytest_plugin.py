"""pytest plugin: every ruling fixture is a test item named after it.

Active only where asked for: this project's pytest settings load it
(``addopts = -p coreflow_judge.adjudicator.pytest_plugin`` in pyproject.toml), and a user
runs ``pytest -p coreflow_judge.adjudicator.pytest_plugin DIR`` for fixtures of their own;
there is no pytest11 entry point, so other pytest runs of the environment never see it.
It collects each ``NAME.expected.json`` that has its ``NAME.jsonl`` beside it, judges the
log once (the session's judgement, shared with the project's other fixture tests), and
fails with a diff that names the log line and the rule of each changed finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from coreflow_judge.adjudicator.rulings import EXPECTED_SUFFIX, RulingCase, check


class RulingChanged(Exception):
    """The judge no longer rules a fixture as it was frozen."""


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(EXPECTED_SUFFIX) and RulingCase.of(file_path).log.exists():
        return RulingFile.from_parent(parent, path=file_path)
    return None


class RulingFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        case = RulingCase.of(self.path)
        yield RulingItem.from_parent(self, name=case.name, case=case)


class RulingItem(pytest.Item):
    def __init__(self, *, case: RulingCase, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        diff = check(self.case)
        if diff is not None:
            raise RulingChanged(diff)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, RulingChanged):
            return str(excinfo.value) + (
                "\n(if the change is deliberate: coreflow fixture check --update "
                f"{self.case.expected})")
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"ruling {self.case.name}"
