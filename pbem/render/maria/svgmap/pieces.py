"""The pieces and marks of a view: generals' counters with their short names, supply trains,
hussars, control flags and victory markers, and the highlighted paths and battles."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.maria.board import POWERS
from pbem.render.maria.svgmap.style import COUNTER, GNAME_SIZE, POWER_COLOURS, STACK_GAP
from pbem.render.maria.svgmap.svg import Box, el, esc_attr, esc_text, points, rnd, svg_title

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


# The pieces are many and alike: their elements are written out directly, attributes in sorted
# order, as :func:`.svg.el` writes them (numbers as ``str`` gives them, words escaped), and their
# numbers rounded by ``round(v, 1)`` inline (what :func:`.svg.rnd` does, without a call of its own).


def _tag(name: str, attrs: str, body: str) -> str:
    """An element of attributes ``attrs`` (written) and ``body`` (SVG), as :func:`.svg.el`."""
    return f"<{name}{attrs}>{body}</{name}>" if body else f"<{name}{attrs} />"


def _group(attrs: Mapping[str, str], body: str) -> str:
    return _tag("g", f' class="{esc_attr(attrs["class"])}" id="{esc_attr(attrs["id"])}"', body)


def counter(g_: Mapping[str, Any], x: float, y: float, lang: str, sample: str = "") -> str:
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
    edge = esc_attr(edge)
    body = [svg_title(tip),
            f'<rect fill="{"url(#hatch)" if face_down else esc_attr(fill)}" height="{COUNTER}" rx="1.8"'
            f' stroke="{edge}" stroke-width="1.4" width="{COUNTER}" x="{round(x, 1)}" y="{round(y, 1)}" />']
    cx, cy = round(x + COUNTER / 2, 1), round(y + COUNTER / 2 + 0.4, 1)
    rank = "?" if face_down else esc_text(str(g_.get("rank", "")))
    body.append(_tag("text", f' class="rank" fill="{"#333333" if face_down else esc_attr(ink)}" x="{cx}" y="{cy}"',
                     rank))
    troops = g_.get("troops")
    if troops is not None:
        bx, by = round(x + COUNTER - 0.5, 1), round(y + COUNTER - 0.5, 1)
        body.append(f'<circle cx="{bx}" cy="{by}" fill="#ffffff" r="4.2" stroke="{edge}" stroke-width="0.9" />')
        body.append(_tag("text", f' class="troops" x="{bx}" y="{round(by + 0.3, 1)}"', esc_text(str(troops))))
    if g_.get("blocked"):
        body.append(
            f'<path class="blocked-mark" d="M{round(x - 1, 1)},{round(y - 1, 1)} L{round(x + COUNTER + 1, 1)},{round(y + COUNTER + 1, 1)}'
            f' M{round(x + COUNTER + 1, 1)},{round(y - 1, 1)} L{round(x - 1, 1)},{round(y + COUNTER + 1, 1)}"'
            ' fill="none" stroke="#e0201b" stroke-width="2.2" />')
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": " ".join(classes), "id": f"general-{g_.get('id')}"})
    return _group(attrs, "".join(body))


def train(t: Mapping[str, Any], x: float, y: float, sample: str = "") -> str:
    power = str(t.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    edge = esc_attr(edge)
    wheels = "".join(f'<circle cx="{round(x + dx, 1)}" cy="{round(y + 7.2, 1)}" fill="#ffffff" r="1.8" stroke="{edge}"'
                     ' stroke-width="0.9" />' for dx in (2.5, 7.5))
    body = (svg_title(f"{t.get('id')} ({power})")
            + f'<rect fill="{esc_attr(fill)}" height="6.5" stroke="{edge}" stroke-width="1.1" width="10"'
              f' x="{round(x, 1)}" y="{round(y, 1)}" />'
            + wheels)
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": f"train power-{power}", "id": f"train-{t.get('id')}"})
    return _group(attrs, body)


def hussar(city: str, x: float, y: float, sample: str = "") -> str:
    fill, edge, ink = (esc_attr(c) for c in POWER_COLOURS["AU"])
    rx, ry = round(x, 1), round(y, 1)
    body = (f'<polygon fill="{fill}" points="{rx},{round(y - 5, 1)} {round(x + 5, 1)},{ry} {rx},{round(y + 5, 1)}'
            f' {round(x - 5, 1)},{ry}" stroke="{edge}" stroke-width="1.3" />'
            f'<text class="troops" fill="{ink}" x="{rx}" y="{round(y + 0.3, 1)}">H</text>')
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": "hussar", "id": f"hussar-{city}"})
    return _group(attrs, body)


def control_mark(city: str, info: Mapping[str, Any], x: float, y: float, sample: str = "") -> str:
    power = str(info.get("power"))
    fill, edge, _ = POWER_COLOURS.get(power, ("#dddddd", "#555555", "#000000"))
    marker = bool(info.get("marker"))
    if marker:
        body = (f'<circle cx="{x}" cy="{y}" fill="{esc_attr(fill)}" r="4.4" stroke="#c9a227"'
                ' stroke-width="1.6" />')
    else:
        body = (f'<line stroke="#2b2418" stroke-width="1" x1="{x}" x2="{x}" y1="{round(y + 5, 1)}" y2="{round(y - 5, 1)}" />'
                f'<polygon fill="{esc_attr(fill)}" points="{x},{round(y - 5, 1)} {round(x + 7, 1)},{round(y - 2.5, 1)} {x},{y}"'
                f' stroke="{esc_attr(edge)}" stroke-width="0.8" />')
    attrs = ({"class": "legend-sample", "id": sample} if sample else
             {"class": f"{'victory-marker' if marker else 'control-flag'} power-{power}",
              "id": f"control-{city}"})
    return _group(attrs, body)


def draw_pieces(
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
        out.append(control_mark(city, info, round(x - 13, 1), round(y, 1)))
        boxes.append((x - 18, y - 6, x - 7, y + 6))
    for city in hussars:
        x, y = pos[city]
        out.append(hussar(city, round(x - 8, 1), round(y + 9, 1)))
        boxes.append((x - 14, y + 3, x - 2, y + 15))
    by_city: dict[str, list[Mapping[str, Any]]] = {}
    for t in sorted(trains, key=lambda t: str(t.get("id"))):
        by_city.setdefault(str(t["city"]), []).append(t)
    for city, here in by_city.items():
        x, y = pos[city]
        for i, t in enumerate(here):
            tx, ty = x + 2 + i * 11, y + 5.5
            out.append(train(t, tx, ty))
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
            out.append(counter(g_, round(left + i * (COUNTER + STACK_GAP), 1), round(top, 1), lang))
        # the generals' short names above their counters, so a player knows them at mail size
        label = "/".join(short_name(g_, lang) for g_ in here)
        out.append(_tag("text", f' class="gname" x="{round(x, 1)}" y="{round(top - 2.2, 1)}"', esc_text(label)))
        half = max(total, len(label) * (GNAME_SIZE if lang == "zh-TW" else GNAME_SIZE * 0.62)) / 2
        boxes.append((min(left, x - half) - 1, top - 2.2 - GNAME_SIZE, max(left + total + 3, x + half + 1),
                      top + COUNTER + 3))
    return "".join(out), boxes


def draw_highlights(pos: Mapping[str, tuple[float, float]], highlights: Mapping[str, Any]
                     ) -> str:
    out = []
    for i, path in enumerate(highlights.get("paths") or []):
        pts = [pos[c] for c in path if c in pos]
        if len(pts) < 2:
            continue
        # stop the arrow short of the last city so the head does not hide it
        (x1, y1), (x2, y2) = pts[-2], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1
        pts[-1] = (rnd(x2 - (x2 - x1) * 7 / d), rnd(y2 - (y2 - y1) * 7 / d))
        out.append(el("polyline", {
            "class": "highlight-path", "fill": "none", "id": f"path-{i}",
            "marker-end": "url(#arrowhead)", "opacity": "0.9", "points": points(pts),
            "stroke": "#d0301c", "stroke-dasharray": "6 2", "stroke-linejoin": "round",
            "stroke-width": 2.4}))
    for city in sorted(set(highlights.get("battles") or [])):
        if city in pos:
            x, y = pos[city]
            out.append(el("circle", {"class": "battle", "cx": x, "cy": y, "fill": "none",
                                      "id": f"battle-{city}", "r": 13, "stroke": "#d0301c",
                                      "stroke-width": 2.6}))
    return el("g", {"id": "highlights"}, "".join(out))


