"""A map drawing as SVG text, and resvg's picture of it: its view box, what of it a box can show
(the words and circles that reach it), and the drawing of an SVG by the ``resvg-py`` wheel with
only the font files named here (:mod:`pbem.render.raster` and :mod:`pbem.render.rastertiles`
draw with it)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from pbem.render.fontfiles import CJK as CJK_FONTS
from pbem.render.fontfiles import LATIN as LATIN_FONTS

PAPER = "#fbf8ef"  # under the drawing, where it leaves the page bare
# greedy within the tag (which ends its attributes with x and y): the same matches and groups as
# a lazy [^>]*?, found in half the time (the lazy one tries " x=" at every character)
TEXT = re.compile(r'<text class="([^"]*)"[^>]* x="([-\d.]+)" y="([-\d.]+)">([^<]*)</text>')
TITLE = re.compile(r"<title>[^<]*</title>")
CIRCLE = re.compile(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"[^>]*? r="([\d.]+)"[^>]*/>')
LANG = re.compile(r' lang="[^"]*"')
CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
VIEW_BOX = re.compile(r'viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"')

Box = tuple[float, float, float, float]


def has_view_box(svg: str) -> bool:
    return VIEW_BOX.search(svg) is not None


def view_box(svg: str) -> Box:
    m = VIEW_BOX.search(svg)
    if not m:
        raise ValueError("the SVG has no viewBox")
    x, y, w, h = (float(v) for v in m.groups())
    return (x, y, w, h)


def without_titles(svg: str) -> str:
    """``svg`` without its ``<title>`` tooltips (a picture shows none)."""
    return TITLE.sub("", svg)


def near(box: Box) -> Callable[[re.Match[str]], str]:
    """A circle (a :data:`CIRCLE` match) if it can show in ``box``, else nothing."""
    x, y, w, h = box

    def near(m: re.Match[str]) -> str:
        reach = float(m.group(3)) + 20.0  # the radius, a stroke and its anti-aliased edge
        cx, cy = float(m.group(1)), float(m.group(2))
        return m.group(0) if x - reach <= cx <= x + w + reach and y - reach <= cy <= y + h + reach else ""
    return near


def within(svg: str, box: Box) -> str:
    """``svg`` without what ``box`` cannot show: words, and circles (the tints around every town
    are most of the ground's drawing)."""
    return CIRCLE.sub(near(box), without_text(svg, reaches(box)))


def reaches(box: Box) -> Callable[[str, float, float, str], bool]:
    """Whether words (class, x, y, text) can show in ``box``."""
    x, y, w, h = box

    def keep(_cls: str, tx: float, ty: float, words: str) -> bool:
        # words placed outside the box reach into it along their line, no character wider than
        # the largest font (17 units) nor higher than 25 with its halo; a suit's 40-unit symbol
        # (one character) 20 each way from its centre
        reach = max(25.0, 18.0 * len(words))
        rise = 45.0 if len(words) == 1 else 25.0
        return x - reach <= tx <= x + w + reach and y - rise <= ty <= y + h + rise
    return keep


def without_text(svg: str, keep: Callable[[str, float, float, str], bool]) -> str:
    # text is what costs resvg time: what the image cannot show is not drawn
    return TEXT.sub(lambda m: m.group(0) if keep(m.group(1), float(m.group(2)), float(m.group(3)), m.group(4)) else "", svg)


def draw(svg: str, width: int, box: Box | None, background: str | None) -> Image.Image:
    """``svg`` drawn by resvg ``width`` pixels wide (the part ``box`` of it), as RGBA: on
    ``background``, or on a transparent sheet."""
    import resvg_py

    if box is not None:
        svg = VIEW_BOX.sub('viewBox="{} {} {} {}"'.format(*box), svg, count=1)
    x, y, w, h = view_box(svg)
    height = max(1, round(width * h / w))
    # the drawing is sized by its viewBox, not the page's 100%
    svg = svg.replace('height="100%"', f'height="{height}"', 1).replace('width="100%"', f'width="{width}"', 1)
    # the CJK fonts are large: loaded only for a drawing with Chinese text in it
    wanted = (LATIN_FONTS + (CJK_FONTS if CJK.search(svg) else ())) if "<text" in svg else ()
    fonts = [f for f in wanted if Path(f).is_file()]
    data = resvg_py.svg_to_bytes(svg_string=svg, width=width, height=height, skip_system_fonts=bool(fonts),
                                 font_files=fonts or None, background=background)
    return Image.open(io.BytesIO(bytes(data))).convert("RGBA")
