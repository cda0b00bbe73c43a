"""Dealing: 准备 (ready), the first and every next hand, the ready countdown, seeded walls.

The first hand starts when every seat is filled and ready. A later hand starts when every
present player is ready (seats on 托管 or offline are ready by themselves) or when the result
screen's countdown (NEXT_HAND_SECONDS) runs out (timeouts.timeout on the ended hand)."""

from __future__ import annotations

import hashlib
import secrets
from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from games import fairness, presence
from games.engine import game as engine
from games.models import Game, Hand, Room, Seat

from . import handstate, moves, notify
from .errors import ServiceError

def new_seed(room_id: int, number: int) -> int:
    base = getattr(settings, "GAME_SEED_BASE", "")
    if base:
        digest = hashlib.sha256(f"{base}:{room_id}:{number}".encode()).digest()
        return int.from_bytes(digest[:7], "big")
    return secrets.randbits(56)


def first_dealer(room: Room) -> int:
    if getattr(settings, "GAME_SEED_BASE", ""):
        return 0
    return secrets.randbelow(room.players)  # 掷骰定庄


def set_ready(user, room_id: int, ready: bool = True):
    """Press Ready. The first hand starts when every seat is filled and ready; a later hand when
    every present player is ready (托管 and offline seats are ready by themselves) or when the
    ready countdown on the result screen runs out."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seats = moves.room_seats(room)  # read once: this seat, and everyone's 准备 below
        seat = next((s for s in seats if s.user_id == user.pk), None)
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if room.status in (Room.FINISHED, Room.DISSOLVED):
            raise ServiceError("room_over", _("这个房间已经结束"))
        hand = handstate.current_hand(room)
        if hand is not None and hand.status == Hand.PLAYING:
            raise ServiceError("hand_playing", _("这一局还在进行"))
        seat.ready = ready
        seat.save(update_fields=["ready"])
        if not start_if_ready(room, hand, seats):  # (a deal announces itself: moves.after_change)
            notify.bump(room)
            # this seat's flag is all that changed: this process renders it from the snapshot before
            handstate.remember_ready(room.pk, room.version, seat.position, ready)


def start_if_ready(room: Room, hand, seats: list | None = None) -> bool:
    """Start the first or next hand if everyone who has to be is ready (room row locked).
    seats: the room's seats as read under that lock, if the caller has them."""
    seats = list(room.seats.all()) if seats is None else seats
    if len(seats) != room.players or room.status in (Room.FINISHED, Room.DISSOLVED):
        return False
    if hand is not None and hand.status == Hand.PLAYING:
        return False
    ready = all(s.ready for s in seats)  # the first hand: everyone presses 准备
    if not ready and hand is not None:
        # later hands: the present players decide (托管 and offline seats are ready by
        # themselves); with nobody present the countdown does
        online = presence.online_positions(room.pk)
        present = [s for s in seats if s.position in online and not s.auto_play]
        ready = bool(present) and all(s.ready for s in present)
    if ready:
        start_next_hand(room, seats)
    return ready


def check_next_hand(room_id: int) -> bool:
    """Someone left or went on 托管 on the result screen: start the next hand if the others are ready."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        return start_if_ready(room, handstate.current_hand(room))  # a deal announces itself


def start_next_hand(room: Room, seats):
    game = Game.objects.filter(room=room).first()
    if game is None:
        dealer = first_dealer(room)
        game = Game.objects.create(room=room, first_dealer=dealer, dealer=dealer, totals=[0] * room.players)
        room.status = Room.PLAYING
        room.save(update_fields=["status"])
    number = game.hands_played + 1
    Hand.objects.filter(game=game, status=Hand.ENDED, deadline__isnull=False).update(deadline=None)
    options = engine.Options(variant=room.variant, players=room.players, settings=room.settings or {})
    hand = Hand.objects.create(game=game, number=number, seed=new_seed(room.pk, number), salt=fairness.new_salt(),
                               dealer=game.dealer, options=options.to_dict(), carry=game.carry or {})
    Seat.objects.filter(room=room).update(ready=False)
    state, _events = engine.new_hand(options, hand.seed, hand.dealer, hand.carry or None)
    handstate.remember(hand.pk, 0, state)
    state = moves.auto_answer_claims(hand, state, room)  # 托管 seats answer a question before the hand
    moves.after_change(room, hand, state)
    return hand


