"""The drawing's title and its legend strip."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pbem.games.maria.board import SUIT_SYMBOLS, Board, City
from pbem.render.maria.svgmap.ground import Layout, fortress_shape
from pbem.render.maria.svgmap.pieces import control_mark, counter, hussar, train
from pbem.render.maria.svgmap.style import (
    COUNTER,
    LABELS,
    LEGEND_COL_W,
    LEGEND_ROW_H,
    LEGEND_ROWS,
    MARGIN,
    POWER_COLOURS,
    POWER_NAMES,
)
from pbem.render.maria.svgmap.svg import el, rnd, svg_text


def draw_title(board: Board, view: Mapping[str, Any], lang: str) -> str:
    board_title = board.title_zh if lang == "zh-TW" and board.title_zh else board.title
    title = str(view.get("title") or board_title)
    return (svg_text(title, {"class": "title", "id": "title", "x": MARGIN, "y": 22})
            + svg_text(board_title, {"class": "subtitle", "x": MARGIN, "y": 34}))


def draw_legend(lay: Layout, lang: str, powers: Sequence[str]) -> str:
    """A strip under the maps: entries flow down columns of LEGEND_ROWS rows."""
    words = LABELS[lang]
    top = lay.legend_top
    names = POWER_NAMES[lang]
    dummy = City("x", "x", None, "x", 0, 0, "x", "x", "S", "minor", False, frozenset())
    major = City(**{**dummy.__dict__, "fortress": "major"})

    def power_swatch(p: str) -> Callable[[float, float], str]:
        def draw(x: float, y: float) -> str:
            fill, edge, _ = POWER_COLOURS[p]
            return el("rect", {"fill": fill, "height": 10, "stroke": edge, "stroke-width": 1,
                                "width": 16, "x": x, "y": rnd(y - 5)})
        return draw

    def line(cls: str) -> Callable[[float, float], str]:
        return lambda x, y: el("line", {"class": cls, "x1": x, "x2": x + 18, "y1": y, "y2": y})

    entries: list[tuple[str, Callable[[float, float], str]]] = [
        (f"{p}  {names[p]}", power_swatch(p)) for p in powers]
    entries += [
        (words["general"], lambda x, y: counter(
            {"id": "x", "power": "PR", "rank": 1, "troops": 6, "name": ""},
            x + 2, rnd(y - COUNTER / 2), lang, "legend-general")),
        (words["face_down"], lambda x, y: counter(
            {"id": "x", "power": "AU", "face_down": True}, x + 2, rnd(y - COUNTER / 2), lang,
            "legend-face-down")),
        (words["blocked"], lambda x, y: counter(
            {"id": "x", "power": "FR", "rank": 2, "blocked": True}, x + 2,
            rnd(y - COUNTER / 2), lang, "legend-blocked")),
        (words["train"], lambda x, y: train({"id": "x", "power": "AU"}, x + 3, rnd(y - 4.5),
                                             "legend-train")),
        (words["hussar"], lambda x, y: hussar("x", x + 8, y, "legend-hussar")),
        (words["marker"], lambda x, y: control_mark("x", {"power": "FR", "marker": True}, x + 8, y,
                                                "legend-marker")),
        (words["flag"], lambda x, y: control_mark("x", {"power": "PR", "marker": False}, x + 6,
                                              y + 1, "legend-flag")),
        (words["minor"], lambda x, y: fortress_shape(dummy, x + 8, y)),
        (words["major"], lambda x, y: fortress_shape(major, x + 8, y)),
        (words["electoral"], lambda x, y: el(
            "circle", {"cx": x + 8, "cy": y, "fill": "none", "r": 9.2, "stroke": "#7b2d8e",
                       "stroke-width": 1.8}) + fortress_shape(major, x + 8, y)),
        (words["main"], line("main-road")),
        (words["road"], line("road")),
        (words["cross"], line("cross-map")),
        (words["sector"] + "  " + " ".join(SUIT_SYMBOLS[s] for s in "SHDC"), lambda x, y: (
            el("rect", {"fill": "none", "height": 12, "stroke": "#cfc6b2", "stroke-width": 0.8,
                         "width": 18, "x": x, "y": y - 6})
            + svg_text("A1", {"class": "sector", "x": x + 1.5, "y": y + 4.5}))),
    ]
    columns = -(-len(entries) // LEGEND_ROWS)
    width = 70 + columns * LEGEND_COL_W
    left = lay.legend_left
    body = [el("rect", {"fill": "#fffdf6", "height": rnd(LEGEND_ROWS * LEGEND_ROW_H + 12),
                         "stroke": "#8c7b62", "stroke-width": 1, "width": rnd(width), "x": left,
                         "y": top}),
            svg_text(words["legend"], {"class": "legend-head", "x": left + 10, "y": top + 20})]
    for i, (label, draw) in enumerate(entries):
        x = left + 70 + (i // LEGEND_ROWS) * LEGEND_COL_W
        y = rnd(top + 14 + (i % LEGEND_ROWS) * LEGEND_ROW_H)
        body.append(draw(x, y))
        body.append(svg_text(label, {"class": "legend-text", "x": x + 26, "y": y}))
    return el("g", {"id": "legend"}, "".join(body))


