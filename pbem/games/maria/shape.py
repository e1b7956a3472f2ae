"""The shape of one power's orders: what the rules may rely on.

Orders arrive from strangers. Before a round runs, every field is brought to the shape the
rules expect (a list of mappings, a list of ids, a plan mapping, ...); a field of the wrong
shape is dropped with a VOID event for its sender (M12.2), so one malformed field never stops
the round or voids the others. ``orders.validate`` tells the player the same before sending.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.common.catalog import N_

PLAN_LISTS = ("prefer", "retreat", "loss_order")
PLAN_INTS = ("max_cards", "max_points", "concede_if_behind_by")
# The owner's answers to choices that tracks and political cards leave to it (M12.3, M9.19).
PREFERENCES = ("block_preference", "withdraw_preference", "troop_gain_preference",
               "troop_loss_preference", "discard_preference", "marker_return_preference",
               "train_site_preference")
STANDING_LISTS = ("loss_order", "transfer_preference", "payments") + PREFERENCES

Void = Callable[[str, str], None]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def strings(value: Any) -> list[str] | None:
    """A list of strings (other items dropped), or None if ``value`` is not a list."""
    if not isinstance(value, list):
        return None
    return [v for v in value if isinstance(v, str)]


def records(value: Any) -> list[dict[str, Any]] | None:
    """A list whose non-mapping items become empty mappings (each is then VOID where it runs,
    keeping the indexes of the orders), or None if ``value`` is not a list."""
    if not isinstance(value, list):
        return None
    return [v if isinstance(v, dict) else {} for v in value]


def plan(value: Any) -> dict[str, Any] | None:
    """A battle plan with every field of the right shape (M12.4); None if not a mapping."""
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key in PLAN_LISTS:
            items = strings(v)
            if items is not None:
                out[key] = items
        elif key in PLAN_INTS:
            if _is_int(v) and v >= 0:
                out[key] = v
        elif key == "use_reserve":
            if v in (True, False, "yes", "no"):
                out[key] = v
        elif key == "commit":
            if isinstance(v, dict):
                out[key] = {g: n for g, n in v.items() if isinstance(g, str) and _is_int(n)}
    return out


def standing(value: Any, void: Void) -> dict[str, Any]:
    """Standing-order updates of the right shape (M12.3); a key given null clears it."""
    if not isinstance(value, dict):
        void("standing", N_("standing orders must be a mapping; ignored"))
        return {}
    out: dict[str, Any] = {}
    for key, v in value.items():
        where = f"standing.{key}"
        if v is None:
            out[key] = None
        elif key in STANDING_LISTS:
            items = strings(v)
            if items is None:
                void(where, N_("must be a list; ignored"))
            else:
                out[key] = items
        elif key == "hussar_policy":
            if v in ("pay", "refuse"):
                out[key] = v
            elif isinstance(v, dict) and _is_int(v.get("pay_up_to")) and v["pay_up_to"] >= 0:
                out[key] = {"pay_up_to": v["pay_up_to"]}
            else:
                void(where, N_("must be pay, refuse or {pay_up_to: N}; ignored"))
        elif key == "default_plan":
            p = plan(v)
            if p is None:
                void(where, N_("a battle plan must be a mapping; ignored"))
            else:
                out[key] = p
        elif key == "defence":
            if not isinstance(v, dict):
                void(where, N_("must map generals or cities to battle plans; ignored"))
            else:
                out[key] = {k: p for k, p in ((k, plan(p)) for k, p in v.items())
                            if isinstance(k, str) and p is not None}
        elif key == "trump":
            if v in ("S", "H", "D", "C"):
                out[key] = v
        elif key == "accept_peace":
            if isinstance(v, bool):
                out[key] = v
        else:
            void(where, N_("'%(key)s' is not a standing order; ignored") % {"key": key})
    return out


def lists(orders: dict[str, Any], keys: tuple[str, ...], parse: Callable[[Any], list[Any] | None],
          void: Void) -> dict[str, Any]:
    """The fields ``keys`` of ``orders`` that ``parse`` reads as lists; any other is VOID (M12.2)."""
    out: dict[str, Any] = {}
    for key in keys:
        if key in orders:
            items = parse(orders[key])
            if items is None:
                void(key, N_("'%(key)s' must be a list; ignored") % {"key": key})
            else:
                out[key] = items
    return out


def stage(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Stage orders of the right shape (M2.4 step (c)-(d), M12.4)."""
    out = lists(orders, ("moves", "reentries"), records, void)
    out.update(lists(orders, ("sequence", "payments", "battles"), strings, void))
    if "plans" in orders:
        if not isinstance(orders["plans"], dict):
            void("plans", N_("'plans' must map battle names (or 'stage') to plans; ignored"))
        else:
            out["plans"] = {k: p for k, p in ((k, plan(p)) for k, p in orders["plans"].items())
                            if isinstance(k, str) and p is not None}
    return out


def winter(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Winter orders of the right shape (M8.2, M8.3)."""
    out = lists(orders, ("recruits", "returns"), records, void)
    out.update(lists(orders, ("payments",), strings, void))
    return out


def hussars(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Hussar orders of the right shape (M7.1)."""
    if "hussars" not in orders:
        return {}
    items = strings(orders["hussars"])
    if items is None:
        void("hussars", N_("'hussars' must be a list of cities; ignored"))
        return {}
    return {"hussars": items}


def setup(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Set-up orders: the troop split is checked whole by the set-up step (M1.7)."""
    return {"troops": orders["troops"]} if "troops" in orders else {}


def commit(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Commit-round orders (M11.4, trustless mode): the commitment alone."""
    if "commitment" not in orders:
        return {}
    c = orders["commitment"]
    if not isinstance(c, str):
        void("commitment", N_("a commitment is a string of 64 hex digits; ignored"))
        return {}
    return {"commitment": c.strip().lower()}


def politics(orders: dict[str, Any], void: Void) -> dict[str, Any]:
    """Political orders of the right shape (M12.8)."""
    out: dict[str, Any] = {}
    if "bid" in orders:
        bid = orders["bid"]
        if isinstance(bid, dict) and all(k in ("S", "H", "D", "C") and isinstance(v, str)
                                         for k, v in bid.items()):
            out["bid"] = dict(bid)
        else:
            void("bid", N_("a bid maps suits (S, H, D, C) to a card id or pass; you pass"))
    if "salt" in orders:
        if isinstance(orders["salt"], str):
            out["salt"] = orders["salt"]
        else:
            void("salt", N_("the salt must be a string; ignored"))
    if "trump" in orders:
        if orders["trump"] in ("S", "H", "D", "C"):
            out["trump"] = orders["trump"]
        else:
            void("trump", N_("the trump is one of S, H, D, C; ignored"))
    if "choices" in orders:
        items = strings(orders["choices"])
        if items is None:
            void("choices", N_("'choices' must be a list such as [PC15, keep]; you keep"))
        else:
            out["choices"] = items
    if "cards" in orders:
        if isinstance(orders["cards"], dict):
            out["cards"] = {k: v for k, v in orders["cards"].items()
                            if isinstance(k, str) and isinstance(v, dict)}
        else:
            void("cards", N_("'cards' must map political card ids to instructions; ignored"))
    if "accept_peace" in orders:
        v = orders["accept_peace"]
        if isinstance(v, bool):
            out["accept_peace"] = v
        else:
            void("accept_peace", N_("must be yes or no; ignored"))
    if "subsidies" in orders:
        gifts = records(orders["subsidies"])
        if gifts is None:
            void("subsidies", N_("'subsidies' must be a list of {to, card}; ignored"))
        else:
            out["subsidies"] = gifts
    if "hussars" in orders:
        out.update(hussars(orders, void))
    return out


SHAPERS: dict[str, Callable[[dict[str, Any], Void], dict[str, Any]]] = {
    "setup": setup, "hussars": hussars, "stage": stage, "winter": winter,
    "commit": commit, "politics": politics,
}
