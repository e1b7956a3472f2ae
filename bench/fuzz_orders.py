"""Hostile order files against intake and the rules, at volume.

Draws N files (default 100,000) with tests/order_fuzz.py -- every round kind of both games in
turn, each file a seat's legal orders with one to three hostile changes -- takes each in as
intake does (restricted YAML, envelope schema, the round's schema, the game's checks) and
resolves the round with every file intake accepts. A crash is intake raising, or the rules
raising on an accepted file; each is printed with its file. The last line is
``N files, C crashes`` (and how many were accepted). Run from the repository root::

    python3 bench/fuzz_orders.py              # 100,000 files, seed 1
    python3 bench/fuzz_orders.py -n 5000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from order_fuzz import cases, check_file, hostile_file  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100_000, help="files to draw")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    every = [c for _, found in sorted(cases().items()) for c in found]
    start = time.perf_counter()
    crashes = accepted = 0
    for i in range(args.n):
        case = every[i % len(every)]
        data = hostile_file(rnd, case)
        try:
            accepted += check_file(case, data)
        except Exception as exc:  # noqa: BLE001 - a crash is what this looks for
            crashes += 1
            where = traceback.extract_tb(exc.__traceback__)[-1]
            print(f"CRASH {case.label}: {type(exc).__name__}: {exc} ({where.filename}:{where.lineno})")
            print("  " + json.dumps(data, ensure_ascii=False, default=str)[:2000])
        if (i + 1) % 10_000 == 0:
            print(f"  {i + 1} files, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"{args.n} files, {crashes} crashes ({accepted} accepted, {time.perf_counter() - start:.0f} s)")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
