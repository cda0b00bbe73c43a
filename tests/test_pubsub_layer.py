"""The default Redis channel layer: channels_redis's pub/sub layer as the site configures it
(mahjong_site/redis_layer.py RedisPubSubChannelLayer), against real redis-servers of the test's
own — "Redis is down" is that server killed, never a mock.

A room update is one PUBLISH heard by every process subscribed to the room's group; a socket is
refused when Redis cannot be reached even if its process already holds a subscription to the room
(channels_redis subscribes once per process); after Redis comes back the subscriptions are made
again and updates flow."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import ConnectionPool

from mahjong_site.redis_layer import RedisPubSubChannelLayer, _pubsub_host
from mahjong_site.settings import channel_layers_for

from test_healthz import RedisServer, redis_server  # noqa: F401  (a fixture)


def layer_for(url):
    config = channel_layers_for("redis", url)["default"]
    assert config["BACKEND"] == "mahjong_site.redis_layer.RedisPubSubChannelLayer"
    return RedisPubSubChannelLayer(**config["CONFIG"])


def test_the_hosts_keep_the_sites_timeouts_and_drop_the_list_layers_pool_options():
    config = channel_layers_for("redis", "redis://127.0.0.1:1/4")["default"]
    (host,) = config["CONFIG"]["hosts"]
    made = _pubsub_host(host)
    assert "pool_timeout" not in made and "max_connections" not in made and "retries" not in made
    pool = ConnectionPool.from_url(made.pop("address"), **made)  # what channels_redis makes of it
    kwargs = pool.connection_kwargs
    assert kwargs["db"] == 4 and kwargs["socket_timeout"] == host["socket_timeout"]
    assert kwargs["health_check_interval"] and kwargs["socket_keepalive"] and kwargs["retry"].get_retries() >= 1
    assert _pubsub_host("redis://h:1/0") == {"address": "redis://h:1/0"}


def test_a_group_message_reaches_every_process_once(redis_server):
    """Two layers stand for two daphne processes: each socket of the room hears one message."""

    async def scenario():
        a, b = layer_for(redis_server.url(0)), layer_for(redis_server.url(0))
        a1, a2, b1 = await a.new_channel(), await a.new_channel(), await b.new_channel()
        for layer, channel in ((a, a1), (a, a2), (b, b1)):
            await layer.group_add("room_7", channel)
        await asyncio.sleep(0.2)
        await b.group_send("room_7", {"type": "room.updated", "version": 3})
        got = [await asyncio.wait_for(layer.receive(channel), 5) for layer, channel in ((a, a1), (a, a2), (b, b1))]
        assert got == [{"type": "room.updated", "version": 3}] * 3
        await a.group_discard("room_7", a2)
        await a.group_send("room_7", {"type": "room.updated", "version": 4})
        assert await asyncio.wait_for(a.receive(a1), 5) == {"type": "room.updated", "version": 4}
        assert await asyncio.wait_for(b.receive(b1), 5) == {"type": "room.updated", "version": 4}
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(a.receive(a2), 0.5)  # left the group
        await a.flush()
        await b.flush()

    asyncio.run(scenario())


def test_a_socket_is_refused_while_redis_is_down_and_hears_again_after(tmp_path):
    server = RedisServer(tmp_path / "redis")
    port = server.port

    async def scenario():
        nonlocal server
        layer = layer_for(server.url(0))
        first = await layer.new_channel()
        await layer.group_add("room_9", first)  # this process now holds the room's subscription
        server.kill()
        second = await layer.new_channel()
        with pytest.raises(Exception):
            await layer.group_add("room_9", second)  # refused: the page backs off and retries
        assert second not in layer._get_layer().groups.get(layer._get_layer()._get_group_channel_name("room_9"), ())
        with pytest.raises(Exception):
            await layer.group_send("room_9", {"type": "room.updated", "version": 1})
        server = RedisServer(tmp_path / "redis-again", port)  # the same port: Redis restarted
        # one receive for the whole wait: a cancelled receive makes channels_redis drop the channel
        heard = asyncio.ensure_future(layer.receive(first))
        deadline = asyncio.get_running_loop().time() + 20
        while not heard.done():  # redis-py reconnects the subscriber and subscribes again
            assert asyncio.get_running_loop().time() < deadline, "no update after Redis came back"
            try:
                await layer.group_add("room_9", second)
                await layer.group_send("room_9", {"type": "room.updated", "version": 2})
            except Exception:
                pass
            await asyncio.wait({heard}, timeout=1.0)
        got = heard.result()
        assert got["version"] >= 2
        await layer.flush()

    try:
        asyncio.run(scenario())
    finally:
        server.kill()
