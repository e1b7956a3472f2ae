"""The autopilot (issue: an autopilot worth its seat): legal orders in whole games, blind to
other seats' secrets, the same orders on a replay, and reports that say which seats it played."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, autopilot, bots, model, orders


def _game(seed: int, scenario: str, pilots: set[str] | None, check: bool = True,
          max_rounds: int = 400) -> tuple[dict[str, Any], list[tuple[dict[str, Any], str]]]:
    """One game with the autopilot at the seats ``pilots`` (None: every seat) and the random bot
    elsewhere; every autopilot order is checked as ``pbem check`` checks it. Returns the final
    state and (state, power) of every autopilot decision."""
    root = Rng(f"autopilot-test-{seed}".encode())
    state = adjudicate.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")))
    decisions = []
    rounds = 0
    while (phase := adjudicate.current_phase(state)) is not None and rounds < max_rounds:
        chosen = {}
        for p in phase.powers:
            rng = root.fork(f"o{rounds}{p}")
            if pilots is None or model.seat_of(state, p) in pilots:
                chosen[p] = autopilot.autopilot_orders(state, p, rng)
                decisions.append((state, p))
                if check:
                    assert orders.validate(state, p, chosen[p]) == [], (phase.id, p, chosen[p])
            else:
                chosen[p] = bots.bot_orders(state, p, rng)
        state = adjudicate.resolve(state, chosen, PhaseRng(root.fork(f"p{rounds}"), root.fork(f"s{rounds}"))).state
        rounds += 1
    return state, decisions


def test_every_autopilot_order_of_whole_intro_games_passes_pbem_check() -> None:
    for seed in range(2):
        final, decisions = _game(seed, "intro", None)
        assert final["result"]["winner"] in ("FR", "PR", "AU")
        assert {k for s, _ in decisions if (k := orders.kind_of(s))} >= {"setup", "hussars", "stage", "winter"}


@pytest.mark.slow
def test_every_autopilot_order_of_an_advanced_game_passes_pbem_check() -> None:
    final, decisions = _game(0, "advanced", {"louis", "frederick"})
    assert {orders.kind_of(s) for s, _ in decisions} >= {"setup", "politics", "stage", "winter"}
    assert final["result"] is not None


def _others_secrets_changed(state: dict[str, Any], power: str, rnd: random.Random) -> dict[str, Any]:
    """``state`` with every secret no seat of ``power``'s player owns changed: the other powers'
    hands (cards swapped with the draw pile), their troop numbers, the pile's order, the political
    deck's order and their standing orders."""
    st = json.loads(json.dumps(state))
    seat = model.seat_of(st, power)
    own = set(model.seat_powers(st).get(seat, []))
    cards = st["cards"]
    for p in sorted(cards["hands"]):
        if p in own:
            continue
        hand = cards["hands"][p]
        for i in range(len(hand)):
            if cards["draw"]:
                j = rnd.randrange(len(cards["draw"]))
                hand[i], cards["draw"][j] = cards["draw"][j], hand[i]
    rnd.shuffle(cards["draw"])
    top = int(st["options"]["troops.max"])
    for g in st["generals"].values():
        if g["power"] not in own and g["city"] is not None:
            g["troops"] = rnd.randint(1, top)
    for p in st["standing"]:
        if p not in own:
            st["standing"][p] = {"default_plan": {"use_reserve": False}, "hussar_policy": "refuse"}
    if "politics" in st:
        for group in st["politics"]["groups"].values():
            rnd.shuffle(group)
    return st


@pytest.mark.parametrize("scenario", ["intro", "advanced"])
def test_the_autopilot_never_reads_another_seats_secrets(scenario: str) -> None:
    """Changing every secret of the other seats leaves its orders as they were."""
    rnd = random.Random(7)
    _, decisions = _game(3, scenario, {"maria_theresa"}, check=False, max_rounds=30 if scenario == "advanced" else 60)
    kinds = set()
    for state, power in decisions[::2]:
        kinds.add(orders.kind_of(state))
        rng = Rng(b"same phase rng")
        want = autopilot.autopilot_orders(state, power, rng)
        seat = model.seat_of(state, power)
        seen = autopilot.seat_state(state, seat, rng.fork("sample"))
        for _ in range(2):
            changed = _others_secrets_changed(state, power, rnd)
            # what the autopilot works from is the same, and so are its orders
            assert autopilot.seat_state(changed, seat, rng.fork("sample")) == seen
            assert autopilot.autopilot_orders(changed, power, rng) == want
    assert "stage" in kinds


def test_a_replay_plays_the_same_orders() -> None:
    a, _ = _game(5, "intro", {"louis"}, check=False)
    b, _ = _game(5, "intro", {"louis"}, check=False)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_the_autopilot_reads_only_what_the_seat_state_gives_it() -> None:
    """The seat's rebuilt state keeps the seat's own secrets and the public position, and holds
    none of the other powers' cards where they really are."""
    _, decisions = _game(1, "intro", {"frederick"}, check=False, max_rounds=20)
    state, power = next((s, p) for s, p in decisions if orders.kind_of(s) == "stage")
    seen = autopilot.seat_state(state, "frederick", Rng(b"x"))
    own = set(model.seat_powers(state)["frederick"])
    for p in own:
        assert seen["cards"]["hands"][p] == state["cards"]["hands"][p]
    assert {g: v["city"] for g, v in seen["generals"].items()} == {g: v["city"] for g, v in state["generals"].items()}
    assert seen["control"] == state["control"]
    pool = sorted(state["cards"]["draw"] + [c for p, h in state["cards"]["hands"].items() if p not in own for c in h])
    assert sorted(seen["cards"]["draw"] + [c for p, h in seen["cards"]["hands"].items() if p not in own for c in h]) == pool


def test_the_gm_can_let_the_autopilot_suggest_each_seats_orders(tmp_path: Any) -> None:
    """pbem new --autopilot-suggest: each order form holds the autopilot's orders for the seat
    (which pbem check accepts); without it, the rules' defaults."""
    import yaml
    from conftest import make_keys, player_args, run_cli

    from pbem.core.campaign import Campaign

    args = player_args(make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick")))
    forms = {}
    for name, extra in (("suggest", ["--autopilot-suggest"]), ("plain", [])):
        camp = tmp_path / name
        run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--now", "2027-01-04T08:00:00Z", *args, *extra)
        run_cli("report", str(camp))
        (form,) = (camp / "reports").glob("0000*/forms/frederick.yaml")
        forms[name] = yaml.safe_load(form.read_text(encoding="utf-8"))
        _, state = Campaign(camp).current()
        game = Campaign(camp).game()
        for power, orders_ in forms[name]["orders"].items():
            assert game.validate(state, power, orders_) == []
        if name == "suggest":
            said = " ".join(line.lstrip("# ") for line in form.read_text(encoding="utf-8").splitlines())
            assert "the autopilot's suggestion for your seat" in said
            assert forms[name]["orders"]["PR"] == autopilot.autopilot_orders(
                state, "PR", Rng(f"pbem|suggest|{form.parent.parent.name}|PR".encode()))
        else:
            assert forms[name]["orders"]["PR"] == game.default_orders(state, "PR")
    assert forms["suggest"]["orders"] != forms["plain"]["orders"]
