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
from django.core.signals import setting_changed
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from games.fast_html import escape  # conditional_escape, cheaper (every hand button of every move)
from games.fast_i18n import get_language  # asked for every tile of every seat's render

register = template.Library()

# A table shows ~60 tiles per seat and re-renders on every move: a tile's HTML depends only on
# its face, label, wild flag, classes and the language, so it is made once per process.
_made: dict = {}


def _forget(**kwargs):  # STATIC_URL / storage changed (tests)
    _made.clear()


setting_changed.connect(_forget)


def _src(code):
    key = ("src", code)
    url = _made.get(key)
    if url is None:
        url = _made[key] = static(f"tiles/{code}.svg")
    return url


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
    hidden = bool(t.get("hidden") or t.get("code") == "back")
    key = ("tile", hidden, None if hidden else t["code"], None if hidden else t.get("label", t["code"]),
           bool(t.get("wild")) and not hidden, str(extra), get_language())
    html = _made.get(key)
    if html is None:
        if len(_made) > 20000:
            _made.clear()
        html = _made[key] = _tile(t, extra, hidden)
    return html


def _tile(t, extra, hidden):
    if hidden:
        return format_html('<span class="mtile back {}" title="{}"><img src="{}" alt="{}" width="48" height="64"></span>',
                           extra, _("暗牌"), _src("back"), _("暗牌"))
    label = t.get("label", t["code"])
    title = f"{label} · {_('财神')}" if t.get("wild") else label
    return format_html('<span class="{}" data-tile="{}" title="{}"><img src="{}" alt="{}" width="48" height="64"></span>',
                       _classes(t, extra), t["code"], title, _src(t["code"]), title)


@register.simple_tag
def tile_picture(t):
    """A tile drawn as an illustration (a claim button's tiles): no data-tile, so nothing that
    counts the tiles on the table (tests, scripts) counts it twice."""
    label = t.get("label", t["code"])
    return format_html('<span class="{}" aria-hidden="true"><img src="{}" alt="{}" width="48" height="64"></span>',
                       _classes(t, "pic"), _src(t["code"]), label)


@register.simple_tag
def tile_button(t, extra="", **values):
    """The hand's tile buttons are re-rendered with the hand's version on every move: the button
    around the values is made once per face, classes and language (like `tile`); only the
    values (escaped JSON) are filled in."""
    label = t.get("label", t["code"])
    key = ("button", t["code"], label, bool(t.get("wild")), str(extra), get_language())
    made = _made.get(key)
    if made is None:
        if len(_made) > 20000:
            _made.clear()
        title = f"{label} · {_('财神')}" if t.get("wild") else label
        made = _made[key] = (
            format_html('<button type="button" class="{}" data-tile="{}" ws-send hx-vals="',
                        _classes(t, extra), t["code"]),
            format_html('" title="{}" aria-label="{}"><img src="{}" alt="" width="48" height="64"></button>',
                        title, _("打出 %(tile)s") % {"tile": title}, _src(t["code"])))
    if "tile" in values:
        return mark_safe(made[0] + escape(json.dumps({**values, "tile": t["code"]}, ensure_ascii=False,
                                                     separators=(",", ":"))) + made[1])
    return mark_safe(made[0] + _values_head(values) + escape(json.dumps(t["code"], ensure_ascii=False))
                     + "}" + made[1])


_heads: dict = {}  # the hand's buttons share their values but the tile: ~14 a render, new each version


def _values_head(values: dict) -> str:
    """json.dumps({**values, "tile": …}) escaped, up to the tile's code: `{&quot;action&quot;:…,&quot;tile&quot;:`
    (the same escaped JSON as the whole, since escaping goes character by character)."""
    key = tuple(values.items())
    head = _heads.get(key)
    if head is None:
        if len(_heads) > 256:
            _heads.clear()
        body = json.dumps(values, ensure_ascii=False, separators=(",", ":"))[:-1]
        head = _heads[key] = escape(body + ("," if values else "") + '"tile":')
    return head


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
