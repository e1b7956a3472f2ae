"""Palette PNGs of map pictures.

A picture is reduced to a palette of about 40 colours by Pillow's octree, which keeps the map's
flat colours and text and makes the PNG about a third of its full-colour size.

A picture laid over a ground drawn once per process (the whole map: the board, then a phase's
pieces) is encoded against that ground: the ground's own palette and indices are taken once,
the colours the phase adds are given up to 24 more entries, and the image is compressed in bands
of 16 rows, each ended by a full flush, so a band the phase leaves as the ground had it is the
ground's band, compressed once (harder) and reused; a run of bands the phase changes is
compressed in one go with zlib's run-length strategy (a fifth of the time of its default for
7 % more bytes of PNG, 2-3 % of a report mail; matches further back, to the rows before the run,
would save next to nothing). The picture is compared with the ground in bands of 32 rows, only
where the boxes drawn on reach; the pixels of those boxes are mapped to the palette all in one
row (a mapping costs most for each colour it meets: not the ground between them). What the phase
changes costs the palette mapping and the compression; the rest costs nothing. The PNG is
written here (IHDR, PLTE, one IDAT, IEND); its deflate stream is Python's zlib's, so the same
picture gives the same bytes with the same zlib. The many small steps call Pillow's core on the
pictures' memory: :class:`~PIL.Image.Image`'s methods wrap each in more work than it does.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

COLOURS = 40  # the ground's palette
EXTRA = 24  # at most this many more for what a phase lays over it
BAND = 32  # rows compared with the ground together
SUB = 16  # rows compressed together (BAND a multiple of it)
_FINAL = b"\x03\x00"  # an empty last deflate block


def palette_png(picture: Image.Image) -> bytes:
    """``picture`` (RGB) as a PNG of at most :data:`COLOURS` colours."""
    # the octree keeps the small areas of strong colour (counters, legend swatches) that median
    # cut merges into their neighbours, and (unlike max coverage) every region's own tint; zlib's
    # run-length strategy: a quarter of the time of its default level for 15 % more bytes (a
    # map's flat tints are runs of one index), where level 9 is eight times slower for 6 % fewer
    small = picture.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, "PNG", compress_type=zlib.Z_RLE)
    return out.getvalue()


@dataclass(frozen=True)
class Ground:
    """A ground picture as the PNGs laid over it reuse it: its colours, palette indices and
    bands (raw and compressed)."""

    rgb: Image.Image
    indices: Image.Image  # mode P
    framed: Image.Image  # the indices one column right, behind a column of 0: the rows as filtered (type 0)
    palette: tuple[int, ...]  # RGB, RGB... of the colours the indices use
    raw: tuple[bytes, ...]  # each band's filtered rows (filter type 0 on each), SUB rows a band
    packed: tuple[bytes, ...]  # each band deflated, ended by a full flush
    adlers: tuple[int, ...]  # each band's Adler-32 checksum
    rgba: Image.Image  # ``rgb`` with an alpha channel, opaque: compared with a picture of that mode as it is


def ground(rgb: Image.Image) -> Ground:
    """``rgb`` reduced to its palette once, its bands compressed once."""
    small = rgb.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    used = max(_used(small), default=0) + 1
    palette = tuple((small.getpalette() or [])[:3 * used])
    return _ground(rgb, small, palette, None)


def ground_bytes(base: Ground) -> bytes:
    """What :func:`ground` found of a picture besides its pixels (palette, indices, compressed
    bands), as :func:`ground_of` reads it back: kept from one run to the next, it spares the
    octree and the bands' level-9 deflate (about 0.15 s)."""
    head = struct.pack(">II", len(base.palette), len(base.packed)) + b"".join(struct.pack(">I", len(p)) for p in base.packed)
    return head + bytes(base.palette) + base.indices.tobytes() + b"".join(base.packed)


def ground_of(rgb: Image.Image, data: bytes) -> Ground | None:
    """The :class:`Ground` of ``rgb`` from :func:`ground_bytes`, or ``None`` when ``data`` does
    not fit the picture."""
    try:
        colours, bands = struct.unpack_from(">II", data)
        lengths = struct.unpack_from(f">{bands}I", data, 8)
    except struct.error:
        return None
    at = 8 + 4 * bands
    pixels = rgb.width * rgb.height
    if (bands != (rgb.height + SUB - 1) // SUB or colours % 3 or not 0 < colours <= 768
            or len(data) != at + colours + pixels + sum(lengths)):
        return None
    palette = tuple(data[at:at + colours])
    at += colours
    small = Image.frombytes("P", rgb.size, data[at:at + pixels])
    small.putpalette(palette)
    at += pixels
    packed = []
    for length in lengths:
        packed.append(data[at:at + length])
        at += length
    return _ground(rgb, small, palette, tuple(packed))


def _ground(rgb: Image.Image, small: Image.Image, palette: tuple[int, ...], packed: tuple[bytes, ...] | None) -> Ground:
    """The :class:`Ground` of ``rgb`` and its indices ``small``: its bands' rows, their checksums,
    and the bands deflated (``packed``, read back) or deflated here (``None``)."""
    framed = _framed(small)
    raw = tuple(_rows(framed, y) for y in range(0, rgb.height, SUB))
    if packed is None:
        packed = tuple(_deflate(band, 9) for band in raw)
    return Ground(rgb, small, framed, palette, raw, packed, tuple(map(zlib.adler32, raw)), rgb.convert("RGBA"))


def over_ground(base: Ground, picture: Image.Image, drawn: Sequence[Box] | None = None) -> bytes:
    """``picture`` (RGB or RGBA, opaque, the size of ``base``, drawn over it) as a PNG: the
    ground's pixels keep their palette index; the pixels that differ are mapped to the ground's
    colours and those the octree finds among them. ``drawn``: the boxes outside which the
    picture is the ground (``None``: it may differ anywhere); only they are compared.

    Its many small steps (a few for each band) call Pillow's core on the pictures' memory, not
    its :class:`~PIL.Image.Image` methods, whose wrapping cost more than the work."""
    width, height = picture.size
    picture.load()
    image = picture.im
    ground = (base.rgb if picture.mode == "RGB" else base.rgba).im
    bands: list[tuple[Box, Any, list[Box]] | None] = []  # each band's changed box, its mask, the parts drawn on
    spans, reaching = _spans(drawn, width, height)
    for n, span in enumerate(spans):
        y0 = n * BAND
        if span is None:
            bands.append(None)
            continue
        area = (span[0], y0, span[1], min(height, y0 + BAND))
        diff = image.crop(area).chop_difference(ground.crop(area)).convert("L")
        box = diff.getbbox(True)
        if box is None:
            bands.append(None)
            continue
        changed = (span[0] + box[0], y0 + box[1], span[0] + box[2], y0 + box[3])
        bands.append((changed, diff.crop(box).point(_ANY, "L"), _within(changed, None if reaching is None else reaching[n])))
    palette = list(base.palette)
    mapped = b""  # the palette indices of the parts drawn on, one part after the other, row by row
    # the octree sees the pixels of the boxes drawn (where the picture may differ), one after
    # the other on one row: not the ground around them, nor any padding
    pixels = b"".join(_rgb(image, part) for band in bands if band is not None for part in band[2])
    if pixels:
        seen = Image.frombytes("RGB", (len(pixels) // 3, 1), pixels)
        new = seen.quantize(colors=EXTRA, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        theirs = new.getpalette() or []
        for i in _used(new):
            palette += theirs[3 * i:3 * i + 3]
        lookup = Image.new("P", (1, 1))
        # only the entries in use: each colour the mapping meets is compared with every entry
        lookup.putpalette(palette)
        # each pixel is mapped by its colour alone, those same pixels: a mapping costs most for
        # each colour it meets, and the ground between the parts drawn would bring many
        mapped = seen.quantize(palette=lookup, dither=Image.Dither.NONE).tobytes()
    packed: list[bytes] = []
    run: list[bytes] = []  # the changed rows not yet compressed
    adler, at, line = 1, 0, width + 1
    framed = base.framed.im
    for n, band in enumerate(bands):
        y0 = n * BAND
        top = bottom = y0  # the rows the phase changed in this band
        raw = b""
        if band is not None:
            (x0, top, _x1, bottom), mask, parts = band
            rows = framed.crop((0, y0, width + 1, min(height, y0 + BAND)))
            for px0, py0, px1, py1 in parts:  # only the changed pixels (the mask) laid over the ground's indices
                count = (px1 - px0) * (py1 - py0)
                rows.paste(_indices((px1 - px0, py1 - py0), mapped[at:at + count]), (px0 + 1, py0 - y0, px1 + 1, py1 - y0),
                           mask.crop((px0 - x0, py0 - top, px1 - x0, py1 - top)))
                at += count
            raw = _raw(rows, "P")
        # the band's rows in the ground's compressed bands: those it changed compressed again
        for k in range(y0 // SUB, (min(height, y0 + BAND) - 1) // SUB + 1):
            if k * SUB < bottom and top < (k + 1) * SUB:
                rows_raw = raw[(k * SUB - y0) * line:((k + 1) * SUB - y0) * line]
                run.append(rows_raw)
                adler = zlib.adler32(rows_raw, adler)
                continue
            if run:
                packed.append(_deflate(b"".join(run), 6, zlib.Z_RLE))
                run = []
            packed.append(base.packed[k])
            adler = _adler32_combine(adler, base.adlers[k], len(base.raw[k]))
    if run:
        packed.append(_deflate(b"".join(run), 6, zlib.Z_RLE))
    idat = b"\x78\x9c" + b"".join(packed) + _FINAL + struct.pack(">I", adler)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + _chunk(b"PLTE", bytes(palette)) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


def _rgb(image: Any, box: Box) -> bytes:
    """The pixels of ``box`` of ``image`` (Pillow's core image, RGB or RGBA) as RGB bytes."""
    return _raw(image.crop(box), "RGB")


def _raw(image: Any, rawmode: str) -> bytes:
    """The pixels of ``image`` (Pillow's core image) as bytes (:meth:`PIL.Image.Image.tobytes`)."""
    width, height = image.size
    if not width or not height:
        return b""
    encoder = Image.core.raw_encoder(image.mode, rawmode)
    encoder.setimage(image, (0, 0, width, height))
    out = []
    try:
        while True:
            _consumed, status, data = encoder.encode(max(1 << 16, width * 4))
            out.append(data)
            if status:
                break
    finally:
        encoder.cleanup()
    if status < 0:
        raise RuntimeError(f"encoder error {status}")
    return b"".join(out)


def _indices(size: tuple[int, int], data: bytes) -> Any:
    """Pillow's core image of mode P holding ``data`` (:func:`PIL.Image.frombytes`)."""
    image = Image.core.new("P", size)
    decoder = Image.core.raw_decoder("P", "P", 0, 1)
    decoder.setimage(image, (0, 0, *size))
    if decoder.decode(data)[0] >= 0:
        raise ValueError("not enough image data")
    return image


Box = tuple[int, int, int, int]
_ANY = [0] + [255] * 255  # a difference in any channel


def _within(box: Box, drawn: Sequence[Box] | None) -> list[Box]:
    """The parts of ``box`` the boxes ``drawn`` cover (``None``: all of it), each box's apart."""
    if drawn is None:
        return [box]
    x0, y0, x1, y1 = box
    parts = [(max(x0, a), max(y0, b), min(x1, c), min(y1, d)) for a, b, c, d in drawn]
    return [p for p in parts if p[0] < p[2] and p[1] < p[3]]


def _spans(drawn: Sequence[Box] | None, width: int,
           height: int) -> tuple[list[tuple[int, int] | None], list[list[Box]] | None]:
    """For each band of rows, the columns the boxes ``drawn`` reach in it (``None``: none;
    ``drawn`` ``None``: all of them), and the boxes that reach it (``None`` when ``drawn`` is)."""
    count = (height + BAND - 1) // BAND
    if drawn is None:
        return [(0, width)] * count, None
    spans: list[tuple[int, int] | None] = [None] * count
    reaching: list[list[Box]] = [[] for _n in range(count)]
    for box in drawn:
        x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(width, box[2]), min(height, box[3])
        if x1 <= x0 or y1 <= y0:
            continue
        for n in range(y0 // BAND, (y1 - 1) // BAND + 1):
            span = spans[n]
            spans[n] = (x0, x1) if span is None else (min(span[0], x0), max(span[1], x1))
            reaching[n].append(box)
    return spans, reaching


def _adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 of two pieces of data one after the other, from their own (zlib's
    ``adler32_combine``; ``length``: the second's)."""
    base = 65521
    rem = length % base
    a = first & 0xFFFF
    b = (rem * a) % base
    a += (second & 0xFFFF) + base - 1
    b += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + base - rem
    return (a % base) | ((b % base) << 16)


def _used(image: Image.Image) -> list[int]:
    """The palette indices ``image`` (mode P) uses, in order."""
    return sorted(i for _n, i in image.getcolors(256) or [] if isinstance(i, int))


def _framed(image: Image.Image) -> Image.Image:
    """``image`` (mode P) one column right, behind a column of 0: its rows as PNG filters them
    with type 0, the bytes of a band in one ``tobytes``."""
    framed = Image.new("P", (image.width + 1, image.height), 0)
    framed.paste(image, (1, 0))
    return framed


def _rows(framed: Image.Image, y: int) -> bytes:
    """The rows of a band of a :func:`_framed` image from ``y``, each behind its filter byte."""
    return framed.crop((0, y, framed.width, min(framed.height, y + SUB))).tobytes()


def _deflate(raw: bytes, level: int, strategy: int = zlib.Z_DEFAULT_STRATEGY) -> bytes:
    """``raw`` deflated and ended by a full flush, so that bands so made follow each other."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    return c.compress(raw) + c.flush(zlib.Z_FULL_FLUSH)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
