"""The pub/sub layer's delivery filter (mahjong_site/redis_layer.py, games/consumers.py already_sent):
the PUBLISH of a move comes back to the process that made it, whose sockets of the room were already
rendered in the move's own hop; that echo is dropped before it wakes their consumers. Everything else
a group hears (another process's update, a watcher's copy, a message to one channel) is handed over
as before. Against a real redis-server of the test's own."""

from __future__ import annotations

import asyncio
import random

import pytest

from games import consumers
from mahjong_site import redis_layer
from mahjong_site.settings import channel_layers_for

from room_helpers import choose, db, make_room, press, run, start, sync_all
from test_healthz import redis_server  # noqa: F401  (a fixture)
from test_pubsub_layer import layer_for
from test_room_renders import _bump, hang_up


@pytest.fixture
def no_filter_left_behind():
    """The filter is process-wide (games.consumers sets it on import): put back what was there."""
    before = redis_layer._delivery_filter
    yield
    redis_layer.set_delivery_filter(before)


def test_a_filtered_channel_is_not_handed_the_group_message_and_the_others_are(redis_server, no_filter_left_behind):
    asked = []

    def skip(channel, message):
        asked.append((channel, message["version"]))
        return channel == muted

    async def scenario():
        nonlocal muted
        a, b = layer_for(redis_server.url(0)), layer_for(redis_server.url(0))  # two processes
        muted, heard, elsewhere = await a.new_channel(), await a.new_channel(), await b.new_channel()
        for layer, channel in ((a, muted), (a, heard), (b, elsewhere)):
            await layer.group_add("room_5", channel)
        await asyncio.sleep(0.2)
        redis_layer.set_delivery_filter(skip)
        await a.group_send("room_5", {"type": "room.updated", "version": 8})
        assert await asyncio.wait_for(a.receive(heard), 5) == {"type": "room.updated", "version": 8}
        assert await asyncio.wait_for(b.receive(elsewhere), 5) == {"type": "room.updated", "version": 8}
        # a message to the one channel is not a group's: never filtered; and it is the first the
        # muted channel is handed (the group's came before it). (A receive that times out would
        # unsubscribe the channel: channels_redis takes a cancelled receive for a consumer gone.)
        await b.send(muted, {"type": "room.updated", "version": 7})
        assert await asyncio.wait_for(a.receive(muted), 5) == {"type": "room.updated", "version": 7}
        # no filter: every member hears it
        redis_layer.set_delivery_filter(None)
        await a.group_send("room_5", {"type": "room.updated", "version": 9})
        assert await asyncio.wait_for(a.receive(muted), 5) == {"type": "room.updated", "version": 9}
        await a.flush()
        await b.flush()

    muted = None
    asyncio.run(scenario())
    # asked once per local member of each process, never for the one-channel message
    assert sorted(v for _c, v in asked) == [8, 8, 8]
    assert len({c for c, _v in asked}) == 3


def test_already_sent_drops_only_a_room_update_at_a_version_the_socket_sent():
    consumers.SENT_VERSIONS["specific.x"] = 12
    try:
        assert consumers.already_sent("specific.x", {"type": "room.updated", "version": 12})
        assert consumers.already_sent("specific.x", {"type": "room.updated", "version": 3})
        assert not consumers.already_sent("specific.x", {"type": "room.updated", "version": 13})
        assert not consumers.already_sent("specific.x", {"type": "room.updated"})  # no version: render
        assert not consumers.already_sent("specific.x", {"type": "room.phrase", "version": 3})
        assert not consumers.already_sent("specific.other", {"type": "room.updated", "version": 1})
    finally:
        consumers.SENT_VERSIONS.pop("specific.x")


@pytest.mark.django_db(transaction=True)
def test_a_moves_echo_never_reaches_the_rooms_consumers_and_other_updates_do(settings, redis_server, monkeypatch):
    settings.CHANNEL_LAYERS = channel_layers_for("redis", redis_server.url(0))
    settings.GAME_SEED_BASE = "echo-filter"
    room, users = make_room(players=4)
    handed = []  # (sent version before, version) of every room.updated a consumer was handed
    dropped = []
    real_handler, real_filter = consumers.RoomConsumer.room_updated, consumers.already_sent

    async def room_updated(self, event):
        handed.append((self.sent_version, event.get("version")))
        return await real_handler(self, event)

    def already_sent(channel, message):
        out = real_filter(channel, message)
        if out:
            dropped.append((channel, message["version"]))
        return out

    monkeypatch.setattr(consumers.RoomConsumer, "room_updated", room_updated)
    monkeypatch.setattr(redis_layer, "_delivery_filter", already_sent)

    async def scenario():
        players = await start(room, users)
        # the echoes of the 准备 presses may still be on their way: only what comes after counts
        started = max(p.room_version for p in players)
        rng = random.Random(3)
        for _ in range(6):  # each move's sockets are rendered in its hop; its echo is dropped
            mover = next(p for p in players if p.buttons())
            await press(players, room.pk, mover, choose(mover.buttons(), rng))

        def echoes():
            return [(channel, v) for channel, v in dropped if v > started]

        for _ in range(200):  # the last echo comes back (a loaded machine takes its time)
            if len(echoes()) >= 6 * 4:
                break
            await asyncio.sleep(0.05)
        assert [(before, v) for before, v in handed if v > started] == []
        assert len(echoes()) == 6 * 4, echoes()
        # an update made elsewhere (a timeout, another process) reaches all four, rendered in a batch
        await db(_bump, room.pk)
        await sync_all(players, room.pk)
        handed_after = [(before, v) for before, v in handed if v > started]
        assert len(handed_after) == 4 and all(before < version for before, version in handed_after), handed
        assert {p.room_version for p in players} == {max(v for _b, v in handed_after)}
        await hang_up(players)
        assert len({channel for channel, _v in echoes()}) == 4
        assert consumers.SENT_VERSIONS.keys().isdisjoint(channel for channel, _v in dropped)  # forgotten on close

    run(scenario)
