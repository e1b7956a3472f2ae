"""Benchmark: every figure of the GM's costs in one run, each beside its goal.

    python3 bench/gm.py                   # plays one advanced demo campaign, then the rest
    python3 bench/gm.py --demo DIR        # measure an existing demo folder instead of playing one
    python3 bench/gm.py --quick           # smaller samples

Prints, one line each:

* disk per advanced demo campaign (``pbem demo``'s campaign folder, counted as ``du`` does; played
  as ``pbem demo`` plays it, the deal after the players' two entropy rounds);
* publishing, CPU ms per phase (``bench/reports.py --cpu``, an introductory game);
* ``pbem --help`` against ``python -c "import click"`` (``bench/startup.py``);
* an idle run (nothing due) of the long demo campaign against a fresh short one, CPU time of
  ``run_campaign`` in this process, rounds interleaved, after a first run of each (which
  publishes what is pending and writes the idle mark, :mod:`pbem.core.idle`);
* intake against its floor on tmpfs, and the figure on disk (``bench/intake.py``);
* advanced Maria games per second between bots, CPU time (``bench/games.py``).

Wall-clock figures (publishing, start-up, intake) move with other load on the machine; the ratios
are measured within one run, so both sides see the same load.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def disk_bytes(folder: Path) -> int:
    """What ``du`` counts: the blocks every file and folder takes."""
    total, seen = 0, set()
    for here, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            st = os.lstat(os.path.join(here, name))
            if (st.st_dev, st.st_ino) not in seen:  # a hard link's file counts once
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def run_bench(script: str, *args: str) -> str:
    """The output of ``bench/SCRIPT`` run with this interpreter."""
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench/{script} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    if found is None:
        sys.exit(f"no figure matching {pattern!r} in:\n{text}")
    return float(found.group(1))


def idle_ratio(long_camp: Path, work: Path, rounds: int) -> tuple[float, float]:
    """CPU seconds of one idle ``run_campaign`` on the long campaign and on a fresh short one."""
    from pbem.common.fair import H
    from pbem.core.campaign import Campaign, Seat, parse_time
    from pbem.core.keys import generate
    from pbem.core.pipeline import run_campaign
    from pbem.games import get_game

    start = parse_time("2027-01-04T08:00:00Z")
    game = get_game("maria")
    seats = [Seat(name, f"{name}@bench.invalid", generate(name).public()) for name in game.seats("intro", {})]
    short = work / "short"
    Campaign.create(short, campaign_id="idle-short", game=game, scenario="intro", options={}, seats=seats,
                    deadlines={"default": 86400}, grace=0, start=start, seed=H(b"idle"), settings={"outage_share": 0})
    last = Campaign(long_camp).records()[-1]
    times: dict[Path, list[float]] = {short: [], long_camp: []}
    nows = {short: start, long_camp: parse_time(str(last["resolved_at"])) if "resolved_at" in last else start}
    for path in (short, long_camp):  # warm: caches, the first publish of the short campaign's start
        run_campaign(path, nows[path], fetch_mail=False, send_mail=False)
    for _ in range(rounds):
        for path in (short, long_camp):
            t0 = time.process_time()
            result = run_campaign(path, nows[path], fetch_mail=False, send_mail=False)
            times[path].append(time.process_time() - t0)
            if result.error or result.resolved:
                sys.exit(f"the idle run was not idle: {result.line()}")
    return min(times[long_camp]), min(times[short])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demo", type=Path, help="an existing `pbem demo` folder (default: play one)")
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    args = parser.parse_args()
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        demo = args.demo
        if demo is None:
            from pbem.demo import run_demo

            demo = work / "demo"
            run_demo(demo, "maria", "advanced", entropy_first=True)  # as `pbem demo` plays it (its default)
        camp = demo / "campaign"
        mb = disk_bytes(camp) / 1e6
        rows.append(("disk per advanced demo campaign", f"{mb:.1f} MB", "<= 60 MB"))

        reports = run_bench("reports.py", "--cpu", "--phases", "8" if args.quick else "16")
        per_phase = number(r"mean per phase\s+(\d+)", reports)
        rows.append(("publishing per phase (CPU)", f"{per_phase:.0f} ms", "<= 60 ms"))

        startup = run_bench("startup.py", "--runs", "5" if args.quick else "15")
        help_ratio = number(r"pbem --help.*?([\d.]+)x import click", startup)
        rows.append(("pbem --help / import click", f"{help_ratio:.2f}x", "<= 2.00x"))

        long_s, short_s = idle_ratio(camp, work, 5 if args.quick else 15)
        rows.append(("idle run, long / short campaign", f"{long_s / short_s:.2f}x ({long_s * 1e3:.1f} / {short_s * 1e3:.1f} ms CPU)",
                     "flat (about 1x)"))

        intake = run_bench("intake.py", "-n", "500" if args.quick else "2000")
        disk_ms = re.search(r"intake on disk:.*?\(([\d.]+) ms/document", intake)
        floor_ms = number(r"floor:.*?\(([\d.]+) ms/document", intake)
        intake_ratio = number(r"intake/floor ratio: ([\d.]+)", intake)
        rows.append(("intake / floor (tmpfs)", f"{intake_ratio:.2f}x", "<= 2.00x"))
        if disk_ms:
            rows.append(("intake / floor (disk)", f"{float(disk_ms.group(1)) / floor_ms:.2f}x", "(reported)"))

        games = run_bench("games.py", "--games", "0", "--advanced", "5" if args.quick else "20")
        per_second = number(r"advanced games per second\s+([\d.]+)", games)
        rows.append(("advanced games per second (CPU)", f"{per_second:.2f}", ">= 12"))
    width = max(len(r[0]) for r in rows) + 2
    print(f"{'figure':<{width}}{'measured':<34}goal")
    for name, value, goal in rows:
        print(f"{name:<{width}}{value:<34}{goal}")


if __name__ == "__main__":
    main()
