"""Presence (games/presence.py): one SocketPresence row per open room socket, refreshed by the
page's heartbeat; a seat is online iff one of its rows was seen within PRESENCE_TTL_SECONDS.
Connect writes the row and disconnect deletes it, and the other seats hear of every change; a
heartbeat answers PONG without a version bump and outside the rate limiter; a row left behind by
a crashed socket stops counting after the TTL and the cleanup deletes it and tells the room; the
admin and the table show such seats offline; a socket that cannot join its group is refused
before it is accepted. (Sockets stay open on the real Redis layer: tests/test_idle_sockets.py.)"""

import asyncio
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import consumers, presence, services, table, tasks
from games.models import Room, Seat, SocketPresence

from room_helpers import connect, db, make_room, make_user, room_version, run, sync_all

pytestmark = pytest.mark.django_db(transaction=True)

SEAT = re.compile(r'<li class="seat[^"]*" data-position="(\d+)">(.*?)</li>', re.S)


def shown(player) -> dict:
    """{position: "online" | "offline"} as this page's seat list shows it."""
    out = {}
    for position, body in SEAT.findall(player.page["seats"]):
        m = re.search(r'class="presence (online|offline)"', body)
        if m:
            out[int(position)] = m.group(1)
    return out


def rows(room):
    return sorted(SocketPresence.objects.filter(room=room).values_list("seat__position", flat=True))


def age(room, position, seconds):
    """Pretend the seat's sockets were last heard from `seconds` ago."""
    SocketPresence.objects.filter(room=room, seat__position=position).update(
        seen_at=timezone.now() - timedelta(seconds=seconds))


async def until_shown(player, position, state):
    while shown(player).get(position) != state:
        await player.receive()


async def ping(player):
    await player.send({"action": "ping"})
    return await player.comm.receive_from(timeout=10)


def test_connect_and_disconnect_write_and_delete_rows_and_tell_the_other_seats():
    room, users = make_room(players=2)

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        assert await db(rows, room) == [0]
        assert await db(presence.online_positions, room.pk) == {0}
        assert shown(host) == {0: "online", 1: "offline"}
        guest = await connect(room.pk, users[1], 1)
        await until_shown(host, 1, "online")  # the host's page heard of it
        assert shown(guest) == {0: "online", 1: "online"}
        assert await db(presence.online_positions, room.pk) == {0, 1}

        # a second socket of the same seat (another tab): a row, but nothing anyone can see changes
        before = await db(room_version, room.pk)
        tab = await connect(room.pk, users[1], 1)
        assert await db(rows, room) == [0, 1, 1]
        await tab.comm.disconnect()
        assert await db(rows, room) == [0, 1]
        assert await db(room_version, room.pk) == before
        await host.nothing_more()

        await guest.comm.disconnect()  # the seat's last socket
        await until_shown(host, 1, "offline")
        assert await db(rows, room) == [0]
        assert await db(presence.online_positions, room.pk) == {0}
        await host.comm.disconnect()
        assert await db(rows, room) == []
        assert await db(presence.online_positions, room.pk) == set()

    run(scenario)


def test_the_heartbeat_answers_at_once_without_a_version_bump_or_the_rate_limiter(monkeypatch):
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 2)  # a flood of 2 would already trip it
    monkeypatch.setattr(consumers, "PRESENCE_TOUCH", 0.0)  # every ping refreshes the row
    room, users = make_room(players=2)

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        guest = await connect(room.pk, users[1], 1)
        await sync_all([host, guest], room.pk)
        version = await db(room_version, room.pk)
        await db(age, room, 0, 30)  # still counts: the seat stays online, nobody is told
        stale = await db(lambda: SocketPresence.objects.get(room=room, seat__position=0).seen_at)
        for _ in range(8):
            assert await ping(host) == consumers.PONG
        fresh = await db(lambda: SocketPresence.objects.get(room=room, seat__position=0).seen_at)
        assert fresh > stale + timedelta(seconds=25)
        assert await db(room_version, room.pk) == version
        await guest.nothing_more()
        await host.nothing_more()
        # the pings took nothing from the action budget
        await host.send({"action": "ready"})
        parts = await host.receive()
        assert "toast" not in parts and "已准备" in host.page["seats"]
        # a ping with the htmx extras (HEADERS) is a ping too; a long frame is not
        await host.send({"action": "ping", "HEADERS": {"HX-Request": "true"}})
        assert await host.comm.receive_from(timeout=10) == consumers.PONG
        await asyncio.sleep(1.1)  # the bucket refills
        await host.send({"action": "ping", "pad": "x" * consumers.PING_MAX})
        assert "未知的操作" in (await host.receive())["toast"]
        for p in (host, guest):
            await p.comm.disconnect()

    run(scenario)


def test_a_seat_not_heard_from_within_the_ttl_is_offline_until_it_pings_again(monkeypatch, settings):
    monkeypatch.setattr(consumers, "PRESENCE_TOUCH", 0.0)
    room, users = make_room(players=2)

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        guest = await connect(room.pk, users[1], 1)
        await until_shown(host, 1, "online")
        await db(age, room, 1, settings.PRESENCE_TTL_SECONDS + 1)
        assert await db(presence.online_positions, room.pk) == {0}
        assert not await db(lambda: Seat.objects.get(room=room, position=1).online)
        view = await db(table.seat_context, room.pk, users[0])
        assert [s["online"] for s in view["seats"]] == [True, False]
        # its next heartbeat: online again, and the room hears of it
        version = await db(room_version, room.pk)
        assert await ping(guest) == consumers.PONG  # answered first; the row is written after it
        await host.until(version + 1)
        assert await db(presence.online_positions, room.pk) == {0, 1}
        assert await db(room_version, room.pk) == version + 1
        assert shown(host)[1] == "online"
        for p in (host, guest):
            await p.comm.disconnect()

    run(scenario)


def test_a_crashed_socket_leaves_a_row_that_expires_and_the_room_is_told(settings):
    room, users = make_room(players=2)

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        guest = await connect(room.pk, users[1], 1)
        await until_shown(host, 1, "online")
        # the guest's process dies: nothing of it runs any more (no disconnect), its row stays behind.
        # (A cancelled application of a live process does leave: tests/test_cancelled_consumer.py)
        key = (asyncio.get_running_loop(), room.pk)
        dead = next(c for c in consumers.ROOM_RENDERS._sockets[key] if c.user.pk == users[1].pk)

        async def nothing_runs(code):
            consumers.ROOM_RENDERS.discard(dead)  # its process's memory is gone with it

        dead.disconnect = nothing_runs
        guest.comm.future.cancel()
        await asyncio.sleep(0.2)
        assert await db(rows, room) == [0, 1]
        assert await db(presence.online_positions, room.pk) == {0, 1}  # for the TTL, it counts
        await db(age, room, 1, settings.PRESENCE_TTL_SECONDS + 1)
        assert await db(presence.online_positions, room.pk) == {0}  # then it does not
        version = await db(room_version, room.pk)
        assert await db(tasks.expire_presence) == 1  # the beat task: deletes it and tells the room
        assert await db(rows, room) == [0]
        assert await db(room_version, room.pk) == version + 1
        await until_shown(host, 1, "offline")
        assert await db(tasks.expire_presence) == 0  # nothing left to do, no more bumps
        assert await db(room_version, room.pk) == version + 1
        await host.comm.disconnect()

    run(scenario)


def test_expire_keeps_live_rows_and_bumps_only_rooms_where_a_seat_went_offline():
    room, users = make_room(players=2)
    seats = {s.position: s for s in Seat.objects.filter(room=room)}
    now = timezone.now()
    old = now - presence.ttl() - timedelta(seconds=5)
    SocketPresence.objects.create(room=room, seat=seats[0], channel_name="live!a", seen_at=now)
    SocketPresence.objects.create(room=room, seat=seats[0], channel_name="dead!b", seen_at=old)
    version = room_version(room.pk)
    assert presence.expire(now) == 1
    assert list(SocketPresence.objects.values_list("channel_name", flat=True)) == ["live!a"]
    assert room_version(room.pk) == version  # seat 0 is still online: nothing changed for anyone
    SocketPresence.objects.create(room=room, seat=seats[1], channel_name="dead!c", seen_at=old)
    assert presence.expire(now) == 1
    assert room_version(room.pk) == version + 1


def test_online_positions():
    room, users = make_room(players=4)
    other, _ = make_room_for("other")
    seats = {s.position: s for s in Seat.objects.filter(room=room)}
    now = timezone.now()
    assert presence.online_positions(room.pk) == set()
    for name, position, seconds in (("a", 0, 0), ("b", 0, 10), ("c", 2, 60), ("d", 3, 71), ("e", 1, 3600)):
        SocketPresence.objects.create(room=room, seat=seats[position], channel_name=f"x!{name}",
                                      seen_at=now - timedelta(seconds=seconds))
    other_seat = Seat.objects.get(room=other, position=1)
    SocketPresence.objects.create(room=other, seat=other_seat, channel_name="y!z", seen_at=now)
    assert presence.online_positions(room.pk) == {0, 2}
    assert presence.online_positions(other.pk) == {1}
    assert presence.online_positions(room.pk + 1000) == set()
    # Seat.online asks the rows, or reads the annotation a list made (one query for all seats)
    assert [s.online for s in Seat.objects.filter(room=room)] == [True, False, True, False]
    with CaptureQueriesContext(connection) as queries:
        flags = [s.online for s in presence.with_online(Seat.objects.filter(room=room))]
    assert flags == [True, False, True, False] and len(queries) == 1
    # a seat that leaves (the room is waiting) takes its rows with it
    services.leave_room(users[2], room.pk)
    assert presence.online_positions(room.pk) == {0}
    assert not SocketPresence.objects.filter(channel_name="x!c").exists()


def make_room_for(prefix):
    host = make_user(prefix + "host")
    room = services.create_room(host, players=2, length=4)
    services.join_room(make_user(prefix + "guest"), room.token)
    return room, None


def test_admin_and_table_show_offline_seats_without_a_query_per_seat():
    room, users = make_room(players=2)
    finished, _ = make_room_for("done")
    Room.objects.filter(pk=finished.pk).update(status=Room.FINISHED)
    now = timezone.now()
    seats = {s.position: s for s in Seat.objects.filter(room=room)}
    SocketPresence.objects.create(room=room, seat=seats[0], channel_name="live!0", seen_at=now)
    SocketPresence.objects.create(room=room, seat=seats[1], channel_name="gone!1", seen_at=now - timedelta(hours=2))
    for seat in Seat.objects.filter(room=finished):  # players who closed the browser long ago
        SocketPresence.objects.create(room=finished, seat=seat, channel_name=f"gone!f{seat.position}",
                                      seen_at=now - timedelta(days=1))
    boss = get_user_model().objects.create_superuser("boss", password="pw-boss-long-enough")
    client = Client()
    client.force_login(boss)

    with CaptureQueriesContext(connection) as queries:
        page = client.get("/admin/games/room/")
    assert page.status_code == 200
    html = page.content.decode()
    online = dict(re.findall(r'<a href="/admin/games/room/(\d+)/change/[^>]*>\d+</a></th>.*?'
                             r'<td class="field-online">(\d+)</td>', html, re.S))
    assert online == {str(room.pk): "1", str(finished.pk): "0"}
    assert sum("games_socketpresence" in q["sql"] for q in queries.captured_queries) == 1

    page = client.get(f"/admin/games/room/{room.pk}/change/")
    assert page.status_code == 200
    cells = re.findall(r'<td class="field-online_now">.*?alt="(True|False)"', page.content.decode(), re.S)
    assert cells == ["True", "False"]

    with CaptureQueriesContext(connection) as queries:
        view = table.seat_context(room.pk, users[0])
    assert [s["online"] for s in view["seats"]] == [True, False]
    assert sum("games_socketpresence" in q["sql"] for q in queries.captured_queries) == 1


def test_a_socket_that_cannot_join_its_room_is_refused_before_it_is_accepted(monkeypatch):
    from channels.layers import get_channel_layer

    layer_class = type(get_channel_layer())  # the in-memory layer, or Redis with CHANNEL_LAYER=redis
    room, users = make_room(players=2)

    async def broken(self, group, channel):
        raise ConnectionError("Redis is down")

    async def scenario():
        with monkeypatch.context() as m:
            m.setattr(layer_class, "group_add", broken)
            comm, connected = await connect(room.pk, users[0], expect=False)
            assert not connected  # refused during the handshake: the page backs off
            await comm.disconnect()
        assert await db(rows, room) == []
        # a disconnect whose group_discard fails still forgets the socket
        host = await connect(room.pk, users[0], 0)
        with monkeypatch.context() as m:
            m.setattr(layer_class, "group_discard", broken)
            await host.comm.disconnect()
        assert await db(rows, room) == []

    run(scenario)
