"""The Celery worker keeps its database connection from task to task (issue 17).

Celery's Django fixup, as a worker installs it, closes every connection before and after each task;
each beat sweep (every second), replay build and heartbeat then opened a PostgreSQL backend of its
own. With settings.CELERY_DB_REUSE_MAX and mahjong_site/celery.py a task is a request: its
connection is kept while DB_CONN_MAX_AGE allows and it works, and closed when it is too old or
broken. The fixup and the task signals here are Celery's own, sent as the worker sends them.
"""

import time

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection
from django.db.backends.signals import connection_created

from games.models import Room
from games.tasks import sweep_overdue
from mahjong_site.celery import app

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker_fixup():
    """Celery's fixup installed as in a worker process; removed afterwards (its signals are global)."""
    fixup = DjangoWorkerFixup(app).install()
    yield fixup
    signals.task_prerun.disconnect(fixup.on_task_prerun)
    signals.task_postrun.disconnect(fixup.on_task_postrun)
    signals.worker_process_init.disconnect(fixup.on_worker_process_init)
    signals.beat_embedded_init.disconnect(fixup.close_database)


@pytest.fixture
def opened():
    """The connections opened meanwhile (Django's connection_created signal)."""
    seen = []

    def count(sender, connection, **kwargs):
        seen.append(connection)

    connection_created.connect(count)
    yield seen
    connection_created.disconnect(count)


def run_task(task, body):
    """What the worker does around a task: prerun, the task's work, postrun."""
    signals.task_prerun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
    try:
        return body()
    finally:
        signals.task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={}, retval=None, state="SUCCESS")


def test_the_worker_keeps_one_connection_over_many_tasks(worker_fixup, opened):
    assert app.conf.get("CELERY_DB_REUSE_MAX") >= 100
    for _ in range(12):
        run_task(sweep_overdue, lambda: Room.objects.count())
    assert len(opened) <= 1  # the first task opens it (if the test had none yet); the rest reuse it
    assert connection.connection is not None


def test_a_connection_past_its_age_is_replaced(worker_fixup, opened):
    run_task(sweep_overdue, lambda: Room.objects.count())
    old = connection.connection
    assert old is not None
    connection.close_at = time.monotonic() - 1  # DB_CONN_MAX_AGE has passed
    before = len(opened)
    run_task(sweep_overdue, lambda: Room.objects.count())
    assert len(opened) == before + 1  # closed before the task, as before a request; a new one opened
    assert connection.connection is not old


def test_a_connection_left_outside_autocommit_is_closed(worker_fixup):
    def leave_a_transaction_open():
        connection.set_autocommit(False)
        Room.objects.count()

    run_task(sweep_overdue, leave_a_transaction_open)
    assert connection.connection is None  # Django's rule: never reuse what a task left half done


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a server backend to kill")
def test_a_kept_connection_whose_backend_died_is_replaced_before_the_next_task(worker_fixup, opened):
    from tests.test_db_health import backend_pid, kill_backend

    run_task(sweep_overdue, lambda: Room.objects.count())
    pid = backend_pid()
    kill_backend(pid)  # as a restart of PostgreSQL between two tasks would
    before = len(opened)
    assert run_task(sweep_overdue, lambda: Room.objects.count()) >= 0  # the task itself works
    assert len(opened) == before + 1 and backend_pid() != pid
