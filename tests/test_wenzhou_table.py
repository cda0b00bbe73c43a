"""Wenzhou (温州麻将) on the state machine: the deal, wild discards, forced honors, claims
(财神马, a double win first), the settlement of a hand, the next dealer and base
(shared/rules/wenzhou.md §1-§3, §6). Pure engine: no Django.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.engine import game
from games.engine.game import ENDED, Illegal, Options, apply, legal_actions, new_hand
from games.engine.variants.base import Result
from tests.engine_helpers import A, T, make_state

WZ = Options(variant="wenzhou")


def wz_state(**kw):
    """make_state for Wenzhou (16 tiles, 17 for the player in turn): no size check."""
    players = kw.get("players", 4)
    st = make_state(check=False, **kw)
    return replace(st, options=Options(variant="wenzhou", players=players))


OTHERS = {1: "147m258p369s1234z", 2: "147m258p369s1234z", 3: "147m258p369s1234z"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal(players):
    """§1: everyone holds 16, the dealer 17; §2: one indicator turned up, always wilds."""
    st, _ = new_hand(Options(variant="wenzhou", players=players), 5, 1 % players)
    sizes = [len(h) for h in st.hands]
    assert sizes[1 % players] == 17 and sorted(sizes) == [16] * (players - 1) + [17]
    assert st.indicator is not None and st.rules.wild_faces(st) == (st.indicator,)


def _refused(st, tile, why):
    out = apply(st, A("discard", 0, tile))
    assert isinstance(out, Illegal) and out.code == "cannot_discard", out
    assert out.params == {"tile": tile, "why": why}


def _allowed(st, tile):
    out = apply(st, A("discard", 0, tile))
    assert not isinstance(out, Illegal), out


def test_a_wild_is_not_discarded():
    """§2: a wild may not be discarded (wild face 9s)."""
    st = wz_state(hands={0: "123m456m789m123p456p9s7s", **OTHERS}, indicator="9s")
    _refused(st, "9s", "wild")
    _allowed(st, "7s")


def test_two_wilds_left_one_may_go():
    """§2 / W-D12: a concealed hand of exactly two wilds may discard one."""
    melds = {0: ["chow:123m", "chow:456m", "chow:789m", "pung:111p", "pung:222p"]}
    st = wz_state(hands={0: "9s9s", **OTHERS}, indicator="9s", melds=melds)
    _allowed(st, "9s")
    st = wz_state(hands={0: "9s9s3p4p5p", **OTHERS}, indicator="9s", melds={0: melds[0][:4]})
    _refused(st, "9s", "wild")


def test_lone_honors_first():
    """§3 forced honors: lone 1z and 6z go before any suit tile; a pair of honors is not lone."""
    st = wz_state(hands={0: "123m456m789m123p456p1z6z", **OTHERS}, indicator="9s")
    _refused(st, "3p", "honour_first")
    _allowed(st, "1z")
    _allowed(st, "6z")
    st = wz_state(hands={0: "123m456m789m123p456p11z", **OTHERS}, indicator="9s")
    _allowed(st, "3p")


def test_a_lone_white_is_an_honor():
    """W-D6: a lone white counts, even though it could stand for the wild's face."""
    st = wz_state(hands={0: "123m456m789m123p456p5z4p", **OTHERS}, indicator="9s")
    _refused(st, "4p", "honour_first")
    _allowed(st, "5z")


def test_wild_honors_are_never_forced():
    """W-D6: wilds are never forced (wild face 7z: the lone 7z is a wild, not a lone honor)."""
    st = wz_state(hands={0: "123m456m789m123p456p7z4p", **OTHERS}, indicator="7z")
    _allowed(st, "4p")


def test_follow_a_discarded_honor():
    """§3 / W-D6: a lone honor whose face was discarded (in a river, or claimed) goes first."""
    st = wz_state(hands={0: "123m456m789m123p456p1z6z", **OTHERS}, indicator="9s", rivers={1: "6z"})
    _refused(st, "1z", "follow_honour")
    _refused(st, "3p", "follow_honour")
    _allowed(st, "6z")
    st = wz_state(hands={0: "123m456m789m123p456p1z6z", 1: "147m258p369s1z", 2: "147m258p369s1z",
                         3: "147m258p369s1234z"}, indicator="9s", melds={2: ["pung:666z"]})
    _refused(st, "1z", "follow_honour")
    _allowed(st, "6z")


def test_caishenma_is_not_won_on_a_discard():
    """§4 财神马: sets + a lone wild (9s) may not win on a discarded 7z, but wins self-drawn."""
    p1 = "123m456m789m123p456p9s"
    st = wz_state(hands={0: "111m222m333m444p55p6s8s7z", 1: p1, 2: "1247m2558p3689s12z",
                         3: "1247m2558p3689s34z"}, indicator="9s", rivers={0: "9m"})
    st2, _ = apply(st, A("discard", 0, "7z"))
    assert "win" not in st2.claim_options[1]
    assert st.rules.is_winning(st, 1, list(st.hands[1]) + [T("7z")])


def test_a_double_win_beats_a_nearer_one():
    """§3: several wins on one discard: a double win (碰碰胡, player 2) beats the nearer soft win
    (player 1). Payments (§6, base 2): every other pays 2 x 4 = 8; player 1 holds one wild:
    财神钱 2 from each. Net: P2 24 - 2 = 22, P1 -8 + 6 = -2, P0 and P3 -8 - 2 = -10."""
    st = wz_state(hands={0: "123m789m456p789p1234s1z", 1: "234m567m111p678s13p9s1z",
                         2: "222m333m444p555s777s1z", 3: "5566m7788p2233s4s234z"},
                  indicator="9s", rivers={0: "9p", 1: "9m", 2: "8m", 3: "7m"})
    st, _ = apply(st, A("discard", 0, "1z"))
    assert "win" in st.claim_options[1] and "win" in st.claim_options[2]
    for p in (1, 2, 3):
        if st.phase == ENDED:
            break
        if st.claim_options[p] and st.claim_responses[p] is None:
            out = apply(st, A("win" if "win" in st.claim_options[p] else "pass", p, "1z"))
            assert not isinstance(out, Illegal), out
            st, _ = out
    assert st.phase == ENDED and st.result.winner == 2
    assert st.result.scores[2].kind == "double"
    assert st.result.net == (-10, -2, 22, -10)


def _ended(st, result, melds=None):
    return replace(st, phase=ENDED, result=result, melds=melds or st.melds)


def test_next_dealer_and_base():
    """§1: the dealer wins -> deals again, base + 2; another wins -> the lower player deals at
    2; drawn with no kong -> same dealer, same base; drawn with a kong -> the deal passes;
    W-D4: at most four hands in a row (a kept drawn hand counts), then the dice choose."""
    st, _ = new_hand(WZ, 3, 0, {"streak": 2, "base": 4})
    win = lambda w: Result(w, None, 0, True, (), (), (0, 0, 0, 0))  # noqa: E731
    drawn = Result(None, None, None, False, (), (), (0, 0, 0, 0))
    rules = st.rules
    assert rules.base(st) == 4
    kept = {"bought": False, "topped": []}
    assert rules.next_hand(_ended(st, win(0))) == (0, {"streak": 3, "base": 6, **kept})
    assert rules.next_hand(_ended(st, win(2))) == (1, {"streak": 1, "base": 2})
    assert rules.next_hand(_ended(st, drawn)) == (0, {"streak": 3, "base": 4, **kept})
    kong = game.make_meld("kong", [T("1m")] * 4, st.indicator)
    assert rules.next_hand(_ended(st, drawn, ((kong,), (), (), ()))) == (1, {"streak": 1, "base": 2})
    fourth, _ = new_hand(WZ, 3, 0, {"streak": 4, "base": 8})
    dealer, carry = rules.next_hand(_ended(fourth, win(0)))
    assert carry == {"streak": 1, "base": 2} and 0 <= dealer < 4
    assert rules.next_hand(_ended(fourth, win(0))) == (dealer, carry)  # the same dice on a replay


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_hands(players):
    """Random legal play ends every hand: a win (net sums to zero, 财神钱 and win transfers only)
    or a drawn hand with exactly 8 tiles left (§3); a wild leaves a hand only from two wilds."""
    for seed in range(5):
        st, _ = new_hand(Options(variant="wenzhou", players=players), seed, seed % players)
        rng = random.Random(seed)
        for _ in range(3000):
            if st.phase == ENDED:
                break
            p = rng.choice(game.waiting_player(st))
            acts = legal_actions(st, p)
            wins = [a for a in acts if a.kind == "win"]
            a = wins[0] if wins and rng.random() < 0.7 else rng.choice(acts)
            if a.kind == "discard" and a.tile == st.indicator:
                assert list(st.hands[p]) == [st.indicator] * 2
            out = apply(st, a)
            assert not isinstance(out, Illegal), (a, out)
            st, _ = out
        r = st.result
        assert st.phase == ENDED and sum(r.net) == 0
        if r.winner is None:
            assert len(st.wall) == 8 and r.transfers == ()
        else:
            assert {t["why"] for t in r.transfers} <= {"win", "caishen"}
            assert r.scores[r.winner].kind in ("soft", "hard", "double")


def test_buy_and_top_are_asked_before_the_first_turn():
    """§6: the dealer may buy (买底), then each non-dealer may top (顶底), in turn order."""
    st, _ = new_hand(WZ, 11, 2)
    assert st.phase == game.DECIDE and st.decision.name == "buy" and st.decision.seats == (2,)
    st, _ = apply(st, game.Action("decide", 2, value="yes"))
    assert st.decision.name == "top" and st.decision.seats == (3, 0, 1)
    for q, v in ((3, "no"), (0, "yes"), (1, "no")):
        st, _ = apply(st, game.Action("decide", q, value=v))
    assert st.phase == game.DISCARD and st.turn == 2
    assert st.rules.bought(st) and st.rules.topped(st) == (0,)
    win = Result(2, None, 0, True, (), (), (0, 0, 0, 0))
    assert st.rules.next_hand(_ended(st, win)) == (2, {"streak": 2, "base": 4, "bought": True, "topped": [0]})


def test_the_obliged_are_not_asked():
    """§6: a dealer who bought buys again while keeping the deal; a non-dealer who topped tops
    again in every hand of the same dealer (neither is asked)."""
    st, _ = new_hand(WZ, 11, 0, {"streak": 2, "base": 4, "bought": True, "topped": [3]})
    assert st.decision.name == "top" and st.decision.seats == (1, 2)
    st, _ = apply(st, game.Action("decide", 1, value="no"))
    st, _ = apply(st, game.Action("decide", 2, value="no"))
    assert st.phase == game.DISCARD and st.rules.bought(st) and st.rules.topped(st) == (3,)
    st, _ = new_hand(WZ, 11, 0, {"streak": 2, "base": 4, "bought": True, "topped": [1, 2, 3]})
    assert st.phase == game.DISCARD


def test_a_win_pays_with_buy_and_top():
    """§6: the double-win hand above, the dealer (0) bought and player 2 topped: d = 4, the
    0-2 base 8: player 0 pays 8 x 4 = 32, players 1 and 3 pay 2 x 4 = 8; 财神钱 as before.
    Net: P2 48 - 2 = 46, P1 -8 + 6 = -2, P0 -32 - 2 = -34, P3 -8 - 2 = -10."""
    st = wz_state(hands={0: "123m789m456p789p1234s1z", 1: "234m567m111p678s13p9s1z",
                         2: "222m333m444p555s777s1z", 3: "5566m7788p2233s4s234z"},
                  indicator="9s", rivers={0: "9p", 1: "9m", 2: "8m", 3: "7m"})
    st = replace(st, extra=(("buy", ((0, "yes"),)), ("top", ((1, "no"), (2, "yes"), (3, "no")))))
    st, _ = apply(st, A("discard", 0, "1z"))
    for p in (1, 2, 3):
        if st.phase != ENDED and st.claim_options[p] and st.claim_responses[p] is None:
            st, _ = apply(st, A("win" if "win" in st.claim_options[p] else "pass", p, "1z"))
    assert st.result.winner == 2 and st.result.net == (-34, -2, 46, -10)


def test_odd_bases():
    """§1: rooms set to odd bases start at 3 and rise 3, 5, 7, 9."""
    odd = Options(variant="wenzhou", settings={"odd_base": True})
    st, _ = new_hand(odd, 4, 1)
    assert st.rules.base(st) == 3
    win = Result(1, None, 0, True, (), (), (0, 0, 0, 0))
    dealer, carry = st.rules.next_hand(_ended(st, win))
    assert dealer == 1 and carry["base"] == 5
    other = Result(2, None, 0, True, (), (), (0, 0, 0, 0))
    assert st.rules.next_hand(_ended(st, other)) == (2, {"streak": 1, "base": 3})
    with pytest.raises(ValueError):
        Options(variant="wenzhou", settings={"odd_base": "yes"})


def test_tianhu_and_dihu_at_the_table():
    """§5 天胡: the dealer wins on the 17 dealt tiles; 地胡 (W-D10): a non-dealer wins on the
    dealer's first discard. Both double. 天胡 with one wild, base 2: 2 x 4 = 8 from each other
    player, and the winner's 财神钱 doubled (W-D1): 1 x 2 x 2 = 4 from each: net 24 + 12 = 36."""
    others = "147m258p368s1234z"  # no wild (9s)
    hands = {0: "234m567m111p678s13p9s22z", 1: "123m456m789m123p456p7z", 2: others, 3: others}
    st = wz_state(hands=hands, indicator="9s")
    out = apply(st, A("win", 0))
    assert not isinstance(out, Illegal), out
    st2, _ = out
    s = st2.result.scores[0]
    assert s.kind == "double" and "天胡" in s.reasons and s.wilds == 1
    assert st2.result.net == (36, -12, -12, -12)
    # the dealer discards 3s; player 1 (sets + a lone 3s) wins on it before any draw: 地胡
    hands = {0: "234m567m111p13p34678s9s", 1: "123m456m789m123p456p3s", 2: others, 3: others}
    st = wz_state(hands=hands, indicator="9s")
    st, _ = apply(st, A("discard", 0, "3s"))
    assert "win" in st.claim_options[1]
    st, _ = apply(st, A("win", 1, "3s"))
    for p in (2, 3):
        if st.phase != ENDED and st.claim_options[p] and st.claim_responses[p] is None:
            st, _ = apply(st, A("pass", p))
    s = st.result.scores[1]
    assert st.result.winner == 1 and s.kind == "double" and s.reasons == ("地胡",)


def test_a_passed_pung_is_not_offered_again_until_the_next_draw():
    """§3 碰牌不可飘张: player 2 passes a pung of 5p; the same face discarded again before
    their next draw is not offered to pung; after their draw it is."""
    hands = {0: "123m456m789m12p5p789s11z", 1: "234m567m789p5p234s9s11z", 2: "123m456m55p111s24s789s",
             3: "147m258m369m147s369p8s"}
    st = wz_state(hands=hands, indicator="3z", wall="6m8m9m2p3p4p6p8p7s8s9s")  # more than 8 left
    st, _ = apply(st, A("discard", 0, "5p"))
    assert st.claim_options[2] == ("pung",)
    st, _ = apply(st, A("pass", 2))
    assert st.phase == game.DISCARD and st.turn == 1  # player 1 drew
    assert "pung" not in st.rules.claim_options(st, 2, T("5p"), False)
    st, _ = apply(st, A("discard", 1, "5p"))
    assert st.turn == 2 and st.drawn is not None  # nobody could claim: player 2 drew
    assert st.rules.passed_pungs(st, 2) == ()
    assert "pung" in st.rules.claim_options(replace(st, turn=1), 2, T("5p"), False)


QQ_MELDS = ["chow:123m", "pung:444p", "chow:234s", "pung:111z"]


def _quanqiu_table(p1_hand):
    """Player 1 holds four melds and four tiles, one of them the wild 9s; player 0 discards 5p."""
    hands = {0: "234m567m111p678s13p5p", 1: p1_hand, 2: "147m258p368s12346z", 3: "147m258p368s12346z"}
    return wz_state(hands=hands, indicator="9s", melds={1: QQ_MELDS}, rivers={0: "9m", 1: "9m"},
                    wall="6m8m2p3p4p6p8p7s8s2z3z4z")


@pytest.mark.parametrize("p1_hand, claim, discard", [
    ("55p9s7s", A("pung", 1, "5p"), "7s"),      # pung with two of the other three
    ("46p9s7s", A("chow", 1, "5p", "46p"), "7s"),  # chow with two of the other three
    ("555p9s", A("kong", 1, "5p"), "4z"),  # a kong with all three; the replacement (4z) goes
])
def test_quanqiu_wins_when_nobody_takes_the_discard(p1_hand, claim, discard):
    """§4 全球神: claiming so that only the wild remains, then a discard nobody wins: the player
    wins at once, double (§5): base 2 x 4 = 8 from each other player; 财神钱 (W-D1) 1 x 2 x 2
    = 4 from each. Net +36."""
    st = _quanqiu_table(p1_hand)
    st, _ = apply(st, A("discard", 0, "5p"))
    out = apply(st, claim)
    assert not isinstance(out, Illegal), out
    st, _ = out
    for p in (2, 3):
        if st.phase == game.CLAIM and st.claim_options[p] and st.claim_responses[p] is None:
            st, _ = apply(st, A("pass", p))
    assert st.turn == 1 and st.phase == game.DISCARD
    st, events = apply(st, A("discard", 1, discard))
    for p in (0, 2, 3):
        if st.phase == game.CLAIM and st.claim_options[p] and st.claim_responses[p] is None:
            st, events = apply(st, A("pass", p))
    assert st.phase == ENDED and st.result.winner == 1
    s = st.result.scores[1]
    assert s.kind == "double" and s.reasons == ("全球神",) and s.wilds == 1
    assert st.result.net[1] == 36 and events[-1]["type"] == "win"


def test_no_quanqiu_without_a_claim():
    """§4: keeping only a wild by a draw and a discard is no 全球神: play goes on."""
    hands = {0: "234m567m111p678s13p5p", 1: "9s", 2: "147m258p368s12346z", 3: "147m258p368s12346z"}
    st = wz_state(hands=hands, indicator="9s", melds={1: QQ_MELDS + ["pung:555s"]}, rivers={0: "9m", 1: "9m"},
                  wall="6m8m2p3p4p6p8p7s8s2z3z4z")
    st, _ = apply(st, A("discard", 0, "5p"))
    assert st.turn == 1 and st.drawn == T("6m")
    st, _ = apply(st, A("discard", 1, "6m"))
    assert st.phase != ENDED and st.turn == 2


def _kong_table(p0_hand, p0_melds):
    others = "147m258p368s12346z"
    hands = {0: p0_hand, 1: "123m456m789m12p9s46p11z", 2: others, 3: others}
    return wz_state(hands=hands, indicator="9s", melds={0: p0_melds} if p0_melds else None,
                    rivers={0: "9m", 1: "9m"}, drawn="5p", wall="6m8m2p3p4p6p8p7s8s2z3z4z")


def test_robbing_an_added_kong():
    """§3 抢杠 + §5: player 1 (12p + wild, 46p, 11z) robs the 5p player 0 adds to a shown pung:
    a wild stands in, but a robbed kong is hard: base 2 x 2 = 4 from each; 财神钱 2 from each:
    net +18. The robbed tile leaves the kong: player 0 shows a pung again."""
    st = _kong_table("123m456m789m11s22s5p", ["pung:555p"])
    st, _ = apply(st, A("akong", 0, "5p"))
    assert st.phase == game.CLAIM and st.robbing and st.claim_options[1] == ("win",)
    st, _ = apply(st, A("win", 1, "5p"))
    r = st.result
    assert r.winner == 1 and r.discarder == 0
    assert r.scores[1].kind == "hard" and "robbed kong" in r.scores[1].reasons
    assert r.net == (-6, 18, -6, -6)
    assert [m.kind for m in st.melds[0]] == ["pung"]


def test_an_added_kong_not_robbed_draws_its_replacement():
    st = _kong_table("123m456m789m11s22s5p", ["pung:555p"])
    st, _ = apply(st, A("akong", 0, "5p"))
    st, _ = apply(st, A("pass", 1))
    assert st.phase == game.DISCARD and st.turn == 0 and not st.robbing
    assert st.drawn == T("4z") and [m.kind for m in st.melds[0]] == ["kong"]


def test_a_concealed_kong_is_not_robbed():
    """§3: a concealed kong cannot be robbed."""
    st = _kong_table("123m456m789m1s5555p", None)
    st, _ = apply(st, A("ckong", 0, "5p"))
    assert st.phase == game.DISCARD and st.turn == 0 and st.drawn == T("4z")
