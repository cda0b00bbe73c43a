"""mpsz tile notation helpers for forms and display (the engine has its own full parser).

"123m456p11z" -> ["1m", "2m", "3m", "4p", "5p", "6p", "1z", "1z"].
"""

import re

from django.utils.translation import gettext as _

_GROUP = re.compile(r"([0-9]+)([mpsz])")
MELD_KINDS = ("chow", "pung", "kong", "ckong")
SEATS = ("E", "S", "W", "N")

SUIT_NAMES_ZH = {"m": "万", "p": "筒", "s": "条"}
NUMERALS_ZH = "一二三四五六七八九"
HONOR_NAMES_ZH = {1: "东", 2: "南", 3: "西", 4: "北", 5: "白", 6: "发", 7: "中"}
HONOR_NAMES_EN = {1: "East", 2: "South", 3: "West", 4: "North", 5: "White", 6: "Green", 7: "Red"}


class NotationError(ValueError):
    pass


def compact(text):
    """Remove all whitespace and lowercase: ' 123M 4p ' -> '123m4p'."""
    return "".join(text.split()).lower()


def parse_tiles(text):
    """Parse compact mpsz text into a list of tiles like '5p'; raise NotationError with a reason."""
    tiles = []
    pos = 0
    for match in _GROUP.finditer(text):
        if match.start() != pos:
            break
        digits, suit = match.groups()
        for digit in digits:
            n = int(digit)
            if suit == "z" and not 1 <= n <= 7:
                raise NotationError(_("%(tile)s：字牌只有 1z–7z") % {"tile": f"{digit}z"})
            if suit != "z" and not 1 <= n <= 9:
                raise NotationError(_("%(tile)s：数牌只有 1–9") % {"tile": f"{digit}{suit}"})
            tiles.append(f"{n}{suit}")
        pos = match.end()
    if pos != len(text) or not text:
        bad = text[pos:] or text
        raise NotationError(_("无法识别“%(bad)s”：请用 mpsz 写法，如 123m456p11z") % {"bad": bad})
    return tiles


def parse_tile(text):
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(_("“%(text)s”应为一张牌，如 5p") % {"text": text})
    return tiles[0]


def split_melds(text):
    """Melds one per line or separated by commas/semicolons/spaces: 'pung:777z, chow:345s'."""
    return [part for part in re.split(r"[\s,;，；]+", text.strip().lower()) if part]


def parse_meld(text):
    kind, sep, tiles = text.partition(":")
    if not sep:
        kind, sep, tiles = text.partition("：")
    if not sep or kind not in MELD_KINDS:
        raise NotationError(
            _("副露“%(text)s”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）") % {"text": text}
        )
    parse_tiles(tiles)
    return f"{kind}:{tiles}"


def tile_label(tile, lang="zh"):
    """Human name of one tile: '5p' -> '五筒' (zh) or '5 dots' (en)."""
    n, suit = int(tile[0]), tile[1]
    if suit == "z":
        return HONOR_NAMES_ZH[n] if lang == "zh" else HONOR_NAMES_EN[n]
    if lang == "zh":
        return NUMERALS_ZH[n - 1] + SUIT_NAMES_ZH[suit]
    return f"{n} {dict(m='characters', p='dots', s='bamboo')[suit]}"
