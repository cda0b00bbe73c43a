"""Safety: frozen accounts, same-IP warnings and shared locations (防作弊). Every staff action is
written to the audit log."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.hot_queries import Prepared
from games.models import Alert, Room, Seat

from . import handstate, notify
from .errors import ServiceError

def is_frozen(user) -> bool:
    """Read fresh from the database: a socket's user object lives as long as the socket."""
    if user is None or not getattr(user, "pk", None):
        return False
    return _FROZEN.first(user.pk) is not None


def _frozen_profile(user_id):
    from accounts.models import Profile

    return Profile.objects.filter(user_id=user_id, frozen=True)[:1]


_FROZEN = Prepared(_frozen_profile)  # asked before every room action (consumers._perform): compiled once


def set_frozen(staff, user, frozen: bool, reason: str):
    """Freeze (or unfreeze) an account: a frozen player cannot sit down or play; their seats in
    running games go on auto-play (托管)."""
    from accounts.audit import record
    from accounts.models import Profile

    if frozen and not (reason or "").strip():
        raise ServiceError("reason_required", _("请填写冻结原因"))
    with transaction.atomic():
        profile, _created = Profile.objects.select_for_update().get_or_create(user=user)
        profile.frozen = frozen
        profile.frozen_reason = (reason or "").strip()[:200] if frozen else ""
        profile.save(update_fields=["frozen", "frozen_reason"])
        if frozen:
            for seat in Seat.objects.select_related("room").filter(user=user, room__status=Room.PLAYING):
                seat.auto_play = True
                seat.save(update_fields=["auto_play"])
                notify.bump(seat.room)
        record(staff, "freeze" if frozen else "unfreeze", f"user:{user.pk}", reason or "")


def record_presence(user, room_id: int, ip: str | None):
    """Remember where a seated player connects from; warn about shared addresses."""
    from accounts.models import SeenIP

    if not ip:
        return
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            return
        SeenIP.objects.update_or_create(user=user, ip=ip)
        if seat.ip != ip:
            seat.ip = ip
            seat.save(update_fields=["ip"])
            notify.bump(room)
        _check_same_ip(room)
        check_watcher_ips(room)


def same_ip_groups(seats) -> list:
    """Groups of 2+ seats sharing an address: [(ip, [positions])]."""
    by_ip: dict = {}
    for s in seats:
        if s.ip:
            by_ip.setdefault(s.ip, []).append(s.position)
    return [(ip, sorted(ps)) for ip, ps in sorted(by_ip.items()) if len(ps) > 1]


def _check_same_ip(room):
    seats = list(room.seats.select_related("user"))
    for ip, positions in same_ip_groups(seats):
        alert, created = Alert.objects.get_or_create(
            room=room, kind=Alert.SAME_IP, detail=f"{ip}: " + ",".join(str(p) for p in positions),
            defaults={"positions": positions})
        if created:
            alert.users.set([s.user for s in seats if s.position in positions])


def check_watcher_ips(room):
    """观战: a spectator (a live SpectatorSocket row) connecting from a seated player's address is
    flagged to customer service, one Alert (kind watch_ip) per spectator, address and seats; the
    players are not told (a watcher is not at the table). Called when a spectator connects and
    when a seated player's address is recorded. The room row is locked by the caller."""
    from games.spectators import _live

    seats = list(room.seats.select_related("user").filter(user__isnull=False, ip__isnull=False))
    if not seats:
        return
    by_ip: dict = {}
    for s in seats:
        by_ip.setdefault(s.ip, []).append(s)
    watchers = _live().filter(room=room, ip__in=list(by_ip)).select_related("user")
    for row in watchers:
        matched = sorted(by_ip[row.ip], key=lambda s: s.position)
        positions = [s.position for s in matched]
        alert, created = Alert.objects.get_or_create(
            room=room, kind=Alert.WATCH_IP,
            detail=f"{row.ip}: " + ",".join(str(p) for p in positions) + f" + 观战 user {row.user_id}",
            defaults={"positions": positions})
        if created:
            alert.users.set([s.user for s in matched] + [row.user])


def set_location(user, room_id: int, latitude, longitude):
    """A player shares their browser location (never required)."""
    import math

    if isinstance(latitude, bool) or isinstance(longitude, bool):
        raise ServiceError("bad_location", _("位置格式不对"))
    try:
        lat, lon = float(latitude), float(longitude)
    except (TypeError, ValueError, OverflowError):
        raise ServiceError("bad_location", _("位置格式不对")) from None
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise ServiceError("bad_location", _("位置格式不对"))
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        seat.latitude, seat.longitude, seat.located_at = lat, lon, timezone.now()
        seat.save(update_fields=["latitude", "longitude", "located_at"])
        _check_distances(room)
        notify.bump(room)


def distance_m(a, b) -> float:
    """Great-circle distance in metres between two (lat, lon) points (haversine)."""
    import math

    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_000 * math.asin(min(1.0, math.sqrt(h)))


def seat_distances(seats) -> list:
    """[(position a, position b, metres)] for every pair that shared a location."""
    located = [s for s in seats if s.latitude is not None and s.longitude is not None]
    out = []
    for i, a in enumerate(located):
        for b in located[i + 1:]:
            out.append((a.position, b.position, distance_m((a.latitude, a.longitude), (b.latitude, b.longitude))))
    return out


def _check_distances(room):
    from accounts.models import SiteSettings

    limit = SiteSettings.current().near_meters
    seats = list(room.seats.select_related("user"))
    by_pos = {s.position: s for s in seats}
    for a, b, metres in seat_distances(seats):
        if metres < limit:
            alert, created = Alert.objects.get_or_create(
                room=room, kind=Alert.NEAR, detail=f"{a},{b} < {limit} m", defaults={"positions": [a, b]})
            if created:
                alert.users.set([by_pos[a].user, by_pos[b].user])


