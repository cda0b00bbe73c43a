"""Tiles at the table: {% load table_tiles %}.

    {% tile t %}                      one face-up tile from seat_view (a dict: code, label, wild),
                                      or a face-down one ({"code": "back", "hidden": True})
    {% tile t "big" %}                with extra CSS classes
    {% tile_button t action="discard" v=41 h=7 %}
                                      a button that sends {"action": "discard", "tile": t.code, ...}
                                      over the room socket (htmx ws-send)
    {{ 12.5|hu }}                     12.5 / 12 (no trailing .0)

Every face-up tile carries data-tile="<mpsz code>" and nothing else does: the no-leak tests count
these to check that a seat's HTML shows exactly the tiles that seat may see. Face-down tiles have
no data-tile.
"""

import json

from django import template
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.translation import gettext as _

register = template.Library()


def _classes(t, extra):
    classes = ["mtile"]
    if t.get("wild"):
        classes.append("wild")
    if extra:
        classes.append(extra)
    return " ".join(classes)


@register.simple_tag
def tile(t, extra=""):
    if not t:
        return ""
    if t.get("hidden") or t.get("code") == "back":
        return format_html('<span class="mtile back {}" title="{}"><img src="{}" alt="{}" width="48" height="64"></span>',
                           extra, _("暗牌"), static("tiles/back.svg"), _("暗牌"))
    label = t.get("label", t["code"])
    title = f"{label} · {_('财神')}" if t.get("wild") else label
    return format_html('<span class="{}" data-tile="{}" title="{}"><img src="{}" alt="{}" width="48" height="64"></span>',
                       _classes(t, extra), t["code"], title, static(f"tiles/{t['code']}.svg"), title)


@register.simple_tag
def tile_button(t, extra="", **values):
    label = t.get("label", t["code"])
    vals = {**values, "tile": t["code"]}
    title = f"{label} · {_('财神')}" if t.get("wild") else label
    return format_html(
        '<button type="button" class="{}" data-tile="{}" ws-send hx-vals="{}" title="{}" aria-label="{}">'
        '<img src="{}" alt="" width="48" height="64"></button>',
        _classes(t, extra), t["code"], json.dumps(vals, ensure_ascii=False, separators=(",", ":")), title,
        _("打出 %(tile)s") % {"tile": title}, static(f"tiles/{t['code']}.svg"))


@register.filter
def hu(value):
    """A 胡 amount without a trailing .0; a sign with signed=True is the job of |signed."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value


@register.filter
def signed(value):
    value = hu(value)
    if value == "" or value is None:
        return ""
    return f"+{value}" if value > 0 else str(value)
