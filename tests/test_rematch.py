"""再来一局 (rematch, issues 14 and 16): at the end of a game any player proposes it; those who
accept are seated in a new room with the same rules at their old positions; the others get a seat
only by the new room's link; refusals change nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Game, Room, Seat
from tests.people import make_person
from tests.replay_helpers import play_hand, start_hand, users_by_position

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(settings):
    """A three-player Zhuji room (翻, two wild faces, 底分 5) whose four hands have been played."""
    settings.GAME_SEED_BASE = "rematch-tests"
    host = make_person("rm_host", "房主老王")
    room = services.create_room(host, variant="zhuji", players=3, length=4, stake=50, turn_seconds=30,
                                settings={"mode": "fan", "wild_faces": 2, "unit": 5})
    for i in (1, 2):
        services.join_room(make_person(f"rm_guest{i}", f"客人{i}"), room.token)
    users = users_by_position(room)
    for _ in range(4):
        room.refresh_from_db()
        if room.status == Room.FINISHED:
            break
        play_hand(start_hand(room), users)
    room.refresh_from_db()
    assert room.status == Room.FINISHED
    return room


def _page(user, room):
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/").content.decode()


def test_a_rematch_keeps_the_rules_and_the_seats_of_those_who_accept(finished):
    room = finished
    users = users_by_position(room)
    page = _page(users[2], room)
    assert "再来一局" in page and '"action": "rematch"' in page

    new = services.rematch(users[2], room.pk)  # the guest at position 2 proposes
    room.refresh_from_db()
    assert room.rematch_id == new.pk and new.status == Room.WAITING and new.host == users[2]
    for name in ("variant", "players", "length_kind", "length", "stake", "turn_seconds", "claim_seconds",
                 "min_balance", "settings"):
        assert getattr(new, name) == getattr(room, name), name
    assert new.token != room.token
    assert {s.position: s.user for s in new.seats.all()} == {2: users[2]}

    # the others see who proposed and may join; nobody is seated without pressing
    other = _page(users[0], room)
    assert "客人2 发起了再来一局" in other and "加入再来一局" in other
    assert "进入再来一局的房间" in _page(users[2], room)

    assert services.rematch(users[0], room.pk).pk == new.pk
    assert services.rematch(users[0], room.pk).pk == new.pk  # twice: still one seat
    assert {s.position: s.user for s in new.seats.all()} == {0: users[0], 2: users[2]}
    assert Room.objects.count() == 2  # one rematch room

    # the third player did not accept: only the link seats them (at the free position)
    seat = services.join_room(users[1], new.token)
    assert seat.position == 1
    for user in users.values():
        services.set_ready(user, new.pk)
    new.refresh_from_db()
    assert new.status == Room.PLAYING and Game.objects.filter(room=new).exists()


def test_a_rematch_is_refused_before_the_end_and_to_outsiders(finished, settings):
    room = finished
    outsider = make_person("rm_outsider", "路人")
    with pytest.raises(services.ServiceError) as e:
        services.rematch(outsider, room.pk)
    assert e.value.code == "not_seated"
    host = make_person("rm_host2", "房主2")
    playing = services.create_room(host, players=2, length=4)
    guest = make_person("rm_guest3", "客人3")
    services.join_room(guest, playing.token)
    with pytest.raises(services.ServiceError) as e:
        services.rematch(host, playing.pk)
    assert e.value.code == "not_finished"
    assert Room.objects.count() == 2  # nothing was opened


def test_a_rematch_whose_host_closed_it_is_opened_anew(finished):
    room = finished
    users = users_by_position(room)
    first = services.rematch(users[0], room.pk)
    services.close_room(users[0], first.pk)
    second = services.rematch(users[1], room.pk)
    assert second.pk != first.pk and second.host == users[1]
    assert {s.position for s in Seat.objects.filter(room=second)} == {1}


def test_a_seat_taken_by_the_link_first_gives_the_next_free_one(finished):
    room = finished
    users = users_by_position(room)
    new = services.rematch(users[0], room.pk)
    stranger = make_person("rm_friend", "朋友")
    assert services.join_room(stranger, new.token).position == 1  # came by the link into position 1
    assert services.rematch(users[1], room.pk).seats.get(user=users[1]).position == 2
    with pytest.raises(services.ServiceError) as e:
        services.rematch(users[2], room.pk)
    assert e.value.code == "room_full"
