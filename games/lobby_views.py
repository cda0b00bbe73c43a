"""The lobby (create a room, my rooms), the invite/join page and the invite QR code.

Thin views: parse, call one service (games.services), redirect or render.
"""

import qrcode
import qrcode.image.svg
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from games import services
from games.forms import CreateRoomForm
from games.links import invite_url, room_url
from games.models import Room, Seat
from mahjong_site.client_ip import request_ip

FINISHED_SHOWN = 20  # most recent finished/dissolved rooms listed in the lobby


@login_required
@require_http_methods(["GET", "POST"])
def lobby(request):
    if request.method == "POST" and "number" in request.POST:
        return room_number(request)
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
    return _lobby_page(request, form)


def room_number(request):
    """输入房间号: the room's join page (the invite link's, with its checks), or the lobby with why not."""
    try:
        room = services.find_room_by_number(request.POST.get("number"), request.user, request_ip(request))
    except services.ServiceError as e:
        status = 429 if e.code == "throttled" else 200
        return _lobby_page(request, CreateRoomForm(), number_error=str(e),
                           number_typed=str(request.POST.get("number", ""))[:12], status=status)
    return redirect(invite_url(None, room))


@login_required
@require_http_methods(["POST"])
def practice(request):
    """练习: a room with computer players in every other seat, dealt at once (no beans)."""
    from games.engine import variants

    variant = request.POST.get("variant") or "taizhou"
    try:
        players = int(request.POST.get("players") or 4)
    except ValueError:
        players = 0
    if variant not in variants.playable() or players not in (2, 3, 4):
        return _lobby_page(request, CreateRoomForm(), practice_error=_("玩法或人数不对"), status=400)
    try:
        room = services.start_practice(request.user, variant=variant, players=players)
    except services.ServiceError as e:
        return _lobby_page(request, CreateRoomForm(), practice_error=str(e), status=400)
    return redirect(room_url(room))


def _lobby_page(request, form, number_error="", number_typed="", status=200, practice_error=""):
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
        "number_error": number_error,
        "number_typed": number_typed,
        "practice_error": practice_error,
    }
    return render(request, "games/lobby.html", context, status=status)


def _open_graph(request, room, seats) -> dict:
    """The card a chat app shows for a pasted invite link: e.g. "台州麻将 · 4人 · 8局 · 100金豆/胡",
    and who is seated with how many seats are free."""
    from django.templatetags.static import static
    from django.utils.translation import gettext as _

    from games.links import length_label, stake_label

    from django.utils.translation import get_language

    tight = (get_language() or "zh").startswith("zh")  # "8局", "100金豆/胡" as Chinese writes them in a title
    squeeze = (lambda text: text.replace(" ", "")) if tight else str
    title = " · ".join([str(room.get_variant_display()), _("%(n)s人") % {"n": room.players},
                        squeeze(length_label(room)), squeeze(stake_label(room))])
    names = "、".join(s.name for s in seats)
    free = max(0, room.players - len(seats))
    description = (_("已入座：%(names)s。还差 %(n)s 人。") % {"names": names, "n": free} if free
                   else _("已入座：%(names)s。") % {"names": names})
    return {"og_title": title, "og_description": description, "og_url": request.build_absolute_uri(),
            "og_image": request.build_absolute_uri(static("icons/icon-512.png"))}


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
        **_open_graph(request, room, seats),
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
