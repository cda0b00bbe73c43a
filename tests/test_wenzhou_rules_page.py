"""The Wenzhou rules page (/rules/wenzhou/): both languages, every section, every published ruling."""

import re
from pathlib import Path

import pytest

RULES = "/rules/wenzhou/"
SPEC = Path("/work/shared/rules/wenzhou.md")  # outside the repository: absent on a clean clone (CI)
SECTIONS = ("open", "table", "wilds", "play", "win", "kinds", "pay", "limits", "contract", "decisions")
SITE_DECISIONS = [f"W-S{n}" for n in range(1, 11)]


def _zh(client):
    response = client.get(RULES + "?lang=zh")
    assert response.status_code == 200
    return response.content.decode()


def _en(client):
    response = client.get(RULES + "?lang=en")
    assert response.status_code == 200
    return response.content.decode()


def test_wenzhou_rules_page_in_chinese(client):
    html = _zh(client)
    assert "<title>温州麻将规则" in html
    assert "温州麻将规则（本站玩法 <code>wenzhou</code>）" in html
    assert "温州麻将牌桌已经开放" in html and "/lobby/" in html
    assert "本站的裁定" in html and "This site's rulings" not in html
    for section in SECTIONS:
        assert f'id="zh-{section}"' in html, section
    for word in ("财神马", "全球神", "买底", "顶底", "财神钱", "碰牌不可飘张", "软8对", "硬8对"):
        assert word in html, word


def test_wenzhou_rules_page_in_english(client):
    html = _en(client)
    assert "Wenzhou mahjong rules (variant <code>wenzhou</code>)" in html
    assert "Wenzhou tables are open" in html
    assert "This site&#x27;s rulings" in html or "This site's rulings" in html
    assert "本站的裁定" not in html
    for section in SECTIONS:
        assert f'id="en-{section}"' in html, section


def test_wenzhou_rules_page_follows_the_ui_language(client):
    html = client.get(RULES, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in html
    assert "<title>Wenzhou rules" in html
    assert 'id="en-decisions"' in html
    html = client.get(RULES).content.decode()
    assert 'id="zh-decisions"' in html


def test_every_spec_decision_is_published_in_both_languages(client):
    if not SPEC.exists():
        pytest.skip(f"{SPEC} is not here (clean clone)")
    ids = sorted(set(re.findall(r"\bW-D\d+\b", SPEC.read_text(encoding="utf-8"))))
    assert ids
    zh, en = _zh(client), _en(client)
    for decision in ids:
        assert f'id="zh-{decision}"' in zh, decision
        assert f'id="en-{decision}"' in en, decision


def test_engine_rulings_are_published_in_both_languages(client):
    zh, en = _zh(client), _en(client)
    for decision in SITE_DECISIONS:
        assert f'id="zh-{decision}"' in zh and f"<strong>{decision}</strong>" in zh, decision
        assert f'id="en-{decision}"' in en and f"<strong>{decision}</strong>" in en, decision


def test_taizhou_rules_page_links_to_wenzhou(client):
    assert 'href="/rules/wenzhou/?lang=zh"' in client.get("/rules/taizhou/?lang=zh").content.decode()
    assert 'href="/rules/wenzhou/?lang=en"' in client.get("/rules/taizhou/?lang=en").content.decode()


def test_wenzhou_rules_are_not_in_the_site_header(client):
    html = client.get("/").content.decode()
    header = html.split("</header>")[0]
    assert 'href="/rules/taizhou/"' in header
    assert "/rules/wenzhou/" not in header
