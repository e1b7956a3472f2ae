"""Complete games between random bots: the fuzz test, the benchmark and the demo drive the
engine through this one loop, exactly as the core does (orders per power, then ``resolve``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, bots

Check = Callable[[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]], None]


def play(seed: int, *, scenario: str = "intro", options: dict[str, Any] | None = None,
         board: Any = None, forces: Any = None, check: Check | None = None,
         max_phases: int = 500) -> tuple[dict[str, Any], int]:
    """Play one game with bots seeded by ``seed``; returns the final state and the number of
    rounds resolved. ``check(state, orders, events)`` runs after the start and every round."""
    root = Rng(f"maria-selfplay-{seed}".encode())
    state = adjudicate.new_game(scenario, options or {}, PhaseRng(root.fork("p0"), root.fork("s0")),
                                board, forces)
    if check:
        check(state, None, [])
    rounds = 0
    while True:
        phase = adjudicate.current_phase(state)
        if phase is None:
            return state, rounds
        if rounds >= max_phases:
            raise RuntimeError(f"game {seed} did not end after {max_phases} rounds")
        bot_rng = root.fork(f"bot-{rounds}")
        orders = {p: bots.bot_orders(state, p, bot_rng.fork(p)) for p in phase.powers}
        res = adjudicate.resolve(state, orders,
                                 PhaseRng(root.fork(f"p{rounds}"), root.fork(f"s{rounds}")))
        state = res.state
        rounds += 1
        if check:
            check(state, orders, res.events)


def digest(seeds: range, *, scenario: str = "intro", options: dict[str, Any] | None = None,
           board: Any = None, forces: Any = None) -> str:
    """SHA-256 over every round of the games ``seeds`` (the state, the orders sent and the
    events, as sorted JSON): a change meant to make the rules or the bots faster must leave it
    as it was."""
    import hashlib
    import json

    h = hashlib.sha256()

    def check(state: dict[str, Any], orders: dict[str, Any] | None,
              events: list[dict[str, Any]]) -> None:
        h.update(json.dumps([state, orders, events], sort_keys=True).encode())

    for seed in seeds:
        play(seed, scenario=scenario, options=options, board=board, forces=forces, check=check)
    return h.hexdigest()
