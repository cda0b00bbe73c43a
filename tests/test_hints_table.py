"""提示 at the table (issue 15): a player turns hints on for themselves where the room allows them;
on their turn the discards closest to ready are suggested and the best marked in the hand; when
ready the waits show with how many are unseen and what each scores; nobody else sees them; a
room whose host forbids hints offers no toggle and refuses it."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services
from games.engine import game as engine
from games.engine import hints as engine_hints
from games.models import Hand, Seat
from tests.people import make_person

pytestmark = pytest.mark.django_db


def _page(user, room):
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/", HTTP_ACCEPT_LANGUAGE="zh").content.decode()


def _hints_html(page):
    m = re.search(r'<div class="hints" id="hints".*?</div>', page, re.S)
    return m.group(0) if m else ""


def test_hints_follow_a_practice_game_for_the_player_who_asked(settings):
    settings.GAME_SEED_BASE = "hints-table"
    player = make_person("ht_player", "学打牌的")
    room = services.start_practice(player, variant="taizhou", players=2)
    assert "打开提示" in _page(player, room)
    services.set_hints(player, room.pk, True)
    Seat.objects.filter(room=room, user=player).update(auto_play=True)  # the bot plays the person's seat too
    hand = Hand.objects.get(game__room=room)
    seen_turn = seen_ready = 0
    for _ in range(400):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        state = services.hand_state(hand)
        page = _page(player, room)
        strip = _hints_html(page)
        h = engine_hints.hints(state, 0)
        if state.phase == engine.DISCARD and state.turn == 0:
            assert "建议打" in strip or "听牌" in strip, strip
            marked = re.findall(r'class="mtile[^"]*hint-best[^"]*" data-tile="([^"]+)"', page)
            best = h["discards"][0]
            assert best["tile"] in marked, (marked, best)
            seen_turn += 1
        elif h.get("waits"):
            assert "听牌" in strip and "剩" in strip, strip
            seen_ready += 1
        services.timeout(hand.pk, hand.version, now=hand.deadline)  # the bots move (the person's seat too)
    assert seen_turn > 3 and seen_ready >= 1, (seen_turn, seen_ready)
    services.set_hints(player, room.pk, False)
    assert _hints_html(_page(player, room)) == ""


def test_hints_are_only_for_the_player_who_turned_them_on(settings):
    settings.GAME_SEED_BASE = "hints-own"
    a, b = make_person("ht_a", "甲"), make_person("ht_b", "乙")
    room = services.create_room(a, players=2, length=4)
    services.join_room(b, room.token)
    for user in (a, b):
        services.set_ready(user, room.pk)
    services.set_hints(a, room.pk, True)
    assert 'id="hints"' in _page(a, room) and 'id="hints"' not in _page(b, room)


def test_a_host_may_forbid_hints():
    host, guest = make_person("ht_host", "房主"), make_person("ht_guest", "客人")
    client = Client()
    client.force_login(host)
    form = {"variant": "taizhou", "players": "2", "length": "hands:4", "stake": "100", "turn_seconds": "15",
            "claim_seconds": "8", "min_balance": "0"}  # the box left unticked
    assert client.post("/lobby/", form).status_code == 302
    room = host.hosted_rooms.get()
    assert not room.hints_allowed
    services.join_room(guest, room.token)
    for user in (host, guest):
        services.set_ready(user, room.pk)
    with pytest.raises(services.ServiceError) as e:
        services.set_hints(guest, room.pk, True)
    assert e.value.code == "hints_forbidden"
    assert "打开提示" not in _page(guest, room)
