"""Win detection (four sets + a pair) with wilds, and ready/waits.

Each suit (and the honors) is looked up in a memoised table of the ways it splits into sets
and at most one pair, as a bitmask of (jokers needed, pair used); the parts are combined and
the remaining jokers must make whole sets (or the pair). Wild-free checks use the same tables.
"""

from __future__ import annotations

from functools import lru_cache

from .tiles import NUM_FACES, WHITE

MAX_JOKERS = 4


def _take(counts: tuple, faces) -> tuple:
    """Remove one real tile of each face where there is one; count the wilds that fill the rest."""
    c = list(counts)
    need = 0
    for k in faces:
        if c[k]:
            c[k] -= 1
        else:
            need += 1
    return tuple(c), need


def set_takes(counts: tuple, i: int, pair_ok: bool, chows: bool):
    """The sets that can hold the lowest real tile i of a part: (kind, lowest index, rest, wilds
    needed). Real tiles are used wherever they exist (swapping a wild for an equal real tile
    elsewhere changes nothing), so this covers every arrangement."""
    out = [("pung", i) + _take(counts, (i, i, i))]
    if pair_ok:
        out.append(("pair", i) + _take(counts, (i, i)))
    if chows:
        # i is the lowest real tile, so slots below it are wilds
        for lo in (i - 2, i - 1, i):
            if 0 <= lo <= 6:
                out.append(("chow", lo) + _take(counts, (lo, lo + 1, lo + 2)))
    return out


# bit 2*j + p stands for (j wilds, p pairs): FULL keeps j <= MAX_JOKERS, EVEN the bits with p = 0
FULL = (1 << (2 * MAX_JOKERS + 2)) - 1
EVEN = sum(1 << (2 * j) for j in range(MAX_JOKERS + 1))


@lru_cache(maxsize=None)
def _part_mask(counts: tuple, honor: bool, pair_ok: bool = True) -> int:
    """Bitmask over (jokers needed ju, pair used) for splitting `counts` into whole sets."""
    i = next((k for k in range(len(counts)) if counts[k]), -1)
    if i < 0:
        return 1  # (0, 0)
    out = 0
    for kind, lo, rest, need in set_takes(counts, i, pair_ok, not honor):
        if kind == "pair":
            # the rest has no pair (bits with p = 0): adding (need, 1) is a shift by 2*need + 1
            out |= _part_mask(rest, honor, False) << (2 * need + 1)
        else:
            out |= _part_mask(rest, honor, pair_ok) << (2 * need)
    return out & FULL


def _combine(a: int, b: int) -> int:
    """The (wilds, pairs) of two parts together: bit i of a and bit k of b give bit i + k (wilds
    and pairs add up), kept when there is at most one pair and at most MAX_JOKERS wilds."""
    out = 0
    i = 0
    while a:
        if a & 1:
            out |= (b if not i & 1 else b & EVEN) << i
        a >>= 1
        i += 1
    return out & FULL


_PARTS = ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True))
_EXACT: dict = {}  # part -> 0 empty, 1 whole sets, 2 sets + the pair, -1 impossible


def _sets_only(c: list, honor: bool) -> bool:
    """Can these counts be split into pungs and chows with no wild? Linear: the lowest tile's
    count mod 3 must start chows (three equal chows are as good as three pungs)."""
    for i in range(len(c)):
        n = c[i]
        if not n:
            continue
        r = n % 3
        if r:
            if honor or i > 6 or c[i + 1] < r or c[i + 2] < r:
                return False
            c[i + 1] -= r
            c[i + 2] -= r
    return True


def _exact_kind(part: tuple, honor: bool) -> int:
    total = sum(part)
    if total == 0:
        kind = 0
    elif total % 3 == 1:
        kind = -1
    elif total % 3 == 0:
        kind = 1 if _sets_only(list(part), honor) else -1
    else:
        kind = -1
        for i, n in enumerate(part):
            if n >= 2:
                c = list(part)
                c[i] -= 2
                if _sets_only(c, honor):
                    kind = 2
                    break
    _EXACT[part] = kind
    return kind


def clear_caches():
    """Forget the memoised tables (benchmarks measure cold and warm)."""
    _EXACT.clear()
    _part_mask.cache_clear()


def is_complete(counts, jokers: int = 0) -> bool:
    """Do these concealed counts (34 faces, wilds excluded) plus `jokers` wilds make whole sets
    and exactly one pair? (Exposed melds are already whole sets.)"""
    if jokers == 0:
        # fast path: each part must split exactly, exactly one part holding the pair
        pairs = 0
        for lo, hi, honor in _PARTS:
            part = tuple(counts[lo:hi])
            kind = _EXACT.get(part)
            if kind is None:
                kind = _exact_kind(part, honor)
            if kind < 0:
                return False
            pairs += kind == 2
        return pairs == 1
    return _fits(_needs(counts, True), jokers, 1)


def _needs(counts, pair_allowed: bool) -> int:
    """Bit 2*j + p is set when the counts make whole sets (and p natural pairs, p <= 1, only if
    `pair_allowed`) with j wilds filling gaps. 0 = impossible."""
    acc = 1
    for lo, hi, honor in _PARTS:
        part = tuple(counts[lo:hi])
        if any(part):
            acc = _combine(acc, _part_mask(part, honor) if pair_allowed else _part_mask(part, honor, False))
            if not acc:
                return 0
    return acc


def _fits(acc: int, jokers: int, pairs: int) -> bool:
    """Can `jokers` wilds finish some way of `acc` (see _needs) with exactly `pairs` pairs? The
    wilds left over make whole sets, and a missing pair, of their own."""
    b = 0
    while acc:
        if acc & 1:
            ju, pr = divmod(b, 2)
            left = jokers - ju - 2 * (pairs - pr)
            if pr <= pairs and left >= 0 and left % 3 == 0:
                return True
        acc >>= 1
        b += 1
    return False


def _sorted_out(tiles, wild) -> tuple[list, int, int]:
    """(counts of the natural faces, wilds, whites standing in for the wild's face) of tiles."""
    counts = [0] * NUM_FACES
    jokers = whites = 0
    stand_in = wild is not None and wild != WHITE
    for f in tiles:
        if f == wild:
            jokers += 1
        elif f == WHITE and stand_in:
            whites += 1
        else:
            counts[f] += 1
    return counts, jokers, whites


def _complete(counts, jokers, whites, wild) -> bool:
    """is_complete, each white tried as the wild's face or a White dragon."""
    if not whites:
        return is_complete(counts, jokers)
    for k in range(whites + 1):
        c = list(counts)
        c[wild] += k
        c[WHITE] += whites - k
        if is_complete(c, jokers):
            return True
    return False


def is_winning_tiles(tiles, wild) -> bool:
    """Concealed tiles (including the winning tile) make a win, with wilds and the white
    stand-in (each white is the wild's face or a White dragon)."""
    return _complete(*_sorted_out(tiles, wild), wild)


def waits(tiles, wild) -> list[int]:
    """Faces that would complete these 3n+1 concealed tiles (听牌). The wild face itself is
    listed only if drawing it wins (a discarded wild can never be won on).

    Asked at every discard (is the discarder ready?) and for every frame of a replay's re-run: the
    counts are made once, and with no wild or white stand-in in the hand only faces that can join
    a set or a pair are tried: a face held, or next to one held in its suit (every chow holding
    a face holds a face next to it too); for any other face is_winning_tiles would be False."""
    counts, jokers, whites = _sorted_out(tiles, wild)
    stand_in = wild is not None and wild != WHITE
    if jokers or whites:
        faces = range(NUM_FACES)
    else:
        near = set()
        for f in range(NUM_FACES):
            if counts[f]:
                near.add(f)
                if f < 27:
                    lo = f - f % 9
                    near.update(range(max(lo, f - 1), min(lo + 9, f + 2)))
        if wild is not None:
            near.add(wild)
            if stand_in:
                near.add(WHITE)
        faces = sorted(near)
    out = []
    for f in faces:
        if f == wild or (f == WHITE and stand_in):
            if is_winning_tiles(list(tiles) + [f], wild):
                out.append(f)
            continue
        counts[f] += 1
        won = _complete(counts, jokers, whites, wild)
        counts[f] -= 1
        if won:
            out.append(f)
    return out


def is_sets_only(counts, jokers: int = 0) -> bool:
    """Do these counts (34 faces, wilds excluded) plus `jokers` wilds make whole sets and NO
    pair? (Wenzhou asks it of the tiles left around a pair already chosen.)"""
    return _fits(_needs(counts, False), jokers, 0)
