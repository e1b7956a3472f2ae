"""A minimal game for testing the core (campaigns, intake, resolve, audit) without a real game.

Two seats, ``north`` and ``south``, each owning one power (``N``, ``S``). Each round both bid a
number 0–9 from a secret hand of cards; the higher bid plus a public die roll wins a point. The
hand is dealt from a secretly shuffled deck. After ``rounds`` rounds the game ends.
"""

from __future__ import annotations

import copy
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import OrderProblem, Phase, Resolution, Secret

POWERS = {"N": "north", "S": "south"}


class MiniGame:
    name = "mini"

    def scenarios(self) -> tuple[str, ...]:
        return ("short", "long")

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        return ("north", "south")

    def new_game(self, scenario: str, options: dict[str, Any], rng: PhaseRng) -> dict[str, Any]:
        deck = rng.secret.shuffled(list(range(10)) * 2)
        return {
            "round": 1,
            "rounds": 3 if scenario == "short" else 10,  # the deck lasts 10 rounds
            "deck": deck[6:],
            "hands": {"N": sorted(deck[:3]), "S": sorted(deck[3:6])},
            "score": {"N": 0, "S": 0},
            "log": [],
        }

    def current_phase(self, state: dict[str, Any]) -> Phase | None:
        if state["round"] > state["rounds"]:
            return None
        return Phase(f"round-{state['round']}", "bid", ("N", "S"), "stage")

    def seat_of(self, state: dict[str, Any], power: str) -> str | None:
        return POWERS.get(power)

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        if not isinstance(orders, dict) or "bid" not in orders:
            return [OrderProblem(f"orders.{power}", "give 'bid: N' with a card from your hand")]
        if orders["bid"] not in state["hands"][power]:
            return [OrderProblem(f"orders.{power}.bid", f"{orders['bid']!r} is not a card in your hand")]
        return []

    def default_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {"bid": min(state["hands"][power])}

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: PhaseRng) -> Resolution:
        s = copy.deepcopy(state)
        events: list[dict[str, Any]] = []
        total = {}
        for power in ("N", "S"):
            bid = orders[power].get("bid") if isinstance(orders[power], dict) else None
            if bid not in s["hands"][power]:
                events.append({"type": "void", "power": power, "audience": POWERS[power]})
                bid = min(s["hands"][power])
            s["hands"][power].remove(bid)
            die = rng.public.die(6)
            events.append({"type": "bid", "power": power, "bid": bid, "die": die})
            total[power] = bid + die
        winner = max(total, key=lambda p: (total[p], p == "S"))
        s["score"][winner] += 1
        for power in ("N", "S"):
            if s["deck"]:
                s["hands"][power].append(s["deck"].pop(0))
                s["hands"][power].sort()
        rng.secret.shuffle(s["deck"])
        s["round"] += 1
        events.append({"type": "point", "power": winner})
        return Resolution(s, events)

    def view(self, state: dict[str, Any], audience: str) -> dict[str, Any]:
        out = {"round": state["round"], "score": state["score"]}
        for power, seat in POWERS.items():
            if audience == seat:
                out["hand"] = state["hands"][power]
        return out

    def legal_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {"bid": sorted(set(state["hands"][power]))}

    def bot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        return {"bid": rng.choice(sorted(state["hands"][power]))}


    def autopilot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        return self.bot_orders(state, power, rng)
    def secrets(self, state: dict[str, Any]) -> list[Secret]:
        return [
            Secret("hand:N", "north", state["hands"]["N"]),
            Secret("hand:S", "south", state["hands"]["S"]),
            Secret("deck", None, state["deck"]),
        ]

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if state["round"] <= state["rounds"]:
            return None
        n, s = state["score"]["N"], state["score"]["S"]
        return {"winner": "N" if n > s else "S", "reason": "most points"}


GAME = MiniGame()
