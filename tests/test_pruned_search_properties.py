"""The engine's searches asked at every discard, pruned (issue 17): `winning.waits` (is the
discarder ready? the hints' waits) tries only the faces that can join a set or a pair, and
`Variant.chow_options` only the tiles of the discard's suit within two of it. Both must give
exactly what trying every face and every pair gives: hypothesis over ready and random hands, with
and without wilds and white stand-ins, for every wild face (none, a suit, an honour, White)."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.game import Options, new_hand
from games.engine.melds import logical_chow_faces
from games.engine.tiles import NUM_FACES, WHITE
from games.engine.winning import is_winning_tiles, waits

MANY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
randoms = st.integers(0, 2**32 - 1).map(random.Random)


def every_face(tiles, wild) -> list:
    """The plain definition: each face that makes the tiles a win."""
    return [f for f in range(NUM_FACES) if is_winning_tiles(list(tiles) + [f], wild)]


def ready_hand(rnd: random.Random, sets: int) -> list:
    """`sets` random sets and a pair, less one tile: 3n+1 tiles that wait on at least that tile."""
    tiles = []
    for _ in range(sets):
        if rnd.random() < 0.5:
            lo = rnd.randrange(3) * 9 + rnd.randrange(7)
            tiles += [lo, lo + 1, lo + 2]
        else:
            tiles += [rnd.randrange(NUM_FACES)] * 3
    tiles += [rnd.randrange(NUM_FACES)] * 2
    tiles.remove(rnd.choice(tiles))
    return tiles


def some_hand(rnd: random.Random, size: int) -> list:
    return [rnd.randrange(NUM_FACES) for _ in range(size)]


wilds = st.sampled_from([None, 0, 4, 8, 13, 22, 27, 31, WHITE])


@MANY
@given(rnd=randoms, sets=st.integers(0, 4), wild=wilds, extra=st.integers(0, 3), whites=st.integers(0, 2))
def test_waits_of_a_ready_hand_are_every_face_that_wins(rnd, sets, wild, extra, whites):
    tiles = ready_hand(rnd, sets)
    # some tiles made wilds or whites (the stand-in), keeping the count 3n+1
    for _ in range(min(extra, len(tiles))):
        if wild is not None:
            tiles[rnd.randrange(len(tiles))] = wild
    for _ in range(min(whites, len(tiles))):
        tiles[rnd.randrange(len(tiles))] = WHITE
    tiles.sort()
    assert waits(tiles, wild) == every_face(tiles, wild), (tiles, wild)


@MANY
@given(rnd=randoms, size=st.sampled_from([1, 4, 7, 10, 13]), wild=wilds)
def test_waits_of_any_hand_are_every_face_that_wins(rnd, size, wild):
    tiles = sorted(some_hand(rnd, size))
    assert waits(tiles, wild) == every_face(tiles, wild), (tiles, wild)


def test_a_few_waits_by_hand():
    m = lambda s: [int(c) - 1 for c in s]  # noqa: E731  1..9 of the characters suit: faces 0..8
    assert waits(m("2345") + [27, 27, 27, 28, 28, 28, 29, 29, 29], None) == m("25")  # 234+5 or 345+2
    assert waits(m("1113"), None) == m("23")  # 嵌档 closed wait and the pair
    assert waits(m("19") + [27] * 2 + [28] * 9, None) == []  # no tile joins 1 and 9
    assert waits([0, 9, 18, 27], 33) == []  # no wild held: four lone faces wait on nothing
    assert 5 in waits([0, 33, 33, 33], 33)  # wilds held: a face far from every tile may still win


def every_pair(rules, state, player, tile) -> list:
    """Variant.chow_options before the pruning: every pair of the hand tried."""
    wild_faces = rules.wild_faces(state)
    hand = [t for t in state.hands[player] if t not in wild_faces]
    stand_in = rules.stand_in(state)
    logical = stand_in if (tile == WHITE and stand_in is not None) else tile
    if logical >= 27:
        return []
    wild = rules.wild(state) if stand_in is not None else None
    out = set()
    uniq = sorted(set(hand))
    for i, a in enumerate(uniq):
        for b in uniq[i:]:
            if a == b and hand.count(a) < 2:
                continue
            if logical_chow_faces((tile, a, b), wild) is not None:
                out.add((a, b))
    return sorted(out)


@MANY
@given(rnd=randoms, variant=st.sampled_from(["taizhou", "wenzhou"]), seed=st.integers(0, 10_000),
       size=st.sampled_from([4, 7, 10, 13]), whites=st.integers(0, 3))
def test_chow_options_are_every_pair_that_chows(rnd, variant, seed, size, whites):
    state, _events = new_hand(Options(variant=variant, players=4), seed, 0)
    if state.hands[1] == ():  # a variant that asks before it deals: nothing to chow yet
        return
    hand = some_hand(rnd, size) + [WHITE] * whites
    state = replace(state, hands=tuple(tuple(sorted(hand)) if q == 1 else h for q, h in enumerate(state.hands)))
    rules = state.rules
    for tile in range(NUM_FACES):
        assert rules.chow_options(state, 1, tile) == every_pair(rules, state, 1, tile), (variant, hand, tile)
