"""The mail's map images: the shapes over the ground drawn on tiles of their own, and the words
drawn by Pillow, give the picture resvg gives of the whole drawing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.games.maria.board import load_board, load_forces
from pbem.render import rastersvg

EVENTS = [{"type": "move", "path": ["neumarkt", "hemau", "ingolstadt"], "pieces": ["fr_2"], "power": "FR"},
          {"type": "move", "path": ["glatz", "neisse"], "pieces": ["pr_1"], "power": "PR"}]
BOX = (0.0, 522.5, 393.0, 262.0)  # the intro map's south-west, where the moves are
_TEXTS = re.compile(r"<text\b[^>]*>[^<]*</text>")


def intro_map(lang: str, face_down: int = 0, events: list[dict[str, Any]] = EVENTS) -> str:
    """The introductory game's map with ``EVENTS``, its first ``face_down`` generals face down."""
    from pbem.render import reportmap

    start = load_forces(load_board()).start_view(intro=True)
    generals = [{**g, "face_down": n < face_down} for n, g in enumerate(start["generals"])]
    view = {"map": {**start, "generals": generals}, "variant": "intro"}
    return reportmap.map_svg("maria", view, events, lang) or ""


def over(svg: str) -> str:
    """The layers over the ground of ``svg``, tooltips left out."""
    from pbem.render import raster
    from pbem.render.maria.mapview import map_ground

    return raster.without_titles(raster._layers(svg, map_ground(svg))[1])


def ink(picture: Any) -> int:
    """Pixels of ``picture`` (RGB on the paper) that are not paper."""
    from PIL import Image, ImageChops

    paper = Image.new("RGB", picture.size, "#fbf8ef")
    return sum(ImageChops.difference(picture, paper).convert("L").point(lambda v: 1 if v > 24 else 0).histogram()[1:])


@pytest.mark.parametrize("box", [None, BOX])
@pytest.mark.parametrize("by", ["resvg", "aggdraw"])
def test_the_shapes_laid_from_their_tiles_are_the_sheet_resvg_draws(box: Any, by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each element drawn on a tile of its own and laid back where it stands (those that meet
    drawn together, in their order): the same pixels as the whole sheet resvg draws, on the
    whole map and on a crop (where the elements cut by its edge are clipped on their tile);
    the plain shapes drawn by aggdraw (:mod:`pbem.render.rastershapes`) differ by the rounding
    of their anti-aliased edges only (``tests/test_rastershapes.py`` compares them closely)."""
    from PIL import Image, ImageChops

    from pbem.render import raster, rastershapes, rastersprites

    if by == "resvg":
        monkeypatch.setattr(rastershapes, "tile", lambda *_args: None)
    top = _TEXTS.sub("", over(intro_map("en")))
    width = 720 if box is None else 640
    sheet = rastersvg.draw(top, width, box, None)
    view = rastersprites.view_of(box or raster.view_box(top), *sheet.size)
    raster._sprites.cache_clear()
    rastersprites.forget()
    laid = raster._over(Image.new("RGBA", sheet.size), top, view, [])[0]
    raster._sprites.cache_clear()
    if by == "resvg":
        hist = ImageChops.difference(sheet, laid).convert("L").histogram()
        assert sum(hist[4:]) <= 0.0005 * sheet.width * sheet.height, f"{sum(hist[4:])} pixels differ"
    else:  # colours premultiplied by their coverage, each channel's values counted
        hist = ImageChops.difference(sheet.convert("RGBa"), laid.convert("RGBa")).histogram()
        values = [sum(hist[c + 256 * k] for k in range(4)) for c in range(256)]
        pixels = sheet.width * sheet.height
        assert sum(values[4:]) <= 0.02 * pixels and sum(values[48:]) <= 0.0005 * pixels and not any(values[100:]), \
            f"{sum(values[4:])} values differ, {sum(values[48:])} by more than 48, at most {max(i for i, n in enumerate(values) if n)}"
    assert sheet.getchannel("A").getbbox() is not None, "the layers over the ground draw something here"


def test_the_tiles_are_a_fraction_of_the_picture() -> None:
    """The point of the tiles: resvg pays by the pixel, and the pieces, marks and legend cover
    little of the map."""
    from pbem.render import raster, rastersprites

    top = raster._bare(over(intro_map("en")))
    defs = top[top.index(">") + 1:top.index("</defs>") + len("</defs>")]
    body = top[top.index("</defs>") + len("</defs>"):top.rindex("</svg>")]
    view = rastersprites.view_of(raster.view_box(top), 720, 829)
    shapes = [element for kind, element in raster._items(body, frozenset()) if kind == "shape"]
    tiles = rastersprites.draw(defs, [shapes], view)[0]
    assert tiles
    assert sum(t.tile.width * t.tile.height for t in tiles) < 0.35 * 720 * 829


def test_a_map_is_the_same_whether_its_pieces_tiles_are_drawn_kept_stored_or_damaged(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pieces' tiles that resvg draws (here all of them: the plain shapes that aggdraw draws,
    cheaper than read back, are neither kept nor stored), and the whole map's ground with its
    palette and compressed bands, are kept in the process and on disk, named by what they draw:
    a map drawn from a cold cache, from what the process kept, from the disk, or past damaged
    files and an unwritable folder is the same bytes; a tile is drawn alone, so a map whose
    tiles were drawn for other phases (other pieces beside them) is the same bytes as one drawn
    from nothing."""
    from pbem.render import raster, rastershapes, rastersprites
    from pbem.render.maria.mapview import map_ground

    def fresh(cache: Any, svg: str, forget: bool = True) -> tuple[bytes, bytes]:
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        for kept in (rastersprites._folder, raster._folder, raster._layered, raster._sprites):
            kept.cache_clear()
        if forget:
            rastersprites.forget()
            raster._ground.cache_clear()
            raster._ground_png.cache_clear()
        ground = map_ground(svg)
        return raster.whole_map(svg, 720, ground), raster.crop(svg, BOX, 320, ground)

    monkeypatch.setattr(rastershapes, "tile", lambda *_args: None)
    svg = intro_map("en")
    drawn = fresh(tmp_path / "a", svg)
    (folder,) = (tmp_path / "a" / "pbem").glob("map-sprites-*")
    files = sorted(folder.iterdir())
    assert len(files) > 20 and not any(f.name.startswith(".") for f in files)
    (grounds,) = (tmp_path / "a" / "pbem").glob("map-grounds-*")
    picture, encoded = sorted(grounds.iterdir())  # the ground's pixels; its palette, indices and bands
    assert encoded.name == picture.name + "-png"
    assert fresh(tmp_path / "a", svg, forget=False) == drawn  # kept in the process
    assert fresh(tmp_path / "a", svg) == drawn  # read from the disk
    files[0].write_bytes(files[0].read_bytes()[:-10])
    files[1].write_bytes(b"")
    picture.write_bytes(picture.read_bytes()[:-10])
    assert fresh(tmp_path / "a", svg) == drawn
    assert len(list(folder.iterdir())) == len(files)
    damaged = bytearray(encoded.read_bytes())
    damaged[40] ^= 0xFF
    encoded.write_bytes(bytes(damaged))
    assert fresh(tmp_path / "a", svg) == drawn
    assert sorted(grounds.iterdir()) == [picture, encoded] and encoded.read_bytes() != bytes(damaged)
    (tmp_path / "file").write_text("not a folder")
    assert fresh(tmp_path / "file", svg) == drawn
    # another phase's pieces drawn first, into a new cache: the tiles they share serve this map
    other = intro_map("en", events=[EVENTS[1]])
    assert other != svg
    fresh(tmp_path / "b", other)
    assert fresh(tmp_path / "b", svg) == drawn
    rastersprites._folder.cache_clear()
    rastersprites.forget()


def test_a_map_whose_pieces_aggdraw_draws_is_the_same_bytes_from_a_cold_or_a_warm_cache(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plain shapes' tiles are drawn again each time (aggdraw: cheaper than reading them
    back) and stored nowhere; the map is the same bytes drawn twice, from a cold cache or a warm
    one, face-down counters (their hatching) among its pieces."""
    from pbem.render import raster, rastersprites
    from pbem.render.maria.mapview import map_ground

    def fresh(cache: Any, svg: str) -> tuple[bytes, bytes]:
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        for kept in (rastersprites._folder, raster._folder, raster._layered, raster._sprites, raster._ground,
                     raster._ground_png):
            kept.cache_clear()
        rastersprites.forget()
        ground = map_ground(svg)
        return raster.whole_map(svg, 720, ground), raster.crop(svg, BOX, 640, ground)

    svg = intro_map("en", face_down=6)
    drawn = fresh(tmp_path / "a", svg)
    assert fresh(tmp_path / "a", svg) == drawn
    assert fresh(tmp_path / "b", svg) == drawn
    assert not list((tmp_path / "a" / "pbem").glob("map-sprites-*/*")), "nothing here for resvg to draw"
    rastersprites._folder.cache_clear()
    rastersprites.forget()


def test_whole_maps_drawn_one_after_the_other_over_one_ground_are_each_as_drawn_alone() -> None:
    """A phase's whole map is drawn on a picture of the ground that the phase before drew on,
    what it touched restored first: each map is the same bytes as drawn first in a process."""
    from pbem.render import raster
    from pbem.render.maria.mapview import map_ground

    maps = [intro_map("en"), intro_map("en", face_down=6, events=[]), intro_map("en")]

    def alone(svg: str) -> bytes:
        raster._CANVAS.clear()
        raster._layered.cache_clear()
        return raster.whole_map(svg, 720, map_ground(svg))

    first = [alone(svg) for svg in maps]
    assert first[0] != first[1] and first[0] == first[2]
    raster._CANVAS.clear()
    in_turn = []
    for svg in maps:
        raster._layered.cache_clear()
        in_turn.append(raster.whole_map(svg, 720, map_ground(svg)))
    assert in_turn == first
    assert len(raster._CANVAS) == 1, "one picture drawn on for the ground"


def test_a_tile_blended_on_an_opaque_picture_is_alpha_composite() -> None:
    """A crop is drawn in RGB: a piece's tile is pasted through its alpha, which gives the very
    values Pillow's alpha_composite gives on an opaque RGBA picture (every colour and alpha)."""
    from PIL import Image

    tile = Image.frombytes("RGBA", (256, 256), bytes(v for a in range(256) for s in range(256) for v in (s, 255 - s, s // 2, a)))
    under = [(x * 37 + y * 101) % 256 for y in range(256) for x in range(256)]  # each colour under each alpha
    ground = Image.frombytes("RGB", (256, 256), bytes(v for d in under for v in (d, 255 - d, (d * 7) % 256)))
    pasted = ground.copy()
    pasted.paste(tile.convert("RGB"), (0, 0), tile)
    composed = Image.alpha_composite(ground.convert("RGBA"), tile).convert("RGB")
    assert pasted.tobytes() == composed.tobytes()
    assert pasted.tobytes() != ground.tobytes()


def test_the_elements_of_a_layer_are_found_by_their_tags() -> None:
    """Each top-level element whole (a group with its children, an empty element), a comment
    passed over."""
    from pbem.render.rastersprites import elements

    body = '<!-- pieces --><g id="a"><rect x="1" /><g><circle r="2"/></g></g><circle r="2"/><path d="M0,0 L1,1"></path>'
    assert elements(body) == ['<g id="a"><rect x="1" /><g><circle r="2"/></g></g>', '<circle r="2"/>', '<path d="M0,0 L1,1"></path>']


def test_an_arrows_extent_has_room_for_its_head_only_where_it_ends() -> None:
    """A move's arrow (a polyline with an arrowhead at its end) is measured with room for its
    stroke along its length and for its head around its end: its tile is a fraction smaller
    (resvg costs by the pixel), and everything it paints still lies inside it."""
    from pbem.render import rastersprites

    defs = ('<defs><marker id="arrowhead" markerHeight="6" markerUnits="strokeWidth" markerWidth="6" orient="auto" '
            'refX="3" refY="3"><path d="M0,0 L6,3 L0,6 z" fill="#d0301c" /></marker></defs>')
    arrow = ('<polyline fill="none" marker-end="url(#arrowhead)" opacity="0.9" points="100.0,100.0 160.0,130.0 150.0,200.0" '
             'stroke="#d0301c" stroke-dasharray="6 2" stroke-linejoin="round" stroke-width="2.4" />')
    x0, y0, x1, y1 = rastersprites.extent(arrow) or (0.0, 0.0, 0.0, 0.0)
    assert (x0, y0) == pytest.approx((100.0 - 6.8, 100.0 - 6.8))  # the start: room for the stroke (2 widths and 2)
    assert (x1, y1) == pytest.approx((150.0 + 21.2, 200.0 + 21.2))  # the end: room for the head (8 widths and 2)
    scale = 1.5
    for shape in (arrow, arrow.replace(' marker-end="url(#arrowhead)"', ' marker-start="url(#arrowhead)"'),
                  arrow.replace('points="100.0,100.0 160.0,130.0 150.0,200.0"', 'points="150.0,200.0 160.0,130.0 100.0,100.0"')):
        bx0, by0, bx1, by1 = rastersprites.extent(shape) or (0.0, 0.0, 0.0, 0.0)
        # drawn over a sheet wider than its extent on every side: nothing outside it
        tile = rastersprites._drawn(defs, (scale, 0.0, 0.0), (0, 0, 400, 400), [shape])
        px0, py0, px1, py1 = tile.getchannel("A").getbbox() or (0, 0, 0, 0)
        assert bx0 * scale <= px0 and by0 * scale <= py0 and px1 <= bx1 * scale and py1 <= by1 * scale, shape


def test_a_tile_of_shapes_naming_no_class_is_drawn_without_a_style_sheet_that_cannot_paint_them() -> None:
    """resvg reads the style sheet for every tile: it is left out where no rule can reach the
    tile's shapes (rules for classes, for words, for the drawing's fonts), kept where one can."""
    from pbem.render.rastersprites import _unstyled

    sheet = "<defs><style><![CDATA[\nsvg { font-family: 'DejaVu Sans'; }\ntext { fill: #111; }\n.lbl.major, .road { stroke: #333; }\n]]></style><marker id=\"m\" /></defs>"
    assert _unstyled(sheet) == '<defs><marker id="m" /></defs>'
    for reaching in ("rect { fill: red; }", "svg { fill: red; }", "g > .road { stroke: red; }", "* { opacity: 0.5; }"):
        assert _unstyled(f"<defs><style>.a {{ fill: red; }} {reaching}</style></defs>") is None, reaching
    assert _unstyled('<defs><marker id="m" /></defs>') is None  # no sheet: nothing to leave out


def test_crops_moved_by_whole_pixels_draw_their_pieces_on_the_same_grid() -> None:
    """A crop's box moves from phase to phase by whole pixels of its scale (onto the tiles'
    grid): its pieces are then drawn on the same grid, so a piece that stayed is the same tile,
    kept from the phase before."""
    from pbem.render import rastersprites, rastertiles

    view = (0.0, 0.0, 842.5, 970.0)
    grids = set()
    for box in [(200.3, 300.7, 320.0, 213.3), (230.9, 310.2, 320.0, 213.3), (180.0, 290.0, 320.0, 213.3)]:
        drawn, _step = rastertiles.steady_box(box, 640, view)
        scale, fx, fy, ix, iy = rastersprites.grid(rastersprites.view_of(drawn, 640, 427))
        assert 0 <= fx < 1 and 0 <= fy < 1
        grids.add((scale, fx, fy))
    assert len(grids) == 1, grids


def test_a_layer_the_atlas_cannot_measure_is_drawn_whole() -> None:
    """An element moved by a transform has no extent this can read from its coordinates: the
    layer is then drawn by resvg as one sheet, the same picture."""
    import io

    from PIL import Image, ImageChops

    from pbem.render import raster

    head = ('<svg height="100%" viewBox="0 0 200 100" width="100%" xmlns="http://www.w3.org/2000/svg">'
            '<defs><style type="text/css">.x { fill: #336699; }</style></defs>')
    ground = head + '<rect fill="#eeddcc" height="100" width="200" x="0" y="0" />'
    top = '<g transform="translate(20 10)"><rect class="x" height="30" width="40" x="10" y="10" /></g><circle cx="150" cy="50" fill="#aa0000" r="20" /></svg>'
    layered = raster.whole_map(ground + top, 200, len(ground))
    at_once = raster.whole_map(ground + top, 200)
    pictures = [Image.open(io.BytesIO(png)).convert("RGB") for png in (layered, at_once)]
    hist = ImageChops.difference(*pictures).convert("L").histogram()
    assert sum(hist[24:]) < 0.002 * sum(hist), f"{sum(hist[24:])} pixels differ"  # the odd anti-aliased edge
    assert pictures[0].getpixel((50, 40))[2] > 120, "the moved rectangle is drawn"


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_the_words_drawn_by_pillow_stand_where_resvg_draws_them(lang: str) -> None:
    """Town names, counters' names and numbers, title and legend drawn by Pillow with the fonts
    the drawing names: the same words in the same places as resvg draws them, to a pixel of
    hinting; off by two pixels they would not be."""
    from PIL import Image, ImageChops, ImageFilter

    from pbem.render import rastersprites, rastertext

    top = over(intro_map(lang))
    d = top.index("</defs>") + len("</defs>")
    only = top[:d] + '<rect fill="#fbf8ef" height="4000" width="4000" x="-1000" y="-1000" />' + "".join(_TEXTS.findall(top)) + "</svg>"
    theirs = rastersvg.draw(only, 640, BOX, None).convert("RGB")
    view = rastersprites.view_of(BOX, *theirs.size)
    items = rastertext.words(top)

    def ours(dx: float) -> Any:
        picture = Image.new("RGB", theirs.size, "#fbf8ef")
        rastertext.draw(picture, items, view.scale, view.dx + dx, view.dy)
        return picture

    def apart(picture: Any) -> int:
        blurred = [p.convert("L").filter(ImageFilter.GaussianBlur(1.0)) for p in (picture, theirs)]
        return sum(ImageChops.difference(*blurred).histogram()[48:])

    drawn = ours(0.0)
    assert abs(ink(drawn) - ink(theirs)) < 0.15 * ink(theirs)
    assert apart(drawn) < 0.12 * ink(theirs)
    assert apart(ours(2.0)) > 0.2 * ink(theirs)


def test_chinese_is_drawn_in_noto_sans_cjk_tc() -> None:
    from pbem.render import rastertext

    assert rastertext.font(True, False, 12.0).getname() == ("Noto Sans CJK TC", "Regular")
    assert rastertext.font(True, True, 12.0).getname() == ("Noto Sans CJK TC", "Bold")
    assert rastertext.font(False, True, 12.0).getname() == ("DejaVu Sans", "Bold")
    assert rastertext._runs("FR  法國（1）") == [(False, "FR  "), (True, "法國（"), (False, "1"), (True, "）")]


def test_the_style_sheet_paints_a_name_with_its_halo() -> None:
    from pbem.render import rastertext

    svg = ('<style type="text/css"><![CDATA[\ntext { font-family: x; }\n.lbl { font-size: 7.4px; fill: #1d1d1d; paint-order: stroke; '
           'stroke: #fbf8ef;\n stroke-width: 2.6px; }\n.lbl.major { font-weight: bold; }\n.rank { text-anchor: middle; dominant-baseline: central; }\n]]></style>'
           '<text class="lbl major" style="font-size:8.8px" text-anchor="end" x="5" y="6">Prag &amp; Wien</text>'
           '<text class="rank" fill="#ffffff" x="1" y="2">3</text>')
    name, rank = rastertext.words(svg)
    assert (name.text, name.size, name.bold, name.anchor, name.halo, name.halo_width) == ("Prag & Wien", 8.8, True, "end", "#fbf8ef", 2.6)
    assert (rank.fill, rank.anchor, rank.central, rank.halo, rank.bold) == ("#ffffff", "middle", True, None, False)


def test_a_picture_over_its_ground_keeps_the_grounds_colours_and_adds_its_own() -> None:
    """The whole map's PNG is encoded against its ground: where the picture is the ground, the
    ground's palette colour; where it is not, the nearest of the ground's colours and those the
    picture adds (a red the ground has not); a valid PNG that Pillow reads back, and the same
    bytes for the same picture."""
    import io

    from PIL import Image, ImageDraw

    from pbem.render import rasterpng

    ground = Image.new("RGB", (300, 200), "#fbf8ef")
    pen = ImageDraw.Draw(ground)
    for i in range(12):
        pen.ellipse((i * 24, 20 + i * 10, i * 24 + 40, 60 + i * 10), fill=(200 - 9 * i, 210, 190 + 4 * i))
    base = rasterpng.ground(ground)
    assert rasterpng.over_ground(base, ground) == rasterpng.over_ground(base, ground.copy())
    plain = Image.open(io.BytesIO(rasterpng.over_ground(base, ground)))
    plain.load()
    assert plain.mode == "P" and plain.convert("RGB").tobytes() == base.indices.convert("RGB").tobytes()
    picture = ground.copy()
    ImageDraw.Draw(picture).rectangle((100, 150, 130, 170), fill="#c8102e")
    png = rasterpng.over_ground(base, picture)
    drawn = Image.open(io.BytesIO(png)).convert("RGB")
    assert drawn.getpixel((115, 160)) == (0xc8, 0x10, 0x2e)
    assert drawn.crop((0, 0, 300, 140)).tobytes() == base.indices.convert("RGB").crop((0, 0, 300, 140)).tobytes()


@pytest.mark.parametrize("height", [9 * 32 + 5, 9 * 32 + 16, 9 * 32 + 32])
def test_runs_of_changed_bands_between_the_grounds_bands_read_back_whole(height: int) -> None:
    """Bands a picture changes, several in a row and apart, compressed together between the
    ground's own bands (those of a band compared that it leaves alone too; the last band full
    or not): the PNG reads back to the picture's colours everywhere."""
    import io

    from PIL import Image, ImageDraw

    from pbem.render import rasterpng

    assert rasterpng.BAND == 32 and rasterpng.BAND % rasterpng.SUB == 0
    ground = Image.new("RGB", (120, height), "#fbf8ef")
    ImageDraw.Draw(ground).ellipse((10, 10, 110, 250), fill="#7fa36b")
    base = rasterpng.ground(ground)
    picture = ground.copy()
    pen = ImageDraw.Draw(picture)
    band, sub = rasterpng.BAND, rasterpng.SUB
    for top, bottom in ((0, 3 * band + 4), (5 * band + 2, 5 * band + 9), (6 * band + sub + 3, 6 * band + sub + 6),
                        (8 * band + 1, 9 * band + 4)):
        pen.rectangle((20, top, 60, bottom), fill="#c8102e")
    png = rasterpng.over_ground(base, picture)
    assert png == rasterpng.over_ground(base, picture.copy())
    drawn = Image.open(io.BytesIO(png)).convert("RGB")
    expected = base.indices.convert("RGB")  # the ground's two colours, and the red where it lies
    expected.paste(picture.crop((20, 0, 61, picture.height)), (20, 0))
    assert drawn.tobytes() == expected.tobytes()


@pytest.mark.parametrize("attrs", ['transform="rotate(30)"', 'opacity="0.5"', 'style="font-style:italic"',
                                   'stroke="#fff" style="paint-order:normal"', 'x="1 2 3"'])
def test_words_painted_in_a_way_pillow_does_not_draw_are_left_to_resvg(attrs: str) -> None:
    """A word rotated, faded, slanted, stroked over its fill or placed glyph by glyph is not
    drawn by Pillow wrongly: the layer goes to resvg whole, words and all."""
    import io

    from PIL import Image, ImageChops

    from pbem.render import raster, rastertext

    text = f'<text class="n" x="40" y="50" {attrs}>Prag</text>'.replace('x="40" y="50" x="1 2 3"', 'x="1 2 3" y="50"')
    with pytest.raises(rastertext.Unsupported):
        rastertext.words('<style type="text/css">.n { font-size: 20px; }</style>' + text)
    head = ('<svg height="100%" viewBox="0 0 200 100" width="100%" xmlns="http://www.w3.org/2000/svg">'
            '<defs><style type="text/css">.n { font-size: 20px; }</style></defs>')
    ground = head + '<rect fill="#eeddcc" height="100" width="200" x="0" y="0" />'
    svg = ground + '<circle cx="150" cy="50" fill="#aa0000" r="20" />' + text + "</svg>"
    pictures = [Image.open(io.BytesIO(png)).convert("RGB") for png in (raster.crop(svg, (0, 0, 200, 100), 200, len(ground)),
                                                                        raster.crop(svg, (0, 0, 200, 100), 200))]
    hist = ImageChops.difference(*pictures).convert("L").histogram()
    assert sum(hist[24:]) < 0.002 * sum(hist), f"{sum(hist[24:])} pixels differ"


def test_a_crops_box_is_widened_to_a_steady_scale_on_the_tiles_grid() -> None:
    """The crop's scale is held to steps of 1/8 (so that the tiles of a step serve every crop):
    the box is widened to the next step about its centre, kept inside the drawing, starts on a
    pixel of the tiles' grid and still holds the box asked for (to the pixel); one that cannot
    widen inside the drawing keeps its own scale."""
    from pbem.render.rastertiles import steady_box

    view = (0.0, 0.0, 842.5, 970.0)
    for box in [(0.0, 522.5, 393.0, 262.0), (200.3, 300.7, 320.0, 213.3), (400.0, 100.0, 420.0, 280.0),
                (522.5, 700.0, 320.0, 213.3)]:
        (x, y, w, h), step = steady_box(box, 640, view)
        assert step in [0.5 * 1.125 ** k for k in range(8)], step
        assert w == 640 * step and abs(h / w - box[3] / box[2]) < 1e-9
        assert (x / step).is_integer() and (y / step).is_integer()
        assert 0 <= x and x + w <= 842.5 + step and 0 <= y and y + h <= 970.0 + step
        assert x <= box[0] + step and box[0] + box[2] <= x + w + step
        assert y <= box[1] + step and box[1] + box[3] <= y + h + step
        assert steady_box((x, y, w, h), 640, view) == ((x, y, w, h), step)
    assert steady_box((0.0, 0.0, 200.0, 100.0), 200, (0.0, 0.0, 200.0, 100.0)) == ((0.0, 0.0, 200.0, 100.0), 1.0)


def test_a_crops_ground_from_its_tiles_is_the_drawing_of_its_box() -> None:
    """The ground assembled from tiles drawn one by one is what resvg draws of the whole box (but
    for the odd anti-aliased edge and hinted letter): no seam, nothing a tile left out."""
    from PIL import ImageChops

    from pbem.render import raster, rastertiles
    from pbem.render.maria.mapview import map_ground

    svg = intro_map("en")
    ground = rastersvg.LANG.sub("", raster.without_titles(raster._layers(svg, map_ground(svg))[0]), count=1)
    box, step = rastertiles.steady_box((200.3, 300.7, 320.0, 213.3), 640, raster.view_box(svg))
    tiles = rastertiles.ground(ground, box, step, 640, 427).convert("RGB")
    whole = rastersvg.draw(ground, 640, box, rastersvg.PAPER).convert("RGB")
    hist = ImageChops.difference(tiles, whole).convert("L").histogram()
    assert sum(hist[24:]) < 0.03 * 640 * 427 and sum(hist[64:]) < 0.002 * 640 * 427, (sum(hist[24:]), sum(hist[64:]))
    assert ink(tiles) > 0.05 * 640 * 427  # roads, towns, tints: not a blank picture


def test_a_crop_is_the_same_whether_its_tiles_are_drawn_stored_damaged_or_unwritable(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiles, and the glyphs of the words, kept on disk are a speed-up only: read back, the
    same crop; a damaged file is drawn again (and replaced), and a cache folder that cannot be
    made costs only time."""
    from pbem.render import raster, rasterglyphs, rasterstore, rastertext, rastertiles
    from pbem.render.maria.mapview import map_ground

    svg = intro_map("zh-TW")
    ground = map_ground(svg)

    def fresh(cache: Any) -> bytes:
        monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
        for kept in (rastertiles._folder, rastertiles._tile, raster._layered, rastertext.glyph, rastertext.word):
            kept.cache_clear()
        rasterglyphs.forget()
        return raster.crop(svg, BOX, 640, ground)

    drawn = fresh(tmp_path)
    (folder,) = (tmp_path / "pbem").glob("map-tiles-*")
    files = sorted(folder.iterdir())
    assert len(files) == 6 and not any(f.name.startswith(".") for f in files)
    (glyphs,) = (tmp_path / "pbem").glob("map-glyphs-*")
    atlases = sorted(glyphs.iterdir())  # a file per font, size and halo: Chinese and Latin words
    assert len(atlases) >= 2 and sum(f.stat().st_size for f in atlases) > 2000
    stored = [f.read_bytes() for f in atlases]
    assert fresh(tmp_path) == drawn
    assert rastertext.glyph.cache_info().misses > 50
    assert sorted(glyphs.iterdir()) == atlases and [f.read_bytes() for f in atlases] == stored  # all read, none written
    for atlas in atlases:
        damaged = bytearray(atlas.read_bytes())
        damaged[-3] ^= 0xFF
        atlas.write_bytes(bytes(damaged))
    assert fresh(tmp_path) == drawn
    assert all(rasterstore.read(f) is not None for f in atlases)  # rendered again and stored
    assert fresh(tmp_path) == drawn
    files[0].write_bytes(files[0].read_bytes()[:-100])
    damaged = bytearray(files[1].read_bytes())
    damaged[50] ^= 0xFF
    files[1].write_bytes(bytes(damaged))
    files[2].write_bytes(b"")
    kept = [f.read_bytes() for f in files[3:]]
    assert fresh(tmp_path) == drawn
    assert [f.read_bytes() for f in files[3:]] == kept
    assert all(rasterstore.read(f, rastertiles.TILE ** 2 * 3) is not None for f in files)
    (tmp_path / "file").write_text("not a folder")
    assert fresh(tmp_path / "file") == drawn
    rastertiles._folder.cache_clear()
    rasterglyphs.forget()


def test_a_tile_inside_a_clip_rectangle_is_drawn_without_the_clip() -> None:
    """The sectors' tints are clipped to the map: a tile that the map's rectangle holds leaves
    the clip out (resvg's mask costs time) and is the same picture; one the edge crosses keeps it."""
    from PIL import ImageChops

    from pbem.render import raster, rastertiles
    from pbem.render.maria.mapview import map_ground

    svg = intro_map("en")
    ground = rastersvg.LANG.sub("", raster.without_titles(raster._layers(svg, map_ground(svg))[0]), count=1)
    inside, edge = (160.0, 520.0, 128.0, 128.0), (0.0, 520.0, 128.0, 128.0)
    part = rastersvg.within(ground, inside)
    assert "clip-path=" in part and "clip-path=" not in rastertiles._unclipped(part, inside)
    assert "clip-path=" in rastertiles._unclipped(rastersvg.within(ground, edge), edge)
    clipped = rastersvg.draw(part, 256, inside, rastersvg.PAPER)
    assert ImageChops.difference(clipped, rastersvg.draw(rastertiles._unclipped(part, inside), 256, inside, rastersvg.PAPER)).getbbox() is None


def test_pictures_written_long_ago_are_pruned(tmp_path: Any) -> None:
    """A long campaign's pieces' tiles do not pile up: those written more than UNUSED_DAYS days
    ago are removed, the rest (and what is not a file) left alone, and a picture read back
    after its file is gone is drawn again."""
    import os
    import time

    from pbem.render import cachedir, rasterstore

    old, new = tmp_path / "old", tmp_path / "new"
    rasterstore.write(old, b"\0" * 16)
    rasterstore.write(new, b"\1" * 16)
    (tmp_path / "folder").mkdir()
    month = time.time() - 31 * 86400
    os.utime(old, (month, month))
    os.utime(tmp_path / "folder", (month, month))
    cachedir.remove_unused_files(tmp_path)
    assert not old.exists() and rasterstore.read(old, 16) is None
    assert rasterstore.read(new, 16) == b"\1" * 16 and (tmp_path / "folder").is_dir()
    cachedir.remove_unused_files(tmp_path / "missing")  # no folder: nothing to do, no error


def test_a_grounds_encoding_reads_back_as_made_or_not_at_all() -> None:
    """What the whole map's PNGs reuse of their ground, stored and read back, is what was made;
    bytes that do not fit the picture are refused (and the ground is then made again)."""
    from PIL import Image, ImageDraw

    from pbem.render import rasterpng

    rgb = Image.new("RGB", (50, 70), "#fbf8ef")
    ImageDraw.Draw(rgb).ellipse((5, 5, 40, 60), fill="#336699", outline="#000000")
    made = rasterpng.ground(rgb)
    data = rasterpng.ground_bytes(made)
    back = rasterpng.ground_of(rgb, data)
    assert back is not None
    assert (back.palette, back.raw, back.packed, back.adlers) == (made.palette, made.raw, made.packed, made.adlers)
    assert back.indices.tobytes() == made.indices.tobytes()
    over = rgb.copy()
    ImageDraw.Draw(over).rectangle((10, 30, 20, 45), fill="#cc0000")
    assert rasterpng.over_ground(back, over, [(10, 30, 21, 46)]) == rasterpng.over_ground(made, over, [(10, 30, 21, 46)])
    for bad in (data[:-1], data + b"\0", b"", data[:5], rasterpng.ground_bytes(rasterpng.ground(rgb.crop((0, 0, 50, 69))))):
        assert rasterpng.ground_of(rgb, bad) is None
