"""The powers' colours on the map (seed 000: Austria white, Prussia blue, Saxony green, the
Pragmatic Army grey, France red, Bavaria orange), and a WCAG-style contrast check: every
power's pieces stand out against every territory's shading under them."""

from __future__ import annotations

import colorsys

from pbem.render.maria.svgmap import PANEL, POWER_COLOURS, TERRITORY_TINTS, shading

MIN_CONTRAST = 3.0  # WCAG 2.1, 1.4.11: non-text contrast of a graphical object
MIN_TEXT = 4.5  # WCAG 2.1, 1.4.3: the rank number on the counter


def luminance(colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def hue(colour: str) -> tuple[float, float, float]:
    r, g, b = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)


def test_the_box_colours() -> None:
    au, pr, sx, pa, fr, ba = (hue(POWER_COLOURS[p][0]) for p in ("AU", "PR", "SX", "PA", "FR", "BA"))
    assert au[1] > 0.95  # white
    assert pa[2] < 0.05 and 0.3 < pa[1] < 0.7  # grey
    assert 0.55 < pr[0] < 0.7  # blue
    assert 0.25 < sx[0] < 0.45  # green
    assert fr[0] < 0.03 or fr[0] > 0.95  # red
    assert 0.05 < ba[0] < 0.12  # orange


def test_every_piece_stands_out_on_every_shading() -> None:
    grounds = {t: shading(t) for t in TERRITORY_TINTS} | {"none": PANEL}
    weak = []
    for power, (fill, edge, ink) in POWER_COLOURS.items():
        assert contrast(fill, ink) >= MIN_TEXT, (power, fill, ink)
        for where, ground in grounds.items():
            # a fill too light to stand out (Austria's white) is read by its dark edge
            best = max(contrast(fill, ground), contrast(edge, ground))
            if best < MIN_CONTRAST:
                weak.append(f"{power} on {where}: {best:.2f}")
    assert not weak, weak


def test_shadings_are_light_tints_of_the_powers() -> None:
    for territory in TERRITORY_TINTS:
        assert luminance(shading(territory)) > 0.7, territory
    # each home country's shading has its power's hue
    for power in ("PR", "SX", "FR", "BA"):
        assert abs(hue(TERRITORY_TINTS[power])[0] - hue(POWER_COLOURS[power][0])[0]) < 0.06, power


def test_reports_and_the_order_page_use_the_map_colours() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    css = (root / "templates/base/style.css").read_text(encoding="utf-8")
    for power, (fill, _edge, _ink) in POWER_COLOURS.items():
        assert f".sw-{power} {{ background: {fill}; }}" in css, power
    js = "".join(p.read_text(encoding="utf-8") for p in sorted((root / "templates/orderpage").glob("maria*.js")))
    assert "D.colours" in js and "#c9a227" not in js


def test_generals_carry_their_short_names_and_the_intro_map_is_bohemia_only() -> None:
    import re

    from pbem.games.maria.board import load_board, load_forces
    from pbem.render.maria.svgmap import render_map, short_name

    board = load_board()
    view = load_forces(board).start_view()
    full = render_map(board, view)
    names = re.findall(r'<text class="gname"[^>]*>([^<]+)</text>', full)
    on_map = [g for g in view["generals"] if g.get("city")]
    assert on_map and sum(len(n.split("/")) for n in names) == len(on_map)
    assert "Friedrich" in " ".join(names) and all(len(w) <= 9 for n in names for w in n.split("/"))
    assert short_name({"name": "Khevenhüller"}, "en") == "Khevenh." and short_name({"name_zh": "薩克森的莫里茨"}, "zh-TW") == "莫里茨"
    bohemia = render_map(board, {**view, "generals": [g for g in view["generals"] if board.cities[g["city"]].map == "bohemia"],
                                 "trains": [t for t in view["trains"] if board.cities[t["city"]].map == "bohemia"]},
                         maps=["bohemia"])
    width = lambda svg: float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))  # noqa: E731
    assert width(bohemia) < width(full) * 0.75
    assert 'id="map-flanders"' in full and 'id="map-flanders"' not in bohemia
