"""Traditional Taizhou (传统台州麻将) engine: 和, 番, 劣子, payments (shared/rules/taizhou-traditional.md),
and the parts of the state machine it adds: flowers shown and replaced from the back of the wall
(in seat order at the deal), the 扔弹 questions before the deal, the 生牌 stage, 点炮, 黄牌 at 16.

tests/data/taizhou_trad_hands.jsonl: one hand-worked case a line, its "rule" citing the spec's
section or decision (T-D…, or the site's T-S…); "contract" = "score" (score_hands) or "settle"
(settle_hands); "expect" lists the fields that must match. Winning cases with at most two wilds
are also checked against the brute force (tests/taizhou_trad_reference.py). Pure engine.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from games.engine import contract, game, variants
from games.engine.game import (
    DECIDE,
    DISCARD,
    ENDED,
    Action,
    Options,
    apply,
    auto_action,
    legal_actions,
    new_hand,
    tiles_accounted,
    waiting_player,
)
from games.engine.melds import parse_meld
from games.engine.tiles import NUM_FACES, SEAT_NAMES, SEAT_WIND, parse_tile, parse_tiles
from games.engine.variants.taizhou_trad import (
    ITEM_NAMES,
    THROW_CHOICES,
    score_request,
    settle_request,
    shengpai_faces,
    shengpai_stage,
)
from tests.engine_helpers import A, T, must_fail, play
from tests.taizhou_trad_reference import reference_net, reference_nonwinner, reference_winner

DATA = Path(__file__).parent / "data" / "taizhou_trad_hands.jsonl"


def _load():
    out = []
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                case = json.loads(line)
                out.append(pytest.param(case, id=case["id"]))
    return out


CASES = _load()


def test_table():
    ids = [c.values[0]["id"] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 60
    assert {c.values[0]["contract"] for c in CASES} == {"score", "settle"}
    for c in CASES:
        assert c.values[0]["rule"] and c.values[0]["request"]["variant"] == "taizhou_trad"


def test_every_item_is_worked():
    """Every 和 and 番 item of §4/§5 is produced by some hand-worked case."""
    named = set()
    for c in CASES:
        case = c.values[0]
        if case["contract"] == "score" and case["expect"]["ok"]:
            out = score_request(case["request"])
            named |= {i["name"].split(" ")[0] if i["name"].split(" ")[-1][:1].isdigit() else i["name"]
                      for i in out["items"]}
    keys = set()
    for key, (en, _) in ITEM_NAMES.items():
        keys.add(en.replace(" {t}", "").split(" {t}")[0])
    have = {n.rsplit(" ", 1)[0] if n.rsplit(" ", 1)[-1][:1].isdigit() else n for c in CASES
            for n in [i["name"] for i in (score_request(c.values[0]["request"]).get("items") or [])]}
    missing = {k for k in keys if k not in have}
    assert not missing, missing


def _meld_pairs(req):
    out = []
    for m in req.get("melds") or []:
        kind, _, body = m.partition(":")
        out.append((kind, min(parse_tiles(body))))
    return out


def _reference(req):
    wild = parse_tile(req["wild"])
    hand = parse_tiles(req["hand"])
    seat = SEAT_WIND[req["seat"]]
    if req.get("win") is None:
        return reference_nonwinner(hand, _meld_pairs(req), seat, wild, req.get("flowers", 0))
    if sum(t == wild for t in hand) > 2:
        return None
    return reference_winner(hand, _meld_pairs(req), parse_tile(req["win"]), bool(req.get("self_drawn")), seat, wild,
                            req.get("flowers", 0), bool(req.get("robbed_kong")), bool(req.get("kong_replacement")),
                            bool(req.get("last_tile")))


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    req = case["request"]
    before = copy.deepcopy(req)
    public = contract.score_request if case["contract"] == "score" else contract.settle_request
    out = public(req)
    assert req == before
    assert out == (score_request if case["contract"] == "score" else settle_request)(req)
    exp = case["expect"]
    if not exp["ok"]:
        assert out["ok"] is False and out["error"], (case["rule"], out)
        return
    assert out["ok"] is True, (case["rule"], out)
    for key, value in exp.items():
        assert out[key] == value, (case["rule"], key, out)
    if case["contract"] == "score":
        assert out["points"] == sum(i.get("points", 0) for i in out["items"])
        assert out["tai"] == sum(i.get("tai", 0) for i in out["items"])
        assert out["total"] % 10 == 0 and out["total"] <= 400 and out["capped"] == (out["total"] == 400)
        ref = _reference(req)
        if ref is not None:
            assert (out["total"], out["points"], out["tai"], out["capped"]) == ref, ("reference", ref, out)
    else:
        assert sum(out["net"].values()) == 0
        for s in out["net"]:
            assert out["net"][s] == sum(t["amount"] for t in out["transfers"] if t["to"] == s) - sum(
                t["amount"] for t in out["transfers"] if t["from"] == s)
        assert all(t["amount"] > 0 and t["why"] in ("win", "dan", "throw", "non-winners") for t in out["transfers"])
        seats = [s for s in SEAT_NAMES if s in req["totals"]]
        net = reference_net(seats, req["dealer"], req["winner"], req["totals"], req.get("discarder") is None,
                            req.get("dan", 0), req.get("streak", 1), req.get("throws", []), req.get("dianpao"))
        assert out["net"] == net


@pytest.mark.parametrize("bad", [None, [], {"variant": "taizhou_trad"}, {"variant": "taizhou_trad", "seat": "E", "wild": "9s", "hand": 5},
                                 {"variant": "taizhou_trad", "seat": "X", "wild": "9s", "hand": "123m"},
                                 {"variant": "taizhou_trad", "seat": "E", "wild": "9s", "hand": "123m456m789p23s55p", "win": "4s",
                                  "flowers": "1"},
                                 {"variant": "taizhou_trad", "seat": "E", "wild": "9s", "hand": "123m456m789p23s55p", "win": "4s",
                                  "lang": "fr"}])
def test_bad_score_requests_never_raise(bad):
    out = score_request(bad)
    assert out["ok"] is False and out["error"]


@pytest.mark.parametrize("bad", [None, {"variant": "taizhou_trad"}, {"variant": "taizhou_trad", "dealer": "E", "totals": {"E": 1}},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "totals": {"E": 0, "S": 1.5}},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": None, "discarder": "S", "totals": {"E": 0, "S": 1}},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "totals": {"E": 0, "S": 1}, "dan": -1},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "totals": {"E": 0, "S": 1}, "streak": 0},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "totals": {"E": 0, "S": 1}, "throws": "E>S"},
                                 {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "totals": {"E": 0, "S": 1}, "dianpao": "E"}])
def test_bad_settle_requests_never_raise(bad):
    out = settle_request(bad)
    assert out["ok"] is False and out["error"]


def test_registered_and_playable():
    v = variants.get("taizhou_trad")
    assert v.has_contract and v.playable and "taizhou_trad" in variants.playable()
    assert dict(v.title) == {"zh": "传统台州麻将", "en": "Traditional Taizhou"}
    ro = v.room_options
    assert ro.default("dan") == 0 and ro.default("throws") is True
    assert ro.validate({"dan": 20, "throws": False}) == []
    assert ro.validate({"dan": 3}) == [("dan", "not_allowed")]


# --- the state machine ------------------------------------------------------------------------------

def wall_with(hands, indicator, back="", front="", players=4, dealer=0):
    """A 136-tile wall dealing `hands` (player -> mpsz, topped up to 14 for the dealer and 13 for
    the others with spread tiles of other faces), then the indicator, then `front` (the next
    draws), the unused tiles, and `back` (the first listed is the wall's last tile)."""
    named = [parse_tile(indicator)] + parse_tiles(front) + parse_tiles(back)
    for h in hands.values():
        named += parse_tiles(h)
    used = [0] * NUM_FACES
    for t in named:
        used[t] += 1
    assert max(used) <= 4
    reserved = set(named) | {31, 33}
    pool = [f for c in range(4) for f in range(0, NUM_FACES, 2) if f not in reserved]
    pool += [f for c in range(4) for f in range(1, NUM_FACES, 2) if f not in reserved]
    deal = []
    for k in range(players):
        p = (dealer + k) % players
        tiles = parse_tiles(hands.get(p, ""))
        while len(tiles) < (14 if k == 0 else 13):
            tiles.append(pool.pop(0))
        deal += tiles
    for t in deal:
        if t not in reserved:
            used[t] += 1
    rest = [f for f in range(NUM_FACES) for _ in range(4 - used[f]) if f not in (31, 33)]
    rest += [f for f in (31, 33) for _ in range(4 - used[f])]
    mid = len(rest) // 2
    rest = rest[mid:] + rest[:mid]  # spare whites and reds in the middle, far from both ends
    wall = deal + [parse_tile(indicator)] + parse_tiles(front) + rest + list(reversed(parse_tiles(back)))
    assert len(wall) == 136 and all(wall.count(f) == 4 for f in range(NUM_FACES))
    return wall


def start(monkeypatch, wall, players=4, dealer=0, throws=False, dan=0, carry=None):
    monkeypatch.setattr(game, "build_wall", lambda seed: list(wall))
    return new_hand(Options(variant="taizhou_trad", players=players, settings={"throws": throws, "dan": dan}), 1,
                    dealer, carry)


def test_flowers_in_the_deal_in_seat_order(monkeypatch):
    """§1 / T-S3: flowers in the deal are shown and replaced from the back in seat order E, S, W,
    N, a flower drawn as a replacement being replaced at once; the indicator is the next tile."""
    hands = {0: "5z", 1: "5z5z"}
    wall = wall_with(hands, "9s", back="1z5z2z3z")
    st, events = start(monkeypatch, wall)
    assert st.indicator == T("9s") and st.phase == DISCARD
    kinds = [(e["type"], e.get("seat"), e.get("tile")) for e in events]
    assert kinds == [("deal", None, None),
                     ("flower", 0, "5z"), ("draw", 0, "1z"),
                     ("flower", 1, "5z"), ("draw", 1, "5z"), ("flower", 1, "5z"), ("draw", 1, "2z"),
                     ("flower", 1, "5z"), ("draw", 1, "3z")]
    assert all(e["replacement"] for e in events if e["type"] == "draw")
    assert st.rules.table_info(st)["flowers"] == [1, 3, 0, 0]
    assert all(T("5z") not in h for h in st.hands) and tiles_accounted(st) == 136
    assert st.drawn is None and not st.after_kong
    assert len(st.hands[0]) == 14 and all(len(st.hands[p]) == 13 for p in (1, 2, 3))


def test_red_flowers_when_the_wild_is_white(monkeypatch):
    hands = {0: "7z", 1: "5z5z"}
    st, events = start(monkeypatch, wall_with(hands, "5z", back="1z"))
    assert [e["type"] for e in events] == ["deal", "flower", "draw"]
    assert events[1] == {"type": "flower", "seat": 0, "tile": "7z", "flowers": 1}
    assert st.hands[1].count(T("5z")) == 2  # whites are wilds now
    assert st.rules.table_info(st)["flower_face"] == "7z"


def test_a_flower_drawn_in_play_is_replaced_from_the_back(monkeypatch):
    """§1 / T-D3: a flower drawn is shown and replaced at once; the replacement is no kong's."""
    hands = {0: "1z"}
    st, _ = start(monkeypatch, wall_with(hands, "9s", front="5z", back="6z"))
    st, events = play(st, A("discard", 0, "1z"))
    if st.phase != DISCARD:
        st, more = play(st, *[Action("pass", q) for q in waiting_player(st)])
        events += more
    assert [e["type"] for e in events[-3:]] == ["draw", "flower", "draw"]
    assert events[-1]["tile"] == "6z" and events[-1]["replacement"]
    assert st.turn == 1 and st.drawn == T("6z") and not st.after_kong
    assert st.rules.table_info(st)["flowers"] == [0, 1, 0, 0] and tiles_accounted(st) == 136


def test_throw_questions_before_the_deal(monkeypatch):
    """§2 / T-S10: with 扔弹 on, every seat is asked before the deal, per other seat; "0" is the
    default; the throws are kept while the dealer keeps the deal and lapse when it passes."""
    hands = {0: "1z"}
    wall = wall_with(hands, "9s", players=3)
    st, events = start(monkeypatch, wall, players=3, throws=True, dan=5)
    assert st.phase == DECIDE and events == [] and not any(st.hands) and tiles_accounted(st) == 136
    assert st.decision.name == "throw_1" and st.decision.seats == (0, 1, 2) and st.decision.choices == THROW_CHOICES
    assert auto_action(st, 1) == Action("decide", 1, value="0")
    assert legal_actions(st, 2) == [Action("decide", 2, value=c) for c in THROW_CHOICES]
    must_fail(st, Action("discard", 0, T("1m")))
    must_fail(st, Action("decide", 0, value="7"))
    st, ev1 = play(st, Action("decide", 0, value="5"), Action("decide", 1, value="0"), Action("decide", 2, value="10"))
    assert st.decision.name == "throw_2" and ev1[-1] == {"type": "decided", "name": "throw_1",
                                                        "answers": {"0": "5", "1": "0", "2": "10"}}
    st, ev2 = play(st, Action("decide", 0, value="0"), Action("decide", 1, value="2"), Action("decide", 2, value="0"))
    assert st.phase == DISCARD and ev2[-1]["type"] == "deal" or any(e["type"] == "deal" for e in ev2)
    assert st.play_from == st.step and len(st.hands[0]) == 14
    info = st.rules.table_info(st)
    assert info["throws"] == [{"by": 0, "at": 1, "amount": 5}, {"by": 2, "at": 0, "amount": 10},
                              {"by": 1, "at": 0, "amount": 2}]
    # the dealer wins at once (the dealt hand): the throws are carried, then added to
    won = replace(st, phase=ENDED, result=replace(st.rules.settle_drawn(st), winner=0))
    dealer, carry = game.next_hand(won)
    assert dealer == 0 and carry == {"streak": 2, "throws": [[0, 1, 5], [2, 0, 10], [1, 0, 2]]}
    st2, _ = start(monkeypatch, wall, players=3, throws=True, carry=carry)
    st2, _ = play(st2, *[Action("decide", p, value="2" if p == 1 else "0") for p in range(3)])
    st2, _ = play(st2, *[Action("decide", p, value="0") for p in range(3)])
    assert len(st2.rules.throws(st2)) == 4 and st2.rules.streak(st2) == 2
    lost = replace(st2, phase=ENDED, result=replace(st2.rules.settle_drawn(st2)))
    assert game.next_hand(lost) == (1, {"streak": 1, "throws": []})


def test_no_questions_when_throws_are_off(monkeypatch):
    hands = {0: "123m456m789p11s2s1z9m", 1: "23m456m789p11s4s3z6s"}
    st, events = start(monkeypatch, wall_with(hands, "9s", players=2), players=2)
    assert st.phase == DISCARD and events[0]["type"] == "deal"


def _play_state(monkeypatch, wall_len, hands=None, players=2):
    hands = hands or {0: "123m456m789p11s2s1z9m", 1: "23m456m789p11s4s3z6s"}
    st, _ = start(monkeypatch, wall_with(hands, "9s", players=players), players=players)
    return replace(st, wall=st.wall[len(st.wall) - wall_len:])


def test_shengpai_stage_and_faces(monkeypatch):
    """§3 / T-S2: the stage is on from 30 tiles (31 when odd); T-D7: a face stops being 生 once
    discarded (claimed or not); only the table is read, the same for every seat."""
    for n, on in ((32, False), (31, True), (30, True), (33, False)):
        st = _play_state(monkeypatch, n)
        assert shengpai_stage(st) is on and st.rules.table_info(st)["shengpai"] is on
    st = _play_state(monkeypatch, 40)
    assert shengpai_faces(st, 0) == [f for f in range(NUM_FACES) if f != T("5z")]
    st2, _ = play(st, A("discard", 0, "1z"))
    faces = shengpai_faces(st2, 1)
    assert T("1z") not in faces and T("2s") in faces
    other = replace(st2, hands=(st2.hands[1], st2.hands[0]), wall=tuple(reversed(st2.wall)))
    assert shengpai_faces(other, 1) == faces == shengpai_faces(st2, 0) == shengpai_faces(st2, None)


def test_huangpai_at_16(monkeypatch):
    """§3 / T-S2: the draw that leaves 17 (odd: 8 stacks and a lone tile) is the last; its
    discard may only be won on; then 黄牌 pays nothing and the deal passes."""
    st = _play_state(monkeypatch, 18)
    assert not st.rules.exhausted(st)
    st, ev = play(st, A("discard", 0, "1z"))
    assert len(st.wall) == 17 and st.rules.exhausted(st) and st.turn == 1
    assert st.rules.table_info(st)["tiles_left"] == 0
    st, ev = play(st, Action("discard", 1, st.hands[1][-1]))
    if st.phase != ENDED:
        st, more = play(st, *[Action("pass", q) for q in waiting_player(st)])
        ev += more
    assert st.phase == ENDED and ev[-1] == {"type": "drawn_hand"} and st.result.transfers == ()
    assert set(st.result.net) == {0} and game.next_hand(st)[0] == 1
    st16 = _play_state(monkeypatch, 16)
    assert st16.rules.exhausted(st16)
    assert not _play_state(monkeypatch, 18).rules.exhausted(_play_state(monkeypatch, 18))


def _dianpao_hand(monkeypatch, hand1, front):
    """Seat 0 (the dealer) waits on 1s/5s; seat 1 draws `front` with 29 tiles left (the 生牌
    stage) and discards 5s, still 生; seat 0 wins on it."""
    hands = {0: "123m456m789p11s55s1z", 1: hand1, 2: "123m456m789p11s2s6s" if "9s" not in hand1 else
             "1m4m7m2p5p8p3s6s9s2z3z4z6z"}
    if hands[2] == hands[1]:
        hands[2] = "1m4m7m2p5p8p3s6s9s2z3z4z6z"
    st, _ = start(monkeypatch, wall_with(hands, "9m", players=3), players=3)
    st = replace(st, wall=(T(front),) + st.wall[-29:])
    st, _ = play(st, A("discard", 0, "1z"))  # 1z is no longer 生
    while st.phase != DISCARD:
        st, _ = play(st, *[Action("pass", q) for q in waiting_player(st)])
    assert st.turn == 1 and st.drawn == T(front) and shengpai_stage(st)
    st, _ = play(st, Action("discard", 1, T("5s")))
    if "win" in st.claim_options[2]:
        st, _ = play(st, Action("pass", 2))
    st, ev = play(st, Action("win", 0, T("5s")))
    return st, ev


def test_dianpao_and_its_exception(monkeypatch):
    """§3 点炮: in the stage, a 生牌 won on makes the discarder pay for everyone (T-D8): seat 1
    was ready (77s 99s) when it let the 5s go."""
    st, ev = _dianpao_hand(monkeypatch, "123m456m789p77s5s9s", "9s")
    r = st.result
    assert r.winner == 0 and r.liable == 1 and r.liable_reason == "dianpao" and st.discard_ready
    assert {t["from"] for t in r.transfers} == {1}
    assert ev[-1]["liable"] == 1 and sum(r.net) == 0


def test_dianpao_exception_all_sheng_not_ready(monkeypatch):
    """T-D11 / T-S9: every tile of seat 1's hand was 生 and it was not ready: no 点炮."""
    st, _ = _dianpao_hand(monkeypatch, "1m4m7m2p5p8p3s6s5s2z3z4z6z", "1p")
    assert not st.discard_ready
    assert all(t in shengpai_faces(st, 1) for t in list(st.hands[1]) + [T("5s")])
    r = st.result
    assert r.winner == 0 and r.liable is None and {t["from"] for t in r.transfers} == {1, 2}


def test_added_kong_only_after_a_draw(monkeypatch):
    """T-D2 / T-S13."""
    st = _play_state(monkeypatch, 40)
    st = replace(st, melds=(st.melds[0], (parse_meld("pung:444s", None),)), hands=(st.hands[0], tuple(sorted(
        parse_tiles("23m456m789p11s4s")))), turn=1, drawn=None, step=5)
    assert ("akong", T("4s")) not in st.rules.self_kong_options(st, 1)
    drawn = replace(st, drawn=T("4s"))
    assert ("akong", T("4s")) in st.rules.self_kong_options(drawn, 1)
