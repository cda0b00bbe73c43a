"""Taizhou mahjong (台州麻将): the rule set, its scoring and settlement. Spec: shared/rules/taizhou.md.

`VARIANT` (class `Taizhou`, registered as "taizhou") is what the state machine asks: it keeps
the common rules of variants/base.py and overrides the claim order (several wins on one discard:
the first claimant from the dealer), the single-wild fast paths with the white stand-in, the
dealer's opening win tile, and the end of a win (score everyone, 全包 liability, settle in 胡).
The functions below are its scorer and settlement, also used by the JSON contracts.

Scoring searches the winning hand's arrangements once, with wilds (财神) as jokers and each
white (白板) either the wild's face or a White dragon. The search is a memoised per-suit
decomposition returning, for every (jokers used, pair used, has chow, 台) signature, the best
points; the suits are then combined and the best total kept. No brute force over wild faces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ..melds import CHOW, CKONG, KONG, PUNG, Meld
from ..tiles import (
    DRAGONS,
    NUM_FACES,
    RED,
    WHITE,
    face_label,
    face_name,
    is_dragon,
    is_honor,
    is_terminal_or_honor,
)
from ..winning import is_winning_tiles, set_takes, waits
from .base import CLAIM_RANK, IndicatorWild, Result, Variant

VARIANT_ID = "taizhou"
HONOR_BIT = 8


@dataclass(frozen=True)
class TaizhouRules:
    """Rule options of a Taizhou table (immutable; one per room)."""

    reward: int = 10  # 胡家奖励
    cap: int = 100  # 臘子
    hand_size: int = 13
    uses_wilds: bool = True
    robbing_kong: bool = False


RULES = TaizhouRules()


# --- point tables (§5) -------------------------------------------------------------------

def pung_points(face: int, concealed: bool) -> int:
    base = 4 if is_terminal_or_honor(face) else 2
    return base * 2 if concealed else base


def kong_points(face: int, concealed: bool) -> int:
    base = 16 if is_terminal_or_honor(face) else 8
    return base * 2 if concealed else base


def pair_points(face: int, seat_wind: int) -> int:
    return 2 if (face == seat_wind or is_dragon(face)) else 0


def set_tai(face: int, seat_wind: int) -> int:
    """台 of a pung/kong: own seat wind 1, each dragon 1."""
    return 1 if (face == seat_wind or is_dragon(face)) else 0


def mask_of(face: int) -> int:
    return HONOR_BIT if is_honor(face) else 1 << (face // 9)


# --- results -----------------------------------------------------------------------------

@dataclass
class Score:
    winner: bool
    points: int
    tai: int
    total: int
    capped: bool
    items: list = field(default_factory=list)  # (key, face or None, points, tai)
    full_flush: bool = False
    sets: tuple = ()  # descriptors of the chosen arrangement

    def as_dict(self, lang: str = "en") -> dict:
        return {
            "ok": True,
            "winner": self.winner,
            "points": self.points,
            "tai": self.tai,
            "total": self.total,
            "capped": self.capped,
            "items": [item_dict(it, lang) for it in self.items],
        }


_ITEM_NAMES = {
    # key: (english, chinese); {t} is the tile
    "exposed_pung": ("exposed pung {t}", "明刻 {t}"),
    "concealed_pung": ("concealed pung {t}", "暗刻 {t}"),
    "exposed_kong": ("exposed kong {t}", "明杠 {t}"),
    "concealed_kong": ("concealed kong {t}", "暗杠 {t}"),
    "pair": ("pair {t}", "对子 {t}"),
    "single_wait": ("single wait {t}", "单吊 {t}"),
    "closed_wait": ("closed wait {t}", "嵌档 {t}"),
    "self_drawn": ("self-drawn", "自摸"),
    "all_pungs": ("all pungs", "对对胡"),
    "reward": ("winner's reward", "胡牌奖励"),
    "seat_wind_set": ("seat wind set {t}", "门风刻 {t}"),
    "dragon_set": ("dragon set {t}", "字牌刻 {t}"),
    "full_flush": ("full flush", "清一色"),
    "half_flush": ("half flush", "混一色"),
}


def item_dict(item, lang: str) -> dict:
    key, face, points, tai = item
    en, zh = _ITEM_NAMES[key]
    template = zh if lang == "zh" else en
    tile = "" if face is None else (face_label(face, "zh") if lang == "zh" else face_name(face))
    out = {"name": template.format(t=tile).strip()}
    if points:
        out["points"] = points
    if tai:
        out["tai"] = tai
    return out


# --- exposed melds -----------------------------------------------------------------------

def meld_contribution(meld: Meld, seat_wind: int):
    """(points, tai, has_chow, mask, items) of one declared meld."""
    if meld.kind == CHOW:
        return 0, 0, True, mask_of(meld.face), []
    face = meld.face
    if meld.kind == PUNG:
        pts, key = pung_points(face, False), "exposed_pung"
    elif meld.kind == KONG:
        pts, key = kong_points(face, False), "exposed_kong"
    else:
        pts, key = kong_points(face, True), "concealed_kong"
    items = [(key, face, pts, 0)]
    tai = set_tai(face, seat_wind)
    if tai:
        items.append(("seat_wind_set" if face == seat_wind else "dragon_set", face, 0, tai))
    return pts, tai, False, mask_of(face), items


# --- memoised decomposition of the concealed part ----------------------------------------
# A component table maps (jokers used, pair used, has chow, 台) -> (points, sets), keeping the
# best points for each signature. Sets are descriptors ("cpung"|"pair"|"chow", face).

def _better(table, key, pts, sets):
    old = table.get(key)
    if old is None or old[0] < pts:
        table[key] = (pts, sets)


@lru_cache(maxsize=200_000)
def _suit_table(suit: int, counts: tuple, jokers: int, pair_ok: bool):
    i = next((k for k in range(9) if counts[k]), -1)
    if i < 0:
        return {(0, 0, 0, 0): (0, ())}
    out: dict = {}
    base = suit * 9
    options = []
    for kind, lo, rest, need in set_takes(counts, i, pair_ok, True):
        if kind == "pung":
            options.append((rest, need, 0, 0, 8 if i in (0, 8) else 4, ("cpung", base + i)))
        elif kind == "pair":
            options.append((rest, need, 1, 0, 0, ("pair", base + i)))
        else:
            options.append((rest, need, 0, 1, 0, ("chow", base + lo)))
    for rest, need, is_pair, is_chow, pts, desc in options:
        if need > jokers:
            continue
        sub = _suit_table(suit, rest, jokers - need, pair_ok and not is_pair)
        for (ju, pr, ch, _t), (p, sets) in sub.items():
            _better(out, (ju + need, pr | is_pair, ch | is_chow, 0), p + pts, (desc,) + sets)
    return out


@lru_cache(maxsize=100_000)
def _honor_table(counts: tuple, jokers: int, pair_ok: bool, seat_wind: int):
    i = next((k for k in range(7) if counts[k]), -1)
    if i < 0:
        return {(0, 0, 0, 0): (0, ())}
    face = 27 + i
    out: dict = {}
    options = []
    for kind, _lo, rest, need in set_takes(counts, i, pair_ok, False):
        if kind == "pung":
            options.append((rest, need, 0, 8, set_tai(face, seat_wind), ("cpung", face)))
        else:
            options.append((rest, need, 1, pair_points(face, seat_wind), 0, ("pair", face)))
    for rest, need, is_pair, pts, tai, desc in options:
        if need > jokers:
            continue
        sub = _honor_table(rest, jokers - need, pair_ok and not is_pair, seat_wind)
        for (ju, pr, ch, t), (p, sets) in sub.items():
            _better(out, (ju + need, pr | is_pair, ch, t + tai), p + pts, (desc,) + sets)
    return out


def _merge(a, b, jokers, pair_max):
    out: dict = {}
    for (ja, pa, ca, ta), (pta, sa) in a.items():
        for (jb, pb, cb, tb), (ptb, sb) in b.items():
            j = ja + jb
            p = pa + pb
            if j > jokers or p > pair_max:
                continue
            _better(out, (j, p, ca | cb, ta + tb), pta + ptb, sa + sb)
    return out


def _remainder(counts, jokers: int, pair_needed: bool, seat_wind: int):
    """All signatures of decomposing `counts` (34 faces, none of them wild) + jokers into
    concealed sets (+ the pair when needed). Returns (table, mask of real tiles)."""
    pair_max = 1 if pair_needed else 0
    table = None
    mask = 0
    for suit in range(3):
        part = tuple(counts[suit * 9:suit * 9 + 9])
        if any(part):
            mask |= 1 << suit
            t = _suit_table(suit, part, jokers, pair_needed)
            table = t if table is None else _merge(table, t, jokers, pair_max)
            if not table:
                return {}, mask
    part = tuple(counts[27:34])
    if any(part):
        mask |= HONOR_BIT
        t = _honor_table(part, jokers, pair_needed, seat_wind)
        table = t if table is None else _merge(table, t, jokers, pair_max)
    if table is None:
        table = {(0, 0, 0, 0): (0, ())}
    return table, mask


def _free_options(left: int, pair_needed_now: bool, seat_wind: int):
    """Sets made only of jokers: (points, tai, mask, sets). `left` jokers must all be used."""
    if pair_needed_now:
        if left != 2:
            return []
        return [(2, 0, HONOR_BIT, (("pair", RED),))] + [
            (0, 0, 1 << s, (("pair", s * 9),)) for s in range(3)]
    if left == 0:
        return [(0, 0, 0, ())]
    if left != 3:
        return []
    opts = [(8, 1, HONOR_BIT, (("cpung", RED),)), (8, 1, HONOR_BIT, (("cpung", seat_wind),))]
    opts += [(8, 0, 1 << s, (("cpung", s * 9),)) for s in range(3)]
    return opts


# --- the winner --------------------------------------------------------------------------

def _win_set_options(counts, jokers: int, win_face, win_is_joker: bool, seat_wind: int):
    """Ways the winning tile completes a set: (rest counts, jokers left, pair_needed, desc)
    where desc = (kind, face, role): kind pair/pung/chow; role 'single', 'closed', 'pung', ''."""
    out = []

    def take(faces):
        c = list(counts)
        need = 0
        for f in faces:
            if c[f]:
                c[f] -= 1
            else:
                need += 1
        return c, need

    if win_is_joker:
        # a self-drawn wild may take any role; roles that score nothing are the plain case
        out.append((list(counts), jokers + 1, True, ("none", None, "")))
        for f in sorted(set(DRAGONS) | {seat_wind}):
            c, need = take([f])
            if need <= jokers:
                out.append((c, jokers - need, False, ("pair", f, "single")))
        for s in range(3):
            seen_all_joker = False
            for mid in range(1, 8):
                lo = s * 9 + mid - 1
                c, need = take([lo, lo + 2])
                if need > jokers:
                    continue
                if need == 2:
                    if seen_all_joker:
                        continue
                    seen_all_joker = True
                out.append((c, jokers - need, True, ("chow", lo, "closed")))
        return out

    f = win_face
    c, need = take([f])
    if need <= jokers:
        out.append((c, jokers - need, False, ("pair", f, "single")))
    c, need = take([f, f])
    if need <= jokers:
        out.append((c, jokers - need, True, ("pung", f, "pung")))
    if not is_honor(f):
        n = f % 9
        for pos in range(3):
            lo = f - pos
            if lo % 9 > 6 or n - pos < 0:
                continue
            others = [lo + k for k in range(3) if k != pos]
            c, need = take(others)
            if need <= jokers:
                role = "closed" if pos == 1 else ""
                out.append((c, jokers - need, True, ("chow", lo, role)))
    return out


def _best_win(concealed_counts, jokers, win_face, win_is_joker, exposed, seat_wind, self_drawn, rules):
    """Best (key, details) over all arrangements of one white assignment."""
    ex_pts, ex_tai, ex_chow, ex_mask = exposed
    best = None
    for rest, jl, pair_needed, desc in _win_set_options(concealed_counts, jokers, win_face, win_is_joker, seat_wind):
        kind, wface, role = desc
        w_pts = w_tai = w_mask = 0
        w_chow = False
        bonus = 0
        if kind == "pair":
            w_pts = pair_points(wface, seat_wind)
            if w_pts:
                bonus = 2  # 单吊 on own seat wind or a dragon
            w_mask = mask_of(wface)
        elif kind == "pung":
            w_pts = pung_points(wface, concealed=self_drawn)
            w_tai = set_tai(wface, seat_wind)
            w_mask = mask_of(wface)
        elif kind == "chow":
            w_chow = True
            w_mask = mask_of(wface)
            if role == "closed":
                bonus = 4 if self_drawn else 2  # 嵌档
        table, r_mask = _remainder(rest, jl, pair_needed, seat_wind)
        for (ju, pr, ch, tai), (pts, sets) in table.items():
            pair_now = pair_needed and not pr
            for f_pts, f_tai, f_mask, f_sets in _free_options(jl - ju, pair_now, seat_wind):
                has_chow = ex_chow or w_chow or bool(ch)
                mask = ex_mask | w_mask | r_mask | f_mask
                suits = mask & 7
                flush_tai = 0
                if suits in (1, 2, 4) and not mask & HONOR_BIT:
                    flush_tai = 3
                elif suits in (0, 1, 2, 4) and mask & HONOR_BIT:
                    flush_tai = 1
                points = ex_pts + w_pts + pts + f_pts + bonus + rules.reward
                if self_drawn:
                    points += 2
                if not has_chow:
                    points += 4
                total_tai = ex_tai + w_tai + tai + f_tai + flush_tai
                raw = points << total_tai
                key = (min(raw, rules.cap), raw, points)
                if best is None or key > best[0]:
                    best = (key, (desc, sets + f_sets, points, total_tai, flush_tai, has_chow))
    return best


def score_winner(hand, melds, win, self_drawn: bool, seat_wind: int, wild, rules: TaizhouRules = RULES) -> Score | None:
    """Score a winning hand. `hand` excludes the winning tile `win`; wilds are tiles of face
    `wild` (None for no wilds). Returns None when the tiles do not make a winning hand."""
    counts = [0] * NUM_FACES
    jokers = 0
    whites = 0
    for f in hand:
        if f == wild:
            jokers += 1
        elif f == WHITE and wild is not None:
            whites += 1
        else:
            counts[f] += 1
    win_is_joker = win == wild
    win_is_white = win == WHITE and wild is not None and wild != WHITE
    if win_is_white:
        whites += 1
    elif not win_is_joker:
        pass
    exposed_items = []
    ex_pts = ex_tai = ex_mask = 0
    ex_chow = False
    for m in melds:
        p, t, ch, mk, items = meld_contribution(m, seat_wind)
        ex_pts += p
        ex_tai += t
        ex_chow |= ch
        ex_mask |= mk
        exposed_items += items
    exposed = (ex_pts, ex_tai, ex_chow, ex_mask)

    best = None
    # whites: k stand in for the wild face, the rest are White dragons (白板 替财神 or 还原)
    stand_in = wild if (wild is not None and wild != WHITE) else None
    for k in range(whites + 1) if stand_in is not None else [0]:
        c = list(counts)
        roles = []
        if win_is_white:
            if k >= 1:
                roles.append((stand_in, k - 1, whites - k))
            if whites - k >= 1:
                roles.append((WHITE, k, whites - k - 1))
        else:
            roles.append((win, k, whites - k))
        for wface, as_x, as_white in roles:
            cc = list(c)
            if stand_in is not None:
                cc[stand_in] += as_x
                cc[WHITE] += as_white
            cand = _best_win(cc, jokers, None if win_is_joker else wface, win_is_joker, exposed, seat_wind, self_drawn, rules)
            if cand and (best is None or cand[0] > best[0]):
                best = cand
    if best is None:
        return None
    (total, raw, points), (desc, sets, points, tai, flush_tai, has_chow) = best
    items = list(exposed_items)
    kind, wface, role = desc
    for d, face in sets:
        if d == "cpung":
            items.append(("concealed_pung", face, pung_points(face, True), 0))
            t = set_tai(face, seat_wind)
            if t:
                items.append(("seat_wind_set" if face == seat_wind else "dragon_set", face, 0, t))
        elif d == "pair":
            p = pair_points(face, seat_wind)
            if p:
                items.append(("pair", face, p, 0))
    if kind == "pair":
        p = pair_points(wface, seat_wind)
        if p:
            items.append(("pair", wface, p, 0))
            items.append(("single_wait", wface, 2, 0))
    elif kind == "pung":
        items.append(("concealed_pung" if self_drawn else "exposed_pung", wface, pung_points(wface, self_drawn), 0))
        t = set_tai(wface, seat_wind)
        if t:
            items.append(("seat_wind_set" if wface == seat_wind else "dragon_set", wface, 0, t))
    elif kind == "chow" and role == "closed":
        items.append(("closed_wait", wface + 1, 4 if self_drawn else 2, 0))
    if self_drawn:
        items.append(("self_drawn", None, 2, 0))
    if not has_chow:
        items.append(("all_pungs", None, 4, 0))
    items.append(("reward", None, rules.reward, 0))
    if flush_tai == 3:
        items.append(("full_flush", None, 0, 3))
    elif flush_tai == 1:
        items.append(("half_flush", None, 0, 1))
    assert sum(i[2] for i in items) == points and sum(i[3] for i in items) == tai, (items, points, tai)
    return Score(True, points, tai, total, raw >= rules.cap, items, flush_tai == 3, (desc,) + tuple(sets))


def score_nonwinner(hand, melds, seat_wind: int, rules: TaizhouRules = RULES) -> Score:
    """A non-winner: wilds count as their own face, whites as whites (不能用得替代)."""
    counts = [0] * NUM_FACES
    for f in hand:
        counts[f] += 1
    items = []
    points = tai = 0
    for m in melds:
        p, t, _ch, _mk, its = meld_contribution(m, seat_wind)
        points += p
        tai += t
        items += its
    for face in range(NUM_FACES):
        n = counts[face]
        if n >= 3:
            p = pung_points(face, True)
            items.append(("concealed_pung", face, p, 0))
            points += p
            t = set_tai(face, seat_wind)
            if t:
                items.append(("seat_wind_set" if face == seat_wind else "dragon_set", face, 0, t))
                tai += t
        elif n == 2:
            p = pair_points(face, seat_wind)
            if p:
                items.append(("pair", face, p, 0))
                points += p
    raw = points << tai
    return Score(False, points, tai, min(raw, rules.cap), raw >= rules.cap, items)


# --- settlement (§9) ---------------------------------------------------------------------

def settle(seats, dealer, winner, totals, capped, liable=None, rules: TaizhouRules = RULES):
    """Transfers in 胡 between seats (seat names in turn order). `totals` maps seat -> total,
    `capped` seat -> bool; `liable` is the seat that pays in full for the winner (全包) or None.
    Returns (transfers, net) with amounts as int or x.5 floats."""
    transfers = []

    def pay(frm, to, amount):
        if amount > 0:
            transfers.append({"from": frm, "to": to, "amount": amount})
        elif amount < 0:
            transfers.append({"from": to, "to": frm, "amount": -amount})

    def portion(a, b, amount, full):
        if full or dealer in (a, b):
            return amount
        return amount / 2

    if winner is not None:
        win_total = totals[winner]
        win_capped = bool(capped.get(winner)) or win_total >= rules.cap
        owed = {}
        for s in seats:
            if s == winner:
                continue
            owed[s] = portion(s, winner, min(win_total, rules.cap), win_capped)
        if liable is not None and liable != winner and liable in owed:
            pay(liable, winner, sum(owed.values()))
        else:
            for s, amount in owed.items():
                pay(s, winner, amount)
        others = [s for s in seats if s != winner]
        for i, a in enumerate(others):
            for b in others[i + 1:]:
                diff = min(totals[b], rules.cap) - min(totals[a], rules.cap)
                pay(a, b, portion(a, b, diff, False))
    net = {s: 0 for s in seats}
    for t in transfers:
        net[t["from"]] -= t["amount"]
        net[t["to"]] += t["amount"]
    for t in transfers:
        t["amount"] = _num(t["amount"])
    return transfers, {s: _num(v) for s, v in net.items()}


def _num(x):
    return int(x) if float(x).is_integer() else x


# --- the variant object the state machine asks (variants/base.py) -----------------------

@dataclass(frozen=True)
class Taizhou(IndicatorWild, Variant):
    """台州麻将 (taizhou.md): 13 tiles, one indicator, whites stand in for the wild's face, any
    tile may be discarded, several wins on one discard go to the first claimant counting from
    the dealer, the wall is played to its last tile, 全包 liability, settlement in 胡."""

    name: str = VARIANT_ID
    title: tuple = (("zh", "台州麻将"), ("en", "Taizhou"))
    hand_size: int = RULES.hand_size
    white_stands_in: bool = True
    has_contract: bool = True
    playable: bool = True
    scoring: TaizhouRules = RULES  # reward, cap

    def is_winning(self, state, player, tiles) -> bool:
        return is_winning_tiles(tiles, state.indicator)

    def waits(self, state, tiles) -> list:
        return waits(tiles, state.indicator)

    def claim_rank(self, state, q, kind) -> tuple:
        """taizhou.md §3, rules README "Claims": win > pung/kong > chow. Among several wins the
        first claimant counting from the DEALER in turn order wins (seed 000, 捉冲 rule 6: 从庄家按
        逆时针方向，顺序在前者), whoever discarded. Other claims keep the discarder's turn order; it
        never decides anything (only one player can hold a pair of the discard, only the lower
        player may chow) but keeps the order total. The discarder never claims."""
        origin = state.dealer if kind == "win" else state.turn
        return (CLAIM_RANK[kind], -((q - origin) % state.n))

    def opening_win_tile(self, state, player):
        """The dealer's opening 14 (天胡): no tile was drawn, so take the tile that scores best."""
        hand = state.hands[player]
        sw = state.seat_wind(player)

        def value(t):
            rest = list(hand)
            rest.remove(t)
            s = score_winner(rest, state.melds[player], t, True, sw, state.indicator, self.scoring)
            return (-1, 0, 0) if s is None else (s.total, s.points << s.tai, -t)

        return max(sorted(set(hand)), key=value)

    def settle_win(self, state, winner, tile, discarder) -> Result:
        """Score everyone, apply 全包 liability (§9), settle in 胡."""
        n = state.n
        self_drawn = discarder is None
        scores = []
        for q in range(n):
            sw = state.seat_wind(q)
            if q == winner:
                s = score_winner(state.hands[q], state.melds[q], tile, self_drawn, sw, state.indicator, self.scoring)
            else:
                s = score_nonwinner(state.hands[q], state.melds[q], sw, self.scoring)
            scores.append(s)
        liable, reason = self.liability(state, winner, tile, discarder, scores[winner])
        seats = [state.seat_name(q) for q in range(n)]
        order = sorted(range(n), key=lambda q: (q - state.dealer) % n)
        totals = {seats[q]: scores[q].total for q in range(n)}
        capped = {seats[q]: scores[q].capped for q in range(n)}
        transfers, net = settle([seats[q] for q in order], seats[state.dealer], seats[winner], totals, capped,
                                None if liable is None else seats[liable], self.scoring)
        index = {seats[q]: q for q in range(n)}
        transfers = tuple({"from": index[t["from"]], "to": index[t["to"]], "amount": t["amount"]} for t in transfers)
        return Result(winner, discarder, tile, self_drawn, tuple(scores), transfers,
                      tuple(net[seats[q]] for q in range(n)), liable, reason)

    def liability(self, state, winner, tile, discarder, score):
        """全包: who pays for everyone, and why (taizhou.md §9): (player, reason) or (None, None)."""
        n = state.n
        candidate, reason = None, None
        upper = (winner - 1) % n
        if score.full_flush and state.chows_from_upper[winner] >= 3 and upper != winner:
            candidate, reason = upper, "full_flush_chows"
        elif discarder is not None and tile in DRAGONS:
            # only sets the discarder could see: claimed pungs, exposed or added kongs; a concealed
            # kong lies face down and does not count (taizhou.md §9 case 3; seed 000: 中發白任意兩者碰了)
            exposed = {m.face for m in state.melds[winner] if m.kind in (PUNG, KONG) and m.face in DRAGONS}
            desc = score.sets[0] if score.sets else None
            if len(exposed - {tile}) >= 2 and desc and desc[0] == "pung" and desc[1] == tile:
                candidate, reason = discarder, "third_dragon"
            elif state.seen[tile] == 1 and state.discard_ready:
                # the discard itself is the only one of its face shown: a fresh tile (生牌)
                candidate, reason = discarder, "fresh_dragon"
        if candidate is None or self.exempt(state, candidate):
            return None, None
        return candidate, reason

    def exempt(self, state, q) -> bool:
        """A liable player with 3 台 of their own, or ready with a full flush, is exempt."""
        sw = state.seat_wind(q)
        if score_nonwinner(state.hands[q], state.melds[q], sw, self.scoring).tai >= 3:
            return True
        hand = state.hands[q]
        for f in waits(hand, state.indicator):
            s = score_winner(hand, state.melds[q], f, True, sw, state.indicator, self.scoring)
            if s is not None and s.full_flush:
                return True
        return False

    # --- the JSON contracts ---
    @property
    def cap(self):
        return self.scoring.cap

    def score_winner(self, hand, melds, win, self_drawn, seat_wind, wild):
        return score_winner(hand, melds, win, self_drawn, seat_wind, wild, self.scoring)

    def score_nonwinner(self, hand, melds, seat_wind):
        return score_nonwinner(hand, melds, seat_wind, self.scoring)

    def settle(self, seats, dealer, winner, totals, capped, liable=None):
        return settle(seats, dealer, winner, totals, capped, liable, self.scoring)


VARIANT = Taizhou()
