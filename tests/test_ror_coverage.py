"""Every rule id of R2-R7 and R9 and every worked example of the rules is cited by a case.

The ids are those of the rules text, shipped with the tests as ``tests/rules/ror-revolution.ids``
(a missing file fails the test that reads it).
"""

from __future__ import annotations

import re
from pathlib import Path

from pbem.cases import iter_case_files, load_cases

CASES = Path(__file__).parent / "cases" / "ror"
IDS = Path(__file__).parent / "rules" / "ror-revolution.ids"

SECTIONS = {"R2": 11, "R3": 7, "R4": 9, "R5": 5, "R6": 13, "R7": 8, "R9": 11}
REQUIRED = [f"{s}.{i}" for s, n in SECTIONS.items() for i in range(1, n + 1)]
EXAMPLES = [f"E{i}" for i in range(1, 10)]


def _cited() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for f in iter_case_files([CASES]):
        for case in load_cases(f):
            assert case.game == "ror"
            for r in case.rules:
                cited.setdefault(r, []).append(case.id)
    return cited


def test_at_least_forty_cases() -> None:
    n = sum(len(load_cases(f)) for f in iter_case_files([CASES]))
    assert n >= 40


def test_every_rule_of_r2_to_r7_and_r9_is_cited() -> None:
    cited = _cited()
    missing = [r for r in REQUIRED if r not in cited]
    assert not missing, f"rule ids with no case: {missing}"


def test_every_worked_example_is_a_case() -> None:
    cited = _cited()
    missing = [e for e in EXAMPLES if e not in cited]
    assert not missing, f"worked examples with no case: {missing}"


def test_cited_ids_exist_in_the_rules() -> None:
    known = set(REQUIRED) | set(EXAMPLES) | {f"R1.{i}" for i in range(1, 11)} | {
        f"R8.{i}" for i in range(1, 8)} | {f"D{i}" for i in range(1, 8)}
    unknown = sorted(set(_cited()) - known)
    assert not unknown, f"cases cite ids the rules do not have: {unknown}"


def _shipped(kind: str) -> set[str]:
    lines = IDS.read_text(encoding="utf-8").splitlines()
    return {line.split()[1] for line in lines if line.split()[:1] == [kind]}


def test_rule_list_matches_the_shipped_ids() -> None:
    rules = _shipped("rule")
    assert {r for r in rules if re.match(r"R[2-79]\.", r)} == set(REQUIRED)
    assert {r for r in rules if r.startswith(("R1.", "R8."))} == (
        {f"R1.{i}" for i in range(1, 11)} | {f"R8.{i}" for i in range(1, 8)})
    assert _shipped("example") == set(EXAMPLES)
    assert _shipped("difference") == {f"D{i}" for i in range(1, 8)}
