"""{{ "123m5z"|tiles:wild }} renders tiles as small face chips; tiles of the wild face (or of each face
of a list of them) are marked."""

from django import template
from django.utils.html import format_html, format_html_join

from games import tile_names
from games.engine.tiles import TileError, face_name

register = template.Library()


@register.filter
def tiles(text, wild=None):
    try:
        faces = tile_names.read_tiles(text)
    except TileError:
        return text
    wilds = wild if isinstance(wild, (list, tuple)) else [wild] if wild else []  # Zhuji: up to two faces
    chips = []
    for face in faces:
        tile = face_name(face)
        top, bottom = tile_names.chip(face)
        classes = f"tile tile-{tile[1]}" + (" tile-wild" if tile in wilds else "")
        chips.append((classes, tile, top, bottom))
    return format_html(
        '<span class="tiles">{}</span>',
        format_html_join("", '<span class="{}" title="{}">{}<small>{}</small></span>', chips),
    )


@register.filter
def meld_tiles(meld):
    """'pung:777z' -> its tiles (the kind is shown separately)."""
    return meld.partition(":")[2]


@register.filter
def meld_kind(meld):
    """'pung:777z' -> the kind's label: 碰 (Pung in English)."""
    kind = meld.partition(":")[0]
    return tile_names.MELD_LABELS.get(kind, kind)
