"""mahjong_site/gc_pauses.py: each garbage collection of a process written down (GC_PAUSE_LOG),
read back for bench/live.py's report of the passes inside its measured window."""

import gc
import time

from mahjong_site import gc_pauses


def test_each_collection_is_written_with_its_generation_and_read_back_inside_a_window(tmp_path):
    before = len(gc.callbacks)
    path = gc_pauses.record_to(str(tmp_path))
    try:
        since = time.time()
        junk = []
        junk.append(junk)  # a cycle: the full collection below finds it
        del junk
        gc.collect()
        gc.collect(0)
        until = time.time()
    finally:
        del gc.callbacks[before:]
    assert path.parent == tmp_path and path.name.startswith("gc-")
    found = gc_pauses.passes(str(tmp_path), since, until)
    (rows,) = found.values()
    gens = [r[1] for r in rows]
    assert gens[-2:] == [2, 0]
    full = rows[-2]
    assert full[4] >= 1 and full[2] >= 0 and full[3] >= 0  # collected the cycle; times in ms
    assert gc_pauses.passes(str(tmp_path), until + 1) == {next(iter(found)): []}  # outside the window


def test_a_line_cut_short_is_skipped_and_the_summary_counts_by_generation(tmp_path):
    (tmp_path / "gc-41.log").write_text("100.0 0 12.5 11.0 3\n101.0 2 80.0 75.5 10\n102.0 0 30.0 29.0 0\n103.0 1 4")
    rows = gc_pauses.passes(str(tmp_path))[41]
    assert [r[1] for r in rows] == [0, 2, 0]
    assert gc_pauses.summary(rows) == ("gen 0: 2 passes, 40 ms CPU in all, the longest 30 ms; "
                                       "gen 2: 1 pass, 76 ms CPU in all, the longest 80 ms")
    assert gc_pauses.summary([]) == "none"
