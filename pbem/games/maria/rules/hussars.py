"""The hussar step: Austria lifts its hussars and places the number in force (M7.1, M7.2)."""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.maria import model
from pbem.games.maria.context import Ctx


def hussar_count(state: dict[str, Any]) -> int:
    """The number of hussars in force (``hussars.count``; E13 changes come with politics)."""
    extra = sum(int(e.get("delta", 0)) for e in state.get("hussar_effects", []))
    return max(0, int(state["options"]["hussars.count"]) + extra)


def hussar_problem(state: dict[str, Any], board: Any, city: Any, placed: list[str]) -> str | None:
    """Why a hussar may not go to ``city`` now (M7.1), or None."""
    if not isinstance(city, str) or city not in board.cities:
        return N_("there is no city '%(city)s' on the map") % {"city": city}
    c = board.cities[city]
    if c.map != "bohemia" or c.map not in state["maps"]:
        return N_("%(city)s is not on the Bohemia map (M7.1)") % {"city": c.name}
    if city in placed:
        return N_("%(city)s already holds a hussar (M7.1)") % {"city": c.name}
    rng = int(state["options"]["hussars.range"])
    if not any(
        g["power"] == "AU" and g["city"] is not None and city in board.within(g["city"], rng)
        for g in state["generals"].values()
    ):
        return N_("%(city)s is not within %(range)s of an Austrian general (M7.1)") % {"city": c.name, "range": rng}
    for p in model.occupancy(state).get(city, []):
        if model.are_enemies(state, "AU", p):
            return N_("%(city)s holds a piece of an enemy of Austria (M7.1)") % {"city": c.name}
    return None


def place_hussars(ctx: Ctx, orders: dict[str, Any]) -> None:
    """Lift all hussars, then place them on the first valid cities of AU's list (M7.1)."""
    state = ctx.state
    state["hussars"] = []
    want = hussar_count(state)
    effects = []
    for e in state.get("hussar_effects", []):  # E13 counts hussar steps
        e["turns"] -= 1
        if e["turns"] > 0:
            effects.append(e)
    if "hussar_effects" in state:
        state["hussar_effects"] = effects
    cities = orders.get("hussars") or []
    if not isinstance(cities, list):
        ctx.void("AU", "hussars", N_("'hussars' must be a list of cities"))
        return
    for i, city in enumerate(cities):
        if len(state["hussars"]) >= want:
            break
        prob = hussar_problem(state, ctx.board, city, state["hussars"])
        if prob:
            ctx.void("AU", f"hussars[{i}]", prob)
            continue
        state["hussars"].append(city)
    source = orders.get("source")
    if source:  # M12.1 merge_hussars_into_politics: the cities came with the political orders
        ctx.event("hussars", cities=list(state["hussars"]), source=source)
    else:
        ctx.event("hussars", cities=list(state["hussars"]))
