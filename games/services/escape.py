"""逃跑: leaving a game in progress (Zhuji §3, Z-D11, Z-S13).

Only a variant with an escape rule lets a player leave (`Variant.escape_payments`); elsewhere a
seated player has 托管 and 解散. The penalty is paid at once through the bean ledger like any
payment (the room's stake converts units to beans, cut to balances and the per-hand and daily
limits), it is added to the game's totals, and the seat plays on 托管 to the end: it cannot be
taken back. Closing the browser is not leaving (missed turns put a seat on 托管, and its player
may come back)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import beans
from games.engine import game as engine
from games.engine import variants
from games.models import Escape, Hand, Room

from . import dealing, handstate, moves, notify, schedule
from .errors import ServiceError


def can_escape(room: Room) -> bool:
    """Whether this room's rules have 逃跑 (the table menu offers the button)."""
    try:
        rules = variants.get(room.variant)
    except variants.UnknownVariant:
        return False
    if room.practice:  # nothing at stake with computer players: no 逃跑 either
        return False
    return rules.escape_payments(room.players, 0, room.settings or {}) is not None


def escape(user, room_id: int) -> Escape:
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        if not can_escape(room):
            raise ServiceError("no_escape", _("这个玩法不能中途离开；可以托管或申请解散"))
        if room.status != Room.PLAYING:
            raise ServiceError("not_playing", _("牌局没有在进行，不用逃跑"))
        seat = room.seats.select_related("user").filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if seat.escaped:
            raise ServiceError("already_left", _("你已经离开了这场牌局"))
        game = room.game
        hand = handstate.current_hand(room)
        transfers = variants.get(room.variant).escape_payments(room.players, seat.position, room.settings or {})
        users = {s.position: s.user for s in room.seats.select_related("user")}
        order = [(game.dealer + k) % room.players for k in range(room.players)]
        record = Escape.objects.create(game=game, position=seat.position, user=user,
                                       hand=hand if hand is not None and hand.status == Hand.PLAYING else None,
                                       transfers=list(transfers))
        cut = beans.settle_escape(f"escape:{game.pk}:{seat.position}", transfers, users, room.stake, order,
                                  note=f"room {room.pk}")
        record.owed = {str(k): v for k, v in cut.owed.items()}
        record.paid = {str(k): v for k, v in cut.paid.items()}
        record.reasons = {str(k): v for k, v in cut.reasons.items()}
        record.save(update_fields=["owed", "paid", "reasons"])
        net = [0] * room.players
        for t in transfers:
            net[t["from"]] -= t["amount"]
            net[t["to"]] += t["amount"]
        game.totals = [a + b for a, b in zip(game.totals or [0] * room.players, net)]
        game.save(update_fields=["totals"])
        seat.escaped = True
        seat.auto_play = True
        seat.timeouts = 0
        seat.save(update_fields=["escaped", "auto_play", "timeouts"])
        _hurry(room, hand)
        notify.bump(room)
        return record


def _hurry(room: Room, hand):
    """The seat is on 托管 now: answer what it is asked at once, and if only 托管 seats are
    waiting, move after the short 托管 pause instead of the full turn time."""
    if hand is None:
        return
    if hand.status != Hand.PLAYING:
        dealing.start_if_ready(room, hand)  # the result screen may have been waiting on this seat
        return
    state = handstate.hand_state(hand)
    before = hand.version
    state = moves.auto_answer_claims(hand, state, room)
    if hand.version != before:
        moves.after_change(room, hand, state)
        return
    waiting = engine.waiting_player(state)
    auto = set(room.seats.filter(auto_play=True).values_list("position", flat=True))
    if waiting and all(p in auto for p in waiting):
        hand.deadline = timezone.now() + moves.auto_play_delay()
        hand.save(update_fields=["deadline"])
        hand_id, version, eta = hand.pk, hand.version, hand.deadline
        transaction.on_commit(lambda: schedule.timeout(hand_id, version, eta))
