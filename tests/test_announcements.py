"""公告: staff publish a short notice in the admin (title, text, shown from / until; audited); the
active ones appear on the lobby until the player dismisses them (a POST with CSRF, remembered per
player in the database; works as a plain form, htmx swaps the notice away)."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from accounts.models import AuditLog
from accounts.roles import CUSTOMER_SERVICE, sync_customer_service_group
from support.models import Announcement, AnnouncementDismissal

pytestmark = pytest.mark.django_db

LOBBY = "/lobby/"
ADMIN = "/admin/support/announcement/"


def dismiss_url(a):
    return f"/support/announcements/{a.pk}/dismiss/"


def notice(title="春节活动", body="除夕夜 20:00 起维护半小时。", starts=-1, ends=None):
    now = timezone.now()
    return Announcement.objects.create(title=title, body=body, starts_at=now + timedelta(hours=starts),
                                       ends_at=now + timedelta(hours=ends) if ends is not None else None)


@pytest.fixture
def cs(staff):
    group = Group.objects.filter(name=CUSTOMER_SERVICE).first() or sync_customer_service_group()
    staff.groups.add(group)
    return staff


def lobby(client):
    response = client.get(LOBBY)
    assert response.status_code == 200
    return response.content.decode()


def test_active_notices_appear_on_the_lobby(client, host):
    shown = notice("维护通知", "今晚 23:00 维护。\n约 30 分钟。", ends=24)
    forever = notice("新玩法", "诸暨麻将上线了")
    future = notice("将来的", "还没开始", starts=2)
    expired = notice("过期的", "已经结束", starts=-48, ends=-1)
    client.force_login(host)
    html = lobby(client)
    for a in (shown, forever):
        assert f'data-announcement="{a.pk}"' in html
    assert "维护通知" in html and "今晚 23:00 维护。<br>约 30 分钟。" in html and "诸暨麻将上线了" in html
    for a in (future, expired):
        assert f'data-announcement="{a.pk}"' not in html
    assert html.index('id="announcements"') < html.index('id="create"')  # at the top


def test_no_notice_no_block(client, host):
    client.force_login(host)
    assert 'id="announcements"' not in lobby(client)


def test_a_dismissed_notice_stays_away_for_that_player_only(client, host, guest):
    a = notice()
    client.force_login(host)
    response = client.post(dismiss_url(a), {"next": LOBBY})
    assert response.status_code == 302 and response["Location"] == LOBBY
    assert AnnouncementDismissal.objects.filter(announcement=a, user=host).count() == 1
    assert f'data-announcement="{a.pk}"' not in lobby(client)
    # remembered in the database: a new session (another phone) does not show it either
    other_device = Client()
    other_device.force_login(host)
    assert f'data-announcement="{a.pk}"' not in lobby(other_device)
    client.force_login(guest)
    assert f'data-announcement="{a.pk}"' in lobby(client)
    # twice is harmless
    client.force_login(host)
    assert client.post(dismiss_url(a)).status_code == 302
    assert AnnouncementDismissal.objects.filter(announcement=a).count() == 1


def test_the_lobby_form_works_without_javascript(host):
    a = notice()
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(host)
    html = lobby(browser)
    assert f'action="{dismiss_url(a)}"' in html and 'name="csrfmiddlewaretoken"' in html
    token = browser.cookies["csrftoken"].value
    response = browser.post(dismiss_url(a), {"csrfmiddlewaretoken": token, "next": LOBBY})
    assert response.status_code == 302 and AnnouncementDismissal.objects.filter(user=host).exists()


def test_without_csrf_nothing_is_stored(host):
    a = notice()
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(host)
    assert browser.post(dismiss_url(a), {"next": LOBBY}).status_code == 403
    assert not AnnouncementDismissal.objects.exists()


def test_htmx_swaps_the_notice_away(client, host):
    a = notice()
    client.force_login(host)
    html = lobby(client)
    assert f'hx-post="{dismiss_url(a)}"' in html and f'hx-target="#announcement-{a.pk}"' in html
    response = client.post(dismiss_url(a), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and response.content == b""
    assert AnnouncementDismissal.objects.filter(user=host).exists()


def test_only_a_signed_in_post_dismisses(client, host):
    a = notice()
    response = client.post(dismiss_url(a))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client.force_login(host)
    assert client.get(dismiss_url(a)).status_code == 405
    assert client.post("/support/announcements/999999/dismiss/").status_code == 404
    assert not AnnouncementDismissal.objects.exists()


def test_next_must_be_on_this_site(client, host):
    a = notice()
    client.force_login(host)
    response = client.post(dismiss_url(a), {"next": "https://evil.example.com/"})
    assert response["Location"] == LOBBY


def test_the_lobby_shows_at_most_three_newest(client, host):
    made = [notice(f"公告{n}", "内容", starts=-10 + n) for n in range(5)]
    client.force_login(host)
    html = lobby(client)
    shown = [a for a in made if f'data-announcement="{a.pk}"' in html]
    assert shown == made[2:]


# --- the admin -------------------------------------------------------------------------------------

def _form(**data):
    now = timezone.localtime()
    form = {"title": "停服维护", "body": "今晚 23:00-23:30 维护。", "starts_at_0": now.strftime("%Y-%m-%d"),
            "starts_at_1": now.strftime("%H:%M:%S"), "ends_at_0": "", "ends_at_1": ""}
    form.update(data)
    return form


def test_customer_service_publishes_and_changes_a_notice_audited(client, cs, host):
    client.force_login(cs)
    assert client.get(ADMIN).status_code == 200
    response = client.post(f"{ADMIN}add/", _form())
    assert response.status_code == 302, response.content.decode()[:3000]
    a = Announcement.objects.get()
    assert (a.title, a.created_by, a.ends_at) == ("停服维护", cs, None)
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action, audit.target) == (cs, "announcement", f"announcement:{a.pk}")
    assert "停服维护" in audit.detail
    # shown to players now
    other = Client()
    other.force_login(host)
    assert f'data-announcement="{a.pk}"' in lobby(other)
    # taken down by an end time
    end = timezone.localtime() - timedelta(minutes=1)
    start = timezone.localtime(a.starts_at) - timedelta(hours=1)
    response = client.post(f"{ADMIN}{a.pk}/change/", _form(
        starts_at_0=start.strftime("%Y-%m-%d"), starts_at_1=start.strftime("%H:%M:%S"),
        ends_at_0=end.strftime("%Y-%m-%d"), ends_at_1=end.strftime("%H:%M:%S")))
    assert response.status_code == 302
    change = AuditLog.objects.order_by("-id").first()
    assert change.action == "announcement" and "结束显示" in change.detail and "→" in change.detail
    assert f'data-announcement="{a.pk}"' not in lobby(other)
    # never deleted
    assert client.get(f"{ADMIN}{a.pk}/delete/").status_code == 403


def test_a_notice_must_end_after_it_starts_and_stay_short(client, cs):
    client.force_login(cs)
    now = timezone.localtime()
    earlier = now - timedelta(hours=1)
    response = client.post(f"{ADMIN}add/", _form(ends_at_0=earlier.strftime("%Y-%m-%d"),
                                                ends_at_1=earlier.strftime("%H:%M:%S")))
    assert response.status_code == 200 and "结束时间要晚于开始时间" in response.content.decode()
    assert client.post(f"{ADMIN}add/", _form(body="长" * 501)).status_code == 200
    assert client.post(f"{ADMIN}add/", _form(title="")).status_code == 200
    assert not Announcement.objects.exists() and not AuditLog.objects.exists()


def test_players_and_plain_staff_cannot_publish(client, host, staff):
    for user in (None, host):
        client.logout()
        if user:
            client.force_login(user)
        response = client.post(f"{ADMIN}add/", _form())
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    client.force_login(staff)  # is_staff without the 客服 group
    assert client.post(f"{ADMIN}add/", _form()).status_code == 403
    assert not Announcement.objects.exists() and not AuditLog.objects.exists()
