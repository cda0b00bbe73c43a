"""Rooms before the game: create, join by invite, leave, remove a player, close, invite links.
Room options are checked here (the create-room form checks them for the page too)."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts import beans
from games.models import Room, Seat

from . import handstate, notify, safety
from .errors import ServiceError

HAND_LENGTHS = (4, 8, 16)


ROUND_LENGTHS = (1, 2)


def check_can_sit(user, min_balance: int = 0):
    """A frozen account, a player at the day's bean limit, or below the room's minimum, cannot sit down."""
    if safety.is_frozen(user):
        raise ServiceError("frozen", _("你的账号已被冻结，不能入座；请联系客服"))
    if beans.day_limit_reached(user):
        raise ServiceError("day_limit", _("你今天的金豆输赢已达到每日上限，明天再来吧（进行中的对局可以打完）"))
    balance = beans.wallet_for(user).balance
    if balance < min_balance:
        raise ServiceError("min_balance", _("这个房间要求至少 %(need)s 金豆才能入座，你现在有 %(have)s") % {"need": min_balance, "have": balance})


def create_room(user, *, variant="taizhou", players=4, length_kind=Room.HANDS, length=8, stake=100,
                turn_seconds=15, claim_seconds=8, min_balance=0) -> Room:
    if variant != "taizhou":
        raise ServiceError("bad_option", _("暂不支持这个玩法"))
    if players not in (2, 3, 4):
        raise ServiceError("bad_option", _("人数只能是 2、3 或 4"))
    if (length_kind, length) not in [(Room.HANDS, n) for n in HAND_LENGTHS] + [(Room.ROUNDS, n) for n in ROUND_LENGTHS]:
        raise ServiceError("bad_option", _("局数只能是 4/8/16 局或 1/2 圈"))
    if not 1 <= stake <= 1_000_000:
        raise ServiceError("bad_option", _("底注应在 1 到 1,000,000 金豆之间"))
    if not 5 <= turn_seconds <= 120 or not 3 <= claim_seconds <= 60:
        raise ServiceError("bad_option", _("出牌时间 5–120 秒，吃碰时间 3–60 秒"))
    if not isinstance(min_balance, int) or min_balance < 0:
        raise ServiceError("bad_option", _("入座最低金豆不能是负数"))
    check_can_sit(user, min_balance)
    with transaction.atomic():
        room = Room.objects.create(host=user, variant=variant, players=players, length_kind=length_kind,
                                   length=length, stake=stake, turn_seconds=turn_seconds,
                                   claim_seconds=claim_seconds, min_balance=min_balance)
        Seat.objects.create(room=room, user=user, position=0)
    return room


def join_room(user, token: str) -> Seat:
    """Sit down at the next free position of the room this invite token opens."""
    if not isinstance(token, str) or not token:
        raise ServiceError("bad_invite", _("邀请链接无效"))
    with transaction.atomic():
        room = Room.objects.select_for_update().filter(token=token, invite_revoked=False).first()
        if room is None:
            raise ServiceError("bad_invite", _("邀请链接无效或已被房主收回"))
        seat = room.seats.filter(user=user).first()
        if seat:
            return seat
        if room.status != Room.WAITING:
            raise ServiceError("room_started", _("这局已经开始或结束，不能再加入"))
        check_can_sit(user, room.min_balance)
        taken = set(room.seats.values_list("position", flat=True))
        free = [p for p in range(room.players) if p not in taken]
        if not free:
            raise ServiceError("room_full", _("房间已满"))
        try:
            with transaction.atomic():
                seat = Seat.objects.create(room=room, user=user, position=free[0])
        except IntegrityError:
            raise ServiceError("room_full", _("房间已满")) from None
        notify.bump(room)
        return seat


def leave_room(user, room_id: int):
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.status != Room.WAITING:
            raise ServiceError("room_started", _("对局已开始，不能离开；可以申请解散"))
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if room.host_id == user.pk:
            room.status = Room.DISSOLVED  # the host leaving closes the room
            room.save(update_fields=["status"])
        seat.delete()
        notify.bump(room)


def remove_player(host, room_id: int, position: int):
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError("not_host", _("只有房主可以请人离开"))
        if room.status != Room.WAITING:
            raise ServiceError("room_started", _("对局已开始，不能请人离开"))
        seat = room.seats.filter(position=position).exclude(user=host).first()
        if seat is None:
            raise ServiceError("no_such_seat", _("这个座位没有其他玩家"))
        seat.delete()
        notify.bump(room)


def close_room(host, room_id: int):
    """解散 before the start: the host closes the room."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError("not_host", _("只有房主可以解散房间"))
        if room.status != Room.WAITING:
            raise ServiceError("room_started", _("对局已开始：请所有玩家同意解散"))
        room.status = Room.DISSOLVED
        room.save(update_fields=["status"])
        notify.bump(room)


def new_invite(host, room_id: int) -> Room:
    """Revoke the current invite link and make a new one."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError("not_host", _("只有房主可以更换邀请链接"))
        room.token = secrets.token_urlsafe(18)
        room.invite_revoked = False
        room.save(update_fields=["token", "invite_revoked"])
        notify.bump(room)
        return room


def revoke_invite(host, room_id: int):
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError("not_host", _("只有房主可以收回邀请链接"))
        room.invite_revoked = True
        room.save(update_fields=["invite_revoked"])
        notify.bump(room)


