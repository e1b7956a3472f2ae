"""Declaring civil war (R3) and what follows a revolt (R4.3-R4.7, R4.9)."""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.ror.loyalty import loyalty_rolls
from pbem.games.ror.model import (
    Ctx,
    State,
    Why,
    army_fleets,
    army_legions,
    army_of,
    clockwise_from,
    faction_members,
    hrao,
    is_aligned,
    is_rebel,
    legion_strength,
    legions_at,
    military,
    primary_alive,
    sen,
)
from pbem.games.ror.mortality import kill
from pbem.games.ror.revolution import faction_orders, void

DECISIONS = ("revolt", "lay_down", "manilian", "roll")


def disband(st: State, a: dict[str, Any], *, keep_garrisons: bool = True) -> list[str]:
    """Send an army's legions and fleets to Active Forces and remove it; returns the legions."""
    lids = army_legions(st, a)
    for lid in lids:
        st["legions"][lid]["location"] = "active_forces"
    for fid in army_fleets(st, a):
        st["fleets"][fid]["location"] = "active_forces"
    st["armies"].remove(a)
    return lids


def return_to_rome(st: State, a: dict[str, Any], *, lose_proconsul: bool = True) -> None:
    """The commander and his Master of Horse come home (R3.2, R4.9)."""
    for who in (a["commander"], a["master_of_horse"]):
        if who is None:
            continue
        rec = sen(st, who)
        if rec["alive"] and rec["location"] != "captive":
            rec["location"] = "rome"
    if lose_proconsul and a["commander"]:
        offices = sen(st, a["commander"])["offices"]
        if "proconsul" in offices:
            offices.remove("proconsul")


def lay_down(ctx: Ctx, commander: str, reason: str) -> None:
    """R3.2: legions and fleets to Active Forces; he and his Master of Horse return to Rome."""
    st = ctx.state
    a = army_of(st, commander)
    if a is None:
        return
    return_to_rome(st, a)
    lids = disband(st, a)
    ctx.emit("lay_down", commander=commander, legions=lids, reason=reason)


def strength_with(st: State, lids: list[str], mil: int) -> int:
    """Legion strength + min(MIL, legion strength) (R3.4, R6.3)."""
    ls = legion_strength(st, lids)
    return ls + min(mil, ls)


def _decision_for(ctx: Ctx, faction: str, commander: str) -> tuple[dict[str, Any], str]:
    """The first valid declaration listed for ``commander`` (R8.6); LAY_DOWN by default."""
    st = ctx.state
    for i, d in enumerate(faction_orders(ctx, faction).get("declarations") or []):
        if not isinstance(d, dict) or str(d.get("commander")) != commander:
            continue
        path = f"orders.declarations[{i}]"
        kind = d.get("decision")
        if kind not in DECISIONS:
            void(ctx, faction, path, Why("decision_kind",
                                         N_("the decision must be revolt, lay_down, manilian or roll")))
            continue
        two_round = st["options"]["ror.pbem_loyalty_test"] == "two_round"
        second = bool((st.get("declaring") or {}).get("second_round"))
        if kind == "roll" and (not two_round or second):
            void(ctx, faction, path, Why("roll_round",
                                         N_("ROLL is sent only in the first round under two_round (R8.3)")))
            continue
        if kind == "manilian":
            why = manilian_problem(st, commander, d.get("war"))
            if why:
                void(ctx, faction, path, why)
                continue
        return d, path
    return {"commander": commander, "decision": "lay_down", "default": True}, ""


def manilian_problem(st: State, commander: str, war: Any) -> str | None:
    """Why a victor may not take his army to ``war`` under the Manilian Law (R3.2)."""
    if not st["laws"].get("manilian_law"):
        return Why("no_manilian_law", N_("the Manilian Law is not in play"))
    w = st["wars"].get(str(war))
    if w is None:
        return Why("no_such_war", N_("there is no war '%(war)s'") % {"war": war}, war=str(war))
    if w["status"] == "defeated":
        return Why("war_defeated", N_("war %(war)s is defeated") % {"war": war}, war=str(war))
    a = army_of(st, commander)
    if a is None or len(army_fleets(st, a)) < int(w["fleet_support"]):
        return Why("needs_fleets", N_("war %(war)s needs %(n)s fleets") % {"war": war, "n": w['fleet_support']}, war=str(war),
                   n=int(w["fleet_support"]))
    return None


def eligible_commanders(st: State) -> list[tuple[str, str]]:
    """(faction, commander) who must decide, in R3.1 order."""
    _, first = hrao(st, everyone_in_rome=True)
    out = []
    for fid in clockwise_from(st, first):
        for sid in faction_members(st, fid):
            r = sen(st, sid)
            if (r["land_victory_this_turn"] and r["location"] != "captive" and not is_rebel(r)
                    and army_of(st, sid) is not None):
                out.append((fid, sid))
    return out


def revolt_mil(st: State, commander: str, decl: dict[str, Any]) -> tuple[int, str | None]:
    """MIL for R3.4, with a joining Master of Horse of a rebel Dictator (R4.4)."""
    a = army_of(st, commander)
    mil = military(st, commander)
    moh = a["master_of_horse"] if a else None
    joins = None
    if (moh is not None and "dictator" in sen(st, commander)["offices"] and decl.get("moh_joins")
            and sen(st, moh)["faction"] == sen(st, commander)["faction"]):
        joins = moh
        if sen(st, moh)["location"] != "captive":
            mil += military(st, moh)
    return mil, joins


def step_declarations(ctx: Ctx) -> bool:
    """R2.1(d): every land victor lays down command or revolts (R3, R4).

    Returns True when step (d) is finished, False when it waits for a round of R8.3
    (``T<n>/declare-<k>`` under ``sequential``, ``T<n>/revolution-2`` under ``two_round``).
    Progress between rounds is kept in ``state["declaring"]``.
    """
    st = ctx.state
    dec = st.get("declaring")
    if dec is None:
        for a in [a for a in st["armies"] if a["commander"] is None]:
            lids = disband(st, a)
            ctx.emit("army_returns", army=a["id"], legions=lids, reason="R3.1 commander dead")
        dec = {"queue": [list(x) for x in eligible_commanders(st)], "candidate": None,
               "rolled": [], "done": 0, "fresh": True,
               "blocked": primary_alive(st)}  # a Primary Rebel fixed in an earlier turn (R3.3)
        st["declaring"] = dec
    sequential = ctx.opt("ror.pbem_declarations") == "sequential"
    two_round = ctx.opt("ror.pbem_loyalty_test") == "two_round"
    if dec["rolled"]:
        # the second round of two_round: REVOLT or LAY_DOWN for each commander who rolled
        dec["second_round"] = True
        for r in dec["rolled"]:
            decl, _ = _decision_for(ctx, r["faction"], r["commander"])
            if decl["decision"] != "revolt":
                lay_down(ctx, r["commander"], "default" if decl.get("default") else "ordered")
                continue
            _contest(ctx, dec, r["faction"], r["commander"], decl, r["followers"])
        dec["rolled"] = []
        dec["second_round"] = False
        dec["fresh"] = False
    while dec["queue"]:
        fid, sid = dec["queue"][0]
        if sequential and not dec["fresh"]:
            dec["fresh"] = True
            _open_declaration_round(st, f"declare-{dec['done'] + 1}", [fid])
            return False
        dec["queue"].pop(0)
        dec["done"] += 1
        dec["fresh"] = False
        _declare(ctx, dec, fid, sid, two_round)
        if dec["rolled"] and sequential:
            _open_declaration_round(st, "revolution-2", [fid])
            return False
    if dec["rolled"]:
        _open_declaration_round(st, "revolution-2", sorted({r["faction"] for r in dec["rolled"]},
                                                            key=st["seating"].index))
        return False
    st["declaring"] = None
    if dec["candidate"] is not None:
        fix_primary(ctx, dec["candidate"])
    return True


def _open_declaration_round(st: State, name: str, powers: list[str]) -> None:
    st["awaiting"] = {"round": f"T{st['turn']}/{name}", "kind": name.split("-")[0]
                      if name.startswith("declare") else name, "powers": powers}


def _declare(ctx: Ctx, dec: dict[str, Any], fid: str, sid: str, two_round: bool) -> None:
    """One eligible commander's decision (R3.2-R3.4, R8.3)."""
    st = ctx.state
    cfl = (st.get("consul_for_life") or {}).get("senator")
    decl, path = _decision_for(ctx, fid, sid)
    kind = decl["decision"]
    if kind == "manilian":
        go_to_war(ctx, sid, str(decl["war"]))
        return
    if kind == "lay_down":
        lay_down(ctx, sid, "default" if decl.get("default") else "ordered")
        return
    if dec["blocked"] or sid == cfl:
        why = ("rebel_alive" if dec["blocked"] else "consul_for_life")
        text = "a Primary Rebel is alive" if dec["blocked"] else "the Consul for Life never revolts"
        void(ctx, fid, path, Why(f"no_revolt_{why}", N_("no revolt: %(text)s (R3.3)") % {"text": text}))
        lay_down(ctx, sid, "R3.3")
        return
    a = army_of(st, sid)
    assert a is not None
    followers, _ = loyalty_rolls(ctx, sid, a["id"], decl)
    if not followers and ctx.opt("ror.revolt_needs_legion"):
        lay_down(ctx, sid, "R3.7 no legion")
        return
    if two_round:  # R8.3: the rolls are published; the decision comes in revolution-2
        dec["rolled"].append({"faction": fid, "commander": sid, "followers": followers})
        ctx.emit("rolled", commander=sid, legions=followers)
        return
    _contest(ctx, dec, fid, sid, decl, followers)


def _contest(ctx: Ctx, dec: dict[str, Any], fid: str, sid: str, decl: dict[str, Any],
             followers: list[str]) -> None:
    """R3.4: a declarer replaces the current Primary Rebel only if strictly stronger."""
    st = ctx.state
    mil, joining_moh = revolt_mil(st, sid, decl)
    strength = strength_with(st, followers, mil)
    ctx.emit("revolt_strength", commander=sid, strength=strength, legions=followers)
    if strength < int(decl.get("min_strength") or 0):
        lay_down(ctx, sid, "R8.3 below min_strength")
        return
    candidate = dec["candidate"]
    replaces = candidate is None or strength > candidate["strength"]
    if (candidate is not None and strength == candidate["strength"]
            and ctx.opt("ror.rebel_tie") == "roll_2d6"):
        replaces = _tie_roll(ctx, candidate["commander"], sid)
    if not replaces:
        lay_down(ctx, sid, "R3.4 not stronger")
        return
    if candidate is not None:
        lay_down(ctx, candidate["commander"], "R3.4 replaced")
    dec["candidate"] = {"commander": sid, "faction": fid, "strength": strength, "decl": decl,
                        "joining_moh": joining_moh}


def _tie_roll(ctx: Ctx, current: str, challenger: str) -> bool:
    """R3.4 roll_2d6: the current rebel's player then the challenger's roll; ties roll again."""
    while True:
        a = sum(ctx.dice.dice(2, f"R3.4 tie {current}"))
        b = sum(ctx.dice.dice(2, f"R3.4 tie {challenger}"))
        ctx.emit("tie_roll", current=current, challenger=challenger, totals=[a, b])
        if a != b:
            return b > a


def go_to_war(ctx: Ctx, commander: str, war: str) -> None:
    """R3.2 Manilian Law: the army goes to a war and its commander becomes Proconsul."""
    st = ctx.state
    a = army_of(st, commander)
    assert a is not None
    a["target"] = war
    w = st["wars"][war]
    if w["status"] in ("inactive", "imminent"):
        w["status"] = "active"
    make_proconsul(st, commander, a)
    ctx.emit("manilian", commander=commander, war=war)


def make_proconsul(st: State, commander: str, a: dict[str, Any]) -> None:
    """A Consul or Dictator staying with his army becomes Proconsul (R6.10)."""
    rec = sen(st, commander)
    held = [o for o in ("rome_consul", "field_consul", "dictator") if o in rec["offices"]]
    for o in held:
        rec["offices"].remove(o)
    if held and "prior_consul" not in rec["markers"]:
        rec["markers"].append("prior_consul")
    if "proconsul" not in rec["offices"]:
        rec["offices"].append("proconsul")
    if "dictator" in held and a["master_of_horse"]:
        sen(st, a["master_of_horse"])["location"] = "rome"  # keeping his office
        a["master_of_horse"] = None


def make_rebel(ctx: Ctx, sid: str) -> None:
    """R4.7: Concessions to the Forum, no Knights, no office but Governorships, Rebel marker."""
    st = ctx.state
    rec = sen(st, sid)
    st["forum_concessions"].extend(rec["concessions"])
    st["forum_concessions"].sort()
    lost = {"concessions": rec["concessions"], "knights": rec["knights"],
            "offices": [o for o in rec["offices"] if not o.startswith("governor:")]}
    rec["concessions"] = []
    rec["knights"] = 0
    rec["offices"] = [o for o in rec["offices"] if o.startswith("governor:")]
    if "rebel" not in rec["markers"]:
        rec["markers"].append("rebel")
    if not any(o.startswith("governor:") for o in rec["offices"]):
        rec["location"] = "rebel_army"
    ctx.emit("rebel_losses", senator=sid, **lost)


def fix_primary(ctx: Ctx, cand: dict[str, Any]) -> None:
    """R3.5, R3.6: settle the Primary Rebel, the Secondary Rebels, the Master of Horse and
    the deserting veterans, then create the civil war."""
    st = ctx.state
    primary, fid, decl = cand["commander"], cand["faction"], cand["decl"]
    a = army_of(st, primary)
    assert a is not None
    for lid in army_legions(st, a):
        st["legions"][lid]["location"] = "rebel_army"
    fleets = army_fleets(st, a)
    for f in fleets:
        st["fleets"][f]["location"] = "active_forces"  # R3.5
    moh = a["master_of_horse"]
    st["armies"].remove(a)
    ctx.emit("primary_rebel", senator=primary, faction=fid, strength=cand["strength"],
             fleets_to_active_forces=fleets)
    ex_moh = None
    if moh is not None:  # R4.4
        if cand["joining_moh"] == moh:
            ex_moh = moh
            sen(st, moh)["location"] = "rebel_army"
            ctx.emit("master_of_horse", senator=moh, joins=True)
        else:
            sen(st, moh)["location"] = "rome"
            if st["options"]["ror.ruleset"] != "1.07A" and "master_of_horse" in sen(st, moh)[
                    "offices"]:
                sen(st, moh)["offices"].remove("master_of_horse")  # D5 keeps it
            ctx.emit("master_of_horse", senator=moh, joins=False)
    joiners = {str(s) for s in decl.get("secondaries") or []}
    cfl = (st.get("consul_for_life") or {}).get("senator")
    secondaries: list[str] = []
    for sid in faction_members(st, fid):  # R4.3
        rec = sen(st, sid)
        if sid in (primary, ex_moh) or rec["location"] == "captive" or sid == cfl:
            continue
        if sid not in joiners:
            ctx.emit("secondary", senator=sid, joins=False)
            continue
        own = army_of(st, sid)
        if own is not None:
            return_to_rome(st, own)
            disband(st, own)
        secondaries.append(sid)
        ctx.emit("secondary", senator=sid, joins=True)
    if ex_moh is not None:
        secondaries.append(ex_moh)
    all_rebels = [primary] + secondaries
    deserters = []
    for lid, lg in sorted(st["legions"].items(), key=lambda kv: int(kv[0])):  # R4.5
        if (lg["veteran"] and lg["allegiance"] in all_rebels and lg["location"] != "pool"
                and lg["location"] != "rebel_army"):
            lg["location"] = "rebel_army"
            deserters.append(lid)
    if deserters:
        ctx.emit("veterans_desert", legions=deserters)
    for sid in all_rebels:
        make_rebel(ctx, sid)
    st["civil_war"] = {
        "primary_rebel": primary, "secondary_rebels": sorted(secondaries, key=_k),
        "ex_moh": ex_moh, "declared_turn": st["turn"], "unprosecuted": False,
        "rebel_condition_met": None, "next_dispatch_index": 1,
    }
    ctx.emit("civil_war", primary_rebel=primary, faction=fid, secondary_rebels=secondaries,
             strength=rebel_strength(st))


def _k(s: str) -> tuple[int, str]:
    from pbem.games.ror.model import sid_key

    return sid_key(s)


def rebel_strength(st: State, primary_mil: int | None = None) -> int:
    """Rebel strength (R6.3): legion strength + min(Primary's MIL + ex-MoH's MIL, it)."""
    cw = st.get("civil_war")
    if not cw:
        return 0
    mil = military(st, cw["primary_rebel"]) if primary_mil is None else primary_mil
    ex = cw.get("ex_moh")
    if ex and sen(st, ex)["alive"] and sen(st, ex)["location"] != "captive":
        mil += military(st, ex)
    return strength_with(st, legions_at(st, "rebel_army"), mil)


def revolt_fails(ctx: Ctx, reason: str, *, victor_army: str | None = None,
                 primary_survives: bool = False) -> None:
    """R4.9: the Secondary Rebels die, rebel legions go to Active Forces, the civil war ends,
    and Senate armies facing the rebel without a Victory come home."""
    st = ctx.state
    cw = st["civil_war"]
    if cw is None:
        return
    primary = cw["primary_rebel"]
    garrisons = []
    if st["options"]["ror.ruleset"] == "1.07A":  # D7
        for sid in [primary] + cw["secondary_rebels"]:
            for o in sen(st, sid)["offices"]:
                if o.startswith("governor:"):
                    garrisons.append("garrison:" + o.split(":", 1)[1])
    for sid in list(cw["secondary_rebels"]):
        kill(ctx, sid, "R4.9 failed revolt")
    prec = sen(st, primary)
    if not cw.get("primary_dead"):
        if primary_survives:
            prec["markers"].remove("rebel")
            if not any(o.startswith("governor:") for o in prec["offices"]):
                prec["location"] = "rome"
        else:
            kill(ctx, primary, "R4.9 failed revolt")
    back = legions_at(st, "rebel_army")
    for g in garrisons:
        back += legions_at(st, g)
    for lid in back:
        st["legions"][lid]["location"] = "active_forces"
    for _fid, fl in st["fleets"].items():
        if fl["location"] == "rebel_army":
            fl["location"] = "active_forces"
    for a in [a for a in st["armies"] if a["target"] == "civil_war" and a["id"] != victor_army]:
        return_to_rome(st, a)
        disband(st, a)
    for rec in st["senators"].values():
        if "rebel" in rec["markers"] and rec["alive"] and is_aligned(rec):
            rec["markers"].remove("rebel")
            rec["location"] = "rome"
    st["civil_war"] = None
    ctx.emit("revolt_failed", primary_rebel=primary, reason=reason, legions_to_active_forces=back)


def check_primary(ctx: Ctx, reason: str) -> None:
    """After a death outside battle: a dead Primary Rebel makes the revolt fail (R4.9)."""
    cw = ctx.state.get("civil_war")
    if cw and cw.get("primary_dead") and not cw.get("rebel_condition_met"):
        revolt_fails(ctx, reason)

