"""A brute-force reference for Zhuji 台 (shared/rules/zhuji.md §4), written from the spec alone and
independently of games/engine/variants/zhuji.py: every wild tile is given every face (the wilds
are alike, so every multiset of faces), every resulting hand is split every way into four sets
and a pair (shown sets included), each split is counted item by item from the §4 table, and the
best is kept. Slow on purpose: tests keep the number of wild tiles small.

Faces are ints 0..33 (0-8 m, 9-17 p, 18-26 s, 27 East .. 30 North, 31 White, 32 Green, 33 Red).
A shown meld is (kind, face): kind "chow" (face = its lowest tile), "pung", "kong" or "ckong".
"""

from __future__ import annotations

from itertools import combinations_with_replacement

EAST_F, SOUTH_F, WEST_F, NORTH_F, WHITE_F, GREEN_F, RED_F = range(27, 34)
WIND_OF_SEAT = {"E": EAST_F, "S": SOUTH_F, "W": WEST_F, "N": NORTH_F}


def _splits(counts, sets_needed):
    """Every way (as a list of ("pung"|"chow", face)) to split counts into exactly
    `sets_needed` sets, nothing left over."""
    first = next((f for f in range(34) if counts[f]), None)
    if first is None:
        if sets_needed == 0:
            yield []
        return
    if sets_needed == 0:
        return
    if counts[first] >= 3:
        counts[first] -= 3
        for rest in _splits(counts, sets_needed - 1):
            yield [("pung", first)] + rest
        counts[first] += 3
    if first < 27 and first % 9 <= 6 and counts[first + 1] and counts[first + 2]:
        for f in (first, first + 1, first + 2):
            counts[f] -= 1
        for rest in _splits(counts, sets_needed - 1):
            yield [("chow", first)] + rest
        for f in (first, first + 1, first + 2):
            counts[f] += 1


def decompositions(faces, sets_needed):
    """Every (pair face, [sets]) of these logical faces."""
    counts = [0] * 34
    for f in faces:
        counts[f] += 1
    for p in range(34):
        if counts[p] >= 2:
            counts[p] -= 2
            for sets in _splits(counts, sets_needed):
                yield p, sets
            counts[p] += 2


def count_tai(pair, sets, seat):
    """台 of one arrangement (sets = concealed and shown, as ("pung"|"chow", face); kongs are
    pungs here), from the §4 table: shape, colour (or 全风字 instead), honour sets."""
    faces = [pair, pair]
    for kind, f in sets:
        faces += [f, f, f] if kind == "pung" else [f, f + 1, f + 2]
    suits = {f // 9 for f in faces if f < 27}
    honours = any(f >= 27 for f in faces)
    tai = 0
    if not suits:
        tai += 6  # 全风字, in place of shape and colour
    else:
        kinds = {k for k, _ in sets}
        if kinds == {"chow"}:
            tai += 1  # 平胡
        elif kinds == {"pung"}:
            tai += 1  # 碰碰胡
        if len(suits) == 1:
            tai += 1 if honours else 3  # 混一色 / 清一色
    for kind, f in sets:
        if kind != "pung":
            continue
        if f == EAST_F:
            tai += 2 if seat == "E" else 1  # 圈风 (+ 位置 for the dealer)
        elif f == WIND_OF_SEAT[seat]:
            tai += 1  # 位置
        elif f in (WHITE_F, GREEN_F, RED_F):
            tai += 1
    return tai


def reference_tai(concealed, melds, wilds, seat, kong_replacement=False, robbed_kong=False):
    """The most 台 of this winning hand (concealed tiles with the winning one), or None when no
    assignment of the wilds makes four sets and a pair."""
    wild_set = set(wilds)
    natural = [t for t in concealed if t not in wild_set]
    k = len(concealed) - len(natural)
    shown = [("chow" if kind == "chow" else "pung", f) for kind, f in melds]
    need = 4 - len(shown)
    best = None
    for faces in combinations_with_replacement(range(34), k):
        for pair, sets in decompositions(natural + list(faces), need):
            t = count_tai(pair, sets + shown, seat)
            if best is None or t > best:
                best = t
    if best is None:
        return None
    if wilds and k == 0:
        best += 1  # 无财
    return best + int(kong_replacement) + int(robbed_kong)


def reference_single_wait(concealed_before, melds, wilds):
    """独: exactly one natural face completes the hand (every use of the wilds counted)."""
    wild_set = set(wilds)
    natural = [t for t in concealed_before if t not in wild_set]
    k = len(concealed_before) - len(natural)
    need = 4 - len(melds)
    found = []
    for f in range(34):
        if f in wild_set:
            continue
        ok = False
        for faces in combinations_with_replacement(range(34), k):
            if next(decompositions(natural + [f] + list(faces), need), None) is not None:
                ok = True
                break
        if ok:
            found.append(f)
    return len(found) == 1
