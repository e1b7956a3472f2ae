"""The rebel's end game (R7.6-R7.8): the wars he fights, in his ATTACK order, and how it ends.

The end game opens from ``victory.settle_rebel`` (R7.6); its battles use the civil war's
combat helpers (R6) and it ends through ``victory.finish`` and ``victory.all_lose``.
"""

from __future__ import annotations

from typing import Any

from pbem.games.ror.civil_war import revolt_fails, strength_with
from pbem.games.ror.combat import ability, battle_mil, halve, lose_units, new_veterans
from pbem.games.ror.model import (
    Ctx,
    State,
    active_war_count,
    crt,
    fleets_at,
    legions_at,
    military,
    sen,
)
from pbem.games.ror.mortality import draw_chits
from pbem.games.ror.victory import all_lose, finish


def group_size(st: State, w: dict[str, Any]) -> int:
    """Active or unprosecuted wars of ``w``'s matching group (at least 1, R7.7)."""
    g = w.get("matching_group")
    if not g:
        return 1
    n = sum(1 for x in st["wars"].values()
            if x.get("matching_group") == g and x["status"] in ("active", "unprosecuted"))
    return max(1, n)


def effective(st: State, w: dict[str, Any], kind: str) -> int:
    """Effective land or naval strength of a war (R7.7)."""
    lead = w.get("leader") or {}
    return int(w[kind]) * group_size(st, w) + int(lead.get("strength", 0))


def cancels(sid: str | None, w: dict[str, Any]) -> bool:
    """A Statesman whose ability cancels this war's own D/S numbers (R7.7)."""
    for c in ability(sid, "cancels_ds") or []:
        if c.get("group") == w.get("matching_group") and (
                "index" not in c or c["index"] == w.get("matching_index")):
            return True
    return False


def endgame_battle(ctx: Ctx, w: dict[str, Any], naval: bool) -> str:
    """One end-game battle (R7.7, R7.8); returns victory, or what ended the game."""
    st = ctx.state
    cw = st["civil_war"]
    primary, ex_moh = cw["primary_rebel"], cw["ex_moh"]
    mil = battle_mil(ctx, primary)
    if ex_moh and sen(st, ex_moh)["alive"] and sen(st, ex_moh)["location"] != "captive":
        mil += military(st, ex_moh)
    lids = legions_at(st, "rebel_army")
    fids = fleets_at(st, "rebel_army")
    if naval:
        roman = len(fids) + min(mil, len(fids))
        enemy = effective(st, w, "naval")
    else:
        roman = strength_with(st, lids, mil)
        enemy = effective(st, w, "land")
    dice = ctx.dice.dice(3, f"R7.7 {w['id']} 3d6")
    natural = sum(dice)
    own_dis = [] if cancels(primary, w) else list(w.get("disaster") or [])
    own_sta = [] if cancels(primary, w) else list(w.get("standoff") or [])
    lead = w.get("leader") or {}
    disaster = own_dis + list(lead.get("disaster") or [])
    standoff = own_sta + list(lead.get("standoff") or [])
    total = natural + roman - enemy - int(st["evil_omens_level"])
    if natural in disaster:
        result, losses = "disaster", None
    elif natural in standoff:
        result, losses = "standoff", None
    else:
        result, losses = crt(total)
    ctx.emit("endgame_battle", war=w["id"], naval=naval, dice=dice, natural=natural,
             rebel_mil=mil, rolled_mil=[primary] if ability(primary, "battle_mil") else [],
             rebel_strength=roman, war_strength=enemy, omens=int(st["evil_omens_level"]),
             total=total, result=result, disaster=sorted(set(disaster)),
             standoff=sorted(set(standoff)), cancelled=cancels(primary, w),
             crt_losses=losses if result == "victory" else None)
    if result != "victory":
        return result
    n = halve(losses or 0, primary)
    lost_l = lose_units(ctx, lids, n, "R7.8 legion loss")
    lost_f = lose_units(ctx, fids, n, "R7.8 fleet loss", fleets=True)
    draw_chits(ctx, len(lost_l) + len(lost_f), "R7.8",
               lambda sid: sid in {primary, ex_moh})
    if naval:
        w["naval_victory"] = True
    else:
        new_veterans(ctx, legions_at(st, "rebel_army"), primary, "R7.8 veteran")
        w["status"] = "defeated"
    return "victory"


def default_attack(st: State) -> list[str]:
    """R8.4 ATTACK default: ascending effective land strength, ties to the lower id, each
    war's earlier matching wars first."""
    wars = [w for w in st["wars"].values() if w["status"] in ("active", "unprosecuted")]
    wars.sort(key=lambda w: (effective(st, w, "land"), w["id"]))
    out: list[str] = []
    for w in wars:
        earlier = sorted((x for x in wars if x.get("matching_group") and x["matching_group"]
                          == w.get("matching_group") and x["matching_index"] < w["matching_index"]),
                         key=lambda x: x["matching_index"])
        for x in earlier + [w]:
            if x["id"] not in out:
                out.append(x["id"])
    return out


def can_attack(st: State, w: dict[str, Any]) -> str | None:
    """Why the rebel cannot attack war ``w`` now (R7.6, R7.7), or None."""
    if w["status"] not in ("active", "unprosecuted"):
        return "not an active war"
    g = w.get("matching_group")
    if g:
        for x in st["wars"].values():
            if (x.get("matching_group") == g and x["matching_index"] < w["matching_index"]
                    and x["status"] in ("active", "unprosecuted")):
                return f"war {x['id']} of its series comes first"
    if not legions_at(st, "rebel_army"):
        return "no legion left"
    if len(fleets_at(st, "rebel_army")) < int(w["fleet_support"]):
        return "not enough fleets"
    return None


def run_endgame(ctx: Ctx, attack: list[str]) -> None:
    """R7.6-R7.8: the rebel fights wars in his ATTACK order until fewer than 4 remain."""
    st = ctx.state
    cw = st["civil_war"]
    primary = cw["primary_rebel"]
    faction = sen(st, primary)["faction"]
    for wid in attack:
        if active_war_count(st, include_civil_war=False) < 4:
            break
        w = st["wars"].get(str(wid))
        why = "no such war" if w is None else can_attack(st, w)
        if why or w is None:
            ctx.emit("attack_skipped", war=wid, reason=why)
            continue
        for naval in ([True] if int(w["naval"]) > 0 and not w["naval_victory"] else []) + [False]:
            if not naval and can_attack(st, w):
                break
            res = endgame_battle(ctx, w, naval)
            if res != "victory":
                all_lose(ctx, "L4")
                return
            if cw.get("primary_dead"):
                break
        if cw.get("primary_dead"):
            break
    if active_war_count(st, include_civil_war=False) < 4:
        if not cw.get("primary_dead") or st["options"]["ror.ruleset"] != "1.07A":
            finish(ctx, "win", cw["rebel_condition_met"], faction, primary)
            return
        _d3(ctx)
        return
    all_lose(ctx, "L4")


def _d3(ctx: Ctx) -> None:
    """1.07A D3: a rebel dead in the last battle does not win; a living Consul for Life wins,
    else the revolt fails and play continues."""
    st = ctx.state
    cfl = st.get("consul_for_life")
    if cfl and not cfl.get("dead"):
        finish(ctx, "win", 4, sen(st, cfl["senator"])["faction"], cfl["senator"])
        return
    st["pending_wins"] = [w for w in st["pending_wins"] if w["condition"] not in (1, 2)]
    revolt_fails(ctx, "D3 the rebel died in the last battle")
    resume = st.pop("endgame_resume", None) or {"phase": st["phase"], "step": "end"}
    st["phase"], st["step"] = resume["phase"], "end"
