"""The Celery app. Broker: REDIS_URL's server, db 1; results: db 2 (see settings).

Worker:  celery -A mahjong_site worker --pool=solo
Beat:    celery -A mahjong_site beat          (schedule: settings.CELERY_BEAT_SCHEDULE)
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")

app = Celery("mahjong_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _tasks_are_requests(sender=None, **kwargs):
    """Each task is a request for the database connection: closed before and after it only when
    Django would close a request's (older than DB_CONN_MAX_AGE, broken, autocommit left off), and
    health-checked at its next use. Celery's own fixup closes every connection around every task
    (celery 5.6.3: conn.close()), which settings.CELERY_DB_REUSE_MAX holds back: a new PostgreSQL
    backend for every sweep, replay and heartbeat cost ~10 ms of the server's CPU each."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return  # run in the caller's process (tests, CELERY_TASK_ALWAYS_EAGER): its connection
    from django.db import close_old_connections

    close_old_connections()
