"""The Maria map as SVG: a pure function of a board and a map view.

``render_map(board, view)`` draws both maps side by side (Flanders west, Bohemia east), each
projected from its own lon/lat window with one common scale, so the cross-map links run across
the gap between them. Layers, bottom to top: sector grid with faint suit symbols, home-country
tints, roads, highlighted radius, cities and fortresses, names, control flags and victory
markers, hussars, supply trains, generals, highlighted paths and battles, the legend.

The output has a ``viewBox`` and no fixed pixel size (it scales from a phone to A3), every
element id is derived from the data (no random ids), and the same input gives the same bytes.
Names carry a halo (``paint-order: stroke``) so they stay legible over roads.

The view is the dictionary the rules' ``view`` produces (``pbem/games/maria/board.py``
``Forces.start_view`` builds the one for the starting position)::

    {"generals": [{"id", "name", "power", "rank", "city", "face_down", "blocked", "troops"}],
     "trains": [{"id", "power", "city"}], "hussars": [city, ...],
     "control": {city: {"power", "marker"}}, "turn": 1, "title": "..."}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import svgwrite
from svgwrite.container import Group

from pbem.games.maria.board import POWERS, SUIT_SYMBOLS, Board, City

# Powers' colours, the same everywhere: (fill, edge, text on the fill).
POWER_COLOURS: Mapping[str, tuple[str, str, str]] = {
    "AU": ("#f7f0d4", "#b8860b", "#5c4500"),  # ivory and gold
    "FR": ("#1f44b0", "#0c1e5e", "#ffffff"),  # royal blue
    "PR": ("#2e3a44", "#05080b", "#ffffff"),  # dark slate
    "PA": ("#c62828", "#6a0d0d", "#ffffff"),  # red
    "BA": ("#86c8f0", "#23658f", "#08324d"),  # sky blue
    "SX": ("#2e8b3e", "#11481b", "#ffffff"),  # green
}
# Light tints of the home countries (and Silesia), painted under the roads.
TERRITORY_TINTS: Mapping[str, str] = {
    "AU": "#ecd98c",
    "FR": "#b6c6f0",
    "PR": "#b9c0c8",
    "PA": "#f0b4b4",
    "BA": "#c5e5f8",
    "SX": "#b8e3bf",
    "silesia": "#dccbe8",
}
POWER_NAMES = {
    "en": {"AU": "Austria", "FR": "France", "PR": "Prussia", "PA": "Pragmatic Army",
           "BA": "Bavaria", "SX": "Saxony"},
    "zh-TW": {"AU": "奧地利", "FR": "法國", "PR": "普魯士", "PA": "國事詔書軍",
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


def render_map(
    board: Board,
    view: Mapping[str, Any],
    *,
    highlights: Mapping[str, Any] | None = None,
    lang: str = "en",
) -> str:
    """Draw ``view`` on ``board`` and return the SVG text.

    ``highlights`` may hold ``paths`` (lists of city ids, drawn as arrows), ``battles``
    (cities ringed) and ``radius`` (``{"city": id, "n": 6}``: cities within n shaded).
    ``lang="zh-TW"`` prints Chinese names where the map gives them and a Chinese legend.
    """
    lang = "zh-TW" if lang.lower().startswith("zh") else "en"
    words = LABELS[lang]
    lay = _Layout(board)
    pos = lay.pos
    highlights = highlights or {}
    dwg = svgwrite.Drawing(
        size=("100%", "100%"), viewBox=f"0 0 {lay.width} {lay.height}", debug=False
    )
    dwg.attribs["lang"] = lang
    dwg.defs.add(dwg.style(_CSS))
    _defs(dwg, lay)
    dwg.add(dwg.rect((0, 0), (lay.width, lay.height), fill=PAPER, id="paper"))

    generals = [g for g in view.get("generals", []) if g.get("city") in pos]
    trains = [t for t in view.get("trains", []) if t.get("city") in pos]
    hussars = sorted(h for h in view.get("hussars", []) if h in pos)
    # Nothing to show for a fortress held by nobody, or by its own home power without a marker.
    control = {
        c: v for c, v in sorted(view.get("control", {}).items())
        if c in pos and v.get("power") is not None
        and (v.get("marker") or v.get("power") != board.home_of(c))
    }

    _draw_panels(dwg, lay, lang)
    _draw_roads(dwg, board, pos)
    radius = highlights.get("radius")
    if radius and radius.get("city") in pos:
        shade = dwg.g(id="highlight-radius", opacity="0.35")
        for cid in sorted(board.within(radius["city"], int(radius.get("n", 0)))):
            x, y = pos[cid]
            shade.add(dwg.circle((x, y), 10, fill="#f2c230"))
        dwg.add(shade)
    obstacles = _draw_cities(dwg, board, pos, lang)

    pieces = dwg.g(id="pieces")
    boxes = _draw_pieces(dwg, pieces, pos, generals, trains, hussars, control, lang)
    busy = {str(p.get("city")) for p in list(generals) + list(trains)} | set(hussars) | set(control)
    rings = [(pos[c][0] - 15, pos[c][1] - 15, pos[c][0] + 15, pos[c][1] + 15)
             for c in highlights.get("battles") or [] if c in pos]
    _draw_labels(dwg, board, pos, obstacles + boxes + rings, busy, lang)
    dwg.add(pieces)
    _draw_highlights(dwg, pos, highlights)
    _draw_title(dwg, board, view, lay, lang)
    _draw_legend(dwg, lay, words, lang, _power_list(list(generals) + list(trains)) or
                 list(POWERS))
    return str(dwg.tostring())


def _defs(dwg: svgwrite.Drawing, lay: _Layout) -> None:
    hatch = dwg.pattern(id="hatch", size=(4, 4), patternUnits="userSpaceOnUse",
                        patternTransform="rotate(45)")
    hatch.add(dwg.rect((0, 0), (4, 4), fill="#c9c9c9"))
    hatch.add(dwg.line((0, 0), (0, 4), stroke="#7a7a7a", stroke_width=1.6))
    dwg.defs.add(hatch)
    arrow = dwg.marker(id="arrowhead", insert=(3, 3), size=(6, 6), orient="auto",
                       markerUnits="strokeWidth")
    arrow.add(dwg.path("M0,0 L6,3 L0,6 z", fill="#d0301c"))
    dwg.defs.add(arrow)
    for p in lay.panels.values():
        clip = dwg.clipPath(id=f"clip-{p.map_id}")
        clip.add(dwg.rect((p.x0, p.y0), (_r(p.width), _r(p.height))))
        dwg.defs.add(clip)


def _draw_panels(dwg: svgwrite.Drawing, lay: _Layout, lang: str) -> None:
    board = lay.board
    layer = dwg.g(id="sectors")
    tints = {}
    for p in lay.panels.values():
        m = board.maps[p.map_id]
        g = dwg.g(id=f"map-{p.map_id}")
        g.add(dwg.rect((p.x0, p.y0), (_r(p.width), _r(p.height)), fill="#fffdf6",
                       stroke="#8c7b62", stroke_width=1.2))
        tint = dwg.g(id=f"tint-{p.map_id}", opacity="0.55", clip_path=f"url(#clip-{p.map_id})")
        tints[p.map_id] = tint
        cw = p.width / len(m.columns)
        ch = p.height / m.rows
        suits = dwg.g(class_="suits", opacity="0.06")
        for ci, col in enumerate(m.columns):
            for row in range(1, m.rows + 1):
                x = p.x0 + ci * cw
                y = p.y0 + (m.rows - row) * ch
                sector = f"{col}{row}"
                suit = board.suits.get(sector)
                g.add(dwg.text(sector, insert=(_r(x + 2), _r(y + ch - 2.5)), class_="sector"))
                if suit:
                    colour = "#b3141b" if suit in ("H", "D") else "#111111"
                    suits.add(dwg.text(SUIT_SYMBOLS[suit], insert=(_r(x + cw / 2), _r(y + ch / 2)),
                                       class_="suit", fill=colour,
                                       style=f"font-size:{_r(min(cw, ch) * 0.6)}px"))
        grid = dwg.path(
            d=" ".join(
                [f"M{_r(p.x0 + i * cw)},{_r(p.y0)} v{_r(p.height)}"
                 for i in range(1, len(m.columns))]
                + [f"M{_r(p.x0)},{_r(p.y0 + j * ch)} h{_r(p.width)}" for j in range(1, m.rows)]
            ),
            class_="grid",
        )
        g.add(grid)
        g.add(suits)
        g.add(tint)
        name = (m.name_zh if lang == "zh-TW" and m.name_zh else m.name).upper()
        g.add(dwg.text(name, insert=(_r(p.x0 + 6), _r(p.y0 + 15)), class_="mapname"))
        layer.add(g)
    # home-country tints: overlapping discs in one group, so the group's opacity applies once
    for c in sorted(board.cities.values(), key=lambda c: c.id):
        territory = board.territories.get(c.territory)
        tint_colour = TERRITORY_TINTS.get(territory.home or c.territory) if territory else None
        if tint_colour and c.map in tints and c.id in lay.pos:
            tints[c.map].add(dwg.circle(lay.pos[c.id], 19, fill=tint_colour))
    dwg.add(layer)


def _draw_roads(dwg: svgwrite.Drawing, board: Board, pos: Mapping[str, tuple[float, float]]
                ) -> None:
    layer = dwg.g(id="roads")
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
    if plain:
        layer.add(dwg.path(d=" ".join(plain), class_="road"))
    if main:
        layer.add(dwg.path(d=" ".join(main), class_="main-road"))
    if cross:
        layer.add(dwg.path(d=" ".join(cross), class_="cross-map"))
    dwg.add(layer)


def _fortress_shape(dwg: svgwrite.Drawing, city: City, x: float, y: float) -> Any:
    """Minor fortress: a small square; major: a larger bastioned star."""
    if city.fortress == "major":
        pts = []
        for i in range(8):
            r = 6.2 if i % 2 == 0 else 3.6
            a = math.pi / 4 * i - math.pi / 2
            pts.append((_r(x + r * math.cos(a)), _r(y + r * math.sin(a))))
        return dwg.polygon(pts, fill="#ffffff", stroke="#2b2418", stroke_width=1.4,
                           class_="fortress major")
    return dwg.rect((_r(x - 3.3), _r(y - 3.3)), (6.6, 6.6), fill="#ffffff", stroke="#2b2418",
                    stroke_width=1.3, class_="fortress minor")


def _draw_cities(dwg: svgwrite.Drawing, board: Board, pos: Mapping[str, tuple[float, float]],
                 lang: str) -> list[tuple[float, float, float, float]]:
    layer = dwg.g(id="cities")
    boxes = []
    for cid, city in board.cities.items():
        x, y = pos[cid]
        g = dwg.g(id=f"city-{cid}", class_=f"city {city.fortress}")
        g.set_desc(title=f"{city.display_name(lang)} ({cid}, {city.sector})")
        if city.electoral:
            g.add(dwg.circle((x, y), 9.2, fill="none", stroke="#7b2d8e", stroke_width=1.8,
                             class_="electoral"))
        if city.fortress == "none":
            g.add(dwg.circle((x, y), 2.6, fill="#2b2418"))
        else:
            g.add(_fortress_shape(dwg, city, x, y))
        layer.add(g)
        r = 9.5 if city.electoral else 6.5 if city.fortress == "major" else 4
        boxes.append((x - r, y - r, x + r, y + r))
    dwg.add(layer)
    return boxes


class _Boxes:
    """Rectangles already taken on the drawing, bucketed in a grid so a test is cheap."""

    CELL = 24.0

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[tuple[float, float, float, float, int]]] = {}

    def _keys(self, box: tuple[float, float, float, float]) -> Iterable[tuple[int, int]]:
        c = self.CELL
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                yield (i, j)

    def add(self, box: tuple[float, float, float, float], weight: int) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append((*box, weight))

    def cost(self, box: tuple[float, float, float, float]) -> int:
        """The summed weights of the boxes that ``box`` overlaps."""
        seen: set[tuple[float, float, float, float, int]] = set()
        total = 0
        for key in self._keys(box):
            for other in self.cells.get(key, ()):
                if other not in seen and _overlaps(box, other[:4]):  # type: ignore[arg-type]
                    seen.add(other)
                    total += other[4]
        return total


LABEL_HIT = 10  # covering another name is worse than covering a symbol
SMALL_NAME = 6.4


def _draw_labels(dwg: svgwrite.Drawing, board: Board, pos: Mapping[str, tuple[float, float]],
                 obstacles: list[tuple[float, float, float, float]], busy: set[str],
                 lang: str) -> None:
    """Name every city where its name hides nothing, trying eight places around it.

    Fortresses and cities with pieces are named first and always; a plain town whose name
    fits nowhere is tried in a smaller type, and left unnamed if it still does not fit (its
    name stays in the city's tooltip), since overprinted names help nobody.
    """
    layer = dwg.g(id="labels")
    taken = _Boxes()
    for box in obstacles:
        taken.add(box, 3)

    def rank(c: City) -> tuple[int, str]:
        if c.electoral or c.fortress == "major":
            return (0, c.id)
        if c.fortress == "minor" or c.id in busy:
            return (1, c.id)
        return (2, c.id)

    for city in sorted(board.cities.values(), key=rank):
        x, y = pos[city.id]
        text = city.display_name(lang)
        important = rank(city)[0] < 2
        sizes = (FORTRESS_NAME,) if important else (NAME_SIZE, SMALL_NAME)
        gap = 9.0 if city.electoral else 6.5 if city.fortress == "major" else 4.5
        best: tuple[int, float, float, float, str, tuple[float, float, float, float]] | None
        best = None
        for size in sizes:
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
                cost = taken.cost(box)
                if best is None or cost < best[0]:
                    best = (cost, size, tx, ty, anchor, box)
                if cost == 0:
                    break
            if best is not None and best[0] == 0:
                break
        assert best is not None
        cost, size, tx, ty, anchor, box = best
        if cost > 0 and not important:
            continue
        taken.add(box, LABEL_HIT)
        cls = "lbl major" if city.fortress == "major" else "lbl"
        style = None if size == NAME_SIZE else f"font-size:{size}px"
        extra = {"style": style} if style else {}
        layer.add(dwg.text(text, insert=(_r(tx), _r(ty)), class_=cls, text_anchor=anchor,
                           id=f"label-{city.id}", **extra))
    dwg.add(layer)


def _counter(dwg: svgwrite.Drawing, g_: Mapping[str, Any], x: float, y: float, lang: str
             ) -> Group:
    power = str(g_.get("power"))
    fill, edge, ink = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    face_down = bool(g_.get("face_down"))
    classes = ["general", f"power-{power}"]
    if face_down:
        classes.append("face-down")
    if g_.get("blocked"):
        classes.append("blocked")
    grp = dwg.g(id=f"general-{g_.get('id')}", class_=" ".join(classes))
    name = g_.get("name_zh") if lang == "zh-TW" and g_.get("name_zh") else g_.get("name")
    tip = f"{name or g_.get('id')} ({power})"
    if g_.get("troops") is not None:
        tip += f": {g_.get('troops')}"
    grp.set_desc(title=tip)
    grp.add(dwg.rect((_r(x), _r(y)), (COUNTER, COUNTER), rx=1.8,
                     fill="url(#hatch)" if face_down else fill, stroke=edge, stroke_width=1.4))
    cx, cy = _r(x + COUNTER / 2), _r(y + COUNTER / 2 + 0.4)
    if face_down:
        grp.add(dwg.text("?", insert=(cx, cy), class_="rank", fill="#333333"))
    else:
        grp.add(dwg.text(str(g_.get("rank", "")), insert=(cx, cy), class_="rank", fill=ink))
    troops = g_.get("troops")
    if troops is not None:
        bx, by = _r(x + COUNTER - 0.5), _r(y + COUNTER - 0.5)
        grp.add(dwg.circle((bx, by), 4.2, fill="#ffffff", stroke=edge, stroke_width=0.9))
        grp.add(dwg.text(str(troops), insert=(bx, _r(by + 0.3)), class_="troops"))
    if g_.get("blocked"):
        grp.add(dwg.path(d=f"M{_r(x - 1)},{_r(y - 1)} L{_r(x + COUNTER + 1)},{_r(y + COUNTER + 1)}"
                         f" M{_r(x + COUNTER + 1)},{_r(y - 1)} L{_r(x - 1)},{_r(y + COUNTER + 1)}",
                         stroke="#e0201b", stroke_width=2.2, fill="none", class_="blocked-mark"))
    return grp


def _train(dwg: svgwrite.Drawing, t: Mapping[str, Any], x: float, y: float) -> Group:
    power = str(t.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    grp = dwg.g(id=f"train-{t.get('id')}", class_=f"train power-{power}")
    grp.set_desc(title=f"{t.get('id')} ({power})")
    grp.add(dwg.rect((_r(x), _r(y)), (10, 6.5), fill=fill, stroke=edge, stroke_width=1.1))
    grp.add(dwg.circle((_r(x + 2.5), _r(y + 7.2)), 1.8, fill="#ffffff", stroke=edge,
                       stroke_width=0.9))
    grp.add(dwg.circle((_r(x + 7.5), _r(y + 7.2)), 1.8, fill="#ffffff", stroke=edge,
                       stroke_width=0.9))
    return grp


def _hussar(dwg: svgwrite.Drawing, city: str, x: float, y: float) -> Group:
    grp = dwg.g(id=f"hussar-{city}", class_="hussar")
    grp.add(dwg.polygon([(_r(x), _r(y - 5)), (_r(x + 5), _r(y)), (_r(x), _r(y + 5)),
                         (_r(x - 5), _r(y))], fill="#f7f0d4", stroke="#b8860b", stroke_width=1.3))
    grp.add(dwg.text("H", insert=(_r(x), _r(y + 0.3)), class_="troops", fill="#5c4500"))
    return grp


def _control(dwg: svgwrite.Drawing, city: str, info: Mapping[str, Any], x: float, y: float
             ) -> Group:
    power = str(info.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    marker = bool(info.get("marker"))
    grp = dwg.g(id=f"control-{city}",
                class_=f"{'victory-marker' if marker else 'control-flag'} power-{power}")
    if marker:
        grp.add(dwg.circle((x, y), 4.4, fill=fill, stroke="#c9a227", stroke_width=1.6))
    else:
        grp.add(dwg.line((x, _r(y + 5)), (x, _r(y - 5)), stroke="#2b2418", stroke_width=1))
        grp.add(dwg.polygon([(x, _r(y - 5)), (_r(x + 7), _r(y - 2.5)), (x, y)], fill=fill,
                            stroke=edge, stroke_width=0.8))
    return grp


def _draw_pieces(
    dwg: svgwrite.Drawing,
    layer: Group,
    pos: Mapping[str, tuple[float, float]],
    generals: Sequence[Mapping[str, Any]],
    trains: Sequence[Mapping[str, Any]],
    hussars: Sequence[str],
    control: Mapping[str, Mapping[str, Any]],
    lang: str,
) -> list[tuple[float, float, float, float]]:
    """Generals above their city (a stack of 2 side by side), trains to the lower right,
    hussars to the left, flags and markers to the upper left. Returns the boxes used."""
    boxes = []
    for city, info in control.items():
        x, y = pos[city]
        layer.add(_control(dwg, city, info, _r(x - 13), _r(y)))
        boxes.append((x - 18, y - 6, x - 7, y + 6))
    for city in hussars:
        x, y = pos[city]
        layer.add(_hussar(dwg, city, _r(x - 8), _r(y + 9)))
        boxes.append((x - 14, y + 3, x - 2, y + 15))
    by_city: dict[str, list[Mapping[str, Any]]] = {}
    for t in sorted(trains, key=lambda t: str(t.get("id"))):
        by_city.setdefault(str(t["city"]), []).append(t)
    for city, here in by_city.items():
        x, y = pos[city]
        for i, t in enumerate(here):
            tx, ty = x + 2 + i * 11, y + 5.5
            layer.add(_train(dwg, t, tx, ty))
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
            layer.add(_counter(dwg, g_, _r(left + i * (COUNTER + STACK_GAP)), _r(top), lang))
        boxes.append((left - 1, top - 1, left + total + 3, top + COUNTER + 3))
    return boxes


def _draw_highlights(dwg: svgwrite.Drawing, pos: Mapping[str, tuple[float, float]],
                     highlights: Mapping[str, Any]) -> None:
    layer = dwg.g(id="highlights")
    for i, path in enumerate(highlights.get("paths") or []):
        pts = [pos[c] for c in path if c in pos]
        if len(pts) < 2:
            continue
        # stop the arrow short of the last city so the head does not hide it
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1
        pts[-1] = (_r(x2 - (x2 - x1) * 7 / d), _r(y2 - (y2 - y1) * 7 / d))
        layer.add(dwg.polyline(pts, id=f"path-{i}", class_="highlight-path", fill="none",
                               stroke="#d0301c", stroke_width=2.4, stroke_linejoin="round",
                               stroke_dasharray="6 2", marker_end="url(#arrowhead)",
                               opacity="0.9"))
    for city in sorted(set(highlights.get("battles") or [])):
        if city in pos:
            layer.add(dwg.circle(pos[city], 13, id=f"battle-{city}", class_="battle",
                                 fill="none", stroke="#d0301c", stroke_width=2.6))
    dwg.add(layer)


def _draw_title(dwg: svgwrite.Drawing, board: Board, view: Mapping[str, Any], lay: _Layout,
                lang: str) -> None:
    title = str(view.get("title") or board.title)
    dwg.add(dwg.text(title, insert=(MARGIN, 22), class_="title", id="title"))
    dwg.add(dwg.text(board.title, insert=(MARGIN, 34), class_="subtitle"))


def _sample(element: Any, sample_id: str) -> Any:
    element.attribs["id"] = sample_id
    element.attribs["class"] = "legend-sample"
    return element


def _draw_legend(dwg: svgwrite.Drawing, lay: _Layout, words: Mapping[str, str], lang: str,
                 powers: Sequence[str]) -> None:
    """A strip under the maps: entries flow down columns of LEGEND_ROWS rows."""
    g = dwg.g(id="legend")
    top = lay.legend_top
    names = POWER_NAMES[lang]
    dummy = City("x", "x", None, "x", 0, 0, "x", "x", "S", "minor", False, frozenset())
    major = City(**{**dummy.__dict__, "fortress": "major"})

    def power_swatch(p: str) -> Any:
        def draw(x: float, y: float) -> list[Any]:
            fill, edge, _ = POWER_COLOURS[p]
            return [dwg.rect((x, _r(y - 5)), (16, 10), fill=fill, stroke=edge, stroke_width=1)]
        return draw

    entries: list[tuple[str, Any]] = [(f"{p}  {names[p]}", power_swatch(p)) for p in powers]
    entries += [
        (words["general"], lambda x, y: [_sample(_counter(
            dwg, {"id": "x", "power": "PR", "rank": 1, "troops": 6, "name": ""},
            x + 2, _r(y - COUNTER / 2), lang), "legend-general")]),
        (words["face_down"], lambda x, y: [_sample(_counter(
            dwg, {"id": "x", "power": "AU", "face_down": True}, x + 2, _r(y - COUNTER / 2),
            lang), "legend-face-down")]),
        (words["blocked"], lambda x, y: [_sample(_counter(
            dwg, {"id": "x", "power": "FR", "rank": 2, "blocked": True}, x + 2,
            _r(y - COUNTER / 2), lang), "legend-blocked")]),
        (words["train"], lambda x, y: [_sample(_train(dwg, {"id": "x", "power": "AU"}, x + 3,
                                                      _r(y - 4.5)), "legend-train")]),
        (words["hussar"], lambda x, y: [_sample(_hussar(dwg, "x", x + 8, y), "legend-hussar")]),
        (words["marker"], lambda x, y: [_sample(_control(
            dwg, "x", {"power": "FR", "marker": True}, x + 8, y), "legend-marker")]),
        (words["flag"], lambda x, y: [_sample(_control(
            dwg, "x", {"power": "PR", "marker": False}, x + 6, y + 1), "legend-flag")]),
        (words["minor"], lambda x, y: [_fortress_shape(dwg, dummy, x + 8, y)]),
        (words["major"], lambda x, y: [_fortress_shape(dwg, major, x + 8, y)]),
        (words["electoral"], lambda x, y: [
            dwg.circle((x + 8, y), 9.2, fill="none", stroke="#7b2d8e", stroke_width=1.8),
            _fortress_shape(dwg, major, x + 8, y)]),
        (words["main"], lambda x, y: [dwg.line((x, y), (x + 18, y), class_="main-road")]),
        (words["road"], lambda x, y: [dwg.line((x, y), (x + 18, y), class_="road")]),
        (words["cross"], lambda x, y: [dwg.line((x, y), (x + 18, y), class_="cross-map")]),
        (words["sector"] + "  " + " ".join(SUIT_SYMBOLS[s] for s in "SHDC"), lambda x, y: [
            dwg.rect((x, y - 6), (18, 12), fill="none", stroke="#cfc6b2", stroke_width=0.8),
            dwg.text("A1", insert=(x + 1.5, y + 4.5), class_="sector")]),
    ]
    columns = -(-len(entries) // LEGEND_ROWS)
    width = 70 + columns * LEGEND_COL_W
    left = lay.legend_left
    g.add(dwg.rect((left, top), (_r(width), _r(LEGEND_ROWS * LEGEND_ROW_H + 12)),
                   fill="#fffdf6", stroke="#8c7b62", stroke_width=1))
    g.add(dwg.text(words["legend"], insert=(left + 10, top + 20), class_="legend-head"))
    for i, (label, draw) in enumerate(entries):
        x = left + 70 + (i // LEGEND_ROWS) * LEGEND_COL_W
        y = _r(top + 14 + (i % LEGEND_ROWS) * LEGEND_ROW_H)
        for element in draw(x, y):
            g.add(element)
        g.add(dwg.text(label, insert=(x + 26, y), class_="legend-text"))
    dwg.add(g)
