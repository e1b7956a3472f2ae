"""One battle of Maria: card exchange, card policy, losses (M1.10, M5.2-M5.6, M5.10, M12.4, M12.5,
W1, W2, W4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.games.maria.cards import full_deck, parse_card
from pbem.games.maria.rules.combat import (
    BattleOutcome,
    Fighter,
    Play,
    Side,
    fight,
    loss_order,
    strength,
    take_losses,
)

# The defaults of maria.md's "Rule options" table for the keys combat reads.
DEFAULTS: dict[str, Any] = {
    "combat.commitment": "all_troops",
    "combat.tie_rule": "non_last_player_plays",
    "combat.initial_tie": "attacker_first",
    "combat.retreat_length": "max_diff_1",
    "combat.major_victory_troops": 3,
    "cards.reserve_cap": "level_only",
}


def opts(**changes: Any) -> dict[str, Any]:
    """DEFAULTS with ``tie_rule="x"`` style changes (``combat.``/``cards.`` prefixes added)."""
    result = dict(DEFAULTS)
    for key, value in changes.items():
        full = next(k for k in DEFAULTS if k.split(".", 1)[1] == key)
        result[full] = value
    return result


def g(gid: str, troops: int, power: str = "FR", rank: int = 1, active: bool = True) -> Fighter:
    return Fighter(gid, power, rank, troops, active)


def side(
    power: str, fighters: list[Fighter] | int, suit: str, hand: list[str] | str = (), **plan: Any
) -> Side:
    """A side; an int for ``fighters`` means one general of that many troops."""
    if isinstance(fighters, int):
        fighters = [g(f"{power.lower()}_general", fighters, power)]
    if isinstance(hand, str):
        hand = hand.split()
    return Side(power, tuple(fighters), suit, tuple(hand), plan)


def running_totals(out: BattleOutcome) -> list[tuple[int, int]]:
    """The attacker:defender totals after each play."""
    a, d = out.attacker_strength, out.defender_strength
    seen = []
    for p in out.plays:
        if p.side == "attacker":
            a += p.value
        else:
            d += p.value
        seen.append((a, d))
    return seen


def plays_of(out: BattleOutcome) -> list[str]:
    """Plays written ``a:S3.2`` / ``d:R.2a=4`` (reserves with their chosen value)."""
    result = []
    for p in out.plays:
        text = f"{p.side[0]}:{p.card}"
        if p.card.startswith("R"):
            text += f"={p.value}"
        result.append(text)
    return result


# --- worked examples -----------------------------------------------------------------------------


def w1_sides() -> tuple[Side, Side]:
    broglie = side("FR", [g("broglie", 5, "FR", 3)], "S", "S7.1 S3.2 H9.1 D4.3")
    neipperg = side("AU", [g("neipperg", 5, "AU", 5)], "H", "H6.1 H2.4 R.2a C8.1", use_reserve="yes")
    return broglie, neipperg


def test_w1_tie_and_reserve() -> None:
    """W1 (M5.3-M5.5, M1.10, M12.5): S3, H6, S7, R.2a at 4; FR concedes level, diff 0."""
    attacker, defender = w1_sides()
    out = fight(attacker, defender, DEFAULTS)
    assert plays_of(out) == ["a:S3.2", "d:H6.1", "a:S7.1", "d:R.2a=4"]
    assert (out.attacker_strength, out.defender_strength) == (5, 5)
    assert running_totals(out) == [(8, 5), (8, 11), (15, 11), (15, 15)]
    assert (out.attacker_total, out.defender_total) == (15, 15)
    assert out.loser == "attacker" and out.winner == "defender"
    assert out.diff == 0
    assert out.losses == {"broglie": 0}
    assert out.eliminated == ()
    assert out.retreat_length == 1
    assert out.major_victory is False
    assert out.discards == ("S3.2", "H6.1", "S7.1", "R.2a")
    assert out.hands_after == {"attacker": ("H9.1", "D4.3"), "defender": ("H2.4", "C8.1")}
    # The sides' own hands are not touched.
    assert attacker.hand == ("S7.1", "S3.2", "H9.1", "D4.3")


def test_w1_variant_retreat_length_diff() -> None:
    """W1 under combat.retreat_length = diff (M5.5): Broglie would not retreat."""
    out = fight(*w1_sides(), opts(retreat_length="diff"))
    assert out.diff == 0 and out.retreat_length == 0 and out.loser == "attacker"


def w2_sides(au_hand: str = "C2.1 S9.2") -> tuple[Side, Side]:
    pr = side("PR", [g("schwerin", 7, "PR", 2), g("leopold", 4, "PR", 3)], "S")
    au = side("AU", [g("karl", 5, "AU", 1), g("traun", 3, "AU", 2)], "C", au_hand)
    return pr, au


def test_w2_stack_concedes_at_once_and_loses_from_most_troops() -> None:
    """W2 (M12.5 steps 3 and 5, M5.5, M5.6, M5.10): C2 would leave AU behind at 11:10, so AU
    concedes at once; diff 3; Karl 5 -> 2, Traun keeps 3; a major victory."""
    out = fight(*w2_sides(), DEFAULTS)
    assert out.plays == ()
    assert (out.attacker_strength, out.defender_strength) == (11, 8)
    assert out.loser == "defender" and out.winner == "attacker"
    assert out.diff == 3
    assert out.losses == {"karl": 3, "traun": 0}
    assert out.eliminated == ()
    assert out.retreat_length == 3
    assert out.major_victory is True
    assert out.hands_after["defender"] == ("C2.1", "S9.2")


def test_w2_variant_step_3_stops_when_level() -> None:
    """M12.5 step 3: with C2 and C3 AU gets ahead only with both, plays C3 first and stops at
    11:11 level; PR then must play (M5.3), has no card and concedes with diff 0."""
    out = fight(*w2_sides("C2.1 C3.1 S9.2"), DEFAULTS)
    assert plays_of(out) == ["d:C3.1"]
    assert running_totals(out) == [(11, 11)]
    assert out.loser == "attacker" and out.diff == 0 and out.retreat_length == 1
    assert out.losses == {"schwerin": 0, "leopold": 0}


def test_w4_combat() -> None:
    """W4 combat (M5.3, M12.5): C5 7:9, H4 11:9, AU has no club left; diff 2, Neipperg to 2."""
    moritz = side("FR", [g("moritz", 7, "FR", 1)], "H", "H4.2 H8.3")
    neipperg = side("AU", [g("neipperg", 4, "AU", 5)], "C", "C5.1 D9.2")
    out = fight(moritz, neipperg, DEFAULTS)
    assert plays_of(out) == ["d:C5.1", "a:H4.2"]
    assert running_totals(out) == [(7, 9), (11, 9)]
    assert out.loser == "defender" and out.diff == 2 and out.retreat_length == 2
    assert out.losses == {"neipperg": 2} and out.major_victory is False


# --- the exchange, table-driven --------------------------------------------------------------


@dataclass
class Case:
    id: str
    attacker: Side
    defender: Side
    plays: list[str]
    loser: str
    diff: int
    options: Mapping[str, Any] = field(default_factory=lambda: DEFAULTS)


CASES = [
    # M5.3 tie rules when nothing has been played.
    Case("M5.3-initial-attacker-first", side("FR", 5, "S"), side("AU", 5, "H"), [], "attacker", 0),
    Case(
        "M5.3-initial-defender-first", side("FR", 5, "S"), side("AU", 5, "H"), [], "defender", 0,
        opts(initial_tie="defender_first"),
    ),
    Case(
        "M5.3-defender-wins-ties-level-start", side("FR", 5, "S"), side("AU", 5, "H"), [],
        "attacker", 0, opts(tie_rule="defender_wins_ties", initial_tie="defender_first"),
    ),
    Case(
        "M5.3-attacker-wins-ties-level-start", side("FR", 5, "S"), side("AU", 5, "H"), [],
        "defender", 0, opts(tie_rule="attacker_wins_ties"),
    ),
    Case(
        "M5.3-initial-attacker-first-plays", side("FR", 5, "S", "S2.1"), side("AU", 5, "H", "H3.1"),
        ["a:S2.1", "d:H3.1"], "attacker", 1,
    ),
    Case(
        "M5.3-initial-defender-first-plays", side("FR", 5, "S", "S2.1"), side("AU", 5, "H", "H3.1"),
        ["d:H3.1"], "attacker", 3, opts(initial_tie="defender_first"),
    ),
    # M5.3 tie rules after a reserve brings the defender level (defender played last).
    Case(
        "M5.3-non-last-player-plays-after-defender-levels", side("FR", 5, "S"),
        side("AU", 3, "H", "R.1a", use_reserve=True), ["d:R.1a=2"], "attacker", 0,
    ),
    Case(
        "M5.3-defender-wins-ties-after-defender-levels", side("FR", 5, "S"),
        side("AU", 3, "H", "R.1a", use_reserve=True), ["d:R.1a=2"], "attacker", 0,
        opts(tie_rule="defender_wins_ties"),
    ),
    Case(
        "M5.3-attacker-wins-ties-after-defender-levels", side("FR", 5, "S"),
        side("AU", 3, "H", "R.1a", use_reserve=True), ["d:R.1a=2"], "defender", 0,
        opts(tie_rule="attacker_wins_ties"),
    ),
    # ... and after the attacker levels (attacker played last).
    Case(
        "M5.3-non-last-player-plays-after-attacker-levels",
        side("FR", 3, "S", "R.1a", use_reserve=True), side("AU", 5, "H"), ["a:R.1a=2"],
        "defender", 0,
    ),
    Case(
        "M5.3-defender-wins-ties-after-attacker-levels",
        side("FR", 3, "S", "R.1a", use_reserve=True), side("AU", 5, "H"), ["a:R.1a=2"],
        "attacker", 0, opts(tie_rule="defender_wins_ties"),
    ),
    Case(
        "M5.3-attacker-wins-ties-after-attacker-levels",
        side("FR", 3, "S", "R.1a", use_reserve=True), side("AU", 5, "H"), ["a:R.1a=2"],
        "defender", 0, opts(tie_rule="attacker_wins_ties"),
    ),
    # M5.3: the side behind plays first whatever the tie options say.
    Case(
        "M5.3-behind-plays-first", side("FR", 4, "S", "S5.1"), side("AU", 6, "H", "H9.1"),
        ["a:S5.1", "d:H9.1"], "attacker", 6, opts(initial_tie="defender_first"),
    ),
    # M5.4: only the sector suit, or a reserve.
    Case(
        "M5.4-only-sector-suit", side("FR", 4, "S", "H10.1 D10.1 C10.1"), side("AU", 5, "H"), [],
        "attacker", 1,
    ),
    Case(
        "M5.4-each-side-its-own-suit", side("FR", 4, "D", "H9.1 D3.1"),
        side("AU", 5, "H", "D9.2 H4.1"), ["a:D3.1", "d:H4.1"], "attacker", 2,
    ),
    Case(
        "M5.3-no-legal-card-concedes-with-gap", side("FR", 9, "S"), side("AU", 5, "C", "H10.1"),
        [], "defender", 4,
    ),
    # M1.10: a reserve at most brings the side level; never when level.
    Case(
        "M1.10-reserve-never-when-level", side("FR", 5, "S", "R.1a", use_reserve=True),
        side("AU", 5, "H"), [], "attacker", 0,
    ),
    Case(
        "M1.10-reserve-in-prefer-not-when-level", side("FR", 5, "S", "R.1a", prefer=["R"]),
        side("AU", 5, "H"), [], "attacker", 0,
    ),
    Case(
        "M1.10-reserve-value-capped-at-10", side("FR", 12, "S"),
        side("AU", 1, "H", "R.1a", prefer=["R.1a"]), ["d:R.1a=10"], "defender", 1,
    ),
    Case(
        "M1.10-free-1-10-reserve-gets-ahead", side("FR", 9, "S", "S2.1"),
        side("AU", 5, "H", "R.1a", use_reserve=True), ["d:R.1a=5", "a:S2.1"], "defender", 1,
        opts(reserve_cap="free_1_10"),
    ),
    Case(
        "M1.10-free-1-10-reserve-when-level", side("FR", 5, "S", "R.1a", prefer=["R"]),
        side("AU", 5, "H"), ["a:R.1a=1"], "defender", 1, opts(reserve_cap="free_1_10"),
    ),
    Case(
        "M1.10-free-1-10-reserve-value-at-most-10", side("FR", 12, "S"),
        side("AU", 1, "H", "R.1a", prefer=["R.1a"]), ["d:R.1a=10"], "defender", 1,
        opts(reserve_cap="free_1_10"),
    ),
    Case(
        "M1.10-level-only-reserve-cannot-pass", side("FR", 9, "S", "S2.1"),
        side("AU", 5, "H", "R.1a", use_reserve=True), ["d:R.1a=4", "a:S2.1"], "defender", 2,
    ),
    # M12.5 step 3: fewest cards, then lowest total, then lowest ids; highest card first.
    Case(
        "M12.5-step3-cheapest-single", side("FR", 5, "S", "S9.1 S4.2 S4.1 S7.1"),
        side("AU", 8, "H"), ["a:S4.1"], "defender", 1,
    ),
    Case(
        "M12.5-step3-fewest-cards-before-lowest-total", side("FR", 2, "S", "S2.1 S3.1 S10.1"),
        side("AU", 6, "H"), ["a:S10.1"], "defender", 6,
    ),
    Case(
        "M12.5-step3-highest-first-until-ahead", side("FR", 1, "S", "S4.1 S7.1 S2.1"),
        side("AU", 10, "H"), ["a:S7.1", "a:S4.1"], "defender", 2,
    ),
    Case(
        "M12.5-step3-needs-a-total-above-the-gap", side("FR", 5, "S", "S3.1 S4.1"),
        side("AU", 10, "H"), ["a:S4.1", "a:S3.1"], "defender", 2,
    ),
    Case(
        "M12.5-step3-stops-as-soon-as-level", side("FR", 5, "S", "S3.1 S2.1"),
        side("AU", 8, "H"), ["a:S3.1"], "defender", 0,
    ),
    # M12.5 step 1: concede_if_behind_by.
    Case(
        "M12.5-step1-concede-if-behind-by", side("FR", 5, "S", "S10.1", concede_if_behind_by=2),
        side("AU", 8, "H"), [], "attacker", 3,
    ),
    Case(
        "M12.5-step1-gap-equal-to-limit-still-plays",
        side("FR", 5, "S", "S10.1", concede_if_behind_by=3), side("AU", 8, "H"), ["a:S10.1"],
        "defender", 7,
    ),
    Case(
        "M12.5-step1-later-in-the-battle",
        side("FR", 5, "S", "S4.1 S10.1", concede_if_behind_by=5),
        side("AU", 4, "H", "H10.1"), ["d:H10.1"], "attacker", 9,
    ),
    Case(
        "M12.5-step1-zero-still-plays-when-level",
        side("FR", 5, "S", "S4.1", concede_if_behind_by=0), side("AU", 5, "H"), ["a:S4.1"],
        "defender", 4,
    ),
    # M12.5 step 2: prefer.
    Case(
        "M12.5-step2-prefer-reserve", side("FR", 5, "S", "S9.1 R.2b R.2a", prefer=["R"]),
        side("AU", 9, "H"), ["a:R.2a=4"], "defender", 0,
    ),
    Case(
        "M12.5-step2-prefer-big-card", side("FR", 5, "S", "S3.1 S10.1", prefer=["S10.1"]),
        side("AU", 6, "H"), ["a:S10.1"], "defender", 9,
    ),
    Case(
        "M12.5-step2-prefer-skips-offsuit-and-absent",
        side("FR", 5, "S", "S3.1 S8.2 H10.1", prefer=["H10.1", "S7.1", "S8"]),
        side("AU", 6, "H"), ["a:S8.2"], "defender", 7,
    ),
    Case(
        "M12.5-step2-prefer-played-even-if-not-enough",
        side("FR", 5, "S", "S2.1 S9.1", prefer=["S2.1"]), side("AU", 9, "H"),
        ["a:S2.1", "a:S9.1"], "defender", 7,
    ),
    # M12.5 step 4: use_reserve, with a gap over 10.
    Case(
        "M12.5-step4-reserve-after-step3-fails", side("FR", 5, "S", "S2.1 R.3b", use_reserve=True),
        side("AU", 9, "H"), ["a:R.3b=4"], "defender", 0,
    ),
    Case(
        "M12.5-step4-no-reserve-without-use-reserve", side("FR", 5, "S", "S2.1 R.3b"),
        side("AU", 9, "H"), [], "attacker", 4,
    ),
    Case(
        "M12.5-step4-gap-over-10", side("FR", 1, "S", "S2.1 S5.1 R.1a", use_reserve=True),
        side("AU", 15, "H"), ["a:S5.1", "a:R.1a=9"], "defender", 0,
    ),
    Case(
        "M12.5-step4-gap-over-10-two-cards",
        side("FR", 1, "S", "S10.1 S2.1 S9.1 R.1a", use_reserve=True), side("AU", 26, "H"),
        ["a:S10.1", "a:S9.1", "a:R.1a=6"], "defender", 0,
    ),
    Case(
        "M12.5-step4-gap-exactly-10-more", side("FR", 1, "S", "S4.1 R.1a", use_reserve=True),
        side("AU", 15, "H"), ["a:S4.1", "a:R.1a=10"], "defender", 0,
    ),
    Case(
        "M12.5-step4-gap-over-10-cannot-level", side("FR", 1, "S", "S3.1 R.1a", use_reserve=True),
        side("AU", 15, "H"), [], "attacker", 14,
    ),
    Case(
        "M12.5-step4-gap-over-10-no-cards", side("FR", 1, "S", "R.1a R.1b", use_reserve=True),
        side("AU", 12, "H"), [], "attacker", 11,
    ),
    # M12.4 caps: max_cards and max_points count every card and reserve value.
    Case(
        "M12.4-max-cards", side("FR", 5, "S", "S2.1 S3.1", max_cards=1), side("AU", 5, "H", "H4.1"),
        ["a:S2.1", "d:H4.1"], "attacker", 2,
    ),
    Case(
        "M12.4-max-cards-blocks-a-two-card-set", side("FR", 5, "S", "S6.1 S6.2", max_cards=1),
        side("AU", 12, "H"), [], "attacker", 7,
    ),
    Case(
        "M12.4-max-points-picks-a-cheaper-card", side("FR", 5, "S", "S10.1 S3.1", max_points=5),
        side("AU", 7, "H"), ["a:S3.1"], "defender", 1,
    ),
    Case(
        "M12.4-max-points-forbids", side("FR", 5, "S", "S10.1", max_points=5),
        side("AU", 7, "H"), [], "attacker", 2,
    ),
    Case(
        "M12.4-max-points-counts-earlier-plays", side("FR", 5, "S", "S4.1 S3.1", max_points=6),
        side("AU", 5, "H", "H4.1"), ["a:S3.1", "d:H4.1"], "attacker", 1,
    ),
    Case(
        "M12.4-reserve-value-counts-towards-max-points",
        side("FR", 5, "S", "R.1a", use_reserve=True, max_points=3), side("AU", 9, "H"), [],
        "attacker", 4,
    ),
    Case(
        "M12.4-reserve-counts-towards-max-cards",
        side("FR", 1, "S", "S2.1 R.1a", use_reserve=True, max_cards=1), side("AU", 13, "H"), [],
        "attacker", 12,
    ),
    Case(
        "M12.4-reserve-fits-max-cards",
        side("FR", 1, "S", "S2.1 R.1a", use_reserve=True, max_cards=2), side("AU", 13, "H"),
        ["a:S2.1", "a:R.1a=10"], "defender", 0,
    ),
    Case(
        "M12.4-prefer-respects-max-points",
        side("FR", 5, "S", "S9.1 S3.1", prefer=["S9.1"], max_points=4), side("AU", 7, "H"),
        ["a:S3.1"], "defender", 1,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_exchange(case: Case) -> None:
    out = fight(case.attacker, case.defender, case.options)
    assert plays_of(out) == case.plays
    assert out.loser == case.loser
    assert out.winner != out.loser
    assert out.diff == case.diff
    assert abs(out.attacker_total - out.defender_total) == out.diff


# --- losses (M5.5, M5.6, M5.10) ----------------------------------------------------------------


def losing_stack(*fighters: Fighter, power: str = "AU", **plan: Any) -> Side:
    return Side(power, tuple(fighters), "H", (), plan)


@pytest.mark.parametrize(
    ("fighters", "plan", "n", "expected"),
    [
        # Default: most troops first, one troop at a time from the first with troops left.
        ([g("a", 3, "AU", 1), g("b", 5, "AU", 2)], {}, 3, {"b": 3, "a": 0}),
        ([g("a", 3, "AU", 1), g("b", 5, "AU", 2)], {}, 6, {"b": 5, "a": 1}),
        # The order is fixed when losses begin: b stays first even once below a.
        ([g("a", 4, "AU", 1), g("b", 5, "AU", 2)], {}, 2, {"b": 2, "a": 0}),
        # Ties: the commanding power's general, even if junior.
        ([g("pa", 4, "PA", 1), g("au", 4, "AU", 6)], {}, 2, {"au": 2, "pa": 0}),
        # Ties within one power: the lower rank number.
        ([g("junior", 4, "AU", 5), g("senior", 4, "AU", 2)], {}, 1, {"senior": 1, "junior": 0}),
        # The plan's loss_order first, then the default for the rest.
        ([g("a", 3, "AU", 1), g("b", 5, "AU", 2)], {"loss_order": ["a"]}, 4, {"a": 3, "b": 1}),
        # Entries naming generals not in the stack are skipped (M12.2).
        (
            [g("a", 3, "AU", 1), g("b", 5, "AU", 2), g("c", 1, "AU", 3)],
            {"loss_order": ["zz", "c", "c"]}, 2, {"c": 1, "b": 1, "a": 0},
        ),
        # More losses than troops: the rest is not taken.
        ([g("a", 2, "AU", 1), g("b", 1, "AU", 2)], {}, 9, {"a": 2, "b": 1}),
        # Inactive generals take no losses (M5.9).
        ([g("a", 2, "AU", 1, active=False), g("b", 1, "AU", 2)], {}, 4, {"b": 1}),
    ],
)
def test_m5_6_loss_order(
    fighters: list[Fighter], plan: dict[str, Any], n: int, expected: dict[str, int]
) -> None:
    stack = losing_stack(*fighters, **plan)
    lost = take_losses(stack, n)
    assert lost == expected
    assert list(lost) == loss_order(stack)


@pytest.mark.parametrize(
    ("troops", "gap", "major_troops", "major", "eliminated"),
    [
        ((5, 3), 2, 3, False, ()),
        ((5, 3), 3, 3, True, ()),
        ((5, 3), 3, 4, False, ()),
        ((5, 3), 4, 4, True, ()),
        ((1,), 1, 3, True, ("a",)),  # an elimination by losses is a major victory
        ((2, 2), 2, 3, True, ("a",)),
        ((2, 2), 5, 3, True, ("a", "b")),
    ],
)
def test_m5_10_major_victory_thresholds(
    troops: tuple[int, ...], gap: int, major_troops: int, major: bool, eliminated: tuple[str, ...]
) -> None:
    names = "ab"
    loser = Side(
        "AU", tuple(g(names[i], t, "AU", i + 1) for i, t in enumerate(troops)), "H", (), {}
    )
    winner = side("FR", sum(troops) + gap, "S")
    out = fight(winner, loser, opts(major_victory_troops=major_troops))
    assert out.loser == "defender" and out.diff == gap
    assert out.major_victory is major
    assert out.eliminated == eliminated
    assert sum(out.losses.values()) == min(gap, sum(troops))


def test_m5_5_retreat_length_options() -> None:
    for gap, default_len, diff_len in [(0, 1, 0), (1, 1, 1), (4, 4, 4)]:
        a, d = side("FR", 5 + gap, "S"), side("AU", 5, "H")
        assert fight(a, d, DEFAULTS).retreat_length == default_len
        assert fight(a, d, opts(retreat_length="diff")).retreat_length == diff_len


def test_m5_9_inactive_fighters_add_no_strength_and_take_no_losses() -> None:
    """M5.1/M5.9: a general that lost earlier this stage fights with its stack but adds nothing
    and loses nothing."""
    beaten = g("beaten", 6, "AU", 1, active=False)
    fresh = g("fresh", 2, "AU", 2)
    au = Side("AU", (beaten, fresh), "H", (), {"loss_order": ["beaten"]})
    fr = side("FR", 5, "S")
    out = fight(fr, au, DEFAULTS)
    assert out.defender_strength == 2
    assert out.loser == "defender" and out.diff == 3
    assert out.losses == {"fresh": 2}
    assert out.eliminated == ("fresh",)
    assert out.major_victory is True


def test_m5_2_commitment_partial() -> None:
    """combat.commitment: partial: only committed troops count; a missing or out-of-range
    commitment counts all troops; all_troops ignores ``commit``."""
    stack = Side(
        "PR", (g("a", 6, "PR", 1), g("b", 4, "PR", 2), g("c", 3, "PR", 3)), "S", (),
        {"commit": {"a": 2, "b": 9}},
    )
    assert strength(stack, opts(commitment="partial")) == 2 + 4 + 3
    assert strength(stack, DEFAULTS) == 13
    zero = Side("PR", (g("a", 6, "PR", 1),), "S", (), {"commit": {"a": 0}})
    assert strength(zero, opts(commitment="partial")) == 6
    out = fight(stack, side("AU", 10, "H"), opts(commitment="partial"))
    assert out.attacker_strength == 9 and out.loser == "attacker" and out.diff == 1
    assert out.losses["a"] == 1  # losses still come from the general's troops (M5.6)


def test_unknown_option_value_is_refused() -> None:
    with pytest.raises(ValueError, match="combat.tie_rule"):
        fight(side("FR", 5, "S"), side("AU", 5, "H"), opts(tie_rule="coin_flip"))


def test_plan_fields_given_as_strings_or_wrong_types() -> None:
    """M12.4: ``use_reserve`` accepts yes/no; fields of the wrong type take their default."""
    au = side("AU", 3, "H", "R.1a", use_reserve="no")
    assert fight(side("FR", 5, "S"), au, DEFAULTS).plays == ()
    odd = side("FR", 5, "S", "S4.1", max_cards="two", prefer=7, concede_if_behind_by=-1)
    assert plays_of(fight(odd, side("AU", 7, "H"), DEFAULTS)) == ["a:S4.1"]


# --- property: any battle ends consistently ---------------------------------------------------

DECK = full_deck()
SUIT_OF = {c: parse_card(c).suit for c in DECK}

plans = st.fixed_dictionaries(
    {},
    optional={
        "max_cards": st.integers(0, 6),
        "max_points": st.integers(0, 40),
        "concede_if_behind_by": st.integers(0, 15),
        "use_reserve": st.booleans(),
        "prefer": st.lists(
            st.sampled_from(DECK) | st.sampled_from(["R", "S7", "H10", "R.2", "bogus"]),
            max_size=4,
        ),
    },
)


@st.composite
def sides(draw: Any, power: str) -> Side:
    n = draw(st.integers(1, 2))
    fighters = tuple(
        Fighter(f"{power}{i}", power, i + 1, draw(st.integers(1, 8)), draw(st.booleans()) or i == 0)
        for i in range(n)
    )
    suit = draw(st.sampled_from("SHDC"))
    # Mostly cards of the sector suit and reserves, so that most battles see an exchange.
    playable = [c for c in DECK if SUIT_OF[c] in (suit, "R")]
    hand = draw(st.lists(st.sampled_from(playable), max_size=10, unique=True))
    hand += draw(st.lists(st.sampled_from(DECK), max_size=4, unique=True))
    hand = list(dict.fromkeys(hand))
    return Side(power, fighters, suit, tuple(draw(st.permutations(hand))), draw(plans))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sides("FR"),
    sides("AU"),
    st.sampled_from(["non_last_player_plays", "defender_wins_ties", "attacker_wins_ties"]),
    st.sampled_from(["attacker_first", "defender_first"]),
    st.sampled_from(["level_only", "free_1_10"]),
)
def test_property_fight_is_consistent(
    attacker: Side, defender: Side, tie_rule: str, initial: str, cap: str
) -> None:
    """M5.3-M5.6, M1.10, M12.5: any battle terminates; the loser is the side that conceded; cards
    come from the right hand and suit or are reserves with legal values; caps hold; totals add
    up; losses match diff."""
    options = opts(tie_rule=tie_rule, initial_tie=initial, reserve_cap=cap)
    out = fight(attacker, defender, options)
    by_name = {"attacker": attacker, "defender": defender}
    totals = {"attacker": out.attacker_strength, "defender": out.defender_strength}
    for name, s in by_name.items():
        mine = [p for p in out.plays if p.side == name]
        cards = [p.card for p in mine]
        assert len(set(cards)) == len(cards)
        assert set(cards) <= set(s.hand)
        assert sorted(out.hands_after[name]) == sorted(c for c in s.hand if c not in cards)
        for p in mine:
            before = totals[name]
            if SUIT_OF[p.card] == "R":
                assert 1 <= p.value <= 10
                if cap == "level_only":
                    other = "defender" if name == "attacker" else "attacker"
                    # At most brings the side level (value <= gap at that moment).
                    assert before + p.value <= _total_before(out, other, p)
            else:
                assert SUIT_OF[p.card] == s.suit
                assert p.value == parse_card(p.card).value
            totals[name] = before + p.value
        plan = s.plan
        if "max_cards" in plan:
            assert len(mine) <= plan["max_cards"]
        if "max_points" in plan:
            assert sum(p.value for p in mine) <= plan["max_points"]
    assert (totals["attacker"], totals["defender"]) == (out.attacker_total, out.defender_total)
    # The loser conceded when it had to play: behind, or level under the tie rule.
    loser_total = totals[out.loser]
    winner_total = totals[out.winner]
    assert loser_total <= winner_total
    assert out.diff == winner_total - loser_total
    if loser_total == winner_total:
        if tie_rule == "defender_wins_ties":
            assert out.loser == "attacker"
        elif tie_rule == "attacker_wins_ties":
            assert out.loser == "defender"
        elif out.plays:
            assert out.plays[-1].side == out.winner
        else:
            assert out.loser == ("attacker" if initial == "attacker_first" else "defender")
    loser = by_name[out.loser]
    active_troops = sum(f.troops for f in loser.fighters if f.active)
    assert sum(out.losses.values()) == min(out.diff, active_troops)
    assert set(out.losses) == {f.id for f in loser.fighters if f.active}
    assert out.retreat_length == max(out.diff, 1)


def _total_before(out: BattleOutcome, name: str, upto: Play) -> int:
    """``name``'s total just before the play ``upto``."""
    total = out.attacker_strength if name == "attacker" else out.defender_strength
    for p in out.plays:
        if p is upto:
            break
        if p.side == name:
            total += p.value
    return total
