"""Wenzhou in the score calculator: score_request's items in both languages (shared/rules/
wenzhou.md §9, README "items ... in the language of the request"), the calculator page with
Wenzhou's own fields, and the rules page's links into it."""

import re
from urllib.parse import parse_qs, urlencode

import pytest

from games.engine import contract
from games.engine.variants import wenzhou

URL = "/calculator/"

# shared/rules/wenzhou.md §9 score_hands, examples 1-3
EXAMPLE_1 = {"variant": "wenzhou", "seat": "S", "wild": "9s", "hand": "234m567m111p678s13p9s2z", "melds": [],
             "win": "2z", "self_drawn": False, "base": 4}
EXAMPLE_2 = {"variant": "wenzhou", "seat": "E", "wild": "2m", "hand": "111s333m777z4p",
             "melds": ["pung:555z", "kong:9999p"], "win": "4p", "self_drawn": False}
EXAMPLE_3 = {"variant": "wenzhou", "seat": "W", "wild": "6p", "hand": "6p6p123m456m789s12345z", "melds": []}


def names(result):
    return [item["name"] for item in result["items"]]


# --- score_request: items in the language of the request -----------------------------------

def test_items_default_to_english_as_the_spec():
    r1 = contract.score_request(EXAMPLE_1)
    assert (r1["kind"], r1["total"], r1["wilds"]) == ("soft", 4, 1)
    assert r1["items"] == [{"name": "base", "points": 4}, {"name": "soft: a wild stands in"}]
    r2 = contract.score_request({**EXAMPLE_2, "lang": "en"})
    assert r2["items"] == [{"name": "base", "points": 2}, {"name": "double: 碰碰胡"}]
    assert contract.score_request(EXAMPLE_3) == {"ok": True, "winner": False, "points": 0, "tai": 0, "total": 0,
                                                 "capped": False, "kind": None, "wilds": 2, "items": []}


def test_items_in_chinese():
    r1 = contract.score_request({**EXAMPLE_1, "lang": "zh"})
    assert (r1["kind"], r1["tai"], r1["total"]) == ("soft", 0, 4)
    assert r1["items"] == [{"name": "底", "points": 4}, {"name": "软胡：财神代替"}]
    r2 = contract.score_request({**EXAMPLE_2, "lang": "zh"})
    assert (r2["kind"], r2["total"]) == ("double", 8)
    assert r2["items"] == [{"name": "底", "points": 2}, {"name": "双翻：碰碰胡"}]
    assert contract.score_request({**EXAMPLE_3, "lang": "zh"})["items"] == []


FIVE_MELDS = ["pung:111z", "pung:222m", "chow:345p", "pung:777z", "chow:123s"]


@pytest.mark.parametrize("fields, kind, en, zh", [
    ({**EXAMPLE_1, "self_drawn": True}, "hard", ["hard: self-drawn"], ["硬胡：自摸"]),
    ({"wild": "9s", "hand": "234m567m123p678s789p2z", "win": "2z"}, "hard",
     ["hard: no wild stands in"], ["硬胡：无财神"]),
    ({"wild": "5s", "hand": "234m567m123p456s789p2z", "win": "2z"}, "hard",
     ["hard: no wild stands in"], ["硬胡：财神归位"]),
    ({**EXAMPLE_1, "robbed_kong": True}, "hard", ["hard: robbed kong"], ["硬胡：抢杠胡"]),
    ({"wild": "5s", "hand": "5s11m22m33m44p55p66p77z9s", "win": "1s"}, "hard", ["hard: 软8对"], ["硬胡：软8对"]),
    ({"wild": "5s", "hand": "5s11m22m33m44p55p66p77z1s", "win": "1s"}, "double", ["double: 硬8对"], ["双翻：硬8对"]),
    ({"wild": "5s", "hand": "5s5s5s1m4m7m2p5p8p3s6s9s1z2z3z4z", "win": "6z", "self_drawn": True}, "hard",
     ["hard: self-drawn", "hard: three wilds"], ["硬胡：自摸", "硬胡：三财神"]),
    ({**EXAMPLE_1, "first_turn": True}, "double", ["double: 地胡"], ["双翻：地胡"]),
    ({**EXAMPLE_1, "seat": "E", "first_turn": True, "self_drawn": True}, "double", ["double: 天胡"], ["双翻：天胡"]),
    ({"wild": "9s", "hand": "1m", "melds": FIVE_MELDS, "win": "1m"}, "double", ["double: 单吊"], ["双翻：单吊"]),
    ({"wild": "9s", "hand": "9s", "melds": FIVE_MELDS, "quanqiu": True}, "double", ["double: 全球神"], ["双翻：全球神"]),
    ({"wild": "9s", "hand": "9s", "melds": FIVE_MELDS, "win": "1m", "self_drawn": True}, "hard",  # 财神马 self-drawn
     ["hard: self-drawn"], ["硬胡：自摸"]),
])
def test_reasons_worded_in_both_languages(fields, kind, en, zh):
    req = {"variant": "wenzhou", "seat": "S", "melds": [], **fields}
    r_en = contract.score_request({**req, "lang": "en"})
    r_zh = contract.score_request({**req, "lang": "zh"})
    assert r_en["ok"] and r_zh["ok"], (r_en, r_zh)
    assert r_en["kind"] == kind
    # only the words differ
    assert {k: v for k, v in r_en.items() if k != "items"} == {k: v for k, v in r_zh.items() if k != "items"}
    assert r_en["items"][0] == {"name": "base", "points": r_en["points"]}
    assert r_zh["items"][0] == {"name": "底", "points": r_en["points"]}
    assert names(r_en)[1:] == en
    assert names(r_zh)[1:] == zh


def test_score_keeps_its_reason_codes():
    score = wenzhou.Score(True, 4, "hard", 0, ("self-drawn", "robbed kong"))
    assert score.reasons == ("self-drawn", "robbed kong")
    assert names(score.as_dict()) == ["base", "hard: self-drawn", "hard: robbed kong"]
    assert names(score.as_dict("zh")) == ["底", "硬胡：自摸", "硬胡：抢杠胡"]
    assert score.as_dict("en") == score.as_dict()


def test_a_bad_lang_is_an_error():
    answer = contract.score_request({**EXAMPLE_1, "lang": "fr"})
    assert answer["ok"] is False and "lang" in answer["error"]
    assert contract.score_request({**EXAMPLE_1, "lang": None})["items"][0]["name"] == "base"
