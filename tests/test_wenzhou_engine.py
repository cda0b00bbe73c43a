"""Wenzhou (温州麻将) engine: win shapes, soft/hard/double and payments (shared/rules/wenzhou.md).

tests/data/wenzhou_hands.jsonl: one hand-worked case a line, its "rule" citing the spec section
or decision (W-D…) it checks; "contract" says which §9 contract ("score" = score_hands,
"settle" = settle_hands); "expect" lists the fields that must match (the rest is not checked).
Then hypothesis properties of the win shapes and the settlement. Pure engine: no Django.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import contract, variants
from games.engine.tiles import NUM_FACES, SEAT_NAMES, WHITE
from games.engine.variants.wenzhou import (
    MULTIPLIER,
    analyse,
    score,
    score_request,
    settle,
    settle_request,
)

DATA = Path(__file__).parent / "data" / "wenzhou_hands.jsonl"


def _load():
    cases = []
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                case = json.loads(line)
                cases.append(pytest.param(case, id=case["id"]))
    return cases


CASES = _load()


def test_table():
    ids = [c.values[0]["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for c in CASES:
        case = c.values[0]
        assert case["rule"] and case["contract"] in ("score", "settle"), case["id"]
    assert len(ids) >= 50


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    req = case["request"]
    before = copy.deepcopy(req)
    public = contract.score_request if case["contract"] == "score" else contract.settle_request
    out = public(req)  # the JSON contract (score_hands / settle_hands) routes to the variant
    assert req == before, "a request is never changed"
    assert out == (score_request if case["contract"] == "score" else settle_request)(req)
    exp = case["expect"]
    if not exp["ok"]:
        assert out["ok"] is False and isinstance(out.get("error"), str) and out["error"], (case["rule"], out)
        return
    assert out["ok"] is True, (case["rule"], out)
    for key, value in exp.items():
        assert out[key] == value, (case["rule"], key, out)
    if case["contract"] == "score":
        if out["winner"]:
            assert out["items"][0] == {"name": "base", "points": out["points"]}
            assert all(i["name"].startswith(out["kind"] + ": ") for i in out["items"][1:])
            assert out["total"] == out["points"] * MULTIPLIER[out["kind"]]
    else:
        assert sum(out["net"].values()) == 0
        assert set(out["net"]) == set(req["wilds"])


def test_registered_and_playable():
    v = variants.get("wenzhou")
    assert v.hand_size == 16 and v.wall_reserve == 8 and v.white_stands_in
    assert v.playable and "wenzhou" in variants.playable()
    assert "wenzhou" in variants.names()


# --- properties ---------------------------------------------------------------------------

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
randoms = st.integers(0, 2**32 - 1).map(random.Random)


def _winning_hand(rnd: random.Random, wild: int):
    """17 concealed tiles: five sets + a pair with no tile of the wild's face and no white
    (so no tile reads two ways), at most 4 of a face. Returns (tiles, pungs only)."""
    while True:
        counts = [0] * NUM_FACES
        tiles = []
        only_pungs = True
        ok = True
        for _ in range(5):
            if rnd.random() < 0.5:
                lo = rnd.randrange(3) * 9 + rnd.randrange(7)
                faces = [lo, lo + 1, lo + 2]
                only_pungs = False
            else:
                f = rnd.randrange(NUM_FACES)
                faces = [f, f, f]
            tiles += faces
        p = rnd.randrange(NUM_FACES)
        tiles += [p, p]
        for f in tiles:
            counts[f] += 1
        if any(counts[f] > 4 for f in range(NUM_FACES)) or counts[wild] or counts[WHITE]:
            ok = False
        if ok:
            rnd.shuffle(tiles)
            return tiles, only_pungs


@FAST
@given(randoms)
def test_a_wild_for_a_tile_keeps_a_win(rnd):
    """§4: wilds stand for any tile: a winning hand with any (up to three) of its tiles turned
    into wilds still wins self-drawn, and a pungs-only hand stays 碰碰胡 (W-D8: double)."""
    wild = rnd.randrange(27)
    tiles, only_pungs = _winning_hand(rnd, wild)
    for _ in range(rnd.randrange(1, 4)):
        i = rnd.randrange(len(tiles))
        while tiles[i] == wild:
            i = rnd.randrange(len(tiles))
        tiles[i] = wild
    win = tiles.pop()
    r = analyse(tiles, (), win, wild, True)
    assert r.sets and r.wins
    s = score(tiles, (), win, wild, True)
    assert s.kind in ("hard", "double")
    if only_pungs:
        assert s.kind == "double"


@FAST
@given(randoms)
def test_natural_win_is_hard_on_a_discard(rnd):
    """§5: a hand with no wild won on a discard is at least hard; self-drawn never scores less
    than on a discard."""
    wild = rnd.randrange(27)
    tiles, only_pungs = _winning_hand(rnd, wild)
    win = tiles.pop()
    on_discard = score(tiles, (), win, wild, False)
    drawn = score(tiles, (), win, wild, True)
    assert on_discard.kind in ("hard", "double")
    assert MULTIPLIER[drawn.kind] >= MULTIPLIER[on_discard.kind]
    if only_pungs:
        assert on_discard.kind == "double"  # 碰碰胡


@FAST
@given(randoms)
def test_three_wilds_always_win(rnd):
    """§4 C: all three wilds win whatever the other tiles."""
    wild = rnd.randrange(NUM_FACES)
    others = [f for f in range(NUM_FACES) if f != wild for _ in range(4)]
    rest = rnd.sample(others, 14)
    tiles = rest + [wild, wild, wild]
    rnd.shuffle(tiles)
    win = tiles.pop()
    self_drawn = win == wild or rnd.random() < 0.5
    s = score(tiles, (), win, wild, self_drawn)
    assert s.wilds == 3 and s.kind in ("hard", "double")


@FAST
@given(randoms, st.sampled_from([2, 3, 4, 5, 6, 7, 8, 9]), st.sampled_from(["soft", "hard", "double"]))
def test_settlement_balances(rnd, base, kind):
    """§6: every payment goes from one player to another (net sums to zero); everyone else pays
    the winner, who pays only 财神钱; nothing is paid in a drawn hand (not even 财神钱)."""
    n = rnd.choice((2, 3, 4))
    seats = list(SEAT_NAMES[:n])
    dealer = rnd.choice(seats)
    winner = rnd.choice(seats + [None])
    wilds = {s: 0 for s in seats}
    for _ in range(3):
        if rnd.random() < 0.5:
            wilds[rnd.choice(seats)] += 1
    topped = [s for s in seats if s != dealer and rnd.random() < 0.3]
    transfers, net = settle(seats, dealer, winner, base, kind if winner else None, wilds,
                            rnd.random() < 0.5, topped)
    assert sum(net.values()) == 0
    if winner is None:
        assert transfers == [] and set(net.values()) == {0}
    else:
        assert {t["from"] for t in transfers if t["why"] == "win"} == set(seats) - {winner}
        assert all(t["why"] == "caishen" for t in transfers if t["from"] == winner)
        assert all(t["amount"] > 0 and t["from"] != t["to"] for t in transfers)


# --- a brute-force reference for shape A -------------------------------------------------

def _reference(concealed, win, wild, self_drawn):
    """(A, 碰碰胡, A with no wild standing in) by brute force: every wild given every face, every
    white read as a White or as the wild's face, every pair tried; on a discard a pair of the
    winning face made of one natural tile and one wild is 财神马 and not counted (§4)."""
    from itertools import product

    from games.engine.winning import is_sets_only

    tiles = list(concealed) + [win]
    stand_in = wild if wild != WHITE else None
    wild_idx = [i for i, t in enumerate(tiles) if t == wild]
    white_idx = [i for i, t in enumerate(tiles) if t == WHITE and stand_in is not None]
    win_i = len(tiles) - 1
    found = pp = hard = False
    for whites in product((WHITE, stand_in), repeat=len(white_idx)):
        logical = list(tiles)
        for i, f in zip(white_idx, whites):
            logical[i] = f
        x = logical[win_i]
        for faces in product(range(NUM_FACES), repeat=len(wild_idx)):
            lg = list(logical)
            for i, f in zip(wild_idx, faces):
                lg[i] = f
            counts = [0] * NUM_FACES  # a wild may stand for a fifth tile of a face ("any tile")
            for f in lg:
                counts[f] += 1
            own = all(f == wild for f in faces)
            nat_x = sum(1 for i, f in enumerate(lg) if f == x and i not in wild_idx)
            wild_x = sum(1 for f in faces if f == x)
            for p in range(NUM_FACES):
                if counts[p] < 2:
                    continue
                if not self_drawn and p == x and win not in (wild,):
                    # the pair of the winning face: two naturals, or two wilds, not one of each
                    if nat_x < 2 and wild_x < 2:
                        continue
                    if own and nat_x < 2 and wild_x < 2:
                        continue  # a wild as its own face pairing the winning tile: 财神马 too
                        # (two wilds as their own face are a pair without the winning tile)
                rest = list(counts)
                rest[p] -= 2
                if is_sets_only(rest, 0):
                    found = True
                    hard |= own
                    pp |= all(c % 3 == 0 for c in rest)
    return found, pp, hard


def _near_win(rnd):
    wild = rnd.randrange(NUM_FACES)
    tiles, _ = _winning_hand(rnd, wild)
    n = rnd.choice((0, 1, 1, 2, 2))
    for _ in range(n):
        i = rnd.randrange(len(tiles))
        tiles[i] = wild
    if rnd.random() < 0.3 and wild != WHITE:  # a white or two, read either way
        for _ in range(rnd.randrange(1, 3)):
            tiles[rnd.randrange(len(tiles))] = WHITE
    if rnd.random() < 0.3:  # sometimes not a win
        tiles[rnd.randrange(len(tiles))] = rnd.randrange(NUM_FACES)
    counts = [tiles.count(f) for f in range(NUM_FACES)]
    if counts[wild] > 2 or max(counts) > 4:  # at most two wilds: the brute force stays quick
        return None
    rnd.shuffle(tiles)
    return tiles, wild


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(randoms, st.booleans())
def test_shape_a_agrees_with_brute_force(rnd, self_drawn):
    """§4 A, 财神马 on a discard, 碰碰胡 and 财神归位 agree with an independent brute force."""
    made = _near_win(rnd)
    if made is None:
        return
    tiles, wild = made
    win = tiles.pop()
    if win == wild and not self_drawn:
        return
    r = analyse(tiles, (), win, wild, self_drawn)
    ref = _reference(tiles, win, wild, self_drawn)
    assert (r.sets, r.pungs, r.hard_sets) == ref, (tiles, win, wild, self_drawn)
