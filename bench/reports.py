"""Time rendering every report of one complete game.

    python3 bench/reports.py                     # one introductory Maria game, seed 1
    python3 bench/reports.py --seed 5 --phases 20
    python3 bench/reports.py --game ror --scenario SCENARIO

Plays a game between the bots with the demo's loop (``pbem.demo.run_demo``: signed orders
mailed in, the GM's daily job after each round) in a temporary folder, then publishes every
record again from nothing (reports in both languages, maps, order forms, mails) and prints the total, the mean per phase, the share spent drawing maps and
their PNG images, the time of a second, idempotent pass (everything rendered again, nothing
rewritten), and the weight of the report mails: the median and the largest mail, and the
largest HTML body (Gmail clips a body over 102 KB).
"""

from __future__ import annotations

import argparse
import contextlib
import email
import email.policy
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pbem.core import mailout, publish
from pbem.core.campaign import Campaign
from pbem.demo import run_demo
from pbem.render import orderpage, pagekit, raster, rastersprites, reportmap, reportpage
from pbem.render.maria import mapview


def play(folder: Path, game_name: str, scenario: str, seed: int, max_rounds: int) -> Campaign:
    """A bot game to the end (or ``max_rounds`` mail rounds), played by the demo's loop: signed
    orders mailed into the Maildir and the GM's daily job run after each round. The daily job
    publishes as it goes; those outputs are removed so the timing below renders from nothing."""
    rounds = 0

    def stop_at(_phase: Any) -> bool:
        nonlocal rounds
        rounds += 1
        return rounds > max_rounds

    done = run_demo(folder, game_name, scenario, seed, stop_at=stop_at)
    camp = Campaign(done.campaign)
    unpublish(camp)
    return camp


def unpublish(camp: Campaign) -> None:
    """Remove what publishing wrote: the reports and the queued report mails."""
    shutil.rmtree(camp.reports_dir, ignore_errors=True)
    for mail in camp.outbox.glob("report-*.eml"):
        mail.unlink()


class Stopwatch:
    """Time spent inside one function while it is being timed."""

    spent = 0.0


@contextlib.contextmanager
def timed(module: Any, name: str, clock: Callable[[], float]) -> Iterator[Stopwatch]:
    """Count the time spent in ``module.name`` while the block runs, and only then: the function
    is put back on leaving, so a later pass (the idempotent second one) adds nothing to the share
    of the first."""
    watch = Stopwatch()
    real = getattr(module, name)

    def timed_call(*a: Any, **k: Any) -> Any:
        t = clock()
        try:
            return real(*a, **k)
        finally:
            watch.spent += clock() - t

    setattr(module, name, timed_call)
    try:
        yield watch
    finally:
        setattr(module, name, real)


def forget_drawings() -> None:
    """Empty the caches keyed by a phase's content (its SVG maps and their PNG images, the
    report sections its reports share); the board's ground, drawn once per size, stays."""
    mapview._render_map.cache_clear()
    raster._png.cache_clear()
    raster._layered.cache_clear()
    raster._sprites.cache_clear()
    raster._apart.cache_clear()
    raster.forget()  # what it kept of the elements, and the pieces' tiles (those on disk stay: see sprites_kept_in)
    orderpage._packed_map.cache_clear()
    orderpage.compress_svg.cache_clear()
    pagekit.forget()  # the packed parts it keeps, the ground's with the phases' (a daily run packs the ground once)
    mailout._base64.cache_clear()  # the map images' base 64, kept from one seat's mail to the next
    reportpage.forget_shared()  # the report sections every report of a phase shows alike, its names, links and form comments


@contextlib.contextmanager
def sprites_kept_in(folder: Path) -> Iterator[None]:
    """Keep the pieces' tiles (:mod:`pbem.render.rastersprites`) in ``folder``, empty, while the
    block runs, instead of pbem's cache folder (where the play left every phase's): a daily run
    finds on disk the tiles of the days before, never its own phase's, and so does each phase
    here, timed one after the other with the tiles kept in the process forgotten in between."""
    folder.mkdir()
    with replaced(rastersprites, "_folder", lambda: folder):
        yield


@contextlib.contextmanager
def replaced(module: Any, name: str, value: Any) -> Iterator[None]:
    """``module.name`` set to ``value`` while the block runs."""
    real = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, real)


def share(part: float, whole: float) -> str:
    """``part`` as a percentage of ``whole``, which contains it."""
    return f"{part / max(whole, 1e-9) * 100:.0f} %"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="maria")
    ap.add_argument("--scenario", default="intro")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--phases", type=int, default=1000, help="stop the game after this many mail rounds (about one phase each)")
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU of this process (time.process_time) instead of the wall clock: a loaded machine then counts less, fsync waits not at all")
    ap.add_argument("--rounds", type=int, default=3,
                    help="publish every record from nothing this many times; the fastest round counts, as in intake.py "
                         "(the machine's own speed moves between runs) (default: %(default)s)")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    with tempfile.TemporaryDirectory() as tmp:
        t0 = clock()
        camp = play(Path(tmp), args.game, args.scenario, args.seed, args.phases)
        played = clock() - t0
        records = [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]
        reportpage.glossary(args.game, "en")  # static data loads once, outside the timing
        # what the demo's daily job drew for these very phases is forgotten (a daily job draws a
        # phase once); what only depends on the board and the language stays, as in any run
        rounds: list[tuple[float, float, float, int]] = []  # each round's total, its maps, its map PNGs, files
        for k in range(max(1, args.rounds)):
            if k:
                unpublish(camp)  # each round publishes from nothing, as the first
            forget_drawings()
            with (timed(reportmap, "map_svg", clock) as map_time, timed(reportmap, "map_images", clock) as image_time,
                  sprites_kept_in(Path(tmp) / f"sprites-{k}")):
                files, first = 0, 0.0
                for r in records:
                    raster.forget()  # a daily run is a new process
                    t0 = clock()
                    files += len(publish.publish_phase(camp, r["index"]))
                    first += clock() - t0
            rounds.append((first, map_time.spent, image_time.spent, files))
        first, map_spent, image_spent, files = min(rounds)
        forget_drawings()
        t0 = clock()
        for r in records:
            publish.publish_phase(camp, r["index"])
        second = clock() - t0
        size = sum(p.stat().st_size for p in camp.reports_dir.rglob("*") if p.is_file())
        report_mails = [p.read_bytes() for p in sorted(camp.outbox.glob("report-*.eml"))]
        mails = sum(map(len, report_mails))
        bodies = [_html_body(m) for m in report_mails]
    n = len(records)
    print(f"game                 {args.game}/{args.scenario} seed {args.seed}: {n} reports ({n - 1} phases), played in {played:.1f} s")
    print(f"render all reports   {first:.2f} s ({files} files and mails, {size / 1e6:.1f} MB of reports, {mails / 1e6:.1f} MB of mail)")
    if len(rounds) > 1:
        print(f"  rounds             {', '.join(f'{r[0]:.2f}' for r in rounds)} s (the fastest counts)")
    print(f"mean per phase       {first / n * 1000:.0f} ms")
    print(f"  of which maps      {share(map_spent, first)} ({map_spent / n * 1000:.0f} ms per phase)")
    print(f"  of which map PNGs  {share(image_spent, first)} ({image_spent / n * 1000:.0f} ms per phase)")
    print(f"second pass          {second:.2f} s (same bytes, nothing rewritten)")
    sizes = sorted(map(len, report_mails))
    print(f"report mails         {len(sizes)}: median {statistics.median(sizes) / 1000:.0f} KB, largest {sizes[-1] / 1000:.0f} KB")
    print(f"HTML body            median {statistics.median(bodies) / 1000:.0f} KB, largest {max(bodies) / 1000:.0f} KB (decoded)")


def _html_body(raw: bytes) -> int:
    """Bytes of a mail's HTML body (decoded), the part a webmail shows and Gmail clips."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=("html",))  # type: ignore[attr-defined]
    return len(body.get_content().encode("utf-8")) if body is not None else 0


if __name__ == "__main__":
    main()
