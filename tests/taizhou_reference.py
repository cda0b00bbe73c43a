"""A slow, obviously-correct Taizhou winner scorer used only by tests.

It tries every face for every wild, every role for every white, every decomposition and
every place for the winning tile, scoring each from the rule tables directly. The engine's
memoised search must agree with it on total (and on the best raw figure).
"""

from itertools import product

from games.engine.tiles import WHITE, is_dragon, is_honor, is_terminal_or_honor

REWARD, CAP = 10, 100


def _decompose(counts, need_pair):
    """Yield lists of sets ("pung"|"chow"|"pair", face) covering counts exactly."""
    i = next((k for k in range(34) if counts[k]), None)
    if i is None:
        yield []
        return
    if counts[i] >= 3:
        counts[i] -= 3
        for rest in _decompose(counts, need_pair):
            yield [("pung", i)] + rest
        counts[i] += 3
    if need_pair and counts[i] >= 2:
        counts[i] -= 2
        for rest in _decompose(counts, False):
            yield [("pair", i)] + rest
        counts[i] += 2
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        for rest in _decompose(counts, need_pair):
            yield [("chow", i)] + rest
        for k in (i, i + 1, i + 2):
            counts[k] += 1


def _mask(face):
    return 8 if is_honor(face) else 1 << (face // 9)


def reference_best(hand, melds, win, self_drawn, seat_wind, wild):
    """Best (total, raw, points, tai) or None. melds: list of engine Meld."""
    ex_pts = ex_tai = ex_mask = 0
    ex_chow = False
    for m in melds:
        f = m.face
        ex_mask |= _mask(f)
        if m.kind == "chow":
            ex_chow = True
            continue
        th = is_terminal_or_honor(f)
        ex_pts += {"pung": 4 if th else 2, "kong": 16 if th else 8, "ckong": 32 if th else 16}[m.kind]
        if f == seat_wind or is_dragon(f):
            ex_tai += 1
    tiles = list(hand) + [win]
    win_index = len(tiles) - 1
    joker_idx = [i for i, f in enumerate(tiles) if f == wild]
    white_idx = [i for i, f in enumerate(tiles) if f == WHITE and wild is not None and wild != WHITE]
    best = None
    for joker_faces in product(range(34), repeat=len(joker_idx)):
        for white_roles in product((wild, WHITE), repeat=len(white_idx)):
            faces = list(tiles)
            for i, f in zip(joker_idx, joker_faces):
                faces[i] = f
            for i, f in zip(white_idx, white_roles):
                faces[i] = f
            wface = faces[win_index]
            counts = [0] * 34
            for f in faces:
                counts[f] += 1
            for sets in _decompose(counts, True):
                # the winning tile sits in one set holding its face
                places = set()
                for kind, f in sets:
                    if kind in ("pung", "pair") and f == wface:
                        places.add((kind, f, -1))
                    if kind == "chow" and f <= wface <= f + 2:
                        places.add((kind, f, wface - f))
                for place in places:
                    score = _score(sets, place, ex_pts, ex_tai, ex_mask, ex_chow, self_drawn, seat_wind)
                    if best is None or score > best:
                        best = score
    return best


def _score(sets, place, ex_pts, ex_tai, ex_mask, ex_chow, self_drawn, seat_wind):
    pts, tai, mask, chow = ex_pts, ex_tai, ex_mask, ex_chow
    pkind, pface, ppos = place
    used_place = False
    for kind, f in sets:
        mask |= _mask(f)
        is_place = not used_place and (kind, f) == (pkind, pface)
        if is_place:
            used_place = True
        if kind == "chow":
            chow = True
        elif kind == "pair":
            if f == seat_wind or is_dragon(f):
                pts += 2
                if is_place:
                    pts += 2  # 单吊
        else:
            concealed = not (is_place and not self_drawn)
            base = 4 if is_terminal_or_honor(f) else 2
            pts += base * 2 if concealed else base
            if f == seat_wind or is_dragon(f):
                tai += 1
    if pkind == "chow" and ppos == 1:
        pts += 4 if self_drawn else 2
    if self_drawn:
        pts += 2
    if not chow:
        pts += 4
    pts += REWARD
    suits = mask & 7
    if suits in (1, 2, 4) and not mask & 8:
        tai += 3
    elif suits in (0, 1, 2, 4) and mask & 8:
        tai += 1
    raw = pts << tai
    return (min(raw, CAP), raw, pts, tai)
