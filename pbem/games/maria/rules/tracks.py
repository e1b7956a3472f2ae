"""The political display's tracks, boxes, markers, transfers, withdrawn generals, the Imperial
election and peace (M1.11-M1.12, M3.11-M3.12, M4.6, M9.10-M9.18, M10.2-M10.5).

Victory markers are counted, never created: a power's markers are always in its pool, on a
fortress, in a box, set aside or out of the game (M1.11); :func:`marker_places` counts them.
"""

from __future__ import annotations

from typing import Any

from pbem.games.maria import model
from pbem.games.maria.context import Ctx

SAXONY_BOXES = ("P2", "P1", "S", "A1", "A2")
SAXONY_VALUE = {"P2": -2, "P1": -1, "S": 0, "A1": 1, "A2": 2}
MARKER_POOLS = {"AU": 8, "FR": 11, "PR": 13, "PA": 8}
PEACE_LEAVE_ORDER = ("leave", "enter")


# --- markers and boxes ----------------------------------------------------------------------


def marker_places(state: dict[str, Any], power: str) -> dict[str, int]:
    """Where ``power``'s markers are: pool, fortresses, boxes, set aside, out of the game."""
    board = sum(1 for c in state["control"].values() if c.get("marker") and c["power"] == power)
    boxes = sum(n for k, n in state.get("boxes", {}).items() if k.rsplit(":", 1)[-1] == power)
    return {"pool": int((state.get("pools") or {}).get(power, 0)), "fortresses": board,
            "boxes": boxes, "set_aside": int(state.get("set_aside", {}).get(power, 0)),
            "out": int(state.get("out_of_game", {}).get(power, 0))}


def fill_box(ctx: Ctx, power: str, box: str, cause: str) -> bool:
    """M9.18: put one of ``power``'s markers from its pool in ``box`` (key ``box:power``); an
    empty pool leaves the box empty. Returns True if filled."""
    state = ctx.state
    pools = state.get("pools")
    if pools is None or power not in pools:
        return False
    key = f"{box}:{power}"
    if pools[power] <= 0:
        ctx.event("box_not_filled", power=power, box=box, reason="the pool is empty (M9.18)")
        return False
    pools[power] -= 1
    state.setdefault("boxes", {})[key] = state["boxes"].get(key, 0) + 1
    ctx.event("box_filled", power=power, box=box, cause=cause, pool=pools[power])
    return True


def box_filled(state: dict[str, Any], box: str, power: str | None = None) -> bool:
    """True if ``box`` (for ``power``, or for anyone) holds a marker."""
    boxes = state.get("boxes", {})
    if power is not None:
        return bool(boxes.get(f"{box}:{power}"))
    return any(k.rsplit(":", 1)[0] == box and n for k, n in boxes.items())


def remove_marker(ctx: Ctx, city: str, to: str, cause: str) -> None:
    """Take the marker or control flag off ``city``; control goes back to its home power (or to
    nobody). A marker goes ``to`` the pool, ``set_aside`` or ``out`` of the game."""
    state = ctx.state
    entry = state["control"].get(city)
    if entry is None:
        return
    power = entry["power"]
    if entry.get("marker") and power is not None:
        if to == "pool":
            state["pools"][power] += 1
        elif to == "set_aside":
            state.setdefault("set_aside", {})[power] = state["set_aside"].get(power, 0) + 1
        else:
            state.setdefault("out_of_game", {})[power] = state["out_of_game"].get(power, 0) + 1
    state["control"].pop(city)
    ctx.event("marker_removed", city=city, power=power, marker=bool(entry.get("marker")),
              to=to if entry.get("marker") else None, cause=cause)


def region_cities(state: dict[str, Any], board: Any, region: str) -> frozenset[str]:
    """Every city a region name names (M9.19): a home id, a territory, a map or a city tag."""
    if region in model.POWERS:
        return frozenset(model.home_cities(state, board, region))
    if region in ("silesia", "poland", "neutral"):
        return frozenset(board.cities_in(region))
    if region in ("bohemia", "flanders"):
        return frozenset(c for c in board.cities if board.map_of(c) == region)
    return frozenset(board.cities_tagged(region))


# --- boxes checked in step (f) and political step 9 ------------------------------------------


def electoral_boxes(ctx: Ctx) -> None:
    """M9.13: FR's box at 3 electoral fortresses of FR+BA, PA's at 3 of PA; once each."""
    state, board = ctx.state, ctx.board
    holders = [model.controller(state, board, c) for c in board.electoral()
               if board.map_of(c) in state["maps"]]
    fr = sum(1 for h in holders if h in ("FR", "BA"))
    pa = sum(1 for h in holders if h == "PA")
    if fr >= 3 and not box_filled(state, "electoral", "FR") and \
            not state.get("electoral_done", {}).get("FR"):
        state.setdefault("electoral_done", {})["FR"] = True
        fill_box(ctx, "FR", "electoral", "M9.13")
    if pa >= 3 and not box_filled(state, "electoral", "PA") and \
            not state.get("electoral_done", {}).get("PA"):
        state.setdefault("electoral_done", {})["PA"] = True
        fill_box(ctx, "PA", "electoral", "M9.13")


def election(ctx: Ctx, cause: str) -> None:
    """M9.14: each electoral fortress held by a non-neutral power is a vote for its side; 5
    votes elect an Emperor (once per game)."""
    state, board = ctx.state, ctx.board
    if state.get("election"):
        ctx.event("election", cause=cause, held=False, reason="an Emperor is already elected")
        return
    votes = {"coalition": 0, "habsburg": 0}
    for c in board.electoral():
        holder = model.controller(state, board, c)
        side = model.side_of(state, holder) if holder else None
        if side:
            votes[side] += 1
    winner = next((s for s in ("coalition", "habsburg") if votes[s] >= 5), None)
    ctx.event("election", cause=cause, held=True, votes=votes, elected=winner)
    if winner is None:
        return
    power = "FR" if winner == "coalition" else "AU"
    state["election"] = {"side": winner, "turn": state["turn"],
                         "emperor": "Charles Albert" if power == "FR" else "Francis Stephen"}
    fill_box(ctx, power, "emperor", "M9.14")


# --- victory (M10.2-M10.5) -------------------------------------------------------------------

TIE_PRIORITY = ("AU", "PA", "PR", "FR")
"""M10.5: AU wins any tie it is in, FR loses any, PA beats PR (and PR/PA or FR/PR ties of one
player stay that player's win)."""


def break_tie(powers: list[str]) -> str:
    """The winner among tied ``powers`` (M10.5)."""
    return min(powers, key=TIE_PRIORITY.index)


def sudden_death(state: dict[str, Any]) -> dict[str, Any] | None:
    """M10.2-M10.3: a major power whose pool is empty wins; several: most markers on fortresses
    and in boxes, then M10.5."""
    pools = state.get("pools") or {}
    empty = [p for p in ("AU", "FR", "PR", "PA") if p in pools and pools[p] <= 0]
    if not empty:
        return None
    if len(empty) == 1:
        return {"winner": empty[0], "reason": f"M10.2 the pool of {model.POWER_NAMES[empty[0]]} "
                                               "is empty"}
    placed = {p: marker_places(state, p)["fortresses"] + marker_places(state, p)["boxes"]
              for p in empty}
    best = max(placed.values())
    tied = [p for p in empty if placed[p] == best]
    win = break_tie(tied)
    return {"winner": win, "reason": f"M10.3 several pools are empty; {model.POWER_NAMES[win]} "
                                     f"has the most markers placed"
            + (" (M10.5 tie-break)" if len(tied) > 1 else "")}


def final_result(state: dict[str, Any]) -> dict[str, Any]:
    """M10.4: the lowest sum of the winter scores wins; ties by M10.5."""
    scores = state.get("scores") or {}
    sums = {p: sum(v) for p, v in scores.items() if p in ("AU", "FR", "PR", "PA")}
    if not sums:
        sums = {p: (state.get("pools") or {}).get(p, 0) for p in ("AU", "FR", "PR", "PA")}
    low = min(sums.values())
    tied = [p for p in ("AU", "FR", "PR", "PA") if sums.get(p) == low]
    win = break_tie(tied)
    return {"winner": win, "reason": f"M10.4 lowest winter total {low}"
            + (" (M10.5 tie-break)" if len(tied) > 1 else ""), "totals": sums}


# --- forced transfers (M3.11-M3.12) -----------------------------------------------------------


def transfer(ctx: Ctx, moves: list[tuple[str, str, str, Any]], cause: str) -> None:
    """Move pieces to the nearest city they may legally stack in (M3.11). ``moves`` are
    ``(group, kind, id, wanted)`` with group ``leave`` or ``enter`` and ``wanted(city)`` the
    destination test; pieces that must leave go first, then by power order, generals by rank,
    then trains in city-id order (M3.12)."""
    from pbem.games.maria.rules.movement import territory_problem

    state, board = ctx.state, ctx.board
    gens, trains = state["generals"], state["trains"]

    def key(m: tuple[str, str, str, Any]) -> tuple[Any, ...]:
        group, kind, pid, _ = m
        rec = gens[pid] if kind == "general" else trains[pid]
        return (PEACE_LEAVE_ORDER.index(group), model.POWER_INDEX[rec["power"]],
                kind != "general", rec.get("rank", 0) if kind == "general" else 0,
                rec["city"] or "", pid)

    for _group, kind, pid, wanted in sorted(moves, key=key):
        rec = gens[pid] if kind == "general" else trains[pid]
        start = rec["city"]
        if start is None:
            continue
        power = rec["power"]
        pref = model.preference(state, power, "transfer_preference")
        occ = model.occupancy(state)
        dist = board.distances_from(start)
        best: tuple[int, int, str] | None = None
        for city, d in dist.items():  # nearest first: none farther than a city found can win
            if best is not None and d > best[0]:
                break
            if not wanted(city) or board.map_of(city) not in state["maps"]:
                continue
            if territory_problem(state, board, power, city) is not None:
                continue
            here = occ.get(city, [])
            if any(not model.are_friends(state, power, p) for p in here):
                continue
            if kind == "general":
                n = sum(1 for g in gens.values() if g["city"] == city)
                if n >= 2:
                    continue
            rank = pref.index(city) if city in pref else len(pref)
            cand = (d, rank, city)
            if best is None or cand < best:
                best = cand
        if best is None:
            rec["city"] = None
            if kind == "general":
                rec["troops"] = 0
                rec["face_down"] = False
                rec["supply_failures"] = 0
            ctx.event("eliminated" if kind == "general" else "train_destroyed",
                      **({"general": pid} if kind == "general" else {"train": pid}),
                      power=power, cause="no_transfer_site", city=start)
            continue
        rec["city"] = best[2]
        ctx.event("transfer", piece=pid, power=power, frm=start, to=best[2], cause=cause)
    check_set_aside(ctx)


def check_set_aside(ctx: Ctx) -> None:
    """M9.15 step 7: once a PR piece ends a move, retreat or transfer outside Prussia, the
    set-aside markers return to PR's pool."""
    state = ctx.state
    n = state.get("set_aside", {}).get("PR", 0)
    if not n:
        return
    for rec in (*state["generals"].values(), *state["trains"].values()):
        if rec["power"] == "PR" and rec["city"] is not None and \
                model.home_of(state, ctx.board, rec["city"]) != "PR":
            state["set_aside"]["PR"] = 0
            state["pools"]["PR"] += n
            ctx.event("markers_returned", power="PR", count=n, cause="M9.15 step 7")
            return


# --- Saxony, Russia, Italy -------------------------------------------------------------------


def set_saxony(ctx: Ctx, box: str, cause: str) -> None:
    """Put the Saxony marker on ``box`` and apply the box (M9.10)."""
    state, board = ctx.state, ctx.board
    tracks = state["tracks"]
    old = tracks["saxony"]
    if old == box:
        return
    tracks["saxony"] = box
    old_side = "S" if old == "S" else old[0]
    new_side = "S" if box == "S" else box[0]
    ctx.event("track", track="saxony", frm=old, to=box, cause=cause)
    if old_side == new_side:
        return
    neutral = state.setdefault("neutral", [])
    if "SX" in state["standing"]:
        state["standing"]["SX"] = {}  # M9.10: new controller, default standing orders
    if new_side == "S":
        if "SX" not in neutral:
            neutral.append("SX")
            neutral.sort(key=model.POWER_INDEX.__getitem__)
        ctx.event("alliance", power="SX", ally=None, neutral=True)
        saxon = region_cities(state, board, "SX")
        for city in sorted(saxon):
            if city in state["control"]:
                remove_marker(ctx, city, "pool", "M9.10 Saxony neutral")
        moves: list[tuple[str, str, str, Any]] = []
        for kind, table in (("general", state["generals"]), ("train", state["trains"])):
            for pid, rec in table.items():
                if rec["city"] is None:
                    continue
                inside = rec["city"] in saxon
                if rec["power"] == "SX" and not inside:
                    moves.append(("enter", kind, pid, lambda c: c in saxon))
                elif rec["power"] != "SX" and inside:
                    moves.append(("leave", kind, pid, lambda c: c not in saxon))
        transfer(ctx, moves, "M9.10")
        return
    if "SX" in neutral:
        neutral.remove("SX")
    ally = "PR" if new_side == "P" else "AU"
    state["alliances"]["SX"] = ally
    ctx.event("alliance", power="SX", ally=ally, neutral=False)
    if box == "A1" and ally == "AU" and not state.get("track_firsts", {}).get("saxony_A1"):
        state.setdefault("track_firsts", {})["saxony_A1"] = True
        if ctx.opt("tracks.saxony.defection_marker") == "prussia_on_first_A1":
            fill_box(ctx, "PR", "saxon_defection", "M9.10")


def move_saxony(ctx: Ctx, steps: int, toward: str, cause: str) -> None:
    """E1 on the Saxony track: one box per step, each box applied; steps past the end lost."""
    for _ in range(steps):
        i = SAXONY_BOXES.index(ctx.state["tracks"]["saxony"])
        j = i - 1 if toward == "prussia" else i + 1
        if not 0 <= j < len(SAXONY_BOXES):
            return
        set_saxony(ctx, SAXONY_BOXES[j], cause)


def move_russia(ctx: Ctx, steps: int, toward: str, cause: str) -> None:
    """E1 on the Russia track (0-4; up hurts PR): at 3 or 4 one PR general is withdrawn."""
    state = ctx.state
    for _ in range(steps):
        old = state["tracks"]["russia"]
        new = old + (1 if toward == "up" else -1)
        if not 0 <= new <= 4:
            return
        state["tracks"]["russia"] = new
        ctx.event("track", track="russia", frm=old, to=new, cause=cause)
        sync_track_withdrawals(ctx)


def move_italy(ctx: Ctx, steps: int, toward: str, cause: str) -> None:
    """E1 on the Italy track (-3 France ... +3 Austria): boxes filled the first time an end is
    reached (M9.12)."""
    state = ctx.state
    firsts = state.setdefault("track_firsts", {})
    for _ in range(steps):
        old = state["tracks"]["italy"]
        new = old + (1 if toward == "austria" else -1)
        if not -3 <= new <= 3:
            return
        state["tracks"]["italy"] = new
        ctx.event("track", track="italy", frm=old, to=new, cause=cause)
        if new == -3 and not firsts.get("italy_FR"):
            firsts["italy_FR"] = True
            fill_box(ctx, "FR", "italy", "M9.12")
        if new == 3 and not firsts.get("italy_AU"):
            firsts["italy_AU"] = True
            fill_box(ctx, "AU", "italy", "M9.12")
        sync_track_withdrawals(ctx)


def move_track(ctx: Ctx, track: str, steps: int, toward: str, cause: str) -> None:
    """E1 (M9.10-M9.12)."""
    if track == "saxony":
        move_saxony(ctx, steps, toward, cause)
    elif track == "russia":
        move_russia(ctx, steps, toward, cause)
    else:
        move_italy(ctx, steps, toward, cause)


def draw_change(state: dict[str, Any], power: str) -> int:
    """The changes in force to ``power``'s draw (M1.9): tracks and E3 effects."""
    if model.is_intro(state) or "tracks" not in state:
        return 0
    tracks = state["tracks"]
    delta = 0
    if power == "PR":
        delta -= max(0, tracks["russia"] - 1)
    if power == "AU" and tracks["italy"] <= -2:
        delta -= 1
    if power == "FR" and tracks["italy"] >= 2:
        delta -= 1
    delta += sum(e["delta"] for e in state.get("draw_effects", []) if e["power"] == power)
    return delta


# --- withdrawn generals (M9.11, M9.12, M9.17) --------------------------------------------------


def withdraw(ctx: Ctx, gid: str, cause: dict[str, Any]) -> None:
    """Take ``gid`` off the map with its troops, recording the cause (M9.17)."""
    g = ctx.state["generals"][gid]
    ctx.event("withdrawn", general=gid, power=g["power"], city=g["city"], cause=cause["kind"])
    g["withdrawn"] = dict(cause)
    g["city"] = None
    g["blocked"] = False


def default_withdrawal(state: dict[str, Any], power: str) -> str | None:
    """The owner's choice (M9.11, E9): the first general on the map in its standing
    ``withdraw_preference``, else the one with the fewest troops, then the most junior."""
    gens = state["generals"]
    cands = [g for g in model.on_map(state) if gens[g]["power"] == power]
    if not cands:
        return None
    for g in model.preference(state, power, "withdraw_preference"):
        if g in cands:
            return g
    return min(cands, key=lambda g: (gens[g]["troops"], -gens[g]["rank"], g))


def _track_cause(state: dict[str, Any]) -> dict[str, str]:
    """Which power each track wants one general withdrawn from now."""
    want: dict[str, str] = {}
    if state["tracks"]["russia"] >= 3:
        want["russia"] = "PR"
    if state["options"]["tracks.italy.withdraw_general"] == "at_3":
        if state["tracks"]["italy"] <= -3:
            want["italy"] = "AU"
        elif state["tracks"]["italy"] >= 3:
            want["italy"] = "FR"
    return want


def sync_track_withdrawals(ctx: Ctx) -> None:
    """Make the track withdrawals match the tracks: withdraw where a cause began (or is
    waiting for a general to appear), end causes that no longer hold (M9.11, M9.12)."""
    state = ctx.state
    want = _track_cause(state)
    gens = state["generals"]
    for gid in model.general_ids(state):
        w = gens[gid].get("withdrawn")
        if w and w["kind"] in ("russia", "italy") and not w.get("ended"):
            if want.get(w["kind"]) != gens[gid]["power"]:
                gens[gid]["withdrawn"] = {**w, "ended": True}  # replaced: a round copies
                ctx.event("withdrawal_ended", general=gid, cause=w["kind"])
    for kind, power in sorted(want.items()):
        if any(g.get("withdrawn", {}).get("kind") == kind and not g["withdrawn"].get("ended")
               and g["power"] == power for g in gens.values()):
            continue
        pick = default_withdrawal(state, power)
        if pick is None:
            state.setdefault("withdraw_waiting", {})[kind] = power
            continue
        state.get("withdraw_waiting", {}).pop(kind, None)
        withdraw(ctx, pick, {"kind": kind})


def return_withdrawn(ctx: Ctx, acting: list[str]) -> None:
    """Step (c) begins with the return of withdrawn generals whose cause has ended (M9.17,
    M2.4): on a re-entry site with no enemy piece, not adjacent to one, with room; else they
    wait. Several return in rank order."""
    from pbem.games.maria.rules.movement import reentry_problem

    state = ctx.state
    gens = state["generals"]
    turn = state["turn"]
    for gid in model.general_ids(state):
        g = gens[gid]
        w = g.get("withdrawn")
        if not w or g["power"] not in acting:
            continue
        if w["kind"] == "card" and turn >= w["until"]:
            g["withdrawn"] = w = {**w, "ended": True}  # replaced, not changed: see copy_state
        if not w.get("ended"):
            continue
        sites = [s for s in model.reentry_sites(state, ctx.board, g["power"])
                 if reentry_problem(ctx, g["power"], s) is None
                 and sum(1 for h in gens.values() if h["city"] == s) < 2
                 and all(model.are_friends(state, g["power"], h["power"])
                         for h in gens.values() if h["city"] == s)]
        if not sites:
            ctx.event("withdrawn_waits", general=gid, power=g["power"])
            continue
        g["city"] = sites[0]
        del g["withdrawn"]
        ctx.stage["moved"].append(gid)
        ctx.event("general_returned", general=gid, power=g["power"], city=sites[0],
                  cause="M9.17")


# --- peace (M9.15, M9.16) ---------------------------------------------------------------------


def make_peace(ctx: Ctx) -> None:
    """The steps of M9.15 (peace between AU and PR, through E16)."""
    state, board = ctx.state, ctx.board
    state["peace"] = {"turn": state["turn"], "prussia_stages": 0}
    ctx.event("peace", turn=state["turn"])
    # step 2
    if state["alliances"].get("SX") == "PR" and not model.is_neutral(state, "SX"):
        set_saxony(ctx, "S", "M9.15")
    # step 3
    prussia = region_cities(state, board, "PR")
    for city in sorted(prussia):
        e = state["control"].get(city)
        if e is not None and e["power"] != "PR":
            remove_marker(ctx, city, "pool", "M9.15 step 3")
    au_home = [c for c in sorted(state["control"]) if board.home_of(c) == "AU"
               and state["control"][c]["power"] == "PR"]
    with_marker = [c for c in au_home if state["control"][c].get("marker")]
    aside = (len(with_marker) + 1) // 2
    for i, city in enumerate(with_marker):
        remove_marker(ctx, city, "set_aside" if i < aside else "pool", "M9.15 step 3")
    for city in au_home:
        if city in state["control"]:
            remove_marker(ctx, city, "pool", "M9.15 step 3")
    # step 4
    austria = region_cities(state, board, "AU")
    poland = frozenset(board.cities_in("poland"))
    moves: list[tuple[str, str, str, Any]] = []
    for kind, table in (("general", state["generals"]), ("train", state["trains"])):
        for pid, rec in table.items():
            c = rec["city"]
            if c is None:
                continue
            if rec["power"] == "AU" and (c in prussia or c in poland):
                moves.append(("leave", kind, pid, lambda x: x in austria))
            elif rec["power"] == "PR" and c not in prussia:
                moves.append(("enter", kind, pid, lambda x: x in prussia))
            elif rec["power"] not in ("AU", "PR") and c in prussia:
                moves.append(("leave", kind, pid, lambda x: x not in prussia))
    # PR becomes neutral only in step 6; transfers are judged with the sides as they stand
    transfer(ctx, moves, "M9.15")
    # step 5
    fill_box(ctx, "PR", "silesia", "M9.15")
    state["train_max"]["PR"] = state["train_max"].get("PR", 1) + 1
    off = sorted(t for t, v in state["trains"].items() if v["power"] == "PR" and v["city"] is None)
    tid = off[0] if off else next(f"pr_{i}" for i in range(2, 99)
                                  if f"pr_{i}" not in state["trains"])
    occ = model.occupancy(state)
    sites = [c for c in sorted(prussia) if board.cities[c].fortress == "major"
             and model.controller(state, board, c) == "PR"
             and not any(model.are_enemies(state, "PR", p) for p in occ.get(c, []))]
    if sites:  # PR's choice (M9.15 step 5): its standing train_site_preference, else the lowest id
        site = model.preferred_first(sites, model.preference(state, "PR", "train_site_preference"))[0]
        state["trains"][tid] = {"power": "PR", "city": site}
        ctx.event("train_placed", train=tid, power="PR", city=site, cause="M9.15")
    # step 6
    if "PR" not in state.setdefault("neutral", []):
        state["neutral"].append("PR")
        state["neutral"].sort(key=model.POWER_INDEX.__getitem__)
    ctx.event("neutral", power="PR", neutral=True, cause="M9.16")


def end_prussian_neutrality(ctx: Ctx, cause: str) -> None:
    """PR stops being neutral (M9.16, E17)."""
    state = ctx.state
    if "PR" in state.get("neutral", []):
        state["neutral"].remove("PR")
        ctx.event("neutral", power="PR", neutral=False, cause=cause)
    if state.get("peace"):
        state["peace"]["prussia_stages"] = 99


def start_of_stage(ctx: Ctx, stage: str) -> None:
    """Before step (a): a neutral PR's second stage after the peace ends its neutrality
    (M9.16)."""
    peace = ctx.state.get("peace")
    if stage == "prussia" and peace and "PR" in ctx.state.get("neutral", []):
        peace["prussia_stages"] += 1
        if peace["prussia_stages"] >= 2:
            end_prussian_neutrality(ctx, "M9.16")


def end_of_stage(ctx: Ctx, acting: list[str]) -> None:
    """Count down blocks for the acting powers' stages (M2.6, M3.10, E7, E8)."""
    state = ctx.state
    keep = []
    for b in state.get("blocks", []):
        if b["power"] in acting:
            b["stages"] -= 1
        if b["stages"] > 0:
            keep.append(b)
            continue
        table = state["generals"] if b["kind"] == "general" else state["trains"]
        if b["id"] in table and not any(o is not b and o["id"] == b["id"] and o["stages"] > 0
                                        for o in state.get("blocks", [])):
            table[b["id"]]["blocked"] = False
            ctx.event("unblocked", piece=b["id"], power=b["power"])
    state["blocks"] = keep


def winter_score(ctx: Ctx) -> None:
    """M8.4: each major power records the markers left in its pool."""
    state = ctx.state
    scores = state.setdefault("scores", {p: [] for p in ("AU", "FR", "PR", "PA")})
    pools = state["pools"]
    got = {p: int(pools.get(p, 0)) for p in ("AU", "FR", "PR", "PA")}
    for p, n in got.items():
        scores.setdefault(p, []).append(n)
    ctx.event("winter_score", scores=got, totals={p: sum(v) for p, v in scores.items()})
