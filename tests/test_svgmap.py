"""The SVG map renderer: structure, determinism, languages, and a real headless browser."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from pbem.games.maria.board import Board, load_board, load_forces
from pbem.render.svgmap import FONT, render_map

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
    for word in ("將領", "補給車隊", "要塞", "選帝侯要塞", "輕騎兵", "勝利標誌", "主要道路", "道路"):
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


def test_same_bytes_whatever_the_hash_seed() -> None:
    """No set or dict order leaks into the drawing: two interpreters with different string
    hashing draw the same SVG."""
    import os
    import sys

    code = (
        "import hashlib, sys\n"
        "from pbem.games.maria.board import load_board, load_forces\n"
        "from pbem.render.svgmap import render_map\n"
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
