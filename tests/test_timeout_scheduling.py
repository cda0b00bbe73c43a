"""Turn timeouts at scale (issue 17): a person's turn or claim window gets no Celery task of its
own — beat's sweeper (every SWEEP_SECONDS) acts on it once overdue — while a short deadline (a
computer or 托管 seat's pause, at most TIMEOUT_TASK_SECONDS) still gets a task for that moment."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.engine import game as engine
from games.models import Hand, Seat
from games.services import schedule

from replay_helpers import choose, command_for, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db


class Recorder:
    """Stands in for the registered Celery task: what would have been sent to the broker."""

    def __init__(self):
        self.sent = []

    def apply_async(self, args, eta=None):
        self.sent.append((tuple(args), eta))

    def delay(self, *args):
        self.sent.append((tuple(args), None))


@pytest.fixture
def turn_tasks(monkeypatch):
    recorder = Recorder()
    monkeypatch.setitem(schedule._tasks, "turn_timeout", recorder)
    return recorder.sent


@pytest.fixture
def table_of_four(settings):
    settings.GAME_SEED_BASE = "timeout-scheduling"
    settings.TIMEOUT_TASK_SECONDS = 3
    settings.BOT_DELAY_SECONDS = 1
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    for user in users.values():
        services.set_ready(user, room.pk)
    return room, users, Hand.objects.get(game__room=room, number=1)


def move(hand, users):
    state = services.hand_state(hand)
    p = engine.waiting_player(state)[0]
    out = services.handle(hand.game.room_id, users[p], {**command_for(choose(state, p)), "v": hand.version,
                                                         "h": hand.pk})
    assert out.ok, out
    hand.refresh_from_db()


def test_a_persons_turn_sends_no_task(table_of_four, turn_tasks, django_capture_on_commit_callbacks):
    room, users, hand = table_of_four
    assert room.turn_seconds > 3 and room.claim_seconds > 3
    for _ in range(6):
        with django_capture_on_commit_callbacks(execute=True):
            move(hand, users)
        assert hand.deadline is not None
    assert turn_tasks == []


def test_a_short_deadline_still_gets_its_task(table_of_four, turn_tasks, django_capture_on_commit_callbacks):
    room, users, hand = table_of_four
    state = services.hand_state(hand)
    # the seat after the one to move goes 托管: once it is its turn the pause is BOT_DELAY_SECONDS
    mover = engine.waiting_player(state)[0]
    Seat.objects.filter(room=room).exclude(position=mover).update(auto_play=True)
    with django_capture_on_commit_callbacks(execute=True):
        move(hand, users)
    assert hand.deadline - timezone.now() <= timedelta(seconds=3)
    assert turn_tasks == [((hand.pk, hand.version), hand.deadline)]


def test_every_deadline_gets_a_task_when_configured(table_of_four, turn_tasks, settings,
                                                    django_capture_on_commit_callbacks):
    settings.TIMEOUT_TASK_SECONDS = 1000
    _room, users, hand = table_of_four
    with django_capture_on_commit_callbacks(execute=True):
        move(hand, users)
    assert turn_tasks == [((hand.pk, hand.version), hand.deadline)]


def test_the_sweeper_times_out_a_persons_turn(table_of_four, turn_tasks, django_capture_on_commit_callbacks):
    room, users, hand = table_of_four
    with django_capture_on_commit_callbacks(execute=True):
        move(hand, users)
    waiting = engine.waiting_player(services.hand_state(hand))
    version = hand.version
    assert services.sweep_overdue(now=hand.deadline - timedelta(seconds=1)) == 0  # not yet
    assert services.sweep_overdue(now=hand.deadline + timedelta(seconds=1)) == 1
    hand.refresh_from_db()
    assert hand.version > version
    if waiting and services.hand_state(hand).phase != engine.CLAIM:
        assert Seat.objects.get(room=room, position=waiting[0]).timeouts == 1
    assert services.sweep_overdue(now=hand.deadline - timedelta(seconds=1)) == 0  # nothing twice
