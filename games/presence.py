"""Who is at the table: a seat is online while one of its sockets was heard from recently.

Every open room socket has one SocketPresence row (games/consumers.py): written when the socket
joins (socket_opened), refreshed by the page's heartbeat ping every 25 s (heartbeat), deleted when
it closes (socket_closed). A seat is online iff it has a row seen within
settings.PRESENCE_TTL_SECONDS (70 s: two lost pings are forgiven). Nothing is counted, so nothing
can leak: a socket whose process crashed, or whose close never reached us, leaves a row that just
stops counting when its TTL runs out, and `expire` (Celery beat, every 30 s) deletes such rows and
tells their rooms.

A change that other seats can see (a seat comes online, or goes offline) bumps the room's version
through services._bump, so every page re-renders its 在线/离线 badges; a heartbeat of a seat that
stays online writes one row and bumps nothing.
"""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from .models import Room, SocketPresence


def ttl() -> timedelta:
    return timedelta(seconds=getattr(settings, "PRESENCE_TTL_SECONDS", 70))


def live(now=None):
    """The rows that count: seen within the TTL."""
    return SocketPresence.objects.filter(seen_at__gte=(now or timezone.now()) - ttl())


def online_positions(room_id: int) -> set:
    """Positions of the room's seats with at least one live socket."""
    return set(live().filter(room_id=room_id).values_list("seat__position", flat=True))


def seat_online(seat_id: int, now=None) -> bool:
    return live(now).filter(seat_id=seat_id).exists()


def with_online(seats, now=None):
    """`seats` (a Seat queryset) annotated with is_online, read by Seat.online: one query for a list."""
    return seats.annotate(is_online=Exists(live(now).filter(seat_id=OuterRef("pk"))))


# --- the room socket's life ------------------------------------------------------------------

def socket_opened(user, room_id: int, channel_name: str, now=None) -> bool:
    """The socket `channel_name` of `user` is open in the room (or heard from again after its row
    expired). False when the user has no seat there."""
    now = now or timezone.now()
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first() if room is not None else None
        if seat is None:
            return False
        was_online = seat_online(seat.pk, now)
        SocketPresence.objects.update_or_create(
            channel_name=channel_name, defaults={"room": room, "seat": seat, "seen_at": now})
        if not was_online:
            _notify(room)
    return True


def heartbeat(user, room_id: int, channel_name: str, now=None) -> bool:
    """The socket pinged: it is alive. One UPDATE while its row still counts (the seat was and stays
    online: nobody needs to hear of it); otherwise the row is written again as on connect."""
    now = now or timezone.now()
    if live(now).filter(channel_name=channel_name).update(seen_at=now):
        return True
    return socket_opened(user, room_id, channel_name, now)


def socket_closed(channel_name: str, now=None):
    """The socket closed: forget it; tell the room when that was the seat's last live socket."""
    now = now or timezone.now()
    row = SocketPresence.objects.filter(channel_name=channel_name).values("room_id", "seat_id").first()
    if row is None:  # never written, or the seat (and its rows) is gone
        return
    with transaction.atomic():
        room = _locked_room(row["room_id"])
        was_online = seat_online(row["seat_id"], now)
        SocketPresence.objects.filter(channel_name=channel_name).delete()
        if room is not None and was_online and not seat_online(row["seat_id"], now):
            _notify(room)


def expire(now=None) -> int:
    """Delete the rows not heard from within the TTL (their process died, or the close was lost)
    and tell each room where a seat went offline that way. Returns the number of rows deleted."""
    now = now or timezone.now()
    cutoff = now - ttl()
    room_ids = set(SocketPresence.objects.filter(seen_at__lt=cutoff).values_list("room_id", flat=True))
    deleted = 0
    for room_id in sorted(room_ids):
        with transaction.atomic():
            room = _locked_room(room_id)
            stale = SocketPresence.objects.filter(room_id=room_id, seen_at__lt=cutoff)
            seat_ids = set(stale.values_list("seat_id", flat=True))
            deleted += stale.delete()[0]
            if room is not None and any(not seat_online(s, now) for s in seat_ids):
                _notify(room)
    return deleted


def _locked_room(room_id):
    """The room row, locked like services does before any change of the room (None: gone)."""
    return Room.objects.select_for_update().filter(pk=room_id).first()


def _notify(room):
    """Bump the room; after commit, a seat that went offline on the result screen may be the one
    the present players were waiting for: deal the next hand if they are all ready."""
    from games import services  # services imports this module

    services.notify.bump(room)
    room_id = room.pk
    transaction.on_commit(lambda: _maybe_next_hand(room_id))


def _maybe_next_hand(room_id):
    from games import services

    if Room.objects.filter(pk=room_id, status=Room.PLAYING).exists():
        services.check_next_hand(room_id)
