"""How fast this machine runs plain Python, printed beside the benches' figures so that figures
taken on different machines can be compared (the same code measured 2.9 ms a move on one 2-core
machine and 15 ms on another).

The reference: a pure-Python loop of 10 million additions, best of three, on one core. Nothing of
the site is in it: it measures the interpreter's speed on this CPU only — and the interpreter's
build: the same machine reads ~0.22 s with Debian's python3 (built with profile-guided optimisation
and LTO) where pyenv's build of 3.11.7 (without them) reads ~0.30 s, so the line names the Python.
"""

from __future__ import annotations

import platform
import sys
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
            f"with Python {platform.python_version()} ({sys.executable}) (bench/machine.py; smaller is faster)")


if __name__ == "__main__":
    print(line())
