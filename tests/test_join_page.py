"""The invite link /join/<token>/: rules, seated players, joining, every refusal; the invite QR code."""

import pytest
import qrcode
import qrcode.image.svg
from django.template import loader
from django.test import RequestFactory

from games import services
from games.models import Room, Seat
from tests.people import make_person

pytestmark = pytest.mark.django_db


@pytest.fixture
def room(host):
    return services.create_room(host, players=2, length_kind=Room.ROUNDS, length=1, stake=250,
                                turn_seconds=20, claim_seconds=6)


def join_url(room):
    return f"/join/{room.token}/"


def state(response):
    return response.context["state"]


def snapshot():
    return (list(Room.objects.order_by("pk").values_list("pk", "status", "version", "token", "invite_revoked")),
            list(Seat.objects.order_by("pk").values_list("room", "user", "position")))


def test_rules_and_seated_players_are_shown(client, room, guest):
    client.force_login(guest)
    response = client.get(join_url(room))
    assert response.status_code == 200 and state(response) == "open"
    html = response.content.decode()
    assert "东家老王 邀请你打麻将" in html
    for text in ("台州麻将", "2 人", "1 圈", "250 金豆/胡", "20 秒", "6 秒"):
        assert text in html
    assert "东家老王" in html and "房主" in html and "空位" in html
    assert f'action="/join/{room.token}/"' in html and "加入" in html


def test_viewing_changes_nothing(client, room, guest):
    before = snapshot()
    client.force_login(guest)
    client.get(join_url(room))
    assert snapshot() == before


def test_join_by_post_seats_the_user(client, room, guest):
    client.force_login(guest)
    response = client.post(join_url(room))
    assert response.status_code == 302 and response["Location"] == f"/room/{room.pk}/"
    seat = Seat.objects.get(room=room, user=guest)
    assert seat.position == 1
    room.refresh_from_db()
    assert room.version == 1


def test_seated_players_get_a_link_to_the_room(client, room, host, guest):
    services.join_room(guest, room.token)
    for user in (host, guest):
        client.force_login(user)
        response = client.get(join_url(room))
        assert state(response) == "seated"
        html = response.content.decode()
        assert f'href="/room/{room.pk}/"' in html and "进入房间" in html
        assert "南家小李" in html and "房间已满" not in html
    before = snapshot()
    response = client.post(join_url(room))  # joining again just goes to the room
    assert response["Location"] == f"/room/{room.pk}/"
    assert snapshot() == before


def test_full_room(client, room, guest, outsider):
    services.join_room(guest, room.token)
    client.force_login(outsider)
    response = client.get(join_url(room))
    assert state(response) == "full"
    html = response.content.decode()
    assert "房间已满" in html and "东家老王" in html and "南家小李" in html
    assert f'action="/join/{room.token}/"' not in html
    before = snapshot()
    response = client.post(join_url(room))
    assert response.status_code == 200 and "房间已满" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_forged_token_is_a_friendly_404_that_changes_nothing(client, room, outsider, method, who):
    if who == "outsider":
        client.force_login(outsider)
    before = snapshot()
    for token in ("forged-" + room.token, room.token[:-1], "x"):
        response = getattr(client, method)(f"/join/{token}/")
        assert response.status_code == 404
        html = response.content.decode()
        assert "邀请链接无效" in html and 'href="/lobby/"' in html
        assert "东家老王" not in html
    assert snapshot() == before


def test_revoked_token(client, room, host, outsider):
    services.revoke_invite(host, room.pk)
    client.force_login(outsider)
    response = client.get(join_url(room))
    assert response.status_code == 200 and state(response) == "revoked"
    html = response.content.decode()
    assert "邀请链接已被房主收回" in html
    assert "250 金豆/胡" not in html and f'action="/join/{room.token}/"' not in html
    before = snapshot()
    response = client.post(join_url(room))
    assert response.status_code == 200 and "收回" in response.content.decode()
    assert snapshot() == before


def test_a_renewed_link_replaces_the_old_one(client, room, host, outsider):
    old = join_url(room)
    room = services.new_invite(host, room.pk)
    client.force_login(outsider)
    assert client.get(old).status_code == 404
    assert client.post(join_url(room))["Location"] == f"/room/{room.pk}/"


def test_started_room_refuses(client, room, host, guest, outsider, settings):
    settings.GAME_SEED_BASE = "tests"
    services.join_room(guest, room.token)
    services.set_ready(host, room.pk)
    services.set_ready(guest, room.pk)
    room.refresh_from_db()
    assert room.status == Room.PLAYING
    Seat.objects.filter(room=room, user=guest).delete()  # a seat is free, but the game is on
    client.force_login(outsider)
    response = client.get(join_url(room))
    assert state(response) == "playing"
    assert "这局已经开始" in response.content.decode()
    before = snapshot()
    response = client.post(join_url(room))
    assert response.status_code == 200 and "已经开始" in response.content.decode()
    assert snapshot() == before


@pytest.mark.parametrize("status, message", [(Room.FINISHED, "这局已经结束"), (Room.DISSOLVED, "这个房间已经解散")])
def test_finished_or_dissolved_room(client, room, outsider, status, message):
    Room.objects.filter(pk=room.pk).update(status=status)
    client.force_login(outsider)
    response = client.get(join_url(room))
    assert state(response) == status and message in response.content.decode()
    assert client.post(join_url(room)).status_code == 200
    assert not Seat.objects.filter(user=outsider).exists()


def test_anonymous_visitors_see_the_room_and_are_sent_to_log_in(client, room):
    response = client.get(join_url(room))
    assert response.status_code == 200 and state(response) == "open"
    html = response.content.decode()
    assert "250 金豆/胡" in html and "东家老王" in html
    assert f'href="/accounts/login/?next=/join/{room.token}/"' in html
    assert f'href="/accounts/signup/?next=/join/{room.token}/"' in html
    assert f'action="/join/{room.token}/"' not in html
    before = snapshot()
    response = client.post(join_url(room))
    assert response.status_code == 302 and response["Location"] == f"/accounts/login/?next=/join/{room.token}/"
    assert snapshot() == before


def test_sign_up_from_the_invite_and_join(client, room):
    password = "Tile-table-2024!"
    response = client.post(f"/accounts/signup/?next={join_url(room)}", {
        "username": "newbie", "nickname": "新来的", "password1": password, "password2": password})
    assert response["Location"] == join_url(room)
    response = client.get(join_url(room))
    assert state(response) == "open"
    assert client.post(join_url(room))["Location"] == f"/room/{room.pk}/"
    assert Seat.objects.get(room=room, position=1).user.profile.nickname == "新来的"


def expected_svg(room):
    image = qrcode.make(f"http://testserver/join/{room.token}/", image_factory=qrcode.image.svg.SvgPathImage,
                        error_correction=qrcode.constants.ERROR_CORRECT_M, border=2)
    return image.to_string(encoding="unicode")


def test_invite_qr_code_only_for_seated_players(client, room, host, guest, outsider):
    url = f"/room/{room.pk}/invite.svg"
    assert client.get(url).status_code == 404  # anonymous
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    services.join_room(guest, room.token)
    for user in (host, guest):
        client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "image/svg+xml"
        assert "no-store" in response["Cache-Control"]
        assert response.content.decode() == expected_svg(room)
    assert client.get(f"/room/{room.pk + 100}/invite.svg").status_code == 404
    services.revoke_invite(host, room.pk)
    assert client.get(url).status_code == 404
    room = services.new_invite(host, room.pk)
    assert client.get(url).content.decode() == expected_svg(room)


def test_invite_partial(room, host):
    request = RequestFactory().get(f"/room/{room.pk}/")
    request.user = host
    html = loader.render_to_string("games/_invite.html", {"room": room}, request=request)
    assert f'value="http://testserver/join/{room.token}/" readonly' in html
    assert f'src="/room/{room.pk}/invite.svg?v={room.version}"' in html
    assert "navigator.clipboard" in html and "select()" in html and "data-copy=" in html
    assert 'id="invite-actions"' in html

    html = loader.render_to_string("games/_invite.html", {
        "room": room, "invite_url": "https://mj.example/join/x/", "invite_actions": "_form_errors.html"})
    assert 'value="https://mj.example/join/x/"' in html

    services.revoke_invite(host, room.pk)
    room.refresh_from_db()
    html = loader.render_to_string("games/_invite.html", {"room": room}, request=request)
    assert "邀请链接已收回" in html and "invite.svg" not in html and room.token not in html


def test_join_page_in_english(client, room):
    client.cookies["django_language"] = "en"
    html = client.get(join_url(room)).content.decode()
    for text in ("东家老王 invites you to play mahjong", "2 players", "1 round", "250 beans/point", "20 s",
                 "Seated", "Host", "Empty seat", "Log in to join", "Sign up"):
        assert text in html
    html = client.get("/join/forged/").content.decode()
    assert "Invalid invite link" in html
