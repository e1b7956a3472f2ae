"""Order documents of Maria: checking them against the current round (M12.2) and the default
orders of a power that missed its deadline (M12.6).

An order file's ``orders:`` is keyed by power; this module sees one power's part. Problems are
reported with a path into the file (``orders.PR.moves[2].path[3]``) and a sentence a player
understands. Checking here is a courtesy before sending: the adjudicator checks every order
again when it runs, against the position at that moment, and a bad order is VOID without
voiding the others.
"""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.base import OrderProblem
from pbem.games.maria import model
from pbem.games.maria.adjudicate import STANDING_KEYS, phase_powers, split_problem
from pbem.games.maria.cards import is_card_id, resolve_partial
from pbem.games.maria.rules import battle

KEYS = {
    "setup": ("troops", "standing", "deals"),
    "hussars": ("hussars", "standing", "deals"),
    "stage": ("moves", "sequence", "reentries", "payments", "battles", "plans", "standing",
              "deals"),
    "winter": ("recruits", "returns", "payments", "standing", "deals"),
    "commit": ("commitment", "standing", "deals"),
    "politics": ("bid", "salt", "trump", "choices", "cards", "accept_peace", "subsidies",
                 "hussars", "standing", "deals"),
}
# standing lists of generals: any general for loss_order (M5.6), own ones for the rest (M9.11, E5, E6)
GENERAL_LISTS = ("loss_order", "withdraw_preference", "troop_gain_preference", "troop_loss_preference")
PLAN_KEYS = ("max_cards", "max_points", "concede_if_behind_by", "use_reserve", "prefer",
             "retreat", "loss_order", "commit")


def kind_of(state: dict[str, Any]) -> str:
    """The order-form kind of the current round."""
    step = state["step"]
    return "stage" if step in model.STAGES else step


class _Check:
    def __init__(self, state: dict[str, Any], board: Any, power: str) -> None:
        self.state, self.board, self.power = state, board, power
        self.problems: list[OrderProblem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(OrderProblem(f"orders.{self.power}{path}", message))

    def city(self, path: str, city: Any) -> bool:
        if not isinstance(city, str) or city not in self.board.cities:
            self.add(path, N_("there is no city '%(city)s' on the map") % {"city": city})
            return False
        return True

    def name(self, city: str) -> str:
        return str(self.board.cities[city].name)


def validate(state: dict[str, Any], power: str, orders: Any) -> list[OrderProblem]:
    """Problems of ``orders`` (one power's part of an order file) in the current round."""
    board = model.board_of(state)
    c = _Check(state, board, power)
    if power not in state["powers"]:
        c.add("", N_("'%(power)s' is not a power of this game") % {"power": power})
        return c.problems
    if orders is None:
        return []
    if not isinstance(orders, dict):
        c.add("", N_("the orders of a power must be a mapping"))
        return c.problems
    kind = kind_of(state)
    allowed = KEYS.get(kind, ("standing",))
    if power not in phase_powers(state):
        allowed = ("standing", "deals")
    for key in orders:
        if key not in allowed:
            c.add(f".{key}", N_("'%(key)s' is not an order of this round (%(kind)s); allowed: %(allowed)s") % {"key": key, "kind": kind, "allowed": ', '.join(allowed)})
    if "standing" in orders:
        _standing(c, orders["standing"])
    for i, d in enumerate(_list(c, ".deals", orders.get("deals", []))):
        if not isinstance(d, dict) or not isinstance(d.get("text"), str) or \
                d.get("with") not in model.seat_powers(state):
            c.add(f".deals[{i}]", N_("a deal is {with: SEAT, text: '...'} naming another player (%(seats)s)") % {"seats": ', '.join(model.seat_powers(state))})
    if kind == "setup" and "troops" in orders:
        problem = split_problem(state, power, orders["troops"])
        if problem:
            c.add(".troops", problem)
    elif kind == "hussars" and "hussars" in orders:
        _hussar_step(c, orders["hussars"])
    elif kind == "stage":
        _stage(c, orders)
    elif kind == "winter":
        _winter(c, orders)
    elif kind == "commit":
        cm = orders.get("commitment")
        if cm is not None and not (isinstance(cm, str) and len(cm.strip()) == 64 and all(
                ch in "0123456789abcdef" for ch in cm.strip().lower())):
            c.add(".commitment", N_("a commitment is the 64 hex digits of SHA-256 of maria|turn|power|bid map|salt (M11.4)"))
    elif kind == "politics":
        _politics(c, orders)
    return c.problems


def _politics(c: _Check, orders: dict[str, Any]) -> None:
    """Political orders (M12.8, M11.4, M9.9)."""
    state, power = c.state, c.power
    pol = state["politics"]
    hand = state["cards"]["hands"].get(power, [])
    bid = orders.get("bid")
    if bid is not None:
        if not isinstance(bid, dict):
            c.add(".bid", N_("a bid maps each suit (S, H, D, C) to a full card id or pass (M11.4)"))
        else:
            for suit, card in bid.items():
                if suit not in ("S", "H", "D", "C"):
                    c.add(f".bid.{suit}", N_("bids are given per suit: S, H, D, C"))
                elif card != "pass" and not (isinstance(card, str) and is_card_id(card)):
                    c.add(f".bid.{suit}", N_("'%(card)s' is not a full card id or pass (M11.4)") % {"card": card})
                elif card != "pass" and card.startswith("R"):
                    c.add(f".bid.{suit}", N_("a reserve may not be bid (M9.4)"))
                elif card != "pass" and card not in hand:
                    c.add(f".bid.{suit}", N_("%(card)s is not in your hand") % {"card": card})
    trustless = state["options"]["pbem.commitments"] == "trustless"
    if "salt" in orders and not trustless:
        c.add(".salt", N_("a salt is sent only in trustless mode (M11.4)"))
    if "trump" in orders:
        if pol.get("namer") != power or pol.get("trump") is not None:
            c.add(".trump", N_("you do not name the trump this turn (M5.11, M9.3)"))
        elif orders["trump"] not in ("S", "H", "D", "C"):
            c.add(".trump", N_("the trump is one of S, H, D, C"))
    for i, entry in enumerate(_list(c, ".choices", orders.get("choices", []))):
        if entry != "keep" and entry not in pol["revealed"]:
            c.add(f".choices[{i}]", N_("'%(entry)s' is neither keep nor a revealed card (%(pol)s)") % {"entry": entry, "pol": ', '.join(pol['revealed'])})
    cards = orders.get("cards", {})
    if not isinstance(cards, dict):
        c.add(".cards", N_("must map revealed political cards to instructions (M12.8)"))
    else:
        for card, instr in cards.items():
            if card not in pol["revealed"]:
                c.add(f".cards.{card}", N_("'%(card)s' is not a revealed political card") % {"card": card})
            elif not isinstance(instr, dict) or set(instr) - {"execute", "effects"}:
                c.add(f".cards.{card}", N_("instructions are {execute: yes|no, effects: {N: {skip, steps, toward, pieces, site}}}"))
            else:
                _card_instructions(c, f".cards.{card}", instr, len(pol["cards"][card]["effects"]))
    if "accept_peace" in orders:
        if power != "AU":
            c.add(".accept_peace", N_("only Austria accepts or refuses peace (M9.15)"))
        elif not isinstance(orders["accept_peace"], bool):
            c.add(".accept_peace", N_("must be yes or no"))
    for i, sub in enumerate(_list(c, ".subsidies", orders.get("subsidies", []))):
        if not isinstance(sub, dict) or sub.get("to") not in state["powers"] or \
                not isinstance(sub.get("card"), str):
            c.add(f".subsidies[{i}]", N_("a subsidy is {to: POWER, card: ID} (M9.9)"))
        elif model.are_enemies(state, power, sub["to"]) or sub["to"] == power:
            c.add(f".subsidies[{i}].to", N_("%(sub)s cannot receive your subsidy (M9.9)") % {"sub": sub['to']})
        elif sub["card"] not in hand:
            c.add(f".subsidies[{i}].card", N_("%(sub)s is not in your hand") % {"sub": sub['card']})
    if "hussars" in orders:
        if power != "AU" or state["options"]["pbem.rounds"] != "merge_hussars_into_politics":
            c.add(".hussars", N_("hussar cities come with the political orders only from Austria under pbem.rounds: merge_hussars_into_politics (M12.1)"))
        else:
            _hussars(c, orders["hussars"])


def _card_instructions(c: _Check, path: str, instr: dict[str, Any], effects: int) -> None:
    """The fields of one card's instructions (M12.8, M9.19): what the rules read of them."""
    if "execute" in instr and not isinstance(instr["execute"], bool):
        c.add(f"{path}.execute", N_("must be yes or no"))
    per = instr.get("effects", {})
    if not isinstance(per, dict):
        c.add(f"{path}.effects", N_("must map effect numbers (1, 2, ...) to instructions"))
        return
    for key, fields in per.items():
        p = f"{path}.effects.{key}"
        if key not in {str(i) for i in range(1, effects + 1)}:
            c.add(p, N_("'%(key)s' is not an effect of this card; it has effects 1 to %(effects)s") % {"key": key, "effects": effects})
        elif not isinstance(fields, dict) or set(fields) - {"skip", "steps", "toward", "pieces", "site"}:
            c.add(p, N_("an effect's instructions are {skip, steps, toward, pieces, site}"))
        else:
            if "skip" in fields and not isinstance(fields["skip"], bool):
                c.add(f"{p}.skip", N_("must be yes or no"))
            steps = fields.get("steps")
            if steps is not None and (not isinstance(steps, int) or isinstance(steps, bool) or steps < 0):
                c.add(f"{p}.steps", N_("must be a whole number of at least 0"))
            if "toward" in fields and fields["toward"] not in ("prussia", "austria", "up", "down", "france"):
                c.add(f"{p}.toward", N_("is one of prussia, austria (Saxony), up, down (Russia), france, austria (Italy)"))
            for i, pid in enumerate(_list(c, f"{p}.pieces", fields.get("pieces", []))):
                if not isinstance(pid, str) or model.piece_power(c.state, pid) is None:
                    c.add(f"{p}.pieces[{i}]", N_("there is no piece '%(pid)s'") % {"pid": pid})
            if "site" in fields:
                c.city(f"{p}.site", fields["site"])


def _list(c: _Check, path: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        c.add(path, N_("must be a list"))
        return []
    return value


def _standing(c: _Check, st: Any) -> None:
    if not isinstance(st, dict):
        c.add(".standing", N_("must be a mapping of standing orders"))
        return
    for key, value in st.items():
        path = f".standing.{key}"
        if key not in STANDING_KEYS:
            c.add(path, N_("'%(key)s' is not a standing order; known: %(known)s") % {"key": key, "known": ', '.join(STANDING_KEYS)})
        elif value is None:
            continue  # null clears the standing order (M12.3)
        elif key == "hussar_policy":
            ok = value in ("pay", "refuse") or (
                isinstance(value, dict) and set(value) == {"pay_up_to"}
                and isinstance(value["pay_up_to"], int) and value["pay_up_to"] >= 0)
            if not ok:
                c.add(path, N_("must be pay, refuse or {pay_up_to: N} (M12.3)"))
        elif key == "default_plan":
            _plan(c, path, value)
        elif key == "defence":
            if not isinstance(value, dict):
                c.add(path, N_("must map a general or a city to a battle plan"))
            else:
                for k, plan in value.items():
                    if k not in c.state["generals"] and k not in c.board.cities:
                        c.add(f"{path}.{k}", N_("'%(k)s' is neither a general nor a city") % {"k": k})
                    _plan(c, f"{path}.{k}", plan)
        elif key in GENERAL_LISTS:
            for i, g in enumerate(_list(c, path, value)):
                if not isinstance(g, str) or g not in c.state["generals"]:
                    c.add(f"{path}[{i}]", N_("there is no general '%(g)s'") % {"g": g})
                elif key != "loss_order" and c.state["generals"][g]["power"] != c.power:
                    c.add(f"{path}[{i}]", N_("%(g)s is not a general of %(power)s") % {"g": g, "power": model.POWER_NAMES[c.power]})
        elif key in ("transfer_preference", "marker_return_preference", "train_site_preference"):
            for i, city in enumerate(_list(c, path, value)):
                c.city(f"{path}[{i}]", city)
        elif key == "block_preference":
            for i, pid in enumerate(_list(c, path, value)):
                if not isinstance(pid, str) or model.piece_power(c.state, pid) != c.power:
                    c.add(f"{path}[{i}]", N_("'%(pid)s' is not a general or supply train of %(power)s") % {"pid": pid, "power": model.POWER_NAMES[c.power]})
        elif key in ("payments", "discard_preference"):
            for i, card in enumerate(_list(c, path, value)):
                if not isinstance(card, str) or not (is_card_id(card) or _partial_ok(card)):
                    c.add(f"{path}[{i}]", N_("'%(card)s' is not a card id (e.g. H7.2 or H7)") % {"card": card})


def _plan(c: _Check, path: str, plan: Any) -> None:
    if not isinstance(plan, dict):
        c.add(path, N_("a battle plan must be a mapping (M12.4)"))
        return
    for key, value in plan.items():
        p = f"{path}.{key}"
        if key not in PLAN_KEYS:
            c.add(p, N_("'%(key)s' is not a plan field; known: %(known)s") % {"key": key, "known": ', '.join(PLAN_KEYS)})
        elif key in ("max_cards", "max_points", "concede_if_behind_by"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                c.add(p, N_("must be a whole number of at least 0"))
        elif key == "use_reserve":
            if value not in (True, False, "yes", "no"):
                c.add(p, N_("must be yes or no"))
        elif key == "prefer":
            for i, card in enumerate(_list(c, p, value)):
                if not isinstance(card, str) or (
                        not is_card_id(card) and resolve_partial([card], card) is None
                        and not _partial_ok(card)):
                    c.add(f"{p}[{i}]", N_("'%(card)s' is not a card id (e.g. H7.2, H7, R.3a, R)") % {"card": card})
        elif key == "retreat":
            for i, city in enumerate(_list(c, p, value)):
                c.city(f"{p}[{i}]", city)
        elif key == "loss_order":
            for i, g in enumerate(_list(c, p, value)):
                if not isinstance(g, str) or g not in c.state["generals"]:
                    c.add(f"{p}[{i}]", N_("there is no general '%(g)s'") % {"g": g})


def _partial_ok(card: str) -> bool:
    import re

    return bool(re.fullmatch(r"[SHDC](10|[2-9])|R|R\.[1-4]", card))


def _hussars(c: _Check, cities: Any) -> None:
    for i, city in enumerate(_list(c, ".hussars", cities)):
        if c.city(f".hussars[{i}]", city) and c.board.map_of(city) != "bohemia":
            c.add(f".hussars[{i}]", N_("%(city)s is not on the Bohemia map (M7.1)") % {"city": c.name(city)})


def _hussar_step(c: _Check, cities: Any) -> None:
    """The hussar step's cities as the resolver will place them (M7.1): the position now is the
    one they are placed on, so each city the resolver will void is named with its words. Cities
    past the number in force are spares the resolver never reaches (a list may name spares for
    cities it cannot take)."""
    from pbem.games.maria.rules.hussars import hussar_count, hussar_problem

    want = hussar_count(c.state)
    placed: list[str] = []
    for i, city in enumerate(_list(c, ".hussars", cities)):
        if len(placed) >= want:
            break
        problem = hussar_problem(c.state, c.board, city, placed)
        if problem:
            c.add(f".hussars[{i}]", problem)
        else:
            placed.append(city)


def _stage(c: _Check, orders: dict[str, Any]) -> None:
    state, board, power = c.state, c.board, c.power
    gens = state["generals"]
    seen: set[str] = set()
    for i, m in enumerate(_list(c, ".moves", orders.get("moves", []))):
        base = f".moves[{i}]"
        if not isinstance(m, dict):
            c.add(base, N_("a move is {piece: ID, path: [...]} or {stack: [ID, ID], path: [...]}"))
            continue
        unknown = set(m) - {"piece", "stack", "path", "force_march"}
        for k in sorted(unknown):
            c.add(f"{base}.{k}", N_("'%(k)s' is not a field of a move") % {"k": k})
        if ("piece" in m) == ("stack" in m):
            c.add(base, N_("give either 'piece' or 'stack'"))
            continue
        ids = m["stack"] if "stack" in m else [m["piece"]]
        if not isinstance(ids, list) or not ids:
            c.add(f"{base}.stack", N_("must list the generals that move together"))
            continue
        start = None
        for j, pid in enumerate(ids):
            ppath = f"{base}.stack[{j}]" if "stack" in m else f"{base}.piece"
            owner = model.piece_power(state, pid) if isinstance(pid, str) else None
            if owner is None:
                c.add(ppath, N_("there is no piece '%(pid)s'") % {"pid": pid})
                continue
            if model.seat_of(state, owner) != model.seat_of(state, power):
                c.add(ppath, N_("%(pid)s is not yours to move") % {"pid": pid})
                continue
            if "stack" in m and pid not in gens:
                c.add(ppath, N_("%(pid)s is a supply train; only generals form stacks") % {"pid": pid})
                continue
            rec = gens.get(pid) or state["trains"][pid]
            if rec["city"] is None:
                c.add(ppath, N_("%(pid)s is not on the map") % {"pid": pid})
                continue
            if pid in seen:
                c.add(ppath, N_("%(pid)s has a second move this stage (M3.5)") % {"pid": pid})
            seen.add(pid)
            start = start or rec["city"]
        is_train = "piece" in m and isinstance(m["piece"], str) and m["piece"] in state["trains"]
        if m.get("force_march") and is_train:
            c.add(f"{base}.force_march", N_("supply trains may not force march (M3.6)"))
        path = m.get("path")
        if not isinstance(path, list) or not path:
            c.add(f"{base}.path", N_("must list the cities entered, in order"))
            continue
        prev = start
        if prev is not None and path[0] == prev:
            path = path[1:]
            off = 1
        else:
            off = 0
        all_main = True
        for j, city in enumerate(path):
            p = f"{base}.path[{j + off}]"
            if not c.city(p, city):
                prev = None
                continue
            if prev is not None and not board.is_adjacent(prev, city):
                c.add(p, N_("'%(city)s' is not a road neighbour of '%(prev)s'") % {"city": c.name(city), "prev": c.name(prev)})
            elif prev is not None and not board.is_main(prev, city):
                all_main = False
            prev = city
        if m.get("force_march"):
            cap = 8
            if not all_main:
                c.add(f"{base}.path", N_("a force march must keep to main roads (M3.6)"))
        elif is_train:
            cap = 3 if all_main else 2
        else:
            cap = 4 if all_main else 3
        if len(path) > cap:
            what = N_("supply train") if is_train else N_("general")
            c.add(f"{base}.path", N_("the path enters %(path)s cities; a %(what)s may move at most %(cap)s here (M3.1)") % {"path": len(path), "what": what, "cap": cap})
    for i, s in enumerate(_list(c, ".sequence", orders.get("sequence", []))):
        if model.piece_power(state, s) is None if isinstance(s, str) else True:
            c.add(f".sequence[{i}]", N_("there is no piece '%(s)s'") % {"s": s})
    for i, r in enumerate(_list(c, ".reentries", orders.get("reentries", []))):
        if not isinstance(r, dict) or "site" not in r:
            c.add(f".reentries[{i}]", N_("a re-entry is {site: CITY} or {train: ID, site: CITY}"))
            continue
        if c.city(f".reentries[{i}].site", r["site"]) and \
                r["site"] not in model.reentry_sites(c.state, board, power):
            c.add(f".reentries[{i}].site", N_("%(r)s is not a re-entry site of %(power)s (M4.1)") % {"r": c.name(r['site']), "power": model.POWER_NAMES[power]})
    _payments(c, orders)
    after = _after_moves(c, orders)
    for i, b in enumerate(_list(c, ".battles", orders.get("battles", []))):
        if not isinstance(b, str) or ">" not in b:
            c.add(f".battles[{i}]", N_("a battle is named attacker>defender, e.g. broglie>neipperg"))
            continue
        problem = battle.unmatched_battle(c.state, board, b, after, certain_only=True)
        if problem:
            c.add(f".battles[{i}]", problem)
    plans = orders.get("plans", {})
    if not isinstance(plans, dict):
        c.add(".plans", N_("must map a battle name (or 'stage') to a plan"))
    else:
        for k, plan in plans.items():
            if k != "stage" and ">" not in str(k):
                c.add(f".plans.{k}", N_("plans are keyed by battle name (attacker>defender) or 'stage'"))
            _plan(c, f".plans.{k}", plan)


def _after_moves(c: _Check, orders: dict[str, Any]) -> dict[str, str | None]:
    """Where each general stands once this power's own moves are made (the others stay put;
    their power does not act in this stage)."""
    cities = {g: v["city"] for g, v in c.state["generals"].items()}
    moves = orders.get("moves")
    for m in moves if isinstance(moves, list) else []:
        path = m.get("path") if isinstance(m, dict) else None
        ids = (m.get("stack") if "stack" in m else [m.get("piece")]) if isinstance(m, dict) else []
        if isinstance(path, list) and path and isinstance(path[-1], str) and path[-1] in c.board.cities \
                and isinstance(ids, list):
            for pid in ids:
                if isinstance(pid, str) and pid in cities:
                    cities[pid] = path[-1]
    return cities


def _payments(c: _Check, orders: dict[str, Any]) -> None:
    for i, card in enumerate(_list(c, ".payments", orders.get("payments", []))):
        if not isinstance(card, str) or not (is_card_id(card) or _partial_ok(card)):
            c.add(f".payments[{i}]", N_("'%(card)s' is not a card id (e.g. H7.2 or H7)") % {"card": card})


def _winter(c: _Check, orders: dict[str, Any]) -> None:
    gens = c.state["generals"]
    for i, r in enumerate(_list(c, ".recruits", orders.get("recruits", []))):
        if not isinstance(r, dict) or not isinstance(r.get("general"), str) or r["general"] not in gens:
            c.add(f".recruits[{i}]", N_("a recruit is {general: ID, troops: N}"))
            continue
        if gens[r["general"]]["power"] != c.power:
            c.add(f".recruits[{i}].general", N_("%(r)s is not yours") % {"r": r['general']})
    for i, r in enumerate(_list(c, ".returns", orders.get("returns", []))):
        if not isinstance(r, dict) or not isinstance(r.get("general"), str) or r["general"] not in gens \
                or "site" not in r:
            c.add(f".returns[{i}]", N_("a return is {general: ID, site: CITY, troops: N}"))
            continue
        if gens[r["general"]]["power"] != c.power:
            c.add(f".returns[{i}].general", N_("%(r)s is not yours") % {"r": r['general']})
        elif gens[r["general"]]["city"] is not None:
            c.add(f".returns[{i}].general", N_("%(r)s is on the map; only eliminated generals return (M8.3)") % {"r": r['general']})
        c.city(f".returns[{i}].site", r["site"])
    _payments(c, orders)


def default_orders(state: dict[str, Any], power: str) -> dict[str, Any]:
    """M12.6: the default split at set-up, and otherwise nothing: no hussars, no moves or
    re-entries (draw, supply, forced battles with standing plans and conquest still run),
    nothing bought in winter."""
    if state["step"] != "setup" or power not in phase_powers(state):
        return {}
    gens = [{"id": g, "rank": v["rank"], "min": v["min"]}
            for g, v in state["generals"].items() if v["power"] == power]
    if not gens:
        return {}
    split = model.default_split(gens, int(state["troop_totals"][power]),
                                int(state["options"]["troops.max"]))
    return {"troops": split}
