"""HTML escaping, cheap, for the seat renders a socket does on every move.

Django's conditional_escape goes through escape's keep_lazy wrapper (a generator over the
arguments looking for lazy strings) and SafeString's constructor for every value: ~2.5 µs a call,
and a move's four seat renders make ~100 (the table's player areas and bar, the hand, the clock,
the tile buttons' values; bench/move_cpu.py, issue 17). `escape` gives exactly what
conditional_escape gives — the same text, a SafeString — taking the plain str, int and SafeString
it is given on that path straight, and anything else (lazy strings, floats, objects with __html__)
to Django. tests/test_fast_html.py checks the two agree.
"""

from __future__ import annotations

from html import escape as _escape_text

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString


def escape(value) -> SafeString:
    kind = type(value)
    if kind is str:
        return SafeString(_escape_text(value))  # what django.utils.html.escape does to a str
    if kind is SafeString:
        return value  # its __html__ is itself
    if kind is int:
        return SafeString(value)  # digits and a sign: nothing to escape
    return conditional_escape(value)
