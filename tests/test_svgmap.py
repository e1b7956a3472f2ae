"""The SVG map renderer: structure, determinism, languages, and a real headless browser."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.games.maria.board import Board, load_board, load_forces, parse_board
from pbem.render import rastersvg
from pbem.render.maria import svgmap
from pbem.render.maria.svgmap import FONT, NAME_SIZE, render_map
from pbem.render.maria.svgmap.labels import place_labels
from pbem.render.maria.svgmap.pieces import draw_pieces
from pbem.render.maria.svgmap.svg import text_width

MAPS = Path(__file__).parent / "maps"
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board(MAPS / "valid.yaml")


@pytest.fixture()
def view(board: Board) -> dict[str, Any]:
    v = load_forces(board, MAPS / "forces.yaml").start_view()
    by_id = {g["id"]: g for g in v["generals"]}
    by_id["friedrich"]["troops"] = 6
    by_id["schwerin"]["face_down"] = True
    by_id["toerring"]["blocked"] = True
    v["hussars"] = ["iglau", "budweis"]
    v["title"] = "1741, turn 1: Prussia"
    return v


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    """Groups carrying the class ``cls`` (legend samples excluded)."""
    return [
        g for g in root.iter(f"{SVG}g")
        if cls in (g.get("class") or "").split() and "legend-sample" not in (g.get("class") or "")
    ]


def test_svg_parses_and_scales(board: Board, view: dict[str, Any]) -> None:
    root = parse(render_map(board, view))
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") == "100%"  # no fixed pixel size: it scales from phone to A3
    style = "".join(root.find(f"{SVG}defs/{SVG}style").itertext())  # type: ignore[union-attr]
    assert "paint-order: stroke" in style
    assert FONT.index("DejaVu Sans") < FONT.index("Noto Sans CJK TC")


def test_one_counter_per_general_and_piece_symbols(board: Board, view: dict[str, Any]) -> None:
    root = parse(render_map(board, view))
    counters = groups(root, "general")
    assert sorted(g.get("id") for g in counters) == sorted(
        f"general-{g['id']}" for g in view["generals"]
    )
    assert len(groups(root, "train")) == len(view["trains"]) == 9
    assert sorted(g.get("id") for g in groups(root, "hussar")) == ["hussar-budweis",
                                                                  "hussar-iglau"]
    assert [g.get("id") for g in groups(root, "victory-marker")] == ["control-brieg",
                                                                     "control-glogau"]
    assert [g.get("id") for g in groups(root, "control-flag")] == ["control-mainz"]
    by_id = {g.get("id"): g for g in counters}
    # troops shown when given
    assert "6" in list(by_id["general-friedrich"].itertext())
    # face-down: hatched and no rank
    down = by_id["general-schwerin"]
    assert "face-down" in down.get("class", "")
    assert down.find(f"{SVG}rect").get("fill") == "url(#hatch)"  # type: ignore[union-attr]
    assert "2" not in list(down.itertext())[1:]
    # blocked: marked
    assert by_id["general-toerring"].find(f"{SVG}path[@class='blocked-mark']") is not None


def test_stack_of_two_side_by_side(board: Board, view: dict[str, Any]) -> None:
    root = parse(render_map(board, view))
    rects = {
        g.get("id"): g.find(f"{SVG}rect") for g in groups(root, "general")
    }
    a, b = rects["general-friedrich"], rects["general-schwerin"]  # both in Breslau
    assert a is not None and b is not None
    assert a.get("y") == b.get("y")
    assert float(b.get("x")) - float(a.get("x")) >= 13  # type: ignore[arg-type]


def test_every_city_drawn_and_named(board: Board, view: dict[str, Any]) -> None:
    root = parse(render_map(board, view))
    cities = [g for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("city-")]
    assert len(cities) == len(board.cities)
    labels = {t.get("id"): "".join(t.itertext()) for t in root.iter(f"{SVG}text")
              if (t.get("id") or "").startswith("label-")}
    assert labels["label-bruenn"] == "Brünn"
    assert len(labels) == len(board.cities)
    layer = root.find(f".//{SVG}g[@id='cities']")
    assert layer is not None
    electoral = [c for c in layer.iter(f"{SVG}circle") if c.get("class") == "electoral"]
    assert len(electoral) == 9
    majors = [p for p in layer.iter(f"{SVG}polygon") if p.get("class") == "fortress major"]
    assert len(majors) == sum(1 for c in board.cities.values() if c.fortress == "major")


def test_sector_grid_with_suits(board: Board, view: dict[str, Any]) -> None:
    root = parse(render_map(board, view))
    codes = {t.text for t in root.iter(f"{SVG}text") if t.get("class") == "sector"}
    assert {"A1", "F12", "G1", "N12", "L4"} <= codes
    suits = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "suit"]
    assert len(suits) == 168 and set(suits) == {"\u2660", "\u2665", "\u2666", "\u2663"}


def test_highlights(board: Board, view: dict[str, Any]) -> None:
    svg = render_map(board, view, highlights={
        "paths": [["wien", "bruenn", "olmuetz"]],
        "battles": ["breslau"],
        "radius": {"city": "prag", "n": 1},
    })
    root = parse(svg)
    path = root.find(f".//{SVG}polyline[@id='path-0']")
    assert path is not None and path.get("marker-end") == "url(#arrowhead)"
    assert root.find(f".//{SVG}circle[@id='battle-breslau']") is not None
    shade = root.find(f".//{SVG}g[@id='highlight-radius']")
    assert shade is not None and len(shade) == len(board.within("prag", 1))
    plain = parse(render_map(board, view))
    assert plain.find(f".//{SVG}polyline") is None


def test_deterministic_with_unique_ids(board: Board, view: dict[str, Any]) -> None:
    one = render_map(board, view, highlights={"battles": ["wien"]})
    two = render_map(board, view, highlights={"battles": ["wien"]})
    assert one == two
    ids = [e.get("id") for e in parse(one).iter() if e.get("id")]
    assert len(ids) == len(set(ids))


def test_chinese_names_and_legend(board: Board, view: dict[str, Any]) -> None:
    svg = render_map(board, view, lang="zh-TW")
    root = parse(svg)
    assert root.get("lang") == "zh-TW"
    labels = {t.get("id"): "".join(t.itertext()) for t in root.iter(f"{SVG}text")
              if (t.get("id") or "").startswith("label-")}
    assert labels["label-wien"] == "維也納"
    assert labels["label-namur"] == "Namur"  # no name_zh: the map's name
    legend = "".join(root.find(f".//{SVG}g[@id='legend']").itertext())  # type: ignore[union-attr]
    for word in ("將領", "補給車隊", "要塞", "選區要塞", "輕騎兵", "勝利標誌", "主要道路", "道路"):
        assert word in legend
    assert "general" not in legend


def test_pieces_on_unknown_cities_are_left_out(board: Board, view: dict[str, Any]) -> None:
    view["generals"].append({"id": "ghost", "power": "FR", "rank": 9, "city": "nowhere"})
    root = parse(render_map(board, view))
    assert root.find(f".//{SVG}g[@id='general-ghost']") is None


# -- a real browser ------------------------------------------------------------------------


def read_png(path: Path) -> tuple[int, int, int, bytes]:
    """Decode an 8-bit, non-interlaced PNG: (width, height, bytes per pixel, raw pixels)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, (depth, interlace)
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xFF
        out += line
        prev = line
    return width, height, bpp, bytes(out)


def screenshot(svg_file: Path, png: Path, profile: Path, size: tuple[int, int]) -> None:
    binary = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    if binary is None:
        pytest.fail("headless Chromium is missing: apt-get install chromium")
    subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", f"--screenshot={png}",
         f"--window-size={size[0]},{size[1]}", svg_file.as_uri()],
        check=True, capture_output=True, timeout=120,
    )


def test_renders_in_headless_chromium(board: Board, view: dict[str, Any],
                                      tmp_path: Path) -> None:
    svg_file = tmp_path / "map.svg"
    svg_file.write_text(render_map(board, view, lang="zh-TW"), encoding="utf-8")
    png = tmp_path / "map.png"
    screenshot(svg_file, png, tmp_path / "profile", (800, 520))
    width, height, bpp, pixels = read_png(png)
    assert (width, height) == (800, 520)
    colours = set()
    ink = 0
    for i in range(0, len(pixels), bpp * 3):  # every third pixel is plenty
        px = pixels[i:i + 3]
        colours.add(px)
        if px[0] + px[1] + px[2] < 600:  # clearly darker than the paper
            ink += 1
    assert len(colours) > 200, "the screenshot is nearly blank"
    assert ink > 2000, f"only {ink} sampled pixels are dark: the map did not draw"


def test_missing_chromium_fails_with_the_install_hint(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    """CI must install Chromium: its absence is a failure, never a skip."""
    monkeypatch.setattr(f"{__name__}.CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install chromium"):
        screenshot(tmp_path / "x.svg", tmp_path / "x.png", tmp_path / "p", (10, 10))


def test_mini_map_without_coordinates_renders() -> None:
    from pbem.games.maria.board import parse_board

    mini = parse_board({
        "cities": [{"id": "p", "name": "P", "sector": "K5", "suit": "H", "territory": "AU",
                    "fortress": "major"},
                   {"id": "q", "name": "Q", "sector": "K5", "suit": "H", "territory": "PR"}],
        "roads": [["p", "q"]],
    }, "case.yaml", playable=False)
    view = {"generals": [{"id": "a", "power": "PR", "rank": 1, "city": "q"}], "trains": []}
    root = parse(render_map(mini, view))
    assert root.find(f".//{SVG}g[@id='general-a']") is not None
    assert root.find(f".//{SVG}text[@id='label-p']") is not None


def test_map_render_command(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pbem.cli import main

    out = tmp_path / "start.svg"
    result = CliRunner().invoke(main, ["map", "render", "--map", str(MAPS / "valid.yaml"),
                                       "--lang", "zh-TW", "-o", str(out)])
    assert result.exit_code == 0, result.output
    root = parse(out.read_text(encoding="utf-8"))
    assert len(groups(root, "general")) == 20
    assert root.find(f".//{SVG}text[@id='label-prag']").text == "布拉格"  # type: ignore[union-attr]
    intro = CliRunner().invoke(main, ["map", "render", "--map", str(MAPS / "valid.yaml"),
                                      "--intro", "-o", str(out)])
    assert intro.exit_code == 0
    assert len(groups(parse(out.read_text(encoding="utf-8")), "general")) == 13
    not_campaign = CliRunner().invoke(main, ["map", "render", str(tmp_path), "-o", str(out)])
    assert not_campaign.exit_code == 1
    assert "not a campaign folder" in not_campaign.stderr


def test_control_by_nobody_or_by_the_home_power_is_not_drawn(board: Board,
                                                             view: dict[str, Any]) -> None:
    view["control"] = {"glogau": {"power": None, "marker": False},
                       "prag": {"power": "AU", "marker": False},
                       "wien": {"power": "FR", "marker": True},
                       "linz": {"power": "BA", "marker": False}}
    root = parse(render_map(board, view))
    drawn = sorted(g.get("id") for g in root.iter(f"{SVG}g")
                   if (g.get("id") or "").startswith("control-")
                   and "legend" not in (g.get("id") or ""))
    assert drawn == ["control-linz", "control-wien"]


def test_shipped_start_position_names_every_fortress() -> None:
    board = load_board()
    view = load_forces(board).start_view()
    root = parse(render_map(board, view))
    assert len(groups(root, "general")) == len(view["generals"]) == 20
    labels = {(t.get("id") or "")[6:] for t in root.iter(f"{SVG}text")
              if (t.get("id") or "").startswith("label-")}
    assert set(board.fortresses()) <= labels
    occupied = {g["city"] for g in view["generals"]} | {t["city"] for t in view["trains"]}
    assert occupied <= labels
    # most towns are named too; the rest keep their name in the city's tooltip
    assert len(labels) > 0.7 * len(board.cities)


CJK = re.compile("[\u4e00-\u9fff]")


def test_the_titles_of_a_chinese_report_map_are_chinese() -> None:
    """A zh-TW report's map says the phase and the board's name in Chinese, as the report does."""
    from pbem.games.maria import adjudicate
    from pbem.games.maria.views import view as game_view
    from pbem.render.reportmap import map_svg

    state = adjudicate.new_game("advanced", {}, PhaseRng(Rng(b"t"), Rng(b"u")))
    state = adjudicate.resolve(state, {}, PhaseRng(Rng(b"s"), Rng(b"v"))).state  # 1741, turn 1: politics
    seen = game_view(state, "public")

    def titles(lang: str) -> tuple[str, str]:
        root = parse(map_svg("maria", seen, [], lang) or "")
        title = next(t for t in root.iter(f"{SVG}text") if t.get("id") == "title")
        sub = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "subtitle")
        return str(title.text), str(sub.text)

    assert titles("en") == ("1741, turn 1 \u2014 politics", "Maria: Bohemia and Flanders, 1741-1745")
    title, sub = titles("zh-TW")
    assert "1741" in title and "politics" not in title and CJK.search(title), title
    assert sub == load_board().title_zh and CJK.search(sub)


def test_same_bytes_whatever_the_hash_seed() -> None:
    """No set or dict order leaks into the drawing: two interpreters with different string
    hashing draw the same SVG."""
    import os
    import sys

    code = (
        "import hashlib, sys\n"
        "from pbem.games.maria.board import load_board, load_forces\n"
        "from pbem.render.maria.svgmap import render_map\n"
        f"b = load_board({str(MAPS / 'valid.yaml')!r})\n"
        f"v = load_forces(b, {str(MAPS / 'forces.yaml')!r}).start_view()\n"
        "v['hussars'] = ['iglau', 'budweis']\n"
        "svg = render_map(b, v, highlights={'battles': ['prag', 'wien'],"
        " 'radius': {'city': 'prag', 'n': 2}})\n"
        "print(hashlib.sha256(svg.encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


# -- the kept drawing: names placed once on the empty board, moved only where pieces are ----------


Box = tuple[float, float, float, float]
FAR = 100.0  # view units; the names a view moves stay within this of its pieces


def labels_of(svg: str) -> dict[str, ET.Element]:
    """The name elements of ``svg`` (or of a run of ``<text>`` elements), by city id."""
    root = ET.fromstring(svg if svg.startswith("<svg") else f"<g>{svg}</g>")
    return {(t.get("id") or "")[6:]: t for t in root.iter()
            if (t.get("id") or "").startswith("label-")}


def same(a: ET.Element | None, b: ET.Element | None) -> bool:
    if a is None or b is None:
        return a is b
    return a.attrib == b.attrib and a.text == b.text


def full_placement(board: Board, view: dict[str, Any], highlights: dict[str, Any], lang: str
                   ) -> tuple[dict[str, ET.Element], list[Box], set[str]]:
    """The names a full placement gives for ``view`` (every name placed afresh around the
    pieces, nothing kept), the boxes of the pieces and the busy cities."""
    st = svgmap._static(board, lang)
    pos = st.lay.pos
    generals, trains, hussars, control = svgmap._view_pieces(board, pos, view)
    _, boxes = draw_pieces(pos, generals, trains, hussars, control, lang)
    boxes += svgmap._battle_rings(pos, highlights)
    busy = svgmap._busy(generals, trains, hussars, control)
    placed = place_labels(board, pos, st.city_boxes, boxes, busy, lang)
    return labels_of("".join(lbl.svg for lbl in placed)), boxes, busy


def distance(p: tuple[float, float], box: Box) -> float:
    dx = max(box[0] - p[0], p[0] - box[2], 0.0)
    dy = max(box[1] - p[1], p[1] - box[3], 0.0)
    return float((dx * dx + dy * dy) ** 0.5)


def scattered_view(board: Board, seed: int) -> dict[str, Any]:
    """The starting forces dealt over random cities: pieces everywhere, in clusters too."""
    import random

    rng = random.Random(seed)
    ids = sorted(board.cities)
    start = load_forces(board).start_view()
    return {"generals": [dict(g, city=rng.choice(ids)) for g in start["generals"]],
            "trains": [dict(t, city=rng.choice(ids)) for t in start["trains"]],
            "hussars": rng.sample(ids, 3),
            "control": {c: {"power": "FR", "marker": True} for c in rng.sample(ids, 4)}}


def cases() -> list[Any]:
    shipped = load_board()
    start = load_forces(shipped).start_view()
    mini = load_board(MAPS / "valid.yaml")
    mini_view = load_forces(mini, MAPS / "forces.yaml").start_view()
    mini_view["hussars"] = ["iglau", "budweis"]
    return [
        pytest.param(shipped, start, {}, "en", id="shipped-start-en"),
        pytest.param(shipped, start, {}, "zh-TW", id="shipped-start-zh"),
        pytest.param(shipped, start, {"battles": ["prag", "breslau"]}, "en",
                     id="shipped-start-battles"),
        pytest.param(shipped, scattered_view(shipped, 7), {"battles": ["wien"]}, "zh-TW",
                     id="shipped-scattered"),
        pytest.param(mini, mini_view, {"battles": ["prag", "wien"]}, "en", id="test-map"),
    ]


@pytest.mark.parametrize(("board_", "view_", "highlights", "lang"), cases())
def test_kept_names_match_a_full_placement_away_from_the_pieces(
        board_: Board, view_: dict[str, Any], highlights: dict[str, Any], lang: str) -> None:
    svg = render_map(board_, view_, highlights=highlights, lang=lang)
    drawn = labels_of(svg)
    full, boxes, busy = full_placement(board_, view_, highlights, lang)
    pos = svgmap._static(board_, lang).lay.pos
    far = [c for c in sorted(board_.cities) if all(distance(pos[c], b) > FAR for b in boxes)]
    assert len(far) > len(board_.cities) / 6  # the comparison covers much of the map
    differ = [c for c in far if not same(drawn.get(c), full.get(c))]
    assert differ == []
    # near the pieces the kept placement may differ, but names the same number of towns
    # within a few, and every fortress and every busy city, as the full placement does
    assert abs(len(drawn) - len(full)) <= max(3, len(full) // 100)
    important = {c for c, city in board_.cities.items() if city.fortress != "none"} | busy
    assert important <= set(drawn)
    # and a busy town's name is printed in the large type
    for c in sorted(busy):
        if board_.cities[c].fortress == "none":
            assert "font-size:8.8px" in (drawn[c].get("style") or ""), c


def test_an_empty_board_is_named_as_a_full_placement_names_it(board: Board) -> None:
    empty: dict[str, Any] = {"generals": [], "trains": []}
    drawn = labels_of(render_map(board, empty, lang="zh-TW"))
    full, boxes, busy = full_placement(board, empty, {}, "zh-TW")
    assert boxes == [] and busy == set()
    assert drawn.keys() == full.keys()
    assert all(same(drawn[c], full[c]) for c in full)


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_what_a_kept_place_covers_is_what_the_grid_counts(lang: str) -> None:
    """A view moves names by what the places tried for them cover, worked out once per board
    and language: it is what the grid of the empty board's names and symbols counts there,
    whichever names the view moves."""
    import random

    shipped = load_board()
    kept = svgmap._static(shipped, lang).names
    rng = random.Random(3)
    ids = sorted(shipped.cities)
    checked = 0
    for cid in ids[::5]:
        for important in (True, False):
            tiers, area = kept.places(cid, important)
            for place in (p for tier in tiers for p in tier):
                box = place.box
                assert area[0] <= box[0] and area[1] <= box[1] and box[2] <= area[2] and box[3] <= area[3]
                cover = place.covered()
                assert cover.owners == kept.grid.owners(box)
                for moved in (set(), set(rng.sample(ids, 200)), set(cover.owners)):
                    covered = cover.symbols + sum(w for o, w in cover.big_names if o not in moved)
                    assert covered == kept.grid.cost(box, moved, only_big=True)
                    free = not cover.symbols and cover.owners <= moved
                    assert free == (kept.grid.cost(box, moved, first=True) == 0)
                    checked += 1
    assert checked > 1000


def test_two_views_share_the_kept_drawing_and_differ_where_their_pieces_do(
        view: dict[str, Any]) -> None:
    data_path = MAPS / "valid.yaml"
    from pbem.common.safeyaml import load_yaml_file

    data = load_yaml_file(data_path)
    board_ = parse_board(data, data_path.name)  # a new board: nothing kept for it yet
    assert board_ not in svgmap._STATIC
    first = render_map(board_, view)
    kept = svgmap._STATIC[board_]["en"]
    moved = {**view, "generals": [dict(g, city="pilsen") if g["id"] == "friedrich" else g
                                  for g in view["generals"]], "title": "turn 2"}
    second = render_map(board_, moved)
    assert svgmap._STATIC[board_]["en"] is kept and list(svgmap._STATIC[board_]) == ["en"]

    def layer(svg: str, layer_id: str) -> str:
        start = svg.index(f'<g id="{layer_id}">')
        return svg[start:svg.index("</g></g>", start)]

    # the drawing under the pieces is the same text; the pieces and the names near them differ
    assert layer(first, "sectors") == layer(second, "sectors")
    assert layer(first, "cities") == layer(second, "cities")
    one, two = parse(first), parse(second)
    rect = f"{SVG}g[@id='general-friedrich']/{SVG}rect"
    assert one.find(f".//{rect}").get("x") != two.find(f".//{rect}").get("x")  # type: ignore
    assert one.find(f".//{SVG}text[@id='title']").text != "turn 2"  # type: ignore
    assert two.find(f".//{SVG}text[@id='title']").text == "turn 2"  # type: ignore
    before, after = labels_of(first), labels_of(second)
    assert before["pilsen"].get("style") is None  # a plain town in the usual type...
    assert after["pilsen"].get("style") == "font-size:8.8px"  # ...printed large once busy
    # drawing the second view left the kept drawing as it was: the first view comes out
    # byte for byte again, and a new board with the same map draws the same bytes
    assert render_map(board_, view) == first
    assert render_map(parse_board(data, data_path.name), view) == first
    # another language is kept beside the first
    render_map(board_, view, lang="zh-TW")
    assert sorted(svgmap._STATIC[board_]) == ["en", "zh-TW"]


def shape_boxes(group: ET.Element) -> list[Box]:
    """The boxes of the rectangles, circles, polygons and lines drawn in ``group``."""
    out: list[Box] = []
    for e in group.iter():
        tag = e.tag.replace(SVG, "")
        if tag == "rect":
            x, y = float(e.get("x", 0)), float(e.get("y", 0))
            out.append((x, y, x + float(e.get("width", 0)), y + float(e.get("height", 0))))
        elif tag == "circle":
            cx, cy, r = (float(e.get(k, 0)) for k in ("cx", "cy", "r"))
            out.append((cx - r, cy - r, cx + r, cy + r))
        elif tag == "polygon":
            pts = [tuple(map(float, p.split(","))) for p in (e.get("points") or "").split()]
            out.append((min(p[0] for p in pts), min(p[1] for p in pts),
                        max(p[0] for p in pts), max(p[1] for p in pts)))
        elif tag == "line":
            xs = (float(e.get("x1", 0)), float(e.get("x2", 0)))
            ys = (float(e.get("y1", 0)), float(e.get("y2", 0)))
            out.append((min(xs), min(ys), max(xs), max(ys)))
    return out


def label_box(t: ET.Element) -> Box:
    """Where a name is printed, by the renderer's measure of text (Latin narrow, CJK square)."""
    style = t.get("style") or ""
    size = float(style[len("font-size:"):-2]) if style.startswith("font-size:") else NAME_SIZE
    w = text_width(t.text or "", size)
    h = size * 1.05
    x, y = float(t.get("x", 0)), float(t.get("y", 0))
    anchor = t.get("text-anchor")
    left = x if anchor == "start" else x - w if anchor == "end" else x - w / 2
    return (left - 0.8, y - h * 0.78, left + w + 0.8, y + h * 0.22)


@pytest.mark.parametrize(("board_", "view_", "highlights", "lang"),
                         [c for c in cases() if c.id != "shipped-scattered"])
def test_no_name_covers_a_piece(board_: Board, view_: dict[str, Any],
                                highlights: dict[str, Any], lang: str) -> None:
    root = parse(render_map(board_, view_, highlights=highlights, lang=lang))
    pieces: list[tuple[str, Box]] = []
    for cls in ("general", "train", "hussar", "victory-marker", "control-flag"):
        for g in groups(root, cls):
            pieces += [(str(g.get("id")), b) for b in shape_boxes(g)]
    for ring in root.iter(f"{SVG}circle"):
        if ring.get("class") == "battle":
            pieces += [(str(ring.get("id")), b) for b in shape_boxes(ring)]
    assert len(pieces) > 40
    names = [(c, label_box(t)) for c, t in labels_of(ET.tostring(root, encoding="unicode")
                                                       .replace("ns0:", "")).items()]
    pad = 0.1  # coordinates are printed to a tenth
    hidden = [(c, p) for c, a in names for p, b in pieces
              if a[0] + pad < b[2] and b[0] < a[2] - pad and a[1] + pad < b[3]
              and b[1] < a[3] - pad]
    assert hidden == []



def test_map_render_of_a_campaign_is_its_games_map(tmp_path: Path, mini_campaign: Path) -> None:
    """``pbem map render FOLDER`` draws a campaign's current public position through its game's
    presentation (the same drawing as the phase's stored public map); a game without a map is
    refused."""
    from click.testing import CliRunner

    from pbem.cli import main
    from tests.conftest import make_keys, player_args, run_cli

    keys = make_keys(tmp_path / "maria-keys", ("maria_theresa", "frederick", "louis"))
    camp = tmp_path / "maria"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-map",
            "--now", "2027-01-04T08:00:00Z", *player_args(keys))
    for _ in range(2):  # set-up and hussars: default orders
        run_cli("resolve", str(camp), "--force", "--now", "2027-01-09T08:00:00Z")
    out = tmp_path / "now.svg"
    drawn = CliRunner().invoke(main, ["map", "render", str(camp), "--lang", "zh-TW", "-o", str(out)])
    assert drawn.exit_code == 0, drawn.output
    last = sorted((camp / "reports").glob("*/map.zh-TW.svg"))[-1]
    stored, now = parse(last.read_text(encoding="utf-8")), parse(out.read_text(encoding="utf-8"))
    placed = sorted((g.get("id") or "", g.get("transform") or "") for g in groups(now, "general"))
    assert len(placed) >= 13
    assert placed == sorted((g.get("id") or "", g.get("transform") or "") for g in groups(stored, "general"))
    mini = CliRunner().invoke(main, ["map", "render", str(mini_campaign), "-o", str(out)])
    assert mini.exit_code == 1
    assert "has no map to draw" in mini.stderr


def test_the_action_crop_of_an_introductory_map_shows_its_moves() -> None:
    """The introductory game draws the Bohemia map alone (M1.4), in coordinates of its own: the
    mail's crop around a phase's moves must be taken from that drawing, and show the arrows."""
    import io

    from PIL import Image

    from pbem.render import reportmap

    view = {"map": load_forces(load_board()).start_view(intro=True), "variant": "intro"}
    events = [{"type": "move", "path": ["neumarkt", "hemau", "ingolstadt"], "pieces": ["fr_2"], "power": "FR"}]
    svg = reportmap.map_svg("maria", view, events, "en")
    assert svg is not None
    images = reportmap.map_images("maria", svg, events, "en", "0003-test", view)
    crop = next(i for i in images if i.kind == "action")
    picture = Image.open(io.BytesIO(crop.png)).convert("RGB")
    colours = picture.getcolors(maxcolors=1 << 20) or []
    arrow = sum(n for n, (r, g, b) in colours if r > 180 and g < 90 and b < 70)  # the paths' #d0301c
    assert arrow > 200, f"the crop shows {arrow} pixels of the move's arrow"


def test_the_whole_map_drawn_over_its_kept_ground_is_the_picture_drawn_at_once() -> None:
    """A mail's map image draws the board's ground (sectors, tints, roads, cities) once and lays
    each phase's pieces over it, and its palette keeps the ground's colours and adds the
    pieces' own: the picture is as close to a single drawing (in full colour) as that drawing
    reduced to its palette at once, and the same bytes every time, legend drawn with the ground
    or not."""
    import io

    from PIL import Image, ImageChops

    from pbem.games import presentation
    from pbem.render import raster, rastersprites, reportmap
    from pbem.render.maria.mapview import map_ground

    view = {"map": load_forces(load_board()).start_view(intro=True), "variant": "intro"}
    events = [{"type": "move", "path": ["neumarkt", "hemau", "ingolstadt"], "pieces": ["fr_2"], "power": "FR"}]
    svg = reportmap.map_svg("maria", view, events, "en") or ""
    ground = map_ground(svg)
    assert 0 < ground < len(svg) and svg[ground:].startswith('<g id="labels"')
    legend = presentation("maria").map_recurring(svg)
    layered = raster.whole_map(svg, 720, ground, legend)
    raster._layered.cache_clear()
    raster._ground.cache_clear()
    raster._ground_png.cache_clear()
    raster._sprites.cache_clear()
    rastersprites.forget()
    assert raster.whole_map(svg, 720, ground, legend) == layered
    truth = rastersvg.draw(raster._bare(svg), 720, None, rastersvg.PAPER).convert("RGB")

    def off(png: bytes) -> int:
        picture = Image.open(io.BytesIO(png)).convert("RGB")
        return sum(ImageChops.difference(picture, truth).convert("L").histogram()[24:])
    at_once = raster.whole_map(svg, 720)
    for png in (layered, raster.whole_map(svg, 720, ground)):
        assert off(png) <= off(at_once) + 0.001 * truth.width * truth.height, (off(png), off(at_once))


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
def test_a_crop_leaves_out_only_what_its_box_cannot_show(lang: str) -> None:
    """A crop draws only the words and circles that can reach into its box (the rest costs resvg
    time for nothing): the same pixels as the crop of the whole drawing, the title at the top of
    the map and the names along the box's edges included."""
    from pbem.render import raster, reportmap
    from pbem.render.maria.mapview import map_ground

    view = {"map": load_forces(load_board()).start_view(intro=True), "variant": "intro"}
    events = [{"type": "move", "path": ["neumarkt", "hemau", "ingolstadt"], "pieces": ["fr_2"], "power": "FR"}]
    svg = reportmap.map_svg("maria", view, events, lang) or ""
    ground = map_ground(svg)
    for box in [(200.0, 0.0, 320.0, 213.3), (0.0, 522.5, 393.0, 262.0)]:
        under, over = (raster.without_titles(part) for part in raster._layers(svg, ground))
        whole = raster._layered(rastersvg.LANG.sub("", under, count=1), over, 320, box)  # small: quick
        assert raster.crop(svg, box, 320, ground) == whole, box


def test_a_radius_on_one_map_shades_only_the_cities_drawn() -> None:
    """The introductory game draws the Bohemia map alone (M1.4); a radius reaching past its edge
    shades the drawn cities within it and no other (it raised a KeyError for a city off the map)."""
    from pbem.render.maria import mapview

    shipped = mapview._board()
    view = {"generals": [], "trains": [], "hussars": [], "control": {}}
    root = parse(render_map(shipped, view, highlights={"radius": {"city": "augsburg", "n": 2}}, maps=["bohemia"]))
    within = shipped.within("augsburg", 2)
    assert any(shipped.cities[c].map != "bohemia" for c in within)  # the case: it reaches off the map
    drawn = {c.get("id")[len("city-"):] for c in root.iter() if (c.get("id") or "").startswith("city-")}
    shade = root.find(f".//{SVG}g[@id='highlight-radius']")
    assert shade is not None and len(shade) == len([c for c in within if c in drawn]) > 0
