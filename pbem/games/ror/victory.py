"""Victory, collective loss and when each is checked (R7)."""

from __future__ import annotations

from typing import Any

from pbem.games.ror.model import (
    Ctx,
    State,
    active_war_count,
    clockwise_from,
    hrao,
    is_aligned,
    is_in_rome,
    is_rebel,
    legions_at,
    primary_alive,
    sen,
    senators_sorted,
    sid_key,
    votes,
)

CFL_INFLUENCE = 35


def finish(ctx: Ctx, outcome: str, condition: Any, faction: str | None = None,
           senator: str | None = None) -> None:
    """Write the final ``game_result`` (R7.1): the game ends."""
    st = ctx.state
    if st["game_result"] is not None:
        return
    result = {"outcome": outcome, "condition": condition, "faction": faction,
              "senator": senator, "turn": st["turn"], "phase": st["phase"]}
    st["game_result"] = result
    st["awaiting"] = None
    ctx.emit("game_end", **result)


def all_lose(ctx: Ctx, code: str) -> None:
    """A collective loss (R7.3): everyone loses; it overrides every pending win."""
    finish(ctx, "all_lose", code)


def add_pending(ctx: Ctx, condition: int, faction: str | None, senator: str | None) -> None:
    """Record a winning condition met (R7.1)."""
    st = ctx.state
    rec = {"condition": condition, "faction": faction, "senator": senator, "turn": st["turn"],
           "phase": st["phase"]}
    st["pending_wins"].append(rec)
    ctx.emit("pending_win", **rec)


def best_pending(st: State, allowed: tuple[int, ...]) -> dict[str, Any] | None:
    """The highest pending condition among ``allowed`` (1 is highest), earliest first."""
    cands = [w for w in st["pending_wins"] if w["condition"] in allowed]
    if not cands:
        return None
    return min(cands, key=lambda w: w["condition"])


def rebel_meets(ctx: Ctx, condition: int, reason: str) -> None:
    """The rebel meets condition 1 or 2 (R7.2). Condition 2 is settled at once (after R7.6);
    condition 1 at the end of its Combat Phase (R9.10)."""
    st = ctx.state
    cw = st["civil_war"]
    if cw is None or cw.get("rebel_condition_met"):
        return
    cw["rebel_condition_met"] = condition
    primary = cw["primary_rebel"]
    add_pending(ctx, condition, sen(st, primary)["faction"], primary)
    ctx.emit("rebel_condition", condition=condition, reason=reason)
    if condition == 2:
        settle_rebel(ctx)


def settle_rebel(ctx: Ctx) -> bool:
    """R7.6: with >= 4 Active Wars besides the civil war the end game opens; otherwise the
    rebel's pending condition becomes final. Returns True if the end game opened."""
    st = ctx.state
    cw = st["civil_war"]
    if active_war_count(st, include_civil_war=False) >= 4:
        start_endgame(ctx)
        return True
    primary = cw["primary_rebel"]
    finish(ctx, "win", cw["rebel_condition_met"], sen(st, primary)["faction"], primary)
    return False


def start_endgame(ctx: Ctx) -> None:
    """R7.6: the rebel gathers every legion in Active Forces and every fleet not in the pool
    (1.07A D4: every non-Garrison legion first returns to Active Forces)."""
    st = ctx.state
    if st["options"]["ror.ruleset"] == "1.07A":
        for a in list(st["armies"]):
            for lid in legions_at(st, f"army:{a['id']}"):
                st["legions"][lid]["location"] = "active_forces"
    for lid in legions_at(st, "active_forces"):
        st["legions"][lid]["location"] = "rebel_army"
    for fl in st["fleets"].values():
        if fl["location"] != "pool":
            fl["location"] = "rebel_army"
    primary = st["civil_war"]["primary_rebel"]
    faction = sen(st, primary)["faction"]
    st["endgame_resume"] = {"phase": st["phase"], "step": st["step"]}
    st["step"] = "endgame"
    st["awaiting"] = {"round": f"T{st['turn']}/endgame", "kind": "endgame",
                      "powers": [faction]}
    ctx.emit("endgame", primary_rebel=primary, faction=faction,
             active_wars=active_war_count(st, include_civil_war=False))


def check_consul_for_life(ctx: Ctx) -> None:
    """R7.2 condition 3: an aligned non-rebel senator in Rome with >= 35 Influence becomes
    Consul for Life at once, unless Military Reforms is in play or one exists (an elected one of
    this turn loses the title to him)."""
    st = ctx.state
    if st["game_result"] is not None or st["laws"].get("military_reforms"):
        return
    cfl = st.get("consul_for_life")
    if cfl and not (cfl.get("how") == "elected" and cfl.get("turn") == st["turn"]):
        return
    cands = senators_sorted(st, lambda r: is_in_rome(r) and r["influence"] >= CFL_INFLUENCE)
    if not cands:
        return

    def faction_inf(sid: str) -> int:
        f = sen(st, sid)["faction"]
        return sum(int(r["influence"]) for r in st["senators"].values()
                   if is_aligned(r) and r["faction"] == f)

    top = max(sen(st, s)["influence"] for s in cands)
    cands = [s for s in cands if sen(st, s)["influence"] == top]
    if len(cands) > 1:
        best = max(faction_inf(s) for s in cands)
        cands = [s for s in cands if faction_inf(s) == best]
    # roll-off (R8.1): 2d6 per tied faction clockwise from the HRAO's (then by senator), rerolled
    # on ties
    order = clockwise_from(st, hrao(st)[1])
    cands.sort(key=lambda s: (order.index(sen(st, s)["faction"]), sid_key(s)))
    while len(cands) > 1:
        rolls = {s: sum(ctx.dice.dice(2, f"R7.2 roll-off {s}")) for s in cands}
        hi = max(rolls.values())
        cands = [s for s in cands if rolls[s] == hi]
    sid = cands[0]
    if cfl:
        ctx.emit("consul_for_life_lost", senator=cfl["senator"], reason="R7.2 appointment")
        st["pending_wins"] = [w for w in st["pending_wins"] if w["condition"] != 4]
    st["consul_for_life"] = {"senator": sid, "how": "appointed", "turn": st["turn"]}
    ctx.emit("consul_for_life", senator=sid, how="appointed")
    add_pending(ctx, 3, sen(st, sid)["faction"], sid)


def elect_consul_for_life(ctx: Ctx, sid: str) -> None:
    """R7.2 condition 4: an election (script effect) of a nominee with >= 21 Influence."""
    st = ctx.state
    rec = st["senators"].get(sid)
    if (rec is None or not is_aligned(rec) or is_rebel(rec) or rec["influence"] < 21
            or st.get("consul_for_life") or st["laws"].get("military_reforms")):
        ctx.emit("script_void", effect="consul_for_life", senator=sid, why="cannot_be_elected")
        return
    st["consul_for_life"] = {"senator": sid, "how": "elected", "turn": st["turn"]}
    ctx.emit("consul_for_life", senator=sid, how="elected")
    add_pending(ctx, 4, rec["faction"], sid)


def people_revolt(ctx: Ctx) -> None:
    """A People Revolt: condition 2 while a Primary Rebel lives, else L2 (R7.2, R7.3)."""
    ctx.emit("people_revolt")
    if primary_alive(ctx.state) and not ctx.state["civil_war"].get("rebel_condition_met"):
        rebel_meets(ctx, 2, "People Revolt")
    elif not primary_alive(ctx.state):
        all_lose(ctx, "L2")


def bankruptcy(ctx: Ctx) -> None:
    """The State cannot pay: condition 2 while a Primary Rebel lives, else L3."""
    ctx.emit("bankruptcy")
    ctx.state["state_treasury"] = 0
    if primary_alive(ctx.state) and not ctx.state["civil_war"].get("rebel_condition_met"):
        rebel_meets(ctx, 2, "bankruptcy")
    elif not primary_alive(ctx.state):
        all_lose(ctx, "L3")


def four_wars(ctx: Ctx) -> bool:
    """L1 (R7.3): four or more Active Wars; True if everyone lost."""
    st = ctx.state
    n = active_war_count(st)
    if n >= 4:
        wars = [f"{w['id']}" for w in sorted(st["wars"].values(), key=lambda w: str(w["id"]))
                if w["status"] in ("active", "unprosecuted")]
        if n > len(wars):
            wars.append("civil_war")
        ctx.emit("four_wars", count=n, wars=wars,
                 unprosecuted=sorted(str(w["id"]) for w in st["wars"].values()
                                     if w["status"] == "unprosecuted"))
        all_lose(ctx, "L1")
        return True
    return False


def end_of_turn(ctx: Ctx) -> None:
    """R7.5: the L1 count under ``combat_and_turn_end``, then the highest pending win."""
    st = ctx.state
    if ctx.opt("ror.four_wars_check") == "combat_and_turn_end" and four_wars(ctx):
        return
    if st["options"]["ror.ruleset"] == "1.07A":  # D1: a Consul for Life alive and in office
        cfl = st.get("consul_for_life")
        if cfl and not cfl.get("dead"):
            finish(ctx, "win", 4, sen(st, cfl["senator"])["faction"], cfl["senator"])
            return
        st["pending_wins"] = [w for w in st["pending_wins"] if w["condition"] not in (3, 4)]
    best = best_pending(st, (1, 2, 3, 4))
    if best is not None:
        finish(ctx, "win", best["condition"], best["faction"], best["senator"])


def era_ends(ctx: Ctx) -> None:
    """R7.4: at the end of the Forum Phase that revealed Era Ends the game is settled."""
    st = ctx.state
    if st["options"]["ror.ruleset"] == "1.07A":  # D1 condition 3: a living Consul for Life
        cfl = st.get("consul_for_life")
        if cfl and not cfl.get("dead"):
            finish(ctx, "win", 5, sen(st, cfl["senator"])["faction"], cfl["senator"])
            return
    else:
        best = best_pending(st, (3, 4))
        if best is not None:
            finish(ctx, "win", best["condition"], best["faction"], best["senator"])
            return
    totals: dict[str, int] = {}
    tops: dict[str, int] = {}
    vote: dict[str, int] = {}
    for fid in st["seating"]:
        members = [r for r in st["senators"].values() if is_aligned(r) and r["faction"] == fid
                   and not is_rebel(r) and r["location"] != "captive"]
        totals[fid] = sum(int(r["influence"]) for r in members)
        tops[fid] = max((int(r["influence"]) for r in members), default=0)
        vote[fid] = sum(votes(r) for r in members if is_in_rome(r))
    _, first = hrao(st)
    order = clockwise_from(st, first)
    cands = [f for f in order if totals[f] == max(totals.values())]
    how = "influence"
    for key, name in ((tops, "best senator"), (vote, "votes")):
        if len(cands) > 1:
            hi = max(key[f] for f in cands)
            cands = [f for f in cands if key[f] == hi]
            how = name
    while len(cands) > 1:  # 2d6 roll-off, rerolled on ties (R7.4)
        how = "roll-off"
        rolls = {f: sum(ctx.dice.dice(2, f"R7.4 roll-off {f}")) for f in cands}
        hi = max(rolls.values())
        cands = [f for f in cands if rolls[f] == hi]
    ctx.emit("era_ends", totals=totals, decided_by=how)
    finish(ctx, "win", 5, cands[0])
