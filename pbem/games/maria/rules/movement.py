"""Movement, step (c): train re-entry and moves of generals, stacks and supply trains
(M3.1-M3.9, M2.4, M12.7). Each order is checked when its turn comes; an illegal one is VOID and
the others still run (M3.5, M12.2)."""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.maria import model
from pbem.games.maria.board import MAPS_OF_POWER
from pbem.games.maria.cards import cheapest_payment
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import conquest

MAX_STACK = 2  # M3.3


def road_problem(ctx: Ctx, start: str, path: list[str]) -> tuple[str | None, bool]:
    """Why ``path`` from ``start`` is not a walk along roads, or None; and whether every step of
    it is on a main road (M3.1). Pieces are not looked at here."""
    board = ctx.board
    if not path:
        return N_("the path is empty"), False
    if len(set(path)) != len(path) or start in path:
        return N_("the path enters a city twice"), False
    all_main = True
    prev = start
    for city in path:
        if city not in board.cities:
            return N_("there is no city '%(city)s' on the map") % {"city": city}, False
        road = board.road(prev, city)
        if road is None:
            return N_("'%(city)s' is not a road neighbour of '%(prev)s'") % {"city": city_name(ctx, city), "prev": city_name(ctx, prev)}, False
        if not road.main:
            all_main = False
        prev = city
    return None, all_main


def city_name(ctx: Ctx, city: str) -> str:
    """The display name of a city for messages."""
    c = ctx.board.cities.get(city)
    return c.name if c is not None else city


def territory_problem(state: dict[str, Any], board: Any, power: str, city: str,
                      origin: str | None = None) -> str | None:
    """Why ``power``'s pieces may not enter ``city`` (M1.4, M3.8), or None."""
    c = board.cities.get(city)
    if c is None:
        return N_("there is no city '%(city)s' on the map") % {"city": city}
    if c.map not in state["maps"] or c.map not in MAPS_OF_POWER.get(power, ()):
        return N_("%(power)s's pieces may not enter the %(map)s map (M1.4)") % {"power": model.POWER_NAMES[power], "map": c.map}
    if not state.get("neutral"):
        return None  # M3.8 holds only while a power is neutral
    home = model.home_of(state, board, city)
    if home is not None and home != power and model.is_neutral(state, home):
        return N_("%(value)s is in the home country of neutral %(power)s (M3.8)") % {"value": c.name, "power": model.POWER_NAMES[home]}
    if power == "PR" and model.is_neutral(state, "PR") and home != "PR":
        return N_("the pieces of a neutral Prussia may not leave Prussia (M3.8)")
    return None


def enemy_powers_in(state: dict[str, Any], power: str, powers: list[str]) -> bool:
    """True if any of ``powers`` is an enemy of ``power``."""
    return any(model.are_enemies(state, power, p) for p in powers)


def general_path_problem(ctx: Ctx, power: str, movers: list[str], start: str,
                         path: list[str], force_march: bool,
                         occ: dict[str, list[str]] | None = None,
                         by_city: dict[str, list[str]] | None = None,
                         known: dict[tuple[str, bool], str | None] | None = None) -> str | None:
    """Why a general or stack may not move along ``path`` (the cities entered), or None.
    ``occ`` and ``by_city`` (``model.occupancy``, ``model.generals_by_city``) may be passed in
    by a caller that checks many paths in one position; ``known``, kept by a caller that checks
    many paths of the same movers in one position, remembers each city's answer."""
    problem, all_main = road_problem(ctx, start, path)
    if problem:
        return problem
    if force_march:
        if len(path) > 8:
            return N_("a force march moves at most 8 cities (M3.6)")
        if not all_main:
            return N_("a force march must keep to main roads (M3.6)")
    elif len(path) > (4 if all_main else 3):
        return (N_("a general moves at most 3 cities, or 4 when every step is on a main road (M3.1)"))
    return general_entry_problem(ctx, power, movers, path, force_march, occ, by_city, known)


def general_entry_problem(ctx: Ctx, power: str, movers: list[str], path: list[str],
                          force_march: bool, occ: dict[str, list[str]] | None = None,
                          by_city: dict[str, list[str]] | None = None,
                          known: dict[tuple[str, bool], str | None] | None = None) -> str | None:
    """:func:`general_path_problem` for a ``path`` known to be a walk along roads within the
    length limits (a search along the roads found it): why the movers may not enter its cities
    (M1.4, M3.2, M3.3, M3.6, M3.8), or None."""
    if occ is None or by_city is None:
        occ, by_city = pieces_in(ctx.state, {*path, *(
            n for c in path for n in ctx.board.neighbours(c))} if force_march else set(path))
    for i, city in enumerate(path):
        last = i == len(path) - 1
        if known is None:
            prob = entry_problem(ctx, power, movers, city, last, force_march, occ, by_city)
        elif (city, last) in known:
            prob = known[city, last]
        else:
            prob = known[city, last] = entry_problem(ctx, power, movers, city, last,
                                                     force_march, occ, by_city)
        if prob:
            return prob
    return None


def pieces_in(state: dict[str, Any], cities: set[str]
              ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """``model.occupancy`` and ``model.generals_by_city`` of ``cities`` alone (one pass over
    the pieces): what checking one path needs."""
    occ: dict[str, list[str]] = {}
    by_city: dict[str, list[str]] = {}
    for g, v in state["generals"].items():
        city = v["city"]
        if city in cities:
            occ.setdefault(city, []).append(v["power"])
            by_city.setdefault(city, []).append(g)
    for v in state["trains"].values():
        if v["city"] in cities:
            occ.setdefault(v["city"], []).append(v["power"])
    gens = state["generals"]
    for here in by_city.values():
        if len(here) > 1:
            here.sort(key=lambda g: (model.POWER_INDEX[gens[g]["power"]], gens[g]["rank"], g))
    return occ, by_city


def entry_problem(ctx: Ctx, power: str, movers: list[str], city: str, last: bool,
                  force_march: bool, occ: dict[str, list[str]],
                  by_city: dict[str, list[str]]) -> str | None:
    """Why ``movers`` may not enter ``city`` on their path (``last``: to end there), or None
    (M1.4, M3.2, M3.3, M3.6, M3.8)."""
    state, board = ctx.state, ctx.board
    gens = state["generals"]
    moving = set(movers)
    powers_here = occ.get(city, [])
    # pieces of our own moving stack are never in the path (it does not revisit start);
    # every general of a mixed stack must be allowed in the city (M1.4, M3.8)
    powers = {gens[g]["power"] for g in movers}
    for p in (power,) if powers == {power} else sorted(powers | {power}):
        prob = territory_problem(state, board, p, city)
        if prob:
            return prob
    generals_here: list[str] = []
    if powers_here:  # ``occ`` and ``by_city`` come from one position: no piece, no general
        generals_here = [g for g in by_city.get(city, []) if g not in moving]
        trains_here = model.trains_in(state, city) if len(powers_here) > len(generals_here) \
            else []
        if any(model.are_enemies(state, power, gens[g]["power"]) for g in generals_here):
            return N_("%(city)s holds an enemy general (M3.2)") % {"city": city_name(ctx, city)}
        if any(not model.are_friends(state, power, gens[g]["power"]) for g in generals_here):
            return N_("%(city)s holds a general of a power that is not an ally (M3.2)") % {"city": city_name(ctx, city)}
        other_trains = [t for t in trains_here
                        if not model.are_enemies(state, power, state["trains"][t]["power"])]
        if any(not model.are_friends(state, power, state["trains"][t]["power"])
               for t in other_trains):
            return N_("%(city)s holds a piece of a power that is not an ally (M3.2)") % {"city": city_name(ctx, city)}
        if not last and (generals_here or other_trains):
            return N_("%(city)s holds another piece; a move may not jump over it (M3.2)") % {"city": city_name(ctx, city)}
    if last and len(generals_here) + len(movers) > MAX_STACK:
        return N_("%(city)s would hold more than 2 generals (M3.3)") % {"city": city_name(ctx, city)}
    if force_march:
        if ctx.opt("move.force_march_forbids") == "enemy_home_cities":
            home = model.home_of(state, board, city)
            if home is not None and model.are_enemies(state, power, home):
                return (N_("a force march may not enter %(city)s, a city of an enemy home country (M3.6)") % {"city": city_name(ctx, city)})
        elif board.cities[city].fortress != "none":
            holder = model.controller(state, board, city)
            if holder is not None and model.are_enemies(state, power, holder):
                return (N_("a force march may not enter %(city)s, an enemy-controlled fortress (M3.6)") % {"city": city_name(ctx, city)})
        if enemy_powers_in(state, power, powers_here):
            return N_("a force march may not enter %(city)s, which holds an enemy piece (M3.6)") % {"city": city_name(ctx, city)}
        for n in board.neighbours(city):
            if enemy_powers_in(state, power, occ.get(n, [])):
                return (N_("a force march may not enter %(city)s, which is next to an enemy piece in %(n)s (M3.6)") % {"city": city_name(ctx, city), "n": city_name(ctx, n)})
    return None


def train_path_problem(ctx: Ctx, power: str, train: str, start: str,
                       path: list[str], occ: dict[str, list[str]] | None = None) -> str | None:
    """Why a supply train may not move along ``path``, or None (M3.1, M3.2). ``occ``
    (``model.occupancy``) may be passed in by a caller that checks many paths in one position."""
    problem, all_main = road_problem(ctx, start, path)
    if problem:
        return problem
    if len(path) > (3 if all_main else 2):
        return (N_("a supply train moves at most 2 cities, or 3 when every step is on a main road (M3.1)"))
    return train_entry_problem(ctx, power, path, occ)


def train_entry_problem(ctx: Ctx, power: str, path: list[str],
                        occ: dict[str, list[str]] | None = None) -> str | None:
    """:func:`train_path_problem` for a ``path`` known to be a walk along roads within the
    length limits (a search along the roads found it): why the train may not enter its cities
    (M1.4, M3.2, M3.8), or None."""
    state, board = ctx.state, ctx.board
    if occ is None:
        occ = pieces_in(state, set(path))[0]
    for i, city in enumerate(path):
        prob = territory_problem(state, board, power, city)
        if prob:
            return prob
        here = occ.get(city, [])
        if any(not model.are_friends(state, power, p) for p in here):
            return N_("%(city)s holds a piece that is not its own or allied (M3.2)") % {"city": city_name(ctx, city)}
        if here and i < len(path) - 1:
            return N_("%(city)s holds another piece; a move may not jump over it (M3.2)") % {"city": city_name(ctx, city)}
    return None


def reentry_problem(ctx: Ctx, power: str, site: str,
                    occ: dict[str, list[str]] | None = None) -> str | None:
    """Why a train (or a returning general, without the stacking test) may not be placed on
    ``site`` (M3.9, M4.1), or None. ``occ`` (``model.occupancy``) may be passed in by a caller
    that asks for many sites in one position."""
    state, board = ctx.state, ctx.board
    if site not in board.cities:
        return N_("there is no city '%(site)s' on the map") % {"site": site}
    if site not in model.reentry_sites(state, board, power):
        return N_("%(site)s is not a re-entry site of %(power)s (M4.1)") % {"site": city_name(ctx, site), "power": model.POWER_NAMES[power]}
    prob = territory_problem(state, board, power, site)
    if prob:
        return prob
    if board.cities[site].fortress != "none" and model.controller(state, board, site) != power:
        return N_("%(site)s is not controlled by %(power)s (M4.1)") % {"site": city_name(ctx, site), "power": model.POWER_NAMES[power]}
    if occ is None:
        occ = pieces_in(state, {site, *board.neighbours(site)})[0]
    if enemy_powers_in(state, power, occ.get(site, [])):
        return N_("%(site)s holds an enemy piece (M3.9)") % {"site": city_name(ctx, site)}
    for n in board.neighbours(site):
        if enemy_powers_in(state, power, occ.get(n, [])):
            return N_("%(site)s is next to an enemy piece in %(n)s (M3.9)") % {"site": city_name(ctx, site), "n": city_name(ctx, n)}
    if any(not model.are_friends(state, power, p) for p in occ.get(site, [])):
        return N_("%(site)s holds a piece of a power that is not an ally") % {"site": city_name(ctx, site)}
    return None


def train_max(state: dict[str, Any], power: str) -> int:
    """The scenario's train maximum of ``power`` (M3.9)."""
    return int(state["train_max"].get(power, 0))


def run_reentries(ctx: Ctx, power: str, orders: dict[str, Any]) -> None:
    """M3.9: bring back eliminated trains for TC points, in the order written."""
    state = ctx.state
    for i, entry in enumerate(orders.get("reentries") or []):
        where = f"reentries[{i}]"
        if not isinstance(entry, dict):
            ctx.void(power, where, N_("a re-entry needs 'site' (and optionally 'train')"))
            continue
        site = entry.get("site")
        tid = entry.get("train")
        off = sorted(t for t, v in state["trains"].items()
                     if v["power"] == power and v["city"] is None)
        if tid is None:
            tid = off[0] if off else None
        if tid not in off:
            ctx.void(power, where, N_("there is no eliminated train of this power to bring back")
                     if tid is None else N_("train %(train)s is not an eliminated train of this power") % {"train": tid})
            continue
        on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
        if on >= train_max(state, power):
            ctx.void(power, where, N_("the power already has its maximum of trains (M3.9)"))
            continue
        prob = reentry_problem(ctx, power, str(site))
        if prob:
            ctx.void(power, where, prob)
            continue
        cost = int(ctx.opt("trains.reentry_cost"))
        hand = state["cards"]["hands"].get(power, [])
        paid = cheapest_payment(hand, cost, orders.get("payments") or [], state["options"])
        if paid is None:
            ctx.void(power, where, N_("the hand cannot pay %(cost)s TC points (M6.4)") % {"cost": cost})
            continue
        model.spend_cards(state, power, paid)
        state["trains"][tid]["city"] = site
        ctx.stage["moved"].append(tid)
        ctx.event("train_reentered", power=power, train=tid, city=site, cards=paid)


def _strip_start(path: Any, start: str) -> list[str] | None:
    if not isinstance(path, list) or not all(isinstance(c, str) for c in path):
        return None
    if path and path[0] == start:
        return list(path[1:])
    return list(path)


def execute_move(ctx: Ctx, power: str, index: int, order: dict[str, Any]) -> None:
    """Run one move order of ``power`` (M3.1-M3.6, M3.10); VOID with a reason if illegal now."""
    state = ctx.state
    gens = state["generals"]
    where = f"moves[{index}]"
    moved = ctx.stage["moved"]
    force = bool(order.get("force_march", False))
    if "stack" in order:
        named = order.get("stack")
        if not isinstance(named, list) or not named:
            ctx.void(power, where, N_("'stack' must list the generals that move together"))
            return
        mine = [g for g in named if isinstance(g, str) and g in gens and gens[g]["power"] == power
                or (isinstance(g, str) and g in gens and model.seat_of(state, gens[g]["power"])
                    == model.seat_of(state, power) and gens[g]["power"] in ctx.stage["acting"])]
        on = [g for g in mine if gens[g]["city"] is not None]
        if not on:
            ctx.void(power, where, N_("no general of the stack is on the map under your control (M3.4)"))
            return
        free = [g for g in on if g not in moved and not gens[g].get("blocked")]
        # The start city is that of the first named general still free to move: one that has
        # moved already has left the start city (M3.4).
        start = gens[free[0] if free else on[0]]["city"]
        movers = [g for g in free if gens[g]["city"] == start]
        if not movers:
            ctx.void(power, where, N_("no general of the stack is free to move (M3.4)"))
            return
        kind = "general"
    else:
        pid = order.get("piece")
        if not isinstance(pid, str) or model.piece_power(state, pid) is None:
            ctx.void(power, where, N_("there is no piece '%(pid)s'") % {"pid": pid})
            return
        if model.piece_power(state, pid) != power:
            ctx.void(power, where, N_("%(pid)s is not a piece of %(power)s") % {"pid": pid, "power": model.POWER_NAMES[power]})
            return
        kind = "general" if pid in gens else "train"
        rec = gens[pid] if kind == "general" else state["trains"][pid]
        start = rec["city"]
        if start is None:
            ctx.void(power, where, N_("%(pid)s is not on the map") % {"pid": pid})
            return
        if pid in moved:
            ctx.void(power, where, N_("%(pid)s has already moved this stage (M3.5)") % {"pid": pid})
            return
        if rec.get("blocked"):
            ctx.void(power, where, N_("%(pid)s is blocked and makes no ordered move (M3.10)") % {"pid": pid})
            return
        movers = [pid]
        if kind == "train" and force:
            ctx.void(power, where, N_("supply trains may not force march (M3.6)"))
            return
    path = _strip_start(order.get("path"), start)
    if path is None:
        ctx.void(power, where, N_("'path' must list the cities entered, in order"))
        return
    if not path:
        return  # staying put is always legal (M3.1)
    if kind == "general":
        prob = general_path_problem(ctx, power, movers, start, path, force)
    else:
        prob = train_path_problem(ctx, power, movers[0], start, path)
    if prob:
        ctx.void(power, where, prob)
        return
    # Execute city by city: enemy trains are eliminated (M3.2), fortresses conquered (M4.5).
    for city in path:
        for g in movers:
            (gens[g] if kind == "general" else state["trains"][g])["city"] = city
        if kind == "general":
            for t in model.trains_in(state, city):
                if model.are_enemies(state, power, state["trains"][t]["power"]):
                    state["trains"][t]["city"] = None
                    ctx.event("train_destroyed", train=t, power=state["trains"][t]["power"],
                              city=city, by=movers[0])
            conquest.on_enter(ctx, movers, city, force)
    moved.extend(movers)
    if force:
        ctx.stage.setdefault("force_marched", []).extend(movers)
    ctx.event("move", power=power, pieces=movers, path=[start, *path], force_march=force)


def _piece_keys(order: dict[str, Any]) -> list[str]:
    if "stack" in order and isinstance(order["stack"], list):
        return [g for g in order["stack"] if isinstance(g, str)]
    p = order.get("piece")
    return [p] if isinstance(p, str) else []


def seat_queue(ctx: Ctx, powers: list[str], orders: dict[str, dict[str, Any]]
               ) -> list[tuple[str, int, dict[str, Any]]]:
    """The run order of the move orders of one seat's acting powers (M3.5): the seat's
    ``sequence`` first, then every power's list in full, major power first."""
    listed: list[tuple[str, int, dict[str, Any]]] = []
    sequence: list[str] = []
    for p in sorted(powers, key=lambda p: (p not in model.MAJORS, model.POWER_INDEX[p])):
        o = orders.get(p) or {}
        for i, m in enumerate(o.get("moves") or []):
            listed.append((p, i, m if isinstance(m, dict) else {}))
        for s in o.get("sequence") or []:
            if isinstance(s, str) and s not in sequence:
                sequence.append(s)
    first: list[tuple[str, int, dict[str, Any]]] = []
    for pid in sequence:
        for item in listed:
            if item not in first and pid in _piece_keys(item[2]):
                first.append(item)
                break
    return first + [item for item in listed if item not in first]


def run_movement(ctx: Ctx, acting: list[str], orders: dict[str, dict[str, Any]]) -> None:
    """Step (c): re-entries power by power, then the moves of each seat (M2.4, M3.5, M12.7)."""
    state = ctx.state
    for p in acting:
        run_reentries(ctx, p, orders.get(p) or {})
    seats: dict[str, list[str]] = {}
    for p in acting:
        seats.setdefault(model.seat_of(state, p) or f"none:{p}", []).append(p)
    if "AU" in acting and "PA" in acting:
        queue = _austria_queue(ctx, acting, orders, seats)
    else:
        queue = []
        for seat in sorted(seats, key=lambda s: min(model.POWER_INDEX[p] for p in seats[s])):
            queue.extend(seat_queue(ctx, seats[seat], orders))
    for power, i, order in queue:
        execute_move(ctx, power, i, order)


def _austria_queue(ctx: Ctx, acting: list[str], orders: dict[str, dict[str, Any]],
                   seats: dict[str, list[str]]) -> list[tuple[str, int, dict[str, Any]]]:
    """M12.7: Flanders pieces first, AU and PA alternating; then AU's (and SX's) Bohemia
    pieces. A ``sequence`` given identically by AU and PA goes first."""
    state = ctx.state
    au_side = [p for p in acting if p != "PA"]
    au_q = seat_queue(ctx, au_side, {p: orders.get(p) or {} for p in au_side})
    pa_q = seat_queue(ctx, ["PA"], {"PA": orders.get("PA") or {}})
    seq_au = (orders.get("AU") or {}).get("sequence")
    seq_pa = (orders.get("PA") or {}).get("sequence")
    first: list[tuple[str, int, dict[str, Any]]] = []
    if seq_au and seq_au == seq_pa:
        for pid in seq_au:
            for item in au_q + pa_q:
                if item not in first and pid in _piece_keys(item[2]):
                    first.append(item)
                    break
    au_q = [x for x in au_q if x not in first]
    pa_q = [x for x in pa_q if x not in first]

    def in_flanders(item: tuple[str, int, dict[str, Any]]) -> bool:
        keys = _piece_keys(item[2])
        for k in keys:
            rec = state["generals"].get(k) or state["trains"].get(k)
            if rec and rec["city"]:
                return bool(ctx.board.map_of(rec["city"]) == "flanders")
        return False

    au_f = [x for x in au_q if in_flanders(x)]
    au_b = [x for x in au_q if not in_flanders(x)]
    out = list(first)
    for i in range(max(len(au_f), len(pa_q))):
        if i < len(au_f):
            out.append(au_f[i])
        if i < len(pa_q):
            out.append(pa_q[i])
    return out + au_b
