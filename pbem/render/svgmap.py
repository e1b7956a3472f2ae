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

import math
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import partial
from typing import Any

from pbem.games.maria.board import POWERS, SUIT_SYMBOLS, Board, City

# Powers' colours as the box has them (seed 000): Austria white, Prussia blue, Saxony green,
# the Pragmatic Army grey, France red, Bavaria orange. (fill, edge, text on the fill); a light
# fill (Austria's white) is read by its dark edge. tests/test_svgmap_colours.py checks that
# every piece stands out against every territory's shading.
POWER_COLOURS: Mapping[str, tuple[str, str, str]] = {
    "AU": ("#ffffff", "#1d1d1d", "#1d1d1d"),  # white
    "FR": ("#c8102e", "#5e0616", "#ffffff"),  # red
    "PR": ("#1f4fbf", "#0b2466", "#ffffff"),  # blue
    "PA": ("#6b6b6b", "#262626", "#ffffff"),  # grey
    "BA": ("#e87511", "#6e3300", "#1d1d1d"),  # orange
    "SX": ("#23803a", "#0d3f19", "#ffffff"),  # green
}
# Light tints of the same colours for the home countries (and Silesia), painted under the roads.
TERRITORY_TINTS: Mapping[str, str] = {
    "AU": "#eeeeee",
    "FR": "#f6d3d8",
    "PR": "#d3def6",
    "PA": "#dedede",
    "BA": "#fbe0c6",
    "SX": "#d2ecd8",
    "silesia": "#e6dcef",
}
PANEL = "#fffdf6"  # a map's ground, under the tints
TINT_OPACITY = 0.55


def shading(territory: str) -> str:
    """The colour a territory's tint shows on the map (the tint at ``TINT_OPACITY`` over the
    map's ground), or the ground itself for a territory with no tint."""
    tint = TERRITORY_TINTS.get(territory)
    if tint is None:
        return PANEL
    mix = [round(TINT_OPACITY * int(tint[i:i + 2], 16) + (1 - TINT_OPACITY) * int(PANEL[i:i + 2], 16))
           for i in (1, 3, 5)]
    return "#" + "".join(f"{v:02x}" for v in mix)


POWER_NAMES = {
    "en": {"AU": "Austria", "FR": "France", "PR": "Prussia", "PA": "Pragmatic Army",
           "BA": "Bavaria", "SX": "Saxony"},
    "zh-TW": {"AU": "奧地利", "FR": "法國", "PR": "普魯士", "PA": "護皇軍",
              "BA": "巴伐利亞", "SX": "薩克森"},
}
LABELS = {
    "en": {
        "legend": "Legend", "general": "general (rank; troops)", "face_down": "face-down general",
        "blocked": "blocked", "train": "supply train", "hussar": "hussar",
        "fortress": "fortress", "minor": "minor fortress", "major": "major fortress",
        "electoral": "electoral fortress", "marker": "victory marker",
        "flag": "control flag", "main": "main road", "road": "road",
        "cross": "cross-map link", "path": "path", "battle": "battle", "radius": "within range",
        "powers": "Powers", "sector": "sector and suit",
    },
    "zh-TW": {
        "legend": "圖例", "general": "將領（階級；兵力）", "face_down": "背面朝上的將領",
        "blocked": "受阻", "train": "補給車隊", "hussar": "輕騎兵",
        "fortress": "要塞", "minor": "次要要塞", "major": "主要要塞",
        "electoral": "選帝侯要塞", "marker": "勝利標誌",
        "flag": "控制旗", "main": "主要道路", "road": "道路",
        "cross": "跨地圖連線", "path": "路線", "battle": "戰鬥", "radius": "範圍內",
        "powers": "勢力", "sector": "區域與花色",
    },
}
FONT = "'DejaVu Sans', 'Noto Sans', 'Noto Sans CJK TC', 'Noto Sans TC', sans-serif"
PAPER = "#fbf8ef"

SCALE = 150.0  # view units per degree of latitude
GAP = 34.0  # between the two maps
MARGIN = 16.0
TITLE_H = 40.0
NAME_SIZE = 7.4  # a town's name; about 4.5 pt when the whole drawing is printed on A3
FORTRESS_NAME = 8.8  # fortresses and towns holding pieces
COUNTER = 13.0  # side of a general's counter
GNAME_SIZE = 6.2  # a general's short name above its counter
STACK_GAP = 4.5  # between the two counters of a stack: room for the troops badge
RIGHT_ROOM = 60.0  # names of the easternmost towns run past the map's edge
LEGEND_ROWS = 5
LEGEND_ROW_H = 16.0
LEGEND_COL_W = 170.0

_CSS = f"""
svg {{ font-family: {FONT}; }}
text {{ font-family: {FONT}; }}
.lbl {{ font-size: {NAME_SIZE}px; fill: #1d1d1d; paint-order: stroke; stroke: {PAPER};
        stroke-width: 2.6px; stroke-linejoin: round; }}
.lbl.major {{ font-weight: bold; }}
.sector {{ font-size: 6px; fill: #8a8170; }}
.suit {{ text-anchor: middle; dominant-baseline: central; }}
.road {{ stroke: #8c7b62; stroke-width: 1.1; fill: none; stroke-linecap: round; }}
.main-road {{ stroke: #5b4631; stroke-width: 2.6; fill: none; stroke-linecap: round; }}
.cross-map {{ stroke: #5b4631; stroke-width: 1.6; fill: none; stroke-dasharray: 5 3; }}
.grid {{ stroke: #cfc6b2; stroke-width: 0.6; fill: none; }}
.rank {{ font-size: 9px; font-weight: bold; text-anchor: middle; dominant-baseline: central; }}
.gname {{ font-size: {GNAME_SIZE}px; font-weight: bold; text-anchor: middle; fill: #1d1d1d;
          paint-order: stroke; stroke: {PAPER}; stroke-width: 2.2px; stroke-linejoin: round; }}
.troops {{ font-size: 6.5px; font-weight: bold; text-anchor: middle;
           dominant-baseline: central; fill: #1d1d1d; }}
.title {{ font-size: 17px; font-weight: bold; fill: #2b2418; }}
.subtitle {{ font-size: 10px; fill: #5f5747; }}
.mapname {{ font-size: 13px; font-weight: bold; fill: #6d634f; letter-spacing: 2px; }}
.legend-text {{ font-size: 8.5px; fill: #2b2418; dominant-baseline: central; }}
.legend-head {{ font-size: 10px; font-weight: bold; fill: #2b2418; }}
"""


@dataclass(frozen=True)
class _Panel:
    map_id: str
    x0: float
    y0: float
    width: float
    height: float


class _Layout:
    """Where everything goes: the projection of each map and the size of the drawing."""

    def __init__(self, board: Board) -> None:
        self.board = board
        maps = sorted(board.maps.values(), key=lambda m: (m.lon[0], m.id))
        self.panels: dict[str, _Panel] = {}
        self.pos: dict[str, tuple[float, float]] = {}
        if maps:
            lat_mid = (min(m.lat[0] for m in maps) + max(m.lat[1] for m in maps)) / 2
            self.kx = math.cos(math.radians(lat_mid)) * SCALE
            lat_top = max(m.lat[1] for m in maps)
            x = MARGIN
            for m in maps:
                w = (m.lon[1] - m.lon[0]) * self.kx
                h = (m.lat[1] - m.lat[0]) * SCALE
                y = TITLE_H + (lat_top - m.lat[1]) * SCALE
                self.panels[m.id] = _Panel(m.id, x, y, w, h)
                x += w + GAP
            self.map_right = x - GAP
            self.map_bottom = max(p.y0 + p.height for p in self.panels.values())
            for c in board.cities.values():
                if c.placed and c.map in self.panels:
                    m = board.maps[c.map]
                    p = self.panels[c.map]
                    self.pos[c.id] = (
                        round(p.x0 + (c.lon - m.lon[0]) * self.kx, 1),
                        round(p.y0 + (m.lat[1] - c.lat) * SCALE, 1),
                    )
        else:
            self.map_right = MARGIN + 600
            self.map_bottom = TITLE_H + 600
        # cities without coordinates (case mini-maps): a circle, in id order
        loose = sorted(c for c in board.cities if c not in self.pos)
        if loose:
            cx, cy, r = MARGIN + 300, TITLE_H + 300, 260
            for i, cid in enumerate(loose):
                a = 2 * math.pi * i / len(loose) - math.pi / 2
                self.pos[cid] = (round(cx + r * math.cos(a), 1), round(cy + r * math.sin(a), 1))
        # The legend goes under the first map with room for it below (the maps' windows need
        # not end at the same latitude), else under everything.
        legend_h = LEGEND_ROWS * LEGEND_ROW_H + 12
        legend_w = 70 + 4 * LEGEND_COL_W
        self.legend_left, self.legend_top = MARGIN, self.map_bottom + 12
        for p in sorted(self.panels.values(), key=lambda p: p.x0):
            if self.map_bottom - (p.y0 + p.height) >= legend_h + 12 and p.width >= legend_w:
                self.legend_left, self.legend_top = p.x0, p.y0 + p.height + 12
                break
        self.width = round(max(self.map_right + RIGHT_ROOM, 800), 1)
        self.height = round(max(self.map_bottom, self.legend_top + legend_h) + MARGIN, 1)


def _r(v: float) -> float:
    return round(v, 1)


def _text_width(text: str, size: float) -> float:
    """A rough width of ``text`` at ``size``: CJK glyphs are square, Latin ones narrower."""
    return sum(size if ord(ch) > 0x2E80 else size * 0.6 for ch in text)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _power_list(items: Iterable[Mapping[str, Any]]) -> list[str]:
    seen = {str(i.get("power")) for i in items}
    return [p for p in POWERS if p in seen]


# -- writing SVG text ------------------------------------------------------------------------
# The drawing is written as text directly: a map has thousands of elements and building an
# element tree for each render cost more than placing the names. Attributes are written in
# sorted order and numbers with ``str``, so the same input gives the same bytes.

Attrs = Mapping[str, object]
Box = tuple[float, float, float, float]


def _esc_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _esc_attr(value: str) -> str:
    return (_esc_text(value).replace('"', "&quot;").replace("\n", "&#10;")
            .replace("\r", "&#13;").replace("\t", "&#09;"))


def _open(tag: str, attrs: Attrs) -> str:
    """An element's start tag without its closing bracket (None values left out)."""
    return f"<{tag}" + "".join(f' {k}="{_esc_attr(str(v))}"' for k, v in sorted(attrs.items())
                               if v is not None)


def _el(tag: str, attrs: Attrs, body: str = "") -> str:
    """One element: ``attrs`` in sorted order, ``body`` already SVG."""
    return f"{_open(tag, attrs)}>{body}</{tag}>" if body else f"{_open(tag, attrs)} />"


def _text(text: str, attrs: Attrs) -> str:
    return _el("text", attrs, _esc_text(text))


def _points(pts: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in pts)


def _title(tip: str) -> str:
    return f"<title>{_esc_text(tip)}</title>"


# -- what depends only on the board and the language: drawn once and kept ----------------------


@dataclass(frozen=True)
class _Label:
    """A city's name placed on the drawing: where, how large, and its SVG text."""

    city: str
    size: float
    x: float
    y: float
    anchor: str
    box: Box
    svg: str


@dataclass
class _Static:
    """The parts of the drawing that no piece changes, for one board and one language.

    ``head`` runs from the ``<svg>`` tag through the roads, ``cities`` is the city layer, and
    ``labels`` the names placed on the empty board. ``grid`` holds the city symbols and those
    names, so a view only re-places the names its pieces disturb; ``unnamed`` holds, for each
    town whose name found no free place there, the area its name could take.
    """

    lay: _Layout
    head: str
    cities: str
    city_boxes: list[Box]
    labels: dict[str, _Label]
    unnamed: _Boxes
    grid: _Boxes
    legends: dict[tuple[str, ...], str]


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


def _static(board: Board, lang: str) -> _Static:
    per_lang = _STATIC.setdefault(board, {})
    if lang not in per_lang:
        lay = _Layout(board)
        cities, boxes = _draw_cities(board, lay.pos, lang)
        placed = _place_labels(board, lay.pos, boxes, (), set(), lang)
        grid = _Boxes()
        for box in boxes:
            grid.add(box, 3)
        labels: dict[str, _Label] = {}
        for lbl in placed:
            labels[lbl.city] = lbl
            grid.add(lbl.box, LABEL_HIT, lbl.city, _is_important(board.cities[lbl.city], set()))
        root = {"baseProfile": "full", "height": "100%", "lang": lang, "version": "1.1",
                "viewBox": f"0 0 {lay.width} {lay.height}", "width": "100%",
                "xmlns": "http://www.w3.org/2000/svg",
                "xmlns:ev": "http://www.w3.org/2001/xml-events",
                "xmlns:xlink": "http://www.w3.org/1999/xlink"}
        head = (_open("svg", root) + ">" + _defs(lay)
                + _el("rect", {"fill": PAPER, "height": lay.height, "id": "paper",
                               "width": lay.width, "x": 0, "y": 0})
                + _draw_panels(lay, lang) + _draw_roads(board, lay.pos))
        unnamed = _Boxes()
        for cid in sorted(c for c in board.cities if c not in labels):
            unnamed.add(_name_reach(board.cities[cid], lay.pos[cid], lang), 0, cid)
        per_lang[lang] = _Static(lay, head, cities, boxes, labels, unnamed, grid, {})
    return per_lang[lang]


def render_map(
    board: Board,
    view: Mapping[str, Any],
    *,
    highlights: Mapping[str, Any] | None = None,
    lang: str = "en",
    maps: Sequence[str] | None = None,
) -> str:
    """Draw ``view`` on ``board`` and return the SVG text.

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
    if maps is not None and set(maps) & set(board.maps) and set(board.maps) - set(maps):
        board = _part_of(board, tuple(sorted(set(maps) & set(board.maps))))
    st = _static(board, lang)
    pos = st.lay.pos
    highlights = highlights or {}
    generals, trains, hussars, control = _view_pieces(board, pos, view)
    pieces, boxes = _draw_pieces(pos, generals, trains, hussars, control, lang)
    busy = _busy(generals, trains, hussars, control)
    obstacles = boxes + _battle_rings(pos, highlights)
    labels = _replace_labels(board, st, obstacles, busy, lang)

    parts = [st.head]
    radius = highlights.get("radius")
    if radius and radius.get("city") in pos:
        shade = "".join(_el("circle", {"cx": pos[c][0], "cy": pos[c][1], "fill": "#f2c230",
                                       "r": 10})
                        for c in sorted(board.within(radius["city"], int(radius.get("n", 0)))))
        parts.append(_el("g", {"id": "highlight-radius", "opacity": "0.35"}, shade))
    parts.append(st.cities)
    parts.append(_el("g", {"id": "labels"}, "".join(lbl.svg for lbl in labels)))
    parts.append(_el("g", {"id": "pieces"}, pieces))
    parts.append(_draw_highlights(pos, highlights))
    parts.append(_draw_title(board, view, lang))
    powers = tuple(_power_list(list(generals) + list(trains)) or POWERS)
    if powers not in st.legends:
        st.legends[powers] = _draw_legend(st.lay, lang, powers)
    parts.append(st.legends[powers])
    parts.append("</svg>")
    return "".join(parts)


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


def _defs(lay: _Layout) -> str:
    style = _el("style", {"type": "text/css"}, f"<![CDATA[{_CSS}]]>")
    hatch = _el("pattern", {"height": 4, "id": "hatch", "patternTransform": "rotate(45)",
                            "patternUnits": "userSpaceOnUse", "width": 4},
                _el("rect", {"fill": "#c9c9c9", "height": 4, "width": 4, "x": 0, "y": 0})
                + _el("line", {"stroke": "#7a7a7a", "stroke-width": 1.6, "x1": 0, "x2": 0,
                               "y1": 0, "y2": 4}))
    arrow = _el("marker", {"id": "arrowhead", "markerHeight": 6, "markerUnits": "strokeWidth",
                           "markerWidth": 6, "orient": "auto", "refX": 3, "refY": 3},
                _el("path", {"d": "M0,0 L6,3 L0,6 z", "fill": "#d0301c"}))
    clips = "".join(
        _el("clipPath", {"id": f"clip-{p.map_id}"},
            _el("rect", {"height": _r(p.height), "width": _r(p.width), "x": p.x0, "y": p.y0}))
        for p in lay.panels.values())
    return _el("defs", {}, style + hatch + arrow + clips)


def _draw_panels(lay: _Layout, lang: str) -> str:
    board = lay.board
    # home-country tints: overlapping discs in one group, so the group's opacity applies once
    tints: dict[str, list[str]] = {m: [] for m in lay.panels}
    for c in sorted(board.cities.values(), key=lambda c: c.id):
        territory = board.territories.get(c.territory)
        tint_colour = TERRITORY_TINTS.get(territory.home or c.territory) if territory else None
        if tint_colour and c.map in tints and c.id in lay.pos:
            x, y = lay.pos[c.id]
            tints[c.map].append(_el("circle", {"cx": x, "cy": y, "fill": tint_colour, "r": 19}))
    out = []
    for p in lay.panels.values():
        m = board.maps[p.map_id]
        body = [_el("rect", {"fill": PANEL, "height": _r(p.height), "stroke": "#8c7b62",
                             "stroke-width": 1.2, "width": _r(p.width), "x": p.x0, "y": p.y0})]
        cw = p.width / len(m.columns)
        ch = p.height / m.rows
        suits = []
        for ci, col in enumerate(m.columns):
            for row in range(1, m.rows + 1):
                x = p.x0 + ci * cw
                y = p.y0 + (m.rows - row) * ch
                sector = f"{col}{row}"
                suit = board.suits.get(sector)
                body.append(_text(sector, {"class": "sector", "x": _r(x + 2),
                                           "y": _r(y + ch - 2.5)}))
                if suit:
                    colour = "#b3141b" if suit in ("H", "D") else "#111111"
                    suits.append(_text(SUIT_SYMBOLS[suit], {
                        "class": "suit", "fill": colour,
                        "style": f"font-size:{_r(min(cw, ch) * 0.6)}px",
                        "x": _r(x + cw / 2), "y": _r(y + ch / 2)}))
        grid = " ".join(
            [f"M{_r(p.x0 + i * cw)},{_r(p.y0)} v{_r(p.height)}" for i in range(1, len(m.columns))]
            + [f"M{_r(p.x0)},{_r(p.y0 + j * ch)} h{_r(p.width)}" for j in range(1, m.rows)]
        )
        body.append(_el("path", {"class": "grid", "d": grid}))
        body.append(_el("g", {"class": "suits", "opacity": "0.06"}, "".join(suits)))
        body.append(_el("g", {"clip-path": f"url(#clip-{p.map_id})", "id": f"tint-{p.map_id}",
                              "opacity": str(TINT_OPACITY)}, "".join(tints[p.map_id])))
        name = (m.name_zh if lang == "zh-TW" and m.name_zh else m.name).upper()
        body.append(_text(name, {"class": "mapname", "x": _r(p.x0 + 6), "y": _r(p.y0 + 15)}))
        out.append(_el("g", {"id": f"map-{p.map_id}"}, "".join(body)))
    return _el("g", {"id": "sectors"}, "".join(out))


def _draw_roads(board: Board, pos: Mapping[str, tuple[float, float]]) -> str:
    plain: list[str] = []
    main: list[str] = []
    cross: list[str] = []
    for road in board.roads:
        if road.a not in pos or road.b not in pos:
            continue
        (x1, y1), (x2, y2) = pos[road.a], pos[road.b]
        seg = f"M{x1},{y1} L{x2},{y2}"
        (cross if road.cross_map else main if road.main else plain).append(seg)
    # one path per kind keeps the file small
    paths = [_el("path", {"class": cls, "d": " ".join(segs)})
             for cls, segs in (("road", plain), ("main-road", main), ("cross-map", cross))
             if segs]
    return _el("g", {"id": "roads"}, "".join(paths))


def _fortress_shape(city: City, x: float, y: float) -> str:
    """Minor fortress: a small square; major: a larger bastioned star."""
    if city.fortress == "major":
        pts = []
        for i in range(8):
            r = 6.2 if i % 2 == 0 else 3.6
            a = math.pi / 4 * i - math.pi / 2
            pts.append((_r(x + r * math.cos(a)), _r(y + r * math.sin(a))))
        return _el("polygon", {"class": "fortress major", "fill": "#ffffff",
                               "points": _points(pts), "stroke": "#2b2418",
                               "stroke-width": 1.4})
    return _el("rect", {"class": "fortress minor", "fill": "#ffffff", "height": 6.6,
                        "stroke": "#2b2418", "stroke-width": 1.3, "width": 6.6,
                        "x": _r(x - 3.3), "y": _r(y - 3.3)})


def _draw_cities(board: Board, pos: Mapping[str, tuple[float, float]], lang: str
                 ) -> tuple[str, list[Box]]:
    """The city layer and the box each city's symbol covers."""
    out = []
    boxes = []
    for cid, city in board.cities.items():
        x, y = pos[cid]
        body = [_title(f"{city.display_name(lang)} ({cid}, {city.sector})")]
        if city.electoral:
            body.append(_el("circle", {"class": "electoral", "cx": x, "cy": y, "fill": "none",
                                       "r": 9.2, "stroke": "#7b2d8e", "stroke-width": 1.8}))
        if city.fortress == "none":
            body.append(_el("circle", {"cx": x, "cy": y, "fill": "#2b2418", "r": 2.6}))
        else:
            body.append(_fortress_shape(city, x, y))
        out.append(_el("g", {"class": f"city {city.fortress}", "id": f"city-{cid}"},
                       "".join(body)))
        r = 9.5 if city.electoral else 6.5 if city.fortress == "major" else 4
        boxes.append((x - r, y - r, x + r, y + r))
    return _el("g", {"id": "cities"}, "".join(out)), boxes


# -- names ---------------------------------------------------------------------------------


class _Boxes:
    """Rectangles already taken on the drawing, bucketed in a grid so a test is cheap.

    A name's box records its city and whether the name is an important one, so a view can
    look past the names it is about to move (``skip``) or past the small names (``only_big``).
    """

    CELL = 24.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[Box, int, str, bool]]] = {}

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        c = self.CELL
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                yield (i, j)

    def add(self, box: Box, weight: int, owner: str = "", big: bool = True) -> None:
        """Take ``box``; ``owner`` names the city whose name it is ("" for symbols)."""
        entry = (box, weight, owner, big)
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(entry)

    def cost(self, box: Box, skip: Set[str] = frozenset(), only_big: bool = False,
             first: bool = False) -> int:
        """The summed weights of the boxes that ``box`` overlaps (each counted once); with
        ``first``, the weight of the first one found (enough to tell a free place)."""
        # the hot loop of the name placement: written out rather than built from helpers
        c = self.CELL
        x0, y0, x1, y1 = box
        i0, i1, j0, j1 = int(x0 // c), int(x1 // c), int(y0 // c), int(y1 // c)
        cells = self.cells
        one_cell = i0 == i1 and j0 == j1
        seen: set[tuple[Box, int, str, bool]] = set()
        total = 0
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                for entry in cells.get((i, j), ()):
                    other, weight, owner, big = entry
                    if (x0 < other[2] and other[0] < x1 and y0 < other[3] and other[1] < y1
                            and not (owner and (owner in skip or (only_big and not big)))):
                        if first:
                            return weight
                        if not one_cell:
                            if entry in seen:
                                continue
                            seen.add(entry)
                        total += weight
        return total

    def owners(self, box: Box) -> set[str]:
        """The cities whose names ``box`` overlaps."""
        return {owner for key in self._keys(box) for other, _, owner, _ in self.cells.get(key, ())
                if owner and _overlaps(box, other)}


LABEL_HIT = 10  # covering another name is worse than covering a city's symbol
PIECE_HIT = 30  # and covering a piece or a battle ring is worse still: it hides the play
FARTHER = 12.0  # the second ring of places for an important name, tried when the first
FARTHER_FROM = LABEL_HIT  # ring has no place that leaves other names and the pieces clear
SMALL_NAME = 6.4


def _rank(city: City, busy: Set[str]) -> int:
    """Electoral and major fortresses are named first, then minor ones and busy cities."""
    if city.electoral or city.fortress == "major":
        return 0
    if city.fortress == "minor" or city.id in busy:
        return 1
    return 2


def _is_important(city: City, busy: Set[str]) -> bool:
    return _rank(city, busy) < 2


def _name_reach(city: City, at: tuple[float, float], lang: str) -> Box:
    """The area that every place :func:`_place_label` tries for a town's name lies in."""
    x, y = at
    w = _text_width(city.display_name(lang), NAME_SIZE) + 2
    h = NAME_SIZE * 1.05
    gap = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
    return (x - gap - w, y - gap - 2 * h, x + gap + w, y + gap + 2 * h)


def _place_label(city: City, x: float, y: float, lang: str, important: bool,
                 cost: Callable[[Box], int]) -> tuple[int, _Label]:
    """The best of eight places around the city for its name, and what it covers there.

    A town's name that fits nowhere is tried in a smaller type; an important name (which is
    printed whatever it covers) is tried a little farther out instead.
    """
    text = city.display_name(lang)
    gap0 = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
    tries = (((FORTRESS_NAME, gap0), (FORTRESS_NAME, gap0 + FARTHER)) if important
             else ((NAME_SIZE, gap0), (SMALL_NAME, gap0)))
    best: tuple[int, float, float, float, str, Box] | None = None
    for size, gap in tries:
        if gap != gap0 and best is not None and best[0] < FARTHER_FROM:
            break  # a name touching a town's dot stays by its own city
        w = _text_width(text, size)
        h = size * 1.05
        candidates = [
            (x + gap, y + h * 0.35, "start"),
            (x - gap, y + h * 0.35, "end"),
            (x, y + gap + h * 0.8, "middle"),
            (x, y - gap - 1, "middle"),
            (x + gap * 0.7, y + gap + h * 0.5, "start"),
            (x - gap * 0.7, y + gap + h * 0.5, "end"),
            (x + gap * 0.7, y - gap * 0.6, "start"),
            (x - gap * 0.7, y - gap * 0.6, "end"),
        ]
        for tx, ty, anchor in candidates:
            left = tx if anchor == "start" else tx - w if anchor == "end" else tx - w / 2
            box = (left - 0.8, ty - h * 0.78, left + w + 0.8, ty + h * 0.22)
            c = cost(box)
            if best is None or c < best[0]:
                best = (c, size, tx, ty, anchor, box)
            if c == 0:
                break
        if best is not None and best[0] == 0:
            break
    assert best is not None
    c, size, tx, ty, anchor, box = best
    attrs = {"class": "lbl major" if city.fortress == "major" else "lbl",
             "id": f"label-{city.id}",
             "style": None if size == NAME_SIZE else f"font-size:{size}px",
             "text-anchor": anchor, "x": _r(tx), "y": _r(ty)}
    return c, _Label(city.id, size, tx, ty, anchor, box, _text(text, attrs))


def _place_labels(board: Board, pos: Mapping[str, tuple[float, float]], symbols: Sequence[Box],
                  pieces: Sequence[Box], busy: Set[str], lang: str) -> list[_Label]:
    """Name every city where its name hides nothing, trying eight places around it: the
    full placement, in drawing order.

    Fortresses and cities with pieces are named first and always; a plain town whose name
    fits nowhere is tried in a smaller type, and left unnamed if it still does not fit (its
    name stays in the city's tooltip), since overprinted names help nobody.
    """
    taken = _Boxes()
    for box in symbols:
        taken.add(box, 3)
    for box in pieces:
        taken.add(box, PIECE_HIT)
    out = []
    for city in sorted(board.cities.values(), key=lambda c: (_rank(c, busy), c.id)):
        x, y = pos[city.id]
        important = _is_important(city, busy)
        # a small name is placed only where it covers nothing: the first hit tells enough
        cost, label = _place_label(city, x, y, lang, important,
                                   taken.cost if important else partial(taken.cost, first=True))
        if cost > 0 and not important:
            continue
        taken.add(label.box, LABEL_HIT, city.id, important)
        out.append(label)
    return out


def _replace_labels(board: Board, st: _Static, obstacles: Sequence[Box], busy: Set[str],
                    lang: str) -> list[_Label]:
    """The names for a view: those placed on the empty board stay where they are unless a
    piece, a mark or a battle ring now covers them or their city became busy; those are
    placed again around the kept names, important ones first as in the full placement.
    A small name that an important one now covers moves too, and a town left unnamed on the
    empty board gets a chance where a name moved away."""
    pos = st.lay.pos
    cities = board.cities
    base = st.labels
    dynamic = _Boxes()
    for box in obstacles:
        dynamic.add(box, PIECE_HIT)
    moved: set[str] = {c for c in busy if c in cities and _rank(cities[c], set()) == 2}
    for box in obstacles:
        moved |= st.grid.owners(box)
    placed: dict[str, _Label] = {}

    def big_cost(box: Box) -> int:
        return st.grid.cost(box, moved, only_big=True) + dynamic.cost(box, only_big=True)

    for cid in sorted((c for c in moved if _is_important(cities[c], busy)),
                      key=lambda c: (_rank(cities[c], busy), c)):
        x, y = pos[cid]
        _, label = _place_label(cities[cid], x, y, lang, True, big_cost)
        dynamic.add(label.box, LABEL_HIT, cid, True)
        placed[cid] = label
        # small names under it give way (kept important ones were in its cost)
        moved |= {o for o in st.grid.owners(label.box) if not _is_important(cities[o], busy)}
    # Small names to place again: the moved ones and, as the full placement would have placed
    # them together, the small names within their reach; then the unnamed towns that may now
    # find room where a name left.
    small = {c for c in moved if not _is_important(cities[c], busy)}
    for cid in sorted(small):
        small |= {o for o in st.grid.owners(_name_reach(cities[cid], pos[cid], lang))
                  if not _is_important(cities[o], busy)}
    moved |= small
    for cid in sorted(moved):
        if cid in base:
            small |= st.unnamed.owners(base[cid].box) - busy

    def cost(box: Box) -> int:  # as in the full placement, only a free place matters
        return st.grid.cost(box, moved, first=True) or dynamic.cost(box, first=True)

    for cid in sorted(small):
        x, y = pos[cid]
        c, label = _place_label(cities[cid], x, y, lang, False, cost)
        if c == 0:
            dynamic.add(label.box, LABEL_HIT, cid, False)
            placed[cid] = label
    for cid, label in base.items():
        if cid not in moved:
            placed[cid] = label
    return [placed[c] for c in sorted(placed, key=lambda c: (_rank(cities[c], busy), c))]


# -- pieces --------------------------------------------------------------------------------


def short_name(g_: Mapping[str, Any], lang: str) -> str:
    """A general's name cut to a word a counter can carry: ``Friedrich``, ``Khevenh.``, ``腓特烈``."""
    if lang == "zh-TW" and g_.get("name_zh"):
        zh = str(g_["name_zh"]).split("的")[-1].split("-")[0]
        return zh[:3]
    words = str(g_.get("name") or g_.get("id") or "").split()
    while len(words) > 1 and words[0] in ("Der", "Alte", "Erbprinz"):
        words = words[1:]
    word = words[0] if words else ""
    return word if len(word) <= 9 else word[:7] + "."


def _counter(g_: Mapping[str, Any], x: float, y: float, lang: str, sample: str = "") -> str:
    power = str(g_.get("power"))
    fill, edge, ink = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    face_down = bool(g_.get("face_down"))
    classes = ["general", f"power-{power}"]
    if face_down:
        classes.append("face-down")
    if g_.get("blocked"):
        classes.append("blocked")
    name = g_.get("name_zh") if lang == "zh-TW" and g_.get("name_zh") else g_.get("name")
    tip = f"{name or g_.get('id')} ({power})"
    if g_.get("troops") is not None:
        tip += f": {g_.get('troops')}"
    body = [_title(tip),
            _el("rect", {"fill": "url(#hatch)" if face_down else fill, "height": COUNTER,
                         "rx": 1.8, "stroke": edge, "stroke-width": 1.4, "width": COUNTER,
                         "x": _r(x), "y": _r(y)})]
    cx, cy = _r(x + COUNTER / 2), _r(y + COUNTER / 2 + 0.4)
    if face_down:
        body.append(_text("?", {"class": "rank", "fill": "#333333", "x": cx, "y": cy}))
    else:
        body.append(_text(str(g_.get("rank", "")), {"class": "rank", "fill": ink, "x": cx,
                                                     "y": cy}))
    troops = g_.get("troops")
    if troops is not None:
        bx, by = _r(x + COUNTER - 0.5), _r(y + COUNTER - 0.5)
        body.append(_el("circle", {"cx": bx, "cy": by, "fill": "#ffffff", "r": 4.2,
                                   "stroke": edge, "stroke-width": 0.9}))
        body.append(_text(str(troops), {"class": "troops", "x": bx, "y": _r(by + 0.3)}))
    if g_.get("blocked"):
        body.append(_el("path", {
            "class": "blocked-mark",
            "d": f"M{_r(x - 1)},{_r(y - 1)} L{_r(x + COUNTER + 1)},{_r(y + COUNTER + 1)}"
                 f" M{_r(x + COUNTER + 1)},{_r(y - 1)} L{_r(x - 1)},{_r(y + COUNTER + 1)}",
            "fill": "none", "stroke": "#e0201b", "stroke-width": 2.2}))
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": " ".join(classes), "id": f"general-{g_.get('id')}"})
    return _el("g", attrs, "".join(body))


def _train(t: Mapping[str, Any], x: float, y: float, sample: str = "") -> str:
    power = str(t.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    body = (_title(f"{t.get('id')} ({power})")
            + _el("rect", {"fill": fill, "height": 6.5, "stroke": edge, "stroke-width": 1.1,
                           "width": 10, "x": _r(x), "y": _r(y)})
            + "".join(_el("circle", {"cx": _r(x + dx), "cy": _r(y + 7.2), "fill": "#ffffff",
                                     "r": 1.8, "stroke": edge, "stroke-width": 0.9})
                      for dx in (2.5, 7.5)))
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": f"train power-{power}", "id": f"train-{t.get('id')}"})
    return _el("g", attrs, body)


def _hussar(city: str, x: float, y: float, sample: str = "") -> str:
    body = (_el("polygon", {"fill": POWER_COLOURS["AU"][0],
                            "points": _points([(_r(x), _r(y - 5)), (_r(x + 5), _r(y)),
                                               (_r(x), _r(y + 5)), (_r(x - 5), _r(y))]),
                            "stroke": POWER_COLOURS["AU"][1], "stroke-width": 1.3})
            + _text("H", {"class": "troops", "fill": POWER_COLOURS["AU"][2], "x": _r(x), "y": _r(y + 0.3)}))
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": "hussar", "id": f"hussar-{city}"})
    return _el("g", attrs, body)


def _control(city: str, info: Mapping[str, Any], x: float, y: float, sample: str = "") -> str:
    power = str(info.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    marker = bool(info.get("marker"))
    if marker:
        body = _el("circle", {"cx": x, "cy": y, "fill": fill, "r": 4.4, "stroke": "#c9a227",
                              "stroke-width": 1.6})
    else:
        body = (_el("line", {"stroke": "#2b2418", "stroke-width": 1, "x1": x, "x2": x,
                             "y1": _r(y + 5), "y2": _r(y - 5)})
                + _el("polygon", {"fill": fill,
                                  "points": _points([(x, _r(y - 5)), (_r(x + 7), _r(y - 2.5)),
                                                     (x, y)]),
                                  "stroke": edge, "stroke-width": 0.8}))
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": f"{'victory-marker' if marker else 'control-flag'} power-{power}",
              "id": f"control-{city}"})
    return _el("g", attrs, body)


def _draw_pieces(
    pos: Mapping[str, tuple[float, float]],
    generals: Sequence[Mapping[str, Any]],
    trains: Sequence[Mapping[str, Any]],
    hussars: Sequence[str],
    control: Mapping[str, Mapping[str, Any]],
    lang: str,
) -> tuple[str, list[Box]]:
    """Generals above their city (a stack of 2 side by side), trains to the lower right,
    hussars to the left, flags and markers to the upper left. Returns the SVG and the boxes
    used."""
    out = []
    boxes: list[Box] = []
    for city, info in control.items():
        x, y = pos[city]
        out.append(_control(city, info, _r(x - 13), _r(y)))
        boxes.append((x - 18, y - 6, x - 7, y + 6))
    for city in hussars:
        x, y = pos[city]
        out.append(_hussar(city, _r(x - 8), _r(y + 9)))
        boxes.append((x - 14, y + 3, x - 2, y + 15))
    by_city: dict[str, list[Mapping[str, Any]]] = {}
    for t in sorted(trains, key=lambda t: str(t.get("id"))):
        by_city.setdefault(str(t["city"]), []).append(t)
    for city, here in by_city.items():
        x, y = pos[city]
        for i, t in enumerate(here):
            tx, ty = x + 2 + i * 11, y + 5.5
            out.append(_train(t, tx, ty))
            boxes.append((tx, ty, tx + 10, ty + 9))
    stacks: dict[str, list[Mapping[str, Any]]] = {}
    for g_ in generals:
        stacks.setdefault(str(g_["city"]), []).append(g_)
    for city, here in sorted(stacks.items()):
        here.sort(key=lambda g_: (POWERS.index(g_["power"]) if g_.get("power") in POWERS else 9,
                                  g_.get("rank", 99), str(g_.get("id"))))
        x, y = pos[city]
        total = len(here) * COUNTER + (len(here) - 1) * STACK_GAP
        left = x - total / 2
        top = y - COUNTER - 6
        for i, g_ in enumerate(here):
            out.append(_counter(g_, _r(left + i * (COUNTER + STACK_GAP)), _r(top), lang))
        # the generals' short names above their counters, so a player knows them at mail size
        label = "/".join(short_name(g_, lang) for g_ in here)
        out.append(_text(label, {"class": "gname", "x": _r(x), "y": _r(top - 2.2)}))
        half = max(total, len(label) * (GNAME_SIZE if lang == "zh-TW" else GNAME_SIZE * 0.62)) / 2
        boxes.append((min(left, x - half) - 1, top - 2.2 - GNAME_SIZE, max(left + total + 3, x + half + 1),
                      top + COUNTER + 3))
    return "".join(out), boxes


def _draw_highlights(pos: Mapping[str, tuple[float, float]], highlights: Mapping[str, Any]
                     ) -> str:
    out = []
    for i, path in enumerate(highlights.get("paths") or []):
        pts = [pos[c] for c in path if c in pos]
        if len(pts) < 2:
            continue
        # stop the arrow short of the last city so the head does not hide it
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1
        pts[-1] = (_r(x2 - (x2 - x1) * 7 / d), _r(y2 - (y2 - y1) * 7 / d))
        out.append(_el("polyline", {
            "class": "highlight-path", "fill": "none", "id": f"path-{i}",
            "marker-end": "url(#arrowhead)", "opacity": "0.9", "points": _points(pts),
            "stroke": "#d0301c", "stroke-dasharray": "6 2", "stroke-linejoin": "round",
            "stroke-width": 2.4}))
    for city in sorted(set(highlights.get("battles") or [])):
        if city in pos:
            x, y = pos[city]
            out.append(_el("circle", {"class": "battle", "cx": x, "cy": y, "fill": "none",
                                      "id": f"battle-{city}", "r": 13, "stroke": "#d0301c",
                                      "stroke-width": 2.6}))
    return _el("g", {"id": "highlights"}, "".join(out))


def _draw_title(board: Board, view: Mapping[str, Any], lang: str) -> str:
    board_title = board.title_zh if lang == "zh-TW" and board.title_zh else board.title
    title = str(view.get("title") or board_title)
    return (_text(title, {"class": "title", "id": "title", "x": MARGIN, "y": 22})
            + _text(board_title, {"class": "subtitle", "x": MARGIN, "y": 34}))


def _draw_legend(lay: _Layout, lang: str, powers: Sequence[str]) -> str:
    """A strip under the maps: entries flow down columns of LEGEND_ROWS rows."""
    words = LABELS[lang]
    top = lay.legend_top
    names = POWER_NAMES[lang]
    dummy = City("x", "x", None, "x", 0, 0, "x", "x", "S", "minor", False, frozenset())
    major = City(**{**dummy.__dict__, "fortress": "major"})

    def power_swatch(p: str) -> Callable[[float, float], str]:
        def draw(x: float, y: float) -> str:
            fill, edge, _ = POWER_COLOURS[p]
            return _el("rect", {"fill": fill, "height": 10, "stroke": edge, "stroke-width": 1,
                                "width": 16, "x": x, "y": _r(y - 5)})
        return draw

    def line(cls: str) -> Callable[[float, float], str]:
        return lambda x, y: _el("line", {"class": cls, "x1": x, "x2": x + 18, "y1": y, "y2": y})

    entries: list[tuple[str, Callable[[float, float], str]]] = [
        (f"{p}  {names[p]}", power_swatch(p)) for p in powers]
    entries += [
        (words["general"], lambda x, y: _counter(
            {"id": "x", "power": "PR", "rank": 1, "troops": 6, "name": ""},
            x + 2, _r(y - COUNTER / 2), lang, "legend-general")),
        (words["face_down"], lambda x, y: _counter(
            {"id": "x", "power": "AU", "face_down": True}, x + 2, _r(y - COUNTER / 2), lang,
            "legend-face-down")),
        (words["blocked"], lambda x, y: _counter(
            {"id": "x", "power": "FR", "rank": 2, "blocked": True}, x + 2,
            _r(y - COUNTER / 2), lang, "legend-blocked")),
        (words["train"], lambda x, y: _train({"id": "x", "power": "AU"}, x + 3, _r(y - 4.5),
                                             "legend-train")),
        (words["hussar"], lambda x, y: _hussar("x", x + 8, y, "legend-hussar")),
        (words["marker"], lambda x, y: _control("x", {"power": "FR", "marker": True}, x + 8, y,
                                                "legend-marker")),
        (words["flag"], lambda x, y: _control("x", {"power": "PR", "marker": False}, x + 6,
                                              y + 1, "legend-flag")),
        (words["minor"], lambda x, y: _fortress_shape(dummy, x + 8, y)),
        (words["major"], lambda x, y: _fortress_shape(major, x + 8, y)),
        (words["electoral"], lambda x, y: _el(
            "circle", {"cx": x + 8, "cy": y, "fill": "none", "r": 9.2, "stroke": "#7b2d8e",
                       "stroke-width": 1.8}) + _fortress_shape(major, x + 8, y)),
        (words["main"], line("main-road")),
        (words["road"], line("road")),
        (words["cross"], line("cross-map")),
        (words["sector"] + "  " + " ".join(SUIT_SYMBOLS[s] for s in "SHDC"), lambda x, y: (
            _el("rect", {"fill": "none", "height": 12, "stroke": "#cfc6b2", "stroke-width": 0.8,
                         "width": 18, "x": x, "y": y - 6})
            + _text("A1", {"class": "sector", "x": x + 1.5, "y": y + 4.5}))),
    ]
    columns = -(-len(entries) // LEGEND_ROWS)
    width = 70 + columns * LEGEND_COL_W
    left = lay.legend_left
    body = [_el("rect", {"fill": "#fffdf6", "height": _r(LEGEND_ROWS * LEGEND_ROW_H + 12),
                         "stroke": "#8c7b62", "stroke-width": 1, "width": _r(width), "x": left,
                         "y": top}),
            _text(words["legend"], {"class": "legend-head", "x": left + 10, "y": top + 20})]
    for i, (label, draw) in enumerate(entries):
        x = left + 70 + (i // LEGEND_ROWS) * LEGEND_COL_W
        y = _r(top + 14 + (i % LEGEND_ROWS) * LEGEND_ROW_H)
        body.append(draw(x, y))
        body.append(_text(label, {"class": "legend-text", "x": x + 26, "y": y}))
    return _el("g", {"id": "legend"}, "".join(body))


def action_box(board: Board, highlights: Mapping[str, Any], *, margin: float = 50.0, min_width: float = 320.0,
               aspect: float = 1.5) -> tuple[float, float, float, float] | None:
    """The part of the drawing (x, y, width, height in view units) around a phase's highlighted
    paths and battles, at least ``min_width`` wide and ``aspect`` times as wide as high, kept
    inside the drawing; ``None`` when nothing is highlighted or the action spans most of the
    board (the whole map shows it then)."""
    lay = _static(board, "en").lay
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
    return (_r(x), _r(y), _r(w), _r(h))
