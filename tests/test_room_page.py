"""The room page /room/<id>/: who may open it, and what each phase shows (waiting, playing,
result, game summary, dissolved), in Chinese and in English."""

import random
import re

import pytest
from django.test import Client

from games import services
from games.engine import game as engine
from games.models import Hand, Room

from room_helpers import make_room, make_user, tiles_in, visible_tiles, ws_values

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def seeded(settings):
    settings.GAME_SEED_BASE = "tests"


def client_for(user, lang=None):
    client = Client()
    client.force_login(user)
    if lang:
        client.cookies["django_language"] = lang
    return client


def play_hand(room, users, rng):
    """Play the current hand to its end through services (random legal moves, wins taken)."""
    hand = Hand.objects.filter(game__room=room).order_by("-number").first()
    for _ in range(1000):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            return hand
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        acts = engine.legal_actions(state, p)
        wins = [a for a in acts if a.kind == "win"]
        a = wins[0] if wins else rng.choice(acts)
        cmd = {"action": a.kind}
        if a.tile is not None and a.kind in ("discard", "ckong", "akong"):
            cmd["tile"] = engine.face_name(a.tile)
        if a.tiles:
            cmd["tiles"] = [engine.face_name(t) for t in a.tiles]
        out = services.play(hand.pk, users[p], cmd, hand.version)
        assert out.ok, out.error
    raise AssertionError("the hand did not end")


def test_login_required_and_only_seated_players(client):
    room, users = make_room(players=2)
    response = client.get(f"/room/{room.pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    outsider = make_user("outsider")
    response = client_for(outsider).get(f"/room/{room.pk}/")
    assert response.status_code == 403
    html = response.content.decode()
    assert "邀请链接" in html and "data-tile" not in html and "ws-connect" not in html
    assert client_for(users[0]).get(f"/room/{room.pk + 99}/").status_code == 404


def test_waiting_room_shows_seats_rules_invite_and_buttons():
    room, users = make_room(players=3)
    host_page = client_for(users[0]).get(f"/room/{room.pk}/").content.decode()
    guest_page = client_for(users[1]).get(f"/room/{room.pk}/").content.decode()
    for html in (host_page, guest_page):
        assert f'ws-connect="/ws/room/{room.pk}/?lang=zh"' in html
        assert "昵称host" in html and "昵称guest1" in html and "昵称guest2" in html
        for text in ("台州麻将", "3 人", "4 局", "100 金豆/胡", "15 秒", "8 秒", "等待开始", "未准备", "离线"):
            assert text in html, text
        assert f"/join/{room.token}/" in html  # the invite link (the other engineer's partial)
        assert '"action": "ready"' in html
    assert '"action": "remove"' in host_page and '"action": "close"' in host_page
    assert "换新链接" in host_page and "收回链接" in host_page
    assert '"action": "remove"' not in guest_page and '"action": "leave"' in guest_page
    assert "换新链接" not in guest_page


def test_playing_page_shows_the_table_for_this_seat_only():
    room, users = make_room(players=4)
    for u in users.values():
        services.set_ready(u, room.pk)
    hand = Hand.objects.get(game__room=room)
    state = services.hand_state(hand)
    for p, user in users.items():
        html = client_for(user).get(f"/room/{room.pk}/").content.decode()
        assert tiles_in(html) == visible_tiles(state, p)
        assert "跳牌" in html and "财神" in html and "余牌" in html and "data-deadline" in html
        discard_buttons = sum(1 for v in ws_values(html) if v.get("action") == "discard")
        assert discard_buttons == (14 if p == state.turn else 0)
        assert "第 1 / 4 局" in html
        assert ("轮到你出牌" in html) == (p == state.turn)


def test_result_summary_and_english():
    room, users = make_room(players=2)
    rng = random.Random(5)
    hands = 0
    while True:
        room.refresh_from_db()
        if room.status == Room.FINISHED:
            break
        for u in users.values():
            services.set_ready(u, room.pk)
        hand = play_hand(room, users, rng)
        hands += 1
        room.refresh_from_db()
        html = client_for(users[0]).get(f"/room/{room.pk}/").content.decode()
        assert f"第 {hand.number} 局结果" in html
        if room.status != Room.FINISHED:
            assert "准备下一局" in html and "全场结束" not in html
    assert hands == 4
    html = client_for(users[1]).get(f"/room/{room.pk}/").content.decode()
    assert "全场结束" in html and "返回大厅" in html and "准备" not in html.split('id="actions"')[1]
    game = room.game
    moved = {p: 0 for p in users}
    for hand in Hand.objects.filter(game=game):
        for p, v in ((hand.result or {}).get("beans") or {}).get("paid", {}).items():
            moved[int(p)] += v
    for p, total in enumerate(game.totals):
        row = re.search(r'<tr data-position="%d"[^>]*>(.*?)</tr>' % p, html).group(1)
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert [float(cells[0]), int(cells[1])] == [total, moved[p]]
    english = client_for(users[1], "en").get(f"/room/{room.pk}/").content.decode()
    assert 'ws-connect="/ws/room/%d/?lang=en"' % room.pk in english
    assert "Game over" in english and "Back to the lobby" in english


def test_dissolved_room_page():
    room, users = make_room(players=2)
    services.close_room(users[0], room.pk)
    html = client_for(users[1]).get(f"/room/{room.pk}/").content.decode()
    assert "房间已解散" in html and "data-tile" not in html


@pytest.mark.django_db(transaction=True, reset_sequences=True)  # room #1: a fixed seeded game
def test_result_shows_the_beans_that_moved_and_why_they_were_cut():
    from accounts.models import SiteSettings

    limits = SiteSettings.current()
    limits.hand_limit = 7  # beans a player may win or lose in one hand: every win is cut
    limits.save()
    room, users = make_room(players=4)
    rng = random.Random(2)
    for _ in range(4):
        for u in users.values():
            services.set_ready(u, room.pk)
        hand = play_hand(room, users, rng)
        if hand.result["winner"] is not None:
            break
    else:
        pytest.fail("no hand was won")
    paid = {int(p): v for p, v in hand.result["beans"]["paid"].items()}
    winner = hand.result["winner"]
    assert paid[winner] == 7 and sum(paid.values()) == 0
    html = client_for(users[winner]).get(f"/room/{room.pk}/").content.decode()
    text = next(part for part in html.split('class="card score-card')[1:]
                if f'data-position="{winner}"' in part.split(">")[0])
    assert "（+7 金豆）" in text and "单局输赢上限" in text
    english = client_for(users[winner], "en").get(f"/room/{room.pk}/").content.decode()
    assert "(+7 beans)" in english and "the per-hand limit" in english
