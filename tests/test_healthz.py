"""/healthz and /healthz/live (mahjong_site/health.py) against real Redis servers.

A redis-server of the test's own on a free port stands for the channel layer's and the broker's
Redis; "Redis is down" is that server killed (or a port nobody listens on), never a mock. The
worker heartbeat is written by the module's own writer (what the worker's task and its
worker_ready hook call), and in the last test by a real Celery worker with beat (-B) in it; a
stale heartbeat is one whose key has expired, as it does when no worker wrote it in time.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.test import AsyncClient, Client

from mahjong_site import health
from mahjong_site.devserver import free_port, redis_server_executable, wait_for_port
from mahjong_site.settings import channel_layers_for

BASE_DIR = Path(__file__).resolve().parent.parent


def redis_executable():
    return "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else redis_server_executable()


class RedisServer:
    """A redis-server of the test's own (never the machine's Redis, which is never killed)."""

    def __init__(self, folder: Path, port: int | None = None):
        self.port = port or free_port()  # a port given: the same server restarted
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [redis_executable(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(folder),
             "--save", "", "--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        assert wait_for_port("127.0.0.1", self.port, self.proc, timeout=15), "redis-server did not start"

    def url(self, db):
        return f"redis://127.0.0.1:{self.port}/{db}"

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path / "redis")
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture(autouse=True)
def _fresh_health_clients():
    """Redis clients are kept per URL per process; ports are reused between tests."""
    health._clients.clear()
    yield
    for client in health._clients.values():
        client.close()
    health._clients.clear()


def use_redis(settings, channel_url, broker_url):
    """Settings as in production: the Redis channel layer, a worker behind a Redis broker."""
    settings.CHANNEL_LAYERS = channel_layers_for("redis", channel_url)
    settings.CELERY_BROKER_URL = broker_url
    settings.CELERY_TASK_ALWAYS_EAGER = False


def get(path="/healthz", **extra):
    response = Client().get(path, **extra)
    return response.status_code, json.loads(response.content or b"{}"), response


pytestmark = pytest.mark.django_db


def test_all_well_is_200_with_a_small_json_body(settings, redis_server):
    use_redis(settings, redis_server.url(0), redis_server.url(1))
    health.write_heartbeat()
    status, body, response = get()
    assert status == 200, body
    assert body["status"] == "ok" and "failing" not in body
    assert body["database"] == "ok" and body["redis"] == "ok"
    assert body["worker"].startswith("ok: heartbeat") and body["worker"].endswith("s ago")
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    assert len(response.content) < 300
    # HEAD answers the same status without the body
    head = Client().head("/healthz")
    assert head.status_code == 200 and head.content == b""


def test_the_async_path_daphne_takes_answers_the_same(settings, redis_server):
    """Under daphne the middleware chain is async: the checks run in a thread of their own."""
    use_redis(settings, redis_server.url(0), redis_server.url(1))
    health.write_heartbeat()

    async def probe():
        return await AsyncClient().get("/healthz")

    response = asyncio.run(probe())
    assert response.status_code == 200, response.content
    redis_server.kill()
    response = asyncio.run(probe())
    assert response.status_code == 503
    assert "redis" in json.loads(response.content)["failing"]


def test_redis_down_is_503_naming_redis(settings, redis_server):
    use_redis(settings, redis_server.url(0), redis_server.url(1))
    health.write_heartbeat()
    assert get()[0] == 200
    redis_server.kill()  # the real server goes away (its pooled connections die with it)
    started = time.monotonic()
    status, body, _ = get()
    assert time.monotonic() - started < 5, "a dead Redis must fail the probe at once (no retries)"
    assert status == 503, body
    assert body["status"] == "unhealthy"
    assert "redis" in body["failing"] and "database" not in body["failing"]
    assert body["database"] == "ok"
    assert "channel layer: ConnectionError" in body["redis"] and "broker: ConnectionError" in body["redis"]
    assert body["worker"].startswith("unknown")


def test_only_the_channel_layers_redis_down(settings, redis_server):
    """The broker answers, the channel layer's Redis (another server, nobody listening) does not."""
    use_redis(settings, f"redis://127.0.0.1:{free_port()}/0", redis_server.url(1))
    health.write_heartbeat()
    status, body, _ = get()
    assert status == 503
    assert body["failing"] == ["redis"]
    assert body["redis"] == "channel layer: ConnectionError"
    assert body["worker"].startswith("ok")


def test_a_stale_worker_heartbeat_is_503_a_fresh_one_200(settings, redis_server):
    use_redis(settings, redis_server.url(0), redis_server.url(1))
    settings.HEALTH_WORKER_STALE_SECONDS = 2
    status, body, _ = get()
    assert status == 503 and body["failing"] == ["worker"]  # no worker ever wrote one
    assert body["worker"] == "stale: no heartbeat within 2 s"

    health.write_heartbeat()
    status, body, _ = get()
    assert status == 200, body
    time.sleep(2.5)  # the worker stopped writing: the heartbeat goes stale
    status, body, _ = get()
    assert status == 503 and body["failing"] == ["worker"], body
    assert body["database"] == "ok" and body["redis"] == "ok"

    health.write_heartbeat()  # back
    assert get()[0] == 200


def test_live_needs_nothing_and_healthz_is_exempt_from_hosts_redirects_and_sessions(settings):
    """Production settings: SSL redirect on, only mj.example.com allowed. A probe at the daphne
    process's own address over plain HTTP is still answered, and leaves no session behind."""
    from django.contrib.sessions.models import Session

    settings.CHANNEL_LAYERS = channel_layers_for("redis", f"redis://127.0.0.1:{free_port()}/0")  # down
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["mj.example.com"]
    settings.DEBUG = False
    sessions = Session.objects.count()

    assert Client().get("/lobby/", HTTP_HOST="127.0.0.1:8001").status_code == 400  # the settings bite
    assert Client().get("/lobby/", HTTP_HOST="mj.example.com").status_code == 301  # to https

    for path in ("/healthz/live", "/healthz/live/"):
        status, body, response = get(path, HTTP_HOST="127.0.0.1:8001")
        assert (status, body) == (200, {"status": "ok"})
        assert not response.cookies
    status, body, response = get("/healthz", HTTP_HOST="127.0.0.1:8001")
    assert status == 503 and body["failing"] == ["redis"]  # answered, not redirected
    assert body["worker"] == "not used (tasks run inline)"
    assert not response.cookies and "Vary" not in response
    assert Session.objects.count() == sessions
    assert Client().post("/healthz/live").status_code == 405


def test_a_database_that_does_not_answer_is_503_naming_the_database(tmp_path):
    """A process whose DATABASE_URL points at a port nobody listens on (a real refusal)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(DJANGO_SETTINGS_MODULE="mahjong_site.settings", VAR_DIR=str(tmp_path),
               DATABASE_URL=f"postgres://nobody@127.0.0.1:{free_port()}/nothing", CHANNEL_LAYER="memory",
               CELERY_TASK_ALWAYS_EAGER="1")
    code = ("import django, json; django.setup(); from django.test import Client; "
            "r = Client().get('/healthz'); print(json.dumps([r.status_code, json.loads(r.content)]))")
    done = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    status, body = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 503
    assert body["failing"] == ["database"] and body["database"] == "error: OperationalError"


def shared_database_url():
    """The test database, as an URL other processes can use (SQLite file or PostgreSQL)."""
    from django.db import connection

    s = connection.settings_dict
    if s["ENGINE"].endswith("sqlite3"):
        name = str(s["NAME"])
        if name == ":memory:" or name.startswith("file:"):
            pytest.skip("the test database is in memory: other processes cannot share it")
        return f"sqlite:///{name}"
    if "postgresql" in s["ENGINE"]:
        from urllib.parse import quote

        auth = quote(s["USER"] or "", safe="")
        if s.get("PASSWORD"):
            auth += ":" + quote(s["PASSWORD"], safe="")
        return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    pytest.skip(f"no URL for the database engine {s['ENGINE']}")


@pytest.mark.slow
def test_a_real_worker_keeps_the_heartbeat_fresh_and_it_goes_stale_when_the_worker_dies(
        settings, redis_server, tmp_path):
    """A Celery worker (solo pool) with beat in it (-B), heartbeat every 2 s, stale after 5 s:
    healthy as soon as the worker is ready (worker_ready), still healthy well after 5 s (beat's
    heartbeats go through the broker to the worker), unhealthy about 5 s after it was killed."""
    use_redis(settings, redis_server.url(0), redis_server.url(1))
    settings.HEALTH_WORKER_STALE_SECONDS = 5
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(DJANGO_SETTINGS_MODULE="mahjong_site.settings", VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1",
               DATABASE_URL=shared_database_url(), REDIS_URL=redis_server.url(0),
               CELERY_BROKER_URL=redis_server.url(1), CELERY_RESULT_BACKEND=redis_server.url(2),
               CHANNEL_LAYER="redis", CELERY_TASK_ALWAYS_EAGER="0",
               HEALTH_HEARTBEAT_SECONDS="2", HEALTH_WORKER_STALE_SECONDS="5")
    log_path = tmp_path / "worker.log"
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "mahjong_site", "worker", "--pool=solo", "-B",
             "--schedule", str(tmp_path / "celerybeat-schedule"), "--loglevel=info"],
            cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert get()[0] == 503  # not started yet
        deadline = time.monotonic() + 60
        while get()[0] != 200:
            assert worker.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, "no heartbeat from the worker\n" + log_path.read_text()[-3000:]
            time.sleep(0.2)
        ready_at = time.monotonic()
        while time.monotonic() < ready_at + 10:  # beyond the 5 s expiry of the ready heartbeat
            status, body, _ = get()
            assert status == 200, (body, log_path.read_text()[-3000:])
            time.sleep(0.5)
        assert "mahjong_site.health.worker_heartbeat" in log_path.read_text()
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    killed_at = time.monotonic()
    while get()[0] == 200:
        assert time.monotonic() < killed_at + 15, "the heartbeat did not go stale"
        time.sleep(0.2)
    status, body, _ = get()
    assert status == 503 and body["failing"] == ["worker"], body
    assert time.monotonic() - killed_at <= 8


def test_beat_sends_the_heartbeat_and_the_worker_imports_it():
    from django.conf import settings

    from mahjong_site.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["worker-heartbeat"]
    assert entry["task"] == "mahjong_site.health.worker_heartbeat"
    assert entry["schedule"] < settings.HEALTH_WORKER_STALE_SECONDS / 2
    assert "mahjong_site.health" in app.conf.imports
    assert settings.MIDDLEWARE[0] == "mahjong_site.health.HealthMiddleware"
