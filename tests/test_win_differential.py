"""Differential test: wild-free win detection (games.engine.winning.is_complete(counts, 0))
against the `mahjong` package's Agari().is_agari on many seeded random hands.

Hands are near-wins: four sets + a pair (or fewer sets, as the concealed part of a hand with
exposed melds), then 0-2 tiles swapped, so that wins and non-wins are both common.
Taizhou only knows the standard form, while is_agari also accepts seven pairs and thirteen
orphans: hands of those shapes are skipped (the test checks that the skipped share is small).
Pure engine: no Django.
"""

from __future__ import annotations

import random

import pytest

from games.engine.winning import is_complete

agari = pytest.importorskip("mahjong.agari")

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
N_HANDS = 30_000


def is_seven_pairs_shape(c) -> bool:
    return sum(1 for x in c if x == 2) == 7


def is_thirteen_orphans_shape(c) -> bool:
    return all(c[f] >= 1 for f in ORPHANS) and sum(c[f] for f in ORPHANS) == 14


def near_win(rnd: random.Random):
    """Counts of a 3n+2 concealed hand: n sets + a pair, then 0-2 tiles changed."""
    while True:
        n_sets = rnd.choice((4, 4, 4, 4, 3, 2, 1, 0))
        c = [0] * 34
        for _ in range(n_sets):
            if rnd.random() < 0.55:
                lo = rnd.randrange(3) * 9 + rnd.randrange(7)
                for f in (lo, lo + 1, lo + 2):
                    c[f] += 1
            else:
                c[rnd.randrange(34)] += 3
        c[rnd.randrange(34)] += 2
        for _ in range(rnd.choice((0, 0, 1, 1, 2))):
            out = rnd.choice([f for f in range(34) if c[f]])
            c[out] -= 1
            # mostly a neighbouring tile (keeps the hand plausible), sometimes any tile
            if out < 27 and rnd.random() < 0.7:
                lo, hi = out - out % 9, out - out % 9 + 8
                into = min(hi, max(lo, out + rnd.choice((-2, -1, 1, 2))))
            else:
                into = rnd.randrange(34)
            c[into] += 1
        if max(c) <= 4:
            return c


def test_win_detection_matches_mahjong_package():
    rnd = random.Random(20240611)
    checker = agari.Agari()
    compared = skipped = wins = 0
    mismatches = []
    for _ in range(N_HANDS):
        c = near_win(rnd)
        if is_seven_pairs_shape(c) or is_thirteen_orphans_shape(c):
            skipped += 1
            continue
        mine = is_complete(c, 0)
        theirs = checker.is_agari(c)
        compared += 1
        wins += mine
        if mine != theirs and len(mismatches) < 10:
            mismatches.append((c, mine, theirs))
    assert not mismatches, "\n".join(f"counts={c} engine={a} mahjong={b}" for c, a, b in mismatches)
    assert compared >= 20_000
    assert skipped < N_HANDS * 0.05
    # both outcomes are well represented
    assert 0.25 < wins / compared < 0.75, wins / compared


def test_shapes_that_are_skipped_are_really_different():
    """Seven distinct pairs that are not four sets + a pair: a win for the mahjong package, not for
    Taizhou. Thirteen orphans likewise."""
    from games.engine.tiles import counts_of, parse_tiles

    seven = counts_of(parse_tiles("1133m2288p4466s11z"))
    orphans = counts_of(parse_tiles("19m19p19s12345677z"))
    for c in (seven, orphans):
        assert agari.Agari().is_agari(c)
        assert not is_complete(c, 0)
    # seven pairs that also make four sets + a pair are a win for both
    both = counts_of(parse_tiles("112233m445566p77s"))
    assert is_complete(both, 0) and agari.Agari().is_agari(both)
