"""A socket is accepted while its process's thread pool is busy (games/consumers.py for_handshake).

The seat check before accept ran on the pool, behind the moves and renders of a saturated process:
past daphne's handshake timeout (5 s) the socket was dropped unanswered and the page tried again,
adding work to a process that had too much (a 250-table bench ramp: 1,626 such drops). The check
has threads of its own; the socket's first view still comes from the pool, when it gets there."""

import asyncio
import threading
from contextlib import asynccontextmanager

import pytest

from room_helpers import connect, make_room, make_user, run, split_fragments

pytestmark = pytest.mark.django_db(transaction=True)

HANDSHAKE_SECONDS = 4  # under daphne's 5 s handshake timeout


@asynccontextmanager
async def every_pool_thread_held():
    """The loop's thread pool busy to its last thread (and a queue behind), as on a saturated process."""
    loop = asyncio.get_running_loop()
    release = threading.Event()
    busy = [loop.run_in_executor(None, release.wait, 30) for _ in range(40)]  # more than its threads
    try:
        yield
    finally:
        release.set()
        await asyncio.gather(*busy)


def test_a_seat_is_accepted_while_every_pool_thread_is_busy_and_gets_its_view_after():
    room, users = make_room(players=2)

    async def scenario():
        async with every_pool_thread_held():
            comm, connected = await connect(room.pk, users[0], expect=False, timeout=HANDSHAKE_SECONDS)
            assert connected
            assert await comm.receive_nothing(timeout=0.3)  # the view waits for the pool
        parts = split_fragments(await comm.receive_from(timeout=10))
        assert {"clock", "status", "seats", "table", "hand", "actions"} <= set(parts)
        await comm.disconnect()

    run(scenario)


def test_the_busy_pool_does_not_let_an_outsider_in():
    room, _users = make_room(players=2)
    outsider = make_user("outsider")

    async def scenario():
        async with every_pool_thread_held():
            comm, connected = await connect(room.pk, outsider, expect=False, timeout=HANDSHAKE_SECONDS)
            assert not connected  # refused at once, as before: the check itself is not skipped
            await comm.disconnect()

    run(scenario)
