"""The process cache of hand states holds only committed states.

A move whose transaction fails (here: an error at the end of the transaction, as SQLite's
"database is locked" at commit did) must leave nothing behind; when another process then commits
a different move at that version, this process must see the committed one. The check: after every
accepted move, this process's state equals the state replayed from the committed log. The same
check run with the old behaviour (cache filled inside the transaction) trips, so it can fail."""

import random

import pytest
from django.db import DatabaseError

from games import services
from games.engine import game as engine
from games.models import Hand

from tests.replay_helpers import command_for

pytestmark = pytest.mark.django_db(transaction=True)


def _old_remember(hand_id, version, state):
    """What services did before: cache at once, even inside a transaction that may fail."""
    services.handstate._put(hand_id, version, state)


def _committed_state(hand):
    hand.refresh_from_db()
    return services.handstate.replay_log(hand)


def _scenario(monkeypatch, users, hand, rng):
    """Fail one move's commit, let 'another process' commit a different move at that version,
    then play on; returns how many accepted moves disagreed with the committed log."""
    hand.refresh_from_db()
    state = services.hand_state(hand)
    p = engine.waiting_player(state)[0]
    acts = engine.legal_actions(state, p)
    assert len(acts) > 1
    mine, theirs = acts[0], acts[-1]

    real_bump = services.notify.bump

    def failing_bump(room, **kwargs):
        raise DatabaseError("database is locked")

    monkeypatch.setattr(services.notify, "bump", failing_bump)
    with pytest.raises(DatabaseError):
        services.play(hand.pk, users[p], command_for(mine), hand.version)
    monkeypatch.setattr(services.notify, "bump", real_bump)
    hand.refresh_from_db()
    assert hand.version == state.step  # the failed move left no trace in the database

    # another process (its own cache) commits a different move at that version
    ours = services.handstate._cache
    monkeypatch.setattr(services.handstate, "_cache", {})
    assert services.play(hand.pk, users[p], command_for(theirs), hand.version).ok
    monkeypatch.setattr(services.handstate, "_cache", ours)

    disagreements = 0
    for _ in range(400):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        seen = services.hand_state(hand)
        q = engine.waiting_player(seen)[0]
        acts = engine.legal_actions(seen, q)
        wins = [a for a in acts if a.kind == "win"]
        action = wins[0] if wins else rng.choice(acts)
        out = services.play(hand.pk, users[q], command_for(action), hand.version)
        if not out.ok:
            disagreements += 1  # this process offered a move the real hand refuses
            break
        try:
            committed = _committed_state(hand)
        except RuntimeError:  # an illegal move was stored: the log no longer replays
            disagreements += 1
            break
        if services.hand_state(Hand.objects.get(pk=hand.pk)) != committed:
            disagreements += 1
            break
    return disagreements


@pytest.fixture
def dealt(settings):
    from tests.room_helpers import make_room

    settings.GAME_SEED_BASE = "cache"
    room, users = make_room(players=4, length=4)
    for user in users.values():
        services.set_ready(user, room.pk)
    return users, Hand.objects.get(game__room=room, number=1)


def _advance_to_a_choice(users, hand, rng):
    """Play a few moves so the cache is warm and the player in turn has a real choice."""
    for _ in range(6):
        hand.refresh_from_db()
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        action = rng.choice(engine.legal_actions(state, p))
        assert services.play(hand.pk, users[p], command_for(action), hand.version).ok


def test_a_failed_commit_leaves_nothing_in_the_cache(monkeypatch, dealt):
    users, hand = dealt
    rng = random.Random(3)
    _advance_to_a_choice(users, hand, rng)
    assert _scenario(monkeypatch, users, hand, rng) == 0
    hand.refresh_from_db()
    # the whole stored log replays (nothing illegal was accepted)
    assert services.handstate.replay_log(hand).step == hand.version


def test_the_check_catches_a_cache_filled_inside_the_transaction(monkeypatch, dealt):
    users, hand = dealt
    rng = random.Random(3)
    _advance_to_a_choice(users, hand, rng)
    monkeypatch.setattr(services.handstate, "remember", _old_remember)
    assert _scenario(monkeypatch, users, hand, rng) > 0


def test_another_process_moving_on_is_caught_up_from_the_log(monkeypatch, dealt):
    """The cache has version v; another process committed v+1..v+k: only those actions are
    applied, and the result equals a full replay."""
    users, hand = dealt
    rng = random.Random(11)
    _advance_to_a_choice(users, hand, rng)
    hand.refresh_from_db()
    services.hand_state(hand)
    ours = services.handstate._cache
    monkeypatch.setattr(services.handstate, "_cache", {})
    _advance_to_a_choice(users, hand, rng)  # "another process"
    monkeypatch.setattr(services.handstate, "_cache", ours)
    hand.refresh_from_db()
    caught_up = services.hand_state(hand)
    assert caught_up == _committed_state(hand)
    assert ours[hand.pk][0] == hand.version
