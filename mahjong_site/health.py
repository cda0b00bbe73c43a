"""Health endpoints for a proxy or a monitor, and the Celery worker's heartbeat.

    GET /healthz        200 {"status": "ok", ...} when the database answers a `SELECT 1`, every Redis
                        the site uses answers PING (the channel layer's, the Celery broker's), and a
                        Celery worker wrote its heartbeat within HEALTH_WORKER_STALE_SECONDS;
                        otherwise 503 with "failing": the parts that did not answer.
    GET /healthz/live   200 {"status": "ok"}: the process serves, nothing else is looked at.

Both are answered by `HealthMiddleware`, first in MIDDLEWARE, before anything else runs: no
session, no cookie, no database write, no host check (a probe may use any Host header, e.g. the
daphne process's own 127.0.0.1:8001), no redirect (SECURE_SSL_REDIRECT, APPEND_SLASH), no auth.
The answer says only which part failed and the exception's class; details go to the log.

The heartbeat: Celery beat sends `worker_heartbeat` every HEALTH_HEARTBEAT_SECONDS and a worker
also writes one as soon as it is ready. It is a key in the broker's Redis set with an expiry of
HEALTH_WORKER_STALE_SECONDS (the Redis clock: no skew between machines), so a missing key means no
worker consumed the queue within that time -- no worker, a worker cut off from the broker, a queue
backed up, or no beat. The checks run in one thread of their own (never the thread that serves
every socket's database work in a daphne process) with HEALTH_TIMEOUT_SECONDS in all; Redis
connections have 1 s timeouts and no retries, so a Redis that is down fails the probe at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.http import HttpResponse

log = logging.getLogger(__name__)

HEARTBEAT_KEY = "mahjong:health:worker"
LIVE_PATHS = ("/healthz/live", "/healthz/live/")
READY_PATHS = ("/healthz", "/healthz/")


def _setting(name, default):
    return getattr(settings, name, default)


# --- Redis ------------------------------------------------------------------------------------

_clients: dict = {}
_clients_lock = threading.Lock()


def redis_client(url):
    """One client (and connection pool) per URL per process: short timeouts, no retries."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1,
                                          retry=Retry(NoBackoff(), 0), health_check_interval=0)
            _clients[url] = client
        return client


def _is_redis_url(url):
    return isinstance(url, str) and url.startswith(("redis://", "rediss://", "unix://"))


def channel_layer_redis_urls():
    """The Redis servers of the channel layer (none for the in-memory layer)."""
    layer = (getattr(settings, "CHANNEL_LAYERS", {}) or {}).get("default", {})
    if "redis" not in layer.get("BACKEND", "").lower():
        return []
    urls = []
    for host in layer.get("CONFIG", {}).get("hosts", []):
        if isinstance(host, dict):
            host = host.get("address")
        if isinstance(host, (tuple, list)) and len(host) == 2:
            host = f"redis://{host[0]}:{host[1]}/0"
        if _is_redis_url(host):
            urls.append(host)
    return urls


def broker_url():
    """The Celery broker's Redis URL, or None when tasks run inline (no worker) or not on Redis."""
    if _setting("CELERY_TASK_ALWAYS_EAGER", False):
        return None
    url = _setting("CELERY_BROKER_URL", None)
    return url if _is_redis_url(url) else None


def _server(url):
    """What a PING reaches (the database number does not matter)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.path if parts.scheme == "unix" else (parts.hostname, parts.port or 6379)


# --- the heartbeat (written by the worker) --------------------------------------------------------

def write_heartbeat(worker=None):
    """Record that a worker is alive and consuming: the key expires when it is stale."""
    url = broker_url() or _setting("CELERY_BROKER_URL", None)
    if not _is_redis_url(url):
        return False
    stale = float(_setting("HEALTH_WORKER_STALE_SECONDS", 60))
    value = json.dumps({"worker": worker or f"{socket.gethostname()}:{os.getpid()}", "at": time.time()})
    redis_client(url).set(HEARTBEAT_KEY, value, px=max(1, int(stale * 1000)))
    return True


@shared_task(ignore_result=True, name="mahjong_site.health.worker_heartbeat")
def worker_heartbeat():
    """Sent by beat every HEALTH_HEARTBEAT_SECONDS (settings.CELERY_BEAT_SCHEDULE)."""
    return write_heartbeat()


@worker_ready.connect(dispatch_uid="mahjong_site.health.worker_ready")
def _first_heartbeat(sender=None, **kwargs):
    """A worker that just started is healthy at once, without waiting for beat's first send."""
    try:
        write_heartbeat(getattr(sender, "hostname", None))
    except Exception:  # the broker may be away; beat's next heartbeat will do
        log.warning("could not write the worker heartbeat", exc_info=True)


# --- the checks -----------------------------------------------------------------------------------

def check_database():
    from django.db import connections

    conn = connections["default"]
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        conn.close()  # a probe keeps nothing open (a pool, if configured, takes it back)


def run_checks():
    """{part: "ok" or what failed}, for the database, Redis and the worker heartbeat."""
    results = {}
    try:
        check_database()
        results["database"] = "ok"
    except Exception as exc:
        log.warning("healthz: database check failed: %r", exc)
        results["database"] = f"error: {type(exc).__name__}"

    channel_errors, seen = [], set()
    for url in channel_layer_redis_urls():
        if _server(url) in seen:
            continue
        seen.add(_server(url))
        try:
            redis_client(url).ping()
        except Exception as exc:
            log.warning("healthz: the channel layer's Redis does not answer PING: %r", exc)
            channel_errors.append(f"channel layer: {type(exc).__name__}")

    broker = broker_url()
    worker = "not used (tasks run inline)"
    if broker is not None:
        try:  # the broker's Redis answering is its PING
            left_ms = redis_client(broker).pttl(HEARTBEAT_KEY)
        except Exception as exc:
            log.warning("healthz: the broker's Redis does not answer: %r", exc)
            channel_errors.append(f"broker: {type(exc).__name__}")
            worker = "unknown: the broker's Redis does not answer"
        else:
            stale = float(_setting("HEALTH_WORKER_STALE_SECONDS", 60))
            if left_ms is None or left_ms < 0:
                worker = f"stale: no heartbeat within {stale:g} s"
            else:
                worker = f"ok: heartbeat {max(0.0, stale - left_ms / 1000):.0f} s ago"
    if seen or broker is not None:
        results["redis"] = "; ".join(channel_errors) if channel_errors else "ok"
    else:
        results["redis"] = "not used"
    results["worker"] = worker
    return results


def _ok(value):
    return value == "ok" or value.startswith(("ok:", "not used"))


def _response(request, payload, status):
    body = b"" if request.method == "HEAD" else json.dumps(payload).encode()
    response = HttpResponse(body, status=status, content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


def ready_response(request, results):
    failing = [part for part, value in results.items() if not _ok(value)]
    payload = {"status": "unhealthy" if failing else "ok"}
    if failing:
        payload["failing"] = failing
    payload.update(results)
    return _response(request, payload, 503 if failing else 200)


_executor = None
_executor_lock = threading.Lock()


def _checks_executor():
    """One thread of its own per process: probes queue behind each other, never behind sockets."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="healthz")
        return _executor


def _timed_out(timeout):
    log.warning("healthz: the checks took more than %g s", timeout)
    return {"checks": f"timeout: no answer within {timeout:g} s"}


class HealthMiddleware:
    """Answers /healthz and /healthz/live before any other middleware runs (sync and async)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    @staticmethod
    def _which(request):
        path = request.path_info
        if path in LIVE_PATHS:
            return "live"
        if path in READY_PATHS:
            return "ready"
        return None

    @staticmethod
    def _method_not_allowed(request):
        if request.method not in ("GET", "HEAD"):
            response = HttpResponse(status=405)
            response["Allow"] = "GET, HEAD"
            return response
        return None

    def __call__(self, request):
        if self.is_async:
            return self.__acall__(request)
        which = self._which(request)
        if which is None:
            return self.get_response(request)
        refused = self._method_not_allowed(request)
        if refused:
            return refused
        if which == "live":
            return _response(request, {"status": "ok"}, 200)
        timeout = float(_setting("HEALTH_TIMEOUT_SECONDS", 5))
        try:  # the same thread as under daphne: never this request's own database connection
            results = _checks_executor().submit(run_checks).result(timeout)
        except FutureTimeout:
            results = _timed_out(timeout)
        return ready_response(request, results)

    async def __acall__(self, request):
        which = self._which(request)
        if which is None:
            return await self.get_response(request)
        refused = self._method_not_allowed(request)
        if refused:
            return refused
        if which == "live":
            return _response(request, {"status": "ok"}, 200)
        timeout = float(_setting("HEALTH_TIMEOUT_SECONDS", 5))
        loop = asyncio.get_running_loop()
        try:
            results = await asyncio.wait_for(loop.run_in_executor(_checks_executor(), run_checks), timeout)
        except asyncio.TimeoutError:
            results = _timed_out(timeout)
        return ready_response(request, results)
