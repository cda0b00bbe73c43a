"""games.services: rooms fill, a seeded hand is played to the end through the one service path."""

import random
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import services
from games.engine import game as engine
from games.models import Hand, HandEvent, Room, Seat
from tests.replay_helpers import play_hand

pytestmark = pytest.mark.django_db


def _user(name):
    return get_user_model().objects.create_user(name, password="pw-" + name + "-long")


@pytest.fixture
def host():
    return _user("host")


@pytest.fixture
def guests():
    return [_user(f"guest{i}") for i in range(3)]


@pytest.fixture
def outsider():
    return _user("outsider")


@pytest.fixture
def full_room(host, guests, settings):
    settings.GAME_SEED_BASE = "tests"
    room = services.create_room(host, players=4, length=4)
    for g in guests:
        services.join_room(g, room.token)
    return room


def _users_by_position(room):
    return {s.position: s.user for s in Seat.objects.filter(room=room)}


def _start(room):
    for user in _users_by_position(room).values():
        services.set_ready(user, room.pk)
    return Hand.objects.get(game__room=room, number=1)


def _play_to_the_end(hand, users, rng):
    """Random legal moves (wins always taken) through services.play until the hand ends."""
    play_hand(hand, users, rng=rng, limit=1000)


def test_seats_fill_in_order_and_a_full_room_refuses(full_room, outsider):
    assert sorted(Seat.objects.filter(room=full_room).values_list("position", flat=True)) == [0, 1, 2, 3]
    with pytest.raises(services.ServiceError):
        services.join_room(outsider, full_room.token)


def test_forged_or_revoked_token_is_refused(host, outsider):
    room = services.create_room(host, players=2, length=4)
    with pytest.raises(services.ServiceError):
        services.join_room(outsider, "forged-" + room.token)
    services.revoke_invite(host, room.pk)
    with pytest.raises(services.ServiceError):
        services.join_room(outsider, room.token)
    room = services.new_invite(host, room.pk)
    assert services.join_room(outsider, room.token).position == 1


def test_hand_starts_when_all_are_ready(full_room):
    users = _users_by_position(full_room)
    for p in (0, 1, 2):
        services.set_ready(users[p], full_room.pk)
    assert not Hand.objects.filter(game__room=full_room).exists()
    services.set_ready(users[3], full_room.pk)
    hand = Hand.objects.get(game__room=full_room)
    assert hand.status == Hand.PLAYING and hand.version == 0 and hand.deadline is not None
    full_room.refresh_from_db()
    assert full_room.status == Room.PLAYING


def test_a_whole_hand_through_services(full_room):
    hand = _start(full_room)
    _play_to_the_end(hand, _users_by_position(full_room), random.Random(3))
    assert hand.status == Hand.ENDED
    assert HandEvent.objects.filter(hand=hand).count() == hand.version
    assert hand.result is not None and abs(sum(hand.result["net"])) < 1e-9
    # the stored log replays to the same end
    services.handstate._cache.clear()
    assert services.hand_state(hand).phase == engine.ENDED


def test_stale_version_out_of_turn_and_malformed_change_nothing(full_room, outsider):
    hand = _start(full_room)
    users = _users_by_position(full_room)
    state = services.hand_state(hand)
    dealer = state.turn
    tile = engine.face_name(state.hands[dealer][0])
    other = (dealer + 1) % 4
    bad = [
        (users[dealer], {"action": "discard", "tile": tile}, hand.version + 1),  # stale
        (users[dealer], {"action": "discard", "tile": tile}, "0"),  # not a number
        (users[other], {"action": "discard", "tile": engine.face_name(state.hands[other][0])}, 0),
        (users[dealer], {"action": "fly"}, 0),
        (users[dealer], {"action": "discard", "tile": "0z"}, 0),
        (users[dealer], ["discard"], 0),
        (outsider, {"action": "discard", "tile": tile}, 0),
    ]
    for user, cmd, version in bad:
        out = services.play(hand.pk, user, cmd, version)
        assert not out.ok and out.error
    hand.refresh_from_db()
    assert hand.version == 0 and not HandEvent.objects.filter(hand=hand).exists()
    assert services.play(hand.pk, users[dealer], {"action": "discard", "tile": tile}, 0).ok


def test_timeouts_move_and_two_in_a_row_mean_auto_play(full_room):
    hand = _start(full_room)
    state = services.hand_state(hand)
    dealer = state.turn
    later = timezone.now() + timedelta(seconds=60)
    assert not services.timeout(hand.pk, hand.version).ok  # not overdue yet
    assert services.timeout(hand.pk, hand.version, now=later).ok
    hand.refresh_from_db()
    assert hand.version >= 1
    assert not services.timeout(hand.pk, 0, now=later).ok  # stale version: no double move
    seat = Seat.objects.get(room=full_room, position=dealer)
    assert seat.timeouts == 1 and not seat.auto_play


def test_sweeper_catches_overdue_hands(full_room):
    hand = _start(full_room)
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=30))
    assert services.sweep_overdue() == 1
    hand.refresh_from_db()
    assert hand.version >= 1


def test_dissolve_needs_everyone(full_room):
    hand = _start(full_room)
    users = _users_by_position(full_room)
    for p in (0, 1, 2):
        services.vote_dissolve(users[p], full_room.pk, True)
    full_room.refresh_from_db()
    assert full_room.status == Room.PLAYING
    services.vote_dissolve(users[3], full_room.pk, True)
    full_room.refresh_from_db()
    hand.refresh_from_db()
    assert full_room.status == Room.DISSOLVED and hand.status == Hand.VOID


def test_finished_hand_gets_a_verified_replay_and_tampering_is_caught(full_room):
    from games import replays
    from games.models import Replay

    hand = _start(full_room)
    _play_to_the_end(hand, _users_by_position(full_room), random.Random(11))
    replay = replays.build(hand.pk)
    assert replay.status == Replay.OK, replay.problem
    assert replays.build(hand.pk).pk == replay.pk  # idempotent
    # alter one stored action: the re-run no longer matches the record
    event = HandEvent.objects.filter(hand=hand, action__kind="discard").order_by("seq")[3]
    action = dict(event.action)
    action["tile"] = "1m" if action["tile"] != "1m" else "2m"
    HandEvent.objects.filter(pk=event.pk).update(action=action)
    tampered = replays.build(hand.pk)
    assert tampered.status == Replay.MISMATCH and tampered.problem
