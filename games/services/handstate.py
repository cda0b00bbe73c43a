"""The state of a hand: the engine state at the hand's version, from the process cache, the
cache plus the newer committed actions, or replayed from the log; and the row locks every change
takes, always in one order: the room row, then the hand row.

The process cache holds only COMMITTED states: every write to it runs after the transaction
that produced or read the state commits (transaction.on_commit; at once outside one). A
transaction that fails leaves nothing behind, so a version number always names one state."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from django.db import transaction

from games.engine import game as engine
from games.hot_queries import Prepared, link_forward
from games.models import Hand, HandEvent, Room

_cache: dict = {}  # hand id -> (version, state)


_cache_lock = threading.Lock()


def hand_state(hand: Hand):
    """The engine state at hand.version: from the process cache, the cache plus the newer
    committed actions, or replayed from the log."""
    with _cache_lock:
        hit = _cache.get(hand.pk)
    if hit and hit[0] == hand.version:
        return hit[1]
    state = None
    if hit and hit[0] < hand.version:  # another process moved on: apply only the new actions
        state = catch_up(hand, *hit)
    if state is None:
        state = replay_log(hand)
    remember(hand.pk, hand.version, state)
    return state


_NEWER_EVENTS = Prepared(lambda hand_id, after, upto: HandEvent.objects.filter(
    hand_id=hand_id, seq__gt=after, seq__lte=upto).order_by("seq"))


def catch_up(hand: Hand, version: int, state):
    rows = _NEWER_EVENTS.all(hand.pk, version, hand.version)
    if [e.seq for e in rows] != list(range(version + 1, hand.version + 1)):
        return None
    for e in rows:
        out = engine.apply(state, engine.Action.from_dict(e.action))
        if isinstance(out, engine.Illegal):
            return None  # replay the whole log, which reports the problem
        state = out[0]
    return state


def replay_log(hand: Hand):
    options = engine.Options.from_dict(hand.options)
    actions = [engine.Action.from_dict(e.action) for e in hand.events.filter(seq__lte=hand.version).order_by("seq")]
    out = engine.replay(options, hand.seed, hand.dealer, actions, hand.carry or None)
    if isinstance(out, engine.Illegal):
        raise RuntimeError(f"hand {hand.pk}: stored actions no longer replay: {out.reason}")
    state = out[0]
    if state.step != hand.version:
        raise RuntimeError(f"hand {hand.pk}: replayed {state.step} actions, version is {hand.version}")
    return state


def remember(hand_id, version, state):
    """Cache the state once the transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: _put(hand_id, version, state))


def _put(hand_id, version, state):
    with _cache_lock:
        old = _cache.get(hand_id)
        if old and old[0] > version:
            return  # a later committed state is already here
        if len(_cache) > 2000:
            _cache.clear()
        _cache[hand_id] = (version, state)


# The last committed move of each room (the mover's process only): the hand row and the log rows
# it wrote, so that this process's snapshot of the room (games.table.room_snapshot) is brought to
# that version without reading back what it has just written. Filled after commit only.
_moves: OrderedDict = OrderedDict()  # room id -> (room version, Hand, ((action, events, auto, seq), ...) oldest first)
MOVES = 1024  # rooms (least recently moved first out)


def remember_move(room_id: int, room_version: int, hand: Hand):
    """Once the transaction commits, keep what this move wrote: the hand row as saved and the log
    rows `moves.append` inserted on it (`hand.appended`), as the database gives them back (JSON
    values through a JSON round trip)."""
    rows = tuple((_as_stored(e.action), _as_stored(e.events), e.auto, e.seq) for e in hand.__dict__.get("appended", ()))
    names = [f.attname for f in Hand._meta.concrete_fields]
    saved = Hand.from_db(hand._state.db, names, [getattr(hand, n) for n in names])
    transaction.on_commit(lambda: _put_move(room_id, room_version, saved, rows))


def _as_stored(value):
    """A JSONField's value as reading it back gives it: json.dumps, as the field stores it (tuples
    become lists, integer keys strings), then json.loads."""
    return json.loads(json.dumps(value))


def _put_move(room_id, room_version, hand, rows):
    _keep_latest(_moves, room_id, (room_version, hand, rows))


def _keep_latest(kept: OrderedDict, room_id: int, entry: tuple):
    """kept[room_id] = entry (its room version first) unless a later version is kept; the rooms
    least recently kept go first past MOVES."""
    with _cache_lock:
        old = kept.get(room_id)
        if old is not None and old[0] > entry[0]:
            return
        kept[room_id] = entry
        kept.move_to_end(room_id)
        while len(kept) > MOVES:
            kept.popitem(last=False)


def committed_move(room_id: int, room_version: int, hand_id: int, after: int):
    """(hand, rows newest first) of the move this process committed that made the room's version
    `room_version`, when its rows are exactly the hand's log after version `after`; else None."""
    with _cache_lock:
        hit = _moves.get(room_id)
    if hit is None or hit[0] != room_version:
        return None
    _version, hand, rows = hit
    if hand.pk != hand_id or [r[3] for r in rows] != list(range(after + 1, hand.version + 1)):
        return None
    return hand, rows[::-1]


# The last 准备 press of each room that changed nothing but its seat's flag (this process only):
# (room version, position, ready), so that this process's snapshot of the version before is
# brought forward without reading the room's rows again. Filled after commit only.
_readies: OrderedDict = OrderedDict()  # room id -> (room version, position, ready)


def remember_ready(room_id: int, room_version: int, position: int, ready: bool):
    """Once the transaction commits, keep that the room's version `room_version` changed nothing
    but the 准备 flag of the seat at `position` (dealing.set_ready when no hand was dealt)."""
    transaction.on_commit(lambda: _put_ready(room_id, room_version, position, ready))


def _put_ready(room_id, room_version, position, ready):
    _keep_latest(_readies, room_id, (room_version, position, ready))


def committed_ready(room_id: int, room_version: int):
    """(position, ready) of the 准备 press this process committed that made the room's version
    `room_version` and changed nothing else; else None."""
    with _cache_lock:
        hit = _readies.get(room_id)
    if hit is None or hit[0] != room_version:
        return None
    return hit[1], hit[2]


def forget_moves():
    with _cache_lock:
        _moves.clear()
        _readies.clear()


def current_hand(room: Room):
    """The room's latest hand (in play or not), its game attached, or None: one statement
    compiled once (the 准备 presses and the timeouts between hands ask it), where the ORM made
    two or three and compiled each."""
    if not room.pk:
        return None
    hand = _LATEST_HAND.first(room.pk)
    if hand is not None:
        game = room._state.fields_cache.get("game")  # the room's own game object, if it has it
        if game is not None and game.pk == hand.game_id:
            hand.game = game
        else:
            room.game = hand.game  # kept on the room both ways, as reading room.game did
    return hand


# The move's reads, compiled once (games/hot_queries.py)
_LOCKED_ROOM = Prepared(lambda pk: Room.objects.select_for_update(of=("self",)).filter(pk=pk))
_LATEST_HAND = Prepared(lambda room_id: (
    Hand.objects.select_related("game").filter(game__room_id=room_id).order_by("-number")[:1]))
_LOCKED_CURRENT_HAND = Prepared(lambda room_id: (
    Hand.objects.select_for_update(of=("self",)).select_related("game")
    .filter(game__room_id=room_id, status=Hand.PLAYING).order_by("-number")[:1]))


def locked_room(room_id) -> Room:
    room = _LOCKED_ROOM.first(int(room_id))
    if room is None:
        raise Room.DoesNotExist("Room matching query does not exist.")
    return room


def lock_room_and_hand(room_id: int, hand_id: int):
    """Every change of a room takes its locks in one order: the room row, then the hand row
    (`of=("self",)`: select_related must not lock the joined rows out of order)."""
    room = locked_room(room_id)
    hand = Hand.objects.select_for_update(of=("self",)).select_related("game").get(pk=hand_id)
    link_forward(hand.game, "room", room)  # one way: no reference cycle left behind (hot_queries)
    return room, hand




def lock_room_and_current_hand(room_id: int):
    """The room row locked, then its hand in play (locked), or (room, None) when none is."""
    room = locked_room(room_id)
    hand = _LOCKED_CURRENT_HAND.first(int(room_id))
    if hand is not None:
        link_forward(hand.game, "room", room)  # one way: no reference cycle left behind (hot_queries)
    return room, hand
