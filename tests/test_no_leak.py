"""No seat ever sees another seat's concealed tiles or the wall.

Whole seeded hands with 2, 3 and 4 players are played over the sockets. After every action, for
every seat:
  - each message that seat received shows no tile it may not see: its face-up tiles (every
    `data-tile` code) are a sub-multiset of the tiles visible to the seat at the version the
    message was rendered at (recomputed from the engine state, independently of the templates);
  - the page assembled from the messages (as htmx swaps them) and the room page fetched over HTTP
    show EXACTLY the visible tiles: own hand + every meld (others' concealed kongs face down) +
    every river + the indicator, + the discard on offer in a claim window;
  - there are no more face-down tiles than the others' concealed kongs.
Once a hand ends every hand is shown on the result screen, so the checks stop there.
"""

import random

import pytest
from django.test import Client

from games.engine import game as engine
from games.models import Hand, HandEvent

from room_helpers import (
    act, choose, current_hand, db, face_down, make_room, press, run, start, sync_all, tiles_in, visible_tiles,
)

# reset_sequences: the room is #1 whatever ran before, so its seeded walls (GAME_SEED_BASE:room:hand) are fixed
pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


def state_at(hand, version, cache):
    """The engine state of `hand` after its first `version` actions: from the log, through the
    engine, independently of the site (from the nearest earlier state this test computed)."""
    key = (hand.pk, version)
    if key not in cache:
        known = [v for (h, v) in cache if h == hand.pk and v < version]
        start = max(known, default=0)
        if start:
            state = cache[(hand.pk, start)]
        else:
            state = engine.new_hand(engine.Options.from_dict(hand.options), hand.seed, hand.dealer,
                                       hand.carry or None)[0]
        for e in HandEvent.objects.filter(hand=hand, seq__gt=start, seq__lte=version).order_by("seq"):
            out = engine.apply(state, engine.Action.from_dict(e.action))
            assert not isinstance(out, engine.Illegal), out
            state = out[0]
        assert state.step == version
        cache[key] = state
    return cache[key]


def page_html(client, room_id):
    response = client.get(f"/room/{room_id}/")
    assert response.status_code == 200
    return response.content.decode()


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def check_messages(player, hand, cache, checked):
    """Every message not yet checked shows only tiles visible at the version it was rendered at."""
    import re

    for message in player.messages[checked:]:
        m = re.search(r'data-hand-version="(\d+)"', message)
        if "data-tile" not in message:
            continue
        assert m, "a message with tiles but no version"
        state = state_at(hand, int(m.group(1)), cache)
        if state.phase == engine.ENDED:
            continue
        shown = tiles_in(message)
        allowed = visible_tiles(state, player.position)
        assert not shown - allowed, (player.position, shown - allowed)
        assert message.count('class="mtile back') <= face_down(state, player.position)
    return len(player.messages)


@pytest.mark.parametrize("n, hands, seed", [(2, 2, 1), (3, 2, 2), (4, 2, 3)])
def test_no_seat_sees_hidden_tiles(settings, n, hands, seed):
    settings.GAME_SEED_BASE = f"leak-{n}"
    room, users = make_room(players=n, length=4)
    clients = {p: logged_in(u) for p, u in users.items()}

    async def scenario():
        players = await start(room, users)
        rng = random.Random(seed)
        checked = [0] * n
        for number in range(1, hands + 1):
            hand = await db(current_hand, room.pk)
            assert hand.number == number and hand.status == Hand.PLAYING
            cache = {}
            for step in range(500):
                hand = await db(current_hand, room.pk)
                state = await db(state_at, hand, hand.version, cache)
                if hand.status != Hand.PLAYING:
                    break
                for p in players:
                    q = p.position
                    checked[q] = await db(check_messages, p, hand, cache, checked[q])
                    visible = visible_tiles(state, q)
                    assert tiles_in(p.html()) == visible, (number, step, q)
                    assert p.html().count('class="mtile back') == face_down(state, q)
                    if step % 2 == 0 or state.phase == engine.CLAIM:
                        page = await db(page_html, clients[q], room.pk)
                        assert tiles_in(page) == visible, (number, step, q, "page")
                        assert page.count('class="mtile back') == face_down(state, q)
                waiting = engine.waiting_player(state)[0]
                await press(players, room.pk, players[waiting], choose(players[waiting].buttons(), rng))
            else:
                pytest.fail("the hand did not end")
            for p in players:
                checked[p.position] = await db(check_messages, p, hand, cache, checked[p.position])
            if number < hands:
                for p in players:
                    await act(players, room.pk, p, {"action": "ready"})
        await sync_all(players, room.pk)
        for p in players:
            await p.comm.disconnect()

    run(scenario)
