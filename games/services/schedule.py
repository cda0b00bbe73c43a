"""Deferred work (turn timeouts, replay builds, the end of a dissolve request), without importing
games.tasks: the tasks module registers its Celery tasks here when the app is ready
(games/apps.py), so services never import tasks and tasks import services (no cycle).
A lost task is caught by the beat sweeper (timeouts.sweep_overdue) or rebuilt on demand (replays)."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

_tasks: dict = {}  # name -> Celery task, set by games.tasks.register()


def register(**tasks):
    _tasks.update(tasks)


def _later(name, args, eta=None):
    task = _tasks.get(name)
    if task is None:
        log.warning("no task %s registered; the sweeper will catch up", name)
        return
    try:
        task.apply_async(args, eta=eta) if eta is not None else task.delay(*args)
    except Exception:  # the broker is down: the sweeper / on-demand build catches up
        log.warning("could not schedule %s%r", name, args, exc_info=True)


def timeout(hand_id, version, eta):
    _later("turn_timeout", (hand_id, version), eta)


def replay(hand_id):
    _later("build_replay", (hand_id,))


def dissolve_end(room_id, eta):
    _later("dissolve_window_end", (room_id,), eta)
