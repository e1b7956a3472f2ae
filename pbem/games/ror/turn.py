"""The minimal rest of the turn (R9) and the sequence of play that runs between order rounds.

``advance`` runs every step that needs no orders and stops when the next round opens or the
game ends (R8.5); ``resolve_round`` applies the orders of the round that was waiting.
"""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.ror.civil_war import (
    check_primary,
    disband,
    return_to_rome,
    step_declarations,
)
from pbem.games.ror.combat import civil_war_battles, run_desertions
from pbem.games.ror.dispatch import apply_dispatch, dispatcher
from pbem.games.ror.endgame import default_attack, run_endgame
from pbem.games.ror.maintenance import rebel_maintenance
from pbem.games.ror.model import (
    PHASES,
    Ctx,
    State,
    Why,
    active_war_count,
    army_legions,
    card_data,
    change_talents,
    clockwise_from,
    cw_armies,
    hrao,
    is_aligned,
    is_in_rome,
    is_rebel,
    new_army_id,
    office_holder,
    sen,
    senators_sorted,
    transfer,
    why_data,
)
from pbem.games.ror.mortality import draw_chits, kill
from pbem.games.ror.orders import STANDING_KEYS, well_formed
from pbem.games.ror.revolution import (
    family_appears,
    step_hand_limit,
    step_plays,
    step_trading,
)
from pbem.games.ror.victory import (
    bankruptcy,
    check_consul_for_life,
    elect_consul_for_life,
    end_of_turn,
    era_ends,
    four_wars,
    people_revolt,
    settle_rebel,
)

# --------------------------------------------------------------------------- script (R9.11)


def apply_script(ctx: Ctx, phase: str) -> None:
    """Apply the script entries of this turn and phase, in list order (R1.9, R9.11)."""
    st = ctx.state
    for entry in st["script"]:
        if int(entry.get("turn", -1)) != int(st["turn"]) or entry.get("phase") != phase:
            continue
        if st["game_result"] is not None or st["awaiting"] is not None:
            return
        effect, args = entry.get("effect"), dict(entry.get("args") or {})
        if effect == "card_to_hand":  # the card drawn is secret (R8.7): only its owner sees it
            faction = str(args.get("faction"))
            ctx.emit("script", effect=effect, args={"faction": faction})
            ctx.emit("card_drawn", faction=faction, card=str(args.get("card")),
                     audience=ctx.seat(faction))
        else:
            ctx.emit("script", effect=effect, args=dict(args))  # _effect may pop from args
        _effect(ctx, str(effect), args)
        check_primary(ctx, "R9.11 script")
        check_consul_for_life(ctx)


def _effect(ctx: Ctx, effect: str, args: dict[str, Any]) -> None:
    st = ctx.state
    if effect == "war":
        wid = str(args.pop("id"))
        from pbem.games.ror.setup import WAR_DEFAULTS

        if args.pop("remove", False):
            st["wars"].pop(wid, None)
        else:
            w = st["wars"].setdefault(wid, {**WAR_DEFAULTS, "id": wid})
            w.update(args)
    elif effect == "army":
        cmd = str(args["commander"])
        rec = st["senators"].get(cmd)
        if rec is None or not is_aligned(rec) or is_rebel(rec) or any(
                a["commander"] == cmd for a in st["armies"]):
            ctx.emit("script_void", effect="army", senator=cmd, why="cannot_take_army")
            return
        aid = new_army_id(st, cmd)
        st["armies"].append({"id": aid, "commander": cmd,
                             "master_of_horse": args.get("master_of_horse"),
                             "target": args.get("target"), "dispatch_index": None,
                             "reinforced_turn": None, "dispatched_turn": st["turn"]})
        rec["location"] = "field"
        for lid in [str(x) for x in args.get("legions", [])]:
            where = st["legions"][lid]["location"]
            if where == "pool":
                ctx.emit("legion_raised", legion=lid, reason="R9.11 army")
            if where in ("pool", "active_forces"):
                st["legions"][lid]["location"] = f"army:{aid}"
        for fid in [str(x) for x in args.get("fleets", [])]:
            if st["fleets"][fid]["location"] in ("pool", "active_forces"):
                st["fleets"][fid]["location"] = f"army:{aid}"
    elif effect == "land_victory":
        cmd = str(args["commander"])
        a = next((x for x in st["armies"] if x["commander"] == cmd), None)
        if a is None:
            ctx.emit("script_void", effect="land_victory", senator=cmd, why="commands_no_army")
            return
        sen(st, cmd)["land_victory_this_turn"] = True
        if a["target"] in st["wars"]:
            st["wars"][a["target"]]["status"] = "defeated"
    elif effect == "adjust":
        rec = sen(st, str(args["senator"]))
        if not rec["alive"]:
            return
        rec["influence"] = max(0, rec["influence"] + int(args.get("influence", 0)))
        rec["popularity"] = max(-9, min(9, rec["popularity"] + int(args.get("popularity", 0))))
        rec["knights"] = max(0, rec["knights"] + int(args.get("knights", 0)))
        t = max(-rec["talents"], int(args.get("talents", 0)))
        change_talents(ctx, f"senator:{rec['id']}", t, "R9.11 adjust")
    elif effect == "office":
        rec = sen(st, str(args["senator"]))
        office = str(args["office"])
        if args.get("holds", True):
            holder = office_holder(st, office)
            if holder and not office.startswith("governor:"):
                sen(st, holder)["offices"].remove(office)
            if office not in rec["offices"]:
                rec["offices"].append(office)
        elif office in rec["offices"]:
            rec["offices"].remove(office)
    elif effect == "treasury":
        delta = int(args["delta"])
        if st["state_treasury"] + delta < 0:
            change_talents(ctx, "state", -st["state_treasury"], "R9.11 treasury")
            bankruptcy(ctx)
        else:
            change_talents(ctx, "state", delta, "R9.11 treasury")
    elif effect == "unrest":
        st["unrest"] = max(0, st["unrest"] + int(args["delta"]))
    elif effect == "evil_omens":
        st["evil_omens_level"] = int(args["level"])
    elif effect == "drought":
        st["drought_effects"] = int(args["count"])
    elif effect == "law":
        st["laws"][str(args["name"])] = bool(args["in_play"])
    elif effect == "family_appears":
        family_appears(ctx, str(args["id"]))
    elif effect == "card_to_hand":
        st["factions"][str(args["faction"])]["hand"].append(str(args["card"]))
    elif effect == "kill":
        if str(args["senator"]) in st["senators"]:
            kill(ctx, str(args["senator"]), "R9.11 script")
    elif effect == "consul_for_life":
        elect_consul_for_life(ctx, str(args["senator"]))
    elif effect == "people_revolt":
        people_revolt(ctx)
    elif effect == "bankruptcy":
        change_talents(ctx, "state", -st["state_treasury"], "R9.11 bankruptcy")
        bankruptcy(ctx)
    elif effect == "era_ends":
        st["era_ends_revealed"] = True
        st["era_ends_turn"] = st["turn"]
    else:
        ctx.emit("script_void", effect=effect, senator=None, why="unknown_effect")


# --------------------------------------------------------------------------- phases


def mortality_phase(ctx: Ctx) -> None:
    """R9.2: era change, matching wars, one mortality chit."""
    st = ctx.state
    new_era = st["era_changes"].get(str(st["turn"]))
    if new_era:
        st["era"] = new_era
        ctx.emit("era", era=new_era)
    groups: dict[str, dict[str, Any]] = {}
    for w in st["wars"].values():
        g = w.get("matching_group")
        if g and w["status"] == "imminent":
            if g not in groups or w["matching_index"] < groups[g]["matching_index"]:
                groups[g] = w
    for g in sorted(groups):
        groups[g]["status"] = "active"
        ctx.emit("war_activated", war=groups[g]["id"])
    draw_chits(ctx, 1, "R9.2 mortality", lambda sid: True)
    check_primary(ctx, "R9.2 Mortality")


def revenue_phase(ctx: Ctx) -> None:
    """R9.5: personal revenue, rebel maintenance, redistribution, the State."""
    st = ctx.state
    st["paid_this_turn"] = []
    data = card_data()
    for sid in senators_sorted(st, is_aligned):
        rec = sen(st, sid)
        if is_rebel(rec) or rec["location"] == "captive":
            continue
        base = 3 if "faction_leader" in rec["markers"] else 1
        conc = sum(int(data.concessions[c]["income"]) for c in rec["concessions"])
        factor = int((data.statesmen.get(sid) or {}).get("abilities", {}).get(
            "income_factor", 1))
        income = factor * (base + conc) + int(rec["knights"])
        change_talents(ctx, f"senator:{sid}", income, "R9.5 personal revenue")
    rebel_maintenance(ctx)
    redistribution(ctx)
    # (4) the State
    change_talents(ctx, "state", int(st["state_income"]), "R9.5 state income")
    wars = active_war_count(st)
    rebel_govs = {"garrison:" + o.split(":", 1)[1] for r in st["senators"].values()
                  if r["alive"] and is_rebel(r) for o in r["offices"] if o.startswith("governor:")}
    units = [lid for lid, lg in st["legions"].items()
             if lg["location"] not in ("pool", "rebel_army") and lg["location"] not in rebel_govs
             and lid not in st["paid_this_turn"]]
    units += [fid for fid, fl in st["fleets"].items()
              if fl["location"] not in ("pool", "rebel_army")]
    debits = 20 * wars + 2 * len(units) + int(st["state_other_debits"])
    ctx.emit("state_debits", wars=wars, units=len(units), other=int(st["state_other_debits"]),
             total=debits)
    if debits > st["state_treasury"]:
        change_talents(ctx, "state", -st["state_treasury"], "R9.5 state debits")
        bankruptcy(ctx)
    else:
        change_talents(ctx, "state", -debits, "R9.5 state debits")


def redistribution(ctx: Ctx) -> None:
    """R9.5 (3): each faction's standing REDISTRIBUTE, used once, clockwise from the HRAO's."""
    st = ctx.state
    _, first = hrao(st)
    for fid in clockwise_from(st, first):
        standing = st["factions"][fid]["standing"]
        orders = standing.pop("redistribute", None) or []
        for i, o in enumerate(orders):
            path = f"orders.{fid}.standing.redistribute[{i}]"
            src, dst = _holder(st, fid, o.get("from")), _holder(st, fid, o.get("to"), dest=True)
            if src is None or dst is None or src == dst:
                ctx.emit("void", faction=fid, power=fid, path=path, order=path, reason=N_("not a transfer your faction may make"), why={"code": "not_a_transfer", "args": {}}, audience=ctx.seat(fid))
                continue
            why = _r48(st, src, dst)
            if why:
                ctx.emit("void", faction=fid, power=fid, path=path, order=path, reason=str(why),
                         why=why_data(why), audience=ctx.seat(fid))
                continue
            from pbem.games.ror.model import holder_amount

            amount = min(max(0, int(o.get("amount") or 0)), holder_amount(st, src))
            transfer(ctx, src, dst, amount, "R9.5 redistribution")


def _holder(st: State, fid: str, x: Any, dest: bool = False) -> str | None:
    if x is None:
        return None
    x = str(x)
    if x == "treasury":
        return f"faction:{fid}"
    if x.startswith("faction:"):
        return x if dest and x[8:] in st["factions"] else None
    rec = st["senators"].get(x)
    if rec is None or not is_aligned(rec) or rec["faction"] != fid:
        return None
    return f"senator:{x}"


def _r48(st: State, src: str, dst: str) -> str | None:
    """R4.8 and captives: which transfers are void."""
    def rec(h: str) -> dict[str, Any] | None:
        return st["senators"][h[8:]] if h.startswith("senator:") else None

    s, d = rec(src), rec(dst)
    if (s and s["location"] == "captive") or (d and d["location"] == "captive"):
        return Why("captive_talents", N_("a captive cannot give or receive talents"))
    if s and is_rebel(s) and not (d and is_rebel(d)):
        return Why("rebel_gives", N_("a rebel's talents go only to rebels (R4.8)"))
    if d and is_rebel(d) and not (s and is_rebel(s)):
        return Why("rebel_receives",
                   N_("a rebel receives nothing from loyal senators or a Faction Treasury (R4.8)"))
    return None


POPULATION_TABLE = ((18, -3), (17, -2), (16, -1), (11, 0), (10, 1), (9, 2), (7, 3), (5, 4),
                    (1, 5), (0, 6))


def population_phase(ctx: Ctx) -> None:
    """R9.7: Unrest from unprosecuted wars and drought, then the State of the Republic."""
    st = ctx.state
    unpro = sum(1 for w in st["wars"].values() if w["status"] == "unprosecuted")
    cw = st.get("civil_war")
    if cw and cw.get("unprosecuted"):
        unpro += 1
    st["unrest"] += unpro + int(st["drought_effects"])
    hsid, _ = hrao(st)
    pop = int(sen(st, hsid)["popularity"]) if hsid else 0
    dice = ctx.dice.dice(3, "R9.7 3d6")
    total = sum(dice) - st["unrest"] + pop - int(st["evil_omens_level"])
    ctx.emit("population", dice=dice, unrest=st["unrest"], hrao_popularity=pop, total=total)
    if total < 0:
        people_revolt(ctx)
        return
    change = next(c for lo, c in POPULATION_TABLE if total >= lo)
    st["unrest"] = max(0, st["unrest"] + change)
    if total <= 1:
        ctx.emit("mob")
        draw_chits(ctx, 6, "R9.7 mob", lambda sid: is_in_rome(sen(st, sid)))
        check_primary(ctx, "R9.7 Mob")


def senate_offices(ctx: Ctx) -> None:
    """R9.8: commanderless armies come home; vacant Consulships are filled."""
    st = ctx.state
    for a in [a for a in st["armies"] if a["commander"] is None]:
        lids = disband(st, a)
        ctx.emit("army_returns", army=a["id"], legions=lids, reason="R9.8 no commander")
    for office in ("rome_consul", "field_consul"):
        if office_holder(st, office) is not None:
            continue
        cands = senators_sorted(st, lambda r: is_in_rome(r) and not r["offices"])
        if not cands:
            continue
        best = min(cands, key=lambda s: (-sen(st, s)["influence"], -sen(st, s)["ora"],
                                         _k(s)))
        sen(st, best)["offices"].append(office)
        sen(st, best)["influence"] += 5
        ctx.emit("office", senator=best, office=office, influence_gain=5)


def _k(s: str) -> tuple[int, str]:
    from pbem.games.ror.model import sid_key

    return sid_key(s)


def senate_end(ctx: Ctx) -> None:
    """R9.9, end: a Proconsul facing the rebel with no legion returns to Rome."""
    st = ctx.state
    for a in list(cw_armies(st)):
        if a["commander"] is not None and not army_legions(st, a):
            return_to_rome(st, a)
            disband(st, a)
            ctx.emit("army_returns", army=a["id"], legions=[], reason="R9.9 no legion")


def combat_end(ctx: Ctx) -> None:
    """R9.10: Unprosecuted status (R5.5), then R7.6 for condition 1, else the L1 count."""
    st = ctx.state
    cw = st.get("civil_war")
    if cw:
        faced = any(army_legions(st, a) for a in cw_armies(st))
        cw["unprosecuted"] = not faced
    if cw and cw.get("rebel_condition_met") == 1:
        settle_rebel(ctx)
        return
    four_wars(ctx)


# --------------------------------------------------------------------------- sequence


def apply_standing(ctx: Ctx) -> None:
    """Standing orders ride in any round and are kept until replaced (R8.2)."""
    st = ctx.state
    for fid in sorted(ctx.orders):
        o = ctx.orders.get(fid)
        if fid not in st["factions"] or not isinstance(o, dict):
            continue
        standing = o.get("standing")
        if isinstance(standing, dict):
            for key in STANDING_KEYS:
                if key in standing:
                    st["factions"][fid]["standing"][key] = standing[key]


def revolution_round_needed(st: State) -> bool:
    """R8.5: the Revolution round opens unless no faction holds a card and nobody is a land
    victor."""
    cards = any(f["hand"] for f in st["factions"].values())
    victors = any(r["land_victory_this_turn"] and r["alive"] for r in st["senators"].values())
    return cards or victors


def open_round(st: State, kind: str, powers: list[str]) -> None:
    """Wait for orders (R8.5)."""
    st["awaiting"] = {"round": f"T{st['turn']}/{kind}", "kind": kind, "powers": powers}


def _next_phase(st: State) -> None:
    i = PHASES.index(st["phase"])
    if i + 1 < len(PHASES):
        st["phase"], st["step"] = PHASES[i + 1], "start"
    else:
        st["turn"] += 1
        st["phase"], st["step"] = PHASES[0], "start"


def run_step(ctx: Ctx) -> None:
    """Run the step at the cursor (``phase``/``step``) and move the cursor on."""
    st = ctx.state
    phase, step = st["phase"], st["step"]
    if step == "start":
        apply_script(ctx, phase)
        if st["game_result"] is not None or st["awaiting"] is not None:
            return
    if phase == "mortality":
        mortality_phase(ctx)
        _next_phase(st)
    elif phase == "revenue":
        revenue_phase(ctx)
        if st["awaiting"] is None:
            _next_phase(st)
    elif phase == "forum":
        if st.get("era_ends_turn") is not None and int(st["era_ends_turn"]) == int(st["turn"]):
            st["era_ends_revealed"] = True
            ctx.emit("era_ends_revealed")
        if st["era_ends_revealed"]:
            era_ends(ctx)
        _next_phase(st)
    elif phase == "population":
        population_phase(ctx)
        if st["awaiting"] is None:
            _next_phase(st)
    elif phase == "senate":
        if step == "start":
            senate_offices(ctx)
            if st.get("civil_war"):
                st["step"] = "dispatch"
                d = dispatcher(st)
                open_round(st, "senate", [d])
            else:
                st["step"] = "end"
        elif step == "end":
            senate_end(ctx)
            _next_phase(st)
    elif phase == "combat":
        if step == "start":
            civil_war_battles(ctx)
            st["step"] = "end"
        elif step == "end":
            combat_end(ctx)
            if st["awaiting"] is None and st["game_result"] is None:
                _next_phase(st)
    elif phase == "revolution":
        if step == "start":
            st["step"] = "a"
            if revolution_round_needed(st):
                open_round(st, "revolution", list(st["seating"]))
        elif step == "a":
            step_trading(ctx)
            st["step"] = "b"
        elif step == "b":
            step_plays(ctx)
            st["step"] = "c"
        elif step == "c":
            step_hand_limit(ctx)
            st["step"] = "d"
        elif step == "d":
            if step_declarations(ctx):
                st["step"] = "e"
        elif step == "e":
            end_of_turn(ctx)
            if st["game_result"] is None:
                for r in st["senators"].values():
                    r["land_victory_this_turn"] = False
                _next_phase(st)
    check_consul_for_life(ctx)


def advance(ctx: Ctx, until: tuple[str, str] | None = None, max_steps: int = 10000) -> None:
    """Run steps until a round opens, the game ends, or the cursor reaches ``until``."""
    st = ctx.state
    for _ in range(max_steps):
        if st["game_result"] is not None or st["awaiting"] is not None:
            return
        if until is not None and (st["phase"], st["step"]) == until:
            return
        run_step(ctx)
    raise RuntimeError("the sequence of play does not advance")


def resolve_round(ctx: Ctx) -> None:
    """Apply the orders of the waiting round, then run on (R8.5)."""
    st = ctx.state
    waiting = st["awaiting"]
    st["awaiting"] = None
    clean: dict[str, Any] = {}
    for fid in sorted(ctx.orders, key=str):
        if fid not in st["factions"]:
            continue
        clean[fid], dropped = well_formed(ctx.orders[fid])
        for path in dropped:  # R8.6: unreadable orders are void, reported to their sender
            ctx.emit("void", faction=fid, power=fid, path=path.replace(
                "orders", f"orders.{fid}", 1), order=path, reason=N_("the order cannot be read"),
                why={"code": "unreadable", "args": {}},
                audience=ctx.seat(fid))
    ctx.orders = clean
    apply_standing(ctx)
    if st.get("civil_war"):
        run_desertions(ctx, None)  # R4.6: DESERT takes effect when its round is resolved
    kind = waiting["kind"]
    if kind == "senate":
        apply_dispatch(ctx, waiting["powers"][0])
        st["step"] = "end"
    elif kind == "revolution":
        st["step"] = "a"
    elif kind in ("declare", "revolution-2"):
        st["step"] = "d"  # R8.3: step (d) goes on with this round's declarations
    elif kind == "endgame":
        faction = waiting["powers"][0]
        o = ctx.orders.get(faction) or {}
        attack = o.get("attack")
        if attack is None:
            attack = st["factions"][faction]["standing"].get("attack")
        if attack is None:
            attack = default_attack(st)
        run_endgame(ctx, [str(w) for w in attack])
        if st["game_result"] is None:
            _next_phase(st)
