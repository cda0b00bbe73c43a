"""Wenzhou mahjong 2008 (温州麻将): win shapes, soft/hard/double and payments.
Spec: shared/rules/wenzhou.md (§ numbers below are its sections; W-D… its published decisions).

Registered as "wenzhou" and offered for new rooms (`playable`); the JSON contracts route here
(`has_contract`).

A Wenzhou hand has 16 tiles (the dealer 17); a complete hand has 17 counting the winning tile.
A win is (§4) A: a pair + five sets, B: eight pairs + one lone tile, C: all three wilds. Wilds
(财神) stand for any tile; each white (白板) is either a White dragon or a natural tile of the
wild's face (§2). The multiplier (§5) is the best over every reading: soft ×1, hard ×2, double ×4.

`analyse` answers one hand's readings as flags; `score` turns them into the §9 `score_hands`
result; `settle` pays a hand as §6 / §9 `settle_hands`. `score_request` / `settle_request` read
the JSON contract objects (never raise: `{"ok": false, "error": ...}`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..events import Illegal
from ..melds import CHOW, Meld, make_meld, split_meld
from ..requests import RequestError, flag, read_hand, read_head
from ..tiles import NUM_FACES, SEAT_NAMES, WHITE, TileError, face_name, parse_tile, parse_tiles
from ..winning import is_complete, is_sets_only
from .base import CLAIM_RANK, Decision, IndicatorWild, Result, RoomOptions, Setting, Variant

VARIANT_ID = "wenzhou"
HAND_SIZE = 16
BASES = (2, 4, 6, 8, 3, 5, 7, 9)
MULTIPLIER = {"soft": 1, "hard": 2, "double": 4}
TAI = {"soft": 0, "hard": 1, "double": 2}


# --- one reading's pieces -----------------------------------------------------------------

def _need(c: int) -> int:
    """Wilds needed to turn c tiles of one face into pungs."""
    return (3 - c % 3) % 3


def pungs_and_pair(counts, jokers: int, pair: bool = True) -> bool:
    """Can counts + `jokers` wilds be split into pungs (a concealed 4 is a pung + one more tile)
    and exactly one pair when `pair` (none otherwise)? (碰碰胡's concealed part.)"""
    faces = [f for f in range(NUM_FACES) if counts[f]]
    base = sum(_need(counts[f]) for f in faces)
    if not pair:
        return base <= jokers and (jokers - base) % 3 == 0
    options = [base + 2]  # the pair is two wilds
    for f in faces:
        c = counts[f]
        rest = base - _need(c)
        if c >= 2:
            options.append(rest + _need(c - 2))
        options.append(rest + 1 + _need(c - 1))  # one natural + a wild
    return any(n <= jokers and (jokers - n) % 3 == 0 for n in options)


def eight_pairs(counts, jokers: int):
    """Eight pairs + one lone tile (§4 B, W-D5: four alike are two pairs) from 17 concealed
    tiles. Returns None (no), "lone" (a wild can be the lone tile) or "paired" (every way
    uses each wild as half of a pair)."""
    singles = sum(c % 2 for c in counts)
    if singles > jokers + 1:
        return None
    return "lone" if jokers >= singles + 1 else "paired"


def _discard_sets(counts, jokers: int, x: int, own_x: int):
    """Shape A readings of a win on a discard that are not 财神马 (§4): `counts` hold every
    concealed tile but the wilds (jokers), the winning tile (logical face x) included. A reading
    is 财神马 when its pair is a tile of face x and a wild: before the win the hand was complete
    sets plus that lone wild (tiles of one face are alike, so it does not matter which x is
    "the" winning one). `own_x` = tiles of face x in `counts` that are not wild tiles (they
    differ only when the caller has put wilds read as their own face into `counts`).
    Returns (a reading, a 碰碰胡 reading).

    DECISION: "another reading" (§4) is a pair that is two natural tiles, two wilds, or a wild
    with a tile of another face. Swapping which tile of the winning face is "the winning tile"
    is the same reading, so a 财神马 hand wins on a discarded face it already holds only through
    such a pair (a lone wild with 456p takes a discarded 4p as 44p + 5-6p-wild: allowed).
    DECISION: a discarded white read as the wild's face pairing a wild read as its own face is
    财神马 too (before the win the hand was sets + a lone wild)."""
    found = pp = False
    for f in range(NUM_FACES):
        if counts[f] >= 2 and (f != x or own_x >= 2):  # a natural pair
            rest = list(counts)
            rest[f] -= 2
            found = found or is_sets_only(rest, jokers)
            pp = pp or pungs_and_pair(rest, jokers, pair=False)
        if counts[f] and f != x and jokers >= 1:  # a natural + a wild, not of the winning face
            rest = list(counts)
            rest[f] -= 1
            found = found or is_sets_only(rest, jokers - 1)
            pp = pp or pungs_and_pair(rest, jokers - 1, pair=False)
        if found and pp:
            break
    if jokers >= 2 and not (found and pp):  # two wilds
        found = found or is_sets_only(counts, jokers - 2)
        pp = pp or pungs_and_pair(counts, jokers - 2, pair=False)
    return found, pp


@dataclass(frozen=True)
class Readings:
    """What the tiles can be read as (§4, §5): each flag is over every reading allowed."""

    sets: bool = False  # A (on a discard: a reading that is not 财神马)
    caishenma_only: bool = False  # A only as 财神马 (refused on a discard)
    hard_sets: bool = False  # A with no wild standing in (财神归位, or no wild)
    pungs: bool = False  # A as 碰碰胡 (pair + five pungs/kongs, shown ones included)
    pairs: str | None = None  # B: None, "lone" or "paired" (see eight_pairs)
    wilds: int = 0  # wilds in the concealed tiles (the winning one included)

    @property
    def wins(self) -> bool:
        return self.sets or self.pairs is not None or self.wilds >= 3


def analyse(concealed, melds, win, wild, self_drawn: bool) -> Readings:
    """The readings of a winning hand. `concealed` = the hand WITHOUT the winning tile `win`;
    `melds` = declared Meld objects; `wild` = the wild face (never None in Wenzhou, §2).
    A white in a declared chow is already read (make_meld); one in a pung/kong is a White."""
    stand_in = wild if wild != WHITE else None
    counts = [0] * NUM_FACES
    jokers = whites = 0
    for f in concealed:
        if f == wild:
            jokers += 1
        elif f == WHITE and stand_in is not None:
            whites += 1
        else:
            counts[f] += 1
    win_wild = win == wild
    win_white = win == WHITE and stand_in is not None
    if win_wild:
        jokers += 1
    all_pung_melds = all(m.kind != CHOW for m in melds)
    n_concealed = len(concealed) + 1
    sets = cm = hard = pungs = False
    pairs = None
    # each white: a White dragon or a natural tile of the wild's face (§2)
    win_faces = [WHITE, stand_in] if win_white else [None if win_wild else win]
    for x in win_faces:
        for k in range(whites + 1) if stand_in is not None else (0,):
            c = list(counts)
            if stand_in is not None:
                c[stand_in] += k
                c[WHITE] += whites - k
            if x is not None:
                c[x] += 1
            # every reading below is also a reading of is_complete(c, jokers) (sets + a pair,
            # 财神马 included): without one there is nothing more to ask
            if not is_complete(c, jokers):
                pass
            elif self_drawn or x is None:
                sets = True
                natural = list(c)  # every wild read as its own face
                natural[wild] += jokers
                hard = hard or is_complete(natural, 0)
                pungs = pungs or (all_pung_melds and pungs_and_pair(c, jokers))
            else:
                a, pp = _discard_sets(c, jokers, x, c[x])
                sets |= a
                pungs |= all_pung_melds and pp
                if a and not hard:
                    natural = list(c)  # every wild read as its own face
                    natural[wild] += jokers
                    # c holds no wild tile (a white read as the wild's face is in c), so c[x]
                    # counts the non-wild tiles of face x. When x is the wild's face (a
                    # discarded white read as it), two wilds are a pair of x too (not 财神马:
                    # the winning tile is not in it)
                    hard, _ = _discard_sets(natural, 0, x, max(c[x], jokers) if x == wild else c[x])
                if not a:
                    cm = True
            if not melds and n_concealed == 17:
                p = eight_pairs(c, jokers)
                if p == "lone" or (p == "paired" and pairs is None):
                    pairs = p
    return Readings(sets, cm and not sets, hard, pungs, pairs, jokers)


# --- scoring (§5, §9 score_hands) ---------------------------------------------------------

@dataclass(frozen=True)
class Score:
    winner: bool
    base: int
    kind: str | None
    wilds: int
    reasons: tuple = ()  # the reasons of the kind reached

    @property
    def tai(self) -> int:
        return TAI[self.kind] if self.kind else 0

    @property
    def total(self) -> int:
        return self.base * MULTIPLIER[self.kind] if self.kind else 0

    def reason_name(self, reason: str, lang: str = "en") -> str:
        """One reason worded: "hard: self-drawn" (en, §9), "硬胡：自摸" (zh)."""
        if lang != "zh":
            return f"{self.kind}: {reason}"
        words = REASON_ZH.get(reason, reason)
        if reason == "no wild stands in" and not self.wilds:
            words = "无财神"  # no wild at all; 财神归位 = every wild is its own face
        return f"{KIND_ZH[self.kind]}：{words}"

    def as_dict(self, lang: str = "en") -> dict:
        """§9 score_hands output; `items` worded in `lang` ("en" as the spec, or "zh")."""
        items = []
        if self.winner:
            items = [{"name": "底" if lang == "zh" else "base", "points": self.base}] + [
                {"name": self.reason_name(r, lang)} for r in self.reasons]
        return {"ok": True, "winner": self.winner, "points": self.base if self.winner else 0,
                "tai": self.tai, "total": self.total, "capped": False, "kind": self.kind,
                "wilds": self.wilds, "items": items}


# The words of Score's items in Chinese (seed 002: 软牌/硬牌/双翻; the site's result says 软胡/硬胡).
# The reasons themselves (Score.reasons) stay the stable codes the English items show.
KIND_ZH = {"soft": "软胡", "hard": "硬胡", "double": "双翻"}
REASON_ZH = {
    "self-drawn": "自摸",
    "no wild stands in": "财神归位",
    "robbed kong": "抢杠胡",
    "three wilds": "三财神",
    "a wild stands in": "财神代替",
}


class NotAWin(ValueError):
    pass


def score(concealed, melds, win, wild, self_drawn: bool, base: int = 2, *, seat: str = "S",
          first_turn: bool = False, robbed_kong: bool = False, quanqiu: bool = False) -> Score:
    """Score one winner (§4, §5). Raises NotAWin (with the reason) for a hand that does not win."""
    if quanqiu:
        # 全球神: the claimer kept only the wild (§4); double (§5)
        if win is not None or len(melds) != 5 or list(concealed) != [wild]:
            raise NotAWin("全球神 needs exactly one wild in hand, five melds and no winning tile")
        return Score(True, base, "double", 1, ("全球神",))
    if win == wild and not self_drawn:
        raise NotAWin("a discarded wild is never won on")
    r = analyse(concealed, melds, win, wild, self_drawn)
    if not r.wins:
        if r.caishenma_only:
            raise NotAWin("on a discard this hand is only 财神马 (a wild making the pair with the "
                          "winning tile): it wins only self-drawn")
        raise NotAWin("these tiles do not make a winning hand")
    double, hard = [], []
    if r.pungs:
        double.append("碰碰胡")
    if r.pairs is not None and (r.wilds != 1 or r.pairs == "lone"):
        double.append("硬8对")
    if r.wilds >= 3 and (r.sets or r.pairs is not None):
        # DECISION: on a discard a shape A that is only 财神马 is no shape here (three wilds
        # without a shape: hard); self-drawn it counts
        double.append("三财神")
    if len(melds) == 5 and concealed and concealed[0] != wild and r.sets:
        # W-D9: a lone wild is 财神马, not 单吊. DECISION: a lone natural tile paired by a
        # self-drawn wild is 单吊 (the tile left in hand is not a wild; W-D8: whatever the wilds do)
        double.append("单吊")
    if first_turn:
        double.append("天胡" if seat == "E" else "地胡")
    if self_drawn:
        hard.append("self-drawn")
    if r.hard_sets:
        hard.append("no wild stands in")
    if robbed_kong:
        hard.append("robbed kong")
    if r.pairs == "paired" and r.wilds == 1:
        hard.append("软8对")
    if r.wilds >= 3 and not (r.sets or r.pairs is not None):
        hard.append("three wilds")
    if double:
        return Score(True, base, "double", r.wilds, tuple(double))
    if hard:
        return Score(True, base, "hard", r.wilds, tuple(hard))
    return Score(True, base, "soft", r.wilds, ("a wild stands in",))


def score_nonwinner(concealed, wild) -> Score:
    return Score(False, 0, None, sum(1 for t in concealed if t == wild))


# --- settlement (§6, §9 settle_hands) -----------------------------------------------------

def pair_base(a, b, dealer, base, b0, bought, topped) -> int:
    """The base between seats a and b (§6, W-D3, W-D11)."""
    if dealer not in (a, b):
        return b0
    other = b if a == dealer else a
    d = base * 2 if bought else base
    return d * 2 if other in topped else d


def settle(seats, dealer, winner, base, kind, wilds, bought=False, topped=()):
    """(transfers, net) in points; seats in turn order. Drawn hand (winner None): nothing."""
    transfers = []
    net = {s: 0 for s in seats}
    if winner is not None:
        b0 = 3 if base % 2 else 2
        mult = MULTIPLIER[kind]
        for s in seats:
            if s != winner:
                transfers.append({"from": s, "to": winner, "why": "win",
                                  "amount": pair_base(s, winner, dealer, base, b0, bought, topped) * mult})
        for holder in seats:
            k = wilds.get(holder, 0)
            if not k:
                continue
            each = k * b0 * (2 if holder == winner and kind == "double" else 1)  # W-D1
            for s in seats:
                if s != holder:
                    transfers.append({"from": s, "to": holder, "why": "caishen", "amount": each})
    for t in transfers:
        net[t["from"]] -= t["amount"]
        net[t["to"]] += t["amount"]
    return transfers, net


# --- the JSON contracts (§9) --------------------------------------------------------------

def parse_meld(text, wild) -> Meld:
    """A declared set of the contract: a white read as the wild's face in a chow is written as
    that face (`chow:456p` with wild 5p is 4p 5z 6p). Wilds are never in a shown set (§2)."""
    kind, faces = split_meld(text)
    if kind == CHOW and wild != WHITE and faces.count(wild) == 1:
        faces = [WHITE if f == wild else f for f in faces]
    return make_meld(kind, faces, wild)


def _tiles_check(concealed, melds, win, wild):
    physical = list(concealed) + [t for m in melds for t in m.tiles] + ([] if win is None else [win])
    for f in set(physical):
        limit = 3 if f == wild else 4  # the indicator is the fourth of the wild's face
        if physical.count(f) > limit:
            raise RequestError(f"more than {limit} tiles of {face_name(f)}")


def _base(req):
    base = req.get("base", 2)
    if isinstance(base, bool) or base not in BASES:
        raise RequestError(f"base must be one of 2, 4, 6, 8, 3, 5, 7, 9 (got {base!r})")
    return base


def score_request(req) -> dict:
    """§9 score_hands for one request object; `items` in req["lang"] ("en" or "zh", default en)."""
    try:
        lang, seat = read_head(req, VARIANT_ID)
        wild_text = req.get("wild")
        if wild_text in (None, ""):
            raise RequestError("Wenzhou always has a wild: give its face as wild")
        wild = parse_tile(wild_text)
        hand, melds, win = read_hand(req, wild, parse_meld)
        self_drawn = flag(req, "self_drawn")
        first_turn = flag(req, "first_turn")
        robbed = flag(req, "robbed_kong")
        quanqiu = flag(req, "quanqiu")
        base = _base(req)
        expected = HAND_SIZE - 3 * len(melds)
        if quanqiu:
            if len(melds) != 5 or len(hand) != 1 or win is not None:
                raise RequestError("quanqiu: hand is exactly one wild, five melds, no win")
        elif expected < 1 or len(hand) != expected:
            raise RequestError(f"hand must hold {expected} tiles with {len(melds)} melds (got {len(hand)})")
        _tiles_check(hand, melds, win, wild)
        if win is None and not quanqiu:
            if self_drawn or first_turn or robbed:
                raise RequestError("self_drawn, first_turn and robbed_kong need a winning tile (win)")
            return score_nonwinner(hand, wild).as_dict(lang)
        if first_turn and seat == "E" and not self_drawn:
            raise RequestError("天胡 (first_turn for the dealer E) is always self-drawn")
        if robbed and self_drawn:
            raise RequestError("robbed_kong needs self_drawn: false")
        s = score(hand, melds, win, wild, self_drawn, base, seat=seat, first_turn=first_turn,
                  robbed_kong=robbed, quanqiu=quanqiu)
        return s.as_dict(lang)
    except (RequestError, TileError, NotAWin) as e:
        return {"ok": False, "error": str(e)}


def settle_request(req) -> dict:
    """§9 settle_hands for one request object."""
    try:
        if not isinstance(req, dict) or req.get("variant") != VARIANT_ID:
            raise RequestError("not a wenzhou request")
        wilds = req.get("wilds")
        if not isinstance(wilds, dict) or not 2 <= len(wilds) <= 4 or any(s not in SEAT_NAMES for s in wilds):
            raise RequestError("wilds must map 2-4 seats (E, S, W, N) to wilds held")
        if any(isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 3 for k in wilds.values()):
            raise RequestError("wilds held must be whole numbers 0-3")
        seats = [s for s in SEAT_NAMES if s in wilds]
        dealer, winner, discarder = req.get("dealer"), req.get("winner"), req.get("discarder")
        if dealer not in seats:
            raise RequestError(f"the dealer {dealer!r} is not seated")
        if winner is not None and winner not in seats:
            raise RequestError(f"the winner {winner!r} is not seated")
        if discarder is not None and discarder not in seats:
            raise RequestError(f"the discarder {discarder!r} is not seated")
        base = _base(req)
        kind = req.get("kind")
        if winner is not None and kind not in MULTIPLIER:
            raise RequestError("kind must be soft, hard or double")
        bought = flag(req, "bought")
        topped = req.get("topped") or []
        if not isinstance(topped, list) or any(s not in seats for s in topped):
            raise RequestError("topped must list seated non-dealers")
        if dealer in topped:
            raise RequestError("the dealer cannot top (顶底)")
        transfers, net = settle(seats, dealer, winner, base, kind, wilds, bought, topped)
        return {"ok": True, "transfers": transfers, "net": net}
    except RequestError as e:
        return {"ok": False, "error": str(e)}


# --- the variant object (variants/base.py) -----------------------------------------------

@dataclass(frozen=True)
class Wenzhou(IndicatorWild, Variant):
    """温州麻将 (wenzhou.md): 16 tiles (dealer 17), one indicator, whites stand in for the
    wild's face, wilds kept (W-D12), forced honors (W-D6), no 财神马 win on a discard, a double
    win first, the hand drawn at 8 tiles left, the dealer's rising base and four-hand limit.
    买底/顶底 are asked before the first turn; rooms may use odd bases; a passed pung waits for
    the next draw (碰牌不可飘张); 全球神 ends the hand. A tile added to a shown pung may be
    robbed (抢杠). The site asks the buy/top questions at the table (a deadline; the default
    is never buy / never top) and opens a window (wins only) on a tile added to a pung."""

    name: str = VARIANT_ID
    title: tuple = (("zh", "温州麻将"), ("en", "Wenzhou"))
    hand_size: int = HAND_SIZE
    wall_reserve: int = 8
    white_stands_in: bool = True
    robbing_kong: bool = True  # §3 抢杠 (a concealed kong cannot be robbed)
    has_contract: bool = True  # contract.py hands its requests to score_json / settle_json
    playable: bool = True
    # §1: bases 2, 4, 6, 8, or 3, 5, 7, 9 in rooms set to odd bases
    room_options: RoomOptions = field(default_factory=lambda: RoomOptions(
        settings=(Setting("odd_base", (False, True), False),)))

    def score_json(self, req) -> dict:
        return score_request(req)

    def settle_json(self, req) -> dict:
        return settle_request(req)

    def _melds(self, state, player):
        return state.melds[player] if player is not None else ()

    def is_winning(self, state, player, tiles) -> bool:
        """Self-drawn sense (every reading, 财神马 included); a discard is judged by
        `wins_on_discard`."""
        tiles = list(tiles)
        return analyse(tiles[:-1], self._melds(state, player), tiles[-1], state.indicator, True).wins

    def wins_on_discard(self, state, player, tile) -> bool:
        if tile == state.indicator:
            return False
        return analyse(list(state.hands[player]), state.melds[player], tile, state.indicator, False).wins

    def claim_options(self, state, player, tile, last: bool) -> tuple:
        opts = super().claim_options(state, player, tile, last)
        if "win" in opts and not self.wins_on_discard(state, player, tile):
            opts = tuple(o for o in opts if o != "win")  # 财神马 only: self-drawn wins only (§4)
        if "pung" in opts and tile in self.passed_pungs(state, player):
            opts = tuple(o for o in opts if o != "pung")  # 碰牌不可飘张 (§3)
        return opts

    # --- 碰牌不可飘张 (§3): a passed pung is not offered again on that face until the next draw ---
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
        """DECISION: declining a pung means answering anything but pung, kong or win (a chow
        instead of the pung declines it too). A claim is noted for 全球神 (`win_before_draw`):
        (player, kind, the player's melds when claiming)."""
        if "pung" in options and response.kind not in ("pung", "kong", "win"):
            passed = set(self.passed_pungs(state, player)) | {state.last_discard}
            state = self._set_passed(state, player, passed)
        if response.kind in ("chow", "pung", "kong"):
            state = self._note_claim(state, player, (response.kind, len(state.melds[player])))
        return state

    def _claim(self, state, player):
        return dict(state.get_extra("claims", ())).get(player)

    def _note_claim(self, state, player, note):
        table = dict(state.get_extra("claims", ()))
        if note is None:
            table.pop(player, None)
        else:
            table[player] = note
        return state.with_extra("claims", tuple(sorted(table.items())))

    def after_draw(self, state, player, tile, events):
        if self.passed_pungs(state, player):
            state = self._set_passed(state, player, ())
        claim = self._claim(state, player)
        if claim is not None:
            # only the replacement draw of the kong just claimed keeps the claim noted
            melds = state.melds[player]
            kept = (state.after_kong and claim[0] == "kong" and len(melds) == claim[1] + 1
                    and melds[-1].kind == "kong")
            if not kept:
                state = self._note_claim(state, player, None)
        return state, events

    # --- 全球神 (§4) ---
    def win_before_draw(self, state):
        """全球神: the player who just discarded claimed a discard (a chow or pung, or an
        exposed kong and its replacement) and kept only a wild; nobody won the discard, so they
        win at once (DECISION: even when the wall is down to its last 8 tiles)."""
        p = state.turn
        claim = self._claim(state, p)
        melds = state.melds[p]
        if (claim is None or len(melds) != claim[1] + 1 or len(melds) != 5
                or tuple(state.hands[p]) != (state.indicator,)):
            return None
        return state.with_extra("quanqiu", p), p, state.indicator

    # --- discards (§2, §3) ---
    def check_discard(self, state, player, tile):
        """§2 / W-D12: a wild is discarded only from a concealed hand of exactly two wilds.
        §3 / W-D6 forced honors: holding lone honors (one tile of a wind or dragon face; a lone
        white counts, wilds never), an honor goes before any suit tile, and if a lone honor's
        face was already discarded in this hand (by anyone, claimed or not), one of those."""
        hand = state.hands[player]
        wild = state.indicator
        name = face_name(tile)
        if tile == wild:
            if len(hand) == 2 and hand.count(wild) == 2:
                return None
            return Illegal("cannot_discard", {"tile": name, "why": "wild"})
        lone = {f for f in set(hand) if f >= 27 and f != wild and hand.count(f) == 1}
        if not lone:
            return None
        follow = lone & discarded_faces(state)
        if follow:
            return None if tile in follow else Illegal("cannot_discard", {"tile": name, "why": "follow_honour"})
        return None if tile >= 27 else Illegal("cannot_discard", {"tile": name, "why": "honour_first"})

    # --- 买底 / 顶底 before the deal's first turn (§6, W-D11) ---
    def pre_hand(self, state):
        """The dealer may buy (买底), then the non-dealers may top (顶底). A dealer who bought
        must buy again in every following hand they deal in a row, a non-dealer who topped must
        top in every following hand of the same dealer: those are not asked (carry "bought",
        "topped"). DECISION: the obliged are not asked at all (nothing to choose)."""
        if state.get_extra("buy") is None and not state.get_extra("bought", False):
            return Decision("buy", (state.dealer,), ("no", "yes"))
        if state.get_extra("top") is None:
            obliged = set(state.get_extra("topped", ()))
            seats = tuple((state.dealer + k) % state.n for k in range(1, state.n))
            seats = tuple(q for q in seats if q not in obliged)
            if seats:
                return Decision("top", seats, ("no", "yes"))
        return None

    def bought(self, state) -> bool:
        return bool(state.get_extra("bought", False)) or ("yes" in dict(state.get_extra("buy", ())).values())

    def topped(self, state) -> tuple:
        """Players (indices) who top this hand: the obliged and those who answered yes."""
        out = set(state.get_extra("topped", ()))
        out |= {q for q, v in state.get_extra("top", ()) if v == "yes"}
        return tuple(sorted(out))

    # --- the end of a hand (§5, §6) ---
    def start_base(self, state) -> int:
        """b0 (§1): 2, or 3 in rooms set to odd bases."""
        return 3 if state.options.setting("odd_base") else 2

    def base(self, state) -> int:
        """The hand's base (§1): the starting base, + 2 for each hand the dealer kept after a
        win (carried as "base")."""
        return state.get_extra("base", self.start_base(state))

    def _first_turn(self, state, player, self_drawn) -> bool:
        """天胡 (the dealer wins self-drawn before any discard of theirs) / 地胡 (W-D10: a
        non-dealer who has neither discarded nor claimed: before or on their first draw). No
        discard of theirs = none in their river and none claimed from them; a kong of their
        own is a meld (after it the replacement draw is no longer the dealt hand / first draw)."""
        if player == state.dealer and not self_drawn:
            return False
        if state.melds[player] or state.rivers[player]:
            return False
        return not any(m.from_seat == player for ms in state.melds for m in ms)

    def score_of(self, state, player, tile, discarder) -> Score:
        if state.get_extra("quanqiu") == player:
            return score(list(state.hands[player]), state.melds[player], None, state.indicator, True,
                         self.base(state), quanqiu=True)
        self_drawn = discarder is None
        return score(list(state.hands[player]), state.melds[player], tile, state.indicator, self_drawn,
                     self.base(state), seat="E" if player == state.dealer else "S",
                     first_turn=self._first_turn(state, player, self_drawn),
                     robbed_kong=bool(getattr(state, "robbing", False)))

    def claim_rank(self, state, q, kind) -> tuple:
        """§3: win > pung/kong > chow; among wins a double win first; then nearest the
        discarder in turn order."""
        near = -((q - state.turn) % state.n)
        if kind != "win":
            return (CLAIM_RANK[kind], 0, near)
        try:
            double = self.score_of(state, q, state.last_discard, state.turn).kind == "double"
        except NotAWin:
            double = False
        return (CLAIM_RANK[kind], int(double), near)

    def settle_win(self, state, winner, tile, discarder) -> Result:
        """Score the winner (§5), count everyone's wilds (财神钱) and pay (§6) in points, with
        this hand's 买底/顶底."""
        n = state.n
        wild = state.indicator
        s = self.score_of(state, winner, tile, discarder)
        scores = tuple(s if q == winner else score_nonwinner(state.hands[q], wild) for q in range(n))
        names = [state.seat_name(q) for q in range(n)]
        order = sorted(range(n), key=lambda q: (q - state.dealer) % n)
        wilds = {names[q]: scores[q].wilds for q in range(n)}
        transfers, net = settle([names[q] for q in order], names[state.dealer], names[winner], s.base, s.kind,
                                wilds, self.bought(state), [names[q] for q in self.topped(state)])
        index = {names[q]: q for q in range(n)}
        transfers = tuple({"from": index[t["from"]], "to": index[t["to"]], "amount": t["amount"], "why": t["why"]}
                          for t in transfers)
        return Result(winner, discarder, tile, discarder is None, scores, transfers,
                      tuple(net[names[q]] for q in range(n)))


    # --- the next hand (§1) ---
    def keeps_deal(self, state) -> bool:
        """连庄: the dealer won, or a drawn hand with no kong made in it."""
        r = state.result
        if r is None:
            return False
        if r.winner is None:
            return not any(m.is_kong for ms in state.melds for m in ms)
        return r.winner == state.dealer

    def next_hand(self, state):
        """(next dealer, carry {"streak", "base"}): a kept deal after a win raises the base by 2,
        after a drawn hand keeps it; a new dealer starts at 2. W-D4: a dealer deals at most four
        hands in a row; for a fifth the dice choose the dealer among all seats, who starts afresh.
        DECISION: the dice come from the hand's seed (a Random(seed * 7 + 5), apart from
        the wall's shuffle), so a replay agrees."""
        streak = state.get_extra("streak", 1)
        base = self.base(state)
        fresh = {"streak": 1, "base": self.start_base(state)}
        if not self.keeps_deal(state):
            return (state.dealer + 1) % state.n, fresh
        if streak >= 4:
            return random.Random(state.seed * 7 + 5).randrange(state.n), fresh
        won = state.result.winner is not None
        return state.dealer, {"streak": streak + 1, "base": base + 2 if won else base,
                              "bought": self.bought(state), "topped": list(self.topped(state))}

    def next_dealer(self, state) -> int:
        return self.next_hand(state)[0]

    def table_info(self, state) -> dict:
        """Public to every seat: the hand's base, the dealer's streak (连庄), whether the dealer
        bought (known once answered, or carried) and who topped (once everyone answered, or
        carried). An answer in progress is not shown."""
        return {"base": self.base(state), "start_base": self.start_base(state),
                "streak": state.get_extra("streak", 1), "bought": self.bought(state),
                "topped": list(self.topped(state))}


def discarded_faces(state) -> set:
    """Faces discarded so far in this hand: the rivers and the discards claimed into melds."""
    out = {t for river in state.rivers for t in river}
    out |= {m.claimed for ms in state.melds for m in ms if m.claimed is not None}
    return out


VARIANT = Wenzhou()
