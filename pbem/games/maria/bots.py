"""Legal choices for order forms and bots (``legal_orders``) and random legal orders
(``bot_orders``) that drive complete games for fuzzing and the demo."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pbem.common.fair import Rng
from pbem.games.maria import model
from pbem.games.maria.adjudicate import phase_powers
from pbem.games.maria.cards import can_pay
from pbem.games.maria.context import Ctx
from pbem.games.maria.orders import kind_of
from pbem.games.maria.rules.hussars import hussar_count
from pbem.games.maria.rules.movement import (
    general_entry_problem,
    reentry_problem,
    train_entry_problem,
    train_max,
)
from pbem.games.maria.rules.supply import enemy_test, in_supply


def _ctx(state: dict[str, Any]) -> Ctx:
    return Ctx(state, model.board_of(state), None)  # type: ignore[arg-type]


def destinations(ctx: Ctx, power: str, movers: list[str], kind: str,
                 force: bool = False, occ: dict[str, list[str]] | None = None,
                 by_city: dict[str, list[str]] | None = None,
                 entries: dict[tuple[str, bool], str | None] | None = None) -> dict[str, list[str]]:
    """Every city ``movers`` (one train, or one or more generals in one city) may move to now,
    each with one legal path (fewest steps, then lowest ids): cities entered, in order.

    Breadth-first searches (any roads up to 3 cities, main roads up to 4; trains 2 and 3; main
    roads up to 8 for a force march) through the cities a move may pass: every path found walks
    along roads within the length limits (M3.1, M3.6), and the cities it enters are then checked
    by the movement rules themselves. ``occ``, ``by_city`` and ``entries``: see :class:`Reach`."""
    reach = Reach(ctx, power, movers, kind, force, occ, by_city, entries)
    return {city: reach.path(city) for city in reach.cities if reach.legal(city)}


class Reach:
    """The paths :func:`destinations` considers for ``movers`` (one per city of ``cities``,
    sorted, built by ``path``), each checked by the movement rules only when asked (``legal``): a bot that
    heads for the nearest target checks the cities nearest first and stops at the first legal
    one. ``occ`` and ``by_city`` may be passed in by a caller that asks for many pieces in one
    position; ``entries``, each city's answer of the movement rules, by one that asks for
    several single generals of ``power`` with the same ``force`` (their answers are the same:
    a path never enters its own start city)."""

    def __init__(self, ctx: Ctx, power: str, movers: list[str], kind: str, force: bool = False,
                 occ: dict[str, list[str]] | None = None,
                 by_city: dict[str, list[str]] | None = None,
                 entries: dict[tuple[str, bool], str | None] | None = None) -> None:
        state = ctx.state
        self.ctx, self.power, self.movers, self.force = ctx, power, movers, force
        self.general = kind == "general"
        rec = state["generals"].get(movers[0]) or state["trains"][movers[0]]
        self.start = rec["city"]
        self.occ = model.occupancy(state) if occ is None else occ
        self.by_city = model.generals_by_city(state) if by_city is None else by_city
        # city -> the parents of the search that found it; the cities, sorted
        self._found, self.cities = self._search()
        self._checked: dict[str, bool] = {}
        self._entries = {} if entries is None else entries  # each city's answer, once

    def _search(self) -> tuple[dict[str, dict[str, str]], list[str]]:
        state, board, power, occ = self.ctx.state, self.ctx.board, self.power, self.occ
        general, start, by_city = self.general, self.start, self.by_city
        searches = ((8, True),) if self.force else (
            ((3, False), (4, True)) if general else ((2, False), (3, True)))
        key = (board, start, searches)
        known = _OPEN_SEARCHES.get(key)
        if known is not None and occ.keys().isdisjoint(known[2]):
            return known[0], known[1]  # no piece near: what the empty roads give

        def passable(city: str) -> bool:
            here = occ.get(city)
            if not here:
                return True
            # generals pass only enemy trains (M3.2); nothing else may be passed
            return general and city not in by_city and all(
                model.are_enemies(state, power, p) for p in here)

        found: dict[str, dict[str, str]] = {}
        near: set[str] = set()
        for limit, main_only in searches:
            parent = {start: start}
            frontier = [start]
            roads = board.road_table(main_only)
            for _ in range(limit):
                nxt = []
                for here in frontier:
                    for n in roads[here]:
                        if n in parent:
                            continue
                        parent[n] = here
                        if n not in occ or passable(n):
                            nxt.append(n)
                frontier = nxt
            for city in parent:
                if city != start and city not in found:
                    found[city] = parent
            near.update(parent)
        near.discard(start)
        cities = sorted(found)
        if known is None and occ.keys().isdisjoint(near):
            _OPEN_SEARCHES[key] = (found, cities, frozenset(near))
        return found, cities

    def path(self, city: str) -> list[str]:
        """The cities entered on the way to ``city``, in order."""
        parent, start = self._found[city], self.start
        out = [city]
        here = parent[city]
        while here != start:
            out.append(here)
            here = parent[here]
        out.reverse()
        return out

    def legal(self, city: str) -> bool:
        """True if the movement rules allow the path to ``city`` (checked once)."""
        ok = self._checked.get(city)
        if ok is None:
            # the searches walk along roads within the length limits (M3.1, M3.6): only the
            # cities entered are left to check
            path = self.path(city)
            if self.general:
                prob = general_entry_problem(self.ctx, self.power, self.movers, path,
                                             self.force, self.occ, self.by_city, self._entries)
            else:
                prob = train_entry_problem(self.ctx, self.power, path, self.occ)
            ok = self._checked[city] = prob is None
        return ok

    def first_legal(self, cities: list[str]) -> str | None:
        """The first of ``cities`` the rules allow, or None."""
        return next((c for c in cities if self.legal(c)), None)

    def all_legal(self) -> list[str]:
        """Every legal destination, sorted."""
        return [c for c in self.cities if self.legal(c)]


_OPEN_SEARCHES: dict[tuple[Any, ...], tuple[dict[str, dict[str, str]], list[str],
                                             frozenset[str]]] = {}
"""Each start's searches on roads with no piece near (board, start, searches): their answer and
the cities they looked at (found or not, start aside)."""


def hussar_cities(state: dict[str, Any], board: Any) -> list[str]:
    """Every city a hussar may go to now (M7.1): on the Bohemia map, within range of an Austrian
    general, holding no piece of an enemy of Austria."""
    if "bohemia" not in state["maps"]:
        return []
    rng = int(state["options"]["hussars.range"])
    near: set[str] = set()
    for g in state["generals"].values():
        if g["power"] == "AU" and g["city"] is not None:
            near |= board.within(g["city"], rng)
    foe = enemy_test(state, "AU")
    held = {v["city"] for v in (*state["generals"].values(), *state["trains"].values())
            if v["city"] is not None and foe(v["power"])}
    cities = board.cities
    return sorted(c for c in near.difference(held) if cities[c].map == "bohemia")


def legal_orders(state: dict[str, Any], power: str) -> dict[str, Any]:
    """The legal choices of ``power`` in the current round."""
    return _legal_orders(state, power, power in phase_powers(state))


def _legal_orders(state: dict[str, Any], power: str, phase_power: bool) -> dict[str, Any]:
    kind = kind_of(state)
    out: dict[str, Any] = {"kind": kind, "phase_power": phase_power}
    if not out["phase_power"]:
        return out
    ctx = _ctx(state)
    gens = state["generals"]
    if kind == "setup":
        top = int(state["options"]["troops.max"])
        out["total"] = state["troop_totals"][power]
        out["generals"] = {g: {"min": gens[g]["min"] or 1, "max": top}
                           for g in model.general_ids(state) if gens[g]["power"] == power}
    elif kind == "hussars":
        out["count"] = hussar_count(state)
        out["cities"] = hussar_cities(state, ctx.board)
    elif kind in ("commit", "politics"):
        pol = state["politics"]
        hand = state["cards"]["hands"].get(power, [])
        out["revealed"] = list(pol["revealed"])
        out["cards"] = {c: pol["cards"][c] for c in pol["revealed"]}
        out["names_trump"] = pol.get("namer") == power and pol.get("trump") is None
        out["trump"] = pol.get("trump")
        out["bid_cards"] = {s: [c for c in hand if c[0] == s] for s in ("S", "H", "D", "C")}
        out["display"] = {p: list(v) for p, v in pol["display"].items()}
        out["accept_peace"] = power == "AU"
        out["subsidy_to"] = [p for p in state["powers"] if p != power
                             and model.seat_of(state, p) is not None
                             and not model.are_enemies(state, power, p)]
        out["hand"] = list(hand)
        out["trustless"] = state["options"]["pbem.commitments"] == "trustless"
        if power == "AU" and state["options"]["pbem.rounds"] == "merge_hussars_into_politics":
            out["hussar_cities"] = hussar_cities(state, ctx.board)
    elif kind == "stage":
        moves: dict[str, Any] = {}
        # one position: its pieces found once, and each city's answer of the movement rules
        # once for all single generals of ``power`` (per force march or not: see Reach)
        occ, by_city = model.occupancy(state), model.generals_by_city(state)
        entries: dict[bool, dict[tuple[str, bool], str | None]] = {False: {}, True: {}}
        for g in model.on_map(state):
            if gens[g]["power"] == power and not gens[g].get("blocked"):
                moves[g] = {"paths": destinations(ctx, power, [g], "general", False, occ, by_city, entries[False]),
                            "force_march": destinations(ctx, power, [g], "general", True, occ, by_city, entries[True])}
        stacks: dict[str, Any] = {}
        for g in moves:
            mates = [h for h in model.generals_in(state, gens[g]["city"])
                     if h != g and h in moves and h > g]
            for h in mates:
                stacks[f"{g}+{h}"] = {"stack": [g, h],
                                      "paths": destinations(ctx, power, [g, h], "general", False, occ, by_city)}
        for t, v in sorted(state["trains"].items()):
            if v["power"] == power and v["city"] is not None:
                moves[t] = {"paths": destinations(ctx, power, [t], "train", False, occ, by_city)}
        out["moves"] = moves
        out["stacks"] = stacks
        off = sorted(t for t, v in state["trains"].items()
                     if v["power"] == power and v["city"] is None)
        on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
        out["reentries"] = [] if not off or on >= train_max(state, power) else [
            {"train": off[0], "site": s} for s in model.reentry_sites(ctx.state, ctx.board, power)
            if reentry_problem(ctx, power, s, occ) is None]
        out["reentry_cost"] = int(state["options"]["trains.reentry_cost"])
        out["hand"] = list(state["cards"]["hands"].get(power, []))
        out["suits"] = {g: ctx.board.suit_of(gens[g]["city"]) for g in moves if g in gens}
        # M5.4: the cards each general could play in a battle where it stands now
        out["battle_cards"] = {
            g: [c for c in out["hand"] if c[0] in (suit, "R")] for g, suit in out["suits"].items()
        }
    elif kind == "winter":
        top = int(state["options"]["troops.max"])
        needs = state["options"]["winter.recruit_needs_supply"]
        supplied: dict[str, tuple[set[str], set[str]]] = {}  # each power's supply facts, once
        out["recruits"] = {g: top - gens[g]["troops"] for g in model.on_map(state)
                           if gens[g]["power"] == power and gens[g]["troops"] < top
                           and (not needs or in_supply(state, ctx.board, g, supplied))}
        off_map = [g for g in model.general_ids(state)
                   if gens[g]["power"] == power and gens[g]["city"] is None]
        occ = model.occupancy(state) if off_map else {}
        sites = [s for s in model.reentry_sites(ctx.state, ctx.board, power)
                 if reentry_problem(ctx, power, s, occ) is None
                 and len(model.generals_in(state, s)) < 2] if off_map else []
        out["returns"] = {g: list(sites) for g in off_map}
        out["cost"] = int(state["options"]["winter.recruit_cost"])
        out["hand"] = list(state["cards"]["hands"].get(power, []))
    return out


def sites_with_room(state: dict[str, Any], sites: list[str], used: list[str]) -> list[str]:
    """The return sites that still have room under the stacking limit of 2 generals (M3.3), with
    the returns already ordered to ``used`` counted."""
    return [s for s in sites if used.count(s) + len(model.generals_in(state, s)) < 2]


def _random_plan(rng: Rng) -> dict[str, Any]:
    plan: dict[str, Any] = {}
    if rng.below(2):
        plan["use_reserve"] = bool(rng.below(2))
    if rng.below(4) == 0:
        plan["max_cards"] = rng.below(4) + 1
    if rng.below(4) == 0:
        plan["concede_if_behind_by"] = rng.below(12)
    return plan


class _Nearest:
    """Road steps from a city to the nearest of some cities (the answers of ``board.nearest``
    over them): the first of the city's rings (``board.rings``) that holds one of them."""

    def __init__(self, board: Any, cities: Iterable[str],
                 digits: bytearray | None = None) -> None:
        self._board = board
        self._numbers = board.numbers()
        self._rings = board.rings(_DEPTH)
        self._targets = board.targets(cities, digits)  # ``digits``: more of them, see _Targets

    def __bool__(self) -> bool:
        return bool(self._targets)

    def nearest_first(self, cities: list[str]) -> list[str]:
        """``cities`` nearest first, then by id (a city that reaches none counts 999 steps)."""
        targets, all_rings = self._targets, self._rings
        numbers = list(map(self._numbers.__getitem__, cities))
        steps = []
        for i in numbers:  # a plain loop: cheaper here than iterator objects for each city
            d = 0
            for ring in all_rings[i]:
                if ring & targets:
                    break
                d += 1
            else:
                d = -1
            steps.append(d)
        if -1 in steps:  # none within the rings built: farther, or out of reach
            for k, i in enumerate(numbers):
                if steps[k] < 0:
                    d = self._board.ring_steps(i, self._targets)
                    steps[k] = 999 if d is None else d
        return [c for _, c in sorted(zip(steps, cities, strict=True))]


_DEPTH = 32  # the rings the bots build: a city farther than that from every target is rare


class _Targets(_Nearest):
    """Road steps from a city to the nearest city a bot likes to head for: enemy generals and
    fortresses it could take (``fortress_digits``)."""

    def __init__(self, state: dict[str, Any], board: Any, power: str) -> None:
        foe = enemy_test(state, power)
        foes = tuple(p for p in model.POWERS if foe(p))  # every general's power is one of them
        super().__init__(board, (g["city"] for g in state["generals"].values()
                                 if g["city"] is not None and g["power"] in foes),
                         fortress_digits(state, board, foe, foes))


def fortress_digits(state: dict[str, Any], board: Any, foe: Callable[[str], bool],
                    foes: tuple[str, ...]) -> bytearray:
    """The fortresses on the maps in play that ``foe`` (one of ``foes``) or nobody holds
    (M4.2, M4.3), as the binary digits of a mask (``board.targets``): the home countries'
    (found once for each set of facts they depend on: the maps, the foes, peace), changed by
    the entries of the control table."""
    key = (board, tuple(state["maps"]), bool(state.get("peace")), foes)
    found = _FORTRESS_DIGITS.get(key)
    if found is None:
        cities, maps = board.cities, state["maps"]
        on_maps = [f for f in model.fortresses_of(board) if cities[f].map in maps]
        homes = [model.home_of(state, board, f) for f in on_maps]
        digits = bytearray(b"0" * len(board.numbers()))
        board.targets([f for f, h in zip(on_maps, homes, strict=True) if h is None or foe(h)],
                      digits)
        found = _FORTRESS_DIGITS[key] = (bytes(digits), {f: board.digit(f) for f in on_maps})
    base, at = found
    digits = bytearray(base)
    for city, rec in state["control"].items():
        i = at.get(city)
        if i is not None:
            holder = rec["power"]
            digits[i] = 49 if holder is None or foe(holder) else 48  # "1" or "0"
    return digits


_FORTRESS_DIGITS: dict[tuple[Any, ...], tuple[bytes, dict[str, int]]] = {}


def _pick(rng: Rng, reach: Reach, near: _Nearest) -> str | None:
    """A legal destination: seven times in eight the one nearest a target, otherwise any; None
    (and no draw) if there is none. Only the cities looked at are checked by the rules."""
    if near:
        first = reach.first_legal(near.nearest_first(reach.cities))
        if first is None:
            return None
        if rng.below(8):
            return first
    dests = reach.all_legal()
    return rng.choice(dests) if dests else None


def _stage_bot(state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
    """Random stage orders; paths are computed only for the pieces that move."""
    ctx = _ctx(state)
    board = ctx.board
    gens = state["generals"]
    near = _Targets(state, board, power)
    moves: list[dict[str, Any]] = []
    mine = [g for g in model.on_map(state) if gens[g]["power"] == power
            and not gens[g].get("blocked")]
    ids = mine + sorted(t for t, v in state["trains"].items()
                        if v["power"] == power and v["city"] is not None)
    rng.shuffle(ids)
    done: set[str] = set()
    # The advanced game's small marker pools end a game of reckless bots in its first turn
    # (M10.2); its bots leave more pieces at rest so that games see politics and winters.
    idle = 2 if model.is_intro(state) else 4
    own_near: _Nearest | None = None
    occ, by_city = model.occupancy(state), model.generals_by_city(state)
    entries: dict[bool, dict[tuple[str, bool], str | None]] = {False: {}, True: {}}
    for pid in ids:
        if pid in done:
            continue
        r = rng.below(10)
        if r < idle:
            continue
        if pid in gens:
            mates = [h for h in by_city[gens[pid]["city"]]  # as generals_in orders them
                     if h != pid and h in mine and h not in done]
            group = [pid] + (mates[:1] if mates and rng.below(3) == 0 else [])
            force = r == 2 and len(group) == 1
            reach = Reach(ctx, power, group, "general", force, occ, by_city,
                          entries[force] if len(group) == 1 else None)
            dest = _pick(rng, reach, near)
            if dest is None:
                continue
            move: dict[str, Any] = ({"stack": group} if len(group) > 1 else {"piece": pid})
            move["path"] = reach.path(dest)
            if force:
                move["force_march"] = True
            moves.append(move)
            done.update(group)
        else:
            reach = Reach(ctx, power, [pid], "train", occ=occ, by_city=by_city)
            if reach.first_legal(reach.cities) is not None:
                if own_near is None:  # the start position's generals, computed once
                    own_near = _Nearest(board, [g["city"] for g in gens.values()
                                                if g["power"] == power and g["city"]])
                dest = _pick(rng, reach, own_near)
                assert dest is not None
                moves.append({"piece": pid, "path": reach.path(dest)})
            done.add(pid)
    out: dict[str, Any] = {"moves": moves, "plans": {"stage": _random_plan(rng)}}
    off = sorted(t for t, v in state["trains"].items()
                 if v["power"] == power and v["city"] is None)
    on = sum(1 for v in state["trains"].values() if v["power"] == power and v["city"])
    if off and on < train_max(state, power) and rng.below(2):
        sites = [s for s in model.reentry_sites(state, board, power)
                 if reentry_problem(ctx, power, s, occ) is None]
        if sites:
            out["reentries"] = [{"train": off[0], "site": rng.choice(sites)}]
    return out


def bot_bid(state: dict[str, Any], power: str) -> tuple[dict[str, str], str]:
    """A bot's bid map and salt, derived from the position alone so that the commit round
    and the reveal round of trustless mode (M11.4) give the same bid."""
    import hashlib

    hand = state["cards"]["hands"].get(power, [])
    seed = f"bot-bid|{state['turn']}|{power}|{','.join(hand)}".encode()
    rng = Rng(seed)
    bid: dict[str, str] = {}
    for suit in ("S", "H", "D", "C"):
        cards = [c for c in hand if c[0] == suit]
        bid[suit] = rng.choice(cards) if cards and rng.below(3) else "pass"
    return bid, hashlib.sha256(seed).hexdigest()[:32]


def _politics_bot(state: dict[str, Any], power: str, legal: dict[str, Any],
                  rng: Rng) -> dict[str, Any]:
    from pbem.games.maria.rules.politics import bid_commitment

    bid, salt = bot_bid(state, power)
    if legal["kind"] == "commit":
        return {"commitment": bid_commitment(state["turn"], power, bid, salt)}
    out: dict[str, Any] = {"bid": bid}
    if legal["trustless"]:
        out["salt"] = salt if rng.below(30) else salt[::-1]  # now and then a wrong one
    if legal["names_trump"]:
        out["trump"] = rng.choice(["S", "H", "D", "C"])
    choices = list(legal["revealed"])
    rng.shuffle(choices)
    choices.insert(rng.below(len(choices) + 1), "keep")
    out["choices"] = choices
    instr: dict[str, Any] = {}
    for card, spec in sorted(legal["cards"].items()):
        per: dict[str, Any] = {}
        for i, eff in enumerate(spec["effects"], start=1):
            e: dict[str, Any] = {}
            if eff.get("optional") and rng.below(3) == 0:
                e["skip"] = True
            if eff["effect"] == "move_track" and eff["args"][2] == "taker_choice":
                e["toward"] = rng.choice({"saxony": ["prussia", "austria"],
                                          "russia": ["down", "up"],
                                          "italy": ["france", "austria"]}[eff["args"][0]])
            if e:
                per[str(i)] = e
        instr[card] = {"execute": rng.below(8) != 0, **({"effects": per} if per else {})}
    out["cards"] = instr
    if legal["accept_peace"]:
        out["accept_peace"] = rng.below(2) == 0
    hand = [c for c in legal["hand"] if c not in bid.values()]
    if legal["subsidy_to"] and hand and rng.below(4) == 0:
        out["subsidies"] = [{"to": rng.choice(legal["subsidy_to"]), "card": rng.choice(hand)}]
    if "hussar_cities" in legal:
        cities = list(legal["hussar_cities"])
        rng.shuffle(cities)
        out["hussars"] = cities[:3]
    if rng.below(5) == 0:  # answers to choices cards leave to the owner (M12.3)
        own = sorted(g for g, v in state["generals"].items() if v["power"] == power)
        rng.shuffle(own)
        board = model.board_of(state)
        sites = [f for f in model.fortresses_of(board) if board.cities[f].fortress == "major"]
        out["standing"] = {"withdraw_preference": own[:2], "block_preference": own[2:4],
                           "troop_gain_preference": own[1:3], "troop_loss_preference": own[3:],
                           "discard_preference": [c for c in legal["hand"] if rng.below(3) == 0],
                           "train_site_preference": [rng.choice(sites)],
                           "marker_return_preference": [rng.choice(sites)],
                           "trump": rng.choice(["S", "H", "D", "C"])}
    return out


def bot_orders(state: dict[str, Any], power: str, rng: Rng) -> dict[str, Any]:
    """Random legal orders for ``power`` (including random battle plans and standing orders)."""
    phase_power = power in phase_powers(state)
    if kind_of(state) == "stage" and phase_power:
        stage = _stage_bot(state, power, rng)
        if rng.below(3) == 0:
            stage["standing"] = {"default_plan": _random_plan(rng),
                                 "hussar_policy": rng.choice(
                                     ["pay", "refuse", {"pay_up_to": rng.below(10)}])}
        return stage
    legal = _legal_orders(state, power, phase_power)
    kind = legal["kind"]
    orders: dict[str, Any] = {}
    if rng.below(3) == 0:
        orders["standing"] = {
            "default_plan": _random_plan(rng),
            "hussar_policy": rng.choice(["pay", "refuse", {"pay_up_to": rng.below(10)}]),
        }
    if not legal["phase_power"]:
        return orders
    gens = state["generals"]
    del gens
    if kind == "setup":
        split = {g: v["min"] for g, v in legal["generals"].items()}
        left = legal["total"] - sum(split.values())
        ids = sorted(split)
        while left > 0 and any(split[g] < legal["generals"][g]["max"] for g in ids):
            g = rng.choice(ids)
            if split[g] < legal["generals"][g]["max"]:
                split[g] += 1
                left -= 1
        orders["troops"] = split
    elif kind in ("commit", "politics"):
        orders.update(_politics_bot(state, power, legal, rng))
    elif kind == "hussars":
        cities = list(legal["cities"])
        rng.shuffle(cities)
        orders["hussars"] = cities[: legal["count"] + 1]
    elif kind == "stage":
        orders.update(_stage_bot(state, power, rng))
    elif kind == "winter":
        hand = legal["hand"]
        cost = legal["cost"]
        budget = sum(int(c[1:].split(".")[0]) for c in hand if not c.startswith("R"))
        recruits = []
        spent = 0
        for g, room in sorted(legal["recruits"].items()):
            n = rng.below(room + 1)
            if n and spent + n * cost <= budget:
                recruits.append({"general": g, "troops": n})
                spent += n * cost
        returns = []
        used: list[str] = []
        for g, sites in sorted(legal["returns"].items()):
            sites = sites_with_room(state, sites, used)
            if sites and spent + cost <= budget and rng.below(2):
                site = rng.choice(sites)
                used.append(site)
                returns.append({"general": g, "site": site, "troops": 1})
                spent += cost
        if can_pay(hand, spent, state["options"]):
            orders["recruits"] = recruits
            orders["returns"] = returns
    return orders
