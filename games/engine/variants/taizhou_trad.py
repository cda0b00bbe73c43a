"""Traditional Taizhou mahjong (传统台州麻将: 弹, 翻白板, 番, 劣子). Spec:
shared/rules/taizhou-traditional.md (§ numbers below are its sections; T-D… its published
decisions; the site's own rulings where the spec is silent are marked DECISION and numbered
T-S…). The rules of official Taizhou (taizhou.py: the white stand-in, 全包, its claim order) do
not apply.

Registered as "taizhou_trad"; the JSON contracts route here (`has_contract`); offered for new
rooms (`playable`: the table is games/trad_table.py with the room page). Room settings: `dan` (弹)
and `throws` (扔弹 on or off).

A hand: the deal waits for the 扔弹 questions (`decide_before_deal`: stakes are set before a hand
is dealt, §2), then dealer 14 / others 13, the next wall tile is turned up (its face X: the other
three X tiles are wild 得), the flowers (whites; reds when X is White) in the deal are shown and
replaced from the back of the wall in seat order E, S, W, N, and every flower drawn later is shown
and replaced at once (§1). Play as the common rules, a passed pung waiting for the next draw (§3),
抢杠 on an added kong; the 生牌 stage from 30 tiles left, 黄牌 at 16 (§3). The winner's 和 and 番
are searched over every arrangement of the wilds and place of the winning tile (§4, §5);
non-winners are scored by grouping their tiles (§4, §5); `settle` pays §6.

`score` / `score_nonwinner` / `settle` are the §10 contracts' engines; `score_request` /
`settle_request` read the JSON objects (never raise: `{"ok": false, "error": ...}`).

For the site: the 扔弹 questions are Decisions named "throw_1" .. "throw_{n-1}" (k = how many
seats after the answering one, in turn order: 1 = 下家, 2 = 对家 (with 4 players), n-1 = 上家),
asked to every seat before the deal, choices THROW_CHOICES ("0" = none, the default, first);
`table_info` (public) holds dan, streak, throws, flowers, flower_face, shengpai (the stage is on),
tiles_left (draws before 黄牌); `shengpai_faces(state, seat)` lists the faces still 生 as that seat
sees them; a "flower" event {seat, tile, flowers} is shown to all before each replacement draw
(a draw event with replacement true); a 点炮 win's Result has liable = the 点炮 player and
liable_reason "dianpao"; payments are in 子 with why "win", "dan", "throw", "non-winners".

The site's rulings (DECISION comments below; published as T-S…):
- T-S1  the indicator is the wall's next tile after the deal (its front), as §1 says; the
        replacements for flowers and kongs come from its back.
- T-S2  a lone tile is told by the count: the hand ends (黄牌) when 16 tiles are left, or 17
        when an odd number is left (8 stacks and a lone tile); the 生牌 stage starts likewise
        at 30 or 31.
- T-S3  flowers in the deal: each seat in turn (E, S, W, N) shows and replaces all of its
        flowers, a flower drawn as a replacement included, before the next seat.
- T-S4  a flower drawn with the last tile before 黄牌 is still replaced (from the back); the
        replacement is then the last tile (海底捞月 if it wins).
- T-S5  the discard after the last draw may only be won on (no chow, pung or kong), as in the
        site's other rule sets.
- T-S6  a wild stands for any face but the flower face, even one whose four tiles are in sight
        (as the site's other rule sets read "any tile").
- T-S7  自摸得 counts whatever the self-drawn wild stands for (restored or not).
- T-S8  a non-winner's 四风会齐 may use wilds as winds (§5); the same wilds still count as their
        own face for that player's 和 and other 番.
- T-S9  the 点炮 exception's "not ready" is judged on the hand left after the discard (it waits
        on no tile); 抢杠和 is never 点炮 (no tile was discarded).
- T-S10 扔弹 at the table: before each hand (before the deal) every seat is asked, one question
        per other seat (下家, 对家, 上家), how much it throws; the amounts offered are the room's
        弹 values 0, 2, 5, 10, 20, 50, 100 (0 = none, the default when time runs out); answers
        add to the throws already made under the same dealer.
- T-S11 the room's 弹 defaults to 0 and 扔弹 to on.
- T-S12 on the dealt fourteen (the dealer wins before any discard) the winning tile is the one
        that scores most; it counts as self-drawn.
- T-S13 adding a fourth tile to a shown pung is offered only after a draw (T-D2); a concealed
        kong any time in one's turn.
- T-S14 a winner's arrangement is compared on the total after rounding and the cap, then more
        和, then more 番 (§4), and so is the winning tile of T-S12.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .. import events as ev
from ..events import A_KONG, A_PUNG, A_WIN, EventType, define_event
from ..melds import CHOW, KONG, PUNG, Meld, make_meld, split_meld
from ..requests import RequestError, flag, read_hand, read_head, whole
from ..tiles import (
    EAST,
    NUM_FACES,
    RED,
    SEAT_NAMES,
    SEAT_WIND,
    WHITE,
    WINDS,
    TileError,
    face_label,
    face_name,
    is_dragon,
    is_terminal_or_honor,
    parse_tile,
)
from ..winning import is_complete
from .base import Decision, IndicatorWild, Result, RoomOptions, Setting, Variant

VARIANT_ID = "taizhou_trad"
DAN_CHOICES = (0, 2, 5, 10, 20, 50, 100)  # T-D9: the room form's values
THROW_CHOICES = ("0", "2", "5", "10", "20", "50", "100")  # DECISION (T-S10): "0" = none, first = default
LIEZI = 400  # 劣子: a rounded total of 400 or more (T-D1)
LIEZI_PAY = 40
END_STACKS = 8  # 黄牌: 8 stacks (16 tiles) left
SHENG_STACKS = 15  # 生牌 stage: 15 stacks (30 tiles) left
E_FLOWER = "flower"

define_event(EventType(E_FLOWER))  # {seat, tile, flowers}: a flower shown (public), before its replacement


# the faces a tile may share a set with: itself for an honour, two either side in its suit
NEIGHBOURS = tuple((f,) if f >= EAST else tuple(range(max(f - 2, f // 9 * 9), min(f + 2, f // 9 * 9 + 8) + 1))
                   for f in range(NUM_FACES))


def flower_face(wild) -> int:
    """§1: whites are the flowers, reds when the wild's face is White."""
    return RED if wild == WHITE else WHITE


def stacks_left(wall_len: int, stacks: int) -> bool:
    """Are `stacks` stacks (plus a lone tile if any) or fewer left? DECISION (T-S2): an odd
    count holds a lone tile: 2 × stacks tiles, or 2 × stacks + 1."""
    return wall_len <= 2 * stacks + (wall_len % 2)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_total(raw: int) -> tuple:
    """(total, capped): round up to ten, then 劣子 at 400 (T-D1)."""
    total = _ceil_div(raw, 10) * 10
    return (LIEZI, True) if total >= LIEZI else (total, False)


# --- item names (§10: one item per 和 and 番 item) --------------------------------------------

ITEM_NAMES = {
    # key: (English, Chinese); {t} is the tile
    "pair": ("pair {t}", "对子 {t}"),
    "exposed_pung": ("exposed pung {t}", "刻子 {t}"),
    "concealed_pung": ("concealed pung {t}", "暗刻 {t}"),
    "exposed_kong": ("exposed kong {t}", "明杠 {t}"),
    "concealed_kong": ("concealed kong {t}", "暗杠 {t}"),
    "flower": ("flower", "翻{t}"),
    "single_wait": ("single wait {t}", "单吊 {t}"),
    "closed_wait": ("closed wait {t}", "嵌档 {t}"),
    "edge_wait": ("edge wait {t}", "靠柄 {t}"),
    "self_drawn": ("self-drawn", "自摸"),
    "reward": ("winner's reward", "和牌奖励"),
    "seat_wind_set": ("seat wind set {t}", "门风刻 {t}"),
    "dragon_set": ("dragon set {t}", "字牌刻 {t}"),
    "full_flush": ("full flush", "清一色"),
    "half_flush": ("half flush", "混一色"),
    "all_pungs": ("all pungs", "对对和"),
    "all_chows": ("all chows", "旁和"),
    "last_tile": ("last tile", "海底捞月"),
    "no_wild": ("no wild", "无得"),
    "two_wilds": ("two wilds", "两张得"),
    "three_wilds": ("three wilds", "三张得"),
    "wild_restored": ("wild restored {t}", "得还原 {t}"),
    "kong_replacement": ("win on a kong's replacement", "杠上开花"),
    "robbed_kong": ("robbing a kong", "抢杠和"),
    "self_drawn_wild": ("self-drawn wild", "自摸得"),
    "big_single_wait": ("big single wait", "大吊车"),
    "four_winds": ("four winds", "四风会齐"),
}
FLOWER_ZH = {WHITE: "白板", RED: "红中"}


def item_dict(item, lang: str) -> dict:
    key, face, points, tai = item
    en, zh = ITEM_NAMES[key]
    if key == "flower":
        name = en if lang == "en" else zh.format(t=FLOWER_ZH[face])
    else:
        tile = "" if face is None else (face_label(face, "zh") if lang == "zh" else face_name(face))
        name = (zh if lang == "zh" else en).format(t=tile).strip()
    out = {"name": name}
    if points:
        out["points"] = points
    if tai:
        out["tai"] = tai
    return out


@dataclass(frozen=True)
class Score:
    """One player's score: points 和 (the winner's reward included), 番, the total after
    rounding and the 劣子 cap."""

    winner: bool
    points: int = 0
    tai: int = 0
    total: int = 0
    capped: bool = False
    items: tuple = ()  # (key, face or None, points, 番)
    raw: int = 0  # points × 2^番 before rounding

    def as_dict(self, lang: str = "en") -> dict:
        return {"ok": True, "winner": self.winner, "points": self.points, "tai": self.tai, "total": self.total,
                "capped": self.capped, "items": [item_dict(i, lang) for i in self.items]}


class NotAWin(ValueError):
    pass


# --- points of sets (§4) ----------------------------------------------------------------------

def pung_points(face: int, concealed: bool) -> int:
    base = 4 if is_terminal_or_honor(face) else 2
    return 2 * base if concealed else base


def kong_points(face: int, concealed: bool) -> int:
    base = 16 if is_terminal_or_honor(face) else 8
    return 2 * base if concealed else base


def pair_points(face: int, seat_wind: int) -> int:
    return 2 if face == seat_wind or is_dragon(face) else 0


def set_fan_key(face: int, seat_wind: int):
    """番 of a pung/kong: own seat wind, each dragon (flowers are never sets)."""
    if face == seat_wind:
        return "seat_wind_set"
    if is_dragon(face):
        return "dragon_set"
    return None


def meld_items(melds, seat_wind: int) -> list:
    out = []
    for m in melds:
        if m.kind == CHOW:
            continue
        if m.kind == PUNG:
            out.append(("exposed_pung", m.face, pung_points(m.face, False), 0))
        elif m.kind == KONG:
            out.append(("exposed_kong", m.face, kong_points(m.face, False), 0))
        else:
            out.append(("concealed_kong", m.face, kong_points(m.face, True), 0))
        key = set_fan_key(m.face, seat_wind)
        if key:
            out.append((key, m.face, 0, 1))
    return out


# --- the winner's arrangements (§4, §5) --------------------------------------------------------

@lru_cache(maxsize=100_000)
def _arrangements(counts: tuple, jokers: int, pair_done: bool) -> frozenset:
    """Every (pieces, free pair, free sets) splitting the natural tiles `counts` into sets and one
    pair, wilds (jokers) filling the gaps: pieces are ("pair"|"pung"|"chow", face) sorted; the
    wilds left over make a free pair and/or free sets (any face, chosen when scoring). The set
    of the lowest natural tile is chosen, its other slots taking natural tiles where there are
    some (swapping a wild for an equal natural tile changes no piece)."""
    i = next((k for k in range(NUM_FACES) if counts[k]), -1)
    if i < 0:
        left = jokers - (0 if pair_done else 2)
        if left < 0 or left % 3:
            return frozenset()
        return frozenset({((), not pair_done, left // 3)})
    options = [("pung", i, (i, i, i))]
    if not pair_done:
        options.append(("pair", i, (i, i)))
    if i < EAST:
        base = (i // 9) * 9
        for lo in (i - 2, i - 1, i):
            if base <= lo and lo + 2 <= base + 8:
                options.append(("chow", lo, (lo, lo + 1, lo + 2)))
    out = set()
    for kind, face, faces in options:
        c = list(counts)
        need = 0
        for f in faces:
            if c[f]:
                c[f] -= 1
            else:
                need += 1
        if need > jokers:
            continue
        for pieces, fp, fs in _arrangements(tuple(c), jokers - need, pair_done or kind == "pair"):
            out.add((tuple(sorted(pieces + ((kind, face),))), fp, fs))
    return frozenset(out)


def _free_pieces(flower: int, pair: bool) -> list:
    """What wilds alone may make: a pair or pung of any face but the flower face (T-S6), or a
    chow of any suit."""
    if pair:
        return [("pair", f) for f in range(NUM_FACES) if f != flower]
    return [("pung", f) for f in range(NUM_FACES) if f != flower] + [
        ("chow", s * 9 + k) for s in range(3) for k in range(7)]


def _faces(kind, face):
    if kind == "chow":
        return (face, face + 1, face + 2)
    return (face,) * (2 if kind == "pair" else 3)


def _full_arrangements(counts, jokers, flower):
    for pieces, fp, fs in _arrangements(counts, jokers, False):
        tails = [()]
        if fp:
            tails = [t + (p,) for t in tails for p in _free_pieces(flower, True)]
        for _ in range(fs):
            tails = [t + (p,) for t in tails for p in _free_pieces(flower, False)]
        for t in tails:
            yield pieces + t


def _fan_items_colour(all_faces) -> list:
    suits = {f // 9 for f in all_faces if f < EAST}
    honours = any(f >= EAST for f in all_faces)
    if len(suits) == 1:
        return [("half_flush", None, 0, 2)] if honours else [("full_flush", None, 0, 4)]
    return []  # T-D6: no suit tile at all is neither


def _evaluate(pieces, melds, natural, win, win_wild, self_drawn, seat_wind, wild, flowers, flags,
              n_concealed, flower):
    """The best (key, items) of one arrangement of the concealed tiles over the places of the
    winning tile, or None when the winning tile has no place."""
    logical = [0] * NUM_FACES
    for kind, face in pieces:
        for f in _faces(kind, face):
            logical[f] += 1
    extra = [logical[f] - natural[f] for f in range(NUM_FACES)]  # wilds standing for each face
    jokers = sum(extra)
    restored = extra[wild] if wild is not None else 0
    # the places of the winning tile: (piece, the face it takes)
    places = set()
    for kind, face in pieces:
        for f in set(_faces(kind, face)):
            if (win_wild and extra[f] > 0) or (not win_wild and f == win):
                places.add(((kind, face), f))
    if not places:
        return None
    fixed = meld_items(melds, seat_wind)
    for _ in range(flowers):
        fixed.append(("flower", flower, 4, 0))
    sets_fan = []
    pair_items = []
    pung_faces = [m.face for m in melds if m.kind != CHOW]
    all_faces = [f for m in melds for f in (m.tiles if m.kind != CHOW else _faces("chow", m.face))]
    kinds = ["chow" if m.kind == CHOW else "pung" for m in melds]
    pair_face = None
    for kind, face in pieces:
        all_faces += list(_faces(kind, face))
        if kind == "pair":
            pair_face = face
        else:
            kinds.append(kind)
            if kind == "pung":
                pung_faces.append(face)
                key = set_fan_key(face, seat_wind)
                if key:
                    sets_fan.append((key, face, 0, 1))
    if pair_face is not None and pair_points(pair_face, seat_wind):
        pair_items.append(("pair", pair_face, pair_points(pair_face, seat_wind), 0))
    fan = []
    for _ in range(flowers):
        fan.append(("flower", flower, 0, 1))
    fan += sets_fan
    fan += _fan_items_colour(all_faces)
    all_pungs = all(k == "pung" for k in kinds)
    all_chows = all(k == "chow" for k in kinds)
    if all_pungs:
        fan.append(("all_pungs", None, 0, 2))
    if flags.get("last_tile"):
        fan.append(("last_tile", None, 0, 1))
    plain = jokers - restored  # T-D5: a restored wild is not counted as a wild
    if plain == 0:
        fan.append(("no_wild", None, 0, 1))
    elif plain == 2:
        fan.append(("two_wilds", None, 0, 1))
    elif plain == 3:
        fan.append(("three_wilds", None, 0, 2))
    for _ in range(restored):
        fan.append(("wild_restored", wild, 0, 1))
    if flags.get("kong_replacement"):
        fan.append(("kong_replacement", None, 0, 1))
    if flags.get("robbed_kong"):
        fan.append(("robbed_kong", None, 0, 1))
    if self_drawn and win_wild:
        fan.append(("self_drawn_wild", None, 0, 1))  # DECISION (T-S7): whatever it stands for
    winds = set(pung_faces) | ({pair_face} if pair_face is not None else set())
    if all(w in winds for w in WINDS):
        fan.append(("four_winds", None, 0, 13))
    best = None
    for (kind, face), f in sorted(places):
        items = list(fixed)
        completed = False
        for k2, f2 in pieces:
            if k2 != "pung":
                continue
            # §4: the pung completed by a discarded winning tile is shown; the winning tile
            # completes ONE set, so of two alike pungs (four naturals and wilds, T-S6) the
            # other stays concealed
            shown = not self_drawn and not completed and (k2, f2) == (kind, face)
            completed = completed or shown
            items.append(("exposed_pung" if shown else "concealed_pung", f2, pung_points(f2, not shown), 0))
        items += pair_items
        wait = []
        two_sided = False
        if kind == "pair":
            wait.append(("single_wait", f, 2, 0))
        elif kind == "chow":
            pos = f - face
            if pos == 1:
                wait.append(("closed_wait", f, 2, 0))
            elif (face % 9 == 0 and pos == 2) or (face % 9 == 6 and pos == 0):
                wait.append(("edge_wait", f, 2, 0))
            else:
                two_sided = True
        items += wait
        if self_drawn:
            items.append(("self_drawn", None, 2, 0))
        items.append(("reward", None, 1, 0))
        fan_here = list(fan)
        if all_chows and two_sided:
            fan_here.append(("all_chows", None, 0, 1))
        if kind == "pair" and n_concealed == 1:
            fan_here.append(("big_single_wait", None, 0, 1))
        every = items + fan_here
        points = sum(i[2] for i in every)
        tai = sum(i[3] for i in every)
        raw = points * 2 ** tai
        total, capped = round_total(raw)
        key = (total, points, tai)
        if best is None or key > best[0]:
            best = (key, [i for i in every if i[2]] + [i for i in every if not i[2]], raw, capped)
    return best


def _check_flower_free(tiles, melds, flower):
    if flower in tiles or any(flower in m.tiles for m in melds):
        raise NotAWin(f"{face_name(flower)} is a flower: never in a hand or a set")


def score(hand, melds, win, self_drawn: bool, seat_wind: int, wild, *, flowers: int = 0,
          robbed_kong: bool = False, kong_replacement: bool = False, last_tile: bool = False) -> Score:
    """Score a winner (§4, §5, §6). `hand` = the concealed tiles WITHOUT the winning tile `win`;
    `wild` = the indicator's face (its tiles in hand are wilds). Raises NotAWin."""
    flower = flower_face(wild)
    tiles = list(hand) + [win]
    _check_flower_free(tiles, melds, flower)
    win_wild = win == wild
    if win_wild and not self_drawn:
        raise NotAWin("a discarded wild is never won on")
    natural = [0] * NUM_FACES
    jokers = 0
    for t in tiles:
        if t == wild:
            jokers += 1
        else:
            natural[t] += 1
    if not is_complete(natural, jokers):
        raise NotAWin("these tiles do not make four sets and a pair")
    flags = {"robbed_kong": robbed_kong, "kong_replacement": kong_replacement, "last_tile": last_tile}
    best = None
    for pieces in _full_arrangements(tuple(natural), jokers, flower):
        got = _evaluate(pieces, melds, natural, win, win_wild, self_drawn, seat_wind, wild, flowers, flags,
                        len(hand), flower)
        if got is not None and (best is None or got[0] > best[0]):
            best = got
    if best is None:
        raise NotAWin("these tiles do not make four sets and a pair")
    (total, points, tai), items, raw, capped = best
    return Score(True, points, tai, total, capped, tuple(items), raw)


def four_winds_nonwinner(hand, melds, seat_wind: int, wild) -> bool:
    """§5 non-winner 四风会齐: four wind sets, or the seat-wind pair and the other three winds as
    sets; wilds may stand in for winds (T-S8)."""
    shown = {m.face for m in melds if m.kind != CHOW}
    jokers = sum(1 for t in hand if t == wild)
    nat = {w: sum(1 for t in hand if t == w and t != wild) for w in WINDS}

    def need(w, size):
        if size == 3 and w in shown:
            return 0
        return max(0, size - nat[w])

    if sum(need(w, 3) for w in WINDS) <= jokers:
        return True
    if seat_wind in shown:
        return False
    return need(seat_wind, 2) + sum(need(w, 3) for w in WINDS if w != seat_wind) <= jokers


def score_nonwinner(hand, melds, seat_wind: int, wild, flowers: int = 0) -> Score:
    """§4, §5: wilds count as their own face; the concealed tiles grouped by face (3 or 4 alike:
    a concealed pung; 2: a pair); 番: flowers, own seat-wind and dragon sets without wilds,
    四风会齐."""
    flower = flower_face(wild)
    items = meld_items(melds, seat_wind)
    fan = []
    for f in sorted(set(hand)):
        c = hand.count(f)
        if c >= 3:
            items.append(("concealed_pung", f, pung_points(f, True), 0))
            key = set_fan_key(f, seat_wind)
            if key and f != wild:  # §5: no wilds in these sets
                fan.append((key, f, 0, 1))
        elif c == 2 and pair_points(f, seat_wind):
            items.append(("pair", f, pair_points(f, seat_wind), 0))
    for _ in range(flowers):
        items.append(("flower", flower, 4, 0))
        fan.append(("flower", flower, 0, 1))
    if four_winds_nonwinner(hand, melds, seat_wind, wild):
        fan.append(("four_winds", None, 0, 13))
    # meld 番 items sit among `items` (tai 1); keep them with the 番
    items_all = [i for i in items if i[2]] + [i for i in items if i[3]] + fan
    points = sum(i[2] for i in items_all)
    tai = sum(i[3] for i in items_all)
    raw = points * 2 ** tai
    total, capped = round_total(raw)
    return Score(False, points, tai, total, capped, tuple(items_all), raw)


# --- settlement (§6) ---------------------------------------------------------------------------

def throw_stake(throws, a, b) -> int:
    """T-D4: the throws between two players, whoever made them, add up."""
    return sum(t["amount"] for t in throws if {t["by"], t["at"]} == {a, b})


def settle(seats, dealer, winner, totals, capped=None, discarder=None, dan=0, streak=1, throws=(), dianpao=None):
    """(transfers, net) in 子 (§6). `seats` the seated players in order (any labels), `totals`
    seat -> total, `capped` seat -> 劣子 flag (a total of 400 or more is 劣子 anyway), `throws`
    [{"by", "at", "amount"}], `dianpao` the 点炮 player or None. Transfers are listed payer by
    payer: each non-winner's win, dan and throw payments (paid by the 点炮 player for them), then
    the non-winners' pairs; nothing of 0 is listed. 黄牌 (winner None): nothing."""
    capped = capped or {}
    net = {s: 0 for s in seats}
    transfers = []
    if winner is None:
        return transfers, net

    def pay(frm, to, amount, why):
        if amount > 0:
            transfers.append({"from": frm, "to": to, "amount": amount, "why": why})
            net[frm] -= amount
            net[to] += amount

    liezi = {s: bool(capped.get(s)) or totals[s] >= LIEZI for s in seats}
    eff = dict(totals)
    if dianpao is not None:  # T-D8: the 点炮 player's total counts as 0
        eff[dianpao] = 0
        liezi[dianpao] = False
    mult = 2 if discarder is None else 1

    def e(a, b):
        return 1 if dealer in (a, b) else 2

    others = [s for s in seats if s != winner]
    for q in others:
        payer = dianpao if dianpao is not None else q
        base = LIEZI_PAY if liezi[winner] else _ceil_div(totals[winner], 10 * e(q, winner))
        pay(payer, winner, base, "win")
        pay(payer, winner, dan * streak * mult, "dan")
        pay(payer, winner, throw_stake(throws, q, winner) * mult, "throw")
    for i, a in enumerate(others):
        for b in others[i + 1:]:
            if liezi[a] and liezi[b]:
                continue
            if liezi[a] or liezi[b]:
                frm, to = (b, a) if liezi[a] else (a, b)
                amount = LIEZI_PAY
            else:
                diff = eff[a] - eff[b]
                if diff == 0:
                    continue
                frm, to = (b, a) if diff > 0 else (a, b)
                amount = _ceil_div(abs(diff), 10 * e(a, b))
            pay(dianpao if dianpao is not None else frm, to, amount, "non-winners")
    return transfers, net


# --- the JSON contracts (§10) --------------------------------------------------------------------

def parse_meld(text, wild) -> Meld:
    kind, faces = split_meld(text)
    if wild in faces:
        raise RequestError(f"a wild ({face_name(wild)}) is never part of a shown set")
    return make_meld(kind, faces, None)


def score_request(req) -> dict:
    """§10 score_hands for one request object."""
    try:
        lang, seat = read_head(req, VARIANT_ID)
        wild_text = req.get("wild")
        if wild_text in (None, ""):
            raise RequestError("traditional Taizhou always has a wild: give the indicator's face as wild")
        wild = parse_tile(wild_text)
        flower = flower_face(wild)
        hand, melds, win = read_hand(req, wild, parse_meld)
        flowers = whole(req, "flowers", 0, 0)
        if flowers > 4:
            raise RequestError(f"flowers must be 0-4 (got {flowers})")
        self_drawn = flag(req, "self_drawn")
        robbed = flag(req, "robbed_kong")
        kong_rep = flag(req, "kong_replacement")
        last = flag(req, "last_tile")
        expected = 13 - 3 * len(melds)
        if expected < 1:
            raise RequestError(f"too many melds ({len(melds)})")
        if len(hand) != expected:
            raise RequestError(
                f"hand has {len(hand)} tiles; with {len(melds)} meld(s) it must have {expected}"
                + (" (the winning tile goes in win, not in hand)" if win is not None and len(hand) == expected + 1
                   else ""))
        physical = list(hand) + [t for m in melds for t in m.tiles] + ([] if win is None else [win])
        if flower in physical:
            raise RequestError(f"{face_name(flower)} is this hand's flower: count it in flowers, never in hand, "
                               "melds or win")
        for f in sorted(set(physical)):
            limit = 3 if f == wild else 4
            if physical.count(f) > limit:
                extra = " (the indicator is the fourth)" if f == wild else ""
                raise RequestError(f"{physical.count(f)} copies of {face_name(f)}: there are only {limit}{extra}")
        seat_wind = SEAT_WIND[seat]
        if win is None:
            if self_drawn or robbed or kong_rep or last:
                raise RequestError("self_drawn, robbed_kong, kong_replacement and last_tile need a winning tile (win)")
            return score_nonwinner(hand, melds, seat_wind, wild, flowers).as_dict(lang)
        if robbed and self_drawn:
            raise RequestError("robbed_kong needs self_drawn: false")
        if kong_rep and not self_drawn:
            raise RequestError("kong_replacement needs self_drawn: true")
        if kong_rep and not any(m.is_kong for m in melds):
            raise RequestError("kong_replacement needs a kong in melds")
        if last and not self_drawn:
            raise RequestError("last_tile needs self_drawn: true")
        if win == wild and not self_drawn:
            raise RequestError(f"a discarded wild ({face_name(win)}) cannot be won on")
        return score(hand, melds, win, self_drawn, seat_wind, wild, flowers=flowers, robbed_kong=robbed,
                     kong_replacement=kong_rep, last_tile=last).as_dict(lang)
    except (RequestError, TileError, NotAWin) as e:
        return {"ok": False, "error": str(e)}


def settle_request(req) -> dict:
    """§10 settle_hands for one request object."""
    try:
        if not isinstance(req, dict) or req.get("variant") != VARIANT_ID:
            raise RequestError(f"not a {VARIANT_ID} request")
        raw = req.get("totals")
        if not isinstance(raw, dict) or not raw:
            raise RequestError("totals must be an object like {\"E\": 40, \"S\": 150}")
        unknown = [s for s in raw if s not in SEAT_NAMES]
        if unknown:
            raise RequestError(f"unknown seat(s) in totals: {', '.join(map(str, unknown))}")
        seats = [s for s in SEAT_NAMES if s in raw]
        if len(seats) < 2:
            raise RequestError("totals need at least two seats")
        totals = {}
        for s in seats:
            v = raw[s]
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise RequestError(f"totals[{s}] must be a whole number of 0 or more (got {v!r})")
            totals[s] = v
        dealer, winner, discarder = req.get("dealer"), req.get("winner"), req.get("discarder")
        if dealer not in seats:
            raise RequestError(f"the dealer {dealer!r} is not seated")
        if winner is not None and winner not in seats:
            raise RequestError(f"the winner {winner!r} is not seated")
        if discarder is not None:
            if discarder not in seats or discarder == winner:
                raise RequestError("discarder must be another seated player (null when self-drawn)")
            if winner is None:
                raise RequestError("a discarder needs a winner")
        capped_raw = req.get("capped") or {}
        if not isinstance(capped_raw, dict):
            raise RequestError("capped must be an object like {\"S\": false}")
        capped = {}
        for s, v in capped_raw.items():
            if s not in totals or not isinstance(v, bool):
                raise RequestError(f"capped[{s}] must be true/false for a seated player")
            if v and totals[s] < LIEZI:
                raise RequestError(f"capped[{s}] is true but totals[{s}] is {totals[s]}: a 劣子 total is {LIEZI}")
            capped[s] = v
        dan = whole(req, "dan", 0, 0)
        streak = whole(req, "streak", 1, 1)
        throws_raw = req.get("throws") or []
        if not isinstance(throws_raw, list):
            raise RequestError("throws must be a list like [{\"by\": \"E\", \"at\": \"S\", \"amount\": 5}]")
        throws = []
        for t in throws_raw:
            if not isinstance(t, dict) or set(t) - {"by", "at", "amount"}:
                raise RequestError("each throw is {\"by\", \"at\", \"amount\"}")
            by, at, amount = t.get("by"), t.get("at"), t.get("amount")
            if by not in seats or at not in seats or by == at:
                raise RequestError(f"a throw is between two different seated players (got {by!r} at {at!r})")
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise RequestError(f"a throw's amount must be a whole number of 0 or more (got {amount!r})")
            throws.append({"by": by, "at": at, "amount": amount})
        dianpao = req.get("dianpao")
        if dianpao is not None:
            if winner is None or discarder is None or dianpao != discarder:
                raise RequestError("dianpao must be the discarder of the winning tile (or null)")
        transfers, net = settle(seats, dealer, winner, totals, capped, discarder, dan, streak, throws, dianpao)
        return {"ok": True, "transfers": transfers, "net": net}
    except RequestError as e:
        return {"ok": False, "error": str(e)}


# --- what a seat sees: 生牌 (§3) -------------------------------------------------------------------

def discarded_faces(state) -> set:
    """Faces discarded in this hand, as every seat sees them: the rivers and the discards claimed
    into shown sets (T-D7: concealed kongs, flowers and the indicator do not count)."""
    out = {t for river in state.rivers for t in river}
    out |= {m.claimed for ms in state.melds for m in ms if m.claimed is not None}
    return out


def shengpai_faces(state, seat=None) -> list:
    """The faces still 生 (no tile of them discarded in this hand, T-D7), sorted, as `seat` sees
    them: only the table (rivers, shown sets) is read, never a hand or the wall, so it is the
    same for every seat and a spectator. The flower face is left out (never discarded)."""
    flower = flower_face(state.indicator)
    gone = discarded_faces(state)
    return [f for f in range(NUM_FACES) if f not in gone and f != flower]


def shengpai_stage(state) -> bool:
    """§3: 30 tiles (15 stacks, plus a lone tile if any: T-S2) or fewer left."""
    return any(state.hands) and stacks_left(len(state.wall), SHENG_STACKS)


# --- the variant object (variants/base.py) -----------------------------------------------------

def _flowers(state) -> list:
    f = state.get_extra("flowers")
    return list(f) if f is not None else [0] * state.n


@dataclass(frozen=True)
class TaizhouTrad(IndicatorWild, Variant):
    """传统台州麻将 (taizhou-traditional.md): one indicator (the wall's next tile after the deal),
    wilds may be discarded, no stand-in; whites (or reds) are flowers, shown and replaced from the
    back; 抢杠 on an added kong; 黄牌 at 16 tiles left; 和 × 2^番, 劣子 at 400; payments in 子 with
    弹, 扔弹 and 点炮."""

    name: str = VARIANT_ID
    title: tuple = (("zh", "传统台州麻将"), ("en", "Traditional Taizhou"))
    wall_reserve: int = 2 * END_STACKS  # 16; a lone tile more when the count is odd (T-S2): `exhausted`
    robbing_kong: bool = True  # §3 (T-D10: only a tile added to a shown pung)
    has_contract: bool = True
    playable: bool = True  # the table: games/trad_table.py, templates/games/_throw_prompt.html, _trad_bar.html
    decide_before_deal: bool = True  # §2: 扔弹 is set before a hand is dealt
    room_options: RoomOptions = field(default_factory=lambda: RoomOptions(settings=(
        Setting("dan", DAN_CHOICES, 0),  # DECISION (T-S11)
        Setting("throws", (True, False), True),
    )))

    def score_json(self, req) -> dict:
        return score_request(req)

    def settle_json(self, req) -> dict:
        return settle_request(req)

    # --- room settings and carried data ---
    def dan(self, state) -> int:
        return state.options.setting("dan")

    def streak(self, state) -> int:
        return state.get_extra("streak", 1)

    def throws(self, state) -> list:
        """[{"by", "at", "amount"}] in force (player indices), carried ones first."""
        return [{"by": b, "at": a, "amount": x} for b, a, x in state.get_extra("throws", ())]

    def flowers(self, state) -> list:
        return _flowers(state)

    def flower(self, state) -> int:
        return flower_face(state.indicator)

    def tiles_aside(self, state) -> int:
        return sum(_flowers(state))

    def wild_faces(self, state) -> tuple:
        """The indicator's face; none yet while the 扔弹 questions come before the deal."""
        return () if state.indicator is None else (state.indicator,)

    # --- 扔弹 before the deal (§2) ---
    def pre_hand(self, state):
        """DECISION (T-S10): before the deal, every seat is asked per other seat (k = 1 .. n-1
        seats after it in turn order) how much it throws; "0" (none) is first, the default."""
        if not state.options.setting("throws") or any(state.hands):
            return None
        k = state.get_extra("throw_round", 0) + 1
        if k >= state.n:
            return None
        seats = tuple((state.dealer + j) % state.n for j in range(state.n))
        return Decision(f"throw_{k}", seats, THROW_CHOICES)

    def decided(self, state, decision, answers):
        if decision.name.startswith("throw_"):
            k = int(decision.name.split("_")[1])
            throws = list(state.get_extra("throws", ()))
            for p in sorted(answers):
                amount = int(answers[p])
                if amount:
                    throws.append((p, (p + k) % state.n, amount))
            return state.with_extra("throws", tuple(tuple(t) for t in throws)).with_extra("throw_round", k)
        return super().decided(state, decision, answers)

    # --- the deal and flowers (§1) ---
    def turn_up(self, rest):
        """DECISION (T-S1): the indicator is the next tile of the wall (its front)."""
        return rest[0], rest[1:]

    def _show_flower(self, state, player, events, flowers, deal):
        """Show one flower of `player` and draw its replacement from the back of the wall."""
        from dataclasses import replace

        flower = self.flower(state)
        hand = list(state.hands[player])
        hand.remove(flower)
        flowers[player] += 1
        events.append({"type": E_FLOWER, "seat": player, "tile": face_name(flower), "flowers": flowers[player]})
        wall = list(state.wall)
        tile = wall.pop()
        hand.append(tile)
        hands = list(state.hands)
        hands[player] = tuple(sorted(hand))
        state = replace(state, wall=tuple(wall), hands=tuple(hands),
                        drawn=None if deal else tile, after_kong=False)
        state = state.with_extra("flowers", tuple(flowers))
        events.append(ev.draw(player, tile, True, len(wall)))
        return state, tile

    def after_deal(self, state, events):
        """§1: flowers in the deal are shown and replaced in seat order E, S, W, N; DECISION
        (T-S3): each seat replaces all of its flowers (those drawn as replacements too) in turn."""
        events = list(events)
        flowers = _flowers(state)
        state = state.with_extra("flowers", tuple(flowers))
        flower = self.flower(state)
        for k in range(state.n):
            p = (state.dealer + k) % state.n
            while flower in state.hands[p]:
                state, _ = self._show_flower(state, p, events, flowers, deal=True)
        return state, events

    def after_draw(self, state, player, tile, events):
        """A flower drawn is shown at once and replaced from the back of the wall (§1; T-D3: the
        replacement is no kong's; DECISION (T-S4): even after the last tile). A passed pung may
        be claimed again after one's own draw (§3)."""
        if self.passed_pungs(state, player):
            state = self._set_passed(state, player, ())
        flower = self.flower(state)
        if tile != flower:
            return state, events
        events = list(events)
        flowers = _flowers(state)
        while tile == flower:
            state, tile = self._show_flower(state, player, events, flowers, deal=False)
        return state, events

    # --- claims (§3) ---
    def exhausted(self, state) -> bool:
        """黄牌: 16 tiles (8 stacks, plus a lone tile if any: T-S2) or fewer left."""
        return stacks_left(len(state.wall), END_STACKS)

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
        """§3: a player who passes a pung may not pung that face until their own next draw
        (declining = answering anything but pung, kong or win)."""
        if A_PUNG in options and response.kind not in (A_PUNG, A_KONG, A_WIN):
            state = self._set_passed(state, player, set(self.passed_pungs(state, player)) | {state.last_discard})
        return state

    def claim_options(self, state, player, tile, last: bool) -> tuple:
        """The common claims (DECISION (T-S5): the last discard only won on), without a pung of a
        face passed since the player's last draw."""
        opts = super().claim_options(state, player, tile, last)
        if A_PUNG in opts and tile in self.passed_pungs(state, player):
            opts = tuple(o for o in opts if o != A_PUNG)
        return opts

    def chow_options(self, state, player, tile):
        """Pairs of `player`'s natural tiles that chow `tile` (no stand-in, wilds never chow)."""
        wild = state.indicator
        if tile >= EAST or tile == wild:
            return []
        hand = state.hands[player]
        lo, hi = (tile // 9) * 9, (tile // 9) * 9 + 8
        out = []
        for a, b in ((tile - 2, tile - 1), (tile - 1, tile + 1), (tile + 1, tile + 2)):
            if lo <= a and b <= hi and a != wild and b != wild and a in hand and b in hand:
                out.append((a, b))
        return out

    # --- winning (§4: four sets + a pair, no minimum) ---
    def is_winning(self, state, player, tiles) -> bool:
        wild = state.indicator
        counts = [0] * NUM_FACES
        jokers = 0
        for t in tiles:
            if t == wild:
                jokers += 1
            else:
                counts[t] += 1
        return is_complete(counts, jokers)

    def waits(self, state, tiles) -> list:
        """Faces completing these concealed tiles (the shape only)."""
        wild = state.indicator
        counts = [0] * NUM_FACES
        jokers = 0
        for t in tiles:
            if t == wild:
                jokers += 1
            else:
                counts[t] += 1
        if (sum(counts) + jokers) % 3 != 1:
            return []
        near = set()
        for t in range(NUM_FACES):
            if counts[t]:
                near.update(NEIGHBOURS[t])
        out = []
        alone = None  # a face no natural tile is near can only go with wilds: one answer for all
        for f in range(NUM_FACES):
            if f == wild:
                ok = is_complete(counts, jokers + 1)
            elif f not in near and alone is not None:
                ok = alone
            else:
                counts[f] += 1
                ok = is_complete(counts, jokers)
                counts[f] -= 1
                if f not in near:
                    alone = ok
            if ok:
                out.append(f)
        return out

    def self_kong_options(self, state, player):
        """DECISION (T-S13, T-D2): an added kong only after a draw; a concealed kong any time in
        one's turn."""
        opts = super().self_kong_options(state, player)
        if state.drawn is None:
            opts = [o for o in opts if o[0] != "akong"]
        return opts

    # --- the end of a hand (§4-§6) ---
    def score_of(self, state, player, tile, discarder) -> Score:
        self_drawn = discarder is None
        from_draw = self_drawn and state.drawn is not None
        return score(list(state.hands[player]), state.melds[player], tile, self_drawn, state.seat_wind(player),
                     state.indicator, flowers=_flowers(state)[player], robbed_kong=bool(state.robbing),
                     kong_replacement=from_draw and bool(state.after_kong),
                     last_tile=from_draw and self.exhausted(state))

    def opening_win_tile(self, state, player):
        """DECISION (T-S12): on the dealt fourteen the winning tile is the one that scores most."""
        hand = list(state.hands[player])
        best = None
        for t in sorted(set(hand)):
            rest = list(hand)
            rest.remove(t)
            try:
                s = score(rest, state.melds[player], t, True, state.seat_wind(player), state.indicator,
                          flowers=_flowers(state)[player])
            except NotAWin:
                continue
            key = (s.total, s.points, s.tai)
            if best is None or key > best[0]:
                best = (key, t)
        return best[1] if best else max(hand)

    def dianpao(self, state, winner, tile, discarder):
        """§3 点炮: the discarder, in the 生牌 stage, discarded a 生牌 that is won on — unless
        every tile of their hand (the discard included, T-D11) was 生 and they were not ready
        (DECISION (T-S9): the hand left after the discard waits on nothing). None otherwise
        (and for 抢杠和)."""
        if discarder is None or state.robbing or not stacks_left(len(state.wall), SHENG_STACKS):
            return None
        sheng = set(shengpai_faces(state))
        if tile not in sheng:
            return None
        before = list(state.hands[discarder]) + [tile]
        if all(t in sheng for t in before) and not state.discard_ready:
            return None
        return discarder

    def settle_win(self, state, winner, tile, discarder) -> Result:
        n = state.n
        flowers = _flowers(state)
        scores = tuple(self.score_of(state, q, tile, discarder) if q == winner else
                       score_nonwinner(list(state.hands[q]), state.melds[q], state.seat_wind(q), state.indicator,
                                       flowers[q])
                       for q in range(n))
        d = self.dianpao(state, winner, tile, discarder)
        order = [(state.dealer + k) % n for k in range(n)]
        transfers, net = settle(order, state.dealer, winner, {q: scores[q].total for q in range(n)},
                                {q: scores[q].capped for q in range(n)}, discarder, self.dan(state),
                                self.streak(state), self.throws(state), d)
        return Result(winner, discarder, tile, discarder is None, scores, tuple(transfers),
                      tuple(net[q] for q in range(n)), liable=d, liable_reason="dianpao" if d is not None else None)

    def settle_drawn(self, state) -> Result:
        """黄牌: nothing is paid (§3, §6)."""
        return super().settle_drawn(state)

    def next_hand(self, state):
        """(next dealer, carry {"streak", "throws"}): the dealer keeps the deal only by winning
        (§1); the throws are kept with the deal and lapse when it passes (§2)."""
        if self.keeps_deal(state):
            return state.dealer, {"streak": self.streak(state) + 1,
                                  "throws": [list(t) for t in state.get_extra("throws", ())]}
        return (state.dealer + 1) % state.n, {"streak": 1, "throws": []}

    def table_info(self, state) -> dict:
        """Public to every seat: the room's 弹, the dealer's streak, the throws in force (player
        indices; once a round is answered), each player's flowers and the flower face, whether
        the 生牌 stage is on (and then the faces still 生: read from the table only, the same for
        every seat), and the tiles still to draw before 黄牌."""
        dealt = any(state.hands)
        stage = shengpai_stage(state)
        return {"dan": self.dan(state), "streak": self.streak(state), "throws": self.throws(state),
                "throws_on": bool(state.options.setting("throws")),
                "flowers": _flowers(state), "flower_face": face_name(self.flower(state)) if dealt else None,
                "shengpai": stage, "sheng_faces": [face_name(f) for f in shengpai_faces(state)] if stage else [],
                "tiles_left": max(0, len(state.wall) - 2 * END_STACKS - len(state.wall) % 2) if dealt else None}

    # --- the common contract interface (base.Variant) ---
    @property
    def cap(self):
        return LIEZI

    def score_winner(self, hand, melds, win, self_drawn, seat_wind, wild):
        try:
            return score(hand, melds, win, self_drawn, seat_wind, wild)
        except NotAWin:
            return None

    def score_nonwinner(self, hand, melds, seat_wind, wild=None):
        return score_nonwinner(hand, melds, seat_wind, wild)


VARIANT = TaizhouTrad()

__all__ = ["VARIANT", "Score", "flower_face", "score", "score_nonwinner", "score_request", "settle",
           "settle_request", "shengpai_faces", "shengpai_stage"]
