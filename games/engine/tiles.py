"""Tiles and the mpsz notation.

A tile face is an int 0..33: 0-8 = 1m..9m (万), 9-17 = 1p..9p (筒), 18-26 = 1s..9s (条),
27-33 = 1z..7z (East, South, West, North, White 白, Green 发, Red 中).
A physical tile is a face; the 136 tiles are four copies of each face.
"""

from __future__ import annotations

import re

MAN, PIN, SOU, HONOR = 0, 1, 2, 3
SUITS = "mpsz"
NUM_FACES = 34
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
SEAT_NAMES = ("E", "S", "W", "N")
SEAT_WIND = {"E": EAST, "S": SOUTH, "W": WEST, "N": NORTH}

_ZH_SUIT = {0: "万", 1: "筒", 2: "条"}
_ZH_NUM = "一二三四五六七八九"
_ZH_HONOR = ("东", "南", "西", "北", "白", "发", "中")
_EN_HONOR = ("East", "South", "West", "North", "White", "Green", "Red")


class TileError(ValueError):
    """A string that is not valid tile notation, or an impossible set of tiles."""


def suit_of(face: int) -> int:
    return face // 9


def number_of(face: int) -> int:
    """1..9 for suited tiles, 1..7 for honors."""
    return face % 9 + 1


def is_honor(face: int) -> bool:
    return face >= 27


def is_terminal(face: int) -> bool:
    return face < 27 and face % 9 in (0, 8)


def is_terminal_or_honor(face: int) -> bool:
    return face >= 27 or face % 9 in (0, 8)


def is_dragon(face: int) -> bool:
    return face >= WHITE


def face_name(face: int) -> str:
    """mpsz name of one face, e.g. '5p', '7z'."""
    if not 0 <= face < NUM_FACES:
        raise TileError(f"no such tile face {face}")
    return f"{number_of(face)}{SUITS[suit_of(face)]}"


def face_label(face: int, lang: str = "en") -> str:
    """A human label: '5p' in English, '五筒' / '中' in Chinese."""
    if lang == "zh":
        if is_honor(face):
            return _ZH_HONOR[face - 27]
        return _ZH_NUM[face % 9] + _ZH_SUIT[suit_of(face)]
    if is_honor(face):
        return _EN_HONOR[face - 27]
    return face_name(face)


_TOKEN = re.compile(r"(\d+)([mpsz])")


def parse_tiles(text: str) -> list[int]:
    """Parse mpsz notation ('123m456p11z') into a list of faces, in written order.

    Raises TileError with a clear reason on anything else. Does not check copies.
    """
    if not isinstance(text, str):
        raise TileError("tiles must be a string in mpsz notation, e.g. 123m456p11z")
    s = text.strip().replace(" ", "")
    if s == "":
        return []
    pos = 0
    faces: list[int] = []
    for m in _TOKEN.finditer(s):
        if m.start() != pos:
            raise TileError(f"bad tile notation {text!r} at {s[pos:m.start()]!r}")
        digits, suit = m.group(1), m.group(2)
        for d in digits:
            n = int(d)
            if suit == "z":
                if not 1 <= n <= 7:
                    raise TileError(f"no honor tile {n}z (honors are 1z-7z) in {text!r}")
                faces.append(27 + n - 1)
            else:
                if not 1 <= n <= 9:
                    raise TileError(f"no tile {n}{suit} (suits run 1-9) in {text!r}")
                faces.append(SUITS.index(suit) * 9 + n - 1)
        pos = m.end()
    if pos != len(s):
        raise TileError(f"bad tile notation {text!r}: {s[pos:]!r} has no suit letter m/p/s/z")
    return faces


def parse_tile(text: str) -> int:
    faces = parse_tiles(text)
    if len(faces) != 1:
        raise TileError(f"expected one tile, got {text!r}")
    return faces[0]


def format_tiles(faces) -> str:
    """Sorted compact mpsz, e.g. [0,1,2,27,27] -> '123m11z'."""
    out = []
    groups: dict[int, list[int]] = {}
    for f in sorted(faces):
        groups.setdefault(suit_of(f), []).append(number_of(f))
    for suit in range(4):
        if suit in groups:
            out.append("".join(str(n) for n in groups[suit]) + SUITS[suit])
    return "".join(out)


def counts_of(faces) -> list[int]:
    c = [0] * NUM_FACES
    for f in faces:
        c[f] += 1
    return c
