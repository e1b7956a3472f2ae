"""The report's map: the SVG drawing of a view with the phase's moves and battles highlighted,
and its PNG images for a mail. Pure: a view and events in, text or bytes out."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.common.canonical import content_name
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
    from pbem.render import raster, rastersvg

    if not rastersvg.has_view_box(svg):  # not a drawing resvg can size (a test's stand-in)
        return []
    out = []
    shown = presentation(game)
    ground = shown.map_ground(svg)  # the layers under the pieces: drawn once for every phase and language
    box = shown.action_box(view, report.map_highlights(public_events))
    if box is not None:
        png = raster.crop(svg, box, ACTION_WIDTH, ground)
        out.append(MapImage("action", f"map-action.{key}.{lang}@pbem", f"map-{key}-action.png", png, *raster.size(png)))
    png = raster.whole_map(svg, WHOLE_WIDTH, ground, shown.map_recurring(svg))
    out.append(MapImage("whole", f"map-whole.{key}.{lang}@pbem", f"map-{key}.png", png, *raster.size(png)))
    return out


def map_svg(game: str, view: Mapping[str, Any], public_events: list[dict[str, Any]], lang: str) -> str | None:
    """The map of ``view`` with the phase's moves and battles highlighted, drawn by the game's
    presentation; ``None`` for a game without a map."""
    return presentation(game).map_svg(view, report.map_highlights(public_events), lang)


def stored_map(game: str, svg: str) -> tuple[dict[str, str], str] | None:
    """``svg`` as the reports folder stores it, when the game's drawing starts with layers that
    are the same in every phase (:meth:`pbem.games.base.Presentation.map_ground`): those layers
    as an SVG of their own, the names that stand in the same place in every phase
    (:meth:`~pbem.games.base.Presentation.map_names`) as another, and each later layer that
    many phases draw alike (:meth:`~pbem.games.base.Presentation.map_recurring`, Maria's
    legend) as another, each named by its content and stored in the folder above the phase's;
    and the drawing that shows them from there as images (the names it moved or hid masked out)
    and draws the rest. ``None``: the map is stored whole. A browser shows the linked drawing as
    the whole one (the ground's own tooltips, Maria's city names under the pointer, are not
    shown through an image)."""
    from pbem.render import rastersvg

    shown = presentation(game)
    end = shown.map_ground(svg)
    if end <= 0 or not rastersvg.has_view_box(svg):
        return None
    files: dict[str, str] = {}

    def image(kind: str, source: str, spans: tuple[tuple[int, int], ...], tail: str = "", mask: str = "") -> str:
        text, name = _kept_file(f"map-{kind}", source, spans, tail)
        files[name] = text
        return (f'<image height="{h:g}" href="../{name}"{mask} width="{w:g}" x="{x:g}" y="{y:g}" />')

    x, y, w, h = rastersvg.view_box(svg)
    defs = svg.find("</defs>", 0, end)  # the rest may use what the definitions name
    head_end = defs + len("</defs>") if defs >= 0 else svg.index(">") + 1
    head = svg[:head_end]
    linked = head + image("ground", svg, ((0, end),), "</svg>")
    at = end
    names = shown.map_names(svg)
    if names is not None and names.start >= end:
        mask = (f'<mask height="{h:g}" id="names-moved" maskUnits="userSpaceOnUse" width="{w:g}" x="{x:g}" y="{y:g}">'
                f'<rect fill="#fff" height="{h:g}" width="{w:g}" x="{x:g}" y="{y:g}" />{names.mask}</mask>')
        linked += (svg[at:names.start] + mask + image("names", names.ground, ((0, len(names.ground)),),
                                                      mask=' mask="url(#names-moved)"')
                   + '<g id="labels">' + names.own + "</g>")
        at = names.end
    for start, stop in shown.map_recurring(svg):
        if start >= at:
            linked += svg[at:start] + image("layer", svg, ((0, head_end), (start, stop)), "</svg>")
            at = stop
    return files, linked + svg[at:]


# The files the last drawings stored (their ground, names and legend are the same in many
# phases): (stem, the parts of the drawing each holds, its text, its name), the latest first.
_KEPT: list[tuple[str, tuple[str, ...], str, str]] = []


def _kept_file(stem: str, source: str, spans: tuple[tuple[int, int], ...], tail: str) -> tuple[str, str]:
    """The text of ``source``'s ``spans`` followed by ``tail``, and its name by content; a text
    stored lately is found again by comparing its parts with ``source`` (no copy, no hash)."""
    for kept_stem, parts, text, name in _KEPT:
        if (kept_stem == stem and len(parts) == len(spans) and text.endswith(tail)
                and len(text) == sum(b - a for a, b in spans) + len(tail)
                and all(b - a == len(part) and source.startswith(part, a) for part, (a, b) in zip(parts, spans, strict=True))):
            return text, name
    parts = tuple(source[a:b] for a, b in spans)
    text = "".join(parts) + tail
    name = content_name(stem, text, "svg")
    _KEPT.insert(0, (stem, parts, text, name))
    del _KEPT[12:]
    return text, name
