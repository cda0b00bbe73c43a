"""Hypothesis properties of Zhuji (诸暨麻将, shared/rules/zhuji.md): the payments of §5 always net
to zero (both modes, 2-4 players, 老庄, the failed contract), and the engine's 台 and 独 agree
with an independent brute force (tests/zhuji_reference.py) on random winning hands with none,
one or two wild faces. Pure engine: no Django.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.melds import make_meld
from games.engine.tiles import NUM_FACES, SEAT_NAMES, face_name, format_tiles
from games.engine.variants import zhuji
from games.engine.variants.zhuji import NotAWin, best_tai, score, settle, settle_request, single_wait
from tests.zhuji_reference import reference_single_wait, reference_tai

randoms = st.integers(0, 2**32 - 1).map(random.Random)
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- payments (§5) ----------------------------------------------------------------------------

def _table(rnd):
    n = rnd.choice((2, 3, 4))
    seats = list(SEAT_NAMES[:n])
    rnd.shuffle(seats)  # seat letters name players; the order given is kept
    dealer = rnd.choice(seats)
    winner = rnd.choice(seats + [None])
    discarder = None
    if winner is not None and rnd.random() < 0.6:
        discarder = rnd.choice([s for s in seats if s != winner])
    return seats, dealer, winner, discarder


@FAST
@given(randoms, st.sampled_from(["fan", "bao"]), st.integers(1, 12), st.sampled_from([1, 2, 5, 10]),
       st.integers(2, 6), st.booleans(), st.booleans(), st.booleans())
def test_payments_net_to_zero(rnd, mode, tai, unit, target, laozhuang, no_wild, du):
    """Every payment goes from one player to another: net sums to zero; only the winner gains
    (or, on a failed contract, only the dealer pays); 老庄 doubles every amount exactly once."""
    seats, dealer, winner, discarder = _table(rnd)
    if mode == "bao" and winner == dealer:
        tai = max(tai, target)
    transfers, net = settle(seats, mode, dealer, winner, discarder, tai, unit, laozhuang, target, no_wild, du)
    assert sum(net.values()) == 0 and list(net) == seats
    assert all(t["amount"] > 0 and t["from"] != t["to"] for t in transfers)
    for s in seats:
        assert net[s] == sum(t["amount"] for t in transfers if t["to"] == s) - sum(
            t["amount"] for t in transfers if t["from"] == s)
    if winner is not None:
        assert {t["to"] for t in transfers} == {winner}
        assert {t["from"] for t in transfers if t["why"] == "win"} == set(seats) - {winner}
        assert net[winner] > 0 and all(net[s] < 0 for s in seats if s != winner)
        if mode == "fan":
            assert {t["why"] for t in transfers} == {"win"}
    elif mode == "bao":
        assert {t["from"] for t in transfers} == {dealer} and {t["why"] for t in transfers} == {"contract"}
        assert net[dealer] < 0
    else:
        assert transfers == [] and set(net.values()) == {0}
    plain = settle(seats, mode, dealer, winner, discarder, tai, unit, False, target, no_wild, du)
    doubled = settle(seats, mode, dealer, winner, discarder, tai, unit, True, target, no_wild, du)
    assert {s: 2 * v for s, v in plain[1].items()} == doubled[1]
    req = {"variant": "zhuji", "mode": mode, "seats": seats, "dealer": dealer, "winner": winner,
           "discarder": discarder, "tai": tai, "unit": unit, "laozhuang": laozhuang, "target": target,
           "no_wild": no_wild, "single_wait": du}
    assert settle_request(req) == {"ok": True, "transfers": transfers, "net": net}


@FAST
@given(randoms, st.integers(1, 8), st.integers(2, 6))
def test_bao_is_fan_plus_the_contract(rnd, tai, target):
    """§5: in 包 the win is paid as in 翻 on top of the contract: taking the contract transfers
    away leaves exactly the 翻 payments, and the contract shares add up to (n − 1) × c."""
    seats, dealer, winner, discarder = _table(rnd)
    if winner is None:
        winner = dealer
    if winner == dealer:
        tai = max(tai, target)
    no_wild, du = rnd.random() < 0.5, rnd.random() < 0.5
    bao, _ = settle(seats, "bao", dealer, winner, discarder, tai, 1, False, target, no_wild, du)
    fan, _ = settle(seats, "fan", dealer, winner, discarder, tai, 1, False, target, no_wild, du)
    assert [t for t in bao if t["why"] == "win"] == fan
    c = zhuji.contract_value(target)
    if winner == dealer:
        c *= (2 if no_wild else 1) * (2 if du else 1)
    assert sum(t["amount"] for t in bao if t["why"] == "contract") == (len(seats) - 1) * c


# --- 台 against the brute force (§4) -------------------------------------------------------------

def _shown(kind, f):
    if kind == "chow":
        return [f, f + 1, f + 2]
    return [f] * (4 if kind in ("kong", "ckong") else 3)


def winning_hand(rnd, max_wild_tiles):
    """(concealed tiles with the winning one last, shown melds [(kind, face)], wild faces): four
    sets + a pair (some sets shown, never with a wild face), then up to `max_wild_tiles` tiles
    of the hand turned into wilds; now and then one tile changed at random (maybe no win)."""
    wilds = tuple(rnd.sample(range(NUM_FACES), rnd.choice((0, 1, 2))))
    while True:
        sets = []
        for _ in range(4):
            if rnd.random() < 0.45:
                sets.append(("chow", rnd.randrange(3) * 9 + rnd.randrange(7)))
            else:
                sets.append(("pung", rnd.choice(range(27, 34)) if rnd.random() < 0.4 else rnd.randrange(27)))
        p = rnd.randrange(NUM_FACES)
        shown_n = rnd.choice((0, 0, 1, 2))
        melds, concealed = [], [p, p]
        for i, (kind, f) in enumerate(sets):
            faces = _shown(kind, f)
            if i < shown_n and not any(x in wilds for x in faces):
                melds.append((kind if kind == "chow" else rnd.choice(("pung", "kong", "ckong")), f))
            else:
                concealed += faces
        if wilds:
            for _ in range(rnd.randrange(4)):
                concealed[rnd.randrange(len(concealed))] = rnd.choice(wilds)
        if rnd.random() < 0.15:
            concealed[rnd.randrange(len(concealed))] = rnd.randrange(NUM_FACES)
        everything = concealed + [x for kind, f in melds for x in _shown(kind, f)]
        if max(everything.count(x) for x in set(everything)) > 4:
            continue
        if sum(t in wilds for t in concealed) > max_wild_tiles:
            continue
        rnd.shuffle(concealed)
        return concealed, melds, wilds


def _melds(melds):
    return [make_meld(kind, _shown(kind, f), None) for kind, f in melds]


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(randoms, st.sampled_from(SEAT_NAMES), st.booleans(), st.booleans())
def test_tai_agrees_with_brute_force(rnd, seat, kong_rep, robbed):
    """§4: the engine's best 台 (wilds taking whatever faces give the most; 无财, 杠开, 抢杠)
    equals the brute force over every assignment of the wilds and every split; `score` refuses
    exactly the hands with no split or with 0 台."""
    concealed, melds, wilds = winning_hand(rnd, 3)
    if robbed and kong_rep:
        kong_rep = False
    if kong_rep and not any(kind in ("kong", "ckong") for kind, _ in melds):
        kong_rep = False
    ref = reference_tai(concealed, melds, wilds, seat, kong_replacement=kong_rep, robbed_kong=robbed)
    tai, prof = best_tai(concealed, _melds(melds), wilds, seat)
    assert (prof is None) == (ref is None), (concealed, melds, wilds)
    win = concealed[-1]
    self_drawn = kong_rep or (not robbed and rnd.random() < 0.5)
    if win in wilds and not self_drawn:
        return
    try:
        s = score(concealed[:-1], _melds(melds), win, wilds, self_drawn, seat, robbed_kong=robbed,
                  kong_replacement=kong_rep)
    except NotAWin:
        assert ref is None or ref < 1, (concealed, melds, wilds, seat, ref)
        return
    assert s.tai == ref, (concealed, melds, wilds, seat, s, ref)
    assert s.tai == sum(t for _, t in s.items) and s.total == 2 ** (s.tai - 1)
    assert s.no_wild == (bool(wilds) and not any(t in wilds for t in concealed))


def _natural_win(rnd, wilds):
    """A winning hand with no tile of the wild faces (its tiles can be turned into wilds)."""
    while True:
        concealed, melds, _ = winning_hand(rnd, 0)
        everything = concealed + [x for kind, f in melds for x in _shown(kind, f)]
        if len(concealed) >= 8 and not any(t in wilds for t in everything):
            return concealed, melds


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(randoms)
def test_four_wild_tiles_agree_with_brute_force(rnd):
    """The same with four wild tiles in hand (two faces): a slower brute force, fewer cases."""
    wilds = tuple(rnd.sample(range(NUM_FACES), 2))
    concealed, melds = _natural_win(rnd, wilds)
    for i in rnd.sample(range(len(concealed)), 4):
        concealed[i] = rnd.choice(wilds)
    seat = rnd.choice(SEAT_NAMES)
    ref = reference_tai(concealed, melds, wilds, seat)
    tai, prof = best_tai(concealed, _melds(melds), wilds, seat)
    assert (prof is None) == (ref is None)
    if prof is not None:
        assert tai == ref  # no 无财 here: four wilds are held


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(randoms, st.integers(1, 8))
def test_wilds_standing_in_keep_the_win(rnd, k):
    """§2: a wild stands for any tile: turning k (1-8) tiles of a winning hand into wilds keeps
    it a win (even when more than winning.py's four gaps must be filled), with at least the
    台 of the natural hand's best reading (the wilds may take back the faces they replaced)."""
    wilds = tuple(rnd.sample(range(NUM_FACES), 2))
    concealed, melds = _natural_win(rnd, wilds)
    seat = rnd.choice(SEAT_NAMES)
    natural, prof = best_tai(concealed, _melds(melds), wilds, seat)
    if prof is None:
        return  # the generator changed a tile: no win to start from
    for i in rnd.sample(range(len(concealed)), min(k, len(concealed))):
        concealed[i] = rnd.choice(wilds)
    tai, prof = best_tai(concealed, _melds(melds), wilds, seat)
    assert prof is not None and tai >= natural, (concealed, melds, wilds)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(randoms)
def test_single_wait_agrees_with_brute_force(rnd):
    """§4 独: one face only completes the hand before the winning tile, every use of the wilds
    counted (Z-S4: a wild tile is not a face of the wait)."""
    concealed, melds, wilds = winning_hand(rnd, 2)
    before = concealed[:-1]
    assert single_wait(before, _melds(melds), wilds) == reference_single_wait(before, melds, wilds), (
        format_tiles(sorted(before)), melds, [face_name(f) for f in wilds])


@FAST
@given(randoms)
def test_waits_agree_with_the_win_check(rnd):
    """The table's waits (a shortcut for faces no natural tile is near) equal asking the shape
    check face by face."""
    from games.engine.game import Options, new_hand

    concealed, melds, wilds = winning_hand(rnd, 4)
    st0, _ = new_hand(Options(variant="zhuji"), 1, 0)
    state = st0.with_extra("wilds", wilds)
    before = concealed[:-1]
    expected = []
    for f in range(NUM_FACES):
        tiles = before + [f]
        counts = [0] * NUM_FACES
        for t in tiles:
            if t not in wilds:
                counts[t] += 1
        if zhuji.complete(counts, sum(t in wilds for t in tiles)):
            expected.append(f)
    assert state.rules.waits(state, before) == expected
