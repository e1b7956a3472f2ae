"""Runs every adjudication case under tests/cases/, one pytest item per case."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.cases import Case, iter_case_files, load_cases, run_case

CASES_DIR = Path(__file__).parent / "cases"


def _all_cases() -> list[Case]:
    if not CASES_DIR.is_dir():
        return []
    return [c for f in iter_case_files([CASES_DIR]) for c in load_cases(f) if f.name != "README.md"]


ALL_CASES = _all_cases()


@pytest.mark.parametrize("case", ALL_CASES, ids=[f"{c.game}:{c.id}" for c in ALL_CASES])
def test_case(case: Case) -> None:
    result = run_case(case)
    assert result.passed, result.line()
