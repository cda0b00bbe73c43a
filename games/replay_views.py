"""Replay pages: the viewer /replay/<token>/ and the download /replay/<token>.json.

Who may open a replay is the room's choice (Room.replay_visibility): "link" — anyone with the
link, even signed out; "players" — only the room's seated players (signed-out visitors are sent
to log in, others get a friendly 404). Staff may open every replay. With Room.replay_hide_names,
viewers who did not play see 玩家1…4 instead of nicknames, on the page and in the download.

Frames are server-rendered: ?step=k returns the whole page; htmx requests get only the frame
(templates/games/replay.html#frame). Everything shown is re-computed by the engine from the
stored record (games/replay_frames.py). A replay the Celery task has not stored yet is built on
the spot (games.replays.ensure).
"""

from __future__ import annotations

import copy
import json

from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import replay_frames, replays
from games.phrases import phrase_text
from games.models import Replay, Room, Seat
from games.table import SIDE_ORDER, relative_label, side_of
from games.variant_names import unit_label


def ui_lang() -> str:
    return "en" if (get_language() or "").lower().startswith("en") else "zh"


def unavailable(request, message: str = "", status: int = 404):
    """The friendly 'no such replay (for you)' page."""
    return render(request, "games/replay_unavailable.html", {"message": message}, status=status)


def is_player(user, room) -> bool:
    return bool(user.is_authenticated) and Seat.objects.filter(room=room, user=user).exists()


def seat_of(user, room) -> int | None:
    """The viewer's position at this room, or None."""
    if not user.is_authenticated:
        return None
    return Seat.objects.filter(room=room, user=user).values_list("position", flat=True).first()


def arrange(frame: dict, bottom: int, viewer_plays: bool) -> dict:
    """Seat the frame's players around the table as live play does (games/table.py): `bottom`
    (the viewer's own seat, else the first) at the bottom, 下家 right, 对家 top, 上家 left."""
    n = len(frame["players"])
    for p in frame["players"]:
        d = (p["position"] - bottom) % n
        p.update(d=d, side=side_of(d, n), rel="" if d == 0 and not viewer_plays else relative_label(d, n),
                 online=True)
    frame["mine"] = next(p for p in frame["players"] if p["d"] == 0)
    frame["others"] = sorted((p for p in frame["players"] if p["d"]), key=lambda p: SIDE_ORDER[p["side"]])
    return frame


def access(request, room):
    """(response to send instead, or None; the viewer is a player; the viewer is staff)."""
    user = request.user
    player = is_player(user, room)
    staff = bool(user.is_authenticated and user.is_staff)
    if room.replay_visibility == Room.REPLAY_LINK or player or staff:
        return None, player, staff
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path()), player, staff
    return unavailable(request), player, staff


def hidden_name(position: int) -> str:
    return _("玩家%(n)s") % {"n": position + 1}


def names_for(record: dict, room, hide: bool) -> dict:
    """{position: the name this viewer sees}."""
    n = int((record.get("options") or {}).get("players") or room.players)
    shown = {p["position"]: p["name"] for p in record.get("players") or [] if isinstance(p, dict) and "position" in p}
    return {p: hidden_name(p) if hide or p not in shown else shown[p] for p in range(n)}


def _load(token):
    replay = Replay.objects.select_related("hand__game__room").filter(token=token).first()
    if replay is not None and (replay.status == Replay.PENDING or not replay.data):
        replay = replays.ensure(replay.hand) or replay  # the task has not stored it yet
    return replay


def _step(value, last: int) -> int:
    if value in ("end", "last"):
        return last
    try:
        k = int(value)
    except (TypeError, ValueError):
        return 0
    return max(0, min(k, last))


def replay(request, token: str):
    replay = _load(token)
    if replay is None:
        return unavailable(request)
    hand = replay.hand
    room = hand.game.room
    denied, player, staff = access(request, room)
    if denied is not None:
        return denied
    lang = ui_lang()
    hide = room.replay_hide_names and not player and not staff
    record = replay.data or {}
    names = names_for(record, room, hide)
    run = replay_frames.run_for(replay)
    url = reverse("games:replay", args=[replay.token])
    ctx = {
        "replay": replay, "hand": hand, "room": room, "game": hand.game, "record": record,
        "player": player, "staff": staff, "is_host": request.user.is_authenticated and room.host_id == request.user.pk,
        "names_hidden": hide, "replay_url": url, "json_url": reverse("games:replay_json", args=[replay.token]),
        "history_url": reverse("games:history_game", args=[hand.game_id]) if player else "",
        "mismatch": replay.status == Replay.MISMATCH,
        "players": [{"position": p, "name": name} for p, name in names.items()],
        "unit": unit_label(room.variant),
    }
    if run.states:
        k = _step(request.GET.get("step"), run.last)
        moves = replay_frames.moves(run, record, names, lang)
        frame = replay_frames.frame(run, k, names, lang)
        own = seat_of(request.user, room)
        n = len(frame["players"])
        arrange(frame, own if own is not None and own < n else 0, own is not None and own < n)
        ctx.update({
            "frame": frame, "moves": moves, "move": moves[k], "step": k, "last": run.last,
            "prev_step": k - 1 if k > 0 else None, "next_step": k + 1 if k < run.last else None,
            "result": replay_frames.breakdown(run, record, names, lang) if frame["ended"] else None,
            # 快捷语 said right after this step (shown unless the viewer hides them: static/js/replay.js)
            "phrases": [{"name": names.get(ph.position, ""), "text": phrase_text(ph.phrase)}
                        for ph in hand.phrases.filter(after_seq=k)],
        })
    htmx = getattr(request, "htmx", None)
    partial = bool(htmx) and not htmx.history_restore_request and "frame" in ctx
    response = render(request, "games/replay.html#frame" if partial else "games/replay.html", ctx)
    patch_vary_headers(response, ("HX-Request",))
    return response


def replay_json(request, token: str):
    """The stored record, as a file; the same access rules as the viewer (and hidden names)."""
    replay = _load(token)
    if replay is None:
        return unavailable(request)
    room = replay.hand.game.room
    denied, player, staff = access(request, room)
    if denied is not None:
        return denied
    record = replay.data or {}
    if room.replay_hide_names and not player and not staff:
        record = copy.deepcopy(record)
        for p in record.get("players") or []:
            p["name"] = hidden_name(p["position"])
    body = json.dumps(record, ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    filename = f"replay-room{room.pk}-hand{replay.hand.number}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
