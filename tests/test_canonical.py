"""Canonical JSON: the bytes that signatures, commitments and state hashes are taken over must
never change, whatever makes them faster."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from pbem.common.canonical import canonical, digest


def _reference(data: Any) -> bytes:
    """The canonical form as first defined."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


ALPHABET = "aZ09 _-\"\\/\n\t\r\x00\x1f\x7féß中文臺灣腓特烈😀\u2028\u2029\ud7ff\ufeff"


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12)))


def _scalar(rng: random.Random) -> Any:
    kind = rng.randrange(7)
    if kind == 0:
        return rng.randrange(-10**20, 10**20) if rng.random() < 0.2 else rng.randrange(-1000, 1000)
    if kind == 1:
        return rng.choice([0.0, -0.0, 0.1, 1e-300, 1.5e300, 2.0**53, -3.25, 1 / 3]) * rng.choice([1, -1])
    if kind == 2:
        return rng.choice([True, False, None])
    return _text(rng)


def _value(rng: random.Random, depth: int) -> Any:
    if depth <= 0 or rng.random() < 0.35:
        return _scalar(rng)
    if rng.random() < 0.5:
        return [_value(rng, depth - 1) for _ in range(rng.randrange(0, 6))]
    return {_text(rng): _value(rng, depth - 1) for _ in range(rng.randrange(0, 6))}


def test_canonical_bytes_are_the_reference_json_on_random_structures() -> None:
    rng = random.Random(16)
    for _ in range(3000):
        value = _value(rng, 5)
        assert canonical(value) == _reference(value)


def test_canonical_bytes_of_edge_cases() -> None:
    cases: list[Any] = ["", "中文", {}, [], 0, -0.0, 1e16, True, None, {"b": 1, "a": [{"d": 2, "c": 3}]},
                        {"é": 1, "e": 2, "z": 3, "中": 4}, ("tuple", 1), {1: "int key", 2: "two"},
                        "\u2028", "😀"]
    for value in cases:
        assert canonical(value) == _reference(value)
    assert canonical({"b": 1, "a": "中"}) == '{"a":"中","b":1}'.encode()
    assert digest({"a": 1}) == digest({"a": 1}) and len(digest({"a": 1})) == 64


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, {"x": [math.nan]}])
def test_canonical_refuses_what_json_cannot_say(bad: Any) -> None:
    with pytest.raises(ValueError):
        canonical(bad)


@pytest.mark.parametrize("bad", [{1, 2}, b"bytes", object(), {"x": {"y": 1j}}])
def test_canonical_refuses_what_is_not_plain_data(bad: Any) -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        canonical(bad)
