"""Fuzzing the room socket (games/consumers.py) of a running hand with hypothesis: malformed and
random frames (random JSON values, wrong types, huge strings, too-deep nesting, unknown actions,
random tiles, versions and hand ids, text that is not JSON, binary frames) sent by the seat that is
NOT in turn, so that no message may legally change anything. Every frame must get exactly one
error toast on the sender's socket, the socket must stay open, nothing may change (room and hand
versions, the hand log, the seats, alerts), and the other seat must receive nothing.

The sockets stay open across examples: hypothesis runs in a worker thread and drives the event loop
of the scenario (asyncio.run_coroutine_threadsafe).
"""

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings as hsettings
from hypothesis import strategies as st

from games import consumers
from games.engine.tiles import NUM_FACES, face_name
from games.models import Alert, HandEvent, Room, Seat, SocketPresence

from room_helpers import db, hand_snapshot, make_room, run, split_fragments, start

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = 400

TILES = [face_name(f) for f in range(NUM_FACES)] + ["0m", "10p", "8z", "5x", "", " 5p", "５p", "🀄"]
# What the seat that is not in turn may legally do during a hand: never generated (see below).
LEGAL_FOR_SENDER = {"dissolve", "auto_on", "auto_off", "location", "ping", "hints"}  # hints: my own, any time
NOT_AN_ACTION = (set(consumers.HAND_ACTIONS) | set(consumers.ROOM_ACTIONS)) - LEGAL_FOR_SENDER
FALSE_FLAGS = [False, "false", "0", 0, "off", "no", ""]
TRUE_FLAGS = {True, "true", "1", 1, "on", "yes", None}

json_scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-2**80, max_value=2**80)
                | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def frames(hand_id, version):
    versions = (st.sampled_from([version, str(version), version + 1, version - 1, -1, 0, 2**63, "", " 0 ", "²"])
                | json_values)
    hands = st.sampled_from([hand_id, str(hand_id), hand_id + 1, 0]) | json_values
    tiles = st.sampled_from(TILES) | st.text(max_size=6) | json_values
    actions = st.sampled_from(sorted(NOT_AN_ACTION)) | st.text(max_size=12).filter(lambda a: a not in LEGAL_FOR_SENDER) \
        | json_values.filter(lambda a: not (isinstance(a, str) and a in LEGAL_FOR_SENDER))
    optional = {"tile": tiles, "tiles": st.lists(tiles, max_size=3) | tiles, "v": versions, "h": hands,
                "position": json_values, "ready": json_values, "HEADERS": json_values, "lat": json_values,
                "lon": json_values, json.dumps("x"): json_values}
    hand_like = st.fixed_dictionaries({"action": actions}, optional=optional)
    # the legal-for-someone actions, only in shapes that must be refused to this seat now
    dissolve = st.fixed_dictionaries({"action": st.just("dissolve"), "agree": st.sampled_from(FALSE_FLAGS)
                                      | json_values.filter(lambda a: not _hashable_in(a, TRUE_FLAGS))})
    bad_coordinate = (json_values.filter(lambda v: not _coordinate_ok(v, 90))
                      | st.sampled_from([91, -90.01, "north", "nan", "inf", "1e400", True, None, [30], "", "９"]))
    location = st.fixed_dictionaries({"action": st.just("location"), "lat": bad_coordinate,
                                      "lon": st.floats(-180, 180) | json_values})
    messages = hand_like | dissolve | location
    text = (messages.map(json.dumps)
            | json_values.map(json.dumps)  # any JSON value at the top level
            | st.text(max_size=200)  # mostly not JSON
            | st.integers(consumers.MAX_MESSAGE + 1, 3 * consumers.MAX_MESSAGE).map(lambda n: "x" * n)
            | st.integers(consumers.MAX_MESSAGE // 2 + 1, consumers.MAX_MESSAGE).map(
                lambda n: "[" * (n // 2) + "]" * (n // 2))  # nested too deep for the JSON parser
            | st.integers(1, 50).map(lambda n: '{"action": "discard", "tile": "' + "中" * n * 80 + '"}'))
    return st.one_of(text.map(lambda t: ("text", t)), st.binary(max_size=64).map(lambda b: ("bytes", b)))


def _hashable_in(value, options):
    try:
        return value in options
    except TypeError:
        return False


def _coordinate_ok(value, limit):
    try:
        return bool(consumers._coordinate(value, limit) is not None)
    except consumers.BadMessage:
        return False


def snapshot(room_id, hand_id):
    room = Room.objects.get(pk=room_id)
    seats = list(Seat.objects.filter(room_id=room_id).order_by("position").values(
        "ready", "auto_play", "timeouts", "latitude", "longitude", "ip"))
    sockets = sorted(SocketPresence.objects.filter(room_id=room_id).values_list("channel_name", "seat_id", "seen_at"))
    return (room.version, room.status, room.dissolve_started_at, room.token, room.invite_revoked,
            HandEvent.objects.filter(hand_id=hand_id).count(), seats, sockets, Alert.objects.filter(room_id=room_id).count(),
            room.game.hands.get(pk=hand_id).version)


def test_random_frames_from_the_seat_not_in_turn_are_refused_to_it_alone(settings, monkeypatch):
    settings.GAME_SEED_BASE = "fuzz"
    # The parser is what is fuzzed, so the in-process layer: the many tiny receive_nothing() polls
    # below cancel pending reads, which leaves a Redis layer's connection half-read.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # the rate limit is tested elsewhere; here every frame must reach the parser
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1_000_000)
    room, users = make_room(players=2, length=4)
    # the longest turn: on a loaded machine the fuzzing outlasts 15 s, and a timeout's move would
    # reach the observer (an update that is not the fuzzer's doing)
    Room.objects.filter(pk=room.pk).update(turn_seconds=120, claim_seconds=60)

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        assert hand.version == 0 and state.phase == "discard"
        sender, observer = players[1 - state.turn], players[state.turn]
        before = await db(snapshot, room.pk, hand.pk)
        loop = asyncio.get_running_loop()
        sent = {"frames": 0}

        async def one_batch(batch):
            for kind, data in batch:
                # send_input, not send_to: an empty frame is a frame too
                await sender.comm.send_input({"type": "websocket.receive", kind: data})
                sent["frames"] += 1
                out = await sender.comm.receive_output(timeout=10)
                assert out["type"] == "websocket.send", (kind, data[:200], out)  # not closed
                parts = split_fragments(out["text"])
                assert set(parts) == {"toast"}, (kind, data[:200], out["text"][:300])
                assert 'class="toast show error"' in parts["toast"], (kind, data[:200])
            assert await db(snapshot, room.pk, hand.pk) == before, batch
            assert await observer.comm.receive_nothing(timeout=0.01), batch

        @hsettings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        @given(batch=st.lists(frames(hand.pk, hand.version), min_size=1, max_size=4))
        def fuzz(batch):
            asyncio.run_coroutine_threadsafe(one_batch(batch), loop).result(timeout=60)

        await loop.run_in_executor(None, fuzz)
        assert sent["frames"] >= EXAMPLES
        assert await observer.comm.receive_nothing(timeout=0.3)
        # both sockets still work: the seat in turn plays a legal move and the sender sees it
        held = face_name(state.hands[observer.position][0])
        await observer.send({"action": "discard", "tile": held, "v": hand.version, "h": hand.pk})
        while observer.hand_version <= hand.version:
            parts = await observer.receive()
            assert "toast" not in parts
        while sender.hand_version <= hand.version:
            await sender.receive()
        for p in players:
            await p.comm.disconnect()

    run(scenario)
