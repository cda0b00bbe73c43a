"""Every place a room's stake shows names the variant's unit (games/links.py stake_label): 金豆/胡
for Taizhou, 金豆/分 for Wenzhou, 金豆/子 for traditional Taizhou — the lobby's room list, the join page, the room's rules, the
game's history page, the replay and the customer-service admin."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import services
from games.models import Hand, Room
from tests.people import make_person
from tests.replay_helpers import play_hand, start_hand, users_by_position

pytestmark = pytest.mark.django_db


def _client(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def rooms():
    host, guest = make_person("host"), make_person("guest")
    taizhou = services.create_room(host, variant="taizhou", players=2, length=4, stake=120)
    wenzhou = services.create_room(host, variant="wenzhou", players=2, length=4, stake=50)
    trad = services.create_room(host, variant="taizhou_trad", players=2, length=4, stake=30)
    for room in (taizhou, wenzhou, trad):
        services.join_room(guest, room.token)
    return host, guest, taizhou, wenzhou, trad


LABELS = ("120 金豆/胡", "50 金豆/分", "30 金豆/子")


def _rooms_and_labels(taizhou, wenzhou, trad):
    """(room, its label, the other variants' words for its stake)."""
    return [(room, label, [f"{label.split()[0]} 金豆/{u}" for u in "胡分子" if u != label[-1]])
            for room, label in zip((taizhou, wenzhou, trad), LABELS)]


def test_the_lobby_list_the_join_page_and_the_room_name_the_unit(rooms):
    host, guest, taizhou, wenzhou, trad = rooms
    lobby = _client(guest).get("/lobby/").content.decode()
    assert all(label in lobby for label in LABELS) and "50 金豆/胡" not in lobby and "30 金豆/分" not in lobby
    outsider = _client(make_person("outsider"))
    for room, label, wrong in _rooms_and_labels(taizhou, wenzhou, trad):
        join = outsider.get(f"/join/{room.token}/").content.decode()
        assert label in join and not any(w in join for w in wrong)
        page = _client(host).get(f"/room/{room.pk}/").content.decode()
        assert label in page and not any(w in page for w in wrong)


def test_the_history_and_the_replay_name_the_unit(rooms):
    host, guest, taizhou, wenzhou, trad = rooms
    for room, label, wrong in _rooms_and_labels(taizhou, wenzhou, trad):
        hand = play_hand(start_hand(room), users_by_position(room))
        assert hand.status == Hand.ENDED
        client = _client(host)
        history = client.get(f"/history/{hand.game_id}/").content.decode()
        assert label in history and not any(w in history for w in wrong)
        replay = client.get(f"/history/{hand.game_id}/hand/{hand.number}/replay/", follow=True).content.decode()
        assert label in replay and not any(w in replay for w in wrong)


def test_the_admin_room_list_and_page_name_the_unit(rooms):
    _host, _guest, taizhou, wenzhou, trad = rooms
    staff = get_user_model().objects.create_superuser("boss", password="pw-boss-long-enough")
    client = _client(staff)
    listing = client.get("/admin/games/room/").content.decode()
    assert all(label in listing for label in LABELS)
    page = client.get(f"/admin/games/room/{wenzhou.pk}/change/").content.decode()
    assert "50 金豆/分" in page
    page = client.get(f"/admin/games/room/{trad.pk}/change/").content.decode()
    assert "30 金豆/子" in page and "30 金豆/分" not in page
    assert Room.objects.get(pk=taizhou.pk).stake == 120
