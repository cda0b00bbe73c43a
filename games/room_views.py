"""The room page /room/<id>/: waiting room, table, result and summary in one page.

The page is the full view of one seat; the room socket (games/consumers.py) keeps its fragments
up to date. Only seated players may open it; others are told to use the invite link (403).
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import get_language

from games import table
from games.models import Room


@login_required
def room(request, room_id: int):
    if not Room.objects.filter(pk=room_id).exists():
        raise Http404("no such room")
    lang = table.ui_lang(get_language())
    base_url = request.build_absolute_uri("/").rstrip("/")
    ctx = table.seat_context(room_id, request.user, lang, base_url=base_url)
    if ctx is None:
        return render(request, "games/room_forbidden.html", {"lobby_url": table.lobby_url()}, status=403)
    from django.utils.translation import gettext

    from games import phrases

    ctx["phrase_list"] = [(pid, gettext(words)) for pid, words in phrases.PHRASES]
    ctx["phrase_emoji"] = phrases.EMOJI
    response = render(request, "games/room.html", ctx)
    response["Cache-Control"] = "no-store"  # the page is a live view; never show a stale copy
    return response


@login_required
def watch(request, room_id: int, key: str):
    """观战: the read-only table of a room that allows this user to watch (games/spectators.py).
    A seated player is sent to their own page; a wrong key is a 404 like a room that does not exist."""
    from games import spectators

    room = Room.objects.filter(pk=room_id).first()
    if room is None or not spectators.key_ok(room_id, key):
        raise Http404("no such room")
    allowed = spectators.may_watch(room, request.user)
    if allowed == spectators.SEATED:
        return redirect("games:room", room_id=room_id)
    if allowed != spectators.OK:
        return render(request, "games/watch_forbidden.html", {"lobby_url": table.lobby_url(), "room": room},
                      status=403)
    ctx = spectators.spectator_context(room_id, request.user, table.ui_lang(get_language()))
    if ctx is None:
        raise Http404("no such room")
    response = render(request, "games/room.html", ctx)
    response["Cache-Control"] = "no-store"
    return response
