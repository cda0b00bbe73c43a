"""Test defaults: the in-memory channel layer unless the run asks for Redis (CHANNEL_LAYER=redis).

pytest-django imports the settings before this file runs, so besides the environment (for
subprocesses) the already-loaded settings are switched too.
"""

import os
import re

from django.conf import settings

from mahjong_site.settings import channel_layers_for

_test_db = settings.DATABASES["default"].get("TEST", {}).get("NAME")
if _test_db and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    os.makedirs(os.path.dirname(str(_test_db)), exist_ok=True)

if "CHANNEL_LAYER" not in os.environ:
    os.environ["CHANNEL_LAYER"] = "memory"
    settings.CHANNEL_LAYER = "memory"
    settings.CHANNEL_LAYERS = channel_layers_for("memory", settings.REDIS_URL)
elif os.environ.get("PYTEST_XDIST_WORKER") and "CHANNEL_PREFIX" not in os.environ:
    # Redis: the workers share the server, each with a database of its own whose rooms have the
    # same ids as the others'; without a prefix each, a socket of one worker's room 5 heard
    # another worker's room 5 (an unexpected update, a version it would then wait past)
    os.environ["CHANNEL_PREFIX"] = f"asgi-{os.environ['PYTEST_XDIST_WORKER']}"
    settings.CHANNEL_LAYERS = channel_layers_for(os.environ["CHANNEL_LAYER"], settings.REDIS_URL)

# Timeouts are scheduled with Celery after each action; in tests they run eagerly (a task whose
# deadline has not passed does nothing), unless a test starts a real worker.
if "CELERY_TASK_ALWAYS_EAGER" not in os.environ:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from mahjong_site.celery import app as _celery_app

    _celery_app.conf.task_always_eager = True


import pytest  # noqa: E402


# Pure-engine modules (no database, no Redis, no Django request): the same work whatever the
# services are, so the second pass need not repeat them.
ENGINE_ONLY = re.compile(r"test_(\w+_)?(simulation|properties|engine)\.py$")


def pytest_collection_modifyitems(config, items):
    """CI's second pass (DATABASE_URL on PostgreSQL) leaves out what it would only repeat: tests
    that start their own stack on their own SQLite file (`own_sqlite`) and the pure-engine modules
    (ENGINE_ONLY: simulations, properties, engine tables), which touch neither database nor Redis."""
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return
    skip = pytest.mark.skip(reason="own stack on its own SQLite file: run in the embedded pass")
    engine_only = pytest.mark.skip(reason="pure engine (no database, no Redis): run in the embedded pass")
    for item in items:
        if item.get_closest_marker("own_sqlite"):
            item.add_marker(skip)
        elif ENGINE_ONLY.search(str(item.fspath)):
            item.add_marker(engine_only)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's, and before it drops a PostgreSQL test database: end the sessions that the
    socket tests' pool threads still hold (consumers.in_pool keeps a connection per thread), which
    DROP DATABASE would refuse ("is being accessed by other users"), leaving the database behind."""
    yield
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")


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


@pytest.fixture(autouse=True)
def _commit_hooks_as_in_production(request):
    """A `django_db` test runs inside transactions the test opens (rolled back at the end), so
    on_commit callbacks would never run: no committed-state cache (every move replays the whole
    hand: quadratic and unlike production), no notifications. Here a callback runs when the site's
    own outermost transaction commits (only the test's blocks are left open), or at once when it
    is registered outside one, exactly as production does. Tests with transaction=True commit
    for real and need nothing."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or marker.kwargs.get("transaction") or (marker.args and marker.args[0]):
        yield
        return
    from django.db import transaction
    from django.db.backends.base.base import BaseDatabaseWrapper

    def only_test_blocks(conn):
        return all(getattr(block, "_from_testcase", False) for block in conn.atomic_blocks)

    def run_pending(conn):
        while conn.run_on_commit:  # a callback may register more
            _sids, func, robust = conn.run_on_commit.pop(0)
            if robust:
                try:
                    func()
                except Exception:
                    pass
            else:
                func()

    original_on_commit = BaseDatabaseWrapper.on_commit
    original_exit = transaction.Atomic.__exit__

    def on_commit(self, func, robust=False):
        if self.in_atomic_block and only_test_blocks(self):
            func()  # outside the site's transactions: as autocommit does
            return
        original_on_commit(self, func, robust)

    def atomic_exit(self, exc_type, exc_value, traceback):
        result = original_exit(self, exc_type, exc_value, traceback)
        conn = transaction.get_connection(self.using)
        if exc_type is None and conn.in_atomic_block and only_test_blocks(conn):
            run_pending(conn)
        return result

    BaseDatabaseWrapper.on_commit = on_commit
    transaction.Atomic.__exit__ = atomic_exit
    try:
        yield
    finally:
        BaseDatabaseWrapper.on_commit = original_on_commit
        transaction.Atomic.__exit__ = original_exit


@pytest.fixture
def register():
    """Register toy variants (games.engine.variants) for one test; they are gone afterwards."""
    from games.engine import variants

    added = []

    def add(v):
        variants.register(v)
        added.append(v.name)
        return v

    yield add
    for name in added:
        variants.unregister(name)
