"""The lobby: create a room, my rooms.

Thin views: parse, call one service (games.services), redirect or render.
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from games import services
from games.forms import CreateRoomForm
from games.links import room_url
from games.models import Room

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
        .order_by("-created_at")
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

