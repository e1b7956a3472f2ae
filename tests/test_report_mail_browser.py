"""A report mail as Gmail shows it: the HTML body with every ``<svg>`` removed (webmail drops
inline SVG) and its ``cid:`` images resolved, laid out by headless Chromium at phone (400 px) and
desktop (1,400 px) width. The map images must be loaded, of a useful size, fit the width and
come into view; the body must stay under Gmail's clipping size; the SVG travels once."""

from __future__ import annotations

import email
import email.policy
import json
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from test_report_browser import SEED, _run
from test_report_games import play_bot_game

from pbem.core.publish import publish_phase

SIZES: dict[str, int] = {}
GMAIL_CLIP = 100_000  # Gmail clips an HTML body over 102 KB; keep a margin
RECORD = 13  # the game of test_report_browser: Austria's moves of 1741-3, in one part of the board (the first image crops them)

PROBE = """
<script>
window.addEventListener("load", function () {
  var out = {inner_w: innerWidth, scroll_w: document.documentElement.scrollWidth, images: []};
  document.querySelectorAll("#map img").forEach(function (img) {
    img.scrollIntoView();
    var r = img.getBoundingClientRect(), s = getComputedStyle(img);
    out.images.push({src: img.getAttribute("src"), alt: img.alt, complete: img.complete,
      natural_w: img.naturalWidth, natural_h: img.naturalHeight, w: r.width, h: r.height,
      left: r.left, right: r.right, top: r.top, bottom: r.bottom, inner_h: innerHeight,
      visibility: s.visibility, display: s.display});
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The report mails of a phase with moves in one part of the board, as queued (``raw``: the
    bytes sent)."""
    root = tmp_path_factory.mktemp("mail") / "camp"
    camp = play_bot_game(root, "maria", "intro", SEED, publish=False, max_phases=RECORD)
    publish_phase(camp, RECORD)
    out = {}
    for path in sorted((root / "outbox").glob(f"report-{RECORD:04d}-*.eml")):
        out[path.stem.rsplit("-", 1)[-1]] = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        SIZES[path.stem.rsplit("-", 1)[-1]] = path.stat().st_size
    return out


def _html(msg: EmailMessage) -> str:
    body = msg.get_body(preferencelist=("html",))
    assert body is not None
    return str(body.get_content())


def as_gmail_shows_it(msg: EmailMessage, folder: Path) -> Path:
    """The HTML body with every ``<svg>`` removed and each ``cid:`` image saved beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    html = re.sub(r"<svg\b.*?</svg>", "", _html(msg), flags=re.S | re.I)
    for i, part in enumerate(p for p in msg.walk() if p["Content-ID"]):
        cid = str(part["Content-ID"]).strip("<>")
        name = f"part-{i}.png"
        (folder / name).write_bytes(part.get_content())
        html = html.replace(f"cid:{cid}", name)
    assert "cid:" not in html, "an image cites a part the mail does not carry"
    page = folder / "body.html"
    page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    return page


def lay_out(page: Path, width: int, work: Path) -> dict[str, Any]:
    """Lay ``page`` out in an iframe ``width`` CSS pixels wide (its own viewport, as a phone's
    mail app; a headless window is never narrower than 500 pixels) and return what the probe saw."""
    frame = page.with_name(f"frame-{width}.html")
    frame.write_text(
        f'<!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="{page.name}" style="width:{width}px;height:800px;border:0"></iframe>'
        '<script>document.getElementById("f").onload = function () {'
        ' var p = document.createElement("pre"); p.id = "probe";'
        ' p.textContent = this.contentDocument.getElementById("probe").textContent; document.body.appendChild(p); };</script>'
        "</body></html>", encoding="utf-8")
    dom = _run(["--dump-dom", "--allow-file-access-from-files", "--window-size=1400,900", frame.as_uri()], work / "profile").stdout
    start = dom.index('<pre id="probe">') + len('<pre id="probe">')
    return json.loads(dom[start:dom.index("</pre>", start)].replace("&quot;", '"').replace("&amp;", "&"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("width", [400, 1400])
def test_the_map_image_is_visible_where_inline_svg_is_dropped(mails: dict[str, EmailMessage], tmp_path: Path, width: int) -> None:
    for seat, msg in sorted(mails.items()):
        seen = lay_out(as_gmail_shows_it(msg, tmp_path / seat), width, tmp_path)
        images = seen["images"]
        assert [i["alt"] for i in images][-1] in ("The whole map", "全圖"), images
        assert len(images) == 2, f"{seat}: a phase with moves shows their crop and the whole board: {images}"
        for img in images:
            assert img["complete"] and img["natural_w"] >= 600 and img["natural_h"] >= 250, f"{seat}: not loaded: {img}"
            assert img["visibility"] == "visible" and img["display"] != "none", img
            assert img["w"] >= min(width - 60, img["natural_w"]) * 0.9, f"{seat}: the map is shown too small at {width}px: {img}"
            assert img["left"] >= 0 and img["right"] <= width + 1, f"{seat}: the map sticks out at {width}px: {img}"
            assert img["top"] < img["inner_h"] and img["bottom"] > 0, f"{seat}: the map does not come into view: {img}"
        assert seen["scroll_w"] <= width, f"{seat}: the body is {seen['scroll_w']}px wide at {width}px"


def test_the_mail_is_light_and_carries_the_svg_once(mails: dict[str, EmailMessage]) -> None:
    for seat, msg in mails.items():
        html = _html(msg)
        assert len(html.encode("utf-8")) < GMAIL_CLIP, f"{seat}: the HTML body is {len(html.encode()):,} bytes"
        assert "<svg" not in html
        parts = [p for p in msg.walk() if not p.is_multipart()]
        assert not [p for p in parts if p.get_content_type() == "image/svg+xml"], "no separate SVG attachment"
        carriers = [p.get_filename() for p in parts if p.get_content_type() == "text/html" and p.get_filename()
                    and "<svg" in _inflated(p.get_content())]
        assert len(carriers) == 1, f"{seat}: the SVG should travel once, in the order page or the map page: {carriers}"
        pngs = [p for p in parts if p.get_content_type() == "image/png"]
        assert pngs and all(p.get_content()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
        assert all(f'cid:{str(p["Content-ID"]).strip("<>")}' in html for p in pngs), "every image is cited by the body"
        size = SIZES[seat]  # the bytes queued, as sent
        assert size <= 400_000, f"{seat}: the mail is {size:,} bytes"
        plain = msg.get_body(preferencelist=("plain",))
        assert plain is not None
        text = str(plain.get_content())
        if "orders-" in text:  # a seat with orders to send: the order page comes first, pbem sign second
            assert text.index(".html") < text.index("pbem sign"), text[:600]


def _inflated(page: str) -> str:
    """A page's text with its gzip-packed map opened (how the browser shows it)."""
    from pbem.render.pagekit import unpack

    m = re.search(r'<script type="text/plain" id="pbem-map">(.*?)</script>', page, re.S)
    return page + (unpack(m.group(1)).decode("utf-8") if m and m.group(1).strip() else "")


def test_the_map_images_are_deterministic_and_draw_chinese_names() -> None:
    """Same SVG, same PNG bytes (no system font search: only the fonts pbem names); the Chinese
    map's names are drawn (a crop without them is another picture)."""
    from pbem.games.maria.board import load_board
    from pbem.render import raster
    from pbem.render.maria.svgmap import action_box, render_map

    board = load_board()
    view = {"generals": [{"id": "friedrich", "power": "PR", "city": "breslau", "troops": 8}], "trains": [], "hussars": [], "control": {}}
    highlights = {"paths": [["glogau", "breslau"]], "battles": ["breslau"]}
    box = action_box(board, highlights)
    assert box is not None and box[2] >= 320
    zh = render_map(board, view, highlights=highlights, lang="zh-TW")
    first = raster.crop(zh, box, 640)
    raster._png.cache_clear()
    assert raster.crop(zh, box, 640) == first
    assert raster.size(first) == (640, 427)
    unnamed = re.sub(r"<text[^>]*>[^<]*[\u4e00-\u9fff][^<]*</text>", "", zh)
    assert unnamed != zh and raster.crop(unnamed, box, 640) != first
    assert raster.whole_map(zh, 720) == raster.whole_map(render_map(board, view, highlights=highlights, lang="en"), 720)
