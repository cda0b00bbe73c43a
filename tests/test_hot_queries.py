"""The move's reads compiled once (games/hot_queries.py) give exactly what the ORM gives: the same
rows in the same order, every column, the select_related game, the annotation; keys in the right
places; the row locks only inside a transaction; a compile per thread. Its writes store what the
ORM's save and create store. On SQLite here and on PostgreSQL in CI's second pass."""

import random
import threading

import pytest
from django.db import DatabaseError, IntegrityError, connection, connections, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from games import services, table
from games.hot_queries import Prepared, hot_cursor, insert, update_fields
from games.models import Hand, HandEvent, Room, Seat
from games.services import handstate, moves

from replay_helpers import play_moves, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)


def columns(obj):
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def loaded(obj):
    """The columns an instance holds (a deferred one is not read)."""
    deferred = obj.get_deferred_fields()
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields if f.attname not in deferred}


@pytest.fixture
def playing():
    """A four-seat room some moves into its first hand: (room, hand, users)."""
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    for user in users.values():
        services.set_ready(user, room.pk)
    hand = play_moves(room, Hand.objects.get(game__room=room, number=1), users, 9, random.Random(2))
    assert hand.status == Hand.PLAYING and hand.version >= 9
    return room, hand, users


def test_the_locked_room_and_hand_are_the_orms(playing):
    room, hand, _users = playing
    with transaction.atomic():
        got_room, got_hand = handstate.lock_room_and_current_hand(room.pk)
        orm_room = Room.objects.select_for_update(of=("self",)).get(pk=room.pk)
        orm_hand = (Hand.objects.select_for_update(of=("self",)).select_related("game")
                    .filter(game__room_id=room.pk, status=Hand.PLAYING).order_by("-number").first())
    assert type(got_room) is Room and columns(got_room) == columns(orm_room)
    assert got_hand.pk == orm_hand.pk and columns(got_hand) == columns(orm_hand)
    assert columns(got_hand.game) == columns(orm_hand.game)  # select_related: no query for it
    assert got_hand.game.room is got_room
    assert not got_room._state.adding and got_room._state.db == "default"  # saves as an UPDATE


def test_a_room_with_no_hand_in_play_and_a_missing_room(playing):
    room, hand, _users = playing
    Hand.objects.filter(pk=hand.pk).update(status=Hand.ENDED)
    with transaction.atomic():
        assert handstate.lock_room_and_current_hand(room.pk)[1] is None
        with pytest.raises(Room.DoesNotExist):
            handstate.locked_room(room.pk + 10_000)


def test_the_seats_with_their_frozen_flag_are_the_orms(playing):
    room, _hand, users = playing
    profile = users[2].profile
    profile.frozen = True
    profile.save(update_fields=["frozen"])
    with CaptureQueriesContext(connection) as queries:
        got = moves.room_seats(room)
        [s.room for s in got]  # the room is set on each seat: no query
    assert len(queries) == 1
    orm = list(room.seats.annotate(frozen_user=F("user__profile__frozen")))
    assert [columns(s) for s in got] == [columns(s) for s in orm]
    assert [s.frozen_user for s in got] == [s.frozen_user for s in orm] == [False, False, True, False]
    assert all(s.room is room for s in got)


def test_a_bot_seat_has_no_frozen_flag_and_the_read_does_not_join_every_user(playing):
    """The flag comes from the profile by the seat's user id: NULL for a bot's seat, as the ORM's
    join gives; and auth_user is not in the statement (a prepared statement's generic plan on
    PostgreSQL hashed that join over a scan of all users)."""
    room, _hand, users = playing
    seat = Seat.objects.get(room=room, user=users[3])
    Seat.objects.filter(pk=seat.pk).update(user=None, bot=True)
    got = moves.room_seats(room)
    orm = list(room.seats.annotate(frozen_user=F("user__profile__frozen")))
    assert [columns(s) for s in got] == [columns(s) for s in orm]
    assert [s.frozen_user for s in got] == [s.frozen_user for s in orm] == [False, False, False, None]
    with CaptureQueriesContext(connection) as queries:
        moves.room_seats(room)
    assert "auth_user" not in queries[0]["sql"] and "accounts_profile" in queries[0]["sql"]


def test_the_snapshot_reads_are_the_orms(playing):
    _room, hand, _users = playing
    assert columns(table._HAND.first(hand.pk)) == columns(Hand.objects.get(pk=hand.pk))
    assert table._HAND.first(hand.pk + 10_000) is None
    orm = list(HandEvent.objects.filter(hand=hand).order_by("-seq").only("action", "events", "auto", "seq")[:12])
    got = table._RECENT_ROWS.all(hand.pk, hand.version)
    assert [loaded(e) for e in got] == [loaded(e) for e in orm] and len(got) == 9
    assert [e.seq for e in table._RECENT_ROWS.all(hand.pk, 5)] == [5, 4, 3, 2, 1]
    between = table._NEWER_ROWS.all(hand.pk, 3, 7)
    assert [loaded(e) for e in between] == [loaded(e) for e in HandEvent.objects.filter(
        hand=hand, seq__gt=3, seq__lte=7).order_by("-seq").only("action", "events", "auto", "seq")]
    assert [e.seq for e in between] == [7, 6, 5, 4]
    newer = handstate._NEWER_EVENTS.all(hand.pk, 3, 7)
    assert [columns(e) for e in newer] == [columns(e) for e in HandEvent.objects.filter(
        hand=hand, seq__gt=3, seq__lte=7).order_by("seq")]
    assert [e.seq for e in newer] == [4, 5, 6, 7]


def test_the_reads_between_hands_are_the_orms(playing):
    """The 准备 presses' reads (the latest hand, the frozen flag) and the snapshot's (the latest
    hand with its game and room, the seats with their users and profiles)."""
    room, hand, users = playing
    Hand.objects.filter(pk=hand.pk).update(status=Hand.ENDED)  # on the result screen
    room = Room.objects.get(pk=room.pk)
    with CaptureQueriesContext(connection) as queries:
        latest = handstate.current_hand(room)
        latest.game.room  # attached: no query
    assert len(queries) == 1
    orm = room.game.hands.order_by("-number").first()
    assert columns(latest) == columns(orm) and columns(latest.game) == columns(orm.game)
    assert latest.game is room.game  # the room's own game object, as room.game.hands gave it
    fresh = Room.objects.get(pk=room.pk)  # no game cached on it
    latest = handstate.current_hand(fresh)
    assert latest.game.room is fresh and fresh.game is latest.game  # kept on the room too
    assert handstate.current_hand(Room(pk=room.pk + 10_000)) is None and handstate.current_hand(Room()) is None

    got = table._SNAPSHOT_HAND.first(room.pk)
    orm = Hand.objects.filter(game__room_id=room.pk).select_related("game__room").order_by("-number").first()
    assert columns(got) == columns(orm) and columns(got.game) == columns(orm.game)
    assert columns(got.game.room) == columns(orm.game.room)
    assert table._SNAPSHOT_HAND.first(room.pk + 10_000) is None
    users[1].profile.nickname = "东风"
    users[1].profile.save(update_fields=["nickname"])
    got = table._SNAPSHOT_SEATS.all(room.pk)
    orm = list(room.seats.select_related("user", "user__profile"))
    assert [columns(s) for s in got] == [columns(s) for s in orm] and [s.position for s in got] == [0, 1, 2, 3]
    assert [columns(s.user) for s in got] == [columns(s.user) for s in orm]
    assert [columns(s.user.profile) for s in got] == [columns(s.user.profile) for s in orm]
    assert [table.display_name(s.user) for s in got][1] == "东风"

    from games.services.safety import is_frozen

    assert not any(is_frozen(u) for u in users.values())
    users[3].profile.frozen = True
    users[3].profile.save(update_fields=["frozen"])
    assert [is_frozen(users[p]) for p in range(4)] == [False, False, False, True]
    assert not is_frozen(None)


def test_a_lock_outside_a_transaction_is_refused():
    prepared = Prepared(lambda pk: Room.objects.select_for_update().filter(pk=pk))
    if not connection.features.has_select_for_update:
        pytest.skip("this database has no row locks (SQLite)")
    with pytest.raises(RuntimeError):
        prepared.first(1)


def test_a_key_must_have_one_place():
    prepared = Prepared(lambda pk: Room.objects.filter(pk=pk) | Room.objects.filter(host_id=pk))
    with pytest.raises(ValueError):
        prepared.all(1)


def test_each_thread_compiles_its_own(playing):
    room, _hand, _users = playing
    prepared = Prepared(lambda room_id: Seat.objects.filter(room_id=room_id))
    assert [s.position for s in prepared.all(room.pk)] == [0, 1, 2, 3]
    seen = []

    def other():
        try:
            seen.append([s.position for s in prepared.all(room.pk)])
        finally:
            connection.close()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [[0, 1, 2, 3]]
    assert prepared._local.compiled["compiler"].connection is connections["default"]  # this thread's


def test_the_hot_cursor_is_kept_per_connection_and_not_while_queries_are_counted(playing):
    room, _hand, _users = playing
    seats = Prepared(lambda room_id: Seat.objects.filter(room_id=room_id))
    assert [s.position for s in seats.all(room.pk)] == [0, 1, 2, 3]
    kept = hot_cursor(connection)
    with kept as cursor:
        driver = cursor.cursor
    assert [s.position for s in seats.all(room.pk)] == [0, 1, 2, 3]
    assert hot_cursor(connection) is kept and not getattr(driver, "closed", False)  # one driver cursor, left open
    with CaptureQueriesContext(connection) as counted:  # Django's cursor: every statement counted
        assert hot_cursor(connection) is not kept
        seats.all(room.pk)
        update_fields(room, ("version",))
    assert len(counted.captured_queries) == 2
    connection.close()  # a new connection, a new cursor: never one of a closed connection
    assert [s.position for s in seats.all(room.pk)] == [0, 1, 2, 3]
    assert hot_cursor(connection) is not kept
    with hot_cursor(connection) as cursor:
        assert cursor.cursor is not driver


def test_the_prepared_writes_store_what_the_orm_stores(playing):
    _room, hand, _users = playing
    # the log row: every column as Manager.create writes it (JSON, the flag, created_at's auto_now_add)
    action, events = {"kind": "discard", "seat": 1, "tile": "5p"}, [{"type": "discard", "seat": 1, "tile": "5p"}]
    with transaction.atomic():
        insert(HandEvent(hand=hand, seq=900, action=action, events=events, auto=True))
        orm = HandEvent.objects.create(hand=hand, seq=901, action=action, events=events, auto=True)
    mine = HandEvent.objects.get(hand=hand, seq=900)
    orm.refresh_from_db()
    assert {**columns(mine), "id": None, "seq": None, "created_at": None} == \
        {**columns(orm), "id": None, "seq": None, "created_at": None}
    assert abs((orm.created_at - mine.created_at).total_seconds()) < 5 and mine.created_at.tzinfo is not None
    with pytest.raises(IntegrityError), transaction.atomic():  # one row per (hand, seq), as with create
        insert(HandEvent(hand=hand, seq=900, action=action, events=events))
    # the hand's version and deadline, and nothing else, as save(update_fields=...) writes them
    before = columns(Hand.objects.get(pk=hand.pk))
    hand.version += 5
    hand.deadline = hand.deadline.replace(microsecond=123456) if hand.deadline else None
    hand.status = Hand.VOID  # not among the fields: not written
    update_fields(hand, ("version", "deadline"))
    after = columns(Hand.objects.get(pk=hand.pk))
    assert after == {**before, "version": hand.version, "deadline": hand.deadline}
    room = Room.objects.get(pk=hand.game.room_id)
    room.version += 1
    update_fields(room, ("version",))
    assert Room.objects.get(pk=room.pk).version == room.version
    with pytest.raises(DatabaseError):  # a row that is gone, as save(update_fields=...) refuses
        update_fields(Room(pk=987654, version=1), ("version",))
