"""Legal choices for order forms and bots (``legal_orders``) and random legal orders
(``bot_orders``) that drive complete games for fuzzing and the demo."""

from __future__ import annotations

from typing import Any

from pbem.core.fair import Rng
from pbem.games.maria import model
from pbem.games.maria.adjudicate import phase_powers
from pbem.games.maria.cards import cheapest_payment
from pbem.games.maria.context import Ctx
from pbem.games.maria.orders import kind_of
from pbem.games.maria.rules.hussars import hussar_count, hussar_problem
from pbem.games.maria.rules.movement import (
    general_path_problem,
    reentry_problem,
    train_max,
    train_path_problem,
)
from pbem.games.maria.rules.supply import in_supply


def _ctx(state: dict[str, Any]) -> Ctx:
    return Ctx(state, model.board_of(state), None)  # type: ignore[arg-type]


def destinations(ctx: Ctx, power: str, movers: list[str], kind: str,
                 force: bool = False) -> dict[str, list[str]]:
    """Every city ``movers`` (one train, or one or more generals in one city) may move to now,
    each with one legal path (fewest steps, then lowest ids): cities entered, in order."""
    state, board = ctx.state, ctx.board
    rec = state["generals"].get(movers[0]) or state["trains"][movers[0]]
    start = rec["city"]
    occ = model.occupancy(state)
    limit = 8 if force else (4 if kind == "general" else 3)
    found: dict[str, list[str]] = {}
    frontier: list[list[str]] = [[]]
    for _ in range(limit):
        nxt: list[list[str]] = []
        for path in frontier:
            here = path[-1] if path else start
            for n in board.neighbours(here):
                if n == start or n in path:
                    continue
                if force and not board.is_main(here, n):
                    continue
                cand = path + [n]
                if n not in found:
                    if kind == "general":
                        prob = general_path_problem(ctx, power, movers, start, cand, force)
                    else:
                        prob = train_path_problem(ctx, power, movers[0], start, cand)
                    if prob is None:
                        found[n] = cand
                # only empty cities (or, for generals, enemy trains) can be passed through
                here_powers = occ.get(n, [])
                passable = not here_powers or (kind == "general" and all(
                    model.are_enemies(state, power, p) for p in here_powers)
                    and not model.generals_in(state, n))
                if passable:
                    nxt.append(cand)
        frontier = nxt
    return dict(sorted(found.items()))


def legal_orders(state: dict[str, Any], power: str) -> dict[str, Any]:
    """The legal choices of ``power`` in the current round."""
    kind = kind_of(state)
    out: dict[str, Any] = {"kind": kind, "phase_power": power in phase_powers(state)}
    if not out["phase_power"]:
        return out
    ctx = _ctx(state)
    gens = state["generals"]
    if kind == "setup":
        top = int(state["options"]["troops.max"])
        out["total"] = state["troop_totals"][power]
        out["generals"] = {g: {"min": gens[g]["min"] or 1, "max": top}
                           for g in model.general_ids(state) if gens[g]["power"] == power}
    elif kind == "hussars":
        out["count"] = hussar_count(state)
        out["cities"] = sorted(c for c in ctx.board.cities
                               if hussar_problem(state, ctx.board, c, []) is None)
    elif kind == "stage":
        moves: dict[str, Any] = {}
        for g in model.on_map(state):
            if gens[g]["power"] == power and not gens[g].get("blocked"):
                moves[g] = {"paths": destinations(ctx, power, [g], "general"),
                            "force_march": destinations(ctx, power, [g], "general", True)}
        stacks: dict[str, Any] = {}
        for g in moves:
            mates = [h for h in model.generals_in(state, gens[g]["city"])
                     if h != g and h in moves and h > g]
            for h in mates:
                stacks[f"{g}+{h}"] = {"stack": [g, h],
                                      "paths": destinations(ctx, power, [g, h], "general")}
        for t, v in sorted(state["trains"].items()):
            if v["power"] == power and v["city"] is not None:
                moves[t] = {"paths": destinations(ctx, power, [t], "train")}
        out["moves"] = moves
        out["stacks"] = stacks
        off = sorted(t for t, v in state["trains"].items()
                     if v["power"] == power and v["city"] is None)
        on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
        out["reentries"] = [] if not off or on >= train_max(state, power) else [
            {"train": off[0], "site": s} for s in ctx.board.reentry_sites(power)
            if reentry_problem(ctx, power, s) is None]
        out["reentry_cost"] = int(state["options"]["trains.reentry_cost"])
        out["hand"] = list(state["cards"]["hands"].get(power, []))
        out["suits"] = {g: ctx.board.suit_of(gens[g]["city"]) for g in moves if g in gens}
    elif kind == "winter":
        top = int(state["options"]["troops.max"])
        needs = state["options"]["winter.recruit_needs_supply"]
        out["recruits"] = {g: top - gens[g]["troops"] for g in model.on_map(state)
                           if gens[g]["power"] == power and gens[g]["troops"] < top
                           and (not needs or in_supply(state, ctx.board, g))}
        out["returns"] = {
            g: [s for s in ctx.board.reentry_sites(power)
                if reentry_problem(ctx, power, s) is None
                and len(model.generals_in(state, s)) < 2]
            for g in model.general_ids(state)
            if gens[g]["power"] == power and gens[g]["city"] is None
        }
        out["cost"] = int(state["options"]["winter.recruit_cost"])
        out["hand"] = list(state["cards"]["hands"].get(power, []))
    return out


def _random_plan(rng: Rng) -> dict[str, Any]:
    plan: dict[str, Any] = {}
    if rng.below(2):
        plan["use_reserve"] = bool(rng.below(2))
    if rng.below(4) == 0:
        plan["max_cards"] = rng.below(4) + 1
    if rng.below(4) == 0:
        plan["concede_if_behind_by"] = rng.below(12)
    return plan


def bot_orders(state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
    """Random legal orders for ``power`` (including random battle plans and standing orders)."""
    legal = legal_orders(state, power)
    kind = legal["kind"]
    orders: dict[str, Any] = {}
    if rng.below(3) == 0:
        orders["standing"] = {
            "default_plan": _random_plan(rng),
            "hussar_policy": rng.choice(["pay", "refuse", {"pay_up_to": rng.below(10)}]),
        }
    if not legal["phase_power"]:
        return orders
    gens = state["generals"]
    if kind == "setup":
        split = {g: v["min"] for g, v in legal["generals"].items()}
        left = legal["total"] - sum(split.values())
        ids = sorted(split)
        while left > 0 and any(split[g] < legal["generals"][g]["max"] for g in ids):
            g = rng.choice(ids)
            if split[g] < legal["generals"][g]["max"]:
                split[g] += 1
                left -= 1
        orders["troops"] = split
    elif kind == "hussars":
        cities = list(legal["cities"])
        rng.shuffle(cities)
        orders["hussars"] = cities[: legal["count"] + 1]
    elif kind == "stage":
        moves = []
        ids = sorted(legal["moves"])
        rng.shuffle(ids)
        if legal["stacks"] and rng.below(3) == 0:
            key = rng.choice(sorted(legal["stacks"]))
            st = legal["stacks"][key]
            if st["paths"]:
                dest = rng.choice(sorted(st["paths"]))
                moves.append({"stack": st["stack"], "path": st["paths"][dest]})
                ids = [i for i in ids if i not in st["stack"]]
        for pid in ids:
            choice = legal["moves"][pid]
            r = rng.below(10)
            if r < 2:
                continue
            if r == 2 and choice.get("force_march"):
                dest = rng.choice(sorted(choice["force_march"]))
                moves.append({"piece": pid, "path": choice["force_march"][dest],
                              "force_march": True})
                continue
            if choice["paths"]:
                dest = rng.choice(sorted(choice["paths"]))
                moves.append({"piece": pid, "path": choice["paths"][dest]})
        orders["moves"] = moves
        if legal["reentries"] and rng.below(2):
            orders["reentries"] = [rng.choice(legal["reentries"])]
        orders["plans"] = {"stage": _random_plan(rng)}
    elif kind == "winter":
        hand = legal["hand"]
        cost = legal["cost"]
        budget = sum(int(c[1:].split(".")[0]) for c in hand if not c.startswith("R"))
        recruits = []
        spent = 0
        for g, room in sorted(legal["recruits"].items()):
            n = rng.below(room + 1)
            if n and spent + n * cost <= budget:
                recruits.append({"general": g, "troops": n})
                spent += n * cost
        returns = []
        used: list[str] = []
        for g, sites in sorted(legal["returns"].items()):
            sites = [s for s in sites if used.count(s) + len(model.generals_in(state, s)) < 2]
            if sites and spent + cost <= budget and rng.below(2):
                site = rng.choice(sites)
                used.append(site)
                returns.append({"general": g, "site": site, "troops": 1})
                spent += cost
        if cheapest_payment(hand, spent, (), state["options"]) is not None:
            orders["recruits"] = recruits
            orders["returns"] = returns
    del gens
    return orders
