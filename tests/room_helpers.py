"""Helpers for the room socket tests: seated players with open sockets, a simulated page per socket.

Sockets go through the real ASGI application (origin check, AuthMiddlewareStack with the session
cookie, URLRouter, RoomConsumer) on the in-memory channel layer. Tests are sync functions that run
an async scenario with `run(...)`; database work inside a scenario goes through `db(...)`.

`Player.page` simulates the browser's DOM the way htmx-ext-ws swaps it: every top-level element
of a message replaces the element of the same id.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from collections import Counter

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.fragments import splice, top_level
from games.engine import game as engine
from games.engine.tiles import face_name
from games.models import Hand, Room, Seat

TIMEOUT = 10
# pieces of the playing table a socket sends alone when the rest of the table is as it sent it last
TABLE_PIECE = re.compile(r"^(?:player-\d+|table-top|table-bar)$")
TILE = re.compile(r'data-tile="([^"]+)"')
HX_VALS = re.compile(r'ws-send hx-vals=(?:"([^"]*)"|\'([^\']*)\')')


def run(scenario, *args, **kwargs):
    return async_to_sync(scenario)(*args, **kwargs)


def db(func, *args, **kwargs):
    return database_sync_to_async(func)(*args, **kwargs)


def make_user(name):
    from accounts.models import Profile

    user = get_user_model().objects.create_user(name, password="pw-" + name + "-long")
    Profile.objects.create(user=user, nickname="昵称" + name)
    return user


def make_room(players=4, length=4, seed=True, settings=None, variant=None):
    """A full room of `players` users (host at position 0). Returns (room, {position: user}).
    variant / settings: the room's variant (default: the site's) and its own settings
    (e.g. variant="wenzhou", settings={"odd_base": False})."""
    host = make_user("host")
    extra = {k: v for k, v in (("variant", variant), ("settings", settings)) if v is not None}
    room = services.create_room(host, players=players, length=length, **extra)
    for i in range(1, players):
        services.join_room(make_user(f"guest{i}"), room.token)
    users = {s.position: s.user for s in Seat.objects.filter(room=room).select_related("user")}
    return room, users


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def split_fragments(message: str) -> dict:
    """{id: html} of the message's top-level elements (games/fragments.py)."""
    out = {}
    for element_id, part in top_level(message):
        assert element_id is not None, f"a message part without a fragment id: {part[:120]!r}"
        out[element_id] = part
    return out


def tiles_in(html: str) -> Counter:
    return Counter(TILE.findall(html))


def ws_values(html: str) -> list[dict]:
    """The JSON each ws-send button of `html` would send (its hx-vals)."""
    out = []
    for a, b in HX_VALS.findall(html):
        out.append(json.loads(htmllib.unescape(a or b)))
    return out


class Player:
    def __init__(self, position, user, communicator):
        self.position = position
        self.user = user
        self.comm = communicator
        self.page = {}
        self.messages = []
        self.room_version = -1
        self.hand_version = -1

    def take(self, message: str):
        """The message swapped into this page as htmx does (each element for the one of its id);
        returns its fragments, with the page's whole table for the table's pieces."""
        self.messages.append(message)
        parts = split_fragments(message)
        pieces = [name for name in parts if TABLE_PIECE.match(name)]
        if pieces:
            assert "table" not in parts and "table" in self.page, f"table pieces without a table: {pieces}"
            whole = self.page["table"]
            for name in pieces:
                whole = splice(whole, name, parts.pop(name))
            parts["table"] = whole
        self.page.update(parts)
        clock = parts.get("clock")
        if clock:
            self.room_version = int(re.search(r'data-room-version="(\d+)"', clock).group(1))
            self.hand_version = int(re.search(r'data-hand-version="(\d+)"', clock).group(1))
        return parts

    async def receive(self, timeout=TIMEOUT):
        message = await self.comm.receive_from(timeout=timeout)
        return self.take(message)

    async def send(self, data):
        await self.comm.send_to(text_data=data if isinstance(data, str) else json.dumps(data))

    async def until(self, room_version, timeout=TIMEOUT):
        """Receive until this page shows `room_version` or later."""
        while self.room_version < room_version:
            await self.receive(timeout)

    async def nothing_more(self):
        assert await self.comm.receive_nothing(timeout=0.2), "an unexpected message arrived"

    def html(self) -> str:
        return "".join(self.page.values())

    def buttons(self) -> list[dict]:
        return ws_values(self.page.get("hand", "") + self.page.get("actions", ""))


async def connect(room_id, user, position=None, lang="zh", expect=True, client=None, origin="http://testserver",
                  headers=(), timeout=TIMEOUT):
    """A socket of `user` to the room. client = the peer address (scope["client"]); origin=None sends
    no Origin header; extra `headers` as (bytes, bytes) pairs (e.g. X-Forwarded-For); `timeout`: the
    seconds the handshake may take."""
    from mahjong_site.asgi import application

    headers = [(b"host", b"testserver"), *headers]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if user is not None:
        cookie = await db(session_cookie, user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/room/{room_id}/?lang={lang}", headers=headers)
    if client is not None:
        comm.scope["client"] = (client, 50000)  # read when the application starts, on connect
    connected, _code = await comm.connect(timeout=timeout)
    if not expect:
        return comm, connected
    assert connected, "the socket was refused"
    player = Player(position, user, comm)
    parts = await player.receive()
    assert set(parts) >= {"clock", "status", "seats", "table", "hand", "actions", "result"}, sorted(parts)
    return player


def room_version(room_id) -> int:
    return Room.objects.get(pk=room_id).version


def current_hand(room_id):
    return Hand.objects.filter(game__room_id=room_id).order_by("-number").first()


def hand_snapshot(room_id):
    """(hand, engine state) of the room's current hand (for the test to look at; not shown anywhere)."""
    hand = current_hand(room_id)
    return hand, (services.hand_state(hand) if hand else None)


async def sync_all(players, room_id):
    """Wait until every socket shows the room's current version."""
    target = await db(room_version, room_id)
    for p in players:
        await p.until(target)


async def act(players, room_id, player, message):
    """`player` sends `message` (a room action) and every page catches up with its result."""
    before = player.room_version
    await player.send(message)
    while player.room_version <= before:
        parts = await player.receive()
        assert "toast" not in parts, parts["toast"]
    await sync_all(players, room_id)


async def start(room, users, lang="zh"):
    players = [await connect(room.pk, users[p], p, lang=lang) for p in sorted(users)]
    await sync_all(players, room.pk)
    for p in players:
        await act(players, room.pk, p, {"action": "ready"})
    hand = await db(current_hand, room.pk)
    assert hand is not None and hand.status == Hand.PLAYING, "the hand did not start"
    return players


async def press(players, room_id, player, button):
    """`player` presses `button`; wait until every page shows the result."""
    before = player.hand_version
    counts = [len(p.messages) for p in players]
    await player.send(button)
    while player.hand_version <= before:
        parts = await player.receive()
        assert "toast" not in parts, parts["toast"]
    await sync_all(players, room_id)
    for p, n in zip(players, counts):
        assert len(p.messages) > n, f"seat {p.position} got no update"


def visible_tiles(state, me: int) -> Counter:
    """Independently of the templates: the tiles seat `me` may see while the hand is on. Its own
    hand, every meld (others' concealed kongs lie face down), every river, the indicator (Zhuji: the
    wild faces), the flowers shown (traditional Taizhou) and, in a
    claim window, the discard being claimed (shown once more, apart from the river). me=None: a
    spectator (观战), who holds no hand and sees every concealed kong face down."""
    seen = Counter(face_name(t) for t in state.hands[me]) if me is not None else Counter()
    for p in range(state.n):
        for m in state.melds[p]:
            if m.kind == "ckong" and p != me:
                continue
            seen.update(face_name(t) for t in m.tiles)
        seen.update(face_name(t) for t in state.rivers[p])
    if state.indicator is not None:
        seen[face_name(state.indicator)] += 1
    else:  # no tile turned up (Zhuji): the wild faces drawn for the hand are shown on the bar
        seen.update(face_name(f) for f in state.rules.wild_faces(state))
    flowers = getattr(state.rules, "flowers", None)  # traditional Taizhou: flowers lie face up
    if flowers is not None and state.indicator is not None:
        seen[face_name(state.rules.flower(state))] += sum(flowers(state))
    if state.phase == engine.CLAIM and state.last_discard is not None:
        seen[face_name(state.last_discard)] += 1
    return seen


def face_down(state, me: int) -> int:
    return sum(4 for p in range(state.n) if p != me for m in state.melds[p] if m.kind == "ckong")


def choose(buttons: list[dict], rng, prefer=("win",)):
    """A button to press: a win if offered, else any (seeded)."""
    hand_buttons = [b for b in buttons if b.get("action") in ("discard", "chow", "pung", "kong", "win", "pass",
                                                                "ckong", "akong")]
    for kind in prefer:
        for b in hand_buttons:
            if b["action"] == kind:
                return b
    return rng.choice(hand_buttons) if hand_buttons else None


def decide_buttons(buttons: list[dict]) -> dict:
    """{"yes": vals, "no": vals} of the 买底/顶底 buttons among `buttons` (a Player.buttons() list)."""
    return {b["value"]: b for b in buttons if b.get("action") == "decide"}


ACT_BUTTON = re.compile(r'<button[^>]*\sclass="act act-([\w-]+)"[^>]*\sws-send hx-vals=(?:"([^"]*)"|\'([^\']*)\')')


def act_buttons(html: str) -> dict:
    """{kind: [hx-vals, ...]} of the `.act.act-<kind>` buttons of `html` (e.g. "decide-yes",
    "decide-no", "win", "pass"), each as the JSON it would send."""
    out = {}
    for kind, a, b in ACT_BUTTON.findall(html):
        out.setdefault(kind, []).append(json.loads(htmllib.unescape(a or b)))
    return out


def legal_buttons(state, p) -> set:
    """Independently of the page: the buttons seat p must be offered (engine.legal_actions)."""
    out = set()
    for a in engine.legal_actions(state, p):
        d = a.to_dict()
        if a.kind in ("discard", "ckong", "akong"):
            out.add((a.kind, d["tile"]))
        elif a.kind == "chow":
            out.add(("chow", tuple(d["tiles"])))
        elif a.kind == "decide":
            out.add(("decide", a.value))
        else:
            out.add((a.kind,))
    return out


def shown_buttons(player) -> set:
    """The same, read off a Player's page (its ws-send buttons)."""
    out = set()
    for b in player.buttons():
        kind = b.get("action")
        if kind in ("discard", "ckong", "akong"):
            out.add((kind, b["tile"]))
        elif kind == "chow":
            out.add(("chow", tuple(b["tiles"].split())))
        elif kind == "decide":
            out.add(("decide", b["value"]))
        elif kind in ("pung", "kong", "win", "pass"):
            out.add((kind,))
    return out
