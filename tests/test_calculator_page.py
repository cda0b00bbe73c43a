"""The score calculator page: form -> scoring contract -> breakdown (full page and htmx partial)."""

import re
from urllib.parse import urlencode

import pytest

from games.engine import contract

URL = "/calculator/"

# shared/rules/taizhou.md §10, example 4: total 64.
EXAMPLE_4 = {
    "variant": "taizhou",
    "seat": "S",
    "wild": "5s",
    "hand": "12m456m789m66z",
    "melds": "pung:222z",
    "win": "3m",
    "lang": "zh",
}

FAKE_CAPPED = {
    "ok": True,
    "winner": True,
    "points": 40,
    "tai": 3,
    "total": 100,
    "capped": True,
    "items": [{"name": "fake pung", "points": 30}, {"name": "fake flush", "tai": 3}],
}


def value(html, testid):
    match = re.search(rf'data-testid="{testid}">([^<]*)<', html)
    return match and match.group(1)


@pytest.fixture
def fake_engine(monkeypatch):
    """Replace score_request with a recorder returning FAKE_CAPPED."""
    calls = []

    def fake(request):
        calls.append(request)
        return dict(FAKE_CAPPED)

    monkeypatch.setattr(contract, "score_request", fake)
    return calls


def test_form_page(client):
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    for name in ("variant", "seat", "wild", "hand", "melds", "win", "self_drawn", "lang"):
        assert f'name="{name}"' in html
    assert 'hx-get="/calculator/"' in html
    assert 'hx-target="#result"' in html
    assert "vendor/htmx.min.js" in html
    assert 'name="viewport"' in html
    assert "算分器" in html


def test_worked_example_4_scores_64(client):
    response = client.get(URL + "?" + urlencode(EXAMPLE_4))
    assert response.status_code == 200
    html = response.content.decode()
    assert value(html, "total") == "64"
    assert value(html, "points") == "16"
    assert value(html, "tai") == "2"
    assert "<html" in html


def test_worked_example_4_by_post(client):
    response = client.post(URL, EXAMPLE_4)
    assert response.status_code == 200
    assert value(response.content.decode(), "total") == "64"


def test_htmx_request_gets_only_the_result_partial(client):
    response = client.get(URL + "?" + urlencode(EXAMPLE_4), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "<form" not in html
    assert 'id="result"' in html
    assert value(html, "total") == "64"
    assert "HX-Request" in response["Vary"]


def test_htmx_history_restore_gets_the_full_page(client):
    response = client.get(
        URL + "?" + urlencode(EXAMPLE_4), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in response.content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_bad_hand_shows_an_error(client, monkeypatch, htmx):
    def must_not_be_called(request):
        raise AssertionError("the engine must not be called for invalid input")

    monkeypatch.setattr(contract, "score_request", must_not_be_called)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = client.get(URL + "?" + urlencode({**EXAMPLE_4, "hand": "12x"}), **headers)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="alert"' in html
    assert "12x" in html
    assert value(html, "total") is None


@pytest.mark.parametrize(
    "field, bad",
    [("wild", "5"), ("wild", "55p"), ("win", "8z"), ("melds", "pong:777z"), ("hand", "0m123p"), ("seat", "X")],
)
def test_other_bad_inputs(client, fake_engine, field, bad):
    response = client.get(URL + "?" + urlencode({**EXAMPLE_4, field: bad}))
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()
    assert fake_engine == []


def test_self_drawn_needs_a_winning_tile(client, fake_engine):
    response = client.get(URL + "?" + urlencode({**EXAMPLE_4, "win": "", "self_drawn": "on"}))
    assert 'role="alert"' in response.content.decode()
    assert fake_engine == []


def test_form_builds_the_contract_request(client, fake_engine):
    query = {
        "variant": "taizhou",
        "seat": "W",
        "wild": " 5P ",
        "hand": "123m 456p",
        "melds": "pung:222z, chow:345s\nkong:1111m；ckong:9999p",
        "win": "",
        "lang": "en",
    }
    client.get(URL + "?" + urlencode(query))
    assert fake_engine == [
        {
            "variant": "taizhou",
            "seat": "W",
            "wild": "5p",
            "hand": "123m456p",
            "melds": ["pung:222z", "chow:345s", "kong:1111m", "ckong:9999p"],
            "lang": "en",
        }
    ]
    fake_engine.clear()
    client.get(URL + "?" + urlencode({**query, "wild": "", "win": "7z", "self_drawn": "on"}))
    request = fake_engine[0]
    assert request["wild"] is None
    assert request["win"] == "7z"
    assert request["self_drawn"] is True


def test_breakdown_rendering(client, fake_engine):
    html = client.get(URL + "?" + urlencode(EXAMPLE_4)).content.decode()
    assert value(html, "total") == "100"
    assert "臘子" in html
    assert "fake pung" in html and "30 胡" in html
    assert "fake flush" in html and "3 台" in html


def test_engine_error_answer_is_shown(client, monkeypatch):
    monkeypatch.setattr(contract, "score_request", lambda request: {"ok": False, "error": "not a winning hand"})
    response = client.get(URL + "?" + urlencode(EXAMPLE_4))
    assert response.status_code == 200
    assert "not a winning hand" in response.content.decode()


def test_engine_crash_is_contained(client, monkeypatch):
    def boom(request):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(contract, "score_request", boom)
    response = client.get(URL + "?" + urlencode(EXAMPLE_4))
    assert response.status_code == 200
    html = response.content.decode()
    assert "internal error" in html and "kaboom" in html


def test_english_ui(client, fake_engine):
    html = client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Score calculator" in html
    assert '<option value="en" selected>' in html  # breakdown language follows the UI


def test_short_shareable_url_uses_defaults(client, fake_engine):
    client.get(URL + "?hand=12m456m789m66z&melds=pung:222z&win=3m")
    assert fake_engine[0]["variant"] == "taizhou"
    assert fake_engine[0]["seat"] == "E"
    assert fake_engine[0]["lang"] == "zh"
    client.get(URL + "?hand=12m456m789m66z&seat=S", HTTP_ACCEPT_LANGUAGE="en")
    assert fake_engine[1]["seat"] == "S" and fake_engine[1]["lang"] == "en"
