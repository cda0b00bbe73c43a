"""Celery tasks: turn timeouts (托管 auto-play) and the sweeper that catches lost ones.

Both call games.services, the one path that changes a game; a timeout acts only when the hand
is still at the version it was scheduled for, so a late or duplicated task does nothing.
"""

from celery import shared_task


@shared_task(ignore_result=True)
def turn_timeout(hand_id, version):
    from games import services

    return services.timeout(hand_id, version).ok


@shared_task(ignore_result=False)
def sweep_overdue():
    """Run by beat every 2 s: act on every hand whose deadline passed without its task."""
    from games import services

    return services.sweep_overdue()
