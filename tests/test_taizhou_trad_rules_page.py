"""The traditional Taizhou rules page (/rules/taizhou-traditional/): both languages, every section,
every published ruling (the spec's T-D…, the engine's T-S… and the table's T-S15..T-S20), the
opening note (tables open: the lobby, with the calculator), and §10's examples opening in the calculator with the spec's
results."""

import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from games.engine.variants import taizhou_trad

RULES = "/rules/taizhou-traditional/"
SPEC = Path("/work/shared/rules/taizhou-traditional.md")  # outside the repository: absent on a clean clone (CI)
SECTIONS = ("open", "table", "flowers", "stakes", "play", "shengpai", "dianpao", "huangpai", "points", "fan",
            "totals", "pay", "limits", "contract", "spec-decisions", "decisions")
SITE_DECISIONS = [f"T-S{n}" for n in range(1, 21)]


def _page(client, lang, ui="zh-hans"):
    response = client.get(f"{RULES}?lang={lang}", HTTP_ACCEPT_LANGUAGE=ui)
    assert response.status_code == 200
    return response.content.decode()


def _section(html, section_id):
    """The text of one section: from its heading to the next h2."""
    part = html.split(f'id="{section_id}"', 1)[1]
    return re.sub(r"<[^>]+>", "", part.split("<h2", 1)[0])


def test_rules_page_in_chinese(client):
    html = _page(client, "zh")
    assert "<title>传统台州麻将规则" in html
    assert "传统台州麻将规则（本站玩法 <code>taizhou_trad</code>）" in html
    opening = _section(html, "zh-open")
    assert "传统台州麻将牌桌已经开放。" in opening and "即将" not in opening
    note = html.split('id="zh-open"')[1].split("</p>")[0]
    assert 'href="/calculator/?variant=taizhou_trad"' in note and 'href="/lobby/"' in note  # tables are open
    assert "本站的裁定" in html and "规则说明中的裁定" in html and "This site's rulings" not in html
    for section in SECTIONS:
        assert f'id="zh-{section}"' in html, section
    for word in ("翻白板", "翻红中", "从牌墙末端补", "东、南、西、北", "弹", "扔弹", "连庄", "30 张", "16 张", "生牌",
                 "点炮", "手里全是生牌", "没有听牌", "黄牌", "进十", "132 → 140", "劣子", "400",
                 "⌈总分 / 10 / e⌉", "每局、每天的上限", "子 × 房间底注"):
        assert word in html, word


def test_rules_page_in_english(client):
    html = _page(client, "en")
    assert "Traditional Taizhou mahjong rules (variant <code>taizhou_trad</code>)" in html
    assert "Traditional Taizhou tables are open." in html and "coming soon" not in html
    assert "This site&#x27;s rulings" in html or "This site's rulings" in html
    assert "Decisions of the rules text" in html
    assert "本站的裁定" not in html and "规则说明中的裁定" not in html
    for section in SECTIONS:
        assert f'id="en-{section}"' in html, section
    for words in ("flowers", "end of the wall", "30 tiles", "16 tiles", "round up to ten", "劣子", "per-hand and daily limits",
                  "⌈total / 10 / e⌉", "点炮 penalty"):
        assert words.lower() in html.lower(), words


def test_every_points_and_fan_item(client):
    zh, en = _section(_page(client, "zh"), "zh-points"), _section(_page(client, "en"), "en-points")
    for word in ("暗刻", "明杠", "暗杠", "单吊", "自摸", "嵌档", "靠柄", "和牌奖励", "每亮出一张花：4 和"):
        assert word in zh, word
    for word in ("Concealed pung", "Shown kong", "single wait", "closed wait", "edge wait", "winner's reward",
                 "Each flower shown: 4"):
        assert word.replace("'", "&#x27;") in en or word in en, word
    zh_fan, en_fan = _section(_page(client, "zh"), "zh-fan"), _section(_page(client, "en"), "en-fan")
    for word in ("清一色", "混一色", "对对和", "旁和", "海底捞月", "无得", "两张得", "三张得", "得还原", "杠上开花",
                 "抢杠和", "自摸得", "大吊车", "四风会齐"):
        assert word in zh_fan, word
        if word not in ("两张得", "三张得"):
            assert word in en_fan, word
    assert re.search(r"四风会齐[^<]*</td><td class=\"num\">13", _page(client, "zh"))
    assert "还原 3 + 无得 1 = 4 番" in zh_fan and "restored 3 + 无得 1 = 4 番" in en_fan
    for name in taizhou_trad.ITEM_NAMES:  # every engine item is worded on the page
        zh_word = taizhou_trad.ITEM_NAMES[name][1].replace(" {t}", "").replace("{t}", "白板")
        assert zh_word in zh + zh_fan or zh_word in ("对子", "刻子", "门风刻", "字牌刻", "和牌奖励", "翻白板"), zh_word


def test_payments_give_the_spec_formulas(client):
    zh, en = _section(_page(client, "zh"), "zh-totals"), _section(_page(client, "en"), "en-totals")
    for text in (zh, en):
        assert "2番" in text  # × 2<sup>番</sup>, tags stripped
        assert "⌈30 / 10 / 2⌉ = 2" in text and "⌈6.5⌉ = 7" in text and "40" in text
    assert "点炮的罚付" in zh and "总分按 0 算" in zh and "弹 × 连庄" in zh
    assert "counts as 0" in en and "弹 × streak" in en


def test_rules_page_follows_the_ui_language(client):
    html = client.get(RULES, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html and "<title>Traditional Taizhou rules" in html
    assert 'id="en-decisions"' in html
    assert 'id="zh-decisions"' in client.get(RULES).content.decode()


def test_every_spec_decision_is_published_in_both_languages(client):
    if not SPEC.exists():
        pytest.skip(f"{SPEC} is not here (clean clone)")
    ids = sorted(set(re.findall(r"\bT-D\d+\b", SPEC.read_text(encoding="utf-8"))), key=lambda d: int(d[3:]))
    assert len(ids) == 11
    zh, en = _page(client, "zh"), _page(client, "en")
    for decision in ids:
        assert f'id="zh-{decision}"' in zh and f"<strong>{decision}</strong>" in zh, decision
        assert f'id="en-{decision}"' in en and f"<strong>{decision}</strong>" in en, decision
        assert zh.index(f'id="zh-{decision}"') < zh.index('id="zh-decisions"')
        assert en.index(f'id="en-{decision}"') < en.index('id="en-decisions"')


def test_site_rulings_are_published_in_both_languages(client):
    zh, en = _page(client, "zh"), _page(client, "en")
    for decision in SITE_DECISIONS:
        assert f'id="zh-{decision}"' in zh and f"<strong>{decision}</strong>" in zh, decision
        assert f'id="en-{decision}"' in en and f"<strong>{decision}</strong>" in en, decision
        assert zh.index(f'id="zh-{decision}"') > zh.index('id="zh-decisions"')
        assert en.index(f'id="en-{decision}"') > en.index('id="en-decisions"')


def test_every_engine_ruling_is_published(client):
    """Every T-S… the engine's docstring names is on the page (a new one must be worded there)."""
    engine = sorted(set(re.findall(r"\bT-S\d+\b", taizhou_trad.__doc__)), key=lambda d: int(d[3:]))
    assert engine == [f"T-S{n}" for n in range(1, 15)]
    zh, en = _page(client, "zh"), _page(client, "en")
    for decision in engine:
        assert f'id="zh-{decision}"' in zh and f'id="en-{decision}"' in en, decision


def test_table_rulings_say_what_the_table_does(client):
    zh, en = _page(client, "zh"), _page(client, "en")
    s15 = zh.split('id="zh-T-S15"')[1].split("</li>")[0]
    for words in ("每一局开始前", "对其他每一家", "0、2、5、10、20、50、100", "出牌时间", "托管", "就是 0", "看不到别人的答案"):
        assert words in s15, words
    s16 = zh.split('id="zh-T-S16"')[1].split("</li>")[0]
    assert "子换成金豆" in s16 and "10 金豆" in s16 and "每局、每日上限" in s16
    s15_en = en.split('id="en-T-S15"')[1].split("</li>")[0]
    for words in ("before each hand", "each other player", "turn time", "托管", "hidden until everyone has answered"):
        assert words in s15_en, words
    assert "10 beans per 子" in en.split('id="en-T-S16"')[1].split("</li>")[0]


def test_rules_pages_list_each_other(client):
    for page in ("/rules/taizhou/", "/rules/wenzhou/", "/rules/zhuji/"):
        for lang in ("zh", "en"):
            html = client.get(f"{page}?lang={lang}").content.decode()
            assert f'href="{RULES}?lang={lang}"' in html, (page, lang)
    for lang in ("zh", "en"):
        html = _page(client, lang)
        for other in ("taizhou", "wenzhou", "zhuji"):
            assert f'href="/rules/{other}/?lang={lang}"' in html, other
    calculator = client.get("/calculator/").content.decode().split('id="result"')[0]
    assert f'href="{RULES}"' in calculator


def test_rules_url_and_label_of_the_variant(client):
    from django.utils import translation

    from games.variant_names import rules_url, variant_label

    assert rules_url("taizhou_trad") == RULES
    with translation.override("en"):
        assert variant_label("taizhou_trad") == "Traditional Taizhou Mahjong"
    with translation.override("zh-hans"):
        assert variant_label("taizhou_trad") == "传统台州麻将"


def test_the_rules_are_not_in_the_site_header(client):
    assert RULES not in client.get("/").content.decode().split("</header>")[0]


# --- §10's examples open in the calculator with the spec's results ---------------------------

def _text(html, testid):
    match = re.search(rf'data-testid="{testid}">(.*?)</(?:span></div>|p>)', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).strip()


# (fields in the link, points, 番, total, the net of the settlement or None)
EXPECTED = [
    ({"seat": "S", "wild": "8p", "win": "7z", "self_drawn": "on", "flowers": "1"}, "19", "1", "40",
     {"E": -4, "S": 8, "W": -2, "N": -2}),
    ({"seat": "E", "wild": "3m", "melds": "pung:111z"}, "14", "1", "30", None),
    ({"seat": "N", "win": "2p", "discarder": "S", "dan": "2", "total_E": "20", "total_W": "10", "throw_W": "5"},
     "15", "2", "60", {"N": 23, "E": -5, "S": -8, "W": -10}),
    ({"seat": "E", "win": "5p", "discarder": "W", "dianpao": "on", "total_S": "30", "total_W": "50"}, "9", "3", "80",
     {"E": 24, "S": 4, "W": -28, "N": 0}),
    ({"seat": "S", "win": "6z", "self_drawn": "on", "players": "3", "dan": "10", "streak": "2", "total_W": "40"},
     "39", "4", "400", {"S": 160, "E": -84, "W": -76}),
]


def _net(html, lang):
    text = _text(html, "net")
    words = {"E": "东", "S": "南", "W": "西", "N": "北"} if lang == "zh" else \
        {"E": "East", "S": "South", "W": "West", "N": "North"}
    return {seat: int(m.group(1)) for seat, word in words.items() if (m := re.search(rf"{word} ([+-]?\d+)", text))}


@pytest.mark.parametrize("lang, ui", [("zh", "zh-hans"), ("en", "en")])
def test_rules_page_links_open_the_spec_examples(client, lang, ui):
    html = _page(client, lang, ui)
    links = [part.split('"')[0].replace("&amp;", "&") for part in html.split('href="/calculator/?')[1:]]
    assert links[0] == "variant=taizhou_trad"  # the opening note
    links = links[1:]
    assert len(links) == 5
    for link, (fields, points, tai, total, net) in zip(links, EXPECTED):
        params = parse_qs(link)
        assert params["variant"] == ["taizhou_trad"] and params["lang"] == [lang]
        for name, value in fields.items():
            assert params[name] == [value], (name, link)
        result = client.get("/calculator/?" + link, HTTP_ACCEPT_LANGUAGE=ui).content.decode()
        assert 'role="alert"' not in result, link
        assert (_text(result, "points"), _text(result, "tai"), _text(result, "total")) == (points, tai, total), link
        if net is None:
            assert "transfers" not in result.split('id="result"')[1]
        else:
            assert _net(result, lang) == net, link
    assert 'href="/calculator/"' in html.split(f'id="{lang}-contract"')[1]
