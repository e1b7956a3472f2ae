"""A map's plain shapes drawn on their tiles by Anti-Grain Geometry, not by resvg.

resvg (the ``resvg-py`` wheel) returns a PNG, which costs a millisecond a call and by the pixel
even for an empty canvas; reading a stored tile back costs a tenth of that. The pieces, marks and
arrows over a map's ground are rectangles, circles, polygons and polylines painted by their own
attributes: ``aggdraw`` (the AGG rasterizer on a sheet of bytes, one self-contained wheel)
draws such a tile in tens of microseconds, antialiased as resvg does it.

:func:`tile` reads each element into what it paints (fills, strokes, layers: the ops that
:mod:`pbem.render.rasteragg` draws) and returns ``None`` for anything it does not fully
understand, which resvg then draws: a paint by reference other than an arrowhead marker or a
pattern of bands (Maria's hatching), a shape a style rule paints (by its class) or a style
sheet that can paint shapes naming no class, a transform, words, a curve, an unknown tag or
attribute. Its pixels differ from resvg's by the rounding of anti-aliased edges
(``tests/test_rastershapes.py`` holds them to resvg's).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pbem.render.rasteragg import Op, Outline, Point, Unsupported, render

if TYPE_CHECKING:
    from PIL import Image

TAG = re.compile(r"<(/?)([\w:-]+)([^>]*)>")  # the attributes end with the "/" of an empty element
ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
NUMBER = re.compile(r"-?\d*\.?\d+(?:[eE][-+]?\d+)?")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}")
_PATH = re.compile(r"[MLZz]|[^MLZz]+")
STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASSES = re.compile(r"(?:\.[\w-]+)+")
_MARKER = re.compile(r"<marker\b([^>]*)>(.*?)</marker>", re.S)
_URL = re.compile(r"url\(#([\w-]+)\)")


# what a shape's own attributes may say (with their geometry, below); anything else is resvg's
_PAINT = {"id", "class", "fill", "stroke", "stroke-width", "opacity", "fill-opacity", "stroke-opacity",
          "stroke-dasharray", "stroke-linejoin", "stroke-linecap"}
_GEOMETRY = {"rect": {"x", "y", "width", "height", "rx", "ry"}, "circle": {"cx", "cy", "r"},
             "ellipse": {"cx", "cy", "rx", "ry"}, "line": {"x1", "y1", "x2", "y2"},
             "polyline": {"points"}, "polygon": {"points"}, "path": {"d"}, "g": set()}
_INHERITED = ("fill", "stroke", "stroke-width", "fill-opacity", "stroke-opacity", "stroke-dasharray",
              "stroke-linejoin", "stroke-linecap")
_ALLOWED = {tag: frozenset(_PAINT | geometry | ({"marker-end"} if tag in ("line", "polyline", "path") else set()))
            for tag, geometry in _GEOMETRY.items()}  # what each tag's attributes may say
_PASSED = frozenset(_INHERITED)
_ROOT = {"fill": "#000000", "stroke": "none", "stroke-width": "1", "fill-opacity": "1", "stroke-opacity": "1",
         "stroke-dasharray": "none", "stroke-linejoin": "miter", "stroke-linecap": "butt"}


Box = tuple[int, int, int, int]


def tile(defs: str, shapes: Sequence[str], grid: tuple[float, float, float], box: Box) -> Image.Image | None:
    """``shapes`` (elements of a drawing whose definitions are ``defs``) drawn over the pixels
    ``box`` of the grid (scale, offset: :func:`pbem.render.rastersprites.grid`) as resvg draws
    them, RGBA; ``None`` when one of them is painted in a way this does not draw."""
    scale, fx, fy = grid
    x0, y0, x1, y1 = box
    try:
        ops = [op for shape in shapes for op in _ops(defs, shape)]
        return render(ops, (x1 - x0, y1 - y0), (scale, fx - x0, fy - y0))
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
    for css in STYLE.findall(defs):
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
    for painted, a, content in _definitions(defs, _MARKER, {"id", "markerWidth", "markerHeight", "refX", "refY",
                                                             "markerUnits", "orient"}):
        units = a.get("markerUnits", "strokeWidth")
        orient = a.get("orient", "0")
        if units not in ("strokeWidth", "userSpaceOnUse") or not (orient == "auto" or NUMBER.fullmatch(orient)):
            continue
        try:
            w, h = float(a.get("markerWidth", 3)), float(a.get("markerHeight", 3))
            ops = tuple(_parse(content, painted, {}))
            for op in ops:  # wholly inside the marker's viewport, which clips it
                for x, y in _corners(op):
                    if not (0 <= x <= w and 0 <= y <= h):
                        raise Unsupported("a marker's clip")
        except (Unsupported, ValueError):
            continue
        out[a.get("id", "")] = (w, h, float(a.get("refX", 0)), float(a.get("refY", 0)), units == "strokeWidth",
                                orient, ops)
    return out


_PATTERN = re.compile(r"<pattern\b([^>]*)>(.*?)</pattern>", re.S)
_ROTATE = re.compile(r"rotate\(\s*(-?[\d.]+)\s*\)")


@lru_cache(maxsize=8)
def _patterns(defs: str) -> dict[str, tuple[Any, ...]]:
    """The patterns of ``defs`` this draws: id → (the tile's width and height, its turn in
    degrees, the colour filling the whole tile or ``None``, its bands). A band is a line across
    the whole tile, stroked (``x`` for an upright line: the tile's columns ``lo`` to ``hi``,
    repeated every width; ``y`` for a level one), the tile clipping it (its overflow hidden).
    A shape filled by another pattern is resvg's."""
    out = {}
    for painted, a, content in _definitions(defs, _PATTERN, {"id", "width", "height", "patternUnits",
                                                              "patternTransform", "x", "y"}):
        turn = _ROTATE.fullmatch(a.get("patternTransform", "rotate(0)").strip())
        if turn is None or a.get("patternUnits") != "userSpaceOnUse" or float(a.get("x", 0)) or float(a.get("y", 0)):
            continue
        try:
            w, h = float(a["width"]), float(a["height"])
            background = None
            bands = []
            for n, op in enumerate(_parse(content, painted, {})):
                kind, outline = op[0], op[1]
                if (n == 0 and kind == "fill" and outline[0] == "rect" and outline[1:5] == (0.0, 0.0, w, h)
                        and op[3] == 1.0):
                    background = op[2]
                    continue
                if kind != "stroke" or outline[0] != "poly" or len(outline[1]) != 2 or op[7] or op[6] != "butt":
                    raise Unsupported(kind)
                (x0, y0), (x1, y1) = outline[1]
                half = op[4] / 2
                if x0 == x1 and min(y0, y1) <= 0 and max(y0, y1) >= h:
                    bands.append(("x", max(0.0, x0 - half), min(w, x0 + half), op[2], op[3]))
                elif y0 == y1 and min(x0, x1) <= 0 and max(x0, x1) >= w:
                    bands.append(("y", max(0.0, y0 - half), min(h, y0 + half), op[2], op[3]))
                else:
                    raise Unsupported("a pattern's line")
        except (Unsupported, ValueError, KeyError):
            continue
        out[a.get("id", "")] = (w, h, float(turn.group(1)), background, tuple(b for b in bands if b[2] > b[1]))
    return out


def _definitions(defs: str, element: re.Pattern[str], allowed: set[str]
                 ) -> Iterator[tuple[tuple[frozenset[str], ...], dict[str, str], str]]:
    """The definitions ``element`` finds in ``defs`` that say nothing but ``allowed``: the classes
    the style sheet paints, each one's attributes and its content; none when the style sheet
    might paint what they hold."""
    painted = painting_classes(defs)
    if painted is None:
        return
    for m in element.finditer(defs):
        a = dict(ATTR.findall(m.group(1)))
        if not set(a) - allowed:
            yield painted, a, m.group(2)


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
    return tuple(_parse(shape, painted, _markers(defs), _patterns(defs)))


def _parse(text: str, painted: tuple[frozenset[str], ...], markers: dict[str, Any],
           patterns: dict[str, Any] | None = None) -> list[Op]:
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
        if not _ALLOWED[tag].issuperset(a):
            raise Unsupported(f"{tag} {sorted(a)}")
        if "class" in a and painted:
            classes = set(a["class"].split())
            if any(rule <= classes for rule in painted):
                raise Unsupported(a["class"])
        style = stack[-1][0]
        if not _PASSED.isdisjoint(a):
            style = {**style, **{k: a[k] for k in _INHERITED if k in a}}
        given = a.get("opacity")
        opacity = 1.0 if given is None else _fraction(given)
        if tag == "g":
            if not rest.rstrip().endswith("/"):
                stack.append((style, [], opacity))
            continue
        ops: list[Op] = []
        _shape(tag, a, style, markers, patterns or {}, ops)
        _add(stack[-1][1], ops, opacity)
    if len(stack) != 1:
        raise Unsupported("<g>")
    return top


def _add(ops: list[Op], more: list[Op], opacity: float) -> None:
    if opacity >= 1.0:
        ops += more
    elif opacity > 0.0 and more:
        ops.append(("layer", opacity, tuple(more)))


def _number(text: str) -> float:
    """A plain number (no unit, no percentage)."""
    try:
        value = float(text)
    except ValueError:
        raise Unsupported(text) from None
    if not math.isfinite(value) or "_" in text:
        raise Unsupported(text)
    return value


def _fraction(text: str) -> float:
    return min(1.0, max(0.0, _number(text)))


def _length(a: dict[str, str], name: str, default: float = 0.0) -> float:
    text = a.get(name)
    return default if text is None else _number(text)


def _points(text: str) -> list[Point]:
    nums = [float(v) for v in NUMBER.findall(text)]
    return list(zip(nums[0::2], nums[1::2], strict=False))


def _shape(tag: str, a: dict[str, str], style: dict[str, str], markers: dict[str, Any], patterns: dict[str, Any],
           ops: list[Op]) -> None:
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
        ref = _URL.fullmatch(fill.strip())
        if ref is not None:
            if ref.group(1) not in patterns or _fraction(style["fill-opacity"]) < 1.0:
                raise Unsupported(fill)
            ops.append(("pattern", outlines[0], patterns[ref.group(1)], 1.0))
        else:
            if outlines[0][0] == "poly" and not _simple(outlines[0][1]):
                raise Unsupported("a fill of a crossing outline")
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
        ref = _URL.fullmatch(a["marker-end"])
        if ref is None or ref.group(1) not in markers or outlines[-1][0] != "poly" or outlines[-1][2]:
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
    colour = _colours.get(text)
    if colour is None:
        colour = text.strip()
        if not _COLOUR.fullmatch(colour):
            raise Unsupported(text)
        if len(colour) == 4:
            colour = "#" + "".join(c * 2 for c in colour[1:])
        if len(_colours) > 256:
            _colours.clear()
        colour = _colours[text] = colour.lower()
    return colour


_colours: dict[str, str] = {}  # a colour as written → as aggdraw reads it


def _dashes(text: str) -> tuple[float, ...]:
    if text.strip() == "none":
        return ()
    values = [float(v) for v in NUMBER.findall(text)]
    if not values or any(v < 0 for v in values) or len(re.sub(r"[\d\s,.eE+-]", "", text)):
        raise Unsupported(text)
    if sum(values) <= 0:
        return ()
    return tuple(values * 2 if len(values) % 2 else values)


def _simple(pts: Sequence[Point]) -> bool:
    """Whether the closed outline ``pts`` crosses itself nowhere (aggdraw's widened fill of a
    crossing one is not SVG's)."""
    n = len(pts)
    if n < 4:
        return True
    for i in range(n):
        (ax, ay), (bx, by) = pts[i], pts[(i + 1) % n]
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # the sides meeting at the first point
            (cx, cy), (dx, dy) = pts[j], pts[(j + 1) % n]
            d1 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
            d2 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
            d3 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
            d4 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
            if d1 * d2 <= 0 and d3 * d4 <= 0:
                return False
    return True


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
