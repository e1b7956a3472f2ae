"""Time complete games of Maria between random bots: introductory and advanced.

Usage: python3 bench/games.py [--games N] [--advanced N] [--map FILE --forces FILE]
Prints games per second (bots and resolution, without loading data) and the mean time of one
round's ``resolve`` and of the bots' orders, overall and per round kind, for each scenario.
Times are CPU time of this process (``time.process_time``), so other load on the machine does not
count.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from pbem.common.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, bots
from pbem.games.maria.board import load_board, load_forces


def play_timed(seed: int, board: object, forces: object,
               times: dict[str, list[float]], scenario: str = "intro") -> int:
    """One game; appends each round's resolve time to ``times[kind]`` and the bots' time to
    ``times['bots']``. Returns the number of rounds."""
    root = Rng(f"maria-bench-{seed}".encode())
    state = adjudicate.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")),
                                board, forces)
    rounds = 0
    while (phase := adjudicate.current_phase(state)) is not None:
        t0 = time.process_time()
        rng = root.fork(f"bot-{rounds}")
        orders = {p: bots.bot_orders(state, p, rng.fork(p)) for p in phase.powers}
        t1 = time.process_time()
        state = adjudicate.resolve(state, orders, PhaseRng(root.fork(f"p{rounds}"),
                                                           root.fork(f"s{rounds}"))).state
        t2 = time.process_time()
        times["bots"].append(t1 - t0)
        times[phase.kind].append(t2 - t1)
        rounds += 1
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="introductory games")
    parser.add_argument("--advanced", type=int, default=20,
                        help="advanced games (both maps, politics); 0 to skip")
    parser.add_argument("--map", type=Path, default=None, help="map file (default: shipped)")
    parser.add_argument("--forces", type=Path, default=None, help="forces file")
    args = parser.parse_args()
    board = load_board(args.map)
    forces = load_forces(board, args.forces)
    for scenario, n in (("intro", args.games), ("advanced", args.advanced)):
        if n <= 0:
            continue
        times: dict[str, list[float]] = defaultdict(list)
        start = time.process_time()
        rounds = sum(play_timed(seed, board, forces, times, scenario) for seed in range(n))
        elapsed = time.process_time() - start
        resolve = [t for k, ts in times.items() if k != "bots" for t in ts]
        print(f"{scenario + ' games':<26}{n} ({rounds} rounds) in {elapsed:.2f} s")
        print(f"{scenario + ' games per second':<26}{n / elapsed:.2f}")
        print(f"{'mean resolve/round':<26}{1000 * sum(resolve) / len(resolve):.3f} ms")
        print(f"{'mean bots/round':<26}{1000 * sum(times['bots']) / len(times['bots']):.3f} ms")
        for kind in ("setup", "commit", "politics", "hussars", "stage", "winter"):
            if times[kind]:
                print(f"{'  resolve ' + kind:<26}{1000 * sum(times[kind]) / len(times[kind]):.3f} ms "
                      f"({len(times[kind])} rounds)")


if __name__ == "__main__":
    main()
