"""The active language and gettext, cheap, for the seat renders a socket does on every move.

Django keeps the active translation in an asgiref Local: ~1.3 µs to ask the language, ~2.8 µs a
gettext; a move's four seat renders ask ~100 and ~45 times (the memo keys, the tiles, the table
bar's words), ~0.25 ms of the move's ~4 ms (bench/move_cpu.py, issue 17). `override(language)` is
translation.override that also notes the language in a context variable (~0.05 µs to read), and
`gettext` keeps each message's translation per language. Outside `override` both ask Django, so
they are right anywhere; inside, nothing may switch Django's language again (the seat renders
don't: tests/test_fast_i18n.py).
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager

from django.utils import translation

_language: contextvars.ContextVar = contextvars.ContextVar("games_render_language", default=None)
_translated: dict = {}  # (language, message) -> its translation
_LIMIT = 20_000  # messages are literals; a caller passing text of its own would otherwise grow it


@contextmanager
def override(language: str):
    token = _language.set(language)
    try:
        with translation.override(language):
            yield
    finally:
        _language.reset(token)


def get_language() -> str | None:
    return _language.get() or translation.get_language()


def gettext(message: str) -> str:
    key = (get_language(), message)
    out = _translated.get(key)
    if out is None:
        if len(_translated) > _LIMIT:
            _translated.clear()
        out = _translated[key] = translation.gettext(message)
    return out
