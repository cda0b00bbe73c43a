"""全包 full liability (taizhou.md §9) through the hand state machine.

1. The winner has a full flush and chowed from their upper player 3 or more times -> the upper
   player pays the winner what every non-winner owes; the others pay the winner nothing.
2. The winner wins on a dragon discarded as a fresh tile (生牌: no tile of that face visible on
   the table before) by a player who was ready (听牌) -> the discarder.
3. The winner had exposed pungs/kongs of two dragons and wins on a discard of the third dragon,
   completing its pung -> the discarder. Only sets the discarder could see count: a claimed pung,
   an exposed or added kong; a concealed kong lies face down and does not (seed 000:
   中發白任意兩者碰了).
Exemption: whoever would be liable is not when they themself hold 3 台 (seat wind and dragon
sets) or are ready with a full flush. Non-winners always settle among themselves.

Note: in case 3 the liable discarder can never hold 3 台: the winner holds three of each of
two dragons and two of the third, so only one tile of each dragon is left and the discarder's
own seat-wind set is worth 1 台 at most. The 3-台 exemption is therefore tested in cases 1
and 2; case 3 is tested with the full-flush exemption.
"""

from __future__ import annotations

import pytest

from games.engine.game import ENDED
from games.engine.variants import taizhou

from tests.engine_helpers import A, T, expected_transfers, make_state, play

def transfers(result):
    return sorted((t["from"], t["to"], t["amount"]) for t in result.transfers)


def check_settlement(st, liable, reason):
    r = st.result
    assert st.phase == ENDED
    assert r.liable == liable
    assert r.liable_reason == reason
    assert transfers(r) == expected_transfers(r, st.dealer, liable)
    assert sum(r.net) == 0
    for q in range(st.n):
        got = sum(x for f, t, x in transfers(r) if t == q) - sum(x for f, t, x in transfers(r) if f == q)
        assert r.net[q] == got
    if liable is not None:
        # only the liable player pays the winner
        assert {f for f, t, x in transfers(r) if t == r.winner} == {liable}


# --- case 1: full flush with three chows from the upper player ---------------------------

def test_full_flush_three_chows_played_out_upper_pays_everything():
    """Player 1 chows 3p, 6p and 9p from player 0 (their upper player), then wins a full flush
    of pins on player 2's 9p: player 0 pays for everyone though player 2 discarded."""
    hands = {
        0: "369p147m258m147s47z",      # the dealer discards 3p, 6p, 9p in turn
        1: "12p45p78p66p78p123z",      # chows 123p, 456p, 789p; keeps 66p78p (waits 6p/9p)
        2: "258m369m28s1234z6z",
        3: "369m147s28s369p12z",
    }
    st = make_state(hands=hands, wall="6z7z4z6z7z4z9p", indicator="5s")
    seq = [
        A("discard", 0, "3p"), A("chow", 1, "3p", "12p"), A("discard", 1, "1z"),
        A("discard", 2, "6z"), A("discard", 3, "7z"),
        A("discard", 0, "6p"), A("chow", 1, "6p", "45p"), A("discard", 1, "2z"),
        A("discard", 2, "6z"), A("discard", 3, "7z"),
        A("discard", 0, "9p"), A("chow", 1, "9p", "78p"), A("discard", 1, "3z"),
    ]
    for a in seq:
        st, _ = play(st, a)
        if a.kind == "discard" and a.tile in (T("3p"), T("6p"), T("9p")) and a.seat == 0:
            assert st.claim_options[1] == ("chow",) or "chow" in st.claim_options[1]
    assert st.chows_from_upper[1] == 3
    assert [m.notation() for m in st.melds[1]] == ["chow:123p", "chow:456p", "chow:789p"]
    assert st.turn == 2 and st.drawn == T("9p")
    st, _ = play(st, A("discard", 2, "9p"))
    assert "win" in st.claim_options[1]
    st, _ = play(st, A("win", 1, "9p"))
    r = st.result
    assert r.winner == 1 and r.discarder == 2 and r.scores[1].full_flush
    assert r.scores[1].total == 80  # reward 10, full flush 3 台
    check_settlement(st, liable=0, reason="full_flush_chows")
    # the dealer owes 80, players 2 and 3 (neither the dealer) 40 each: player 0 pays 160
    assert (0, 1, 160) in transfers(r)


# Player 1 holds chows 123p 456p 789p taken from player 0 (their upper player) and 66p78p,
# waiting on 6p/9p for a full flush of pins. Player 2 discards 9p.
FLUSH_WINNER = "66p78p"
FLUSH_MELDS = ["chow:123p", "chow:456p", "chow:789p"]
P2_WITH_9P = "258m369m28s1234z6z9p"
P3_JUNK = "147m147s258s2347z"
P0_PLAIN = "258m369m147s1456z"
P0_THREE_TAI = "111z258m4s"  # + exposed pungs of 6z and 7z: own seat wind E + two dragons
P0_READY_FLUSH = "1112345678999m"  # 九莲: ready on every character


def _flush_state(p0, p0_melds=(), p1=FLUSH_WINNER, p1_melds=FLUSH_MELDS):
    return make_state(hands={0: p0, 1: p1, 2: P2_WITH_9P, 3: P3_JUNK},
                      melds={0: list(p0_melds), 1: list(p1_melds)}, turn=2)


def _win_on(st, discarder, winner, tile):
    st, _ = play(st, A("discard", discarder, tile))
    assert "win" in st.claim_options[winner], st.claim_options
    st, _ = play(st, A("win", winner, tile))
    assert st.result.winner == winner and st.result.discarder == discarder
    return st


def test_full_flush_three_chows_upper_liable():
    st = _win_on(_flush_state(P0_PLAIN), 2, 1, "9p")
    assert st.chows_from_upper[1] == 3
    assert st.result.scores[1].full_flush
    check_settlement(st, liable=0, reason="full_flush_chows")


def test_full_flush_three_chows_self_drawn_upper_liable():
    st = make_state(hands={0: P0_PLAIN, 1: FLUSH_WINNER + "9p", 2: "258m369m28s1234z6z", 3: P3_JUNK},
                    melds={1: FLUSH_MELDS}, turn=1, drawn="9p")
    st, _ = play(st, A("win", 1))
    assert st.result.self_drawn and st.result.discarder is None
    check_settlement(st, liable=0, reason="full_flush_chows")


def test_full_flush_with_only_two_chows_is_nobodys_liability():
    st = make_state(hands={0: P0_PLAIN, 1: "66p89p", 2: "258m369m28s1234z6z7p", 3: P3_JUNK},
                    melds={1: ["chow:123p", "chow:456p", "pung:777p"]}, turn=2)
    assert st.chows_from_upper[1] == 2
    st = _win_on(st, 2, 1, "7p")
    assert st.result.scores[1].full_flush
    check_settlement(st, liable=None, reason=None)


def test_three_chows_without_a_full_flush_is_nobodys_liability():
    st = make_state(hands={0: P0_PLAIN, 1: "66p77z", 2: "258m369m28s1234z6z6p", 3: "147m147s258s234z1p"},
                    melds={1: FLUSH_MELDS}, turn=2)
    st = _win_on(st, 2, 1, "6p")
    assert not st.result.scores[1].full_flush  # a half flush: pins and Red dragons
    check_settlement(st, liable=None, reason=None)


@pytest.mark.parametrize("p0,p0_melds,why", [
    (P0_THREE_TAI, ["pung:666z", "pung:777z"], "3 台: seat wind E + Green + Red"),
    (P0_READY_FLUSH, [], "ready with a full flush"),
])
def test_full_flush_upper_player_exempt(p0, p0_melds, why):
    st = _flush_state(p0, p0_melds)
    if p0_melds:
        assert taizhou.score_nonwinner(st.hands[0], st.melds[0], st.seat_wind(0)).tai == 3
    st = _win_on(st, 2, 1, "9p")
    assert st.result.scores[1].full_flush and st.chows_from_upper[1] == 3
    check_settlement(st, liable=None, reason=None)


# --- case 2: a fresh dragon discarded by a ready player ----------------------------------
# Player 2 (West) holds 123m 456m 789m 111s and a single 中 (7z): a single wait on 中.
# Player 0 (the dealer) discards 7z. Player 3 holds a concealed pung of 9m (8 胡), so the
# non-winners have something to settle among themselves.

FRESH_WINNER = "123m456m789m111s7z"
FRESH_P1 = "1478m147p147s234z"
FRESH_P3 = "999m258p36s12346z"
P0_READY = "234p567p789p22s45s7z"        # after the 7z: waits on 3s/6s
P0_NOT_READY = "234p567p789p258s1z7z"    # after the 7z: not ready
P0_READY_3TAI = "111z22s45s7z"           # + exposed pungs of 5z and 6z: 3 台, ready on 3s/6s
P0_READY_FULL_FLUSH = "1112345678999p7z"  # after the 7z: ready with a full flush of pins


def _fresh(p0, p0_melds=(), rivers=None):
    st = make_state(hands={0: p0, 1: FRESH_P1, 2: FRESH_WINNER, 3: FRESH_P3},
                    melds={0: list(p0_melds)}, rivers=rivers, turn=0)
    return _win_on(st, 0, 2, "7z")


def test_fresh_dragon_from_a_ready_player_discarder_liable():
    st = _fresh(P0_READY)
    r = st.result
    assert st.seen[T("7z")] == 1 and st.discard_ready
    assert r.scores[2].total == 22  # pung 111s 8, pair 中 2, single wait on a dragon 2, reward 10
    assert r.scores[3].total == 8
    check_settlement(st, liable=0, reason="fresh_dragon")
    # 22 from the dealer + 11 + 11 from the others, all paid by player 0; the non-winners
    # still settle: player 0 pays player 3 8 (dealer involved), player 1 pays player 3 half of 8
    assert transfers(r) == [(0, 2, 44), (0, 3, 8), (1, 3, 4)]
    assert r.net == (-52, -4, 44, 12)


@pytest.mark.parametrize("river", [0, 1, 3])
def test_dragon_seen_before_is_not_fresh(river):
    # a 中 already lies in a river (the discarder's own, too); it cannot be the indicator (then
    # 中 would be wild and never won on) nor in another exposed pung (only four exist)
    hands = {0: P0_READY, 1: FRESH_P1, 2: FRESH_WINNER, 3: FRESH_P3}
    st = make_state(hands=hands, rivers={river: "7z"}, turn=0)
    assert st.seen[T("7z")] == 1
    st = _win_on(st, 0, 2, "7z")
    assert st.seen[T("7z")] == 2 and st.discard_ready
    check_settlement(st, liable=None, reason=None)


def test_fresh_dragon_from_a_player_not_ready_is_nobodys_liability():
    st = _fresh(P0_NOT_READY)
    assert not st.discard_ready
    check_settlement(st, liable=None, reason=None)


@pytest.mark.parametrize("p0,p0_melds,why", [
    (P0_READY_3TAI, ["pung:555z", "pung:666z"], "3 台: White + Green + own seat wind East"),
    (P0_READY_FULL_FLUSH, [], "ready with a full flush"),
])
def test_fresh_dragon_discarder_exempt(p0, p0_melds, why):
    st = _fresh(p0, p0_melds)
    assert st.discard_ready
    check_settlement(st, liable=None, reason=None)


# --- case 3: the third dragon's pung --------------------------------------------------------
# Player 2 has exposed pungs of White and Green and holds 77z 123m 11s (waits on 中 or 1s).
# A 中 already lies in player 3's river, so the discard is not fresh.

THIRD_WINNER = "77z123m11s"
THIRD_MELDS = ["pung:555z", "pung:666z"]
THIRD_P1 = "147m147p147s1234z"
THIRD_P3 = "369m258p368s1234z"


def _third(p0, p2=THIRD_WINNER, tile="7z"):
    st = make_state(hands={0: p0, 1: THIRD_P1, 2: p2, 3: THIRD_P3}, melds={2: THIRD_MELDS},
                    rivers={3: "7z"}, turn=0)
    return _win_on(st, 0, 2, tile)


def test_third_dragon_pung_discarder_liable():
    st = _third("234p567p789p258s1z7z")  # player 0 is not even ready
    r = st.result
    assert not st.discard_ready
    assert r.scores[2].tai == 3 and r.scores[2].capped and r.scores[2].total == 100
    check_settlement(st, liable=0, reason="third_dragon")
    assert (0, 2, 300) in transfers(r)  # capped: every non-winner owes 100, dealer or not


def test_third_dragon_when_the_discard_is_also_fresh():
    st = make_state(hands={0: P0_READY, 1: THIRD_P1, 2: THIRD_WINNER, 3: THIRD_P3},
                    melds={2: THIRD_MELDS}, turn=0)
    st = _win_on(st, 0, 2, "7z")
    assert st.result.liable == 0 and st.result.liable_reason in ("third_dragon", "fresh_dragon")


def test_other_tile_of_the_double_wait_is_nobodys_liability():
    st = _third("234p567p789p258m1z1s", tile="1s")
    check_settlement(st, liable=None, reason=None)


def test_third_dragon_as_the_pair_is_not_completing_its_pung():
    st = _third("234p567p789p258s1z7z", p2="7z123m456m")
    assert st.result.scores[2].sets[0][:2] == ("pair", T("7z"))
    check_settlement(st, liable=None, reason=None)


def test_third_dragon_self_drawn_is_nobodys_liability():
    st = make_state(hands={0: "234p567p789p258s1z", 1: THIRD_P1, 2: THIRD_WINNER + "7z", 3: THIRD_P3},
                    melds={2: THIRD_MELDS}, rivers={3: "7z"}, turn=2, drawn="7z")
    st, _ = play(st, A("win", 2))
    assert st.result.self_drawn
    check_settlement(st, liable=None, reason=None)


def test_third_dragon_discarder_ready_with_a_full_flush_exempt():
    st = _third("1112345678999p7z")
    assert st.discard_ready
    check_settlement(st, liable=None, reason=None)


# Only dragon sets the discarder could see count: a concealed kong (暗杠) is shown face down.

@pytest.mark.parametrize("melds,liable", [
    (["pung:555z", "pung:666z"], 0),
    (["kong:5555z", "pung:666z"], 0),    # an exposed kong is shown
    (["pung:555z", "kong:6666z"], 0),
    (["kong:5555z", "kong:6666z"], 0),
    (["ckong:5555z", "pung:666z"], None),  # face down: the discarder could not see it
    (["pung:555z", "ckong:6666z"], None),
    (["ckong:5555z", "ckong:6666z"], None),
])
def test_third_dragon_counts_only_dragon_sets_shown_face_up(melds, liable):
    st = make_state(hands={0: "234p567p789p258s1z7z", 1: THIRD_P1, 2: THIRD_WINNER, 3: THIRD_P3},
                    melds={2: melds}, rivers={3: "7z"}, turn=0)
    st = _win_on(st, 0, 2, "7z")
    r = st.result
    assert r.scores[2].sets[0][:2] == ("pung", T("7z"))  # the 中 completes its pung all the same
    assert r.scores[2].capped  # three dragon sets: 3 台
    check_settlement(st, liable=liable, reason=None if liable is None else "third_dragon")


def test_third_dragon_after_an_added_kong_played_out():
    """Player 2 adds the fourth White to their exposed pung (加杠: shown face up), discards the
    replacement; player 0 later discards the 中: liable."""
    st = make_state(hands={0: "234p567p789p258s7z", 1: THIRD_P1, 2: "5z" + THIRD_WINNER, 3: THIRD_P3},
                    melds={2: THIRD_MELDS}, rivers={3: "7z"}, wall="5m9p2s9m", turn=2, drawn="5z")
    st, _ = play(st, A("akong", 2, "5z"))
    assert [m.notation() for m in st.melds[2]] == ["kong:5555z", "pung:666z"] and st.drawn == T("9m")
    st, _ = play(st, A("discard", 2, "9m"), A("discard", 3, "5m"))
    st = _win_on(st, 0, 2, "7z")
    check_settlement(st, liable=0, reason="third_dragon")


def test_concealed_dragon_kong_does_not_make_the_third_dragon_seen():
    # a concealed kong of White and a pung of Green; the 中 is fresh (none shown before) and the
    # discarder is ready: case 3 does not apply, case 2 (fresh dragon) still does
    st = make_state(hands={0: P0_READY, 1: THIRD_P1, 2: THIRD_WINNER, 3: THIRD_P3},
                    melds={2: ["ckong:5555z", "pung:666z"]}, turn=0)
    st = _win_on(st, 0, 2, "7z")
    assert st.seen[T("7z")] == 1 and st.seen[T("5z")] == 0 and st.discard_ready
    check_settlement(st, liable=0, reason="fresh_dragon")
