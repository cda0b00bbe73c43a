"""房间号 (issue 16): every open room has a 6-digit number leading to the invite link's join page
(same checks); a revoked invite retires it; look-ups are rate-limited per user and per address."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client

from games import services
from games.models import Room
from games.services import room_numbers
from tests.people import make_person

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counts():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def dealer():
    return make_person("rn_dealer", "开房的")


@pytest.fixture
def guest():
    return make_person("rn_guest", "朋友")


def _client(user, ip="203.0.113.9"):
    client = Client(REMOTE_ADDR=ip)
    client.force_login(user)
    return client


def test_every_new_room_gets_a_number_shown_in_the_room(dealer):
    numbers = set()
    for _ in range(30):
        room = services.create_room(dealer, players=2)
        assert re.fullmatch(r"[1-9]\d{5}", room.number)
        numbers.add(room.number)
    assert len(numbers) == 30
    page = _client(dealer).get(f"/room/{room.pk}/").content.decode()
    assert f"<b data-room-number>{room.number}</b>" in page


def test_the_number_leads_to_the_join_page(dealer, guest):
    room = services.create_room(dealer, players=2)
    response = _client(guest).post("/lobby/", {"number": room.number})
    assert response.status_code == 302 and response["Location"] == f"/join/{room.token}/"
    page = _client(guest).get(response["Location"]).content.decode()
    assert "加入" in page
    assert not room.seats.filter(user=guest).exists()  # looking a room up seats nobody


@pytest.mark.parametrize("typed, words", [("12345", "6 位数字"), ("abcdef", "6 位数字"), ("", "6 位数字"),
                                          ("012345", "6 位数字")])
def test_a_malformed_number_is_refused(guest, typed, words):
    response = _client(guest).post("/lobby/", {"number": typed})
    assert response.status_code == 200 and words in response.content.decode()


def test_revoked_finished_and_unknown_numbers_lead_nowhere(dealer, guest):
    room = services.create_room(dealer, players=2)
    old = room.number
    services.revoke_invite(dealer, room.pk)
    room.refresh_from_db()
    assert room.number is None
    page = _client(guest).post("/lobby/", {"number": old}).content.decode()
    assert "没有这个房间号" in page
    services.new_invite(dealer, room.pk)
    room.refresh_from_db()
    assert room.number and _client(guest).post("/lobby/", {"number": room.number}).status_code == 302
    Room.objects.filter(pk=room.pk).update(status=Room.FINISHED)
    assert "没有这个房间号" in _client(guest).post("/lobby/", {"number": room.number}).content.decode()


def test_a_finished_rooms_number_may_be_reused_by_an_open_room(dealer):
    first = services.create_room(dealer, players=2)
    Room.objects.filter(pk=first.pk).update(status=Room.FINISHED)
    second = services.create_room(dealer, players=2)
    Room.objects.filter(pk=second.pk).update(number=first.number)  # allowed: the first is closed
    with pytest.raises(Exception):
        third = services.create_room(dealer, players=2)
        Room.objects.filter(pk=third.pk).update(number=first.number)  # two open rooms: refused by the DB


def test_look_ups_are_limited_per_user(dealer, guest):
    room = services.create_room(dealer, players=2)
    client = _client(guest)
    for i in range(room_numbers.LIMIT_PER_USER):
        assert client.post("/lobby/", {"number": "999999" if i % 2 else room.number}).status_code in (200, 302)
    response = client.post("/lobby/", {"number": room.number})
    assert response.status_code == 429 and "查找房间号太频繁" in response.content.decode()
    # another user (elsewhere) is not affected
    assert _client(make_person("rn_other", "别人"), ip="198.51.100.7").post("/lobby/", {"number": room.number}).status_code == 302


def test_look_ups_are_limited_per_address(dealer):
    room = services.create_room(dealer, players=2)
    for i in range(room_numbers.LIMIT_PER_ADDRESS):
        user = make_person(f"rn_walker{i}", f"路人{i}")
        assert _client(user, ip="192.0.2.50").post("/lobby/", {"number": "999999"}).status_code == 200
    last = _client(make_person("rn_walker_last", "路人末"), ip="192.0.2.50").post("/lobby/", {"number": room.number})
    assert last.status_code == 429


def test_the_invite_page_has_a_link_preview(dealer, guest):
    room = services.create_room(dealer, players=4, length=8, stake=100)
    services.join_room(guest, room.token)
    html = Client().get(f"/join/{room.token}/", HTTP_ACCEPT_LANGUAGE="zh").content.decode()
    assert '<meta property="og:title" content="台州麻将 · 4人 · 8局 · 100金豆/胡">' in html
    assert '<meta property="og:description" content="已入座：开房的、朋友。还差 2 人。">' in html
    assert re.search(r'<meta property="og:image" content="http://testserver/static/icons/icon-512[^"]*\.png">', html)
    assert f'<meta property="og:url" content="http://testserver/join/{room.token}/">' in html
