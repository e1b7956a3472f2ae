"""The glyphs of the map's words, kept on disk from one run to the next.

FreeType renders each glyph of a crop's names once per process (:func:`pbem.render.rastertext.glyph`),
and a Chinese glyph with its halo costs it about 0.3 ms: some 80 ms of a daily run (a new
process) that draws a crop in both languages, the same town names every day. Here the glyphs
of one font, size and halo are kept in one file under pbem's cache folder
(:func:`pbem.render.rasterstore.folder`: named by the font files, Pillow's version and this
code), read in one go the first time a run needs one of them; each glyph is turned back into a
mask only when asked for. A run that rendered glyphs the file lacked writes it again with them
(:func:`keep`), merged with what another run may have added meanwhile.

A speed-up only: a glyph read is the mask, and the place, that FreeType gives; a file that is
missing, damaged or cannot be written costs only the rendering.
"""

from __future__ import annotations

import hashlib
import struct
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

Key = tuple[bool, bool, float, float]  # Chinese, bold, size, stroke: one file
Glyph = tuple[int, int, int, int, bytes]  # width, height, left, top, coverage
_RECORD = struct.Struct(">Id iiHH")  # character, shift; left, top, width, height

_atlases: dict[Key, dict[tuple[str, float], Glyph]] = {}
_new: dict[Key, dict[tuple[str, float], Glyph]] = {}


def find(key: Key, ch: str, shift: float) -> tuple[Image.Image | None, int, int] | None:
    """The glyph ``ch`` at ``shift`` of the font ``key`` as kept on disk (as
    :func:`pbem.render.rastertext.glyph` gives it), or ``None`` when it is not kept."""
    atlas = _atlases.get(key)
    if atlas is None:
        atlas = _atlases[key] = _read(key)
    found = atlas.get((ch, shift))
    if found is None:
        return None
    width, height, left, top, coverage = found
    if width == 0 or height == 0:
        return None, 0, 0
    from PIL import Image

    return Image.frombytes("L", (width, height), coverage), left, top


def add(key: Key, ch: str, shift: float, mask: Image.Image | None, left: int, top: int) -> None:
    """Note a glyph just rendered, for :func:`keep` to store."""
    entry = (0, 0, 0, 0, b"") if mask is None else (mask.width, mask.height, left, top, mask.tobytes())
    _new.setdefault(key, {})[(ch, shift)] = entry


def keep() -> None:
    """Store the glyphs rendered since the last call with those of their files."""
    from pbem.render import rasterstore

    if not _new:
        return
    folder = _folder()
    for key, new in sorted(_new.items()):
        atlas = _atlases.setdefault(key, {})
        atlas.update(new)
        if folder is not None:
            merged = {**_read(key), **atlas}  # with what another run may have stored meanwhile
            rasterstore.write(folder / _name(key), _pack(merged))
    _new.clear()


def forget() -> None:
    """Forget the files read (a test's new cache folder)."""
    _atlases.clear()
    _new.clear()
    _folder.cache_clear()


def _read(key: Key) -> dict[tuple[str, float], Glyph]:
    from pbem.render import rasterstore

    folder = _folder()
    data = rasterstore.read(folder / _name(key)) if folder is not None else None
    return _unpack(data) if data is not None else {}


def _pack(atlas: dict[tuple[str, float], Glyph]) -> bytes:
    out = [struct.pack(">I", len(atlas))]
    for (ch, shift), (width, height, left, top, coverage) in sorted(atlas.items()):
        out.append(_RECORD.pack(ord(ch), shift, left, top, width, height) + coverage)
    return b"".join(out)


def _unpack(data: bytes) -> dict[tuple[str, float], Glyph]:
    """The glyphs of a file; none when it is not one (the file is checked by its hash, so only
    another code's file would not be)."""
    try:
        (count,) = struct.unpack_from(">I", data)
        at, atlas = 4, {}
        for _ in range(count):
            code, shift, left, top, width, height = _RECORD.unpack_from(data, at)
            at += _RECORD.size
            atlas[(chr(code), shift)] = (width, height, left, top, data[at:at + width * height])
            at += width * height
    except (struct.error, ValueError, OverflowError):
        return {}
    return atlas if at == len(data) else {}


def _name(key: Key) -> str:
    return hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:40]


@lru_cache(maxsize=1)
def _folder() -> Path | None:
    """The glyphs' folder; ``None`` when it cannot be made."""
    from pbem.render import rasterstore

    # named by the code that renders the glyphs (the word drawer, read as a file: it imports this module) and stores them
    return rasterstore.folder("map-glyphs", (str(Path(__file__).with_name("rastertext.py")), __file__))
