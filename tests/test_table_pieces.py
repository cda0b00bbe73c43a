"""Within a hand a socket sends only the pieces of the table that changed (games/table.py TableHtml,
games/consumers.py RoomConsumer.deliver), each swapped by its id: every page put together from
them is, at every move of a hand and for every seat, exactly the table a fresh full render shows;
a discard sends the other players no whole table; a reconnect, a new hand and the result screen
send the whole table."""

import random

import pytest

from games import table
from games.models import Room

from room_helpers import choose, connect, db, make_room, press, run, start

pytestmark = pytest.mark.django_db(transaction=True)


def _fresh_table(room_id, user, version):
    return table.seat_fragments(room_id, user, "zh", version=version)[2]["table"].strip()


def _room_version(room_id):
    return Room.objects.get(pk=room_id).version


def _in_a_dealt_room(players, body):
    """body(room, users, players) with the room's seats connected and its first hand dealt; the
    sockets still open afterwards are closed."""
    room, users = make_room(players=players)

    async def scenario():
        seated = await start(room, users)
        try:
            await body(room, users, seated)
        finally:
            for p in seated:
                if p.comm.future is None or not p.comm.future.done():
                    await p.comm.disconnect()

    run(scenario)


def test_pages_put_together_from_pieces_are_the_table_at_every_move(settings):
    settings.GAME_SEED_BASE = "table-pieces"

    async def body(room, _users, players):
        rng = random.Random(11)
        pieces_only = 0
        for _ in range(40):
            movers = [p for p in players if p.buttons()]
            if not movers:
                break
            sent = [len(p.messages) for p in players]
            await press(players, room.pk, movers[0], choose(movers[0].buttons(), rng))
            version = await db(_room_version, room.pk)
            for p, n in zip(players, sent):
                assert p.page["table"] == await db(_fresh_table, room.pk, p.user, version), (p.position, version)
                new = "".join(p.messages[n:])
                if p is not movers[0] and '<section id="table"' not in new and 'id="player-' in new:
                    pieces_only += 1
        assert pieces_only >= 20  # the others' pages followed the moves by pieces alone

    _in_a_dealt_room(4, body)


def test_a_discard_sends_the_others_the_changed_pieces_only(settings):
    settings.GAME_SEED_BASE = "table-pieces-discard"

    async def body(room, _users, players):
        mover = next(p for p in players if any(b.get("action") == "discard" for b in p.buttons()))
        sent = [len(p.messages) for p in players]
        await press(players, room.pk, mover, next(b for b in mover.buttons() if b.get("action") == "discard"))
        for p, n in zip(players, sent):
            if p is not mover:
                new = "".join(p.messages[n:])
                assert '<section id="table"' not in new
                assert 'id="table-bar"' in new and f'id="player-{mover.position}"' in new

    _in_a_dealt_room(4, body)


def test_a_socket_that_reconnects_gets_the_whole_table(settings):
    settings.GAME_SEED_BASE = "table-pieces-reconnect"

    async def body(room, users, players):
        mover = next(p for p in players if p.buttons())
        await press(players, room.pk, mover, choose(mover.buttons(), random.Random(2)))
        await players[1].comm.disconnect()
        again = await connect(room.pk, users[1], 1)
        try:
            assert '<section id="table" class="table' in again.messages[0]
            version = await db(_room_version, room.pk)
            assert again.page["table"] == await db(_fresh_table, room.pk, users[1], version)
        finally:
            await again.comm.disconnect()

    _in_a_dealt_room(2, body)


def test_pieces_go_only_to_a_table_of_the_same_frame():
    """A table of another frame (another seat count, other players) or anything that is not a
    playing table: the whole fragment."""
    from games.consumers import _changed_parts

    def made(opening, parts):
        html = table.TableHtml(opening + "".join(parts.values()))
        html.parts, html.frame = parts, (opening, tuple(parts))
        return html

    before = made("<section 4>", {"table-top": "a", "player-0": "b", "table-bar": "c"})
    assert _changed_parts(before, made("<section 4>", {"table-top": "a", "player-0": "B", "table-bar": "c"})) == ["B"]
    other = made("<section 3>", {"table-top": "a", "player-0": "B", "table-bar": "c"})
    assert _changed_parts(before, other) == [other]
    assert _changed_parts(None, before) == [before] and _changed_parts("<section>", before) == [before]
    assert _changed_parts(before, "<section id=\"table\"></section>") == ["<section id=\"table\"></section>"]
