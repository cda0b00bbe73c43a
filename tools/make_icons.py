#!/usr/bin/env python3
"""Draw the home-screen icons (static/icons/*.png) for static/manifest.webmanifest.

Pure Python (zlib for PNG): no downloads, no image library. The design is the favicon's
(static/favicon.svg): an ivory tile showing a red 中 (the red dragon), here standing on the
felt green of static/css/site.css. Every pixel is the exact area coverage of signed-distance
shapes (anti-aliased, no supersampling), so the output is byte-for-byte reproducible:

    .venv/bin/python tools/make_icons.py            # writes static/icons/
    .venv/bin/python tools/make_icons.py --check    # exits 1 if a committed icon differs

Icons: icon-192.png and icon-512.png ("any": a rounded green square with transparent corners),
icon-maskable-512.png ("maskable": full-bleed green, the tile inside the 80 % safe circle) and
apple-touch-icon.png (180 px, opaque: iOS rounds the corners itself and shows transparency as black).
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "static" / "icons"

FELT = (0x0D, 0x5C, 0x44)  # --felt
FELT_DARK = (0x09, 0x40, 0x2F)  # --felt-dark
PAPER = (0xFB, 0xF8, 0xF1)  # --paper: the tile's face
EDGE = (0xC9, 0x9A, 0x2E)  # --gold: the tile's side
RED = (0xB3, 0x26, 0x1E)  # --accent: 中

# name: (size, kind); kind "any" has transparent corners, the others are full-bleed squares
ICONS = {
    "icon-192.png": (192, "any"),
    "icon-512.png": (512, "any"),
    "icon-maskable-512.png": (512, "maskable"),
    "apple-touch-icon.png": (180, "full"),
}


def box(px, py, cx, cy, hw, hh, r):
    """Signed distance from (px, py) to a rounded rectangle (centre, half sizes, corner radius)."""
    qx = abs(px - cx) - (hw - r)
    qy = abs(py - cy) - (hh - r)
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    return outside + min(max(qx, qy), 0.0) - r


def coverage(d, px_size):
    """Fraction of a pixel inside a shape whose border is `d` (in units) away."""
    return min(1.0, max(0.0, 0.5 - d / px_size))


def shapes(kind):
    """The design in unit coordinates (0..1 across the icon): (colour, opacity, distance function),
    painted in order. The tile shrinks for the maskable safe zone (a circle of radius 0.4)."""
    scale = {"any": 0.78, "maskable": 0.66, "full": 0.80}[kind]
    cx, cy = 0.5, 0.5

    def at(x, y):  # favicon coordinates (viewBox 32 x 40, tile centre 16, 20) -> unit square
        return cx + (x - 16) / 40 * scale, cy + (y - 20) / 40 * scale - 0.01

    def u(v):  # a favicon length in units
        return v / 40 * scale

    tx, ty = at(16, 20)
    bar_x, bar_y = at(16, 20)
    box_x, box_y = at(16, 18.5)
    out = []
    if kind == "any":
        out.append((FELT, 1.0, lambda x, y: box(x, y, 0.5, 0.5, 0.5, 0.5, 0.19)))
        out.append((FELT_DARK, 0.55, lambda x, y: max(box(x, y, 0.5, 0.5, 0.5, 0.5, 0.19),
                                                      -box(x, y, 0.5, 0.5, 0.485, 0.485, 0.178))))
    else:
        out.append((FELT, 1.0, lambda x, y: -1.0))
    out += [
        # shadow, side (thickness) and face of the tile
        ((0, 0, 0), 0.28, lambda x, y: box(x, y, tx + u(0.6), ty + u(2.6), u(15), u(19), u(5)) - u(0.6)),
        (EDGE, 1.0, lambda x, y: box(x, y, tx, ty + u(1.8), u(15), u(19), u(5))),
        (PAPER, 1.0, lambda x, y: box(x, y, tx, ty, u(15), u(19), u(5))),
        # 中: the frame (a box outline) and the stroke through it, as in favicon.svg
        (RED, 1.0, lambda x, y: max(box(x, y, box_x, box_y, u(10.5), u(7), u(2)),
                                    -box(x, y, box_x, box_y, u(7.5), u(4), u(0.8)))),
        (RED, 1.0, lambda x, y: box(x, y, bar_x, bar_y, u(1.6), u(14), u(0.6))),
    ]
    return out


def render(size: int, kind: str) -> list[bytearray]:
    """Rows of RGBA bytes."""
    layers = shapes(kind)
    px = 1.0 / size
    rows = []
    for j in range(size):
        y = (j + 0.5) / size
        row = bytearray(size * 4)
        for i in range(size):
            x = (i + 0.5) / size
            r = g = b = a = 0.0  # premultiplied
            for colour, opacity, dist in layers:
                c = coverage(dist(x, y), px) * opacity
                if c <= 0.0:
                    continue
                r = colour[0] * c + r * (1 - c)
                g = colour[1] * c + g * (1 - c)
                b = colour[2] * c + b * (1 - c)
                a = c + a * (1 - c)
            if a > 0:
                row[i * 4:i * 4 + 4] = bytes((round(r / a), round(g / a), round(b / a), round(a * 255)))
        rows.append(row)
    return rows


def png(rows: list[bytearray], size: int) -> bytes:
    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 on every row
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def icon_bytes(name: str) -> bytes:
    size, kind = ICONS[name]
    return png(render(size, kind), size)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="compare with the files instead of writing")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stale = []
    for name in ICONS:
        data = icon_bytes(name)
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"{path} ({len(data)} bytes)")
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
