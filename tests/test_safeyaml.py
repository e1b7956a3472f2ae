"""The restricted YAML loader (issue: core, restricted YAML)."""

from __future__ import annotations

import pytest

from pbem.common.safeyaml import load_document, load_yaml
from pbem.errors import OrderFileError


def test_plain_data_loads_with_line_numbers() -> None:
    doc = load_document(b"a: 1\nb: [1, 2.5, yes, null]\nc:\n  d: x\n", "f.yaml")
    assert doc.data == {"a": 1, "b": [1, 2.5, True, None], "c": {"d": "x"}}
    assert doc.lines["c.d"] == 4
    assert doc.line_of("c.d.missing[3]") == 4


def test_timestamps_stay_strings() -> None:
    assert load_yaml("when: 2026-11-30T12:00:00Z\nday: 2026-11-30") == {
        "when": "2026-11-30T12:00:00Z",
        "day": "2026-11-30",
    }


@pytest.mark.parametrize(
    ("text", "needle", "line"),
    [
        (b"a: &x 1\nb: *x\n", "anchors", 1),
        (b"a: 1\nb: !!python/object:os.system x\n", "tags", 2),
        (b"a: 1\na: 2\n", "appears twice", 2),
        (b"\xff\xfea\x00", "UTF-16", None),
        (b"a: caf\xe9\n", "not UTF-8", 1),
        (b"a: [\n", "not valid YAML", 2),
        (b"1: x\n", "not a string", 1),
        (b"a: 1\n---\nb: 2\n", "more than one", 2),
        (b"", "empty", None),
        (b"a: \x07\n", "control character", 1),
    ],
)
def test_refusals_are_one_line_with_file_and_line(text: bytes, needle: str, line: int | None) -> None:
    with pytest.raises(OrderFileError) as info:
        load_yaml(text, "orders.yaml")
    message = str(info.value)
    assert needle in message
    assert "\n" not in message
    assert message.startswith("orders.yaml")
    assert info.value.line == line


def test_size_and_depth_limits_are_configurable() -> None:
    big = b"a: " + b"x" * 70_000
    with pytest.raises(OrderFileError, match="limit is 65,536 bytes"):
        load_yaml(big, "big.yaml")
    assert load_yaml(big, "big.yaml", max_bytes=100_000)["a"].startswith("x")
    deep = b"[" * 25 + b"]" * 25
    with pytest.raises(OrderFileError, match="deeper than 20"):
        load_yaml(deep, "deep.yaml")
    assert load_yaml(deep, "deep.yaml", max_depth=30) is not None
