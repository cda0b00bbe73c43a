"""Security basics: the room socket refuses foreign origins; forms refuse a POST without the CSRF
token; logins are throttled (5 failures per username or per address in 15 minutes lock them for 15
minutes); the client address is read safely; production settings pass `manage.py check --deploy`."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory

from accounts import throttle
from games.models import Room, Seat, SocketPresence
from mahjong_site import client_ip
from mahjong_site.settings import caches_for

from room_helpers import connect, db, make_room, make_user, run

BASE_DIR = Path(__file__).resolve().parent.parent
LOBBY_FORM = {"variant": "taizhou", "players": "4", "length": "hands:8", "stake": "100",
              "turn_seconds": "15", "claim_seconds": "8"}
PASSWORD = "a-Long-enough-pw-42"


# --- websocket origin ------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_socket_from_a_foreign_origin_is_refused(settings):
    room, users = make_room(players=2, length=4)

    async def scenario():
        for origin in ("http://evil.example.com", "https://testserver.evil.example", "null", None):
            comm, connected = await connect(room.pk, users[0], origin=origin, expect=False)
            assert not connected, origin
            await comm.disconnect()
        assert await db(lambda: SocketPresence.objects.filter(room=room).exists()) is False
        player = await connect(room.pk, users[0], 0)  # the site's own origin, same user: accepted
        await player.comm.disconnect()

    run(scenario)


# --- CSRF ------------------------------------------------------------------------------------

def csrf_client(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def token_of(client, url):
    html = client.get(url).content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


@pytest.mark.django_db
def test_the_lobby_form_refuses_a_post_without_the_csrf_token():
    client = csrf_client(make_user("alice"))
    response = client.post("/lobby/", LOBBY_FORM)
    assert response.status_code == 403
    assert Room.objects.count() == 0
    response = client.post("/lobby/", {**LOBBY_FORM, "csrfmiddlewaretoken": "x" * 64})
    assert response.status_code == 403 and Room.objects.count() == 0
    response = client.post("/lobby/", {**LOBBY_FORM, "csrfmiddlewaretoken": token_of(client, "/lobby/")})
    assert response.status_code == 302 and Room.objects.count() == 1


@pytest.mark.django_db
def test_the_join_form_refuses_a_post_without_the_csrf_token():
    from games import services

    host = make_user("host")
    room = services.create_room(host, players=2, length=4)
    guest = csrf_client(make_user("guest"))
    url = f"/join/{room.token}/"
    assert guest.post(url).status_code == 403
    assert Seat.objects.filter(room=room).count() == 1
    response = guest.post(url, {"csrfmiddlewaretoken": token_of(guest, url)})
    assert response.status_code == 302 and Seat.objects.filter(room=room).count() == 2


# --- login throttling ------------------------------------------------------------------------

@pytest.fixture
def clock(monkeypatch):
    """throttle's clock, moved by hand."""
    now = {"t": 1_800_000_000.0}
    monkeypatch.setattr(throttle, "_now", lambda: now["t"])
    return now


def login(username, password, ip="198.51.100.20"):
    client = Client(REMOTE_ADDR=ip)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return response, client


def logged_in(client):
    return "_auth_user_id" in client.session


@pytest.mark.django_db
def test_five_failures_for_a_username_lock_it_for_fifteen_minutes(clock):
    get_user_model().objects.create_user("bob", password=PASSWORD)
    for i in range(5):
        response, client = login("bob", "wrong", ip=f"198.51.100.{i + 1}")  # from anywhere
        assert response.status_code == 200 and not logged_in(client)
        assert "登录失败次数太多" not in response.content.decode()
    # now even the right password is refused, with a clear message, from any address
    clock["t"] += 60
    response, client = login("bob", PASSWORD, ip="203.0.113.99")
    assert response.status_code == 429 and not logged_in(client)
    assert "登录失败次数太多，请 14 分钟后再试。" in response.content.decode()
    response, client = login("BOB ", PASSWORD)  # the same name in another case is the same name
    assert response.status_code == 429
    # another user is not affected
    get_user_model().objects.create_user("carol", password=PASSWORD)
    response, client = login("carol", PASSWORD)
    assert response.status_code == 302 and logged_in(client)
    # after the window the right password works (and clears the count)
    clock["t"] += 15 * 60 - 60 + 1
    response, client = login("bob", PASSWORD)
    assert response.status_code == 302 and logged_in(client)
    for _ in range(4):
        login("bob", "wrong")
    response, client = login("bob", PASSWORD)
    assert response.status_code == 302


@pytest.mark.django_db
def test_five_failures_from_an_address_lock_that_address(clock):
    get_user_model().objects.create_user("dave", password=PASSWORD)
    for i in range(5):
        login(f"nobody{i}", "wrong", ip="192.0.2.7")
    response, client = login("dave", PASSWORD, ip="192.0.2.7")
    assert response.status_code == 429 and "登录失败次数太多" in response.content.decode()
    response, client = login("dave", PASSWORD, ip="192.0.2.8")  # another address may log in
    assert response.status_code == 302 and logged_in(client)


@pytest.mark.django_db
def test_failures_older_than_the_window_do_not_count(clock):
    get_user_model().objects.create_user("erin", password=PASSWORD)
    for _ in range(4):
        login("erin", "wrong")
    clock["t"] += 15 * 60 + 1
    for _ in range(4):
        login("erin", "wrong")
    response, client = login("erin", PASSWORD)
    assert response.status_code == 302


@pytest.mark.django_db
def test_the_admin_login_is_throttled_too(clock):
    get_user_model().objects.create_user("root", password=PASSWORD, is_staff=True, is_superuser=True)
    for _ in range(5):
        Client().post("/admin/login/", {"username": "root", "password": "wrong"})
    client = Client()
    response = client.post("/admin/login/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 200 and not logged_in(client)
    assert throttle.locked_for("root", None) > 0


@pytest.mark.django_db
def test_login_in_english_when_throttled(clock):
    get_user_model().objects.create_user("frank", password=PASSWORD)
    for _ in range(5):
        login("frank", "wrong")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post("/accounts/login/", {"username": "frank", "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()


# --- the client address -----------------------------------------------------------------------

def test_client_address_from_the_peer_unless_proxies_are_trusted():
    assert client_ip.pick("203.0.113.1", ["1.2.3.4"], hops=0) == "203.0.113.1"
    assert client_ip.pick("10.0.0.1", ["1.2.3.4, 203.0.113.1"], hops=1) == "203.0.113.1"
    assert client_ip.pick("10.0.0.1", ["1.2.3.4", "203.0.113.1, 10.0.0.9"], hops=2) == "203.0.113.1"
    assert client_ip.pick("10.0.0.1", [], hops=1) == "10.0.0.1"  # no header: the peer
    assert client_ip.pick("10.0.0.1", ["not an address"], hops=1) is None
    assert client_ip.pick("10.0.0.1", ["[2001:db8::1]:443"], hops=1) == "2001:db8::1"
    assert client_ip.pick("10.0.0.1", ["198.51.100.4:5555"], hops=1) == "198.51.100.4"
    assert client_ip.pick(None, [], hops=0) is None
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1", HTTP_X_FORWARDED_FOR="1.1.1.1")
    assert client_ip.request_ip(request) == "192.0.2.1"


def test_cache_settings():
    assert caches_for("", "redis://h:6390/0")["default"]["BACKEND"].endswith("LocMemCache")
    redis = caches_for("redis://cache.internal:6379/5", "redis://h:6390/0")["default"]
    assert redis["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert redis["LOCATION"] == "redis://cache.internal:6379/5"
    assert caches_for("redis", "redis://h:6390/0")["default"]["LOCATION"] == "redis://h:6390/3"
    with pytest.raises(ImproperlyConfigured):
        caches_for("memcached://x", "redis://h:6390/0")


# --- production settings ------------------------------------------------------------------------

CONFIG_VARS = ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
               "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER", "CACHE_URL",
               "TRUSTED_PROXY_HOPS", "CSRF_TRUSTED_ORIGINS", "SERVE_STATIC")


def test_check_deploy_is_clean_in_production(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS and not k.startswith("PYTEST")}
    key = secrets.token_urlsafe(48)  # 64 characters
    assert len(key) >= 50
    env.update({"DJANGO_SETTINGS_MODULE": "mahjong_site.settings", "VAR_DIR": str(tmp_path),
                "DEBUG": "0", "SECRET_KEY": key, "ALLOWED_HOSTS": "mj.example.com"})
    proc = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "System check identified no issues" in proc.stdout, proc.stdout + proc.stderr
