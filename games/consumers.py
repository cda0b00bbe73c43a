"""The room socket: ws/room/<room_id>/ (htmx ws extension on the room page).

Flow (shared/design/architecture.md): a browser message is parsed here into one service call
(games/services.py, run in a thread); the service saves, bumps the room version and, after commit,
sends {"type": "room.updated", "version": n} to the room's group. Every socket of the room then
renders ITS OWN seat's view (games/table.py: seat_view only) and sends the id'd fragments that
changed, as out-of-band swaps. On (re)connect the socket sends the full view. The room's sockets
of the process whose socket sent the move are rendered in the move's own thread hop, from the rows
it wrote, before the group hears of it (perform_and_render); the room.updated they then hear is at a
version they already have, and the Redis pub/sub layer drops it before it wakes them (already_sent).

Messages from the browser are JSON objects (htmx-ext-ws sends the sending element's values plus
a HEADERS key, which is ignored):

    {"action": "discard", "tile": "5p", "v": 41}          v = the hand version the player saw
    {"action": "chow", "tiles": "4p 6p", "v": 41}          the two tiles from the hand
    {"action": "pung" | "kong" | "win" | "pass", "v": 41}
    {"action": "ckong" | "akong", "tile": "7z", "v": 41}
    {"action": "ready"} / {"action": "ready", "ready": false}
    {"action": "leave"} / {"action": "close"} / {"action": "remove", "position": 2}
    {"action": "new_invite"} / {"action": "revoke_invite"}
    {"action": "dissolve", "agree": true | false}
    {"action": "auto_off"} / {"action": "auto_on"}          托管 off (take back control) / on
    {"action": "escape"}                                    逃跑: leave the game (variants with a penalty)
    {"action": "rematch"}                                   再来一局: propose / accept a rematch (game over)
    {"action": "phrase", "phrase": "p1"}                    快捷语 (games/phrases.py): a bubble at my seat
    {"action": "add_bot", "position": 2} / {"action": "remove_bot", "position": 2}   the host's 电脑 seats
    {"action": "hints", "on": true | false}                 提示 for me (where the room allows them)
    {"action": "location", "lat": 31.2, "lon": 121.5}       the player shares their location (consent)
    {"action": "ping"}                                      the page's heartbeat (static/js/table.js)

The heartbeat (every 25 s) keeps NAT paths of phones open and keeps this socket's presence row
fresh (games/presence.py: a seat is online while a socket of it was heard from within 70 s). It
is answered with PONG, an HTML comment the page drops, before the rate limiter and without
touching the room: no version bump, no render, at most one row written per PRESENCE_TOUCH seconds.

Hand actions may also carry "h" (the hand id the player saw); a different hand is stale.
Anything wrong (bad JSON, unknown action, wrong types, stale version, illegal move, not your
turn, too many messages) gets an error toast on this socket only, and changes nothing. So does
every message of a frozen account: its socket still connects (to watch) but cannot act.

On connect the socket first joins the room's group and only then accepts: when the channel layer
fails (Redis down) the handshake is refused, and the page backs off (exponentially, with jitter)
instead of reconnecting every second to a socket that would close with 1011.

On connect the client address (mahjong_site.client_ip: the peer, or X-Forwarded-For only behind
TRUSTED_PROXY_HOPS trusted proxies) is recorded for the same-IP warning (services.record_presence).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games import presence, services, table
from games.services import notify
from games.models import Room
from mahjong_site import redis_layer
from mahjong_site.client_ip import scope_ip

log = logging.getLogger(__name__)

try:  # what daphne raises on a send to a websocket that has closed (the ASGI spec: an OSError)
    from autobahn.exception import Disconnected as _Disconnected
except ImportError:  # another ASGI server
    _Disconnected = OSError
SOCKET_GONE = (OSError, _Disconnected)

HAND_ACTIONS = ("discard", "chow", "pung", "kong", "win", "pass", "ckong", "akong", "decide")
ROOM_ACTIONS = ("ready", "leave", "remove", "close", "new_invite", "revoke_invite", "dissolve", "auto_off",
                "auto_on", "location", "escape", "rematch", "phrase", "add_bot", "remove_bot", "hints")
MAX_MESSAGE = 4096  # characters; a real message is well under 1 KB
RATE_PER_SECOND = 20  # messages per second per socket (token bucket, burst of the same size)

CLOSE_GONE = 4000  # the player left or was removed: do not reconnect
PONG = "<!--pong-->"  # the answer to {"action": "ping"}; htmx would swap nothing, the page drops it
PING_MAX = 200  # characters: a longer message is not a heartbeat
PRESENCE_TOUCH = 10.0  # seconds: pings closer together than this write no presence row
GROUP_REFRESH = 3600.0  # seconds: re-join the group now and then (the Redis layer expires members)

def in_pool(func):
    """func in a thread of the pool, not on the one thread that every thread-sensitive call of this
    process shares: the moves of different rooms (their waits on the database, their Python
    between them) go side by side instead of queueing one behind another; a room's own moves are
    put in order by its row lock (services.handle). Each pool thread keeps its own database
    connection; database_sync_to_async closes it when stale, before and after the call."""
    return database_sync_to_async(func, thread_sensitive=False)


# The seat check of a socket's handshake runs on threads of its own: on the pool it waited behind
# the moves and renders of a saturated process past daphne's handshake timeout (5 s), and the
# socket was dropped before it was accepted (1,626 handshakes in one 250-table bench ramp), to be
# retried by its page: more work for a process that already had too much. Accepted at once, the
# socket then waits for its first view like any other update. Each thread keeps its own database
# connection, as the pool's do.
HANDSHAKE_THREADS = 2
_handshakes = ThreadPoolExecutor(max_workers=HANDSHAKE_THREADS, thread_name_prefix="handshake")


def for_handshake(func):
    """func on the handshake threads, with channels' handling of the database connection."""
    return database_sync_to_async(func, thread_sensitive=False, executor=_handshakes)


class BadMessage(Exception):
    """A message this socket cannot use; the text is for the player."""


class DirectDispatch:
    """Consumers whose every database call goes through database_sync_to_async (which closes
    stale connections in its own thread): skip channels' aclose_old_connections before each
    message, a hop to the one thread that every thread-sensitive call of this process shares —
    four per move (room.updated to each seat)."""

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class LeavesOnCancel:
    """Consumers whose disconnect() undoes what connect() joined (the room's group, the presence
    row, this process's sockets of the room) and may run twice: run it when the application ends
    without it too. daphne cancels an application still running application_close_timeout (10 s)
    after its socket closed (a handler waiting on the pool of a saturated process), and
    disconnect() never ran: the socket stayed in ROOM_RENDERS (its view rendered at every move of
    the room, sent nowhere), in the room's group, and online until its presence row expired."""

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.disconnect(None)


class RoomConsumer(LeavesOnCancel, DirectDispatch, AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.joined = False
        self.present = False
        self.sent_version = -1
        self.sent = {}  # fragment id -> html last sent
        try:
            self.room_id = int(self.scope["url_route"]["kwargs"]["room_id"])
        except (KeyError, TypeError, ValueError):
            await self.close()
            return
        self.user = self.scope.get("user")
        if self.user is None or not getattr(self.user, "is_authenticated", False):
            await self.close()  # refused: not logged in
            return
        self.group = Room(pk=self.room_id).group_name
        if not await for_handshake(_is_seated)(self.room_id, self.user):
            await self.close()  # refused: not a player of this room
            return
        self.lang = _lang_of(self.scope)
        self.base_url = _base_url(self.scope)
        self.tokens = float(RATE_PER_SECOND)
        self.stamp = time.monotonic()
        try:  # join before accepting: a socket that cannot hear its room is refused, not accepted
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception:
            log.warning("room %s: the channel layer is unavailable; socket refused", self.room_id, exc_info=True)
            await self.close()
            return
        self.joined = True
        self.grouped_at = self.touched_at = time.monotonic()
        await self.accept()
        ROOM_RENDERS.add(self)
        self.present = await in_pool(presence.socket_opened)(self.user, self.room_id, self.channel_name)
        try:
            await in_pool(services.record_presence)(self.user, self.room_id, scope_ip(self.scope))
        except Exception:  # the warning is a help for the players; never refuse the socket for it
            log.exception("record_presence failed for room %s", self.room_id)
        await self.send_view(full=True)

    async def disconnect(self, code):
        ROOM_RENDERS.discard(self)
        SENT_VERSIONS.pop(getattr(self, "channel_name", None), None)
        if getattr(self, "joined", False):
            self.joined = False
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception:  # Redis gone: the membership expires there; presence must still go
                log.warning("room %s: group_discard failed", self.room_id, exc_info=True)
        if getattr(self, "present", False):
            self.present = False
            try:
                await in_pool(presence.socket_closed)(self.channel_name)
            except Exception:  # the row stops counting after the presence TTL anyway
                log.exception("room %s: could not forget socket %s", self.room_id, self.channel_name)

    # --- from the browser ---------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        if not getattr(self, "joined", False):
            return
        if text_data is not None and len(text_data) <= PING_MAX and _is_ping(text_data):
            await self.heartbeat()
            return
        if not self._allow():
            await self.send_error(_("操作太频繁，请稍后再试"))
            return
        if text_data is None or len(text_data) > MAX_MESSAGE:
            await self.send_error(_("消息格式不对"))
            return
        try:
            content = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
            await self.send_error(_("消息格式不对"))
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs):
        # the room's sockets of this process are rendered in the move's own thread hop, from what the
        # move wrote (RoomRenders.local_seats); the group hears the version as before (other
        # processes, watchers), and these sockets, already at that version, skip it
        local = ROOM_RENDERS.local_seats(self)
        error, sends, rendered = await in_pool(perform_and_render)(
            self.room_id, self.user, content, self.lang, [(c.user, c.lang, c.base_url) for c in local])
        for consumer, out in zip(local, rendered):
            if out is not None:
                await consumer.deliver(out)
        for group, message in sends:  # committed: tell the room (this socket's own too)
            try:
                await self.channel_layer.group_send(group, message)
            except Exception:  # the state is saved; clients catch up on their next (re)connect
                log.exception("could not notify %s", group)
        if error:
            await self.send_error(error)

    async def heartbeat(self):
        """{"action": "ping"}: answer at once; refresh this socket's presence row (and, rarely, its
        group membership). Never a version bump, never a render, never the rate limiter."""
        await self.send(text_data=PONG)
        now = time.monotonic()
        if now - self.touched_at >= PRESENCE_TOUCH:
            self.touched_at = now
            try:
                self.present = await in_pool(presence.heartbeat)(self.user, self.room_id, self.channel_name)
            except Exception:  # a database hiccup: the next ping tries again
                log.exception("room %s: heartbeat of %s failed", self.room_id, self.channel_name)
        if now - self.grouped_at >= GROUP_REFRESH:
            self.grouped_at = now
            try:
                await self.channel_layer.group_add(self.group, self.channel_name)
            except Exception:
                log.warning("room %s: group refresh failed", self.room_id, exc_info=True)

    def _allow(self) -> bool:
        """Token bucket: RATE_PER_SECOND messages a second, bursts up to the same number."""
        now = time.monotonic()
        self.tokens = min(float(RATE_PER_SECOND), self.tokens + (now - self.stamp) * RATE_PER_SECOND)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    # --- from the room group ------------------------------------------------------------

    async def room_updated(self, event):
        version = event.get("version")
        if isinstance(version, int) and version <= self.sent_version:
            return  # already rendered at this version or later
        hand_move = event.get("hand_move")
        try:
            await self.send_view(version=version if isinstance(version, int) else None,
                                 hand_move=hand_move if isinstance(hand_move, int) else None)
        except Exception:  # keep the socket; the next update or a reconnect renders again
            log.exception("room %s: could not render the view of user %s", self.room_id, self.user.pk)

    async def room_phrase(self, event):
        """A quick phrase: a bubble for the page to show at the sender's seat (not a view change)."""
        try:
            html = await in_pool(_phrase_bubble)(event, self.lang)
        except Exception:
            log.exception("room %s: could not render a phrase", self.room_id)
            return
        if html:
            await self.send(text_data=html)

    async def send_view(self, full=False, version=None, hand_move=None):
        # Renders run in the thread pool (in_pool), beside the moves: a room's seats render in one batch
        # (RoomRenders), rooms side by side; games.table shares what they read alike (one snapshot
        # per version; `version`, announced after a commit, lets it skip asking the database).
        out = await ROOM_RENDERS.view(self, version, hand_move)
        if out is None:  # no seat any more (left, removed) or the room is gone
            await self.send(text_data=await in_pool(table.render_gone)(self.lang))
            self.present = False  # the seat is gone, and its presence rows with it
            await self.close(code=CLOSE_GONE)
            return
        await self.deliver(out, full)

    async def deliver(self, out, full=False):
        """Send this seat's rendered view (room version, clock, {id: html}): the fragments that
        changed since the last one sent, or all of them; nothing for a version already sent."""
        version, clock, fragments = out
        if version < self.sent_version or version == self.sent_version and not full:
            return
        if not getattr(self, "joined", False):  # closed while a move was rendered for it
            return
        changed = []
        for name, html in fragments.items():
            before = self.sent.get(name)
            if full or before != html:
                changed.extend(_changed_parts(before, html) if not full else (html,))
        self.sent = fragments
        self.sent_version = max(self.sent_version, version)
        SENT_VERSIONS[self.channel_name] = self.sent_version
        try:
            await self.send(text_data=clock + "".join(changed))
        except SOCKET_GONE:
            # this socket closed and its disconnect has not come through yet: nobody to show it to.
            # Raised here it would end the coroutine that sends (for a move's local seats, the MOVER's
            # socket, closed with 1011: a cascade over the table when one page of it closes)
            log.info("room %s: the socket of user %s closed before its view was sent", self.room_id, self.user.pk)

    async def send_error(self, message):
        html = await in_pool(_toast)(message, self.lang)
        await self.send(text_data=html)


def _changed_parts(before, html) -> list:
    """What to send for a fragment that changed: the pieces of the playing table that changed when
    the page holds a table of the same frame (table.TableHtml), else the whole fragment."""
    if isinstance(html, table.TableHtml) and isinstance(before, table.TableHtml) and before.frame == html.frame:
        return [part for key, part in html.parts.items() if before.parts.get(key) != part]
    return [html]


# --- helpers (run in a thread) -----------------------------------------------------------

def _render_seat(room_id, user, lang, base_url, version=None, hand_move=None):
    return table.seat_fragments(room_id, user, lang, base_url, version, hand_move)


class RoomRenders:
    """The seats of a room that this process serves, rendered in ONE thread hop per update that
    none of them sent (a move's own are rendered in its hop: perform_and_render).

    A room update reaches the room's sockets of this process within a turn or two of the event
    loop; the first to ask schedules the batch two turns on, and those asking meanwhile join it.
    One pool thread then renders the seats one after another, and the loop hands each its
    fragments when the hop returns: one hand-over between the threads per room update, instead of
    one per socket (asgiref's, both ways), or one per seat back to a loop that would wake to
    send while the pool thread still renders the next seat, each waking a thread switch and a
    contest for the GIL. Rooms still render side by side on the pool's threads. A socket asking
    while its room's batch runs gets the next one."""

    def __init__(self):
        # (event loop, room id) -> [(user, lang, base_url, version, hand_move, future)]; the loop
        # in the key: a test's loop may close with a batch scheduled, and room ids come back
        self._waiting: dict = {}
        self._sockets: dict = {}  # (event loop, room id) -> {consumer: None}, the open seats' sockets

    def add(self, consumer):
        key = (asyncio.get_running_loop(), consumer.room_id)
        self._sockets.setdefault(key, {})[consumer] = None

    def discard(self, consumer):
        key = (asyncio.get_running_loop(), getattr(consumer, "room_id", None))
        sockets = self._sockets.get(key)
        if sockets is not None:
            sockets.pop(consumer, None)
            if not sockets:
                del self._sockets[key]

    def local_seats(self, consumer) -> list:
        """The open sockets of consumer's room in this process (its own included), for the move it
        sends to render them in its own thread hop (perform_and_render)."""
        return list(self._sockets.get((asyncio.get_running_loop(), consumer.room_id), ()))

    async def view(self, consumer, version=None, hand_move=None):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        key = (loop, consumer.room_id)
        batch = self._waiting.get(key)
        if batch is None:
            batch = self._waiting[key] = []
            # two turns later: the mover's own socket hears the update once its message is done
            loop.call_soon(loop.call_soon, self._start, loop, consumer.room_id)
        batch.append((consumer.user, consumer.lang, consumer.base_url, version, hand_move, future))
        return await future

    def _start(self, loop, room_id):
        batch = self._waiting.pop((loop, room_id), None)
        if batch:
            loop.create_task(self._run(room_id, batch))

    async def _run(self, room_id, batch):
        try:
            results = await in_pool(_render_batch)(room_id, batch)
        except Exception as e:  # the hop itself failed: every seat still waiting hears it
            results = [(None, e)] * len(batch)
        for seat, (out, error) in zip(batch, results):
            future = seat[-1]
            if future.done():  # the socket closed meanwhile
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(out)


def perform_and_render(room_id: int, user, content, lang: str, seats: list):
    """perform_deferred, then, when the move changed the room, the view of each of `seats`
    [(user, lang, base_url)] at the version it announced (from the rows the move wrote: no read):
    (error, sends, [(room version, clock, fragments) or None for a seat not rendered])."""
    error, sends = perform_deferred(room_id, user, content, lang)
    group = Room(pk=room_id).group_name
    update = max((m for g, m in sends if g == group and m.get("type") == "room.updated"
                  and isinstance(m.get("version"), int)), key=lambda m: m["version"], default=None)
    if update is None or not seats:
        return error, sends, [None] * len(seats)
    rendered = []
    for (seat_user, *_rest), (out, failed) in zip(seats, _render_each(
            room_id, [(*seat, update["version"], update.get("hand_move")) for seat in seats])):
        if failed is not None:  # that socket renders on the room.updated it hears, as any other update
            log.error("room %s: could not render the view of user %s", room_id, seat_user.pk, exc_info=failed)
        rendered.append(out)
    return error, sends, rendered


def _render_batch(room_id, batch) -> list:
    """In a pool thread: every seat of a RoomRenders batch, in turn: [(fragments, None) or (None, error)]."""
    return _render_each(room_id, [seat[:-1] for seat in batch])  # without the future


def _render_each(room_id, seats) -> list:
    """[(fragments, None) or (None, error)] of each (user, lang, base_url, version, hand_move)."""
    results = []
    for user, lang, base_url, version, hand_move in seats:
        try:
            results.append((_render_seat(room_id, user, lang, base_url, version, hand_move), None))
        except Exception as e:
            results.append((None, e))
    return results


ROOM_RENDERS = RoomRenders()

# channel name -> the room version its socket was last sent (open room sockets of this process).
SENT_VERSIONS: dict = {}


def already_sent(channel_name, message) -> bool:
    """The pub/sub layer's delivery filter (mahjong_site.redis_layer): a room.updated at a version
    the channel's socket has already sent — the echo of a move this process rendered in the move's
    own hop — is not handed to the consumer at all (room_updated would return at once)."""
    if not isinstance(message, dict) or message.get("type") != "room.updated":
        return False
    version = message.get("version")
    sent = SENT_VERSIONS.get(channel_name)
    return isinstance(version, int) and sent is not None and version <= sent


redis_layer.set_delivery_filter(already_sent)


def _phrase_bubble(event, lang):
    with translation.override(table.django_language(lang)):
        return table.render_phrase(event.get("position"), event.get("phrase"), event.get("key"))


def _is_seated(room_id, user) -> bool:
    return Room.objects.filter(pk=room_id, seats__user=user).exists()


def _is_ping(text: str) -> bool:
    if '"ping"' not in text:
        return False
    try:
        content = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(content, dict) and content.get("action") == "ping"


def _toast(message, lang):
    with translation.override(table.django_language(lang)):
        return table.render_toast(str(message))


def _lang_of(scope) -> str:
    """The UI language of this socket: ?lang= (set by the page), else the language cookie."""
    query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
    lang = (query.get("lang") or [""])[0]
    if lang in ("zh", "en"):
        return lang
    headers = dict(scope.get("headers") or [])
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    except Exception:
        pass
    chosen = cookie.get(settings.LANGUAGE_COOKIE_NAME)
    return table.ui_lang(chosen.value if chosen else settings.LANGUAGE_CODE)


def _base_url(scope) -> str:
    """scheme://host of the page (for the absolute invite link)."""
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host", b"").decode("latin-1")
    if not host:
        return ""
    scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    return f"{scheme}://{host}"


def _version(value):
    """A non-negative integer from an int or a string of digits (htmx sends hx-vals as JSON, forms as text)."""
    if isinstance(value, bool):
        raise BadMessage(_("消息格式不对"))
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 18:
            return int(text)
    raise BadMessage(_("消息格式不对"))


def _coordinate(value, limit):
    """A latitude (limit 90) or longitude (limit 180) as sent by the page: a number or a numeric string."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BadMessage(_("位置格式不对"))
    if isinstance(value, str) and (len(value) > 40 or not value.isascii()):  # float() would take "９"
        raise BadMessage(_("位置格式不对"))
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise BadMessage(_("位置格式不对")) from None
    if not math.isfinite(number) or not -limit <= number <= limit:
        raise BadMessage(_("位置格式不对"))
    return number


def _flag(value, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if value in ("true", "1", 1, "on", "yes"):
        return True
    if value in ("false", "0", 0, "off", "no", ""):
        return False
    raise BadMessage(_("消息格式不对"))


def perform(room_id: int, user, content, lang: str = "zh") -> str | None:
    """Do what one socket message asks through games.services. None = done, else the error."""
    with translation.override(table.django_language(lang)):
        try:
            return _perform(room_id, user, content)
        except BadMessage as e:
            return str(e)
        except services.ServiceError as e:
            return str(e)
        except Room.DoesNotExist:
            return _("没有这个房间")
        except Exception:  # a bug or a database hiccup: tell the player, keep the socket
            log.exception("room %s: could not perform %r", room_id, content)
            return _("出错了，请再试一次")


def perform_deferred(room_id: int, user, content, lang: str = "zh"):
    """`perform`, returning (error, [(group, message)]): the room.updated messages its commits
    would have sent, for the socket to send from its event loop (services.notify.deferred_sends)."""
    with notify.deferred_sends() as sends:
        error = perform(room_id, user, content, lang)
    return error, sends


def _perform(room_id, user, content):
    command = parse_message(content)
    # watching only; a hand action's own transaction checks the flag with the seats it reads
    if command["action"] not in HAND_ACTIONS and services.is_frozen(user):
        raise BadMessage(_("你的账号已被冻结，只能观看，不能操作"))
    out = services.handle(room_id, user, command)
    return None if out.ok else out.error


def parse_message(content) -> dict:
    """The ONE place a socket message becomes a command for services.handle: known action, values
    of the right types (htmx sends hx-vals as JSON, forms as text). Raises BadMessage."""
    if not isinstance(content, dict):
        raise BadMessage(_("消息格式不对"))
    action = content.get("action")
    if not isinstance(action, str) or action not in HAND_ACTIONS + ROOM_ACTIONS:
        raise BadMessage(_("未知的操作"))
    command = {"action": action}
    if action in HAND_ACTIONS:
        command["v"] = _version(content.get("v"))
        if content.get("h") not in (None, ""):
            command["h"] = _version(content["h"])
        tile = content.get("tile")
        if tile not in (None, ""):
            if not isinstance(tile, str) or len(tile) > 4:
                raise BadMessage(_("消息格式不对"))
            command["tile"] = tile.strip()
        tiles = content.get("tiles")
        if tiles not in (None, "", []):
            if isinstance(tiles, str):
                tiles = tiles.replace(",", " ").split()
            if not isinstance(tiles, list) or len(tiles) != 2 or not all(isinstance(t, str) and len(t) <= 4 for t in tiles):
                raise BadMessage(_("消息格式不对"))
            command["tiles"] = tiles
        if action == "chow" and "tiles" not in command:
            raise BadMessage(_("吃牌要选两张手牌"))
        if action == "decide":
            value = content.get("value")
            if not isinstance(value, str) or not 0 < len(value) <= 16:
                raise BadMessage(_("消息格式不对"))
            command["value"] = value
    elif action == "ready":
        command["ready"] = _flag(content.get("ready"), True)
    elif action in ("remove", "remove_bot"):
        command["position"] = _version(content.get("position"))
    elif action == "add_bot":
        command["position"] = None if content.get("position") in (None, "") else _version(content.get("position"))
    elif action == "dissolve":
        command["agree"] = _flag(content.get("agree"), True)
    elif action == "hints":
        command["on"] = _flag(content.get("on"), True)
    elif action == "phrase":
        phrase = content.get("phrase")
        if not isinstance(phrase, str) or len(phrase) > 8:
            raise BadMessage(_("消息格式不对"))
        command["phrase"] = phrase
    elif action == "location":
        command["lat"], command["lon"] = _coordinate(content.get("lat"), 90), _coordinate(content.get("lon"), 180)
    return command
