"""Time the Maria map: loading and checking, one full SVG render, and the rules' map queries.

Usage: python3 bench/map.py [--map FILE] [--forces FILE] [--repeat N]
Prints one line per measurement: the best of N runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from pbem.core.safeyaml import load_yaml_file
from pbem.games.maria.board import Board, default_map_path, load_forces, parse_board
from pbem.render.svgmap import render_map


def best_ms(fn: Callable[..., object], repeat: int,
            setup: Callable[[], object] | None = None) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in milliseconds; ``setup`` (untimed) makes
    its argument for each run."""
    best = float("inf")
    for _ in range(repeat):
        args = (setup(),) if setup is not None else ()
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", type=Path, default=None, help="map file (default: shipped)")
    parser.add_argument("--forces", type=Path, default=None,
                        help="forces file (default: forces.yaml beside the map)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    map_path = args.map or default_map_path()
    forces_path = args.forces or map_path.with_name("forces.yaml")
    data = load_yaml_file(map_path)

    def fresh() -> Board:
        # a new board each time, so the distance caches start empty
        return parse_board(data, map_path.name)

    board = fresh()
    view = load_forces(board, forces_path).start_view()
    ids = sorted(board.cities)
    n = len(ids)

    def all_pairs(b: Board) -> None:
        for a in ids:
            b.distances_from(a)

    def within_3(b: Board) -> None:
        for a in ids:
            b.within(a, 3)

    def main_reach_8(b: Board) -> None:
        for a in ids:
            b.main_road_reach(a, 8)

    def paths(b: Board) -> None:
        for a in ids[::40]:
            for z in ids:
                b.shortest_path(a, z, avoid=("wien",))

    svg = render_map(board, view)

    def row(label: str, ms: float, extra: str = "") -> None:
        print(f"{label:<42}{ms:9.1f} ms{extra}")

    print(f"map: {map_path} ({n} cities, {len(board.roads)} roads), best of {args.repeat}")
    row("load yaml", best_ms(lambda: load_yaml_file(map_path), args.repeat))
    row("check and build board", best_ms(fresh, args.repeat))
    row("render start position (svg)", best_ms(lambda: render_map(board, view), args.repeat),
        f"  ({len(svg) // 1024} KiB)")
    row(f"all-pairs distances ({n} x {n})", best_ms(all_pairs, args.repeat, fresh))
    row("within 3 for every city", best_ms(within_3, args.repeat, fresh))
    row("main-road reach 8 for every city", best_ms(main_reach_8, args.repeat, fresh))
    row(f"shortest paths with avoid ({len(ids[::40])} x {n})", best_ms(paths, args.repeat, fresh))

if __name__ == "__main__":
    main()
