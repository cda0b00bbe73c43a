"""房间号: a six-digit number for every open room, typed in the lobby to reach the same join page
as the invite link (the same checks follow there: full, started, revoked, frozen, balance).

Numbers are drawn at random from 100000-999999 among those no open room (waiting or playing)
holds, and a revoked invite retires the room's number (a new invite draws a new one). So that
strangers cannot walk into rooms by trying numbers, look-ups are limited per user and per address:
LIMIT_PER_USER and LIMIT_PER_ADDRESS look-ups (found or not) in WINDOW seconds; beyond that the
lobby says how long to wait. The counts live in Django's cache (Redis with CACHE_URL)."""

from __future__ import annotations

import math
import re
import secrets
import time

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games.models import Room

from .errors import ServiceError

LIMIT_PER_USER = 10
LIMIT_PER_ADDRESS = 30
WINDOW = 10 * 60
OPEN = (Room.WAITING, Room.PLAYING)
NUMBER = re.compile(r"^[1-9]\d{5}$")


def assign_number(room: Room) -> str:
    """Give the room a fresh number no other open room holds (call inside a transaction)."""
    for _attempt in range(50):
        number = str(100000 + secrets.randbelow(900000))
        if Room.objects.filter(number=number, status__in=OPEN).exclude(pk=room.pk).exists():
            continue
        try:
            with transaction.atomic():
                Room.objects.filter(pk=room.pk).update(number=number)
        except IntegrityError:  # taken at the same moment by another room
            continue
        room.number = number
        return number
    raise ServiceError("no_number", _("暂时没有空闲的房间号，请稍后再试"))


def _spend(key: str, limit: int, now: float) -> float:
    """Count one look-up under `key`; the seconds to wait if over the limit, else 0."""
    stamps = [t for t in (cache.get(key) or []) if now - t < WINDOW]
    if len(stamps) >= limit:
        return WINDOW - (now - stamps[0])
    cache.set(key, stamps + [now], WINDOW)
    return 0


def find_room(number, user, address) -> Room:
    """The open room with this number, for this user at this address; ServiceError otherwise
    ("throttled" beyond the limits, "bad_number" for a malformed or unknown number)."""
    now = time.time()
    for key, limit in ((f"room-number:user:{user.pk}", LIMIT_PER_USER),
                       (f"room-number:ip:{address}" if address else None, LIMIT_PER_ADDRESS)):
        if key is None:
            continue
        wait = _spend(key, limit, now)
        if wait:
            raise ServiceError("throttled", _("查找房间号太频繁，请 %(n)s 分钟后再试") % {"n": max(1, math.ceil(wait / 60))})
    number = (number or "").strip() if isinstance(number, str) else ""
    if not NUMBER.match(number):
        raise ServiceError("bad_number", _("房间号是 6 位数字"))
    room = Room.objects.filter(number=number, status__in=OPEN, invite_revoked=False).first()
    if room is None:
        raise ServiceError("bad_number", _("没有这个房间号，或者房间已经关闭"))
    return room
