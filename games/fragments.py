"""A socket message as the page's htmx ws extension (static/vendor/ws.js) takes it: each top-level
element is swapped for the element of the same id (outerHTML). For the tests' simulated pages
(tests/room_helpers.py) and anything else in Python that keeps a page from the socket's messages.

The elements the site sends start with their id (`<div id="…"`, `<section id="…"`), and their
HTML is balanced, so an element ends where the tags of its name opened since its start are closed.
"""

from __future__ import annotations

import re

_ELEMENT = re.compile(r'<(section|div|span) id="([^"]+)"')
_TAGS = {name: re.compile(rf"<{name}\b|</{name}>") for name in ("section", "div", "span")}


def _end_of(html: str, start: int, tag: str) -> int:
    depth = 0
    for t in _TAGS[tag].finditer(html, start):
        depth += -1 if t.group().startswith("</") else 1
        if depth == 0:
            return t.end()
    return len(html)  # not closed: to the end


def top_level(message: str) -> list[tuple[str | None, str]]:
    """[(id, html)] of the message's top-level elements, in order; text between or around them
    (other than whitespace) as (None, text)."""
    out, at = [], 0
    while True:
        m = _ELEMENT.search(message, at)
        if m is None:
            break
        if message[at:m.start()].strip():
            out.append((None, message[at:m.start()].strip()))
        end = _end_of(message, m.start(), m.group(1))
        out.append((m.group(2), message[m.start():end]))
        at = end
    if message[at:].strip():
        out.append((None, message[at:].strip()))
    return out


def splice(html: str, element_id: str, element: str) -> str:
    """`html` with its element of id `element_id` swapped for `element` (KeyError: none there)."""
    m = re.search(rf'<(section|div|span) id="{re.escape(element_id)}"', html)
    if m is None:
        raise KeyError(element_id)
    return html[:m.start()] + element + html[_end_of(html, m.start(), m.group(1)):]
