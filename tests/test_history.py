"""History (战绩): my games newest first with my 胡 and beans; a game's page with every hand, the
totals and replay links, for its players only; the host (only) sets who may open the replays."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import LedgerEntry, Profile
from games import services
from games.models import Hand, Replay, Room
from tests.replay_helpers import client_for, make_user
from tests.replay_helpers import SEED_GUEST_WINS, SEED_SELF_DRAWN, fixed_seeds, play_hand, start_hand, users_by_position

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(host, guest, monkeypatch, django_capture_on_commit_callbacks):
    """Two finished hands (the guest wins on the host's discard, then the host, no longer the dealer,
    wins by self-draw), the third dissolved."""
    fixed_seeds(monkeypatch, [SEED_GUEST_WINS, SEED_SELF_DRAWN, SEED_GUEST_WINS])
    room = services.create_room(host, players=2, length=4)
    services.join_room(guest, room.token)
    users = users_by_position(room)
    with django_capture_on_commit_callbacks(execute=True):
        play_hand(start_hand(room, 1), users)
        play_hand(start_hand(room, 2), users)
    start_hand(room, 3)
    for user in users.values():
        services.vote_dissolve(user, room.pk, True)
    room.refresh_from_db()
    assert room.status == Room.DISSOLVED
    return room.game


def _beans(user, game):
    return sum(LedgerEntry.objects.filter(wallet__user=user, reason=LedgerEntry.HAND, hand__game=game)
               .values_list("amount", flat=True))


def _signed(n):
    n = int(n) if float(n).is_integer() else n
    return f"+{n}" if n > 0 else str(n)


def test_history_needs_a_login():
    response = client_for().get("/history/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert client_for().get("/history/1/").status_code == 302


def test_my_games_newest_first_with_my_result(game, host, guest, outsider, monkeypatch):
    hu = game.totals
    assert hu[0] != 0 and sum(hu) == 0
    page = client_for(host).get("/history/").content.decode()
    assert f"房间 #{game.room_id}" in page
    assert "台州麻将" in page and "东家老王" in page and "南家小李" in page
    assert "已解散" in page
    beans = _beans(host, game)
    assert beans != 0
    assert f"{_signed(hu[0])} 胡" in page and f"{_signed(beans)} 金豆" in page
    assert f'href="/history/{game.pk}/"' in page
    guest_page = client_for(guest).get("/history/").content.decode()
    assert f"{_signed(hu[1])} 胡" in guest_page and f"{_signed(_beans(guest, game))} 金豆" in guest_page

    # a newer game comes first
    fixed_seeds(monkeypatch, [SEED_GUEST_WINS])
    newer = services.create_room(host, players=2, length=4)
    services.join_room(outsider, newer.token)
    start_hand(newer)
    page = client_for(host).get("/history/").content.decode()
    ids = [int(i) for i in re.findall(r'data-game="(\d+)"', page)]
    assert ids == [newer.game.pk, game.pk]
    assert "对局中" in page
    assert client_for(outsider).get("/history/").content.decode().count('data-game="') == 1
    assert client_for(guest).get("/history/?page=99").status_code == 200  # past the end: the last page
    assert "还没有打过牌" in client_for(make_user("newcomer")).get("/history/").content.decode()


def test_the_game_page_lists_every_hand_with_totals_and_replays(game, host, guest):
    page = client_for(host).get(f"/history/{game.pk}/").content.decode()
    hands = list(game.hands.order_by("number"))
    assert [int(n) for n in re.findall(r'data-hand="(\d+)"', page)] == [1, 2, 3]
    rows = dict(re.findall(r'<tr data-hand="(\d+)">(.*?)</tr>', page, re.S))
    assert "南家小李 胡，东家老王 点炮" in rows["1"]
    assert "东家老王 自摸" in rows["2"]
    assert "作废" in rows["3"] and "回放" not in rows["3"]
    for hand in hands[:2]:
        row = rows[str(hand.number)]
        assert ("庄：东家老王" if hand.number == 1 else "庄：南家小李") in row
        replay = Replay.objects.get(hand=hand)
        assert f'href="/replay/{replay.token}/"' in row
        for p in (0, 1):
            assert f"{_signed(hand.result['net'][p])}</span>" in row
            moved = hand.result["beans"]["paid"][str(p)]
            assert f"{_signed(moved)} 豆" in row
    foot = page[page.index("<tfoot>"):page.index("</tfoot>")]
    assert "合计" in foot
    for p, user in ((0, host), (1, guest)):
        assert f"{_signed(game.totals[p])}</span>" in foot
        assert f"{_signed(_beans(user, game))} 豆" in foot
    assert client_for(guest).get(f"/history/{game.pk}/").status_code == 200


def test_a_hand_whose_replay_is_missing_links_to_the_builder(game, host):
    hand = game.hands.get(number=1)
    Replay.objects.filter(hand=hand).delete()
    page = client_for(host).get(f"/history/{game.pk}/").content.decode()
    url = f"/history/{game.pk}/hand/1/replay/"
    assert f'href="{url}"' in page
    response = client_for(host).get(url)
    assert response["Location"] == f"/replay/{Replay.objects.get(hand=hand).token}/"
    assert client_for(host).get(f"/history/{game.pk}/hand/3/replay/").status_code == 404  # void
    assert client_for(host).get(f"/history/{game.pk}/hand/9/replay/").status_code == 404


def test_only_players_see_a_game(game, outsider, staff):
    for user in (outsider, staff):
        response = client_for(user).get(f"/history/{game.pk}/")
        assert response.status_code == 404
        assert "找不到" in response.content.decode()
    assert client_for(outsider).get("/history/999999/").status_code == 404


def test_the_host_sets_who_may_open_the_replays(game, host):
    room = game.room
    page = client_for(host).get(f"/history/{game.pk}/").content.decode()
    assert f'action="/history/{game.pk}/sharing/"' in page
    response = client_for(host).post(f"/history/{game.pk}/sharing/",
                                     {"replay_visibility": "players", "replay_hide_names": "on"})
    assert response.status_code == 302 and response["Location"].startswith(f"/history/{game.pk}/?saved=1")
    room.refresh_from_db()
    assert room.replay_visibility == Room.REPLAY_PLAYERS and room.replay_hide_names
    assert "已保存" in client_for(host).get(response["Location"]).content.decode()
    client_for(host).post(f"/history/{game.pk}/sharing/", {"replay_visibility": "link"})
    room.refresh_from_db()
    assert room.replay_visibility == Room.REPLAY_LINK and not room.replay_hide_names
    bad = client_for(host).post(f"/history/{game.pk}/sharing/", {"replay_visibility": "everyone"})
    assert "error=1" in bad["Location"]
    room.refresh_from_db()
    assert room.replay_visibility == Room.REPLAY_LINK
    assert client_for(host).get(f"/history/{game.pk}/sharing/").status_code == 405


def test_others_cannot_change_the_replay_setting(game, guest, outsider):
    room = game.room
    page = client_for(guest).get(f"/history/{game.pk}/").content.decode()
    assert "sharing/" not in page and "只有房主可以修改回放设置" in page
    assert client_for(guest).post(f"/history/{game.pk}/sharing/", {"replay_visibility": "players"}).status_code == 403
    assert client_for(outsider).post(f"/history/{game.pk}/sharing/", {"replay_visibility": "players"}).status_code == 404
    anonymous = client_for().post(f"/history/{game.pk}/sharing/", {"replay_visibility": "players"})
    assert anonymous.status_code == 302
    room.refresh_from_db()
    assert room.replay_visibility == Room.REPLAY_LINK


def test_the_header_links_to_the_history(host):
    assert 'href="/history/"' in client_for(host).get("/").content.decode()
    assert 'href="/history/"' not in client_for().get("/").content.decode()


def test_hands_still_playing_show_as_such(host, guest, monkeypatch):
    fixed_seeds(monkeypatch, [SEED_GUEST_WINS])
    room = services.create_room(host, players=2, length=4)
    services.join_room(guest, room.token)
    hand = start_hand(room)
    assert hand.status == Hand.PLAYING
    page = client_for(guest).get(f"/history/{room.game.pk}/").content.decode()
    assert "进行中" in page and "回放" not in page.split("<tbody>")[1].split("</tbody>")[0]
