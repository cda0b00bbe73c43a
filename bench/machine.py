"""How fast this machine runs plain Python, printed beside the benches' figures so that figures
taken on different machines can be compared (the same code measured 2.9 ms a move on one 2-core
machine and 15 ms on another).

The reference: a pure-Python loop of 10 million additions, best of three, on one core. Nothing of
the site is in it: it measures the interpreter's speed on this CPU only.
"""

from __future__ import annotations

import time

LOOP = 10_000_000


def reference_seconds(rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for i in range(LOOP):
            total += i
        best = min(best, time.perf_counter() - start)
    return best


def line() -> str:
    return (f"machine: a pure-Python loop of {LOOP // 1_000_000} million additions takes {reference_seconds():.2f} s "
            f"(bench/machine.py; smaller is faster)")


if __name__ == "__main__":
    print(line())
