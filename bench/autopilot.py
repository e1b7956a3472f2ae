"""How well the autopilot holds a seat: whole Maria games, the autopilot at one seat and the
random bot at the others, against games with the random bot everywhere.

    python3 bench/autopilot.py                      # 100 introductory games per seat
    python3 bench/autopilot.py --games 20 --advanced 10

For each seat it prints how often the seat wins with the autopilot, how often with the random
bot, and their ratio. A seat the random bot already wins most games with is held to a win rate
of at least 90% instead (the ratio cannot reach 2 there). A seat the random bot never wins with
has an infinite ratio as soon as the autopilot wins once. It also prints the slowest decision
of each kind (stage, winter, politics...) beside the goal of 50 ms, in CPU time of this process
(the wall time on a quiet machine; a busy one inflates it less).
The last line: ``autopilot/random win ratio (worst seat): X.XX``, over the seats held to the ratio.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, autopilot, bots, model
from pbem.games.maria.orders import kind_of

SEATS = ("maria_theresa", "louis", "frederick")


def play(seed: int, scenario: str, pilot: str | None, slowest: dict[str, float]) -> str | None:
    """The seat that won one game with the autopilot at ``pilot`` (None: random bots only)."""
    root = Rng(f"bench-autopilot-{scenario}-{seed}".encode())
    state = adjudicate.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")))
    rounds = 0
    while (phase := adjudicate.current_phase(state)) is not None:
        chosen: dict[str, Any] = {}
        for p in phase.powers:
            rng = root.fork(f"o{rounds}{p}")
            if model.seat_of(state, p) == pilot:
                start = time.process_time()  # this process's CPU time: a busy machine does not inflate it
                chosen[p] = autopilot.autopilot_orders(state, p, rng)
                kind = kind_of(state)
                slowest[kind] = max(slowest.get(kind, 0.0), time.process_time() - start)
            else:
                chosen[p] = bots.bot_orders(state, p, rng)
        state = adjudicate.resolve(state, chosen, PhaseRng(root.fork(f"p{rounds}"), root.fork(f"s{rounds}"))).state
        rounds += 1
    return model.seat_of(state, state["result"]["winner"])


def seat_figures(scenario: str, games: int) -> float:
    slowest: dict[str, float] = {}
    base = [play(seed, scenario, None, slowest) for seed in range(games)]
    ratios = []
    print(f"{scenario}: {games} games per seat")
    for seat in SEATS:
        won = sum(1 for seed in range(games) if play(seed, scenario, seat, slowest) == seat)
        was = base.count(seat)
        if was > games / 2:
            verdict = f"win rate {won / games:.0%} (goal >= 90%: the random bot already wins {was / games:.0%})"
        else:
            ratio = won / was if was else (float("inf") if won else 0.0)
            ratios.append(ratio)
            verdict = f"ratio {ratio:.2f} (goal >= 2.00)"
        print(f"  {seat:<14} autopilot {won:>3}/{games}  random {was:>3}/{games}  {verdict}")
    kinds = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in sorted(slowest.items(), key=lambda kv: -kv[1]))
    print(f"  slowest decision {max(slowest.values(), default=0.0) * 1000:.0f} ms of CPU time (goal <= 50 ms): {kinds}")
    return min(ratios) if ratios else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="introductory games per seat")
    parser.add_argument("--advanced", type=int, default=20, help="advanced games per seat (0: none)")
    args = parser.parse_args()
    worst = seat_figures("intro", args.games)
    if args.advanced:
        seat_figures("advanced", args.advanced)
    print(f"autopilot/random win ratio (worst seat): {worst:.2f}")


if __name__ == "__main__":
    main()
