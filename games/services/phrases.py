"""快捷语: a seated player sends one of the fixed phrases or emoji (games/phrases.py) to the table.

Not a game action: no room version, nothing in the hand's log. The phrase is stored (a Phrase row,
with the hand and the step it followed, so the replay can show it) and, after commit, sent to the
room's group as {"type": "room.phrase", ...}; each socket renders the bubble in its own language
and the page shows it at the sender's seat for a few seconds (a player may mute others, in the
browser). Rate-limited per player and room: at most BURST in WINDOW seconds and one every GAP
seconds, counted in Django's cache (Redis in production)."""

from __future__ import annotations

import logging
import time

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.db import transaction
from django.utils.translation import gettext as _

from games import phrases
from games.models import Hand, Phrase, Room

from . import handstate
from .errors import ServiceError

log = logging.getLogger(__name__)

GAP = 2.0  # seconds between two phrases of one player
BURST = 5  # phrases per WINDOW
WINDOW = 60.0


def _spend(room_id: int, user_id: int, now: float) -> bool:
    key = f"phrase:{room_id}:{user_id}"
    stamps = [t for t in (cache.get(key) or []) if now - t < WINDOW]
    if (stamps and now - stamps[-1] < GAP) or len(stamps) >= BURST:
        return False
    cache.set(key, stamps + [now], int(WINDOW) + 1)
    return True


def say(user, room_id: int, phrase_id) -> Phrase:
    if not phrases.is_phrase(phrase_id):
        raise ServiceError("bad_phrase", _("没有这句快捷语"))
    with transaction.atomic():
        room = Room.objects.filter(pk=room_id).first()
        if room is None or room.status in (Room.FINISHED, Room.DISSOLVED):
            raise ServiceError("room_closed", _("房间已经关闭"))
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if not _spend(room_id, user.pk, time.time()):
            raise ServiceError("phrase_limit", _("说得太快了，请稍等一下"))
        hand = handstate.current_hand(room)
        hand = hand if hand is not None and hand.status == Hand.PLAYING else None
        row = Phrase.objects.create(room=room, hand=hand, after_seq=hand.version if hand else 0,
                                    position=seat.position, phrase=phrase_id)
        group = room.group_name
        message = {"type": "room.phrase", "position": seat.position, "phrase": phrase_id, "key": row.pk}
        transaction.on_commit(lambda: _send(group, message))
        return row


def _send(group, message):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a phrase is not worth more than a log line
        log.exception("could not send a phrase to %s", group)
