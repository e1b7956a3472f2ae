"""Every rule of M2-M12 is cited by at least one adjudication case of tests/cases/maria/ (the
introductory game's and the advanced game's: politics M9, victory M10.2-M10.6 and the
advanced-only ids), every card effect E1-E17, and all seven worked examples W1-W7.

A citation is not proof that a rule's behaviour is pinned down: ``bench/mutate.py`` measures that."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.cases import iter_case_files, load_cases

CASES = Path(__file__).parent / "cases" / "maria"
IDS = Path(__file__).parent / "rules" / "maria.ids"
"""The rule ids of the Maria rules, shipped with the tests (a missing file fails every test here)."""

RULES = {
    "M2": 6, "M3": 12, "M4": 9, "M5": 11, "M6": 6, "M7": 2, "M8": 4, "M9": 20,
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

EXAMPLES = ("W1", "W2", "W3", "W4", "W5", "W6", "W7")
"""Every worked example of maria.md."""

EFFECTS = tuple(f"E{i}" for i in range(1, 18))
"""The effect vocabulary of M9.19."""

ADVANCED_SECTIONS = ("M9",)
"""Sections that exist only in the advanced game."""


def _cited() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    for path in iter_case_files([CASES]):
        for case in load_cases(path):
            for rule in case.rules:
                cited.setdefault(rule, []).append(case.id)
    return cited


def intro_rules() -> list[str]:
    """Every rule id of M2-M8 and M10-M12 less the advanced-only ones."""
    ids = [f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)
           if sec not in ADVANCED_SECTIONS]
    return [r for r in ids if r not in ADVANCED_ONLY]


def advanced_rules() -> list[str]:
    """Every rule id of M9, the advanced-only ids of the other sections, and E1-E17."""
    m9 = [f"M9.{i}" for i in range(1, RULES["M9"] + 1)]
    return [*m9, *sorted(ADVANCED_ONLY), *EFFECTS]


def shipped_ids(kind: str) -> set[str]:
    """The ids of one kind (rule, effect, example, option) listed in tests/rules/maria.ids."""
    lines = IDS.read_text("utf-8").splitlines()
    return {line.split()[1] for line in lines if line.split()[:1] == [kind]}


def test_rule_table_matches_the_shipped_ids() -> None:
    found = shipped_ids("rule")
    mine = {f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)}
    in_sections = {r for r in found if r.split(".")[0] in RULES}
    assert in_sections == mine
    assert shipped_ids("effect") == set(EFFECTS)
    assert shipped_ids("example") == set(EXAMPLES)


def test_every_introductory_rule_is_covered_by_a_case() -> None:
    cited = _cited()
    missing = [r for r in intro_rules() if r not in cited]
    assert not missing, f"rules no case cites: {missing}"


def test_every_advanced_rule_and_effect_is_covered_by_a_case() -> None:
    cited = _cited()
    missing = [r for r in advanced_rules() if r not in cited]
    assert not missing, f"advanced rules no case cites: {missing}"


def test_enough_advanced_cases() -> None:
    """At least 60 cases run the advanced scenario."""
    cases = [c for p in iter_case_files([CASES]) for c in load_cases(p)]
    advanced = [c for c in cases if c.data.get("scenario") == "advanced"]
    assert len(advanced) >= 60, len(advanced)


def test_worked_examples_are_cases() -> None:
    cited = _cited()
    assert [w for w in EXAMPLES if w not in cited] == []


def test_enough_cases_and_every_case_cites_a_rule() -> None:
    cases = [c for p in iter_case_files([CASES]) for c in load_cases(p)]
    assert len(cases) >= 140
    known = re.compile(r"^(M\d+\.\d+|W\d|E\d+)$")
    for case in cases:
        assert case.rules and all(known.match(r) for r in case.rules), case.id


def test_advanced_only_ids_are_real_rule_ids() -> None:
    ids = {f"{sec}.{i}" for sec, n in RULES.items() for i in range(1, n + 1)}
    assert set(ADVANCED_ONLY) <= ids
