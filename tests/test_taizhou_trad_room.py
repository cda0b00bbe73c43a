"""A traditional Taizhou (传统台州麻将) room end to end through games.services and the room page:
the create-room options (弹, 扔弹 on or off), the 扔弹 questions asked of every seat before the
deal (one per other seat, a deadline whose default is none, 托管 answering at once, nobody's
answer shown before every seat has answered), the throws agreed shown on the table and carried
while the dealer keeps the deal, flowers per seat, the 生牌 stage's warning with the faces still
生, 点炮 named 点炮 (never 全包), whole games through the bean ledger with the stake converting
子 to beans and replays that verify, history and the admin in 子
(shared/rules/taizhou-traditional.md §1-§8; T-D4, T-S10, T-S11, T-S15, T-S16)."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.cutting import beans_of
from games import replays, services
from games.engine import bot
from games.engine import game as engine
from games.engine.tiles import face_label, face_name, parse_tile
from games.engine.variants import taizhou_trad
from games.models import Game, Hand, HandEvent, Replay, Room
from tests.people import make_person
from tests.replay_helpers import command_for, play_hand, users_by_position

pytestmark = pytest.mark.django_db


NAMES = ("东家老王", "客人1", "客人2", "客人3")
THROW_BAR = re.compile(r'data-throw="(\d+)-(\d+):(\d+)"')


def _room(settings, players=4, **room_settings):
    settings.GAME_SEED_BASE = "trad-tests"
    host = make_person("tt_host", NAMES[0])
    room = services.create_room(host, variant="taizhou_trad", players=players, length=4, settings=room_settings)
    for i in range(1, players):
        services.join_room(make_person(f"tt_guest{i}", NAMES[i]), room.token)
    return room


@pytest.fixture
def dan_room(settings):
    """Four people at a traditional Taizhou table with 弹 5 and 扔弹 on (the default)."""
    return _room(settings, dan=5)


@pytest.fixture
def quiet_room(settings):
    """Three people at a traditional Taizhou table without 扔弹 (弹 0, the default)."""
    return _room(settings, players=3, throws=False)


def _deal(room) -> Hand:
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    return Hand.objects.filter(game__room=room).order_by("-number").first()


def _page(user, room, lang="zh") -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/room/{room.pk}/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()


def _answer_all(hand, users, value="0"):
    """Every seat answers every 扔弹 question with `value` (a {position: value} dict, or one value)."""
    for _ in range(40):
        hand.refresh_from_db()
        state = services.hand_state(hand)
        if state.phase != engine.DECIDE:
            return state
        p = engine.waiting_player(state)[0]
        v = value.get(p, "0") if isinstance(value, dict) else value
        assert services.play(hand.pk, users[p], {"action": "decide", "value": v}, hand.version).ok
    raise AssertionError("the questions did not end")


def _random_policy(rng):
    """A win when offered, the throws at random, every other move the bot's: hands end in wins
    (not only 黄牌) whatever walls the room's id deals (ids differ between SQLite and PostgreSQL)."""
    def policy(state, p):
        acts = engine.legal_actions(state, p)
        wins = [a for a in acts if a.kind == "win"]
        if wins:
            return wins[0]
        if state.phase == engine.DECIDE:
            return rng.choice(acts)
        return bot.choose(state, p)
    return policy


def _play_game(room, rng):
    users = users_by_position(room)
    hands = []
    while True:
        room.refresh_from_db()
        if room.status != Room.PLAYING and hands:
            return hands
        playing = Hand.objects.filter(game__room=room, status=Hand.PLAYING).first()
        hand = playing or _deal(room)
        if hands and hand.pk == hands[-1].pk:
            return hands
        hands.append(play_hand(hand, users, policy=_random_policy(rng), limit=3000))


# --- the create-room form --------------------------------------------------------------------

def test_the_lobby_form_creates_a_taizhou_trad_room(host):
    client = Client()
    client.force_login(host)
    form = {"variant": "taizhou_trad", "players": "3", "length": "hands:8", "stake": "50", "turn_seconds": "20",
            "claim_seconds": "8", "min_balance": "0", "dan": "10", "throws": "False", "mode": "bao", "odd_base": "True"}
    response = client.post("/lobby/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    room = Room.objects.get(host=host)
    assert (room.variant, room.players) == ("taizhou_trad", 3)
    assert room.settings == {"dan": 10, "throws": False}  # Zhuji's mode and Wenzhou's odd_base ignored
    page = client.get(f"/room/{room.pk}/").content.decode()
    assert "传统台州麻将" in page and "50 金豆/子" in page
    rules = page[page.index('class="rules-list"'):]
    assert 'data-dan="10"' in rules and "不扔弹" in rules


def test_the_lobby_offers_taizhou_trad_with_its_own_settings(host):
    client = Client()
    client.force_login(host)
    page = client.get("/lobby/").content.decode()
    assert '<option value="taizhou_trad"' in page
    for name in ("dan", "throws"):
        assert re.search(rf'<select name="{name}"[^>]*data-variants="taizhou_trad"', page), name
    dan = re.search(r'<select name="dan".*?</select>', page, re.S).group(0)
    assert re.findall(r'<option value="(\d+)"', dan) == [str(d) for d in taizhou_trad.DAN_CHOICES]
    assert re.search(r'<option value="0" selected>0（不打弹）</option>', dan)  # T-S11: 弹 0 by default
    throws = re.search(r'<select name="throws".*?</select>', page, re.S).group(0)
    assert re.search(r'<option value="True" selected>可以扔弹', throws)  # T-S11: 扔弹 on by default
    assert "传统台州：每子多少金豆" in page


def test_the_defaults_are_no_dan_and_throws_on(host):
    room = services.create_room(host, variant="taizhou_trad", players=2)
    assert room.settings == {"dan": 0, "throws": True}


@pytest.mark.parametrize("bad", [{"dan": 3}, {"dan": -1}, {"throws": "maybe"}, {"mode": "bao"}])
def test_a_bad_taizhou_trad_setting_is_refused(host, bad):
    with pytest.raises(services.ServiceError):
        services.create_room(host, variant="taizhou_trad", settings=bad)
    assert not Room.objects.filter(host=host).exists()


def test_the_form_refuses_a_bad_dan(host):
    client = Client()
    client.force_login(host)
    form = {"variant": "taizhou_trad", "players": "4", "length": "hands:8", "stake": "100", "turn_seconds": "15",
            "claim_seconds": "8", "dan": "3"}
    response = client.post("/lobby/", form)
    assert response.status_code == 200 and not Room.objects.filter(host=host).exists()


# --- 扔弹 before the deal (§2; T-D4, T-S10, T-S15) ----------------------------------------------

def test_every_seat_is_asked_about_each_other_seat_before_the_deal(dan_room):
    room = dan_room
    users = users_by_position(room)
    hand = _deal(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DECIDE and state.decision.name == "throw_1"
    assert sorted(state.decision.seats) == [0, 1, 2, 3] and not any(state.hands)  # before the deal
    assert hand.deadline is not None
    for p in range(4):
        page = _page(users[p], room)
        prompt = page[page.index('id="decision-prompt"'):page.index('</section>', page.index('id="decision-prompt"'))]
        # the 下家 of seat p, named; seven answers, none (不扔) first and the default
        assert f"你向下家 {NAMES[(p + 1) % 4]} 扔几弹？" in prompt and "扔弹（第 1/3 问）" in prompt
        values = re.findall(r'data-throw-value="(\d+)"', prompt)
        assert values == list(taizhou_trad.THROW_CHOICES)
        assert re.search(r'data-throw-value="0" data-default>不扔<', prompt)
        assert "时间到了按“不扔”处理。" in prompt and 'class="countdown"' in prompt
        assert "扔弹后发牌" in page  # no tiles yet
        assert 'id="shengpai-alert"' not in page

    # seat 0 throws 5 at its 下家: nobody else sees it until every seat has answered
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "5"}, hand.version).ok
    hand.refresh_from_db()
    own = _page(users[0], room)
    assert "已选择，等待其他玩家。" in own and 'data-throw-value' not in own
    for p in (1, 2, 3):
        page = _page(users[p], room)
        assert "data-throw=" not in page and "5 弹" not in page.replace('data-throw-value="5">5 弹', "")
    # a seat that already answered, and a value not offered, are refused
    assert services.play(hand.pk, users[0], {"action": "decide", "value": "2"}, hand.version).code == "no_decision"
    assert services.play(hand.pk, users[1], {"action": "decide", "value": "7"}, hand.version).code == "bad_choice"
    assert services.play(hand.pk, users[1], {"action": "discard", "tile": "1m"}, hand.version).code == "must_decide"
    for p, v in ((1, "0"), (2, "10"), (3, "0")):
        hand.refresh_from_db()
        assert services.play(hand.pk, users[p], {"action": "decide", "value": v}, hand.version).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.decision.name == "throw_2"  # the 对家 next
    page = _page(users[1], room)
    assert f"你向对家 {NAMES[3]} 扔几弹？" in page and "扔弹（第 2/3 问）" in page
    assert sorted(THROW_BAR.findall(page)) == [("0", "1", "5"), ("2", "3", "10")]  # public now, on every table
    assert re.findall(r'data-stake="(\d+)"', page) == ["5"]  # on the head of seat 0: the stake between it and me
    # 对家 round: seat 0 at seat 2; 上家 round: seat 1 throws 2 at seat 0 (now 7 between them)
    for p in range(4):
        hand.refresh_from_db()
        assert services.play(hand.pk, users[p], {"action": "decide", "value": "20" if p == 0 else "0"}, hand.version).ok
    hand.refresh_from_db()
    page = _page(users[1], room)
    assert f"你向上家 {NAMES[0]} 扔几弹？" in page and "你和 东家老王 之间已经有 5 弹" in page
    state = _answer_all(hand, users, {1: "2"})
    assert state.phase == engine.DISCARD and len(state.hands[0]) + state.rules.flowers(state)[0] >= 14
    assert state.rules.throws(state) == [{"by": 0, "at": 1, "amount": 5}, {"by": 2, "at": 3, "amount": 10},
                                         {"by": 0, "at": 2, "amount": 20}, {"by": 1, "at": 0, "amount": 2}]
    page = _page(users[3], room)
    assert sorted(THROW_BAR.findall(page)) == [("0", "1", "7"), ("0", "2", "20"), ("2", "3", "10")]
    assert 'id="decision-prompt"' not in page and '弹</span> <b class="hand-dan">5</b>' in page
    heads = re.findall(r'<div class="player-head">(.*?)</div>', page, re.S)  # 上家 (2), 对家 (1), 下家 (0), me (3)
    assert [re.findall(r'data-stake="(\d+)"', h) for h in heads] == [["10"], [], [], []]
    heads = re.findall(r'<div class="player-head">(.*?)</div>', _page(users[0], room), re.S)  # 3, 2, 1, me (0)
    assert [re.findall(r'data-stake="(\d+)"', h) for h in heads] == [[], ["20"], ["7"], []]


def test_unanswered_throws_are_none_and_not_a_missed_turn(dan_room):
    room = dan_room
    hand = _deal(room)
    for k in (1, 2, 3):
        hand.refresh_from_db()
        state = services.hand_state(hand)
        assert state.decision.name == f"throw_{k}"
        assert services.timeout(hand.pk, hand.version, now=timezone.now() + timedelta(minutes=5)).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.rules.throws(state) == []
    answers = [row.action["value"] for row in HandEvent.objects.filter(hand=hand, auto=True)]
    assert answers == ["0"] * 12
    assert all(s.timeouts == 0 and not s.auto_play for s in room.seats.all())


def test_a_seat_on_auto_play_answers_none_at_once(dan_room):
    room = dan_room
    users = users_by_position(room)
    room.seats.filter(position=2).update(auto_play=True)
    hand = _deal(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DECIDE and engine.waiting_player(state) == [0, 1, 3]
    state = _answer_all(hand, users, "5")
    assert state.phase == engine.DISCARD
    assert {(t["by"], t["amount"]) for t in state.rules.throws(state)} == {(0, 5), (1, 5), (3, 5)}


def test_without_throws_the_hand_is_dealt_at_once(quiet_room):
    room = quiet_room
    users = users_by_position(room)
    hand = _deal(room)
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.indicator is not None
    page = _page(users[1], room)
    assert 'id="decision-prompt"' not in page and 'id="throws"' not in page
    assert "hand-dan" not in page  # 弹 0: nothing to show


def test_throws_are_kept_while_the_dealer_keeps_the_deal(dan_room):
    """The carry of a hand the dealer won keeps the throws (and counts the streak); a lost deal
    drops them (§2)."""
    room = dan_room
    hands = _play_game(room, random.Random(11))
    for before, after in zip(hands, hands[1:]):
        state = services.hand_state(before)
        dealer, carry = engine.next_hand(state)
        assert (after.dealer, after.carry) == (dealer, carry)
        if after.dealer == before.dealer:
            assert carry["streak"] == state.rules.streak(state) + 1
            assert carry["throws"] == [list(t) for t in state.get_extra("throws", ())]
        else:
            assert carry == {"streak": 1, "throws": []}


# --- flowers and the 生牌 stage (§1, §3) -----------------------------------------------------

def _play_until(hand, users, stop, rng):
    """Discards and passes only (no win, no claim) until stop(state)."""
    for _ in range(3000):
        hand.refresh_from_db()
        state = services.hand_state(hand)
        if hand.status != Hand.PLAYING or stop(state):
            return state
        p = engine.waiting_player(state)[0]
        acts = engine.legal_actions(state, p)
        if state.phase == engine.DECIDE:
            action = acts[0]
        else:
            action = rng.choice([a for a in acts if a.kind in ("discard", "pass")] or acts)
        assert services.play(hand.pk, users[p], command_for(action), hand.version).ok
    raise AssertionError("never stopped")


def test_flowers_are_shown_per_seat_on_the_table(dan_room):
    room = dan_room
    users = users_by_position(room)
    hand = _deal(room)
    state = _play_until(hand, users, lambda s: s.phase == engine.DISCARD and sum(s.rules.flowers(s)) >= 2,
                        random.Random(3))
    flowers = state.rules.flowers(state)
    face = face_name(state.rules.flower(state))
    for me in range(4):
        page = _page(users[me], room)
        table = page[page.index('id="table"'):page.index('id="hand"')]
        for p in range(4):
            seat = table[table.index(f'data-position="{p}"'):]
            seat = seat[:seat.index('<div class="river"')]
            shown = re.search(r'<span class="meld meld-flowers"[^>]*>(.*?)</span></span>', seat)
            if flowers[p]:
                assert f"花 {flowers[p]}</span>" in seat, (me, p)
                assert shown and shown.group(1).count(f'data-tile="{face}"') == flowers[p], (me, p)
            else:
                assert not shown and "badge flowers" not in seat
        assert f'<span class="k flower-face">花</span><b class="flower-face">{"白板" if face == "5z" else "红中"}</b>' in table


def test_the_shengpai_warning_from_thirty_tiles_left(dan_room):
    room = dan_room
    users = users_by_position(room)
    hand = _deal(room)
    _answer_all(hand, users)
    state = _play_until(hand, users, lambda s: s.phase == engine.DISCARD and len(s.wall) <= 34, random.Random(5))
    if hand.status != Hand.PLAYING:
        pytest.skip("the hand ended early")
    for p in range(4):
        assert 'id="shengpai-alert"' not in _page(users[p], room)
    state = _play_until(hand, users, lambda s: s.phase == engine.DISCARD and taizhou_trad.shengpai_stage(s),
                        random.Random(5))
    assert len(state.wall) in (30, 31) or len(state.wall) < 30
    sheng = taizhou_trad.shengpai_faces(state)
    for p in range(4):
        page = _page(users[p], room)
        alert = page[page.index('id="shengpai-alert"'):]
        alert = alert[:alert.index('class="small sheng-close"')]
        assert "生牌阶段" in alert and "小心点炮" in alert and f"看生牌 {len(sheng)}" in alert
        assert "打出生牌被和要点炮。还没有人打过的牌：" in alert
        # the faces still 生 as pictures (never counted as tiles on the table)
        labels = re.findall(r'<img src="[^"]*/([0-9][mpsz])\.svg"', alert)
        assert labels == [face_name(f) for f in sheng]
        assert "data-tile" not in alert


# --- whole games, beans and replays (§6, §8; T-S16) ------------------------------------------

def test_whole_games_settle_through_the_ledger_and_replays_verify(dan_room):
    from accounts.models import LedgerEntry

    room = dan_room
    hands = _play_game(room, random.Random(5))
    room.refresh_from_db()
    assert room.status == Room.FINISHED and len(hands) >= 4
    totals = [0] * 4
    whys = set()
    for hand in hands:
        hand.refresh_from_db()
        result = hand.result
        assert sum(result["net"]) == 0
        totals = [a + b for a, b in zip(totals, result["net"])]
        whys |= {t["why"] for t in result["transfers"]}
        if result["transfers"]:
            owed = {p: 0 for p in range(4)}
            for t in result["transfers"]:  # 子 × the room's stake, each transfer rounded up
                owed[t["from"]] -= beans_of(t["amount"], room.stake)
                owed[t["to"]] += beans_of(t["amount"], room.stake)
            assert result["beans"]["owed"] == {str(p): v for p, v in owed.items()} or \
                {int(p): v for p, v in result["beans"]["owed"].items()} == owed
            assert sum(int(v) for v in result["beans"]["paid"].values()) == 0
            rows = LedgerEntry.objects.filter(reason=LedgerEntry.HAND, hand=hand)
            assert sum(r.amount for r in rows) == 0 and rows.count() >= 2
        replay = replays.build(hand.pk)
        assert replay.status == Replay.OK, replay.problem
    assert whys <= {"win", "dan", "throw", "non-winners"} and "win" in whys
    assert room.game.totals == totals


def _find_dianpao(hand):
    """The actions of a 点炮 win for this dealt hand, found by re-running it through the engine
    alone (the bot's play, no win before the 生牌 stage, then 生牌 discarded at random), or None.
    The test then plays them through the site."""
    from games.engine import bot

    options = engine.Options.from_dict(hand.options)
    for attempt in range(200):
        rng = random.Random(attempt)
        state, _events = engine.new_hand(options, hand.seed, hand.dealer, hand.carry or None)
        actions = []
        while state.phase != engine.ENDED and len(actions) < 2000:
            p = engine.waiting_player(state)[0]
            acts = engine.legal_actions(state, p)
            late = taizhou_trad.shengpai_stage(state)
            wins = [a for a in acts if a.kind == "win"]
            if state.phase == engine.DECIDE:
                action = acts[0]
            elif wins and late:
                action = wins[0]
            elif state.phase == engine.CLAIM:
                action = next(a for a in acts if a.kind == "pass")
            else:
                sheng = set(taizhou_trad.shengpai_faces(state)) if late and rng.random() < 0.6 else set()
                fresh = [a for a in acts if a.kind == "discard" and a.tile in sheng]
                action = rng.choice(fresh) if fresh else bot.choose(state, p)
                if action.kind == "win":
                    action = next(a for a in acts if a.kind == "discard")
            state, _ = engine.apply(state, action)
            actions.append(action)
        if state.result is not None and state.result.liable_reason == "dianpao":
            return actions
    return None


def test_dianpao_is_named_dianpao_never_quanbao(dan_room):
    room = dan_room
    users = users_by_position(room)
    hand = _deal(room)
    actions = _find_dianpao(hand)
    assert actions, "no 点炮 found for this hand"
    for action in actions:
        hand.refresh_from_db()
        assert services.play(hand.pk, users[action.seat], command_for(action), hand.version).ok
    hand.refresh_from_db()
    result = hand.result
    culprit = result["liable"]
    assert result["liable_reason"] == "dianpao" and culprit == result["discarder"]
    assert all(t["from"] == culprit for t in result["transfers"])  # T-D8: the 点炮 player pays everything
    page = _page(users[0], room)
    res = page[page.index('id="result"'):]
    assert f"点炮：{NAMES[culprit]} 在生牌阶段打出生牌被和，他的分算 0，一家替所有闲家付清。" in res and "全包" not in res
    assert re.search(rf'<h3>{NAMES[culprit]} .*?<span class="badge loser dianpao">点炮</span>', res, re.S)
    replay = replays.build(hand.pk)
    assert replay.status == Replay.OK, replay.problem
    client = Client()
    client.force_login(users[1])
    html = client.get(f"/replay/{replay.token}/?step=last").content.decode()
    assert "点炮：" in html and "全包" not in html
    history = client.get(f"/history/{hand.game.pk}/").content.decode()
    assert f"{NAMES[culprit]} 打生牌点炮" in history


def test_the_result_shows_points_fan_and_the_rounding(dan_room):
    room = dan_room
    users = users_by_position(room)
    from games.engine import bot

    for _ in range(4):  # the bot's play until a hand is won
        hand = play_hand(_deal(room), users, policy=bot.choose, limit=3000)
        if hand.result["winner"] is not None:
            break
    result = hand.result
    assert result["winner"] is not None
    page = _page(users[0], room)
    res = page[page.index('id="result"'):]
    winner = result["scores"][result["winner"]]
    raw = winner["points"] * 2 ** winner["tai"]
    assert f'{winner["points"]} 和 × 2^{winner["tai"]} = {raw} → {winner["total"]}' in res
    assert '<th class="num">和</th><th class="num">番</th>' in res and "臘子" not in res
    assert re.search(r"本局 [+-]?\d+ 子（[+-]?[\d,]+ 金豆）", res)
    if result["discarder"] is not None and result["liable"] is None:
        assert '<span class="badge loser">放冲</span>' in res
    for t in result["transfers"]:
        assert t["why"] in ("win", "dan", "throw", "non-winners")
    if any(t["why"] == "dan" for t in result["transfers"]):
        assert '<span class="badge why-dan">弹</span>' in res


def test_history_admin_and_replays_in_zi(dan_room):
    room = dan_room
    hands = _play_game(room, random.Random(9))
    game = Game.objects.get(room=room)
    users = users_by_position(room)
    client = Client()
    client.force_login(users[1])
    listing = client.get("/history/").content.decode()
    assert "传统台州麻将" in listing and re.search(r"[+-]?\d+ 子", listing)
    page = client.get(f"/history/{game.pk}/").content.decode()
    assert "传统台州麻将" in page and "本局输赢（子）" in page and "（胡）" not in page and "100 金豆/子" in page
    for hand in hands:
        response = client.get(f"/history/{game.pk}/hand/{hand.number}/replay/", follow=True)
        assert response.status_code == 200
        html = response.content.decode()
        assert "校验不一致" not in html and "未能通过校验" not in html
        assert "100 金豆/子" in html
    # a replay names the flowers and the 扔弹 in its step list, and shows them at the table
    flowered = next((h for h in hands if any(e["type"] == "flower" for row in HandEvent.objects.filter(hand=h)
                                             for e in row.events)), None)
    if flowered is not None:
        token = Replay.objects.get(hand=flowered).token
        html = client.get(f"/replay/{token}/?step=last").content.decode()
        assert "亮花" in html and "补花" in html and "meld-flowers" in html
    html = client.get(f"/history/{game.pk}/hand/1/replay/", follow=True).content.decode()
    assert "扔弹：" in html
    staff = make_person("tt_staff", "客服", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    room_page = admin.get(f"/admin/games/room/{room.pk}/change/").content.decode()
    assert "累计（子）" in room_page and "100 金豆/子" in room_page


def test_english_words_for_the_table(dan_room):
    room = dan_room
    _deal(room)
    page = _page(users_by_position(room)[0], room, lang="en")
    assert "How much do you throw at" in page and "None" in page


def test_hints_and_auto_play_work_at_this_table(dan_room):
    """提示 on the player's own turn (the discards closest to ready; waits worth a total in 和), and
    a seat on 托管 played by the bot to the end of the hand through the timeouts."""
    room = dan_room
    users = users_by_position(room)
    room.seats.filter(position=1).update(hints=True)
    hand = _deal(room)
    _answer_all(hand, users)
    hand.refresh_from_db()
    state = _play_until(hand, users, lambda s: s.phase == engine.DISCARD and s.turn == 1, random.Random(1))
    page = _page(users[1], room)
    hints = page[page.index('id="hints"'):]
    hints = hints[:hints.index("</div>")]
    assert "建议打" in hints or "听牌" in hints, hints
    if "听牌" in hints and "·" in hints:
        assert " 和</small>" in hints or "只能自摸" in hints
    room.seats.update(auto_play=True)  # everyone on 托管: the bot plays every seat through the timeouts
    for _ in range(600):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        assert services.timeout(hand.pk, hand.version, now=hand.deadline + timedelta(seconds=1)).ok
    assert hand.status == Hand.ENDED
    assert replays.build(hand.pk).status == Replay.OK
