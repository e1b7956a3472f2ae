"""Fuzz: complete introductory games of Maria between seeded random bots (Rng seeds 0..199),
with the game's invariants checked after every round (M1.7, M1.8, M3.2, M3.3, M6.5, M10.1)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from maria_minimaps import board_and_forces

from pbem.games.maria import adjudicate, model, orders, views
from pbem.games.maria.selfplay import play

GAMES = 200


class Invariants:
    """Checks run after every round of one game."""

    def __init__(self) -> None:
        self.totals: dict[str, int] | None = None
        self.troops: dict[str, int] = {}
        self.rounds = 0
        self.events: Counter[str] = Counter()

    def __call__(self, state: dict[str, Any], sent: dict[str, Any] | None,
                 events: list[dict[str, Any]]) -> None:
        self.rounds += 1
        for e in events:
            self.events[e["type"]] += 1
        assert json.loads(json.dumps(state)) == state, "state does not round-trip through JSON"
        top = state["options"]["troops.max"]
        totals: dict[str, int] = {}
        cities: dict[str, list[str]] = {}
        for gid, g in state["generals"].items():
            totals[g["power"]] = totals.get(g["power"], 0) + g["troops"]
            if state["step"] == "setup":
                assert g["troops"] == 0  # troops are split in the set-up round (M2.1)
            elif g["city"] is None:
                assert g["troops"] == 0, f"{gid} is off the map with {g['troops']} troops"
                assert not g["face_down"]
            else:
                assert 1 <= g["troops"] <= top, f"{gid} has {g['troops']} troops (M1.7)"
                cities.setdefault(g["city"], []).append(g["power"])
            if g["face_down"]:
                assert g["supply_failures"] >= 1, f"{gid} is face down without a failed check"
        turned = {e["general"] for e in events if e["type"] == "supply"
                  and e["result"] == "out_of_supply"}
        for gid, g in state["generals"].items():
            if g["face_down"] and sent is not None and self.prev_up(gid):
                assert gid in turned, f"{gid} turned face down without a failed supply check"
        for city, powers in cities.items():
            assert len(powers) <= 2, f"{city} holds {len(powers)} generals (M3.3)"
        for t in state["trains"].values():
            if t["city"] is not None:
                cities.setdefault(t["city"], []).append(t["power"])
        for city, powers in cities.items():
            for a in powers:
                for b in powers:
                    assert not model.are_enemies(state, a, b), f"enemies {a}, {b} in {city}"
        cards = state["cards"]
        pile = cards["draw"] + cards["discard"] + [c for h in cards["hands"].values() for c in h]
        assert len(pile) == 152 and len(set(pile)) == 152, "the 152 cards are not all there once"
        if self.totals is not None and state["step"] != "setup":
            bought = {e["power"]: e["troops"] for e in events if e["type"] == "recruit"}
            for p, n in totals.items():
                assert n <= self.totals.get(p, 0) + bought.get(p, 0), f"{p} gained troops"
            # Every troop gained or lost is accounted for by the round's events.
            lost: Counter[str] = Counter()
            for e in events:
                if e["type"] == "battle_losses":
                    lost.update(e["losses"])
            change = sum(bought.values())
            change -= sum(e.get("lost", 0) for e in events if e["type"] == "supply")
            change -= sum(e["losses"] for e in events if e["type"] == "battle")
            change -= sum(self.troops[e["general"]] - lost[e["general"]] for e in events
                          if e["type"] == "eliminated" and e["cause"] == "no_retreat")
            assert sum(totals.values()) == sum(self.totals.values()) + change, \
                "troop totals do not match the round's events"
        if state["turn"] >= 1:
            self.totals = totals
        self.troops = {g: v["troops"] for g, v in state["generals"].items()}
        self.faces = {g: v["face_down"] for g, v in state["generals"].items()}
        public = views.view(state, "public")
        assert all(g["troops"] is None for g in public["map"]["generals"])
        for seat, powers in model.seat_powers(state).items():
            seen = views.view(state, seat)
            others = [c for p, h in cards["hands"].items() if p not in powers for c in h]
            text = json.dumps(seen)
            assert not any(f'"{c}"' in text for c in others if c not in cards["discard"])

    def prev_up(self, gid: str) -> bool:
        return not getattr(self, "faces", {}).get(gid, False)


def _validating_bots(monkey: pytest.MonkeyPatch) -> None:
    """Every bot order must pass ``validate`` (bots use only legal choices)."""
    from pbem.games.maria import bots

    real = bots.bot_orders

    def checked(state: dict[str, Any], power: str, rng: Any) -> dict[str, Any]:
        o = real(state, power, rng)
        problems = orders.validate(state, power, o)
        assert not problems, f"bot orders of {power} invalid: {problems}"
        return o

    monkey.setattr("pbem.games.maria.selfplay.bots.bot_orders", checked)


@pytest.mark.slow
def test_200_random_intro_games(monkeypatch: pytest.MonkeyPatch) -> None:
    _validating_bots(monkeypatch)
    board, forces = board_and_forces()
    winners: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for seed in range(GAMES):
        inv = Invariants()
        state, rounds = play(seed, board=board, forces=forces, check=inv)
        assert adjudicate.current_phase(state) is None
        result = state["result"]
        assert result is not None and result["winner"] in ("FR", "PR", "AU")
        assert result["reason"].startswith("M10.1")
        assert result["player"] == model.seat_of(state, result["winner"])
        winners[result["winner"]] += 1
        events.update(inv.events)
    # The games must really exercise the rules, not just pass the turns.
    for kind in ("move", "battle", "conquest", "eliminated", "recruit", "train_reentered",
                 "supply", "hussars", "train_destroyed"):
        assert events[kind] > 0, f"no '{kind}' event in {GAMES} games"


def test_same_seed_same_game() -> None:
    board, forces = board_and_forces()
    a, _ = play(7, board=board, forces=forces)
    b, _ = play(7, board=board, forces=forces)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


OPTION_SETS = [
    {"game.players": "two"},
    {"supply.hussar_charge": "per_stack", "supply.loss": "1_always", "hussars.count": 4},
    {"combat.commitment": "partial", "combat.tie_rule": "defender_wins_ties"},
    {"combat.tie_rule": "attacker_wins_ties", "combat.initial_tie": "defender_first",
     "combat.retreat_length": "diff"},
    {"cards.hand_limit": 6, "cards.reserve_cap": "free_1_10",
     "cards.reserve_outside_combat": "counts_as_1"},
    {"move.force_march_forbids": "enemy_home_cities", "fortress.conquer_by_occupation": False,
     "fortress.protection_range": 1},
    {"supply.range": 4, "supply.allied_trains": True, "supply.enemy_fortress_blocks": True},
    {"winter.recruit_cost": 2, "winter.recruit_needs_supply": False, "trains.reentry_cost": 2,
     "troops.max": 6},
    {"combat.mixed_command": "senior_rank", "combat.major_victory_troops": 2,
     "cards.draws": {"FR": 7, "PR": 3, "AU": 6}},
    {"fortress.neutral_capture": "victory_marker", "hussars.range": 6,
     "hidden.hand_size_public": False},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(sorted(o)))
def test_games_under_rule_options(options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
                                  ) -> None:
    """Two complete games under each set of rule options, with the same invariants."""
    _validating_bots(monkeypatch)
    board, forces = board_and_forces()
    for seed in (1000, 1001):
        state, _ = play(seed, options=options, board=board, forces=forces, check=Invariants())
        assert state["result"] is not None and state["result"]["reason"].startswith("M10.1")
        for key, value in options.items():
            want = model.check_option(key, value)[0]
            assert state["options"][key] == want


def test_complete_games_can_end_in_a_sudden_victory(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no fortress protection (M4.4 range 0) and a starving Austria, the bots' Prussia
    reaches 12 fortresses in some games: the game then ends at once under M10.1."""
    _validating_bots(monkeypatch)
    board, forces = board_and_forces()
    options = {"fortress.protection_range": 0, "cards.draws": {"AU": 1}}
    winners: Counter[str] = Counter()
    for seed in range(10, 30):
        inv = Invariants()
        state, rounds = play(seed, options=options, board=board, forces=forces, check=inv)
        winners[state["result"]["winner"]] += 1
        assert adjudicate.current_phase(state) is None and rounds > 0
        if state["result"]["winner"] != "AU":
            assert state["result"]["reason"].startswith("M10.1 Prussia controls") or \
                state["result"]["reason"].startswith("M10.1 France controls")
    assert winners["PR"] + winners["FR"] >= 1, winners
