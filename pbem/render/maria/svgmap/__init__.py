"""The Maria map as SVG: a pure function of a board and a map view.

``render_map(board, view)`` draws both maps side by side (Flanders west, Bohemia east), each
projected from its own lon/lat window with one common scale, so the cross-map links run across
the gap between them. Layers, bottom to top: sector grid with faint suit symbols, home-country
tints, roads, highlighted radius, cities and fortresses, names, control flags and victory
markers, hussars, supply trains, generals, highlighted paths and battles, the legend.

The output has a ``viewBox`` and no fixed pixel size (it scales from a phone to A3), every
element id is derived from the data (no random ids), and the same input gives the same bytes.
Names carry a halo (``paint-order: stroke``) so they stay legible over roads.

Publishing draws the same map for every phase, in two languages, so what depends only on the
board and the language (sectors and suits, tints, roads, cities, the legend, and the names
placed on the empty board) is drawn once per board object and kept as SVG text. A view then
draws its pieces and places again only the names that its pieces, marks and battle rings
cover or that belong to a busy city, with the small names around them; the rest of the names
stay where the empty board put them, so a drawing far from the pieces is what a placement
from scratch gives.

The view is the dictionary the rules' ``view`` produces (``pbem/games/maria/board.py``
``Forces.start_view`` builds the one for the starting position)::

    {"generals": [{"id", "name", "power", "rank", "city", "face_down", "blocked", "troops"}],
     "trains": [{"id", "power", "city"}], "hussars": [city, ...],
     "control": {city: {"power", "marker"}}, "turn": 1, "title": "..."}
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.games.maria.board import POWERS, Board
from pbem.render.maria.svgmap.ground import Layout, defs, draw_cities, draw_panels, draw_roads
from pbem.render.maria.svgmap.kept import KeptNames, Names, replace_labels
from pbem.render.maria.svgmap.legend import draw_legend, draw_title
from pbem.render.maria.svgmap.pieces import draw_highlights, draw_pieces, short_name
from pbem.render.maria.svgmap.style import FONT, NAME_SIZE, PANEL, PAPER, POWER_COLOURS, TERRITORY_TINTS, shading
from pbem.render.maria.svgmap.svg import Box, el, open_tag, rnd

__all__ = ["FONT", "GROUND_END", "NAME_SIZE", "PANEL", "POWER_COLOURS", "TERRITORY_TINTS", "Drawing", "Layout",
           "action_box", "render_map", "shading", "short_name"]


def _power_list(items: Iterable[Mapping[str, Any]]) -> list[str]:
    seen = {str(i.get("power")) for i in items}
    return [p for p in POWERS if p in seen]


# -- what depends only on the board and the language: drawn once and kept ----------------------


@dataclass
class _Static:
    """The parts of the drawing that no piece changes, for one board and one language.

    ``head`` runs from the ``<svg>`` tag through the roads, ``cities`` is the city layer, and
    ``names`` the names placed on the empty board (with what moving them needs).
    """

    lay: Layout
    head: str
    cities: str
    city_boxes: list[Box]
    names: KeptNames
    legends: dict[tuple[str, ...], str]
    stored: dict[str, str] = field(default_factory=dict)  # what storing drawings keeps (.stored)


class Drawing(str):
    """A map's SVG text, with where its layers stand, as drawing it placed them: storing the
    drawing and drawing its images then need not search its text for them.

    ``ground``: the length of the layers that are the same in every drawing of the board and
    language (:data:`GROUND_END`); ``names``: the span of the names layer (``None``: no names);
    ``legend``: the legend's span; ``static``, ``placed``: the kept parts it was drawn on, and
    its names (those the empty board has elsewhere told apart)."""

    ground: int
    names: tuple[int, int] | None
    legend: tuple[int, int]
    static: _Static
    placed: Names


# The first layers that a view changes: what precedes the first of them (the kept head and, unless
# a radius is shaded over the roads, the cities) is the same in every drawing of a board.
GROUND_END = ('<g id="highlight-radius"', '<g id="labels"')

# Kept per board object (boards are immutable); a board no longer used drops its entry.
_STATIC: weakref.WeakKeyDictionary[Board, dict[str, _Static]] = weakref.WeakKeyDictionary()


_PARTS: weakref.WeakKeyDictionary[Board, dict[tuple[str, ...], Board]] = weakref.WeakKeyDictionary()


def _part_of(board: Board, maps: tuple[str, ...]) -> Board:
    """``board`` with only the cities, roads and windows of ``maps`` (kept per board)."""
    import dataclasses

    per_board = _PARTS.setdefault(board, {})
    if maps not in per_board:
        cities = {c: city for c, city in board.cities.items() if city.map in maps}
        per_board[maps] = dataclasses.replace(
            board, cities=cities, maps={m: w for m, w in board.maps.items() if m in maps},
            roads=tuple(r for r in board.roads if r.a in cities and r.b in cities))
    return per_board[maps]


def _drawn(board: Board, maps: Sequence[str] | None) -> Board:
    """The board a drawing limited to ``maps`` shows (``None``: all of ``board``)."""
    if maps is not None and set(maps) & set(board.maps) and set(board.maps) - set(maps):
        return _part_of(board, tuple(sorted(set(maps) & set(board.maps))))
    return board


def _static(board: Board, lang: str) -> _Static:
    per_lang = _STATIC.setdefault(board, {})
    if lang not in per_lang:
        lay = Layout(board)
        cities, boxes = draw_cities(board, lay.pos, lang)
        root = {"baseProfile": "full", "height": "100%", "lang": lang, "version": "1.1",
                "viewBox": f"0 0 {lay.width} {lay.height}", "width": "100%",
                "xmlns": "http://www.w3.org/2000/svg",
                "xmlns:ev": "http://www.w3.org/2001/xml-events",
                "xmlns:xlink": "http://www.w3.org/1999/xlink"}
        head = (open_tag("svg", root) + ">" + defs(lay)
                + el("rect", {"fill": PAPER, "height": lay.height, "id": "paper",
                               "width": lay.width, "x": 0, "y": 0})
                + draw_panels(lay, lang) + draw_roads(board, lay.pos))
        per_lang[lang] = _Static(lay, head, cities, boxes, KeptNames(board, lay.pos, boxes, lang), {})
    return per_lang[lang]


def render_map(
    board: Board,
    view: Mapping[str, Any],
    *,
    highlights: Mapping[str, Any] | None = None,
    lang: str = "en",
    maps: Sequence[str] | None = None,
) -> Drawing:
    """Draw ``view`` on ``board`` and return the SVG text (with where its layers stand).

    ``maps`` limits the drawing to those maps of the board (the introductory game is played
    on the Bohemia map only, M1.4); by default every map is drawn.

    ``highlights`` may hold ``paths`` (lists of city ids, drawn as arrows), ``battles``
    (cities ringed) and ``radius`` (``{"city": id, "n": 6}``: cities within n shaded).
    ``lang="zh-TW"`` prints Chinese names where the map gives them and a Chinese legend.

    The first drawing of a board in a language draws and keeps everything that does not
    depend on the view (sectors, roads, cities, names on the empty board); later drawings only
    draw the pieces and move the names they cover.
    """
    lang = "zh-TW" if lang.lower().startswith("zh") else "en"
    board = _drawn(board, maps)
    st = _static(board, lang)
    pos = st.lay.pos
    highlights = highlights or {}
    generals, trains, hussars, control = _view_pieces(board, pos, view)
    pieces, boxes = draw_pieces(pos, generals, trains, hussars, control, lang)
    busy = _busy(generals, trains, hussars, control)
    obstacles = boxes + _battle_rings(pos, highlights)
    named = replace_labels(st.names, obstacles, busy)
    labels = named.labels

    parts = [st.head]
    radius = highlights.get("radius")
    if radius and radius.get("city") in pos:
        shade = "".join(el("circle", {"cx": pos[c][0], "cy": pos[c][1], "fill": "#f2c230",
                                       "r": 10})
                        for c in sorted(board.within(radius["city"], int(radius.get("n", 0)))) if c in pos)
        parts.append(el("g", {"id": "highlight-radius", "opacity": "0.35"}, shade))
        ground = len(st.head)
    else:
        ground = len(st.head) + len(st.cities)
    parts.append(st.cities)
    names_at = sum(map(len, parts))
    # the names' elements joined once, with the rest (as ``el("g", {"id": "labels"}, ...)`` writes them)
    names = "".join(['<g id="labels">', *[lbl.svg for lbl in labels], "</g>"]) if labels else '<g id="labels" />'
    parts.append(names)
    parts.append(el("g", {"id": "pieces"}, pieces))
    parts.append(draw_highlights(pos, highlights))
    parts.append(draw_title(board, view, lang))
    powers = tuple(_power_list(list(generals) + list(trains)) or POWERS)
    if powers not in st.legends:
        st.legends[powers] = draw_legend(st.lay, lang, powers)
    parts.append(st.legends[powers])
    parts.append("</svg>")
    drawing = Drawing("".join(parts))
    drawing.ground, drawing.static, drawing.placed = ground, st, named
    drawing.names = (names_at, names_at + len(names)) if labels else None
    drawing.legend = (len(drawing) - len("</svg>") - len(st.legends[powers]), len(drawing) - len("</svg>"))
    return drawing


def _view_pieces(
    board: Board, pos: Mapping[str, tuple[float, float]], view: Mapping[str, Any]
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]], list[str],
           dict[str, Mapping[str, Any]]]:
    """The generals, trains, hussars and control marks of ``view`` that the map can show."""
    generals = [g for g in view.get("generals", []) if g.get("city") in pos]
    trains = [t for t in view.get("trains", []) if t.get("city") in pos]
    hussars = sorted(h for h in view.get("hussars", []) if h in pos)
    # Nothing to show for a fortress held by nobody, or by its own home power without a marker.
    control = {
        c: v for c, v in sorted(view.get("control", {}).items())
        if c in pos and v.get("power") is not None
        and (v.get("marker") or v.get("power") != board.home_of(c))
    }
    return generals, trains, hussars, control


def _busy(generals: Sequence[Mapping[str, Any]], trains: Sequence[Mapping[str, Any]],
          hussars: Sequence[str], control: Mapping[str, Any]) -> set[str]:
    """Cities holding a piece or a mark: their names are printed large and always."""
    return ({str(p.get("city")) for p in list(generals) + list(trains)} | set(hussars)
            | set(control))


def _battle_rings(pos: Mapping[str, tuple[float, float]], highlights: Mapping[str, Any]
                  ) -> list[Box]:
    return [(pos[c][0] - 15, pos[c][1] - 15, pos[c][0] + 15, pos[c][1] + 15)
            for c in highlights.get("battles") or [] if c in pos]


def action_box(board: Board, highlights: Mapping[str, Any], *, maps: Sequence[str] | None = None, margin: float = 50.0,
               min_width: float = 320.0, aspect: float = 1.5) -> tuple[float, float, float, float] | None:
    """The part of the drawing (x, y, width, height in view units) around a phase's highlighted
    paths and battles, at least ``min_width`` wide and ``aspect`` times as wide as high, kept
    inside the drawing; ``None`` when nothing is highlighted or the action spans most of the
    board (the whole map shows it then). ``maps`` as for :func:`render_map`: the box is in the
    units of the drawing of those maps."""
    lay = _static(_drawn(board, maps), "en").lay
    cities = [c for path in highlights.get("paths") or [] for c in path] + list(highlights.get("battles") or [])
    pts = [lay.pos[c] for c in cities if c in lay.pos]
    if not pts:
        return None
    x0, x1 = min(p[0] for p in pts) - margin, max(p[0] for p in pts) + margin
    y0, y1 = min(p[1] for p in pts) - margin, max(p[1] for p in pts) + margin
    w = max(x1 - x0, min_width, (y1 - y0) * aspect)
    h = w / aspect
    if w > lay.width * 0.6 or h > lay.height:
        return None
    x = min(max((x0 + x1 - w) / 2, 0.0), lay.width - w)
    y = min(max((y0 + y1 - h) / 2, 0.0), lay.height - h)
    return (rnd(x), rnd(y), rnd(w), rnd(h))
