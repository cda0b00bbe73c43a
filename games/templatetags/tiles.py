"""{{ "123m5z"|tiles:wild }} renders tiles as small face chips; tiles of the wild face are marked."""

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from games import notation

register = template.Library()


def _face(tile):
    n, suit = int(tile[0]), tile[1]
    if suit == "z":
        return notation.HONOR_NAMES_ZH[n], ""
    return notation.NUMERALS_ZH[n - 1], notation.SUIT_NAMES_ZH[suit]


@register.filter
def tiles(text, wild=None):
    try:
        faces = notation.parse_tiles(notation.compact(text or ""))
    except notation.NotationError:
        return text
    chips = []
    for tile in faces:
        top, bottom = _face(tile)
        classes = f"tile tile-{tile[1]}" + (" tile-wild" if wild and tile == wild else "")
        chips.append((classes, tile, top, bottom))
    return format_html(
        '<span class="tiles">{}</span>',
        format_html_join("", '<span class="{}" title="{}">{}<small>{}</small></span>', chips),
    )


@register.filter
def meld_tiles(meld):
    """'pung:777z' -> its tiles (the kind is shown separately)."""
    return meld.partition(":")[2]


MELD_LABELS = {"chow": _("吃"), "pung": _("碰"), "kong": _("明杠"), "ckong": _("暗杠")}


@register.filter
def meld_kind(meld):
    """'pung:777z' -> the kind's label: 碰 (Pung in English)."""
    kind = meld.partition(":")[0]
    return MELD_LABELS.get(kind, kind)
