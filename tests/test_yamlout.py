"""The receipt's echo of the orders (``pbem.common.yamlout.dump_block``) writes the text of
libyaml's emitter, whether it writes the lines itself or hands the value to libyaml."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from pbem.common import yamlout
from pbem.common.safeyaml import load_yaml

ROOT = Path(__file__).resolve().parent.parent
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# words the emitter writes plain, and words it quotes, folds or resolves to another type
WORDS = [
    "Wien", "Linz", "Passau", "order 7", "P00001", "march", "1741-1/prussia", "a-b", "x_y", "(a)", "/path",
    "a, b", "a.b", "+1", "~x", "x~", "a=b", "$x", "a;b", "普魯士", "維也納 軍團", "Ölmütz", "ein Satz mit Leerzeichen",
    "yes", "no", "on", "off", "true", "False", "null", "NULL", "~", "=", "", " lead", "trail ", "a  b",
    "12", "012", "0x1F", "1_000", "1:20", "190:20:30", "1.5", ".5", "1e3", ".inf", ".NaN", "2026-12-01",
    "2026-12-01 10:00:00", "a: b", "a #b", "a:b", "#x", "-x", "- x", "--- x", "...", "? x", "!x", "&a", "*a",
    "|", ">", "'q'", '"q"', "%x", "@x", "`x", "[x]", "{x}", "x\ty", "x\ny", "x\u2028y", "x\x85y", "\ufeffx",
    "x\u00a0y", "long " * 20, "w" * 90, "0o17", "-1", "<<", "y", "N",
]


PLAIN = [w for w in WORDS[:23] if w[0] not in "+~$"]


def _value(rnd: random.Random, depth: int, words: list[str] = WORDS, empty: int = 0, in_list: bool = False) -> Any:
    pick = rnd.random()
    if depth < 4 and pick < 0.25:
        return {rnd.choice(words): _value(rnd, depth + 1, words, empty) for _ in range(rnd.randrange(1 - empty, 4))}
    if depth < 4 and pick < 0.45 and (empty or not in_list):  # (a list in a list goes to libyaml)
        return [_value(rnd, depth + 1, words, empty, True) for _ in range(rnd.randrange(1 - empty, 4))]
    extra = [1.5, -0.0] if empty else []
    return rnd.choice([*words, *words, 0, 7, -3, 2**40, True, False, None, *extra])


def _libyaml(data: Any) -> str:
    return str(yaml.dump(data, Dumper=_DUMPER, sort_keys=True, allow_unicode=True, default_flow_style=False))


def test_random_values_give_libyamls_text() -> None:
    rnd = random.Random(16)
    for _ in range(2000):
        data = {rnd.choice(WORDS[:24]): _value(rnd, 1, WORDS, 1) for _ in range(rnd.randrange(1, 4))}
        assert yamlout.dump_block(data) == _libyaml(data), data


def test_usual_orders_are_written_directly() -> None:
    rnd = random.Random(17)
    for _ in range(1000):
        data = {rnd.choice(PLAIN): _value(rnd, 1, PLAIN) for _ in range(rnd.randrange(1, 4))}
        out: list[str] = []
        yamlout._mapping(data, "", out, "")  # raises if it hands the value over
        assert "".join(out) == _libyaml(data), data


@pytest.mark.parametrize("path", sorted((ROOT / "orders").glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_order_files_give_libyamls_text(path: Path) -> None:
    data = load_yaml(path.read_bytes(), str(path))
    for orders in (data.get("orders"), data):
        if isinstance(orders, dict):
            assert yamlout.dump_block(orders) == _libyaml(orders)


def test_bot_orders_give_libyamls_text() -> None:
    from tests.order_fuzz import cases

    seen = 0
    for found in cases().values():
        for case in found:
            assert yamlout.dump_block(case.orders) == _libyaml(case.orders)
            seen += 1
    assert seen
