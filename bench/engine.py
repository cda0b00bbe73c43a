"""Engine benchmark (not a test): win checks and Taizhou scoring speed.

    python bench/engine.py            (or: make bench)

1. Win checks: one fixed seeded set of 20,000 wild-free 14-tile hands (about half wins),
   engine `is_complete(counts, 0)` vs the `mahjong` package's `Agari().is_agari(counts)`.
2. Full scoring: `score_winner` on seeded winning hands (13 tiles + the winning tile, random seat,
   discard or self-drawn) with exactly 0, 1, 2 and 3 wilds; median and p90 microseconds per hand.

The engine memoises per-suit tables (lru_cache). To measure honestly every section starts with
the caches cleared: "cold" is the first pass over the hands (the caches fill up as it goes),
"warm" the second pass over the same hands. For 3 wilds a "no cache" line also clears the
caches before every single hand (the worst case: nothing memoised at all).
"""

from __future__ import annotations

import gc
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from games.engine import winning  # noqa: E402
from games.engine.tiles import NUM_FACES, WINDS  # noqa: E402
from games.engine.variants import taizhou  # noqa: E402

SEED = 20240611
N_WIN_CHECKS = 20_000
N_SCORE = 5_000  # hands per wild count
N_NO_CACHE = 300
N_NO_CACHE_WIN = 2_000

try:
    from mahjong.agari import Agari
except ImportError:  # the comparison is optional
    Agari = None


def _find_caches():
    """Every memo the engine keeps: lru_cache'd functions of the engine modules, plus any
    module-level clear_caches() (e.g. winning's wild-free classification dict)."""
    clears, names = [], []
    for mod in (winning, taizhou):
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
    taizhou._suit_table.cache_clear()
    taizhou._honor_table.cache_clear()
    winning._part_mask.cache_clear()
    for clear in _CLEARS:
        clear()


# --- hands ------------------------------------------------------------------------------------

def _sets_and_pair(rnd: random.Random):
    """Counts of four random sets + a pair (at most four copies of a face)."""
    while True:
        c = [0] * NUM_FACES
        for _ in range(4):
            if rnd.random() < 0.55:
                lo = rnd.randrange(3) * 9 + rnd.randrange(7)
                for f in (lo, lo + 1, lo + 2):
                    c[f] += 1
            else:
                c[rnd.randrange(NUM_FACES)] += 3
        c[rnd.randrange(NUM_FACES)] += 2
        if max(c) <= 4:
            return c


def win_check_hands(rnd: random.Random, n: int):
    """14-tile count vectors: half untouched wins, half with one or two tiles moved."""
    out = []
    while len(out) < n:
        c = _sets_and_pair(rnd)
        for _ in range(rnd.choice((0, 0, 1, 2))):
            src = rnd.choice([f for f in range(NUM_FACES) if c[f]])
            c[src] -= 1
            if src < 27 and rnd.random() < 0.7:
                base = src - src % 9
                dst = min(base + 8, max(base, src + rnd.choice((-2, -1, 1, 2))))
            else:
                dst = rnd.randrange(NUM_FACES)
            c[dst] += 1
        if max(c) <= 4:
            out.append(c)
    return out


def scoring_hands(rnd: random.Random, n: int, wilds: int):
    """(hand, melds, win, self_drawn, seat_wind, wild) winning hands with exactly `wilds` wilds."""
    out = []
    while len(out) < n:
        c = _sets_and_pair(rnd)
        tiles = [f for f in range(NUM_FACES) for _ in range(c[f])]
        absent = [f for f in range(NUM_FACES) if c[f] == 0]
        wild = rnd.choice(absent)
        for i in rnd.sample(range(len(tiles)), wilds):
            tiles[i] = wild
        rnd.shuffle(tiles)
        win = tiles.pop()
        self_drawn = win == wild or rnd.random() < 0.4
        out.append((tiles, [], win, self_drawn, rnd.choice(WINDS), wild))
    return out


# --- measurements -------------------------------------------------------------------------

def ratio(a, b):
    r = a / b
    return f"{r:.1f}x" if r >= 1 else f"{r:.2f}x"


def rate(fn, items):
    gc.collect()
    t0 = time.perf_counter()
    for it in items:
        fn(it)
    dt = time.perf_counter() - t0
    return len(items) / dt


def per_hand_us(hands, clear_each=False):
    times = []
    score = taizhou.score_winner
    clock = time.perf_counter_ns
    gc.collect()
    for h in hands:
        if clear_each:
            clear_caches()
        t0 = clock()
        s = score(*h)
        times.append((clock() - t0) / 1000)
        if s is None:
            raise AssertionError(f"not a win: {h}")
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]


def main():
    t_start = time.perf_counter()
    rnd = random.Random(SEED)
    hands = win_check_hands(rnd, N_WIN_CHECKS)
    is_complete = winning.is_complete
    wins = sum(1 for c in hands if is_complete(c, 0))
    print(f"caches cleared before each measured section: {', '.join(CACHE_NAMES)}")
    print(f"win checks: {len(hands):,} wild-free 14-tile hands (seed {SEED}), {wins / len(hands):.0%} wins")

    clear_caches()
    eng_cold = rate(lambda c: is_complete(c, 0), hands)
    eng_warm = rate(lambda c: is_complete(c, 0), hands)
    if Agari is not None:
        agari = Agari()
        disagree = sum(1 for c in hands if agari.is_agari(c) != is_complete(c, 0))
        mj_1 = rate(agari.is_agari, hands)
        mj_2 = rate(agari.is_agari, hands)
        mj = max(mj_1, mj_2)
        print(f"win checks/s (cold): engine {eng_cold:,.0f}  mahjong {mj:,.0f}  ratio {ratio(eng_cold, mj)}")
        print(f"win checks/s (warm): engine {eng_warm:,.0f}  mahjong {mj:,.0f}  ratio {ratio(eng_warm, mj)}")
        print(f"  (answers differ on {disagree} hands: seven pairs / thirteen orphans, which Taizhou does not allow)")
        sample = hands[:N_NO_CACHE_WIN]

        def uncached(c):
            clear_caches()
            return is_complete(c, 0)

        eng_nc = rate(uncached, sample)
        print(f"win checks/s, cache cleared before every check ({len(sample):,} hands): engine {eng_nc:,.0f}  "
              f"mahjong {mj:,.0f}  ratio {ratio(eng_nc, mj)}")
    else:
        print(f"win checks/s: engine {eng_cold:,.0f} (cold) {eng_warm:,.0f} (warm); mahjong package not installed")

    print(f"scoring: score_winner on {N_SCORE:,} winning hands per wild count (13 tiles + winning tile, no melds)")
    for k in range(4):
        hs = scoring_hands(random.Random(SEED + k), N_SCORE, k)
        clear_caches()
        cold = per_hand_us(hs)
        warm = per_hand_us(hs)
        print(f"score {k} wild{'s' if k != 1 else ' '}: median {cold[0]:,.0f} us, p90 {cold[1]:,.0f} us (cold)   "
              f"median {warm[0]:,.0f} us, p90 {warm[1]:,.0f} us (warm)")
    hs = scoring_hands(random.Random(SEED + 3), N_NO_CACHE, 3)
    nc = per_hand_us(hs, clear_each=True)
    print(f"score 3 wilds, caches cleared before every hand: median {nc[0]:,.0f} us, p90 {nc[1]:,.0f} us")
    clear_caches()
    print(f"(benchmark ran in {time.perf_counter() - t_start:.1f} s)")


if __name__ == "__main__":
    main()
