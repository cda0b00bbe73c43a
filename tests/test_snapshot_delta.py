"""A player's move is announced as `hand_move` (games.services.notify) and each process brings its
room snapshot of the version before forward by reading the hand alone (games.table
_advance_snapshot). The snapshot so made must equal one read from scratch at every move of whole
hands; every other change (the hand's end, a timeout's 托管, a seat going 托管, readiness) is
announced without it and read in full — except, in the process that committed it, a 准备 press
that changed nothing but its seat's flag (_advance_ready)."""

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services, table
from games.engine import game as engine
from games.models import Hand, Room
from games.services import notify

from replay_helpers import choose, command_for, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def announced(monkeypatch):
    """Every room.updated message sent after a commit: [(version, hand_move)]."""
    sent = []
    real = notify.send

    def record(group, version, hand_move=None):
        sent.append((version, hand_move))
        return real(group, version, hand_move)

    monkeypatch.setattr(notify, "send", record)
    return sent


def same(a, b):
    """Two snapshots hold the same committed rows."""
    assert a.key == b.key
    assert a.phase == b.phase and a.names == b.names and a.online == b.online and a.watchers == b.watchers
    assert a.near_meters == b.near_meters and a.game_beans == b.game_beans and a.moves == b.moves
    assert a.state == b.state
    for x, y in ((a.room, b.room), (a.game, b.game), (a.hand, b.hand)):
        assert (x is None) == (y is None)
        if x is None:  # no game yet
            continue
        fields = [f.attname for f in type(x)._meta.concrete_fields]
        assert {f: getattr(x, f) for f in fields} == {f: getattr(y, f) for f in fields}, type(x).__name__
    if a.hand is not None:
        assert a.hand.game.room.version == b.hand.game.room.version == a.room.version
    seat = [f.attname for f in a.seat_rows[0]._meta.concrete_fields]
    assert [{f: getattr(s, f) for f in seat} for s in a.seat_rows] == [{f: getattr(s, f) for f in seat} for s in b.seat_rows]


def dealt_room():
    """A four-player room, everyone ready: hand 1 dealt. (room, {position: user})"""
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    for user in users.values():
        services.set_ready(user, room.pk)
    return room, users


def started(settings, seed):
    """A dealt room with no snapshot kept: (room, users, hand 1, the snapshot read now)."""
    settings.GAME_SEED_BASE = seed
    room, users = dealt_room()
    hand = Hand.objects.get(game__room=room, number=1)
    table.clear_caches()
    return room, users, hand, table.room_snapshot(room.pk)


def _waiting(state):
    return engine.waiting_player(state)


def play_one(hand, users, rng):
    """One move of the first seat the hand waits on, through the socket's entry point."""
    state = services.hand_state(hand)
    p = _waiting(state)[0]
    command = command_for(choose(state, p, rng))
    out = services.handle(hand.game.room_id, users[p], {**command, "v": hand.version, "h": hand.pk})
    assert out.ok, out


def test_a_moved_snapshot_equals_a_fresh_read_at_every_move(settings, announced):
    settings.GAME_SEED_BASE = "snapshot-delta"
    room, users = dealt_room()
    rng = random.Random(5)
    moved = 0
    hand = Hand.objects.get(game__room=room, number=1)
    while True:
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        table.clear_caches()
        before = table.room_snapshot(room.pk)  # this process's snapshot of the version before
        announced.clear()
        play_one(hand, users, rng)
        assert len(announced) == 1
        version, hand_move = announced[0]
        assert version == before.key[0] + 1
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            assert hand_move is None  # the hand's end changes the game, beans, the result
            break
        assert hand_move == hand.pk
        with CaptureQueriesContext(connection) as queries:
            advanced = table.room_snapshot(room.pk, at_least=version, hand_move=hand_move)
        assert not any("games_seat" in q["sql"] or "games_room" in q["sql"] for q in queries.captured_queries)
        same(advanced, table._build_snapshot(room.pk))
        moved += 1
    assert moved > 20


@pytest.mark.parametrize("process", ["the mover's", "another"])
def test_snapshots_moved_one_after_another_through_a_hand_equal_fresh_reads(settings, announced, process):
    """As a process serving the room does: each snapshot is brought forward from the one before,
    never read afresh. The mover's process takes the hand row and log rows its move wrote
    (services.handstate.committed_move) and reads nothing; another process reads the hand row and
    the log's newest rows on top of the ones it kept."""
    settings.GAME_SEED_BASE = "snapshot-delta-chain"
    room, users = dealt_room()
    rng = random.Random(11)
    hand = Hand.objects.get(game__room=room, number=1)
    table.clear_caches()
    table.room_snapshot(room.pk)
    moved = 0
    while True:
        announced.clear()
        play_one(hand, users, rng)
        version, hand_move = announced[-1]
        hand.refresh_from_db()
        if hand_move is None:
            break
        if process == "another":
            services.handstate.forget_moves()  # what another process has: nothing of this move
        with CaptureQueriesContext(connection) as queries:
            advanced = table.room_snapshot(room.pk, at_least=version, hand_move=hand_move)
        if process == "another":
            assert [q["sql"].split('"')[1] for q in queries.captured_queries] == ["games_hand", "games_handevent"]
        else:
            assert not queries.captured_queries
        same(advanced, table._build_snapshot(room.pk))
        assert len(advanced.moves) == min(hand.version, table.RECENT)
        moved += 1
    assert moved > 20


def test_a_snapshot_not_just_before_is_read_in_full(settings, announced):
    room, users, hand, old = started(settings, "snapshot-delta-gap")
    rng = random.Random(1)
    for _ in range(2):  # two moves: the cached snapshot is two versions behind
        hand.refresh_from_db()
        play_one(hand, users, rng)
    version, hand_move = announced[-1]
    assert hand_move == hand.pk and version == old.key[0] + 2
    with CaptureQueriesContext(connection) as queries:
        snap = table.room_snapshot(room.pk, at_least=version, hand_move=hand_move)
    assert any("games_seat" in q["sql"] for q in queries.captured_queries)  # read in full
    same(snap, table._build_snapshot(room.pk))


def test_changes_beside_a_move_are_announced_in_full(settings, announced):
    settings.GAME_SEED_BASE = "snapshot-delta-other"
    settings.BOT_DELAY_SECONDS = 0
    room, users = dealt_room()
    assert all(m is None for _v, m in announced)  # readiness and the deal
    announced.clear()
    hand = Hand.objects.get(game__room=room, number=1)
    waiting = _waiting(services.hand_state(hand))[0]
    services.set_auto_play(users[waiting], room.pk, True)  # a seat goes 托管
    assert announced and all(m is None for _v, m in announced)
    announced.clear()
    hand.refresh_from_db()
    version = hand.version
    Hand.objects.filter(pk=hand.pk).update(deadline=hand.deadline.replace(year=2000))
    assert services.timeout(hand.pk, version).ok  # the 托管 seat's move comes through the timeout
    hand.refresh_from_db()
    assert hand.version > version
    assert announced and all(m is None for _v, m in announced)
    assert max(v for v, _m in announced) == Room.objects.get(pk=room.pk).version


def test_a_move_that_does_not_commit_leaves_nothing_to_render_from(settings, announced):
    """What a move wrote is kept for the renders only once it commits: a move rolled back (here by
    an error after it, in the same transaction) leaves the process reading the database."""
    from django.db import transaction

    room, users, hand, before = started(settings, "snapshot-delta-rollback")
    rng = random.Random(3)
    with pytest.raises(RuntimeError), transaction.atomic():
        play_one(hand, users, rng)
        raise RuntimeError("after the move, before the commit")
    assert services.handstate.committed_move(room.pk, before.key[0] + 1, hand.pk, hand.version) is None
    assert Room.objects.get(pk=room.pk).version == before.key[0]
    hand.refresh_from_db()
    play_one(hand, users, random.Random(4))  # a different move takes that version for real
    version, hand_move = announced[-1]
    assert version == before.key[0] + 1
    kept = services.handstate.committed_move(room.pk, version, hand.pk, hand.version)
    assert kept is not None and [row[3] for row in kept[1]][-1] == hand.version + 1
    same(table.room_snapshot(room.pk, at_least=version, hand_move=hand_move), table._build_snapshot(room.pk))


def pressed(room, user, announced, ready=True):
    """user presses 准备 (or takes it back): the version it announced (once: a press that deals
    is announced by the deal alone)."""
    announced.clear()
    services.set_ready(user, room.pk, ready)
    assert len(announced) == 1 and announced[0][1] is None
    return announced[0][0]


def advanced_without_reading(room, version):
    """The snapshot at `version` as this process brings it forward, checked to read nothing and to
    equal one read from scratch."""
    with CaptureQueriesContext(connection) as queries:
        snap = table.room_snapshot(room.pk, at_least=version)
    assert not queries.captured_queries
    assert snap.key[0] == version
    same(snap, table._build_snapshot(room.pk))
    return snap


def test_a_ready_press_brings_the_snapshot_forward_without_reading(settings, announced):
    """Before the first hand and on a result screen, a 准备 press that deals nothing changes one
    seat's flag: the presser's process renders the new version from the snapshot before
    (services.handstate.committed_ready); the press that deals is read in full."""
    settings.GAME_SEED_BASE = "snapshot-delta-ready"
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    table.clear_caches()
    table.room_snapshot(room.pk)
    for p in (0, 1, 2):
        snap = advanced_without_reading(room, pressed(room, users[p], announced))
        assert [s.ready for s in snap.seat_rows] == [s.position <= p for s in snap.seat_rows]
    snap = advanced_without_reading(room, pressed(room, users[1], announced, ready=False))  # taken back
    assert [s.ready for s in snap.seat_rows] == [True, False, True, False]
    pressed(room, users[1], announced)
    table.room_snapshot(room.pk, at_least=announced[0][0])
    version = pressed(room, users[3], announced)  # the last one: hand 1 is dealt
    assert services.handstate.committed_ready(room.pk, version) is None
    with CaptureQueriesContext(connection) as queries:
        snap = table.room_snapshot(room.pk, at_least=version)
    assert any("games_seat" in q["sql"] for q in queries.captured_queries)  # read in full
    assert snap.phase == table.PLAYING
    same(snap, table._build_snapshot(room.pk))

    hand = Hand.objects.get(game__room=room, number=1)
    rng = random.Random(2)
    while hand.status == Hand.PLAYING:
        play_one(hand, users, rng)
        hand.refresh_from_db()
    table.room_snapshot(room.pk)  # the result screen, as its sockets rendered it
    for p in (2, 0):  # nobody is online: the countdown, not the presses, deals the next hand
        snap = advanced_without_reading(room, pressed(room, users[p], announced))
        assert snap.phase == table.RESULT and {s.position for s in snap.seat_rows if s.ready} >= {p}


def test_a_ready_press_of_another_process_or_not_committed_is_read_in_full(settings, announced):
    from django.db import transaction

    settings.GAME_SEED_BASE = "snapshot-delta-ready-other"
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    table.clear_caches()
    before = table.room_snapshot(room.pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        services.set_ready(users[0], room.pk)
        raise RuntimeError("after the press, before the commit")
    assert services.handstate.committed_ready(room.pk, before.key[0] + 1) is None
    version = pressed(room, users[2], announced)
    services.handstate.forget_moves()  # what another process has: nothing of this press
    with CaptureQueriesContext(connection) as queries:
        snap = table.room_snapshot(room.pk, at_least=version)
    assert any("games_seat" in q["sql"] for q in queries.captured_queries)
    assert [s.ready for s in snap.seat_rows] == [False, False, True, False]
    same(snap, table._build_snapshot(room.pk))
