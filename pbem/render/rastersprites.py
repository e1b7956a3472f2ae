"""The shapes of a map's upper layers drawn where they are, not on a whole sheet.

resvg (the ``resvg-py`` wheel) costs by the pixel whatever the drawing holds: it encodes a PNG
of its whole canvas, which Pillow decodes again (25-45 ms for an empty 720×829 sheet). The
pieces, marks and legend over a map's ground cover a tenth of it. So each of their elements
(each group of elements that meet) is drawn alone on a tile of its own, just the pixels it
covers, and laid back where it belongs, in the drawing's order: the same picture, for a tenth
of the pixels. An element is found by its tags; its extent from its coordinates (with room for
strokes and arrowheads). An element this cannot measure (a transform, a relative path, an
image) makes the caller draw the layer whole.

A tile of plain shapes (painted by their own attributes: the counters, face-down ones' hatching
included, marks, arrows, rings and the legend's samples) is drawn by aggdraw
(:mod:`pbem.render.rastershapes`), in tens of microseconds: cheaper than reading it back, so it
is neither kept nor stored. The rest (a look the style sheet gives, what aggdraw is not taught
to draw) is drawn by resvg, a millisecond a tile; a piece that stands where it stood the day
before is drawn alike: such a tile is named by what it
draws (the definitions, the pixel grid, its pixels and elements) and kept, in the process and
on disk (:mod:`pbem.render.rasterstore`), so that resvg draws only the tiles never drawn before.
A tile is drawn alone, never with others, so its pixels do not depend on what else was drawn
with it: the picture is the same whether its tiles were drawn, kept or read.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.render import cachedir, rastershapes, rasterstore
from pbem.render.rastershapes import ATTR, NUMBER, STYLE, TAG

if TYPE_CHECKING:
    from PIL import Image

_BOUND = re.compile(r"<(/?)[\w:-][^>]*>")  # a tag (not a comment nor a declaration)
_ID = re.compile(r' id="[^"]*"')
_SHAPES = {"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "g", "title"}
NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


@dataclass(frozen=True)
class View:
    """How view units map to the pixels of a picture: ``x * scale + dx``."""

    width: int
    height: int
    scale: float
    dx: float
    dy: float


def view_of(box: tuple[float, float, float, float], width: int, height: int) -> View:
    """The mapping resvg uses for a drawing of ``box`` (its viewBox) on ``width``×``height``
    pixels (``preserveAspectRatio`` xMidYMid meet: the smaller scale, centred)."""
    x, y, w, h = box
    s = min(width / w, height / h)
    return View(width, height, s, (width - w * s) / 2 - x * s, (height - h * s) / 2 - y * s)


class Unmeasured(ValueError):
    """An element whose extent cannot be told from its coordinates."""


def elements(body: str) -> list[str]:
    """The top-level elements of ``body`` (part of a drawing), as text, in order; the children
    of a group that carries nothing but an id or classes no style rule names are taken one by
    one, ``plain`` deciding."""
    out = []
    depth = 0
    start = 0
    for m in _BOUND.finditer(body):
        closing, selfclosing = m.group(1) == "/", body[m.end() - 2] == "/"
        if closing:
            depth -= 1
            if depth == 0:
                out.append(body[start:m.end()])
        elif selfclosing:
            if depth == 0:
                out.append(m.group(0))
        else:
            if depth == 0:
                start = m.start()
            depth += 1
    return out


@lru_cache(maxsize=4096)
def extent(element: str) -> tuple[float, float, float, float] | None:
    """``element``'s bounds in view units (x0, y0, x1, y1), with room for its strokes and
    arrowheads (``None``: it draws nothing); :class:`Unmeasured` when it holds what this
    cannot measure."""
    xs: list[float] = []
    ys: list[float] = []
    stroke = 0.0
    marker = False
    ends: list[tuple[float, float]] = []  # where a line's only arrowhead stands
    for m in TAG.finditer(element):
        if m.group(1):
            continue
        tag = m.group(2)
        a = dict(ATTR.findall(m.group(3)))
        if tag not in _SHAPES or "transform" in a or "style" in a:
            raise Unmeasured(tag)
        if "stroke-width" in a:
            stroke = max(stroke, float(a["stroke-width"]))
        markers = [k for k in a if k.startswith("marker")]
        end = markers == ["marker-end"] and tag in ("line", "polyline")
        marker = marker or (bool(markers) and not end)
        if tag == "rect":
            x, y = float(a.get("x", 0)), float(a.get("y", 0))
            xs += [x, x + float(a["width"])]
            ys += [y, y + float(a["height"])]
        elif tag in ("circle", "ellipse"):
            cx, cy = float(a.get("cx", 0)), float(a.get("cy", 0))
            rx = float(a.get("r") or a.get("rx") or 0)
            ry = float(a.get("r") or a.get("ry") or 0)
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
        elif tag == "line":
            xs += [float(a.get("x1", 0)), float(a.get("x2", 0))]
            ys += [float(a.get("y1", 0)), float(a.get("y2", 0))]
            if end:
                ends.append((xs[-1], ys[-1]))
        elif tag in ("polyline", "polygon"):
            nums = [float(v) for v in NUMBER.findall(a.get("points", ""))]
            xs += nums[0::2]
            ys += nums[1::2]
            if end and len(nums) >= 2:
                ends.append((xs[-1], ys[-1]))
        elif tag == "path":
            d = a.get("d", "")
            if re.search(r"[^MLCQZz\d\s,.eE+-]", d):  # relative, arc or H/V commands: not measured here
                raise Unmeasured(d[:40])
            nums = [float(v) for v in NUMBER.findall(d)]
            xs += nums[0::2]
            ys += nums[1::2]
    if not xs:
        return None
    # a stroke reaches half its width out (a mitre further: room for 4); an arrowhead is six
    # stroke widths long (markerUnits strokeWidth): room for it where it stands, the end of a
    # line (a move's arrow), or everywhere when markers stand elsewhere too
    room = (8.0 if marker else 2.0) * max(stroke, 1.0) + 2.0
    head = 8.0 * max(stroke, 1.0) + 2.0
    return (min([min(xs) - room, *(x - head for x, _y in ends)]), min([min(ys) - room, *(y - head for _x, y in ends)]),
            max([max(xs) + room, *(x + head for x, _y in ends)]), max([max(ys) + room, *(y + head for _x, y in ends)]))


@dataclass(frozen=True)
class Sprite:
    """One element drawn alone: ``tile`` (RGBA) goes at (``x``, ``y``) of the picture."""

    x: int
    y: int
    tile: Image.Image


def draw(defs: str, runs: list[list[str]], view: View) -> list[list[Sprite]]:
    """Each run of ``runs`` (elements of a drawing whose definitions are ``defs``, drawn one
    after the other with no words between them) as tiles to lay over the picture seen through
    ``view``: the elements whose extents meet are drawn together on one tile, in their order;
    those outside the picture on none. Raises :class:`Unmeasured` as :func:`extent`."""
    scale, fx, fy, ix, iy = grid(view)
    groups: list[tuple[int, list[str], tuple[int, int, int, int]]] = []  # run, elements, pixels x0 y0 x1 y1
    for r, run in enumerate(runs):
        boxes: list[tuple[list[tuple[int, str]], tuple[int, int, int, int]]] = []
        for n, shape in enumerate(run):
            bounds = extent(shape)
            if bounds is None:
                continue
            x0, y0, x1, y1 = bounds
            box = (max(0, math.floor(x0 * scale + fx) + ix), max(0, math.floor(y0 * scale + fy) + iy),
                   min(view.width, math.ceil(x1 * scale + fx) + ix), min(view.height, math.ceil(y1 * scale + fy) + iy))
            if box[2] > box[0] and box[3] > box[1]:
                boxes.append(([(n, shape)], box))
        groups += [(r, [shape for _n, shape in sorted(shapes)], box) for shapes, box in _clusters(boxes)]
    out: list[list[Sprite]] = [[] for _run in runs]
    if not groups:
        return out
    sheet = hashlib.sha256(f"{defs}\0{scale!r} {fx!r} {fy!r}".encode()).digest()
    plain = _unstyled(defs)
    for r, shapes, (x0, y0, x1, y1) in groups:
        box = (x0 - ix, y0 - iy, x1 - ix, y1 - iy)
        tile = rastershapes.tile(defs, shapes, (scale, fx, fy), box)  # cheaper drawn again than read back
        if tile is None:
            used = defs if plain is None or any("class=" in shape for shape in shapes) else plain
            tile = _tile(sheet, used, (scale, fx, fy), box, shapes)
        out[r].append(Sprite(x0, y0, tile))
    return out


@lru_cache(maxsize=8)
def _unstyled(defs: str) -> str | None:
    """``defs`` without its style sheet when the sheet cannot paint a shape that names no class
    (its rules are for classes, for words, or for the fonts of the whole drawing:
    :func:`pbem.render.rastershapes.painting_classes`), so that resvg does not read it for each
    tile of such shapes; ``None`` when it might."""
    if not STYLE.search(defs) or rastershapes.painting_classes(defs) is None:
        return None
    return STYLE.sub("", defs)


def grid(view: View) -> tuple[float, float, float, int, int]:
    """The pixel grid of ``view`` as its tiles are drawn on: the scale, the fraction of a pixel
    by which the drawing's origin stands off the grid (rounded to a millionth of a pixel, the
    scale to nine digits: a crop moved by whole pixels, in another phase, draws on the same
    grid, so that its tiles are the same), and where the grid's pixel (0, 0) stands in the
    picture."""
    scale = float(f"{view.scale:.9g}")
    dx, dy = round(view.dx, 6), round(view.dy, 6)
    ix, iy = math.floor(dx), math.floor(dy)
    return scale, dx - ix, dy - iy, ix, iy


def _tile(sheet: bytes, defs: str, grid: tuple[float, float, float], box: Box, shapes: list[str]) -> Image.Image:
    """The tile of ``shapes`` over the pixels ``box`` of the grid: kept in this process, read
    from the disk (:mod:`pbem.render.rasterstore`), or drawn by resvg alone, its pixels then
    depending only on what it draws and where."""

    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    if size[0] * size[1] > KEPT_PIXELS:  # a move's arrow, drawn for one phase: cheaper drawn than stored
        return _drawn(defs, grid, box, shapes)
    name = hashlib.sha256(b"\0".join([sheet, b"%d %d %d %d" % box, *(s.encode("utf-8") for s in shapes)])).hexdigest()[:40]
    tile = _kept.get(name)
    if tile is not None:
        return tile
    tile = rasterstore.picture(_folder(), name, "RGBA", size, lambda: _drawn(defs, grid, box, shapes))
    if len(_kept) >= KEPT:
        del _kept[next(iter(_kept))]
    _kept[name] = tile
    return tile


def _drawn(defs: str, grid: tuple[float, float, float], box: Box, shapes: list[str]) -> Image.Image:
    """``shapes`` drawn by resvg over the pixels ``box`` of the grid (scale, offset)."""
    import resvg_py
    from PIL import Image

    scale, fx, fy = grid
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    svg = (f'<svg {NS} width="{w}" height="{h}" viewBox="{(x0 - fx) / scale!r} {(y0 - fy) / scale!r} '
           f'{w / scale!r} {h / scale!r}" preserveAspectRatio="none">{defs}{"".join(shapes)}</svg>')
    data = resvg_py.svg_to_bytes(svg_string=svg, width=w, height=h, skip_system_fonts=True)
    return Image.open(io.BytesIO(bytes(data))).convert("RGBA")


KEPT = 4096  # tiles kept in the process (a map's are some 20-60, a few KB each)
# the largest tile kept: counters and marks, alone or a few together, are smaller; what is
# larger is the phase's moves (long arrows, their tiles mostly bare), never drawn alike again
KEPT_PIXELS = 8192
_kept: dict[str, Image.Image] = {}


def forget() -> None:
    """Forget the tiles this process drew or read (the disk keeps them) and the extents it
    measured."""
    _kept.clear()
    extent.cache_clear()
    rastershapes.forget()


@lru_cache(maxsize=1)
def _folder() -> Path | None:
    """The tiles' folder (:func:`pbem.render.rasterstore.folder`), the tiles written more than
    :data:`~pbem.render.cachedir.UNUSED_DAYS` days ago removed; ``None`` when it cannot be made."""
    folder = rasterstore.folder("map-sprites", (__file__,))
    if folder is not None:
        cachedir.remove_unused_files(folder)
    return folder


Box = tuple[int, int, int, int]


def _clusters(boxes: list[tuple[list[tuple[int, str]], Box]]) -> list[tuple[list[tuple[int, str]], Box]]:
    """``boxes`` (numbered elements and their pixels) with those that meet merged, until none
    do."""
    out = list(boxes)
    while True:
        done: list[tuple[list[tuple[int, str]], Box]] = []
        for shapes, box in out:
            for k in range(len(done) - 1, -1, -1):
                other = done[k][1]
                if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]:
                    shapes = done[k][0] + shapes
                    box = (min(box[0], other[0]), min(box[1], other[1]), max(box[2], other[2]), max(box[3], other[3]))
                    del done[k]
            done.append((shapes, box))
        if len(done) == len(out):
            return done
        out = done

