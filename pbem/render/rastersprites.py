"""The shapes of a map's upper layers drawn where they are, not on a whole sheet.

resvg (the ``resvg-py`` wheel) costs by the pixel whatever the drawing holds: it encodes a PNG
of its whole canvas, which Pillow decodes again (25-45 ms for an empty 720×829 sheet). The
pieces, marks and legend over a map's ground cover a tenth of it. So each of their elements is
moved, by whole pixels, to a place of its own on one small sheet (an atlas), drawn there in one
call, and laid back where it belongs, in the drawing's order: the same picture, for a tenth of
the pixels. An element is found by its tags; its extent from its coordinates (with room for
strokes and arrowheads). An element this cannot measure (a transform, a relative path, an
image) makes the caller draw the layer whole.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

_TAG = re.compile(r"<(/?)([\w:-]+)([^>]*?)(/?)>")
_ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
_ID = re.compile(r' id="[^"]*"')
_NUMBER = re.compile(r"-?\d*\.?\d+(?:[eE][-+]?\d+)?")
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
    for m in _TAG.finditer(body):
        closing, selfclosing = m.group(1) == "/", m.group(4) == "/"
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


def extent(element: str) -> tuple[float, float, float, float] | None:
    """``element``'s bounds in view units (x0, y0, x1, y1), with room for its strokes and
    arrowheads (``None``: it draws nothing); :class:`Unmeasured` when it holds what this
    cannot measure."""
    xs: list[float] = []
    ys: list[float] = []
    stroke = 0.0
    marker = False
    for m in _TAG.finditer(element):
        if m.group(1):
            continue
        tag = m.group(2)
        a = dict(_ATTR.findall(m.group(3)))
        if tag not in _SHAPES or "transform" in a or "style" in a:
            raise Unmeasured(tag)
        if "stroke-width" in a:
            stroke = max(stroke, float(a["stroke-width"]))
        marker = marker or any(k.startswith("marker") for k in a)
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
        elif tag in ("polyline", "polygon"):
            nums = [float(v) for v in _NUMBER.findall(a.get("points", ""))]
            xs += nums[0::2]
            ys += nums[1::2]
        elif tag == "path":
            d = a.get("d", "")
            if re.search(r"[^MLCQZz\d\s,.eE+-]", d):  # relative, arc or H/V commands: not measured here
                raise Unmeasured(d[:40])
            nums = [float(v) for v in _NUMBER.findall(d)]
            xs += nums[0::2]
            ys += nums[1::2]
    if not xs:
        return None
    # a stroke reaches half its width out (a mitre further: room for 4); an arrowhead is six
    # stroke widths long (markerUnits strokeWidth)
    room = (8.0 if marker else 2.0) * max(stroke, 1.0) + 2.0
    return min(xs) - room, min(ys) - room, max(xs) + room, max(ys) + room


def pack(sizes: list[tuple[int, int]], width: int) -> dict[int, tuple[int, int]]:
    """Where each tile of ``sizes`` (width, height) goes on a sheet ``width`` pixels wide
    (wider if a tile is), tallest first, each as high up as the ones placed let it (a
    skyline), a pixel apart."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i][1], -sizes[i][0], i))
    width = max([width] + [w + 1 for w, _h in sizes])
    sky = [(0, width, 0)]  # segments of the skyline: x, width, top
    at: dict[int, tuple[int, int]] = {}
    for i in order:
        w, h = sizes[i]
        w += 1
        best: tuple[int, int] | None = None
        for j, (x, _sw, _y) in enumerate(sky):
            if x + w > width:
                break
            top, reach, k = 0, 0, j
            while reach < w:
                top = max(top, sky[k][2])
                reach = sky[k][0] + sky[k][1] - x
                k += 1
            if best is None or (top, x) < best:
                best = (top, x)
        assert best is not None
        top, x = best
        at[i] = (x, top)
        # the skyline under the tile rises to its bottom
        bottom = top + h + 1
        new = []
        for sx, sw, sy in sky:
            if sx + sw <= x or sx >= x + w:
                new.append((sx, sw, sy))
                continue
            if sx < x:
                new.append((sx, x - sx, sy))
            if sx + sw > x + w:
                new.append((x + w, sx + sw - x - w, sy))
        new.append((x, w, bottom))
        new.sort()
        merged: list[tuple[int, int, int]] = []
        for seg in new:
            if merged and merged[-1][2] == seg[2] and merged[-1][0] + merged[-1][1] == seg[0]:
                merged[-1] = (merged[-1][0], merged[-1][1] + seg[1], seg[2])
            else:
                merged.append(seg)
        sky = merged
    return at


def layout(sizes: list[tuple[int, int]]) -> tuple[dict[int, tuple[int, int]], int, int]:
    """Where each tile of ``sizes`` goes (:func:`pack`) on the smallest of two sheets about as
    wide as high (resvg pays for every pixel of it; which width wastes least depends on the
    tiles), and that sheet's width and height."""
    area = sum(w * h for w, h in sizes)
    best: tuple[int, dict[int, tuple[int, int]], int, int] | None = None
    for stretch in (1.05, 1.3):
        at = pack(sizes, math.ceil(math.sqrt(stretch * area)))
        width = max(at[i][0] + w for i, (w, _h) in enumerate(sizes))
        height = max(at[i][1] + h for i, (_w, h) in enumerate(sizes))
        if best is None or width * height < best[0]:
            best = (width * height, at, width, height)
    assert best is not None
    return best[1], best[2], best[3]


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
    import resvg_py
    from PIL import Image

    groups: list[tuple[int, list[str], tuple[int, int, int, int]]] = []  # run, elements, pixels x0 y0 x1 y1
    for r, run in enumerate(runs):
        boxes: list[tuple[list[tuple[int, str]], tuple[int, int, int, int]]] = []
        for n, shape in enumerate(run):
            bounds = extent(shape)
            if bounds is None:
                continue
            x0, y0, x1, y1 = bounds
            box = (max(0, math.floor(x0 * view.scale + view.dx)), max(0, math.floor(y0 * view.scale + view.dy)),
                   min(view.width, math.ceil(x1 * view.scale + view.dx)), min(view.height, math.ceil(y1 * view.scale + view.dy)))
            if box[2] > box[0] and box[3] > box[1]:
                boxes.append(([(n, shape)], box))
        groups += [(r, [shape for _n, shape in sorted(shapes)], box) for shapes, box in _clusters(boxes)]
    if not groups:
        return [[] for _run in runs]
    at, width, height = layout([(x1 - x0, y1 - y0) for _r, _s, (x0, y0, x1, y1) in groups])
    # a tile cut by the picture's edge is clipped there, so that what it holds stays inside it
    left, top = -view.dx / view.scale, -view.dy / view.scale
    edge = (f'<clipPath id="pbem-edge" clipPathUnits="userSpaceOnUse"><rect x="{left!r}" y="{top!r}" '
            f'width="{view.width / view.scale!r}" height="{view.height / view.scale!r}"/></clipPath>')
    parts = []
    for i, (_r, shapes, (x0, y0, x1, y1)) in enumerate(groups):
        ax, ay = at[i]
        # the elements' own units, moved so that their pixels land on the tile's
        shift = f'translate({(ax - x0) / view.scale!r} {(ay - y0) / view.scale!r})'
        inner = "".join(shapes)
        if x0 == 0 or y0 == 0 or x1 == view.width or y1 == view.height:
            inner = f'<g clip-path="url(#pbem-edge)">{inner}</g>'
        parts.append(f'<g transform="{shift}">{inner}</g>')
    atlas = (f'<svg {NS} width="{width}" height="{height}" '
             f'viewBox="{-view.dx / view.scale!r} {-view.dy / view.scale!r} {width / view.scale!r} {height / view.scale!r}" '
             f'preserveAspectRatio="none">{defs}<defs>{edge}</defs>{"".join(parts)}</svg>')
    data = resvg_py.svg_to_bytes(svg_string=atlas, width=width, height=height, skip_system_fonts=True)
    sheet = Image.open(io.BytesIO(bytes(data))).convert("RGBA")
    out: list[list[Sprite]] = [[] for _run in runs]
    for i, (r, _shapes, (x0, y0, x1, y1)) in enumerate(groups):
        ax, ay = at[i]
        out[r].append(Sprite(x0, y0, sheet.crop((ax, ay, ax + x1 - x0, ay + y1 - y0))))
    return out


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

