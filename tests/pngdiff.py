"""A tolerant comparison of two screenshots: what the page looks like, not its pixels.

Two screenshots of the same page on two machines differ in their text's pixels (another
build of the fonts, another hinting or antialiasing: a glyph a pixel wider moves the rest
of its line), while what a person sees, the layout, the panels, the colours, is the same.
So the images are compared as coarse mosaics: each cut into :data:`BLOCK` x :data:`BLOCK`
pixel blocks, each block reduced to its mean red, green and blue. A line of text becomes
a band of grey blocks whose exact glyphs hardly matter, while a missing panel, a card
drawn otherwise, a style that did not apply or another line selected changes many blocks
a lot. Two measures come of it (:class:`Difference`): the mean difference of the blocks
and the share of blocks that differ by more than :data:`FAR` in some colour.

PNG is decoded here (8-bit RGB or RGBA, not interlaced: what Chromium writes) with zlib
alone, so the test needs no imaging library.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

BLOCK = 16
"""Pixels on a side of one block of the mosaic."""
FAR = 32
"""A block differs a lot when one of its mean colours is this far (of 255) from the other."""
SIGNATURE = b"\x89PNG\r\n\x1a\n"


class PngError(ValueError):
    """Not a PNG this module reads."""


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]


def decode(data: bytes) -> Image:
    """The pixels of an 8-bit RGB or RGBA PNG, row by row."""
    if not data.startswith(SIGNATURE):
        raise PngError("not a PNG")
    pos = len(SIGNATURE)
    chunks: list[bytes] = []
    header: tuple[int, ...] | None = None
    while pos + 8 <= len(data):
        (size,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise PngError("no IHDR chunk")
    width, height, depth, colour, _compression, _filter, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise PngError(f"depth {depth}, colour type {colour}, interlace {interlace}: "
                       "only 8-bit RGB or RGBA, not interlaced")
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    at = 0
    for _ in range(height):
        row = bytearray(raw[at + 1:at + 1 + stride])
        _unfilter(raw[at], row, previous, channels)
        at += 1 + stride
        rows.append(bytes(row))
        previous = row
    return Image(width, height, channels, rows)


def _unfilter(kind: int, row: bytearray, up: bytearray, bpp: int) -> None:
    """Undo one row's PNG filter in place (None, Sub, Up, Average, Paeth)."""
    n = len(row)
    if kind == 0:
        return
    if kind == 1:
        for x in range(bpp, n):
            row[x] = (row[x] + row[x - bpp]) & 0xFF
    elif kind == 2:
        row[:] = bytes((a + b) & 0xFF for a, b in zip(row, up, strict=True))
    elif kind == 3:
        for x in range(n):
            left = row[x - bpp] if x >= bpp else 0
            row[x] = (row[x] + ((left + up[x]) >> 1)) & 0xFF
    elif kind == 4:
        for x in range(n):
            a = row[x - bpp] if x >= bpp else 0
            b = up[x]
            c = up[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    else:
        raise PngError(f"unknown row filter {kind}")


def mosaic(image: Image, block: int = BLOCK) -> list[tuple[float, float, float]]:
    """The mean (red, green, blue) of each block, row of blocks by row of blocks."""
    bpp = image.channels
    across = (image.width + block - 1) // block
    down = (image.height + block - 1) // block
    sums = [[0, 0, 0] for _ in range(across * down)]
    counts = [0] * (across * down)
    for y, row in enumerate(image.rows):
        base = (y // block) * across
        for bx in range(across):
            x0, x1 = bx * block, min((bx + 1) * block, image.width)
            cell = sums[base + bx]
            for c in range(3):
                cell[c] += sum(row[x0 * bpp + c:x1 * bpp:bpp])
            counts[base + bx] += x1 - x0
    return [(r / n, g / n, b / n) for (r, g, b), n in zip(sums, counts, strict=True)]


@dataclass(frozen=True)
class Difference:
    """How far two screenshots are apart, as mosaics."""

    same_size: bool
    mean: float
    """The mean over the blocks of their largest colour difference (0 to 255)."""
    far: float
    """The share of blocks (0 to 1) that differ by more than :data:`FAR`."""

    def within(self, mean: float, far: float) -> bool:
        return self.same_size and self.mean <= mean and self.far <= far

    def __str__(self) -> str:
        if not self.same_size:
            return "the images differ in size"
        return f"mean block difference {self.mean:.2f}, {100 * self.far:.2f}% of blocks far apart"


def difference(a: bytes, b: bytes) -> Difference:
    """The difference of two PNG screenshots (see the module's docstring)."""
    one, two = decode(a), decode(b)
    if (one.width, one.height) != (two.width, two.height):
        return Difference(False, 255.0, 1.0)
    apart = [max(abs(x - y) for x, y in zip(p, q, strict=True))
             for p, q in zip(mosaic(one), mosaic(two), strict=True)]
    return Difference(True, sum(apart) / len(apart), sum(d > FAR for d in apart) / len(apart))
