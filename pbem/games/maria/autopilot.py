"""The autopilot: orders for a seat whose player is gone, played to win for that seat.

It sees what the seat's player would see and nothing more: :func:`seat_state` rebuilds the
state from the public position and the seat's own secrets, and fills every other secret (the
other powers' hands and troop numbers, the order of the piles, their standing orders) with a
sample drawn from the autopilot's own random stream. Everything after that works on the rebuilt
state only, so another seat's secret cannot steer an order (tests/test_autopilot.py changes them
and sees the same orders).

A stage is planned by search: each general in turn tries its most promising destinations, and
each try is played out with the rules engine itself on the rebuilt state (our stage is the only
one that moves; the other powers fight back with their sampled hands). The plan that scores best
for the seat wins (:func:`score`: victory, fortresses that count, troops, supply, closeness to
what is still to take or to defend). The other rounds use rules of thumb: an even troop split,
hussars on the enemy's supply lines, every troop the hand can buy in winter, bids that follow
the cards' worth. docs/autopilot.md explains the choices.
"""

from __future__ import annotations

from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import plain_copy
from pbem.games.maria import adjudicate, bots, model
from pbem.games.maria.cards import card_key, card_value, cheapest_payment, payment_value
from pbem.games.maria.context import Ctx
from pbem.games.maria.orders import default_orders, kind_of
from pbem.games.maria.rules.hussars import hussar_count
from pbem.games.maria.rules.movement import reentry_problem, train_max
from pbem.games.maria.rules.victory import intro_counts

TRIES = 16          # plays of the stage per decision at most, shared among the seat's generals
WORK = 200          # plays times pieces on the map: the engine's cost of a play grows with them
PLAN = {"use_reserve": True}  # battle plan: every card that helps, reserves included
GUARD = 6.0         # a conquest left unguarded with an enemy general within reach
MARKER = 20.0       # advanced game: one victory marker ahead of the best rival
HELD = 20.0         # advanced game: a fortress held


def seat_state(state: dict[str, Any], seat: str | None, rng: Rng) -> dict[str, Any]:
    """The state as ``seat`` can know it: public facts and its own secrets as they are, every
    other secret replaced by a sample from ``rng`` that only public facts shape."""
    st = plain_copy(state)
    own = set(model.seat_powers(st).get(seat, [])) if seat else set()
    cards = st["cards"]
    others = [p for p in sorted(cards["hands"]) if p not in own]
    pool = sorted(cards["draw"] + [c for p in others for c in cards["hands"][p]], key=card_key)
    in_hands = len(pool) - len(cards["draw"])  # public: the draw pile's size is
    if st["options"]["hidden.hand_size_public"]:
        sizes = {p: len(cards["hands"][p]) for p in others}
    else:
        sizes = {p: in_hands // len(others) + (i < in_hands % len(others)) for i, p in enumerate(others)}
    rng.shuffle(pool)
    for p in others:
        cards["hands"][p], pool = pool[:sizes[p]], pool[sizes[p]:]
    cards["draw"] = pool
    top = int(st["options"]["troops.max"])
    count: dict[str, int] = {}
    for g in st["generals"].values():
        count[g["power"]] = count.get(g["power"], 0) + 1
    for g in st["generals"].values():
        if g["power"] not in own:
            g["troops"] = max(1, min(top, round(st["troop_totals"].get(g["power"], top) / count[g["power"]])))
    st["standing"] = {p: v for p, v in st["standing"].items() if p in own}
    for key in ("deals", "deal_offers"):
        if key in st:
            st[key] = [d for d in st[key] if seat in d.get("parties", [d.get("from")])]
    st.pop("bid_log", None)
    if "politics" in st:
        pol = st["politics"]
        pol["groups"] = {g: sorted(v) for g, v in pol["groups"].items()}
        if "AU" not in own:
            pol["hussar_orders"] = None
    return st


def autopilot_orders(state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
    """Orders for ``power`` from what its seat knows; deterministic in ``rng``. Nothing but the
    seat (public) is read from ``state`` before it is rebuilt as the seat knows it."""
    seat = model.seat_of(state, power)
    st = seat_state(state, seat, rng.fork("sample"))
    if power not in adjudicate.phase_powers(st):
        return {}
    kind = kind_of(st)
    if kind == "setup":
        return _setup(st, power)
    if kind == "hussars":
        return _hussars(st, power)
    if kind == "stage":
        return _stage(st, power, seat, rng.fork("stage"))
    if kind == "winter":
        return _winter(st, power)
    if kind in ("commit", "politics"):
        return _politics(st, power)
    return default_orders(st, power)


# -- scoring ---------------------------------------------------------------------------------------


def _side(state: dict[str, Any], seat: str | None, power: str) -> set[str]:
    return set(model.seat_powers(state).get(seat, [power])) if seat else {power}


_TARGETS: dict[tuple[int, tuple[str, ...], bool, str], list[str]] = {}


def _targets(state: dict[str, Any], board: Any, major: str) -> list[str]:
    """The fortresses whose control decides the game for ``major`` (intro: M10.1); remembered,
    as the distances are: a search asks for them once per play."""
    key = (id(board), tuple(sorted(state["maps"])), model.is_intro(state), major)
    if key not in _TARGETS:
        if len(_TARGETS) > 256:
            _TARGETS.clear()
        fs = [f for f in model.fortresses_of(board) if board.map_of(f) in state["maps"]]
        if key[2]:
            fs = [f for f in fs if board.home_of(f) == "AU" or major != "FR" and board.territory_of(f) == "silesia"]
        _TARGETS[key] = fs
    return list(_TARGETS[key])


def _takeable(state: dict[str, Any], board: Any, fortress: str, major: str) -> bool:
    """M4.3: an enemy fortress of ``major`` (held by an enemy or by nobody); an ally's is not."""
    holder = model.controller(state, board, fortress)
    return holder is None or model.are_enemies(state, major, holder)


def score(state: dict[str, Any], side: set[str]) -> float:
    """How good ``state`` is for the powers of ``side`` (higher is better)."""
    board = model.board_of(state)
    result = state.get("result")
    if result and result.get("winner"):
        return 10_000.0 if result["winner"] in side else -10_000.0
    major = sorted(side, key=lambda p: ("FR", "PR", "AU", "PA", "BA", "SX").index(p))[0]
    gens = state["generals"]
    val = 0.0
    targets = _targets(state, board, major)
    holders = {f: model.controller(state, board, f) for f in targets}
    held = [f for f in targets if holders[f] in side]
    if model.is_intro(state):
        counts = intro_counts(state, board)
        if major in counts:
            val += 30.0 * counts[major]
        else:  # Austria: keep both attackers far from their goals
            val -= 30.0 * (counts["FR"] * 12 / 9 + counts["PR"])
    else:
        val += HELD * len(held) + MARKER * _standing(state, side)
    placed = model.on_map(state)
    enemy = {p: model.are_enemies(state, major, p) for p in state["powers"]}
    ours = [g for g in placed if gens[g]["power"] in side]
    theirs = [g for g in placed if enemy[gens[g]["power"]]]
    val += 4.0 * sum(gens[g]["troops"] for g in ours) - 3.0 * sum(gens[g]["troops"] for g in theirs)
    val -= 12.0 * sum(1 for g, v in gens.items() if v["power"] in side and v["city"] is None)
    val -= 3.0 * sum(1 for g in ours if gens[g]["face_down"])
    foe_cities = {gens[g]["city"] for g in theirs}
    guard = {c for g in ours for c in board.within(gens[g]["city"], 3)}
    # what we hold and do not guard, an enemy general can take back next stage
    val -= GUARD * sum(1 for f in held if f not in guard and not foe_cities.isdisjoint(board.within(f, 4)))
    # M4.3: an enemy fortress (held by an enemy or by nobody) may be taken; M4.4: not while an
    # enemy general stands within 3 of it
    open_targets = [f for f in targets if holders[f] is None or enemy.get(holders[f], False)]
    if open_targets and (major != "AU" or not model.is_intro(state)):
        near = board.nearest([f for f in open_targets if foe_cities.isdisjoint(board.within(f, 3))]
                          or open_targets)
        val -= 3.0 * sum(min(near.get(gens[g]["city"], 30), 30) for g in ours)
    if major == "AU" or not model.is_intro(state):
        val += 2.0 * sum(1 for f in held if f in guard)
        if foe_cities:
            foes = board.nearest(foe_cities)
            val -= 0.5 * sum(min(foes.get(gens[g]["city"], 30), 30) for g in ours)
    trains = {v["city"] for v in state["trains"].values() if v["power"] in side and v["city"]}
    val -= 3.0 * sum(1 for g in ours if trains.isdisjoint(board.within(gens[g]["city"], 5))
                     and board.home_of(gens[g]["city"]) != gens[g]["power"])
    return val


def _standing(state: dict[str, Any], side: set[str]) -> float:
    """Advanced game: how far the side's best major power is ahead of the best rival, in markers.
    A winter scores the markers left in the pool and the lowest sum of the four wins (M8.4, M10.4);
    an empty pool wins at once (M10.2). Each major is judged by its winter sum so far plus its pool
    counted once for every winter still to come, and by its pool itself."""
    pools = state.get("pools") or {}
    scores = state.get("scores") or {}
    left = sum(1 for w in state.get("winters") or [] if w >= state["turn"])

    def projected(m: str) -> int:
        return sum(scores.get(m) or []) + int(pools[m]) * left

    ours = [m for m in sorted(pools) if m in side]
    theirs = [m for m in sorted(pools) if m not in side]
    if not ours or not theirs:
        return 0.0
    def best(values: list[int], mine: bool) -> float:
        # the rivals' best decides; of our own majors the best counts, and the others half as
        # much (a marker either of them places brings the seat nearer)
        low = min(values)
        return low + 0.5 * (sum(values) / len(values) - low) if mine else low

    ahead = best([projected(m) for m in theirs], False) - best([projected(m) for m in ours], True)
    return ahead + 2.0 * (best([int(pools[m]) for m in theirs], False) - best([int(pools[m]) for m in ours], True))


# -- the stage ---------------------------------------------------------------------------------------


def _play_out(state: dict[str, Any], mine: dict[str, dict[str, Any]], rng: Rng) -> dict[str, Any]:
    """The state after this stage's round with ``mine`` (power -> orders) and defaults for the
    rest."""
    phase = adjudicate.current_phase(state)
    assert phase is not None
    orders = {p: mine.get(p) or default_orders(state, p) for p in phase.powers}
    try:
        return adjudicate.resolve(state, orders, PhaseRng(rng.fork("p"), rng.fork("s"))).state
    except Exception:  # noqa: BLE001 - a plan the engine cannot play is simply not chosen
        return {}


def _stage(state: dict[str, Any], power: str, seat: str | None, rng: Rng) -> dict[str, Any]:
    """The seat plans its whole stage at once (France with Bavaria, Prussia with Saxony, ...),
    so that its powers' marches work together; ``power``'s part of that plan is returned."""
    ctx = Ctx(state, model.board_of(state), PhaseRng(rng.fork("ctx-public"), rng.fork("ctx-secret")))
    board = ctx.board
    gens = state["generals"]
    side = _side(state, seat, power)
    acting = [p for p in adjudicate.phase_powers(state) if p in side] or [power]
    major = model.major_of(state, power)
    mine = sorted((g for g in model.on_map(state) if gens[g]["power"] in acting and not gens[g].get("blocked")),
                  key=lambda g: (-gens[g]["troops"], g))
    goals = [f for f in _targets(state, board, major) if _takeable(state, board, f, major)]
    foes = [gens[g]["city"] for g in model.on_map(state) if model.are_enemies(state, power, gens[g]["power"])]
    near = board.nearest(goals or foes or [])
    moves: dict[str, dict[str, Any]] = {}
    sim = rng.fork("sim")
    reach: dict[str, dict[str, list[str]]] = {}  # train -> where it may go: the same for every plan

    def orders_for(moves: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        planned = {g: (moves[g]["path"][-1] if g in moves else gens[g]["city"]) for g in mine}
        plan = {}
        for p in acting:
            out: dict[str, Any] = {"moves": [moves[g] for g in mine if g in moves and gens[g]["power"] == p]
                                   + _train_moves(state, ctx, p, planned, reach),
                                   "plans": {"stage": dict(PLAN)}}
            reentry = _reentry(state, ctx, p, planned)
            if reentry:
                out["reentries"] = reentry
            plan[p] = out
        return plan

    def value(moves: dict[str, dict[str, Any]]) -> float:
        after = _play_out(state, orders_for(moves), sim)
        return score(after, side) if after else float("-inf")

    best = value(moves)
    budget = plays_for(state)
    each = max(1, budget // max(1, len(mine)))  # tries per general: marches, and a force march
    played = 0
    for g in mine:
        if played >= budget:
            break
        owner = gens[g]["power"]
        paths = bots.destinations(ctx, owner, [g], "general")
        ranked = sorted(paths, key=lambda c: (_conquests(state, board, owner, paths[c]) * -10
                                              + near.get(c, 30), c))[:max(1, each - 1)]
        tries: list[dict[str, Any]] = [{"piece": g, "path": paths[c]} for c in ranked]
        if each > 1:
            fast = bots.destinations(ctx, owner, [g], "general", True)
            tries += [{"piece": g, "path": fast[c], "force_march": True}
                      for c in sorted(fast, key=lambda c: (near.get(c, 30), c))[:1]
                      if fast[c] not in (t["path"] for t in tries)]  # a march already tried
        for move in tries[:budget - played]:
            played += 1
            trial = dict(moves)
            trial[g] = move
            v = value(trial)
            if v > best:
                best, moves = v, trial
    return orders_for(moves)[power]


def plays_for(state: dict[str, Any]) -> int:
    """How many plays of the stage one decision may try: ``TRIES``, fewer when many pieces
    stand on the map (each play moves and supplies them all), so that a decision keeps within
    its time without reading a clock (a clock would make the orders depend on the machine)."""
    pieces = len(model.on_map(state)) + sum(1 for v in state["trains"].values() if v["city"])
    return max(6, min(TRIES, WORK // max(1, pieces)))


def _conquests(state: dict[str, Any], board: Any, power: str, path: list[str]) -> int:
    """How many fortresses of interest the path passes that are not ours."""
    return sum(1 for c in path if board.cities[c].fortress and _takeable(state, board, c, model.major_of(state, power)))


def _train_moves(state: dict[str, Any], ctx: Ctx, power: str, planned: dict[str, str],
                 reach: dict[str, dict[str, list[str]]]) -> list[dict[str, Any]]:
    """Trains follow the generals: each goes where the fewest generals are beyond its reach.
    ``reach`` remembers each train's destinations (they do not depend on the plan)."""
    board = ctx.board
    out = []
    cities = list(planned.values())
    for t, v in sorted(state["trains"].items()):
        if v["power"] != power or v["city"] is None or not cities:
            continue
        if t not in reach:
            reach[t] = bots.destinations(ctx, power, [t], "train")
        paths = reach[t]
        options: dict[str, list[str]] = {v["city"]: [], **paths}

        def cost(c: str) -> tuple[int, int, str]:
            d = [board.distance(c, g) or 99 for g in cities]
            return (sum(1 for x in d if x > 5), sum(d), c)

        dest = min(options, key=cost)
        if dest != v["city"]:
            out.append({"piece": t, "path": options[dest]})
    return out


def _reentry(state: dict[str, Any], ctx: Ctx, power: str, planned: dict[str, str]) -> list[dict[str, str]]:
    off = sorted(t for t, v in state["trains"].items() if v["power"] == power and v["city"] is None)
    on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
    hand = state["cards"]["hands"].get(power, [])
    cost = int(state["options"]["trains.reentry_cost"])
    if not off or on >= train_max(state, power) or not planned or \
            cheapest_payment(hand, cost, (), state["options"]) is None:
        return []
    sites = [s for s in model.reentry_sites(state, ctx.board, power) if reentry_problem(ctx, power, s) is None]
    if not sites:
        return []
    board = ctx.board
    site = min(sites, key=lambda s: (sum(board.distance(s, c) or 99 for c in planned.values()), s))
    return [{"train": off[0], "site": site}]


# -- the other rounds ---------------------------------------------------------------------------------


def _setup(state: dict[str, Any], power: str) -> dict[str, Any]:
    """Troops as evenly as the minimums and the maximum allow: no general an easy victim."""
    legal = bots.legal_orders(state, power)
    gens = legal["generals"]
    split = {g: v["min"] for g, v in gens.items()}
    left = legal["total"] - sum(split.values())
    while left > 0:
        room = [g for g in sorted(split) if split[g] < gens[g]["max"]]
        if not room:
            break
        g = min(room, key=lambda g: (split[g], g))
        split[g] += 1
        left -= 1
    return {"troops": split}


def _hussars(state: dict[str, Any], power: str) -> dict[str, Any]:
    """Hussars where they cut most enemy supply: the cities nearest the enemy generals."""
    return {"hussars": _hussar_cities(state, power, bots.hussar_cities(state, model.board_of(state)))}


def _hussar_cities(state: dict[str, Any], power: str, allowed: list[str]) -> list[str]:
    board = model.board_of(state)
    gens = state["generals"]
    foes = {gens[g]["city"] for g in model.on_map(state) if model.are_enemies(state, power, gens[g]["power"])
            and board.home_of(gens[g]["city"]) != gens[g]["power"]}
    near = board.nearest(foes) if foes else {}
    return sorted(allowed, key=lambda c: (near.get(c, 99), c))[: hussar_count(state)]


def _winter(state: dict[str, Any], power: str) -> dict[str, Any]:
    """Every troop the hand pays for: the weakest generals first, then the return of lost ones."""
    legal = bots.legal_orders(state, power)
    hand, cost = legal["hand"], legal["cost"]
    budget = sum(payment_value(c, state["options"]) for c in hand)
    spent = 0
    recruits = []
    gens = state["generals"]
    for g in sorted(legal["recruits"], key=lambda g: (gens[g]["troops"], g)):
        n = min(legal["recruits"][g], (budget - spent) // cost)
        if n > 0:
            recruits.append({"general": g, "troops": n})
            spent += n * cost
    returns = []
    used: list[str] = []
    for g, sites in sorted(legal["returns"].items()):
        sites = bots.sites_with_room(state, sites, used)
        if sites and spent + cost <= budget:
            used.append(sites[0])
            returns.append({"general": g, "site": sites[0], "troops": 1})
            spent += cost
    while recruits or returns:
        if cheapest_payment(hand, spent, (), state["options"]) is not None:
            break
        # the cards cannot make this exact sum without change being owed: buy one troop less
        last = recruits[-1] if recruits else None
        if last and last["troops"] > 1:
            last["troops"] -= 1
        elif last:
            recruits.pop()
        else:
            returns.pop()
        spent -= cost
    return {"recruits": recruits, "returns": returns}


def _politics(state: dict[str, Any], power: str) -> dict[str, Any]:
    """Bids with the strongest card of each suit whose political card is worth having; every card
    taken is carried out; peace refused; standing answers left to the rules."""
    from pbem.games.maria.rules.politics import bid_commitment

    legal = bots.legal_orders(state, power)
    hand = legal["hand"]
    bid: dict[str, str] = {}
    for suit in ("S", "H", "D", "C"):
        cards = sorted((c for c in hand if c[0] == suit), key=lambda c: (card_value(c), c))
        bid[suit] = cards[-1] if cards and card_value(cards[-1]) >= 6 else "pass"
    salt = bots.bot_bid(state, power)[1]
    if legal["kind"] == "commit":
        return {"commitment": bid_commitment(state["turn"], power, bid, salt)}
    out: dict[str, Any] = {"bid": bid, "choices": list(legal["revealed"]) + ["keep"],
                           "cards": {c: {"execute": True} for c in sorted(legal["cards"])}}
    if legal["trustless"]:
        out["salt"] = salt
    if legal["names_trump"]:
        counts = {s: sum(card_value(c) for c in hand if c[0] == s) for s in ("S", "H", "D", "C")}
        out["trump"] = max(sorted(counts), key=lambda s: counts[s])
    if legal["accept_peace"]:
        out["accept_peace"] = False
    if "hussar_cities" in legal:
        out["hussars"] = _hussar_cities(state, power, legal["hussar_cities"])
    return out
