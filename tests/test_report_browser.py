"""The HTML reports in a real browser: headless Chromium lays out a public and a private Maria
report at desktop and phone width; the map and the tables must be visible (laid out with a size,
and drawn: the screenshot has ink where they stand), and a phone must not need to scroll
sideways (only the map may, inside its own box). Screenshots are saved beside the test's files
(set PBEM_SCREENSHOTS=DIR to keep them; docs/report-*.png are such screenshots).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest
from test_report_games import play_bot_game

from pbem.core.publish import publish_phase

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]
# Seed 5's bot game has a battle with five cards played in record 12 (1741, turn 3, Prussia).
SEED, RECORD = 5, 12

MEASURE = """
<script>
(function () {
  function box(sel) {
    var e = document.querySelector(sel);
    if (!e) return null;
    var r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height, visibility: s.visibility, display: s.display};
  }
  var out = {page: {scroll_w: document.documentElement.scrollWidth, inner_w: innerWidth}};
  ["#map .map object", "ol.events", "table.control", "table.markers", "table.commitments", "table.chain",
   "#own table.forces", "#own table.hand", "pre.form", "table.openings"].forEach(function (s) { out[s] = box(s); });
  var pre = document.createElement("pre");
  pre.id = "measure";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def chromium() -> str:
    """The Chromium binary; its absence fails the test (a browser check skipped proves nothing)."""
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.fail("headless Chromium is needed for the report layout test: apt-get install chromium")
    return path


def _run(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def measure(html: Path, width: int, work: Path) -> dict[str, Any]:
    """Lay ``html`` out at ``width`` CSS pixels and return the boxes of its parts.

    The report is laid out in an iframe of that width (its own viewport, so the phone media
    queries apply): a headless window is never narrower than 500 pixels."""
    probe = html.parent / f"measure-{width}-{html.name}"  # beside the report: it shows the map stored there
    probe.write_text(html.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    frame = html.parent / f"frame-{width}-{html.name}"
    frame.write_text(
        f'<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{probe.name}" style="width:{width}px;height:900px;border:0"></iframe>'
        '<script>document.getElementById("f").onload = function () {'
        ' var p = document.createElement("pre"); p.id = "measure";'
        ' p.textContent = this.contentDocument.getElementById("measure").textContent; document.body.appendChild(p); };</script>'
        "</body></html>", encoding="utf-8")
    dom = _run(["--dump-dom", "--allow-file-access-from-files", "--window-size=1400,900", frame.as_uri()], work / "profile").stdout
    start = dom.index('<pre id="measure">') + len('<pre id="measure">')
    text = dom[start:dom.index("</pre>", start)].replace("&quot;", '"').replace("&amp;", "&")
    return json.loads(text)  # type: ignore[no-any-return]


def screenshot(html: Path, width: int, height: int, out: Path, work: Path, scale: float = 1.0) -> Path:
    _run([f"--screenshot={out}", f"--window-size={width},{height}", f"--force-device-scale-factor={scale}", html.as_uri()],
         work / "profile")
    assert out.is_file() and out.stat().st_size > 10_000
    return out


def read_png(path: Path) -> tuple[int, int, list[bytearray]]:
    """Width, height and RGB rows of an 8-bit RGB/RGBA PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytearray] = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev, strict=True))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line
    rgb = [bytearray(b for i in range(0, stride, bpp) for b in row[i:i + 3]) for row in rows] if bpp == 4 else rows
    return width, height, rgb


def ink(png: tuple[int, int, list[bytearray]], box: dict[str, float], scale: float) -> tuple[float, int]:
    """Share of pixels in ``box`` (CSS pixels) that differ from the page background, and how
    many distinct colours (coarsely binned) the box holds."""
    width, height, rows = png
    x0, y0 = int(box["x"] * scale), int(box["y"] * scale)
    x1, y1 = min(width, int((box["x"] + box["w"]) * scale)), min(height, int((box["y"] + box["h"]) * scale))
    assert x1 > x0 and y1 > y0, f"box {box} is outside the screenshot"
    background = tuple(rows[0][0:3])
    inked = total = 0
    colours = set()
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            px = tuple(row[3 * x:3 * x + 3])
            total += 1
            if max(abs(px[i] - background[i]) for i in range(3)) > 24:
                inked += 1
            colours.add((px[0] >> 5, px[1] >> 5, px[2] >> 5))
    return inked / total, len(colours)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser") / "camp"
    camp = play_bot_game(root, "maria", "intro", SEED, publish=False, max_phases=RECORD)
    publish_phase(camp, RECORD)
    (folder,) = [p for p in (root / "reports").iterdir() if p.name.startswith(f"{RECORD:04d}-")]
    return folder


def _keep(path: Path, name: str) -> None:
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(target) / name)


@pytest.mark.parametrize("which", ["public", "private/maria_theresa"])
def test_map_and_tables_are_visible_at_desktop_width(reports: Path, tmp_path: Path, which: str) -> None:
    html = reports / f"{which}.html"
    boxes = measure(html, 1280, tmp_path)
    wanted = ["#map .map object", "ol.events", "table.control", "table.markers", "table.commitments", "table.chain"]
    if which != "public":
        wanted += ["#own table.forces", "#own table.hand", "pre.form", "table.openings"]
    for sel in wanted:
        b = boxes[sel]
        assert b is not None, f"{which}: {sel} is missing"
        assert b["w"] > 100 and b["h"] > 20 and b["visibility"] == "visible" and b["display"] != "none", f"{which}: {sel} {b}"
    assert boxes["#map .map object"]["w"] >= 900, "the map should use a desktop's width"
    height = int(max(b["y"] + b["h"] for b in boxes.values() if b and "y" in b)) + 40
    scale = 0.25
    small = screenshot(html, 1280, height, tmp_path / "small.png", tmp_path, scale)
    png = read_png(small)
    share, colours = ink(png, boxes["#map .map object"], scale)
    assert share > 0.05 and colours >= 8, f"the map region looks empty ({share:.3f} inked, {colours} colours)"
    for sel in ("table.control", "table.commitments"):
        share, _ = ink(png, boxes[sel], scale)
        assert share > 0.01, f"{sel} draws nothing ({share:.4f})"
    full = screenshot(html, 1280, height, tmp_path / "full.png", tmp_path)
    _keep(full, f"report-{which.replace('/', '-')}-desktop.png")


@pytest.mark.parametrize("which", ["public", "private/maria_theresa"])
def test_phone_width_needs_no_sideways_scroll(reports: Path, tmp_path: Path, which: str) -> None:
    html = reports / f"{which}.html"
    boxes = measure(html, 390, tmp_path)
    page = boxes["page"]
    assert page["inner_w"] == 390
    assert page["scroll_w"] <= page["inner_w"], f"{which}: the page is {page['scroll_w']}px wide on a {page['inner_w']}px phone"
    for sel in ("table.control", "table.commitments", "ol.events"):
        assert boxes[sel]["x"] + boxes[sel]["w"] <= 390 + 1, f"{which}: {sel} sticks out: {boxes[sel]}"
    shot = screenshot(html, 390, 1400, tmp_path / "phone.png", tmp_path)
    _keep(shot, f"report-{which.replace('/', '-')}-phone.png")


def test_chinese_report_renders_its_words(reports: Path, tmp_path: Path) -> None:
    html = reports / "public.zh-TW.html"
    dom = _run(["--dump-dom", "--window-size=800,900", html.as_uri()], tmp_path / "profile").stdout
    assert "發生了什麼" in dom and "要塞控制" in dom and 'lang="zh-TW"' in dom


def _same_share(a: tuple[int, int, list[bytearray]], b: tuple[int, int, list[bytearray]]) -> float:
    """The share of pixels of two same-sized screenshots that look the same."""
    assert a[:2] == b[:2]
    same = total = 0
    for ra, rb in zip(a[2], b[2], strict=True):
        for i in range(0, len(ra), 3):
            total += 1
            same += max(abs(ra[i + k] - rb[i + k]) for k in range(3)) <= 24
    return same / total


def test_the_stored_map_shows_the_ground_it_links(reports: Path, tmp_path: Path) -> None:
    """A phase's stored map.svg draws the unchanging part of the board (sectors, roads, cities)
    from the campaign's map-ground file as an image: Chromium shows it as the whole drawing the
    mails carry, and without the ground file most of the board is gone."""
    import json

    from pbem.core.campaign import Campaign
    from pbem.render import report, reportmap

    camp = Campaign(reports.parent.parent)
    game = camp.game()
    events = json.loads((camp.states_dir / f"{RECORD:06d}.events.json").read_bytes())
    whole = reportmap.map_svg("maria", game.view(camp.read_state(RECORD), report.PUBLIC),
                              report.visible_events(events, report.PUBLIC), "en")
    assert whole is not None
    stored = (reports / "map.svg").read_text(encoding="utf-8")
    (ground,) = re.findall(r'href="\.\./(map-ground\.[0-9a-f]{16}\.svg)"', stored)
    assert len(stored) < len(whole) / 2 and (reports.parent / ground).is_file()
    drawn = tmp_path / "whole.svg"
    drawn.write_text(whole, encoding="utf-8")
    shots = [read_png(screenshot(svg, 1000, 700, tmp_path / f"{i}.png", tmp_path)) for i, svg in enumerate((drawn, reports / "map.svg"))]
    assert _same_share(*shots) > 0.99
    hidden = reports.parent / "hidden.svg"
    (reports.parent / ground).rename(hidden)
    try:
        without = read_png(screenshot(reports / "map.svg", 1000, 700, tmp_path / "without.png", tmp_path))
    finally:
        hidden.rename(reports.parent / ground)
    assert _same_share(shots[0], without) < 0.97
