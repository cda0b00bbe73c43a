"""No stuck rooms: after a hand the next one is dealt when every PRESENT player is ready (seats
on 托管 or offline are ready by themselves) or when the result screen's countdown runs out; the
last hand of a game has no countdown. A dissolve request counts absent seats as agreeing when its
window ends."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import presence, services
from games.models import Game, Hand, Room, Seat

from tests.replay_helpers import play_hand, users_by_position

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(settings):
    """A 4-hand room of four whose first hand was played to the end."""
    from tests.room_helpers import make_room

    settings.GAME_SEED_BASE = "next-hand"
    room, users = make_room(players=4, length=4)
    for user in users.values():
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    play_hand(hand, users, rng=random.Random(5))
    return room, users


def online(room, users, positions):
    for p in positions:
        assert presence.socket_opened(users[p], room.pk, f"test-socket-{room.pk}-{p}")


def hands(room):
    return list(Hand.objects.filter(game__room=room).order_by("number").values_list("number", "status"))


def test_the_result_screen_counts_down_to_the_next_hand(table, settings):
    room, users = table
    hand = Hand.objects.get(game__room=room, number=1)
    assert hand.status == Hand.ENDED
    assert hand.deadline is not None
    expected = hand.ended_at + timedelta(seconds=settings.NEXT_HAND_SECONDS)
    assert abs((hand.deadline - expected).total_seconds()) < 1
    # too early: nothing happens
    assert services.timeout(hand.pk, hand.version, now=hand.deadline - timedelta(seconds=1)).error == "not yet"
    assert hands(room) == [(1, Hand.ENDED)]
    # nobody pressed 准备: the countdown deals the next hand anyway
    assert services.timeout(hand.pk, hand.version, now=hand.deadline + timedelta(seconds=1)).ok
    assert hands(room) == [(1, Hand.ENDED), (2, Hand.PLAYING)]
    hand.refresh_from_db()
    assert hand.deadline is None
    # a second (duplicated) task does nothing
    assert not services.timeout(hand.pk, hand.version, now=timezone.now() + timedelta(minutes=1)).ok
    assert hands(room) == [(1, Hand.ENDED), (2, Hand.PLAYING)]


def test_the_sweeper_deals_the_next_hand_when_the_task_was_lost(table):
    room, users = table
    hand = Hand.objects.get(game__room=room, number=1)
    assert services.sweep_overdue(now=hand.deadline + timedelta(seconds=5)) == 1
    assert hands(room)[-1] == (2, Hand.PLAYING)


def test_an_offline_seat_is_ready_by_itself(table):
    room, users = table
    online(room, users, [0, 1, 2])  # seat 3 closed the browser
    services.set_ready(users[0], room.pk)
    services.set_ready(users[1], room.pk)
    assert hands(room) == [(1, Hand.ENDED)]
    services.set_ready(users[2], room.pk)
    assert hands(room) == [(1, Hand.ENDED), (2, Hand.PLAYING)]


def test_a_seat_on_tuoguan_is_ready_by_itself(table):
    room, users = table
    online(room, users, [0, 1, 2, 3])
    Seat.objects.filter(room=room, position=2).update(auto_play=True)
    for p in (0, 1, 3):
        services.set_ready(users[p], room.pk)
    assert hands(room)[-1] == (2, Hand.PLAYING)


def test_going_on_tuoguan_on_the_result_screen_lets_the_others_start(table):
    room, users = table
    online(room, users, [0, 1, 2, 3])
    for p in (0, 1, 2):
        services.set_ready(users[p], room.pk)
    assert hands(room) == [(1, Hand.ENDED)]
    services.set_auto_play(users[3], room.pk, True)
    assert hands(room)[-1] == (2, Hand.PLAYING)


def test_leaving_on_the_result_screen_lets_the_others_start(table, django_capture_on_commit_callbacks):
    room, users = table
    online(room, users, [0, 1, 2, 3])
    for p in (0, 1, 2):
        services.set_ready(users[p], room.pk)
    assert hands(room) == [(1, Hand.ENDED)]
    with django_capture_on_commit_callbacks(execute=True):
        presence.socket_closed(f"test-socket-{room.pk}-3")  # the last socket of seat 3 closed
    assert hands(room)[-1] == (2, Hand.PLAYING)


def test_a_present_player_who_is_not_ready_is_waited_for_until_the_countdown(table):
    room, users = table
    online(room, users, [0, 1, 2, 3])
    for p in (0, 1, 2):
        services.set_ready(users[p], room.pk)
    assert not services.check_next_hand(room.pk)
    assert hands(room) == [(1, Hand.ENDED)]


def test_with_nobody_present_only_the_countdown_deals(table):
    room, users = table
    services.set_ready(users[0], room.pk)  # pressed, then closed the page: nobody is online
    assert hands(room) == [(1, Hand.ENDED)]


def test_the_first_hand_still_needs_everyone(settings):
    from tests.room_helpers import make_room

    room, users = make_room(players=4, length=4)
    online(room, users, [0, 1, 2])
    for p in (0, 1, 2):
        services.set_ready(users[p], room.pk)
    assert hands(room) == []
    services.set_ready(users[3], room.pk)
    assert hands(room) == [(1, Hand.PLAYING)]


def test_the_last_hand_has_no_countdown(table):
    room, users = table
    rng = random.Random(9)
    for number in (2, 3, 4):
        hand = Hand.objects.get(game__room=room, number=number - 1)
        services.timeout(hand.pk, hand.version, now=hand.deadline + timedelta(seconds=1))
        play_hand(Hand.objects.get(game__room=room, number=number), users, rng=rng)
    room.refresh_from_db()
    assert room.status == Room.FINISHED
    last = Hand.objects.get(game__room=room, number=4)
    assert last.deadline is None
    assert services.sweep_overdue(now=timezone.now() + timedelta(minutes=5)) == 0
    assert len(hands(room)) == 4


# --- 解散 with absent players ---------------------------------------------------------------

@pytest.fixture
def playing(settings):
    from tests.room_helpers import make_room

    settings.GAME_SEED_BASE = "dissolve"
    room, users = make_room(players=4, length=4)
    for user in users.values():
        services.set_ready(user, room.pk)
    return room, users


def test_everyone_agreeing_dissolves_at_once(playing):
    room, users = playing
    for p in range(4):
        services.vote_dissolve(users[p], room.pk, True)
    room.refresh_from_db()
    assert room.status == Room.DISSOLVED
    assert Hand.objects.get(game__room=room).status == Hand.VOID


def test_an_absent_seat_counts_as_agreeing_when_the_window_ends(playing):
    room, users = playing
    online(room, users, [0, 1, 2])  # seat 3 left
    now = timezone.now()
    for p in (0, 1, 2):
        services.vote_dissolve(users[p], room.pk, True, now=now)
    room.refresh_from_db()
    assert room.status == Room.PLAYING  # not before the window ends: seat 3 may come back
    assert not services.end_dissolve_window(room.pk, now=now + timedelta(seconds=30))
    assert services.end_dissolve_window(room.pk, now=now + services.DISSOLVE_WINDOW + timedelta(seconds=1))
    room.refresh_from_db()
    assert room.status == Room.DISSOLVED
    assert Hand.objects.get(game__room=room).status == Hand.VOID
    assert Game.objects.get(room=room).finished_at is not None


def test_a_tuoguan_seat_counts_as_agreeing_too(playing):
    room, users = playing
    online(room, users, [0, 1, 2, 3])
    Seat.objects.filter(room=room, position=1).update(auto_play=True)
    now = timezone.now()
    for p in (0, 2, 3):
        services.vote_dissolve(users[p], room.pk, True, now=now)
    services.sweep_overdue(now=now + services.DISSOLVE_WINDOW + timedelta(seconds=5))  # also times out the turn
    room.refresh_from_db()
    assert room.status == Room.DISSOLVED


def test_a_present_player_who_did_not_answer_lets_the_request_lapse(playing):
    room, users = playing
    online(room, users, [0, 1, 2, 3])
    now = timezone.now()
    for p in (0, 1, 2):
        services.vote_dissolve(users[p], room.pk, True, now=now)
    assert not services.end_dissolve_window(room.pk, now=now + services.DISSOLVE_WINDOW + timedelta(seconds=1))
    room.refresh_from_db()
    assert room.status == Room.PLAYING
    assert room.dissolve_started_at is None and room.dissolve_votes == []


def test_a_refusal_ends_the_request(playing):
    room, users = playing
    online(room, users, [0, 1, 2])
    now = timezone.now()
    services.vote_dissolve(users[0], room.pk, True, now=now)
    services.vote_dissolve(users[3], room.pk, False, now=now)  # the absent player refused first
    assert not services.end_dissolve_window(room.pk, now=now + services.DISSOLVE_WINDOW + timedelta(seconds=1))
    room.refresh_from_db()
    assert room.status == Room.PLAYING


def test_the_rule_is_on_the_page(playing):
    from games import table

    room, users = playing
    services.vote_dissolve(users[0], room.pk, True)
    out = table.seat_fragments(room.pk, users[1], "zh", "")
    html = "".join(out[2].values())
    assert "离线或托管" in html and "算作同意" in html
