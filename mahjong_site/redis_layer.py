"""The Redis channel layer as the site uses it: channels_redis's layer with a connection pool that
waits, retries and never times out a blocking receive. Configured by settings.channel_layers_for.

Why (issue 9, idle sockets closed with 1011 every few seconds): channels_redis 4.3 receives with
BZPOPMIN and a 5 s server-side timeout (RedisChannelLayer.brpop_timeout), while redis-py (6 and
later; 8.1 here) gives every connection a 5 s *client-side* socket read timeout by default. On an
idle socket the two timers race: the empty reply comes back at 5 s plus a few milliseconds, the
client has already given up at 5 s and raises redis.exceptions.TimeoutError out of
channel_layer.receive(), the consumer dies and daphne closes the websocket with 1011. The fix is a
socket timeout well above the BZPOPMIN timeout (`socket_timeout`, checked below).

What this class adds to channels_redis (whose create_pool always makes a plain ConnectionPool):
  * a BlockingConnectionPool: when `max_connections` are busy a burst (many sockets connecting at
    once) waits up to `pool_timeout` seconds for a free connection instead of raising
    "Too many connections";
  * `retries`: a command that fails on a broken connection (Redis restarted, a stale pooled
    connection; with `health_check_interval` a PING finds those first) reconnects and tries again
    with a short jittered back-off instead of failing the socket.
"""

import functools

from channels_redis import core, pubsub
from django.core.exceptions import ImproperlyConfigured
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff


REDIS_PY_SOCKET_TIMEOUT = 5  # redis-py's socket_timeout when none is given (6.0 and later)


class RedisChannelLayer(core.RedisChannelLayer):
    def __init__(self, hosts=None, **kwargs):
        super().__init__(hosts=hosts, **kwargs)
        for host in self.hosts:
            timeout = host.get("socket_timeout", REDIS_PY_SOCKET_TIMEOUT)
            if timeout is not None and timeout <= self.brpop_timeout + 1:
                raise ImproperlyConfigured(
                    f"the Redis channel layer needs socket_timeout well above its {self.brpop_timeout} s "
                    f"blocking receive (got {timeout!r}): idle sockets would close with 1011")

    def create_pool(self, index):
        host = dict(self.hosts[index])
        if "address" not in host:  # a sentinel or host/port entry: channels_redis's own pool, as given
            return super().create_pool(index)
        address = host.pop("address")
        pool_timeout = host.pop("pool_timeout", 10)
        retries = host.pop("retries", 2)
        if retries:
            host["retry"] = Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), retries)
        return aioredis.BlockingConnectionPool.from_url(address, timeout=pool_timeout, **host)


class RedisPubSubChannelLayer(pubsub.RedisPubSubChannelLayer):
    """channels_redis's pub/sub layer (CHANNEL_LAYER=redis, the default): a room update is ONE
    Redis PUBLISH to the room's group channel, heard once by each daphne process subscribed to it
    and handed to that process's sockets of the room in memory. The list layer above
    (CHANNEL_LAYER=redis-list) runs a Lua script per group send that writes every socket's own
    queue, then one blocking BZPOPMIN per socket per update: four round trips and most of the
    Redis CPU of a move at a four-seat table (issue 17).

    What it gives up: a message published while a process is cut off from Redis is lost (the list
    layer keeps it for a minute). The room's sockets notice nothing until the next update, which
    renders the whole current view anyway (a version, not a diff, is broadcast), and a page that
    reconnects is sent its full view. Subscriptions are re-made by redis-py when its connection
    comes back.

    What it adds to channels_redis: the same host options as the list layer (socket timeouts,
    keepalive, health checks, retries; options only the list layer's pool knows are dropped), and a
    group_add that fails when Redis cannot be reached — channels_redis subscribes a process to a
    group once, so a second socket of the room would otherwise join a dead subscription and be
    accepted deaf (the room socket is refused instead; the page backs off and retries)."""

    def __init__(self, hosts=None, **kwargs):
        super().__init__(hosts=[_pubsub_host(h) for h in (hosts or [{"address": "redis://localhost:6379"}])], **kwargs)

    def _get_layer(self):
        layer = super()._get_layer()
        if not getattr(layer, "filters_deliveries", False):  # once per event loop's layer
            for shard in layer._shards:
                shard._receive_message = functools.partial(_receive_unless_seen, shard)
            layer.filters_deliveries = True
        return layer

    async def group_discard(self, group, channel):  # as a method (channels_redis proxies it by name)
        await self._get_layer().group_discard(group, channel)

    async def group_add(self, group, channel):
        layer = self._get_layer()
        await layer.group_add(group, channel)
        shard = layer._get_shard(layer._get_group_channel_name(group))
        try:
            async with shard._lock:
                shard._ensure_redis()
                await shard._redis.ping()
        except BaseException:
            await layer.group_discard(group, channel)
            raise


def _pubsub_host(host):
    """A host of CHANNEL_LAYERS for channels_redis's pub/sub pool (a plain ConnectionPool)."""
    if isinstance(host, str):
        return {"address": host}
    host = dict(host)
    host.pop("pool_timeout", None)  # the list layer's BlockingConnectionPool only
    host.pop("max_connections", None)  # publishes are one at a time per process (shard lock)
    retries = host.pop("retries", 2)
    if retries and "address" in host:
        host["retry"] = Retry(ExponentialWithJitterBackoff(cap=1.0, base=0.05), retries)
    return host


# (channel name, message) -> True when that channel's consumer has no use for the group message: it
# is not handed over. games.consumers sets it (a socket already sent the room version announced).
_delivery_filter = None


def set_delivery_filter(skip) -> None:
    """skip(channel_name, message) -> bool, asked for every local member of a group a message
    reaches (on the event loop, so it must be quick and never wait); None: hand every message over."""
    global _delivery_filter
    _delivery_filter = skip


def _receive_unless_seen(shard, message):
    """channels_redis's RedisSingleShardConnection._receive_message, asking the delivery filter first.

    A move's own process renders the room's sockets there in the move's thread hop and only then
    publishes the new version (games.consumers.perform_and_render); the PUBLISH comes back to that
    process too. Handed over, the echo would wake each of the room's consumers — a queue put, a new
    receive task of channels' dispatch loop, the message decoded once per socket, the handler — to
    find a version it has already sent. Decoded once here, the filter drops it first."""
    if message is None:
        return
    name, data = message["channel"], message["data"]
    if isinstance(name, bytes):
        name = name.decode()
    layer = shard.channel_layer
    channels = layer.channels
    if name in channels:  # a message to one channel (channel_layer.send): not a room broadcast
        channels[name].put_nowait(data)
        return
    members = layer.groups.get(name)
    if not members:
        return
    skip, decoded = _delivery_filter, None
    for channel_name in tuple(members):
        queue = channels.get(channel_name)
        if queue is None:
            continue
        if skip is not None:
            if decoded is None:
                try:
                    decoded = layer.channel_layer.deserialize(data)
                except Exception:  # not ours to judge: the consumer's receive raises as before
                    skip, decoded = None, None
            if skip is not None and skip(channel_name, decoded):
                continue
        queue.put_nowait(data)
