"""What Maria's offline order page embeds beyond the common part (``render/orderpage.py``):
the map's public data, the seat's pieces, and what the form checks orders against, from the
seat's view and its own powers' legal choices only."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pbem.games.maria import model
from pbem.games.maria.board import load_board, load_forces
from pbem.render import i18n
from pbem.render.maria.names import glossary


def maria_static(lang: str) -> dict[str, Any]:
    """The public map data the Maria form checks paths against, packed small: ``cities`` lists
    ``[id, English name (pbem check's), sector suit, map index, name to show if other]`` in id
    order; ``roads`` is a flat list ``a, b, main`` of city indexes; ``pos`` a flat list ``x, y``
    of where the map draws each city (empty without the renderer's layout)."""
    return dict(_maria_static(i18n.check_lang(lang)))


@cache
def _maria_static(lang: str) -> dict[str, Any]:
    board = load_board()
    forces = load_forces(board)
    zh = lang.startswith("zh")
    ids = sorted(board.cities)
    index = {c: i for i, c in enumerate(ids)}
    maps = sorted({board.map_of(c) for c in ids})
    cities = []
    for c in ids:
        city = board.cities[c]
        shown = city.display_name(lang)
        cities.append([c, city.name, board.suit_of(c), maps.index(board.map_of(c))] + ([shown] if shown != city.name else []))
    roads: list[int] = []
    for a in ids:
        for b in board.neighbours(a):
            if a < b:
                roads += [index[a], index[b], int(board.is_main(a, b))]
    where = _city_positions()
    pos: list[int] = []
    if where:
        for c in ids:
            x, y = where.get(c, (-1.0, -1.0))
            pos += [round(x), round(y)]
    return {
        "cities": cities,
        "maps": maps,
        "roads": roads,
        "pos": pos,
        "general_names": {g.id: (g.name_zh if zh and g.name_zh else g.name) for g in forces.generals},
    }


@cache
def _city_positions() -> dict[str, tuple[float, float]]:
    """Where the map draws each city, so the page can draw the planned moves over it. The
    page draws no overlay when the layout cannot place the board."""
    from pbem.render.maria import svgmap

    try:
        pos = svgmap.Layout(load_board()).pos
    except Exception:  # a board the layout cannot place must not stop the page, only its overlay
        pos = {}
    return {c: (float(x), float(y)) for c, (x, y) in sorted(pos.items())}


def order_data(state: Mapping[str, Any], view: Mapping[str, Any], powers: list[str], lang: str) -> dict[str, Any]:
    """What Maria's order page embeds for the seat's ``powers``: the map's public data, the
    pieces the seat sees, the turn, and what the form checks moves, battles and cards against."""
    from pbem.render.maria import svgmap

    board = load_board()
    static = maria_static(lang)
    names = static.pop("general_names")
    pieces: dict[str, dict[str, Any]] = {}
    for g in view["map"]["generals"]:
        pieces[g["id"]] = {"kind": "general", "power": g["power"], "city": g["city"], "rank": g["rank"],
                           "name": names.get(g["id"], g["name"])}
    for t in view["map"]["trains"]:
        pieces[t["id"]] = {"kind": "train", "power": t["power"], "city": t["city"], "name": t["id"]}
    # Own pieces off the map: the form must say "not on the map" for them, as pbem check does.
    for g in view.get("eliminated", []):
        if g not in pieces and state["generals"][g]["power"] in powers:
            pieces[g] = {"kind": "general", "power": state["generals"][g]["power"], "city": None,
                         "rank": state["generals"][g]["rank"], "name": names.get(g, g)}
    for t in view.get("eliminated_trains", []):
        if t not in pieces and state["trains"][t]["power"] in powers:
            pieces[t] = {"kind": "train", "power": state["trains"][t]["power"], "city": None, "name": t}
    pol = view.get("politics", {})
    return {
        "map": static,
        "pieces": pieces,
        "turn": view["turn"],
        # the revealed political cards' titles in the reader's language, as the reports print them
        "card_titles": _card_titles(lang, [c["name"] for c in pol.get("revealed", [])]),
        # the published commitments of the seat's own powers (trustless mode, M11.4)
        "commitments": {p: c for p, c in pol.get("commitments", {}).items() if p in powers},
        # the English names are pbem check's; the page shows the catalog's (power_titles)
        "power_names": dict(model.POWER_NAMES),
        "power_titles": {p: i18n.gettext_for(lang, n) for p, n in model.POWER_NAMES.items()},
        # re-entry sites (M4.1), also where an E14 card of the seat's own brings a train back
        "reentry_sites": {p: list(model.reentry_sites(dict(state), board, p)) for p in sorted(powers)
                          if p in model.POWERS},
        "seat_powers": list(view.get("seats", {}).get(view.get("audience", ""), powers)),
        "enemies": {p: [q for q in model.POWERS if q in state["powers"] and model.are_enemies(dict(state), p, q)] for p in powers},
        "ranks": {g: v["rank"] for g, v in sorted(state["generals"].items()) if v["power"] in powers},
        "own": {p: view.get("own", {}).get(p, {}) for p in powers},
        "title": view["map"].get("title", ""),
        # the powers' colours as the map draws them (fill, edge): planned moves in the same colours
        "colours": {p: list(c[:2]) for p, c in svgmap.POWER_COLOURS.items()},
        "advanced": bool(pol),  # political cards, and the owner's answers to their choices
    }


def _card_titles(lang: str, names: list[str]) -> dict[str, str]:
    titles = glossary(lang).get("titles", {})
    return {n: titles[n] for n in names if n in titles}
