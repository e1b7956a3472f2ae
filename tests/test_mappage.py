"""The map page: the report's SVG map packed in a small offline page (its ground, the board
without its pieces, packed once per process), opened in a real headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import test_orderpage_browser as orderpage_browser

from pbem.games.maria.board import load_board, load_forces
from pbem.render import mappage, pagekit
from pbem.render.maria.svgmap import render_map

# the order page tests' browser, which blocks the network
driver = orderpage_browser.driver

PACKED = re.compile(r'<script type="text/plain" id="pbem-map">\n(.*?)\n</script>', re.S)


def later_phase(lang: str, maps: list[str] | None) -> str:
    """A drawing with a move and a battle, Friedrich at Prag."""
    board = load_board()
    start = load_forces(board).start_view()
    view = dict(start, generals=[dict(g, city="prag") if g["id"] == "friedrich" else g
                                 for g in start["generals"]], title="1741, turn 2")
    return render_map(board, view, highlights={"paths": [["breslau", "glatz", "prag"]], "battles": ["prag"]},
                      lang=lang, maps=maps)


def test_the_page_shows_the_map_in_chromium(driver: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    for lang, maps in (("en", None), ("zh-TW", ["bohemia"])):
        svg = later_phase(lang, maps)
        html = mappage.map_page(svg, "Turn 2 — 第二回合", lang)
        assert html.isascii()  # a mail carries it as it is
        packed = PACKED.search(html)
        assert packed is not None and pagekit.unpack(packed.group(1)) == b"".join(pagekit.svg_parts(svg))
        page = tmp_path / f"map-{lang}.html"
        page.write_text(html, encoding="ascii")
        driver.get(page.as_uri())
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return !!document.querySelector('#map svg');"))
        names = driver.execute_script("return document.querySelectorAll('#map text.lbl').length;")
        counters = driver.execute_script("return document.querySelectorAll('#map g.general').length;")
        assert names == svg.count('<text class="lbl') > 300
        assert counters == svg.count('<g class="general ') > 5
        tips = driver.execute_script("return [...document.querySelectorAll('#map g.general title')].map(t => t.textContent);")
        assert ("Friedrich II (PR)" if lang == "en" else "腓特烈二世 (PR)") in tips, tips  # the tooltips travel
        assert driver.execute_script("return document.querySelector('#map circle.battle') !== null;")
        assert driver.title == "Turn 2 — 第二回合"
