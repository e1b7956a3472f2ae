"""The report's map: the SVG drawing of a view with the phase's moves and battles highlighted,
and its PNG images for a mail. Pure: a view and events in, text or bytes out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from pbem.core.canonical import canonical
from pbem.render import i18n, report
from pbem.render.reportpage import glossary


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


def map_images(game: str, svg: str, public_events: list[dict[str, Any]], lang: str, key: str) -> list[MapImage]:
    """The map as PNG for a mail: a crop around the phase's moves and battles (when it had any
    and they do not span the board), then the whole board."""
    from pbem.render import raster

    if not raster.has_view_box(svg):  # not a drawing resvg can size (a test's stand-in)
        return []
    out = []
    box = _action_box(game, public_events)
    if box is not None:
        png = raster.crop(svg, box, ACTION_WIDTH)
        out.append(MapImage("action", f"map-action.{key}.{lang}@pbem", f"map-{key}-action.png", png, *raster.size(png)))
    png = raster.whole_map(svg, WHOLE_WIDTH)
    out.append(MapImage("whole", f"map-whole.{key}.{lang}@pbem", f"map-{key}.png", png, *raster.size(png)))
    return out


def _action_box(game: str, public_events: list[dict[str, Any]]) -> tuple[float, float, float, float] | None:
    if game != "maria":
        return None
    from pbem.games.maria.board import load_board
    from pbem.render.svgmap import action_box

    return action_box(load_board(), report.map_highlights(public_events))


def map_svg(game: str, view: Mapping[str, Any], public_events: list[dict[str, Any]], lang: str) -> str | None:
    """The map of ``view`` with the phase's moves and battles highlighted, for a game with a map
    (Maria); ``None`` for a game without one."""
    map_view = view.get("map") if isinstance(view.get("map"), Mapping) else None
    if game != "maria" or map_view is None:
        return None
    highlights = report.map_highlights(public_events)
    if lang != "en" and "step" in view:  # the title in the reader's language, as the report says it
        map_view = dict(map_view, title=_title_template(lang).render(v=view, glossary={}).strip())
    if lang != "en":  # the generals' names on the counters, in the reader's language
        names = glossary(game, lang)["generals"]
        map_view = dict(map_view, generals=[dict(g, name_zh=names.get(g.get("id"), g.get("name")))
                                            for g in map_view.get("generals", [])])
    # the introductory game is played on the Bohemia map only (M1.4)
    maps = ["bohemia"] if view.get("variant") == "intro" else None
    return _render_map(game, canonical({"view": map_view, "highlights": highlights, "maps": maps}).decode("utf-8"), lang)


@cache
def _title_template(lang: str) -> Any:
    """The names template's phase title (``n.title``), compiled once per language."""
    return i18n.environment(lang).from_string('{% import "maria/names.txt" as n with context %}{{ n.title(v) }}')


@lru_cache(maxsize=16)
def _render_map(game: str, key: str, lang: str) -> str:
    # Cached by content: re-rendering a phase (a rerun, or a report whose seat parts changed)
    # draws the same map once. Drawing is pure, so the cache cannot change a byte.
    from pbem.games.maria.board import load_board
    from pbem.render.svgmap import render_map

    data = json.loads(key)
    return render_map(load_board(), data["view"], highlights=data["highlights"], lang=lang, maps=data.get("maps"))
