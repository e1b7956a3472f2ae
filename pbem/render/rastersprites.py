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
            rx = float(a.get("r", a.get("rx", 0)))
            ry = float(a.get("r", a.get("ry", 0)))
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


@dataclass(frozen=True)
class Sprite:
    """One element drawn alone: ``tile`` (RGBA) goes at (``x``, ``y``) of the picture."""

    x: int
    y: int
    tile: Image.Image


def draw(head: str, shapes: list[str], view: View, fonts: list[str] | None = None) -> list[Sprite | None]:
    """Each of ``shapes`` (elements of a drawing whose ``<svg>`` tag and definitions are
    ``head``) drawn alone on a transparent tile, as seen through ``view``; ``None`` for one
    that falls outside the picture. Raises :class:`Unmeasured` as :func:`extent`."""
    import resvg_py
    from PIL import Image

    places: list[tuple[int, int, int, int] | None] = []
    for shape in shapes:
        bounds = extent(shape)
        if bounds is None:
            places.append(None)
            continue
        x0, y0, x1, y1 = bounds
        px0 = max(0, math.floor(x0 * view.scale + view.dx))
        py0 = max(0, math.floor(y0 * view.scale + view.dy))
        px1 = min(view.width, math.ceil(x1 * view.scale + view.dx))
        py1 = min(view.height, math.ceil(y1 * view.scale + view.dy))
        places.append((px0, py0, px1 - px0, py1 - py0) if px1 > px0 and py1 > py0 else None)
    # shelves: the tiles in rows as wide as the picture, tallest first
    order = sorted((i for i, p in enumerate(places) if p is not None), key=lambda i: (-places[i][3], i))  # type: ignore[index]
    at: dict[int, tuple[int, int]] = {}
    shelf_y = shelf_h = cursor = 0
    width = max([view.width] + [places[i][2] for i in order])  # type: ignore[index]
    for i in order:
        _x, _y, w, h = places[i]  # type: ignore[misc]
        if cursor + w > width:
            shelf_y, shelf_h, cursor = shelf_y + shelf_h + 1, 0, 0
        at[i] = (cursor, shelf_y)
        cursor += w + 1
        shelf_h = max(shelf_h, h)
    height = shelf_y + shelf_h
    if not at:
        return [None] * len(shapes)
    # an element cut by the picture's edge is clipped there, so it stays inside its tile
    left, top = -view.dx / view.scale, -view.dy / view.scale
    edge = (f'<clipPath id="pbem-edge" clipPathUnits="userSpaceOnUse"><rect x="{left!r}" y="{top!r}" '
            f'width="{view.width / view.scale!r}" height="{view.height / view.scale!r}"/></clipPath>')
    parts = []
    for i in sorted(at):
        px, py, w, h = places[i]  # type: ignore[misc]
        ax, ay = at[i]
        # the element's own units, moved so that its pixels land on its tile's
        shift = f'translate({(ax - px) / view.scale!r} {(ay - py) / view.scale!r})'
        cut = px == 0 or py == 0 or px + w == view.width or py + h == view.height
        inner = f'<g clip-path="url(#pbem-edge)">{shapes[i]}</g>' if cut else shapes[i]
        parts.append(f'<g transform="{shift}">{inner}</g>')
    start = head[:head.index(">") + 1]
    defs = head[len(start):]
    atlas = (f'<svg {NS} width="{width}" height="{height}" '
             f'viewBox="{-view.dx / view.scale!r} {-view.dy / view.scale!r} {width / view.scale!r} {height / view.scale!r}" '
             f'preserveAspectRatio="none">{defs}<defs>{edge}</defs>{"".join(parts)}</svg>')
    data = resvg_py.svg_to_bytes(svg_string=atlas, width=width, height=height, skip_system_fonts=True,
                                 font_files=fonts or None)
    sheet = Image.open(io.BytesIO(bytes(data))).convert("RGBA")
    out: list[Sprite | None] = []
    for i, p in enumerate(places):
        if p is None:
            out.append(None)
            continue
        ax, ay = at[i]
        out.append(Sprite(p[0], p[1], sheet.crop((ax, ay, ax + p[2], ay + p[3]))))
    return out
