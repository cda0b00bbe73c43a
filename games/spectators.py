"""观战 (spectators): who may watch a room, what a watcher sees, and how many are watching.

Who (Room.spectators, the host's choice when opening the room, kept by a rematch):
  - nobody (不允许, the default): the watch link answers 403;
  - friends (玩家的朋友（有链接）): a signed-in user with the watch link who has sat in a FINISHED
    room (a game played to its end, 已结束) together with at least one of the people seated in this
    room. There is no friend list; having finished a game together is the site's proof that the
    seated player knows them. A dissolved room or one still in play does not count;
  - anyone (任何有链接的人): any signed-in user with the watch link.
Seated players are sent to their own room page; a watcher never sits down through this link (the
invite link is the only way in).

The link is /room/<id>/watch/<key>/ with key = an HMAC of the room id under SECRET_KEY
(`watch_key`): room ids are small numbers, the key makes the link unguessable. The players see it
in ☰ 菜单 / the room's top panel while the room allows spectators.

What (spectator_context): the table as `games.engine.view.seat_view(state, None, lang)` shows it —
nobody's concealed tiles, concealed kongs face down, rivers, counts, the indicator / wild faces,
whose turn — built from the engine state `Room.spectator_delay` moves (0 / 1 / 3) behind the live
hand (`state_at(hand, hand.version - delay)`, replayed from the log), never from the live state
when the delay is above 0; the last move line reads only log rows up to that version, and no
countdown is shown (the live deadline would tell where play is). Once the hand has ended the
result is shown at once with every hand open, as the players see it. No buttons and no ws-send;
the spectator socket (games/watch_consumer.py) refuses every message but the heartbeat.

How many (SpectatorSocket, one row per open spectator socket, like games/presence.py for seats):
the table shows the number of distinct users with a row heard from within PRESENCE_TTL_SECONDS; a
change of that number bumps the room's version so every page shows it. The rows live in the
database, so the count is right with several daphne processes; a row whose process died stops
counting after the TTL and the beat task deletes it.

Safety: the spectator's address is kept on the row (and in SeenIP); when it is a seated player's
address customer service gets an Alert (kind watch_ip, games/services/safety.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.db import connection, transaction
from django.db.models.signals import post_migrate
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from games import table, trad_table
from games.engine import game as engine
from games.engine.view import seat_view
from games.models import HandEvent, Room, Seat, SpectatorSocket

# --- who may watch ------------------------------------------------------------------------------


def watch_key(room_id: int) -> str:
    return salted_hmac("games.spectators.watch", str(int(room_id))).hexdigest()[:20]


def key_ok(room_id: int, key: str) -> bool:
    return isinstance(key, str) and constant_time_compare(key, watch_key(room_id))


def watch_path(room_id: int) -> str:
    return reverse("games:watch", args=[room_id, watch_key(room_id)])


def is_friend(user, room: Room) -> bool:
    """`user` sat in a finished room (a game played to its end) with one of this room's seated people."""
    players = list(room.seats.filter(user__isnull=False).values_list("user_id", flat=True))
    if not players:
        return False
    return Seat.objects.filter(user_id__in=players, room__status=Room.FINISHED,
                               room__seats__user=user).exclude(room_id=room.pk).exists()


NOT_ALLOWED, SEATED, OK = "not_allowed", "seated", "ok"


def may_watch(room: Room, user) -> str:
    """OK, SEATED (a player of the room: their own page) or NOT_ALLOWED."""
    if user is None or not getattr(user, "is_authenticated", False):
        return NOT_ALLOWED
    if room.seats.filter(user=user).exists():
        return SEATED
    if room.spectators == Room.WATCH_ANYONE:
        return OK
    if room.spectators == Room.WATCH_FRIENDS and is_friend(user, room):
        return OK
    return NOT_ALLOWED


# --- how many are watching (one row per socket) ---------------------------------------------------


def _live(now=None):
    from games.presence import ttl

    return SpectatorSocket.objects.filter(seen_at__gte=(now or timezone.now()) - ttl())


def watcher_count(room_id: int, now=None) -> int:
    """Distinct users with a live spectator socket in the room."""
    return _live(now).filter(room_id=room_id).values("user_id").distinct().count()


def socket_opened(user, room_id: int, channel_name: str, ip: str | None = None, now=None) -> bool:
    """A spectator socket is open (or heard from again after its row expired). Records the address
    (SeenIP, the row) and checks it against the seated players'. Bumps the room when the number
    of watchers changed. False when the room is gone."""
    from accounts.models import SeenIP

    from games.services import notify, safety

    now = now or timezone.now()
    with transaction.atomic():
        room = Room.objects.select_for_update().filter(pk=room_id).first()
        if room is None:
            return False
        before = watcher_count(room_id, now)
        SpectatorSocket.objects.update_or_create(
            channel_name=channel_name, defaults={"room": room, "user": user, "seen_at": now, "ip": ip or None})
        if ip:
            SeenIP.objects.update_or_create(user=user, ip=ip)
            safety.check_watcher_ips(room)
        if watcher_count(room_id, now) != before:
            notify.bump(room)
    return True


def heartbeat(user, room_id: int, channel_name: str, ip: str | None = None, now=None) -> bool:
    now = now or timezone.now()
    if _live(now).filter(channel_name=channel_name).update(seen_at=now):
        return True
    return socket_opened(user, room_id, channel_name, ip, now)


def socket_closed(channel_name: str, now=None):
    from games.services import notify

    now = now or timezone.now()
    row = SpectatorSocket.objects.filter(channel_name=channel_name).values("room_id").first()
    if row is None:
        return
    with transaction.atomic():
        room = Room.objects.select_for_update().filter(pk=row["room_id"]).first()
        before = watcher_count(row["room_id"], now)
        SpectatorSocket.objects.filter(channel_name=channel_name).delete()
        if room is not None and watcher_count(row["room_id"], now) != before:
            notify.bump(room)


def expire(now=None) -> int:
    """Delete rows not heard from within the TTL; tell rooms whose count changed (beat, with
    games.presence.expire). Returns the number of rows deleted."""
    from games.presence import ttl
    from games.services import notify

    now = now or timezone.now()
    cutoff = now - ttl()
    deleted = 0
    for room_id in sorted(set(SpectatorSocket.objects.filter(seen_at__lt=cutoff).values_list("room_id", flat=True))):
        with transaction.atomic():
            room = Room.objects.select_for_update().filter(pk=room_id).first()
            stale = SpectatorSocket.objects.filter(room_id=room_id, seen_at__lt=cutoff)
            gone = set(stale.values_list("user_id", flat=True))
            deleted += stale.delete()[0]
            if room is not None and not _live(now).filter(room_id=room_id, user_id__in=gone).exists() and gone:
                notify.bump(room)
    return deleted


# --- the state a watcher sees ---------------------------------------------------------------------

_states: OrderedDict = OrderedDict()  # (hand id, version) -> engine state (committed log only)
_states_lock = threading.Lock()
STATES = 512


def state_at(hand, version: int):
    """The engine state of `hand` after its first `version` actions, from the log (a cached earlier
    state of the same hand plus the actions after it, else the deal)."""
    from games import services

    if version >= hand.version:
        return services.hand_state(hand)
    with _states_lock:
        hit = _states.get((hand.pk, version))
        if hit is not None:
            _states.move_to_end((hand.pk, version))
            return hit
        known = [v for (h, v) in _states if h == hand.pk and v < version]
        start = max(known, default=None)
        state = _states[(hand.pk, start)] if start is not None else None
    if state is None:
        start = 0
        state = engine.new_hand(engine.Options.from_dict(hand.options), hand.seed, hand.dealer,
                                hand.carry or None)[0]
    for e in HandEvent.objects.filter(hand=hand, seq__gt=start, seq__lte=version).order_by("seq"):
        out = engine.apply(state, engine.Action.from_dict(e.action))
        if isinstance(out, engine.Illegal):
            raise RuntimeError(f"hand {hand.pk}: stored actions no longer replay: {out.reason}")
        state = out[0]
    if state.step != version:
        raise RuntimeError(f"hand {hand.pk}: replayed {state.step} actions, wanted {version}")
    if not connection.in_atomic_block:  # only what is committed is kept
        with _states_lock:
            _states[(hand.pk, version)] = state
            while len(_states) > STATES:
                _states.popitem(last=False)
    return state


def clear_states(**kwargs):
    """Forget the kept states (also when the database is flushed or migrated: tests reuse hand ids)."""
    with _states_lock:
        _states.clear()


post_migrate.connect(clear_states, dispatch_uid="games.spectators.clear_states")


def shown_version(room: Room, hand) -> int:
    """The hand version a watcher is shown while the hand is played."""
    return max(0, hand.version - (room.spectator_delay or 0))


def spectator_context(room_id: int, user, lang: str = "zh", *, now=None, cached: bool = False,
                      at_least: int | None = None) -> dict | None:
    """What a watcher sees of the room (see the module docstring), or None when the room is gone.
    The caller has checked may_watch."""
    now = now or timezone.now()
    snap = table.room_snapshot(room_id, cached=cached, at_least=at_least)
    if snap is None:
        return None
    room, seat_rows, game, hand, phase = snap.room, snap.seat_rows, snap.game, snap.hand, snap.phase
    n = room.players
    names = snap.names
    by_pos = {s.position: s for s in seat_rows}

    state, version = None, 0
    if hand is not None and phase == table.PLAYING:
        version = shown_version(room, hand)
        state = state_at(hand, version)
    elif snap.state is not None:  # the hand is over: the result, every hand open
        state, version = snap.state, hand.version
    view = seat_view(state, None, lang) if state is not None else None

    seats = []
    for p in range(n):
        s = by_pos.get(p)
        frozen = bool(s and s.user_id and table._frozen(s.user))
        info = {"position": p, "empty": s is None, "me": False, "rel": "", "d": p, "side": table.side_of(p, n),
                "name": names.get(p, ""), "host": s is not None and s.user_id == room.host_id,
                "ready": bool(s and s.ready), "online": s is not None and (s.bot or p in snap.online),
                "bot": bool(s and s.bot), "frozen": frozen, "wind": "", "dealer": False, "total": None,
                "auto": bool(s and s.auto_play) or frozen, "escaped": bool(s and s.escaped), "hints": False}
        if view is not None:
            vp = view["players"][p]
            info.update(wind=vp["wind"], dealer=vp["dealer"])
        if game is not None and p < len(game.totals):
            info["total"] = game.totals[p]
        seats.append(info)

    ctx = {
        "spectator": True, "delay": room.spectator_delay, "watchers": snap.watchers,
        "room": room, "phase": phase, "me": {}, "my_position": None, "is_host": False,
        "seats": seats, "game": game, "hand": hand, "lang": lang,
        "ws_path": f"/ws/room/{room.pk}/watch/{watch_key(room.pk)}/?lang={lang}",
        "server_now": table.epoch_ms(now), "room_version": room.version, "hand_version": version,
        "length_n": room.length, "rounds": room.length_kind == Room.ROUNDS,
        "all_seated": len(seat_rows) == n, "lobby_url": table.lobby_url(), "rules_html": table.rules_html(room),
        "unit": table.unit_label(room.variant), "rules_url": table.rules_url(room.variant), "auto": False,
        "hints_allowed": False, "frozen": False, "same_ip": [], "near": [], "distances": [],
        "can_locate": False, "located": False, "safety_count": 0,
    }
    if game is not None:
        ctx["hand_number"] = hand.number if hand else game.hands_played
        ctx["hands_played"] = game.hands_played

    if view is not None and phase == table.PLAYING:
        players = []
        for s in seats:  # seat 0 at the bottom, the others around it as seen from there
            vp = view["players"][s["position"]]
            p = {**s, "melds": vp["melds"], "river": vp["river"], "count": vp["tile_count"], "in_turn": vp["in_turn"],
                 **trad_table.seat_extras(view, s["position"], None)}
            p["head_html"] = table.render_memo(f"{table.TEMPLATE}#player-head", {"p": {k: p[k] for k in table.HEAD_KEYS}})
            p["tiles_html"] = table.render_memo(f"{table.TEMPLATE}#player-tiles",
                                                {"p": {"melds": p["melds"], "river": p["river"], "flowers": p["flowers"]}})
            players.append(p)
        moves = tuple(m for m in snap.moves if m[3] <= version)  # never a move after the shown one
        ctx.update(table._variant_context(view, names, None))
        ctx.update({
            "view": view, "mine": players[0],
            "others": sorted(players[1:], key=lambda p: table.SIDE_ORDER[p["side"]]),
            "hand_tiles": [], "drawn_tile": None, "can_discard": False, "buttons": [], "locked_tiles": False,
            "hand_half": 0, "deadline": None,
            "turn_name": names.get(view["turn"], "") if view["phase"] == "discard" else "",
            "my_turn": False, "claiming": view["phase"] == "claim",
            "discarder": names.get(view["turn"], "") if view["phase"] == "claim" else "",
            "last_move": table._last_move(moves, names, lang),
        })
    if view is not None and phase in (table.RESULT, table.FINISHED) and view.get("result"):
        ctx["result"] = table._result_context(view, seats, room, hand)
    if game is not None and phase in (table.FINISHED, table.DISSOLVED):
        moved = snap.game_beans or {}
        for s in seats:
            s["beans"] = moved.get(s["position"], 0)
        ctx["summary"] = sorted((s for s in seats if s["total"] is not None), key=lambda s: (-s["total"], s["position"]))
    return ctx


def render_fragments(ctx: dict) -> dict:
    """{fragment id: html} of a watcher's context. Rendered with the whole context (the player's
    partial memo keys do not carry `spectator`), so a player's fragment is never served here."""
    from django.template.loader import render_to_string

    return {name: render_to_string(f"{table.TEMPLATE}#{name}", {**ctx, "oob": True}) for name in table.FRAGMENTS}


def spectator_fragments(room_id: int, user, lang: str, version: int | None = None):
    """For the spectator socket: (room version, clock html, {id: html}), or None (room gone, or
    watching no longer allowed: the user sat down)."""
    with translation_override(lang):
        ctx = spectator_context(room_id, user, lang, cached=True, at_least=version)
        if ctx is None:
            return None
        return ctx["room_version"], table.render_clock(ctx), render_fragments(ctx)


def translation_override(lang):
    from django.utils import translation

    return translation.override(table.django_language(lang))

