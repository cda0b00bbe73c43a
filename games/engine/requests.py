"""The fields every scoring request shares (shared/rules/README.md §contracts), read once for all
variants: a variant's own reader (Wenzhou's) and the common one (games/engine/contract.py)."""

from __future__ import annotations

from .melds import parse_meld
from .tiles import SEAT_NAMES, parse_tile, parse_tiles

LANGS = ("en", "zh")  # the languages of a score request's items (rules README)


class RequestError(ValueError):
    """A request the contract cannot answer; the text says which field and why."""


def read_head(req, variant_id: str) -> tuple:
    """(lang, seat) of a variant's score request, after checking it is one: `variant`, `lang`
    ("en" or "zh", default en) and `seat` (E, S, W or N)."""
    if not isinstance(req, dict) or req.get("variant") != variant_id:
        raise RequestError(f"not a {variant_id} request")
    lang = req.get("lang") or "en"
    if lang not in LANGS:
        raise RequestError(f"unknown lang {lang!r} (use en or zh)")
    seat = req.get("seat")
    if seat not in SEAT_NAMES:
        raise RequestError(f"seat must be one of E, S, W, N (got {seat!r})")
    return lang, seat


def whole(req: dict, name: str, default, low: int) -> int:
    """A whole number field of a request (missing or null: `default`), at least `low`."""
    value = req.get(name, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{name} must be a whole number")
    if value < low:
        raise RequestError(f"{name} must be {low} or more (got {value})")
    return value


def flag(req: dict, name: str) -> bool:
    """An optional true/false field (missing or null = false)."""
    value = req.get(name, False)
    if value is None:
        value = False
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false")
    return value


def read_hand(req: dict, wild, read_meld=parse_meld):
    """(hand, melds, win) of a request: the concealed tiles, the shown melds (`read_meld(text,
    wild)`: a variant may read its own), the winning tile or None. Raises RequestError / TileError."""
    hand_text = req.get("hand")
    if not isinstance(hand_text, str):
        raise RequestError("hand must be a string of tiles in mpsz notation")
    hand = parse_tiles(hand_text)
    melds_raw = req.get("melds") or []
    if not isinstance(melds_raw, list):
        raise RequestError("melds must be a list like [\"pung:777z\", \"chow:345s\"]")
    melds = [read_meld(m, wild) for m in melds_raw]
    win_text = req.get("win")
    win = None if win_text in (None, "") else parse_tile(win_text)
    return hand, melds, win
