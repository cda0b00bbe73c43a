"""Provably fair walls: the table shows SHA-256(seed:salt) when a hand starts (never the seed or the
salt); /verify/ recomputes that commitment from the revealed seed and salt, and rebuilds the wall
and the deal exactly as the table dealt it."""

import hashlib
import re
from urllib.parse import urlencode

import pytest
from django.test import Client

from games.engine import game as engine
from games.engine.tiles import face_name
from games.engine.view import sort_hand

from room_helpers import TILE, current_hand, db, hand_snapshot, make_room, run, start

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def seeded(settings):
    settings.GAME_SEED_BASE = "fairness"


def sha(seed, salt):
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def verify_page(**params):
    response = Client().get("/verify/?" + urlencode(params))
    assert response.status_code == 200
    return response.content.decode()


def section(html, element_id):
    m = re.search(r'id="%s"[^>]*>(.*?)</div>' % re.escape(element_id), html, re.S)
    assert m, element_id
    return m.group(1)


def test_the_commitment_shown_at_hand_start_opens_with_the_seed_and_salt(settings):
    room, users = make_room(players=4, length=4)

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        assert hand.version == 0 and hand.salt and len(hand.salt) >= 32
        expected = sha(hand.seed, hand.salt)
        assert hand.commitment == expected
        for p in players:
            table = p.page["status"]  # in the table's menu (#room-menu)
            assert "本局牌墙承诺" in table
            assert f'<code class="commitment-full">{expected}</code>' in table
            assert f'title="{expected}">{expected[:12]}…</code>' in table
            assert f"/verify/?commitment={expected}&amp;players=4&amp;dealer={hand.dealer}" in table
            page = p.html()
            assert hand.salt not in page and str(hand.seed) not in page  # revealed only after the hand
        # the verify page, with what the replay reveals, recomputes the same commitment ...
        html = await db(verify_page, seed=hand.seed, salt=hand.salt, commitment=expected, players=4,
                        dealer=hand.dealer)
        assert f'<code class="computed">{expected}</code>' in html
        assert "一致：牌墙就是开局前承诺的那一副" in html and "不一致" not in html
        # ... and deals the same hands: the engine's state and what each seat was shown
        wild = state.wild
        for p in players:
            shown = TILE.findall(section(html, f"verify-hand-{p.position}"))
            assert shown == [face_name(f) for f in sort_hand(state.hands[p.position], wild)]
            assert shown == TILE.findall(p.page["hand"])  # the seat's own view, in the same order
        assert TILE.findall(section(html, "verify-indicator")) == [face_name(state.indicator)]
        assert TILE.findall(p.page["table"].split('class="bar-item indicator"')[1])[0] == face_name(state.indicator)
        wall = TILE.findall(section(html, "verify-wall"))
        assert wall == [face_name(f) for f in engine.build_wall(hand.seed)]
        assert wall[-1] == face_name(state.indicator)
        assert wall[53:-1] == [face_name(f) for f in state.wall]  # the live wall, in drawing order
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_a_wrong_salt_or_commitment_shows_a_mismatch(settings):
    room, users = make_room(players=2, length=4)

    async def scenario():
        players = await start(room, users)
        for p in players:
            await p.comm.disconnect()

    run(scenario)
    hand = current_hand(room.pk)
    html = verify_page(seed=hand.seed, salt=hand.salt + "x", commitment=hand.commitment, players=2, dealer=hand.dealer)
    assert f'<code class="computed">{sha(hand.seed, hand.salt + "x")}</code>' in html
    assert "不一致" in html and "一致：牌墙" not in html
    html = verify_page(seed=hand.seed + 1, salt=hand.salt, commitment=hand.commitment, players=2, dealer=hand.dealer)
    assert "不一致" in html
    # upper-case hex is the same commitment
    html = verify_page(seed=hand.seed, salt=hand.salt, commitment=hand.commitment.upper(), players=2, dealer=hand.dealer)
    assert "一致：牌墙" in html
    # the deal of a 2-player table from this seed: the dealer 14 tiles, the other 13
    state = engine.new_hand(engine.Options(players=2), hand.seed, hand.dealer)[0]
    for p in range(2):
        assert TILE.findall(section(html, f"verify-hand-{p}")) == [face_name(f) for f in sort_hand(state.hands[p], state.wild)]
    assert len(TILE.findall(section(html, f"verify-hand-{hand.dealer}"))) == 14


def test_the_verify_page_form_and_bad_input(client):
    html = client.get("/verify/").content.decode()
    assert 'name="seed"' in html and 'name="salt"' in html and 'name="commitment"' in html
    assert "verify-wall" not in html
    html = client.get("/verify/?seed=123&salt=s&players=4&dealer=2").content.decode()
    assert 'value="123"' in html and 'value="s"' in html  # pre-filled from the query
    assert f'<code class="computed">{sha(123, "s")}</code>' in html and "无法比较" in html
    assert len(TILE.findall(section(html, "verify-wall"))) == 136
    assert len(TILE.findall(section(html, "verify-hand-2"))) == 14  # the dealer
    for query, error in (("seed=-1", "大于或等于"), ("seed=abc", "整数"), ("seed=1&commitment=xyz", "64 位十六进制"),
                         ("seed=1&players=5", "有效的选项"), ("seed=1&players=2&dealer=3", "庄家位置应小于人数")):
        response = client.get("/verify/?" + query)
        assert response.status_code == 200
        html = response.content.decode()
        assert error in html and "verify-wall" not in html, query
    assert client.post("/verify/", {"seed": 1}).status_code == 405
    assert client.get("/verify/?seed=1", HTTP_ACCEPT_LANGUAGE="en").status_code == 200
