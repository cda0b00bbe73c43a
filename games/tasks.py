from celery import shared_task


@shared_task
def sweep_overdue():
    """Hook for the turn-timeout sweeper (a later issue).

    Celery beat calls it every 2 seconds (settings.CELERY_BEAT_SCHEDULE). It will find seats
    whose turn deadline passed and play their automatic action through games.services, guarded
    by the hand version the timeout was scheduled for. For now it does nothing and returns the
    number of seats it acted on: 0.
    """
    return 0
