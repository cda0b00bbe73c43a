"""The only code that changes tickets. Each function runs in one transaction with the ticket row
locked; a refusal (TicketError, a message for the person) changes nothing. Every staff action
writes its audit row (accounts.audit) in the same transaction.

Status: a new ticket is 待处理 (open); a staff member taking it makes it 处理中 (assigned); a
staff reply makes it 已回复 (answered, the one who replies takes an unassigned ticket); a follow-up
from the player puts it back in the queue (assigned if someone has it, else open); closing makes
it 已关闭 and only staff reopen it. The queue's order is `waiting_since`: when the player's oldest
unanswered message came in.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.audit import record

from .models import MESSAGE_MAX, SUBJECT_MAX, Ticket, TicketMessage

MAX_OPEN_TICKETS = 10  # per player, not closed


class TicketError(Exception):
    """A refused request; the message is for the person who made it."""


def audit_target(ticket) -> str:
    return f"ticket:{ticket.pk}"


# --- what a player may attach --------------------------------------------------------------------

def check_attachment(user, room_id=None, hand_id=None):
    """(room, hand) for a ticket of `user`: only a room the player sat in, and a hand of that room.
    A hand alone brings its room. Unknown ids and rooms of others get the same refusal."""
    from games.models import Hand, Room, Seat

    room = hand = None
    if hand_id is not None:
        hand = Hand.objects.select_related("game").filter(pk=hand_id).first()
        if hand is None:
            raise TicketError(_("只能附上你入座过的房间和对局"))
        if room_id is not None and hand.game.room_id != room_id:
            raise TicketError(_("这一局不在所选的房间里"))
        room_id = hand.game.room_id
    if room_id is not None:
        room = Room.objects.filter(pk=room_id).first()
        if room is None or not Seat.objects.filter(room=room, user=user).exists():
            raise TicketError(_("只能附上你入座过的房间和对局"))
    return room, hand


def latest_hand(room):
    """The room's current (or last) hand, for a report from the table that did not name one."""
    from games.models import Hand

    return Hand.objects.filter(game__room=room).order_by("-number").first()


def _clean_text(text, limit, empty_message, long_message):
    text = (text or "").strip()
    if not text:
        raise TicketError(empty_message)
    if len(text) > limit:
        raise TicketError(long_message % {"n": limit})
    return text


def _clean_body(body):
    return _clean_text(body, MESSAGE_MAX, _("请写下要说的内容"), _("内容最多 %(n)s 个字"))


# --- the player -----------------------------------------------------------------------------------

def create_ticket(user, *, category, subject, body, room_id=None, hand_id=None) -> Ticket:
    if category not in dict(Ticket.CATEGORIES):
        raise TicketError(_("请选择问题类别"))
    subject = _clean_text(subject, SUBJECT_MAX, _("请写一个标题"), _("标题最多 %(n)s 个字"))
    body = _clean_body(body)
    room, hand = check_attachment(user, room_id, hand_id)
    if category == Ticket.CHEAT and room is None:
        raise TicketError(_("举报作弊要附上房间（在牌桌的菜单里举报会自动附上）"))
    with transaction.atomic():
        # lock the player's row so two quick submissions cannot both pass the limit
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if Ticket.objects.filter(user=user).exclude(status=Ticket.CLOSED).count() >= MAX_OPEN_TICKETS:
            raise TicketError(_("你已经有 %(n)s 个没有关闭的工单，请等客服处理后再提交新的") % {"n": MAX_OPEN_TICKETS})
        now = timezone.now()
        ticket = Ticket.objects.create(user=user, category=category, subject=subject, room=room, hand=hand,
                                       waiting_since=now, player_read_at=now)
        TicketMessage.objects.create(ticket=ticket, author=user, kind=TicketMessage.PLAYER, body=body)
    return ticket


def player_reply(user, ticket_id, body) -> TicketMessage:
    body = _clean_body(body)
    with transaction.atomic():
        ticket = Ticket.objects.select_for_update().get(pk=ticket_id, user=user)
        if ticket.status == Ticket.CLOSED:
            raise TicketError(_("工单已关闭，不能再回复；有新问题请提交新的工单"))
        message = TicketMessage.objects.create(ticket=ticket, author=user, kind=TicketMessage.PLAYER, body=body)
        now = timezone.now()
        if ticket.status not in Ticket.AWAITING_STAFF:
            ticket.status = Ticket.ASSIGNED if ticket.assignee_id else Ticket.OPEN
            ticket.waiting_since = now
        ticket.player_read_at = now
        ticket.save(update_fields=["status", "waiting_since", "player_read_at", "updated_at"])
    return message


def mark_read(ticket) -> None:
    if ticket.unread_reply:
        ticket.player_read_at = timezone.now()
        Ticket.objects.filter(pk=ticket.pk).update(player_read_at=ticket.player_read_at)


# --- staff ----------------------------------------------------------------------------------------

def _locked(ticket_id) -> Ticket:
    return Ticket.objects.select_for_update().get(pk=ticket_id)


def _who(user) -> str:
    from accounts.models import display_name

    return f"{display_name(user)}（{user.get_username()}）" if user else _("无人")


def _assign(staff, ticket, assignee) -> bool:
    if assignee is not None and not (assignee.is_staff and assignee.is_active):
        raise TicketError(_("只能分配给客服账号"))
    if ticket.assignee_id == (assignee.pk if assignee else None):
        return False
    before = ticket.assignee
    ticket.assignee = assignee
    if assignee is not None and ticket.status == Ticket.OPEN:
        ticket.status = Ticket.ASSIGNED
    elif assignee is None and ticket.status == Ticket.ASSIGNED:
        ticket.status = Ticket.OPEN
    ticket.save(update_fields=["assignee", "status", "updated_at"])
    record(staff, "ticket_assign", audit_target(ticket),
           _("负责客服：%(old)s → %(new)s") % {"old": _who(before), "new": _who(assignee)})
    return True


def assign(staff, ticket_id, assignee) -> bool:
    """Give the ticket to `assignee` (a staff account) or to nobody. False if nothing changed."""
    with transaction.atomic():
        return _assign(staff, _locked(ticket_id), assignee)


def staff_reply(staff, ticket_id, body) -> TicketMessage:
    """A reply the player sees; the ticket becomes 已回复 (and the replier's if nobody had it)."""
    body = _clean_body(body)
    with transaction.atomic():
        ticket = _locked(ticket_id)
        if ticket.status == Ticket.CLOSED:
            raise TicketError(_("工单已关闭，先重新打开再回复"))
        if ticket.assignee_id is None:
            _assign(staff, ticket, staff)
        message = TicketMessage.objects.create(ticket=ticket, author=staff, kind=TicketMessage.REPLY, body=body)
        ticket.status = Ticket.ANSWERED
        ticket.waiting_since = None
        ticket.last_reply_at = message.created_at
        ticket.save(update_fields=["status", "waiting_since", "last_reply_at", "updated_at"])
        record(staff, "ticket_reply", audit_target(ticket), body)
    return message


def add_note(staff, ticket_id, body) -> TicketMessage:
    """An internal note: staff only, never shown to the player; the status does not change."""
    body = _clean_body(body)
    with transaction.atomic():
        ticket = _locked(ticket_id)
        message = TicketMessage.objects.create(ticket=ticket, author=staff, kind=TicketMessage.NOTE, body=body)
        Ticket.objects.filter(pk=ticket.pk).update(updated_at=timezone.now())
        record(staff, "ticket_note", audit_target(ticket), body)
    return message


def close(staff, ticket_id) -> None:
    with transaction.atomic():
        ticket = _locked(ticket_id)
        if ticket.status == Ticket.CLOSED:
            raise TicketError(_("工单已经关闭"))
        before = ticket.get_status_display()
        ticket.status = Ticket.CLOSED
        ticket.closed_at = timezone.now()
        ticket.waiting_since = None
        ticket.save(update_fields=["status", "closed_at", "waiting_since", "updated_at"])
        record(staff, "ticket_close", audit_target(ticket),
               _("状态：%(old)s → %(new)s") % {"old": before, "new": ticket.get_status_display()})


def reopen(staff, ticket_id) -> None:
    with transaction.atomic():
        ticket = _locked(ticket_id)
        if ticket.status != Ticket.CLOSED:
            raise TicketError(_("工单没有关闭"))
        before = ticket.get_status_display()
        ticket.status = Ticket.ASSIGNED if ticket.assignee_id else Ticket.OPEN
        ticket.closed_at = None
        ticket.waiting_since = timezone.now()
        ticket.save(update_fields=["status", "closed_at", "waiting_since", "updated_at"])
        record(staff, "ticket_reopen", audit_target(ticket),
               _("状态：%(old)s → %(new)s") % {"old": before, "new": ticket.get_status_display()})
