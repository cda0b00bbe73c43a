"""Django settings for the 台州麻将 site, read from the environment.

Every knob has a default that works on one machine with zero setup (SQLite, the embedded Redis
started by `make run`). See README.md for the table of variables.
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_str, redis_url_with_db

BASE_DIR = Path(__file__).resolve().parent.parent
# Runtime data (SQLite database, embedded Redis data, celery beat schedule). Gitignored.
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- core -------------------------------------------------------------------------------------
DEBUG = env_bool("DEBUG", True)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment when DEBUG is off")
    SECRET_KEY = "django-insecure-dev-only-key-do-not-use-in-production"

# With DEBUG on and no ALLOWED_HOSTS Django accepts localhost, 127.0.0.1 and [::1].
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "accounts",
    "games",
    "support",
]

MIDDLEWARE = [
    # /healthz and /healthz/live for the proxy: answered before anything else (mahjong_site/health.py)
    "mahjong_site.health.HealthMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "mahjong_site.urls"
ASGI_APPLICATION = "mahjong_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.beans",
            ],
        },
    },
]

# --- database ---------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")
DATABASES = {
    # Persistent connections (a socket's every render used to open and close one): kept for
    # DB_CONN_MAX_AGE seconds, checked before reuse after an error or a restart of the database.
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
                                     conn_health_checks=True),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that polls the idle socket instead of a `SELECT 1`
    # round trip before every use (mahjong_site/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "mahjong_site.postgresql"
    # Parameters sent apart from the SQL (server-side binding), and a statement run
    # DB_PREPARE_THRESHOLD times on a connection is prepared once: PostgreSQL stops parsing and
    # planning the same few statements of every move, and psycopg stops quoting each value into
    # the SQL in Python. DB_PREPARE_THRESHOLD=0 turns both off (behind a transaction-pooling
    # PgBouncer older than 1.21, which cannot keep prepared statements).
    _prepare = env_int("DB_PREPARE_THRESHOLD", 5)
    if _prepare > 0:
        DATABASES["default"].setdefault("OPTIONS", {}).update({"server_side_binding": True,
                                                               "prepare_threshold": _prepare})
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite as a real default for a handful of tables: WAL lets readers run beside the one
    # writer; IMMEDIATE takes the write lock when a transaction starts, so two writers queue
    # (busy timeout) instead of failing with "database is locked" when one upgrades its lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_TIMEOUT", 20),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })
    # Tests on a file too, not SQLite's in-memory default: that shares one cache between threads
    # with table locks no busy timeout waits for ("database table is locked") whenever a render
    # off the sync thread reads while a move writes. pytest-django adds a suffix per xdist worker.
    DATABASES["default"]["TEST"] = {"NAME": env_str("SQLITE_TEST_NAME", str(BASE_DIR / "var" / "test.sqlite3"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The first backend only refuses usernames/addresses locked by too many failed logins
# (accounts/throttle.py); the second checks the password.
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:lobby"
LOGOUT_REDIRECT_URL = "games:home"

# --- i18n -------------------------------------------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [
    ("zh-hans", "简体中文"),
    ("en", "English"),
]
LOCALE_PATHS = [BASE_DIR / "mahjong_site" / "locale"]  # the top level of the repo is fixed
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

# --- static files -----------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# daphne serves static files itself (ASGIStaticFilesHandler) when this is on; behind a proxy
# in production, run collectstatic and let the proxy serve STATIC_ROOT instead.
SERVE_STATIC = env_bool("SERVE_STATIC", DEBUG)

# --- Redis: channel layer, Celery -------------------------------------------------------------
# One Redis server, three databases: /0 channel layer, /1 Celery broker, /2 Celery results.
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6390/0")
CHANNEL_LAYER = env_str("CHANNEL_LAYER", "redis").lower()


def channel_layers_for(kind, redis_url):
    """CHANNEL_LAYERS for CHANNEL_LAYER=redis (default), redis-list, or memory (tests, one process).

    redis: channels_redis's pub/sub layer (mahjong_site/redis_layer.py RedisPubSubChannelLayer):
    a room update is one PUBLISH, heard once per daphne process (issue 17: the list layer's group
    send and per-socket blocking receives were most of a move's Redis work).
    redis-list: channels_redis's list layer, which keeps a message for a minute for a process cut
    off from Redis. Its timeouts matter (issue 9): it receives with a blocking BZPOPMIN that
    returns empty after 5 s, and redis-py's default socket read timeout is also 5 s. The two raced
    and the client usually lost: redis.exceptions.TimeoutError escaped channel_layer.receive()
    and daphne closed every idle websocket with 1011. So the socket timeout is three times the
    BZPOPMIN timeout (still finite: a dead Redis is noticed).
    Both: pooled connections idle for 30 s are PINGed before use (a Redis restart or a NAT that
    dropped them is found and reconnected, with `retries`); the list layer's bursts wait up to
    `pool_timeout` s for one of `max_connections` per process instead of raising "Too many
    connections".
    """
    if kind == "memory":
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    if kind in ("redis", "redis-list"):
        backend = "RedisChannelLayer" if kind == "redis-list" else "RedisPubSubChannelLayer"
        return {
            "default": {
                "BACKEND": f"mahjong_site.redis_layer.{backend}",
                "CONFIG": {"hosts": [{
                    "address": redis_url,
                    "socket_timeout": env_int("REDIS_SOCKET_TIMEOUT", 15),  # > the list layer's 5 s BZPOPMIN
                    "socket_connect_timeout": 5,
                    "socket_keepalive": True,
                    "health_check_interval": 30,
                    "max_connections": env_int("REDIS_MAX_CONNECTIONS", 50),
                    "pool_timeout": 10,
                    "retries": 2,
                }],
                    # the names' prefix in Redis: processes that share a Redis server but not a
                    # database (each pytest-xdist worker, tests/conftest.py) must not hear each
                    # other's rooms, whose ids are the same numbers
                    "prefix": env_str("CHANNEL_PREFIX", "asgi")},
            }
        }
    raise ImproperlyConfigured(f"CHANNEL_LAYER={kind!r}: use 'redis', 'redis-list' or 'memory'")


CHANNEL_LAYERS = channel_layers_for(CHANNEL_LAYER, REDIS_URL)

# --- cache (login throttling) ----------------------------------------------------------------
# CACHE_URL unset: per-process memory (tests, one process). redis://host:port/db, or just "redis"
# (REDIS_URL's server, db 3): shared by every process -- use it when several processes serve.
CACHE_URL = env_str("CACHE_URL", "")


def caches_for(url, redis_url):
    if not url or url.startswith("locmem"):
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "mahjong"}}
    if url == "redis":
        url = redis_url_with_db(redis_url, 3)
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                            "KEY_PREFIX": "mahjong"}}
    raise ImproperlyConfigured(f"CACHE_URL={url!r}: use redis://..., 'redis' or leave it unset (memory)")


CACHES = caches_for(CACHE_URL, REDIS_URL)

# --- client addresses (same-IP alerts, login throttling) ------------------------------------------
# 0: the peer address of the connection; X-Forwarded-For is ignored (a client could forge it).
# N > 0: behind N proxies that each append to X-Forwarded-For: the address N entries from the right.
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 0)
if TRUSTED_PROXY_HOPS < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_HOPS must be 0 or more")

# The result screen's ready countdown: the next hand is dealt when it runs out (or earlier, when
# every present player pressed 准备; seats on 托管 or offline are ready by themselves).
NEXT_HAND_SECONDS = env_int("NEXT_HAND_SECONDS", 15)

# The pause before a computer player (电脑) or a seat on 托管 moves, in seconds: a human-looking
# pause, and never in the same transaction as the move before it (games/services/bots.py).
BOT_DELAY_SECONDS = float(env_str("BOT_DELAY_SECONDS", "1"))
# 托管 and a person's timed-out turn play with the bot (games/engine/bot.py); 0 makes them discard
# the drawn tile as before (the fault tests need hands that last; computer seats always use the bot)
AUTO_PLAY_BOT = env_bool("AUTO_PLAY_BOT", True)

# Turn timeouts at scale (issue 17): a deadline at most TIMEOUT_TASK_SECONDS away (a computer or
# 托管 seat's pause, BOT_DELAY_SECONDS) gets its own Celery task for that moment; a person's turn
# or claim window (turn_seconds / claim_seconds, 8 s and more) is left to beat's sweeper, run every
# SWEEP_SECONDS, which acts on every hand whose deadline passed: no broker message and no worker
# task for each of the players' moves, at the cost of acting up to SWEEP_SECONDS late on a missed
# turn. TIMEOUT_TASK_SECONDS=1000 schedules a task for every deadline as before.
TIMEOUT_TASK_SECONDS = float(env_str("TIMEOUT_TASK_SECONDS", "3"))
SWEEP_SECONDS = float(env_str("SWEEP_SECONDS", "1"))

# Presence (games/presence.py): a seat is online while one of its sockets was heard from within
# this many seconds. The room page pings every 25 s (static/js/table.js), so two pings may be lost.
PRESENCE_TTL_SECONDS = env_int("PRESENCE_TTL_SECONDS", 70)

# Test-only: a fixed base makes every wall and the first dealer deterministic (seeded e2e tests).
GAME_SEED_BASE = env_str("GAME_SEED_BASE", "")

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", redis_url_with_db(REDIS_URL, 1))
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", redis_url_with_db(REDIS_URL, 2))
CELERY_RESULT_EXPIRES = env_int("CELERY_RESULT_EXPIRES", 3600)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Riding out a Redis restart (issue 9). celery is pinned to 5.6.3: 5.7.0's worker closes the broken
# connection a second time after collect() has detached its transport, and the Redis channel's
# restore of unacked (ETA) messages then dies on `transport.client is None` -> the worker exits.
# Here: keep retrying the broker for as long as it is away (the default gives up after 100 tries),
# bound reads on a socket whose peer went silent (celery 5.6 collects a dead connection with no
# timeout), and keep visibility_timeout above the longest eta we schedule (turn timeouts <= 120 s)
# so an eta task is never handed out twice. Turn timeouts lost with Redis's memory are caught by
# sweep_overdue (beat, every SWEEP_SECONDS).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 900,
    "socket_timeout": 15,
    "socket_connect_timeout": 5,
    "socket_keepalive": True,
    "health_check_interval": 10,
}
# Tasks are idempotent (turn timeouts check the version, replays are rebuilt): on a lost connection
# drop the running acks_late ones, they come back; also silences celery's deprecation warning.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TIMEZONE = TIME_ZONE
# Celery's Django fixup closes every database connection before and after each task (celery 5.6.3:
# conn.close()): each sweep (every SWEEP_SECONDS), replay build and heartbeat opened a PostgreSQL
# backend of its own, ~10 ms of the server's CPU and ~3 ms of the worker's. Given a reuse count it
# closes them only once per that many tasks; in between, mahjong_site/celery.py treats each task as
# a request (DB_CONN_MAX_AGE and the health check decide, as for a page).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 1000)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    # Placeholder hook for the turn-timeout sweeper (see games.tasks.sweep_overdue).
    "sweep-overdue": {
        "task": "games.tasks.sweep_overdue",
        "schedule": SWEEP_SECONDS,
        # Runs often: don't keep its results, and drop runs that queued up while no worker ran.
        "options": {"ignore_result": True, "expires": 10},
    },
    # Sockets whose process died without a disconnect: forget them and tell their rooms.
    "expire-presence": {
        "task": "games.tasks.expire_presence",
        "schedule": 30.0,
        "options": {"ignore_result": True, "expires": 25},
    },
}

# --- health (/healthz, mahjong_site/health.py) ---------------------------------------------------
# A worker writes a heartbeat to the broker's Redis when it is ready and on beat's every send; no
# heartbeat within HEALTH_WORKER_STALE_SECONDS makes /healthz answer 503 ("worker").
CELERY_IMPORTS = ["mahjong_site.health"]  # the heartbeat task and the worker_ready hook
HEALTH_HEARTBEAT_SECONDS = env_int("HEALTH_HEARTBEAT_SECONDS", 10)
HEALTH_WORKER_STALE_SECONDS = env_int("HEALTH_WORKER_STALE_SECONDS", 60)
HEALTH_TIMEOUT_SECONDS = env_int("HEALTH_TIMEOUT_SECONDS", 5)
CELERY_BEAT_SCHEDULE["worker-heartbeat"] = {
    "task": "mahjong_site.health.worker_heartbeat",
    "schedule": float(HEALTH_HEARTBEAT_SECONDS),
    "options": {"ignore_result": True, "expires": HEALTH_HEARTBEAT_SECONDS},
}

# --- production safety (DEBUG off) ------------------------------------------------------------
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    # Secure by default (`check --deploy` is clean); set 0 when some subdomain is not HTTPS-only.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    X_FRAME_OPTIONS = "DENY"
    # Only behind a proxy that sets (and strips client-sent) X-Forwarded-Proto.
    if env_bool("SECURE_PROXY_SSL_HEADER", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
