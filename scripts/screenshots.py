"""Regenerate the report screenshots in docs/: a public report, a private report, the zh-TW
report, the map at 400 and 1,400 pixels wide and a history-site phase page, all of one phase
with a battle in a demo game of the introductory scenario.

Usage: python3 scripts/screenshots.py [--campaign DIR] [--out docs] [--seed 1741] [--no-render]

Without --campaign it plays the demo (pbem demo --scenario intro) in a temporary folder first.
Photographs are taken by headless Chromium (apt-get install chromium), offline.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def chromium() -> str:
    binary = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if binary is None:
        sys.exit("headless Chromium is missing: apt-get install chromium")
    return binary


def shoot(page: Path, out: Path, width: int, height: int) -> None:
    """Photograph ``page`` in a ``width`` x ``height`` window into ``out``."""
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        subprocess.run([chromium(), *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}",
                        f"--screenshot={shot}", f"--window-size={width},{height}", page.as_uri()],
                       check=True, capture_output=True, timeout=240)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, out)
    print(out)


def svg_height(svg: Path, width: int) -> int:
    match = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg.read_text(encoding="utf-8"))
    if match is None:
        sys.exit(f"{svg} has no viewBox")
    return round(width * float(match.group(2)) / float(match.group(1)))


def battle_phase(camp: Path) -> Path:
    """The last phase folder of ``camp``'s reports whose public report tells a battle."""
    found = [d for d in sorted((camp / "reports").iterdir())
             if (d / "public.html").is_file() and "ev-battle" in (d / "public.html").read_text(encoding="utf-8")]
    if not found:
        sys.exit(f"no phase of {camp} has a battle; try another --seed")
    return found[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaign", type=Path, default=None, help="a campaign folder (default: play the demo)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--seed", type=int, default=1741)
    parser.add_argument("--no-render", action="store_true", help="photograph the reports as they are")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        camp = args.campaign
        if camp is None:
            from pbem.demo import run_demo

            run_demo(Path(tmp) / "demo", scenario="intro", seed=args.seed)
            camp = Path(tmp) / "demo" / "campaign"
        if not args.no_render:
            subprocess.run([sys.executable, "-m", "pbem", "report", str(camp), "--all"], check=True,
                           capture_output=True)
        phase = battle_phase(camp)
        seat = [p for p in sorted((phase / "private").glob("*.html")) if not p.name.endswith(".orders.html")][0]
        shoot(phase / "public.html", args.out / "report-public.png", 900, 2600)
        shoot(seat, args.out / "report-private.png", 900, 2600)
        shoot(phase / "public.zh-TW.html", args.out / "report-zh-TW.png", 900, 2600)
        for width in (400, 1400):
            shoot(phase / "map.svg", args.out / f"map-{width}.png", width, svg_height(phase / "map.svg", width))
        site_page = camp / "site" / phase.name / "index.html"
        if not site_page.is_file():
            site_page = camp / "site" / phase.name / "public.html"
        shoot(site_page, args.out / "site-phase.png", 900, 1600)


if __name__ == "__main__":
    main()
