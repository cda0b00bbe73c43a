"""deploy/: the systemd units load (systemd-analyze verify, with the paths of this checkout in
place of /srv/mahjong), the Procfile names the three kinds of process the units run, and the
example env file sets what running behind the proxy needs. (The nginx config and the Procfile
are run for real by tests/test_nginx_proxy.py.)"""

import grp
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
DEPLOY = BASE_DIR / "deploy"
UNITS = ["mahjong-daphne@.service", "mahjong-worker.service", "mahjong-beat.service", "mahjong.target"]


def env_file_keys(path):
    return {line.split("=", 1)[0] for line in path.read_text().splitlines() if re.match(r"^[A-Z_]+=", line)}


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_systemd_units_load(tmp_path):
    venv_bin = Path(sys.executable).parent
    if not (venv_bin / "daphne").exists() or not (venv_bin / "celery").exists():
        pytest.skip("daphne / celery are not in this interpreter's bin folder")
    user, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    names = []
    for unit in UNITS:
        text = (DEPLOY / "systemd" / unit).read_text()
        text = (text.replace("/srv/mahjong/.venv/bin/", f"{venv_bin}/").replace("/srv/mahjong", str(BASE_DIR))
                .replace("/etc/mahjong/mahjong.env", str(DEPLOY / "mahjong.env.example"))
                .replace("User=mahjong", f"User={user}").replace("Group=mahjong", f"Group={group}"))
        name = unit.replace("@.service", "@8001.service")  # an instance of the template
        (tmp_path / name).write_text(text)
        names.append(f"./{name}")
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", *names], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    mine = [line for line in (done.stdout + done.stderr).splitlines() if "mahjong" in line]
    assert not mine, "\n".join(mine)


def test_the_units_and_the_procfile_run_the_same_processes():
    units = {unit: (DEPLOY / "systemd" / unit).read_text() for unit in UNITS}
    assert "-e tcp:port=%i:interface=${DAPHNE_BIND}:backlog=1024" in units["mahjong-daphne@.service"]
    assert "mahjong_site.asgi:application" in units["mahjong-daphne@.service"]
    assert " worker " in units["mahjong-worker.service"] and " beat " in units["mahjong-beat.service"]
    for unit, text in units.items():
        if unit.endswith(".service"):
            assert "EnvironmentFile=/etc/mahjong/mahjong.env" in text
            assert "Restart=always" in text and "WantedBy=mahjong.target" in text

    procfile = {}
    for line in (DEPLOY / "Procfile").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)  # honcho's and foreman's line format
        if m:
            procfile[m.group(1)] = m.group(2)
    assert set(procfile) == {"web", "worker", "beat"}
    assert all(cmd.startswith("exec ") for cmd in procfile.values())  # signals reach the process itself
    assert "tcp:port=$PORT:interface=${DAPHNE_BIND:-127.0.0.1}:backlog=1024" in procfile["web"] and "mahjong_site.asgi:application" in procfile["web"]


def test_the_example_env_file_is_ready_for_the_proxy():
    keys = env_file_keys(DEPLOY / "mahjong.env.example")
    assert {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "DATABASE_URL", "REDIS_URL", "CACHE_URL",
            "TRUSTED_PROXY_HOPS", "SECURE_PROXY_SSL_HEADER", "SERVE_STATIC", "STATIC_ROOT"} <= keys
    text = (DEPLOY / "mahjong.env.example").read_text()
    assert "\nTRUSTED_PROXY_HOPS=1\n" in text and "\nSERVE_STATIC=0\n" in text
    conf = (DEPLOY / "nginx" / "mahjong.conf").read_text()
    assert "proxy_set_header X-Forwarded-For   $proxy_add_x_forwarded_for;" in conf  # one hop appends
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in conf
