"""The Zhuji rules page (/rules/zhuji/): both languages, every section, every published ruling (the
spec's Z-D…, the engine's Z-S… and the table's), and §8's examples opening in the calculator with the
spec's results."""

import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from games.engine.variants import zhuji

RULES = "/rules/zhuji/"
SPEC = Path("/work/shared/rules/zhuji.md")  # outside the repository: absent on a clean clone (CI)
SECTIONS = ("open", "table", "wilds", "play", "win", "du", "pay", "laozhuang", "escape", "limits", "contract",
            "spec-decisions", "decisions")
SITE_DECISIONS = [f"Z-S{n}" for n in range(1, 15)]


def _page(client, lang, ui="zh-hans"):
    response = client.get(f"{RULES}?lang={lang}", HTTP_ACCEPT_LANGUAGE=ui)
    assert response.status_code == 200
    return response.content.decode()


def _zh(client):
    return _page(client, "zh")


def _en(client):
    return _page(client, "en")


def _section(html, section_id):
    """The text of one section: from its heading to the next h2."""
    part = html.split(f'id="{section_id}"', 1)[1]
    return re.sub(r"<[^>]+>", "", part.split("<h2", 1)[0])


def test_zhuji_rules_page_in_chinese(client):
    html = _zh(client)
    assert "<title>诸暨麻将规则" in html
    assert "诸暨麻将规则（本站玩法 <code>zhuji</code>）" in html
    assert "诸暨麻将牌桌已经开放" in html and 'href="/lobby/"' in html
    assert "本站的裁定" in html and "规则说明中的裁定" in html and "This site's rulings" not in html
    for section in SECTIONS:
        assert f'id="zh-{section}"' in html, section
    for word in ("无财", "一个财神", "两个财神", "抢杠", "杠开", "老庄", "逃跑", "包输", "26 张", "独", "上不封顶",
                 "30 × 底分", "每局、每天的上限"):
        assert word in html, word


def test_zhuji_rules_page_in_english(client):
    html = _en(client)
    assert "Zhuji mahjong rules (variant <code>zhuji</code>)" in html
    assert "Zhuji tables are open" in html and 'href="/lobby/"' in html
    assert "This site&#x27;s rulings" in html or "This site's rulings" in html
    assert "Decisions of the rules text" in html
    assert "本站的裁定" not in html and "规则说明中的裁定" not in html
    for section in SECTIONS:
        assert f'id="en-{section}"' in html, section
    for words in ("no cap", "26 tiles", "bean ledger", "per-hand and daily limits", "30 × 底分"):
        assert words.lower() in html.lower(), words


def test_every_tai_item_is_in_the_table_in_both_languages(client):
    zh, en = _section(_zh(client), "zh-win"), _section(_en(client), "en-win")
    for name in zhuji.ITEM_EN:
        assert name in zh and name in en, name
    for words in ("all chows", "all pungs", "mixed shape", "half flush", "full flush", "all honours"):
        assert words in en, words  # the glosses of Z-S7
    assert "屁胡 3，平胡 4，碰碰胡 4" in zh and "屁胡 3, 平胡 4, 碰碰胡 4" in en


def test_payments_give_the_spec_formulas(client):
    zh, en = _section(_zh(client), "zh-pay"), _section(_en(client), "en-pay")
    for text in (zh, en):
        assert "(n − 1) × c + 2w" in text and "c + 2w" in text
        assert "5 × 2" in text and "23" in text
    assert "闲家自摸" in zh and "包输" in zh
    assert "the contract fails" in en


def test_zhuji_rules_page_follows_the_ui_language(client):
    html = client.get(RULES, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html
    assert "<title>Zhuji rules" in html
    assert 'id="en-decisions"' in html
    assert 'id="zh-decisions"' in client.get(RULES).content.decode()


def test_every_spec_decision_is_published_in_both_languages(client):
    if not SPEC.exists():
        pytest.skip(f"{SPEC} is not here (clean clone)")
    ids = sorted(set(re.findall(r"\bZ-D\d+\b", SPEC.read_text(encoding="utf-8"))))
    assert len(ids) == 13
    zh, en = _zh(client), _en(client)
    for decision in ids:
        assert f'id="zh-{decision}"' in zh and f"<strong>{decision}</strong>" in zh, decision
        assert f'id="en-{decision}"' in en and f"<strong>{decision}</strong>" in en, decision
        # under "规则说明中的裁定", before the site's own rulings
        assert zh.index(f'id="zh-{decision}"') < zh.index('id="zh-decisions"')


def test_site_rulings_are_published_in_both_languages(client):
    zh, en = _zh(client), _en(client)
    for decision in SITE_DECISIONS:
        assert f'id="zh-{decision}"' in zh and f"<strong>{decision}</strong>" in zh, decision
        assert f'id="en-{decision}"' in en and f"<strong>{decision}</strong>" in en, decision
        assert zh.index(f'id="zh-{decision}"') > zh.index('id="zh-decisions"')
        assert en.index(f'id="en-{decision}"') > en.index('id="en-decisions"')


def test_every_engine_ruling_is_published(client):
    """Every Z-S… the engine's docstring names is on the page (a new one must be worded there)."""
    engine = sorted(set(re.findall(r"\bZ-S\d+\b", zhuji.__doc__)), key=lambda d: int(d[3:]))
    assert engine[:11] == [f"Z-S{n}" for n in range(1, 12)]
    zh, en = _zh(client), _en(client)
    for decision in engine:
        assert f'id="zh-{decision}"' in zh and f'id="en-{decision}"' in en, decision


def test_table_rulings_say_what_the_table_does(client):
    zh, en = _zh(client), _en(client)
    s12 = zh.split('id="zh-Z-S12"')[1].split("</li>")[0]
    assert "2–6 台" in s12 and "出牌时间" in s12 and "2 台和房间设置的财神个数" in s12 and "托管" in s12
    s13 = zh.split('id="zh-Z-S13"')[1].split("</li>")[0]
    for words in ("逃跑（离开牌局）", "确认", "两局之间", "金豆账本", "每局、每日上限", "平分", "托管", "不能再收回",
                  "断线不是逃跑", "其他玩法没有这个按钮"):
        assert words in s13, words
    s14 = zh.split('id="zh-Z-S14"')[1].split("</li>")[0]
    assert "1、2、5、10" in s14 and "100 金豆" in s14
    s13_en = en.split('id="en-Z-S13"')[1].split("</li>")[0]
    for words in ("Leave the game (逃跑)", "confirmation", "between hands", "bean ledger", "cannot be taken back",
                  "losing the connection is not 逃跑"):
        assert words in s13_en, words


def test_other_rules_pages_link_to_zhuji(client):
    for page in ("/rules/taizhou/", "/rules/wenzhou/"):
        assert 'href="/rules/zhuji/?lang=zh"' in client.get(page + "?lang=zh").content.decode(), page
        assert 'href="/rules/zhuji/?lang=en"' in client.get(page + "?lang=en").content.decode(), page
    for lang in ("zh", "en"):
        html = _page(client, lang)
        assert f'href="/rules/taizhou/?lang={lang}"' in html and f'href="/rules/wenzhou/?lang={lang}"' in html
    calculator = client.get("/calculator/").content.decode().split('id="result"')[0]
    assert 'href="/rules/zhuji/"' in calculator


def test_rules_url_and_label_of_the_variant(client):
    from django.utils import translation

    from games.variant_names import rules_url, variant_label

    assert rules_url("zhuji") == RULES
    with translation.override("en"):
        assert variant_label("zhuji") == "Zhuji Mahjong"
    with translation.override("zh-hans"):
        assert variant_label("zhuji") == "诸暨麻将"


def test_zhuji_rules_are_not_in_the_site_header(client):
    header = client.get("/").content.decode().split("</header>")[0]
    assert "/rules/zhuji/" not in header


# --- §8's examples open in the calculator with the spec's results ---------------------------

def _text(html, testid):
    match = re.search(rf'data-testid="{testid}">(.*?)</(?:span></div>|p>)', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).strip()


def _alert(html):
    match = re.search(r'role="alert">(.*?)</div>', html, re.S)
    return match and re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1)))


# (variant fields in the link, 台, total, the net of the settlement or None)
EXPECTED = [
    ({"seat": "E", "wild_1": "9m", "win": "2p"}, "3", "4", None),
    ({"seat": "S", "win": "4s", "self_drawn": "on", "kong_replacement": "on"}, "4", "8",
     {"E": -16, "S": 48, "W": -16, "N": -16}),
    ({"seat": "N", "wild_1": "5p", "win": "9s"}, None, None, None),  # 0 台: not a win
    ({"seat": "W", "win": "5s", "discarder": "E"}, "3", "4", {"E": -8, "S": -4, "W": 16, "N": -4}),
    ({"seat": "S", "win": "5s", "mode": "bao", "target": "3", "discarder": "E"}, "1", "1",
     {"E": -32, "S": 34, "W": -1, "N": -1}),
    ({"seat": "E", "wild_1": "5m", "win": "9s", "self_drawn": "on", "mode": "bao", "target": "2"}, "4", "8",
     {"E": 108, "S": -36, "W": -36, "N": -36}),
    ({"seat": "W", "win": "5s", "self_drawn": "on", "mode": "bao", "target": "2"}, "3", "4",
     {"E": -23, "S": -8, "W": 39, "N": -8}),
]


def _net(html, lang):
    text = _text(html, "net")
    words = {"E": "东", "S": "南", "W": "西", "N": "北"} if lang == "zh" else \
        {"E": "East", "S": "South", "W": "West", "N": "North"}
    return {seat: int(re.search(rf"{word} ([+-]\d+)", text).group(1)) for seat, word in words.items()}


@pytest.mark.parametrize("lang, ui", [("zh", "zh-hans"), ("en", "en")])
def test_rules_page_links_open_the_spec_examples(client, lang, ui):
    html = _page(client, lang, ui)
    links = [part.split('"')[0].replace("&amp;", "&") for part in html.split('href="/calculator/?')[1:]]
    assert len(links) == 7
    # the page shows §5's example in the payments section (first), §8's in the contract section
    ordered = links[1:] + links[:1]
    for link, (fields, tai, total, net) in zip(ordered, EXPECTED):
        params = parse_qs(link)
        assert params["variant"] == ["zhuji"] and params["lang"] == [lang]
        for name, value in fields.items():
            assert params[name] == [value], (name, link)
        assert "wild_2" not in params and "wild" not in params  # Zhuji's faces, not the indicator
        result = client.get("/calculator/?" + link, HTTP_ACCEPT_LANGUAGE=ui).content.decode()
        if tai is None:
            assert "0 台" in _alert(result)
            continue
        assert _text(result, "tai") == tai and _text(result, "total") == total, link
        if net is None:
            assert 'data-testid="no-settlement"' in result
        else:
            assert _net(result, lang) == net, link
    assert 'href="/calculator/"' in html.split(f'id="{lang}-contract"')[1]
