"""Zhuji mahjong (诸暨麻将): wild faces, 台 counting, the 翻 and 包 payments. Spec:
shared/rules/zhuji.md (§ numbers below are its sections; Z-D… its published decisions; the
site's own rulings where the spec is silent are marked DECISION and numbered Z-S…).

Registered as "zhuji"; the JSON contracts route here (`has_contract`); offered for new rooms
(`playable`) with its settings mode, wild_faces and unit (`room_options`).

A Zhuji hand has no indicator: none, one or two wild faces are drawn at random after the deal
(in 包 after the dealer has named the contract), all four tiles of each face wild (§2). A win is
four sets + a pair with at least 1 台 (the dealer in 包: at least the contracted 台). The wilds
take whatever faces give the most 台 (§4).

`best_tai` searches a winning hand's arrangements once, wilds as jokers, keeping per
arrangement only what the 台 depend on (a "profile"); `score` turns the best into the §8
`score_hands` answer; `settle` pays a hand as §5 / §8 `settle_hands`. `score_request` /
`settle_request` read the JSON contract objects (never raise: `{"ok": false, "error": ...}`).

The site's rulings (DECISION comments below; published as Z-S1…):
- Z-S1  the 包 contract choices: target 2-6 台, 0/1/2 wild faces ("target:faces").
- Z-S2  the faces are drawn from the hand's seed (a generator apart from the wall's shuffle).
- Z-S3  a wild stands for any face, even a fifth tile of a face (as Taizhou and Wenzhou read
        "any tile").
- Z-S4  独 counts the faces a natural tile could complete; a wild tile, which completes every
        ready hand, is not a face of the wait.
- Z-S5  a passed pung is any answer but pung, kong or win to a discard that offered a pung (a
        chow instead declines it too); it blocks pungs only, not an exposed kong.
- Z-S6  in 包 the draw that leaves 26 tiles is the last: that tile may win self-drawn and its
        discard may be won on (not claimed otherwise), as at the end of the wall in 翻.
- Z-S7  the 台 items are named by the spec's Chinese terms whatever the language (§8's
        example); `ITEM_EN` glosses them.
- Z-S8  room unit 底分 choices 1, 2, 5, 10.
- Z-S9  settle_hands refuses a dealer's 包 win below the target (score_hands does too).
- Z-S10 the escape penalty (Z-D11) is 30 units shared equally (10 each of three, 15 each of
        two, 30 to the one other player).
- Z-S11 a dealer's win on the dealt fourteen (天胡): the highest natural tile is the winning
        one; 独 is judged on the other thirteen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from ..events import A_CHOW, A_KONG, A_PUNG, A_WIN
from ..melds import CHOW, Meld, make_meld, split_meld
from ..requests import RequestError, flag, read_hand, read_head, whole
from ..tiles import (
    EAST,
    GREEN,
    NUM_FACES,
    RED,
    SEAT_NAMES,
    SEAT_WIND,
    WHITE,
    TileError,
    face_name,
    parse_tile,
)
from ..winning import MAX_JOKERS, is_complete
from .base import Decision, Result, RoomOptions, Setting, Variant

VARIANT_ID = "zhuji"
MODES = ("fan", "bao")
WILD_COUNTS = (0, 1, 2)
TARGETS = (2, 3, 4, 5, 6)  # DECISION (Z-S1): the contract's target 台 offered at the table
UNITS = (1, 2, 5, 10)  # DECISION (Z-S8): the room's 底分
BAO_RESERVE = 26  # §5: in 包 the hand ends at 26 tiles left
ESCAPE_UNITS = 30  # §3 / Z-D11: 逃跑 costs 30 × unit
HONOR_BIT = 8

# DECISION (Z-S7): the 台 items are named by the spec's terms (§8's example) in either language;
# their English words, for the site
ITEM_EN = {
    "平胡": "all chows",
    "碰碰胡": "all pungs",
    "屁胡": "mixed shape",
    "混一色": "half flush",
    "清一色": "full flush",
    "全风字": "all honours",
    "圈风": "prevailing wind (East)",
    "位置": "seat wind",
    "中": "Red dragon",
    "发": "Green dragon",
    "白": "White dragon",
    "无财": "no wild",
    "杠开": "win on a kong's replacement",
    "抢杠": "robbing a kong",
}
DRAGON_NAME = {RED: "中", GREEN: "发", WHITE: "白"}


# --- 台 of one arrangement (§4) ---------------------------------------------------------------

def honor_values(seat: str) -> tuple:
    """台 of a pung/kong of each honour for this seat (E = the dealer): East 圈风 1 (+ 位置 1 for
    the dealer), own seat wind 1, each dragon 1; other winds nothing."""
    v = [0] * 7
    v[0] = 2 if seat == "E" else 1
    if seat != "E":
        v[SEAT_WIND[seat] - EAST] += 1
    for d in (WHITE, GREEN, RED):
        v[d - EAST] = 1
    return tuple(v)


def set_items(face: int, seat: str) -> list:
    """The items of one pung/kong (names, 台)."""
    if face < EAST:
        return []
    if face == EAST:
        return [("圈风", 1)] + ([("位置", 1)] if seat == "E" else [])
    if face in DRAGON_NAME:
        return [(DRAGON_NAME[face], 1)]
    return [("位置", 1)] if face == SEAT_WIND[seat] else []


def _mask(face: int) -> int:
    return HONOR_BIT if face >= EAST else 1 << (face // 9)


# A profile: what the 台 of an arrangement depend on: (has chow, has pung, colour mask, honour
# 台, honour pung faces). The last is kept only to name the items.

def shape_colour(has_chow: bool, has_pung: bool, mask: int) -> list:
    """Items of the shape and colour (§4, Z-D4)."""
    suits = mask & 7
    honors = bool(mask & HONOR_BIT)
    if not suits:
        return [("全风字", 6)]
    if has_chow and not has_pung:
        items = [("平胡", 1)]
    elif has_pung and not has_chow:
        items = [("碰碰胡", 1)]
    else:
        items = [("屁胡", 0)]
    if suits in (1, 2, 4):
        items.append(("混一色", 1) if honors else ("清一色", 3))
    return items


def profile_tai(profile) -> int:
    has_chow, has_pung, mask, htai, _ = profile
    return sum(t for _, t in shape_colour(has_chow, has_pung, mask)) + htai


def _join(a, b):
    return (a[0] or b[0], a[1] or b[1], a[2] | b[2], a[3] + b[3], tuple(sorted(a[4] + b[4])))


EMPTY = (False, False, 0, 0, ())


@lru_cache(maxsize=200_000)
def _arrangements(counts: tuple, jokers: int, pair_used: bool, hv: tuple) -> frozenset:
    """Every (profile, jokers left, pair used) of splitting the natural tiles `counts` into sets
    and at most one pair, wilds filling gaps (the lowest natural tile's set is chosen, its other
    slots taking natural tiles where there are some: swapping a wild for an equal natural tile
    changes no set, so this reaches every arrangement). DECISION (Z-S3): a wild may stand for
    any face, even a fifth tile of a face (no count is checked), as Taizhou and Wenzhou read
    "any tile"."""
    i = next((k for k in range(NUM_FACES) if counts[k]), -1)
    if i < 0:
        return frozenset({(EMPTY, jokers, pair_used)})
    options = [("pung", (i, i, i))]
    if not pair_used:
        options.append(("pair", (i, i)))
    if i < EAST:
        for lo in (i - 2, i - 1, i):
            if lo >= (i // 9) * 9 and lo + 2 < (i // 9) * 9 + 9:
                options.append(("chow", (lo, lo + 1, lo + 2)))
    out = set()
    for kind, faces in options:
        c = list(counts)
        need = 0
        for f in faces:
            if c[f]:
                c[f] -= 1
            else:
                need += 1
        if need > jokers:
            continue
        if kind == "chow":
            piece = (True, False, _mask(i), 0, ())
        elif kind == "pung":
            v = hv[i - EAST] if i >= EAST else 0
            piece = (False, True, _mask(i), v, (i,) if v else ())
        else:
            piece = (False, False, _mask(i), 0, ())
        for prof, left, pu in _arrangements(tuple(c), jokers - need, pair_used or kind == "pair", hv):
            out.add((_join(piece, prof), left, pu))
    return frozenset(out)


def _free_pieces(hv: tuple) -> list:
    """What a set of wilds alone may be, one of each kind that scores differently: a chow or a
    pung of each suit, the honour pung worth most for this seat (a wind of another seat is worth
    no more than a dragon)."""
    out = []
    for s in range(3):
        out.append((True, False, 1 << s, 0, ()))
        out.append((False, True, 1 << s, 0, ()))
    best = max(range(7), key=lambda k: (hv[k], -k))
    out.append((False, True, HONOR_BIT, hv[best], (EAST + best,) if hv[best] else ()))
    return out


def _free_pairs() -> list:
    return [(False, False, 1 << s, 0, ()) for s in range(3)] + [(False, False, HONOR_BIT, 0, ())]


@lru_cache(maxsize=200_000)
def _best(counts: tuple, jokers: int, melds_profile: tuple, hv: tuple):
    """The best profile (most 台) of the concealed tiles (natural `counts` + `jokers` wilds) with
    the shown sets' profile, or None when they make no four sets + a pair."""
    best = None
    best_tai = -1
    free = _free_pieces(hv)
    pairs = _free_pairs()
    for prof, left, pair_used in sorted(_arrangements(counts, jokers, False, hv)):
        rest = left - (0 if pair_used else 2)
        if rest < 0 or rest % 3:
            continue
        k = rest // 3
        tails = [EMPTY]
        for _ in range(k):
            tails = [_join(t, p) for t in tails for p in free]
        if not pair_used:
            tails = [_join(t, p) for t in tails for p in pairs]
        base = _join(prof, melds_profile)
        for t in tails:
            full = _join(base, t)
            tai = profile_tai(full)
            if tai > best_tai:
                best, best_tai = full, tai
    return best


def meld_profile(melds, seat: str) -> tuple:
    hv = honor_values(seat)
    prof = EMPTY
    for m in melds:
        if m.kind == CHOW:
            prof = _join(prof, (True, False, _mask(m.face), 0, ()))
        else:
            v = hv[m.face - EAST] if m.face >= EAST else 0
            prof = _join(prof, (False, True, _mask(m.face), v, (m.face,) if v else ()))
    return prof


NO_HONOURS = (0,) * 7
# the faces a tile may share a set with: itself for an honour, two either side in its suit
NEIGHBOURS = tuple((f,) if f >= EAST else tuple(range(max(f - 2, f // 9 * 9), min(f + 2, f // 9 * 9 + 8) + 1))
                   for f in range(NUM_FACES))


def complete(counts, jokers: int) -> bool:
    """Do natural `counts` + `jokers` wilds make whole sets and one pair? winning.is_complete
    fills at most MAX_JOKERS gaps with wilds; Zhuji has up to eight, so a hand with more is asked
    of the arrangement search."""
    if jokers <= MAX_JOKERS:
        return is_complete(counts, jokers)
    return any(left >= (0 if pu else 2) and (left - (0 if pu else 2)) % 3 == 0
               for _, left, pu in _arrangements(tuple(counts), jokers, False, NO_HONOURS))


def _split(tiles, wilds):
    counts = [0] * NUM_FACES
    jokers = 0
    for t in tiles:
        if t in wilds:
            jokers += 1
        else:
            counts[t] += 1
    return tuple(counts), jokers


def best_tai(tiles, melds, wilds, seat: str):
    """(台 of the shape, colour and sets, the best profile) of concealed `tiles` (the winning
    one included) with shown `melds`, or (None, None) when they are no four sets + a pair."""
    counts, jokers = _split(tiles, wilds)
    if not complete(counts, jokers):
        return None, None
    prof = _best(counts, jokers, meld_profile(melds, seat), honor_values(seat))
    return profile_tai(prof), prof


def single_wait(concealed, melds, wilds) -> bool:
    """独 (§4): the hand before the winning tile is completed by one face only, every use of the
    wilds counted. DECISION (Z-S4): the faces are those of natural tiles; a wild tile, which
    completes any ready hand, is not one (so 独 exists in hands with wilds too)."""
    counts, jokers = _split(concealed, wilds)
    found = 0
    for f in range(NUM_FACES):
        if f in wilds:
            continue
        c = list(counts)
        c[f] += 1
        if complete(c, jokers):
            found += 1
            if found > 1:
                return False
    return found == 1


# --- scoring (§4, §8 score_hands) ------------------------------------------------------------

@dataclass(frozen=True)
class Score:
    winner: bool
    tai: int = 0
    items: tuple = ()  # (name, 台) pairs
    no_wild: bool = False
    single_wait: bool = False

    @property
    def total(self) -> int:
        """The win's worth in units (w / unit = 2^(台 − 1)); the contract is settled apart."""
        return 2 ** (self.tai - 1) if self.winner and self.tai >= 1 else 0

    def as_dict(self, lang: str = "en") -> dict:
        """§8 score_hands output (item names: Z-S7)."""
        return {"ok": True, "winner": self.winner, "points": 1 if self.winner else 0, "tai": self.tai,
                "total": self.total, "capped": False, "no_wild": self.no_wild,
                "single_wait": self.single_wait,
                "items": [{"name": n, "tai": t} for n, t in self.items]}


class NotAWin(ValueError):
    pass


def score(concealed, melds, win, wilds, self_drawn: bool, seat: str = "S", *, robbed_kong: bool = False,
          kong_replacement: bool = False, mode: str = "fan", target: int = 2) -> Score:
    """Score one winner (§4). `concealed` = the hand WITHOUT the winning tile `win`; `wilds` =
    the wild faces (a tuple, maybe empty). Raises NotAWin with the reason."""
    wilds = tuple(wilds)
    if win in wilds and not self_drawn:
        raise NotAWin("a discarded wild is never won on")
    tiles = list(concealed) + [win]
    tai, prof = best_tai(tiles, melds, wilds, seat)
    if prof is None:
        raise NotAWin("these tiles do not make four sets and a pair")
    items = shape_colour(prof[0], prof[1], prof[2])
    for f in prof[4]:
        items += set_items(f, seat)
    no_wild = bool(wilds) and not any(t in wilds for t in tiles)  # Z-D9: only in hands with wilds
    if no_wild:
        items.append(("无财", 1))
    if kong_replacement:
        items.append(("杠开", 1))
    if robbed_kong:
        items.append(("抢杠", 1))
    tai = sum(t for _, t in items)
    if tai < 1:
        raise NotAWin("0 台: a win needs at least 1 台 (屁胡 alone cannot win)")
    if mode == "bao" and seat == "E" and tai < target:
        raise NotAWin(f"{tai} 台: in 包 the dealer needs at least the contracted {target} 台")
    return Score(True, tai, tuple(items), no_wild, single_wait(concealed, melds, wilds))


def score_nonwinner() -> Score:
    return Score(False)


# --- settlement (§5, §8 settle_hands) --------------------------------------------------------

def contract_value(target: int, unit: int = 1) -> int:
    """c = unit × 5 × 2^(target − 2) (2 台 = 5, 3 台 = 10, …)."""
    return unit * 5 * 2 ** (target - 2)


def settle(seats, mode, dealer, winner, discarder=None, tai=None, unit=1, laozhuang=False, target=2,
           no_wild=False, single_wait=False):
    """(transfers, net) in units; `seats` the seated players. Transfers are listed payer by payer
    in seat order, each payer's contract share (why "contract") before their part of the win
    (why "win"); nothing of 0 is listed.
    - 翻 (§5): self-drawn, each other pays 2w; on a discard (or a robbed kong) the discarder pays
      2w and each other w; w = unit × 2^(台 − 1). A drawn hand pays nothing (Z-D12).
    - 包: c = contract_value(target, unit), doubled for a dealer's win that is 无财 and doubled
      for 独 (Z-D1); the dealer self-draws: each other pays c + 2w; a non-dealer self-draws:
      the dealer pays (n − 1)c + 2w, each other 2w (Z-D2); on a discard the discarder pays
      (n − 1)c + 2w, each other w (Z-D3); no winner: the contract fails, the dealer pays c to
      each other player.
    - 老庄: every amount doubled, once (Z-D6)."""
    n = len(seats)
    mult = 2 if laozhuang else 1
    transfers = []

    def pay(frm, to, amount, why):
        if amount:
            transfers.append({"from": frm, "to": to, "amount": amount * mult, "why": why})

    c = contract_value(target, unit)
    if winner is None:
        if mode == "bao":
            for s in seats:
                if s != dealer:
                    pay(dealer, s, c, "contract")
    else:
        w = unit * 2 ** (tai - 1)
        if mode == "bao" and winner == dealer:
            c *= (2 if no_wild else 1) * (2 if single_wait else 1)
        for s in seats:
            if s == winner:
                continue
            share = 0
            if mode == "bao":
                if discarder is None:
                    share = c if winner == dealer else ((n - 1) * c if s == dealer else 0)
                elif s == discarder:
                    share = (n - 1) * c
            pay(s, winner, share, "contract")
            pay(s, winner, 2 * w if discarder is None or s == discarder else w, "win")
    net = {s: 0 for s in seats}
    for t in transfers:
        net[t["from"]] -= t["amount"]
        net[t["to"]] += t["amount"]
    return transfers, net


def escape_transfers(seats, leaver, unit=1):
    """Z-D11: leaving a game in progress costs 30 × unit, shared equally by the other players
    (DECISION Z-S10: 10 each of three, 15 each of two, 30 to one); never doubled by 老庄."""
    others = [s for s in seats if s != leaver]
    each = ESCAPE_UNITS * unit // len(others)
    return [{"from": leaver, "to": s, "amount": each, "why": "escape"} for s in others]


# --- the JSON contracts (§8) ------------------------------------------------------------------

def parse_meld(text, wilds) -> Meld:
    kind, faces = split_meld(text)
    for f in faces:
        if f in wilds:
            raise RequestError(f"a wild ({face_name(f)}) is never part of a shown set")
    return make_meld(kind, faces, None)


def _wild_faces(req) -> tuple:
    if req.get("wilds") is not None and req.get("wild") not in (None, ""):
        raise RequestError("give the wild faces as wilds (a list), not both wilds and wild")
    raw = req.get("wilds")
    if raw is None:
        one = req.get("wild")
        raw = [] if one in (None, "") else [one]
    if not isinstance(raw, list) or any(not isinstance(x, str) for x in raw):
        raise RequestError("wilds must be a list of faces like [\"5p\"] (or [] for none)")
    faces = [parse_tile(x) for x in raw]
    if len(faces) > 2:
        raise RequestError("at most two wild faces")
    if len(set(faces)) != len(faces):
        raise RequestError("the wild faces must differ")
    return tuple(faces)


def _mode(req) -> str:
    mode = req.get("mode", "fan")
    if mode is None:
        mode = "fan"
    if mode not in MODES:
        raise RequestError(f"mode must be fan or bao (got {mode!r})")
    return mode


def score_request(req) -> dict:
    """§8 score_hands for one request object."""
    try:
        lang, seat = read_head(req, VARIANT_ID)
        wilds = _wild_faces(req)
        mode = _mode(req)
        target = whole(req, "target", 2, 2)
        hand, melds, win = read_hand(req, wilds, parse_meld)
        self_drawn = flag(req, "self_drawn")
        robbed = flag(req, "robbed_kong")
        kong_rep = flag(req, "kong_replacement")
        expected = 13 - 3 * len(melds)
        if expected < 1:
            raise RequestError(f"too many melds ({len(melds)})")
        if len(hand) != expected:
            raise RequestError(
                f"hand has {len(hand)} tiles; with {len(melds)} meld(s) it must have {expected}"
                + (" (the winning tile goes in win, not in hand)" if win is not None and len(hand) == expected + 1
                   else ""))
        physical = list(hand) + [t for m in melds for t in m.tiles] + ([] if win is None else [win])
        for f in sorted(set(physical)):
            if physical.count(f) > 4:
                raise RequestError(f"{physical.count(f)} copies of {face_name(f)}: there are only 4")
        if win is None:
            if self_drawn or robbed or kong_rep:
                raise RequestError("self_drawn, robbed_kong and kong_replacement need a winning tile (win)")
            return score_nonwinner().as_dict(lang)
        if robbed and self_drawn:
            raise RequestError("robbed_kong needs self_drawn: false")
        if kong_rep and not self_drawn:
            raise RequestError("kong_replacement needs self_drawn: true")
        if kong_rep and not any(m.is_kong for m in melds):
            raise RequestError("kong_replacement needs a kong in melds")
        if win in wilds and not self_drawn:
            raise RequestError(f"a discarded wild ({face_name(win)}) cannot be won on")
        s = score(hand, melds, win, wilds, self_drawn, seat, robbed_kong=robbed, kong_replacement=kong_rep,
                  mode=mode, target=target)
        return s.as_dict(lang)
    except (RequestError, TileError, NotAWin) as e:
        return {"ok": False, "error": str(e)}


def settle_request(req) -> dict:
    """§8 settle_hands for one request object."""
    try:
        if not isinstance(req, dict) or req.get("variant") != VARIANT_ID:
            raise RequestError("not a zhuji request")
        mode = _mode(req)
        seats = req.get("seats", list(SEAT_NAMES))
        if seats is None:
            seats = list(SEAT_NAMES)
        if (not isinstance(seats, list) or not 2 <= len(seats) <= 4 or any(s not in SEAT_NAMES for s in seats)
                or len(set(seats)) != len(seats)):
            raise RequestError("seats must list 2-4 different seats of E, S, W, N")
        dealer, winner, discarder = req.get("dealer"), req.get("winner"), req.get("discarder")
        if dealer not in seats:
            raise RequestError(f"the dealer {dealer!r} is not seated")
        if winner is not None and winner not in seats:
            raise RequestError(f"the winner {winner!r} is not seated")
        if discarder is not None:
            if discarder not in seats:
                raise RequestError(f"the discarder {discarder!r} is not seated")
            if winner is None:
                raise RequestError("a discarder needs a winner")
            if discarder == winner:
                raise RequestError("the discarder must be another player than the winner")
        unit = whole(req, "unit", 1, 1)
        target = whole(req, "target", 2, 2)
        laozhuang = flag(req, "laozhuang")
        no_wild = flag(req, "no_wild")
        single = flag(req, "single_wait")
        tai = req.get("tai")
        if winner is not None:
            if tai is None:
                raise RequestError("a winner needs tai (the winner's 台)")
            if isinstance(tai, bool) or not isinstance(tai, int) or tai < 1:
                raise RequestError(f"tai must be a whole number of 1 or more (got {tai!r})")
            if mode == "bao" and winner == dealer and tai < target:
                # DECISION (Z-S9): the dealer cannot win below the contract (score_hands refuses too)
                raise RequestError(f"in 包 the dealer wins with at least the target ({target} 台), not {tai}")
        transfers, net = settle(seats, mode, dealer, winner, discarder, tai, unit, laozhuang, target, no_wild,
                                single)
        return {"ok": True, "transfers": transfers, "net": net}
    except RequestError as e:
        return {"ok": False, "error": str(e)}


# --- the variant object (variants/base.py) ----------------------------------------------------

def contract_choices(default_faces: int) -> tuple:
    """The 包 contract's choices "target:faces" (Z-S1), the default (target 2, the room's number
    of faces) first: auto_action answers choices[0]."""
    first = f"2:{default_faces}"
    rest = [f"{t}:{k}" for t in TARGETS for k in WILD_COUNTS if f"{t}:{k}" != first]
    return (first, *rest)


def draw_faces(seed: int, count: int) -> tuple:
    """`count` different wild faces drawn at random for the hand with this seed. DECISION
    (Z-S2): from a Random(seed * 11 + 3), apart from the wall's shuffle, so a replay agrees;
    the first face is the same whether one or two are drawn."""
    rng = random.Random(seed * 11 + 3)
    faces = []
    while len(faces) < count:
        f = rng.randrange(NUM_FACES)
        if f not in faces:
            faces.append(f)
    return tuple(faces)


@dataclass(frozen=True)
class Zhuji(Variant):
    """诸暨麻将 (zhuji.md): 13 tiles, no indicator; none, one or two wild faces drawn after the
    deal (in 包 after the dealer's contract, a question before the first turn); no white
    stand-in; wilds may be discarded (Z-D13); a passed pung or win waits for the next draw; 抢杠
    on an added kong; 台 counting with 1 台 to win; 翻 or 包 payments, 老庄 doubling."""

    name: str = VARIANT_ID
    title: tuple = (("zh", "诸暨麻将"), ("en", "Zhuji"))
    robbing_kong: bool = True  # §3 抢杠 (a concealed kong cannot be robbed, Z-D7)
    has_contract: bool = True
    playable: bool = True
    room_options: RoomOptions = field(default_factory=lambda: RoomOptions(settings=(
        Setting("mode", MODES, "fan"),
        Setting("wild_faces", WILD_COUNTS, 1),
        Setting("unit", UNITS, 1),
    )))

    def score_json(self, req) -> dict:
        return score_request(req)

    def settle_json(self, req) -> dict:
        return settle_request(req)

    # --- room settings ---
    def mode(self, state) -> str:
        return state.options.setting("mode")

    def unit(self, state) -> int:
        return state.options.setting("unit")

    def contract(self, state):
        """(target, number of faces) named by the dealer in 包, or None (翻, or not yet named)."""
        c = state.get_extra("contract")
        return tuple(c) if c is not None else None

    def target(self, state):
        c = self.contract(state)
        return c[0] if c is not None else None

    def laozhuang(self, state) -> bool:
        return bool(state.get_extra("laozhuang", False))

    # --- the deal and the wilds (§2) ---
    def turn_up(self, rest):
        return None, rest  # no indicator: nothing is taken out

    def wild_faces(self, state) -> tuple:
        return tuple(state.get_extra("wilds", ()))

    def pre_hand(self, state):
        """包: the dealer names the contract before the first discard (§5)."""
        if self.mode(state) == "bao" and state.get_extra("contract") is None:
            return Decision("contract", (state.dealer,), contract_choices(state.options.setting("wild_faces")))
        return None

    def decided(self, state, decision, answers):
        if decision.name == "contract":
            target, faces = (int(x) for x in answers[state.dealer].split(":"))
            return state.with_extra("contract", (target, faces))
        return super().decided(state, decision, answers)

    def before_play(self, state, events):
        """§2: the faces are drawn after the deal (in 包 once the contract is named) and shown to
        all before the first discard (`table_info`; no event: the log's event types are the
        table's)."""
        c = self.contract(state)
        count = c[1] if c is not None else state.options.setting("wild_faces")
        return state.with_extra("wilds", draw_faces(state.seed, count)), events

    # --- claims (§3) ---
    def exhausted(self, state) -> bool:
        """The last draw is done: the wall is empty (翻) or down to 26 tiles (包). DECISION
        (Z-S6): in 包 the draw that leaves 26 tiles is the last; that tile may win self-drawn, its
        discard may be won on (and not claimed otherwise), as at the end of the wall in 翻."""
        return len(state.wall) <= (BAO_RESERVE if self.mode(state) == "bao" else 0)

    def passed_pungs(self, state, player) -> tuple:
        return dict(state.get_extra("passed_pungs", ())).get(player, ())

    def _set_passed(self, state, player, faces):
        table = dict(state.get_extra("passed_pungs", ()))
        if faces:
            table[player] = tuple(sorted(faces))
        else:
            table.pop(player, None)
        return state.with_extra("passed_pungs", tuple(sorted(table.items())))

    def answered(self, state, player, options, response):
        """§3: a player who passes a pung may not pung that face until their own next draw.
        DECISION (Z-S5): declining = answering anything but pung, kong or win. (A passed win is
        the state machine's temporary furiten, cleared by the same draw.)"""
        if A_PUNG in options and response.kind not in (A_PUNG, A_KONG, A_WIN):
            state = self._set_passed(state, player, set(self.passed_pungs(state, player)) | {state.last_discard})
        return state

    def after_draw(self, state, player, tile, events):
        if self.passed_pungs(state, player):
            state = self._set_passed(state, player, ())
        return state, events

    def claim_options(self, state, player, tile, last: bool) -> tuple:
        """§3: wilds are never claimed; a win needs its 台 (抢杠 counts when state.robbing);
        pung/kong/chow not on the last discard (nor on a robbed tile), no kong once the wall is
        done, no pung of a face passed since the player's last draw, chow only by the lower
        player."""
        if self.is_wild(state, tile):
            return ()
        opts = []
        robbing = bool(state.robbing)
        hand = list(state.hands[player])
        if tile not in state.furiten[player] and self.wins_with(state, player, hand + [tile], robbed=robbing):
            opts.append(A_WIN)
        if not last and not robbing:
            same = hand.count(tile)
            if same >= 2 and tile not in self.passed_pungs(state, player):
                opts.append(A_PUNG)
            if same >= 3 and not self.exhausted(state):
                opts.append(A_KONG)
            if player == (state.turn + 1) % state.n and self.chow_options(state, player, tile):
                opts.append(A_CHOW)
        return tuple(opts)

    def chow_options(self, state, player, tile):
        """Pairs of `player`'s natural tiles that chow `tile` (no stand-in: the base's answer,
        looked up directly)."""
        if tile >= EAST or self.is_wild(state, tile):
            return []
        hand = state.hands[player]
        wilds = self.wild_faces(state)
        lo, hi = (tile // 9) * 9, (tile // 9) * 9 + 8
        out = []
        for a, b in ((tile - 2, tile - 1), (tile - 1, tile + 1), (tile + 1, tile + 2)):
            if lo <= a and b <= hi and a not in wilds and b not in wilds and a in hand and b in hand:
                out.append((a, b))
        return out

    def waits(self, state, tiles) -> list:
        """Faces completing these concealed tiles into four sets + a pair (the shape only)."""
        wilds = self.wild_faces(state)
        counts, jokers = _split(tiles, wilds)
        counts = list(counts)
        near = set()
        for t in range(NUM_FACES):
            if counts[t]:
                near.update(NEIGHBOURS[t])
        out = []
        alone = None  # a face with no natural tile near it can only go with wilds: one answer for all
        for f in range(NUM_FACES):
            if f in wilds:
                ok = complete(counts, jokers + 1)
            else:
                isolated = f not in near
                if isolated and alone is not None:
                    ok = alone
                else:
                    counts[f] += 1
                    ok = complete(counts, jokers)
                    counts[f] -= 1
                    if isolated:
                        alone = ok
            if ok:
                out.append(f)
        return out

    # --- winning (§4) ---
    def _seat(self, state, player) -> str:
        return state.seat_name(player)

    def need(self, state, player) -> int:
        """台 needed to win: 1; the dealer in 包 the contracted target."""
        if self.mode(state) == "bao" and player == state.dealer:
            return self.target(state) or 2
        return 1

    def wins_with(self, state, player, tiles, robbed=False, kong_replacement=False) -> bool:
        wilds = self.wild_faces(state)
        tai, prof = best_tai(tiles, state.melds[player], wilds, self._seat(state, player))
        if prof is None:
            return False
        if wilds and not any(t in wilds for t in tiles):
            tai += 1  # 无财
        tai += int(robbed) + int(kong_replacement)
        return tai >= self.need(state, player)

    def is_winning(self, state, player, tiles) -> bool:
        """Four sets + a pair (player None: the shape only, for waits); with a player, at least the
        台 they need, 杠开 counted on their own turn after a replacement draw."""
        if player is None:
            counts, jokers = _split(tiles, self.wild_faces(state))
            return complete(counts, jokers)
        kong_rep = player == state.turn and state.after_kong and state.drawn is not None
        return self.wins_with(state, player, list(tiles), kong_replacement=kong_rep)

    def opening_win_tile(self, state, player):
        """天胡: nothing was drawn. DECISION (Z-S11): the highest natural tile is shown as the
        winning one (as in Taizhou), and 独 is judged on the other thirteen."""
        hand = state.hands[player]
        natural = [t for t in hand if not self.is_wild(state, t)]
        return max(natural) if natural else max(hand)

    # --- the end of a hand (§5) ---
    def score_of(self, state, player, tile, discarder) -> Score:
        self_drawn = discarder is None
        return score(list(state.hands[player]), state.melds[player], tile, self.wild_faces(state), self_drawn,
                     self._seat(state, player), robbed_kong=bool(state.robbing),
                     kong_replacement=self_drawn and bool(state.after_kong),
                     mode=self.mode(state), target=self.target(state) or 2)

    def _pay(self, state, winner, discarder, s: Score | None) -> tuple:
        n = state.n
        names = [state.seat_name(q) for q in range(n)]
        index = {names[q]: q for q in range(n)}
        order = [names[(state.dealer + k) % n] for k in range(n)]
        transfers, net = settle(order, self.mode(state), names[state.dealer],
                                None if winner is None else names[winner],
                                None if discarder is None else names[discarder],
                                None if s is None else s.tai, self.unit(state), self.laozhuang(state),
                                self.target(state) or 2,
                                bool(s and s.no_wild), bool(s and s.single_wait))
        transfers = tuple({"from": index[t["from"]], "to": index[t["to"]], "amount": t["amount"], "why": t["why"]}
                          for t in transfers)
        return transfers, tuple(net[names[q]] for q in range(n))

    def settle_win(self, state, winner, tile, discarder) -> Result:
        s = self.score_of(state, winner, tile, discarder)
        scores = tuple(s if q == winner else score_nonwinner() for q in range(state.n))
        transfers, net = self._pay(state, winner, discarder, s)
        return Result(winner, discarder, tile, discarder is None, scores, transfers, net)

    def settle_drawn(self, state) -> Result:
        """翻: a drawn hand pays nothing (Z-D12); 包: the contract failed, the dealer pays c to each."""
        transfers, net = self._pay(state, None, None, None)
        return Result(None, None, None, False, tuple(score_nonwinner() for _ in range(state.n)), transfers, net)

    def keeps_deal(self, state) -> bool:
        """§1: the dealer keeps the deal after winning, a drawn hand and a failed contract."""
        r = state.result
        return r is not None and (r.winner is None or r.winner == state.dealer)

    def next_hand(self, state):
        """(next dealer, carry {"streak", "laozhuang"}): a kept deal makes the next hand 老庄
        (§5: after a drawn hand, a failed contract or a dealer win); another's win passes the deal
        to the dealer's lower player."""
        if self.keeps_deal(state):
            return state.dealer, {"streak": state.get_extra("streak", 1) + 1, "laozhuang": True}
        return (state.dealer + 1) % state.n, {"streak": 1, "laozhuang": False}

    def escape_payments(self, players: int, leaver: int, settings: dict):
        """§3 / Z-D11 / Z-S10: 30 × 底分 shared equally by the others (never doubled by 老庄)."""
        unit = settings.get("unit", self.room_options.with_defaults({})["unit"])
        return tuple(escape_transfers(list(range(players)), leaver, unit))

    def table_info(self, state) -> dict:
        """Public to every seat: the mode, the contract's target (包, once named), the wild faces
        (once drawn), 老庄, the unit and the dealer's streak."""
        return {"mode": self.mode(state), "target": self.target(state),
                "wild_faces": [face_name(f) for f in self.wild_faces(state)],
                "wild_count": len(self.wild_faces(state)) if state.get_extra("wilds") is not None else None,
                "laozhuang": self.laozhuang(state), "unit": self.unit(state),
                "streak": state.get_extra("streak", 1)}


VARIANT = Zhuji()
