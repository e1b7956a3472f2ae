"""One pipeline for every round: standing-order updates, the round's own steps, then on through
every following step that needs no orders (M12.12). The sequence of play is data
(:func:`turn_steps`); each step is one function of a rules module."""

from __future__ import annotations

import copy
from typing import Any

from pbem.common.catalog import N_
from pbem.common.fair import PhaseRng
from pbem.errors import DataError
from pbem.games.base import Phase, Resolution
from pbem.games.maria import model, shape
from pbem.games.maria.cards import full_deck, owner_discard
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import (
    battle,
    conquest,
    hussars,
    movement,
    politics,
    supply,
    tracks,
    victory,
    winter,
)
from pbem.games.maria.statecopy import copy_state

FIRST_YEAR = 1741
POLITICS_STEPS = {"trusted_gm": ["politics"], "trustless": ["commit", "politics"]}
"""The politics round(s) of a turn (M11.4, M12.1): one in trusted-GM mode; a commit round and
a reveal round in trustless mode."""


def turn_steps(state: dict[str, Any], turn: int) -> list[str]:
    """The steps of ``turn`` that are rounds of orders (M2.3, M8.1)."""
    steps = [] if model.is_intro(state) else list(POLITICS_STEPS[state["options"]["pbem.commitments"]])
    steps += ["hussars", *model.STAGES]
    if turn in state["winters"]:
        steps.append("winter")
    return steps


def phase_id_of(state: dict[str, Any], turn: int) -> str:
    """``1741-1``: the year and turn part of a phase id."""
    return f"{FIRST_YEAR + (turn - 1) // 3}-{(turn - 1) % 3 + 1}"


def phase_id(state: dict[str, Any]) -> str | None:
    """``setup``, ``1741-1/hussars``, ``1741-2/france``, ``1741-winter``; None when over."""
    step, turn = state["step"], state["turn"]
    if step == "setup":
        return "setup"
    if step == "over":
        return None
    year = FIRST_YEAR + (turn - 1) // 3
    if step == "winter":
        return f"{year}-winter"
    return f"{year}-{(turn - 1) % 3 + 1}/{step}"


def phase_powers(state: dict[str, Any]) -> tuple[str, ...]:
    """The powers that must send orders in the current round: those with a player and with
    something to order (M12.12: a step nobody can give orders for runs on by itself).

    Decided from public facts only (the pieces on the map, the generals and trains off it), never
    from hidden troop numbers or a hand's value: the report that names who owes orders is public."""
    step = state["step"]
    seated = {p for _, ps in model.seats(state) for p in ps}
    if step in model.STAGES:  # stage_powers names only powers in the game
        ordering = stage_order_powers(state)
        return tuple(p for p in model.stage_powers(state, step)
                     if p in seated and p in ordering)
    with_player = [p for p in state["powers"] if p in seated]
    if step == "setup":
        return tuple(with_player)
    if step == "winter":
        return tuple(p for p in with_player if may_buy_in_winter(state, p))
    if step in ("politics", "commit"):
        return tuple(p for p in politics.BIDDERS if p in with_player)
    if step == "hussars":
        if state["options"]["pbem.rounds"] == "merge_hussars_into_politics" and \
                not model.is_intro(state):
            return ()  # M12.1: AU's hussar cities came with its political orders
        au_on_map = any(g["power"] == "AU" and g["city"] is not None
                        for g in state["generals"].values())
        return ("AU",) if "AU" in with_player and au_on_map else ()
    return ()


def has_stage_orders(state: dict[str, Any], power: str) -> bool:
    """True if ``power`` has a piece on the map, or a train off it that may come back (M3.9).
    Whether its hand can pay the return is hidden, so it is not asked here: the orders are
    optional, and the stage checks the payment."""
    return power in stage_order_powers(state)


def stage_order_powers(state: dict[str, Any]) -> set[str]:
    """Every power :func:`has_stage_orders` is true for (one pass over the pieces)."""
    out = {v["power"] for v in state["generals"].values() if v["city"] is not None}
    for v in state["trains"].values():
        if v["city"] is not None or state["train_max"].get(v["power"], 0) > 0:
            out.add(v["power"])
    return out


def may_buy_in_winter(state: dict[str, Any], power: str) -> bool:
    """True if ``power`` has a general, on the map or off it: it may buy troops or a return this
    winter (M8.2, M8.3). Troop numbers and hand values are hidden, so whether it can afford any
    is left to its orders (optional, like every winter order)."""
    return any(g["power"] == power for g in state["generals"].values())


def current_phase(state: dict[str, Any]) -> Phase | None:
    """The round waiting for orders, or None once the game is over."""
    pid = phase_id(state)
    if pid is None:
        return None
    step = state["step"]
    kind = "stage" if step in model.STAGES else step
    return Phase(pid, kind, phase_powers(state), kind)


# --- a new game -----------------------------------------------------------------------------


def new_game(scenario: str, options: dict[str, Any], rng: PhaseRng, board: Any = None,
             forces: Any = None) -> dict[str, Any]:
    """The state before the set-up round (M2.1 steps 1 and 3; the TCs are shuffled now with
    secret chance, M11.8, and dealt when the set-up round resolves)."""
    scen = model.scenario_data(scenario)
    opts = model.resolve_options(scen.get("options"), options)
    if opts["game.variant"] != scen["variant"]:
        raise DataError(f"the scenario '{scenario}' is the {scen['variant']} game; the option "
                        f"game.variant cannot make it {opts['game.variant']}")
    if board is None:
        from pbem.games.maria.board import load_board

        board = load_board()
    model.register_board(board, forces)
    forces = model.forces_of(board)
    intro = scen["variant"] == "intro"
    powers = [p for p in model.POWERS if p in scen["powers"]]
    state = empty_state(scen, opts, board.id, powers)
    for g in forces.generals:
        if g.power in powers and (g.intro or not intro):
            state["generals"][g.id] = new_general(g.name, g.power, g.rank, g.minimum, g.start)
    for t in forces.trains:
        if t.power in powers and (t.intro or not intro):
            state["trains"][t.id] = {"power": t.power, "city": t.start}
    tmax = forces.train_max_intro if intro else forces.train_max
    state["train_max"] = {p: int(tmax.get(p, 0)) for p in powers}
    for city, f in forces.fortress_start.items():
        if city in board.cities and board.map_of(city) in state["maps"]:
            model.set_control(state, board, city, f.controller, f.marker)
            if f.marker and state["pools"] is not None and f.controller in state["pools"]:
                state["pools"][f.controller] -= 1
    state["troop_totals"] = {p: intro_total(forces, p, intro, opts) for p in powers}
    if not intro:
        from pbem.games.maria.political import load_deck

        pdeck = load_deck(board, scen.get("political"))
        state["politics"] = politics.new_politics(pdeck, rng.secret)
        politics.shuffle_groups(state["politics"], opts["politics.deck_mode"] == "single",
                                rng.secret)
    deck = full_deck()
    rng.secret.shuffle(deck)
    state["cards"]["draw"] = deck
    return state


def intro_total(forces: Any, power: str, intro: bool, opts: dict[str, Any]) -> int:
    """A power's troop total: in the introductory game, the total less the default-split
    troops of the generals it leaves out (FR 26 - 15 = 11, AU 28 - 4 = 24; maria.md,
    "Introductory subset")."""
    total = int(forces.powers[power].troops)
    if not intro:
        return total
    gens = forces.generals_of(power)
    split = model.default_split(
        [{"id": g.id, "rank": g.rank, "min": g.minimum} for g in gens], total,
        int(opts["troops.max"]))
    return total - sum(split[g.id] for g in gens if not g.intro)


def empty_state(scen: dict[str, Any], opts: dict[str, Any], board_id: str,
                powers: list[str]) -> dict[str, Any]:
    """A state with no pieces: the skeleton every game (and every case) starts from."""
    intro = scen["variant"] == "intro"
    return {
        "game": "maria",
        "scenario": scen["scenario"],
        "variant": scen["variant"],
        "board": board_id,
        "options": opts,
        "turns": int(scen["turns"]),
        "winters": [int(w) for w in scen["winters"]],
        "maps": list(scen["maps"]),
        "powers": powers,
        "alliances": dict(scen.get("alliances") or {"BA": "FR", "SX": "PR"}),
        "neutral": [],
        "turn": 0,
        "step": "setup",
        "generals": {},
        "trains": {},
        "train_max": {},
        "troop_totals": {},
        "hussars": [],
        "cards": {"draw": [], "discard": [], "hands": {p: [] for p in powers}, "reshuffles": 0},
        "control": {},
        "pools": None if intro else dict(tracks.MARKER_POOLS),
        "last_battle_winner": None,
        "standing": {p: {} for p in powers},
        "stage_record": {"moved": [], "lost": [], "pending": [], "acting": []},
        "result": None,
        **({} if intro else advanced_fields(opts)),
    }


def advanced_fields(opts: dict[str, Any]) -> dict[str, Any]:
    """The advanced game's display: tracks (M9.10-M9.12), boxes, markers set aside or out of
    the game, winter scores and the running effects (M1.11-M1.13)."""
    return {
        "tracks": {"saxony": opts["tracks.saxony.start"], "russia": opts["tracks.russia.start"],
                   "italy": opts["tracks.italy.start"]},
        "boxes": {},
        "set_aside": {"PR": 0},
        "out_of_game": {p: 0 for p in ("AU", "FR", "PR", "PA")},
        "scores": {p: [] for p in ("AU", "FR", "PR", "PA")},
        "draw_effects": [],
        "blocks": [],
        "hussar_effects": [],
        "peace": None,
        "election": None,
    }


def new_general(name: str, power: str, rank: int, minimum: int | None, city: str | None
                ) -> dict[str, Any]:
    """A general record of the state."""
    return {"name": name, "power": power, "rank": rank, "min": minimum, "city": city,
            "troops": 0, "face_down": False, "supply_failures": 0, "blocked": False}


# --- resolving a round ----------------------------------------------------------------------


def resolve(state: dict[str, Any], orders: dict[str, Any], rng: PhaseRng) -> Resolution:
    """Resolve the current round and run on to the next round that needs orders (M12.12)."""
    st = copy_state(state)
    ctx = Ctx(st, model.board_of(st), rng)
    step = st["step"]
    if step == "over":
        return Resolution(st, [])
    wanted = set(phase_powers(st))
    kind = "stage" if step in model.STAGES else step
    clean: dict[str, dict[str, Any]] = {}
    for power, o in sorted(orders.items()):
        if power not in st["powers"] or not o:
            continue
        if not isinstance(o, dict):
            ctx.void(power, "", N_("the orders of a power must be a mapping; ignored"))
            continue

        def void(where: str, reason: str, power: str = power) -> None:
            ctx.void(power, where, reason)

        if "standing" in o:
            apply_standing(ctx, power, shape.standing(o["standing"], void))
        record_deals(ctx, power, o.get("deals"))
        if power in wanted and kind in shape.SHAPERS:
            clean[power] = shape.SHAPERS[kind](o, void)
    if step == "setup":
        run_setup(ctx, clean)
    elif step == "commit":
        politics.run_commit(ctx, clean)
    elif step == "politics":
        run_politics_round(ctx, clean)
    elif step == "hussars":
        hussars.place_hussars(ctx, clean.get("AU") or {})
    elif step in model.STAGES:
        run_stage_orders(ctx, step, clean)
    elif step == "winter":
        winter.run_winter(ctx, clean)
        end_winter(ctx)
    if st["result"] is None:
        advance(ctx)
    return Resolution(st, ctx.events)


STANDING_KEYS = ("defence", "default_plan", "loss_order", "hussar_policy", "transfer_preference",
                 "trump", "accept_peace", "payments", "block_preference",
                 "withdraw_preference", "troop_gain_preference", "troop_loss_preference",
                 "discard_preference", "marker_return_preference", "train_site_preference")


def apply_standing(ctx: Ctx, power: str, update: Any) -> None:
    """M12.3: standing-order updates take effect when the round resolves, before its steps."""
    if not isinstance(update, dict):
        return
    # a new mapping, never the old one changed: the state before shares it (SHALLOW)
    standing = ctx.state["standing"][power] = dict(ctx.state["standing"].get(power, {}))
    for key in STANDING_KEYS:
        if key in update:
            if update[key] is None:
                standing.pop(key, None)
            else:
                standing[key] = copy.deepcopy(update[key])


def record_deals(ctx: Ctx, power: str, deals: Any) -> None:
    """M12.10: a deal is stored once both parties have sent the same text; it is shown only to
    them and enforces nothing. An offer waits in the state until the other party matches it."""
    if not isinstance(deals, list):
        return
    state = ctx.state
    seat = model.seat_of(state, power)
    offers = state.setdefault("deal_offers", [])
    done = state.setdefault("deals", [])
    for d in deals:
        if not isinstance(d, dict) or not isinstance(d.get("text"), str) or seat is None:
            continue
        other, text = d.get("with"), d["text"].strip()
        if other not in model.seat_powers(state) or other == seat:
            ctx.void(power, "deals", N_("'%(other)s' is not another player of this game") % {"other": other})
            continue
        match = {"from": other, "to": seat, "text": text}
        if match in offers:
            offers.remove(match)
            parties = sorted([seat, str(other)])
            done.append({"parties": parties, "text": text, "phase": phase_id(state)})
            for party in parties:
                ctx.event("deal", audience=party, parties=parties, text=text)
        elif {"from": seat, "to": other, "text": text} not in offers:
            offers.append({"from": seat, "to": other, "text": text})


def run_politics_round(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """Steps 3-9 of the political phase (M9.1); AU's hussar cities are kept for the hussar
    step under ``pbem.rounds: merge_hussars_into_politics`` (M12.1)."""
    state = ctx.state
    if ctx.opt("pbem.rounds") == "merge_hussars_into_politics":
        cities = (orders.get("AU") or {}).get("hussars")
        state["politics"]["hussar_orders"] = list(cities) if isinstance(cities, list) else []
    politics.run_politics(ctx, orders)
    if state["result"] is not None:
        return
    tracks.electoral_boxes(ctx)
    won = tracks.sudden_death(state)
    if won is not None:
        finish(ctx, won)


def end_winter(ctx: Ctx) -> None:
    """Winter steps 3-4 (M8.1): scoring in the advanced game (M8.4), and a sudden-death check
    only under ``victory.check_in_winter`` (M10.2)."""
    if model.is_intro(ctx.state):
        return
    tracks.winter_score(ctx)
    tracks.sync_track_withdrawals(ctx)
    if ctx.opt("victory.check_in_winter"):
        won = tracks.sudden_death(ctx.state)
        if won is not None:
            finish(ctx, won)


def run_setup(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """M2.1 steps 2 and 5: troop splits (M1.7), then the starting hands."""
    state = ctx.state
    top = int(ctx.opt("troops.max"))
    for power in state["powers"]:
        gens = [g for g in model.general_ids(state) if state["generals"][g]["power"] == power]
        if not gens:
            continue
        total = state["troop_totals"][power]
        info = [{"id": g, "rank": state["generals"][g]["rank"], "min": state["generals"][g]["min"]}
                for g in gens]
        split = (orders.get(power) or {}).get("troops")
        problem = split_problem(state, power, split) if split is not None else "no split given"
        if problem:
            if split is not None:
                ctx.void(power, "troops", N_("%(problem)s; the default split is used (M1.7)") % {"problem": problem})
            split = model.default_split(info, total, top)
        assert isinstance(split, dict)
        for g in gens:
            state["generals"][g]["troops"] = int(split[g])
        ctx.private(power, "troops", split={g: int(split[g]) for g in gens})
    for power in model.POWERS:
        if power in state["powers"]:
            n = int(ctx.opt("cards.draws").get(power, 0))
            got = model.draw_cards(state, power, n, ctx.rng.secret)
            ctx.event("draw", power=power, count=len(got))
            ctx.private(power, "drawn", cards=got)
    if "tracks" in state:
        tracks.sync_track_withdrawals(ctx)  # M2.1 step 4


def split_problem(state: dict[str, Any], power: str, split: Any) -> str | None:
    """Why ``split`` is not a valid troop split for ``power`` (M1.7), or None."""
    gens = {g: v for g, v in state["generals"].items() if v["power"] == power}
    top = int(state["options"]["troops.max"])
    if not isinstance(split, dict):
        return N_("the split must map each general to its troops")
    extra = sorted(set(split) - set(gens))
    if extra:
        return N_("%(extra)s is not a general of %(power)s") % {"extra": extra[0], "power": model.POWER_NAMES[power]}
    for g, v in sorted(gens.items(), key=lambda kv: kv[1]["rank"]):
        n = split.get(g)
        low = v["min"] or 1
        if not isinstance(n, int) or isinstance(n, bool):
            return N_("%(g)s needs a number of troops") % {"g": g}
        if not low <= n <= top:
            return N_("%(g)s must get %(low)s to %(top)s troops, not %(n)s") % {"g": g, "low": low, "top": top, "n": n}
    total = sum(split.values())
    if total != state["troop_totals"][power]:
        return (N_("the split adds up to %(total)s, but %(power)s has %(troops)s troops") % {"total": total, "power": model.POWER_NAMES[power], "troops": state['troop_totals'][power]})
    return None


def run_stage_orders(ctx: Ctx, stage: str, orders: dict[str, dict[str, Any]]) -> None:
    """Steps (c)-(f) of a stage (M2.4)."""
    state = ctx.state
    acting = list(ctx.stage["acting"])
    advanced = "tracks" in state
    if advanced:
        tracks.return_withdrawn(ctx, acting)
    movement.run_movement(ctx, acting, orders)
    if advanced:
        tracks.check_set_aside(ctx)
    battle.fight_battles(ctx, acting, orders)
    if advanced:
        tracks.check_set_aside(ctx)
    conquest.retroactive(ctx, acting)
    if advanced:
        tracks.end_of_stage(ctx, acting)
        tracks.electoral_boxes(ctx)
    won = victory.check_stage(state, ctx.board)
    if won is not None:
        finish(ctx, won)
        return
    limit = ctx.opt("cards.hand_limit")
    if limit != "none":
        for p in acting:
            hand = state["cards"]["hands"].get(p, [])
            if len(hand) > int(limit):
                drop = owner_discard(hand, len(hand) - int(limit))
                model.spend_cards(state, p, drop)
                ctx.event("discard", power=p, cards=drop, reason="hand limit (M1.9)")


def finish(ctx: Ctx, won: dict[str, Any]) -> None:
    """End the game with ``won`` ({winner, reason}) (M10)."""
    state = ctx.state
    won = dict(won)
    won["player"] = model.seat_of(state, won["winner"])
    state["result"] = won
    state["step"] = "over"
    ctx.event("game_over", **won)


def start_stage(ctx: Ctx, stage: str) -> bool:
    """Steps (a) and (b) of ``stage``; False if no power acts in it (M2.5)."""
    state = ctx.state
    if "tracks" in state:
        tracks.start_of_stage(ctx, stage)
        tracks.sync_track_withdrawals(ctx)
    acting = model.stage_powers(state, stage)
    state["stage_record"] = {"moved": [], "lost": [], "pending": [], "acting": acting}
    if not acting:
        return False
    draws = ctx.opt("cards.draws")
    for p in acting:  # already in power order (M2.4)
        n = max(0, int(draws.get(p, 0)) + draw_change(state, p))
        got = model.draw_cards(state, p, n, ctx.rng.secret)
        ctx.event("draw", power=p, count=len(got))
        ctx.private(p, "drawn", cards=got)
    if state.get("draw_effects"):  # E3: "n stages" of the affected power (M2.6)
        for e in state["draw_effects"]:
            if e["power"] in acting:
                e["stages"] -= 1
        state["draw_effects"] = [e for e in state["draw_effects"] if e["stages"] > 0]
    supply.supply_step(ctx, acting)
    return True


def draw_change(state: dict[str, Any], power: str) -> int:
    """The sum of changes in force to ``power``'s draw (tracks and cards: advanced game)."""
    return tracks.draw_change(state, power)


def advance(ctx: Ctx) -> None:
    """Move to the next round, running every step that needs no orders on the way (M12.12)."""
    state = ctx.state
    while True:
        step, turn = state["step"], state["turn"]
        if step == "setup":
            turn, nxt = 1, turn_steps(state, 1)[0]
        else:
            steps = turn_steps(state, turn)
            i = steps.index(step)
            if i + 1 < len(steps):
                nxt = steps[i + 1]
            else:
                turn += 1
                if turn > state["turns"]:
                    finish(ctx, victory.check_end(state, ctx.board))
                    return
                nxt = turn_steps(state, turn)[0]
        state["turn"], state["step"] = turn, nxt
        if nxt in model.STAGES:
            if not start_stage(ctx, nxt):
                continue
            if not phase_powers(state):
                ctx.event("round_skipped", step=nxt, reason="no power has anything to order")
                run_stage_orders(ctx, nxt, {})
                if state["result"] is not None:
                    return
                continue
            return
        if nxt == "winter":
            winter.start_winter(ctx)
            if not model.is_intro(state):
                tracks.election(ctx, "M9.14")  # winter step 1 (M8.1)
            if phase_powers(state):
                return
            ctx.event("round_skipped", step="winter", reason="no power can buy anything")
            end_winter(ctx)
            if state["result"] is not None:
                return
            continue
        if nxt in ("commit", "politics") and (nxt == "commit" or
                                              "commit" not in turn_steps(state, turn)):
            politics.start_politics(ctx)
        if nxt == "hussars" and not phase_powers(state):
            pol = state.get("politics")
            merged = state["options"]["pbem.rounds"] == "merge_hussars_into_politics"
            if merged and pol is not None and pol.get("hussar_orders") is not None:
                hussars.place_hussars(ctx, {"hussars": pol["hussar_orders"],
                                            "source": f"{phase_id_of(state, turn)}/politics"})
            else:
                hussars.place_hussars(ctx, {})  # lifted, none placed (M7.1)
            continue
        return
