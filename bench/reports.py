"""Time rendering every report of one complete game.

    python3 bench/reports.py                     # one introductory Maria game, seed 1
    python3 bench/reports.py --seed 5 --phases 20
    python3 bench/reports.py --game ror --scenario SCENARIO

Plays a game between the random bots through the real core (signed orders, intake, resolve)
in a temporary campaign folder, then publishes every record (reports in both languages, maps,
order forms, mails) and prints the total, the mean per phase, the share spent drawing maps and
their PNG images, the time of a second, idempotent pass (everything rendered again, nothing
rewritten), and the weight of the report mails: the median and the largest mail, and the
largest HTML body (Gmail clips a body over 102 KB).
"""

from __future__ import annotations

import argparse
import email
import email.policy
import hashlib
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.core import keys as keymod
from pbem.core.campaign import Campaign, Seat
from pbem.core.envelope import format_document, sign_data
from pbem.core.fair import Rng
from pbem.core.intake import intake
from pbem.core.phase import resolve
from pbem.core.signer import prepare
from pbem.demo import bot_orders_by_seat
from pbem.games import get_game
from pbem.render import publish


def play(root: Path, game_name: str, scenario: str, seed: int, max_phases: int) -> Campaign:
    """A bot game to the end (or ``max_phases``), orders signed and taken in as a GM's run does."""
    game = get_game(game_name)
    seats = game.seats(scenario, {})
    private = {s: keymod.generate(s) for s in seats}
    start = datetime(2026, 12, 1, tzinfo=UTC)
    camp = Campaign.create(
        root, campaign_id=f"bench-{seed}", game=game, scenario=scenario, options={},
        seats=[Seat(s, f"{s}@example.org", private[s].public(), "zh-TW" if i == 0 else "en") for i, s in enumerate(seats)],
        deadlines={"default": 86400}, grace=0, start=start, seed=hashlib.sha256(b"bench-%d" % seed).digest(),
    )
    rng = Rng(hashlib.sha256(b"bots-%d" % seed).digest())
    stores: dict[str, dict[str, Any]] = {s: {} for s in seats}
    now = start
    for number in range(1, max_phases + 1):
        _, state = camp.current()
        phase = game.current_phase(state)
        if phase is None:
            break
        now += timedelta(hours=1)
        docs = {seat: {"pbem": 1, "campaign": camp.id, "player": seat, "phase": phase.id, "seq": 1, "orders": orders}
                for seat, orders in bot_orders_by_seat(game, state, phase, rng).items()}
        paths = []
        for seat, doc in sorted(docs.items()):
            prepared, stores[seat] = prepare(doc, stores[seat], hashlib.sha256(f"{seed}-{number}-{seat}".encode()).digest())
            p = root.parent / "orders" / f"{number:04d}-{seat}.yaml"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(format_document(sign_data(prepared, private[seat])))
            paths.append(p)
        intake(camp, paths, now)
        resolve(camp, now)
    return camp


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="maria")
    ap.add_argument("--scenario", default="intro")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--phases", type=int, default=1000, help="stop the game after this many phases")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        camp = play(Path(tmp) / "camp", args.game, args.scenario, args.seed, args.phases)
        played = time.perf_counter() - t0
        records = [r for r in camp.effective_records() if r["kind"] in ("create", "phase")]
        map_time = 0.0
        real_map = publish.map_svg

        def timed_map(*a: Any, **k: Any) -> str | None:
            nonlocal map_time
            t = time.perf_counter()
            try:
                return real_map(*a, **k)
            finally:
                map_time += time.perf_counter() - t

        real_images = publish.map_images
        image_time = 0.0

        def timed_images(*a: Any, **k: Any) -> list[publish.MapImage]:
            nonlocal image_time
            t = time.perf_counter()
            try:
                return real_images(*a, **k)
            finally:
                image_time += time.perf_counter() - t

        publish.map_svg = timed_map  # type: ignore[assignment]
        publish.map_images = timed_images  # type: ignore[assignment]
        publish.glossary(args.game, "en")  # static data loads once, outside the timing
        t0 = time.perf_counter()
        files = sum(len(publish.publish_phase(camp, r["index"])) for r in records)
        first = time.perf_counter() - t0
        publish._render_map.cache_clear()
        t0 = time.perf_counter()
        for r in records:
            publish.publish_phase(camp, r["index"])
        second = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in camp.reports_dir.rglob("*") if p.is_file())
        report_mails = [p.read_bytes() for p in sorted(camp.outbox.glob("report-*.eml"))]
        mails = sum(map(len, report_mails))
        bodies = [_html_body(m) for m in report_mails]
    n = len(records)
    print(f"game                 {args.game}/{args.scenario} seed {args.seed}: {n} reports ({n - 1} phases), played in {played:.1f} s")
    print(f"render all reports   {first:.2f} s ({files} files and mails, {size / 1e6:.1f} MB of reports, {mails / 1e6:.1f} MB of mail)")
    print(f"mean per phase       {first / n * 1000:.0f} ms")
    print(f"  of which maps      {map_time / max(first, 1e-9) * 100:.0f} % ({map_time / n * 1000:.0f} ms per phase)")
    print(f"  of which map PNGs  {image_time / max(first, 1e-9) * 100:.0f} % ({image_time / n * 1000:.0f} ms per phase)")
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
    sys.exit(main())
