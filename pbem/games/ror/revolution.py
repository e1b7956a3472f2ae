"""The Revolution Phase, steps (a)-(c): trading, Statesmen and Concessions, hand limit (R2)."""

from __future__ import annotations

import copy
from typing import Any

from pbem.common.catalog import N_
from pbem.games.ror.model import (
    PAIRS,
    Ctx,
    State,
    Why,
    card_data,
    clockwise_from,
    hrao,
    is_aligned,
    is_concession_id,
    is_in_play,
    is_rebel,
    is_statesman_id,
    number_of,
    why_data,
)


def faction_orders(ctx: Ctx, faction: str) -> dict[str, Any]:
    """The orders of ``faction`` in the round being resolved (empty if none)."""
    o = ctx.orders.get(faction)
    return o if isinstance(o, dict) else {}


def void(ctx: Ctx, faction: str, path: str, reason: str) -> None:
    """An order that could not run: reported only to its sender (R8.6)."""
    if path.startswith("orders."):  # the path in the order file: orders.<faction>.<...>
        path = f"orders.{faction}.{path[len('orders.'):]}"
    ctx.emit("void", faction=faction, power=faction, path=path, order=path, reason=str(reason),
             why=why_data(reason), audience=ctx.seat(faction))


# --------------------------------------------------------------------------- (a) trading


def _card_list(x: Any) -> list[str]:
    return [str(c) for c in x] if isinstance(x, list) else []


def step_trading(ctx: Ctx) -> None:
    """R2.2: GIVE and mirrored TRADE orders, clockwise from the HRAO's faction, list order."""
    st = ctx.state
    _, first = hrao(st)
    start = {f: list(st["factions"][f]["hand"]) for f in st["factions"]}
    moved: set[str] = set()
    done: set[tuple[str, int]] = set()

    def can_move(faction: str, cards: list[str]) -> str | None:
        if len(set(cards)) != len(cards):
            return Why("card_twice", N_("names a card twice"))
        for c in cards:
            if c not in start[faction]:
                return Why("not_in_hand_at_start",
                           N_("card %(card)s was not in your hand at the start of trading") % {"card": c}, card=c)
            if c in moved or c not in st["factions"][faction]["hand"]:
                return Why("already_moved", N_("card %(card)s has already moved") % {"card": c}, card=c)
        return None

    def move(src: str, dst: str, cards: list[str]) -> None:
        for c in cards:
            st["factions"][src]["hand"].remove(c)
            st["factions"][dst]["hand"].append(c)
            moved.add(c)

    for fid in clockwise_from(st, first):
        for i, o in enumerate(faction_orders(ctx, fid).get("trades") or []):
            if (fid, i) in done or not isinstance(o, dict):
                continue
            path = f"orders.trades[{i}]"
            give = _card_list(o.get("give"))
            if "to" in o:  # GIVE
                to = str(o["to"])
                if to not in st["factions"] or to == fid:
                    void(ctx, fid, path, Why("not_other_faction", N_("'%(to)s' is not another faction") % {"to": to},
                                             faction=to))
                    continue
                why = can_move(fid, give) if give else Why("no_card", N_("names no card"))
                if why:
                    void(ctx, fid, path, why)
                    continue
                move(fid, to, give)
                ctx.emit("trade", factions=[fid, to], count=len(give), kind="gift")
                for who in (fid, to):
                    ctx.emit("trade_cards", giver=fid, receiver=to, cards=give,
                             audience=ctx.seat(who))
                continue
            other = str(o.get("with"))
            get = _card_list(o.get("get"))
            if other not in st["factions"] or other == fid:
                void(ctx, fid, path, Why("not_other_faction", N_("'%(other)s' is not another faction") % {"other": other},
                                         faction=other))
                continue
            mirror = None
            for j, p in enumerate(faction_orders(ctx, other).get("trades") or []):
                if (other, j) in done or not isinstance(p, dict) or "to" in p:
                    continue
                if (str(p.get("with")) == fid and sorted(_card_list(p.get("give"))) == sorted(get)
                        and sorted(_card_list(p.get("get"))) == sorted(give)):
                    mirror = j
                    break
            if mirror is None:
                void(ctx, fid, path, Why("no_matching_trade",
                                         N_("faction %(other)s sent no matching TRADE") % {"other": other}, faction=other))
                continue
            done.add((other, mirror))
            why = (can_move(fid, give) or can_move(other, get)
                   or (None if give or get else Why("no_card", N_("names no card"))))
            if why:
                void(ctx, fid, path, why)
                void(ctx, other, f"orders.trades[{mirror}]", why)
                continue
            move(fid, other, give)
            move(other, fid, get)
            ctx.emit("trade", factions=[fid, other], count=len(give) + len(get), kind="trade")
            for who in (fid, other):
                ctx.emit("trade_cards", giver=fid, receiver=other, cards=give, received=get,
                         audience=ctx.seat(who))


# --------------------------------------------------------------------------- (b) plays


def family_controller(st: State, num: str) -> str | None:
    """The faction controlling family card ``num`` (aligned, or under an aligned Statesman)."""
    rec = st["senators"].get(num)
    if rec is not None:
        return rec["faction"] if is_aligned(rec) else None
    for r in st["senators"].values():
        if r["family_under"] == num and is_aligned(r):
            return str(r["faction"])
    return None


def statesman_problem(st: State, faction: str, card: str) -> str | None:
    """Why ``faction`` may not play Statesman ``card`` now (R2.4, R2.9), or None."""
    if card not in st["factions"][faction]["hand"]:
        return Why("not_in_hand", N_("%(card)s is not in your hand") % {"card": card}, card=card)
    if not is_statesman_id(card):
        return Why("not_statesman", N_("%(card)s is not a Statesman") % {"card": card}, card=card)
    num = number_of(card)
    pair = PAIRS.get(num)
    other_in_play = bool(pair) and any(
        b != card and b in st["senators"] and is_in_play(st["senators"][b]) for b in pair or ()
    )
    holder = family_controller(st, num)
    if holder is not None and holder != faction and not other_in_play:
        return Why("family_controlled", N_("faction %(holder)s controls family card %(num)s (R2.4)") % {"holder": holder, "num": num},
                   faction=holder, family=num)
    if not pair:
        for sid, r in st["senators"].items():
            if sid != num and number_of(sid) == num and is_in_play(r):
                return Why("same_number", N_("Statesman %(sid)s of the same number is in play (R2.4)") % {"sid": sid},
                           senator=sid)
    fam = st["senators"].get(num)
    if (fam is not None and is_aligned(fam) and fam["faction"] == faction and is_rebel(fam)
            and st["options"]["ror.play_on_rebel"] == "forbid"):
        return Why("family_rebel", N_("family senator %(num)s is a rebel (R2.9)") % {"num": num}, senator=num)
    return None


def concession_problem(st: State, faction: str, card: str, senator: str) -> str | None:
    """Why ``faction`` may not place Concession ``card`` on ``senator`` (R2.10), or None."""
    if card not in st["factions"][faction]["hand"]:
        return Why("not_in_hand", N_("%(card)s is not in your hand") % {"card": card}, card=card)
    if not is_concession_id(card):
        return Why("not_concession", N_("%(card)s is not a Concession") % {"card": card}, card=card)
    rec = st["senators"].get(senator)
    if rec is None or not is_aligned(rec) or rec["faction"] != faction:
        return Why("not_your_senator", N_("senator %(senator)s is not in your faction") % {"senator": senator}, senator=senator)
    if is_rebel(rec) and st["options"]["ror.play_on_rebel"] == "forbid":
        return Why("senator_rebel", N_("senator %(senator)s is a rebel (R2.9)") % {"senator": senator}, senator=senator)
    return None


def rename_senator(st: State, old: str, new: str) -> None:
    """Every reference to ``old`` now names ``new`` (R2.5)."""
    for a in st["armies"]:
        if a["commander"] == old:
            a["commander"] = new
        if a["master_of_horse"] == old:
            a["master_of_horse"] = new
    for lg in st["legions"].values():
        if lg["allegiance"] == old:
            lg["allegiance"] = new
    cw = st.get("civil_war")
    if cw:
        if cw["primary_rebel"] == old:
            cw["primary_rebel"] = new
        cw["secondary_rebels"] = [new if s == old else s for s in cw["secondary_rebels"]]
        if cw["ex_moh"] == old:
            cw["ex_moh"] = new
    for w in st["pending_wins"]:
        if w.get("senator") == old:
            w["senator"] = new
    cfl = st.get("consul_for_life")
    if cfl and cfl.get("senator") == old:
        cfl["senator"] = new


def stack(st: State, fam: str, card: str) -> dict[str, Any]:
    """Statesman ``card`` on family senator ``fam``: one senator with the Statesman's id (R2.5).

    Influence and Popularity take the higher value; MIL, ORA and LOY are the Statesman's; he
    inherits everything else.
    """
    frec = st["senators"].pop(fam)
    p = card_data().statesmen[card]
    rec = copy.deepcopy(frec)
    rec.update(id=card, name=p["name"], mil=p["mil"], ora=p["ora"], loy=p["loy"],
               influence=max(int(frec["influence"]), int(p["influence"])),
               popularity=max(int(frec["popularity"]), int(p["popularity"])), family_under=fam)
    st["senators"][card] = rec
    rename_senator(st, fam, card)
    return rec


def enter_alone(st: State, faction: str, card: str) -> dict[str, Any]:
    """A Statesman entering without his family card: printed values, in Rome (R2.7)."""
    p = card_data().statesmen[card]
    rec = {
        "id": card, "name": p["name"], "mil": p["mil"], "ora": p["ora"], "loy": p["loy"],
        "influence": p["influence"], "popularity": p["popularity"], "family_under": None,
        "knights": 0, "talents": 0, "offices": [], "markers": [], "concessions": [],
        "faction": faction, "zone": "faction", "location": "rome", "alive": True,
        "land_victory_this_turn": False,
    }
    st["senators"][card] = rec
    return rec


def play_statesman(ctx: Ctx, faction: str, card: str) -> str:
    """Put ``card`` into play for ``faction`` (R2.5-R2.7); returns how it entered."""
    st = ctx.state
    st["factions"][faction]["hand"].remove(card)
    num = number_of(card)
    fam = st["senators"].get(num)
    if fam is not None and is_aligned(fam) and fam["faction"] == faction:
        stack(st, num, card)
        return "stacked"  # R2.5
    if fam is not None and fam["alive"] and fam["zone"] == "forum":
        fam.update(zone="faction", faction=faction)
        stack(st, num, card)
        return "joined_from_forum"  # R2.6
    enter_alone(st, faction, card)
    return "alone"  # R2.7


def family_appears(ctx: Ctx, fam: str) -> None:
    """Family card ``fam`` appears in the Forum (script ``family_appears``, R2.7, R2.8).

    If a Statesman of that number is in play without a family card it goes under him at once
    (the "A" card of a pair first); otherwise it lies unaligned in the Forum.
    """
    from pbem.games.ror.mortality import family_record

    st = ctx.state
    rec = st["senators"].get(fam)
    if rec is not None and is_in_play(rec):
        ctx.emit("script_void", effect="family_appears", senator=fam, why="family_in_play")
        return
    if rec is None:
        return  # under a Statesman already
    hosts = sorted(
        s for s, r in st["senators"].items()
        if s != fam and number_of(s) == fam and is_in_play(r) and r["family_under"] is None
    )
    if hosts:
        host = st["senators"][hosts[0]]
        # stacked as in R2.5, comparing the family card's values (printed, Popularity 0) with
        # the Statesman's current Influence and Popularity (R2.7)
        host["influence"] = max(int(host["influence"]), int(rec["influence"]))
        host["popularity"] = max(int(host["popularity"]), int(rec["popularity"]))
        st["senators"].pop(fam)
        host["family_under"] = fam
        ctx.emit("family_card", family=fam, to=hosts[0], rule="R2.7")
        return
    st["senators"][fam] = family_record(fam, None, "forum", True)
    ctx.emit("family_card", family=fam, to="forum", rule="R2.7")


def step_plays(ctx: Ctx) -> None:
    """R2.3-R2.10: Statesmen and Concessions, the HRAO's faction first, then clockwise."""
    st = ctx.state
    _, first = hrao(st)
    for fid in clockwise_from(st, first):
        for i, o in enumerate(faction_orders(ctx, fid).get("plays") or []):
            path = f"orders.plays[{i}]"
            if not isinstance(o, dict):
                void(ctx, fid, path, Why("play_shape", N_("a play must be a mapping")))
                continue
            if "statesman" in o:
                card = str(o["statesman"])
                why = statesman_problem(st, fid, card)
                if why:
                    void(ctx, fid, path, Why("cannot_play", N_("%(card)s cannot be played: %(why)s") % {"card": card, "why": why},
                                             card=card, why=why))
                    continue
                how = play_statesman(ctx, fid, card)
                rec = st["senators"][card]
                ctx.emit("statesman_played", faction=fid, card=card, how=how,
                         influence=rec["influence"], popularity=rec["popularity"])
            elif "concession" in o:
                card, target = str(o["concession"]), o.get("senator")
                why = (concession_problem(st, fid, card, str(target)) if target is not None
                       else Why("no_senator", N_("names no senator to place it on (R2.10)")))
                if why:
                    void(ctx, fid, path, Why("cannot_place", N_("%(card)s cannot be placed: %(why)s") % {"card": card, "why": why},
                                             card=card, why=why))
                    continue
                st["factions"][fid]["hand"].remove(card)
                st["senators"][str(target)]["concessions"].append(card)
                ctx.emit("concession_placed", faction=fid, card=card, senator=str(target))
            else:
                void(ctx, fid, path, Why("play_kind", N_("a play names a statesman or a concession")))


# --------------------------------------------------------------------------- (c) hand limit

HAND_LIMIT = 5


def step_hand_limit(ctx: Ctx) -> None:
    """R2.11: discard down to 5 cards, by the DISCARD list, then ``ror.default_discard``."""
    st = ctx.state
    _, first = hrao(st)
    for fid in clockwise_from(st, first):
        hand = st["factions"][fid]["hand"]
        wanted = _card_list(faction_orders(ctx, fid).get("discards"))
        while len(hand) > HAND_LIMIT:
            card = next((c for c in wanted if c in hand), None)
            if card is not None:
                wanted.remove(card)
                how = "ordered"
            elif ctx.opt("ror.default_discard") == "newest":
                card, how = hand[-1], "default"
            else:
                # a pick over the hand in id order (R8.1) from the secret stream, shown to
                # the owner only and checkable once the hands are revealed (R8.4, R8.7)
                assert ctx.secret is not None
                in_order = sorted(hand, key=str)
                card = in_order[ctx.secret.below(len(in_order))]
                how = "default"
                ctx.emit("secret_draw", purpose=f"R2.11 discard {fid}", value=card,
                         candidates=in_order,
                         audience=ctx.seat(fid))
            hand.remove(card)
            st["discard"].append(card)
            ctx.emit("discard", faction=fid, card=card, how=how)
