"""Tactical cards of Maria: ids, order, partial ids, payments, owner discards (M1.8, M1.10, M6.4,
M9.19 E4)."""

from __future__ import annotations

import itertools
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.maria.cards import (
    Card,
    can_pay,
    card_key,
    cheapest_payment,
    choose_set,
    full_deck,
    is_card_id,
    owner_discard,
    parse_card,
    resolve_partial,
    set_key,
)

# --- ids and order (M1.8, conventions) ---------------------------------------------------------


def test_m1_8_deck_has_152_unique_ids() -> None:
    deck = full_deck()
    assert len(deck) == 152
    assert len(set(deck)) == 152
    assert all(is_card_id(c) for c in deck)
    reserves = [c for c in deck if parse_card(c).is_reserve]
    assert reserves == ["R.1a", "R.1b", "R.2a", "R.2b", "R.3a", "R.3b", "R.4a", "R.4b"]
    for suit in "SHDC":
        for value in range(2, 11):
            assert sum(1 for c in deck if c.startswith(f"{suit}{value}.")) == 4


def test_m1_8_full_deck_is_canonical_lowest_first() -> None:
    deck = full_deck()
    assert deck == sorted(deck, key=card_key)
    assert deck[0] == "S2.1" and deck[-1] == "R.4b"
    assert full_deck() == deck  # fixed, not shuffled


@pytest.mark.parametrize(
    ("card_id", "expected"),
    [
        ("S7.2", Card("S", 7, 2, "", False)),
        ("H10.4", Card("H", 10, 4, "", False)),
        ("C2.1", Card("C", 2, 1, "", False)),
        ("R.3a", Card("R", 0, 3, "a", True)),
        ("R.1b", Card("R", 0, 1, "b", True)),
    ],
)
def test_m1_8_parse_card(card_id: str, expected: Card) -> None:
    assert parse_card(card_id) == expected
    assert expected.id == card_id


@pytest.mark.parametrize(
    "bad", ["S1.1", "S11.1", "X7.1", "S7.5", "S7.0", "R.3", "R.3c", "R.5a", "s7.1", "S7", "", "S07.1"]
)
def test_m1_8_bad_ids_are_refused(bad: str) -> None:
    assert not is_card_id(bad)
    with pytest.raises(ValueError, match="not a tactical card id"):
        parse_card(bad)


def test_is_card_id_of_non_strings() -> None:
    assert not is_card_id(None)
    assert not is_card_id(7)


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("S9.2", "S10.1"),  # value is numeric, not textual
        ("S10.4", "H2.1"),  # suit S before H
        ("H10.1", "D2.1"),
        ("D10.1", "C2.1"),
        ("C10.4", "R.1a"),  # reserves last
        ("S7.1", "S7.2"),  # then deck
        ("R.1b", "R.2a"),
        ("R.3a", "R.3b"),  # then letter
    ],
)
def test_conventions_lowest_card_id(lower: str, higher: str) -> None:
    assert card_key(lower) < card_key(higher)


def test_conventions_lowest_ids_of_sets() -> None:
    # Each set sorted lowest first, then compared element by element.
    assert set_key(["S10.1", "H2.1"]) == set_key(["H2.1", "S10.1"])
    assert set_key(["S9.2", "H3.1"]) < set_key(["S10.1", "H2.1"])
    assert set_key(["S2.1", "C10.1"]) < set_key(["S2.1", "R.1a"])


# --- partial ids (M1.8) -------------------------------------------------------------------------

HAND = ("H7.3", "H7.1", "S10.2", "R.3b", "R.3a", "R.1b", "D4.4")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("H7", "H7.1"),
        ("H7.3", "H7.3"),
        ("H7.2", None),  # a full id must be in hand
        ("R", "R.1b"),
        ("R.3", "R.3a"),
        ("R.3b", "R.3b"),
        ("R.2", None),
        ("S10", "S10.2"),
        ("S1", None),
        ("D4", "D4.4"),
        ("C4", None),
        (" H7 ", "H7.1"),
        ("H", None),
        ("nonsense", None),
    ],
)
def test_m1_8_resolve_partial(spec: str, expected: str | None) -> None:
    assert resolve_partial(HAND, spec) == expected


# --- payments (M6.4) ----------------------------------------------------------------------------


def test_w3_supply_cost_3_pays_h3_without_the_reserve() -> None:
    """W3: cost 3 from S2.1, H3.4, D8.2, R.1a is paid with H3.4."""
    assert cheapest_payment(["S2.1", "H3.4", "D8.2", "R.1a"], 3) == ["H3.4"]


def test_w3_variant_only_s2_and_reserve_cannot_pay() -> None:
    """W3 variant: a hand of S2.1 and R.1a cannot pay 3 (reserves never pay, M1.10)."""
    assert cheapest_payment(["S2.1", "R.1a"], 3) is None


def test_w6_recruit_12_prefers_fewer_cards_on_equal_total() -> None:
    """W6: H8+C4 and S5+D3+C4 both cover 12 exactly; the set with fewer cards is used."""
    assert cheapest_payment(["H8.1", "S5.2", "D3.3", "C4.1", "R.1b"], 12) == ["H8.1", "C4.1"]


def test_m6_4_smallest_total_beats_fewer_cards() -> None:
    # One 10 overpays 7 by 3; 3+4 pays exactly: smallest total first.
    assert cheapest_payment(["S10.1", "H3.1", "D4.1"], 7) == ["H3.1", "D4.1"]


def test_m6_4_ties_go_to_lowest_ids() -> None:
    # Three single cards cover 5 with a total of 5; the lowest id (spade first) is taken.
    assert cheapest_payment(["C5.1", "H5.2", "S5.4", "S5.3"], 5) == ["S5.3"]
    # Equal total and count: {S2, D3} < {S2, C3} < {H2, D3}, element by element (D before C).
    assert cheapest_payment(["H2.1", "D3.1", "C3.1", "S2.1"], 5) == ["S2.1", "D3.1"]
    assert cheapest_payment(["H2.1", "C3.1", "S2.1", "D3.2"], 5) == ["S2.1", "D3.2"]
    assert cheapest_payment(["H2.1", "C3.1", "S2.1"], 5) == ["S2.1", "C3.1"]


def test_m6_4_named_cards_are_spent_in_order_until_the_cost_is_met() -> None:
    hand = ["S10.1", "H3.1", "D4.1", "C9.2"]
    assert cheapest_payment(hand, 7, named=["C9.2", "S10.1"]) == ["C9.2"]  # no change given
    assert cheapest_payment(hand, 12, named=["C9.2", "H3.1", "S10.1"]) == ["C9.2", "H3.1"]


def test_m6_4_named_cards_falling_short_are_topped_up_cheapest() -> None:
    hand = ["S10.1", "H3.1", "D4.1", "C9.2"]
    # C9 named covers 9 of 12; the cheapest covering set of the rest for 3 is H3.
    assert cheapest_payment(hand, 12, named=["C9"]) == ["C9.2", "H3.1"]


def test_m12_2_named_cards_not_in_hand_or_reserves_are_skipped() -> None:
    hand = ["S10.1", "H3.1", "R.2a"]
    assert cheapest_payment(hand, 3, named=["D4.1", "R.2a", "R"]) == ["H3.1"]


def test_m6_4_cannot_pay_returns_none() -> None:
    assert cheapest_payment(["S2.1", "H3.1"], 6) is None
    assert cheapest_payment([], 1) is None
    assert cheapest_payment(["S2.1", "H3.1"], 6, named=["S2.1"]) is None


def test_m6_4_nothing_to_pay() -> None:
    assert cheapest_payment(["S2.1"], 0) == []
    assert cheapest_payment([], 0) == []


def test_m1_10_reserve_counts_as_1_option() -> None:
    opts = {"cards.reserve_outside_combat": "counts_as_1"}
    hand = ["S2.1", "R.1a", "H9.1"]
    assert cheapest_payment(hand, 3, options={"cards.reserve_outside_combat": "forbidden"}) == [
        "H9.1"
    ]
    assert cheapest_payment(hand, 3, options=opts) == ["S2.1", "R.1a"]
    assert cheapest_payment(["R.1a", "R.1b"], 2, options=opts) == ["R.1a", "R.1b"]
    assert cheapest_payment(["R.1a"], 2, options=opts) is None


def _brute_payment(hand: list[str], need: int) -> list[str] | None:
    best: tuple | None = None
    for k in range(1, len(hand) + 1):
        for combo in itertools.combinations(hand, k):
            total = sum(parse_card(c).value for c in combo)
            if total >= need:
                key = (total, k, set_key(combo))
                if best is None or key < best[0]:
                    best = (key, sorted(combo, key=card_key))
    return None if best is None else best[1]


NORMAL = [c for c in full_deck() if not parse_card(c).is_reserve]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(NORMAL), min_size=0, max_size=9, unique=True), st.integers(1, 40))
def test_m6_4_payment_matches_brute_force(hand: list[str], cost: int) -> None:
    assert cheapest_payment(hand, cost) == _brute_payment(hand, cost)


@given(st.lists(st.sampled_from(full_deck()) | st.sampled_from(["R", "X9", "S2"]), max_size=12),
       st.integers(-2, 60), st.booleans())
def test_m6_4_can_pay_is_whether_a_payment_is_found(hand: list[str], cost: int, one: bool) -> None:
    options = {"cards.reserve_outside_combat": "counts_as_1" if one else "no"}
    assert can_pay(hand, cost, options) == (cheapest_payment(hand, cost, (), options) is not None)


def _brute_fewest(hand: list[str], need: int, max_count: int | None, max_total: int | None):
    best = None
    for k in range(1, len(hand) + 1):
        if max_count is not None and k > max_count:
            break
        for combo in itertools.combinations(hand, k):
            total = sum(parse_card(c).value for c in combo)
            if total >= need and (max_total is None or total <= max_total):
                key = (k, total, set_key(combo))
                if best is None or key < best[0]:
                    best = (key, sorted(combo, key=card_key))
    return None if best is None else best[1]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(NORMAL), min_size=0, max_size=8, unique=True),
    st.integers(1, 30),
    st.none() | st.integers(0, 5),
    st.none() | st.integers(0, 40),
)
def test_m12_5_fewest_first_set_matches_brute_force(
    hand: list[str], need: int, max_count: int | None, max_total: int | None
) -> None:
    values = {c: parse_card(c).value for c in hand}
    got = choose_set(hand, values, need, fewest_first=True, max_count=max_count, max_total=max_total)
    assert got == _brute_fewest(hand, need, max_count, max_total)


def test_m6_4_payment_is_fast_for_big_hands() -> None:
    """Paying from a hand of 40 cards takes a bounded number of Python calls (a search over the
    2^40 subsets would take billions); counted, not timed, so the machine's load cannot flake it."""
    hand = NORMAL[::3][:40]  # 40 cards of every suit and value
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    for cost in range(1, 120):
        sys.setprofile(count)
        try:
            paid = cheapest_payment(hand, cost)
        finally:
            sys.setprofile(None)
        assert paid is not None
        assert sum(parse_card(c).value for c in paid) >= cost
    assert 0 < calls < 100_000, calls  # about 25,000


# --- owner discards (M9.19 E4) ------------------------------------------------------------------


def test_e4_owner_discard_lowest_values_first_reserves_last() -> None:
    hand = ["R.1a", "H9.1", "S2.3", "C2.1", "D5.2", "H2.2"]
    assert owner_discard(hand, 3) == ["S2.3", "H2.2", "C2.1"]
    assert owner_discard(hand, 5) == ["S2.3", "H2.2", "C2.1", "D5.2", "H9.1"]
    assert owner_discard(hand, 6)[-1] == "R.1a"
    assert owner_discard(hand, 10) == owner_discard(hand, 6)
    assert owner_discard(hand, 0) == []
    assert owner_discard(["R.2b", "R.2a", "R.1b"], 2) == ["R.1b", "R.2a"]
