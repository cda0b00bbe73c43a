"""A room socket whose application daphne cancels still leaves its room (games/consumers.py).

daphne cancels an application that is still running 10 s (application_close_timeout) after its
websocket closed: on a saturated process a handler can be waiting that long for the thread pool
(the 250-table bench logged hundreds of such kills while its sockets connected). The consumer's
disconnect() then never ran: the socket stayed among its process's sockets of the room (its view
rendered at every move of the room, sent nowhere), in the room's group, and online."""

import asyncio

import pytest
from channels.layers import get_channel_layer

from games import consumers
from games.models import Room, SocketPresence

from room_helpers import connect, db, make_room, run

pytestmark = pytest.mark.django_db(transaction=True)


def local_users(room_id):
    key = (asyncio.get_running_loop(), room_id)
    return sorted(c.user.pk for c in consumers.ROOM_RENDERS._sockets.get(key, ()))


def group_members(group) -> set:
    """The channels of a group in this process's layer (the in-memory one, or Redis pub/sub's)."""
    layer = get_channel_layer()
    name = layer._get_group_channel_name(group) if hasattr(layer, "_get_group_channel_name") else group
    return set(layer.groups.get(name, ()))


def test_a_cancelled_socket_leaves_its_room_as_a_closed_one_does():
    room, users = make_room(players=2)
    host, guest = users[0], users[1]

    async def scenario():
        kept = await connect(room.pk, host, 0)
        killed = await connect(room.pk, guest, 1)
        assert local_users(room.pk) == sorted([host.pk, guest.pk])
        assert await db(lambda: SocketPresence.objects.filter(seat__user=guest).count()) == 1
        group = Room(pk=room.pk).group_name
        assert len(group_members(group)) == 2

        killed.comm.future.cancel()  # what daphne does to an application that outlived its socket
        for _ in range(100):
            if local_users(room.pk) == [host.pk]:
                break
            await asyncio.sleep(0.02)
        assert local_users(room.pk) == [host.pk]
        assert len(group_members(group)) == 1
        for _ in range(100):
            if not await db(lambda: SocketPresence.objects.filter(seat__user=guest).exists()):
                break
            await asyncio.sleep(0.02)
        assert not await db(lambda: SocketPresence.objects.filter(seat__user=guest).exists())
        assert await db(lambda: SocketPresence.objects.filter(seat__user=host).count()) == 1
        await kept.comm.disconnect()

    run(scenario)


def test_a_cancelled_spectator_socket_stops_being_counted():
    from games.models import SpectatorSocket

    from test_spectators import allow, watch
    from room_helpers import make_user

    room, users = make_room(players=2)
    allow(room)
    fan = make_user("fan")

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        spectator = await watch(room.pk, fan)
        assert await db(SpectatorSocket.objects.count) == 1
        group = Room(pk=room.pk).group_name
        assert len(group_members(group)) == 2
        spectator.comm.future.cancel()
        for _ in range(100):
            if not await db(SpectatorSocket.objects.count):
                break
            await asyncio.sleep(0.02)
        assert await db(SpectatorSocket.objects.count) == 0
        assert len(group_members(group)) == 1
        await host.comm.disconnect()

    run(scenario)
