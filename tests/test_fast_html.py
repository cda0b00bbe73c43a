"""The cheap escape of the seat renders (games/fast_html.py) gives exactly what Django's
conditional_escape gives: the same text, a SafeString, already-safe HTML left alone — for every
kind of value the renders hand it, and for any text at all."""

from decimal import Decimal

from django.utils.functional import lazy
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st

from games.fast_html import escape
from games.templatetags.table_tiles import tile_button


def _same(value):
    mine, django = escape(value), conditional_escape(value)
    assert mine == django, value
    assert isinstance(mine, SafeString) and type(mine) is type(django), value
    return mine


VALUES = [
    "", "余牌", 'a < b & "c" > \'d\'', "<script>alert(1)</script>", "&amp; already", "5p",
    mark_safe("<b>safe</b>"), format_html("<i>{}</i>", "<x>"),
    0, 41, -3, 10**20, True, False, None, 2.5, Decimal("1.50"),
    gettext_lazy("出牌"), lazy(lambda: "<lazy & text>", str)(),
]


def test_every_kind_of_value_the_renders_give_it():
    for value in VALUES:
        _same(value)


def test_safe_html_comes_back_as_it_is():
    html = mark_safe('<span class="k">余牌</span>')
    assert escape(html) is html


def test_a_str_subclass_that_is_not_safe_is_escaped():
    class Name(str):
        pass

    assert _same(Name("<Ann>")) == "&lt;Ann&gt;"


@given(st.text())
def test_any_text(text):
    _same(text)


@given(st.integers())
def test_any_integer(number):
    _same(number)


def test_a_tile_button_s_values_are_escaped_as_before():
    html = tile_button({"code": "5p", "label": "五筒"}, action="discard", v=41, h=7)
    assert 'hx-vals="{&quot;action&quot;:&quot;discard&quot;,&quot;v&quot;:41,&quot;h&quot;:7,&quot;tile&quot;:&quot;5p&quot;}"' in html


@settings(max_examples=200, deadline=None)
@given(values=st.dictionaries(st.sampled_from(["action", "v", "h", "tile", "x"]),
                              st.one_of(st.integers(), st.text(max_size=6))),
       code=st.sampled_from(["5p", "1z", "9s", 'a"<&']))
def test_a_tile_button_s_values_are_the_escaped_json_of_all_of_them(values, code):
    """tile_button makes the escaped JSON of the values but the tile once for the hand's buttons
    (_values_head): the same text as escaping json.dumps of them all, whatever the values."""
    import json

    from django.utils.html import escape as django_escape

    html = tile_button({"code": code, "label": "x"}, **values)
    expected = django_escape(json.dumps({**values, "tile": code}, ensure_ascii=False, separators=(",", ":")))
    assert f'hx-vals="{expected}"' in html
