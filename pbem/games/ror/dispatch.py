"""The Senate sends armies against the rebel (R9.9): who dispatches, who may command, consent,
raising legions, and the DISPATCH and REINFORCE orders with their defaults (R8.4)."""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.ror.civil_war import rebel_strength, strength_with
from pbem.games.ror.model import (
    Ctx,
    State,
    change_talents,
    cw_armies,
    hrao,
    is_aligned,
    is_in_rome,
    is_rebel,
    legions_at,
    military,
    new_army_id,
    office_holder,
    sen,
    senators_sorted,
)


def dispatcher(st: State) -> str:
    """The faction whose player sends DISPATCH (R9.9)."""
    cfl = st.get("consul_for_life")
    if cfl and not cfl.get("dead") and is_aligned(sen(st, cfl["senator"])):
        return str(sen(st, cfl["senator"])["faction"])
    rebel_faction = sen(st, st["civil_war"]["primary_rebel"])["faction"]
    _, f = hrao(st, exclude_faction=rebel_faction)
    return f


def can_command(st: State, sid: str) -> bool:
    """A Dictator, Field Consul or Rome Consul in Rome with no army (R9.9)."""
    rec = st["senators"].get(sid)
    return bool(rec and is_in_rome(rec) and any(
        o in rec["offices"] for o in ("dictator", "field_consul", "rome_consul")))


def moh_of(st: State, sid: str) -> str | None:
    """The Master of Horse who goes with a Dictator, if he is in Rome."""
    if "dictator" not in sen(st, sid)["offices"]:
        return None
    m = office_holder(st, "master_of_horse")
    return m if m and is_in_rome(sen(st, m)) else None


def consents(st: State, dispatcher_faction: str, sid: str, strength: int) -> bool:
    """R9.9 consent: own senator, CONSENT, the Consul for Life, or strength >= the rebel's."""
    f = sen(st, sid)["faction"]
    if f == dispatcher_faction:
        return True
    cfl = st.get("consul_for_life")
    if cfl and not cfl.get("dead") and sen(st, cfl["senator"])["faction"] == dispatcher_faction:
        return True
    c = st["factions"][f]["standing"].get("consent") or {}
    if c.get(sid) in (True, "yes"):
        return True
    return strength >= rebel_strength(st)


def default_dispatch(st: State) -> list[dict[str, Any]]:
    """R8.4: one army under the first of Dictator, Field Consul, Rome Consul who may be sent,
    with every legion in Active Forces."""
    lids = legions_at(st, "active_forces")
    if not lids or not st.get("civil_war"):
        return []
    d = dispatcher(st)
    for office in ("dictator", "field_consul", "rome_consul"):
        sid = office_holder(st, office)
        if sid is None or not can_command(st, sid):
            continue
        mil = military(st, sid) + military(st, moh_of(st, sid))
        if consents(st, d, sid, strength_with(st, lids, mil)):
            return [{"commander": sid, "legions": [int(x) for x in lids], "raise": 0}]
    return []


def raise_legions(ctx: Ctx, n: int) -> list[str]:
    """Raise up to ``n`` legions from the pool, lowest ids, 10T each (R9.9)."""
    st = ctx.state
    out = []
    for lid in legions_at(st, "pool")[: max(0, n)]:
        if st["state_treasury"] < 10:
            break
        change_talents(ctx, "state", -10, "R9.9 raise legion")
        st["legions"][lid]["location"] = "active_forces"
        ctx.emit("legion_raised", legion=lid)
        out.append(lid)
    if out:
        for sid in senators_sorted(st, lambda r: "armaments" in r["concessions"]):
            if is_aligned(sen(st, sid)) and not is_rebel(sen(st, sid)):
                change_talents(ctx, f"senator:{sid}", 2 * len(out), "R9.9 armaments")
    return out


def apply_dispatch(ctx: Ctx, d: str) -> None:
    """R9.9: the DISPATCH and REINFORCE entries of ``d``, the dispatcher's faction."""
    st = ctx.state
    orders = ctx.orders.get(d) or {}
    seat = ctx.seat(d)
    used: set[str] = set()
    cw = st["civil_war"]
    for key in ("dispatch", "reinforce"):
        for i, e in enumerate(orders.get(key) or []):
            path = f"orders.{d}.{key}[{i}]"
            if not isinstance(e, dict):
                continue
            who = str(e.get("commander" if key == "dispatch" else "proconsul"))
            lids = [str(x) for x in e.get("legions") or []]
            bad = [x for x in lids if x in used or st["legions"].get(x, {}).get("location")
                   != "active_forces"]
            if bad:
                ctx.emit("void", faction=d, power=d, path=path, order=path, audience=seat,
                         reason=N_("legion %(bad)s is not in Active Forces") % {"bad": bad[0]},
                         why={"code": "legion_not_in_active_forces", "args": {"legion": bad[0]}})
                continue
            if key == "dispatch":
                if not can_command(st, who) or any(a["commander"] == who for a in st["armies"]):
                    ctx.emit("void", faction=d, power=d, path=path, order=path, audience=seat,
                             reason=N_("%(who)s is not a Dictator or Consul in Rome") % {"who": who},
                             why={"code": "not_commander", "args": {"senator": who}})
                    continue
                n_raise = min(int(e.get("raise") or 0), len(legions_at(st, "pool")),
                              st["state_treasury"] // 10)
                moh = moh_of(st, who)
                mil = military(st, who) + military(st, moh)
                ls = strength_with(st, lids, 0) + n_raise
                strength = ls + min(mil, ls)
                if not lids and n_raise == 0:
                    ctx.emit("void", faction=d, power=d, path=path, order=path, audience=seat,
                             reason=N_("an army needs at least one legion"),
                             why={"code": "needs_legion", "args": {}})
                    continue
                if not consents(st, d, who, strength):
                    ctx.emit("void", faction=d, power=d, path=path, order=path, audience=seat,
                             reason=N_("faction %(faction)s does not consent to sending %(senator)s") % {"faction": sen(st, who)["faction"], "senator": who}, why={"code": "no_consent", "args": {
                                 "faction": sen(st, who)["faction"], "senator": who}})
                    continue
                lids = lids + raise_legions(ctx, n_raise)
                if not lids:
                    continue
                aid = new_army_id(st, who)
                st["armies"].append({"id": aid, "commander": who, "master_of_horse": moh,
                                     "target": "civil_war",
                                     "dispatch_index": cw["next_dispatch_index"],
                                     "reinforced_turn": None, "dispatched_turn": st["turn"]})
                cw["next_dispatch_index"] += 1
                sen(st, who)["location"] = "field"
                if moh:
                    sen(st, moh)["location"] = "field"
                for lid in lids:
                    st["legions"][lid]["location"] = f"army:{aid}"
                    used.add(lid)
                ctx.emit("dispatch", commander=who, legions=lids, army=aid,
                         dispatch_index=cw["next_dispatch_index"] - 1,
                         strength=strength_with(st, lids, mil), rebel_strength=rebel_strength(st))
            else:
                a = next((x for x in cw_armies(st) if x["commander"] == who), None)
                if a is None:
                    ctx.emit("void", faction=d, power=d, path=path, order=path, audience=seat,
                             reason=N_("%(who)s commands no army facing the rebel") % {"who": who},
                             why={"code": "no_army_facing", "args": {"senator": who}})
                    continue
                lids = lids + raise_legions(ctx, int(e.get("raise") or 0))
                for lid in lids:
                    st["legions"][lid]["location"] = f"army:{a['id']}"
                    used.add(lid)
                a["reinforced_turn"] = st["turn"]
                ctx.emit("reinforce", proconsul=who, legions=lids)
