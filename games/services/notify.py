"""Tell a room's sockets that it changed: bump the room version and, after commit, send
{"type": "room.updated", "version": n} to its group. Each socket renders its own seat's view."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games.models import Room

log = logging.getLogger(__name__)


def bump(room: Room):
    room.version += 1
    Room.objects.filter(pk=room.pk).update(version=room.version)
    version = room.version
    group = room.group_name
    transaction.on_commit(lambda: send(group, version))


def send(group, version):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "room.updated", "version": version})
    except Exception:  # the state is saved; clients catch up on their next (re)connect
        log.exception("could not notify %s", group)
