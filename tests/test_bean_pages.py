"""Beans (金豆) for the player: the header, the history page /accounts/beans/, relief, the room
option 入座最低金豆 in the lobby and on the invite page, the refusals the join page shows, the admin."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from accounts import beans
from accounts.context_processors import beans as beans_context
from accounts.context_processors import header_beans
from accounts.models import LedgerEntry, Profile, SiteSettings, Wallet
from games import services
from games.models import Game, Hand, Room, Seat
from tests.people import make_person

pytestmark = pytest.mark.django_db

BEANS = "/accounts/beans/"
RELIEF = "/accounts/beans/relief/"
LOBBY = "/lobby/"
ROOM_FORM = {"variant": "taizhou", "players": "2", "length": "hands:4", "stake": "100",
             "turn_seconds": "15", "claim_seconds": "8"}


def _set_balance(user, balance):
    """Move a wallet to `balance` with a staff adjustment (the ledger stays the whole story)."""
    wallet = beans.wallet_for(user)
    if wallet.balance != balance:
        beans.adjust(None, user, balance - wallet.balance, "test set-up")


@pytest.fixture
def player():
    return make_person("player", "老张")


@pytest.fixture
def poor_player():
    user = make_person("poor", "穷小子")
    _set_balance(user, 1_000)
    return user


@pytest.fixture
def player_client(client, player):
    client.force_login(player)
    return client


@pytest.fixture
def staff_admin():
    return get_user_model().objects.create_superuser("boss", password="pw-boss-long-enough")


@pytest.fixture
def admin_client(client, staff_admin):
    client.force_login(staff_admin)
    return client


def _settled_hand(winner, loser, amount_hu=10, stake=100, room_host=None):
    """A finished 2-player hand settled through accounts.beans (winner at position 0)."""
    room = Room.objects.create(host=room_host or winner, players=2, stake=stake, status=Room.PLAYING)
    Seat.objects.create(room=room, user=winner, position=0)
    Seat.objects.create(room=room, user=loser, position=1)
    game = Game.objects.create(room=room, first_dealer=0, dealer=0, totals=[0, 0])
    hand = Hand.objects.create(game=game, number=1, seed=1, dealer=0, status=Hand.ENDED)
    beans.settle_hand(hand, [{"from": 1, "to": 0, "amount": amount_hu}], {0: winner, 1: loser}, stake, [0, 1])
    return hand


# --- the header ---------------------------------------------------------------------------

def test_header_shows_balance_and_today_against_the_day_limit(player_client, player, host):
    _settled_hand(player, host, amount_hu=12)  # player wins 1,200
    html = player_client.get(LOBBY).content.decode()
    chip = re.search(r'<a class="bean-chip[^"]*" href="/accounts/beans/".*?</a>', html, re.S)
    assert chip, "the header links to the beans page"
    assert "101,200 金豆" in chip.group(0)
    assert "今日 +1,200 / −0 · 上限 10,000,000" in chip.group(0)


def test_header_in_english(player_client):
    player_client.cookies["django_language"] = "en"
    html = player_client.get(LOBBY).content.decode()
    assert "100,000 beans" in html and "Today +0 / −0 · limit 10,000,000" in html


def test_header_marks_a_player_at_the_day_limit(player_client, player, host):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 500})
    _settled_hand(host, player, amount_hu=10)  # player loses 1,000, cut to the day limit 500
    html = player_client.get(LOBBY).content.decode()
    assert 'class="bean-chip at-limit"' in html and "−500 · 上限 500" in html


def test_nothing_for_anonymous_visitors(client, django_assert_num_queries):
    request = RequestFactory().get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    with django_assert_num_queries(0):
        assert beans_context(request) == {}
    html = client.get("/").content.decode()
    assert "bean-chip" not in html


def test_header_costs_one_wallet_read_and_one_aggregate(player, django_assert_num_queries):
    SiteSettings.current()
    with django_assert_num_queries(2):
        shown = header_beans(player)
    assert (shown.balance, shown.won_today, shown.lost_today, shown.day_limit) == (100_000, 0, 0, 10_000_000)
    SiteSettings.objects.all().delete()  # not made yet: the field default, still two queries
    with django_assert_num_queries(2):
        assert header_beans(player).day_limit == 10_000_000
    request = RequestFactory().get("/")
    request.user = player
    with django_assert_num_queries(0):
        context = beans_context(request)  # lazy: nothing until a template reads it
    with django_assert_num_queries(2):
        assert context["header_beans"].balance == 100_000


def test_a_user_from_before_the_beans_gets_the_starting_grant_when_first_shown(player):
    LedgerEntry.objects.filter(wallet__user=player).delete()
    Wallet.objects.filter(user=player).delete()
    assert header_beans(player).balance == 100_000
    assert LedgerEntry.objects.filter(wallet__user=player, reason=LedgerEntry.GRANT).count() == 1


# --- the beans page -----------------------------------------------------------------------

def test_beans_page_needs_login(client):
    response = client.get(BEANS)
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/accounts/beans/"
    response = client.post(RELIEF)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_beans_page_shows_balance_today_limits_and_the_ledger_newest_first(player_client, player, host):
    hand = _settled_hand(host, player, amount_hu=7)  # player loses 700
    staff = get_user_model().objects.create_user("cs", password="pw-cs-long-enough", is_staff=True)
    beans.adjust(staff, player, 300, "补偿掉线")
    response = player_client.get(BEANS)
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    html = response.content.decode()
    assert response.context["wallet"].balance == 99_600
    assert 'data-balance="99600"' in html and "99,600" in html
    assert (response.context["won_today"], response.context["lost_today"]) == (0, 700)
    assert "每日输赢上限 10,000,000" in html and "今天还能赢 10,000,000，还能输 9,999,300" in html
    assert "每局输赢上限 1,000,000" in html
    assert "金豆是游戏币，不能兑换现金" in html
    rows = re.findall(r'<tr class="ledger-row reason-(\w+)" data-entry="(\d+)">(.*?)</tr>', html, re.S)
    assert [r[0] for r in rows] == ["adjust", "hand", "grant"]
    assert [int(r[1]) for r in rows] == sorted((int(r[1]) for r in rows), reverse=True)
    adjust_row, hand_row, grant_row = (r[2] for r in rows)
    assert "客服调整" in adjust_row and "+300" in adjust_row and "99,600" in adjust_row and "补偿掉线" in adjust_row
    assert "对局结算" in hand_row and "\u2212700" in hand_row and "99,300" in hand_row
    assert f'href="/room/{hand.game.room_id}/"' in hand_row and "第 1 局" in hand_row
    assert "新用户赠送" in grant_row and "+100,000" in grant_row and "/room/" not in grant_row
    assert re.search(r"<time datetime=\"\d{4}-\d\d-\d\dT[\d:.]+\+08:00\">\d{4}-\d\d-\d\d \d\d:\d\d</time>", grant_row)


def test_a_cut_hand_row_says_what_the_rules_said_and_why(player_client, player, host):
    _set_balance(player, 400)
    _settled_hand(host, player, amount_hu=10)  # owes 1,000, has 400
    html = player_client.get(BEANS).content.decode()
    assert "\u2212400" in html and "按规则应为 \u22121,000，因余额不足按上限结算" in html


def test_ledger_is_paginated(player_client, player):
    for i in range(35):
        beans.adjust(None, player, 1, f"第{i}笔")
    html = player_client.get(BEANS).content.decode()
    assert html.count('class="ledger-row') == 30 and "第34笔" in html and "第4笔" not in html
    assert "第 1 / 2 页" in html and 'href="?page=2"' in html
    html = player_client.get(BEANS + "?page=2").content.decode()
    assert html.count('class="ledger-row') == 6 and "第4笔" in html and "新用户赠送" in html
    assert 'href="?page=1"' in html
    assert player_client.get(BEANS + "?page=99").status_code == 200  # out of range: the last page


def test_relief_button_only_when_eligible_and_claimed_once_a_day(client, poor_player, player):
    client.force_login(player)
    html = client.get(BEANS).content.decode()
    assert 'data-action="claim-relief"' not in html and 'data-state="relief-not-needed"' in html
    response = client.post(RELIEF, follow=True)  # not eligible: a clear refusal, nothing changes
    assert response.redirect_chain == [("/accounts/beans/", 302)]
    assert "金豆不少于 5000 时不能领救济金" in response.content.decode()
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.RELIEF).exists()

    client.force_login(poor_player)
    html = client.get(BEANS).content.decode()
    assert 'data-action="claim-relief"' in html and "领取救济金 20,000 金豆" in html
    assert f'action="{RELIEF}"' in html
    response = client.post(RELIEF, follow=True)
    html = response.content.decode()
    assert "已领取救济金 20,000 金豆，现在有 21,000 金豆。" in html
    assert 'data-action="claim-relief"' not in html and 'data-state="relief-claimed"' in html
    assert beans.wallet_for(poor_player).balance == 21_000
    _set_balance(poor_player, 100)  # poor again the same day: still only once
    response = client.post(RELIEF, follow=True)
    assert "今天已经领过救济金了" in response.content.decode()
    assert LedgerEntry.objects.filter(wallet__user=poor_player, reason=LedgerEntry.RELIEF).count() == 1


def test_relief_is_post_only(client, poor_player):
    client.force_login(poor_player)
    assert client.get(RELIEF).status_code == 405
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.RELIEF).exists()


def test_beans_page_in_english(client, poor_player):
    client.force_login(poor_player)
    client.cookies["django_language"] = "en"
    html = client.get(BEANS).content.decode()
    for text in ("My beans", "Balance", "Won today", "Lost today", "Daily limit 10,000,000",
                 "Per-hand limit 1,000,000", "Claim 20,000 beans of relief", "Bean ledger", "Staff adjustment",
                 "Starting grant", "no cash value"):
        assert text in html, text
    response = client.post(RELIEF, follow=True)
    assert "You claimed 20,000 beans of relief; you now have 21,000 beans." in response.content.decode()


def test_beans_page_shows_the_day_limit_reached(player_client, player, host):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1_000})
    _settled_hand(player, host, amount_hu=10)
    html = player_client.get(BEANS).content.decode()
    assert 'data-state="day-limit"' in html and "今天还能赢 0" in html


# --- rooms: 入座最低金豆 and the refusals ------------------------------------------------------

def test_lobby_form_has_min_balance_default_zero_and_creates_the_room_with_it(client, host):
    client.force_login(host)
    response = client.get(LOBBY)
    assert response.context["form"]["min_balance"].value() == 0
    assert 'name="min_balance"' in response.content.decode() and "入座最低金豆" in response.content.decode()
    response = client.post(LOBBY, dict(ROOM_FORM, min_balance="50000"))
    room = Room.objects.get()
    assert response.status_code == 302 and room.min_balance == 50_000
    client.post(LOBBY, ROOM_FORM)  # left out: 0
    assert Room.objects.order_by("-pk").first().min_balance == 0
    client.post(LOBBY, dict(ROOM_FORM, min_balance=""))  # empty: 0
    assert Room.objects.order_by("-pk").first().min_balance == 0


@pytest.mark.parametrize("bad", ["-1", "abc", "1.5", "10000000000000"])
def test_lobby_refuses_a_bad_min_balance(client, host, bad):
    client.force_login(host)
    response = client.post(LOBBY, dict(ROOM_FORM, min_balance=bad))
    assert response.status_code == 200 and not Room.objects.exists()
    assert response.context["form"].errors["min_balance"]


def test_lobby_shows_the_refusal_when_the_host_cannot_sit_at_their_own_minimum(client, poor_player):
    client.force_login(poor_player)
    response = client.post(LOBBY, dict(ROOM_FORM, min_balance="5000"))
    assert response.status_code == 200 and not Room.objects.exists()
    assert "这个房间要求至少 5000 金豆才能入座，你现在有 1000" in response.content.decode()


def test_lobby_shows_the_refusal_at_the_day_limit(client, player, host):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1_000})
    _settled_hand(host, player, amount_hu=10)
    client.force_login(player)
    response = client.post(LOBBY, ROOM_FORM)
    assert response.status_code == 200 and not Room.objects.filter(host=player).exists()
    assert "你今天的金豆输赢已达到每日上限" in response.content.decode()


def test_invite_page_shows_the_minimum(client, host):
    room = services.create_room(host, players=2, length=4, min_balance=30_000)
    html = client.get(f"/join/{room.token}/").content.decode()
    assert re.search(r"<dt>入座最低金豆</dt><dd data-min-balance=\"30000\">30,000 金豆</dd>", html)
    free = services.create_room(host, players=2, length=4)
    html = client.get(f"/join/{free.token}/").content.decode()
    assert re.search(r"<dt>入座最低金豆</dt><dd data-min-balance=\"0\">不限</dd>", html)
    client.cookies["django_language"] = "en"
    html = client.get(f"/join/{room.token}/").content.decode()
    assert "Minimum beans to sit" in html and "30,000 beans" in html


def test_join_page_shows_the_min_balance_refusal(client, host, poor_player):
    room = services.create_room(host, players=2, length=4, min_balance=5_000)
    client.force_login(poor_player)
    response = client.post(f"/join/{room.token}/")
    assert response.status_code == 200 and response.context["state"] == "open"
    assert re.search(r'<div class="alert" role="alert">这个房间要求至少 5000 金豆才能入座，你现在有 1000</div>',
                     response.content.decode())
    assert not Seat.objects.filter(room=room, user=poor_player).exists()
    client.cookies["django_language"] = "en"
    response = client.post(f"/join/{room.token}/")
    assert "This room needs at least 5000 beans to sit; you have 1000" in response.content.decode()


def test_join_page_shows_the_day_limit_refusal(client, host, player):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1_000})
    other = make_person("other", "别人")
    _settled_hand(other, player, amount_hu=10)
    room = services.create_room(host, players=2, length=4)
    client.force_login(player)
    response = client.post(f"/join/{room.token}/")
    assert response.status_code == 200
    assert "你今天的金豆输赢已达到每日上限，明天再来吧（进行中的对局可以打完）" in response.content.decode()
    assert not Seat.objects.filter(room=room, user=player).exists()


# --- admin --------------------------------------------------------------------------------

def test_admin_edits_the_one_settings_row_but_cannot_add_or_delete(admin_client):
    response = admin_client.get("/admin/accounts/sitesettings/")
    assert response.status_code == 302 and response["Location"] == "/admin/accounts/sitesettings/1/change/"
    assert admin_client.get("/admin/accounts/sitesettings/add/").status_code == 403
    assert admin_client.get("/admin/accounts/sitesettings/1/delete/").status_code == 403
    form = admin_client.get("/admin/accounts/sitesettings/1/change/").context["adminform"].form
    data = {name: form[name].value() for name in form.fields}  # every setting as shown, then the beans ones
    data.update({"hand_limit": "500000", "day_limit": "2000000", "starting_grant": "50000", "relief_amount": "10000",
                 "relief_threshold": "2000"})
    response = admin_client.post("/admin/accounts/sitesettings/1/change/", data)
    assert response.status_code == 302
    s = SiteSettings.current()
    assert (s.hand_limit, s.day_limit, s.starting_grant, s.relief_amount, s.relief_threshold) == (
        500_000, 2_000_000, 50_000, 10_000, 2_000)
    assert beans.limits().per_hand == 500_000  # at run time, no restart
    assert SiteSettings.objects.count() == 1


def test_admin_shows_wallets_and_the_ledger_read_only(admin_client, player):
    wallet = beans.wallet_for(player)
    entry = LedgerEntry.objects.get(wallet=wallet)
    assert admin_client.get("/admin/accounts/wallet/").status_code == 200
    assert admin_client.get("/admin/accounts/ledgerentry/").status_code == 200
    assert admin_client.get("/admin/accounts/handsettlement/").status_code == 200
    response = admin_client.get(f"/admin/accounts/wallet/{wallet.pk}/change/")
    assert response.status_code == 200 and 'name="balance"' not in response.content.decode()
    response = admin_client.post(f"/admin/accounts/wallet/{wallet.pk}/change/", {"balance": "999", "user": player.pk})
    assert response.status_code == 403
    response = admin_client.post(f"/admin/accounts/ledgerentry/{entry.pk}/change/", {"amount": "999"})
    assert response.status_code == 403
    for model in ("wallet", "ledgerentry", "handsettlement"):
        assert admin_client.get(f"/admin/accounts/{model}/add/").status_code == 403
    assert admin_client.get(f"/admin/accounts/ledgerentry/{entry.pk}/delete/").status_code == 403
    wallet.refresh_from_db()
    entry.refresh_from_db()
    assert wallet.balance == 100_000 and entry.amount == 100_000
