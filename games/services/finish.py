"""Finishing a hand (lila's Finisher): the result, the beans settled once inside the same
transaction, the game's totals and next dealer, the ready countdown or the end of the game."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction

from accounts import beans
from games.engine import game as engine
from games.engine.view import result_view
from games.models import Hand, Room, Seat

from . import schedule


def next_hand_delay() -> timedelta:
    """The ready countdown on the result screen: the next hand starts when it runs out."""
    return timedelta(seconds=getattr(settings, "NEXT_HAND_SECONDS", 15))


def finish_hand(room, hand, state, now):
    game = hand.game
    hand.status = Hand.ENDED
    hand.deadline = None
    hand.ended_at = now
    hand.result = result_view(state, "zh")
    if room.practice:  # 练习 (computer players): the points count, no beans move
        hand.result["practice"] = True
    elif state.result.transfers:  # a win, or a failed 包 contract (Zhuji: the dealer pays each player)
        users = {s.position: s.user for s in room.seats.select_related("user")}
        order = [(hand.dealer + k) % room.players for k in range(room.players)]
        settlement = beans.settle_hand(hand, state.result.transfers, users, room.stake, order)
        hand.result["beans"] = {"stake": settlement.stake, "owed": settlement.owed, "paid": settlement.paid,
                                "reasons": settlement.reasons}
    hand.save()
    hand_id = hand.pk
    transaction.on_commit(lambda: schedule.replay(hand_id))
    game.totals = [a + b for a, b in zip(game.totals, state.result.net)]
    game.hands_played += 1
    nxt, carry = engine.next_hand(state)
    if nxt != game.dealer:
        game.dealer_passes += 1
    game.dealer = nxt
    game.carry = carry
    if game.is_over():
        game.finished_at = now
        room.status = Room.FINISHED
        room.save(update_fields=["status"])
    else:
        # the ready countdown: the next hand starts by itself when it runs out
        hand.deadline = now + next_hand_delay()
        hand.save(update_fields=["deadline"])
        hand_id, version, eta = hand.pk, hand.version, hand.deadline
        transaction.on_commit(lambda: schedule.timeout(hand_id, version, eta))
    game.save()
    Seat.objects.filter(room=room).update(ready=False)


