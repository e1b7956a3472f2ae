"""The autopilot for the Republic of Rome: orders for a faction whose player is gone, played to
win for that faction.

It sees what the faction's player would see and nothing more: :func:`seat_state` rebuilds the
state from the public position and the faction's own secrets, and fills every other secret (the
other factions' hands, the cards the script will deal them, the deck, their Faction Treasuries
and standing orders) with a sample drawn from the autopilot's own random stream or a public
estimate. Everything after that works on the rebuilt state only, so another seat's secret cannot
steer an order (tests/test_ror_autopilot.py changes them and sees the same orders).

The one decision that decides most games, whether a victorious commander revolts (R3, R4), is
taken by search: the round is played out by the rules engine on the rebuilt state, once with the
revolt and once without, over a few samples of the dice, up to the Senate round that answers
the revolt; each outcome is scored by :func:`value` (the game's result, or the odds of the
coming civil-war battle against the army the Senate can send, or the faction's share of the
Influence that decides the game at Era Ends, R7.4). The threshold ``min_strength`` is chosen
from the same samples. The other orders are rules of thumb: every Statesman played, Concessions
on senators who will not rebel, the weakest cards discarded, no card given away, the strongest
army against a rival's rebel, loyal veterans deserting a rival's rebel, Talents saved in the
Faction Treasury for a rebel's upkeep. docs/autopilot.md explains the choices.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from pbem.common.fair import Rng
from pbem.games.ror import adjudicate
from pbem.games.ror.civil_war import eligible_commanders, rebel_strength, strength_with
from pbem.games.ror.dispatch import can_command, consents, dispatcher, moh_of
from pbem.games.ror.endgame import default_attack
from pbem.games.ror.model import (
    Ctx,
    Dice,
    State,
    active_war_count,
    army_legions,
    army_of,
    card_data,
    hrao,
    is_aligned,
    is_concession_id,
    is_rebel,
    is_statesman_id,
    legion_strength,
    legions_at,
    military,
    number_of,
    primary_alive,
    sen,
    sid_key,
)
from pbem.games.ror.orders import default_orders, legal_orders
from pbem.games.ror.revolution import family_controller
from pbem.games.ror.turn import POPULATION_TABLE, advance, resolve_round

SAMPLES = 5          # plays of the round per choice of a revolt decision
TREASURY_GUESS = 3   # another faction's treasury, which is secret (R8.7)
INF_SCALE = 4.0      # Influence points that make a lead about e times likelier to win at Era Ends
HORIZON = 2         # Population Phases looked ahead: Unrest further on depends on battles to come
NEXT_TURN = ("mortality", "start")  # where a play without a revolt may stop: nothing to weigh after
ALL_LOSE = -1.0      # the Republic falling is far worse than a rival's win: never chosen on purpose


# -- what the seat knows ----------------------------------------------------------------------


def seat_state(state: State, faction: str, rng: Rng) -> State:
    """The state as ``faction``'s player can know it: public facts and the faction's own
    secrets as they are, every other secret replaced by a sample from ``rng`` (hands, the
    deck, the cards the script deals the others) or a public estimate (Faction Treasuries);
    the others' standing orders are dropped."""
    st: State = copy.deepcopy(state)
    others = [f for f in st["seating"] if f != faction]
    future = [e for e in st.get("script") or [] if e.get("effect") == "card_to_hand"
              and str((e.get("args") or {}).get("faction")) in others]
    deck = list(st.get("deck") or [])
    pool = sorted([c for f in others for c in st["factions"][f]["hand"]] + deck
                  + [str(e["args"]["card"]) for e in future], key=str)
    rng.shuffle(pool)
    for f in others:
        n = len(st["factions"][f]["hand"])  # hand sizes are public (R8.7)
        st["factions"][f]["hand"], pool = pool[:n], pool[n:]
        st["factions"][f]["faction_treasury"] = TREASURY_GUESS
        st["factions"][f]["standing"] = {}
    for e in future:
        e["args"]["card"], pool = pool[0], pool[1:]
    if st.get("deck"):
        st["deck"] = pool
    return st


def autopilot_orders(state: State, power: str, rng: Rng) -> dict[str, Any]:
    """Orders for faction ``power`` from what its seat knows; deterministic in ``rng``. Nothing
    but the faction's id is read from ``state`` before it is rebuilt as the seat knows it."""
    st = seat_state(state, power, rng.fork("sample"))
    waiting = st.get("awaiting") or {}
    kind = waiting.get("kind")
    out: dict[str, Any] = {}
    if power in (waiting.get("powers") or []):
        if kind == "revolution":
            out = _revolution(st, power, rng.fork("revolution"))
        elif kind in ("declare", "revolution-2"):
            out = _declarations_only(st, power, rng.fork("declare"))
        elif kind == "senate":
            out = _senate(st, power)
        elif kind == "endgame":
            out = {"attack": default_attack(st)}
        else:
            out = default_orders(st, power)
    rising = {str(x) for d in out.get("declarations") or [] if d["decision"] in ("revolt", "roll")
              for x in [d["commander"], *(d.get("secondaries") or []),
                        *([(army_of(st, d["commander"]) or {}).get("master_of_horse")]
                          if d.get("moh_joins") else [])] if x}
    standing = _standing(st, power, rising)
    if standing:
        out["standing"] = standing
    return out


# -- scoring -------------------------------------------------------------------------------------


def _three_d6() -> list[float]:
    dist = [0.0] * 19
    for a in range(1, 7):
        for b in range(1, 7):
            for c in range(1, 7):
                dist[a + b + c] += 1 / 216
    return dist


_3D6 = _three_d6()


def battle_odds(senate: int, rebel: int, omens: int) -> tuple[float, float]:
    """(Senate Victory, Senate Defeat) chances of one civil-war battle (R6.4, R6.5)."""
    d = senate - rebel - omens
    win = sum(p for t, p in enumerate(_3D6) if t + d >= 14)
    lose = sum(p for t, p in enumerate(_3D6) if t + d <= 7)
    return win, lose


def influence(st: State, faction: str) -> int:
    """Combined Influence of the faction's senators who count at Era Ends (R7.4)."""
    return sum(int(r["influence"]) for r in st["senators"].values()
               if is_aligned(r) and r["faction"] == faction and not is_rebel(r)
               and r["location"] != "captive")


def era_share(st: State, faction: str) -> float:
    """The faction's odds at Era Ends, from the Influence standings (a soft maximum)."""
    mine = influence(st, faction)
    total = sum(math.exp((influence(st, f) - mine) / INF_SCALE) for f in st["seating"])
    return 1.0 / total


def senate_strengths(st: State) -> tuple[int, int]:
    """The strength of the army the Senate can send against the rebel next, at its best (every
    legion in Active Forces and facing him, under the best commander who may be sent) and at
    its most careless (half of them under the weakest); 0 where it can send none."""
    lids = legions_at(st, "active_forces")
    facing = [lid for a in st["armies"] if a["target"] == "civil_war" for lid in army_legions(st, a)]
    mils = [military(st, s) + military(st, moh_of(st, s)) for s in st["senators"] if can_command(st, s)]
    mils += [military(st, a["commander"]) for a in st["armies"]
             if a["target"] == "civil_war" and a["commander"]]
    every = lids + facing
    if not mils or not every:
        return 0, 0
    return strength_with(st, every, max(mils)), strength_with(st, every[: (len(every) + 1) // 2], min(mils))


def civil_war_odds(st: State) -> tuple[float, float]:
    """(Senate Victory, Senate Defeat) of the coming battle, the dispatcher being as likely to
    send the Senate's best army as a careless one (he is another player, with his own aims)."""
    rebel = rebel_strength(st)
    omens = int(st["evil_omens_level"])
    odds = [battle_odds(s, rebel, omens) if s else (0.0, 1.0) for s in senate_strengths(st)]
    return (sum(w for w, _ in odds) / len(odds), sum(lo for _, lo in odds) / len(odds))


def _unrest_rise(st: State) -> int:
    """What each Population Phase adds to Unrest before the roll (R9.7)."""
    rise = sum(1 for w in st["wars"].values() if w["status"] == "unprosecuted") + int(st["drought_effects"])
    cw = st.get("civil_war")
    return rise + (1 if cw and cw.get("unprosecuted") else 0)


def _population_roll(st: State) -> int:
    """What the State of the Republic adds to 3d6 besides Unrest: the HRAO's Popularity less
    the Evil Omens (R9.7)."""
    hsid, _ = hrao(st)
    return (int(sen(st, hsid)["popularity"]) if hsid else 0) - int(st["evil_omens_level"])


def people_revolt_odds(st: State) -> float:
    """The chance that the next Population Phase ends in a People Revolt (R9.7)."""
    unrest = int(st["unrest"]) + _unrest_rise(st)
    return sum(p for t, p in enumerate(_3D6) if t - unrest + _population_roll(st) < 0)


def republic_stands(st: State) -> float:
    """The chance that no People Revolt comes before Era Ends: Unrest carried from one
    Population Phase to the next by the Population Table (R9.7), the HRAO as he is now."""
    end = st.get("era_ends_turn")
    past = st["phase"] in ("senate", "combat", "revolution")
    phases = (int(end) - int(st["turn"]) - (1 if past else 0)) if end is not None else 3
    rise, extra = _unrest_rise(st), _population_roll(st)
    dist = {int(st["unrest"]): 1.0}
    for _ in range(max(0, min(HORIZON, phases))):
        nxt: dict[int, float] = {}
        for u, pu in dist.items():
            u += rise
            for t, pt in enumerate(_3D6):
                if pt == 0.0:
                    continue
                total = t - u + extra
                if total < 0:
                    continue
                change = next(c for lo, c in POPULATION_TABLE if total >= lo)
                v = min(40, max(0, u + change))
                nxt[v] = nxt.get(v, 0.0) + pu * pt
        dist = nxt
    return sum(dist.values())


def value(st: State, faction: str) -> float:
    """How good ``st`` is for ``faction``: 1 a sure win, 0 a sure loss (ALL_LOSE below that).
    A People Revolt is everybody's loss, or the win of a rebel who lives (R7.2, R7.3)."""
    res = st.get("game_result")
    if res is not None:
        if res.get("outcome") == "all_lose":
            return ALL_LOSE
        return 1.0 if res.get("faction") == faction else 0.0
    cw = st.get("civil_war")
    share = era_share(st, faction)
    if not cw or cw.get("primary_dead"):
        return share * republic_stands(st)
    rebel_faction = sen(st, cw["primary_rebel"])["faction"]
    win, lose = civil_war_odds(st)
    stale = max(0.0, 1.0 - win - lose)
    if active_war_count(st, include_civil_war=False) >= 3:
        # a Stalemate leaves four Active Wars at the end of the Combat Phase: all lose (R7.3)
        mine = lose if rebel_faction == faction else win * share
        return mine + stale * ALL_LOSE
    # battle after battle; after each Stalemate a People Revolt would be the rebel's win
    p = people_revolt_odds(st)
    again = stale * (1.0 - p)
    rebel_wins = (lose + stale * p) / (1.0 - again) if again < 1.0 else 0.5
    if rebel_faction == faction:
        return rebel_wins
    return (1.0 - rebel_wins) * share


# -- the revolution round -------------------------------------------------------------------------


def _card_worth(st: State, faction: str, card: str) -> float:
    """How much a card in hand is worth keeping (discards go lowest first)."""
    data = card_data()
    if is_statesman_id(card):
        holder = family_controller(st, number_of(card))
        base = float(data.statesmen[card]["influence"])
        return base + (10.0 if holder in (None, faction) else 0.0)
    if is_concession_id(card):
        return 5.0 + float(data.concessions[card]["income"])
    return 1.0


def _members(st: State, faction: str) -> list[str]:
    return sorted((s for s, r in st["senators"].items() if is_aligned(r) and r["faction"] == faction),
                  key=sid_key)


def _renamed(st: State, faction: str) -> set[str]:
    """Senators of the faction whose id a Statesman played this round replaces (R2.5): an
    order naming them by their old id would be void."""
    waiting = st.get("awaiting") or {}
    if waiting.get("kind") != "revolution" or faction not in (waiting.get("powers") or []):
        return set()
    legal = legal_orders(st, faction)
    return {number_of(c) for c in legal["statesmen"]}


def _plays(st: State, faction: str, legal: dict[str, Any]) -> list[dict[str, Any]]:
    """Every Statesman that may enter (pairs in letter order), then every Concession on the
    richest-in-Influence senator who commands no army (a rebel would lose it, R4.7) and whose
    id no Statesman played now replaces (R2.5)."""
    plays: list[dict[str, Any]] = [{"statesman": c} for c in sorted(legal["statesmen"], key=sid_key)]
    victors = {sid for f, sid in eligible_commanders(st) if f == faction}
    renamed = {number_of(c) for c in legal["statesmen"]}
    for c, targets in sorted(legal["concessions"].items()):
        targets = [s for s in targets if s not in renamed]
        if not targets:
            continue
        calm = [s for s in targets if s not in victors and army_of(st, s) is None] or targets
        best = max(calm, key=lambda s: (int(sen(st, s)["influence"]), -sid_key(s)[0]))
        plays.append({"concession": c, "senator": best})
    return plays


def _revolution(st: State, faction: str, rng: Rng) -> dict[str, Any]:
    legal = legal_orders(st, faction)
    out: dict[str, Any] = {}
    plays = _plays(st, faction, legal)
    if plays:
        out["plays"] = plays
    if legal["must_discard"]:
        hand = sorted(legal["hand"], key=lambda c: (_card_worth(st, faction, c), str(c)))
        out["discards"] = hand
    decls = _declare(st, faction, legal, rng, plays)
    if decls:
        out["declarations"] = decls
    return out


def _declarations_only(st: State, faction: str, rng: Rng) -> dict[str, Any]:
    legal = legal_orders(st, faction)
    decls = _declare(st, faction, legal, rng, [])
    return {"declarations": decls} if decls else {}


def _revolt_blocked(st: State) -> bool:
    """Nobody may revolt while a Primary Rebel fixed in an earlier turn lives (R3.3)."""
    return bool((st.get("declaring") or {}).get("blocked")) or (
        primary_alive(st) and not st.get("declaring"))


def _secondaries(st: State, faction: str, commander: str) -> list[str]:
    """Senators who bring veterans by joining (R4.5): their veterans outside the army desert."""
    a = army_of(st, commander)
    mine = set(army_legions(st, a)) if a else set()
    out = []
    for s in _members(st, faction):
        if s == commander or sen(st, s)["location"] == "captive":
            continue
        vets = [lid for lid, lg in st["legions"].items() if lg["veteran"] and lg["allegiance"] == s
                and lg["location"] != "pool" and lid not in mine]
        if vets:
            out.append(s)
    return out


def _revolt_order(st: State, faction: str, commander: str, kind: str) -> dict[str, Any]:
    """The fullest revolt: every legion that rolls bribed (R4.2), the joiners who bring
    veterans, a Master of Horse of the faction joining and paying."""
    a = army_of(st, commander)
    lids = army_legions(st, a) if a else []
    rolling = [lid for lid in lids if st["legions"][lid]["allegiance"] != commander]
    d: dict[str, Any] = {"commander": commander, "decision": "revolt"}
    if kind != "revolution-2":
        d["bribes"] = [int(x) for x in rolling]
    moh = a["master_of_horse"] if a else None
    if moh and sen(st, moh)["faction"] == faction and kind != "revolution-2":
        d["moh_pays"] = int(sen(st, moh)["talents"])
    if moh and sen(st, moh)["faction"] == faction:
        d["moh_joins"] = True
    if kind in ("revolution-2", "declare") or st["options"]["ror.pbem_loyalty_test"] != "two_round":
        d["secondaries"] = _secondaries(st, faction, commander)
    return d


def _play_round(st: State, faction: str, mine: dict[str, Any], rng: Rng,
                until: tuple[str, str] | None = None) -> tuple[State, int | None]:
    """The state after this round with ``mine`` for ``faction`` and the rules' defaults for the
    others, and the revolt strength ``faction`` reached (None: no revolt of its own); with
    ``until``, the play stops at that step (phase, step) if no round opens before. The
    round runs as :func:`adjudicate.resolve` runs it, on a copy made through JSON (the state
    is plain data, R1), which is faster than a deep copy."""
    orders = adjudicate.with_defaults(st, {faction: mine})
    work = json.loads(json.dumps(st))
    ctx = Ctx(work, Dice(rng.fork("p")), round=work["awaiting"]["round"], orders=orders, secret=rng.fork("s"))
    work["last_round"] = ctx.round
    try:
        resolve_round(ctx)
        advance(ctx, until)
    except Exception:  # noqa: BLE001 - a choice the engine cannot play is simply not chosen
        return {}, None
    reached = None
    for ev in ctx.events:
        if ev.get("type") == "revolt_strength" and sen(work, str(ev["commander"]))["faction"] == faction:
            reached = int(ev["strength"])
    return work, reached


def _declare(st: State, faction: str, legal: dict[str, Any], rng: Rng,
             plays: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each of the faction's land victors lays down command, unless a revolt plays out
    better on the samples; then ``min_strength`` is the strength that makes it worth it."""
    kind = (st.get("awaiting") or {}).get("kind")
    commanders = sorted(legal.get("commanders") or {}, key=sid_key)
    if not commanders:
        return []
    lay = [{"commander": c, "decision": "lay_down"} for c in commanders]
    cfl = (st.get("consul_for_life") or {}).get("senator")
    if _revolt_blocked(st):
        return lay
    two_round = st["options"]["ror.pbem_loyalty_test"] == "two_round"
    if two_round and kind == "revolution":
        # R8.3: the dice come first and the choice in revolution-2; rolling costs only bribes
        return [{**_revolt_order(st, faction, c, kind), "decision": "roll"} if c != cfl else
                {"commander": c, "decision": "lay_down"} for c in commanders]
    if kind == "revolution-2":
        rolled = {r["commander"] for r in (st.get("declaring") or {}).get("rolled") or []}
        commanders = [c for c in commanders if c in rolled] or commanders
    base = {"plays": plays} if plays else {}
    st = dict(st, dice_log=[])  # the record of past draws plays no part in the rules
    sims = [rng.fork(f"sample{i}") for i in range(SAMPLES)]
    stay = [value(s, faction) if s else 0.0
            for s, _ in (_play_round(st, faction, {**base, "declarations": lay}, r, NEXT_TURN) for r in sims)]
    best: tuple[float, list[dict[str, Any]]] = (sum(stay) / SAMPLES, lay)
    for c in _likeliest_rebel(st, [c for c in commanders if c != cfl]):
        d = _revolt_order(st, faction, c, kind or "")
        decls = [d if x["commander"] == c else x for x in lay]
        runs = [_play_round(st, faction, {**base, "declarations": decls}, r) for r in sims]
        got = [(value(s, faction) if s else 0.0, reached) for s, reached in runs]
        # the threshold: revolt only at a strength whose samples beat laying down
        for threshold in sorted({r for _, r in got if r is not None} | {0}):
            total = sum(v if (r is not None and r >= threshold) else stay[i]
                        for i, (v, r) in enumerate(got))
            if total / SAMPLES > best[0] + 1e-9:
                chosen = dict(d)
                if threshold and kind != "revolution-2":
                    chosen["min_strength"] = threshold
                best = (total / SAMPLES, [chosen if x["commander"] == c else x for x in lay])
    return best[1]


def _likeliest_rebel(st: State, commanders: list[str]) -> list[str]:
    """The one commander whose revolt is played out (only one of a faction's can be Primary
    Rebel, R3.4): the strongest army, veterans counted twice, with his MIL (R3.4)."""
    def strength(c: str) -> tuple[int, tuple[int, str]]:
        a = army_of(st, c)
        return (strength_with(st, army_legions(st, a), military(st, c)) if a else 0, sid_key(c))

    return sorted(commanders, key=lambda c: (-strength(c)[0], strength(c)[1]))[:1]


# -- the Senate round ----------------------------------------------------------------------------


def _senate(st: State, faction: str) -> dict[str, Any]:
    """The strongest army against the rebel: every legion in Active Forces to the Proconsul
    who attacks first, or else under the best commander who may be sent, and as many new
    legions as the Treasury can raise while it keeps enough for next turn's bills (R9.5)."""
    cw = st.get("civil_war")
    lids = [int(x) for x in legions_at(st, "active_forces")]
    if not cw:
        return default_orders(st, faction)
    can_raise = _affordable_raise(st)
    facing = sorted((a for a in st["armies"] if a["target"] == "civil_war" and a["commander"]
                     and army_legions(st, a)), key=lambda a: (a.get("dispatch_index") or 0, a["id"]))
    if facing:
        return {"reinforce": [{"proconsul": facing[0]["commander"], "legions": lids, "raise": can_raise}]}
    rebel = rebel_strength(st)
    d = dispatcher(st)
    best: tuple[tuple[float, int, int], str] | None = None
    for s in sorted((s for s in st["senators"] if can_command(st, s)), key=sid_key):
        if army_of(st, s) is not None:
            continue
        mil = military(st, s) + military(st, moh_of(st, s))
        ls = legion_strength(st, [str(x) for x in lids]) + can_raise
        strength = ls + min(mil, ls)
        if ls == 0 or not consents(st, d, s, strength):
            continue
        win, lose = battle_odds(strength, rebel, int(st["evil_omens_level"]))
        own = 1 if sen(st, s)["faction"] == faction else 0
        key = (round(win - lose, 3), own, mil)
        if best is None or key > best[0]:
            best = (key, s)
    if best is None:
        return default_orders(st, faction)
    return {"dispatch": [{"commander": best[1], "legions": lids, "raise": can_raise}]}


def _affordable_raise(st: State) -> int:
    """New legions the State can pay for without going bankrupt before Era Ends: each costs
    10T now and 2T a turn (R9.5, R9.9); a bankruptcy while the rebel lives is his win."""
    wars = active_war_count(st)
    units = sum(1 for lg in st["legions"].values() if lg["location"] not in ("pool", "rebel_army"))
    units += sum(1 for fl in st["fleets"].values() if fl["location"] not in ("pool", "rebel_army"))
    net = int(st["state_income"]) - 20 * (wars + 1) - 2 * units - int(st["state_other_debits"])
    end = st.get("era_ends_turn")
    turns = max(1, int(end) - int(st["turn"]) + 1) if end is not None else 4
    k = min(len(legions_at(st, "pool")), int(st["state_treasury"]) // 10)
    while k > 0 and int(st["state_treasury"]) - 10 * k + turns * (net - 2 * k) < 20:
        k -= 1
    return k


# -- standing orders -----------------------------------------------------------------------------


def _standing(st: State, faction: str, rising: set[str]) -> dict[str, Any]:
    """Veterans of ours leave a rival's rebel for the Senate army (R4.6); our senators are lent
    to the Senate against a rival's rebel only when the army is strong (no CONSENT); released
    rebel units are accepted when the rebel is a rival's (R5.4); loyal senators in Rome put
    their Talents in the Faction Treasury, which pays a rebel's upkeep (R5.2, R9.5)."""
    cw = st.get("civil_war")
    rebel_faction = sen(st, cw["primary_rebel"])["faction"] if cw else None
    out: dict[str, Any] = {}
    if cw and rebel_faction != faction:
        vets = [lid for lid in legions_at(st, "rebel_army") if st["legions"][lid]["veteran"]
                and st["legions"][lid]["allegiance"] in _members(st, faction)
                and not is_rebel(sen(st, st["legions"][lid]["allegiance"]))]
        if vets:
            out["desert"] = [{"legion": int(x), "to": "senate_army"} for x in vets]
        out["accept"] = "all"
    elif cw:
        out["accept"] = []
    moves = []
    renamed = _renamed(st, faction) | rising  # a rebel's Talents may not go to the treasury (R4.8)
    for s in _members(st, faction):
        r = sen(st, s)
        if s not in renamed and r["location"] == "rome" and not is_rebel(r) and army_of(st, s) is None and r["talents"] > 0:
            moves.append({"from": s, "to": "treasury", "amount": 99})  # cut to what he holds
    out["redistribute"] = moves  # even empty: it replaces an older one (R8.2) naming a rebel now
    return out

