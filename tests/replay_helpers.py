"""Finished hands for the replay and history tests (and bench/replay.py, tests/e2e_replay_data.py).

`play_hand(hand, users)` plays a dealt hand to its end through games.services, the one path that
changes a game: every win is taken; otherwise `rng` (when given) picks any legal move, else the
deterministic policy of tests/e2e_policy.py (pass every claim, discard by shape).
"""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.engine import game as engine
from games.engine.tiles import face_name
from games.models import Hand, Seat
from tests.e2e_policy import choose_discard
from tests.people import make_person

# 2 players, policy play. SEED_GUEST_WINS: the non-dealer wins on the dealer's discard (60 胡,
# 52 actions); SEED_SELF_DRAWN: the non-dealer wins by self-draw (12 胡, 28 actions).
SEED_GUEST_WINS = 6
SEED_SELF_DRAWN = 1


def command_for(action: engine.Action) -> dict:
    cmd = {"action": action.kind}
    if action.tile is not None and action.kind in ("discard", "ckong", "akong"):
        cmd["tile"] = face_name(action.tile)
    if action.tiles:
        cmd["tiles"] = [face_name(t) for t in action.tiles]
    if action.value is not None:
        cmd["value"] = action.value  # an answer to a question before the hand (买底/顶底)
    return cmd


def choose(state, p, rng=None) -> engine.Action:
    acts = engine.legal_actions(state, p)
    wins = [a for a in acts if a.kind == "win"]
    if wins:
        return wins[0]
    if rng is not None:
        return rng.choice(acts)
    if state.phase == engine.CLAIM:
        return engine.Action("pass", p)
    if state.phase == engine.DECIDE:
        return acts[0]  # the default answer (never buy / never top)
    allowed = [a.tile for a in acts if a.kind == "discard"]
    choice = choose_discard(state.hands[p], state.wild)
    if choice not in allowed:  # the rules forbid it now (Wenzhou: a lone honour first, a wild): the last allowed
        choice = allowed[-1]
    return engine.Action("discard", p, choice)


def play_hand(hand: Hand, users: dict, rng=None, limit: int = 2000, policy=None, stop_before_win=False):
    """THE "play this hand to the end" helper of the tests: through services.play, the one path
    that changes a game; returns the hand refreshed. `policy(state, p)` (an engine Action)
    replaces the default choice when given. With `stop_before_win`, returns (hand, position,
    command) for the first winning action instead of playing it (or the hand if nobody won)."""
    for _ in range(limit):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            return hand
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        action = policy(state, p) if policy is not None else choose(state, p, rng)
        if stop_before_win and action.kind == "win":
            return hand, p, command_for(action)
        out = services.play(hand.pk, users[p], command_for(action), hand.version)
        assert out.ok, out.error
    raise AssertionError("the hand did not end")


def play_moves(room, hand: Hand, users: dict, moves: int, rng=None) -> Hand:
    """`moves` moves of the hand in play through the socket's path (services.handle with the
    version and the hand the player saw); returns the hand refreshed."""
    for _ in range(moves):
        hand.refresh_from_db()
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        out = services.handle(room.pk, users[p], {**command_for(choose(state, p, rng)), "v": hand.version, "h": hand.pk})
        assert out.ok, out
    hand.refresh_from_db()
    return hand


def users_by_position(room) -> dict:
    return {s.position: s.user for s in Seat.objects.filter(room=room).select_related("user")}


def start_hand(room, number: int | None = None) -> Hand:
    """Everyone presses Ready: the next hand is dealt."""
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    hands = Hand.objects.filter(game__room=room).order_by("-number")
    return hands.first() if number is None else hands.get(number=number)


def fixed_seeds(monkeypatch_or_none, seeds):
    """Make the walls of the next hands come from `seeds` (in order), first dealer position 0.

    With a pytest monkeypatch the change is undone after the test; with None it stays (scripts)."""
    seeds = list(seeds)

    def new_seed(room_id, number):
        return seeds[(number - 1) % len(seeds)]

    def first_dealer(room):
        return 0

    if monkeypatch_or_none is None:
        services.dealing.new_seed = new_seed
        services.dealing.first_dealer = first_dealer
    else:
        monkeypatch_or_none.setattr(services.dealing, "new_seed", new_seed)
        monkeypatch_or_none.setattr(services.dealing, "first_dealer", first_dealer)


# --- who: people are made by tests/people.py; the fixtures host, guest, outsider, staff are shared (conftest)


def make_user(name, **extra):
    return make_person(name, **extra)


def client_for(user=None):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client
