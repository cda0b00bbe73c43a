"""Zhuji (诸暨麻将) engine: 台 counting, 独, 翻 and 包 payments (shared/rules/zhuji.md).

tests/data/zhuji_hands.jsonl: one hand-worked case a line, its "rule" citing the spec section or
decision (Z-D…, or the site's Z-S…) it checks; "contract" says which §8 contract ("score" =
score_hands, "settle" = settle_hands); "expect" lists the fields that must match (the rest is
not checked). Every case is also checked against the brute-force reference
(tests/zhuji_reference.py) and the common invariants of its contract. Pure engine: no Django.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from games.engine import contract, variants
from games.engine.tiles import SEAT_NAMES, parse_tile, parse_tiles
from games.engine.variants.zhuji import (
    ITEM_EN,
    contract_choices,
    contract_value,
    draw_faces,
    escape_transfers,
    score_request,
    settle_request,
)
from tests.zhuji_reference import reference_single_wait, reference_tai

DATA = Path(__file__).parent / "data" / "zhuji_hands.jsonl"


def _load():
    cases = []
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                case = json.loads(line)
                cases.append(pytest.param(case, id=case["id"]))
    return cases


CASES = _load()


def test_table():
    ids = [c.values[0]["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for c in CASES:
        case = c.values[0]
        assert case["rule"] and case["contract"] in ("score", "settle"), case["id"]
        assert case["request"]["variant"] == "zhuji"
    assert len(ids) >= 60
    kinds = {c.values[0]["contract"] for c in CASES}
    assert kinds == {"score", "settle"}


def _items_named(out):
    return {i["name"] for i in out["items"]}


def test_every_tai_item_is_worked():
    """Every §4 item appears in at least one hand-worked case's expected items."""
    named = set()
    for c in CASES:
        exp = c.values[0]["expect"]
        named |= {i["name"] for i in exp.get("items", [])}
    assert named >= set(ITEM_EN), set(ITEM_EN) - named


def _reference(req):
    """(台, 独) of a winning score request by brute force."""
    wilds = req.get("wilds")
    if wilds is None:
        wilds = [] if req.get("wild") in (None, "") else [req["wild"]]
    wilds = tuple(parse_tile(w) for w in wilds)
    hand = parse_tiles(req["hand"])
    melds = []
    for m in req.get("melds") or []:
        kind, _, body = m.partition(":")
        faces = sorted(parse_tiles(body))
        melds.append((kind, faces[0]))
    tai = reference_tai(hand + [parse_tile(req["win"])], melds, wilds, req["seat"],
                        kong_replacement=bool(req.get("kong_replacement")), robbed_kong=bool(req.get("robbed_kong")))
    du = reference_single_wait(hand, melds, wilds) if sum(t in wilds for t in hand) <= 2 else None
    return tai, du


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    req = case["request"]
    before = copy.deepcopy(req)
    public = contract.score_request if case["contract"] == "score" else contract.settle_request
    out = public(req)  # the JSON contract (score_hands / settle_hands) routes to the variant
    assert req == before, "a request is never changed"
    assert out == (score_request if case["contract"] == "score" else settle_request)(req)
    exp = case["expect"]
    if not exp["ok"]:
        assert out["ok"] is False and isinstance(out.get("error"), str) and out["error"], (case["rule"], out)
        return
    assert out["ok"] is True, (case["rule"], out)
    for key, value in exp.items():
        assert out[key] == value, (case["rule"], key, out)
    if case["contract"] == "score":
        if out["winner"]:
            assert out["points"] == 1 and out["capped"] is False
            assert out["tai"] == sum(i["tai"] for i in out["items"]) >= 1
            assert out["total"] == 2 ** (out["tai"] - 1)
            assert all(i["name"] in ITEM_EN for i in out["items"])
            tai, du = _reference(req)
            assert tai == out["tai"], ("reference", tai, out)
            if du is not None:
                assert du == out["single_wait"], ("reference 独", du, out)
        else:
            assert (out["points"], out["tai"], out["total"], out["items"]) == (0, 0, 0, [])
    else:
        assert sum(out["net"].values()) == 0
        assert set(out["net"]) == set(req.get("seats") or SEAT_NAMES)
        assert all(t["amount"] > 0 and t["from"] != t["to"] and t["why"] in ("win", "contract")
                   for t in out["transfers"])
        for s in out["net"]:
            got = sum(t["amount"] for t in out["transfers"] if t["to"] == s) - sum(
                t["amount"] for t in out["transfers"] if t["from"] == s)
            assert got == out["net"][s]


def test_the_lang_field():
    """README: lang en (default) or zh; the item names are the spec's terms in both (Z-S7)."""
    req = {"variant": "zhuji", "seat": "S", "hand": "111m999p555s888s2p", "win": "2p"}
    en = score_request(req)
    assert score_request({**req, "lang": "zh"}) == en == score_request({**req, "lang": "en"})
    assert score_request({**req, "lang": "fr"})["ok"] is False


@pytest.mark.parametrize("bad", [None, [], "zhuji", {"variant": "taizhou"}, {"variant": "zhuji", "hand": 5, "seat": "E"},
                                 {"variant": "zhuji", "seat": "E", "hand": "123m", "melds": "pung:111z"},
                                 {"variant": "zhuji", "seat": "E", "hand": "123m456m789p234s5s", "win": "5s",
                                  "self_drawn": "yes"},
                                 {"variant": "zhuji", "seat": "E", "wilds": "5p", "hand": "123m456m789p234s5s"},
                                 {"variant": "zhuji", "seat": "E", "wilds": ["5p"], "wild": "9m",
                                  "hand": "123m456m789p234s5s"},
                                 {"variant": "zhuji", "seat": "E", "hand": "123m456m789p234s5s", "win": "0m"}])
def test_bad_score_requests_never_raise(bad):
    out = score_request(bad)
    assert out["ok"] is False and out["error"]


@pytest.mark.parametrize("bad", [None, {"variant": "zhuji"}, {"variant": "zhuji", "dealer": "E", "seats": "ESWN"},
                                 {"variant": "zhuji", "dealer": "E", "winner": "S", "tai": "3"},
                                 {"variant": "zhuji", "dealer": "E", "winner": "S", "tai": True},
                                 {"variant": "zhuji", "dealer": "E", "winner": None, "discarder": "S"},
                                 {"variant": "zhuji", "dealer": "E", "winner": "S", "tai": 1, "laozhuang": "no"},
                                 {"variant": "zhuji", "dealer": "E", "winner": "S", "tai": 1, "target": 2.5},
                                 {"variant": "zhuji", "dealer": "E", "seats": ["E"], "winner": None}])
def test_bad_settle_requests_never_raise(bad):
    out = settle_request(bad)
    assert out["ok"] is False and out["error"]


def test_contract_values():
    """§5: 2 台 = 5, 3 台 = 10, 4 台 = 20, … × unit."""
    assert [contract_value(t) for t in (2, 3, 4, 5, 6)] == [5, 10, 20, 40, 80]
    assert contract_value(3, unit=2) == 20


def test_escape_penalty():
    """§3 / Z-D11 / Z-S10: 30 × unit shared equally by the others; not a hand's payment."""
    assert escape_transfers(["E", "S", "W", "N"], "W") == [
        {"from": "W", "to": s, "amount": 10, "why": "escape"} for s in ("E", "S", "N")]
    assert [t["amount"] for t in escape_transfers(["E", "S", "W"], "E", unit=2)] == [30, 30]
    assert [t["amount"] for t in escape_transfers(["E", "S"], "S")] == [30]


def test_contract_choices():
    """Z-S1: targets 2-6 with 0, 1 or 2 faces; the default (target 2, the room's faces) first."""
    for default in (0, 1, 2):
        ch = contract_choices(default)
        assert ch[0] == f"2:{default}" and len(ch) == len(set(ch)) == 15
        assert set(ch) == {f"{t}:{k}" for t in range(2, 7) for k in range(3)}


def test_faces_drawn():
    """Z-S2: different faces, from the seed alone; the first is the same for one or two."""
    for seed in range(200):
        two = draw_faces(seed, 2)
        assert len(set(two)) == 2 and all(0 <= f < 34 for f in two)
        assert draw_faces(seed, 1) == two[:1] and draw_faces(seed, 0) == ()
        assert draw_faces(seed, 2) == two
    firsts = {draw_faces(s, 1)[0] for s in range(400)}
    assert len(firsts) == 34  # every face may be wild


def test_registered_and_playable():
    v = variants.get("zhuji")
    assert v.has_contract and v.playable and "zhuji" in variants.playable()
    assert v.hand_size == 13 and v.robbing_kong and not v.white_stands_in
    ro = v.room_options
    assert ro.default("mode") == "fan" and ro.default("wild_faces") == 1 and ro.default("unit") == 1
    assert ro.validate({"mode": "bao", "wild_faces": 2, "unit": 5}) == []
    assert ro.validate({"mode": "xinli"}) == [("mode", "not_allowed")]
    assert ro.validate({"wild_faces": 3}) == [("wild_faces", "not_allowed")]
