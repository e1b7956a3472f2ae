"""The Maria board as the rules ask it (M1.4, M1.5): cities, roads, sectors, territories.

A :class:`Board` is built once from a checked map file (``pbem.games.maria.mapfile``); after
that the rules only ask it questions (distances, paths, main-road reach, sector, suit,
territory). Every query is deterministic: ties between paths go to the lowest city ids (plain
string order, as the rules say).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, count
from operator import or_
from types import MappingProxyType
from typing import Any

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


class NearestTargets:
    """Road steps from a city to the nearest of some targets: one breadth-first search over the
    cities numbered, for the bots' and the autopilot's hot loops."""

    def __init__(self, index: Mapping[str, int], dist: list[int]) -> None:
        self._index = index
        self._dist = dist
        self._any = max(dist, default=-1) >= 0

    def __bool__(self) -> bool:
        return self._any

    def get(self, city: str, default: int) -> int:
        """The distance from ``city`` to the nearest target, or ``default`` if none is reachable."""
        d = self._dist[self._index[city]]
        return default if d < 0 else d


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
    _homes: dict[str, str | None] = field(default_factory=dict, repr=False)
    _numbered: list[Any] = field(default_factory=list, repr=False)
    _nearest: dict[frozenset[str], NearestTargets] = field(default_factory=dict, repr=False)
    _electoral: list[tuple[str, ...]] = field(default_factory=list, repr=False)
    _fortresses: list[tuple[str, ...]] = field(default_factory=list, repr=False)
    _rings: list[list[int]] = field(default_factory=list, repr=False)
    _ring_build: list[Any] = field(default_factory=list, repr=False)
    _bfs_numbers: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict,
                                                                 repr=False)
    _balls: dict[tuple[str, int], Mapping[str, int]] = field(default_factory=dict, repr=False)
    _territory_cities: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _tagged: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

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

    def road_table(self, main_only: bool = False) -> Mapping[str, tuple[str, ...]]:
        """City -> :meth:`neighbours` (or :meth:`main_neighbours`): the table hot searches read."""
        return self._main_adjacent if main_only else self._adjacent

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
        """The power whose home country holds the city, or None (remembered: rules ask often)."""
        try:
            return self._homes[city]
        except KeyError:
            territory = self.territories.get(self.city(city).territory)
            home = self._homes[city] = territory.home if territory else None
            return home

    def cities_tagged(self, tag: str) -> frozenset[str]:
        """Every city carrying ``tag`` (remembered)."""
        found = self._tagged.get(tag)
        if found is None:
            found = self._tagged[tag] = frozenset(c.id for c in self.cities.values()
                                                  if tag in c.tags)
        return found

    def cities_in(self, territory: str) -> frozenset[str]:
        """Every city of a territory (remembered)."""
        found = self._territory_cities.get(territory)
        if found is None:
            found = self._territory_cities[territory] = frozenset(
                c.id for c in self.cities.values() if c.territory == territory)
        return found

    def fortresses(self) -> tuple[str, ...]:
        """Every fortress (minor or major), sorted by id (remembered)."""
        if not self._fortresses:
            self._fortresses.append(tuple(sorted(c.id for c in self.cities.values()
                                                 if c.fortress != "none")))
        return self._fortresses[0]

    def electoral(self) -> tuple[str, ...]:
        """The electoral fortresses, sorted by id (remembered: every stage asks)."""
        if not self._electoral:
            self._electoral.append(tuple(sorted(c.id for c in self.cities.values()
                                                if c.electoral)))
        return self._electoral[0]

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
        """Road distance from ``city`` to every city it can reach, ignoring pieces (cached; in
        the order a breadth-first search finds them)."""
        found = self._bfs.get(city)
        if found is None:
            dist, order = self._search(city)
            names = self._numbering()[2]
            found = MappingProxyType(dict(zip(map(names.__getitem__, order),
                                              map(dist.__getitem__, order), strict=True)))
            self._bfs[city] = found
        return found

    def numbered_distances(self, city: str) -> list[int]:
        """:meth:`distances_from` as a list by city number (:meth:`numbers`), -1 for a city out of
        reach (cached; for the bots' hot loops)."""
        return self._search(city)[0]

    def numbers(self) -> Mapping[str, int]:
        """City -> its number in :meth:`numbered_distances`."""
        return self._numbering()[0]

    def _search(self, city: str) -> tuple[list[int], list[int]]:
        """A breadth-first search from ``city`` over the cities numbered: the distance of each
        number (-1 out of reach) and the numbers in the order found (cached)."""
        found = self._bfs_numbers.get(city)
        if found is not None:
            return found
        if city not in self._adjacent:
            raise KeyError(f"no city '{city}' on map {self.id}")
        index, adjacent, _ = self._numbering()
        dist = [-1] * len(adjacent)
        order = _spread(adjacent, dist, [index[city]])
        found = self._bfs_numbers[city] = (dist, order)
        return found

    def _numbering(self) -> tuple[Mapping[str, int], list[tuple[int, ...]], tuple[str, ...]]:
        """The cities numbered in the order of ``_adjacent``: city -> number, each number's
        neighbours (numbers, in the same order) and the names (built once)."""
        if not self._numbered:
            names = tuple(self._adjacent)
            index = {c: i for i, c in enumerate(names)}
            self._numbered[:] = [index, [tuple(index[n] for n in near)
                                         for near in self._adjacent.values()], names]
        index, adjacent, names = self._numbered
        return index, adjacent, names

    def nearest(self, targets: Iterable[str]) -> NearestTargets:
        """Road steps from every city that can reach one of ``targets`` to the nearest of them:
        one breadth-first search from all of them, over the cities numbered. The last few answers are remembered: a bot asks
        again for the same targets while the pieces that make them stand still."""
        key = frozenset(targets)
        found = self._nearest.get(key)
        if found is not None:
            return found
        index, adjacent, _ = self._numbering()
        dist = [-1] * len(adjacent)
        _spread(adjacent, dist, [index[t] for t in sorted(key)])
        if len(self._nearest) >= 64:
            self._nearest.clear()
        found = self._nearest[key] = NearestTargets(index, dist)
        return found

    def rings(self, depth: int) -> list[list[int]]:
        """By city number (:meth:`numbers`): the cities at each number of road steps from the
        city, as bit masks of city numbers (entry ``d``: bit ``j`` set for city number ``j``
        exactly ``d`` steps away), at least up to ``depth`` steps or the farthest city it
        reaches. Built for every city together, a step at a time, and widened when asked
        (the lists grow in place): a city's ball one step wider is the union of its
        neighbours' balls (whole-integer operations rather than a search from each city)."""
        rings, build = self._rings, self._ring_build
        adjacent = self._numbering()[1]
        if not build:
            ball = [1 << i for i in range(len(adjacent))]
            rings.extend([b] for b in ball)
            build.extend([ball, [v for v, near in enumerate(adjacent) if near], 0])
        ball, growing, built = build
        while built < depth and growing:
            wider = [reduce(or_, map(ball.__getitem__, adjacent[v]), ball[v]) for v in growing]
            still = []
            for v, w in zip(growing, wider, strict=True):
                ring = w ^ ball[v]  # the cities one step farther: a ball only grows
                if ring:
                    rings[v].append(ring)
                    ball[v] = w
                    still.append(v)
            growing = still
            built += 1
        build[1:] = [growing, built]
        return rings

    def ring_steps(self, number: int, targets: int) -> int | None:
        """The road steps from city ``number`` to the nearest city of the mask ``targets``
        (:meth:`targets`), None if it reaches none: its rings as far as they are built, else
        a search from the city (remembered): the few cities that ask so far spare every city
        its farthest rings."""
        rings = self.rings(0)[number]
        d = next(compress(count(), map(targets.__and__, rings)), None)
        if d is not None or len(rings) <= self._ring_build[2] or not self._ring_build[1]:
            return d  # found, or the city's rings are all there
        dist = self.numbered_distances(self._numbering()[2][number])
        chosen = compress(dist, map("1".__eq__, bin(targets)[:1:-1]))  # bit j: number j
        return min((d for d in chosen if d >= 0), default=None)

    def targets(self, cities: Iterable[str], digits: bytearray | None = None) -> int:
        """``cities`` as a bit mask of city numbers (for :meth:`rings`), added to the binary
        digits ``digits`` of one if given (changed in place; see :meth:`digit`)."""
        index = self._numbering()[0]
        top = len(index) - 1
        if digits is None:
            digits = bytearray(b"0" * len(index))
        for i in map(index.__getitem__, cities):
            digits[top - i] = 49  # "1": no big integer made for each city
        return int(digits, 2) if digits else 0

    def digit(self, city: str) -> int:
        """Where ``city``'s bit stands in the binary digits of a mask of :meth:`targets`
        (``len(numbers())`` digits, the highest number first)."""
        index = self._numbering()[0]
        return len(index) - 1 - index[city]

    def distance(self, a: str, b: str) -> int | None:
        """The fewest road steps from ``a`` to ``b``, or None if none joins them."""
        dist = self._search(a)[0]  # from each city's cached search, no mapping built
        i = self._numbering()[0].get(b)
        if i is None:
            return None
        d = dist[i]
        return None if d < 0 else d

    def distances_within(self, city: str, n: int) -> Mapping[str, int]:
        """Road distance from ``city`` to every city at most ``n`` steps away, the city itself
        included (cached): a search that stops at depth ``n``, far cheaper than the whole map."""
        key = (city, n)
        found = self._balls.get(key)
        if found is None:
            adjacent = self._adjacent
            if city not in adjacent:
                raise KeyError(f"no city '{city}' on map {self.id}")
            dist = {city: 0}
            frontier = [city]
            for step in range(1, n + 1):
                nxt = []
                for here in frontier:
                    for there in adjacent[here]:
                        if there not in dist:
                            dist[there] = step
                            nxt.append(there)
                frontier = nxt
            found = self._balls[key] = MappingProxyType(dist)
        return found

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


def _spread(adjacent: list[tuple[int, ...]], dist: list[int], start: list[int]) -> list[int]:
    """A breadth-first search over numbered cities from every number in ``start`` at once:
    fills ``dist`` (-1 where not yet reached) with road steps to the nearest start and returns
    the numbers in the order found."""
    for i in start:
        dist[i] = 0
    order, frontier = list(start), start
    step = 0
    while frontier:
        step += 1
        nxt = []
        for here in frontier:
            for there in adjacent[here]:
                if dist[there] < 0:
                    dist[there] = step
                    nxt.append(there)
        order.extend(nxt)
        frontier = nxt
    return order
