"""History (战绩): my games, and one game's hands with replay links.

/history/                 my games, newest first: date, room, variant, players, my net 胡 over the
                          game (Game.totals) and my beans (my ledger rows of its hands), status
/history/<game id>/       the game's hands: dealer, outcome, everyone's net 胡 and beans, a replay
                          link each, and the totals; only for the game's players (others: 404).
                          The host changes who may open the replays here.
/history/<game id>/hand/<n>/replay/
                          opens hand n's replay, building it first when the task has not
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Sum
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import LedgerEntry
from games import hand_result, replays
from games.models import Game, Hand, Replay, Room, Seat
from games.replay_views import unavailable
from games.services import ServiceError
from games.variant_names import unit_label

PER_PAGE = 20


def _status(room) -> str:
    return room.get_status_display()


@login_required
def history(request):
    seats = {s.room_id: s.position for s in Seat.objects.filter(user=request.user)}
    games = (Game.objects.filter(room_id__in=seats).select_related("room")
             .prefetch_related("room__seats__user__profile").order_by("-started_at", "-pk"))
    page = Paginator(games, PER_PAGE).get_page(request.GET.get("page"))
    ids = [g.pk for g in page.object_list]
    beans = dict(LedgerEntry.objects.filter(wallet__user=request.user, reason=LedgerEntry.HAND, hand__game_id__in=ids)
                 .order_by().values("hand__game_id").annotate(total=Sum("amount")).values_list("hand__game_id", "total"))
    rows = []
    for game in page.object_list:
        room = game.room
        me = seats[room.pk]
        rows.append({
            "game": game, "room": room, "status": room.status, "status_label": _status(room),
            "players": [s.name for s in room.seats.all()],
            "hu": game.totals[me] if me < len(game.totals) else 0, "unit": unit_label(room.variant),
            "beans": beans.get(game.pk, 0),
            "url": reverse("games:history_game", args=[game.pk]),
        })
    return render(request, "games/history.html", {"rows": rows, "page": page})


def _player_game(request, game_id):
    """(game, my seat) or (None, None) when there is no such game or I did not play in it."""
    game = Game.objects.select_related("room__host").filter(pk=game_id).first()
    if game is None:
        return None, None
    seat = Seat.objects.filter(room=game.room, user=request.user).first()
    return (game, seat) if seat is not None else (None, None)


def _outcome(hand, names) -> str:
    if hand.status == Hand.PLAYING:
        return _("进行中")
    if hand.status == Hand.VOID:
        return _("作废")
    return hand_result.outcome(hand.result, names, hand.game.room.variant)


@login_required
def history_game(request, game_id: int):
    game, mine = _player_game(request, game_id)
    if game is None:
        return unavailable(request, _("没有找到这场对局，或者你没有参加。"))
    room = game.room
    seats = list(room.seats.select_related("user__profile"))
    n = room.players
    names = {s.position: s.name for s in seats}
    position_of = {s.user_id: s.position for s in seats if s.user_id is not None}
    hands = list(game.hands.order_by("number"))
    built = {r.hand_id: r for r in Replay.objects.filter(hand__in=hands).exclude(status=Replay.PENDING)}
    moved = {}  # (hand id, position) -> beans
    for hand_id, user_id, total in (LedgerEntry.objects.filter(reason=LedgerEntry.HAND, hand__game=game)
                                    .order_by().values("hand_id", "wallet__user_id").annotate(total=Sum("amount"))
                                    .values_list("hand_id", "wallet__user_id", "total")):
        if user_id in position_of:
            moved[(hand_id, position_of[user_id])] = total
    rows = []
    bean_totals = [0] * n
    for hand in hands:
        net = (hand.result or {}).get("net") if hand.status == Hand.ENDED else None
        cells = []
        for p in range(n):
            b = moved.get((hand.pk, p), 0)
            bean_totals[p] += b
            cells.append({"hu": None if net is None else net[p], "beans": b if hand.status == Hand.ENDED else None,
                          "me": p == mine.position})
        replay_url = ""
        if hand.status == Hand.ENDED:
            r = built.get(hand.pk)
            replay_url = (reverse("games:replay", args=[r.token]) if r is not None and r.data
                          else reverse("games:hand_replay", args=[game.pk, hand.number]))
        rows.append({"hand": hand, "dealer": names.get(hand.dealer, ""), "outcome": _outcome(hand, names),
                     "winner": (hand.result or {}).get("winner") if hand.status == Hand.ENDED else None,
                     "cells": cells, "replay_url": replay_url})
    # 逃跑 (Zhuji): a row of its own after the hand it happened in (its units are in the totals)
    escapes = list(game.escapes.all())
    for e in escapes:
        net = [0] * n
        for t in e.transfers:
            net[t["from"]] -= t["amount"]
            net[t["to"]] += t["amount"]
        paid = {int(p): v for p, v in e.paid.items()}
        for p in range(n):
            bean_totals[p] += paid.get(p, 0)
        after = next((i for i, r in enumerate(rows) if e.hand_id is not None and r["hand"].pk == e.hand_id), len(rows) - 1)
        rows.insert(after + 1, {"escape": True, "outcome": _("%(name)s 逃跑") % {"name": names.get(e.position, "")},
                                "cells": [{"hu": net[p], "beans": paid.get(p, 0), "me": p == mine.position}
                                          for p in range(n)], "winner": None})
    columns = [{"position": p, "name": names.get(p, ""), "me": p == mine.position,
                "hu": game.totals[p] if p < len(game.totals) else 0, "beans": bean_totals[p]} for p in range(n)]
    ctx = {"game": game, "room": room, "rows": rows, "columns": columns, "is_host": room.host_id == request.user.pk,
           "status_label": _status(room), "visibility_choices": Room._meta.get_field("replay_visibility").choices,
           "saved": request.GET.get("saved") == "1", "error": request.GET.get("error", ""),
           "unit": unit_label(room.variant)}
    return render(request, "games/history_game.html", ctx)


@login_required
def hand_replay(request, game_id: int, number: int):
    """Open a hand's replay; builds it first when the Celery task was lost."""
    game, _mine = _player_game(request, game_id)
    hand = game.hands.filter(number=number).first() if game is not None else None
    if hand is None or hand.status != Hand.ENDED:
        return unavailable(request)
    replay = replays.ensure(hand)
    if replay is None:
        return unavailable(request)
    return redirect("games:replay", token=replay.token)


@login_required
@require_POST
def replay_sharing(request, game_id: int):
    """The host decides who may open the replays of the room (and whether names are hidden)."""
    game, _mine = _player_game(request, game_id)
    if game is None:
        return unavailable(request)
    url = reverse("games:history_game", args=[game.pk])
    if game.room.host_id != request.user.pk:
        return unavailable(request, _("只有房主可以修改回放设置"), status=403)
    try:
        replays.set_sharing(request.user, game.room_id, request.POST.get("replay_visibility", ""),
                            request.POST.get("replay_hide_names") in ("on", "1", "true"))
    except ServiceError:
        return redirect(f"{url}?error=1#sharing")
    return redirect(f"{url}?saved=1#sharing")
