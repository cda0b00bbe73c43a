"""Celery tasks: turn timeouts (托管 auto-play) and the sweeper that catches lost ones.

All call games.services, the one path that changes a game (registered with it by `register`); a timeout acts only when the hand
is still at the version it was scheduled for, so a late or duplicated task does nothing.
"""

from celery import shared_task


@shared_task(ignore_result=True)
def turn_timeout(hand_id, version):
    from games import services

    return services.timeout(hand_id, version).ok


@shared_task(ignore_result=True)
def dissolve_window_end(room_id):
    """A dissolve request's 60 s are over: absent seats count as agreeing (see services)."""
    from games import services

    return services.end_dissolve_window(room_id)


@shared_task(ignore_result=False)
def sweep_overdue():
    """Run by beat every 2 s: act on every hand whose deadline passed without its task."""
    from games import services

    return services.sweep_overdue()


@shared_task(bind=True, ignore_result=True, acks_late=True, max_retries=5, default_retry_delay=2)
def build_replay(self, hand_id):
    """Re-run a finished hand and store its verified replay (idempotent: safe to retry)."""
    from games import replays

    try:
        replays.build(hand_id)
    except Exception as exc:  # a dead database connection, a worker restart: try again
        raise self.retry(exc=exc)


@shared_task(ignore_result=True)
def expire_presence():
    """Run by beat every 30 s: forget sockets not heard from within the presence TTL (their
    process died) and tell their rooms that those seats are offline (games/presence.py)."""
    from games import presence

    from games import spectators

    return presence.expire() + spectators.expire()  # 观战: spectator sockets the same way


def register():
    """Hand the service layer its deferred work (games/services/schedule.py): services never import
    this module, this module imports services (no import cycle)."""
    from games.services import schedule

    schedule.register(turn_timeout=turn_timeout, build_replay=build_replay, dissolve_window_end=dissolve_window_end)
