"""Zhuji in the score calculator: its own fields (wild faces, 翻/包, target, 抢杠, 杠开; settling:
players, discarder, 底分, 老庄), the 台 items (Chinese names, glossed in English: Z-S7), 台 and total,
and the settlement's transfers — shared/rules/zhuji.md §8's examples through the page; errors worded
for players; a bad or foreign field changes nothing."""

import re
from urllib.parse import parse_qs, urlencode

import pytest

from games.engine import contract

URL = "/calculator/"


def page(client, params, ui="zh-hans", **extra):
    response = client.get(URL + "?" + urlencode(params), HTTP_ACCEPT_LANGUAGE=ui, **extra)
    assert response.status_code == 200
    return response.content.decode()


def text(html, testid):
    match = re.search(rf'data-testid="{testid}">(.*?)</(?:span></div>|p>)', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).strip()


def items(html):
    table = html.split('<table class="items">')[1].split("</table>")[0]
    rows = re.findall(r"<tr>\s*<td(?: colspan=\"2\")?>(.*?)</td>\s*(?:<td class=\"num\">(.*?)</td>)?", table, re.S)
    return [(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", name)).strip(), re.sub(r"\s+", " ", tai).strip())
            for name, tai in rows]


def transfers(html):
    table = html.split('<table class="items transfers">')[1].split("</table>")[0]
    rows = re.findall(r'<tr data-why="(\w+)"><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td class="num">(\d+)</td>',
                      table)
    return [(why, frm, to, word, int(amount)) for why, frm, to, word, amount in rows]


ZH_SEATS = {"E": "东", "S": "南", "W": "西", "N": "北"}
EN_SEATS = {"E": "East", "S": "South", "W": "West", "N": "North"}


def net(html, lang="zh"):
    line = text(html, "net")
    words = ZH_SEATS if lang == "zh" else EN_SEATS
    return {seat: int(m.group(1)) for seat, word in words.items()
            if (m := re.search(rf"{word} ([+-]?\d+)", line))}


def alert(html):
    match = re.search(r'role="alert">(.*?)</div>', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1)))


# zhuji.md §8 score_hands examples, as the calculator's fields
SCORE_1 = {"variant": "zhuji", "seat": "E", "wild_1": "9m", "hand": "111z234p567p888p9m", "melds": "", "win": "2p",
           "lang": "zh"}
SCORE_2 = {"variant": "zhuji", "seat": "S", "hand": "222z111m999p4s", "melds": "kong:6666z", "win": "4s",
           "self_drawn": "on", "kong_replacement": "on", "lang": "zh"}
SCORE_3 = {"variant": "zhuji", "seat": "N", "wild_1": "5p", "hand": "123m456m789p222s5p", "melds": "", "win": "9s",
           "lang": "zh"}
# hands worth the 台 of §8's settle_hands examples
THREE_TAI = {"variant": "zhuji", "seat": "W", "hand": "333z777z111m999p5s", "melds": "", "win": "5s", "lang": "zh"}
ONE_TAI = {"variant": "zhuji", "seat": "S", "hand": "123m456m789p234s5s", "melds": "", "win": "5s", "lang": "zh"}
DEALER_4 = {"variant": "zhuji", "seat": "E", "wild_1": "5m", "hand": "111z222m555p444s9s", "melds": "", "win": "9s",
            "self_drawn": "on", "lang": "zh"}


# --- the form --------------------------------------------------------------------------------

def test_the_calculator_offers_zhuji_and_its_fields(client):
    html = page(client, {}).split('id="result"')[0]
    assert '<option value="zhuji">诸暨麻将</option>' in html
    for name in ("wild_1", "wild_2", "mode", "target", "robbed_kong", "kong_replacement", "players", "discarder",
                 "unit", "laozhuang"):
        assert f'name="{name}"' in html, name
    assert html.count('data-variant-field="zhuji"') == 6
    assert html.count('data-variant-field="zhuji taizhou_trad"') == 3  # 杠开, players, discarder
    assert html.count('data-variant-field="wenzhou zhuji taizhou_trad"') == 1  # 抢杠胡 serves all three
    assert 'data-variant-hide="zhuji"' in html.split('name="wild"')[0].rsplit("<div", 1)[1]  # no indicator
    mode = html.split('name="mode"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\w+)"', mode) == ["fan", "bao"]
    target = html.split('name="target"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\d)"', target) == ["2", "3", "4", "5", "6"]  # Z-S1
    unit = html.split('name="unit"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\d+)"', unit) == ["1", "2", "5", "10"]  # Z-S8
    en = page(client, {}, ui="en")
    assert "Zhuji Mahjong" in en and "Wild face" in en and "Scoring mode" in en


def test_calculator_js_shows_each_variants_fields_only():
    from django.contrib.staticfiles import finders

    js = open(finders.find("js/calculator.js"), encoding="utf-8").read()
    assert "data-variant-field" in js and "data-variant-hide" in js


# --- §8 score_hands examples -------------------------------------------------------------------

def test_score_example_1(client):
    zh = page(client, SCORE_1)
    assert text(zh, "tai") == "3" and text(zh, "total") == "4" and text(zh, "mode") == "翻"
    assert items(zh) == [("屁胡", "0 台"), ("混一色", "1 台"), ("圈风", "1 台"), ("位置", "1 台")]
    assert "2<sup>3 − 1</sup> = 4 分" in zh
    assert 'data-testid="no-settlement"' in zh  # no discarder chosen: no payments listed
    en = page(client, {**SCORE_1, "lang": "en"}, ui="en")
    assert text(en, "tai") == "3" and text(en, "total") == "4"
    assert items(en) == [("屁胡 (mixed shape)", "0 台"), ("混一色 (half flush)", "1 台"),
                         ("圈风 (prevailing wind (East))", "1 台"), ("位置 (seat wind)", "1 台")]
    assert "2<sup>3 − 1</sup> = 4 pts" in en
    # the glosses follow the form's language, whatever the UI's
    assert items(page(client, SCORE_1, ui="en")) == items(zh)
    assert items(page(client, {**SCORE_1, "lang": "en"}))[0] == ("屁胡 (mixed shape)", "0 台")


def test_score_example_2_kong_replacement_without_wilds(client):
    zh = page(client, SCORE_2)
    assert text(zh, "tai") == "4" and text(zh, "total") == "8"
    assert items(zh) == [("碰碰胡", "1 台"), ("位置", "1 台"), ("发", "1 台"), ("杠开", "1 台")]
    assert "没有财神" in zh.split('class="hand-view"')[1].split("</div>")[0]
    # self-drawn by South: each other player pays 2w = 16
    assert transfers(zh) == [("win", "东", "南", "和", 16), ("win", "西", "南", "和", 16), ("win", "北", "南", "和", 16)]
    assert net(zh) == {"E": -16, "S": 48, "W": -16, "N": -16}
    en = page(client, {**SCORE_2, "lang": "en"}, ui="en")
    assert ("杠开 (win on a kong's replacement)", "1 台") in [(n.replace("&#x27;", "'"), t) for n, t in items(en)]
    assert net(en, "en") == {"E": -16, "S": 48, "W": -16, "N": -16}


def test_score_example_3_is_no_win(client):
    for lang, ui in (("zh", "zh-hans"), ("en", "en")):
        html = page(client, {**SCORE_3, "lang": lang}, ui=ui)
        assert "0 台" in alert(html) and 'data-testid="tai"' not in html
        assert "transfers" not in html.split('id="result"')[1]


def test_a_non_winner_scores_nothing(client):
    html = page(client, {**SCORE_1, "win": ""})
    assert text(html, "tai") == "0" and text(html, "total") == "0"
    assert items(html) == [("没有计分项目", "")] and "transfers" not in html.split('id="result"')[1]


# --- §8 settle_hands examples ----------------------------------------------------------------

def test_settle_example_1_fan_on_a_discard(client):
    html = page(client, {**THREE_TAI, "discarder": "E"})
    assert text(html, "tai") == "3"
    assert transfers(html) == [("win", "东", "西", "和", 8), ("win", "南", "西", "和", 4), ("win", "北", "西", "和", 4)]
    assert net(html) == {"E": -8, "S": -4, "W": 16, "N": -4}


def test_settle_example_2_bao_discarder_pays_the_contract(client):
    html = page(client, {**ONE_TAI, "mode": "bao", "target": "3", "discarder": "E"})
    assert text(html, "tai") == "1" and text(html, "mode") == "包 3 台"
    assert transfers(html) == [("contract", "东", "南", "包", 30), ("win", "东", "南", "和", 2),
                               ("win", "西", "南", "和", 1), ("win", "北", "南", "和", 1)]
    assert net(html) == {"E": -32, "S": 34, "W": -1, "N": -1}
    en = page(client, {**ONE_TAI, "mode": "bao", "target": "3", "discarder": "E", "lang": "en"}, ui="en")
    assert text(en, "mode") == "包 3 台"
    assert [t[3] for t in transfers(en)] == ["包 (contract)", "Win", "Win", "Win"]


def test_settle_example_3_dealer_no_wild_and_single_wait(client):
    html = page(client, {**DEALER_4, "mode": "bao", "target": "2"})
    assert text(html, "tai") == "4" and text(html, "total") == "8"
    assert ("无财", "1 台") in items(html)
    assert "无财" in text(html, "flags") and "独" in text(html, "flags")
    assert net(html) == {"E": 108, "S": -36, "W": -36, "N": -36}
    assert [t[4] for t in transfers(html)] == [20, 16, 20, 16, 20, 16]
    # in 翻 the same hand pays the win only, and shows no 包 flags
    fan = page(client, DEALER_4)
    assert net(fan) == {"E": 48, "S": -16, "W": -16, "N": -16} and 'data-testid="flags"' not in fan


def test_spec_section_5_example(client):
    html = page(client, {**THREE_TAI, "self_drawn": "on", "mode": "bao", "target": "2"})
    assert transfers(html)[:2] == [("contract", "东", "西", "包", 15), ("win", "东", "西", "和", 8)]
    assert net(html) == {"E": -23, "S": -8, "W": 39, "N": -8}


def test_unit_laozhuang_and_three_players(client):
    base = {**THREE_TAI, "discarder": "E"}
    html = page(client, {**base, "unit": "5", "laozhuang": "on"})
    assert net(html) == {"E": -80, "S": -40, "W": 160, "N": -40}  # 5 × 2 × the plain payments
    assert "老庄 ×2" in html and "（底分 5）" in html
    three = page(client, {**base, "players": "3"})
    assert net(three) == {"E": -8, "S": -4, "W": 12}
    # 包 with three players: the discarder pays two contract shares (Z-D10)
    bao = page(client, {**ONE_TAI, "players": "3", "mode": "bao", "target": "3", "discarder": "W"})
    assert net(bao) == {"E": -1, "S": 23, "W": -22}
    assert page(client, {**ONE_TAI, "players": "2", "discarder": "E"}).count('<tr data-why="win">') == 1


def test_robbed_kong_is_paid_by_the_robbed_player(client):
    html = page(client, {**ONE_TAI, "robbed_kong": "on", "mode": "bao", "target": "2", "discarder": "N"})
    assert ("抢杠", "1 台") in items(html) and text(html, "tai") == "2"
    assert net(html) == {"E": -2, "S": 23, "W": -2, "N": -19}  # N: 3 × 5 + 2w (w = 2)


def test_two_wild_faces(client):
    html = page(client, {**SCORE_1, "wild_2": "1s"})
    assert text(html, "tai") == "3"
    view = html.split('class="hand-view"')[1].split("</div>")[0]
    assert view.count('title="9m"') == 2 and view.count('title="1s"') == 1  # hand + the two faces
    assert view.count("tile-wild") == 3


def test_the_fields_reach_the_contracts(client, monkeypatch):
    calls = []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    settles = []
    real_settle = contract.settle_request
    monkeypatch.setattr(contract, "settle_request", lambda req: settles.append(req) or real_settle(req))
    page(client, {**DEALER_4, "wild_2": "3p", "mode": "bao", "target": "3", "unit": "2", "laozhuang": "on"})
    assert calls[-1] == {"variant": "zhuji", "seat": "E", "wilds": ["5m", "3p"], "hand": "111z222m555p444s9s",
                         "melds": [], "lang": "zh", "win": "9s", "self_drawn": True, "mode": "bao", "target": 3}
    assert settles[-1] == {"variant": "zhuji", "mode": "bao", "seats": ["E", "S", "W", "N"], "dealer": "E",
                           "winner": "E", "discarder": None, "tai": 4, "unit": 2, "laozhuang": True, "target": 3,
                           "no_wild": True, "single_wait": True}
    # 翻: no target in either request
    page(client, {**THREE_TAI, "target": "5", "discarder": "E"})
    assert "target" not in calls[-1] and calls[-1]["mode"] == "fan" and calls[-1]["wilds"] == []
    assert "target" not in settles[-1] and settles[-1]["discarder"] == "E"


# --- errors: clear messages, and the engine is not asked --------------------------------------

@pytest.mark.parametrize("fields, zh, en", [
    ({"wild_1": "9m", "wild_2": "9m"}, "两个财神牌面不能相同", "The two wild faces must differ"),
    ({"wild_1": "2p"}, "别人打出的财神不能和", "A discarded wild cannot be won on"),
    ({"kong_replacement": "on"}, "杠开是自摸", "杠开 is self-drawn"),
    ({"kong_replacement": "on", "self_drawn": "on"}, "杠开时副露里要有一个杠", "杠开 needs a kong among the melds"),
    ({"robbed_kong": "on", "self_drawn": "on"}, "抢杠胡是和别人加杠的那张牌，不能同时自摸", "it cannot be self-drawn"),
    ({"robbed_kong": "on", "win": ""}, "请填写和的牌", "Give the winning tile"),
    ({"discarder": "E"}, "放冲的一家不能是和牌的一家", "The discarder cannot be the winner"),
    ({"discarder": "S", "self_drawn": "on"}, "自摸时没有放冲的一家", "A self-drawn win has no discarder"),
    ({"discarder": "N", "players": "3"}, "放冲的一家不在座", "The discarder is not at the table"),
    ({"seat": "W", "players": "2"}, "这个门风不在座", "That seat is not at the table"),
    ({"wild_1": "0z"}, "0z", "0z"),
    ({"mode": "both"}, "both", "both"),
    ({"target": "7"}, "7", "7"),
    ({"unit": "3"}, "3", "3"),
    ({"players": "5"}, "5", "5"),
])
def test_bad_input_is_a_clear_message_and_asks_nothing(client, monkeypatch, fields, zh, en):
    monkeypatch.setattr(contract, "score_request", lambda req: pytest.fail("the engine must not be asked"))
    monkeypatch.setattr(contract, "settle_request", lambda req: pytest.fail("the engine must not be asked"))
    html = page(client, {**SCORE_1, **fields})
    assert "输入有误" in alert(html) and zh in alert(html)
    assert 'data-testid="tai"' not in html
    html = page(client, {**SCORE_1, **fields, "lang": "en"}, ui="en")
    assert en in alert(html).replace("&#x27;", "'")


@pytest.mark.parametrize("fields, error", [
    ({"seat": "E", "mode": "bao", "target": "4"}, "in 包 the dealer needs at least the contracted 4 台"),
    ({"hand": "111z234p567p888p"}, "hand has 12 tiles"),
    ({"hand": "123m456m789s1234p"}, "do not make four sets and a pair"),
])
def test_engine_refusals_are_shown(client, fields, error):
    html = page(client, {**SCORE_1, **fields})
    assert "不能计分" in alert(html) and error in alert(html)
    assert "transfers" not in html.split('id="result"')[1]


def test_a_dealer_at_the_target_wins_in_bao(client):
    html = page(client, {**SCORE_1, "mode": "bao", "target": "3", "discarder": "S"})
    assert text(html, "tai") == "3"
    # S discards to the dealer: 3 contract shares of 10 (no 无财, not 独) + 2w
    assert net(html) == {"E": 46, "S": -38, "W": -4, "N": -4}


def test_zhuji_fields_change_nothing_for_other_variants(client, monkeypatch):
    calls = []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    settles = []
    monkeypatch.setattr(contract, "settle_request", lambda req: settles.append(req))
    taizhou = {"variant": "taizhou", "seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": "pung:222z",
               "win": "3m", "lang": "zh"}
    zhuji_fields = {"wild_1": "5s", "wild_2": "5s", "mode": "bao", "target": "9", "kong_replacement": "on",
                    "players": "2", "discarder": "S", "unit": "7", "laozhuang": "on"}
    for base in (taizhou, {**taizhou, "variant": "wenzhou", "hand": "12m456m789m66z123p", "wild": "9s"}):
        plain = page(client, base)
        extra = page(client, {**base, **zhuji_fields})
        assert calls[-2] == calls[-1] and not set(zhuji_fields) & set(calls[-1])
        assert text(plain, "total") == text(extra, "total") is not None
        assert 'role="alert"' not in extra and "transfers" not in extra.split('id="result"')[1]
    assert settles == []


def test_the_indicator_wild_is_not_zhujis(client, monkeypatch):
    calls = []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    plain = page(client, SCORE_2)
    # a Taizhou wild left in the (hidden) indicator field, even a bad one, is ignored
    for wild in ("4s", "xx"):
        html = page(client, {**SCORE_2, "wild": wild})
        assert calls[-1] == calls[0] and "wild" not in calls[-1] and calls[-1]["wilds"] == []
        assert text(html, "total") == text(plain, "total") == "8"


def test_htmx_gets_the_result_with_its_settlement(client):
    html = page(client, {**THREE_TAI, "discarder": "E"}, HTTP_HX_REQUEST="true")
    assert html.lstrip().startswith('<section id="result"')
    assert net(html) == {"E": -8, "S": -4, "W": 16, "N": -4}


def test_calculator_url_carries_zhuji_fields():
    from games.views import ZHUJI_EXAMPLES, calculator_url

    params = parse_qs(calculator_url({**ZHUJI_EXAMPLES[5], "wilds": ["5m", "3p"], "laozhuang": True, "unit": 5},
                                     "en").split("?", 1)[1])
    assert params["variant"] == ["zhuji"] and params["wild_1"] == ["5m"] and params["wild_2"] == ["3p"]
    assert params["mode"] == ["bao"] and params["target"] == ["2"] and params["unit"] == ["5"]
    assert params["laozhuang"] == ["on"] and params["self_drawn"] == ["on"] and "wild" not in params
    params = parse_qs(calculator_url(ZHUJI_EXAMPLES[1]).split("?", 1)[1])
    assert params["kong_replacement"] == ["on"] and "wild_1" not in params and "mode" not in params
    assert parse_qs(calculator_url(ZHUJI_EXAMPLES[3]).split("?", 1)[1])["discarder"] == ["E"]
