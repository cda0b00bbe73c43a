"""观战 (spectators, games/spectators.py and games/watch_consumer.py).

- Who may watch, by the room's setting: nobody (403 page, socket refused), players' friends (a
  signed-in user who sat in a FINISHED room with one of the seated people; a dissolved room does
  not count), anyone with the link; a wrong key is a 404, a seated player goes to their own page.
- A spectator cannot act: every action a player could send is refused over the spectator socket,
  and nothing changes (room and hand versions, the log); the page has no ws-send at all.
- The delay: after every move of a whole hand, the spectator's page (assembled from its socket
  messages as htmx swaps them, and fetched over HTTP) shows exactly seat_view(state, None) of the
  state `delay` moves back — the same tiles, the same wall count, the same version on the clock.
- The leak test: over whole seeded hands (Taizhou, Wenzhou, Zhuji, traditional Taizhou) no message the spectator gets
  and no page it is shown holds a tile outside what lies face up at its version, with the version
  never later than the live one minus the delay; the result screen opens every hand.
- The watcher count (distinct users, on the players' table and the spectator's), and the same-IP
  alert for a spectator on a seated player's address.
"""

import importlib
import random
import re

import pytest
from django.test import Client
from django.utils import timezone

from games import consumers, spectators
from games.engine import game as engine
from games.engine.view import seat_view
from games.models import Alert, Hand, HandEvent, Room, Seat, SpectatorSocket

from room_helpers import (
    TIMEOUT, Player, act, choose, connect, current_hand, db, decide_buttons, face_down, make_room, make_user, press,
    room_version, run, session_cookie, start, sync_all, tiles_in, visible_tiles,
)
from test_no_leak import ZHUJI_SETTINGS, state_at

pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


def allow(room, who=Room.WATCH_ANYONE, delay=3):
    Room.objects.filter(pk=room.pk).update(spectators=who, spectator_delay=delay)
    room.refresh_from_db()


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


async def watch(room_id, user, expect=True, client=None, key=None):
    from channels.testing import WebsocketCommunicator

    from mahjong_site.asgi import application

    key = key or spectators.watch_key(room_id)
    headers = [(b"host", b"testserver"), (b"origin", b"http://testserver")]
    if user is not None:
        headers.append((b"cookie", f"sessionid={await db(session_cookie, user)}".encode()))
    comm = WebsocketCommunicator(application, f"/ws/room/{room_id}/watch/{key}/?lang=zh", headers=headers)
    if client is not None:
        comm.scope["client"] = (client, 50000)
    connected, _code = await comm.connect(timeout=TIMEOUT)
    if not expect:
        # refused or not, end the application before the event loop closes: a refused consumer
        # still listens on the channel layer (with Redis, cancelling that at loop shutdown can hang)
        await comm.disconnect()
        return connected
    assert connected, "the spectator socket was refused"
    spec = Player(None, user, comm)
    parts = await spec.receive()
    assert set(parts) >= {"clock", "status", "table", "hand", "actions", "result"}, sorted(parts)
    return spec


def spectator_visible(state):
    return visible_tiles(state, None)


def watch_page(client, room_id):
    response = client.get(spectators.watch_path(room_id))
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# --- who may watch ----------------------------------------------------------------------------------

def finished_room_with(a, b):
    """A game a and b played to its end together (only the seats and the status matter here)."""
    room = Room.objects.create(host=a, players=2, status=Room.FINISHED)
    Seat.objects.create(room=room, user=a, position=0)
    Seat.objects.create(room=room, user=b, position=1)
    return room


def test_who_may_watch_by_the_room_setting():
    room, users = make_room(players=2)
    friend, stranger = make_user("friend"), make_user("stranger")
    finished_room_with(users[1], friend)  # the friend finished a game with the guest
    dissolved = Room.objects.create(host=users[0], players=2, status=Room.DISSOLVED)  # does not count
    Seat.objects.create(room=dissolved, user=users[0], position=0)
    Seat.objects.create(room=dissolved, user=stranger, position=1)
    path = spectators.watch_path(room.pk)

    def page(user):
        return (logged_in(user) if user else Client()).get(path)

    # nobody (the default)
    assert room.spectators == Room.WATCH_NOBODY
    for user in (friend, stranger):
        r = page(user)
        assert r.status_code == 403 and "房主没有允许观战" in r.content.decode()
        assert run(watch, room.pk, user, expect=False) is False
    assert page(None).status_code == 302  # to the login page
    assert page(users[1])["Location"] == f"/room/{room.pk}/"  # a player: their own page
    # friends: the friend, not the stranger (a dissolved game together is not enough)
    allow(room, Room.WATCH_FRIENDS)
    assert page(friend).status_code == 200
    r = page(stranger)
    assert r.status_code == 403 and "一起打完过一场牌局" in r.content.decode()
    assert run(watch, room.pk, stranger, expect=False) is False
    assert run(watch, room.pk, friend, expect=False) is True
    # anyone with the link
    allow(room, Room.WATCH_ANYONE)
    assert page(stranger).status_code == 200
    assert run(watch, room.pk, stranger, expect=False) is True
    # without the right key: nothing
    assert logged_in(stranger).get(f"/room/{room.pk}/watch/{'0' * 20}/").status_code == 404
    assert run(watch, room.pk, stranger, expect=False, key="0" * 20) is False
    assert run(watch, room.pk, None, expect=False) is False
    # a watcher is given no way to sit down: no invite link, no room number
    html = page(stranger).content.decode()
    assert room.token not in html and "data-room-number" not in html and "ws-send" not in html
    # the players see the watch link while watching is allowed
    html = logged_in(users[0]).get(f"/room/{room.pk}/").content.decode()
    assert path in html and "观战链接" in html


def test_create_form_and_rematch_keep_the_setting():
    from games.forms import CreateRoomForm
    from games.services import create_room

    form = CreateRoomForm({"variant": "taizhou", "players": "2", "length": "hands:4", "stake": "100",
                           "turn_seconds": "15", "claim_seconds": "8", "min_balance": "0",
                           "spectators": "friends", "spectator_delay": "1"})
    assert form.is_valid(), form.errors
    host = make_user("h")
    room = create_room(host, **form.room_options())
    assert (room.spectators, room.spectator_delay) == ("friends", 1)
    default = create_room(make_user("h2"), players=2)
    assert (default.spectators, default.spectator_delay) == ("nobody", 3)
    assert not CreateRoomForm({**form.data, "spectator_delay": "2"}).is_valid()
    assert {"spectators", "spectator_delay"} <= set(importlib.import_module("games.services.rematch").COPIED)
    lobby = logged_in(host).get("/lobby/").content.decode()
    assert "玩家的朋友（有链接）" in lobby and "观战延迟" in lobby


# --- a spectator cannot act -------------------------------------------------------------------------

EVERY_ACTION = [
    {"action": a, "v": 0} for a in ("discard", "chow", "pung", "kong", "win", "pass", "ckong", "akong", "decide")
] + [{"action": "discard", "tile": "1m", "v": 0, "h": 1}, {"action": "chow", "tiles": "1m 2m", "v": 0}] + [
    {"action": a} for a in ("ready", "leave", "close", "new_invite", "revoke_invite", "dissolve", "auto_off", "auto_on",
                            "escape", "rematch", "hints", "add_bot", "remove_bot")
] + [{"action": "remove", "position": 1}, {"action": "phrase", "phrase": "p1"},
     {"action": "location", "lat": 30.0, "lon": 120.0}, "not json", {"action": "nonsense"}]


def test_a_spectator_cannot_act(settings, monkeypatch):
    settings.GAME_SEED_BASE = "spectate-act"
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)
    room, users = make_room(players=2)
    allow(room, delay=0)
    watcher = make_user("watcher")
    called = []
    from games import services

    real = services.handle
    monkeypatch.setattr(services, "handle", lambda *a, **k: called.append(a) or real(*a, **k))

    async def scenario():
        players = await start(room, users)
        spec = await watch(room.pk, watcher)
        await sync_all(players + [spec], room.pk)
        assert "ws-send" not in spec.html()
        before = await db(lambda: (Room.objects.get(pk=room.pk).version, current_hand(room.pk).version,
                                   HandEvent.objects.count(), list(Seat.objects.values_list("ready", "auto_play"))))
        n_calls = len(called)
        for message in EVERY_ACTION:
            await spec.send(message)
            parts = await spec.receive()
            assert "toast" in parts and "观战中，不能操作" in parts["toast"], (message, parts)
        await spec.send({"action": "ping"})
        assert await spec.comm.receive_from(timeout=TIMEOUT) == consumers.PONG
        after = await db(lambda: (Room.objects.get(pk=room.pk).version, current_hand(room.pk).version,
                                  HandEvent.objects.count(), list(Seat.objects.values_list("ready", "auto_play"))))
        assert after == before
        assert len(called) == n_calls  # services.handle was never called for the spectator
        for p in players:
            await p.nothing_more()
        await spec.comm.disconnect()
        for p in players:
            await p.comm.disconnect()

    run(scenario)


# --- the delay and the leak test ------------------------------------------------------------------

WALL = re.compile(r'class="wall-count">(\d+)<')
HAND_VERSION = re.compile(r'data-hand-version="(\d+)"')


def check_spectator_messages(spec, hand, cache, checked, live_version, delay):
    """Every new message: tiles only from what lies face up at the version it shows, that version
    at most the live one minus the delay; no buttons."""
    for message in spec.messages[checked:]:
        assert "ws-send" not in message and "data-discard" not in message
        m = HAND_VERSION.search(message)
        if "data-tile" not in message:
            continue
        assert m, "a message with tiles but no version"
        version = int(m.group(1))
        state = state_at(hand, version, cache)
        if state.phase == engine.ENDED:
            continue
        assert version <= max(0, live_version - delay), (version, live_version, delay)
        shown = tiles_in(message)
        assert not shown - spectator_visible(state), shown - spectator_visible(state)
        assert message.count('class="mtile back') <= face_down(state, None)
    return len(spec.messages)


def check_page(html, state, version):
    """The page shows exactly seat_view(state, None): its tiles, its wall count, its version."""
    view = seat_view(state, None)
    assert all(not p["hand"] for p in view["players"])
    assert tiles_in(html) == spectator_visible(state), (version, tiles_in(html) - spectator_visible(state),
                                                        spectator_visible(state) - tiles_in(html))
    assert html.count('class="mtile back') == face_down(state, None)
    assert WALL.search(html).group(1) == str(view["wall_count"])
    assert HAND_VERSION.search(html).group(1) == str(version)
    assert "ws-send" not in html and 'class="my-hand' not in html


# (variant, players, delay, seed): whole hands, each delay, each variant's questions before the deal
CASES = [("taizhou", 4, 3, 1), ("wenzhou", 3, 1, 2), ("zhuji", 2, 0, 3), ("taizhou", 2, 3, 4), ("taizhou_trad", 3, 1, 5)]


@pytest.mark.parametrize("variant, n, delay, seed", CASES, ids=[f"{v}-{n}p-d{d}" for v, n, d, _s in CASES])
def test_spectator_sees_the_delayed_table_and_never_a_concealed_tile(settings, monkeypatch, variant, n, delay, seed):
    settings.GAME_SEED_BASE = f"spectate-{variant}-{n}"
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)
    own = {"wenzhou": {"odd_base": False}, "zhuji": ZHUJI_SETTINGS.get(n), "taizhou_trad": {"dan": 5}}.get(variant)
    room, users = make_room(players=n, length=4, **({"variant": variant, "settings": own} if own else {}))
    allow(room, delay=delay)
    watcher = make_user("watcher")
    client = logged_in(watcher)
    hands = 2 if n == 2 else 1

    async def scenario():
        players = await start(room, users)
        spec = await watch(room.pk, watcher)
        everyone = players + [spec]
        rng = random.Random(seed)
        checked = 0
        for number in range(1, hands + 1):
            cache = {}
            for step in range(500):
                await sync_all(everyone, room.pk)
                hand = await db(current_hand, room.pk)
                assert hand.number == number
                checked = await db(check_spectator_messages, spec, hand, cache, checked, hand.version, delay)
                if hand.status != Hand.PLAYING:
                    break
                shown = max(0, hand.version - delay)
                state = await db(state_at, hand, shown, cache)
                check_page(spec.html(), state, shown)
                if step % 3 == 0 or delay == 0:
                    check_page(await db(watch_page, client, room.pk), state, shown)
                live = await db(state_at, hand, hand.version, cache)
                if live.phase == engine.DECIDE:
                    waiting = rng.choice(engine.waiting_player(live))
                    offered = decide_buttons(players[waiting].buttons())
                    button = offered[rng.choice(sorted(offered))]
                else:
                    waiting = engine.waiting_player(live)[0]
                    button = choose(players[waiting].buttons(), rng)
                await press(players, room.pk, players[waiting], button)
            else:
                pytest.fail("the hand did not end")
            # the result: every hand open, as for the players
            await sync_all(everyone, room.pk)
            ended = await db(state_at, hand, hand.version, cache)
            assert ended.phase == engine.ENDED
            opened = tiles_in(spec.page["result"])
            for p in range(n):
                for t in seat_view(ended, None)["players"][p]["hand"]:
                    assert opened[t["code"]] >= 1
            assert "回放" not in spec.page["result"] and "ws-send" not in spec.html()
            if number < hands:
                for p in players:
                    await act(everyone, room.pk, p, {"action": "ready"})
        await spec.comm.disconnect()
        for p in players:
            await p.comm.disconnect()

    run(scenario)


# --- how many are watching ------------------------------------------------------------------------

WATCHING = re.compile(r"(\d+) 人观战")


def watching(html):
    m = WATCHING.search(html)
    return int(m.group(1)) if m else 0


def test_the_table_shows_how_many_are_watching(settings):
    settings.GAME_SEED_BASE = "spectate-count"
    room, users = make_room(players=2)
    allow(room)
    a, b = make_user("wa"), make_user("wb")

    async def scenario():
        players = await start(room, users)
        assert watching(players[0].page["table"]) == 0
        s1 = await watch(room.pk, a)
        await sync_all(players + [s1], room.pk)
        assert watching(players[0].page["table"]) == 1 and watching(s1.page["table"]) == 1
        s2 = await watch(room.pk, b)
        s3 = await watch(room.pk, b)  # the same user in a second tab counts once
        await sync_all(players + [s1, s2, s3], room.pk)
        assert [watching(p.page["table"]) for p in players + [s1, s2, s3]] == [2] * 5
        assert await db(SpectatorSocket.objects.count) == 3
        await s3.comm.disconnect()
        await s2.comm.disconnect()
        await sync_all(players + [s1], room.pk)
        assert watching(players[1].page["table"]) == 1
        # a socket whose process died: its row stops counting after the TTL and is deleted
        await db(SpectatorSocket.objects.filter(user=a).update, seen_at=timezone.now() - timezone.timedelta(minutes=5))
        assert await db(spectators.expire) == 1
        await sync_all(players, room.pk)
        assert watching(players[1].page["table"]) == 0
        await s1.comm.disconnect()
        for p in players:
            await p.comm.disconnect()

    run(scenario)
    assert SpectatorSocket.objects.count() == 0


# --- the same-IP check ----------------------------------------------------------------------------

def test_a_spectator_on_a_players_address_is_flagged(settings):
    settings.GAME_SEED_BASE = "spectate-ip"
    room, users = make_room(players=2)
    allow(room)
    same, other, late = make_user("same"), make_user("other"), make_user("late")

    async def scenario():
        p0 = await connect(room.pk, users[0], 0, client="10.0.0.5")
        p1 = await connect(room.pk, users[1], 1, client="10.0.0.6")
        s_other = await watch(room.pk, other, client="10.0.0.9")
        s_same = await watch(room.pk, same, client="10.0.0.5")
        # the other way round: the watcher was there first, the player connects from its address
        s_late = await watch(room.pk, late, client="10.0.0.7")
        await p1.comm.disconnect()
        p1 = await connect(room.pk, users[1], 1, client="10.0.0.7")
        for s in (p0, p1, s_other, s_same, s_late):
            await s.comm.disconnect()

    run(scenario)
    alerts = list(Alert.objects.filter(kind=Alert.WATCH_IP).order_by("pk"))
    assert len(alerts) == 2, [a.detail for a in alerts]
    first, second = alerts
    assert first.detail.startswith("10.0.0.5: 0 ") and first.positions == [0]
    assert set(first.users.all()) == {users[0], same}
    assert second.detail.startswith("10.0.0.7: 1 ") and set(second.users.all()) == {users[1], late}
    assert not Alert.objects.filter(users=other).exists()
    assert not Alert.objects.filter(kind=Alert.SAME_IP).exists()  # the players themselves do not share
    from accounts.models import SeenIP

    assert SeenIP.objects.filter(user=same, ip="10.0.0.5").exists()
