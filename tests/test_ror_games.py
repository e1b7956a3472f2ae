"""Random-bot games of the revolution/civil-war cycle (R2-R9) with ledger invariants.

Seeds 0..199 over the three scenarios: every game must end by R7, the state must round-trip
through JSON exactly, talents and legions change only through the events of the rules that
create or destroy them, and no card or senator is ever in two places.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.games.ror import GAME
from pbem.games.ror.model import card_location_map, total_talents

MAX_ROUNDS = 80
OPTION_SETS: dict[str, dict[str, Any]] = {
    "default": {},
    "two_round": {"ror.pbem_loyalty_test": "two_round"},
    "sequential": {"ror.pbem_declarations": "sequential"},
    "both": {"ror.pbem_loyalty_test": "two_round", "ror.pbem_declarations": "sequential"},
    "1.07A": {"ror.ruleset": "1.07A", "ror.default_discard": "newest",
              "ror.default_release_accept": "accept_if_affordable"},
    "variants": {"ror.rebel_tie": "roll_2d6", "ror.cw_defeat_rebel_losses": "crt_except_all",
                 "ror.cw_wipeout_primary": "survives", "ror.cw_proconsul_deployed": False,
                 "ror.four_wars_check": "combat_and_turn_end", "ror.rebel_must_pay_max": False,
                 "ror.bribe_sink": "state_treasury", "ror.loyalty_roll": "optional_all_follow",
                 "ror.play_on_rebel": "allow", "ror.revolt_needs_legion": False},
}


def _in_service(st: dict[str, Any]) -> int:
    return sum(1 for lg in st["legions"].values() if lg["location"] != "pool")


def _check_invariants(st: dict[str, Any]) -> None:
    assert json.loads(json.dumps(st)) == st, "state does not round-trip through JSON"
    where = card_location_map(st)
    doubled = {c: p for c, p in where.items() if len(p) > 1}
    assert not doubled, f"cards in two places: {doubled}"
    ids = Counter()
    for sid, r in st["senators"].items():
        if r["alive"] and r["zone"] == "faction":
            ids[sid] += 1
            assert r["faction"] in st["factions"]
        if r["family_under"]:
            ids[r["family_under"]] += 1
            assert r["family_under"] not in st["senators"], f"family {r['family_under']} twice"
    assert all(n == 1 for n in ids.values()), ids
    armies = {a["id"] for a in st["armies"]}
    for lid, lg in st["legions"].items():
        loc = lg["location"]
        if loc.startswith("army:"):
            assert loc[5:] in armies, f"legion {lid} in a missing army"
        if lg["allegiance"] is not None:
            assert lg["veteran"]
        if loc == "pool":
            assert not lg["veteran"] and lg["allegiance"] is None
    for r in st["senators"].values():
        assert -9 <= r["popularity"] <= 9
        assert r["talents"] >= 0
    for f in st["factions"].values():
        assert f["faction_treasury"] >= 0
    assert st["state_treasury"] >= 0
    cw = st["civil_war"]
    rebels = {s for s, r in st["senators"].items() if r["alive"] and "rebel" in r["markers"]}
    if cw:
        members = {cw["primary_rebel"], *cw["secondary_rebels"]}
        if not cw.get("primary_dead"):
            assert "rebel" in st["senators"][cw["primary_rebel"]]["markers"]
        assert rebels <= members, (rebels, members)
    else:
        assert not rebels, f"rebel markers without a civil war: {rebels}"
        assert not any(lg["location"] == "rebel_army" for lg in st["legions"].values())
    for a in st["armies"]:
        if a["commander"] is not None:
            r = st["senators"][a["commander"]]
            assert r["alive"] and r["location"] == "field", (a, r["location"])
            assert "rebel" not in r["markers"]
        assert a["target"] != "civil_war" or cw, "an army faces a civil war that is over"
    led = [a["commander"] for a in st["armies"] if a["commander"]]
    assert len(led) == len(set(led)), "a senator commands two armies"


def _ledger(before: dict[str, Any], after: dict[str, Any], events: list[dict[str, Any]]) -> None:
    dt = sum(e["delta"] for e in events if e["type"] == "talents")
    assert total_talents(after) - total_talents(before) == dt, "talents moved outside events"
    raised = sum(1 for e in events if e["type"] == "legion_raised")
    lost = sum(1 for e in events if e["type"] == "legion_eliminated")
    assert _in_service(after) - _in_service(before) == raised - lost, "legions not conserved"


@cache
def play(seed: int, options: str = "default") -> tuple[dict[str, Any], int, Counter[str]]:
    scenario = GAME.scenarios()[seed % len(GAME.scenarios())]
    label = f"ror-fuzz-{seed}" if options == "default" else f"ror-fuzz-{seed}-{options}"
    base = Rng(label.encode())
    st = GAME.new_game(scenario, OPTION_SETS[options], PhaseRng(base.fork("p0"),
                                                                 base.fork("s0")))
    kinds: Counter[str] = Counter()
    _check_invariants(st)
    for k in range(MAX_ROUNDS):
        phase = GAME.current_phase(st)
        if phase is None:
            break
        kinds[phase.kind] += 1
        orders = {}
        for power in st["seating"]:
            o = GAME.bot_orders(st, power, base.fork(f"bot{k}{power}"))
            assert GAME.validate(st, power, o) == [], (power, o, GAME.validate(st, power, o))
            if power in phase.powers or o.get("standing"):
                orders[power] = o
        for power in phase.powers:
            orders.setdefault(power, GAME.default_orders(st, power))
        res = GAME.resolve(st, orders, PhaseRng(base.fork(f"p{k}"), base.fork(f"s{k}")))
        _ledger(st, res.state, res.events)
        for e in res.events:
            kinds["ev:" + e["type"]] += 1
            assert isinstance(e["type"], str)
        st = res.state
        _check_invariants(st)
        GAME.view(st, "public")
    return st, k, kinds


@pytest.mark.parametrize("block", range(4))
def test_random_games_end_by_r7(block: int) -> None:
    """R7: 50 seeds per block; each game ends with a win or a collective loss."""
    for seed in range(block * 50, block * 50 + 50):
        st, _, _ = play(seed)
        res = GAME.result(st)
        assert res is not None, f"seed {seed}: game did not end"
        assert res["outcome"] in ("win", "all_lose")
        if res["outcome"] == "win":
            assert res["faction"] in st["factions"]


@pytest.mark.parametrize("options", [k for k in OPTION_SETS if k != "default"])
def test_random_games_under_rule_options(options: str) -> None:
    """The same invariants under the alternative rule options (R8.3 rounds, section D, ...)."""
    kinds: Counter[str] = Counter()
    for seed in range(30):
        st, _, k = play(seed, options)
        kinds.update(k)
        assert GAME.result(st) is not None, f"{options} seed {seed}: game did not end"
    if options in ("two_round", "both"):
        assert kinds["revolution-2"] > 0
    if options in ("sequential", "both"):
        assert kinds["declare"] > 0


def test_games_reach_the_civil_war() -> None:
    """The fuzz games really exercise revolts, battles and the end of game."""
    total: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for seed in range(200):
        st, _, kinds = play(seed)
        total.update(kinds)
        outcomes[f"{st['game_result']['outcome']}:{st['game_result']['condition']}"] += 1
    # every way a game ends in these scenarios shows up among the 200 seeds
    for way in ("win:1", "win:2", "win:5", "all_lose:L1", "all_lose:L2"):
        assert outcomes[way] > 0, (way, outcomes)
    for options in OPTION_SETS:
        for seed in range(30):
            total.update(play(seed, options)[2])
    assert total["endgame"] > 0 and total["ev:endgame_battle"] > 0
    assert total["ev:revolt_failed"] > 0 and total["ev:release"] > 0
    assert total["ev:manilian"] > 0 and total["ev:trade"] > 0 and total["ev:desert"] > 0
    assert total["ev:civil_war"] > 0
    assert total["ev:battle"] > 0
    assert total["ev:loyalty_roll"] > 0
    assert total["ev:maintenance"] > 0
    assert total["senate"] > 0


def test_same_seed_same_game() -> None:
    """Determinism: the same seed gives the same final state, byte for byte."""
    a, _, _ = play.__wrapped__(7)
    b, _, _ = play.__wrapped__(7)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
