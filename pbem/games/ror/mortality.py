"""Mortality chits (R9.4) and death (R9.3, R2.8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.ror.model import (
    PAIRS,
    Ctx,
    card_data,
    change_talents,
    is_in_play,
    number_of,
    sen,
    senators_sorted,
)


def family_record(fam: str, faction: str | None, zone: str, alive: bool) -> dict[str, Any]:
    """A family card fresh from its printed values: Popularity 0 and nothing else (R9.3)."""
    p = card_data().family[fam]
    return {
        "id": fam, "name": p["name"], "mil": p["mil"], "ora": p["ora"], "loy": p["loy"],
        "influence": p["influence"], "popularity": 0, "family_under": None, "knights": 0,
        "talents": 0, "offices": [], "markers": [], "concessions": [], "faction": faction,
        "zone": zone, "location": "rome" if zone == "faction" else None, "alive": alive,
        "land_victory_this_turn": False,
    }


def cup(ctx: Ctx) -> list[str]:
    """The mortality cup in canonical order: chits 1-30, Draw-2, blank (R8.1, R9.4)."""
    c = ctx.opt("ror.mortality_cup")
    return [str(i) for i in range(1, 31)] + ["draw2"] * int(c["draw2"]) + ["blank"] * int(
        c["blank"]
    )


def draw_chits(
    ctx: Ctx, count: int, purpose: str, eligible: Callable[[str], bool]
) -> list[str]:
    """Draw ``count`` chits (R9.4); kill each named senator for whom ``eligible`` holds.

    Drawn chits stay out until the count is met; a Draw-2 goes straight back and adds two
    draws. A chit names the senator in play with its number; if several are in play (a pair),
    a pick names one (R8.1). Returns the ids killed, in order.
    """
    pool = cup(ctx)
    full = ctx.opt("ror.mortality_cup")
    out: list[str] = []  # chits of this event that stay out, in canonical order
    killed: list[str] = []
    left = count
    while left > 0 and any(c != "draw2" for c in pool):  # a cup of Draw-2s alone ends it
        shown = {"cup": {"draw2": int(full["draw2"]), "blank": int(full["blank"]),
                         "out": list(out), "size": len(pool)}}
        chit = ctx.dice.draw(pool, f"{purpose} chit", shown=shown)
        left -= 1
        if chit == "draw2":
            left += 2
            ctx.emit("chit", chit=chit, purpose=purpose, senator=None)
            continue
        pool.remove(chit)
        out = _out_in_order(cup(ctx), pool)
        if chit == "blank":
            ctx.emit("chit", chit=chit, purpose=purpose, senator=None)
            continue
        named = senators_sorted(
            ctx.state, lambda r, n=chit: number_of(r["id"]) == n and is_in_play(r)
        )
        target = ctx.dice.draw(named, f"{purpose} chit {chit} pair pick") if named else None
        hit = target is not None and eligible(target)
        ctx.emit("chit", chit=chit, purpose=purpose, senator=target, kills=hit)
        if hit and target is not None:
            kill(ctx, target, f"{purpose} chit {chit}")
            killed.append(target)
    return killed


def _out_in_order(full: list[str], pool: list[str]) -> list[str]:
    """The chits missing from ``pool``, in canonical order (a blank may be out more than once)."""
    left = list(pool)
    out = []
    for c in full:
        if c in left:
            left.remove(c)
        else:
            out.append(c)
    return out


def kill(ctx: Ctx, sid: str, cause: str) -> None:
    """A senator dies (R9.3, R2.8). The caller handles a dead Primary Rebel (R4.9)."""
    st = ctx.state
    rec = sen(st, sid)
    if not rec["alive"]:
        return
    ctx.emit("death", senator=sid, cause=cause, faction=rec["faction"])
    change_talents(ctx, f"senator:{sid}", -int(rec["talents"]), "death")
    st["forum_concessions"].extend(rec["concessions"])
    st["forum_concessions"].sort()
    rec["concessions"] = []
    was_leader = "faction_leader" in rec["markers"]
    for a in st["armies"]:
        if a["commander"] == sid:
            a["commander"] = None
            # a Master of Horse whose Dictator died returns to Rome keeping his office
            if a["master_of_horse"]:
                sen(st, a["master_of_horse"])["location"] = "rome"
                a["master_of_horse"] = None
        if a["master_of_horse"] == sid:
            a["master_of_horse"] = None
    for lg in st["legions"].values():
        if lg["allegiance"] == sid:
            lg["allegiance"] = None
    cw = st.get("civil_war")
    if cw:
        if cw["primary_rebel"] == sid:
            # the id may come back as a new family senator (R9.3): the flag keeps the death
            cw["primary_dead"] = True
        if sid in cw["secondary_rebels"]:
            cw["secondary_rebels"].remove(sid)
        if cw["ex_moh"] == sid:
            cw["ex_moh"] = None
    cfl = st.get("consul_for_life")
    if cfl and cfl.get("senator") == sid:
        cfl["dead"] = True
    faction = rec["faction"]
    rec.update(offices=[], knights=0, markers=[], alive=False, land_victory_this_turn=False)
    fam = rec["family_under"] if sid in card_data().statesmen else sid
    if sid in card_data().statesmen:
        rec.update(zone="removed", faction=None, location=None, family_under=None)
    if fam is None:
        return
    # R2.8: the family card of a pair goes to the surviving brother, even in another faction
    is_statesman = sid in card_data().statesmen
    brothers = [b for b in PAIRS.get(number_of(sid), ()) if b != sid] if is_statesman else []
    for b in brothers:
        brec = st["senators"].get(b)
        if brec and is_in_play(brec) and brec["family_under"] is None:
            brec["family_under"] = fam
            st["senators"].pop(fam, None)
            ctx.emit("family_card", family=fam, to=b, rule="R2.8")
            return
    if was_leader and faction is not None:
        new = family_record(fam, faction, "faction", True)
        new["markers"] = ["faction_leader"]
        st["senators"][fam] = new
        ctx.emit("family_card", family=fam, to=f"faction:{faction}", rule="R9.3")
    else:
        st["senators"][fam] = family_record(fam, None, "curia", False)
        ctx.emit("family_card", family=fam, to="curia", rule="R9.3")
