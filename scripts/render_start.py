"""Regenerate docs/start.png: the starting position of the advanced game on the shipped map.

Usage: python3 scripts/render_start.py [--map FILE] [--forces FILE] [--lang en|zh-TW]
                                       [--out docs/start.png] [--width 2400]

Draws the SVG with pbem's renderer and photographs it with headless Chromium
(apt-get install chromium). The SVG is written beside the PNG's temporary copy only.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pbem.games.maria.board import load_board, load_forces
from pbem.render.maria.svgmap import render_map

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def screenshot(svg: str, out: Path, width: int) -> None:
    """Photograph ``svg`` at ``width`` pixels (height from its viewBox) into ``out``."""
    binary = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if binary is None:
        sys.exit("headless Chromium is missing: apt-get install chromium")
    match = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    if match is None:
        sys.exit("the SVG has no viewBox")
    height = round(width * float(match.group(2)) / float(match.group(1)))
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "start.svg"
        page.write_text(svg, encoding="utf-8")
        shot = Path(tmp) / "start.png"
        subprocess.run(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={Path(tmp) / 'profile'}",
             "--hide-scrollbars", f"--screenshot={shot}", f"--window-size={width},{height}",
             page.as_uri()],
            check=True, capture_output=True, timeout=180,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map", type=Path, default=None, help="map file (default: shipped)")
    parser.add_argument("--forces", type=Path, default=None,
                        help="forces file (default: forces.yaml beside the map)")
    parser.add_argument("--lang", default="en", choices=["en", "zh-TW"])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "start.png")
    parser.add_argument("--width", type=int, default=2400)
    parser.add_argument("--svg", type=Path, default=None, help="also keep the SVG here")
    args = parser.parse_args()
    board = load_board(args.map)
    forces_path = args.forces or (args.map.with_name("forces.yaml") if args.map else None)
    view = load_forces(board, forces_path).start_view()
    svg = render_map(board, view, lang=args.lang)
    if args.svg:
        args.svg.write_text(svg, encoding="utf-8")
    screenshot(svg, args.out, args.width)
    print(args.out)


if __name__ == "__main__":
    main()
