"""SQLite, the default database, under the concurrency of a few tables on one machine.

Separate processes (like daphne, the Celery worker and a second daphne) work on one SQLite file
at the same moment: two tables' guests join at once, then all eight players press 准备 at once.
With WAL and IMMEDIATE transactions (settings) none of them sees "database is locked"."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SETUP = """
import django, json; django.setup()
from django.contrib.auth import get_user_model
from games import services
User = get_user_model()
out = []
for t in range(2):
    host = User.objects.create_user(f"host{t}", password="pw-host-long-1")
    room = services.create_room(host, players=4, length=4)
    guests = [User.objects.create_user(f"t{t}g{i}", password="pw-guest-long-1").pk for i in range(3)]
    out.append({"room": room.pk, "token": room.token, "host": host.pk, "guests": guests})
print(json.dumps(out))
"""

WORKER = """
import sys, time, django; django.setup()
from django.contrib.auth import get_user_model
from games import services
action, user_id, arg, start = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
user = get_user_model().objects.get(pk=user_id)
time.sleep(max(0.0, start - time.time()))
try:
    if action == "join":
        services.join_room(user, arg)
    else:
        services.set_ready(user, int(arg))
    print("ok")
except Exception as e:
    print("error", type(e).__name__, e)
"""


@pytest.fixture
def sqlite_env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CHANNEL_LAYER")}
    env.update(DJANGO_SETTINGS_MODULE="mahjong_site.settings", VAR_DIR=str(tmp_path),
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", CHANNEL_LAYER="memory",
               CELERY_TASK_ALWAYS_EAGER="1", LOG_LEVEL="ERROR")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, env=env,
                   check=True, timeout=180)
    return env


def _all_at_once(env, jobs):
    """Start one process per job; each waits for the same moment, then acts once."""
    start = time.time() + 6  # every process has imported Django by then
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, action, str(user), str(arg), str(start)],
                              cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for action, user, arg in jobs]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        outs.append((out.strip(), err[-2000:]))
    return outs


def test_two_tables_join_and_ready_at_once(sqlite_env):
    env = sqlite_env
    tables = json.loads(subprocess.run([sys.executable, "-c", SETUP], cwd=BASE_DIR, env=env, check=True,
                                       capture_output=True, text=True, timeout=120).stdout)
    joins = [("join", g, t["token"]) for t in tables for g in t["guests"]]
    outs = _all_at_once(env, joins)
    assert [o for o, _ in outs] == ["ok"] * len(joins), outs
    readies = [("ready", u, t["room"]) for t in tables for u in [t["host"], *t["guests"]]]
    outs = _all_at_once(env, readies)
    assert [o for o, _ in outs] == ["ok"] * len(readies), outs
    check = subprocess.run([sys.executable, "-c", (
        "import django; django.setup()\n"
        "from games.models import Hand, Room\n"
        "print(Hand.objects.filter(status='playing').count(), Room.objects.filter(status='playing').count())\n"
        "from django.db import connection\n"
        "c = connection.cursor(); c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])")],
        cwd=BASE_DIR, env=env, check=True, capture_output=True, text=True, timeout=120).stdout.split()
    assert check == ["2", "2", "wal"]
