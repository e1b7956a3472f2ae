"""Pictures kept on disk from one run to the next, each named by what it shows.

The map images lay pieces drawn by resvg over a ground drawn by resvg, and most of what a
phase draws was drawn on an earlier day: the whole map's ground and what its PNGs reuse of it
(:mod:`pbem.render.raster`), the ground's tiles at a crop's scale
(:mod:`pbem.render.rastertiles`), the counters and marks that stand where they stood
(:mod:`pbem.render.rastersprites`). Each such picture is stored as a file under pbem's cache
folder, named by a digest of what it draws; the folder is named by everything else its pixels
depend on (pbem's version, the code that draws them, resvg-py, Pillow and the font files), so a
file is never read by code that would draw it otherwise.

A speed-up only: each file holds its pixels' SHA-256, and a file that is missing, damaged or
cannot be written costs only the time to draw the picture again, which gives the same pixels.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.render.cachedir import cache_folder
from pbem.render.fontfiles import CJK, LATIN

if TYPE_CHECKING:
    from PIL import Image

_FORMAT = b"pbem map pixels 1\0"


def folder(kind: str, modules: Iterable[str]) -> Path | None:
    """The folder of ``kind`` (``map-tiles``...) for pictures drawn by the code of ``modules``
    (their files), made if need be; ``None`` when it cannot be made."""
    import pbem

    h = hashlib.sha256(_FORMAT + kind.encode("utf-8") + b"\0")
    versions = []
    for package in ("resvg-py", "pillow"):  # the renderer; the palettes and glyphs
        try:
            versions.append(importlib.metadata.version(package))
        except importlib.metadata.PackageNotFoundError:
            versions.append("?")
    for part in (pbem.__version__, *versions, *LATIN, *CJK):
        h.update(part.encode("utf-8") + b"\0")
    for module in modules:  # how the pictures are drawn
        h.update(hashlib.sha256(Path(module).read_bytes()).digest())
    for font in (*LATIN, *CJK):
        try:
            st = os.stat(font)
            h.update(b"%d %d\0" % (st.st_size, st.st_mtime_ns))
        except OSError:
            h.update(b"-\0")
    return cache_folder(f"{kind}-{h.hexdigest()[:24]}")


def picture(folder: Path | None, name: str, mode: str, size: tuple[int, int], draw: Callable[[], Image.Image]) -> Image.Image:
    """The picture ``name`` (``mode``, ``size``) as stored in ``folder``, or else drawn by ``draw``
    and stored there; drawn alone when there is no folder."""
    from PIL import Image

    pixels = read(folder / name, size[0] * size[1] * Image.getmodebands(mode)) if folder is not None else None
    if pixels is not None:
        return Image.frombytes(mode, size, pixels)
    drawn = draw()
    if folder is not None:
        write(folder / name, drawn.tobytes())
    return drawn


def kept(folder: Path | None, name: str, make: Callable[[], bytes]) -> bytes:
    """The bytes ``name`` as stored in ``folder``, or else made by ``make`` and stored there
    (what a picture is made of besides its pixels: its palette, its compressed rows...)."""
    data = read(folder / name) if folder is not None else None
    if data is None:
        data = make()
        if folder is not None:
            write(folder / name, data)
    return data


def read(path: Path, size: int | None = None) -> bytes | None:
    """The bytes stored at ``path`` (``size`` of them, when given), or ``None`` when missing or
    damaged."""
    try:
        data = path.read_bytes()
        pixels = zlib.decompress(data[32:])
    except (OSError, zlib.error):
        return None
    if (size is not None and len(pixels) != size) or hashlib.sha256(pixels).digest() != data[:32]:
        return None
    return pixels


def write(path: Path, pixels: bytes) -> None:
    """Stored whole or not at all (written aside, then renamed); a folder that cannot be
    written only costs the next run the drawing."""
    try:
        fd, part = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(hashlib.sha256(pixels).digest() + zlib.compress(pixels, 1))
        os.replace(part, path)
    except OSError:
        try:
            os.unlink(part)
        except OSError:
            pass
