"""Adjudication cases: rules tested like the Diplomacy Adjudicator Test Cases.

A case file is YAML::

    game: maria                 # which game runs the cases
    cases:
      - id: w1-tie-and-reserve  # unique within the file; becomes the pytest id
        rules: [M5.3, M1.10]    # rule ids it checks (required, at least one)
        ...                     # everything else is the game's own case format

The game provides ``run_case(case) -> list[str]``: an empty list when the case passes, otherwise
one ``expected …, got …`` line per mismatch. The format each game reads is documented in
``tests/cases/README.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.common.safeyaml import load_yaml_file
from pbem.errors import DataError, PbemError
from pbem.games import get_game

RULE_ID = re.compile(r"^[A-Z]+\d+(\.\d+)*$|^[A-Z]\d+$|^E\d+$|^PC\d+$")


@dataclass(frozen=True)
class Case:
    """One case of a case file."""

    game: str
    id: str
    rules: tuple[str, ...]
    data: dict[str, Any]
    source: str


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case."""

    case: Case
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failures

    def line(self) -> str:
        """``PASS id`` or ``FAIL id: …``, as ``pbem case run`` prints it."""
        if self.passed:
            return f"PASS {self.case.id}"
        return f"FAIL {self.case.id}: " + "; ".join(self.failures)


def load_cases(path: str | Path) -> list[Case]:
    """Read a case file, checking the envelope (game, ids, rule ids)."""
    p = Path(path)
    data = load_yaml_file(p)
    problems: list[str] = []
    if not isinstance(data, dict) or "game" not in data or not isinstance(data.get("cases"), list):
        raise DataError(f"{p}: a case file needs 'game:' and a list 'cases:'")
    game = str(data["game"])
    seen: set[str] = set()
    cases: list[Case] = []
    for i, raw in enumerate(data["cases"]):
        where = f"cases[{i}]"
        if not isinstance(raw, dict):
            problems.append(f"{where}: a case must be a mapping")
            continue
        cid = raw.get("id")
        if not isinstance(cid, str) or not cid:
            problems.append(f"{where}: missing 'id'")
            continue
        if cid in seen:
            problems.append(f"{where}: the id '{cid}' is used twice")
        seen.add(cid)
        rules = raw.get("rules")
        if not isinstance(rules, list) or not rules:
            problems.append(f"{where} ({cid}): 'rules' must list the rule ids the case checks")
            rules = []
        cases.append(Case(game, cid, tuple(str(r) for r in rules), raw, str(p)))
    if problems:
        raise DataError(f"{p}: the case file is broken", problems)
    return cases


def run_case(case: Case) -> CaseResult:
    """Run one case through its game."""
    game = get_game(case.game)
    try:
        failures = list(game.run_case(case.data))
    except PbemError as exc:
        failures = [f"the case could not run: {case.source}, case '{case.id}': {exc}"]
    return CaseResult(case, tuple(failures))


def iter_case_files(paths: list[str | Path]) -> Iterator[Path]:
    """Every ``*.yaml`` case file named, or found below the folders named, sorted."""
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            yield from sorted(p.rglob("*.yaml"))
        else:
            yield p
