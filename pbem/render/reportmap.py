"""The report's map: the SVG drawing of a view with the phase's moves and battles highlighted,
and its PNG images for a mail. Pure: a view and events in, text or bytes out."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.games import presentation
from pbem.render import report


@dataclass(frozen=True)
class MapImage:
    """A PNG of the map for a mail's HTML body: ``kind`` is ``action`` (the part of the board
    around the phase's moves and battles) or ``whole``."""

    kind: str
    cid: str
    filename: str
    png: bytes
    width: int
    height: int


WHOLE_WIDTH = 720  # pixels: the whole board, to see where everything stands
ACTION_WIDTH = 640  # pixels: the crop (at least 320 view units wide): town names at 10 CSS px on a phone


def map_images(game: str, svg: str, public_events: list[dict[str, Any]], lang: str, key: str,
               view: Mapping[str, Any]) -> list[MapImage]:
    """The map as PNG for a mail: a crop around the phase's moves and battles (when it had any
    and they do not span the board), then the whole board. ``svg`` is the drawing of ``view``
    (:func:`map_svg`)."""
    from pbem.render import raster

    if not raster.has_view_box(svg):  # not a drawing resvg can size (a test's stand-in)
        return []
    out = []
    shown = presentation(game)
    ground = shown.map_ground(svg)  # the layers under the pieces: drawn once for every phase and language
    box = shown.action_box(view, report.map_highlights(public_events))
    if box is not None:
        png = raster.crop(svg, box, ACTION_WIDTH, ground)
        out.append(MapImage("action", f"map-action.{key}.{lang}@pbem", f"map-{key}-action.png", png, *raster.size(png)))
    png = raster.whole_map(svg, WHOLE_WIDTH, ground)
    out.append(MapImage("whole", f"map-whole.{key}.{lang}@pbem", f"map-{key}.png", png, *raster.size(png)))
    return out


def map_svg(game: str, view: Mapping[str, Any], public_events: list[dict[str, Any]], lang: str) -> str | None:
    """The map of ``view`` with the phase's moves and battles highlighted, drawn by the game's
    presentation; ``None`` for a game without a map."""
    return presentation(game).map_svg(view, report.map_highlights(public_events), lang)


def stored_map(game: str, svg: str) -> tuple[str, str, str] | None:
    """``svg`` as the reports folder stores it, when the game's drawing starts with layers that
    are the same in every phase (:meth:`pbem.games.base.Presentation.map_ground`): the file name
    of that ground (named by its content, stored in the folder above the phase's), the ground as
    an SVG of its own, and the drawing that shows it from there as an image, then draws the rest.
    ``None``: the map is stored whole. A browser shows the linked drawing as the whole one (the
    ground's own tooltips, Maria's city names under the pointer, are not shown through an image)."""
    from pbem.render import raster

    end = presentation(game).map_ground(svg)
    if end <= 0 or not raster.has_view_box(svg):
        return None
    ground = svg[:end] + "</svg>"
    name = f"map-ground.{hashlib.sha256(ground.encode('utf-8')).hexdigest()[:16]}.svg"
    defs = svg.find("</defs>", 0, end)  # the rest may use what the definitions name
    head = svg[:defs + len("</defs>")] if defs >= 0 else svg[:svg.index(">") + 1]
    x, y, w, h = raster.view_box(svg)
    image = f'<image height="{h:g}" href="../{name}" width="{w:g}" x="{x:g}" y="{y:g}" />'
    return name, ground, head + image + svg[end:]
