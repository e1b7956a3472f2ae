"""Property test: hostile order files for every round kind of both games (Maria: setup, commit,
politics, hussars, stage, winter; Rome: senate, revolution, declare, revolution-2, endgame).

Each file starts from a seat's legal orders in a real position and gets wrong types, lists,
mappings, nulls, huge and odd values, or names from elsewhere, in any position of the envelope
or the orders, or in a field its round's schema knows (see tests/order_fuzz.py). For every file:
intake never raises (the file is accepted, or refused with the field and a sentence), and a file
intake accepts never makes the rules raise -- the round resolves with it. Derandomized, so the
same 2,000-odd files every run; bench/fuzz_orders.py runs 100,000.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from order_fuzz import MARIA_KINDS, ROR_KINDS, cases, check_file, hostile_file

LABELS = [f"maria/{k}" for k in MARIA_KINDS] + [f"ror/{k}" for k in ROR_KINDS]
PER_KIND = 190  # 11 kinds: 2,090 files


def test_every_round_kind_of_both_games_has_positions() -> None:
    assert sorted(cases()) == sorted(LABELS)


@pytest.mark.parametrize("label", LABELS)
def test_hostile_order_files_never_crash_intake_or_the_rules(label: str) -> None:
    found = cases()[label]
    seen: Counter[str] = Counter()

    @settings(max_examples=PER_KIND, derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(rnd=st.randoms(use_true_random=False), which=st.integers(0, 7))
    def check(rnd: random.Random, which: int) -> None:
        case = found[which % len(found)]
        accepted = check_file(case, hostile_file(rnd, case))
        seen["files"] += 1
        seen["accepted"] += accepted

    check()
    # the fuzz ran its files, and a tenth of them at least got past intake: the rules really
    # saw hostile files of this round kind, not only refusals
    assert seen["files"] >= PER_KIND, seen
    assert seen["accepted"] >= seen["files"] // 10, seen
