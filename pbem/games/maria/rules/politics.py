"""The political phase (M9.1-M9.9, M11.4, M12.8-M12.9) and the card effects E1-E17 (M9.19).

Step 1 (reveal two cards) and step 2 (a turned-up trump, when no battle has been fought) run
when the phase opens; the politics round then carries the bids, the namer's trump, the choice
lists, card instructions, ``accept_peace`` and subsidies, and steps 3-9 run when it resolves.
In trustless mode (``pbem.commitments: trustless``) a commit round comes first.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from typing import Any

from pbem.games.maria import model
from pbem.games.maria.cards import card_suit, card_value, is_card_id, is_reserve, owner_discard, resolve_partial
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import tracks
from pbem.games.base import N_

SUITS = ("S", "H", "D", "C")
BIDDERS = ("AU", "FR", "PR", "PA")
TIE_ORDER = ("AU", "PA", "PR", "FR")
"""M9.6: the fixed tie order of the choosing order."""
TAKER_TOWARD = {
    "habsburg": {"saxony": "austria", "russia": "up", "italy": "austria"},
    "coalition": {"saxony": "prussia", "russia": "down", "italy": "france"},
}
"""M9.19: an unanswered ``taker_choice`` moves the marker towards the taker's side."""


# --- commitments (M11.4) ----------------------------------------------------------------------


def canonical_bid(bid: dict[str, str]) -> str:
    """The canonical bid map: JSON, sorted keys, no spaces (M11.4)."""
    return json.dumps({s: bid.get(s, "pass") for s in SUITS}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)


def bid_commitment(turn: int, power: str, bid: dict[str, str], salt: str) -> str:
    """Hex SHA-256 of ``maria|<turn>|<power>|<canonical bid map>|<salt>`` (M11.4)."""
    text = f"maria|{turn}|{power}|{canonical_bid(bid)}|{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normal_bid(raw: Any) -> dict[str, str] | None:
    """A bid map with every suit (``pass`` where none is given), or None if not a mapping."""
    if raw is None:
        return {s: "pass" for s in SUITS}
    if not isinstance(raw, dict):
        return None
    return {s: str(raw.get(s, "pass")) for s in SUITS}


# --- the phase opens: steps 1 and 2 -----------------------------------------------------------


def new_politics(deck: dict[str, Any], rng: Any) -> dict[str, Any]:
    """The political part of a new state: the groups shuffled with secret chance (M2.1 step
    6; single mode: one shuffled pile for the whole game, M9.2)."""
    groups: dict[str, list[str]] = {}
    ranges = {g: list(r) for g, r in deck["groups"].items()}
    for g in sorted(ranges):
        groups[g] = sorted(c for c, v in deck["cards"].items() if v["group"] == g)
    # a copy: the loaded deck is cached and shared by every game
    return {"deck": deck["deck"], "cards": copy.deepcopy(deck["cards"]), "ranges": ranges,
            "groups": groups, "revealed": [], "trump": None, "namer": None,
            "display": {p: [] for p in BIDDERS}, "commitments": {}, "gone": [],
            "taken": [], "hussar_orders": None}


def shuffle_groups(pol: dict[str, Any], single: bool, rng: Any) -> None:
    """Shuffle each group (or all cards as one pile under ``politics.deck_mode: single``)."""
    if single:
        pile = sorted(c for g in pol["groups"].values() for c in g)
        rng.shuffle(pile)
        pol["groups"] = {"all": pile}
        pol["ranges"] = {"all": [1, 99]}
        return
    for g in sorted(pol["groups"]):
        rng.shuffle(pol["groups"][g])


def start_politics(ctx: Ctx) -> None:
    """M9.1 steps 1-2: groups whose range has ended leave the game; the top 2 cards of the
    current group are revealed; with no battle fought yet, the trump is turned up (M9.3)."""
    state = ctx.state
    pol = state["politics"]
    turn = state["turn"]
    pol["revealed"], pol["trump"], pol["namer"], pol["commitments"] = [], None, None, {}
    pol["taken"], pol["hussar_orders"] = [], None
    for g, (_first, last) in sorted(pol["ranges"].items()):
        if turn > last and pol["groups"][g]:
            pol["gone"].extend(pol["groups"][g])
            ctx.event("political_cards_leave", cards=list(pol["groups"][g]), group=g,
                      reason="the group's turns are over (M9.2)")
            pol["groups"][g] = []
    current = next((g for g, (first, last) in sorted(pol["ranges"].items())
                    if first <= turn <= last), None)
    if current is not None:
        pile = pol["groups"][current]
        pol["revealed"] = pile[:2]
        del pile[:2]
    ctx.event("political_cards", cards=list(pol["revealed"]),
              names={c: pol["cards"][c]["name"] for c in pol["revealed"]})
    if state["last_battle_winner"] is None:
        pol["trump"] = turn_up_trump(ctx)
    else:
        pol["namer"] = model.major_of(state, state["last_battle_winner"])


def turn_up_trump(ctx: Ctx) -> str:
    """M9.3: turn up the top TC (secret chance reshuffles, M1.8); reserves are discarded and
    the next card turned; with nothing but reserves left, the trump is spades."""
    state = ctx.state
    piles = state["cards"]
    turned: list[str] = []
    suit = "S"
    for _ in range(200):
        if not piles["draw"]:
            if not piles["discard"] or all(is_reserve(c) for c in piles["discard"]):
                break
            pile = list(piles["discard"])
            ctx.rng.secret.shuffle(pile)
            piles["draw"], piles["discard"] = pile, []
            piles["reshuffles"] = piles.get("reshuffles", 0) + 1
        card = piles["draw"].pop(0)
        piles["discard"].append(card)
        turned.append(card)
        if not is_reserve(card):
            suit = card_suit(card)
            break
    ctx.event("trump", suit=suit, named_by=None, turned=turned)
    return suit


def default_trump(state: dict[str, Any], power: str) -> str:
    """M12.6: the standing trump, else the suit with the highest total value in hand (ties
    S, H, D, C)."""
    st = state["standing"].get(power, {}).get("trump")
    if st in SUITS:
        return str(st)
    hand = state["cards"]["hands"].get(power, [])
    totals = {s: sum(card_value(c) for c in hand if not is_reserve(c) and card_suit(c) == s)
              for s in SUITS}
    return max(SUITS, key=lambda s: (totals[s], -SUITS.index(s)))


# --- the commit round (trustless mode) --------------------------------------------------------


def run_commit(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """Trustless mode, first round: each major power's commitment is stored and published."""
    pol = ctx.state["politics"]
    for p in BIDDERS:
        c = (orders.get(p) or {}).get("commitment")
        if c is None:
            continue
        if isinstance(c, str) and len(c) == 64 and all(ch in "0123456789abcdef" for ch in c):
            pol["commitments"][p] = c
        else:
            ctx.void(p, "commitment", N_("a commitment is the 64 hex digits of a SHA-256 (M11.4)"))
    ctx.event("bid_commitments", turn=ctx.state["turn"], mode="trustless",
              commitments=dict(sorted(pol["commitments"].items())))


# --- steps 3-9 -------------------------------------------------------------------------------


def run_politics(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """M9.1 steps 3-9 from the political orders of the round."""
    state = ctx.state
    pol = state["politics"]
    turn = state["turn"]
    trustless = ctx.opt("pbem.commitments") == "trustless"
    # step 2: the namer's trump
    if pol["trump"] is None:
        namer = pol["namer"]
        asked = (orders.get(namer) or {}).get("trump") if namer else None
        if asked is not None and asked not in SUITS:
            ctx.void(namer, "trump", N_("the trump is one of S, H, D, C"))
            asked = None
        pol["trump"] = asked or default_trump(state, namer or "AU")
        ctx.event("trump", suit=pol["trump"], named_by=namer, turned=[])
    trump = pol["trump"]
    # steps 3-4: bids
    bids: dict[str, str] = {}
    maps: dict[str, dict[str, str]] = {}
    salts: dict[str, str] = {}
    commitments: dict[str, str] = {}
    for p in BIDDERS:
        if p not in state["powers"]:
            continue
        o = orders.get(p) or {}
        bid = normal_bid(o.get("bid"))
        if bid is None:
            ctx.void(p, "bid", N_("a bid is a map from each suit to a card id or pass (M11.4)"))
            bid = {s: "pass" for s in SUITS}
        if trustless:
            salt = o.get("salt")
            want = pol["commitments"].get(p)
            if want is None:
                if o.get("bid") is not None:
                    ctx.void(p, "bid", N_("no commitment was sent in the commit round; the bid counts as a pass (M11.4)"))
                bid = {s: "pass" for s in SUITS}
                salt = ""
            elif not isinstance(salt, str) or bid_commitment(turn, p, bid, salt) != want:
                ctx.void(p, "bid", N_("the bid and salt do not match the commitment; the bid counts as a pass (M11.4)"))
                ctx.event("bid_refused", power=p, reason="does not match its commitment")
                bid = {s: "pass" for s in SUITS}
                salt = ""
            else:
                commitments[p] = want
        else:
            salt = "".join(f"{ctx.rng.secret.below(256):02x}" for _ in range(16))
            commitments[p] = bid_commitment(turn, p, bid, salt)
        maps[p], salts[p] = bid, str(salt)
        card = bid.get(trump, "pass")
        hand = state["cards"]["hands"].get(p, [])
        if card != "pass":
            if not is_card_id(card) or card not in hand:
                ctx.void(p, f"bid.{trump}", N_("'%(card)s' is not a full card id in your hand; you pass (M11.4)") % {"card": card})
                card = "pass"
            elif is_reserve(card):
                ctx.void(p, f"bid.{trump}", N_("a reserve may not be bid; you pass (M9.4)"))
                card = "pass"
        bids[p] = card
    if not trustless:
        ctx.event("bid_commitments", turn=turn, mode="trusted_gm",
                  commitments=dict(sorted(commitments.items())))
    # a new list, never extended in place: resolve shares the old one with the state it came from
    state["bid_log"] = [*state.get("bid_log", []), *(
        {"turn": turn, "power": p, "bid": maps[p], "salt": salts[p],
         "commitment": commitments.get(p)} for p in sorted(maps))]
    for p, card in bids.items():
        if card != "pass":
            state["cards"]["hands"][p].remove(card)
            pol["display"][p].append(card)
    # step 5 (M9.5): off-suit cards go back
    returned: dict[str, list[str]] = {}
    if ctx.opt("politics.offsuit_carried") == "return":
        for p in BIDDERS:
            off = [c for c in pol["display"].get(p, []) if card_suit(c) != trump]
            if off:
                returned[p] = off
                pol["display"][p] = [c for c in pol["display"][p] if c not in off]
                model.give_cards(state, p, off)
    ctx.event("bid_reveal", turn=turn, trump=trump, bids=bids, returned=returned,
              display={p: list(v) for p, v in pol["display"].items() if v})
    # step 5-6: totals and choosing order
    totals = {p: sum(card_value(c) for c in pol["display"].get(p, []) if card_suit(c) == trump)
              for p in BIDDERS}
    high = {p: max([card_value(c) for c in pol["display"].get(p, []) if card_suit(c) == trump]
                   or [0]) for p in BIDDERS}
    fixed = ctx.opt("politics.bid_ties") == "fixed_order_only"
    order = sorted(BIDDERS, key=lambda p: (-totals[p], 0 if fixed else -high[p],
                                           TIE_ORDER.index(p)))
    may_zero = bool(ctx.opt("politics.zero_may_take"))
    order = [p for p in order if p in state["powers"] and (totals[p] > 0 or may_zero)]
    ctx.event("choosing_order", totals=totals, order=order)
    remaining = list(pol["revealed"])
    chosen: list[str] = []
    for p in order:
        if not remaining:
            break
        chosen.append(p)
        choice = "keep"
        for entry in (orders.get(p) or {}).get("choices") or []:
            if entry == "keep" or entry in remaining:
                choice = entry
                break
        if choice == "keep":
            ctx.event("choice", power=p, choice="keep", display=list(pol["display"][p]))
            continue
        remaining.remove(choice)
        spent = pol["display"][p]
        pol["display"][p] = []
        state["cards"]["discard"].extend(spent)
        pol["taken"].append([p, choice])
        ctx.event("choice", power=p, choice="take", card=choice, discarded=spent)
    if not remaining:
        for p in BIDDERS:
            if p not in chosen and pol["display"].get(p):
                back = pol["display"][p]
                pol["display"][p] = []
                model.give_cards(state, p, back)
                ctx.event("display_returned", power=p, cards=back)
    for c in remaining:
        ctx.event("political_card_untaken", card=c)
    pol["gone"].extend(remaining)
    # step 7
    for p, card in pol["taken"]:
        resolve_card(ctx, p, card, (orders.get(p) or {}).get("cards", {}).get(card) or {},
                     orders)
        pol["gone"].append(card)
    pol["revealed"] = []
    # step 8
    if ctx.opt("politics.subsidies") == "on":
        subsidies(ctx, orders)
    # step 9 is run by the caller (boxes and victory)


def subsidies(ctx: Ctx, orders: dict[str, dict[str, Any]]) -> None:
    """M9.9: one TC per recipient per turn from each major power, to powers that are not its
    enemies and have a player; all judged against the hands at the start of step 8 and
    transferred together."""
    state = ctx.state
    gifts: list[tuple[str, str, str]] = []
    for giver in BIDDERS:
        listed = (orders.get(giver) or {}).get("subsidies") or []
        hand = list(state["cards"]["hands"].get(giver, []))
        given_to: set[str] = set()
        for i, s in enumerate(listed):
            where = f"subsidies[{i}]"
            to = str(s.get("to")) if isinstance(s, dict) else ""
            card = s.get("card") if isinstance(s, dict) else None
            if to not in state["powers"] or to == giver or model.seat_of(state, to) is None \
                    or model.are_enemies(state, giver, to):
                ctx.void(giver, where, N_("%(to)s cannot receive a subsidy from %(power)s (M9.9)") % {"to": to, "power": model.POWER_NAMES[giver]})
                continue
            if to in given_to:
                ctx.void(giver, where, N_("one subsidy per recipient per turn (M9.9)"))
                continue
            if card not in hand:
                ctx.void(giver, where, N_("'%(card)s' is not in your hand (M9.9)") % {"card": card})
                continue
            hand.remove(card)
            given_to.add(to)
            gifts.append((giver, str(to), str(card)))
    for giver, to, card in gifts:
        state["cards"]["hands"][giver].remove(card)
        model.give_cards(state, to, [card])
        ctx.event("subsidy", giver=giver, to=to)
        for p in sorted({giver, to}):
            ctx.private(p, "subsidy_card", giver=giver, to=to, card=card)


# --- card resolution (M9.8, M9.19) ------------------------------------------------------------


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
