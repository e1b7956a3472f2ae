"""A crop's ground (the layers no phase changes) assembled from tiles drawn once.

The crop's box changes every phase, and drawing the ground under it was most of a crop's cost
(about 100-150 ms of resvg). Here the ground is cut, at the crop's scale, into square tiles on a
fixed grid from the drawing's top-left corner; each tile is drawn by resvg alone (never as part
of a larger drawing, so its pixels do not depend on which crop asked for it first), kept for the
process and on disk (``$XDG_CACHE_HOME/pbem``), and a crop is assembled from the tiles it covers.
The crop's box is moved by less than a pixel so that it starts on the tiles' pixel grid.

Its scale is held to a few steps (:func:`steady_box`): a box that needed a scale between two
steps is widened to the next, so that the tiles of one step serve every crop of that step, in
every phase and on later days. Steps of 1/8 keep the names within 12 % of the size the box
would have given them, town names readable on a phone (two pixels a unit at the narrowest
box, 320 units on 640 pixels).

The cache is a speed-up only: each file is checked (its pixels' SHA-256) and one that is
damaged, or a folder that cannot be written, costs only the time to draw the tile again; what
a crop shows is the same whether its tiles came from the disk or were drawn.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from PIL import Image

from pbem.render import rasterstore, rastersvg

TILE = 256  # pixels: a tile costs resvg about 30 ms, most of it reading the drawing
BASE = 0.5  # view units per pixel at the narrowest step (2 pixels a unit)
STEP = 1.125  # from one step to the next (exact in binary, as every step and tile corner is)

Box = rastersvg.Box


def steady_box(box: Box, width: int, view: Box) -> tuple[Box, float]:
    """``box`` as the crop draws it ``width`` pixels wide, and its view units per pixel: widened
    (about its centre, kept inside ``view``, the drawing's viewBox) to the next scale step, and
    moved by less than a pixel onto the pixel grid of the tiles. A box that cannot widen inside
    the drawing keeps its own scale."""
    x, y, w, h = box
    vx, vy, vw, vh = view
    own = w / width
    step = BASE
    while step < own:
        step *= STEP
    if own < BASE or width * step > vw or h * width * step / w > vh:
        step = own
    nw, nh = width * step, h * width * step / w
    nx = min(max(x + (w - nw) / 2, vx), vx + vw - nw)
    ny = min(max(y + (h - nh) / 2, vy), vy + vh - nh)
    px, py = max(0, round((nx - vx) / step)), max(0, round((ny - vy) / step))
    return (vx + px * step, vy + py * step, nw, nh), step


def ground(svg: str, box: Box, step: float, width: int, height: int, mode: str = "RGBA") -> Image.Image:
    """The drawing ``svg`` (the ground's layers, without tooltips nor language) in ``box`` (as
    :func:`steady_box` gives it) at ``step`` view units a pixel: ``width`` x ``height`` pixels,
    ``mode`` (RGBA or RGB: opaque), assembled from tiles."""
    if "<filter" in svg:  # a filter's effect reaches across the tiles' edges: the box drawn whole
        return rastersvg.draw(rastersvg.within(svg, box), width, box, rastersvg.PAPER).convert(mode)
    vx, vy = rastersvg.view_box(svg)[:2]
    px, py = round((box[0] - vx) / step), round((box[1] - vy) / step)
    picture = Image.new("RGB", (width, height))
    for j in range(py // TILE, (py + height - 1) // TILE + 1):
        for i in range(px // TILE, (px + width - 1) // TILE + 1):
            picture.paste(_tile(svg, step, i, j), (i * TILE - px, j * TILE - py))
    return picture if mode == "RGB" else picture.convert(mode)


@lru_cache(maxsize=96)
def _tile(svg: str, step: float, i: int, j: int) -> Image.Image:
    """Tile ``(i, j)`` of the grid at ``step``: from this process, the disk, or resvg. It is
    named by what it draws (the part of ``svg`` it can show, so that a tile that the languages'
    words do not reach serves both)."""
    vx, vy = rastersvg.view_box(svg)[:2]
    region = (vx + i * TILE * step, vy + j * TILE * step, TILE * step, TILE * step)
    bare, words = _words(svg)
    keep = rastersvg.reaches(region)
    # what the tile draws (:func:`rastersvg.within`): the drawing without its words, and the words
    # that reach the tile, each where it stands in it (cheaper than cutting the drawing)
    shown = [b"%d %s" % (at, element.encode("utf-8")) for at, element, cls, x, y, text in words if keep(cls, x, y, text)]
    name = hashlib.sha256(b"\0".join([b"%r %d %s" % (region, TILE, bare.encode()), *shown])).hexdigest()[:40]

    def draw() -> Image.Image:
        part = _unclipped(rastersvg.within(svg, region), region)
        return rastersvg.draw(part, TILE, region, rastersvg.PAPER).convert("RGB")

    return rasterstore.picture(_folder(), name, "RGB", (TILE, TILE), draw)


@lru_cache(maxsize=4)
def _words(svg: str) -> tuple[str, tuple[tuple[int, str, str, float, float, str], ...]]:
    """The digest of ``svg`` without the words :func:`rastersvg.within` may leave out, and those
    words: where each stood in that text, the element, its class, place and text."""
    bare: list[str] = []
    words = []
    at = cut = 0
    for m in rastersvg.TEXT.finditer(svg):
        bare.append(svg[at:m.start()])
        words.append((m.start() - cut, m.group(0), m.group(1), float(m.group(2)), float(m.group(3)), m.group(4)))
        cut += m.end() - m.start()
        at = m.end()
    bare.append(svg[at:])
    return hashlib.sha256("".join(bare).encode("utf-8")).hexdigest(), tuple(words)


_CLIP_RECT = re.compile(r'<clipPath id="([^"]+)"><rect height="([\d.]+)" width="([\d.]+)" x="(-?[\d.]+)" y="(-?[\d.]+)" ?/></clipPath>')


def _unclipped(svg: str, region: Box) -> str:
    """``svg`` without the clips to a rectangle that holds all of ``region`` (two pixels to
    spare): they clip nothing there, and resvg spends a fifth of a tile's time on the mask (the
    tints of Maria's sectors are clipped to the map)."""
    x, y, w, h = region
    spare = 2 * w / TILE
    for m in _CLIP_RECT.finditer(svg):
        ch, cw, cx, cy = (float(v) for v in m.groups()[1:])
        if cx + spare <= x and cy + spare <= y and x + w + spare <= cx + cw and y + h + spare <= cy + ch:
            svg = svg.replace(f' clip-path="url(#{m.group(1)})"', "")
    return svg


@lru_cache(maxsize=1)
def _folder() -> Path | None:
    """The tiles' folder (:func:`pbem.render.rasterstore.folder`); ``None`` when it cannot be made."""
    return rasterstore.folder("map-tiles", (rastersvg.__file__, __file__))
