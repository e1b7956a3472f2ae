"""Intake reads the usual shape of an order file directly (pbem.core.yamlfast), the restricted
loader being the fallback: wherever the direct reading applies it must give what the loader
gives (the same data, the same types, the same key order), and it must not take what the
loader refuses. Checked on every YAML file of the tests and the order examples, on signed files
of random orders, on hand-written edge cases, and on mutants of them all (characters that mean
something to YAML inserted, dropped or replaced, lines repeated, dropped, indented)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pbem.common.canonical import canonical
from pbem.common.safeyaml import decode_text, load_document
from pbem.core import yamlfast
from pbem.core.envelope import format_document, parse_order_document
from pbem.errors import OrderFileError

ROOT = Path(__file__).parent.parent
CORPUS = sorted({*ROOT.glob("tests/**/*.yaml"), *ROOT.glob("orders/**/*.yaml")})

EDGES = [
    "a: 1\n", "a: 0\n", "a: 012\n", "a: 1_000\n", "a: 0x1F\n", "a: 0o17\n", "a: 1:30\n", "a: +5\n", "a: -5\n", "a: 1.5\n",
    "a: 1e3\n", "a: .inf\n", "a: .nan\n", "a: ~\n", "a: null\n", "a: Null\n", "a: NULL\n", "a: true\n", "a: True\n",
    "a: yes\n", "a: no\n", "a: on\n", "a: off\n", "a: y\n", "a: n\n", "a: false\n", "a: 2026-12-01\n",
    "a: 2026-12-01T12:00:00Z\n", "a: 99999999999999999999\n", "a: 123456789012345678\n", "a:\n", "a: \n", "a:  b\n",
    "a: b \n", "a: b # c\n", "a: b:c\n", "a: b: c\n", "a: 'b'\n", "a: ''\n", "a: 'it''s'\n", 'a: "b"\n', 'a: ""\n',
    'a: "b\\"c"\n', 'a: "b\\n"\n', 'a: "ab\\\n  cd"\n', 'a: "ab\\\ncd"\n', 'a: "ab\\\n  c d"\n', 'a: "ab\n  cd"\n',
    'a: "ab\\\n  cd\\\n  ef"\n', 'a: "ab\\\n  - cd"\n', 'a: "ab\\\n  x: cd"\n', 'b:\n  a: "ab\\\n  cd"\n',
    "a:\n- b\n- c\n", "a:\n  - b\n  - c\n", "a:\n- b\nc: d\n", "a:\n  - b\n c: d\n", "a:\n- b: 1\n  c: 2\n- d: 3\n",
    "a:\n- b: 1\n c: 2\n", "a:\n- b:\n  - c\n", "a:\n- b:\n    c: 1\n", "a:\n- - b\n", "a:\n-\n  b: 1\n", "a:\n- \n",
    "a:\n  b: 1\n c: 2\n", "a:\n  b: 1\n   c: 2\n", "a:\n  b: 1\nb: 2\n", "a: 1\na: 2\n", "a:\n  b: 1\n  b: 2\n",
    "1: a\n", "yes: a\n", "null: a\n", "a-b: c\n", "_a: b\n", "-a: b\n", "a b: c\n", "'a': b\n", '"a": b\n', "? a\n: b\n",
    "a: &x b\n", "a: *x\n", "a: !!str b\n", "a: !x b\n", "a: [b]\n", "a: {}\n", "a: []\n", "a: |\n  b\n", "a: >\n  b\n",
    "a: b\n\nc: d\n", "a: b\n# c\n", "# c\na: b\n", "---\na: b\n", "a: b\n...\n", "a: b\n---\nc: d\n", " a: b\n",
    "a: b\r\n", "a:\tb\n", "a: b", "- a\n", "a\n", "a: Wien (Vienna)\n", "a: x/y\n", "a: 維也納\n", "a: b,c\n",
    "a: b  c\n", "a: %b\n", "a: @b\n", "a: `b\n", "a: b\u00a0\n", "a: /b\n", "a: (b)\n", "a: .b\n", "a: =b\n",
    "a: b=c\n", "a: b;c\n", "a: $b\n", "a: ^b\n", "a: ~b\n", "a: +b\n", "a: 0b101\n", "a: 0.5\n", "a: 1.\n", "a: 6.8523015e+5\n",
    "a: 190:20:30\n", "a: 1_0\n", "a: 00\n", "a: 0_\n", "a: -\n", "a: --\n", "a: - b\n", "a:\n-  b\n", "a:\n -b\n",
    "a:b: c\n", "a:: b\n", "a:b:\n  c: d\n", "a:\n- a:b\n", "a:\n- :\n", "a:\n- : b\n", "a:\n-\n", "a:\n- \"b: c\"\n",
    "a:\n- 'b: c'\n", "a:\n- b:\n", "a:\n- 'b':\n", "a:\n- \"ab\\\n  cd\"\n", "a:\n- \"ab\\\n cd\"\n",
    "a:\n- \"ab\\\n  cd\"\n- e\n", "a: \"ab\\\n\n  cd\"\n", "a: \"ab\\\n   \n  cd\"\n", "a: \"ab\\\n  \\\n  cd\"\n",
    "a: \"ab\\\n  \"\n", "a: \"\\\n  ab\"\n", "a: \"\\\n", "a: \"ab\\\n  c\\d\"\n", "a: \"ab\\\n  c\"d\"\n", "a: \"ab\\\n  cd\" \n",
    "a: b\n\n", "a: b\n  \n", "a:\n  b: 1\n\n  c: 2\n", "a:\n  - b\n  -\n", "a: \"\n", "a: '\n", "a: \"\"\"\n", "a:\n  b\n",
]


def _read(raw: bytes) -> Any:
    """The direct reading of ``raw`` (None: left to the loader, or not text)."""
    try:
        text = decode_text(raw, "t")
    except OrderFileError:
        return None
    return yamlfast.read(text, "t")


def _same(raw: bytes, label: str) -> bool:
    """Whether the direct reading applied; if it did, the loader reads ``raw`` to the same data."""
    fast = _read(raw)
    if fast is None:
        return False
    try:
        slow = load_document(raw, "t")
    except OrderFileError as exc:
        raise AssertionError(f"{label}: read directly, refused by the loader: {exc}") from None
    assert canonical(fast.data) == canonical(slow.data), label
    assert repr(fast.data) == repr(slow.data), label  # the same types and key order
    return True


def _random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.25:
        return {rng.choice(["march", "to", "moves", "PR", "a_b", "x-1", "Frederick", "note"]) + str(i): _random_value(rng, depth + 1)
                for i in range(rng.randint(1, 3))}
    if depth < 3 and roll < 0.45:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(1, 3))]
    return rng.choice([
        "Wien", "Linz", "turn-1", "1742-2/commit", "yes", "no", "null", "true", "", " ", "a b", "a: b", "#x", "-x", "維也納",
        "0x1F", "012", "1.5", "2026-12-01", "x" * 90, "ab" * 50, "it's", 'say "hi"', "back\\slash", "line\nbreak",
        0, 1, 7, -3, 10**17, 10**19, True, False, None, 1.5, [], {},
    ])


def _random_document(rng: random.Random) -> bytes:
    orders = {f"P{i}": _random_value(rng, 1) for i in range(rng.randint(1, 3))}
    data = {"pbem": 1, "campaign": "bench-1", "nonce": "741b0baa042da82105ae85f0db947c27", "player": "s00001", "phase": "turn-1",
            "seq": rng.randint(1, 10**6), "entropy_commit": "f24e5711448518256c4ca6a175134dd9bfce98ad63372f23584c7c111394e0e6",
            "orders": orders, "signature": {"key": "ed25519:" + "86" * 32, "value": "ePh8JC4xSfP+dQblOYNHtc5nh8qQG7TzQh9qcc64sOZ3uA"
                                                                                         "xsjVJgeSHTW1eCJZoNmCl2RY9G93p8aER0upILCg=="}}
    return format_document(data).encode("utf-8")


_NOISE = [" ", "  ", "-", "- ", ":", ": ", "#", '"', "'", "\\", "\n", "\n ", "a", "1", "&", "*", "!", "|", ">", "[", "{", "?", ",",
          "\t", "\r", "%", "@", "~", "0", ".", "\u00a0"]


def _mutants(raw: bytes, rng: random.Random, count: int) -> list[bytes]:
    text = raw.decode("utf-8", "surrogateescape")
    out = []
    for _ in range(count):
        lines = text.split("\n")
        roll = rng.random()
        i = rng.randrange(len(lines))
        if roll < 0.15:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif roll < 0.3:
            del lines[i]
        elif roll < 0.45:
            lines[i] = " " * rng.randint(1, 3) + lines[i] if rng.random() < 0.5 else lines[i][1:]
        else:
            line = lines[i]
            at = rng.randint(0, len(line))
            noise = rng.choice(_NOISE)
            lines[i] = line[:at] + noise + line[at + rng.choice((0, 0, 1)):]
        out.append("\n".join(lines).encode("utf-8", "surrogateescape"))
    return out


def test_corpus_and_examples() -> None:
    assert len(CORPUS) > 40
    read = sum(_same(p.read_bytes(), str(p)) for p in CORPUS)
    assert read > 10  # the order examples are of the usual shape


@pytest.mark.parametrize("text", EDGES)
def test_edges(text: str) -> None:
    _same(text.encode("utf-8"), repr(text))


def test_the_usual_edges_are_read_directly() -> None:
    for text in ("a: 1\n", "a: 0\n", "a: true\n", "a: null\n", "a: 2026-12-01\n", 'a: "ab\\\n  cd"\n', "a:\n- b\n- c\n",
                 "a:\n- b: 1\n  c: 2\n- d: 3\n", "a: 'b'\n", "a: 維也納\n", "a-b: c\n", "a: Wien (Vienna)\n"):
        assert _same(text.encode("utf-8"), repr(text)), text


def test_signed_files_of_random_orders_and_their_mutants() -> None:
    rng = random.Random(16)
    read = mutants_read = 0
    for n in range(150):
        raw = _random_document(rng)
        read += _same(raw, f"document {n}")
        for m, mutant in enumerate(_mutants(raw, rng, 12)):
            mutants_read += _same(mutant, f"document {n} mutant {m}")
    assert read > 40  # the signed files of plain words and numbers
    assert mutants_read > 100


def test_mutants_of_the_corpus() -> None:
    rng = random.Random(1741)
    for p in CORPUS:
        for m, mutant in enumerate(_mutants(p.read_bytes(), rng, 10)):
            _same(mutant, f"{p} mutant {m}")


def test_lines_are_the_loaders() -> None:
    raw = _random_document(random.Random(3))
    fast, slow = _read(raw), load_document(raw, "t")
    assert fast is not None and fast.lines == slow.lines
    assert fast.line_of("signature.value") == slow.line_of("signature.value") > 10


def test_intake_reads_the_usual_file_directly_and_errors_keep_their_lines() -> None:
    raw = format_document({"pbem": 1, "campaign": "c-1", "nonce": "741b0baa042da82105ae85f0db947c27", "player": "s1", "phase": "turn-1",
                           "seq": 3, "orders": {"PR": {"march": ["Wien", "Linz"]}}}).encode("utf-8")
    doc = parse_order_document(raw, "t", require_signature=False)
    assert isinstance(doc.document, yamlfast.Read)
    assert doc.line_of("seq") == 6
    bad = raw.replace(b"seq: ", b"seq: x")
    with pytest.raises(OrderFileError) as refused:
        parse_order_document(bad, "t", require_signature=False)
    assert refused.value.line == 6
