"""The ground the pieces stand on: where each map and city goes (the layout), the sector grid
with its suits, the home-country shading, the roads and the cities' symbols."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from pbem.games.maria.board import SUIT_SYMBOLS, Board, City
from pbem.render.maria.svgmap.style import (
    CSS,
    GAP,
    LEGEND_COL_W,
    LEGEND_ROW_H,
    LEGEND_ROWS,
    MARGIN,
    PANEL,
    RIGHT_ROOM,
    SCALE,
    TERRITORY_TINTS,
    TINT_OPACITY,
    TITLE_H,
)
from pbem.render.maria.svgmap.svg import Box, el, points, rnd, svg_text, svg_title


@dataclass(frozen=True)
class Panel:
    map_id: str
    x0: float
    y0: float
    width: float
    height: float


class Layout:
    """Where everything goes: the projection of each map and the size of the drawing."""

    def __init__(self, board: Board) -> None:
        self.board = board
        maps = sorted(board.maps.values(), key=lambda m: (m.lon[0], m.id))
        self.panels: dict[str, Panel] = {}
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
                self.panels[m.id] = Panel(m.id, x, y, w, h)
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

def defs(lay: Layout) -> str:
    style = el("style", {"type": "text/css"}, f"<![CDATA[{CSS}]]>")
    hatch = el("pattern", {"height": 4, "id": "hatch", "patternTransform": "rotate(45)",
                            "patternUnits": "userSpaceOnUse", "width": 4},
                el("rect", {"fill": "#c9c9c9", "height": 4, "width": 4, "x": 0, "y": 0})
                + el("line", {"stroke": "#7a7a7a", "stroke-width": 1.6, "x1": 0, "x2": 0,
                               "y1": 0, "y2": 4}))
    arrow = el("marker", {"id": "arrowhead", "markerHeight": 6, "markerUnits": "strokeWidth",
                           "markerWidth": 6, "orient": "auto", "refX": 3, "refY": 3},
                el("path", {"d": "M0,0 L6,3 L0,6 z", "fill": "#d0301c"}))
    clips = "".join(
        el("clipPath", {"id": f"clip-{p.map_id}"},
            el("rect", {"height": rnd(p.height), "width": rnd(p.width), "x": p.x0, "y": p.y0}))
        for p in lay.panels.values())
    return el("defs", {}, style + hatch + arrow + clips)


def draw_panels(lay: Layout, lang: str) -> str:
    board = lay.board
    # home-country tints: overlapping discs in one group, so the group's opacity applies once
    tints: dict[str, list[str]] = {m: [] for m in lay.panels}
    for c in sorted(board.cities.values(), key=lambda c: c.id):
        territory = board.territories.get(c.territory)
        tint_colour = TERRITORY_TINTS.get(territory.home or c.territory) if territory else None
        if tint_colour and c.map in tints and c.id in lay.pos:
            x, y = lay.pos[c.id]
            tints[c.map].append(el("circle", {"cx": x, "cy": y, "fill": tint_colour, "r": 19}))
    out = []
    for p in lay.panels.values():
        m = board.maps[p.map_id]
        body = [el("rect", {"fill": PANEL, "height": rnd(p.height), "stroke": "#8c7b62",
                             "stroke-width": 1.2, "width": rnd(p.width), "x": p.x0, "y": p.y0})]
        cw = p.width / len(m.columns)
        ch = p.height / m.rows
        suits = []
        for ci, col in enumerate(m.columns):
            for row in range(1, m.rows + 1):
                x = p.x0 + ci * cw
                y = p.y0 + (m.rows - row) * ch
                sector = f"{col}{row}"
                suit = board.suits.get(sector)
                body.append(svg_text(sector, {"class": "sector", "x": rnd(x + 2),
                                           "y": rnd(y + ch - 2.5)}))
                if suit:
                    colour = "#b3141b" if suit in ("H", "D") else "#111111"
                    suits.append(svg_text(SUIT_SYMBOLS[suit], {
                        "class": "suit", "fill": colour,
                        "style": f"font-size:{rnd(min(cw, ch) * 0.6)}px",
                        "x": rnd(x + cw / 2), "y": rnd(y + ch / 2)}))
        grid = " ".join(
            [f"M{rnd(p.x0 + i * cw)},{rnd(p.y0)} v{rnd(p.height)}" for i in range(1, len(m.columns))]
            + [f"M{rnd(p.x0)},{rnd(p.y0 + j * ch)} h{rnd(p.width)}" for j in range(1, m.rows)]
        )
        body.append(el("path", {"class": "grid", "d": grid}))
        body.append(el("g", {"class": "suits", "opacity": "0.06"}, "".join(suits)))
        body.append(el("g", {"clip-path": f"url(#clip-{p.map_id})", "id": f"tint-{p.map_id}",
                              "opacity": str(TINT_OPACITY)}, "".join(tints[p.map_id])))
        name = (m.name_zh if lang == "zh-TW" and m.name_zh else m.name).upper()
        body.append(svg_text(name, {"class": "mapname", "x": rnd(p.x0 + 6), "y": rnd(p.y0 + 15)}))
        out.append(el("g", {"id": f"map-{p.map_id}"}, "".join(body)))
    return el("g", {"id": "sectors"}, "".join(out))


def draw_roads(board: Board, pos: Mapping[str, tuple[float, float]]) -> str:
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
    paths = [el("path", {"class": cls, "d": " ".join(segs)})
             for cls, segs in (("road", plain), ("main-road", main), ("cross-map", cross))
             if segs]
    return el("g", {"id": "roads"}, "".join(paths))


def fortress_shape(city: City, x: float, y: float) -> str:
    """Minor fortress: a small square; major: a larger bastioned star."""
    if city.fortress == "major":
        pts = []
        for i in range(8):
            r = 6.2 if i % 2 == 0 else 3.6
            a = math.pi / 4 * i - math.pi / 2
            pts.append((rnd(x + r * math.cos(a)), rnd(y + r * math.sin(a))))
        return el("polygon", {"class": "fortress major", "fill": "#ffffff",
                               "points": points(pts), "stroke": "#2b2418",
                               "stroke-width": 1.4})
    return el("rect", {"class": "fortress minor", "fill": "#ffffff", "height": 6.6,
                        "stroke": "#2b2418", "stroke-width": 1.3, "width": 6.6,
                        "x": rnd(x - 3.3), "y": rnd(y - 3.3)})


def draw_cities(board: Board, pos: Mapping[str, tuple[float, float]], lang: str
                 ) -> tuple[str, list[Box]]:
    """The city layer and the box each city's symbol covers."""
    out = []
    boxes = []
    for cid, city in board.cities.items():
        x, y = pos[cid]
        body = [svg_title(f"{city.display_name(lang)} ({cid}, {city.sector})")]
        if city.electoral:
            body.append(el("circle", {"class": "electoral", "cx": x, "cy": y, "fill": "none",
                                       "r": 9.2, "stroke": "#7b2d8e", "stroke-width": 1.8}))
        if city.fortress == "none":
            body.append(el("circle", {"cx": x, "cy": y, "fill": "#2b2418", "r": 2.6}))
        else:
            body.append(fortress_shape(city, x, y))
        out.append(el("g", {"class": f"city {city.fortress}", "id": f"city-{cid}"},
                       "".join(body)))
        r = 9.5 if city.electoral else 6.5 if city.fortress == "major" else 4
        boxes.append((x - r, y - r, x + r, y + r))
    return el("g", {"id": "cities"}, "".join(out)), boxes


