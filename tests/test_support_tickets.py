"""联系客服: a player writes a ticket (with the room and hand they played attached), follows the
conversation and replies while it is open; staff work the queue in the admin (assign, note, reply,
close, reopen), every action audited. Who sees what: the player only their own tickets (404
otherwise) and never an internal note; other players, visitors and staff without the 客服 group
get nothing from the ticket admin. Bad input is refused and changes nothing."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.models import AuditLog
from accounts.roles import CUSTOMER_SERVICE, sync_customer_service_group
from games import services as game_services
from games.models import Hand
from support import services
from support.models import MESSAGE_MAX, SUBJECT_MAX, Ticket, TicketMessage
from tests.people import make_person

pytestmark = pytest.mark.django_db

NEW = "/support/new/"
LIST = "/support/"
ADMIN = "/admin/support/ticket/"


def detail(ticket):
    return f"/support/{ticket.pk}/"


@pytest.fixture
def cs_group():
    return Group.objects.filter(name=CUSTOMER_SERVICE).first() or sync_customer_service_group()


@pytest.fixture
def cs(staff, cs_group):
    """客服小王: a staff account in the 客服 group."""
    staff.groups.add(cs_group)
    return staff


@pytest.fixture
def cs2(cs_group):
    user = make_person("cs2", "客服小张", is_staff=True)
    user.groups.add(cs_group)
    return user


@pytest.fixture
def played(host, guest):
    """A 2-player room of host and guest with its first hand on the table: (room, hand)."""
    room = game_services.create_room(host, players=2, length=4)
    game_services.join_room(guest, room.token)
    game_services.set_ready(host, room.pk)
    game_services.set_ready(guest, room.pk)
    return room, Hand.objects.get(game__room=room, number=1)


@pytest.fixture
def elsewhere(outsider):
    """A room the host and guest never sat in (the outsider's, with a hand)."""
    other = make_person("other")
    room = game_services.create_room(outsider, players=2, length=4)
    game_services.join_room(other, room.token)
    game_services.set_ready(outsider, room.pk)
    game_services.set_ready(other, room.pk)
    return room, Hand.objects.get(game__room=room, number=1)


def as_user(client, user):
    client.force_login(user)
    return client


def text(response):
    return response.content.decode()


def good(**extra):
    return {"category": "beans", "subject": "金豆少了", "body": "昨天第三局赢了却扣了金豆。", **extra}


def ticket_of(user, **extra):
    return services.create_ticket(user, **{"category": "beans", "subject": "金豆少了", "body": "请查一下", **extra})


def nothing_written():
    assert not Ticket.objects.exists() and not TicketMessage.objects.exists() and not AuditLog.objects.exists()


# --- the player's pages -----------------------------------------------------------------------------

def test_visitors_are_sent_to_log_in(client, host):
    ticket = ticket_of(host)
    for url in (LIST, NEW, detail(ticket)):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next="), url
    response = client.post(NEW, good())
    assert response.status_code == 302 and Ticket.objects.count() == 1
    response = client.post(detail(ticket), {"body": "匿名"})
    assert response.status_code == 302 and ticket.messages.count() == 1


def test_the_footer_links_to_customer_service_for_players_only(client, host):
    assert 'href="/support/"' not in text(client.get("/"))
    assert 'href="/support/"' in text(as_user(client, host).get("/"))


def test_a_player_writes_a_ticket_and_sees_it_listed(client, host):
    as_user(client, host)
    page = text(client.get(NEW))
    for label in ("金豆争议", "举报作弊", "账号问题", "其他"):
        assert label in page
    response = client.post(NEW, good(), follow=True)
    ticket = Ticket.objects.get()
    assert response.redirect_chain[-1][0] == detail(ticket)
    assert (ticket.user, ticket.category, ticket.subject, ticket.status) == (host, "beans", "金豆少了", Ticket.OPEN)
    assert ticket.waiting_since is not None and ticket.room is None and ticket.hand is None
    message = ticket.messages.get()
    assert (message.author, message.kind, message.body) == (host, TicketMessage.PLAYER, "昨天第三局赢了却扣了金豆。")
    html = text(response)
    assert "已提交" in html and "昨天第三局赢了却扣了金豆。" in html and "待处理" in html
    listing = text(client.get(LIST))
    assert f'data-ticket="{ticket.pk}"' in listing and "金豆少了" in listing and "待处理" in listing
    assert not AuditLog.objects.exists()  # players' own actions are not staff actions


@pytest.mark.parametrize("data, error", [
    (good(body=""), "请写下要说的内容"),
    (good(body="   \n  "), "请写下要说的内容"),
    (good(body="长" * (MESSAGE_MAX + 1)), "内容最多 2000 个字"),
    (good(subject=""), "请写一个标题"),
    (good(subject="长" * (SUBJECT_MAX + 1)), "标题最多 80 个字"),
    (good(category="refund"), "没有这个类别"),
    (good(category=""), "请选择问题类别"),
    (good(category="cheat"), "举报作弊要附上房间"),
    (good(category="cheat", body=""), "举报作弊要附上房间"),  # every error at once
])
def test_bad_input_is_refused_and_changes_nothing(client, host, data, error):
    response = as_user(client, host).post(NEW, data)
    assert response.status_code == 200 and error in text(response)
    assert 'role="alert"' in text(response)
    nothing_written()


def test_limits_are_exact(client, host):
    response = as_user(client, host).post(NEW, good(subject="题" * SUBJECT_MAX, body="字" * MESSAGE_MAX))
    assert response.status_code == 302
    ticket = Ticket.objects.get()
    assert len(ticket.subject) == SUBJECT_MAX and len(ticket.messages.get().body) == MESSAGE_MAX


def test_only_rooms_and_hands_the_player_sat_in_can_be_attached(client, host, played, elsewhere):
    room, hand = played
    other_room, other_hand = elsewhere
    as_user(client, host)
    refused = [
        {"room": other_room.pk},  # a room of others
        {"room": 999_999},  # no such room
        {"room": other_room.pk, "hand": other_hand.pk},
        {"room": room.pk, "hand": other_hand.pk},  # a hand of another room
        {"hand": other_hand.pk},  # a hand alone brings its room: not theirs
        {"hand": 999_999},
        {"room": "abc"},
        {"hand": "-3"},
        {"room": "99999999999999999999"},
        {"hand": "99999999999999999999"},
    ]
    for attach in refused:
        response = client.post(NEW, good(category="cheat", **attach))
        assert response.status_code == 200, attach
        html = text(response)
        assert "只能附上你入座过的房间和对局" in html or "这一局不在所选的房间里" in html or "没有这个房间" in html, attach
        nothing_written()
    # their own room and hand
    response = client.post(NEW, good(category="cheat", room=room.pk, hand=hand.pk))
    assert response.status_code == 302
    ticket = Ticket.objects.get()
    assert (ticket.room, ticket.hand, ticket.category) == (room, hand, Ticket.CHEAT)


def test_a_hand_alone_brings_its_room(client, guest, played):
    room, hand = played
    assert as_user(client, guest).post(NEW, good(hand=hand.pk)).status_code == 302
    assert (Ticket.objects.get().room, Ticket.objects.get().hand) == (room, hand)


def test_the_cheating_link_from_the_table_prefills_room_and_hand(client, guest, played):
    room, hand = played
    as_user(client, guest)
    response = client.get(f"{NEW}?category=cheat&room={room.pk}&hand={hand.pk}")
    assert response.status_code == 200
    form = response.context["form"]
    assert (form["category"].value(), form["room"].value(), form["hand"].value()) == ("cheat", room.pk, hand.pk)
    html = text(response)
    assert re.search(rf'<option value="{room.pk}" selected>', html)
    assert re.search(rf'<option value="{hand.pk}" selected>', html)
    assert f"举报作弊：房间 #{room.pk}" in html  # a subject to start from
    assert "attach-refused" not in html
    # the form as the browser sends it back
    data = {"category": "cheat", "room": room.pk, "hand": hand.pk, "subject": form["subject"].value(),
            "body": "对家和下家一直互相喂牌"}
    response = client.post(NEW, data)
    ticket = Ticket.objects.get()
    assert response.status_code == 302 and (ticket.room, ticket.hand) == (room, hand)


def test_the_link_without_a_hand_attaches_the_rooms_current_hand(client, guest, played):
    room, hand = played
    response = as_user(client, guest).get(f"{NEW}?category=cheat&room={room.pk}")
    assert response.context["form"]["hand"].value() == hand.pk


def select_of(html, name):
    """The <select name=…> element of the page ("" if there is none)."""
    m = re.search(r'<select[^>]*name="%s"[^>]*>.*?</select>' % re.escape(name), html, re.S)
    return m.group(0) if m else ""


@pytest.mark.parametrize("query", ["room={room}", "room={room}&hand={hand}", "hand={hand}", "room=xyz",
                                   "room={mine}&hand={hand}"])
def test_a_link_with_a_room_or_hand_of_others_attaches_nothing(client, host, played, elsewhere, query):
    other_room, other_hand = elsewhere
    url = f"{NEW}?category=cheat&" + query.format(room=other_room.pk, hand=other_hand.pk, mine=played[0].pk)
    response = as_user(client, host).get(url)
    assert response.status_code == 200
    html = text(response)
    assert 'data-state="attach-refused"' in html
    form = response.context["form"]
    assert form["room"].value() is None and form["hand"].value() is None
    # neither is offered in its own list (a room's and a hand's ids may be the same number)
    assert select_of(html, "room")  # the player's own rooms are offered (a hand only with its room)
    assert f'<option value="{other_room.pk}"' not in select_of(html, "room")
    assert f'<option value="{other_hand.pk}"' not in select_of(html, "hand")
    assert not re.search(r'name="hand"[^>]*value="%d"' % other_hand.pk, html)


def test_a_player_never_sees_another_players_ticket(client, host, guest, outsider, cs):
    ticket = ticket_of(host)
    for user in (guest, outsider, cs):  # staff work in the admin, not on the player's page
        as_user(client, user)
        assert client.get(detail(ticket)).status_code == 404
        assert client.post(detail(ticket), {"body": "我也来说一句"}).status_code == 404
        assert f'data-ticket="{ticket.pk}"' not in text(client.get(LIST))
    assert ticket.messages.count() == 1
    assert as_user(client, host).get("/support/999999/").status_code == 404
    assert client.get("/support/99999999999999999999/").status_code == 404


def test_internal_notes_are_never_shown_to_the_player(client, host, cs):
    ticket = ticket_of(host)
    services.add_note(cs, ticket.pk, "内部：这个玩家上周也投诉过")
    services.staff_reply(cs, ticket.pk, "您好，已经查到了，金豆会补回。")
    html = text(as_user(client, host).get(detail(ticket)))
    assert "您好，已经查到了，金豆会补回。" in html and "客服" in html
    assert "内部：这个玩家上周也投诉过" not in html and "内部备注" not in html
    assert 'class="msg msg-note"' not in html
    assert "客服小王" not in html  # staff reply as 客服, not by name


def test_the_conversation_and_the_status_as_the_player_sees_them(client, host, cs):
    ticket = ticket_of(host)
    as_user(client, host)
    services.assign(cs, ticket.pk, cs)
    assert "处理中" in text(client.get(detail(ticket)))
    services.staff_reply(cs, ticket.pk, "请问是哪个房间？")
    listing = text(client.get(LIST))
    assert "已回复" in listing and 'data-state="unread"' in listing  # a reply not read yet
    assert "请问是哪个房间？" in text(client.get(detail(ticket)))
    assert 'data-state="unread"' not in text(client.get(LIST))  # opened: read
    # the player's follow-up puts it back in the queue of the one who has it
    response = client.post(detail(ticket), {"body": "房间 123456，第二局。"})
    assert response.status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.ASSIGNED and ticket.assignee == cs and ticket.waiting_since is not None
    bodies = list(ticket.messages.values_list("kind", "body"))
    assert bodies == [("player", "请查一下"), ("reply", "请问是哪个房间？"), ("player", "房间 123456，第二局。")]


def test_a_follow_up_while_waiting_keeps_the_place_in_the_queue(client, host):
    ticket = ticket_of(host)
    Ticket.objects.filter(pk=ticket.pk).update(waiting_since=timezone.now() - timedelta(hours=5))
    as_user(client, host).post(detail(ticket), {"body": "还在等"})
    ticket.refresh_from_db()
    assert ticket.status == Ticket.OPEN and timezone.now() - ticket.waiting_since > timedelta(hours=4)


@pytest.mark.parametrize("body, error", [("", "请写下要说的内容"), ("  ", "请写下要说的内容"),
                                         ("长" * (MESSAGE_MAX + 1), "内容最多 2000 个字")])
def test_a_bad_follow_up_changes_nothing(client, host, cs, body, error):
    ticket = ticket_of(host)
    services.staff_reply(cs, ticket.pk, "已回复")
    audits = AuditLog.objects.count()
    response = as_user(client, host).post(detail(ticket), {"body": body})
    assert response.status_code == 200 and error in text(response)
    ticket.refresh_from_db()
    assert ticket.status == Ticket.ANSWERED and ticket.messages.count() == 2 and AuditLog.objects.count() == audits


def test_a_closed_ticket_takes_no_more_replies(client, host, cs):
    ticket = ticket_of(host)
    services.close(cs, ticket.pk)
    as_user(client, host)
    html = text(client.get(detail(ticket)))
    assert "已关闭" in html and 'data-state="closed"' in html and 'name="body"' not in html
    response = client.post(detail(ticket), {"body": "还没解决"})
    assert response.status_code == 200 and "工单已关闭" in text(response)
    ticket.refresh_from_db()
    assert ticket.status == Ticket.CLOSED and ticket.messages.count() == 1


def test_open_tickets_per_player_are_limited(client, host):
    for n in range(services.MAX_OPEN_TICKETS):
        ticket_of(host, subject=f"问题 {n}")
    response = as_user(client, host).post(NEW, good())
    assert response.status_code == 200 and "没有关闭的工单" in text(response)
    assert Ticket.objects.count() == services.MAX_OPEN_TICKETS


def test_the_lobby_tells_of_unread_replies(client, host, cs):
    ticket = ticket_of(host)
    as_user(client, host)
    assert 'data-state="unread-replies"' not in text(client.get("/lobby/"))
    services.staff_reply(cs, ticket.pk, "好的")
    html = text(client.get("/lobby/"))
    assert 'data-state="unread-replies"' in html and "客服回复了你的 1 个工单" in html
    client.get(detail(ticket))
    assert 'data-state="unread-replies"' not in text(client.get("/lobby/"))


def test_the_pages_in_english(client, host, cs):
    ticket = ticket_of(host)
    services.staff_reply(cs, ticket.pk, "ok")
    as_user(client, host)
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    for url, words in ((LIST, ["Contact support", "Answered", "Bean dispute"]),
                       (NEW, ["Cheating report", "Account problem", "Subject"]),
                       (detail(ticket), ["Support", "Send"])):
        html = text(client.get(url))
        for word in words:
            assert word in html, (url, word)
    response = client.post(NEW, good(body=""))
    assert "Please write what happened" in text(response)


# --- the admin: who gets in --------------------------------------------------------------------------

def test_players_and_visitors_get_nothing_from_the_ticket_admin(client, host, guest):
    ticket = ticket_of(host)
    for user in (None, host, guest):
        client.logout()
        if user:
            client.force_login(user)
        for url in (ADMIN, f"{ADMIN}{ticket.pk}/change/"):
            response = client.get(url)
            assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), url
        response = client.post(f"{ADMIN}{ticket.pk}/change/", {"assignee": "", "state": "close", "reply": "x"})
        assert response.status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.OPEN and ticket.messages.count() == 1 and not AuditLog.objects.exists()


def test_staff_without_the_group_cannot_work_tickets(client, host, staff):
    ticket = ticket_of(host)
    as_user(client, staff)  # is_staff, no group
    assert client.get(ADMIN).status_code == 403
    assert client.post(f"{ADMIN}{ticket.pk}/change/", {"state": "close", "reply": "x"}).status_code == 403
    assert ticket.messages.count() == 1 and not AuditLog.objects.exists()


def test_staff_who_may_only_view_tickets_see_them_read_only(client, host, staff, cs2):
    from django.contrib.auth.models import Permission

    ticket = ticket_of(host)
    services.add_note(cs2, ticket.pk, "只给客服看的备注")
    staff.user_permissions.add(Permission.objects.get(content_type__app_label="support", codename="view_ticket"))
    as_user(client, staff)
    assert client.get(ADMIN).status_code == 200
    html = text(client.get(f"{ADMIN}{ticket.pk}/change/"))
    assert "只给客服看的备注" in html and 'name="reply"' not in html and 'name="assignee"' not in html
    assert _change(client, ticket, reply="不该发出", state="close").status_code == 403
    assert ticket.messages.count() == 2 and AuditLog.objects.filter(action="ticket_note").count() == 1


def test_customer_service_sees_the_queue_oldest_waiting_first(client, host, guest, cs):
    now = timezone.now()
    newer = ticket_of(host, subject="新的")
    older = ticket_of(guest, subject="旧的", category="account")
    answered = ticket_of(guest, subject="已回复的")
    closed = ticket_of(host, subject="关了的")
    Ticket.objects.filter(pk=older.pk).update(waiting_since=now - timedelta(hours=3))
    Ticket.objects.filter(pk=newer.pk).update(waiting_since=now - timedelta(hours=1))
    services.staff_reply(cs, answered.pk, "好")
    services.close(cs, closed.pk)
    as_user(client, cs)
    response = client.get(ADMIN)
    assert response.status_code == 200
    order = [t.pk for t in response.context["cl"].result_list]
    assert order == [older.pk, newer.pk, answered.pk, closed.pk]
    html = text(response)
    assert "待处理" in html and "已回复" in html and "已关闭" in html
    waiting = {t.pk for t in client.get(ADMIN, {"queue": "waiting"}).context["cl"].result_list}
    assert waiting == {older.pk, newer.pk}
    assert {t.pk for t in client.get(ADMIN, {"category": "account"}).context["cl"].result_list} == {older.pk}
    assert {t.pk for t in client.get(ADMIN, {"queue": "closed"}).context["cl"].result_list} == {closed.pk}
    # 客服 neither add nor delete tickets
    assert client.get(f"{ADMIN}add/").status_code == 403
    assert client.get(f"{ADMIN}{older.pk}/delete/").status_code == 403


def test_a_ticket_page_links_the_player_the_room_and_the_hand(client, guest, played, cs):
    room, hand = played
    ticket = ticket_of(guest, category="cheat", room_id=room.pk, hand_id=hand.pk)
    services.add_note(cs, ticket.pk, "内部备注内容")
    html = text(as_user(client, cs).get(f"{ADMIN}{ticket.pk}/change/"))
    assert f'href="/admin/auth/user/{guest.pk}/change/"' in html
    assert f'href="/admin/games/room/{room.pk}/change/"' in html
    assert f'href="/admin/games/hand/{hand.pk}/change/"' in html
    assert "内部备注内容" in html and "玩家看不到" in html  # staff see the notes
    listing = text(client.get(ADMIN))
    assert f'href="/admin/games/hand/{hand.pk}/change/"' in listing


def _change(client, ticket, **data):
    form = {"assignee": "", "state": "", "note": "", "reply": ""}
    form.update({k: str(v) for k, v in data.items()})
    return client.post(f"{ADMIN}{ticket.pk}/change/", form)


def test_customer_service_takes_notes_replies_and_closes_each_audited(client, host, cs):
    ticket = ticket_of(host)
    as_user(client, cs)
    response = _change(client, ticket, assignee=cs.pk, note="先查流水", reply="您好，我们在查。")
    assert response.status_code == 302, text(response)[:2000]
    ticket.refresh_from_db()
    assert (ticket.status, ticket.assignee, ticket.waiting_since) == (Ticket.ANSWERED, cs, None)
    kinds = list(ticket.messages.values_list("kind", "author", "body"))
    assert kinds[1:] == [("note", cs.pk, "先查流水"), ("reply", cs.pk, "您好，我们在查。")]
    rows = list(AuditLog.objects.order_by("id").values_list("staff", "action", "target"))
    assert rows == [(cs.pk, "ticket_assign", f"ticket:{ticket.pk}"), (cs.pk, "ticket_note", f"ticket:{ticket.pk}"),
                    (cs.pk, "ticket_reply", f"ticket:{ticket.pk}")]
    assert "您好，我们在查。" in AuditLog.objects.get(action="ticket_reply").detail
    # close, then reopen
    assert _change(client, ticket, assignee=cs.pk, state="close").status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.CLOSED and ticket.closed_at is not None
    assert _change(client, ticket, assignee=cs.pk, state="reopen").status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.ASSIGNED and ticket.closed_at is None and ticket.waiting_since is not None
    assert list(AuditLog.objects.order_by("id").values_list("action", flat=True))[3:] == ["ticket_close",
                                                                                          "ticket_reopen"]
    # the audit log names these actions and links the ticket
    audit = text(client.get("/admin/accounts/auditlog/"))
    assert "工单：回复玩家" in audit and f'href="/admin/support/ticket/{ticket.pk}/change/"' in audit


def test_assigning_to_another_staff_member(client, host, cs, cs2):
    ticket = ticket_of(host)
    as_user(client, cs)
    assert _change(client, ticket, assignee=cs2.pk).status_code == 302
    ticket.refresh_from_db()
    assert (ticket.assignee, ticket.status) == (cs2, Ticket.ASSIGNED)
    audit = AuditLog.objects.get()
    assert (audit.staff, audit.action) == (cs, "ticket_assign") and "客服小张" in audit.detail
    # back to nobody: open again
    assert _change(client, ticket).status_code == 302
    ticket.refresh_from_db()
    assert (ticket.assignee, ticket.status) == (None, Ticket.OPEN)


def test_refused_admin_changes_change_nothing(client, host, guest, cs):
    ticket = ticket_of(host)
    services.close(cs, ticket.pk)
    before = AuditLog.objects.count()
    as_user(client, cs)
    # a reply to a closed ticket without reopening it
    response = _change(client, ticket, assignee=cs.pk, reply="晚到的回复", note="备注")
    assert response.status_code == 200 and "先重新打开再回复" in text(response)
    # closing it again is not offered
    response = _change(client, ticket, state="close")
    assert response.status_code == 200
    # only staff accounts can have a ticket
    response = _change(client, ticket, assignee=guest.pk)
    assert response.status_code == 200
    ticket.refresh_from_db()
    assert ticket.status == Ticket.CLOSED and ticket.assignee is None and ticket.messages.count() == 1
    assert AuditLog.objects.count() == before
    # an open ticket cannot be "reopened"
    other = ticket_of(host, subject="另一个")
    assert _change(client, other, state="reopen").status_code == 200
    assert Ticket.objects.get(pk=other.pk).status == Ticket.OPEN and AuditLog.objects.count() == before


def test_the_list_actions_assign_close_and_reopen(client, host, guest, cs):
    a, b = ticket_of(host), ticket_of(guest)
    as_user(client, cs)
    client.post(ADMIN, {"action": "assign_to_me", "_selected_action": [a.pk, b.pk]})
    assert set(Ticket.objects.values_list("assignee", "status")) == {(cs.pk, Ticket.ASSIGNED)}
    client.post(ADMIN, {"action": "close_tickets", "_selected_action": [a.pk]})
    client.post(ADMIN, {"action": "close_tickets", "_selected_action": [a.pk]})  # already closed: refused, no row
    assert Ticket.objects.get(pk=a.pk).status == Ticket.CLOSED
    client.post(ADMIN, {"action": "reopen_tickets", "_selected_action": [a.pk, b.pk]})  # b is not closed
    assert Ticket.objects.get(pk=a.pk).status == Ticket.ASSIGNED
    actions = list(AuditLog.objects.order_by("id").values_list("action", "target"))
    assert actions == [("ticket_assign", f"ticket:{a.pk}"), ("ticket_assign", f"ticket:{b.pk}"),
                       ("ticket_close", f"ticket:{a.pk}"), ("ticket_reopen", f"ticket:{a.pk}")]


def test_a_superuser_works_tickets_too(client, host):
    boss = make_person("boss", "老板", is_staff=True, is_superuser=True)
    ticket = ticket_of(host)
    assert _change(as_user(client, boss), ticket, reply="老板亲自回复").status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.ANSWERED and ticket.assignee == boss
    assert set(AuditLog.objects.values_list("action", flat=True)) == {"ticket_assign", "ticket_reply"}
