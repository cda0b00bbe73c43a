"""A room update is rendered for the room's sockets of a process in one thread hop: a socket's move
in the hop that made it (games/consumers.py perform_and_render), any other update in one batch
(RoomRenders); every seat gets its own fragments, a failing seat fails alone, a socket that
closed meanwhile does not stop the others."""

import asyncio
import random

import pytest

from games import consumers, table
from games.models import Room

from room_helpers import choose, connect, db, make_room, press, run, start, sync_all

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def batches(monkeypatch):
    """The batches rendered: [[position of each seat, in the order rendered]]."""
    seen = []
    real = consumers._render_batch

    def record(room_id, batch):
        seen.append([b[0].pk for b in batch])
        return real(room_id, batch)

    monkeypatch.setattr(consumers, "_render_batch", record)
    return seen


@pytest.fixture
def mover_hops(monkeypatch):
    """What each socket message's hop rendered: [(thread of the move, [thread of each seat's render or None])]."""
    import threading

    seen = []
    real_render, real_perform = consumers._render_seat, consumers.perform_and_render
    threads = []

    def render(*args):
        threads.append(threading.get_ident())
        return real_render(*args)

    def perform(*args):
        threads.clear()
        out = real_perform(*args)
        seen.append((threading.get_ident(), [threads.pop(0) if r is not None else None for r in out[2]]))
        return out

    monkeypatch.setattr(consumers, "_render_seat", render)
    monkeypatch.setattr(consumers, "perform_and_render", perform)
    return seen


def test_a_move_is_rendered_for_the_rooms_four_sockets_in_the_moves_own_hop(settings, batches, mover_hops):
    settings.GAME_SEED_BASE = "room-renders"
    room, users = make_room(players=4)

    async def scenario():
        players = await start(room, users)
        batches.clear()
        mover_hops.clear()
        await play(players, room.pk, 6, seed=4)
        # each move rendered the four seats in the thread that made it, from what it wrote; the
        # room.updated the sockets hear afterwards is at a version they already have: no batch
        assert len(mover_hops) == 6
        for thread, renders in mover_hops:
            assert renders == [thread] * 4
        assert batches == []
        await hang_up(players)

    run(scenario)


def test_an_update_not_sent_by_a_socket_is_rendered_for_the_four_sockets_in_one_batch(settings, batches):
    settings.GAME_SEED_BASE = "room-renders-batch"
    room, users = make_room(players=4)
    by_user = {u.pk: p for p, u in users.items()}

    async def scenario():
        players = await start(room, users)
        for _ in range(3):  # as a timeout, a Celery task or another process changes the room
            batches.clear()
            await db(_bump, room.pk)
            await sync_all(players, room.pk)
            # one batch, two at most: a socket that hears the update a little later joins the next
            assert sorted(by_user[pk] for b in batches for pk in b) == [0, 1, 2, 3], batches
            assert len(batches) <= 2, batches
        await hang_up(players)

    run(scenario)


def test_seats_whose_sockets_are_elsewhere_follow_the_move_through_the_group(settings, monkeypatch, mover_hops):
    """Only the room's sockets of the mover's process are rendered in its hop (seat by seat
    placement behind a proxy): the others render on the room.updated they hear, as before."""
    settings.GAME_SEED_BASE = "room-renders-elsewhere"
    room, users = make_room(players=4)
    real = consumers.ROOM_RENDERS.local_seats
    monkeypatch.setattr(consumers.ROOM_RENDERS, "local_seats", lambda c: [x for x in real(c) if x is c])

    async def scenario():
        players = await start(room, users)
        mover_hops.clear()
        await play(players, room.pk, 4, seed=5)  # every page follows
        assert [len(renders) for _thread, renders in mover_hops] == [1] * 4
        await hang_up(players)

    run(scenario)


def test_a_seat_that_fails_to_render_fails_alone(settings, monkeypatch):
    settings.GAME_SEED_BASE = "room-renders-fail"
    room, users = make_room(players=2)

    async def scenario():
        players = await start(room, users)
        real = table.seat_fragments

        def broken_for_the_guest(room_id, user, *args):
            if user.pk == users[1].pk:
                raise RuntimeError("a render bug")
            return real(room_id, user, *args)

        monkeypatch.setattr(table, "seat_fragments", broken_for_the_guest)
        before = players[0].room_version
        await db(_bump, room.pk)
        while players[0].room_version <= before:  # the host's page still follows the room
            await players[0].receive()
        # a move, rendered in its own hop: the same (the host's move, or the guest's own)
        mover = next(p for p in players if p.buttons())
        before = players[0].room_version
        await mover.send(choose(mover.buttons(), random.Random(1)))
        while players[0].room_version <= before:
            await players[0].receive()
        monkeypatch.setattr(table, "seat_fragments", real)
        await db(_bump, room.pk)
        await sync_all(players, room.pk)  # the guest's socket is alive and catches up
        await hang_up(players)

    run(scenario)


def test_a_closed_socket_does_not_hold_up_its_batch(settings):
    settings.GAME_SEED_BASE = "room-renders-closed"
    room, users = make_room(players=2)

    async def scenario():
        host = await connect(room.pk, users[0], 0)
        guest = await connect(room.pk, users[1], 1)
        loop = asyncio.get_running_loop()
        waiting = asyncio.ensure_future(consumers.ROOM_RENDERS.view(_Seat(room.pk, users[1])))
        waiting.cancel()  # asked, then gone before the batch ran
        out = await consumers.ROOM_RENDERS.view(_Seat(room.pk, users[0]))
        assert out is not None and out[0] == await db(lambda: Room.objects.get(pk=room.pk).version)
        assert loop.is_running()
        for p in (host, guest):
            await p.comm.disconnect()

    run(scenario)


def test_a_tablemates_socket_that_closed_does_not_take_the_movers_down(settings):
    """A page of the table closes (a tab shut, a phone's network gone) while a move is rendered for
    it in the mover's hop: daphne refuses the send to that socket (autobahn's Disconnected) before
    its disconnect comes through. The mover's socket stays open and keeps playing (the 250-table
    bench saw one such close spread over a table: each move then closed the mover with 1011)."""
    from autobahn.exception import Disconnected

    settings.GAME_SEED_BASE = "room-renders-gone"
    room, users = make_room(players=4)

    async def scenario():
        players = await start(room, users)
        mover = next(p for p in players if p.buttons())
        gone = next(p for p in players if p is not mover)
        local = consumers.ROOM_RENDERS._sockets[(asyncio.get_running_loop(), room.pk)]
        closed = next(c for c in local if c.user.pk == gone.user.pk)

        async def refused(message):
            raise Disconnected("Attempt to send on a closed protocol")

        closed.base_send = refused  # as daphne answers a send on that socket now
        others = [p for p in players if p is not gone]
        rng = random.Random(6)
        for _ in range(3):  # the mover, and whoever moves next, play on and every open page follows
            mover = next((p for p in others if p.buttons()), None)
            if mover is None:
                break
            await press(others, room.pk, mover, choose(mover.buttons(), rng))
        version = await db(lambda: Room.objects.get(pk=room.pk).version)
        assert [p.room_version for p in others] == [version] * len(others)
        for p in others:
            assert await p.comm.receive_nothing(timeout=0.2)  # no close frame: still open
        await hang_up(players)

    run(scenario)


async def hang_up(players):
    for p in players:
        await p.comm.disconnect()


async def play(players, room_id, moves, seed):
    """`moves` moves, each by the seat that has buttons; each waits until every page shows it."""
    rng = random.Random(seed)
    for _ in range(moves):
        mover = next(p for p in players if p.buttons())
        await press(players, room_id, mover, choose(mover.buttons(), rng))


class _Seat:
    def __init__(self, room_id, user):
        self.room_id, self.user, self.lang, self.base_url = room_id, user, "zh", ""


def _bump(room_id):
    from django.db import transaction

    from games.services import notify

    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room_id)
        notify.bump(room)
