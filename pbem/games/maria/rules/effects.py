"""Executing a taken political card (M9.8): its conditions and its effects E1-E17 (M9.19).

Step 7 of the political phase (:mod:`pbem.games.maria.rules.politics`) hands each taken card
here with its taker's instructions; the effects run in printed order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.games.maria import model
from pbem.games.maria.cards import owner_discard, resolve_partial
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import tracks

TAKER_TOWARD = {
    "habsburg": {"saxony": "austria", "russia": "up", "italy": "austria"},
    "coalition": {"saxony": "prussia", "russia": "down", "italy": "france"},
}
"""M9.19: an unanswered ``taker_choice`` moves the marker towards the taker's side."""


def _target(arg: Any, taker: str) -> str:
    return taker if arg == "taker" else str(arg)


def condition_holds(ctx: Ctx, cond: dict[str, Any] | None, taker: str) -> bool:
    """An effect's ``if`` condition (M9.19)."""
    if not cond:
        return True
    state, board = ctx.state, ctx.board
    (name, args), = cond.items()
    if name == "track_in":
        track, lo, hi = args
        v = state["tracks"][track]
        if track == "saxony":
            v = tracks.SAXONY_VALUE[v]
        return bool(lo <= v <= hi)
    if name == "controls":
        who, region = _target(args[0], taker), args[1]
        cities = tracks.region_cities(state, board, region)
        for c in cities:
            if board.cities[c].fortress == "none":
                continue
            h = model.controller(state, board, c)
            if h is None:
                continue
            if h == who or (who in ("habsburg", "coalition") and model.side_of(state, h) == who):
                return True
        return False
    if name == "no_general_in":
        power, region = _target(args[0], taker), args[1]
        cities = tracks.region_cities(state, board, region)
        return not any(g["power"] == power and g["city"] in cities
                       for g in state["generals"].values())
    if name == "peace_made":
        return bool(state.get("peace")) == bool(args[0])
    if name == "neutral":
        return model.is_neutral(state, _target(args[0], taker))
    return False


def resolve_card(ctx: Ctx, taker: str, card: str, instr: dict[str, Any],
                 orders: dict[str, dict[str, Any]]) -> None:
    """Execute or discard a taken card (M9.8): effects in printed order; an optional effect may
    be skipped and an optional move_track may move fewer steps; a failed condition skips."""
    state = ctx.state
    spec = state["politics"]["cards"][card]
    if instr.get("execute") in (False, "no"):
        ctx.event("political_card", power=taker, card=card, executed=False)
        return
    ctx.event("political_card", power=taker, card=card, executed=True, name=spec["name"])
    per = instr.get("effects")
    if not isinstance(per, dict):
        per = {}
    for i, eff in enumerate(spec["effects"], start=1):
        e_instr = _instruction(per.get(str(i)))
        if eff.get("optional") and e_instr.get("skip"):
            ctx.event("effect_skipped", card=card, effect=i, reason="optional, skipped")
            continue
        if not condition_holds(ctx, eff.get("if"), taker):
            ctx.event("effect_skipped", card=card, effect=i, reason="condition fails")
            continue
        run_effect(ctx, taker, card, i, eff, e_instr, orders)
        if state.get("result") is not None:
            return


def _instruction(raw: Any) -> dict[str, Any]:
    """One effect's instructions with every field of the right shape (M12.2: others are
    ignored and the default of M9.19 applies)."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {}
    if raw.get("skip") is True:
        out["skip"] = True
    steps = raw.get("steps")
    if isinstance(steps, int) and not isinstance(steps, bool):
        out["steps"] = steps
    for key in ("toward", "site"):
        if isinstance(raw.get(key), str):
            out[key] = raw[key]
    if isinstance(raw.get("pieces"), list):
        out["pieces"] = [x for x in raw["pieces"] if isinstance(x, str)]
    return out


def run_effect(ctx: Ctx, taker: str, card: str, index: int, eff: dict[str, Any],
               instr: dict[str, Any], orders: dict[str, dict[str, Any]]) -> None:
    """One effect E1-E17 (M9.19)."""
    state, board = ctx.state, ctx.board
    name, args = eff["effect"], list(eff["args"])
    cause = f"{card} {name}"
    gens = state["generals"]
    if name == "move_track":
        track, steps, toward = args
        if eff.get("optional") and isinstance(instr.get("steps"), int):
            steps = max(0, min(steps, instr["steps"]))
        if toward == "taker_choice":
            wanted = instr.get("toward")
            if wanted in ("prussia", "austria", "down", "up", "france") and \
                    wanted in _directions(track):
                toward = wanted
            else:
                toward = TAKER_TOWARD[model.side_of(state, taker) or
                                      ("coalition" if taker in ("FR", "PR") else "habsburg")
                                      ][track]
        tracks.move_track(ctx, track, steps, toward, cause)
    elif name == "draw":
        power, n = _target(args[0], taker), args[1]
        if power in state["powers"]:
            got = model.draw_cards(state, power, n, ctx.rng.secret)
            ctx.event("draw", power=power, count=len(got), cause=cause)
            ctx.private(power, "drawn", cards=got)
    elif name == "draw_modifier":
        power, delta, stages = _target(args[0], taker), args[1], args[2]
        state.setdefault("draw_effects", []).append(
            {"power": power, "delta": delta, "stages": stages, "card": card})
        ctx.event("draw_modifier", power=power, delta=delta, stages=stages, card=card)
    elif name == "discard":
        power, n, by = _target(args[0], taker), args[1], args[2]
        hand = state["cards"]["hands"].get(power, [])
        n = min(n, len(hand))
        if by == "random":
            pool = list(hand)
            drop = [pool.pop(ctx.rng.secret.below(len(pool))) for _ in range(n)]
        else:  # the owner's choice: its standing discard_preference, then the default
            drop = []
            for spec in model.preference(state, power, "discard_preference"):
                chosen = resolve_partial([c for c in hand if c not in drop], spec)
                if chosen is not None and len(drop) < n:
                    drop.append(chosen)
            drop += owner_discard([c for c in hand if c not in drop], n - len(drop))
        model.spend_cards(state, power, drop)
        ctx.event("discard", power=power, cards=drop, reason=cause)
    elif name == "add_troops":
        power, n, where = _target(args[0], taker), args[1], args[2]
        add_troops(ctx, power, n, where, cause)
    elif name == "lose_troops":
        lose_troops(ctx, _target(args[0], taker), args[1], cause)
    elif name in ("block_generals", "block_trains"):
        power, n, stages, by = _target(args[0], taker), args[1], args[2], args[3]
        kind = "general" if name == "block_generals" else "train"
        if kind == "general":
            cands = [g for g in model.on_map(state) if gens[g]["power"] == power]
            cands.sort(key=lambda g: (gens[g]["rank"], g))
        else:
            cands = sorted((t for t, v in state["trains"].items()
                            if v["power"] == power and v["city"] is not None),
                           key=lambda t: (state["trains"][t]["city"], t))
        picked: list[str] = []
        if by == "taker":
            for pid in instr.get("pieces") or []:
                if pid in cands and pid not in picked and len(picked) < n:
                    picked.append(pid)
        else:
            picked = [p for p in model.preference(state, power, "block_preference") if p in cands][:n]
        for pid in cands:
            if len(picked) >= n:
                break
            if pid not in picked:
                picked.append(pid)
        table = gens if kind == "general" else state["trains"]
        for pid in picked:
            table[pid]["blocked"] = True
            state.setdefault("blocks", []).append(
                {"kind": kind, "id": pid, "power": power, "stages": stages})
        ctx.event("blocked", power=power, pieces=picked, stages=stages, cause=cause)
    elif name == "withdraw_general":
        power, turns = _target(args[0], taker), args[1]
        cands = [g for g in model.on_map(state) if gens[g]["power"] == power]
        pick = None
        if args[2] == "taker":
            pick = next((g for g in instr.get("pieces") or [] if g in cands), None)
        pick = pick or tracks.default_withdrawal(state, power)
        if pick is not None:
            tracks.withdraw(ctx, pick, {"kind": "card", "until": state["turn"] + turns,
                                        "card": card})
    elif name == "place_marker":
        who, box = args
        if isinstance(who, str) and who.startswith("controller_of:"):
            tag = who.split(":", 1)[1]
            holders = [model.controller(state, board, c) for c in sorted(board.cities_tagged(tag))
                       if board.cities[c].fortress != "none"]
            holders = [h for h in holders if h is not None]
            if not holders:
                ctx.event("effect_skipped", card=card, effect=index,
                          reason="nobody controls the city")
                return
            who = holders[0]
        power = model.major_of(state, _target(who, taker))
        if tracks.box_filled(state, f"card_{box}"):
            ctx.event("effect_skipped", card=card, effect=index, reason="the box is filled")
            return
        tracks.fill_box(ctx, power, f"card_{box}", cause)
    elif name in ("return_markers", "retire_markers"):
        power = _target(args[0], taker)
        region = args[-1]
        cities = tracks.region_cities(state, board, region)
        mine = sorted(c for c in cities if (e := state["control"].get(c)) and e["power"] == power
                      and e.get("marker"))
        if name == "return_markers":  # the owner's choice, else the lowest city ids
            mine = model.preferred_first(mine, model.preference(state, power, "marker_return_preference"))
            for c in mine[: args[1]]:
                tracks.remove_marker(ctx, c, "pool", cause)
        else:
            out = (len(mine) + 1) // 2
            for i, c in enumerate(mine):
                tracks.remove_marker(ctx, c, "out" if i < out else "pool", cause)
    elif name == "hussars":
        delta, turns = args
        state.setdefault("hussar_effects", []).append({"delta": delta, "turns": turns})
        ctx.event("hussar_change", delta=delta, turns=turns, cause=cause)
    elif name == "restore_train":
        power = _target(args[0], taker)
        restore_train(ctx, power, instr.get("site") if power == taker else None, cause)
    elif name == "trigger_election":
        tracks.election(ctx, "E15")
    elif name == "offer_peace":
        o = orders.get("AU") or {}
        accept = o.get("accept_peace")
        if not isinstance(accept, bool):
            accept = bool(state["standing"].get("AU", {}).get("accept_peace", False))
        if not accept:
            ctx.event("peace_offered", accepted=False, reason="Austria does not accept")
        elif model.is_neutral(state, "PR"):
            ctx.event("peace_offered", accepted=False, reason="Prussia is neutral")
        elif state.get("peace") or state.get("peace_made"):
            ctx.event("peace_offered", accepted=False, reason="peace was made before")
        else:
            ctx.event("peace_offered", accepted=True)
            state["peace_made"] = True
            tracks.make_peace(ctx)
    elif name == "end_neutrality":
        power = _target(args[0], taker)
        if power == "PR" and model.is_neutral(state, "PR"):
            tracks.end_prussian_neutrality(ctx, "E17")
        else:
            ctx.event("effect_skipped", card=card, effect=index, reason="not neutral")


def _directions(track: str) -> tuple[str, ...]:
    return {"saxony": ("prussia", "austria"), "russia": ("down", "up"),
            "italy": ("france", "austria")}[track]


def add_troops(ctx: Ctx, power: str, n: int, where: str, cause: str) -> None:
    """E5: one troop at a time to the first eligible general of the owner's standing
    ``troop_gain_preference`` that has room, else to the eligible general with the fewest troops
    (ties: lower rank number); at most ``troops.max`` each; troops no general can take are lost."""
    from pbem.games.maria.rules.supply import in_supply

    state, board = ctx.state, ctx.board
    gens = state["generals"]
    top = int(ctx.opt("troops.max"))
    elig = [g for g in model.on_map(state) if gens[g]["power"] == power]
    if where == "home":
        elig = [g for g in elig if model.home_of(state, board, gens[g]["city"]) == power]
    elif where == "in_supply":
        elig = [g for g in elig if in_supply(state, board, g)]
    added = _troop_by_troop(state, power, n, elig, "troop_gain_preference", +1,
                            lambda g: gens[g]["troops"] < top, lambda g: (gens[g]["troops"], gens[g]["rank"], g))
    ctx.event("troops_added", power=power, troops=added, lost=n - added, cause=cause)


def lose_troops(ctx: Ctx, power: str, n: int, cause: str) -> None:
    """E6: one troop at a time from the first general of the owner's standing
    ``troop_loss_preference`` that has more than 1, else from the general with the most troops
    (ties: lower rank number); no general drops below 1."""
    gens = ctx.state["generals"]
    own = [g for g in model.on_map(ctx.state) if gens[g]["power"] == power]
    lost = _troop_by_troop(ctx.state, power, n, own, "troop_loss_preference", -1,
                           lambda g: gens[g]["troops"] > 1, lambda g: (-gens[g]["troops"], gens[g]["rank"], g))
    ctx.event("troops_lost", power=power, troops=lost, cause=cause)


def _troop_by_troop(state: dict[str, Any], power: str, n: int, generals: list[str], key: str, delta: int,
                    can: Callable[[str], bool], default: Callable[[str], Any]) -> int:
    """Up to ``n`` troops, one at a time, each ``delta`` to one of ``generals`` that ``can`` take
    it: the first the owner's standing ``key`` names (M9.19), else the least by ``default``.
    Returns how many moved."""
    gens = state["generals"]
    pref = model.preference(state, power, key)
    moved = 0
    for _ in range(n):
        cands = [g for g in generals if can(g)]
        if not cands:
            break
        g = next((g for g in pref if g in cands), None) or min(cands, key=default)
        gens[g]["troops"] += delta
        moved += 1
    return moved


def restore_train(ctx: Ctx, power: str, site: Any, cause: str) -> None:
    """E14: one eliminated train re-enters free on a site M3.9 allows: the power's choice, given
    as ``site`` in its own card instructions or by its standing ``train_site_preference``, else
    the lowest city id."""
    from pbem.games.maria.rules.movement import reentry_problem, train_max

    state = ctx.state
    off = sorted(t for t, v in state["trains"].items() if v["power"] == power and v["city"] is None)
    on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
    if not off or on >= train_max(state, power):
        ctx.event("train_not_restored", power=power, reason="no eliminated train may return")
        return
    sites = [s for s in model.reentry_sites(state, ctx.board, power)
             if reentry_problem(ctx, power, s) is None]
    if not sites:
        ctx.event("train_not_restored", power=power, reason="no re-entry site is free")
        return
    wanted = ([site] if isinstance(site, str) else []) + model.preference(state, power, "train_site_preference")
    city = model.preferred_first(sites, wanted)[0]
    state["trains"][off[0]]["city"] = city
    ctx.event("train_reentered", train=off[0], power=power, city=city, cost=0, cause=cause)
