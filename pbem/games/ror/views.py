"""What each audience may see (R8.7): the only road from state to a report."""

from __future__ import annotations

import copy
from typing import Any

from pbem.games.ror.civil_war import rebel_strength, strength_with
from pbem.games.ror.model import (
    State,
    active_war_count,
    army_fleets,
    army_legions,
    card_data,
    hrao,
    legion_strength,
    legions_at,
    military,
    sid_key,
)

# the rule id of each step of the sequence of play (R1.2 `step`)
STEP_RULES = {
    ("mortality", "start"): "R9.2", ("revenue", "start"): "R9.5", ("forum", "start"): "R9.6",
    ("population", "start"): "R9.7", ("senate", "start"): "R9.8", ("senate", "dispatch"): "R9.9",
    ("senate", "end"): "R9.9", ("combat", "start"): "R6.1", ("combat", "end"): "R9.10",
    ("revolution", "start"): "R2.1", ("revolution", "a"): "R2.1a", ("revolution", "b"): "R2.1b",
    ("revolution", "c"): "R2.1c", ("revolution", "d"): "R2.1d", ("revolution", "e"): "R2.1e",
}

PUBLIC_SENATOR_KEYS = (
    "id", "name", "family_under", "mil", "ora", "loy", "influence", "popularity", "knights",
    "talents", "offices", "markers", "concessions", "faction", "zone", "location", "alive",
    "land_victory_this_turn",
)


def names(st: State) -> dict[str, str]:
    """The name of every senator the state has a record of, the dead included, so a report
    names a senator who died later in the round it tells (a Statesman still in a hand has no
    record, R1.8, and stays unnamed)."""
    data = card_data()
    printed = {**data.family, **data.statesmen}
    return {sid: str(r.get("name") or (printed.get(sid) or {}).get("name") or sid)
            for sid, r in sorted(st["senators"].items(), key=lambda kv: sid_key(kv[0]))}


def view(st: State, audience: str) -> dict[str, Any]:
    """``public``, or one seat: that seat's hands, treasuries and standing orders are added.

    Hands and Faction Treasuries are secret until the game ends (R8.7); every senator's
    Talents, offices and markers are public, and so is every draw.
    """
    over = st.get("game_result") is not None
    hsid, hfaction = hrao(st)
    senators = {
        sid: {k: copy.deepcopy(r[k]) for k in PUBLIC_SENATOR_KEYS}
        for sid, r in sorted(st["senators"].items(), key=lambda kv: sid_key(kv[0]))
        if r["zone"] in ("faction", "forum") and r["alive"]
    }
    factions = {}
    for fid in st["seating"]:
        f = st["factions"][fid]
        mine = f["player"] == audience
        members = [s for s, r in senators.items() if r["faction"] == fid and r["zone"] ==
                   "faction"]
        entry: dict[str, Any] = {
            "id": fid, "player": f["player"], "hand_size": len(f["hand"]),
            "senators": members,
            "influence": sum(senators[s]["influence"] for s in members),
            "votes": sum(senators[s]["ora"] + senators[s]["knights"] for s in members
                         if senators[s]["location"] == "rome"
                         and "rebel" not in senators[s]["markers"]),
        }
        if mine or over:
            entry["hand"] = list(f["hand"])
            entry["faction_treasury"] = f["faction_treasury"]
        if mine:
            entry["standing"] = copy.deepcopy(f["standing"])
        factions[fid] = entry
    armies = []
    for a in st["armies"]:
        lids = army_legions(st, a)
        mil = military(st, a["commander"])
        if a["master_of_horse"] and a["commander"] and "dictator" in st["senators"][
                a["commander"]]["offices"]:
            mil += military(st, a["master_of_horse"])
        armies.append({**copy.deepcopy(a), "legions": lids, "fleets": army_fleets(st, a),
                       "legion_strength": legion_strength(st, lids),
                       "strength": strength_with(st, lids, mil)})  # R6.3, Pompey as 2
    cw = copy.deepcopy(st.get("civil_war"))
    if cw:
        cw["legions"] = legions_at(st, "rebel_army")
        cw["strength"] = rebel_strength(st)
    rnd = st.get("last_round")  # the round whose resolution produced this state
    return {
        "game": "ror", "audience": audience, "scenario": st.get("scenario"),
        "turn": st["turn"], "phase": st["phase"], "step": st["step"], "era": st["era"],
        "step_rule": "R7.6" if st["step"] == "endgame" else STEP_RULES.get(
            (st["phase"], st["step"])),
        "round": (st.get("awaiting") or {}).get("round"),
        "awaiting": copy.deepcopy(st.get("awaiting")),
        "seating": list(st["seating"]), "hrao": hsid, "hrao_faction": hfaction,
        "state_treasury": st["state_treasury"], "state_income": st["state_income"],
        "unrest": st["unrest"], "evil_omens_level": st["evil_omens_level"],
        "laws": dict(st["laws"]), "era_ends_turn": st.get("era_ends_turn"),
        "era_ends_revealed": st["era_ends_revealed"], "options": dict(st["options"]),
        "senators": senators, "factions": factions, "names": names(st),
        "offices": {o: sid for sid, r in senators.items() if r["zone"] == "faction"
                    for o in sorted(r["offices"])},
        "curia": sorted((s for s, r in st["senators"].items() if r["zone"] == "curia"),
                        key=sid_key),
        "forum_concessions": list(st["forum_concessions"]), "discard": list(st["discard"]),
        "legions": copy.deepcopy(st["legions"]), "fleets": copy.deepcopy(st["fleets"]),
        "active_forces": legions_at(st, "active_forces"), "armies": armies,
        "wars": copy.deepcopy(st["wars"]), "active_wars": active_war_count(st),
        "civil_war": cw, "declaring": copy.deepcopy(st.get("declaring")),
        "consul_for_life": copy.deepcopy(st.get("consul_for_life")),
        "pending_wins": copy.deepcopy(st["pending_wins"]),
        "result": copy.deepcopy(st.get("game_result")),
        "last_round": rnd,
        "dice": [d for d in st["dice_log"] if d["round"] == rnd] if rnd else [],
    }
