"""The starting forces of a Maria scenario (``forces.yaml``): powers, generals, supply
trains and the fortresses held at the start, checked against a board (M1.1, M1.4, M1.7, M3.3,
M4.2)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

from pbem.games.maria.geography import (
    MAJOR_POWERS,
    MAPS_OF_POWER,
    MAX_GENERALS_PER_CITY,
    MAX_TROOPS,
    POWERS,
    SIDE_OF_MAJOR,
    Board,
)
from pbem.games.maria.mapfile import ID_RE, Problems, default_map_path, is_int, read_yaml, suggest


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
    p = Problems(source)
    if not isinstance(data, dict):
        p.add("", "the forces file must be a mapping with powers, generals, trains")
        p.raise_if_any("the forces file")
    for key in sorted(set(data) - _FORCES_KEYS):
        p.add(key, f"unknown top-level field{suggest(key, _FORCES_KEYS)}")

    powers: dict[str, PowerSpec] = {}
    raw_powers = data.get("powers")
    if not isinstance(raw_powers, dict) or not raw_powers:
        p.add("powers", "must be a mapping of power id to {name, major, troops, pool, ally}")
        raw_powers = {}
    for pid, spec in raw_powers.items():
        where = f"powers.{pid}"
        if pid not in POWERS:
            p.add(where, f"'{pid}' is not a power ({', '.join(POWERS)}){suggest(pid, POWERS)}")
            continue
        if not isinstance(spec, dict):
            p.add(where, "must be a mapping {name, major, troops, pool, ally}")
            continue
        for key in sorted(set(spec) - _POWER_KEYS):
            p.add(where, f"unknown field '{key}'{suggest(key, _POWER_KEYS)}")
        troops, pool = spec.get("troops"), spec.get("pool", 0)
        if not is_int(troops) or troops < 0:
            p.add(where, f"troops must be a whole number, not {troops!r}")
            troops = 0
        if not is_int(pool) or pool < 0:
            p.add(where, f"pool must be a whole number, not {pool!r}")
            pool = 0
        major = spec.get("major", pid in MAJOR_POWERS)
        if major is not (pid in MAJOR_POWERS):
            p.add(where, f"major: {major} contradicts M1.1 ({', '.join(MAJOR_POWERS)} are major)")
        ally = spec.get("ally")
        if ally is not None and ally not in MAJOR_POWERS:
            p.add(where, f"ally '{ally}' is not a major power{suggest(ally, MAJOR_POWERS)}")
            ally = None
        if ally is None and pid not in MAJOR_POWERS:
            p.add(where, "a minor power needs its major ally (ally: FR, PR or AU)")
        powers[pid] = PowerSpec(pid, str(spec.get("name") or pid), pid in MAJOR_POWERS,
                                troops, pool, ally)
    forces_sides = Forces(MappingProxyType(powers), (), (), {}, {}, {})

    def check_power(power: object, where: str) -> TypeGuard[str]:
        if power not in POWERS:
            p.add(where, f"power '{power}' is not a power{suggest(power, POWERS)}")
            return False
        if power not in powers:
            p.add(where, f"power '{power}' is not listed under powers")
            return False
        return True

    def check_start(start: object, where: str, power: str) -> TypeGuard[str]:
        if not isinstance(start, str) or start not in board.cities:
            p.add(where, f"start {start!r} is not a city{suggest(start, board.cities)}")
            return False
        city = board.cities[start]
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
            if not isinstance(eid, str) or not ID_RE.match(eid):
                p.add(where, f"id {eid!r} is not a valid id (lowercase ASCII letters, digits, _)")
                continue
            if eid in seen_ids:
                p.add(where, f"duplicate id: also {seen_ids[eid]}")
                continue
            seen_ids[eid] = f"{section}[{i}]"
            for key in sorted(set(entry) - known):
                p.add(where, f"unknown field '{key}'{suggest(key, known)}")
            yield where, eid, entry

    generals: list[GeneralSpec] = []
    ranks: dict[tuple[str, int], str] = {}
    for where, gid, g in entries("generals", "generals", "{id, name, power, rank, min, start, intro}",
                                 _GENERAL_KEYS):
        power, rank, minimum = g.get("power"), g.get("rank"), g.get("min")
        ok = check_power(power, where)
        if not is_int(rank) or rank < 1:
            p.add(where, f"rank must be a whole number from 1, not {rank!r}")
            ok = False
        elif ok:
            key = (str(power), rank)
            if key in ranks:
                p.add(where, f"rank {rank} of {power} is also the rank of '{ranks[key]}'")
            ranks[key] = gid
        if minimum is not None and (not is_int(minimum) or not 1 <= minimum <= MAX_TROOPS):
            p.add(where, f"min must be a whole number from 1 to {MAX_TROOPS}, not {minimum!r}")
            ok = False
        intro = g.get("intro", False)
        if not isinstance(intro, bool):
            p.add(where, "intro must be true or false")
            ok = False
        start = g.get("start")
        # ok says power is a known power and rank a whole number
        if ok and isinstance(power, str) and is_int(rank) and check_start(start, where, power):
            generals.append(GeneralSpec(gid, str(g.get("name") or gid), g.get("name_zh"),
                                        power, rank, minimum, start, intro))

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
        start = t.get("start")
        if check_power(power, where) and check_start(start, where, power):
            trains.append(TrainSpec(tid, power, start, intro))

    def parse_max(key: str) -> dict[str, int]:
        raw = data.get(key, {})
        if not isinstance(raw, dict):
            p.add(key, "must be a mapping of power to a whole number")
            return {}
        out = {}
        for pid, n in raw.items():
            if check_power(pid, f"{key}.{pid}"):
                if not is_int(n) or n < 0:
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
            p.add(where, f"'{cid}' is not a city{suggest(cid, board.cities)}")
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
        if check_power(controller, where):
            fortress_start[cid] = FortressStart(controller, marker)

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
    return parse_forces(read_yaml(p), board, p.name)
