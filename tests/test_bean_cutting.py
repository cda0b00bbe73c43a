"""accounts.cutting: 胡 × stake per transfer rounded up, and cutting a settlement to balances and
limits (shared/design/beans.md) - properties over random tables, then tables worked by hand."""

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.cutting import Limits, beans_of, cut_settlement, owed_beans

# --- strategies -----------------------------------------------------------------------------------


@st.composite
def tables(draw):
    """A settlement to cut: n players, the transfers in 胡 (halves, as the rules make them), the stake,
    balances, today's won/lost and the limits; small numbers often so that limits bind."""
    n = draw(st.integers(2, 4))
    positions = list(range(n))
    dealer = draw(st.sampled_from(positions))
    transfer = st.tuples(st.sampled_from(positions), st.sampled_from(positions),
                         st.integers(1, 400).map(lambda h: h / 2)).filter(lambda t: t[0] != t[1])
    transfers = [{"from": a, "to": b, "amount": amount} for a, b, amount in draw(st.lists(transfer, max_size=8))]
    stake = draw(st.one_of(st.integers(1, 10), st.integers(1, 1_000_000)))
    amount = st.one_of(st.integers(0, 2_000), st.integers(0, 50_000_000))
    balances = {p: draw(amount) for p in positions}
    won = {p: draw(amount) for p in positions}
    lost = {p: draw(amount) for p in positions}
    limits = Limits(per_hand=draw(st.one_of(st.integers(0, 5_000), st.just(1_000_000))),
                    per_day=draw(st.one_of(st.integers(0, 20_000), st.just(10_000_000))))
    order = [(dealer + k) % n for k in range(n)]
    return {"transfers": transfers, "stake": stake, "positions": positions, "balances": balances,
            "won": won, "lost": lost, "limits": limits, "order": order}


def _cut(t):
    owed = owed_beans(t["transfers"], t["stake"], t["positions"])
    return owed, cut_settlement(owed, t["balances"], t["won"], t["lost"], t["limits"], t["order"])


def _loss_room(t, p):
    return min(t["balances"][p], t["limits"].per_hand, max(0, t["limits"].per_day - t["lost"][p]))


def _gain_room(t, p):
    return min(t["limits"].per_hand, max(0, t["limits"].per_day - t["won"][p]))


# --- owed_beans -------------------------------------------------------------------------------------

@given(tables())
def test_owed_is_each_transfer_rounded_up_and_sums_to_zero(t):
    owed = owed_beans(t["transfers"], t["stake"], t["positions"])
    assert sum(owed.values()) == 0
    expected = {p: 0 for p in t["positions"]}
    for tr in t["transfers"]:
        beans = math.ceil(Decimal(str(tr["amount"])) * t["stake"])
        assert beans >= tr["amount"] * t["stake"] and beans - tr["amount"] * t["stake"] < 1
        expected[tr["from"]] -= beans
        expected[tr["to"]] += beans
    assert owed == expected


# --- cut_settlement: properties -----------------------------------------------------------------------

@given(tables())
def test_paid_is_zero_sum(t):
    _owed, cut = _cut(t)
    assert sum(cut.paid.values()) == 0
    assert set(cut.paid) == set(t["positions"])


@given(tables())
def test_no_loser_pays_more_than_balance_hand_room_or_day_room(t):
    _owed, cut = _cut(t)
    for p, v in cut.paid.items():
        if v < 0:
            assert -v <= t["balances"][p]
            assert -v <= t["limits"].per_hand
            assert t["lost"][p] - v <= t["limits"].per_day  # never past the day limit
            assert -v <= _loss_room(t, p)


@given(tables())
def test_no_winner_receives_more_than_hand_room_or_day_room(t):
    _owed, cut = _cut(t)
    for p, v in cut.paid.items():
        if v > 0:
            assert v <= t["limits"].per_hand and t["won"][p] + v <= t["limits"].per_day
            assert v <= _gain_room(t, p)


@given(tables())
def test_nobody_pays_or_receives_more_than_owed_and_signs_are_kept(t):
    owed, cut = _cut(t)
    assert cut.owed == owed
    for p in t["positions"]:
        if owed[p] > 0:
            assert 0 <= cut.paid[p] <= owed[p]
        elif owed[p] < 0:
            assert owed[p] <= cut.paid[p] <= 0
        else:
            assert cut.paid[p] == 0


@given(tables())
def test_when_no_limit_binds_paid_equals_owed(t):
    owed, cut = _cut(t)
    binds = any((v < 0 and -v > _loss_room(t, p)) or (v > 0 and v > _gain_room(t, p)) for p, v in owed.items())
    if not binds:
        assert cut.paid == owed and cut.reasons == {} and not cut.was_cut
    else:
        assert cut.reasons  # whoever was cut has a reason


@given(tables())
def test_same_input_same_output_whatever_the_dict_order(t):
    owed, cut = _cut(t)
    again = cut_settlement(dict(owed), dict(t["balances"]), dict(t["won"]), dict(t["lost"]), t["limits"], t["order"])
    assert (again.paid, again.reasons) == (cut.paid, cut.reasons)
    backwards = {p: owed[p] for p in reversed(list(owed))}
    shuffled = cut_settlement(backwards, t["balances"], t["won"], t["lost"], t["limits"], list(t["order"]))
    assert shuffled.paid == cut.paid


@given(tables())
def test_larger_side_is_scaled_by_largest_remainder_ties_in_seat_order_from_the_dealer(t):
    """The whole rule as an oracle: cut each side to its rooms, Paid = the smaller total, the larger
    side gets floor(share) and one more bean by largest remainder, ties in seat order from the dealer."""
    owed, cut = _cut(t)
    losses = {p: min(-v, _loss_room(t, p)) for p, v in owed.items() if v < 0}
    gains = {p: min(v, _gain_room(t, p)) for p, v in owed.items() if v > 0}
    total = min(sum(losses.values()), sum(gains.values()))
    rank = {p: i for i, p in enumerate(t["order"])}
    for side, sign in ((losses, -1), (gains, 1)):
        s = sum(side.values())
        if s == total:
            expected = dict(side)
        else:
            shares = {p: Fraction(a * total, s) for p, a in side.items()}
            expected = {p: math.floor(x) for p, x in shares.items()}
            extra = sorted(side, key=lambda p: (-(shares[p] - expected[p]), rank[p]))[:total - sum(expected.values())]
            for p in extra:
                expected[p] += 1
            for p in side:  # each within one bean of the exact share
                assert abs(expected[p] - shares[p]) < 1
        for p, a in expected.items():
            assert cut.paid[p] == sign * a


@given(tables())
def test_inputs_are_not_changed(t):
    owed = owed_beans(t["transfers"], t["stake"], t["positions"])
    copies = (dict(owed), dict(t["balances"]), dict(t["won"]), dict(t["lost"]), list(t["order"]))
    cut_settlement(owed, t["balances"], t["won"], t["lost"], t["limits"], t["order"])
    assert (owed, t["balances"], t["won"], t["lost"], t["order"]) == copies


# --- worked by hand -----------------------------------------------------------------------------------

BIG = 10**9
NOTHING_TODAY = {0: 0, 1: 0, 2: 0, 3: 0}
RICH = {0: BIG, 1: BIG, 2: BIG, 3: BIG}


def test_half_payments_round_up_per_transfer():
    assert beans_of(0.5, 1) == 1 and beans_of(0.5, 3) == 2 and beans_of(12.5, 100) == 1250 and beans_of(7, 100) == 700
    # three separate half-胡 payments at stake 1 are 3 beans, not ceil(1.5) = 2
    transfers = [{"from": p, "to": 0, "amount": 0.5} for p in (1, 2, 3)]
    assert owed_beans(transfers, 1, [0, 1, 2, 3]) == {0: 3, 1: -1, 2: -1, 3: -1}
    # 12.5 胡 at stake 3 is 37.5 -> 38 per transfer; two non-winners settling 2.5 胡 -> 8
    transfers = [{"from": 1, "to": 0, "amount": 12.5}, {"from": 2, "to": 0, "amount": 12.5},
                 {"from": 2, "to": 1, "amount": 2.5}]
    assert owed_beans(transfers, 3, [0, 1, 2]) == {0: 76, 1: -38 + 8, 2: -38 - 8}


def test_a_loser_with_a_small_balance():
    owed = {0: 3_000, 1: -1_000, 2: -1_000, 3: -1_000}
    balances = {0: 50_000, 1: 50_000, 2: 400, 3: 50_000}
    cut = cut_settlement(owed, balances, NOTHING_TODAY, NOTHING_TODAY, Limits(), [0, 1, 2, 3])
    assert cut.paid == {0: 2_400, 1: -1_000, 2: -400, 3: -1_000}
    assert cut.reasons == {2: ["balance"], 0: ["losers_cut"]} and cut.was_cut


def test_a_loser_with_nothing_pays_nothing():
    cut = cut_settlement({0: 500, 1: -500}, {0: 10, 1: 0}, {0: 0, 1: 0}, {0: 0, 1: 0}, Limits(), [1, 0])
    assert cut.paid == {0: 0, 1: 0} and cut.reasons == {1: ["balance"], 0: ["losers_cut"]}


def test_a_winner_at_the_day_limit_takes_only_what_is_left_ties_from_the_dealer():
    owed = {0: 3_000, 1: -1_000, 2: -1_000, 3: -1_000}
    won_today = {0: 10_000_000 - 500, 1: 0, 2: 0, 3: 0}
    # 500 over three equal losers: 166 each and two left over, equal remainders -> seat order from the dealer
    cut = cut_settlement(owed, RICH, won_today, NOTHING_TODAY, Limits(), [2, 3, 0, 1])  # dealer 2
    assert cut.paid == {0: 500, 1: -166, 2: -167, 3: -167}
    assert cut.reasons == {0: ["day_limit"], 1: ["winners_cut"], 2: ["winners_cut"], 3: ["winners_cut"]}
    cut = cut_settlement(owed, RICH, won_today, NOTHING_TODAY, Limits(), [0, 1, 2, 3])  # dealer 0
    assert cut.paid == {0: 500, 1: -167, 2: -167, 3: -166}
    cut = cut_settlement(owed, RICH, {0: 10_000_000, 1: 0, 2: 0, 3: 0}, NOTHING_TODAY, Limits(), [0, 1, 2, 3])
    assert cut.paid == {0: 0, 1: 0, 2: 0, 3: 0}  # already at the limit: nothing moves


def test_a_loser_at_the_day_limit():
    lost_today = {0: 0, 1: 9_999_000}
    cut = cut_settlement({0: 5_000, 1: -5_000}, RICH, NOTHING_TODAY, lost_today, Limits(), [0, 1])
    assert cut.paid == {0: 1_000, 1: -1_000} and cut.reasons == {1: ["day_limit"], 0: ["losers_cut"]}


def test_largest_remainder_goes_first_whatever_the_seat():
    won_today = {0: 10_000_000 - 7, 1: 0, 2: 0, 3: 0}  # the winner has room for 7 more today
    # shares 3.5, 2.1, 1.4: floors 6, one left -> the largest remainder (seat 1)
    cut = cut_settlement({0: 1_000, 1: -500, 2: -300, 3: -200}, RICH, won_today, NOTHING_TODAY, Limits(),
                         [0, 1, 2, 3])
    assert cut.paid == {0: 7, 1: -4, 2: -2, 3: -1}
    # the same amounts the other way round: the largest remainder is now seat 3, the last from the dealer
    cut = cut_settlement({0: 1_000, 1: -200, 2: -300, 3: -500}, RICH, won_today, NOTHING_TODAY, Limits(),
                         [0, 1, 2, 3])
    assert cut.paid == {0: 7, 1: -1, 2: -2, 3: -4}
    assert cut.reasons == {0: ["day_limit"], 1: ["winners_cut"], 2: ["winners_cut"], 3: ["winners_cut"]}


def test_the_hand_limit_on_both_sides():
    owed = {0: 3_000_000, 1: -3_000_000}
    cut = cut_settlement(owed, RICH, NOTHING_TODAY, NOTHING_TODAY, Limits(), [0, 1])
    assert cut.paid == {0: 1_000_000, 1: -1_000_000}
    assert cut.reasons == {0: ["hand_limit"], 1: ["hand_limit"]}


def test_two_winners_share_what_the_losers_can_pay():
    # the winner and a non-winner both gain (non-winners settle among themselves); seat 3 is broke
    owed = {0: 900, 1: 100, 2: -500, 3: -500}
    cut = cut_settlement(owed, {0: 0, 1: 0, 2: BIG, 3: 0}, NOTHING_TODAY, NOTHING_TODAY, Limits(), [1, 2, 3, 0])
    assert cut.paid == {0: 450, 1: 50, 2: -500, 3: 0}
    assert cut.reasons == {3: ["balance"], 0: ["losers_cut"], 1: ["losers_cut"]}


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_remainder_ties_follow_the_dealer(dealer):
    order = [(dealer + k) % 4 for k in range(4)]
    # three equal winners, the loser (seat 3) has 2 beans: the first two winners from the dealer get them
    owed = {0: 10, 1: 10, 2: 10, 3: -30}
    cut = cut_settlement(owed, {0: 0, 1: 0, 2: 0, 3: 2}, NOTHING_TODAY, NOTHING_TODAY, Limits(), order)
    assert [cut.paid[p] for p in order if p != 3] == [1, 1, 0] and cut.paid[3] == -2
