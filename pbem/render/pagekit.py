"""What the offline pages (the order page, the key page) share: their template files, JSON that
is safe inside a ``<script>`` element, and their words in the reader's language."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from functools import cache
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
_TO_PAGE, _FROM_PAGE = str.maketrans(_PY85, PAGE85), str.maketrans(PAGE85, _PY85)


def pack(data: bytes) -> str:
    """``data`` gzip-compressed (mtime 0: the same bytes give the same text; level 6, half the
    time of level 9 for about 1 % more bytes) in the pages' base 85, in lines of 76
    characters, so a mail carries the page as 7bit text."""
    text = base64.b85encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii").translate(_TO_PAGE)
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def packed_gzip(text: str) -> bytes:
    """The gzip bytes a packed block holds."""
    return base64.b85decode("".join(text.split()).translate(_FROM_PAGE))


def unpack(text: str) -> bytes:
    """The bytes :func:`pack` packed."""
    return gzip.decompress(packed_gzip(text))
