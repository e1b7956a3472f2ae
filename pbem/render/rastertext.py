"""The words of a map drawing, drawn by Pillow (FreeType) over its picture.

resvg would load the font files on every drawing (the Noto CJK collections weigh about 20 MB
each) and shape every name again; here the fonts are opened once per process and size. A
``<text>`` element is drawn as the map's style sheet says (size, weight, fill, anchor, central
baseline, letter spacing, and the halo: a stroke painted under the fill), with DejaVu Sans for
Latin text and symbols and Noto Sans CJK TC for Chinese, the fonts the drawing names; the
glyphs FreeType renders are kept on disk for the next runs (:mod:`pbem.render.rasterglyphs`). Pillow's
basic layout (no system library) keeps the same bytes on every machine with the same Pillow.
"""

from __future__ import annotations

import html
import math
import re
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from pbem.render.fontfiles import CJK, CJK_FACE, LATIN

if TYPE_CHECKING:
    from PIL import Image, ImageFont

_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")
_TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
_ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_NUMBER = re.compile(r"-?\d*\.?\d+")


class Words(NamedTuple):
    """One ``<text>`` element as it is painted, in view units (a named tuple: made for every
    word near a crop, three times faster than a frozen dataclass)."""

    x: float
    y: float
    text: str
    size: float
    bold: bool
    fill: str
    anchor: str  # start, middle or end
    central: bool  # dominant-baseline: central (else the alphabetic baseline)
    halo: str | None  # the stroke's colour, painted under the fill
    halo_width: float
    spacing: float  # letter-spacing


Rules = tuple[tuple[int, int, frozenset[str], tuple[tuple[str, str], ...]], ...]


@lru_cache(maxsize=8)
def style_rules(svg: str) -> Rules:
    """The class rules of the drawing's style sheet (``.a`` and ``.a.b``; element selectors as
    no class), each with its specificity and place, in the order they apply."""
    m = re.search(r"<style[^>]*>(.*?)</style>", svg, re.S)
    if not m:
        return ()
    css = m.group(1).replace("<![CDATA[", "").replace("]]>", "")
    rules = []
    for place, (selectors, body) in enumerate(_RULE.findall(css)):
        decls = tuple(_declarations(body).items())
        for sel in selectors.split(","):
            sel = sel.strip()
            if sel.startswith(".") and " " not in sel:
                classes = frozenset(sel[1:].split("."))
                rules.append((len(classes), place, classes, decls))
            elif sel in ("svg", "text"):
                rules.append((0, place, frozenset(), decls))
    return tuple(sorted(rules, key=lambda r: (r[0], r[1])))


def _declarations(body: str) -> dict[str, str]:
    out = {}
    for decl in body.split(";"):
        if ":" in decl:
            k, v = decl.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def words(svg: str, rules: Rules | None = None) -> list[Words]:
    """The ``<text>`` elements of ``svg`` (a drawing or part of one), in document order."""
    rules = style_rules(svg) if rules is None else rules
    return [w for m in _TEXT.finditer(svg) if (w := element(m.group(1), m.group(2), rules)) is not None]


class Unsupported(ValueError):
    """A ``<text>`` painted in a way this does not draw (resvg then draws the layer)."""


_PAINTED = {"font-family", "font-size", "font-weight", "fill", "stroke", "stroke-width", "stroke-linejoin",
            "paint-order", "text-anchor", "dominant-baseline", "letter-spacing"}
_NAMED = {"class", "id", "x", "y", "style", "lang", "xml:lang"}


def element(attrs: str, content: str, rules: Rules) -> Words | None:
    """The painting of one ``<text>`` element: presentation attributes, then the style sheet's
    rules, then its own ``style`` (the order CSS gives them). Raises :class:`Unsupported` for
    a property this does not paint (a transform, a rotation, an opacity, a fill painted over
    its stroke...)."""
    at = dict(_XY.findall(attrs))
    painted = _paints(rules)  # (a rules tuple hashed for each word cost more than the rest)
    rest = _XY.sub("", attrs)
    paint = painted.get(rest)
    if paint is None:
        paint = painted[rest] = _paint(rest, rules)
    size, bold, fill, anchor, central, halo, halo_width, spacing = paint
    if not _NUMBER.fullmatch(at.get("x", "0")) or not _NUMBER.fullmatch(at.get("y", "0")):
        raise Unsupported("x, y")
    text = html.unescape(content)
    if not text.strip() or "x" not in at or "y" not in at:
        return None
    return Words(x=float(at["x"]), y=float(at["y"]), text=text, size=size, bold=bold, fill=fill, anchor=anchor,
                 central=central, halo=halo, halo_width=halo_width, spacing=spacing)


_XY = re.compile(r' ([xy])="([^"]*)"')
# the paintings (:func:`_paint`) worked out under each of the last style sheets' rules, found by
# the rules' identity: id → (the rules, attributes → painting)
_PAINTS: dict[int, tuple[Rules, dict[str, tuple[float, bool, str, str, bool, str | None, float, float]]]] = {}


def _paints(rules: Rules) -> dict[str, tuple[float, bool, str, str, bool, str | None, float, float]]:
    """The paintings worked out under ``rules``, by their elements' attributes (but the place)."""
    kept = _PAINTS.get(id(rules))
    if kept is None or kept[0] is not rules:
        if len(_PAINTS) >= 8:
            del _PAINTS[next(iter(_PAINTS))]
        kept = _PAINTS[id(rules)] = (rules, {})
    return kept[1]


def _paint(attrs: str, rules: Rules) -> tuple[float, bool, str, str, bool, str | None, float, float]:
    """How :func:`element` paints a ``<text>`` of these attributes (but its place): the same
    for every element of the same classes and style, worked out once."""
    a = dict(_ATTR.findall(attrs))
    props = {k: v for k, v in a.items() if k not in _NAMED}
    classes = set(a.get("class", "").split())
    for _spec, _place, sel, decls in rules:
        if sel <= classes:
            props.update(decls)
    props.update(_declarations(a.get("style", "")))
    odd = set(props) - _PAINTED
    if odd:
        raise Unsupported(", ".join(sorted(odd)))
    if props.get("stroke", "none") != "none" and props.get("paint-order", "").split()[:1] != ["stroke"]:
        raise Unsupported("a stroke painted over the fill")
    if props.get("dominant-baseline", "auto") not in ("auto", "alphabetic", "central"):
        raise Unsupported("dominant-baseline")

    def number(key: str, default: float) -> float:
        m = _NUMBER.match(props.get(key, ""))
        return float(m.group(0)) if m else default
    halo = props.get("stroke")
    return (number("font-size", 16.0), props.get("font-weight", "normal") in ("bold", "bolder", "600", "700", "800", "900"),
            props.get("fill", "#000000"), props.get("text-anchor", "start"), props.get("dominant-baseline") == "central",
            halo if halo and halo != "none" else None, number("stroke-width", 1.0), number("letter-spacing", 0.0))


@lru_cache(maxsize=128)
def font(cjk: bool, bold: bool, size: float) -> ImageFont.FreeTypeFont:
    """The font for Chinese (``cjk``) or other text, ``size`` pixels, opened once per process."""
    from PIL import ImageFont

    path = (CJK if cjk else LATIN)[bold]
    return ImageFont.truetype(path, size, index=CJK_FACE if cjk else 0, layout_engine=ImageFont.Layout.BASIC)


def _runs(text: str) -> list[tuple[bool, str]]:
    """``text`` cut where it passes between Chinese and other characters."""
    out: list[tuple[bool, str]] = []
    for ch in text:
        cjk = _CJK.match(ch) is not None
        if out and out[-1][0] == cjk:
            out[-1] = (cjk, out[-1][1] + ch)
        else:
            out.append((cjk, ch))
    return out


def draw(picture: Image.Image, items: list[Words], scale: float, dx: float, dy: float) -> None:
    """Paint ``items`` on ``picture`` (view units to pixels: ``x * scale + dx``), each element's
    halo under its fill, element after element. Glyphs stand on whole pixels vertically and
    quarter pixels horizontally, so each is rendered once per process in four positions; a
    word's glyphs are laid together on one mask per paint (:func:`word`), laid on the picture
    at once."""
    w, h = picture.size
    picture.load()
    target = picture.im
    for item in items:
        size = round(item.size * scale, 2)
        reach = size * (len(item.text) + 1) + item.spacing * scale * len(item.text)
        ax, ay = item.x * scale + dx, item.y * scale + dy
        if size < 1 or ax + reach < 0 or ax - reach > w or ay + 2 * size < 0 or ay - 2 * size > h:
            continue  # nothing of it reaches the picture
        spacing = item.spacing * scale
        width = _layout(item.text, item.bold, size, spacing)[1]
        x = ax - {"middle": width / 2, "end": width}.get(item.anchor, 0.0)
        y = ay
        if item.central:  # the middle of the first font's em box on the line
            ascent, descent = font(False, item.bold, size).getmetrics()
            y += (ascent - descent) / 2
        y = round(y)
        whole = math.floor(x)
        halo = round(item.halo_width * scale / 2, 2) if item.halo is not None and item.halo_width > 0 else 0.0
        for stroke, paint in ((halo, item.halo), (0.0, item.fill)):
            if paint is None or paint == "none" or (stroke == 0.0 and paint is item.halo):
                continue
            mask, left, top = word(item.text, item.bold, size, spacing, stroke, x - whole)
            if mask is not None:
                at = (whole + left, y + top)
                target.paste(ink(paint, picture.mode), (*at, at[0] + mask.width, at[1] + mask.height), mask.im)


@lru_cache(maxsize=4096)
def _layout(text: str, bold: bool, size: float, spacing: float) -> tuple[tuple[tuple[bool, str, float], ...], float]:
    """Each character of ``text`` (Chinese or not) and where it stands from the start, in
    pixels, and the width of the whole."""
    glyphs = []
    at = 0.0
    for cjk, part in _runs(text):
        for ch in part:
            glyphs.append((cjk, ch, at))
            at += advance(cjk, bold, size, ch) + spacing
    return tuple(glyphs), at - (spacing if glyphs else 0.0)


@lru_cache(maxsize=4096)
def word(text: str, bold: bool, size: float, spacing: float, stroke: float,
         shift: float) -> tuple[Image.Image | None, int, int]:
    """The coverage of ``text`` (with a stroke ``stroke`` pixels wide around each glyph when not
    0) starting ``shift`` pixels right of a whole pixel on the baseline, each glyph drawn at the
    nearest quarter pixel, and where its top-left corner stands from that point. Kept for the
    process (names recur on every map of a language)."""
    from PIL import Image

    placed = []
    for cjk, ch, offset in _layout(text, bold, size, spacing)[0]:
        gx = shift + offset
        whole = math.floor(gx)
        mask, left, top = glyph(cjk, bold, size, ch, round((gx - whole) * 4) / 4, stroke)
        if mask is not None:
            placed.append((mask, whole + left, top))
    if not placed:
        return None, 0, 0
    x0, y0 = min(x for _m, x, _y in placed), min(y for _m, _x, y in placed)
    x1, y1 = max(x + m.width for m, x, _y in placed), max(y + m.height for m, _x, y in placed)
    out = Image.new("L", (x1 - x0, y1 - y0))
    for mask, x, y in placed:  # as painting each glyph in turn would lay it
        out.im.paste(255, (x - x0, y - y0, x - x0 + mask.width, y - y0 + mask.height), mask.im)
    return out, x0, y0


@lru_cache(maxsize=8192)
def glyph(cjk: bool, bold: bool, size: float, ch: str, shift: float, stroke: float) -> tuple[Image.Image | None, int, int]:
    """The coverage of one character (with a stroke ``stroke`` pixels wide around it when not 0)
    drawn ``shift`` pixels right of a whole pixel on the baseline, and where its top-left corner
    stands from that point; kept on disk for the next runs (:mod:`pbem.render.rasterglyphs`)."""
    from PIL import Image

    from pbem.render import rasterglyphs

    if not ch.strip():
        return None, 0, 0
    kept = rasterglyphs.find((cjk, bold, size, stroke), ch, shift)  # rendered by an earlier run
    if kept is not None:
        return kept
    # a stroke's coverage is a ring around the outline: the fill painted over it covers the rest
    core, (left, top) = font(cjk, bold, size).getmask2(ch, "L", stroke_width=stroke, anchor="ls", start=(shift, 0.0))
    mask = Image.Image()._new(core)
    if mask.width == 0 or mask.height == 0:
        rasterglyphs.add((cjk, bold, size, stroke), ch, shift, None, 0, 0)
        return None, 0, 0
    rasterglyphs.add((cjk, bold, size, stroke), ch, shift, mask, left, top)
    return mask, left, top


@lru_cache(maxsize=256)
def ink(paint: str, mode: str) -> float | tuple[int, ...]:
    """A CSS colour as ``mode``'s pixel value."""
    from PIL import ImageColor

    return ImageColor.getcolor(paint, mode)


@lru_cache(maxsize=8192)
def advance(cjk: bool, bold: bool, size: float, ch: str) -> float:
    """How far one character moves the pen, in pixels."""
    return font(cjk, bold, size).getlength(ch)
