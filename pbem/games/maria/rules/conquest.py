"""Fortresses: control, protection, conquest on entry, pending conquest and occupation
(M4.2-M4.8)."""

from __future__ import annotations

from pbem.games.maria import model
from pbem.games.maria.context import Ctx

NEUTRAL_LANDS = ("neutral", "poland")


def is_enemy_fortress(ctx: Ctx, power: str, city: str) -> bool:
    """M4.3: a fortress held by an enemy of ``power``, or held by nobody."""
    if ctx.board.cities[city].fortress == "none":
        return False
    holder = model.controller(ctx.state, ctx.board, city)
    return holder is None or model.are_enemies(ctx.state, power, holder)


def is_protected(ctx: Ctx, power: str, city: str) -> bool:
    """M4.4: an enemy of ``power`` has a general on the map within the protection range of
    ``city`` (face-down generals protect)."""
    return protector(ctx, power, city) is not None


def protector(ctx: Ctx, power: str, city: str) -> str | None:
    """The nearest general (then the lowest id) that protects ``city`` against ``power`` (M4.4),
    or ``None``: the reports name it when a conquest waits or is dropped."""
    rng = int(ctx.opt("fortress.protection_range"))
    dist = ctx.board.distances_within(city, rng)
    state = ctx.state
    near = []
    for gid, g in state["generals"].items():
        d = dist.get(g["city"])
        if d is not None and model.are_enemies(state, power, g["power"]):
            near.append((d, gid))
    return min(near)[1] if near else None


def conquer(ctx: Ctx, power: str, city: str, general: str | None, how: str) -> None:
    """Take ``city`` for ``power`` (a general's power; control goes to its major power) under
    the branches of M4.5; ``how`` is recorded in the event (entry, pending, occupation)."""
    state, board = ctx.state, ctx.board
    major = model.major_of(state, power)
    before = model.controller(state, board, city)
    old = state["control"].get(city)
    if old and old.get("marker"):
        ctx.event("marker_returned", city=city, power=old["power"])
        if state.get("pools") is not None and old["power"] in state["pools"]:
            state["pools"][old["power"]] += 1
    home = model.home_of(state, board, city)
    territory = board.territory_of(city)
    if home is not None and model.are_friends(state, power, home):
        new_power, marker = home, False  # recapture
    elif before is None or territory in NEUTRAL_LANDS:
        # M4.3 / M4.5 neutral-land branch: a control flag, no marker (by default)
        marker = ctx.opt("fortress.neutral_capture") == "victory_marker"
        new_power = major
    else:
        new_power, marker = major, True
    if marker and state.get("pools") is not None and not model.is_intro(state):
        # advanced game: a marker comes from the pool; an empty pool gives bare control
        if state["pools"].get(major, 0) > 0:
            state["pools"][major] -= 1
        else:
            marker = False
    model.set_control(state, board, city, new_power, marker)
    ctx.event("conquest", city=city, power=new_power, previous=before, marker=marker,
              general=general, how=how)


def on_enter(ctx: Ctx, generals: list[str], city: str, force_march: bool) -> None:
    """M4.5/M4.7: a face-up general that is not force marching enters ``city``: conquer it if it
    is an unprotected enemy fortress, or record a pending conquest if it is protected."""
    if force_march or ctx.board.cities[city].fortress == "none":
        return
    gens = ctx.state["generals"]
    face_up = [g for g in generals if not gens[g]["face_down"]]
    if not face_up:
        return
    conqueror = face_up[0]
    power = gens[conqueror]["power"]
    if not is_enemy_fortress(ctx, power, city):
        return
    guard = protector(ctx, power, city)
    if guard is not None:
        major = model.major_of(ctx.state, power)
        pend = ctx.stage["pending"]
        if not any(p["city"] == city and p["power"] == major for p in pend):
            pend.append({"city": city, "power": major, "general": conqueror})
        ctx.event("conquest_pending", city=city, power=major, general=conqueror, protector=guard)
        return
    conquer(ctx, power, city, conqueror, "entry")


def retroactive(ctx: Ctx, acting: list[str]) -> None:
    """Step (e): pending conquests (M4.7) and occupation (M4.8), fortresses in city-id order."""
    state = ctx.state
    by_city: dict[str, list[tuple[str, str, str | None]]] = {}
    for p in ctx.stage["pending"]:
        by_city.setdefault(p["city"], []).append(("pending", p["power"], p["general"]))
    if ctx.opt("fortress.conquer_by_occupation"):
        # A general that force marched this stage conquers nothing, not even by occupation
        # (M3.6 read together with M4.8).
        marched = set(ctx.stage.get("force_marched", []))
        for g in model.on_map(state):
            gen = state["generals"][g]
            if gen["power"] in acting and not gen["face_down"] and g not in marched:
                city = gen["city"]
                if ctx.board.cities[city].fortress != "none":
                    by_city.setdefault(city, []).append(("occupation", gen["power"], g))
    for city in sorted(by_city):
        for how, power, general in by_city[city]:
            enemy = is_enemy_fortress(ctx, power, city)
            guard = protector(ctx, power, city) if enemy else None
            if enemy and guard is None:
                conquer(ctx, power, city, general, how)
            elif how == "pending":
                # why it fails (M4.7): a general still protects it, or it is no enemy fortress
                # of that power any more (taken meanwhile by that power or an ally)
                if guard is not None:
                    ctx.event("conquest_dropped", city=city, power=power, reason="protected", protector=guard)
                else:
                    ctx.event("conquest_dropped", city=city, power=power, reason="not_enemy")
    ctx.stage["pending"] = []
