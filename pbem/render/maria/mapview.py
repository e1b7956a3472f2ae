"""Maria's map in the reports: the board drawn from an audience's view, with the phase's moves
and battles marked, and the part of it a mail's first image shows."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from pbem.common.canonical import canonical
from pbem.games.base import Box
from pbem.games.maria.board import Board, load_board
from pbem.render import i18n
from pbem.render.maria.names import glossary


def action_box(view: Mapping[str, Any], highlights: Mapping[str, Any]) -> Box | None:
    """The part of the drawing of ``view`` around the phase's moves and battles (None: they
    span it)."""
    from pbem.render.maria.svgmap import action_box as box_of

    return box_of(_board(), dict(highlights), maps=_maps(view))


def _maps(view: Mapping[str, Any]) -> list[str] | None:
    """The maps the drawing of ``view`` shows: the introductory game is played on the Bohemia
    map only (M1.4); ``None``: all of them."""
    return ["bohemia"] if view.get("variant") == "intro" else None


def map_ground(svg: str) -> int:
    """Where the layers of a drawing that no piece changes end: sectors, tints, roads and
    cities come first; the shaded radius (drawn under the cities), names, pieces, marks and
    legend follow."""
    from pbem.render.maria.svgmap import GROUND_END, Drawing

    if isinstance(svg, Drawing):  # drawn here: it knows
        return svg.ground
    ends = [i for i in (svg.find(mark) for mark in GROUND_END) if i > 0]
    return min(ends) if ends else 0


def map_svg(view: Mapping[str, Any], highlights: Mapping[str, Any], lang: str) -> str | None:
    """The map of ``view`` with the phase's moves and battles (``highlights``) marked."""
    map_view = view.get("map") if isinstance(view.get("map"), Mapping) else None
    if map_view is None:
        return None
    if lang != "en" and "step" in view:  # the title in the reader's language, as the report says it
        map_view = dict(map_view, title=str(_names(lang).title(view)).strip())
    if lang != "en":  # the generals' names on the counters, in the reader's language
        names = glossary(lang)["generals"]
        map_view = dict(map_view, generals=[dict(g, name_zh=names.get(g.get("id"), g.get("name")))
                                            for g in map_view.get("generals", [])])
    data = {"view": map_view, "highlights": highlights, "maps": _maps(view)}
    return _render_map(_Key(canonical(data).decode("utf-8"), data), lang)


@cache
def _board() -> Board:
    """The shipped board the reports draw, loaded once per process (it is part of the
    installed program, like the templates)."""
    return load_board()


class _Key(str):
    """A drawing's input as canonical JSON text (what the cache below is keyed by), carrying
    the data it was written from, so a drawing need not read the text back."""

    data: dict[str, Any]

    def __new__(cls, text: str, data: dict[str, Any]) -> _Key:
        key = super().__new__(cls, text)
        key.data = data
        return key


@cache
def _names(lang: str) -> Any:
    """The names template's macros (``n.title`` names a phase), made once per language."""
    return i18n.environment(lang).get_template("maria/names.txt").make_module({"glossary": {}})


@lru_cache(maxsize=16)
def _render_map(key: str, lang: str) -> str:
    # Cached by content: re-rendering a phase (a rerun, or a report whose seat parts changed)
    # draws the same map once. Drawing is pure, so the cache cannot change a byte.
    from pbem.render.maria.svgmap import render_map

    data = key.data if isinstance(key, _Key) else json.loads(key)
    return render_map(_board(), data["view"], highlights=data["highlights"], lang=lang, maps=data.get("maps"))
