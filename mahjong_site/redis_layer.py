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

from channels_redis import core
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
