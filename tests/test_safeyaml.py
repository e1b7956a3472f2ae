"""The restricted YAML loader (issue: core, restricted YAML)."""

from __future__ import annotations

import pytest

from pbem.common.safeyaml import decode_text, load_document, load_yaml
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


def test_every_control_character_is_refused_on_its_line_and_no_other_character_is() -> None:
    """Control characters are looked for in the file's bytes: each of them is found wherever it
    stands (after non-ASCII text too, and after a byte-order mark), and no other character is
    taken for one (those whose UTF-8 bytes hold the control bytes' neighbours included)."""
    controls = [c for c in range(0x80) if c < 0x20 and c not in (0x09, 0x0A, 0x0D) or c == 0x7F]
    assert len(controls) == 30
    for prefix in ("", "\ufeff", "a: 維也納\nb: c\u0085d\n"):
        for code in controls:
            raw = f"{prefix}x: 1\ny: a{chr(code)}b\n".encode()
            with pytest.raises(OrderFileError, match=f"control character \\(U\\+{code:04X}\\)") as info:
                decode_text(raw, "orders.yaml")
            assert info.value.line == prefix.count("\n") + 2
    fine = "".join(chr(c) for c in [*range(0x20, 0x7F), *range(0x80, 0x800, 7), 0x2028, 0xFEFF, 0x10FFFF]) + "\t\r\n"
    assert decode_text(fine.encode(), "orders.yaml") == fine


def test_size_and_depth_limits_are_configurable() -> None:
    big = b"a: " + b"x" * 70_000
    with pytest.raises(OrderFileError, match="limit is 65,536 bytes"):
        load_yaml(big, "big.yaml")
    assert load_yaml(big, "big.yaml", max_bytes=100_000)["a"].startswith("x")
    deep = b"[" * 25 + b"]" * 25
    with pytest.raises(OrderFileError, match="deeper than 20"):
        load_yaml(deep, "deep.yaml")
    assert load_yaml(deep, "deep.yaml", max_depth=30) is not None


PLAIN_SCALARS = [
    "Wien", "P00001", "s00001", "bench-1", "march", "yes", "Yes", "no", "NO", "on", "Off", "y", "n", "true", "False",
    "null", "Null", "~", "", "12", "012", "-3", "+7", "0x1F", "0o17", "0b101", "1_000", "1:20", "-1:20", "1.5", ".5",
    "1e3", "1.0e+3", "-.inf", ".NaN", "=", "<<", "order 7", "turn-1", "nonce", "tag", "orders", "1741-1/prussia",
    "2026-12-01", "2026-12-01 10:00:00", "0.", "+.5", "._", "n0", "t1", "flat", "yesterday", "nulls", "Tru",
]


def test_plain_scalars_load_as_libyaml_constructs_them() -> None:
    """Each plain scalar becomes what PyYAML's safe constructor makes of it, but timestamps and
    the tags it has no constructor for (strings here) and the numbers refused (not finite)."""
    import datetime
    import math

    import yaml

    for word in PLAIN_SCALARS:
        text = f"k: {word}\nl: [{word}]\n".encode() if word else b"k:\nl: []\n"
        try:
            expected = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.constructor.ConstructorError:  # '=' and '<<' resolve to tags without one
            expected = {"k": word, "l": [word]}
        if isinstance(expected["k"], (datetime.date, datetime.datetime)):
            expected = {"k": word, "l": [word]}
        elif isinstance(expected["k"], float) and not math.isfinite(expected["k"]):
            with pytest.raises(OrderFileError):
                load_document(text, "x.yaml")
            continue
        doc = load_document(text, "x.yaml")
        assert doc.data == expected and [type(v) for v in doc.data.values()] == [type(v) for v in expected.values()], word
        assert doc.lines == {"": 1, "k": 1, "l": 2, **({"l[0]": 2} if word else {})}, word
