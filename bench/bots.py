"""Bot benchmark (not a test): how fast and how strong games/engine/bot.py is, engine alone.

    python bench/bots.py                  (default: about 2-3 minutes on 2 cores)
    python bench/bots.py --hands 5000     (more hands: (a) 5000, (b) a quarter of that)
    python bench/bots.py --hands-b 2000   ((b) over 2,000 hands too: about 8 minutes)
    python bench/bots.py --variants taizhou --jobs 1

For every registered variant (4 players, the room defaults), over seeded hands (seed = hand
number, dealer = seed mod 4, the same seeds for every variant):

(a) one bot (seat 0) against three "discard the drawn tile" players (engine.auto_action, today's
    托管): the bot's win rate and its net per hand in the variant's unit (Taizhou 胡, Wenzhou and
    Zhuji 分), the others' win rate, the drawn-hand rate;
(b) four bots: the win rate of each seat, the drawn-hand rate, the mean net of each seat;
decision time: p50 / p99 / max of bot.choose over every decision of the (b) hands (the caches
    warm up as the run goes; the first 10% of hands are left out of the figures; the machine
    is shared, so the figures are an upper bound).

Goal (issue 15): (a) win rate >= 50% and net clearly positive (Taizhou at least); decisions
< 20 ms p99.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from games.engine import bot, variants  # noqa: E402
from games.engine.game import ENDED, Options, apply, auto_action, new_hand, waiting_player  # noqa: E402

UNIT = {"taizhou": "胡", "wenzhou": "分", "zhuji": "分"}


def play(variant: str, seed: int, bots: frozenset, players: int = 4, timed: bool = False):
    """One hand: (winner or None, net per seat, decision times in seconds)."""
    st, _ = new_hand(Options(variant=variant, players=players), seed, seed % players)
    times = []
    while st.phase != ENDED:
        p = waiting_player(st)[0]
        if p in bots:
            t = time.perf_counter()
            a = bot.choose(st, p)
            if timed:
                times.append(time.perf_counter() - t)
        else:
            a = auto_action(st, p)
        st, _ = apply(st, a)
    return st.result.winner, tuple(st.result.net), times


def _chunk(args):
    variant, seeds, bots, timed = args
    return [play(variant, s, bots, timed=timed) for s in seeds]


def run(variant, n, bots, jobs, timed=False):
    seeds = list(range(n))
    parts = [seeds[i::jobs] for i in range(jobs)]
    if jobs == 1:
        out = _chunk((variant, seeds, bots, timed))
    else:
        with Pool(jobs) as pool:
            chunks = pool.map(_chunk, [(variant, p, bots, timed) for p in parts])
        # back in seed order
        out = [None] * n
        for part, res in zip(parts, chunks):
            for s, r in zip(part, res):
                out[s] = r
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=2000, help="hands per variant for (a) and (b) (default 2000)")
    ap.add_argument("--hands-b", type=int, default=None, help="hands per variant for (b) (default: a quarter of --hands)")
    ap.add_argument("--variants", default=",".join(variants.names()))
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = ap.parse_args()
    names = [v for v in args.variants.split(",") if v]
    n_a = args.hands
    n_b = args.hands_b or max(1, args.hands // 4)
    t0 = time.time()
    print(f"bench/bots.py: {n_a} hands (a), {n_b} hands (b) per variant, 4 players, {args.jobs} job(s)\n")

    print("(a) one bot (seat 0) against three 'discard the drawn tile' players")
    print(f"{'variant':10} {'bot wins':>9} {'others win':>11} {'drawn':>7} {'bot net/hand':>13} {'unit':>5}")
    for v in names:
        res = run(v, n_a, frozenset({0}), args.jobs)
        wins = sum(1 for w, _, _ in res if w == 0)
        others = sum(1 for w, _, _ in res if w not in (None, 0))
        drawn = sum(1 for w, _, _ in res if w is None)
        net = statistics.fmean(float(nt[0]) for _, nt, _ in res)
        print(f"{v:10} {wins / n_a:9.1%} {others / n_a:11.1%} {drawn / n_a:7.1%} {net:13.2f} {UNIT.get(v, ''):>5}",
              flush=True)

    print("\n(b) four bots")
    print(f"{'variant':10} {'seat 0':>7} {'seat 1':>7} {'seat 2':>7} {'seat 3':>7} {'drawn':>7}   "
          f"{'net/hand per seat':<28} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}")
    for v in names:
        res = run(v, n_b, frozenset(range(4)), args.jobs, timed=True)
        rates = [sum(1 for w, _, _ in res if w == s) / n_b for s in range(4)]
        drawn = sum(1 for w, _, _ in res if w is None) / n_b
        nets = [statistics.fmean(float(nt[s]) for _, nt, _ in res) for s in range(4)]
        warm = res[n_b // 10:] if args.jobs == 1 else [r for i, r in enumerate(res) if i >= n_b // 10]
        times = [t * 1000 for _, _, ts in warm for t in ts]
        print(f"{v:10} " + " ".join(f"{r:7.1%}" for r in rates) + f" {drawn:7.1%}   "
              + f"{' '.join(f'{x:+.2f}' for x in nets):<28} {pct(times, .5):7.2f} {pct(times, .99):7.2f} "
              + f"{max(times):7.1f}", flush=True)
    print(f"\n({time.time() - t0:.0f} s; seats are table positions, the dealer rotates with the seed)")


if __name__ == "__main__":
    main()
