"""Home and rules pages, language switching, static files."""

from urllib.parse import parse_qs, urlsplit

from django.contrib.staticfiles import finders

RULES = "/rules/taizhou/"


def test_home_page_is_chinese_first(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html
    assert "台州麻将" in html
    assert 'href="/calculator/"' in html and f'href="{RULES}"' in html
    assert 'action="/i18n/setlang/"' in html


def test_rules_page_in_chinese(client):
    response = client.get(RULES)
    assert response.status_code == 200
    html = response.content.decode()
    assert "台州麻将规则" in html
    assert "财神" in html and "臘子" in html and "全包" in html
    assert "本站的裁定" in html
    for decision in ("第五张", "4 张财神牌面", "封顶前", "嵌档", "liable"):
        assert decision in html
    assert "Decisions this site made" not in html


def test_rules_page_in_english_by_parameter(client):
    html = client.get(RULES + "?lang=en").content.decode()
    assert "Decisions this site made" in html
    assert "fifth copy" in html
    assert "ties are broken by the larger uncapped figure" in html
    assert "本站的裁定" not in html


def test_rules_page_claim_order_and_third_dragon_liability_follow_the_spec(client):
    # README "Claims" (seed 000 捉冲 rule 6) and taizhou.md §9 liability 3
    zh = client.get(RULES).content.decode()
    assert "从庄家起按出牌顺序" in zh and "离出牌者最近的一家和" not in zh
    assert "暗杠扣着，打出的人看不见，不算" in zh
    en = client.get(RULES + "?lang=en").content.decode()
    assert "the first counting from the dealer in turn order" in en
    assert "the one nearest to the discarder in turn order wins" not in en
    assert "a concealed kong lies face down, the discarder could not see it, and it does not count" in en


def test_rules_page_follows_the_ui_language(client):
    html = client.get(RULES, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html
    assert "Decisions this site made" in html
    assert "Score calculator" in html  # translated header


def test_worked_example_links_open_the_calculator(client):
    html = client.get(RULES).content.decode()
    links = [part.split('"')[0].replace("&amp;", "&") for part in html.split('href="/calculator/?')[1:]]
    assert len(links) == 5
    example4 = parse_qs(links[3])
    assert example4["hand"] == ["12m456m789m66z"] and example4["melds"] == ["pung:222z"]
    assert example4["win"] == ["3m"] and example4["seat"] == ["S"] and example4["wild"] == ["5s"]
    assert "win" not in parse_qs(links[4])  # example 5 is a non-winner


def test_language_switch(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": RULES})
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == RULES
    html = client.get(RULES).content.decode()
    assert "Decisions this site made" in html
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    assert "本站的裁定" in client.get(RULES).content.decode()


def test_vendored_static_files():
    for name in ("vendor/htmx.min.js", "vendor/ws.js", "css/site.css"):
        assert finders.find(name), name
