"""How well the autopilot holds a Republic of Rome faction: whole games of each scenario (one
per era), the autopilot at one faction and the random bot at the others, against games with
the random bot everywhere.

    python3 bench/autopilot_ror.py                  # 100 games per faction and scenario
    python3 bench/autopilot_ror.py --games 30 --scenario middle

For each faction it prints how often the faction wins with the autopilot, how often with the
random bot, and their ratio; a faction the random bot already wins most games with is held to
its win rate instead. It also prints how often the Republic fell (every player lost) and the
slowest decision, in CPU time of this process (a busy machine does not inflate it). The last
line: ``autopilot/random win ratio (worst seat): X.XX``, over the factions held to the ratio.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.games.ror import GAME, autopilot, bots


def play(seed: int, scenario: str, pilot: str | None, slowest: list[float]) -> dict[str, Any]:
    """The result of one game with the autopilot at faction ``pilot`` (None: random bots)."""
    root = Rng(f"bench-autopilot-ror-{scenario}-{seed}".encode())
    state = GAME.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")))
    rounds = 0
    while (phase := GAME.current_phase(state)) is not None:
        chosen: dict[str, Any] = {}
        for p in state["seating"]:
            rng = root.fork(f"o{rounds}{p}")
            if p == pilot:
                start = time.process_time()  # CPU time: a busy machine does not inflate it
                chosen[p] = autopilot.autopilot_orders(state, p, rng)
                slowest[0] = max(slowest[0], time.process_time() - start)
            elif p in phase.powers:
                chosen[p] = bots.bot_orders(state, p, rng)
        state = GAME.resolve(state, chosen, PhaseRng(root.fork(f"p{rounds}"), root.fork(f"s{rounds}"))).state
        rounds += 1
    return dict(state["game_result"])


def seat_figures(scenario: str, games: int) -> float:
    slowest = [0.0]
    base = [play(seed, scenario, None, slowest) for seed in range(games)]
    ratios = []
    fell = sum(1 for r in base if r["outcome"] == "all_lose")
    print(f"{scenario}: {games} games per faction (random bots everywhere: the Republic fell {fell}/{games})")
    for faction in _factions(scenario):
        results = [play(seed, scenario, faction, slowest) for seed in range(games)]
        won = sum(1 for r in results if r.get("faction") == faction and r["outcome"] == "win")
        lost_all = sum(1 for r in results if r["outcome"] == "all_lose")
        was = sum(1 for r in base if r.get("faction") == faction and r["outcome"] == "win")
        if was > games / 2:
            verdict = f"win rate {won / games:.0%} (the random bot already wins {was / games:.0%})"
        else:
            ratio = won / was if was else (float("inf") if won else 0.0)
            ratios.append(ratio)
            verdict = f"ratio {ratio:.2f}"
        print(f"  {faction}  autopilot {won:>3}/{games}  random {was:>3}/{games}  {verdict}"
              f"  (Republic fell {lost_all}/{games})")
    print(f"  slowest decision {slowest[0] * 1000:.0f} ms of CPU time (goal <= 50 ms)")
    return min(ratios) if ratios else float("nan")


def _factions(scenario: str) -> list[str]:
    root = Rng(b"factions")
    return list(GAME.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")))["seating"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="games per faction and scenario")
    parser.add_argument("--scenario", action="append", help="a scenario (default: every one)")
    args = parser.parse_args()
    worst = min(seat_figures(s, args.games) for s in (args.scenario or GAME.scenarios()))
    print(f"autopilot/random win ratio (worst seat): {worst:.2f}")


if __name__ == "__main__":
    main()
