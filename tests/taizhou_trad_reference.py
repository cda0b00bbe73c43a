"""A brute-force reference for traditional Taizhou scoring and payments
(shared/rules/taizhou-traditional.md §4-§6), written from the spec alone and independently of
games/engine/variants/taizhou_trad.py: every wild tile is given every face but the flower face
(the wilds are alike: a multiset of faces; a winning wild gets its own face first), every
resulting hand is split every way into a pair and sets, every tile of the winning tile's face in
every piece is tried as the winning tile's place, each is counted item by item from the §4 and
§5 tables, and the best (total, points, 番) is kept. Slow on purpose: tests keep the number of
wild tiles small.

Faces are ints 0..33 (0-8 m, 9-17 p, 18-26 s, 27 East .. 30 North, 31 White, 32 Green, 33 Red).
A shown meld is (kind, face): kind "chow" (face = its lowest tile), "pung", "kong" or "ckong".
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement, product

EAST_F, SOUTH_F, WEST_F, NORTH_F, WHITE_F, GREEN_F, RED_F = range(27, 34)
WIND_FACES = (EAST_F, SOUTH_F, WEST_F, NORTH_F)
DRAGON_FACES = (WHITE_F, GREEN_F, RED_F)


def flower_of(wild):
    return RED_F if wild == WHITE_F else WHITE_F


def big(f):
    """1, 9, wind or dragon."""
    return f >= 27 or f % 9 in (0, 8)


def finish(points, fan):
    raw = points * 2 ** fan
    total = math.ceil(raw / 10) * 10
    if total >= 400:
        return 400, True
    return total, False


def _splits(counts, start=0):
    """Every list of sets (("pung"|"chow", face)) using all of counts."""
    first = next((f for f in range(start, 34) if counts[f]), None)
    if first is None:
        yield []
        return
    if counts[first] >= 3:
        counts[first] -= 3
        for rest in _splits(counts, first):
            yield [("pung", first)] + rest
        counts[first] += 3
    if first < 27 and first % 9 <= 6 and counts[first + 1] and counts[first + 2]:
        for f in (first, first + 1, first + 2):
            counts[f] -= 1
        for rest in _splits(counts, first):
            yield [("chow", first)] + rest
        for f in (first, first + 1, first + 2):
            counts[f] += 1


def decompositions(faces):
    """Every (pair face, [sets]) of these logical faces."""
    counts = [0] * 34
    for f in faces:
        counts[f] += 1
    for p in range(34):
        if counts[p] >= 2:
            counts[p] -= 2
            for sets in _splits(counts):
                yield p, sets
            counts[p] += 2


def piece_faces(kind, f):
    return [f, f + 1, f + 2] if kind == "chow" else [f] * (2 if kind == "pair" else 3)


def count_winner(pair, sets, place, melds, seat_wind, wild, restored, wild_tiles, hand_len, flowers,
                 self_drawn, win_is_wild, robbed, kong_rep, last):
    """(points, 番) of one arrangement with the winning tile at `place` = (kind, face, its face)."""
    points = 1  # reward
    fan = 0
    pkind, pface, wf = place
    # shown sets
    for kind, f in melds:
        if kind == "pung":
            points += 4 if big(f) else 2
        elif kind == "kong":
            points += 16 if big(f) else 8
        elif kind == "ckong":
            points += 32 if big(f) else 16
        if kind != "chow" and (f == seat_wind or f in DRAGON_FACES):
            fan += 1
    done_place = False
    for kind, f in sets:
        if kind == "pung":
            shown = (not self_drawn) and not done_place and pkind == "pung" and pface == f
            if shown:
                done_place = True
            points += (4 if big(f) else 2) * (1 if shown else 2)
            if f == seat_wind or f in DRAGON_FACES:
                fan += 1
    if pair == seat_wind or pair in DRAGON_FACES:
        points += 2
    points += 4 * flowers
    fan += flowers
    two_sided = False
    if pkind == "pair":
        points += 2  # 单吊
    elif pkind == "chow":
        if wf == pface + 1:
            points += 2  # 嵌档
        elif (pface % 9 == 0 and wf == pface + 2) or (pface % 9 == 6 and wf == pface):
            points += 2  # 靠柄
        else:
            two_sided = True
    if self_drawn:
        points += 2
    every = [pair, pair]
    kinds = []
    for kind, f in sets + [(k if k == "chow" else "pung", f) for k, f in melds]:
        every += piece_faces(kind, f)
        kinds.append(kind)
    suits = {f // 9 for f in every if f < 27}
    honours = any(f >= 27 for f in every)
    if len(suits) == 1:
        fan += 2 if honours else 4
    if all(k == "pung" for k in kinds):
        fan += 2
    if all(k == "chow" for k in kinds) and two_sided:
        fan += 1
    if last:
        fan += 1
    plain = wild_tiles - restored
    fan += {0: 1, 1: 0, 2: 1, 3: 2}[plain]
    fan += restored
    fan += int(kong_rep) + int(robbed)
    if self_drawn and win_is_wild:
        fan += 1
    if hand_len == 1 and pkind == "pair":
        fan += 1
    winds = {f for k, f in sets if k == "pung"} | {f for k, f in melds if k != "chow"} | {pair}
    if all(w in winds for w in WIND_FACES):
        fan += 13
    return points, fan


def reference_winner(hand, melds, win, self_drawn, seat_wind, wild, flowers=0, robbed=False, kong_rep=False,
                     last=False):
    """(total, points, 番, capped) of the best reading, or None when no reading wins."""
    flower = flower_of(wild)
    faces_ok = [f for f in range(34) if f != flower]
    natural = [t for t in hand if t != wild]
    k_hand = len(hand) - len(natural)
    win_is_wild = win == wild
    wild_tiles = k_hand + int(win_is_wild)
    best = None
    win_faces = faces_ok if win_is_wild else [win]
    for wf in win_faces:
        for others in combinations_with_replacement(faces_ok, k_hand):
            logical = natural + list(others) + [wf]
            restored = list(others).count(wild) + int(win_is_wild and wf == wild)
            for pair, sets in decompositions(logical):
                if len(sets) + len(melds) != 4:
                    continue
                places = set()
                if pair == wf:
                    places.add(("pair", pair, wf))
                for kind, f in sets:
                    if wf in piece_faces(kind, f):
                        places.add((kind, f, wf))
                for place in places:
                    pts, fan = count_winner(pair, sets, place, melds, seat_wind, wild, restored, wild_tiles,
                                            len(hand), flowers, self_drawn, win_is_wild, robbed, kong_rep, last)
                    total, capped = finish(pts, fan)
                    key = (total, pts, fan)
                    if best is None or key > best[:3]:
                        best = (total, pts, fan, capped)
    return best


def reference_nonwinner(hand, melds, seat_wind, wild, flowers=0):
    """(total, points, 番, capped) of a non-winner (§4, §5)."""
    points = 4 * flowers
    fan = flowers
    for kind, f in melds:
        if kind == "pung":
            points += 4 if big(f) else 2
        elif kind == "kong":
            points += 16 if big(f) else 8
        elif kind == "ckong":
            points += 32 if big(f) else 16
        if kind != "chow" and (f == seat_wind or f in DRAGON_FACES):
            fan += 1
    for f in set(hand):
        c = hand.count(f)
        if c >= 3:
            points += 8 if big(f) else 4
            if f != wild and (f == seat_wind or f in DRAGON_FACES):
                fan += 1
        elif c == 2 and (f == seat_wind or f in DRAGON_FACES):
            points += 2
    # 四风会齐: try every wind (or none) for each wild tile
    wilds = [t for t in hand if t == wild]
    natural = [t for t in hand if t != wild]
    shown = {f for kind, f in melds if kind != "chow"}
    four = False
    for choice in product([None] + list(WIND_FACES), repeat=len(wilds)):
        have = {w: natural.count(w) + choice.count(w) for w in WIND_FACES}
        sets = {w for w in WIND_FACES if w in shown or have[w] >= 3}
        if len(sets) == 4:
            four = True
        elif seat_wind not in shown and have[seat_wind] >= 2 and all(w in sets for w in WIND_FACES if w != seat_wind):
            four = True
        if four:
            break
    if four:
        fan += 13
    total, capped = finish(points, fan)
    return total, points, fan, capped


def reference_net(seats, dealer, winner, totals, self_drawn, dan=0, streak=1, throws=(), dianpao=None):
    """§6 read afresh: each seat's net in 子."""
    net = {s: 0 for s in seats}
    if winner is None:
        return net
    tot = dict(totals)
    if dianpao is not None:
        tot[dianpao] = 0
    m = 2 if self_drawn else 1

    def e(a, b):
        return 1 if dealer in (a, b) else 2

    def move(frm, to, x):
        net[frm] -= x
        net[to] += x

    lose = [s for s in seats if s != winner]
    for q in lose:
        if totals[winner] >= 400:
            base = 40
        else:
            base = math.ceil(totals[winner] / 10 / e(q, winner))
        stake = sum(t["amount"] for t in throws if (t["by"], t["at"]) in ((q, winner), (winner, q)))
        move(dianpao if dianpao is not None else q, winner, base + dan * streak * m + stake * m)
    for a in lose:
        for b in lose:
            if a >= b if isinstance(a, int) else seats.index(a) >= seats.index(b):
                continue
            la, lb = tot[a] >= 400, tot[b] >= 400
            if la and lb:
                continue
            if la or lb:
                hi, lo, x = (a, b, 40) if la else (b, a, 40)
            elif tot[a] == tot[b]:
                continue
            else:
                hi, lo = (a, b) if tot[a] > tot[b] else (b, a)
                x = math.ceil((tot[hi] - tot[lo]) / 10 / e(a, b))
            move(dianpao if dianpao is not None else lo, hi, x)
    return net
