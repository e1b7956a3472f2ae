"""Winter: hussars lifted, recruiting and the return of eliminated generals (M8.1-M8.3).
The election (M9.14) and scoring (M8.4) belong to the advanced game."""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.maria import model
from pbem.games.maria.cards import cheapest_payment
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules.movement import MAX_STACK, reentry_problem
from pbem.games.maria.rules.supply import in_supply


def start_winter(ctx: Ctx) -> None:
    """M8.2: hussars are lifted at the start of winter."""
    if ctx.state["hussars"]:
        ctx.state["hussars"] = []
        ctx.event("hussars", cities=[])


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def run_winter(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """Step 2 of winter: each power's recruits and returns, paid as one sum (M8.2, M8.3).
    Returns are placed in power order, each against the pieces already placed."""
    state = ctx.state
    gens = state["generals"]
    cost_each = int(ctx.opt("winter.recruit_cost"))
    top = int(ctx.opt("troops.max"))
    needs_supply = bool(ctx.opt("winter.recruit_needs_supply"))
    known: dict[str, tuple[set[str], set[str]]] = {}  # each power's supply facts, once
    supplied = {g for g in model.on_map(state) if not needs_supply
                or in_supply(state, ctx.board, g, known)}
    for power in model.POWERS:
        o = orders.get(power)
        if power not in state["powers"] or not o:
            continue
        adds: dict[str, int] = {}
        for i, r in enumerate(o.get("recruits") or []):
            where = f"recruits[{i}]"
            gid = r.get("general") if isinstance(r, dict) and isinstance(r.get("general"), str) else None
            n = _int(r.get("troops", 1)) if isinstance(r, dict) else None
            if gid not in gens or gens[gid]["power"] != power:
                ctx.void(power, where, N_("%(gid)s is not a general of %(power)s") % {"gid": gid, "power": model.POWER_NAMES[power]})
                continue
            if gens[gid]["city"] is None:
                ctx.void(power, where, N_("%(gid)s is not on the map; use 'returns' (M8.3)") % {"gid": gid})
                continue
            if gid not in supplied:
                ctx.void(power, where, N_("%(gid)s is not in supply and cannot recruit (M8.2)") % {"gid": gid})
                continue
            if n is None or n < 1:
                ctx.void(power, where, N_("'troops' must be a whole number of at least 1"))
                continue
            room = top - gens[gid]["troops"] - adds.get(gid, 0)
            take = min(n, max(room, 0))
            if take < n:
                ctx.void(power, where, N_("%(count)s troop(s) beyond %(top)s are VOID and not charged (M8.2)") % {"count": n - take, "top": top})
            if take:
                adds[gid] = adds.get(gid, 0) + take
        placed: list[tuple[str, str, int]] = []
        for i, r in enumerate(o.get("returns") or []):
            where = f"returns[{i}]"
            gid = r.get("general") if isinstance(r, dict) and isinstance(r.get("general"), str) else None
            site = r.get("site") if isinstance(r, dict) else None
            n = _int(r.get("troops", 1)) if isinstance(r, dict) else None
            if gid not in gens or gens[gid]["power"] != power:
                ctx.void(power, where, N_("%(gid)s is not a general of %(power)s") % {"gid": gid, "power": model.POWER_NAMES[power]})
                continue
            if gens[gid]["city"] is not None or gens[gid].get("withdrawn"):
                ctx.void(power, where, N_("%(gid)s is not an eliminated general (M8.3)") % {"gid": gid})
                continue
            if n is None or not 1 <= n <= top:
                ctx.void(power, where, N_("a general returns with 1 to %(top)s troops (M8.3)") % {"top": top})
                continue
            prob = reentry_problem(ctx, power, str(site))
            if prob is None:
                here = model.generals_in(state, str(site))
                if len(here) >= MAX_STACK:
                    prob = "the site has no room under the stacking limit (M3.3)"
                elif any(not model.are_friends(state, power, gens[g]["power"]) for g in here):
                    prob = "the site holds a general that is not allied"
            if prob:
                ctx.void(power, where, prob)
                continue
            gens[gid]["city"] = str(site)
            gens[gid]["troops"] = n
            gens[gid]["face_down"] = False
            gens[gid]["supply_failures"] = 0
            placed.append((str(gid), str(site), n))
        total = sum(adds.values()) + sum(n for _, _, n in placed)
        if not total:
            continue
        hand = state["cards"]["hands"].get(power, [])
        paid = cheapest_payment(hand, total * cost_each, o.get("payments") or [],
                                state["options"])
        if paid is None:
            for gid, _, _ in placed:
                gens[gid]["city"] = None
                gens[gid]["troops"] = 0
            ctx.void(power, "recruits", N_("the hand cannot pay %(cost)s TC points; nothing is bought (M6.4)") % {"cost": total * cost_each})
            continue
        model.spend_cards(state, power, paid)
        for gid, n in adds.items():
            gens[gid]["troops"] += n
        ctx.event("recruit", power=power, troops=total, cost=total * cost_each, cards=paid)
        ctx.private(power, "recruit_detail", added=adds,
                    returns={g: n for g, _, n in placed})
        for gid, site, _ in placed:
            ctx.event("general_returned", general=gid, power=power, city=site)
