"""Supply, step (b): supply paths, hussar costs and payments, out-of-supply losses
(M6.1-M6.6, M7.2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.maria import model
from pbem.games.maria.cards import cheapest_payment, payment_value
from pbem.games.maria.context import Ctx


def enemy_test(state: dict[str, Any], power: str) -> Callable[[str], bool]:
    """Whether another power is ``power``'s enemy (M1.3), each power asked of the state once:
    for a search that asks it of every piece."""
    foes: dict[str, bool] = {}

    def enemy(other: str) -> bool:
        found = foes.get(other)
        if found is None:
            found = foes[other] = model.are_enemies(state, power, other)
        return found

    return enemy


def path_blocked_cities(state: dict[str, Any], board: Any, power: str) -> set[str]:
    """Cities a supply path of ``power`` may not enter (M6.2): those holding an enemy general or
    an enemy train, the home countries of neutral powers, and (option) enemy fortresses."""
    enemy = enemy_test(state, power)
    pieces = (*state["generals"].values(), *state["trains"].values())
    foes = {p for p in {piece["power"] for piece in pieces} if enemy(p)}
    blocked = {piece["city"] for piece in pieces
               if piece["city"] is not None and piece["power"] in foes}
    neutral = [p for p in state.get("neutral", []) if p != power]
    for p in neutral:
        blocked |= model.home_cities(state, board, p)
    if state["options"]["supply.enemy_fortress_blocks"]:
        blocked |= enemy_fortresses(state, board, enemy)[0]
    return blocked


def enemy_fortresses(state: dict[str, Any], board: Any, foe: Callable[[str], bool]
                     ) -> tuple[frozenset[str], frozenset[str]]:
    """The fortresses ``foe`` holds and those nobody holds (M4.2, M4.3): the home countries'
    (found once for each set of facts they depend on: the foes, peace), changed by the
    entries of the control table."""
    key = (board, bool(state.get("peace")), tuple(p for p in model.POWERS if foe(p)))
    found = _HOME_FORTRESSES.get(key)
    if found is None:
        ids = model.fortresses_of(board)
        homes = [model.home_of(state, board, f) for f in ids]
        found = _HOME_FORTRESSES[key] = (
            frozenset(ids),
            frozenset(f for f, h in zip(ids, homes, strict=True) if h is not None and foe(h)),
            frozenset(f for f, h in zip(ids, homes, strict=True) if h is None))
    forts, held, free = found
    changed = [c for c in state["control"] if c in forts]
    if changed:
        holders = [state["control"][c]["power"] for c in changed]
        held = held.difference(changed).union(
            c for c, h in zip(changed, holders, strict=True) if h is not None and foe(h))
        free = free.difference(changed).union(
            c for c, h in zip(changed, holders, strict=True) if h is None)
    return held, free


_HOME_FORTRESSES: dict[tuple[Any, ...], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def train_cities(state: dict[str, Any], power: str) -> set[str]:
    """Cities holding a train that can supply ``power`` (its own; allied ones by option)."""
    allied = state["options"]["supply.allied_trains"]
    return {
        t["city"] for t in state["trains"].values()
        if t["city"] is not None
        and (t["power"] == power or (allied and model.are_friends(state, power, t["power"])))
    }


def supply_distance(board: Any, start: str, targets: set[str], blocked: set[str],
                    avoid: set[str], limit: int) -> int | None:
    """Fewest steps from ``start`` to a city of ``targets`` entering no city of ``blocked`` or
    ``avoid``, at most ``limit``; None if there is none. The start city is not entered.

    A breadth-first search that goes on only from the cities whose road distance to some
    target (pieces ignored: no path is shorter) still fits in the steps left."""
    if start in targets:
        return 0
    roads = model.adjacency(board)
    near = [board.distances_within(t, limit - 1) for t in targets]
    closed = blocked | avoid  # the cities found so far join them
    closed.add(start)
    frontier = [start]
    for step in range(1, limit + 1):
        rest = limit - step
        nxt = []
        for here in frontier:
            for there in roads[here]:
                if there in closed:
                    continue
                if there in targets:
                    return step
                closed.add(there)
                for dist in near:
                    d = dist.get(there)
                    if d is not None and d <= rest:
                        nxt.append(there)
                        break
        if not nxt:
            return None
        frontier = nxt
    return None


def supply_cost(state: dict[str, Any], board: Any, gid: str,
                known: dict[str, tuple[set[str], set[str]]] | None = None) -> int | None:
    """The TC points general ``gid`` must pay to be in supply now: 0 at home or with a path
    that avoids hussars, n for a shortest path of n steps through a hussar (M6.3, for
    Austria's enemies only), None when it has no supply path (M6.1-M6.3). ``known`` as for
    :func:`in_supply`."""
    g = state["generals"][gid]
    power, city = g["power"], g["city"]
    if model.home_of(state, board, city) == power:
        return 0
    limit = int(state["options"]["supply.range"])
    targets, blocked = _paths_of(state, board, power, known)
    if not targets:
        return None
    hussars = set(state["hussars"]) if model.are_enemies(state, power, "AU") else set()
    d = supply_distance(board, city, targets, blocked, hussars, limit)
    if d is not None:
        return 0
    if not hussars:
        return None
    d = supply_distance(board, city, targets, blocked, set(), limit)
    return None if d is None else d


def in_supply(state: dict[str, Any], board: Any, gid: str,
              known: dict[str, tuple[set[str], set[str]]] | None = None) -> bool:
    """M6.1-M6.2 alone (no hussar cost, no change): used by winter recruiting and E5.
    ``known``, kept by a caller that asks for many generals in one position, remembers each
    power's train cities and blocked cities."""
    g = state["generals"][gid]
    if model.home_of(state, board, g["city"]) == g["power"]:
        return True
    targets, blocked = _paths_of(state, board, g["power"], known)
    limit = int(state["options"]["supply.range"])
    return supply_distance(board, g["city"], targets, blocked, set(), limit) is not None


def _paths_of(state: dict[str, Any], board: Any, power: str,
              known: dict[str, tuple[set[str], set[str]]] | None) -> tuple[set[str], set[str]]:
    """``power``'s train cities and the cities its supply paths may not enter, remembered in
    ``known`` if given (the caller forgets them when a piece leaves the map)."""
    if known is not None and power in known:
        return known[power]
    found = train_cities(state, power), path_blocked_cities(state, board, power)
    if known is not None:
        known[power] = found
    return found


def hussar_policy(state: dict[str, Any], power: str) -> tuple[str, int | None]:
    """The standing hussar policy of ``power`` (M12.3): ``pay``, ``refuse`` or
    ``pay_up_to`` with its limit."""
    pol = state["standing"].get(power, {}).get("hussar_policy", "pay")
    if isinstance(pol, dict) and "pay_up_to" in pol:
        return "pay_up_to", int(pol["pay_up_to"])
    if pol == "refuse":
        return "refuse", None
    return "pay", None


def supply_step(ctx: Ctx, acting: list[str]) -> None:
    """Step (b): check every general of the acting powers on the map (M6.1), in city-id order,
    then power order and rank; each payment is made before the next check."""
    state, board = ctx.state, ctx.board
    gens = state["generals"]
    order = sorted(
        (g for g in model.on_map(state) if gens[g]["power"] in acting),
        key=lambda g: (gens[g]["city"], model.POWER_INDEX[gens[g]["power"]], gens[g]["rank"]),
    )
    budget: dict[str, int | None] = {}
    paid_stacks: set[tuple[str, str]] = set()
    per_stack = ctx.opt("supply.hussar_charge") == "per_stack"
    known: dict[str, tuple[set[str], set[str]]] = {}  # each power's paths, while no piece leaves
    for gid in order:
        g = gens[gid]
        if g["city"] is None:
            continue
        power = g["power"]
        cost = supply_cost(state, board, gid, known)
        ok = cost is not None
        cards: list[str] = []
        if cost and per_stack and (g["city"], power) in paid_stacks:
            cost = 0
        if cost:
            policy, limit = hussar_policy(state, power)
            if power not in budget:
                budget[power] = limit
            hand = state["cards"]["hands"].get(power, [])
            pay = None if policy == "refuse" else cheapest_payment(
                hand, cost, state["standing"].get(power, {}).get("payments", []),
                state["options"])
            left = budget[power]
            if pay is not None and left is not None:
                face = sum(payment_value(c, state["options"]) for c in pay)
                if face > left:
                    pay = None
                else:
                    budget[power] = left - face
            if pay is None:
                ok = False
            else:
                model.spend_cards(state, power, pay)
                cards = pay
                paid_stacks.add((g["city"], power))
        if ok:
            was_down = g["face_down"]
            g["face_down"] = False
            g["supply_failures"] = 0
            ctx.event("supply", general=gid, power=power, city=g["city"], result="in_supply",
                      cost=cost or 0, cards=cards, face_up=was_down)
            continue
        loss = 1 if not g["face_down"] or ctx.opt("supply.loss") == "1_always" else 2
        loss = min(loss, g["troops"])
        g["troops"] -= loss
        g["face_down"] = True
        g["supply_failures"] = g.get("supply_failures", 0) + 1
        ctx.event("supply", general=gid, power=power, city=g["city"], result="out_of_supply",
                  lost=loss)
        if g["troops"] <= 0:
            eliminate(ctx, gid, "supply")
            known.clear()


def eliminate(ctx: Ctx, gid: str, cause: str) -> None:
    """Take a general off the map (M1.7: at 0 troops; M5.7: no retreat path)."""
    g = ctx.state["generals"][gid]
    city = g["city"]
    g["city"] = None
    g["troops"] = 0
    g["face_down"] = False
    g["supply_failures"] = 0
    ctx.event("eliminated", general=gid, power=g["power"], city=city, cause=cause)
