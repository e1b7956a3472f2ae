"""What the offline pages (the order page, the key page) share: their template files, JSON that
is safe inside a ``<script>`` element, and their words in the reader's language."""

from __future__ import annotations

import base64
import gzip
import json
import re
import struct
import zlib
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any

from pbem.data import templates_dir
from pbem.render import i18n


@cache
def asset(folder: str, name: str) -> str:
    """The text of ``templates/<folder>/<name>``."""
    return (templates_dir() / folder / name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` or ``<!--`` can end it early)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def message_table(lang: str, messages: Mapping[str, str]) -> dict[str, str]:
    """A page's words in ``lang``: English ids to the project's gettext catalog first, then the
    page's own Chinese (``messages``: id -> zh-TW) where the catalog lacks the id."""
    lang = i18n.check_lang(lang)
    out = {}
    for msg, zh in messages.items():
        text = i18n.gettext_for(lang, msg)
        if lang != "en" and text == msg:
            text = zh
        out[msg] = text
    return out


# Packed blocks: gzip, then base 85 in an alphabet that HTML leaves alone inside <script> (no
# < > & quotes, backslash or backquote), 4 bytes in 5 characters where base 64 takes 6; the
# pages open them with templates/orderpage/unpack.js and the browser's DecompressionStream.
_PY85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
PAGE85 = "".join(c for c in map(chr, range(33, 127)) if c not in "<>&\"'\\`$^")
_FROM_PAGE = str.maketrans(PAGE85, _PY85)
_GZIP_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no name, mtime 0, any system
_EMPTY_BLOCK = b"\x00\x00\x00\xff\xff"  # a stored block of no bytes, not the last (RFC 1951 3.2.4)
_LAST_BLOCK = b"\x01\x00\x00\xff\xff"  # the same, the last


def pack(*parts: bytes) -> str:
    """The bytes of ``parts``, one after another, as one gzip member in the pages' base 85, in
    lines of at most 75 characters, so a mail carries the page as 7bit text. The same bytes
    give the same text.

    Each part is compressed on its own (deflate level 6: half the time of level 9 for about
    1 % more bytes) and ends on a whole group of 4 bytes (a sync flush, then empty stored
    blocks), so its text is the same wherever it stands: it is worked out once per process and
    kept, by its content. A caller cuts what many blocks share (a map's ground, the board's
    data, a layer both of a phase's maps draw) into parts of their own; each part costs about
    1 % more bytes than one stream would (deflate refers no further back than its part)."""
    parts = parts or (b"",)
    end = _base85(_LAST_BLOCK + struct.pack("<II", _crc(parts), sum(map(len, parts)) & 0xFFFFFFFF))
    return "\n".join([*(_piece(part, i == 0) for i, part in enumerate(parts)), end])


@lru_cache(maxsize=256)
def _crc(parts: tuple[bytes, ...]) -> int:
    """The CRC-32 of ``parts`` one after another, kept for each run of first parts: the parts
    every block starts with alike (a map's ground) are read once, not again for each block."""
    return zlib.crc32(parts[-1], _crc(parts[:-1]) if len(parts) > 1 else 0)


@lru_cache(maxsize=128)
def _piece(part: bytes, first: bool) -> str:
    """A part's text: its own lines of 75 characters (15 groups), the last one shorter."""
    deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    data = (_GZIP_HEAD if first else b"") + deflate.compress(part) + deflate.flush(zlib.Z_SYNC_FLUSH)
    text = _base85(data + _EMPTY_BLOCK * (-len(data) % 4))  # 5 bytes each: 4 groups' worth in 4 blocks
    return "\n".join([text[i:i + 75] for i in range(0, len(text), 75)])


# Base 85 a whole buffer at a time (base64.b85encode works a word at a time in Python, three
# to five times slower): each 4-byte word goes in a lane of 9 bytes of one big integer, and the
# integer's arithmetic, shifts and masks work out every lane's digits at once. A word v's
# quotient q_k by 85**k is (v * m) >> s, exactly for every v < 2**32 (s = 32 + the bits of
# 85**k, m = 85**k's reciprocal rounded up: its error is less than a unit); the product, under
# 2**65, stays in its lane, and after the shift q_k (5 - k bytes) sits below the bits the lane
# above shifted in, which a mask of 5 - k bytes a lane drops. The digits c0..c4 then are
# v + sum((2**8k - 85 * 2**(8k - 8)) * q_k) read as 5 bytes: byte k - 1 from the low end gets
# q_(k-1) - 85 * q_k (q_0 = v), byte 4 gets q_4.
_LANE = 9
_DIVIDE: list[tuple[int, int, int, int]] = []  # (m, s, the factor of q_k, the bytes of q_k)
for _k in (1, 2, 3, 4):
    _s = 32 + (85**_k - 1).bit_length()
    _DIVIDE.append((-(-(1 << _s) // 85**_k), _s, (1 << 8 * _k) - 85 * (1 << 8 * _k - 8), 5 - _k))
_DIGITS = bytes.maketrans(bytes(range(85)), PAGE85.encode("ascii"))
_LOW = [0] * 5  # [n]: the low n bytes of each lane, for as many lanes as the longest input yet


def _base85(data: bytes) -> str:
    """``base64.b85encode(data)`` in the pages' alphabet."""
    lanes = -(-len(data) // 4)
    pad = 4 * lanes - len(data)
    spread = bytearray(_LANE * lanes)
    padded = data + bytes(pad)
    for j in range(4):
        spread[_LANE - 4 + j::_LANE] = padded[j::4]
    word = int.from_bytes(spread, "big")
    if _LOW[4].bit_length() < 8 * _LANE * lanes:
        for n in range(1, 5):
            _LOW[n] = int.from_bytes((bytes(_LANE - n) + b"\xff" * n) * (2 * lanes), "big")
    digits = word
    for m, s, c, n in _DIVIDE:
        digits += c * ((word * m >> s) & _LOW[n])  # & costs only the shorter integer's length
    text = digits.to_bytes(_LANE * lanes, "big")
    out = bytearray(5 * lanes)
    for k in range(5):
        out[k::5] = text[_LANE - 5 + k::_LANE]
    return out[:5 * lanes - pad].translate(_DIGITS).decode("ascii")


def packed_gzip(text: str) -> bytes:
    """The gzip bytes a packed block holds."""
    return base64.b85decode("".join(text.split()).translate(_FROM_PAGE))


def unpack(text: str) -> bytes:
    """The bytes :func:`pack` packed."""
    return gzip.decompress(packed_gzip(text))


def forget() -> None:
    """Empty what :func:`pack` and :func:`svg_parts` keep (a benchmark's phases start cold)."""
    _piece.cache_clear()
    _crc.cache_clear()
    _CUT.clear()
    _names.cache_clear()
    _lean.cache_clear()
    _without_ids.cache_clear()
    _utf8.cache_clear()
    _unreferenced.cache_clear()


# A drawing in an offline page: cut before each of its layers (a group with an id), so that
# the layers every phase draws alike (a map's ground) are packed once; each layer without the
# ids nothing refers to (a sixth of a map's bytes), and without its tooltips where the page
# shows it as a picture.
_LAYER = '<g id="'
_ID = re.compile(r' id="([^"]*)"')
_REF = re.compile(r"#([A-Za-z_][\w.:-]*)")  # url(#x), href="#x", a style's #x (and colours: kept ids)
_TITLE = re.compile(r"<title>[^<]*</title>")


def svg_parts(svg: str, titles: bool = True) -> list[bytes]:
    """``svg`` as :func:`pack` takes it: its layers, each as UTF-8 without the ids nothing in
    the drawing refers to, and without its ``<title>`` tooltips unless ``titles``."""
    layers = _layers(svg)
    names = [_names(layer) for layer in layers]
    kept = frozenset().union(*(refs for refs, _ in names)) & frozenset().union(*(ids for _, ids in names))
    return [_lean(layer, kept, titles) for layer in layers]


_CUT: list[list[str]] = []  # the layers of the last drawings cut, the latest first


def _layers(svg: str) -> list[str]:
    """``svg`` cut before each ``<g id="``. The first layers of a drawing cut before (the
    ground) are found by comparing them, and are the same strings, which the caches then
    know without reading them again."""
    start: list[str] = []
    at = 0
    for before in _CUT:
        n, end = 0, 0
        while n < len(before) and svg.startswith(before[n], end):
            n, end = n + 1, end + len(before[n])
        while n and not (end == len(svg) or svg.startswith(_LAYER, end)):  # a layer ends at a cut
            n, end = n - 1, end - len(before[n - 1])
        if end > at:
            start, at = before[:n], end
    cuts, found = [], svg.find(_LAYER, at + 1 if start else 0)
    while found >= 0:  # str.find, not a regular expression: ten times faster on a drawing's text
        cuts.append(found)
        found = svg.find(_LAYER, found + 1)
    bounds = [at, *cuts] if at < len(svg) or not start else []  # where the layers not yet known start
    layers = start + [svg[a:b] for a, b in zip(bounds, [*bounds[1:], len(svg)], strict=False)]
    _CUT.insert(0, layers)
    del _CUT[4:]
    return layers


@lru_cache(maxsize=128)
def _names(layer: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names a layer refers to (``#name``) and the ids it gives."""
    refs = frozenset(_REF.findall(layer)) if "#" in layer else frozenset()  # (a search of its own: fast)
    return refs, frozenset(_ID.findall(layer))


@lru_cache(maxsize=128)
def _lean(layer: str, kept: frozenset[str], titles: bool) -> bytes:
    text = _without_ids(layer, kept)
    if titles or "<title>" not in text:  # the same text with titles or without: encoded once
        return _utf8(text)
    return _TITLE.sub("", text).encode("utf-8")


@lru_cache(maxsize=128)
def _without_ids(layer: str, kept: frozenset[str]) -> str:
    """``layer`` without the ids not in ``kept`` (once for a page with tooltips and one without)."""
    return _unreferenced(kept).sub("", layer) if ' id="' in layer else layer


@lru_cache(maxsize=128)
def _utf8(text: str) -> bytes:
    return text.encode("utf-8")


@lru_cache(maxsize=16)
def _unreferenced(kept: frozenset[str]) -> re.Pattern[str]:
    """The ids not in ``kept``, with the space before them."""
    names = "|".join(re.escape(r) for r in sorted(kept))
    return re.compile(f' id="(?!(?:{names})")[^"]*"' if names else ' id="[^"]*"')


def lean_script(code: str) -> str:
    """``code`` (pbem's page scripts) without its comment lines, indentation and blank lines:
    a fifth lighter packed. Only whole lines go (a line that starts a comment, the lines of a
    ``/* */`` comment that starts a line); a script with a template literal (a backquote
    outside comments), whose lines are text, is left as it is."""
    out, comment = [], False
    for line in code.split("\n"):
        text = line.strip()
        if comment:
            end = text.find("*/")
            if end < 0:
                continue
            comment, text = False, text[end + 2:].strip()
        elif text.startswith("/*"):
            end = text.find("*/", 2)
            if end < 0:
                comment = True
                continue
            text = text[end + 2:].strip()
        if text and not text.startswith("//"):
            out.append(text)
    lean = "\n".join(out) + "\n"
    return code if "`" in lean else lean
