"""Combat, step (d): which battles are fought and in what order, the plans each side uses, the
card exchange (``rules.combat.fight``), losses, retreats and eliminations (M5.1-M5.10, M12.4,
M12.5, M12.7)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.common.catalog import N_
from pbem.games.maria import model
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules.combat import ATTACKER, Fighter, Side, fight
from pbem.games.maria.rules.movement import territory_problem
from pbem.games.maria.rules.supply import eliminate

MAX_STACK = 2


def list_battles(ctx: Ctx, acting: list[str], orders: dict[str, dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """The battles of step (d) as listed at its start (M5.1), in fighting order (M12.4, M12.7)."""
    state, board = ctx.state, ctx.board
    gens = state["generals"]
    stacks = model.generals_by_city(state)
    pairs: list[dict[str, Any]] = []
    acts = set(acting)
    for a_city in sorted(stacks):
        a_gens = stacks[a_city]
        if acts.isdisjoint([gens[g]["power"] for g in a_gens]):
            continue
        if not [g for g in a_gens if not gens[g].get("blocked")]:
            continue  # M3.10, M5.1: a stack of blocked generals does not attack
        a_power = model.commanding_power(state, a_gens, acting)
        for d_city in board.neighbours(a_city):
            d_gens = stacks.get(d_city)
            if not d_gens:
                continue
            d_power = model.commanding_power(state, d_gens, acting)
            if not model.are_enemies(state, a_power, d_power):
                continue
            name = (f"{model.commanding_general(state, a_gens, acting)}>"
                    f"{model.commanding_general(state, d_gens, acting)}")
            pairs.append({"name": name, "attacker": list(a_gens), "defender": list(d_gens),
                          "attacker_city": a_city, "defender_city": d_city,
                          "attacker_power": a_power})
    # The acting players' battle lists first, in list order (AU's and SX's before PA's); a
    # name that matches no battle is VOID, with the reason the order check gives beforehand.
    listed: list[str] = []
    names = {x["name"] for x in pairs}
    where = {g: v["city"] for g, v in gens.items()}
    for p in sorted(acting, key=lambda p: (p == "PA", model.POWER_INDEX[p])):
        for i, name in enumerate((orders.get(p) or {}).get("battles") or []):
            if isinstance(name, str) and name not in names and ">" in name:
                ctx.void(p, f"battles[{i}]", unmatched_battle(state, board, name, where) or "")
            elif isinstance(name, str) and name not in listed:
                listed.append(name)
    first = [next(x for x in pairs if x["name"] == n) for n in listed
             if any(x["name"] == n for x in pairs)]
    rest = [x for x in pairs if x not in first]
    rest.sort(key=lambda x: (x["attacker_power"] == "PA", x["attacker_city"], x["defender_city"]))
    return first + rest


def unmatched_battle(state: dict[str, Any], board: Any, name: str, cities: dict[str, str | None],
                     certain_only: bool = False) -> str | None:
    """Why the listed battle ``name`` (attacker>defender) is fought by no one, with the generals
    at ``cities``; ``None`` if it may be a battle. With ``certain_only``, only the reasons an
    order check can be sure of before the stage (an unknown general, or two generals that will
    not stand on adjacent cities)."""
    gens = state["generals"]
    a, _, d = name.partition(">")
    for g in (a, d):
        if g not in gens or cities.get(g) is None:
            return N_("'%(general)s' is not a general on the map, so there is no battle %(battle)s (M5.1)") % {"general": g, "battle": name}
    ca, cd = cities[a], cities[d]
    if cd not in board.neighbours(ca):
        return N_("%(attacker)s (%(at)s) and %(defender)s (%(dt)s) do not stand on adjacent cities, so there is no "
                  "battle %(battle)s (M5.1)") % {"attacker": a, "at": board.cities[ca].name, "defender": d,
                                                 "dt": board.cities[cd].name, "battle": name}
    if certain_only:
        return None
    return N_("there is no battle %(battle)s: a battle is named by the commanding generals of two enemy stacks "
              "on adjacent cities (M5.1)") % {"battle": name}


def _plan(ctx: Ctx, power: str, kind: str, battle: str, stack: list[str], city: str,
          orders: dict[str, dict[str, Any]], acting: list[str]) -> dict[str, Any]:
    """The plan a side uses (M12.4), with the standing ``loss_order`` filled in."""
    standing = ctx.state["standing"].get(power, {})
    plan: Any = None
    if kind == ATTACKER:
        # An empty plan given for a battle still counts: it asks for the defaults (M12.4).
        plans = (orders.get(power) or {}).get("plans") or {}
        plan = plans[battle] if battle in plans else plans.get("stage")
    else:
        defence = standing.get("defence") or {}
        cmd = model.commanding_general(ctx.state, stack, acting)
        plan = defence[cmd] if cmd in defence else defence.get(city)
    if not isinstance(plan, dict):
        plan = standing.get("default_plan")
    plan = dict(plan) if isinstance(plan, dict) else {}
    if "loss_order" not in plan and standing.get("loss_order"):
        plan["loss_order"] = list(standing["loss_order"])
    return plan


def _side(ctx: Ctx, power: str, stack: list[str], city: str, plan: dict[str, Any]) -> Side:
    gens = ctx.state["generals"]
    lost = set(ctx.stage["lost"])
    fighters = tuple(
        Fighter(g, gens[g]["power"], gens[g]["rank"], gens[g]["troops"], g not in lost)
        for g in stack
    )
    hand = tuple(ctx.state["cards"]["hands"].get(power, []))
    return Side(power, fighters, ctx.board.suit_of(city), hand, plan)


def retreat_paths(ctx: Ctx, losers: list[str], start: str, winner_city: str,
                  length: int) -> list[list[str]]:
    """Every legal retreat path (M5.7): farther from the winner's city at every step, never
    into a city holding an enemy piece, allowed by M1.4/M3.8, exactly ``length`` cities, ending
    within the stacking limit. Returned as lists of cities entered."""
    state, board = ctx.state, ctx.board
    gens = state["generals"]
    powers = sorted({gens[g]["power"] for g in losers})
    # every city a walk of ``length`` steps away from the winner's neighbour reaches, and every
    # neighbour of one, lies within length + 1 of the winner's city
    dist: Mapping[str, int] = board.distances_within(winner_city, length + 1)
    if dist.get(start, 2) > 1:
        dist = board.distances_from(winner_city)
    occ = model.occupancy(state)
    moving = set(losers)
    out: list[list[str]] = []

    def enterable(city: str) -> bool:
        if any(model.are_enemies(state, p, q) for p in powers for q in occ.get(city, [])):
            return False
        return all(territory_problem(state, board, p, city) is None for p in powers)

    def end_ok(city: str) -> bool:
        here = [g for g in model.generals_in(state, city) if g not in moving]
        if len(here) + len(losers) > MAX_STACK:
            return False
        return all(model.are_friends(state, p, gens[g]["power"]) for p in powers for g in here)

    def walk(path: list[str]) -> None:
        here = path[-1]
        if len(path) - 1 == length:
            if end_ok(here):
                out.append(path[1:])
            return
        for n in board.neighbours(here):
            if dist.get(n, -1) > dist.get(here, 0) and enterable(n):
                walk(path + [n])

    if length <= 0:
        return [[]]
    walk([start])
    return out


def choose_retreat(ctx: Ctx, paths: list[list[str]], preference: list[str],
                   loser_power: str) -> list[str]:
    """The winner's choice (M5.7): the first usable end city of ``preference``, otherwise the
    end city farthest from the nearest train of the loser's commanding power (0 with no train),
    ties to the lowest city id; of several paths to one end, the lowest ids."""
    ends = sorted({p[-1] for p in paths})
    for want in preference:
        if want in ends:
            return min(p for p in paths if p[-1] == want)
    trains = [t["city"] for t in ctx.state["trains"].values()
              if t["city"] is not None and t["power"] == loser_power]

    def far(city: str) -> int:
        if not trains:
            return 0
        ds = [ctx.board.distance(t, city) for t in trains]  # roads run both ways
        return min(d for d in ds if d is not None) if any(d is not None for d in ds) else 0

    best = sorted(ends, key=lambda c: (-far(c), c))[0]
    return min(p for p in paths if p[-1] == best)


def fight_battles(ctx: Ctx, acting: list[str], orders: dict[str, dict[str, Any]]) -> None:
    """Step (d): fight every listed battle in order (M5.1-M5.10)."""
    state = ctx.state
    gens = state["generals"]
    for pair in list_battles(ctx, acting, orders):
        a_alive = [g for g in pair["attacker"] if gens[g]["city"] is not None]
        d_alive = [g for g in pair["defender"] if gens[g]["city"] is not None]
        if not a_alive or not d_alive:
            continue
        a_city, d_city = gens[a_alive[0]]["city"], gens[d_alive[0]]["city"]
        if not ctx.board.is_adjacent(a_city, d_city):
            continue
        a_stack = model.generals_in(state, a_city)
        d_stack = model.generals_in(state, d_city)
        lost = set(ctx.stage["lost"])
        if all(g in lost for g in a_stack) or all(g in lost for g in d_stack):
            continue
        a_power = model.commanding_power(state, a_stack, acting)
        d_power = model.commanding_power(state, d_stack, acting)
        if not model.are_enemies(state, a_power, d_power):
            continue
        name = pair["name"]
        a_plan = _plan(ctx, a_power, ATTACKER, name, a_stack, a_city, orders, acting)
        d_plan = _plan(ctx, d_power, "defender", name, d_stack, d_city, orders, acting)
        attacker = _side(ctx, a_power, a_stack, a_city, a_plan)
        defender = _side(ctx, d_power, d_stack, d_city, d_plan)
        out = fight(attacker, defender, state["options"])
        hands = state["cards"]["hands"]
        hands[a_power] = list(out.hands_after["attacker"])
        hands[d_power] = list(out.hands_after["defender"])
        state["cards"]["discard"].extend(out.discards)
        a_won = out.winner == ATTACKER
        w_power, l_power = (a_power, d_power) if a_won else (d_power, a_power)
        w_city, l_city = (a_city, d_city) if a_won else (d_city, a_city)
        l_stack = d_stack if a_won else a_stack
        w_plan = a_plan if a_won else d_plan
        for g, n in out.losses.items():
            gens[g]["troops"] -= n
        event = ctx.event(
            "battle", name=name, attacker={"power": a_power, "generals": a_stack,
                                           "city": a_city, "strength": out.attacker_strength},
            defender={"power": d_power, "generals": d_stack, "city": d_city,
                      "strength": out.defender_strength},
            plays=[{"side": p.side, "card": p.card, "value": p.value} for p in out.plays],
            totals=[out.attacker_total, out.defender_total],
            winner=out.winner, winner_power=w_power, diff=out.diff,
            losses=sum(out.losses.values()), eliminated=list(out.eliminated),
            retreat=None, major_victory=out.major_victory,
        )
        ctx.private(l_power, "battle_losses", battle=name,
                    losses={g: n for g, n in out.losses.items()})
        for g in out.eliminated:
            eliminate(ctx, g, "battle")
        survivors = [g for g in l_stack if gens[g]["city"] is not None]
        ctx.stage["lost"].extend(g for g in l_stack if g not in ctx.stage["lost"])
        major = out.major_victory
        if survivors and out.retreat_length > 0:
            paths = retreat_paths(ctx, survivors, l_city, w_city, out.retreat_length)
            if not paths:
                for g in survivors:
                    eliminate(ctx, g, "no_retreat")
                event["eliminated"] = event["eliminated"] + survivors
                major = True
            else:
                pref = [c for c in w_plan.get("retreat") or [] if isinstance(c, str)]
                path = choose_retreat(ctx, paths, pref, l_power)
                for g in survivors:
                    gens[g]["city"] = path[-1]
                event["retreat"] = [l_city, *path]
        event["major_victory"] = major
        state["last_battle_winner"] = w_power
        record_major_victory(ctx, w_power, major)


def record_major_victory(ctx: Ctx, winner: str, major: bool) -> None:
    """M5.10: in the introductory game a major victory moves nothing. In the advanced game the
    winner's major power fills one of its 2 major-victory boxes from its pool (M9.18); the
    Saxony marker moves one box towards AU or PR (M9.10)."""
    if not major or model.is_intro(ctx.state):
        return
    boxes = ctx.state.setdefault("boxes", {})
    power = model.major_of(ctx.state, winner)
    filled = boxes.get(f"major_victory:{power}", 0)
    if filled < 2:
        from pbem.games.maria.rules.tracks import fill_box

        fill_box(ctx, power, "major_victory", "M5.10")
    if power in ("AU", "PR") and "tracks" in ctx.state:
        from pbem.games.maria.rules.tracks import move_saxony

        move_saxony(ctx, 1, "austria" if power == "AU" else "prussia", "M5.10")
