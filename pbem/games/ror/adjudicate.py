"""One round's resolution, new games, and the adjudication-case runner.

Case format (documented in ``tests/cases/ror/README.md``): a case gives a partial ``state``
(defaults filled by :func:`normalize_state`), optionally ``open`` (a round to wait for:
``revolution``, ``senate`` or ``endgame``), ``orders`` by faction, the scripted ``dice`` in
draw order, ``until`` ([phase, step] to stop at) and ``expect``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import Resolution
from pbem.games.ror.dispatch import dispatcher
from pbem.games.ror.model import Ctx, Dice, OutOfDice, RorError, State, sen
from pbem.games.ror.orders import validate_orders
from pbem.games.ror.setup import load_scenario, normalize_state
from pbem.games.ror.turn import advance, open_round, resolve_round


def new_game(scenario: str, options: dict[str, Any], rng: PhaseRng) -> State:
    """The scenario's state, run on to its first order round."""
    st = load_scenario(scenario, options)
    ctx = Ctx(st, Dice(rng.public), round=f"T{st['turn']}/start", secret=rng.secret)
    st["last_round"] = ctx.round
    advance(ctx)
    return st


def resolve(state: State, orders: dict[str, Any], rng: PhaseRng) -> Resolution:
    """Resolve the waiting round and run on until the next round opens or the game ends."""
    st = copy.deepcopy(state)
    if st.get("awaiting") is None:
        raise RorError("no round is waiting for orders")
    ctx = Ctx(st, Dice(rng.public), round=st["awaiting"]["round"], orders=dict(orders),
              secret=rng.secret)
    st["last_round"] = ctx.round
    resolve_round(ctx)
    advance(ctx)
    return Resolution(st, ctx.events)


def open_case_round(st: State, kind: str) -> None:
    """Make a case state wait for the round ``kind``."""
    if kind == "revolution":
        st["phase"], st["step"] = "revolution", "a"
        open_round(st, "revolution", list(st["seating"]))
    elif kind == "senate":
        st["phase"], st["step"] = "senate", "dispatch"
        d = dispatcher(st)
        open_round(st, "senate", [d])
    elif kind == "endgame":
        st["step"] = "endgame"
        st.setdefault("endgame_resume", {"phase": st["phase"], "step": "end"})
        open_round(st, "endgame", [sen(st, st["civil_war"]["primary_rebel"])["faction"]])
    else:
        raise RorError(f"unknown round '{kind}'")


_MISSING = object()


def lookup(data: Any, path: str) -> Any:
    """Follow a dotted path (``senators.1A.influence``, ``factions.A.hand.0``)."""
    cur = data
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.lstrip("-").isdigit() and -len(cur) <= int(
                part) < len(cur):
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def _norm(x: Any) -> Any:
    return json.loads(json.dumps(x, sort_keys=True))


def _matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            _matches(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, (int, str)) and isinstance(actual, (int, str)) and not isinstance(
            expected, bool) and not isinstance(actual, bool):
        return str(expected) == str(actual)
    return bool(expected == actual)


def with_defaults(st: State, orders: dict[str, Any]) -> dict[str, Any]:
    """Fill R8.4 defaults for the powers of the waiting round that sent nothing (as the core
    does before it calls ``resolve``)."""
    from pbem.games.ror.orders import default_orders

    out = copy.deepcopy(orders or {})
    for power in (st.get("awaiting") or {}).get("powers") or []:
        if power not in out:
            out[power] = default_orders(st, power)
    return out


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one adjudication case; an empty list when it passes."""
    failures: list[str] = []
    st = normalize_state(case.get("state") or {}, case.get("options"))
    if case.get("open"):
        open_case_round(st, str(case["open"]))
    expect = case.get("expect") or {}
    for fid, paths in (expect.get("problems") or {}).items():
        probs = validate_orders(st, str(fid), (case.get("orders") or {}).get(fid))
        got = sorted(p.path for p in probs)
        if sorted(paths) != got:
            failures.append(f"expected problems at {sorted(paths)}, got "
                            f"{[str(p) for p in probs]}")
    dice = Dice(None, script=list(case.get("dice") or []))
    rnd = (st.get("awaiting") or {}).get("round") or f"T{st['turn']}/case"
    ctx = Ctx(st, dice, round=rnd, orders=with_defaults(st, case.get("orders") or {}),
              secret=Rng(str(case.get("secret_seed", "case")).encode(), "secret"))
    until: tuple[str, str] | None = None
    if case.get("until"):
        u = case["until"]
        if not (isinstance(u, list) and len(u) == 2):
            return failures + [f"until must be [phase, step], not {u!r}"]
        until = (str(u[0]), str(u[1]))
    try:
        if st.get("awaiting") is not None:
            resolve_round(ctx)
        advance(ctx, until)
        for later in case.get("next_orders") or []:
            if st.get("awaiting") is None:
                failures.append("next_orders given but no round is waiting")
                break
            ctx.orders = with_defaults(st, later or {})
            ctx.round = st["awaiting"]["round"]
            resolve_round(ctx)
            advance(ctx, until)
    except OutOfDice as exc:
        return failures + [str(exc)]
    left = dice.script or []
    if len(left) != int(expect.get("dice_left", 0)):
        failures.append(f"expected {expect.get('dice_left', 0)} scripted draws left, got "
                        f"{len(left)} ({left})")
    state = _norm(st)
    for path, want in (expect.get("state") or {}).items():
        got = lookup(state, str(path))
        if got is _MISSING:
            if want is not None or expect.get("strict_missing"):
                failures.append(f"expected {path} = {want!r}, got nothing there")
        elif not _matches(want, got):
            failures.append(f"expected {path} = {want!r}, got {got!r}")
    if expect.get("view"):
        from pbem.games.ror.views import view

        public = _norm(view(st, "public"))
        for path, want in expect["view"].items():
            got = lookup(public, str(path))
            if got is _MISSING or not _matches(want, got):
                failures.append(f"expected public view {path} = {want!r}, got "
                                f"{None if got is _MISSING else got!r}")
    for path in expect.get("absent") or []:
        if lookup(state, str(path)) is not _MISSING:
            failures.append(f"expected nothing at {path}, got {lookup(state, str(path))!r}")
    events = _norm(ctx.events)
    i = 0
    for want in expect.get("events") or []:
        while i < len(events) and not _matches(want, events[i]):
            i += 1
        if i == len(events):
            failures.append(f"expected event {want} (in order), not found")
            break
        i += 1
    for want in expect.get("no_events") or []:
        if any(_matches(want, e) for e in events):
            failures.append(f"expected no event like {want}")
    if "result" in expect:
        if not _matches(expect["result"], state.get("game_result")):
            failures.append(f"expected result {expect['result']}, got {state.get('game_result')}")
    if "awaiting" in expect:
        waiting = (state.get("awaiting") or {}).get("round")
        if waiting != expect["awaiting"]:
            failures.append(f"expected round {expect['awaiting']!r} to wait, got {waiting!r}")
    return failures
