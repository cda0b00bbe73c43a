"""accounts.beans: the starting grant, relief, staff adjustments, a hand's settlement through the
services, idempotency, the Asia/Shanghai day of the daily limits, and who may sit down."""

import math
import random
from datetime import date, datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.db.models import Sum
from django.utils import timezone

from accounts import beans
from accounts.models import HandSettlement, LedgerEntry, SiteSettings, Wallet
from games import services
from games.models import Game, Hand, Room, Seat
from tests.bean_helpers import (
    assert_balances_match_ledger,
    balance,
    current_hand,
    fixed_walls,
    ledger_sum,
    make_player,
    play_hand,
    play_until_a_win,
    ready_all,
    set_balance,
    users_by_position,
)

pytestmark = pytest.mark.django_db

# 2026-03-01 23:59:30 and 2026-03-02 00:00:30 in Asia/Shanghai: one UTC day, two Shanghai days
LATE_EVENING = datetime(2026, 3, 1, 15, 59, 30, tzinfo=dt_timezone.utc)
JUST_AFTER_MIDNIGHT = datetime(2026, 3, 1, 16, 0, 30, tzinfo=dt_timezone.utc)


@pytest.fixture
def newcomer():
    return make_player("newcomer", "新来的")


@pytest.fixture
def rich_player():
    return make_player("rich", "有钱人")


@pytest.fixture
def poor_player():
    user = make_player("poor", "穷小子")
    set_balance(user, 1_000)
    return user


@pytest.fixture
def staff_member():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("cs", password="pw-cs-long-enough", is_staff=True)


@pytest.fixture
def frozen_clock(monkeypatch):
    """Set the wall clock: frozen_clock(datetime) (timezone.now, so beans.today follows)."""
    def freeze(moment):
        monkeypatch.setattr(timezone, "now", lambda: moment)
        return moment
    return freeze


def _hand_between(winner, loser, number=1, stake=100):
    """A Hand row (2 players, winner at position 0) to settle directly."""
    room = Room.objects.create(host=winner, players=2, stake=stake, status=Room.PLAYING)
    Seat.objects.create(room=room, user=winner, position=0)
    Seat.objects.create(room=room, user=loser, position=1)
    game = Game.objects.create(room=room, first_dealer=0, dealer=0, totals=[0, 0])
    return Hand.objects.create(game=game, number=number, seed=number, dealer=0, status=Hand.ENDED)


def _settle(hand, winner, loser, hu, stake=100):
    return beans.settle_hand(hand, [{"from": 1, "to": 0, "amount": hu}], {0: winner, 1: loser}, stake, [0, 1])


# --- starting grant -------------------------------------------------------------------------

def test_sign_up_grants_the_starting_beans_exactly_once(client):
    response = client.post("/accounts/signup/", {"username": "xiaoming", "nickname": "小明",
                                                 "password1": "a-Long-enough-pw-9", "password2": "a-Long-enough-pw-9"})
    assert response.status_code == 302
    wallet = Wallet.objects.get(user__username="xiaoming")
    grants = LedgerEntry.objects.filter(wallet=wallet)
    assert wallet.balance == 100_000
    assert list(grants.values_list("reason", "amount", "balance_after", "key")) == [
        (LedgerEntry.GRANT, 100_000, 100_000, f"start:{wallet.user_id}")]
    beans.grant_start(wallet.user)  # again: nothing more
    beans.grant_start(wallet.user)
    beans.wallet_for(wallet.user)
    wallet.refresh_from_db()
    assert wallet.balance == 100_000 and LedgerEntry.objects.filter(wallet=wallet).count() == 1


def test_starting_grant_follows_the_settings_at_sign_up(newcomer):
    SiteSettings.objects.filter(pk=1).update(starting_grant=5_000)
    later = make_player("later")
    assert balance(newcomer) == 100_000 and balance(later) == 5_000
    SiteSettings.objects.filter(pk=1).update(starting_grant=0)
    nothing = make_player("nothing")
    assert balance(nothing) == 0 and not LedgerEntry.objects.filter(wallet__user=nothing).exists()
    assert_balances_match_ledger()


# --- relief -----------------------------------------------------------------------------------

def test_relief_only_below_the_threshold(newcomer):
    set_balance(newcomer, 5_000)  # not below 5,000
    with pytest.raises(beans.BeanError):
        beans.claim_relief(newcomer)
    assert not beans.can_claim_relief(newcomer)
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.RELIEF).exists()
    set_balance(newcomer, 4_999)
    assert beans.can_claim_relief(newcomer)
    entry = beans.claim_relief(newcomer)
    assert (entry.reason, entry.amount, entry.balance_after) == (LedgerEntry.RELIEF, 20_000, 24_999)
    assert balance(newcomer) == 24_999
    assert_balances_match_ledger()


def test_relief_once_a_calendar_day(newcomer, frozen_clock):
    frozen_clock(LATE_EVENING)
    set_balance(newcomer, 0)
    beans.claim_relief(newcomer)
    set_balance(newcomer, 0)  # broke again the same day
    assert not beans.can_claim_relief(newcomer)
    with pytest.raises(beans.BeanError):
        beans.claim_relief(newcomer)
    assert balance(newcomer) == 0
    frozen_clock(JUST_AFTER_MIDNIGHT)  # a minute later, a new day in Shanghai
    assert beans.can_claim_relief(newcomer)
    entry = beans.claim_relief(newcomer)
    assert entry.day == date(2026, 3, 2) and balance(newcomer) == 20_000
    days = list(LedgerEntry.objects.filter(reason=LedgerEntry.RELIEF).order_by("id").values_list("day", flat=True))
    assert days == [date(2026, 3, 1), date(2026, 3, 2)]
    assert_balances_match_ledger()


# --- staff adjustments ----------------------------------------------------------------------

@pytest.mark.parametrize("note", ["", "   ", None])
def test_adjust_needs_a_reason(newcomer, staff_member, note):
    with pytest.raises(beans.BeanError):
        beans.adjust(staff_member, newcomer, 500, note)
    assert balance(newcomer) == 100_000 and not LedgerEntry.objects.filter(reason=LedgerEntry.ADJUST).exists()


@pytest.mark.parametrize("amount", [0, 1.5, "100", True])
def test_adjust_needs_a_whole_nonzero_amount(newcomer, staff_member, amount):
    with pytest.raises(beans.BeanError):
        beans.adjust(staff_member, newcomer, amount, "补偿")
    assert balance(newcomer) == 100_000


def test_adjust_never_goes_below_zero(newcomer, staff_member):
    with pytest.raises(beans.BeanError):
        beans.adjust(staff_member, newcomer, -100_001, "扣回多发的金豆")
    assert balance(newcomer) == 100_000 and LedgerEntry.objects.filter(wallet__user=newcomer).count() == 1
    entry = beans.adjust(staff_member, newcomer, -100_000, "扣回多发的金豆")
    assert (entry.amount, entry.balance_after, entry.staff, entry.note) == (-100_000, 0, staff_member, "扣回多发的金豆")
    assert balance(newcomer) == 0
    assert_balances_match_ledger()


def test_adjust_with_the_same_key_is_written_once(newcomer, staff_member):
    first = beans.adjust(staff_member, newcomer, 700, "工单 #17", key="ticket-17")
    again = beans.adjust(staff_member, newcomer, 700, "工单 #17", key="ticket-17")
    assert first.pk == again.pk and balance(newcomer) == 100_700


def test_two_adjustments_at_the_same_instant_are_both_written(newcomer, staff_member, frozen_clock):
    # the default key once came from the clock: the second adjustment was silently dropped
    frozen_clock(LATE_EVENING)
    beans.adjust(staff_member, newcomer, 100, "第一笔")
    beans.adjust(staff_member, newcomer, 100, "第二笔")
    assert balance(newcomer) == 100_200
    assert LedgerEntry.objects.filter(reason=LedgerEntry.ADJUST).count() == 2
    assert_balances_match_ledger()


# --- a hand through the services --------------------------------------------------------------

@pytest.fixture
def four_player_room(settings, monkeypatch):
    fixed_walls(monkeypatch, settings, "beans")
    host = make_player("host", "东家")
    room = services.create_room(host, players=4, length=16, stake=100)
    for i in range(1, 4):
        services.join_room(make_player(f"guest{i}"), room.token)
    return room


def test_a_won_hand_moves_hu_times_stake_exactly_as_the_result_says(four_player_room):
    room = four_player_room
    users = users_by_position(room)
    before = {p: balance(u) for p, u in users.items()}
    hand = play_until_a_win(room, random.Random(7))
    result = hand.result
    stored = result["beans"]
    assert stored["stake"] == 100
    owed = {str(p): 0 for p in users}
    for t in result["transfers"]:
        b = math.ceil(t["amount"] * 100)  # 胡 × stake, each transfer rounded up
        owed[str(t["from"])] -= b
        owed[str(t["to"])] += b
    assert any(owed.values()) and sum(owed.values()) == 0
    assert stored["owed"] == owed
    assert stored["paid"] == owed and stored["reasons"] == {}  # no limit binds at 100,000 each
    for p, u in users.items():
        assert balance(u) - before[p] == stored["paid"][str(p)]
        rows = LedgerEntry.objects.filter(wallet__user=u, reason=LedgerEntry.HAND)
        if stored["paid"][str(p)]:
            assert list(rows.values_list("hand", "amount")) == [(hand.pk, stored["paid"][str(p)])]
        else:
            assert not rows.exists()
    settlement = HandSettlement.objects.get(hand=hand)
    assert (settlement.owed, settlement.paid) == (stored["owed"], stored["paid"]) and not settlement.was_cut
    assert LedgerEntry.objects.filter(hand=hand).aggregate(s=Sum("amount"))["s"] == 0
    assert_balances_match_ledger()


def test_a_drawn_hand_moves_no_beans(four_player_room):
    room = four_player_room
    ready_all(room)
    rng = random.Random(1)
    for _ in range(16):
        hand = play_hand(room, rng)
        if hand.result["winner"] is None:
            break
        ready_all(room)
    else:
        raise AssertionError("no drawn hand with these walls")
    assert "beans" not in hand.result
    assert not HandSettlement.objects.filter(hand=hand).exists() and not LedgerEntry.objects.filter(hand=hand).exists()


def test_settle_hand_twice_writes_nothing_the_second_time(rich_player, newcomer):
    hand = _hand_between(rich_player, newcomer)
    first = _settle(hand, rich_player, newcomer, 12.5)
    rows = list(LedgerEntry.objects.order_by("id").values_list("id", "amount"))
    second = _settle(hand, rich_player, newcomer, 12.5)
    third = _settle(hand, rich_player, newcomer, 99)  # even with other transfers: the hand is settled
    assert first.pk == second.pk == third.pk
    assert list(LedgerEntry.objects.order_by("id").values_list("id", "amount")) == rows
    assert (balance(rich_player), balance(newcomer)) == (101_250, 98_750)
    assert HandSettlement.objects.count() == 1
    assert_balances_match_ledger()


# --- the Asia/Shanghai day ----------------------------------------------------------------------

def test_day_limit_counts_the_shanghai_calendar_day(rich_player, newcomer, frozen_clock):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1_000})
    frozen_clock(LATE_EVENING)  # 23:59:30 in Shanghai, 15:59:30 UTC
    assert beans.today() == date(2026, 3, 1)
    _settle(_hand_between(rich_player, newcomer, 1), rich_player, newcomer, 10)  # 1,000: the limit
    assert beans.day_totals(newcomer) == (0, 1_000) and beans.day_totals(rich_player) == (1_000, 0)
    assert beans.day_limit_reached(newcomer) and beans.day_limit_reached(rich_player)
    cut = _settle(_hand_between(rich_player, newcomer, 2), rich_player, newcomer, 5)
    assert cut.paid == {"0": 0, "1": 0} and cut.reasons == {"0": ["day_limit"], "1": ["day_limit"]}

    frozen_clock(JUST_AFTER_MIDNIGHT)  # one minute later: the same UTC day, a new Shanghai day
    assert beans.today() == date(2026, 3, 2)
    assert beans.day_totals(newcomer) == (0, 0) and not beans.day_limit_reached(newcomer)
    assert beans.day_totals(newcomer, date(2026, 3, 1)) == (0, 1_000)
    paid = _settle(_hand_between(rich_player, newcomer, 3), rich_player, newcomer, 5)
    assert paid.paid == {"0": 500, "1": -500}
    days = LedgerEntry.objects.filter(wallet__user=newcomer, reason=LedgerEntry.HAND).order_by("id")
    assert list(days.values_list("day", "amount")) == [(date(2026, 3, 1), -1_000), (date(2026, 3, 2), -500)]
    assert_balances_match_ledger()


def test_bean_day_stays_shanghai_whatever_time_zone_is_active(frozen_clock):
    frozen_clock(JUST_AFTER_MIDNIGHT)
    with timezone.override("UTC"):
        assert timezone.localdate() == date(2026, 3, 1)
        assert beans.today() == date(2026, 3, 2)


def test_wins_and_losses_count_separately_towards_the_day_limit(rich_player, newcomer):
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1_000})
    _settle(_hand_between(rich_player, newcomer, 1), rich_player, newcomer, 8)  # newcomer -800
    _settle(_hand_between(newcomer, rich_player, 2), newcomer, rich_player, 8)  # newcomer +800
    assert beans.day_totals(newcomer) == (800, 800)  # not netted to zero
    cut = _settle(_hand_between(rich_player, newcomer, 3), rich_player, newcomer, 5)  # room for 200 more
    assert cut.paid == {"0": 200, "1": -200}
    assert beans.day_totals(newcomer) == (800, 1_000) and beans.day_limit_reached(newcomer)


# --- who may sit down -----------------------------------------------------------------------------

def test_at_the_day_limit_no_new_seat_but_the_running_game_goes_on(settings, monkeypatch):
    fixed_walls(monkeypatch, settings, "limit-a")  # hand 3 is won, and so is hand 4
    SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 1})
    host, guest = make_player("host"), make_player("guest")
    room = services.create_room(host, players=2, length=16)
    services.join_room(guest, room.token)
    rng = random.Random(5)
    won = play_until_a_win(room, rng)
    paid = won.result["beans"]["paid"]
    assert sorted(paid.values()) == [-1, 1]  # cut to the day limit of 1 bean
    assert beans.day_limit_reached(host) and beans.day_limit_reached(guest)

    other_host = make_player("other")
    other_room = services.create_room(other_host, players=2, length=4)
    for user in (host, guest):
        with pytest.raises(services.ServiceError, match="每日上限"):
            services.join_room(user, other_room.token)
        with pytest.raises(services.ServiceError, match="每日上限"):
            services.create_room(user, players=2, length=4)
    assert not Seat.objects.filter(room=other_room, user__in=[host, guest]).exists()

    # the running game goes on: the next hand starts and plays to its end; no beans move any more
    before = (balance(host), balance(guest))
    rows = LedgerEntry.objects.count()
    ready_all(room)
    hand = current_hand(room)
    assert hand.number == won.number + 1 and hand.status == Hand.PLAYING
    hand = play_hand(room, rng)
    assert hand.status == Hand.ENDED
    assert hand.result["winner"] is not None  # won, but at the limit nothing moves
    assert set(hand.result["beans"]["paid"].values()) == {0} and any(hand.result["beans"]["owed"].values())
    assert set(map(tuple, hand.result["beans"]["reasons"].values())) == {("day_limit",)}
    assert (balance(host), balance(guest)) == before and LedgerEntry.objects.count() == rows
    assert_balances_match_ledger()


def test_min_balance_refuses_a_poor_player(rich_player, poor_player, newcomer):
    room = services.create_room(rich_player, players=3, length=4, min_balance=50_000)
    with pytest.raises(services.ServiceError, match="至少 50000 金豆"):
        services.join_room(poor_player, room.token)
    assert not Seat.objects.filter(room=room, user=poor_player).exists()
    set_balance(newcomer, 50_000)  # exactly the minimum is enough
    assert services.join_room(newcomer, room.token).position == 1
    with pytest.raises(services.ServiceError):
        services.create_room(poor_player, players=2, length=4, min_balance=1_001)
    assert services.create_room(poor_player, players=2, length=4, min_balance=1_000).min_balance == 1_000
    with pytest.raises(services.ServiceError):
        services.create_room(rich_player, players=2, length=4, min_balance=-1)


def test_ledger_rows_are_the_whole_story(rich_player, newcomer, poor_player, staff_member):
    _settle(_hand_between(rich_player, newcomer, 1), rich_player, newcomer, 33.5)
    _settle(_hand_between(poor_player, rich_player, 2), poor_player, rich_player, 7)
    beans.adjust(staff_member, newcomer, -1, "零头")
    set_balance(poor_player, 10)
    beans.claim_relief(poor_player)
    for user in (rich_player, newcomer, poor_player):
        assert balance(user) == ledger_sum(user)
    assert_balances_match_ledger()
