"""The spectator socket: ws/room/<room_id>/watch/<key>/ (观战, games/spectators.py).

Read only. It joins the room's group like a seat's socket and, on each {"type": "room.updated"},
renders the WATCHER's view (spectators.spectator_fragments: seat_view(state, None) of the state
`Room.spectator_delay` moves behind, never a concealed tile) and sends the fragments that changed.
Nothing it receives ever reaches games.services: the page's heartbeat {"action": "ping"} is
answered with PONG (and keeps this socket's SpectatorSocket row fresh), every other message gets
the toast 观战中，不能操作 and changes nothing. Quick phrases (快捷语) are live and are not shown to
watchers.

Refused (closed before accepting): not logged in, a wrong key, a room that does not allow this
user to watch (spectators.may_watch), a seated player of the room (their own socket is
ws/room/<id>/). On connect the client address is recorded on the spectator's row and checked
against the seated players' (an Alert for customer service when it matches).
"""

from __future__ import annotations

import logging
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext_lazy

from games import consumers, spectators, table
from games.consumers import CLOSE_GONE, GROUP_REFRESH, PING_MAX, PONG, PRESENCE_TOUCH, _base_url
from games.consumers import _is_ping, _lang_of, _toast
from games.models import Room
from mahjong_site.client_ip import scope_ip

log = logging.getLogger(__name__)

REFUSED = gettext_lazy("观战中，不能操作")  # the answer to every message but the heartbeat


def _allowed(room_id, key, user) -> bool:
    if not spectators.key_ok(room_id, key):
        return False
    room = Room.objects.filter(pk=room_id).first()
    return room is not None and spectators.may_watch(room, user) == spectators.OK


def _render(room_id, user, lang, version=None):
    return spectators.spectator_fragments(room_id, user, lang, version)


_fragments = database_sync_to_async(_render, thread_sensitive=False)


class SpectatorConsumer(consumers.LeavesOnCancel, consumers.DirectDispatch, AsyncWebsocketConsumer):
    async def connect(self):
        self.joined = False
        self.present = False
        self.sent_version = -1
        self.sent = {}
        kwargs = self.scope.get("url_route", {}).get("kwargs", {})
        try:
            self.room_id = int(kwargs["room_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        self.user = self.scope.get("user")
        if self.user is None or not getattr(self.user, "is_authenticated", False):
            await self.close()
            return
        if not await consumers.for_handshake(_allowed)(self.room_id, kwargs.get("key"), self.user):
            await self.close()
            return
        self.group = Room(pk=self.room_id).group_name
        self.lang = _lang_of(self.scope)
        self.base_url = _base_url(self.scope)
        self.ip = scope_ip(self.scope)
        self.tokens, self.stamp = float(consumers.RATE_PER_SECOND), time.monotonic()
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception:
            log.warning("room %s: the channel layer is unavailable; spectator refused", self.room_id, exc_info=True)
            await self.close()
            return
        self.joined = True
        self.grouped_at = self.touched_at = time.monotonic()
        await self.accept()
        try:
            self.present = await database_sync_to_async(spectators.socket_opened)(
                self.user, self.room_id, self.channel_name, self.ip)
        except Exception:  # the count and the address check help; never refuse the socket for them
            log.exception("room %s: could not record spectator %s", self.room_id, self.channel_name)
        await self.send_view(full=True)

    async def disconnect(self, code):
        if getattr(self, "joined", False):
            self.joined = False
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:
                log.warning("room %s: group_discard failed", self.room_id, exc_info=True)
        if getattr(self, "present", False):
            self.present = False
            try:
                await database_sync_to_async(spectators.socket_closed)(self.channel_name)
            except Exception:
                log.exception("room %s: could not forget spectator %s", self.room_id, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if not getattr(self, "joined", False):
            return
        if text_data is not None and len(text_data) <= PING_MAX and _is_ping(text_data):
            await self.heartbeat()
            return
        if not self._allow():
            return  # a flood gets no answer at all
        await self.send(text_data=await database_sync_to_async(_toast)(REFUSED, self.lang))

    async def heartbeat(self):
        await self.send(text_data=PONG)
        now = time.monotonic()
        if now - self.touched_at >= PRESENCE_TOUCH:
            self.touched_at = now
            try:
                self.present = await database_sync_to_async(spectators.heartbeat)(
                    self.user, self.room_id, self.channel_name, self.ip)
            except Exception:
                log.exception("room %s: spectator heartbeat of %s failed", self.room_id, self.channel_name)
        if now - self.grouped_at >= GROUP_REFRESH:
            self.grouped_at = now
            try:
                await self.channel_layer.group_add(self.group, self.channel_name)
            except Exception:
                log.warning("room %s: group refresh failed", self.room_id, exc_info=True)

    def _allow(self) -> bool:
        now = time.monotonic()
        rate = consumers.RATE_PER_SECOND  # the seat socket's limit (read here: tests change it)
        self.tokens = min(float(rate), self.tokens + (now - self.stamp) * rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def room_updated(self, event):
        version = event.get("version")
        if isinstance(version, int) and version <= self.sent_version:
            return
        try:
            await self.send_view(version=version if isinstance(version, int) else None)
        except Exception:
            log.exception("room %s: could not render the spectator view", self.room_id)

    async def room_phrase(self, event):
        """快捷语 are live; a watcher does not see them."""

    async def send_view(self, full=False, version=None):
        out = await _fragments(self.room_id, self.user, self.lang, version)
        if out is None:
            await self.send(text_data=await database_sync_to_async(table.render_gone)(self.lang))
            await self.close(code=CLOSE_GONE)
            return
        version, clock, fragments = out
        if not full and version <= self.sent_version:
            return
        changed = [html for name, html in fragments.items() if full or self.sent.get(name) != html]
        self.sent = fragments
        self.sent_version = max(self.sent_version, version)
        await self.send(text_data=clock + "".join(changed))

