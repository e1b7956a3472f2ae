"""The auction's rules: pure functions of state, orders and the phase's random stream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import OrderProblem, Phase, Resolution, Secret, plain_copy

SEATS = {"A": "ada", "B": "bo"}
PURSE = 10
KINDS = ("vase", "clock", "map")
# the pile: each lot a kind and a worth in points
LOTS = [{"id": f"{kind}-{worth}", "kind": kind, "worth": worth} for kind in KINDS for worth in (2, 3, 5)]
ROUNDS = {"short": 3, "long": 6}


class AuctionGame:
    name = "auction"
    schemas = Path(__file__).parent / "schemas"
    presentation = "toygame.presentation:PRESENTATION"

    def scenarios(self) -> tuple[str, ...]:
        return tuple(ROUNDS)

    def seats(self, scenario: str, options: dict[str, Any] | None = None) -> tuple[str, ...]:
        return tuple(SEATS.values())

    def new_game(self, scenario: str, options: dict[str, Any], rng: PhaseRng) -> dict[str, Any]:
        pile = rng.secret.shuffled([lot["id"] for lot in LOTS])
        return {
            "round": 1,
            "rounds": ROUNDS[scenario],
            "lot": pile[0],
            "pile": pile[1:],
            "coins": {p: PURSE for p in SEATS},
            "won": {p: [] for p in SEATS},
            "favourite": {p: rng.secret.choice(KINDS) for p in SEATS},
        }

    def current_phase(self, state: dict[str, Any]) -> Phase | None:
        if state["round"] > state["rounds"]:
            return None
        return Phase(f"lot-{state['round']}", "bid", tuple(SEATS), "bid")

    def seat_of(self, state: dict[str, Any], power: str) -> str | None:
        return SEATS.get(power)

    def validate(self, state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
        bid = orders.get("bid") if isinstance(orders, dict) else None
        if not isinstance(bid, int) or isinstance(bid, bool):
            return [OrderProblem(f"orders.{power}", "give 'bid: N', a whole number of coins")]
        if bid > state["coins"][power]:
            return [OrderProblem(f"orders.{power}.bid", f"{bid} is more than the {state['coins'][power]} coins in your purse")]
        return []

    def default_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {"bid": 0}

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: PhaseRng) -> Resolution:
        s = plain_copy(state)
        bids = {}
        events: list[dict[str, Any]] = []
        for power in SEATS:
            bid = orders[power].get("bid")
            if self.validate(s, power, orders[power]):
                events.append({"type": "void", "power": power, "audience": SEATS[power],
                               "reason": "the bid was not valid; it counts as 0"})
                bid = 0
            bids[power] = bid
        events.append({"type": "bids", "bids": dict(bids)})
        top = max(bids.values())
        leaders = sorted(p for p, b in bids.items() if b == top)
        coin = rng.public.die(len(leaders))
        winner = leaders[coin - 1]
        s["coins"][winner] -= top
        s["won"][winner].append(s["lot"])
        events.append({"type": "lot_won", "power": winner, "lot": s["lot"], "price": top, "tie": len(leaders) > 1})
        s["round"] += 1
        s["lot"] = s["pile"].pop(0) if s["round"] <= s["rounds"] else None
        return Resolution(s, events)

    def view(self, state: dict[str, Any], audience: str) -> dict[str, Any]:
        out: dict[str, Any] = {"round": state["round"], "rounds": state["rounds"], "lot": state["lot"],
                               "coins": dict(state["coins"]), "won": {p: list(w) for p, w in state["won"].items()}}
        for power, seat in SEATS.items():
            if audience == seat:
                out["favourite"] = state["favourite"][power]
        return out

    def legal_orders(self, state: dict[str, Any], power: str) -> dict[str, Any]:
        return {"bid": {"min": 0, "max": state["coins"][power]}}

    def bot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        return {"bid": rng.below(state["coins"][power] + 1)}

    def autopilot_orders(self, state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
        lot = next(x for x in LOTS if x["id"] == state["lot"])
        worth = lot["worth"] * (2 if lot["kind"] == state["favourite"][power] else 1)
        return {"bid": min(worth, state["coins"][power])}

    def secrets(self, state: dict[str, Any]) -> list[Secret]:
        return [Secret("pile", None, state["pile"])] + [
            Secret(f"favourite:{p}", seat, state["favourite"][p]) for p, seat in SEATS.items()]

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if state["round"] <= state["rounds"]:
            return None
        points = {p: score(state, p) for p in SEATS}
        if points["A"] == points["B"]:
            return {"winner": None, "reason": "a draw", "points": points}
        return {"winner": max(points, key=lambda p: points[p]), "reason": "most points", "points": points}


def score(state: dict[str, Any], power: str) -> int:
    """The lots' worth (a favourite kind counts double) plus the coins left."""
    worth = {lot["id"]: lot for lot in LOTS}
    fav = state["favourite"][power]
    return state["coins"][power] + sum(worth[w]["worth"] * (2 if worth[w]["kind"] == fav else 1) for w in state["won"][power])


GAME = AuctionGame()
