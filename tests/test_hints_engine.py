"""Hints for one seat (games/engine/hints.py): waits, unseen counts and their scores on hand-made
positions (Taizhou's white stand-in included), the discards closest to ready, why a win is not
offered (stable codes), the hints unchanged when what the seat cannot see is dealt again (the
leak test's method), and the shanten / useful tiles against a brute force on small hands."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from functools import lru_cache

import pytest

from games.engine import bot, game, hints
from games.engine.game import ENDED, Options, apply, new_hand, waiting_player
from games.engine.variants import taizhou
from tests.bot_positions import T, TS, position, shuffle_hidden

OTHERS13 = {2: "223366p445566s2z", 3: "99m7788p11s3344z8s"}


def _waits(h):
    return {w["tile"]: w for w in h["waits"]}


def _ready_position():
    # player 0 waits on 1s/4s; a 4s lies in player 2's river, a 1s in player 3's; players 1 and
    # 3 hold a 1s each in hand, which player 0 cannot see
    hands = {0: "123m789m456p11z23s", 1: "44556688m155p6z1s", 2: "223366p445566s2z", 3: "99m7788p1s3344z8s"}
    return position("taizhou", hands, turn=1, rivers={2: "4s", 3: "1s"}, indicator="9s")


def test_taizhou_waits_counts_and_scores():
    st = _ready_position()
    h = hints.hints(st, 0)
    json.dumps(h)
    assert h["ready"] and h["shanten"] == 0
    w = _waits(h)
    assert set(w) == {"1s", "4s", "9s"}  # 9s: drawing a wild wins too, never on a discard
    assert w["9s"]["discard"] is None and w["9s"]["no_discard_win"] == "wild_not_claimable"
    assert w["9s"]["self_drawn"]["total"] > 0
    hand = list(TS("123m789m456p11z23s"))
    for tile in ("1s", "4s"):
        for self_drawn in (True, False):
            s = taizhou.score_winner(hand, (), T(tile), self_drawn, st.seat_wind(0), st.indicator)
            got = w[tile]["self_drawn" if self_drawn else "discard"]
            assert (got["points"], got["tai"], got["total"]) == (s.points, s.tai, s.total)
        assert w[tile]["discard"]["from"] == 3
        assert w[tile]["self_drawn"]["net"] > 0


def test_unseen_counts_only_what_the_seat_sees():
    st = _ready_position()
    w = _waits(hints.hints(st, 0))
    assert w["1s"]["unseen"] == 3 and w["4s"]["unseen"] == 3  # only the rivers' tiles are seen
    vis = bot.visible_counts(st, 0)
    assert vis[T("1s")] == 1 and vis[T("4s")] == 1 and vis[T("9s")] == 1  # the indicator
    assert vis[T("1m")] == 1  # own hand


def test_taizhou_white_stands_in_for_the_wild_face():
    # 9s is wild (indicator 9s); the white reads as a 9s: 7s + white waits on 8s (closed wait)
    hands = {0: "123m789m456p11z7s5z", 1: "44556688m155p6z1s", **OTHERS13}
    st = position("taizhou", hands, turn=1, indicator="9s")
    h = hints.hints(st, 0)
    w = _waits(h)
    assert "8s" in w
    hand = list(TS("123m789m456p11z7s5z"))
    s = taizhou.score_winner(hand, (), T("8s"), True, st.seat_wind(0), st.indicator)
    assert w["8s"]["self_drawn"]["total"] == s.total and w["8s"]["self_drawn"]["points"] == s.points
    assert w["8s"]["self_drawn"]["net"] > 0


def test_discards_best_first_with_shanten_and_useful_tiles():
    hands = {0: "123m789m456p11z23s7z", 1: "44556688m155p6z", **OTHERS13}
    st = position("taizhou", hands, turn=0, indicator="9s")
    h = hints.hints(st, 0)
    d = h["discards"]
    assert d[0]["tile"] == "7z" and d[0]["shanten"] == 0
    assert {w["tile"] for w in d[0]["waits"]} == {"1s", "4s", "9s"}
    hand = list(st.hands[0])
    unseen = bot.unseen_counts(st, 0)
    for e in d:
        rest = list(hand)
        rest.remove(T(e["tile"]))
        assert e["shanten"] == bot.shanten(rest, (st.indicator,), st.rules.stand_in(st))
        assert e["useful_count"] == sum(unseen[T(t)] for t in e["useful"])
    keys = [(e["shanten"], -e["useful_count"]) for e in d]
    assert keys == sorted(keys)


# --- why a win is not offered -----------------------------------------------------------------

def test_why_no_win_taizhou():
    hands = {0: "123m789m456p11z23s", 1: "44556688m155p6z1s", **OTHERS13}
    st = position("taizhou", hands, turn=1, indicator="9s")
    assert hints.why_no_win(st, 0, "9s", self_drawn=False) == "wild_not_claimable"
    assert hints.why_no_win(st, 0, "5m", self_drawn=False) == "not_winning_shape"
    assert hints.why_no_win(st, 0, "4s", self_drawn=False) is None
    furiten = replace(st, furiten=(frozenset({T("4s")}),) + st.furiten[1:])
    assert hints.why_no_win(furiten, 0, "4s", self_drawn=False) == "furiten"
    assert hints.why_no_win(furiten, 0, "4s", self_drawn=True) is None
    assert hints.why_no_win(furiten, 0, T("1s"), self_drawn=False) is None
    assert set(hints.WHY_CODES) >= {"wild_not_claimable", "not_winning_shape", "furiten", "too_few_tai",
                                    "self_drawn_only"}


def test_why_no_win_zhuji_too_few_tai():
    # no wild faces in the room: chows and a pung in three suits is 屁胡, 0 台: no win at all
    hands = {0: "123m456m777s23p55p", 1: "44556688m1155p6z", **OTHERS13}
    st = position("zhuji", hands, turn=1, wilds=(), settings={"wild_faces": 0})
    assert hints.why_no_win(st, 0, "4p", self_drawn=True) == "too_few_tai"
    assert hints.why_no_win(st, 0, "4p", self_drawn=False) == "too_few_tai"
    h = hints.hints(st, 0)
    assert not h["ready"] and {d["tile"] for d in h["dead_waits"]} == {"1p", "4p"}
    assert all(d["why"] == "too_few_tai" for d in h["dead_waits"])


def test_why_no_win_wenzhou_self_drawn_only():
    # five pungs and a lone wild: any tile pairs the wild (财神马): self-drawn only on a discard
    hands = {0: "111m999m111p999p111s9s", 1: "223344m88p2288s2233z", 2: "5566m77p2233s446655z",
             3: "8877m66p66s4477z44p33z"}
    st = position("wenzhou", hands, turn=1, indicator="9s")
    assert hints.why_no_win(st, 0, "7z", self_drawn=False) == "self_drawn_only"
    assert hints.why_no_win(st, 0, "7z", self_drawn=True) is None
    w = _waits(hints.hints(st, 0))
    assert w["7z"]["discard"] is None and w["7z"]["no_discard_win"] == "self_drawn_only"
    assert w["7z"]["self_drawn"]["total"] > 0


# --- hidden information ------------------------------------------------------------------------

@pytest.mark.parametrize("variant,room", [("taizhou", {}), ("wenzhou", {}), ("zhuji", {"wild_faces": 2})])
def test_hints_ignore_what_the_seat_cannot_see(variant, room):
    rnd = random.Random(7)
    checked = 0
    for seed in (5, 6):
        st, _ = new_hand(Options(variant=variant, settings=room), seed, 0)
        while st.phase != ENDED:
            if st.step % 4 == 0:
                for p in range(st.n):
                    h = hints.hints(st, p)
                    assert hints.hints(shuffle_hidden(st, p, rnd), p) == h
                    json.dumps(h)
                    checked += 1
            p = waiting_player(st)[0]
            st, _ = apply(st, bot.choose(st, p))
    assert checked > 20


# --- shanten against a brute force -------------------------------------------------------------

U = tuple(range(9)) + (27, 28)  # 1m..9m, East, South: small enough to enumerate every hand
SETS = [("pung", f) for f in U] + [("chow", f) for f in range(7)]


@lru_cache(maxsize=None)
def _complete_hands(k):
    out = []
    for combo in itertools.combinations_with_replacement(SETS, k):
        for pair in U:
            c = [0] * 34
            for kind, f in combo:
                for x in ((f, f, f) if kind == "pung" else (f, f + 1, f + 2)):
                    c[x] += 1
            c[pair] += 2
            out.append(tuple(c))
    return out


def brute_shanten(natural, jokers):
    """Replacements needed: min over complete hands C of the natural tiles outside C (3k+1),
    minus one for a 3k+2 hand (one tile goes anyway)."""
    size = len(natural) + jokers
    k = (size - 1) // 3
    c = [0] * 34
    for f in natural:
        c[f] += 1
    best = min(sum(max(0, c[f] - C[f]) for f in U) for C in _complete_hands(k))
    return best if size % 3 == 1 else best - 1


@pytest.mark.parametrize("k", [1, 2])
def test_shanten_and_useful_tiles_against_brute_force(k):
    rnd = random.Random(1000 + k)
    wild = 18  # 1s, outside U
    for _ in range(150):
        jokers = rnd.choice((0, 0, 1, 2))
        size = 3 * k + 1 - jokers
        pool = [f for f in U for _ in range(4)]
        rnd.shuffle(pool)
        natural = pool[:size]
        tiles = natural + [wild] * jokers
        s = bot.shanten(tiles, (wild,))
        assert s == brute_shanten(natural, jokers), (natural, jokers)
        useful = set(bot.useful_faces(tiles, (wild,)))
        for f in U:
            lower = brute_shanten(natural + [f], jokers) < s
            assert (f in useful) == lower, (natural, jokers, f)
        assert wild in useful
        # 3k+2: one more tile, then the best discard
        extra = pool[size]
        s2 = bot.shanten(tiles + [extra], (wild,))
        assert s2 == brute_shanten(natural + [extra], jokers)
