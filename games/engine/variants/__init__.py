"""The variant registry: rule sets by name (scalachess style).

    from games.engine import variants
    v = variants.get("taizhou")     # the Variant object; UnknownVariant (a ValueError) if none
    variants.names()                # ("taizhou", "taizhou_trad", "wenzhou", "zhuji")
    variants.playable()             # the names a new room may use: ("taizhou", "wenzhou")

A variant is an immutable `Variant` (variants/base.py, where its interface is listed); the
state machine (game.py) asks it every rule question and imports no variant itself. One module
per rule set: `taizhou.py` holds Taizhou's scorer, settlement and its `VARIANT`. A new rule set
subclasses `Variant` (or `Taizhou`), overriding only what differs, and is registered here.
"""

from __future__ import annotations

from . import taizhou, taizhou_trad, wenzhou, zhuji
from .base import (
    CLAIM_RANK,
    ROOM_CODES,
    Decision,
    Result,
    RoomOptions,
    Setting,
    Variant,
)

_REGISTRY: dict = {}


class UnknownVariant(ValueError):
    pass


def register(variant: Variant, replace: bool = False) -> Variant:
    """Add a rule set under its name. Re-registering a name needs replace=True."""
    if not isinstance(variant, Variant) or not variant.name:
        raise ValueError("register a Variant with a name")
    if variant.name in _REGISTRY and not replace and _REGISTRY[variant.name] is not variant:
        raise ValueError(f"variant {variant.name!r} is already registered")
    _REGISTRY[variant.name] = variant
    return variant


def unregister(name: str) -> None:
    """Remove a rule set (tests register toy variants and take them away again)."""
    _REGISTRY.pop(name, None)


def get(name) -> Variant:
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(names())
        raise UnknownVariant(f"unknown variant {name!r} (known: {known})") from None


def names() -> tuple:
    return tuple(sorted(_REGISTRY))


def playable() -> tuple:
    """Names of the rule sets complete enough for a table (`Variant.playable`), sorted."""
    return tuple(name for name in names() if _REGISTRY[name].playable)


# the built-in rule sets
register(taizhou.VARIANT)
register(wenzhou.VARIANT)
register(zhuji.VARIANT)
register(taizhou_trad.VARIANT)

__all__ = ["CLAIM_RANK", "ROOM_CODES", "Decision", "Result", "RoomOptions", "Setting", "UnknownVariant",
           "Variant", "get", "names", "playable", "register", "unregister"]
