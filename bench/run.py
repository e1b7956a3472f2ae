"""Benchmark: the GM's daily job and the audit as campaigns multiply and games grow.

    python3 bench/run.py                      # 10, 100 and 1,000 campaigns; one long game
    python3 bench/run.py --sizes 10,100 --jobs 2

Part 1 creates N introductory Maria campaigns, each with its setup phase due (the deadline has
passed, so the daily job resolves it with the default troop splits), and times ``run_all`` over
them (take in, resolve, publish). It prints the time per campaign for each N; the target is a
flat line. Part 2 plays one complete demo game, then times ``audit`` on copies of its archive
cut after 10 records and at full length, and prints the time per record (target: flat).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from pbem.common.fair import H
from pbem.core.audit import audit
from pbem.core.campaign import Campaign, Seat, parse_time
from pbem.core.keys import generate
from pbem.core.pipeline import run_all
from pbem.demo import run_demo
from pbem.games import get_game

START = parse_time("2027-01-04T08:00:00Z")


def make_campaigns(root: Path, n: int, seats: list[Seat]) -> None:
    game = get_game("maria")
    for i in range(n):
        Campaign.create(
            root / f"c{i:05d}", campaign_id=f"bench-{i}", game=game, scenario="intro", options={}, seats=seats,
            deadlines={"default": 3600}, grace=0, start=START, seed=H(f"bench {i}".encode()),
            settings={"outage_share": 0},
        )


def bench_run(sizes: list[int], jobs: int, work: Path) -> None:
    game = get_game("maria")
    seats = [Seat(name, f"{name}@bench.invalid", generate(name).public()) for name in game.seats("intro", {})]
    print(f"pbem run over N introductory Maria campaigns, one due phase each (jobs={jobs})")
    for n in sizes:
        root = work / f"run-{n}"
        make_campaigns(root, n, seats)
        t0 = time.perf_counter()
        results = list(run_all(root, START + timedelta(hours=2), jobs=jobs, fetch_mail=False))
        elapsed = time.perf_counter() - t0
        resolved = sum(len(r.resolved) for r in results)
        broken = [r for r in results if r.error]
        if broken:
            sys.exit(f"a campaign failed: {broken[0].line()}")
        print(f"  {n:>6} campaigns: {elapsed:8.2f} s in all, {1000 * elapsed / n:8.1f} ms per campaign ({resolved} phases resolved)")
        shutil.rmtree(root)


def cut_copy(src: Path, dst: Path, records: int) -> None:
    shutil.copytree(src, dst)
    for p in (dst / "archive").glob("*.json"):
        if int(p.stem) >= records:
            p.unlink()


def bench_audit(work: Path, scenario: str) -> None:
    demo = run_demo(work / "long", "maria", scenario)
    total = len(list((demo.campaign / "archive").glob("*.json")))
    print(f"audit of one {scenario} Maria game ({total} records)")
    for n in (10, total):
        copy = work / f"audit-{n}"
        cut_copy(demo.campaign, copy, n)
        t0 = time.perf_counter()
        audit(Campaign(copy))
        elapsed = time.perf_counter() - t0
        print(f"  {n:>6} records: {elapsed:8.2f} s, {1000 * elapsed / n:8.1f} ms per record")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--scenario", default="intro", help="scenario of the long game for the audit part")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        work = Path(tmp)
        bench_run([int(s) for s in args.sizes.split(",")], args.jobs, work)
        bench_audit(work, args.scenario)


if __name__ == "__main__":
    main()
