"""A map's plain shapes drawn on their tiles by Anti-Grain Geometry, not by resvg.

resvg (the ``resvg-py`` wheel) returns a PNG, which costs a millisecond a call and by the pixel
even for an empty canvas; reading a stored tile back costs a tenth of that. The pieces, marks and
arrows over a map's ground are rectangles, circles, polygons and polylines painted by their own
attributes: ``aggdraw`` (the AGG rasterizer on a sheet of bytes, one self-contained wheel)
draws such a tile in tens of microseconds, antialiased as resvg does it.

:func:`tile` draws what it fully understands and returns ``None`` for anything else, which
resvg then draws: a pattern or any other paint by reference but an arrowhead marker, a shape a
style rule paints (by its class) or a style sheet that can paint shapes naming no class, a
transform, words, a curve, an unknown tag or attribute. Its pixels differ from resvg's by the
rounding of anti-aliased edges (``tests/test_rastershapes.py`` holds them to resvg's).

What AGG does not do as SVG does, this does by hand:

- aggdraw fills a shape through a contour widened by a quarter pixel on every side: a filled
  outline is given narrowed by as much (its polygon's edges moved in, a circle's radius less);
- its pen has AGG's defaults (mitre joins up to a mitre limit of 4, butt caps, no dashes), which
  are SVG's: a dash pattern is cut along the line here, and a round join (or cap) is a disc at
  the joint drawn with the dash's segments;
- circles and rounded corners are polygons fine enough that no edge stands off by a
  fiftieth of a pixel;
- ``opacity`` (on a shape, its arrowhead included, or on a group) is a layer of its own, drawn
  opaque, faded and laid over what is below, as SVG composites a group.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

TAG = re.compile(r"<(/?)([\w:-]+)([^>]*)>")  # the attributes end with the "/" of an empty element
ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
NUMBER = re.compile(r"-?\d*\.?\d+(?:[eE][-+]?\d+)?")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}")
_PATH = re.compile(r"[MLZz]|[^MLZz]+")
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASSES = re.compile(r"(?:\.[\w-]+)+")
_MARKER = re.compile(r"<marker\b([^>]*)>(.*?)</marker>", re.S)

INSET = 0.25  # pixels by which aggdraw widens a filled outline

# what a shape's own attributes may say (with their geometry, below); anything else is resvg's
_PAINT = {"id", "class", "fill", "stroke", "stroke-width", "opacity", "fill-opacity", "stroke-opacity",
          "stroke-dasharray", "stroke-linejoin", "stroke-linecap"}
_GEOMETRY = {"rect": {"x", "y", "width", "height", "rx", "ry"}, "circle": {"cx", "cy", "r"},
             "ellipse": {"cx", "cy", "rx", "ry"}, "line": {"x1", "y1", "x2", "y2"},
             "polyline": {"points"}, "polygon": {"points"}, "path": {"d"}, "g": set()}
_INHERITED = ("fill", "stroke", "stroke-width", "fill-opacity", "stroke-opacity", "stroke-dasharray",
              "stroke-linejoin", "stroke-linecap")
_ROOT = {"fill": "#000000", "stroke": "none", "stroke-width": "1", "fill-opacity": "1", "stroke-opacity": "1",
         "stroke-dasharray": "none", "stroke-linejoin": "miter", "stroke-linecap": "butt"}


class Unsupported(ValueError):
    """A shape painted in a way this does not draw (resvg then draws its tile)."""


Box = tuple[int, int, int, int]
Point = tuple[float, float]
# an outline in view units: ("poly", points, closed), ("ellipse", cx, cy, rx, ry) or
# ("rect", x, y, width, height, rx, ry)
Outline = tuple[Any, ...]
# what to paint: ("fill", outline, colour, alpha), ("stroke", outline, colour, alpha, width, join,
# cap, dashes) or ("layer", opacity, ops)
Op = tuple[Any, ...]


def tile(defs: str, shapes: Sequence[str], grid: tuple[float, float, float], box: Box) -> Image.Image | None:
    """``shapes`` (elements of a drawing whose definitions are ``defs``) drawn over the pixels
    ``box`` of the grid (scale, offset: :func:`pbem.render.rastersprites.grid`) as resvg draws
    them, RGBA; ``None`` when one of them is painted in a way this does not draw."""
    scale, fx, fy = grid
    x0, y0, x1, y1 = box
    try:
        ops = [op for shape in shapes for op in _ops(defs, shape)]
        return _render(ops, (x1 - x0, y1 - y0), (scale, fx - x0, fy - y0))
    except Unsupported:
        return None


def forget() -> None:
    """Forget the shapes read."""
    _ops.cache_clear()


@lru_cache(maxsize=8)
def painting_classes(defs: str) -> tuple[frozenset[str], ...] | None:
    """The classes (each rule's compound, ``.a.b``) that the style sheet of ``defs`` paints shapes
    by; ``None`` when a rule might paint a shape that names no class (rules other than for
    classes, for words, or for the fonts of the whole drawing)."""
    out = []
    for css in _STYLE.findall(defs):
        for selectors, body in _RULE.findall(css.replace("<![CDATA[", "").replace("]]>", "")):
            fonts = all(decl.split(":")[0].strip().startswith("font-") for decl in body.split(";") if decl.strip())
            for sel in (part.strip() for part in selectors.split(",")):
                if _CLASSES.fullmatch(sel):
                    if not fonts:
                        out.append(frozenset(sel[1:].split(".")))
                elif not (sel == "text" or (sel == "svg" and fonts)):
                    return None
    return tuple(out)


@lru_cache(maxsize=8)
def _markers(defs: str) -> dict[str, tuple[float, float, float, float, bool, str, tuple[Op, ...]]]:
    """The markers of ``defs`` this draws: id → (width, height, refX, refY, in stroke widths,
    orient, what they paint in their own units)."""
    out = {}
    for m in _MARKER.finditer(defs):
        a = dict(ATTR.findall(m.group(1)))
        if set(a) - {"id", "markerWidth", "markerHeight", "refX", "refY", "markerUnits", "orient"}:
            continue
        units = a.get("markerUnits", "strokeWidth")
        orient = a.get("orient", "0")
        if units not in ("strokeWidth", "userSpaceOnUse") or not (orient == "auto" or NUMBER.fullmatch(orient)):
            continue
        try:
            w, h = float(a.get("markerWidth", 3)), float(a.get("markerHeight", 3))
            ops = tuple(_parse(m.group(2), (), {}))
            for op in ops:  # wholly inside the marker's viewport, which clips it
                for x, y in _corners(op):
                    if not (0 <= x <= w and 0 <= y <= h):
                        raise Unsupported("a marker's clip")
        except (Unsupported, ValueError):
            continue
        out[a.get("id", "")] = (w, h, float(a.get("refX", 0)), float(a.get("refY", 0)), units == "strokeWidth",
                                orient, ops)
    return out


def _corners(op: Op) -> list[Point]:
    """Where a marker's op reaches (its points, its stroke's half width around them)."""
    if op[0] != "fill" and op[0] != "stroke" or op[1][0] != "poly":
        raise Unsupported(op[0])
    reach = op[4] / 2 * 4 if op[0] == "stroke" else 0.0  # a mitre reaches up to 4 half widths
    return [(x + dx, y + dy) for x, y in op[1][1] for dx in (-reach, reach) for dy in (-reach, reach)]


@lru_cache(maxsize=4096)
def _ops(defs: str, shape: str) -> tuple[Op, ...]:
    """What ``shape`` paints, in view units; :class:`Unsupported` for what this does not draw."""
    painted = painting_classes(defs)
    if painted is None:
        raise Unsupported("the style sheet")
    return tuple(_parse(shape, painted, _markers(defs)))


def _parse(text: str, painted: tuple[frozenset[str], ...], markers: dict[str, Any]) -> list[Op]:
    """The ops of the elements in ``text``: groups open their children to the attributes they
    pass on, a group or a shape with ``opacity`` is a layer."""
    top: list[Op] = []
    stack: list[tuple[dict[str, str], list[Op], float]] = [(_ROOT, top, 1.0)]
    for m in TAG.finditer(text):
        closing, tag, rest = m.group(1), m.group(2), m.group(3)
        if tag == "title":
            continue
        if closing:
            if tag == "g":
                if len(stack) == 1:
                    raise Unsupported("</g>")
                _style, children, faded = stack.pop()
                _add(stack[-1][1], children, faded)
            continue
        if tag not in _GEOMETRY:
            raise Unsupported(tag)
        a = dict(ATTR.findall(rest))
        if set(a) - _PAINT - _GEOMETRY[tag] - ({"marker-end"} if tag in ("line", "polyline", "path") else set()):
            raise Unsupported(f"{tag} {sorted(a)}")
        if "class" in a and painted:
            classes = set(a["class"].split())
            if any(rule <= classes for rule in painted):
                raise Unsupported(a["class"])
        style = stack[-1][0]
        if any(k in a for k in _INHERITED):
            style = {**style, **{k: a[k] for k in _INHERITED if k in a}}
        opacity = _fraction(a.get("opacity", "1"))
        if tag == "g":
            if not rest.rstrip().endswith("/"):
                stack.append((style, [], opacity))
            continue
        ops: list[Op] = []
        _shape(tag, a, style, markers, ops)
        _add(stack[-1][1], ops, opacity)
    if len(stack) != 1:
        raise Unsupported("<g>")
    return top


def _add(ops: list[Op], more: list[Op], opacity: float) -> None:
    if opacity >= 1.0:
        ops += more
    elif opacity > 0.0 and more:
        ops.append(("layer", opacity, tuple(more)))


def _fraction(text: str) -> float:
    if not NUMBER.fullmatch(text.strip()):
        raise Unsupported(text)
    return min(1.0, max(0.0, float(text)))


def _length(a: dict[str, str], name: str, default: float = 0.0) -> float:
    text = a.get(name)
    if text is None:
        return default
    if not NUMBER.fullmatch(text.strip()):
        raise Unsupported(text)
    return float(text)


def _points(text: str) -> list[Point]:
    nums = [float(v) for v in NUMBER.findall(text)]
    return list(zip(nums[0::2], nums[1::2], strict=False))


def _shape(tag: str, a: dict[str, str], style: dict[str, str], markers: dict[str, Any], ops: list[Op]) -> None:
    """The ops of one shape (its fill, its stroke, its arrowhead) appended to ``ops``."""
    outlines: list[Outline]
    if tag == "rect":
        w, h = _length(a, "width"), _length(a, "height")
        if w <= 0 or h <= 0:
            return
        rx, ry = a.get("rx"), a.get("ry")
        rx_ = _length(a, "rx") if rx is not None else (_length(a, "ry") if ry is not None else 0.0)
        ry_ = _length(a, "ry") if ry is not None else rx_
        outlines = [("rect", _length(a, "x"), _length(a, "y"), w, h, min(max(rx_, 0.0), w / 2),
                     min(max(ry_, 0.0), h / 2))]
    elif tag in ("circle", "ellipse"):
        rx_ = _length(a, "r") if tag == "circle" else _length(a, "rx")
        ry_ = _length(a, "r") if tag == "circle" else _length(a, "ry")
        if rx_ <= 0 or ry_ <= 0:
            return
        outlines = [("ellipse", _length(a, "cx"), _length(a, "cy"), rx_, ry_)]
    elif tag == "line":
        outlines = [("poly", ((_length(a, "x1"), _length(a, "y1")), (_length(a, "x2"), _length(a, "y2"))), False)]
    elif tag in ("polyline", "polygon"):
        pts = _points(a.get("points", ""))
        if len(pts) < 2:
            return
        outlines = [("poly", tuple(pts), tag == "polygon")]
    else:
        outlines = _path(a.get("d", ""))
    fill, stroke = style["fill"], style["stroke"]
    if fill != "none" and tag != "line":
        if len(outlines) != 1:
            raise Unsupported("a filled path of several parts")
        ops.append(("fill", outlines[0], _colour(fill), _fraction(style["fill-opacity"])))
    width = _length(style, "stroke-width", 1.0)
    if stroke != "none" and width > 0:
        join, cap = style["stroke-linejoin"], style["stroke-linecap"]
        if join not in ("miter", "round") or cap not in ("butt", "round", "square"):
            raise Unsupported(f"{join} {cap}")
        dashes = _dashes(style["stroke-dasharray"])
        for outline in outlines:
            if outline[0] != "poly" or outline[2]:  # closed: AGG's mitres, SVG's start of dashes
                if dashes or join != "miter":
                    raise Unsupported("a closed outline's dashes or joins")
            if join == "miter" and outline[0] == "poly":
                _mitres(outline[1], outline[2])
            ops.append(("stroke", outline, _colour(stroke), _fraction(style["stroke-opacity"]), width, join, cap,
                        dashes))
    if "marker-end" in a:
        ref = re.fullmatch(r"url\(#([\w-]+)\)", a["marker-end"])
        if ref is None or ref.group(1) not in markers or outlines[-1][0] != "poly":
            raise Unsupported(a["marker-end"])
        ops += _marker(markers[ref.group(1)], outlines[-1][1], width)


def _path(d: str) -> list[Outline]:
    """The parts of a path of absolute moves and lines (``M``, ``L``, ``Z``)."""
    out: list[Outline] = []
    pts: list[Point] = []
    command = ""
    for token in _PATH.findall(d):
        if token in "MLZz":
            if token in "Zz":
                if len(pts) >= 2:
                    out.append(("poly", tuple(pts), True))
                pts = [pts[0]] if pts else []
            elif token == "M" and len(pts) >= 2:
                out.append(("poly", tuple(pts), False))
                pts = []
            elif token == "M":
                pts = []
            command = token
        elif token.strip(" ,"):
            if command not in ("M", "L") or re.search(r"[^\d\s,.eE+-]", token):
                raise Unsupported(d[:40])
            pts += _points(token)
    if len(pts) >= 2:
        out.append(("poly", tuple(pts), False))
    if not out:
        raise Unsupported(d[:40])
    return out


def _colour(text: str) -> str:
    text = text.strip()
    if not _COLOUR.fullmatch(text):
        raise Unsupported(text)
    if len(text) == 4:
        text = "#" + "".join(c * 2 for c in text[1:])
    return text.lower()


def _dashes(text: str) -> tuple[float, ...]:
    if text.strip() == "none":
        return ()
    values = [float(v) for v in NUMBER.findall(text)]
    if not values or any(v < 0 for v in values) or len(re.sub(r"[\d\s,.eE+-]", "", text)):
        raise Unsupported(text)
    if sum(values) <= 0:
        return ()
    return tuple(values * 2 if len(values) % 2 else values)


def _mitres(pts: Sequence[Point], closed: bool) -> None:
    """:class:`Unsupported` when a joint is so sharp that SVG bevels it (mitre limit 4), where AGG
    cuts the mitre square."""
    n = len(pts)
    for i in range(n if closed else n - 2):
        (ax, ay), (bx, by), (cx, cy) = pts[i], pts[(i + 1) % n], pts[(i + 2) % n]
        ux, uy, vx, vy = bx - ax, by - ay, cx - bx, cy - by
        lu, lv = math.hypot(ux, uy), math.hypot(vx, vy)
        if lu and lv and (ux * vx + uy * vy) / (lu * lv) < -0.875:  # 1/sin(half the angle) > 4
            raise Unsupported("a sharp mitre")


def _marker(marker: tuple[Any, ...], pts: Sequence[Point], width: float) -> list[Op]:
    """A marker's ops at the end of the line ``pts`` (turned along its last segment), in view
    units."""
    _w, _h, rx, ry, by_width, orient, ops = marker
    (ax, ay), (bx, by) = pts[-2], pts[-1]
    if orient == "auto":
        if (ax, ay) == (bx, by):
            raise Unsupported("an arrowhead's direction")
        angle = math.atan2(by - ay, bx - ax)
    else:
        angle = math.radians(float(orient))
    k = width if by_width else 1.0
    c, s = math.cos(angle) * k, math.sin(angle) * k

    def place(p: Point) -> Point:
        u, v = p[0] - rx, p[1] - ry
        return (bx + u * c - v * s, by + u * s + v * c)

    out: list[Op] = []
    for op in ops:
        outline = ("poly", tuple(place(p) for p in op[1][1]), op[1][2])
        out.append((op[0], outline, *op[2:4], *((op[4] * k, *op[5:]) if op[0] == "stroke" else ())))
    return out


# drawing, in pixels

_pens: dict[tuple[str, int, float], Any] = {}
_brushes: dict[tuple[str, int], Any] = {}


def _render(ops: Sequence[Op], size: tuple[int, int], to: tuple[float, float, float]) -> Image.Image:
    """``ops`` on a transparent RGBA sheet of ``size``, view units mapped by ``to`` (scale,
    offset x, offset y)."""
    from PIL import Image

    out: Image.Image | None = None
    start = 0
    for i in [*(i for i, op in enumerate(ops) if op[0] == "layer"), len(ops)]:
        parts = []
        if i > start:
            parts.append(_sheet(ops[start:i], size, to))
        if i < len(ops):
            layer = _render(ops[i][2], size, to)
            alpha = layer.getchannel("A").point([round(v * ops[i][1]) for v in range(256)])
            layer.putalpha(alpha)
            parts.append(layer)
        for part in parts:
            out = part if out is None else Image.alpha_composite(out, part)
        start = i + 1
    return out if out is not None else Image.new("RGBA", size)


def _sheet(ops: Sequence[Op], size: tuple[int, int], to: tuple[float, float, float]) -> Image.Image:
    """``ops`` (no layer among them) drawn by aggdraw."""
    import aggdraw
    from PIL import Image

    draw = aggdraw.Draw("RGBA", size, (0, 0, 0, 0))
    scale, ox, oy = to
    for op in ops:
        alpha = round(op[3] * 255)
        if op[0] == "fill":
            brush = _brushes.get((op[2], alpha))
            if brush is None:
                brush = _brushes[op[2], alpha] = aggdraw.Brush(op[2], alpha)
            draw.polygon(_filled(op[1], to), brush)
            continue
        width = op[4] * scale
        pen = _pens.get((op[2], alpha, width))
        if pen is None:
            if len(_pens) > 256:
                _pens.clear()
            pen = _pens[op[2], alpha, width] = aggdraw.Pen(op[2], width, alpha)
        outline = op[1]
        if outline[0] != "poly":
            draw.polygon(_flat(_round_outline(outline, to, 0.0)), pen)
            continue
        pts = [(x * scale + ox, y * scale + oy) for x, y in outline[1]]
        if outline[2]:
            draw.polygon(_flat(pts), pen)
            continue
        join, cap, dashes = op[5], op[6], op[7]
        lines = _dashed(pts, tuple(d * scale for d in dashes)) if dashes else [pts]
        if cap == "square":
            lines = [_extended(line, width / 2) for line in lines]
        if ((join == "round" and len(pts) > 2) or cap == "round") and width > 4 * INSET:
            brush = _brushes.get((op[2], alpha))
            if brush is None:
                brush = _brushes[op[2], alpha] = aggdraw.Brush(op[2], alpha)
            path = aggdraw.Path()
            for line in lines:
                for part in _rounded(line, width / 2, cap == "round"):
                    path.moveto(*part[0])
                    for p in part[1:]:
                        path.lineto(*p)
                    path.close()
            draw.path(path, brush)  # one pass: the parts overlap with no seam
            continue
        for line in lines:
            draw.line(_flat(line), pen)
    picture = Image.new("RGBA", size)
    picture.frombytes(draw.tobytes(), "raw", "RGBa")  # AGG's sheet holds premultiplied colours
    return picture


def _flat(pts: Sequence[Point]) -> list[float]:
    return [v for p in pts for v in p]


def _filled(outline: Outline, to: tuple[float, float, float]) -> list[float]:
    """The polygon aggdraw fills to paint ``outline`` (narrowed by :data:`INSET`), in pixels."""
    if outline[0] != "poly":
        return _flat(_round_outline(outline, to, INSET))
    scale, ox, oy = to
    pts = [(x * scale + ox, y * scale + oy) for x, y in outline[1]]
    narrowed = _inset(pts, INSET)
    if _area(narrowed) * _area(pts) <= 0:
        raise Unsupported("a fill thinner than aggdraw widens it")
    return _flat(narrowed)


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
    scale, ox, oy = to
    if min(outline[3:5]) * scale < 2 * inset + 0.1:
        raise Unsupported("a fill thinner than aggdraw widens it")
    if outline[0] == "ellipse":
        _kind, cx, cy, rx, ry = outline
        rx, ry = rx * scale - inset, ry * scale - inset
        x, y = cx * scale + ox, cy * scale + oy
        return [(x + rx * c, y + ry * s) for c, s in _circle(_steps(max(rx, ry)))[:-1]]
    _kind, x, y, w, h, rx, ry = outline
    x0, y0 = x * scale + ox + inset, y * scale + oy + inset
    x1, y1 = x0 + w * scale - 2 * inset, y0 + h * scale - 2 * inset
    rx, ry = max(rx * scale - inset, 0.0), max(ry * scale - inset, 0.0)
    if rx <= 0 or ry <= 0:
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    n = _steps(max(rx, ry))
    unit = _circle(n)
    out = []
    for cx, cy, quarter in ((x1 - rx, y0 + ry, 3), (x1 - rx, y1 - ry, 0), (x0 + rx, y1 - ry, 1), (x0 + rx, y0 + ry, 2)):
        out += [(cx + rx * c, cy + ry * s) for c, s in unit[quarter * n:quarter * n + n + 1]]
    return out


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
        nx, ny = -uy * r, ux * r
        if length > 2 * INSET:  # (a sliver shorter is left out: narrowed, it would turn inside out)
            out.append(_inset(_oriented([(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)]),
                              INSET))
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
        out.append(_oriented([p, *((p[0] + arc * math.cos(start + turn * i / n), p[1] + arc * math.sin(start + turn * i / n))
                                   for i in range(n + 1))]))
    if caps:
        out += [_oriented(_disc(line[0], arc)), _oriented(_disc(line[-1], arc))]
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
