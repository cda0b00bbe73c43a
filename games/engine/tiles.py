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

# The tiles' names: the one table (the site's games/tile_names.py and face_label read it).
ZH_NUMERALS = "一二三四五六七八九"
ZH_SUITS = "万筒条"  # m p s
ZH_HONOURS = ("东", "南", "西", "北", "白", "发", "中")  # 1z..7z
EN_HONOURS = ("East", "South", "West", "North", "White", "Green", "Red")

TILE_CODES = {
    # code: English meaning; TileError.code is one of these, TileError.params its details
    "not_text": "tiles must be a string in mpsz notation",
    "bad_text": "not mpsz notation (params: text, bad = the text from the first unreadable character)",
    "honour_range": "honors are 1z-7z (params: tile, e.g. 8z)",
    "suit_range": "suited tiles run 1-9 (params: tile, e.g. 0m)",
    "one_tile": "one tile was expected (params: text)",
    "no_face": "no such tile face (params: face)",
    "meld_syntax": "a meld is written kind:tiles (params: text)",
    "meld_kind": "unknown meld kind (params: text, kind)",
    "meld_wild": "a wild cannot be part of a meld (params: tile)",
    "meld_shape": "the tiles do not make that meld (params: kind, tiles)",
}


class TileError(ValueError):
    """A string that is not valid tile notation, or an impossible set of tiles.

    str(e) is an English sentence for logs and the JSON contracts; `code` (one of TILE_CODES)
    and `params` say why for programs: the site words the code (games/tile_names.py)."""

    def __init__(self, message: str = "", code: str = "bad_text", params: dict | None = None):
        super().__init__(message or TILE_CODES.get(code, code))
        self.code = code
        self.params = dict(params or {})


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
        raise TileError(f"no such tile face {face}", "no_face", {"face": face})
    return f"{number_of(face)}{SUITS[suit_of(face)]}"


def face_label(face: int, lang: str = "en") -> str:
    """A human label: '5p' in English, '五筒' / '中' in Chinese."""
    if lang == "zh":
        if is_honor(face):
            return ZH_HONOURS[face - 27]
        return ZH_NUMERALS[face % 9] + ZH_SUITS[suit_of(face)]
    if is_honor(face):
        return EN_HONOURS[face - 27]
    return face_name(face)


_TOKEN = re.compile(r"([0-9]+)([mpsz])")  # ASCII digits only (\d would also read １ or ١)


def parse_tiles(text: str) -> list[int]:
    """Parse mpsz notation ('123m456p11z') into a list of faces, in written order.

    Raises TileError with a clear reason on anything else. Does not check copies.
    """
    if not isinstance(text, str):
        raise TileError("tiles must be a string in mpsz notation, e.g. 123m456p11z", "not_text")
    s = text.strip().replace(" ", "")
    if s == "":
        return []
    pos = 0
    faces: list[int] = []
    for m in _TOKEN.finditer(s):
        if m.start() != pos:
            raise TileError(f"bad tile notation {text!r} at {s[pos:m.start()]!r}", "bad_text",
                            {"text": text, "bad": s[pos:]})
        digits, suit = m.group(1), m.group(2)
        for d in digits:
            n = int(d)
            if suit == "z":
                if not 1 <= n <= 7:
                    raise TileError(f"no honor tile {n}z (honors are 1z-7z) in {text!r}", "honour_range",
                                    {"tile": f"{n}z"})
                faces.append(27 + n - 1)
            else:
                if not 1 <= n <= 9:
                    raise TileError(f"no tile {n}{suit} (suits run 1-9) in {text!r}", "suit_range",
                                    {"tile": f"{n}{suit}"})
                faces.append(SUITS.index(suit) * 9 + n - 1)
        pos = m.end()
    if pos != len(s):
        raise TileError(f"bad tile notation {text!r}: {s[pos:]!r} has no suit letter m/p/s/z", "bad_text",
                        {"text": text, "bad": s[pos:]})
    return faces


def parse_tile(text: str) -> int:
    faces = parse_tiles(text)
    if len(faces) != 1:
        raise TileError(f"expected one tile, got {text!r}", "one_tile", {"text": text})
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
