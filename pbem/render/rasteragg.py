"""What a map's plain shapes paint (:mod:`pbem.render.rastershapes` reads it from their
elements) drawn on a tile by Anti-Grain Geometry (the ``aggdraw`` wheel), as resvg draws it.

What AGG does not do as SVG does, this does by hand:

- aggdraw fills a shape through a contour widened by a quarter pixel on every side
  (:data:`INSET`): a filled outline is given narrowed by as much (its polygon's edges moved in,
  a circle's radius less), and a fill thinner than that is left to resvg;
- its pen has AGG's defaults (mitre joins up to a mitre limit of 4, butt caps, no dashes), which
  are SVG's: a dash pattern is cut along the line here, and round joins (and caps) are a
  rectangle per segment and the wedge of a disc on the outer side of each turn, all filled in
  one pass so that where they meet leaves no seam;
- circles and rounded corners are polygons fine enough that no chord stands off the arc by a
  fiftieth of a pixel;
- ``opacity`` (on a shape, its arrowhead included, or on a group) is a layer of its own, drawn
  opaque, faded and laid over what is below, as SVG composites a group;
- a pattern of bands (lines across its tile) is its background colour, then each band's pieces
  cut to the (convex) outline, filled in one pass.

The ops, in view units: ``("fill", outline, colour, alpha)``, ``("stroke", outline, colour,
alpha, width, join, cap, dashes)``, ``("pattern", outline, pattern, 1.0)`` or ``("layer",
opacity, ops)``; an outline is ``("poly", points, closed)``, ``("ellipse", cx, cy, rx, ry)`` or
``("rect", x, y, width, height, rx, ry)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

INSET = 0.25  # pixels by which aggdraw widens a filled outline

Point = tuple[float, float]
Outline = tuple[Any, ...]
Op = tuple[Any, ...]


class Unsupported(ValueError):
    """A shape painted in a way this does not draw (resvg then draws its tile)."""


_pens: dict[tuple[str, int, float], Any] = {}
_brushes: dict[tuple[str, int], Any] = {}


def render(ops: Sequence[Op], size: tuple[int, int], to: tuple[float, float, float]) -> Image.Image:
    """``ops`` on a transparent RGBA sheet of ``size``, view units mapped by ``to`` (scale,
    offset x, offset y); :class:`Unsupported` for what this cannot draw at that scale."""
    from PIL import Image

    ops = [_merged(op, to) if op[0] == "layer" else op for op in ops]
    out: Image.Image | None = None
    start = 0
    for i in [*(i for i, op in enumerate(ops) if op[0] == "layer"), len(ops)]:
        parts = []
        if i > start:
            parts.append(_sheet(ops[start:i], size, to))
        if i < len(ops):
            layer = render(ops[i][2], size, to)
            alpha = layer.getchannel("A").point(_faded(ops[i][1]))
            layer.putalpha(alpha)
            parts.append(layer)
        for part in parts:
            out = part if out is None else Image.alpha_composite(out, part)
        start = i + 1
    return out if out is not None else Image.new("RGBA", size)


@lru_cache(maxsize=64)
def _faded(opacity: float) -> list[int]:
    """The alpha values of a layer faded to ``opacity``, by their value (a table for Pillow's
    ``point``)."""
    return [round(v * opacity) for v in range(256)]


def _merged(layer: Op, to: tuple[float, float, float]) -> Op:
    """A faded layer whose parts are all filled outlines of one colour (a move's dashes, their
    round joins and its arrowhead) as one op, ``("merged", parts, colour, alpha)``: filled in one
    pass, they cover each pixel once, so the layer is drawn faded at once, not on a sheet of its
    own; any other layer as it is."""
    _kind, opacity, parts = layer
    colours = {(op[2], op[3]) for op in parts}
    if len(colours) != 1 or not all(_one_pass(op, to[0]) for op in parts):
        return layer
    ((colour, alpha),) = colours
    return ("merged", parts, colour, alpha * opacity)


def _one_pass(op: Op, scale: float) -> bool:
    """Whether ``op`` is drawn as filled outlines (:func:`_outlines`)."""
    if op[0] == "fill":
        return True
    return (op[0] == "stroke" and op[1][0] == "poly" and not op[1][2]
            and ((op[5] == "round" and len(op[1][1]) > 2) or op[6] == "round") and op[4] * scale > 4 * INSET)


def _outlines(op: Op, to: tuple[float, float, float]) -> list[list[Point]]:
    """The outlines, in pixels and of one orientation, that paint ``op`` (a fill, or a stroke
    of round joins or caps) when filled by aggdraw."""
    if op[0] == "fill":
        return [_oriented(_filled(op[1], to))]
    scale, ox, oy = to
    width, cap = op[4] * scale, op[6]
    pts = [(x * scale + ox, y * scale + oy) for x, y in op[1][1]]
    lines = _dashed(pts, tuple(d * scale for d in op[7])) if op[7] else [pts]
    if cap == "square":
        lines = [_extended(line, width / 2) for line in lines]
    return [part for line in lines for part in _rounded(line, width / 2, cap == "round")]


def _sheet(ops: Sequence[Op], size: tuple[int, int], to: tuple[float, float, float]) -> Image.Image:
    """``ops`` (no layer among them) drawn by aggdraw."""
    import aggdraw
    from PIL import Image

    draw = aggdraw.Draw("RGBA", size, (0, 0, 0, 0))
    scale, ox, oy = to
    for op in ops:
        if op[0] == "merged":
            _fill_outlines(draw, [part for inner in op[1] for part in _outlines(inner, to)], _brush(op[2], round(op[3] * 255)))
            continue
        alpha = round(op[3] * 255)
        if op[0] == "pattern":
            _pattern(draw, op[1], op[2], to)
            continue
        if op[0] == "fill":
            if op[1][0] == "poly":
                draw.polygon(_flat(_filled(op[1], to)), _brush(op[2], alpha))
            else:
                _round_polygon(draw, op[1], to, INSET, _brush(op[2], alpha))
            continue
        width = op[4] * scale
        pen = _pens.get((op[2], alpha, width))
        if pen is None:
            if len(_pens) > 256:
                _pens.clear()
            pen = _pens[op[2], alpha, width] = aggdraw.Pen(op[2], width, alpha)
        outline = op[1]
        if outline[0] != "poly":
            _round_polygon(draw, outline, to, 0.0, pen)
            continue
        pts = [(x * scale + ox, y * scale + oy) for x, y in outline[1]]
        if outline[2]:
            draw.polygon(_flat(pts), pen)
            continue
        if _one_pass(op, scale):
            _fill_outlines(draw, _outlines(op, to), _brush(op[2], alpha))
            continue
        lines = _dashed(pts, tuple(d * scale for d in op[7])) if op[7] else [pts]
        if op[6] == "square":
            lines = [_extended(line, width / 2) for line in lines]
        for line in lines:
            draw.line(_flat(line), pen)
    # AGG's sheet holds premultiplied colours; read in Pillow's core (Image.frombytes's
    # wrapping costs more than the work on a tile)
    picture = Image.core.new("RGBA", size)
    decoder = Image.core.raw_decoder("RGBA", "RGBa", 0, 1)
    decoder.setimage(picture, (0, 0, *size))
    if decoder.decode(draw.tobytes())[0] >= 0:
        raise ValueError("a sheet of the wrong size")
    return Image.Image()._new(picture)


def _fill_outlines(draw: Any, outlines: list[list[Point]], brush: Any) -> None:
    """``outlines`` (of one orientation) filled in one pass: where they overlap or meet, each
    pixel is covered once, with no seam."""
    import aggdraw

    path = aggdraw.Path()
    for part in outlines:
        path.moveto(*part[0])
        for p in part[1:]:
            path.lineto(*p)
        path.close()
    draw.path(path, brush)


def _brush(colour: str, alpha: int) -> Any:
    import aggdraw

    brush = _brushes.get((colour, alpha))
    if brush is None:
        brush = _brushes[colour, alpha] = aggdraw.Brush(colour, alpha)
    return brush


def _pattern(draw: Any, outline: Outline, pattern: tuple[Any, ...], to: tuple[float, float, float]) -> None:
    """``outline`` (convex) filled with ``pattern`` (:func:`_patterns`): its background colour,
    then each band's pieces in the outline, filled in one pass (no seam where they meet)."""
    w, h, turn, background, bands = pattern
    scale, ox, oy = to
    if outline[0] == "poly":
        shape = [(x * scale + ox, y * scale + oy) for x, y in outline[1]]
    else:
        shape = _round_outline(outline, to, 0.0)
    shape = _oriented(shape)
    if not _convex(shape):
        raise Unsupported("a pattern in a concave outline")
    if background is not None:
        if outline[0] == "poly":
            draw.polygon(_flat(_filled(outline, to)), _brush(background, 255))
        else:
            _round_polygon(draw, outline, to, INSET, _brush(background, 255))
    inner = _inset(shape, INSET)
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    narrow = INSET / scale
    for axis, lo, hi, colour, alpha in bands:
        # across the band, in pixels: the pattern's u (or v) times the scale, and this offset
        fx, fy, at = (c, s, ox * c + oy * s) if axis == "x" else (-s, c, oy * c - ox * s)
        period = (w if axis == "x" else h) * scale
        if (hi - lo) * scale <= 2 * INSET + 0.05:  # thinner than a fill can be: a line as wide
            _lines(draw, shape, fx, fy, (lo + hi) / 2 * scale + at, period, (hi - lo) * scale, colour, alpha)
            continue
        across = [fx * x + fy * y for x, y in inner]
        start, end = (lo + narrow) * scale + at, (hi - narrow) * scale + at
        pieces = []
        for k in range(math.floor((min(across) - end) / period), math.ceil((max(across) - start) / period) + 1):
            piece = _slab(inner, fx, fy, start + k * period, end + k * period)
            if len(piece) >= 3:
                pieces.append(piece)
        if pieces:
            _fill_outlines(draw, pieces, _brush(colour, round(alpha * 255)))


def _lines(draw: Any, shape: list[Point], fx: float, fy: float, at: float, period: float, width: float, colour: str,
           alpha: float) -> None:
    """The lines ``fx * x + fy * y == at + k * period`` (``fx, fy`` a unit vector) across the
    convex ``shape`` (of a positive area), ``width`` pixels wide: a pattern's bands too thin to
    be filled (their ends square, not cut along the outline: a fraction of a pixel)."""
    import aggdraw

    pen = aggdraw.Pen(colour, width, round(alpha * 255))
    across = [fx * x + fy * y for x, y in shape]
    dx, dy = -fy, fx  # along the lines
    for k in range(math.floor((min(across) - at) / period), math.ceil((max(across) - at) / period) + 1):
        value = at + k * period
        px, py = value * fx, value * fy  # the line's point nearest the origin
        low, high = -math.inf, math.inf
        for i in range(len(shape)):  # inside each side: cross(side, p - a) >= 0
            (ax, ay), (bx, by) = shape[i - 1], shape[i]
            ex, ey = bx - ax, by - ay
            base, slope = ex * (py - ay) - ey * (px - ax), ex * dy - ey * dx
            if slope > 0:
                low = max(low, -base / slope)
            elif slope < 0:
                high = min(high, -base / slope)
            elif base < 0:
                high = low  # parallel to this side, outside it
        if low < high:
            draw.line((px + low * dx, py + low * dy, px + high * dx, py + high * dy), pen)


def _convex(pts: Sequence[Point]) -> bool:
    """Whether the polygon ``pts`` (of a positive area) turns one way only."""
    n = len(pts)
    for i in range(n):
        (ax, ay), (bx, by), (cx, cy) = pts[i - 2], pts[i - 1], pts[i]
        if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) < -1e-9:
            return False
    return True


def _slab(pts: list[Point], fx: float, fy: float, low: float, high: float) -> list[Point]:
    """The convex polygon ``pts`` cut to where ``low <= fx * x + fy * y <= high`` (its
    orientation kept)."""
    out = pts
    for sign, bound in ((1.0, low), (-1.0, -high)):  # sign * value >= bound
        kept = []
        for j in range(len(out)):
            (px, py), (qx, qy) = out[j - 1], out[j]
            sp, sq = sign * (fx * px + fy * py) - bound, sign * (fx * qx + fy * qy) - bound
            if sq >= 0:
                if sp < 0:
                    t = sp / (sp - sq)
                    kept.append((px + (qx - px) * t, py + (qy - py) * t))
                kept.append((qx, qy))
            elif sp >= 0:
                t = sp / (sp - sq)
                kept.append((px + (qx - px) * t, py + (qy - py) * t))
        out = kept
        if not out:
            break
    return out


def _flat(pts: Sequence[Point]) -> list[float]:
    return [v for p in pts for v in p]


def _filled(outline: Outline, to: tuple[float, float, float]) -> list[Point]:
    """The polygon aggdraw fills to paint ``outline`` (narrowed by :data:`INSET`), in pixels."""
    if outline[0] != "poly":
        return _round_outline(outline, to, INSET)
    scale, ox, oy = to
    pts = [(x * scale + ox, y * scale + oy) for x, y in outline[1]]
    narrowed = _inset(pts, INSET)
    if _area(narrowed) * _area(pts) <= 0:
        raise Unsupported("a fill thinner than aggdraw widens it")
    return narrowed


def _area(pts: Sequence[Point]) -> float:
    """Twice the signed area of the polygon ``pts``."""
    n = len(pts)
    return sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n))


def _inset(pts: list[Point], d: float) -> list[Point]:
    """The polygon ``pts`` with its edges moved in by ``d`` (their mitred corners)."""
    n = len(pts)
    area = _area(pts)
    if area == 0:
        return pts
    sign = 1.0 if area > 0 else -1.0
    normals = []
    for i in range(n):
        (ax, ay), (bx, by) = pts[i], pts[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay) or 1.0
        normals.append((-(by - ay) / length * sign, (bx - ax) / length * sign))  # inwards
    out = []
    for i in range(n):
        (px, py), (qx, qy) = normals[i - 1], normals[i]
        k = 1.0 + px * qx + py * qy
        if k < 0.1:  # a spike turning back: moved along one edge
            out.append((pts[i][0] + d * qx, pts[i][1] + d * qy))
        else:
            out.append((pts[i][0] + d * (px + qx) / k, pts[i][1] + d * (py + qy) / k))
    return out


def _steps(radius: float) -> int:
    """Segments for a quarter of a curve of ``radius`` pixels: no chord further than a
    fiftieth of a pixel from the arc."""
    if radius <= 0.02:
        return 1
    return max(2, math.ceil(math.pi / 4 / math.acos(1 - 0.02 / radius)))  # (one step for 0.7-0.9 px of radius)


def _round_outline(outline: Outline, to: tuple[float, float, float], inset: float) -> list[Point]:
    """An ellipse's or a rectangle's outline as a polygon in pixels, narrowed by ``inset``."""
    flat, (tx, ty) = _placed(outline, to, inset)
    return [(tx + flat[i], ty + flat[i + 1]) for i in range(0, len(flat), 2)]


def _round_polygon(draw: Any, outline: Outline, to: tuple[float, float, float], inset: float, paint: Any) -> None:
    """:func:`_round_outline` painted by aggdraw, which moves the outline. Its sums may differ
    from the outline's in the last bit, which can tip an edge pixel's coverage and so its palette
    entry: the maps of an advanced game then differ in about a hundred pixels, by at most 14
    levels, from maps drawn before the outline was moved by aggdraw (deterministic either way)."""
    flat, at = _placed(outline, to, inset)
    draw.settransform(at)
    draw.polygon(flat, paint)
    draw.settransform()


def _placed(outline: Outline, to: tuple[float, float, float], inset: float) -> tuple[tuple[float, ...], Point]:
    """An ellipse's or a rectangle's outline (:func:`_round_outline`) as a polygon around its
    centre or from its corner, x, y one after the other, and where that point stands in pixels:
    the polygon is the same for every shape of its size, worked out once."""
    scale, ox, oy = to
    if min(outline[3:5]) * scale < 2 * inset + 0.1:
        raise Unsupported("a fill thinner than aggdraw widens it")
    return _shape(outline[0], outline[3:], scale, inset), (outline[1] * scale + ox, outline[2] * scale + oy)


@lru_cache(maxsize=512)
def _shape(kind: str, size: tuple[float, ...], scale: float, inset: float) -> tuple[float, ...]:
    """The polygon of :func:`_placed`: an ellipse of radii ``size`` around (0, 0), or a rectangle
    of width, height and corner radii ``size`` from (0, 0)."""
    if kind == "ellipse":
        rx, ry = size[0] * scale - inset, size[1] * scale - inset
        return tuple(v for c, s in _circle(_steps(max(rx, ry)))[:-1] for v in (rx * c, ry * s))
    w, h, rx, ry = size
    x0 = y0 = inset
    x1, y1 = x0 + w * scale - 2 * inset, y0 + h * scale - 2 * inset
    rx, ry = max(rx * scale - inset, 0.0), max(ry * scale - inset, 0.0)
    if rx <= 0 or ry <= 0:
        return (x0, y0, x1, y0, x1, y1, x0, y1)
    n = _steps(max(rx, ry))
    unit = _circle(n)
    out: list[float] = []
    for cx, cy, quarter in ((x1 - rx, y0 + ry, 3), (x1 - rx, y1 - ry, 0), (x0 + rx, y1 - ry, 1), (x0 + rx, y0 + ry, 2)):
        out += [v for c, s in unit[quarter * n:quarter * n + n + 1] for v in (cx + rx * c, cy + ry * s)]
    return tuple(out)


@lru_cache(maxsize=64)
def _circle(n: int) -> tuple[Point, ...]:
    """The unit circle in ``4 n + 1`` points from angle 0 round to 0 again (``n`` a quarter)."""
    return tuple((math.cos(math.pi / 2 * i / n), math.sin(math.pi / 2 * i / n)) for i in range(4 * n + 1))


def _rounded(line: list[Point], r: float, caps: bool) -> list[list[Point]]:
    """The stroke of ``line`` (half width ``r``, round joins, round ``caps`` or butt) as
    polygons of one orientation, narrowed by :data:`INSET`, to fill in one pass: a rectangle
    per segment and, where it turns, the wedge of a disc on the outer side (a disc at each end
    for round caps)."""
    out = []
    dirs = []
    for (ax, ay), (bx, by) in zip(line, line[1:], strict=False):
        length = math.hypot(bx - ax, by - ay)
        if length == 0:
            continue
        ux, uy = (bx - ax) / length, (by - ay) / length
        dirs.append((ux, uy, bx, by))
        if length > 2 * INSET:  # (a sliver shorter is left out: narrowed, it would turn inside out)
            # narrowed by INSET on every side, its corners in the order of a positive area
            nx, ny, ex, ey = -uy * (r - INSET), ux * (r - INSET), ux * INSET, uy * INSET
            out.append([(ax + ex - nx, ay + ey - ny), (bx - ex - nx, by - ey - ny), (bx - ex + nx, by - ey + ny),
                        (ax + ex + nx, ay + ey + ny)])
    if not dirs:
        return []
    arc = r - INSET  # a wedge is widened by aggdraw, into the rectangles beside it too
    for (ux, uy, px, py), (vx, vy, _qx, _qy) in zip(dirs, dirs[1:], strict=False):  # turning at (px, py)
        p = (px, py)
        cross, dot = ux * vy - uy * vx, ux * vx + uy * vy
        if abs(cross) < 1e-9 and dot > 0:
            continue
        side = -1.0 if cross > 0 else 1.0  # the outer side of the turn
        start = math.atan2(ux * side, -uy * side)
        turn = math.atan2(abs(cross), dot) * (1.0 if cross > 0 else -1.0)
        n = max(1, math.ceil(abs(turn) / (math.pi / 2) * _steps(r)))
        wedge = [p, *((p[0] + arc * math.cos(start + turn * i / n), p[1] + arc * math.sin(start + turn * i / n))
                      for i in range(n + 1))]
        out.append(wedge if turn > 0 else wedge[::-1])  # of a positive area
    if caps:
        out += [_disc(line[0], arc), _disc(line[-1], arc)]  # (of a positive area)
    return out


def _oriented(pts: list[Point]) -> list[Point]:
    """``pts`` turning the way of a positive area (AGG fills overlapping parts of one way as one)."""
    return pts if _area(pts) >= 0 else pts[::-1]


def _disc(p: Point, r: float) -> list[Point]:
    return [(p[0] + r * c, p[1] + r * s) for c, s in _circle(_steps(r))[:-1]]


def _dashed(pts: list[Point], pattern: tuple[float, ...]) -> list[list[Point]]:
    """The dashes of the line ``pts`` (a pattern of dash and gap lengths, in pixels, from its
    start), each a line of its own."""
    out: list[list[Point]] = []
    k, left, on = 0, pattern[0], True
    current: list[Point] = [pts[0]]
    for (ax, ay), (bx, by) in zip(pts, pts[1:], strict=False):
        length = math.hypot(bx - ax, by - ay)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length
            p = (ax + (bx - ax) * t, ay + (by - ay) * t)
            if on:
                current.append(p)
                out.append(current)
            current = [p]
            k = (k + 1) % len(pattern)
            left, on = pattern[k], not on
        left -= length - done
        if on:
            current.append((bx, by))
    if on and len(current) > 1:
        out.append(current)
    return [line for line in out if len(line) > 1]


def _extended(line: list[Point], d: float) -> list[Point]:
    """A line lengthened by ``d`` at both ends (a square cap)."""
    def beyond(p: Point, q: Point) -> Point:
        length = math.hypot(p[0] - q[0], p[1] - q[1]) or 1.0
        return (p[0] + (p[0] - q[0]) / length * d, p[1] + (p[1] - q[1]) / length * d)
    return [beyond(line[0], line[1]), *line[1:-1], beyond(line[-1], line[-2])]
