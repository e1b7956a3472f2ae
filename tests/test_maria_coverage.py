"""The adjudication cases of tests/cases/maria/ together cover every rule of M2-M8 and M10-M12
that applies to the introductory game, and the worked examples W1-W4, W6 and W7."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.cases import iter_case_files, load_cases

CASES = Path(__file__).parent / "cases" / "maria"
SPEC = Path(__file__).resolve().parents[2] / "shared" / "rules" / "maria.md"

RULES = {
    "M2": 6, "M3": 12, "M4": 9, "M5": 11, "M6": 6, "M7": 2, "M8": 4,
    "M10": 6, "M11": 8, "M12": 12,
}
"""Rules per section of maria.md (M2.1-M2.6, ...)."""

ADVANCED_ONLY = {
    "M2.5": "a neutral power has no stage: no power is neutral in the introductory game",
    "M2.6": "durations count card effects of the political deck",
    "M3.10": "pieces are blocked only by political cards",
    "M3.11": "forced transfers come from peace and the Saxony track",
    "M3.12": "several forced transfers: peace and the Saxony track",
    "M8.4": "winter scoring counts victory-marker pools",
    "M10.2": "sudden death by an empty pool",
    "M10.3": "several empty pools",
    "M10.4": "winter totals after the 4th winter",
    "M10.5": "ties of the advanced game's scores",
    "M11.4": "sealed political bids",
    "M11.7": "Saxony changing sides",
    "M12.7": "the shared AU+PA stage needs the Pragmatic Army",
    "M12.8": "political orders",
}
"""Rule ids of M2-M8 and M10-M12 that only the advanced game uses, with the reason."""

EXAMPLES = ("W1", "W2", "W3", "W4", "W6", "W7")
"""W5 (politics) is advanced; W6's recruiting part and W7 in one seat apply to the
introductory game."""


def _cited() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for path in iter_case_files([CASES]):
        for case in load_cases(path):
            for rule in case.rules:
                cited.setdefault(rule, []).append(case.id)
    return cited


def intro_rules() -> list[str]:
    """Every rule id of M2-M8 and M10-M12 less the advanced-only ones."""
    ids = [f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)]
    return [r for r in ids if r not in ADVANCED_ONLY]


def test_rule_table_matches_the_spec() -> None:
    if not SPEC.is_file():  # the spec lives beside the repository in the product folder
        return
    text = SPEC.read_text("utf-8")
    found = set(re.findall(r"^\*\*(M\d+\.\d+) ", text, re.M))
    mine = {f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)}
    in_sections = {r for r in found if r.split(".")[0] in RULES}
    assert in_sections == mine


def test_every_introductory_rule_is_covered_by_a_case() -> None:
    cited = _cited()
    missing = [r for r in intro_rules() if r not in cited]
    assert not missing, f"rules no case cites: {missing}"


def test_worked_examples_are_cases() -> None:
    cited = _cited()
    assert [w for w in EXAMPLES if w not in cited] == []


def test_enough_cases_and_every_case_cites_a_rule() -> None:
    cases = [c for p in iter_case_files([CASES]) for c in load_cases(p)]
    assert len(cases) >= 80
    known = re.compile(r"^(M\d+\.\d+|W\d)$")
    for case in cases:
        assert case.rules and all(known.match(r) for r in case.rules), case.id


def test_advanced_only_ids_are_real_rule_ids() -> None:
    ids = {f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)}
    assert set(ADVANCED_ONLY) <= ids
