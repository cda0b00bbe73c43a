"""bench/live.py's socket clients read a message as htmx swaps it: the same elements as the tests'
simulated page (room_helpers.split_fragments), for real messages of a seat at every move of a
hand (its own full view first, then the table's changed pieces), with the heartbeat's answer
before them and none at all."""

import importlib.util
import random
from pathlib import Path

import pytest

from games import consumers
from games.models import Room

from room_helpers import choose, make_room, run, split_fragments, start, press

pytestmark = pytest.mark.django_db(transaction=True)


def _live():
    path = Path(__file__).resolve().parent.parent / "bench" / "live.py"
    spec = importlib.util.spec_from_file_location("bench_live", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_client_splits_messages_as_the_page_swaps_them(settings):
    settings.GAME_SEED_BASE = "bench-client"
    live = _live()
    room, users = make_room(players=4)

    async def scenario():
        players = await start(room, users)
        rng = random.Random(3)
        for _ in range(8):
            mover = next(p for p in players if p.buttons())
            await press(players, room.pk, mover, choose(mover.buttons(), rng))
        for p in players:
            await p.comm.disconnect()
        return [m for p in players for m in p.messages]

    messages = run(scenario)
    assert len(messages) > 30
    for message in messages:
        expected = split_fragments(message)
        assert live.split_fragments(message) == expected
        assert live.split_fragments(consumers.PONG + message) == expected
    assert any({"table", "hand", "clock"} <= set(live.split_fragments(m)) for m in messages)
    assert any("table-bar" in live.split_fragments(m) for m in messages)  # a piece of the table alone
    assert live.split_fragments(consumers.PONG) == {} and live.split_fragments("") == {}
    assert Room.objects.get(pk=room.pk).version > 0
