"""Time running out: a waiting player's automatic move (托管 after two in a row), the result
screen's countdown dealing the next hand, and the beat sweeper that catches lost tasks. A timeout
acts only if the hand is still at the version it was scheduled for; a stale one takes no lock."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engine import game as engine
from games.models import Hand, Room

from . import bots, dealing, handstate, moves, notify, safety
from .dissolve import DISSOLVE_WINDOW, end_dissolve_window
from .errors import Outcome, ServiceError

log = logging.getLogger(__name__)

def timeout(hand_id: int, version: int, now=None) -> Outcome:
    """Time ran out for whoever the hand waits on at `version`: make their automatic moves; or,
    for a finished hand, the ready countdown ran out: deal the next hand. Acts only if the hand is
    still at that version and its deadline has passed; a stale task takes no lock at all."""
    now = now or timezone.now()
    row = Hand.objects.filter(pk=hand_id).values("status", "version", "deadline", "game__room_id").first()
    if row is None:
        return Outcome(False, "no such hand", code="no_hand")
    if row["version"] != version or row["status"] not in (Hand.PLAYING, Hand.ENDED):
        return Outcome(False, "stale", row["version"], code="stale")
    if row["deadline"] is None or row["deadline"] > now:
        return Outcome(False, "not yet", row["version"], code="not_yet")
    with transaction.atomic():
        room, hand = handstate.lock_room_and_hand(row["game__room_id"], hand_id)
        if hand.version != version or hand.status not in (Hand.PLAYING, Hand.ENDED):
            return Outcome(False, "stale", hand.version, code="stale")
        if hand.deadline is None or hand.deadline > now:
            return Outcome(False, "not yet", hand.version, code="not_yet")
        if hand.status == Hand.ENDED:
            return _countdown_over(room, hand)
        state = handstate.hand_state(hand)
        seats = {s.position: s for s in room.seats.all()}
        for p in engine.waiting_player(state):
            if p not in engine.waiting_player(state):
                continue  # the claim window closed meanwhile
            action = bots.move_for(state, p, seats.get(p))  # the bot's move, or a person's default
            deciding = state.phase == engine.DECIDE
            out = engine.apply(state, action)
            if isinstance(out, engine.Illegal):
                log.error("timeout action refused: %s", out.reason)
                continue
            state, events = out
            moves.append(hand, action, events, auto=True)
            seat = seats.get(p)
            if seat is not None and not seat.auto_play and not deciding:
                # a question before the hand left unanswered takes its default (never buy):
                # a choice, not a missed turn, so it does not count toward 托管
                seat.timeouts += 1
                if seat.timeouts >= 2:
                    seat.auto_play = True  # two timeouts in a row: 托管
                seat.save(update_fields=["timeouts", "auto_play"])
            if state.phase == engine.ENDED:
                break
        auto = moves.auto_seats(room, list(seats.values()))  # as just saved
        state = moves.auto_answer_claims(hand, state, room, auto)
        moves.after_change(room, hand, state, auto)
        return Outcome(True, version=hand.version)


def _countdown_over(room: Room, hand: Hand) -> Outcome:
    """The result screen's countdown ran out: deal the next hand whoever pressed 准备."""
    latest = handstate.current_hand(room)
    if room.status != Room.PLAYING or latest is None or latest.pk != hand.pk:
        hand.deadline = None
        hand.save(update_fields=["deadline"])
        return Outcome(False, "stale", hand.version, code="stale")
    seats = list(room.seats.all())
    if len(seats) != room.players:  # cannot happen in a running game (nobody leaves); do not retry
        hand.deadline = None
        hand.save(update_fields=["deadline"])
        return Outcome(False, "seats", hand.version, code="seats")
    dealing.start_next_hand(room, seats)
    notify.bump(room)
    return Outcome(True, version=hand.version)


def sweep_overdue(now=None, grace=timedelta(seconds=0.5)) -> int:
    """Run by beat every SWEEP_SECONDS: act on every overdue hand — a person's turn or claim
    window (no task of its own: settings.TIMEOUT_TASK_SECONDS) or a hand whose timeout task was
    lost (broker restart) — deal the next hand where a ready countdown ran out, and close expired
    dissolve requests. `grace` leaves a moment to a task due at the deadline."""
    now = now or timezone.now()
    overdue = list(Hand.objects.filter(status__in=(Hand.PLAYING, Hand.ENDED), deadline__lt=now - grace)
                   .values_list("pk", "version"))
    done = 0
    for hand_id, version in overdue:
        if timeout(hand_id, version, now=now).ok:
            done += 1
    expired = Room.objects.filter(status=Room.PLAYING, dissolve_started_at__lt=now - DISSOLVE_WINDOW - grace)
    for room_id in expired.values_list("pk", flat=True):
        end_dissolve_window(room_id, now=now)
    return done


def set_auto_play(user, room_id: int, on: bool):
    """托管 on/off: a player takes back control with the button."""
    with transaction.atomic():
        room = handstate.locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError("not_seated", _("你不在这个房间"))
        if not on and safety.is_frozen(user):
            raise ServiceError("frozen", _("你的账号已被冻结，由系统托管出牌"))
        if not on and seat.escaped:
            raise ServiceError("already_left", _("你已经离开了这场牌局，由系统托管到结束"))
        seat.auto_play = on
        seat.timeouts = 0
        seat.save(update_fields=["auto_play", "timeouts"])
        if on and room.status == Room.PLAYING:
            dealing.start_if_ready(room, handstate.current_hand(room))  # the others may be waiting on the result screen
        notify.bump(room)


