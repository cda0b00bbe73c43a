"""Computer players at the table (issue 15, the site half): a bot is a seat kind (no account) the
host adds to an empty seat in the waiting room (and removes); 练习 opens a room with bots in every
other seat and deals at once; bots play through the same service path (the timeout task after
the pause), so the log, the replay and the result treat them like anyone; a room with bots moves
no beans; 托管 plays with the same bot."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import LedgerEntry
from games import replays, services
from games.engine import game as engine
from games.models import Hand, HandEvent, Replay, Room, Seat
from tests.people import make_person
from tests.replay_helpers import command_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealer():
    return make_person("bt_host", "房主小李")


def _run_bots(hand, limit=2000):
    """Let the pause run out again and again: the bots (and 托管) move through services.timeout."""
    for _ in range(limit):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            return hand
        state = services.hand_state(hand)
        assert services.timeout(hand.pk, hand.version, now=hand.deadline).ok or hand.status != Hand.PLAYING
    raise AssertionError("the hand did not end")


def test_practice_deals_at_once_and_the_bots_play_a_whole_game(dealer, settings):
    settings.GAME_SEED_BASE = "bots-practice"
    room = services.start_practice(dealer, variant="taizhou", players=4)
    room.refresh_from_db()
    assert room.practice and room.status == Room.PLAYING
    seats = list(room.seats.order_by("position"))
    assert [s.bot for s in seats] == [False, True, True, True] and all(s.user_id is None for s in seats[1:])
    Seat.objects.filter(room=room, user=dealer).update(auto_play=True)  # the person on 托管: the same bot
    hands = []
    while True:
        room.refresh_from_db()
        hand = Hand.objects.filter(game__room=room).order_by("-number").first()
        if hand.status == Hand.PLAYING:
            hands.append(_run_bots(hand))
            continue
        if room.status != Room.PLAYING:
            break
        assert services.timeout(hand.pk, hand.version, now=hand.deadline).ok  # the ready countdown
    assert room.status == Room.FINISHED and len(hands) >= 4
    for hand in hands:
        assert "beans" not in hand.result and hand.result.get("practice")  # no beans moved
        replay = replays.build(hand.pk)
        assert replay.status == Replay.OK, replay.problem
        assert HandEvent.objects.filter(hand=hand, auto=False).count() == 0  # every move was the bots'
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.HAND).exists()
    page = _page(dealer, room)
    assert "练习（不计金豆）" in page and "电脑2" in page


def _page(user, room):
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/").content.decode()


def test_the_host_adds_and_removes_bots_in_the_waiting_room(dealer):
    room = services.create_room(dealer, players=3, length=4, stake=100)
    page = _page(dealer, room)
    assert page.count('"action": "add_bot"') == 2
    seat = services.add_bot(dealer, room.pk)
    room.refresh_from_db()
    assert seat.bot and seat.position == 1 and room.practice
    assert "练习（不计金豆）" in _page(dealer, room) and "请走电脑" in _page(dealer, room)
    guest = make_person("bt_guest", "朋友")
    services.join_room(guest, room.token)
    with pytest.raises(services.ServiceError) as e:
        services.add_bot(guest, room.pk)
    assert e.value.code == "not_host"
    assert "add_bot" not in _page(guest, room)
    services.remove_bot(dealer, room.pk, 1)
    room.refresh_from_db()
    assert not room.practice and not room.seats.filter(bot=True).exists()
    services.add_bot(dealer, room.pk, 1)
    services.set_ready(dealer, room.pk)
    services.set_ready(guest, room.pk)
    room.refresh_from_db()
    assert room.status == Room.PLAYING
    with pytest.raises(services.ServiceError) as e:
        services.remove_bot(dealer, room.pk, 1)
    assert e.value.code == "room_started"


def test_a_bot_waits_for_the_pause_and_never_moves_in_the_humans_transaction(dealer, settings):
    settings.GAME_SEED_BASE = "bots-pause"
    room = services.start_practice(dealer, variant="taizhou", players=2)
    hand = Hand.objects.get(game__room=room)
    state = services.hand_state(hand)
    if state.turn != 0:  # the bot deals: its first discard comes only from the timeout after the pause
        assert hand.deadline is not None and hand.deadline > timezone.now()
        before = hand.version
        assert services.timeout(hand.pk, hand.version, now=hand.deadline).ok
        hand.refresh_from_db()
        assert hand.version > before
        state = services.hand_state(hand)
    # the person discards: the bot's claim answer (if any) and its turn come later, not now
    action = next(a for a in engine.legal_actions(state, 0) if a.kind == "discard")
    out = services.play(hand.pk, dealer, command_for(action), hand.version)
    assert out.ok
    hand.refresh_from_db()
    rows = list(HandEvent.objects.filter(hand=hand).order_by("-seq")[:2])
    last = rows[0]
    # either the bot passed at once (nothing to see) or nothing happened yet; never a bot's draw-and-discard
    assert last.action.get("kind") in ("discard", "pass"), last.action
    state = services.hand_state(hand)
    if engine.waiting_player(state) == [1]:
        assert hand.deadline is not None


def test_dissolving_a_practice_room_needs_only_the_people(dealer):
    room = services.start_practice(dealer, variant="taizhou", players=4)
    services.vote_dissolve(dealer, room.pk)
    room.refresh_from_db()
    assert room.status == Room.DISSOLVED


def test_the_rules_page_publishes_the_bot_figures(client):
    zh = client.get("/rules/taizhou/?lang=zh").content.decode()
    assert 'id="zh-bots"' in zh and "电脑玩家有多强" in zh and "96.6%" in zh
    en = client.get("/rules/taizhou/?lang=en").content.decode()
    assert 'id="en-bots"' in en and "How strong the computer players are" in en
