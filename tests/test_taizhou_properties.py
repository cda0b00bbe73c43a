"""Property tests (hypothesis) for the Taizhou engine: wilds, tile order, settlement balance,
agreement with the brute-force reference scorer, and non-winner scoring.

Pure engine: no Django. Hands are built from random sets + a pair, so they are wins by
construction; a `random.Random` drawn from hypothesis makes every choice (and shrinks).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.contract import score_request, settle_request
from games.engine.melds import make_meld
from games.engine.tiles import NUM_FACES, SEAT_NAMES, SEAT_WIND, WHITE, WINDS, format_tiles, is_dragon
from games.engine.variants.taizhou import score_winner, score_nonwinner, settle
from games.engine.winning import is_winning_tiles
from tests.taizhou_reference import reference_best

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# a seeded Random per example: hands are rebuilt from the seed (shown on failure)
randoms = st.integers(0, 2**32 - 1).map(random.Random)


# --- a winning hand from random sets + a pair ---------------------------------------------

def _random_set(rnd: random.Random):
    if rnd.random() < 0.45:
        lo = rnd.randrange(3) * 9 + rnd.randrange(7)
        return "chow", [lo, lo + 1, lo + 2]
    # honors (whites among them) a little more often than their share, to exercise them
    f = rnd.randrange(27, 34) if rnd.random() < 0.3 else rnd.randrange(34)
    return "pung", [f, f, f]


def build_hand(rnd: random.Random, max_melds: int = 2, wild_rate: float = 0.9):
    """A winning hand with no wilds placed yet (natural tiles of the wild face are allowed, as
    they would be wilds anyway). Returns dict(conc, melds_spec, pair, wild); `conc` is every
    concealed tile including the winning one."""
    while True:
        counts = [0] * NUM_FACES
        sets = [_random_set(rnd) for _ in range(4)]
        pair = rnd.randrange(34)
        for _, ts in sets:
            for f in ts:
                counts[f] += 1
        counts[pair] += 2
        n_melds = rnd.randint(0, max_melds)
        melds_spec = []
        for kind, ts in sets[:n_melds]:
            if kind == "pung":
                k = rnd.choice(["pung", "pung", "kong", "ckong"])
                if k != "pung":
                    counts[ts[0]] += 1
                    ts = ts + [ts[0]]
                melds_spec.append((k, ts))
            else:
                melds_spec.append(("chow", ts))
        if max(counts) > 4:
            continue
        wild = rnd.randrange(NUM_FACES) if rnd.random() < wild_rate else None
        meld_faces = {f for _, ts in melds_spec for f in ts}
        if wild is not None and (wild in meld_faces or counts[wild] > 3):
            continue
        conc = [f for _, ts in sets[n_melds:] for f in ts] + [pair, pair]
        rnd.shuffle(conc)
        return {"conc": conc, "melds_spec": melds_spec, "wild": wild}


def melds_of(h):
    return [make_meld(k, ts, h["wild"]) for k, ts in h["melds_spec"]]


def add_wilds(rnd: random.Random, conc, wild, k):
    """Replace up to k concealed tiles by wilds, keeping at most 3 tiles of the wild face."""
    out = list(conc)
    idx = list(range(len(out)))
    rnd.shuffle(idx)
    for i in idx:
        if k == 0 or sum(1 for f in out if f == wild) >= 3:
            break
        if out[i] != wild:
            out[i] = wild
            k -= 1
    return out


def split_win(rnd: random.Random, conc, wild, self_drawn=None):
    """Pick the winning tile from the concealed tiles. A wild can only be self-drawn."""
    i = rnd.randrange(len(conc))
    win = conc[i]
    hand = conc[:i] + conc[i + 1:]
    if self_drawn is None:
        self_drawn = rnd.random() < 0.4
    return hand, win, self_drawn or win == wild


def key_of(score):
    return (score.total, score.points << score.tai, score.points, score.tai)


def describe(hand, melds, win, sd, seat, wild):
    return (f"hand={format_tiles(hand)} melds={[m.notation() for m in melds]} win={format_tiles([win])} "
            f"self_drawn={sd} seat={format_tiles([seat])} wild={None if wild is None else format_tiles([wild])}")


# --- (a) wilds keep a win ------------------------------------------------------------------

@FAST
@given(rnd=randoms, k=st.integers(1, 3))
def test_wilds_keep_a_win(rnd, k):
    h = build_hand(rnd, wild_rate=1.0)
    wild, melds = h["wild"], melds_of(h)
    seat = rnd.choice(WINDS)
    assert is_winning_tiles(h["conc"], wild)
    i = rnd.randrange(len(h["conc"]))
    before_hand = h["conc"][:i] + h["conc"][i + 1:]
    win = h["conc"][i]
    sd = win == wild or rnd.random() < 0.4
    before = score_winner(before_hand, melds, win, sd, seat, wild)
    assert before is not None, describe(before_hand, melds, win, sd, seat, wild)

    conc = list(h["conc"])
    # replace some concealed tiles (maybe the winning one) by wilds
    after_conc = add_wilds(rnd, conc, wild, k)
    assert sum(1 for f in after_conc if f == wild) <= 3
    assert is_winning_tiles(after_conc, wild), format_tiles(after_conc)
    after_hand = after_conc[:i] + after_conc[i + 1:]
    after_win = after_conc[i]
    after_sd = sd or after_win == wild
    after = score_winner(after_hand, melds, after_win, after_sd, seat, wild)
    assert after is not None, describe(after_hand, melds, after_win, after_sd, seat, wild)
    # each wild may stand for the tile it replaced, so the best figure cannot drop
    assert after.total >= before.total and (after.points << after.tai) >= (before.points << before.tai), (
        describe(before_hand, melds, win, sd, seat, wild), key_of(before),
        describe(after_hand, melds, after_win, after_sd, seat, wild), key_of(after))


# --- (b) tile order does not matter --------------------------------------------------------

@FAST
@given(rnd=randoms, k=st.integers(0, 3))
def test_winner_score_ignores_tile_order(rnd, k):
    h = build_hand(rnd)
    wild = h["wild"]
    conc = add_wilds(rnd, h["conc"], wild, k) if wild is not None else h["conc"]
    hand, win, sd = split_win(rnd, conc, wild)
    melds = melds_of(h)
    seat = rnd.choice(WINDS)
    a = score_winner(hand, melds, win, sd, seat, wild)
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    b = score_winner(shuffled, list(reversed(melds)), win, sd, seat, wild)
    assert a is not None and b is not None, describe(hand, melds, win, sd, seat, wild)
    assert key_of(a) == key_of(b) and a.capped == b.capped
    # and through the contract, with the hand written in shuffled order
    req = {"variant": "taizhou", "seat": "ESWN"[seat - WINDS[0]],
           "wild": None if wild is None else format_tiles([wild]),
           "hand": "".join(format_tiles([f]) for f in shuffled),
           "melds": [m.notation() for m in melds], "win": format_tiles([win]), "self_drawn": sd}
    out = score_request(req)
    assert out["ok"], (req, out)
    assert (out["total"], out["points"], out["tai"], out["capped"]) == (a.total, a.points, a.tai, a.capped)


# --- (c) settlement balances -----------------------------------------------------------------

@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_settlement_nets_to_zero(data):
    n = data.draw(st.integers(2, 4))
    seats = list(SEAT_NAMES[:n])
    totals = {s: data.draw(st.integers(0, 100)) for s in seats}
    dealer = data.draw(st.sampled_from(seats))
    winner = data.draw(st.one_of(st.none(), st.sampled_from(seats)))
    others = [s for s in seats if s != winner]
    liable = None
    if winner is not None:
        liable = data.draw(st.one_of(
            st.none(), st.sampled_from(others),
            st.builds(lambda s, e: {"seat": s, "exempt": e}, st.sampled_from(others), st.booleans())))
    capped = {winner: totals[winner] >= 100} if winner is not None else {}
    discarder = data.draw(st.one_of(st.none(), st.sampled_from(others))) if winner is not None else None
    req = {"variant": "taizhou", "dealer": dealer, "winner": winner, "discarder": discarder,
           "totals": totals, "capped": capped, "liable": liable}
    out = settle_request(req)
    assert out["ok"], (req, out)
    net = out["net"]
    assert set(net) == set(seats)
    assert sum(net.values()) == 0, (req, out)
    check = {s: 0 for s in seats}
    for t in out["transfers"]:
        assert t["amount"] > 0 and t["from"] != t["to"]
        assert (t["amount"] * 2) == int(t["amount"] * 2)  # whole or x.5
        check[t["from"]] -= t["amount"]
        check[t["to"]] += t["amount"]
    assert check == net
    if winner is None:
        assert out["transfers"] == []
        return
    # the winner only receives, and receives what §9 says in total
    assert all(t["from"] != winner for t in out["transfers"])
    w = min(totals[winner], 100)
    full = totals[winner] >= 100
    owed = sum(w if (full or dealer in (s, winner)) else w / 2 for s in others)
    assert net[winner] == owed, (req, out)
    liable_seat = liable if isinstance(liable, str) else (
        liable["seat"] if isinstance(liable, dict) and not liable["exempt"] else None)
    payers = {t["from"] for t in out["transfers"] if t["to"] == winner}
    if liable_seat is not None and owed:
        assert payers == {liable_seat}


# --- (d) agreement with the brute-force reference ----------------------------------------

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rnd=randoms, k=st.integers(0, 2))
def test_engine_matches_reference(rnd, k):
    h = build_hand(rnd)
    wild = h["wild"]
    conc = list(h["conc"])
    # whites among the concealed tiles: a white in place of a natural tile of the wild face
    # keeps the win (it stands in for that face), when copies allow
    if wild is not None and wild != WHITE and rnd.random() < 0.5:
        free = 4 - conc.count(WHITE) - sum(ts.count(WHITE) for _, ts in h["melds_spec"])
        nat = [i for i, f in enumerate(conc) if f == wild]
        for i in nat[:max(0, free)]:
            conc[i] = WHITE
    if wild is not None:
        conc = add_wilds(rnd, conc, wild, k)
    hand, win, sd = split_win(rnd, conc, wild)
    melds = melds_of(h)
    seat = rnd.choice(WINDS)
    mine = score_winner(hand, melds, win, sd, seat, wild)
    ref = reference_best(hand, melds, win, sd, seat, wild)
    where = describe(hand, melds, win, sd, seat, wild)
    assert mine is not None and ref is not None, where
    assert (mine.total, mine.points << mine.tai) == ref[:2], (where, key_of(mine), ref)
    assert mine.capped == (ref[1] >= 100)


# --- (e) non-winners --------------------------------------------------------------------------

def nonwinner_oracle(hand, melds, seat_wind):
    """§5/§7 for a non-winner, straight from the tables."""
    pts = tai = 0
    for m in melds:
        if m.kind == "chow":
            continue
        th = m.face >= 27 or m.face % 9 in (0, 8)
        pts += {"pung": 4 if th else 2, "kong": 16 if th else 8, "ckong": 32 if th else 16}[m.kind]
        tai += 1 if (m.face == seat_wind or is_dragon(m.face)) else 0
    for f in range(NUM_FACES):
        n = hand.count(f)
        th = f >= 27 or f % 9 in (0, 8)
        if n >= 3:
            pts += 8 if th else 4
            tai += 1 if (f == seat_wind or is_dragon(f)) else 0
        elif n == 2 and (f == seat_wind or is_dragon(f)):
            pts += 2
    raw = pts << tai
    return pts, tai, min(raw, 100), raw >= 100


@FAST
@given(rnd=randoms)
def test_nonwinner_order_and_no_wilds(rnd):
    counts = [0] * NUM_FACES
    melds_spec = []
    for _ in range(rnd.randint(0, 3)):
        kind, ts = _random_set(rnd)
        if kind == "pung" and rnd.random() < 0.5:
            kind = rnd.choice(["kong", "ckong"])
            ts = ts + [ts[0]]
        if all(counts[f] + ts.count(f) <= 4 for f in ts):
            for f in ts:
                counts[f] += 1
            melds_spec.append((kind, ts))
    hand = []
    # a clumpy hand (pairs and pungs are common)
    while len(hand) < 13 - 3 * len(melds_spec):
        f = rnd.choice(hand) if hand and rnd.random() < 0.5 else rnd.randrange(NUM_FACES)
        if counts[f] < 4:
            counts[f] += 1
            hand.append(f)
    seat_name = rnd.choice(SEAT_NAMES)
    seat = SEAT_WIND[seat_name]
    melds = [make_meld(k, ts, None) for k, ts in melds_spec]
    base = score_nonwinner(hand, melds, seat)
    assert (base.points, base.tai, base.total, base.capped) == nonwinner_oracle(hand, melds, seat)
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    again = score_nonwinner(shuffled, list(reversed(melds)), seat)
    assert (again.points, again.tai, again.total, again.capped) == (base.points, base.tai, base.total, base.capped)
    # whatever the wild face, a non-winner's wilds count as their own face (and whites as whites)
    meld_faces = {f for _, ts in melds_spec for f in ts}
    candidates = [f for f in range(NUM_FACES) if f not in meld_faces and hand.count(f) <= 3]
    for wild in [None] + rnd.sample(candidates, min(4, len(candidates))) + [f for f in set(hand) if f in candidates]:
        req = {"variant": "taizhou", "seat": seat_name, "wild": None if wild is None else format_tiles([wild]),
               "hand": "".join(format_tiles([f]) for f in shuffled), "melds": [m.notation() for m in melds]}
        out = score_request(req)
        assert out["ok"], (req, out)
        assert out["winner"] is False
        assert (out["points"], out["tai"], out["total"], out["capped"]) == (
            base.points, base.tai, base.total, base.capped), req
