"""The map's look: the powers' colours and the territories' tints, the legend's words, the
sizes of names and counters, and the style sheet every drawing carries."""

from __future__ import annotations

from collections.abc import Mapping

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
        "electoral": "選區要塞", "marker": "勝利標誌",
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

CSS = f"""
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

