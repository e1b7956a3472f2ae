"""The Senate's attack on the rebel (R6), and the battle helpers the end game reuses (R7.8)."""

from __future__ import annotations

import math
from typing import Any

from pbem.games.ror.civil_war import (
    make_proconsul,
    rebel_strength,
    revolt_fails,
    strength_with,
)
from pbem.games.ror.dispatch import dispatcher
from pbem.games.ror.maintenance import eliminate_fleet, eliminate_legion
from pbem.games.ror.model import (
    Ctx,
    State,
    army,
    army_legions,
    card_data,
    crt,
    cw_armies,
    fleets_at,
    legions_at,
    military,
    sen,
)
from pbem.games.ror.mortality import draw_chits, kill
from pbem.games.ror.victory import check_consul_for_life, rebel_meets


def ability(sid: str | None, name: str) -> Any:
    """A Statesman's ability used by this module (card data), or None."""
    if sid is None:
        return None
    return (card_data().statesmen.get(sid) or {}).get("abilities", {}).get(name)


def battle_mil(ctx: Ctx, sid: str | None) -> int:
    """MIL in a battle: Pompey rolls 1d6+1 before each battle (R6.3)."""
    if sid is None:
        return 0
    roll = ability(sid, "battle_mil")
    if roll:
        d = sum(ctx.dice.dice(int(roll["dice"]), f"R6.3 {sid} MIL"))
        return d + int(roll["plus"])
    return military(ctx.state, sid)


def change_popularity(ctx: Ctx, sid: str, delta: int, reason: str) -> None:
    """Popularity within -9..+9; Pompey doubles his own changes (R6.6, R6.8)."""
    if delta == 0:
        return
    rec = sen(ctx.state, sid)
    delta *= int(ability(sid, "popularity_factor") or 1)
    before = int(rec["popularity"])
    rec["popularity"] = max(-9, min(9, before + delta))
    ctx.emit("popularity", senator=sid, before=before, after=rec["popularity"], reason=reason)


def lose_units(ctx: Ctx, units: list[str], n: int, purpose: str, *, fleets: bool = False
               ) -> list[str]:
    """Lose ``n`` of ``units`` picked at random, one draw each; no draw when all are lost."""
    n = min(n, len(units))
    left = list(units)
    lost = []
    if n == len(left):
        lost = list(left)
    else:
        for _ in range(n):
            u = ctx.dice.draw(left, purpose)
            left.remove(u)
            lost.append(u)
    for u in lost:
        if fleets:
            eliminate_fleet(ctx, u, purpose)
        else:
            eliminate_legion(ctx, u, purpose)
    return lost


def new_veterans(ctx: Ctx, lids: list[str], owner: str | None, purpose: str) -> list[str]:
    """R6.12/R7.8: random surviving regular legions become veterans owing ``owner``."""
    if owner is None or not sen(ctx.state, owner)["alive"]:
        return []
    regs = [lid for lid in lids if not ctx.state["legions"][lid]["veteran"]]
    made = []
    for _ in range(int(ability(owner, "veterans_per_victory") or 1)):
        if not regs:
            break
        lid = ctx.dice.draw(regs, purpose)
        regs.remove(lid)
        ctx.state["legions"][lid].update(veteran=True, allegiance=owner)
        ctx.emit("veteran_created", legion=lid, allegiance=owner)
        made.append(lid)
    return made


def halve(n: int, commander: str | None) -> int:
    """Fabius (2A) commanding halves his side's losses, rounded up (R6.6)."""
    return math.ceil(n / 2) if ability(commander, "halves_losses") else n


def run_desertions(ctx: Ctx, attacking: dict[str, Any] | None) -> None:
    """R4.6: loyal owners' DESERT orders for veterans in the rebel army.

    ``attacking`` is the Senate army about to attack (orders naming ``senate_army`` that found
    no army wait for it); outside a battle such orders join the first army facing the rebel.
    """
    st = ctx.state
    for fid in st["seating"]:
        standing = st["factions"][fid]["standing"]
        keep = []
        for o in standing.get("desert") or []:
            lid, to = str(o.get("legion")), o.get("to")
            lg = st["legions"].get(lid)
            owner = lg["allegiance"] if lg else None
            orec = st["senators"].get(owner) if owner else None
            if (lg is None or lg["location"] != "rebel_army" or not lg["veteran"] or orec is None
                    or not orec["alive"] or "rebel" in orec["markers"]
                    or orec["faction"] != fid):
                ctx.emit("desert_lapsed", legion=lid, faction=fid, audience=ctx.seat(fid))
                continue
            if to == "active_forces":
                lg["location"] = "active_forces"
                ctx.emit("desert", legion=lid, to="active_forces", owner=owner)
                continue
            target = attacking
            if target is None:
                arms = cw_armies(st)
                target = arms[0] if arms else None
            if target is None:
                keep.append(o)
                continue
            lg["location"] = f"army:{target['id']}"
            ctx.emit("desert", legion=lid, to=f"army:{target['id']}", owner=owner)
        if "desert" in standing:
            standing["desert"] = keep
            if not keep:
                del standing["desert"]


def attackers(st: State) -> list[dict[str, Any]]:
    """Senate armies that attack this Combat Phase (R6.1)."""
    out = []
    for a in cw_armies(st):
        if a["commander"] is None or not army_legions(st, a):
            continue
        if (not st["options"]["ror.cw_proconsul_deployed"]
                and (a.get("dispatched_turn") or 0) < st["turn"]
                and a.get("reinforced_turn") != st["turn"]):
            continue
        out.append(a)
    return out


def civil_war_battles(ctx: Ctx) -> None:
    """R6.1: every Senate army sent against the rebel attacks, in dispatch order, until a
    Victory, a Defeat or a failed revolt; with no attack the rebel meets condition 1."""
    st = ctx.state
    cw = st.get("civil_war")
    if not cw or cw.get("rebel_condition_met") or cw.get("primary_dead"):
        return
    run_desertions(ctx, None)
    order = [a["id"] for a in attackers(st)]
    if not order:
        # why no army attacks, in public words (R6.1, R8.6: a void DISPATCH stays private)
        facing = [{"army": a["id"], "commander": a["commander"],
                   "why": ("no_commander" if a["commander"] is None else
                           "no_legion" if not army_legions(st, a) else "not_reinforced")}
                  for a in cw_armies(st)]
        ctx.emit("no_attack", primary_rebel=cw["primary_rebel"], dispatcher=dispatcher(st),
                 armies=facing)
        rebel_meets(ctx, 1, "R6.1 the Senate did not attack")
        return
    for aid in order:
        a = army(st, aid)
        if st.get("civil_war") is None or a is None or a["commander"] is None:
            break
        outcome = civil_war_battle(ctx, a)
        check_consul_for_life(ctx)
        if outcome != "stalemate":
            break


def civil_war_battle(ctx: Ctx, a: dict[str, Any]) -> str:
    """One civil-war battle in the order of R6.13; returns victory/stalemate/defeat/failed."""
    st = ctx.state
    cw = st["civil_war"]
    primary, ex_moh = cw["primary_rebel"], cw["ex_moh"]
    cmd, moh = a["commander"], a["master_of_horse"]
    # (1) desertions waiting for this army, then Pompey's MIL
    run_desertions(ctx, a)
    s_mil = battle_mil(ctx, cmd)
    if moh and "dictator" in sen(st, cmd)["offices"] and sen(st, moh)["location"] != "captive":
        s_mil += military(st, moh)
    r_mil = battle_mil(ctx, primary)
    # (2) strengths and the roll (R6.3-R6.5)
    s_lids = army_legions(st, a)
    r_lids = legions_at(st, "rebel_army")
    s_str = strength_with(st, s_lids, s_mil)
    r_str = rebel_strength(st, r_mil)
    dice = ctx.dice.dice(3, "R6.4 3d6")
    total = sum(dice) + s_str - r_str - int(st["evil_omens_level"])
    result, losses = crt(total)
    # (3) losses: Senate, then rebel, then Popularity (R6.6)
    n_s = halve(len(s_lids) if losses is None else losses, cmd)
    if result == "defeat":
        rule = ctx.opt("ror.cw_defeat_rebel_losses")
        n_r = 0 if rule == "none" or losses is None else losses
    else:
        n_r = losses or 0
    n_r = halve(n_r, primary)
    # the battle is told first, with what the CRT takes from each side (R6.5, R6.6)
    ev = ctx.emit("battle", army=a["id"], commander=cmd, primary_rebel=primary, dice=dice,
                  senate_mil=s_mil, rebel_mil=r_mil,
                  rolled_mil=[x for x in (cmd, primary) if ability(x, "battle_mil")],
                  senate_strength=s_str, rebel_strength=r_str, omens=int(st["evil_omens_level"]),
                  total=total, result=result, crt_losses=losses,
                  senate_to_lose=min(n_s, len(s_lids)), rebel_to_lose=min(n_r, len(r_lids)))
    s_lost = lose_units(ctx, s_lids, n_s, "R6.6 senate loss")
    r_lost = lose_units(ctx, r_lids, n_r, "R6.6 rebel loss")
    ev.update(senate_losses=s_lost, rebel_losses=r_lost)
    change_popularity(ctx, cmd, -(len(s_lost) // 2), "R6.6 losses")
    if ctx.opt("ror.cw_rebel_pop_loss"):
        change_popularity(ctx, primary, -(len(r_lost) // 2), "R6.6 losses")
    # (4) mortality chits (R6.7)
    n_chits = len(s_lost) + (len(r_lost) if ctx.opt("ror.cw_chit_basis") == "both_sides" else 0)
    in_battle = {x for x in (cmd, moh, primary, ex_moh) if x}
    draw_chits(ctx, n_chits, "R6.7", lambda sid: sid in in_battle)
    primary_dead = bool(cw.get("primary_dead"))
    # (5) new veterans, Senate side first (R6.12)
    if result in ("victory", "stalemate"):
        new_veterans(ctx, army_legions(st, a), cmd, "R6.12 senate veteran")
    if result in ("defeat", "stalemate"):
        new_veterans(ctx, legions_at(st, "rebel_army"), primary, "R6.12 rebel veteran")
    # (6) the outcome
    if result == "victory":
        victor = a["commander"]
        revolt_fails(ctx, "R6.8 Senate Victory", victor_army=a["id"])
        st["unrest"] = max(0, int(st["unrest"]) - 1)
        if victor is not None:
            gain = math.ceil(r_str / 2)
            rec = sen(st, victor)
            rec["influence"] += gain
            change_popularity(ctx, victor, gain, "R6.8 Victory")
            rec["land_victory_this_turn"] = True
            ctx.emit("victory_gain", senator=victor, influence=gain)
        a["target"] = None
        return "victory"
    wiped = not legions_at(st, "rebel_army")
    if wiped or primary_dead:
        if result == "defeat":
            _senate_defeat(ctx, a)
        survives = (wiped and not primary_dead
                    and ctx.opt("ror.cw_wipeout_primary") == "survives")
        revolt_fails(ctx, "R6.9 wiped out" if wiped else "R4.9 Primary Rebel died",
                     primary_survives=survives)
        return "failed"
    if result == "stalemate":  # R6.10
        if a["commander"] is not None:
            make_proconsul(st, a["commander"], a)
        return "stalemate"
    _senate_defeat(ctx, a)  # R6.11
    rebel_meets(ctx, 1, "R6.11 Senate Defeat")
    return "defeat"


def _senate_defeat(ctx: Ctx, a: dict[str, Any]) -> None:
    """R6.11: the Senate commander and his Master of Horse die; survivors to Active Forces."""
    st = ctx.state
    for who in (a["commander"], a["master_of_horse"]):
        if who is not None and sen(st, who)["alive"]:
            kill(ctx, who, "R6.11 Senate Defeat")
    for lid in army_legions(st, a):
        st["legions"][lid]["location"] = "active_forces"
    for fid in fleets_at(st, f"army:{a['id']}"):
        st["fleets"][fid]["location"] = "active_forces"
    if a in st["armies"]:
        st["armies"].remove(a)
    st["unrest"] = max(0, int(st["unrest"]) + int(ctx.opt("ror.cw_defeat_unrest")))
