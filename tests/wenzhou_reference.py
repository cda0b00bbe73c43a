"""A slow, obviously-correct Wenzhou (温州麻将) win reader used only by tests.

Written from shared/rules/wenzhou.md alone (§2 wilds and whites, §4 shapes A/B/C and 财神马,
§5 soft/hard/double, W-D5..W-D10); it shares nothing with games/engine/variants/wenzhou.py or
games/engine/winning.py (only the tile constants of tiles.py).

A "reading" gives every concealed tile (the winning one included) one logical face:
- a wild (a tile of the wild's face) any face at all (a fifth copy of a face too: "any tile");
- a white (5z), when the wild's face is not White, either a White dragon or the wild's face;
- any other tile its own face.
Every reading is then decomposed by a plain recursive search into
- A: a pair + sets (chows, pungs) that with the shown sets make five sets;
- B: eight pairs + one lone tile (17 concealed tiles, no shown sets; four alike are two pairs);
and C is holding all three wilds. The hand's kind is the best over every allowed reading.

财神马 (§4): on a discard a shape-A reading whose pair is a wild + a non-wild tile of the
winning tile's PHYSICAL face is the winning tile making the pair with a wild (tiles of one
physical face are interchangeable, so such a reading is the same as one where the winning tile
itself is in the pair, and before the win the hand was complete sets + that lone wild). Such
readings are allowed only self-drawn; a discard needs another reading (or C), else it is refused.

Pruning (sound): a wild in a set or pair with a non-wild tile reads as a face within two of that
tile's logical face in its suit (an honor's own face); a set or pair made of wilds only can be
read at the wild's own face for A (a chow of wilds becomes a pung: every flag stays or gets
better, the pair's make-up does not change) and at one face holding no other tile for B (the
odd/even counts, and whether the lone tile is a wild, do not change). So wilds are enumerated,
as a multiset, over those faces only. Whites are interchangeable: only how many of them are read
as the wild's face matters.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

from games.engine.tiles import NUM_FACES, WHITE

# (first face, one past the last, honours)
PARTS = ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True))
PART_OF = [next(k for k, (lo, hi, _h) in enumerate(PARTS) if lo <= f < hi) for f in range(NUM_FACES)]


@lru_cache(maxsize=None)
def sets_only(part: tuple, honor: bool) -> bool:
    """Can these counts (one suit, or the honours) be split into pungs and chows? Plain
    recursion: the lowest tile is in a pung or in a chow it starts."""
    i = next((k for k, c in enumerate(part) if c), None)
    if i is None:
        return True
    if part[i] >= 3:
        rest = list(part)
        rest[i] -= 3
        if sets_only(tuple(rest), honor):
            return True
    if not honor and i + 2 < len(part) and part[i + 1] and part[i + 2]:
        rest = list(part)
        rest[i] -= 1
        rest[i + 1] -= 1
        rest[i + 2] -= 1
        if sets_only(tuple(rest), honor):
            return True
    return False


@lru_cache(maxsize=None)
def part_info(part: tuple, honor: bool):
    """(sets only?, pungs only?, local faces i where a pair at i + sets fit, local faces i where
    a pair at i + pungs fit)."""
    ok = sets_only(part, honor)
    pungs = all(c % 3 == 0 for c in part)
    pair_sets, pair_pungs = [], []
    for i, c in enumerate(part):
        if c >= 2:
            rest = list(part)
            rest[i] -= 2
            rest = tuple(rest)
            if sets_only(rest, honor):
                pair_sets.append(i)
                if all(x % 3 == 0 for x in rest):
                    pair_pungs.append(i)
    return ok, pungs, tuple(pair_sets), tuple(pair_pungs)


def _near(nonwild):
    """Faces a wild may usefully read as next to non-wild tiles (see the module's pruning)."""
    out = set()
    for f in range(NUM_FACES):
        if nonwild[f]:
            if f >= 27:
                out.add(f)
            else:
                lo = f - f % 9
                out.update(range(max(lo, f - 2), min(lo + 8, f + 2) + 1))
    return out


SOFT, HARD, DOUBLE = "soft", "hard", "double"
RANK = {None: 0, SOFT: 1, HARD: 2, DOUBLE: 3}


def reference(concealed, meld_kinds, win, wild, self_drawn, *, first_turn=False, robbed_kong=False):
    """The reference's answer for one winner: ("win", kind) or ("refused", why) with why one of
    "wild" (a discarded wild), "caishenma" (on a discard only 财神马), "no_win".
    `concealed` = the hand without `win`; `meld_kinds` = the kinds of the shown sets."""
    return _reference(tuple(sorted(concealed)), tuple(sorted(meld_kinds)), win, wild, bool(self_drawn),
                      bool(first_turn), bool(robbed_kong))


@lru_cache(maxsize=50_000)
def _reference(concealed, meld_kinds, win, wild, self_drawn, first_turn, robbed_kong):
    if win == wild and not self_drawn:
        return ("refused", "wild")
    tiles = list(concealed) + [win]
    stand_in = wild if wild != WHITE else None
    n_wilds = sum(1 for t in tiles if t == wild)
    n_whites = sum(1 for t in tiles if t == WHITE) if stand_in is not None else 0
    natural = [0] * NUM_FACES
    for t in tiles:
        if t != wild and not (t == WHITE and stand_in is not None):
            natural[t] += 1
    no_chow_melds = all(k != "chow" for k in meld_kinds)
    eight_pairs_ok = not meld_kinds and len(tiles) == 17
    # 单吊 (§5, W-D9): five shown sets, the one tile left in hand is not a wild
    dandiao = len(meld_kinds) == 5 and len(concealed) == 1 and concealed[0] != wild

    best = None
    caishenma_seen = False

    def better(kind):
        nonlocal best
        if RANK[kind] > RANK[best]:
            best = kind

    def kind_of_a(own: bool, pungs: bool) -> str:
        if pungs or n_wilds >= 3 or dandiao or first_turn:
            return DOUBLE  # 碰碰胡, three wilds with a shape, 单吊, 天胡/地胡
        if self_drawn or own or robbed_kong:
            return HARD  # self-drawn, 财神归位 / no wild, robbed kong
        return SOFT

    def kind_of_b(lone: bool) -> str:
        if n_wilds != 1 or lone or first_turn:
            return DOUBLE  # 硬8对 (and three wilds with a shape)
        return HARD  # 软8对

    win_phys = win
    for k in (range(n_whites + 1) if stand_in is not None else (0,)):
        nonwild = list(natural)
        if stand_in is not None:
            nonwild[WHITE] += n_whites - k
            nonwild[stand_in] += k
        empty = next(f for f in range(NUM_FACES) if not nonwild[f] and f != wild)
        cands = sorted(_near(nonwild) | {wild, empty})
        # the reading with every wild as its own face first (财神归位)
        combos = [(wild,) * n_wilds] + [c for c in combinations_with_replacement(cands, n_wilds)
                                        if c != (wild,) * n_wilds]
        base_parts = [list(nonwild[lo:hi]) for lo, hi, _h in PARTS]
        for combo in combos:
            own = all(f == wild for f in combo)
            parts = [list(p) for p in base_parts]
            wc = {}
            for f in combo:
                parts[PART_OF[f]][f - PARTS[PART_OF[f]][0]] += 1
                wc[f] = wc.get(f, 0) + 1
            infos = [part_info(tuple(p), h) for p, (_lo, _hi, h) in zip(parts, PARTS)]
            # --- A: the pair in one part, whole sets in the others ---
            bad = [s for s in range(4) if not infos[s][0]]
            for s in range(4):
                if any(b != s for b in bad):
                    continue
                lo = PARTS[s][0]
                for i in infos[s][2]:
                    p = lo + i
                    n, c = nonwild[p], wc.get(p, 0)
                    allowed = n >= 2 or c >= 2
                    if n >= 1 and c >= 1:
                        phys = WHITE if p == stand_in else p
                        if self_drawn or phys != win_phys:
                            allowed = True
                        else:
                            caishenma_seen = True
                    if not allowed:
                        continue
                    pungs = (no_chow_melds and i in infos[s][3]
                             and all(infos[t][1] for t in range(4) if t != s))
                    better(kind_of_a(own, pungs))
            # --- B: eight pairs + a lone tile ---
            if eight_pairs_ok:
                odd = [f for f in range(NUM_FACES) if (nonwild[f] + wc.get(f, 0)) % 2]
                if len(odd) == 1:
                    better(kind_of_b(wc.get(odd[0], 0) >= 1))
            if best == DOUBLE:
                return ("win", DOUBLE)
    if n_wilds >= 3:  # C: three wilds win whatever the shape
        better(DOUBLE if first_turn else HARD)
    if best is not None:
        return ("win", best)
    return ("refused", "caishenma" if caishenma_seen else "no_win")
