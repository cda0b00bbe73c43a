"""A crash in the middle of a hand's bean settlement rolls back the whole hand-ending action.

The settlement runs inside the transaction of the action that ends the hand (services.play ->
_finish_hand -> beans.settle_hand). Here the second ledger write blows up after the first row
is written: afterwards there are no hand ledger rows, no HandSettlement, the hand is still playing
at its old version, and the same action succeeds when it is sent again.
"""

import random

import pytest
from django.db.models import Sum

from accounts import beans
from accounts.models import HandSettlement, LedgerEntry, Wallet
from games import services
from games.models import Hand, HandEvent, Room
from tests.bean_helpers import (
    assert_balances_match_ledger,
    fixed_walls,
    make_player,
    play_until_a_win,
    users_by_position,
)

# a real transaction (not the test's savepoint), so the rollback is the database's own
pytestmark = pytest.mark.django_db(transaction=True)


class SettlementCrash(RuntimeError):
    pass


@pytest.fixture
def table_about_to_end(settings, monkeypatch):
    """A 3-player room whose current hand waits on a winning action: (room, hand, position, command)."""
    fixed_walls(monkeypatch, settings, "beans-crash")
    host = make_player("host", "东家")
    room = services.create_room(host, players=3, length=16, stake=100)
    for i in (1, 2):
        services.join_room(make_player(f"guest{i}"), room.token)
    hand, position, command = play_until_a_win(room, random.Random(11), stop_before_win=True)
    return room, hand, position, command


class CrashAfterFirstRow:
    """beans._post writes its row, then the first call raises (as if the process died there)."""

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.real_post = beans._post
        self.written = []
        monkeypatch.setattr(beans, "_post", self.post_then_crash)

    def post_then_crash(self, *args, **kwargs):
        entry = self.real_post(*args, **kwargs)
        self.written.append(entry.pk)
        if len(self.written) == 1:
            raise SettlementCrash("the disk is full")
        return entry

    def stop(self):
        self.monkeypatch.setattr(beans, "_post", self.real_post)


@pytest.fixture
def crash_after_first_row(monkeypatch):
    return CrashAfterFirstRow(monkeypatch)


def _snapshot(room, hand):
    hand.refresh_from_db()
    room.refresh_from_db()
    return {
        "hand": (hand.status, hand.version, hand.result, hand.ended_at),
        "events": HandEvent.objects.filter(hand=hand).count(),
        "room": (room.status, room.version),
        "game": tuple(Room.objects.filter(pk=room.pk).values_list("game__hands_played", "game__totals").get()),
        "wallets": sorted(Wallet.objects.values_list("user_id", "balance")),
        "ledger": LedgerEntry.objects.count(),
    }


def test_a_crash_mid_settlement_rolls_back_the_whole_action_and_a_retry_succeeds(table_about_to_end,
                                                                                 crash_after_first_row):
    room, hand, position, command = table_about_to_end
    user = users_by_position(room)[position]
    before = _snapshot(room, hand)
    assert before["hand"][0] == Hand.PLAYING

    with pytest.raises(SettlementCrash):
        services.play(hand.pk, user, command, hand.version)

    assert len(crash_after_first_row.written) == 1  # a ledger row was written before the crash ...
    assert not LedgerEntry.objects.filter(pk=crash_after_first_row.written[0]).exists()  # ... and is gone
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.HAND).exists()
    assert not HandSettlement.objects.exists()
    assert _snapshot(room, hand) == before  # still playing, the old version, nothing else moved
    assert_balances_match_ledger()

    crash_after_first_row.stop()  # the next attempt does not crash
    services.handstate._cache.clear()  # and does not lean on this process's memory of the failed attempt
    out = services.play(hand.pk, user, command, before["hand"][1])
    assert out.ok, out.error
    hand.refresh_from_db()
    assert hand.status == Hand.ENDED and hand.version == before["hand"][1] + 1
    settlement = HandSettlement.objects.get(hand=hand)
    assert hand.result["beans"]["paid"] == settlement.paid and hand.result["winner"] == position
    assert LedgerEntry.objects.filter(hand=hand).aggregate(s=Sum("amount"))["s"] == 0
    assert LedgerEntry.objects.filter(hand=hand).count() == sum(1 for v in settlement.paid.values() if v)
    for p, u in users_by_position(room).items():
        assert Wallet.objects.get(user=u).balance - dict(before["wallets"])[u.pk] == settlement.paid[str(p)]
    assert_balances_match_ledger()


def test_the_retry_works_with_the_process_cache_left_as_the_crash_left_it(table_about_to_end,
                                                                          crash_after_first_row):
    room, hand, position, command = table_about_to_end
    user = users_by_position(room)[position]
    version = hand.version
    with pytest.raises(SettlementCrash):
        services.play(hand.pk, user, command, version)
    crash_after_first_row.stop()
    out = services.play(hand.pk, user, command, version)  # the cache holds the ended state at version + 1
    assert out.ok, out.error
    hand.refresh_from_db()
    assert hand.status == Hand.ENDED and HandSettlement.objects.filter(hand=hand).exists()
    assert services.play(hand.pk, user, command, version).ok is False  # and not twice
    assert HandSettlement.objects.count() == 1
    assert_balances_match_ledger()
