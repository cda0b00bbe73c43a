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

from room_helpers import choose, make_room, run, split_fragments, start, press, ws_values

pytestmark = pytest.mark.django_db(transaction=True)


def _live():
    path = Path(__file__).resolve().parent.parent / "bench" / "live.py"
    spec = importlib.util.spec_from_file_location("bench_live", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _messages_of_each_seat(room, users, moves, seed, until_claim=False) -> list[list[str]]:
    """Four sockets play `moves` moves of a hand (seeded choices); what each seat received, in order.
    until_claim: then on, within the hand, until some seat has been offered a claim (过): the deal
    follows the room's id, which on PostgreSQL depends on the tests run before on the database."""

    async def scenario():
        players = await start(room, users)
        rng = random.Random(seed)
        claimed = False
        for n in range(moves if not until_claim else 200):
            if n >= moves and (claimed or not until_claim):
                break
            mover = next((p for p in players if any(b.get("action") != "ready" for b in p.buttons())), None)
            if mover is None:  # the hand is over
                break
            buttons = mover.buttons()
            claimed = claimed or any(b.get("action") == "pass" for b in buttons)
            await press(players, room.pk, mover, choose(buttons, rng))
        for p in players:
            await p.comm.disconnect()
        return [p.messages for p in players]

    return run(scenario)


def test_the_bench_client_splits_messages_as_the_page_swaps_them(settings):
    settings.GAME_SEED_BASE = "bench-client"
    live = _live()
    room, users = make_room(players=4)
    messages = [m for seat in _messages_of_each_seat(room, users, 8, 3) for m in seat]
    assert len(messages) > 30
    for message in messages:
        expected = split_fragments(message)
        assert live.split_fragments(message) == expected
        assert live.split_fragments(consumers.PONG + message) == expected
    assert any({"table", "hand", "clock"} <= set(live.split_fragments(m)) for m in messages)
    assert any("table-bar" in live.split_fragments(m) for m in messages)  # a piece of the table alone
    assert live.split_fragments(consumers.PONG) == {} and live.split_fragments("") == {}
    assert Room.objects.get(pk=room.pk).version > 0


def _first_of_each_kind(page):
    """What the bench's policy picks, from every button of the page parsed (the reference)."""
    by_kind = {}
    for b in ws_values(page.get("hand", "")) + ws_values(page.get("actions", "")):
        by_kind.setdefault(b.get("action"), b)
    for kind in ("win", "pass", "discard", "auto_off"):
        if kind in by_kind:
            return kind, by_kind[kind]
    ready = by_kind.get("ready")
    return ("ready", ready) if ready is not None and ready.get("ready", True) is not False else None


def test_the_bench_client_picks_the_first_button_of_each_kind_without_parsing_them_all(settings):
    """choose_move parses only the first button of each kind it finds (the hand's other tiles are
    skipped by their escaped action): on a seat's real pages through a hand, the same choice as
    parsing every button — a discard, a claim passed, a 准备."""
    settings.GAME_SEED_BASE = "bench-client-choice"
    live = _live()
    room, users = make_room(players=4)
    kinds = set()
    for messages in _messages_of_each_seat(room, users, 12, 5, until_claim=True):
        page = {}
        for message in messages:
            page.update(live.split_fragments(message))
            expected = _first_of_each_kind(page)
            assert live.choose_move(page) == expected
            kinds.add(expected and expected[0])
    assert {"discard", "pass"} <= kinds, kinds
