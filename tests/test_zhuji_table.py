"""Zhuji (诸暨麻将) on the state machine: the deal, the wilds drawn after the deal (包: after the
dealer's contract, a question before the first turn with a default), claims and their order,
the pass restrictions, the last-tile rules, 抢杠, 杠开, the failure at 26 tiles left, 老庄 and
the dealer rotation, 2/3/4 players (shared/rules/zhuji.md §1-§5). Pure engine: no Django.

Scenarios are built with `zj`, tests/engine_helpers.make_state for a Zhuji table: hands in
mpsz, the wall in draw order (front first; kong replacements from its end), the wild faces
given (none by default), no indicator. "Junk" hands hold isolated tiles and never claim.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.engine import game
from games.engine.game import (
    CLAIM,
    DECIDE,
    DISCARD,
    ENDED,
    Action,
    Illegal,
    Options,
    apply,
    auto_action,
    legal_actions,
    new_hand,
    replay,
    tiles_accounted,
    waiting_player,
)
from games.engine.tiles import NUM_FACES, parse_tiles
from games.engine.variants.base import Result
from games.engine.variants.zhuji import draw_faces
from tests.engine_helpers import A, T, make_state, must_fail, play

JUNK1 = "147m147p147s1234z"  # 13 isolated tiles: never claim anything
JUNK2 = "258m258p258s1567z"
JUNK3 = "369m369p369s2347z"


def zj(hands, wilds="", mode="fan", wall=None, front="", back="", size=None, players=4, laozhuang=False,
       target=2, unit=1, **kw):
    """A Zhuji HandState in the discard phase with exactly these tiles and wild faces (at most
    four of a face). The wall is `wall` (mpsz, in draw order), or else `front` + the tiles not
    used elsewhere (sorted; `size` tiles in all when given) + `back` (kong replacements come
    from the back)."""
    st = make_state(hands=hands, wall=wall if wall is not None else front + back, indicator="7z",
                    players=players, check=False, **kw)
    seen = list(st.seen)
    seen[st.indicator] -= 1  # no indicator in Zhuji
    settings = {"mode": mode, "unit": unit}
    st = replace(st, options=Options(variant="zhuji", players=players, settings=settings), indicator=None,
                 seen=tuple(seen))
    used = faces_count(st)
    assert max(used) <= 4, [game.face_name(f) for f in range(NUM_FACES) if used[f] > 4]
    if wall is None:
        middle = tuple(f for f in range(NUM_FACES) for _ in range(4 - used[f]))
        if size is not None:
            middle = middle[:size - len(st.wall)]
        st = replace(st, wall=tuple(parse_tiles(front)) + middle + tuple(parse_tiles(back)))
    st = st.with_extra("wilds", tuple(parse_tiles(wilds)))
    if mode == "bao":
        st = st.with_extra("contract", (target, len(parse_tiles(wilds))))
    if laozhuang:
        st = st.with_extra("laozhuang", True)
    for p in range(players):
        held = len(st.hands[p]) + 3 * len(st.melds[p])
        assert held == (14 if p == st.turn else 13), (p, held)
    return st


def faces_count(st):
    """Tiles per face over wall, hands, rivers, melds and the winning tile (no indicator)."""
    c = [0] * NUM_FACES
    for f in st.wall:
        c[f] += 1
    for p in range(st.n):
        for f in st.hands[p] + st.rivers[p]:
            c[f] += 1
        for m in st.melds[p]:
            for f in m.tiles:
                c[f] += 1
    if st.result is not None and st.result.winner is not None:
        c[st.result.win_tile] += 1
    return c


def claims(state):
    return {p: list(k) for p, k in enumerate(state.claim_options) if k}


def answer_all(st, wanted):
    """Answer the claim window: `wanted` = {player: kind}; everyone else asked passes (in seat
    order). Returns the state."""
    for p in range(st.n):
        if st.phase != CLAIM:
            break
        if st.claim_options[p] and st.claim_responses[p] is None:
            kind = wanted.get(p, "pass")
            st, _ = play(st, Action(kind, p, st.last_discard if kind != "pass" else None))
    return st


# --- the deal and the wilds (§1, §2) ---------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("faces", [0, 1, 2])
def test_the_deal_in_fan(players, faces):
    """§1/§3: dealer 14, the others 13, nothing taken out; §2: the room's number of faces drawn
    at once (翻), all four tiles of each wild, shown on the table before the first discard."""
    opts = Options(variant="zhuji", players=players, settings={"wild_faces": faces})
    st, events = new_hand(opts, 7, 1 % players)
    sizes = [len(h) for h in st.hands]
    assert sizes[1 % players] == 14 and sorted(sizes) == [13] * (players - 1) + [14]
    assert st.indicator is None and len(st.wall) == 136 - 13 * players - 1
    assert st.phase == DISCARD and st.turn == 1 % players
    assert st.wilds == draw_faces(7, faces) and len(set(st.wilds)) == faces
    assert events[0]["type"] == "deal" and events[0]["indicator"] is None
    info = st.rules.table_info(st)
    assert info["mode"] == "fan" and info["target"] is None and info["laozhuang"] is False
    assert info["wild_faces"] == [game.face_name(f) for f in st.wilds] and info["wild_count"] == faces
    assert tiles_accounted(st) == 136
    for f in st.wilds:  # every tile of a wild face is wild
        assert st.rules.is_wild(st, f)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bao_asks_the_dealer_then_draws_the_wilds(players):
    """§5 / Z-D8: in 包 the dealer names target and number of faces before the first discard;
    the faces are drawn after that answer, at random (Z-S2)."""
    opts = Options(variant="zhuji", players=players, settings={"mode": "bao", "wild_faces": 1})
    st, _ = new_hand(opts, 21, 1 % players)
    assert st.phase == DECIDE and st.decision.name == "contract" and st.decision.seats == (1 % players,)
    assert st.decision.choices[0] == "2:1" and "6:2" in st.decision.choices  # Z-S1
    assert st.wilds == () and st.rules.table_info(st)["wild_count"] is None
    assert waiting_player(st) == [1 % players]
    must_fail(st, Action("discard", 1 % players, st.hands[1 % players][0]))
    must_fail(st, Action("decide", 1 % players, value="7:1"))
    if players > 2:
        must_fail(st, Action("decide", 2, value="2:1"))
    st, events = play(st, Action("decide", 1 % players, value="3:2"))
    assert st.phase == DISCARD and st.turn == 1 % players
    assert st.rules.contract(st) == (3, 2) and st.wilds == draw_faces(21, 2)
    assert events[-1] == {"type": "decided", "name": "contract", "answers": {str(1 % players): "3:2"}}
    info = st.rules.table_info(st)
    assert info["mode"] == "bao" and info["target"] == 3 and info["wild_count"] == 2
    assert st.rules.need(st, 1 % players) == 3 and st.rules.need(st, (2 % players)) == 1


@pytest.mark.parametrize("faces", [0, 1, 2])
def test_the_contract_default(faces):
    """§5: no answer in time: target 2 and the room's number of faces (auto_action answers
    the first choice)."""
    opts = Options(variant="zhuji", settings={"mode": "bao", "wild_faces": faces})
    st, _ = new_hand(opts, 3, 0)
    a = auto_action(st, 0)
    assert a == Action("decide", 0, value=f"2:{faces}")
    st, _ = play(st, a)
    assert st.rules.contract(st) == (2, faces) and len(st.wilds) == faces


def test_bao_with_no_wilds_named():
    """Z-D8: the dealer may name no wilds (无财): no faces are wild, no 无财 台 (Z-D9)."""
    st, _ = new_hand(Options(variant="zhuji", settings={"mode": "bao", "wild_faces": 2}), 3, 0)
    st, _ = play(st, Action("decide", 0, value="4:0"))
    assert st.wilds == () and st.rules.target(st) == 4


# --- discards and claims (§2, §3) ------------------------------------------------------------

def test_a_wild_may_be_discarded_and_is_never_claimed():
    """Z-D13: a wild (5m) may be discarded; nobody may chow, pung, kong or win on it: not the
    lower player (46m), not a player holding two of its face (wilds themselves), not a player
    it would complete (a tanki on 5s)."""
    hands = {0: "147m258p369s1236z5m", 1: "46m147p147s13567z", 2: "55m258p258s247z11s", 3: WIN_5S}
    st = zj(hands, wilds="5m")
    assert A("discard", 0, "5m") in legal_actions(st, 0)
    st, events = play(st, A("discard", 0, "5m"))
    assert st.phase == DISCARD and st.turn == 1 and [e["type"] for e in events] == ["discard", "draw"]


def test_chow_only_by_the_lower_player_and_pung_beats_chow():
    """§3: only the discarder's lower player may chow (players 1 and 2 both hold 46m); a pung
    beats a chow, and the chow waits for it."""
    hands = {0: "147m258p369s1236z5m", 1: "46m147p147s13567z", 2: "46m258p258s247z99m", 3: "55m369p369s12347z"}
    st = zj(hands)
    st, _ = play(st, A("discard", 0, "5m"))
    assert claims(st) == {1: ["chow"], 3: ["pung"]}
    st, _ = play(st, A("chow", 1, "5m", "46m"))
    assert st.phase == CLAIM  # waiting for player 3's pung, which would beat the chow
    st, events = play(st, A("pung", 3, "5m"))
    assert st.turn == 3 and st.melds[3][0].kind == "pung" and st.melds[1] == ()
    assert events[-1]["type"] == "pung"


WIN_5S = "123m456p789s234s5s"  # 平胡 on 5s (or 2s): 1 台
WIN_25S = "123m456p789s34s99s"  # 平胡 on 2s or 5s, holding no 5s


def test_win_beats_pung_and_the_nearest_winner_wins():
    """§3: win > pung; several wins on one discard: the one nearest the discarder wins (source
    rule 9), one winner a hand."""
    hands = {0: "147m258p36s12347z5s", 1: "55s147m147p1s1234z", 2: WIN_5S, 3: WIN_25S}
    st = zj(hands)
    st, _ = play(st, A("discard", 0, "5s"))
    assert claims(st) == {1: ["pung"], 2: ["win"], 3: ["win"]}
    st, _ = play(st, A("win", 3, "5s"))
    assert st.phase == CLAIM  # player 2 is nearer: waited for
    st, _ = play(st, A("pung", 1, "5s"))
    assert st.phase == CLAIM
    st, events = play(st, A("win", 2, "5s"))
    r = st.result
    assert st.phase == ENDED and r.winner == 2 and r.discarder == 0
    # 翻, 1 台 (w = 1): the discarder pays 2, the others 1
    assert r.net == (-2, -1, 4, -1) and events[-1]["type"] == "win"
    assert r.scores[2].items == (("平胡", 1),) and r.scores[2].tai == 1


def test_a_zero_tai_hand_is_not_offered_a_win():
    """§4: 屁胡 alone (0 台) cannot win, on a discard or self-drawn."""
    hands = {0: "147m258p36s12347z5s", 1: JUNK1, 2: "123m456m111p789s5s", 3: JUNK3}
    st = zj(hands)
    st, _ = play(st, A("discard", 0, "5s"))
    assert st.phase == DISCARD and st.turn == 1  # nobody asked
    st = zj({0: "123m456m111p789s55s", 1: JUNK1, 2: JUNK2, 3: JUNK3}, drawn="5s", step=3)
    assert st.rules.waits(st, parse_tiles("123m456m111p789s5s")) == [T("5s")]  # ready in shape
    assert not any(a.kind == "win" for a in legal_actions(st, 0))
    must_fail(st, A("win", 0))


def test_a_passed_win_waits_for_the_next_draw():
    """§3: a player who passes a win may not win on that face until their own next draw."""
    hands = {0: "147m258p36s12347z5s", 1: JUNK1, 2: WIN_5S, 3: JUNK3}
    st = zj(hands, front="5s9p")
    st, _ = play(st, A("discard", 0, "5s"))
    st, _ = play(st, A("pass", 2))
    assert st.turn == 1 and st.drawn == T("5s") and T("5s") in st.furiten[2]
    st, _ = play(st, A("discard", 1, "5s"))  # the same face before player 2 drew: no win
    assert claims(st) == {2: ["chow"]}  # 34s chow it, but no win
    st, _ = play(st, A("pass", 2))
    assert st.phase == DISCARD and st.turn == 2 and st.drawn == T("9p")
    assert st.furiten[2] == frozenset()  # their draw lifts it
    st, _ = play(st, A("discard", 2, "9p"))
    assert st.turn == 3 and "win" in st.rules.claim_options(st, 2, T("5s"), False)


def test_a_self_drawn_win_is_allowed_after_a_passed_one():
    """README: the temporary furiten is for discards only."""
    hands = {0: "147m258p36s12347z5s", 1: JUNK1, 2: WIN_5S, 3: JUNK3}
    st = zj(hands, front="1p5s")
    st, _ = play(st, A("discard", 0, "5s"))
    st, _ = play(st, A("pass", 2))
    st, _ = play(st, A("discard", 1, "1p"))
    assert st.turn == 2 and st.drawn == T("5s")
    assert A("win", 2) in legal_actions(st, 2)


def test_a_passed_pung_waits_for_the_next_draw():
    """§3: a player who passes a pung may not pung that face until their own next draw."""
    hands = {0: "147m258p369s1236z5m", 1: JUNK1, 2: "55m258p258s247z11s", 3: JUNK3}
    st = zj(hands, front="5m9p")
    st, _ = play(st, A("discard", 0, "5m"))
    assert claims(st) == {2: ["pung"]}
    st, _ = play(st, A("pass", 2))
    assert st.turn == 1 and st.rules.passed_pungs(st, 2) == (T("5m"),)
    st, _ = play(st, A("discard", 1, "5m"))
    assert st.phase == DISCARD and st.turn == 2 and st.drawn == T("9p")  # not offered again
    assert st.rules.passed_pungs(st, 2) == ()  # their draw lifts it
    st, _ = play(st, A("discard", 2, "9p"))
    assert st.turn == 3 and "pung" in st.rules.claim_options(st, 2, T("5m"), False)


def test_a_passed_pung_still_allows_a_kong():
    """Z-S5: the restriction is on pungs only: holding three, the player who passed may still
    kong that face (the rule asked directly: all four tiles are in play here)."""
    hands = {0: "147m258p369s1236z5m", 1: JUNK1, 2: "555m258p258s247z1s", 3: JUNK3}
    st = zj(hands)
    st, _ = play(st, A("discard", 0, "5m"))
    assert claims(st) == {2: ["pung", "kong"]}
    st, _ = play(st, A("pass", 2))
    assert st.turn == 1 and st.rules.claim_options(st, 2, T("5m"), False) == ("kong",)


def test_a_chow_instead_of_a_pung_declines_the_pung():
    """Z-S5: the lower player, offered pung and chow, chows: the pung of that face waits."""
    hands = {0: "147m258p369s1236z5m", 1: "4556m147p147s147z", 2: JUNK2, 3: JUNK3}
    st = zj(hands)
    st, _ = play(st, A("discard", 0, "5m"))
    assert claims(st) == {1: ["pung", "chow"]}
    st, _ = play(st, A("chow", 1, "5m", "46m"))
    assert st.rules.passed_pungs(st, 1) == (T("5m"),)


# --- the end of the wall (§3, Z-D12, Z-S6) ----------------------------------------------------

def test_the_last_tile_and_the_last_discard_in_fan():
    """§3: no kong with the last tile; its discard may be won on, not chowed (player 1: 46s),
    punged or konged (player 2: 555s); then the hand is drawn and nothing is paid (Z-D12); the
    dealer keeps the deal and the next hand is 老庄."""
    hands = {0: "1111m258p36s1234z5s", 1: "46s258m147p9p2347z", 2: "555s369m258p1567z", 3: WIN_25S.replace("123m", "234m")}
    st = zj(hands, wall="", drawn="5s", step=5)
    assert st.rules.self_kong_options(st, 0) == []
    assert not any(a.kind in ("ckong", "akong") for a in legal_actions(st, 0))
    st, _ = play(st, A("discard", 0, "5s"))
    assert claims(st) == {3: ["win"]}
    st, events = play(st, A("pass", 3))
    r = st.result
    assert st.phase == ENDED and r.winner is None and r.transfers == () and r.net == (0, 0, 0, 0)
    assert events[-1] == {"type": "drawn_hand"}
    assert st.rules.next_hand(st) == (0, {"streak": 2, "laozhuang": True})


def test_the_last_discard_may_be_won_on():
    hands = {0: "147m258p369s1234z5s", 1: JUNK1, 2: JUNK2, 3: WIN_25S.replace("123m", "234m")}
    st = zj(hands, wall="", drawn="5s", step=5)
    st, _ = play(st, A("discard", 0, "5s"))
    st, _ = play(st, A("win", 3, "5s"))
    assert st.result.winner == 3 and st.result.net == (-2, -1, -1, 4)


def _bao_tail(wall_size, target=2, laozhuang=False, mode="bao"):
    """The dealer (0) is to discard 5s with `wall_size` tiles left; nobody can claim it."""
    hands = {0: "147m258p369s1234z5s", 1: JUNK1, 2: JUNK2, 3: JUNK3}
    return zj(hands, mode=mode, target=target, laozhuang=laozhuang, size=wall_size)


def test_bao_ends_at_26_tiles_and_the_contract_fails():
    """§5: in 包 nobody has won when 26 tiles remain: the contract fails, the dealer pays c to
    each other player and keeps the deal; the next hand is 老庄. Z-S6: the draw that leaves 26
    is the last one (no kong with it), its discard only a win."""
    st = _bao_tail(27)
    st, _ = play(st, A("discard", 0, "5s"))
    assert st.turn == 1 and len(st.wall) == 26 and st.rules.exhausted(st)
    assert st.rules.self_kong_options(st, 1) == []
    st, events = play(st, Action("discard", 1, st.drawn))
    r = st.result
    assert st.phase == ENDED and r.winner is None and events[-1] == {"type": "drawn_hand"}
    assert r.net == (-15, 5, 5, 5) and {t["why"] for t in r.transfers} == {"contract"}
    assert st.rules.next_hand(st) == (0, {"streak": 2, "laozhuang": True})


def test_bao_failure_in_a_laozhuang_hand_doubles():
    """Z-D6: 老庄 doubles the failure too (target 3, c = 10: 20 to each)."""
    st = _bao_tail(27, target=3, laozhuang=True)
    st, _ = play(st, A("discard", 0, "5s"))
    st, _ = play(st, Action("discard", 1, st.drawn))
    assert st.result.net == (-60, 20, 20, 20)
    assert st.rules.table_info(st)["laozhuang"] is True


def test_fan_plays_past_26():
    """§3: in 翻 the hand goes on to the end of the wall."""
    st = _bao_tail(27, mode="fan")
    st, _ = play(st, A("discard", 0, "5s"))
    st, _ = play(st, Action("discard", 1, st.drawn))
    assert st.phase != ENDED and len(st.wall) == 25


# --- kongs: 抢杠 and 杠开 (§3, §4, Z-D7) --------------------------------------------------------

ROB = "123m456m111p46s99s"  # 屁胡 0 台 on 5s: wins only with 抢杠


def _kong_table(p0_hand, p0_melds, mode="fan"):
    hands = {0: p0_hand, 1: ROB, 2: "47m147p147s12345z", 3: JUNK3}
    return zj(hands, mode=mode, melds={0: p0_melds} if p0_melds else None, rivers={0: "9m", 1: "9m"},
              drawn="5s", back="4z")


def test_robbing_an_added_kong():
    """§3 抢杠 + Z-D7: player 1 wins on the 5s player 0 adds to a shown pung; 屁胡 + 抢杠 =
    1 台 (not enough on a plain discard); paid as a discard by the robbed player (翻: 2, the
    others 1). The robbed tile leaves the kong."""
    st = _kong_table("123m456m789m1z5s", ["pung:555s"])
    assert "win" not in st.rules.claim_options(st, 1, T("5s"), False)  # on a plain discard: 0 台
    st, _ = play(st, A("akong", 0, "5s"))
    assert st.phase == CLAIM and st.robbing and claims(st) == {1: ["win"]}
    st, _ = play(st, A("win", 1, "5s"))
    r = st.result
    assert r.winner == 1 and r.discarder == 0 and not r.self_drawn
    assert r.scores[1].items == (("屁胡", 0), ("抢杠", 1)) and r.scores[1].tai == 1
    assert r.net == (-2, 4, -1, -1)
    assert [m.kind for m in st.melds[0]] == ["pung"]


def test_robbing_in_bao_pays_the_contract():
    """Z-D7 包: the robbed player pays as a discarder: 3 × c + 2w = 15 + 2."""
    st = _kong_table("123m456m789m1z5s", ["pung:555s"], mode="bao")
    st, _ = play(st, A("akong", 0, "5s"))
    st, _ = play(st, A("win", 1, "5s"))
    assert st.result.net == (-17, 19, -1, -1)


def test_an_added_kong_not_robbed_draws_its_replacement():
    st = _kong_table("123m456m789m1z5s", ["pung:555s"])
    st, _ = play(st, A("akong", 0, "5s"))
    st, _ = play(st, A("pass", 1))
    assert st.phase == DISCARD and st.turn == 0 and st.drawn == T("4z") and st.after_kong
    assert T("5s") in st.furiten[1]  # a passed robbing is a passed win


def test_a_concealed_kong_is_not_robbed():
    """§3 / Z-D7: a concealed kong cannot be robbed."""
    st = _kong_table("123m456m789m1z5555s", None)
    st, _ = play(st, A("ckong", 0, "5s"))
    assert st.phase == DISCARD and st.turn == 0 and st.drawn == T("4z")


def test_gangkai():
    """§4 杠开: a win on a kong's replacement tile adds 1 台: a 屁胡 wins with it (self-drawn 2w
    from each: 2)."""
    hands = {0: "1111m234p567p789s5s", 1: JUNK2, 2: JUNK3, 3: "47m147p147s12345z"}
    st = zj(hands, drawn="1m", step=3, back="5s")
    assert not any(a.kind == "win" for a in legal_actions(st, 0))
    st, _ = play(st, A("ckong", 0, "1m"))
    assert st.drawn == T("5s") and st.after_kong
    assert A("win", 0) in legal_actions(st, 0)
    st, _ = play(st, A("win", 0))
    s = st.result.scores[0]
    assert s.items == (("屁胡", 0), ("杠开", 1)) and st.result.net == (6, -2, -2, -2)


def test_a_win_on_the_dealt_hand():
    """天胡: the dealer wins on the dealt fourteen (平胡 1 + 无财 1 = 2 台, self-drawn: 2w = 4
    from each); Z-S11: the highest natural tile (9s) is shown as the winning one."""
    hands = {0: "123m456p789s234s55s", 1: JUNK1, 2: JUNK2, 3: JUNK3}
    st = zj(hands, wilds="1z")
    assert st.step == st.play_from and A("win", 0) in legal_actions(st, 0)
    st, events = play(st, A("win", 0))
    assert st.result.win_tile == T("9s") and events[-1]["tile"] == "9s"
    assert st.result.net == (12, -4, -4, -4)


# --- 包 targets and payments at the table (§4, §5) ---------------------------------------------

DEALER_2 = "111z123m456p789s5s"  # the dealer's East pung: 2 台 on 5s (屁胡)


def test_the_dealer_needs_the_target_in_bao():
    """§4: in 包 the dealer wins with at least the contracted 台; the others with 1."""
    for target, offered in ((2, True), (3, False)):
        hands = {0: DEALER_2, 1: "147m258p36s23477z5s", 2: "258m258p258s2347z", 3: "369m369p36s23467z"}
        st = zj(hands, mode="bao", target=target, turn=1)
        st, _ = play(st, A("discard", 1, "5s"))
        assert ("win" in st.claim_options[0]) == offered, target


def test_bao_dealer_wins_with_wucai_and_du():
    """Z-D1: the dealer's win in 包 doubles the contract when 无财 (wilds in play, none held)
    and when 独 (a single wait: the pair 5s). Dealer self-draws 3 台 (发 1 + 中 1 + 无财 1):
    c = 5 × 2 × 2 = 20, 2w = 8: 28 from each."""
    hands = {0: "666z777z123m456p55s", 1: JUNK1, 2: "258m258p258s1245z", 3: "369m369p369s1234z"}
    st = zj(hands, wilds="9p", mode="bao", drawn="5s", step=3)
    st, _ = play(st, A("win", 0))
    s = st.result.scores[0]
    assert s.tai == 3 and s.no_wild and s.single_wait
    assert st.result.net == (84, -28, -28, -28)


def test_bao_nondealer_selfdraw_and_laozhuang():
    """Z-D2 + Z-D6: a non-dealer self-draws 1 台 in a 老庄 包 hand: the dealer pays
    2 × (3 × 5 + 2) = 34, the others 2 × 2 = 4."""
    hands = {0: JUNK3, 1: "123m456p789s234s55s", 2: JUNK2, 3: JUNK1}
    st = zj(hands, mode="bao", laozhuang=True, turn=1, drawn="5s", step=3)
    st, _ = play(st, A("win", 1))
    assert st.result.net == (-34, 42, -4, -4)
    assert {t["why"] for t in st.result.transfers} == {"contract", "win"}


def test_unit_setting():
    """§5: w = unit × 2^(台 − 1): with unit 5, a 1 台 discard win pays 10 and 5."""
    hands = {0: "147m258p36s12347z5s", 1: JUNK1, 2: WIN_5S, 3: JUNK3}
    st = zj(hands, unit=5)
    st, _ = play(st, A("discard", 0, "5s"))
    st = answer_all(st, {2: "win"})
    assert st.result.net == (-10, -5, 20, -5)


# --- the next hand (§1, §5) -------------------------------------------------------------------

def _ended(st, result):
    return replace(st, phase=ENDED, result=result)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dealer_rotation_and_laozhuang(players):
    """§1: the dealer keeps the deal after a win, a drawn hand and a failed contract (the next
    hand is 老庄, ×2 once however many in a row, Z-D6); another's win passes it to the dealer's
    lower player (no 老庄)."""
    opts = Options(variant="zhuji", players=players)
    st, _ = new_hand(opts, 5, 1 % players, {"streak": 3, "laozhuang": True})
    zeros = (0,) * players
    win = lambda w: Result(w, None, 0, True, (), (), zeros)  # noqa: E731
    drawn = Result(None, None, None, False, (), (), zeros)
    dealer = 1 % players
    assert st.rules.next_hand(_ended(st, win(dealer))) == (dealer, {"streak": 4, "laozhuang": True})
    assert st.rules.next_hand(_ended(st, drawn)) == (dealer, {"streak": 4, "laozhuang": True})
    other = (dealer + 1) % players
    assert st.rules.next_hand(_ended(st, win(other))) == (other, {"streak": 1, "laozhuang": False})
    assert game.next_dealer(_ended(st, win(other))) == other
    nxt, _ = new_hand(opts, 6, *st.rules.next_hand(_ended(st, drawn)))
    assert nxt.rules.laozhuang(nxt) and nxt.rules.table_info(nxt)["laozhuang"] is True


def test_laozhuang_doubles_a_win_at_the_table():
    hands = {0: "147m258p36s12347z5s", 1: JUNK1, 2: WIN_5S, 3: JUNK3}
    st = zj(hands, laozhuang=True)
    st, _ = play(st, A("discard", 0, "5s"))
    st = answer_all(st, {2: "win"})
    assert st.result.net == (-4, -2, 8, -2)


# --- whole hands ------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("mode", ["fan", "bao"])
def test_whole_hands(players, mode):
    """Random legal play ends every hand: a win with at least the 台 needed (net sums to zero)
    or a drawn hand at the end of the wall (翻: nothing paid) or at 26 tiles (包: the failure);
    a replay reproduces it, the contract decision included."""
    opts = Options(variant="zhuji", players=players, settings={"mode": mode, "wild_faces": 2})
    for seed in range(6):
        dealer = seed % players
        st, events = new_hand(opts, seed, dealer)
        rng = random.Random(seed)
        actions = []
        while st.phase != ENDED:
            p = rng.choice(waiting_player(st))
            acts = legal_actions(st, p)
            wins = [a for a in acts if a.kind == "win"]
            a = wins[0] if wins and rng.random() < 0.7 else rng.choice(acts)
            st, ev = play(st, a)
            events += ev
            actions.append(a)
        r = st.result
        assert sum(r.net) == 0
        if r.winner is None:
            assert len(st.wall) == (26 if mode == "bao" else 0)
            assert (r.transfers == ()) == (mode == "fan")
        else:
            s = r.scores[r.winner]
            assert s.tai >= st.rules.need(st, r.winner)
        assert replay(opts, seed, dealer, actions) == (st, events)


def test_every_face_can_be_wild_and_counts_are_kept():
    """§2: faces range over all 34; the deal never takes a tile out."""
    faces = set()
    for seed in range(300):
        st, _ = new_hand(Options(variant="zhuji", settings={"wild_faces": 2}), seed, 0)
        faces |= set(st.wilds)
        assert faces_count(st) == [4] * NUM_FACES
        assert tiles_accounted(st) == 136
    assert faces == set(range(NUM_FACES))


def test_illegal_actions_change_nothing():
    hands = {0: "147m258p369s1236z5m", 1: "46m147p147s13567z", 2: JUNK2, 3: JUNK3}
    st = zj(hands)
    out = apply(st, A("discard", 1, "4m"))
    assert isinstance(out, Illegal) and out.code == "not_your_turn"
    must_fail(st, A("discard", 0, "9p"))
    must_fail(st, A("ckong", 0, "1m"))
