"""The production layout on loopback: Debian's nginx in front of two daphne processes, a Celery
worker and Celery beat, and a hand of four players played to the end through the proxy.

  * nginx runs deploy/nginx/mahjong.conf itself, with only the machine-specific lines swapped
    (loopback ports, a throwaway certificate, its own prefix, logs and temp folders under tmp_path);
    it runs in the foreground as the current user.
  * The site's processes are started from deploy/Procfile by honcho (a real Procfile process
    manager): `honcho start -f deploy/Procfile -e <env file> -p <port> -c web=2` -> web.1 and web.2
    on two consecutive ports (the upstream's two servers), one worker, one beat; DEBUG off, TLS
    ended at nginx (SECURE_PROXY_SSL_HEADER), TRUSTED_PROXY_HOPS=1, SERVE_STATIC=0 with nginx
    serving collectstatic's copy.
  * They share the test database (pytest-django's, committed with transactional_db: a SQLite file,
    or PostgreSQL in CI's second pass) and a Redis: a redis-server of the test's own, or a database
    claimed on REDIS_URL's server in the second pass.

Checked: the health endpoint through the proxy and on each process, HTTP to HTTPS, a real login
over HTTPS through the proxy (CSRF, Host and X-Forwarded-Proto right), static files from nginx,
four players' sockets -- each from its own loopback address, one with a forged X-Forwarded-For --
two on each daphne process (nginx's access log: $upstream_addr per player), a seeded hand played to
its result over those sockets (moves cross the processes through the Redis channel layer), every
seat's recorded address the player's own (TRUSTED_PROXY_HOPS=1 honoured, the forged entry ignored),
and the worker's verified replay of the hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import grp
import html as htmllib
import http.client
import ipaddress
import json
import os
import pwd
import random
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from mahjong_site.devserver import port_open
from tests.test_healthz import RedisServer, shared_database_url

pytestmark = pytest.mark.slow

BASE_DIR = Path(__file__).resolve().parent.parent
NGINX = "/usr/sbin/nginx"
TEMPLATE = BASE_DIR / "deploy" / "nginx" / "mahjong.conf"
PROCFILE = BASE_DIR / "deploy" / "Procfile"
SEED_BASE = "nginx-proxy-1"
PLAYER_IPS = [f"127.0.0.{11 + i}" for i in range(4)]  # all of 127.0.0.0/8 is this machine's loopback
FORGED = "203.0.113.66"  # a client-written X-Forwarded-For entry the site must ignore
PASSWORD = "nginx-proxy-pass-1"
START_TIMEOUT = 90
PLAY_TIMEOUT = 120

websockets_client = pytest.importorskip("websockets.asyncio.client")


# --- nginx: the template, made to run on loopback ----------------------------------------------------

def render_site(template: str, *, upstreams, https_port, http_port, static_root, cert, key, log_dir, acme_root):
    """deploy/nginx/mahjong.conf with its machine-specific lines swapped; each swap must match."""
    swaps = [
        (r"(?m)^(\s*)server 127\.0\.0\.1:8001 (.*);\n\s*server 127\.0\.0\.1:8002 .*;\n",
         lambda m: "".join(f"{m.group(1)}server 127.0.0.1:{p} {m.group(2)};\n" for p in upstreams)),
        (r"(?m)^\s*listen \[::\]:80;\n", ""),
        (r"(?m)^\s*listen \[::\]:443 ssl http2;\n", ""),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        (r"/etc/letsencrypt/live/mj\.example\.com/fullchain\.pem", str(cert)),
        (r"/etc/letsencrypt/live/mj\.example\.com/privkey\.pem", str(key)),
        (r"/var/log/nginx/", f"{log_dir}/"),
        (r"alias /srv/mahjong/staticfiles/;", f"alias {static_root}/;"),
        (r"root /var/www/html;", f"root {acme_root};"),
    ]
    text = template
    for pattern, replacement in swaps:
        text, n = re.subn(pattern, replacement, text)
        assert n >= 1, f"deploy/nginx/mahjong.conf no longer has {pattern!r}: update this test's swaps"
    return text


def nginx_conf(site: str, prefix: Path):
    """A whole nginx.conf around the site: the foreground, one worker, everything under prefix."""
    user = ""
    if os.geteuid() == 0:  # workers would drop to nobody, who cannot read pytest's 0700 folders
        user = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};"
    temp = prefix / "temp"
    temp.mkdir(exist_ok=True)
    mime = "include /etc/nginx/mime.types;" if os.path.exists("/etc/nginx/mime.types") else ""
    return f"""{user}
daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections 512; }}
http {{
    {mime}
    default_type application/octet-stream;
    sendfile on;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
{site}
}}
"""


def make_certificate(folder: Path):
    """A throwaway self-signed certificate for 127.0.0.1 / localhost; the clients trust only it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


# --- processes ----------------------------------------------------------------------------------------

def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def free_port_pair():
    """A port p with p + 1 also free (honcho numbers web.1, web.2 from its -p)."""
    for _ in range(200):
        base = random.randint(20000, 59000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", base))
                b.bind(("127.0.0.1", base + 1))
            return base
        except OSError:
            continue
    raise RuntimeError("no two free consecutive ports")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_process(proc, sig=signal.SIGTERM, timeout=15):
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def stop_honcho(proc, log_path: Path):
    """SIGTERM honcho (it stops its processes, SIGKILL after 5 s); then kill whatever it left."""
    stop_process(proc, timeout=20)
    text = log_path.read_text(errors="replace") if log_path.exists() else ""
    pids = [int(pid) for pid in re.findall(r"started \(pid=(\d+)\)", text)]
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
    return pids


def wait_until(predicate, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


# --- HTTP over TLS through the proxy --------------------------------------------------------------------

class Browser:
    """Just enough of a browser: cookies, HTTPS with the test's certificate, a source address."""

    def __init__(self, port, ssl_context, source_ip):
        self.port, self.ssl_context, self.source_ip = port, ssl_context, source_ip
        self.cookies = {}

    @property
    def origin(self):
        return f"https://127.0.0.1:{self.port}"

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ssl_context, timeout=30,
                                           source_address=(self.source_ip, 0))
        try:
            headers = dict(headers or {})
            if self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            for value in response.headers.get_all("Set-Cookie") or []:
                cookie = SimpleCookie(value)
                for key, morsel in cookie.items():
                    self.cookies[key] = morsel.value
            return response.status, response.headers, data
        finally:
            conn.close()

    def login(self, username, password):
        status, _, page = self.request("GET", "/accounts/login/")
        assert status == 200, page[:500]
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
        body = urlencode({"csrfmiddlewaretoken": token, "username": username, "password": password})
        status, headers, page = self.request("POST", "/accounts/login/", body, {
            "Content-Type": "application/x-www-form-urlencoded", "Origin": self.origin,
            "Referer": f"{self.origin}/accounts/login/"})
        assert status == 302, (status, page[:2000])
        assert "sessionid" in self.cookies
        return headers


# --- the players' sockets (the fragments as htmx swaps them; cf. bench/live.py) -------------------------

FRAGMENT_IDS = ("clock", "toast", "status", "alerts", "seats", "invite-box", "table", "hand", "actions", "result")
_SPLIT = re.compile(r'(?=<(?:section|div) id="(?:%s)")' % "|".join(re.escape(i) for i in FRAGMENT_IDS))
_ID = re.compile(r'^<(?:section|div) id="([^"]+)"')
_ROOM_V = re.compile(r'data-room-version="(\d+)"')
_HX_VALS = re.compile(r'ws-send hx-vals=(?:"([^"]*)"|\'([^\']*)\')')
_TOAST_TEXT = re.compile(r'<span data-toast="\d+">(.*?)</span>', re.S)


def ws_values(fragment):
    out = []
    for a, b in _HX_VALS.findall(fragment):
        with contextlib.suppress(ValueError):
            out.append(json.loads(htmllib.unescape(a or b)))
    return out


class Player:
    def __init__(self, index, session_key, source_ip, changed: asyncio.Event):
        self.index, self.session_key, self.source_ip, self.changed = index, session_key, source_ip, changed
        self.page = {}
        self.room_version = -1
        self.toasts = []
        self.ws = self.reader = None
        self.closing = False

    async def open(self, port, room_id, ssl_context, extra_headers=()):
        self.ws = await websockets_client.connect(
            f"wss://127.0.0.1:{port}/ws/room/{room_id}/?lang=zh", ssl=ssl_context,
            origin=f"https://127.0.0.1:{port}",
            additional_headers={"Cookie": f"sessionid={self.session_key}", **dict(extra_headers)},
            user_agent_header=f"nginx-proxy-test player{self.index}",
            local_addr=(self.source_ip, 0), open_timeout=30, ping_interval=None, max_size=2 ** 24,
            compression=None)
        self.reader = asyncio.create_task(self.read())

    async def read(self):
        from websockets.exceptions import ConnectionClosed

        with contextlib.suppress(ConnectionClosed):
            async for message in self.ws:
                self.take(message if isinstance(message, str) else message.decode())
        self.changed.set()

    def take(self, message):
        for part in _SPLIT.split(message):
            part = part.strip()
            m = _ID.match(part)
            if m:
                self.page[m.group(1)] = part
        m = _ROOM_V.search(self.page.get("clock", "")) if "clock" in message else None
        if m and int(m.group(1)) > self.room_version:
            self.room_version = int(m.group(1))
        if 'id="toast"' in message:
            t = _TOAST_TEXT.search(self.page.get("toast", ""))
            if t:
                self.toasts.append(htmllib.unescape(t.group(1)).strip())
        self.changed.set()

    def closed(self):
        return self.reader is not None and self.reader.done() and not self.closing

    def phase(self):
        m = re.search(r"phase phase-(\w+)", self.page.get("status", ""))
        return m.group(1) if m else ""

    def choose(self):
        """What this seat does now: a win; else pass a claim; else its first tile; else 准备."""
        by_kind = {}
        for b in ws_values(self.page.get("hand", "")) + ws_values(self.page.get("actions", "")):
            by_kind.setdefault(b.get("action"), b)
        for kind in ("win", "pass", "discard", "auto_off"):
            if kind in by_kind:
                return kind, by_kind[kind]
        ready = by_kind.get("ready")
        if ready is not None and ready.get("ready", True) is not False:
            return "ready", ready
        return None

    async def send(self, message):
        await self.ws.send(json.dumps(message, ensure_ascii=False))

    async def close(self):
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)


async def wait_for(changed: asyncio.Event, predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        changed.clear()
        if predicate():
            return True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(changed.wait(), left)
    return True


async def play_one_hand(port, room_id, sessions, ssl_context, log):
    """Open the four sockets one after another (nginx's least_conn: 1st and 3rd to one daphne,
    2nd and 4th to the other), everyone presses 准备, then play until every page shows the
    hand's result. Returns (moves, toasts)."""
    changed = asyncio.Event()
    players = [Player(i, sessions[i], PLAYER_IPS[i], changed) for i in range(4)]
    try:
        for p in players:
            forged = {"X-Forwarded-For": FORGED} if p.index == 0 else {}
            await p.open(port, room_id, ssl_context, forged.items())
            assert await wait_for(changed, lambda: p.room_version >= 0, 30), f"player{p.index}: no first view"
        moves, toasts = 0, []
        deadline = time.monotonic() + PLAY_TIMEOUT
        rank = {"win": 0, "pass": 1, "discard": 2, "auto_off": 3, "ready": 4}
        dealt = False
        while True:
            assert time.monotonic() < deadline, f"the hand did not end within {PLAY_TIMEOUT} s ({moves} moves)"
            assert not any(p.closed() for p in players), "a socket closed during the hand"
            settled = await wait_for(changed, lambda: len({p.room_version for p in players}) == 1, 10)
            phases = {p.phase() for p in players}
            dealt = dealt or "playing" in phases
            if settled and dealt and phases <= {"result", "finished"}:
                return moves, toasts
            choices = [(p, p.choose()) for p in players]
            choices = [(p, c) for p, c in choices if c is not None]
            if not choices:  # nothing to do: wait for the server (a deal, a timeout)
                version = players[0].room_version
                await wait_for(changed, lambda: any(p.room_version != version for p in players), 10)
                continue
            player, (kind, message) = min(choices, key=lambda x: (rank[x[1][0]], x[0].index))
            before = player.room_version
            for p in players:
                p.toasts.clear()
            await player.send(message)
            seen = await wait_for(changed, lambda: all(p.room_version > before for p in players)
                                  or player.toasts or any(p.closed() for p in players), 20)
            if player.toasts:
                toasts.extend(player.toasts)
                log(f"player{player.index} {kind}: {player.toasts}")
                await wait_for(changed, lambda: len({p.room_version for p in players}) == 1, 3)
                continue
            assert seen, f"player{player.index}'s {kind} was not seen by all four sockets within 20 s"
            moves += 1
    finally:
        for p in players:
            await p.close()


# --- the stack ----------------------------------------------------------------------------------------------

def make_players(room_options):
    """Four players in the test database (committed: transactional_db); player0 logs in over HTTP
    (a PBKDF2 password the daphne processes can check), the others get sessions directly."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from games import services
    from tests.people import make_person

    users = [make_person(f"proxy{i}") for i in range(4)]
    hasher = PBKDF2PasswordHasher()
    users[0].password = hasher.encode(PASSWORD, hasher.salt(), iterations=1000)  # a fast one, re-hashed at login
    users[0].save(update_fields=["password"])
    room = services.create_room(users[0], players=4, **room_options)
    for user in users[1:]:
        services.join_room(user, room.token)
    store = import_module(settings.SESSION_ENGINE).SessionStore
    sessions = {}
    for seat in room.seats.all():
        if seat.position == 0:
            continue
        session = store()
        session[SESSION_KEY] = str(seat.user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = seat.user.get_session_auth_hash()
        session.create()
        sessions[seat.position] = session.session_key
    return room, users, sessions


@contextlib.contextmanager
def redis_for_the_stack(tmp_path):
    """(channel layer, broker, results, cache) URLs: the machine's Redis in CI's second pass (a
    database claimed for this test), else a redis-server of the test's own."""
    if os.environ.get("REDIS_URL"):
        from tests.test_faults import claimed_redis_db

        with claimed_redis_db(os.environ["REDIS_URL"]) as url:
            yield url, url, url, url
        return
    server = RedisServer(tmp_path / "redis")
    try:
        yield server.url(0), server.url(1), server.url(2), server.url(3)
    finally:
        server.kill()


def log_to(path):
    def log(message):
        line = f"[{time.strftime('%H:%M:%S')}] {message}"
        print(line, flush=True)
        with open(path, "a") as f:
            f.write(line + "\n")
    return log


@pytest.mark.skipif(not os.path.exists(NGINX), reason=f"{NGINX} is missing (Debian's package `nginx`; .ci/run installs it)")
def test_a_hand_through_nginx_on_two_daphne_processes(tmp_path, transactional_db):
    honcho = Path(sys.executable).parent / "honcho"
    if not honcho.exists():
        pytest.skip("honcho is not installed in the venv (requirements-dev.txt)")
    from django.conf import settings as django_settings

    database_url = shared_database_url()
    log = log_to(tmp_path / "test.log")
    t0 = time.monotonic()
    with contextlib.ExitStack() as cleanup:
        channel, broker, results, cache = cleanup.enter_context(redis_for_the_stack(tmp_path))

        # the site's settings, as an env file like /etc/mahjong/mahjong.env
        static_root = tmp_path / "staticfiles"
        var_dir = tmp_path / "var"
        var_dir.mkdir()
        settings_env = {
            "DJANGO_SETTINGS_MODULE": "mahjong_site.settings", "PYTHONUNBUFFERED": "1",
            "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECRET_KEY": django_settings.SECRET_KEY,  # the sessions made here must verify there
            "TRUSTED_PROXY_HOPS": "1", "SECURE_PROXY_SSL_HEADER": "1", "SERVE_STATIC": "0",
            "STATIC_ROOT": str(static_root), "VAR_DIR": str(var_dir),
            "DATABASE_URL": database_url, "REDIS_URL": channel, "CELERY_BROKER_URL": broker,
            "CELERY_RESULT_BACKEND": results, "CACHE_URL": cache, "CHANNEL_LAYER": "redis",
            "CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_CONCURRENCY": "1", "CELERY_LOG_LEVEL": "info",
            "GAME_SEED_BASE": SEED_BASE, "LOG_LEVEL": "WARNING",
        }
        env_file = tmp_path / "mahjong.env"
        env_file.write_text("".join(f"{k}={v}\n" for k, v in settings_env.items()))
        base_env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PYTEST_", "DJANGO_", "CELERY_")) and k not in settings_env and k != "PORT"}
        base_env["PATH"] = f"{Path(sys.executable).parent}:{base_env.get('PATH', '/usr/bin:/bin')}"

        done = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=BASE_DIR,
                              env={**base_env, **settings_env}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr

        # the site: honcho runs deploy/Procfile (web.1, web.2 on web_port, web_port + 1)
        web_port = free_port_pair()
        upstreams = [web_port, web_port + 1]
        honcho_log = tmp_path / "honcho.log"
        with open(honcho_log, "w") as out:
            site = subprocess.Popen(
                [str(honcho), "start", "-f", str(PROCFILE), "-d", str(BASE_DIR), "-e", str(env_file),
                 "-p", str(web_port), "-c", "web=2,worker=1,beat=1", "--no-colour"],
                cwd=BASE_DIR, env=base_env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        cleanup.callback(stop_honcho, site, honcho_log)

        # both daphne processes serve before nginx starts: a connection refused while one is still
        # starting would count against it (max_fails) and keep new sockets off it for fail_timeout
        def live(port):
            assert site.poll() is None, "honcho stopped\n" + honcho_log.read_text()[-4000:]
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/healthz/live")
                return conn.getresponse().status == 200
            except OSError:
                return False
            finally:
                conn.close()

        for port in upstreams:
            assert wait_until(lambda: live(port), START_TIMEOUT, 0.3), (
                f"daphne on {port} did not start\n" + honcho_log.read_text()[-4000:])

        # nginx: the template with loopback ports, the test's certificate and folders
        prefix = tmp_path / "nginx"
        (prefix / "logs").mkdir(parents=True)
        (prefix / "acme").mkdir()
        cert, key = make_certificate(prefix)
        https_port, http_port = free_port(), free_port()
        site_conf = render_site(TEMPLATE.read_text(), upstreams=upstreams, https_port=https_port,
                                http_port=http_port, static_root=static_root, cert=cert, key=key,
                                log_dir=prefix / "logs", acme_root=prefix / "acme")
        conf = prefix / "nginx.conf"
        conf.write_text(nginx_conf(site_conf, prefix))
        nginx_args = [NGINX, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "logs" / "error.log")]
        checked = subprocess.run(nginx_args + ["-t"], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr + "\n" + conf.read_text()
        nginx = subprocess.Popen(nginx_args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        cleanup.callback(stop_process, nginx)
        assert wait_until(lambda: port_open("127.0.0.1", https_port) or nginx.poll() is not None, 20)
        assert nginx.poll() is None, (prefix / "logs" / "error.log").read_text()

        ssl_context = ssl.create_default_context(cafile=str(cert))
        browser = Browser(https_port, ssl_context, PLAYER_IPS[0])

        # everything healthy through the proxy: database, Redis, the worker's heartbeat
        def healthy():
            assert site.poll() is None, "honcho stopped\n" + honcho_log.read_text()[-4000:]
            try:
                status, _, body = browser.request("GET", "/healthz")
            except OSError:
                return None
            return json.loads(body) if status == 200 else None

        body = wait_until(healthy, START_TIMEOUT, 0.5)
        assert body, "/healthz never answered 200 through the proxy\n" + honcho_log.read_text()[-4000:]
        assert body["worker"].startswith("ok"), body
        log(f"stack healthy after {time.monotonic() - t0:.1f} s: {body}")
        for port in upstreams:  # each process on its own: what a per-process monitor probes
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/healthz")
            response = conn.getresponse()
            assert response.status == 200, response.read()
            conn.close()

        # plain HTTP is sent to HTTPS; static files come from nginx (daphne does not serve them)
        conn = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
        conn.request("GET", "/lobby/")
        response = conn.getresponse()
        assert response.status == 301 and response.getheader("Location").startswith("https://127.0.0.1"), response.status
        conn.close()
        status, headers, data = browser.request("GET", "/static/vendor/htmx.min.js")
        assert status == 200 and data == (BASE_DIR / "static" / "vendor" / "htmx.min.js").read_bytes()
        assert headers["Server"].startswith("nginx") and headers["ETag"] and "max-age=600" in headers["Cache-Control"]
        direct = http.client.HTTPConnection("127.0.0.1", upstreams[0], timeout=10)
        direct.request("GET", "/static/vendor/htmx.min.js", headers={"Host": "127.0.0.1", "X-Forwarded-Proto": "https"})
        response = direct.getresponse()
        assert response.status == 404, (response.status, response.read()[:300])  # SERVE_STATIC=0: only nginx has them
        direct.close()

        # the players; the host logs in through the proxy (HTTPS, CSRF) and opens the room page
        from games.models import Hand, Replay, Seat

        room, users, sessions = make_players({"turn_seconds": 20, "claim_seconds": 10})
        browser.login(users[0].username, PASSWORD)
        sessions[0] = browser.cookies["sessionid"]
        status, _, page = browser.request("GET", f"/room/{room.pk}/")
        assert status == 200 and f"ws/room/{room.pk}/".encode() in page
        log(f"logged in, room {room.pk} at {time.monotonic() - t0:.1f} s")

        moves, toasts = asyncio.run(play_one_hand(https_port, room.pk, sessions, ssl_context, log))
        log(f"hand played to its result in {moves} moves ({len(toasts)} refusals) at {time.monotonic() - t0:.1f} s")

        hand = Hand.objects.get(game__room=room, number=1)
        assert hand.status == Hand.ENDED
        # each seat's address is the player's own loopback address: nginx appended it to
        # X-Forwarded-For and TRUSTED_PROXY_HOPS=1 took it (player0's forged entry ignored)
        ips = {seat.user.username: seat.ip for seat in Seat.objects.filter(room=room).select_related("user")}
        assert ips == {f"proxy{i}": PLAYER_IPS[i] for i in range(4)}, ips
        # the worker built and verified the hand's replay
        replay = wait_until(lambda: Replay.objects.filter(hand=hand).exclude(status=Replay.PENDING).first(), 30, 0.5)
        assert replay is not None and replay.status == Replay.OK, replay and replay.problem

        # nginx's access log: which daphne process each player's socket went to
        access = (prefix / "logs" / "mahjong.access.log")
        pattern = re.compile(rf'"GET /ws/room/{room.pk}/\S* HTTP/1\.1" 101 .*upstream=127\.0\.0\.1:(\d+) .*'
                             r'"nginx-proxy-test player(\d)"')
        lines = wait_until(lambda: [m for m in map(pattern.search, access.read_text().splitlines()) if m]
                           if access.exists() else None, 10)
        by_player = {int(m.group(2)): int(m.group(1)) for m in lines}
        assert sorted(by_player) == [0, 1, 2, 3], access.read_text()[-3000:]
        per_process = {port: sorted(p for p, up in by_player.items() if up == port) for port in upstreams}
        log(f"sockets per daphne process: {per_process}")
        assert all(len(players) == 2 for players in per_process.values()), per_process
        assert time.monotonic() - t0 < 150
    # everything the test started is gone
    pids = [int(pid) for pid in re.findall(r"started \(pid=(\d+)\)", honcho_log.read_text())]
    assert len(pids) == 4 and not [pid for pid in pids if alive(pid)]
    assert nginx.poll() is not None and site.poll() is not None
