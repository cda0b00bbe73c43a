"""The computer player (games/engine/bot.py) on hand-made positions in every variant: an obvious
win taken, an obvious discard chosen, claims taken and declined, questions before the hand
answered, late-hand defence, every move legal, and the choice unchanged when what the seat
cannot see (the others' concealed tiles, the wall, the seed) is dealt again. Pure engine."""

from __future__ import annotations

import random

import pytest

from games.engine import bot, game
from games.engine.game import (
    A_CHOW,
    A_DECIDE,
    A_DISCARD,
    A_PASS,
    A_PUNG,
    A_WIN,
    ENDED,
    Options,
    apply,
    legal_actions,
    new_hand,
    waiting_player,
)
from tests.bot_positions import T, discard_to, position, shuffle_hidden

# the other seats' tiles in a 4-player Taizhou/Zhuji position (none of them matter)
OTHERS13 = {1: "44556688m1155p6z", 2: "223366p445566s2z", 3: "99m7788p11s3344z8s"}
WENZHOU_OTHERS = {1: "223344m88p1188s2233z", 2: "5566m77p2233s446655z", 3: "8899m66p66s1177z44p33z"}
ZHUJI = {"wild_faces": 1}


def _others(extra=None):
    d = dict(OTHERS13)
    d.update(extra or {})
    return d


# --- wins --------------------------------------------------------------------------------------

WINS = [
    # variant, hand in turn (with the drawn tile), drawn, wilds (Zhuji) / indicator
    ("taizhou", "123m789m456p234s11z", "7m", None),
    ("zhuji", "123m789m456p234s55s", "7m", ("9s",)),  # 平胡 + 无财
    ("wenzhou", "123m456m789m123p456p77s", "7s", None),
]


def _hands(variant, hand0):
    others = WENZHOU_OTHERS if variant == "wenzhou" else OTHERS13
    return {0: hand0, **others}


def _kw(variant):
    return {"wilds": ("9s",), "settings": ZHUJI} if variant == "zhuji" else {"indicator": "9s"}


@pytest.mark.parametrize("variant,hand,drawn,wilds", WINS)
def test_a_self_drawn_win_is_taken(variant, hand, drawn, wilds):
    st = position(variant, _hands(variant, hand), drawn=drawn, **_kw(variant))
    a = bot.choose(st, 0)
    assert a.kind == A_WIN and a in legal_actions(st, 0)
    out = apply(st, a)
    assert out[0].phase == ENDED and out[0].result.winner == 0


@pytest.mark.parametrize("variant,wilds", [("taizhou", None), ("zhuji", ("9s",))])
def test_a_win_on_a_discard_is_taken(variant, wilds):
    # player 0 is ready on 1s/4s; player 3 (upper) holds a 4s and throws it
    st = position(variant, {0: "123m789m456p11z23s", 1: OTHERS13[1], 2: OTHERS13[2], 3: "99m7788p11s3344z4s5s"},
                  turn=3, wilds=wilds, settings=ZHUJI if variant == "zhuji" else None)
    st = discard_to(st, 3, "4s")
    assert st.phase == game.CLAIM
    a = bot.choose(st, 0)
    assert a.kind == A_WIN


# --- discards ----------------------------------------------------------------------------------

DISCARDS = [
    # variant, hand in turn, the one sensible discard
    ("taizhou", "123m789m456p11z23s7z", "7z"),
    ("zhuji", "123m789m456p55s23s7z", "7z"),
    ("taizhou", "123m789m456p11z23s8p", "8p"),  # keep the open wait, throw the lone 8p
]


@pytest.mark.parametrize("variant,hand,tile", DISCARDS)
def test_the_obvious_discard(variant, hand, tile):
    st = position(variant, {0: hand, **OTHERS13}, drawn=None, wilds=("9s",) if variant == "zhuji" else None,
                  settings=ZHUJI if variant == "zhuji" else None)
    a = bot.choose(st, 0)
    assert a == game.Action(A_DISCARD, 0, T(tile))


def test_wenzhou_discard_is_legal_and_leaves_the_hand_ready():
    # 17 tiles, no honours: the lone 9p goes, 45s waits on 3s/6s
    st = position("wenzhou", _hands("wenzhou", "123m456m789m123p77s45s9p"), indicator="9s")
    assert bot.choose(st, 0) == game.Action(A_DISCARD, 0, T("9p"))


def test_wenzhou_forced_honour_is_respected():
    # a lone honour must go first (W-D6): the bot throws it although it spoils nothing else
    st = position("wenzhou", _hands("wenzhou", "123m456m789m123p77s45s1z"), indicator="9s")
    a = bot.choose(st, 0)
    assert a in legal_actions(st, 0) and a.tile == T("1z")


# --- claims ------------------------------------------------------------------------------------

CLAIMS = [
    # variant, player 0's 13 tiles, the tile player 3 throws, expected kind (None = pass)
    ("taizhou", "123m456p11z66z78s3z", "6z", A_PUNG),  # one from ready -> ready
    ("taizhou", "123m456p11z66z78s3z", "6s", A_CHOW),  # 678s: ready
    ("taizhou", "123m456p789p55m23s", "5m", None),  # ready already: a pung only shortens the wait
    ("taizhou", "123m456p789p55m23s", "7p", None),  # a chow would not help either
    ("zhuji", "123m456p11z66z78s3z", "6z", A_PUNG),  # 发 pung: 1 台, ready
]


@pytest.mark.parametrize("variant,hand,tile,kind", CLAIMS)
def test_claims_taken_or_declined(variant, hand, tile, kind):
    hands = {0: hand, 1: "44m77m88m11p22p44s7z", 2: "99m33p99p55s22z44z6m", 3: "88m77p33s77z66p23m" + tile}
    st = position(variant, hands, turn=3, **_kw(variant))
    st = discard_to(st, 3, tile)
    assert st.phase == game.CLAIM and 0 in waiting_player(st)
    a = bot.choose(st, 0)
    assert a in legal_actions(st, 0)
    assert a.kind == (kind or A_PASS)


# --- questions before the hand ----------------------------------------------------------------

def test_zhuji_contract_is_two_tai_with_the_rooms_faces():
    for faces in (0, 1, 2):
        st, _ = new_hand(Options(variant="zhuji", settings={"mode": "bao", "wild_faces": faces}), 5, 0)
        assert st.phase == game.DECIDE
        a = bot.choose(st, 0)
        assert a.kind == A_DECIDE and a.value == f"2:{faces}"


def test_wenzhou_buy_only_with_a_strong_hand():
    from dataclasses import replace

    from games.engine.tiles import parse_tiles

    st, _ = new_hand(Options(variant="wenzhou"), 11, 0)
    assert st.phase == game.DECIDE and st.decision.name == "buy"
    st = replace(st, indicator=T("9s"))
    weak = tuple(sorted(parse_tiles("1147m258p369s1234z567z")))
    strong = tuple(sorted(parse_tiles("123m456m789m12p44s67s99s")))  # two wilds, complete
    for hand, want in ((weak, "no"), (strong, "yes")):
        hands = list(st.hands)
        hands[0] = hand
        a = bot.choose(replace(st, hands=tuple(hands)), 0)
        assert a.kind == A_DECIDE and a.value == want
    # the non-dealers' 顶底 question: answered, legally
    st2, _ = apply(st, game.Action(A_DECIDE, 0, value="no"))
    assert st2.phase == game.DECIDE
    for p in waiting_player(st2):
        assert bot.choose(st2, p) in legal_actions(st2, p)


# --- defence ----------------------------------------------------------------------------------

def test_late_and_far_from_ready_the_bot_throws_a_safe_tile():
    hand = "1m5m9m2p5p8p1s4s7s2z3z6z7z6m"
    rivers = {1: "5s4z", 2: "6m1s", 3: "6m"}
    hands = {0: hand, 1: "22m33m44p11z", 2: "77m88m13p55z66p", 3: "2s3s4s7p8p9p55s1z2z4z"}
    melds = {1: ["pung:777p", "pung:999s"]}
    hands = {0: hand, 1: "22m33m4p11z", 2: "77m88m13p55z66p", 3: "2s3s4s7p8p9p5s1z2z4z3m"}
    kw = dict(melds=melds, rivers=rivers, indicator="9p")
    early = position("taizhou", hands, **kw)
    late = position("taizhou", hands, wall="1234m12345p", **kw)
    a_late = bot.choose(late, 0)
    assert a_late in legal_actions(late, 0)
    visible = bot.visible_counts(late, 0)
    # the tile thrown late is at least as safe as the one thrown early
    a_early = bot.choose(early, 0)
    assert bot._danger(late, 0, a_late.tile, visible) <= bot._danger(late, 0, a_early.tile, visible)
    assert a_late.tile in (T("6m"),)  # 6m: two already thrown and one in hand


# --- every move legal, hidden information unused ----------------------------------------------

VARIANTS = [("taizhou", {}), ("wenzhou", {}), ("zhuji", {"wild_faces": 2}), ("zhuji", {"mode": "bao"}),
            ("zhuji", {"wild_faces": 0})]


def _play(variant, settings, seed, players, check):
    st, _ = new_hand(Options(variant=variant, players=players, settings=settings), seed, seed % players)
    steps = 0
    while st.phase != ENDED:
        p = waiting_player(st)[0]
        a = bot.choose(st, p)
        assert a in legal_actions(st, p), (variant, seed, a)
        check(st, p, a)
        out = apply(st, a)
        assert not isinstance(out, game.Illegal)
        st = out[0]
        steps += 1
        assert steps < 1000
    return st


@pytest.mark.parametrize("variant,room", VARIANTS)
def test_the_choice_ignores_what_the_seat_cannot_see(variant, room):
    rnd = random.Random(42)
    checked = []

    def check(st, p, a):
        if st.step % 3 == 0 or st.phase == game.CLAIM:
            other = shuffle_hidden(st, p, rnd)
            assert legal_actions(other, p) == legal_actions(st, p)
            assert bot.choose(other, p) == a, (variant, st.step, p)
            checked.append(st.phase)

    for seed in (3, 17):
        _play(variant, room, seed, 4, check)
    assert len(checked) > 10


def test_visible_state_hides_everything_hidden():
    st, _ = new_hand(Options(variant="taizhou"), 9, 0)
    vs = bot.visible_state(st, 2)
    assert vs.hands[2] == st.hands[2]
    assert all(vs.hands[q] == () for q in (0, 1, 3))
    assert len(vs.wall) == len(st.wall) and set(vs.wall) <= {0}
    assert vs.seed == 0 and vs.drawn is None
    assert bot.visible_state(vs, 2) is vs


def test_a_decision_is_fast_enough():
    """Not a benchmark (bench/bots.py is): a sanity bound far above the 20 ms goal."""
    import time

    st, _ = new_hand(Options(variant="taizhou"), 123, 0)
    bot.choose(st, 0)
    t = time.perf_counter()
    for _ in range(5):
        bot.choose(st, 0)
    assert (time.perf_counter() - t) / 5 < 0.2
