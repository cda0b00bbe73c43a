"""快捷语 (issue 16): a seated player sends a fixed phrase or emoji over the room socket; every seat
gets a bubble at the sender's position in its own language; it is stored with the hand and the step
(for the replay), bumps no version, is rate-limited per player, and unknown phrases are refused."""

from __future__ import annotations

import asyncio
import re

import pytest
from django.core.cache import cache

from games import consumers
from games.models import Phrase
from room_helpers import connect, db, hand_snapshot, make_room, room_version, run, start

pytestmark = pytest.mark.django_db(transaction=True)

BUBBLE = re.compile(r'<div class="phrase-bubble( emoji)?" data-position="(\d)" data-key="(\d+)">([^<]*)</div>')


@pytest.fixture(autouse=True)
def setup(settings, monkeypatch):
    settings.GAME_SEED_BASE = "phrases"
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)
    cache.clear()
    yield
    cache.clear()


def test_a_phrase_reaches_every_seat_in_its_language_and_is_kept_for_the_replay():
    room, users = make_room(players=3, length=4)

    async def scenario():
        players = await start(room, users)
        # the third player reads English
        players[2] = await connect(room.pk, users[2], 2, lang="en")
        hand, _state = await db(hand_snapshot, room.pk)
        before = await db(room_version, room.pk)
        await players[1].send({"action": "phrase", "phrase": "p1"})
        got = {}
        for p in players:
            message = (await p.comm.receive_from(timeout=3))
            m = BUBBLE.search(message)
            assert m, message[:300]
            got[p.position] = m.groups()
        assert {g[1] for g in got.values()} == {"1"} and len({g[2] for g in got.values()}) == 1  # one bubble, at seat 1
        assert got[0][3] == "快点吧，等得花儿都谢了" and got[2][3] == "Hurry up, the flowers are wilting while we wait"
        assert await db(room_version, room.pk) == before  # not a change of the game
        row = await db(lambda: Phrase.objects.get())
        assert (row.position, row.phrase, row.hand_id, row.after_seq) == (1, "p1", hand.pk, hand.version)

        # too fast: a toast to the sender only, nothing stored, nobody else hears anything
        await players[1].send({"action": "phrase", "phrase": "e1"})
        refused = await players[1].comm.receive_from(timeout=3)
        assert "说得太快了" in refused
        await asyncio.gather(*(p.nothing_more() for p in players))
        # an unknown phrase or a free text is refused
        for bad in ({"action": "phrase", "phrase": "p99"}, {"action": "phrase", "phrase": "<b>hi</b>"},
                    {"action": "phrase", "text": "free words"}):
            await players[0].send(bad)
            text = await players[0].comm.receive_from(timeout=3)
            assert "toast" in text and ("没有这句快捷语" in text or "消息格式不对" in text), text[:200]
        await asyncio.gather(*(p.nothing_more() for p in players))
        assert await db(lambda: Phrase.objects.count()) == 1
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_emoji_and_the_rate_limit_window(monkeypatch):
    from games.services import phrases as service

    room, users = make_room(players=2, length=4)
    clock = [1000.0]
    monkeypatch.setattr(service.time, "time", lambda: clock[0])
    for i in range(service.BURST):
        service.say(users[0], room.pk, "e2")
        clock[0] += service.GAP
    with pytest.raises(Exception) as e:
        service.say(users[0], room.pk, "e2")
    assert getattr(e.value, "code", "") == "phrase_limit"
    service.say(users[1], room.pk, "e3")  # the other player has their own count
    clock[0] += service.WINDOW
    service.say(users[0], room.pk, "e2")  # a minute later: allowed again
    assert Phrase.objects.filter(position=0).count() == service.BURST + 1


def test_the_replay_shows_the_phrases_at_their_step(client):
    from games import replays, services
    from games.models import Hand
    from tests.replay_helpers import play_hand, users_by_position

    room, users = make_room(players=2, length=4)
    for user in users.values():
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room)
    services.say(users[1], room.pk, "p4")  # at step 0
    hand = play_hand(hand, users_by_position(room))
    replay = replays.build(hand.pk)
    client.force_login(users[0])
    page = client.get(f"/replay/{replay.token}/?step=0", HTTP_ACCEPT_LANGUAGE="zh").content.decode()
    assert 'class="rp-phrase"' in page and "今天手气真好" in page and "data-phrases-toggle" in page
    later = client.get(f"/replay/{replay.token}/?step=1", HTTP_ACCEPT_LANGUAGE="zh").content.decode()
    assert "今天手气真好" not in later
