"""A move and the renders of its seats leave no reference cycles of rows behind (issue 17).

Rows linked both ways (a one-to-one set or read with select_related caches its reverse side too;
a log row kept on the hand that it points back to) are not freed when the move is done but left for
the garbage collector (~30 objects a move), whose passes, 20-75 ms each with every socket of a
daphne process waiting, then came about twice as often. games/hot_queries.link_forward keeps those
links one way."""

import gc

import pytest

from games import table
from games.models import Game, Hand, HandEvent, Room, Seat

from replay_helpers import play_moves, start_hand, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = (Room, Game, Hand, HandEvent, Seat)


@pytest.fixture
def dealt():
    """A four-seat room with its first hand dealt, every seat's view rendered once: (room, hand, users)."""
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    hand = start_hand(room)
    for user in users.values():
        table.seat_fragments(room.pk, user, "zh")
    return room, hand, users


def cyclic_rows(work) -> list:
    """The rows among what the garbage collector finds unreachable after work() (run with the
    collector off, so that nothing is collected meanwhile)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        return [type(o).__name__ for o in gc.garbage if isinstance(o, ROWS)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_moves_through_the_socket_path_and_their_renders_leave_no_cyclic_rows(dealt):
    room, hand, users = dealt

    def moves_and_renders():
        nonlocal hand
        for _ in range(12):
            hand = play_moves(room, hand, users, 1)
            version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
            for user in users.values():  # as the consumer renders a seat on room.updated
                assert table.seat_fragments(room.pk, user, "zh", version=version, hand_move=hand.pk) is not None

    assert cyclic_rows(moves_and_renders) == []


def test_the_check_sees_a_cycle_of_rows():
    """The measure itself: a room and its game linked both ways are found."""
    def linked_both_ways():
        room = Room(pk=10**9)
        game = Game(pk=10**9)
        game.room = room  # Django caches room.game too
        assert room._state.fields_cache["game"] is game

    assert sorted(cyclic_rows(linked_both_ways)) == ["Game", "Room"]
