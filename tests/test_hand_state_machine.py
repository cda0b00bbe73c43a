"""The Taizhou hand state machine (games/engine/game.py) against shared/rules/README.md and
shared/rules/taizhou.md §1-§3, §9.

Scenarios are built with tests/engine_helpers.make_state: hands in mpsz, the wall in draw
order (front first; kong replacements come from its end), the indicator (wild face) 9s unless
said otherwise, so whites (5z) stand in for 9s. "Junk" hands hold isolated tiles (no pairs, no
two tiles of a suit closer than three) and so can never claim anything.
"""

from __future__ import annotations

import itertools
import json

import pytest

from games.engine import game
from games.engine.game import (
    CLAIM,
    DISCARD,
    ENDED,
    Action,
    Illegal,
    Options,
    apply,
    build_wall,
    legal_actions,
    new_hand,
    next_dealer,
    replay,
    tiles_accounted,
    waiting_player,
)
from games.engine.melds import CHOW, CKONG, KONG, PUNG
from games.engine.tiles import format_tiles
from games.engine.variants import taizhou

from tests.engine_helpers import TS, A, T, W, make_state, must_fail, play

JUNK1 = "147m147p147s1234z"  # 13 isolated tiles
JUNK2 = "258m258p258s1234z"
JUNK3 = "369m369p36s12347z"


def claims(state):
    """claim_options as {player: [kinds]} for the players who were asked."""
    return {p: list(k) for p, k in enumerate(state.claim_options) if k}


def event_types(events):
    return [e["type"] for e in events]


# --- 1. deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_deal_dealer_14_others_13_indicator_from_the_end(players, seed):
    st, events = new_hand(Options(players=players), seed, 0)
    wall = build_wall(seed)
    assert sorted(wall) == sorted(f for f in range(34) for _ in range(4))
    # the dealer gets the first 14 tiles, then 13 each in turn order
    assert st.hands[0] == tuple(sorted(wall[:14]))
    for k in range(1, players):
        lo = 14 + 13 * (k - 1)
        assert st.hands[k] == tuple(sorted(wall[lo:lo + 13]))
    dealt = 14 + 13 * (players - 1)
    # the indicator is the last tile of the wall and stays out of play
    assert st.indicator == wall[-1] == st.wild
    assert st.wall == tuple(wall[dealt:-1])
    assert st.wall_count == 136 - dealt - 1
    assert tiles_accounted(st) == 136
    assert st.turn == 0 and st.phase == DISCARD and st.result is None
    assert st.seen[st.indicator] == 1 and sum(st.seen) == 1  # only the indicator is visible
    assert all(m == () for m in st.melds) and all(r == () for r in st.rivers)
    assert events == [{"type": "deal", "dealer": 0, "indicator": format_tiles([st.indicator]),
                       "wild": format_tiles([st.indicator]), "wall": st.wall_count}]


@pytest.mark.parametrize("players,dealer", [(4, 1), (4, 2), (4, 3), (3, 1), (3, 2), (2, 1)])
def test_deal_any_dealer_gets_14_and_the_first_turn(players, dealer):
    st, _ = new_hand(Options(players=players), 99, dealer)
    assert [len(h) for h in st.hands] == [14 if p == dealer else 13 for p in range(players)]
    assert st.turn == dealer and st.dealer == dealer and waiting_player(st) == [dealer]
    assert tiles_accounted(st) == 136


@pytest.mark.parametrize("players,dealer", [(4, 2), (3, 1), (2, 1)])
def test_deal_starts_with_the_dealer_in_turn_order(players, dealer):
    st, _ = new_hand(Options(players=players), 7, dealer)
    wall = build_wall(7)
    assert st.hands[dealer] == tuple(sorted(wall[:14]))
    for k in range(1, players):
        lo = 14 + 13 * (k - 1)
        assert st.hands[(dealer + k) % players] == tuple(sorted(wall[lo:lo + 13]))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_is_deterministic_per_seed(players):
    a, ea = new_hand(Options(players=players), 2024, 1 % players)
    b, eb = new_hand(Options(players=players), 2024, 1 % players)
    assert a == b and ea == eb
    walls = {new_hand(Options(players=players), s, 0)[0].wall for s in range(20)}
    assert len(walls) == 20  # different seeds, different walls


@pytest.mark.parametrize("players,dealer,names", [
    (4, 0, "ESWN"), (4, 1, "NESW"), (4, 3, "SWNE"),
    (3, 0, "ESW"), (3, 1, "WES"), (3, 2, "SWE"),
    (2, 0, "ES"), (2, 1, "SE"),
])
def test_seat_winds_relative_to_the_dealer(players, dealer, names):
    st, _ = new_hand(Options(players=players), 5, dealer)
    assert "".join(st.seat_name(p) for p in range(players)) == names
    assert [st.seat_wind(p) for p in range(players)] == [T(f"{'ESWN'.index(c) + 1}z") for c in names]


@pytest.mark.parametrize("players", [0, 1, 5])
def test_tables_have_2_to_4_players(players):
    with pytest.raises(ValueError):
        Options(players=players)


# --- 2. refused actions leave the state unchanged -------------------------------------------

def _start():
    return make_state(hands={0: JUNK1 + "8m", 1: JUNK2, 2: JUNK3, 3: "123m456m789m11s67p"})


@pytest.mark.parametrize("action", [
    A("discard", 1, "2m"),        # not their turn
    A("discard", 3, "1m"),        # not their turn either
    A("discard", 0, "9p"),        # a tile not held
    A("discard", 0, None),        # no tile
    A("pass", 0),                 # nothing to pass
    A("pung", 0, "1m"),           # no claim on one's own turn
    A("chow", 0, "1m", "23m"),
    A("kong", 0, "1m"),
    A("ckong", 0, "1m"),          # only one 1m
    A("akong", 0, "1m"),          # no pung to add to
    A("win", 0),                  # not a winning hand
    Action("discard", 4, T("1m")),  # no such seat
    Action("discard", -1, T("1m")),
    Action("discard", 0, 34),     # no such tile
    Action("discard", 0, -1),
])
def test_illegal_in_the_discard_phase(action):
    st = _start()
    assert isinstance(must_fail(st, action), Illegal)


def test_discard_of_a_tile_not_held_then_the_real_discard():
    st = _start()
    must_fail(st, A("discard", 0, "5m"))
    st2, events = play(st, A("discard", 0, "8m"))
    assert st2.rivers[0] == (T("8m"),)
    assert T("8m") not in st2.hands[0] and len(st2.hands[0]) == 13
    assert st2.seen[T("8m")] == 1
    assert event_types(events) == ["discard", "draw"]  # nobody can claim 8m: the next player draws
    assert st2.turn == 1 and len(st2.hands[1]) == 14 and st2.drawn == st.wall[0]


def test_nothing_is_legal_after_the_end():
    st = make_state(hands={0: "123m456m789m11s67p8p", 1: JUNK2, 2: JUNK3, 3: JUNK1})
    end, _ = play(st, A("win", 0))
    assert end.phase == ENDED and end.result.winner == 0
    for p in range(4):
        assert legal_actions(end, p) == []
        must_fail(end, A("discard", p, "1m"))
        must_fail(end, A("pass", p))
        must_fail(end, A("win", p))
    assert waiting_player(end) == []
    assert game.auto_action(end, 0) is None


# --- 3. claims and their priority -----------------------------------------------------------
# Player 0 discards 5p: player 1 (lower) can chow it with 46p, player 2 can pung it, player 3
# can win on it (waiting on 5p/8p with 67p).

PRIORITY_HANDS = {0: "1479m1247s12346z5p", 1: "46p258m258s1234z7z", 2: "55p369m36s1234z7z1p",
                  3: "123m456m789m11s67p"}


def _after_5p():
    st = make_state(hands=PRIORITY_HANDS)
    st, events = play(st, A("discard", 0, "5p"))
    return st, events


def test_claim_window_lists_each_players_options():
    st, events = _after_5p()
    assert st.phase == CLAIM and st.last_discard == T("5p")
    assert events[-1] == {"type": "claim_window", "seats": [1, 2, 3]}
    assert claims(st) == {1: ["chow"], 2: ["pung"], 3: ["win"]}
    assert waiting_player(st) == [1, 2, 3]
    assert legal_actions(st, 0) == []
    assert legal_actions(st, 1) == [A("chow", 1, "5p", "46p"), A("pass", 1)]
    assert legal_actions(st, 2) == [A("pung", 2, "5p"), A("pass", 2)]
    assert legal_actions(st, 3) == [A("win", 3, "5p"), A("pass", 3)]


@pytest.mark.parametrize("answers,outcome", [
    # every order of answers: win > pung > chow
    ([A("chow", 1, "5p", "46p"), A("pung", 2, "5p"), A("win", 3, "5p")], ("win", 3)),
    ([A("win", 3, "5p")], ("win", 3)),  # the best possible claim: resolved at once
    ([A("pung", 2, "5p"), A("win", 3, "5p")], ("win", 3)),
    ([A("pass", 3), A("chow", 1, "5p", "46p"), A("pung", 2, "5p")], ("pung", 2)),
    ([A("pass", 3), A("pung", 2, "5p")], ("pung", 2)),  # the chow-only player is not waited for
    ([A("pung", 2, "5p"), A("pass", 3)], ("pung", 2)),
    ([A("chow", 1, "5p", "46p"), A("pass", 3), A("pass", 2)], ("chow", 1)),
    ([A("pass", 2), A("pass", 3), A("chow", 1, "5p", "46p")], ("chow", 1)),
    ([A("pass", 1), A("pass", 2), A("pass", 3)], ("draw", 1)),
    ([A("pass", 3), A("pass", 2), A("pass", 1)], ("draw", 1)),
])
def test_claim_priority(answers, outcome):
    st, _ = _after_5p()
    for a in answers[:-1]:
        st, ev = play(st, a)
        assert st.phase == CLAIM, f"resolved too early after {a}"
        assert ev == [{"type": "claim_answer", "seat": a.seat, "kind": "pass" if a.kind == "pass" else "claim"}]
    st, ev = play(st, answers[-1])
    kind, who = outcome
    if kind == "win":
        assert st.phase == ENDED and st.result.winner == who and st.result.discarder == 0
        assert st.result.win_tile == T("5p") and not st.result.self_drawn
        assert ev[-1]["type"] == "win"
    elif kind == "draw":
        assert st.phase == DISCARD and st.turn == 1 and ev[-1]["type"] == "draw"
        assert st.rivers[0] == (T("5p"),)  # an unclaimed discard stays in the river
    else:
        assert st.phase == DISCARD and st.turn == who and st.drawn is None
        assert ev[-1]["type"] == kind and ev[-1]["seat"] == who and ev[-1]["from"] == 0
        meld = st.melds[who][-1]
        assert meld.kind == kind and meld.claimed == T("5p") and meld.from_seat == 0
        assert st.rivers[0] == ()  # the claimed tile left the discarder's river
        assert len(st.hands[who]) + 3 * len(st.melds[who]) == 14
    assert tiles_accounted(st) == 136


def test_unresolved_window_waits_for_a_better_claim():
    st, _ = _after_5p()
    st, _ = play(st, A("chow", 1, "5p", "46p"))
    assert st.phase == CLAIM and waiting_player(st) == [2, 3]
    st, _ = play(st, A("pung", 2, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [3]  # 3 could still win
    must_fail(st, A("pung", 2, "5p"))  # already answered
    must_fail(st, A("pass", 1))


def test_early_resolution_pung_over_a_chow_only_player():
    st, _ = _after_5p()
    st, _ = play(st, A("pass", 3))
    st, events = play(st, A("pung", 2, "5p"))
    # player 1 could only chow: the pung wins without waiting for them
    assert st.phase == DISCARD and st.turn == 2
    assert [m.notation() for m in st.melds[2]] == ["pung:555p"]
    assert st.melds[1] == ()
    assert event_types(events) == ["claim_answer", "pung"]
    assert legal_actions(st, 1) == []
    must_fail(st, A("chow", 1, "5p", "46p"))
    # after the pung, player 2 discards and the turn goes to player 3 (player 1 is skipped)
    st, events = play(st, A("discard", 2, "1p"))
    assert st.turn == 3 and event_types(events)[-1] == "draw"


@pytest.mark.parametrize("action,why", [
    (A("chow", 2, "5p", "46p"), "only the lower player may chow"),
    (A("pung", 1, "5p"), "no pair of 5p"),
    (A("kong", 2, "5p"), "only two 5p: no kong"),
    (A("win", 1, "5p"), "player 1 is not ready"),
    (A("chow", 1, "5p", "34p"), "tiles not held"),
    (A("chow", 1, "5p", "67p"), "tiles not held"),
    (A("chow", 1, "4p", "46p"), "not the tile just discarded"),
    (A("pung", 2, "6p"), "not the tile just discarded"),
    (A("pass", 0), "the discarder has no claim"),
    (A("discard", 2, "1p"), "not a claim"),
    (A("ckong", 2, "5p"), "not a claim"),
])
def test_illegal_claims(action, why):
    st, _ = _after_5p()
    must_fail(st, action)


def test_only_the_lower_player_may_chow():
    # 2 and 3 hold 46p too, but only 1 (next after the discarder 0) is offered the chow
    hands = {0: "1479m1247s12346z5p", 1: "46p258m258s1234z7z", 2: "146p369m36s1234z7z",
             3: "46p147m258s369s1z7z"}
    st = make_state(hands=hands, indicator="9m")
    st, _ = play(st, A("discard", 0, "5p"))
    assert claims(st) == {1: ["chow"]}
    must_fail(st, A("chow", 2, "5p", "46p"))
    must_fail(st, A("chow", 3, "5p", "46p"))


def _other_suits(suit):
    return [x for x in "mps" if x != suit]


def _chow_table(hand, discard):
    """Player 1 holds `hand` (topped up with isolated tiles of other suits and honors), player 0
    discards `discard`; players 2 and 3 hold nothing of the discard's suit."""
    suit = discard[-1]
    a, b = _other_suits(suit)
    filler = TS(f"147{a}147{b}12346z")
    need = 13 - len(TS(hand))
    p1 = TS(hand) + filler[:need]
    other = f"258{a}369{a}258{b}369{b}6z"
    hands = {0: other + discard, 1: format_tiles(p1), 2: other, 3: other}
    return make_state(hands=hands, indicator="7z")


@pytest.mark.parametrize("hand,discard,options", [
    ("3456p", "5p", ["34p", "46p"]),
    ("34567p", "5p", ["34p", "46p", "67p"]),
    ("1234p", "3p", ["12p", "24p"]),
    ("2378p", "9p", ["78p"]),
    ("1289p", "3p", ["12p"]),
    ("78s", "9s", ["78s"]),
    ("13m", "2m", ["13m"]),
    ("2456m", "3m", ["24m", "45m"]),
    ("55667m", "5m", ["67m"]),
])
def test_chow_lists_every_option(hand, discard, options):
    st = _chow_table(hand, discard)
    st, _ = play(st, A("discard", 0, discard))
    offered = claims(st)
    assert "chow" in offered.get(1, [])
    assert set(offered) == {1}
    assert [a.tiles for a in legal_actions(st, 1) if a.kind == "chow"] == [TS(o) for o in options]
    for o in options:
        after, events = play(st, A("chow", 1, discard, o))
        meld = after.melds[1][0]
        assert meld.kind == CHOW and sorted(meld.tiles) == sorted(TS(o) + (T(discard),))
        assert meld.claimed == T(discard) and meld.from_seat == 0
        assert after.chows_from_upper[1] == 1
        assert after.hands[1] == _minus(st.hands[1], TS(o))
        assert events[-1]["type"] == "chow" and events[-1]["meld"] == meld.notation()
        assert after.turn == 1 and after.phase == DISCARD and tiles_accounted(after) == 136


def _minus(tiles, remove):
    out = list(tiles)
    for t in remove:
        out.remove(t)
    return tuple(out)


# --- 4. wilds and the white stand-in -----------------------------------------------------

def test_white_stands_in_for_the_wild_face_in_a_chow():
    # wild 5p: a discarded white (5z) chows as 5p with 4p6p; two whites in hand pung it as dragons
    hands = {0: JUNK1 + "5z", 1: "46p258m258s1234z7z", 2: "55z369m369s1234z7z", 3: JUNK3}
    st = make_state(hands=hands, indicator="5p", check=True)
    st, _ = play(st, A("discard", 0, "5z"))
    assert claims(st) == {1: ["chow"], 2: ["pung"]}
    assert [a.tiles for a in legal_actions(st, 1) if a.kind == "chow"] == [TS("46p")]
    st, _ = play(st, A("chow", 1, "5z", "46p"), A("pass", 2))
    meld = st.melds[1][0]
    assert meld.kind == CHOW and meld.notation() == "chow:46p5z" and meld.face == T("4p")
    assert meld.claimed == T("5z") and st.chows_from_upper[1] == 1


def test_white_in_hand_stands_in_for_the_wild_face_in_a_chow():
    hands = {0: "1479m1247s12346z6p", 1: "4p7p5z258m258s1234z", 2: JUNK3, 3: "258p369m369s1234z"}
    st = make_state(hands=hands, indicator="5p")
    st, _ = play(st, A("discard", 0, "6p"))
    assert claims(st) == {1: ["chow"]}
    assert [a.tiles for a in legal_actions(st, 1) if a.kind == "chow"] == [TS("4p5z"), TS("7p5z")]
    st, _ = play(st, A("chow", 1, "6p", "7p5z"))
    assert st.melds[1][0].notation() == "chow:67p5z" and st.melds[1][0].face == T("5p")


def test_a_wild_in_hand_never_makes_a_chow():
    # wild 5p: 4p + a wild 5p cannot chow 6p (wilds never appear in exposed melds)
    hands = {0: "1479m1247s12346z6p", 1: "4p5p258m258s1234z7z", 2: JUNK3, 3: "258p369m369s1234z"}
    st = make_state(hands=hands, indicator="5p")
    st, events = play(st, A("discard", 0, "6p"))
    assert claims(st) == {} and event_types(events) == ["discard", "draw"]


def test_a_discarded_wild_is_never_claimed():
    # wild 5p. Player 1 holds 46p (chow), player 2 a pair of 5p (pung), player 3 waits on 5p/8p:
    # none of them may claim the discarded wild; the next player simply draws.
    hands = {0: "1479m1247s1346z5p7z", 1: "46p258m258s1234z7z", 2: "155p369m36s1234z7z",
             3: "123m456m789m11s67p"}
    st = make_state(hands=hands, indicator="5p")
    assert st.hands[2].count(T("5p")) == 2 and st.seen[T("5p")] == 1
    out, events = play(st, A("discard", 0, "5p"))
    assert event_types(events) == ["discard", "draw"]
    assert out.phase == DISCARD and out.turn == 1 and claims(out) == {}
    assert out.rivers[0] == (T("5p"),) and out.furiten[3] == frozenset()
    # the same tile face as a non-wild (wild 9s) is claimable by all three
    st2 = make_state(hands=hands, indicator="9s")
    out2, _ = play(st2, A("discard", 0, "5p"))
    assert claims(out2) == {1: ["chow"], 2: ["pung"], 3: ["win"]}


# --- 5. several winners on one discard: the first from the DEALER in turn order wins ------
# README "Claims" / seed 000 捉冲 rule 6 (从庄家按逆时针方向，顺序在前者): the winner is the first
# claimant counting from the dealer (dealer, dealer's lower player, ...), not the one nearest the
# discarder. Only the wins are ordered that way; win > pung/kong > chow is unchanged.
# In the first tests player 0 is both the dealer and the discarder, so both orders agree.

TWO_WINNERS = {0: "1479m1247s12346z5p", 1: "234m567m888s22z46p", 2: "369m369p36s1347z8p",
               3: "123m456m789m11s67p"}


def _two_winners():
    st = make_state(hands=TWO_WINNERS)
    st, _ = play(st, A("discard", 0, "5p"))
    assert claims(st) == {1: ["win", "chow"], 3: ["win"]}
    return st


def test_two_winners_the_first_from_the_dealer_wins_even_when_the_other_answers_first():
    st = _two_winners()
    st, _ = play(st, A("win", 3, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [1]  # 1 comes first from the dealer: wait
    st, events = play(st, A("win", 1, "5p"))
    assert st.phase == ENDED and st.result.winner == 1 and st.result.discarder == 0
    assert events[-1]["type"] == "win" and events[-1]["seat"] == 1


def test_two_winners_the_first_from_the_dealer_answering_first_ends_the_window():
    st = _two_winners()
    st, _ = play(st, A("win", 1, "5p"))
    assert st.phase == ENDED and st.result.winner == 1


def test_two_winners_the_later_wins_when_the_first_declines():
    st = _two_winners()
    st, _ = play(st, A("pass", 1))
    assert st.phase == CLAIM and st.furiten[1] == frozenset({T("5p")})
    st, _ = play(st, A("win", 3, "5p"))
    assert st.result.winner == 3 and st.result.discarder == 0


def test_two_winners_a_chow_claim_by_the_first_loses_to_the_laters_win():
    st = _two_winners()
    st, _ = play(st, A("chow", 1, "5p", "46p"))
    assert st.furiten[1] == frozenset({T("5p")})  # claiming something else declines the win
    st, _ = play(st, A("win", 3, "5p"))
    assert st.result.winner == 3 and st.melds[1] == ()


def test_two_winners_the_dealer_wins_though_the_other_claimant_is_nearer_the_discarder():
    # dealer 0; player 2 discards; players 0 and 1 can both win: 0 is the dealer. (Player 0 is
    # also the nearer of the two to the discarder: 2 -> 3 -> 0 -> 1.)
    hands = {0: "123m456m789m11s67p", 1: "234m567m888s22z46p", 2: "1479m1247s12346z5p",
             3: "369m369p36s1347z8p"}
    st = make_state(hands=hands, turn=2)
    st, _ = play(st, A("discard", 2, "5p"))
    assert claims(st) == {0: ["win"], 1: ["win"]}
    st, _ = play(st, A("win", 1, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [0]
    st, _ = play(st, A("win", 0, "5p"))
    assert st.result.winner == 0 and st.result.discarder == 2


# Hands for any seating: the discarder throws 5p; each WINS_ON_5P hand wins on it (67p waits on
# 5p/8p, 46p on 5p closed, 5p single), NO_CLAIM has no claim on it. No face is used more than
# four times whatever the seating.
DISCARDS_5P = "1479m1247s12346z5p"
WINS_ON_5P = ("123m456m789m11s67p", "234m567m888s22z46p", "123s456s678s999p5p")
NO_CLAIM = "369m369p36s1347z8p"
PUNGS_5P = "55p369m36s1234z7z1p"


def _first_from_dealer(claimants, dealer, n):
    return min(claimants, key=lambda q: (q - dealer) % n)


def _nearest_to_discarder(claimants, discarder, n):
    return min(claimants, key=lambda q: (q - discarder) % n)


def _several_winners(n, dealer, discarder, claimants, winner_hands=WINS_ON_5P):
    hands = {discarder: DISCARDS_5P}
    it = iter(winner_hands)
    for q in range(n):
        if q != discarder:
            hands[q] = next(it) if q in claimants else NO_CLAIM
    st = make_state(hands=hands, players=n, dealer=dealer, turn=discarder)
    st, _ = play(st, A("discard", discarder, "5p"))
    assert {q for q, kinds in claims(st).items() if "win" in kinds} == set(claimants)
    return st


SEVERAL_WINNERS = [
    (n, dealer, discarder, claimants)
    for n in (4, 3)
    for dealer in range(n)
    for discarder in range(n)
    for k in (2, 3) if k < n
    for claimants in itertools.combinations([q for q in range(n) if q != discarder], k)
]


def test_the_several_winners_table_covers_what_the_rule_changed():
    firsts = [(_first_from_dealer(c, d, n), _nearest_to_discarder(c, t, n), d) for n, d, t, c in SEVERAL_WINNERS]
    assert any(f != near for f, near, _d in firsts)  # the old rule would pick another winner
    assert any(f == d != near for f, near, d in firsts)  # the dealer wins though not the nearest
    assert {(n, len(c)) for n, _d, _t, c in SEVERAL_WINNERS} == {(4, 2), (4, 3), (3, 2)}


@pytest.mark.parametrize("n,dealer,discarder,claimants", SEVERAL_WINNERS)
def test_several_winners_the_first_from_the_dealer_wins_in_any_answer_order(n, dealer, discarder, claimants):
    first = _first_from_dealer(claimants, dealer, n)
    for order in itertools.permutations(claimants):
        st = _several_winners(n, dealer, discarder, claimants)
        for q in order:
            st, events = play(st, A("win", q, "5p"))
            if q == first:
                # nobody still to answer can beat it: the window ends at once
                assert st.phase == ENDED, (order, q)
                r = st.result
                assert r.winner == first and r.discarder == discarder and r.win_tile == T("5p")
                assert events[-1]["type"] == "win" and events[-1]["seat"] == first
                assert next_dealer(st) == (dealer if first == dealer else (dealer + 1) % n)
                break
            # a later claimant answered: wait for the first from the dealer
            assert st.phase == CLAIM and first in waiting_player(st), (order, q)
        else:
            pytest.fail("the first claimant from the dealer never answered")


@pytest.mark.parametrize("n,dealer,discarder,claimants", SEVERAL_WINNERS)
def test_several_winners_passes_hand_the_win_down_the_dealer_order(n, dealer, discarder, claimants):
    # claimants in dealer order pass one by one until the last; it waits only for those before it
    ranked = sorted(claimants, key=lambda q: (q - dealer) % n)
    last = ranked[-1]
    st = _several_winners(n, dealer, discarder, claimants)
    st, _ = play(st, A("win", last, "5p"))
    for q in ranked[:-1]:
        assert st.phase == CLAIM and set(waiting_player(st)) == set(ranked[ranked.index(q):-1])
        st, _ = play(st, A("pass", q))
        assert st.furiten[q] == frozenset({T("5p")}) or st.phase == ENDED
    assert st.phase == ENDED and st.result.winner == last


def test_three_winners_the_dealer_himself_wins_last_to_answer():
    # dealer 3 discards nothing: player 0 discards, 1, 2 and 3 all claim; 1 and 2 sit nearer the
    # discarder and answer first, yet the dealer wins
    st = _several_winners(4, dealer=3, discarder=0, claimants=(1, 2, 3))
    st, _ = play(st, A("win", 1, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [2, 3]
    st, _ = play(st, A("win", 2, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [3]
    st, _ = play(st, A("win", 3, "5p"))
    assert st.result.winner == 3 and st.result.discarder == 0 and st.seat_name(3) == "E"


def test_two_winners_the_discarder_sitting_between_does_not_matter():
    # dealer 0; player 2 discards; 3 is nearest the discarder but 1 comes first from the dealer
    st = _several_winners(4, dealer=0, discarder=2, claimants=(1, 3))
    st, _ = play(st, A("win", 3, "5p"))
    assert st.phase == CLAIM and waiting_player(st) == [1]
    st, _ = play(st, A("win", 1, "5p"))
    assert st.result.winner == 1 and st.result.discarder == 2


def test_first_from_the_dealer_answering_first_does_not_wait_for_the_nearer_claimant():
    # dealer 3; player 1 discards; 2 is nearest the discarder, 3 (the dealer) comes first
    st = _several_winners(4, dealer=3, discarder=1, claimants=(2, 3))
    st, _ = play(st, A("win", 3, "5p"))
    assert st.phase == ENDED and st.result.winner == 3
    assert game.claim_rank(st, 3, "win") > game.claim_rank(st, 2, "win")


@pytest.mark.parametrize("answers,outcome", [
    ([A("pung", 2, "5p"), A("win", 3, "5p")], ("win", 3)),
    ([A("win", 3, "5p")], ("win", 3)),  # a win beats any pung: resolved at once
    ([A("pung", 2, "5p"), A("pass", 3)], ("pung", 2)),
    ([A("pass", 3), A("pung", 2, "5p")], ("pung", 2)),
])
def test_a_win_beats_the_dealers_pung(answers, outcome):
    # dealer 2 can pung player 1's 5p, player 3 can win on it: win > pung/kong > chow is unchanged
    # by the dealer order (it orders only the wins)
    st = make_state(hands={0: NO_CLAIM, 1: DISCARDS_5P, 2: PUNGS_5P, 3: WINS_ON_5P[0]}, dealer=2, turn=1)
    st, _ = play(st, A("discard", 1, "5p"))
    assert claims(st) == {2: ["pung"], 3: ["win"]}
    for a in answers[:-1]:
        st, _ = play(st, a)
        # after a pung, 3 could still win; after 3's pass, the pung is still to come
        assert st.phase == CLAIM and waiting_player(st) == [2 if a.seat == 3 else 3]
    st, _ = play(st, answers[-1])
    kind, who = outcome
    if kind == "win":
        assert st.phase == ENDED and st.result.winner == who and st.melds[2] == ()
    else:
        assert st.phase == DISCARD and st.turn == who and st.melds[who][-1].notation() == "pung:555p"


def test_claim_rank_orders_wins_from_the_dealer_and_keeps_the_kinds_first():
    st = make_state(hands={0: NO_CLAIM, 1: DISCARDS_5P, 2: PUNGS_5P, 3: WINS_ON_5P[0]}, dealer=2, turn=1)
    wins = sorted(range(4), key=lambda q: game.claim_rank(st, q, "win"), reverse=True)
    assert wins == [2, 3, 0, 1]  # dealer, their lower player, ...
    assert min(game.claim_rank(st, q, "win") for q in range(4)) > max(
        game.claim_rank(st, q, k) for q in range(4) for k in ("pung", "kong", "chow"))
    assert min(game.claim_rank(st, q, k) for q in range(4) for k in ("pung", "kong")) > max(
        game.claim_rank(st, q, "chow") for q in range(4))


# --- 6. temporary furiten -------------------------------------------------------------------
# Player 3 waits on 5p/8p. Player 0 discards 5p, player 3 passes.

FURITEN_HANDS = {0: "1479m1247s1346z55p", 1: "258m258p258s1234z", 2: "369m369p36s12347z",
                 3: "123m456m789m11s67p"}


def _furiten_start(wall):
    st = make_state(hands=FURITEN_HANDS, wall=wall)
    st, _ = play(st, A("discard", 0, "5p"))
    assert claims(st) == {3: ["win"]}
    st, events = play(st, A("pass", 3))
    assert st.furiten[3] == frozenset({T("5p")})
    assert st.turn == 1 and event_types(events) == ["claim_answer", "draw"]
    return st


def test_furiten_blocks_a_discard_win_on_that_face_until_the_own_draw():
    st = _furiten_start(wall="7z8p2z1p3s3s")
    st, events = play(st, A("discard", 1, "5p"))  # the same face again: no win for player 3
    assert claims(st) == {} and event_types(events) == ["discard", "draw"] and st.turn == 2
    st, _ = play(st, A("discard", 2, "8p"))  # another face of the wait: offered
    assert claims(st) == {3: ["win", "chow"]}
    st, events = play(st, A("pass", 3))
    assert st.furiten[3] == frozenset()  # cleared by the own draw that followed at once
    assert st.turn == 3 and st.drawn == T("2z") and events[-1]["type"] == "draw"
    st, _ = play(st, A("discard", 3, "2z"), A("discard", 0, "5p"))
    assert claims(st) == {3: ["win"]}  # after their own draw: may win on 5p again
    st, _ = play(st, A("win", 3, "5p"))
    assert st.result.winner == 3 and st.result.discarder == 0 and st.result.win_tile == T("5p")


def test_furiten_is_per_face_and_survives_other_players_turns():
    st = _furiten_start(wall="7z8p2z1p3s3s")
    st, _ = play(st, A("discard", 1, "7z"), A("discard", 2, "8p"))
    assert st.furiten[3] == frozenset({T("5p")})
    st, _ = play(st, A("win", 3, "8p"))
    assert st.result.winner == 3 and st.result.win_tile == T("8p")


def test_furiten_still_allows_a_self_drawn_win():
    st = _furiten_start(wall="7z8p5p1p3s3s")
    st, _ = play(st, A("discard", 1, "7z"), A("discard", 2, "8p"), A("pass", 3))
    assert st.turn == 3 and st.drawn == T("5p")
    assert A("win", 3) in legal_actions(st, 3)
    st, events = play(st, A("win", 3))
    r = st.result
    assert r.winner == 3 and r.self_drawn and r.discarder is None and r.win_tile == T("5p")
    assert events[-1] == {"type": "win", "seat": 3, "tile": "5p", "self_drawn": True, "from": None,
                          "total": r.scores[3].total, "liable": None}


# --- 7. kongs: every kong draws its replacement from the back of the wall ----------------

KONG_HANDS = {0: "1479m1247s12346z5p", 1: "1p258m258s1234z67z", 2: "555p369m36s1234z7z",
              3: "123m456m789m11s78p"}


def test_exposed_kong_draws_from_the_back():
    st = make_state(hands=KONG_HANDS, wall="1s2s3s8p")
    st, _ = play(st, A("discard", 0, "5p"))
    assert claims(st) == {2: ["pung", "kong"]}
    assert legal_actions(st, 2) == [A("pung", 2, "5p"), A("kong", 2, "5p"), A("pass", 2)]
    st, events = play(st, A("kong", 2, "5p"))
    assert event_types(events) == ["claim_answer", "kong", "draw"]
    assert events[-1] == {"type": "draw", "seat": 2, "tile": "8p", "replacement": True, "wall": 3}
    assert st.wall == W("1s2s3s") and st.drawn == T("8p") and st.after_kong
    meld = st.melds[2][0]
    assert meld.kind == KONG and meld.tiles == TS("5555p") and meld.claimed == T("5p") and meld.from_seat == 0
    assert st.turn == 2 and st.phase == DISCARD and st.rivers[0] == ()
    assert len(st.hands[2]) + 3 * len(st.melds[2]) == 14
    assert st.seen[T("5p")] == 4


def test_pung_instead_of_kong_draws_nothing():
    st = make_state(hands=KONG_HANDS, wall="1s2s3s8p")
    st, _ = play(st, A("discard", 0, "5p"), A("pung", 2, "5p"))
    assert st.wall == W("1s2s3s8p") and st.drawn is None and st.melds[2][0].kind == PUNG
    assert st.hands[2].count(T("5p")) == 1


def test_added_kong_draws_from_the_back():
    hands = {0: JUNK1, 1: "7z123m456m789m1s", 2: JUNK2, 3: "369m369p36s12346z"}
    st = make_state(hands=hands, melds={1: ["pung:777z"]}, wall="2s3s4s", turn=1)
    assert A("akong", 1, "7z") in legal_actions(st, 1) and st.seen[T("7z")] == 3
    st, events = play(st, A("akong", 1, "7z"))
    assert events == [{"type": "kong", "seat": 1, "kind": "added", "tile": "7z"},
                      {"type": "draw", "seat": 1, "tile": "4s", "replacement": True, "wall": 2}]
    meld = st.melds[1][0]
    assert meld.kind == KONG and meld.tiles == TS("7777z") and meld.from_seat == 0
    assert st.wall == W("2s3s") and st.seen[T("7z")] == 4 and T("7z") not in st.hands[1]
    assert len(st.hands[1]) + 3 * len(st.melds[1]) == 14


def test_concealed_kong_draws_from_the_back_and_stays_face_down():
    hands = {0: "1111m258p258s1234z", 1: "479m147p147s1234z", 2: JUNK2, 3: JUNK3}
    st = make_state(hands=hands, wall="2s3s4s", indicator="9s")
    assert A("ckong", 0, "1m") in legal_actions(st, 0)
    st, events = play(st, A("ckong", 0, "1m"))
    assert events == [{"type": "kong", "seat": 0, "kind": "concealed", "tile": None},
                      {"type": "draw", "seat": 0, "tile": "4s", "replacement": True, "wall": 2}]
    assert st.melds[0][0].kind == CKONG and st.melds[0][0].tiles == TS("1111m")
    assert st.wall == W("2s3s") and st.seen[T("1m")] == 0  # face down: not visible
    assert len(st.hands[0]) == 11 and st.turn == 0 and st.phase == DISCARD
    # a second kong in the same turn is fine as long as the wall lasts
    st, _ = play(st, A("discard", 0, "4s"))
    assert st.turn == 1


@pytest.mark.parametrize("kind", ["ckong", "akong"])
def test_no_own_kong_when_the_wall_is_empty(kind):
    if kind == "ckong":
        hands = {0: "1111m258p258s1234z", 1: "479m147p147s1234z", 2: JUNK2, 3: JUNK3}
        st = make_state(hands=hands, wall="")
        face = "1m"
    else:
        hands = {0: "7z123m456m789m1s", 1: JUNK1, 2: JUNK2, 3: "369m369p36s12346z"}
        st = make_state(hands=hands, melds={0: ["pung:777z"]}, wall="")
        face = "7z"
    assert not [a for a in legal_actions(st, 0) if a.kind in ("ckong", "akong")]
    must_fail(st, A(kind, 0, face))
    with_wall = make_state(hands=hands, melds={0: ["pung:777z"]} if kind == "akong" else None, wall="8p")
    assert A(kind, 0, face) in legal_actions(with_wall, 0)


def test_kong_takes_the_last_tile_then_the_discard_is_the_final_one():
    hands = {0: "1111m258p258s1234z", 1: "69m147p147s1234z7z", 2: JUNK2, 3: JUNK3}
    st = make_state(hands=hands, wall="8m")
    st, _ = play(st, A("ckong", 0, "1m"))
    assert st.wall == () and st.drawn == T("8m")
    st, events = play(st, A("discard", 0, "8m"))  # player 1 (69m) could not chow it anyway
    assert st.phase == ENDED and st.result.winner is None and events[-1] == {"type": "drawn_hand"}


@pytest.mark.parametrize("wall,kong_offered", [("8p", True), ("", False)])
def test_exposed_kong_needs_a_replacement_tile(wall, kong_offered):
    # an exposed kong is offered only while the wall can give a replacement: with an empty wall
    # the discard is the final one and may only be won on
    st = make_state(hands=KONG_HANDS, wall=wall)
    st, events = play(st, A("discard", 0, "5p"))
    if kong_offered:
        assert claims(st) == {2: ["pung", "kong"]}
    else:
        assert claims(st) == {} and st.phase == ENDED and st.result.winner is None


# --- 8. the last tile -----------------------------------------------------------------------
# Player 1 draws the last tile and discards 5p. Player 2 (lower) could pung or chow it, player
# 3 could win on it. The final discard may be won on but not chowed, punged or konged.

LAST_HANDS = {0: JUNK1 + "8m", 1: "5p147m258s1234z67z", 2: "4556p369m36s1237z",
              3: "123m456m789m11s67p"}


def _last(wall):
    st = make_state(hands=LAST_HANDS, wall=wall)
    st, _ = play(st, A("discard", 0, "8m"))
    assert st.turn == 1 and st.drawn == T("3s")
    return play(st, A("discard", 1, "5p"))


def test_before_the_last_tile_all_claims_are_offered():
    st, _ = _last("3s3s")
    assert claims(st) == {2: ["pung", "chow"], 3: ["win"]}


def test_final_discard_may_only_be_won():
    st, events = _last("3s")
    assert st.wall == ()
    assert claims(st) == {3: ["win"]}
    must_fail(st, A("pung", 2, "5p"))
    must_fail(st, A("chow", 2, "5p", "46p"))
    st, events = play(st, A("win", 3, "5p"))
    assert st.result.winner == 3 and st.result.discarder == 1 and st.result.win_tile == T("5p")
    assert next_dealer(st) == 1


def test_final_discard_not_won_is_a_drawn_hand_with_no_transfers():
    st, _ = _last("3s")
    before = tiles_accounted(st)
    st, events = play(st, A("pass", 3))
    assert st.phase == ENDED and events[-1] == {"type": "drawn_hand"}
    r = st.result
    assert r.winner is None and r.discarder is None and r.win_tile is None and not r.self_drawn
    assert r.transfers == () and r.net == (0, 0, 0, 0) and r.liable is None
    assert tiles_accounted(st) == before
    assert next_dealer(st) == 1  # the deal passes on a drawn hand
    assert all(legal_actions(st, p) == [] for p in range(4))


def test_final_discard_nobody_can_win_ends_the_hand_at_once():
    st = make_state(hands=LAST_HANDS, wall="3s")
    st, _ = play(st, A("discard", 0, "8m"))
    st, events = play(st, A("discard", 1, "3s"))
    assert event_types(events) == ["discard", "drawn_hand"] and st.result.winner is None


def test_the_last_tile_may_be_won_by_self_draw():
    # player 3 draws the last tile, 8p, which completes their hand
    st = make_state(hands=LAST_HANDS, wall="3s2s8p")
    st, _ = play(st, A("discard", 0, "8m"), A("discard", 1, "3s"), A("discard", 2, "1z"))
    assert st.turn == 3 and st.wall == () and st.drawn == T("8p")
    st, _ = play(st, A("win", 3))
    assert st.result.winner == 3 and st.result.self_drawn and st.result.win_tile == T("8p")


# --- 9. self-drawn win, settlement, next dealer -------------------------------------------

SELF_DRAW_HANDS = {0: JUNK1 + "7z", 1: "234m567m888s22z46p", 2: "369m369p36s1347z8p", 3: "258m258p258s1346z"}


def test_self_drawn_win_and_its_settlement():
    st = make_state(hands=SELF_DRAW_HANDS, wall="5p1s")
    st, events = play(st, A("discard", 0, "7z"))
    assert st.turn == 1 and st.drawn == T("5p")
    assert A("win", 1) in legal_actions(st, 1)
    hand_before = st.hands[1]
    st, events = play(st, A("win", 1))
    r = st.result
    assert (r.winner, r.discarder, r.win_tile, r.self_drawn) == (1, None, T("5p"), True)
    expected = taizhou.score_winner(TS("234m567m888s22z46p"), (), T("5p"), True, T("2z"), T("9s"))
    assert r.scores[1].total == expected.total == 22  # 888s 4, pair of seat wind 2, closed wait 4, self-drawn 2, 10
    assert len(hand_before) == 14 and st.hands[1] == TS("234m567m888s22z46p")
    # the dealer pays in full, the two other non-dealers half; junk hands score nothing
    assert [s.total for p, s in enumerate(r.scores) if p != 1] == [0, 0, 0]
    assert sorted((t["from"], t["to"], t["amount"]) for t in r.transfers) == [(0, 1, 22), (2, 1, 11), (3, 1, 11)]
    assert r.net == (-22, 44, -11, -11) and sum(r.net) == 0
    assert tiles_accounted(st) == tiles_accounted(make_state(hands=SELF_DRAW_HANDS, wall="5p1s"))
    assert next_dealer(st) == 1


@pytest.mark.parametrize("players,dealer,outcome,expected", [
    (4, 0, "dealer_wins", 0),
    (4, 2, "dealer_wins", 2),
    (4, 0, "other_wins", 1),
    (4, 3, "other_wins", 0),
    (4, 0, "drawn", 1),
    (4, 3, "drawn", 0),
    (3, 2, "dealer_wins", 2),
    (3, 2, "drawn", 0),
    (3, 1, "other_wins", 2),
    (2, 1, "drawn", 0),
    (2, 0, "other_wins", 1),
    (2, 1, "dealer_wins", 1),
])
def test_next_dealer(players, dealer, outcome, expected):
    win14 = "123m456m789m11s67p8p"
    win13 = "123m456m789m11s67p"
    junk13 = [JUNK1, JUNK2, JUNK3, "147m258p36s12346z"]
    nxt = (dealer + 1) % players
    hands = {}
    for k in range(players):
        p = (dealer + k) % players
        hands[p] = junk13[k]
    if outcome == "dealer_wins":
        hands[dealer] = win14
        st = make_state(hands=hands, dealer=dealer, players=players, wall="1s")
        st, _ = play(st, A("win", dealer))
    elif outcome == "other_wins":
        hands[dealer] = junk13[0] + "8p"
        hands[nxt] = win13
        st = make_state(hands=hands, dealer=dealer, players=players, wall="1s")
        st, _ = play(st, A("discard", dealer, "8p"), A("win", nxt, "8p"))
        assert st.result.winner == nxt
    else:
        hands[dealer] = junk13[0] + "8s"
        st = make_state(hands=hands, dealer=dealer, players=players, wall="")
        st, _ = play(st, A("discard", dealer, "8s"))
        assert st.result.winner is None
    assert st.phase == ENDED and sum(st.result.net) == 0
    assert next_dealer(st) == expected


# --- 10. two- and three-player tables -----------------------------------------------------

def test_three_players_only_the_lower_player_chows_and_turns_wrap():
    hands = {0: "46p147m258s1234z6z", 1: "46p258m369s1234z7z", 2: "1479m1247s12346z5p"}
    st = make_state(hands=hands, players=3, turn=2, wall="1s2s")
    st, _ = play(st, A("discard", 2, "5p"))
    assert claims(st) == {0: ["chow"]}  # 2 -> 0 is the next in turn
    st, _ = play(st, A("pass", 0))
    assert st.turn == 0 and st.drawn == T("1s")
    assert [st.seat_name(p) for p in range(3)] == ["E", "S", "W"]


def test_three_player_self_drawn_win_settles_between_three():
    hands = {0: JUNK1 + "7z", 1: "234m567m888s22z46p", 2: "369m369p36s1347z8p"}
    st = make_state(hands=hands, players=3, wall="5p")
    st, _ = play(st, A("discard", 0, "7z"), A("win", 1))
    r = st.result
    assert r.scores[1].total == 22  # South: the 22z pair is the seat wind
    assert sorted((t["from"], t["to"], t["amount"]) for t in r.transfers) == [(0, 1, 22), (2, 1, 11)]
    assert r.net == (-22, 33, -11)


@pytest.mark.parametrize("discarder", [0, 1])
def test_two_players_either_may_chow_the_others_discard(discarder):
    other = 1 - discarder
    hands = {discarder: "1479m1247s12346z5p", other: "46p147m258s1234z6z"}
    st = make_state(hands=hands, players=2, turn=discarder, dealer=0)
    st, _ = play(st, A("discard", discarder, "5p"))
    assert claims(st) == {other: ["chow"]}
    st, _ = play(st, A("chow", other, "5p", "46p"))
    assert st.turn == other and st.chows_from_upper[other] == 1 and st.melds[other][0].from_seat == discarder


def test_two_player_discard_win_settlement():
    hands = {0: "1479m1247s12346z8p", 1: "123m456m789m11s67p"}
    st = make_state(hands=hands, players=2)
    st, _ = play(st, A("discard", 0, "8p"), A("win", 1, "8p"))
    r = st.result
    assert st.seat_name(1) == "S" and r.winner == 1 and r.discarder == 0
    total = r.scores[1].total
    assert total == 10  # two-sided wait, nothing but the reward
    assert [(t["from"], t["to"], t["amount"]) for t in r.transfers] == [(0, 1, 10)]
    assert r.net == (-10, 10)


# --- 11. a win must come from a draw or a claimed discard ---------------------------------

def test_no_self_drawn_win_right_after_a_pung_claim():
    # player 3 waits on 1s/7z and may win on the discarded 7z; they pung it instead (declining
    # the win). Their remaining 11 tiles are complete, but they drew nothing: they must discard.
    hands = {0: "1479m1247s12346z7z", 1: "46p258m258s1234z6z", 2: "155p369m36s1234z6z",
             3: "123m456m789m11s77z"}
    st = make_state(hands=hands)
    st, _ = play(st, A("discard", 0, "7z"))
    assert claims(st) == {3: ["win", "pung"]}
    st, _ = play(st, A("pung", 3, "7z"))
    assert st.turn == 3 and st.drawn is None
    assert A("win", 3) not in legal_actions(st, 3)
    must_fail(st, A("win", 3))


def test_no_self_drawn_win_right_after_a_chow_claim():
    # player 1 holds 123m 456m 789m 11s + 46p: chowing 5p leaves a complete 11-tile hand
    hands = {0: "1479m1247s12346z5p", 1: "123m456m789m11s46p", 2: JUNK3, 3: "258m258p258s1234z"}
    st = make_state(hands=hands)
    st, _ = play(st, A("discard", 0, "5p"))
    assert claims(st) == {1: ["win", "chow"]}
    st, _ = play(st, A("chow", 1, "5p", "46p"))
    assert A("win", 1) not in legal_actions(st, 1)
    must_fail(st, A("win", 1))


def test_after_a_claim_a_kong_replacement_may_complete_a_self_drawn_win():
    # player 3 pungs 7z (their 11 tiles are not complete), then declares the concealed kong of
    # 1m: the replacement 2s from the back completes 456m 789m 22s
    hands = {0: "2479m1247s12346z7z", 1: "46p258m258s1234z6z", 2: "155p369m36s1234z6z",
             3: "1111m456m789m2s77z"}
    st = make_state(hands=hands, wall="3s3s2s")
    st, _ = play(st, A("discard", 0, "7z"), A("pung", 3, "7z"))
    assert A("win", 3) not in legal_actions(st, 3)
    st, _ = play(st, A("ckong", 3, "1m"))
    assert st.drawn == T("2s") and A("win", 3) in legal_actions(st, 3)
    st, _ = play(st, A("win", 3))
    r = st.result
    assert r.winner == 3 and r.self_drawn and r.win_tile == T("2s")
    assert [m.kind for m in st.melds[3]] == [PUNG, CKONG]


def test_dealer_may_win_with_the_dealt_fourteen():
    hands = {0: "123m456m789m11s678p", 1: JUNK1, 2: JUNK2, 3: JUNK3}
    st = make_state(hands=hands)
    assert A("win", 0) in legal_actions(st, 0)
    st, _ = play(st, A("win", 0))
    assert st.result.winner == 0 and st.result.self_drawn and next_dealer(st) == 0


# --- 12. replay ---------------------------------------------------------------------------

@pytest.mark.parametrize("players,seed,dealer", [(4, 3, 0), (3, 11, 2), (2, 8, 1)])
def test_replay_reproduces_an_auto_played_hand(players, seed, dealer):
    st, events = new_hand(Options(players=players), seed, dealer)
    actions = []
    while st.phase != ENDED:
        p = waiting_player(st)[0]
        a = game.auto_action(st, p)
        actions.append(a)
        st, ev = play(st, a)
        events += ev
    again = replay(Options(players=players), seed, dealer, actions)
    assert again == (st, events)
    assert st.step == len(actions)
    bad = replay(Options(players=players), seed, dealer, actions[:1] + [actions[0]])
    assert isinstance(bad, Illegal)


def test_replay_from_actions_stored_as_json():
    st, events = new_hand(Options(players=4), 21, 1)
    actions = []
    while st.phase != ENDED:
        a = game.auto_action(st, waiting_player(st)[0])
        actions.append(a)
        st, ev = play(st, a)
        events += ev
    stored = json.loads(json.dumps([a.to_dict() for a in actions]))
    again = replay(Options.from_dict(json.loads(json.dumps(Options(players=4).to_dict()))), 21, 1,
                   [Action.from_dict(d) for d in stored])
    assert again == (st, events)


# --- 13. the automatic move (托管) ------------------------------------------------------------

def test_auto_action_discards_the_drawn_tile():
    st = make_state(hands=SELF_DRAW_HANDS, wall="3s1s")
    st, _ = play(st, A("discard", 0, "7z"))
    assert st.turn == 1 and st.drawn == T("3s")
    assert game.auto_action(st, 1) == A("discard", 1, "3s")
    assert game.auto_action(st, 0) is None  # not their turn


def test_auto_action_keeps_a_drawn_wild():
    hands = {0: JUNK1 + "7z", 1: JUNK2, 2: "369m369p36s1347z8p", 3: "147m258p36s12346z"}
    st = make_state(hands=hands, wall="9s1s")  # 9s is the wild
    st, _ = play(st, A("discard", 0, "7z"))
    assert st.drawn == T("9s")
    a = game.auto_action(st, 1)
    assert a.kind == "discard" and a.tile != T("9s") and a.tile == max(t for t in st.hands[1] if t != T("9s"))


def test_auto_action_takes_a_win_and_otherwise_passes():
    st, _ = _after_5p()
    assert game.auto_action(st, 3) == A("win", 3, "5p")
    assert game.auto_action(st, 1) == A("pass", 1)
    assert game.auto_action(st, 2) == A("pass", 2)
    st = make_state(hands=SELF_DRAW_HANDS, wall="5p1s")
    st, _ = play(st, A("discard", 0, "7z"))
    assert game.auto_action(st, 1) == A("win", 1)


def test_auto_action_after_a_claim_discards_a_non_wild():
    st, _ = _after_5p()
    st, _ = play(st, A("pass", 3), A("pung", 2, "5p"))
    a = game.auto_action(st, 2)
    assert a.kind == "discard" and a.tile in st.hands[2] and a.tile != st.wild
    assert apply(st, a)


def test_dealer_opening_win_takes_the_best_winning_tile():
    # 天胡 with no drawn tile: the winning tile is chosen to score best
    st = make_state(hands={0: "123m456m789m11s678p", 1: "258m258p258s1234z", 2: "147m147p147s1234z",
                           3: "369m369p369s5677z"}, indicator="9s", step=0)
    st, _ = play(st, A("win", 0))
    # any middle tile of a chow (2m, 5m, 8m or 7p) makes the closed wait; 1s would give only 12
    assert st.result.win_tile in {T("2m"), T("5m"), T("8m"), T("7p")}
    assert st.result.scores[0].total == 16
