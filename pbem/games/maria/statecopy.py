"""The copy of a Maria state that a round changes (``adjudicate.resolve``): no whole-state deep
copy, but the parts no round changes in place shared, and the rest copied as plainly as it
can be."""

from __future__ import annotations

from typing import Any

from pbem.games.base import plain_copy

SHARED = frozenset({"options", "bid_log", "powers", "maps", "winters", "troop_totals"})
"""Parts of the state that no round changes in place (the rule options; the bid log, which a
round replaces by a longer list; the scenario's powers, maps, winters and troop totals): the new
state shares them with the old one instead of copying."""
SHARED_POLITICS = frozenset({"cards"})
"""Parts of ``politics`` no round changes (the political cards' texts and effects)."""
SHALLOW = frozenset({"control", "standing"})
"""Parts whose entries a round replaces or removes but never changes in place (each
fortress's control record, M4.2; each power's standing orders, M12.3): a new mapping holding
the same entries."""
RECORDS = frozenset({"generals", "trains"})
"""Parts whose entries are records a round changes field by field but whose fields it only
replaces (a withdrawn general's cause, M9.17, is a new record when it ends): new records
holding the same values."""


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Immutable values, taken as they are (what ``plain_copy`` gives back for them)."""


def copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``state`` a round may change: plain data copied, except the parts no round
    changes in place (``SHARED``, ``SHARED_POLITICS``), which it shares, those it changes
    only entry by entry (``SHALLOW``) and the pieces' records (``RECORDS``)."""
    st: dict[str, Any] = {}
    for k, v in state.items():
        if k in SHARED or type(v) in _SCALARS:
            st[k] = v
        elif type(v) is dict and k in SHALLOW:
            st[k] = dict(v)
        elif type(v) is dict and k in RECORDS:
            st[k] = {rk: dict(rv) if type(rv) is dict else plain_copy(rv) for rk, rv in v.items()}
        elif k == "politics" and type(v) is dict:
            st[k] = {pk: pv if pk in SHARED_POLITICS else _fresh(pv) for pk, pv in v.items()}
        else:
            st[k] = _fresh(v)
    return st


def _fresh(value: Any) -> Any:
    """``plain_copy(value)``, a list or a string-keyed mapping of scalars (the cards' piles and
    hands, most of a state) copied whole in C loops."""
    kind = type(value)
    if kind is list:
        if _SCALARS.issuperset(map(type, value)):
            return value.copy()
        return [v if type(v) in _SCALARS else _fresh(v) for v in value]
    if kind is dict and _STR.issuperset(map(type, value)):
        if _SCALARS.issuperset(map(type, value.values())):
            return value.copy()
        return {k: v if type(v) in _SCALARS else _fresh(v) for k, v in value.items()}
    return plain_copy(value)


_STR = frozenset({str})
