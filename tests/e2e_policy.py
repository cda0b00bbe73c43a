"""A simple, deterministic way to play used by the browser test (and to pick its seed):
take every win, pass every other claim, and discard the tile that leaves the most waits,
or else the most pairs and neighbours. Never discards a wild while anything else is left."""

from games.engine.winning import waits


def _shape(tiles):
    counts = {}
    for t in tiles:
        counts[t] = counts.get(t, 0) + 1
    score = 0
    for f, n in counts.items():
        score += 3 * (n >= 2) + 4 * (n >= 3)
        if f < 27:
            score += 2 * (f % 9 <= 7 and f + 1 in counts) + (f % 9 <= 6 and f + 2 in counts)
    return score


def choose_discard(tiles, wild):
    tiles = list(tiles)
    candidates = sorted({t for t in tiles if t != wild}) or sorted(set(tiles))

    def value(d):
        rest = list(tiles)
        rest.remove(d)
        return (len(waits(rest, wild)), _shape([t for t in rest if t != wild]), d)

    return max(candidates, key=value)
