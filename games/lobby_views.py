"""The lobby (create a room, my rooms), the invite/join page and the invite QR code.

Thin views: parse, call one service (games.services), redirect or render.
"""

import qrcode
import qrcode.image.svg
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from games import services
from games.forms import CreateRoomForm
from games.links import invite_url, room_url
from games.models import Room, Seat

FINISHED_SHOWN = 20  # most recent finished/dissolved rooms listed in the lobby


@login_required
@require_http_methods(["GET", "POST"])
def lobby(request):
    if request.method == "POST":
        form = CreateRoomForm(request.POST)
        if form.is_valid():
            try:
                room = services.create_room(request.user, **form.room_options())
            except services.ServiceError as e:
                form.add_error(None, str(e))
            else:
                return redirect(room_url(room))
    else:
        form = CreateRoomForm()
    rooms = (
        Room.objects.filter(seats__user=request.user)
        .select_related("host__profile")
        .prefetch_related("seats__user__profile")
        .order_by("-created_at", "-pk")
    )
    groups = {Room.WAITING: [], Room.PLAYING: [], "over": []}
    for room in rooms:
        groups.get(room.status, groups["over"]).append(room)
    context = {
        "form": form,
        "waiting": groups[Room.WAITING],
        "playing": groups[Room.PLAYING],
        "over": groups["over"][:FINISHED_SHOWN],
    }
    return render(request, "games/lobby.html", context)


def _join_state(room, seat, seated):
    """What the join page offers: one of seated, revoked, playing, finished, dissolved, full, open."""
    if seat is not None:
        return "seated"
    if room.invite_revoked:
        return "revoked"
    if room.status != Room.WAITING:
        return room.status
    if seated >= room.players:
        return "full"
    return "open"


@require_http_methods(["GET", "POST"])
def join(request, token):
    """The invite link. A token that opens no room is a 404 page (nothing changes)."""
    room = Room.objects.filter(token=token).select_related("host__profile").first()
    if room is None:
        return render(request, "games/join_invalid.html", status=404)
    error = ""
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        try:
            services.join_room(request.user, token)
        except services.ServiceError as e:
            error = str(e)
            room.refresh_from_db()
        else:
            return redirect(room_url(room))
    seats = list(room.seats.select_related("user__profile"))
    seat = next((s for s in seats if s.user_id == request.user.pk), None) if request.user.is_authenticated else None
    context = {
        "room": room,
        "seats": seats,
        "free_seats": range(max(0, room.players - len(seats))),
        "state": _join_state(room, seat, len(seats)),
        "error": error,
        "room_url": room_url(room),
    }
    return render(request, "games/join.html", context)


@require_GET
@never_cache
def invite_svg(request, room_id):
    """The invite link as a QR code (SVG), for players seated in the room only."""
    if not request.user.is_authenticated:
        raise Http404
    room = get_object_or_404(Room, pk=room_id)
    if room.invite_revoked or not Seat.objects.filter(room=room, user=request.user).exists():
        raise Http404
    image = qrcode.make(
        invite_url(request, room),
        image_factory=qrcode.image.svg.SvgPathImage,
        error_correction=qrcode.constants.ERROR_CORRECT_M,
        border=2,
    )
    return HttpResponse(image.to_string(encoding="unicode"), content_type="image/svg+xml")
