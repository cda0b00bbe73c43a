"""Settings come from the environment; production refuses to start without a SECRET_KEY."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from mahjong_site.env import env_bool, env_int, env_list, env_str, redis_url_with_db

BASE_DIR = Path(__file__).resolve().parent.parent

PRINT_SETTINGS = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "DEBUG": s.DEBUG,
    "SECRET_KEY": s.SECRET_KEY,
    "SESSION_COOKIE_SECURE": s.SESSION_COOKIE_SECURE,
    "CSRF_COOKIE_SECURE": s.CSRF_COOKIE_SECURE,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT,
    "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "DB_ENGINE": s.DATABASES["default"]["ENGINE"],
    "DB_NAME": str(s.DATABASES["default"]["NAME"]),
    "CHANNEL_BACKEND": s.CHANNEL_LAYERS["default"]["BACKEND"],
    "CHANNEL_CONFIG": s.CHANNEL_LAYERS["default"].get("CONFIG"),
    "BROKER": s.CELERY_BROKER_URL,
    "RESULTS": s.CELERY_RESULT_BACKEND,
    "EAGER": s.CELERY_TASK_ALWAYS_EAGER,
    "LANGUAGE_CODE": s.LANGUAGE_CODE,
    "TIME_ZONE": s.TIME_ZONE,
    "USE_TZ": s.USE_TZ,
    "APPS": s.INSTALLED_APPS,
    "BEAT": s.CELERY_BEAT_SCHEDULE,
}))
"""

CONFIG_VARS = (
    "DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER", "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND", "CELERY_TASK_ALWAYS_EAGER", "ALLOWED_HOSTS", "SECURE_SSL_REDIRECT",
)


def run_settings(tmp_path, **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS}
    env.update({"DJANGO_SETTINGS_MODULE": "mahjong_site.settings", "VAR_DIR": str(tmp_path)})
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", PRINT_SETTINGS], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=60
    )


def test_secret_key_is_required_when_debug_is_off(tmp_path):
    proc = run_settings(tmp_path, DEBUG="0")
    assert proc.returncode != 0
    assert "ImproperlyConfigured" in proc.stderr
    assert "SECRET_KEY" in proc.stderr


def test_production_settings_are_safe(tmp_path):
    proc = run_settings(tmp_path, DEBUG="false", SECRET_KEY="s3cret-for-test", ALLOWED_HOSTS="example.com")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["DEBUG"] is False
    assert got["SECRET_KEY"] == "s3cret-for-test"
    assert got["SESSION_COOKIE_SECURE"] and got["CSRF_COOKIE_SECURE"] and got["SECURE_SSL_REDIRECT"]
    assert got["SECURE_HSTS_SECONDS"] > 0


def test_development_defaults(tmp_path):
    proc = run_settings(tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["DEBUG"] is True
    assert got["SESSION_COOKIE_SECURE"] is False
    assert got["DB_ENGINE"] == "django.db.backends.sqlite3"
    assert got["DB_NAME"] == str(tmp_path / "db.sqlite3")
    assert got["CHANNEL_BACKEND"] == "mahjong_site.redis_layer.RedisPubSubChannelLayer"
    (host,) = got["CHANNEL_CONFIG"]["hosts"]
    assert host["address"] == "redis://127.0.0.1:6390/0"
    assert host["socket_timeout"] > 5  # above channels_redis's 5 s BZPOPMIN (tests/test_idle_sockets.py)
    assert got["BROKER"] == "redis://127.0.0.1:6390/1"
    assert got["RESULTS"] == "redis://127.0.0.1:6390/2"
    assert got["EAGER"] is False
    assert (got["LANGUAGE_CODE"], got["TIME_ZONE"], got["USE_TZ"]) == ("zh-hans", "Asia/Shanghai", True)
    assert got["APPS"][0] == "daphne"
    for app in ("channels", "django_htmx", "template_partials", "accounts", "games"):
        assert app in got["APPS"]
    assert any(entry["task"] == "games.tasks.sweep_overdue" for entry in got["BEAT"].values())


def test_the_redis_list_channel_layer_outwaits_its_blocking_receive():
    """CHANNEL_LAYER=redis-list: channels_redis blocks 5 s in BZPOPMIN; a socket timeout at or near that closes idle sockets
    (tests/test_idle_sockets.py). The site's layer refuses such a config and pools connections
    in a BlockingConnectionPool (a burst waits for a connection instead of failing)."""
    from redis.asyncio import BlockingConnectionPool

    from mahjong_site.redis_layer import RedisChannelLayer
    from mahjong_site.settings import channel_layers_for

    for host in ({"address": "redis://127.0.0.1:1/0"}, {"address": "redis://127.0.0.1:1/0", "socket_timeout": 5}):
        with pytest.raises(ImproperlyConfigured, match="socket_timeout"):
            RedisChannelLayer(hosts=[host])
    config = channel_layers_for("redis-list", "redis://127.0.0.1:1/4")["default"]
    assert config["BACKEND"] == "mahjong_site.redis_layer.RedisChannelLayer"
    layer = RedisChannelLayer(**config["CONFIG"])
    pool = layer.create_pool(0)  # no connection is made until a command runs
    assert isinstance(pool, BlockingConnectionPool)
    kwargs = pool.connection_kwargs
    assert kwargs["socket_timeout"] >= 3 * layer.brpop_timeout and kwargs["db"] == 4
    assert kwargs["health_check_interval"] and kwargs["socket_keepalive"] and kwargs["retry"].get_retries() >= 1
    assert pool.max_connections == config["CONFIG"]["hosts"][0]["max_connections"] and pool.timeout > 0


def test_services_from_environment(tmp_path):
    proc = run_settings(
        tmp_path,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        REDIS_URL="redis://10.0.0.5:6379/0",
        CHANNEL_LAYER="memory",
        CELERY_TASK_ALWAYS_EAGER="yes",
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["DB_ENGINE"] == "mahjong_site.postgresql"  # Django's, with a cheaper health check
    assert got["DB_NAME"] == "test"
    assert got["CHANNEL_BACKEND"] == "channels.layers.InMemoryChannelLayer"
    assert got["BROKER"] == "redis://10.0.0.5:6379/1"
    assert got["RESULTS"] == "redis://10.0.0.5:6379/2"
    assert got["EAGER"] is True


def test_bad_boolean_fails_loudly(tmp_path):
    proc = run_settings(tmp_path, DEBUG="maybe")
    assert proc.returncode != 0
    assert "DEBUG" in proc.stderr


def test_env_helpers(monkeypatch):
    monkeypatch.setenv("X_STR", " hello ")
    monkeypatch.setenv("X_EMPTY", "")
    monkeypatch.setenv("X_INT", "42")
    monkeypatch.setenv("X_LIST", "a, b,,c ")
    monkeypatch.delenv("X_UNSET", raising=False)
    assert env_str("X_STR") == "hello"
    assert env_str("X_EMPTY", "dflt") == "dflt"
    assert env_str("X_UNSET") is None
    assert env_int("X_INT", 1) == 42
    assert env_int("X_UNSET", 7) == 7
    assert env_list("X_LIST") == ["a", "b", "c"]
    assert env_list("X_UNSET", ["z"]) == ["z"]
    for true in ("1", "true", "Yes", "ON"):
        monkeypatch.setenv("X_BOOL", true)
        assert env_bool("X_BOOL") is True
    for false in ("0", "false", "No", "off"):
        monkeypatch.setenv("X_BOOL", false)
        assert env_bool("X_BOOL", True) is False
    assert env_bool("X_UNSET", True) is True
    monkeypatch.setenv("X_BOOL", "perhaps")
    with pytest.raises(ImproperlyConfigured):
        env_bool("X_BOOL")
    monkeypatch.setenv("X_INT", "4x")
    with pytest.raises(ImproperlyConfigured):
        env_int("X_INT")


def test_redis_url_with_db():
    assert redis_url_with_db("redis://127.0.0.1:6390/0", 1) == "redis://127.0.0.1:6390/1"
    assert redis_url_with_db("redis://:pw@host:6379", 2) == "redis://:pw@host:6379/2"
    assert redis_url_with_db("rediss://host:6380/5?ssl_cert_reqs=none", 1) == "rediss://host:6380/1?ssl_cert_reqs=none"
