"""The map's bytes over many views: pieces spread over the board at random (a fixed seed), in
both languages, on the whole board and on the introductory game's map, with moves, battles and
a shaded radius. The digests were taken from the drawing as first written; a faster drawing must
give every view the same bytes."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from pbem.games.maria.board import POWERS, load_board, load_forces
from pbem.render.maria.svgmap import render_map

DIGESTS = Path(__file__).parent / "maps" / "svgmap_views.json"
VIEWS = 96


def _walk(board: Any, rng: random.Random, start: str, steps: int) -> list[str]:
    path = [start]
    for _ in range(steps):
        nxt = board.neighbours(path[-1])
        if not nxt:
            break
        path.append(rng.choice(sorted(nxt)))
    return path


def _case(i: int) -> tuple[dict[str, Any], dict[str, Any], str, list[str] | None]:
    """The ``i``-th view: its pieces, highlights, language and maps."""
    rng = random.Random(i)
    board = load_board()
    intro = i % 3 == 0
    maps = ["bohemia"] if intro else None
    cities = sorted(c for c, city in board.cities.items() if not intro or city.map == "bohemia")
    fortresses = [c for c in cities if board.cities[c].fortress]
    view = load_forces(board).start_view(intro=intro)
    for g in view["generals"]:
        g["city"] = rng.choice(cities) if rng.random() < 0.7 else rng.choice(cities[:12])  # some stacks
        g["face_down"] = rng.random() < 0.2
        g["blocked"] = rng.random() < 0.15
        g["troops"] = rng.choice([None, 1, 4, 8, 17])
    for t in view["trains"]:
        t["city"] = rng.choice(cities)
    view["hussars"] = sorted(rng.sample(cities, rng.randrange(0, 4)))
    view["control"] = {c: {"power": rng.choice([*POWERS, None]), "marker": rng.random() < 0.4}
                       for c in rng.sample(fortresses, min(len(fortresses), rng.randrange(0, 20)))}
    view["turn"] = rng.randrange(1, 12)
    view["title"] = f"Turn {view['turn']} & <test> \u201cview\u201d {i}"
    highlights: dict[str, Any] = {
        "paths": [_walk(board, rng, rng.choice(cities), rng.randrange(1, 5)) for _ in range(rng.randrange(0, 6))],
        "battles": rng.sample(cities, rng.randrange(0, 3)),
    }
    if not intro and rng.random() < 0.3:  # (on the introductory map a radius may reach past it)
        highlights["radius"] = {"city": rng.choice(cities), "n": rng.randrange(1, 7)}
    return view, highlights, "zh-TW" if i % 2 else "en", maps


def _digest(i: int) -> str:
    view, highlights, lang, maps = _case(i)
    svg = render_map(load_board(), view, highlights=highlights, lang=lang, maps=maps)
    return hashlib.sha256(svg.encode("utf-8")).hexdigest()[:16]


def test_every_view_draws_the_bytes_it_always_drew() -> None:
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert len(expected) == VIEWS
    differ = [i for i in range(VIEWS) if _digest(i) != expected[i]]
    assert not differ, f"views drawn differently: {differ}"


@pytest.mark.parametrize("i", [1, 6])
def test_a_view_drawn_twice_gives_the_same_bytes(i: int) -> None:
    assert _digest(i) == _digest(i)


def test_what_a_drawing_knows_of_its_layers_is_what_its_text_says() -> None:
    """A drawing carries where its ground ends, its names and its legend (storing it and drawing
    its images then need not search it): the same as read from its text, over every view."""
    from pbem.render.maria.mapview import map_ground
    from pbem.render.maria.svgmap.stored import legend_span, map_names

    for i in range(VIEWS):
        view, highlights, lang, maps = _case(i)
        drawing = render_map(load_board(), view, highlights=highlights, lang=lang, maps=maps)
        text = str(drawing)
        assert type(text) is str and text == drawing
        assert map_ground(drawing) == map_ground(text) > 0, i
        assert legend_span(drawing) == legend_span(text) is not None, i
        names = map_names(drawing)
        assert names == map_names(text) and names is not None and names.mask and names.own, i


def test_a_stored_maps_files_are_named_by_their_content() -> None:
    """Storing drawings finds the files it stored lately again by comparing their parts: each
    file is still named by its text's hash, and a drawing stores what it stores when nothing
    was kept (the ground, names and legend of one board and language, whatever the phase)."""
    from pbem.common.canonical import content_name
    from pbem.render import reportmap

    stored = []
    for i in (2, 4, 8, 3, 2):  # whole board, English and Chinese; one view again
        view, highlights, lang, maps = _case(i)
        stored.append(reportmap.stored_map("maria", render_map(load_board(), view, highlights=highlights, lang=lang,
                                                               maps=maps)))
    for files, _ in filter(None, stored):
        for name, text in files.items():
            assert name == content_name(name.split(".", 1)[0], text, "svg")
    assert stored[0] == stored[4] and stored[0] is not None and stored[1] is not None
    assert {n for n in stored[0][0] if n.startswith("map-ground")} == {n for n in stored[1][0] if n.startswith("map-ground")}
    reportmap._KEPT.clear()
    view, highlights, lang, maps = _case(2)
    assert reportmap.stored_map("maria", render_map(load_board(), view, highlights=highlights, lang=lang, maps=maps)) == stored[0]


if __name__ == "__main__":  # writes the digests (only when the drawing is meant to change)
    DIGESTS.write_text(json.dumps([_digest(i) for i in range(VIEWS)], indent=0) + "\n", encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh-TW", "en"])
def test_the_maps_title_is_the_reports_phase_title(lang: str) -> None:
    from pbem.render import i18n
    from pbem.render.maria import mapview

    report = i18n.environment(lang).from_string('{% import "maria/names.txt" as n with context %}{{ n.title(v) }}')
    steps = ["setup", "winter", "hussars", "france", "prussia", "austria", "politics", "over", "stage", "other"]
    for turn in [0, 1, 2, 3, 4, 17, "5"]:
        for step in steps:
            view = {"turn": turn, "step": step}
            assert str(mapview._names(lang).title(view)).strip() == report.render(v=view, glossary={}).strip()
