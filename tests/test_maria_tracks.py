"""The political display's tracks and markers as pure functions of a position (M1.9, M1.11,
M9.10-M9.13, M9.17, M2.6): draws changed by the tracks, where the markers are, which track
withdraws whom, and blocks that end."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.games.maria import adjudicate, casefmt, model
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import effects, tracks

MAP = {"cities": {"berlin": {"suit": "S", "territory": "PR", "fortress": "major"},
                  "potsdam": {"suit": "S", "territory": "PR"},
                  "wien": {"suit": "S", "territory": "AU", "fortress": "major"}},
       "roads": [["berlin", "potsdam"]]}


def _ctx(state: dict[str, Any] | None = None, **options: Any) -> Ctx:
    case = {"scenario": "advanced", "map": MAP, "state": {"step": "prussia", **(state or {})},
            "options": options}
    board = casefmt.case_board(case)
    st = casefmt.case_state(case, board)
    return Ctx(st, model.board_of(st), casefmt._rng())


@pytest.mark.parametrize(("power", "russia", "italy", "delta"), [
    ("PR", 0, 0, 0), ("PR", 1, 0, 0), ("PR", 2, 0, -1), ("PR", 4, 0, -3),
    ("AU", 4, -1, 0), ("AU", 0, -2, -1), ("AU", 0, 2, 0),
    ("FR", 4, 1, 0), ("FR", 0, 2, -1), ("FR", 0, -3, 0), ("PA", 4, 3, 0),
])
def test_tracks_change_the_draws(power: str, russia: int, italy: int, delta: int) -> None:
    """M9.11: PR draws 1 fewer at 2, 2 at 3, 3 at 4; M9.12: AU 1 fewer at -2 or below, FR 1
    fewer at +2 or above; nobody else."""
    ctx = _ctx({"tracks": {"russia": russia, "italy": italy}})
    assert tracks.draw_change(ctx.state, power) == delta


@pytest.mark.parametrize(("russia", "italy", "at_3", "want"), [
    (2, 0, True, {}), (3, 0, False, {"russia": "PR"}), (4, -3, False, {"russia": "PR"}),
    (1, -3, True, {"italy": "AU"}), (1, 3, True, {"italy": "FR"}), (1, -2, True, {}),
    (1, 2, True, {}),
])
def test_which_track_withdraws_whom(russia: int, italy: int, at_3: bool, want: dict[str, str]) -> None:
    """M9.11: Russia at 3 or 4 withdraws a PR general; M9.12 (option at_3): Italy at -3 an AU
    one, at +3 a FR one."""
    opts = {"tracks.italy.withdraw_general": "at_3"} if at_3 else {}
    ctx = _ctx({"tracks": {"russia": russia, "italy": italy}}, **opts)
    assert tracks._track_cause(ctx.state) == want


@pytest.mark.parametrize(("box", "value"), [("P2", -2), ("P1", -1), ("S", 0), ("A1", 1), ("A2", 2)])
def test_saxony_boxes_count_from_prussia_to_austria(box: str, value: int) -> None:
    """M9.19: a track_in condition reads the Saxony boxes P2..A2 as -2..+2."""
    ctx = _ctx({"tracks": {"saxony": box}})
    for lo, hi, holds in ((value, value, True), (value + 1, value + 1, False),
                          (value - 1, value - 1, False)):
        assert effects.condition_holds(ctx, {"track_in": ["saxony", lo, hi]}, "FR") is holds, (lo, hi)


def test_every_marker_is_in_one_place() -> None:
    """M1.11: a major power's markers are counted, never created: pool, fortresses, boxes, set
    aside and out of the game add up to its starting pool (AU 8, FR 11, PR 13, PA 8)."""
    state = adjudicate.new_game("advanced", {}, casefmt._rng())
    assert tracks.marker_places(state, "PR") == {"pool": 11, "fortresses": 2, "boxes": 0,
                                                 "set_aside": 0, "out": 0}
    state["boxes"] = {"major_victory:PR": 1, "card_bohemian_crown:FR": 1, "emperor:PR": 1}
    state["set_aside"] = {"PR": 2}
    state["out_of_game"] = {"AU": 1, "FR": 0, "PR": 3, "PA": 0}
    state["control"]["wien"] = {"power": "PR", "marker": False}
    assert tracks.marker_places(state, "PR") == {"pool": 11, "fortresses": 2, "boxes": 2,
                                                 "set_aside": 2, "out": 3}
    assert tracks.marker_places(state, "AU") == {"pool": 8, "fortresses": 0, "boxes": 0,
                                                 "set_aside": 0, "out": 1}
    fresh = adjudicate.new_game("advanced", {}, casefmt._rng())
    for p, n in tracks.MARKER_POOLS.items():
        assert sum(tracks.marker_places(fresh, p).values()) == n, p
    assert tracks.MARKER_POOLS == {"AU": 8, "FR": 11, "PR": 13, "PA": 8}


def test_the_introductory_game_has_no_markers() -> None:
    """M1.11 belongs to the advanced game: the introductory one counts no marker anywhere."""
    state = adjudicate.new_game("intro", {}, casefmt._rng())
    assert state["pools"] is None
    assert tracks.marker_places(state, "FR") == {"pool": 0, "fortresses": 0, "boxes": 0,
                                                 "set_aside": 0, "out": 0}


def test_a_track_withdrawal_waits_for_a_general_and_is_not_repeated() -> None:
    """M9.11: with no PR general on the map the next one to appear is withdrawn; one already
    withdrawn by the track is enough (no second one)."""
    ctx = _ctx({"tracks": {"russia": 3}, "generals": {"fritz": "PR1 - 0"}})
    tracks.sync_track_withdrawals(ctx)
    assert ctx.state["withdraw_waiting"] == {"russia": "PR"}
    gens = ctx.state["generals"]
    gens["fritz"].update(city="berlin", troops=5)
    gens["kurt"] = {**gens["fritz"], "rank": 2, "city": "potsdam", "troops": 6}
    tracks.sync_track_withdrawals(ctx)
    assert ctx.state["withdraw_waiting"] == {}
    assert gens["fritz"]["city"] is None and gens["fritz"]["withdrawn"] == {"kind": "russia"}
    tracks.sync_track_withdrawals(ctx)
    assert gens["kurt"]["city"] == "potsdam" and "withdrawn" not in gens["kurt"]
    assert [e["type"] for e in ctx.events] == ["withdrawn"]


@pytest.mark.parametrize(("stages", "blocked"), [((1, 2), True), ((2, 1), True), ((1, 1), False)])
def test_a_piece_under_two_blocks_is_free_when_both_have_ended(stages: tuple[int, int], blocked: bool) -> None:
    """E7/M2.6: a block ends after its stages; a piece blocked twice stays blocked while the
    other block lasts."""
    ctx = _ctx({"generals": {"fritz": "PR1 berlin 5 blocked"}})
    ctx.state["blocks"] = [{"kind": "general", "id": "fritz", "power": "PR", "stages": n} for n in stages]
    tracks.end_of_stage(ctx, ["PR"])
    assert ctx.state["generals"]["fritz"]["blocked"] is blocked
    assert [b["stages"] for b in ctx.state["blocks"]] == [n - 1 for n in stages if n > 1]
