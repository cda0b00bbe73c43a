"""Replay generation benchmark (not a test): how long games.replays.build takes per hand.

    python bench/replay.py            (or: make bench)

Sets Django up on an in-memory SQLite test database (in-memory channel layer, eager Celery),
plays N_HANDS seeded 4-player hands through games.services (every win taken; in half the hands
any other legal move at random — long hands, mostly drawn — in the other half claims now and then
and mostly the discard tests/e2e_policy.py picks — shorter, won, settled), then times games.replays.build — load the hand and its log, re-run the
engine from the inputs, compare every event, the result and the beans owed, store the replay —
REPEAT times per hand. Also timed: the viewer's re-run of every frame (games.replay_frames.run)
and one server-rendered viewer page. Goal: build under 100 ms median.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time

BASE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, BASE_DIR)

N_HANDS = 30
REPEAT = 5
SEED = 20240611
GOAL_MS = 100.0

_tmp = tempfile.mkdtemp(prefix="bench-replay-")
os.environ.update(
    DJANGO_SETTINGS_MODULE="mahjong_site.settings",
    DATABASE_URL=f"sqlite:///{os.path.join(_tmp, 'unused.sqlite3')}",  # the test database is in memory
    VAR_DIR=_tmp,
    CHANNEL_LAYER="memory",
    CELERY_TASK_ALWAYS_EAGER="1",
    LOG_LEVEL="WARNING",
)


def pct(values, q):
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def ms(seconds):
    return seconds * 1000.0


def line(label, samples):
    print(f"  {label:<44} median {statistics.median(samples):7.2f} ms   p90 {pct(samples, 0.9):7.2f} ms   "
          f"max {max(samples):7.2f} ms   (n={len(samples)})")


def mixed_policy(rng):
    """Every win; a third of the other claims; mostly the shaped discard, one in five random."""
    from games.engine import game as engine
    from tests.e2e_policy import choose_discard

    def policy(state, p):
        acts = engine.legal_actions(state, p)
        wins = [a for a in acts if a.kind == "win"]
        if wins:
            return wins[0]
        if state.phase == engine.CLAIM:
            claims = [a for a in acts if a.kind != "pass"]
            return rng.choice(claims) if claims and rng.random() < 0.33 else engine.Action("pass", p)
        if rng.random() < 0.2:
            return rng.choice([a for a in acts if a.kind == "discard"])
        return engine.Action("discard", p, choose_discard(state.hands[p], state.wild))

    return policy


def play_hands(n_hands):
    from django.contrib.auth import get_user_model

    from accounts.models import Profile
    from games import services
    from games.models import Hand
    from tests.replay_helpers import fixed_seeds, play_hand, start_hand, users_by_position

    rng = random.Random(SEED)
    fixed_seeds(None, [rng.getrandbits(56) for _ in range(n_hands)])
    users = []
    for i in range(4):
        user = get_user_model().objects.create_user(f"bench{i}", password="bench-password-1")
        Profile.objects.create(user=user, nickname=f"玩家{i}")
        users.append(user)
    hands = []
    while len(hands) < n_hands:
        room = services.create_room(users[0], players=4, length=16)
        for u in users[1:]:
            services.join_room(u, room.token)
        by_pos = users_by_position(room)
        for number in range(1, 17):
            if len(hands) == n_hands:
                break
            hand = start_hand(room, number)
            hand_rng = random.Random(rng.random())
            if len(hands) % 2:
                hands.append(play_hand(hand, by_pos, rng=hand_rng))
            else:
                hands.append(play_hand(hand, by_pos, policy=mixed_policy(hand_rng)))
    assert all(h.status == Hand.ENDED for h in hands)
    return hands


def main():
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)

    from games import replay_frames, replays
    from games.models import Replay

    print("Replay generation benchmark (bench/replay.py)")
    print(f"  database: {connection.vendor} (in-memory test database); Python {sys.version.split()[0]}")
    started = time.perf_counter()
    hands = play_hands(N_HANDS)
    won = sum(1 for h in hands if h.result["winner"] is not None)
    actions = [h.version for h in hands]
    print(f"  played {len(hands)} seeded 4-player hands through games.services in {time.perf_counter() - started:.1f} s: "
          f"{won} won, {len(hands) - won} drawn; actions per hand median {statistics.median(actions):.0f}, "
          f"min {min(actions)}, max {max(actions)}")

    builds, per_hand = [], []
    for hand in hands:
        samples = []
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            replay = replays.build(hand.pk)
            samples.append(ms(time.perf_counter() - t0))
            assert replay is not None and replay.status == Replay.OK, replay and replay.problem
        builds += samples
        per_hand.append(statistics.median(samples))

    frames = []
    for hand in hands:
        record = Replay.objects.get(hand=hand).data
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            run = replay_frames.run(record)
            frames.append(ms(time.perf_counter() - t0))
            assert run.last == hand.version

    client = Client()
    pages = []
    for hand in hands[:10]:
        replay = Replay.objects.get(hand=hand)
        for step in (0, hand.version // 2, hand.version):
            replay_frames.clear_cache()  # a cold viewer: the frames are re-run for the page
            t0 = time.perf_counter()
            response = client.get(f"/replay/{replay.token}/?step={step}")
            pages.append(ms(time.perf_counter() - t0))
            assert response.status_code == 200

    print()
    print(f"games.replays.build ({REPEAT} builds per hand, {len(builds)} in all):")
    line("every build", builds)
    line("per hand (median of its builds)", per_hand)
    print("viewer:")
    line("replay_frames.run (every frame of a hand)", frames)
    line("GET /replay/<token>/?step=k (cold cache)", pages)
    median = statistics.median(builds)
    verdict = "OK" if median < GOAL_MS else "TOO SLOW"
    print()
    print(f"RESULT: replay build median {median:.2f} ms, p90 {pct(builds, 0.9):.2f} ms "
          f"(goal: median under {GOAL_MS:.0f} ms) -> {verdict}")
    connection.creation.destroy_test_db(":memory:", verbosity=0)
    return 0 if median < GOAL_MS else 1


if __name__ == "__main__":
    sys.exit(main())
