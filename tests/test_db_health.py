"""The PostgreSQL health check without a round trip (mahjong_site/postgresql/base.py).

Channels counts every database_sync_to_async call as a request, so Django's CONN_HEALTH_CHECKS
ran a `SELECT 1` before every move and render hop. The check now polls the idle connection's
socket: these tests kill a real server backend, send a real notification, and read what the
server saw (pg_stat_activity) to tell a check that asked the server from one that did not."""

import time

import psycopg
import pytest
from django.db import close_old_connections, connection

from django.contrib.auth.models import User

from games.hot_queries import Prepared, hot_cursor

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the backend of PostgreSQL only"),
    pytest.mark.django_db(transaction=True),
]


def backend_pid():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def outsider():
    """A second, plain connection to the same database: the server's view of ours."""
    s = connection.settings_dict
    return psycopg.connect(dbname=s["NAME"], user=s["USER"], password=s["PASSWORD"] or None,
                           host=s["HOST"] or None, port=s["PORT"] or None, autocommit=True)


def last_statement(pid):
    with outsider() as other:
        return other.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()[0]


def kill_backend(pid):
    """End our connection's server process, as a restart of PostgreSQL would, and wait until it went."""
    with outsider() as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0] is True
        deadline = time.monotonic() + 10
        while other.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()[0]:
            assert time.monotonic() < deadline, "the backend did not go"
            time.sleep(0.02)


def mark(text):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT '{text}'")


def test_checks_are_on():
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True
    assert connection.settings_dict["ENGINE"] == "mahjong_site.postgresql"


def test_a_healthy_idle_connection_is_checked_without_asking_the_server():
    pid = backend_pid()
    mark("health-marker")
    close_old_connections()  # what Channels does around every database_sync_to_async call
    assert connection.health_check_done is False
    kept = connection.connection
    connection.close_if_health_check_failed()
    assert connection.health_check_done is True and connection.connection is kept
    assert last_statement(pid) == "SELECT 'health-marker'"  # Django's own check leaves "SELECT 1"
    assert backend_pid() == pid


def test_a_backend_killed_while_idle_is_found_and_replaced():
    pid = backend_pid()
    kill_backend(pid)
    assert connection.is_usable() is False
    close_old_connections()
    assert User.objects.filter(username="nobody").count() == 0  # reconnected on the way, no error
    assert backend_pid() != pid


def test_something_waiting_on_the_socket_gets_the_real_check():
    pid = backend_pid()
    with connection.cursor() as cursor:
        cursor.execute("LISTEN mahjong_health")
    with outsider() as other:
        other.execute("NOTIFY mahjong_health")
    time.sleep(0.2)  # the notification is on our socket, unread
    mark("before-check")
    with outsider() as other:
        other.execute("NOTIFY mahjong_health")
    time.sleep(0.2)
    assert connection.is_usable() is True
    assert last_statement(pid) == "SELECT 1"  # it asked the server, which answered
    with connection.cursor() as cursor:
        cursor.execute("UNLISTEN mahjong_health")


def test_the_kept_hot_cursor_follows_the_check_to_a_new_connection():
    """games.hot_queries keeps a driver cursor per connection; a dead connection's is never used."""
    users = Prepared(lambda pk: User.objects.filter(pk=pk))
    assert users.all(0) == []
    kept = hot_cursor(connection)
    pid = backend_pid()
    kill_backend(pid)
    close_old_connections()
    assert users.all(0) == []  # no error: checked, reconnected, a new cursor
    assert hot_cursor(connection) is not kept and backend_pid() != pid
