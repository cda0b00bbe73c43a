"""The Celery app. Broker: REDIS_URL's server, db 1; results: db 2 (see settings).

Worker:  celery -A mahjong_site worker --pool=solo
Beat:    celery -A mahjong_site beat          (schedule: settings.CELERY_BEAT_SCHEDULE)
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")

app = Celery("mahjong_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
