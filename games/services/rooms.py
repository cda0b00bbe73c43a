"""Rooms before the game: create, join by invite, leave, remove a player, close, invite links.
Room options are checked here, once: `room_option_errors` asks the variant's RoomOptions (the
one definition of the bounds) and words its codes; the create-room form calls it too."""

from __future__ import annotations

import secrets

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import beans
from games.engine import variants
from games.models import Room, Seat

from . import handstate, notify, room_numbers, safety
from .errors import ServiceError

DEFAULT_VARIANT = "taizhou"

# The words for RoomOptions.validate's (field, code) pairs; the bounds themselves are the
# variant's (games/engine/variants/base.py RoomOptions), so a message names them from there.
FIELD_LABELS = {
    "variant": gettext_noop("玩法"),
    "players": gettext_noop("人数"),
    "length": gettext_noop("局数"),
    "length_kind": gettext_noop("局数"),
    "stake": gettext_noop("底注（金豆/胡）"),
    "turn_seconds": gettext_noop("出牌时间（秒）"),
    "claim_seconds": gettext_noop("吃碰时间（秒）"),
    "min_balance": gettext_noop("入座最低金豆"),
    "odd_base": gettext_noop("底数"),
    "dan": gettext_noop("弹"),
    "throws": gettext_noop("扔弹"),
}
RANGE_MESSAGES = {
    "stake": gettext_noop("底注应在 %(lo)s 到 %(hi)s 金豆之间"),
    "turn_seconds": gettext_noop("出牌时间应在 %(lo)s–%(hi)s 秒之间"),
    "claim_seconds": gettext_noop("吃碰时间应在 %(lo)s–%(hi)s 秒之间"),
    "min_balance": gettext_noop("入座最低金豆应在 %(lo)s 到 %(hi)s 之间"),
}


def playable_variant(name):
    """The registered, playable Variant of this name, or None."""
    try:
        rules = variants.get(name)
    except variants.UnknownVariant:
        return None
    return rules if rules.playable else None


def _option_message(room_options, field, code) -> str:
    label = _(FIELD_LABELS.get(field, field))
    if code == "not_a_number":
        return _("“%(field)s”应为整数") % {"field": label}
    if code == "not_allowed" and field == "players":
        return _("人数只能是 %(choices)s") % {"choices": "/".join(str(n) for n in room_options.players)}
    if code == "not_allowed" and field == "length":
        hands, rounds = ("/".join(str(n) for k, n in room_options.lengths if k == kind)
                         for kind in (Room.HANDS, Room.ROUNDS))
        if hands and rounds:
            return _("局数只能是 %(hands)s 局或 %(rounds)s 圈") % {"hands": hands, "rounds": rounds}
        if hands:
            return _("局数只能是 %(hands)s 局") % {"hands": hands}
        return _("局数只能是 %(rounds)s 圈") % {"rounds": rounds}
    if code == "out_of_range" and field in RANGE_MESSAGES:
        lo, hi = getattr(room_options, field)
        return _(RANGE_MESSAGES[field]) % {"lo": f"{lo:,}", "hi": f"{hi:,}"}
    if code == "unknown_field":
        return _("没有“%(field)s”这个房间选项") % {"field": label}
    return _("“%(field)s”不能是这个值") % {"field": label}


def room_option_errors(options: dict) -> list:
    """[(field, message)] for every bad room option (the variant's RoomOptions.validate, worded
    in the active language; fields as validate names them, "length_kind" reported as "length").
    The one check of a room's options: create_room refuses with the first, the lobby form shows
    each on its field."""
    rules = playable_variant(options.get("variant", DEFAULT_VARIANT))
    if rules is None:
        return [("variant", _("暂不支持这个玩法"))]
    out = []
    for field, code in rules.room_options.validate(options):
        field = "length" if field == "length_kind" else field
        message = _option_message(rules.room_options, field, code)
        if (field, message) not in out:
            out.append((field, message))
    return out


def check_can_sit(user, min_balance: int = 0):
    """A frozen account, a player at the day's bean limit, or below the room's minimum, cannot sit down."""
    if safety.is_frozen(user):
        raise ServiceError("frozen", _("你的账号已被冻结，不能入座；请联系客服"))
    if beans.day_limit_reached(user):
        raise ServiceError("day_limit", _("你今天的金豆输赢已达到每日上限，明天再来吧（进行中的对局可以打完）"))
    balance = beans.wallet_for(user).balance
    if balance < min_balance:
        raise ServiceError("min_balance", _("这个房间要求至少 %(need)s 金豆才能入座，你现在有 %(have)s") % {"need": min_balance, "have": balance})


def create_room(user, *, variant=DEFAULT_VARIANT, players=None, length_kind=None, length=None, stake=None,
                turn_seconds=None, claim_seconds=None, min_balance=None, settings=None, hints_allowed=True,
                spectators=Room.WATCH_NOBODY, spectator_delay=3) -> Room:
    """A room with these options (None = the variant's default), the host seated at position 0.
    `settings`: the variant's own settings (RoomOptions.settings, e.g. {"odd_base": True})."""
    given = {"players": players, "length_kind": length_kind, "length": length, "stake": stake,
             "turn_seconds": turn_seconds, "claim_seconds": claim_seconds, "min_balance": min_balance}
    if settings is not None and not isinstance(settings, dict):
        raise ServiceError("bad_option", _("“%(field)s”不能是这个值") % {"field": _("玩法设置")})
    options = {"variant": variant, **{k: v for k, v in given.items() if v is not None}, **(settings or {})}
    errors = room_option_errors(options)
    if errors:
        raise ServiceError("bad_option", errors[0][1])
    options = variants.get(variant).room_options.with_defaults(options)
    players, length_kind, length = options["players"], options["length_kind"], options["length"]
    stake, turn_seconds, claim_seconds = options["stake"], options["turn_seconds"], options["claim_seconds"]
    min_balance = options["min_balance"]
    own = {s.name: options[s.name] for s in variants.get(variant).room_options.settings}
    if spectators not in dict(Room.WATCH_CHOICES):
        raise ServiceError("bad_option", _("“%(field)s”不能是这个值") % {"field": _("观战")})
    if spectator_delay not in Room.WATCH_DELAYS:
        raise ServiceError("bad_option", _("“%(field)s”不能是这个值") % {"field": _("观战延迟")})
    check_can_sit(user, min_balance)
    with transaction.atomic():
        room = Room.objects.create(host=user, variant=variant, players=players, length_kind=length_kind,
                                   length=length, stake=stake, turn_seconds=turn_seconds,
                                   claim_seconds=claim_seconds, min_balance=min_balance, settings=own,
                                   hints_allowed=bool(hints_allowed), spectators=spectators,
                                   spectator_delay=spectator_delay)
        Seat.objects.create(room=room, user=user, position=0)
        room_numbers.assign_number(room)
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
        if room.status in room_numbers.OPEN:
            room_numbers.assign_number(room)  # the old number went with the old link
        notify.bump(room)
        return room


def revoke_invite(host, room_id: int):
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError("not_host", _("只有房主可以收回邀请链接"))
        room.invite_revoked = True
        room.number = None  # a revoked invite retires the room number too
        room.save(update_fields=["invite_revoked", "number"])
        notify.bump(room)


