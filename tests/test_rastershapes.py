"""The map's plain shapes drawn by aggdraw (:mod:`pbem.render.rastershapes`) are resvg's
drawing of them, but for the rounding of anti-aliased edges (resvg's coverage comes in
quarters, AGG's is exact): every element of a real map, on the whole map's and the crop's
pixel grid, within a tolerance that a wrong colour, offset, width, dash, arrowhead or opacity
exceeds."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from pbem.games import presentation
from pbem.games.maria.board import load_board, load_forces
from pbem.render import raster, rastershapes, rastersprites, rastertiles

BOX = (0.0, 522.5, 393.0, 262.0)  # where the moves are


def drawing() -> str:
    """A map with every kind of shape the pieces and highlights use: counters (one blocked,
    one face down, one with troops), trains, hussars, flags and markers, moves' arrows, battle
    rings, a radius, the legend."""
    view: dict[str, Any] = dict(load_forces(load_board()).start_view(intro=True))
    generals = [dict(g) for g in view["generals"]]
    generals[0]["blocked"] = True
    generals[1]["face_down"] = True
    generals[2]["troops"] = 5
    control = {**view.get("control", {}), "regensburg": {"power": "FR"}, "glatz": {"power": "PR"}}
    view = {**view, "generals": generals, "hussars": ["brieg", "strehlen"], "control": control}
    highlights = {"paths": [["neumarkt", "hemau", "ingolstadt"], ["glatz", "neisse"],
                            ["amberg", "regensburg", "straubing", "passau"]],
                  "battles": ["ingolstadt", "neisse"], "radius": {"city": "regensburg", "n": 1}}
    return presentation("maria").map_svg({"map": view, "variant": "intro"}, highlights, "en") or ""


def elements(svg: str, box: Any) -> tuple[str, list[str], tuple[float, float, float, int, int]]:
    """The definitions, the shapes over the ground and the pixel grid of the whole map
    (``box`` None, 720 pixels wide) or of the crop of ``box`` (640 pixels wide)."""
    under, over = raster._layers(svg, presentation("maria").map_ground(svg))
    top = raster._bare(over)
    if box is None:
        view = rastersprites.view_of(raster.view_box(top), 720, 829)
    else:
        drawn, _step = rastertiles.steady_box(box, 640, raster.view_box(under))
        view = rastersprites.view_of(drawn, 640, max(1, round(640 * drawn[3] / drawn[2])))
    cut = top.index("</defs>") + len("</defs>")
    body = top[cut:top.rindex("</svg>")]
    shapes = [e for kind, e in raster._items(body, frozenset()) if kind == "shape"]
    return top[top.index(">") + 1:cut], shapes, rastersprites.grid(view)


def tiles(defs: str, shape: str, grid: tuple[float, float, float, int, int], shift: float = 0.0) -> tuple[Any, Any]:
    """``shape`` drawn by aggdraw (its grid moved by ``shift`` pixels) and by resvg on its tile."""
    scale, fx, fy, _ix, _iy = grid
    x0, y0, x1, y1 = rastersprites.extent(shape) or (0.0, 0.0, 0.0, 0.0)
    box = (math.floor(x0 * scale + fx), math.floor(y0 * scale + fy), math.ceil(x1 * scale + fx),
           math.ceil(y1 * scale + fy))
    mine = rastershapes.tile(defs, [shape], (scale, fx + shift, fy + shift), box)
    theirs = rastersprites._drawn(rastersprites._unstyled(defs) or defs, (scale, fx, fy), box, [shape])
    return mine, theirs


def differ(mine: Any, theirs: Any, thin: bool = False) -> str:
    """How two tiles differ beyond the rounding of anti-aliased edges ("" when they do not):
    their colours premultiplied by their coverage, compared pixel by pixel and in total.
    ``thin``: strokes thinner than a pixel, which resvg covers up to two fifths short of their
    area (aggdraw covers it exactly): the totals may be that much more than resvg's."""
    from PIL import ImageChops

    a, b = mine.convert("RGBa"), theirs.convert("RGBa")
    diff = ImageChops.difference(a, b)
    worst = max(high for _low, high in diff.getextrema())
    hist = diff.histogram()
    pixels = mine.width * mine.height
    far = sum(sum(hist[256 * c + 96:256 * c + 256]) for c in range(4))
    totals = [(sum(v * n for v, n in enumerate(im.histogram()[256 * c:256 * c + 256])) / 255) for im in (a, b)
              for c in range(4)]
    out = []
    if worst > 140 or far > max(2, pixels // 400):
        out.append(f"{far} values differ by more than 96 (at most {worst})")
    for c in range(4):
        m, t = totals[c], totals[4 + c]
        if not -0.05 * t - 2.0 <= m - t <= (0.45 if thin else 0.05) * t + 2.0:
            out.append(f"channel {'RGBA'[c]}: {m:.1f} against {t:.1f}")
    return "; ".join(out)


@pytest.fixture(scope="module")
def svg() -> str:
    return drawing()


@pytest.mark.parametrize("box", [None, BOX], ids=["whole", "crop"])
def test_every_plain_shape_of_a_map_is_drawn_as_resvg_draws_it(svg: str, box: Any) -> None:
    defs, shapes, grid = elements(svg, box)
    drawn: set[str] = set()
    for shape in shapes:
        if rastersprites.extent(shape) is None:
            continue
        mine, theirs = tiles(defs, shape, grid)
        if mine is None:  # resvg's: a look the style sheet gives
            assert re.search(r'class="(road|main-road|cross-map|grid)"', shape), shape
            continue
        assert mine.size == theirs.size and mine.mode == "RGBA"
        assert not differ(mine, theirs), f"{differ(mine, theirs)}: {shape}"
        drawn.update(re.findall(r"<(rect|circle|line|polyline|polygon|path)\b", shape))
        drawn.update(k for k in ("marker-end", "opacity", "stroke-dasharray", 'rx="', "url(#hatch)") if k in shape)
    assert drawn >= {"rect", "circle", "line", "polyline", "polygon", "path", "marker-end", "opacity",
                     "stroke-dasharray", 'rx="', "url(#hatch)"}, drawn


def test_on_the_advanced_games_whole_map_strokes_thinner_than_a_pixel_keep_their_area() -> None:
    """The advanced game's whole map is drawn at 0.37 pixels a unit: its rings' and marks'
    strokes are thinner than a pixel, which resvg covers short of their area; aggdraw covers a
    ring's area exactly, and every shape (a face-down counter's hatching too) is otherwise
    resvg's within the tolerance above."""
    view: dict[str, Any] = dict(load_forces(load_board()).start_view(intro=False))
    generals = [dict(g) for g in view["generals"]]
    generals[0]["blocked"] = True
    generals[1]["face_down"] = True  # its hatching's stripes a third of a pixel wide: lines, not fills
    view = {**view, "generals": generals}
    svg = presentation("maria").map_svg({"map": view, "variant": "advanced"}, {"battles": ["prag"]}, "en") or ""
    defs, shapes, grid = elements(svg, None)
    scale = grid[0]
    assert scale < 0.4
    drawn = rings = 0
    for shape in shapes:
        if rastersprites.extent(shape) is None:
            continue
        mine, theirs = tiles(defs, shape, grid)
        assert mine is not None or re.search(r'class="(road|main-road|cross-map|grid)"', shape), shape
        if mine is None:
            continue
        drawn += 1
        widths = [float(w) * scale for w in re.findall(r'stroke-width="([\d.]+)"', shape)]
        assert not differ(mine, theirs, thin=min(widths, default=1.0) < 1.0), f"{differ(mine, theirs, True)}: {shape}"
        if 'class="battle"' in shape:  # a ring 13 units round, 2.6 wide
            area = 2 * math.pi * 13 * 2.6 * scale * scale
            assert sum(v * n for v, n in enumerate(mine.getchannel("A").histogram())) / 255 == pytest.approx(area, rel=0.03)
            rings += 1
    assert drawn > 50 and rings == 1


def test_the_tolerance_catches_a_wrong_offset_width_colour_dash_arrowhead_or_opacity(svg: str) -> None:
    """The comparison above is tight: a shape drawn wrong in any of these ways fails it."""
    defs, shapes, grid = elements(svg, BOX)
    arrow = next(s for s in shapes if "marker-end" in s)
    counter = next(s for s in shapes if 'rx="1.8"' in s and "url(#hatch)" not in s and "blocked" not in s)
    flag = next(s for s in shapes if s.startswith("<polygon") and 'stroke-width="0.8"' in s)
    for shape in (arrow, counter, flag):
        mine, theirs = tiles(defs, shape, grid, shift=1.0)
        assert differ(mine, theirs), f"moved by a pixel: {shape}"
    wrong = {
        "width": [(arrow, 'stroke-width="2.4"', 'stroke-width="3"'), (counter, 'stroke-width="1.4"', 'stroke-width="2"')],
        "colour": [(counter, 'stroke="', 'stroke="#e0201b" x-="'), (flag, 'fill="#', 'fill="#ffff00" x-="')],
        "dash": [(arrow, 'stroke-dasharray="6 2"', 'stroke-dasharray="4 4"')],
        "opacity": [(arrow, 'opacity="0.9"', 'opacity="0.6"')],
    }
    for what, cases in wrong.items():
        for shape, old, new in cases:
            changed = re.sub(r' x-="[^"]*"', "", shape.replace(old, new, 1))
            assert changed != shape
            mine = rastershapes.tile(defs, [changed], grid[:3], _box(shape, grid))
            theirs = rastersprites._drawn(rastersprites._unstyled(defs) or defs, grid[:3], _box(shape, grid), [shape])
            assert differ(mine, theirs), f"a wrong {what}: {changed}"
    # the arrowhead turned a quarter the wrong way
    turned = defs.replace('orient="auto"', 'orient="90"')
    mine = rastershapes.tile(turned, [arrow], grid[:3], _box(arrow, grid))
    theirs = rastersprites._drawn(rastersprites._unstyled(defs) or defs, grid[:3], _box(arrow, grid), [arrow])
    assert differ(mine, theirs), "a wrong arrowhead"


def _box(shape: str, grid: tuple[float, float, float, int, int]) -> tuple[int, int, int, int]:
    scale, fx, fy, _ix, _iy = grid
    x0, y0, x1, y1 = rastersprites.extent(shape) or (0.0, 0.0, 0.0, 0.0)
    return (math.floor(x0 * scale + fx), math.floor(y0 * scale + fy), math.ceil(x1 * scale + fx),
            math.ceil(y1 * scale + fy))


@pytest.mark.parametrize("shape", [
    '<rect fill="url(#hatch)" height="13" width="13" x="5" y="5" />',  # a pattern not drawn here
    '<polygon fill="url(#stripes)" points="5,5 20,5 12,9 20,20 5,20" />',  # a pattern in a concave outline
    '<rect class="road" height="13" width="13" x="5" y="5" />',  # painted by the style sheet
    '<rect fill="red" height="13" width="13" x="5" y="5" />',  # a colour by its name
    '<rect fill="#123456" height="13" transform="rotate(5)" width="13" x="5" y="5" />',
    '<path d="M5,5 C10,10 20,10 25,5" fill="none" stroke="#000000" />',  # a curve
    '<path d="m5,5 l10,10" fill="none" stroke="#000000" />',  # relative
    '<polyline fill="none" marker-start="url(#arrowhead)" points="5,5 20,20" stroke="#000000" />',
    '<polyline fill="none" points="5,5 20,20" stroke="#000000" stroke-linejoin="bevel" />',
    '<path d="M5,5 L20,5 L12,20 Z" fill="none" marker-end="url(#arrowhead)" stroke="#000000" />',  # a closed end
    '<polygon fill="#000000" points="5,5 20,20 20,5 5,20" />',  # a bow tie, crossing itself
    '<polygon fill="none" points="5,5 40,8 5,11" stroke="#000000" stroke-width="2" />',  # SVG bevels that mitre
    '<circle cx="9" cy="9" fill="none" r="4" stroke="#000000" stroke-dasharray="2 2" />',  # dashes round a circle
    '<g fill="#000000" transform="scale(2)"><rect height="3" width="3" x="5" y="5" /></g>',
    '<text x="5" y="5">Wien</text>',
])
def test_what_it_does_not_draw_is_left_to_resvg(shape: str) -> None:
    defs = ("<defs><style>.road { stroke: #8c7b62; }</style><marker id=\"arrowhead\" markerHeight=\"6\" "
            "markerUnits=\"strokeWidth\" markerWidth=\"6\" orient=\"auto\" refX=\"3\" refY=\"3\">"
            "<path d=\"M0,0 L6,3 L0,6 z\" fill=\"#d0301c\" /></marker><pattern height=\"4\" id=\"stripes\" "
            "patternUnits=\"userSpaceOnUse\" width=\"4\"><line stroke=\"#7a7a7a\" stroke-width=\"1.6\" x1=\"0\" "
            "x2=\"0\" y1=\"0\" y2=\"4\" /></pattern><pattern height=\"4\" id=\"hatch\" width=\"4\">"
            "<circle cx=\"2\" cy=\"2\" fill=\"#000000\" r=\"1\" /></pattern></defs>")
    assert rastershapes.tile(defs, [shape], (2.0, 0.0, 0.0), (0, 0, 60, 60)) is None
    # the same without what makes it resvg's is drawn here
    assert rastershapes.tile(defs, ['<rect fill="#123456" height="13" width="13" x="5" y="5" />'], (2.0, 0.0, 0.0),
                             (0, 0, 60, 60)) is not None


def test_a_style_sheet_that_can_paint_any_shape_leaves_every_shape_to_resvg() -> None:
    shape = '<rect fill="#123456" height="13" width="13" x="5" y="5" />'
    assert rastershapes.tile("<defs><style>rect { fill: red; }</style></defs>", [shape], (1.0, 0.0, 0.0),
                             (0, 0, 30, 30)) is None
    arrow = '<polyline fill="none" marker-end="url(#tip)" points="5,5 20,20" stroke="#000000" stroke-width="2" />'
    marker = ('<marker id="tip" markerHeight="6" markerUnits="strokeWidth" markerWidth="6" orient="auto" refX="3" '
              'refY="3"><path class="{}" d="M0,0 L6,3 L0,6 z" fill="#d0301c" /></marker>')
    for name, drawn in (("tip", False), ("other", True)):  # an arrowhead the sheet paints is resvg's
        defs = "<defs><style>.tip { fill: #00ff00; }</style>" + marker.format(name) + "</defs>"
        assert (rastershapes.tile(defs, [arrow], (1.0, 0.0, 0.0), (0, 0, 30, 30)) is not None) is drawn, name
    assert rastershapes.painting_classes("<defs><style>.a.b { fill: red; } .c { font-size: 3px; } text { fill: red; }"
                                         "</style></defs>") == (frozenset({"a", "b"}),)


def test_a_faded_group_is_faded_as_one() -> None:
    """Two discs overlapping in a group of opacity 0.5: where they overlap, as faded as where
    they do not (not twice as opaque), as SVG composites a group."""
    shape = ('<g opacity="0.5"><circle cx="10" cy="10" fill="#000000" r="6" /><circle cx="16" cy="10" fill="#000000" r="6" />'
             "</g>")
    tile = rastershapes.tile("<defs></defs>", [shape], (1.0, 0.0, 0.0), (0, 0, 30, 20))
    assert tile is not None
    assert tile.getpixel((13, 10))[3] == tile.getpixel((7, 10))[3] in (127, 128)


def test_a_pattern_of_bands_fills_a_convex_outline_with_its_bands() -> None:
    """A pattern of lines across its tile (Maria's hatching of a face-down counter, here upright
    lines 1.6 wide every 4 units, the tile clipping each to 0.8) is drawn here: a fifth of the
    square covered (resvg, which samples the pattern's picture, a few hundredths less), in
    bands where resvg draws them."""
    defs = ('<defs><pattern height="4" id="stripes" patternUnits="userSpaceOnUse" width="4"><line stroke="#7a7a7a" '
            'stroke-width="1.6" x1="0" x2="0" y1="0" y2="4" /></pattern></defs>')
    shape = '<rect fill="url(#stripes)" height="16" width="16" x="4" y="4" />'
    mine = rastershapes.tile(defs, [shape], (2.0, 0.0, 0.0), (0, 0, 48, 48))
    theirs = rastersprites._drawn(defs, (2.0, 0.0, 0.0), (0, 0, 48, 48), [shape])
    assert mine is not None
    alpha = mine.getchannel("A")
    assert sum(v * n for v, n in enumerate(alpha.histogram())) / 255 == pytest.approx(0.2 * 32 * 32, rel=0.01)
    assert [round(alpha.getpixel((x, 20)) / 51) for x in range(8, 18)] == [5, 3, 0, 0, 0, 0, 0, 0, 5, 3]  # 1 and 0.6
    assert [theirs.getpixel((x, 20))[3] > 64 for x in range(8, 18)] == [True, True] + [False] * 6 + [True, True]
