"""Computer players (电脑, issue 15): a seat kind, not an account (Seat.bot, no user).

A bot plays through the same path as people: its moves are the timeout task's moves after the
pause (`moves.auto_play_delay`, settings.BOT_DELAY_SECONDS), appended to the hand's log like any
automatic move, so replays, the leak test and the ledger treat it like anyone. What it plays is
`games.engine.bot.choose`, computed from what its seat may see. 托管 uses the same bot: a person
on 托管 (or whose time ran out on their turn) keeps their chances.

A room with a computer player is a practice room (练习, `Room.practice`): no beans move, which the
room, the result and the history say. The host adds or removes bots in the waiting room;
"练习" opens a room with bots in every other seat and deals at once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from games.engine import bot as engine_bot
from games.engine import game as engine
from games.models import Room, Seat

from . import dealing, handstate, notify
from .errors import ServiceError


def quick_answer(state, player: int, is_bot: bool):
    """What a 托管 or computer seat answers at once in the transaction of the move before it, or
    None to wait for the pause: a pass (nothing to see), a person's 托管 default to a question."""
    if state.phase == engine.DECIDE:
        default = engine.auto_action(state, player)
        if not is_bot:
            return default
        choice = engine_bot.choose(state, player)
        return default if choice is not None and choice.value == default.value else None
    if state.phase == engine.CLAIM:
        if not is_bot and not getattr(settings, "AUTO_PLAY_BOT", True):
            return engine.auto_action(state, player)  # 托管 as before: a win taken, a claim passed
        choice = engine_bot.choose(state, player)
        return choice if choice is not None and choice.kind == engine.A_PASS else None
    return None


def move_for(state, player: int, seat) -> engine.Action | None:
    """The automatic move when the pause or a person's time runs out: the bot's choice for a
    computer seat and for 托管 (a person's question before the hand: its default); for a person
    whose time ran out, the bot's discard on their turn (their chances kept), else the default
    (a win taken, a claim passed)."""
    if seat is not None and seat.bot:
        return engine_bot.choose(state, player)
    if not getattr(settings, "AUTO_PLAY_BOT", True):
        return engine.auto_action(state, player)
    if seat is not None and seat.auto_play and state.phase != engine.DECIDE:
        return engine_bot.choose(state, player)
    if state.phase == engine.DISCARD:
        choice = engine_bot.choose(state, player)
        if choice is not None and choice.kind == engine.A_DISCARD:
            return choice
    return engine.auto_action(state, player)


def _host_room(host, room_id: int) -> Room:
    room = handstate.locked_room(room_id)
    if room.host_id != host.pk:
        raise ServiceError("not_host", _("只有房主可以添加或请走电脑玩家"))
    if room.status != Room.WAITING:
        raise ServiceError("room_started", _("对局已开始，不能再添加或请走电脑玩家"))
    return room


def add_bot(host, room_id: int, position: int | None = None) -> Seat:
    """The host seats a computer player at an empty seat (the first free one by default): the
    room becomes a practice room (no beans)."""
    with transaction.atomic():
        room = _host_room(host, room_id)
        taken = set(room.seats.values_list("position", flat=True))
        free = [p for p in range(room.players) if p not in taken]
        if position is not None and position not in free:
            raise ServiceError("seat_taken", _("这个座位已经有人"))
        if not free:
            raise ServiceError("room_full", _("房间已满"))
        seat = Seat.objects.create(room=room, bot=True, position=free[0] if position is None else position,
                                   ready=True, auto_play=True)
        if not room.practice:
            room.practice = True
            room.save(update_fields=["practice"])
        dealing.start_if_ready(room, None)
        notify.bump(room)
        return seat


def remove_bot(host, room_id: int, position: int):
    with transaction.atomic():
        room = _host_room(host, room_id)
        seat = room.seats.filter(position=position, bot=True).first()
        if seat is None:
            raise ServiceError("no_such_seat", _("这个座位没有电脑玩家"))
        seat.delete()
        if not room.seats.filter(bot=True).exists():
            room.practice = False  # only people again: beans are at stake as the room says
            room.save(update_fields=["practice"])
        notify.bump(room)


def start_practice(user, *, variant: str, players: int = 4, settings=None, length: int = 4) -> Room:
    """练习: a room with computer players in every other seat; the first hand is dealt at once."""
    from .rooms import create_room

    room = create_room(user, variant=variant, players=players, length=length, min_balance=0, settings=settings)
    with transaction.atomic():
        room = handstate.locked_room(room.pk)
        Seat.objects.bulk_create([Seat(room=room, bot=True, position=p, ready=True, auto_play=True)
                                  for p in range(1, room.players)])
        room.practice = True
        room.save(update_fields=["practice"])
        seat = room.seats.get(user=user)
        seat.ready = True
        seat.save(update_fields=["ready"])
        dealing.start_if_ready(room, None)
        notify.bump(room)
    return room


def set_hints(user, room_id: int, on: bool):
    """提示 on/off for this player (games/engine/hints.py), where the room allows hints."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if on and not room.hints_allowed:
            raise ServiceError("hints_forbidden", _("房主关闭了这个房间的提示"))
        seat.hints = bool(on)
        seat.save(update_fields=["hints"])
        notify.bump(room)
