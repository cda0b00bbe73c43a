"""A move's writes held and sent as one statement on PostgreSQL (games/hot_queries.py held_writes):
what is stored is what each write alone stores; every read in the block sees the writes before it;
an update that finds no row fails the block and nothing is kept; a row updated twice ends with the
second; a savepoint rolled back takes its writes with it. Elsewhere (SQLite, outside a transaction)
each write runs at once. On SQLite here and on PostgreSQL in CI's second pass."""

import random

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.hot_queries import held_writes, insert, update_fields
from games.models import Hand, HandEvent, Room

from replay_helpers import play_moves, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)

on_postgresql = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="one statement on PostgreSQL only")


@pytest.fixture
def dealt():
    """A four-seat room with its first hand dealt: (room, hand)."""
    room, _ = make_room(players=4, length=4)
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    return Room.objects.get(pk=room.pk), Hand.objects.get(game__room=room, number=1)


def _log_row(hand, seq, tag="x"):
    return HandEvent(hand=hand, seq=seq, action={"kind": tag}, events=[{"tag": tag, "n": seq}], auto=False)


def _write_a_move(room, hand):
    """What a move writes: its log row, the hand's version and deadline, the room's version."""
    hand.version += 1
    insert(_log_row(hand, hand.version))
    hand.deadline = timezone.now()
    update_fields(hand, ("version", "deadline"))
    room.version += 1
    update_fields(room, ("version",))


def test_the_writes_are_stored_as_each_alone_stores_them(dealt):
    room, hand = dealt
    with transaction.atomic(), held_writes():
        _write_a_move(room, hand)
    stored = Hand.objects.get(pk=hand.pk)
    assert (stored.version, stored.deadline) == (hand.version, hand.deadline)
    assert Room.objects.get(pk=room.pk).version == room.version
    row = HandEvent.objects.get(hand=hand, seq=hand.version)
    assert (row.action, row.events, row.auto) == ({"kind": "x"}, [{"tag": "x", "n": hand.version}], False)


@on_postgresql
def test_on_postgresql_the_three_writes_are_one_statement_at_the_end_of_the_block(dealt):
    room, hand = dealt
    with CaptureQueriesContext(connection) as run:
        with transaction.atomic(), held_writes():
            _write_a_move(room, hand)
            assert [q["sql"] for q in run.captured_queries if "games_" in q["sql"]] == []  # held
        written = [q["sql"] for q in run.captured_queries if "games_" in q["sql"]]
    assert len(written) == 1 and written[0].startswith("WITH "), written
    assert all(t in written[0] for t in ("INSERT INTO \"games_handevent\"", "UPDATE \"games_hand\"", "UPDATE \"games_room\""))


def test_a_read_in_the_block_sees_the_writes_before_it(dealt):
    room, hand = dealt
    with transaction.atomic(), held_writes():
        _write_a_move(room, hand)
        assert HandEvent.objects.filter(hand=hand, seq=hand.version).exists()
        assert Room.objects.get(pk=room.pk).version == room.version
        _write_a_move(room, hand)  # the room and the hand again, after the read
    assert Hand.objects.get(pk=hand.pk).version == hand.version
    assert Room.objects.get(pk=room.pk).version == room.version
    assert HandEvent.objects.filter(hand=hand, seq__in=(hand.version - 1, hand.version)).count() == 2


def test_a_row_updated_twice_in_the_block_ends_with_the_second(dealt):
    room, hand = dealt
    with transaction.atomic(), held_writes():
        room.version += 1
        update_fields(room, ("version",))
        room.version += 5
        update_fields(room, ("version",))
    assert Room.objects.get(pk=room.pk).version == room.version


def test_an_update_that_finds_no_row_fails_and_nothing_is_kept(dealt):
    room, hand = dealt
    before = (Room.objects.get(pk=room.pk).version, Hand.objects.get(pk=hand.pk).version,
              HandEvent.objects.filter(hand=hand).count())
    gone = Room(pk=room.pk + 10_000, version=3)
    with pytest.raises(DatabaseError, match="the update affected 0 rows"):
        with transaction.atomic(), held_writes():
            _write_a_move(room, hand)
            update_fields(gone, ("version",))
    assert (Room.objects.get(pk=room.pk).version, Hand.objects.get(pk=hand.pk).version,
            HandEvent.objects.filter(hand=hand).count()) == before


def test_an_error_in_the_block_keeps_nothing_and_the_next_block_writes(dealt):
    room, hand = dealt
    version = Room.objects.get(pk=room.pk).version
    with pytest.raises(RuntimeError):
        with transaction.atomic(), held_writes():
            room.version += 1
            update_fields(room, ("version",))
            raise RuntimeError("a bug after the write")
    assert Room.objects.get(pk=room.pk).version == version
    room.version = version + 1
    with transaction.atomic(), held_writes():
        update_fields(room, ("version",))
    assert Room.objects.get(pk=room.pk).version == version + 1


def test_a_savepoint_rolled_back_takes_its_writes_with_it(dealt):
    room, hand = dealt
    with transaction.atomic(), held_writes():
        hand.version += 1
        insert(_log_row(hand, hand.version, "kept"))
        try:
            with transaction.atomic():
                insert(_log_row(hand, hand.version + 1, "undone"))
                raise RuntimeError("rolled back to the savepoint")
        except RuntimeError:
            pass
    tags = list(HandEvent.objects.filter(hand=hand, seq__gte=hand.version).values_list("action", flat=True))
    assert tags == [{"kind": "kept"}]


def test_outside_a_transaction_each_write_runs_at_once(dealt):
    room, _hand = dealt
    room.version += 1
    with held_writes():
        update_fields(room, ("version",))
        assert Room.objects.get(pk=room.pk).version == room.version


def test_moves_through_the_service_store_a_log_that_replays(dealt):
    """The socket's path (services.handle -> play_current, in the block): every move's log row,
    the hand's version and the room's version are stored, and the log replays to the state the
    service holds."""
    from games.services import handstate

    room, hand = dealt
    room_version = Room.objects.get(pk=room.pk).version
    played = 12
    hand = play_moves(room, hand, users_by_position(room), played, random.Random(7))
    assert hand.status == Hand.PLAYING
    seqs = list(HandEvent.objects.filter(hand=hand).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, hand.version + 1)) and hand.version >= played
    assert Room.objects.get(pk=room.pk).version >= room_version + played
    assert handstate.replay_log(hand) == services.hand_state(hand)
