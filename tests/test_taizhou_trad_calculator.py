"""Traditional Taizhou (taizhou_trad) in the score calculator: its own fields (花, 抢杠, 杠上开花,
海底捞月; for settling players, discarder, 点炮, 弹, 连庄 and the table of the other seats' totals
and throws with the winner), the 和 and 番 items, the rounded total and 劣子, and settle_hands'
payments in 子 with their why — shared/rules/taizhou-traditional.md §10's examples through the page;
errors worded for players; a bad or foreign field changes nothing; the link that opens the same hand
under official Taizhou and back."""

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
    return [(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", name)).strip().replace("&#x27;", "'"),
             re.sub(r"\s+", " ", value).strip()) for name, value in rows]


def transfers(html):
    table = html.split('<table class="items transfers">')[1].split("</table>")[0]
    rows = re.findall(r'<tr data-why="([\w-]+)"><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td class="num">(\d+)</td>',
                      table)
    return [(why, frm, to, word, int(amount)) for why, frm, to, word, amount in rows]


ZH_SEATS = {"E": "东", "S": "南", "W": "西", "N": "北"}
EN_SEATS = {"E": "East", "S": "South", "W": "West", "N": "North"}


def net(html, lang="zh"):
    line = text(html, "net")
    words = ZH_SEATS if lang == "zh" else EN_SEATS
    return {seat: int(m.group(1)) for seat, word in words.items() if (m := re.search(rf"{word} ([+-]?\d+)", line))}


def alert(html):
    match = re.search(r'role="alert">(.*?)</div>', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).replace("&#x27;", "'")


def result_part(html):
    return html.split('id="result"')[1]


# taizhou-traditional.md §10 score_hands examples, as the calculator's fields
SCORE_1 = {"variant": "taizhou_trad", "seat": "S", "wild": "8p", "hand": "111m234s57p8p678m7z", "melds": "",
           "win": "7z", "self_drawn": "on", "flowers": "1", "lang": "zh"}
SCORE_2 = {"variant": "taizhou_trad", "seat": "E", "wild": "3m", "hand": "999s66z3m147p2m", "melds": "pung:111z",
           "lang": "zh"}
# hands worth the winner's total of §10's settle_hands examples, with their settlement fields
SETTLE_1 = {"variant": "taizhou_trad", "seat": "N", "wild": "9p", "hand": "111m456m789s34p66z", "win": "2p",
            "flowers": "1", "discarder": "S", "dan": "2", "total_E": "20", "total_S": "0", "total_W": "10",
            "throw_W": "5", "lang": "zh"}
SETTLE_2 = {"variant": "taizhou_trad", "seat": "E", "wild": "9p", "hand": "456m34p22m", "melds": "pung:111z, pung:777z",
            "win": "5p", "discarder": "W", "dianpao": "on", "total_S": "30", "total_W": "50", "lang": "zh"}
SETTLE_3 = {"variant": "taizhou_trad", "seat": "S", "wild": "9p", "hand": "111m999m111s99p66z", "win": "6z",
            "self_drawn": "on", "players": "3", "dan": "10", "streak": "2", "total_W": "40", "lang": "zh"}


# --- the form --------------------------------------------------------------------------------

def test_the_calculator_offers_taizhou_trad_and_its_fields(client):
    html = page(client, {}).split('id="result"')[0]
    assert '<option value="taizhou_trad">传统台州麻将</option>' in html
    for name in ("flowers", "robbed_kong", "kong_replacement", "last_tile", "players", "discarder", "dianpao", "dan",
                 "streak", "total_E", "total_S", "total_W", "total_N", "throw_E", "throw_S", "throw_W", "throw_N"):
        assert f'name="{name}"' in html, name
    boxes = re.findall(r'data-variant-field="([^"]+)"', html)
    trad = [b for b in boxes if "taizhou_trad" in b.split()]
    assert len(trad) == 10  # 9 fields and the table of the other seats
    assert "wenzhou zhuji taizhou_trad" in boxes and boxes.count("zhuji taizhou_trad") == 3
    grid = html.split('class="seat-grid"')[1].split("</table>")[0]
    assert grid.count('name="total_') == 4 and grid.count('name="throw_') == 4 and 'max="400"' in grid
    assert 'aria-label="东家的总分"' in grid
    assert 'href="/rules/taizhou-traditional/"' in html
    en = page(client, {}, ui="en")
    assert "Traditional Taizhou Mahjong" in en and "Flowers" in en and "Other seats (for the payments)" in en


def test_a_link_may_choose_the_variant(client):
    html = page(client, {"variant": "taizhou_trad"})
    assert '<option value="taizhou_trad" selected>' in html and 'id="result"' in html and "hidden" in \
        html.split('id="result"')[1].split(">")[0]


# --- §10 score_hands examples ------------------------------------------------------------------

def test_score_example_1(client):
    zh = page(client, SCORE_1)
    assert (text(zh, "points"), text(zh, "tai"), text(zh, "total")) == ("19", "1", "40")
    assert "劣子" not in result_part(zh).split("<details>")[0]
    assert items(zh) == [("翻白板", "4 和"), ("暗刻 一万", "8 和"), ("对子 中", "2 和"), ("单吊 中", "2 和"),
                         ("自摸", "2 和"), ("和牌奖励", "1 和"), ("翻白板", "1 番")]
    assert text(zh, "formula") == "19 × 21 = 38，进十 40"
    view = zh.split('class="hand-view"')[1].split("</div>")[0]
    assert "花" in view and view.count('title="5z"') == 1  # the flower shown as a white
    # self-drawn by South, nothing else given: each pays ⌈40/10/e⌉ (the dealer 4, the others 2)
    assert transfers(zh) == [("win", "东", "南", "和", 4), ("win", "西", "南", "和", 2), ("win", "北", "南", "和", 2)]
    assert net(zh) == {"E": -4, "S": 8, "W": -2, "N": -2}
    en = page(client, {**SCORE_1, "lang": "en"}, ui="en")
    assert (text(en, "points"), text(en, "tai"), text(en, "total")) == ("19", "1", "40")
    assert items(en) == [("flower", "4 pts"), ("concealed pung 1m", "8 pts"), ("pair 7z", "2 pts"),
                         ("single wait 7z", "2 pts"), ("self-drawn", "2 pts"), ("winner's reward", "1 pts"),
                         ("flower", "1 fan")]
    assert net(en, "en") == {"E": -4, "S": 8, "W": -2, "N": -2}


def test_score_example_2_a_non_winner(client):
    html = page(client, SCORE_2)
    assert (text(html, "points"), text(html, "tai"), text(html, "total")) == ("14", "1", "30")
    assert items(html) == [("刻子 东", "4 和"), ("暗刻 九条", "8 和"), ("对子 发", "2 和"), ("门风刻 东", "1 番")]
    assert "未和牌" in html and "transfers" not in result_part(html)
    assert 'data-testid="no-settlement"' not in html


def test_a_red_flower_when_the_wild_is_white(client):
    html = page(client, {**SCORE_1, "wild": "5z", "hand": "111m234s567p678m7z".replace("7z", "6z"), "win": "6z"})
    view = html.split('class="hand-view"')[1].split("</div>")[0]
    assert view.count('title="7z"') == 1 and text(html, "points") == "19"


def test_liezi_is_capped_at_400(client):
    html = page(client, SETTLE_3)
    assert (text(html, "points"), text(html, "tai"), text(html, "total")) == ("39", "4", "400")
    assert text(html, "formula") == "39 × 24 = 624，进十 630 → 400 劣子"
    assert '<span class="badge capped" title="进十后达到 400，按 400 计">劣子</span>' in html
    assert "臘子" not in result_part(html)


# --- §10 settle_hands examples ----------------------------------------------------------------

def test_settle_example_1_dan_throw_and_non_winners(client):
    html = page(client, SETTLE_1)
    assert text(html, "total") == "60"
    assert transfers(html) == [
        ("win", "东", "北", "和", 6), ("dan", "东", "北", "弹", 2), ("win", "南", "北", "和", 3),
        ("dan", "南", "北", "弹", 2), ("win", "西", "北", "和", 3), ("dan", "西", "北", "弹", 2),
        ("throw", "西", "北", "扔弹", 5), ("non-winners", "南", "东", "闲家之间", 2),
        ("non-winners", "西", "东", "闲家之间", 1), ("non-winners", "南", "西", "闲家之间", 1)]
    assert net(html) == {"N": 23, "E": -5, "S": -8, "W": -10}
    en = page(client, {**SETTLE_1, "lang": "en"}, ui="en")
    assert net(en, "en") == {"N": 23, "E": -5, "S": -8, "W": -10}
    assert {t[3] for t in transfers(en)} == {"Win", "弹", "扔弹 (throw)", "between non-winners"}


def test_settle_example_2_dianpao(client):
    html = page(client, SETTLE_2)
    assert text(html, "total") == "80" and 'data-testid="dianpao"' in html
    assert net(html) == {"E": 24, "S": 4, "W": -28, "N": 0}
    assert {t[1] for t in transfers(html)} == {"西"}  # the 点炮 player pays everything
    # without 点炮 the same hand is paid by everyone
    plain = page(client, {**SETTLE_2, "dianpao": ""})
    assert net(plain) == {"E": 24, "S": -7, "W": -4, "N": -13}  # 8 each; N pays S 2 and W 3, S pays W 1
    assert len({t[1] for t in transfers(plain)}) > 1 and 'data-testid="dianpao"' not in plain


def test_settle_example_3_three_players_liezi_streak(client):
    html = page(client, SETTLE_3)
    assert net(html) == {"S": 160, "E": -84, "W": -76}
    assert ("dan", "东", "南", "弹", 40) in transfers(html) and ("win", "西", "南", "和", 40) in transfers(html)


def test_a_win_on_a_discard_needs_its_discarder_to_settle(client):
    html = page(client, {**SETTLE_1, "discarder": ""})
    assert text(html, "total") == "60" and 'data-testid="no-settlement"' in html
    assert "transfers" not in result_part(html)


def test_the_fields_reach_the_contracts(client, monkeypatch):
    calls, settles = [], []
    real, real_settle = contract.score_request, contract.settle_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    monkeypatch.setattr(contract, "settle_request", lambda req: settles.append(req) or real_settle(req))
    page(client, {**SETTLE_1, "throw_N": "7", "total_N": "999"})  # the winner's own row is not read
    assert calls[-1] == {"variant": "taizhou_trad", "seat": "N", "wild": "9p", "hand": "111m456m789s34p66z",
                         "melds": [], "lang": "zh", "win": "2p", "self_drawn": False, "flowers": 1}
    assert settles[-1] == {"variant": "taizhou_trad", "dealer": "E", "winner": "N", "discarder": "S",
                           "totals": {"E": 20, "S": 0, "W": 10, "N": 60},
                           "capped": {"E": False, "S": False, "W": False, "N": False}, "dan": 2, "streak": 1,
                           "throws": [{"by": "W", "at": "N", "amount": 5}], "dianpao": None}
    page(client, {**SETTLE_3, "total_N": "30", "throw_N": "5"})  # North is not seated with three
    assert settles[-1]["totals"] == {"E": 0, "S": 400, "W": 40} and settles[-1]["capped"]["S"] is True
    assert settles[-1]["throws"] == [] and settles[-1]["discarder"] is None
    page(client, {**SCORE_1, "wild": "1s", "hand": "111m234s567p678m1s", "win": "1s", "self_drawn": "on",
                  "kong_replacement": "", "last_tile": "on"})
    assert calls[-1]["last_tile"] is True and "robbed_kong" not in calls[-1]
    page(client, {**SETTLE_1, "robbed_kong": "on"})
    assert calls[-1]["robbed_kong"] is True and settles[-1]["discarder"] == "S"


# --- errors: clear messages, and the engine is not asked --------------------------------------

@pytest.mark.parametrize("fields, zh, en", [
    ({"wild": ""}, "传统台州麻将一定有得", "Traditional Taizhou always has a wild"),
    ({"hand": "111m234s57p8p678m5z", "win": "7z"}, "白板是这手牌的花", "White is this hand's flower"),
    ({"melds": "pung:555z", "hand": "111m234s8p678m7z"}, "白板是这手牌的花", "White is this hand's flower"),
    ({"wild": "5z", "hand": "111m234s567p678m6z", "win": "7z"}, "红中是这手牌的花", "Red is this hand's flower"),
    ({"win": "8p", "self_drawn": ""}, "别人打出的财神不能和", "A discarded wild cannot be won on"),
    ({"kong_replacement": "on", "self_drawn": ""}, "杠开是自摸", "杠开 is self-drawn"),
    ({"kong_replacement": "on"}, "杠开时副露里要有一个杠", "杠开 needs a kong among the melds"),
    ({"last_tile": "on", "self_drawn": ""}, "海底捞月是自摸最后一张牌", "海底捞月 is self-drawing the last tile"),
    ({"robbed_kong": "on"}, "抢杠胡是和别人加杠的那张牌，不能同时自摸", "it cannot be self-drawn"),
    ({"last_tile": "on", "win": "", "self_drawn": ""}, "请填写和的牌", "Give the winning tile"),
    ({"dianpao": "on"}, "自摸时没有点炮", "A self-drawn win has no 点炮"),
    ({"dianpao": "on", "self_drawn": ""}, "点炮时请选择放冲的一家", "choose the discarder"),
    ({"dianpao": "on", "self_drawn": "", "discarder": "E", "robbed_kong": "on"}, "抢杠胡不算点炮",
     "Robbing a kong is never 点炮"),
    ({"discarder": "S", "self_drawn": ""}, "放冲的一家不能是和牌的一家", "The discarder cannot be the winner"),
    ({"seat": "N", "players": "3"}, "这个门风不在座", "That seat is not at the table"),
    ({"total_E": "410"}, "总分最多 400", "at most 400"),
    ({"total_W": "-10"}, "不能是负数", "cannot be negative"),
    ({"throw_N": "x"}, "请填写整数", "whole number"),
    ({"dan": "-2"}, "不能是负数", "cannot be negative"),
    ({"streak": "0"}, "至少是 1", "at least 1"),
    ({"flowers": "5"}, "5", "5"),
])
def test_bad_input_is_a_clear_message_and_asks_nothing(client, monkeypatch, fields, zh, en):
    monkeypatch.setattr(contract, "score_request", lambda req: pytest.fail("the engine must not be asked"))
    monkeypatch.setattr(contract, "settle_request", lambda req: pytest.fail("the engine must not be asked"))
    html = page(client, {**SCORE_1, **fields})
    assert "输入有误" in alert(html) and zh in alert(html)
    assert 'data-testid="total"' not in html
    html = page(client, {**SCORE_1, **fields, "lang": "en"}, ui="en")
    assert en in alert(html)


@pytest.mark.parametrize("fields, error", [
    ({"hand": "111m234s57p8p678m"}, "hand has 12 tiles"),
    ({"hand": "111m234s57p8p679m7z"}, "do not make four sets and a pair"),
])
def test_engine_refusals_are_shown(client, fields, error):
    html = page(client, {**SCORE_1, **fields})
    assert "不能计分" in alert(html) and error in alert(html).lower()
    assert "transfers" not in result_part(html)


def test_a_bad_seat_row_that_is_not_read_changes_nothing(client):
    plain = page(client, SETTLE_1)
    for fields in ({"total_N": "999"}, {"throw_N": "abc"}, {"total_N": "-5"}):  # North is the winner
        html = page(client, {**SETTLE_1, **fields})
        assert 'role="alert"' not in html and net(html) == net(plain)
    # a non-winner's hand reads no row at all
    assert 'role="alert"' not in page(client, {**SCORE_2, "total_E": "999", "dianpao": ""})


def test_trad_fields_change_nothing_for_other_variants(client, monkeypatch):
    calls, settles = [], []
    real = contract.score_request
    monkeypatch.setattr(contract, "score_request", lambda req: calls.append(req) or real(req))
    monkeypatch.setattr(contract, "settle_request", lambda req: settles.append(req))
    taizhou = {"variant": "taizhou", "seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": "pung:222z",
               "win": "3m", "lang": "zh"}
    trad_fields = {"flowers": "9", "last_tile": "on", "dianpao": "on", "dan": "-1", "streak": "0", "total_E": "999",
                   "throw_W": "x"}
    for base in (taizhou, {**taizhou, "variant": "wenzhou", "hand": "12m456m789m66z123p", "wild": "9s"}):
        plain = page(client, base)
        extra = page(client, {**base, **trad_fields})
        assert calls[-2] == calls[-1] and not set(trad_fields) & set(calls[-1])
        assert text(plain, "total") == text(extra, "total") is not None
        assert 'role="alert"' not in extra and "transfers" not in result_part(extra)
    assert settles == []


# --- official and traditional Taizhou for the same hand ---------------------------------------

def _other_link(html):
    match = re.search(r'href="([^"]+)" data-testid="other-taizhou">(.*?)</a>', html)
    return match.group(1).replace("&amp;", "&"), match.group(2)


def test_the_same_hand_under_official_taizhou_and_back(client):
    trad = page(client, SETTLE_1)
    url, label = _other_link(trad)
    assert label == "换成台州麻将算这手牌"
    params = parse_qs(url.split("?", 1)[1])
    assert params["variant"] == ["taizhou"]
    for name, value in SETTLE_1.items():  # every field carried, only the variant changed
        if name != "variant":
            assert params[name] == [value], name
    official = client.get(url).content.decode()
    assert '<option value="taizhou" selected>' in official and 'role="alert"' not in official
    assert text(official, "total") is not None and "transfers" not in result_part(official)
    back, label = _other_link(official)
    assert label == "换成传统台州麻将算这手牌"
    again = client.get(back).content.decode()
    assert text(again, "total") == "60" and net(again) == net(trad)  # the trad fields came back
    en = page(client, {**SETTLE_1, "lang": "en"}, ui="en")
    assert _other_link(en)[1] == "Score this hand as Taizhou Mahjong"


def test_the_link_is_there_on_errors_and_only_for_taizhou(client):
    html = page(client, {**SCORE_1, "wild": ""})
    assert "输入有误" in alert(html) and parse_qs(_other_link(html)[0].split("?", 1)[1])["variant"] == ["taizhou"]
    for variant in ("wenzhou", "zhuji"):
        assert 'data-testid="other-taizhou"' not in page(client, {**SCORE_1, "variant": variant})


def test_htmx_gets_the_result_with_its_settlement_and_link(client):
    html = page(client, SETTLE_1, HTTP_HX_REQUEST="true")
    assert html.lstrip().startswith('<section id="result"')
    assert net(html) == {"N": 23, "E": -5, "S": -8, "W": -10} and 'data-testid="other-taizhou"' in html


def test_calculator_url_carries_trad_fields():
    from games.views import TAIZHOU_TRAD_EXAMPLES, calculator_url

    params = parse_qs(calculator_url(TAIZHOU_TRAD_EXAMPLES[2], "en").split("?", 1)[1])
    assert params["variant"] == ["taizhou_trad"] and params["flowers"] == ["1"] and params["dan"] == ["2"]
    assert params["discarder"] == ["S"] and params["total_E"] == ["20"] and params["throw_W"] == ["5"]
    params = parse_qs(calculator_url(TAIZHOU_TRAD_EXAMPLES[3]).split("?", 1)[1])
    assert params["dianpao"] == ["on"] and params["total_W"] == ["50"]
    params = parse_qs(calculator_url(TAIZHOU_TRAD_EXAMPLES[4]).split("?", 1)[1])
    assert params["players"] == ["3"] and params["streak"] == ["2"] and params["self_drawn"] == ["on"]
