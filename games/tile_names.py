"""Tiles in the site's words: what a player types, the chips' faces, why a tile text is wrong.

The tiles' names are the engine's one table (games/engine/tiles.py: ZH_NUMERALS, ZH_SUITS,
ZH_HONOURS, EN_HONOURS), which its `face_label(face, lang)` reads for a tile's whole name; the
chips of `{{ text|tiles }}` and the tile drawings (make_tile_svgs) take theirs from here.
The engine says why a text is not mpsz notation with a `TileError` code and params;
`error_message` words that code in the active language (one gettext message per code of
`tiles.TILE_CODES`; tests/test_tile_names.py checks every code is worded).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from games.engine.tiles import (
    SUITS,
    ZH_HONOURS,
    ZH_NUMERALS,
    ZH_SUITS,
    TileError,
    is_honor,
    number_of,
    parse_tiles,
    suit_of,
)

SUIT_NAMES_ZH = dict(zip(SUITS, ZH_SUITS))  # {"m": "万", "p": "筒", "s": "条"}
HONOUR_NAMES_ZH = dict(zip(("1z", "2z", "3z", "4z", "5z", "6z", "7z"), ZH_HONOURS))  # {"1z": "东", ...}

MESSAGES = {
    "not_text": gettext_noop("无法识别“%(bad)s”：请用 mpsz 写法，如 123m456p11z"),
    "bad_text": gettext_noop("无法识别“%(bad)s”：请用 mpsz 写法，如 123m456p11z"),
    "honour_range": gettext_noop("%(tile)s：字牌只有 1z–7z"),
    "suit_range": gettext_noop("%(tile)s：数牌只有 1–9"),
    "one_tile": gettext_noop("“%(text)s”应为一张牌，如 5p"),
    "no_face": gettext_noop("无法识别“%(bad)s”：请用 mpsz 写法，如 123m456p11z"),
    "meld_syntax": gettext_noop(
        "副露“%(text)s”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）"),
    "meld_kind": gettext_noop(
        "副露“%(text)s”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）"),
    "meld_wild": gettext_noop("财神不能用在副露里：%(tile)s"),
    "meld_shape": gettext_noop("%(tiles)s 不是%(kind)s"),
}

# the meld kinds' words (the calculator's chips, the meld_shape message)
MELD_LABELS = {"chow": gettext_lazy("吃"), "pung": gettext_lazy("碰"), "kong": gettext_lazy("明杠"),
               "ckong": gettext_lazy("暗杠")}


class _Params(dict):
    def __missing__(self, key):  # a message may name a detail this error has not got
        return ""


def compact(text) -> str:
    """Remove all whitespace and lowercase: ' 123M 4p ' -> '123m4p' (what a player types)."""
    return "".join(str(text or "").split()).lower()


def read_tiles(text) -> list[int]:
    """The faces of what a player typed (spaces and capitals allowed). Raises TileError; an
    empty text is an error too (code bad_text, bad "")."""
    text = compact(text)
    if not text:
        raise TileError("no tiles", "bad_text", {"text": "", "bad": ""})
    return parse_tiles(text)


def error_message(error: TileError) -> str:
    """Why a tile text is wrong, in the active language."""
    params = _Params(error.params)
    params.setdefault("bad", params.get("text", params.get("face", "")))
    if params.get("kind") in MELD_LABELS:
        params["kind"] = MELD_LABELS[params["kind"]]
    return _(MESSAGES.get(error.code, MESSAGES["bad_text"])) % params


def chip(face: int) -> tuple[str, str]:
    """The two lines of a tile chip: ('五', '筒') for 5p, ('中', '') for 7z."""
    if is_honor(face):
        return ZH_HONOURS[face - 27], ""
    return ZH_NUMERALS[number_of(face) - 1], ZH_SUITS[suit_of(face)]
