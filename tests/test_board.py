"""The Maria board: loading and checking map and forces files (M1.4, M1.5, M1.7, M3.3, load
checks of "Data the scenario files must provide"), the map queries, and ``pbem map check``."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.cli import main
from pbem.common.safeyaml import load_yaml_file
from pbem.errors import DataError
from pbem.games.maria.board import (
    Board,
    load_board,
    load_forces,
    parse_board,
    parse_forces,
)

MAPS = Path(__file__).parent / "maps"
VALID = MAPS / "valid.yaml"
FORCES = MAPS / "forces.yaml"


@pytest.fixture(scope="module")
def board() -> Board:
    return load_board(VALID)


def problems_of(path: Path, playable: bool = True) -> list[str]:
    with pytest.raises(DataError) as info:
        parse_board(load_yaml_file(path), path.name, playable=playable)
    return info.value.problems


# -- the valid test map --------------------------------------------------------------------


def test_valid_map_loads_with_its_counts(board: Board) -> None:
    counts = board.counts()
    assert counts["cities"] == 51
    assert counts["roads"] == 70
    assert counts["cross-map links"] == 2
    assert counts["electoral"] == 9
    assert counts["sectors"] == 6 * 12 + 8 * 12
    assert board.electoral() == (
        "berlin", "dresden", "hannover", "koeln", "mainz", "mannheim", "muenchen", "prag", "trier"
    )


def test_sector_suit_territory_from_coordinates(board: Board) -> None:
    # Wien 16.37E 48.21N: Bohemia's 9.8..19.6 in 8 columns of 1.225 degrees -> column 6 (L);
    # 46.0..54.4 in 12 rows of 0.7 degrees -> row 4.
    assert board.sector_of("wien") == "L4"
    assert board.suit_of("wien") == board.suits["L4"]
    assert board.territory_of("wien") == "AU"
    assert board.home_of("wien") == "AU"
    assert board.home_of("breslau") is None
    assert board.map_of("paris") == "flanders"
    assert board.sector_of("paris") == "A4"
    assert board.cities["wien"].display_name("zh-TW") == "維也納"
    assert board.cities["namur"].display_name("zh-TW") == "Namur"  # no Chinese name given


def test_tags_and_reentry_sites(board: Board) -> None:
    """M4.1: home major fortresses plus tagged extras."""
    assert board.cities_tagged("bohemian_crown") == frozenset({"prag"})
    assert board.cities_tagged("reentry_after_peace:PR") == frozenset({"breslau"})
    assert "pressburg" in board.cities_tagged("hungary")
    assert board.reentry_sites("PR") == ("berlin", "magdeburg")
    assert board.reentry_sites("PA") == ("hannover",)
    assert "bruxelles" in board.reentry_sites("AU")


def test_neighbours_and_roads(board: Board) -> None:
    assert board.neighbours("wien") == ("bruenn", "graz", "linz", "pressburg")
    assert board.is_main("wien", "bruenn") and board.is_main("bruenn", "wien")
    assert not board.is_main("wien", "graz")
    assert board.is_adjacent("wien", "graz")
    assert board.is_cross_map("strasbourg", "ulm") and board.is_cross_map("ulm", "freiburg")
    assert not board.is_cross_map("wien", "bruenn")
    assert board.main_neighbours("wien") == ("bruenn", "linz", "pressburg")


def test_distances(board: Board) -> None:
    assert board.distance("wien", "wien") == 0
    assert board.distance("wien", "bruenn") == 1
    assert board.distance("wien", "olmuetz") == 2
    assert board.distance("breslau", "prag") == 3  # breslau-glogau-dresden-prag
    # cross-map links count as roads (M1.4): Paris-Reims-Metz-Nancy-Strasbourg-Ulm-München
    assert board.distance("paris", "muenchen") == 6
    assert board.shortest_path("paris", "muenchen") == (
        "paris", "reims", "metz", "nancy", "strasbourg", "ulm", "muenchen"
    )
    assert board.within("wien", 1) == frozenset({"wien", "bruenn", "graz", "linz", "pressburg"})
    assert board.distances_from("wien") is board.distances_from("wien")  # cached


def test_distance_agrees_with_shortest_path_for_every_pair(board: Board) -> None:
    ids = sorted(board.cities)
    for a in ids:
        for b in ids:
            path = board.shortest_path(a, b)
            assert path is not None and path[0] == a and path[-1] == b
            assert len(path) - 1 == board.distance(a, b) == board.distance(b, a)
            assert all(board.is_adjacent(x, y) for x, y in zip(path, path[1:], strict=False))


def test_shortest_path_takes_lowest_ids(board: Board) -> None:
    # Wien to Prag in 3: via bruenn-iglau or linz-budweis; 'bruenn' < 'linz'
    assert board.shortest_path("wien", "prag") == ("wien", "bruenn", "iglau", "prag")


def test_shortest_path_avoid_allowed_and_max_steps(board: Board) -> None:
    assert board.shortest_path("wien", "prag", avoid={"iglau"}) == (
        "wien", "linz", "budweis", "prag"
    )
    no_austria = board.shortest_path(
        "wien", "prag", allowed=lambda c: c in ("prag", "linz", "budweis", "passau")
    )
    assert no_austria == ("wien", "linz", "budweis", "prag")
    assert board.shortest_path("wien", "prag", avoid={"iglau", "budweis", "pilsen",
                                                      "koeniggraetz", "dresden"}) is None
    assert board.shortest_path("wien", "prag", max_steps=2) is None
    assert board.shortest_path("wien", "prag", max_steps=3) is not None
    assert board.shortest_path("wien", "prag", avoid={"prag"}) is None


def test_main_road_reach(board: Board) -> None:
    """M3.6: force march along main roads only, up to 8 cities."""
    reach = board.main_road_reach("wien", 8)
    assert "wien" not in reach
    assert reach["bruenn"] == ("wien", "bruenn")
    assert reach["olmuetz"] == ("wien", "bruenn", "olmuetz")
    assert reach["regensburg"] == ("wien", "linz", "passau", "regensburg")
    assert "graz" not in reach  # an ordinary road only
    assert "iglau" not in reach  # bruenn-iglau is not a main road
    two = board.main_road_reach("wien", 2)
    assert set(two) == {"bruenn", "linz", "pressburg", "olmuetz", "passau"}
    blocked = board.main_road_reach("wien", 8, blocked=lambda c: c == "linz")
    assert "passau" not in blocked and "bruenn" in blocked
    for city, path in reach.items():
        assert all(board.is_main(x, y) for x, y in zip(path, path[1:], strict=False))
        assert len(path) - 1 <= 8 and path[-1] == city


def test_load_board_is_cached_per_path() -> None:
    assert load_board(VALID) is load_board(str(VALID))


# -- broken maps: each variant gives its own message ---------------------------------------

BROKEN = [
    ("broken_road_typo.yaml",
     "broken_road_typo.yaml: roads[48]: 'bruen' is not a city (did you mean 'bruenn'?)"),
    ("broken_duplicate_city.yaml",
     "broken_duplicate_city.yaml: cities[28] (wien): duplicate id: also cities[26]"),
    ("broken_duplicate_road.yaml",
     "broken_duplicate_road.yaml: roads[70]: duplicates roads[48] (bruenn-olmuetz)"),
    ("broken_outside_window.yaml",
     "broken_outside_window.yaml: cities[50] (czenstochau): lon 19.9, lat 50.81 lies outside "
     "any sector: map 'bohemia' spans lon 9.8..19.6, lat 46.0..54.4"),
    ("broken_missing_suit.yaml",
     "broken_missing_suit.yaml: suits: 1 sector of map 'bohemia' has no suit: G5"),
    ("broken_no_sector_suit_grid.yaml",
     "broken_no_sector_suit_grid.yaml: suits.G5: suit 'X' is not one of S, H, D, C"),
    ("broken_electoral_count.yaml",
     "broken_electoral_count.yaml: cities: 8 electoral fortresses, need exactly 9 (berlin, "
     "dresden, hannover, koeln, mainz, mannheim, muenchen, prag)"),
    ("broken_electoral_not_fortress.yaml",
     "broken_electoral_not_fortress.yaml: cities[10] (frankfurt): is electoral but not a "
     "fortress (every electoral city is a fortress)"),
    ("broken_disconnected.yaml",
     "broken_disconnected.yaml: roads: the road network is not connected: 1 city cannot be "
     "reached from 'amsterdam': czenstochau"),
    ("broken_cross_map_north.yaml",
     "broken_cross_map_north.yaml: roads[70]: cross-map link outside the south: 'koeln' is in "
     "sector D7, north of row 4"),
    ("broken_cross_map_unmarked.yaml",
     "broken_cross_map_unmarked.yaml: roads[70]: joins 'mainz' (flanders) to 'wuerzburg' "
     "(bohemia) but is not marked cross_map"),
    ("broken_breslau_minor.yaml",
     "broken_breslau_minor.yaml: cities[41] (breslau): Breslau must be a major fortress, not "
     "fortress: minor"),
    ("broken_breslau_territory.yaml",
     "broken_breslau_territory.yaml: cities[41] (breslau): Breslau must be in territory "
     "silesia, not AU"),
    ("broken_unknown_territory.yaml",
     "broken_unknown_territory.yaml: cities[46] (leipzig): territory 'saxony' is not a "
     "territory (AU, FR, BA, SX, PR, PA, silesia, poland, neutral)"),
    ("broken_unknown_map.yaml",
     "broken_unknown_map.yaml: cities[33] (pilsen): map 'bohemai' is not a map (bohemia, "
     "flanders) (did you mean 'bohemia'?)"),
    ("broken_fortress_class.yaml",
     "broken_fortress_class.yaml: cities[34] (eger): fortress 'large' is not a fortress class "
     "(none, minor, major)"),
    ("broken_bad_id.yaml",
     "broken_bad_id.yaml: cities[26] (Linz): id 'Linz' is not a valid city id (lowercase ASCII "
     "letters, digits, _; starting with a letter)"),
    ("broken_unknown_field.yaml",
     "broken_unknown_field.yaml: cities[27] (wien): unknown field 'fortres' (did you mean "
     "'fortress'?)"),
]


@pytest.mark.parametrize(("name", "message"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_map_variant_names_its_problem(name: str, message: str) -> None:
    assert message in problems_of(MAPS / name)


def test_every_broken_variant_is_listed() -> None:
    on_disk = {p.name for p in MAPS.glob("broken_*.yaml")}
    assert on_disk == {b[0] for b in BROKEN} | {"broken_many.yaml"}


def test_every_problem_is_reported_at_once() -> None:
    problems = problems_of(MAPS / "broken_many.yaml")
    assert problems == [
        "broken_many.yaml: roads[48]: 'bruen' is not a city (did you mean 'bruenn'?)",
        "broken_many.yaml: roads[70]: duplicates roads[64] (dresden-prag)",
        "broken_many.yaml: cities[41] (breslau): Breslau must be in territory silesia, not AU",
    ]


def test_a_rejected_city_does_not_cascade() -> None:
    # Pilsen's bad map must not also make its roads, connectivity or counts complain
    assert len(problems_of(MAPS / "broken_unknown_map.yaml")) == 1


def test_data_error_message_lists_problems() -> None:
    with pytest.raises(DataError) as info:
        load_board(MAPS / "broken_many.yaml")
    assert "broken_many.yaml: the map file has 3 problems" in str(info.value)
    assert "  - broken_many.yaml: roads[48]" in str(info.value)


# -- mini-maps of adjudication cases -------------------------------------------------------

MINI: dict[str, Any] = {
    "cities": [
        {"id": "p", "name": "P", "sector": "K5", "suit": "H", "territory": "AU",
         "fortress": "major"},
        {"id": "q", "name": "Q", "sector": "K5", "suit": "H", "territory": "silesia"},
        {"id": "r", "name": "R", "sector": "L5", "suit": "S", "territory": "PR",
         "fortress": "minor", "electoral": True},
        {"id": "s", "name": "S", "sector": "L6", "suit": "C", "territory": "neutral"},
        {"id": "t", "name": "T", "sector": "L6", "suit": "C", "territory": "neutral"},
    ],
    "roads": [["p", "q", "main"], ["q", "r"], ["s", "t"]],
}


def test_mini_map_needs_only_internal_consistency() -> None:
    """Case mini-maps: no 9 electoral fortresses, no Breslau, may be disconnected."""
    mini = parse_board(copy.deepcopy(MINI), "case.yaml", playable=False)
    assert mini.suit_of("r") == "S" and mini.sector_of("p") == "K5"
    assert mini.map_of("p") == "bohemia"
    assert mini.distance("p", "r") == 2
    assert mini.distance("p", "s") is None
    assert mini.shortest_path("p", "s") is None
    assert not mini.cities["p"].placed


def test_rings_hold_the_cities_at_each_distance(board: Board) -> None:
    """A city's rings are the cities at 0, 1, 2, ... road steps (what ``distance`` says), built
    a few steps deep and widened when asked; ``ring_steps`` finds the nearest of a mask's
    cities, and None on a mini-map where none is in reach."""
    shallow = board.rings(2)
    for b in (board, parse_board(copy.deepcopy(MINI), "case.yaml", playable=False)):
        numbers = b.numbers()
        for city in sorted(b.cities)[::max(1, len(b.cities) // 40)]:
            rings = b.rings(10_000)[numbers[city]]
            at = {c: d for d, ring in enumerate(rings) for c, j in numbers.items()
                  if ring >> j & 1}
            assert at == {c: d for c in b.cities if (d := b.distance(city, c)) is not None}
    assert shallow is board.rings(0)  # the same lists, widened in place
    fresh = parse_board(load_yaml_file(VALID), "valid.yaml")  # rings 2 steps deep: a search
    fresh.rings(2)
    for b in (board, fresh):
        wien, far = b.numbers()["wien"], b.targets(["paris"])
        assert b.ring_steps(wien, far) == b.distance("wien", "paris") > 2
        assert b.ring_steps(wien, b.targets([])) is None
    assert max(map(len, fresh.rings(0))) == 3
    mini = parse_board(copy.deepcopy(MINI), "case.yaml", playable=False)
    assert mini.ring_steps(mini.numbers()["s"], mini.targets(["p", "q", "r"])) is None
    assert mini.ring_steps(mini.numbers()["q"], mini.targets(["p", "r"])) == 1


def test_mini_map_still_checks_names_and_classes() -> None:
    data = copy.deepcopy(MINI)
    data["roads"].append(["p", "x"])
    data["cities"][3]["fortress"] = "huge"
    with pytest.raises(DataError) as info:
        parse_board(data, "case.yaml", playable=False)
    assert info.value.problems == [
        "case.yaml: cities[3] (s): fortress 'huge' is not a fortress class (none, minor, major)",
        "case.yaml: roads[3]: 'x' is not a city",
    ]


def test_mini_map_is_refused_as_a_playable_map() -> None:
    with pytest.raises(DataError) as info:
        parse_board(copy.deepcopy(MINI), "case.yaml")
    text = "\n".join(info.value.problems)
    assert "maps: must be a mapping" in text


# -- forces ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def forces_data() -> dict[str, Any]:
    return load_yaml_file(FORCES)


def test_forces_load(board: Board) -> None:
    forces = load_forces(board, FORCES)
    assert len(forces.generals) == 20 and len(forces.trains) == 9
    assert [g.id for g in forces.generals_of("PR")] == ["friedrich", "schwerin", "leopold",
                                                       "dessauer"]
    assert [g.id for g in forces.generals_of("FR", intro=True)] == ["belle_isle", "broglie"]
    assert forces.side_of("SX") == "coalition" and forces.side_of("PA") == "habsburg"
    assert forces.fortress_start["glogau"].controller == "PR"
    view = forces.start_view()
    assert len(view["generals"]) == 20 and len(view["trains"]) == 9
    assert view["control"]["brieg"] == {"power": "PR", "marker": True}
    assert len(forces.start_view(intro=True)["generals"]) == 13


def _general(data: dict[str, Any], gid: str) -> dict[str, Any]:
    return next(g for g in data["generals"] if g["id"] == gid)


def _set_start(gid: str, city: str) -> Any:
    def change(d: dict[str, Any]) -> None:
        _general(d, gid)["start"] = city
    return change


FORCES_BROKEN = [
    ("unknown city", _set_start("traun", "wein"),
     "forces.yaml: generals[7] (traun): start 'wein' is not a city (did you mean 'wien'?)"),
    ("M1.4 PR in Flanders", _set_start("leopold", "koeln"),
     "forces.yaml: generals[14] (leopold): starts in 'koeln' on the flanders map, where PR "
     "pieces may not go (M1.4)"),
    ("M1.4 PA in Bohemia", _set_start("stair", "linz"),
     "forces.yaml: generals[18] (stair): starts in 'linz' on the bohemia map, where PA pieces "
     "may not go (M1.4)"),
    ("M3.3 three generals", _set_start("leopold", "breslau"),
     "forces.yaml: generals: 3 generals start in 'breslau' (friedrich, schwerin, leopold); the "
     "stacking limit is 2 (M3.3)"),
    ("M3.3 enemies together", _set_start("neipperg", "glogau"),
     "forces.yaml: generals: generals of enemy powers start together in 'glogau' (neipperg, "
     "leopold) (M3.3)"),
    ("unknown power", lambda d: _general(d, "rutowski").update(power="SA"),
     "forces.yaml: generals[19] (rutowski): power 'SA' is not a power"),
    ("unknown power in powers", lambda d: d["powers"].update(RU={"name": "Russia",
                                                                  "troops": 5}),
     "forces.yaml: powers.RU: 'RU' is not a power (FR, BA, PR, SX, AU, PA)"),
    ("M1.7 minimums above total", lambda d: d["powers"]["PR"].update(troops=9),
     "forces.yaml: powers.PR: the minimum troops of its generals add up to 12, more than its "
     "troop total 9 (M1.7)"),
    ("M1.7 total above 8 per general", lambda d: d["powers"]["PA"].update(troops=25),
     "forces.yaml: powers.PA: troop total 25 is more than 8 x 3 generals = 24 (M1.7)"),
    ("too many trains", lambda d: d["trains"].append({"id": "pr_2", "power": "PR",
                                                      "start": "berlin"}),
     "forces.yaml: train_max.PR: PR starts with 2 supply trains, more than its maximum 1"),
    ("duplicate id", lambda d: d["trains"].append({"id": "karl", "power": "AU",
                                                   "start": "wien"}),
     "forces.yaml: trains[9] (karl): duplicate id: also generals[6]"),
    ("fortress start not a fortress", lambda d: d["fortress_start"].update(
        frankfurt={"controller": "FR"}),
     "forces.yaml: fortress_start.frankfurt: 'frankfurt' is not a fortress"),
]


@pytest.mark.parametrize(("label", "change", "message"), FORCES_BROKEN,
                         ids=[f[0] for f in FORCES_BROKEN])
def test_broken_forces_name_their_problem(board: Board, forces_data: dict[str, Any],
                                          label: str, change: Any, message: str) -> None:
    data = copy.deepcopy(forces_data)
    change(data)
    with pytest.raises(DataError) as info:
        parse_forces(data, board, "forces.yaml")
    assert message in info.value.problems, info.value.problems


def test_allied_generals_may_start_together(board: Board, forces_data: dict[str, Any]) -> None:
    """M3.3: allied powers (BA with FR, AU with PA) may share a city."""
    data = copy.deepcopy(forces_data)
    _general(data, "arenberg")["start"] = "amsterdam"  # AU joins PA's Stair
    forces = parse_forces(data, board, "forces.yaml")
    assert {g.id for g in forces.generals if g.start == "amsterdam"} == {"arenberg", "stair"}


# -- pbem map check ------------------------------------------------------------------------


def test_map_check_prints_counts() -> None:
    result = CliRunner().invoke(main, ["map", "check", str(VALID)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == ["51 cities", "70 roads"]
    for line in ("2 cross-map links", "9 electoral", "168 sectors", "20 generals",
                 "9 supply trains"):
        assert line in lines


def test_map_check_broken_prints_one_line_per_problem() -> None:
    result = CliRunner().invoke(main, ["map", "check", str(MAPS / "broken_many.yaml")])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "broken_many.yaml: roads[48]: 'bruen' is not a city (did you mean 'bruenn'?)",
        "broken_many.yaml: roads[70]: duplicates roads[64] (dresden-prag)",
        "broken_many.yaml: cities[41] (breslau): Breslau must be in territory silesia, not AU",
    ]


def test_map_check_reports_bad_yaml_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "map.yaml"
    bad.write_text("cities: [\n")
    result = CliRunner().invoke(main, ["map", "check", str(bad)])
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1
    assert "not valid YAML" in result.stderr


# -- the queries against brute force on small random maps -----------------------------------


@st.composite
def small_maps(draw: Any) -> tuple[Board, frozenset[str]]:
    n = draw(st.integers(2, 7))
    ids = [f"c{i}" for i in range(n)]
    pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    mains = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    avoid = frozenset(draw(st.lists(st.sampled_from(ids), max_size=2)))
    data = {
        "cities": [{"id": c, "name": c.upper(), "sector": "K5", "suit": "S",
                    "territory": "neutral"} for c in ids],
        "roads": [[a, b, "main"] if m else [a, b] for (a, b), m in zip(chosen, mains,
                                                                        strict=True)],
    }
    return parse_board(data, "random.yaml", playable=False), avoid


def _simple_paths(board: Board, a: str, b: str, ok: Any, main_only: bool = False
                  ) -> list[tuple[str, ...]]:
    found = []

    def walk(path: tuple[str, ...]) -> None:
        if path[-1] == b:
            found.append(path)
            return
        step = board.main_neighbours if main_only else board.neighbours
        for n in step(path[-1]):
            if n not in path and ok(n):
                walk(path + (n,))

    walk((a,))
    return found


@settings(max_examples=150, deadline=None)
@given(small_maps())
def test_paths_match_brute_force(case: tuple[Board, frozenset[str]]) -> None:
    board, avoid = case
    ids = sorted(board.cities)
    for a in ids:
        for b in ids:
            if a == b:
                continue
            every = _simple_paths(board, a, b, lambda c: True)
            want = min(every, key=lambda p: (len(p), p)) if every else None
            assert board.shortest_path(a, b) == want
            assert board.distance(a, b) == (len(want) - 1 if want else None)
            allowed = _simple_paths(board, a, b, lambda c: c not in avoid)
            want = min(allowed, key=lambda p: (len(p), p)) if allowed else None
            assert board.shortest_path(a, b, avoid=avoid) == want
        reach = board.main_road_reach(a, 3, blocked=lambda c: c in avoid)
        for b in ids:
            if b == a:
                continue
            paths = [p for p in _simple_paths(board, a, b, lambda c: c not in avoid, True)
                     if len(p) <= 4]
            want = min(paths, key=lambda p: (len(p), p)) if paths else None
            assert reach.get(b) == want


# -- the shipped map and forces -------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> Board:
    return load_board()


def test_shipped_map_check_exits_0_with_counts(shipped: Board) -> None:
    result = CliRunner().invoke(main, ["map", "check", "seeds/maria/map.yaml"])
    assert result.exit_code == 0, result.stderr
    counts = dict(reversed(line.split(" ", 1)) for line in result.stdout.splitlines())
    assert int(counts["cities"]) == len(shipped.cities) > 300
    assert int(counts["electoral"]) == 9
    assert int(counts["sectors"]) == 168
    assert int(counts["cross-map links"]) >= 1
    assert int(counts["main roads"]) < int(counts["roads"])
    # M1.6: 20 generals and 10 supply trains, of which PR's second comes only at peace
    assert int(counts["generals"]) == 20
    assert int(counts["supply trains"]) == 9


def test_shipped_map_facts(shipped: Board) -> None:
    """Load checks on the real data, and distances a player would recognise."""
    breslau = shipped.cities["breslau"]
    assert breslau.fortress == "major" and breslau.territory == "silesia"
    assert shipped.cities_tagged("bohemian_crown") == frozenset({"prag"})
    # Breslau and Prag lie far apart: more than 12 road steps
    distance = shipped.distance("breslau", "prag")
    assert distance is not None and distance > 12
    # Wien to Brünn is a force march along main roads (M3.6)
    path = shipped.main_road_reach("wien", 8)["bruenn"]
    assert path[0] == "wien" and path[-1] == "bruenn"
    assert all(shipped.is_main(a, b) for a, b in zip(path, path[1:], strict=False))
    for road in shipped.roads:
        if road.cross_map:
            assert shipped.map_of(road.a) != shipped.map_of(road.b)
            assert all(int(shipped.sector_of(c)[1:]) <= shipped.south_rows
                       for c in (road.a, road.b))
    assert len(shipped.components()) == 1


def test_shipped_forces_obey_m1_4_and_m3_3(shipped: Board) -> None:
    forces = load_forces(shipped)
    assert len(forces.generals) == 20
    for g in forces.generals:
        if g.power in ("PR", "SX", "BA"):
            assert shipped.map_of(g.start) == "bohemia", g.id
        if g.power == "PA":
            assert shipped.map_of(g.start) == "flanders", g.id
    starts = [g.start for g in forces.generals]
    assert all(starts.count(c) <= 2 for c in starts)


def test_within_agrees_with_distances(shipped: Board) -> None:
    fresh = parse_board(load_yaml_file("seeds/maria/map.yaml"), "map.yaml")
    for city in sorted(fresh.cities)[::25]:
        near = fresh.within(city, 3)  # bounded search: nothing cached yet
        assert near == frozenset(c for c, d in shipped.distances_from(city).items() if d <= 3)


def test_shipped_cities_all_have_unique_chinese_names(shipped: Board) -> None:
    # seeds/maria/README.md: `cities[].name_zh` is "the Traditional Chinese name, used by
    # `--lang zh-TW`"; the shipped map gives one to every town, so that a Chinese report or map
    # never falls back to a Latin name, and no two towns read the same.
    names = {c.id: c.name_zh or "" for c in shipped.cities.values()}
    missing = sorted(i for i, n in names.items() if not any("\u4e00" <= ch <= "\u9fff" for ch in n))
    assert not missing
    values = list(names.values())
    assert len(set(values)) == len(values), sorted(n for n in set(values) if values.count(n) > 1)


def test_a_sector_that_is_not_a_grid_code_is_refused() -> None:
    # a case mini-map (no grid) gives its cities' sectors by hand: a number there is a typo
    doc = {"cities": [{"id": "a", "name": "A", "territory": "AU", "lon": 1, "lat": 2, "sector": 5, "suit": "S"},
                      {"id": "b", "name": "B", "territory": "AU", "sector": "L9", "suit": "S"}],
           "roads": [["a", "b"]]}
    with pytest.raises(DataError) as info:
        parse_board(doc, "mini.yaml", playable=False)
    assert info.value.problems == ["mini.yaml: cities[0] (a): sector 5 is not a grid code such as L9"]
