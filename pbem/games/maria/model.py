"""The fixed data of Maria (options, scenarios, forces) and the plain-data state read against it.

Data is YAML under ``seeds/maria/`` and is loaded and checked once (``functools.cache``); the
rules never read a file. The state is a plain dict that round-trips through JSON exactly; this
module holds the queries every rules module shares (sides, control, stacks, card piles).

Variant checks live here and nowhere else: :func:`is_intro` and the scenario data say which
steps, maps and pieces a game has, so the advanced game adds data and steps, not rewrites.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from pbem.common.fair import Rng
from pbem.common.safeyaml import load_yaml_file
from pbem.data import seeds_dir
from pbem.errors import DataError
from pbem.games.maria.cards import card_key
from pbem.games.maria.geography import Board

State = dict[str, Any]

POWERS: tuple[str, ...] = ("FR", "BA", "PR", "SX", "AU", "PA")
"""Every power, in the rules' power order (M2.4, M3.12, M6.1)."""
POWER_INDEX = {p: i for i, p in enumerate(POWERS)}
MAJORS: frozenset[str] = frozenset({"AU", "FR", "PR", "PA"})
POWER_NAMES = {
    "FR": "France", "BA": "Bavaria", "PR": "Prussia", "SX": "Saxony", "AU": "Austria",
    "PA": "Pragmatic Army",
}
STAGES: tuple[str, ...] = ("france", "prussia", "austria")
"""The three stages of a turn, in order (M2.3)."""
STAGE_POWERS: dict[str, tuple[str, ...]] = {
    "france": ("FR", "BA"),
    "prussia": ("PR", "SX"),
    "austria": ("AU", "PA", "SX"),
}
"""Powers that may act in each stage; SX acts with its ally's stage (M2.3, M2.5)."""
SEATS_THREE = ("maria_theresa", "louis", "frederick")
SEATS_TWO = ("habsburg", "coalition")


# --- options --------------------------------------------------------------------------------


@cache
def option_table() -> dict[str, dict[str, Any]]:
    """The rule-option table of ``seeds/maria/options.yaml`` (checked once)."""
    path = seeds_dir() / "maria" / "options.yaml"
    data = load_yaml_file(path)
    problems: list[str] = []
    table = data.get("options") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise DataError(f"{path}: needs a mapping 'options:'")
    for key, spec in table.items():
        if not isinstance(spec, dict) or "default" not in spec or "type" not in spec:
            problems.append(f"{key}: needs 'type' and 'default'")
            continue
        if spec["type"] not in ("choice", "int", "draws", "limit"):
            problems.append(f"{key}: unknown type {spec['type']!r}")
        refused = spec.get("refused", [])
        if any(r not in spec.get("alternatives", []) for r in refused):
            problems.append(f"{key}: a refused value must be one of the alternatives")
    if problems:
        raise DataError(f"{path}: broken option table", problems)
    return table


def default_options() -> dict[str, Any]:
    """Every option at its default."""
    return {k: _copy(v["default"]) for k, v in option_table().items()}


def _copy(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value


def check_option(key: str, value: Any) -> tuple[Any, str | None]:
    """The normalised ``value`` of option ``key`` and a problem sentence, or None if fine."""
    table = option_table()
    spec = table.get(key)
    if spec is None:
        return value, f"unknown rule option '{key}'"
    kind = spec["type"]
    if kind == "choice":
        allowed = [spec["default"], *spec.get("alternatives", [])]
        if value not in allowed or isinstance(value, bool) != isinstance(spec["default"], bool):
            shown = ", ".join(str(a).lower() if isinstance(a, bool) else str(a) for a in allowed)
            return value, f"option {key}: {value!r} is not allowed (choose one of {shown})"
        if value in spec.get("refused", []):
            return value, (
                f"option {key}: the alternative {value!r} has no rule text yet and is refused; "
                f"use {spec['default']!r}"
            )
        return value, None
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return value, f"option {key}: expected a whole number, got {value!r}"
        lo, hi = spec.get("min"), spec.get("max")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return value, f"option {key}: {value} is outside {lo}..{hi}"
        return value, None
    if kind == "limit":
        if value in ("none", None):
            return "none", None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return value, f"option {key}: expected 'none' or a whole number >= 0, got {value!r}"
        return value, None
    # draws: a table power -> cards, merged over the default
    if not isinstance(value, dict):
        return value, f"option {key}: expected a table such as {{FR: 5, AU: 5}}, got {value!r}"
    merged = dict(spec["default"])
    for p, n in value.items():
        if p not in POWERS:
            return value, f"option {key}: unknown power {p!r}"
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return value, f"option {key}: the draw of {p} must be a whole number >= 0"
        merged[p] = n
    return merged, None


def resolve_options(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overridden by each layer in turn (scenario, then campaign); every problem of
    every layer is reported in one :class:`DataError`."""
    result = default_options()
    problems: list[str] = []
    for layer in layers:
        for key, value in (layer or {}).items():
            norm, problem = check_option(str(key), value)
            if problem:
                problems.append(problem)
            else:
                result[str(key)] = norm
    if problems:
        raise DataError("the rule options are not acceptable", problems)
    return result


# --- scenarios and forces -------------------------------------------------------------------


@cache
def scenario_data(name: str) -> dict[str, Any]:
    """A scenario file ``seeds/maria/scenarios/<name>.yaml``."""
    path = seeds_dir() / "maria" / "scenarios" / f"{name}.yaml"
    if not path.is_file():
        raise DataError(f"unknown Maria scenario '{name}' (known: intro, advanced)")
    data = load_yaml_file(path)
    problems = [
        f"missing '{k}'"
        for k in ("scenario", "variant", "turns", "winters", "maps", "powers", "forces")
        if not isinstance(data, dict) or k not in data
    ]
    if problems:
        raise DataError(f"{path}: broken scenario", problems)
    return data


_FORCES: dict[str, Any] = {}


def forces_of(board: Any) -> Any:
    """The starting forces (``forces.load_forces``) for ``board``, loaded once per board."""
    found = _FORCES.get(board.id)
    if found is None:
        from pbem.games.maria.board import load_forces

        found = load_forces(board)
        _FORCES[board.id] = found
    return found


def default_split(generals: list[dict[str, Any]], total: int, max_troops: int) -> dict[str, int]:
    """The default troop split of one power (M1.7).

    ``generals`` are dicts with ``id``, ``rank`` and ``min``. Each general gets its minimum (1
    if none is listed); the rest is dealt one at a time cycling in rank order through the
    generals with no listed minimum, skipping any at the maximum, and only when all of those
    are full through all generals in rank order.
    """
    order = sorted(generals, key=lambda g: g["rank"])
    split = {g["id"]: (g["min"] if g.get("min") else 1) for g in order}
    left = total - sum(split.values())
    free = [g["id"] for g in order if not g.get("min")]
    for pool in (free, [g["id"] for g in order]):
        while left > 0 and any(split[g] < max_troops for g in pool):
            for gid in pool:
                if left > 0 and split[gid] < max_troops:
                    split[gid] += 1
                    left -= 1
    return split


# --- the state: variant, sides, seats -------------------------------------------------------


def is_intro(state: State) -> bool:
    """True for the introductory game; the one place the variant is asked (M2.2)."""
    return bool(state["variant"] == "intro")


def opt(state: State, key: str) -> Any:
    """The value of rule option ``key`` in this game."""
    return state["options"][key]


def major_of(state: State, power: str) -> str:
    """The major power of ``power``: itself, or a minor's major ally (M1.1)."""
    if power in MAJORS:
        return power
    return str(state["alliances"].get(power) or power)


def is_neutral(state: State, power: str) -> bool:
    """True while ``power`` is neutral (M1.3)."""
    return power in state.get("neutral", [])


def preference(state: State, power: str, key: str) -> list[str]:
    """The owner's standing answer to a choice left to it (M12.3, M9.19): the list ``key`` of
    its standing orders, best first. A neutral Saxony answers nothing: every choice for it
    takes the default (M9.10)."""
    if power == "SX" and is_neutral(state, "SX"):
        return []
    value = state["standing"].get(power, {}).get(key)
    return [x for x in value if isinstance(x, str)] if isinstance(value, list) else []


def preferred_first(candidates: list[str], wanted: list[str]) -> list[str]:
    """``candidates`` with those named in ``wanted`` first, in its order; the others keep
    their (default) order."""
    first = [w for w in dict.fromkeys(wanted) if w in candidates]
    return first + [c for c in candidates if c not in first]


_SIDES = {"AU": "habsburg", "PA": "habsburg", "FR": "coalition", "PR": "coalition"}


def side_of(state: State, power: str) -> str | None:
    """``habsburg``, ``coalition`` or None (a neutral power) (M1.3)."""
    if power in state.get("neutral", ()):
        return None
    if power not in MAJORS:  # a minor stands with its major ally (major_of)
        power = str(state["alliances"].get(power) or power)
    return _SIDES.get(power)


def are_enemies(state: State, a: str, b: str) -> bool:
    """Two powers on opposite sides, neither neutral (M1.3)."""
    if a == b:
        return False
    neutral = state.get("neutral", ())
    if a in neutral or b in neutral:
        return False
    if a not in MAJORS:
        a = str(state["alliances"].get(a) or a)
    if b not in MAJORS:
        b = str(state["alliances"].get(b) or b)
    sa = _SIDES.get(a)
    sb = _SIDES.get(b)
    return sa is not None and sb is not None and sa != sb


def are_friends(state: State, a: str, b: str) -> bool:
    """The same power, or allied powers (the same side, neither neutral)."""
    if a == b:
        return True
    sa = side_of(state, a)
    return sa is not None and sa == side_of(state, b)


def seat_powers(state: State) -> dict[str, list[str]]:
    """Seat -> the powers it plays now (M1.2)."""
    return {s: list(ps) for s, ps in seats(state)}


def seats(state: State) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """:func:`seat_powers` as tuples, remembered for each set of facts it depends on (the
    powers in the game, Saxony's ally, the number of players)."""
    powers = state["powers"]
    sx = None if is_neutral(state, "SX") else state["alliances"].get("SX")
    players = opt(state, "game.players")
    key = (tuple(powers), sx, players)
    found = _SEATS.get(key)
    if found is not None:
        return found
    if players == "two":
        seats = {"habsburg": ["AU", "PA"], "coalition": ["FR", "BA", "PR"]}
        if sx == "AU":
            seats["habsburg"].append("SX")
        elif sx == "PR":
            seats["coalition"].append("SX")
    else:
        seats = {"maria_theresa": ["AU"], "louis": ["FR", "BA"], "frederick": ["PR", "PA"]}
        if sx == "AU":
            seats["maria_theresa"].append("SX")
        elif sx == "PR":
            seats["frederick"].append("SX")
    found = _SEATS[key] = tuple(
        (s, tuple(sorted((p for p in ps if p in powers), key=POWER_INDEX.__getitem__)))
        for s, ps in seats.items())
    return found


_SEATS: dict[tuple[Any, ...], tuple[tuple[str, tuple[str, ...]], ...]] = {}


def seat_of(state: State, power: str) -> str | None:
    """The seat that plays ``power`` now, or None (M1.2)."""
    for seat, ps in seats(state):
        if power in ps:
            return seat
    return None


def stage_powers(state: State, stage: str) -> list[str]:
    """The powers acting in ``stage`` (M2.3, M2.5)."""
    out = []
    for p in STAGE_POWERS[stage]:
        if p not in state["powers"] or is_neutral(state, p) and p != "PR":
            continue
        if p == "SX":
            ally = state["alliances"].get("SX")
            if (stage == "prussia") != (ally == "PR"):
                continue
        out.append(p)
    return out


# --- pieces ---------------------------------------------------------------------------------


def general_ids(state: State) -> list[str]:
    """Every general id, in power order then rank (the rules' standard order)."""
    return [k[2] for k in sorted([(POWER_INDEX[v["power"]], v["rank"], g)
                                  for g, v in state["generals"].items()])]


def on_map(state: State) -> list[str]:
    """Generals on the map, in power order then rank."""
    return [k[2] for k in sorted([(POWER_INDEX[v["power"]], v["rank"], g)
                                  for g, v in state["generals"].items()
                                  if v["city"] is not None])]


def generals_in(state: State, city: str) -> list[str]:
    """Generals in ``city`` in power order then rank."""
    gens = state["generals"]
    here = [g for g, v in gens.items() if v["city"] == city]
    if len(here) > 1:
        here.sort(key=lambda g: (POWER_INDEX[gens[g]["power"]], gens[g]["rank"], g))
    return here


def generals_by_city(state: State) -> dict[str, list[str]]:
    """City -> its generals in power order then rank (one pass, for hot loops)."""
    out: dict[str, list[str]] = {}
    for *_, g, city in sorted([(POWER_INDEX[v["power"]], v["rank"], g, v["city"])
                               for g, v in state["generals"].items() if v["city"] is not None]):
        if city in out:
            out[city].append(g)
        else:
            out[city] = [g]
    return out


def trains_in(state: State, city: str) -> list[str]:
    """Supply trains in ``city``."""
    return sorted(t for t, v in state["trains"].items() if v["city"] == city)


def pieces_in(state: State, city: str) -> list[tuple[str, str]]:
    """(kind, id) of every piece in ``city``: generals first, then trains."""
    return [("general", g) for g in generals_in(state, city)] + [
        ("train", t) for t in trains_in(state, city)
    ]


def occupancy(state: State) -> dict[str, list[str]]:
    """City -> powers of the pieces there (generals and trains), for fast blocking tests."""
    occ: dict[str, list[str]] = {}
    for g in state["generals"].values():
        if g["city"] is not None:
            occ.setdefault(g["city"], []).append(g["power"])
    for t in state["trains"].values():
        if t["city"] is not None:
            occ.setdefault(t["city"], []).append(t["power"])
    return occ


def piece_power(state: State, pid: str) -> str | None:
    """The power of a general or train, None if no such piece."""
    if pid in state["generals"]:
        return str(state["generals"][pid]["power"])
    if pid in state["trains"]:
        return str(state["trains"][pid]["power"])
    return None


def commanding_power(state: State, gids: Iterable[str], acting: Iterable[str] = ()) -> str:
    """The power whose hand and plans a stack fights with (M5.9, default option)."""
    powers = sorted({state["generals"][g]["power"] for g in gids}, key=POWER_INDEX.__getitem__)
    if len(powers) == 1:
        return powers[0]
    rule = opt(state, "combat.mixed_command")
    gens = state["generals"]
    if rule == "senior_rank":
        best = min(gids, key=lambda g: (gens[g]["rank"], gens[g]["power"] != "FR", g))
        return str(gens[best]["power"])
    majors = [p for p in powers if p in MAJORS]
    if len(majors) == 1:
        return majors[0]
    if "AU" in majors:
        return "AU"
    acting_majors = [p for p in majors if p in set(acting)]
    if len(acting_majors) == 1:
        return acting_majors[0]
    best = min(gids, key=lambda g: (gens[g]["rank"], gens[g]["power"] != "FR", g))
    return str(gens[best]["power"])


def commanding_general(state: State, gids: Iterable[str], acting: Iterable[str] = ()) -> str:
    """The commanding power's general with the lower rank number (M12.4)."""
    ids = list(gids)
    power = commanding_power(state, ids, acting)
    gens = state["generals"]
    return min((g for g in ids if gens[g]["power"] == power), key=lambda g: (gens[g]["rank"], g))


# --- home countries -------------------------------------------------------------------------


def home_of(state: State, board: Board, city: str) -> str | None:
    """The power whose home country holds ``city``: the map's, except that Silesia is PR home
    after peace (M9.15 step 1)."""
    home = board.home_of(city)
    if home is None and state.get("peace") and board.territory_of(city) == "silesia":
        return "PR"
    return home


_REENTRY: dict[tuple[str, str], tuple[str, ...]] = {}


def adjacency(board: Any) -> dict[str, tuple[str, ...]]:
    """City -> neighbours of ``board``, built once per board (for hot searches)."""
    found = _ADJACENCY.get(board.id)
    if found is None:
        found = _ADJACENCY[board.id] = {c: tuple(board.neighbours(c)) for c in board.cities}
    return found


_ADJACENCY: dict[str, dict[str, tuple[str, ...]]] = {}


def reentry_sites(state: State, board: Any, power: str) -> tuple[str, ...]:
    """M4.1: the map's re-entry sites of ``power``; after peace PR adds its Silesian major
    fortresses (home now) and the cities tagged ``reentry_after_peace:PR`` (M9.15 step 1)."""
    key = (board.id, power)
    sites = _REENTRY.get(key)
    if sites is None:
        sites = _REENTRY[key] = tuple(board.reentry_sites(power))
    if power == "PR" and state.get("peace"):
        extra = set(board.cities_tagged("reentry_after_peace:PR"))
        extra |= {c for c in board.cities_in("silesia") if board.cities[c].fortress == "major"}
        sites = tuple(sorted(set(sites) | extra))
    return sites


# --- fortresses -----------------------------------------------------------------------------


def controller(state: State, board: Any, city: str) -> str | None:
    """Who controls the fortress ``city`` (M4.2); None if nobody does (M4.3)."""
    entry = state["control"].get(city)
    if entry is not None:
        holder: str | None = entry["power"]
        return holder
    return home_of(state, board, city)


def set_control(state: State, board: Any, city: str, power: str | None, marker: bool) -> None:
    """Record control of ``city``; control by its home power is the default and stored as
    nothing (M4.2)."""
    home = home_of(state, board, city)
    if power is not None and power == home:
        state["control"].pop(city, None)
    elif power is None:
        if home is None:
            state["control"].pop(city, None)
        else:
            state["control"][city] = {"power": None, "marker": False}
    else:
        state["control"][city] = {"power": power, "marker": bool(marker)}


# --- cards ----------------------------------------------------------------------------------


def draw_cards(state: State, power: str, n: int, rng: Rng) -> list[str]:
    """``power`` draws ``n`` cards from the top of the draw pile (M1.8): an empty draw pile is
    replaced by the shuffled discard pile (secret chance, M11.8); if both are empty the rest
    of the draw is lost."""
    piles = state["cards"]
    got: list[str] = []
    for _ in range(max(n, 0)):
        if not piles["draw"]:
            if not piles["discard"]:
                break
            pile = list(piles["discard"])
            rng.shuffle(pile)
            piles["draw"] = pile
            piles["discard"] = []
            piles["reshuffles"] = piles.get("reshuffles", 0) + 1
        got.append(piles["draw"].pop(0))
    hand = piles["hands"].setdefault(power, [])
    hand.extend(got)
    hand.sort(key=card_key)
    return got


def give_cards(state: State, power: str, cards: Iterable[str]) -> None:
    """Put ``cards`` into ``power``'s hand (kept sorted by card id)."""
    hand = state["cards"]["hands"].setdefault(power, [])
    hand.extend(cards)
    hand.sort(key=card_key)


def spend_cards(state: State, power: str, cards: Iterable[str]) -> None:
    """Move ``cards`` from ``power``'s hand to the discard pile, in order (M5.8, M11.3)."""
    hand = state["cards"]["hands"][power]
    for c in cards:
        hand.remove(c)
        state["cards"]["discard"].append(c)


# --- boards ---------------------------------------------------------------------------------

_BOARDS: dict[str, Any] = {}


def register_board(board: Any, forces: Any = None) -> None:
    """Make ``board`` (an adjudication case's mini-map, a test map) known under its id, with
    its starting forces if given."""
    if _BOARDS.get(board.id) is not board:  # a new board under a known id: drop its caches
        _ADJACENCY.pop(board.id, None)
        for key in [k for k in _REENTRY if k[0] == board.id]:
            del _REENTRY[key]
    _BOARDS[board.id] = board
    if forces is not None:
        _FORCES[board.id] = forces


_FORTRESSES: dict[str, tuple[str, ...]] = {}


_HOME_CITIES: dict[str, dict[str | None, frozenset[str]]] = {}


def home_cities(state: State, board: Any, power: str) -> frozenset[str]:
    """Every city whose :func:`home_of` is ``power`` (the map's home country, computed once per
    board, and Silesia's cities for PR after peace)."""
    by_home = _HOME_CITIES.get(board.id)
    if by_home is None:
        found: dict[str | None, set[str]] = {}
        for c in board.cities:
            found.setdefault(board.home_of(c), set()).add(c)
        by_home = _HOME_CITIES[board.id] = {h: frozenset(cs) for h, cs in found.items()}
    cities = by_home.get(power, frozenset())
    if power == "PR" and state.get("peace"):
        cities |= {c for c in by_home.get(None, ()) if board.territory_of(c) == "silesia"}
    return cities


def fortresses_of(board: Any) -> tuple[str, ...]:
    """``board.fortresses()``, computed once per board."""
    found = _FORTRESSES.get(board.id)
    if found is None:
        found = _FORTRESSES[board.id] = tuple(board.fortresses())
    return found


def board_of(state: State) -> Any:
    """The board of this game, loaded once and cached by id (rules never re-read YAML)."""
    board = _BOARDS.get(state["board"])
    if board is None:
        from pbem.games.maria.board import load_board

        board = load_board()
        if board.id != state["board"]:
            raise DataError(
                f"this game is played on the map '{state['board']}', but the installed map is "
                f"'{board.id}'"
            )
        _BOARDS[board.id] = board
    return board
