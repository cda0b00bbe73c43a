"""mahjong_site/serve.py: daphne's loop is uvloop's unless EVENT_LOOP=asyncio (issue 17).

daphne makes its loop when daphne.server is imported, so the choice must be made before that; each
case runs in a fresh interpreter, as `python -m mahjong_site.serve` does.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
PROBE = ("from mahjong_site.serve import use_uvloop; chose = use_uvloop(); import daphne.server as s; "
         "from twisted.internet import reactor; "
         "print(chose, type(s.twisted_loop).__module__, type(reactor._asyncioEventloop).__module__)")


def probe(env):
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=BASE_DIR, capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize("value", [None, "uvloop", " UVLOOP "])
def test_daphne_runs_on_uvloop_by_default(value):
    env = dict(os.environ)
    env.pop("EVENT_LOOP", None)
    if value is not None:
        env["EVENT_LOOP"] = value
    assert probe(env) == ["True", "uvloop", "uvloop"]


@pytest.mark.parametrize("value", ["asyncio", "AsyncIO"])
def test_event_loop_asyncio_keeps_pythons_own_loop(value):
    chose, loop_module, reactor_module = probe({**os.environ, "EVENT_LOOP": value})
    assert chose == "False"
    assert loop_module == reactor_module == "asyncio.unix_events"


def test_serve_passes_its_arguments_to_daphne():
    done = subprocess.run([sys.executable, "-m", "mahjong_site.serve", "--help"], cwd=BASE_DIR, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--ping-interval" in done.stdout and "application" in done.stdout
