"""plain_copy equals the JSON round trip it replaced in resolve, on game states and on edge cases."""

from __future__ import annotations

import json
import math

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.games.base import plain_copy
from pbem.games.maria import adjudicate, bots
from pbem.games.maria.board import load_board, load_forces


def same(a: object, b: object) -> bool:
    """Equal values of equal types all the way down (so 1 != 1.0 != True and tuples differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


EDGES = [
    {"a": (1, [2, 3]), "b": {"c": None, "d": True, "e": 1.5, "f": -0.0}},
    {1: "int key", "s": [1, 2]},
    {"nested": [{"x": {2: [(), ()]}}], True: 1, None: 2},
    [float("inf"), 1e300, 0.1, 3, "é", ""],
    ("t",),
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_plain_copy_equals_json_round_trip(value: object) -> None:
    assert same(plain_copy(value), json.loads(json.dumps(value)))


def test_plain_copy_breaks_shared_references() -> None:
    inner = [1]
    copied = plain_copy({"a": inner, "b": inner})
    copied["a"].append(2)
    assert copied["b"] == [1]
    assert inner == [1]


def test_plain_copy_rejects_what_json_rejects() -> None:
    with pytest.raises(TypeError):
        plain_copy({"a": {1, 2}})


def test_plain_copy_on_a_played_advanced_state() -> None:
    board = load_board()
    forces = load_forces(board)
    root = Rng(b"plain-copy")
    st = adjudicate.new_game("advanced", {}, PhaseRng(root.fork("p"), root.fork("s")),
                             board, forces)
    for i in range(8):
        phase = adjudicate.current_phase(st)
        if phase is None:
            break
        orders = {p: bots.bot_orders(st, p, root.fork(f"{i}{p}")) for p in phase.powers}
        st = adjudicate.resolve(st, orders, PhaseRng(root.fork(f"a{i}"), root.fork(f"b{i}"))).state
        copied = plain_copy(st)
        assert same(copied, json.loads(json.dumps(st)))
        assert copied is not st
