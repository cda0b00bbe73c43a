"""What one seat sees of a room, rendered as HTML fragments (the room page and its socket).

`seat_context(room_id, user, lang)` gathers the context of the room page for one seated player:
the room and its seats (nicknames, ready, online, 托管), the rules and, once a hand is dealt,
ONLY `games.engine.view.seat_view(state, me, lang)` of the hand (never the engine state itself:
no other player's concealed tiles, no wall), plus the last public move read from the hand log
through a whitelist of public event kinds (never a draw).

`render_fragments(context)` renders the page's id'd fragments (the partials of
templates/games/room.html) for out-of-band swaps over the socket; the room page renders the
same partials inline.

Speed (issue 9: a move re-renders four seats; bench/move_cpu.py, bench/live.py):
- The rows a room's seats all read (room, seats, game, hand, engine state, the last moves) are
  read once per room version per process (`room_snapshot`), for the socket renders only, and
  only outside a transaction, so a snapshot never holds anything uncommitted. Its key is the
  committed (version, token) of the room row: any change made through games.services bumps
  the version. Presence is read fresh for every seat (it changes by time, without a bump), and
  the room page itself always reads fresh rows.
- Fragments are rendered through `render_memo`: the HTML of a partial is a pure function of the
  small context it is given (FRAGMENT_CONTEXT lists what each partial reads), so it is kept per
  process keyed by that context and the language. What every seat sees alike (the status, the
  alerts, each player's melds and river, ...) is rendered once, and unchanged fragments are not
  rendered again. A seat's own tiles are part of the key of every fragment that shows them, so
  a cached fragment can only be served to a seat whose own data renders to exactly it.
"""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from datetime import time as dtime
from decimal import Decimal

import orjson
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models import OuterRef, Subquery
from django.db.models.signals import post_migrate
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation
from django.utils.translation import ngettext, pgettext
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import SafeString, mark_safe

from accounts.models import LedgerEntry, SiteSettings, Wallet
from games import fast_i18n, hand_result, presence, services, trad_table
from games.fast_html import escape  # conditional_escape, cheaper on the renders of every move
from games.fast_i18n import gettext as _  # gettext, kept per language (the renders of every move)
from games.engine.variants.zhuji import contract_value as zhuji_contract_value
from games.variant_names import fixed_url, rules_url, unit_label
from games.engine import events as engine_events
from games.engine.view import public_players, seat_view
from games.hot_queries import Prepared, link_forward
from games.templatetags.table_tiles import tile, tile_button, tile_picture
from games.models import Game, Hand, HandEvent, Room, Seat

WAITING, PLAYING, RESULT, FINISHED, DISSOLVED = "waiting", "playing", "result", "finished", "dissolved"

# Fragments of templates/games/room.html, in page order; each is one element with this id.
FRAGMENTS = ("status", "alerts", "seats", "invite-box", "table", "hand", "actions", "result")
TEMPLATE = "games/room.html"
INVITE_PARTIAL = "games/_invite.html"

def ui_lang(language_code: str | None) -> str:
    """Django language code -> the engine's label language ('zh' or 'en')."""
    return "en" if (language_code or "").lower().startswith("en") else "zh"


def django_language(lang: str) -> str:
    return "en" if lang == "en" else "zh-hans"


def display_name(user) -> str:
    """The profile nickname, else the username."""
    try:
        nickname = user.profile.nickname
    except ObjectDoesNotExist:  # no profile (createsuperuser, admin-made users)
        nickname = ""
    return (nickname or "").strip() or user.get_username()


def epoch_ms(dt) -> int | None:
    return None if dt is None else int(dt.timestamp() * 1000)


def relative_label(d: int, n: int) -> str:
    """Where a seat sits as seen from me: d = (their position - mine) % n."""
    if d == 0:
        return _("你")
    if n == 2:
        return _("对家")
    if d == 1:
        return _("下家")
    if d == n - 1:
        return _("上家")
    return _("对家")


def side_of(d: int, n: int) -> str:
    """Where a seat sits on screen: me at the bottom, 下家 on the right, 上家 on the left."""
    if d == 0:
        return "bottom"
    if n == 2 or (n == 4 and d == 2):
        return "top"
    return "right" if d == 1 else "left"


SIDE_ORDER = {"left": 0, "top": 1, "right": 2, "bottom": 3}


def lobby_url() -> str:
    try:
        return fixed_url("games:lobby")
    except NoReverseMatch:
        return "/lobby/"


def transfer_beans(amount, stake: int) -> int:
    """One transfer in 胡 -> beans (胡 × stake rounded up), as the settlement counts it."""
    from accounts.cutting import beans_of

    return beans_of(amount, stake)


def settled_beans(hand) -> dict | None:
    """{position: beans that moved} of a settled hand (after the limits cut), or None."""
    record = (hand.result or {}).get("beans") if hand is not None else None
    if not record:
        return None
    return {int(p): v for p, v in (record.get("paid") or {}).items()}


def game_beans(game) -> dict:
    """{position: beans that moved over the game}, from the settled hands and 逃跑 penalties."""
    out = {}
    paid = [((result or {}).get("beans") or {}).get("paid", {})
            for result in game.hands.filter(status=Hand.ENDED).values_list("result", flat=True)]
    paid += list(game.escapes.values_list("paid", flat=True))
    for moved in paid:
        for p, v in (moved or {}).items():
            out[int(p)] = out.get(int(p), 0) + v
    return out




def has_invite_partial() -> bool:
    try:
        get_template(INVITE_PARTIAL)
        return True
    except TemplateDoesNotExist:
        return False


def join_url(room: Room, base: str = "") -> str:
    try:
        path = reverse("games:join", args=[room.token])
    except NoReverseMatch:
        path = f"/join/{room.token}/"
    return base + path


def _vals(**values) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


_RECENT_ROWS = Prepared(lambda hand_id, upto: HandEvent.objects.filter(hand_id=hand_id, seq__lte=upto).order_by("-seq")
                        .only("action", "events", "auto", "seq")[:12])
_NEWER_ROWS = Prepared(lambda hand_id, after, upto: HandEvent.objects
                       .filter(hand_id=hand_id, seq__gt=after, seq__lte=upto).order_by("-seq")
                       .only("action", "events", "auto", "seq")[:12])
_HAND = Prepared(lambda pk: Hand.objects.filter(pk=pk))
RECENT = 12


def _recent_moves(hand: Hand, known: tuple | None = None, seen: int = 0, newer: tuple | None = None) -> tuple:
    """(action, events, auto, seq) of the hand's last 12 log rows, newest first. known: those
    rows up to version `seen` (the log only grows): only the rows after them, up to the hand's
    version, are read (a move committed since the hand row was read is the next version's),
    unless they are given (`newer`, newest first: the rows this process's move wrote)."""
    if known is None:
        rows = _RECENT_ROWS.all(hand.pk, hand.version)
        return tuple((row.action, row.events, row.auto, row.seq) for row in rows)
    if newer is None:
        newer = tuple((row.action, row.events, row.auto, row.seq) for row in _NEWER_ROWS.all(hand.pk, seen, hand.version))
    older = tuple(m for m in known if m[3] <= seen)
    return (newer + older)[:RECENT]


MOVE_EVENTS = ("discard", "chow", "pung", "kong", "win", "drawn_hand")  # what "last move" names


def _last_move(moves: tuple, names: dict, lang: str) -> dict | None:
    """The latest public move of the hand: who, what, which tile (never a concealed kong's face)."""
    from games.engine.tiles import face_label, parse_tile

    for action, events, auto_row, seq in moves:
        for ev in reversed(events or []):
            kind = ev.get("type")
            # Only what the engine marks public; of that, the moves (not the deal, not a decision).
            if not engine_events.is_public(ev) or kind not in MOVE_EVENTS:
                continue
            seat = ev.get("seat")
            if kind == "drawn_hand":
                return {"text": _("流局"), "key": seq}
            if kind == "kong" and ev.get("kind") == "concealed":
                verb, tile = hand_result.action_verb("ckong"), None
            elif kind == "kong" and ev.get("kind") == "added":
                verb, tile = hand_result.action_verb("akong"), ev.get("tile")
            elif kind == "discard":
                verb, tile = _("打出"), ev.get("tile")
            elif kind == "win":
                verb, tile = hand_result.action_verb("self_win" if ev.get("self_drawn") else "win"), ev.get("tile")
            else:
                verb, tile = hand_result.action_verb(kind), ev.get("tile")
            label = face_label(parse_tile(tile), lang) if tile else ""
            auto = bool(auto_row) and kind == "discard" and (action or {}).get("seat") == seat
            # seat, kind and key (the log row) let the table flash the move once on that seat
            return {"name": names.get(seat, ""), "verb": verb, "tile": label, "auto": auto, "seat": seat,
                    "kind": kind, "key": seq}
    return None


def _tiles_of(codes, wild_code, lang):
    from games.engine.tiles import parse_tile
    from games.engine.view import tile_info

    wild = parse_tile(wild_code) if wild_code else None
    return [tile_info(parse_tile(c), wild, lang) for c in codes]


def _button_tiles(kind: str, a: dict, view: dict, lang: str) -> list:
    """The tiles a claim or kong button shows (each 吃 option as its three tiles)."""
    wild = (view.get("wild") or {}).get("code")
    discard = (view.get("last_discard") or {}).get("code")
    if kind == "chow" and discard:
        return _tiles_of(sorted(list(a.get("tiles") or []) + [discard]), wild, lang)
    if kind == "pung" and discard:
        return _tiles_of([discard] * 3, wild, lang)
    if kind == "kong" and discard:
        return _tiles_of([discard] * 4, wild, lang)
    if kind in ("ckong", "akong") and a.get("tile"):
        return _tiles_of([a["tile"]] * 4, wild, lang)
    if kind == "win" and view["phase"] == "claim" and discard:
        return _tiles_of([discard], wild, lang)
    return []


def _hand_actions(view: dict, hand: Hand, lang: str) -> tuple[bool, list]:
    """(may I discard now, the other legal buttons) from seat_view's `actions`."""
    from games.engine.tiles import face_label, parse_tile

    can_discard = False
    buttons = []
    claim = view["phase"] == "claim"
    for a in view["actions"]:
        kind = a["kind"]
        if kind == "discard":
            can_discard = True
            continue
        vals = {"action": kind, "v": hand.version, "h": hand.pk}
        if kind == "decide":
            name = (view.get("decision") or {}).get("name")
            vals["value"] = a.get("value")
            buttons.append({"kind": f"decide-{a.get('value')}", "text": hand_result.decision_choice(name, a.get("value")),
                            "detail": "", "vals": _vals(**vals)})
            continue
        tile_code = a.get("tile")
        text = hand_result.action_verb(kind)
        if kind == "win" and not claim:
            text = hand_result.action_verb("self_win")
        detail = ""
        if kind == "chow":
            vals["tiles"] = " ".join(a["tiles"])
            detail = a.get("label", "")
        elif kind in ("ckong", "akong"):
            vals["tile"] = tile_code
            detail = face_label(parse_tile(tile_code), lang)
        elif kind in ("pung", "kong") and view.get("last_discard"):
            detail = view["last_discard"]["label"]
        buttons.append({"kind": kind, "text": text, "detail": detail, "vals": _vals(**vals),
                        "tiles": _button_tiles(kind, a, view, lang)})
    order = {"win": 0, "kong": 1, "ckong": 1, "akong": 1, "pung": 2, "chow": 3, "decide-yes": 4, "decide-no": 5,
             "pass": 9}
    buttons.sort(key=lambda b: order.get(b["kind"], 5))
    return can_discard, buttons


def _split_drawn(tiles: list, drawn: str | None):
    """Own hand with the tile just drawn set apart on the right (as at a real table)."""
    if not drawn:
        return tiles, None
    for i in range(len(tiles) - 1, -1, -1):
        if tiles[i]["code"] == drawn:
            return tiles[:i] + tiles[i + 1:], tiles[i]
    return tiles, None


# --- what every seat of a room reads alike, once per committed room version -------------------

@dataclass(frozen=True)
class RoomSnapshot:
    """Rows of one room as committed at `key` = (room version, invite token). Read only: the
    renders of several seats share it, in several threads."""

    key: tuple
    room: Room
    seat_rows: tuple
    names: dict
    game: Game | None
    hand: Hand | None
    phase: str
    state: object  # the engine state at hand.version, or None (no hand in play or shown)
    moves: tuple  # _recent_moves(hand) while the hand is played
    online: frozenset  # positions with a live socket when read (presence.online_positions)
    near_meters: int | None
    game_beans: dict | None
    watchers: int = 0  # 观战: users watching now (games/spectators.py; a change bumps the version)
    # what the seats' renders compute alike from these rows (games.engine.view.public_players;
    # one player's tiles as every other seat sees them), filled in as the first seat asks
    shared: dict = field(default_factory=dict, compare=False, repr=False)


SNAPSHOTS = 1024  # rooms per process (least recently used first out)
_snapshots: OrderedDict = OrderedDict()  # room id -> RoomSnapshot
_building: dict = {}  # room id -> lock: one thread reads a room's rows, the others wait for it
_snap_lock = threading.Lock()


def _phase(room: Room, hand: Hand | None) -> str:
    if room.status == Room.DISSOLVED or (hand is not None and hand.status == Hand.VOID):
        return DISSOLVED
    if room.status == Room.WAITING or hand is None:
        return WAITING
    if hand.status == Hand.PLAYING:
        return PLAYING
    if room.status == Room.FINISHED:
        return FINISHED
    return RESULT


# what a snapshot reads (every update that is not a move: the 准备 presses, the deal, joins), compiled once
_SNAPSHOT_HAND = Prepared(lambda room_id: (
    Hand.objects.filter(game__room_id=room_id).select_related("game__room").order_by("-number")[:1]))
_SNAPSHOT_SEATS = Prepared(lambda room_id: Seat.objects.filter(room_id=room_id).select_related("user", "user__profile"))


def _build_snapshot(room_id: int) -> RoomSnapshot | None:
    hand = _SNAPSHOT_HAND.first(room_id)
    if hand is not None:
        game, room = hand.game, hand.game.room
        link_forward(game, "room", room)  # select_related linked them both ways: a reference cycle
    else:
        room = Room.objects.filter(pk=room_id).first()
        if room is None:
            return None
        game = Game.objects.filter(room_id=room_id).first()
    seat_rows = tuple(_SNAPSHOT_SEATS.all(room_id))
    for seat in seat_rows:
        seat.room = room  # as room.seats gives them
        profile = seat.user and seat.user._state.fields_cache.get("profile")
        if profile is not None:  # user.profile only: select_related set profile.user too, a cycle
            profile._state.fields_cache.pop("user", None)
    phase = _phase(room, hand)
    state = services.hand_state(hand) if hand is not None and phase in (PLAYING, RESULT, FINISHED) else None
    near_meters = None
    if services.seat_distances(seat_rows):
        from accounts.models import SiteSettings

        near_meters = SiteSettings.current().near_meters
    return RoomSnapshot(
        key=(room.version, room.token), room=room, seat_rows=seat_rows,
        names={s.position: s.name for s in seat_rows}, game=game, hand=hand, phase=phase,
        state=state, moves=_recent_moves(hand) if phase == PLAYING else (), near_meters=near_meters,
        online=frozenset(presence.online_positions(room_id)),
        game_beans=game_beans(game) if game is not None and phase in (FINISHED, DISSOLVED) else None,
        watchers=_watchers(room))


def _watchers(room: Room) -> int:
    if room.spectators == Room.WATCH_NOBODY:
        return 0
    from games import spectators

    return spectators.watcher_count(room.pk)


def room_snapshot(room_id: int, cached: bool = True, at_least: int | None = None,
                  hand_move: int | None = None) -> RoomSnapshot | None:
    """The room's rows at its committed version: from the process cache when its key is the
    room row's current (version, token), else read (and kept, outside a transaction only).

    at_least: the version a room.updated message announced (sent after its commit). A cached
    snapshot of that version or later is used without asking the database: a later change
    announces itself the same way.
    hand_move: the message says that version changed nothing but a move on this hand in play
    (games.services.notify): a cached snapshot of the version just before is brought forward by
    reading only the hand (`_advance_snapshot`) instead of every row of the room. Without it, a
    version that this process committed as a 准备 press changing nothing but its seat's flag is
    brought forward from the version before too, reading nothing (`_advance_ready`)."""
    if not cached or connection.in_atomic_block:  # what a transaction reads may never commit
        return _build_snapshot(room_id)
    key = None
    with _snap_lock:
        hit = _snapshots.get(room_id)
    if at_least is not None and hit is not None and hit.key[0] >= at_least:
        return hit
    if at_least is None or hit is None:
        key = Room.objects.filter(pk=room_id).values_list("version", "token").first()
        if key is None:
            return None
    # else: the cached one is older than the announced version; read the rows at once

    def fresh(snap):
        if snap is None:
            return False
        return snap.key == key if key is not None else snap.key[0] >= at_least

    with _snap_lock:
        hit = _snapshots.get(room_id)
        if fresh(hit):
            _snapshots.move_to_end(room_id)
            return hit
        lock = _building.setdefault(room_id, threading.Lock())
    with lock:  # one thread reads the rows; the room's other seats wait and use them
        with _snap_lock:
            hit = _snapshots.get(room_id)
            if fresh(hit):
                return hit
        snap = None
        if (hand_move is not None and key is None and hit is not None and hit.key[0] == at_least - 1
                and hit.phase == PLAYING and hit.hand is not None and hit.hand.pk == hand_move):
            snap = _advance_snapshot(hit, at_least)
        elif hand_move is None and key is None and hit is not None and hit.key[0] == at_least - 1:
            snap = _advance_ready(hit, at_least)
        if snap is None:
            snap = _build_snapshot(room_id)
        if snap is None:
            return None
        with _snap_lock:
            old = _snapshots.get(room_id)
            if old is None or old.key[0] <= snap.key[0]:  # never put back an older version
                _snapshots[room_id] = snap
                _snapshots.move_to_end(room_id)
            while len(_snapshots) > SNAPSHOTS:
                gone, _old = _snapshots.popitem(last=False)
                _building.pop(gone, None)
        return snap


def _advance_snapshot(prev: RoomSnapshot, version: int) -> RoomSnapshot | None:
    """The snapshot at `version` from the one at version - 1 when that version was only a move on
    the hand in play (the room's other rows, its seats, who is online or watching: all unchanged;
    each of those changes bumps the version on its own and is announced without `hand_move`).
    Reads the hand row and its latest log rows — unless this process committed that move
    (services.handstate.committed_move: the rows it wrote) — ; None (read everything) if the hand
    is no longer in play."""
    mine = services.handstate.committed_move(prev.room.pk, version, prev.hand.pk, prev.hand.version)
    if mine is not None:
        hand, newer = mine
        hand = copy.copy(hand)  # its game is set below, per snapshot
    else:
        hand, newer = _HAND.first(prev.hand.pk), None
    if hand is None or hand.status != Hand.PLAYING:
        return None
    room, game = _room_and_game_at(prev, version)
    hand.game = game
    return replace(prev, key=(version, prev.key[1]), room=room, game=game, hand=hand,
                   state=services.hand_state(hand), moves=_recent_moves(hand, prev.moves, prev.hand.version, newer),
                   shared={})


def _room_and_game_at(prev: RoomSnapshot, version: int) -> tuple:
    """Copies of the snapshot's room row at `version` and of its game (None without one), linked as
    a snapshot's are, for a snapshot brought forward: the ones before stay as they were."""
    room = copy.copy(prev.room)
    room.version = version
    game = None
    if prev.game is not None:
        game = copy.copy(prev.game)
        link_forward(game, "room", room)  # one way: no reference cycle (games/hot_queries.py)
    return room, game


def _advance_ready(prev: RoomSnapshot, version: int) -> RoomSnapshot | None:
    """The snapshot at `version` from the one at version - 1 when this process committed that
    version as a 准备 press that changed nothing but its seat's flag (services.handstate
    .committed_ready; a press that deals the next hand is not one); None (read everything) else.
    Reads nothing."""
    change = services.handstate.committed_ready(prev.room.pk, version)
    if change is None:
        return None
    position, ready = change
    if not any(s.position == position for s in prev.seat_rows):
        return None
    room, game = _room_and_game_at(prev, version)
    seat_rows = tuple(copy.copy(s) for s in prev.seat_rows)
    for seat in seat_rows:
        seat.room = room
        if seat.position == position:
            seat.ready = ready
    hand = None
    if prev.hand is not None:
        hand = copy.copy(prev.hand)
        hand.game = game
    return replace(prev, key=(version, prev.key[1]), room=room, seat_rows=seat_rows, game=game, hand=hand,
                   shared={})


def clear_caches(**kwargs):
    """Forget every snapshot and rendered fragment of this process. Also run when the database is
    flushed or migrated (post_migrate: tests), which may reuse room ids."""
    with _snap_lock:
        _snapshots.clear()
        _building.clear()
    with _memo_lock:
        _memo.clear()
        _rows.clear()
    services.handstate.forget_moves()


post_migrate.connect(clear_caches, dispatch_uid="games.table.clear_caches")


def _shared(snap: RoomSnapshot, key, make, *args):
    """make(*args), once per snapshot (every seat of the room at this version) for `key`."""
    value = snap.shared.get(key)
    if value is None:
        value = snap.shared.setdefault(key, make(*args))
    return value


def _room_part(snap: RoomSnapshot, lang: str, base_url: str, public) -> dict:
    """What seat_context gives every seat of the room alike at this version, computed by the first
    seat to ask (the others copy it): each seat's public facts, the room's lines, the safety
    warnings (where the seats are; which of them share an address) and the rules box."""
    room, seat_rows, game, phase = snap.room, snap.seat_rows, snap.game, snap.phase
    n = room.players
    by_pos = {s.position: s for s in seat_rows}
    names, online = snap.names, snap.online  # presence changes that others must see bump the version
    seats = []
    for p in range(n):
        s = by_pos.get(p)
        frozen = bool(s and s.user_id and _frozen(s.user))
        info = {"position": p, "empty": s is None, "name": names.get(p, ""),
                "host": s is not None and s.user_id == room.host_id, "ready": bool(s and s.ready),
                "online": s is not None and (s.bot or p in online), "bot": bool(s and s.bot), "frozen": frozen,
                "wind": "", "dealer": False, "total": None,
                "auto": bool(s and s.auto_play) or frozen,  # a frozen account's seat is on 托管
                "escaped": bool(s and s.escaped),  # left the game (逃跑): 托管 to the end
                "hints": bool(s and s.hints)}
        if public is not None:
            info.update(wind=public[p]["wind"], dealer=public[p]["dealer"])
        if game is not None and p < len(game.totals):
            info["total"] = game.totals[p]
        seats.append(info)
    part = {
        "seats": seats, "rel": {d: relative_label(d, n) for d in range(n)},
        "safety": _safety_shared(seat_rows, seats, phase, snap.near_meters),
        "ctx": {
            "room": room, "phase": phase, "game": game, "hand": snap.hand, "lang": lang,
            "ws_path": f"/ws/room/{room.pk}/?lang={lang}", "room_version": room.version,
            "hand_version": snap.hand.version if snap.hand is not None else 0,
            "length_n": room.length, "rounds": room.length_kind == Room.ROUNDS,
            "all_seated": len(seat_rows) == n, "lobby_url": lobby_url(), "rules_html": rules_html(room),
            "unit": unit_label(room.variant), "rules_url": rules_url(room.variant),
            "hints_allowed": room.hints_allowed, "watchers": snap.watchers,
        },
    }
    ctx = part["ctx"]
    if room.spectators != Room.WATCH_NOBODY and phase not in (FINISHED, DISSOLVED):
        from games.spectators import watch_path

        ctx["watch_url"] = base_url + watch_path(room.pk)  # 观战链接, for the players to share
    if game is not None:
        ctx["hand_number"] = snap.hand.number if snap.hand else game.hands_played
        ctx["hands_played"] = game.hands_played
    if phase == WAITING:
        ctx["invite_partial"] = has_invite_partial()
        ctx["invite_url"] = join_url(room, base_url)
    return part


def seat_context(room_id: int, user, lang: str = "zh", *, base_url: str = "", now=None,
                 cached: bool = False, at_least: int | None = None, hand_move: int | None = None) -> dict | None:
    """Everything the room page shows to `user`, or None if they have no seat in the room.
    cached=True (the socket) reads the room's rows through the per-version snapshot cache
    (room_snapshot); the page reads them fresh."""
    now = now or timezone.now()
    snap = room_snapshot(room_id, cached=cached, at_least=at_least, hand_move=hand_move)
    if snap is None:
        return None
    room, seat_rows, game, hand, phase = snap.room, snap.seat_rows, snap.game, snap.hand, snap.phase
    mine = next((s for s in seat_rows if s.user_id == getattr(user, "pk", None)), None)
    if mine is None:
        return None
    n = room.players
    me = mine.position
    is_host = room.host_id == user.pk

    view = public = None
    if snap.state is not None:
        # what every other seat sees of each player: once per version
        public = _shared(snap, ("public", lang), public_players, snap.state, lang)
        view = seat_view(snap.state, me, lang, public)
    part = _shared(snap, ("room", lang, base_url), _room_part, snap, lang, base_url, public)
    names = snap.names
    rel = part["rel"]
    seats = []
    for info in part["seats"]:
        d = (info["position"] - me) % n
        seats.append({**info, "me": d == 0, "rel": rel[d], "d": d, "side": side_of(d, n)})

    ctx = {
        **part["ctx"], "me": seats[me], "my_position": me, "is_host": is_host, "seats": seats,
        "server_now": epoch_ms(now), "auto": seats[me]["auto"],
    }

    # dissolving (解散) during a game: a request is open for 60 s
    started = room.dissolve_started_at
    if room.status == Room.PLAYING and started is not None and now - started <= services.DISSOLVE_WINDOW:
        ctx["dissolve"] = {
            "voters": [names.get(p, "") for p in room.dissolve_votes],
            "voted": me in room.dissolve_votes,
            "deadline": epoch_ms(started + services.DISSOLVE_WINDOW),
        }

    if phase in (PLAYING, RESULT) and not seats[me]["escaped"]:
        ctx["escape"] = _escape_cost(room, me)

    ctx.update(part["safety"], frozen=seats[me]["frozen"], located=mine.latitude is not None)
    ctx["safety_count"] = len(ctx["same_ip"]) + len(ctx["near"])

    if view is not None and phase == PLAYING:
        players = []
        for s in sorted(seats, key=lambda s: s["d"]):
            vp = view["players"][s["position"]]
            p = {**s, "melds": vp["melds"], "river": vp["river"], "count": vp["tile_count"], "in_turn": vp["in_turn"],
                 **trad_table.seat_extras(view, s["position"], me)}  # traditional Taizhou: flowers, 扔弹 with me
            # rendered once for every seat that sees them alike (the owner of a concealed kong
            # sees its faces: other melds, other key)
            p["head_html"] = render_memo(PLAYER_HEAD, {"p": {k: p[k] for k in HEAD_KEYS}})
            # a player's melds, flowers and river: the same for every other seat at this version
            # (view.public_players), so kept on the snapshot without keying on the tiles
            tiles_key = ("tiles", lang, s["position"], s["position"] == me)
            p["tiles_html"] = _shared(snap, tiles_key, render_memo, PLAYER_TILES,
                                      {"p": {"melds": p["melds"], "river": p["river"], "flowers": p["flowers"]}})
            players.append(p)
        own = view["players"][me]
        can_discard, buttons = _hand_actions(view, hand, lang)
        tiles = own["hand"]
        if can_discard:
            # a variant may forbid some discards (Wenzhou: wilds, lone honours first): shown dimmed
            legal = {a["tile"] for a in view["actions"] if a["kind"] == "discard"}
            tiles = [t if t["code"] in legal else {**t, "locked": True} for t in tiles]
        hand_tiles, drawn_tile = _split_drawn(tiles, view["drawn"])
        turn_name = names.get(view["turn"], "") if view["phase"] == "discard" else ""
        ctx.update(_variant_context(view, names, me))
        if (ctx.get("decision") or {}).get("name") == "contract":
            buttons = _contract_grid(ctx, buttons)
        elif ctx.get("throw"):  # traditional Taizhou's 扔弹 question: the prompt's own choices
            buttons = trad_table.throw_buttons(ctx, buttons)
        offered = [b["text"] for b in buttons if b["kind"] != "pass" and not b["kind"].startswith("decide")]
        if view["phase"] == "claim" and offered:
            # exactly what is offered, e.g. 可以胡、碰，或者过
            ctx["claim_prompt"] = _("可以%(what)s，或者过") % {"what": pgettext("list separator", "、").join(offered)}
        ctx["commitment"] = {"code": hand.commitment, "players": room.players, "dealer": hand.dealer}
        if room.hints_allowed and mine.hints and view["phase"] != "ended":
            ctx["hint"] = trad_table.decorate_hint(_hint_context(snap.state, me, view, lang, buttons), view)
        ctx.update({
            "view": view, "mine": players[0],
            "others": sorted(players[1:], key=lambda p: SIDE_ORDER[p["side"]]), "hand_tiles": hand_tiles,
            "drawn_tile": drawn_tile, "can_discard": can_discard, "buttons": buttons,
            "locked_tiles": any(t.get("locked") for t in tiles),
            "hand_half": (len(hand_tiles) + 1) // 2,  # columns of the two-row hand on a phone
            "discard_vals": _vals(action="discard", v=hand.version, h=hand.pk),
            "deadline": epoch_ms(hand.deadline), "turn_name": turn_name,
            "my_turn": view["phase"] == "discard" and view["turn"] == me,
            "claiming": view["phase"] == "claim",
            "discarder": names.get(view["turn"], "") if view["phase"] == "claim" else "",
            "last_move": _shared(snap, ("last_move", lang), _last_move, snap.moves, names, lang),
        })
        ctx["hand_row_html"], ctx["drawn_html"] = _hand_row(ctx)
    if phase == RESULT and hand is not None and hand.deadline is not None:
        ctx["next_deadline"] = epoch_ms(hand.deadline)  # the ready countdown (services.next_hand_delay)
    if view is not None and phase in (RESULT, FINISHED) and view.get("result"):
        ctx["result"] = _result_context(view, seats, room, hand)
    if game is not None and phase in (FINISHED, DISSOLVED):
        moved = snap.game_beans or {}
        for s in seats:
            s["beans"] = moved.get(s["position"], 0)
        ranking = sorted((s for s in seats if s["total"] is not None), key=lambda s: (-s["total"], s["position"]))
        ctx["summary"] = ranking
        if phase == FINISHED:
            ctx["rematch"] = _rematch_context(room, mine)
    return ctx


def _hand_row(ctx: dict) -> tuple:
    """(the hand's tiles, the drawn tile) as HTML: buttons that discard when it is my turn (the
    hint's best marked), dimmed where the variant forbids the discard. Built here rather than in
    the template: the hand of the seat to play is new at every version (its buttons carry it)."""
    can_discard, hand = ctx["can_discard"], ctx["hand"]
    best = (ctx.get("hint") or {}).get("best") or ()

    def one(t, extra):
        if can_discard and not t.get("locked"):
            classes = f"{extra} hint-best".strip() if t["code"] in best else extra
            return tile_button(t, classes, action="discard", v=hand.version, h=hand.pk)
        if t.get("locked"):
            return tile(t, f"{extra} locked".strip())
        return tile(t, extra)

    drawn = ctx["drawn_tile"]

    def make():
        return (mark_safe("".join(one(t, "") for t in ctx["hand_tiles"])),
                one(drawn, "drawn") if drawn else "")

    if can_discard:  # its buttons carry the hand's version: new at every version
        return make()
    # the other seats' hands: the same HTML while their tiles stay (most moves)
    key = (ctx["lang"], orjson.dumps([ctx["hand_tiles"], drawn], option=orjson.OPT_SORT_KEYS))
    with _memo_lock:
        row = _rows.get(key)
    if row is None:
        row = make()
        with _memo_lock:
            _rows[key] = row
            if len(_rows) > MEMO_SIZE:
                _rows.popitem(last=False)
    return row


def _variant_context(view: dict, names: dict, me: int) -> dict:
    """The question before the hand (买底/顶底) and what the variant shows beyond tiles."""
    out = {"deciding": view["phase"] == "decide", "robbing": bool(view.get("robbing"))}
    d = view.get("decision")
    if d is not None:
        dealer = next((p["index"] for p in view["players"] if p["dealer"]), None)
        out["decision"] = {
            "name": d["name"], "label": hand_result.decision_name(d["name"]),
            "asked_me": me in d["waiting"], "answered_me": me in d["seats"] and me not in d["waiting"],
            "waiting": [names.get(p, "") for p in d["waiting"]], "dealer_name": names.get(dealer, ""),
        }
    info = dict(view.get("info") or {})
    if info:
        if "topped" in info:
            info["topped_names"] = [names.get(p, "") for p in info["topped"]]
        out["info"] = info
    out.update(trad_table.table_context(view, names, me))  # 弹, 扔弹, flowers, 生牌 (else nothing)
    return out


def _rematch_context(room: Room, mine) -> dict:
    """再来一局 on the final panel: none proposed yet, or who has joined the rematch room and
    whether this player has (then a link takes them there)."""
    new = Room.objects.filter(pk=room.rematch_id).exclude(status=Room.DISSOLVED).first() if room.rematch_id else None
    if new is None:
        return {"proposed": False}
    joined = list(new.seats.select_related("user__profile").order_by("position"))
    return {"proposed": True, "url": reverse("games:room", args=[new.pk]), "open": new.status == Room.WAITING,
            "joined": [s.name for s in joined], "players": new.players,
            "me_in": any(s.user_id == mine.user_id for s in joined), "host": display_name(new.host)}


def _hint_context(state, me: int, view: dict, lang: str, buttons: list) -> dict:
    """提示 for a player who turned hints on (games/engine/hints.py, from what this seat may see):
    on one's turn the discards closest to ready (the best marked in the hand), when ready the
    winning tiles with how many are unseen and what each would score, and in a claim window why a
    胡 is not offered on a tile that would complete the hand."""
    from games.engine import hints as engine_hints
    from games.engine.tiles import face_label, parse_tile

    def label(code):
        return face_label(parse_tile(code), lang)

    h = engine_hints.hints(state, me)
    out = {"shanten": h.get("shanten"), "ready": h.get("ready"), "best": [], "discards": [], "waits": []}
    if h.get("discards"):
        top = h["discards"][0]
        out["best"] = [e["tile"] for e in h["discards"] if (e["shanten"], e["useful_count"]) ==
                       (top["shanten"], top["useful_count"])]
        out["discards"] = [{"tile": label(e["tile"]), "shanten": e["shanten"], "count": e["useful_count"]}
                           for e in h["discards"][:3]]
    for w in h.get("waits") or ():
        score = w.get("self_drawn") or w.get("discard") or {}
        out["waits"].append({"tile": label(w["tile"]), "unseen": w["unseen"], "total": score.get("total"),
                             "tai": score.get("tai"), "self_only": w.get("discard") is None})
    if view["phase"] == "claim" and view.get("last_discard") and not any(b["kind"] == "win" for b in buttons):
        code = view["last_discard"]["code"]
        if any(w["tile"] == code for w in h.get("waits") or ()) or view["last_discard"].get("wild"):
            why = engine_hints.why_no_win(state, me, code, self_drawn=False)
            if why:
                out["why"] = {"tile": view["last_discard"]["label"], "text": hand_result.why_no_win(why)}
    return out


def _escape_cost(room: Room, me: int) -> dict | None:
    """What leaving the game (逃跑) costs this seat, where the rules have it (Zhuji), else None."""
    from games.engine import variants

    try:
        payments = variants.get(room.variant).escape_payments(room.players, me, room.settings or {})
    except variants.UnknownVariant:
        return None
    if payments is None:
        return None
    units = sum(t["amount"] for t in payments)
    return {"units": units, "beans": transfer_beans(units, room.stake)}


def _contract_grid(ctx: dict, buttons: list) -> list:
    """Zhuji 包: the dealer's choices as a grid (a row per target 台 with one share's worth, a
    column per number of wild faces) in ctx; returns the other buttons."""
    info = ctx.get("info") or {}
    unit = info.get("unit") or 1
    mult = 2 if info.get("laozhuang") else 1
    cells, rest = {}, []
    for b in buttons:
        c = hand_result.contract_choice(b["kind"][len("decide-"):]) if b["kind"].startswith("decide-") else None
        if c is None:
            rest.append(b)
            continue
        cells[(c["target"], c["faces"])] = {**b, "value": f'{c["target"]}:{c["faces"]}',
                                            "short": hand_result.faces_words(c["faces"]), "default": not cells}
    targets = sorted({t for t, _f in cells})
    faces = sorted({f for _t, f in cells})
    default = next((b for b in cells.values() if b["default"]), None)
    ctx["contract_faces"] = [{"faces": f, "label": hand_result.faces_words(f)} for f in faces]
    ctx["contract_grid"] = [{"target": t, "value": zhuji_contract_value(t, unit) * mult,
                             "cells": [cells.get((t, f)) for f in faces]} for t in targets]
    ctx["contract_default"] = default["text"] if default else ""
    return rest


def _frozen(user) -> bool:
    try:
        return bool(user.profile.frozen)
    except ObjectDoesNotExist:
        return False


def format_distance(metres: float) -> str:
    if metres < 1000:
        return f"{round(metres)} m"
    if metres < 100_000:
        return f"{metres / 1000:.1f} km"
    return f"{round(metres / 1000)} km"


def _safety_shared(seat_rows, seats, phase, near_meters=None) -> dict:
    """Anti-collusion warnings, the same for every seated player: seats sharing an IP address
    (never the address itself), distances between seats that shared their location, pairs nearer
    than SiteSettings.near_meters. (Each player's own frozen / location state: seat_context.)"""
    label = {s["position"]: f"{s['wind']} {s['name']}" if s["wind"] else s["name"] for s in seats}
    sep = pgettext("list separator", "、")
    same_ip = [sep.join(label[p] for p in positions) for _ip, positions in services.same_ip_groups(seat_rows)]
    distances, near = [], []
    pairs = services.seat_distances(seat_rows)
    if pairs:
        if near_meters is None:
            from accounts.models import SiteSettings

            near_meters = SiteSettings.current().near_meters
        for a, b, metres in pairs:
            distances.append({"a": label[a], "b": label[b], "text": format_distance(metres)})
            if metres < near_meters:
                near.append(sep.join((label[a], label[b])))
    return {"same_ip": same_ip, "distances": distances, "near": near, "near_meters": near_meters,
            "can_locate": phase not in (FINISHED, DISSOLVED)}


def _result_context(view, seats, room, hand):
    r = view["result"]
    stake = 0 if room.practice else room.stake  # 练习: no beans move
    names = {s["position"]: s["name"] for s in seats}
    owed = {p: 0 for p in range(len(view["players"]))}
    for t in r["transfers"]:
        b = transfer_beans(t["amount"], stake)
        owed[t["from"]] -= b
        owed[t["to"]] += b
    paid = settled_beans(hand)
    record = (hand.result or {}).get("beans") or {}
    rows = []
    for p, vp in enumerate(view["players"]):
        score = r["scores"][p]
        moved = paid.get(p, 0) if paid is not None else owed[p]
        cut = paid is not None and moved != owed[p]
        rows.append({
            **seats[p], "hand": vp["hand"], "melds": vp["melds"], "score": score,
            "winner": r["winner"] == p, "discarder": r["discarder"] == p, "liable": r["liable"] == p,
            "net": r["net"][p], "net_beans": moved, "owed_beans": owed[p], "cut": cut,
            "cut_reasons": hand_result.cut_reasons((record.get("reasons") or {}).get(str(p), [])),
        })
    rows.sort(key=lambda row: (not row["winner"], not row["me"], row["position"]))  # the winner, then you
    transfers = [{"from": names.get(t["from"], ""), "to": names.get(t["to"], ""), "amount": t["amount"],
                  "beans": transfer_beans(t["amount"], stake), "code": t.get("why", ""),
                  "why": hand_result.payment_reason(t.get("why"))} for t in r["transfers"]]
    return trad_table.decorate_result({
        "drawn_hand": r["drawn_hand"], "self_drawn": r["self_drawn"], "win_tile": r["win_tile"],
        "winner_name": names.get(r["winner"], "") if r["winner"] is not None else "",
        "discarder_name": names.get(r["discarder"], "") if r["discarder"] is not None else "",
        "liable_name": names.get(r["liable"], "") if r["liable"] is not None else "",
        "liable_reason": hand_result.liable_reason(r["liable_reason"]), "liable_code": r["liable_reason"],
        "rows": rows, "transfers": transfers,
        "practice": room.practice,
        # Zhuji 包: nobody won by 26 tiles left, the dealer pays each player a share
        "contract_failed": r["drawn_hand"] and any(t.get("why") == "contract" for t in r["transfers"]),
        "dealer_name": names.get(hand.dealer, ""),
    }, view.get("info"))


# --- rendering: a partial's HTML kept per process, keyed by exactly what it is given ---------------

MEMO_SIZE = 8192  # rendered partials per process (least recently used first out)
_memo: OrderedDict = OrderedDict()
_rows: OrderedDict = OrderedDict()  # (lang, tiles as JSON) -> a hand's HTML when it cannot discard
_memo_lock = threading.Lock()


def _key_default(value):
    if isinstance(value, (datetime, date, dtime)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(type(value).__name__)  # anything else: not kept (rendered every time)


# orjson (a tenth of json.dumps' time: the keys were the renders' largest single cost), keeping
# json's rules: keys sorted, int keys as strings, str subclasses (SafeString) as str; dates and
# dataclasses go through _key_default like every other value json cannot hold.
_KEY_OPTIONS = (orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
                | orjson.OPT_PASSTHROUGH_DATACLASS)


def render_memo(template_name: str, ctx: dict, key: str | bytes | None = None) -> str:
    """render_to_string(template_name, ctx), kept per (template, language, ctx as JSON).

    Correct because the partial sees nothing but `ctx` (no request, no context processors): the
    same JSON renders the same HTML. A value JSON cannot hold exactly (a model, a lazy string)
    makes the render uncached. Strings at one place of a context are always of one kind (plain
    text, or HTML already escaped and marked safe), so JSON's not telling them apart is safe.
    `key` replaces the JSON where the caller knows better (rules_html)."""
    if key is None:
        try:
            key = orjson.dumps(ctx, default=_key_default, option=_KEY_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError included
            return render_to_string(template_name, ctx)
    full = (template_name, fast_i18n.get_language(), key)
    with _memo_lock:
        html = _memo.get(full)
        if html is not None:
            _memo.move_to_end(full)
            return html
    made = BUILT_IN_PYTHON.get(template_name)
    html = made(ctx) if made is not None else render_to_string(template_name, ctx)
    with _memo_lock:
        _memo[full] = html
        while len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
    return html


PLAYER_TILES = f"{TEMPLATE}#player-tiles"


def _player_tiles(ctx: dict) -> str:
    """room.html's `player-tiles` partial ({"p": melds, river, flowers}), put together here: a
    discard changes its player's river at every move, and the template took ten times as long as
    this. tests/test_table_render.py checks it is the partial's HTML."""
    p = ctx["p"]
    melds, flowers, river = p.get("melds"), p.get("flowers"), p.get("river")
    out = ["\n"]
    if melds or flowers:
        out.append('<div class="melds">')
        if flowers:
            out.append(f'<span class="meld meld-flowers" title="{escape(_("亮出的花"))}">')
            out.extend(tile(t) for t in flowers)
            out.append("</span>")
        for m in melds or ():
            out.append(f'<span class="meld meld-{escape(m["kind"])}">')
            out.extend(tile(t) for t in m["tiles"])
            out.append("</span>")
        out.append("</div>")
    out.append(f'\n<div class="river" aria-label="{escape(_("弃牌"))}">')
    if river:
        out.extend(tile(t) for t in river)
    else:
        out.append(f'<span class="muted">{escape(_("还没有出牌"))}</span>')
    out.append("</div>\n")
    return mark_safe("".join(out))


PLAYER_HEAD = f"{TEMPLATE}#player-head"


def _player_head(ctx: dict) -> str:
    """room.html's `player-head` partial ({"p": HEAD_KEYS}), put together here: the heads of the
    player who moved and the next one change at every move (their counts, who is to play), and
    each seat sees them under its own relative label, so most of them are new to the memo; the
    template took ten times as long as this."""
    p = ctx["p"]
    line = "\n  "
    out = [f'\n<div class="player-head">{line}<span class="rel">{escape(p["rel"])}</span>{line}'
           f'<b class="name">{escape(p["name"])}</b>{line}<span class="wind">{escape(p["wind"])}</span>']
    if p.get("dealer"):
        out.append(f'<span class="badge dealer">{escape(_("庄"))}</span>')
    out.append(line)
    if not p.get("me"):
        n = p.get("count")
        out.append(f'<span class="count">{ngettext("%(n)s 张", "%(n)s 张", n) % {"n": escape(n)}}</span>')
    out.append(line)
    if p.get("flowers"):
        out.append(f'<span class="badge flowers" title="{escape(_("亮出的花"))}">'
                   f'{_("花 %(n)s") % {"n": len(p["flowers"])}}</span>')
    out.append(line)
    if p.get("throw"):
        out.append(f'<span class="badge throw" data-stake="{escape(p["throw"])}" title="{escape(_("你和这一家之间的扔弹"))}">'
                   f'{_("扔 %(n)s") % {"n": escape(p["throw"])}}</span>')
    out.append(line)
    if not p.get("online"):
        out.append(f'<span class="badge offline">{escape(_("离线"))}</span>')
    out.append(line)
    if p.get("bot"):
        out.append(f'<span class="badge bot">{escape(_("电脑"))}</span>')
    elif p.get("escaped"):
        out.append(f'<span class="badge escaped">{escape(_("已逃跑"))}</span>')
    elif p.get("auto"):
        out.append(f'<span class="badge auto">{escape(_("托管"))}</span>')
    out.append(line)
    if p.get("in_turn"):
        out.append(f'<span class="badge turn">{escape(_("出牌中"))}</span>')
    out.append("\n</div>\n")
    return mark_safe("".join(out))


# partials render_memo makes in Python (each checked against its template by tests/test_table_render.py)
BUILT_IN_PYTHON = {PLAYER_TILES: _player_tiles, PLAYER_HEAD: _player_head}


# Room fields that are not rules (they change while the rules are fixed once the room exists).
_NOT_RULES = {"version", "status", "token", "invite_revoked", "dissolve_started_at", "dissolve_votes"}


def rules_html(room: Room) -> str:
    """games/_room_rules.html of the room (the same for every room with these rules)."""
    fields = [(f.attname, getattr(room, f.attname)) for f in room._meta.concrete_fields
              if f.attname not in _NOT_RULES and f.attname != "id"]
    return render_memo("games/_room_rules.html", {"room": room}, key=repr(fields))


# What each partial of templates/games/room.html reads from the seat's context (top-level keys; a
# model is given as the few fields the partial reads). tests/test_table_render.py checks that each
# renders exactly as with the whole context. The table and the invite box (rendered every time)
# get the whole context.
HEAD_KEYS = ("rel", "name", "wind", "dealer", "me", "count", "online", "auto", "in_turn", "escaped", "bot", "flowers",
             "throw")


def _pick(ctx, *keys):
    return {k: ctx[k] for k in keys if k in ctx}


# What a result row carries of its seat that the result partial does not show and that changes on
# the result screen (each 准备 press, a player coming or going, 托管): left out of its memo key,
# so the four result screens are rendered once per hand, not again at every press.
_RESULT_ROW_SEAT_STATE = ("ready", "online", "auto", "hints")


def _steady_result(result):
    if not result:
        return result
    return {**result, "rows": [{k: v for k, v in row.items() if k not in _RESULT_ROW_SEAT_STATE}
                               for row in result["rows"]]}


FRAGMENT_CONTEXT = {
    "status": lambda c: {**_pick(c, "phase", "hand_number", "rounds", "length_n", "dissolve", "rules_html",
                                 "rules_url", "auto", "commitment", "escape", "unit", "hints_allowed",
                                 "watchers", "watch_url", "throw_pairs"),
                         "me": {"hints": c["me"].get("hints")},
                         "hand": {"pk": c["hand"].pk} if c.get("hand") else None,
                         "room": {"pk": c["room"].pk, "number": c["room"].number}},
    "alerts": lambda c: _pick(c, "frozen", "same_ip", "near", "near_meters", "distances", "can_locate", "located"),
    "seats": lambda c: _pick(c, "phase", "seats", "is_host", "unit") if c["phase"] != PLAYING else {"phase": c["phase"]},
    "invite-box": lambda c: None if c["phase"] == WAITING else {"phase": c["phase"]},
    "hand": lambda c: _pick(c, "phase", "can_discard", "hand_tiles", "hand_row_html", "drawn_html", "locked_tiles",
                            "hand_half", "hint", "unit"),  # the tiles' buttons carry the hand's version
    # the deadline shows only beside a question before the hand: not a key of every seat's every move
    "actions": lambda c: {**_pick(c, "phase", "frozen", "me", "buttons", "dissolve", "all_seated", "is_host",
                                  "lobby_url", "next_deadline", "deciding", "decision", "info", "contract_grid",
                                  "contract_faces", "contract_default", "unit", "escape", "throw"),
                          **(_pick(c, "deadline") if c.get("deciding") else {})},
    "result": lambda c: {**_pick(c, "phase", "summary", "unit", "lobby_url", "rematch"), "result": _steady_result(c.get("result")),
                         "hand": {"number": c["hand"].number, "game_id": c["hand"].game_id} if c.get("hand") else None,
                         "game": {"hands_played": c["game"].hands_played, "pk": c["game"].pk} if c.get("game") else None},
}


# The table (rendered for every seat at every version: it differs by seat) is put together from
# its top and centre bars, each rendered from the few values it reads and kept like a fragment
# (most versions change neither the top bar nor, for the seats not to act, the centre bar), and
# the players' areas (their heads and tiles kept the same way, HEAD_KEYS).
_BAR_VIEW = ("indicator", "wild", "wilds", "wall_count", "last_discard")
TABLE_PARTS = {
    "top_html": ("table-top", lambda c: _pick(c, "spectator", "watchers", "safety_count", "hand_number", "rounds",
                                              "length_n", "info", "trad")),
    "bar_html": ("table-bar", lambda c: {
        **_pick(c, "info", "trad", "my_turn", "deciding", "decision", "claiming", "claim_prompt", "turn_name",
                "deadline", "robbing", "discarder", "last_move"),
        "buttons": bool(c.get("buttons")), "view": _pick(c["view"], *_BAR_VIEW)}),
}


def render_fragment(name: str, ctx: dict) -> str:
    """One fragment (partial `name` of room.html) of this seat's context, for an out-of-band swap."""
    if name == "hand" and ctx.get("phase") == PLAYING and not ctx.get("hint") and not ctx.get("spectator"):
        return _playing_hand(ctx)
    if name == "actions" and ctx.get("phase") == PLAYING and not ctx.get("spectator") and not ctx.get("deciding"):
        me = ctx.get("me") or {}
        if not (ctx.get("frozen") or me.get("escaped") or me.get("auto")):  # (their banners: the template)
            return _playing_actions(ctx.get("buttons"))
    reduce = FRAGMENT_CONTEXT.get(name)
    small = reduce(ctx) if reduce is not None else None
    if small is None:
        if name == "table" and ctx.get("phase") == PLAYING and ctx.get("view") is not None:
            parts = {key: render_memo(f"{TEMPLATE}#{partial}", small_ctx(ctx))
                     for key, (partial, small_ctx) in TABLE_PARTS.items() if key != "bar_html" or ctx.get("trad")}
            if "bar_html" not in parts:
                parts["bar_html"] = _table_bar(ctx)
            return _playing_table(ctx, parts["top_html"], parts["bar_html"])
        if name == "table" and ctx.get("phase") != PLAYING:  # an empty section, before and after the hand
            return render_memo(f"{TEMPLATE}#table", {"phase": ctx.get("phase"), "oob": True})
        return render_to_string(f"{TEMPLATE}#{name}", {**ctx, "oob": True})
    return render_memo(f"{TEMPLATE}#{name}", {**small, "oob": True})


class TableHtml(SafeString):
    """The playing table's HTML (a str, as every fragment) that also knows its pieces: `parts`,
    {id: html} of the elements with an id inside it (#table-top, each #player-N, #table-bar), and
    `frame`, everything around them. A socket that sent this table before with the same frame
    sends only the pieces that changed, each swapped by its id (consumers.RoomConsumer.deliver):
    a discard changes the discarder's and the next player's areas and the bar, not the other two
    players' areas or the top row (~7 of a seat's ~9 kB an update were the whole table)."""

    frame: tuple = ()
    parts: dict = {}


def _playing_table(ctx: dict, top_html: str, bar_html: str) -> TableHtml:
    """room.html's `table` partial while a hand is played, out of band, put together here: it is new
    for every seat at every version, and each of its pieces (the bars, each player's head and
    tiles) is already rendered and kept; the template engine took longer to join them than
    everything else the seat sends. tests/test_table_render.py checks it is the partial's HTML."""
    last = ctx.get("last_move") or {}
    flashed = last.get("seat")

    def player(p, side):
        out = [f'<div id="player-{escape(p["position"])}" class="player side-{escape(side)}{" in-turn" if p["in_turn"] else ""}" '
               f'data-position="{escape(p["position"])}"']
        if flashed == p["position"]:
            out.append(f' data-once="{escape(last.get("key", ""))}" data-move="{escape(last.get("kind", ""))}">')
            if last.get("kind") != "discard":
                out.append(f'<span class="call-flash" aria-hidden="true">{escape(last.get("verb", ""))}</span>')
        else:
            out.append(">")
        out.append(f'{p["head_html"]}{p["tiles_html"]}</div>')
        return "".join(out)

    others = [(f"player-{p['position']}", player(p, p["side"])) for p in ctx["others"]]
    mine = (f"player-{ctx['mine']['position']}", player(ctx["mine"], "bottom"))
    opening = f'\n<section id="table" class="table seats-{escape(ctx["room"].players)}" hx-swap-oob="true">\n'
    html = TableHtml(
        f'{opening}\n  {top_html}\n  <div class="felt">\n  {"".join(f"{chr(10)}    {h}{chr(10)}  " for _i, h in others)}'
        f'\n    {bar_html}\n  \n    {mine[1]}\n  \n  </div>\n\n</section>\n')
    html.parts = {"table-top": top_html.strip(), **dict(others), "table-bar": bar_html.strip(), mine[0]: mine[1]}
    html.frame = (opening, tuple(html.parts))
    return html


def _playing_hand(ctx: dict) -> str:
    """room.html's `hand` partial while a hand is played (no 提示 shown), out of band, put together
    here: the hand of the seat to play is new at every version (its buttons carry it), and the
    template took longer than the tiles. tests/test_table_render.py checks it is the partial's HTML."""
    out = [f'\n<section id="hand" class="hand-area" hx-swap-oob="true">\n\n  \n  \n  '
           f'<div class="my-hand{" can-discard" if ctx["can_discard"] else ""}" '
           f'style="--n: {len(ctx["hand_tiles"])}; --half: {escape(ctx["hand_half"])}" aria-label="{escape(_("你的手牌"))}">\n'
           f'    {escape(ctx["hand_row_html"])}\n    <span class="drawn-slot">{escape(ctx["drawn_html"])}</span>\n  </div>\n  ']
    if ctx["can_discard"]:
        out.append(f'<div class="discard-row"><p class="hint">{escape(_("点一张牌抬起，再点一次或按“出牌”打出。金框的是财神。"))}')
        if ctx.get("locked_tiles"):
            out.append(f' {escape(_("灰色的牌这一手不能打（规则限制）。"))}')
        out.append(f'</p><button type="button" class="act act-discard" data-discard-raised disabled>{escape(_("出牌"))}</button></div>')
    out.append("\n\n</section>\n")
    return mark_safe("".join(out))


def _playing_actions(buttons) -> str:
    """room.html's `actions` partial while a hand is played (no question before the hand, no
    banner), out of band, put together here: the claim buttons carry the hand's version, so the
    seats offered a claim have new ones at every discard, which the memo only filled up with.
    tests/test_table_render.py checks it is the partial's HTML."""
    out = ['\n<section id="actions" class="actions-bar" hx-swap-oob="true">\n\n  \n  \n  ']
    if buttons:
        out.append('<div class="claim-buttons">')
        for b in buttons:
            out.append(f'<button type="button" class="act act-{escape(b["kind"])}" ws-send hx-vals="{escape(b["vals"])}">'
                       f'<span class="act-word">{escape(b["text"])}</span>')
            if b.get("tiles"):
                out.append('<span class="act-tiles">')
                out.extend(tile_picture(t) for t in b["tiles"])
                out.append("</span>")
            elif b.get("detail"):
                out.append(f' <small>{escape(b["detail"])}</small>')
            out.append("</button>")
        out.append("</div>")
    out.append("\n\n</section>\n")
    return mark_safe("".join(out))


def _bar_head(view: dict, info: dict | None) -> str:
    """The table bar's first item (跳牌 and 财神, or the wild faces): the same all hand long."""
    if view.get("indicator"):
        return (f'<div class="bar-item indicator"><span class="k">{escape(_("跳牌"))}</span>{tile(view["indicator"])}'
                f'<span class="k">{escape(_("财神"))}</span><b class="wild-face">{escape((view.get("wild") or {}).get("label", ""))}</b></div>'
                "\n      ")  # the template's line break before its {% else %}
    out = [f'<div class="bar-item indicator wild-faces"><span class="k">{escape(_("财神"))}</span>']
    wilds = view.get("wilds")
    if wilds:
        out.extend(tile(w) for w in wilds)
        out.append(f'<b class="wild-face">{"、".join(str(escape(w["label"])) for w in wilds)}</b>')
    elif (info or {}).get("wild_count") == 0:
        out.append(f'<b class="wild-face">{escape(_("无财"))}</b>')
    else:
        out.append(f'<b class="wild-face pending">{escape(_("定包后翻出"))}</b>')
    out.append("</div>")
    return "".join(out)


def _table_bar(ctx: dict) -> str:
    """room.html's `table-bar` partial (not traditional Taizhou's: its own include), put together
    here: its wall count, deadline and last move are new at every version for every seat.
    tests/test_table_render.py checks the table it sits in is the partial's HTML."""
    view = ctx["view"]
    buttons, claiming = ctx.get("buttons"), ctx.get("claiming")
    out = [f'\n    <div id="table-bar" class="center table-bar{" claiming" if claiming else ""}">\n      ',
           _bar_head(view, ctx.get("info")),
           f'\n      <div class="bar-item"><span class="k">{escape(_("余牌"))}</span>'
           f'<b class="wall-count">{escape(view.get("wall_count", ""))}</b></div>\n      \n'
           f'      <div class="bar-item turn{" mine" if ctx.get("my_turn") or buttons else ""}">\n        ']
    decision = ctx.get("decision") or {}
    if ctx.get("deciding"):  # (each branch but the last ends in the template's line break)
        if decision.get("asked_me"):
            out.append(_("请选择：%(q)s") % {"q": escape(decision.get("label", ""))})
        else:
            names = "、".join(str(escape(n)) for n in decision.get("waiting") or ())
            out.append(_("等待 %(names)s 选择%(q)s") % {"names": names, "q": escape(decision.get("label", ""))})
        out.append("\n        ")
    elif claiming:
        out.append(str(escape(ctx.get("claim_prompt", ""))) if buttons else str(escape(_("等待其他玩家吃碰胡"))))
        out.append("\n        ")
    elif ctx.get("my_turn"):
        out.append(str(escape(_("轮到你出牌"))) + "\n        ")
    else:
        out.append(_("%(name)s 出牌中") % {"name": escape(ctx.get("turn_name", ""))})
    out.append("\n        ")
    if ctx.get("deadline"):
        out.append(f'<span class="countdown" data-deadline="{escape(ctx["deadline"])}" title="{escape(_("剩余秒数"))}"></span>')
    out.append("\n      </div>\n      ")
    if claiming and view.get("last_discard"):
        robbing = ctx.get("robbing")
        out.append(f'\n      <div class="claim-banner{" robbing" if robbing else ""}">')
        name = escape(ctx.get("discarder", ""))
        if robbing:
            out.append(f'{_("%(name)s 加杠") % {"name": name}} {tile(view["last_discard"], "big")} '
                       f'<span class="badge">{escape(_("可以抢杠胡"))}</span>')
        else:
            out.append(f'{_("%(name)s 打出") % {"name": name}} {tile(view["last_discard"], "big")}')
        out.append("</div>\n      ")
    out.append("\n      ")
    last = ctx.get("last_move")
    if last:
        out.append(f'<p class="last-move">{escape(_("上一步："))}')
        if last.get("text"):
            out.append(str(escape(last["text"])))
        else:
            out.append(f'{escape(last.get("name", ""))} {escape(last.get("verb", ""))} {escape(last.get("tile", ""))}')
            if last.get("auto"):
                out.append(f' <span class="badge timeout">{escape(_("超时自动"))}</span>')
        out.append("</p>")
    out.append("\n    </div>\n")
    return mark_safe("".join(out))


def render_fragments(ctx: dict) -> dict:
    """{fragment id: html} of every fragment, marked for out-of-band swaps."""
    return {name: render_fragment(name, ctx) for name in FRAGMENTS}


# After these the seat's wallet may have changed (a hand settled, the game ended or was dissolved).
SETTLED_PHASES = (RESULT, FINISHED, DISSOLVED)


# what the header's 金豆 chip shows depends on (render_header_beans): one read
_WALLET_KEY = Prepared(lambda user_id: Wallet.objects.filter(user_id=user_id).annotate(
    chip_day_limit=Subquery(SiteSettings.objects.filter(pk=1).values("day_limit")[:1]),
    chip_last_entry=Subquery(LedgerEntry.objects.filter(wallet=OuterRef("pk")).order_by("-pk").values("pk")[:1])))


def render_header_beans(user) -> str:
    """The site header's 金豆 chip of `user`, for an out-of-band swap, done only on the result
    screens (a balance never changes during a hand). Every update of a result screen (each 准备)
    renders it for every seat: kept per (wallet balance, day limit, the wallet's latest ledger
    entry, day), one read, since what the chip shows (the balance, today's won and lost) changes
    only with a new ledger entry (the ledger is append-only), the limit or the day. The chip
    computed anew cost ~3 ms a seat (a wallet read, an aggregate over today's entries, a render)."""
    from accounts import beans
    from accounts.context_processors import header_beans

    ctx = {"header_beans": SimpleLazyObject(lambda: header_beans(user)), "oob": True}
    wallet = _WALLET_KEY.first(user.pk)
    if wallet is None:  # no wallet yet: header_beans makes it (and its grant)
        return render_to_string("accounts/_bean_chip.html", ctx)
    key = repr((user.pk, wallet.balance, wallet.chip_day_limit, wallet.chip_last_entry, str(beans.today())))
    return render_memo("accounts/_bean_chip.html", ctx, key=key)


def render_clock(ctx: dict) -> str:
    """room.html's `clock` partial, out of band (three numbers: no template needed)."""
    return mark_safe(f'<div id="clock" hidden data-now="{escape(ctx.get("server_now", ""))}" '
                     f'data-room-version="{escape(ctx.get("room_version", ""))}" '
                     f'data-hand-version="{escape(ctx.get("hand_version", ""))}" hx-swap-oob="true"></div>')


def render_toast(message: str, level: str = "error") -> str:
    return render_to_string(f"{TEMPLATE}#toast", {"toast": message, "level": level, "oob": True,
                                                   "toast_id": int(timezone.now().timestamp() * 1000)})


def render_phrase(position, phrase_id, key) -> str:
    """A quick phrase's bubble, appended out of band to #phrase-bubbles (static/js/table.js places
    it at the sender's seat, drops it after a few seconds or at once if that seat is muted)."""
    from games import phrases

    if not isinstance(position, int) or not phrases.is_phrase(phrase_id):
        return ""
    return render_to_string(f"{TEMPLATE}#phrase-bubble", {"position": position, "text": phrases.phrase_text(phrase_id),
                                                         "key": key, "emoji": phrase_id in phrases.FACES})


def render_gone(lang: str) -> str:
    with translation.override(django_language(lang)):
        return render_to_string(f"{TEMPLATE}#gone", {"oob": True, "lobby_url": lobby_url()})


def seat_fragments(room_id: int, user, lang: str, base_url: str = "", version: int | None = None,
                   hand_move: int | None = None):
    """For the socket: (room version, clock html, {id: html}) or None when the user has no seat.
    version, hand_move: what a room.updated message announced (see room_snapshot)."""
    with fast_i18n.override(django_language(lang)):
        ctx = seat_context(room_id, user, lang, base_url=base_url, cached=True, at_least=version,
                           hand_move=hand_move)
        if ctx is None:
            return None
        fragments = render_fragments(ctx)
        if ctx["phase"] in SETTLED_PHASES:  # beans moved: the header's balance follows (own wallet only)
            fragments["header-beans"] = render_header_beans(user)
        return ctx["room_version"], render_clock(ctx), fragments

