"""The pages' base 85 (pbem.render.pagekit): the same text as the standard library's base 85
in the pages' alphabet, for every length and every 4-byte word, however long the input."""

from __future__ import annotations

import base64
import random
import struct

from pbem.render import pagekit

_PY85 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"


def _reference(data: bytes) -> str:
    return base64.b85encode(data).translate(bytes.maketrans(_PY85, pagekit.PAGE85.encode("ascii"))).decode("ascii")


def test_base85_is_the_standard_librarys_in_the_pages_alphabet() -> None:
    rnd = random.Random(85)
    lengths = [*range(41), *(rnd.randrange(41, 3000) for _ in range(60)), 70001, 70002, 70003, 70004]
    for n in lengths:
        for data in (rnd.randbytes(n), b"\xff" * n, bytes(n)):
            assert pagekit._base85(data) == _reference(data), n


def test_base85_words_at_the_edges_of_each_digit() -> None:
    """Words one below, at and one above each multiple of a power of 85 that matters (where a
    division that was a little off would show), and the largest word."""
    words = {0, 1, 84, 85, 86, 2**32 - 1, 2**32 - 2}
    rnd = random.Random(4)
    for k in range(1, 5):
        d = 85**k
        for q in (1, 2, 84, 85, (2**32 - 1) // d, (2**32 - 1) // d - 1, *(rnd.randrange(1, 2**32 // d) for _ in range(50))):
            words.update(w for w in (q * d - 1, q * d, q * d + 1) if 0 <= w < 2**32)
    data = b"".join(struct.pack(">I", w) for w in sorted(words))
    assert pagekit._base85(data) == _reference(data)
    for cut in range(1, 4):  # the same words ending on a partial group
        assert pagekit._base85(data[:-cut]) == _reference(data[:-cut])
    wide = bytes(rnd.randrange(256) for _ in range(4 * 20000))  # longer than any input before it
    assert pagekit._base85(wide) == _reference(wide)
    assert pagekit._base85(data) == _reference(data)  # and shorter again
