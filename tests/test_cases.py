"""Runs every adjudication case under tests/cases/, one pytest item per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.cases import Case, iter_case_files, load_cases, run_case

CASES_DIR = Path(__file__).parent / "cases"


def _all_cases() -> list[Case]:
    return [c for f in iter_case_files([CASES_DIR]) for c in load_cases(f)]


ALL_CASES = _all_cases()


@pytest.mark.parametrize("case", ALL_CASES, ids=[f"{c.game}:{c.id}" for c in ALL_CASES])
def test_case(case: Case) -> None:
    result = run_case(case)
    assert result.passed, result.line()


def test_the_cases_are_there() -> None:
    """An empty case folder would turn every case above into one quiet skip."""
    assert {c.game for c in ALL_CASES} == {"maria", "ror"}
    assert len(ALL_CASES) >= 300, len(ALL_CASES)
