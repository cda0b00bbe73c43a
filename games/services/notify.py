"""Tell a room's sockets that it changed: bump the room version and, after commit, send
{"type": "room.updated", "version": n} to its group. Each socket renders its own seat's view."""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.hot_queries import update_fields
from games.models import Room

log = logging.getLogger(__name__)


def bump(room: Room, hand_move: int | None = None):
    """hand_move: the id of the hand in play when this version changes nothing but a move on it
    (no seat, room, game or presence row): each socket's process may then bring its snapshot of
    the version before forward by reading the hand alone (games.table.room_snapshot)."""
    room.version += 1
    update_fields(room, ("version",))  # games/hot_queries.py: the statement made once
    version = room.version
    group = room.group_name
    transaction.on_commit(lambda: send(group, version, hand_move))


_deferred = threading.local()


@contextmanager
def deferred_sends():
    """Collect the messages this thread's commits would send, [(group, message)], instead of
    sending them: the room socket sends them from its event loop once the move is done, so the pool
    thread that ran the move (and holds a database connection) is not held up by a round trip to
    Redis per move."""
    out: list = []
    _deferred.out = out
    try:
        yield out
    finally:
        _deferred.out = None


def send(group, version, hand_move=None):
    message = {"type": "room.updated", "version": version}
    if hand_move is not None:
        message["hand_move"] = hand_move
    out = getattr(_deferred, "out", None)
    if out is not None:
        out.append((group, message))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the state is saved; clients catch up on their next (re)connect
        log.exception("could not notify %s", group)
