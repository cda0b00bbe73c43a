"""Dissolving a running game (解散): by vote (absent seats count as agreeing when the 60 s
window ends) or by customer service. The hand in progress is void; no beans move."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import presence
from games.models import Game, Hand, Room

from . import handstate, notify, schedule
from .errors import ServiceError

DISSOLVE_WINDOW = timedelta(seconds=60)


def vote_dissolve(user, room_id: int, agree: bool = True, now=None):
    """Any seated player may ask to dissolve (申请解散); the hand in progress is then void.
    The rule shown on the page: the room closes as soon as every seat agrees; when the 60 s
    window ends, seats that are offline or on 托管 and did not answer count as agreeing, so
    the present players can close a room a friend walked away from. Any refusal ends the
    request."""
    now = now or timezone.now()
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if room.status != Room.PLAYING:
            raise ServiceError("not_playing", _("对局没有在进行"))
        started = room.dissolve_started_at
        if started is None or now - started > DISSOLVE_WINDOW:
            if not agree:
                raise ServiceError("no_request", _("没有进行中的解散申请"))
            room.dissolve_started_at = now
            room.dissolve_votes = []
            room_pk, eta = room.pk, now + DISSOLVE_WINDOW
            transaction.on_commit(lambda: schedule.dissolve_end(room_pk, eta))
        if not agree:
            room.dissolve_started_at = None
            room.dissolve_votes = []
        elif seat.position not in room.dissolve_votes:
            room.dissolve_votes = sorted(room.dissolve_votes + [seat.position])
        if agree:  # computer players always agree at once
            bots = set(room.seats.filter(bot=True).values_list("position", flat=True))
            room.dissolve_votes = sorted(set(room.dissolve_votes) | bots)
        if agree and len(room.dissolve_votes) == room.players:
            close_room_now(room, now)
        room.save(update_fields=["dissolve_started_at", "dissolve_votes", "status"])
        notify.bump(room)


def end_dissolve_window(room_id: int, now=None) -> bool:
    """The dissolve request's 60 s are over: dissolve if every seat agreed or is absent (offline
    or 托管) without having answered; otherwise the request lapses. True if dissolved."""
    now = now or timezone.now()
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        started = room.dissolve_started_at
        if room.status != Room.PLAYING or started is None or now - started < DISSOLVE_WINDOW:
            return False
        online = presence.online_positions(room.pk)
        seats = list(room.seats.all())
        absent = {s.position for s in seats if s.position not in online or s.auto_play}
        agreed = set(room.dissolve_votes)
        dissolved = bool(agreed) and all(s.position in agreed or s.position in absent for s in seats)
        if dissolved:
            close_room_now(room, now)
        else:
            room.dissolve_started_at = None
            room.dissolve_votes = []
        room.save(update_fields=["dissolve_started_at", "dissolve_votes", "status"])
        notify.bump(room)
        return dissolved


def close_room_now(room: Room, now):
    """Close a running room (row locked): the hand in progress is void, no beans move."""
    room.status = Room.DISSOLVED
    hand = handstate.current_hand(room)
    if hand is not None and hand.status == Hand.PLAYING:
        hand.status = Hand.VOID
        hand.deadline = None
        hand.save(update_fields=["status", "deadline"])
    elif hand is not None and hand.deadline is not None:
        hand.deadline = None  # no next hand to deal
        hand.save(update_fields=["deadline"])
    game = Game.objects.filter(room=room).first()
    if game and not game.finished_at:
        game.finished_at = now
        game.save(update_fields=["finished_at"])


def force_dissolve(staff, room_id: int, reason: str):
    """Close a stuck room: the hand in progress is void and no beans move."""
    from accounts.audit import record

    if not (reason or "").strip():
        raise ServiceError("reason_required", _("请填写解散原因"))
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if room.status in (Room.FINISHED, Room.DISSOLVED):
            raise ServiceError("room_over", _("这个房间已经结束"))
        close_room_now(room, timezone.now())
        room.save(update_fields=["status"])
        record(staff, "force_dissolve", f"room:{room.pk}", reason)
        notify.bump(room)


