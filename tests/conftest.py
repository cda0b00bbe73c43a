"""Test defaults: the in-memory channel layer unless the run asks for Redis (CHANNEL_LAYER=redis).

pytest-django imports the settings before this file runs, so besides the environment (for
subprocesses) the already-loaded settings are switched too.
"""

import os

from django.conf import settings

from mahjong_site.settings import channel_layers_for

_test_db = settings.DATABASES["default"].get("TEST", {}).get("NAME")
if _test_db and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    os.makedirs(os.path.dirname(str(_test_db)), exist_ok=True)

if "CHANNEL_LAYER" not in os.environ:
    os.environ["CHANNEL_LAYER"] = "memory"
    settings.CHANNEL_LAYER = "memory"
    settings.CHANNEL_LAYERS = channel_layers_for("memory", settings.REDIS_URL)

# Timeouts are scheduled with Celery after each action; in tests they run eagerly (a task whose
# deadline has not passed does nothing), unless a test starts a real worker.
if "CELERY_TASK_ALWAYS_EAGER" not in os.environ:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from mahjong_site.celery import app as _celery_app

    _celery_app.conf.task_always_eager = True


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _empty_cache():
    """The cache (login throttling counts) is per process: start every test with it empty."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Each test gets its own channel layer object: a Redis layer's connections and locks
    belong to the event loop that made them, and every async test runs its own loop."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Tests create hundreds of users: a fast hasher (never in production settings)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_hand_state_cache():
    """The committed-state cache is per process and keyed by hand id; test databases reuse ids,
    so a hand from an earlier test must never be served to this one."""
    from games.services import handstate

    with handstate._cache_lock:
        handstate._cache.clear()
    yield
    with handstate._cache_lock:
        handstate._cache.clear()


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts in the site's default language (Chinese), whatever an earlier test in
    the same worker activated."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


# --- who: the shared people of the tests (a module may define its own of the same name) ---------

@pytest.fixture
def host(db):
    from tests.people import make_person

    return make_person("host")


@pytest.fixture
def guest(db):
    from tests.people import make_person

    return make_person("guest")


@pytest.fixture
def outsider(db):
    from tests.people import make_person

    return make_person("outsider")


@pytest.fixture
def staff(db):
    from tests.people import make_person

    return make_person("staff", is_staff=True)
