"""Orders come from strangers by mail: whatever plain data a power sends, ``validate`` answers
with problems and ``resolve`` voids what it cannot run, and neither raises (M12.2)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from maria_minimaps import board_and_forces

from pbem.common.fair import PhaseRng, Rng
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
# a name position may hold a list or a mapping of names too
names = st.one_of(st.sampled_from(WORDS), st.lists(st.sampled_from(WORDS), max_size=2),
                  st.dictionaries(st.sampled_from(WORDS), st.sampled_from(WORDS), max_size=2))
plain = st.recursive(
    st.one_of(scalars, names),
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
# lists and mappings where a name belongs (security findings H2, H3)
@example(which=2, power="FR", sent={"moves": [{"piece": ["broglie"], "path": ["prag"]}]})
@example(which=2, power="FR", sent={"moves": [{"piece": {"a": 1}, "path": ["prag"], "force_march": True}]})
@example(which=2, power="FR", sent={"moves": [{"stack": [{"a": 1}, "broglie"], "path": ["prag"]}]})
@example(which=3, power="PR", sent={"moves": [{"stack": [["friedrich"], "friedrich"], "path": [["x"]]}]})
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


POLITICS_KEYS = ["bid", "salt", "trump", "choices", "cards", "accept_peace", "subsidies",
                 "commitment", "execute", "effects", "skip", "steps", "toward", "pieces",
                 "to", "card", "S", "H", "D", "C", "1", "2", "keep", "PC01", "PC02", "PA",
                 "hussars", "standing", "withdraw_preference", "block_preference",
                 "troop_gain_preference", "troop_loss_preference", "discard_preference",
                 "marker_return_preference", "train_site_preference"]
political_orders = st.dictionaries(
    st.sampled_from(POLITICS_KEYS),
    st.recursive(st.one_of(scalars, st.sampled_from(POLITICS_KEYS)),
                 lambda inner: st.one_of(st.lists(inner, max_size=4),
                                         st.dictionaries(st.sampled_from(POLITICS_KEYS), inner,
                                                         max_size=4)),
                 max_leaves=20),
    max_size=6)


def _political_states() -> list[dict[str, Any]]:
    """The politics rounds of the advanced game's first turn, in both commitment modes."""
    out = []
    for mode in ("trusted_gm", "trustless"):
        state = adjudicate.new_game("advanced", {"pbem.commitments": mode,
                                                 "pbem.rounds": "merge_hussars_into_politics"},
                                    _rng("a"))
        state = adjudicate.resolve(state, {}, _rng("s")).state
        out.append(state)
    return out


POLITICAL_STATES = _political_states()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(which=0, power="FR", sent={"bid": {"S": 3}, "choices": "PC01", "cards": []})
@example(which=0, power="AU", sent={"subsidies": [{"to": 1}], "accept_peace": "yes",
                                    "hussars": {"x": 1}})
@example(which=1, power="PR", sent={"commitment": 12})
@example(which=0, power="FR", sent={"bid": "FIRST", "choices": ["PC", "keep"],
                                    "cards": {"PC": {"execute": 3, "effects": [1]}}})
@example(which=0, power="FR", sent={"bid": "FIRST", "choices": ["PC"],
                                    "cards": {"PC": {"effects": {"1": {"steps": "x",
                                                                       "pieces": 4,
                                                                       "toward": ["up"]},
                                                                 "2": 7}}}})
@given(which=st.integers(0, 1), power=st.sampled_from(["FR", "PR", "AU", "PA"]),
       sent=political_orders)
def test_political_garbage_never_raises(which: int, power: str, sent: dict[str, Any]) -> None:
    """M12.2 for the politics and commit rounds (M12.8, M11.4)."""
    state = POLITICAL_STATES[which]
    before = json.dumps(state, sort_keys=True)
    # "FIRST" and "PC" stand for a real card of the hand and the first revealed card, so that
    # garbage instructions reach a card that is really taken
    trump = state["politics"]["trump"] or "S"
    hand = [c for c in state["cards"]["hands"][power] if c[0] == trump]
    revealed = state["politics"]["revealed"][0]
    text = json.dumps(sent).replace('"PC"', json.dumps(revealed))
    if hand:
        text = text.replace('"FIRST"', json.dumps({trump: hand[0]}))
    sent = json.loads(text)
    problems = orders.validate(state, power, sent)
    assert all(p.path.startswith(f"orders.{power}") and p.message for p in problems)
    res = adjudicate.resolve(state, {power: sent}, _rng("x"))
    assert json.loads(json.dumps(res.state)) == res.state
    assert json.dumps(state, sort_keys=True) == before
