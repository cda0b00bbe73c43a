"""A Zhuji (诸暨麻将) room end to end through games.services and the room page: the create-room
options (翻/包, wild faces, 底分), the 包 contract named by the dealer at the table before the
first discard (a grid of target × wild faces, a deadline whose default is 2 台 with the room's
number of faces, 托管 answering at once), the wild faces, contract and 老庄 shown, whole hands
played to the end with the carry (老庄, streak) and replays that verify, and the 分 unit
(shared/rules/zhuji.md §1, §2, §5; Z-D8, Z-S12)."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import replays, services
from games.engine import game as engine
from games.engine.tiles import face_label
from games.models import Game, Hand, HandEvent, Replay, Room, Seat
from tests.people import make_person
from tests.replay_helpers import command_for, play_hand, users_by_position

pytestmark = pytest.mark.django_db


def _room(settings, **room_settings):
    settings.GAME_SEED_BASE = "zhuji-tests"
    host = make_person("zj_host", "东家老王")
    room = services.create_room(host, variant="zhuji", players=4, length=4, settings=room_settings)
    for i in range(1, 4):
        services.join_room(make_person(f"zj_guest{i}", f"客人{i}"), room.token)
    return room


@pytest.fixture
def bao_room(settings):
    """Four people at a Zhuji table in 包 mode (one wild face by default, 底分 2)."""
    return _room(settings, mode="bao", wild_faces=1, unit=2)


@pytest.fixture
def fan_room(settings):
    """Four people at a Zhuji table in 翻 mode with two wild faces."""
    return _room(settings, mode="fan", wild_faces=2)


def _deal(room) -> Hand:
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    return Hand.objects.filter(game__room=room).order_by("-number").first()


def _page(user, room, lang="zh") -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def _play_game(room, rng, policy=None):
    """Every hand of the room to the end (random legal moves, wins taken, random contracts)."""
    users = users_by_position(room)

    def random_policy(state, p):
        acts = engine.legal_actions(state, p)
        wins = [a for a in acts if a.kind == "win"]
        return wins[0] if wins else rng.choice(acts)

    hands = []
    while True:
        room.refresh_from_db()
        if room.status != Room.PLAYING and hands:
            return hands
        playing = Hand.objects.filter(game__room=room, status=Hand.PLAYING).first()
        hand = playing or _deal(room)
        if hands and hand.pk == hands[-1].pk:
            return hands
        hands.append(_play(hand, users, policy or random_policy))


def _play(hand, users, policy):
    """play_hand, except that a seat whose player left (逃跑) is played by the timeout (the bot)."""
    left = set(Seat.objects.filter(room=hand.game.room, escaped=True).values_list("position", flat=True))
    for _ in range(3000):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            return hand
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        if p in left:
            assert services.timeout(hand.pk, hand.version, now=hand.deadline).ok
            continue
        action = policy(state, p)
        assert services.play(hand.pk, users[p], command_for(action), hand.version).ok
    raise AssertionError("the hand did not end")


def test_the_lobby_form_creates_a_zhuji_room(host):
    client = Client()
    client.force_login(host)
    form = {"variant": "zhuji", "players": "3", "length": "hands:8", "stake": "50", "turn_seconds": "20",
            "claim_seconds": "8", "min_balance": "0", "mode": "bao", "wild_faces": "2", "unit": "5",
            "odd_base": "True"}
    response = client.post("/lobby/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    room = Room.objects.get(host=host)
    assert (room.variant, room.players) == ("zhuji", 3)
    assert room.settings == {"mode": "bao", "wild_faces": 2, "unit": 5}  # Wenzhou's odd_base ignored
    page = client.get(f"/room/{room.pk}/").content.decode()
    assert "诸暨麻将" in page and "50 金豆/分" in page


def test_the_lobby_offers_zhuji_with_its_own_settings(host):
    client = Client()
    client.force_login(host)
    page = client.get("/lobby/").content.decode()
    assert '<option value="zhuji"' in page
    for name in ("mode", "wild_faces", "unit"):
        assert re.search(rf'<select name="{name}"[^>]*data-variants="zhuji"', page), name
    assert "包（庄家每局先定包）" in page and "两个财神（8 张）" in page


@pytest.mark.parametrize("bad", [{"mode": "xinli"}, {"wild_faces": 3}, {"unit": 3}])
def test_a_bad_zhuji_setting_is_refused(host, bad):
    with pytest.raises(services.ServiceError):
        services.create_room(host, variant="zhuji", settings=bad)
    assert not Room.objects.filter(host=host).exists()


def test_the_dealer_names_the_contract_at_the_table(bao_room):
    room = bao_room
    hand = _deal(room)
    users = users_by_position(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DECIDE and state.decision.name == "contract" and state.decision.seats == (0,)
    assert hand.deadline is not None
    dealer_page = _page(users[0], room)
    assert 'id="contract-grid"' in dealer_page and "你是庄家，请定包" in dealer_page
    # 5 targets x 3 numbers of faces, each a button; a share shown per row (底分 2: 2 台 = 10 分)
    assert len(re.findall(r'data-contract="\d:\d"', dealer_page)) == 15
    assert "2 台 <small>10 分</small>" in dealer_page and "6 台 <small>160 分</small>" in dealer_page
    assert "时间到了按“包 2 台 · 一个财神”处理" in dealer_page
    assert "定包后翻出" in dealer_page  # no wild face before the contract
    other = _page(users[1], room)
    assert "等待 东家老王 选择定包" in other and "contract-grid" not in other

    # only the dealer answers, only with an offered choice, and nothing else before it
    assert services.play(hand.pk, users[1], {"action": "decide", "value": "2:1"}, hand.version).code == "no_decision"
    for bad in ("7:1", "1:1", "2:3", "x", "2"):
        assert services.play(hand.pk, users[0], {"action": "decide", "value": bad}, hand.version).code == "bad_choice"
    assert services.play(hand.pk, users[0], {"action": "discard", "tile": "1m"}, hand.version).code == "must_decide"
    hand.refresh_from_db()
    assert hand.version == 0
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "3:2"}, hand.version).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.turn == 0
    assert state.rules.contract(state) == (3, 2) and len(state.rules.wild_faces(state)) == 2
    page = _page(users[2], room)
    assert "包 3 台" in page and "底分 2" in page and 'id="decision-prompt"' not in page
    for face in state.rules.wild_faces(state):
        assert face_label(face, "zh") in page  # both wild faces on the bar
    # the dealer's own wilds are marked 财 in the hand
    dealer_page = _page(users[0], room)
    hand_html = dealer_page[dealer_page.index('id="hand"'):dealer_page.index('id="actions"')]
    wild_codes = {f"{f % 9 + 1}{'mpsz'[f // 9]}" for f in state.rules.wild_faces(state)}
    held = [t for t in re.findall(r'data-tile="([^"]+)"', hand_html)]
    marked = set(re.findall(r'class="mtile[^"]*\bwild\b[^"]*"[^>]*data-tile="([^"]+)"', hand_html))
    assert marked == {c for c in held if c in wild_codes}


def test_an_unanswered_contract_takes_the_default_and_is_not_a_missed_turn(bao_room):
    room = bao_room
    hand = _deal(room)
    later = timezone.now() + timedelta(minutes=5)
    assert services.timeout(hand.pk, hand.version, now=later).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.rules.contract(state) == (2, 1)
    assert len(state.rules.wild_faces(state)) == 1
    assert list(HandEvent.objects.filter(hand=hand, auto=True).values_list("action__value", flat=True)) == ["2:1"]
    assert all(s.timeouts == 0 and not s.auto_play for s in room.seats.all())


def test_a_dealer_on_auto_play_names_the_default_at_once(bao_room):
    room = bao_room
    room.seats.filter(position=0).update(auto_play=True)
    hand = _deal(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.rules.contract(state) == (2, 1)


def test_fan_mode_draws_two_faces_without_a_question(fan_room):
    room = fan_room
    hand = _deal(room)
    users = users_by_position(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and len(state.rules.wild_faces(state)) == 2
    page = _page(users[3], room)
    assert 'id="decision-prompt"' not in page and "跳牌" not in page.split('id="table"')[1].split("</section>")[0]
    assert 'class="badge mode-fan"' in page


def test_whole_bao_games_settle_through_the_ledger_and_replays_verify(bao_room):
    room = bao_room
    rng = random.Random(5)
    hands = _play_game(room, rng)
    room.refresh_from_db()
    assert room.status == Room.FINISHED and len(hands) >= 4
    totals = [0] * 4
    whys = set()
    for before, after in zip(hands, hands[1:]):
        dealer, carry = engine.next_hand(services.hand_state(before))
        assert (after.dealer, after.carry) == (dealer, carry)
    for hand in hands:
        hand.refresh_from_db()
        result = hand.result
        assert sum(result["net"]) == 0
        totals = [a + b for a, b in zip(totals, result["net"])]
        whys |= {t["why"] for t in result["transfers"]}
        if result["transfers"]:
            assert sum(int(v) for v in result["beans"]["paid"].values()) == 0
        replay = replays.build(hand.pk)
        assert replay.status == Replay.OK, replay.problem
    assert whys <= {"win", "contract"}
    assert room.game.totals == totals


def test_a_failed_contract_is_paid_by_the_dealer(bao_room):
    """Nobody wins (every seat passes its wins) until 26 tiles are left: the dealer pays each
    player one share (2 台, 底分 2: 10 分 × the stake), keeps the deal and the next hand is 老庄."""
    room = bao_room
    users = users_by_position(room)
    hand = _deal(room)

    def never_win(state, p):
        acts = [a for a in engine.legal_actions(state, p) if a.kind not in ("win",)]
        decide = [a for a in acts if a.kind == "decide"]
        if decide:
            return next(a for a in decide if a.value == "2:1")
        discards = [a for a in acts if a.kind == "discard"]
        return discards[-1] if discards else next(a for a in acts if a.kind == "pass")

    hand = play_hand(hand, users, policy=never_win, limit=3000)
    result = hand.result
    assert result["winner"] is None
    assert [(t["from"], t["amount"], t["why"]) for t in result["transfers"]] == [(0, 10, "contract")] * 3
    assert result["beans"]["paid"] == {"0": -3000, "1": 1000, "2": 1000, "3": 1000}
    page = _page(users[1], room)
    assert "包输" in page and "东家老王 付给每家一份包" in page
    nxt = _deal(room)
    assert nxt.dealer == 0 and nxt.carry.get("laozhuang") is True
    state = services.hand_state(nxt)
    page = _page(users[0], room)
    assert "老庄 ×2" in page and "2 台 <small>20 分</small>" in page  # 老庄 doubles the share
    replay = replays.build(hand.pk)
    assert replay.status == Replay.OK, replay.problem
    assert state.rules.laozhuang(state)


def test_english_words_for_the_contract(bao_room):
    room = bao_room
    _deal(room)
    page = _page(users_by_position(room)[0], room, lang="en")
    assert "You are the dealer: name the contract" in page and "Contract 2 台 · one wild face" in page


# --- 逃跑: leaving a game in progress (§3, Z-D11, Z-S10, Z-S13) ---------------------------------

def _balances(room):
    from accounts.beans import wallet_for

    return {p: wallet_for(u).balance for p, u in users_by_position(room).items()}


def test_leaving_costs_the_penalty_through_the_ledger_and_the_seat_plays_on(bao_room):
    from accounts.models import LedgerEntry
    from games.models import Escape

    room = bao_room
    users = users_by_position(room)
    hand = _deal(room)
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "2:1"}, hand.version).ok
    before = _balances(room)
    page = _page(users[2], room)
    assert "逃跑（离开牌局）" in page and "逃跑要付 60 分（6,000 金豆）给其他玩家" in page

    record = services.escape(users[2], room.pk)
    # 30 × 底分 2 = 60 分, 20 to each of the three others; × the stake 100 in beans
    assert [(t["from"], t["to"], t["amount"]) for t in record.transfers] == [(2, 0, 20), (2, 1, 20), (2, 3, 20)]
    after = _balances(room)
    assert {p: after[p] - before[p] for p in after} == {0: 2000, 1: 2000, 2: -6000, 3: 2000}
    rows = LedgerEntry.objects.filter(reason=LedgerEntry.ESCAPE)
    assert rows.count() == 4 and sum(r.amount for r in rows) == 0
    assert record.paid == {"0": 2000, "1": 2000, "2": -6000, "3": 2000}
    room.refresh_from_db()
    assert room.game.totals == [20, 20, -60, 20]
    seat = room.seats.get(position=2)
    assert seat.escaped and seat.auto_play

    # cannot leave twice, cannot take the seat back
    with pytest.raises(services.ServiceError) as e:
        services.escape(users[2], room.pk)
    assert e.value.code == "already_left"
    with pytest.raises(services.ServiceError) as e:
        services.set_auto_play(users[2], room.pk, False)
    assert e.value.code == "already_left"
    assert Escape.objects.count() == 1 and LedgerEntry.objects.filter(reason=LedgerEntry.ESCAPE).count() == 4
    hand.refresh_from_db()
    state = services.hand_state(hand)
    for action in engine.legal_actions(state, 2):  # the seat is the bot's now: the person's commands are refused
        assert services.play(hand.pk, users[2], command_for(action), hand.version).code == "already_left"

    others = _page(users[1], room)
    assert "已逃跑" in others
    own = _page(users[2], room)
    assert "你已经离开了这场牌局（逃跑）" in own and "逃跑（离开牌局）" not in own and "取消托管" not in own

    # the game goes on to the end with the seat on 托管, and the final beans include the penalty
    rng = random.Random(3)
    hands = _play_game(room, rng)
    room.refresh_from_db()
    assert room.status == Room.FINISHED
    from games.table import game_beans

    moved = game_beans(room.game)
    ledger = {p: _balances(room)[p] - before[p] for p in before}
    assert moved == ledger
    auto_moves = HandEvent.objects.filter(hand__in=hands[1:], auto=True, action__seat=2).count()
    assert auto_moves > 0
    client = Client()
    client.force_login(users[0])
    history = client.get(f"/history/{room.game.pk}/").content.decode()
    assert 'class="hist-escape"' in history and "客人2 逃跑" in history
    row = history[history.index('class="hist-escape"'):]
    row = row[:row.index("</tr>")]
    assert re.findall(r'<span class="hu [^"]*">([^<]*)</span>', row) == ["+20", "+20", "-60", "+20"]


def test_leaving_is_only_for_rules_that_have_it_and_only_during_the_game(settings, bao_room):
    room = bao_room
    users = users_by_position(room)
    with pytest.raises(services.ServiceError) as e:
        services.escape(users[1], room.pk)  # not started yet: leave the room instead
    assert e.value.code == "not_playing"
    host = make_person("tz_host", "台州房主")
    taizhou = services.create_room(host, variant="taizhou", players=2, length=4)
    guest = make_person("tz_guest", "台州客人")
    services.join_room(guest, taizhou.token)
    for user in (host, guest):
        services.set_ready(user, taizhou.pk)
    with pytest.raises(services.ServiceError) as e:
        services.escape(guest, taizhou.pk)
    assert e.value.code == "no_escape"
    assert "逃跑" not in _page(guest, taizhou)
    _deal(room)
    with pytest.raises(services.ServiceError) as e:
        services.escape(make_person("zj_outsider", "路人"), room.pk)
    assert e.value.code == "not_seated"


def test_leaving_is_cut_to_the_balance(bao_room):
    from accounts.beans import adjust
    from accounts.models import LedgerEntry

    room = bao_room
    users = users_by_position(room)
    hand = _deal(room)
    services.play(hand.pk, users[0], {"action": "decide", "value": "2:1"}, hand.version)
    poor = users[3]
    balance = _balances(room)[3]
    staff = make_person("zj_staff", "客服", is_staff=True)
    adjust(staff, poor, -(balance - 1500), "test: almost broke", key="zj-test-broke")
    record = services.escape(poor, room.pk)
    assert record.paid["3"] == -1500 and record.owed["3"] == -6000 and "balance" in record.reasons["3"]
    assert sum(record.paid.values()) == 0
    assert _balances(room)[3] == 0
    assert LedgerEntry.objects.filter(reason=LedgerEntry.ESCAPE, amount__lt=0).count() == 1


def test_staff_see_who_left_in_the_admin(bao_room):
    room = bao_room
    users = users_by_position(room)
    hand = _deal(room)
    services.play(hand.pk, users[0], {"action": "decide", "value": "2:1"}, hand.version)
    services.escape(users[1], room.pk)
    staff = make_person("zj_admin", "客服小张", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(staff)
    listing = client.get("/admin/games/escape/").content.decode()
    assert "客人1" in listing and "<td class=\"field-penalty\">60</td>" in listing and "1: -6000" in listing
    room_page = client.get(f"/admin/games/room/{room.pk}/change/").content.decode()
    assert "已逃跑" in room_page
    from accounts.models import LedgerEntry

    assert LedgerEntry.objects.filter(reason=LedgerEntry.ESCAPE).first().get_reason_display() == "逃跑罚分"


def test_history_and_replays_of_a_zhuji_game(fan_room):
    room = fan_room
    hands = _play_game(room, random.Random(9))
    game = Game.objects.get(room=room)
    client = Client()
    client.force_login(users_by_position(room)[1])
    history = client.get("/history/").content.decode()
    assert "诸暨麻将" in history
    page = client.get(f"/history/{game.pk}/").content.decode()
    assert "诸暨麻将" in page and "本局输赢（分）" in page and "（胡）" not in page
    for hand in hands:
        response = client.get(f"/history/{game.pk}/hand/{hand.number}/replay/", follow=True)
        assert response.status_code == 200
        html = response.content.decode()
        assert "校验不一致" not in html and "未能通过校验" not in html
        assert "跳牌" not in html  # no indicator in Zhuji: the wild faces instead
        assert html.count("财神") >= 1
