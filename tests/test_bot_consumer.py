"""A practice room over the socket (issue 15): one person and three computer players play a seeded
hand to its end, the person pressing only what their page offers while the bots move through the
timeout task (pause 0 here); then the person hands the seat to the bot (托管) and the bots finish
the game by themselves. Every hand replays, nobody's beans move, and the person's page never shows
a bot's concealed tiles."""

from __future__ import annotations

import pytest

from accounts.models import LedgerEntry
from games import consumers, replays, services
from games.engine import game as engine
from games.models import Hand, Replay, Room
from room_helpers import connect, db, hand_snapshot, run, tiles_in, visible_tiles
from tests.people import make_person

pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


@pytest.fixture(autouse=True)
def fast_bots(settings, monkeypatch):
    settings.GAME_SEED_BASE = "bot-consumer"
    settings.BOT_DELAY_SECONDS = 0  # the bots move as soon as their turn comes (a task each)
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)


def _choice(player):
    by_kind = {}
    for b in player.buttons():
        by_kind.setdefault(b.get("action"), []).append(b)
    for kind in ("win", "pung", "kong", "pass"):
        if kind in by_kind:
            return by_kind[kind][0]
    discards = by_kind.get("discard") or []
    return discards[-1] if discards else None


async def next_message(player, timeout):
    """The next message if one comes within `timeout`, else go on (the loop reads the database
    again). A quiet spell is normal here: with eager Celery the bots' moves after a person's run
    inside that person's call on the socket's pool thread, and the room hears of them when it
    returns. (receive_from's timeout would cancel the socket's application for good.)"""
    if not await player.comm.receive_nothing(timeout=timeout):
        await player.receive()


def test_one_person_and_three_bots_play_a_game_to_the_end():
    person = make_person("bc_person", "一个人")
    room = services.start_practice(person, variant="taizhou", players=4)

    async def scenario():
        me = await connect(room.pk, person, 0)
        first = None
        for _ in range(600):
            hand, state = await db(hand_snapshot, room.pk)
            if first is None:
                first = hand.pk
            if hand.pk != first or hand.status != Hand.PLAYING:
                break
            # the page shows what this seat may see, however fast the bots move
            if me.hand_version == hand.version:
                assert tiles_in(me.page.get("table", "") + me.page.get("hand", "")) == visible_tiles(state, 0)
            button = _choice(me) if me.hand_version == hand.version and 0 in engine.waiting_player(state) else None
            if button is not None:
                await me.send(button)
            await next_message(me, 5)
        hand = await db(lambda: Hand.objects.get(pk=first))
        assert hand.status == Hand.ENDED
        # the person hands the seat to the bot: the bots finish the game by themselves
        await me.send({"action": "auto_on"})
        for _ in range(200):
            status = await db(lambda: Room.objects.get(pk=room.pk).status)
            if status == Room.FINISHED:
                break
            last = await db(lambda: Hand.objects.filter(game__room=room).order_by("-number").first())
            if last.status == Hand.ENDED and last.deadline is not None:  # the ready countdown
                await db(lambda: services.timeout(last.pk, last.version, now=last.deadline))
            await next_message(me, 2)
        await me.comm.disconnect()

    run(scenario)
    room.refresh_from_db()
    assert room.status == Room.FINISHED
    for hand in Hand.objects.filter(game__room=room):
        assert hand.status == Hand.ENDED and hand.result.get("practice")
        assert replays.build(hand.pk).status == Replay.OK
    assert not LedgerEntry.objects.filter(reason=LedgerEntry.HAND).exists()
