"""Loading and checking a Maria map file (``seeds/maria/map.yaml``; the format is documented
for game masters in ``seeds/maria/README.md``).

``parse_board`` checks a map document once and reports every problem in one
:class:`~pbem.errors.DataError` (which file, which entry, what to fix); a clean document
becomes a :class:`~pbem.games.maria.geography.Board`.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

from pbem.errors import DataError
from pbem.games.maria.geography import (
    ELECTORAL_COUNT,
    FORTRESS_CLASSES,
    POWERS,
    STANDARD_MAPS,
    STANDARD_TERRITORIES,
    SUITS,
    Board,
    City,
    MapWindow,
    Road,
    Territory,
    sector_row,
)

ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_CITY_KEYS = frozenset(
    {"id", "name", "name_zh", "map", "lon", "lat", "territory", "fortress", "electoral", "tags",
     "sector", "suit"}
)
_TOP_KEYS = frozenset(
    {"map", "title", "title_zh", "south_rows", "maps", "suits", "territories", "cities", "roads"}
)
_MAP_KEYS = frozenset({"name", "name_zh", "columns", "rows", "lon", "lat"})


class Problems:
    """Collects problems, each prefixed with the file name."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{self.source}: {where}: {message}" if where else
                          f"{self.source}: {message}")

    def raise_if_any(self, what: str) -> None:
        if self.items:
            n = len(self.items)
            raise DataError(
                f"{self.source}: {what} has {n} problem{'s' if n != 1 else ''}",
                problems=self.items,
            )


def suggest(name: object, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss, else empty."""
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


def is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _pair(value: object) -> tuple[float, float] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(is_number(v) for v in value)
        and value[0] < value[1]
    ):
        return (float(value[0]), float(value[1]))
    return None


def _parse_maps(data: dict, p: Problems, playable: bool) -> dict[str, MapWindow]:
    raw = data.get("maps")
    if raw is None and not playable:
        return {}
    if not isinstance(raw, dict) or not raw:
        p.add("maps", "must be a mapping of map id to {name, columns, rows, lon, lat}")
        return {}
    maps: dict[str, MapWindow] = {}
    letters: dict[str, str] = {}
    for mid, spec in raw.items():
        where = f"maps.{mid}"
        if not ID_RE.match(mid):
            p.add(where, f"'{mid}' is not a valid map id (lowercase letters, digits, _)")
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, columns, rows, lon, lat}")
            continue
        for key in sorted(set(spec) - _MAP_KEYS):
            p.add(where, f"unknown field '{key}'{suggest(key, _MAP_KEYS)}")
        columns = spec.get("columns")
        rows = spec.get("rows")
        lon, lat = _pair(spec.get("lon")), _pair(spec.get("lat"))
        ok = True
        if (
            not isinstance(columns, list)
            or not columns
            or not all(isinstance(c, str) and re.fullmatch(r"[A-Z]", c) for c in columns)
        ):
            p.add(where, "columns must be a list of capital letters, west to east")
            ok = False
        else:
            for c in columns:
                if c in letters:
                    p.add(where, f"column {c} is also a column of map '{letters[c]}'; sector "
                          "codes must name one sector")
                    ok = False
                letters[c] = mid
        if not is_int(rows) or rows < 1:
            p.add(where, "rows must be a whole number of at least 1")
            ok = False
        if lon is None:
            p.add(where, "lon must be [west, east] with west < east")
            ok = False
        if lat is None:
            p.add(where, "lat must be [south, north] with south < north")
            ok = False
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            p.add(where, "name is missing")
            name = mid
        if ok:
            assert lon is not None and lat is not None and isinstance(columns, list)
            assert is_int(rows)  # ok says so
            maps[mid] = MapWindow(mid, name, spec.get("name_zh"), tuple(columns), rows, lon, lat)
    return maps


def _parse_territories(data: dict, p: Problems) -> dict[str, Territory]:
    raw = data.get("territories")
    if raw is None:
        return {t: Territory(t, t, t if t in POWERS else None) for t in STANDARD_TERRITORIES}
    if not isinstance(raw, dict) or not raw:
        p.add("territories", "must be a mapping of territory id to {name, home}")
        return {}
    out = {}
    for tid, spec in raw.items():
        where = f"territories.{tid}"
        if not (tid in POWERS or ID_RE.match(tid)):
            p.add(where, f"'{tid}' is not a valid territory id")
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, home}")
            continue
        for key in sorted(set(spec) - {"name", "name_zh", "home"}):
            p.add(where, f"unknown field '{key}'")
        home = spec.get("home")
        if home is not None and home not in POWERS:
            p.add(where, f"home '{home}' is not a power ({', '.join(POWERS)})"
                  f"{suggest(home, POWERS)}")
            home = None
        out[tid] = Territory(tid, str(spec.get("name") or tid), home)
    return out


def _parse_suits(data: dict, maps: Mapping[str, MapWindow], p: Problems) -> dict[str, str]:
    raw = data.get("suits")
    if raw is None and not maps:
        return {}
    if not isinstance(raw, dict):
        p.add("suits", "must be a mapping of sector code to suit (S, H, D or C)")
        return {}
    known = {s for m in maps.values() for s in m.sectors()}
    suits = {}
    for sector, suit in raw.items():
        if maps and sector not in known:
            p.add(f"suits.{sector}", f"'{sector}' is not a sector of any map grid"
                  f"{suggest(sector, known)}")
            continue
        if suit not in SUITS:
            p.add(f"suits.{sector}", f"suit '{suit}' is not one of S, H, D, C")
            continue
        suits[sector] = suit
    for m in maps.values():
        missing = [s for s in m.sectors() if s not in raw]
        if missing:
            shown = ", ".join(missing[:12]) + (" ..." if len(missing) > 12 else "")
            p.add("suits", f"{len(missing)} sector{'s' if len(missing) != 1 else ''} of map "
                  f"'{m.id}' ha{'ve' if len(missing) != 1 else 's'} no suit: {shown}")
    return suits


def _parse_city(
    i: int,
    raw: object,
    maps: Mapping[str, MapWindow],
    suits: dict[str, str],
    territories: Mapping[str, Territory],
    p: Problems,
    playable: bool,
) -> City | None:
    where = f"cities[{i}]"
    if not isinstance(raw, dict):
        p.add(where, "must be a mapping {id, name, map, lon, lat, territory, ...}")
        return None
    cid = raw.get("id")
    if isinstance(cid, str):
        where = f"cities[{i}] ({cid})"
    if not isinstance(cid, str) or not ID_RE.match(cid):
        p.add(where, f"id {cid!r} is not a valid city id (lowercase ASCII letters, digits, _; "
              "starting with a letter)")
        return None
    bad = False
    for key in sorted(set(raw) - _CITY_KEYS):
        p.add(where, f"unknown field '{key}'{suggest(key, _CITY_KEYS)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        p.add(where, "name is missing")
        name = cid
    name_zh = raw.get("name_zh")
    if name_zh is not None and not isinstance(name_zh, str):
        p.add(where, "name_zh must be text")
        name_zh = None
    map_ids = tuple(maps) if maps else STANDARD_MAPS
    mid = raw.get("map")
    if mid is None and not playable and not maps:
        mid = "bohemia"
    if mid not in map_ids:
        p.add(where, f"map '{mid}' is not a map ({', '.join(sorted(map_ids))})"
              f"{suggest(mid, map_ids)}")
        return None
    territory = raw.get("territory")
    if territory not in territories:
        p.add(where, f"territory '{territory}' is not a territory"
              f"{suggest(territory, territories) or ' (' + ', '.join(territories) + ')'}")
        bad = True
    fortress = raw.get("fortress", "none")
    if fortress is None or fortress is False:
        fortress = "none"
    if fortress not in FORTRESS_CLASSES:
        p.add(where, f"fortress '{fortress}' is not a fortress class (none, minor, major)")
        bad = True
    electoral = raw.get("electoral", False)
    if not isinstance(electoral, bool):
        p.add(where, "electoral must be true or false")
        bad = True
    elif electoral and fortress == "none":
        p.add(where, "is electoral but not a fortress (every electoral city is a fortress)")
    tags_raw = raw.get("tags", [])
    tags: frozenset[str] = frozenset()
    if not isinstance(tags_raw, list) or not all(isinstance(t, str) for t in tags_raw):
        p.add(where, "tags must be a list of words")
        bad = True
    else:
        tags = frozenset(tags_raw)
        for tag in sorted(tags):
            if ":" in tag:
                kind, _, power = tag.partition(":")
                if kind in ("reentry", "reentry_after_peace") and power not in POWERS:
                    p.add(where, f"tag '{tag}' names no power ({', '.join(POWERS)})")
    lon, lat = raw.get("lon"), raw.get("lat")
    sector = raw.get("sector")
    suit = raw.get("suit")
    placed = True
    x, y = 0.0, 0.0  # lon and lat as numbers
    if lon is None and lat is None and not playable:
        placed = False
        if not isinstance(sector, str) or not sector:
            p.add(where, "needs lon and lat, or a sector")
            return None
    elif is_number(lon) and is_number(lat):
        x, y = float(lon), float(lat)
    else:
        p.add(where, "lon and lat must be numbers (degrees east and north)")
        return None
    if placed and mid in maps:
        window = maps[mid]
        derived = window.sector_at(x, y)
        if derived is None:
            p.add(where, f"lon {lon}, lat {lat} lies outside any sector: map '{mid}' spans "
                  f"lon {window.lon[0]}..{window.lon[1]}, lat {window.lat[0]}..{window.lat[1]}")
            return None
        if sector is not None and sector != derived:
            p.add(where, f"sector '{sector}' does not match its coordinates, which lie in "
                  f"{derived}")
        sector = derived
    elif sector is None:
        p.add(where, f"has no sector (map '{mid}' has no grid; give sector: and suit:)")
        return None
    elif not isinstance(sector, str) or not sector:
        p.add(where, f"sector {sector!r} is not a grid code such as L9")
        return None
    if suit is None:
        suit = suits.get(sector)
        if suit is None:
            if not maps:
                p.add(where, f"sector '{sector}' has no suit (give suit:)")
            return None  # the missing grid suit is reported once, under `suits`
    elif suit not in SUITS:
        p.add(where, f"suit '{suit}' is not one of S, H, D, C")
        return None
    elif sector in suits and suits[sector] != suit:
        p.add(where, f"suit '{suit}' differs from the suit {suits[sector]} of sector {sector}")
    if bad or not isinstance(territory, str):  # a known territory is a string
        return None
    return City(
        id=cid,
        name=name.strip(),
        name_zh=name_zh,
        map=mid,
        lon=x,
        lat=y,
        territory=territory,
        sector=sector,
        suit=suit,
        fortress=fortress,
        electoral=electoral,
        tags=tags,
        placed=placed,
    )


def _parse_roads(
    data: dict, cities: Mapping[str, City], all_ids: set[str], south_rows: int, p: Problems,
    playable: bool,
) -> list[Road]:
    raw = data.get("roads")
    if not isinstance(raw, list):
        p.add("roads", "must be a list of [a, b] or [a, b, main] (cross-map links add cross_map)")
        return []
    roads: dict[tuple[str, str], int] = {}
    out = []
    for i, item in enumerate(raw):
        where = f"roads[{i}]"
        if not isinstance(item, list) or len(item) < 2:
            p.add(where, "must be [a, b] with optional flags main, cross_map")
            continue
        a, b, *flags = item
        bad = False
        for end in (a, b):
            if end not in all_ids:
                p.add(where, f"{end!r} is not a city{suggest(end, all_ids)}")
                bad = True
        for flag in flags:
            if flag not in ("main", "cross_map"):
                p.add(where, f"unknown flag {flag!r} (main or cross_map)"
                      f"{suggest(flag, ('main', 'cross_map'))}")
                bad = True
        if len(set(flags)) != len(flags):
            p.add(where, "repeats a flag")
        if bad:
            continue
        if a == b:
            p.add(where, f"joins '{a}' to itself")
            continue
        key = (a, b) if a < b else (b, a)
        if key in roads:
            p.add(where, f"duplicates roads[{roads[key]}] ({key[0]}-{key[1]})")
            continue
        roads[key] = i
        main, cross = "main" in flags, "cross_map" in flags
        ca, cb = cities.get(a), cities.get(b)
        if ca is not None and cb is not None:
            if ca.map != cb.map and not cross:
                p.add(where, f"joins '{a}' ({ca.map}) to '{b}' ({cb.map}) but is not marked "
                      "cross_map")
            elif ca.map == cb.map and cross:
                p.add(where, f"is marked cross_map but both '{a}' and '{b}' are on {ca.map}")
            elif cross and playable:
                north = [c for c in (ca, cb) if sector_row(c.sector) > south_rows]
                for c in north:
                    p.add(where, f"cross-map link outside the south: '{c.id}' is in sector "
                          f"{c.sector}, north of row {south_rows}")
        out.append(Road(key[0], key[1], main, cross))
    return out


def parse_board(data: Any, source: str = "<map>", *, playable: bool = True) -> Board:
    """Check a map document (see ``seeds/maria/README.md``) and build its :class:`Board`.

    Raises :class:`DataError` listing every problem found. With ``playable=False`` (the
    mini-maps of adjudication cases) only internal consistency is checked: not the 9
    electoral fortresses, connectivity, Breslau or where cross-map links lie; cities may then
    give ``sector`` and ``suit`` instead of coordinates.
    """
    p = Problems(source)
    if not isinstance(data, dict):
        p.add("", "the map file must be a mapping with maps, suits, territories, cities, roads")
        p.raise_if_any("the map file")
    for key in sorted(set(data) - _TOP_KEYS):
        p.add(key, f"unknown top-level field{suggest(key, _TOP_KEYS)}")
    board_id = data.get("map", "map")
    if not isinstance(board_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", board_id):
        p.add("map", f"{board_id!r} is not a valid map id")
        board_id = "map"
    south_rows = data.get("south_rows", 4 if playable else 99)
    if not is_int(south_rows) or south_rows < 1:
        p.add("south_rows", "must be a whole number of at least 1")
        south_rows = 4
    maps = _parse_maps(data, p, playable)
    territories = _parse_territories(data, p)
    suits = _parse_suits(data, maps, p)

    raw_cities = data.get("cities")
    cities: dict[str, City] = {}
    all_ids: set[str] = set()
    first_index: dict[str, int] = {}
    names: dict[str, str] = {}
    if not isinstance(raw_cities, list) or not raw_cities:
        p.add("cities", "must be a non-empty list of cities")
        raw_cities = []
    for i, raw in enumerate(raw_cities):
        cid = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(cid, str):
            if cid in first_index:
                p.add(f"cities[{i}] ({cid})", f"duplicate id: also cities[{first_index[cid]}]")
                continue
            first_index[cid] = i
            all_ids.add(cid)
        city = _parse_city(i, raw, maps, suits, territories, p, playable)
        if city is None:
            continue
        key = city.name.casefold()
        if key in names:
            p.add(f"cities[{i}] ({city.id})",
                  f"name '{city.name}' is also the name of '{names[key]}'")
        names[key] = city.id
        cities[city.id] = city

    roads = _parse_roads(data, cities, all_ids, south_rows, p, playable)

    adjacent: dict[str, set[str]] = {c: set() for c in cities}
    main_adjacent: dict[str, set[str]] = {c: set() for c in cities}
    road_index: dict[tuple[str, str], Road] = {}
    for road in roads:
        if road.a in cities and road.b in cities:
            adjacent[road.a].add(road.b)
            adjacent[road.b].add(road.a)
            if road.main:
                main_adjacent[road.a].add(road.b)
                main_adjacent[road.b].add(road.a)
            road_index[(road.a, road.b)] = road

    board = Board(
        id=board_id,
        title=str(data.get("title") or board_id),
        title_zh=str(data["title_zh"]) if data.get("title_zh") else None,
        cities=MappingProxyType(dict(sorted(cities.items()))),
        roads=tuple(sorted(road_index.values(), key=lambda r: (r.a, r.b))),
        maps=MappingProxyType(maps),
        suits=MappingProxyType(dict(sorted(suits.items()))),
        territories=MappingProxyType(territories),
        south_rows=south_rows,
        playable=playable,
        _adjacent=MappingProxyType({c: tuple(sorted(n)) for c, n in sorted(adjacent.items())}),
        _main_adjacent=MappingProxyType(
            {c: tuple(sorted(n)) for c, n in sorted(main_adjacent.items())}
        ),
        _roads=MappingProxyType(road_index),
    )

    # A city rejected above would make these checks report its roads and neighbours too;
    # they run once every city parses.
    # (A case mini-map may hold a city without roads on purpose.)
    if len(cities) == len(raw_cities) and playable:
        for cid in sorted(c for c in cities if not adjacent[c]):
            p.add(f"cities[{first_index[cid]}] ({cid})", "has no road")
        _check_playable(board, p, first_index)
    p.raise_if_any("the map file")
    return board


def _check_playable(board: Board, p: Problems, index: Mapping[str, int]) -> None:
    """The whole-map checks ("Data the scenario files must provide", load checks)."""
    electoral = board.electoral()
    if len(electoral) != ELECTORAL_COUNT:
        p.add("cities", f"{len(electoral)} electoral fortresses, need exactly {ELECTORAL_COUNT}"
              f" ({', '.join(electoral) or 'none'})")
    breslau = board.cities.get("breslau")
    if breslau is None:
        p.add("cities", "no city 'breslau' (Breslau must be a major fortress in Silesia)")
    else:
        where = f"cities[{index['breslau']}] (breslau)"
        if breslau.fortress != "major":
            p.add(where, f"Breslau must be a major fortress, not fortress: {breslau.fortress}")
        if breslau.territory != "silesia":
            p.add(where, f"Breslau must be in territory silesia, not {breslau.territory}")
    for mid in board.maps:
        if not any(c.map == mid for c in board.cities.values()):
            p.add("maps", f"map '{mid}' has no city")
    parts = [q for q in board.components() if q]
    if len(parts) > 1 and board.cities:
        main_part = parts[0]
        rest = sorted(c for q in parts[1:] for c in q)
        shown = ", ".join(rest[:15]) + (" ..." if len(rest) > 15 else "")
        p.add("roads", f"the road network is not connected: {len(rest)} "
              f"cit{'ies' if len(rest) != 1 else 'y'} cannot be reached from '{main_part[0]}': "
              f"{shown}")


def read_yaml(path: Path) -> Any:
    """The data of a YAML data file; a missing or unreadable file is a DataError."""
    from pbem.common.safeyaml import load_yaml_file
    from pbem.errors import PbemError

    if not path.is_file():
        raise DataError(f"{path}: no such file")
    try:
        return load_yaml_file(path)
    except PbemError as exc:
        raise DataError(str(exc)) from None


@cache
def _load_board_cached(path: str, mtime_ns: int) -> Board:
    return parse_board(read_yaml(Path(path)), Path(path).name)


def default_map_path() -> Path:
    """The shipped map: ``seeds/maria/map.yaml``."""
    from pbem.data import seeds_dir

    return seeds_dir() / "maria" / "map.yaml"


def load_board(path: str | Path | None = None) -> Board:
    """Load and check a playable map file (default: the shipped map); cached per path."""
    p = Path(path) if path is not None else default_map_path()
    resolved = p.resolve()
    if not resolved.is_file():
        read_yaml(p)  # raises the DataError that names the file
    return _load_board_cached(str(resolved), resolved.stat().st_mtime_ns)
