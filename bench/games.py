"""Time complete introductory games of Maria between random bots.

Usage: python3 bench/games.py [--games N] [--map FILE --forces FILE]
Prints games per second (bots and resolution, without loading data) and the mean time of one
round's ``resolve`` and of the bots' orders, overall and per round kind.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

from pbem.core.fair import PhaseRng, Rng
from pbem.games.maria import adjudicate, bots
from pbem.games.maria.board import load_board, load_forces


def play_timed(seed: int, board: object, forces: object,
               times: dict[str, list[float]]) -> int:
    """One game; appends each round's resolve time to ``times[kind]`` and the bots' time to
    ``times['bots']``. Returns the number of rounds."""
    root = Rng(f"maria-bench-{seed}".encode())
    state = adjudicate.new_game("intro", {}, PhaseRng(root.fork("p"), root.fork("s")),
                                board, forces)
    rounds = 0
    while (phase := adjudicate.current_phase(state)) is not None:
        t0 = time.perf_counter()
        rng = root.fork(f"bot-{rounds}")
        orders = {p: bots.bot_orders(state, p, rng.fork(p)) for p in phase.powers}
        t1 = time.perf_counter()
        state = adjudicate.resolve(state, orders, PhaseRng(root.fork(f"p{rounds}"),
                                                           root.fork(f"s{rounds}"))).state
        t2 = time.perf_counter()
        times["bots"].append(t1 - t0)
        times[phase.kind].append(t2 - t1)
        rounds += 1
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--map", type=Path, default=None, help="map file (default: shipped)")
    parser.add_argument("--forces", type=Path, default=None, help="forces file")
    args = parser.parse_args()
    board = load_board(args.map)
    forces = load_forces(board, args.forces)
    times: dict[str, list[float]] = defaultdict(list)
    start = time.perf_counter()
    rounds = sum(play_timed(seed, board, forces, times) for seed in range(args.games))
    elapsed = time.perf_counter() - start
    resolve = [t for k, ts in times.items() if k != "bots" for t in ts]
    print(f"games                {args.games} ({rounds} rounds) in {elapsed:.2f} s")
    print(f"games per second     {args.games / elapsed:.2f}")
    print(f"mean resolve/round   {1000 * sum(resolve) / len(resolve):.3f} ms")
    print(f"mean bots/round      {1000 * sum(times['bots']) / len(times['bots']):.3f} ms")
    for kind in ("setup", "hussars", "stage", "winter"):
        if times[kind]:
            print(f"  resolve {kind:<8}   {1000 * sum(times[kind]) / len(times[kind]):.3f} ms "
                  f"({len(times[kind])} rounds)")


if __name__ == "__main__":
    main()
