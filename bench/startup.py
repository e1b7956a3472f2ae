"""Benchmark: what a cron line or a player pays before pbem does any work.

    python3 bench/startup.py                  # 15 runs of each, medians

Times whole processes (the interpreter included) and prints each beside its goal:
``pbem --help`` against ``python -c "import click"`` (goal: at most 2x), and ``pbem status`` on
a fresh introductory campaign, also as a ratio to ``import click``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def median_seconds(argv: list[str], runs: int) -> float:
    subprocess.run(argv, capture_output=True, check=True)  # warm-up: file cache, .pyc
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    py = sys.executable
    click_s = median_seconds([py, "-c", "import click"], args.runs)
    help_s = median_seconds([py, "-m", "pbem", "--help"], args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        keys = Path(tmp) / "keys"
        seats = []
        for seat in ("maria_theresa", "louis", "frederick"):
            subprocess.run([py, "-m", "pbem", "keygen", seat, "-o", str(keys)], capture_output=True, check=True)
            seats += ["--player", f"{seat}={seat}@example.org:{keys / (seat + '.pub')}"]
        camp = Path(tmp) / "camp"
        subprocess.run([py, "-m", "pbem", "new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro",
                        "--now", "2027-01-04T08:00:00Z", *seats], capture_output=True, check=True)
        status_s = median_seconds([py, "-m", "pbem", "status", str(camp), "--now", "2027-01-04T09:00:00Z"], args.runs)
    print(f"python -c 'import click'      {click_s * 1000:7.1f} ms")
    print(f"pbem --help                   {help_s * 1000:7.1f} ms   {help_s / click_s:5.2f}x import click (goal <= 2.00x)")
    print(f"pbem status (intro campaign)  {status_s * 1000:7.1f} ms   {status_s / click_s:5.2f}x import click")


if __name__ == "__main__":
    main()
