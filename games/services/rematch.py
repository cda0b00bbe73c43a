"""再来一局: a rematch with the same rules and the same seats.

When a game has ended any of its players may propose a rematch: a new waiting room is opened with
every rule of the old one (variant and its settings, players, length, stake, times, minimum
balance, replay sharing), the proposer as its host, seated at their old position; the old room
points to it (`Room.rematch`). Each other player of the old game who accepts is seated at their
old position too. Nobody is seated without pressing; those who do not accept can still come by the
new room's invite link, like anyone (same checks: full, started, revoked, frozen, balance)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from games.models import Room, Seat

from . import handstate, notify, room_numbers
from .errors import ServiceError
from .rooms import check_can_sit

# the rules a rematch copies from the old room
COPIED = ("variant", "players", "length_kind", "length", "stake", "turn_seconds", "claim_seconds", "min_balance",
          "settings", "replay_visibility", "replay_hide_names", "hints_allowed",
          "spectators", "spectator_delay")


def rematch(user, room_id: int) -> Room:
    """Propose the rematch of a finished game, or accept the one proposed: the player is seated at
    their old position in the rematch room, which is returned."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.status != Room.FINISHED:
            raise ServiceError("not_finished", _("这场牌局结束后才能再来一局"))
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        check_can_sit(user, room.min_balance)
        new = Room.objects.select_for_update().filter(pk=room.rematch_id).first() if room.rematch_id else None
        if new is None or new.status == Room.DISSOLVED:  # none yet, or its host closed it before it started
            new = Room.objects.create(host=user, **{name: getattr(room, name) for name in COPIED})
            Seat.objects.create(room=new, user=user, position=seat.position)
            room_numbers.assign_number(new)
            room.rematch = new
            room.save(update_fields=["rematch"])
        elif not new.seats.filter(user=user).exists():
            if new.status != Room.WAITING:
                raise ServiceError("room_started", _("再来一局已经开始或结束，不能再加入"))
            taken = set(new.seats.values_list("position", flat=True))
            if seat.position in taken:  # someone came by the link first: the next free seat
                free = [p for p in range(new.players) if p not in taken]
                if not free:
                    raise ServiceError("room_full", _("房间已满"))
                position = free[0]
            else:
                position = seat.position
            Seat.objects.create(room=new, user=user, position=position)
        notify.bump(new)
        notify.bump(room)
        return new
