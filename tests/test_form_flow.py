"""The order forms' legal choices in YAML's flow style: ids, integers and lists and mappings of
them are written directly (publish._flow), the same text as PyYAML's dumper; anything else is
left to the dumper."""

from __future__ import annotations

import random
from typing import Any

import yaml

from pbem.core import publish

WORDS = ["arnau", "S4.2", "R.2a", "belle_isle", "Z9", "E", "e1", "y", "n", "t", "yes", "No", "ON", "off", "null",
         "NULL", "True", "~", "", "1", "-3", ".5", "nan", "a b", "a:b", "a,b", "[x]", "é", "a.", "-a", "#a"]


def dumped(value: Any) -> str:
    text = str(yaml.dump(value, Dumper=publish._DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=True,
                         width=10**6)).strip()
    return text[:-3].strip() if text.endswith("\n...") else text


def value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 2 or r < 0.5:
        c = rng.random()
        return rng.choice(WORDS) if c < 0.6 else rng.randint(-5, 100) if c < 0.8 else rng.choice([True, False, None, 1.5])
    if r < 0.75:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {(rng.choice(WORDS) if rng.random() < 0.9 else 3): value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def test_flow_style_is_the_dumpers() -> None:
    rng = random.Random(16)
    written = 0
    for _ in range(3000):
        v = value(rng)
        assert publish._flow_yaml(v) == dumped(v), v
        written += publish._flow(v) is not None
    assert written > 500  # the direct way was taken, not only the dumper's
    assert publish._flow({"karl": {"min": 1, "max": 8}, "traun": ["S4.2", "arnau"]}) == "{karl: {max: 8, min: 1}, traun: [S4.2, arnau]}"
    assert publish._flow(["yes", "arnau"]) is None  # YAML would read yes as true: quoted by the dumper
