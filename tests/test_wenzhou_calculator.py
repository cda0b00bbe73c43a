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


# --- the calculator page -------------------------------------------------------------------

def value(html, testid):
    match = re.search(rf'data-testid="{testid}">(.*?)</span></div>', html, re.S)
    return match and re.sub(r"<[^>]+>", "", match.group(1)).strip()


def query(example, lang):
    """The calculator's GET parameters for a contract example (as games.views.calculator_url)."""
    q = {"variant": "wenzhou", "seat": example["seat"], "wild": example["wild"], "hand": example["hand"],
         "melds": "\n".join(example["melds"]), "win": example.get("win") or "", "lang": lang}
    if "base" in example:
        q["base"] = example["base"]
    if example.get("self_drawn"):
        q["self_drawn"] = "on"
    return q


def page(client, params, ui="zh-hans"):
    response = client.get(URL + "?" + urlencode(params), HTTP_ACCEPT_LANGUAGE=ui)
    assert response.status_code == 200
    return response.content.decode()


def items(html):
    table = html.split('<table class="items">')[1].split("</table>")[0]
    cells = re.findall(r'<tr>\s*<td(?: colspan="2")?>(.*?)</td>', table, re.S)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in cells]


def test_the_calculator_offers_wenzhou_and_its_fields(client):
    html = page(client, {}, ui="zh-hans").split('id="result"')[0]
    assert '<option value="wenzhou">温州麻将</option>' in html
    assert '<option value="taizhou" selected>台州麻将</option>' in html
    for name in ("base", "first_turn", "robbed_kong", "quanqiu"):
        assert f'name="{name}"' in html
    assert html.count('data-variant-field="wenzhou"') == 3
    assert html.count('data-variant-field="wenzhou zhuji taizhou_trad"') == 1  # 抢杠胡 serves Zhuji and traditional Taizhou too
    base = html.split('name="base"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\d)"', base) == ["2", "4", "6", "8", "3", "5", "7", "9"]
    assert "js/calculator.js" in html
    assert "Wenzhou Mahjong" in page(client, {}, ui="en")


@pytest.mark.django_db
def test_the_calculator_offers_every_contract_variant_even_before_rooms_may_use_it(monkeypatch):
    from dataclasses import replace

    from games.engine import variants
    from games.forms import CalculatorForm, CreateRoomForm
    from games.variant_names import scoring_variant_choices, variant_choices

    monkeypatch.setitem(variants._REGISTRY, "wenzhou", replace(variants.get("wenzhou"), playable=False))
    assert [name for name, _ in scoring_variant_choices()] == ["taizhou", "taizhou_trad", "wenzhou", "zhuji"]
    rooms_may_use = [name for name, _ in variant_choices()]
    assert "taizhou" in rooms_may_use and "wenzhou" not in rooms_may_use  # (Zhuji: as its engine says)
    assert [name for name, _ in CalculatorForm().fields["variant"].choices] == ["taizhou", "taizhou_trad", "wenzhou", "zhuji"]
    assert "wenzhou" not in [name for name, _ in CreateRoomForm().fields["variant"].choices]


@pytest.mark.parametrize("example, total, kind_zh, kind_en, wilds, zh_items, en_items", [
    (EXAMPLE_1, "4", "软胡 ×1", "Soft ×1", "1", ["底", "软胡：财神代替"], ["base", "soft: a wild stands in"]),
    (EXAMPLE_2, "8", "双翻 ×4", "Double ×4", "0", ["底", "双翻：碰碰胡"], ["base", "double: 碰碰胡"]),
])
def test_spec_examples_through_the_page(client, example, total, kind_zh, kind_en, wilds, zh_items, en_items):
    zh = page(client, query(example, "zh"))
    assert value(zh, "total") == total and value(zh, "kind") == kind_zh and value(zh, "wilds") == wilds
    assert value(zh, "points") == str(example.get("base", 2))
    assert items(zh) == zh_items
    assert f"底 {example.get('base', 2)} × " in zh and f"= {total} 分" in zh
    en = page(client, query(example, "en"), ui="en")
    assert value(en, "total") == total and value(en, "kind") == kind_en and value(en, "wilds") == wilds
    assert items(en) == en_items
    assert f"= {total} pts" in en
    # the breakdown's language is the form's choice, whatever the UI's
    assert items(page(client, query(example, "en"), ui="zh-hans")) == en_items


def test_spec_example_3_a_non_winner_holds_two_wilds(client):
    for lang, ui in (("zh", "zh-hans"), ("en", "en")):
        html = page(client, query(EXAMPLE_3, lang), ui=ui)
        assert value(html, "total") == "0" and value(html, "wilds") == "2" and value(html, "kind") == "—"
        assert items(html) == (["没有计分项目"] if lang == "zh" else ["Nothing scores"])
    assert "手里 2 个财神（财神钱）" in page(client, query(EXAMPLE_3, "zh"))
    assert "2 wilds in hand (wild money)" in page(client, query(EXAMPLE_3, "en"), ui="en")


def test_wenzhou_fields_reach_the_contract(client, monkeypatch):
    calls = []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    html = page(client, {**query(EXAMPLE_1, "zh"), "base": "7", "first_turn": "on"})
    assert calls[-1]["base"] == 7 and calls[-1]["first_turn"] is True and "robbed_kong" not in calls[-1]
    assert value(html, "total") == "28" and items(html) == ["底", "双翻：地胡"]
    html = page(client, {**query(EXAMPLE_1, "zh"), "base": "3", "robbed_kong": "on"})
    assert value(html, "total") == "6" and items(html) == ["底", "硬胡：抢杠胡"]
    page(client, {**query(EXAMPLE_1, "zh"), "base": ""})
    assert calls[-1]["base"] == 2
    # 全球神: one wild in hand, five melds, no winning tile
    html = page(client, {"variant": "wenzhou", "seat": "N", "wild": "9s", "hand": "9s", "quanqiu": "on",
                         "melds": "pung:111z, pung:222m, chow:345p, pung:777z, chow:123s", "lang": "en"}, ui="en")
    assert value(html, "total") == "8" and items(html) == ["base", "double: 全球神"]


def alert(html):
    match = re.search(r'role="alert">(.*?)</div>', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1)))


def test_wenzhou_needs_a_wild(client, monkeypatch):
    monkeypatch.setattr(contract, "score_request", lambda req: pytest.fail("the engine must not be asked"))
    zh = alert(page(client, {**query(EXAMPLE_1, "zh"), "wild": ""}))
    assert "温州麻将一定有财神" in zh
    en = alert(page(client, {**query(EXAMPLE_1, "en"), "wild": ""}, ui="en"))
    assert "Wenzhou always has a wild" in en


def test_no_win_on_a_discarded_wild(client):
    hand = {**query(EXAMPLE_1, "zh"), "hand": "234m567m111p678s13p2z2z", "win": "9s"}
    assert "别人打出的财神不能和" in alert(page(client, hand))
    assert "A discarded wild cannot be won on" in alert(page(client, hand, ui="en"))
    # self-drawn it wins: the wild is the 2p of 1-2-3p
    html = page(client, {**hand, "self_drawn": "on"})
    assert value(html, "kind") == "硬胡 ×2" and items(html) == ["底", "硬胡：自摸"]


def test_caishenma_on_a_discard_is_refused(client):
    hand = {"variant": "wenzhou", "seat": "S", "wild": "9s", "hand": "9s", "win": "1m", "lang": "zh",
            "melds": "pung:111z\npung:222m\nchow:345p\npung:777z\nchow:123s"}
    html = page(client, hand)
    assert "不能计分" in alert(html) and "财神马" in alert(html) and "self-drawn" in alert(html)
    assert value(html, "total") is None
    html = page(client, {**hand, "self_drawn": "on"})
    assert value(html, "kind") == "硬胡 ×2" and value(html, "total") == "4"


def test_a_bad_base_is_refused_for_wenzhou(client):
    assert "10" in alert(page(client, {**query(EXAMPLE_1, "zh"), "base": "10"}))


def test_wenzhou_fields_are_ignored_for_taizhou(client, monkeypatch):
    calls = []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    taizhou = {"variant": "taizhou", "seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": "pung:222z",
               "win": "3m", "lang": "zh"}
    plain = page(client, taizhou)
    extra = page(client, {**taizhou, "base": "99", "first_turn": "on", "robbed_kong": "on", "quanqiu": "on"})
    assert calls[0] == calls[1] and not {"base", "first_turn", "robbed_kong", "quanqiu"} & set(calls[1])
    assert value(plain, "total") == value(extra, "total") == "64"
    assert 'data-testid="kind"' not in extra and 'role="alert"' not in extra
    # Taizhou has no wild of necessity
    assert value(page(client, {**taizhou, "wild": ""}), "total") is not None


def test_calculator_url_carries_wenzhou_fields():
    from games.views import calculator_url

    url = calculator_url({**EXAMPLE_1, "first_turn": True, "quanqiu": False}, "en")
    params = parse_qs(url.split("?", 1)[1])
    assert params["variant"] == ["wenzhou"] and params["base"] == ["4"] and params["first_turn"] == ["on"]
    assert "quanqiu" not in params and "self_drawn" not in params and params["lang"] == ["en"]
    assert "base" not in parse_qs(calculator_url({"seat": "S", "hand": "1m"}).split("?", 1)[1])


# --- the rules page opens §9's examples in the calculator ---------------------------------

@pytest.mark.parametrize("lang, ui, kinds", [
    ("zh", "zh-hans", ["软胡 ×1", "双翻 ×4", "—"]),
    ("en", "en", ["Soft ×1", "Double ×4", "—"]),
])
def test_rules_page_links_open_the_spec_examples(client, lang, ui, kinds):
    html = client.get(f"/rules/wenzhou/?lang={lang}").content.decode()
    links = [part.split('"')[0].replace("&amp;", "&") for part in html.split('href="/calculator/?')[1:]]
    assert len(links) == 3
    for link, example, total, kind, wilds in zip(links, (EXAMPLE_1, EXAMPLE_2, EXAMPLE_3), ("4", "8", "0"), kinds,
                                                 ("1", "0", "2")):
        params = parse_qs(link)
        assert params["variant"] == ["wenzhou"] and params["lang"] == [lang]
        assert params["hand"] == [example["hand"]] and params["wild"] == [example["wild"]]
        result = client.get("/calculator/?" + link, HTTP_ACCEPT_LANGUAGE=ui).content.decode()
        assert value(result, "total") == total and value(result, "kind") == kind and value(result, "wilds") == wilds
    assert parse_qs(links[0])["base"] == ["4"] and "base" not in parse_qs(links[1])
    assert 'href="/calculator/"' in html.split('id="' + lang + '-contract"')[1]
