"""The Maria board: cities, roads, sectors and territories (M1.4, M1.5), and the starting forces.

``parse_board`` checks a map document once and reports every problem in one
:class:`~pbem.errors.DataError`; after that the rules only ask questions of a :class:`Board`
(distances, paths, main-road reach, sector, suit, territory). Every query is deterministic: ties
between paths go to the lowest city ids (plain string order, as the rules say).

``parse_forces`` does the same for ``forces.yaml`` (powers, generals, supply trains, fortresses
held at the start) against a board.

The file formats are documented for game masters in ``seeds/maria/README.md``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

from pbem.errors import DataError

POWERS = ("FR", "BA", "PR", "SX", "AU", "PA")  # the rules' fixed order of powers (M2.4)
MAJOR_POWERS = ("AU", "FR", "PR", "PA")
# M1.3: the sides at the start; a minor power joins the side of its `ally` in forces.yaml.
SIDE_OF_MAJOR = {"AU": "habsburg", "PA": "habsburg", "FR": "coalition", "PR": "coalition"}
# M1.4: the maps each power's pieces may use.
MAPS_OF_POWER = {
    "FR": ("bohemia", "flanders"),
    "AU": ("bohemia", "flanders"),
    "PR": ("bohemia",),
    "SX": ("bohemia",),
    "BA": ("bohemia",),
    "PA": ("flanders",),
}
FORTRESS_CLASSES = ("none", "minor", "major")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
ELECTORAL_COUNT = 9
MAX_GENERALS_PER_CITY = 2  # M3.3
MAX_TROOPS = 8  # M1.7
# territory ids of a mini-map that has no `territories:` section
STANDARD_TERRITORIES = ("AU", "FR", "BA", "SX", "PR", "PA", "silesia", "poland", "neutral")
STANDARD_MAPS = ("bohemia", "flanders")

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_CITY_KEYS = frozenset(
    {"id", "name", "name_zh", "map", "lon", "lat", "territory", "fortress", "electoral", "tags",
     "sector", "suit"}
)
_TOP_KEYS = frozenset(
    {"map", "title", "title_zh", "south_rows", "maps", "suits", "territories", "cities", "roads"}
)
_MAP_KEYS = frozenset({"name", "name_zh", "columns", "rows", "lon", "lat"})


@dataclass(frozen=True)
class City:
    """One city of the board. ``sector`` is a grid code such as ``L9``; ``fortress`` is
    ``none``, ``minor`` or ``major``."""

    id: str
    name: str
    name_zh: str | None
    map: str
    lon: float
    lat: float
    territory: str
    sector: str
    suit: str
    fortress: str
    electoral: bool
    tags: frozenset[str]
    placed: bool = True  # False for a mini-map city given by sector instead of coordinates

    def display_name(self, lang: str = "en") -> str:
        """The name to print: the Chinese name for ``zh-TW`` where there is one."""
        if lang.startswith("zh") and self.name_zh:
            return self.name_zh
        return self.name


@dataclass(frozen=True)
class MapWindow:
    """One of the two boards: its lon/lat window and sector grid (row 1 is the southernmost)."""

    id: str
    name: str
    name_zh: str | None
    columns: tuple[str, ...]
    rows: int
    lon: tuple[float, float]
    lat: tuple[float, float]

    def sector_at(self, lon: float, lat: float) -> str | None:
        """The grid code of the point, or None if it lies outside the window."""
        (w, e), (s, n) = self.lon, self.lat
        if not (w <= lon <= e and s <= lat <= n):
            return None
        col = min(int((lon - w) / (e - w) * len(self.columns)), len(self.columns) - 1)
        row = min(int((lat - s) / (n - s) * self.rows), self.rows - 1) + 1
        return f"{self.columns[col]}{row}"

    def sectors(self) -> tuple[str, ...]:
        """Every grid code of this map, column by column."""
        return tuple(f"{c}{r}" for c in self.columns for r in range(1, self.rows + 1))


@dataclass(frozen=True)
class Territory:
    """A territory (M1.5): a power's home country, Silesia, or neutral land."""

    id: str
    name: str
    home: str | None


@dataclass(frozen=True)
class Road:
    """A road between two cities, stored with ``a < b``."""

    a: str
    b: str
    main: bool
    cross_map: bool


def sector_row(sector: str) -> int:
    """The row number of a grid code (``L9`` -> 9)."""
    digits = sector.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return int(digits) if digits.isdigit() else 0


@dataclass(frozen=True, eq=False)
class Board:
    """A checked map. Build it with :func:`parse_board` or :func:`load_board`."""

    id: str
    title: str
    cities: Mapping[str, City]
    roads: tuple[Road, ...]
    maps: Mapping[str, MapWindow]
    suits: Mapping[str, str]
    territories: Mapping[str, Territory]
    south_rows: int
    playable: bool = True
    title_zh: str | None = None
    _adjacent: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _main_adjacent: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _roads: Mapping[tuple[str, str], Road] = field(default_factory=dict, repr=False)
    _bfs: dict[str, Mapping[str, int]] = field(default_factory=dict, repr=False)
    _within: dict[tuple[str, int], frozenset[str]] = field(default_factory=dict, repr=False)

    # -- the plain facts ------------------------------------------------------------------

    def city(self, city: str) -> City:
        """The city with id ``city``; KeyError names it if there is none."""
        try:
            return self.cities[city]
        except KeyError:
            raise KeyError(f"no city '{city}' on map {self.id}") from None

    def neighbours(self, city: str) -> tuple[str, ...]:
        """The cities one road away (cross-map links count), sorted by id."""
        return self._adjacent[city]

    def main_neighbours(self, city: str) -> tuple[str, ...]:
        """The cities one main road away, sorted by id."""
        return self._main_adjacent[city]

    def road(self, a: str, b: str) -> Road | None:
        """The road between ``a`` and ``b``, if any."""
        return self._roads.get((a, b) if a < b else (b, a))

    def is_adjacent(self, a: str, b: str) -> bool:
        """True if a road joins ``a`` and ``b``."""
        return self.road(a, b) is not None

    def is_main(self, a: str, b: str) -> bool:
        """True if a main road joins ``a`` and ``b``."""
        road = self.road(a, b)
        return road is not None and road.main

    def is_cross_map(self, a: str, b: str) -> bool:
        """True if a cross-map link joins ``a`` and ``b`` (M1.4)."""
        road = self.road(a, b)
        return road is not None and road.cross_map

    def map_of(self, city: str) -> str:
        """``flanders`` or ``bohemia``."""
        return self.city(city).map

    def sector_of(self, city: str) -> str:
        """The grid code of the city's sector."""
        return self.city(city).sector

    def suit_of(self, city: str) -> str:
        """The suit (S, H, D or C) of the city's sector."""
        return self.city(city).suit

    def territory_of(self, city: str) -> str:
        """The city's territory id (a power id for a home country, ``silesia``, ...)."""
        return self.city(city).territory

    def home_of(self, city: str) -> str | None:
        """The power whose home country holds the city, or None."""
        territory = self.territories.get(self.city(city).territory)
        return territory.home if territory else None

    def cities_tagged(self, tag: str) -> frozenset[str]:
        """Every city carrying ``tag``."""
        return frozenset(c.id for c in self.cities.values() if tag in c.tags)

    def cities_in(self, territory: str) -> frozenset[str]:
        """Every city of a territory."""
        return frozenset(c.id for c in self.cities.values() if c.territory == territory)

    def fortresses(self) -> tuple[str, ...]:
        """Every fortress (minor or major), sorted by id."""
        return tuple(sorted(c.id for c in self.cities.values() if c.fortress != "none"))

    def electoral(self) -> tuple[str, ...]:
        """The electoral fortresses, sorted by id."""
        return tuple(sorted(c.id for c in self.cities.values() if c.electoral))

    def reentry_sites(self, power: str) -> tuple[str, ...]:
        """M4.1: the power's home major fortresses plus the cities tagged ``reentry:<power>``."""
        sites = {
            c.id
            for c in self.cities.values()
            if (c.fortress == "major" and self.home_of(c.id) == power)
            or f"reentry:{power}" in c.tags
        }
        return tuple(sorted(sites))

    # -- distances and paths --------------------------------------------------------------

    def distances_from(self, city: str) -> Mapping[str, int]:
        """Road distance from ``city`` to every city it can reach, ignoring pieces (cached)."""
        found = self._bfs.get(city)
        if found is None:
            adjacent = self._adjacent
            if city not in adjacent:
                raise KeyError(f"no city '{city}' on map {self.id}")
            found = MappingProxyType(self.distances_to_any([city]))
            self._bfs[city] = found
        return found

    def distances_to_any(self, targets: Iterable[str]) -> dict[str, int]:
        """Road steps from every city that can reach one of ``targets`` to the nearest of them
        (one breadth-first search from all of them; not cached)."""
        adjacent = self._adjacent
        dist = dict.fromkeys(targets, 0)
        frontier = sorted(dist)
        step = 0
        while frontier:
            step += 1
            nxt = []
            for here in frontier:
                for there in adjacent[here]:
                    if there not in dist:
                        dist[there] = step
                        nxt.append(there)
            frontier = nxt
        return dist

    def distance(self, a: str, b: str) -> int | None:
        """The fewest road steps from ``a`` to ``b``, or None if none joins them."""
        return self.distances_from(a).get(b)

    def within(self, city: str, n: int) -> frozenset[str]:
        """Every city at distance ``n`` or less, the city itself included (cached)."""
        key = (city, n)
        found = self._within.get(key)
        if found is None:
            full = self._bfs.get(city)
            if full is not None:
                found = frozenset(c for c, d in full.items() if d <= n)
            else:
                # a BFS that stops at depth n: far cheaper than the whole map on a big board
                self.city(city)
                seen = {city}
                frontier = [city]
                for _ in range(n):
                    nxt = []
                    for here in frontier:
                        for there in self._adjacent[here]:
                            if there not in seen:
                                seen.add(there)
                                nxt.append(there)
                    frontier = nxt
                found = frozenset(seen)
            self._within[key] = found
        return found

    def shortest_path(
        self,
        a: str,
        b: str,
        *,
        avoid: Collection[str] = (),
        allowed: Callable[[str], bool] | None = None,
        max_steps: int | None = None,
    ) -> tuple[str, ...] | None:
        """A shortest road path from ``a`` to ``b`` as a tuple of city ids (both ends included).

        Every city after ``a``, ``b`` included, must be outside ``avoid`` and pass ``allowed``.
        Of several shortest paths the one with the lowest ids (compared city by city) is
        returned. None if there is no such path, or none of at most ``max_steps`` steps.
        """
        self.city(a)
        self.city(b)
        if a == b:
            return (a,)
        avoided = frozenset(avoid)

        def enterable(c: str) -> bool:
            return c not in avoided and (allowed is None or allowed(c))

        if not enterable(b):
            return None
        # Distances towards b over enterable cities; then walk from a taking, at each step,
        # the lowest-id neighbour one step closer: that is the lexicographically lowest path.
        if not avoided and allowed is None:
            cached = self.distances_from(b)
            if a not in cached or (max_steps is not None and cached[a] > max_steps):
                return None
            return self._walk(a, b, cached)
        back = {b: 0}
        frontier = [b]
        step = 0
        while frontier and a not in back:
            step += 1
            if max_steps is not None and step > max_steps:
                return None
            nxt = []
            for here in frontier:
                for there in self._adjacent[here]:
                    if there in back:
                        continue
                    if there == a or enterable(there):
                        back[there] = step
                        nxt.append(there)
            frontier = nxt
        if a not in back:
            return None
        return self._walk(a, b, back)

    def _walk(self, a: str, b: str, back: Mapping[str, int]) -> tuple[str, ...]:
        """From ``a`` to ``b`` down the distances ``back`` (to b), lowest id first."""
        path = [a]
        here = a
        while here != b:
            want = back[here] - 1
            here = next(c for c in self._adjacent[here] if back.get(c) == want)
            path.append(here)
        return tuple(path)

    def main_road_reach(
        self,
        city: str,
        steps: int,
        *,
        blocked: Callable[[str], bool] | None = None,
    ) -> dict[str, tuple[str, ...]]:
        """Every other city reachable from ``city`` in at most ``steps`` main-road steps.

        Maps each such city to one shortest main-road path (start included), the one with
        the lowest ids. A city for which ``blocked`` is true is neither entered nor passed.
        The start city itself is not in the result (force march, M3.6).
        """
        self.city(city)
        best: dict[str, tuple[str, ...]] = {city: (city,)}
        frontier = [city]
        for _ in range(steps):
            candidates: dict[str, tuple[str, ...]] = {}
            for here in frontier:
                path = best[here]
                for there in self._main_adjacent[here]:
                    if there in best or (blocked is not None and blocked(there)):
                        continue
                    new = path + (there,)
                    old = candidates.get(there)
                    if old is None or new < old:
                        candidates[there] = new
            if not candidates:
                break
            best.update(candidates)
            frontier = sorted(candidates)
        del best[city]
        return best

    def counts(self) -> dict[str, int]:
        """What ``pbem map check`` prints: how many cities, roads, fortresses, ..."""
        return {
            "cities": len(self.cities),
            "roads": len(self.roads),
            "main roads": sum(1 for r in self.roads if r.main),
            "cross-map links": sum(1 for r in self.roads if r.cross_map),
            "fortresses": len(self.fortresses()),
            "major fortresses": sum(1 for c in self.cities.values() if c.fortress == "major"),
            "minor fortresses": sum(1 for c in self.cities.values() if c.fortress == "minor"),
            "electoral": len(self.electoral()),
            "sectors": len({c.sector for c in self.cities.values()} | set(self.suits)),
        }

    def components(self) -> list[list[str]]:
        """The connected parts of the road network, largest first, each sorted by id."""
        seen: set[str] = set()
        parts = []
        for start in sorted(self.cities):
            if start in seen:
                continue
            part = sorted(self.distances_from(start))
            seen.update(part)
            parts.append(part)
        parts.sort(key=lambda p: (-len(p), p[0]))
        return parts


# -- parsing ------------------------------------------------------------------------------


class _Problems:
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


def _suggest(name: object, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss, else empty."""
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _pair(value: object) -> tuple[float, float] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(_is_number(v) for v in value)
        and value[0] < value[1]
    ):
        return (float(value[0]), float(value[1]))
    return None


def _parse_maps(data: dict, p: _Problems, playable: bool) -> dict[str, MapWindow]:
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
        if not _ID.match(mid):
            p.add(where, f"'{mid}' is not a valid map id (lowercase letters, digits, _)")
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, columns, rows, lon, lat}")
            continue
        for key in sorted(set(spec) - _MAP_KEYS):
            p.add(where, f"unknown field '{key}'{_suggest(key, _MAP_KEYS)}")
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
        if not _is_int(rows) or rows < 1:
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
            maps[mid] = MapWindow(
                mid, name, spec.get("name_zh"), tuple(columns), int(rows), lon, lat  # type: ignore[arg-type]
            )
    return maps


def _parse_territories(data: dict, p: _Problems) -> dict[str, Territory]:
    raw = data.get("territories")
    if raw is None:
        return {t: Territory(t, t, t if t in POWERS else None) for t in STANDARD_TERRITORIES}
    if not isinstance(raw, dict) or not raw:
        p.add("territories", "must be a mapping of territory id to {name, home}")
        return {}
    out = {}
    for tid, spec in raw.items():
        where = f"territories.{tid}"
        if not (tid in POWERS or _ID.match(tid)):
            p.add(where, f"'{tid}' is not a valid territory id")
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, home}")
            continue
        for key in sorted(set(spec) - {"name", "name_zh", "home"}):
            p.add(where, f"unknown field '{key}'")
        home = spec.get("home")
        if home is not None and home not in POWERS:
            p.add(where, f"home '{home}' is not a power ({', '.join(POWERS)})"
                  f"{_suggest(home, POWERS)}")
            home = None
        out[tid] = Territory(tid, str(spec.get("name") or tid), home)
    return out


def _parse_suits(data: dict, maps: Mapping[str, MapWindow], p: _Problems) -> dict[str, str]:
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
                  f"{_suggest(sector, known)}")
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
    p: _Problems,
    playable: bool,
) -> City | None:
    where = f"cities[{i}]"
    if not isinstance(raw, dict):
        p.add(where, "must be a mapping {id, name, map, lon, lat, territory, ...}")
        return None
    cid = raw.get("id")
    if isinstance(cid, str):
        where = f"cities[{i}] ({cid})"
    if not isinstance(cid, str) or not _ID.match(cid):
        p.add(where, f"id {cid!r} is not a valid city id (lowercase ASCII letters, digits, _; "
              "starting with a letter)")
        return None
    bad = False
    for key in sorted(set(raw) - _CITY_KEYS):
        p.add(where, f"unknown field '{key}'{_suggest(key, _CITY_KEYS)}")
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
              f"{_suggest(mid, map_ids)}")
        return None
    territory = raw.get("territory")
    if territory not in territories:
        p.add(where, f"territory '{territory}' is not a territory"
              f"{_suggest(territory, territories) or ' (' + ', '.join(territories) + ')'}")
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
    if lon is None and lat is None and not playable:
        placed = False
        lon = lat = 0.0
        if not isinstance(sector, str) or not sector:
            p.add(where, "needs lon and lat, or a sector")
            return None
    elif not (_is_number(lon) and _is_number(lat)):
        p.add(where, "lon and lat must be numbers (degrees east and north)")
        return None
    if placed and mid in maps:
        window = maps[mid]
        derived = window.sector_at(float(lon), float(lat))  # type: ignore[arg-type]
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
    if suit is None:
        suit = suits.get(sector)  # type: ignore[arg-type]
        if suit is None:
            if not maps:
                p.add(where, f"sector '{sector}' has no suit (give suit:)")
            return None  # the missing grid suit is reported once, under `suits`
    elif suit not in SUITS:
        p.add(where, f"suit '{suit}' is not one of S, H, D, C")
        return None
    elif sector in suits and suits[sector] != suit:
        p.add(where, f"suit '{suit}' differs from the suit {suits[sector]} of sector {sector}")
    if bad:
        return None
    return City(
        id=cid,
        name=name.strip(),
        name_zh=name_zh,
        map=mid,  # type: ignore[arg-type]
        lon=float(lon),  # type: ignore[arg-type]
        lat=float(lat),  # type: ignore[arg-type]
        territory=territory,  # type: ignore[arg-type]
        sector=sector,  # type: ignore[arg-type]
        suit=suit,
        fortress=fortress,
        electoral=electoral,
        tags=tags,
        placed=placed,
    )


def _parse_roads(
    data: dict, cities: Mapping[str, City], all_ids: set[str], south_rows: int, p: _Problems,
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
                p.add(where, f"{end!r} is not a city{_suggest(end, all_ids)}")
                bad = True
        for flag in flags:
            if flag not in ("main", "cross_map"):
                p.add(where, f"unknown flag {flag!r} (main or cross_map)"
                      f"{_suggest(flag, ('main', 'cross_map'))}")
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
    p = _Problems(source)
    if not isinstance(data, dict):
        p.add("", "the map file must be a mapping with maps, suits, territories, cities, roads")
        p.raise_if_any("the map file")
    for key in sorted(set(data) - _TOP_KEYS):
        p.add(key, f"unknown top-level field{_suggest(key, _TOP_KEYS)}")
    board_id = data.get("map", "map")
    if not isinstance(board_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", board_id):
        p.add("map", f"{board_id!r} is not a valid map id")
        board_id = "map"
    south_rows = data.get("south_rows", 4 if playable else 99)
    if not _is_int(south_rows) or south_rows < 1:
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


def _check_playable(board: Board, p: _Problems, index: Mapping[str, int]) -> None:
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


def _read_yaml(path: Path) -> Any:
    """The data of a YAML data file; a missing or unreadable file is a DataError."""
    from pbem.core.safeyaml import load_yaml_file
    from pbem.errors import PbemError

    if not path.is_file():
        raise DataError(f"{path}: no such file")
    try:
        return load_yaml_file(path)
    except PbemError as exc:
        raise DataError(str(exc)) from None


@cache
def _load_board_cached(path: str, mtime_ns: int) -> Board:
    return parse_board(_read_yaml(Path(path)), Path(path).name)


def default_map_path() -> Path:
    """The shipped map: ``seeds/maria/map.yaml``."""
    from pbem.data import seeds_dir

    return seeds_dir() / "maria" / "map.yaml"


def load_board(path: str | Path | None = None) -> Board:
    """Load and check a playable map file (default: the shipped map); cached per path."""
    p = Path(path) if path is not None else default_map_path()
    resolved = p.resolve()
    if not resolved.is_file():
        _read_yaml(p)  # raises the DataError that names the file
    return _load_board_cached(str(resolved), resolved.stat().st_mtime_ns)


# -- forces -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerSpec:
    """A power's scenario figures: troop total, marker pool, and the major ally of a minor."""

    id: str
    name: str
    major: bool
    troops: int
    pool: int
    ally: str | None


@dataclass(frozen=True)
class GeneralSpec:
    """A general as the scenario places it. ``minimum`` is its listed minimum of troops."""

    id: str
    name: str
    name_zh: str | None
    power: str
    rank: int
    minimum: int | None
    start: str
    intro: bool


@dataclass(frozen=True)
class TrainSpec:
    """A supply train as the scenario places it."""

    id: str
    power: str
    start: str
    intro: bool


@dataclass(frozen=True)
class FortressStart:
    """A Silesian or neutral fortress held at the start (M4.2)."""

    controller: str
    marker: bool


@dataclass(frozen=True)
class Forces:
    """The checked contents of ``forces.yaml``."""

    powers: Mapping[str, PowerSpec]
    generals: tuple[GeneralSpec, ...]
    trains: tuple[TrainSpec, ...]
    train_max: Mapping[str, int]
    train_max_intro: Mapping[str, int]
    fortress_start: Mapping[str, FortressStart]

    def side_of(self, power: str) -> str:
        """``habsburg`` or ``coalition`` at the start (M1.3)."""
        if power in SIDE_OF_MAJOR:
            return SIDE_OF_MAJOR[power]
        ally = self.powers[power].ally if power in self.powers else None
        return SIDE_OF_MAJOR.get(ally or "", power)

    def generals_of(self, power: str, *, intro: bool = False) -> tuple[GeneralSpec, ...]:
        """The power's generals in rank order (only the introductory subset if ``intro``)."""
        return tuple(
            sorted(
                (g for g in self.generals if g.power == power and (g.intro or not intro)),
                key=lambda g: g.rank,
            )
        )

    def start_view(self, *, intro: bool = False, title: str | None = None) -> dict[str, Any]:
        """The map view of the starting position, in the shape the SVG renderer draws."""
        generals = [
            {"id": g.id, "name": g.name, "name_zh": g.name_zh, "power": g.power,
             "rank": g.rank, "city": g.start, "face_down": False, "blocked": False,
             "troops": None}
            for g in self.generals
            if g.intro or not intro
        ]
        trains = [
            {"id": t.id, "power": t.power, "city": t.start}
            for t in self.trains
            if t.intro or not intro
        ]
        control = {
            c: {"power": f.controller, "marker": f.marker}
            for c, f in sorted(self.fortress_start.items())
        }
        scenario = "introductory game" if intro else "advanced game"
        return {
            "generals": sorted(generals, key=lambda g: (POWERS.index(g["power"]), g["rank"])),
            "trains": sorted(trains, key=lambda t: t["id"]),
            "hussars": [],
            "control": control,
            "turn": 0,
            "title": title or f"1741, set-up of the {scenario}",
        }


_POWER_KEYS = frozenset({"name", "name_zh", "major", "troops", "pool", "ally"})
_GENERAL_KEYS = frozenset({"id", "name", "name_zh", "power", "rank", "min", "start", "intro"})
_TRAIN_KEYS = frozenset({"id", "power", "start", "intro"})
_FORCES_KEYS = frozenset(
    {"powers", "generals", "trains", "train_max", "train_max_intro", "fortress_start"}
)


def parse_forces(data: Any, board: Board, source: str = "<forces>") -> Forces:
    """Check a forces document against ``board`` and build :class:`Forces`.

    Raises :class:`DataError` listing every problem: unknown powers and cities, start cities
    on a map the power may not use (M1.4), more than 2 generals or non-allied generals in one
    city (M3.3), minimums above a power's troop total or a total above 8 per general (M1.7),
    more trains than the power's maximum.
    """
    p = _Problems(source)
    if not isinstance(data, dict):
        p.add("", "the forces file must be a mapping with powers, generals, trains")
        p.raise_if_any("the forces file")
    for key in sorted(set(data) - _FORCES_KEYS):
        p.add(key, f"unknown top-level field{_suggest(key, _FORCES_KEYS)}")

    powers: dict[str, PowerSpec] = {}
    raw_powers = data.get("powers")
    if not isinstance(raw_powers, dict) or not raw_powers:
        p.add("powers", "must be a mapping of power id to {name, major, troops, pool, ally}")
        raw_powers = {}
    for pid, spec in raw_powers.items():
        where = f"powers.{pid}"
        if pid not in POWERS:
            p.add(where, f"'{pid}' is not a power ({', '.join(POWERS)}){_suggest(pid, POWERS)}")
            continue
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, major, troops, pool, ally}")
            continue
        for key in sorted(set(spec) - _POWER_KEYS):
            p.add(where, f"unknown field '{key}'{_suggest(key, _POWER_KEYS)}")
        troops, pool = spec.get("troops"), spec.get("pool", 0)
        if not _is_int(troops) or troops < 0:
            p.add(where, f"troops must be a whole number, not {troops!r}")
            troops = 0
        if not _is_int(pool) or pool < 0:
            p.add(where, f"pool must be a whole number, not {pool!r}")
            pool = 0
        major = spec.get("major", pid in MAJOR_POWERS)
        if major is not (pid in MAJOR_POWERS):
            p.add(where, f"major: {major} contradicts M1.1 ({', '.join(MAJOR_POWERS)} are major)")
        ally = spec.get("ally")
        if ally is not None and ally not in MAJOR_POWERS:
            p.add(where, f"ally '{ally}' is not a major power{_suggest(ally, MAJOR_POWERS)}")
            ally = None
        if ally is None and pid not in MAJOR_POWERS:
            p.add(where, "a minor power needs its major ally (ally: FR, PR or AU)")
        powers[pid] = PowerSpec(pid, str(spec.get("name") or pid), pid in MAJOR_POWERS,
                                troops, pool, ally)
    forces_sides = Forces(MappingProxyType(powers), (), (), {}, {}, {})

    def check_power(where: str, power: object) -> bool:
        if power not in POWERS:
            p.add(where, f"power '{power}' is not a power{_suggest(power, POWERS)}")
            return False
        if power not in powers:
            p.add(where, f"power '{power}' is not listed under powers")
            return False
        return True

    def check_start(where: str, power: str, start: object) -> bool:
        if start not in board.cities:
            p.add(where, f"start {start!r} is not a city{_suggest(start, board.cities)}")
            return False
        city = board.cities[start]  # type: ignore[index]
        if city.map not in MAPS_OF_POWER[power]:
            p.add(where, f"starts in '{start}' on the {city.map} map, where {power} pieces may "
                  "not go (M1.4)")
            return False
        return True

    seen_ids: dict[str, str] = {}

    def entries(section: str, what: str, shape: str, known: frozenset[str]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """The entries of the list ``section`` that are mappings with a new, valid id, as
        (where, id, entry); every other problem, and every unknown field, is reported."""
        raw = data.get(section)
        if not isinstance(raw, list):
            p.add(section, f"must be a list of {what}")
            raw = []
        for i, entry in enumerate(raw):
            where = f"{section}[{i}]"
            if not isinstance(entry, dict):
                p.add(where, f"must be a mapping {shape}")
                continue
            eid = entry.get("id")
            if isinstance(eid, str):
                where = f"{section}[{i}] ({eid})"
            if not isinstance(eid, str) or not _ID.match(eid):
                p.add(where, f"id {eid!r} is not a valid id (lowercase ASCII letters, digits, _)")
                continue
            if eid in seen_ids:
                p.add(where, f"duplicate id: also {seen_ids[eid]}")
                continue
            seen_ids[eid] = f"{section}[{i}]"
            for key in sorted(set(entry) - known):
                p.add(where, f"unknown field '{key}'{_suggest(key, known)}")
            yield where, eid, entry

    generals: list[GeneralSpec] = []
    ranks: dict[tuple[str, int], str] = {}
    for where, gid, g in entries("generals", "generals", "{id, name, power, rank, min, start, intro}",
                                 _GENERAL_KEYS):
        power, rank, minimum = g.get("power"), g.get("rank"), g.get("min")
        ok = check_power(where, power)
        if not _is_int(rank) or rank < 1:
            p.add(where, f"rank must be a whole number from 1, not {rank!r}")
            ok = False
        elif ok:
            key = (str(power), rank)
            if key in ranks:
                p.add(where, f"rank {rank} of {power} is also the rank of '{ranks[key]}'")
            ranks[key] = gid
        if minimum is not None and (not _is_int(minimum) or not 1 <= minimum <= MAX_TROOPS):
            p.add(where, f"min must be a whole number from 1 to {MAX_TROOPS}, not {minimum!r}")
            ok = False
        intro = g.get("intro", False)
        if not isinstance(intro, bool):
            p.add(where, "intro must be true or false")
            ok = False
        if ok and check_start(where, power, g.get("start")):  # type: ignore[arg-type]
            generals.append(GeneralSpec(gid, str(g.get("name") or gid), g.get("name_zh"),
                                        power, rank, minimum, g["start"], intro))  # type: ignore[arg-type]

    # M3.3: at most 2 generals in a city, of one power or allied powers
    by_city: dict[str, list[GeneralSpec]] = {}
    for gen in generals:
        by_city.setdefault(gen.start, []).append(gen)
    for city, here in sorted(by_city.items()):
        names = ", ".join(g.id for g in here)
        if len(here) > MAX_GENERALS_PER_CITY:
            p.add("generals", f"{len(here)} generals start in '{city}' ({names}); the stacking "
                  f"limit is {MAX_GENERALS_PER_CITY} (M3.3)")
        sides = {forces_sides.side_of(g.power) for g in here}
        if len(sides) > 1:
            p.add("generals", f"generals of enemy powers start together in '{city}' ({names}) "
                  "(M3.3)")

    # M1.7: minimums within the total, total within 8 per general
    for pid, spec in powers.items():
        mine = [g for g in generals if g.power == pid]
        if not mine:
            continue
        floor = sum(g.minimum or 1 for g in mine)
        if floor > spec.troops:
            p.add(f"powers.{pid}", f"the minimum troops of its generals add up to {floor}, "
                  f"more than its troop total {spec.troops} (M1.7)")
        if spec.troops > MAX_TROOPS * len(mine):
            p.add(f"powers.{pid}", f"troop total {spec.troops} is more than {MAX_TROOPS} x "
                  f"{len(mine)} generals = {MAX_TROOPS * len(mine)} (M1.7)")

    trains: list[TrainSpec] = []
    for where, tid, t in entries("trains", "supply trains", "{id, power, start, intro}", _TRAIN_KEYS):
        power = t.get("power")
        intro = t.get("intro", False)
        if not isinstance(intro, bool):
            p.add(where, "intro must be true or false")
            continue
        if check_power(where, power) and check_start(where, power, t.get("start")):  # type: ignore[arg-type]
            trains.append(TrainSpec(tid, power, t["start"], intro))  # type: ignore[arg-type]

    def parse_max(key: str) -> dict[str, int]:
        raw = data.get(key, {})
        if not isinstance(raw, dict):
            p.add(key, "must be a mapping of power to a whole number")
            return {}
        out = {}
        for pid, n in raw.items():
            if check_power(f"{key}.{pid}", pid):
                if not _is_int(n) or n < 0:
                    p.add(f"{key}.{pid}", f"must be a whole number, not {n!r}")
                else:
                    out[pid] = n
        return out

    train_max = parse_max("train_max")
    train_max_intro = parse_max("train_max_intro")
    for key, limits, intro_only in (("train_max", train_max, False),
                                    ("train_max_intro", train_max_intro, True)):
        for pid in sorted(powers, key=POWERS.index):
            count = sum(1 for t in trains if t.power == pid and (t.intro or not intro_only))
            if pid in limits and count > limits[pid]:
                p.add(f"{key}.{pid}", f"{pid} starts with {count} supply trains, more than its "
                      f"maximum {limits[pid]}")

    fortress_start: dict[str, FortressStart] = {}
    raw_fs = data.get("fortress_start", {})
    if not isinstance(raw_fs, dict):
        p.add("fortress_start", "must be a mapping of fortress to {controller, marker}")
        raw_fs = {}
    for cid, spec in raw_fs.items():
        where = f"fortress_start.{cid}"
        if cid not in board.cities:
            p.add(where, f"'{cid}' is not a city{_suggest(cid, board.cities)}")
            continue
        if board.cities[cid].fortress == "none":
            p.add(where, f"'{cid}' is not a fortress")
            continue
        if board.home_of(cid) is not None:
            p.add(where, f"'{cid}' lies in the home country of {board.home_of(cid)}; only "
                  "Silesian or neutral fortresses are listed here (M4.2)")
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {controller, marker}")
            continue
        controller, marker = spec.get("controller"), spec.get("marker", False)
        if not isinstance(marker, bool):
            p.add(where, "marker must be true or false")
            continue
        if check_power(where, controller):
            fortress_start[cid] = FortressStart(controller, marker)  # type: ignore[arg-type]

    p.raise_if_any("the forces file")
    return Forces(
        powers=MappingProxyType(dict(sorted(powers.items(), key=lambda kv: POWERS.index(kv[0])))),
        generals=tuple(sorted(generals, key=lambda g: (POWERS.index(g.power), g.rank))),
        trains=tuple(sorted(trains, key=lambda t: (POWERS.index(t.power), t.id))),
        train_max=MappingProxyType(train_max),
        train_max_intro=MappingProxyType(train_max_intro),
        fortress_start=MappingProxyType(dict(sorted(fortress_start.items()))),
    )


def load_forces(board: Board, path: str | Path | None = None) -> Forces:
    """Load and check ``forces.yaml`` (default: the one beside the shipped map)."""
    p = Path(path) if path is not None else default_map_path().with_name("forces.yaml")
    return parse_forces(_read_yaml(p), board, p.name)
