"""Orders: checking a faction's orders (R8.6), defaults (R8.4) and the legal choices (R8.2).

The ``orders`` field of an order file holds one mapping for the faction of the round:

* ``revolution``: ``trades``, ``plays``, ``discards``, ``declarations``, ``consent_pay``;
* ``senate``: ``dispatch``, ``reinforce``;
* ``endgame``: ``attack``;
* any round: ``standing`` (``desert``, ``consent``, ``release``, ``accept``, ``attack``,
  ``redistribute``), kept until replaced.

Problems carry a path relative to the faction's orders (``trades[1].give[0]``; the core
reports it as ``orders.A.trades[1].give[0]``, with its line) and a sentence a player
understands. A problem found here is reported before the deadline; an order that passes here
but cannot run when its turn comes is void at resolution (R8.6).
"""

from __future__ import annotations

from typing import Any

from pbem.common.catalog import N_
from pbem.games.base import OrderProblem
from pbem.games.ror.civil_war import eligible_commanders, manilian_problem
from pbem.games.ror.dispatch import can_command, default_dispatch
from pbem.games.ror.endgame import default_attack
from pbem.games.ror.model import (
    State,
    army_legions,
    army_of,
    is_aligned,
    is_concession_id,
    is_statesman_id,
    legions_at,
    sid_key,
)
from pbem.games.ror.revolution import concession_problem, statesman_problem

# standing orders ride in any round and are kept until replaced (R8.2)
STANDING_KEYS = ("desert", "consent", "release", "accept", "attack", "redistribute")

ROUND_KEYS = {
    "revolution": ("trades", "plays", "discards", "declarations", "consent_pay"),
    "senate": ("dispatch", "reinforce"),
    "endgame": ("attack",),
    "declare": ("declarations", "consent_pay"),
    "revolution-2": ("declarations",),
}


class _Checker:
    def __init__(self, st: State, power: str) -> None:
        self.st, self.power = st, power
        self.problems: list[OrderProblem] = []

    def bad(self, path: str, msg: str) -> None:
        # paths are relative to the faction's orders; the core writes orders.<faction>.<path>
        rel = path[len("orders."):] if path.startswith("orders.") else (
            "" if path == "orders" else path)
        self.problems.append(OrderProblem(rel, msg))

    def is_list(self, x: Any, path: str) -> list[Any]:
        if x is None:
            return []
        if not isinstance(x, list):
            self.bad(path, N_("must be a list"))
            return []
        return x

    def is_map(self, x: Any, path: str) -> dict[str, Any] | None:
        if not isinstance(x, dict):
            self.bad(path, N_("must be a mapping (key: value lines)"))
            return None
        return x

    def int_ok(self, x: Any, path: str, lo: int = 0) -> bool:
        if isinstance(x, bool) or not isinstance(x, int) or x < lo:
            self.bad(path, N_("must be a whole number of at least %(lo)s") % {"lo": lo})
            return False
        return True

    def own_senator(self, x: Any, path: str) -> str | None:
        sid = str(x)
        rec = self.st["senators"].get(sid)
        if rec is None or not is_aligned(rec) or rec["faction"] != self.power:
            self.bad(path, N_("'%(x)s' is not a living senator of your faction") % {"x": x})
            return None
        return sid

    def card_in_hand(self, x: Any, path: str) -> str | None:
        c = str(x)
        if c not in self.st["factions"][self.power]["hand"]:
            self.bad(path, N_("card '%(x)s' is not in your hand") % {"x": x})
            return None
        return c


def validate_orders(st: State, power: str, orders: Any) -> list[OrderProblem]:
    """Problems of ``orders`` for ``power`` in the current round; empty if all is well."""
    ck = _Checker(st, power)
    if power not in st["factions"]:
        return [OrderProblem("", N_("there is no faction '%(power)s'") % {"power": power})]
    if orders is None:
        return []
    o = ck.is_map(orders, "orders")
    if o is None:
        return ck.problems
    waiting = st.get("awaiting") or {}
    kind = waiting.get("kind")
    allowed = set(ROUND_KEYS.get(kind or "", ())) | {"standing"}
    for key in sorted(o):
        if key not in allowed:
            where = kind or "no"
            ck.bad(f"orders.{key}", N_("'%(key)s' is not an order of the %(where)s round; this round takes: %(allowed)s") % {"key": key, "where": where, "allowed": ', '.join(sorted(allowed))})
    if power not in (waiting.get("powers") or []) and set(o) - {"standing"}:
        ck.bad("orders", N_("faction %(power)s sends only standing orders in this round") % {"power": power})
    _check_revolution(ck, o)
    _check_senate(ck, o)
    _check_endgame(ck, o.get("attack"), "orders.attack")
    if "standing" in o:
        _check_standing(ck, o["standing"])
    return ck.problems


def _check_revolution(ck: _Checker, o: dict[str, Any]) -> None:
    st, power = ck.st, ck.power
    kind = (st.get("awaiting") or {}).get("kind")
    others = [f for f in st["factions"] if f != power]
    for i, t in enumerate(ck.is_list(o.get("trades"), "orders.trades")):
        p = f"orders.trades[{i}]"
        t = ck.is_map(t, p)
        if t is None:
            continue
        if ("to" in t) == ("with" in t):
            ck.bad(p, N_("a GIVE names 'to', a TRADE names 'with' and 'get'"))
            continue
        partner = t.get("to", t.get("with"))
        if str(partner) not in others:
            ck.bad(f"{p}.{'to' if 'to' in t else 'with'}",
                   N_("'%(partner)s' is not another faction (%(others)s)") % {"partner": partner, "others": ', '.join(others)})
        for j, c in enumerate(ck.is_list(t.get("give"), f"{p}.give")):
            ck.card_in_hand(c, f"{p}.give[{j}]")
        if "with" in t:
            for j, c in enumerate(ck.is_list(t.get("get"), f"{p}.get")):
                if not (is_statesman_id(str(c)) or is_concession_id(str(c))
                        or str(c).startswith(("intrigue", "law"))):
                    ck.bad(f"{p}.get[{j}]", N_("'%(card)s' is not a Faction card") % {"card": c})
        if not t.get("give") and not t.get("get"):
            ck.bad(p, N_("names no card"))
    for i, pl in enumerate(ck.is_list(o.get("plays"), "orders.plays")):
        p = f"orders.plays[{i}]"
        pl = ck.is_map(pl, p)
        if pl is None:
            continue
        if "statesman" in pl:
            c = str(pl["statesman"])
            if not is_statesman_id(c):
                ck.bad(f"{p}.statesman", N_("'%(card)s' is not a Statesman card") % {"card": c})
            elif c in st["factions"][power]["hand"]:
                why = statesman_problem(st, power, c)
                if why and "not in your hand" not in why:
                    ck.bad(f"{p}.statesman", N_("%(card)s cannot be played now: %(why)s") % {"card": c, "why": why})
        elif "concession" in pl:
            c = str(pl["concession"])
            if not is_concession_id(c):
                ck.bad(f"{p}.concession", N_("'%(card)s' is not a Concession card") % {"card": c})
            elif "senator" not in pl:
                ck.bad(p, N_("say on which 'senator' the Concession goes"))
            elif c in st["factions"][power]["hand"]:
                why = concession_problem(st, power, c, str(pl["senator"]))
                if why:
                    ck.bad(f"{p}.senator", why)
        else:
            ck.bad(p, N_("a play names a 'statesman' or a 'concession' (with 'senator')"))
    for i, c in enumerate(ck.is_list(o.get("discards"), "orders.discards")):
        if not (is_statesman_id(str(c)) or is_concession_id(str(c))
                or str(c).startswith(("intrigue", "law"))):
            ck.bad(f"orders.discards[{i}]", N_("'%(card)s' is not a Faction card") % {"card": c})
    mine = {sid for f, sid in eligible_commanders(st) if f == power}
    for i, d in enumerate(ck.is_list(o.get("declarations"), "orders.declarations")):
        p = f"orders.declarations[{i}]"
        d = ck.is_map(d, p)
        if d is None:
            continue
        sid = str(d.get("commander"))
        if sid not in mine:
            ck.bad(f"{p}.commander", N_("'%(commander)s' is not a land victor of your faction who must decide (eligible: %(mine)s)") % {"commander": d.get('commander'), "mine": ', '.join(sorted(mine)) or N_("none")})
        dec = d.get("decision")
        if dec not in ("revolt", "lay_down", "manilian", "roll"):
            ck.bad(f"{p}.decision", N_("must be revolt, lay_down, manilian or roll"))
        elif dec == "roll" and (st["options"]["ror.pbem_loyalty_test"] != "two_round"
                                or kind == "revolution-2"):
            ck.bad(f"{p}.decision", N_("ROLL is sent only in the first round under the two_round loyalty test (R8.3)"))
        if dec == "manilian" and sid in mine:
            why = manilian_problem(st, sid, d.get("war"))
            if why:
                ck.bad(f"{p}.war", why)
        a = army_of(st, sid)
        lids = set(army_legions(st, a)) if a else set()
        for j, lid in enumerate(ck.is_list(d.get("bribes"), f"{p}.bribes")):
            if str(lid) not in lids:
                ck.bad(f"{p}.bribes[{j}]", N_("legion %(lid)s is not in %(sid)s's army") % {"lid": lid, "sid": sid})
        for key in ("moh_pays", "min_strength"):
            if key in d:
                ck.int_ok(d[key], f"{p}.{key}")
        for key in ("moh_joins", "only_if_primary", "roll"):
            if key in d and not isinstance(d[key], bool):
                ck.bad(f"{p}.{key}", N_("must be true or false"))
        for j, s in enumerate(ck.is_list(d.get("secondaries"), f"{p}.secondaries")):
            if ck.own_senator(s, f"{p}.secondaries[{j}]") == sid:
                ck.bad(f"{p}.secondaries[{j}]", N_("the commander cannot be his own Secondary"))
    for i, c in enumerate(ck.is_list(o.get("consent_pay"), "orders.consent_pay")):
        p = f"orders.consent_pay[{i}]"
        c = ck.is_map(c, p)
        if c is None:
            continue
        ck.own_senator(c.get("moh"), f"{p}.moh")
        ck.int_ok(c.get("n"), f"{p}.n")


def _check_senate(ck: _Checker, o: dict[str, Any]) -> None:
    st = ck.st
    af = set(legions_at(st, "active_forces"))
    seen: set[str] = set()
    for key, who in (("dispatch", "commander"), ("reinforce", "proconsul")):
        for i, e in enumerate(ck.is_list(o.get(key), f"orders.{key}")):
            p = f"orders.{key}[{i}]"
            e = ck.is_map(e, p)
            if e is None:
                continue
            sid = str(e.get(who))
            rec = st["senators"].get(sid)
            if rec is None or not is_aligned(rec):
                ck.bad(f"{p}.{who}", N_("'%(who)s' is not a living aligned senator") % {"who": e.get(who)})
            for j, lid in enumerate(ck.is_list(e.get("legions"), f"{p}.legions")):
                if str(lid) not in af:
                    ck.bad(f"{p}.legions[{j}]", N_("legion %(lid)s is not in Active Forces") % {"lid": lid})
                elif str(lid) in seen:
                    ck.bad(f"{p}.legions[{j}]", N_("legion %(lid)s is already sent") % {"lid": lid})
                seen.add(str(lid))
            if "raise" in e:
                ck.int_ok(e["raise"], f"{p}.raise")


def _check_endgame(ck: _Checker, attack: Any, path: str) -> None:
    for i, w in enumerate(ck.is_list(attack, path)):
        if str(w) not in ck.st["wars"]:
            ck.bad(f"{path}[{i}]", N_("there is no war '%(w)s'") % {"w": w})


def _check_standing(ck: _Checker, s: Any) -> None:
    s = ck.is_map(s, "orders.standing")
    if s is None:
        return
    st = ck.st
    for key in sorted(s):
        if key not in STANDING_KEYS:
            ck.bad(f"orders.standing.{key}", N_("'%(key)s' is not a standing order (%(known)s)") % {"key": key, "known": ', '.join(STANDING_KEYS)})
    for i, d in enumerate(ck.is_list(s.get("desert"), "orders.standing.desert")):
        p = f"orders.standing.desert[{i}]"
        d = ck.is_map(d, p)
        if d is None:
            continue
        if str(d.get("legion")) not in st["legions"]:
            ck.bad(f"{p}.legion", N_("there is no legion %(legion)s") % {"legion": d.get('legion')})
        if d.get("to") not in ("senate_army", "active_forces"):
            ck.bad(f"{p}.to", N_("must be senate_army or active_forces"))
    consent = s.get("consent")
    if consent is not None:
        c = ck.is_map(consent, "orders.standing.consent")
        for sid, v in (c or {}).items():
            ck.own_senator(sid, f"orders.standing.consent.{sid}")
            if v not in (True, False, "yes", "no"):
                ck.bad(f"orders.standing.consent.{sid}", N_("must be yes or no"))
    for i, lid in enumerate(ck.is_list(s.get("release"), "orders.standing.release")):
        if str(lid) not in st["legions"]:
            ck.bad(f"orders.standing.release[{i}]", N_("there is no legion %(lid)s") % {"lid": lid})
    acc = s.get("accept")
    if acc is not None and acc != "all":
        for i, lid in enumerate(ck.is_list(acc, "orders.standing.accept")):
            if str(lid) not in st["legions"]:
                ck.bad(f"orders.standing.accept[{i}]", N_("there is no legion %(lid)s") % {"lid": lid})
    _check_endgame(ck, s.get("attack"), "orders.standing.attack")
    for i, r in enumerate(ck.is_list(s.get("redistribute"), "orders.standing.redistribute")):
        p = f"orders.standing.redistribute[{i}]"
        r = ck.is_map(r, p)
        if r is None:
            continue
        for end in ("from", "to"):
            x = r.get(end)
            if x == "treasury" or (end == "to" and isinstance(x, str) and x.startswith(
                    "faction:") and x[8:] in st["factions"]):
                continue
            ck.own_senator(x, f"{p}.{end}")
        ck.int_ok(r.get("amount"), f"{p}.amount", 1)


def default_orders(st: State, power: str) -> dict[str, Any]:
    """Orders for a faction that missed the deadline (R8.4)."""
    waiting = st.get("awaiting") or {}
    if waiting.get("kind") == "senate" and power in waiting.get("powers", []):
        return {"dispatch": default_dispatch(st)}
    return {}


def legal_orders(st: State, power: str) -> dict[str, Any]:
    """The legal choices of ``power`` now (order forms and bots)."""
    waiting = st.get("awaiting") or {}
    kind = waiting.get("kind")
    out: dict[str, Any] = {"round": waiting.get("round"), "kind": kind,
                           "must_send": power in (waiting.get("powers") or [])}
    if kind in ("declare", "revolution-2"):
        out["commanders"] = {sid: {"legions": army_legions(st, army_of(st, sid) or {"id": ""}),
                                   "decisions": ["lay_down", "revolt"]}
                             for f, sid in eligible_commanders(st) if f == power}
        out["secondaries"] = sorted(s for s, r in st["senators"].items()
                                    if is_aligned(r) and r["faction"] == power)
    if kind == "revolution":
        hand = list(st["factions"][power]["hand"])
        out["hand"] = hand
        out["statesmen"] = [c for c in hand if is_statesman_id(c)
                            and statesman_problem(st, power, c) is None]
        members = [s for s, r in st["senators"].items() if is_aligned(r) and r["faction"] ==
                   power]
        out["concessions"] = {c: sorted(s for s in members
                                        if concession_problem(st, power, c, s) is None)
                              for c in hand if is_concession_id(c)}
        out["trade_partners"] = [f for f in st["seating"] if f != power]
        out["must_discard"] = max(0, len(hand) - 5)
        out["commanders"] = {}
        for f, sid in eligible_commanders(st):
            if f != power:
                continue
            wars = sorted(w for w in st["wars"] if manilian_problem(st, sid, w) is None)
            out["commanders"][sid] = {
                "legions": army_legions(st, army_of(st, sid) or {"id": ""}),
                "decisions": ["lay_down", "revolt"] + (["manilian"] if wars else []),
                "manilian_wars": wars,
            }
        out["secondaries"] = sorted(members)
    elif kind == "senate":
        out["commanders"] = sorted(s for s in st["senators"] if can_command(st, s))
        out["active_forces"] = legions_at(st, "active_forces")
        out["pool"] = len(legions_at(st, "pool"))
        out["default"] = default_dispatch(st)
    elif kind == "endgame":
        out["wars"] = default_attack(st)
    out["standing"] = legal_standing(st, power)
    return out


def legal_standing(st: State, power: str) -> dict[str, Any]:
    """Choices for the standing orders of ``power`` (R8.2)."""
    members = sorted((s for s, r in st["senators"].items()
                      if is_aligned(r) and r["faction"] == power), key=sid_key)
    cw = st.get("civil_war")
    rebel_faction = st["senators"][cw["primary_rebel"]]["faction"] if cw else None
    return {
        "desert": [lid for lid in legions_at(st, "rebel_army")
                   if st["legions"][lid]["veteran"] and st["legions"][lid]["allegiance"]
                   in members and "rebel" not in st["senators"][st["legions"][lid][
                       "allegiance"]]["markers"]],
        "consent": [s for s in members if "rebel" not in st["senators"][s]["markers"]],
        "release": legions_at(st, "rebel_army") if rebel_faction == power else [],
        "redistribute": {"holders": members + ["treasury"],
                         "other_treasuries": [f"faction:{f}" for f in st["seating"]
                                              if f != power]},
        "attack": sorted(w for w, x in st["wars"].items()
                         if x["status"] in ("active", "unprosecuted")),
        "current": st["factions"][power]["standing"],
    }



# --------------------------------------------------------------------------- well-formedness
# resolve() takes whatever the core hands it; an item that is not even well-formed is void
# (R8.6) and dropped before the rules run, so no order can make adjudication fail. Whether a
# well-formed order is legal is judged later, when it runs.


def _scalar(x: Any) -> bool:
    return (isinstance(x, str) and x != "") or (isinstance(x, int) and not isinstance(x, bool))


def _count(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _flag(x: Any) -> bool:
    return isinstance(x, bool)


def _scalars(x: Any) -> bool:
    return isinstance(x, list) and all(_scalar(v) for v in x)


def _to_where(x: Any) -> bool:
    return x in ("senate_army", "active_forces")


_LIST_ITEMS: dict[str, dict[str, Any]] = {
    "trades": {"give": _scalars, "to": _scalar, "get": _scalars, "with": _scalar},
    "plays": {"statesman": _scalar, "concession": _scalar, "senator": _scalar},
    "declarations": {"commander": _scalar, "decision": _scalar, "war": _scalar,
                     "bribes": _scalars, "moh_pays": _count, "moh_joins": _flag,
                     "min_strength": _count, "only_if_primary": _flag,
                     "secondaries": _scalars, "roll": _flag},
    "consent_pay": {"moh": _scalar, "n": _count},
    "dispatch": {"commander": _scalar, "legions": _scalars, "raise": _count},
    "reinforce": {"proconsul": _scalar, "legions": _scalars, "raise": _count},
    "desert": {"legion": _scalar, "to": _to_where},
    "redistribute": {"from": _scalar, "to": _scalar, "amount": _count},
}


def _clean_list(key: str, items: Any, path: str, bad: list[str]) -> list[Any]:
    if not isinstance(items, list):
        bad.append(path)
        return []
    fields = _LIST_ITEMS.get(key)
    out = []
    for i, item in enumerate(items):
        if fields is None:
            ok = _scalar(item)
        else:
            ok = isinstance(item, dict) and all(k in fields and fields[k](v)
                                                for k, v in item.items())
        if ok:
            out.append(item)
        else:
            bad.append(f"{path}[{i}]")
    return out


def well_formed(orders: Any) -> tuple[dict[str, Any], list[str]]:
    """The well-formed part of one faction's orders, and the paths of what was dropped."""
    bad: list[str] = []
    if not isinstance(orders, dict):
        return {}, ([] if orders is None else ["orders"])
    out: dict[str, Any] = {}
    for key, value in orders.items():
        path = f"orders.{key}"
        if key in ("trades", "plays", "declarations", "consent_pay", "dispatch", "reinforce"):
            out[key] = _clean_list(key, value, path, bad)
        elif key in ("discards", "attack"):
            out[key] = _clean_list(key, value, path, bad)
        elif key == "standing" and isinstance(value, dict):
            std: dict[str, Any] = {}
            for skey, sval in value.items():
                spath = f"{path}.{skey}"
                if skey in ("desert", "redistribute", "release", "attack"):
                    std[skey] = _clean_list(skey, sval, spath, bad)
                elif skey == "accept":
                    if sval == "all" or _scalars(sval):
                        std[skey] = sval
                    else:
                        bad.append(spath)
                elif skey == "consent":
                    if isinstance(sval, dict) and all(
                            v in (True, False, "yes", "no") for v in sval.values()):
                        std[skey] = {str(k): v for k, v in sval.items()}
                    else:
                        bad.append(spath)
                else:
                    bad.append(spath)
            out[key] = std
        else:
            bad.append(path)
    return out, bad
