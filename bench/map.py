"""Time the Maria map: loading and checking, SVG renders, and the rules' map queries.

Usage: python3 bench/map.py [--map FILE] [--forces FILE] [--repeat N] [--warm N]
Prints one line per measurement, in milliseconds: the best of N runs, except the renders (one
cold render of a new board, then the mean of the warm ones).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from pbem.common.safeyaml import load_yaml_file
from pbem.games.maria.board import Board, default_map_path, load_forces, parse_board
from pbem.render.maria.svgmap import render_map


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
    parser.add_argument("--warm", type=int, default=20, help="warm renders to average")
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

    def render_ms(b: Board, lang: str) -> float:
        start = time.perf_counter()
        render_map(b, view, lang=lang)
        return (time.perf_counter() - start) * 1000

    svg = render_map(board, view)

    def row(label: str, ms: float, extra: str = "") -> None:
        print(f"{label:<42}{ms:9.1f} ms{extra}")

    print(f"map: {map_path} ({n} cities, {len(board.roads)} roads), best of {args.repeat}")
    row("load yaml", best_ms(lambda: load_yaml_file(map_path), args.repeat))
    row("check and build board", best_ms(fresh, args.repeat))
    for lang in ("en", "zh-TW"):
        # a new board: the renderer keeps nothing for it yet, so the first render draws and
        # keeps what the pieces do not change (sectors, roads, cities, names on the empty board)
        b = fresh()
        row(f"render start position, cold ({lang})", render_ms(b, lang),
            f"  ({len(svg) // 1024} KiB)")
        warm = [render_ms(b, lang) for _ in range(args.warm)]
        row(f"render start position, warm ({lang})", statistics.mean(warm),
            f"  (mean of {args.warm}, best {min(warm):.1f})")
    row(f"all-pairs distances ({n} x {n})", best_ms(all_pairs, args.repeat, fresh))
    row("within 3 for every city", best_ms(within_3, args.repeat, fresh))
    row("main-road reach 8 for every city", best_ms(main_reach_8, args.repeat, fresh))
    row(f"shortest paths with avoid ({len(ids[::40])} x {n})", best_ms(paths, args.repeat, fresh))

if __name__ == "__main__":
    main()
