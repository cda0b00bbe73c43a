"""The customer-service admin (客服后台) per role: a superuser `boss`, a customer-service `staff` in the
客服 group, a `player` and anonymous visitors. Customer service views everything, adjusts beans
within the ceiling, freezes, dissolves and works on alerts, and never changes or deletes ledger
or audit rows (nor do superusers); players and anonymous visitors get nothing from the admin.
Every staff action leaves an audit row."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission

from accounts import beans
from accounts.models import AuditLog, LedgerEntry, Profile, SeenIP, SiteSettings, Wallet
from accounts.roles import CUSTOMER_SERVICE, sync_customer_service_group
from games import services
from games.models import Alert, Game, Hand, HandEvent, Replay, Room, Seat

pytestmark = pytest.mark.django_db

User = get_user_model()
USERS = "/admin/auth/user/"
ROOMS = "/admin/games/room/"
HANDS = "/admin/games/hand/"
ALERTS = "/admin/games/alert/"
LEDGER = "/admin/accounts/ledgerentry/"
AUDIT = "/admin/accounts/auditlog/"
SETTINGS_URL = "/admin/accounts/sitesettings/1/change/"


def _user(name, nickname=None, **extra):
    user = User.objects.create_user(name, password=f"pw-{name}-long-enough", **extra)
    Profile.objects.create(user=user, nickname=nickname or f"昵称{name}")
    return user


@pytest.fixture
def cs_group():
    # made by the data migration; a transactional test elsewhere may have flushed it
    return Group.objects.filter(name=CUSTOMER_SERVICE).first() or sync_customer_service_group()


@pytest.fixture
def boss():
    user = User.objects.create_superuser("boss", password="pw-boss-long-enough")
    Profile.objects.create(user=user, nickname="老板")
    return user


@pytest.fixture
def staff(cs_group):
    user = _user("staff", "客服小王", is_staff=True)
    user.groups.add(cs_group)
    return user


@pytest.fixture
def player():
    return _user("player", "阿强", email="aqiang@example.com")


@pytest.fixture
def other():
    return _user("other", "阿珍")


def _client(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def staff_client(client, staff):
    return _client(client, staff)


@pytest.fixture
def boss_client(client, boss):
    return _client(client, boss)


def _playing_room(a, b):
    """A 2-player room with its first hand being played."""
    room = services.create_room(a, players=2, length=4)
    services.join_room(b, room.token)
    services.set_ready(a, room.pk)
    services.set_ready(b, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    assert hand.status == Hand.PLAYING
    return room, hand


def _action(client, url, action, objects, **form):
    """Run an admin action: step 1 (the form page), then the form posted back with `apply`."""
    data = {"action": action, "_selected_action": [str(o.pk) for o in objects]}
    first = client.post(url, data)
    assert first.status_code == 200, first.status_code
    assert "admin/staff_action.html" in [t.name for t in first.templates]
    return client.post(url, {**data, "apply": "1", **form}, follow=False)


def _text(response):
    return response.content.decode()


def _messages(response):
    return [str(m) for m in response.context["messages"]] if response.context else []


# --- the group --------------------------------------------------------------------------------

def test_the_customer_service_group_has_exactly_its_permissions(cs_group):
    got = {f"{p.content_type.app_label}.{p.codename}" for p in cs_group.permissions.select_related("content_type")}
    from django.apps import apps

    views = {f"{label}.view_{m._meta.model_name}" for label in ("accounts", "games", "support")
             for m in apps.get_app_config(label).get_models()}
    # tickets: assign, reply, note, close, reopen (support/services.py); announcements: publish
    support = {"support.change_ticket", "support.add_ticketmessage", "support.add_announcement",
               "support.change_announcement"}
    assert got == views | support | {"auth.view_user", "games.change_alert", "accounts.adjust_beans",
                                     "accounts.freeze_user", "games.dissolve_room"}
    assert not any(p.split(".")[1].startswith("delete_") for p in got)
    assert {p for p in got if p.split(".")[1].startswith("add_")} == {"support.add_ticketmessage",
                                                                     "support.add_announcement"}
    assert not {"accounts.change_ledgerentry", "accounts.change_auditlog", "auth.change_user",
                "accounts.change_sitesettings", "accounts.change_wallet", "support.change_ticketmessage",
                "support.add_ticket", "support.change_announcementdismissal"} & got


def test_the_custom_permissions_exist():
    for app, codename in (("accounts", "adjust_beans"), ("accounts", "freeze_user"), ("games", "dissolve_room")):
        assert Permission.objects.filter(content_type__app_label=app, codename=codename).exists()


# --- who gets in ------------------------------------------------------------------------------

ALL_PAGES = [
    "/admin/", USERS, ROOMS, HANDS, ALERTS, LEDGER, AUDIT, "/admin/accounts/wallet/",
    "/admin/accounts/handsettlement/", "/admin/games/replay/", "/admin/accounts/sitesettings/", SETTINGS_URL,
    "/admin/auth/user/add/", "/admin/auth/group/",
]


@pytest.mark.parametrize("who", ["player", "anonymous"])
def test_players_and_anonymous_get_nothing_from_the_admin(client, player, other, who):
    if who == "player":
        client.force_login(player)
    entry = LedgerEntry.objects.filter(wallet__user=player).first()
    pages = ALL_PAGES + [f"{USERS}{other.pk}/change/", f"{LEDGER}{entry.pk}/change/", f"{LEDGER}{entry.pk}/delete/"]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
    # an action posted straight at the change list does nothing either
    response = client.post(USERS, {"action": "adjust_beans", "_selected_action": [other.pk], "apply": "1",
                                   "amount": "5000", "reason": "gift"})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert Wallet.objects.get(user=other).balance == 100_000
    assert not AuditLog.objects.exists()


def test_the_admin_index_per_role(client, boss, staff, player):
    for user, expected in ((boss, 200), (staff, 200)):
        client.force_login(user)
        response = client.get("/admin/")
        assert response.status_code == expected
        html = _text(response)
        assert USERS in html and ROOMS in html and AUDIT in html and LEDGER in html
    client.force_login(staff)
    assert "/admin/auth/group/" not in _text(client.get("/admin/"))  # only what the group may see
    assert client.get("/admin/auth/group/").status_code == 403


def test_customer_service_views_every_list_and_page(staff_client, player, other):
    room, hand = _playing_room(player, other)
    Alert.objects.create(room=room, kind=Alert.SAME_IP, detail="10.0.0.1: 0,1", positions=[0, 1])
    entry = LedgerEntry.objects.filter(wallet__user=player).first()
    for url in (USERS, ROOMS, HANDS, ALERTS, LEDGER, AUDIT, "/admin/accounts/wallet/",
                "/admin/accounts/handsettlement/", "/admin/games/replay/", f"{USERS}{player.pk}/change/",
                f"{ROOMS}{room.pk}/change/", f"{HANDS}{hand.pk}/change/", f"{LEDGER}{entry.pk}/change/"):
        assert staff_client.get(url).status_code == 200, url
    # the site settings: seen, not changed (a group that could would raise its own ceiling)
    response = staff_client.get("/admin/accounts/sitesettings/", follow=True)
    assert response.status_code == 200 and 'name="cs_adjust_ceiling"' not in _text(response)
    assert staff_client.post(SETTINGS_URL, {"cs_adjust_ceiling": "999999999"}).status_code == 403
    assert SiteSettings.current().cs_adjust_ceiling == 100_000
    # users are seen, not edited
    html = _text(staff_client.get(f"{USERS}{player.pk}/change/"))
    assert 'name="username"' not in html and 'name="is_superuser"' not in html
    assert staff_client.post(f"{USERS}{player.pk}/change/", {"username": "renamed"}).status_code == 403
    assert staff_client.get("/admin/auth/user/add/").status_code == 403
    assert staff_client.get(f"{USERS}{player.pk}/delete/").status_code == 403
    assert staff_client.get(f"{ROOMS}{room.pk}/delete/").status_code == 403


# --- the user list and search ---------------------------------------------------------------------

def _found(client, query):
    response = client.get(USERS, {"q": query})
    assert response.status_code == 200
    return {u.username for u in response.context["cl"].result_list}


def test_search_by_ip_nickname_id_and_email(staff_client, player, other):
    SeenIP.objects.create(user=player, ip="203.0.113.7")
    SeenIP.objects.create(user=player, ip="198.51.100.1")
    SeenIP.objects.create(user=other, ip="203.0.113.99")
    assert _found(staff_client, "203.0.113.7") == {"player"}
    assert _found(staff_client, "203.0.113.") == {"player", "other"}  # a prefix finds the network
    assert _found(staff_client, "阿强") == {"player"}
    assert _found(staff_client, "aqiang@example.com") == {"player"}
    assert _found(staff_client, str(other.pk)) == {"other"}
    assert _found(staff_client, "nobody-like-this") == set()


def test_user_list_shows_balance_today_and_frozen(staff_client, player, other, boss):
    room = Room.objects.create(host=player, players=2, stake=100, status=Room.PLAYING)
    Seat.objects.create(room=room, user=player, position=0)
    Seat.objects.create(room=room, user=other, position=1)
    game = Game.objects.create(room=room, first_dealer=0, dealer=0, totals=[0, 0])
    hand = Hand.objects.create(game=game, number=1, seed=1, dealer=0, status=Hand.ENDED)
    beans.settle_hand(hand, [{"from": 1, "to": 0, "amount": 12}], {0: player, 1: other}, 100, [0, 1])
    services.set_frozen(boss, other, True, "test")
    response = staff_client.get(USERS)
    rows = {u.username: u for u in response.context["cl"].result_list}
    assert (rows["player"].cs_balance, rows["player"].cs_won, rows["player"].cs_lost) == (101_200, 1_200, 0)
    assert (rows["other"].cs_balance, rows["other"].cs_won, rows["other"].cs_lost) == (98_800, 0, 1_200)
    html = _text(response)
    assert "阿强" in html and "101200" in html.replace(",", "")
    page = _text(staff_client.get(f"{USERS}{player.pk}/change/"))
    assert "+1200" in page.replace(",", "") and "对局结算" in page and "新用户赠送" in page  # the ledger table
    assert f"wallet__id__exact={Wallet.objects.get(user=player).pk}" in page


# --- beans --------------------------------------------------------------------------------------------

def test_customer_service_adjusts_within_the_ceiling(staff_client, staff, player):
    response = _action(staff_client, USERS, "adjust_beans", [player], amount="5000", reason="补偿掉线")
    assert response.status_code == 302
    assert Wallet.objects.get(user=player).balance == 105_000
    row = LedgerEntry.objects.get(wallet__user=player, reason=LedgerEntry.ADJUST)
    assert (row.amount, row.staff, row.note) == (5_000, staff, "补偿掉线")
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target) == (staff, "adjust_beans", f"user:{player.pk}")
    assert "+5000" in audit.detail and "补偿掉线" in audit.detail


def test_customer_service_cannot_exceed_the_ceiling(staff_client, player, other):
    before = LedgerEntry.objects.count()
    for amount in ("100001", "-100001"):
        response = _action(staff_client, USERS, "adjust_beans", [player, other], amount=amount, reason="太多")
        assert response.status_code == 200  # back on the form page with the refusal
        assert any("超过客服单次调整上限" in m for m in _messages(response))
    assert Wallet.objects.get(user=player).balance == 100_000 == Wallet.objects.get(user=other).balance
    assert LedgerEntry.objects.count() == before and not AuditLog.objects.exists()
    # exactly the ceiling is allowed
    assert _action(staff_client, USERS, "adjust_beans", [player], amount="100000", reason="上限").status_code == 302
    assert Wallet.objects.get(user=player).balance == 200_000


def test_a_superuser_has_no_ceiling(boss_client, boss, player):
    response = _action(boss_client, USERS, "adjust_beans", [player], amount="5000000", reason="活动奖励")
    assert response.status_code == 302
    assert Wallet.objects.get(user=player).balance == 5_100_000
    assert AuditLog.objects.get().staff == boss


def test_an_adjustment_needs_a_reason_and_a_nonzero_amount(staff_client, player):
    for form in ({"amount": "500", "reason": ""}, {"amount": "500", "reason": "   "}, {"amount": "0", "reason": "x"},
                 {"amount": "abc", "reason": "x"}):
        response = _action(staff_client, USERS, "adjust_beans", [player], **form)
        assert response.status_code == 200 and response.context["form"].errors, form
    assert Wallet.objects.get(user=player).balance == 100_000
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.ADJUST).exists() and not AuditLog.objects.exists()


def test_nothing_moves_when_one_of_the_selected_cannot_pay(staff_client, player, other):
    beans.adjust(None, other, -99_000, "set-up")  # other has 1,000 left
    response = _action(staff_client, USERS, "adjust_beans", [player, other], amount="-2000", reason="追回")
    assert response.status_code == 200 and any("金豆不足" in m for m in _messages(response))
    assert Wallet.objects.get(user=player).balance == 100_000 and Wallet.objects.get(user=other).balance == 1_000
    assert not AuditLog.objects.exists()


def test_customer_service_cannot_adjust_their_own_beans(staff_client, staff):
    response = _action(staff_client, USERS, "adjust_beans", [staff], amount="100", reason="自己")
    assert response.status_code == 200 and any("不能给自己调整金豆" in m for m in _messages(response))
    assert Wallet.objects.get(user=staff).balance == 100_000


def test_staff_without_the_permissions_get_no_actions(client, player):
    bare = _user("bare", is_staff=True)
    bare.user_permissions.add(Permission.objects.get(codename="view_user"),
                              Permission.objects.get(codename="view_room"))
    client.force_login(bare)
    assert client.get(USERS).status_code == 200
    for url, action in ((USERS, "adjust_beans"), (USERS, "freeze_users"), (ROOMS, "force_dissolve")):
        response = client.post(url, {"action": action, "_selected_action": [player.pk], "apply": "1",
                                     "amount": "100", "reason": "x"})
        assert response.status_code in (200, 302)  # no such action for them: the list again
    assert Wallet.objects.get(user=player).balance == 100_000
    assert not player.profile.frozen and not AuditLog.objects.exists()


# --- the ledger and the audit log are never changed ------------------------------------------------

@pytest.mark.parametrize("who", ["staff", "boss"])
def test_ledger_and_audit_rows_cannot_be_changed_or_deleted(client, request, player, boss, who):
    user = request.getfixturevalue(who)
    client.force_login(user)
    beans.staff_adjust(boss, player, 1_000, "set-up")
    entry = LedgerEntry.objects.filter(wallet__user=player).latest("id")
    audit = AuditLog.objects.get()
    for base, obj, data in ((LEDGER, entry, {"amount": "999999", "note": "x"}),
                            (AUDIT, audit, {"detail": "rewritten", "action": "x"})):
        page = client.get(f"{base}{obj.pk}/change/")
        assert page.status_code == 200 and 'type="submit"' not in _text(page).split('id="content-main"')[1]
        assert client.post(f"{base}{obj.pk}/change/", data).status_code == 403
        assert client.get(f"{base}{obj.pk}/delete/").status_code == 403
        assert client.post(f"{base}{obj.pk}/delete/", {"post": "yes"}).status_code == 403
        assert client.get(f"{base}add/").status_code == 403
        listing = client.get(base)
        assert 'value="delete_selected"' not in _text(listing)
        response = client.post(base, {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"})
        assert response.status_code in (200, 302)  # no such action: the list again
    entry.refresh_from_db()
    audit.refresh_from_db()
    assert (entry.amount, entry.note) == (1_000, "set-up")
    assert (audit.detail, audit.action) == ("+1000: set-up", "adjust_beans")
    assert LedgerEntry.objects.filter(pk=entry.pk).exists() and AuditLog.objects.filter(pk=audit.pk).exists()


# --- freeze -------------------------------------------------------------------------------------------

def test_freeze_puts_the_seat_on_auto_play_and_the_player_can_neither_play_nor_sit(staff_client, staff, player,
                                                                                   other):
    room, hand = _playing_room(player, other)
    response = _action(staff_client, USERS, "freeze_users", [player], reason="疑似作弊")
    assert response.status_code == 302
    profile = Profile.objects.get(user=player)
    assert profile.frozen and profile.frozen_reason == "疑似作弊"
    assert Seat.objects.get(room=room, user=player).auto_play
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target, audit.detail) == (staff, "freeze", f"user:{player.pk}", "疑似作弊")
    player.refresh_from_db()
    hand.refresh_from_db()
    out = services.play(hand.pk, player, {"action": "discard", "tile": "1m"}, hand.version)
    assert not out.ok and "冻结" in out.error
    with pytest.raises(services.ServiceError, match="冻结"):
        services.create_room(player, players=2, length=4)
    third = _user("third")
    new_room = services.create_room(third, players=2, length=4)
    with pytest.raises(services.ServiceError, match="冻结"):
        services.join_room(player, new_room.token)
    # the user page shows it, read-only
    page = _text(staff_client.get(f"{USERS}{player.pk}/change/"))
    assert "疑似作弊" in page and 'name="profile-0-frozen"' not in page


def test_freeze_needs_a_reason_and_unfreeze_gives_the_account_back(staff_client, player):
    response = _action(staff_client, USERS, "freeze_users", [player], reason="")
    assert response.status_code == 200 and response.context["form"].errors
    assert not Profile.objects.get(user=player).frozen and not AuditLog.objects.exists()
    assert _action(staff_client, USERS, "freeze_users", [player], reason="调查").status_code == 302
    assert Profile.objects.get(user=player).frozen
    assert _action(staff_client, USERS, "unfreeze_users", [player], reason="查无问题").status_code == 302
    profile = Profile.objects.get(user=player)
    assert not profile.frozen and profile.frozen_reason == ""
    assert list(AuditLog.objects.order_by("id").values_list("action", "detail")) == [
        ("freeze", "调查"), ("unfreeze", "查无问题")]
    player.refresh_from_db()
    services.create_room(player, players=2, length=4)  # may sit again


# --- rooms ----------------------------------------------------------------------------------------------

def test_force_dissolve_voids_the_hand_and_moves_no_beans(staff_client, staff, player, other):
    room, hand = _playing_room(player, other)
    Seat.objects.filter(room=room, user=player).update(ip="192.0.2.10")
    page = _text(staff_client.get(f"{ROOMS}{room.pk}/change/"))
    assert "192.0.2.10" in page and "阿强" in page and "阿珍" in page and f"{HANDS}{hand.pk}/change/" in page
    ledger_before = LedgerEntry.objects.count()
    response = _action(staff_client, ROOMS, "force_dissolve", [room], reason="")
    assert response.status_code == 200 and response.context["form"].errors
    assert Room.objects.get(pk=room.pk).status == Room.PLAYING
    response = _action(staff_client, ROOMS, "force_dissolve", [room], reason="牌桌卡住")
    assert response.status_code == 302
    room.refresh_from_db()
    hand.refresh_from_db()
    assert room.status == Room.DISSOLVED and hand.status == Hand.VOID
    assert LedgerEntry.objects.count() == ledger_before and not LedgerEntry.objects.filter(hand=hand).exists()
    assert Wallet.objects.get(user=player).balance == 100_000 == Wallet.objects.get(user=other).balance
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target, audit.detail) == (staff, "force_dissolve", f"room:{room.pk}",
                                                                       "牌桌卡住")
    # a finished room cannot be dissolved again
    response = _action(staff_client, ROOMS, "force_dissolve", [room], reason="再来")
    assert response.status_code == 200 and any("已经结束" in m for m in _messages(response))
    assert AuditLog.objects.count() == 1


# --- hands --------------------------------------------------------------------------------------------------

def test_hand_page_hides_tiles_while_playing_and_shows_everything_after(staff_client, player, other):
    room, hand = _playing_room(player, other)
    HandEvent.objects.create(hand=hand, seq=hand.version + 1, action={"kind": "discard", "seat": 0, "tile": "7p"},
                             events=[{"type": "draw", "tile": "3s", "marker": "drawn-tile-marker"}])
    page = _text(staff_client.get(f"{HANDS}{hand.pk}/change/"))
    assert hand.commitment in page and "座位 0：discard" in page
    assert "discard 7p" not in page and "drawn-tile-marker" not in page
    assert str(hand.seed) not in page and hand.salt not in page
    Hand.objects.filter(pk=hand.pk).update(status=Hand.ENDED)
    hand.refresh_from_db()
    beans.settle_hand(hand, [{"from": 1, "to": 0, "amount": 5000}], {0: player, 1: other}, 100, [0, 1])
    Replay.objects.create(hand=hand, status=Replay.MISMATCH, problem="第 3 步结果不同")
    replay = Replay.objects.get(hand=hand)
    page = _text(staff_client.get(f"{HANDS}{hand.pk}/change/"))
    assert "discard 7p" in page and "drawn-tile-marker" in page
    assert f"/replay/{replay.token}/" in page and "不一致" in page and "第 3 步结果不同" in page
    assert "余额不足" in page and "按上限削减过" in page  # 500,000 owed, cut to the loser's 100,000
    listing = staff_client.get(HANDS, {"replay__status": Replay.MISMATCH})
    assert [h.pk for h in listing.context["cl"].result_list] == [hand.pk]


# --- alerts ---------------------------------------------------------------------------------------------------

def test_alert_status_and_note_change_and_are_audited(staff_client, staff, player, other):
    room, _hand = _playing_room(player, other)
    alert = Alert.objects.create(room=room, kind=Alert.SAME_IP, detail="10.0.0.1: 0,1", positions=[0, 1])
    alert.users.set([player, other])
    listing = staff_client.get(ALERTS, {"status__exact": Alert.NEW, "kind__exact": Alert.SAME_IP})
    assert [a.pk for a in listing.context["cl"].result_list] == [alert.pk]
    response = staff_client.post(f"{ALERTS}{alert.pk}/change/", {
        "status": Alert.LOOKED, "note": "同一网吧，继续观察", "kind": Alert.NEAR, "detail": "changed"})
    assert response.status_code == 302
    alert.refresh_from_db()
    assert (alert.status, alert.note, alert.kind, alert.detail) == (Alert.LOOKED, "同一网吧，继续观察", Alert.SAME_IP,
                                                                    "10.0.0.1: 0,1")
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target) == (staff, "alert", f"alert:{alert.pk}")
    assert "已查看" in audit.detail and "同一网吧" in audit.detail
    # saving without a change writes nothing; the bulk action is audited too
    staff_client.post(f"{ALERTS}{alert.pk}/change/", {"status": Alert.LOOKED, "note": "同一网吧，继续观察"})
    assert AuditLog.objects.count() == 1
    staff_client.post(ALERTS, {"action": "mark_acted", "_selected_action": [alert.pk]})
    alert.refresh_from_db()
    assert alert.status == Alert.ACTED and AuditLog.objects.count() == 2
    assert staff_client.get(f"{ALERTS}{alert.pk}/delete/").status_code == 403
    assert staff_client.get(f"{ALERTS}add/").status_code == 403


# --- site settings --------------------------------------------------------------------------------------------

def test_site_settings_changes_are_audited(boss_client, boss):
    page = _text(boss_client.get(SETTINGS_URL))
    for name in ("hand_limit", "cs_adjust_ceiling", "near_meters", "default_turn_seconds", "default_claim_seconds"):
        assert f'name="{name}"' in page
    s = SiteSettings.current()
    data = {f.name: getattr(s, f.name) for f in SiteSettings._meta.fields if f.editable and f.name != "id"}
    data.update(cs_adjust_ceiling=200_000, near_meters=50)
    assert boss_client.post(SETTINGS_URL, data).status_code == 302
    s.refresh_from_db()
    assert (s.cs_adjust_ceiling, s.near_meters) == (200_000, 50)
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target) == (boss, "site_settings", "site_settings:1")
    assert "cs_adjust_ceiling): 100000 → 200000" in audit.detail and "near_meters): 100 → 50" in audit.detail
    assert "hand_limit" not in audit.detail
    boss_client.post(SETTINGS_URL, data)  # no change, no audit row
    assert AuditLog.objects.count() == 1
    # the audit log is readable in the admin
    assert "200000" in _text(boss_client.get(AUDIT))
