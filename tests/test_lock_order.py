"""Lock order (PostgreSQL): every change of a room locks the room row first, then the hand.

The deadlock seen before: a stale turn-timeout task locked hand -> game -> room (select_for_update
with select_related locks every joined row) while the next hand's start (set_ready ->
_start_next_hand) held the room and wanted the game and the hand. Here threads fire stale and
current timeouts, the countdown's timeout and 准备 presses at the same rooms at once; no thread
may fail or hang, and every room ends with exactly one playing hand whose log replays."""

import random
import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.utils import timezone

from games import services
from games.models import Hand, Room

from tests.replay_helpers import play_hand

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row-lock order only matters on PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]

ROOMS = 2
ROUNDS = 3


def _room(k):
    from tests.room_helpers import make_user

    people = [make_user(f"r{k}p{i}") for i in range(4)]
    room = services.create_room(people[0], players=4, length=8, turn_seconds=5, claim_seconds=3)
    for user in people[1:]:
        services.join_room(user, room.token)
    users = dict(enumerate(people))
    for user in people:
        services.set_ready(user, room.pk)
    return room, users


def test_timeouts_and_ready_presses_never_deadlock(settings):
    settings.GAME_SEED_BASE = "locks"
    tables = [_room(k) for k in range(ROOMS)]
    rng = random.Random(1)
    errors = []
    for _ in range(ROUNDS):
        jobs = []
        for room, users in tables:
            hand = Hand.objects.filter(game__room=room).order_by("-number").first()
            old_version = hand.version
            hand = play_hand(hand, users, rng=rng)  # to its end: the countdown is set
            later = hand.deadline + timedelta(seconds=1)
            jobs += [lambda h=hand, v=old_version: services.timeout(h.pk, v, now=timezone.now()),  # stale
                     lambda h=hand, n=later: services.timeout(h.pk, h.version, now=n)]  # the countdown
            jobs += [lambda u=u, r=room: services.set_ready(u, r.pk) for u in users.values()]
        rng.shuffle(jobs)
        barrier = threading.Barrier(len(jobs))

        def run(job):
            try:
                barrier.wait(10)
                job()
            except services.ServiceError:
                pass  # e.g. 准备 pressed after the next hand was dealt: refused, nothing changes
            except Exception as e:  # a deadlock would be a DatabaseError here
                errors.append(repr(e))
            finally:
                close_old_connections()
                connection.close()

        threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads), "a thread hung"
        assert errors == []
        for room, _users in tables:
            playing = Hand.objects.filter(game__room=room, status=Hand.PLAYING)
            assert playing.count() == 1
            h = playing.get()
            assert services.handstate.replay_log(h).step == h.version
    for room, _users in tables:
        room.refresh_from_db()
        assert room.status == Room.PLAYING
