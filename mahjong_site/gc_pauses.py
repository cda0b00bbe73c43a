"""The garbage collector's passes of a process, written down (GC_PAUSE_LOG=<dir>; bench/live.py).

A pass holds the GIL: every socket of a daphne process waits while it runs. The live bench sets
GC_PAUSE_LOG to its own directory and reports the passes inside its measured window, so that a
tail of the latency can be told apart from (or put down to) the collector. One line per pass in
<dir>/gc-<pid>.log: "<unix time> <generation> <wall ms> <thread CPU ms> <objects collected>".
Off unless the variable is set (production does not need it)."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path


def record_to(directory: str) -> Path:
    """Append a line for each collection of this process to <directory>/gc-<pid>.log."""
    path = Path(directory) / f"gc-{os.getpid()}.log"
    out = open(path, "a", buffering=1)  # line-buffered: a killed process loses nothing written
    started = [0.0, 0.0]

    def on_collection(phase, info):
        # a pass never overlaps another (the collector does not re-enter), so one start slot will do
        if phase == "start":
            started[0], started[1] = time.perf_counter(), time.thread_time()
            return
        wall = 1000 * (time.perf_counter() - started[0])
        cpu = 1000 * (time.thread_time() - started[1])
        # the time as repr gives it (exact: rounded, a pass just before a window's end fell after it)
        out.write(f"{time.time()!r} {info['generation']} {wall:.2f} {cpu:.2f} {info['collected']}\n")

    gc.callbacks.append(on_collection)
    return path


def passes(directory: str, since: float = 0.0, until: float = float("inf")) -> dict:
    """{pid: [(unix time, generation, wall ms, cpu ms, collected), ...]} of the passes written in
    `directory` between `since` and `until` (unix times)."""
    found = {}
    for path in sorted(Path(directory).glob("gc-*.log")):
        rows = []
        for line in path.read_text().splitlines():
            try:
                at, gen, wall, cpu, collected = line.split()
                row = (float(at), int(gen), float(wall), float(cpu), int(collected))
            except ValueError:  # a line cut short by a killed process
                continue
            if since <= row[0] <= until:
                rows.append(row)
        found[int(path.stem.split("-", 1)[1])] = rows
    return found


def summary(rows: list) -> str:
    """'gen 0: 6 passes, 268 ms CPU in all, the longest 74 ms; ...' (or 'none')."""
    parts = []
    for gen in (0, 1, 2):
        mine = [r for r in rows if r[1] == gen]
        if mine:
            parts.append(f"gen {gen}: {len(mine)} pass{'es' if len(mine) != 1 else ''}, "
                         f"{sum(r[3] for r in mine):.0f} ms CPU in all, the longest {max(r[2] for r in mine):.0f} ms")
    return "; ".join(parts) or "none"
