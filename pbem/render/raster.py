"""Maps as PNG images, for mail bodies.

Gmail and Outlook show no ``<svg>`` in a mail, so a report mail's HTML shows the map as PNG
images cited by ``cid:`` (RFC 2392): the whole board, and where the phase had moves or battles a
crop around them drawn large enough to read on a phone. The SVG travels once, for zooming.

The SVG is drawn by resvg (the ``resvg-py`` wheel: the Rust renderer in one self-contained
binary wheel, no system library; cairosvg would need libcairo and four more Python packages),
then Pillow reduces it to a palette of about 40 colours (:mod:`pbem.render.rasterpng`).

The board under the pieces (sectors, tints, roads, cities: the game's presentation says where
those layers end, ``map_ground``) is most of resvg's work and the same in every phase: the whole
map's is drawn once per size, and kept for the process and on disk with the palette, indices
and compressed bands its PNGs reuse (:mod:`pbem.render.rasterstore`; a daily run reads them,
about 15 ms, where drawing and encoding them took 0.35 s); a crop's is assembled from square tiles on a fixed
grid, each drawn once (:mod:`pbem.render.rastertiles`: kept for the process and on disk, the
crop's scale held to a few steps so that the tiles serve every phase). Over it, each image lays
the layers above in their order: their shapes drawn each on a tile of its own
(:mod:`pbem.render.rastersprites`: the pieces cover a tenth of the map; the plain shapes drawn by
aggdraw, :mod:`pbem.render.rastershapes`, the rest by resvg and kept, in the process and on
disk, for the days the piece stands still), their
words drawn by Pillow (:mod:`pbem.render.rastertext`:
fonts opened once per process, each glyph rendered once and kept on disk:
:mod:`pbem.render.rasterglyphs`). The picture is the one a single
drawing gives, but for the rounding of a few anti-aliased edges and the hinting of the words.

Deterministic: system fonts are not searched; only the font files :mod:`pbem.render.rastersvg` names are loaded (DejaVu
Sans for Latin text, Noto Sans CJK for Chinese: Debian's fonts-dejavu-core and fonts-noto-cjk),
so the same SVG gives the same bytes on every machine with those packages and the same resvg-py
and Pillow wheels.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path

from PIL import Image

from pbem.render import rasterglyphs, rasterpng, rastersprites, rasterstore, rastertext
from pbem.render.rastersvg import (
    CIRCLE,
    LANG,
    PAPER,
    TEXT,
    Box,
    draw,
    near,
    view_box,
    within,
    without_titles,
)


def whole_map(svg: str, width: int, ground: int = 0, recurring: Sequence[tuple[int, int]] = ()) -> bytes:
    """The whole drawing, ``width`` pixels wide, without its words: at that size no name can be
    read (the crop and the SVG carry them), and without them the picture is the same in every
    language, so it is drawn once for all of them.

    ``ground`` (when not 0) is the length of the drawing's first layers, those that are the same
    in every phase (:meth:`pbem.games.base.Presentation.map_ground`): they are drawn once per
    process and size, and each phase draws only the layers above them, laid over that picture.
    ``recurring``: spans of later layers that many phases draw alike
    (:meth:`~pbem.games.base.Presentation.map_recurring`, Maria's legend); one that nothing
    drawn before it meets is drawn with the ground."""
    if ground:
        head = _head(svg, ground)
        for start, end in sorted(recurring, reverse=True):
            if not ground <= start < end <= len(svg):
                continue
            before = _wordless(svg[ground:start])
            if _apart(LANG.sub("", before, count=1), _kept(svg, ((start, end),), "", _bare), _styled(head)):
                top = LANG.sub("", _wordless(head) + before + _wordless(svg[end:]), count=1)  # _bare, the part before measured once
                return _layered(_kept(svg, ((0, ground), (start, end)), "</svg>", _bare), top, width, None)
        return _layered(_kept(svg, ((0, ground),), "</svg>", _bare), _bare(head + svg[ground:]), width, None)
    return _png(_bare(svg), width, None)


# What was made of parts of the last drawings that many phases draw alike (the ground, the
# legend): (the parts, what follows them, how it was made, what it gave), the latest first.
_KEPT: list[tuple[tuple[str, ...], str, Callable[[str], str], str]] = []


def _kept(svg: str, spans: tuple[tuple[int, int], ...], tail: str, make: Callable[[str], str]) -> str:
    """``make`` of ``svg``'s ``spans`` followed by ``tail``, made once: a part drawn lately is
    found again by comparing it with ``svg`` where it stands (no copy of the parts, no hash of
    their text, the same string as before, whose hash Python keeps)."""
    for parts, kept_tail, kept_make, made in _KEPT:
        if (kept_make is make and kept_tail == tail and len(parts) == len(spans)
                and all(b - a == len(part) and svg.startswith(part, a) for part, (a, b) in zip(parts, spans, strict=True))):
            return made
    parts = tuple(svg[a:b] for a, b in spans)
    made = make("".join(parts) + tail)
    _KEPT.insert(0, (parts, tail, make, made))
    del _KEPT[8:]
    return made


@lru_cache(maxsize=8)
def _apart(before: str, layer: str, styled: frozenset[str]) -> bool:
    """Whether no shape of ``before`` (part of a drawing, without words) meets one of ``layer``
    (both measured by their coordinates, their elements found as :func:`_over` finds them,
    ``styled`` the classes the style sheet paints: the pieces' tiles then find them measured)."""
    try:
        mine = _layer_bounds(layer, styled)
        theirs = _bounds(before, styled)
    except rastersprites.Unmeasured:
        return False
    if not mine:
        return True
    # only what meets the layer's whole extent can meet one of its shapes
    x0, y0 = min(a[0] for a in mine), min(a[1] for a in mine)
    x1, y1 = max(a[2] for a in mine), max(a[3] for a in mine)
    near = [b for b in theirs if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1]
    return not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3] for a in mine for b in near)


@lru_cache(maxsize=8)
def _layer_bounds(layer: str, styled: frozenset[str]) -> tuple[tuple[float, float, float, float], ...]:
    """:func:`_bounds` of a layer that many phases draw alike (the legend), kept."""
    return _bounds(layer, styled)


def _bounds(part: str, styled: frozenset[str]) -> tuple[tuple[float, float, float, float], ...]:
    """The bounds of the shapes of ``part`` (part of a drawing, without words)."""
    out = []
    for kind, element in _items(part, styled):
        box = rastersprites.extent(element) if kind == "shape" else None
        if box is not None:
            out.append(box)
    return tuple(out)


@lru_cache(maxsize=8)
def _styled(head: str) -> frozenset[str]:
    """The classes the style sheet in ``head`` (a drawing's tag and definitions) paints."""
    return frozenset(c for _spec, _place, classes, _decls in rastertext.style_rules(head) for c in classes)


def _layers(svg: str, ground: int) -> tuple[str, str]:
    """The drawing's first ``ground`` characters as a drawing, and the rest as another (with the
    same ``<svg>`` tag and definitions)."""
    return svg[:ground] + "</svg>", _head(svg, ground) + svg[ground:]


def _head(svg: str, ground: int) -> str:
    """The drawing's ``<svg>`` tag and definitions (found in its first ``ground`` characters),
    which the layers drawn apart from those share."""
    defs = svg.find("</defs>", 0, ground)
    return svg[:defs + len("</defs>")] if defs >= 0 else svg[:svg.index(">", 0, ground) + 1]


def _bare(svg: str) -> str:
    """``svg`` without its words and tooltips, in no language."""
    return LANG.sub("", _wordless(svg), count=1)


def _untitled(svg: str) -> str:
    """``svg`` without its tooltips, in no language (a crop's ground: its words are drawn)."""
    return LANG.sub("", without_titles(svg), count=1)


def _wordless(svg: str) -> str:
    """``svg`` (a drawing or a run of its elements) without its words and tooltips."""
    return without_titles(TEXT.sub("", svg))


def crop(svg: str, box: Box, width: int, ground: int = 0) -> bytes:
    """The part ``box`` (x, y, w, h in view units) of the drawing, ``width`` pixels wide;
    ``ground`` as for :func:`whole_map` (the layers under the pieces, then assembled from tiles
    drawn once: :mod:`pbem.render.rastertiles`, which widens the box to a steady scale and moves
    it onto the tiles' pixel grid)."""
    if ground:
        from pbem.render import rastertiles

        drawn = rastertiles.steady_box(box, width, view_box(svg))[0]
        # the words over the ground all stay: Pillow passes those the box cannot show at no
        # cost, and both languages' crops then cut their shapes into the same runs, drawn once
        return _layered(_kept(svg, ((0, ground),), "</svg>", _untitled),
                        without_titles(CIRCLE.sub(near(drawn), _head(svg, ground) + svg[ground:])), width, box)
    return _png(within(svg, box), width, box)


@lru_cache(maxsize=64)
def _png(svg: str, width: int, box: Box | None) -> bytes:
    return rasterpng.palette_png(draw(svg, width, box, PAPER).convert("RGB"))


@lru_cache(maxsize=64)
def _layered(ground: str, top: str, width: int, box: Box | None) -> bytes:
    """``top`` over ``ground``: the whole map (``box`` None), or the crop ``box`` (widened to a
    steady scale, its ground assembled from tiles: :mod:`pbem.render.rastertiles`)."""
    if box is None:
        base = _ground(ground, width)
        canvas, touched = _canvas(base)
    else:
        from pbem.render import rastertiles

        box, step = rastertiles.steady_box(box, width, view_box(ground))
        size = (width, max(1, round(width * box[3] / box[2])))
        base = canvas = rastertiles.ground(ground, box, step, *size, "RGB")  # its own, drawn on
        touched = []
    x, y, w, h = box if box is not None else view_box(top)
    view = rastersprites.view_of((x, y, w, h), base.width, base.height)
    drawn: list[rasterpng.Box] | None
    try:
        picture, drawn = _over(canvas, top, view, touched)
    except (rastersprites.Unmeasured, rastertext.Unsupported):  # drawn whole by resvg, words and all
        if box is not None and base is canvas:  # a crop's ground, drawn on before the words it cannot draw: assembled again
            base = rastertiles.ground(ground, box, step, *size)
        sheet = draw(top, width, box, None)
        if sheet.size != base.size:
            raise ValueError("the drawing's layers are not of one size") from None
        picture, drawn = Image.alpha_composite(base.convert("RGBA") if base.mode != "RGBA" else base, sheet), None
    if box is None:  # the whole map: encoded against its ground, which every phase shares
        return rasterpng.over_ground(_ground_png(ground, width), picture, drawn)
    rasterglyphs.keep()  # the glyphs its words needed, for the next runs
    return rasterpng.palette_png(picture if picture.mode == "RGB" else picture.convert("RGB"))


@lru_cache(maxsize=2)
def _ground_png(ground: str, width: int) -> rasterpng.Ground:
    """The whole map's ground as its PNGs reuse it (palette, indices, compressed bands): made
    once, kept for the process and on disk."""
    rgb = _ground(ground, width).convert("RGB")
    folder, name = _folder(), _ground_name(ground, width) + "-png"
    made: list[rasterpng.Ground] = []

    def make() -> bytes:
        made.append(rasterpng.ground(rgb))
        return rasterpng.ground_bytes(made[0])

    data = rasterstore.kept(folder, name, make)
    return made[0] if made else rasterpng.ground_of(rgb, data) or rasterpng.ground(rgb)


# The whole map's grounds (pictures never changed), each with a picture drawn over it and the
# boxes that drawing touched: a phase draws on it once those are the ground again, not on a
# copy of the whole ground.
_CANVAS: list[tuple[Image.Image, Image.Image, list[rasterpng.Box]]] = []


def _canvas(base: Image.Image) -> tuple[Image.Image, list[rasterpng.Box]]:
    """A picture equal to ``base`` to draw on, and the list where each box is to be noted before
    it is drawn on, for the next call to restore."""
    for kept, picture, touched in _CANVAS:
        if kept is base:
            for box in touched:
                picture.im.paste(base.im.crop(box), box)
            touched.clear()
            return picture, touched
    picture, touched = base.copy(), []
    _CANVAS.insert(0, (base, picture, touched))
    del _CANVAS[2:]
    return picture, touched


def _over(canvas: Image.Image, top: str, view: rastersprites.View,
          touched: list[rasterpng.Box]) -> tuple[Image.Image, list[rasterpng.Box] | None]:
    """``top`` (a drawing of the layers over the ground) laid over ``canvas`` (the ground, to
    draw on, each box noted in ``touched`` before it is drawn on): its shapes drawn where they
    stand (:mod:`pbem.render.rastersprites`), its words by Pillow
    (:mod:`pbem.render.rastertext`), one after the other in the drawing's order; and the boxes
    outside which the picture is the ground (``None`` once words are drawn)."""
    defs = top.find("</defs>")
    cut = defs + len("</defs>") if defs >= 0 else top.index(">") + 1
    head, body = top[:cut], top[cut:top.rindex("</svg>")]
    rules = rastertext.style_rules(head)
    styled = _styled(head)
    steps: list[tuple[str, list[str]]] = []  # runs of shapes, and words, in drawing order
    for kind, element in _items(body, styled):
        if kind == "shape" and steps and steps[-1][0] == "shape":
            steps[-1][1].append(element)
        else:
            steps.append((kind, [element]))
    runs = tuple(tuple(elements) for kind, elements in steps if kind == "shape")
    sprites = iter(_sprites(head[head.index(">") + 1:], runs, view))  # the <svg> tag names the language
    picture = canvas
    target = picture.im  # laid on in Pillow's core: Image.alpha_composite's wrapping cost more than the work
    opaque = picture.mode == "RGB"
    # the view in its units, and how far out a word may stand and still reach into it (no
    # character wider than 20 units, none standing higher or lower than 40)
    west, north = -view.dx / view.scale, -view.dy / view.scale
    east, south = west + view.width / view.scale, north + view.height / view.scale
    drawn: list[rasterpng.Box] | None = []
    pending: list[rastertext.Words] = []  # words to paint before the next shapes (in one call)
    for kind, elements in steps:
        if kind == "shape":
            if pending:
                rastertext.draw(picture, pending, view.scale, view.dx, view.dy)
                pending = []
            for sprite in next(sprites):
                tile = sprite.tile
                tile.load()
                box = (sprite.x, sprite.y, sprite.x + tile.width, sprite.y + tile.height)
                touched.append(box)
                if opaque:  # the tile's colours blended by its alpha: alpha_composite's very sums on an opaque picture
                    target.paste(tile.im.convert("RGB"), box, tile.im)
                else:
                    target.paste(Image.core.alpha_composite(target.crop(box), tile.im), box)
                if drawn is not None:
                    drawn.append(box)
            continue
        at = _TEXT_AT.search(elements[0])
        if at and "transform" not in elements[0]:
            tx, ty, reach = float(at.group(1)), float(at.group(2)), 20.0 * (len(elements[0]) - elements[0].index(">"))
            if tx + reach < west or tx - reach > east or ty + 40 < north or ty - 40 > south:
                continue
        m = _TEXT_ELEMENT.match(elements[0])
        words = rastertext.element(m.group(1), m.group(2), rules) if m else None
        if words is not None:
            if drawn is not None:  # the first words: the picture may differ anywhere
                touched.append((0, 0, picture.width, picture.height))
            pending.append(words)
            drawn = None
    if pending:
        rastertext.draw(picture, pending, view.scale, view.dx, view.dy)
    return picture, drawn


_TEXT_ELEMENT = re.compile(r"<text\b([^>]*)>([^<]*)</text>$")
_TEXT_AT = re.compile(r' x="(-?[\d.]+)" y="(-?[\d.]+)"')
_PLAIN_GROUP = re.compile(r'<g((?: (?:id|class)="[^"]*")*) ?>')
_TAG = re.compile(r"<(/?)[\w:-][^>]*>")  # a tag (not a comment nor a declaration), as rastersprites.elements reads them


def forget() -> None:
    """Forget what this process kept of the elements it drew: their measures, the pieces'
    tiles (the disk keeps those: :mod:`pbem.render.rastersprites`)."""
    _items.cache_clear()
    rastersprites.forget()


@lru_cache(maxsize=256)
def _items(body: str, styled: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The elements of ``body`` in drawing order, each a ``shape`` or a ``text``; a group that
    only names itself (no style of its own, none from the style sheet) is opened, so that its
    words are painted between the shapes around them. Raises
    :class:`~pbem.render.rastersprites.Unmeasured` for a group with words that cannot be
    opened. One walk over the tags (:func:`pbem.render.rastersprites.elements` read an opened
    group's children again): those of an opened group are taken where they stand."""
    out: list[tuple[str, str]] = []
    depth = start = 0  # depth within the element being read (0: between elements), where it began
    for m in _TAG.finditer(body):
        closing, selfclosing = m.group(1) == "/", body[m.end() - 2] == "/"
        if depth:
            if closing:
                depth -= 1
                if not depth:
                    _item(out, body[start:m.end()])
            elif not selfclosing:
                depth += 1
        elif closing:  # the end of an opened group
            continue
        elif selfclosing:
            _item(out, m.group(0))
        else:
            plain = _PLAIN_GROUP.fullmatch(m.group(0))
            if not plain or set(" ".join(re.findall(r'class="([^"]*)"', plain.group(1))).split()) & styled:
                depth, start = 1, m.start()
            # else opened: its children follow as elements of their own
    return tuple(out)


def _item(out: list[tuple[str, str]], element: str) -> None:
    """``element`` (not a group to open) added to :func:`_items`' list."""
    if element.startswith("<title"):
        return
    if element.startswith("<text"):
        if not _TEXT_ELEMENT.match(element):  # spans or markup within: resvg's to draw
            raise rastersprites.Unmeasured("words with markup")
        out.append(("text", element))
    elif "<text" in element:
        raise rastersprites.Unmeasured("a styled group with words")
    else:
        out.append(("shape", element))


@lru_cache(maxsize=16)
def _sprites(defs: str, runs: tuple[tuple[str, ...], ...], view: rastersprites.View) -> list[list[rastersprites.Sprite]]:
    """The shapes over the ground, drawn once for every language (their words are not theirs)."""
    return rastersprites.draw(defs, [list(run) for run in runs], view)


@lru_cache(maxsize=2)
def _ground(svg: str, width: int) -> Image.Image:
    """The whole map's layers that no phase changes, drawn once (never changed: a phase draws
    on a copy, :func:`_canvas`), kept for the process and on disk: a daily run (a new process) reads the
    picture of the days before (its ground, or either of the grounds of a map whose recurring
    layer is drawn with it in some phases only)."""
    vw, vh = view_box(svg)[2:]
    size = (width, max(1, round(width * vh / vw)))  # as resvg draws it
    return rasterstore.picture(_folder(), _ground_name(svg, width), "RGBA", size, lambda: draw(svg, width, None, PAPER))


def _ground_name(svg: str, width: int) -> str:
    """The name the whole map's ground ``svg`` drawn ``width`` pixels wide is kept by."""
    return hashlib.sha256(b"%d %s" % (width, svg.encode("utf-8"))).hexdigest()[:40]


@lru_cache(maxsize=1)
def _folder() -> Path | None:
    """The grounds' folder (:func:`pbem.render.rasterstore.folder`); ``None`` when it cannot be made."""
    from pbem.render import rastersvg

    return rasterstore.folder("map-grounds", (rastersvg.__file__, rasterpng.__file__))


def size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG (from its header)."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
