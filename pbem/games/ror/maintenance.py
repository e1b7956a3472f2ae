"""Rebel army maintenance (R5) and the unit ledger helpers shared with combat (R1.5)."""

from __future__ import annotations

from pbem.games.ror.model import (
    Ctx,
    change_talents,
    hrao,
    legions_at,
    sen,
)


def eliminate_legion(ctx: Ctx, lid: str, reason: str) -> None:
    """A legion goes to the pool and becomes a regular with no allegiance (R1.5)."""
    lg = ctx.state["legions"][lid]
    lg.update(location="pool", veteran=False, allegiance=None)
    ctx.emit("legion_eliminated", legion=lid, reason=reason)


def eliminate_fleet(ctx: Ctx, fid: str, reason: str) -> None:
    """A fleet goes to the pool."""
    ctx.state["fleets"][fid]["location"] = "pool"
    ctx.emit("fleet_eliminated", fleet=fid, reason=reason)


def rebel_names(ctx: Ctx) -> list[str]:
    """The Primary Rebel, then the living Secondary Rebels."""
    cw = ctx.state["civil_war"]
    out = [cw["primary_rebel"]] + list(cw["secondary_rebels"])
    return [s for s in out if sen(ctx.state, s)["alive"]]


def maintenance_bill(ctx: Ctx) -> list[str]:
    """The rebel legions that cost 2T (R5.1): all but veterans owing a rebel."""
    st = ctx.state
    rebels_all = set(rebel_names(ctx))
    return [
        lid for lid in legions_at(st, "rebel_army")
        if not (st["legions"][lid]["veteran"] and st["legions"][lid]["allegiance"] in rebels_all)
    ]


def release_order(ctx: Ctx, costly: list[str], listed: list[str]) -> list[str]:
    """The order of release (R5.3): the standing RELEASE list, then regulars, then paid
    veterans, highest id first."""
    st = ctx.state
    rest = sorted(costly, key=lambda lid: (st["legions"][lid]["veteran"], -int(lid)))
    head = [lid for lid in listed if lid in costly]
    return head + [lid for lid in rest if lid not in head]


def rebel_maintenance(ctx: Ctx) -> None:
    """R5.1-R5.4: the rebel pays 2T per costly legion or releases it."""
    st = ctx.state
    cw = st.get("civil_war")
    if not cw or cw.get("primary_dead"):
        return
    faction = sen(st, cw["primary_rebel"])["faction"]
    costly = maintenance_bill(ctx)
    holders = [f"senator:{s}" for s in rebel_names(ctx)] + [f"faction:{faction}"]
    funds = sum(_amount(ctx, h) for h in holders)
    payable = min(len(costly), funds // 2)
    standing = st["factions"][faction]["standing"]
    listed = [str(x) for x in standing.get("release") or []]
    order = release_order(ctx, costly, listed)
    n_release = len(costly) - payable
    if not ctx.opt("ror.rebel_must_pay_max"):
        n_release = max(n_release, len([x for x in listed if x in costly]))
    released = order[:n_release]
    kept = [lid for lid in costly if lid not in released]
    due = 2 * len(kept)
    paid_by: dict[str, int] = {}
    for h in holders:
        take = min(due, _amount(ctx, h))
        if take:
            change_talents(ctx, h, -take, "R5 maintenance")
            paid_by[h] = take
            due -= take
    ctx.emit("maintenance", faction=faction, bill=2 * len(costly), paid=2 * len(kept),
             kept=kept, released=sorted(released, key=int),
             paid_by={k: v for k, v in paid_by.items() if not k.startswith("faction:")})
    if not released:
        return
    hsid, hfaction = hrao(st)
    accept = st["factions"][hfaction]["standing"].get("accept")
    if accept is None:
        accept = "all" if ctx.opt("ror.default_release_accept") == "accept_if_affordable" else []
    for lid in sorted(released, key=int):  # R5.4
        wanted = accept == "all" or lid in [str(x) for x in accept or []]
        if wanted and st["state_treasury"] >= 2:
            change_talents(ctx, "state", -2, "R5.4 released unit")
            st["legions"][lid]["location"] = "active_forces"
            st["paid_this_turn"].append(lid)
            ctx.emit("release", legion=lid, accepted=True, hrao_faction=hfaction)
        else:
            ctx.emit("release", legion=lid, accepted=False, hrao_faction=hfaction,
                     reason="declined" if not wanted else "the State cannot pay")
            eliminate_legion(ctx, lid, "R5.4 released and not kept")


def _amount(ctx: Ctx, holder: str) -> int:
    from pbem.games.ror.model import holder_amount

    return holder_amount(ctx.state, holder)

