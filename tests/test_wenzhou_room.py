"""A Wenzhou (温州麻将) room end to end through games.services and the room page: the create-room
option (odd bases), 买底/顶底 asked at the table before the first turn (buttons for the asked
seat only, a deadline whose default is never buy and which does not count toward 托管, 托管 seats
answering at once), the base / streak / decisions shown, whole hands played to the end, the
carry (streak, base, obligations) kept from hand to hand and replays that verify with it,
财神钱 in the result, and the 分 unit (shared/rules/wenzhou.md §1, §6, W-D11)."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import replays, services, table
from games.engine import game as engine
from games.engine.tiles import face_name
from games.models import Game, Hand, HandEvent, Replay, Room
from tests.people import make_person
from tests.replay_helpers import command_for, play_hand, users_by_position

pytestmark = pytest.mark.django_db


@pytest.fixture
def wenzhou_room(settings):
    """Four people at a Wenzhou table (odd bases), seeds fixed, the first dealer at position 0."""
    settings.GAME_SEED_BASE = "wenzhou-tests"
    host = make_person("wz_host", "东家老王")
    room = services.create_room(host, variant="wenzhou", players=4, length=4, settings={"odd_base": True})
    for i in range(1, 4):
        services.join_room(make_person(f"wz_guest{i}", f"客人{i}"), room.token)
    return room


def _deal(room) -> Hand:
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    return Hand.objects.filter(game__room=room).order_by("-number").first()


def _page(user, room, lang="zh") -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def test_the_lobby_form_creates_a_wenzhou_room_with_odd_bases(host):
    client = Client()
    client.force_login(host)
    form = {"variant": "wenzhou", "players": "3", "length": "hands:8", "stake": "50", "turn_seconds": "20",
            "claim_seconds": "8", "min_balance": "0", "odd_base": "True"}
    response = client.post("/lobby/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    room = Room.objects.get(host=host)
    assert (room.variant, room.players, room.settings) == ("wenzhou", 3, {"odd_base": True})
    page = client.get(f"/room/{room.pk}/").content.decode()
    assert "温州麻将" in page and "单数底：3、5、7、9" in page and "50 金豆/分" in page


def test_a_taizhou_room_ignores_the_wenzhou_setting(host):
    client = Client()
    client.force_login(host)
    form = {"variant": "taizhou", "players": "4", "length": "hands:8", "stake": "100", "turn_seconds": "15",
            "claim_seconds": "8", "min_balance": "0", "odd_base": "True"}
    assert client.post("/lobby/", form).status_code == 302
    assert Room.objects.get(host=host).settings == {}


def test_a_bad_setting_is_refused(host):
    with pytest.raises(services.ServiceError):
        services.create_room(host, variant="wenzhou", settings={"odd_base": "maybe"})
    with pytest.raises(services.ServiceError):
        services.create_room(host, variant="wenzhou", settings={"flowers": True})
    assert not Room.objects.filter(host=host).exists()


def test_buy_and_top_are_asked_at_the_table(wenzhou_room):
    room = wenzhou_room
    hand = _deal(room)
    users = users_by_position(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DECIDE and state.decision.name == "buy" and state.decision.seats == (0,)
    assert hand.deadline is not None
    dealer_page = _page(users[0], room)
    assert 'id="decision-prompt"' in dealer_page and "这一局买底吗" in dealer_page
    assert "&quot;value&quot;:&quot;yes&quot;" in dealer_page and "&quot;value&quot;:&quot;no&quot;" in dealer_page
    other_page = _page(users[1], room)
    assert "等待 东家老王 选择买底" in other_page and "act-decide-yes" not in other_page
    assert 'class="hand-base">3<' in other_page  # odd bases start at 3

    # only the asked seat may answer, and only with an offered choice
    assert services.play(hand.pk, users[1], {"action": "decide", "value": "yes"}, hand.version).code == "no_decision"
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "maybe"}, hand.version).code == "bad_choice"
    assert services.play(hand.pk, users[0], {"action": "discard", "tile": "1m"}, hand.version).code == "must_decide"
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "yes"}, hand.version).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.decision.name == "top" and state.decision.seats == (1, 2, 3)
    page = _page(users[2], room)
    assert "庄家 东家老王 买了底" in page and "庄家买底" in page
    for p, value in ((1, "yes"), (2, "no")):
        assert services.play(hand.pk, users[p], {"action": "decide", "value": value}, hand.version).ok
        hand.refresh_from_db()
    # a partial answer is not shown to anyone
    assert "客人1 顶底" not in _page(users[3], room)
    assert "已选择，等待其他玩家" in _page(users[1], room)
    assert services.play(hand.pk, users[3], {"action": "decide", "value": "no"}, hand.version).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.turn == 0
    assert state.rules.bought(state) and state.rules.topped(state) == (1,)
    page = _page(users[3], room)
    assert "客人1 顶底" in page and 'id="decision-prompt"' not in page
    # the dealer's hand: exactly the legal discards are buttons, the rest (wilds, a suit tile while
    # holding a lone honour) shown dimmed
    legal = {face_name(a.tile) for a in engine.legal_actions(state, 0) if a.kind == "discard"}
    dealer_page = _page(users[0], room)
    hand_html = dealer_page[dealer_page.index('id="hand"'):dealer_page.index('id="actions"')]
    buttons = set(re.findall(r'<button type="button" class="mtile[^"]*" data-tile="([^"]+)"', hand_html))
    assert buttons == legal
    held = {face_name(t) for t in state.hands[0]}
    locked = set(re.findall(r'class="mtile[^"]*\blocked\b[^"]*"[^>]*data-tile="([^"]+)"', hand_html))
    assert locked == held - legal and locked  # this seed deals the dealer a wild or a lone honour


def test_an_unanswered_question_takes_its_default_and_is_not_a_missed_turn(wenzhou_room):
    room = wenzhou_room
    hand = _deal(room)
    later = timezone.now() + timedelta(minutes=5)
    assert services.timeout(hand.pk, hand.version, now=later).ok  # the dealer did not answer: no buy
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.decision.name == "top"
    assert services.timeout(hand.pk, hand.version, now=later).ok  # nobody topped
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and not state.rules.bought(state) and state.rules.topped(state) == ()
    assert list(HandEvent.objects.filter(hand=hand, auto=True).values_list("action__value", flat=True)) == ["no"] * 4
    assert all(s.timeouts == 0 and not s.auto_play for s in room.seats.all())


def test_seats_on_auto_play_answer_at_once(wenzhou_room):
    room = wenzhou_room
    room.seats.exclude(position=0).update(auto_play=True)
    hand = _deal(room)
    users = users_by_position(room)
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "no"}, hand.version).ok
    hand.refresh_from_db()
    assert services.hand_state(hand).phase == engine.DISCARD  # the three 托管 seats did not top


def _play_game(room, rng):
    """Every hand of the room to the end (random legal moves, wins taken, random buy/top)."""
    users = users_by_position(room)

    def policy(state, p):
        acts = engine.legal_actions(state, p)
        wins = [a for a in acts if a.kind == "win"]
        return wins[0] if wins else rng.choice(acts)

    hands = []
    while True:
        room.refresh_from_db()
        if room.status != Room.PLAYING and hands:
            return hands
        hand = _deal(room)
        if hands and hand.pk == hands[-1].pk:
            return hands
        hands.append(play_hand(hand, users, policy=policy, limit=3000))


def test_whole_games_carry_the_streak_and_base_and_replays_verify(wenzhou_room):
    room = wenzhou_room
    rng = random.Random(7)
    hands = _play_game(room, rng)
    room.refresh_from_db()
    assert room.status == Room.FINISHED and len(hands) >= 4
    game = room.game
    totals = [0] * 4
    for before, after in zip(hands, hands[1:]):
        state = services.hand_state(before)
        dealer, carry = engine.next_hand(state)
        assert (after.dealer, after.carry) == (dealer, carry)
    for hand in hands:
        hand.refresh_from_db()
        state = services.hand_state(hand)
        assert state.get_extra("base", 3) == hand.carry.get("base", 3)
        result = hand.result
        assert sum(result["net"]) == 0
        totals = [a + b for a, b in zip(totals, result["net"])]
        for t in result["transfers"]:
            assert t["why"] in ("win", "caishen")
        replay = replays.build(hand.pk)
        assert replay.status == Replay.OK, replay.problem
        assert replay.data["carry"] == hand.carry
    assert game.totals == totals


def test_a_kept_deal_shows_its_base_and_keeps_its_obligations(wenzhou_room):
    """The third hand of a dealer who bought, with South topping (the carry of engine.next_hand):
    the base is 3 + 2 + 2, the bar says 连庄第 3 局, nobody is asked again but West and North."""
    room = wenzhou_room
    Game.objects.create(room=room, first_dealer=0, dealer=0, totals=[0] * 4,
                        carry={"streak": 3, "base": 7, "bought": True, "topped": [1]})
    Room.objects.filter(pk=room.pk).update(status=Room.PLAYING)
    hand = _deal(room)
    users = users_by_position(room)
    assert hand.carry == {"streak": 3, "base": 7, "bought": True, "topped": [1]}
    state = services.hand_state(hand)
    assert state.decision.name == "top" and state.decision.seats == (2, 3)  # the dealer is not asked
    page = _page(users[1], room)
    assert 'class="hand-base">7<' in page and "连庄第 3 局" in page and "庄家买底" in page
    assert "南家小李 顶底" in page or "客人1 顶底" in page
    assert "act-decide-yes" not in page  # South is obliged, not asked
    for p in (2, 3):
        assert services.play(hand.pk, users[p], {"action": "decide", "value": "no"}, hand.version).ok
        hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.rules.topped(state) == (1,) and state.rules.bought(state)
    assert replays.verify(replays.record_of(hand))[1].rules.base(state) == 7


def test_the_result_shows_caishen_money_and_points_in_english(wenzhou_room):
    room = wenzhou_room
    users = users_by_position(room)
    rng = random.Random(11)
    for _ in range(12):
        hand = _deal(room)

        def policy(state, p):
            acts = engine.legal_actions(state, p)
            wins = [a for a in acts if a.kind == "win"]
            return wins[0] if wins else rng.choice(acts)

        hand = play_hand(hand, users, policy=policy, limit=3000)
        if any(t["why"] == "caishen" for t in hand.result["transfers"]):
            break
        room.refresh_from_db()
        if room.status != Room.PLAYING:
            raise AssertionError("the game ended without 财神钱: choose another seed")
    else:
        raise AssertionError("no 财神钱 in 12 hands: choose another seed")
    page = _page(users[0], room)
    assert "财神钱" in page and " 分（" in page
    winner = hand.result["winner"]
    kind = hand.result["scores"][winner]["kind"]
    assert {"soft": "软胡 ×1", "hard": "硬胡 ×2", "double": "双翻 ×4"}[kind] in page
    en = _page(users[0], room, lang="en")
    assert "Wild money" in en and " pts (" in en


def test_commands_for_a_decision_are_checked_on_the_socket_path():
    from games.consumers import BadMessage, parse_message

    assert parse_message({"action": "decide", "value": "yes", "v": 3})["value"] == "yes"
    for bad in ({"action": "decide", "v": 3}, {"action": "decide", "value": True, "v": 3},
                {"action": "decide", "value": "x" * 40, "v": 3}, {"action": "decide", "value": ["yes"], "v": 3}):
        with pytest.raises(BadMessage):
            parse_message(bad)


def test_command_for_carries_the_choice():
    assert command_for(engine.Action("decide", 0, value="no")) == {"action": "decide", "value": "no"}


def test_answers_to_one_question_given_at_once_both_count(wenzhou_room):
    """Two non-dealers tap 顶底 / 不顶 on the same screen (version): neither is refused as stale;
    an answer from the screen of the earlier question (买底) still is."""
    room = wenzhou_room
    hand = _deal(room)
    users = users_by_position(room)
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "no"}, hand.version).ok
    hand.refresh_from_db()
    seen = hand.version
    assert services.play(hand.pk, users[1], {"action": "decide", "value": "yes"}, seen).ok
    assert services.play(hand.pk, users[2], {"action": "decide", "value": "no"}, seen).ok
    assert services.play(hand.pk, users[3], {"action": "decide", "value": "no"}, seen - 1).code == "stale"
    hand.refresh_from_db()
    assert services.play(hand.pk, users[3], {"action": "decide", "value": "no"}, hand.version).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.rules.topped(state) == (1,)
