"""The political phase (M9.1-M9.9, M11.4, M12.8-M12.9): cards, trump, bids, choices, subsidies.

Step 1 (reveal two cards) and step 2 (a turned-up trump, when no battle has been fought) run
when the phase opens; the politics round then carries the bids, the namer's trump, the choice
lists, card instructions, ``accept_peace`` and subsidies, and steps 3-9 run when it resolves.
In trustless mode (``pbem.commitments: trustless``) a commit round comes first. A card taken in
step 7 is executed by :mod:`pbem.games.maria.rules.effects` (M9.8, E1-E17).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from pbem.common.catalog import N_
from pbem.games.maria import model
from pbem.games.maria.cards import card_suit, card_value, is_card_id, is_reserve
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules.effects import resolve_card

SUITS = ("S", "H", "D", "C")
BIDDERS = ("AU", "FR", "PR", "PA")
TIE_ORDER = ("AU", "PA", "PR", "FR")
"""M9.6: the fixed tie order of the choosing order."""


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
