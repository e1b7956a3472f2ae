"""Scenario states: filling defaults and checking a state file (R1).

Scenario files and cases may leave out whatever takes its default: a senator given only a
faction gets his printed values, a family card not mentioned lies in the deck, a legion not
mentioned is in the pool. ``normalize_state`` returns the complete state, or raises one
DataError listing every problem.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pbem.common.safeyaml import load_yaml_file
from pbem.data import seeds_dir
from pbem.errors import DataError
from pbem.games.ror.model import (
    ERAS,
    NUM_FLEETS,
    NUM_LEGIONS,
    PHASES,
    ZONES,
    State,
    card_data,
    is_concession_id,
    is_statesman_id,
    number_of,
    resolve_options,
)

SENATOR_DEFAULTS: dict[str, Any] = {
    "family_under": None, "popularity": 0, "knights": 0, "talents": 0, "offices": [],
    "markers": [], "concessions": [], "faction": None, "location": "rome", "alive": True,
    "land_victory_this_turn": False,
}
WAR_DEFAULTS: dict[str, Any] = {
    "status": "active", "land": 0, "fleet_support": 0, "naval": 0, "disaster": [],
    "standoff": [], "matching_group": None, "matching_index": 1, "naval_victory": False,
    "leader": None,
}
GAME_DEFAULTS: dict[str, Any] = {
    "turn": 1, "phase": "revolution", "step": "start", "era": "early", "era_changes": {},
    "era_ends_turn": None, "state_treasury": 100, "state_income": 100, "state_other_debits": 0,
    "unrest": 0, "drought_effects": 0, "evil_omens_level": 0,
    "laws": {"military_reforms": False, "manilian_law": False}, "era_ends_revealed": False,
    "consul_for_life": None, "pending_wins": [], "game_result": None, "script": [],
    "forum_concessions": [], "discard": [], "wars": {}, "civil_war": None, "armies": [],
    "dice_log": [], "awaiting": None, "declaring": None, "last_round": None, "paid_this_turn": [], "name": "",
}
# R9.11: each script effect and the arguments it needs
SCRIPT_EFFECTS: dict[str, tuple[str, ...]] = {
    "war": ("id",), "army": ("commander",), "land_victory": ("commander",),
    "adjust": ("senator",), "office": ("senator", "office"), "treasury": ("delta",),
    "unrest": ("delta",), "evil_omens": ("level",), "drought": ("count",),
    "law": ("name", "in_play"), "family_appears": ("id",), "card_to_hand": ("faction", "card"),
    "kill": ("senator",), "consul_for_life": ("senator",), "people_revolt": (),
    "bankruptcy": (), "era_ends": (),
}
STEPS = ("start", "dispatch", "end", "endgame", "a", "b", "c", "d", "e")


def _senator(sid: str, given: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    data = card_data()
    printed = data.statesmen.get(sid) or data.family.get(sid)
    if printed is None:
        problems.append(f"senators.{sid}: no such senator card")
        printed = {"mil": 0, "ora": 0, "loy": 0, "influence": 0, "popularity": 0, "name": sid}
    rec: dict[str, Any] = {"id": sid, "name": printed["name"]}
    rec.update({k: printed[k] for k in ("mil", "ora", "loy")})
    rec["influence"] = printed["influence"]
    rec.update(copy.deepcopy(SENATOR_DEFAULTS))
    rec["popularity"] = printed.get("popularity", 0)
    if "name" in given and given["name"] != printed["name"]:
        problems.append(f"senators.{sid}.name: card {sid} is {printed['name']}, not "
                        f"{given['name']}")
    for k, v in given.items():
        rec[k] = copy.deepcopy(v)
    rec["id"] = sid
    if "zone" not in given:
        rec["zone"] = "faction" if rec["faction"] is not None else "forum"
    if rec["zone"] not in ZONES:
        problems.append(f"senators.{sid}.zone: '{rec['zone']}' is not one of {', '.join(ZONES)}")
    if rec["faction"] is not None:
        rec["faction"] = str(rec["faction"])
    if rec["zone"] != "faction" and rec["faction"] is not None:
        problems.append(f"senators.{sid}: only a senator in a faction has a faction")
    if not -9 <= int(rec["popularity"]) <= 9:
        problems.append(f"senators.{sid}.popularity: must lie between -9 and +9")
    for k in ("concessions",):
        rec[k] = [str(c) for c in rec[k]]
    if rec["family_under"] is not None:
        rec["family_under"] = str(rec["family_under"])
    return rec


def normalize_state(raw: dict[str, Any], options: dict[str, Any] | None = None) -> State:
    """A complete, checked state from a scenario or case state (defaults filled in)."""
    problems: list[str] = []
    data = card_data()
    st: State = copy.deepcopy(GAME_DEFAULTS)
    for k, v in raw.items():
        if k not in ("senators", "factions", "legions", "fleets", "wars", "armies", "options"):
            st[k] = copy.deepcopy(v)
    st["game"] = "ror"
    merged = dict(raw.get("options") or {})
    merged.update(options or {})
    try:
        st["options"] = resolve_options(merged)
    except DataError as exc:
        problems.extend(exc.problems)
        st["options"] = resolve_options({})
    if st["phase"] not in PHASES:
        problems.append(f"phase: '{st['phase']}' is not one of {', '.join(PHASES)}")
    if st["step"] not in STEPS:
        problems.append(f"step: '{st['step']}' is not one of {', '.join(STEPS)}")
    if st["era"] not in ERAS:
        problems.append(f"era: '{st['era']}' is not one of {', '.join(ERAS)}")
    st["era_changes"] = {str(k): v for k, v in (st["era_changes"] or {}).items()}
    st["laws"] = {"military_reforms": False, "manilian_law": False, **(st["laws"] or {})}

    # factions (R1.4)
    factions: dict[str, Any] = {}
    for fid, f in (raw.get("factions") or {}).items():
        fid = str(fid)
        factions[fid] = {
            "id": fid, "player": str(f.get("player", fid.lower())),
            "hand": [str(c) for c in f.get("hand", [])],
            "faction_treasury": int(f.get("faction_treasury", 0)),
            "standing": copy.deepcopy(f.get("standing", {})),
        }
    st["factions"] = factions
    if "seating" not in raw:
        st["seating"] = list(factions)
    st["seating"] = [str(s) for s in st["seating"]]
    if sorted(st["seating"]) != sorted(factions):
        problems.append("seating: must list every faction exactly once")

    # senators (R1.3): every family card has a record unless stacked under a Statesman
    senators: dict[str, Any] = {}
    for sid, given in (raw.get("senators") or {}).items():
        senators[str(sid)] = _senator(str(sid), dict(given or {}), problems)
    under = {r["family_under"] for r in senators.values() if r["family_under"]}
    for sid, rec in senators.items():
        if is_statesman_id(sid) and rec["family_under"] not in (None, number_of(sid)):
            problems.append(f"senators.{sid}.family_under: must be {number_of(sid)} or null")
        if rec["family_under"] and rec["family_under"] in senators:
            problems.append(f"senators.{sid}: family {rec['family_under']} is under him and "
                            "cannot also have a record")
        if rec["faction"] is not None and rec["faction"] not in factions:
            problems.append(f"senators.{sid}.faction: no faction '{rec['faction']}'")
        for c in rec["concessions"]:
            if not is_concession_id(c):
                problems.append(f"senators.{sid}.concessions: '{c}' is not a concession")
    for fam in data.family:
        if fam not in senators and fam not in under:
            senators[fam] = _senator(fam, {"zone": "deck", "alive": False}, problems)
    st["senators"] = senators

    # forces (R1.5)
    legions: dict[str, Any] = {}
    for i in range(1, NUM_LEGIONS + 1):
        legions[str(i)] = {"veteran": False, "allegiance": None, "location": "pool"}
    for lid, lg in (raw.get("legions") or {}).items():
        if str(lid) not in legions:
            problems.append(f"legions.{lid}: legions are numbered 1-{NUM_LEGIONS}")
            continue
        if isinstance(lg, str):
            lg = {"location": lg}
        legions[str(lid)].update(copy.deepcopy(lg))
        al = legions[str(lid)]["allegiance"]
        legions[str(lid)]["allegiance"] = None if al is None else str(al)
        if al is not None and not legions[str(lid)]["veteran"]:
            problems.append(f"legions.{lid}: only a veteran has an allegiance (R1.5)")
    fleets: dict[str, Any] = {f"F{i}": {"location": "pool"} for i in range(1, NUM_FLEETS + 1)}
    for fid, fl in (raw.get("fleets") or {}).items():
        if str(fid) not in fleets:
            problems.append(f"fleets.{fid}: fleets are F1-F{NUM_FLEETS}")
            continue
        fleets[str(fid)].update({"location": fl} if isinstance(fl, str) else fl)
    armies = []
    for i, a in enumerate(raw.get("armies") or []):
        a = dict(a)
        cmd = None if a.get("commander") is None else str(a["commander"])
        aid = str(a.get("id", cmd))
        rec = {
            "id": aid, "commander": cmd,
            "master_of_horse": None if a.get("master_of_horse") is None
            else str(a["master_of_horse"]),
            "target": a.get("target"), "dispatch_index": a.get("dispatch_index"),
            "reinforced_turn": a.get("reinforced_turn"), "dispatched_turn": a.get("dispatched_turn"),
        }
        for lid in a.get("legions", []):
            if str(lid) in legions:
                legions[str(lid)]["location"] = f"army:{aid}"
            else:
                problems.append(f"armies[{i}].legions: no legion {lid}")
        for fid in a.get("fleets", []):
            if str(fid) in fleets:
                fleets[str(fid)]["location"] = f"army:{aid}"
            else:
                problems.append(f"armies[{i}].fleets: no fleet {fid}")
        if cmd is not None and cmd not in senators:
            problems.append(f"armies[{i}].commander: no senator {cmd}")
        armies.append(rec)
    st["legions"], st["fleets"], st["armies"] = legions, fleets, armies
    army_ids = {a["id"] for a in armies}
    for kind, units in (("legions", legions), ("fleets", fleets)):
        for uid, u in units.items():
            loc = u["location"]
            if loc.startswith("army:") and loc[5:] not in army_ids:
                problems.append(f"{kind}.{uid}.location: no army '{loc[5:]}'")
            elif not (loc in ("pool", "active_forces", "rebel_army") or loc.startswith(
                    ("army:", "garrison:"))):
                problems.append(f"{kind}.{uid}.location: '{loc}' is not a place for units")

    # wars (R1.6)
    wars = {}
    for wid, w in (raw.get("wars") or {}).items():
        rec = copy.deepcopy(WAR_DEFAULTS)
        rec.update(copy.deepcopy(w or {}))
        rec["id"] = str(wid)
        if rec["status"] not in ("inactive", "imminent", "active", "unprosecuted", "defeated"):
            problems.append(f"wars.{wid}.status: '{rec['status']}' is not a war status")
        wars[str(wid)] = rec
    st["wars"] = wars
    cw = st.get("civil_war")
    if cw:
        full = {"primary_rebel": None, "secondary_rebels": [], "ex_moh": None,
                "declared_turn": st["turn"], "unprosecuted": False, "rebel_condition_met": None,
                "next_dispatch_index": 1}
        full.update(cw)
        full["primary_rebel"] = str(full["primary_rebel"])
        full["secondary_rebels"] = [str(s) for s in full["secondary_rebels"]]
        st["civil_war"] = full
        if full["primary_rebel"] not in senators:
            problems.append("civil_war.primary_rebel: no such senator")
    for fid, f in factions.items():
        for c in f["hand"]:
            if not (is_statesman_id(c) or is_concession_id(c) or c.startswith(("intrigue", "law"))):
                problems.append(f"factions.{fid}.hand: unknown card '{c}'")
    for i, entry in enumerate(st["script"] or []):
        where = f"script[{i}]"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be a mapping {{turn, phase, effect, args}}")
            continue
        effect, args = entry.get("effect"), entry.get("args") or {}
        if effect not in SCRIPT_EFFECTS:
            problems.append(f"{where}.effect: '{effect}' is not one of "
                            f"{', '.join(SCRIPT_EFFECTS)}")
        elif not isinstance(args, dict):
            problems.append(f"{where}.args: must be a mapping")
        else:
            for key in SCRIPT_EFFECTS[effect]:
                if key not in args:
                    problems.append(f"{where}.args: '{effect}' needs '{key}'")
        if entry.get("phase") not in PHASES or not isinstance(entry.get("turn"), int):
            problems.append(f"{where}: needs a whole-number 'turn' and a 'phase' of "
                            f"{', '.join(PHASES)}")
    if problems:
        raise DataError("the state is not valid", problems)
    return st


@cache
def _scenario_files() -> dict[str, str]:
    base = seeds_dir() / "ror" / "scenarios"
    return {p.stem: str(p) for p in sorted(base.glob("*.yaml"))}


def scenario_names() -> tuple[str, ...]:
    """Scenarios shipped under ``seeds/ror/scenarios``."""
    return tuple(_scenario_files())


@cache
def _scenario_raw(name: str) -> dict[str, Any]:
    files = _scenario_files()
    if name not in files:
        raise DataError(f"unknown scenario '{name}'; known: {', '.join(files)}")
    data = load_yaml_file(files[name])
    if not isinstance(data, dict) or not isinstance(data.get("state"), dict):
        raise DataError(f"scenario {name}: needs a 'state' mapping")
    return data


def load_scenario(name: str, options: dict[str, Any] | None = None) -> State:
    """The complete state of scenario ``name``, options applied."""
    raw = _scenario_raw(name)
    st = normalize_state(raw["state"], options)
    st["scenario"] = name
    return st
