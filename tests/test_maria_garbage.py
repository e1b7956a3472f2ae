"""Orders come from strangers by mail: whatever plain data a power sends, ``validate`` answers
with problems and ``resolve`` voids what it cannot run, and neither raises (M12.2)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from maria_minimaps import board_and_forces

from pbem.core.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, orders

KEYS = ["moves", "piece", "stack", "path", "force_march", "sequence", "reentries", "site",
        "train", "payments", "battles", "plans", "stage", "standing", "defence", "default_plan",
        "loss_order", "hussar_policy", "pay_up_to", "use_reserve", "prefer", "retreat",
        "max_cards", "max_points", "concede_if_behind_by", "commit", "hussars", "recruits",
        "returns", "general", "troops", "deals", "with", "text", "transfer_preference"]
WORDS = ["broglie", "belle_isle", "toerring", "karl", "traun", "friedrich", "rutowski", "fr_2",
         "ba_1", "au_2", "pr_1", "prag", "wien", "ingolstadt", "nuernberg", "muenchen",
         "broglie>karl", "S7.1", "H7", "R", "R.3a", "pay", "refuse", "louis", "frederick", "",
         "atlantis", "X10.9"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from(WORDS))
plain = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS + WORDS), inner, max_size=4),
    ),
    max_leaves=20,
)
power_orders = st.dictionaries(st.sampled_from(KEYS), plain, max_size=5)

BOARD, FORCES = board_and_forces()


def _rng(label: str) -> PhaseRng:
    return PhaseRng(Rng(f"{label}-p".encode()), Rng(f"{label}-s".encode()))


def _states() -> list[dict[str, Any]]:
    """The state before each of the first rounds: setup, hussars, FR stage, PR stage."""
    state = adjudicate.new_game("intro", {}, _rng("g"), BOARD, FORCES)
    out = [state]
    for i in range(3):
        state = adjudicate.resolve(state, {}, _rng(str(i))).state
        out.append(state)
    return out


STATES = _states()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(which=2, power="FR", sent={"moves": True})
@example(which=2, power="FR", sent={"battles": True, "sequence": 3})
@example(which=2, power="FR", sent={"standing": {"hussar_policy": {"pay_up_to": "x"},
                                                 "defence": 1, "loss_order": 2}})
@example(which=2, power="FR", sent={"plans": {"stage": {"retreat": 5, "prefer": True}}})
@given(which=st.integers(0, len(STATES) - 1), power=st.sampled_from(["FR", "BA", "PR", "AU"]),
       sent=power_orders)
def test_garbage_never_raises(which: int, power: str, sent: dict[str, Any]) -> None:
    state = STATES[which]
    before = json.dumps(state, sort_keys=True)
    problems = orders.validate(state, power, sent)
    assert all(p.path.startswith(f"orders.{power}") and p.message for p in problems)
    res = adjudicate.resolve(state, {power: sent}, _rng("x"))
    assert json.loads(json.dumps(res.state)) == res.state
    assert json.dumps(state, sort_keys=True) == before  # resolve never changes its input
