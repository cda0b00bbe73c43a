"""Wenzhou scoring benchmark (not a test): `wenzhou.score` on a winner, by wilds held.

    python bench/wenzhou_scoring.py [--hands N]

Seeded winning hands of 17 concealed tiles (16 + the winning tile, no shown sets: five random
sets + a pair, with exactly 0, 1, 2 or 3 of their tiles turned into wilds; one hand in four also
reads a white as the wild's face), self-drawn or on a discard (a discard only where the hand may
win on it: not 财神马 only, not a wild). For each wild count: median and p90 microseconds per
`score` call,
- cold: every memo the engine keeps (each functools cache of the engine modules and their
  clear_caches(): winning._part_mask, winning's wild-free table...) is cleared before EVERY call;
- warm: a second pass over the same hands, nothing cleared (the memos full).
The goal of issue 11: under 300 us for a 3-wild 17-tile hand, cold.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from games.engine import melds, requests, tiles, winning  # noqa: E402
from games.engine.tiles import NUM_FACES, WHITE  # noqa: E402
from games.engine.variants import base, wenzhou  # noqa: E402

SEED = 20240611
GOAL_US = 300


def _find_caches():
    """Every memo of the engine modules scoring uses: functions with cache_clear (lru_cache,
    functools.cache) defined there, and each module's own clear_caches()."""
    clears, names = [], []
    for mod in (winning, wenzhou, base, melds, tiles, requests):
        for name, obj in sorted(vars(mod).items()):
            if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == mod.__name__:
                clears.append(obj.cache_clear)
                names.append(f"{mod.__name__.rsplit('.', 1)[-1]}.{name}")
        if callable(getattr(mod, "clear_caches", None)):
            clears.append(mod.clear_caches)
            names.append(f"{mod.__name__.rsplit('.', 1)[-1]}.clear_caches()")
    return clears, names


_CLEARS, CACHE_NAMES = _find_caches()


def clear_caches():
    for clear in _CLEARS:
        clear()


def _sets_and_pair(rnd: random.Random, avoid: int):
    """17 tiles: five random sets + a pair, at most four of a face, none of the face `avoid`."""
    while True:
        out = []
        for _ in range(5):
            if rnd.random() < 0.55:
                lo = rnd.randrange(3) * 9 + rnd.randrange(7)
                out += [lo, lo + 1, lo + 2]
            else:
                out += [rnd.randrange(NUM_FACES)] * 3
        out += [rnd.randrange(NUM_FACES)] * 2
        if all(out.count(f) <= 4 for f in set(out)) and avoid not in out:
            return out


def scoring_hands(rnd: random.Random, n: int, wilds: int):
    """(concealed, melds, win, wild, self_drawn) winners holding exactly `wilds` wilds."""
    out = []
    while len(out) < n:
        wild = rnd.randrange(NUM_FACES)
        hand = _sets_and_pair(rnd, wild)
        if wild != WHITE and WHITE not in hand and rnd.random() < 0.25:
            # a white stands in for a tile of the wild's face: put the face in, then the white
            i = rnd.randrange(len(hand))
            hand[i] = WHITE
        for i in rnd.sample(range(len(hand)), wilds):
            hand[i] = wild
        rnd.shuffle(hand)
        win = hand.pop()
        self_drawn = win == wild or rnd.random() < 0.4
        try:
            wenzhou.score(hand, (), win, wild, self_drawn)
        except wenzhou.NotAWin:
            self_drawn = True
            try:
                wenzhou.score(hand, (), win, wild, True)
            except wenzhou.NotAWin:
                continue  # the white broke the hand
        out.append((hand, (), win, wild, self_drawn))
    return out


def per_call_us(hands, cold: bool):
    times = []
    score = wenzhou.score
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()
    try:
        for h in hands:
            if cold:
                clear_caches()
            t0 = clock()
            score(*h)
            times.append((clock() - t0) / 1000)
    finally:
        gc.enable()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000, help="hands per wild count (default 3000)")
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    print(f"caches cleared before every cold call: {', '.join(CACHE_NAMES)}")
    print(f"wenzhou.score on {args.hands:,} winning 17-tile hands per wild count (seed {SEED}, no shown sets)")
    cold3 = None
    for k in range(4):
        hs = scoring_hands(random.Random(SEED + k), args.hands, k)
        sd = sum(1 for h in hs if h[4]) / len(hs)
        cold = per_call_us(hs, cold=True)
        clear_caches()
        per_call_us(hs, cold=False)  # fill the memos
        warm = per_call_us(hs, cold=False)
        if k == 3:
            cold3 = cold
        print(f"{k} wild{'s' if k != 1 else ' '}: cold median {cold[0]:6.0f} us, p90 {cold[1]:6.0f} us   "
              f"warm median {warm[0]:6.0f} us, p90 {warm[1]:6.0f} us   ({sd:.0%} self-drawn)")
    verdict = "met" if cold3[0] < GOAL_US else "MISSED"
    print(f"goal: 3 wilds cold < {GOAL_US} us: {verdict} (median {cold3[0]:.0f} us, p90 {cold3[1]:.0f} us)")
    clear_caches()
    print(f"(benchmark ran in {time.perf_counter() - t_start:.1f} s)")


if __name__ == "__main__":
    main()
