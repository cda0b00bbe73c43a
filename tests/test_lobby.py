"""The lobby: create a room with each option (through games.services.create_room), my rooms."""

import re

import pytest

from games import services
from games.models import Room, Seat
from tests.people import make_person

pytestmark = pytest.mark.django_db

LOBBY = "/lobby/"
GOOD = {"variant": "taizhou", "players": "4", "length": "hands:8", "stake": "100",
        "turn_seconds": "15", "claim_seconds": "8"}


@pytest.fixture
def host_client(client, host):
    client.force_login(host)
    return client


def test_anonymous_is_sent_to_log_in(client):
    response = client.get(LOBBY)
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/lobby/"
    response = client.post(LOBBY, GOOD)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not Room.objects.exists()


def test_form_shows_the_defaults(host_client):
    response = host_client.get(LOBBY)
    assert response.status_code == 200
    form = response.context["form"]
    assert {name: form[name].value() for name in GOOD} == {
        "variant": "taizhou", "players": 4, "length": "hands:8", "stake": 100, "turn_seconds": 15, "claim_seconds": 8}
    html = response.content.decode()
    assert re.search(r'<input type="radio" name="players" value="4"[^>]* checked>', html)
    assert '<option value="hands:8" selected>' in html
    for label in ("4 局", "16 局", "1 圈", "2 圈"):
        assert label in html


@pytest.mark.parametrize("players", [4, 3, 2])
@pytest.mark.parametrize("length, kind, n", [
    ("hands:4", Room.HANDS, 4), ("hands:8", Room.HANDS, 8), ("hands:16", Room.HANDS, 16),
    ("rounds:1", Room.ROUNDS, 1), ("rounds:2", Room.ROUNDS, 2),
])
def test_create_a_room_with_each_option(host_client, host, players, length, kind, n):
    response = host_client.post(LOBBY, dict(GOOD, players=str(players), length=length))
    room = Room.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/room/{room.pk}/"
    assert (room.host, room.variant, room.players, room.length_kind, room.length) == (host, "taizhou", players, kind, n)
    assert (room.stake, room.turn_seconds, room.claim_seconds, room.status) == (100, 15, 8, Room.WAITING)
    assert list(Seat.objects.filter(room=room).values_list("user", "position")) == [(host.pk, 0)]


@pytest.mark.parametrize("stake, turn, claim", [(1, 5, 3), (1_000_000, 120, 60), (250, 30, 10)])
def test_create_with_stake_and_times(host_client, stake, turn, claim):
    host_client.post(LOBBY, dict(GOOD, stake=str(stake), turn_seconds=str(turn), claim_seconds=str(claim)))
    room = Room.objects.get()
    assert (room.stake, room.turn_seconds, room.claim_seconds) == (stake, turn, claim)


@pytest.mark.parametrize("field, value", [
    ("variant", "sichuan"), ("variant", ""),
    ("players", "5"), ("players", "1"), ("players", ""),
    ("length", "hands:5"), ("length", "rounds:3"), ("length", "bogus"), ("length", ""),
    ("stake", "0"), ("stake", "-5"), ("stake", "1000001"), ("stake", "abc"), ("stake", ""),
    ("turn_seconds", "4"), ("turn_seconds", "121"), ("turn_seconds", "1.5"),
    ("claim_seconds", "2"), ("claim_seconds", "61"),
])
def test_bad_options_give_form_errors_and_create_nothing(host_client, field, value):
    response = host_client.post(LOBBY, dict(GOOD, **{field: value}))
    assert response.status_code == 200
    assert response.context["form"].errors.get(field)
    html = response.content.decode()
    assert 'class="alert wide"' in html and 'class="error"' in html
    assert not Room.objects.exists() and not Seat.objects.exists()


def test_a_service_refusal_is_a_form_error(host_client, monkeypatch):
    def refuse(user, **options):
        raise services.ServiceError("不行")

    monkeypatch.setattr(services, "create_room", refuse)
    response = host_client.post(LOBBY, GOOD)
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == ["不行"]
    assert not Room.objects.exists()


def test_my_rooms_by_status(host_client, host, guest, outsider):
    waiting = services.create_room(host, players=2, length=4)
    playing = services.create_room(host, players=2, length=4)
    services.join_room(guest, playing.token)
    Room.objects.filter(pk=playing.pk).update(status=Room.PLAYING)
    finished = services.create_room(host, players=3, length_kind=Room.ROUNDS, length=2, stake=300)
    Room.objects.filter(pk=finished.pk).update(status=Room.FINISHED)
    joined = services.create_room(guest, players=4, length=16)  # someone else's room I sat down in
    services.join_room(host, joined.token)
    not_mine = services.create_room(outsider)

    response = host_client.get(LOBBY)
    ctx = response.context
    assert [r.pk for r in ctx["waiting"]] == [joined.pk, waiting.pk]
    assert [r.pk for r in ctx["playing"]] == [playing.pk]
    assert [r.pk for r in ctx["over"]] == [finished.pk]
    html = response.content.decode()
    for room in (waiting, playing, finished, joined):
        assert f'href="/room/{room.pk}/"' in html
    assert f'href="/room/{not_mine.pk}/"' not in html
    assert "南家小李" in html and "东家老王" in html and "路人甲" not in html
    assert "3 人 · 2 圈 · 300 金豆/胡" in html
    assert "对局中" in html and "等待开始" in html and "已结束" in html


def test_no_rooms_yet(host_client):
    html = host_client.get(LOBBY).content.decode()
    assert "还没有房间" in html


def test_room_url_falls_back_to_the_agreed_path(host, monkeypatch):
    from django.urls import NoReverseMatch

    from games import links

    room = services.create_room(host)
    assert links.room_url(room) == links.room_url(room.pk) == f"/room/{room.pk}/"

    def no_room_view(name, *args, **kwargs):
        raise NoReverseMatch(name)

    monkeypatch.setattr(links, "reverse", no_room_view)
    assert links.room_url(room) == f"/room/{room.pk}/"


def test_lobby_in_english(host_client, host):
    services.create_room(host, players=3, length_kind=Room.ROUNDS, length=2)
    host_client.cookies["django_language"] = "en"
    html = host_client.get(LOBBY).content.decode()
    for text in ("Open a room", "My rooms", "4 players", "16 hands", "1 round", "Stake (beans per point)",
                 "3 players · 2 rounds · 100 beans/point", "Waiting"):
        assert text in html
    assert "开房间" not in html
